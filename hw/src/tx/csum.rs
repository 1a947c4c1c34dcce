//! TX checksum accumulation (docs/tx-offload.md) over a frame as it streams.
//!
//! One instance sums one byte region of a frame (or of a TSO segment image):
//! `[start, stop)` minus up to three excluded fields (`x_pos`, `x_len` bytes, 0..4; a
//! checksum field taken as 0, TSO fields rewritten per segment). Beats arrive with their
//! beat index in the frame (`in_beat`, byte offset / 8) and valid byte count `in_len`;
//! the region and exclusions must be valid with every beat. Positions are absolute, so
//! any start works: bytes are summed as little-endian 16-bit lanes of the beat, i.e. as
//! big-endian words aligned to even frame offsets byte-swapped; the one's complement sum
//! commutes with a byte swap, so the final swap is skipped for an odd `start` and the
//! result is the sum of big-endian words aligned to `start` (an odd last byte padded with
//! zero), as RFC 1071 sums it.
//!
//! Pipeline (all stages registered, one beat per cycle, no stall):
//! A byte mask (beat/lane compares) and masked data; B two 17-bit pair sums; C the
//! beat's 18-bit sum; D a 19-bit accumulator with end-around carry (short carry chain);
//! E, F the two folds and the swap. `out_valid` pulses six cycles after the `in_close`
//! beat with the folded, uninverted sum, held until the next close.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct TxCsum {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    /// First beat of a sum (the accumulator restarts).
    pub in_first: Signal<In, Bit>,
    /// Last beat of a sum (may carry no bytes).
    pub in_close: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<64>>,
    pub in_beat: Signal<In, Bits<14>>,
    /// Valid lanes 0..in_len (0..8).
    pub in_len: Signal<In, Bits<4>>,
    pub start: Signal<In, Bits<16>>,
    pub stop: Signal<In, Bits<17>>,
    pub x_pos: [Signal<In, Bits<16>>; 3],
    pub x_len: [Signal<In, Bits<3>>; 3],
    pub out_valid: Signal<Out, Bit>,
    pub out_sum: Signal<Out, Bits<16>>,
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    a_close: DFF<Bit>,
    a_odd: DFF<Bit>,
    a_data: DFF<Bits<64>>,
    b_valid: DFF<Bit>,
    b_first: DFF<Bit>,
    b_close: DFF<Bit>,
    b_odd: DFF<Bit>,
    b_p0: DFF<Bits<17>>,
    b_p1: DFF<Bits<17>>,
    c_valid: DFF<Bit>,
    c_first: DFF<Bit>,
    c_close: DFF<Bit>,
    c_odd: DFF<Bit>,
    c_s: DFF<Bits<19>>,
    d_close: DFF<Bit>,
    d_odd: DFF<Bit>,
    acc: DFF<Bits<19>>,
    e_close: DFF<Bit>,
    e_odd: DFF<Bit>,
    e_x: DFF<Bits<17>>,
    o_valid: DFF<Bit>,
    o_sum: DFF<Bits<16>>,
    sb: Signal<Local, Bits<14>>,
    eb: Signal<Local, Bits<14>>,
    xb: Signal<Local, Bits<14>>,
    xp: Signal<Local, Bits<16>>,
    xl: Signal<Local, Bits<3>>,
    xpat: Signal<Local, Bits<16>>,
    m_start: Signal<Local, Bits<8>>,
    m_end: Signal<Local, Bits<8>>,
    m_len: Signal<Local, Bits<8>>,
    m_x: Signal<Local, Bits<8>>,
    mask: Signal<Local, Bits<8>>,
    mask64: Signal<Local, Bits<64>>,
    y: Signal<Local, Bits<16>>,
    ones8: Constant<Bits<8>>,
    ones4: Constant<Bits<16>>,
    lane_byte: [Constant<Bits<64>>; 8],
}

impl Default for TxCsum {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_first: Default::default(),
            in_close: Default::default(),
            in_data: Default::default(),
            in_beat: Default::default(),
            in_len: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            x_pos: Default::default(),
            x_len: Default::default(),
            out_valid: Default::default(),
            out_sum: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_close: Default::default(),
            a_odd: Default::default(),
            a_data: Default::default(),
            b_valid: Default::default(),
            b_first: Default::default(),
            b_close: Default::default(),
            b_odd: Default::default(),
            b_p0: Default::default(),
            b_p1: Default::default(),
            c_valid: Default::default(),
            c_first: Default::default(),
            c_close: Default::default(),
            c_odd: Default::default(),
            c_s: Default::default(),
            d_close: Default::default(),
            d_odd: Default::default(),
            acc: Default::default(),
            e_close: Default::default(),
            e_odd: Default::default(),
            e_x: Default::default(),
            o_valid: Default::default(),
            o_sum: Default::default(),
            sb: Default::default(),
            eb: Default::default(),
            xb: Default::default(),
            xp: Default::default(),
            xl: Default::default(),
            xpat: Default::default(),
            m_start: Default::default(),
            m_end: Default::default(),
            m_len: Default::default(),
            m_x: Default::default(),
            mask: Default::default(),
            mask64: Default::default(),
            y: Default::default(),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            ones4: Constant::new(Bits::<16>::from(0xfu64)),
            lane_byte: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xffu64 << (8 * i)))),
        }
    }
}

impl Logic for TxCsum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_valid, a_first, a_close, a_odd, a_data, b_valid, b_first, b_close, b_odd, b_p0, b_p1,
            c_valid, c_first, c_close, c_odd, c_s, d_close, d_odd, acc, e_close, e_odd, e_x, o_valid, o_sum);
        // ---- A: byte mask of the beat ----
        self.sb.next = bit_cast::<14, 16>(self.start.val() >> 3);
        self.eb.next = bit_cast::<14, 17>(self.stop.val() >> 3);
        self.m_start.next = 0.into();
        if self.in_beat.val() > self.sb.val() {
            self.m_start.next = self.ones8.val();
        } else if self.in_beat.val() == self.sb.val() {
            self.m_start.next = self.ones8.val() << self.start.val().get_bits::<3>(0);
        }
        self.m_end.next = 0.into();
        if self.in_beat.val() < self.eb.val() {
            self.m_end.next = self.ones8.val();
        } else if self.in_beat.val() == self.eb.val() {
            self.m_end.next = !(self.ones8.val() << self.stop.val().get_bits::<3>(0));
        }
        self.m_len.next = !(self.ones8.val() << self.in_len.val());
        self.m_x.next = 0.into();
        for k in 0..3 {
            self.xp.next = self.x_pos[k].val();
            self.xl.next = self.x_len[k].val();
            self.xb.next = bit_cast::<14, 16>(self.xp.val() >> 3);
            self.xpat.next = (!(self.ones4.val() << self.xl.val()) & self.ones4.val()) << self.xp.val().get_bits::<3>(0);
            if self.in_beat.val() == self.xb.val() {
                self.m_x.next = self.m_x.val() | self.xpat.val().get_bits::<8>(0);
            }
            if self.in_beat.val() == self.xb.val() + 1 {
                self.m_x.next = self.m_x.val() | self.xpat.val().get_bits::<8>(8);
            }
        }
        self.mask.next = self.m_start.val() & self.m_end.val() & self.m_len.val() & !self.m_x.val();
        self.mask64.next = 0.into();
        for i in 0..8 {
            if self.mask.val().get_bit(i) {
                self.mask64.next = self.mask64.val() | self.lane_byte[i].val();
            }
        }
        self.a_valid.d.next = self.in_valid.val();
        self.a_first.d.next = self.in_first.val();
        self.a_close.d.next = self.in_close.val();
        self.a_odd.d.next = self.start.val().get_bit(0);
        self.a_data.d.next = self.in_data.val() & self.mask64.val();
        // ---- B: pair sums of the four little-endian lanes ----
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_first.d.next = self.a_first.q.val();
        self.b_close.d.next = self.a_close.q.val();
        self.b_odd.d.next = self.a_odd.q.val();
        self.b_p0.d.next = bit_cast::<17, 16>(self.a_data.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.a_data.q.val().get_bits::<16>(16));
        self.b_p1.d.next = bit_cast::<17, 16>(self.a_data.q.val().get_bits::<16>(32)) + bit_cast::<17, 16>(self.a_data.q.val().get_bits::<16>(48));
        // ---- C: the beat's sum ----
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_first.d.next = self.b_first.q.val();
        self.c_close.d.next = self.b_close.q.val();
        self.c_odd.d.next = self.b_odd.q.val();
        self.c_s.d.next = bit_cast::<19, 17>(self.b_p0.q.val()) + bit_cast::<19, 17>(self.b_p1.q.val());
        // ---- D: accumulate with end-around carry (stays below 2^19) ----
        self.d_close.d.next = self.c_valid.q.val() & self.c_close.q.val();
        if self.c_valid.q.val() & self.c_close.q.val() {
            self.d_odd.d.next = self.c_odd.q.val();
        }
        if self.c_valid.q.val() {
            if self.c_first.q.val() {
                self.acc.d.next = self.c_s.q.val();
            } else {
                self.acc.d.next = bit_cast::<19, 16>(self.acc.q.val().get_bits::<16>(0))
                    + bit_cast::<19, 3>(self.acc.q.val().get_bits::<3>(16))
                    + self.c_s.q.val();
            }
        }
        // ---- E, F: folds ----
        self.e_close.d.next = self.d_close.q.val();
        self.e_odd.d.next = self.d_odd.q.val();
        if self.d_close.q.val() {
            self.e_x.d.next = bit_cast::<17, 16>(self.acc.q.val().get_bits::<16>(0)) + bit_cast::<17, 3>(self.acc.q.val().get_bits::<3>(16));
        }
        self.y.next = self.e_x.q.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.e_x.q.val().get_bits::<1>(16));
        self.o_valid.d.next = self.e_close.q.val();
        if self.e_close.q.val() {
            if self.e_odd.q.val() {
                self.o_sum.d.next = self.y.val();
            } else {
                self.o_sum.d.next = (self.y.val() << 8) | (self.y.val() >> 8);
            }
        }
        self.out_valid.next = self.o_valid.q.val();
        self.out_sum.next = self.o_sum.q.val();
        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.d_close.d.next = false;
            self.e_close.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
