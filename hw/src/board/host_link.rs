//! `HostLink`: the whole host interface of `nic_top` over one UART, for boards with no
//! room for host memory in block RAM (the iCE40 board top, hw/src/board/ice40.rs). The
//! register port becomes register commands, as with `UartBridge`; the DMA port is
//! tunnelled: the NIC's read requests and write beats go to the host as messages, and the
//! host answers with read response beats and write responses from its own memory. So DMA
//! memory is the host's memory, as behind a PCIe link, and the board needs none. The host
//! side is `nic_driver::host_link` (`LinkDevice`).
//!
//! Messages are a kind byte and fixed-length little-endian fields.
//!
//! Host to board:
//!
//! | message | fields | the board |
//! |---|---|---|
//! | `'W'` register write | addr:u16 value:u32 | writes, answers `'w'` |
//! | `'R'` register read | addr:u16 | reads, answers `'r'` |
//! | `'B'` read response beat | flags:u8 data[16] | offers the beat on `dma_rd_rsp_*` |
//! | `'K'` write response | flags:u8 | pulses `dma_wr_rsp_*` |
//! | `'V'` identify | | answers `'v'` |
//! | anything else | | answers `'?'` and the byte |
//!
//! Board to host:
//!
//! | message | fields |
//! |---|---|
//! | `'w'` register written | status:u8 |
//! | `'r'` register read | status:u8 value:u32 |
//! | `'Q'` DMA read request | addr:u64 len:u16 tag:u8 |
//! | `'X'` DMA write beat | addr:u64 strb:u16 flags:u8 data[16] |
//! | `'q'` interrupt lines changed | irq:u16 |
//! | `'v'` identity | "NICL" version:u8 (1) overruns:u8 |
//! | `'?'` unknown command | the byte |
//!
//! Flags: bit 0 last (of the request's response, of the write burst), bit 1 error (the
//! host refused the read, or some beat of the burst), bits 7:4 tag. Status: 0 ok, 2 slave
//! error (`bresp`/`rresp` != 0).
//!
//! Rules:
//! * The two directions are independent. The host may send `'B'` and `'K'` while a
//!   register command is in progress (it serves DMA while it waits for the answer), but
//!   sends the next `'W'`/`'R'`/`'V'` only after the previous answer.
//! * The host answers each `'Q'` with its beats in request order (`ceil(len / 16)` beats,
//!   bytes packed from lane 0, zero past the end, last on the final one; or one beat with
//!   error and last), and each write burst (its beat with last) with one `'K'`, in order.
//! * Order of messages to the host: a pending register answer first, then a write beat,
//!   then a read request, then a change of `irq`. The host applies a write beat when it
//!   arrives, so a register read answered after the NIC saw the write response sees the
//!   data in memory.
//! * A read response beat is offered from the register that collected it; the next `'B'`
//!   starts overwriting it two byte times after it was complete. The NIC reserves room
//!   for a response before it asks, so it takes each beat at once; a `'B'` that finds the
//!   previous beat not taken counts an overrun (saturating; `'v'` reports it) and the
//!   beat is lost.
//! * A read request is copied when its message starts (and accepted then): the NIC may
//!   withdraw a request not yet accepted. A write beat is sent from the port and accepted
//!   when its last byte leaves: write beats are never withdrawn.
//! * nic_top's register port answers every access within a few cycles, so there is no
//!   register timeout here (`UartBridge` has one).

use rust_hdl::prelude::*;

/// What the board is sending.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum LinkMessage {
    None,
    /// `'w'` or `'r'` (the register answer in `reg_args`).
    Register,
    /// `'v'`.
    Identity,
    /// `'?'` and the byte in `unknown`.
    Unknown,
    /// `'X'` from the DMA write port.
    WriteBeat,
    /// `'Q'` from the captured request.
    ReadRequest,
    /// `'q'` with `irq_sent`.
    Irq,
}

/// What the host's current message is.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum LinkRxState {
    /// Waiting for a kind byte.
    Idle,
    /// Collecting the fields.
    Fields,
}

/// Version in the `'v'` answer (written as the literal 1 in the logic: hdl_gen takes no constants).
pub const LINK_VERSION: u64 = 1;

#[derive(LogicBlock, Default)]
pub struct HostLink {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // bytes from the UART receiver
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    // bytes to the UART transmitter
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    // AXI4-Lite master to nic_top's s_axil_*
    pub m_axil_awaddr: Signal<Out, Bits<16>>,
    pub m_axil_awvalid: Signal<Out, Bit>,
    pub m_axil_awready: Signal<In, Bit>,
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    pub m_axil_wvalid: Signal<Out, Bit>,
    pub m_axil_wready: Signal<In, Bit>,
    pub m_axil_bresp: Signal<In, Bits<2>>,
    pub m_axil_bvalid: Signal<In, Bit>,
    pub m_axil_bready: Signal<Out, Bit>,
    pub m_axil_araddr: Signal<Out, Bits<16>>,
    pub m_axil_arvalid: Signal<Out, Bit>,
    pub m_axil_arready: Signal<In, Bit>,
    pub m_axil_rdata: Signal<In, Bits<32>>,
    pub m_axil_rresp: Signal<In, Bits<2>>,
    pub m_axil_rvalid: Signal<In, Bit>,
    pub m_axil_rready: Signal<Out, Bit>,
    // nic_top's DMA port (docs/interfaces.md, "Host memory"), the slave side
    pub dma_rd_req_valid: Signal<In, Bit>,
    pub dma_rd_req_ready: Signal<Out, Bit>,
    pub dma_rd_req_addr: Signal<In, Bits<64>>,
    pub dma_rd_req_len: Signal<In, Bits<16>>,
    pub dma_rd_req_tag: Signal<In, Bits<4>>,
    pub dma_rd_rsp_valid: Signal<Out, Bit>,
    pub dma_rd_rsp_ready: Signal<In, Bit>,
    pub dma_rd_rsp_data: Signal<Out, Bits<128>>,
    pub dma_rd_rsp_last: Signal<Out, Bit>,
    pub dma_rd_rsp_error: Signal<Out, Bit>,
    pub dma_rd_rsp_tag: Signal<Out, Bits<4>>,
    pub dma_wr_valid: Signal<In, Bit>,
    pub dma_wr_ready: Signal<Out, Bit>,
    pub dma_wr_addr: Signal<In, Bits<64>>,
    pub dma_wr_data: Signal<In, Bits<128>>,
    pub dma_wr_strb: Signal<In, Bits<16>>,
    pub dma_wr_last: Signal<In, Bit>,
    pub dma_wr_tag: Signal<In, Bits<4>>,
    pub dma_wr_rsp_valid: Signal<Out, Bit>,
    pub dma_wr_rsp_error: Signal<Out, Bit>,
    pub dma_wr_rsp_tag: Signal<Out, Bits<4>>,
    pub irq: Signal<In, Bits<16>>,
    /// A read response beat was lost (some `'B'` found the previous beat not taken).
    pub overrun: Signal<Out, Bit>,
    // ---- host to board
    rx_state: DFF<LinkRxState>,
    kind: DFF<Bits<8>>,
    /// Field bytes received, and how many the message has.
    count: DFF<Bits<5>>,
    fields: DFF<Bits<5>>,
    /// A `'B'`'s fields, byte i at bit 8 i: flags, then the beat (offered from here).
    acc: DFF<Bits<136>>,
    /// The beat in `acc` is offered to the NIC.
    rsp_pend: DFF<Bit>,
    overruns: DFF<Bits<8>>,
    wr_rsp: DFF<Bit>,
    /// The last `'K'`'s flags.
    wr_rsp_flags: DFF<Bits<8>>,
    // ---- register access: a `'W'`/`'R'`'s fields as they arrive, byte i at bit 8 i:
    // address (15:0) and value (47:16); after a read, the value read. The host sends no
    // register command before the previous one's answer, so these are free meanwhile.
    reg_args: DFF<Bits<48>>,
    aw_pend: DFF<Bit>,
    w_pend: DFF<Bit>,
    ar_pend: DFF<Bit>,
    reg_write: DFF<Bit>,
    reg_busy: DFF<Bit>,
    reg_status: DFF<Bits<8>>,
    reg_answer: DFF<Bit>,
    ident_answer: DFF<Bit>,
    unknown_answer: DFF<Bit>,
    unknown: DFF<Bits<8>>,
    // ---- board to host
    msg: DFF<LinkMessage>,
    /// Index of the byte being sent, and the message's last index.
    pos: DFF<Bits<5>>,
    last_pos: DFF<Bits<5>>,
    rd_addr: DFF<Bits<64>>,
    rd_len: DFF<Bits<16>>,
    rd_tag: DFF<Bits<4>>,
    irq_sent: DFF<Bits<16>>,
    rx_shift: Signal<Local, Bits<8>>,
    tx_shift: Signal<Local, Bits<8>>,
    // byte `pos` of each message (the message shifted right by `pos` bytes, truncated)
    reg_byte: Signal<Local, Bits<8>>,
    ident_byte: Signal<Local, Bits<8>>,
    write_byte: Signal<Local, Bits<8>>,
    read_byte: Signal<Local, Bits<8>>,
    irq_byte: Signal<Local, Bits<8>>,
    wr_flags: Signal<Local, Bits<8>>,
    sent: Signal<Local, Bit>,
}

impl Logic for HostLink {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rx_state,
            kind,
            count,
            fields,
            acc,
            rsp_pend,
            overruns,
            wr_rsp,
            wr_rsp_flags,
            reg_args,
            aw_pend,
            w_pend,
            ar_pend,
            reg_write,
            reg_busy,
            reg_status,
            reg_answer,
            ident_answer,
            unknown_answer,
            unknown,
            msg,
            pos,
            last_pos,
            rd_addr,
            rd_len,
            rd_tag,
            irq_sent
        );

        self.overrun.next = self.overruns.q.val() != 0;

        // ---- read response beats and write responses, straight from the registers
        self.dma_rd_rsp_valid.next = self.rsp_pend.q.val();
        self.dma_rd_rsp_data.next = self.acc.q.val().get_bits::<128>(8);
        self.dma_rd_rsp_last.next = self.acc.q.val().get_bits::<1>(0).any();
        self.dma_rd_rsp_error.next = self.acc.q.val().get_bits::<1>(1).any();
        self.dma_rd_rsp_tag.next = self.acc.q.val().get_bits::<4>(4);
        if self.dma_rd_rsp_ready.val() {
            self.rsp_pend.d.next = false;
        }
        self.wr_rsp.d.next = false;
        self.dma_wr_rsp_valid.next = self.wr_rsp.q.val();
        self.dma_wr_rsp_error.next = self.wr_rsp_flags.q.val().get_bits::<1>(1).any();
        self.dma_wr_rsp_tag.next = self.wr_rsp_flags.q.val().get_bits::<4>(4);

        // ---- host to board: collect a message's fields into `acc`, act on the last
        self.rx_shift.next = bit_cast::<8, 5>(self.count.q.val()) << 3;
        match self.rx_state.q.val() {
            LinkRxState::Idle => {
                if self.rx_valid.val() {
                    self.kind.d.next = self.rx_data.val();
                    self.count.d.next = 0.into();
                    self.rx_state.d.next = LinkRxState::Fields;
                    if self.rx_data.val() == 0x57 {
                        // 'W' addr:u16 value:u32
                        self.fields.d.next = 6.into();
                    } else if self.rx_data.val() == 0x52 {
                        // 'R' addr:u16
                        self.fields.d.next = 2.into();
                    } else if self.rx_data.val() == 0x42 {
                        // 'B' flags data[16]: the previous beat must be gone by now
                        self.fields.d.next = 17.into();
                        if self.rsp_pend.q.val() & !self.dma_rd_rsp_ready.val() {
                            self.rsp_pend.d.next = false;
                            if self.overruns.q.val() != 0xff {
                                self.overruns.d.next = self.overruns.q.val() + 1;
                            }
                        }
                    } else if self.rx_data.val() == 0x4b {
                        // 'K' flags
                        self.fields.d.next = 1.into();
                    } else if self.rx_data.val() == 0x56 {
                        // 'V'
                        self.ident_answer.d.next = true;
                        self.rx_state.d.next = LinkRxState::Idle;
                    } else {
                        self.unknown.d.next = self.rx_data.val();
                        self.unknown_answer.d.next = true;
                        self.rx_state.d.next = LinkRxState::Idle;
                    }
                }
            }
            LinkRxState::Fields => {
                if self.rx_valid.val() {
                    if self.kind.q.val() == 0x42 {
                        if self.count.q.val() == 0 {
                            self.acc.d.next = bit_cast::<136, 8>(self.rx_data.val());
                        } else {
                            self.acc.d.next = self.acc.q.val()
                                | (bit_cast::<136, 8>(self.rx_data.val()) << self.rx_shift.val());
                        }
                    } else if self.kind.q.val() == 0x4b {
                        self.wr_rsp_flags.d.next = self.rx_data.val();
                    } else if self.count.q.val() == 0 {
                        self.reg_args.d.next = bit_cast::<48, 8>(self.rx_data.val());
                    } else {
                        self.reg_args.d.next = self.reg_args.q.val()
                            | (bit_cast::<48, 8>(self.rx_data.val()) << self.rx_shift.val());
                    }
                    self.count.d.next = self.count.q.val() + 1;
                    if self.count.q.val() + 1 == self.fields.q.val() {
                        self.rx_state.d.next = LinkRxState::Idle;
                        if self.kind.q.val() == 0x42 {
                            self.rsp_pend.d.next = true;
                        } else if self.kind.q.val() == 0x4b {
                            self.wr_rsp.d.next = true;
                        } else {
                            self.reg_busy.d.next = true;
                            if self.kind.q.val() == 0x57 {
                                self.reg_write.d.next = true;
                                self.aw_pend.d.next = true;
                                self.w_pend.d.next = true;
                            } else {
                                self.reg_write.d.next = false;
                                self.ar_pend.d.next = true;
                            }
                        }
                    }
                }
            }
            _ => {
                self.rx_state.d.next = LinkRxState::Idle;
            }
        }

        // ---- AXI4-Lite master: valids from the pending flags, responses always taken. A
        // flag clears on its handshake only (the slave may hold ready high while idle, and
        // a command's last byte sets the flags above in the same cycle)
        self.m_axil_awaddr.next = self.reg_args.q.val().get_bits::<16>(0);
        self.m_axil_araddr.next = self.reg_args.q.val().get_bits::<16>(0);
        self.m_axil_wdata.next = self.reg_args.q.val().get_bits::<32>(16);
        self.m_axil_wstrb.next = 15.into();
        self.m_axil_awvalid.next = self.aw_pend.q.val();
        self.m_axil_wvalid.next = self.w_pend.q.val();
        self.m_axil_arvalid.next = self.ar_pend.q.val();
        self.m_axil_bready.next = true;
        self.m_axil_rready.next = true;
        if self.aw_pend.q.val() & self.m_axil_awready.val() {
            self.aw_pend.d.next = false;
        }
        if self.w_pend.q.val() & self.m_axil_wready.val() {
            self.w_pend.d.next = false;
        }
        if self.ar_pend.q.val() & self.m_axil_arready.val() {
            self.ar_pend.d.next = false;
        }
        if self.reg_busy.q.val()
            & self.reg_write.q.val()
            & self.m_axil_bvalid.val()
            & !self.aw_pend.q.val()
            & !self.w_pend.q.val()
        {
            self.reg_busy.d.next = false;
            self.reg_answer.d.next = true;
            self.reg_status.d.next = 0.into();
            if self.m_axil_bresp.val() != 0 {
                self.reg_status.d.next = 2.into();
            }
        }
        if self.reg_busy.q.val()
            & !self.reg_write.q.val()
            & self.m_axil_rvalid.val()
            & !self.ar_pend.q.val()
        {
            self.reg_busy.d.next = false;
            self.reg_answer.d.next = true;
            self.reg_status.d.next = 0.into();
            self.reg_args.d.next = bit_cast::<48, 32>(self.m_axil_rdata.val()) << 16;
            if self.m_axil_rresp.val() != 0 {
                self.reg_status.d.next = 2.into();
                self.reg_args.d.next = 0.into();
            }
        }

        // ---- board to host: the byte at `pos` of the message being sent
        self.tx_shift.next = bit_cast::<8, 5>(self.pos.q.val()) << 3;
        // `'r'`: byte 2 + i is the value's byte i, bits 8 i + 16 of `reg_args`
        self.reg_byte.next = bit_cast::<8, 48>(self.reg_args.q.val() >> self.tx_shift.val());
        self.ident_byte.next = bit_cast::<8, 56>(
            (Bits::<56>::from(0x4c43494e76u64)
                | (Bits::<56>::from(1u64) << 40)
                | (bit_cast::<56, 8>(self.overruns.q.val()) << 48))
                >> self.tx_shift.val(),
        );
        self.wr_flags.next = bit_cast::<8, 4>(self.dma_wr_tag.val()) << 4;
        if self.dma_wr_last.val() {
            self.wr_flags.next = (bit_cast::<8, 4>(self.dma_wr_tag.val()) << 4) | 1;
        }
        self.write_byte.next = bit_cast::<8, 224>(
            (Bits::<224>::from(0x58u64)
                | (bit_cast::<224, 64>(self.dma_wr_addr.val()) << 8)
                | (bit_cast::<224, 16>(self.dma_wr_strb.val()) << 72)
                | (bit_cast::<224, 8>(self.wr_flags.val()) << 88)
                | (bit_cast::<224, 128>(self.dma_wr_data.val()) << 96))
                >> self.tx_shift.val(),
        );
        self.read_byte.next = bit_cast::<8, 96>(
            (Bits::<96>::from(0x51u64)
                | (bit_cast::<96, 64>(self.rd_addr.q.val()) << 8)
                | (bit_cast::<96, 16>(self.rd_len.q.val()) << 72)
                | (bit_cast::<96, 4>(self.rd_tag.q.val()) << 88))
                >> self.tx_shift.val(),
        );
        self.irq_byte.next = bit_cast::<8, 24>(
            (Bits::<24>::from(0x71u64) | (bit_cast::<24, 16>(self.irq_sent.q.val()) << 8))
                >> self.tx_shift.val(),
        );
        self.tx_valid.next = self.msg.q.val() != LinkMessage::None;
        self.tx_data.next = 0.into();
        match self.msg.q.val() {
            LinkMessage::Register => {
                self.tx_data.next = self.reg_byte.val();
                if self.pos.q.val() == 0 {
                    self.tx_data.next = 0x77.into();
                    if !self.reg_write.q.val() {
                        self.tx_data.next = 0x72.into();
                    }
                } else if self.pos.q.val() == 1 {
                    self.tx_data.next = self.reg_status.q.val();
                }
            }
            LinkMessage::Identity => {
                self.tx_data.next = self.ident_byte.val();
            }
            LinkMessage::Unknown => {
                self.tx_data.next = 0x3f.into();
                if self.pos.q.val() == 1 {
                    self.tx_data.next = self.unknown.q.val();
                }
            }
            LinkMessage::WriteBeat => {
                self.tx_data.next = self.write_byte.val();
            }
            LinkMessage::ReadRequest => {
                self.tx_data.next = self.read_byte.val();
            }
            LinkMessage::Irq => {
                self.tx_data.next = self.irq_byte.val();
            }
            _ => {}
        }
        self.sent.next = (self.msg.q.val() != LinkMessage::None) & self.tx_ready.val();
        self.dma_wr_ready.next = false;
        self.dma_rd_req_ready.next = false;
        if self.sent.val() {
            self.pos.d.next = self.pos.q.val() + 1;
            if self.pos.q.val() == self.last_pos.q.val() {
                self.msg.d.next = LinkMessage::None;
                self.dma_wr_ready.next = self.msg.q.val() == LinkMessage::WriteBeat;
            }
        }
        // the next message, by priority, once the line is free
        if self.msg.q.val() == LinkMessage::None {
            self.pos.d.next = 0.into();
            if self.reg_answer.q.val() {
                self.reg_answer.d.next = false;
                self.msg.d.next = LinkMessage::Register;
                self.last_pos.d.next = 1.into();
                if !self.reg_write.q.val() {
                    self.last_pos.d.next = 5.into();
                }
            } else if self.ident_answer.q.val() {
                self.ident_answer.d.next = false;
                self.msg.d.next = LinkMessage::Identity;
                self.last_pos.d.next = 6.into();
            } else if self.unknown_answer.q.val() {
                self.unknown_answer.d.next = false;
                self.msg.d.next = LinkMessage::Unknown;
                self.last_pos.d.next = 1.into();
            } else if self.dma_wr_valid.val() {
                self.msg.d.next = LinkMessage::WriteBeat;
                self.last_pos.d.next = 27.into();
            } else if self.dma_rd_req_valid.val() {
                self.dma_rd_req_ready.next = true;
                self.rd_addr.d.next = self.dma_rd_req_addr.val();
                self.rd_len.d.next = self.dma_rd_req_len.val();
                self.rd_tag.d.next = self.dma_rd_req_tag.val();
                self.msg.d.next = LinkMessage::ReadRequest;
                self.last_pos.d.next = 11.into();
            } else if self.irq.val() != self.irq_sent.q.val() {
                self.irq_sent.d.next = self.irq.val();
                self.msg.d.next = LinkMessage::Irq;
                self.last_pos.d.next = 2.into();
            }
        }

        if self.reset.val() {
            self.rx_state.d.next = LinkRxState::Idle;
            self.rsp_pend.d.next = false;
            self.overruns.d.next = 0.into();
            self.wr_rsp.d.next = false;
            self.aw_pend.d.next = false;
            self.w_pend.d.next = false;
            self.ar_pend.d.next = false;
            self.reg_busy.d.next = false;
            self.reg_answer.d.next = false;
            self.ident_answer.d.next = false;
            self.unknown_answer.d.next = false;
            self.msg.d.next = LinkMessage::None;
            self.irq_sent.d.next = 0.into();
        }
    }
}
