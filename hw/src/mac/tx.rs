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
//! The block is three parts: the front pads the frame (the beats the CRC and the wire
//! see, each with its byte count and whether the FCS follows it), the CRC, and the back
//! puts the FCS in. At 8 bytes a cycle (`full`) the front's beats go through a pipelined
//! CRC (`Crc32Pipe`, [`PIPE_LATENCY`] stages that stop together when the back cannot move)
//! and the back takes each beat with its frame's CRC from the pipe's output: no path
//! goes through a CRC network to the wire, for 5 cycles of latency.
//!
//! With a half-rate CRC (`MacTx::with_half_rate_crc(true)`, `Config::half_rate_crc`) the
//! CRC takes 4 bytes a cycle, and a beat's last 1..3 bytes one a cycle: a beat (the
//! padding's too) waits at the input, not offered to the wire, until its last chunk goes
//! in, and leaves in that cycle: a full beat takes 2 cycles, a frame's last of k bytes
//! k / 4 + k % 4 (at least 1).

use super::crc::{Crc32x64, CrcHalfRateFeed};
use super::crc_pipe::{Crc32Pipe, LATENCY};
use rust_hdl::prelude::*;

/// Cycles the pipelined CRC adds between the front and the back (8 bytes a cycle).
pub const PIPE_LATENCY: u64 = LATENCY;

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
    // statistics: one pulse per frame taken from the TX path, with its length (no FCS)
    pub stat_frame: Signal<Out, Bit>,
    pub stat_aborted: Signal<Out, Bit>,
    pub stat_bytes: Signal<Out, Bits<16>>,
    // ---- front: padding ----
    /// Frame bytes taken so far (for the statistics).
    byte_count: DFF<Bits<16>>,
    /// Beats of the frame taken so far, up to 8: a frame is short (to be padded) when it
    /// ends in beat 0..6, or in beat 7 with fewer than 4 bytes.
    beat_count: DFF<Bits<4>>,
    /// Emitting the zero padding of a short frame.
    pad_active: DFF<Bit>,
    /// The front's beat: data, bytes (the FCS follows them when `f_last`), aborted.
    f_valid: Signal<Local, Bit>,
    f_data: Signal<Local, Bits<64>>,
    f_len: Signal<Local, Bits<4>>,
    f_last: Signal<Local, Bit>,
    f_user: Signal<Local, Bit>,
    /// The front's beat moves on (into the pipe, or in half rate to the back).
    f_take: Signal<Local, Bit>,
    /// The next beat into the pipe starts a frame.
    f_first: DFF<Bit>,
    short: Signal<Local, Bit>,
    short_in_beat: Signal<Local, Bit>,
    lane_shift: Signal<Local, Bits<7>>,
    in_fire: Signal<Local, Bit>,
    // ---- the CRC: pipelined (8 bytes a cycle) or half rate ----
    pipe: Crc32Pipe,
    crc_unit: Crc32x64,
    crc: DFF<Bits<32>>,
    /// Half rate: bytes of the current beat already in `crc`.
    tail_idx: DFF<Bits<4>>,
    /// Half rate: the beat waits while its chunks go through the CRC, one per cycle.
    tail_wait: Signal<Local, Bit>,
    feed: CrcHalfRateFeed,
    half_rate: Constant<Bit>,
    // ---- back: the FCS put in ----
    /// The beat the back sees (the pipe's output, or in half rate the front's), and with
    /// `h_last` its frame's CRC register.
    h_valid: Signal<Local, Bit>,
    h_data: Signal<Local, Bits<64>>,
    h_len: Signal<Local, Bits<4>>,
    h_last: Signal<Local, Bit>,
    h_user: Signal<Local, Bit>,
    h_crc: Signal<Local, Bits<32>>,
    h_take: Signal<Local, Bit>,
    extra_pending: DFF<Bit>,
    extra_data: DFF<Bits<64>>,
    extra_keep: DFF<Bits<8>>,
    extra_user: DFF<Bit>,
    fcs: Signal<Local, Bits<32>>,
    /// The FCS rotated left by 1 and by 1..3 bytes as bits 0 and 1 of the length say.
    fcs_rot1: Signal<Local, Bits<32>>,
    fcs_rot: Signal<Local, Bits<32>>,
    /// `fcs_rot` in both halves: lane i holds FCS byte (i - len) mod 4.
    fcs_rep: Signal<Local, Bits<64>>,
    /// The lanes of this beat that carry the FCS.
    fcs_mask: Signal<Local, Bits<64>>,
    h_shift: Signal<Local, Bits<7>>,
    ones64: Constant<Bits<64>>,
    ones8: Constant<Bits<8>>,
    ones32: Constant<Bits<32>>,
    crc_init: Constant<Bits<32>>,
}

impl Default for MacTx {
    fn default() -> Self {
        Self::with_half_rate_crc(false)
    }
}

impl MacTx {
    /// `half`: a beat goes through the CRC 4 bytes a cycle and its last 1..3 bytes one a
    /// cycle (see the module doc); otherwise every beat takes one cycle, through the
    /// pipelined CRC.
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
            byte_count: Default::default(),
            beat_count: Default::default(),
            pad_active: Default::default(),
            f_valid: Default::default(),
            f_data: Default::default(),
            f_len: Default::default(),
            f_last: Default::default(),
            f_user: Default::default(),
            f_take: Default::default(),
            f_first: Default::default(),
            short: Default::default(),
            short_in_beat: Default::default(),
            lane_shift: Default::default(),
            in_fire: Default::default(),
            pipe: Default::default(),
            crc_unit: Crc32x64::half_rate(),
            crc: Default::default(),
            tail_idx: Default::default(),
            tail_wait: Default::default(),
            feed: Default::default(),
            half_rate: Constant::new(half),
            h_valid: Default::default(),
            h_data: Default::default(),
            h_len: Default::default(),
            h_last: Default::default(),
            h_user: Default::default(),
            h_crc: Default::default(),
            h_take: Default::default(),
            extra_pending: Default::default(),
            extra_data: Default::default(),
            extra_keep: Default::default(),
            extra_user: Default::default(),
            fcs: Default::default(),
            fcs_rot1: Default::default(),
            fcs_rot: Default::default(),
            fcs_rep: Default::default(),
            fcs_mask: Default::default(),
            h_shift: Default::default(),
            ones64: Constant::new(Bits::<64>::from(u64::MAX)),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            ones32: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
            crc_init: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
        }
    }
}

impl Logic for MacTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, byte_count, beat_count, pad_active, f_first, crc, tail_idx, extra_pending, extra_data, extra_keep, extra_user);
        clock!(self, clock, pipe);
        // ---- front: the input's lanes below s_len, or a beat of zero padding ----
        self.lane_shift.next = bit_cast::<7, 4>(self.s_len.val()) << 3;
        self.short.next = self.s_last.val()
            & !self.s_user.val()
            & ((self.beat_count.q.val() < 7) | ((self.beat_count.q.val() == 7) & (self.s_len.val() < 4)));
        self.short_in_beat.next = self.short.val() & (self.beat_count.q.val() == 7);
        self.f_valid.next = self.s_valid.val();
        self.f_data.next = self.s_data.val() & !(self.ones64.val() << self.lane_shift.val());
        self.f_len.next = self.s_len.val();
        self.f_last.next = self.s_last.val();
        self.f_user.next = self.s_user.val();
        if self.short.val() {
            // padded to 8 bytes, or to 4 when the FCS ends the beat starting at byte 56
            self.f_len.next = 8.into();
            self.f_last.next = false;
            if self.short_in_beat.val() {
                self.f_len.next = 4.into();
                self.f_last.next = true;
            }
        }
        if self.pad_active.q.val() {
            self.f_valid.next = true;
            self.f_data.next = 0.into();
            self.f_len.next = 8.into();
            self.f_last.next = false;
            self.f_user.next = false;
            if self.beat_count.q.val() == 7 {
                self.f_len.next = 4.into();
                self.f_last.next = true;
            }
        }
        // ---- the CRC, 8 bytes a cycle: the front's beats through the pipe ----
        self.pipe.reset.next = self.reset.val();
        self.pipe.in_valid.next = self.f_valid.val() & !self.half_rate.val();
        self.pipe.in_data.next = self.f_data.val();
        self.pipe.in_nbytes.next = self.f_len.val();
        self.pipe.in_first.next = self.f_first.q.val();
        self.pipe.in_last.next = self.f_last.val();
        self.pipe.in_user.next = self.f_user.val();
        self.h_valid.next = self.pipe.out_valid.val();
        self.h_data.next = self.pipe.out_data.val();
        self.h_len.next = self.pipe.out_nbytes.val();
        self.h_user.next = self.pipe.out_user.val();
        self.h_last.next = self.pipe.out_last.val();
        self.h_crc.next = self.pipe.out_crc.val();
        // ---- half rate: 4 bytes a cycle, a beat's last 1..3 one a cycle; the beat goes
        // to the back with its last chunk ----
        self.crc_unit.crc_in.next = self.crc.q.val();
        self.crc_unit.data.next = self.f_data.val();
        self.crc_unit.nbytes.next = self.f_len.val();
        self.feed.data.next = self.f_data.val();
        self.feed.nbytes.next = self.f_len.val();
        self.feed.done.next = self.tail_idx.q.val();
        self.tail_wait.next = false;
        if self.half_rate.val() {
            self.crc_unit.data.next = self.feed.unit_data.val();
            self.crc_unit.nbytes.next = self.feed.unit_nbytes.val();
            self.tail_wait.next = self.f_valid.val() & !self.extra_pending.q.val() & !self.feed.last.val();
            self.h_valid.next = self.f_valid.val() & !self.tail_wait.val();
            self.h_data.next = self.f_data.val();
            self.h_len.next = self.f_len.val();
            self.h_user.next = self.f_user.val();
            self.h_last.next = self.f_last.val();
            self.h_crc.next = self.crc_unit.crc_out.val();
        }
        // ---- back: the FCS is the inverted register; an aborted frame gets it
        // un-inverted (wrong). It goes right after the last beat's bytes: lanes
        // h_len .. h_len + 3, those past lane 7 in one extra beat ----
        self.fcs.next = !self.h_crc.val();
        if self.h_user.val() {
            self.fcs.next = self.h_crc.val();
        }
        self.h_shift.next = bit_cast::<7, 4>(self.h_len.val()) << 3;
        self.fcs_mask.next = 0.into();
        if self.h_last.val() {
            self.fcs_mask.next = (self.ones64.val() << self.h_shift.val()) & !(self.ones64.val() << (bit_cast::<7, 4>(self.h_len.val() + 4) << 3));
        }
        self.fcs_rot1.next = self.fcs.val();
        if self.h_len.val().get_bit(0) {
            self.fcs_rot1.next = (self.fcs.val() << 8) | (self.fcs.val() >> 24);
        }
        self.fcs_rot.next = self.fcs_rot1.val();
        if self.h_len.val().get_bit(1) {
            self.fcs_rot.next = (self.fcs_rot1.val() << 16) | (self.fcs_rot1.val() >> 16);
        }
        self.fcs_rep.next = (bit_cast::<64, 32>(self.fcs_rot.val()) << 32) | bit_cast::<64, 32>(self.fcs_rot.val());
        self.h_take.next = false;
        if self.extra_pending.q.val() {
            // the second beat of a frame whose FCS did not fit
            self.m_valid.next = true;
            self.m_data.next = self.extra_data.q.val();
            self.m_keep.next = self.extra_keep.q.val();
            self.m_last.next = true;
            self.m_user.next = self.extra_user.q.val();
            if self.m_ready.val() {
                self.extra_pending.d.next = false;
            }
        } else {
            self.m_valid.next = self.h_valid.val();
            self.m_data.next = self.h_data.val() | (self.fcs_rep.val() & self.fcs_mask.val());
            self.m_keep.next = self.ones8.val();
            self.m_last.next = false;
            self.m_user.next = false;
            self.h_take.next = self.h_valid.val() & self.m_ready.val();
            if self.h_last.val() {
                if self.h_len.val() <= 4 {
                    self.m_keep.next = !(self.ones8.val() << (self.h_len.val() + 4));
                    self.m_last.next = true;
                    self.m_user.next = self.h_user.val();
                } else if self.h_take.val() {
                    self.extra_pending.d.next = true;
                    // lanes below h_len - 4 take the rest
                    self.extra_data.d.next = bit_cast::<64, 32>(self.fcs_rot.val() & !(self.ones32.val() << (bit_cast::<6, 4>(self.h_len.val() - 4) << 3)));
                    self.extra_keep.d.next = !(self.ones8.val() << (self.h_len.val() - 4));
                    self.extra_user.d.next = self.h_user.val();
                }
            }
        }
        // ---- the front moves when its beat goes: into the pipe as the pipe moves (the
        // pipe moves when its output goes, or it has none), or in half rate to the back ----
        self.pipe.advance.next = !self.pipe.out_valid.val() | self.h_take.val();
        self.f_take.next = self.f_valid.val() & self.pipe.advance.val();
        self.s_ready.next = self.pipe.advance.val() & !self.pad_active.q.val();
        if self.half_rate.val() {
            self.f_take.next = self.h_take.val();
            self.s_ready.next = self.h_take.val() & !self.pad_active.q.val();
        }
        if self.tail_wait.val() {
            self.crc.d.next = self.crc_unit.crc_out.val();
            self.tail_idx.d.next = self.tail_idx.q.val() + self.feed.step.val();
        }
        self.in_fire.next = self.s_valid.val() & self.s_ready.val();
        self.stat_frame.next = false;
        self.stat_aborted.next = false;
        self.stat_bytes.next = self.byte_count.q.val() + bit_cast::<16, 4>(self.s_len.val());
        if self.f_take.val() {
            self.f_first.d.next = self.f_last.val();
            self.crc.d.next = self.crc_unit.crc_out.val();
            if self.f_last.val() {
                self.crc.d.next = self.crc_init.val();
            }
            self.tail_idx.d.next = 0.into();
            if self.beat_count.q.val() != 8 {
                self.beat_count.d.next = self.beat_count.q.val() + 1;
            }
            if self.pad_active.q.val() & (self.beat_count.q.val() == 7) {
                self.pad_active.d.next = false;
                self.beat_count.d.next = 0.into();
            }
        }
        if self.in_fire.val() {
            self.byte_count.d.next = self.stat_bytes.val();
            if self.s_last.val() {
                self.byte_count.d.next = 0.into();
                self.beat_count.d.next = 0.into();
                self.stat_frame.next = !self.s_user.val();
                self.stat_aborted.next = self.s_user.val();
            }
            if self.short.val() & !self.short_in_beat.val() {
                // zero beats follow, to byte 60
                self.pad_active.d.next = true;
                self.beat_count.d.next = self.beat_count.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.crc.d.next = self.crc_init.val();
            self.byte_count.d.next = 0.into();
            self.beat_count.d.next = 0.into();
            self.extra_pending.d.next = false;
            self.pad_active.d.next = false;
            self.tail_idx.d.next = 0.into();
            self.f_first.d.next = true;
        }
    }
}
