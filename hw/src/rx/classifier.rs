//! RX classifier: tags every frame from the MAC with its filter verdict, queue, RSS hash
//! and type, packet type and checksum verdicts (docs/rx-classification.md). It never
//! drops a frame.
//!
//! ```text
//! s_* ─┬─► data FIFO (64 beats) ───────────────► RxCsum (6 stages) ─► RegSlice ─► m_*
//!      └─► RxParser ─► record ─► RxRss + RxFilter ─┬► info FIFO ──┘ (offsets)      ▲
//!                                                 └► meta FIFO ──────────────────┘ (per frame)
//! ```
//! The parser's record (first 104 bytes of a frame, or fewer if it ends sooner) goes to
//! RSS and the filter, which together take 8 cycles; their result is pushed into the meta
//! FIFO (what the frame leaves with) and the info FIFO (the offsets the checksum block
//! needs). A frame starts into the checksum block only when its info is there and either
//! its last beat is in or `START_FILL` beats are buffered: that fixes the latency of
//! back-to-back traffic at `START_FILL` cycles plus the pipeline, whatever the mix of
//! frame lengths, so frames follow each other without a gap. The metadata is at the
//! output before the frame's first beat and stays until its last beat has left; the
//! checksum verdicts travel on the last beat.
//!
//! Flow control on the input: a beat that would close a header window waits while the
//! previous record has not reached RSS (one record every 8 cycles: frames of 8 beats and
//! more flow at full rate, shorter ones are slowed down), and at most 7 frames are inside
//! (so the 8-entry record FIFOs cannot overflow). After reset the input waits until the
//! filter and RSS have written their tables' reset values (128 cycles, and one more for
//! `tables_ready`).

use super::{RxCsum, RxFilter, RxParser, RxRss};
use crate::stream::{NicFifo, RegSlice};
use rust_hdl::prelude::*;

/// Data FIFO word: [63:0] data, [67:64] len, [68] last, [71:69] MAC status.
pub type ClassBeat = Bits<72>;
/// Output beat: a `ClassBeat` plus [73:72] L3 and [75:74] L4 verdicts.
pub type ClassOutBeat = Bits<76>;
/// Info FIFO word: l3, l4, l4end, addr_start, addr_end, pconst (17 bits each from bit 0),
/// [102] chk3, [103] chk4, [104] udp0, [105] v6.
pub type ClassInfo = Bits<106>;
/// Meta FIFO word: [15:0] ptype, [17:16] drop, [25:18] queue, [57:26] hash, [61:58] type,
/// [62] RoCEv2 for this NIC.
pub type ClassMeta = Bits<63>;

/// Cycles from a record's `rss_go` to its RDMA verdict: `h_dst` is registered (1), the
/// filter's verdict follows it 3 cycles later.
pub const VERDICT_DELAY: u64 = 4;

/// Beats buffered before a frame may start out (when its last beat is not in yet):
/// covers the longest record path (window closed at beat 12, +3 parser, +8 RSS, +2 FIFO).
pub const START_FILL: u64 = 26;

#[derive(LogicBlock)]
pub struct RxClassifier {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // frames from the MAC (FCS stripped)
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_status: Signal<In, Bits<3>>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    // configuration
    pub filter_ctrl: Signal<In, Bits<32>>,
    pub mac_filter: [Signal<In, Bits<32>>; 32],
    /// MCAST_HASH word write: at most one every other cycle (the CSR block answers each
    /// register write before it takes the next); lost while the table clears itself
    /// after reset (256 cycles).
    pub mcast_wr: Signal<In, Bit>,
    pub mcast_wr_addr: Signal<In, Bits<7>>,
    pub mcast_wr_data: Signal<In, Bits<32>>,
    pub rss_ctrl: Signal<In, Bits<32>>,
    pub rss_key: [Signal<In, Bits<32>>; 10],
    pub reta_wr: Signal<In, Bit>,
    pub reta_wr_addr: Signal<In, Bits<5>>,
    pub reta_wr_data: Signal<In, Bits<32>>,
    pub queue_mask: Signal<In, Bits<8>>,
    /// The RDMA engine's CONTROL.ENABLE and LOCAL_IPV4 (0 in a build without the engine).
    pub rdma_enable: Signal<In, Bit>,
    pub local_ipv4: Signal<In, Bits<32>>,
    // frames out
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    // per-frame metadata (every beat)
    pub m_drop: Signal<Out, Bits<2>>,
    pub m_queue: Signal<Out, Bits<8>>,
    pub m_hash: Signal<Out, Bits<32>>,
    pub m_hash_type: Signal<Out, Bits<4>>,
    pub m_ptype: Signal<Out, Bits<16>>,
    /// The RDMA engine's frame, which the NIC top takes off the Ethernet path: RoCEv2 for
    /// this NIC (untagged IPv4 without options or fragmentation, UDP to port 4791,
    /// destination LOCAL_IPV4, the engine enabled) that the filter accepts. One rule,
    /// decided once (`divert`) for both this and `v_divert`.
    pub m_divert: Signal<Out, Bit>,
    /// Every frame's RDMA verdict, in the order frames came in, before the frame leaves:
    /// `v_divert` is the frame's `m_divert`. The RDMA engine parses every frame as it
    /// comes in, and acts on one only when this says so.
    /// It comes [`VERDICT_DELAY`] cycles after the record reached RSS: 6 or 7 cycles after
    /// the frame's last beat (or its beat 12), at most `VERDICT_DELAY + 8` when the
    /// record waits for RSS (one record every 8 cycles).
    pub v_valid: Signal<Out, Bit>,
    pub v_divert: Signal<Out, Bit>,
    // last beat
    pub m_status: Signal<Out, Bits<3>>,
    pub m_l3_csum: Signal<Out, Bits<2>>,
    pub m_l4_csum: Signal<Out, Bits<2>>,
    parser: RxParser,
    filter: RxFilter,
    rss: RxRss,
    csum: RxCsum,
    fifo: NicFifo<ClassBeat, 6, 7>,
    info_fifo: NicFifo<ClassInfo, 3, 4>,
    meta_fifo: NicFifo<ClassMeta, 3, 4>,
    out: RegSlice<ClassOutBeat>,
    in_mid: DFF<Bit>,
    eng_mid: DFF<Bit>,
    frames: DFF<Bits<4>>,
    lasts: DFF<Bits<7>>,
    /// The data FIFO holds `START_FILL` beats or more, registered: its next value is
    /// chosen among three compares of the current count by this cycle's write and read,
    /// so a frame's start waits on a flip-flop, not on the count's subtract and compare
    /// (the block's critical path at speed 8, 9.2 ns into the checksum unit's field
    /// registers).
    filled: DFF<Bit>,
    /// A last beat was read last cycle: `lasts` takes it off a cycle late, so that the
    /// FIFO's block RAM output (`head_last`, 4.3 ns from the clock) meets only this
    /// flip-flop, not the count's add and compares.
    last_read_q: DFF<Bit>,
    /// `lasts` is not 0 / is 1, kept as `filled` is (three compares of the current count
    /// chosen by this cycle's change): with `last_read_q`, "a frame's last beat is in the
    /// data FIFO" (`any_last`) is one gate of flip-flops.
    lasts_nz: DFF<Bit>,
    lasts_one: DFF<Bit>,
    any_last: Signal<Local, Bit>,
    /// The filter's and RSS's tables are written (both `ready`), registered: one
    /// flip-flop in front of the input's ready instead of two distant ones.
    tables_ready: DFF<Bit>,
    h_dst: DFF<Bits<48>>,
    h_has_dst: DFF<Bit>,
    h_ptype: DFF<Bits<16>>,
    h_info: DFF<ClassInfo>,
    h_roce: DFF<Bit>,
    /// `rss_go` of the last `VERDICT_DELAY` cycles (bit 0 the last): the filter's verdict
    /// on `h_dst` is there at the top bit.
    go_pipe: DFF<Bits<4>>,
    roce: Signal<Local, Bit>,
    /// The frame's RoCE mark with the filter's accept: the RDMA engine's (see `m_divert`).
    divert: Signal<Local, Bit>,
    l3_untagged: Constant<Bits<17>>,
    l4_no_options: Constant<Bits<17>>,
    roce_port: Constant<Bits<16>>,
    start_fill: Constant<Bits<7>>,
    start_fill_less_one: Constant<Bits<7>>,
    start_fill_plus_one: Constant<Bits<7>>,
    /// Reserved configuration bits (Verilator's `*unused*` convention).
    unused_cfg: Signal<Local, Bits<26>>,
    unused_ctrl: Signal<Local, Bits<29>>,
    in_fire: Signal<Local, Bit>,
    will_close: Signal<Local, Bit>,
    rss_go: Signal<Local, Bit>,
    info: Signal<Local, ClassInfo>,
    steer: Signal<Local, Bit>,
    queue: Signal<Local, Bits<8>>,
    drop: Signal<Local, Bits<2>>,
    head_last: Signal<Local, Bit>,
    can_read: Signal<Local, Bit>,
    read: Signal<Local, Bit>,
    en: Signal<Local, Bit>,
    inf: Signal<Local, ClassInfo>,
    meta_ok: Signal<Local, Bit>,
    out_fire: Signal<Local, Bit>,
    frame_in: Signal<Local, Bit>,
    frame_out: Signal<Local, Bit>,
    last_in: Signal<Local, Bit>,
    last_read: Signal<Local, Bit>,
}

impl Default for RxClassifier {
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
            rss_ctrl: Default::default(),
            rss_key: Default::default(),
            reta_wr: Default::default(),
            reta_wr_addr: Default::default(),
            reta_wr_data: Default::default(),
            queue_mask: Default::default(),
            rdma_enable: Default::default(),
            local_ipv4: Default::default(),
            m_divert: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_drop: Default::default(),
            m_queue: Default::default(),
            m_hash: Default::default(),
            m_hash_type: Default::default(),
            m_ptype: Default::default(),
            m_status: Default::default(),
            m_l3_csum: Default::default(),
            m_l4_csum: Default::default(),
            parser: Default::default(),
            filter: Default::default(),
            rss: Default::default(),
            csum: Default::default(),
            fifo: Default::default(),
            info_fifo: Default::default(),
            meta_fifo: Default::default(),
            out: Default::default(),
            in_mid: Default::default(),
            eng_mid: Default::default(),
            frames: Default::default(),
            lasts: Default::default(),
            filled: Default::default(),
            last_read_q: Default::default(),
            lasts_nz: Default::default(),
            lasts_one: Default::default(),
            any_last: Default::default(),
            tables_ready: Default::default(),
            h_dst: Default::default(),
            h_has_dst: Default::default(),
            h_ptype: Default::default(),
            h_roce: Default::default(),
            go_pipe: Default::default(),
            v_valid: Default::default(),
            v_divert: Default::default(),
            roce: Default::default(),
            divert: Default::default(),
            l3_untagged: Constant::new(14u64.into()),
            l4_no_options: Constant::new(34u64.into()),
            roce_port: Constant::new(4791u64.into()),
            h_info: Default::default(),
            start_fill: Constant::new(Bits::<7>::from(START_FILL)),
            start_fill_less_one: Constant::new(Bits::<7>::from(START_FILL - 1)),
            start_fill_plus_one: Constant::new(Bits::<7>::from(START_FILL + 1)),
            unused_cfg: Default::default(),
            unused_ctrl: Default::default(),
            in_fire: Default::default(),
            will_close: Default::default(),
            rss_go: Default::default(),
            info: Default::default(),
            steer: Default::default(),
            queue: Default::default(),
            drop: Default::default(),
            head_last: Default::default(),
            can_read: Default::default(),
            read: Default::default(),
            en: Default::default(),
            inf: Default::default(),
            meta_ok: Default::default(),
            out_fire: Default::default(),
            frame_in: Default::default(),
            frame_out: Default::default(),
            last_in: Default::default(),
            last_read: Default::default(),
        }
    }
}

impl Logic for RxClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_mid, eng_mid, frames, lasts, filled, last_read_q, lasts_nz, lasts_one, tables_ready, h_dst, h_has_dst, h_ptype, h_info, h_roce, go_pipe);
        clock!(self, clock, parser, filter, rss, csum, fifo, info_fifo, meta_fifo, out);
        self.parser.reset.next = self.reset.val();
        self.filter.reset.next = self.reset.val();
        self.rss.reset.next = self.reset.val();
        self.csum.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.info_fifo.reset.next = self.reset.val();
        self.meta_fifo.reset.next = self.reset.val();
        self.out.reset.next = self.reset.val();
        // ---- input ----
        self.will_close.next = self.parser.window_end.val() | (self.s_last.val() & self.parser.window_open.val());
        self.tables_ready.d.next = self.filter.ready.val() & self.rss.ready.val();
        self.s_ready.next = self.tables_ready.q.val()
            & !self.fifo.full.val()
            & !(self.parser.pending.val() & self.will_close.val())
            & (self.in_mid.q.val() | (self.frames.q.val() < 7));
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
        self.parser.fire.next = self.in_fire.val();
        self.parser.data.next = self.s_data.val();
        self.parser.len.next = self.s_len.val();
        self.parser.last.next = self.s_last.val();
        // ---- record -> RSS and filter ----
        self.rss_go.next = self.parser.rec_valid.val() & self.rss.idle.val();
        self.parser.rec_take.next = self.rss_go.val();
        self.rss.start.next = self.rss_go.val();
        for i in 0..5 {
            self.rss.tuple[i].next = self.parser.tuple[i].val();
        }
        self.rss.v4ok.next = self.parser.v4ok.val();
        self.rss.v6ok.next = self.parser.v6ok.val();
        self.rss.tcp_ok.next = self.parser.tcp_ok.val();
        self.rss.udp_ok.next = self.parser.udp_ok.val();
        self.rss.rss_ctrl.next = self.rss_ctrl.val().get_bits::<6>(0);
        self.unused_cfg.next = self.rss_ctrl.val().get_bits::<26>(6);
        self.unused_ctrl.next = self.filter_ctrl.val().get_bits::<29>(3);
        for i in 0..10 {
            self.rss.rss_key[i].next = self.rss_key[i].val();
        }
        self.rss.reta_wr.next = self.reta_wr.val();
        self.rss.reta_wr_addr.next = self.reta_wr_addr.val();
        self.rss.reta_wr_data.next = self.reta_wr_data.val();
        self.info.next = bit_cast::<106, 17>(self.parser.l3.val())
            | (bit_cast::<106, 17>(self.parser.l4.val()) << 17)
            | (bit_cast::<106, 17>(self.parser.l4end.val()) << 34)
            | (bit_cast::<106, 17>(self.parser.addr_start.val()) << 51)
            | (bit_cast::<106, 17>(self.parser.addr_end.val()) << 68)
            | (bit_cast::<106, 17>(self.parser.pconst.val()) << 85);
        if self.parser.chk3.val() {
            self.info.next = self.info.val() | (bit_cast::<106, 1>(1.into()) << 102);
        }
        if self.parser.chk4.val() {
            self.info.next = self.info.val() | (bit_cast::<106, 1>(1.into()) << 103);
        }
        if self.parser.udp0.val() {
            self.info.next = self.info.val() | (bit_cast::<106, 1>(1.into()) << 104);
        }
        if self.parser.v6ok.val() {
            self.info.next = self.info.val() | (bit_cast::<106, 1>(1.into()) << 105);
        }
        self.roce.next = self.rdma_enable.val() & self.parser.v4ok.val() & self.parser.udp_ok.val()
            & (self.parser.l3.val() == self.l3_untagged.val()) & (self.parser.l4.val() == self.l4_no_options.val())
            & (self.parser.tuple[0].val().get_bits::<32>(0) == self.local_ipv4.val())
            & (self.parser.tuple[1].val().get_bits::<16>(32) == self.roce_port.val());
        if self.rss_go.val() {
            self.h_roce.d.next = self.roce.val();
            self.h_dst.d.next = self.parser.dst.val();
            self.h_has_dst.d.next = self.parser.has_dst.val();
            self.h_ptype.d.next = self.parser.ptype.val();
            self.h_info.d.next = self.info.val();
        }
        self.filter.dst.next = self.h_dst.q.val();
        self.filter.filter_ctrl.next = self.filter_ctrl.val().get_bits::<3>(0);
        for i in 0..32 {
            self.filter.mac_filter[i].next = self.mac_filter[i].val();
        }
        self.filter.mcast_wr.next = self.mcast_wr.val();
        self.filter.mcast_wr_addr.next = self.mcast_wr_addr.val();
        self.filter.mcast_wr_data.next = self.mcast_wr_data.val();
        // RSS done (the filter settled long before): the frame's record is complete
        self.drop.next = 0.into();
        self.steer.next = false;
        if self.h_has_dst.q.val() {
            self.drop.next = self.filter.drop.val();
            self.steer.next = self.filter.steer.val();
        }
        self.queue.next = 0.into();
        if self.steer.val() {
            self.queue.next = self.filter.steer_queue.val();
        } else if self.rss.hash_type.val() != 0 {
            self.queue.next = self.rss.reta_queue.val();
        }
        // (h_roce and the filter's drop hold from a record's rss_go to the next one's, past
        // both its verdict and its RSS done)
        self.divert.next = self.h_roce.q.val() & (self.drop.val() == 0);
        self.meta_fifo.write.next = self.rss.done.val();
        self.meta_fifo.data_in.next = bit_cast::<63, 16>(self.h_ptype.q.val())
            | (bit_cast::<63, 2>(self.drop.val()) << 16)
            | (bit_cast::<63, 8>(self.queue.val() & self.queue_mask.val()) << 18)
            | (bit_cast::<63, 32>(self.rss.hash.val()) << 26)
            | (bit_cast::<63, 4>(self.rss.hash_type.val()) << 58)
            | (bit_cast::<63, 1>(self.divert.val().into()) << 62);
        // the RDMA verdict, in frame order like the records (RSS takes one every 8 cycles)
        self.go_pipe.d.next = (self.go_pipe.q.val() << 1) | bit_cast::<4, 1>(self.rss_go.val().into());
        self.v_valid.next = self.go_pipe.q.val().get_bit(3);
        self.v_divert.next = self.divert.val();
        self.info_fifo.write.next = self.rss.done.val();
        self.info_fifo.data_in.next = self.h_info.q.val();
        // ---- data FIFO -> checksum pipeline ----
        self.en.next = self.out.s_ready.val();
        self.head_last.next = self.fifo.data_out.val().get_bit(68);
        self.any_last.next = self.lasts_nz.q.val() & !(self.lasts_one.q.val() & self.last_read_q.q.val());
        self.can_read.next = !self.fifo.empty.val()
            & (self.eng_mid.q.val()
                | (!self.info_fifo.empty.val() & (self.filled.q.val() | self.any_last.val())));
        self.read.next = self.en.val() & self.can_read.val();
        self.fifo.read.next = self.read.val();
        self.info_fifo.read.next = self.read.val() & !self.eng_mid.q.val();
        // the count after this cycle's write (`in_fire`, never while full) and read
        // (`read`, never while empty): one more, one less, or the same
        self.filled.d.next = self.fifo.count.val() >= self.start_fill.val();
        if self.in_fire.val() & !self.read.val() {
            self.filled.d.next = self.fifo.count.val() >= self.start_fill_less_one.val();
        }
        if !self.in_fire.val() & self.read.val() {
            self.filled.d.next = self.fifo.count.val() >= self.start_fill_plus_one.val();
        }
        if self.read.val() {
            self.eng_mid.d.next = !self.head_last.val();
        }
        self.inf.next = self.info_fifo.data_out.val();
        self.csum.en.next = self.en.val();
        self.csum.in_valid.next = self.can_read.val();
        self.csum.in_data.next = self.fifo.data_out.val().get_bits::<64>(0);
        self.csum.in_len.next = self.fifo.data_out.val().get_bits::<4>(64);
        self.csum.in_last.next = self.head_last.val();
        self.csum.in_status.next = self.fifo.data_out.val().get_bits::<3>(69);
        self.csum.l3.next = self.inf.val().get_bits::<17>(0);
        self.csum.l4.next = self.inf.val().get_bits::<17>(17);
        self.csum.l4end.next = self.inf.val().get_bits::<17>(34);
        self.csum.addr_start.next = self.inf.val().get_bits::<17>(51);
        self.csum.addr_end.next = self.inf.val().get_bits::<17>(68);
        self.csum.pconst.next = self.inf.val().get_bits::<17>(85);
        self.csum.chk3.next = self.inf.val().get_bit(102);
        self.csum.chk4.next = self.inf.val().get_bit(103);
        self.csum.udp0.next = self.inf.val().get_bit(104);
        self.csum.v6.next = self.inf.val().get_bit(105);
        // ---- out ----
        self.out.s_valid.next = self.csum.out_valid.val();
        self.out.s_data.next = bit_cast::<76, 64>(self.csum.out_data.val())
            | (bit_cast::<76, 4>(self.csum.out_len.val()) << 64)
            | (bit_cast::<76, 3>(self.csum.out_status.val()) << 69)
            | (bit_cast::<76, 2>(self.csum.out_l3.val()) << 72)
            | (bit_cast::<76, 2>(self.csum.out_l4.val()) << 74);
        if self.csum.out_last.val() {
            self.out.s_data.next = bit_cast::<76, 64>(self.csum.out_data.val())
                | (bit_cast::<76, 4>(self.csum.out_len.val()) << 64)
                | (bit_cast::<76, 3>(self.csum.out_status.val()) << 69)
                | (bit_cast::<76, 2>(self.csum.out_l3.val()) << 72)
                | (bit_cast::<76, 2>(self.csum.out_l4.val()) << 74)
                | (bit_cast::<76, 1>(1.into()) << 68);
        }
        self.meta_ok.next = !self.meta_fifo.empty.val();
        self.out.m_ready.next = self.m_ready.val() & self.meta_ok.val();
        self.m_valid.next = self.out.m_valid.val() & self.meta_ok.val();
        self.m_data.next = self.out.m_data.val().get_bits::<64>(0);
        self.m_len.next = self.out.m_data.val().get_bits::<4>(64);
        self.m_last.next = self.out.m_data.val().get_bit(68);
        self.m_status.next = self.out.m_data.val().get_bits::<3>(69);
        self.m_l3_csum.next = self.out.m_data.val().get_bits::<2>(72);
        self.m_l4_csum.next = self.out.m_data.val().get_bits::<2>(74);
        self.m_ptype.next = self.meta_fifo.data_out.val().get_bits::<16>(0);
        self.m_drop.next = self.meta_fifo.data_out.val().get_bits::<2>(16);
        self.m_queue.next = self.meta_fifo.data_out.val().get_bits::<8>(18);
        self.m_hash.next = self.meta_fifo.data_out.val().get_bits::<32>(26);
        self.m_hash_type.next = self.meta_fifo.data_out.val().get_bits::<4>(58);
        self.m_divert.next = self.meta_fifo.data_out.val().get_bit(62);
        self.out_fire.next = self.m_valid.val() & self.m_ready.val();
        self.meta_fifo.read.next = self.out_fire.val() & self.m_last.val();
        // ---- counters ----
        self.frame_in.next = self.in_fire.val() & !self.in_mid.q.val();
        self.frame_out.next = self.out_fire.val() & self.m_last.val();
        if self.frame_in.val() & !self.frame_out.val() {
            self.frames.d.next = self.frames.q.val() + 1;
        }
        if !self.frame_in.val() & self.frame_out.val() {
            self.frames.d.next = self.frames.q.val() - 1;
        }
        self.last_in.next = self.in_fire.val() & self.s_last.val();
        // `lasts` counts the last beats written and not yet taken off: a read one is taken
        // off the cycle after (`last_read_q`), so the last beats in the FIFO now are
        // `lasts - last_read_q`
        self.last_read.next = self.read.val() & self.head_last.val();
        self.last_read_q.d.next = self.last_read.val();
        self.lasts_nz.d.next = self.lasts.q.val() != 0;
        self.lasts_one.d.next = self.lasts.q.val() == 1;
        if self.last_in.val() & !self.last_read_q.q.val() {
            self.lasts.d.next = self.lasts.q.val() + 1;
            self.lasts_nz.d.next = true;
            self.lasts_one.d.next = self.lasts.q.val() == 0;
        }
        if !self.last_in.val() & self.last_read_q.q.val() {
            self.lasts.d.next = self.lasts.q.val() - 1;
            self.lasts_nz.d.next = self.lasts.q.val() != 1;
            self.lasts_one.d.next = self.lasts.q.val() == 2;
        }
        if self.reset.val() {
            self.in_mid.d.next = false;
            self.eng_mid.d.next = false;
            self.frames.d.next = 0.into();
            self.lasts.d.next = 0.into();
            self.filled.d.next = false;
            self.last_read_q.d.next = false;
            self.lasts_nz.d.next = false;
            self.lasts_one.d.next = false;
            self.tables_ready.d.next = false;
            self.go_pipe.d.next = 0.into();
        }
    }
}
