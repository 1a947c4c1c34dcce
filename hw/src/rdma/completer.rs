//! The completer (rxe_comp.c's role): the requester's WQEs on the wire wait here for their
//! ACK, and complete in the order they were posted, their CQEs going to the QP's send CQ
//! (`RdmaCqWriter`). The behavioural model's `completer_receive`, `complete_through`,
//! `fail_head` and `flush` (testbench/src/roce/engine/completer.rs, mod.rs) are the
//! reference.
//!
//! What comes in, one event at a time:
//!
//! * **the requester's reports** (`out_*`): a WQE taken goes on its QP's outstanding ring
//!   (block RAM, 16 per QP: wr_id, opcode, SIGNALED, last PSN, length); a WQE that failed
//!   its checks gets its CQE with the status and the QP goes to ERR (QP port: STATE), which
//!   flushes the ring; one the requester flushed (WR_FLUSH_ERR: posted to a QP in ERR)
//!   gets its CQE. A report for a QP already in ERR completes flushed; one for a QP in
//!   RESET is dropped.
//! * **responses** from `RdmaRxParse` (records with a good status and a response opcode):
//!   the QP must be in range and in RTS (else `cnt_drop_qp`); the packet is then counted
//!   (`cnt_rx_packet`), and must answer something outstanding, not past the last PSN sent
//!   (else `cnt_drop_psn`). An ACK completes every outstanding SEND and WRITE whose last
//!   PSN is at or before its PSN (ACKs coalesce), stopping at a READ. A NAK completes
//!   those before its PSN; a PSN sequence NAK then makes the QP go back (below), an RNR
//!   NAK makes it wait the NAK's timer and go back, RNR_RETRY times (7: for ever); any
//!   other NAK, or retries exhausted, fails the next WQE with the status its code maps to
//!   (remote access error, invalid request, remote operational error, RETRY_EXC_ERR,
//!   RNR_RETRY_EXC_ERR) and the AETH syndrome, and moves the QP to ERR. A reserved
//!   syndrome is malformed (`cnt_drop_malformed`).
//! * **timers**: a QP with WQEs outstanding runs a timer of `timer_unit << TIMEOUT`
//!   cycles, started again by progress (a WQE completed, the acknowledged PSN moved, a
//!   READ packet landed); a scan of `timer_ram`, a QP a cycle, hands one that ran out to
//!   the event loop, which goes back to the first PSN not acknowledged.
//! * **the driver's QP stores** (`qp_store_*`): RESET forgets the QP's ring, ERR flushes it
//!   (each WQE completes WR_FLUSH_ERR, in order).
//!
//! **Going back** (IBTA 9.7.5.1, the model's `go_back` and `rewind`): on a timeout, a
//! PSN sequence NAK, a READ response past the PSN its READ expects (each cue once per
//! PSN until progress), or an RNR wait's end, the event reads the head WQE, takes the
//! first PSN not acknowledged in it (past its landed READ packets, or past the latest
//! ACK inside it), counts a retry (RETRY_CNT; past it the head fails RETRY_EXC_ERR), and
//! asks the requester (`rw_*`) to set SQ_CI back to the head, SQ_PSN to that PSN, and
//! resend the head from that byte. The ring empties at once; the requester's reports
//! are dropped until its `REPORT_WENT_BACK` (they name WQEs it will send again), and
//! responses meanwhile find nothing outstanding. An RNR wait holds the QP (`sq_hold`).
//!
//! A successful WQE writes a CQE only if it was signalled or the QP signals all; an error
//! always does.
//!
//! The reports wait in a FIFO of one, so the requester goes on with its next WQE while a
//! READ here waits for its landing; a READ's own report is taken only in Idle with nothing
//! else waiting, which paces READs to their landing (see `update`). `sq_full` tells the requester which QPs have
//! `SQ_FULL_AT` (14) or more WQEs in their ring: with the one waiting, the one in progress
//! and the one it may report after it looked, a ring never holds more than 16 (the model's
//! `MAX_OUTSTANDING`).
//!
//! * **READ responses**: the same QP and PSN checks; the response acknowledges the SENDs
//!   and WRITEs before its READ (the walk runs to its PSN - 1); then the head WQE must be
//!   the READ and the PSN the one it expects next (its first PSN, one more per MTU
//!   landed), and the payload must fit (a Last or Only ends the READ exactly, a First or
//!   Middle carries the path MTU and leaves some to come): else dropped (`cnt_drop_psn`,
//!   `cnt_drop_malformed`), as the model's `completer_receive`. The payload is the
//!   responder's: it came in with the requests' (`RdmaRxParse` has one payload stream),
//!   and the responder has the landing machinery (the WQE read, the scatter-gather check
//!   and the scatter) that its SENDs use. So each READ response record gets a verdict
//!   here (`vd_*`: drop, or land at this offset; the first packet's verdict also names
//!   the READ's WQE in the send queue, which the responder reads and checks again with
//!   LOCAL_WRITE), and a landing one a result back (`rr_*`): landed (the bytes counted in
//!   the QP's pointer word; the Last one completes the READ, RDMA_READ and its length),
//!   refused (the READ fails with the status, LOC_PROT_ERR for a region that no longer
//!   allows it, and the QP goes to ERR), or lost on the way in (nothing changes: the next
//!   packet's gap, or the timer, makes the QP go back). The two record FIFOs take a READ response both or neither (the
//!   `*_rec_full` pair), so the verdicts pair with the responder's records in order.
//!
//! Records arrive at most one per frame and wait in a FIFO of 1,024, as many as WQEs can
//! be outstanding (64 QPs, 16 each): the responder answers only the packets that ask
//! (AckReq: a message's last packet) and a QP has at most 16 outstanding, so
//! the ACKs and NAKs on their way never outnumber the WQEs waiting for them and the FIFO
//! never overflows, however long the CQ writer takes per completion (a 64-byte WRITE on
//! 8 QPs brings an ACK every 15 cycles, faster than CQEs are written). Were one lost, a
//! QP's last ACK could be, and nothing would complete its WQEs until the QP's
//! retransmission; a full FIFO still drops and counts (`cnt_drop_norecord`).

use super::super::stream::{NicFifo, NicRam};
use super::opcode::{OP_ACKNOWLEDGE, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_ONLY};
use super::path_mtu::RdmaPathMtu;
use nic_regmap::rdma::{qpc, wqe, QpState, WcStatus};
use rust_hdl::prelude::*;

/// WQEs outstanding on a QP (in its ring) at which `sq_full` holds the requester back. A
/// QP's ring holds 16 (the model's `MAX_OUTSTANDING`); when the requester last looked,
/// at most `SQ_FULL_AT - 1` were in it, and besides those one report may wait in the
/// reports FIFO, one be in progress here, and one more be taken (the requester reports
/// at most one WQE after it looked): 13 + 1 + 1 + 1 = 16.
pub const SQ_FULL_AT: u64 = 14;

/// The status of the requester's report that it went back (`out_status`): it has set the
/// QP's SQ_CI and SQ_PSN back as this block asked (`rw_*`) and dropped its WQE in progress;
/// every report before it names a WQE that will be sent and reported again.
pub const REPORT_WENT_BACK: u64 = 0xff;

/// IBTA table 45: the RNR NAK timer codes' waits in core cycles at 156.25 MHz (hundredths
/// of a millisecond x 1,562.5), as the model's `rnr_wait_cycles`.
const RNR_WAIT: [u64; 32] = {
    const HUNDREDTHS: [u64; 32] = [
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576,
        32768, 49152,
    ];
    let mut t = [0; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = HUNDREDTHS[i] * 15_625 / 10;
        i += 1;
    }
    t
};

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CompleterState {
    Idle,
    Ctx,
    Dispatch,
    Report,
    Tail,
    TailRam,
    TailEntry,
    TailCheck,
    Walk,
    WalkRam,
    WalkEntry,
    WalkCheck,
    FailHead,
    StoreErr,
    Flush,
    FlushRam,
    FlushWait,
    Emit,
    SavePtr,
    RdHead,
    RdHeadEntry,
    RdCheck,
    RdJudge,
    RdDecide,
    RdDrop,
    RdGo,
    RdResult,
    TmCheck,
    Gb0,
    Gb1,
    Gb2,
    Gb3,
    Gb4,
    Gb5,
    Gb6,
    GbPost,
    RnrStart,
    RnrArm,
}

#[derive(LogicBlock)]
pub struct RdmaCompleter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- the requester's reports ----
    pub out_valid: Signal<In, Bit>,
    pub out_ready: Signal<Out, Bit>,
    pub out_qpn: Signal<In, Bits<6>>,
    pub out_wr_id: Signal<In, Bits<64>>,
    pub out_opcode: Signal<In, Bits<3>>,
    /// The WQE's SIGNALED flag.
    pub out_signalled: Signal<In, Bit>,
    pub out_first_psn: Signal<In, Bits<24>>,
    pub out_last_psn: Signal<In, Bits<24>>,
    /// The WQE's index in its send queue (its SQ_CI when taken): a READ's WQE is read
    /// again from there when its response starts to land.
    pub out_sq_index: Signal<In, Bits<16>>,
    pub out_len: Signal<In, Bits<32>>,
    /// 0: outstanding; else the WQE failed with this `WcStatus`; `REPORT_WENT_BACK`: the
    /// requester went back as asked.
    pub out_status: Signal<In, Bits<8>>,
    /// The bytes of the WQE already done when it is sent again from the middle (a READ
    /// going back asks for the rest: they have landed).
    pub out_offset: Signal<In, Bits<32>>,
    // ---- going back: the requester sets SQ_CI to `rw_sq_index` (the WQE of the first
    // PSN not acknowledged, whose first PSN is `rw_first_psn`) and SQ_PSN to `rw_psn`, and
    // sends that WQE again from byte `rw_offset` ----
    pub rw_valid: Signal<Out, Bit>,
    pub rw_ready: Signal<In, Bit>,
    pub rw_qpn: Signal<Out, Bits<6>>,
    pub rw_sq_index: Signal<Out, Bits<16>>,
    pub rw_first_psn: Signal<Out, Bits<24>>,
    pub rw_psn: Signal<Out, Bits<24>>,
    pub rw_offset: Signal<Out, Bits<32>>,
    /// QPs waiting out an RNR NAK's timer: the requester sends nothing for them.
    pub sq_hold: Signal<Out, Bits<64>>,
    /// As each event saves its QP's state: the READs of that QP completed, mod 16 (the
    /// requester keeps them beside the READs it took, for MAX_RD_ATOMIC); `rd_sync_wake`
    /// when the event completed one.
    pub rd_sync_valid: Signal<Out, Bit>,
    pub rd_sync_wake: Signal<Out, Bit>,
    pub rd_sync_qpn: Signal<Out, Bits<6>>,
    pub rd_sync_count: Signal<Out, Bits<4>>,
    /// TIMER_UNIT: a QP's transport timer runs `timer_unit << TIMEOUT` cycles.
    pub timer_unit: Signal<In, Bits<16>>,
    // ---- from RdmaRxParse: the records (this block takes the responses) ----
    pub rec_valid: Signal<In, Bit>,
    pub rec_status: Signal<In, Bits<2>>,
    pub rec_opcode: Signal<In, Bits<8>>,
    pub rec_dest_qp: Signal<In, Bits<24>>,
    pub rec_psn: Signal<In, Bits<24>>,
    pub rec_syndrome: Signal<In, Bits<8>>,
    pub rec_payload_len: Signal<In, Bits<16>>,
    /// The responder's record FIFO is full: a READ response is taken by both or by neither
    /// (each READ response record here has its twin, in the same order, there).
    pub rsp_rec_full: Signal<In, Bit>,
    /// This block's record FIFO takes no record this cycle (the responder's side of the
    /// same rule): a register, set while it holds 1,023 of 1,024 or more the cycle before
    /// (timing, as the responder's).
    pub records_full: Signal<Out, Bit>,
    // ---- READ responses: the verdict on each, in record order, to the responder (which
    // holds the payload); for a landing one, its result back ----
    pub vd_valid: Signal<Out, Bit>,
    pub vd_ready: Signal<In, Bit>,
    /// Land it (else the responder drops its payload).
    pub vd_ok: Signal<Out, Bit>,
    /// The READ's WQE in the send queue, the QP's PD, the READ's whole length, the
    /// packet's offset in it (0: the first packet: the responder reads the WQE and checks
    /// its scatter-gather list).
    pub vd_wqe_addr: Signal<Out, Bits<64>>,
    pub vd_pd: Signal<Out, Bits<16>>,
    pub vd_len: Signal<Out, Bits<32>>,
    pub vd_offset: Signal<Out, Bits<32>>,
    pub rr_valid: Signal<In, Bit>,
    pub rr_ready: Signal<Out, Bit>,
    /// 0: landed; else the WQE fails with this `WcStatus` (LOC_PROT_ERR, ...).
    pub rr_status: Signal<In, Bits<8>>,
    /// The payload was lost on the way in (nothing lands; the READ goes back for it).
    pub rr_lost: Signal<In, Bit>,
    // ---- the QP table (an `RdmaTables` QP port) and the driver's QP stores ----
    pub qp_valid: Signal<Out, Bit>,
    pub qp_ready: Signal<In, Bit>,
    pub qp_index: Signal<Out, Bits<6>>,
    pub qp_write: Signal<Out, Bit>,
    pub qp_mask: Signal<Out, Bits<384>>,
    pub qp_wdata: Signal<Out, Bits<384>>,
    pub qp_rvalid: Signal<In, Bit>,
    pub qp_rdata: Signal<In, Bits<384>>,
    pub qp_store: Signal<In, Bit>,
    pub qp_store_index: Signal<In, Bits<6>>,
    pub qp_store_state: Signal<In, Bits<3>>,
    // ---- CQEs, to RdmaCqWriter ----
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    pub cqe_cq: Signal<Out, Bits<4>>,
    pub cqe_entry: Signal<Out, Bits<256>>,
    /// QPs with `SQ_FULL_AT` or more WQEs in their ring: the requester takes no new WQE
    /// for them.
    pub sq_full: Signal<Out, Bits<64>>,
    /// Nothing in progress and nothing waiting (for tests and the engine's quiescence).
    pub idle: Signal<Out, Bit>,
    // ---- counter pulses ----
    pub cnt_rx_packet: Signal<Out, Bit>,
    pub cnt_rx_bytes: Signal<Out, Bits<16>>,
    /// An unknown QP (out of range); one in the wrong state is `cnt_drop_state`.
    pub cnt_drop_qp: Signal<Out, Bit>,
    pub cnt_drop_state: Signal<Out, Bit>,
    pub cnt_drop_psn: Signal<Out, Bit>,
    pub cnt_drop_malformed: Signal<Out, Bit>,
    pub cnt_drop_norecord: Signal<Out, Bit>,
    pub cnt_nak: Signal<Out, Bit>,
    /// A QP went back (TX_RETRIES).
    pub cnt_retry: Signal<Out, Bit>,
    // ---- children ----
    /// Responses: QPN 23:0, PSN 47:24, syndrome 55:48, opcode 63:56, payload length 79:64.
    /// Responses waiting (1,024: see the module comment for why that is enough).
    records: NicFifo<Bits<80>, 10, 11>,
    /// The head response, out of the FIFO's RAM into a register before it is decoded
    /// (the RAM's output straight into the dispatch was 21 levels: 102.9 MHz), with its
    /// QPN check made on the way.
    rh_valid: DFF<Bit>,
    rh_data: DFF<Bits<80>>,
    rh_bad_qp: DFF<Bit>,
    /// `rh_bad_qp` is `rh_data`'s (computed a cycle after the load: the compare kept off
    /// the FIFO RAM's output, 156.25 MHz).
    rh_checked: DFF<Bit>,
    /// The driver's stores that matter here: QPN 5:0, state 8:6.
    stores: NicFifo<Bits<9>, 3, 4>,
    /// The requester's reports, held while this block is busy (a READ waits here for its
    /// landing, some 50 cycles, and the requester's next WQE waited with it): QPN 5:0,
    /// wr_id 69:6, opcode 72:70, SIGNALED 73, first PSN 97:74, last PSN 121:98, SQ index
    /// 137:122, length 169:138, status 177:170, offset 209:178. It holds one (`almost_full` refuses the
    /// second), which `SQ_FULL_AT` counts.
    reports: NicFifo<Bits<210>, 1, 2>,
    /// The outstanding rings, entry {QPN, slot}: wr_id 63:0, opcode 66:64, SIGNALED 67,
    /// last PSN 91:68, length 123:92, first PSN 147:124, SQ index 163:148.
    ring: NicRam<Bits<164>, 10>,
    /// Per QP: ring head 3:0, WQEs outstanding 8:4, the head READ's bytes landed 40:9,
    /// then going back's state: the latest PSN acknowledged 64:41 (valid 65), the PSN last
    /// gone back to with no progress since 89:66 (valid 90), retries 93:91, RNR retries
    /// 96:94, the timer armed 97 (an RNR wait 98) until cycle 146:99, going back (reports
    /// dropped until the requester's `REPORT_WENT_BACK`) 147, the RNR NAK's PSN 171:148,
    /// READs completed (mod 16) 175:172.
    ptr_ram: NicRam<Bits<176>, 6>,
    ptr_rd: DFF<Bits<176>>,
    /// The packets the head READ's landed bytes fill (`path_mtu.whole` of `recv`),
    /// registered: used two cycles or more after `recv` and the context settle (RdCheck,
    /// Gb2), and the shift ahead of the PSN sum missed 156.25 MHz.
    mtu_whole: DFF<Bits<24>>,
    /// The timers, for the scan (armed 0, deadline 48:1): written with `ptr_ram`.
    timer_ram: NicRam<Bits<49>, 6>,
    /// The core cycle, counted while a timer is armed. Time matters only against an
    /// armed deadline, so a count that pauses while none is armed keeps every timer's
    /// length; and with nothing to time the block's state stands still (a simulator may
    /// then skip the engine, docs/performance.md).
    now: DFF<Bits<48>>,
    /// The QPs whose timer is armed: the armed bits `timer_ram` holds, written with them.
    armed_qps: DFF<Bits<64>>,
    /// Some timer is armed (`armed_qps` not zero, a cycle late): the clock counts and the
    /// scan runs.
    timing: DFF<Bit>,
    /// The scan of the timers, a QP a cycle: the address read, the QP whose word is out,
    /// the word registered and its QP, a QP found late; the one handed to the event loop
    /// (it stops the scan until taken; the event checks it again).
    tscan: DFF<Bits<6>>,
    t_q: DFF<Bits<6>>,
    t_word: DFF<Bits<49>>,
    t_qpn: DFF<Bits<6>>,
    t_hit: DFF<Bit>,
    t_hit_qpn: DFF<Bits<6>>,
    to_valid: DFF<Bit>,
    to_qpn: DFF<Bits<6>>,
    ack_gap: Signal<Local, Bits<24>>,
    gb_d3: Signal<Local, Bits<24>>,
    gb_d4: Signal<Local, Bits<24>>,
    rd_gap_d: Signal<Local, Bits<24>>,
    /// The READ response is past the PSN its READ expects (a packet was lost).
    rd_gap: DFF<Bit>,
    // ---- going back, the event's copy of the QP's words ----
    acked: DFF<Bits<24>>,
    acked_v: DFF<Bit>,
    gb_to: DFF<Bits<24>>,
    gb_v: DFF<Bit>,
    retries: DFF<Bits<3>>,
    rnr_retries: DFF<Bits<3>>,
    armed: DFF<Bit>,
    rnr_mode: DFF<Bit>,
    deadline: DFF<Bits<48>>,
    rewinding: DFF<Bit>,
    rnr_psn: DFF<Bits<24>>,
    rd_done: DFF<Bits<4>>,
    rd_bump: DFF<Bit>,
    /// The event made progress (a WQE completed, the ACKed PSN moved, a READ packet
    /// landed): the retry counts start again, the timer too.
    progress: DFF<Bit>,
    /// 640 << TIMEOUT (the QP's transport timer), and TIMEOUT is not 0.
    t_cycles: DFF<Bits<48>>,
    t_on: DFF<Bit>,
    /// The QP's timer is past its deadline (a timer event's check).
    tm_late: DFF<Bit>,
    /// Now plus the QP's timer, registered (SavePtr arms with it: at least three cycles
    /// after the context is read, where an event arms at all; 156.25 MHz).
    deadline_new: DFF<Bits<48>>,
    /// The response's PSN (an ACK's), and the one before it (a sequence NAK's), are past
    /// the latest acknowledged: registered from `psn` and `acked`, which hold from Dispatch
    /// on, so TailCheck's enables do not wait for the subtractions (156.25 MHz).
    ack_fwd: DFF<Bit>,
    nak_fwd: DFF<Bit>,
    /// A response's cue after the walk: 1 a PSN sequence NAK (back to its PSN), 2 an RNR NAK.
    cue: DFF<Bits<2>>,
    /// Going back: to this PSN (`gb_una`: to the first not acknowledged), after an RNR
    /// wait (`gb_rnr`: no retry counted); the head WQE's first PSN past what landed, the
    /// first PSN not acknowledged, the PSN gone back to and its byte offset in the WQE.
    gb_psn: DFF<Bits<24>>,
    gb_una_only: DFF<Bit>,
    gb_rnr: DFF<Bit>,
    gb_base: DFF<Bits<24>>,
    gb_una: DFF<Bits<24>>,
    gb_target: DFF<Bits<24>>,
    gb_offset: DFF<Bits<32>>,
    /// The wait of the RNR NAK's timer code.
    rnr_cycles: DFF<Bits<28>>,
    rnr_rom: [Constant<Bits<28>>; 32],
    rnr_code: [Constant<Bits<5>>; 32],
    hold: DFF<Bits<64>>,
    r_offset: DFF<Bits<32>>,
    armed_w: Signal<Local, Bit>,
    deadline_w: Signal<Local, Bits<48>>,
    rnr_w: Signal<Local, Bit>,
    gb_d1: Signal<Local, Bits<24>>,
    gb_d2: Signal<Local, Bits<24>>,
    retry_cnt: Signal<Local, Bits<3>>,
    rnr_retry: Signal<Local, Bits<3>>,
    went_back: Constant<Bits<8>>,
    ev_timer: Constant<Bits<2>>,
    nak_seq: Constant<Bits<8>>,
    // ---- the event ----
    state: DFF<CompleterState>,
    after: DFF<CompleterState>,
    ev: DFF<Bits<2>>,
    asked: DFF<Bit>,
    qpn: DFF<Bits<6>>,
    store_state: DFF<Bits<3>>,
    r_wr_id: DFF<Bits<64>>,
    r_opcode: DFF<Bits<3>>,
    r_signalled: DFF<Bit>,
    r_last_psn: DFF<Bits<24>>,
    r_first_psn: DFF<Bits<24>>,
    r_sq_index: DFF<Bits<16>>,
    r_len: DFF<Bits<32>>,
    r_status: DFF<Bits<8>>,
    psn: DFF<Bits<24>>,
    syndrome: DFF<Bits<8>>,
    paylen: DFF<Bits<16>>,
    /// The QP's context as read (an ERR store writes it back under STATE's mask), and
    /// the fields used: state, SIG_ALL, send CQ.
    ctx: DFF<Bits<384>>,
    qp_state: DFF<Bits<3>>,
    sig_all: DFF<Bit>,
    send_cq: DFF<Bits<4>>,
    head: DFF<Bits<4>>,
    count: DFF<Bits<5>>,
    /// The head READ's bytes landed so far.
    recv: DFF<Bits<32>>,
    /// The event is a READ response; it ends its READ (Last, Only).
    rd: DFF<Bit>,
    rd_ends: DFF<Bit>,
    /// RdCheck's findings: the head is the READ and the PSN the one it expects next; the
    /// payload fits (a Last or Only ends the READ exactly, others carry the MTU); the
    /// READ's WQE address.
    rd_psn_ok: DFF<Bit>,
    rd_fits: DFF<Bit>,
    rd_wqe_addr: DFF<Bits<64>>,
    /// RdCheck's sums, compared a cycle later (156.25 MHz): the PSN the READ expects and
    /// its bytes with this packet's; the head WQE is a READ.
    rd_expect: DFF<Bits<24>>,
    rd_landed: DFF<Bits<32>>,
    rd_head_read: DFF<Bit>,
    path_mtu: RdmaPathMtu,
    /// The walk completes what is at or before this PSN; a NAK then fails the next one.
    limit: DFF<Bits<24>>,
    nak: DFF<Bit>,
    full: DFF<Bits<64>>,
    // the CQE to emit
    e_wr_id: DFF<Bits<64>>,
    e_len: DFF<Bits<32>>,
    e_opcode: DFF<Bits<8>>,
    e_status: DFF<Bits<8>>,
    e_syndrome: DFF<Bits<8>>,
    // ---- scratch ----
    is_response: Signal<Local, Bit>,
    is_read_response: Signal<Local, Bit>,
    rec_full_q: DFF<Bit>,
    rec_almost: Constant<Bits<11>>,
    /// The response opcodes (READ Response First, Last, Only; Acknowledge): First..Only
    /// and Acknowledge are contiguous.
    op_rr_first: Constant<Bits<8>>,
    op_rr_last: Constant<Bits<8>>,
    op_rr_only: Constant<Bits<8>>,
    op_ack: Constant<Bits<8>>,
    /// The ring's read data, registered (a ring access takes the cycle of its address,
    /// the RAM's and this one), and what its last PSN says, a cycle later.
    entry: DFF<Bits<164>>,
    after_tail: DFF<Bit>,
    past_limit: DFF<Bit>,
    new_entry: Signal<Local, Bits<164>>,
    ring_addr: Signal<Local, Bits<10>>,
    slot: Signal<Local, Bits<4>>,
    tail_gap: Signal<Local, Bits<24>>,
    limit_gap: Signal<Local, Bits<24>>,
    cqe_op: Signal<Local, Bits<8>>,
    nak_status: Signal<Local, Bits<8>>,
    syn_ok: Signal<Local, Bit>,
    syn_nak: Signal<Local, Bit>,
    bit_of_qp: [Constant<Bits<64>>; 64],
    qp_id: [Constant<Bits<6>>; 64],
    state_mask: Constant<Bits<384>>,
    state_err: Constant<Bits<3>>,
    state_reset: Constant<Bits<3>>,
    state_rts: Constant<Bits<3>>,
    status_flush: Constant<Bits<8>>,
    signalled_bit: Constant<Bits<164>>,
    ones16: Constant<Bits<16>>,
    sq_full_at: Constant<Bits<5>>,
    /// The CQE opcode of a READ.
    cqe_op_read: Constant<Bits<8>>,
    /// The WQE opcode of a READ (`wqe::OP_READ`), as the requester reports it.
    wqe_op_read: Constant<Bits<3>>,
    /// What the event in progress is.
    ev_store: Constant<Bits<2>>,
    ev_report: Constant<Bits<2>>,
    ev_response: Constant<Bits<2>>,
    ptr_w: Signal<Local, Bits<176>>,
}

impl Default for RdmaCompleter {
    fn default() -> Self {
        // the bit positions the update below reads
        assert!(qpc::STATE.word == 0 && qpc::STATE.lsb == 0 && qpc::STATE.width == 3);
        assert!(qpc::SIG_ALL.word == 0 && qpc::SIG_ALL.lsb == 7 && qpc::SEND_CQ.word == 0 && qpc::SEND_CQ.lsb == 8);
        assert!(qpc::TIMEOUT.word == 8 && qpc::TIMEOUT.lsb == 20 && qpc::RETRY_CNT.word == 8 && qpc::RETRY_CNT.lsb == 25 && qpc::RNR_RETRY.word == 8 && qpc::RNR_RETRY.lsb == 28);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_qpn: Default::default(),
            out_wr_id: Default::default(),
            out_opcode: Default::default(),
            out_signalled: Default::default(),
            out_first_psn: Default::default(),
            out_last_psn: Default::default(),
            out_sq_index: Default::default(),
            out_len: Default::default(),
            out_status: Default::default(),
            rec_valid: Default::default(),
            rec_status: Default::default(),
            rec_opcode: Default::default(),
            rec_dest_qp: Default::default(),
            rec_psn: Default::default(),
            rec_syndrome: Default::default(),
            rec_payload_len: Default::default(),
            rsp_rec_full: Default::default(),
            records_full: Default::default(),
            vd_valid: Default::default(),
            vd_ready: Default::default(),
            vd_ok: Default::default(),
            vd_wqe_addr: Default::default(),
            vd_pd: Default::default(),
            vd_len: Default::default(),
            vd_offset: Default::default(),
            rr_valid: Default::default(),
            rr_ready: Default::default(),
            rr_status: Default::default(),
            rr_lost: Default::default(),
            qp_valid: Default::default(),
            qp_ready: Default::default(),
            qp_index: Default::default(),
            qp_write: Default::default(),
            qp_mask: Default::default(),
            qp_wdata: Default::default(),
            qp_rvalid: Default::default(),
            qp_rdata: Default::default(),
            qp_store: Default::default(),
            qp_store_index: Default::default(),
            qp_store_state: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cq: Default::default(),
            cqe_entry: Default::default(),
            sq_full: Default::default(),
            idle: Default::default(),
            cnt_rx_packet: Default::default(),
            cnt_rx_bytes: Default::default(),
            cnt_drop_qp: Default::default(),
            cnt_drop_state: Default::default(),
            cnt_drop_psn: Default::default(),
            cnt_drop_malformed: Default::default(),
            cnt_drop_norecord: Default::default(),
            cnt_nak: Default::default(),
            records: Default::default(),
            rh_valid: Default::default(),
            rh_data: Default::default(),
            rh_bad_qp: Default::default(),
            rh_checked: Default::default(),
            stores: Default::default(),
            reports: Default::default(),
            ring: Default::default(),
            ptr_ram: Default::default(),
            state: Default::default(),
            after: Default::default(),
            ev: Default::default(),
            asked: Default::default(),
            qpn: Default::default(),
            store_state: Default::default(),
            r_wr_id: Default::default(),
            r_opcode: Default::default(),
            r_signalled: Default::default(),
            r_last_psn: Default::default(),
            r_first_psn: Default::default(),
            r_sq_index: Default::default(),
            r_len: Default::default(),
            r_status: Default::default(),
            psn: Default::default(),
            syndrome: Default::default(),
            ctx: Default::default(),
            qp_state: Default::default(),
            sig_all: Default::default(),
            send_cq: Default::default(),
            head: Default::default(),
            count: Default::default(),
            recv: Default::default(),
            rd: Default::default(),
            rd_ends: Default::default(),
            rd_psn_ok: Default::default(),
            rd_fits: Default::default(),
            rd_wqe_addr: Default::default(),
            rd_landed: Default::default(),
            rd_expect: Default::default(),
            rd_head_read: Default::default(),
            path_mtu: Default::default(),
            limit: Default::default(),
            nak: Default::default(),
            full: Default::default(),
            e_wr_id: Default::default(),
            e_len: Default::default(),
            e_opcode: Default::default(),
            e_status: Default::default(),
            e_syndrome: Default::default(),
            is_response: Default::default(),
            is_read_response: Default::default(),
            rec_full_q: Default::default(),
            rec_almost: Constant::new(1023u64.into()),
            op_rr_first: Constant::new(OP_READ_RESPONSE_FIRST.into()),
            op_rr_last: Constant::new(OP_READ_RESPONSE_LAST.into()),
            op_rr_only: Constant::new(OP_READ_RESPONSE_ONLY.into()),
            op_ack: Constant::new(OP_ACKNOWLEDGE.into()),
            entry: Default::default(),
            new_entry: Default::default(),
            ring_addr: Default::default(),
            slot: Default::default(),
            tail_gap: Default::default(),
            limit_gap: Default::default(),
            after_tail: Default::default(),
            past_limit: Default::default(),
            cqe_op: Default::default(),
            nak_status: Default::default(),
            syn_ok: Default::default(),
            syn_nak: Default::default(),
            bit_of_qp: std::array::from_fn(|q| Constant::new(Bits::<64>::from(1u64 << q))),
            qp_id: std::array::from_fn(|q| Constant::new(Bits::<6>::from(q as u64))),
            state_mask: Constant::new(Bits::<384>::from(7u64)),
            state_err: Constant::new((QpState::Err as u64).into()),
            state_reset: Constant::new((QpState::Reset as u64).into()),
            state_rts: Constant::new((QpState::Rts as u64).into()),
            status_flush: Constant::new((WcStatus::WrFlushErr as u64).into()),
            signalled_bit: Constant::new(Bits::<164>::from(1u64) << 67u64),
            ones16: Constant::new(0xffffu64.into()),
            sq_full_at: Constant::new(SQ_FULL_AT.into()),
            cqe_op_read: Constant::new(2.into()),
            wqe_op_read: Constant::new(u64::from(wqe::OP_READ).into()),
            ev_store: Constant::new(0.into()),
            ev_report: Constant::new(1.into()),
            ev_response: Constant::new(2.into()),
            paylen: Default::default(),
            out_offset: Default::default(),
            rw_valid: Default::default(),
            rw_ready: Default::default(),
            rw_qpn: Default::default(),
            rw_sq_index: Default::default(),
            rw_first_psn: Default::default(),
            rw_psn: Default::default(),
            rw_offset: Default::default(),
            sq_hold: Default::default(),
            timer_unit: Default::default(),
            cnt_retry: Default::default(),
            timer_ram: Default::default(),
            now: Default::default(),
            armed_qps: Default::default(),
            timing: Default::default(),
            tscan: Default::default(),
            t_q: Default::default(),
            t_word: Default::default(),
            t_qpn: Default::default(),
            t_hit: Default::default(),
            t_hit_qpn: Default::default(),
            to_valid: Default::default(),
            to_qpn: Default::default(),
            ack_gap: Default::default(),
            gb_d3: Default::default(),
            gb_d4: Default::default(),
            rd_gap_d: Default::default(),
            rd_gap: Default::default(),
            acked: Default::default(),
            acked_v: Default::default(),
            gb_to: Default::default(),
            gb_v: Default::default(),
            retries: Default::default(),
            rnr_retries: Default::default(),
            armed: Default::default(),
            rnr_mode: Default::default(),
            deadline: Default::default(),
            rewinding: Default::default(),
            rnr_psn: Default::default(),
            rd_done: Default::default(),
            rd_bump: Default::default(),
            ptr_rd: Default::default(),
            mtu_whole: Default::default(),
            rd_sync_valid: Default::default(),
            rd_sync_wake: Default::default(),
            rd_sync_qpn: Default::default(),
            rd_sync_count: Default::default(),
            progress: Default::default(),
            t_cycles: Default::default(),
            t_on: Default::default(),
            tm_late: Default::default(),
            deadline_new: Default::default(),
            ack_fwd: Default::default(),
            nak_fwd: Default::default(),
            cue: Default::default(),
            gb_psn: Default::default(),
            gb_una_only: Default::default(),
            gb_rnr: Default::default(),
            gb_base: Default::default(),
            gb_una: Default::default(),
            gb_target: Default::default(),
            gb_offset: Default::default(),
            rnr_cycles: Default::default(),
            rnr_rom: std::array::from_fn(|i| Constant::new(RNR_WAIT[i].into())),
            rnr_code: std::array::from_fn(|i| Constant::new(Bits::<5>::from(i as u64))),
            hold: Default::default(),
            r_offset: Default::default(),
            armed_w: Default::default(),
            deadline_w: Default::default(),
            rnr_w: Default::default(),
            gb_d1: Default::default(),
            gb_d2: Default::default(),
            retry_cnt: Default::default(),
            rnr_retry: Default::default(),
            went_back: Constant::new(REPORT_WENT_BACK.into()),
            ev_timer: Constant::new(3.into()),
            nak_seq: Constant::new(u64::from(nic_regmap::rdma::syndrome::NAK_PSN_SEQUENCE).into()),
            ptr_w: Default::default(),
        }
    }
}

impl Logic for RdmaCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_done, rd_bump, ptr_rd, mtu_whole, rec_full_q, state, after, ev, asked, qpn, store_state, r_wr_id, r_opcode, r_signalled, r_last_psn, r_first_psn, r_sq_index, r_len, r_status, psn,
            syndrome, paylen, ctx, qp_state, sig_all, send_cq, head, count, limit, nak, full, e_wr_id, e_len, e_opcode, e_status, e_syndrome, entry,
            after_tail, past_limit, rh_valid, rh_data, rh_bad_qp, rh_checked, recv, rd, rd_ends, rd_psn_ok, rd_fits, rd_wqe_addr, rd_expect, rd_landed, rd_head_read,
            now, armed_qps, timing, tscan, t_q, t_word, t_qpn, t_hit, t_hit_qpn, to_valid, to_qpn, acked, acked_v, gb_to, gb_v, retries, rnr_retries, armed, rnr_mode, deadline, rewinding, rnr_psn,
            progress, t_cycles, t_on, tm_late, cue, gb_psn, gb_una_only, gb_rnr, gb_base, gb_una, gb_target, gb_offset, rnr_cycles, hold, r_offset, rd_gap, deadline_new, ack_fwd, nak_fwd);
        clock!(self, clock, records, stores, reports, ring, ptr_ram, timer_ram);
        self.records.reset.next = self.reset.val();
        self.stores.reset.next = self.reset.val();
        self.reports.reset.next = self.reset.val();
        // ---- intake: the requester's reports (taken while the FIFO's registered flag is
        // clear: it never finds the FIFO full) ----
        // A READ's report is taken only in Idle with no report or store waiting, as before
        // the FIFO: that held the requester to the pace at which READ responses land here
        // (about 50 cycles each while the responder lands the payload). Taken early, small
        // READs on 8 QPs outran it, and their responses overflowed the responder's record
        // and payload FIFOs (dropped, so the READs never completed). Issue 19's limit on
        // outstanding READs is the real bound.
        self.out_ready.next = !self.reports.almost_full.val();
        if self.out_opcode.val() == self.wqe_op_read.val() {
            self.out_ready.next = (self.state.q.val() == CompleterState::Idle) & self.reports.empty.val() & self.stores.empty.val();
        }
        self.reports.write.next = self.out_valid.val() & self.out_ready.val();
        self.reports.data_in.next = bit_cast::<210, 6>(self.out_qpn.val())
            | (bit_cast::<210, 64>(self.out_wr_id.val()) << 6)
            | (bit_cast::<210, 3>(self.out_opcode.val()) << 70)
            | (bit_cast::<210, 1>(self.out_signalled.val().into()) << 73)
            | (bit_cast::<210, 24>(self.out_first_psn.val()) << 74)
            | (bit_cast::<210, 24>(self.out_last_psn.val()) << 98)
            | (bit_cast::<210, 16>(self.out_sq_index.val()) << 122)
            | (bit_cast::<210, 32>(self.out_len.val()) << 138)
            | (bit_cast::<210, 8>(self.out_status.val()) << 170)
            | (bit_cast::<210, 32>(self.out_offset.val()) << 178);
        self.reports.read.next = false;
        // ---- intake: responses with a good status (bad ones are the parser's to count) ----
        self.is_response.next = (self.rec_opcode.val() >= self.op_rr_first.val()) & (self.rec_opcode.val() <= self.op_ack.val());
        self.records.data_in.next = bit_cast::<80, 24>(self.rec_dest_qp.val())
            | (bit_cast::<80, 24>(self.rec_psn.val()) << 24)
            | (bit_cast::<80, 8>(self.rec_syndrome.val()) << 48)
            | (bit_cast::<80, 8>(self.rec_opcode.val()) << 56)
            | (bit_cast::<80, 16>(self.rec_payload_len.val()) << 64);
        // (a READ response the responder has no room for is dropped here too: it counts it)
        self.is_read_response.next = (self.rec_opcode.val() >= self.op_rr_first.val()) & (self.rec_opcode.val() <= self.op_rr_only.val());
        self.rec_full_q.d.next = self.records.count.val() >= self.rec_almost.val();
        self.records.write.next = self.rec_valid.val() & (self.rec_status.val() == 0) & self.is_response.val() & !self.rec_full_q.q.val()
            & !(self.is_read_response.val() & self.rsp_rec_full.val());
        self.cnt_drop_norecord.next = self.rec_valid.val() & (self.rec_status.val() == 0) & self.is_response.val() & self.rec_full_q.q.val();
        self.records_full.next = self.rec_full_q.q.val();
        self.stores.data_in.next = bit_cast::<9, 6>(self.qp_store_index.val()) | (bit_cast::<9, 3>(self.qp_store_state.val()) << 6);
        self.stores.write.next = self.qp_store.val()
            & ((self.qp_store_state.val() == self.state_err.val()) | (self.qp_store_state.val() == self.state_reset.val()))
            & !self.stores.full.val();
        self.stores.read.next = false;
        // the head register refills whenever it is empty or being taken (below)
        self.records.read.next = !self.records.empty.val() & !self.rh_valid.q.val();
        self.rh_bad_qp.d.next = (self.rh_data.q.val().get_bits::<24>(0) >= 64) | (self.rh_data.q.val().get_bits::<24>(0) < 2);
        self.rh_checked.d.next = self.rh_valid.q.val();
        if self.records.read.val() {
            self.rh_valid.d.next = true;
            self.rh_data.d.next = self.records.data_out.val();
        }
        // ---- the rings ----
        self.slot.next = self.head.q.val() + self.count.q.val().get_bits::<4>(0);
        self.ring_addr.next = (bit_cast::<10, 6>(self.qpn.q.val()) << 4) | bit_cast::<10, 4>(self.head.q.val());
        self.ring.read_address.next = self.ring_addr.val();
        self.ring.write_address.next = (bit_cast::<10, 6>(self.qpn.q.val()) << 4) | bit_cast::<10, 4>(self.slot.val());
        // (a child's input reads back its settled value, not the one just set: the entry
        // is put together in a local first)
        self.new_entry.next = bit_cast::<164, 64>(self.r_wr_id.q.val())
            | (bit_cast::<164, 3>(self.r_opcode.q.val()) << 64)
            | (bit_cast::<164, 24>(self.r_last_psn.q.val()) << 68)
            | (bit_cast::<164, 32>(self.r_len.q.val()) << 92)
            | (bit_cast::<164, 24>(self.r_first_psn.q.val()) << 124)
            | (bit_cast::<164, 16>(self.r_sq_index.q.val()) << 148);
        if self.r_signalled.q.val() {
            self.new_entry.next = self.new_entry.val() | self.signalled_bit.val();
        }
        self.ring.write_data.next = self.new_entry.val();
        self.ring.write_enable.next = false;
        self.entry.d.next = self.ring.read_data.val();
        self.ptr_ram.read_address.next = self.qpn.q.val();
        self.ptr_rd.d.next = self.ptr_ram.read_data.val();
        self.ptr_ram.write_address.next = self.qpn.q.val();
        // the timer as the event leaves it: stopped with nothing outstanding or the QP out of
        // RTS; an RNR wait runs on; else (re)started from now by progress, or if it was not
        // running
        self.armed_w.next = self.armed.q.val();
        self.rnr_w.next = self.rnr_mode.q.val();
        if (self.count.q.val() == 0) | (self.qp_state.q.val() != self.state_rts.val()) {
            self.armed_w.next = false;
            self.rnr_w.next = false;
        } else if !self.rnr_mode.q.val() & (self.progress.q.val() | !self.armed.q.val()) {
            self.armed_w.next = self.t_on.q.val();
        }
        // The deadline is read only where its timer is armed (the scan's hit, TmCheck),
        // so a stopped timer may keep any deadline: its 48-bit select leaves out the stop
        // test (the QP's state compare was the path into the RAMs at 156.25 MHz)
        self.deadline_w.next = self.deadline.q.val();
        if !self.rnr_mode.q.val() & (self.progress.q.val() | !self.armed.q.val()) {
            self.deadline_w.next = self.deadline_new.q.val();
        }
        self.ptr_w.next = bit_cast::<176, 4>(self.head.q.val())
            | (bit_cast::<176, 5>(self.count.q.val()) << 4)
            | (bit_cast::<176, 32>(self.recv.q.val()) << 9)
            | (bit_cast::<176, 24>(self.acked.q.val()) << 41)
            | (bit_cast::<176, 1>(self.acked_v.q.val().into()) << 65)
            | (bit_cast::<176, 24>(self.gb_to.q.val()) << 66)
            | (bit_cast::<176, 1>(self.gb_v.q.val().into()) << 90)
            | (bit_cast::<176, 3>(self.retries.q.val()) << 91)
            | (bit_cast::<176, 3>(self.rnr_retries.q.val()) << 94)
            | (bit_cast::<176, 1>(self.armed_w.val().into()) << 97)
            | (bit_cast::<176, 1>(self.rnr_w.val().into()) << 98)
            | (bit_cast::<176, 48>(self.deadline_w.val()) << 99)
            | (bit_cast::<176, 1>(self.rewinding.q.val().into()) << 147)
            | (bit_cast::<176, 24>(self.rnr_psn.q.val()) << 148)
            | (bit_cast::<176, 4>(self.rd_done.q.val()) << 172);
        self.ptr_ram.write_data.next = self.ptr_w.val();
        self.ptr_ram.write_enable.next = false;
        self.timer_ram.write_address.next = self.qpn.q.val();
        self.timer_ram.write_data.next = bit_cast::<49, 1>(self.armed_w.val().into()) | (bit_cast::<49, 48>(self.deadline_w.val()) << 1);
        self.timer_ram.write_enable.next = false;
        // ---- the timers' scan: a QP a cycle, one found late handed to the event loop ----
        self.timing.d.next = self.armed_qps.q.val().any();
        if self.timing.q.val() {
            self.now.d.next = self.now.q.val() + 1;
        }
        self.timer_ram.read_address.next = self.tscan.q.val();
        self.t_q.d.next = self.tscan.q.val();
        self.t_word.d.next = self.timer_ram.read_data.val();
        self.t_qpn.d.next = self.t_q.q.val();
        // (48 bits of cycles do not wrap in a simulation's life, nor in 20 days of a board's)
        self.t_hit.d.next = self.t_word.q.val().get_bit(0) & (self.now.q.val() >= self.t_word.q.val().get_bits::<48>(1));
        self.t_hit_qpn.d.next = self.t_qpn.q.val();
        if !self.to_valid.q.val() & self.timing.q.val() {
            self.tscan.d.next = self.tscan.q.val() + 1;
            if self.t_hit.q.val() {
                self.to_valid.d.next = true;
                self.to_qpn.d.next = self.t_hit_qpn.q.val();
            }
        }
        // the event's checks of its QP's timer and TIMEOUT
        self.tm_late.d.next = self.now.q.val() >= self.deadline.q.val();
        self.deadline_new.d.next = self.now.q.val() + self.t_cycles.q.val();
        self.t_cycles.d.next = bit_cast::<48, 16>(self.timer_unit.val()) << bit_cast::<48, 5>(self.ctx.q.val().get_bits::<5>(276));
        if !self.timer_unit.val().any() {
            self.t_cycles.d.next = Bits::<48>::from(1u64) << bit_cast::<48, 5>(self.ctx.q.val().get_bits::<5>(276));
        }
        self.t_on.d.next = self.ctx.q.val().get_bits::<5>(276).any();
        self.retry_cnt.next = self.ctx.q.val().get_bits::<3>(281);
        self.rnr_retry.next = self.ctx.q.val().get_bits::<3>(284);
        self.rnr_cycles.d.next = 0.into();
        for i in 0..32 {
            if self.syndrome.q.val().get_bits::<5>(0) == self.rnr_code[i].val() {
                self.rnr_cycles.d.next = self.rnr_rom[i].val();
            }
        }
        self.sq_hold.next = self.hold.q.val();
        self.rd_sync_valid.next = self.state.q.val() == CompleterState::SavePtr;
        self.rd_sync_wake.next = self.rd_bump.q.val();
        self.rd_sync_qpn.next = self.qpn.q.val();
        self.rd_sync_count.next = self.rd_done.q.val();
        self.cnt_retry.next = false;
        self.rw_valid.next = false;
        self.rw_qpn.next = self.qpn.q.val();
        self.rw_sq_index.next = self.entry.q.val().get_bits::<16>(148);
        self.rw_first_psn.next = self.entry.q.val().get_bits::<24>(124);
        self.rw_psn.next = self.gb_target.q.val();
        self.rw_offset.next = self.gb_offset.q.val();
        // ---- the CQE out: the model's `Cqe::bytes` layout ----
        self.cqe_valid.next = false;
        self.cqe_cq.next = self.send_cq.q.val();
        self.cqe_entry.next = bit_cast::<256, 64>(self.e_wr_id.q.val())
            | (bit_cast::<256, 32>(self.e_len.q.val()) << 64)
            | (bit_cast::<256, 6>(self.qpn.q.val()) << 128)
            | (bit_cast::<256, 8>(self.e_opcode.q.val()) << 160)
            | (bit_cast::<256, 8>(self.e_status.q.val()) << 168)
            | (bit_cast::<256, 8>(self.e_syndrome.q.val()) << 184);
        // the CQE opcode of a WQE opcode: WRITE (2, 3) 1, READ (4) 2, SEND 0
        self.cqe_op.next = 0.into();
        if (self.entry.q.val().get_bits::<3>(64) == 2) | (self.entry.q.val().get_bits::<3>(64) == 3) {
            self.cqe_op.next = 1.into();
        }
        if self.entry.q.val().get_bits::<3>(64) == 4 {
            self.cqe_op.next = 2.into();
        }
        // the AETH syndrome: 000 ACK, 001 RNR NAK, 011 NAK with codes 0..4, else reserved
        self.syn_ok.next = self.syndrome.q.val().get_bits::<3>(5) == 0;
        self.syn_nak.next = (self.syndrome.q.val().get_bits::<3>(5) == 1)
            | ((self.syndrome.q.val().get_bits::<3>(5) == 3) & (self.syndrome.q.val().get_bits::<5>(0) <= 4));
        // RNR 13, PSN sequence 12 (no retries: RETRY_CNT is 0 while CAPS.RETRANSMIT is
        // clear), remote access 10, invalid request / invalid RD request 9, others 11
        self.nak_status.next = 11.into();
        if self.syndrome.q.val().get_bits::<3>(5) == 1 {
            self.nak_status.next = 13.into();
        } else if self.syndrome.q.val().get_bits::<5>(0) == 0 {
            self.nak_status.next = 12.into();
        } else if self.syndrome.q.val().get_bits::<5>(0) == 2 {
            self.nak_status.next = 10.into();
        } else if (self.syndrome.q.val().get_bits::<5>(0) == 1) | (self.syndrome.q.val().get_bits::<5>(0) == 4) {
            self.nak_status.next = 9.into();
        }
        // PSN order: a is after b when a - b (24 bits) is non-zero and below 2^23. Is the
        // response after the entry (the ring's tail)? Is the entry after the walk's limit?
        self.tail_gap.next = self.psn.q.val() - self.entry.q.val().get_bits::<24>(68);
        self.limit_gap.next = self.entry.q.val().get_bits::<24>(68) - self.limit.q.val();
        self.after_tail.d.next = self.tail_gap.val().any() & !self.tail_gap.val().get_bit(23);
        self.past_limit.d.next = self.limit_gap.val().any() & !self.limit_gap.val().get_bit(23);
        // going back's PSN order tests (a after b: a - b non-zero, below 2^23)
        self.ack_gap.next = self.psn.q.val() - self.acked.q.val();
        self.gb_d1.next = self.acked.q.val() - self.gb_base.q.val();
        self.gb_d2.next = self.entry.q.val().get_bits::<24>(68) - self.acked.q.val();
        self.gb_d3.next = self.gb_psn.q.val() - self.gb_una.q.val();
        self.gb_d4.next = self.gb_target.q.val() - self.entry.q.val().get_bits::<24>(124);
        self.rd_gap_d.next = self.psn.q.val() - self.rd_expect.q.val();
        self.ack_fwd.d.next = !self.acked_v.q.val() | (self.ack_gap.val().any() & !self.ack_gap.val().get_bit(23));
        // (PSN - 1 after the latest ACK: PSN - acked in 2 ..= 2^23, from the one difference,
        // as the second subtraction behind it missed 156.25 MHz)
        self.nak_fwd.d.next = !self.acked_v.q.val()
            | (self.ack_gap.val().get_bits::<23>(1).any() & (!self.ack_gap.val().get_bit(23) | !self.ack_gap.val().get_bits::<23>(0).any()));
        self.qp_valid.next = false;
        self.qp_index.next = self.qpn.q.val();
        self.qp_write.next = false;
        self.qp_mask.next = self.state_mask.val();
        self.qp_wdata.next = (self.ctx.q.val() & !self.state_mask.val()) | bit_cast::<384, 3>(self.state_err.val());
        self.cnt_rx_packet.next = false;
        self.cnt_rx_bytes.next = 0.into();
        self.cnt_drop_qp.next = false;
        self.cnt_drop_state.next = false;
        self.cnt_drop_psn.next = false;
        self.cnt_drop_malformed.next = false;
        self.cnt_nak.next = false;
        self.sq_full.next = self.full.q.val();
        self.vd_valid.next = false;
        self.vd_ok.next = false;
        self.vd_wqe_addr.next = self.rd_wqe_addr.q.val();
        self.vd_pd.next = self.ctx.q.val().get_bits::<16>(16);
        self.vd_len.next = self.entry.q.val().get_bits::<32>(92);
        self.vd_offset.next = self.recv.q.val();
        self.rr_ready.next = false;
        // a READ's packets landed so far: its bytes in whole MTUs
        self.path_mtu.code.next = self.ctx.q.val().get_bits::<3>(4);
        self.path_mtu.len.next = self.recv.q.val();
        self.mtu_whole.d.next = self.path_mtu.whole.val();
        self.idle.next = (self.state.q.val() == CompleterState::Idle) & self.records.empty.val() & !self.rh_valid.q.val() & self.stores.empty.val()
            & self.reports.empty.val();
        match self.state.q.val() {
            CompleterState::Idle => {
                self.rd_bump.d.next = false;
                self.asked.d.next = false;
                self.progress.d.next = false;
                self.cue.d.next = 0.into();
                self.state.d.next = CompleterState::Ctx;
                if !self.stores.empty.val() {
                    self.stores.read.next = true;
                    self.ev.d.next = self.ev_store.val();
                    self.qpn.d.next = self.stores.data_out.val().get_bits::<6>(0);
                    self.store_state.d.next = self.stores.data_out.val().get_bits::<3>(6);
                } else if !self.reports.empty.val() {
                    // (before any response: a WQE's report is in the FIFO before its
                    // request leaves, so before any answer to it arrives)
                    self.reports.read.next = true;
                    self.ev.d.next = self.ev_report.val();
                    self.qpn.d.next = self.reports.data_out.val().get_bits::<6>(0);
                    self.r_wr_id.d.next = self.reports.data_out.val().get_bits::<64>(6);
                    self.r_opcode.d.next = self.reports.data_out.val().get_bits::<3>(70);
                    self.r_signalled.d.next = self.reports.data_out.val().get_bit(73);
                    self.r_first_psn.d.next = self.reports.data_out.val().get_bits::<24>(74);
                    self.r_last_psn.d.next = self.reports.data_out.val().get_bits::<24>(98);
                    self.r_sq_index.d.next = self.reports.data_out.val().get_bits::<16>(122);
                    self.r_len.d.next = self.reports.data_out.val().get_bits::<32>(138);
                    self.r_status.d.next = self.reports.data_out.val().get_bits::<8>(170);
                    self.r_offset.d.next = self.reports.data_out.val().get_bits::<32>(178);
                } else if self.to_valid.q.val() {
                    // a QP's timer ran out (checked again once its words are read)
                    self.to_valid.d.next = false;
                    self.ev.d.next = self.ev_timer.val();
                    self.qpn.d.next = self.to_qpn.q.val();
                    self.syndrome.d.next = 0.into();
                    self.rd.d.next = false;
                } else if self.rh_valid.q.val() & self.rh_checked.q.val() {
                    self.rh_valid.d.next = false;
                    self.ev.d.next = self.ev_response.val();
                    self.qpn.d.next = self.rh_data.q.val().get_bits::<6>(0);
                    self.psn.d.next = self.rh_data.q.val().get_bits::<24>(24);
                    self.syndrome.d.next = self.rh_data.q.val().get_bits::<8>(48);
                    self.paylen.d.next = self.rh_data.q.val().get_bits::<16>(64);
                    // a READ response (anything but an Acknowledge); Last and Only end the READ
                    self.rd.d.next = self.rh_data.q.val().get_bits::<8>(56) != self.op_ack.val();
                    self.rd_ends.d.next = (self.rh_data.q.val().get_bits::<8>(56) == self.op_rr_last.val()) | (self.rh_data.q.val().get_bits::<8>(56) == self.op_rr_only.val());
                    self.after.d.next = CompleterState::Idle;
                    if self.rh_bad_qp.q.val() {
                        self.cnt_drop_qp.next = true;
                        self.state.d.next = CompleterState::Idle;
                        if self.rh_data.q.val().get_bits::<8>(56) != self.op_ack.val() {
                            self.state.d.next = CompleterState::RdDrop;
                        }
                    }
                } else {
                    self.state.d.next = CompleterState::Idle;
                }
            }
            CompleterState::Ctx => {
                // the QP's context, and its ring's pointers (read at `qpn` meanwhile, and
                // registered: the table answers four cycles after it takes the access, the
                // pointer word is in `ptr_rd` two cycles after `qpn` was set; the RAM's
                // clock-to-out left no time for the loads behind it at 156.25 MHz)
                self.qp_valid.next = !self.asked.q.val();
                if self.qp_ready.val() {
                    self.asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.ctx.d.next = self.qp_rdata.val();
                    self.qp_state.d.next = self.qp_rdata.val().get_bits::<3>(0);
                    self.sig_all.d.next = self.qp_rdata.val().get_bit(7);
                    self.send_cq.d.next = self.qp_rdata.val().get_bits::<4>(8);
                    self.head.d.next = self.ptr_rd.q.val().get_bits::<4>(0);
                    self.count.d.next = self.ptr_rd.q.val().get_bits::<5>(4);
                    self.recv.d.next = self.ptr_rd.q.val().get_bits::<32>(9);
                    self.acked.d.next = self.ptr_rd.q.val().get_bits::<24>(41);
                    self.acked_v.d.next = self.ptr_rd.q.val().get_bit(65);
                    self.gb_to.d.next = self.ptr_rd.q.val().get_bits::<24>(66);
                    self.gb_v.d.next = self.ptr_rd.q.val().get_bit(90);
                    self.retries.d.next = self.ptr_rd.q.val().get_bits::<3>(91);
                    self.rnr_retries.d.next = self.ptr_rd.q.val().get_bits::<3>(94);
                    self.armed.d.next = self.ptr_rd.q.val().get_bit(97);
                    self.rnr_mode.d.next = self.ptr_rd.q.val().get_bit(98);
                    self.deadline.d.next = self.ptr_rd.q.val().get_bits::<48>(99);
                    self.rewinding.d.next = self.ptr_rd.q.val().get_bit(147);
                    self.rnr_psn.d.next = self.ptr_rd.q.val().get_bits::<24>(148);
                    self.rd_done.d.next = self.ptr_rd.q.val().get_bits::<4>(172);
                    self.state.d.next = CompleterState::Dispatch;
                }
            }
            CompleterState::Dispatch => {
                self.asked.d.next = false;
                self.state.d.next = CompleterState::SavePtr;
                if self.ev.q.val() == self.ev_store.val() {
                    if self.store_state.q.val() == self.state_reset.val() {
                        self.rd_done.d.next = 0.into();
                        self.head.d.next = 0.into();
                        self.count.d.next = 0.into();
                        self.recv.d.next = 0.into();
                        self.acked_v.d.next = false;
                        self.gb_v.d.next = false;
                        self.retries.d.next = 0.into();
                        self.rnr_retries.d.next = 0.into();
                        self.rnr_mode.d.next = false;
                        self.rewinding.d.next = false;
                    } else {
                        self.state.d.next = CompleterState::Flush;
                    }
                } else if self.ev.q.val() == self.ev_report.val() {
                    // the CQE of a failed or flushed report (opcode 0 for a flushed one)
                    self.e_wr_id.d.next = self.r_wr_id.q.val();
                    self.e_len.d.next = 0.into();
                    self.e_opcode.d.next = 0.into();
                    if (self.r_opcode.q.val() == 2) | (self.r_opcode.q.val() == 3) {
                        self.e_opcode.d.next = 1.into();
                    }
                    if self.r_opcode.q.val() == self.wqe_op_read.val() {
                        self.e_opcode.d.next = 2.into();
                    }
                    self.e_status.d.next = self.r_status.q.val();
                    self.e_syndrome.d.next = 0.into();
                    if self.r_status.q.val() == self.went_back.val() {
                        // the requester went back: what it reports from now on is outstanding
                        self.rewinding.d.next = false;
                    } else if self.rewinding.q.val() {
                        // reported before it went back: it will be reported again
                    } else if self.qp_state.q.val() == self.state_reset.val() {
                        self.state.d.next = CompleterState::Idle;
                    } else if (self.r_status.q.val() == self.status_flush.val()) | ((self.r_status.q.val() == 0) & (self.qp_state.q.val() == self.state_err.val())) {
                        self.e_opcode.d.next = 0.into();
                        self.e_status.d.next = self.status_flush.val();
                        self.state.d.next = CompleterState::Emit;
                        self.after.d.next = CompleterState::Idle;
                    } else if self.r_status.q.val() != 0 {
                        self.state.d.next = CompleterState::Emit;
                        self.after.d.next = CompleterState::StoreErr;
                    } else {
                        self.state.d.next = CompleterState::Report;
                    }
                } else if self.ev.q.val() == self.ev_timer.val() {
                    // a timer that ran out (the scan's word may be stale: checked again)
                    // (one armed with nothing to time, or out of RTS, is stopped: SavePtr)
                    self.state.d.next = CompleterState::Idle;
                    if self.armed.q.val() {
                        self.state.d.next = CompleterState::SavePtr;
                        if (self.qp_state.q.val() == self.state_rts.val()) & !self.rewinding.q.val() & (self.count.q.val() != 0) {
                            self.state.d.next = CompleterState::TmCheck;
                        }
                    }
                } else {
                    // (a dropped READ response still gets its verdict: RdDrop, then `after`)
                    self.state.d.next = CompleterState::Idle;
                    if self.rd.q.val() {
                        self.state.d.next = CompleterState::RdDrop;
                    }
                    if self.qp_state.q.val() != self.state_rts.val() {
                        self.cnt_drop_state.next = true;
                    } else {
                        self.cnt_rx_packet.next = true;
                        self.cnt_rx_bytes.next = self.paylen.q.val();
                        if self.count.q.val() == 0 {
                            self.cnt_drop_psn.next = true;
                        } else if self.rd.q.val() {
                            // a READ response: the head WQE first (the ring's read address
                            // is {q, head} now)
                            self.state.d.next = CompleterState::RdHead;
                        } else {
                            // the last WQE outstanding: is the response past it?
                            self.state.d.next = CompleterState::Tail;
                            self.head.d.next = self.head.q.val() + self.count.q.val().get_bits::<4>(0) - 1;
                        }
                    }
                }
            }
            CompleterState::Report => {
                self.ring.write_enable.next = true;
                // (a READ going back is the head: its landed bytes)
                if (self.count.q.val() == 0) & (self.r_opcode.q.val() == self.wqe_op_read.val()) {
                    self.recv.d.next = self.r_offset.q.val();
                }
                self.count.d.next = self.count.q.val() + 1;
                self.state.d.next = CompleterState::SavePtr;
            }
            CompleterState::Tail => {
                // (the ring's read address is {q, head}: here the tail)
                self.state.d.next = CompleterState::TailRam;
            }
            CompleterState::TailRam => {
                self.head.d.next = self.head.q.val() - self.count.q.val().get_bits::<4>(0) + 1;
                self.state.d.next = CompleterState::TailEntry;
            }
            CompleterState::TailEntry => {
                self.state.d.next = CompleterState::TailCheck;
            }
            CompleterState::TailCheck => {
                self.state.d.next = CompleterState::Idle;
                if self.after_tail.q.val() {
                    self.cnt_drop_psn.next = true;
                    if self.rd.q.val() {
                        self.state.d.next = CompleterState::RdDrop;
                    }
                } else if self.rd.q.val() {
                    // a READ response acknowledges the requests before its READ
                    self.limit.d.next = self.psn.q.val() - 1;
                    self.nak.d.next = false;
                    self.state.d.next = CompleterState::Walk;
                } else if self.syn_ok.val() {
                    self.limit.d.next = self.psn.q.val();
                    self.nak.d.next = false;
                    self.state.d.next = CompleterState::Walk;
                    // an ACK past the latest is progress (inside a WQE too)
                    if self.ack_fwd.q.val() {
                        self.acked.d.next = self.psn.q.val();
                        self.acked_v.d.next = true;
                        self.progress.d.next = true;
                        self.retries.d.next = 0.into();
                        self.rnr_retries.d.next = 0.into();
                        self.gb_v.d.next = false;
                    }
                } else if self.syn_nak.val() {
                    self.cnt_nak.next = true;
                    self.limit.d.next = self.psn.q.val() - 1;
                    self.nak.d.next = true;
                    self.state.d.next = CompleterState::Walk;
                    if self.syndrome.q.val() == self.nak_seq.val() {
                        // a PSN sequence NAK acknowledges what is before its PSN, and
                        // cues going back to it
                        self.nak.d.next = false;
                        self.cue.d.next = 1.into();
                        if self.nak_fwd.q.val() {
                            self.acked.d.next = self.psn.q.val() - 1;
                            self.acked_v.d.next = true;
                            self.progress.d.next = true;
                            self.retries.d.next = 0.into();
                            self.rnr_retries.d.next = 0.into();
                            self.gb_v.d.next = false;
                        }
                    } else if self.syndrome.q.val().get_bits::<3>(5) == 1 {
                        // an RNR NAK: a wait, then back to its PSN
                        self.nak.d.next = false;
                        self.cue.d.next = 2.into();
                    }
                } else {
                    self.cnt_drop_malformed.next = true;
                }
            }
            CompleterState::Walk => {
                self.state.d.next = CompleterState::WalkRam;
                if self.count.q.val() == 0 {
                    self.state.d.next = CompleterState::SavePtr;
                    if self.nak.q.val() {
                        self.state.d.next = CompleterState::StoreErr;
                    }
                    if self.rd.q.val() {
                        // nothing left for the READ response to answer
                        self.cnt_drop_psn.next = true;
                        self.after.d.next = CompleterState::SavePtr;
                        self.state.d.next = CompleterState::RdDrop;
                    }
                }
            }
            CompleterState::WalkRam => {
                self.state.d.next = CompleterState::WalkEntry;
            }
            CompleterState::WalkEntry => {
                self.state.d.next = CompleterState::WalkCheck;
            }
            CompleterState::WalkCheck => {
                self.e_wr_id.d.next = self.entry.q.val().get_bits::<64>(0);
                self.e_len.d.next = self.entry.q.val().get_bits::<32>(92);
                self.e_opcode.d.next = self.cqe_op.val();
                self.e_status.d.next = 0.into();
                self.e_syndrome.d.next = 0.into();
                if (self.entry.q.val().get_bits::<3>(64) == 4) | self.past_limit.q.val() {
                    // a READ, or past the ACK: the walk ends (a NAK fails this one; a READ
                    // response is checked against it)
                    self.state.d.next = CompleterState::SavePtr;
                    if self.nak.q.val() {
                        self.state.d.next = CompleterState::FailHead;
                    }
                    if self.rd.q.val() {
                        self.state.d.next = CompleterState::RdCheck;
                    }
                    // a PSN sequence NAK: back to its PSN, unless already gone back there
                    // with no progress since (the packets behind one loss cue it again) or
                    // waiting out an RNR NAK (which goes back there anyway)
                    if (self.cue.q.val() == 1) & !self.rnr_mode.q.val() & !(self.gb_v.q.val() & (self.gb_to.q.val() == self.psn.q.val())) {
                        self.gb_psn.d.next = self.psn.q.val();
                        self.gb_una_only.d.next = false;
                        self.gb_rnr.d.next = false;
                        self.state.d.next = CompleterState::Gb0;
                    }
                    if self.cue.q.val() == 2 {
                        self.state.d.next = CompleterState::RnrStart;
                    }
                } else {
                    self.head.d.next = self.head.q.val() + 1;
                    self.count.d.next = self.count.q.val() - 1;
                    self.progress.d.next = true;
                    self.retries.d.next = 0.into();
                    self.rnr_retries.d.next = 0.into();
                    self.gb_v.d.next = false;
                    self.state.d.next = CompleterState::Walk;
                    if self.entry.q.val().get_bit(67) | self.sig_all.q.val() {
                        self.state.d.next = CompleterState::Emit;
                        self.after.d.next = CompleterState::Walk;
                    }
                }
            }
            CompleterState::FailHead => {
                self.recv.d.next = 0.into();
                self.e_len.d.next = 0.into();
                self.e_status.d.next = self.nak_status.val();
                self.e_syndrome.d.next = self.syndrome.q.val();
                self.head.d.next = self.head.q.val() + 1;
                self.count.d.next = self.count.q.val() - 1;
                self.state.d.next = CompleterState::Emit;
                self.after.d.next = CompleterState::StoreErr;
            }
            CompleterState::StoreErr => {
                self.qp_valid.next = !self.asked.q.val();
                self.qp_write.next = true;
                if self.qp_ready.val() {
                    self.asked.d.next = true;
                }
                // its answer, so that it is not taken for the next event's context
                if self.qp_rvalid.val() {
                    self.state.d.next = CompleterState::Flush;
                }
            }
            CompleterState::Flush => {
                // every WQE still outstanding completes flushed, in order
                self.state.d.next = CompleterState::FlushRam;
                if self.count.q.val() == 0 {
                    self.state.d.next = CompleterState::SavePtr;
                }
            }
            CompleterState::FlushRam => {
                self.state.d.next = CompleterState::FlushWait;
            }
            CompleterState::FlushWait => {
                self.e_wr_id.d.next = self.entry.q.val().get_bits::<64>(0);
                self.e_len.d.next = 0.into();
                self.e_opcode.d.next = 0.into();
                self.e_status.d.next = self.status_flush.val();
                self.e_syndrome.d.next = 0.into();
                self.head.d.next = self.head.q.val() + 1;
                self.count.d.next = self.count.q.val() - 1;
                self.recv.d.next = 0.into();
                self.state.d.next = CompleterState::Emit;
                self.after.d.next = CompleterState::Flush;
            }
            CompleterState::Emit => {
                self.cqe_valid.next = true;
                self.asked.d.next = false;
                if self.cqe_ready.val() {
                    self.state.d.next = self.after.q.val();
                }
            }
            CompleterState::SavePtr => {
                self.ptr_ram.write_enable.next = true;
                self.timer_ram.write_enable.next = true;
                for q in 0..64 {
                    if self.qpn.q.val() == self.qp_id[q].val() {
                        self.armed_qps.d.next = self.armed_qps.q.val() & !self.bit_of_qp[q].val();
                        if self.armed_w.val() {
                            self.armed_qps.d.next = self.armed_qps.q.val() | self.bit_of_qp[q].val();
                        }
                        self.full.d.next = self.full.q.val() & !self.bit_of_qp[q].val();
                        if self.count.q.val() >= self.sq_full_at.val() {
                            self.full.d.next = self.full.q.val() | self.bit_of_qp[q].val();
                        }
                        self.hold.d.next = self.hold.q.val() & !self.bit_of_qp[q].val();
                        if self.rnr_w.val() {
                            self.hold.d.next = self.hold.q.val() | self.bit_of_qp[q].val();
                        }
                    }
                }
                self.state.d.next = CompleterState::Idle;
            }
            // ---- a READ response. The head WQE a READ (its response in progress, or the
            // requests before it acknowledged already): nothing to walk, and a PSN the READ
            // expects is inside what was sent, so the checks go straight to it (the wire's
            // pace at a small MTU); else the tail check and the walk, as an ACK's ----
            CompleterState::RdHead => {
                self.state.d.next = CompleterState::RdHeadEntry;
            }
            CompleterState::RdHeadEntry => {
                self.state.d.next = CompleterState::RdCheck;
                if self.entry.q.val().get_bits::<3>(64) != 4 {
                    self.state.d.next = CompleterState::Tail;
                    self.head.d.next = self.head.q.val() + self.count.q.val().get_bits::<4>(0) - 1;
                }
            }
            // ---- the head WQE in `entry` (the walk stopped at it) ----
            CompleterState::RdCheck => {
                // the next PSN the READ expects (its first, one more per MTU landed), and
                // its bytes with this packet's
                self.rd_head_read.d.next = self.entry.q.val().get_bits::<3>(64) == 4;
                self.rd_expect.d.next = self.entry.q.val().get_bits::<24>(124) + self.mtu_whole.q.val();
                self.rd_landed.d.next = self.recv.q.val() + bit_cast::<32, 16>(self.paylen.q.val());
                // SQ_BASE + 128 * (index mod 2^SQ_LOG2)
                self.rd_wqe_addr.d.next = ((bit_cast::<64, 12>(self.ctx.q.val().get_bits::<12>(256)) << 32) | bit_cast::<64, 32>(self.ctx.q.val().get_bits::<32>(224)))
                    + (bit_cast::<64, 16>(self.entry.q.val().get_bits::<16>(148) & !(self.ones16.val() << bit_cast::<16, 4>(self.ctx.q.val().get_bits::<4>(272)))) << 7);
                self.e_wr_id.d.next = self.entry.q.val().get_bits::<64>(0);
                self.e_opcode.d.next = self.cqe_op_read.val();
                self.e_syndrome.d.next = 0.into();
                self.state.d.next = CompleterState::RdJudge;
            }
            CompleterState::RdJudge => {
                // the PSN, and the fit: a Last or Only ends the READ exactly, a First or
                // Middle carries the MTU and leaves some to come
                self.rd_psn_ok.d.next = self.rd_head_read.q.val() & (self.psn.q.val() == self.rd_expect.q.val());
                self.rd_gap.d.next = self.rd_gap_d.val().any() & !self.rd_gap_d.val().get_bit(23);
                self.rd_fits.d.next = (self.paylen.q.val() == self.path_mtu.bytes.val()) & (self.rd_landed.q.val() < self.entry.q.val().get_bits::<32>(92));
                if self.rd_ends.q.val() {
                    self.rd_fits.d.next = self.rd_landed.q.val() == self.entry.q.val().get_bits::<32>(92);
                }
                self.state.d.next = CompleterState::RdDecide;
            }
            CompleterState::RdDecide => {
                self.after.d.next = CompleterState::SavePtr;
                self.state.d.next = CompleterState::RdGo;
                if !self.rd_psn_ok.q.val() {
                    self.cnt_drop_psn.next = true;
                    self.state.d.next = CompleterState::RdDrop;
                    // a packet of the READ's response was lost: the READ is asked again
                    // from the one it lacks (once per gap, as a sequence NAK's cue)
                    if self.rd_head_read.q.val() & self.rd_gap.q.val() & !self.rnr_mode.q.val() & !(self.gb_v.q.val() & (self.gb_to.q.val() == self.rd_expect.q.val())) {
                        self.after.d.next = CompleterState::Gb0;
                        self.gb_psn.d.next = self.rd_expect.q.val();
                        self.gb_una_only.d.next = false;
                        self.gb_rnr.d.next = false;
                        self.syndrome.d.next = self.nak_seq.val();
                    }
                } else if !self.rd_fits.q.val() {
                    self.cnt_drop_malformed.next = true;
                    self.state.d.next = CompleterState::RdDrop;
                }
            }
            CompleterState::RdDrop => {
                // the responder drops the payload
                self.vd_valid.next = true;
                if self.vd_ready.val() {
                    self.state.d.next = self.after.q.val();
                }
            }
            CompleterState::RdGo => {
                self.vd_valid.next = true;
                self.vd_ok.next = true;
                if self.vd_ready.val() {
                    self.state.d.next = CompleterState::RdResult;
                }
            }
            CompleterState::RdResult => {
                self.rr_ready.next = true;
                if self.rr_valid.val() {
                    self.state.d.next = CompleterState::SavePtr;
                    if self.rr_lost.val() {
                        // nothing landed, nothing changes
                    } else if self.rr_status.val() != 0 {
                        // the landing place refused: the READ fails, the QP goes to ERR
                        self.e_len.d.next = 0.into();
                        self.e_status.d.next = self.rr_status.val();
                        self.head.d.next = self.head.q.val() + 1;
                        self.count.d.next = self.count.q.val() - 1;
                        self.recv.d.next = 0.into();
                        self.state.d.next = CompleterState::Emit;
                        self.after.d.next = CompleterState::StoreErr;
                    } else if self.rd_ends.q.val() {
                        // the READ's last byte landed: it completes
                        self.rd_done.d.next = self.rd_done.q.val() + 1;
                        self.rd_bump.d.next = true;
                        self.progress.d.next = true;
                        self.retries.d.next = 0.into();
                        self.rnr_retries.d.next = 0.into();
                        self.gb_v.d.next = false;
                        self.e_len.d.next = self.entry.q.val().get_bits::<32>(92);
                        self.e_status.d.next = 0.into();
                        self.head.d.next = self.head.q.val() + 1;
                        self.count.d.next = self.count.q.val() - 1;
                        self.recv.d.next = 0.into();
                        if self.entry.q.val().get_bit(67) | self.sig_all.q.val() {
                            self.state.d.next = CompleterState::Emit;
                        }
                    } else {
                        self.recv.d.next = self.rd_landed.q.val();
                        self.progress.d.next = true;
                        self.retries.d.next = 0.into();
                        self.rnr_retries.d.next = 0.into();
                        self.gb_v.d.next = false;
                    }
                }
            }
            // ---- going back ----
            CompleterState::TmCheck => {
                // the timer did run out: an RNR wait's end goes back to the NAK's PSN; the
                // transport timer's, to the first PSN not acknowledged (a new loss, even
                // where it went back before)
                self.state.d.next = CompleterState::Idle;
                if self.tm_late.q.val() {
                    self.gb_rnr.d.next = self.rnr_mode.q.val();
                    self.gb_una_only.d.next = !self.rnr_mode.q.val();
                    self.gb_psn.d.next = self.rnr_psn.q.val();
                    if !self.rnr_mode.q.val() {
                        self.gb_v.d.next = false;
                    }
                    self.rnr_mode.d.next = false;
                    self.state.d.next = CompleterState::Gb0;
                }
            }
            CompleterState::Gb0 => {
                // the head WQE (the ring's read address is {q, head})
                self.state.d.next = CompleterState::Gb1;
            }
            CompleterState::Gb1 => {
                self.state.d.next = CompleterState::Gb2;
            }
            CompleterState::Gb2 => {
                // its first PSN not landed (a READ's), and its CQE should it fail
                self.gb_base.d.next = self.entry.q.val().get_bits::<24>(124) + self.mtu_whole.q.val();
                self.e_wr_id.d.next = self.entry.q.val().get_bits::<64>(0);
                self.e_len.d.next = 0.into();
                self.e_opcode.d.next = self.cqe_op.val();
                self.state.d.next = CompleterState::Gb3;
            }
            CompleterState::Gb3 => {
                // the first PSN not acknowledged: past the latest ACK where it fell inside
                // the head (never a READ's: an ACK does not cover its data)
                self.gb_una.d.next = self.gb_base.q.val();
                if self.acked_v.q.val() & (self.entry.q.val().get_bits::<3>(64) != 4) & !(self.gb_d1.val().any() & self.gb_d1.val().get_bit(23)) & self.gb_d2.val().any() & !self.gb_d2.val().get_bit(23) {
                    self.gb_una.d.next = self.acked.q.val() + 1;
                }
                self.state.d.next = CompleterState::Gb4;
            }
            CompleterState::Gb4 => {
                // never past what the head lacks
                self.gb_target.d.next = self.gb_psn.q.val();
                if self.gb_una_only.q.val() | (self.gb_d3.val().any() & !self.gb_d3.val().get_bit(23)) {
                    self.gb_target.d.next = self.gb_una.q.val();
                }
                self.state.d.next = CompleterState::Gb5;
            }
            CompleterState::Gb5 => {
                // nor before its first
                if self.gb_d4.val().any() & self.gb_d4.val().get_bit(23) {
                    self.gb_target.d.next = self.entry.q.val().get_bits::<24>(124);
                }
                self.state.d.next = CompleterState::Gb6;
            }
            CompleterState::Gb6 => {
                // the byte it resumes at; RETRY_CNT times back in a row at most (an RNR
                // wait's end counts none: the NAK did)
                // (the PSN distance at 24 bits, `gb_d4`: written inside the cast, the
                // Verilog subtraction would borrow at 32 bits across the PSN wrap)
                self.gb_offset.d.next = bit_cast::<32, 24>(self.gb_d4.val()) << bit_cast::<32, 4>(self.path_mtu.log2.val());
                self.state.d.next = CompleterState::GbPost;
                if !self.gb_rnr.q.val() {
                    if self.retries.q.val() >= self.retry_cnt.val() {
                        // RETRY_EXC_ERR (the syndrome 0 of a timeout, or the NAK's)
                        self.state.d.next = CompleterState::FailHead;
                    } else {
                        self.retries.d.next = self.retries.q.val() + 1;
                    }
                }
            }
            CompleterState::GbPost => {
                // the requester goes back; every WQE is outstanding again as it is reported
                // again (the reports before it went back are dropped)
                self.rw_valid.next = true;
                if self.rw_ready.val() {
                    self.cnt_retry.next = true;
                    self.count.d.next = 0.into();
                    self.recv.d.next = 0.into();
                    self.rewinding.d.next = true;
                    self.gb_v.d.next = true;
                    self.gb_to.d.next = self.gb_target.q.val();
                    self.state.d.next = CompleterState::SavePtr;
                }
            }
            CompleterState::RnrStart => {
                // an RNR NAK: wait its timer, RNR_RETRY times (7: for ever), then back to it
                self.state.d.next = CompleterState::FailHead;
                if self.rnr_mode.q.val() {
                    self.state.d.next = CompleterState::SavePtr;
                } else if (self.rnr_retries.q.val() != 7) & (self.rnr_retries.q.val() < self.rnr_retry.val()) {
                    if self.rnr_retry.val() != 7 {
                        self.rnr_retries.d.next = self.rnr_retries.q.val() + 1;
                    }
                    self.rnr_mode.d.next = true;
                    self.rnr_psn.d.next = self.psn.q.val();
                    self.state.d.next = CompleterState::RnrArm;
                }
            }
            CompleterState::RnrArm => {
                self.armed.d.next = true;
                self.deadline.d.next = self.now.q.val() + bit_cast::<48, 28>(self.rnr_cycles.q.val());
                self.state.d.next = CompleterState::SavePtr;
            }
            _ => {
                self.state.d.next = CompleterState::Idle;
            }
        }
        if self.reset.val() {
            self.rh_valid.d.next = false;
            self.to_valid.d.next = false;
            self.t_hit.d.next = false;
            self.hold.d.next = 0.into();
            self.state.d.next = CompleterState::Idle;
            self.full.d.next = 0.into();
        }
    }
}
