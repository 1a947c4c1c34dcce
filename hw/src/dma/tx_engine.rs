//! TX queue engine for `Q` TX queues: descriptors in, whole frames out to the offload
//! engine, one frame at a time, chosen by the scheduler (docs/tx-offload.md).
//!
//! Pipeline: per-queue `DescFetch` (one descriptor fetch in flight for all queues,
//! tagged `TAG_TX_DESC`) → scheduler (picks a queue with a whole frame posted) → issue
//! (takes the frame's context descriptor, validates each data descriptor, splits its
//! buffer into reads of at most 256 bytes) → read responses (16 bytes a beat, in order)
//! → data FIFO → `Downsizer` (8 bytes a beat) → `BytePacker` (joins the scatter-gather
//! fragments) → out, with the frame's offload request (`m_ctx`) beside it. Without
//! scatter-gather (`with_scatter_gather(false)`) there is no packer: every fragment but a
//! frame's last holds whole 8-byte beats (else the queue stops, `FragmentNotWhole`), so
//! the downsizer's beats are full until the frame's last and go out as they are. With a
//! narrow data FIFO (`with_narrow_fifo(true)`) the downsizer sits in front of the FIFO
//! instead (`fdown`): the FIFO holds 8-byte beats, half as wide (an iCE40 build's 9 block
//! RAMs become 5), and a 16-byte response beat is taken in two cycles.
//!
//! Every entry the issue stage makes (a read, a context descriptor, an abort marker)
//! goes into the in-order info FIFO with its queue; the response side consumes them in
//! the same order. A read is issued only when the data FIFO has room for all of its
//! beats (`reserved` counts beats promised but not yet arrived), and only with room
//! for its completion, so read responses never stall the shared read channel.
//!
//! Completions wait for the frame's verdict from the offload engine (one per frame, in
//! frame order): a descriptor completes (HEAD advances; written back when it asked for
//! REPORT_STATUS, with `ERROR` when the frame was refused) once its data arrived and
//! its frame was judged. Errors stop a queue with a code; a frame already begun is
//! terminated with an abort beat, which the offload engine drops (offload) or the MAC
//! sends with a bad FCS (no offload), so that no receiver accepts it. The other queues
//! go on.
//!
//! Scheduler: strict-priority queues first (round-robin by frame), then deficit round-
//! robin on bytes (`weight` added at each visit, a queue sends while its deficit is
//! positive, each frame's data descriptor bytes subtracted). Round-robin order is
//! descending queue index with wrap. A queue is eligible when running with a whole frame
//! in its descriptor FIFO.

use super::desc_fetch::DescFetch;
use super::BusAddr;
use crate::stream::{BytePacker, Downsizer, NicFifo, RegSlice, ZeroExtend};
use rust_hdl::prelude::*;

/// Data FIFO word: [127:0] data, [132:128] byte count, [133] frame end, [134] abort.
pub type TxBeat = Bits<135>;

/// Info FIFO entry: what the issue stage did, in order.
pub mod info {
    /// [15:0] bytes read by this entry (0 for an entry without a read).
    pub const CHUNK: usize = 0;
    /// [31:16] ring index of the descriptor.
    pub const IDX: usize = 16;
    /// [47:32] descriptor length field (written back).
    pub const LEN: usize = 32;
    /// [48] the descriptor's last read.
    pub const DESC_END: usize = 48;
    /// [51:49] descriptor flags EOP, REPORT_STATUS, CTX (written back).
    pub const FLAGS: usize = 49;
    /// [52] no read: a context descriptor or an abort marker.
    pub const NO_READ: usize = 52;
    /// [53] abort marker: the issue stage gave up a frame it had begun.
    pub const ABORT: usize = 53;
    /// [54] the frame's first entry.
    pub const FIRST: usize = 54;
    /// [55] refused at once (a context descriptor with EOP): completes with ERROR
    /// without a verdict.
    pub const IMM_ERR: usize = 55;
    /// [59:56] queue.
    pub const QUEUE: usize = 56;
    // The issue stage writes an entry in the FIFO's own 52-bit layout, and the engine
    // reads it back in the layout above (`info_head`): [31:0] IDX and LEN, [40:32]
    // CHUNK (at most 256), [47:41] DESC_END..FIRST, [51:48] QUEUE; IMM_ERR is not
    // stored (it is CTX & EOP). The first 48 bits are what a single-queue build reads:
    // an iCE40 block RAM is 16 bits wide, and those whose outputs nothing reads are
    // removed (3 instead of 4).
}

/// Completion FIFO entry.
pub mod comp {
    /// [15:0] ring index.
    pub const IDX: usize = 0;
    /// [31:16] descriptor length field.
    pub const LEN: usize = 16;
    /// [34:32] descriptor flags EOP, REPORT_STATUS, CTX.
    pub const FLAGS: usize = 32;
    /// [35] completes a descriptor (else only ends an aborted frame).
    pub const DESC: usize = 35;
    /// [36] last entry of its frame: takes the frame's verdict.
    pub const END: usize = 36;
    /// [37] refused at once: no verdict.
    pub const IMM_ERR: usize = 37;
    /// [41:38] queue.
    pub const QUEUE: usize = 38;
}

/// Offload request of a frame (`m_ctx`): the context descriptor's 16-bit fields
/// [15:0] l3_offset, [31:16] l4_offset, [47:32] csum_start, [63:48] csum_offset,
/// [79:64] mss, [95:80] flags, [111:96] hdr_len; all zero without a context descriptor.
pub type TxCtx = Bits<112>;

/// `FN` = log2 of the data FIFO depth, `FNP1` = FN + 1, `Q` = number of queues (≤ 16).
#[derive(LogicBlock)]
pub struct TxEngine<const FN: usize, const FNP1: usize, const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // per-queue configuration and status (QueueRegs)
    pub enable: [Signal<In, Bit>; Q],
    pub ring_base: [Signal<In, BusAddr>; Q],
    pub ring_mask: [Signal<In, Bits<16>>; Q],
    pub tail: [Signal<In, Bits<16>>; Q],
    pub weight: [Signal<In, Bits<16>>; Q],
    pub strict: [Signal<In, Bit>; Q],
    pub head: [Signal<Out, Bits<16>>; Q],
    pub active: [Signal<Out, Bit>; Q],
    pub error_code: [Signal<Out, Bits<8>>; Q],
    /// One pulse per completed descriptor (interrupt moderation counts these).
    pub completion: [Signal<Out, Bit>; Q],
    pub max_frame_len: Signal<In, Bits<16>>,
    // descriptor reads (one in flight)
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
    // frames out, with the offload request of the frame at the head
    pub m_data: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<4>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub m_ctx: Signal<Out, TxCtx>,
    /// The offload engine's verdict on each frame that left `m_*`, in order.
    pub v_valid: Signal<In, Bit>,
    pub v_error: Signal<In, Bit>,
    /// The build has an offload engine behind `m_*`: without it a context descriptor is a
    /// bad descriptor (`QueueError::UnsupportedContext`).
    pub ctx_supported: Signal<In, Bit>,
    /// One pulse per refused frame.
    pub stat_refused: Signal<Out, Bit>,
    // ---- blocks ----
    fetch: [DescFetch; Q],
    info: NicFifo<Bits<52>, 4, 5>,
    data: NicFifo<TxBeat, FN, FNP1>,
    ctx_fifo: NicFifo<TxCtx, 4, 5>,
    /// Completions waiting for their frame's verdict: 128 entries, so that a frame of
    /// `MAX_FRAME_DESCS` descriptors (+ its context descriptor) always fits beside what
    /// earlier frames (complete, so their verdicts will come) still hold.
    comp: NicFifo<Bits<64>, 7, 8>,
    verdict: NicFifo<Bit, 7, 8>,
    /// The completion FIFO's head in flip-flops (`pipelined`): its block RAM's output
    /// (4.1 ns clock-to-out) went through the queue's ring base and mask into the
    /// write-back address sum (12.2 ns). A completion leaves a cycle later.
    comp_head: RegSlice<Bits<42>>,
    /// The completion at the head (the `comp` fields, bits 41:0), and whether there is
    /// one (through `comp_head` or not).
    c_data: Signal<Local, Bits<42>>,
    c_empty: Signal<Local, Bit>,
    downsizer: Downsizer,
    /// The data FIFO's head beat in flip-flops (`pipelined`): the block RAM's output
    /// (4.3 ns clock-to-out at speed 8) fed the downsizer, the packer, the frame's end and
    /// through it the pop of the offload request FIFO (14.4 ns). A skid slice: a beat a
    /// cycle, a cycle later.
    data_head: RegSlice<TxBeat>,
    /// In front of a narrow data FIFO: each kept 16-byte response beat, 8 bytes a cycle.
    fdown: Downsizer,
    packer: BytePacker,
    /// The write-back waiting for the write port: [63:0] address, [127:64] bytes 8..16,
    /// [131:128] queue (synthesis keeps only the bits that vary, `wb_varies`). A register
    /// slice, in flip-flops: a write-back comes at most once per descriptor. With one
    /// queue (`small`) a forward-only slice, one entry and the port's ready passed through;
    /// with more, a skid buffer (two entries, registered ready) for `full`'s clock.
    /// `nic bench loopback` takes the same cycles per frame as with the two- and
    /// four-deep FIFOs it replaces; on the iCE40 a FIFO this small paid for its RAM's
    /// read register and pointers in flip-flops too.
    wb_slice: RegSlice<Bits<132>>,
    wb_fire: Signal<Local, Bit>,
    /// Queues of the write-backs the port took whose responses are still out (flip-flops:
    /// a response may come the cycle after the write).
    wbq_mem: [DFF<Bits<4>>; 8],
    wbq_wp: DFF<Bits<3>>,
    wbq_rp: DFF<Bits<3>>,
    wbq_count: DFF<Bits<4>>,
    slot_id: [Constant<Bits<3>>; 8],
    // ---- per queue ----
    error: [DFF<Bits<8>>; Q],
    /// `error != 0`, kept beside it (set where an error is set, cleared with it): a
    /// queue's `run` is a gate, not an 8-bit compare, in front of the issue decisions.
    stopped: [DFF<Bit>; Q],
    head_count: [DFF<Bits<16>>; Q],
    pop_idx: [DFF<Bits<16>>; Q],
    /// ENABLE was cleared: the queue stays inactive until nothing it issued is left in
    /// the engine (`outstanding`) and its descriptor fetch is idle, so nothing meant for
    /// the old ring lands after the driver restarts it.
    flushing: [DFF<Bit>; Q],
    /// Info entries, completions and write-backs of this queue inside the engine.
    outstanding: [DFF<Bits<8>>; Q],
    /// Deficit round-robin counter, signed.
    deficit: [DFF<Bits<20>>; Q],
    run: [Signal<Local, Bit>; Q],
    /// Per queue, last cycle (`outstanding`): an info entry in / out, a completion
    /// entry in / out, a write-back queued / answered. Registered, and counted a cycle
    /// late: the events come at the end of the issue stage's and the response side's
    /// decisions, and the six-term sum behind them was 30 levels (speed 8). A queue's
    /// flush waits until no entry of it is counted or on its way to be.
    ev_in: [DFF<Bits<8>>; Q],
    ev_info: [DFF<Bits<8>>; Q],
    ev_comp_in: [DFF<Bits<8>>; Q],
    ev_comp: [DFF<Bits<8>>; Q],
    ev_wb_in: [DFF<Bits<8>>; Q],
    ev_wb: [DFF<Bits<8>>; Q],
    /// Each queue's deficit plus its weight, computed beside the scheduler's pick: the
    /// pick chooses which of them is written, so the add is not behind the pick and a
    /// weight mux (the block's critical path, 10.4 ns at speed 8).
    visit_sum: [Signal<Local, Bits<20>>; Q],
    weight_ext: [ZeroExtend<16, 20>; Q],
    /// The queue runs and holds a whole frame: now (`elig_now`), and as the scheduler
    /// sees it (`elig`): a cycle late when `pipelined` (`elig_q`), which takes the
    /// fetchers' FIFO counts out of the scheduler's priority chain, visit quantum and
    /// deficit adder (14.3 ns). Late by a cycle is safe: a pick happens only between
    /// frames, at least two cycles after the frame's last descriptor left its fetcher;
    /// a queue seen eligible a cycle after it stopped is picked and given up at once.
    elig_now: [Signal<Local, Bit>; Q],
    elig_q: [DFF<Bit>; Q],
    elig: [Signal<Local, Bit>; Q],
    q_id: [Constant<Bits<4>>; Q],
    // ---- descriptor fetch arbitration ----
    f_busy: DFF<Bit>,
    f_owner: DFF<Bits<4>>,
    f_hold: DFF<Bit>,
    f_sel: DFF<Bits<4>>,
    f_pick: Signal<Local, Bits<4>>,
    f_any_below: Signal<Local, Bit>,
    f_below: Signal<Local, Bits<4>>,
    // ---- scheduler ----
    in_frame: DFF<Bit>,
    cur_q: DFF<Bits<4>>,
    s_ptr: DFF<Bits<4>>,
    d_cur: DFF<Bits<4>>,
    d_visiting: DFF<Bit>,
    s_any: Signal<Local, Bit>,
    s_any_below: Signal<Local, Bit>,
    s_top: Signal<Local, Bits<4>>,
    s_below: Signal<Local, Bits<4>>,
    n_any: Signal<Local, Bit>,
    n_any_below: Signal<Local, Bit>,
    n_top: Signal<Local, Bits<4>>,
    n_below: Signal<Local, Bits<4>>,
    d_cur_ok: Signal<Local, Bit>,
    // ---- issue ----
    frame_started: DFF<Bit>,
    /// A context descriptor with EOP inside a begun frame: give the frame up.
    force_abandon: DFF<Bit>,
    ctx_pushed: DFF<Bit>,
    have_ctx: DFF<Bit>,
    ctx: DFF<TxCtx>,
    cur_valid: DFF<Bit>,
    cur_addr: DFF<BusAddr>,
    cur_remaining: DFF<Bits<16>>,
    cur_len: DFF<Bits<16>>,
    cur_flags: DFF<Bits<16>>,
    cur_idx: DFF<Bits<16>>,
    /// Data descriptors of the frame taken so far (at most `MAX_FRAME_DESCS`).
    frame_descs: DFF<Bits<8>>,
    reserved: DFF<Bits<16>>,
    sel_run: Signal<Local, Bit>,
    sel_desc_valid: Signal<Local, Bit>,
    sel_desc_addr: Signal<Local, Bits<64>>,
    sel_desc_addr_bad: Signal<Local, Bit>,
    sel_desc_len: Signal<Local, Bits<16>>,
    sel_desc_flags: Signal<Local, Bits<16>>,
    sel_desc_extra: Signal<Local, Bits<16>>,
    sel_pop_idx: Signal<Local, Bits<16>>,
    /// The selected queue's head descriptor, registered (`pipelined`): the issue stage
    /// decides on these flip-flops, not on an 8-way mux of the fetchers' FIFO outputs
    /// behind the queue register (that mux in front of the descriptor checks was the
    /// block's critical path, 24 levels). A descriptor moves from its fetcher into the
    /// stage while the stage is empty, the queue runs and the frame's EOP descriptor has
    /// not been loaded yet (`st_eop_seen`: what follows it belongs to the next frame);
    /// the stage empties when the issue stage takes it, when the frame ends and when the
    /// queue stops (its fetcher is flushed then, and so is this).
    st_valid: DFF<Bit>,
    st_addr: DFF<Bits<64>>,
    st_addr_bad: DFF<Bit>,
    st_len: DFF<Bits<16>>,
    st_flags: DFF<Bits<16>>,
    st_extra: DFF<Bits<16>>,
    st_idx: DFF<Bits<16>>,
    st_eop_seen: DFF<Bit>,
    /// The staged descriptor's own checks, judged as it loads (`pipelined`): a length of
    /// 0, a fragment not whole (no scatter-gather), the frame's 64th data descriptor
    /// already taken, and more bytes than the frame has room for (`frame_room`). What
    /// they depend on besides the descriptor changes only when a descriptor is taken,
    /// and the stage loads only while empty, a cycle after a take at the earliest. The
    /// take decision then reads flip-flops: the length's add and compare in front of it,
    /// and so in front of the deficits and the current descriptor, were the block's
    /// critical path (12.7 ns at speed 8).
    st_zero: DFF<Bit>,
    st_frag: DFF<Bit>,
    st_descs_full: DFF<Bit>,
    st_over: DFF<Bit>,
    /// `max_frame_len - 4` less the bytes of the frame's descriptors taken so far (18
    /// bits, signed; once negative it stays so): a length over it makes the frame too
    /// long, a compare with no add.
    frame_room: DFF<Bits<18>>,
    /// The selected queue's head descriptor's checks (as `st_*`), computed once: the
    /// stage registers them as it loads (`pipelined`), the unpipelined build reads them
    /// directly.
    sel_zero: Signal<Local, Bit>,
    sel_frag: Signal<Local, Bit>,
    sel_descs_full: Signal<Local, Bit>,
    sel_over: Signal<Local, Bit>,
    st_load: Signal<Local, Bit>,
    /// `cur_q` one-hot, registered beside it, and the load condition that does not
    /// depend on the queue: each fetcher's pop is its own AND of registers and its
    /// FIFO's head, not a mux of the eight behind `cur_q` (12.1 ns into the fetchers'
    /// read addresses).
    cur_one: [DFF<Bit>; Q],
    st_common: Signal<Local, Bit>,
    st_load_q: [Signal<Local, Bit>; Q],
    /// The build is pipelined for 156.25 MHz (more than one queue: `full`): the
    /// descriptor stage (`st_*`) and the registered room check (`room_q`). With one queue
    /// there is no mux to cut and the clock is the iCE40's: the issue stage reads the
    /// fetcher's head directly and checks room as it issues (`small`: no flip-flops for
    /// the iCE40, no extra cycle a descriptor).
    pipelined: Constant<Bit>,
    /// The head descriptor as the issue stage sees it: the stage, or the fetcher's head.
    hd_valid: Signal<Local, Bit>,
    hd_addr: Signal<Local, Bits<64>>,
    hd_addr_bad: Signal<Local, Bit>,
    hd_len: Signal<Local, Bits<16>>,
    hd_flags: Signal<Local, Bits<16>>,
    hd_extra: Signal<Local, Bits<16>>,
    hd_idx: Signal<Local, Bits<16>>,
    /// The head descriptor's checks: the stage's, or computed here (not `pipelined`).
    hd_zero: Signal<Local, Bit>,
    hd_frag: Signal<Local, Bit>,
    hd_descs_full: Signal<Local, Bit>,
    hd_over: Signal<Local, Bit>,
    sel_deficit: Signal<Local, Bits<20>>,
    charged: Signal<Local, Bits<20>>,
    info_room: Signal<Local, Bit>,
    /// Room for what the issue stage may add next (`pipelined`): registered, computed a
    /// cycle ahead for the largest addition (a read of 16 beats, 32 narrow entries, or an
    /// entry without a read, and one completion more from the response side), and not
    /// usable in the cycle after the stage pushed an entry, which it does not include.
    /// Only the issue stage adds to what it checks (everything else only drains), so
    /// the check holds with one push every other cycle: each push is followed by at
    /// least one cycle of descriptor work anyway (a read is at most 256 bytes, 32 beats
    /// on the wire). In place of a carry chain from the FIFOs' pointers through the
    /// read's size into the issue decision and everything it drives (15.3 ns at speed 8).
    room_q: DFF<Bit>,
    pushed_q: DFF<Bit>,
    room_cost: Signal<Local, Bits<16>>,
    /// Room for an entry without a read (a context descriptor, an abort marker).
    entry_room: Signal<Local, Bit>,
    /// Room for a read.
    issue_room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    pop_desc: Signal<Local, Bit>,
    abandon: Signal<Local, Bit>,
    /// Error code for the selected queue from its descriptor (0: none).
    set_err: Signal<Local, Bits<8>>,
    /// The entry being made is its frame's first (a read; a context descriptor).
    first_data: Signal<Local, Bit>,
    first_ctx: Signal<Local, Bit>,
    /// A data descriptor is taken: its length is charged to the queue's deficit.
    charge: Signal<Local, Bit>,
    is_tso: Signal<Local, Bit>,
    chunk: Signal<Local, Bits<16>>,
    beats: Signal<Local, Bits<16>>,
    issue: Signal<Local, Bit>,
    push_info: Signal<Local, Bit>,
    info_word: Signal<Local, Bits<52>>,
    /// The info FIFO's head in the `info` layout (the FIFO stores it permuted: see `info`).
    info_head: Signal<Local, Bits<60>>,
    /// Queue numbers have the bits of Q - 1 only.
    queue_bits: Constant<Bits<4>>,
    new_reserve: Signal<Local, Bits<16>>,
    // ---- responses ----
    frame_open: DFF<Bit>,
    chunk_off: DFF<Bits<16>>,
    h_q: Signal<Local, Bits<4>>,
    h_run: Signal<Local, Bit>,
    h_open: Signal<Local, Bit>,
    h_no_read: Signal<Local, Bit>,
    left: Signal<Local, Bits<16>>,
    beat_len: Signal<Local, Bits<16>>,
    beat_fire: Signal<Local, Bit>,
    noread_pop: Signal<Local, Bit>,
    /// Reserved data beats given back this cycle.
    give_back: Signal<Local, Bits<16>>,
    /// The frame open at the response side ends here with an abort beat.
    terminate: Signal<Local, Bit>,
    comp_word: Signal<Local, Bits<64>>,
    // ---- completions ----
    c_q: Signal<Local, Bits<4>>,
    c_needs_verdict: Signal<Local, Bit>,
    c_go: Signal<Local, Bit>,
    c_err: Signal<Local, Bit>,
    c_base: Signal<Local, BusAddr>,
    c_mask: Signal<Local, Bits<16>>,
    c_run: Signal<Local, Bit>,
    c_wb: Signal<Local, Bit>,
    wb_q: Signal<Local, Bits<4>>,
    depth: Constant<Bits<16>>,
    /// Data beats in flight on the read channel at most: enough to cover the host's
    /// latency, few enough that descriptor fetches queued behind them come back soon.
    max_in_flight: Constant<Bits<16>>,
    /// A one-byte beat with frame end and abort set.
    abort_beat: Constant<Bits<135>>,
    /// The write-back word's bits that vary: LEN, and of FLAGS the EOP, REPORT_STATUS and
    /// CTX the descriptor had and ERROR. The rest (DONE, always 1; the info word, 0) is
    /// put back at the slice's output, so the write-back slice's flip-flops hold only these.
    wb_varies: Constant<Bits<64>>,
    wb_fixed: Constant<Bits<64>>,
    /// Request flags TSO | UDP, never valid: a frame with two context descriptors is
    /// refused by the offload engine with them.
    refuse_flags: Constant<TxCtx>,
    /// The most negative deficit, -2^19.
    deficit_floor: Constant<Bits<20>>,
    /// One queue: the scheduler has no one to share with, so it keeps no deficit (a lone
    /// queue's visits always succeed, whatever its weight) and its counter, adder and
    /// subtractor go (`small`).
    single_queue: Constant<Bit>,
    /// Fragments of any length are joined by `packer`; without, a data descriptor other
    /// than its frame's last must hold a multiple of 8 bytes.
    scatter_gather: Constant<Bit>,
    /// `desc::TX_EOP`, for the whole-beat check.
    eop_flag: Constant<Bits<16>>,
    /// The data FIFO holds 8-byte beats ([63:0] data, [131:128] byte count, [133] end,
    /// [134] abort), written through `fdown`; its space is then counted in 8-byte
    /// entries, two per 16-byte beat promised.
    narrow_fifo: Constant<Bit>,
    /// Data FIFO entries taken or promised, and what a read of `beats` beats, or an
    /// abort marker, would add (in entries).
    fifo_used: Signal<Local, Bits<16>>,
    read_cost: Signal<Local, Bits<16>>,
    marker_cost: Signal<Local, Bits<16>>,
    /// The response beat at the head is kept (its queue runs and the host gave it).
    keep_beat: Signal<Local, Bit>,
    /// The 8-byte beat stream after the data FIFO (and the output downsizer).
    b_data: Signal<Local, Bits<64>>,
    b_len: Signal<Local, Bits<4>>,
    b_end: Signal<Local, Bit>,
    b_user: Signal<Local, Bit>,
    b_valid: Signal<Local, Bit>,
    b_ready: Signal<Local, Bit>,
}

impl<const FN: usize, const FNP1: usize, const Q: usize> Default for TxEngine<FN, FNP1, Q> {
    fn default() -> Self {
        assert!(Q >= 1 && Q <= 16, "TX queues: 1..=16");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: std::array::from_fn(|_| Default::default()),
            ring_base: std::array::from_fn(|_| Default::default()),
            ring_mask: std::array::from_fn(|_| Default::default()),
            tail: std::array::from_fn(|_| Default::default()),
            weight: std::array::from_fn(|_| Default::default()),
            strict: std::array::from_fn(|_| Default::default()),
            head: std::array::from_fn(|_| Default::default()),
            active: std::array::from_fn(|_| Default::default()),
            error_code: std::array::from_fn(|_| Default::default()),
            completion: std::array::from_fn(|_| Default::default()),
            max_frame_len: Default::default(),
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
            m_ctx: Default::default(),
            v_valid: Default::default(),
            v_error: Default::default(),
            ctx_supported: Default::default(),
            stat_refused: Default::default(),
            fetch: std::array::from_fn(|_| DescFetch::new(nic_regmap::desc::TX_CTX).with_head_slice(true)),
            info: Default::default(),
            data: Default::default(),
            ctx_fifo: Default::default(),
            comp: Default::default(),
            verdict: Default::default(),
            comp_head: RegSlice::with_skid(true),
            c_data: Default::default(),
            c_empty: Default::default(),
            downsizer: Default::default(),
            data_head: RegSlice::with_skid(true),
            fdown: Default::default(),
            packer: Default::default(),
            wb_slice: RegSlice::with_skid(Q > 1),
            wb_fire: Default::default(),
            wbq_mem: std::array::from_fn(|_| Default::default()),
            wbq_wp: Default::default(),
            wbq_rp: Default::default(),
            wbq_count: Default::default(),
            slot_id: std::array::from_fn(|i| Constant::new(Bits::<3>::from(i as u64))),
            error: std::array::from_fn(|_| Default::default()),
            stopped: std::array::from_fn(|_| Default::default()),
            head_count: std::array::from_fn(|_| Default::default()),
            pop_idx: std::array::from_fn(|_| Default::default()),
            flushing: std::array::from_fn(|_| Default::default()),
            outstanding: std::array::from_fn(|_| Default::default()),
            deficit: std::array::from_fn(|_| Default::default()),
            run: std::array::from_fn(|_| Default::default()),
            ev_in: std::array::from_fn(|_| Default::default()),
            ev_info: std::array::from_fn(|_| Default::default()),
            ev_comp: std::array::from_fn(|_| Default::default()),
            ev_comp_in: std::array::from_fn(|_| Default::default()),
            ev_wb_in: std::array::from_fn(|_| Default::default()),
            ev_wb: std::array::from_fn(|_| Default::default()),
            visit_sum: std::array::from_fn(|_| Default::default()),
            weight_ext: std::array::from_fn(|_| Default::default()),
            elig_now: std::array::from_fn(|_| Default::default()),
            elig_q: std::array::from_fn(|_| Default::default()),
            elig: std::array::from_fn(|_| Default::default()),
            q_id: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64))),
            f_busy: Default::default(),
            f_owner: Default::default(),
            f_hold: Default::default(),
            f_sel: Default::default(),
            f_pick: Default::default(),
            f_any_below: Default::default(),
            f_below: Default::default(),
            in_frame: Default::default(),
            cur_q: Default::default(),
            s_ptr: Default::default(),
            d_cur: Default::default(),
            d_visiting: Default::default(),
            s_any: Default::default(),
            s_any_below: Default::default(),
            s_top: Default::default(),
            s_below: Default::default(),
            n_any: Default::default(),
            n_any_below: Default::default(),
            n_top: Default::default(),
            n_below: Default::default(),
            d_cur_ok: Default::default(),
            frame_started: Default::default(),
            force_abandon: Default::default(),
            ctx_pushed: Default::default(),
            have_ctx: Default::default(),
            ctx: Default::default(),
            cur_valid: Default::default(),
            cur_addr: Default::default(),
            cur_remaining: Default::default(),
            cur_len: Default::default(),
            cur_flags: Default::default(),
            cur_idx: Default::default(),
            frame_descs: Default::default(),
            reserved: Default::default(),
            sel_run: Default::default(),
            sel_desc_valid: Default::default(),
            sel_desc_addr: Default::default(),
            sel_desc_addr_bad: Default::default(),
            sel_desc_len: Default::default(),
            sel_desc_flags: Default::default(),
            sel_desc_extra: Default::default(),
            sel_pop_idx: Default::default(),
            st_valid: Default::default(),
            st_addr: Default::default(),
            st_addr_bad: Default::default(),
            st_len: Default::default(),
            st_flags: Default::default(),
            st_extra: Default::default(),
            st_idx: Default::default(),
            st_eop_seen: Default::default(),
            st_zero: Default::default(),
            st_frag: Default::default(),
            st_descs_full: Default::default(),
            st_over: Default::default(),
            frame_room: Default::default(),
            sel_zero: Default::default(),
            sel_frag: Default::default(),
            sel_descs_full: Default::default(),
            sel_over: Default::default(),
            st_load: Default::default(),
            cur_one: std::array::from_fn(|_| Default::default()),
            st_common: Default::default(),
            st_load_q: std::array::from_fn(|_| Default::default()),
            pipelined: Constant::new(Q > 1),
            hd_valid: Default::default(),
            hd_addr: Default::default(),
            hd_addr_bad: Default::default(),
            hd_len: Default::default(),
            hd_flags: Default::default(),
            hd_extra: Default::default(),
            hd_idx: Default::default(),
            hd_zero: Default::default(),
            hd_frag: Default::default(),
            hd_descs_full: Default::default(),
            hd_over: Default::default(),
            sel_deficit: Default::default(),
            charged: Default::default(),
            info_room: Default::default(),
            room_q: Default::default(),
            pushed_q: Default::default(),
            room_cost: Default::default(),
            entry_room: Default::default(),
            issue_room: Default::default(),
            take: Default::default(),
            pop_desc: Default::default(),
            abandon: Default::default(),
            set_err: Default::default(),
            first_data: Default::default(),
            first_ctx: Default::default(),
            charge: Default::default(),
            is_tso: Default::default(),
            chunk: Default::default(),
            beats: Default::default(),
            issue: Default::default(),
            push_info: Default::default(),
            info_word: Default::default(),
            info_head: Default::default(),
            queue_bits: Constant::new(Bits::<4>::from((Q as u64).next_power_of_two() - 1)),
            new_reserve: Default::default(),
            frame_open: Default::default(),
            chunk_off: Default::default(),
            h_q: Default::default(),
            h_run: Default::default(),
            h_open: Default::default(),
            h_no_read: Default::default(),
            left: Default::default(),
            beat_len: Default::default(),
            beat_fire: Default::default(),
            noread_pop: Default::default(),
            give_back: Default::default(),
            terminate: Default::default(),
            comp_word: Default::default(),
            c_q: Default::default(),
            c_needs_verdict: Default::default(),
            c_go: Default::default(),
            c_err: Default::default(),
            c_base: Default::default(),
            c_mask: Default::default(),
            c_run: Default::default(),
            c_wb: Default::default(),
            wb_q: Default::default(),
            depth: Constant::new(Bits::<16>::from(1u64 << FN)),
            max_in_flight: Constant::new(Bits::<16>::from(32u64)),
            abort_beat: Constant::new((Bits::<135>::from(3u64) << 133) | (Bits::<135>::from(1u64) << 128)),
            wb_varies: Constant::new(Bits::<64>::from(
                0xffff_u64 | (u64::from(nic_regmap::desc::TX_EOP | nic_regmap::desc::TX_REPORT_STATUS | nic_regmap::desc::TX_CTX | nic_regmap::desc::TX_ERROR) << 16),
            )),
            wb_fixed: Constant::new(Bits::<64>::from(u64::from(nic_regmap::desc::DONE) << 16)),
            deficit_floor: Constant::new(Bits::<20>::from(1u64 << 19)),
            single_queue: Constant::new(Q == 1),
            scatter_gather: Constant::new(true),
            eop_flag: Constant::new(Bits::<16>::from(u64::from(nic_regmap::desc::TX_EOP))),
            narrow_fifo: Constant::new(false),
            fifo_used: Default::default(),
            read_cost: Default::default(),
            marker_cost: Default::default(),
            keep_beat: Default::default(),
            b_data: Default::default(),
            b_len: Default::default(),
            b_end: Default::default(),
            b_user: Default::default(),
            b_valid: Default::default(),
            b_ready: Default::default(),
            refuse_flags: Constant::new(Bits::<112>::from(u64::from(nic_regmap::desc::TX_TSO | nic_regmap::desc::TX_UDP)) << 80),
        }
    }
}

impl<const FN: usize, const FNP1: usize, const Q: usize> TxEngine<FN, FNP1, Q> {
    /// With `false`, no byte packer: fragments before a frame's last must be whole 8-byte
    /// beats (`Config::has_scatter_gather`).
    pub fn with_scatter_gather(mut self, on: bool) -> Self {
        self.scatter_gather = Constant::new(on);
        self
    }
    /// With `true`, the data FIFO holds 8-byte beats (`Config::narrow_tx_fifo`).
    pub fn with_narrow_fifo(mut self, on: bool) -> Self {
        self.narrow_fifo = Constant::new(on);
        self
    }
    /// With `true` (`Config::skid_slices`, `full`), each descriptor fetcher's head goes
    /// through a register slice of its own (`DescFetch::with_head_slice`): a pop ends in
    /// the slice's flip-flops, not in the FIFO's pointer and its RAM's read address, and
    /// the descriptor stage loads from registers. One cycle more from a fetch to its use.
    pub fn with_head_slice(mut self, on: bool) -> Self {
        self.fetch = self.fetch.map(|f| f.with_head_slice(on));
        self
    }
}

/// Bit positions below are the `info` and `comp` constants written out: `#[hdl_gen]`
/// takes literals, not paths.
impl<const FN: usize, const FNP1: usize, const Q: usize> Logic for TxEngine<FN, FNP1, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, f_busy, f_owner, f_hold, f_sel, in_frame, cur_q, s_ptr, d_cur, d_visiting, frame_started, ctx_pushed,
            have_ctx, ctx, cur_valid, st_valid, st_addr, st_addr_bad, st_len, st_flags, st_extra, st_idx, st_eop_seen, st_zero, st_frag, st_descs_full, st_over, frame_room, room_q, pushed_q, cur_addr, cur_remaining, cur_len, cur_flags, cur_idx, frame_descs, reserved, frame_open,
            chunk_off, force_abandon, wbq_wp, wbq_rp, wbq_count
        );
        clock!(self, clock, info, data, ctx_fifo, comp, verdict, comp_head, downsizer, data_head, fdown, packer, wb_slice);
        self.info.reset.next = self.reset.val();
        self.data.reset.next = self.reset.val();
        self.ctx_fifo.reset.next = self.reset.val();
        self.comp.reset.next = self.reset.val();
        self.verdict.reset.next = self.reset.val();
        self.downsizer.reset.next = self.reset.val();
        self.data_head.reset.next = self.reset.val();
        self.comp_head.reset.next = self.reset.val();
        self.comp_head.s_data.next = self.comp.data_out.val().get_bits::<42>(0);
        self.comp_head.s_valid.next = !self.comp.empty.val();
        self.c_data.next = self.comp_head.m_data.val();
        self.c_empty.next = !self.comp_head.m_valid.val();
        if !self.pipelined.val() {
            self.comp_head.s_valid.next = false;
            self.c_data.next = self.comp.data_out.val().get_bits::<42>(0);
            self.c_empty.next = self.comp.empty.val();
        }
        self.packer.reset.next = self.reset.val();
        self.wb_slice.reset.next = self.reset.val();
        // the info FIFO's head, back in the `info` layout: IMM_ERR is CTX & EOP (only a
        // context descriptor with EOP has it), CHUNK is at most 256
        self.info_head.next = bit_cast::<60, 9>(self.info.data_out.val().get_bits::<9>(32))
            | (bit_cast::<60, 32>(self.info.data_out.val().get_bits::<32>(0)) << 16)
            | (bit_cast::<60, 7>(self.info.data_out.val().get_bits::<7>(41)) << 48)
            | (bit_cast::<60, 1>((self.info.data_out.val().get_bit(44) & self.info.data_out.val().get_bit(42)).into()) << 55)
            | (bit_cast::<60, 4>(self.info.data_out.val().get_bits::<4>(48) & self.queue_bits.val()) << 56);
        // ================= per queue: state, fetch, views of the selected queues =========
        self.h_q.next = self.info_head.val().get_bits::<4>(56);
        self.c_q.next = self.c_data.val().get_bits::<4>(38);
        self.wb_q.next = 0.into();
        for i in 0..8 {
            self.wbq_mem[i].clock.next = self.clock.val();
            self.wbq_mem[i].d.next = self.wbq_mem[i].q.val();
            if self.wbq_rp.q.val() == self.slot_id[i].val() {
                self.wb_q.next = self.wbq_mem[i].q.val();
            }
        }
        self.sel_run.next = false;
        self.sel_desc_valid.next = false;
        self.sel_desc_addr.next = 0.into();
        self.sel_desc_addr_bad.next = false;
        self.sel_desc_len.next = 0.into();
        self.sel_desc_flags.next = 0.into();
        self.sel_desc_extra.next = 0.into();
        self.sel_pop_idx.next = 0.into();
        self.sel_deficit.next = 0.into();
        self.h_run.next = false;
        self.c_run.next = false;
        self.c_base.next = 0.into();
        self.c_mask.next = 0.into();
        self.d_cur_ok.next = false;
        for i in 0..Q {
            self.error[i].clock.next = self.clock.val();
            self.error[i].d.next = self.error[i].q.val();
            self.stopped[i].clock.next = self.clock.val();
            self.stopped[i].d.next = self.stopped[i].q.val();
            self.head_count[i].clock.next = self.clock.val();
            self.head_count[i].d.next = self.head_count[i].q.val();
            self.pop_idx[i].clock.next = self.clock.val();
            self.pop_idx[i].d.next = self.pop_idx[i].q.val();
            self.flushing[i].clock.next = self.clock.val();
            self.flushing[i].d.next = self.flushing[i].q.val();
            self.outstanding[i].clock.next = self.clock.val();
            self.ev_in[i].clock.next = self.clock.val();
            self.ev_info[i].clock.next = self.clock.val();
            self.ev_comp_in[i].clock.next = self.clock.val();
            self.ev_comp[i].clock.next = self.clock.val();
            self.ev_wb_in[i].clock.next = self.clock.val();
            self.ev_wb[i].clock.next = self.clock.val();
            self.deficit[i].clock.next = self.clock.val();
            self.deficit[i].d.next = self.deficit[i].q.val();
            self.fetch[i].clock.next = self.clock.val();
            self.run[i].next = self.enable[i].val() & !self.stopped[i].q.val() & !self.flushing[i].q.val();
            self.elig_now[i].next = self.run[i].val() & self.fetch[i].frame_ready.val();
            self.elig_q[i].clock.next = self.clock.val();
            self.elig_q[i].d.next = self.elig_now[i].val();
            self.elig[i].next = self.elig_now[i].val();
            if self.pipelined.val() {
                self.elig[i].next = self.elig_q[i].q.val();
            }
            self.active[i].next = self.run[i].val();
            self.error_code[i].next = self.error[i].q.val();
            self.head[i].next = self.head_count[i].q.val();
            self.completion[i].next = false;
            self.fetch[i].reset.next = self.reset.val();
            self.fetch[i].active.next = self.run[i].val();
            self.fetch[i].ring_base.next = self.ring_base[i].val();
            self.fetch[i].ring_mask.next = self.ring_mask[i].val();
            self.fetch[i].tail.next = self.tail[i].val();
            self.fetch[i].rsp_data.next = self.rsp_data.val();
            self.fetch[i].rsp_last.next = self.rsp_last.val();
            self.fetch[i].rsp_error.next = self.rsp_error.val();
            self.fetch[i].rsp_valid.next = self.desc_rsp_valid.val() & (self.f_owner.q.val() == self.q_id[i].val());
            self.fetch[i].req_ready.next = self.desc_req_ready.val() & (self.f_sel.q.val() == self.q_id[i].val()) & self.f_hold.q.val();
            if self.fetch[i].fault.val() & !self.stopped[i].q.val() & !self.flushing[i].q.val() {
                self.error[i].d.next = 1.into(); // QueueError::DescReadFault
                self.stopped[i].d.next = true;
            }
            if self.cur_q.q.val() == self.q_id[i].val() {
                self.sel_run.next = self.run[i].val();
                self.sel_desc_valid.next = self.fetch[i].desc_valid.val();
                self.sel_desc_addr.next = self.fetch[i].desc_addr.val();
                self.sel_desc_addr_bad.next = self.fetch[i].desc_addr_bad.val();
                self.sel_desc_len.next = self.fetch[i].desc_len.val();
                self.sel_desc_flags.next = self.fetch[i].desc_flags.val();
                self.sel_desc_extra.next = self.fetch[i].desc_extra.val();
                self.sel_pop_idx.next = self.pop_idx[i].q.val();
                self.sel_deficit.next = self.deficit[i].q.val();
            }
            if self.h_q.val() == self.q_id[i].val() {
                self.h_run.next = self.run[i].val();
            }
            if self.c_q.val() == self.q_id[i].val() {
                self.c_run.next = self.run[i].val();
                self.c_base.next = self.ring_base[i].val();
                self.c_mask.next = self.ring_mask[i].val();
            }
            if (self.d_cur.q.val() == self.q_id[i].val()) & self.elig[i].val() & !self.strict[i].val() {
                // deficit > 0 (signed)
                self.d_cur_ok.next = (!self.deficit[i].q.val().get_bit(19) & (self.deficit[i].q.val() != 0)) | self.single_queue.val();
            }
        }
        // ================= descriptor fetch: one in flight, rotating grant ===============
        // A request is latched in its fetcher; `f_hold` offers the selected one until the
        // port takes it (a fetcher that withdraws, its queue stopped, releases the grant).
        self.f_pick.next = self.f_sel.q.val();
        self.f_any_below.next = false;
        self.f_below.next = 0.into();
        for i in 0..Q {
            if self.fetch[i].req_valid.val() {
                self.f_pick.next = self.q_id[i].val();
                if self.q_id[i].val() < self.f_sel.q.val() {
                    self.f_any_below.next = true;
                    self.f_below.next = self.q_id[i].val();
                }
            }
        }
        if self.f_any_below.val() {
            self.f_pick.next = self.f_below.val();
        }
        self.desc_req_valid.next = false;
        self.desc_req_addr.next = 0.into();
        self.desc_req_len.next = 0.into();
        for i in 0..Q {
            if self.f_sel.q.val() == self.q_id[i].val() {
                self.desc_req_valid.next = self.f_hold.q.val() & self.fetch[i].req_valid.val();
                self.desc_req_addr.next = self.fetch[i].req_addr.val();
                self.desc_req_len.next = self.fetch[i].req_len.val();
            }
        }
        if self.f_hold.q.val() {
            if self.desc_req_valid.val() & self.desc_req_ready.val() {
                self.f_hold.d.next = false;
                self.f_busy.d.next = true;
                self.f_owner.d.next = self.f_sel.q.val();
            } else if !self.desc_req_valid.val() {
                self.f_hold.d.next = false; // withdrawn
            }
        } else if !self.f_busy.q.val() {
            for i in 0..Q {
                if self.fetch[i].req_valid.val() {
                    self.f_hold.d.next = true;
                }
            }
            self.f_sel.d.next = self.f_pick.val();
        }
        if self.f_busy.q.val() & self.desc_rsp_valid.val() & self.rsp_last.val() {
            self.f_busy.d.next = false;
        }
        // ================= scheduler: pick the next frame's queue =====================
        self.s_any.next = false;
        self.s_any_below.next = false;
        self.s_top.next = 0.into();
        self.s_below.next = 0.into();
        self.n_any.next = false;
        self.n_any_below.next = false;
        self.n_top.next = 0.into();
        self.n_below.next = 0.into();
        for i in 0..Q {
            if self.elig[i].val() & self.strict[i].val() {
                self.s_any.next = true;
                self.s_top.next = self.q_id[i].val();
                if self.q_id[i].val() < self.s_ptr.q.val() {
                    self.s_any_below.next = true;
                    self.s_below.next = self.q_id[i].val();
                }
            }
            if self.elig[i].val() & !self.strict[i].val() {
                self.n_any.next = true;
                self.n_top.next = self.q_id[i].val();
                if self.q_id[i].val() < self.d_cur.q.val() {
                    self.n_any_below.next = true;
                    self.n_below.next = self.q_id[i].val();
                }
            }
        }
        // each queue's deficit after a visit, whichever the visit goes to
        for i in 0..Q {
            self.weight_ext[i].a.next = self.weight[i].val();
            self.visit_sum[i].next = self.deficit[i].q.val() + self.weight_ext[i].y.val();
        }
        if !self.in_frame.q.val() & !self.reset.val() {
            if self.s_any.val() {
                self.in_frame.d.next = true;
                if self.s_any_below.val() {
                    self.cur_q.d.next = self.s_below.val();
                    self.s_ptr.d.next = self.s_below.val();
                } else {
                    self.cur_q.d.next = self.s_top.val();
                    self.s_ptr.d.next = self.s_top.val();
                }
            } else if self.d_visiting.q.val() & self.d_cur_ok.val() {
                self.in_frame.d.next = true;
                self.cur_q.d.next = self.d_cur.q.val();
            } else if self.n_any.val() {
                // visit the next queue: its quantum is added now, it is picked next cycle
                // when its deficit is positive
                self.d_visiting.d.next = true;
                if self.n_any_below.val() {
                    self.d_cur.d.next = self.n_below.val();
                } else {
                    self.d_cur.d.next = self.n_top.val();
                }
                for i in 0..Q {
                    if (self.n_any_below.val() & (self.n_below.val() == self.q_id[i].val()))
                        | (!self.n_any_below.val() & (self.n_top.val() == self.q_id[i].val()))
                    {
                        self.deficit[i].d.next = self.visit_sum[i].val();
                    }
                }
            }
        }
        // ================= descriptor stage: the selected queue's head, registered =====
        self.st_common.next = self.pipelined.val() & self.in_frame.q.val() & !self.st_valid.q.val() & !self.st_eop_seen.q.val() & !self.force_abandon.q.val();
        self.st_load.next = false;
        for i in 0..Q {
            self.cur_one[i].clock.next = self.clock.val();
            self.cur_one[i].d.next = self.cur_q.d.val() == self.q_id[i].val();
            self.st_load_q[i].next = self.st_common.val() & self.cur_one[i].q.val() & self.run[i].val() & self.fetch[i].desc_valid.val();
            if self.st_load_q[i].val() {
                self.st_load.next = true;
            }
        }
        // the head descriptor's own checks; what they read besides it (`frame_descs`,
        // `frame_room`) changes only as a descriptor is taken
        self.sel_zero.next = self.sel_desc_len.val() == 0;
        self.sel_frag.next = !self.scatter_gather.val() & ((self.sel_desc_flags.val() & self.eop_flag.val()) == 0) & (self.sel_desc_len.val().get_bits::<3>(0) != 0);
        self.sel_descs_full.next = self.frame_descs.q.val() == 64;
        self.sel_over.next = self.frame_room.q.val().get_bit(17) | (bit_cast::<17, 16>(self.sel_desc_len.val()) > self.frame_room.q.val().get_bits::<17>(0));
        if self.st_load.val() {
            self.st_addr.d.next = self.sel_desc_addr.val();
            self.st_addr_bad.d.next = self.sel_desc_addr_bad.val();
            self.st_len.d.next = self.sel_desc_len.val();
            self.st_flags.d.next = self.sel_desc_flags.val();
            self.st_extra.d.next = self.sel_desc_extra.val();
            self.st_idx.d.next = self.sel_pop_idx.val();
            if self.sel_desc_flags.val().get_bit(0) {
                self.st_eop_seen.d.next = true;
            }
            self.st_zero.d.next = self.sel_zero.val();
            self.st_frag.d.next = self.sel_frag.val();
            self.st_descs_full.d.next = self.sel_descs_full.val();
            self.st_over.d.next = self.sel_over.val();
        }
        self.hd_valid.next = self.st_valid.q.val();
        self.hd_addr.next = self.st_addr.q.val();
        self.hd_addr_bad.next = self.st_addr_bad.q.val();
        self.hd_len.next = self.st_len.q.val();
        self.hd_flags.next = self.st_flags.q.val();
        self.hd_extra.next = self.st_extra.q.val();
        self.hd_idx.next = self.st_idx.q.val();
        self.hd_zero.next = self.st_zero.q.val();
        self.hd_frag.next = self.st_frag.q.val();
        self.hd_descs_full.next = self.st_descs_full.q.val();
        self.hd_over.next = self.st_over.q.val();
        if !self.pipelined.val() {
            self.hd_valid.next = self.sel_desc_valid.val();
            self.hd_addr.next = self.sel_desc_addr.val();
            self.hd_addr_bad.next = self.sel_desc_addr_bad.val();
            self.hd_len.next = self.sel_desc_len.val();
            self.hd_flags.next = self.sel_desc_flags.val();
            self.hd_extra.next = self.sel_desc_extra.val();
            self.hd_idx.next = self.sel_pop_idx.val();
            self.hd_zero.next = self.sel_zero.val();
            self.hd_frag.next = self.sel_frag.val();
            self.hd_descs_full.next = self.sel_descs_full.val();
            self.hd_over.next = self.sel_over.val();
        }
        // ================= issue: the selected queue's frame ==========================
        self.is_tso.next = self.have_ctx.q.val() & self.ctx.q.val().get_bit(86);
        // data FIFO space in entries: a 16-byte beat promised takes two narrow entries
        self.fifo_used.next = bit_cast::<16, FNP1>(self.data.count.val()) + self.reserved.q.val();
        self.marker_cost.next = 1.into();
        if self.narrow_fifo.val() {
            self.fifo_used.next = bit_cast::<16, FNP1>(self.data.count.val()) + (self.reserved.q.val() << 1);
            self.marker_cost.next = 2.into();
        }
        // an info entry needs room for itself and for the completion it may make
        self.info_room.next = !self.info.full.val()
            & ((bit_cast::<9, 8>(self.comp.count.val()) + bit_cast::<9, 5>(self.info.count.val())) < 126)
            & ((self.fifo_used.val() + self.marker_cost.val()) <= self.depth.val());
        self.abandon.next = self.in_frame.q.val() & (!self.sel_run.val() | self.force_abandon.q.val());
        self.set_err.next = 0.into();
        // (negations kept out of casts: Verilog widens before it inverts)
        self.first_data.next = !self.frame_started.q.val();
        self.first_ctx.next = !self.frame_started.q.val() & !self.hd_flags.val().get_bit(0);
        self.take.next = self.in_frame.q.val() & self.sel_run.val() & !self.cur_valid.q.val() & self.hd_valid.val();
        self.pop_desc.next = false;
        self.push_info.next = false;
        self.info_word.next = 0.into();
        self.new_reserve.next = 0.into();
        self.ctx_fifo.write.next = false;
        self.ctx_fifo.data_in.next = self.ctx.q.val();
        self.charge.next = false;
        // reads of at most 256 bytes, only with room for every beat
        self.chunk.next = self.cur_remaining.q.val();
        if self.chunk.val() > 256 {
            self.chunk.next = 256.into();
        }
        self.beats.next = (self.chunk.val() + 15) >> 4;
        self.read_cost.next = self.beats.val();
        if self.narrow_fifo.val() {
            self.read_cost.next = self.beats.val() << 1;
        }
        self.data_req_addr.next = bit_cast::<64, 48>(self.cur_addr.q.val());
        self.data_req_len.next = self.chunk.val();
        self.entry_room.next = self.info_room.val();
        self.issue_room.next = self.info_room.val()
            & !self.ctx_fifo.full.val()
            & ((self.fifo_used.val() + self.read_cost.val()) <= self.depth.val())
            & (self.reserved.q.val() < self.max_in_flight.val());
        self.room_cost.next = 16.into();
        if self.narrow_fifo.val() {
            self.room_cost.next = 32.into();
        }
        self.room_q.d.next = !self.info.full.val()
            & ((bit_cast::<9, 8>(self.comp.count.val()) + bit_cast::<9, 5>(self.info.count.val())) < 125)
            & ((self.fifo_used.val() + self.room_cost.val()) <= self.depth.val())
            & !self.ctx_fifo.full.val()
            & (self.reserved.q.val() < self.max_in_flight.val());
        if self.pipelined.val() {
            self.entry_room.next = self.room_q.q.val() & !self.pushed_q.q.val();
            self.issue_room.next = self.room_q.q.val() & !self.pushed_q.q.val();
        }
        self.data_req_valid.next = self.in_frame.q.val() & self.sel_run.val() & self.cur_valid.q.val() & self.issue_room.val();
        self.issue.next = self.data_req_valid.val() & self.data_req_ready.val();
        if self.issue.val() {
            self.push_info.next = true;
            self.new_reserve.next = self.beats.val();
            self.info_word.next = bit_cast::<52, 16>(self.cur_idx.q.val())
                | (bit_cast::<52, 16>(self.cur_len.q.val()) << 16)
                | (bit_cast::<52, 9>(self.chunk.val().get_bits::<9>(0)) << 32)
                | (bit_cast::<52, 16>(self.cur_flags.q.val() & 3) << 42)
                | (bit_cast::<52, 1>(self.first_data.val().into()) << 47)
                | (bit_cast::<52, 4>(self.cur_q.q.val()) << 48);
            if self.chunk.val() == self.cur_remaining.q.val() {
                self.info_word.next = bit_cast::<52, 16>(self.cur_idx.q.val())
                    | (bit_cast::<52, 16>(self.cur_len.q.val()) << 16)
                    | (bit_cast::<52, 9>(self.chunk.val().get_bits::<9>(0)) << 32)
                    | (bit_cast::<52, 1>(true.into()) << 41)
                    | (bit_cast::<52, 16>(self.cur_flags.q.val() & 3) << 42)
                    | (bit_cast::<52, 1>(self.first_data.val().into()) << 47)
                    | (bit_cast::<52, 4>(self.cur_q.q.val()) << 48);
                self.cur_valid.d.next = false;
                if self.cur_flags.q.val().get_bit(0) {
                    self.in_frame.d.next = false; // the frame's last read: next frame
                }
            }
            self.frame_started.d.next = true;
            if !self.ctx_pushed.q.val() {
                self.ctx_fifo.write.next = true;
                self.ctx_pushed.d.next = true;
            }
            self.cur_addr.d.next = self.cur_addr.q.val() + bit_cast::<48, 16>(self.chunk.val());
            self.cur_remaining.d.next = self.cur_remaining.q.val() - self.chunk.val();
        } else if self.abandon.val() {
            // the queue stopped (error, disabled) inside a frame: mark the frame's end so
            // the response side terminates it, and give the frame its offload request
            if !self.frame_started.q.val() {
                self.in_frame.d.next = false;
                self.cur_valid.d.next = false;
            } else if self.entry_room.val() & (self.ctx_pushed.q.val() | !self.ctx_fifo.full.val()) {
                self.push_info.next = true;
                self.new_reserve.next = 1.into();
                self.info_word.next = (bit_cast::<52, 1>(true.into()) << 45)
                    | (bit_cast::<52, 1>(true.into()) << 46)
                    | (bit_cast::<52, 4>(self.cur_q.q.val()) << 48);
                if !self.ctx_pushed.q.val() {
                    self.ctx_fifo.write.next = true;
                }
                self.in_frame.d.next = false;
                self.cur_valid.d.next = false;
            }
        } else if self.take.val() {
            if self.hd_flags.val().get_bit(2) & self.ctx_pushed.q.val() {
                // a context descriptor after the frame's data: a bad descriptor
                self.set_err.next = 6.into(); // QueueError::MisplacedContext
            } else if self.hd_flags.val().get_bit(2) & !self.ctx_supported.val() {
                self.set_err.next = 8.into(); // QueueError::UnsupportedContext
            } else if self.hd_flags.val().get_bit(2) {
                // context descriptor: an entry of its own that completes with the frame
                if self.entry_room.val() {
                    self.pop_desc.next = true;
                    self.push_info.next = true;
                    self.new_reserve.next = 1.into();
                    // (written back with length 0: its length field holds the MSS)
                    // (IMM_ERR is not stored: CTX & EOP gives it back)
                    self.info_word.next = bit_cast::<52, 16>(self.hd_idx.val())
                        | (bit_cast::<52, 1>(true.into()) << 41)
                        | (bit_cast::<52, 16>(self.hd_flags.val() & 7) << 42)
                        | (bit_cast::<52, 1>(true.into()) << 45)
                        | (bit_cast::<52, 1>(self.first_ctx.val().into()) << 47)
                        | (bit_cast::<52, 4>(self.cur_q.q.val()) << 48);
                    if self.hd_flags.val().get_bit(0) {
                        // a context descriptor with EOP: refused at once; a frame begun
                        // by an earlier context descriptor is abandoned after it
                        if !self.frame_started.q.val() {
                            self.in_frame.d.next = false;
                            self.have_ctx.d.next = false;
                        } else {
                            self.force_abandon.d.next = true;
                        }
                    } else {
                        self.frame_started.d.next = true;
                        if self.have_ctx.q.val() {
                            // two context descriptors: refused (TSO with UDP is never valid)
                            self.ctx.d.next = self.ctx.q.val() | self.refuse_flags.val();
                        } else {
                            self.have_ctx.d.next = true;
                            self.ctx.d.next = bit_cast::<112, 64>(self.hd_addr.val())
                                | (bit_cast::<112, 16>(self.hd_len.val()) << 64)
                                | (bit_cast::<112, 16>(self.hd_flags.val()) << 80)
                                | (bit_cast::<112, 16>(self.hd_extra.val()) << 96);
                        }
                    }
                }
            } else if self.hd_zero.val() {
                self.set_err.next = 4.into(); // QueueError::ZeroLength
            } else if self.hd_addr_bad.val() {
                self.set_err.next = 9.into(); // QueueError::AddressTooWide
            } else if self.hd_descs_full.val() {
                self.set_err.next = 7.into(); // QueueError::TooManyDescriptors (MAX_FRAME_DESCS)
            } else if self.hd_frag.val() {
                self.set_err.next = 10.into(); // QueueError::FragmentNotWhole
            } else if !self.is_tso.val() & self.hd_over.val() {
                self.set_err.next = 5.into(); // QueueError::FrameTooLong
            } else {
                self.pop_desc.next = true;
                self.frame_descs.d.next = self.frame_descs.q.val() + 1;
                if self.is_tso.val() & (self.frame_descs.q.val() == 0) & (self.hd_len.val() < self.ctx.q.val().get_bits::<16>(96)) {
                    // TSO needs its header template whole in the first data descriptor
                    self.ctx.d.next = self.ctx.q.val() | self.refuse_flags.val();
                }
                self.cur_valid.d.next = true;
                self.cur_addr.d.next = bit_cast::<48, 44>(self.hd_addr.val().get_bits::<44>(0));
                self.cur_remaining.d.next = self.hd_len.val();
                self.cur_len.d.next = self.hd_len.val();
                self.cur_flags.d.next = self.hd_flags.val();
                self.cur_idx.d.next = self.hd_idx.val();
                self.charge.next = true;
                if !self.frame_room.q.val().get_bit(17) {
                    self.frame_room.d.next = self.frame_room.q.val() - bit_cast::<18, 16>(self.hd_len.val());
                }
            }
        }
        // a new frame begins when the scheduler picks a queue
        if !self.in_frame.q.val() {
            self.frame_descs.d.next = 0.into();
            self.force_abandon.d.next = false;
            self.frame_started.d.next = false;
            self.ctx_pushed.d.next = false;
            self.have_ctx.d.next = false;
            self.ctx.d.next = 0.into();
            self.frame_room.d.next = bit_cast::<18, 16>(self.max_frame_len.val()) - 4;
        }
        // the selected queue's deficit after this descriptor: saturates, never wraps
        // (from the head's length whether or not it is taken: the take decides only the
        // write, not the subtract's input)
        self.charged.next = self.sel_deficit.val() - bit_cast::<20, 16>(self.hd_len.val());
        if self.sel_deficit.val().get_bit(19) & !self.charged.val().get_bit(19) {
            self.charged.next = self.deficit_floor.val();
        }
        // the stage empties when its descriptor is taken, and with its frame or queue
        if self.pop_desc.val() | !self.in_frame.q.val() | !self.sel_run.val() {
            self.st_valid.d.next = false;
        }
        if self.st_load.val() {
            self.st_valid.d.next = true;
        }
        if !self.in_frame.q.val() {
            self.st_eop_seen.d.next = false;
        }
        for i in 0..Q {
            // (the stage's loads per queue; without it the take, for the current queue)
            self.fetch[i].desc_pop.next = self.st_load_q[i].val();
            if !self.pipelined.val() {
                self.fetch[i].desc_pop.next = self.pop_desc.val() & (self.cur_q.q.val() == self.q_id[i].val());
            }
            if self.fetch[i].desc_pop.val() {
                self.pop_idx[i].d.next = self.pop_idx[i].q.val() + 1;
            }
            if self.cur_q.q.val() == self.q_id[i].val() {
                if self.charge.val() & !self.strict[i].val() {
                    self.deficit[i].d.next = self.charged.val();
                }
                if self.set_err.val() != 0 {
                    self.error[i].d.next = self.set_err.val();
                    self.stopped[i].d.next = true;
                }
            }
            // a queue that is not eligible loses its deficit (not while its frame is taken)
            if !self.elig[i].val() & !(self.in_frame.q.val() & (self.cur_q.q.val() == self.q_id[i].val())) {
                self.deficit[i].d.next = 0.into();
            }
        }
        self.info.write.next = self.push_info.val();
        self.pushed_q.d.next = self.push_info.val();
        // (already in the stored layout, see `info`)
        self.info.data_in.next = self.info_word.val();
        // ================= responses: data, completions, aborts =======================
        self.h_no_read.next = !self.info.empty.val() & self.info_head.val().get_bit(52);
        self.h_open.next = self.frame_open.q.val() | (self.info_head.val().get_bit(54) & (self.chunk_off.q.val() == 0));
        self.data_rsp_ready.next = !self.data.full.val() & !self.h_no_read.val();
        // narrow FIFO: a kept beat goes in through `fdown`, taken once its second half is
        self.keep_beat.next = !self.h_no_read.val() & !self.rsp_error.val() & self.h_run.val();
        self.fdown.s_valid.next = false;
        if self.narrow_fifo.val() {
            self.fdown.s_valid.next = self.data_rsp_valid.val() & self.keep_beat.val();
            if self.keep_beat.val() {
                self.data_rsp_ready.next = self.fdown.s_ready.val();
            }
        }
        self.beat_fire.next = self.data_rsp_valid.val() & self.data_rsp_ready.val();
        // `fdown` remembers a beat's first half across cycles where the host withdraws
        // the beat (it offers the same beat again), and forgets it once any beat is taken:
        // a kept beat given up after its first half (its queue stopped meanwhile) is taken
        // as dropped, and the next beat starts at its first half.
        self.fdown.reset.next = self.reset.val() | self.beat_fire.val();
        self.noread_pop.next = self.h_no_read.val();
        self.left.next = self.info_head.val().get_bits::<16>(0) - self.chunk_off.q.val();
        self.beat_len.next = self.left.val();
        if self.left.val() > 16 {
            self.beat_len.next = 16.into();
        }
        self.info.read.next = false;
        self.data.write.next = false;
        self.data.data_in.next = bit_cast::<135, 128>(self.rsp_data.val())
            | (bit_cast::<135, 16>(self.beat_len.val()) << 128)
            | (bit_cast::<135, 1>(
                (self.rsp_last.val() & self.info_head.val().get_bit(48) & self.info_head.val().get_bit(49)).into(),
            ) << 133);
        self.comp.write.next = false;
        // the entry for a descriptor: index, length, flags, queue
        self.comp_word.next = bit_cast::<64, 16>(self.info_head.val().get_bits::<16>(16))
            | (bit_cast::<64, 16>(self.info_head.val().get_bits::<16>(32)) << 16)
            | (bit_cast::<64, 3>(self.info_head.val().get_bits::<3>(49)) << 32)
            | (bit_cast::<64, 1>(true.into()) << 35)
            | (bit_cast::<64, 1>(self.info_head.val().get_bit(55).into()) << 37)
            | (bit_cast::<64, 4>(self.h_q.val()) << 38);
        self.terminate.next = false;
        if self.noread_pop.val() {
            self.info.read.next = true;
            if self.info_head.val().get_bit(53) {
                // info::ABORT: the frame ends here
                self.terminate.next = self.h_open.val();
                self.frame_open.d.next = false;
            } else {
                // a context descriptor: completes with its frame (not when its queue has
                // stopped: the abort marker that follows ends the frame, after the issue
                // stage has given the frame its request)
                self.comp.write.next = self.h_run.val();
                if self.info_head.val().get_bit(54) {
                    self.frame_open.d.next = true;
                }
            }
        }
        if self.beat_fire.val() {
            if self.rsp_last.val() {
                self.info.read.next = true;
                self.chunk_off.d.next = 0.into();
            } else {
                self.chunk_off.d.next = self.chunk_off.q.val() + 16;
            }
            if self.rsp_error.val() | !self.h_run.val() {
                // dropped: a read refused by the host, or its queue stopped
                if self.rsp_error.val() {
                    for i in 0..Q {
                        if (self.h_q.val() == self.q_id[i].val()) & !self.stopped[i].q.val() & !self.flushing[i].q.val() {
                            self.error[i].d.next = 2.into(); // QueueError::DataReadFault
                            self.stopped[i].d.next = true;
                        }
                    }
                }
                self.terminate.next = self.h_open.val();
                self.frame_open.d.next = false;
            } else {
                self.data.write.next = true;
                self.frame_open.d.next = true;
                if self.rsp_last.val() & self.info_head.val().get_bit(48) {
                    self.comp.write.next = true;
                    if self.info_head.val().get_bit(49) {
                        // EOP: the frame's last entry
                        self.frame_open.d.next = false;
                        self.comp_word.next = bit_cast::<64, 16>(self.info_head.val().get_bits::<16>(16))
                            | (bit_cast::<64, 16>(self.info_head.val().get_bits::<16>(32)) << 16)
                            | (bit_cast::<64, 3>(self.info_head.val().get_bits::<3>(49)) << 32)
                            | (bit_cast::<64, 1>(true.into()) << 35)
                            | (bit_cast::<64, 1>(true.into()) << 36)
                            | (bit_cast::<64, 4>(self.h_q.val()) << 38);
                    }
                }
            }
        }
        if self.terminate.val() {
            // end the open frame with an abort beat; its completion entry only takes the
            // frame's verdict (comp::END, no descriptor)
            self.data.data_in.next = self.abort_beat.val();
            self.data.write.next = true;
            self.comp.write.next = true;
            self.comp_word.next = (bit_cast::<64, 1>(true.into()) << 36) | (bit_cast::<64, 4>(self.h_q.val()) << 38);
        }
        self.comp.data_in.next = self.comp_word.val();
        self.fdown.s_data.next = self.rsp_data.val();
        self.fdown.s_len.next = self.beat_len.val().get_bits::<5>(0);
        self.fdown.s_end.next = self.rsp_last.val() & self.info_head.val().get_bit(48) & self.info_head.val().get_bit(49);
        self.fdown.s_user.next = false;
        self.fdown.m_ready.next = !self.data.full.val();
        if self.narrow_fifo.val() & !self.terminate.val() {
            // (an abort beat comes only with no kept beat at the head, so never beside these)
            self.data.write.next = self.fdown.m_valid.val() & !self.data.full.val();
            self.data.data_in.next = bit_cast::<135, 64>(self.fdown.m_data.val())
                | (bit_cast::<135, 4>(self.fdown.m_len.val()) << 128)
                | (bit_cast::<135, 1>(self.fdown.m_end.val().into()) << 133);
        }
        // reserved beats: promised at issue, released by each beat taken (kept or not)
        // (a refused read ends early: its last beat gives back every beat not received)
        self.give_back.next = 0.into();
        if self.noread_pop.val() {
            self.give_back.next = 1.into();
        }
        if self.beat_fire.val() {
            self.give_back.next = 1.into();
            if self.rsp_last.val() {
                self.give_back.next = (self.left.val() + 15) >> 4;
            }
        }
        self.reserved.d.next = self.reserved.q.val() + self.new_reserve.val() - self.give_back.val();
        // ================= completions, in order, after the frame's verdict ===========
        self.verdict.write.next = self.v_valid.val();
        self.verdict.data_in.next = self.v_error.val();
        self.c_needs_verdict.next = !self.c_data.val().get_bit(37);
        self.c_go.next = !self.c_empty.val() & (!self.c_needs_verdict.val() | !self.verdict.empty.val()) & self.wb_slice.s_ready.val();
        self.c_err.next = self.c_data.val().get_bit(37) | (self.c_needs_verdict.val() & self.verdict.data_out.val());
        self.comp_head.m_ready.next = self.c_go.val();
        self.comp.read.next = self.comp_head.s_ready.val();
        if !self.pipelined.val() {
            self.comp.read.next = self.c_go.val();
        }
        self.verdict.read.next = self.c_go.val() & self.c_data.val().get_bit(36);
        self.stat_refused.next = self.c_go.val()
            & (self.c_data.val().get_bit(37) | (self.c_data.val().get_bit(36) & self.verdict.data_out.val()));
        self.c_wb.next = self.c_go.val() & self.c_run.val() & self.c_data.val().get_bit(35) & self.c_data.val().get_bit(33);
        self.wb_slice.s_valid.next = self.c_wb.val();
        // write-back at bytes 8..16: length, flags (EOP, RS, CTX) | ERROR; DONE and the
        // info word (0) are added at the slice's output (`wb_fixed`)
        self.wb_slice.s_data.next = bit_cast::<132, 64>(
            bit_cast::<64, 48>(self.c_base.val() + (bit_cast::<48, 16>(self.c_data.val().get_bits::<16>(0) & self.c_mask.val()) << 4) + 8),
        ) | (bit_cast::<132, 16>(self.c_data.val().get_bits::<16>(16)) << 64)
            | (bit_cast::<132, 3>(self.c_data.val().get_bits::<3>(32)) << 80)
            | (bit_cast::<132, 1>(self.c_err.val().into()) << 94)
            | (bit_cast::<132, 4>(self.c_q.val()) << 128);
        // ================= write-back port ===========================================
        self.wb_valid.next = self.wb_slice.m_valid.val() & (self.wbq_count.q.val() < 8);
        self.wb_addr.next = bit_cast::<64, 48>(self.wb_slice.m_data.val().get_bits::<48>(0));
        self.wb_data.next = (self.wb_slice.m_data.val().get_bits::<64>(64) & self.wb_varies.val()) | self.wb_fixed.val();
        self.wb_slice.m_ready.next = self.wb_ready.val() & (self.wbq_count.q.val() < 8);
        self.wb_fire.next = self.wb_valid.val() & self.wb_ready.val();
        // the queue of each write-back the port took, until its response (in order)
        for i in 0..8 {
            if self.wb_fire.val() & (self.wbq_wp.q.val() == self.slot_id[i].val()) {
                self.wbq_mem[i].d.next = self.wb_slice.m_data.val().get_bits::<4>(128);
            }
        }
        if self.wb_fire.val() {
            self.wbq_wp.d.next = self.wbq_wp.q.val() + 1;
        }
        if self.wb_rsp_valid.val() {
            self.wbq_rp.d.next = self.wbq_rp.q.val() + 1;
        }
        self.wbq_count.d.next = self.wbq_count.q.val() + bit_cast::<4, 1>(self.wb_fire.val().into()) - bit_cast::<4, 1>(self.wb_rsp_valid.val().into());
        // ================= per queue: completions, faults, flushes, bookkeeping =======
        for i in 0..Q {
            if self.c_go.val() & (self.c_q.val() == self.q_id[i].val()) & self.c_run.val() & self.c_data.val().get_bit(35) {
                self.head_count[i].d.next = self.head_count[i].q.val() + 1;
                self.completion[i].next = true;
            }
            if self.wb_rsp_valid.val() & self.wb_rsp_error.val() & (self.wb_q.val() == self.q_id[i].val()) & !self.stopped[i].q.val() & !self.flushing[i].q.val() {
                self.error[i].d.next = 3.into(); // QueueError::WriteFault
                self.stopped[i].d.next = true;
            }
            // entries, completions and write-backs of queue i inside the engine
            self.ev_in[i].d.next = 0.into();
            if self.push_info.val() & (self.cur_q.q.val() == self.q_id[i].val()) {
                self.ev_in[i].d.next = 1.into();
            }
            self.ev_info[i].d.next = 0.into();
            if self.info.read.val() & (self.h_q.val() == self.q_id[i].val()) {
                self.ev_info[i].d.next = 1.into();
            }
            self.ev_comp_in[i].d.next = 0.into();
            if self.comp.write.val() & (self.h_q.val() == self.q_id[i].val()) {
                self.ev_comp_in[i].d.next = 1.into();
            }
            self.ev_comp[i].d.next = 0.into();
            if self.c_go.val() & (self.c_q.val() == self.q_id[i].val()) {
                self.ev_comp[i].d.next = 1.into();
            }
            self.ev_wb_in[i].d.next = 0.into();
            if self.c_wb.val() & (self.c_q.val() == self.q_id[i].val()) {
                self.ev_wb_in[i].d.next = 1.into();
            }
            self.ev_wb[i].d.next = 0.into();
            if self.wb_rsp_valid.val() & (self.wb_q.val() == self.q_id[i].val()) {
                self.ev_wb[i].d.next = 1.into();
            }
            self.outstanding[i].d.next = self.outstanding[i].q.val() + self.ev_in[i].q.val() + self.ev_comp_in[i].q.val() + self.ev_wb_in[i].q.val()
                - self.ev_info[i].q.val()
                - self.ev_comp[i].q.val()
                - self.ev_wb[i].q.val();
            if !self.enable[i].val() {
                self.flushing[i].d.next = true;
            }
            if self.flushing[i].q.val()
                & self.enable[i].val()
                & (self.outstanding[i].q.val() == 0)
                & (self.ev_in[i].q.val() == 0)
                & (self.ev_comp_in[i].q.val() == 0)
                & (self.ev_wb_in[i].q.val() == 0)
                & self.fetch[i].idle.val()
                & !(self.in_frame.q.val() & (self.cur_q.q.val() == self.q_id[i].val()))
            {
                self.flushing[i].d.next = false;
            }
            // disabling the queue clears its state (the driver disables an idle queue)
            if self.reset.val() | !self.enable[i].val() {
                self.error[i].d.next = 0.into();
                self.stopped[i].d.next = false;
                self.pop_idx[i].d.next = 0.into();
                self.head_count[i].d.next = 0.into();
                self.deficit[i].d.next = 0.into();
            }
            if self.single_queue.val() {
                self.deficit[i].d.next = 0.into();
            }
            if self.reset.val() {
                self.flushing[i].d.next = false;
                self.outstanding[i].d.next = 0.into();
                self.ev_in[i].d.next = 0.into();
                self.ev_info[i].d.next = 0.into();
                self.ev_comp_in[i].d.next = 0.into();
                self.ev_comp[i].d.next = 0.into();
                self.ev_wb_in[i].d.next = 0.into();
                self.ev_wb[i].d.next = 0.into();
            }
        }
        // ================= data FIFO → downsizer → packer → out =======================
        // the 8-byte beats: from the output downsizer, or straight from a narrow FIFO
        self.b_ready.next = self.m_ready.val();
        if self.scatter_gather.val() {
            self.b_ready.next = self.packer.s_ready.val();
        }
        // (through `data_head` when pipelined)
        self.data_head.s_data.next = self.data.data_out.val();
        self.data_head.s_valid.next = !self.data.empty.val();
        self.data_head.m_ready.next = self.downsizer.s_ready.val();
        self.downsizer.s_data.next = self.data_head.m_data.val().get_bits::<128>(0);
        self.downsizer.s_len.next = self.data_head.m_data.val().get_bits::<5>(128);
        self.downsizer.s_end.next = self.data_head.m_data.val().get_bit(133);
        self.downsizer.s_user.next = self.data_head.m_data.val().get_bit(134);
        self.downsizer.s_valid.next = self.data_head.m_valid.val();
        self.data.read.next = self.data_head.s_ready.val();
        if !self.pipelined.val() {
            self.data_head.s_valid.next = false;
            self.downsizer.s_data.next = self.data.data_out.val().get_bits::<128>(0);
            self.downsizer.s_len.next = self.data.data_out.val().get_bits::<5>(128);
            self.downsizer.s_end.next = self.data.data_out.val().get_bit(133);
            self.downsizer.s_user.next = self.data.data_out.val().get_bit(134);
            self.downsizer.s_valid.next = !self.data.empty.val();
            self.data.read.next = self.downsizer.s_ready.val();
        }
        self.downsizer.m_ready.next = self.b_ready.val();
        self.b_data.next = self.downsizer.m_data.val();
        self.b_len.next = self.downsizer.m_len.val();
        self.b_end.next = self.downsizer.m_end.val();
        self.b_user.next = self.downsizer.m_user.val();
        self.b_valid.next = self.downsizer.m_valid.val();
        if self.narrow_fifo.val() {
            self.downsizer.s_valid.next = false;
            self.data.read.next = self.b_ready.val();
            self.b_data.next = self.data.data_out.val().get_bits::<64>(0);
            self.b_len.next = self.data.data_out.val().get_bits::<4>(128);
            self.b_end.next = self.data.data_out.val().get_bit(133);
            self.b_user.next = self.data.data_out.val().get_bit(134);
            self.b_valid.next = !self.data.empty.val();
        }
        self.packer.s_data.next = self.b_data.val();
        self.packer.s_len.next = self.b_len.val();
        self.packer.s_end.next = self.b_end.val();
        self.packer.s_user.next = self.b_user.val();
        self.packer.s_valid.next = self.b_valid.val();
        self.m_data.next = self.packer.m_data.val();
        self.m_len.next = self.packer.m_len.val();
        self.m_last.next = self.packer.m_last.val();
        self.m_user.next = self.packer.m_user.val();
        self.m_valid.next = self.packer.m_valid.val();
        self.packer.m_ready.next = self.m_ready.val();
        if !self.scatter_gather.val() {
            // whole-beat fragments: the beats are full until the frame's last
            self.packer.s_valid.next = false;
            self.packer.m_ready.next = false;
            self.m_data.next = self.b_data.val();
            self.m_len.next = self.b_len.val();
            self.m_last.next = self.b_end.val();
            self.m_user.next = self.b_user.val();
            self.m_valid.next = self.b_valid.val();
        }
        self.m_ctx.next = self.ctx_fifo.data_out.val();
        self.ctx_fifo.read.next = self.m_valid.val() & self.m_ready.val() & self.m_last.val();
        if self.reset.val() {
            self.f_busy.d.next = false;
            self.f_hold.d.next = false;
            self.in_frame.d.next = false;
            self.d_visiting.d.next = false;
            self.cur_valid.d.next = false;
            self.st_valid.d.next = false;
            self.st_eop_seen.d.next = false;
            self.reserved.d.next = 0.into();
            self.frame_open.d.next = false;
            self.chunk_off.d.next = 0.into();
            self.force_abandon.d.next = false;
            self.wbq_wp.d.next = 0.into();
            self.wbq_rp.d.next = 0.into();
            self.wbq_count.d.next = 0.into();
        }
    }
}
