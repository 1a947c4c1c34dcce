//! TX offload engine (docs/tx-offload.md): generic checksum, full checksum offload, TSO
//! and refused requests, between the TX queue engine and MAC TX.
//!
//! Datapath:
//! * P: the input register (beat + the frame's request) with the frame byte offset.
//! * F: the request decoded per beat (registered), the segmenter and byte packer: a
//!   frame without offload (cut-through, `CT`) or with checksum offload (store-and-
//!   forward, `SF`) is written to the frame buffer as it comes; a TSO frame's first
//!   `hdr_len` bytes go to the header template RAM (two slots: the next TSO frame's
//!   header is written while the previous one's segments still go out) and its payload
//!   is cut into `mss`-byte segments, each written realigned so that its first byte
//!   sits at lane `hdr_len % 8` (as it leaves behind the template). One chunk of an
//!   input beat per cycle: a beat with a segment boundary inside takes two cycles, and a
//!   segment end that leaves bytes over takes a flush cycle.
//! * Checksums ([`TxCsum`]) over the frame (IPv4 header, pseudo-header addresses, L4 or
//!   generic range; TSO: the template only) and over each TSO segment's payload.
//! * An event per segment / frame end / cut-through start into the event FIFOs; when the
//!   sums are out, [`TxFinish`] computes the field values; then the record for the
//!   reader ([`TxReader`]) is pushed and the frame's verdict given (`v_valid`).
//!
//! The frame buffer is a circular RAM of `2^BN` beats (+ 6 side bits: length, last,
//! abort). A checksummed frame or TSO segment is committed when its record exists; a
//! refused or aborted one is rewound (`wp` back to its start), so nothing of it leaves.
//! A frame without offload is read out while it is written (the reader follows the
//! write pointer delayed past the record pipeline), so it is never limited by the
//! buffer size and does not pay the store-and-forward latency.
//!
//! Decisions (see the report): an aborted frame (`s_user`) without offload leaves with
//! `m_user` on its last beat (one aborted at its first beat leaves nothing); with offload it is dropped (TSO: its segment in progress;
//! segments already complete have left). A checksummed frame or TSO segment that cannot
//! fit the buffer (more than 2^BN - 64 beats) is refused. A TSO payload over 65,535 bytes
//! is seen only when its 65,536th byte arrives: segments complete before that have left,
//! the rest is dropped and the verdict is an error. Verdicts: `v_error` for refused
//! frames; an aborted frame that was not refused has `v_error` low.

use super::csum::TxCsum;
use super::finish::TxFinish;
use super::reader::TxReader;
use crate::stream::{NicFifo, RegSlice};
use rust_hdl::prelude::*;

/// Cycles from an event at F to its sums at the finish (the [`TxCsum`] latency).
pub const CSUM_LATENCY: usize = 6;
/// Delay of the write pointer the reader may follow cut-through: at least the time from
/// an event to its record at the reader (CSUM_LATENCY + FINISH_LATENCY + 2).
pub const WP_VIS_DELAY: usize = 16;

#[derive(LogicBlock)]
pub struct TxOffload<const BN: usize, const BNP1: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub max_frame_len: Signal<In, Bits<16>>,
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_l3_offset: Signal<In, Bits<16>>,
    pub s_l4_offset: Signal<In, Bits<16>>,
    pub s_csum_start: Signal<In, Bits<16>>,
    pub s_csum_offset: Signal<In, Bits<16>>,
    pub s_mss: Signal<In, Bits<16>>,
    pub s_flags: Signal<In, Bits<16>>,
    pub s_hdr_len: Signal<In, Bits<16>>,
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub v_valid: Signal<Out, Bit>,
    pub v_error: Signal<Out, Bit>,
    pub stat_segments: Signal<Out, Bit>,
    /// One pulse per TSO segment sent.
    pub stat_tso_segments: Signal<Out, Bit>,
    // ---- blocks ----
    data_ram: RAM<Bits<64>, BN>,
    side_ram: RAM<Bits<6>, BN>,
    tmpl_ram: RAM<Bits<64>, 6>,
    cs_ip: TxCsum,
    cs_addr: TxCsum,
    cs_x: TxCsum,
    cs_pay: TxCsum,
    finish: TxFinish,
    reader: TxReader<BN, BNP1>,
    ev_a0: NicFifo<Bits<64>, 5, 6>,
    ev_a1: NicFifo<Bits<64>, 5, 6>,
    ev_a2: NicFifo<Bits<64>, 5, 6>,
    ev_b0: NicFifo<Bits<64>, 5, 6>,
    ev_b1: NicFifo<Bits<64>, 5, 6>,
    /// An event and its five words, registered before the event FIFOs: the segmenter's
    /// decision ends in these flip-flops, not in five FIFOs' write pointers, full flags
    /// and RAM write enables (13.5 ns at speed 8, a third of it routing to the FIFOs).
    /// The FIFOs are read `mark` cycles after the event, so a write a cycle later is
    /// still in time; `fifo_ok` is a registered count against 24 of 32 entries.
    ev_w: DFF<Bit>,
    ev_a0_w: DFF<Bits<64>>,
    ev_a1_w: DFF<Bits<64>>,
    ev_a2_w: DFF<Bits<64>>,
    ev_b0_w: DFF<Bits<64>>,
    ev_b1_w: DFF<Bits<64>>,
    rec0: NicFifo<Bits<64>, 5, 6>,
    rec1: NicFifo<Bits<64>, 5, 6>,
    rec2: NicFifo<Bits<64>, 5, 6>,
    rec3: NicFifo<Bits<64>, 5, 6>,
    /// The record at the head of `rec0..rec3`, in flip-flops: [48:0] rec0, [112:49]
    /// rec1, [152:113] rec2, [216:153] rec3. The reader's decisions on a record (its kind,
    /// its lengths, the field registers it loads) start from a register instead of the
    /// record FIFOs' memory behind their read pointer (the block's critical path, 16.6 ns
    /// at speed 6). A skid slice: a record a cycle, a cycle later; the reader still loads
    /// the next record in the cycle its segment ends, from the slice.
    rec_head: RegSlice<Bits<217>>,
    // ---- P: input register ----
    p_valid: DFF<Bit>,
    p_data: DFF<Bits<64>>,
    p_len: DFF<Bits<4>>,
    p_last: DFF<Bit>,
    p_user: DFF<Bit>,
    p_first: DFF<Bit>,
    p_pos: DFF<Bits<17>>,
    p_l3: DFF<Bits<16>>,
    p_l4: DFF<Bits<16>>,
    p_cs: DFF<Bits<16>>,
    p_co: DFF<Bits<16>>,
    p_mss: DFF<Bits<16>>,
    p_flags: DFF<Bits<16>>,
    p_hdr: DFF<Bits<16>>,
    in_frame: DFF<Bit>,
    ipos: DFF<Bits<17>>,
    // ---- F: the beat and its frame's decoded request ----
    f_valid: DFF<Bit>,
    f_fresh: DFF<Bit>,
    f_data: DFF<Bits<64>>,
    f_len: DFF<Bits<4>>,
    f_last: DFF<Bit>,
    f_user: DFF<Bit>,
    f_first: DFF<Bit>,
    f_beat: DFF<Bits<14>>,
    f_end: DFF<Bits<17>>,
    f_c: DFF<Bits<4>>,
    /// The beat's bytes not yet taken (`f_len - f_c`), kept beside `f_c` so the chunk's
    /// size starts from a register rather than a subtract.
    f_av: DFF<Bits<4>>,
    f_ct: DFF<Bit>,
    f_tso: DFF<Bit>,
    f_gen: DFF<Bit>,
    f_ip4e: DFF<Bit>,
    f_l4e: DFF<Bit>,
    f_v6: DFF<Bit>,
    f_udp: DFF<Bit>,
    f_early: DFF<Bit>,
    f_need_a: DFF<Bits<18>>,
    f_need_b: DFF<Bits<17>>,
    f_need_c: DFF<Bits<17>>,
    f_hdr: DFF<Bits<16>>,
    f_mss: DFF<Bits<16>>,
    f_l3: DFF<Bits<16>>,
    f_l4: DFF<Bits<16>>,
    f_cs: DFF<Bits<16>>,
    f_hdrbeat: DFF<Bit>,
    f_hdrend: DFF<Bit>,
    f_ip_x0p: DFF<Bits<16>>,
    f_ip_x0l: DFF<Bits<3>>,
    f_ip_x1l: DFF<Bits<3>>,
    f_ad_s: DFF<Bits<16>>,
    f_ad_e: DFF<Bits<17>>,
    f_x_s: DFF<Bits<16>>,
    f_x_e: DFF<Bits<17>>,
    f_x_x0p: DFF<Bits<16>>,
    f_x_x0l: DFF<Bits<3>>,
    f_x_x1l: DFF<Bits<3>>,
    f_x_x2l: DFF<Bits<3>>,
    f_b1: DFF<Bits<64>>,
    f_l3_10: DFF<Bits<16>>,
    f_x_x1p: DFF<Bits<16>>,
    f_x_x2p: DFF<Bits<16>>,
    cap_pos: [DFF<Bits<16>>; 7],
    // ---- F: frame / segment state ----
    frame_drop: DFF<Bit>,
    user_seen: DFF<Bit>,
    hdr_done: DFF<Bit>,
    fill: DFF<Bits<4>>,
    acc: DFF<Bits<64>>,
    flush_pending: DFF<Bit>,
    flush_last: DFF<Bit>,
    seg_fill: DFF<Bits<16>>,
    seg_nb: DFF<Bits<14>>,
    seg_k: DFF<Bits<16>>,
    seq_off: DFF<Bits<17>>,
    /// TSO payload bytes the frame may still take (65,535 less those taken): the
    /// "over 65,535" refusal compares a beat's byte count with it, with no add.
    pay_room: DFF<Bits<17>>,
    /// A TSO segment's payload bytes still to fill (`f_mss - seg_fill`), kept beside
    /// `seg_fill`, so the chunk's size needs no subtract. Loaded with the MSS as a frame's
    /// first beat enters F (as `fill` is set then), so no "first beat" test
    /// stands in front of the chunk's size.
    seg_rem: DFF<Bits<16>>,
    /// `seg_rem < 16`, kept beside it: a beat has at most 8 bytes, so "the segment ends
    /// in this chunk" is this flag and a 4-bit compare of `seg_rem`'s low bits with the
    /// bytes left of the beat, not a 16-bit compare (a 14-cell carry chain at the head of
    /// the segmenter's `consume`, the block's critical path).
    seg_small: DFF<Bit>,
    cap: [DFF<Bits<8>>; 7],
    wp: DFF<Bits<BNP1>>,
    seg_start: DFF<Bits<BNP1>>,
    wslot: DFF<Bits<1>>,
    tslots: DFF<Bits<2>>,
    space_ok: DFF<Bit>,
    /// The segment's fill a cycle ago against the overflow limit: at or over it
    /// (`ovf_ge`), one beat short (`ovf_lm1`), whether a beat was written (`ovf_we`) and
    /// whether the segment restarted (`ovf_rs`: `seg_start` moved to `wp`). The fill grows
    /// by at most a beat a cycle, so "at or over the limit now" is
    /// `!ovf_rs & (ovf_ge | ovf_lm1 & ovf_we)`, all flip-flops, where it was a subtract and
    /// a compare in front of `consume`.
    ovf_ge: DFF<Bit>,
    ovf_lm1: DFF<Bit>,
    ovf_we: DFF<Bit>,
    ovf_rs: DFF<Bit>,
    fifo_ok: DFF<Bit>,
    // ---- W: buffer writes ----
    w_we: DFF<Bit>,
    w_addr: DFF<Bits<BN>>,
    w_data: DFF<Bits<64>>,
    w_side: DFF<Bits<6>>,
    t_we: DFF<Bit>,
    t_addr: DFF<Bits<6>>,
    t_data: DFF<Bits<64>>,
    // ---- event markers, template sums, visibility ----
    mark: [DFF<Bit>; 6],
    t_ip: DFF<Bits<16>>,
    t_addr_s: DFF<Bits<16>>,
    t_x: DFF<Bits<16>>,
    wpd: [DFF<Bits<BNP1>>; 16],
    r_v: DFF<Bit>,
    r_e: DFF<Bit>,
    // ---- scratch (P) ----
    p_take: Signal<Local, Bit>,
    f_take: Signal<Local, Bit>,
    d_gen: Signal<Local, Bit>,
    d_ip4: Signal<Local, Bit>,
    d_l4: Signal<Local, Bit>,
    d_tso: Signal<Local, Bit>,
    d_v6: Signal<Local, Bit>,
    d_udp: Signal<Local, Bit>,
    d_l4e: Signal<Local, Bit>,
    d_ip4e: Signal<Local, Bit>,
    d_chk: Signal<Local, Bit>,
    d_l3min: Signal<Local, Bits<17>>,
    d_l4min: Signal<Local, Bits<17>>,
    d_hdrpos: Signal<Local, Bits<17>>,
    d_end: Signal<Local, Bits<17>>,
    d_l3_10: Signal<Local, Bits<16>>,
    d_l4csum: Signal<Local, Bits<16>>,
    d_f1pos: Signal<Local, Bits<16>>,
    d_f5pos: Signal<Local, Bits<16>>,
    d_seg: Signal<Local, Bits<18>>,
    nv6: Signal<Local, Bit>,
    d_l4p4: Signal<Local, Bits<8>>,
    d_l4p13: Signal<Local, Bits<8>>,
    // ---- scratch (F) ----
    go: Signal<Local, Bit>,
    drop_cur: Signal<Local, Bit>,
    startf: Signal<Local, Bit>,
    avail: Signal<Local, Bits<4>>,
    n: Signal<Local, Bits<4>>,
    close_rem: Signal<Local, Bit>,
    rem_av: Signal<Local, Bits<16>>,
    rem_av_small: Signal<Local, Bit>,
    all_used: Signal<Local, Bit>,
    endf: Signal<Local, Bit>,
    close: Signal<Local, Bit>,
    total: Signal<Local, Bits<5>>,
    rot_r: Signal<Local, Bits<3>>,
    rot: Signal<Local, Bits<64>>,
    m_lo: Signal<Local, Bits<8>>,
    m_hi: Signal<Local, Bits<8>>,
    m_lo64: Signal<Local, Bits<64>>,
    m_hi64: Signal<Local, Bits<64>>,
    beat_out: Signal<Local, Bits<64>>,
    spill: Signal<Local, Bits<64>>,
    late_err: Signal<Local, Bit>,
    abort: Signal<Local, Bit>,
    toolong: Signal<Local, Bit>,
    ovf: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    we: Signal<Local, Bit>,
    we_data: Signal<Local, Bits<64>>,
    we_len: Signal<Local, Bits<4>>,
    we_last: Signal<Local, Bit>,
    we_user: Signal<Local, Bit>,
    ev: Signal<Local, Bit>,
    ev_kind: Signal<Local, Bits<2>>,
    ev_seglen: Signal<Local, Bits<16>>,
    ev_last: Signal<Local, Bit>,
    ev_err: Signal<Local, Bit>,
    ev_fend: Signal<Local, Bit>,
    ev_tend: Signal<Local, Bit>,
    seg_done: Signal<Local, Bit>,
    frame_done: Signal<Local, Bit>,
    rewind: Signal<Local, Bit>,
    pay_len: Signal<Local, Bits<4>>,
    fu_feed: Signal<Local, Bit>,
    fu_close: Signal<Local, Bit>,
    cap_new: [Signal<Local, Bits<8>>; 7],
    capsh: Signal<Local, Bits<8>>,
    cpos: Signal<Local, Bits<16>>,
    fl6: Signal<Local, Bits<6>>,
    f1w: Signal<Local, Bits<3>>,
    used: Signal<Local, Bits<BNP1>>,
    seg_used: Signal<Local, Bits<BNP1>>,
    wp_next: Signal<Local, Bits<BNP1>>,
    tslot_take: Signal<Local, Bit>,
    zkind: Signal<Local, Bits<2>>,
    push: Signal<Local, Bit>,
    a0w: Signal<Local, Bits<64>>,
    b0fl: Signal<Local, Bits<6>>,
    // ---- constants ----
    ones8: Constant<Bits<8>>,
    lane_mask: [Constant<Bits<64>>; 8],
    space_lim: Constant<Bits<BNP1>>,
    ovf_lim: Constant<Bits<BNP1>>,
    ovf_lim1: Constant<Bits<BNP1>>,
    fifo_lim: Constant<Bits<7>>,
    max_pay: Constant<Bits<17>>,
    bits64: Constant<Bits<7>>,
    bit49: Constant<Bits<64>>,
}

impl<const BN: usize, const BNP1: usize> Default for TxOffload<BN, BNP1> {
    fn default() -> Self {
        assert_eq!(BN + 1, BNP1);
        assert!(BN >= 7 && BN <= 15);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            max_frame_len: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_last: Default::default(),
            s_user: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_l3_offset: Default::default(),
            s_l4_offset: Default::default(),
            s_csum_start: Default::default(),
            s_csum_offset: Default::default(),
            s_mss: Default::default(),
            s_flags: Default::default(),
            s_hdr_len: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            v_valid: Default::default(),
            v_error: Default::default(),
            stat_segments: Default::default(),
            stat_tso_segments: Default::default(),
            data_ram: Default::default(),
            side_ram: Default::default(),
            tmpl_ram: Default::default(),
            cs_ip: Default::default(),
            cs_addr: Default::default(),
            cs_x: Default::default(),
            cs_pay: Default::default(),
            finish: Default::default(),
            reader: Default::default(),
            ev_a0: Default::default(),
            ev_a1: Default::default(),
            ev_a2: Default::default(),
            ev_b0: Default::default(),
            ev_b1: Default::default(),
            ev_w: Default::default(),
            ev_a0_w: Default::default(),
            ev_a1_w: Default::default(),
            ev_a2_w: Default::default(),
            ev_b0_w: Default::default(),
            ev_b1_w: Default::default(),
            rec0: Default::default(),
            rec1: Default::default(),
            rec2: Default::default(),
            rec3: Default::default(),
            rec_head: RegSlice::with_skid(true),
            p_valid: Default::default(),
            p_data: Default::default(),
            p_len: Default::default(),
            p_last: Default::default(),
            p_user: Default::default(),
            p_first: Default::default(),
            p_pos: Default::default(),
            p_l3: Default::default(),
            p_l4: Default::default(),
            p_cs: Default::default(),
            p_co: Default::default(),
            p_mss: Default::default(),
            p_flags: Default::default(),
            p_hdr: Default::default(),
            in_frame: Default::default(),
            ipos: Default::default(),
            f_valid: Default::default(),
            f_fresh: Default::default(),
            f_data: Default::default(),
            f_len: Default::default(),
            f_last: Default::default(),
            f_user: Default::default(),
            f_first: Default::default(),
            f_beat: Default::default(),
            f_end: Default::default(),
            f_c: Default::default(),
            f_av: Default::default(),
            f_ct: Default::default(),
            f_tso: Default::default(),
            f_gen: Default::default(),
            f_ip4e: Default::default(),
            f_l4e: Default::default(),
            f_v6: Default::default(),
            f_udp: Default::default(),
            f_early: Default::default(),
            f_need_a: Default::default(),
            f_need_b: Default::default(),
            f_need_c: Default::default(),
            f_hdr: Default::default(),
            f_mss: Default::default(),
            f_l3: Default::default(),
            f_l4: Default::default(),
            f_cs: Default::default(),
            f_hdrbeat: Default::default(),
            f_hdrend: Default::default(),
            f_ip_x0p: Default::default(),
            f_ip_x0l: Default::default(),
            f_ip_x1l: Default::default(),
            f_ad_s: Default::default(),
            f_ad_e: Default::default(),
            f_x_s: Default::default(),
            f_x_e: Default::default(),
            f_x_x0p: Default::default(),
            f_x_x0l: Default::default(),
            f_x_x1l: Default::default(),
            f_x_x2l: Default::default(),
            f_b1: Default::default(),
            f_l3_10: Default::default(),
            f_x_x1p: Default::default(),
            f_x_x2p: Default::default(),
            cap_pos: Default::default(),
            frame_drop: Default::default(),
            user_seen: Default::default(),
            hdr_done: Default::default(),
            fill: Default::default(),
            acc: Default::default(),
            flush_pending: Default::default(),
            flush_last: Default::default(),
            seg_fill: Default::default(),
            seg_nb: Default::default(),
            seg_k: Default::default(),
            seq_off: Default::default(),
            pay_room: Default::default(),
            seg_rem: Default::default(),
            seg_small: Default::default(),
            cap: Default::default(),
            wp: Default::default(),
            seg_start: Default::default(),
            wslot: Default::default(),
            tslots: Default::default(),
            space_ok: Default::default(),
            ovf_ge: Default::default(),
            ovf_lm1: Default::default(),
            ovf_we: Default::default(),
            ovf_rs: Default::default(),
            fifo_ok: Default::default(),
            w_we: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_side: Default::default(),
            t_we: Default::default(),
            t_addr: Default::default(),
            t_data: Default::default(),
            mark: Default::default(),
            t_ip: Default::default(),
            t_addr_s: Default::default(),
            t_x: Default::default(),
            wpd: Default::default(),
            r_v: Default::default(),
            r_e: Default::default(),
            p_take: Default::default(),
            f_take: Default::default(),
            d_gen: Default::default(),
            d_ip4: Default::default(),
            d_l4: Default::default(),
            d_tso: Default::default(),
            d_v6: Default::default(),
            d_udp: Default::default(),
            d_l4e: Default::default(),
            d_ip4e: Default::default(),
            d_chk: Default::default(),
            d_l3min: Default::default(),
            d_l4min: Default::default(),
            d_hdrpos: Default::default(),
            d_end: Default::default(),
            d_l3_10: Default::default(),
            d_l4csum: Default::default(),
            d_f1pos: Default::default(),
            d_f5pos: Default::default(),
            d_seg: Default::default(),
            nv6: Default::default(),
            d_l4p4: Default::default(),
            d_l4p13: Default::default(),
            go: Default::default(),
            drop_cur: Default::default(),
            startf: Default::default(),
            avail: Default::default(),
            n: Default::default(),
            close_rem: Default::default(),
            rem_av: Default::default(),
            rem_av_small: Default::default(),
            all_used: Default::default(),
            endf: Default::default(),
            close: Default::default(),
            total: Default::default(),
            rot_r: Default::default(),
            rot: Default::default(),
            m_lo: Default::default(),
            m_hi: Default::default(),
            m_lo64: Default::default(),
            m_hi64: Default::default(),
            beat_out: Default::default(),
            spill: Default::default(),
            late_err: Default::default(),
            abort: Default::default(),
            toolong: Default::default(),
            ovf: Default::default(),
            consume: Default::default(),
            we: Default::default(),
            we_data: Default::default(),
            we_len: Default::default(),
            we_last: Default::default(),
            we_user: Default::default(),
            ev: Default::default(),
            ev_kind: Default::default(),
            ev_seglen: Default::default(),
            ev_last: Default::default(),
            ev_err: Default::default(),
            ev_fend: Default::default(),
            ev_tend: Default::default(),
            seg_done: Default::default(),
            frame_done: Default::default(),
            rewind: Default::default(),
            pay_len: Default::default(),
            fu_feed: Default::default(),
            fu_close: Default::default(),
            cap_new: Default::default(),
            capsh: Default::default(),
            cpos: Default::default(),
            fl6: Default::default(),
            f1w: Default::default(),
            used: Default::default(),
            seg_used: Default::default(),
            wp_next: Default::default(),
            tslot_take: Default::default(),
            zkind: Default::default(),
            push: Default::default(),
            a0w: Default::default(),
            b0fl: Default::default(),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            lane_mask: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xffu64 << (8 * i)))),
            space_lim: Constant::new(Bits::<BNP1>::from((1u64 << BN) - 24)),
            ovf_lim: Constant::new(Bits::<BNP1>::from((1u64 << BN) - 64)),
            ovf_lim1: Constant::new(Bits::<BNP1>::from((1u64 << BN) - 65)),
            fifo_lim: Constant::new(Bits::<7>::from(24u64)),
            max_pay: Constant::new(Bits::<17>::from(65535u64)),
            bits64: Constant::new(Bits::<7>::from(64u64)),
            bit49: Constant::new(Bits::<64>::from(1u64 << 49)),
        }
    }
}
impl<const BN: usize, const BNP1: usize> Logic for TxOffload<BN, BNP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, p_valid, p_data, p_len, p_last, p_user, p_first, p_pos, p_l3, p_l4, p_cs, p_co, p_mss, p_flags, p_hdr,
            in_frame, ipos, f_valid, f_fresh, f_data, f_len, f_last, f_user, f_first, f_beat, f_end, f_c, f_av,
            f_ct, f_tso, f_gen, f_ip4e, f_l4e, f_v6, f_udp, f_early, f_need_a, f_need_b, f_need_c, f_hdr, f_mss, f_l3, f_l4, f_cs,
            f_hdrbeat, f_hdrend, f_ip_x0p, f_ip_x0l, f_ip_x1l, f_ad_s, f_ad_e, f_x_s, f_x_e, f_x_x0p, f_x_x0l, f_x_x1l, f_x_x2l, f_b1,
            f_l3_10, f_x_x1p, f_x_x2p,
            frame_drop, user_seen, hdr_done, fill, acc, flush_pending, flush_last, seg_fill, seg_nb, seg_k, seq_off, pay_room, seg_rem, seg_small, ev_w, ev_a0_w, ev_a1_w, ev_a2_w, ev_b0_w, ev_b1_w,
            wp, seg_start, wslot, tslots, space_ok, ovf_ge, ovf_lm1, ovf_we, ovf_rs, fifo_ok, w_we, w_addr, w_data, w_side, t_we, t_addr, t_data,
            t_ip, t_addr_s, t_x, r_v, r_e);
        for e in 0..7 {
            self.cap_pos[e].clock.next = self.clock.val();
            self.cap_pos[e].d.next = self.cap_pos[e].q.val();
            self.cap[e].clock.next = self.clock.val();
            self.cap[e].d.next = self.cap[e].q.val();
        }
        for i in 0..6 {
            self.mark[i].clock.next = self.clock.val();
            self.mark[i].d.next = self.mark[i].q.val();
        }
        for i in 0..16 {
            self.wpd[i].clock.next = self.clock.val();
            self.wpd[i].d.next = self.wpd[i].q.val();
        }
        self.data_ram.read_clock.next = self.clock.val();
        self.data_ram.write_clock.next = self.clock.val();
        self.side_ram.read_clock.next = self.clock.val();
        self.side_ram.write_clock.next = self.clock.val();
        self.tmpl_ram.read_clock.next = self.clock.val();
        self.tmpl_ram.write_clock.next = self.clock.val();
        self.cs_ip.clock.next = self.clock.val();
        self.cs_ip.reset.next = self.reset.val();
        self.cs_addr.clock.next = self.clock.val();
        self.cs_addr.reset.next = self.reset.val();
        self.cs_x.clock.next = self.clock.val();
        self.cs_x.reset.next = self.reset.val();
        self.cs_pay.clock.next = self.clock.val();
        self.cs_pay.reset.next = self.reset.val();
        self.finish.clock.next = self.clock.val();
        self.finish.reset.next = self.reset.val();
        self.reader.clock.next = self.clock.val();
        self.reader.reset.next = self.reset.val();
        self.ev_a0.clock.next = self.clock.val();
        self.ev_a0.reset.next = self.reset.val();
        self.ev_a1.clock.next = self.clock.val();
        self.ev_a1.reset.next = self.reset.val();
        self.ev_a2.clock.next = self.clock.val();
        self.ev_a2.reset.next = self.reset.val();
        self.ev_b0.clock.next = self.clock.val();
        self.ev_b0.reset.next = self.reset.val();
        self.ev_b1.clock.next = self.clock.val();
        self.ev_b1.reset.next = self.reset.val();
        self.rec0.clock.next = self.clock.val();
        self.rec0.reset.next = self.reset.val();
        self.rec1.clock.next = self.clock.val();
        self.rec1.reset.next = self.reset.val();
        self.rec2.clock.next = self.clock.val();
        self.rec2.reset.next = self.reset.val();
        self.rec3.clock.next = self.clock.val();
        self.rec3.reset.next = self.reset.val();
        self.rec_head.clock.next = self.clock.val();
        self.rec_head.reset.next = self.reset.val();

        // ================= P: decode the request of the beat in P =================
        self.d_gen.next = self.p_flags.q.val().get_bit(3);
        self.d_ip4.next = self.p_flags.q.val().get_bit(4);
        self.d_l4.next = self.p_flags.q.val().get_bit(5);
        self.d_tso.next = self.p_flags.q.val().get_bit(6);
        self.d_v6.next = self.p_flags.q.val().get_bit(7);
        self.d_udp.next = self.p_flags.q.val().get_bit(8);
        self.nv6.next = !self.d_v6.val();
        self.d_l4e.next = self.d_l4.val() | self.d_tso.val();
        self.d_ip4e.next = (self.d_ip4.val() | self.d_tso.val()) & self.nv6.val();
        self.d_chk.next = self.d_ip4.val() | self.d_l4e.val();
        self.d_l3min.next = bit_cast::<17, 16>(self.p_l3.q.val()) + 20;
        self.d_f1pos.next = self.p_l3.q.val() + 2;
        self.d_l4csum.next = self.p_l4.q.val() + 16;
        if self.d_v6.val() {
            self.d_l3min.next = bit_cast::<17, 16>(self.p_l3.q.val()) + 40;
            self.d_f1pos.next = self.p_l3.q.val() + 4;
        }
        if self.d_udp.val() {
            self.d_l4csum.next = self.p_l4.q.val() + 6;
        }
        self.d_l4min.next = bit_cast::<17, 16>(self.p_l4.q.val()) + 20;
        self.d_seg.next = bit_cast::<18, 16>(self.p_hdr.q.val()) + bit_cast::<18, 16>(self.p_mss.q.val()) + 4;
        self.d_l3_10.next = self.p_l3.q.val() + 10;
        self.d_l4p4.next = self.p_l4.q.val().get_bits::<8>(0) + 4;
        self.d_l4p13.next = self.p_l4.q.val().get_bits::<8>(0) + 13;
        self.d_f5pos.next = self.d_l4csum.val();
        if self.d_gen.val() {
            self.d_f5pos.next = self.p_cs.q.val() + self.p_co.q.val();
        }
        self.d_end.next = self.p_pos.q.val() + bit_cast::<17, 4>(self.p_len.q.val());
        self.d_hdrpos.next = bit_cast::<17, 16>(self.p_hdr.q.val()) - self.p_pos.q.val();

        // ================= F: segmenter and byte packer =================
        self.used.next = self.wp.q.val() - self.reader.rp.val();
        self.space_ok.d.next = self.used.val() < self.space_lim.val();
        self.fifo_ok.d.next = (bit_cast::<7, 6>(self.ev_b0.count.val()) + bit_cast::<7, 6>(self.rec0.count.val())) < self.fifo_lim.val();
        self.seg_used.next = self.wp.q.val() - self.seg_start.q.val();
        self.startf.next = self.f_first.q.val() & self.f_fresh.q.val();
        self.drop_cur.next = self.frame_drop.q.val() | self.f_early.q.val();
        // a TSO frame's header needs a free template slot
        self.tslot_take.next = self.startf.val() & self.f_tso.q.val() & !self.drop_cur.val();
        self.go.next = self.f_valid.q.val() & self.space_ok.q.val() & self.fifo_ok.q.val();
        if self.tslot_take.val() & (self.tslots.q.val() == 2) {
            self.go.next = false;
        }
        // the chunk of the beat this cycle: bytes [f_c, f_c + n) up to the segment's end
        // (`fill`, `acc` and `seg_rem` were set for a frame's first beat as it entered F)
        // (the two candidate fills are summed beside the compare that chooses between them)
        self.avail.next = self.f_av.q.val();
        self.n.next = self.avail.val();
        self.close_rem.next = false;
        self.all_used.next = true;
        self.total.next = bit_cast::<5, 4>(self.fill.q.val()) + bit_cast::<5, 4>(self.avail.val());
        if self.f_tso.q.val() & self.seg_small.q.val() & (self.seg_rem.q.val().get_bits::<4>(0) <= self.avail.val()) {
            self.n.next = self.seg_rem.q.val().get_bits::<4>(0);
            self.close_rem.next = true;
            self.all_used.next = self.seg_rem.q.val().get_bits::<4>(0) == self.avail.val();
            self.total.next = bit_cast::<5, 4>(self.fill.q.val()) + bit_cast::<5, 4>(self.seg_rem.q.val().get_bits::<4>(0));
        }
        self.rem_av.next = self.seg_rem.q.val() - bit_cast::<16, 4>(self.avail.val());
        self.rem_av_small.next = self.rem_av.val() < 16;
        self.endf.next = self.all_used.val() & self.f_last.q.val();
        self.close.next = self.close_rem.val() | self.endf.val();
        // rotate the beat so that byte f_c lands on lane fill
        self.rot_r.next = self.fill.q.val().get_bits::<3>(0) - self.f_c.q.val().get_bits::<3>(0);
        self.rot.next = (self.f_data.q.val() << (bit_cast::<7, 3>(self.rot_r.val()) << 3))
            | (self.f_data.q.val() >> (self.bits64.val() - (bit_cast::<7, 3>(self.rot_r.val()) << 3)));
        self.m_lo.next = self.ones8.val() << self.fill.q.val();
        if self.total.val() < 8 {
            self.m_lo.next = self.m_lo.val() & !(self.ones8.val() << self.total.val());
        }
        self.m_hi.next = 0.into();
        if self.total.val() > 8 {
            self.m_hi.next = !(self.ones8.val() << (self.total.val() - 8));
        }
        self.m_lo64.next = 0.into();
        self.m_hi64.next = 0.into();
        for i in 0..8 {
            if self.m_lo.val().get_bit(i) {
                self.m_lo64.next = self.m_lo64.val() | self.lane_mask[i].val();
            }
            if self.m_hi.val().get_bit(i) {
                self.m_hi64.next = self.m_hi64.val() | self.lane_mask[i].val();
            }
        }
        self.beat_out.next = self.acc.q.val() | (self.rot.val() & self.m_lo64.val());
        self.spill.next = self.rot.val() & self.m_hi64.val();
        // refusals known at the frame's end; abort; TSO payload over 65,535; no room
        self.late_err.next = (bit_cast::<18, 17>(self.f_end.q.val()) < self.f_need_a.q.val())
            | (self.f_end.q.val() < self.f_need_b.q.val())
            | (self.f_end.q.val() < self.f_need_c.q.val());
        self.abort.next = self.user_seen.q.val() | self.f_user.q.val();
        self.toolong.next = self.f_tso.q.val() & (self.pay_room.q.val().get_bits::<13>(4) == 0) & (self.n.val() > self.pay_room.q.val().get_bits::<4>(0));
        self.ovf.next = !self.ovf_rs.q.val() & (self.ovf_ge.q.val() | (self.ovf_lm1.q.val() & self.ovf_we.q.val()))
            & ((self.total.val() >= 8) | (self.close.val() & (self.total.val() != 0)));
        // template bytes the segments need
        for e in 0..7 {
            self.cpos.next = self.cap_pos[e].q.val();
            self.capsh.next = bit_cast::<8, 64>(self.f_data.q.val() >> (bit_cast::<7, 3>(self.cpos.val().get_bits::<3>(0)) << 3));
            self.cap_new[e].next = self.cap[e].q.val();
            if self.f_beat.q.val() == bit_cast::<14, 16>(self.cpos.val() >> 3) {
                self.cap_new[e].next = self.capsh.val();
            }
        }
        // frame checksum units: every beat once (TSO: up to the header's end)
        self.fu_feed.next = self.go.val() & self.f_fresh.q.val() & !self.flush_pending.q.val() & !self.hdr_done.q.val();
        self.fu_close.next = self.f_last.q.val() | self.f_hdrend.q.val();
        // ---- actions ----
        self.consume.next = false;
        self.we.next = false;
        self.we_data.next = self.beat_out.val();
        self.we_len.next = 8.into();
        self.we_last.next = false;
        self.we_user.next = false;
        self.ev.next = false;
        self.ev_kind.next = 0.into();
        self.ev_seglen.next = self.f_hdr.q.val() + self.seg_fill.q.val() + bit_cast::<16, 4>(self.n.val());
        if !self.f_tso.q.val() {
            self.ev_seglen.next = self.f_end.q.val().get_bits::<16>(0);
        }
        self.ev_last.next = self.endf.val();
        self.ev_err.next = false;
        self.ev_fend.next = false;
        self.ev_tend.next = false;
        self.seg_done.next = false;
        self.frame_done.next = false;
        self.rewind.next = false;
        self.pay_len.next = 8.into();
        self.t_we.d.next = false;
        self.t_addr.d.next = (bit_cast::<6, 1>(self.wslot.q.val()) << 5) | bit_cast::<6, 5>(self.f_beat.q.val().get_bits::<5>(0));
        self.t_data.d.next = self.f_data.q.val();
        if self.go.val() {
            if self.flush_pending.q.val() {
                // the bytes of a closed TSO segment that did not fit its last full beat
                self.we.next = true;
                self.we_data.next = self.acc.q.val();
                self.we_len.next = self.fill.q.val();
                self.pay_len.next = self.fill.q.val();
                self.ev.next = true;
                self.ev_kind.next = 1.into();
                self.ev_seglen.next = self.f_hdr.q.val() + self.seg_fill.q.val();
                self.ev_last.next = self.flush_last.q.val();
                self.ev_fend.next = self.flush_last.q.val();
                self.ev_tend.next = self.flush_last.q.val();
                self.seg_done.next = true;
                self.flush_pending.d.next = false;
                self.acc.d.next = 0.into();
                self.fill.d.next = bit_cast::<4, 3>(self.f_hdr.q.val().get_bits::<3>(0));
                if self.f_av.q.val() == 0 {
                    self.consume.next = true;
                    self.frame_done.next = self.flush_last.q.val();
                }
            } else if self.drop_cur.val() {
                // refused: nothing is written
                self.consume.next = true;
                if self.f_last.q.val() {
                    self.ev.next = true;
                    self.ev_fend.next = true;
                    self.ev_err.next = true;
                    self.ev_tend.next = self.f_tso.q.val() & !self.f_early.q.val();
                    self.frame_done.next = true;
                }
            } else if self.f_ct.q.val() & self.f_first.q.val() & self.f_last.q.val() & self.abort.val() {
                // aborted at its first beat (the TX engine had read nothing of it):
                // nothing to send, a verdict without error
                self.consume.next = true;
                self.ev.next = true;
                self.ev_fend.next = true;
                self.frame_done.next = true;
            } else if self.f_ct.q.val() {
                // no offload: written as it comes, read out cut-through
                self.we.next = true;
                self.we_data.next = self.f_data.q.val();
                self.we_len.next = self.f_len.q.val();
                self.we_last.next = self.f_last.q.val();
                self.we_user.next = self.f_last.q.val() & self.abort.val();
                self.consume.next = true;
                if self.f_first.q.val() & !self.f_last.q.val() {
                    self.ev.next = true;
                    self.ev_kind.next = 2.into();
                }
                if self.f_last.q.val() {
                    self.ev.next = true;
                    self.ev_kind.next = 3.into();
                    self.ev_fend.next = true;
                    self.frame_done.next = true;
                }
            } else {
                if self.f_tso.q.val() & self.f_hdrbeat.q.val() & self.f_fresh.q.val() {
                    self.t_we.d.next = true;
                }
                if self.endf.val() & (self.late_err.val() | self.abort.val() | self.toolong.val() | self.ovf.val()) {
                    // refused or aborted at its end: rewind the segment in progress
                    self.rewind.next = true;
                    self.consume.next = true;
                    self.ev.next = true;
                    self.ev_fend.next = true;
                    self.ev_err.next = self.late_err.val() | self.toolong.val() | self.ovf.val();
                    self.ev_tend.next = self.f_tso.q.val();
                    self.frame_done.next = true;
                } else if self.toolong.val() | self.ovf.val() {
                    // refused mid-frame: drop the segment in progress and the rest
                    self.rewind.next = true;
                    self.consume.next = true;
                    self.frame_drop.d.next = true;
                } else {
                    if self.total.val() >= 8 {
                        self.we.next = true;
                    }
                    self.seg_fill.d.next = self.seg_fill.q.val() + bit_cast::<16, 4>(self.n.val());
                    self.seg_rem.d.next = self.seg_rem.q.val() - bit_cast::<16, 4>(self.n.val());
                    // what is left is under 16 when the chunk closed the segment (it was
                    // under 16 and is now 0), or else after the whole beat's bytes
                    self.seg_small.d.next = self.close_rem.val() | self.rem_av_small.val();
                    self.pay_room.d.next = self.pay_room.q.val() - bit_cast::<17, 4>(self.n.val());
                    self.f_c.d.next = self.f_c.q.val() + self.n.val();
                    self.f_av.d.next = self.avail.val() - self.n.val();
                    if self.close.val() {
                        if self.total.val() > 8 {
                            // two beats to write: the full one now, the rest next cycle
                            self.flush_pending.d.next = true;
                            self.flush_last.d.next = self.endf.val();
                            self.acc.d.next = self.spill.val();
                            self.fill.d.next = bit_cast::<4, 5>(self.total.val() - 8);
                        } else {
                            if (self.total.val() < 8) & (self.total.val() != 0) {
                                self.we.next = true;
                                self.we_len.next = bit_cast::<4, 5>(self.total.val());
                                self.pay_len.next = bit_cast::<4, 5>(self.total.val());
                            }
                            self.ev.next = true;
                            self.ev_kind.next = 1.into();
                            self.ev_fend.next = self.endf.val();
                            self.ev_tend.next = self.endf.val() & self.f_tso.q.val();
                            self.seg_done.next = true;
                            self.acc.d.next = 0.into();
                            self.fill.d.next = bit_cast::<4, 3>(self.f_hdr.q.val().get_bits::<3>(0));
                            self.consume.next = self.all_used.val();
                            self.frame_done.next = self.endf.val();
                        }
                    } else {
                        if self.total.val() >= 8 {
                            self.acc.d.next = self.spill.val();
                            self.fill.d.next = bit_cast::<4, 5>(self.total.val() - 8);
                        } else {
                            self.acc.d.next = self.beat_out.val();
                            self.fill.d.next = bit_cast::<4, 5>(self.total.val());
                        }
                        self.consume.next = self.all_used.val();
                    }
                }
            }
            if self.f_fresh.q.val() {
                for e in 0..7 {
                    self.cap[e].d.next = self.cap_new[e].val();
                }
            }
            if self.f_user.q.val() {
                self.user_seen.d.next = true;
            }
            if self.fu_feed.val() & self.fu_close.val() {
                self.hdr_done.d.next = true;
            }
            self.f_fresh.d.next = false;
            if self.tslot_take.val() {
                self.tslots.d.next = self.tslots.q.val() + 1;
            }
        }
        if self.reader.tmpl_free.val() {
            self.tslots.d.next = self.tslots.q.val() - 1;
            if self.go.val() & self.tslot_take.val() {
                self.tslots.d.next = self.tslots.q.val();
            }
        }
        // ================= F: take a beat from P =================
        self.f_take.next = !self.f_valid.q.val() | self.consume.val();
        self.p_take.next = !self.p_valid.q.val() | self.f_take.val();
        self.s_ready.next = self.p_take.val();
        if self.p_take.val() {
            self.p_valid.d.next = self.s_valid.val();
            if self.s_valid.val() {
                self.p_data.d.next = self.s_data.val();
                self.p_len.d.next = self.s_len.val();
                self.p_last.d.next = self.s_last.val();
                self.p_user.d.next = self.s_user.val();
                self.p_first.d.next = !self.in_frame.q.val();
                self.in_frame.d.next = !self.s_last.val();
                self.p_l3.d.next = self.s_l3_offset.val();
                self.p_l4.d.next = self.s_l4_offset.val();
                self.p_cs.d.next = self.s_csum_start.val();
                self.p_co.d.next = self.s_csum_offset.val();
                self.p_mss.d.next = self.s_mss.val();
                self.p_flags.d.next = self.s_flags.val();
                self.p_hdr.d.next = self.s_hdr_len.val();
                if self.in_frame.q.val() {
                    self.p_pos.d.next = self.ipos.q.val();
                    if !(self.ipos.q.val().get_bit(16) & self.ipos.q.val().get_bit(15)) {
                        self.ipos.d.next = self.ipos.q.val() + bit_cast::<17, 4>(self.s_len.val());
                    }
                } else {
                    self.p_pos.d.next = 0.into();
                    self.ipos.d.next = bit_cast::<17, 4>(self.s_len.val());
                }
            }
        }
        if self.f_take.val() {
            self.f_valid.d.next = self.p_valid.q.val();
            self.f_fresh.d.next = true;
            self.f_data.d.next = self.p_data.q.val();
            self.f_len.d.next = self.p_len.q.val();
            self.f_last.d.next = self.p_last.q.val();
            self.f_user.d.next = self.p_user.q.val();
            self.f_first.d.next = self.p_first.q.val();
            self.f_beat.d.next = bit_cast::<14, 17>(self.p_pos.q.val() >> 3);
            self.f_end.d.next = self.d_end.val();
            self.f_ct.d.next = !(self.d_gen.val() | self.d_ip4.val() | self.d_l4.val() | self.d_tso.val());
            self.f_tso.d.next = self.d_tso.val();
            self.f_gen.d.next = self.d_gen.val();
            self.f_ip4e.d.next = self.d_ip4e.val();
            self.f_l4e.d.next = self.d_l4e.val();
            self.f_v6.d.next = self.d_v6.val();
            self.f_udp.d.next = self.d_udp.val();
            // requests refused whatever the frame's length
            self.f_early.d.next = (self.d_gen.val() & self.d_l4e.val())
                | (self.d_chk.val() & (self.d_l3min.val() > bit_cast::<17, 16>(self.p_l4.q.val())))
                | (self.d_tso.val()
                    & (self.d_udp.val()
                        | (self.p_mss.q.val() == 0)
                        | (self.p_hdr.q.val() > 255)
                        | (bit_cast::<17, 16>(self.p_hdr.q.val()) < self.d_l4min.val())
                        | (self.d_seg.val() > bit_cast::<18, 16>(self.max_frame_len.val()))));
            // the frame must be at least this long
            self.f_need_a.d.next = 0.into();
            if self.d_gen.val() {
                self.f_need_a.d.next = bit_cast::<18, 16>(self.p_cs.q.val()) + bit_cast::<18, 16>(self.p_co.q.val()) + 2;
            }
            self.f_need_b.d.next = 0.into();
            if self.d_chk.val() {
                self.f_need_b.d.next = bit_cast::<17, 16>(self.p_l4.q.val());
                if self.d_l4e.val() {
                    if self.d_udp.val() {
                        self.f_need_b.d.next = bit_cast::<17, 16>(self.p_l4.q.val()) + 8;
                    } else {
                        self.f_need_b.d.next = self.d_l4min.val();
                    }
                }
            }
            self.f_need_c.d.next = 0.into();
            if self.d_tso.val() {
                self.f_need_c.d.next = bit_cast::<17, 16>(self.p_hdr.q.val());
            }
            self.f_hdr.d.next = self.p_hdr.q.val();
            self.f_mss.d.next = self.p_mss.q.val();
            self.f_l3.d.next = self.p_l3.q.val();
            self.f_l4.d.next = self.p_l4.q.val();
            self.f_cs.d.next = self.p_cs.q.val();
            self.f_l3_10.d.next = self.d_l3_10.val();
            // TSO: header bytes in this beat (consumption starts behind them)
            self.f_c.d.next = 0.into();
            self.f_av.d.next = self.p_len.q.val();
            self.f_hdrbeat.d.next = false;
            if self.d_tso.val() & (self.p_pos.q.val() < bit_cast::<17, 16>(self.p_hdr.q.val())) {
                self.f_hdrbeat.d.next = true;
                if self.d_hdrpos.val() >= bit_cast::<17, 4>(self.p_len.q.val()) {
                    self.f_c.d.next = self.p_len.q.val();
                    self.f_av.d.next = 0.into();
                } else {
                    self.f_c.d.next = self.d_hdrpos.val().get_bits::<4>(0);
                    self.f_av.d.next = self.p_len.q.val() - self.d_hdrpos.val().get_bits::<4>(0);
                }
            }
            self.f_hdrend.d.next = self.d_tso.val() & (bit_cast::<17, 16>(self.p_hdr.q.val()) <= self.d_end.val());
            // checksum regions: IPv4 header (TSO: total length and identification out too)
            self.f_ip_x0p.d.next = self.d_l3_10.val();
            self.f_ip_x0l.d.next = 2.into();
            self.f_ip_x1l.d.next = 0.into();
            if self.d_tso.val() {
                self.f_ip_x0p.d.next = self.p_l3.q.val() + 2;
                self.f_ip_x0l.d.next = 4.into();
                self.f_ip_x1l.d.next = 2.into();
            }
            // pseudo-header addresses
            self.f_ad_s.d.next = self.p_l3.q.val() + 12;
            self.f_ad_e.d.next = bit_cast::<17, 16>(self.p_l3.q.val()) + 20;
            if self.d_v6.val() {
                self.f_ad_s.d.next = self.p_l3.q.val() + 8;
                self.f_ad_e.d.next = bit_cast::<17, 16>(self.p_l3.q.val()) + 40;
            }
            // L4 (TSO: the template's TCP header, its per-segment fields out) or generic range
            self.f_x_s.d.next = self.p_l4.q.val();
            self.f_x_e.d.next = 0x1ffff.into();
            self.f_x_x0p.d.next = self.d_l4csum.val();
            self.f_x_x0l.d.next = 0.into();
            self.f_x_x1p.d.next = self.p_l4.q.val() + 13;
            self.f_x_x1l.d.next = 0.into();
            self.f_x_x2p.d.next = self.d_l4csum.val();
            self.f_x_x2l.d.next = 0.into();
            if self.d_l4e.val() {
                self.f_x_x0l.d.next = 2.into();
            }
            if self.d_gen.val() {
                self.f_x_s.d.next = self.p_cs.q.val();
                if self.d_ip4e.val() {
                    self.f_x_x0p.d.next = self.d_l3_10.val();
                    self.f_x_x0l.d.next = 2.into();
                }
            }
            if self.d_tso.val() {
                self.f_x_e.d.next = bit_cast::<17, 16>(self.p_hdr.q.val());
                self.f_x_x0p.d.next = self.p_l4.q.val() + 4;
                self.f_x_x0l.d.next = 4.into();
                self.f_x_x1l.d.next = 1.into();
                self.f_x_x2l.d.next = 2.into();
            }
            // where the reader patches: [15:0] f1, [31:16] f2, [47:32] f5, [55:48] f3, [63:56] f4
            self.f_b1.d.next = bit_cast::<64, 16>(self.d_f1pos.val())
                | (bit_cast::<64, 16>(self.d_l3_10.val()) << 16)
                | (bit_cast::<64, 16>(self.d_f5pos.val()) << 32)
                | (bit_cast::<64, 8>(self.d_l4p4.val()) << 48)
                | (bit_cast::<64, 8>(self.d_l4p13.val()) << 56);
            // template bytes to capture: sequence number, identification, TCP flags
            self.cap_pos[0].d.next = self.p_l4.q.val() + 4;
            self.cap_pos[1].d.next = self.p_l4.q.val() + 5;
            self.cap_pos[2].d.next = self.p_l4.q.val() + 6;
            self.cap_pos[3].d.next = self.p_l4.q.val() + 7;
            self.cap_pos[4].d.next = self.p_l3.q.val() + 4;
            self.cap_pos[5].d.next = self.p_l3.q.val() + 5;
            self.cap_pos[6].d.next = self.p_l4.q.val() + 13;
        }

        // ---- buffer pointer, segment and frame state ----
        self.wp_next.next = self.wp.q.val();
        if self.we.val() {
            self.wp_next.next = self.wp.q.val() + 1;
            self.seg_nb.d.next = self.seg_nb.q.val() + 1;
        }
        self.wp.d.next = self.wp_next.val();
        if self.f_ct.q.val() {
            self.seg_start.d.next = self.wp_next.val();
        }
        if self.seg_done.val() {
            self.seg_start.d.next = self.wp_next.val();
            self.seg_fill.d.next = 0.into();
            self.seg_nb.d.next = 0.into();
            self.seg_k.d.next = self.seg_k.q.val() + 1;
            self.seg_rem.d.next = self.f_mss.q.val();
            self.seg_small.d.next = self.f_mss.q.val().get_bits::<12>(4) == 0;
            self.seq_off.d.next = self.seq_off.q.val() + bit_cast::<17, 16>(self.f_mss.q.val());
        }
        if self.rewind.val() {
            self.wp.d.next = self.seg_start.q.val();
            self.seg_nb.d.next = 0.into();
        }
        self.ovf_ge.d.next = self.seg_used.val() >= self.ovf_lim.val();
        self.ovf_lm1.d.next = self.seg_used.val() == self.ovf_lim1.val();
        self.ovf_we.d.next = self.we.val();
        self.ovf_rs.d.next = self.f_ct.q.val() | self.seg_done.val() | self.rewind.val();
        if self.frame_done.val() {
            if self.f_tso.q.val() & !self.f_early.q.val() {
                self.wslot.d.next = !self.wslot.q.val();
            }
            self.frame_drop.d.next = false;
            self.user_seen.d.next = false;
            self.hdr_done.d.next = false;
            self.flush_pending.d.next = false;
            self.fill.d.next = 0.into();
            self.acc.d.next = 0.into();
            self.seg_fill.d.next = 0.into();
            self.seg_nb.d.next = 0.into();
            self.seg_k.d.next = 0.into();
            self.seq_off.d.next = 0.into();
            self.pay_room.d.next = self.max_pay.val();
        }
        // a frame's first beat entering F starts its first segment (this wins over the
        // previous frame's end above, in the same cycle; `acc` is already 0 then: every
        // frame's end clears it, `frame_done`)
        if self.f_take.val() & self.p_valid.q.val() & self.p_first.q.val() {
            self.seg_rem.d.next = self.p_mss.q.val();
            self.seg_small.d.next = self.p_mss.q.val().get_bits::<12>(4) == 0;
            self.fill.d.next = 0.into();
            if self.d_tso.val() {
                self.fill.d.next = bit_cast::<4, 3>(self.p_hdr.q.val().get_bits::<3>(0));
            }
        }
        // ---- buffer writes (registered) ----
        self.w_we.d.next = self.we.val();
        self.w_addr.d.next = bit_cast::<BN, BNP1>(self.wp.q.val());
        self.w_data.d.next = self.we_data.val();
        self.w_side.d.next = bit_cast::<6, 4>(self.we_len.val());
        if self.we_last.val() {
            self.w_side.d.next = bit_cast::<6, 4>(self.we_len.val()) | 16;
            if self.we_user.val() {
                self.w_side.d.next = bit_cast::<6, 4>(self.we_len.val()) | 48;
            }
        }
        self.data_ram.write_enable.next = self.w_we.q.val();
        self.data_ram.write_address.next = self.w_addr.q.val();
        self.data_ram.write_data.next = self.w_data.q.val();
        self.side_ram.write_enable.next = self.w_we.q.val();
        self.side_ram.write_address.next = self.w_addr.q.val();
        self.side_ram.write_data.next = self.w_side.q.val();
        self.tmpl_ram.write_enable.next = self.t_we.q.val();
        self.tmpl_ram.write_address.next = self.t_addr.q.val();
        self.tmpl_ram.write_data.next = self.t_data.q.val();
        // ---- checksum units ----
        self.cs_ip.in_valid.next = self.fu_feed.val();
        self.cs_ip.in_first.next = self.f_first.q.val();
        self.cs_ip.in_close.next = self.fu_close.val();
        self.cs_ip.in_data.next = self.f_data.q.val();
        self.cs_ip.in_beat.next = self.f_beat.q.val();
        self.cs_ip.in_len.next = self.f_len.q.val();
        self.cs_ip.start.next = self.f_l3.q.val();
        self.cs_ip.stop.next = bit_cast::<17, 16>(self.f_l4.q.val());
        self.cs_ip.x_pos[0].next = self.f_ip_x0p.q.val();
        self.cs_ip.x_len[0].next = self.f_ip_x0l.q.val();
        self.cs_ip.x_pos[1].next = self.f_l3_10.q.val();
        self.cs_ip.x_len[1].next = self.f_ip_x1l.q.val();
        self.cs_ip.x_pos[2].next = 0.into();
        self.cs_ip.x_len[2].next = 0.into();
        self.cs_addr.in_valid.next = self.fu_feed.val();
        self.cs_addr.in_first.next = self.f_first.q.val();
        self.cs_addr.in_close.next = self.fu_close.val();
        self.cs_addr.in_data.next = self.f_data.q.val();
        self.cs_addr.in_beat.next = self.f_beat.q.val();
        self.cs_addr.in_len.next = self.f_len.q.val();
        self.cs_addr.start.next = self.f_ad_s.q.val();
        self.cs_addr.stop.next = self.f_ad_e.q.val();
        for k in 0..3 {
            self.cs_addr.x_pos[k].next = 0.into();
            self.cs_addr.x_len[k].next = 0.into();
            self.cs_pay.x_pos[k].next = 0.into();
            self.cs_pay.x_len[k].next = 0.into();
        }
        self.cs_x.in_valid.next = self.fu_feed.val();
        self.cs_x.in_first.next = self.f_first.q.val();
        self.cs_x.in_close.next = self.fu_close.val();
        self.cs_x.in_data.next = self.f_data.q.val();
        self.cs_x.in_beat.next = self.f_beat.q.val();
        self.cs_x.in_len.next = self.f_len.q.val();
        self.cs_x.start.next = self.f_x_s.q.val();
        self.cs_x.stop.next = self.f_x_e.q.val();
        self.cs_x.x_pos[0].next = self.f_x_x0p.q.val();
        self.cs_x.x_len[0].next = self.f_x_x0l.q.val();
        self.cs_x.x_pos[1].next = self.f_x_x1p.q.val();
        self.cs_x.x_len[1].next = self.f_x_x1l.q.val();
        self.cs_x.x_pos[2].next = self.f_x_x2p.q.val();
        self.cs_x.x_len[2].next = self.f_x_x2l.q.val();
        // the TSO segment payload, in segment coordinates (aligned to l4 like the template's sum)
        self.cs_pay.in_valid.next = self.we.val() | self.seg_done.val();
        self.cs_pay.in_first.next = self.seg_nb.q.val() == 0;
        self.cs_pay.in_close.next = self.seg_done.val();
        self.cs_pay.in_data.next = self.we_data.val();
        self.cs_pay.in_beat.next = bit_cast::<14, 16>(self.f_hdr.q.val() >> 3) + self.seg_nb.q.val();
        self.cs_pay.in_len.next = self.pay_len.val();
        if !self.we.val() {
            self.cs_pay.in_len.next = 0.into();
        }
        self.cs_pay.start.next = self.f_l4.q.val();
        self.cs_pay.stop.next = 0x1ffff.into();
        // ---- events ----
        self.fl6.next = 0.into();
        if self.f_tso.q.val() {
            self.fl6.next = self.fl6.val() | 1;
        }
        if self.f_v6.q.val() {
            self.fl6.next = self.fl6.val() | 2;
        }
        if self.f_udp.q.val() {
            self.fl6.next = self.fl6.val() | 4;
        }
        if self.f_ip4e.q.val() {
            self.fl6.next = self.fl6.val() | 8;
        }
        if self.f_gen.q.val() {
            self.fl6.next = self.fl6.val() | 16;
        }
        if self.f_l4e.q.val() {
            self.fl6.next = self.fl6.val() | 32;
        }
        // record flags: [45] IPv4 checksum field, [46] TSO fields, [47] L4/generic field,
        // [48] frees the template slot, [49] frame end (verdict), [50] refused
        self.b0fl.next = 0.into();
        if self.f_ip4e.q.val() {
            self.b0fl.next = self.b0fl.val() | 1;
        }
        if self.f_tso.q.val() {
            self.b0fl.next = self.b0fl.val() | 2;
        }
        if self.f_gen.q.val() | self.f_l4e.q.val() {
            self.b0fl.next = self.b0fl.val() | 4;
        }
        if self.ev_tend.val() {
            self.b0fl.next = self.b0fl.val() | 8;
        }
        if self.ev_fend.val() {
            self.b0fl.next = self.b0fl.val() | 16;
        }
        if self.ev_err.val() {
            self.b0fl.next = self.b0fl.val() | 32;
        }
        self.f1w.next = 0.into();
        if self.f_tso.q.val() {
            self.f1w.next = 4.into();
            if self.f_v6.q.val() {
                self.f1w.next = 2.into();
            }
        }
        self.ev_w.d.next = self.ev.val();
        self.ev_a0.write.next = self.ev_w.q.val();
        self.ev_a1.write.next = self.ev_w.q.val();
        self.ev_a2.write.next = self.ev_w.q.val();
        self.ev_b0.write.next = self.ev_w.q.val();
        self.ev_b1.write.next = self.ev_w.q.val();
        self.a0w.next = bit_cast::<64, 16>(self.ev_seglen.val())
            | (bit_cast::<64, 16>(self.seg_k.q.val()) << 16)
            | (bit_cast::<64, 17>(self.seq_off.q.val()) << 32)
            | (bit_cast::<64, 6>(self.fl6.val()) << 50);
        if self.ev_last.val() {
            self.a0w.next = self.a0w.val() | self.bit49.val();
        }
        self.ev_a0_w.d.next = self.a0w.val();
        self.ev_a1_w.d.next = bit_cast::<64, 16>(self.f_l3.q.val())
            | (bit_cast::<64, 16>(self.f_l4.q.val()) << 16)
            | (bit_cast::<64, 16>(self.f_cs.q.val()) << 32);
        self.ev_a2_w.d.next = (bit_cast::<64, 8>(self.cap_new[0].val()) << 24)
            | (bit_cast::<64, 8>(self.cap_new[1].val()) << 16)
            | (bit_cast::<64, 8>(self.cap_new[2].val()) << 8)
            | bit_cast::<64, 8>(self.cap_new[3].val())
            | (bit_cast::<64, 8>(self.cap_new[4].val()) << 40)
            | (bit_cast::<64, 8>(self.cap_new[5].val()) << 32)
            | (bit_cast::<64, 8>(self.cap_new[6].val()) << 48);
        self.ev_b0_w.d.next = bit_cast::<64, 2>(self.ev_kind.val())
            | (bit_cast::<64, 16>(self.ev_seglen.val()) << 2)
            | (bit_cast::<64, 8>(self.f_hdr.q.val().get_bits::<8>(0)) << 18)
            | (bit_cast::<64, BNP1>(self.wp.q.val()) << 26)
            | (bit_cast::<64, 3>(self.f1w.val()) << 42)
            | (bit_cast::<64, 6>(self.b0fl.val()) << 45);
        self.ev_b1_w.d.next = self.f_b1.q.val();
        self.ev_a0.data_in.next = self.ev_a0_w.q.val();
        self.ev_a1.data_in.next = self.ev_a1_w.q.val();
        self.ev_a2.data_in.next = self.ev_a2_w.q.val();
        self.ev_b0.data_in.next = self.ev_b0_w.q.val();
        self.ev_b1.data_in.next = self.ev_b1_w.q.val();
        // ---- markers: the event's sums are out CSUM_LATENCY cycles later ----
        self.mark[0].d.next = self.ev.val();
        self.mark[1].d.next = self.mark[0].q.val();
        self.mark[2].d.next = self.mark[1].q.val();
        self.mark[3].d.next = self.mark[2].q.val();
        self.mark[4].d.next = self.mark[3].q.val();
        self.mark[5].d.next = self.mark[4].q.val();
        // ---- finish ----
        if self.cs_ip.out_valid.val() {
            self.t_ip.d.next = self.cs_ip.out_sum.val();
        }
        if self.cs_addr.out_valid.val() {
            self.t_addr_s.d.next = self.cs_addr.out_sum.val();
        }
        if self.cs_x.out_valid.val() {
            self.t_x.d.next = self.cs_x.out_sum.val();
        }
        self.finish.in_valid.next = self.mark[5].q.val();
        self.finish.a0.next = bit_cast::<56, 64>(self.ev_a0.data_out.val());
        self.finish.a1.next = bit_cast::<48, 64>(self.ev_a1.data_out.val());
        self.finish.a2.next = bit_cast::<56, 64>(self.ev_a2.data_out.val());
        self.ev_a0.read.next = self.mark[5].q.val();
        self.ev_a1.read.next = self.mark[5].q.val();
        self.ev_a2.read.next = self.mark[5].q.val();
        self.finish.ip_sum.next = self.t_ip.q.val();
        if self.cs_ip.out_valid.val() {
            self.finish.ip_sum.next = self.cs_ip.out_sum.val();
        }
        self.finish.addr_sum.next = self.t_addr_s.q.val();
        if self.cs_addr.out_valid.val() {
            self.finish.addr_sum.next = self.cs_addr.out_sum.val();
        }
        self.finish.x_sum.next = self.t_x.q.val();
        if self.cs_x.out_valid.val() {
            self.finish.x_sum.next = self.cs_x.out_sum.val();
        }
        self.finish.pay_sum.next = self.cs_pay.out_sum.val();
        // ---- records and verdicts ----
        self.zkind.next = self.ev_b0.data_out.val().get_bits::<2>(0);
        self.push.next = self.finish.out_valid.val() & ((self.zkind.val() != 0) | self.ev_b0.data_out.val().get_bit(48));
        self.ev_b0.read.next = self.finish.out_valid.val();
        self.ev_b1.read.next = self.finish.out_valid.val();
        self.rec0.write.next = self.push.val();
        self.rec1.write.next = self.push.val();
        self.rec2.write.next = self.push.val();
        self.rec3.write.next = self.push.val();
        self.rec0.data_in.next = self.ev_b0.data_out.val();
        self.rec1.data_in.next = bit_cast::<64, 32>(self.finish.f1.val())
            | (bit_cast::<64, 16>(self.finish.f2.val()) << 32)
            | (bit_cast::<64, 16>(self.finish.f5.val()) << 48);
        self.rec2.data_in.next = bit_cast::<64, 32>(self.finish.f3.val()) | (bit_cast::<64, 8>(self.finish.f4.val()) << 32);
        self.rec3.data_in.next = self.ev_b1.data_out.val();
        self.r_v.d.next = self.finish.out_valid.val() & self.ev_b0.data_out.val().get_bit(49);
        self.r_e.d.next = self.finish.out_valid.val() & self.ev_b0.data_out.val().get_bit(50);
        self.v_valid.next = self.r_v.q.val();
        self.v_error.next = self.r_e.q.val();
        // ---- reader ----
        self.rec_head.s_valid.next = !self.rec0.empty.val();
        self.rec_head.s_data.next = bit_cast::<217, 49>(self.rec0.data_out.val().get_bits::<49>(0))
            | (bit_cast::<217, 64>(self.rec1.data_out.val()) << 49)
            | (bit_cast::<217, 40>(self.rec2.data_out.val().get_bits::<40>(0)) << 113)
            | (bit_cast::<217, 64>(self.rec3.data_out.val()) << 153);
        self.rec0.read.next = self.rec_head.s_ready.val();
        self.rec1.read.next = self.rec_head.s_ready.val();
        self.rec2.read.next = self.rec_head.s_ready.val();
        self.rec3.read.next = self.rec_head.s_ready.val();
        self.reader.rec_empty.next = !self.rec_head.m_valid.val();
        self.rec_head.m_ready.next = self.reader.rec_pop.val();
        self.reader.rec0.next = self.rec_head.m_data.val().get_bits::<49>(0);
        self.reader.rec1.next = self.rec_head.m_data.val().get_bits::<64>(49);
        self.reader.rec2.next = self.rec_head.m_data.val().get_bits::<40>(113);
        self.reader.rec3.next = self.rec_head.m_data.val().get_bits::<64>(153);
        self.data_ram.read_address.next = self.reader.buf_addr.val();
        self.side_ram.read_address.next = self.reader.buf_addr.val();
        self.reader.buf_data.next = self.data_ram.read_data.val();
        self.reader.buf_side.next = self.side_ram.read_data.val();
        self.tmpl_ram.read_address.next = self.reader.tmpl_addr.val();
        self.reader.tmpl_data.next = self.tmpl_ram.read_data.val();
        self.wpd[0].d.next = self.wp.q.val();
        self.wpd[1].d.next = self.wpd[0].q.val();
        self.wpd[2].d.next = self.wpd[1].q.val();
        self.wpd[3].d.next = self.wpd[2].q.val();
        self.wpd[4].d.next = self.wpd[3].q.val();
        self.wpd[5].d.next = self.wpd[4].q.val();
        self.wpd[6].d.next = self.wpd[5].q.val();
        self.wpd[7].d.next = self.wpd[6].q.val();
        self.wpd[8].d.next = self.wpd[7].q.val();
        self.wpd[9].d.next = self.wpd[8].q.val();
        self.wpd[10].d.next = self.wpd[9].q.val();
        self.wpd[11].d.next = self.wpd[10].q.val();
        self.wpd[12].d.next = self.wpd[11].q.val();
        self.wpd[13].d.next = self.wpd[12].q.val();
        self.wpd[14].d.next = self.wpd[13].q.val();
        self.wpd[15].d.next = self.wpd[14].q.val();
        self.reader.wp_vis.next = self.wpd[15].q.val();
        self.m_data.next = self.reader.m_data.val();
        self.m_len.next = self.reader.m_len.val();
        self.m_last.next = self.reader.m_last.val();
        self.m_user.next = self.reader.m_user.val();
        self.m_valid.next = self.reader.m_valid.val();
        self.reader.m_ready.next = self.m_ready.val();
        self.stat_segments.next = self.reader.stat_segments.val();
        self.stat_tso_segments.next = self.reader.stat_tso_segments.val();
        if self.reset.val() {
            self.p_valid.d.next = false;
            self.in_frame.d.next = false;
            self.f_valid.d.next = false;
            self.frame_drop.d.next = false;
            self.user_seen.d.next = false;
            self.hdr_done.d.next = false;
            self.flush_pending.d.next = false;
            self.fill.d.next = 0.into();
            self.acc.d.next = 0.into();
            self.seg_fill.d.next = 0.into();
            self.seg_nb.d.next = 0.into();
            self.seg_k.d.next = 0.into();
            self.seq_off.d.next = 0.into();
            self.pay_room.d.next = self.max_pay.val();
            self.wp.d.next = 0.into();
            self.seg_start.d.next = 0.into();
            self.wslot.d.next = 0.into();
            self.tslots.d.next = 0.into();
            self.space_ok.d.next = false;
            self.fifo_ok.d.next = false;
            self.w_we.d.next = false;
            self.ev_w.d.next = false;
            self.t_we.d.next = false;
            self.r_v.d.next = false;
            self.r_e.d.next = false;
            for i in 0..6 {
                self.mark[i].d.next = false;
            }
            for i in 0..16 {
                self.wpd[i].d.next = 0.into();
            }
        }
    }
}
