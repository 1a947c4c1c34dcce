//! Header field patcher (combinational): what one output beat of a frame or TSO segment
//! gets rewritten, as a byte mask `m` and the new bytes `v` (out = data & !m | v).
//!
//! Five fields, each `f_w` bytes (0 = off, 1 to 4) at byte offset `f_pos` of the frame,
//! value `f_val` sent big-endian (its most significant byte first, at `f_pos`). A field
//! may straddle two beats: beat `f_pos / 8` takes its bytes from lane `f_pos % 8` up,
//! and the next beat those that spilled past lane 7. Later fields win where fields
//! overlap (the generic checksum, field 4, is stored after the IPv4 header checksum, as
//! the spec orders them).
//!
//! Each field's bytes are laid out once, in sending order from lane 0 and then moved up
//! to their lane (`lo_*`, and `hi_*` for the spill), from the field's registers alone;
//! the beat only picks which of the two applies. (Until 2026-12-02 each of the 8 lanes
//! worked out its own field byte from the beat, 40 lane decisions a cycle: about 500 of
//! the simulator's instructions per cycle of `full`, issue 21.)

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct TxPatch {
    pub beat: Signal<In, Bits<14>>,
    pub f_pos: [Signal<In, Bits<16>>; 5],
    pub f_w: [Signal<In, Bits<3>>; 5],
    pub f_val: [Signal<In, Bits<32>>; 5],
    pub v: Signal<Out, Bits<64>>,
    pub m: Signal<Out, Bits<64>>,
    /// The field's inputs (hdl_gen loses a loop index inside a cast: copied first).
    fp: Signal<Local, Bits<16>>,
    fw: Signal<Local, Bits<3>>,
    fv: Signal<Local, Bits<32>>,
    /// The field's first beat.
    fb: Signal<Local, Bits<14>>,
    /// 8 x its first lane: how far its bytes move up.
    up: Signal<Local, Bits<7>>,
    /// Its value moved to the top of 32 bits (the first byte sent in bits 31:24).
    aligned: Signal<Local, Bits<32>>,
    /// Its bytes in sending order from lane 0, and their lanes.
    bytes: Signal<Local, Bits<32>>,
    mask: Signal<Local, Bits<32>>,
    /// In the first beat, and spilled into the next.
    lo_v: Signal<Local, Bits<64>>,
    lo_m: Signal<Local, Bits<64>>,
    hi_v: Signal<Local, Bits<64>>,
    hi_m: Signal<Local, Bits<64>>,
    /// 64 - `up`: a byte at lane 8 or above of the moved field is at lane 0 of the next beat.
    spill: Signal<Local, Bits<7>>,
    sixty_four: Constant<Bits<7>>,
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
            fp: Default::default(),
            fw: Default::default(),
            fv: Default::default(),
            fb: Default::default(),
            up: Default::default(),
            aligned: Default::default(),
            bytes: Default::default(),
            mask: Default::default(),
            lo_v: Default::default(),
            lo_m: Default::default(),
            hi_v: Default::default(),
            hi_m: Default::default(),
            spill: Default::default(),
            sixty_four: Constant::new(64.into()),
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
            self.up.next = bit_cast::<7, 3>(self.fp.val().get_bits::<3>(0)) << 3;
            // the field's w bytes, first sent at lane 0
            self.aligned.next = self.fv.val();
            self.mask.next = 0.into();
            if self.fw.val() == 1 {
                self.aligned.next = self.fv.val() << 24;
                self.mask.next = 0xff.into();
            }
            if self.fw.val() == 2 {
                self.aligned.next = self.fv.val() << 16;
                self.mask.next = 0xffff.into();
            }
            if self.fw.val() == 3 {
                self.aligned.next = self.fv.val() << 8;
                self.mask.next = 0xff_ffff.into();
            }
            if self.fw.val() == 4 {
                self.mask.next = 0xffff_ffff_u64.into();
            }
            self.bytes.next = bit_cast::<32, 8>(self.aligned.val().get_bits::<8>(24))
                | (bit_cast::<32, 8>(self.aligned.val().get_bits::<8>(16)) << 8)
                | (bit_cast::<32, 8>(self.aligned.val().get_bits::<8>(8)) << 16)
                | (bit_cast::<32, 8>(self.aligned.val().get_bits::<8>(0)) << 24);
            self.bytes.next = self.bytes.val() & self.mask.val();
            // moved up to the field's lane; what passes lane 7 goes to the next beat
            self.lo_v.next = bit_cast::<64, 32>(self.bytes.val()) << self.up.val();
            self.lo_m.next = bit_cast::<64, 32>(self.mask.val()) << self.up.val();
            self.spill.next = self.sixty_four.val() - self.up.val();
            self.hi_v.next = bit_cast::<64, 32>(self.bytes.val() >> self.spill.val());
            self.hi_m.next = bit_cast::<64, 32>(self.mask.val() >> self.spill.val());
            if self.beat.val() == self.fb.val() {
                self.v.next = (self.v.val() & !self.lo_m.val()) | self.lo_v.val();
                self.m.next = self.m.val() | self.lo_m.val();
            }
            if self.beat.val() == self.fb.val() + 1 {
                self.v.next = (self.v.val() & !self.hi_m.val()) | self.hi_v.val();
                self.m.next = self.m.val() | self.hi_m.val();
            }
        }
    }
}
