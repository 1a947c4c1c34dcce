//! The responder's request path (rxe_resp.c's role): SEND, RDMA WRITE and WRITE with
//! immediate. Request packets parsed by `RdmaRxParse` come in (their payload first, then
//! their record); a packet is taken only at the QP's expected PSN and in a legal opcode
//! sequence, every access is checked before a byte moves, the payload goes to host
//! memory on the DMA write port, and what the requester is owed (ACK, NAK) goes out on
//! `ack_*` for the transmit side. The behavioural model's `responder_receive`
//! (testbench/src/roce/engine/responder.rs) is the reference; the checks run in its order:
//!
//! 1. the record's status (bad ICRC, malformed: dropped, counted by the engine from
//!    `RdmaRxParse`), the QP (QPN in the table, state RTR or RTS: else dropped,
//!    `cnt_drop_qp`), the PSN: a duplicate (before RQ_PSN on the circle) is answered
//!    again and never executed (a SEND or WRITE by an ACK of RQ_PSN - 1, a READ by its
//!    response, its RETH checked again; `cnt_duplicate`), a packet ahead of a gap is
//!    dropped (`cnt_drop_psn`), the first one after the gap with a NAK PSN sequence
//!    error for RQ_PSN (the message state's bit 4 remembers it was sent until a packet
//!    is taken at RQ_PSN);
//! 2. the sequence (a Middle or Last continues a message of its class, a First or Only
//!    starts one) and the length (First and Middle carry exactly the path MTU): else a
//!    NAK invalid request;
//! 3. a WRITE First or Only: its RETH against the MR table (`RdmaMrCheck`: key current,
//!    the QP's PD, REMOTE_WRITE granted, the whole range inside the region) and the QP's
//!    ACCESS: else a NAK remote access error; every WRITE packet: its payload within what
//!    the RETH announced, and the Last one ending it exactly: else a NAK invalid request;
//! 4. a SEND's first packet and a WRITE with immediate take the next receive WQE: none
//!    posted (RQ_CI equals the RQ_DOORBELL's producer index) is an RNR NAK that leaves
//!    the QP as it is. The WQE is read from the receive queue (`dma_rd_*`; a read error
//!    is a NAK remote operational error) and its scatter-gather list checked as the
//!    model's `resolve_local` does (at most 6 SGEs, the total below 2^31, each SGE's lkey
//!    current, in the QP's PD, LOCAL_WRITE, inside its region): a failure completes the
//!    receive WQE with the error (LOC_QP_OP_ERR, LOC_LEN_ERR, LOC_PROT_ERR) and NAKs the
//!    packet (remote operational error). A SEND longer than its WQE: LOC_LEN_ERR and a NAK
//!    invalid request. The checked list stays in block RAM (`sge_ram`, 8 entries per QP)
//!    for the SEND's later packets, its id and total in the QP's message state.
//!
//! A NAK other than RNR moves the QP to ERR (the QP port stores STATE) and its payload is
//! dropped. An accepted packet's payload is written, the QP's RQ_PSN (and RQ_CI for a new
//! receive WQE) advanced, the per-QP message state (in a message or not, its class, the
//! next bus address or a SEND's bytes so far, the bytes still to come, a WRITE's whole
//! length, the MSN) stored, the receive CQE written at a SEND's or WRITE with immediate's
//! end (`cqe_*`: RECV or RECV_RDMA_WITH_IMM, the bytes, the immediate, the SE flag), and
//! an ACK owed when the packet asked for one (AckReq).
//!
//! The payload goes out as 16-byte chunks at message offsets, each written once per
//! segment it touches: the segment's bus address less its first offset, plus the chunk's
//! offset, with the bytes outside the segment masked off. A WRITE has one segment (from
//! its bus address on), a SEND one per SGE; since the DMA port addresses every beat, no
//! byte is shifted.
//!
//! A READ request takes a WRITE's checks with REMOTE_READ; accepted, RQ_PSN moves past its
//! whole response and the response is owed (`ack_read`: `RdmaResponseTx` sends it). A QP
//! moved to ERR has its posted receive WQEs flushed (WR_FLUSH_ERR, in order).
//!
//! READ responses (to this NIC's own READs) are landed here for the completer, which
//! decides on each (`vd_*`, in record order): dropped, or landed at its offset in the
//! READ. The first packet reads the READ's WQE from the send queue and checks its list
//! as a receive WQE's (LOCAL_WRITE, into the landing half of `sge_ram`), later ones
//! scatter with it as a SEND's later packets do; the result goes back (`rr_*`).
//!
//! Buffering: `RdmaRxParse` puts a packet's payload out before its record says whether the
//! packet is good, and cannot be held back, so the payload waits here in a FIFO of 1,024
//! beats (two 4,096-byte packets); a packet that finds it full has its record marked lost
//! and is dropped whole (`cnt_drop_nobuf`); so is one whose record finds the 64-record
//! FIFO full (back-to-back packets without payload; `cnt_drop_norecord`), its beats then skipped before the
//! next record's (each record carries the count of such beats before its own). A
//! packet's payload beats all precede its
//! record, and its record precedes the next packet's first payload beat (the record is 8
//! cycles behind the frame's end, a payload at least 9 behind its frame's start), so the
//! beats between two records are exactly the later record's packet.
//!
//! Write responses from the host are not waited for (posted writes, as PCIe's): the ACK
//! follows the packet's last write beat. A host refusing a write (only an unmapped page
//! inside a registered region can) is the engine's to report (issue 19).

use super::super::stream::{NicFifo, NicRam, RamOutQueue, RamOutReg, RegSlice};
use super::mr_check::{RdmaMrCheck, LATENCY as MR_CHECK_LATENCY};
use super::opcode::{OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_ONLY};
use super::path_mtu::RdmaPathMtu;
use super::opcode::{RdmaOpcodeInfo, CLASS_ACKNOWLEDGE, CLASS_READ_REQUEST, CLASS_READ_RESPONSE, CLASS_SEND, CLASS_WRITE};
use nic_regmap::rdma::{access, cqe, qpc, syndrome, wqe, QpState, WcStatus};
use rust_hdl::prelude::*;

// `read_pkts` is two steps behind the context that Check sees; a READ's Decide is at least
// the MR check's latency after Check
const _: () = assert!(MR_CHECK_LATENCY >= 2);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ResponderState {
    Idle,
    Skip,
    Lookup,
    QpWait,
    Check,
    MrWait,
    Decide,
    RnrNak,
    DupAnswer,
    SeqNak,
    FetchAddr,
    Fetch,
    FetchData,
    SgeCheck,
    SgeWait,
    SgeWrite,
    RecvFail,
    Start0,
    Start,
    Nak,
    NakStore,
    Data,
    Update,
    UpdateWait,
    CqeOut,
    AckOwed,
    Discard,
    FlushCtx,
    FlushCheck,
    FlushRecv,
    FlushAddr,
    FlushFetch,
    FlushData,
    FlushCqe,
    FlushStore,
    RdVerdict,
    RdDone,
}

#[derive(LogicBlock)]
pub struct RdmaResponder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- from RdmaRxParse: request packets' payload and records ----
    pub pay_valid: Signal<In, Bit>,
    pub pay_data: Signal<In, Bits<64>>,
    pub pay_nbytes: Signal<In, Bits<4>>,
    pub rec_valid: Signal<In, Bit>,
    pub rec_status: Signal<In, Bits<2>>,
    pub rec_opcode: Signal<In, Bits<8>>,
    pub rec_ack_req: Signal<In, Bit>,
    pub rec_solicited: Signal<In, Bit>,
    pub rec_dest_qp: Signal<In, Bits<24>>,
    pub rec_psn: Signal<In, Bits<24>>,
    pub rec_va: Signal<In, Bits<64>>,
    pub rec_rkey: Signal<In, Bits<32>>,
    pub rec_dma_len: Signal<In, Bits<32>>,
    pub rec_payload_len: Signal<In, Bits<16>>,
    pub rec_immdt: Signal<In, Bits<32>>,
    /// The completer's record FIFO is full: a READ response is taken by both or by neither
    /// (so the completer's verdicts pair with this block's READ response records in order).
    pub cpl_rec_full: Signal<In, Bit>,
    /// This block's record FIFO takes no record this cycle (the completer's side of the
    /// same rule): a register, set while it holds 63 of 64 or more the cycle before, so
    /// the FIFO's pointers reach neither block's write enable through a compare (timing:
    /// a record comes at most once a cycle, so that last entry is never needed).
    pub records_full: Signal<Out, Bit>,
    // ---- READ responses (this NIC's READs answered): the completer's verdict on each, in
    // record order, and for one it lands, the result ----
    pub vd_valid: Signal<In, Bit>,
    pub vd_ready: Signal<Out, Bit>,
    /// Land the payload (else it is dropped: the completer counted why).
    pub vd_ok: Signal<In, Bit>,
    /// The READ's WQE in host memory, the QP's PD, the READ's length, the packet's offset
    /// in it (0: the first packet, which reads the WQE and checks its scatter-gather list).
    pub vd_wqe_addr: Signal<In, Bits<64>>,
    pub vd_pd: Signal<In, Bits<16>>,
    pub vd_len: Signal<In, Bits<32>>,
    pub vd_offset: Signal<In, Bits<32>>,
    pub rr_valid: Signal<Out, Bit>,
    pub rr_ready: Signal<In, Bit>,
    /// 0: landed; else the READ fails with this `WcStatus`.
    pub rr_status: Signal<Out, Bits<8>>,
    /// The payload had been lost on the way in (`cnt_drop_nobuf`): nothing landed.
    pub rr_lost: Signal<Out, Bit>,
    // ---- the receive queue doorbell (QPN, producer index) ----
    pub rq_db_valid: Signal<In, Bit>,
    pub rq_db_qpn: Signal<In, Bits<8>>,
    pub rq_db_pi: Signal<In, Bits<16>>,
    /// The ACK_EVERY register: a QP's requests taken since its last ACK are ACKed at the
    /// N-th even without AckReq (1..=7; 0: only those asking).
    pub ack_every: Signal<In, Bits<3>>,
    // ---- the QP table (an `RdmaTables` QP port) ----
    pub qp_valid: Signal<Out, Bit>,
    pub qp_ready: Signal<In, Bit>,
    pub qp_index: Signal<Out, Bits<6>>,
    pub qp_write: Signal<Out, Bit>,
    pub qp_mask: Signal<Out, Bits<384>>,
    pub qp_wdata: Signal<Out, Bits<384>>,
    pub qp_rvalid: Signal<In, Bit>,
    pub qp_rdata: Signal<In, Bits<384>>,
    /// The driver's QP stores (`RdmaTables::qp_store_*`): a QP stored in RESET forgets its message state.
    pub qp_store: Signal<In, Bit>,
    pub qp_store_index: Signal<In, Bits<6>>,
    pub qp_store_state: Signal<In, Bits<3>>,
    /// Another role stored STATE = ERR for QP `qp_err_index` through the QP port.
    pub qp_err: Signal<In, Bit>,
    pub qp_err_index: Signal<In, Bits<6>>,
    // ---- the MR table's stores (`RdmaTables::mr_wr_*`), for this responder's check ----
    pub mr_wr: Signal<In, Bit>,
    pub mr_wr_index: Signal<In, Bits<6>>,
    pub mr_wr_entry: Signal<In, Bits<224>>,
    /// Every packet checked against the MR table before the last MR store has finished
    /// (the responder is back in Idle, its writes handed out): `RdmaTables` holds the
    /// driver's TABLE_STATUS.BUSY until then, so `dereg_mr` returns only when no byte
    /// can land in the region any more.
    pub mr_fence_done: Signal<Out, Bit>,
    // ---- DMA reads: receive WQEs (128 bytes, answered in order, never held back) ----
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_len: Signal<Out, Bits<16>>,
    pub dma_rd_rsp_valid: Signal<In, Bit>,
    pub dma_rd_rsp_ready: Signal<Out, Bit>,
    pub dma_rd_rsp_data: Signal<In, Bits<128>>,
    pub dma_rd_rsp_last: Signal<In, Bit>,
    pub dma_rd_rsp_error: Signal<In, Bit>,
    // ---- receive CQEs, to RdmaCqWriter (the 32-byte image, owner bit clear) ----
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    pub cqe_cq: Signal<Out, Bits<4>>,
    pub cqe_entry: Signal<Out, Bits<256>>,
    // ---- DMA writes ----
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    pub dma_wr_addr: Signal<Out, Bits<64>>,
    pub dma_wr_data: Signal<Out, Bits<128>>,
    pub dma_wr_strb: Signal<Out, Bits<16>>,
    pub dma_wr_last: Signal<Out, Bit>,
    // ---- what the requester is owed: ACK or NAK for `ack_psn` of QP `ack_qpn` ----
    pub ack_valid: Signal<Out, Bit>,
    pub ack_ready: Signal<In, Bit>,
    pub ack_qpn: Signal<Out, Bits<6>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub ack_syndrome: Signal<Out, Bits<8>>,
    pub ack_msn: Signal<Out, Bits<24>>,
    /// The QP's path, as `RdmaTxBuild` takes it (the MAC's first byte in bits 47:40).
    pub ack_dst_mac: Signal<Out, Bits<48>>,
    pub ack_dst_ip: Signal<Out, Bits<32>>,
    pub ack_udp_src_port: Signal<Out, Bits<16>>,
    /// The remote QP (the QP context's DEST_QPN).
    pub ack_dest_qp: Signal<Out, Bits<24>>,
    /// A READ's response is owed (`RdmaResponseTx` sends it): its bus address (the RETH
    /// checked and translated), its length and the QP's path MTU code.
    pub ack_read: Signal<Out, Bit>,
    pub ack_bus: Signal<Out, Bits<64>>,
    pub ack_len: Signal<Out, Bits<32>>,
    pub ack_pmtu: Signal<Out, Bits<3>>,
    /// The entry shown is from the urgent queue (a READ asked for again).
    pub ack_urgent: Signal<Out, Bit>,
    /// The entry shown is put back unfinished (`RdmaResponseTx` yields it to an urgent
    /// one): the urgent queue's head is shown next.
    pub ack_yield: Signal<In, Bit>,
    /// A READ asked for again: `RdmaResponseTx` restarts the response going out where it
    /// asks, if it can (`rs_take`; else its response is owed as a new one's).
    pub rs_valid: Signal<Out, Bit>,
    pub rs_take: Signal<In, Bit>,
    pub rs_qpn: Signal<Out, Bits<6>>,
    pub rs_psn: Signal<Out, Bits<24>>,
    pub rs_bus: Signal<Out, Bits<64>>,
    pub rs_len: Signal<Out, Bits<32>>,
    // ---- counter pulses ----
    pub cnt_rx_packet: Signal<Out, Bit>,
    pub cnt_rx_bytes: Signal<Out, Bits<16>>,
    /// An unknown QP (out of range); one in the wrong state is `cnt_drop_state`.
    pub cnt_drop_qp: Signal<Out, Bit>,
    pub cnt_drop_state: Signal<Out, Bit>,
    pub cnt_drop_psn: Signal<Out, Bit>,
    pub cnt_drop_nobuf: Signal<Out, Bit>,
    pub cnt_drop_norecord: Signal<Out, Bit>,
    pub cnt_nak: Signal<Out, Bit>,
    pub cnt_unsupported: Signal<Out, Bit>,
    /// A duplicate request, answered again (`RX_DUPLICATES`).
    pub cnt_duplicate: Signal<Out, Bit>,
    // ---- children ----
    /// Payload in 16-byte chunks, two beats paired on the way in (a packet's odd last beat
    /// alone), so the scatter lands a chunk a cycle, twice the wire's rate, and catches up
    /// between packets: data 127:0, byte enables 143:128 (made from the byte count on the
    /// way in, so the RAM's output goes straight to the write's strobes).
    payload: NicFifo<Bits<144>, 9, 10>,
    /// The payload FIFO's head, registered: the FIFO is read while the queue has room (a
    /// register), not when a state takes (four states do; the decode reached the FIFO's
    /// RAM address: 156.25 MHz), and its RAM's output meets nothing but flip-flops that
    /// load it every cycle (the block RAM's clock-to-out leaves room for a route only).
    pay_q: RamOutQueue<Bits<144>>,
    /// Records: see `update` for the layout.
    records: NicFifo<Bits<288>, 6, 7>,
    /// The head record, out of the FIFO's RAM into one register before Idle loads its
    /// fields (the RAM's bits spread over the `r_*` registers missed 156.25 MHz). A record
    /// every other cycle at most: one per packet.
    rec_out: RamOutReg<Bits<288>>,
    /// Responses owed, in order: QP 5:0, PSN 31:8, syndrome 39:32, MSN 63:40, then the QP
    /// context's path (its words 4..6: destination IPv4, MAC, UDP source port) 159:64 and
    /// DEST_QPN 183:160, so the transmit side frames the packets without a table read; a
    /// READ's response: 184 set, its bus address 248:185, length 280:249, path MTU code
    /// 283:281 (an ACK or NAK: 184 clear). 64 deep: a READ's entry stays until its whole
    /// response is sent, and a requester may have many READs in flight (a full FIFO holds
    /// the responder, and its records back up behind it).
    acks: NicFifo<Bits<284>, 6, 7>,
    /// READs asked for again that the response going out did not take (their response
    /// went out whole, or is queued behind others): in `acks`' format, shown before
    /// `acks`' entries, so a requester that went back gets the response it waits for
    /// before the mebibytes queued since (the model's responder puts it first).
    urgent: NicFifo<Bits<284>, 3, 4>,
    /// Which queue's head is shown: switched only when no entry is in hand (the one shown
    /// taken or put back, or none shown).
    show_urgent: DFF<Bit>,
    /// The entry this cycle would put into `acks` (or `urgent`), built once in a local
    /// signal: rust-hdl's simulator answers a child input's `val()` with its settled value,
    /// so ORing fields into `acks.data_in` itself would keep stale bits there.
    ack_word: Signal<Local, Bits<284>>,
    ack_entry: Signal<Local, Bits<276>>,
    /// Per QP: in a message 0, its class 3:1, a sequence NAK sent 4, MSN 31:8; a WRITE: next bus address 95:32,
    /// bytes to come 127:96, its whole length 159:128; a SEND: the bytes received so far
    /// 63:32, the receive WQE's id 127:64, its scatter-gather list's total 159:128.
    msg_ram: NicRam<Bits<160>, 6>,
    /// Per QP: the WRITE in progress's rkey 31:0 and the virtual address its next packet
    /// writes at 95:32, so each later packet is checked against the MR table as its first
    /// was (a region deregistered mid-message takes no byte more).
    wkey_ram: NicRam<Bits<128>, 6>,
    /// Per QP: the receive queue's producer index, as the last RQ_DOORBELL gave it.
    rq_pi_ram: NicRam<Bits<16>, 6>,
    /// The two RAMs' outputs for `r_qpn`, registered every cycle (the QP table answers at
    /// least three cycles after `r_qpn` is set, when they are loaded): the block RAMs'
    /// slow clock-to-out reaches a flip-flop and nothing else (156.25 MHz).
    msg_rd: DFF<Bits<160>>,
    wkey_rd: DFF<Bits<128>>,
    /// Counts MR and QP stores: a later WRITE packet is checked again only when the
    /// epoch kept with its message (bits 127:96 of `wkey_ram`, the epoch when the
    /// message was last checked) is not the current one. Without stores in between the
    /// check could only pass again (the same key, PD, access and a range inside the one
    /// checked), so ordinary traffic pays nothing for it.
    mr_epoch: DFF<Bits<32>>,
    /// The epoch the packet's check saw (Check), kept with the message.
    w_epoch: DFF<Bits<32>>,
    /// `wkey_rd`'s epoch is the current one and no store came in the cycle before.
    epoch_same: DFF<Bit>,
    /// The MR check's question for the packet, loaded with the QP's context: a WRITE's
    /// first packet (and a READ) asks about its RETH (rkey, virtual address, the whole
    /// DMA length), a later WRITE packet about its own bytes at the message's next
    /// address under the message's rkey; `upd_va` is where the packet after it writes.
    k_key: DFF<Bits<32>>,
    k_va: DFF<Bits<64>>,
    k_len: DFF<Bits<32>>,
    upd_va: DFF<Bits<64>>,
    rq_pi_rd: DFF<Bits<16>>,
    /// Per QP (address QPN * 16 + SGE) the receive WQE's checked scatter-gather list, kept
    /// from a SEND's first packet for the rest, and (QPN * 16 + 8 + SGE) the landing list
    /// of the READ whose response is arriving, kept from its first packet: the SGE's bus
    /// address less its first message offset 63:0, the message offset past its end 95:64.
    sge_ram: NicRam<Bits<96>, 10>,
    mr_check: RdmaMrCheck,
    op_info: RdmaOpcodeInfo,
    path_mtu: RdmaPathMtu,
    // ---- payload intake: a beat waiting for its pair, chunks kept, the packet lost ----
    in_lo: DFF<Bits<64>>,
    in_lo_strb: DFF<Bits<8>>,
    in_have: DFF<Bit>,
    chunk_out: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    kept_now: Signal<Local, Bits<16>>,
    lost_now: Signal<Local, Bit>,
    kept: DFF<Bits<16>>,
    /// `kept + 1`, kept beside it: the record's count then takes a mux, not an adder,
    /// behind the flush decision (156.25 MHz).
    kept_p1: DFF<Bits<16>>,
    lost: DFF<Bit>,
    /// Beats of packets whose record was lost, not yet announced by a record.
    orphans: DFF<Bits<16>>,
    /// A lost record's chunks, added to `orphans` the cycle after (156.25 MHz: the
    /// FIFO's almost-full, which decides them, does not reach the adder). The next
    /// record reads the sum `orphans_now`, whole even the cycle after.
    orph_add: DFF<Bits<16>>,
    orphans_now: Signal<Local, Bits<16>>,
    /// An MR store came since the responder was last in Idle.
    fence_pending: DFF<Bit>,
    /// QPs stored in RESET since the responder last looked at them.
    forget: DFF<Bits<64>>,
    /// QPs that may have receive WQEs to flush (moved to ERR, or a doorbell rang), and the
    /// QP the idle responder looks at next.
    flush_bits: DFF<Bits<64>>,
    fscan: DFF<Bits<6>>,
    // ---- the packet in hand ----
    state: DFF<ResponderState>,
    /// The packet is a READ response being landed (the verdict's fields: the QP's PD, the
    /// READ's length, the packet's offset in it; its payload lost on the way in).
    landing: DFF<Bit>,
    l_pd: DFF<Bits<16>>,
    l_len: DFF<Bits<32>>,
    l_off: DFF<Bits<32>>,
    l_lost: DFF<Bit>,
    /// The half of `sge_ram` in use (the landing list's while landing).
    sge_half: Signal<Local, Bits<10>>,
    rec_take: Signal<Local, Bit>,
    is_read_response: Signal<Local, Bit>,
    /// READ Response First..Only (contiguous opcodes).
    op_rr_first: Constant<Bits<8>>,
    op_rr_only: Constant<Bits<8>>,
    r_opcode: DFF<Bits<8>>,
    r_ack_req: DFF<Bit>,
    /// The packet taken is ACKed (it asked, or it is the ACK_EVERY-th since the last
    /// ACK), decided in Update; the count since the last ACK is the message state's bits
    /// 7:5, its next value `ack_cnt_next`.
    ack_now: DFF<Bit>,
    ack_inc: Signal<Local, Bits<3>>,
    ack_due: Signal<Local, Bit>,
    ack_cnt_next: Signal<Local, Bits<3>>,
    r_solicited: DFF<Bit>,
    r_immdt: DFF<Bits<32>>,
    r_status: DFF<Bits<2>>,
    r_lost: DFF<Bit>,
    r_qpn: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_va: DFF<Bits<64>>,
    r_rkey: DFF<Bits<32>>,
    r_dma_len: DFF<Bits<32>>,
    r_len: DFF<Bits<16>>,
    r_kept: DFF<Bits<16>>,
    /// `r_kept` is not zero: registered a cycle after the record (Skip comes between), so
    /// the decisions on it read a flip-flop, not a 16-input OR (156.25 MHz).
    r_kept_nz: DFF<Bit>,
    /// Update's sums, registered every cycle from registers that hold still through Data
    /// (which every packet passes): where the next byte goes (`bus` + the packet's
    /// length), what is left of the WRITE, the MSN once this message ends (156.25 MHz).
    upd_bus: DFF<Bits<64>>,
    upd_rem: DFF<Bits<32>>,
    upd_msn: DFF<Bits<24>>,
    r_orphans: DFF<Bits<16>>,
    /// `r_orphans` is not 0 (a flag of its own: Skip's take reaches the payload slice's
    /// skid; 156.25 MHz).
    r_orphans_nz: DFF<Bit>,
    qpc: DFF<Bits<384>>,
    /// The ACK's destination MAC as the QP context stores it (byte 0 in bits 7:0).
    ack_mac_le: Signal<Local, Bits<48>>,
    msg: DFF<Bits<160>>,
    fresh: DFF<Bit>,
    /// The receive queue's producer index (from `rq_pi_ram`) and the QP's RQ_CI.
    rq_pi: DFF<Bits<16>>,
    rq_ci: DFF<Bits<16>>,
    /// No receive WQE posted (RQ_CI == RQ_PI), judged in Check for Decide; one left
    /// (RQ_CI + 1 == RQ_PI), judged every cycle for the flush, whose RQ_CI has long
    /// settled: neither compare (nor the increment) reaches the state register (156.25 MHz).
    rq_none: DFF<Bit>,
    rq_one_left: DFF<Bit>,
    /// RQ_CI + 1 at 16 bits: compared in place, the Verilog sum would not wrap at 0xffff.
    rq_ci_plus_one: Signal<Local, Bits<16>>,
    /// A SEND packet overruns its receive WQE: a first one is longer than the WQE's total,
    /// a later one takes the bytes received past it. Judged every cycle from registers
    /// that settle before Start (the message record, the WQE's total in `acc`), so Start
    /// reads two flip-flops, not the adder and compares (156.25 MHz).
    send_over_first: DFF<Bit>,
    send_over_later: DFF<Bit>,
    /// The packet takes a new receive WQE (RQ_CI advances); it ends a message that writes a receive CQE.
    took_new: DFF<Bit>,
    recv_cqe: DFF<Bit>,
    v_immdt: DFF<Bit>,
    // ---- the receive WQE: its fetch and its scatter-gather list ----
    rq_mask: DFF<Bits<16>>,
    fetch_addr: DFF<Bits<64>>,
    rd_asked: DFF<Bit>,
    fbeat: DFF<Bits<3>>,
    f_err: DFF<Bit>,
    f_wr_id: DFF<Bits<64>>,
    f_nsge: DFF<Bits<8>>,
    f_total: DFF<Bits<36>>,
    /// The WQE's SGEs 1..5 as they came (address 63:0, length 95:64, lkey 127:96), moved a
    /// place toward [0] as each is asked about: the next SGE's question is always
    /// `sge_next[0]`, never a pick among six (156.25 MHz).
    sge_next: [DFF<Bits<128>>; 5],
    sk: DFF<Bits<3>>,
    acc: DFF<Bits<32>>,
    rf_status: DFF<Bits<8>>,
    cqe_len: DFF<Bits<32>>,
    // ---- the scatter: the 16-byte chunk at message offset c_off, and the segment being
    // written (at bus address cur_delta + offset). Its bounds and the packet's end are kept
    // relative to the chunk, so each decision is a compare of registers (timing): ----
    cur_delta: DFF<Bits<64>>,
    /// The segment's end less c_off (0 or less: it ends before the chunk; two's complement).
    seg_rem: DFF<Bits<32>>,
    /// The segment's start less c_off (below 16 unsigned: it starts inside the chunk).
    seg_lo: DFF<Bits<32>>,
    seg_k: DFF<Bits<3>>,
    /// Cycles until `sge_q` shows the segment after the current one (2 after an advance:
    /// the RAM's address, then its output registered; 1 after Start).
    adv_wait: DFF<Bits<2>>,
    /// `sge_ram`'s output, registered before anything decides on it (156.25 MHz: the RAM's
    /// output went straight into the segment's subtraction).
    sge_q: DFF<Bits<96>>,
    /// The packet's end less c_off.
    pkt_rem: DFF<Bits<32>>,
    c_valid: DFF<Bit>,
    c_final: DFF<Bit>,
    c_data: DFF<Bits<128>>,
    c_strb: DFF<Bits<16>>,
    /// The chunk behind the one in hand: the payload FIFO is read while this is free, a
    /// registered condition, so the scatter's decisions (and the DMA write port's ready)
    /// never reach the FIFO's read address; the one in hand is refilled from here, or
    /// straight from the FIFO when this is empty, in the cycle it leaves (a chunk a cycle).
    k_valid: DFF<Bit>,
    k_final: DFF<Bit>,
    k_data: DFF<Bits<128>>,
    k_strb: DFF<Bits<16>>,
    c_off: DFF<Bits<32>>,
    // Check's verdicts
    v_state_ok: DFF<Bit>,
    v_psn_ok: DFF<Bit>,
    /// The PSN is a duplicate's (in the half of the circle before RQ_PSN; else, when not
    /// the expected one, it is ahead of a gap).
    v_dup: DFF<Bit>,
    /// RQ_PSN and RQ_PSN - 1, registered in Check: the PSN a sequence NAK and a
    /// duplicate's ACK carry, picked in Decide by a mux.
    v_exp: DFF<Bits<24>>,
    v_exp_m1: DFF<Bits<24>>,
    /// The PSN the entry written into `acks` carries: the packet's, but for the answers
    /// to packets out of sequence.
    a_psn: DFF<Bits<24>>,
    v_seq_ok: DFF<Bit>,
    v_starts: DFF<Bit>,
    v_ends: DFF<Bit>,
    v_class: DFF<Bits<3>>,
    mtu: DFF<Bits<16>>,
    mr_ok: DFF<Bit>,
    /// The access the MR check asks for (REMOTE_WRITE, or REMOTE_READ for a READ).
    v_need: DFF<Bits<3>>,
    /// A READ's response is owed (the ACK FIFO entry carries it); RQ_PSN's step (a READ's
    /// packets, else 1): its whole MTUs and whether a part of one follows.
    owe_read: DFF<Bit>,
    psn_step: DFF<Bits<24>>,
    /// A READ's response packets, ceil(DMA length / path MTU), computed every cycle in
    /// two steps: the whole MTUs and whether a part follows, then their sum (156.25 MHz:
    /// the MTU's shift and the 24-bit add do not fit one). The context loads as Check
    /// begins; a READ then waits in MrWait (`mr_check::LATENCY` cycles) before Decide.
    rp_whole: DFF<Bits<24>>,
    rp_part: DFF<Bit>,
    read_pkts: DFF<Bits<24>>,
    bus: DFF<Bits<64>>,
    remaining: DFF<Bits<32>>,
    syn: DFF<Bits<8>>,
    qp_asked: DFF<Bit>,
    // Data: chunks left, the write on offer
    left: DFF<Bits<16>>,
    /// `left` is not 0 (kept beside it: the FIFO's read decision is on the path to its
    /// RAM's read address).
    left_nz: DFF<Bit>,
    w_valid: DFF<Bit>,
    w_addr: DFF<Bits<64>>,
    w_data: DFF<Bits<128>>,
    w_strb: DFF<Bits<16>>,
    w_last: DFF<Bit>,
    /// The write on offer leaves through a skid slice: the scatter asks only whether
    /// `w_*` is free or the slice has room (both registers), so the host port's ready
    /// does not reach the chunk registers' enables (156.25 MHz). Address 63:0, data
    /// 191:64, byte enables 207:192, last 208.
    w_out: RegSlice<Bits<209>>,
    /// `w_*` may take a write this cycle.
    w_free: Signal<Local, Bit>,
    // ---- scratch ----
    head: Signal<Local, Bits<144>>,
    pay_strb: Signal<Local, Bits<8>>,
    take: Signal<Local, Bit>,
    rec_word: Signal<Local, Bits<288>>,
    in_msg: Signal<Local, Bit>,
    pmtu: Signal<Local, Bits<3>>,
    qp_state: Signal<Local, Bits<3>>,
    /// The packet's QP's `forget` bit, picked every cycle for `r_qpn` (set in Idle, read
    /// when the context arrives, three cycles or more later; 156.25 MHz). A RESET store in
    /// the last cycle leaves its bit for the QP's next packet: this one counts as before it.
    forget_hit: DFF<Bit>,
    cqe_word: Signal<Local, Bits<256>>,
    msg_new: Signal<Local, Bits<160>>,
    need_new: Signal<Local, Bit>,
    /// The chunk in hand leaves this cycle (the next may be taken).
    c_retire: Signal<Local, Bit>,
    /// No chunk in hand after this cycle unless one is moved in.
    c_free: Signal<Local, Bit>,
    sc_go: Signal<Local, Bit>,
    seg_done: Signal<Local, Bit>,
    seg_inside: Signal<Local, Bit>,
    /// `seg_done` and `seg_inside` from registers (156.25 MHz: the compares do not reach
    /// the chunk registers' take): judged every cycle on the segment as it is (`sj_*`) and
    /// as it will be once the chunk in hand retires (`sr_*`, on `seg_rem - 16` and
    /// `pkt_rem - 16`, what a retire writes); `sj_retired` says which holds now. A segment
    /// reloaded (Start, an advance) is not looked at for a cycle after (`adv_wait`, and no
    /// chunk in hand on entering Data), so the judgement a cycle behind is never stale.
    sj_done: DFF<Bit>,
    sj_inside: DFF<Bit>,
    sr_done: DFF<Bit>,
    sr_inside: DFF<Bit>,
    sj_retired: DFF<Bit>,
    /// Neither done nor inside, judged both ways as above: the chunk in hand may retire.
    sj_ok: DFF<Bit>,
    sr_ok: DFF<Bit>,
    seg_ok: Signal<Local, Bit>,
    sr_done_now: Signal<Local, Bit>,
    seg_rem_m16: Signal<Local, Bits<32>>,
    pkt_rem_m16: Signal<Local, Bits<32>>,
    seg_lt_pkt: Signal<Local, Bit>,
    lo_mask: Signal<Local, Bits<16>>,
    next_k: Signal<Local, Bits<3>>,
    /// The SGE SgeCheck asks about (SGE sk), loaded a step ahead and held while it is
    /// checked: SGE 0 from its beat of the WQE, SGE sk + 1 from `sge_next[0]` in SgeWrite
    /// (`sk_p1` is `sk`'s next value, a register: no adder before `sk`'s load). Its length gives the message offset past its end, `sk_end`, a register: the
    /// MR check takes its cycles (`mr_check::LATENCY`) and it settles meanwhile.
    sk_p1: DFF<Bits<3>>,
    ask_key: DFF<Bits<32>>,
    ask_addr: DFF<Bits<64>>,
    ask_len: DFF<Bits<32>>,
    sk_end: DFF<Bits<32>>,
    hi_mask: Signal<Local, Bits<16>>,
    seg_adv: Signal<Local, Bit>,
    sc_write: Signal<Local, Bit>,
    sge_beat: Signal<Local, Bits<3>>,
    ones16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    class_send: Constant<Bits<3>>,
    rq_ci_bits: Constant<Bits<384>>,
    local_write: Constant<Bits<3>>,
    syn_rnr: Constant<Bits<8>>,
    syn_seq: Constant<Bits<8>>,
    syn_remote_op: Constant<Bits<8>>,
    st_loc_len: Constant<Bits<8>>,
    st_loc_qp_op: Constant<Bits<8>>,
    st_loc_prot: Constant<Bits<8>>,
    op_recv: Constant<Bits<8>>,
    op_recv_imm: Constant<Bits<8>>,
    forget_next: Signal<Local, Bits<64>>,
    flush_next: Signal<Local, Bits<64>>,
    /// The flush bit of the QP `fscan` named a cycle ago, and that QP: the 64-way pick is
    /// registered before Idle decides on it (only Idle clears a bit, as it leaves, so the
    /// registered bit is never stale when Idle reads it).
    fhit: DFF<Bit>,
    /// An SGE's bus address less its first message offset, on its way to `sge_ram`.
    sgw_bus: DFF<Bits<64>>,
    /// The packet's length against the WRITE's bytes remaining (more; not equal) and
    /// against the path MTU (not equal), compared as those are loaded (in Check, MrWait),
    /// for Decide (156.25 MHz).
    w_over: DFF<Bit>,
    w_short: DFF<Bit>,
    v_not_mtu: DFF<Bit>,
    /// A SEND's bytes so far plus this packet's, for `send_over_later` a cycle later.
    send_sum: DFF<Bits<33>>,
    fhit_qp: DFF<Bits<6>>,
    st_flush: Constant<Bits<8>>,
    state_err3: Constant<Bits<3>>,
    /// The message state with its in-a-message bit cleared.
    not_in_msg: Constant<Bits<160>>,
    /// The message state's bit 4: a NAK PSN sequence error was sent for the gap.
    seq_nak_sent: Constant<Bits<160>>,
    psn_diff: Signal<Local, Bits<24>>,
    ones8: Constant<Bits<8>>,
    /// Path MTU code c is 128 << c bytes.
    bit_of_qp: [Constant<Bits<64>>; 64],
    qp_id: [Constant<Bits<6>>; 64],
    // ---- constants from the map ----
    state_rtr: Constant<Bits<3>>,
    class_write: Constant<Bits<3>>,
    class_read_response: Constant<Bits<3>>,
    class_acknowledge: Constant<Bits<3>>,
    state_rts: Constant<Bits<3>>,
    state_reset: Constant<Bits<3>>,
    state_err: Constant<Bits<384>>,
    state_bits: Constant<Bits<384>>,
    rq_psn_bits: Constant<Bits<384>>,
    remote_write: Constant<Bits<3>>,
    remote_read: Constant<Bits<3>>,
    class_read_request: Constant<Bits<3>>,
    syn_ack: Constant<Bits<8>>,
    syn_invalid: Constant<Bits<8>>,
    syn_access: Constant<Bits<8>>,
}

impl Default for RdmaResponder {
    fn default() -> Self {
        let field = |f: nic_regmap::rdma::TableField| Bits::<384>::from(u64::from(f.mask())) << (32 * f.word as u64 + u64::from(f.lsb));
        assert!(qpc::STATE.word == 0 && qpc::PMTU.word == 0 && qpc::PMTU.lsb == 4 && qpc::PD.word == 0 && qpc::PD.lsb == 16);
        assert!(qpc::ACCESS.word == 1 && qpc::ACCESS.lsb == 24 && qpc::RQ_PSN.word == 3 && qpc::RQ_PSN.lsb == 0);
        // the RNR NAK's timer code: bits 63:59 of the context
        assert!(qpc::MIN_RNR_TIMER.word == 1 && qpc::MIN_RNR_TIMER.lsb == 27 && qpc::MIN_RNR_TIMER.width == 5);
        assert!(qpc::DEST_QPN.word == 1 && qpc::DEST_QPN.lsb == 0 && qpc::DEST_IPV4.word == 4 && qpc::DEST_MAC_LO.word == 5);
        assert!(qpc::RQ_BASE_LO.word == 9 && qpc::RQ_BASE_HI.word == 10 && qpc::RQ_LOG2.word == 10 && qpc::RQ_LOG2.lsb == 16 && qpc::RQ_CI.word == 11 && qpc::RQ_CI.lsb == 16);
        assert!(qpc::RECV_CQ.word == 0 && qpc::RECV_CQ.lsb == 12 && wqe::NUM_SGE == 10 && wqe::SGE == 32 && wqe::SGE_SIZE == 16 && wqe::MAX_SGE == 6);
        assert!(cqe::BYTE_LEN == 8 && cqe::IMM == 12 && cqe::QPN == 16 && cqe::OPCODE == 20 && cqe::STATUS == 21 && cqe::FLAGS == 22 && cqe::FLAG_IMM == 1 && cqe::FLAG_SOLICITED == 2);
        assert!(qpc::DEST_MAC_HI.word == 6 && qpc::DEST_MAC_HI.lsb == 0 && qpc::UDP_SPORT.word == 6 && qpc::UDP_SPORT.lsb == 16);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pay_valid: Default::default(),
            pay_data: Default::default(),
            pay_nbytes: Default::default(),
            rec_valid: Default::default(),
            rec_status: Default::default(),
            rec_opcode: Default::default(),
            rec_ack_req: Default::default(),
            rec_solicited: Default::default(),
            rec_immdt: Default::default(),
            cpl_rec_full: Default::default(),
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
            landing: Default::default(),
            l_pd: Default::default(),
            l_len: Default::default(),
            l_off: Default::default(),
            l_lost: Default::default(),
            sge_half: Default::default(),
            rec_take: Default::default(),
            is_read_response: Default::default(),
            op_rr_first: Constant::new(OP_READ_RESPONSE_FIRST.into()),
            op_rr_only: Constant::new(OP_READ_RESPONSE_ONLY.into()),
            rq_db_valid: Default::default(),
            rq_db_qpn: Default::default(),
            rq_db_pi: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            dma_rd_rsp_last: Default::default(),
            dma_rd_rsp_error: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cq: Default::default(),
            cqe_entry: Default::default(),
            rq_pi_ram: Default::default(),
            msg_rd: Default::default(),
            wkey_ram: Default::default(),
            wkey_rd: Default::default(),
            mr_epoch: Default::default(),
            w_epoch: Default::default(),
            epoch_same: Default::default(),
            k_key: Default::default(),
            k_va: Default::default(),
            k_len: Default::default(),
            upd_va: Default::default(),
            rq_pi_rd: Default::default(),
            sge_ram: Default::default(),
            adv_wait: Default::default(),
            sge_q: Default::default(),
            r_solicited: Default::default(),
            r_immdt: Default::default(),
            rq_pi: Default::default(),
            rq_ci: Default::default(),
            rq_none: Default::default(),
            rq_one_left: Default::default(),
            rq_ci_plus_one: Default::default(),
            send_over_first: Default::default(),
            send_over_later: Default::default(),
            took_new: Default::default(),
            recv_cqe: Default::default(),
            v_immdt: Default::default(),
            rq_mask: Default::default(),
            fetch_addr: Default::default(),
            rd_asked: Default::default(),
            fbeat: Default::default(),
            f_err: Default::default(),
            f_wr_id: Default::default(),
            f_nsge: Default::default(),
            f_total: Default::default(),
            sge_next: Default::default(),
            sk: Default::default(),
            acc: Default::default(),
            rf_status: Default::default(),
            cqe_len: Default::default(),
            cur_delta: Default::default(),
            seg_rem: Default::default(),
            seg_lo: Default::default(),
            seg_k: Default::default(),
            pkt_rem: Default::default(),
            c_valid: Default::default(),
            c_final: Default::default(),
            c_data: Default::default(),
            c_strb: Default::default(),
            k_valid: Default::default(),
            k_final: Default::default(),
            k_data: Default::default(),
            k_strb: Default::default(),
            c_free: Default::default(),
            c_off: Default::default(),
            need_new: Default::default(),
            c_retire: Default::default(),
            in_lo: Default::default(),
            in_lo_strb: Default::default(),
            in_have: Default::default(),
            chunk_out: Default::default(),
            flush: Default::default(),
            kept_now: Default::default(),
            lost_now: Default::default(),
            sc_go: Default::default(),
            seg_done: Default::default(),
            seg_inside: Default::default(),
            sj_done: Default::default(),
            sj_inside: Default::default(),
            sr_done: Default::default(),
            sr_inside: Default::default(),
            sj_retired: Default::default(),
            sj_ok: Default::default(),
            sr_ok: Default::default(),
            seg_ok: Default::default(),
            sr_done_now: Default::default(),
            seg_rem_m16: Default::default(),
            pkt_rem_m16: Default::default(),
            seg_lt_pkt: Default::default(),
            lo_mask: Default::default(),
            next_k: Default::default(),
            sk_p1: Default::default(),
            ask_key: Default::default(),
            ask_addr: Default::default(),
            ask_len: Default::default(),
            sk_end: Default::default(),
            hi_mask: Default::default(),
            seg_adv: Default::default(),
            sc_write: Default::default(),
            sge_beat: Default::default(),
            ones16: Constant::new(0xffffu64.into()),
            zero32: Constant::new(0u64.into()),
            class_send: Constant::new(CLASS_SEND.into()),
            rq_ci_bits: Constant::new(field(qpc::RQ_CI)),
            local_write: Constant::new(u64::from(access::LOCAL_WRITE).into()),
            syn_rnr: Constant::new(u64::from(syndrome::RNR_NAK).into()),
            syn_seq: Constant::new(u64::from(syndrome::NAK_PSN_SEQUENCE).into()),
            syn_remote_op: Constant::new(u64::from(syndrome::NAK_REMOTE_OPERATIONAL).into()),
            st_loc_len: Constant::new((WcStatus::LocLenErr as u64).into()),
            st_loc_qp_op: Constant::new((WcStatus::LocQpOpErr as u64).into()),
            st_loc_prot: Constant::new((WcStatus::LocProtErr as u64).into()),
            op_recv: Constant::new(u64::from(cqe::OP_RECV).into()),
            op_recv_imm: Constant::new(u64::from(cqe::OP_RECV_RDMA_WITH_IMM).into()),
            rec_dest_qp: Default::default(),
            rec_psn: Default::default(),
            rec_va: Default::default(),
            rec_rkey: Default::default(),
            rec_dma_len: Default::default(),
            rec_payload_len: Default::default(),
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
            mr_wr: Default::default(),
            mr_fence_done: Default::default(),
            fence_pending: Default::default(),
            mr_wr_index: Default::default(),
            mr_wr_entry: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_last: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_msn: Default::default(),
            ack_dst_mac: Default::default(),
            ack_dst_ip: Default::default(),
            ack_udp_src_port: Default::default(),
            ack_dest_qp: Default::default(),
            ack_read: Default::default(),
            ack_bus: Default::default(),
            ack_len: Default::default(),
            ack_pmtu: Default::default(),
            rs_valid: Default::default(),
            rs_take: Default::default(),
            rs_qpn: Default::default(),
            rs_psn: Default::default(),
            rs_bus: Default::default(),
            rs_len: Default::default(),
            ack_mac_le: Default::default(),
            ack_urgent: Default::default(),
            ack_yield: Default::default(),
            urgent: Default::default(),
            show_urgent: Default::default(),
            ack_word: Default::default(),
            ack_entry: Default::default(),
            cnt_rx_packet: Default::default(),
            cnt_rx_bytes: Default::default(),
            cnt_drop_qp: Default::default(),
            cnt_drop_state: Default::default(),
            cnt_drop_psn: Default::default(),
            cnt_drop_nobuf: Default::default(),
            cnt_drop_norecord: Default::default(),
            cnt_nak: Default::default(),
            cnt_unsupported: Default::default(),
            cnt_duplicate: Default::default(),
            payload: Default::default(),
            pay_q: Default::default(),
            rec_out: RamOutReg::half_rate(),
            records: Default::default(),
            acks: Default::default(),
            msg_ram: Default::default(),
            mr_check: Default::default(),
            op_info: Default::default(),
            path_mtu: Default::default(),
            kept: Default::default(),
            kept_p1: Default::default(),
            lost: Default::default(),
            orphans: Default::default(),
            orph_add: Default::default(),
            orphans_now: Default::default(),
            forget: Default::default(),
            state: Default::default(),
            r_opcode: Default::default(),
            r_ack_req: Default::default(),
            ack_every: Default::default(),
            ack_now: Default::default(),
            ack_inc: Default::default(),
            ack_due: Default::default(),
            ack_cnt_next: Default::default(),
            r_status: Default::default(),
            r_lost: Default::default(),
            r_qpn: Default::default(),
            r_psn: Default::default(),
            r_va: Default::default(),
            r_rkey: Default::default(),
            r_dma_len: Default::default(),
            r_len: Default::default(),
            r_kept: Default::default(),
            r_kept_nz: Default::default(),
            upd_bus: Default::default(),
            upd_rem: Default::default(),
            upd_msn: Default::default(),
            r_orphans: Default::default(),
            r_orphans_nz: Default::default(),
            qpc: Default::default(),
            msg: Default::default(),
            fresh: Default::default(),
            v_state_ok: Default::default(),
            v_psn_ok: Default::default(),
            v_dup: Default::default(),
            v_exp: Default::default(),
            v_exp_m1: Default::default(),
            a_psn: Default::default(),
            v_seq_ok: Default::default(),
            v_starts: Default::default(),
            v_ends: Default::default(),
            v_class: Default::default(),
            mtu: Default::default(),
            mr_ok: Default::default(),
            v_need: Default::default(),
            owe_read: Default::default(),
            psn_step: Default::default(),
            read_pkts: Default::default(),
            rp_whole: Default::default(),
            rp_part: Default::default(),
            bus: Default::default(),
            remaining: Default::default(),
            syn: Default::default(),
            qp_asked: Default::default(),
            left: Default::default(),
            left_nz: Default::default(),
            w_valid: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            w_last: Default::default(),
            w_out: Default::default(),
            w_free: Default::default(),
            head: Default::default(),
            take: Default::default(),
            rec_word: Default::default(),
            in_msg: Default::default(),
            pmtu: Default::default(),
            qp_state: Default::default(),
            forget_hit: Default::default(),
            pay_strb: Default::default(),
            cqe_word: Default::default(),
            msg_new: Default::default(),
            forget_next: Default::default(),
            flush_next: Default::default(),
            fhit: Default::default(),
            sgw_bus: Default::default(),
            w_over: Default::default(),
            w_short: Default::default(),
            v_not_mtu: Default::default(),
            send_sum: Default::default(),
            fhit_qp: Default::default(),
            st_flush: Constant::new((WcStatus::WrFlushErr as u64).into()),
            state_err3: Constant::new((QpState::Err as u64).into()),
            not_in_msg: Constant::new(!Bits::<160>::from(1u64)),
            seq_nak_sent: Constant::new(Bits::<160>::from(16u64)),
            psn_diff: Default::default(),
            flush_bits: Default::default(),
            fscan: Default::default(),
            qp_err: Default::default(),
            qp_err_index: Default::default(),
            ones8: Constant::new(0xffu64.into()),
            bit_of_qp: std::array::from_fn(|q| Constant::new(Bits::<64>::from(1u64 << q))),
            qp_id: std::array::from_fn(|q| Constant::new(Bits::<6>::from(q as u64))),
            state_rtr: Constant::new((QpState::Rtr as u64).into()),
            class_write: Constant::new(CLASS_WRITE.into()),
            class_read_response: Constant::new(CLASS_READ_RESPONSE.into()),
            class_acknowledge: Constant::new(CLASS_ACKNOWLEDGE.into()),
            state_rts: Constant::new((QpState::Rts as u64).into()),
            state_reset: Constant::new((QpState::Reset as u64).into()),
            state_err: Constant::new(Bits::<384>::from(QpState::Err as u64)),
            state_bits: Constant::new(field(qpc::STATE)),
            rq_psn_bits: Constant::new(field(qpc::RQ_PSN)),
            remote_write: Constant::new(u64::from(access::REMOTE_WRITE).into()),
            remote_read: Constant::new(u64::from(access::REMOTE_READ).into()),
            class_read_request: Constant::new(CLASS_READ_REQUEST.into()),
            syn_ack: Constant::new(u64::from(syndrome::ACK).into()),
            syn_invalid: Constant::new(u64::from(syndrome::NAK_INVALID_REQUEST).into()),
            syn_access: Constant::new(u64::from(syndrome::NAK_REMOTE_ACCESS).into()),
        }
    }
}

impl Logic for RdmaResponder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, kept, lost, orphans, orph_add, forget, flush_bits, fscan, state, r_opcode, r_ack_req, ack_now, r_status, r_lost, r_qpn, r_psn, r_va, r_rkey, r_dma_len,
            fence_pending, msg_rd, wkey_rd, mr_epoch, w_epoch, epoch_same, k_key, k_va, k_len, upd_va, rq_pi_rd, forget_hit, sgw_bus, w_over, w_short, v_not_mtu, send_sum, fhit, fhit_qp, r_len, r_kept, r_kept_nz, upd_bus, upd_rem, upd_msn, r_orphans, r_orphans_nz, qpc, msg, fresh, v_state_ok, v_psn_ok, v_dup, v_exp, v_exp_m1, a_psn, v_seq_ok, v_starts, v_ends, v_class, mtu, mr_ok, bus,
            remaining, syn, qp_asked, kept_p1, ask_key, ask_addr, ask_len, left, left_nz, in_lo, in_lo_strb, in_have, w_valid, w_addr, w_data, w_strb, w_last, r_solicited, r_immdt, rq_pi, rq_ci, rq_none, rq_one_left, send_over_first, send_over_later,
            took_new, recv_cqe, v_immdt, rq_mask, fetch_addr, rd_asked, fbeat, f_err, f_wr_id, f_nsge, f_total, sk, acc, rf_status, cqe_len, cur_delta,
            seg_rem, seg_lo, seg_k, adv_wait, pkt_rem, sj_done, sj_inside, sr_done, sr_inside, sj_retired, sj_ok, sr_ok, c_valid, c_final, c_data, c_strb, k_valid, k_final, k_data, k_strb, c_off, v_need, owe_read, psn_step, rp_whole, rp_part, read_pkts, sge_q, sk_p1, sk_end, landing, l_pd, l_len, l_off, l_lost, show_urgent);
        for i in 0..5 {
            self.sge_next[i].clock.next = self.clock.val();
            self.sge_next[i].d.next = self.sge_next[i].q.val();
        }
        clock!(self, clock, payload, pay_q, w_out, records, rec_out, acks, urgent, msg_ram, wkey_ram, rq_pi_ram, sge_ram, mr_check);
        self.payload.reset.next = self.reset.val();
        self.pay_q.reset.next = self.reset.val();
        self.w_out.reset.next = self.reset.val();
        self.rec_out.reset.next = self.reset.val();
        self.rec_out.s_data.next = self.records.data_out.val();
        self.rec_out.s_valid.next = !self.records.empty.val();
        self.records.read.next = !self.records.empty.val() & self.rec_out.s_ready.val();
        self.rec_out.m_ready.next = false;
        self.records.reset.next = self.reset.val();
        self.acks.reset.next = self.reset.val();
        self.urgent.reset.next = self.reset.val();
        self.mr_check.reset.next = self.reset.val();
        self.mr_check.mr_wr.next = self.mr_wr.val();
        self.mr_fence_done.next = self.fence_pending.q.val() & (self.state.q.val() == ResponderState::Idle);
        if self.mr_fence_done.val() {
            self.fence_pending.d.next = false;
        }
        if self.mr_wr.val() {
            self.fence_pending.d.next = true;
        }
        self.mr_check.mr_wr_index.next = self.mr_wr_index.val();
        self.mr_check.mr_wr_entry.next = self.mr_wr_entry.val();
        // ---- intake: payload beats paired into chunks, the record with what was kept. A
        // packet's beats all precede its record, which comes before the next packet's
        // first beat: the record flushes an odd last beat alone. ----
        self.pay_strb.next = !(self.ones8.val() << bit_cast::<8, 4>(self.pay_nbytes.val()));
        self.flush.next = self.rec_valid.val() & self.in_have.q.val();
        self.chunk_out.next = self.flush.val() | (self.pay_valid.val() & self.in_have.q.val() & !self.rec_valid.val());
        // a chunk is refused on the FIFO's registered almost-full (511 of 512: a chunk a
        // cycle at most), so the pointers' compare does not reach 'chunks kept' (156.25 MHz)
        self.payload.write.next = self.chunk_out.val() & !self.payload.almost_full.val();
        self.payload.data_in.next = bit_cast::<144, 64>(self.in_lo.q.val()) | (bit_cast::<144, 64>(self.pay_data.val()) << 64)
            | (bit_cast::<144, 8>(self.in_lo_strb.q.val()) << 128) | (bit_cast::<144, 8>(self.pay_strb.val()) << 136);
        if self.flush.val() {
            self.payload.data_in.next = bit_cast::<144, 64>(self.in_lo.q.val()) | (bit_cast::<144, 8>(self.in_lo_strb.q.val()) << 128);
        }
        if self.chunk_out.val() {
            self.in_have.d.next = false;
            if self.payload.almost_full.val() {
                self.lost.d.next = true;
            } else {
                self.kept.d.next = self.kept_p1.q.val();
                self.kept_p1.d.next = self.kept_p1.q.val() + 1;
            }
        }
        if self.pay_valid.val() & !(self.in_have.q.val() & !self.rec_valid.val()) {
            // a low half (the first after a record too)
            self.in_lo.d.next = self.pay_data.val();
            self.in_lo_strb.d.next = self.pay_strb.val();
            self.in_have.d.next = true;
        }
        // what the record says was kept, the flushed chunk included
        self.kept_now.next = self.kept.q.val();
        self.lost_now.next = self.lost.q.val();
        if self.flush.val() {
            if self.payload.almost_full.val() {
                self.lost_now.next = true;
            } else {
                self.kept_now.next = self.kept_p1.q.val();
            }
        }
        self.orphans_now.next = self.orphans.q.val() + self.orph_add.q.val();
        // record: opcode 7:0, AckReq 8, status 10:9, lost 11, SE 12, QPN 39:16, PSN 63:40, VA 127:64,
        // R_Key 159:128, DMA length 191:160, payload length 207:192, chunks kept 223:208,
        // chunks of lost records before this packet's 239:224, ImmDt 287:256
        self.rec_word.next = bit_cast::<288, 8>(self.rec_opcode.val()) | (bit_cast::<288, 2>(self.rec_status.val()) << 9)
            | (bit_cast::<288, 24>(self.rec_dest_qp.val()) << 16) | (bit_cast::<288, 24>(self.rec_psn.val()) << 40)
            | (bit_cast::<288, 64>(self.rec_va.val()) << 64) | (bit_cast::<288, 32>(self.rec_rkey.val()) << 128)
            | (bit_cast::<288, 32>(self.rec_dma_len.val()) << 160) | (bit_cast::<288, 16>(self.rec_payload_len.val()) << 192)
            | (bit_cast::<288, 16>(self.kept_now.val()) << 208) | (bit_cast::<288, 16>(self.orphans_now.val()) << 224)
            | (bit_cast::<288, 32>(self.rec_immdt.val()) << 256);
        if self.rec_ack_req.val() {
            self.rec_word.next = self.rec_word.val() | (Bits::<288>::from(1u64) << 8);
        }
        if self.lost_now.val() {
            self.rec_word.next = self.rec_word.val() | (Bits::<288>::from(1u64) << 11);
        }
        if self.rec_solicited.val() {
            self.rec_word.next = self.rec_word.val() | (Bits::<288>::from(1u64) << 12);
        }
        // (a good READ response the completer has no room for is dropped here too: it counts it)
        self.is_read_response.next = (self.rec_opcode.val() >= self.op_rr_first.val()) & (self.rec_opcode.val() <= self.op_rr_only.val()) & (self.rec_status.val() == 0);
        self.rec_take.next = !self.records.almost_full.val() & !(self.is_read_response.val() & self.cpl_rec_full.val());
        self.records.write.next = self.rec_valid.val() & self.rec_take.val();
        self.records.data_in.next = self.rec_word.val();
        self.records_full.next = self.records.almost_full.val();
        self.cnt_drop_norecord.next = false;
        self.orphans.d.next = self.orphans_now.val();
        self.orph_add.d.next = 0.into();
        if self.rec_valid.val() {
            self.kept.d.next = 0.into();
            self.kept_p1.d.next = 1.into();
            self.lost.d.next = false;
            // a taken record announces the orphans before it; one that is not taken is
            // lost, and its chunks are skipped later
            if self.rec_take.val() {
                self.orphans.d.next = 0.into();
            } else {
                self.orph_add.d.next = self.kept_now.val();
                self.cnt_drop_norecord.next = self.records.almost_full.val();
            }
        }
        // ---- defaults ----
        self.rq_ci_plus_one.next = self.rq_ci.q.val() + 1;
        self.rq_one_left.d.next = self.rq_ci_plus_one.val() == self.rq_pi.q.val();
        self.r_kept_nz.d.next = self.r_kept.q.val().any();
        self.msg_rd.d.next = self.msg_ram.read_data.val();
        self.wkey_rd.d.next = self.wkey_ram.read_data.val();
        self.wkey_ram.read_address.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.wkey_ram.write_address.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.wkey_ram.write_enable.next = false;
        self.wkey_ram.write_data.next = bit_cast::<128, 32>(self.k_key.q.val()) | (bit_cast::<128, 64>(self.upd_va.q.val()) << 32) | (bit_cast::<128, 32>(self.w_epoch.q.val()) << 96);
        if self.mr_wr.val() | self.qp_store.val() {
            self.mr_epoch.d.next = self.mr_epoch.q.val() + 1;
        }
        self.epoch_same.d.next = (self.wkey_rd.q.val().get_bits::<32>(96) == self.mr_epoch.q.val()) & !self.mr_wr.val() & !self.qp_store.val();
        self.upd_va.d.next = self.k_va.q.val() + bit_cast::<64, 16>(self.r_len.q.val());
        self.rq_pi_rd.d.next = self.rq_pi_ram.read_data.val();
        self.upd_bus.d.next = self.bus.q.val() + bit_cast::<64, 16>(self.r_len.q.val());
        self.upd_rem.d.next = self.remaining.q.val() - bit_cast::<32, 16>(self.r_len.q.val());
        self.upd_msn.d.next = self.msg.q.val().get_bits::<24>(8) + 1;
        self.send_over_first.d.next = bit_cast::<32, 16>(self.r_len.q.val()) > self.acc.q.val();
        self.rp_whole.d.next = self.path_mtu.whole.val();
        self.rp_part.d.next = self.path_mtu.part.val().any();
        self.read_pkts.d.next = self.rp_whole.q.val() + bit_cast::<24, 1>(self.rp_part.q.val().into());
        // (used in Start, three cycles or more after `msg` is loaded)
        self.send_sum.d.next = bit_cast::<33, 32>(self.msg.q.val().get_bits::<32>(32)) + bit_cast::<33, 16>(self.r_len.q.val());
        self.send_over_later.d.next = self.send_sum.q.val() > bit_cast::<33, 32>(self.msg.q.val().get_bits::<32>(128));
        self.pay_q.m_ready.next = false;
        self.acks.write.next = false;
        self.urgent.write.next = false;
        self.ack_word.next = bit_cast::<284, 6>(self.r_qpn.q.val().get_bits::<6>(0)) | (bit_cast::<284, 24>(self.a_psn.q.val()) << 8)
            | (bit_cast::<284, 8>(self.syn.q.val()) << 32) | (bit_cast::<284, 24>(self.msg.q.val().get_bits::<24>(8)) << 40)
            | (bit_cast::<284, 96>(self.qpc.q.val().get_bits::<96>(128)) << 64)
            | (bit_cast::<284, 24>(self.qpc.q.val().get_bits::<24>(32)) << 160);
        if self.owe_read.q.val() {
            self.ack_word.next = self.ack_word.val() | (Bits::<284>::from(1u64) << 184) | (bit_cast::<284, 64>(self.bus.q.val()) << 185)
                | (bit_cast::<284, 32>(self.r_dma_len.q.val()) << 249) | (bit_cast::<284, 3>(self.qpc.q.val().get_bits::<3>(4)) << 281);
        }
        self.acks.data_in.next = self.ack_word.val();
        self.urgent.data_in.next = self.ack_word.val();
        self.rs_valid.next = false;
        self.rs_qpn.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.rs_psn.next = self.a_psn.q.val();
        self.rs_bus.next = self.bus.q.val();
        self.rs_len.next = self.r_dma_len.q.val();
        self.qp_valid.next = false;
        self.qp_index.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.qp_write.next = false;
        self.qp_mask.next = 0.into();
        self.qp_wdata.next = 0.into();
        self.msg_ram.read_address.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.msg_ram.write_address.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.msg_ram.write_enable.next = false;
        self.msg_ram.write_data.next = self.msg.q.val();
        self.mr_check.in_valid.next = false;
        self.mr_check.in_key.next = self.k_key.q.val();
        self.mr_check.in_pd.next = self.qpc.q.val().get_bits::<16>(16);
        self.mr_check.in_addr.next = self.k_va.q.val();
        self.mr_check.in_len.next = self.k_len.q.val();
        // (the check is asked in Check, from the opcode's class)
        self.mr_check.in_need.next = self.remote_write.val();
        if self.op_info.op_class.val() == self.class_read_request.val() {
            self.mr_check.in_need.next = self.remote_read.val();
        }
        self.mr_check.in_tag.next = 0.into();
        // the receive queue's producer indices: the doorbell's, 0 for a QP stored in RESET
        self.rq_pi_ram.read_address.next = self.r_qpn.q.val().get_bits::<6>(0);
        self.rq_pi_ram.write_address.next = self.rq_db_qpn.val().get_bits::<6>(0);
        self.rq_pi_ram.write_data.next = self.rq_db_pi.val();
        self.rq_pi_ram.write_enable.next = self.rq_db_valid.val() & (self.rq_db_qpn.val() < 64);
        if self.qp_store.val() & (self.qp_store_state.val() == self.state_reset.val()) {
            self.rq_pi_ram.write_address.next = self.qp_store_index.val();
            self.rq_pi_ram.write_data.next = 0.into();
            self.rq_pi_ram.write_enable.next = true;
        }
        // the SGE list: written as it is checked, read one segment ahead while scattering
        self.next_k.next = self.seg_k.q.val() + 1;
        if self.state.q.val() == ResponderState::Start {
            self.next_k.next = 1.into();
        }
        // (the landing half is addressed from the verdict's cycle on: its segment 0 is read
        // there for a later packet, which goes on through Start0)
        self.sge_half.next = bit_cast::<10, 6>(self.r_qpn.q.val().get_bits::<6>(0)) << 4;
        if self.landing.q.val() | (self.state.q.val() == ResponderState::RdVerdict) {
            self.sge_half.next = self.sge_half.val() | 8;
        }
        self.sge_ram.read_address.next = self.sge_half.val();
        if (self.state.q.val() == ResponderState::Start) | (self.state.q.val() == ResponderState::Data) {
            self.sge_ram.read_address.next = self.sge_half.val() | bit_cast::<10, 3>(self.next_k.val());
        }
        self.sge_ram.write_address.next = self.sge_half.val() | bit_cast::<10, 3>(self.sk.q.val());
        self.sge_ram.write_data.next = 0.into();
        self.sk_end.d.next = self.acc.q.val() + self.ask_len.q.val();
        self.sge_ram.write_enable.next = false;
        self.sge_q.d.next = self.sge_ram.read_data.val();
        self.adv_wait.d.next = 0.into();
        if self.adv_wait.q.val().any() {
            self.adv_wait.d.next = self.adv_wait.q.val() - 1;
        }
        self.vd_ready.next = false;
        self.rr_valid.next = false;
        self.rr_status.next = self.rf_status.q.val();
        self.rr_lost.next = self.l_lost.q.val();
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = self.fetch_addr.q.val();
        self.dma_rd_req_len.next = 128.into();
        self.dma_rd_rsp_ready.next = (self.state.q.val() == ResponderState::FetchData) | (self.state.q.val() == ResponderState::FlushData);
        // a receive CQE: the WQE's id, the QP, RECV, the status (an error's fields end there)
        self.cqe_valid.next = false;
        self.cqe_cq.next = self.qpc.q.val().get_bits::<4>(12);
        self.cqe_word.next = bit_cast::<256, 64>(self.f_wr_id.q.val()) | (bit_cast::<256, 6>(self.r_qpn.q.val().get_bits::<6>(0)) << 128)
            | (bit_cast::<256, 8>(self.op_recv.val()) << 160) | (bit_cast::<256, 8>(self.rf_status.q.val()) << 168);
        self.need_new.next = false;
        // a READ's whole MTUs (its length's bits above the MTU's), and what is left of one
        self.c_retire.next = false;
        self.c_free.next = false;
        self.sc_go.next = false;
        self.w_free.next = !self.w_valid.q.val() | self.w_out.s_ready.val();
        self.seg_ok.next = self.sj_ok.q.val();
        if self.sj_retired.q.val() {
            self.seg_ok.next = self.sr_ok.q.val();
        }
        self.seg_adv.next = false;
        self.sc_write.next = false;
        self.sge_beat.next = self.fbeat.q.val() - 2;
        // the segment ended before the chunk; it ends inside the chunk's bytes
        self.seg_rem_m16.next = self.seg_rem.q.val() - 16;
        self.pkt_rem_m16.next = self.pkt_rem.q.val() - 16;
        self.sj_done.d.next = self.seg_rem.q.val().get_bit(31) | !self.seg_rem.q.val().any();
        self.seg_lt_pkt.next = self.seg_rem.q.val() < self.pkt_rem.q.val();
        self.sj_inside.d.next = (self.seg_rem.q.val() < 16) & self.seg_lt_pkt.val();
        // (seg_rem - 16 <= 0, signed, without the subtraction: seg_rem negative, or below 17)
        self.sr_done_now.next = self.seg_rem.q.val().get_bit(31)
            | (!self.seg_rem.q.val().get_bits::<26>(5).any() & (self.seg_rem.q.val().get_bits::<5>(0) <= 16));
        self.sr_done.d.next = self.sr_done_now.val();
        // (seg_rem - 16 < 16 and < pkt_rem - 16, unsigned, without the two subtractions
        // in a row: seg_rem is in [16, 32), and pkt_rem - 16 is above it when pkt_rem is
        // either larger or below 16, where its subtraction wraps)
        self.sr_inside.d.next = (self.seg_rem.q.val().get_bits::<28>(4) == 1)
            & (self.seg_lt_pkt.val() | !self.pkt_rem.q.val().get_bits::<28>(4).any());
        self.sj_ok.d.next = !(self.seg_rem.q.val().get_bit(31) | !self.seg_rem.q.val().any()) & !((self.seg_rem.q.val() < 16) & self.seg_lt_pkt.val());
        self.sr_ok.d.next = !self.sr_done_now.val()
            & !((self.seg_rem.q.val().get_bits::<28>(4) == 1) & (self.seg_lt_pkt.val() | !self.pkt_rem.q.val().get_bits::<28>(4).any()));
        self.seg_done.next = self.sj_done.q.val();
        self.seg_inside.next = self.sj_inside.q.val();
        if self.sj_retired.q.val() {
            self.seg_done.next = self.sr_done.q.val();
            self.seg_inside.next = self.sr_inside.q.val();
        }
        self.lo_mask.next = self.ones16.val();
        // (a segment that started at or before the chunk has seg_lo 0 or wrapped past 15)
        if self.seg_lo.q.val() < 16 {
            self.lo_mask.next = self.ones16.val() << bit_cast::<16, 4>(self.seg_lo.q.val().get_bits::<4>(0));
        }
        self.hi_mask.next = self.ones16.val();
        if self.seg_rem.q.val() < 16 {
            self.hi_mask.next = !(self.ones16.val() << bit_cast::<16, 4>(self.seg_rem.q.val().get_bits::<4>(0)));
        }
        self.cnt_rx_packet.next = false;
        self.cnt_rx_bytes.next = self.r_len.q.val();
        self.cnt_drop_qp.next = false;
        self.cnt_drop_state.next = false;
        self.cnt_drop_psn.next = false;
        self.cnt_drop_nobuf.next = false;
        self.cnt_nak.next = false;
        self.cnt_unsupported.next = false;
        self.cnt_duplicate.next = false;
        // requests since the last ACK (a READ, answered by its response, counts none)
        self.ack_inc.next = self.msg.q.val().get_bits::<3>(5) + 1;
        self.ack_due.next = self.r_ack_req.q.val() | (self.ack_every.val().any() & (self.ack_inc.val() >= self.ack_every.val()));
        self.ack_cnt_next.next = self.ack_inc.val();
        if self.ack_due.val() {
            self.ack_cnt_next.next = 0.into();
        }
        if self.v_class.q.val() == self.class_read_request.val() {
            self.ack_due.next = false;
            self.ack_cnt_next.next = self.msg.q.val().get_bits::<3>(5);
        }
        self.psn_diff.next = self.r_psn.q.val() - self.qpc.q.val().get_bits::<24>(96);
        self.op_info.opcode.next = self.r_opcode.q.val();
        self.in_msg.next = self.msg.q.val().get_bit(0);
        self.pmtu.next = self.qpc.q.val().get_bits::<3>(4);
        // the path MTU, and a READ's length in whole MTUs and what is left of one
        self.path_mtu.code.next = self.pmtu.val();
        self.path_mtu.len.next = self.r_dma_len.q.val();
        self.qp_state.next = self.qpc.q.val().get_bits::<3>(0);
        self.forget_hit.d.next = false;
        for q in 0..64 {
            if self.r_qpn.q.val().get_bits::<6>(0) == self.qp_id[q].val() {
                self.forget_hit.d.next = self.forget.q.val().get_bit(q);
            }
        }
        self.forget_next.next = self.forget.q.val();
        self.flush_next.next = self.flush_bits.q.val();
        self.fhit.d.next = false;
        self.fhit_qp.d.next = self.fscan.q.val();
        for q in 0..64 {
            if self.fscan.q.val() == self.qp_id[q].val() {
                self.fhit.d.next = self.flush_bits.q.val().get_bit(q);
            }
        }
        self.msg_new.next = self.msg.q.val();
        self.pay_q.s_data.next = self.payload.data_out.val();
        self.pay_q.s_valid.next = !self.payload.empty.val();
        self.payload.read.next = !self.payload.empty.val() & self.pay_q.s_ready.val();
        self.head.next = self.pay_q.m_data.val();
        // the chunk behind the one in hand takes the FIFO's head whenever it is empty: its
        // 145 flip-flops' enable is a register (`k_valid` says whether what it holds counts)
        if !self.k_valid.q.val() {
            self.k_final.d.next = self.left.q.val() == 1;
            self.k_data.d.next = self.head.val().get_bits::<128>(0);
            self.k_strb.d.next = self.head.val().get_bits::<16>(128);
        }
        self.take.next = false;
        match self.state.q.val() {
            ResponderState::Idle => {
                // with no packet waiting, the QPs are looked at in turn for receive WQEs to
                // flush (while some QP has them: otherwise the scan stands still)
                if self.flush_bits.q.val().any() {
                    self.fscan.d.next = self.fscan.q.val() + 1;
                }
                if !self.rec_out.m_valid.val() & self.fhit.q.val() {
                    self.r_qpn.d.next = bit_cast::<24, 6>(self.fhit_qp.q.val());
                    for q in 0..64 {
                        if self.fhit_qp.q.val() == self.qp_id[q].val() {
                            self.flush_next.next = self.flush_next.val() & !self.bit_of_qp[q].val();
                        }
                    }
                    self.qp_asked.d.next = false;
                    self.state.d.next = ResponderState::FlushCtx;
                }
                if self.rec_out.m_valid.val() {
                    self.rec_out.m_ready.next = true;
                    self.r_opcode.d.next = self.rec_out.m_data.val().get_bits::<8>(0);
                    self.r_ack_req.d.next = self.rec_out.m_data.val().get_bit(8);
                    self.r_status.d.next = self.rec_out.m_data.val().get_bits::<2>(9);
                    self.r_lost.d.next = self.rec_out.m_data.val().get_bit(11);
                    self.r_qpn.d.next = self.rec_out.m_data.val().get_bits::<24>(16);
                    self.r_psn.d.next = self.rec_out.m_data.val().get_bits::<24>(40);
                    self.r_va.d.next = self.rec_out.m_data.val().get_bits::<64>(64);
                    self.r_rkey.d.next = self.rec_out.m_data.val().get_bits::<32>(128);
                    self.r_dma_len.d.next = self.rec_out.m_data.val().get_bits::<32>(160);
                    self.r_len.d.next = self.rec_out.m_data.val().get_bits::<16>(192);
                    self.r_kept.d.next = self.rec_out.m_data.val().get_bits::<16>(208);
                    self.r_orphans.d.next = self.rec_out.m_data.val().get_bits::<16>(224);
                    self.r_orphans_nz.d.next = self.rec_out.m_data.val().get_bits::<16>(224).any();
                    self.r_solicited.d.next = self.rec_out.m_data.val().get_bit(12);
                    self.r_immdt.d.next = self.rec_out.m_data.val().get_bits::<32>(256);
                    self.state.d.next = ResponderState::Skip;
                }
            }
            ResponderState::Skip => {
                // the beats of packets whose record was lost come first
                self.take.next = self.r_orphans_nz.q.val() & self.pay_q.m_valid.val();
                if self.take.val() {
                    self.pay_q.m_ready.next = true;
                    self.r_orphans.d.next = self.r_orphans.q.val() - 1;
                    self.r_orphans_nz.d.next = self.r_orphans.q.val() != 1;
                }
                if !self.r_orphans_nz.q.val() {
                    self.state.d.next = ResponderState::Lookup;
                }
            }
            ResponderState::Lookup => {
                // bad frames were counted by the parser's status; the rest by reason here
                self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept_nz.q.val();
                self.state.d.next = ResponderState::Discard;
                if self.r_status.q.val() == 0 {
                    if self.op_info.op_class.val() == self.class_read_response.val() {
                        // a READ response: the completer says whether it lands
                        self.state.d.next = ResponderState::RdVerdict;
                    } else if self.op_info.op_class.val() == self.class_acknowledge.val() {
                        // the completer's alone (it sees every record too)
                    } else if self.r_lost.q.val() {
                        self.cnt_drop_nobuf.next = true;
                    } else if (self.r_qpn.q.val() >= 64) | (self.r_qpn.q.val() < 2) {
                        self.cnt_drop_qp.next = true;
                    } else if (self.op_info.op_class.val() != self.class_write.val())
                        & (self.op_info.op_class.val() != self.class_send.val())
                        & (self.op_info.op_class.val() != self.class_read_request.val())
                    {
                        // (RdmaRxParse marks opcodes outside the table: none come here)
                        self.cnt_unsupported.next = true;
                    } else {
                        self.state.d.next = ResponderState::QpWait;
                        self.qp_asked.d.next = false;
                    }
                }
            }
            ResponderState::QpWait => {
                self.qp_valid.next = !self.qp_asked.q.val();
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.qpc.d.next = self.qp_rdata.val();
                    // a QP stored in RESET since its last packet starts afresh (chosen
                    // here, not in Check: `msg`'s enable stays a short decode)
                    self.msg.d.next = self.msg_rd.q.val();
                    if self.forget_hit.q.val() {
                        self.msg.d.next = 0.into();
                    }
                    self.rq_pi.d.next = self.rq_pi_rd.q.val();
                    self.fresh.d.next = self.forget_hit.q.val();
                    self.state.d.next = ResponderState::Check;
                    self.k_key.d.next = self.r_rkey.q.val();
                    self.k_va.d.next = self.r_va.q.val();
                    self.k_len.d.next = self.r_dma_len.q.val();
                    if !self.op_info.starts.val() {
                        self.k_key.d.next = self.wkey_rd.q.val().get_bits::<32>(0);
                        self.k_va.d.next = self.wkey_rd.q.val().get_bits::<64>(32);
                        self.k_len.d.next = bit_cast::<32, 16>(self.r_len.q.val());
                    }
                }
            }
            ResponderState::Check => {
                // a fresh QP's message state was cleared as it loaded; it is remembered
                if self.fresh.q.val() {
                    for q in 0..64 {
                        if self.r_qpn.q.val().get_bits::<6>(0) == self.qp_id[q].val() {
                            self.forget_next.next = self.forget_next.val() & !self.bit_of_qp[q].val();
                        }
                    }
                }
                self.v_state_ok.d.next = (self.qp_state.val() == self.state_rtr.val()) | (self.qp_state.val() == self.state_rts.val());
                self.v_psn_ok.d.next = !self.psn_diff.val().any();
                // (the model's psn_cmp: PSN - RQ_PSN with bit 23 set is before it)
                self.v_dup.d.next = self.psn_diff.val().get_bit(23);
                self.v_exp.d.next = self.qpc.q.val().get_bits::<24>(96);
                self.v_exp_m1.d.next = self.qpc.q.val().get_bits::<24>(96) - 1;
                self.a_psn.d.next = self.r_psn.q.val();
                // in a message: the same class, not a start; else a start
                self.v_seq_ok.d.next = self.op_info.starts.val();
                if self.in_msg.val() {
                    self.v_seq_ok.d.next = (self.msg.q.val().get_bits::<3>(1) == self.op_info.op_class.val()) & !self.op_info.starts.val();
                }
                self.mtu.d.next = self.path_mtu.bytes.val();
                self.v_starts.d.next = self.op_info.starts.val();
                self.v_ends.d.next = self.op_info.ends.val();
                self.v_class.d.next = self.op_info.op_class.val();
                self.v_immdt.d.next = self.op_info.immdt.val();
                self.rq_ci.d.next = self.qpc.q.val().get_bits::<16>(368);
                self.rq_none.d.next = self.qpc.q.val().get_bits::<16>(368) == self.rq_pi.q.val();
                self.rq_mask.d.next = !(self.ones16.val() << bit_cast::<16, 4>(self.qpc.q.val().get_bits::<4>(336)));
                self.bus.d.next = self.msg.q.val().get_bits::<64>(32);
                self.remaining.d.next = self.msg.q.val().get_bits::<32>(96);
                self.w_over.d.next = bit_cast::<32, 16>(self.r_len.q.val()) > self.msg.q.val().get_bits::<32>(96);
                self.w_short.d.next = bit_cast::<32, 16>(self.r_len.q.val()) != self.msg.q.val().get_bits::<32>(96);
                self.v_not_mtu.d.next = self.r_len.q.val() != self.path_mtu.bytes.val();
                self.state.d.next = ResponderState::Decide;
                self.mr_ok.d.next = true;
                // a WRITE First or Only, a READ: ask the MR table about its RETH; a later
                // WRITE packet about its own bytes (`k_*`)
                self.v_need.d.next = self.remote_write.val();
                if self.op_info.op_class.val() == self.class_read_request.val() {
                    self.v_need.d.next = self.remote_read.val();
                }
                self.w_epoch.d.next = self.mr_epoch.q.val();
                if ((self.op_info.op_class.val() == self.class_write.val()) & (self.op_info.starts.val() | !self.epoch_same.q.val()))
                    | (self.op_info.op_class.val() == self.class_read_request.val())
                {
                    self.mr_check.in_valid.next = true;
                    self.state.d.next = ResponderState::MrWait;
                }
            }
            ResponderState::MrWait => {
                if self.mr_check.out_valid.val() {
                    // the QP must accept remote writes too (for a non-empty write)
                    self.mr_ok.d.next = self.mr_check.out_ok.val()
                        & (!self.k_len.q.val().any() | ((self.qpc.q.val().get_bits::<3>(56) & self.v_need.q.val()) == self.v_need.q.val()));
                    // a later packet keeps the message's place and count (the same bus
                    // address: a key names one registration)
                    if self.v_starts.q.val() {
                        self.bus.d.next = self.mr_check.out_bus.val();
                        self.remaining.d.next = self.r_dma_len.q.val();
                        self.w_over.d.next = bit_cast::<32, 16>(self.r_len.q.val()) > self.r_dma_len.q.val();
                        self.w_short.d.next = bit_cast::<32, 16>(self.r_len.q.val()) != self.r_dma_len.q.val();
                    }
                    self.state.d.next = ResponderState::Decide;
                }
            }
            ResponderState::Decide => {
                self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept_nz.q.val();
                self.took_new.d.next = false;
                self.rf_status.d.next = 0.into();
                self.owe_read.d.next = false;
                // RQ_PSN's step: a READ takes a PSN per packet of its response (an empty one, one)
                self.psn_step.d.next = 1.into();
                if (self.v_class.q.val() == self.class_read_request.val()) & self.r_dma_len.q.val().any() {
                    self.psn_step.d.next = self.read_pkts.q.val();
                }
                // a SEND's first packet and a WRITE with immediate take a receive WQE (a SEND's
                // later packets find its checked list in `sge_ram`, its id and total in `msg`)
                self.need_new.next = ((self.v_class.q.val() == self.class_send.val()) & self.v_starts.q.val())
                    | ((self.v_class.q.val() == self.class_write.val()) & self.v_immdt.q.val());
                self.recv_cqe.d.next = self.v_ends.q.val() & ((self.v_class.q.val() == self.class_send.val()) | self.v_immdt.q.val());
                self.cnt_rx_packet.next = self.v_state_ok.q.val();
                if !self.v_state_ok.q.val() {
                    self.cnt_drop_state.next = true;
                    self.state.d.next = ResponderState::Discard;
                } else if !self.v_psn_ok.q.val() & self.v_dup.q.val() {
                    // a duplicate: answered again, never executed (the model's
                    // `out_of_sequence`); a READ's response is read again from memory
                    self.cnt_duplicate.next = true;
                    self.syn.d.next = self.syn_ack.val();
                    self.a_psn.d.next = self.v_exp_m1.q.val();
                    self.state.d.next = ResponderState::DupAnswer;
                    if self.v_class.q.val() == self.class_read_request.val() {
                        self.a_psn.d.next = self.r_psn.q.val();
                        self.owe_read.d.next = true;
                        if !self.mr_ok.q.val() {
                            self.owe_read.d.next = false;
                            self.syn.d.next = self.syn_access.val();
                            self.state.d.next = ResponderState::Nak;
                        }
                    }
                } else if !self.v_psn_ok.q.val() {
                    // ahead of a gap: the first such packet gets a NAK PSN sequence error
                    // for the expected PSN (remembered in the message state's bit 4 until
                    // the expected PSN comes), the rest are dropped
                    self.cnt_drop_psn.next = true;
                    self.state.d.next = ResponderState::Discard;
                    if !self.msg.q.val().get_bit(4) {
                        self.syn.d.next = self.syn_seq.val();
                        self.a_psn.d.next = self.v_exp.q.val();
                        self.msg.d.next = self.msg.q.val() | self.seq_nak_sent.val();
                        self.state.d.next = ResponderState::SeqNak;
                    }
                } else if !self.v_seq_ok.q.val() | (!self.v_ends.q.val() & self.v_not_mtu.q.val()) {
                    self.syn.d.next = self.syn_invalid.val();
                    self.state.d.next = ResponderState::Nak;
                } else if !self.mr_ok.q.val() {
                    self.syn.d.next = self.syn_access.val();
                    self.state.d.next = ResponderState::Nak;
                } else if (self.v_class.q.val() == self.class_write.val()) & (self.w_over.q.val() | (self.v_ends.q.val() & self.w_short.q.val())) {
                    self.syn.d.next = self.syn_invalid.val();
                    self.state.d.next = ResponderState::Nak;
                } else {
                    self.syn.d.next = self.syn_ack.val();
                    self.state.d.next = ResponderState::Start;
                    if self.v_class.q.val() == self.class_send.val() {
                        self.state.d.next = ResponderState::Start0;
                    }
                    self.owe_read.d.next = self.v_class.q.val() == self.class_read_request.val();
                    if self.need_new.val() & self.rq_none.q.val() {
                        // no receive WQE posted: RNR NAK, the QP stays as it is
                        self.syn.d.next = self.syn_rnr.val() | bit_cast::<8, 5>(self.qpc.q.val().get_bits::<5>(59));
                        self.state.d.next = ResponderState::RnrNak;
                    } else if self.need_new.val() {
                        self.took_new.d.next = true;
                        self.state.d.next = ResponderState::FetchAddr;
                    }
                }
            }
            ResponderState::RnrNak => {
                self.acks.write.next = !self.acks.full.val();
                if !self.acks.full.val() {
                    self.cnt_nak.next = true;
                    self.state.d.next = ResponderState::Discard;
                }
            }
            ResponderState::DupAnswer => {
                // a duplicate's ACK, or its READ's response owed again on the urgent queue
                // (unless the response going out restarts where it asks, or covers it);
                // its payload dropped
                self.rs_valid.next = self.owe_read.q.val();
                if self.owe_read.q.val() {
                    self.urgent.write.next = !self.urgent.full.val() & !self.rs_take.val();
                    if !self.urgent.full.val() | self.rs_take.val() {
                        self.state.d.next = ResponderState::Discard;
                    }
                } else {
                    self.acks.write.next = !self.acks.full.val();
                    if !self.acks.full.val() {
                        self.state.d.next = ResponderState::Discard;
                    }
                }
            }
            ResponderState::SeqNak => {
                // the NAK owed, the message state's flag stored (`msg` has it)
                self.acks.write.next = !self.acks.full.val();
                if !self.acks.full.val() {
                    self.cnt_nak.next = true;
                    self.msg_ram.write_enable.next = true;
                    self.state.d.next = ResponderState::Discard;
                }
            }
            ResponderState::FetchAddr => {
                // the WQE at RQ_BASE + 128 (index mod 2^RQ_LOG2)
                self.fetch_addr.d.next = (bit_cast::<64, 32>(self.qpc.q.val().get_bits::<32>(288)) | (bit_cast::<64, 12>(self.qpc.q.val().get_bits::<12>(320)) << 32))
                    + (bit_cast::<64, 16>(self.rq_ci.q.val() & self.rq_mask.q.val()) << 7);
                self.fbeat.d.next = 0.into();
                self.f_err.d.next = false;
                self.f_total.d.next = 0.into();
                self.state.d.next = ResponderState::Fetch;
            }
            ResponderState::Fetch => {
                self.dma_rd_req_valid.next = true;
                if self.dma_rd_req_ready.val() {
                    self.state.d.next = ResponderState::FetchData;
                }
            }
            ResponderState::FetchData => {
                // beat 0: wr_id, NUM_SGE; beat 1: nothing a receive uses; beats 2..7: SGEs 0..5
                if self.dma_rd_rsp_valid.val() {
                    self.fbeat.d.next = self.fbeat.q.val() + 1;
                    if self.dma_rd_rsp_error.val() {
                        self.f_err.d.next = true;
                    }
                    if self.fbeat.q.val() == 0 {
                        self.f_wr_id.d.next = self.dma_rd_rsp_data.val().get_bits::<64>(0);
                        self.f_nsge.d.next = self.dma_rd_rsp_data.val().get_bits::<8>(80);
                    }
                    if self.fbeat.q.val() == 2 {
                        // SGE 0: the first SgeCheck's question
                        self.ask_addr.d.next = self.dma_rd_rsp_data.val().get_bits::<64>(0);
                        self.ask_len.d.next = self.dma_rd_rsp_data.val().get_bits::<32>(64);
                        self.ask_key.d.next = self.dma_rd_rsp_data.val().get_bits::<32>(96);
                    }
                    // SGEs 1..5 in at the end, the earlier ones a place on: after beat 7
                    // SGE 1 is at [0]
                    if self.fbeat.q.val() >= 3 {
                        for i in 0..4 {
                            self.sge_next[i].d.next = self.sge_next[i + 1].q.val();
                        }
                        self.sge_next[4].d.next = self.dma_rd_rsp_data.val();
                    }
                    if (self.fbeat.q.val() >= 2) & (bit_cast::<8, 3>(self.sge_beat.val()) < self.f_nsge.q.val()) {
                        self.f_total.d.next = self.f_total.q.val() + bit_cast::<36, 32>(self.dma_rd_rsp_data.val().get_bits::<32>(64));
                    }
                    if self.dma_rd_rsp_last.val() {
                        self.sk.d.next = 0.into();
                        self.sk_p1.d.next = 1.into();
                        self.acc.d.next = 0.into();
                        self.state.d.next = ResponderState::SgeCheck;
                        if self.f_err.q.val() | self.dma_rd_rsp_error.val() {
                            // the WQE could not be read: NAK remote operational error (a
                            // READ's: the READ fails LOC_QP_OP_ERR, as the requester fails one)
                            self.syn.d.next = self.syn_remote_op.val();
                            self.state.d.next = ResponderState::Nak;
                            if self.landing.q.val() {
                                self.rf_status.d.next = self.st_loc_qp_op.val();
                                self.state.d.next = ResponderState::RdDone;
                            }
                        }
                    }
                }
            }
            ResponderState::SgeCheck => {
                // the model's resolve_local: the SGE count, the total, then each SGE against
                // the MR table (lkey current, the QP's PD, LOCAL_WRITE, inside the region)
                self.syn.d.next = self.syn_remote_op.val();
                if self.f_nsge.q.val() > 6 {
                    self.rf_status.d.next = self.st_loc_qp_op.val();
                    self.state.d.next = ResponderState::RecvFail;
                } else if self.f_total.q.val() > 0x7fff_ffff {
                    self.rf_status.d.next = self.st_loc_len.val();
                    self.state.d.next = ResponderState::RecvFail;
                } else if bit_cast::<8, 3>(self.sk.q.val()) == self.f_nsge.q.val() {
                    self.state.d.next = ResponderState::Start0;
                    // a READ's list must still hold what the READ asked for
                    if self.landing.q.val() & (self.f_total.q.val() != bit_cast::<36, 32>(self.l_len.q.val())) {
                        self.rf_status.d.next = self.st_loc_len.val();
                        self.state.d.next = ResponderState::RecvFail;
                    }
                } else {
                    self.mr_check.in_valid.next = true;
                    self.state.d.next = ResponderState::SgeWait;
                }
                self.mr_check.in_key.next = self.ask_key.q.val();
                self.mr_check.in_addr.next = self.ask_addr.q.val();
                self.mr_check.in_len.next = self.ask_len.q.val();
                self.mr_check.in_need.next = self.local_write.val();
                if self.landing.q.val() {
                    self.mr_check.in_pd.next = self.l_pd.q.val();
                }
            }
            ResponderState::SgeWait => {
                if self.mr_check.out_valid.val() & !self.mr_check.out_ok.val() {
                    self.rf_status.d.next = self.st_loc_prot.val();
                    self.state.d.next = ResponderState::RecvFail;
                } else if self.mr_check.out_valid.val() {
                    // the SGE as the scatter wants it: bus address less its first message
                    // offset (registered: the subtraction and the RAM's data input in a
                    // cycle each, 156.25 MHz), and the offset past its end
                    self.sgw_bus.d.next = self.mr_check.out_bus.val() - bit_cast::<64, 32>(self.acc.q.val());
                    self.state.d.next = ResponderState::SgeWrite;
                }
            }
            ResponderState::SgeWrite => {
                self.sge_ram.write_enable.next = true;
                self.sge_ram.write_data.next = bit_cast::<96, 64>(self.sgw_bus.q.val()) | (bit_cast::<96, 32>(self.sk_end.q.val()) << 64);
                self.acc.d.next = self.sk_end.q.val();
                self.sk.d.next = self.sk_p1.q.val();
                self.sk_p1.d.next = self.sk_p1.q.val() + 1;
                // the next SGE's question, and the list a place on
                self.ask_addr.d.next = self.sge_next[0].q.val().get_bits::<64>(0);
                self.ask_len.d.next = self.sge_next[0].q.val().get_bits::<32>(64);
                self.ask_key.d.next = self.sge_next[0].q.val().get_bits::<32>(96);
                for i in 0..4 {
                    self.sge_next[i].d.next = self.sge_next[i + 1].q.val();
                }
                self.state.d.next = ResponderState::SgeCheck;
            }
            ResponderState::RecvFail => {
                // the receive WQE completes with the error, then the NAK (remote operational
                // error; invalid request for a SEND longer than the WQE); a READ's list: the
                // READ fails
                if self.landing.q.val() {
                    self.state.d.next = ResponderState::RdDone;
                } else {
                    self.cqe_valid.next = true;
                    if self.cqe_ready.val() {
                        self.state.d.next = ResponderState::Nak;
                    }
                }
            }
            ResponderState::Start0 => {
                // a SEND: its segment 0 reaches `sge_q` (the RAM's address was set before)
                self.state.d.next = ResponderState::Start;
            }
            ResponderState::Start => {
                // the segments the payload goes to: a WRITE's one (from its bus address on), a
                // SEND's scatter-gather list from the bytes already received on
                self.syn.d.next = self.syn_ack.val();
                self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept_nz.q.val();
                self.c_valid.d.next = false;
                self.k_valid.d.next = false;
                self.seg_k.d.next = 0.into();
                self.seg_lo.d.next = 0.into();
                self.c_off.d.next = 0.into();
                self.pkt_rem.d.next = bit_cast::<32, 16>(self.r_len.q.val());
                self.cur_delta.d.next = self.bus.q.val();
                self.seg_rem.d.next = 0x7fff_ffffu64.into();
                self.state.d.next = ResponderState::Data;
                // segment 1 reaches `sge_q` a cycle into Data
                self.adv_wait.d.next = 1.into();
                // (an empty packet too passes through Data, for a cycle: Update's sums are
                // registered from what Start leaves)
                if self.landing.q.val() {
                    // a READ response: its landing list from the packet's offset on
                    self.cur_delta.d.next = self.sge_q.q.val().get_bits::<64>(0);
                    self.c_off.d.next = self.l_off.q.val();
                    self.seg_rem.d.next = self.sge_q.q.val().get_bits::<32>(64) - self.l_off.q.val();
                    self.seg_lo.d.next = self.zero32.val() - self.l_off.q.val();
                } else if self.v_class.q.val() == self.class_send.val() {
                    self.cur_delta.d.next = self.sge_q.q.val().get_bits::<64>(0);
                    self.seg_rem.d.next = self.sge_q.q.val().get_bits::<32>(64);
                    // `bus` carries the bytes received so far (Update adds this packet's)
                    self.bus.d.next = 0.into();
                    if !self.v_starts.q.val() {
                        self.bus.d.next = bit_cast::<64, 32>(self.msg.q.val().get_bits::<32>(32));
                        self.c_off.d.next = self.msg.q.val().get_bits::<32>(32);
                        self.seg_rem.d.next = self.sge_q.q.val().get_bits::<32>(64) - self.msg.q.val().get_bits::<32>(32);
                        self.seg_lo.d.next = self.zero32.val() - self.msg.q.val().get_bits::<32>(32);
                        self.f_wr_id.d.next = self.msg.q.val().get_bits::<64>(64);
                        self.acc.d.next = self.msg.q.val().get_bits::<32>(128);
                    }
                    if self.send_over_later.q.val() & !self.v_starts.q.val() {
                        self.rf_status.d.next = self.st_loc_len.val();
                        self.syn.d.next = self.syn_invalid.val();
                        self.state.d.next = ResponderState::RecvFail;
                    }
                    if self.send_over_first.q.val() & self.v_starts.q.val() {
                        self.rf_status.d.next = self.st_loc_len.val();
                        self.syn.d.next = self.syn_invalid.val();
                        self.state.d.next = ResponderState::RecvFail;
                    }
                }
            }
            ResponderState::Nak => {
                // the NAK is owed, the QP goes to ERR (the model moves it first, then sends)
                self.acks.write.next = !self.acks.full.val();
                if !self.acks.full.val() {
                    self.cnt_nak.next = true;
                    self.state.d.next = ResponderState::NakStore;
                    self.qp_asked.d.next = false;
                }
            }
            ResponderState::NakStore => {
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.state_bits.val();
                self.qp_wdata.next = self.state_err.val();
                if self.took_new.q.val() {
                    self.qp_mask.next = self.state_bits.val() | self.rq_ci_bits.val();
                    self.qp_wdata.next = self.state_err.val() | (bit_cast::<384, 16>(self.rq_ci.q.val() + 1) << 368);
                }
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.left.d.next = self.r_kept.q.val();
                    self.left_nz.d.next = self.r_kept_nz.q.val();
                    self.state.d.next = ResponderState::Discard;
                    // the QP is in ERR now: its posted receive WQEs are flushed
                    for q in 0..64 {
                        if self.r_qpn.q.val().get_bits::<6>(0) == self.qp_id[q].val() {
                            self.flush_next.next = self.flush_next.val() | self.bit_of_qp[q].val();
                        }
                    }
                }
            }
            ResponderState::Data => {
                // the payload's 16-byte chunks (lanes 0..7, 8..15) at message offset c_off,
                // one a cycle: the next is taken as the one in hand leaves (below)
                // the scatter: the chunk goes out once per segment it touches, at the
                // segment's bus address for its offset, with the other segments' bytes masked
                self.sc_go.next = self.c_valid.q.val() & !self.adv_wait.q.val().any() & self.w_free.val();
                if self.sc_go.val() {
                    if self.seg_done.val() {
                        self.seg_adv.next = true;
                    } else {
                        self.sc_write.next = true;
                        self.w_valid.d.next = true;
                        self.w_addr.d.next = self.cur_delta.q.val() + bit_cast::<64, 32>(self.c_off.q.val());
                        self.w_data.d.next = self.c_data.q.val();
                        self.w_strb.d.next = self.c_strb.q.val() & self.lo_mask.val() & self.hi_mask.val();
                        self.w_last.d.next = false;
                        if self.seg_inside.val() {
                            self.seg_adv.next = true;
                        } else {
                            self.c_retire.next = true;
                            self.c_valid.d.next = false;
                            self.c_off.d.next = self.c_off.q.val() + 16;
                            self.seg_rem.d.next = self.seg_rem_m16.val();
                            self.seg_lo.d.next = self.seg_lo.q.val() - 16;
                            self.pkt_rem.d.next = self.pkt_rem_m16.val();
                            self.w_last.d.next = self.c_final.q.val();
                        }
                    }
                }
                if self.seg_adv.val() {
                    self.seg_k.d.next = self.next_k.val();
                    self.seg_lo.d.next = self.seg_rem.q.val();
                    self.cur_delta.d.next = self.sge_q.q.val().get_bits::<64>(0);
                    self.seg_rem.d.next = self.sge_q.q.val().get_bits::<32>(64) - self.c_off.q.val();
                    self.adv_wait.d.next = 2.into();
                }
                // (the retire decision in short: every input a register, `seg_ok` one mux)
                self.c_free.next = !self.c_valid.q.val() | (!self.adv_wait.q.val().any() & self.w_free.val() & self.seg_ok.val());
                self.take.next = self.left_nz.q.val() & self.pay_q.m_valid.val() & !self.k_valid.q.val();
                if self.take.val() {
                    self.pay_q.m_ready.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                    self.left_nz.d.next = self.left.q.val() != 1;
                    if !self.c_free.val() {
                        self.k_valid.d.next = true;
                    }
                }
                // the chunk in hand refilled whenever it is free: from the one behind if
                // there is one, else from the FIFO (the registers' enable is `c_free`
                // alone, their source picked by a register; `c_valid` says if it counts)
                if self.c_free.val() {
                    self.c_valid.d.next = self.k_valid.q.val() | self.take.val();
                    self.c_final.d.next = self.left.q.val() == 1;
                    self.c_data.d.next = self.head.val().get_bits::<128>(0);
                    self.c_strb.d.next = self.head.val().get_bits::<16>(128);
                    if self.k_valid.q.val() {
                        self.c_final.d.next = self.k_final.q.val();
                        self.c_data.d.next = self.k_data.q.val();
                        self.c_strb.d.next = self.k_strb.q.val();
                        self.k_valid.d.next = false;
                    }
                }
                // every write of the packet out of the slice too (the ACK follows them)
                if !self.left_nz.q.val() & !self.c_valid.q.val() & !self.k_valid.q.val() & !self.w_valid.q.val() & !self.w_out.m_valid.val() {
                    self.state.d.next = ResponderState::Update;
                }
            }
            ResponderState::Update => {
                // the message state: in a message unless this packet ends it, its class,
                // the MSN counting ended messages, where the next byte goes, what is left
                self.msg_new.next = (bit_cast::<160, 3>(self.v_class.q.val()) << 1)
                    | (bit_cast::<160, 24>(self.msg.q.val().get_bits::<24>(8)) << 8)
                    | (bit_cast::<160, 64>(self.upd_bus.q.val()) << 32)
                    | (bit_cast::<160, 32>(self.upd_rem.q.val()) << 96)
                    | (bit_cast::<160, 32>(self.msg.q.val().get_bits::<32>(128)) << 128)
                    | 1;
                if self.v_starts.q.val() {
                    self.msg_new.next = self.msg_new.val() | (bit_cast::<160, 32>(self.r_dma_len.q.val()) << 128);
                }
                if self.v_class.q.val() == self.class_send.val() {
                    // a SEND: the bytes received, the receive WQE's id and its list's total
                    self.msg_new.next = (bit_cast::<160, 3>(self.v_class.q.val()) << 1)
                        | (bit_cast::<160, 24>(self.msg.q.val().get_bits::<24>(8)) << 8)
                        | (bit_cast::<160, 32>(self.upd_bus.q.val().get_bits::<32>(0)) << 32)
                        | (bit_cast::<160, 64>(self.f_wr_id.q.val()) << 64)
                        | (bit_cast::<160, 32>(self.acc.q.val()) << 128)
                        | 1;
                }
                if self.v_ends.q.val() {
                    self.msg_new.next = (bit_cast::<160, 3>(self.v_class.q.val()) << 1)
                        | (bit_cast::<160, 24>(self.upd_msn.q.val()) << 8);
                }
                self.msg.d.next = self.msg_new.val() | (bit_cast::<160, 3>(self.ack_cnt_next.val()) << 5);
                self.ack_now.d.next = self.ack_due.val();
                // the receive CQE's byte count: a SEND's bytes received, a WRITE's whole length
                self.cqe_len.d.next = self.upd_bus.q.val().get_bits::<32>(0);
                if self.v_class.q.val() == self.class_write.val() {
                    self.cqe_len.d.next = self.msg.q.val().get_bits::<32>(128);
                    if self.v_starts.q.val() {
                        self.cqe_len.d.next = self.r_dma_len.q.val();
                    }
                }
                self.state.d.next = ResponderState::UpdateWait;
                self.qp_asked.d.next = false;
                if self.landing.q.val() {
                    // a READ response changes nothing here (the completer counts its bytes)
                    self.state.d.next = ResponderState::RdDone;
                }
            }
            ResponderState::UpdateWait => {
                self.msg_ram.write_enable.next = !self.qp_asked.q.val();
                self.wkey_ram.write_enable.next = !self.qp_asked.q.val();
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.rq_psn_bits.val();
                self.qp_wdata.next = bit_cast::<384, 24>(self.r_psn.q.val() + self.psn_step.q.val()) << 96;
                if self.took_new.q.val() {
                    self.qp_mask.next = self.rq_psn_bits.val() | self.rq_ci_bits.val();
                    self.qp_wdata.next = (bit_cast::<384, 24>(self.r_psn.q.val() + 1) << 96) | (bit_cast::<384, 16>(self.rq_ci.q.val() + 1) << 368);
                }
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.state.d.next = ResponderState::Idle;
                    if self.recv_cqe.q.val() {
                        self.state.d.next = ResponderState::CqeOut;
                    } else if self.ack_now.q.val() | self.owe_read.q.val() {
                        // a READ owes its response (never an ACK of its own)
                        self.state.d.next = ResponderState::AckOwed;
                    }
                }
            }
            ResponderState::CqeOut => {
                // RECV (a SEND) or RECV_RDMA_WITH_IMM, the bytes, the immediate and SE flags
                self.cqe_valid.next = true;
                self.cqe_word.next = self.cqe_word.val() | (bit_cast::<256, 32>(self.cqe_len.q.val()) << 64);
                if self.v_immdt.q.val() {
                    self.cqe_word.next = self.cqe_word.val() | (bit_cast::<256, 32>(self.r_immdt.q.val()) << 96) | (Bits::<256>::from(1u64) << 176);
                }
                if self.r_solicited.q.val() {
                    self.cqe_word.next = self.cqe_word.val() | (Bits::<256>::from(2u64) << 176);
                }
                if self.v_class.q.val() == self.class_write.val() {
                    self.cqe_word.next = self.cqe_word.val() | (Bits::<256>::from(1u64) << 160);
                }
                if self.cqe_ready.val() {
                    self.state.d.next = ResponderState::Idle;
                    if self.ack_now.q.val() {
                        self.state.d.next = ResponderState::AckOwed;
                    }
                }
            }
            ResponderState::AckOwed => {
                self.acks.write.next = !self.acks.full.val();
                if !self.acks.full.val() {
                    self.state.d.next = ResponderState::Idle;
                }
            }
            ResponderState::Discard => {
                self.take.next = self.left_nz.q.val() & self.pay_q.m_valid.val();
                if self.take.val() {
                    self.pay_q.m_ready.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                    self.left_nz.d.next = self.left.q.val() != 1;
                }
                if !self.left_nz.q.val() {
                    self.state.d.next = ResponderState::Idle;
                }
            }
            // ---- a QP in ERR: the receive WQE of a SEND in progress, then every posted
            // one, completes WR_FLUSH_ERR in order (the model's `flush`), RQ_CI past each ----
            ResponderState::FlushCtx => {
                self.qp_valid.next = !self.qp_asked.q.val();
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.qpc.d.next = self.qp_rdata.val();
                    self.msg.d.next = self.msg_rd.q.val();
                    self.rq_pi.d.next = self.rq_pi_rd.q.val();
                    self.rq_ci.d.next = self.qp_rdata.val().get_bits::<16>(368);
                    self.fresh.d.next = self.forget_hit.q.val();
                    self.state.d.next = ResponderState::FlushCheck;
                }
            }
            ResponderState::FlushCheck => {
                self.rf_status.d.next = self.st_flush.val();
                self.rq_mask.d.next = !(self.ones16.val() << bit_cast::<16, 4>(self.qpc.q.val().get_bits::<4>(336)));
                self.state.d.next = ResponderState::Idle;
                if self.qp_state.val() == self.state_err3.val() {
                    if self.in_msg.val() & !self.fresh.q.val() & (self.msg.q.val().get_bits::<3>(1) == self.class_send.val()) {
                        // the SEND in progress: its WQE first; the message is over
                        self.f_wr_id.d.next = self.msg.q.val().get_bits::<64>(64);
                        self.state.d.next = ResponderState::FlushRecv;
                    } else if self.rq_ci.q.val() != self.rq_pi.q.val() {
                        self.state.d.next = ResponderState::FlushAddr;
                    }
                }
            }
            ResponderState::FlushRecv => {
                // the message is over: `msg` and the RAM's copy cleared here, in every
                // cycle of the state (the same word each time), so both enables are a
                // short decode of the state (the RAM's, in FlushCheck behind the flush's
                // judgement, missed 156.25 MHz)
                self.msg.d.next = self.msg.q.val() & self.not_in_msg.val();
                self.msg_ram.write_data.next = self.msg.q.val() & self.not_in_msg.val();
                self.msg_ram.write_enable.next = true;
                self.cqe_valid.next = true;
                if self.cqe_ready.val() {
                    self.state.d.next = ResponderState::Idle;
                    if self.rq_ci.q.val() != self.rq_pi.q.val() {
                        self.state.d.next = ResponderState::FlushAddr;
                    }
                }
            }
            ResponderState::FlushAddr => {
                self.fetch_addr.d.next = (bit_cast::<64, 32>(self.qpc.q.val().get_bits::<32>(288)) | (bit_cast::<64, 12>(self.qpc.q.val().get_bits::<12>(320)) << 32))
                    + (bit_cast::<64, 16>(self.rq_ci.q.val() & self.rq_mask.q.val()) << 7);
                self.f_err.d.next = false;
                self.state.d.next = ResponderState::FlushFetch;
            }
            ResponderState::FlushFetch => {
                // the WQE's first 16 bytes: its wr_id
                self.dma_rd_req_valid.next = true;
                self.dma_rd_req_len.next = 16.into();
                if self.dma_rd_req_ready.val() {
                    self.state.d.next = ResponderState::FlushData;
                }
            }
            ResponderState::FlushData => {
                if self.dma_rd_rsp_valid.val() {
                    if self.dma_rd_rsp_error.val() {
                        self.f_err.d.next = true;
                    } else {
                        self.f_wr_id.d.next = self.dma_rd_rsp_data.val().get_bits::<64>(0);
                    }
                    if self.dma_rd_rsp_last.val() {
                        // a WQE the host would not give is passed over without a CQE (as the model's)
                        self.state.d.next = ResponderState::FlushCqe;
                        self.qp_asked.d.next = false;
                        if self.f_err.q.val() | self.dma_rd_rsp_error.val() {
                            self.state.d.next = ResponderState::FlushStore;
                        }
                    }
                }
            }
            ResponderState::FlushCqe => {
                self.cqe_valid.next = true;
                if self.cqe_ready.val() {
                    self.state.d.next = ResponderState::FlushStore;
                }
            }
            ResponderState::FlushStore => {
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.rq_ci_bits.val();
                self.qp_wdata.next = bit_cast::<384, 16>(self.rq_ci.q.val() + 1) << 368;
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.rq_ci.d.next = self.rq_ci.q.val() + 1;
                    self.qp_asked.d.next = false;
                    self.state.d.next = ResponderState::Idle;
                    if !self.rq_one_left.q.val() {
                        self.state.d.next = ResponderState::FlushAddr;
                    }
                }
            }
            // ---- a READ response: the completer's verdict, in record order ----
            ResponderState::RdVerdict => {
                self.vd_ready.next = true;
                if self.vd_valid.val() {
                    self.landing.d.next = self.vd_ok.val();
                    self.l_pd.d.next = self.vd_pd.val();
                    self.l_len.d.next = self.vd_len.val();
                    self.l_off.d.next = self.vd_offset.val();
                    self.l_lost.d.next = self.r_lost.q.val();
                    self.rf_status.d.next = 0.into();
                    self.state.d.next = ResponderState::Discard;
                    if self.vd_ok.val() {
                        if self.r_lost.q.val() {
                            self.cnt_drop_nobuf.next = true;
                            self.state.d.next = ResponderState::RdDone;
                        } else if !self.r_kept_nz.q.val() {
                            // an empty READ's only response: nothing to land
                            self.state.d.next = ResponderState::RdDone;
                        } else if !self.vd_offset.val().any() {
                            // the first packet: the READ's WQE, its list checked (LOCAL_WRITE)
                            self.fetch_addr.d.next = self.vd_wqe_addr.val();
                            self.fbeat.d.next = 0.into();
                            self.f_err.d.next = false;
                            self.f_total.d.next = 0.into();
                            self.state.d.next = ResponderState::Fetch;
                        } else {
                            self.state.d.next = ResponderState::Start0;
                        }
                    }
                }
            }
            ResponderState::RdDone => {
                self.rr_valid.next = true;
                if self.rr_ready.val() {
                    self.landing.d.next = false;
                    self.state.d.next = ResponderState::Discard;
                }
            }
            _ => {
                self.state.d.next = ResponderState::Idle;
            }
        }
        // QPs that may have receive WQEs to flush: moved to ERR by another role or the
        // driver, or a doorbell rang (a QP in ERR flushes what is posted to it)
        for q in 0..64 {
            if (self.qp_err.val() & (self.qp_err_index.val() == self.qp_id[q].val()))
                | (self.qp_store.val() & (self.qp_store_state.val() == self.state_err3.val()) & (self.qp_store_index.val() == self.qp_id[q].val()))
                | (self.rq_db_valid.val() & (self.rq_db_qpn.val() < 64) & (self.rq_db_qpn.val().get_bits::<6>(0) == self.qp_id[q].val()))
            {
                self.flush_next.next = self.flush_next.val() | self.bit_of_qp[q].val();
            }
        }
        self.flush_bits.d.next = self.flush_next.val();
        // the driver's RESET stores (after the clear above: a new store wins)
        if self.qp_store.val() & (self.qp_store_state.val() == self.state_reset.val()) {
            for q in 0..64 {
                if self.qp_store_index.val() == self.qp_id[q].val() {
                    self.forget_next.next = self.forget_next.val() | self.bit_of_qp[q].val();
                }
            }
        }
        self.forget.d.next = self.forget_next.val();
        // the write on offer holds until the slice takes it
        if self.w_valid.q.val() & self.w_out.s_ready.val() & !self.sc_write.val() {
            self.w_valid.d.next = false;
        }
        self.cqe_entry.next = self.cqe_word.val();
        self.w_out.s_valid.next = self.w_valid.q.val();
        self.w_out.s_data.next = bit_cast::<209, 64>(self.w_addr.q.val()) | (bit_cast::<209, 128>(self.w_data.q.val()) << 64)
            | (bit_cast::<209, 16>(self.w_strb.q.val()) << 192) | (bit_cast::<209, 1>(self.w_last.q.val().into()) << 208);
        self.w_out.m_ready.next = self.dma_wr_ready.val();
        self.dma_wr_valid.next = self.w_out.m_valid.val();
        self.dma_wr_addr.next = self.w_out.m_data.val().get_bits::<64>(0);
        self.dma_wr_data.next = self.w_out.m_data.val().get_bits::<128>(64);
        self.dma_wr_strb.next = self.w_out.m_data.val().get_bits::<16>(192);
        self.dma_wr_last.next = self.w_out.m_data.val().get_bit(208);
        // ---- what is owed, in order ----
        // (the entry past its QP, which is picked on its own: bits 7:6 are no field)
        self.ack_entry.next = bit_cast::<276, 284>(self.acks.data_out.val() >> 8);
        self.ack_qpn.next = self.acks.data_out.val().get_bits::<6>(0);
        self.ack_valid.next = !self.acks.empty.val();
        if self.show_urgent.q.val() {
            self.ack_entry.next = bit_cast::<276, 284>(self.urgent.data_out.val() >> 8);
            self.ack_qpn.next = self.urgent.data_out.val().get_bits::<6>(0);
            self.ack_valid.next = !self.urgent.empty.val();
        }
        self.ack_urgent.next = self.show_urgent.q.val();
        self.ack_psn.next = self.ack_entry.val().get_bits::<24>(0);
        self.ack_syndrome.next = self.ack_entry.val().get_bits::<8>(24);
        self.ack_msn.next = self.ack_entry.val().get_bits::<24>(32);
        self.ack_dst_ip.next = self.ack_entry.val().get_bits::<32>(56);
        self.ack_mac_le.next = self.ack_entry.val().get_bits::<48>(88);
        self.ack_dst_mac.next = (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(0)) << 40) | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(16)) << 24) | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(32)) << 8) | bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(40));
        self.ack_udp_src_port.next = self.ack_entry.val().get_bits::<16>(136);
        self.ack_dest_qp.next = self.ack_entry.val().get_bits::<24>(152);
        self.ack_read.next = self.ack_entry.val().get_bit(176);
        self.ack_bus.next = self.ack_entry.val().get_bits::<64>(177);
        self.ack_len.next = self.ack_entry.val().get_bits::<32>(241);
        self.ack_pmtu.next = self.ack_entry.val().get_bits::<3>(273);
        self.acks.read.next = !self.show_urgent.q.val() & !self.acks.empty.val() & self.ack_ready.val();
        self.urgent.read.next = self.show_urgent.q.val() & !self.urgent.empty.val() & self.ack_ready.val();
        if (self.ack_valid.val() & self.ack_ready.val()) | self.ack_yield.val() | !self.ack_valid.val() {
            self.show_urgent.d.next = !self.urgent.empty.val();
        }
        self.sj_retired.d.next = self.c_retire.val();
        if self.reset.val() {
            self.landing.d.next = false;
            self.show_urgent.d.next = false;
            self.state.d.next = ResponderState::Idle;
            self.fence_pending.d.next = false;
            self.kept.d.next = 0.into();
            self.kept_p1.d.next = 1.into();
            self.lost.d.next = false;
            self.in_have.d.next = false;
            self.orphans.d.next = 0.into();
            self.orph_add.d.next = 0.into();
            self.w_valid.d.next = false;
            self.forget.d.next = 0.into();
            self.flush_bits.d.next = 0.into();
            self.fhit.d.next = false;
        }
    }
}
