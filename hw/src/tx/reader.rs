//! TX offload read-out: turns the frame buffer and the per-frame records into the frames
//! on the wire (docs/tx-offload.md).
//!
//! Records (from [`super::TxOffload`]'s record FIFO), in frame order:
//! * `SEG`: a checksummed frame or a TSO segment, complete in the buffer: `seg_len` bytes,
//!   the first `hdr_len` of them from the TSO header template (0 without TSO), the rest
//!   from the buffer, where the segment's payload starts at lane `hdr_len % 8` of its
//!   first buffer beat (that beat's lanes below it come from the template), plus the five
//!   fields to patch ([`super::TxPatch`]);
//! * `CT_START`: a frame without offload, sent cut-through as its beats become visible
//!   (`wp_vis`); the lengths, ends and abort marks come from the buffer's side bits;
//! * `CT_END`: where that frame's last beat is (it may arrive with or instead of `CT_START`).
//!
//! Pipeline: R0 picks the beat (template and buffer RAM addresses, patch mask and bytes);
//! R1 has the RAM words, merges and patches them into a register slice (skid buffer) that
//! drives `m_*`. The RAMs hold their output while the slice is full: their read address is
//! re-presented. A record is loaded while the previous segment's last beat issues, so
//! segments follow each other without a gap.

use super::patch::TxPatch;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct TxReader<const BN: usize, const BNP1: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rec_empty: Signal<In, Bit>,
    pub rec_pop: Signal<Out, Bit>,
    pub rec0: Signal<In, Bits<49>>,
    pub rec1: Signal<In, Bits<64>>,
    pub rec2: Signal<In, Bits<40>>,
    pub rec3: Signal<In, Bits<64>>,
    pub buf_addr: Signal<Out, Bits<BN>>,
    pub buf_data: Signal<In, Bits<64>>,
    /// [3:0] length, [4] last, [5] abort.
    pub buf_side: Signal<In, Bits<6>>,
    /// {slot, beat}: two template slots, used in turn by TSO frames.
    pub tmpl_addr: Signal<Out, Bits<6>>,
    pub tmpl_data: Signal<In, Bits<64>>,
    /// Buffer beats below this pointer may be read cut-through.
    pub wp_vis: Signal<In, Bits<BNP1>>,
    /// Next buffer beat to read (everything before it is free).
    pub rp: Signal<Out, Bits<BNP1>>,
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub stat_segments: Signal<Out, Bit>,
    /// One pulse per TSO segment (a record with a header template) sent.
    pub stat_tso_segments: Signal<Out, Bit>,
    /// The TSO frame using the current template slot is done with it.
    pub tmpl_free: Signal<Out, Bit>,
    patch: TxPatch,
    tslot: DFF<Bits<1>>,
    c_tend: DFF<Bit>,
    r1_free: DFF<Bit>,
    /// 0 idle, 1 segment from a record, 2 cut-through.
    mode: DFF<Bits<2>>,
    /// The record being read is a TSO segment (it has a header template).
    c_tso: DFF<Bit>,
    rptr: DFF<Bits<BNP1>>,
    j: DFF<Bits<14>>,
    /// The segment's beats after beat `j` (`c_beats - 1 - j`), and "beat `j` is the
    /// last" as a flip-flop: the last-beat test was `j + 1 == c_beats` (an add and a
    /// 14-bit compare) in front of the record load and the mode (12.9 ns at speed 8).
    c_left: DFF<Bits<14>>,
    c_last: DFF<Bit>,
    /// Beat `j` comes from the buffer (`j >= c_hb0`; below it, all template) and is the
    /// beat where the template ends (`j == c_hb0`), as flip-flops kept as `j` counts: the
    /// compares had stood in front of the buffer's read address.
    c_fb: DFF<Bit>,
    c_at: DFF<Bit>,
    c_lastlen: DFF<Bits<4>>,
    c_hb0: DFF<Bits<5>>,
    c_h: DFF<Bits<3>>,
    c_end_known: DFF<Bit>,
    c_end: DFF<Bits<BNP1>>,
    c_pos: [DFF<Bits<16>>; 5],
    c_w: [DFF<Bits<3>>; 5],
    c_val: [DFF<Bits<32>>; 5],
    ba: DFF<Bits<BN>>,
    ta: DFF<Bits<6>>,
    r1_valid: DFF<Bit>,
    r1_ct: DFF<Bit>,
    r1_tm: DFF<Bits<8>>,
    r1_len: DFF<Bits<4>>,
    r1_last: DFF<Bit>,
    r1_v: DFF<Bits<64>>,
    r1_m: DFF<Bits<64>>,
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_len: DFF<Bits<4>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bit>,
    k_valid: DFF<Bit>,
    k_data: DFF<Bits<64>>,
    k_len: DFF<Bits<4>>,
    k_last: DFF<Bit>,
    k_user: DFF<Bit>,
    en: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    kind: Signal<Local, Bits<2>>,
    rec_end: Signal<Local, Bits<BNP1>>,
    seg_len: Signal<Local, Bits<16>>,
    hdr: Signal<Local, Bits<8>>,
    issue: Signal<Local, Bit>,
    from_buf: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    j_at: Signal<Local, Bit>,
    end_known: Signal<Local, Bit>,
    end_ptr: Signal<Local, Bits<BNP1>>,
    tm64: Signal<Local, Bits<64>>,
    merged: Signal<Local, Bits<64>>,
    in_data: Signal<Local, Bits<64>>,
    in_len: Signal<Local, Bits<4>>,
    in_last: Signal<Local, Bit>,
    in_user: Signal<Local, Bit>,
    in_fire: Signal<Local, Bit>,
    out_fire: Signal<Local, Bit>,
    ones8: Constant<Bits<8>>,
    lane_mask: [Constant<Bits<64>>; 8],
}

impl<const BN: usize, const BNP1: usize> Default for TxReader<BN, BNP1> {
    fn default() -> Self {
        assert_eq!(BN + 1, BNP1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rec_empty: Default::default(),
            rec_pop: Default::default(),
            rec0: Default::default(),
            rec1: Default::default(),
            rec2: Default::default(),
            rec3: Default::default(),
            buf_addr: Default::default(),
            buf_data: Default::default(),
            buf_side: Default::default(),
            tmpl_addr: Default::default(),
            tmpl_data: Default::default(),
            wp_vis: Default::default(),
            rp: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            stat_segments: Default::default(),
            stat_tso_segments: Default::default(),
            tmpl_free: Default::default(),
            patch: Default::default(),
            tslot: Default::default(),
            c_tend: Default::default(),
            r1_free: Default::default(),
            mode: Default::default(),
            c_tso: Default::default(),
            rptr: Default::default(),
            j: Default::default(),
            c_left: Default::default(),
            c_fb: Default::default(),
            c_at: Default::default(),
            c_last: Default::default(),
            c_lastlen: Default::default(),
            c_hb0: Default::default(),
            c_h: Default::default(),
            c_end_known: Default::default(),
            c_end: Default::default(),
            c_pos: Default::default(),
            c_w: Default::default(),
            c_val: Default::default(),
            ba: Default::default(),
            ta: Default::default(),
            r1_valid: Default::default(),
            r1_ct: Default::default(),
            r1_tm: Default::default(),
            r1_len: Default::default(),
            r1_last: Default::default(),
            r1_v: Default::default(),
            r1_m: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_len: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            k_valid: Default::default(),
            k_data: Default::default(),
            k_len: Default::default(),
            k_last: Default::default(),
            k_user: Default::default(),
            en: Default::default(),
            load: Default::default(),
            kind: Default::default(),
            rec_end: Default::default(),
            seg_len: Default::default(),
            hdr: Default::default(),
            issue: Default::default(),
            from_buf: Default::default(),
            is_last: Default::default(),
            j_at: Default::default(),
            end_known: Default::default(),
            end_ptr: Default::default(),
            tm64: Default::default(),
            merged: Default::default(),
            in_data: Default::default(),
            in_len: Default::default(),
            in_last: Default::default(),
            in_user: Default::default(),
            in_fire: Default::default(),
            out_fire: Default::default(),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            lane_mask: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xffu64 << (8 * i)))),
        }
    }
}

impl<const BN: usize, const BNP1: usize> Logic for TxReader<BN, BNP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tslot, c_tend, r1_free, mode, c_tso, rptr, j, c_left, c_last, c_fb, c_at, c_lastlen, c_hb0, c_h, c_end_known, c_end, ba, ta,
            r1_valid, r1_ct, r1_tm, r1_len, r1_last, r1_v, r1_m,
            o_valid, o_data, o_len, o_last, o_user, k_valid, k_data, k_len, k_last, k_user);
        for f in 0..5 {
            self.c_pos[f].clock.next = self.clock.val();
            self.c_pos[f].d.next = self.c_pos[f].q.val();
            self.c_w[f].clock.next = self.clock.val();
            self.c_w[f].d.next = self.c_w[f].q.val();
            self.c_val[f].clock.next = self.clock.val();
            self.c_val[f].d.next = self.c_val[f].q.val();
        }
        self.en.next = !self.k_valid.q.val();
        // ---- the record at the head ----
        self.kind.next = self.rec0.val().get_bits::<2>(0);
        self.seg_len.next = self.rec0.val().get_bits::<16>(2);
        self.hdr.next = self.rec0.val().get_bits::<8>(18);
        self.rec_end.next = bit_cast::<BNP1, 16>(self.rec0.val().get_bits::<16>(26));
        // ---- R0: pick the next beat ----
        self.rec_pop.next = false;
        self.load.next = false;
        self.issue.next = false;
        self.from_buf.next = false;
        self.is_last.next = false;
        self.end_known.next = self.c_end_known.q.val();
        self.end_ptr.next = self.c_end.q.val();
        self.r1_tm.d.next = 0.into();
        self.r1_len.d.next = 8.into();
        self.r1_last.d.next = false;
        self.r1_ct.d.next = false;
        self.r1_free.d.next = false;
        self.patch.beat.next = self.j.q.val();
        for f in 0..5 {
            self.patch.f_pos[f].next = self.c_pos[f].q.val();
            self.patch.f_w[f].next = self.c_w[f].q.val();
            self.patch.f_val[f].next = self.c_val[f].q.val();
        }
        // beat j + 1 is where the template ends (the header's beats are fewer than 32:
        // `c_hb0` has 5 bits)
        self.j_at.next = (self.j.q.val().get_bits::<9>(5) == 0)
            & ((bit_cast::<6, 5>(self.j.q.val().get_bits::<5>(0)) + 1) == bit_cast::<6, 5>(self.c_hb0.q.val()));
        if self.en.val() {
            if self.mode.q.val() == 0 {
                self.load.next = !self.rec_empty.val();
            } else if self.mode.q.val() == 1 {
                self.issue.next = true;
                self.from_buf.next = self.c_fb.q.val();
                self.is_last.next = self.c_last.q.val();
                if !self.c_fb.q.val() {
                    self.r1_tm.d.next = self.ones8.val();
                } else if self.c_at.q.val() {
                    self.r1_tm.d.next = !(self.ones8.val() << self.c_h.q.val());
                }
                if self.is_last.val() {
                    self.r1_len.d.next = self.c_lastlen.q.val();
                    self.r1_last.d.next = true;
                    self.mode.d.next = 0.into();
                    self.load.next = !self.rec_empty.val() & !(self.c_tend.q.val() & (self.kind.val() == 0));
                    self.r1_free.d.next = self.c_tend.q.val();
                    if self.c_tend.q.val() {
                        // the next TSO frame's segments read the other slot
                        self.tslot.d.next = !self.tslot.q.val();
                    }
                }
                self.j.d.next = self.j.q.val() + 1;
                self.c_left.d.next = self.c_left.q.val() - 1;
                self.c_last.d.next = self.c_left.q.val() == 1;
                self.c_at.d.next = self.j_at.val();
                self.c_fb.d.next = self.c_fb.q.val() | self.j_at.val();
            } else {
                // cut-through: the frame's end is known once its CT_END record arrived
                if !self.c_end_known.q.val() & !self.rec_empty.val() & (self.kind.val() == 3) {
                    self.rec_pop.next = true;
                    self.end_known.next = true;
                    self.end_ptr.next = self.rec_end.val();
                    self.c_end_known.d.next = true;
                    self.c_end.d.next = self.rec_end.val();
                }
                if self.rptr.q.val() != self.wp_vis.val() {
                    self.issue.next = true;
                    self.from_buf.next = true;
                    self.r1_ct.d.next = true;
                    if self.end_known.val() & (self.rptr.q.val() == self.end_ptr.val()) {
                        self.mode.d.next = 0.into();
                        self.c_end_known.d.next = false;
                        // the next record in the same cycle (no bubble between frames),
                        // unless this cycle already popped the frame's CT_END record
                        self.load.next = self.c_end_known.q.val() & !self.rec_empty.val();
                    }
                }
            }
        }
        if self.load.val() {
            self.rec_pop.next = true;
            self.j.d.next = 0.into();
            self.mode.d.next = 2.into();
            if self.kind.val() == 1 {
                self.mode.d.next = 1.into();
            }
            if self.kind.val() == 0 {
                // a TSO frame dropped after its header: free its template slot, in order
                self.mode.d.next = 0.into();
                self.r1_free.d.next = true;
                self.tslot.d.next = !self.tslot.q.val();
            }
            self.c_tend.d.next = self.rec0.val().get_bit(48);
            self.c_end_known.d.next = self.kind.val() == 3;
            self.c_end.d.next = self.rec_end.val();
            self.c_left.d.next = bit_cast::<14, 16>((self.seg_len.val() + 7) >> 3) - 1;
            self.c_last.d.next = self.seg_len.val() <= 8;
            self.c_lastlen.d.next = bit_cast::<4, 3>(self.seg_len.val().get_bits::<3>(0));
            if self.seg_len.val().get_bits::<3>(0) == 0 {
                self.c_lastlen.d.next = 8.into();
            }
            self.c_hb0.d.next = self.hdr.val().get_bits::<5>(3);
            self.c_fb.d.next = self.hdr.val().get_bits::<5>(3) == 0;
            self.c_at.d.next = self.hdr.val().get_bits::<5>(3) == 0;
            self.c_h.d.next = self.hdr.val().get_bits::<3>(0);
            self.c_tso.d.next = self.hdr.val() != 0;
            // fields: widths and enables from rec0, values from rec1/rec2, positions from rec3
            self.c_w[0].d.next = self.rec0.val().get_bits::<3>(42);
            self.c_w[1].d.next = 0.into();
            if self.rec0.val().get_bit(45) {
                self.c_w[1].d.next = 2.into();
            }
            self.c_w[2].d.next = 0.into();
            self.c_w[3].d.next = 0.into();
            if self.rec0.val().get_bit(46) {
                self.c_w[2].d.next = 4.into();
                self.c_w[3].d.next = 1.into();
            }
            self.c_w[4].d.next = 0.into();
            if self.rec0.val().get_bit(47) {
                self.c_w[4].d.next = 2.into();
            }
            self.c_val[0].d.next = self.rec1.val().get_bits::<32>(0);
            self.c_val[1].d.next = bit_cast::<32, 16>(self.rec1.val().get_bits::<16>(32));
            self.c_val[4].d.next = bit_cast::<32, 16>(self.rec1.val().get_bits::<16>(48));
            self.c_val[2].d.next = self.rec2.val().get_bits::<32>(0);
            self.c_val[3].d.next = bit_cast::<32, 8>(self.rec2.val().get_bits::<8>(32));
            self.c_pos[0].d.next = self.rec3.val().get_bits::<16>(0);
            self.c_pos[1].d.next = self.rec3.val().get_bits::<16>(16);
            self.c_pos[4].d.next = self.rec3.val().get_bits::<16>(32);
            self.c_pos[2].d.next = bit_cast::<16, 8>(self.rec3.val().get_bits::<8>(48));
            self.c_pos[3].d.next = bit_cast::<16, 8>(self.rec3.val().get_bits::<8>(56));
        }
        // RAM addresses: a new beat, or the one in R1 again (its word stays at the RAM output)
        self.buf_addr.next = self.ba.q.val();
        self.tmpl_addr.next = self.ta.q.val();
        if self.issue.val() {
            self.tmpl_addr.next = (bit_cast::<6, 1>(self.tslot.q.val()) << 5) | bit_cast::<6, 5>(self.j.q.val().get_bits::<5>(0));
            if self.from_buf.val() {
                self.buf_addr.next = bit_cast::<BN, BNP1>(self.rptr.q.val());
                self.rptr.d.next = self.rptr.q.val() + 1;
            }
        }
        self.ba.d.next = self.buf_addr.val();
        self.ta.d.next = self.tmpl_addr.val();
        self.rp.next = self.rptr.q.val();
        if self.en.val() {
            self.r1_valid.d.next = self.issue.val();
            self.r1_v.d.next = self.patch.v.val();
            self.r1_m.d.next = self.patch.m.val();
        } else {
            self.r1_valid.d.next = self.r1_valid.q.val();
            self.r1_ct.d.next = self.r1_ct.q.val();
            self.r1_tm.d.next = self.r1_tm.q.val();
            self.r1_len.d.next = self.r1_len.q.val();
            self.r1_last.d.next = self.r1_last.q.val();
            self.r1_free.d.next = self.r1_free.q.val();
        }
        // the slot is free once the beat that last needed it has left R1
        self.tmpl_free.next = self.en.val() & self.r1_free.q.val();
        // ---- R1: merge the template lanes, patch, into the slice ----
        self.tm64.next = 0.into();
        for i in 0..8 {
            if self.r1_tm.q.val().get_bit(i) {
                self.tm64.next = self.tm64.val() | self.lane_mask[i].val();
            }
        }
        self.merged.next = (self.tmpl_data.val() & self.tm64.val()) | (self.buf_data.val() & !self.tm64.val());
        self.in_data.next = (self.merged.val() & !self.r1_m.q.val()) | self.r1_v.q.val();
        self.in_len.next = self.r1_len.q.val();
        self.in_last.next = self.r1_last.q.val();
        self.in_user.next = false;
        if self.r1_ct.q.val() {
            self.in_data.next = self.buf_data.val();
            self.in_len.next = self.buf_side.val().get_bits::<4>(0);
            self.in_last.next = self.buf_side.val().get_bit(4);
            self.in_user.next = self.buf_side.val().get_bit(5);
        }
        self.in_fire.next = self.r1_valid.q.val() & self.en.val();
        self.out_fire.next = self.o_valid.q.val() & self.m_ready.val();
        if self.out_fire.val() | !self.o_valid.q.val() {
            if self.k_valid.q.val() {
                self.o_data.d.next = self.k_data.q.val();
                self.o_len.d.next = self.k_len.q.val();
                self.o_last.d.next = self.k_last.q.val();
                self.o_user.d.next = self.k_user.q.val();
                self.o_valid.d.next = true;
                self.k_valid.d.next = false;
            } else {
                self.o_data.d.next = self.in_data.val();
                self.o_len.d.next = self.in_len.val();
                self.o_last.d.next = self.in_last.val();
                self.o_user.d.next = self.in_user.val();
                self.o_valid.d.next = self.in_fire.val();
            }
        } else if self.in_fire.val() {
            self.k_data.d.next = self.in_data.val();
            self.k_len.d.next = self.in_len.val();
            self.k_last.d.next = self.in_last.val();
            self.k_user.d.next = self.in_user.val();
            self.k_valid.d.next = true;
        }
        self.m_valid.next = self.o_valid.q.val();
        self.m_data.next = self.o_data.q.val();
        self.m_len.next = self.o_len.q.val();
        self.m_last.next = self.o_last.q.val();
        self.m_user.next = self.o_user.q.val();
        self.stat_segments.next = self.out_fire.val() & self.o_last.q.val();
        self.stat_tso_segments.next = self.en.val() & (self.mode.q.val() == 1) & self.is_last.val() & self.c_tso.q.val();
        if self.reset.val() {
            self.mode.d.next = 0.into();
            self.tslot.d.next = 0.into();
            self.r1_free.d.next = false;
            self.rptr.d.next = 0.into();
            self.c_end_known.d.next = false;
            self.r1_valid.d.next = false;
            self.o_valid.d.next = false;
            self.k_valid.d.next = false;
        }
    }
}
