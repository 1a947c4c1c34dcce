//! RX checksum verdicts (docs/rx-classification.md §3) on the frame as it streams.
//!
//! The classifier feeds the frame's beats once its parse record is known, so every
//! region is known from the first beat: the IPv4 header `[l3, l4)`, the L4 segment
//! `[l4, l4end)` and the pseudo-header addresses `[addr_start, addr_end)` (which lie in
//! the IP header). The one's-complement sum is commutative, so the L4 sum is simply the
//! masked sum of the segment and address words plus `pconst` (protocol + L4 length).
//! All offsets are even, so every 16-bit word of the frame is a beat's word 0..3; only
//! the segment end can be odd (its last word then counts its high byte only).
//!
//! Pipeline, six registered stages, all advancing together on `en`:
//! A the beat and where it stands against the region bounds (beat-index compares made
//! as it enters); B masked data per region (lane compares on the bounds' low bits);
//! C the beat's four words summed per region; D 32-bit accumulators (no overflow: a
//! region is < 64 KiB); E and F the end-around folds, the length check and the verdicts,
//! which travel on the frame's last beat. The beat itself travels alongside, so a frame
//! leaves with its verdicts and the next frame can follow without a gap.
//!
//! The real frame length is known here (the parser only saw the first 104 bytes): a
//! frame shorter than its IP packet (`l4end > len`) gets no verdict, as a malformed
//! header gets none.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RxCsum {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Advance the pipeline (and take `in_*` when `in_valid`).
    pub en: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<64>>,
    pub in_len: Signal<In, Bits<4>>,
    pub in_last: Signal<In, Bit>,
    pub in_status: Signal<In, Bits<3>>,
    // the frame's parse record, sampled with its first beat
    pub l3: Signal<In, Bits<17>>,
    pub l4: Signal<In, Bits<17>>,
    pub l4end: Signal<In, Bits<17>>,
    pub addr_start: Signal<In, Bits<17>>,
    pub addr_end: Signal<In, Bits<17>>,
    pub pconst: Signal<In, Bits<17>>,
    pub chk3: Signal<In, Bit>,
    pub chk4: Signal<In, Bit>,
    pub udp0: Signal<In, Bit>,
    pub v6: Signal<In, Bit>,
    // out (the last stage)
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<64>>,
    pub out_len: Signal<Out, Bits<4>>,
    pub out_last: Signal<Out, Bit>,
    pub out_status: Signal<Out, Bits<3>>,
    /// 0 not checked, 1 good, 2 bad; on the last beat.
    pub out_l3: Signal<Out, Bits<2>>,
    pub out_l4: Signal<Out, Bits<2>>,
    /// In a frame (its first beat has entered).
    mid: DFF<Bit>,
    pos: DFF<Bits<17>>,
    // per-frame record of the frame in stage A
    f_l3: DFF<Bits<17>>,
    f_l4: DFF<Bits<17>>,
    f_l4end: DFF<Bits<17>>,
    f_as: DFF<Bits<17>>,
    f_ae: DFF<Bits<17>>,
    f_pconst: DFF<Bits<17>>,
    f_flags: DFF<Bits<4>>,
    // A
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    /// Where the beat in A stands against the frame's region bounds (0 l3, 1 l4,
    /// 2 addr_start, 3 addr_end, 4 l4end), compared as the beat enters A: its beat index
    /// below the bound's (`a_lt`), equal to it (`a_eq`), one below l4end's (`a_eqm1`).
    /// The word masks in A -> B are then a lane compare on the bounds' low 3 bits, where
    /// they were an add and a 17-bit compare per word (two carry chains) in front of the
    /// masked data registers: the classifier's worst path at speed 8.
    a_lt: [DFF<Bit>; 5],
    a_eq: [DFF<Bit>; 5],
    a_eqm1: DFF<Bit>,
    a_data: DFF<Bits<64>>,
    a_len: DFF<Bits<4>>,
    a_last: DFF<Bit>,
    a_status: DFF<Bits<3>>,
    // B
    b_valid: DFF<Bit>,
    b_first: DFF<Bit>,
    b_m3: DFF<Bits<64>>,
    b_m4: DFF<Bits<64>>,
    b_p: DFF<Bits<17>>,
    b_flags: DFF<Bits<4>>,
    b_data: DFF<Bits<64>>,
    b_len: DFF<Bits<4>>,
    b_last: DFF<Bit>,
    b_status: DFF<Bits<3>>,
    // C
    c_valid: DFF<Bit>,
    c_first: DFF<Bit>,
    c_s3: DFF<Bits<32>>,
    c_s4: DFF<Bits<32>>,
    c_flags: DFF<Bits<4>>,
    c_data: DFF<Bits<64>>,
    c_len: DFF<Bits<4>>,
    c_last: DFF<Bit>,
    c_status: DFF<Bits<3>>,
    // D
    d_valid: DFF<Bit>,
    d_acc3: DFF<Bits<32>>,
    d_acc4: DFF<Bits<32>>,
    d_flags: DFF<Bits<4>>,
    d_data: DFF<Bits<64>>,
    d_len: DFF<Bits<4>>,
    d_last: DFF<Bit>,
    d_status: DFF<Bits<3>>,
    // E
    e_valid: DFF<Bit>,
    e_x3: DFF<Bits<17>>,
    e_x4: DFF<Bits<17>>,
    e_flags: DFF<Bits<4>>,
    e_data: DFF<Bits<64>>,
    e_len: DFF<Bits<4>>,
    e_last: DFF<Bit>,
    e_status: DFF<Bits<3>>,
    // F
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_len: DFF<Bits<4>>,
    o_last: DFF<Bit>,
    o_status: DFF<Bits<3>>,
    o_l3: DFF<Bits<2>>,
    o_l4: DFF<Bits<2>>,
    // scratch
    take: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    flags: Signal<Local, Bits<4>>,
    two_i: [Constant<Bits<3>>; 4],
    /// The bounds of the beat being taken: the inputs for a frame's first beat (its
    /// index is 0), the frame's registers after.
    bnd: [Signal<Local, Bits<17>>; 5],
    beat: Signal<Local, Bits<14>>,
    below: Signal<Local, Bit>,
    below_end: Signal<Local, Bit>,
    mask3: Signal<Local, Bits<64>>,
    mask4: Signal<Local, Bits<64>>,
    short: Signal<Local, Bit>,
    w3: [Signal<Local, Bits<32>>; 4],
    w4: [Signal<Local, Bits<32>>; 4],
    y3: Signal<Local, Bits<17>>,
    y4: Signal<Local, Bits<17>>,
    hi_byte: [Constant<Bits<64>>; 4],
    lo_byte: [Constant<Bits<64>>; 4],
}

impl Default for RxCsum {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_len: Default::default(),
            in_last: Default::default(),
            in_status: Default::default(),
            l3: Default::default(),
            l4: Default::default(),
            l4end: Default::default(),
            addr_start: Default::default(),
            addr_end: Default::default(),
            pconst: Default::default(),
            chk3: Default::default(),
            chk4: Default::default(),
            udp0: Default::default(),
            v6: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_len: Default::default(),
            out_last: Default::default(),
            out_status: Default::default(),
            out_l3: Default::default(),
            out_l4: Default::default(),
            mid: Default::default(),
            pos: Default::default(),
            f_l3: Default::default(),
            f_l4: Default::default(),
            f_l4end: Default::default(),
            f_as: Default::default(),
            f_ae: Default::default(),
            f_pconst: Default::default(),
            f_flags: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_lt: Default::default(),
            a_eq: Default::default(),
            a_eqm1: Default::default(),
            a_data: Default::default(),
            a_len: Default::default(),
            a_last: Default::default(),
            a_status: Default::default(),
            b_valid: Default::default(),
            b_first: Default::default(),
            b_m3: Default::default(),
            b_m4: Default::default(),
            b_p: Default::default(),
            b_flags: Default::default(),
            b_data: Default::default(),
            b_len: Default::default(),
            b_last: Default::default(),
            b_status: Default::default(),
            c_valid: Default::default(),
            c_first: Default::default(),
            c_s3: Default::default(),
            c_s4: Default::default(),
            c_flags: Default::default(),
            c_data: Default::default(),
            c_len: Default::default(),
            c_last: Default::default(),
            c_status: Default::default(),
            d_valid: Default::default(),
            d_acc3: Default::default(),
            d_acc4: Default::default(),
            d_flags: Default::default(),
            d_data: Default::default(),
            d_len: Default::default(),
            d_last: Default::default(),
            d_status: Default::default(),
            e_valid: Default::default(),
            e_x3: Default::default(),
            e_x4: Default::default(),
            e_flags: Default::default(),
            e_data: Default::default(),
            e_len: Default::default(),
            e_last: Default::default(),
            e_status: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_len: Default::default(),
            o_last: Default::default(),
            o_status: Default::default(),
            o_l3: Default::default(),
            o_l4: Default::default(),
            take: Default::default(),
            first: Default::default(),
            flags: Default::default(),
            two_i: std::array::from_fn(|i| Constant::new(Bits::<3>::from(2 * i as u64))),
            bnd: Default::default(),
            beat: Default::default(),
            below: Default::default(),
            below_end: Default::default(),
            mask3: Default::default(),
            mask4: Default::default(),
            short: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            y3: Default::default(),
            y4: Default::default(),
            hi_byte: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xffu64 << (16 * i)))),
            lo_byte: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xff00u64 << (16 * i)))),
        }
    }
}

impl Logic for RxCsum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, pos, f_l3, f_l4, f_l4end, f_as, f_ae, f_pconst, f_flags,
            a_valid, a_first, a_eqm1, a_data, a_len, a_last, a_status,
            b_valid, b_first, b_m3, b_m4, b_p, b_flags, b_data, b_len, b_last, b_status,
            c_valid, c_first, c_s3, c_s4, c_flags, c_data, c_len, c_last, c_status,
            d_valid, d_acc3, d_acc4, d_flags, d_data, d_len, d_last, d_status,
            e_valid, e_x3, e_x4, e_flags, e_data, e_len, e_last, e_status,
            o_valid, o_data, o_len, o_last, o_status, o_l3, o_l4);
        for k in 0..5 {
            self.a_lt[k].clock.next = self.clock.val();
            self.a_lt[k].d.next = self.a_lt[k].q.val();
            self.a_eq[k].clock.next = self.clock.val();
            self.a_eq[k].d.next = self.a_eq[k].q.val();
        }
        self.take.next = self.en.val() & self.in_valid.val();
        self.first.next = !self.mid.q.val();
        self.flags.next = 0.into();
        if self.chk3.val() {
            self.flags.next = self.flags.val() | 1;
        }
        if self.chk4.val() {
            self.flags.next = self.flags.val() | 2;
        }
        if self.udp0.val() {
            self.flags.next = self.flags.val() | 4;
        }
        if self.v6.val() {
            self.flags.next = self.flags.val() | 8;
        }
        // ---- in -> A ----
        self.bnd[0].next = self.f_l3.q.val();
        self.bnd[1].next = self.f_l4.q.val();
        self.bnd[2].next = self.f_as.q.val();
        self.bnd[3].next = self.f_ae.q.val();
        self.bnd[4].next = self.f_l4end.q.val();
        if self.first.val() {
            self.bnd[0].next = self.l3.val();
            self.bnd[1].next = self.l4.val();
            self.bnd[2].next = self.addr_start.val();
            self.bnd[3].next = self.addr_end.val();
            self.bnd[4].next = self.l4end.val();
        }
        self.beat.next = self.pos.q.val().get_bits::<14>(3);
        if self.take.val() {
            self.mid.d.next = !self.in_last.val();
            self.pos.d.next = self.pos.q.val() + 8;
            if self.pos.q.val().get_bit(16) & self.pos.q.val().get_bit(15) {
                // past 96 KiB, beyond any region: stop counting
                self.pos.d.next = self.pos.q.val();
            }
            if self.first.val() {
                self.pos.d.next = 8.into();
                self.f_l3.d.next = self.l3.val();
                self.f_l4.d.next = self.l4.val();
                self.f_l4end.d.next = self.l4end.val();
                self.f_as.d.next = self.addr_start.val();
                self.f_ae.d.next = self.addr_end.val();
                self.f_pconst.d.next = self.pconst.val();
                self.f_flags.d.next = self.flags.val();
            }
        }
        if self.en.val() {
            self.a_valid.d.next = self.in_valid.val();
            self.a_first.d.next = self.first.val();
            for k in 0..5 {
                self.a_lt[k].d.next = self.beat.val() < self.bnd[k].val().get_bits::<14>(3);
                self.a_eq[k].d.next = self.beat.val() == self.bnd[k].val().get_bits::<14>(3);
            }
            self.a_eqm1.d.next = (self.beat.val() + 1) == self.bnd[4].val().get_bits::<14>(3);
            if self.first.val() {
                // beat 0: zero tests of the inputs
                for k in 0..5 {
                    self.a_lt[k].d.next = self.bnd[k].val().get_bits::<14>(3) != 0;
                    self.a_eq[k].d.next = self.bnd[k].val().get_bits::<14>(3) == 0;
                }
                self.a_eqm1.d.next = self.bnd[4].val().get_bits::<14>(3) == 1;
            }
            self.a_data.d.next = self.in_data.val();
            self.a_len.d.next = self.in_len.val();
            self.a_last.d.next = self.in_last.val();
            self.a_status.d.next = self.in_status.val();
        }
        // ---- A -> B: masks ----
        self.mask3.next = 0.into();
        self.mask4.next = 0.into();
        // word i of the beat starts at byte p = 8 * beat + 2i; p < X when the beat is below
        // X's beat, or is X's beat and 2i < X mod 8. `below` is p < X for each bound in
        // turn; the L4 segment's low byte counts when p + 2 <= l4end, that is p < l4end
        // with its bit 0 cleared (p is even).
        for i in 0..4 {
            self.below.next = self.a_lt[0].q.val() | (self.a_eq[0].q.val() & (self.two_i[i].val() < self.f_l3.q.val().get_bits::<3>(0)));
            self.below_end.next = self.a_lt[1].q.val() | (self.a_eq[1].q.val() & (self.two_i[i].val() < self.f_l4.q.val().get_bits::<3>(0)));
            if !self.below.val() & self.below_end.val() {
                self.mask3.next = self.mask3.val() | self.hi_byte[i].val() | self.lo_byte[i].val();
            }
            self.below.next = self.a_lt[2].q.val() | (self.a_eq[2].q.val() & (self.two_i[i].val() < self.f_as.q.val().get_bits::<3>(0)));
            self.below_end.next = self.a_lt[3].q.val() | (self.a_eq[3].q.val() & (self.two_i[i].val() < self.f_ae.q.val().get_bits::<3>(0)));
            if !self.below.val() & self.below_end.val() {
                self.mask4.next = self.mask4.val() | self.hi_byte[i].val() | self.lo_byte[i].val();
            }
            self.below.next = self.a_lt[1].q.val() | (self.a_eq[1].q.val() & (self.two_i[i].val() < self.f_l4.q.val().get_bits::<3>(0)));
            self.below_end.next = self.a_lt[4].q.val() | (self.a_eq[4].q.val() & (self.two_i[i].val() < self.f_l4end.q.val().get_bits::<3>(0)));
            if !self.below.val() & self.below_end.val() {
                self.mask4.next = self.mask4.val() | self.hi_byte[i].val();
            }
            self.below_end.next = self.a_lt[4].q.val() | (self.a_eq[4].q.val() & (self.two_i[i].val() < (self.f_l4end.q.val().get_bits::<3>(0) & 6)));
            if !self.below.val() & self.below_end.val() {
                self.mask4.next = self.mask4.val() | self.lo_byte[i].val();
            }
        }
        // the frame ends before l4end: 8 * beat + len < l4end, with len at most 8 (below
        // l4end's beat less one it always holds; one below, unless a full beat meets an
        // l4end on a beat boundary; on l4end's beat, when len < l4end mod 8)
        self.short.next = (self.a_lt[4].q.val() & !self.a_eqm1.q.val())
            | (self.a_eqm1.q.val() & (bit_cast::<5, 4>(self.a_len.q.val()) < (bit_cast::<5, 3>(self.f_l4end.q.val().get_bits::<3>(0)) + 8)))
            | (self.a_eq[4].q.val() & (self.a_len.q.val() < bit_cast::<4, 3>(self.f_l4end.q.val().get_bits::<3>(0))));
        if self.en.val() {
            self.b_valid.d.next = self.a_valid.q.val();
            self.b_first.d.next = self.a_first.q.val();
            self.b_m3.d.next = self.a_data.q.val() & self.mask3.val();
            self.b_m4.d.next = self.a_data.q.val() & self.mask4.val();
            self.b_p.d.next = 0.into();
            if self.a_first.q.val() {
                self.b_p.d.next = self.f_pconst.q.val();
            }
            // the length check rides on the last beat: no verdicts for a frame shorter than its IP packet
            self.b_flags.d.next = self.f_flags.q.val();
            if self.short.val() {
                self.b_flags.d.next = self.f_flags.q.val() & 12;
            }
            self.b_data.d.next = self.a_data.q.val();
            self.b_len.d.next = self.a_len.q.val();
            self.b_last.d.next = self.a_last.q.val();
            self.b_status.d.next = self.a_status.q.val();
        }
        // ---- B -> C: word sums ----
        self.w3[0].next = (bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(0)) << 8) | bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(8));
        self.w4[0].next = (bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(0)) << 8) | bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(8));
        self.w3[1].next = (bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(16)) << 8) | bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(24));
        self.w4[1].next = (bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(16)) << 8) | bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(24));
        self.w3[2].next = (bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(32)) << 8) | bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(40));
        self.w4[2].next = (bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(32)) << 8) | bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(40));
        self.w3[3].next = (bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(48)) << 8) | bit_cast::<32, 8>(self.b_m3.q.val().get_bits::<8>(56));
        self.w4[3].next = (bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(48)) << 8) | bit_cast::<32, 8>(self.b_m4.q.val().get_bits::<8>(56));
        if self.en.val() {
            self.c_valid.d.next = self.b_valid.q.val();
            self.c_first.d.next = self.b_first.q.val();
            self.c_s3.d.next = (self.w3[0].val() + self.w3[1].val()) + (self.w3[2].val() + self.w3[3].val());
            self.c_s4.d.next = (self.w4[0].val() + self.w4[1].val()) + (self.w4[2].val() + self.w4[3].val()) + bit_cast::<32, 17>(self.b_p.q.val());
            self.c_flags.d.next = self.b_flags.q.val();
            self.c_data.d.next = self.b_data.q.val();
            self.c_len.d.next = self.b_len.q.val();
            self.c_last.d.next = self.b_last.q.val();
            self.c_status.d.next = self.b_status.q.val();
        }
        // ---- C -> D: accumulate ----
        if self.en.val() {
            self.d_valid.d.next = self.c_valid.q.val();
            if self.c_valid.q.val() {
                if self.c_first.q.val() {
                    self.d_acc3.d.next = self.c_s3.q.val();
                    self.d_acc4.d.next = self.c_s4.q.val();
                } else {
                    self.d_acc3.d.next = self.d_acc3.q.val() + self.c_s3.q.val();
                    self.d_acc4.d.next = self.d_acc4.q.val() + self.c_s4.q.val();
                }
            }
            self.d_flags.d.next = self.c_flags.q.val();
            self.d_data.d.next = self.c_data.q.val();
            self.d_len.d.next = self.c_len.q.val();
            self.d_last.d.next = self.c_last.q.val();
            self.d_status.d.next = self.c_status.q.val();
        }
        // ---- D -> E: first fold ----
        if self.en.val() {
            self.e_valid.d.next = self.d_valid.q.val();
            self.e_x3.d.next = bit_cast::<17, 16>(self.d_acc3.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.d_acc3.q.val().get_bits::<16>(16));
            self.e_x4.d.next = bit_cast::<17, 16>(self.d_acc4.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.d_acc4.q.val().get_bits::<16>(16));
            self.e_flags.d.next = self.d_flags.q.val();
            self.e_data.d.next = self.d_data.q.val();
            self.e_len.d.next = self.d_len.q.val();
            self.e_last.d.next = self.d_last.q.val();
            self.e_status.d.next = self.d_status.q.val();
        }
        // ---- E -> F: second fold, verdicts ----
        self.y3.next = bit_cast::<17, 16>(self.e_x3.q.val().get_bits::<16>(0)) + bit_cast::<17, 1>(self.e_x3.q.val().get_bits::<1>(16));
        self.y4.next = bit_cast::<17, 16>(self.e_x4.q.val().get_bits::<16>(0)) + bit_cast::<17, 1>(self.e_x4.q.val().get_bits::<1>(16));
        if self.en.val() {
            self.o_valid.d.next = self.e_valid.q.val();
            self.o_data.d.next = self.e_data.q.val();
            self.o_len.d.next = self.e_len.q.val();
            self.o_last.d.next = self.e_last.q.val();
            self.o_status.d.next = self.e_status.q.val();
            self.o_l3.d.next = 0.into();
            self.o_l4.d.next = 0.into();
            if self.e_last.q.val() {
                if self.e_flags.q.val().get_bit(0) {
                    if self.y3.val() == 0xffff {
                        self.o_l3.d.next = 1.into();
                    } else {
                        self.o_l3.d.next = 2.into();
                    }
                }
                if self.e_flags.q.val().get_bit(1) {
                    if self.e_flags.q.val().get_bit(2) {
                        // UDP without checksum: none sent over IPv4, forbidden over IPv6
                        if self.e_flags.q.val().get_bit(3) {
                            self.o_l4.d.next = 2.into();
                        }
                    } else if self.y4.val() == 0xffff {
                        self.o_l4.d.next = 1.into();
                    } else {
                        self.o_l4.d.next = 2.into();
                    }
                }
            }
        }
        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_len.next = self.o_len.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_status.next = self.o_status.q.val();
        self.out_l3.next = self.o_l3.q.val();
        self.out_l4.next = self.o_l4.q.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.d_valid.d.next = false;
            self.e_valid.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
