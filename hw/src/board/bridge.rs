//! `UartBridge`: the board's serial register bridge. It turns the byte protocol below
//! (the board spec, section 2) into AXI4-Lite accesses to `nic_top`'s `s_axil_*` port
//! and byte accesses to the host memory (`HostMem`'s `mem_*` port), so the Rust driver
//! can drive the board over the FT2232 UART. The host codec is `nic_driver::serial`.
//!
//! | command | request | answer |
//! |---|---|---|
//! | write register | `'W'` addr:u32 value:u32 | `'w'` status |
//! | read register | `'R'` addr:u32 | `'r'` status value:u32 (0 unless status 0) |
//! | memory write | `'M'` off:u32 len:u16 data[len] | `'m'` status |
//! | memory read | `'D'` off:u32 len:u16 | `'d'` status, then data[len] if status 0 |
//! | memory zero | `'Z'` off:u32 len:u32 | `'z'` status |
//! | poll | `'I'` | `'i'` irq:u16 cycles:u64 |
//! | fault log | `'F'` | `'f'` count:u16 addr:u64 len:u16 write:u8, then `fault_clear` |
//! | identify | `'V'` | `'v'` "NICB" version:u8 (1) mem_size_log2:u8 |
//! | anything else | the byte | `'?'` the byte |
//!
//! Integers are little-endian. Status: 0 ok, 1 register access timed out, 2 slave error
//! (`bresp`/`rresp` != 0), 3 range error (register address >= 0x10000, or memory
//! `off + len > 2^mem_size_log2`; nothing is accessed, an `'M'`'s data is still consumed).
//!
//! How it works:
//! * Arguments are collected byte by byte into one 64-bit register (byte `i` at bit
//!   `8 i`); a `Check` cycle registers the range checks and the zero length (a 32-bit sum and a 40-bit
//!   compare, which in the `Exec` cycle itself limited the bridge to 141.8 MHz at speed
//!   8), then one `Exec` cycle starts the access or answers.
//! * An answer (at most 14 bytes) is loaded whole into a shift register that feeds the
//!   UART transmitter; `'D'` data follows from a small FIFO once the header has left.
//! * `'M'` writes each byte as it arrives (a one-byte holding register waits for
//!   `mem_ready`: a byte arrives only every `10 * divisor` clocks, so the memory must not
//!   stall a bridge access that long, which `HostMem` guarantees); `'Z'` writes one zero
//!   byte per cycle `mem_ready` allows; `'D'` keeps at most 4 bytes read ahead (issued
//!   but not yet handed to the UART), so the UART never waits on the memory latency.
//! * Register timeout: a register access has 4096 cycles from its start to get its
//!   response. Then the bridge drops `awvalid`/`wvalid`/`arvalid` (whatever is still
//!   waiting), answers status 1, and forgets the access. `bready` and `rready` are held
//!   high at all times, so a response that still comes later is accepted and discarded
//!   outside of an access; an access only takes a response once all its address/data
//!   handshakes are done, so a late response arriving before that is discarded too.
//!   A response of a timed-out access arriving after the next access's handshakes is
//!   taken for that access: the timeout exists to report a dead slave, not to keep a
//!   slow one in step (`nic_top`'s CSR block answers within a few cycles).
//! * Protocol rules the host must follow: it sends the next command only after the whole
//!   answer; bytes arriving while the bridge is busy with an access or an answer (not in
//!   the middle of a command) are dropped.

use crate::stream::NicFifo;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum BridgeState {
    /// Waiting for a command byte.
    Idle,
    /// Collecting the command's argument bytes.
    Args,
    /// The arguments are in: their checks are registered (`range_bad_q`, `hi_addr_q`,
    /// `len_zero_q`).
    Check,
    /// Starting the access or answering.
    Exec,
    /// AXI4-Lite write in progress.
    RegWrite,
    /// AXI4-Lite read in progress.
    RegRead,
    /// `'M'` data bytes arriving.
    MemWriteData,
    /// `'M'`: the last byte waits for the memory.
    MemWriteDrain,
    /// `'Z'` writing zeros.
    MemZero,
    /// `'D'` reading and streaming.
    MemRead,
    /// Waiting for the answer to leave.
    Answer,
}

#[derive(LogicBlock)]
pub struct UartBridge {
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
    // byte port of the host memory (offset inside the window)
    pub mem_addr: Signal<Out, Bits<32>>,
    pub mem_wr: Signal<Out, Bit>,
    pub mem_wdata: Signal<Out, Bits<8>>,
    pub mem_rd: Signal<Out, Bit>,
    pub mem_ready: Signal<In, Bit>,
    pub mem_rdata: Signal<In, Bits<8>>,
    pub mem_rvalid: Signal<In, Bit>,
    pub mem_size_log2: Signal<In, Bits<8>>,
    // status of the NIC and the host memory
    pub irq: Signal<In, Bits<16>>,
    pub fault_count: Signal<In, Bits<16>>,
    pub fault_addr: Signal<In, Bits<64>>,
    pub fault_len: Signal<In, Bits<16>>,
    pub fault_write: Signal<In, Bit>,
    pub fault_clear: Signal<Out, Bit>,
    /// `'D'` data read ahead.
    rd_fifo: NicFifo<Bits<8>, 3, 4>,
    state: DFF<BridgeState>,
    cmd: DFF<Bits<8>>,
    /// Argument bytes received, and the index of the last one.
    idx: DFF<Bits<4>>,
    last_idx: DFF<Bits<4>>,
    /// `range_bad` and `hi_addr` of the arguments, registered in `Check`.
    range_bad_q: DFF<Bit>,
    hi_addr_q: DFF<Bit>,
    /// The length argument is zero, registered in `Check`.
    len_zero_q: DFF<Bit>,
    /// The length argument is one, registered in `Check`, and `remain == 1` kept as a
    /// flag beside `remain` (set where it is loaded or counts down): the 32-bit compare
    /// in front of the answer's registers missed 156.25 MHz.
    len_one_q: DFF<Bit>,
    rem_one: DFF<Bit>,
    rem_two: Signal<Local, Bit>,
    args: DFF<Bits<64>>,
    /// The answer, first byte in bits 7:0, and its remaining length.
    ans: DFF<Bits<112>>,
    ans_len: DFF<Bits<5>>,
    /// The answer in `ans` is an `'f'`: pulse `fault_clear` when it has left.
    clear_after: DFF<Bit>,
    fault_clear_q: DFF<Bit>,
    /// Core clocks since reset.
    cycles: DFF<Bits<64>>,
    /// Register access timeout.
    timer: DFF<Bits<12>>,
    aw_pend: DFF<Bit>,
    w_pend: DFF<Bit>,
    ar_pend: DFF<Bit>,
    /// Memory offset of the next access, and bytes still to write/zero/read.
    off: DFF<Bits<32>>,
    remain: DFF<Bits<32>>,
    /// `'D'` bytes still to hand to the UART; reads issued and not handed yet.
    to_send: DFF<Bits<16>>,
    inflight: DFF<Bits<4>>,
    /// `'M'` with a range error: discard the data.
    bad: DFF<Bit>,
    /// `'M'`: a byte waits for `mem_ready`.
    wr_pend: DFF<Bit>,
    wr_byte: DFF<Bits<8>>,
    rx_shift: Signal<Local, Bits<7>>,
    off_arg: Signal<Local, Bits<32>>,
    len_arg: Signal<Local, Bits<32>>,
    end_off: Signal<Local, Bits<40>>,
    size: Signal<Local, Bits<40>>,
    range_bad: Signal<Local, Bit>,
    hi_addr: Signal<Local, Bit>,
    rd_issue: Signal<Local, Bit>,
    rd_sent: Signal<Local, Bit>,
}

impl Default for UartBridge {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            m_axil_awaddr: Default::default(),
            m_axil_awvalid: Default::default(),
            m_axil_awready: Default::default(),
            m_axil_wdata: Default::default(),
            m_axil_wstrb: Default::default(),
            m_axil_wvalid: Default::default(),
            m_axil_wready: Default::default(),
            m_axil_bresp: Default::default(),
            m_axil_bvalid: Default::default(),
            m_axil_bready: Default::default(),
            m_axil_araddr: Default::default(),
            m_axil_arvalid: Default::default(),
            m_axil_arready: Default::default(),
            m_axil_rdata: Default::default(),
            m_axil_rresp: Default::default(),
            m_axil_rvalid: Default::default(),
            m_axil_rready: Default::default(),
            mem_addr: Default::default(),
            mem_wr: Default::default(),
            mem_wdata: Default::default(),
            mem_rd: Default::default(),
            mem_ready: Default::default(),
            mem_rdata: Default::default(),
            mem_rvalid: Default::default(),
            mem_size_log2: Default::default(),
            irq: Default::default(),
            fault_count: Default::default(),
            fault_addr: Default::default(),
            fault_len: Default::default(),
            fault_write: Default::default(),
            fault_clear: Default::default(),
            rd_fifo: Default::default(),
            state: Default::default(),
            cmd: Default::default(),
            idx: Default::default(),
            last_idx: Default::default(),
            range_bad_q: Default::default(),
            hi_addr_q: Default::default(),
            len_zero_q: Default::default(),
            len_one_q: Default::default(),
            rem_one: Default::default(),
            rem_two: Default::default(),
            args: Default::default(),
            ans: Default::default(),
            ans_len: Default::default(),
            clear_after: Default::default(),
            fault_clear_q: Default::default(),
            cycles: Default::default(),
            timer: Default::default(),
            aw_pend: Default::default(),
            w_pend: Default::default(),
            ar_pend: Default::default(),
            off: Default::default(),
            remain: Default::default(),
            to_send: Default::default(),
            inflight: Default::default(),
            bad: Default::default(),
            wr_pend: Default::default(),
            wr_byte: Default::default(),
            rx_shift: Default::default(),
            off_arg: Default::default(),
            len_arg: Default::default(),
            end_off: Default::default(),
            size: Default::default(),
            range_bad: Default::default(),
            hi_addr: Default::default(),
            rd_issue: Default::default(),
            rd_sent: Default::default(),
        }
    }
}

impl Logic for UartBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, cmd, idx, last_idx, range_bad_q, hi_addr_q, len_zero_q, args, ans, ans_len, clear_after, fault_clear_q, cycles, timer, aw_pend, w_pend, ar_pend, off, remain,
            to_send, inflight, bad, wr_pend, wr_byte, len_one_q, rem_one
        );
        self.rd_fifo.clock.next = self.clock.val();
        self.rd_fifo.reset.next = self.reset.val();
        self.cycles.d.next = self.cycles.q.val() + 1;
        self.timer.d.next = self.timer.q.val() + 1;
        self.fault_clear_q.d.next = false;
        self.fault_clear.next = self.fault_clear_q.q.val();

        // ---- argument decode and checks (valid in Exec)
        self.rx_shift.next = bit_cast::<7, 4>(self.idx.q.val()) << 3;
        self.off_arg.next = self.args.q.val().get_bits::<32>(0);
        self.len_arg.next = self.args.q.val().get_bits::<32>(32);
        self.end_off.next = bit_cast::<40, 32>(self.off_arg.val()) + bit_cast::<40, 32>(self.len_arg.val());
        self.size.next = Bits::<40>::from(1u64) << self.mem_size_log2.val();
        self.range_bad.next = (self.mem_size_log2.val() < 33) & (self.end_off.val() > self.size.val());
        self.hi_addr.next = self.args.q.val().get_bits::<16>(16).any();
        self.range_bad_q.d.next = self.range_bad.val();
        self.hi_addr_q.d.next = self.hi_addr.val();
        self.len_zero_q.d.next = self.len_arg.val() == 0;
        self.len_one_q.d.next = self.len_arg.val() == 1;
        self.rem_two.next = self.remain.q.val() == 2;

        // ---- answer / data to the UART
        self.tx_valid.next = self.ans_len.q.val() != 0;
        self.tx_data.next = self.ans.q.val().get_bits::<8>(0);
        self.rd_sent.next = false;
        if (self.ans_len.q.val() == 0) & (self.state.q.val() == BridgeState::MemRead) {
            self.tx_valid.next = !self.rd_fifo.empty.val();
            self.tx_data.next = self.rd_fifo.data_out.val();
            self.rd_sent.next = self.tx_ready.val() & !self.rd_fifo.empty.val();
        }
        self.rd_fifo.read.next = self.rd_sent.val();
        if (self.ans_len.q.val() != 0) & self.tx_ready.val() {
            self.ans.d.next = self.ans.q.val() >> 8;
            self.ans_len.d.next = self.ans_len.q.val() - 1;
            if (self.ans_len.q.val() == 1) & self.clear_after.q.val() {
                self.clear_after.d.next = false;
                self.fault_clear_q.d.next = true;
            }
        }

        // ---- AXI4-Lite master: valids from the pending flags, responses always taken
        self.m_axil_awaddr.next = self.args.q.val().get_bits::<16>(0);
        self.m_axil_araddr.next = self.args.q.val().get_bits::<16>(0);
        self.m_axil_wdata.next = self.args.q.val().get_bits::<32>(32);
        self.m_axil_wstrb.next = 15.into();
        self.m_axil_awvalid.next = self.aw_pend.q.val();
        self.m_axil_wvalid.next = self.w_pend.q.val();
        self.m_axil_arvalid.next = self.ar_pend.q.val();
        self.m_axil_bready.next = true;
        self.m_axil_rready.next = true;
        if self.m_axil_awready.val() {
            self.aw_pend.d.next = false;
        }
        if self.m_axil_wready.val() {
            self.w_pend.d.next = false;
        }
        if self.m_axil_arready.val() {
            self.ar_pend.d.next = false;
        }

        // ---- memory byte port
        self.mem_addr.next = self.off.q.val();
        self.mem_wdata.next = self.wr_byte.q.val();
        self.mem_wr.next = false;
        self.mem_rd.next = false;
        self.rd_issue.next = false;
        self.rd_fifo.write.next = self.mem_rvalid.val();
        self.rd_fifo.data_in.next = self.mem_rdata.val();

        match self.state.q.val() {
            BridgeState::Idle => {
                self.timer.d.next = 0.into();
                if self.rx_valid.val() {
                    self.cmd.d.next = self.rx_data.val();
                    self.idx.d.next = 0.into();
                    self.args.d.next = 0.into();
                    self.state.d.next = BridgeState::Args;
                    if self.rx_data.val() == 0x57 {
                        // 'W' addr value
                        self.last_idx.d.next = 7.into();
                    } else if self.rx_data.val() == 0x52 {
                        // 'R' addr
                        self.last_idx.d.next = 3.into();
                    } else if (self.rx_data.val() == 0x4d) | (self.rx_data.val() == 0x44) {
                        // 'M' / 'D' off len16
                        self.last_idx.d.next = 5.into();
                    } else if self.rx_data.val() == 0x5a {
                        // 'Z' off len32
                        self.last_idx.d.next = 7.into();
                    } else if self.rx_data.val() == 0x49 {
                        // 'I' -> 'i' irq cycles
                        self.ans.d.next =
                            Bits::<112>::from(0x69u64) | (bit_cast::<112, 16>(self.irq.val()) << 8) | (bit_cast::<112, 64>(self.cycles.q.val()) << 24);
                        self.ans_len.d.next = 11.into();
                        self.state.d.next = BridgeState::Answer;
                    } else if self.rx_data.val() == 0x46 {
                        // 'F' -> 'f' count addr len write
                        self.ans.d.next = Bits::<112>::from(0x66u64)
                            | (bit_cast::<112, 16>(self.fault_count.val()) << 8)
                            | (bit_cast::<112, 64>(self.fault_addr.val()) << 24)
                            | (bit_cast::<112, 16>(self.fault_len.val()) << 88);
                        if self.fault_write.val() {
                            self.ans.d.next = Bits::<112>::from(0x66u64)
                                | (bit_cast::<112, 16>(self.fault_count.val()) << 8)
                                | (bit_cast::<112, 64>(self.fault_addr.val()) << 24)
                                | (bit_cast::<112, 16>(self.fault_len.val()) << 88)
                                | (Bits::<112>::from(1u64) << 104);
                        }
                        self.ans_len.d.next = 14.into();
                        self.clear_after.d.next = true;
                        self.state.d.next = BridgeState::Answer;
                    } else if self.rx_data.val() == 0x56 {
                        // 'V' -> 'v' "NICB" 1 mem_size_log2
                        self.ans.d.next = Bits::<112>::from(0x0001_4243_494e_76u64) | (bit_cast::<112, 8>(self.mem_size_log2.val()) << 48);
                        self.ans_len.d.next = 7.into();
                        self.state.d.next = BridgeState::Answer;
                    } else {
                        // unknown: '?' and the byte, so the host can resynchronise
                        self.ans.d.next = Bits::<112>::from(0x3fu64) | (bit_cast::<112, 8>(self.rx_data.val()) << 8);
                        self.ans_len.d.next = 2.into();
                        self.state.d.next = BridgeState::Answer;
                    }
                }
            }
            BridgeState::Args => {
                self.timer.d.next = 0.into();
                if self.rx_valid.val() {
                    self.args.d.next = self.args.q.val() | (bit_cast::<64, 8>(self.rx_data.val()) << self.rx_shift.val());
                    self.idx.d.next = self.idx.q.val() + 1;
                    if self.idx.q.val() == self.last_idx.q.val() {
                        self.state.d.next = BridgeState::Check;
                    }
                }
            }
            BridgeState::Check => {
                self.timer.d.next = 0.into();
                self.state.d.next = BridgeState::Exec;
            }
            BridgeState::Exec => {
                self.timer.d.next = 0.into();
                self.off.d.next = self.off_arg.val();
                self.remain.d.next = self.len_arg.val();
                self.rem_one.d.next = self.len_one_q.q.val();
                self.to_send.d.next = self.args.q.val().get_bits::<16>(32);
                self.inflight.d.next = 0.into();
                self.bad.d.next = self.range_bad_q.q.val();
                self.wr_pend.d.next = false;
                self.state.d.next = BridgeState::Answer;
                if self.cmd.q.val() == 0x57 {
                    if self.hi_addr_q.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x0377u64);
                        self.ans_len.d.next = 2.into();
                    } else {
                        self.aw_pend.d.next = true;
                        self.w_pend.d.next = true;
                        self.state.d.next = BridgeState::RegWrite;
                    }
                } else if self.cmd.q.val() == 0x52 {
                    if self.hi_addr_q.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x0372u64);
                        self.ans_len.d.next = 6.into();
                    } else {
                        self.ar_pend.d.next = true;
                        self.state.d.next = BridgeState::RegRead;
                    }
                } else if self.cmd.q.val() == 0x4d {
                    // 'M': the data bytes come even when the range is bad
                    if self.len_zero_q.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x006du64);
                        if self.range_bad_q.q.val() {
                            self.ans.d.next = Bits::<112>::from(0x036du64);
                        }
                        self.ans_len.d.next = 2.into();
                    } else {
                        self.state.d.next = BridgeState::MemWriteData;
                    }
                } else if self.cmd.q.val() == 0x44 {
                    self.ans_len.d.next = 2.into();
                    if self.range_bad_q.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x0364u64);
                    } else {
                        self.ans.d.next = Bits::<112>::from(0x0064u64);
                        if !self.len_zero_q.q.val() {
                            self.state.d.next = BridgeState::MemRead;
                        }
                    }
                } else {
                    // 'Z'
                    self.ans_len.d.next = 2.into();
                    if self.range_bad_q.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x037au64);
                    } else {
                        self.ans.d.next = Bits::<112>::from(0x007au64);
                        if !self.len_zero_q.q.val() {
                            self.ans_len.d.next = 0.into();
                            self.state.d.next = BridgeState::MemZero;
                        }
                    }
                }
            }
            BridgeState::RegWrite => {
                if self.m_axil_bvalid.val() & !self.aw_pend.q.val() & !self.w_pend.q.val() {
                    self.ans.d.next = Bits::<112>::from(0x0077u64);
                    if self.m_axil_bresp.val() != 0 {
                        self.ans.d.next = Bits::<112>::from(0x0277u64);
                    }
                    self.ans_len.d.next = 2.into();
                    self.state.d.next = BridgeState::Answer;
                } else if self.timer.q.val() == 0xfff {
                    self.aw_pend.d.next = false;
                    self.w_pend.d.next = false;
                    self.ans.d.next = Bits::<112>::from(0x0177u64);
                    self.ans_len.d.next = 2.into();
                    self.state.d.next = BridgeState::Answer;
                }
            }
            BridgeState::RegRead => {
                if self.m_axil_rvalid.val() & !self.ar_pend.q.val() {
                    self.ans.d.next = Bits::<112>::from(0x0072u64) | (bit_cast::<112, 32>(self.m_axil_rdata.val()) << 16);
                    if self.m_axil_rresp.val() != 0 {
                        self.ans.d.next = Bits::<112>::from(0x0272u64);
                    }
                    self.ans_len.d.next = 6.into();
                    self.state.d.next = BridgeState::Answer;
                } else if self.timer.q.val() == 0xfff {
                    self.ar_pend.d.next = false;
                    self.ans.d.next = Bits::<112>::from(0x0172u64);
                    self.ans_len.d.next = 6.into();
                    self.state.d.next = BridgeState::Answer;
                }
            }
            BridgeState::MemWriteData => {
                self.mem_wr.next = self.wr_pend.q.val();
                if self.wr_pend.q.val() & self.mem_ready.val() {
                    self.wr_pend.d.next = false;
                    self.off.d.next = self.off.q.val() + 1;
                }
                if self.rx_valid.val() {
                    self.remain.d.next = self.remain.q.val() - 1;
                    self.rem_one.d.next = self.rem_two.val();
                    if !self.bad.q.val() {
                        self.wr_pend.d.next = true;
                        self.wr_byte.d.next = self.rx_data.val();
                    }
                    if self.rem_one.q.val() {
                        self.state.d.next = BridgeState::MemWriteDrain;
                    }
                }
            }
            BridgeState::MemWriteDrain => {
                self.mem_wr.next = self.wr_pend.q.val();
                if self.wr_pend.q.val() & self.mem_ready.val() {
                    self.wr_pend.d.next = false;
                    self.off.d.next = self.off.q.val() + 1;
                }
                if !self.wr_pend.q.val() {
                    self.ans.d.next = Bits::<112>::from(0x006du64);
                    if self.bad.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x036du64);
                    }
                    self.ans_len.d.next = 2.into();
                    self.state.d.next = BridgeState::Answer;
                }
            }
            BridgeState::MemZero => {
                self.mem_wr.next = true;
                self.mem_wdata.next = 0.into();
                if self.mem_ready.val() {
                    self.off.d.next = self.off.q.val() + 1;
                    self.remain.d.next = self.remain.q.val() - 1;
                    self.rem_one.d.next = self.rem_two.val();
                    if self.rem_one.q.val() {
                        self.ans.d.next = Bits::<112>::from(0x007au64);
                        self.ans_len.d.next = 2.into();
                        self.state.d.next = BridgeState::Answer;
                    }
                }
            }
            BridgeState::MemRead => {
                // read ahead at most 4 bytes not yet handed to the UART
                self.mem_rd.next = (self.remain.q.val() != 0) & (self.inflight.q.val() < 4);
                if (self.remain.q.val() != 0) & (self.inflight.q.val() < 4) & self.mem_ready.val() {
                    self.rd_issue.next = true;
                    self.off.d.next = self.off.q.val() + 1;
                    self.remain.d.next = self.remain.q.val() - 1;
                    self.rem_one.d.next = self.rem_two.val();
                }
                if self.rd_sent.val() {
                    self.to_send.d.next = self.to_send.q.val() - 1;
                    if self.to_send.q.val() == 1 {
                        self.state.d.next = BridgeState::Idle;
                    }
                }
            }
            BridgeState::Answer => {
                if self.ans_len.q.val() == 0 {
                    self.state.d.next = BridgeState::Idle;
                }
            }
            _ => {
                self.state.d.next = BridgeState::Idle;
            }
        }
        self.inflight.d.next = self.inflight.q.val();
        if self.rd_issue.val() & !self.rd_sent.val() {
            self.inflight.d.next = self.inflight.q.val() + 1;
        }
        if !self.rd_issue.val() & self.rd_sent.val() {
            self.inflight.d.next = self.inflight.q.val() - 1;
        }
        if self.state.q.val() == BridgeState::Exec {
            self.inflight.d.next = 0.into();
        }

        if self.reset.val() {
            self.state.d.next = BridgeState::Idle;
            self.cmd.d.next = 0.into();
            self.idx.d.next = 0.into();
            self.last_idx.d.next = 0.into();
            self.args.d.next = 0.into();
            self.ans.d.next = 0.into();
            self.ans_len.d.next = 0.into();
            self.clear_after.d.next = false;
            self.fault_clear_q.d.next = false;
            self.cycles.d.next = 0.into();
            self.timer.d.next = 0.into();
            self.aw_pend.d.next = false;
            self.w_pend.d.next = false;
            self.ar_pend.d.next = false;
            self.off.d.next = 0.into();
            self.remain.d.next = 0.into();
            self.rem_one.d.next = false;
            self.to_send.d.next = 0.into();
            self.inflight.d.next = 0.into();
            self.bad.d.next = false;
            self.wr_pend.d.next = false;
            self.wr_byte.d.next = 0.into();
        }
    }
}
