//! Header field patcher (combinational): what one output beat of a frame or TSO segment
//! gets rewritten, as a byte mask `m` and the new bytes `v` (out = data & !m | v).
//!
//! Five fields, each `f_w` bytes (0 = off, 1, 2 or 4) at byte offset `f_pos` of the frame,
//! value `f_val` sent big-endian (its most significant byte first, at `f_pos`). A field
//! may straddle two beats: with `d` = offset of lane `i` of beat `beat` from `f_pos`,
//! the lane carries field byte `d` when `0 <= d < f_w` (4-bit arithmetic, so lanes before
//! the field wrap to 9..15). Later fields win where fields overlap (the generic checksum,
//! field 4, is stored after the IPv4 header checksum, as the spec orders them).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct TxPatch {
    pub beat: Signal<In, Bits<14>>,
    pub f_pos: [Signal<In, Bits<16>>; 5],
    pub f_w: [Signal<In, Bits<3>>; 5],
    pub f_val: [Signal<In, Bits<32>>; 5],
    pub v: Signal<Out, Bits<64>>,
    pub m: Signal<Out, Bits<64>>,
    fb: Signal<Local, Bits<14>>,
    fp: Signal<Local, Bits<16>>,
    fw: Signal<Local, Bits<3>>,
    fv: Signal<Local, Bits<32>>,
    base: Signal<Local, Bits<4>>,
    hit: Signal<Local, Bit>,
    d: Signal<Local, Bits<4>>,
    w4: Signal<Local, Bits<4>>,
    bval: Signal<Local, Bits<64>>,
    shifted: Signal<Local, Bits<8>>,
    lane_i: [Constant<Bits<4>>; 8],
    lane_mask: [Constant<Bits<64>>; 8],
    lane_shift: [Constant<Bits<7>>; 8],
}

impl Default for TxPatch {
    fn default() -> Self {
        Self {
            beat: Default::default(),
            f_pos: Default::default(),
            f_w: Default::default(),
            f_val: Default::default(),
            v: Default::default(),
            m: Default::default(),
            fb: Default::default(),
            fp: Default::default(),
            fw: Default::default(),
            fv: Default::default(),
            base: Default::default(),
            hit: Default::default(),
            d: Default::default(),
            w4: Default::default(),
            bval: Default::default(),
            shifted: Default::default(),
            lane_i: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64))),
            lane_mask: std::array::from_fn(|i| Constant::new(Bits::<64>::from(0xffu64 << (8 * i)))),
            lane_shift: std::array::from_fn(|i| Constant::new(Bits::<7>::from(8 * i as u64))),
        }
    }
}

impl Logic for TxPatch {
    #[hdl_gen]
    fn update(&mut self) {
        self.v.next = 0.into();
        self.m.next = 0.into();
        for f in 0..5 {
            self.fp.next = self.f_pos[f].val();
            self.fw.next = self.f_w[f].val();
            self.fv.next = self.f_val[f].val();
            self.fb.next = bit_cast::<14, 16>(self.fp.val() >> 3);
            self.w4.next = bit_cast::<4, 3>(self.fw.val());
            self.hit.next = false;
            self.base.next = 0.into();
            if self.beat.val() == self.fb.val() {
                self.hit.next = true;
                self.base.next = 0.into();
                self.base.next = self.base.val() - bit_cast::<4, 3>(self.fp.val().get_bits::<3>(0));
            }
            if self.beat.val() == self.fb.val() + 1 {
                self.hit.next = true;
                self.base.next = 8.into();
                self.base.next = self.base.val() - bit_cast::<4, 3>(self.fp.val().get_bits::<3>(0));
            }
            for i in 0..8 {
                self.d.next = self.base.val() + self.lane_i[i].val();
                // field byte d of a w-byte big-endian value: bits 8(w-1-d)+7 .. 8(w-1-d)
                self.shifted.next = bit_cast::<8, 32>(self.fv.val() >> (bit_cast::<6, 4>(self.w4.val() - 1 - self.d.val()) << 3));
                self.bval.next = bit_cast::<64, 8>(self.shifted.val()) << self.lane_shift[i].val();
                if self.hit.val() & (self.d.val() < self.w4.val()) {
                    self.v.next = (self.v.val() & !self.lane_mask[i].val()) | self.bval.val();
                    self.m.next = self.m.val() | self.lane_mask[i].val();
                }
            }
        }
    }
}
