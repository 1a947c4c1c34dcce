//! Byte packer: joins the fragments of a scatter-gather frame into full beats.
//!
//! Input beats carry 1..8 valid bytes from lane 0; any beat may be short (the end of a
//! descriptor's buffer), `s_end` marks the frame's last. Output beats are full except
//! the frame's last. Up to 7 bytes wait in a residue register; when the frame's last
//! input overflows the output beat, one flush cycle follows (input held).
//!
//! The input beat is rotated once by the residue's length (three constant byte rotations,
//! one per bit of it): its lanes from there on complete the output beat, the lanes below
//! are what spills into the next. The residue's lanes at and above its length hold
//! whatever spilled there (they are masked where it is used), so no lane is ever cleared.
//! One rotator instead of a left and a right shifter by a
//! computed amount (`64 - 8 * len` is not known to yosys to be a multiple of 8, so it
//! built that shifter seven stages deep).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BytePacker {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_end: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    res_data: DFF<Bits<64>>,
    res_len: DFF<Bits<4>>,
    flush: DFF<Bit>,
    flush_user: DFF<Bit>,
    masked: Signal<Local, Bits<64>>,
    /// `masked` rotated left by 1, 1..2, 1..4 bytes as bits 0, 1, 2 of `res_len` say.
    rot1: Signal<Local, Bits<64>>,
    rot2: Signal<Local, Bits<64>>,
    rot: Signal<Local, Bits<64>>,
    /// The lanes at and above the residue's length.
    upper_lanes: Signal<Local, Bits<64>>,
    low: Signal<Local, Bits<64>>,
    high: Signal<Local, Bits<64>>,
    total: Signal<Local, Bits<5>>,
    ones64: Constant<Bits<64>>,
}

impl Default for BytePacker {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_end: Default::default(),
            s_user: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            res_data: Default::default(),
            res_len: Default::default(),
            flush: Default::default(),
            flush_user: Default::default(),
            masked: Default::default(),
            rot1: Default::default(),
            rot2: Default::default(),
            rot: Default::default(),
            upper_lanes: Default::default(),
            low: Default::default(),
            high: Default::default(),
            total: Default::default(),
            ones64: Constant::new(Bits::<64>::from(u64::MAX)),
        }
    }
}

impl Logic for BytePacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, res_data, res_len, flush, flush_user);
        // input bytes placed after the residue; `high` is what spills into the next beat
        // (`res_len` < 8; the residue's lanes at and above it are stale)
        self.masked.next = self.s_data.val() & !(self.ones64.val() << (bit_cast::<7, 4>(self.s_len.val()) << 3));
        self.rot1.next = self.masked.val();
        if self.res_len.q.val().get_bit(0) {
            self.rot1.next = (self.masked.val() << 8) | (self.masked.val() >> 56);
        }
        self.rot2.next = self.rot1.val();
        if self.res_len.q.val().get_bit(1) {
            self.rot2.next = (self.rot1.val() << 16) | (self.rot1.val() >> 48);
        }
        self.rot.next = self.rot2.val();
        if self.res_len.q.val().get_bit(2) {
            self.rot.next = (self.rot2.val() << 32) | (self.rot2.val() >> 32);
        }
        self.upper_lanes.next = self.ones64.val() << (bit_cast::<7, 4>(self.res_len.q.val()) << 3);
        self.low.next = (self.res_data.q.val() & !self.upper_lanes.val()) | (self.rot.val() & self.upper_lanes.val());
        self.high.next = self.rot.val();
        self.total.next = bit_cast::<5, 4>(self.res_len.q.val()) + bit_cast::<5, 4>(self.s_len.val());
        self.m_data.next = self.low.val();
        self.m_len.next = 8.into();
        self.m_last.next = false;
        self.m_user.next = false;
        self.m_valid.next = false;
        self.s_ready.next = false;
        if self.flush.q.val() {
            // the frame's tail that did not fit in its last full beat
            self.m_data.next = self.res_data.q.val() & !self.upper_lanes.val();
            self.m_len.next = self.res_len.q.val();
            self.m_last.next = true;
            self.m_user.next = self.flush_user.q.val();
            self.m_valid.next = true;
            if self.m_ready.val() {
                self.flush.d.next = false;
                self.res_len.d.next = 0.into();
            }
        } else if self.s_valid.val() {
            if self.s_end.val() {
                self.m_valid.next = true;
                self.s_ready.next = self.m_ready.val();
                if self.total.val() <= 8 {
                    self.m_len.next = bit_cast::<4, 5>(self.total.val());
                    self.m_last.next = true;
                    self.m_user.next = self.s_user.val();
                    if self.m_ready.val() {
                        self.res_len.d.next = 0.into();
                    }
                } else if self.m_ready.val() {
                    self.flush.d.next = true;
                    self.flush_user.d.next = self.s_user.val();
                    self.res_len.d.next = bit_cast::<4, 5>(self.total.val() - 8);
                    self.res_data.d.next = self.high.val();
                }
            } else if self.total.val() >= 8 {
                self.m_valid.next = true;
                self.s_ready.next = self.m_ready.val();
                if self.m_ready.val() {
                    self.res_len.d.next = bit_cast::<4, 5>(self.total.val() - 8);
                    self.res_data.d.next = self.high.val();
                }
            } else {
                // not a full beat yet: absorb into the residue
                self.s_ready.next = true;
                self.res_len.d.next = bit_cast::<4, 5>(self.total.val());
                self.res_data.d.next = self.low.val();
            }
        }
        if self.reset.val() {
            self.res_len.d.next = 0.into();
            self.flush.d.next = false;
        }
    }
}
