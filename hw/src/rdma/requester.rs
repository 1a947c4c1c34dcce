//! The requester (rxe_req.c's role): send queue WQEs into request packets. The
//! behavioural model's `requester_packet` (testbench/src/roce/engine/requester.rs) is the
//! reference.
//!
//! A doorbell (`sq_db_*`: QPN and producer index) marks its QP as having work. The
//! requester serves the QPs with work in turn, one packet a turn (round-robin, so one
//! long message never holds the wire), and in a turn: reads the QP's context, and if no
//! WQE of it is in progress takes the next one: reads the 128-byte WQE from the send
//! queue, checks it (opcode, at most 6 SGEs, length) and its scatter-gather list against
//! the MR table (`RdmaMrCheck`: lkey current, the QP's PD, the range inside the region,
//! LOCAL_WRITE for a READ's landing place), advances SQ_CI, and reports it to the
//! completer as outstanding (`out_*`: from its first packet on, so a NAK for any of its
//! packets finds it) or, if a check failed, as failed (`out_status`; the QP goes to ERR
//! and nothing is sent). Then one packet: SEND and WRITE cut at the path MTU
//! (First/Middle/Last or Only; the RETH on a WRITE's first, immediate data and AckReq on
//! the last, SE on the last when the WQE asks), a READ one request that takes a PSN per
//! MTU of its response. The packet's header goes to `RdmaTxBuild` (`tx_*`; the source
//! MAC and IPv4 address are the engine's, given to the framer directly), its payload is
//! read from host memory piece by piece of the resolved scatter-gather list and
//! joined into whole beats (`BytePacker`), and the QP's SQ_PSN advances.
//!
//! Per QP the requester keeps the WQE in progress (its fields, the resolved list, how far
//! it has been sent) in block RAM, and the doorbell's producer index in another. A QP
//! that the driver stores in RESET forgets both.
//!
//! The completer holds a QP back (`sq_full`) while 14 or more of its WQEs are outstanding:
//! it takes no new WQE then (the WQE in progress goes on), and stays awake until a turn
//! finds room. A QP in ERR (failed here, NAKed, or stored so by the driver) drops its WQE
//! in progress (the completer flushes it with the others outstanding) and has its posted
//! WQEs fetched and reported flushed (`out_status` WR_FLUSH_ERR), one a turn, in order,
//! SQ_CI advancing past each.
//!
//! Not yet here (issue 19): a host refusing a payload read mid-message (the packet then
//! carries zeros; the model fails the WQE).

use super::super::stream::{BytePacker, NicFifo, NicRam, RamOutQueue, RegSlice};
use super::mr_check::RdmaMrCheck;
use super::path_mtu::RdmaPathMtu;
use nic_regmap::rdma::{access, qpc, wqe, QpState, WcStatus};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RequesterState {
    Scan,
    Ctx,
    Pick,
    Forget,
    Fetch,
    FetchData,
    Check,
    SgeAsk,
    SgeWait,
    Start,
    Count,
    Count2,
    Fail,
    FailStore,
    Record,
    Packet,
    Reads,
    Advance,
    Save,
    Rewind,
    RewindMark,
    SeekA,
    SeekB,
}

#[derive(LogicBlock)]
pub struct RdmaRequester {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- the send queue doorbell ----
    pub sq_db_valid: Signal<In, Bit>,
    pub sq_db_qpn: Signal<In, Bits<8>>,
    pub sq_db_pi: Signal<In, Bits<16>>,
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
    /// From the completer: QPs with 14 or more WQEs outstanding take no new WQE.
    pub sq_full: Signal<In, Bits<64>>,
    // ---- the MR table's stores, for this requester's check ----
    pub mr_wr: Signal<In, Bit>,
    pub mr_wr_index: Signal<In, Bits<6>>,
    pub mr_wr_entry: Signal<In, Bits<224>>,
    // ---- DMA reads (WQEs and payload, answered in order) ----
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_len: Signal<Out, Bits<16>>,
    pub dma_rd_rsp_valid: Signal<In, Bit>,
    pub dma_rd_rsp_ready: Signal<Out, Bit>,
    pub dma_rd_rsp_data: Signal<In, Bits<128>>,
    pub dma_rd_rsp_last: Signal<In, Bit>,
    pub dma_rd_rsp_error: Signal<In, Bit>,
    // ---- a packet for RdmaTxBuild: its request and its payload ----
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_dst_mac: Signal<Out, Bits<48>>,
    pub tx_dst_ip: Signal<Out, Bits<32>>,
    pub tx_udp_src_port: Signal<Out, Bits<16>>,
    pub tx_opcode: Signal<Out, Bits<8>>,
    pub tx_solicited: Signal<Out, Bit>,
    pub tx_ack_req: Signal<Out, Bit>,
    pub tx_dest_qp: Signal<Out, Bits<24>>,
    pub tx_psn: Signal<Out, Bits<24>>,
    pub tx_va: Signal<Out, Bits<64>>,
    pub tx_rkey: Signal<Out, Bits<32>>,
    pub tx_dma_len: Signal<Out, Bits<32>>,
    pub tx_immdt: Signal<Out, Bits<32>>,
    pub tx_payload_len: Signal<Out, Bits<16>>,
    pub pay_valid: Signal<Out, Bit>,
    pub pay_ready: Signal<In, Bit>,
    pub pay_data: Signal<Out, Bits<64>>,
    // ---- to the completer: a WQE taken (outstanding) or failed ----
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_qpn: Signal<Out, Bits<6>>,
    pub out_wr_id: Signal<Out, Bits<64>>,
    pub out_opcode: Signal<Out, Bits<3>>,
    pub out_flags: Signal<Out, Bits<8>>,
    pub out_first_psn: Signal<Out, Bits<24>>,
    pub out_last_psn: Signal<Out, Bits<24>>,
    /// The WQE's index in the send queue (SQ_CI as it was taken).
    pub out_sq_index: Signal<Out, Bits<16>>,
    pub out_len: Signal<Out, Bits<32>>,
    /// 0: outstanding; else the WQE failed with this `WcStatus`; `REPORT_WENT_BACK`: the
    /// QP went back as the completer asked.
    pub out_status: Signal<Out, Bits<8>>,
    /// The WQE's bytes done before this sending (going back, it resumes there).
    pub out_offset: Signal<Out, Bits<32>>,
    // ---- from the completer: go back (SQ_CI to the WQE at `rw_sq_index`, whose first
    // PSN is `rw_first_psn`, SQ_PSN to `rw_psn`, that WQE resumed at byte `rw_offset`) ----
    pub rw_valid: Signal<In, Bit>,
    pub rw_ready: Signal<Out, Bit>,
    pub rw_qpn: Signal<In, Bits<6>>,
    pub rw_sq_index: Signal<In, Bits<16>>,
    pub rw_first_psn: Signal<In, Bits<24>>,
    pub rw_psn: Signal<In, Bits<24>>,
    pub rw_offset: Signal<In, Bits<32>>,
    /// QPs waiting out an RNR NAK: nothing is sent for them.
    pub sq_hold: Signal<In, Bits<64>>,
    /// From the completer, whenever it saves a QP's state: the READs of QP `rd_sync_qpn`
    /// it has completed (mod 16), kept here beside the READs taken, so a READ WQE waits
    /// while MAX_RD_ATOMIC are outstanding; `rd_sync_wake`: one more completed (a QP
    /// asleep on its limit has a turn again).
    pub rd_sync_valid: Signal<In, Bit>,
    pub rd_sync_wake: Signal<In, Bit>,
    pub rd_sync_qpn: Signal<In, Bits<6>>,
    pub rd_sync_count: Signal<In, Bits<4>>,
    /// A request packet with a PSN sent before (TX_RESENT).
    pub cnt_resent: Signal<Out, Bit>,
    // ---- children ----
    mr_check: RdmaMrCheck,
    packer: BytePacker,
    /// The doorbell's producer index per QP.
    pi_ram: NicRam<Bits<16>, 6>,
    /// The WQE in progress per QP (layout at `job`).
    job_ram: NicRam<Bits<384>, 6>,
    /// The job written back stays active (Save, its message not yet out).
    job_keep: Signal<Local, Bit>,
    list_ram: NicRam<Bits<456>, 6>,
    /// Per QP, where the completer last asked it to go back: SQ index 15:0, the WQE's
    /// first PSN 39:16, the PSN 63:40, the byte offset 95:64; read with the others.
    resume_ram: NicRam<Bits<96>, 6>,
    resume_rd: DFF<Bits<96>>,
    resume: DFF<Bits<96>>,
    /// Per QP, the PSN after the furthest request sent (bit 24: one was), for TX_RESENT;
    /// and the READ WQEs taken, mod 16 (28:25; going back sets them to those completed:
    /// the WQEs from the head are taken again).
    fresh_ram: NicRam<Bits<29>, 6>,
    fresh_rd: DFF<Bits<29>>,
    fresh: DFF<Bits<29>>,
    /// Per QP, the READs the completer has completed, mod 16 (`rd_sync_*`).
    rd_done_ram: NicRam<Bits<4>, 6>,
    rd_done_rd: DFF<Bits<4>>,
    rd_done: DFF<Bits<4>>,
    /// The QP has MAX_RD_ATOMIC READs outstanding (not 0): a READ WQE is not taken.
    ord_full: DFF<Bit>,
    rd_out: Signal<Local, Bits<4>>,
    /// QPs asked to go back, not yet gone (`rewind`), and whose WQE is to resume at an
    /// offset, not yet taken (`resume_on`); their bits picked for `scan` each cycle, then
    /// a cycle later again (so the bit a turn loads is no newer than `resume_rd`).
    rewind: DFF<Bits<64>>,
    resume_on: DFF<Bits<64>>,
    rewind_bit: DFF<Bit>,
    rewind_bit2: DFF<Bit>,
    resume_bit: DFF<Bit>,
    resume_bit2: DFF<Bit>,
    hold_bit: DFF<Bit>,
    /// The turn resumes its new WQE at an offset; and the WQE fetched is the one to resume
    /// (registered: the SQ index compare does not reach the job's 384 flip-flops in Start;
    /// 156.25 MHz).
    resume_now: DFF<Bit>,
    resume_hit: DFF<Bit>,
    /// SQ_PSN past the packet, whether that is past the furthest sent, and whether the
    /// packet's PSN is before it (a resend), registered in Reads for Advance (the
    /// subtractions did not fit before the enables; 156.25 MHz).
    adv_end_q: DFF<Bits<24>>,
    fresh_adv: DFF<Bit>,
    resent_q: DFF<Bit>,
    /// The turn took a new WQE (its first packet advances SQ_CI).
    took: DFF<Bit>,
    /// Seeking the resumed WQE's byte in its pieces: the bytes left to pass, the piece's length.
    seek_r: DFF<Bits<32>>,
    sk_len: DFF<Bits<32>>,
    rewind_next: Signal<Local, Bits<64>>,
    resume_next: Signal<Local, Bits<64>>,
    j_sent: Signal<Local, Bits<32>>,
    j_first: Signal<Local, Bits<24>>,
    j_raddr: Signal<Local, Bits<64>>,
    adv_end: Signal<Local, Bits<24>>,
    fresh_gap: Signal<Local, Bits<24>>,
    end_gap: Signal<Local, Bits<24>>,
    went_back: Constant<Bits<8>>,
    /// The three per-QP RAMs' outputs, registered every cycle for the QP being scanned
    /// (Ctx waits at least three cycles for the QP table, so they are current when it
    /// loads them): the block RAMs' slow clock-to-out reaches a flip-flop and nothing else.
    pi_rd: DFF<Bits<16>>,
    job_rd: DFF<Bits<384>>,
    list_rd: DFF<Bits<456>>,
    /// Reads in flight, in order: payload 16, the packet's last 17, bytes 15:0 (a WQE: 0).
    reads: NicFifo<Bits<18>, 4, 5>,
    /// Every read response beat lands here first (data 127:0, last 128, error 129): a read
    /// is issued only while the longest one (257 beats: a 4,096-byte packet's payload, or
    /// a WQE) has room beside what is buffered and promised, so the DMA port's responses, which all clients share in request order,
    /// never wait for this requester's packet to reach the wire (MAC TX may be busy with an
    /// Ethernet frame that needs the port's next response). The reads are counted against
    /// 1,023 words (`rsp_depth`), so the buffer's registered `almost_full` (1,023 held a
    /// cycle ago) is set only while nothing is in flight: it refuses no beat, and the
    /// pointers' compare does not reach the shared port's ready or the promise FIFO.
    rsp_buf: NicFifo<Bits<130>, 10, 11>,
    /// The response buffer's head registered (156.25 MHz: the block RAM's output reaches
    /// only flip-flops that load it every cycle, not the WQE's fields or the payload
    /// split). Its beats have left the buffer, so the room the reads are issued against
    /// stays honest.
    rsp_q: RamOutQueue<Bits<130>>,
    /// Beats each read in flight promised (its length in 16-byte beats), oldest first.
    promises: NicFifo<Bits<11>, 4, 5>,
    /// Beats promised to reads in flight, and of them arrived (the oldest read's).
    promised: DFF<Bits<11>>,
    arrived: DFF<Bits<9>>,
    /// The room left, registered; no read is issued in the cycle after one (the register
    /// does not know of it yet).
    room: DFF<Bits<11>>,
    /// A read issued last cycle, and its beats: added to `promised` a cycle late (the
    /// request's length does not reach `promised`: 156.25 MHz).
    issued: DFF<Bit>,
    issued_beats: DFF<Bits<11>>,
    /// A read issued two cycles ago. So reads are issued 4 cycles apart at most, the room
    /// known for each.
    issued2: DFF<Bit>,
    /// A WQE's last beat was taken: its read's entry leaves the reads FIFO.
    wqe_read_done: DFF<Bit>,
    /// A WQE's beat as taken, registered before its fields are: the take decision (the
    /// reads FIFO's head, the slice's valid, the state) reached the enables of a thousand
    /// field flip-flops (156.25 MHz). A cycle of latency per WQE.
    wb_valid: DFF<Bit>,
    /// A payload read's last half went to the packer: its entry leaves the reads FIFO a
    /// cycle later (the packer's ready does not reach the FIFO's read pointer), and the
    /// intake takes no new head meanwhile.
    pay_read_done: DFF<Bit>,
    wb_data: DFF<Bits<128>>,
    /// The beat's first 64 bits, zero when it came with an error: a WQE's WR ID as its
    /// fields take it (a WQE that could not be read names nothing but its place). Zeroed
    /// here, from the beat's own error flip-flop, so the WR ID register has an enable only
    /// (its reset from the decoded first beat missed 156.25 MHz).
    wb_id: DFF<Bits<64>>,
    wb_error: DFF<Bit>,
    wb_last: DFF<Bit>,
    req_beats: Signal<Local, Bits<11>>,
    fire_rd: Signal<Local, Bit>,
    prom_next: Signal<Local, Bits<11>>,
    room_for_one: Constant<Bits<11>>,
    /// A read may be issued: registered from the registers it reads (the promises FIFO's
    /// full, the room), so only the port's ready reaches the state machine; it is clear in
    /// the three cycles after a read is issued (the room is not yet known).
    may_issue: DFF<Bit>,
    rd_ready: Signal<Local, Bit>,
    b_valid: Signal<Local, Bit>,
    b_ready: Signal<Local, Bit>,
    b_data: Signal<Local, Bits<128>>,
    b_last: Signal<Local, Bit>,
    b_error: Signal<Local, Bit>,
    rsp_depth: Constant<Bits<11>>,
    // ---- QPs ----
    work: DFF<Bits<64>>,
    forget: DFF<Bits<64>>,
    scan: DFF<Bits<6>>,
    /// The QP at `scan` has work: found by the scan's last step (its lane in the group
    /// ahead), so the step's decision is a flip-flop, not a 64-way pick of `work`
    /// (156.25 MHz; a cycle more per turn).
    hit: DFF<Bit>,
    /// The QP's `forget` and `sq_full` bits, picked every cycle for `scan` (stable from
    /// the scan's hit until Pick: the context read takes three cycles or more). A bit
    /// set in the last cycle is seen at the QP's next turn: the store that sets `forget`
    /// also keeps the QP awake (`db_seen`), and a `sq_full` a cycle late is one the
    /// completer set a cycle later (`SQ_FULL_AT` counts the reports on their way).
    forget_bit: DFF<Bit>,
    full_bit: DFF<Bit>,
    /// SQ_CI differs from the doorbell's producer index: WQEs are posted (compared as the
    /// context is loaded, for Pick; 156.25 MHz).
    pending: DFF<Bit>,
    db_seen: DFF<Bit>,
    /// The WQE fetched is flushed (its QP is in ERR), not run.
    flushing: DFF<Bit>,
    // ---- the turn ----
    state: DFF<RequesterState>,
    qp_asked: DFF<Bit>,
    ctx: DFF<Bits<384>>,
    pi: DFF<Bits<16>>,
    /// active 0, opcode 3:1, flags 11:4, pieces 14:12, cur piece 17:15, offset in it 49:18,
    /// length 81:50, sent 113:82, first PSN 137:114, immediate 169:138, wr_id 233:170,
    /// remote address 297:234, rkey 329:298
    job: DFF<Bits<384>>,
    list: DFF<Bits<456>>,
    // the WQE as read
    beat_no: DFF<Bits<4>>,
    w_wr_id: DFF<Bits<64>>,
    w_opcode: DFF<Bits<8>>,
    w_flags: DFF<Bits<8>>,
    w_num: DFF<Bits<8>>,
    w_imm: DFF<Bits<32>>,
    w_raddr: DFF<Bits<64>>,
    w_rkey: DFF<Bits<32>>,
    w_sge_addr: [DFF<Bits<64>>; 6],
    w_sge_len: [DFF<Bits<32>>; 6],
    /// SGE i's length is not 0 (taken with it: `sge_nz` is then a 6-way pick of a bit, not
    /// a 32-bit OR behind a 6-way pick; 156.25 MHz).
    w_sge_nz: [DFF<Bit>; 6],
    w_sge_key: [DFF<Bits<32>>; 6],
    /// SGE i is below the WQE's num_sge, set from the first beat: the SGE beats' loads
    /// test a flag, not an 8-bit compare (156.25 MHz).
    w_keep: [DFF<Bit>; 6],
    /// The kept SGEs' lengths summed as their beats arrive (Check takes it: no six-way
    /// sum in one cycle; 156.25 MHz).
    w_total: DFF<Bits<36>>,
    w_error: DFF<Bit>,
    // the checks
    sge_i: DFF<Bits<3>>,
    /// The SGE in hand has bytes: registered while the MR check takes its cycles (`mr_check::LATENCY`), so
    /// the SGE mux does not reach the list's write (156.25 MHz).
    sge_nz: DFF<Bit>,
    /// The SGE in hand's length, registered the same way for the list's write.
    sge_len_q: DFF<Bits<32>>,
    pieces: DFF<Bits<3>>,
    total: DFF<Bits<36>>,
    status: DFF<Bits<8>>,
    // the packet
    mtu: DFF<Bits<16>>,
    mtu_log2: DFF<Bits<4>>,
    chunk: DFF<Bits<16>>,
    starts: DFF<Bit>,
    ends: DFF<Bit>,
    psn: DFF<Bits<24>>,
    left: DFF<Bits<16>>,
    /// `left` is not zero, kept beside it (Reads decides on it every cycle).
    left_nz: DFF<Bit>,
    // a read in three steps: where, how much, the request
    phase: DFF<Bits<2>>,
    /// A message's length plus MTU - 1, then its packets: max(1, that / MTU).
    n_sum: DFF<Bits<32>>,
    n_pkts_q: DFF<Bits<24>>,
    /// The job's length is 0 (with `n_sum`, a cycle before the shift).
    len_zero: DFF<Bit>,
    p_addr: DFF<Bits<64>>,
    p_bus: DFF<Bits<44>>,
    p_off: DFF<Bits<32>>,
    p_rest: DFF<Bits<32>>,
    p_take: DFF<Bits<16>>,
    p_next_piece: DFF<Bit>,
    // payload intake: the beat split in halves for the packer
    sp_valid: DFF<Bit>,
    sp_half: DFF<Bit>,
    sp_data: DFF<Bits<128>>,
    /// The read's next beat, waiting behind the one being split: the split gives a half
    /// a cycle without a gap between beats (8 bytes a cycle, the framer's rate).
    nx_valid: DFF<Bit>,
    nx_data: DFF<Bits<128>>,
    in_req: DFF<Bit>,
    req_left: DFF<Bits<16>>,
    /// `req_left <= 8` (this half ends the read), registered: the compare decides the
    /// split's refill and the half's length, and would lengthen both paths (156.25 MHz).
    left_le8: DFF<Bit>,
    /// The read's beats not yet taken from the response buffer.
    intake_left: DFF<Bits<12>>,
    /// `intake_left` is not 0 (a flag of its own: the take decision reaches the split's
    /// 128 data flip-flops; 156.25 MHz).
    intake_nz: DFF<Bit>,
    take_beat: Signal<Local, Bit>,
    sp_vacate: Signal<Local, Bit>,
    /// The half on its way to the packer.
    /// Each half on its way to the packer: data 63:0, length 67:64, the packet's end 68. A
    /// skid slice, so the split takes a half on the slice's registered ready, not on the
    /// packer's (which adds the half's length to its residue: 156.25 MHz).
    half_slice: RegSlice<Bits<69>>,
    // ---- scratch ----
    sel: Signal<Local, Bits<6>>,
    work_next: Signal<Local, Bits<64>>,
    forget_next: Signal<Local, Bits<64>>,
    h_take: Signal<Local, Bit>,
    half_data: Signal<Local, Bits<64>>,
    qp_state: Signal<Local, Bits<3>>,
    sq_ci: Signal<Local, Bits<16>>,
    sq_psn: Signal<Local, Bits<24>>,
    cur: Signal<Local, Bits<3>>,
    off: Signal<Local, Bits<32>>,
    piece_bus: Signal<Local, Bits<44>>,
    piece_len: Signal<Local, Bits<32>>,
    piece_rest: Signal<Local, Bits<32>>,
    sge_addr: Signal<Local, Bits<64>>,
    sge_len: Signal<Local, Bits<32>>,
    sge_key: Signal<Local, Bits<32>>,
    base_op: Signal<Local, Bits<8>>,
    imm_op: Signal<Local, Bit>,
    is_read: Signal<Local, Bit>,
    is_write: Signal<Local, Bit>,
    mac_le: Signal<Local, Bits<48>>,
    half_len: Signal<Local, Bits<16>>,
    head_payload: Signal<Local, Bit>,
    sleep: Signal<Local, Bit>,
    /// Bytes of the message still to send, registered (the job is loaded at least a cycle
    /// before Packet compares it with the MTU: from Ctx through Pick, or in Start).
    rest: DFF<Bits<32>>,
    sel_idx: [Constant<Bits<6>>; 64],
    /// The scan's group of 8 QPs (scan 5:3), and the lanes of it at and after scan 2:0
    /// with work: an idle scan moves to the next QP with work in its group, or to the
    /// next group, so a doorbell waits at most 8 cycles for its turn instead of 64.
    scan_group: Signal<Local, Bits<8>>,
    scan_ahead: Signal<Local, Bits<8>>,
    scan_next: Signal<Local, Bits<6>>,
    group_no: [Constant<Bits<3>>; 8],
    /// Lane 7 - i, and its bit.
    lane_down: [Constant<Bits<6>>; 8],
    lane_down_bit: [Constant<Bits<8>>; 8],
    group_ones: Constant<Bits<8>>,
    bit_of_qp: [Constant<Bits<64>>; 64],
    piece_no: [Constant<Bits<3>>; 6],
    piece_shift: [Constant<Bits<9>>; 6],
    state_rts: Constant<Bits<3>>,
    state_reset: Constant<Bits<3>>,
    state_err: Constant<Bits<384>>,
    state_bits: Constant<Bits<384>>,
    sq_psn_bits: Constant<Bits<384>>,
    sq_ci_bits: Constant<Bits<384>>,
    /// `fresh`'s count of READs taken, and one of them.
    rd_taken_bits: Constant<Bits<29>>,
    rd_taken_one: Constant<Bits<29>>,
    local_write: Constant<Bits<3>>,
    st_qp_op: Constant<Bits<8>>,
    st_flush: Constant<Bits<8>>,
    state_err3: Constant<Bits<3>>,
    st_len: Constant<Bits<8>>,
    st_prot: Constant<Bits<8>>,
    max_message: Constant<Bits<36>>,
    ones16: Constant<Bits<16>>,
    path_mtu: RdmaPathMtu,
    job_active: Constant<Bits<384>>,
    cursor_bits: Constant<Bits<384>>,
    sent_bits: Constant<Bits<384>>,
    sge_beat: [Constant<Bits<4>>; 6],
    sge_count: [Constant<Bits<8>>; 6],
}

impl Default for RdmaRequester {
    fn default() -> Self {
        let field = |f: nic_regmap::rdma::TableField| Bits::<384>::from(u64::from(f.mask())) << (32 * f.word as u64 + u64::from(f.lsb));
        // the layouts the update reads by bit position
        assert!(qpc::STATE.word == 0 && qpc::PMTU.lsb == 4 && qpc::PD.lsb == 16 && qpc::DEST_QPN.word == 1 && qpc::SQ_PSN.word == 2);
        assert!(qpc::DEST_IPV4.word == 4 && qpc::DEST_MAC_LO.word == 5 && qpc::DEST_MAC_HI.word == 6 && qpc::UDP_SPORT.word == 6 && qpc::UDP_SPORT.lsb == 16);
        assert!(qpc::SQ_BASE_LO.word == 7 && qpc::SQ_BASE_HI.word == 8 && qpc::SQ_LOG2.word == 8 && qpc::SQ_LOG2.lsb == 16 && qpc::SQ_CI.word == 11);
        assert!(qpc::MAX_RD_ATOMIC.word == 10 && qpc::MAX_RD_ATOMIC.lsb == 20 && qpc::MAX_RD_ATOMIC.width == 4);
        assert!(wqe::WR_ID == 0 && wqe::OPCODE == 8 && wqe::FLAGS == 9 && wqe::NUM_SGE == 10 && wqe::IMM == 12 && wqe::REMOTE_ADDR == 16 && wqe::RKEY == 24);
        assert!(wqe::SGE == 32 && wqe::SGE_SIZE == 16 && wqe::SGE_LENGTH == 8 && wqe::SGE_LKEY == 12 && wqe::MAX_SGE == 6 && wqe::OP_READ == 4);
        assert!(wqe::FLAG_SOLICITED == 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sq_db_valid: Default::default(),
            sq_db_qpn: Default::default(),
            sq_db_pi: Default::default(),
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
            sq_full: Default::default(),
            mr_wr: Default::default(),
            mr_wr_index: Default::default(),
            mr_wr_entry: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            dma_rd_rsp_last: Default::default(),
            dma_rd_rsp_error: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            tx_dst_mac: Default::default(),
            tx_dst_ip: Default::default(),
            tx_udp_src_port: Default::default(),
            tx_opcode: Default::default(),
            tx_solicited: Default::default(),
            tx_ack_req: Default::default(),
            tx_dest_qp: Default::default(),
            tx_psn: Default::default(),
            tx_va: Default::default(),
            tx_rkey: Default::default(),
            tx_dma_len: Default::default(),
            tx_immdt: Default::default(),
            tx_payload_len: Default::default(),
            pay_valid: Default::default(),
            pay_ready: Default::default(),
            pay_data: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_qpn: Default::default(),
            out_wr_id: Default::default(),
            out_opcode: Default::default(),
            out_flags: Default::default(),
            out_first_psn: Default::default(),
            out_last_psn: Default::default(),
            out_sq_index: Default::default(),
            out_len: Default::default(),
            out_status: Default::default(),
            mr_check: Default::default(),
            packer: Default::default(),
            pi_ram: Default::default(),
            job_ram: Default::default(),
            job_keep: Default::default(),
            pi_rd: Default::default(),
            job_rd: Default::default(),
            list_rd: Default::default(),
            list_ram: Default::default(),
            out_offset: Default::default(),
            rw_valid: Default::default(),
            rw_ready: Default::default(),
            rw_qpn: Default::default(),
            rw_sq_index: Default::default(),
            rw_first_psn: Default::default(),
            rw_psn: Default::default(),
            rw_offset: Default::default(),
            sq_hold: Default::default(),
            cnt_resent: Default::default(),
            resume_ram: Default::default(),
            resume_rd: Default::default(),
            resume: Default::default(),
            fresh_ram: Default::default(),
            fresh_rd: Default::default(),
            fresh: Default::default(),
            rd_sync_valid: Default::default(),
            rd_sync_wake: Default::default(),
            rd_sync_qpn: Default::default(),
            rd_sync_count: Default::default(),
            rd_done_ram: Default::default(),
            rd_done_rd: Default::default(),
            rd_done: Default::default(),
            ord_full: Default::default(),
            rd_out: Default::default(),
            rewind: Default::default(),
            resume_on: Default::default(),
            rewind_bit: Default::default(),
            rewind_bit2: Default::default(),
            resume_bit: Default::default(),
            resume_bit2: Default::default(),
            hold_bit: Default::default(),
            resume_now: Default::default(),
            resume_hit: Default::default(),
            adv_end_q: Default::default(),
            fresh_adv: Default::default(),
            resent_q: Default::default(),
            took: Default::default(),
            seek_r: Default::default(),
            sk_len: Default::default(),
            rewind_next: Default::default(),
            resume_next: Default::default(),
            j_sent: Default::default(),
            j_first: Default::default(),
            j_raddr: Default::default(),
            adv_end: Default::default(),
            fresh_gap: Default::default(),
            end_gap: Default::default(),
            went_back: Constant::new(super::completer::REPORT_WENT_BACK.into()),
            reads: Default::default(),
            work: Default::default(),
            forget: Default::default(),
            scan: Default::default(),
            hit: Default::default(),
            forget_bit: Default::default(),
            full_bit: Default::default(),
            pending: Default::default(),
            db_seen: Default::default(),
            flushing: Default::default(),
            state: Default::default(),
            qp_asked: Default::default(),
            ctx: Default::default(),
            pi: Default::default(),
            job: Default::default(),
            list: Default::default(),
            beat_no: Default::default(),
            w_wr_id: Default::default(),
            w_opcode: Default::default(),
            w_flags: Default::default(),
            w_num: Default::default(),
            w_imm: Default::default(),
            w_raddr: Default::default(),
            w_rkey: Default::default(),
            w_sge_addr: Default::default(),
            w_sge_len: Default::default(),
            w_sge_nz: Default::default(),
            w_sge_key: Default::default(),
            w_keep: Default::default(),
            w_total: Default::default(),
            w_error: Default::default(),
            sge_i: Default::default(),
            sge_nz: Default::default(),
            sge_len_q: Default::default(),
            pieces: Default::default(),
            total: Default::default(),
            status: Default::default(),
            mtu: Default::default(),
            mtu_log2: Default::default(),
            chunk: Default::default(),
            starts: Default::default(),
            ends: Default::default(),
            psn: Default::default(),
            left: Default::default(),
            left_nz: Default::default(),
            phase: Default::default(),
            n_sum: Default::default(),
            n_pkts_q: Default::default(),
            len_zero: Default::default(),
            p_addr: Default::default(),
            p_bus: Default::default(),
            p_off: Default::default(),
            p_rest: Default::default(),
            p_take: Default::default(),
            p_next_piece: Default::default(),
            sp_valid: Default::default(),
            sp_half: Default::default(),
            sp_data: Default::default(),
            nx_valid: Default::default(),
            nx_data: Default::default(),
            intake_left: Default::default(),
            intake_nz: Default::default(),
            take_beat: Default::default(),
            sp_vacate: Default::default(),
            in_req: Default::default(),
            req_left: Default::default(),
            left_le8: Default::default(),
            half_slice: Default::default(),
            h_take: Default::default(),
            half_data: Default::default(),
            sel: Default::default(),
            work_next: Default::default(),
            forget_next: Default::default(),
            qp_state: Default::default(),
            sq_ci: Default::default(),
            sq_psn: Default::default(),
            cur: Default::default(),
            off: Default::default(),
            piece_bus: Default::default(),
            piece_len: Default::default(),
            piece_rest: Default::default(),
            sge_addr: Default::default(),
            sge_len: Default::default(),
            sge_key: Default::default(),
            base_op: Default::default(),
            imm_op: Default::default(),
            is_read: Default::default(),
            is_write: Default::default(),
            mac_le: Default::default(),
            half_len: Default::default(),
            head_payload: Default::default(),
            sleep: Default::default(),
            rest: Default::default(),
            sel_idx: std::array::from_fn(|q| Constant::new(Bits::<6>::from(q as u64))),
            scan_group: Default::default(),
            scan_ahead: Default::default(),
            scan_next: Default::default(),
            group_no: std::array::from_fn(|g| Constant::new(Bits::<3>::from(g as u64))),
            lane_down: std::array::from_fn(|i| Constant::new(Bits::<6>::from(7 - i as u64))),
            lane_down_bit: std::array::from_fn(|i| Constant::new(Bits::<8>::from(1u64 << (7 - i)))),
            group_ones: Constant::new(0xff.into()),
            bit_of_qp: std::array::from_fn(|q| Constant::new(Bits::<64>::from(1u64 << q))),
            piece_no: std::array::from_fn(|i| Constant::new(Bits::<3>::from(i as u64))),
            piece_shift: std::array::from_fn(|i| Constant::new(Bits::<9>::from(76 * i as u64))),
            state_rts: Constant::new((QpState::Rts as u64).into()),
            state_reset: Constant::new((QpState::Reset as u64).into()),
            state_err: Constant::new(Bits::<384>::from(QpState::Err as u64)),
            state_bits: Constant::new(field(qpc::STATE)),
            sq_psn_bits: Constant::new(field(qpc::SQ_PSN)),
            sq_ci_bits: Constant::new(field(qpc::SQ_CI)),
            rd_taken_bits: Constant::new(Bits::<29>::from(0xfu64 << 25)),
            rd_taken_one: Constant::new(Bits::<29>::from(1u64 << 25)),
            local_write: Constant::new(u64::from(access::LOCAL_WRITE).into()),
            st_qp_op: Constant::new((WcStatus::LocQpOpErr as u64).into()),
            st_flush: Constant::new((WcStatus::WrFlushErr as u64).into()),
            state_err3: Constant::new((QpState::Err as u64).into()),
            st_len: Constant::new((WcStatus::LocLenErr as u64).into()),
            st_prot: Constant::new((WcStatus::LocProtErr as u64).into()),
            max_message: Constant::new(wqe::MAX_MESSAGE.into()),
            ones16: Constant::new(0xffffu64.into()),
            path_mtu: Default::default(),
            job_active: Constant::new(Bits::<384>::from(1u64)),
            cursor_bits: Constant::new(Bits::<384>::from(0x7_ffff_ffffu64) << 15u64),
            sent_bits: Constant::new(Bits::<384>::from(0xffff_ffffu64) << 82u64),
            sge_beat: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64 + 2))),
            rsp_buf: Default::default(),
            rsp_q: Default::default(),
            promises: Default::default(),
            promised: Default::default(),
            arrived: Default::default(),
            room: Default::default(),
            issued: Default::default(),
            issued2: Default::default(),
            issued_beats: Default::default(),
            wqe_read_done: Default::default(),
            wb_valid: Default::default(),
            pay_read_done: Default::default(),
            wb_data: Default::default(),
            wb_id: Default::default(),
            wb_error: Default::default(),
            wb_last: Default::default(),
            req_beats: Default::default(),
            fire_rd: Default::default(),
            prom_next: Default::default(),
            room_for_one: Constant::new(257u64.into()),
            may_issue: Default::default(),
            rd_ready: Default::default(),
            b_valid: Default::default(),
            b_ready: Default::default(),
            b_data: Default::default(),
            b_last: Default::default(),
            b_error: Default::default(),
            rsp_depth: Constant::new(1023u64.into()),
            sge_count: std::array::from_fn(|i| Constant::new(Bits::<8>::from(i as u64))),
        }
    }
}

impl Logic for RdmaRequester {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pending, hit, forget_bit, full_bit, rest, pay_read_done, wb_valid, wb_data, wb_id, wb_error, wb_last, pi_rd, job_rd, list_rd, left_nz, may_issue, work, forget, scan, db_seen, flushing, state, qp_asked, ctx, pi, job, list, beat_no, w_wr_id, w_opcode, w_flags,
            w_num, w_imm, w_raddr, w_rkey, w_total, w_error, sge_i, sge_nz, sge_len_q, pieces, total, status, mtu, mtu_log2, chunk, starts, ends, psn, left, phase, n_sum, n_pkts_q, len_zero, p_addr, p_bus, p_off, p_rest, p_take, p_next_piece, sp_valid,
            sp_half, sp_data, nx_valid, nx_data, intake_left, intake_nz, in_req, req_left, left_le8, promised, arrived, room, issued, issued2, issued_beats, wqe_read_done,
            resume_rd, resume, fresh_rd, fresh, rewind, resume_on, rewind_bit, rewind_bit2, resume_bit, resume_bit2, hold_bit, resume_now, resume_hit, adv_end_q, fresh_adv, resent_q, took, seek_r, sk_len, rd_done_rd, rd_done, ord_full);
        for i in 0..6 {
            self.w_sge_addr[i].clock.next = self.clock.val();
            self.w_sge_addr[i].d.next = self.w_sge_addr[i].q.val();
            self.w_sge_len[i].clock.next = self.clock.val();
            self.w_sge_len[i].d.next = self.w_sge_len[i].q.val();
            self.w_sge_nz[i].clock.next = self.clock.val();
            self.w_sge_nz[i].d.next = self.w_sge_nz[i].q.val();
            self.w_sge_key[i].clock.next = self.clock.val();
            self.w_sge_key[i].d.next = self.w_sge_key[i].q.val();
            self.w_keep[i].clock.next = self.clock.val();
            self.w_keep[i].d.next = self.w_keep[i].q.val();
        }
        clock!(self, clock, mr_check, packer, pi_ram, job_ram, list_ram, reads, rsp_buf, rsp_q, half_slice, promises, resume_ram, fresh_ram, rd_done_ram);
        // the QP's path MTU (its context's PMTU code)
        self.path_mtu.code.next = self.ctx.q.val().get_bits::<3>(4);
        self.path_mtu.len.next = 0.into();
        self.mr_check.reset.next = self.reset.val();
        self.packer.reset.next = self.reset.val();
        self.reads.reset.next = self.reset.val();
        self.rsp_buf.reset.next = self.reset.val();
        self.rsp_q.reset.next = self.reset.val();
        self.half_slice.reset.next = self.reset.val();
        self.promises.reset.next = self.reset.val();
        // ---- the response buffer: room for a read before it is issued ----
        self.rd_ready.next = self.dma_rd_req_ready.val() & self.may_issue.q.val();
        self.rsp_buf.write.next = self.dma_rd_rsp_valid.val() & !self.rsp_buf.almost_full.val();
        self.rsp_buf.data_in.next = bit_cast::<130, 128>(self.dma_rd_rsp_data.val())
            | (bit_cast::<130, 1>(self.dma_rd_rsp_last.val().into()) << 128)
            | (bit_cast::<130, 1>(self.dma_rd_rsp_error.val().into()) << 129);
        self.dma_rd_rsp_ready.next = !self.rsp_buf.almost_full.val();
        self.promises.read.next = false;
        self.prom_next.next = self.promised.q.val();
        if self.dma_rd_rsp_valid.val() & !self.rsp_buf.almost_full.val() {
            self.arrived.d.next = self.arrived.q.val() + 1;
            if self.dma_rd_rsp_last.val() {
                // the read is whole (or refused, in one beat): its promise is kept or void
                self.arrived.d.next = 0.into();
                self.prom_next.next = self.promised.q.val() - self.promises.data_out.val();
                self.promises.read.next = true;
            }
        }
        self.rsp_q.s_data.next = self.rsp_buf.data_out.val();
        self.rsp_q.s_valid.next = !self.rsp_buf.empty.val();
        self.rsp_buf.read.next = !self.rsp_buf.empty.val() & self.rsp_q.s_ready.val();
        self.b_valid.next = self.rsp_q.m_valid.val();
        self.b_data.next = self.rsp_q.m_data.val().get_bits::<128>(0);
        self.b_last.next = self.rsp_q.m_data.val().get_bit(128);
        self.b_error.next = self.rsp_q.m_data.val().get_bit(129);
        self.mr_check.mr_wr.next = self.mr_wr.val();
        self.mr_check.mr_wr_index.next = self.mr_wr_index.val();
        self.mr_check.mr_wr_entry.next = self.mr_wr_entry.val();
        // ---- doorbells: the producer index stored, the QP has work ----
        self.pi_ram.write_enable.next = self.sq_db_valid.val() & !self.sq_db_qpn.val().get_bits::<2>(6).any();
        self.pi_ram.write_address.next = self.sq_db_qpn.val().get_bits::<6>(0);
        self.pi_ram.write_data.next = self.sq_db_pi.val();
        self.sel.next = self.scan.q.val();
        self.pi_rd.d.next = self.pi_ram.read_data.val();
        self.job_rd.d.next = self.job_ram.read_data.val();
        self.list_rd.d.next = self.list_ram.read_data.val();
        self.resume_rd.d.next = self.resume_ram.read_data.val();
        self.fresh_rd.d.next = self.fresh_ram.read_data.val();
        self.rd_done_rd.d.next = self.rd_done_ram.read_data.val();
        self.rd_done_ram.read_address.next = self.scan.q.val();
        self.rd_done_ram.write_enable.next = self.rd_sync_valid.val();
        self.rd_done_ram.write_address.next = self.rd_sync_qpn.val();
        self.rd_done_ram.write_data.next = self.rd_sync_count.val();
        // READs outstanding against MAX_RD_ATOMIC (QP word 10, bits 23:20), for Check
        self.rd_out.next = self.fresh.q.val().get_bits::<4>(25) - self.rd_done.q.val();
        self.ord_full.d.next = self.ctx.q.val().get_bits::<4>(340).any() & (self.rd_out.val() >= self.ctx.q.val().get_bits::<4>(340));
        // ---- going back: the completer's request stored, the QP marked and woken ----
        self.rw_ready.next = true;
        self.resume_ram.write_enable.next = self.rw_valid.val();
        self.resume_ram.write_address.next = self.rw_qpn.val();
        self.resume_ram.write_data.next = bit_cast::<96, 16>(self.rw_sq_index.val())
            | (bit_cast::<96, 24>(self.rw_first_psn.val()) << 16)
            | (bit_cast::<96, 24>(self.rw_psn.val()) << 40)
            | (bit_cast::<96, 32>(self.rw_offset.val()) << 64);
        self.rewind_next.next = self.rewind.q.val();
        self.resume_next.next = self.resume_on.q.val();
        self.rewind_bit2.d.next = self.rewind_bit.q.val();
        self.resume_bit2.d.next = self.resume_bit.q.val();
        self.cnt_resent.next = false;
        self.fresh_ram.read_address.next = self.scan.q.val();
        self.fresh_ram.write_address.next = self.scan.q.val();
        self.fresh_ram.write_data.next = self.fresh.q.val();
        self.fresh_ram.write_enable.next = false;
        self.resume_ram.read_address.next = self.scan.q.val();
        self.scan_group.next = 0.into();
        for g in 0..8 {
            if self.scan.q.val().get_bits::<3>(3) == self.group_no[g].val() {
                self.scan_group.next = self.work.q.val().get_bits::<8>(8 * g);
            }
        }
        self.scan_ahead.next = self.scan_group.val() & (self.group_ones.val() << bit_cast::<8, 3>(self.scan.q.val().get_bits::<3>(0)));
        // the first lane ahead with work, else lane 0 of the next group
        self.scan_next.next = (bit_cast::<6, 3>(self.scan.q.val().get_bits::<3>(3)) + 1) << 3;
        for i in 0..8 {
            // lanes 7 down to 0: the lowest with work is assigned last
            if (self.scan_ahead.val() & self.lane_down_bit[i].val()).any() {
                self.scan_next.next = (bit_cast::<6, 3>(self.scan.q.val().get_bits::<3>(3)) << 3) | self.lane_down[i].val();
            }
        }
        self.work_next.next = self.work.q.val();
        self.forget_next.next = self.forget.q.val();
        // each a bit select by `sel` (`x[sel]` in the Verilog): yosys builds a balanced
        // 64-way mux (64 compares in a chain were 8 levels, the block's worst path at
        // 156.25 MHz), and the simulator reads one bit instead of testing 64 compares
        self.full_bit.d.next = self.sq_full.val().get_bit(self.sel.val().index());
        self.forget_bit.d.next = self.forget.q.val().get_bit(self.sel.val().index());
        self.rewind_bit.d.next = self.rewind.q.val().get_bit(self.sel.val().index());
        self.resume_bit.d.next = self.resume_on.q.val().get_bit(self.sel.val().index());
        self.hold_bit.d.next = self.sq_hold.val().get_bit(self.sel.val().index());
        // ---- the context's fields ----
        self.qp_state.next = self.ctx.q.val().get_bits::<3>(0);
        self.sq_psn.next = self.ctx.q.val().get_bits::<24>(64);
        self.sq_ci.next = self.ctx.q.val().get_bits::<16>(352);
        self.cur.next = self.job.q.val().get_bits::<3>(15);
        self.off.next = self.job.q.val().get_bits::<32>(18);
        self.piece_bus.next = 0.into();
        self.piece_len.next = 0.into();
        for i in 0..6 {
            if self.cur.val() == self.piece_no[i].val() {
                self.piece_bus.next = self.list.q.val().get_bits::<44>(76 * i);
                self.piece_len.next = self.list.q.val().get_bits::<32>(76 * i + 44);
            }
        }
        self.piece_rest.next = self.piece_len.val() - self.off.val();
        self.sge_addr.next = 0.into();
        self.sge_len.next = 0.into();
        self.sge_key.next = 0.into();
        self.sge_nz.d.next = false;
        for i in 0..6 {
            if self.sge_i.q.val() == self.piece_no[i].val() {
                self.sge_addr.next = self.w_sge_addr[i].q.val();
                self.sge_len.next = self.w_sge_len[i].q.val();
                self.sge_key.next = self.w_sge_key[i].q.val();
                self.sge_nz.d.next = self.w_sge_nz[i].q.val();
            }
        }
        self.sge_len_q.d.next = self.sge_len.val();
        self.j_sent.next = 0.into();
        self.j_first.next = self.sq_psn.val();
        self.j_raddr.next = self.w_raddr.q.val();
        // SQ_PSN past this packet (a READ: past its response, counted from its first PSN,
        // which going back keeps), and how it stands to the furthest PSN sent
        self.adv_end.next = self.psn.q.val() + 1;
        if self.is_read.val() {
            self.adv_end.next = self.job.q.val().get_bits::<24>(114) + self.n_pkts_q.q.val();
        }
        self.fresh_gap.next = self.fresh.q.val().get_bits::<24>(0) - self.psn.q.val();
        // (the end registered first: its sum and this difference in one cycle missed
        // 156.25 MHz; Advance uses `fresh_adv` four cycles or more after Packet set the PSN)
        self.end_gap.next = self.adv_end_q.q.val() - self.fresh.q.val().get_bits::<24>(0);
        self.adv_end_q.d.next = self.adv_end.val();
        self.fresh_adv.d.next = !self.fresh.q.val().get_bit(24) | (self.end_gap.val().any() & !self.end_gap.val().get_bit(23));
        self.resent_q.d.next = self.fresh.q.val().get_bit(24) & self.fresh_gap.val().any() & !self.fresh_gap.val().get_bit(23);
        self.resume_hit.d.next = self.resume_now.q.val() & (self.resume.q.val().get_bits::<16>(0) == self.sq_ci.val());
        // bytes of the message still to send
        self.rest.d.next = self.job.q.val().get_bits::<32>(50) - self.job.q.val().get_bits::<32>(82);
        // packets a message takes: max(1, ceil(len / mtu))
        self.n_sum.d.next = self.job.q.val().get_bits::<32>(50) + bit_cast::<32, 16>(self.mtu.q.val()) - 1;
        // (a sum below one MTU is an empty message's: OR-ing its flag into bit 0 makes the
        // count 1 without a compare behind the shift)
        self.len_zero.d.next = !self.job.q.val().get_bits::<32>(50).any();
        // (at most 2^31 bytes at an MTU of 256 or more: the count fits its 24 bits)
        self.n_pkts_q.d.next = bit_cast::<24, 32>((self.n_sum.q.val() >> bit_cast::<32, 4>(self.mtu_log2.q.val())) | bit_cast::<32, 1>(self.len_zero.q.val().into()));
        // ---- defaults ----
        self.qp_valid.next = false;
        self.qp_index.next = self.scan.q.val();
        self.qp_write.next = false;
        self.qp_mask.next = 0.into();
        self.qp_wdata.next = 0.into();
        self.pi_ram.read_address.next = self.scan.q.val();
        self.job_ram.read_address.next = self.scan.q.val();
        self.list_ram.read_address.next = self.scan.q.val();
        self.job_ram.write_address.next = self.scan.q.val();
        self.list_ram.write_address.next = self.scan.q.val();
        self.job_ram.write_enable.next = false;
        self.list_ram.write_enable.next = false;
        // a job is stored as it stands; only its 'active' bit (bit 0) depends on the state
        // (cleared unless Save keeps it): the rest of an inactive job is never read (Start
        // writes it whole), so the 384 data bits take no mux (156.25 MHz)
        self.job_keep.next = (self.state.q.val() == RequesterState::Save) & !self.ends.q.val();
        self.job_ram.write_data.next = (self.job.q.val() & !self.job_active.val()) | (bit_cast::<384, 1>(self.job_keep.val().into()));
        self.list_ram.write_data.next = self.list.q.val();
        self.mr_check.in_valid.next = false;
        self.mr_check.in_key.next = self.sge_key.val();
        self.mr_check.in_pd.next = self.ctx.q.val().get_bits::<16>(16);
        self.mr_check.in_addr.next = self.sge_addr.val();
        self.mr_check.in_len.next = self.sge_len.val();
        self.mr_check.in_need.next = 0.into();
        if self.w_opcode.q.val() == 4 {
            self.mr_check.in_need.next = self.local_write.val();
        }
        self.mr_check.in_tag.next = 0.into();
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = self.p_addr.q.val();
        self.dma_rd_req_len.next = self.p_take.q.val();
        self.reads.write.next = false;
        self.reads.data_in.next = bit_cast::<18, 16>(self.p_take.q.val()) | 0x1_0000;
        self.out_valid.next = false;
        self.tx_valid.next = false;
        self.sleep.next = false;
        // WQE opcodes: 0 SEND, 1 SEND_IMM, 2 WRITE, 3 WRITE_IMM, 4 READ
        self.is_read.next = self.job.q.val().get_bits::<3>(1) == 4;
        self.is_write.next = (self.job.q.val().get_bits::<3>(1) == 2) | (self.job.q.val().get_bits::<3>(1) == 3);
        self.imm_op.next = (self.job.q.val().get_bits::<3>(1) == 3) | (self.job.q.val().get_bits::<3>(1) == 1);
        match self.state.q.val() {
            RequesterState::Scan => {
                // a step: to the first QP with work at or after `scan` in its group (`hit`),
                // else to the next group's first
                if self.hit.q.val() {
                    self.hit.d.next = false;
                    self.state.d.next = RequesterState::Ctx;
                    self.qp_asked.d.next = false;
                    self.db_seen.d.next = false;
                } else if self.work.q.val().any() {
                    // (with no QP's work the scan stands still: nothing to find, and a
                    // block at rest changes no state, docs/performance.md)
                    self.scan.d.next = self.scan_next.val();
                    self.hit.d.next = self.scan_ahead.val().any();
                }
            }
            RequesterState::Ctx => {
                self.qp_valid.next = !self.qp_asked.q.val();
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.ctx.d.next = self.qp_rdata.val();
                    self.pi.d.next = self.pi_rd.q.val();
                    self.pending.d.next = self.qp_rdata.val().get_bits::<16>(352) != self.pi_rd.q.val();
                    self.job.d.next = self.job_rd.q.val();
                    self.list.d.next = self.list_rd.q.val();
                    self.resume.d.next = self.resume_rd.q.val();
                    self.fresh.d.next = self.fresh_rd.q.val();
                    self.rd_done.d.next = self.rd_done_rd.q.val();
                    self.resume_now.d.next = self.resume_bit2.q.val();
                    self.state.d.next = RequesterState::Pick;
                    if self.forget_bit.q.val() {
                        self.state.d.next = RequesterState::Forget;
                    } else if self.rewind_bit2.q.val() {
                        self.state.d.next = RequesterState::Rewind;
                        self.qp_asked.d.next = false;
                    }
                }
            }
            RequesterState::Forget => {
                // stored in RESET: no WQE in progress, producer index 0 (unless a doorbell
                // came since); the doorbells own the index RAM's write port, so wait for a
                // cycle without one
                self.job_ram.write_enable.next = true;
                if !self.sq_db_valid.val() {
                    if !self.db_seen.q.val() {
                        self.pi_ram.write_enable.next = true;
                        self.pi_ram.write_address.next = self.scan.q.val();
                        self.pi_ram.write_data.next = 0.into();
                    }
                    // (no request sent yet; no going back pending)
                    self.fresh_ram.write_enable.next = true;
                    self.fresh_ram.write_data.next = 0.into();
                    for q in 0..64 {
                        if self.sel.val() == self.sel_idx[q].val() {
                            self.rewind_next.next = self.rewind_next.val() & !self.bit_of_qp[q].val();
                            self.resume_next.next = self.resume_next.val() & !self.bit_of_qp[q].val();
                            self.forget_next.next = self.forget_next.val() & !self.bit_of_qp[q].val();
                            if !self.db_seen.q.val() {
                                self.work_next.next = self.work_next.val() & !self.bit_of_qp[q].val();
                            }
                        }
                    }
                    self.state.d.next = RequesterState::Scan;
                    self.scan.d.next = self.scan.q.val() + 1;
                }
            }
            RequesterState::Pick => {
                self.mtu.d.next = self.path_mtu.bytes.val();
                self.mtu_log2.d.next = self.path_mtu.log2.val();
                self.state.d.next = RequesterState::Scan;
                self.scan.d.next = self.scan.q.val() + 1;
                // (a doorbell in this very cycle sets the QP's mark after the clear below)
                self.sleep.next = !self.db_seen.q.val();
                self.flushing.d.next = false;
                self.took.d.next = false;
                if self.qp_state.val() == self.state_rts.val() {
                    // (waiting out an RNR NAK, nothing: the completer's going back wakes it)
                    if self.hold_bit.q.val() {
                        self.sleep.next = !self.db_seen.q.val();
                    } else if self.job.q.val().get_bit(0) {
                        self.state.d.next = RequesterState::Packet;
                        self.scan.d.next = self.scan.q.val();
                        self.sleep.next = false;
                    } else if self.pending.q.val() {
                        // a new WQE, unless the completer holds the QP back: it stays
                        // awake until a turn finds room
                        self.sleep.next = false;
                        if !self.full_bit.q.val() {
                            self.state.d.next = RequesterState::Fetch;
                            self.scan.d.next = self.scan.q.val();
                        }
                    }
                }
                // in ERR: the WQE in progress is dropped (the completer flushed it: it was
                // outstanding from its first packet), the posted ones are fetched and
                // reported flushed one a turn, in order
                if self.qp_state.val() == self.state_err3.val() {
                    self.job_ram.write_enable.next = self.job.q.val().get_bit(0);
                    if self.pending.q.val() {
                        self.flushing.d.next = true;
                        self.state.d.next = RequesterState::Fetch;
                        self.scan.d.next = self.scan.q.val();
                        self.sleep.next = false;
                    }
                }
            }
            RequesterState::Fetch => {
                // the WQE at SQ_CI: SQ_BASE + 128 * (SQ_CI mod 2^SQ_LOG2)
                self.dma_rd_req_valid.next = !self.reads.full.val();
                self.dma_rd_req_addr.next = ((bit_cast::<64, 12>(self.ctx.q.val().get_bits::<12>(256)) << 32)
                    | bit_cast::<64, 32>(self.ctx.q.val().get_bits::<32>(224)))
                    + (bit_cast::<64, 16>(self.sq_ci.val() & !(self.ones16.val() << bit_cast::<16, 4>(self.ctx.q.val().get_bits::<4>(272)))) << 7);
                self.dma_rd_req_len.next = 128.into();
                self.reads.data_in.next = 128.into();
                if self.rd_ready.val() & !self.reads.full.val() {
                    self.reads.write.next = true;
                    self.state.d.next = RequesterState::FetchData;
                    self.beat_no.d.next = 0.into();
                    self.w_error.d.next = false;
                }
            }
            RequesterState::FetchData => {
                // taken by the response side below
            }
            RequesterState::Check => {
                self.sge_i.d.next = 0.into();
                self.pieces.d.next = 0.into();
                self.list.d.next = 0.into();
                self.status.d.next = 0.into();
                self.total.d.next = self.w_total.q.val();
                self.state.d.next = RequesterState::SgeAsk;
                // a READ while MAX_RD_ATOMIC are outstanding: not taken; the QP sleeps until
                // the completer completes one (`rd_sync_wake`)
                if (self.w_opcode.q.val() == 4) & self.ord_full.q.val() & !self.flushing.q.val() {
                    self.state.d.next = RequesterState::Scan;
                    self.scan.d.next = self.scan.q.val() + 1;
                    self.sleep.next = !self.db_seen.q.val();
                }
                if self.w_error.q.val() | (self.w_opcode.q.val() > 4) | (self.w_num.q.val() > 6) {
                    self.status.d.next = self.st_qp_op.val();
                    self.state.d.next = RequesterState::Fail;
                }
                // flushed: reported WR_FLUSH_ERR (one that could not be read names nothing:
                // it is passed over, as the model does)
                if self.flushing.q.val() {
                    self.status.d.next = self.st_flush.val();
                    self.state.d.next = RequesterState::Fail;
                    if self.w_error.q.val() {
                        self.state.d.next = RequesterState::FailStore;
                        self.qp_asked.d.next = false;
                    }
                }
            }
            RequesterState::SgeAsk => {
                // the SGEs one by one (only the first num_sge count, each loaded from its beat)
                if self.total.q.val() > self.max_message.val() {
                    self.status.d.next = self.st_len.val();
                    self.state.d.next = RequesterState::Fail;
                } else if bit_cast::<8, 3>(self.sge_i.q.val()) == self.w_num.q.val() {
                    self.state.d.next = RequesterState::Start;
                } else {
                    self.mr_check.in_valid.next = true;
                    self.state.d.next = RequesterState::SgeWait;
                }
            }
            RequesterState::SgeWait => {
                if self.mr_check.out_valid.val() {
                    self.sge_i.d.next = self.sge_i.q.val() + 1;
                    self.state.d.next = RequesterState::SgeAsk;
                    if !self.mr_check.out_ok.val() {
                        self.status.d.next = self.st_prot.val();
                        self.state.d.next = RequesterState::Fail;
                    } else if self.sge_nz.q.val() {
                        // a piece: (bus, length) at 76 x its number
                        for i in 0..6 {
                            if self.pieces.q.val() == self.piece_no[i].val() {
                                self.list.d.next = self.list.q.val()
                                    | ((bit_cast::<456, 44>(self.mr_check.out_bus.val().get_bits::<44>(0))
                                        | (bit_cast::<456, 32>(self.sge_len_q.q.val()) << 44))
                                        << self.piece_shift[i].val());
                            }
                        }
                        self.pieces.d.next = self.pieces.q.val() + 1;
                    }
                }
            }
            RequesterState::Start => {
                // the job: opcode, flags, pieces, at piece 0 offset 0, length, sent 0, first PSN, immediate, wr_id, remote address, rkey
                // (going back to this WQE: sent up to the offset, its first PSN as first
                // sent, a READ's remote address past what landed; then the cursor seeks)
                self.state.d.next = RequesterState::Count;
                if self.resume_hit.q.val() {
                    self.j_sent.next = self.resume.q.val().get_bits::<32>(64);
                    self.j_first.next = self.resume.q.val().get_bits::<24>(16);
                    self.j_raddr.next = self.w_raddr.q.val() + bit_cast::<64, 32>(self.resume.q.val().get_bits::<32>(64));
                    self.seek_r.d.next = self.resume.q.val().get_bits::<32>(64);
                    self.state.d.next = RequesterState::SeekA;
                    for q in 0..64 {
                        if self.sel.val() == self.sel_idx[q].val() {
                            self.resume_next.next = self.resume_next.val() & !self.bit_of_qp[q].val();
                        }
                    }
                }
                self.job.d.next = self.job_active.val() | (bit_cast::<384, 3>(self.w_opcode.q.val().get_bits::<3>(0)) << 1)
                    | (bit_cast::<384, 8>(self.w_flags.q.val()) << 4) | (bit_cast::<384, 3>(self.pieces.q.val()) << 12)
                    | (bit_cast::<384, 32>(self.total.q.val().get_bits::<32>(0)) << 50) | (bit_cast::<384, 32>(self.j_sent.val()) << 82)
                    | (bit_cast::<384, 24>(self.j_first.val()) << 114)
                    | (bit_cast::<384, 32>(self.w_imm.q.val()) << 138) | (bit_cast::<384, 64>(self.w_wr_id.q.val()) << 170)
                    | (bit_cast::<384, 64>(self.j_raddr.val()) << 234) | (bit_cast::<384, 32>(self.w_rkey.q.val()) << 298);
                self.took.d.next = true;
                self.qp_asked.d.next = false;
            }
            RequesterState::SeekA => {
                // the piece at the cursor's length
                self.sk_len.d.next = self.piece_len.val();
                self.state.d.next = RequesterState::SeekB;
            }
            RequesterState::SeekB => {
                // past it, or into it (never past the last piece)
                self.state.d.next = RequesterState::Count;
                self.job.d.next = (self.job.q.val() & !self.cursor_bits.val()) | (bit_cast::<384, 3>(self.cur.val()) << 15) | (bit_cast::<384, 32>(self.seek_r.q.val()) << 18);
                if (self.seek_r.q.val() >= self.sk_len.q.val()) & ((bit_cast::<4, 3>(self.cur.val()) + 1) < bit_cast::<4, 3>(self.job.q.val().get_bits::<3>(12))) {
                    self.seek_r.d.next = self.seek_r.q.val() - self.sk_len.q.val();
                    self.job.d.next = (self.job.q.val() & !self.cursor_bits.val()) | (bit_cast::<384, 3>(self.cur.val() + 1) << 15);
                    self.state.d.next = RequesterState::SeekA;
                }
            }
            RequesterState::Rewind => {
                // going back: SQ_CI and SQ_PSN as the completer asked, the WQE in progress
                // dropped
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.sq_psn_bits.val() | self.sq_ci_bits.val();
                self.qp_wdata.next = (bit_cast::<384, 24>(self.resume.q.val().get_bits::<24>(40)) << 64) | (bit_cast::<384, 16>(self.resume.q.val().get_bits::<16>(0)) << 352);
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.job_ram.write_enable.next = true;
                    self.state.d.next = RequesterState::RewindMark;
                    // the WQEs from the head are taken again: none of its READs outstanding
                    self.fresh.d.next = (self.fresh.q.val() & !self.rd_taken_bits.val()) | (bit_cast::<29, 4>(self.rd_done.q.val()) << 25);
                }
            }
            RequesterState::RewindMark => {
                // ... and said, in order with the reports
                self.out_valid.next = true;
                if self.out_ready.val() {
                    self.fresh_ram.write_enable.next = true;
                    for q in 0..64 {
                        if self.sel.val() == self.sel_idx[q].val() {
                            self.rewind_next.next = self.rewind_next.val() & !self.bit_of_qp[q].val();
                        }
                    }
                    self.state.d.next = RequesterState::Scan;
                    self.scan.d.next = self.scan.q.val() + 1;
                }
            }
            RequesterState::Count => {
                // the message's packet count for its last PSN: the sum, then the shift,
                // each registered
                self.state.d.next = RequesterState::Count2;
            }
            RequesterState::Count2 => {
                self.state.d.next = RequesterState::Record;
            }
            RequesterState::Fail => {
                // the WQE completes in error, the QP goes to ERR (its SQ_CI past the WQE)
                self.out_valid.next = true;
                if self.out_ready.val() {
                    self.state.d.next = RequesterState::FailStore;
                    self.qp_asked.d.next = false;
                }
            }
            RequesterState::FailStore => {
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.state_bits.val() | self.sq_ci_bits.val();
                self.qp_wdata.next = self.state_err.val() | (bit_cast::<384, 16>(self.sq_ci.val() + 1) << 352);
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.state.d.next = RequesterState::Scan;
                    self.scan.d.next = self.scan.q.val() + 1;
                }
            }
            RequesterState::Record => {
                // outstanding from now on; SQ_CI advances (a READ's PSNs too, in Advance);
                // a READ counted taken
                self.out_valid.next = true;
                if self.out_ready.val() {
                    self.state.d.next = RequesterState::Packet;
                    if self.w_opcode.q.val() == 4 {
                        self.fresh.d.next = self.fresh.q.val() + self.rd_taken_one.val();
                    }
                }
            }
            RequesterState::Packet => {
                // this packet: where it stands in its message, how much it carries
                self.starts.d.next = !self.job.q.val().get_bits::<32>(82).any();
                self.ends.d.next = self.rest.q.val() <= bit_cast::<32, 16>(self.mtu.q.val());
                self.chunk.d.next = self.mtu.q.val();
                if self.rest.q.val() <= bit_cast::<32, 16>(self.mtu.q.val()) {
                    self.chunk.d.next = self.rest.q.val().get_bits::<16>(0);
                }
                if self.is_read.val() {
                    self.chunk.d.next = 0.into();
                    self.starts.d.next = true;
                    self.ends.d.next = true;
                }
                self.psn.d.next = self.sq_psn.val();
                self.state.d.next = RequesterState::Reads;
                self.qp_asked.d.next = false;
            }
            RequesterState::Reads => {
                // the header offered to the framer while the payload's reads go out
                self.tx_valid.next = !self.qp_asked.q.val();
                if self.tx_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_asked.q.val() & !self.left_nz.q.val() {
                    self.state.d.next = RequesterState::Advance;
                    self.qp_asked.d.next = false;
                }
                // each read in three steps (156.25 MHz): the piece and where in it; how much
                // of it; the request
                if self.left_nz.q.val() {
                    if self.phase.q.val() == 0 {
                        // (the address's sum a step later: the piece's pick and a 64-bit
                        // add did not fit a cycle)
                        self.p_bus.d.next = self.piece_bus.val();
                        self.p_off.d.next = self.off.val();
                        self.p_rest.d.next = self.piece_rest.val();
                        self.phase.d.next = 1.into();
                    }
                    if self.phase.q.val() == 1 {
                        self.p_addr.d.next = bit_cast::<64, 44>(self.p_bus.q.val()) + bit_cast::<64, 32>(self.p_off.q.val());
                        // the rest of the piece, or what the packet still needs
                        self.p_take.d.next = self.left.q.val();
                        self.p_next_piece.d.next = self.p_rest.q.val() <= bit_cast::<32, 16>(self.left.q.val());
                        if self.p_rest.q.val() <= bit_cast::<32, 16>(self.left.q.val()) {
                            self.p_take.d.next = self.p_rest.q.val().get_bits::<16>(0);
                        }
                        self.phase.d.next = 2.into();
                    }
                    if self.phase.q.val() == 2 {
                        self.dma_rd_req_valid.next = self.p_take.q.val().any() & !self.reads.full.val();
                        self.dma_rd_req_addr.next = self.p_addr.q.val();
                        self.dma_rd_req_len.next = self.p_take.q.val();
                        self.reads.data_in.next = bit_cast::<18, 16>(self.p_take.q.val()) | 0x1_0000;
                        if self.p_take.q.val() == self.left.q.val() {
                            self.reads.data_in.next = bit_cast::<18, 16>(self.p_take.q.val()) | 0x3_0000;
                        }
                        // an exhausted piece moves on without a read
                        if (self.dma_rd_req_valid.val() & self.rd_ready.val()) | !self.p_take.q.val().any() {
                            self.reads.write.next = self.p_take.q.val().any();
                            self.left.d.next = self.left.q.val() - self.p_take.q.val();
                            self.left_nz.d.next = self.p_take.q.val() != self.left.q.val();
                            self.phase.d.next = 0.into();
                            self.job.d.next = (self.job.q.val() & !self.cursor_bits.val())
                                | (bit_cast::<384, 3>(self.cur.val()) << 15) | (bit_cast::<384, 32>(self.off.val() + bit_cast::<32, 16>(self.p_take.q.val())) << 18);
                            if self.p_next_piece.q.val() {
                                self.job.d.next = (self.job.q.val() & !self.cursor_bits.val()) | (bit_cast::<384, 3>(self.cur.val() + 1) << 15);
                            }
                        }
                    }
                }
            }
            RequesterState::Advance => {
                // SQ_PSN past this packet (a READ: past its response), SQ_CI past a new WQE
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.sq_psn_bits.val();
                self.qp_wdata.next = bit_cast::<384, 24>(self.adv_end_q.q.val()) << 64;
                if self.took.q.val() {
                    self.qp_mask.next = self.sq_psn_bits.val() | self.sq_ci_bits.val();
                    self.qp_wdata.next = self.qp_wdata.val() | (bit_cast::<384, 16>(self.sq_ci.val() + 1) << 352);
                }
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.state.d.next = RequesterState::Save;
                    // a PSN sent before is a resend; the furthest sent moves on
                    self.cnt_resent.next = self.resent_q.q.val();
                    if self.fresh_adv.q.val() {
                        self.fresh.d.next = bit_cast::<29, 24>(self.adv_end_q.q.val()) | (1u64 << 24) | (self.fresh.q.val() & self.rd_taken_bits.val());
                    }
                }
            }
            RequesterState::Save => {
                // the job: sent on by this packet, inactive once the message is out
                self.job_ram.write_enable.next = true;
                self.fresh_ram.write_enable.next = true;
                self.list_ram.write_enable.next = true;
                self.state.d.next = RequesterState::Scan;
                self.scan.d.next = self.scan.q.val() + 1;
            }
            _ => {
                self.state.d.next = RequesterState::Scan;
            }
        }
        // nothing to send (or not in RTS, or a READ over its limit): the QP sleeps until
        // its next doorbell, the driver's next store to it, or a READ of it completed
        if self.sleep.val() {
            for q in 0..64 {
                if self.sel.val() == self.sel_idx[q].val() {
                    self.work_next.next = self.work_next.val() & !self.bit_of_qp[q].val();
                }
            }
        }
        if self.state.q.val() == RequesterState::Packet {
            self.phase.d.next = 0.into();
            self.left.d.next = self.mtu.q.val();
            self.left_nz.d.next = true;
            if self.rest.q.val() <= bit_cast::<32, 16>(self.mtu.q.val()) {
                self.left.d.next = self.rest.q.val().get_bits::<16>(0);
                self.left_nz.d.next = self.rest.q.val().any();
            }
            if self.is_read.val() {
                self.left.d.next = 0.into();
                self.left_nz.d.next = false;
            }
        }
        if self.state.q.val() == RequesterState::Advance {
            if self.qp_rvalid.val() {
                self.job.d.next = (self.job.q.val() & !self.sent_bits.val())
                    | (bit_cast::<384, 32>(self.job.q.val().get_bits::<32>(82) + bit_cast::<32, 16>(self.chunk.q.val())) << 82);
            }
        }
        // ---- the outstanding record ----
        self.out_qpn.next = self.scan.q.val();
        self.out_wr_id.next = self.w_wr_id.q.val();
        self.out_opcode.next = self.w_opcode.q.val().get_bits::<3>(0);
        self.out_flags.next = self.w_flags.q.val();
        self.out_first_psn.next = self.job.q.val().get_bits::<24>(114);
        self.out_last_psn.next = self.job.q.val().get_bits::<24>(114) + self.n_pkts_q.q.val() - 1;
        self.out_offset.next = self.job.q.val().get_bits::<32>(82);
        self.out_sq_index.next = self.sq_ci.val();
        self.out_len.next = self.total.q.val().get_bits::<32>(0);
        self.out_status.next = self.status.q.val();
        if self.state.q.val() == RequesterState::RewindMark {
            self.out_status.next = self.went_back.val();
        }
        // ---- the header for the framer ----
        self.mac_le.next = bit_cast::<48, 16>(self.ctx.q.val().get_bits::<16>(192)) << 32 | bit_cast::<48, 32>(self.ctx.q.val().get_bits::<32>(160));
        self.tx_dst_mac.next = (bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(0)) << 40) | (bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(16)) << 24) | (bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(32)) << 8) | bit_cast::<48, 8>(self.mac_le.val().get_bits::<8>(40));
        self.tx_dst_ip.next = self.ctx.q.val().get_bits::<32>(128);
        self.tx_udp_src_port.next = self.ctx.q.val().get_bits::<16>(208);
        self.tx_dest_qp.next = self.ctx.q.val().get_bits::<24>(32);
        self.tx_psn.next = self.psn.q.val();
        // opcode: SEND 0x00.., WRITE 0x06..: First +0, Middle +1, Last +2, Only +4, with immediate +1
        self.base_op.next = 0.into();
        if self.is_write.val() {
            self.base_op.next = 6.into();
        }
        self.tx_opcode.next = self.base_op.val() + 1;
        if self.starts.q.val() & self.ends.q.val() {
            self.tx_opcode.next = self.base_op.val() + 4;
        } else if self.starts.q.val() {
            self.tx_opcode.next = self.base_op.val();
        } else if self.ends.q.val() {
            self.tx_opcode.next = self.base_op.val() + 2;
        }
        if self.imm_op.val() & self.ends.q.val() {
            self.tx_opcode.next = self.tx_opcode.val() + 1;
        }
        if self.is_read.val() {
            self.tx_opcode.next = 0x0c.into();
        }
        self.tx_ack_req.next = self.ends.q.val();
        self.tx_solicited.next = self.ends.q.val() & self.job.q.val().get_bit(4 + 1) & !self.is_read.val();
        self.tx_va.next = self.job.q.val().get_bits::<64>(234);
        self.tx_rkey.next = self.job.q.val().get_bits::<32>(298);
        // (a READ going back asks for the rest of its range)
        self.tx_dma_len.next = self.rest.q.val();
        self.tx_immdt.next = self.job.q.val().get_bits::<32>(138);
        self.tx_payload_len.next = self.chunk.q.val();
        // ---- responses: the WQE's beats to the fields above, payload beats to the packer ----
        self.head_payload.next = self.reads.data_out.val().get_bit(16);
        self.b_ready.next = false;
        self.reads.read.next = self.wqe_read_done.q.val() | self.pay_read_done.q.val();
        self.pay_read_done.d.next = false;
        self.wqe_read_done.d.next = false;
        // (not the beat behind a WQE's last: that one's entry is still the FIFO's head)
        self.wb_valid.d.next = false;
        self.wb_data.d.next = self.b_data.val();
        self.wb_id.d.next = self.b_data.val().get_bits::<64>(0);
        if self.b_error.val() {
            self.wb_id.d.next = 0.into();
        }
        self.wb_error.d.next = self.b_error.val();
        self.wb_last.d.next = self.b_last.val();
        if !self.reads.empty.val() & !self.head_payload.val() & !(self.wb_valid.q.val() & self.wb_last.q.val()) {
            self.b_ready.next = self.state.q.val() == RequesterState::FetchData;
            self.wb_valid.d.next = self.b_valid.val() & (self.state.q.val() == RequesterState::FetchData);
        }
        if self.wb_valid.q.val() {
            self.beat_no.d.next = self.beat_no.q.val() + 1;
            if self.wb_error.q.val() {
                self.w_error.d.next = true;
            }
            if self.beat_no.q.val() == 0 {
                self.w_wr_id.d.next = self.wb_id.q.val();
                self.w_opcode.d.next = self.wb_data.q.val().get_bits::<8>(64);
                self.w_flags.d.next = self.wb_data.q.val().get_bits::<8>(72);
                self.w_num.d.next = self.wb_data.q.val().get_bits::<8>(80);
                self.w_imm.d.next = self.wb_data.q.val().get_bits::<32>(96);
                self.w_total.d.next = 0.into();
                // (the SGE registers are not cleared: only the first num_sge are read,
                // SgeAsk stops at num_sge, and each of those is loaded from its beat; a
                // clear of all six, 768 flip-flops, from the beat count missed 156.25 MHz)
                for i in 0..6 {
                    self.w_keep[i].d.next = self.wb_data.q.val().get_bits::<8>(80) > self.sge_count[i].val();
                }
            }
            if self.beat_no.q.val() == 1 {
                self.w_raddr.d.next = self.wb_data.q.val().get_bits::<64>(0);
                self.w_rkey.d.next = self.wb_data.q.val().get_bits::<32>(64);
            }
            // SGE i in beat 2 + i, kept only below num_sge
            for i in 0..6 {
                if (self.beat_no.q.val() == self.sge_beat[i].val()) & self.w_keep[i].q.val() {
                    self.w_total.d.next = self.w_total.q.val() + bit_cast::<36, 32>(self.wb_data.q.val().get_bits::<32>(64));
                    self.w_sge_addr[i].d.next = self.wb_data.q.val().get_bits::<64>(0);
                    self.w_sge_len[i].d.next = self.wb_data.q.val().get_bits::<32>(64);
                    self.w_sge_nz[i].d.next = self.wb_data.q.val().get_bits::<32>(64).any();
                    self.w_sge_key[i].d.next = self.wb_data.q.val().get_bits::<32>(96);
                }
            }
            if self.wb_last.q.val() {
                // its entry leaves the reads FIFO a cycle later (the response buffer's
                // RAM output does not reach the FIFO's read pointer: timing); nothing
                // else takes from the FIFO while its head is a WQE's
                self.wqe_read_done.d.next = true;
                self.state.d.next = RequesterState::Check;
            }
        }
        // payload: each beat in halves of up to 8 bytes, the packet's last byte ends it
        // (a read of n bytes is answered in ceil(n / 16) beats, lane 0 aligned)
        if !self.in_req.q.val() & !self.pay_read_done.q.val() & !self.reads.empty.val() & self.head_payload.val() {
            self.in_req.d.next = true;
            self.req_left.d.next = self.reads.data_out.val().get_bits::<16>(0);
            self.left_le8.d.next = self.reads.data_out.val().get_bits::<16>(0) <= 8;
            self.intake_left.d.next = self.reads.data_out.val().get_bits::<12>(4) + bit_cast::<12, 1>(self.reads.data_out.val().get_bits::<4>(0).any().into());
            self.intake_nz.d.next = self.reads.data_out.val().get_bits::<16>(0).any();
        }
        // a beat is taken while the register behind the split is free, into that register
        // only (a registered condition: the framer's ready does not reach the response
        // buffer's read)
        self.b_ready.next = self.b_ready.val() | (self.in_req.q.val() & self.intake_nz.q.val() & !self.nx_valid.q.val());
        self.take_beat.next = self.in_req.q.val() & self.intake_nz.q.val() & !self.nx_valid.q.val() & self.b_valid.val();
        self.half_len.next = self.req_left.q.val();
        if !self.left_le8.q.val() {
            self.half_len.next = 8.into();
        }
        // each half registered on its way to the packer (156.25 MHz: the length's compare
        // and the packer's byte rotation in cycles of their own)
        self.h_take.next = self.half_slice.s_ready.val();
        self.half_slice.s_valid.next = self.sp_valid.q.val();
        self.half_data.next = self.sp_data.q.val().get_bits::<64>(0);
        if self.sp_half.q.val() {
            self.half_data.next = self.sp_data.q.val().get_bits::<64>(64);
        }
        self.half_slice.s_data.next = bit_cast::<69, 64>(self.half_data.val())
            | (bit_cast::<69, 4>(self.half_len.val().get_bits::<4>(0)) << 64)
            | (bit_cast::<69, 1>((self.left_le8.q.val() & self.reads.data_out.val().get_bit(17)).into()) << 68);
        if self.sp_valid.q.val() & self.h_take.val() {
            self.req_left.d.next = self.req_left.q.val() - self.half_len.val();
            self.left_le8.d.next = self.req_left.q.val() <= 16;
            if self.left_le8.q.val() {
                self.sp_valid.d.next = false;
                self.in_req.d.next = false;
                self.pay_read_done.d.next = true;
            } else if self.sp_half.q.val() {
                self.sp_valid.d.next = false;
            } else {
                self.sp_half.d.next = true;
            }
        }
        self.sp_vacate.next = self.sp_valid.q.val() & self.h_take.val() & (self.sp_half.q.val() | self.left_le8.q.val());
        // the split is filled from `nx` only, never from the response buffer: its 128 data
        // flip-flops then take one source under one enable (a cycle more per read; the
        // halves still leave one a cycle; 156.25 MHz)
        if self.nx_valid.q.val() & (!self.sp_valid.q.val() | self.sp_vacate.val()) {
            self.sp_valid.d.next = true;
            self.sp_half.d.next = false;
            self.sp_data.d.next = self.nx_data.q.val();
            self.nx_valid.d.next = false;
        }
        // (`nx` is loaded whenever it is empty, taken or not: its enable is one flip-flop)
        if !self.nx_valid.q.val() {
            self.nx_data.d.next = self.b_data.val();
        }
        if self.take_beat.val() {
            self.intake_left.d.next = self.intake_left.q.val() - 1;
            self.intake_nz.d.next = self.intake_left.q.val() != 1;
            self.nx_valid.d.next = true;
        }
        self.rsp_q.m_ready.next = self.b_ready.val();
        // ---- reads issued: their beats promised; the room for the next ----
        // (a read is at most 4,096 bytes: 256 beats)
        self.req_beats.next = bit_cast::<11, 12>(self.dma_rd_req_len.val().get_bits::<12>(4)) + bit_cast::<11, 1>(self.dma_rd_req_len.val().get_bits::<4>(0).any().into());
        if !self.may_issue.q.val() {
            self.dma_rd_req_valid.next = false;
        }
        self.fire_rd.next = self.dma_rd_req_valid.val() & self.dma_rd_req_ready.val();
        self.may_issue.d.next = !self.fire_rd.val() & !self.issued.q.val() & !self.issued2.q.val() & !self.promises.full.val() & (self.room.q.val() >= self.room_for_one.val());
        self.issued.d.next = self.fire_rd.val();
        self.issued2.d.next = self.issued.q.val();
        self.issued_beats.d.next = self.req_beats.val();
        self.promises.write.next = self.fire_rd.val();
        self.promises.data_in.next = self.req_beats.val();
        if self.issued.q.val() {
            self.prom_next.next = self.prom_next.val() + self.issued_beats.q.val();
        }
        self.promised.d.next = self.prom_next.val();
        self.room.d.next = self.rsp_depth.val() - self.rsp_buf.count.val() - (self.promised.q.val() - bit_cast::<11, 9>(self.arrived.q.val()));
        self.packer.s_valid.next = self.half_slice.m_valid.val();
        self.packer.s_data.next = self.half_slice.m_data.val().get_bits::<64>(0);
        self.packer.s_len.next = self.half_slice.m_data.val().get_bits::<4>(64);
        self.packer.s_end.next = self.half_slice.m_data.val().get_bit(68);
        self.half_slice.m_ready.next = self.packer.s_ready.val();
        self.packer.s_user.next = false;
        self.pay_valid.next = self.packer.m_valid.val();
        self.pay_data.next = self.packer.m_data.val();
        self.packer.m_ready.next = self.pay_ready.val();
        // ---- doorbells set work, the driver's RESET stores make a QP forget ----
        if self.sq_db_valid.val() {
            for q in 0..64 {
                if !self.sq_db_qpn.val().get_bits::<2>(6).any() & (self.sq_db_qpn.val().get_bits::<6>(0) == self.sel_idx[q].val()) {
                    self.work_next.next = self.work_next.val() | self.bit_of_qp[q].val();
                }
            }
            if self.sq_db_qpn.val().get_bits::<6>(0) == self.scan.q.val() {
                self.db_seen.d.next = true;
            }
        }
        if self.qp_store.val() {
            for q in 0..64 {
                if self.qp_store_index.val() == self.sel_idx[q].val() {
                    self.work_next.next = self.work_next.val() | self.bit_of_qp[q].val();
                    if self.qp_store_state.val() == self.state_reset.val() {
                        self.forget_next.next = self.forget_next.val() | self.bit_of_qp[q].val();
                    }
                }
            }
            if self.qp_store_index.val() == self.scan.q.val() {
                self.db_seen.d.next = true;
            }
        }
        if self.rd_sync_valid.val() & self.rd_sync_wake.val() {
            for q in 0..64 {
                if self.rd_sync_qpn.val() == self.sel_idx[q].val() {
                    self.work_next.next = self.work_next.val() | self.bit_of_qp[q].val();
                }
            }
            if self.rd_sync_qpn.val() == self.scan.q.val() {
                self.db_seen.d.next = true;
            }
        }
        if self.rw_valid.val() {
            for q in 0..64 {
                if self.rw_qpn.val() == self.sel_idx[q].val() {
                    self.work_next.next = self.work_next.val() | self.bit_of_qp[q].val();
                    self.rewind_next.next = self.rewind_next.val() | self.bit_of_qp[q].val();
                    self.resume_next.next = self.resume_next.val() | self.bit_of_qp[q].val();
                }
            }
            if self.rw_qpn.val() == self.scan.q.val() {
                self.db_seen.d.next = true;
            }
        }
        self.work.d.next = self.work_next.val();
        self.forget.d.next = self.forget_next.val();
        self.rewind.d.next = self.rewind_next.val();
        self.resume_on.d.next = self.resume_next.val();
        if self.reset.val() {
            self.state.d.next = RequesterState::Scan;
            self.work.d.next = 0.into();
            self.forget.d.next = 0.into();
            self.rewind.d.next = 0.into();
            self.resume_on.d.next = 0.into();
            self.hit.d.next = false;
            self.sp_valid.d.next = false;
            self.nx_valid.d.next = false;
            self.in_req.d.next = false;
            self.promised.d.next = 0.into();
            self.arrived.d.next = 0.into();
            self.room.d.next = 0.into();
            self.issued.d.next = false;
            self.wqe_read_done.d.next = false;
            self.wb_valid.d.next = false;
            self.pay_read_done.d.next = false;
        }
    }
}
