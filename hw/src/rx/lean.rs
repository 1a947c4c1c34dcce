//! RX classifier of a build without RSS and RX checksum validation (`small`,
//! `Config::has_rx_offload`): the MAC filter alone, with the outputs of [`RxClassifier`]
//! (docs/rx-classification.md), so that the RX engine sees the same interface.
//!
//! ```text
//! s_* ──────────────────────────────────────────────► m_* (once the frame's verdict is in)
//!  └─► destination (first beat) ─► RxFilter (3 cycles) ─► drop, queue (held for the frame)
//! ```
//! No FIFO and no block RAM: a frame's destination address is its first six bytes, all
//! in its first beat, and that beat waits at the input (`s_ready` low, so the valid/ready
//! rule holds it stable) while the filter judges it, then the frame passes through
//! combinationally with the verdict beside it. Each frame costs four cycles more than
//! its beats: a 60-byte frame takes 12 cycles, for 84 bytes of a Gigabit wire's time
//! (672 ns with preamble and gap), so the block keeps up at core clocks above 18 MHz.
//! The metadata a full build adds is constant here: hash 0, hash type none, packet type
//! 0, checksum verdicts "not checked"; the queue is the steering entry's (masked with
//! `queue_mask`) or 0.
//!
//! [`RxClassifier`]: super::RxClassifier

use super::RxFilter;
use rust_hdl::prelude::*;

/// Cycles from a destination on the filter's input to its verdict.
const VERDICT_WAIT: u64 = 3;

#[derive(LogicBlock)]
pub struct RxLeanClassifier {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // frames from the MAC (FCS stripped)
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_status: Signal<In, Bits<3>>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    // configuration (the filter's part of RxClassifier's)
    pub filter_ctrl: Signal<In, Bits<32>>,
    pub mac_filter: [Signal<In, Bits<32>>; 32],
    /// MCAST_HASH word write: at most one every other cycle (the CSR block answers each
    /// register write before it takes the next); lost while the table clears itself
    /// after reset (256 cycles).
    pub mcast_wr: Signal<In, Bit>,
    pub mcast_wr_addr: Signal<In, Bits<7>>,
    pub mcast_wr_data: Signal<In, Bits<32>>,
    pub queue_mask: Signal<In, Bits<8>>,
    // frames out
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    // per-frame metadata (every beat)
    pub m_drop: Signal<Out, Bits<2>>,
    pub m_queue: Signal<Out, Bits<8>>,
    // last beat
    pub m_status: Signal<Out, Bits<3>>,
    filter: RxFilter,
    /// The frame at the input has its verdict: its beats pass.
    pass: DFF<Bit>,
    /// Cycles until the verdict on the waiting first beat is out (0: none asked).
    verdict_in: DFF<Bits<2>>,
    verdict_wait: Constant<Bits<2>>,
    r_drop: DFF<Bits<2>>,
    r_queue: DFF<Bits<8>>,
    /// Reserved FILTER_CTRL bits (Verilator's `*unused*` convention).
    unused_ctrl: Signal<Local, Bits<29>>,
    has_dst: Signal<Local, Bit>,
}

impl Default for RxLeanClassifier {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_last: Default::default(),
            s_status: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            filter_ctrl: Default::default(),
            mac_filter: Default::default(),
            mcast_wr: Default::default(),
            mcast_wr_addr: Default::default(),
            mcast_wr_data: Default::default(),
            queue_mask: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_drop: Default::default(),
            m_queue: Default::default(),
            m_status: Default::default(),
            filter: Default::default(),
            pass: Default::default(),
            verdict_in: Default::default(),
            verdict_wait: Constant::new(Bits::<2>::from(VERDICT_WAIT)),
            r_drop: Default::default(),
            r_queue: Default::default(),
            unused_ctrl: Default::default(),
            has_dst: Default::default(),
        }
    }
}

impl Logic for RxLeanClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pass, verdict_in, r_drop, r_queue);
        clock!(self, clock, filter);
        self.filter.reset.next = self.reset.val();
        // ---- a first beat waits at the input while the filter judges its address ----
        self.filter.dst.next = self.s_data.val().get_bits::<48>(0);
        self.filter.filter_ctrl.next = self.filter_ctrl.val().get_bits::<3>(0);
        self.unused_ctrl.next = self.filter_ctrl.val().get_bits::<29>(3);
        for i in 0..32 {
            self.filter.mac_filter[i].next = self.mac_filter[i].val();
        }
        self.filter.mcast_wr.next = self.mcast_wr.val();
        self.filter.mcast_wr_addr.next = self.mcast_wr_addr.val();
        self.filter.mcast_wr_data.next = self.mcast_wr_data.val();
        if self.verdict_in.q.val() != 0 {
            self.verdict_in.d.next = self.verdict_in.q.val() - 1;
        }
        if self.s_valid.val() & !self.pass.q.val() & (self.verdict_in.q.val() == 0) & self.filter.ready.val() {
            self.verdict_in.d.next = self.verdict_wait.val();
        }
        // a frame too short to hold an address is accepted (the MAC has marked it a runt)
        self.has_dst.next = !self.s_last.val() | (self.s_len.val() >= 6);
        if self.verdict_in.q.val() == 1 {
            self.pass.d.next = true;
            self.r_drop.d.next = 0.into();
            self.r_queue.d.next = 0.into();
            if self.has_dst.val() {
                self.r_drop.d.next = self.filter.drop.val();
                if self.filter.steer.val() {
                    self.r_queue.d.next = self.filter.steer_queue.val() & self.queue_mask.val();
                }
            }
        }
        // ---- then the frame passes, its verdict beside it ----
        self.m_valid.next = self.s_valid.val() & self.pass.q.val();
        self.s_ready.next = self.m_ready.val() & self.pass.q.val();
        self.m_data.next = self.s_data.val();
        self.m_len.next = self.s_len.val();
        self.m_last.next = self.s_last.val();
        self.m_status.next = self.s_status.val();
        self.m_drop.next = self.r_drop.q.val();
        self.m_queue.next = self.r_queue.q.val();
        if self.s_valid.val() & self.s_ready.val() & self.s_last.val() {
            self.pass.d.next = false;
        }
        if self.reset.val() {
            self.pass.d.next = false;
            self.verdict_in.d.next = 0.into();
        }
    }
}
