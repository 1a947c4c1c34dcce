//! TX queue engine: descriptors in, frame beats out to the MAC.
//!
//! Pipeline: `DescFetch` → issue (validates each descriptor, splits its buffer into
//! reads of at most 256 bytes) → read responses (16 bytes a beat) → data FIFO →
//! `Downsizer` (to 8 bytes a beat) → `BytePacker` (joins the scatter-gather fragments)
//! → MAC TX.
//!
//! A read is issued only when the data FIFO has room for all of its beats (`reserved`
//! counts beats promised but not yet arrived), so responses never stall the shared read
//! channel. A descriptor completes (HEAD advances; written back when it asked for
//! REPORT_STATUS) once all its bytes arrived. Errors stop the queue with a code; a frame
//! already partly sent is terminated with an abort beat, which the MAC sends with a bad
//! FCS so that no receiver accepts it.

use super::desc_fetch::DescFetch;
use crate::stream::{BytePacker, Downsizer, NicFifo};
use rust_hdl::prelude::*;

/// Data FIFO word: [127:0] data, [132:128] byte count, [133] frame end, [134] abort.
pub type TxBeat = Bits<135>;
/// Chunk bookkeeping: [15:0] chunk length, [31:16] descriptor index, [47:32] descriptor
/// length, [48] last chunk of the descriptor, [49] EOP, [50] REPORT_STATUS.
pub type ChunkInfo = Bits<64>;

/// `FN` = log2 of the data FIFO depth, `FNP1` = FN + 1.
#[derive(LogicBlock)]
pub struct TxEngine<const FN: usize, const FNP1: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // configuration and status (CSR)
    pub enable: Signal<In, Bit>,
    pub ring_base: Signal<In, Bits<64>>,
    pub ring_mask: Signal<In, Bits<16>>,
    pub tail: Signal<In, Bits<16>>,
    pub max_frame_len: Signal<In, Bits<16>>,
    pub head: Signal<Out, Bits<16>>,
    pub active: Signal<Out, Bit>,
    pub error_code: Signal<Out, Bits<8>>,
    /// One pulse per completed descriptor (interrupt moderation counts these).
    pub completion: Signal<Out, Bit>,
    // descriptor reads
    pub desc_req_valid: Signal<Out, Bit>,
    pub desc_req_ready: Signal<In, Bit>,
    pub desc_req_addr: Signal<Out, Bits<64>>,
    pub desc_req_len: Signal<Out, Bits<16>>,
    pub desc_rsp_valid: Signal<In, Bit>,
    // data reads
    pub data_req_valid: Signal<Out, Bit>,
    pub data_req_ready: Signal<In, Bit>,
    pub data_req_addr: Signal<Out, Bits<64>>,
    pub data_req_len: Signal<Out, Bits<16>>,
    pub data_rsp_valid: Signal<In, Bit>,
    pub data_rsp_ready: Signal<Out, Bit>,
    // read response payload, shared by both
    pub rsp_data: Signal<In, Bits<128>>,
    pub rsp_last: Signal<In, Bit>,
    pub rsp_error: Signal<In, Bit>,
    // descriptor write-back (one beat)
    pub wb_valid: Signal<Out, Bit>,
    pub wb_ready: Signal<In, Bit>,
    pub wb_addr: Signal<Out, Bits<64>>,
    pub wb_data: Signal<Out, Bits<64>>,
    pub wb_rsp_valid: Signal<In, Bit>,
    pub wb_rsp_error: Signal<In, Bit>,
    // frame stream to the MAC
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    fetch: DescFetch,
    info: NicFifo<ChunkInfo, 4, 5>,
    data: NicFifo<TxBeat, FN, FNP1>,
    downsizer: Downsizer,
    packer: BytePacker,
    error: DFF<Bits<8>>,
    cur_valid: DFF<Bit>,
    cur_addr: DFF<Bits<64>>,
    cur_remaining: DFF<Bits<16>>,
    cur_len: DFF<Bits<16>>,
    cur_flags: DFF<Bits<16>>,
    cur_idx: DFF<Bits<16>>,
    pop_idx: DFF<Bits<16>>,
    frame_bytes: DFF<Bits<17>>,
    abort_pending: DFF<Bit>,
    reserved: DFF<Bits<16>>,
    chunk_off: DFF<Bits<16>>,
    head_count: DFF<Bits<16>>,
    /// Write-backs waiting for the write port: [63:0] address, [127:64] bytes 8..16. A
    /// queue, so that a write port busy with an RX frame (cut-through RX holds it for a
    /// whole frame) does not hold TX up.
    wb_fifo: NicFifo<Bits<128>, 2, 3>,
    /// Write-back slots promised to reads in flight that end a REPORT_STATUS descriptor:
    /// such a read is issued only with a slot free, so a full write-back queue never
    /// stops TX from taking read responses (which would stall the shared read channel,
    /// and could deadlock loopback while the write port is busy with the frame TX has
    /// not finished).
    wb_promised: DFF<Bits<3>>,
    /// Write-backs taken by the host port whose responses are still out.
    wb_out: DFF<Bits<4>>,
    /// ENABLE was cleared: the queue stays inactive until every read it issued has come
    /// back (and been dropped) and every queued write-back has been written and answered,
    /// so nothing meant for the old ring lands after the driver restarts it.
    flushing: DFF<Bit>,
    ends_rs: Signal<Local, Bit>,
    wb_room: Signal<Local, Bit>,
    chunk: Signal<Local, Bits<16>>,
    beats: Signal<Local, Bits<16>>,
    left: Signal<Local, Bits<16>>,
    beat_len: Signal<Local, Bits<16>>,
    issue: Signal<Local, Bit>,
    beat_fire: Signal<Local, Bit>,
    push_beat: Signal<Local, Bit>,
    run: Signal<Local, Bit>,
    depth: Constant<Bits<16>>,
    /// Data beats in flight on the read channel at most: enough to cover the host's
    /// latency, few enough that descriptor fetches queued behind them come back soon.
    max_in_flight: Constant<Bits<16>>,
    /// ChunkInfo bit 48.
    desc_end_flag: Constant<Bits<64>>,
    /// A one-byte beat with frame end and abort set.
    abort_beat: Constant<Bits<135>>,
}

impl<const FN: usize, const FNP1: usize> Default for TxEngine<FN, FNP1> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            ring_base: Default::default(),
            ring_mask: Default::default(),
            tail: Default::default(),
            max_frame_len: Default::default(),
            head: Default::default(),
            active: Default::default(),
            error_code: Default::default(),
            completion: Default::default(),
            desc_req_valid: Default::default(),
            desc_req_ready: Default::default(),
            desc_req_addr: Default::default(),
            desc_req_len: Default::default(),
            desc_rsp_valid: Default::default(),
            data_req_valid: Default::default(),
            data_req_ready: Default::default(),
            data_req_addr: Default::default(),
            data_req_len: Default::default(),
            data_rsp_valid: Default::default(),
            data_rsp_ready: Default::default(),
            rsp_data: Default::default(),
            rsp_last: Default::default(),
            rsp_error: Default::default(),
            wb_valid: Default::default(),
            wb_ready: Default::default(),
            wb_addr: Default::default(),
            wb_data: Default::default(),
            wb_rsp_valid: Default::default(),
            wb_rsp_error: Default::default(),
            m_data: Default::default(),
            m_len: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            fetch: Default::default(),
            info: Default::default(),
            data: Default::default(),
            downsizer: Default::default(),
            packer: Default::default(),
            error: Default::default(),
            cur_valid: Default::default(),
            cur_addr: Default::default(),
            cur_remaining: Default::default(),
            cur_len: Default::default(),
            cur_flags: Default::default(),
            cur_idx: Default::default(),
            pop_idx: Default::default(),
            frame_bytes: Default::default(),
            abort_pending: Default::default(),
            reserved: Default::default(),
            chunk_off: Default::default(),
            head_count: Default::default(),
            wb_fifo: Default::default(),
            wb_promised: Default::default(),
            wb_out: Default::default(),
            flushing: Default::default(),
            ends_rs: Default::default(),
            wb_room: Default::default(),
            chunk: Default::default(),
            beats: Default::default(),
            left: Default::default(),
            beat_len: Default::default(),
            issue: Default::default(),
            beat_fire: Default::default(),
            push_beat: Default::default(),
            run: Default::default(),
            depth: Constant::new(Bits::<16>::from(1u64 << FN)),
            max_in_flight: Constant::new(Bits::<16>::from(32u64)),
            desc_end_flag: Constant::new(Bits::<64>::from(1u64 << 48)),
            abort_beat: Constant::new((Bits::<135>::from(3u64) << 133) | (Bits::<135>::from(1u64) << 128)),
        }
    }
}

impl<const FN: usize, const FNP1: usize> Logic for TxEngine<FN, FNP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, error, cur_valid, cur_addr, cur_remaining, cur_len, cur_flags, cur_idx, pop_idx,
            frame_bytes, abort_pending, reserved, chunk_off, head_count, wb_promised, wb_out, flushing
        );
        clock!(self, clock, fetch, info, data, downsizer, packer, wb_fifo);
        self.run.next = self.enable.val() & (self.error.q.val() == 0) & !self.flushing.q.val();
        if !self.enable.val() {
            self.flushing.d.next = true;
        }
        if self.flushing.q.val() & self.enable.val() & self.info.empty.val() & self.wb_fifo.empty.val() & (self.wb_out.q.val() == 0) {
            self.flushing.d.next = false;
        }
        self.active.next = self.run.val();
        self.error_code.next = self.error.q.val();
        self.head.next = self.head_count.q.val();
        self.completion.next = false;
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
        if self.fetch.fault.val() & (self.error.q.val() == 0) & !self.flushing.q.val() {
            self.error.d.next = 1.into(); // QueueError::DescReadFault
        }
        // take the next descriptor: validate it first, nothing is read for a bad one
        if self.run.val() & !self.cur_valid.q.val() & self.fetch.desc_valid.val() {
            if self.fetch.desc_len.val() == 0 {
                self.error.d.next = 4.into(); // QueueError::ZeroLength
                self.abort_pending.d.next = self.frame_bytes.q.val() != 0;
            } else if (self.frame_bytes.q.val() + bit_cast::<17, 16>(self.fetch.desc_len.val()) + 4)
                > bit_cast::<17, 16>(self.max_frame_len.val())
            {
                self.error.d.next = 5.into(); // QueueError::FrameTooLong
                self.abort_pending.d.next = self.frame_bytes.q.val() != 0;
            } else {
                self.fetch.desc_pop.next = true;
                self.cur_valid.d.next = true;
                self.cur_addr.d.next = self.fetch.desc_addr.val();
                self.cur_remaining.d.next = self.fetch.desc_len.val();
                self.cur_len.d.next = self.fetch.desc_len.val();
                self.cur_flags.d.next = self.fetch.desc_flags.val();
                self.cur_idx.d.next = self.pop_idx.q.val();
                self.pop_idx.d.next = self.pop_idx.q.val() + 1;
                self.frame_bytes.d.next = self.frame_bytes.q.val() + bit_cast::<17, 16>(self.fetch.desc_len.val());
                if self.fetch.desc_flags.val().get_bit(0) {
                    self.frame_bytes.d.next = 0.into();
                }
            }
        }
        // issue reads of at most 256 bytes, only with room for every beat
        self.chunk.next = self.cur_remaining.q.val();
        if self.chunk.val() > 256 {
            self.chunk.next = 256.into();
        }
        self.beats.next = (self.chunk.val() + 15) >> 4;
        self.data_req_addr.next = self.cur_addr.q.val();
        self.data_req_len.next = self.chunk.val();
        self.ends_rs.next = (self.chunk.val() == self.cur_remaining.q.val()) & self.cur_flags.q.val().get_bit(1);
        self.wb_room.next = (bit_cast::<4, 3>(self.wb_fifo.count.val()) + bit_cast::<4, 3>(self.wb_promised.q.val())) < 4;
        self.data_req_valid.next = self.run.val()
            & self.cur_valid.q.val()
            & !self.info.full.val()
            & (!self.ends_rs.val() | self.wb_room.val())
            & ((bit_cast::<16, FNP1>(self.data.count.val()) + self.reserved.q.val() + self.beats.val()) <= self.depth.val())
            & (self.reserved.q.val() < self.max_in_flight.val());
        self.issue.next = self.data_req_valid.val() & self.data_req_ready.val();
        self.info.write.next = self.issue.val();
        self.info.data_in.next = bit_cast::<64, 16>(self.chunk.val())
            | (bit_cast::<64, 16>(self.cur_idx.q.val()) << 16)
            | (bit_cast::<64, 16>(self.cur_len.q.val()) << 32)
            | (bit_cast::<64, 16>(self.cur_flags.q.val() & 3) << 49);
        if self.chunk.val() == self.cur_remaining.q.val() {
            self.info.data_in.next = bit_cast::<64, 16>(self.chunk.val())
                | (bit_cast::<64, 16>(self.cur_idx.q.val()) << 16)
                | (bit_cast::<64, 16>(self.cur_len.q.val()) << 32)
                | (bit_cast::<64, 16>(self.cur_flags.q.val() & 3) << 49)
                | self.desc_end_flag.val();
        }
        if self.issue.val() {
            self.cur_addr.d.next = self.cur_addr.q.val() + bit_cast::<64, 16>(self.chunk.val());
            self.cur_remaining.d.next = self.cur_remaining.q.val() - self.chunk.val();
            if self.chunk.val() == self.cur_remaining.q.val() {
                self.cur_valid.d.next = false;
            }
        }
        // read responses into the data FIFO
        self.data_rsp_ready.next = !self.data.full.val();
        self.wb_fifo.write.next = false;
        self.wb_fifo.data_in.next = 0.into();
        self.beat_fire.next = self.data_rsp_valid.val() & self.data_rsp_ready.val();
        self.left.next = self.info.data_out.val().get_bits::<16>(0) - self.chunk_off.q.val();
        self.beat_len.next = self.left.val();
        if self.left.val() > 16 {
            self.beat_len.next = 16.into();
        }
        self.info.read.next = false;
        self.push_beat.next = false;
        self.data.write.next = false;
        self.data.data_in.next = bit_cast::<135, 128>(self.rsp_data.val())
            | (bit_cast::<135, 16>(self.beat_len.val()) << 128)
            | (bit_cast::<135, 1>((self.rsp_last.val() & self.info.data_out.val().get_bit(48) & self.info.data_out.val().get_bit(49)).into()) << 133);
        if self.beat_fire.val() {
            if self.rsp_last.val() {
                self.info.read.next = true;
                self.chunk_off.d.next = 0.into();
            } else {
                self.chunk_off.d.next = self.chunk_off.q.val() + 16;
            }
            if self.rsp_error.val() {
                if (self.error.q.val() == 0) & !self.flushing.q.val() {
                    self.error.d.next = 2.into(); // QueueError::DataReadFault
                    // terminate the frame: one byte, frame end, abort
                    self.data.data_in.next = self.abort_beat.val();
                    self.data.write.next = true;
                }
            } else if self.run.val() {
                self.data.write.next = true;
                self.push_beat.next = true;
                if self.rsp_last.val() & self.info.data_out.val().get_bit(48) {
                    self.head_count.d.next = self.head_count.q.val() + 1;
                    self.completion.next = true;
                    if self.info.data_out.val().get_bit(50) {
                        // write-back at bytes 8..16: length, flags | DONE, info word 0
                        self.wb_fifo.write.next = true;
                        self.wb_fifo.data_in.next = bit_cast::<128, 64>(
                            self.ring_base.val() + (bit_cast::<64, 16>(self.info.data_out.val().get_bits::<16>(16) & self.ring_mask.val()) << 4) + 8,
                        ) | (bit_cast::<128, 16>(self.info.data_out.val().get_bits::<16>(32)) << 64)
                            | (bit_cast::<128, 16>(bit_cast::<16, 2>(self.info.data_out.val().get_bits::<2>(49)) | 0x8000) << 80);
                    }
                }
            }
        }
        // a bad descriptor mid-frame: terminate the frame once its earlier chunks are in
        if self.abort_pending.q.val() & self.info.empty.val() & !self.beat_fire.val() {
            self.data.data_in.next = self.abort_beat.val();
            self.data.write.next = true;
            self.abort_pending.d.next = false;
        }
        self.reserved.d.next = self.reserved.q.val();
        if self.issue.val() & !self.push_beat.val() {
            self.reserved.d.next = self.reserved.q.val() + self.beats.val();
        }
        if self.issue.val() & self.push_beat.val() {
            self.reserved.d.next = self.reserved.q.val() + self.beats.val() - 1;
        }
        if !self.issue.val() & self.push_beat.val() {
            self.reserved.d.next = self.reserved.q.val() - 1;
        }
        // write-back slots: promised at issue, redeemed by the descriptor's last beat
        self.wb_promised.d.next = self.wb_promised.q.val();
        if self.issue.val() & self.ends_rs.val() {
            self.wb_promised.d.next = self.wb_promised.q.val() + 1;
        }
        if self.beat_fire.val() & self.rsp_last.val() & self.info.data_out.val().get_bit(48) & self.info.data_out.val().get_bit(50) {
            self.wb_promised.d.next = self.wb_promised.q.val() - 1;
            if self.issue.val() & self.ends_rs.val() {
                self.wb_promised.d.next = self.wb_promised.q.val();
            }
        }
        // write-back
        self.wb_valid.next = !self.wb_fifo.empty.val();
        self.wb_addr.next = self.wb_fifo.data_out.val().get_bits::<64>(0);
        self.wb_data.next = self.wb_fifo.data_out.val().get_bits::<64>(64);
        self.wb_fifo.read.next = !self.wb_fifo.empty.val() & self.wb_ready.val();
        self.wb_out.d.next = self.wb_out.q.val();
        if self.wb_fifo.read.val() & !self.wb_rsp_valid.val() {
            self.wb_out.d.next = self.wb_out.q.val() + 1;
        }
        if !self.wb_fifo.read.val() & self.wb_rsp_valid.val() {
            self.wb_out.d.next = self.wb_out.q.val() - 1;
        }
        if self.wb_rsp_valid.val() & self.wb_rsp_error.val() & (self.error.q.val() == 0) & !self.flushing.q.val() {
            self.error.d.next = 3.into(); // QueueError::WriteFault
        }
        // data FIFO → packer → MAC
        self.data.reset.next = self.reset.val() | !self.enable.val();
        self.info.reset.next = self.reset.val();
        self.packer.reset.next = self.reset.val();
        self.downsizer.reset.next = self.reset.val();
        self.downsizer.s_data.next = self.data.data_out.val().get_bits::<128>(0);
        self.downsizer.s_len.next = self.data.data_out.val().get_bits::<5>(128);
        self.downsizer.s_end.next = self.data.data_out.val().get_bit(133);
        self.downsizer.s_user.next = self.data.data_out.val().get_bit(134);
        self.downsizer.s_valid.next = !self.data.empty.val();
        self.data.read.next = self.downsizer.s_ready.val();
        self.packer.s_data.next = self.downsizer.m_data.val();
        self.packer.s_len.next = self.downsizer.m_len.val();
        self.packer.s_end.next = self.downsizer.m_end.val();
        self.packer.s_user.next = self.downsizer.m_user.val();
        self.packer.s_valid.next = self.downsizer.m_valid.val();
        self.downsizer.m_ready.next = self.packer.s_ready.val();
        self.m_data.next = self.packer.m_data.val();
        self.m_len.next = self.packer.m_len.val();
        self.m_last.next = self.packer.m_last.val();
        self.m_user.next = self.packer.m_user.val();
        self.m_valid.next = self.packer.m_valid.val();
        self.packer.m_ready.next = self.m_ready.val();
        // disabling the queue clears its state (the driver disables an idle queue)
        if self.reset.val() | !self.enable.val() {
            self.error.d.next = 0.into();
            self.cur_valid.d.next = false;
            self.pop_idx.d.next = 0.into();
            self.frame_bytes.d.next = 0.into();
            self.abort_pending.d.next = false;
            self.head_count.d.next = 0.into();
        }
        // write-backs already queued are finished even if the queue is disabled
        self.wb_fifo.reset.next = self.reset.val();
        if self.reset.val() {
            self.wb_out.d.next = 0.into();
            self.flushing.d.next = false;
        }
        if self.reset.val() | (!self.run.val() & self.info.empty.val()) {
            self.reserved.d.next = 0.into();
            self.chunk_off.d.next = 0.into();
            self.wb_promised.d.next = 0.into();
        }
    }
}
