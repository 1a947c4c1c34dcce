//! RX queue engine: frames from the MAC into posted host buffers.
//!
//! Frames are paired into 16-byte beats (`Upsizer`, the DMA port's width) and queue in
//! the RX FIFO. At a frame's first beat the engine takes the next
//! posted descriptor (or, when none is posted or the queue is stopped, drops the frame
//! and counts it). The frame is written into the buffer as it comes (cut-through);
//! bytes past the buffer's length are not written. Once the host has acknowledged the
//! data write, a good frame is completed: its descriptor is written back (length,
//! DONE) and HEAD advances. A frame the MAC marked bad, or too long for its buffer, is
//! counted by reason and its descriptor is reused for the next frame: the buffer still
//! belongs to the NIC, and the driver never sees the frame.
//!
//! Clearing ENABLE takes effect between frames: a write the host port has started is
//! always finished as offered, the frame in progress is dropped instead of completed, and
//! then HEAD and the error state reset. ACTIVE stays low until that has happened.

use super::desc_fetch::DescFetch;
use crate::stream::{NicFifo, Upsizer};
use rust_hdl::prelude::*;

/// RX FIFO word: [127:0] data, [132:128] byte count, [133] last, [136:134] MAC status.
pub type RxBeat = Bits<137>;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum RxState {
    /// Waiting for a frame (and for a descriptor for it).
    Idle,
    /// Writing the frame's beats into the buffer.
    WriteData,
    /// Waiting for the host to acknowledge the data write.
    CheckWrite,
    /// Writing the descriptor back.
    WriteBack,
    /// Discarding a frame nobody can take.
    Drop,
}

#[derive(LogicBlock)]
pub struct RxEngine<const FN: usize, const FNP1: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // configuration and status (CSR)
    pub enable: Signal<In, Bit>,
    pub ring_base: Signal<In, Bits<64>>,
    pub ring_mask: Signal<In, Bits<16>>,
    pub tail: Signal<In, Bits<16>>,
    pub head: Signal<Out, Bits<16>>,
    pub active: Signal<Out, Bit>,
    pub error_code: Signal<Out, Bits<8>>,
    pub completion: Signal<Out, Bit>,
    // descriptor reads
    pub desc_req_valid: Signal<Out, Bit>,
    pub desc_req_ready: Signal<In, Bit>,
    pub desc_req_addr: Signal<Out, Bits<64>>,
    pub desc_req_len: Signal<Out, Bits<16>>,
    pub desc_rsp_valid: Signal<In, Bit>,
    pub rsp_data: Signal<In, Bits<128>>,
    pub rsp_last: Signal<In, Bit>,
    pub rsp_error: Signal<In, Bit>,
    // writes: frame data (tag 0) and write-back (tag 1)
    pub wr_valid: Signal<Out, Bit>,
    pub wr_ready: Signal<In, Bit>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<128>>,
    pub wr_strb: Signal<Out, Bits<16>>,
    pub wr_last: Signal<Out, Bit>,
    pub wr_tag: Signal<Out, Bits<4>>,
    pub wr_rsp_valid: Signal<In, Bit>,
    pub wr_rsp_error: Signal<In, Bit>,
    /// The host refused a descriptor write-back (tag 1).
    pub wb_fault: Signal<In, Bit>,
    // frames from the MAC
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_status: Signal<In, Bits<3>>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    // statistics pulses
    pub stat_frame: Signal<Out, Bit>,
    pub stat_bytes: Signal<Out, Bits<16>>,
    pub drop_no_buffer: Signal<Out, Bit>,
    pub drop_fcs: Signal<Out, Bit>,
    pub drop_runt: Signal<Out, Bit>,
    pub drop_oversize: Signal<Out, Bit>,
    pub drop_phy: Signal<Out, Bit>,
    pub drop_truncated: Signal<Out, Bit>,
    fetch: DescFetch,
    upsizer: Upsizer,
    fifo: NicFifo<RxBeat, FN, FNP1>,
    state: DFF<RxState>,
    error: DFF<Bits<8>>,
    have_desc: DFF<Bit>,
    buf_addr: DFF<Bits<64>>,
    buf_len: DFF<Bits<16>>,
    written: DFF<Bits<16>>,
    truncated: DFF<Bit>,
    verdict: DFF<Bits<3>>,
    head_count: DFF<Bits<16>>,
    /// ENABLE was cleared; the reset it asks for waits for the Idle state.
    flush_pending: DFF<Bit>,
    run: Signal<Local, Bit>,
    beat_len: Signal<Local, Bits<16>>,
    fits: Signal<Local, Bit>,
    take_desc: Signal<Local, Bit>,
    ones16: Constant<Bits<16>>,
    low_half: Constant<Bits<16>>,
    /// Write-back flags DONE | RX_EOP in bits 31:16.
    wb_flags: Constant<Bits<128>>,
}

impl<const FN: usize, const FNP1: usize> Default for RxEngine<FN, FNP1> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            ring_base: Default::default(),
            ring_mask: Default::default(),
            tail: Default::default(),
            head: Default::default(),
            active: Default::default(),
            error_code: Default::default(),
            completion: Default::default(),
            desc_req_valid: Default::default(),
            desc_req_ready: Default::default(),
            desc_req_addr: Default::default(),
            desc_req_len: Default::default(),
            desc_rsp_valid: Default::default(),
            rsp_data: Default::default(),
            rsp_last: Default::default(),
            rsp_error: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_strb: Default::default(),
            wr_last: Default::default(),
            wr_tag: Default::default(),
            wr_rsp_valid: Default::default(),
            wr_rsp_error: Default::default(),
            wb_fault: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_last: Default::default(),
            s_status: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            stat_frame: Default::default(),
            stat_bytes: Default::default(),
            drop_no_buffer: Default::default(),
            drop_fcs: Default::default(),
            drop_runt: Default::default(),
            drop_oversize: Default::default(),
            drop_phy: Default::default(),
            drop_truncated: Default::default(),
            fetch: Default::default(),
            upsizer: Default::default(),
            fifo: Default::default(),
            state: Default::default(),
            error: Default::default(),
            have_desc: Default::default(),
            buf_addr: Default::default(),
            buf_len: Default::default(),
            written: Default::default(),
            truncated: Default::default(),
            verdict: Default::default(),
            head_count: Default::default(),
            flush_pending: Default::default(),
            run: Default::default(),
            beat_len: Default::default(),
            fits: Default::default(),
            take_desc: Default::default(),
            ones16: Constant::new(Bits::<16>::from(0xffffu64)),
            low_half: Constant::new(Bits::<16>::from(0xffu64)),
            wb_flags: Constant::new(Bits::<128>::from(((nic_regmap::desc::DONE | nic_regmap::desc::RX_EOP) as u64) << 16)),
        }
    }
}

impl<const FN: usize, const FNP1: usize> Logic for RxEngine<FN, FNP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, error, have_desc, buf_addr, buf_len, written, truncated, verdict, head_count, flush_pending);
        clock!(self, clock, fetch, upsizer, fifo);
        self.run.next = self.enable.val() & (self.error.q.val() == 0) & !self.flush_pending.q.val();
        self.active.next = self.run.val();
        self.error_code.next = self.error.q.val();
        self.head.next = self.head_count.q.val();
        // descriptor fetch
        self.fetch.reset.next = self.reset.val();
        self.fetch.active.next = self.run.val();
        self.fetch.ring_base.next = self.ring_base.val();
        self.fetch.ring_mask.next = self.ring_mask.val();
        self.fetch.tail.next = self.tail.val();
        self.desc_req_valid.next = self.fetch.req_valid.val();
        self.fetch.req_ready.next = self.desc_req_ready.val();
        self.desc_req_addr.next = self.fetch.req_addr.val();
        self.desc_req_len.next = self.fetch.req_len.val();
        self.fetch.rsp_valid.next = self.desc_rsp_valid.val();
        self.fetch.rsp_data.next = self.rsp_data.val();
        self.fetch.rsp_last.next = self.rsp_last.val();
        self.fetch.rsp_error.next = self.rsp_error.val();
        self.fetch.desc_pop.next = false;
        if self.fetch.fault.val() & (self.error.q.val() == 0) {
            self.error.d.next = 1.into(); // QueueError::DescReadFault
        }
        if self.wb_fault.val() & (self.error.q.val() == 0) {
            self.error.d.next = 3.into(); // QueueError::WriteFault
        }
        // RX FIFO in
        self.fifo.reset.next = self.reset.val();
        self.upsizer.reset.next = self.reset.val();
        self.upsizer.s_data.next = self.s_data.val();
        self.upsizer.s_len.next = self.s_len.val();
        self.upsizer.s_last.next = self.s_last.val();
        self.upsizer.s_status.next = self.s_status.val();
        self.upsizer.s_valid.next = self.s_valid.val();
        self.s_ready.next = self.upsizer.s_ready.val();
        self.fifo.data_in.next = bit_cast::<137, 128>(self.upsizer.m_data.val())
            | (bit_cast::<137, 5>(self.upsizer.m_len.val()) << 128)
            | (bit_cast::<137, 1>(self.upsizer.m_last.val().into()) << 133)
            | (bit_cast::<137, 3>(self.upsizer.m_status.val()) << 134);
        self.fifo.write.next = self.upsizer.m_valid.val() & !self.fifo.full.val();
        self.upsizer.m_ready.next = !self.fifo.full.val();
        self.fifo.read.next = false;
        // defaults
        self.wr_valid.next = false;
        self.wr_addr.next = self.buf_addr.q.val() + bit_cast::<64, 16>(self.written.q.val());
        self.wr_data.next = self.fifo.data_out.val().get_bits::<128>(0);
        self.wr_strb.next = 0.into();
        self.wr_last.next = self.fifo.data_out.val().get_bit(133);
        self.wr_tag.next = 0.into();
        self.completion.next = false;
        self.stat_frame.next = false;
        self.stat_bytes.next = self.written.q.val();
        self.drop_no_buffer.next = false;
        self.drop_fcs.next = false;
        self.drop_runt.next = false;
        self.drop_oversize.next = false;
        self.drop_phy.next = false;
        self.drop_truncated.next = false;
        self.beat_len.next = bit_cast::<16, 5>(self.fifo.data_out.val().get_bits::<5>(128));
        self.fits.next = (bit_cast::<17, 16>(self.written.q.val()) + bit_cast::<17, 16>(self.beat_len.val()))
            <= bit_cast::<17, 16>(self.buf_len.q.val());
        // take a descriptor for the frame at the FIFO's head (Idle, or right after a write-back)
        self.take_desc.next = false;
        match self.state.q.val() {
            RxState::Idle => {
                if !self.fifo.empty.val() {
                    if !self.run.val() {
                        self.state.d.next = RxState::Drop;
                    } else if self.have_desc.q.val() {
                        self.state.d.next = RxState::WriteData;
                    } else if self.fetch.desc_valid.val() {
                        self.take_desc.next = true;
                    } else if self.fetch.ring_empty.val() {
                        self.state.d.next = RxState::Drop;
                    }
                }
            }
            RxState::WriteData => {
                self.wr_valid.next = !self.fifo.empty.val();
                if self.fits.val() {
                    self.wr_strb.next = !(self.ones16.val() << self.fifo.data_out.val().get_bits::<5>(128));
                } else {
                    self.wr_addr.next = self.buf_addr.q.val();
                }
                if self.wr_valid.val() & self.wr_ready.val() {
                    self.fifo.read.next = true;
                    if self.fits.val() {
                        self.written.d.next = self.written.q.val() + self.beat_len.val();
                    } else {
                        self.truncated.d.next = true;
                    }
                    if self.fifo.data_out.val().get_bit(133) {
                        self.verdict.d.next = self.fifo.data_out.val().get_bits::<3>(134);
                        self.state.d.next = RxState::CheckWrite;
                    }
                }
            }
            RxState::CheckWrite => {
                if self.wr_rsp_valid.val() {
                    self.state.d.next = RxState::Idle;
                    self.written.d.next = 0.into();
                    self.truncated.d.next = false;
                    if self.wr_rsp_error.val() {
                        if self.error.q.val() == 0 {
                            self.error.d.next = 3.into(); // QueueError::WriteFault
                        }
                    } else if self.verdict.q.val() == 1 {
                        self.drop_fcs.next = true;
                    } else if self.verdict.q.val() == 2 {
                        self.drop_runt.next = true;
                    } else if self.verdict.q.val() == 3 {
                        self.drop_oversize.next = true;
                    } else if self.verdict.q.val() != 0 {
                        self.drop_phy.next = true;
                    } else if self.truncated.q.val() {
                        self.drop_truncated.next = true;
                    } else if !self.run.val() {
                        // the queue was disabled while the frame came in
                        self.drop_no_buffer.next = true;
                    } else {
                        self.state.d.next = RxState::WriteBack;
                        self.written.d.next = self.written.q.val();
                    }
                }
            }
            RxState::WriteBack => {
                // bytes 8..16 of the descriptor: length, flags = DONE | EOP, info = 0
                self.wr_valid.next = true;
                self.wr_addr.next = self.ring_base.val()
                    + (bit_cast::<64, 16>(self.head_count.q.val() & self.ring_mask.val()) << 4)
                    + 8;
                self.wr_data.next = bit_cast::<128, 16>(self.written.q.val()) | self.wb_flags.val();
                self.wr_strb.next = self.low_half.val();
                self.wr_last.next = true;
                self.wr_tag.next = 1.into();
                if self.wr_ready.val() {
                    self.head_count.d.next = self.head_count.q.val() + 1;
                    self.completion.next = true;
                    self.stat_frame.next = true;
                    self.have_desc.d.next = false;
                    self.written.d.next = 0.into();
                    self.state.d.next = RxState::Idle;
                    if !self.fifo.empty.val() & self.run.val() & self.fetch.desc_valid.val() {
                        self.take_desc.next = true;
                    }
                }
            }
            RxState::Drop => {
                self.fifo.read.next = true;
                if !self.fifo.empty.val() & self.fifo.data_out.val().get_bit(133) {
                    self.drop_no_buffer.next = true;
                    self.state.d.next = RxState::Idle;
                }
            }
            _ => {
                self.state.d.next = RxState::Idle;
            }
        }
        if self.take_desc.val() {
            self.fetch.desc_pop.next = true;
            self.have_desc.d.next = true;
            self.buf_addr.d.next = self.fetch.desc_addr.val();
            self.buf_len.d.next = self.fetch.desc_len.val();
            self.state.d.next = RxState::WriteData;
        }
        if !self.enable.val() {
            self.flush_pending.d.next = true;
        }
        if self.reset.val() | (self.flush_pending.q.val() & (self.state.q.val() == RxState::Idle)) {
            self.error.d.next = 0.into();
            self.have_desc.d.next = false;
            self.head_count.d.next = 0.into();
            self.flush_pending.d.next = !self.enable.val();
            self.take_desc.next = false;
            self.fetch.desc_pop.next = false;
            self.state.d.next = RxState::Idle;
        }
        if self.reset.val() {
            self.state.d.next = RxState::Idle;
            self.written.d.next = 0.into();
            self.truncated.d.next = false;
        }
    }
}
