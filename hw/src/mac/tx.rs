//! MAC TX: appends the FCS to every frame.
//!
//! Input beats carry a byte count (`s_len`, 1..8; only the last beat of a frame may be
//! short; lanes past the count are ignored). The FCS goes right after the last data byte;
//! when it does not fit in the last beat (more than 4 data bytes there) one extra beat
//! follows and the input is held for that cycle. A frame marked `s_user` (aborted
//! upstream: a DMA fault mid-frame) leaves with an inverted FCS and `tuser` set, so no
//! receiver accepts it — what MACs do on underrun.
//!
//! Frames shorter than 60 bytes are padded with zeros to 60 before the FCS, as IEEE 802.3
//! requires and NICs do for the stack (an ARP request leaves as 64 bytes on the wire):
//! the short last beat is filled to 8 bytes and zero beats follow, or, when it starts at
//! byte 56, it is filled to 4 bytes and the FCS follows in the same beat.
//!
//! Every beat to the wire is built the same way, lane by lane: the input's data lanes
//! (none while padding) OR the FCS lanes. The FCS lands at any lane: it is rotated once,
//! by the last beat's length modulo 4 (0 for a padded frame, whose FCS is at lanes 4..7),
//! and repeated in both halves of a beat, so that every lane holds the FCS byte it would
//! carry in that beat or in the extra one; a lane mask picks them. (A rotation of 32 bits
//! by 0..3 bytes and two masks instead of 64-bit shifters and a mux per case.)
//!
//! With a half-rate CRC (`MacTx::with_half_rate_crc(true)`, `Config::half_rate_crc`) the
//! CRC takes 4 bytes a cycle, and a beat's last 1..3 bytes one a cycle: a beat (the
//! padding's too) waits at the input, not offered to the wire, until its last chunk goes
//! in, and leaves in that cycle: a full beat takes 2 cycles, a frame's last of k bytes
//! k / 4 + k % 4 (at least 1).

use super::crc::{Crc32x64, CrcHalfRateFeed};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MacTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // frame stream from the TX path
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    // wire stream (AXI4-Stream)
    pub m_data: Signal<Out, Bits<64>>,
    pub m_keep: Signal<Out, Bits<8>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    // statistics: one pulse per frame handed to the wire, with its length (no FCS)
    pub stat_frame: Signal<Out, Bit>,
    pub stat_aborted: Signal<Out, Bit>,
    pub stat_bytes: Signal<Out, Bits<16>>,
    crc_unit: Crc32x64,
    crc: DFF<Bits<32>>,
    byte_count: DFF<Bits<16>>,
    extra_pending: DFF<Bit>,
    extra_data: DFF<Bits<64>>,
    extra_keep: DFF<Bits<8>>,
    extra_user: DFF<Bit>,
    /// Emitting the zero padding of a short frame.
    pad_active: DFF<Bit>,
    /// Half rate: bytes of the current beat already in `crc`.
    tail_idx: DFF<Bits<4>>,
    /// The bytes the CRC takes from this beat, and how many (1..8).
    crc_data: Signal<Local, Bits<64>>,
    crc_need: Signal<Local, Bits<4>>,
    /// Half rate: the beat waits while its chunks go through the CRC, one per cycle.
    tail_wait: Signal<Local, Bit>,
    feed: CrcHalfRateFeed,
    half_rate: Constant<Bit>,
    short: Signal<Local, Bit>,
    short_in_beat: Signal<Local, Bit>,
    fcs: Signal<Local, Bits<64>>,
    /// The FCS rotated left by 1 and by 1..3 bytes as bits 0 and 1 of `fcs_lane` say.
    fcs_lane: Signal<Local, Bits<2>>,
    fcs_rot1: Signal<Local, Bits<32>>,
    fcs_rot: Signal<Local, Bits<32>>,
    /// `fcs_rot` in both halves: lane i holds FCS byte (i - fcs_lane) mod 4.
    fcs_rep: Signal<Local, Bits<64>>,
    /// The lanes of this beat that carry the FCS.
    fcs_mask: Signal<Local, Bits<64>>,
    lane_shift: Signal<Local, Bits<7>>,
    data_masked: Signal<Local, Bits<64>>,
    fire: Signal<Local, Bit>,
    ones64: Constant<Bits<64>>,
    ones8: Constant<Bits<8>>,
    ones32: Constant<Bits<32>>,
    upper_half: Constant<Bits<64>>,
    crc_init: Constant<Bits<32>>,
    min_data: Constant<Bits<16>>,
    last_pad_beat: Constant<Bits<16>>,
}

impl Default for MacTx {
    fn default() -> Self {
        Self::with_half_rate_crc(false)
    }
}

impl MacTx {
    /// `half`: a beat goes through the CRC 4 bytes a cycle and its last 1..3 bytes one a
    /// cycle (see the module doc); otherwise every beat takes one cycle.
    pub fn with_half_rate_crc(half: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_last: Default::default(),
            s_user: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            stat_frame: Default::default(),
            stat_aborted: Default::default(),
            stat_bytes: Default::default(),
            crc_unit: Crc32x64::with_half_rate(half),
            crc: Default::default(),
            byte_count: Default::default(),
            extra_pending: Default::default(),
            extra_data: Default::default(),
            extra_keep: Default::default(),
            extra_user: Default::default(),
            pad_active: Default::default(),
            tail_idx: Default::default(),
            crc_data: Default::default(),
            crc_need: Default::default(),
            tail_wait: Default::default(),
            feed: Default::default(),
            half_rate: Constant::new(half),
            short: Default::default(),
            short_in_beat: Default::default(),
            fcs: Default::default(),
            fcs_lane: Default::default(),
            fcs_rot1: Default::default(),
            fcs_rot: Default::default(),
            fcs_rep: Default::default(),
            fcs_mask: Default::default(),
            lane_shift: Default::default(),
            data_masked: Default::default(),
            fire: Default::default(),
            ones64: Constant::new(Bits::<64>::from(u64::MAX)),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            ones32: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
            upper_half: Constant::new(Bits::<64>::from(0xffff_ffff_0000_0000u64)),
            crc_init: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
            min_data: Constant::new(Bits::<16>::from(60u64)),
            last_pad_beat: Constant::new(Bits::<16>::from(56u64)),
        }
    }
}

impl Logic for MacTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc, byte_count, extra_pending, extra_data, extra_keep, extra_user, pad_active, tail_idx);
        self.lane_shift.next = bit_cast::<7, 4>(self.s_len.val()) << 3;
        // the input's lanes below s_len; none while padding (the input waits)
        self.data_masked.next = self.s_data.val() & !(self.ones64.val() << self.lane_shift.val());
        if self.pad_active.q.val() {
            self.data_masked.next = 0.into();
        }
        // a good frame ending before byte 60 gets padded
        self.short.next = self.s_last.val()
            & !self.s_user.val()
            & ((self.byte_count.q.val() + bit_cast::<16, 4>(self.s_len.val())) < self.min_data.val());
        self.short_in_beat.next = self.short.val() & (self.byte_count.q.val() == self.last_pad_beat.val());
        self.crc_data.next = self.data_masked.val();
        self.crc_need.next = self.s_len.val();
        if self.short.val() {
            self.crc_need.next = 8.into();
            if self.short_in_beat.val() {
                self.crc_need.next = 4.into();
            }
        }
        if self.pad_active.q.val() {
            self.crc_need.next = 8.into();
            if self.byte_count.q.val() == self.last_pad_beat.val() {
                self.crc_need.next = 4.into();
            }
        }
        self.crc_unit.crc_in.next = self.crc.q.val();
        self.crc_unit.data.next = self.crc_data.val();
        self.crc_unit.nbytes.next = self.crc_need.val();
        // half rate: 4 bytes a cycle, a beat's last 1..3 one a cycle; the beat leaves with
        // its last chunk
        self.feed.data.next = self.crc_data.val();
        self.feed.nbytes.next = self.crc_need.val();
        self.feed.done.next = self.tail_idx.q.val();
        self.tail_wait.next = false;
        if self.half_rate.val() & (self.crc_need.val() != 0) {
            self.crc_unit.data.next = self.feed.unit_data.val();
            self.crc_unit.nbytes.next = self.feed.unit_nbytes.val();
            if !self.feed.last.val() {
                self.tail_wait.next = self.pad_active.q.val() | (self.s_valid.val() & !self.extra_pending.q.val());
            }
        }
        // The FCS is the inverted register; an aborted frame gets it un-inverted (wrong).
        self.fcs.next = bit_cast::<64, 32>(!self.crc_unit.crc_out.val());
        if self.s_user.val() & !self.pad_active.q.val() {
            self.fcs.next = bit_cast::<64, 32>(self.crc_unit.crc_out.val());
        }
        // where the FCS goes: right after a last beat's data, or at lanes 4..7 of the beat
        // that ends a padded frame at byte 64
        self.fcs_lane.next = self.s_len.val().get_bits::<2>(0);
        self.fcs_mask.next = 0.into();
        if self.pad_active.q.val() {
            self.fcs_lane.next = 0.into();
            if self.byte_count.q.val() == self.last_pad_beat.val() {
                self.fcs_mask.next = self.upper_half.val();
            }
        } else if self.short.val() {
            self.fcs_lane.next = 0.into();
            if self.short_in_beat.val() {
                self.fcs_mask.next = self.upper_half.val();
            }
        } else if self.s_last.val() {
            // lanes s_len .. s_len + 3 (those below 8)
            self.fcs_mask.next = (self.ones64.val() << self.lane_shift.val()) & !(self.ones64.val() << (bit_cast::<7, 4>(self.s_len.val() + 4) << 3));
        }
        self.fcs_rot1.next = bit_cast::<32, 64>(self.fcs.val());
        if self.fcs_lane.val().get_bit(0) {
            self.fcs_rot1.next = (bit_cast::<32, 64>(self.fcs.val()) << 8) | (bit_cast::<32, 64>(self.fcs.val()) >> 24);
        }
        self.fcs_rot.next = self.fcs_rot1.val();
        if self.fcs_lane.val().get_bit(1) {
            self.fcs_rot.next = (self.fcs_rot1.val() << 16) | (self.fcs_rot1.val() >> 16);
        }
        self.fcs_rep.next = (bit_cast::<64, 32>(self.fcs_rot.val()) << 32) | bit_cast::<64, 32>(self.fcs_rot.val());
        self.stat_frame.next = false;
        self.stat_aborted.next = false;
        self.stat_bytes.next = self.byte_count.q.val() + bit_cast::<16, 4>(self.s_len.val());
        self.fire.next = false;
        self.m_data.next = self.data_masked.val() | (self.fcs_rep.val() & self.fcs_mask.val());
        if self.extra_pending.q.val() {
            // second beat of a frame whose FCS did not fit
            self.m_valid.next = true;
            self.m_data.next = self.extra_data.q.val();
            self.m_keep.next = self.extra_keep.q.val();
            self.m_last.next = true;
            self.m_user.next = self.extra_user.q.val();
            self.s_ready.next = false;
            if self.m_ready.val() {
                self.extra_pending.d.next = false;
            }
        } else if self.pad_active.q.val() {
            // zero padding; the beat starting at byte 56 carries 4 zeros and the FCS
            self.m_valid.next = !self.tail_wait.val();
            self.s_ready.next = false;
            self.m_keep.next = self.ones8.val();
            self.m_last.next = false;
            self.m_user.next = false;
            if self.byte_count.q.val() == self.last_pad_beat.val() {
                self.m_last.next = true;
            }
            if self.m_ready.val() & !self.tail_wait.val() {
                self.crc.d.next = self.crc_unit.crc_out.val();
                self.tail_idx.d.next = 0.into();
                self.byte_count.d.next = self.byte_count.q.val() + 8;
                if self.byte_count.q.val() == self.last_pad_beat.val() {
                    self.pad_active.d.next = false;
                    self.crc.d.next = self.crc_init.val();
                    self.byte_count.d.next = 0.into();
                }
            }
        } else {
            self.m_valid.next = self.s_valid.val() & !self.tail_wait.val();
            self.s_ready.next = self.m_ready.val() & !self.tail_wait.val();
            self.fire.next = self.s_valid.val() & self.m_ready.val() & !self.tail_wait.val();
            self.m_keep.next = self.ones8.val();
            self.m_last.next = false;
            self.m_user.next = false;
            if self.short.val() {
                self.m_last.next = self.short_in_beat.val();
            } else if self.s_last.val() {
                if self.s_len.val() <= 4 {
                    self.m_keep.next = !(self.ones8.val() << (self.s_len.val() + 4));
                    self.m_last.next = true;
                    self.m_user.next = self.s_user.val();
                } else if self.fire.val() {
                    self.extra_pending.d.next = true;
                    // lanes below s_len - 4 take the rest
                    self.extra_data.d.next = bit_cast::<64, 32>(self.fcs_rot.val() & !(self.ones32.val() << (bit_cast::<6, 4>(self.s_len.val() - 4) << 3)));
                    self.extra_keep.d.next = !(self.ones8.val() << (self.s_len.val() - 4));
                    self.extra_user.d.next = self.s_user.val();
                }
            }
        }
        if self.tail_wait.val() {
            self.crc.d.next = self.crc_unit.crc_out.val();
            self.tail_idx.d.next = self.tail_idx.q.val() + self.feed.step.val();
        }
        if self.fire.val() {
            self.crc.d.next = self.crc_unit.crc_out.val();
            self.tail_idx.d.next = 0.into();
            self.byte_count.d.next = self.byte_count.q.val() + bit_cast::<16, 4>(self.s_len.val());
            if self.s_last.val() {
                self.crc.d.next = self.crc_init.val();
                self.byte_count.d.next = 0.into();
                self.stat_frame.next = !self.s_user.val();
                self.stat_aborted.next = self.s_user.val();
            }
            if self.short.val() & !self.short_in_beat.val() {
                // the padded beat counts 8 bytes; zero beats follow
                self.crc.d.next = self.crc_unit.crc_out.val();
                self.byte_count.d.next = self.byte_count.q.val() + 8;
                self.pad_active.d.next = true;
            }
        }
        if self.reset.val() {
            self.crc.d.next = self.crc_init.val();
            self.byte_count.d.next = 0.into();
            self.extra_pending.d.next = false;
            self.pad_active.d.next = false;
            self.tail_idx.d.next = 0.into();
        }
    }
}
