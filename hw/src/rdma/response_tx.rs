//! The responder's transmit side (the read_reply half of rxe_resp.c): what the responder
//! owes its requesters, in the order it was owed, into packets for `RdmaTxBuild`. The
//! behavioural model's `responder_packet` (testbench/src/roce/engine/responder.rs) is the
//! reference.
//!
//! The responder queues one entry per response owed (`owed_*`, the head of its FIFO,
//! taken with `owed_ready` once its last packet is handed over):
//!
//! * an ACK or NAK: one Acknowledge packet with its syndrome and MSN;
//! * a READ: the response to a READ request it accepted (the RETH already checked and
//!   translated to a bus address, the PSN advanced past the response): the bytes cut at
//!   the path MTU into READ Response First/Middle/Last packets, or one Only, at the
//!   request's PSN and on; the AETH (syndrome, MSN) on First, Last and Only. An empty READ
//!   is one Only packet without payload.
//!
//! Each packet's payload is read from host memory (`dma_rd_*`, one read of at most 4,096
//! bytes) before its header is offered, into a buffer of 512 beats (two packets at the
//! largest MTU) where every read's beats are reserved before it is issued: the read port
//! answers in order and the requester's reads share it, so this block never holds an
//! answer back (`dma_rd_rsp_ready` is always set). The next packet's read goes out while
//! the framer takes this one's payload, so back-to-back packets wait for the framer, not
//! for host memory.
//!
//! The payload goes to the framer as 8-byte halves of the 16-byte beats (lane 0 aligned:
//! the read port delivers the first byte asked for in lane 0).
//!
//! A READ asked for again (a duplicate READ request: its requester went back, or the wire
//! repeated the request) while its response is going out here is restarted where it
//! asks (`rs_*`, taken between two packets: the responder then owes nothing more), so
//! the requester gets the packets it lacks next instead of after the rest of the old
//! response and of every response queued behind it (the model's responder puts the new
//! response first). One asked for at a PSN past the response going out for the same QP
//! is covered: its response is still queued behind this one (a QP's READ responses
//! are owed in PSN order), or is this one's rest, so nothing more is owed (a requester
//! going back asks again for every READ after the first it lacks). Any other is owed
//! again as a new request is.
//!
//! Not yet here (issue 19): a host refusing a read (an unmapped page inside a registered
//! region) leaves what the port returned in the packet; the model NAKs it (remote
//! operational error) and moves the QP to ERR.

use super::opcode::{OP_ACKNOWLEDGE, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_ONLY};
use super::path_mtu::RdmaPathMtu;
use crate::stream::NicFifo;
use rust_hdl::prelude::*;

/// The states of one entry: wait for one; an ACK's packet; a READ's packets, each
/// planned (its length, whether it ends the response), read, and offered to the framer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ResponseTxState {
    Idle,
    Ack,
    Plan,
    Size,
    Issue,
    Offer,
}


/// Beats the payload buffer holds (16 bytes each): two packets at a 4,096-byte MTU.
const BUF_BEATS: u64 = 512;

#[derive(LogicBlock)]
pub struct RdmaResponseTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- what is owed: the head of the responder's FIFO ----
    pub owed_valid: Signal<In, Bit>,
    pub owed_ready: Signal<Out, Bit>,
    /// A READ response (else one ACK/NAK).
    pub owed_read: Signal<In, Bit>,
    pub owed_psn: Signal<In, Bits<24>>,
    pub owed_syndrome: Signal<In, Bits<8>>,
    pub owed_msn: Signal<In, Bits<24>>,
    /// The QP's path (the MAC's first byte in bits 47:40) and its remote QP.
    pub owed_dst_mac: Signal<In, Bits<48>>,
    pub owed_dst_ip: Signal<In, Bits<32>>,
    pub owed_udp_src_port: Signal<In, Bits<16>>,
    pub owed_dest_qp: Signal<In, Bits<24>>,
    /// A READ's bus address, its length and the QP's path MTU code (1 256 .. 5 4096).
    pub owed_bus: Signal<In, Bits<64>>,
    pub owed_len: Signal<In, Bits<32>>,
    pub owed_pmtu: Signal<In, Bits<3>>,
    /// The entry's QP (ours).
    pub owed_qpn: Signal<In, Bits<6>>,
    /// The entry is a READ asked for again (from the responder's second queue, served
    /// before the first's): a response going out is no sign of what is queued behind it.
    pub owed_urgent: Signal<In, Bit>,
    /// The entry in hand is put back unfinished (its QP asked for an earlier READ again):
    /// the responder shows its urgent queue's head next, and this one, taken again later,
    /// goes out from its start.
    pub owed_yield: Signal<Out, Bit>,
    // ---- a READ asked for again: restart the one going out at `rs_psn` (its bytes at
    // `rs_bus`, `rs_len` of them) if it is QP `rs_qpn`'s and has passed that PSN ----
    pub rs_valid: Signal<In, Bit>,
    /// Taken: restarted, or covered by what is still to go out (nothing more is owed).
    pub rs_take: Signal<Out, Bit>,
    pub rs_qpn: Signal<In, Bits<6>>,
    pub rs_psn: Signal<In, Bits<24>>,
    pub rs_bus: Signal<In, Bits<64>>,
    pub rs_len: Signal<In, Bits<32>>,
    // ---- one packet's header, as `RdmaTxBuild` takes it ----
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_dst_mac: Signal<Out, Bits<48>>,
    pub tx_dst_ip: Signal<Out, Bits<32>>,
    pub tx_udp_src_port: Signal<Out, Bits<16>>,
    pub tx_dest_qp: Signal<Out, Bits<24>>,
    pub tx_opcode: Signal<Out, Bits<8>>,
    pub tx_psn: Signal<Out, Bits<24>>,
    pub tx_syndrome: Signal<Out, Bits<8>>,
    pub tx_msn: Signal<Out, Bits<24>>,
    pub tx_payload_len: Signal<Out, Bits<16>>,
    /// The packet offered is an Acknowledge (for the engine's ACK and NAK counters).
    pub tx_is_ack: Signal<Out, Bit>,
    // ---- its payload ----
    pub pay_valid: Signal<Out, Bit>,
    pub pay_ready: Signal<In, Bit>,
    pub pay_data: Signal<Out, Bits<64>>,
    // ---- DMA reads (answered in order, never held back) ----
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_len: Signal<Out, Bits<16>>,
    pub dma_rd_rsp_valid: Signal<In, Bit>,
    pub dma_rd_rsp_ready: Signal<Out, Bit>,
    pub dma_rd_rsp_data: Signal<In, Bits<128>>,
    // ---- children ----
    /// The payload read for the packets ahead (`buf` is a Verilog primitive's name).
    payload: NicFifo<Bits<128>, 9, 10>,
    // ---- the entry in hand ----
    state: DFF<ResponseTxState>,
    /// Bytes of the READ not yet put in a packet, and where they start.
    rem: DFF<Bits<32>>,
    bus: DFF<Bits<64>>,
    psn: DFF<Bits<24>>,
    first: DFF<Bit>,
    mtu: DFF<Bits<16>>,
    /// The packet being planned: its payload, whether it ends the response, its beats.
    chunk: DFF<Bits<16>>,
    last: DFF<Bit>,
    beats: DFF<Bits<10>>,
    /// Buffer beats reserved (read issued, not yet taken by the framer).
    reserved: DFF<Bits<10>>,
    // ---- the payload going out: bytes left of the packet, the beat's high half next ----
    s_left: DFF<Bits<16>>,
    s_high: DFF<Bit>,
    /// `s_left` is above 8 (kept beside it: the compare was on the path from `s_left` to
    /// the pop and the reserved count, 131.6 MHz).
    s_more: DFF<Bit>,
    /// `s_left` is not 0 (kept beside it too: its OR was on the path into the pop).
    s_any: DFF<Bit>,
    /// A beat left the buffer last cycle: `reserved` drops by it a cycle late (it then
    /// overstates by one for that cycle, which only delays a read).
    popped: DFF<Bit>,
    /// A restart taken, applied at the next packet's plan.
    rp_valid: DFF<Bit>,
    rp_psn: DFF<Bits<24>>,
    rp_bus: DFF<Bits<64>>,
    rp_len: DFF<Bits<32>>,
    /// The restart's PSN less the entry's first, and the next packet's PSN less it: both
    /// not negative (it falls in what went out, or is next).
    rs_d1: Signal<Local, Bits<24>>,
    rs_d2: Signal<Local, Bits<24>>,
    rs_restart: Signal<Local, Bit>,
    rs_covered: Signal<Local, Bit>,
    /// A READ asked for again, of the QP whose response is going out but at a PSN before
    /// it (a response that went out whole and was lost): this one yields at its next
    /// packet, so that one goes first (the requester discards all else until it comes).
    rs_before: Signal<Local, Bit>,
    yield_due: DFF<Bit>,
    /// The entry that yielded (its QP and first PSN): a READ of that QP asked for again at
    /// or past that PSN is covered, for that entry goes out whole later with every READ
    /// queued behind it.
    held_valid: DFF<Bit>,
    held_qpn: DFF<Bits<6>>,
    held_psn: DFF<Bits<24>>,
    rs_d3: Signal<Local, Bits<24>>,
    // ---- scratch ----
    /// The packet's beats fit beside those reserved.
    room_ok: Signal<Local, Bit>,
    fire_rd: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    more: Signal<Local, Bit>,
    path_mtu: RdmaPathMtu,
    buf_beats: Constant<Bits<10>>,
    op_first: Constant<Bits<8>>,
    op_middle: Constant<Bits<8>>,
    op_last: Constant<Bits<8>>,
    op_only: Constant<Bits<8>>,
    op_ack: Constant<Bits<8>>,
}

impl Default for RdmaResponseTx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            owed_valid: Default::default(),
            owed_ready: Default::default(),
            owed_read: Default::default(),
            owed_psn: Default::default(),
            owed_syndrome: Default::default(),
            owed_msn: Default::default(),
            owed_dst_mac: Default::default(),
            owed_dst_ip: Default::default(),
            owed_udp_src_port: Default::default(),
            owed_dest_qp: Default::default(),
            owed_bus: Default::default(),
            owed_len: Default::default(),
            owed_pmtu: Default::default(),
            owed_qpn: Default::default(),
            owed_urgent: Default::default(),
            owed_yield: Default::default(),
            rs_before: Default::default(),
            yield_due: Default::default(),
            held_valid: Default::default(),
            held_qpn: Default::default(),
            held_psn: Default::default(),
            rs_d3: Default::default(),
            rs_valid: Default::default(),
            rs_take: Default::default(),
            rs_qpn: Default::default(),
            rs_psn: Default::default(),
            rs_bus: Default::default(),
            rs_len: Default::default(),
            rp_valid: Default::default(),
            rp_psn: Default::default(),
            rp_bus: Default::default(),
            rp_len: Default::default(),
            rs_d1: Default::default(),
            rs_d2: Default::default(),
            rs_restart: Default::default(),
            rs_covered: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            tx_dst_mac: Default::default(),
            tx_dst_ip: Default::default(),
            tx_udp_src_port: Default::default(),
            tx_dest_qp: Default::default(),
            tx_opcode: Default::default(),
            tx_psn: Default::default(),
            tx_syndrome: Default::default(),
            tx_msn: Default::default(),
            tx_payload_len: Default::default(),
            tx_is_ack: Default::default(),
            pay_valid: Default::default(),
            pay_ready: Default::default(),
            pay_data: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            payload: Default::default(),
            state: Default::default(),
            rem: Default::default(),
            bus: Default::default(),
            psn: Default::default(),
            first: Default::default(),
            mtu: Default::default(),
            chunk: Default::default(),
            last: Default::default(),
            beats: Default::default(),
            reserved: Default::default(),
            room_ok: Default::default(),
            s_left: Default::default(),
            s_more: Default::default(),
            s_any: Default::default(),
            popped: Default::default(),
            s_high: Default::default(),
            fire_rd: Default::default(),
            pop: Default::default(),
            more: Default::default(),
            path_mtu: Default::default(),
            buf_beats: Constant::new(BUF_BEATS.into()),
            op_first: Constant::new(OP_READ_RESPONSE_FIRST.into()),
            op_middle: Constant::new(OP_READ_RESPONSE_MIDDLE.into()),
            op_last: Constant::new(OP_READ_RESPONSE_LAST.into()),
            op_only: Constant::new(OP_READ_RESPONSE_ONLY.into()),
            op_ack: Constant::new(OP_ACKNOWLEDGE.into()),
        }
    }
}

impl Logic for RdmaResponseTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, rem, bus, psn, first, mtu, chunk, last, beats, reserved, s_left, s_high, s_more, s_any, popped, rp_valid, rp_psn, rp_bus, rp_len, yield_due, held_valid, held_qpn, held_psn);
        clock!(self, clock, payload);
        self.payload.reset.next = self.reset.val();
        self.path_mtu.code.next = self.owed_pmtu.val();
        self.path_mtu.len.next = 0.into();
        // the header: the entry's path, the packet's own fields
        self.owed_ready.next = false;
        self.owed_yield.next = false;
        self.tx_valid.next = false;
        self.tx_dst_mac.next = self.owed_dst_mac.val();
        self.tx_dst_ip.next = self.owed_dst_ip.val();
        self.tx_udp_src_port.next = self.owed_udp_src_port.val();
        self.tx_dest_qp.next = self.owed_dest_qp.val();
        self.tx_syndrome.next = self.owed_syndrome.val();
        self.tx_msn.next = self.owed_msn.val();
        self.tx_is_ack.next = self.state.q.val() == ResponseTxState::Ack;
        self.tx_opcode.next = self.op_ack.val();
        self.tx_psn.next = self.owed_psn.val();
        self.tx_payload_len.next = 0.into();
        if self.state.q.val() != ResponseTxState::Ack {
            self.tx_psn.next = self.psn.q.val();
            self.tx_payload_len.next = self.chunk.q.val();
            self.tx_opcode.next = self.op_middle.val();
            if self.first.q.val() & self.last.q.val() {
                self.tx_opcode.next = self.op_only.val();
            } else if self.first.q.val() {
                self.tx_opcode.next = self.op_first.val();
            } else if self.last.q.val() {
                self.tx_opcode.next = self.op_last.val();
            }
        }
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = self.bus.q.val();
        self.dma_rd_req_len.next = self.chunk.q.val();
        self.fire_rd.next = false;
        // a restart is taken while a READ's packet other than its last is in hand (so the
        // response reaches another plan), for the same QP, at a PSN it has passed
        self.rs_d1.next = self.rs_psn.val() - self.owed_psn.val();
        self.rs_d2.next = self.psn.q.val() - self.rs_psn.val();
        self.rs_restart.next = self.rs_valid.val() & !self.rp_valid.q.val() & !self.last.q.val()
            & ((self.state.q.val() == ResponseTxState::Size) | (self.state.q.val() == ResponseTxState::Issue) | (self.state.q.val() == ResponseTxState::Offer))
            & (self.rs_qpn.val() == self.owed_qpn.val())
            & !(self.rs_d1.val().any() & self.rs_d1.val().get_bit(23))
            & !(self.rs_d2.val().any() & self.rs_d2.val().get_bit(23));
        // (past the next packet's PSN: a later READ of the QP, still queued, or this one's
        // rest; not so behind an urgent entry, whose later READs may have gone out whole;
        // or at or past the first PSN of the entry that yielded to it)
        self.rs_d3.next = self.rs_psn.val() - self.held_psn.q.val();
        self.rs_covered.next = (self.rs_valid.val() & !self.owed_urgent.val()
            & (self.state.q.val() != ResponseTxState::Idle) & (self.state.q.val() != ResponseTxState::Ack)
            & (self.rs_qpn.val() == self.owed_qpn.val())
            & self.rs_d2.val().any() & self.rs_d2.val().get_bit(23))
            | (self.rs_valid.val() & self.held_valid.q.val() & (self.rs_qpn.val() == self.held_qpn.q.val())
                & !(self.rs_d3.val().any() & self.rs_d3.val().get_bit(23)));
        self.rs_take.next = self.rs_restart.val() | self.rs_covered.val();
        // (before the entry's first PSN: owed again, on the urgent queue, and this one yields)
        self.rs_before.next = self.rs_valid.val() & !self.owed_urgent.val() & !self.held_valid.q.val()
            & (self.state.q.val() != ResponseTxState::Idle) & (self.state.q.val() != ResponseTxState::Ack)
            & (self.rs_qpn.val() == self.owed_qpn.val())
            & self.rs_d1.val().any() & self.rs_d1.val().get_bit(23);
        if self.rs_before.val() {
            self.yield_due.d.next = true;
        }
        if self.rs_restart.val() {
            self.rp_valid.d.next = true;
            self.rp_psn.d.next = self.rs_psn.val();
            self.rp_bus.d.next = self.rs_bus.val();
            self.rp_len.d.next = self.rs_len.val();
        }
        self.room_ok.next = bit_cast::<11, 10>(self.reserved.q.val()) + bit_cast::<11, 10>(self.beats.q.val()) <= bit_cast::<11, 10>(self.buf_beats.val());
        match self.state.q.val() {
            ResponseTxState::Idle => {
                self.yield_due.d.next = false;
                if self.owed_valid.val() & !self.owed_urgent.val() {
                    // the entry that yielded is back (or another: then it was finished)
                    self.held_valid.d.next = false;
                }
                if self.owed_valid.val() {
                    self.state.d.next = ResponseTxState::Ack;
                    if self.owed_read.val() {
                        self.rem.d.next = self.owed_len.val();
                        self.bus.d.next = self.owed_bus.val();
                        self.psn.d.next = self.owed_psn.val();
                        self.first.d.next = true;
                        // path MTU: 1 256 .. 5 4096, anything else 256 (as the responder)
                        self.mtu.d.next = self.path_mtu.bytes.val();
                        self.state.d.next = ResponseTxState::Plan;
                    }
                }
            }
            ResponseTxState::Ack => {
                self.tx_valid.next = true;
                if self.tx_ready.val() {
                    self.owed_ready.next = true;
                    self.state.d.next = ResponseTxState::Idle;
                }
            }
            ResponseTxState::Plan => {
                // yielding: back to wait, the entry not taken (nor its restart)
                if self.yield_due.q.val() {
                    self.yield_due.d.next = false;
                    self.rp_valid.d.next = false;
                    self.owed_yield.next = true;
                    self.held_valid.d.next = true;
                    self.held_qpn.d.next = self.owed_qpn.val();
                    self.held_psn.d.next = self.owed_psn.val();
                }
                // a restart first: the response goes on from there (a First packet, as a
                // new READ's), planned a cycle later
                if self.rp_valid.q.val() {
                    self.rp_valid.d.next = false;
                    self.psn.d.next = self.rp_psn.q.val();
                    self.bus.d.next = self.rp_bus.q.val();
                    self.rem.d.next = self.rp_len.q.val();
                    self.first.d.next = true;
                }
                // the rest, or an MTU's worth
                self.last.d.next = self.rem.q.val() <= bit_cast::<32, 16>(self.mtu.q.val());
                self.chunk.d.next = self.mtu.q.val();
                if self.rem.q.val() <= bit_cast::<32, 16>(self.mtu.q.val()) {
                    self.chunk.d.next = self.rem.q.val().get_bits::<16>(0);
                }
                self.state.d.next = ResponseTxState::Size;
                if self.rp_valid.q.val() {
                    self.state.d.next = ResponseTxState::Plan;
                }
                if self.yield_due.q.val() {
                    self.state.d.next = ResponseTxState::Idle;
                }
            }
            ResponseTxState::Size => {
                self.beats.d.next = bit_cast::<10, 12>(self.chunk.q.val().get_bits::<12>(4)) + bit_cast::<10, 1>(self.chunk.q.val().get_bits::<4>(0).any().into());
                self.state.d.next = ResponseTxState::Issue;
            }
            ResponseTxState::Issue => {
                // an empty READ reads nothing
                self.dma_rd_req_valid.next = self.chunk.q.val().any() & self.room_ok.val();
                self.fire_rd.next = self.dma_rd_req_valid.val() & self.dma_rd_req_ready.val();
                if self.fire_rd.val() | !self.chunk.q.val().any() {
                    self.bus.d.next = self.bus.q.val() + bit_cast::<64, 16>(self.chunk.q.val());
                    self.state.d.next = ResponseTxState::Offer;
                }
            }
            ResponseTxState::Offer => {
                self.tx_valid.next = true;
                if self.tx_ready.val() {
                    // the framer takes no other header before this one's payload
                    self.s_left.d.next = self.chunk.q.val();
                    self.s_any.d.next = self.chunk.q.val().any();
                    self.s_more.d.next = self.chunk.q.val() > 8;
                    self.s_high.d.next = false;
                    self.psn.d.next = self.psn.q.val() + 1;
                    self.rem.d.next = self.rem.q.val() - bit_cast::<32, 16>(self.chunk.q.val());
                    self.first.d.next = false;
                    self.state.d.next = ResponseTxState::Plan;
                    if self.last.q.val() {
                        self.owed_ready.next = true;
                        self.state.d.next = ResponseTxState::Idle;
                    }
                }
            }
        }
        // ---- the read's answers into the buffer (their room reserved) ----
        self.dma_rd_rsp_ready.next = true;
        self.payload.write.next = self.dma_rd_rsp_valid.val();
        self.payload.data_in.next = self.dma_rd_rsp_data.val();
        // ---- the payload: each beat's low half, then its high half if the packet goes on ----
        self.pay_valid.next = self.s_any.q.val() & !self.payload.empty.val();
        self.pay_data.next = self.payload.data_out.val().get_bits::<64>(0);
        if self.s_high.q.val() {
            self.pay_data.next = self.payload.data_out.val().get_bits::<64>(64);
        }
        self.more.next = self.s_more.q.val();
        self.pop.next = false;
        if self.pay_valid.val() & self.pay_ready.val() {
            self.s_left.d.next = 0.into();
            self.s_more.d.next = false;
            self.s_any.d.next = self.more.val();
            if self.more.val() {
                self.s_left.d.next = self.s_left.q.val() - 8;
                self.s_more.d.next = self.s_left.q.val() > 16;
            }
            self.s_high.d.next = !self.s_high.q.val() & self.more.val();
            self.pop.next = self.s_high.q.val() | !self.more.val();
        }
        self.payload.read.next = self.pop.val();
        self.popped.d.next = self.pop.val();
        self.reserved.d.next = self.reserved.q.val() - bit_cast::<10, 1>(self.popped.q.val().into());
        if self.fire_rd.val() {
            self.reserved.d.next = self.reserved.q.val() + self.beats.q.val() - bit_cast::<10, 1>(self.popped.q.val().into());
        }
        if self.reset.val() {
            self.state.d.next = ResponseTxState::Idle;
            self.rp_valid.d.next = false;
            self.yield_due.d.next = false;
            self.held_valid.d.next = false;
            self.reserved.d.next = 0.into();
            self.s_left.d.next = 0.into();
            self.s_more.d.next = false;
            self.s_any.d.next = false;
            self.popped.d.next = false;
            self.s_high.d.next = false;
        }
    }
}
