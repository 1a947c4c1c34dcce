//! MAC RX: checks the FCS, strips it, and classifies every frame.
//!
//! One beat is held back so that the FCS can be cut off when the last beat arrives:
//! if the last beat has at most 4 bytes, they are all FCS and the held beat becomes
//! the frame's last (shortened); otherwise the last beat itself is held, shortened by 4.
//! No bubble: a held last beat leaves in the same cycle the next frame's first beat
//! arrives. The frame's verdict (`m_status`, see `mac::rx_status`) is on its last output
//! beat: bad FCS, runt (< 64 bytes with FCS), oversize (> `max_frame_len`), PHY error.
//! Dropping is the RX engine's job, which counts the reason.
//!
//! At 8 bytes a cycle (`full`) the wire's beats go through a pipelined CRC first
//! (`Crc32Pipe`, [`PIPE_LATENCY`] stages that stop together when the output cannot move),
//! and the holding stage above works on the pipe's output, where each frame's last beat
//! comes with the frame's CRC: the FCS check is not on any long path, for 5 cycles of
//! latency.
//!
//! With a half-rate CRC (`MacRx::with_half_rate_crc(true)`, `Config::half_rate_crc`) a
//! beat waits at the input while it goes through the CRC 4 bytes a cycle, its last 1..3
//! bytes one a cycle: a full beat takes 2 cycles, 4 bytes a cycle, more than a Gigabit
//! wire brings (125 MB/s; 4 bytes at the ECPIX-5's 41.67 MHz core are 167 MB/s).

use super::crc::{residue, Crc32x64, CrcHalfRateFeed};
use super::crc_pipe::{Crc32Pipe, LATENCY};
// status codes: see super::rx_status (literals below: hdl_gen cannot read Rust constants)
use rust_hdl::prelude::*;

/// Cycles the pipelined CRC adds in front of the holding stage (8 bytes a cycle).
pub const PIPE_LATENCY: u64 = LATENCY;

#[derive(LogicBlock)]
pub struct MacRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub max_frame_len: Signal<In, Bits<16>>,
    // wire stream (AXI4-Stream)
    pub s_data: Signal<In, Bits<64>>,
    pub s_keep: Signal<In, Bits<8>>,
    pub s_last: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    // frame stream to the RX path, FCS removed
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_status: Signal<Out, Bits<3>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    /// Half rate: the CRC unit and its register.
    crc_unit: Crc32x64,
    crc: DFF<Bits<32>>,
    /// 8 bytes a cycle: the pipelined CRC, the beat riding along.
    pipe: Crc32Pipe,
    /// The next beat into the pipe starts a frame.
    pipe_first: DFF<Bit>,
    /// The beat the holding stage sees: the wire's (half rate) or the pipe's output.
    h_valid: Signal<Local, Bit>,
    h_data: Signal<Local, Bits<64>>,
    h_len: Signal<Local, Bits<4>>,
    h_last: Signal<Local, Bit>,
    h_user: Signal<Local, Bit>,
    h_ready: Signal<Local, Bit>,
    /// The frame's register after its FCS, meaningful with `h_last`.
    h_crc: Signal<Local, Bits<32>>,
    count: DFF<Bits<16>>,
    phy_error: DFF<Bit>,
    hold_valid: DFF<Bit>,
    hold_final: DFF<Bit>,
    hold_data: DFF<Bits<64>>,
    hold_len: DFF<Bits<4>>,
    hold_status: DFF<Bits<3>>,
    /// Half rate: bytes of the current beat already in `crc`.
    tail_idx: DFF<Bits<4>>,
    /// Half rate: the beat waits while its chunks go through the CRC, one per cycle.
    tail_wait: Signal<Local, Bit>,
    feed: CrcHalfRateFeed,
    half_rate: Constant<Bit>,
    in_len: Signal<Local, Bits<4>>,
    total: Signal<Local, Bits<16>>,
    status_now: Signal<Local, Bits<3>>,
    in_fire: Signal<Local, Bit>,
    crc_init: Constant<Bits<32>>,
    crc_residue: Constant<Bits<32>>,
    min_frame: Constant<Bits<16>>,
}

impl Default for MacRx {
    fn default() -> Self {
        Self::with_half_rate_crc(false)
    }
}

impl MacRx {
    /// `half`: a beat goes through the CRC 4 bytes a cycle and its last 1..3 bytes one a
    /// cycle (see the module doc); otherwise every beat takes one cycle, through the
    /// pipelined CRC.
    pub fn with_half_rate_crc(half: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            max_frame_len: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            s_user: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_status: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            crc_unit: Crc32x64::half_rate(),
            crc: Default::default(),
            pipe: Default::default(),
            pipe_first: Default::default(),
            h_valid: Default::default(),
            h_data: Default::default(),
            h_len: Default::default(),
            h_last: Default::default(),
            h_user: Default::default(),
            h_ready: Default::default(),
            h_crc: Default::default(),
            count: Default::default(),
            phy_error: Default::default(),
            hold_valid: Default::default(),
            hold_final: Default::default(),
            hold_data: Default::default(),
            hold_len: Default::default(),
            hold_status: Default::default(),
            tail_idx: Default::default(),
            tail_wait: Default::default(),
            feed: Default::default(),
            half_rate: Constant::new(half),
            in_len: Default::default(),
            total: Default::default(),
            status_now: Default::default(),
            in_fire: Default::default(),
            crc_init: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
            crc_residue: Constant::new(Bits::<32>::from(residue() as u64)),
            min_frame: Constant::new(Bits::<16>::from(64u64)),
        }
    }
}

impl Logic for MacRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc, count, phy_error, hold_valid, hold_final, hold_data, hold_len, hold_status, tail_idx, pipe_first);
        clock!(self, clock, pipe);
        // bytes in this beat (tkeep is contiguous from lane 0)
        self.in_len.next = 0.into();
        if self.s_keep.val().get_bit(0) {
            self.in_len.next = 1.into();
        }
        if self.s_keep.val().get_bit(1) {
            self.in_len.next = 2.into();
        }
        if self.s_keep.val().get_bit(2) {
            self.in_len.next = 3.into();
        }
        if self.s_keep.val().get_bit(3) {
            self.in_len.next = 4.into();
        }
        if self.s_keep.val().get_bit(4) {
            self.in_len.next = 5.into();
        }
        if self.s_keep.val().get_bit(5) {
            self.in_len.next = 6.into();
        }
        if self.s_keep.val().get_bit(6) {
            self.in_len.next = 7.into();
        }
        if self.s_keep.val().get_bit(7) {
            self.in_len.next = 8.into();
        }
        // ---- 8 bytes a cycle: the wire's beats through the pipelined CRC ----
        self.pipe.reset.next = self.reset.val();
        self.pipe.in_valid.next = self.s_valid.val() & !self.half_rate.val();
        self.pipe.in_data.next = self.s_data.val();
        self.pipe.in_nbytes.next = self.in_len.val();
        self.pipe.in_first.next = self.pipe_first.q.val();
        self.pipe.in_last.next = self.s_last.val();
        self.pipe.in_user.next = self.s_user.val();
        self.h_valid.next = self.pipe.out_valid.val();
        self.h_data.next = self.pipe.out_data.val();
        self.h_len.next = self.pipe.out_nbytes.val();
        self.h_user.next = self.pipe.out_user.val();
        self.h_last.next = self.pipe.out_last.val();
        self.h_crc.next = self.pipe.out_crc.val();
        // ---- half rate: the wire's beat itself; 4 bytes a cycle, a beat's last 1..3 one
        // a cycle; the beat is taken with its last chunk ----
        self.crc_unit.crc_in.next = self.crc.q.val();
        self.crc_unit.data.next = self.s_data.val();
        self.crc_unit.nbytes.next = self.in_len.val();
        self.feed.data.next = self.s_data.val();
        self.feed.nbytes.next = self.in_len.val();
        self.feed.done.next = self.tail_idx.q.val();
        self.tail_wait.next = false;
        if self.half_rate.val() {
            self.h_valid.next = self.s_valid.val();
            self.h_data.next = self.s_data.val();
            self.h_len.next = self.in_len.val();
            self.h_user.next = self.s_user.val();
            self.h_last.next = self.s_last.val();
            self.h_crc.next = self.crc_unit.crc_out.val();
            if self.in_len.val() != 0 {
                self.crc_unit.data.next = self.feed.unit_data.val();
                self.crc_unit.nbytes.next = self.feed.unit_nbytes.val();
                if !self.feed.last.val() {
                    self.tail_wait.next = self.s_valid.val();
                }
            }
        }
        // ---- the holding stage: verdict, meaningful on the last beat ----
        self.total.next = self.count.q.val() + bit_cast::<16, 4>(self.h_len.val());
        self.status_now.next = 0.into();
        if self.h_crc.val() != self.crc_residue.val() {
            self.status_now.next = 1.into(); // rx_status::BAD_FCS
        }
        if self.total.val() > self.max_frame_len.val() {
            self.status_now.next = 3.into(); // rx_status::OVERSIZE
        }
        if self.total.val() < self.min_frame.val() {
            self.status_now.next = 2.into(); // rx_status::RUNT
        }
        if self.phy_error.q.val() | self.h_user.val() {
            self.status_now.next = 4.into(); // rx_status::PHY_ERROR
        }
        // output: the held beat, once we know whether it is the last one
        self.m_valid.next = self.hold_valid.q.val() & (self.hold_final.q.val() | (self.h_valid.val() & !self.tail_wait.val()));
        self.m_data.next = self.hold_data.q.val();
        self.m_len.next = self.hold_len.q.val();
        self.m_last.next = self.hold_final.q.val();
        self.m_status.next = self.hold_status.q.val();
        if self.hold_valid.q.val() & !self.hold_final.q.val() & self.h_last.val() & (self.h_len.val() <= 4) {
            // the incoming last beat is FCS only: the held beat ends the frame
            self.m_len.next = self.h_len.val() + 4;
            self.m_last.next = true;
            self.m_status.next = self.status_now.val();
        }
        self.h_ready.next = (!self.hold_valid.q.val() | self.m_ready.val()) & !self.tail_wait.val();
        // the pipe moves when its output beat goes (or it has none)
        self.pipe.advance.next = !self.pipe.out_valid.val() | self.h_ready.val();
        self.s_ready.next = self.pipe.advance.val();
        if self.s_valid.val() & self.pipe.advance.val() {
            self.pipe_first.d.next = self.s_last.val();
        }
        if self.half_rate.val() {
            self.s_ready.next = self.h_ready.val();
        }
        self.in_fire.next = self.h_valid.val() & self.h_ready.val();
        if self.tail_wait.val() {
            self.crc.d.next = self.crc_unit.crc_out.val();
            self.tail_idx.d.next = self.tail_idx.q.val() + self.feed.step.val();
        }
        if self.in_fire.val() {
            self.tail_idx.d.next = 0.into();
            if self.h_last.val() {
                self.crc.d.next = self.crc_init.val();
                self.count.d.next = 0.into();
                self.phy_error.d.next = false;
                if !self.hold_valid.q.val() | self.hold_final.q.val() {
                    // a frame of one beat: a runt (or PHY error) whatever its bytes
                    self.hold_valid.d.next = true;
                    self.hold_final.d.next = true;
                    self.hold_data.d.next = self.h_data.val();
                    self.hold_len.d.next = 1.into();
                    self.hold_status.d.next = self.status_now.val();
                } else if self.h_len.val() <= 4 {
                    self.hold_valid.d.next = false;
                } else {
                    self.hold_valid.d.next = true;
                    self.hold_final.d.next = true;
                    self.hold_data.d.next = self.h_data.val();
                    self.hold_len.d.next = self.h_len.val() - 4;
                    self.hold_status.d.next = self.status_now.val();
                }
            } else {
                self.crc.d.next = self.crc_unit.crc_out.val();
                self.count.d.next = self.total.val();
                if self.total.val() < self.count.q.val() {
                    self.count.d.next = 0xffff.into(); // saturate: still oversize
                }
                self.phy_error.d.next = self.phy_error.q.val() | self.h_user.val();
                self.hold_valid.d.next = true;
                self.hold_final.d.next = false;
                self.hold_data.d.next = self.h_data.val();
                self.hold_len.d.next = self.h_len.val();
                self.hold_status.d.next = 0.into();
            }
        } else if self.m_valid.val() & self.m_ready.val() {
            self.hold_valid.d.next = false;
        }
        if self.reset.val() {
            self.crc.d.next = self.crc_init.val();
            self.count.d.next = 0.into();
            self.phy_error.d.next = false;
            self.hold_valid.d.next = false;
            self.tail_idx.d.next = 0.into();
            self.pipe_first.d.next = true;
        }
    }
}
