//! The responder's request path (rxe_resp.c's role), first part: RDMA WRITE. Request
//! packets parsed by `RdmaRxParse` come in (their payload first, then their record); a
//! packet is taken only at the QP's expected PSN and in a legal opcode sequence, every
//! access is checked before a byte moves, the payload goes to host memory on the DMA
//! write port, and what the requester is owed (ACK, NAK) goes out on `ack_*` for the
//! transmit side. The behavioural model's `responder_receive`
//! (testbench/src/roce/engine/responder.rs) is the reference; the checks run in its order:
//!
//! 1. the record's status (bad ICRC, malformed: dropped, counted by the engine from
//!    `RdmaRxParse`), the QP (QPN in the table, state RTR or RTS: else dropped,
//!    `cnt_drop_qp`), the PSN (not the expected one: dropped, `cnt_drop_psn`; issue 19
//!    answers duplicates and gaps);
//! 2. the sequence (a Middle or Last continues a message of its class, a First or Only
//!    starts one) and the length (First and Middle carry exactly the path MTU): else a
//!    NAK invalid request;
//! 3. a WRITE First or Only: its RETH against the MR table (`RdmaMrCheck`: key current,
//!    the QP's PD, REMOTE_WRITE granted, the whole range inside the region) and the QP's
//!    ACCESS: else a NAK remote access error; every WRITE packet: its payload within what
//!    the RETH announced, and the Last one ending it exactly: else a NAK invalid request.
//!
//! A NAK moves the QP to ERR (the QP port stores STATE) and its payload is dropped. An
//! accepted packet's payload is written, the QP's RQ_PSN advanced, the per-QP message
//! state (in a message or not, its class, the next bus address and the bytes still to
//! come, the MSN) stored, and an ACK owed when the packet asked for one (AckReq).
//!
//! SEND, WRITE with immediate and READ requests are the next increment (they need the
//! receive queue and the read response path): until then the responder drops them and
//! counts them (`cnt_unsupported`), touching nothing.
//!
//! Buffering: `RdmaRxParse` puts a packet's payload out before its record says whether the
//! packet is good, and cannot be held back, so the payload waits here in a FIFO of 1,024
//! beats (two 4,096-byte packets); a packet that finds it full has its record marked lost
//! and is dropped whole (`cnt_drop_nobuf`); so is one whose record finds the 16-record
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

use super::super::stream::{NicFifo, NicRam};
use super::mr_check::RdmaMrCheck;
use super::opcode::{RdmaOpcodeInfo, CLASS_ACKNOWLEDGE, CLASS_READ_RESPONSE, CLASS_WRITE};
use nic_regmap::rdma::{access, qpc, syndrome, QpState};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ResponderState {
    Idle,
    Skip,
    Lookup,
    QpWait,
    Check,
    MrWait,
    Decide,
    Nak,
    NakStore,
    Data,
    Update,
    UpdateWait,
    AckOwed,
    Discard,
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
    pub rec_dest_qp: Signal<In, Bits<24>>,
    pub rec_psn: Signal<In, Bits<24>>,
    pub rec_va: Signal<In, Bits<64>>,
    pub rec_rkey: Signal<In, Bits<32>>,
    pub rec_dma_len: Signal<In, Bits<32>>,
    pub rec_payload_len: Signal<In, Bits<16>>,
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
    // ---- the MR table's stores (`RdmaTables::mr_wr_*`), for this responder's check ----
    pub mr_wr: Signal<In, Bit>,
    pub mr_wr_index: Signal<In, Bits<6>>,
    pub mr_wr_entry: Signal<In, Bits<224>>,
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
    // ---- counter pulses ----
    pub cnt_rx_packet: Signal<Out, Bit>,
    pub cnt_rx_bytes: Signal<Out, Bits<16>>,
    pub cnt_drop_qp: Signal<Out, Bit>,
    pub cnt_drop_psn: Signal<Out, Bit>,
    pub cnt_drop_nobuf: Signal<Out, Bit>,
    pub cnt_drop_norecord: Signal<Out, Bit>,
    pub cnt_nak: Signal<Out, Bit>,
    pub cnt_unsupported: Signal<Out, Bit>,
    // ---- children ----
    /// Payload beats: data 63:0, byte enables 71:64 (made from the byte count on the way
    /// in, so the RAM's output goes straight to the write's strobes).
    payload: NicFifo<Bits<72>, 10, 11>,
    /// Records: see `update` for the layout.
    records: NicFifo<Bits<256>, 4, 5>,
    /// ACKs and NAKs owed: QP 5:0, PSN 31:8, syndrome 39:32, MSN 63:40, then the QP
    /// context's path (its words 4..6: destination IPv4, MAC, UDP source port) 159:64 and
    /// DEST_QPN 183:160, so the transmit side frames the ACK without a table read.
    acks: NicFifo<Bits<184>, 3, 4>,
    /// Per QP: in a message 0, its class 3:1, MSN 31:8, next bus address 95:32, bytes to come 127:96.
    msg_ram: NicRam<Bits<128>, 6>,
    mr_check: RdmaMrCheck,
    op_info: RdmaOpcodeInfo,
    // ---- payload intake ----
    kept: DFF<Bits<16>>,
    lost: DFF<Bit>,
    /// Beats of packets whose record was lost, not yet announced by a record.
    orphans: DFF<Bits<16>>,
    /// QPs stored in RESET since the responder last looked at them.
    forget: DFF<Bits<64>>,
    // ---- the packet in hand ----
    state: DFF<ResponderState>,
    r_opcode: DFF<Bits<8>>,
    r_ack_req: DFF<Bit>,
    r_status: DFF<Bits<2>>,
    r_lost: DFF<Bit>,
    r_qpn: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_va: DFF<Bits<64>>,
    r_rkey: DFF<Bits<32>>,
    r_dma_len: DFF<Bits<32>>,
    r_len: DFF<Bits<16>>,
    r_kept: DFF<Bits<16>>,
    r_orphans: DFF<Bits<16>>,
    qpc: DFF<Bits<384>>,
    /// The ACK's destination MAC as the QP context stores it (byte 0 in bits 7:0).
    ack_mac_le: Signal<Local, Bits<48>>,
    msg: DFF<Bits<128>>,
    fresh: DFF<Bit>,
    // Check's verdicts
    v_state_ok: DFF<Bit>,
    v_psn_ok: DFF<Bit>,
    v_seq_ok: DFF<Bit>,
    v_starts: DFF<Bit>,
    v_ends: DFF<Bit>,
    v_class: DFF<Bits<3>>,
    mtu: DFF<Bits<16>>,
    mr_ok: DFF<Bit>,
    bus: DFF<Bits<64>>,
    remaining: DFF<Bits<32>>,
    syn: DFF<Bits<8>>,
    qp_asked: DFF<Bit>,
    // Data: beats left, the low half waiting for its high half, the write on offer
    left: DFF<Bits<16>>,
    /// `left` is not 0 (kept beside it: the FIFO's read decision is on the path to its
    /// RAM's read address).
    left_nz: DFF<Bit>,
    wptr: DFF<Bits<64>>,
    lo: DFF<Bits<64>>,
    lo_strb: DFF<Bits<8>>,
    have_lo: DFF<Bit>,
    w_valid: DFF<Bit>,
    w_addr: DFF<Bits<64>>,
    w_data: DFF<Bits<128>>,
    w_strb: DFF<Bits<16>>,
    w_last: DFF<Bit>,
    // ---- scratch ----
    head: Signal<Local, Bits<72>>,
    pay_strb: Signal<Local, Bits<8>>,
    take: Signal<Local, Bit>,
    rec_word: Signal<Local, Bits<256>>,
    in_msg: Signal<Local, Bit>,
    pmtu: Signal<Local, Bits<3>>,
    qp_state: Signal<Local, Bits<3>>,
    forget_hit: Signal<Local, Bit>,
    form: Signal<Local, Bit>,
    msg_new: Signal<Local, Bits<128>>,
    forget_next: Signal<Local, Bits<64>>,
    ones8: Constant<Bits<8>>,
    /// Path MTU code c is 128 << c bytes.
    mtu_unit: Constant<Bits<16>>,
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
    syn_ack: Constant<Bits<8>>,
    syn_invalid: Constant<Bits<8>>,
    syn_access: Constant<Bits<8>>,
}

impl Default for RdmaResponder {
    fn default() -> Self {
        let field = |f: nic_regmap::rdma::TableField| Bits::<384>::from(u64::from(f.mask())) << (32 * f.word as u64 + u64::from(f.lsb));
        assert!(qpc::STATE.word == 0 && qpc::PMTU.word == 0 && qpc::PMTU.lsb == 4 && qpc::PD.word == 0 && qpc::PD.lsb == 16);
        assert!(qpc::ACCESS.word == 1 && qpc::ACCESS.lsb == 24 && qpc::RQ_PSN.word == 3 && qpc::RQ_PSN.lsb == 0);
        assert!(qpc::DEST_QPN.word == 1 && qpc::DEST_QPN.lsb == 0 && qpc::DEST_IPV4.word == 4 && qpc::DEST_MAC_LO.word == 5);
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
            ack_mac_le: Default::default(),
            cnt_rx_packet: Default::default(),
            cnt_rx_bytes: Default::default(),
            cnt_drop_qp: Default::default(),
            cnt_drop_psn: Default::default(),
            cnt_drop_nobuf: Default::default(),
            cnt_drop_norecord: Default::default(),
            cnt_nak: Default::default(),
            cnt_unsupported: Default::default(),
            payload: Default::default(),
            records: Default::default(),
            acks: Default::default(),
            msg_ram: Default::default(),
            mr_check: Default::default(),
            op_info: Default::default(),
            kept: Default::default(),
            lost: Default::default(),
            orphans: Default::default(),
            forget: Default::default(),
            state: Default::default(),
            r_opcode: Default::default(),
            r_ack_req: Default::default(),
            r_status: Default::default(),
            r_lost: Default::default(),
            r_qpn: Default::default(),
            r_psn: Default::default(),
            r_va: Default::default(),
            r_rkey: Default::default(),
            r_dma_len: Default::default(),
            r_len: Default::default(),
            r_kept: Default::default(),
            r_orphans: Default::default(),
            qpc: Default::default(),
            msg: Default::default(),
            fresh: Default::default(),
            v_state_ok: Default::default(),
            v_psn_ok: Default::default(),
            v_seq_ok: Default::default(),
            v_starts: Default::default(),
            v_ends: Default::default(),
            v_class: Default::default(),
            mtu: Default::default(),
            mr_ok: Default::default(),
            bus: Default::default(),
            remaining: Default::default(),
            syn: Default::default(),
            qp_asked: Default::default(),
            left: Default::default(),
            left_nz: Default::default(),
            wptr: Default::default(),
            lo: Default::default(),
            lo_strb: Default::default(),
            have_lo: Default::default(),
            w_valid: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            w_last: Default::default(),
            head: Default::default(),
            take: Default::default(),
            rec_word: Default::default(),
            in_msg: Default::default(),
            pmtu: Default::default(),
            qp_state: Default::default(),
            forget_hit: Default::default(),
            pay_strb: Default::default(),
            form: Default::default(),
            msg_new: Default::default(),
            forget_next: Default::default(),
            ones8: Constant::new(0xffu64.into()),
            mtu_unit: Constant::new(128u64.into()),
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
            syn_ack: Constant::new(u64::from(syndrome::ACK).into()),
            syn_invalid: Constant::new(u64::from(syndrome::NAK_INVALID_REQUEST).into()),
            syn_access: Constant::new(u64::from(syndrome::NAK_REMOTE_ACCESS).into()),
        }
    }
}

impl Logic for RdmaResponder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, kept, lost, orphans, forget, state, r_opcode, r_ack_req, r_status, r_lost, r_qpn, r_psn, r_va, r_rkey, r_dma_len,
            r_len, r_kept, r_orphans, qpc, msg, fresh, v_state_ok, v_psn_ok, v_seq_ok, v_starts, v_ends, v_class, mtu, mr_ok, bus,
            remaining, syn, qp_asked, left, left_nz, wptr, lo, lo_strb, have_lo, w_valid, w_addr, w_data, w_strb, w_last);
        clock!(self, clock, payload, records, acks, msg_ram, mr_check);
        self.payload.reset.next = self.reset.val();
        self.records.reset.next = self.reset.val();
        self.acks.reset.next = self.reset.val();
        self.mr_check.reset.next = self.reset.val();
        self.mr_check.mr_wr.next = self.mr_wr.val();
        self.mr_check.mr_wr_index.next = self.mr_wr_index.val();
        self.mr_check.mr_wr_entry.next = self.mr_wr_entry.val();
        // ---- intake: payload beats into the FIFO, the record with what was kept ----
        self.payload.write.next = self.pay_valid.val() & !self.payload.full.val();
        self.pay_strb.next = !(self.ones8.val() << bit_cast::<8, 4>(self.pay_nbytes.val()));
        self.payload.data_in.next = bit_cast::<72, 64>(self.pay_data.val()) | (bit_cast::<72, 8>(self.pay_strb.val()) << 64);
        if self.pay_valid.val() {
            if self.payload.full.val() {
                self.lost.d.next = true;
            } else {
                self.kept.d.next = self.kept.q.val() + 1;
            }
        }
        // record: opcode 7:0, AckReq 8, status 10:9, lost 11, QPN 39:16, PSN 63:40, VA 127:64,
        // R_Key 159:128, DMA length 191:160, payload length 207:192, beats kept 223:208,
        // beats of lost records before this packet's 239:224
        self.rec_word.next = bit_cast::<256, 8>(self.rec_opcode.val()) | (bit_cast::<256, 2>(self.rec_status.val()) << 9)
            | (bit_cast::<256, 24>(self.rec_dest_qp.val()) << 16) | (bit_cast::<256, 24>(self.rec_psn.val()) << 40)
            | (bit_cast::<256, 64>(self.rec_va.val()) << 64) | (bit_cast::<256, 32>(self.rec_rkey.val()) << 128)
            | (bit_cast::<256, 32>(self.rec_dma_len.val()) << 160) | (bit_cast::<256, 16>(self.rec_payload_len.val()) << 192)
            | (bit_cast::<256, 16>(self.kept.q.val()) << 208) | (bit_cast::<256, 16>(self.orphans.q.val()) << 224);
        if self.rec_ack_req.val() {
            self.rec_word.next = self.rec_word.val() | (Bits::<256>::from(1u64) << 8);
        }
        if self.lost.q.val() {
            self.rec_word.next = self.rec_word.val() | (Bits::<256>::from(1u64) << 11);
        }
        self.records.write.next = self.rec_valid.val() & !self.records.full.val();
        self.records.data_in.next = self.rec_word.val();
        self.cnt_drop_norecord.next = false;
        if self.rec_valid.val() {
            self.kept.d.next = 0.into();
            self.lost.d.next = false;
            self.orphans.d.next = 0.into();
            // a record that finds the FIFO full is lost; its beats are skipped later
            if self.records.full.val() {
                self.orphans.d.next = self.orphans.q.val() + self.kept.q.val();
                self.cnt_drop_norecord.next = true;
            }
        }
        // ---- defaults ----
        self.records.read.next = false;
        self.payload.read.next = false;
        self.acks.write.next = false;
        self.acks.data_in.next = bit_cast::<184, 6>(self.r_qpn.q.val().get_bits::<6>(0)) | (bit_cast::<184, 24>(self.r_psn.q.val()) << 8)
            | (bit_cast::<184, 8>(self.syn.q.val()) << 32) | (bit_cast::<184, 24>(self.msg.q.val().get_bits::<24>(8)) << 40)
            | (bit_cast::<184, 96>(self.qpc.q.val().get_bits::<96>(128)) << 64)
            | (bit_cast::<184, 24>(self.qpc.q.val().get_bits::<24>(32)) << 160);
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
        self.mr_check.in_key.next = self.r_rkey.q.val();
        self.mr_check.in_pd.next = self.qpc.q.val().get_bits::<16>(16);
        self.mr_check.in_addr.next = self.r_va.q.val();
        self.mr_check.in_len.next = self.r_dma_len.q.val();
        self.mr_check.in_need.next = self.remote_write.val();
        self.mr_check.in_tag.next = 0.into();
        self.cnt_rx_packet.next = false;
        self.cnt_rx_bytes.next = self.r_len.q.val();
        self.cnt_drop_qp.next = false;
        self.cnt_drop_psn.next = false;
        self.cnt_drop_nobuf.next = false;
        self.cnt_nak.next = false;
        self.cnt_unsupported.next = false;
        self.op_info.opcode.next = self.r_opcode.q.val();
        self.in_msg.next = self.msg.q.val().get_bit(0);
        self.pmtu.next = self.qpc.q.val().get_bits::<3>(4);
        self.qp_state.next = self.qpc.q.val().get_bits::<3>(0);
        self.forget_hit.next = false;
        for q in 0..64 {
            if self.r_qpn.q.val().get_bits::<6>(0) == self.qp_id[q].val() {
                self.forget_hit.next = self.forget.q.val().get_bit(q);
            }
        }
        self.forget_next.next = self.forget.q.val();
        self.msg_new.next = self.msg.q.val();
        self.head.next = self.payload.data_out.val();
        self.take.next = false;
        self.form.next = false;
        match self.state.q.val() {
            ResponderState::Idle => {
                if !self.records.empty.val() {
                    self.records.read.next = true;
                    self.r_opcode.d.next = self.records.data_out.val().get_bits::<8>(0);
                    self.r_ack_req.d.next = self.records.data_out.val().get_bit(8);
                    self.r_status.d.next = self.records.data_out.val().get_bits::<2>(9);
                    self.r_lost.d.next = self.records.data_out.val().get_bit(11);
                    self.r_qpn.d.next = self.records.data_out.val().get_bits::<24>(16);
                    self.r_psn.d.next = self.records.data_out.val().get_bits::<24>(40);
                    self.r_va.d.next = self.records.data_out.val().get_bits::<64>(64);
                    self.r_rkey.d.next = self.records.data_out.val().get_bits::<32>(128);
                    self.r_dma_len.d.next = self.records.data_out.val().get_bits::<32>(160);
                    self.r_len.d.next = self.records.data_out.val().get_bits::<16>(192);
                    self.r_kept.d.next = self.records.data_out.val().get_bits::<16>(208);
                    self.r_orphans.d.next = self.records.data_out.val().get_bits::<16>(224);
                    self.state.d.next = ResponderState::Skip;
                }
            }
            ResponderState::Skip => {
                // the beats of packets whose record was lost come first
                self.take.next = self.r_orphans.q.val().any() & !self.payload.empty.val();
                if self.take.val() {
                    self.payload.read.next = true;
                    self.r_orphans.d.next = self.r_orphans.q.val() - 1;
                }
                if !self.r_orphans.q.val().any() {
                    self.state.d.next = ResponderState::Lookup;
                }
            }
            ResponderState::Lookup => {
                // bad frames were counted by the parser's status; the rest by reason here
                self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept.q.val().any();
                self.state.d.next = ResponderState::Discard;
                if self.r_status.q.val() == 0 {
                    if (self.op_info.op_class.val() == self.class_read_response.val()) | (self.op_info.op_class.val() == self.class_acknowledge.val()) {
                        // a response: the completer's (it sees every record too); its
                        // payload beats are dropped here, uncounted
                    } else if self.r_lost.q.val() {
                        self.cnt_drop_nobuf.next = true;
                    } else if (self.r_qpn.q.val() >= 64) | (self.r_qpn.q.val() < 2) {
                        self.cnt_drop_qp.next = true;
                    } else if (self.op_info.op_class.val() != self.class_write.val()) | (self.r_opcode.q.val() == 0x09) | (self.r_opcode.q.val() == 0x0b) {
                        // SEND, READ and WRITE with immediate: the next increment
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
                    self.msg.d.next = self.msg_ram.read_data.val();
                    self.fresh.d.next = self.forget_hit.val();
                    self.state.d.next = ResponderState::Check;
                }
            }
            ResponderState::Check => {
                // a QP stored in RESET since its last packet starts afresh
                if self.fresh.q.val() {
                    self.msg.d.next = 0.into();
                    self.in_msg.next = false;
                    for q in 0..64 {
                        if self.r_qpn.q.val().get_bits::<6>(0) == self.qp_id[q].val() {
                            self.forget_next.next = self.forget_next.val() & !self.bit_of_qp[q].val();
                        }
                    }
                }
                self.v_state_ok.d.next = (self.qp_state.val() == self.state_rtr.val()) | (self.qp_state.val() == self.state_rts.val());
                self.v_psn_ok.d.next = self.r_psn.q.val() == self.qpc.q.val().get_bits::<24>(96);
                // in a message: the same class, not a start; else a start
                self.v_seq_ok.d.next = self.op_info.starts.val();
                if self.in_msg.val() {
                    self.v_seq_ok.d.next = (self.msg.q.val().get_bits::<3>(1) == self.op_info.op_class.val()) & !self.op_info.starts.val();
                }
                // path MTU: 1 256 .. 5 4096, anything else 256
                self.mtu.d.next = 256.into();
                if (self.pmtu.val() >= 1) & (self.pmtu.val() <= 5) {
                    self.mtu.d.next = self.mtu_unit.val() << bit_cast::<16, 3>(self.pmtu.val());
                }
                self.v_starts.d.next = self.op_info.starts.val();
                self.v_ends.d.next = self.op_info.ends.val();
                self.v_class.d.next = self.op_info.op_class.val();
                self.bus.d.next = self.msg.q.val().get_bits::<64>(32);
                self.remaining.d.next = self.msg.q.val().get_bits::<32>(96);
                self.state.d.next = ResponderState::Decide;
                self.mr_ok.d.next = true;
                // a WRITE First or Only: ask the MR table about its RETH
                if (self.op_info.op_class.val() == self.class_write.val()) & self.op_info.starts.val() {
                    self.mr_check.in_valid.next = true;
                    self.state.d.next = ResponderState::MrWait;
                }
            }
            ResponderState::MrWait => {
                if self.mr_check.out_valid.val() {
                    // the QP must accept remote writes too (for a non-empty write)
                    self.mr_ok.d.next = self.mr_check.out_ok.val()
                        & (!self.r_dma_len.q.val().any() | ((self.qpc.q.val().get_bits::<3>(56) & self.remote_write.val()) == self.remote_write.val()));
                    self.bus.d.next = self.mr_check.out_bus.val();
                    self.remaining.d.next = self.r_dma_len.q.val();
                    self.state.d.next = ResponderState::Decide;
                }
            }
            ResponderState::Decide => {
                self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept.q.val().any();
                self.wptr.d.next = self.bus.q.val();
                self.have_lo.d.next = false;
                self.cnt_rx_packet.next = self.v_state_ok.q.val();
                if !self.v_state_ok.q.val() {
                    self.cnt_drop_qp.next = true;
                    self.state.d.next = ResponderState::Discard;
                } else if !self.v_psn_ok.q.val() {
                    self.cnt_drop_psn.next = true;
                    self.state.d.next = ResponderState::Discard;
                } else if !self.v_seq_ok.q.val() | (!self.v_ends.q.val() & (self.r_len.q.val() != self.mtu.q.val())) {
                    self.syn.d.next = self.syn_invalid.val();
                    self.state.d.next = ResponderState::Nak;
                } else if !self.mr_ok.q.val() {
                    self.syn.d.next = self.syn_access.val();
                    self.state.d.next = ResponderState::Nak;
                } else if (bit_cast::<32, 16>(self.r_len.q.val()) > self.remaining.q.val())
                    | (self.v_ends.q.val() & (bit_cast::<32, 16>(self.r_len.q.val()) != self.remaining.q.val()))
                {
                    self.syn.d.next = self.syn_invalid.val();
                    self.state.d.next = ResponderState::Nak;
                } else {
                    self.syn.d.next = self.syn_ack.val();
                    self.state.d.next = ResponderState::Data;
                    if !self.r_kept.q.val().any() {
                        self.state.d.next = ResponderState::Update;
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
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.left.d.next = self.r_kept.q.val();
                self.left_nz.d.next = self.r_kept.q.val().any();
                    self.state.d.next = ResponderState::Discard;
                }
            }
            ResponderState::Data => {
                // beats in pairs: lanes 0..7 and 8..15 of one write at `bus`, 16 bytes on
                self.take.next = self.left_nz.q.val() & !self.payload.empty.val() & (!self.w_valid.q.val() | self.dma_wr_ready.val());
                if self.take.val() {
                    self.payload.read.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                    self.left_nz.d.next = self.left.q.val() != 1;
                    if self.have_lo.q.val() | (self.left.q.val() == 1) {
                        self.form.next = true;
                        self.have_lo.d.next = false;
                        self.w_valid.d.next = true;
                        self.w_addr.d.next = self.wptr.q.val();
                        self.wptr.d.next = self.wptr.q.val() + 16;
                        self.w_last.d.next = self.left.q.val() == 1;
                        if self.have_lo.q.val() {
                            self.w_data.d.next = bit_cast::<128, 64>(self.lo.q.val()) | (bit_cast::<128, 64>(self.head.val().get_bits::<64>(0)) << 64);
                            self.w_strb.d.next = bit_cast::<16, 8>(self.lo_strb.q.val()) | (bit_cast::<16, 8>(self.head.val().get_bits::<8>(64)) << 8);
                        } else {
                            self.w_data.d.next = bit_cast::<128, 64>(self.head.val().get_bits::<64>(0));
                            self.w_strb.d.next = bit_cast::<16, 8>(self.head.val().get_bits::<8>(64));
                        }
                    } else {
                        self.have_lo.d.next = true;
                        self.lo.d.next = self.head.val().get_bits::<64>(0);
                        self.lo_strb.d.next = self.head.val().get_bits::<8>(64);
                    }
                }
                if !self.left_nz.q.val() & (!self.w_valid.q.val() | self.dma_wr_ready.val()) {
                    self.state.d.next = ResponderState::Update;
                }
            }
            ResponderState::Update => {
                // the message state: in a message unless this packet ends it, its class,
                // the MSN counting ended messages, where the next byte goes, what is left
                self.msg_new.next = (bit_cast::<128, 3>(self.v_class.q.val()) << 1)
                    | (bit_cast::<128, 24>(self.msg.q.val().get_bits::<24>(8)) << 8)
                    | (bit_cast::<128, 64>(self.bus.q.val() + bit_cast::<64, 16>(self.r_len.q.val())) << 32)
                    | (bit_cast::<128, 32>(self.remaining.q.val() - bit_cast::<32, 16>(self.r_len.q.val())) << 96)
                    | 1;
                if self.v_ends.q.val() {
                    self.msg_new.next = (bit_cast::<128, 3>(self.v_class.q.val()) << 1)
                        | (bit_cast::<128, 24>(self.msg.q.val().get_bits::<24>(8) + 1) << 8);
                }
                self.msg.d.next = self.msg_new.val();
                self.state.d.next = ResponderState::UpdateWait;
                self.qp_asked.d.next = false;
            }
            ResponderState::UpdateWait => {
                self.msg_ram.write_enable.next = !self.qp_asked.q.val();
                self.qp_valid.next = !self.qp_asked.q.val();
                self.qp_write.next = true;
                self.qp_mask.next = self.rq_psn_bits.val();
                self.qp_wdata.next = bit_cast::<384, 24>(self.r_psn.q.val() + 1) << 96;
                if self.qp_ready.val() {
                    self.qp_asked.d.next = true;
                }
                if self.qp_rvalid.val() {
                    self.state.d.next = ResponderState::Idle;
                    if self.r_ack_req.q.val() {
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
                self.take.next = self.left_nz.q.val() & !self.payload.empty.val();
                if self.take.val() {
                    self.payload.read.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                    self.left_nz.d.next = self.left.q.val() != 1;
                }
                if !self.left_nz.q.val() {
                    self.state.d.next = ResponderState::Idle;
                }
            }
            _ => {
                self.state.d.next = ResponderState::Idle;
            }
        }
        // the driver's RESET stores (after the clear above: a new store wins)
        if self.qp_store.val() & (self.qp_store_state.val() == self.state_reset.val()) {
            for q in 0..64 {
                if self.qp_store_index.val() == self.qp_id[q].val() {
                    self.forget_next.next = self.forget_next.val() | self.bit_of_qp[q].val();
                }
            }
        }
        self.forget.d.next = self.forget_next.val();
        // the write on offer holds until taken
        if self.w_valid.q.val() & self.dma_wr_ready.val() & !self.form.val() {
            self.w_valid.d.next = false;
        }
        self.dma_wr_valid.next = self.w_valid.q.val();
        self.dma_wr_addr.next = self.w_addr.q.val();
        self.dma_wr_data.next = self.w_data.q.val();
        self.dma_wr_strb.next = self.w_strb.q.val();
        self.dma_wr_last.next = self.w_last.q.val();
        // ---- what is owed, in order ----
        self.ack_valid.next = !self.acks.empty.val();
        self.ack_qpn.next = self.acks.data_out.val().get_bits::<6>(0);
        self.ack_psn.next = self.acks.data_out.val().get_bits::<24>(8);
        self.ack_syndrome.next = self.acks.data_out.val().get_bits::<8>(32);
        self.ack_msn.next = self.acks.data_out.val().get_bits::<24>(40);
        self.ack_dst_ip.next = self.acks.data_out.val().get_bits::<32>(64);
        self.ack_mac_le.next = self.acks.data_out.val().get_bits::<48>(96);
        self.ack_dst_mac.next = (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(0)) << 40) | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(16)) << 24) | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(32)) << 8) | bit_cast::<48, 8>(self.ack_mac_le.val().get_bits::<8>(40));
        self.ack_udp_src_port.next = self.acks.data_out.val().get_bits::<16>(144);
        self.ack_dest_qp.next = self.acks.data_out.val().get_bits::<24>(160);
        self.acks.read.next = !self.acks.empty.val() & self.ack_ready.val();
        if self.reset.val() {
            self.state.d.next = ResponderState::Idle;
            self.kept.d.next = 0.into();
            self.lost.d.next = false;
            self.orphans.d.next = 0.into();
            self.w_valid.d.next = false;
            self.forget.d.next = 0.into();
        }
    }
}
