//! RX classifier of a build without RSS and RX checksum validation (`small`,
//! `Config::has_rx_offload`): the MAC filter alone, with the outputs of [`RxClassifier`]
//! (docs/rx-classification.md), so that the RX engine sees the same interface.
//!
//! ```text
//! s_* ─┬─► data FIFO (16 beats) ──────────────────────────► m_* (held until its meta)
//!      └─► destination (first beat) ─► RxFilter (3 cycles) ─► meta FIFO ─┘
//! ```
//! A frame's destination address is its first six bytes, all in its first beat. The
//! filter judges one address at a time; a frame whose first beat arrives while the
//! previous verdict is still on its way waits (a cycle or two, only behind frames
//! shorter than four beats). At most 7 frames are inside, so the 8-entry meta FIFO
//! cannot overflow. The metadata a full build adds is constant here: hash 0, hash type
//! none, packet type 0, checksum verdicts "not checked"; the queue is the steering
//! entry's (masked with `queue_mask`) or 0.
//!
//! [`RxClassifier`]: super::RxClassifier

use super::classifier::ClassBeat;
use super::RxFilter;
use crate::stream::NicFifo;
use rust_hdl::prelude::*;

/// Meta FIFO word: [1:0] drop, [9:2] queue.
pub type LeanMeta = Bits<10>;

/// Cycles from the destination register to the filter's verdict, plus one.
const VERDICT_WAIT: u64 = 4;

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
    /// Data FIFO: the full classifier's word layout.
    fifo: NicFifo<ClassBeat, 4, 5>,
    meta_fifo: NicFifo<LeanMeta, 3, 4>,
    in_mid: DFF<Bit>,
    frames: DFF<Bits<4>>,
    dst: DFF<Bits<48>>,
    has_dst: DFF<Bit>,
    /// Cycles until the verdict on `dst` is out (0: the filter is free).
    verdict_in: DFF<Bits<3>>,
    verdict_wait: Constant<Bits<3>>,
    /// Reserved FILTER_CTRL bits (Verilator's `*unused*` convention).
    unused_ctrl: Signal<Local, Bits<29>>,
    in_fire: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    drop: Signal<Local, Bits<2>>,
    queue: Signal<Local, Bits<8>>,
    out_fire: Signal<Local, Bit>,
    frame_in: Signal<Local, Bit>,
    frame_out: Signal<Local, Bit>,
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
            fifo: Default::default(),
            meta_fifo: Default::default(),
            in_mid: Default::default(),
            frames: Default::default(),
            dst: Default::default(),
            has_dst: Default::default(),
            verdict_in: Default::default(),
            verdict_wait: Constant::new(Bits::<3>::from(VERDICT_WAIT)),
            unused_ctrl: Default::default(),
            in_fire: Default::default(),
            first: Default::default(),
            drop: Default::default(),
            queue: Default::default(),
            out_fire: Default::default(),
            frame_in: Default::default(),
            frame_out: Default::default(),
        }
    }
}

impl Logic for RxLeanClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_mid, frames, dst, has_dst, verdict_in);
        clock!(self, clock, filter, fifo, meta_fifo);
        self.filter.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.meta_fifo.reset.next = self.reset.val();
        // ---- input: a first beat waits for the filter to be free ----
        self.first.next = !self.in_mid.q.val();
        self.s_ready.next = self.filter.ready.val()
            & !self.fifo.full.val()
            & (self.in_mid.q.val() | ((self.frames.q.val() < 7) & (self.verdict_in.q.val() == 0)));
        self.in_fire.next = self.s_valid.val() & self.s_ready.val();
        if self.in_fire.val() {
            self.in_mid.d.next = !self.s_last.val();
        }
        self.fifo.write.next = self.in_fire.val();
        self.fifo.data_in.next = bit_cast::<72, 64>(self.s_data.val())
            | (bit_cast::<72, 4>(self.s_len.val()) << 64)
            | (bit_cast::<72, 3>(self.s_status.val()) << 69);
        if self.s_last.val() {
            self.fifo.data_in.next = bit_cast::<72, 64>(self.s_data.val())
                | (bit_cast::<72, 4>(self.s_len.val()) << 64)
                | (bit_cast::<72, 3>(self.s_status.val()) << 69)
                | (bit_cast::<72, 1>(1.into()) << 68);
        }
        // ---- destination -> filter -> meta FIFO ----
        self.frame_in.next = self.in_fire.val() & self.first.val();
        if self.verdict_in.q.val() != 0 {
            self.verdict_in.d.next = self.verdict_in.q.val() - 1;
        }
        if self.frame_in.val() {
            self.dst.d.next = self.s_data.val().get_bits::<48>(0);
            self.has_dst.d.next = !self.s_last.val() | (self.s_len.val() >= 6);
            self.verdict_in.d.next = self.verdict_wait.val();
        }
        self.filter.dst.next = self.dst.q.val();
        self.filter.filter_ctrl.next = self.filter_ctrl.val().get_bits::<3>(0);
        self.unused_ctrl.next = self.filter_ctrl.val().get_bits::<29>(3);
        for i in 0..32 {
            self.filter.mac_filter[i].next = self.mac_filter[i].val();
        }
        self.filter.mcast_wr.next = self.mcast_wr.val();
        self.filter.mcast_wr_addr.next = self.mcast_wr_addr.val();
        self.filter.mcast_wr_data.next = self.mcast_wr_data.val();
        // a frame too short to hold an address is accepted (the MAC has marked it a runt)
        self.drop.next = 0.into();
        self.queue.next = 0.into();
        if self.has_dst.q.val() {
            self.drop.next = self.filter.drop.val();
            if self.filter.steer.val() {
                self.queue.next = self.filter.steer_queue.val() & self.queue_mask.val();
            }
        }
        self.meta_fifo.write.next = self.verdict_in.q.val() == 1;
        self.meta_fifo.data_in.next = bit_cast::<10, 2>(self.drop.val()) | (bit_cast::<10, 8>(self.queue.val()) << 2);
        // ---- out: a frame leaves once its metadata is there ----
        self.m_valid.next = !self.fifo.empty.val() & !self.meta_fifo.empty.val();
        self.fifo.read.next = self.m_valid.val() & self.m_ready.val();
        self.m_data.next = self.fifo.data_out.val().get_bits::<64>(0);
        self.m_len.next = self.fifo.data_out.val().get_bits::<4>(64);
        self.m_last.next = self.fifo.data_out.val().get_bit(68);
        self.m_status.next = self.fifo.data_out.val().get_bits::<3>(69);
        self.m_drop.next = self.meta_fifo.data_out.val().get_bits::<2>(0);
        self.m_queue.next = self.meta_fifo.data_out.val().get_bits::<8>(2);
        self.out_fire.next = self.m_valid.val() & self.m_ready.val();
        self.frame_out.next = self.out_fire.val() & self.m_last.val();
        self.meta_fifo.read.next = self.frame_out.val();
        if self.frame_in.val() & !self.frame_out.val() {
            self.frames.d.next = self.frames.q.val() + 1;
        }
        if !self.frame_in.val() & self.frame_out.val() {
            self.frames.d.next = self.frames.q.val() - 1;
        }
        if self.reset.val() {
            self.in_mid.d.next = false;
            self.frames.d.next = 0.into();
            self.verdict_in.d.next = 0.into();
            self.has_dst.d.next = false;
        }
    }
}
