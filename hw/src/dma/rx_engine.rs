//! RX queue engine: classified frames from the MAC into posted host buffers, for `Q`
//! RX queues.
//!
//! Frames arrive from the classifier with their metadata (`rx_meta`): the queue it
//! chose, the filter verdict, RSS hash and type, packet type, checksum verdicts and the
//! MAC status. They are paired into 16-byte beats (`Upsizer`, the DMA port's width) and
//! queue in the one RX FIFO all queues share (or, `with_narrow_fifo`, queue as 8-byte
//! beats and are written as 8-byte beats). At a frame's first beat the engine looks
//! at the chosen queue's next posted descriptor: when that queue is stopped or has none
//! posted, or the filter rejected the frame, the frame is dropped and counted, and the
//! other queues go on receiving. Otherwise the frame is written into the buffer as it
//! comes (cut-through, every beat a write burst of its own, so TX write-backs
//! share the port); bytes past the buffer's length are not written. Once the host
//! has acknowledged the data write, a good frame is completed: the whole descriptor is
//! written back (packet type, length, flags with the checksum verdicts and hash type,
//! RSS hash), the descriptor is consumed and the queue's HEAD advances. A frame the MAC
//! marked bad, or too long for its buffer, is counted by reason and the descriptor stays
//! at the head of its queue for the next frame: the buffer still belongs to the NIC.
//!
//! Clearing a queue's ENABLE takes effect between frames: a write the host port has
//! started is always finished as offered, a frame in progress for that queue is dropped
//! instead of completed (unless its write-back is already being offered), and then, once
//! no descriptor fetch and no write-back response is outstanding, its HEAD and error
//! state reset. ACTIVE stays low until that has happened.
//!
//! Descriptor fetches of all queues share one read request port, tagged `8 + q`;
//! write-backs are tagged `8 + q` too, so that a refused write-back stops its own queue.

use super::desc_fetch::DescFetch;
use super::BusAddr;
use crate::stream::{NicFifo, RamOutQueue, Upsizer};
use rust_hdl::prelude::*;

/// Bit layout of the 72-bit per-frame metadata that travels with the frame from the
/// classifier (`m_*` outputs of `rx::RxClassifier`) through the RX FIFO.
pub mod rx_meta {
    /// [31:0] RSS hash.
    pub const HASH: u32 = 0;
    /// [47:32] packet type (docs/rx-classification.md section 2).
    pub const PTYPE: u32 = 32;
    /// [51:48] RSS hash type.
    pub const HASH_TYPE: u32 = 48;
    /// [55:52] queue.
    pub const QUEUE: u32 = 52;
    /// [57:56] filter verdict (0 accept, 1 unicast miss, 2 multicast miss, 3 broadcast).
    pub const DROP: u32 = 56;
    /// [59:58] IPv4 header checksum verdict, [61:60] TCP/UDP checksum verdict.
    pub const L3_CSUM: u32 = 58;
    pub const L4_CSUM: u32 = 60;
    /// [64:62] MAC status (`mac::rx_status`).
    pub const STATUS: u32 = 62;
}

/// RX FIFO word: [127:0] data, [132:128] byte count, [133] last, [205:134] metadata.
pub type RxBeat = Bits<206>;
/// Narrow RX FIFO word (`RxEngine::with_narrow_fifo`): [63:0] data, [67:64] byte count,
/// [68] last, [71:69] metadata bits 64:62 (MAC status), [77:72] metadata 57:52 (filter
/// verdict, queue), [81:78] metadata 61:58 (checksum verdicts), [133:82] metadata 51:0,
/// [140:134] metadata 71:65. The bits a lean build reads come first, in bits 0..77: synthesis removes each 16-bit block RAM whose
/// outputs nothing reads, so five RAMs of the nine remain.
pub type RxNarrowBeat = Bits<141>;

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
pub struct RxEngine<const FN: usize, const FNP1: usize, const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // per-queue configuration and status (RxQueueRegs)
    pub enable: [Signal<In, Bit>; Q],
    pub ring_base: [Signal<In, BusAddr>; Q],
    pub ring_mask: [Signal<In, Bits<16>>; Q],
    pub tail: [Signal<In, Bits<16>>; Q],
    pub head: [Signal<Out, Bits<16>>; Q],
    pub active: [Signal<Out, Bit>; Q],
    pub error_code: [Signal<Out, Bits<8>>; Q],
    pub completion: [Signal<Out, Bit>; Q],
    /// A frame for the queue was dropped: stopped, or no buffer posted.
    pub dropped: [Signal<Out, Bit>; Q],
    // descriptor reads (tag 8 + q)
    pub desc_req_valid: Signal<Out, Bit>,
    pub desc_req_ready: Signal<In, Bit>,
    pub desc_req_addr: Signal<Out, Bits<64>>,
    pub desc_req_len: Signal<Out, Bits<16>>,
    pub desc_req_tag: Signal<Out, Bits<4>>,
    /// A read response beat with a tag of 8..15 (`rsp_tag`).
    pub desc_rsp_valid: Signal<In, Bit>,
    pub rsp_tag: Signal<In, Bits<4>>,
    pub rsp_data: Signal<In, Bits<128>>,
    pub rsp_last: Signal<In, Bit>,
    pub rsp_error: Signal<In, Bit>,
    // writes: frame data (tag 0) and write-back (tag 8 + q)
    pub wr_valid: Signal<Out, Bit>,
    pub wr_ready: Signal<In, Bit>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<128>>,
    pub wr_strb: Signal<Out, Bits<16>>,
    pub wr_last: Signal<Out, Bit>,
    pub wr_tag: Signal<Out, Bits<4>>,
    /// Response to a data write (tag 0).
    pub wr_rsp_valid: Signal<In, Bit>,
    pub wr_rsp_error: Signal<In, Bit>,
    /// A descriptor write-back's response (tag 8 + q), and whether the host refused it;
    /// `wb_fault_tag` is its tag.
    pub wb_rsp: Signal<In, Bit>,
    pub wb_fault: Signal<In, Bit>,
    pub wb_fault_tag: Signal<In, Bits<4>>,
    // classified frames (see rx_meta)
    pub s_data: Signal<In, Bits<64>>,
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    pub s_meta: Signal<In, Bits<72>>,
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
    pub drop_ucast: Signal<Out, Bit>,
    pub drop_mcast: Signal<Out, Bit>,
    pub drop_bcast: Signal<Out, Bit>,
    pub csum_l3_bad: Signal<Out, Bit>,
    pub csum_l4_bad: Signal<Out, Bit>,
    fetch: [DescFetch; Q],
    upsizer: Upsizer,
    fifo: NicFifo<RxBeat, FN, FNP1>,
    /// `with_narrow_fifo(true)`: the FIFO holds the classifier's 8-byte beats
    /// (`RxNarrowBeat`), each written to the host as a DMA beat of its own, instead of
    /// `upsizer` pairing them before `fifo`. Half the FIFO's bytes in the same memories:
    /// an iCE40 block RAM is 16 bits wide whatever its depth, so the 143 bits of a
    /// 16-byte beat take 9 of them and the 78 of an 8-byte beat 5. Synthesis removes the
    /// variant not chosen.
    fifo_narrow: NicFifo<RxNarrowBeat, FN, FNP1>,
    narrow_fifo: Constant<Bit>,
    /// The FIFO's head word in flip-flops (`with_head_slice`): the engine's decisions at
    /// a frame's first beat (its queue, that queue's descriptor, the drop verdict) and
    /// the write of each beat start from a register, not from the block RAM's output,
    /// which was the start of the block's critical path (17.9 ns at speed 6, most of it
    /// routing from the RAM to the FSM). A `RamOutQueue`: the RAM's output goes into
    /// flip-flops of its own with nothing but a route in front (through a `RegSlice`'s
    /// input mux it still missed 156.25 MHz at speed 8 by 0.7 ns: the DP16KD's output
    /// leaves 4.26 ns after the clock). One beat a cycle, two cycles more per frame.
    fifo_head: RamOutQueue<RxBeat>,
    head_slice: Constant<Bit>,
    /// The FIFO's head as it comes out, before `fifo_head`.
    f_data: Signal<Local, RxBeat>,
    f_empty: Signal<Local, Bit>,
    f_read: Signal<Local, Bit>,
    q_data: Signal<Local, RxBeat>,
    q_empty: Signal<Local, Bit>,
    q_read: Signal<Local, Bit>,
    state: DFF<RxState>,
    error: [DFF<Bits<8>>; Q],
    /// `error != 0`, kept beside it (set where an error is set, cleared with it), so
    /// a queue's `run` is a gate, not an 8-bit compare, in front of the frame decisions.
    stopped: [DFF<Bit>; Q],
    head_count: [DFF<Bits<16>>; Q],
    /// ENABLE was cleared; the reset it asks for waits for the Idle state.
    flush_pending: [DFF<Bit>; Q],
    /// The frame in progress: its queue, buffer, progress and last-beat metadata.
    cur_q: DFF<Bits<4>>,
    buf_addr: DFF<BusAddr>,
    written: DFF<Bits<16>>,
    truncated: DFF<Bit>,
    meta: DFF<Bits<72>>,
    /// The write-back's address and tag, fixed when the frame is judged complete: the
    /// beat must not change while offered, whatever software writes meanwhile.
    wb_addr: DFF<BusAddr>,
    wb_tag: DFF<Bits<4>>,
    /// The head frame's buffer was refused in Idle (an address the NIC cannot reach):
    /// its queue's error (AddressTooWide) and stop are written the next cycle, from
    /// `cur_q` and this flip-flop, not at the end of the Idle decision's path (the
    /// block's critical path at speed 8, 6.9 ns). The engine is in Drop then, and back
    /// in Idle a cycle later at the earliest, so the queue's next frame finds it stopped.
    addr_refused: DFF<Bit>,
    /// The current queue's ring base and its head's offset, registered every cycle:
    /// the write-back's address is their sum, made in CheckWrite from flip-flops (the
    /// 8-way muxes, the mask and the 48-bit add in one cycle were 8.2 ns at speed 8).
    /// Outside Idle the queue is `cur_q`, and its head moves only with a write-back.
    wb_base: DFF<BusAddr>,
    wb_off: DFF<Bits<16>>,
    /// Bytes of the buffer not yet written (its length less `written`): a beat fits
    /// when its byte count is at most this, a 5-bit compare where an add and a 17-bit
    /// compare were.
    buf_room: DFF<Bits<16>>,
    /// Data beats written whose responses are still out, and whether one came back
    /// refused. Every data beat is a write burst of its own, so the write port is never
    /// held for a whole frame: TX write-backs slip in between (a cut-through frame that
    /// held the port could wait for a TX frame whose reads waited for write-back room).
    wr_pending: DFF<Bits<12>>,
    /// `wr_pending` is 0, and is 1: registered as the count is, so CheckWrite's "every
    /// beat answered" is an AND of flip-flops and this cycle's answer, not two 12-bit
    /// compares in front of the queues' error registers (6.58 ns at speed 8).
    pend_zero: DFF<Bit>,
    pend_one: DFF<Bit>,
    wr_pending_next: Signal<Local, Bits<12>>,
    wr_failed: DFF<Bit>,
    /// The frame's data writes are all answered (this cycle, in CheckWrite).
    writes_done: Signal<Local, Bit>,
    /// Write-backs accepted by the host port whose responses are still out: a queue is
    /// flushed only when none is, so a late fault cannot stop the restarted queue.
    wb_out: DFF<Bits<4>>,
    /// Read grant of the descriptor fetchers, a register: chosen a cycle ahead among
    /// the fetchers with a request (`rd_pick`), held while the granted request waits.
    /// The port's valid and each fetcher's ready come from it, not from a priority pick
    /// over eight requests (that pick, then the ready, into the fetchers' pointers was
    /// 8.4 ns at speed 8). A fetch waits a cycle more when the grant is elsewhere.
    rd_sel: DFF<Bits<4>>,
    run: [Signal<Local, Bit>; Q],
    q_id: [Constant<Bits<4>>; Q],
    tag_id: [Constant<Bits<4>>; Q],
    /// The queue the signals below describe: `q_sel`, a register.
    q_now: Signal<Local, Bits<4>>,
    /// The queue whose view (`sel_*`) the engine reads, a register: outside Idle the
    /// frame's (`cur_q`); in Idle the head frame's, once `sel_ok` says it was loaded
    /// from it. It is loaded as a head frame waits in Idle (a cycle before its decision)
    /// or, under back-to-back traffic, already in WriteBack, where no `sel_*` is read, so
    /// the next frame is decided in its first Idle cycle. Before, the head's queue field
    /// and the state picked the 8-way muxes' select in the decision's own cycle: that
    /// select and its fan-out were the block's paths at 156.25 MHz (6.7 ns at speed 8).
    q_sel: DFF<Bits<4>>,
    sel_ok: DFF<Bit>,
    sel_run: Signal<Local, Bit>,
    sel_desc_valid: Signal<Local, Bit>,
    sel_ring_empty: Signal<Local, Bit>,
    sel_desc_addr: Signal<Local, Bits<44>>,
    sel_desc_addr_bad: Signal<Local, Bit>,
    sel_desc_len: Signal<Local, Bits<16>>,
    sel_base: Signal<Local, BusAddr>,
    sel_mask: Signal<Local, Bits<16>>,
    sel_head: Signal<Local, Bits<16>>,
    head_meta: Signal<Local, Bits<72>>,
    rd_pick: Signal<Local, Bits<4>>,
    beat_len: Signal<Local, Bits<16>>,
    fits: Signal<Local, Bit>,
    done_frame: Signal<Local, Bit>,
    drop_frame: Signal<Local, Bit>,
    ones16: Constant<Bits<16>>,
    /// Write-back flags DONE | RX_EOP.
    wb_flags: Constant<Bits<16>>,
    /// The metadata bits the classifier of this build can set: the others are read as
    /// 0, which lets synthesis drop them from the FIFO's memory (an iCE40 block RAM is 16
    /// bits wide, so every 16 bits of FIFO word is a RAM).
    meta_kept: Constant<Bits<72>>,
}

impl<const FN: usize, const FNP1: usize, const Q: usize> RxEngine<FN, FNP1, Q> {
    /// The engine behind `RxLeanClassifier` (no RSS, no checksum validation): only the
    /// queue, the filter verdict and the MAC status vary.
    pub fn without_rx_offload() -> Self {
        let field = |at: u32, bits: u32| (at..at + bits).fold(Bits::<72>::default(), |m, i| m.replace_bit(i as usize, true));
        let kept = field(rx_meta::QUEUE, 4) | field(rx_meta::DROP, 2) | field(rx_meta::STATUS, 3);
        Self { meta_kept: Constant::new(kept), ..Self::default() }
    }
    /// `narrow`: the RX FIFO holds 8-byte beats, each written to the host as a DMA beat
    /// of its own (lanes 0..7; see `fifo_narrow`): half the bytes (a 256-beat FIFO holds
    /// 2 KiB, still a whole 1518-byte frame) and a DMA side no faster than the MAC. The
    /// FIFO gives one word a cycle either way, so pairing its words into 16-byte beats
    /// would not write faster; it cost 64 flip-flops fed by the block RAM (each an iCE40
    /// logic cell of its own) and the pairing logic.
    pub fn with_narrow_fifo(self, narrow: bool) -> Self {
        Self { narrow_fifo: Constant::new(narrow), ..self }
    }
    /// With `false`, no register slice after the FIFO (`Config::skid_slices`: `small`
    /// has neither the flip-flops nor the clock to need them).
    /// The descriptor fetchers' heads go through slices of their own with it
    /// (`DescFetch::with_head_slice`).
    pub fn with_head_slice(self, on: bool) -> Self {
        Self { head_slice: Constant::new(on), fetch: self.fetch.map(|f| f.with_head_slice(on)), ..self }
    }
}

impl<const FN: usize, const FNP1: usize, const Q: usize> Default for RxEngine<FN, FNP1, Q> {
    fn default() -> Self {
        assert!(Q >= 1 && Q <= 8, "the tags and the register map leave room for 8 RX queues");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: std::array::from_fn(|_| Default::default()),
            ring_base: std::array::from_fn(|_| Default::default()),
            ring_mask: std::array::from_fn(|_| Default::default()),
            tail: std::array::from_fn(|_| Default::default()),
            head: std::array::from_fn(|_| Default::default()),
            active: std::array::from_fn(|_| Default::default()),
            error_code: std::array::from_fn(|_| Default::default()),
            completion: std::array::from_fn(|_| Default::default()),
            dropped: std::array::from_fn(|_| Default::default()),
            desc_req_valid: Default::default(),
            desc_req_ready: Default::default(),
            desc_req_addr: Default::default(),
            desc_req_len: Default::default(),
            desc_req_tag: Default::default(),
            desc_rsp_valid: Default::default(),
            rsp_tag: Default::default(),
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
            wb_rsp: Default::default(),
            wb_fault: Default::default(),
            wb_fault_tag: Default::default(),
            s_data: Default::default(),
            s_len: Default::default(),
            s_last: Default::default(),
            s_meta: Default::default(),
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
            drop_ucast: Default::default(),
            drop_mcast: Default::default(),
            drop_bcast: Default::default(),
            csum_l3_bad: Default::default(),
            csum_l4_bad: Default::default(),
            fetch: std::array::from_fn(|_| DescFetch::default().with_head_slice(true)),
            upsizer: Default::default(),
            fifo: Default::default(),
            fifo_narrow: Default::default(),
            narrow_fifo: Constant::new(false),
            fifo_head: Default::default(),
            head_slice: Constant::new(true),
            f_data: Default::default(),
            f_empty: Default::default(),
            f_read: Default::default(),
            q_data: Default::default(),
            q_empty: Default::default(),
            q_read: Default::default(),
            state: Default::default(),
            error: std::array::from_fn(|_| Default::default()),
            stopped: std::array::from_fn(|_| Default::default()),
            head_count: std::array::from_fn(|_| Default::default()),
            flush_pending: std::array::from_fn(|_| Default::default()),
            cur_q: Default::default(),
            buf_addr: Default::default(),
            written: Default::default(),
            truncated: Default::default(),
            meta: Default::default(),
            wb_addr: Default::default(),
            wb_tag: Default::default(),
            addr_refused: Default::default(),
            wb_base: Default::default(),
            wb_off: Default::default(),
            buf_room: Default::default(),
            wb_out: Default::default(),
            wr_pending: Default::default(),
            pend_zero: Default::default(),
            pend_one: Default::default(),
            wr_pending_next: Default::default(),
            wr_failed: Default::default(),
            writes_done: Default::default(),
            rd_sel: Default::default(),
            run: std::array::from_fn(|_| Default::default()),
            q_id: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64))),
            tag_id: std::array::from_fn(|i| Constant::new(Bits::<4>::from(8 + i as u64))),
            q_now: Default::default(),
            q_sel: Default::default(),
            sel_ok: Default::default(),
            sel_run: Default::default(),
            sel_desc_valid: Default::default(),
            sel_ring_empty: Default::default(),
            sel_desc_addr: Default::default(),
            sel_desc_len: Default::default(),
            sel_desc_addr_bad: Default::default(),
            sel_base: Default::default(),
            sel_mask: Default::default(),
            sel_head: Default::default(),
            head_meta: Default::default(),
            rd_pick: Default::default(),
            beat_len: Default::default(),
            fits: Default::default(),
            done_frame: Default::default(),
            drop_frame: Default::default(),
            ones16: Constant::new(Bits::<16>::from(0xffffu64)),
            wb_flags: Constant::new(Bits::<16>::from((nic_regmap::desc::DONE | nic_regmap::desc::RX_EOP) as u64)),
            meta_kept: Constant::new(!Bits::<72>::default()),
        }
    }
}

impl<const FN: usize, const FNP1: usize, const Q: usize> Logic for RxEngine<FN, FNP1, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, cur_q, buf_addr, written, truncated, meta, wb_addr, wb_tag, addr_refused, wb_out, wr_pending, pend_zero, pend_one, wr_failed, rd_sel, wb_base, wb_off, buf_room, q_sel, sel_ok);
        clock!(self, clock, upsizer, fifo, fifo_narrow, fifo_head);
        // ---- RX FIFO out: the head word the engine reads (`q_data`, `q_empty`, `q_read`):
        // the wide FIFO's 16-byte beats, or the narrow FIFO's 8-byte beats, each a DMA
        // beat of its own in lanes 0..7 (upper lanes 0, held still like every lane)
        self.f_data.next = self.fifo.data_out.val();
        self.f_empty.next = self.fifo.empty.val();
        if self.narrow_fifo.val() {
            self.f_data.next = bit_cast::<206, 64>(self.fifo_narrow.data_out.val().get_bits::<64>(0))
                | (bit_cast::<206, 4>(self.fifo_narrow.data_out.val().get_bits::<4>(64)) << 128)
                | (bit_cast::<206, 1>(self.fifo_narrow.data_out.val().get_bit(68).into()) << 133)
                | (bit_cast::<206, 52>(self.fifo_narrow.data_out.val().get_bits::<52>(82)) << 134)
                | (bit_cast::<206, 6>(self.fifo_narrow.data_out.val().get_bits::<6>(72)) << (134 + 52))
                | (bit_cast::<206, 4>(self.fifo_narrow.data_out.val().get_bits::<4>(78)) << (134 + 58))
                | (bit_cast::<206, 3>(self.fifo_narrow.data_out.val().get_bits::<3>(69)) << (134 + 62))
                | (bit_cast::<206, 7>(self.fifo_narrow.data_out.val().get_bits::<7>(134)) << (134 + 65));
            self.f_empty.next = self.fifo_narrow.empty.val();
        }
        // through `fifo_head`, or straight from the FIFO
        self.fifo_head.reset.next = self.reset.val();
        self.fifo_head.s_data.next = self.f_data.val();
        self.fifo_head.s_valid.next = !self.f_empty.val();
        self.q_data.next = self.fifo_head.m_data.val();
        self.q_empty.next = !self.fifo_head.m_valid.val();
        if !self.head_slice.val() {
            self.fifo_head.s_valid.next = false;
            self.q_data.next = self.f_data.val();
            self.q_empty.next = self.f_empty.val();
        }
        self.head_meta.next = self.q_data.val().get_bits::<72>(134) & self.meta_kept.val();
        self.q_now.next = self.q_sel.q.val();
        // ---- per queue: state, descriptor fetch, the selected queue's view
        self.sel_run.next = false;
        self.sel_desc_valid.next = false;
        self.sel_ring_empty.next = false;
        self.sel_desc_addr.next = 0.into();
        self.sel_desc_len.next = 0.into();
        self.sel_desc_addr_bad.next = false;
        self.sel_base.next = 0.into();
        self.sel_mask.next = 0.into();
        self.sel_head.next = 0.into();
        self.rd_pick.next = self.rd_sel.q.val();
        for i in 0..Q {
            self.error[i].clock.next = self.clock.val();
            self.error[i].d.next = self.error[i].q.val();
            self.stopped[i].clock.next = self.clock.val();
            self.stopped[i].d.next = self.stopped[i].q.val();
            self.head_count[i].clock.next = self.clock.val();
            self.head_count[i].d.next = self.head_count[i].q.val();
            self.flush_pending[i].clock.next = self.clock.val();
            self.flush_pending[i].d.next = self.flush_pending[i].q.val();
            self.fetch[i].clock.next = self.clock.val();
            self.run[i].next = self.enable[i].val() & !self.stopped[i].q.val() & !self.flush_pending[i].q.val();
            self.active[i].next = self.run[i].val();
            self.error_code[i].next = self.error[i].q.val();
            self.head[i].next = self.head_count[i].q.val();
            self.completion[i].next = false;
            self.dropped[i].next = false;
            self.fetch[i].reset.next = self.reset.val();
            self.fetch[i].active.next = self.run[i].val();
            self.fetch[i].ring_base.next = self.ring_base[i].val();
            self.fetch[i].ring_mask.next = self.ring_mask[i].val();
            self.fetch[i].tail.next = self.tail[i].val();
            self.fetch[i].req_ready.next = false;
            self.fetch[i].rsp_valid.next = self.desc_rsp_valid.val() & (self.rsp_tag.val() == self.tag_id[i].val());
            self.fetch[i].rsp_data.next = self.rsp_data.val();
            self.fetch[i].rsp_last.next = self.rsp_last.val();
            self.fetch[i].rsp_error.next = self.rsp_error.val();
            self.fetch[i].desc_pop.next = false;
            if self.fetch[i].fault.val() & !self.stopped[i].q.val() {
                self.error[i].d.next = 1.into(); // QueueError::DescReadFault
                self.stopped[i].d.next = true;
            }
            if self.wb_fault.val() & (self.wb_fault_tag.val() == self.tag_id[i].val()) & !self.stopped[i].q.val() {
                self.error[i].d.next = 3.into(); // QueueError::WriteFault
                self.stopped[i].d.next = true;
            }
            if self.q_now.val() == self.q_id[i].val() {
                self.sel_run.next = self.run[i].val();
                self.sel_desc_valid.next = self.fetch[i].desc_valid.val();
                self.sel_ring_empty.next = self.fetch[i].ring_empty.val();
                self.sel_desc_addr.next = self.fetch[i].desc_addr.val().get_bits::<44>(0);
                self.sel_desc_len.next = self.fetch[i].desc_len.val();
                self.sel_desc_addr_bad.next = self.fetch[i].desc_addr_bad.val();
                self.sel_base.next = self.ring_base[i].val();
                self.sel_mask.next = self.ring_mask[i].val();
                self.sel_head.next = self.head_count[i].q.val();
            }
            if self.fetch[i].req_valid.val() {
                self.rd_pick.next = self.q_id[i].val();
            }
        }
        // ---- descriptor reads: one fetcher at a time, held until accepted
        self.desc_req_valid.next = false;
        self.desc_req_addr.next = 0.into();
        self.desc_req_len.next = 0.into();
        self.desc_req_tag.next = 0.into();
        for i in 0..Q {
            if self.rd_sel.q.val() == self.q_id[i].val() {
                self.desc_req_valid.next = self.fetch[i].req_valid.val();
                self.desc_req_addr.next = self.fetch[i].req_addr.val();
                self.desc_req_len.next = self.fetch[i].req_len.val();
                self.desc_req_tag.next = self.tag_id[i].val();
                self.fetch[i].req_ready.next = self.desc_req_ready.val();
            }
        }
        self.rd_sel.d.next = self.rd_pick.val();
        if self.desc_req_valid.val() & !self.desc_req_ready.val() {
            self.rd_sel.d.next = self.rd_sel.q.val();
        }
        // ---- RX FIFO in
        self.fifo.reset.next = self.reset.val();
        self.upsizer.reset.next = self.reset.val();
        self.fifo_narrow.reset.next = self.reset.val();
        self.upsizer.s_data.next = self.s_data.val();
        self.upsizer.s_len.next = self.s_len.val();
        self.upsizer.s_last.next = self.s_last.val();
        self.upsizer.s_user.next = self.s_meta.val();
        self.upsizer.s_valid.next = self.s_valid.val();
        self.s_ready.next = self.upsizer.s_ready.val();
        self.fifo.data_in.next = bit_cast::<206, 128>(self.upsizer.m_data.val())
            | (bit_cast::<206, 5>(self.upsizer.m_len.val()) << 128)
            | (bit_cast::<206, 1>(self.upsizer.m_last.val().into()) << 133)
            | (bit_cast::<206, 72>(self.upsizer.m_user.val()) << 134);
        self.fifo.write.next = self.upsizer.m_valid.val() & !self.fifo.full.val();
        self.upsizer.m_ready.next = !self.fifo.full.val();
        // the narrow FIFO (used or not, synthesis keeps one of the two): 8-byte beats in
        // and out
        self.fifo_narrow.data_in.next = bit_cast::<141, 64>(self.s_data.val())
            | (bit_cast::<141, 4>(self.s_len.val()) << 64)
            | (bit_cast::<141, 1>(self.s_last.val().into()) << 68)
            | (bit_cast::<141, 3>(self.s_meta.val().get_bits::<3>(62)) << 69)
            | (bit_cast::<141, 6>(self.s_meta.val().get_bits::<6>(52)) << 72)
            | (bit_cast::<141, 4>(self.s_meta.val().get_bits::<4>(58)) << 78)
            | (bit_cast::<141, 52>(self.s_meta.val().get_bits::<52>(0)) << 82)
            | (bit_cast::<141, 7>(self.s_meta.val().get_bits::<7>(65)) << 134);
        self.fifo_narrow.write.next = false;
        if self.narrow_fifo.val() {
            self.upsizer.s_valid.next = false;
            self.fifo.write.next = false;
            self.s_ready.next = !self.fifo_narrow.full.val();
            self.fifo_narrow.write.next = self.s_valid.val() & !self.fifo_narrow.full.val();
        }
        self.q_read.next = false;
        // ---- defaults
        self.wr_valid.next = false;
        self.wr_addr.next = bit_cast::<64, 48>(self.buf_addr.q.val() + bit_cast::<48, 16>(self.written.q.val()));
        self.wr_data.next = self.q_data.val().get_bits::<128>(0);
        self.wr_strb.next = 0.into();
        self.wr_last.next = true;
        self.wr_tag.next = 0.into();
        self.stat_frame.next = false;
        self.stat_bytes.next = self.written.q.val();
        self.drop_no_buffer.next = false;
        self.drop_fcs.next = false;
        self.drop_runt.next = false;
        self.drop_oversize.next = false;
        self.drop_phy.next = false;
        self.drop_truncated.next = false;
        self.drop_ucast.next = false;
        self.drop_mcast.next = false;
        self.drop_bcast.next = false;
        self.csum_l3_bad.next = false;
        self.csum_l4_bad.next = false;
        self.done_frame.next = false;
        self.drop_frame.next = false;
        self.writes_done.next = false;
        self.beat_len.next = bit_cast::<16, 5>(self.q_data.val().get_bits::<5>(128));
        self.fits.next = (self.buf_room.q.val().get_bits::<11>(5) != 0) | (self.beat_len.val().get_bits::<5>(0) <= self.buf_room.q.val().get_bits::<5>(0));
        self.wb_base.d.next = self.sel_base.val();
        self.wb_off.d.next = self.sel_head.val() & self.sel_mask.val();
        self.addr_refused.d.next = false;
        match self.state.q.val() {
            RxState::Idle => {
                // the buffer of the head frame's queue, loaded whatever the decision
                // (used only once it is taken): its 60 enables are the Idle state's,
                // not the end of the decision's path (7.7 ns at speed 8)
                self.buf_addr.d.next = bit_cast::<48, 44>(self.sel_desc_addr.val());
                self.buf_room.d.next = self.sel_desc_len.val();
                // the frame before left it as it was (CheckWrite does not clear it)
                self.written.d.next = 0.into();
                if !self.q_empty.val() & !self.sel_ok.q.val() {
                    // the head frame's queue first (decided the next cycle)
                    self.q_sel.d.next = self.head_meta.val().get_bits::<4>(52);
                    self.sel_ok.d.next = true;
                }
                if !self.q_empty.val() & self.sel_ok.q.val() {
                    self.cur_q.d.next = self.q_now.val();
                    if (self.head_meta.val().get_bits::<2>(56) != 0) | !self.sel_run.val() {
                        self.state.d.next = RxState::Drop;
                    } else if self.sel_desc_valid.val() & self.sel_desc_addr_bad.val() {
                        // a buffer the NIC cannot address: refused before any byte
                        // moves; the queue stops (next cycle, `addr_refused`) and the
                        // frame is dropped
                        self.addr_refused.d.next = true;
                        self.state.d.next = RxState::Drop;
                    } else if self.sel_desc_valid.val() {
                        // the descriptor stays in its queue until the frame completes
                        self.state.d.next = RxState::WriteData;
                    } else if self.sel_ring_empty.val() {
                        self.state.d.next = RxState::Drop;
                    }
                }
            }
            RxState::WriteData => {
                self.wr_valid.next = !self.q_empty.val();
                if self.fits.val() {
                    self.wr_strb.next = !(self.ones16.val() << self.q_data.val().get_bits::<5>(128));
                } else {
                    self.wr_addr.next = bit_cast::<64, 48>(self.buf_addr.q.val());
                }
                if self.wr_valid.val() & self.wr_ready.val() {
                    self.q_read.next = true;
                    if self.fits.val() {
                        self.written.d.next = self.written.q.val() + self.beat_len.val();
                        self.buf_room.d.next = self.buf_room.q.val() - self.beat_len.val();
                    } else {
                        self.truncated.d.next = true;
                    }
                    if self.q_data.val().get_bit(133) {
                        self.meta.d.next = self.head_meta.val();
                        self.state.d.next = RxState::CheckWrite;
                        self.sel_ok.d.next = false;
                    }
                }
            }
            RxState::CheckWrite => {
                // every data beat answered (the last answer may be this cycle's)
                if self.pend_zero.q.val() | (self.pend_one.q.val() & self.wr_rsp_valid.val()) {
                    self.writes_done.next = true;
                    self.state.d.next = RxState::Idle;
                    self.truncated.d.next = false;
                    if self.wr_failed.q.val() | (self.wr_rsp_valid.val() & self.wr_rsp_error.val()) {
                        for i in 0..Q {
                            if (self.cur_q.q.val() == self.q_id[i].val()) & !self.stopped[i].q.val() {
                                self.error[i].d.next = 3.into(); // QueueError::WriteFault
                                self.stopped[i].d.next = true;
                            }
                        }
                    } else if self.meta.q.val().get_bits::<3>(62) == 1 {
                        self.drop_fcs.next = true;
                    } else if self.meta.q.val().get_bits::<3>(62) == 2 {
                        self.drop_runt.next = true;
                    } else if self.meta.q.val().get_bits::<3>(62) == 3 {
                        self.drop_oversize.next = true;
                    } else if self.meta.q.val().get_bits::<3>(62) != 0 {
                        self.drop_phy.next = true;
                    } else if self.truncated.q.val() {
                        self.drop_truncated.next = true;
                    } else if !self.sel_run.val() {
                        // the queue was disabled while the frame came in
                        self.drop_no_buffer.next = true;
                        self.drop_frame.next = true;
                    } else {
                        self.state.d.next = RxState::WriteBack;
                    }
                }
                // the write-back's address and tag, loaded whatever the decision (used
                // only in WriteBack, which only CheckWrite leads to)
                self.wb_addr.d.next = self.wb_base.q.val() + (bit_cast::<48, 16>(self.wb_off.q.val()) << 4);
                for i in 0..Q {
                    if self.cur_q.q.val() == self.q_id[i].val() {
                        self.wb_tag.d.next = self.tag_id[i].val();
                    }
                }
            }
            RxState::WriteBack => {
                // the next frame's queue, if its head is here (nothing reads `sel_*` in
                // this state)
                if !self.q_empty.val() & !self.sel_ok.q.val() {
                    self.q_sel.d.next = self.head_meta.val().get_bits::<4>(52);
                    self.sel_ok.d.next = true;
                }
                // the whole descriptor: ptype, length, flags, RSS hash
                self.wr_valid.next = true;
                self.wr_addr.next = bit_cast::<64, 48>(self.wb_addr.q.val());
                self.wr_data.next = bit_cast::<128, 16>(self.meta.q.val().get_bits::<16>(32))
                    | (bit_cast::<128, 16>(self.written.q.val()) << 64)
                    | (bit_cast::<128, 16>(self.wb_flags.val()) << 80)
                    | (bit_cast::<128, 2>(self.meta.q.val().get_bits::<2>(58)) << 82)
                    | (bit_cast::<128, 2>(self.meta.q.val().get_bits::<2>(60)) << 84)
                    | (bit_cast::<128, 4>(self.meta.q.val().get_bits::<4>(48)) << 86)
                    | (bit_cast::<128, 32>(self.meta.q.val().get_bits::<32>(0)) << 96);
                self.wr_strb.next = self.ones16.val();
                self.wr_last.next = true;
                self.wr_tag.next = self.wb_tag.q.val();
                if self.wr_ready.val() {
                    self.done_frame.next = true;
                    self.stat_frame.next = true;
                    self.csum_l3_bad.next = self.meta.q.val().get_bits::<2>(58) == 2;
                    self.csum_l4_bad.next = self.meta.q.val().get_bits::<2>(60) == 2;
                    self.written.d.next = 0.into();
                    self.state.d.next = RxState::Idle;
                }
            }
            RxState::Drop => {
                self.q_read.next = true;
                if !self.q_empty.val() & self.q_data.val().get_bit(133) {
                    self.state.d.next = RxState::Idle;
                    self.sel_ok.d.next = false;
                    if self.head_meta.val().get_bits::<3>(62) == 1 {
                        self.drop_fcs.next = true;
                    } else if self.head_meta.val().get_bits::<3>(62) == 2 {
                        self.drop_runt.next = true;
                    } else if self.head_meta.val().get_bits::<3>(62) == 3 {
                        self.drop_oversize.next = true;
                    } else if self.head_meta.val().get_bits::<3>(62) != 0 {
                        self.drop_phy.next = true;
                    } else if self.head_meta.val().get_bits::<2>(56) == 1 {
                        self.drop_ucast.next = true;
                    } else if self.head_meta.val().get_bits::<2>(56) == 2 {
                        self.drop_mcast.next = true;
                    } else if self.head_meta.val().get_bits::<2>(56) == 3 {
                        self.drop_bcast.next = true;
                    } else {
                        self.drop_no_buffer.next = true;
                        self.drop_frame.next = true;
                    }
                }
            }
            _ => {
                self.state.d.next = RxState::Idle;
            }
        }
        // the refusal of the Idle decision a cycle ago (`cur_q` is its queue since)
        if self.addr_refused.q.val() {
            for i in 0..Q {
                if self.cur_q.q.val() == self.q_id[i].val() {
                    self.error[i].d.next = 9.into(); // QueueError::AddressTooWide
                    self.stopped[i].d.next = true;
                }
            }
        }
        // ---- data writes in flight
        self.wr_pending_next.next = self.wr_pending.q.val();
        if (self.state.q.val() == RxState::WriteData) & self.wr_valid.val() & self.wr_ready.val() {
            self.wr_pending_next.next = self.wr_pending.q.val() + 1;
            if self.wr_rsp_valid.val() {
                self.wr_pending_next.next = self.wr_pending.q.val();
            }
        } else if self.wr_rsp_valid.val() {
            self.wr_pending_next.next = self.wr_pending.q.val() - 1;
        }
        if self.reset.val() {
            self.wr_pending_next.next = 0.into();
        }
        self.wr_pending.d.next = self.wr_pending_next.val();
        self.pend_zero.d.next = self.wr_pending_next.val() == 0;
        self.pend_one.d.next = self.wr_pending_next.val() == 1;
        if self.wr_rsp_valid.val() & self.wr_rsp_error.val() {
            self.wr_failed.d.next = true;
        }
        if self.writes_done.val() {
            self.wr_failed.d.next = false;
        }
        // ---- write-backs in flight
        self.wb_out.d.next = self.wb_out.q.val();
        if (self.state.q.val() == RxState::WriteBack) & self.wr_ready.val() {
            self.wb_out.d.next = self.wb_out.q.val() + 1;
            if self.wb_rsp.val() {
                self.wb_out.d.next = self.wb_out.q.val();
            }
        } else if self.wb_rsp.val() {
            self.wb_out.d.next = self.wb_out.q.val() - 1;
        }
        // ---- per queue: completion, drops, flushes
        for i in 0..Q {
            if self.cur_q.q.val() == self.q_id[i].val() {
                if self.done_frame.val() {
                    self.head_count[i].d.next = self.head_count[i].q.val() + 1;
                    self.completion[i].next = true;
                    self.fetch[i].desc_pop.next = true;
                }
                self.dropped[i].next = self.drop_frame.val();
            }
            if !self.enable[i].val() {
                self.flush_pending[i].d.next = true;
            }
            // a flush waits for the engine between frames, the queue's descriptor fetch
            // and every write-back response: nothing meant for the old ring arrives later
            if self.reset.val()
                | (self.flush_pending[i].q.val() & (self.state.q.val() == RxState::Idle) & self.fetch[i].idle.val() & (self.wb_out.q.val() == 0))
            {
                self.error[i].d.next = 0.into();
                self.stopped[i].d.next = false;
                self.head_count[i].d.next = 0.into();
                self.flush_pending[i].d.next = !self.enable[i].val();
            }
        }
        self.fifo_head.m_ready.next = self.q_read.val();
        self.f_read.next = self.fifo_head.s_ready.val();
        if !self.head_slice.val() {
            self.f_read.next = self.q_read.val();
        }
        self.fifo.read.next = self.f_read.val();
        self.fifo_narrow.read.next = self.f_read.val();
        if self.reset.val() {
            self.state.d.next = RxState::Idle;
            self.written.d.next = 0.into();
            self.truncated.d.next = false;
            self.rd_sel.d.next = 0.into();
            self.wb_out.d.next = 0.into();
            self.wr_failed.d.next = false;
            self.addr_refused.d.next = false;
            self.sel_ok.d.next = false;
        }
    }
}
