//! The RDMA engine's top (`rdma` register block): the roles of this folder wired
//! together, with the engine's own registers and counters, for `nic_top` to place between
//! its RX classifier, its MAC TX arbiter and its DMA port.
//!
//! ```text
//!  RQ_DOORBELL ─┐
//!  RX (diverted frames) ─► RdmaRxParse ─┬─► RdmaResponder ─► DMA writes (tag WR_TAG_DATA)
//!                                      │    │   │  └─► receive WQE reads (tag RD_TAG_RQ)
//!                                      │    │   └─► receive CQEs ─┐
//!                                      │    └─► ACKs/NAKs, READs owed ─► RdmaResponseTx ─┐ (READ payload: tag RD_TAG_READ)
//!                                      └─► RdmaCompleter ─► RdmaCqWriter ─► DMA writes (tag WR_TAG_CQ), irq
//!  SQ_DOORBELL ─► RdmaRequester ─► requests + payload (DMA reads) ─┴────────────────┴─► RdmaTxBuild ─► TX frames
//!                      └─► WQEs on the wire ─► RdmaCompleter
//!  register bus ─► RdmaTables (QP, MR, CQ tables; one QP port shared by three roles)
//! ```
//!
//! Arbitration inside the engine:
//! * **the QP table port**: requester, responder and completer in turn (round robin); the
//!   tables run one access at a time, so its answer goes to the role whose access was taken;
//! * **transmit**: a response owed (ACK, NAK, a READ response's next packet) goes before
//!   the requester's next packet (the model's "responses before requests"; the
//!   requester's packets of different QPs already take turns inside the requester); the
//!   framer's payload port follows the header it took last;
//! * **DMA writes**: the CQ writer's two-beat CQEs before the responder's payload, a burst
//!   kept together; the host's write answers are routed back by tag;
//! * **DMA reads**: the responder's receive WQE (one 128-byte read at a time), then a READ
//!   response's payload, then the requester's next read; the answers are routed by tag,
//!   and each takes its own whenever they come (the port answers in order, so none may
//!   hold another's back);
//! * **CQEs**: the completer's (send queues) and the responder's (receive queues) in turn.
//!
//! The engine's registers (`nic_regmap::rdma::REGS`): the constants, CONTROL and
//! LOCAL_IPV4, the three doorbells, and the counters, each a wrapping 32-bit register
//! fed by the roles' count pulses. `TABLE_*` are decoded by `RdmaTables` on the same bus.

use super::{RdmaCompleter, RdmaCqWriter, RdmaRequester, RdmaResponder, RdmaResponseTx, RdmaRxParse, RdmaTables, RdmaTxBuild};
use nic_regmap::rdma as map;
use rust_hdl::prelude::*;

/// Tags of the engine's DMA reads on the NIC's read port: the requester's (WQEs,
/// payload), the responder's (receive WQEs), the READ responses' payload. The port
/// answers in order; the tag routes.
pub const RD_TAG: u64 = 2;
pub const RD_TAG_RQ: u64 = 3;
pub const RD_TAG_READ: u64 = 4;
/// Tags of the engine's DMA writes: the responder's payload, the CQ writer's CQEs.
pub const WR_TAG_DATA: u64 = 4;
pub const WR_TAG_CQ: u64 = 5;

/// The `rdma` block's registers this engine decodes (with `RdmaTables`: `TABLE_*`).
/// (CAPS reads RETRANSMIT: the requester goes back on timeouts, PSN sequence NAKs, READ
/// response gaps and RNR NAKs.)
pub const DECODED: [&str; 17] = [
    "ID", "VERSION", "NEXT", "QP_COUNT", "MR_COUNT", "CQ_COUNT", "CONTROL", "LOCAL_IPV4", "TABLE_CMD", "TABLE_STATUS", "TABLE_DATA", "SQ_DOORBELL", "RQ_DOORBELL",
    "CQ_DOORBELL", "CAPS", "ACK_EVERY", "TIMER_UNIT",
];

/// The counter registers, in `nic_regmap::rdma` order from `TX_PACKETS` (0xC0).
pub const COUNTERS: [&str; N_COUNTERS] = [
    "TX_PACKETS", "TX_BYTES", "RX_PACKETS", "RX_BYTES", "RX_DROP_ICRC", "RX_DROP_MALFORMED", "RX_DROP_QP", "RX_DROP_PSN", "TX_ACKS", "TX_NAKS", "RX_NAKS",
    "CQ_OVERFLOWS", "RX_DROP_NOBUF", "RX_DUPLICATES", "TX_RETRIES", "TX_RESENT", "RX_DROP_STATE",
];
pub const N_COUNTERS: usize = 17;

#[derive(LogicBlock)]
pub struct RdmaEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- register bus (the CSR block's) ----
    pub bus_wr: Signal<In, Bit>,
    pub bus_addr: Signal<In, Bits<16>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_wmask: Signal<In, Bits<32>>,
    pub bus_rd_addr: Signal<In, Bits<16>>,
    pub bus_rdata: Signal<Out, Bits<32>>,
    /// CONTROL.ENABLE and LOCAL_IPV4, for the classifier's divert.
    pub enabled: Signal<Out, Bit>,
    pub local_ipv4: Signal<Out, Bits<32>>,
    /// The station address, the source of every frame: MAC_ADDR_LO (bytes 0..3, byte 0 in
    /// bits 7:0) and MAC_ADDR_HI (bytes 4, 5).
    pub station_mac_lo: Signal<In, Bits<32>>,
    pub station_mac_hi: Signal<In, Bits<16>>,
    // ---- RX: every frame MAC RX passes, as the RX classifier takes it in, without its
    // FCS, one beat a cycle at most, no backpressure; and the classifier's verdict on each
    // (rx_parse.rs: the engine acts only on the frames the classifier diverts) ----
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<64>>,
    pub rx_nbytes: Signal<In, Bits<4>>,
    pub rx_last: Signal<In, Bit>,
    /// MAC RX's status on the last beat.
    pub rx_status: Signal<In, Bits<3>>,
    pub rx_verdict_valid: Signal<In, Bit>,
    pub rx_verdict_roce: Signal<In, Bit>,
    // ---- TX: frames without FCS for MAC TX ----
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_data: Signal<Out, Bits<64>>,
    pub tx_nbytes: Signal<Out, Bits<4>>,
    pub tx_last: Signal<Out, Bit>,
    // ---- DMA reads (tags RD_TAG, RD_TAG_RQ; the port's responses for those tags) ----
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_len: Signal<Out, Bits<16>>,
    pub dma_rd_req_tag: Signal<Out, Bits<4>>,
    pub dma_rd_rsp_valid: Signal<In, Bit>,
    pub dma_rd_rsp_tag: Signal<In, Bits<4>>,
    pub dma_rd_rsp_ready: Signal<Out, Bit>,
    pub dma_rd_rsp_data: Signal<In, Bits<128>>,
    pub dma_rd_rsp_last: Signal<In, Bit>,
    pub dma_rd_rsp_error: Signal<In, Bit>,
    // ---- DMA writes (tags WR_TAG_DATA, WR_TAG_CQ); every write answer of the port ----
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    pub dma_wr_addr: Signal<Out, Bits<64>>,
    pub dma_wr_data: Signal<Out, Bits<128>>,
    pub dma_wr_strb: Signal<Out, Bits<16>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_tag: Signal<Out, Bits<4>>,
    pub dma_wr_rsp_valid: Signal<In, Bit>,
    pub dma_wr_rsp_error: Signal<In, Bit>,
    pub dma_wr_rsp_tag: Signal<In, Bits<4>>,
    /// CQ c's interrupt pulse in bit c (vector 16 + c of IRQ_STATUS).
    pub irq: Signal<Out, Bits<16>>,
    // ---- the roles ----
    tables: RdmaTables,
    rx_parse: RdmaRxParse,
    responder: RdmaResponder,
    response_tx: RdmaResponseTx,
    requester: RdmaRequester,
    completer: RdmaCompleter,
    cq_writer: RdmaCqWriter,
    tx_build: RdmaTxBuild,
    // ---- registers ----
    control: DFF<Bit>,
    local_ip: DFF<Bits<32>>,
    /// ACK_EVERY.N: the responder ACKs at least every N requests of a QP.
    ack_every: DFF<Bits<3>>,
    /// TIMER_UNIT.CYCLES: the transport timer's unit, for the completer.
    timer_unit: DFF<Bits<16>>,
    counters: [DFF<Bits<32>>; N_COUNTERS],
    // ---- arbitration ----
    /// The QP port's access in flight belongs to: 0 requester, 1 responder, 2 completer.
    qp_owner: DFF<Bits<2>>,
    /// Who goes first at the QP port next (the one after the last granted).
    qp_first: DFF<Bits<2>>,
    /// The write port is held by: 0 nobody, 1 the responder, 2 the CQ writer (a burst
    /// under way, or a beat offered and not yet taken).
    wr_owner: DFF<Bits<2>>,
    /// A beat of the holder's burst was taken and its last is still to come.
    wr_mid: DFF<Bit>,
    /// The CQ writer's last CQE came from the responder (the completer goes first next).
    cqe_from_resp: DFF<Bit>,
    /// The framer's payload port belongs to the responses' packet it took last (else the
    /// requester's): it takes no header before a packet's payload is in.
    pay_from_resp: DFF<Bit>,
    // ---- the parser's payload and records, registered before they fan out to the
    // responder and the completer (156.25 MHz: the parser's verdict logic, the two
    // blocks' record-FIFO decisions and the route across the engine do not fit one
    // cycle). Both streams a cycle later, so their order is kept. ----
    px_pay_valid: DFF<Bit>,
    px_pay_data: DFF<Bits<64>>,
    px_pay_nbytes: DFF<Bits<4>>,
    px_rec_valid: DFF<Bit>,
    px_rec_status: DFF<Bits<2>>,
    px_rec_opcode: DFF<Bits<8>>,
    px_rec_ack_req: DFF<Bit>,
    px_rec_solicited: DFF<Bit>,
    px_rec_immdt: DFF<Bits<32>>,
    px_rec_dest_qp: DFF<Bits<24>>,
    px_rec_psn: DFF<Bits<24>>,
    px_rec_va: DFF<Bits<64>>,
    px_rec_rkey: DFF<Bits<32>>,
    px_rec_dma_len: DFF<Bits<32>>,
    px_rec_payload_len: DFF<Bits<16>>,
    px_rec_syndrome: DFF<Bits<8>>,
    // ---- the engine's inputs from the core, registered where nothing answers them in
    // the same cycle: reset, the register bus's writes, the station address, the DMA
    // write answers. One cycle later each, in order. Two reasons: the paths from the CSR
    // block and the DMA port end here (156.25 MHz), and in the simulator the engine's
    // logic then reads its own flip-flops, not the core's signals, so Verilator evaluates
    // it only at the engine's own (gated) clock edges (sim/build.rs `gate_blocks`;
    // docs/performance.md). The read address, the ready inputs and the read answers
    // (a handshake each, answered in the same cycle) stay direct. ----
    in_reset: DFF<Bit>,
    in_bus_wr: DFF<Bit>,
    in_bus_addr: DFF<Bits<16>>,
    in_bus_wdata: DFF<Bits<32>>,
    in_bus_wmask: DFF<Bits<32>>,
    in_mac_lo: DFF<Bits<32>>,
    in_mac_hi: DFF<Bits<16>>,
    in_wr_rsp_valid: DFF<Bit>,
    in_wr_rsp_error: DFF<Bit>,
    in_wr_rsp_tag: DFF<Bits<4>>,
    // ---- scratch ----
    cqe_pick_resp: Signal<Local, Bit>,
    qp_grant: Signal<Local, Bits<2>>,
    qp_any: Signal<Local, Bit>,
    wr_sel: Signal<Local, Bits<2>>,
    tx_ack: Signal<Local, Bit>,
    tx_fire: Signal<Local, Bit>,
    rd_or: Signal<Local, Bits<32>>,
    inc: [Signal<Local, Bits<32>>; N_COUNTERS],
    wdata_masked: Signal<Local, Bits<32>>,
    station_be: Signal<Local, Bits<48>>,
    // ---- constants ----
    addr_id: Constant<Bits<16>>,
    addr_version: Constant<Bits<16>>,
    addr_next: Constant<Bits<16>>,
    addr_qp_count: Constant<Bits<16>>,
    addr_mr_count: Constant<Bits<16>>,
    addr_cq_count: Constant<Bits<16>>,
    addr_control: Constant<Bits<16>>,
    addr_local_ipv4: Constant<Bits<16>>,
    addr_ack_every: Constant<Bits<16>>,
    addr_caps: Constant<Bits<16>>,
    value_caps: Constant<Bits<32>>,
    addr_timer_unit: Constant<Bits<16>>,
    reset_timer_unit: Constant<Bits<16>>,
    addr_sq_db: Constant<Bits<16>>,
    addr_rq_db: Constant<Bits<16>>,
    addr_cq_db: Constant<Bits<16>>,
    addr_counter: [Constant<Bits<16>>; N_COUNTERS],
    value_id: Constant<Bits<32>>,
    value_version: Constant<Bits<32>>,
    value_qp_count: Constant<Bits<32>>,
    value_mr_count: Constant<Bits<32>>,
    value_cq_count: Constant<Bits<32>>,
    wr_tag_data: Constant<Bits<4>>,
    wr_tag_cq: Constant<Bits<4>>,
    rd_tag: Constant<Bits<4>>,
    rd_tag_rq: Constant<Bits<4>>,
    rd_tag_read: Constant<Bits<4>>,
    state_err: Constant<Bits<3>>,
    default_pkey: Constant<Bits<16>>,
    default_ttl: Constant<Bits<8>>,
    status_bad_icrc: Constant<Bits<2>>,
    status_malformed: Constant<Bits<2>>,
    status_unsupported: Constant<Bits<2>>,
}

impl Default for RdmaEngine {
    fn default() -> Self {
        let reg = |name: &str| -> u32 { map::REGS.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("rdma register {name}")).offset };
        let a16 = |name: &str| Constant::new(Bits::<16>::from(u64::from(map::BASE + reg(name))));
        let c32 = |v: u32| Constant::new(Bits::<32>::from(u64::from(v)));
        let reset_of = |name: &str| -> u32 { map::REGS.iter().find(|r| r.name == name).unwrap().reset };
        assert_eq!(reg("NEXT"), 0x08);
        for (i, name) in COUNTERS.iter().enumerate() {
            assert_eq!(reg(name), reg("TX_PACKETS") + 4 * i as u32, "counter {name} out of order");
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bus_wr: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_wmask: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rdata: Default::default(),
            enabled: Default::default(),
            local_ipv4: Default::default(),
            station_mac_lo: Default::default(),
            station_mac_hi: Default::default(),
            rx_valid: Default::default(),
            rx_data: Default::default(),
            rx_nbytes: Default::default(),
            rx_last: Default::default(),
            rx_verdict_valid: Default::default(),
            rx_status: Default::default(),
            rx_verdict_roce: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            tx_data: Default::default(),
            tx_nbytes: Default::default(),
            tx_last: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_req_tag: Default::default(),
            dma_rd_rsp_tag: Default::default(),
            cqe_from_resp: Default::default(),
            pay_from_resp: Default::default(),
            px_pay_valid: Default::default(),
            px_pay_data: Default::default(),
            px_pay_nbytes: Default::default(),
            px_rec_valid: Default::default(),
            px_rec_status: Default::default(),
            px_rec_opcode: Default::default(),
            px_rec_ack_req: Default::default(),
            px_rec_solicited: Default::default(),
            px_rec_immdt: Default::default(),
            px_rec_dest_qp: Default::default(),
            px_rec_psn: Default::default(),
            px_rec_va: Default::default(),
            px_rec_rkey: Default::default(),
            px_rec_dma_len: Default::default(),
            px_rec_payload_len: Default::default(),
            px_rec_syndrome: Default::default(),
            in_reset: Default::default(),
            in_bus_wr: Default::default(),
            in_bus_addr: Default::default(),
            in_bus_wdata: Default::default(),
            in_bus_wmask: Default::default(),
            in_mac_lo: Default::default(),
            in_mac_hi: Default::default(),
            in_wr_rsp_valid: Default::default(),
            in_wr_rsp_error: Default::default(),
            in_wr_rsp_tag: Default::default(),
            cqe_pick_resp: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            dma_rd_rsp_last: Default::default(),
            dma_rd_rsp_error: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_last: Default::default(),
            dma_wr_tag: Default::default(),
            dma_wr_rsp_valid: Default::default(),
            dma_wr_rsp_error: Default::default(),
            dma_wr_rsp_tag: Default::default(),
            irq: Default::default(),
            tables: Default::default(),
            rx_parse: Default::default(),
            responder: Default::default(),
            response_tx: Default::default(),
            requester: Default::default(),
            completer: Default::default(),
            cq_writer: Default::default(),
            tx_build: Default::default(),
            control: Default::default(),
            local_ip: Default::default(),
            ack_every: Default::default(),
            counters: Default::default(),
            qp_owner: Default::default(),
            qp_first: Default::default(),
            wr_owner: Default::default(),
            wr_mid: Default::default(),
            qp_grant: Default::default(),
            qp_any: Default::default(),
            wr_sel: Default::default(),
            tx_ack: Default::default(),
            tx_fire: Default::default(),
            rd_or: Default::default(),
            inc: Default::default(),
            wdata_masked: Default::default(),
            station_be: Default::default(),
            addr_id: a16("ID"),
            addr_version: a16("VERSION"),
            addr_next: a16("NEXT"),
            addr_qp_count: a16("QP_COUNT"),
            addr_mr_count: a16("MR_COUNT"),
            addr_cq_count: a16("CQ_COUNT"),
            addr_control: a16("CONTROL"),
            addr_local_ipv4: a16("LOCAL_IPV4"),
            addr_ack_every: a16("ACK_EVERY"),
            addr_caps: a16("CAPS"),
            value_caps: c32(reset_of("CAPS")),
            addr_timer_unit: a16("TIMER_UNIT"),
            reset_timer_unit: Constant::new(u64::from(reset_of("TIMER_UNIT")).into()),
            timer_unit: Default::default(),
            addr_sq_db: a16("SQ_DOORBELL"),
            addr_rq_db: a16("RQ_DOORBELL"),
            addr_cq_db: a16("CQ_DOORBELL"),
            addr_counter: std::array::from_fn(|i| a16(COUNTERS[i])),
            value_id: c32(reset_of("ID")),
            value_version: c32(reset_of("VERSION")),
            value_qp_count: c32(reset_of("QP_COUNT")),
            value_mr_count: c32(reset_of("MR_COUNT")),
            value_cq_count: c32(reset_of("CQ_COUNT")),
            wr_tag_data: Constant::new(WR_TAG_DATA.into()),
            wr_tag_cq: Constant::new(WR_TAG_CQ.into()),
            rd_tag: Constant::new(RD_TAG.into()),
            rd_tag_rq: Constant::new(RD_TAG_RQ.into()),
            rd_tag_read: Constant::new(RD_TAG_READ.into()),
            state_err: Constant::new((map::QpState::Err as u64).into()),
            default_pkey: Constant::new(0xffffu64.into()),
            default_ttl: Constant::new(64u64.into()),
            status_bad_icrc: Constant::new(super::rx_parse::status::BAD_ICRC.into()),
            status_malformed: Constant::new(super::rx_parse::status::MALFORMED.into()),
            status_unsupported: Constant::new(super::rx_parse::status::UNSUPPORTED_OPCODE.into()),
        }
    }
}

impl Logic for RdmaEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, control, local_ip, ack_every, timer_unit, qp_owner, qp_first, wr_owner, wr_mid, cqe_from_resp, pay_from_resp,
            px_pay_valid, px_pay_data, px_pay_nbytes, px_rec_valid, px_rec_status, px_rec_opcode, px_rec_ack_req, px_rec_solicited, px_rec_immdt, px_rec_dest_qp, px_rec_psn, px_rec_va, px_rec_rkey, px_rec_dma_len, px_rec_payload_len, px_rec_syndrome,
            in_reset, in_bus_wr, in_bus_addr, in_bus_wdata, in_bus_wmask, in_mac_lo, in_mac_hi, in_wr_rsp_valid, in_wr_rsp_error, in_wr_rsp_tag);
        for i in 0..17 {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].d.next = self.counters[i].q.val();
        }
        // the registered inputs (see the fields); a write in reset is none
        self.in_reset.d.next = self.reset.val();
        self.in_bus_wr.d.next = self.bus_wr.val() & !self.reset.val();
        self.in_bus_addr.d.next = self.bus_addr.val();
        self.in_bus_wdata.d.next = self.bus_wdata.val();
        self.in_bus_wmask.d.next = self.bus_wmask.val();
        self.in_mac_lo.d.next = self.station_mac_lo.val();
        self.in_mac_hi.d.next = self.station_mac_hi.val();
        self.in_wr_rsp_valid.d.next = self.dma_wr_rsp_valid.val() & !self.reset.val();
        self.in_wr_rsp_error.d.next = self.dma_wr_rsp_error.val();
        self.in_wr_rsp_tag.d.next = self.dma_wr_rsp_tag.val();
        clock!(self, clock, tables, rx_parse, responder, response_tx, requester, completer, cq_writer, tx_build);
        self.tables.reset.next = self.in_reset.q.val();
        self.rx_parse.reset.next = self.reset.val();
        self.responder.reset.next = self.in_reset.q.val();
        self.response_tx.reset.next = self.in_reset.q.val();
        self.requester.reset.next = self.in_reset.q.val();
        self.completer.reset.next = self.in_reset.q.val();
        self.cq_writer.reset.next = self.in_reset.q.val();
        self.tx_build.reset.next = self.in_reset.q.val();
        // ---- registers ----
        self.tables.bus_wr.next = self.in_bus_wr.q.val();
        self.tables.bus_addr.next = self.in_bus_addr.q.val();
        self.tables.bus_wdata.next = self.in_bus_wdata.q.val();
        self.tables.bus_wmask.next = self.in_bus_wmask.q.val();
        self.tables.bus_rd_addr.next = self.bus_rd_addr.val();
        self.wdata_masked.next = self.in_bus_wdata.q.val() & self.in_bus_wmask.q.val();
        self.requester.sq_db_valid.next = false;
        self.requester.sq_db_qpn.next = self.in_bus_wdata.q.val().get_bits::<8>(0);
        self.requester.sq_db_pi.next = self.in_bus_wdata.q.val().get_bits::<16>(16);
        self.responder.rq_db_valid.next = false;
        self.responder.rq_db_qpn.next = self.in_bus_wdata.q.val().get_bits::<8>(0);
        self.responder.rq_db_pi.next = self.in_bus_wdata.q.val().get_bits::<16>(16);
        self.cq_writer.db_valid.next = false;
        self.cq_writer.db_cq.next = self.in_bus_wdata.q.val().get_bits::<4>(0);
        self.cq_writer.db_arm.next = self.in_bus_wdata.q.val().get_bit(8);
        self.cq_writer.db_solicited.next = self.in_bus_wdata.q.val().get_bit(9);
        self.cq_writer.db_ci.next = self.in_bus_wdata.q.val().get_bits::<16>(16);
        if self.in_bus_wr.q.val() {
            if self.in_bus_addr.q.val() == self.addr_control.val() {
                self.control.d.next = (self.control.q.val() & !self.in_bus_wmask.q.val().get_bit(0)) | self.wdata_masked.val().get_bit(0);
            }
            if self.in_bus_addr.q.val() == self.addr_local_ipv4.val() {
                self.local_ip.d.next = (self.local_ip.q.val() & !self.in_bus_wmask.q.val()) | self.wdata_masked.val();
            }
            if self.in_bus_addr.q.val() == self.addr_ack_every.val() {
                self.ack_every.d.next = (self.ack_every.q.val() & !self.in_bus_wmask.q.val().get_bits::<3>(0)) | self.wdata_masked.val().get_bits::<3>(0);
            }
            if self.in_bus_addr.q.val() == self.addr_timer_unit.val() {
                self.timer_unit.d.next = (self.timer_unit.q.val() & !self.in_bus_wmask.q.val().get_bits::<16>(0)) | self.wdata_masked.val().get_bits::<16>(0);
            }
            // doorbells are whole-word writes; a disabled engine serves none
            if self.control.q.val() & (self.in_bus_addr.q.val() == self.addr_sq_db.val()) {
                self.requester.sq_db_valid.next = true;
            }
            if self.control.q.val() & (self.in_bus_addr.q.val() == self.addr_rq_db.val()) {
                self.responder.rq_db_valid.next = true;
            }
            if self.in_bus_addr.q.val() == self.addr_cq_db.val() {
                self.cq_writer.db_valid.next = true;
            }
        }
        self.enabled.next = self.control.q.val();
        self.local_ipv4.next = self.local_ip.q.val();
        self.rd_or.next = self.tables.bus_rdata.val();
        if self.bus_rd_addr.val() == self.addr_id.val() {
            self.rd_or.next = self.rd_or.val() | self.value_id.val();
        }
        if self.bus_rd_addr.val() == self.addr_version.val() {
            self.rd_or.next = self.rd_or.val() | self.value_version.val();
        }
        // NEXT reads 0: the end of the block chain
        if self.bus_rd_addr.val() == self.addr_qp_count.val() {
            self.rd_or.next = self.rd_or.val() | self.value_qp_count.val();
        }
        if self.bus_rd_addr.val() == self.addr_mr_count.val() {
            self.rd_or.next = self.rd_or.val() | self.value_mr_count.val();
        }
        if self.bus_rd_addr.val() == self.addr_cq_count.val() {
            self.rd_or.next = self.rd_or.val() | self.value_cq_count.val();
        }
        if self.bus_rd_addr.val() == self.addr_control.val() {
            self.rd_or.next = self.rd_or.val() | bit_cast::<32, 1>(self.control.q.val().into());
        }
        if self.bus_rd_addr.val() == self.addr_local_ipv4.val() {
            self.rd_or.next = self.rd_or.val() | self.local_ip.q.val();
        }
        if self.bus_rd_addr.val() == self.addr_ack_every.val() {
            self.rd_or.next = self.rd_or.val() | bit_cast::<32, 3>(self.ack_every.q.val());
        }
        if self.bus_rd_addr.val() == self.addr_timer_unit.val() {
            self.rd_or.next = self.rd_or.val() | bit_cast::<32, 16>(self.timer_unit.q.val());
        }
        if self.bus_rd_addr.val() == self.addr_caps.val() {
            self.rd_or.next = self.rd_or.val() | self.value_caps.val();
        }
        for i in 0..17 {
            if self.bus_rd_addr.val() == self.addr_counter[i].val() {
                self.rd_or.next = self.rd_or.val() | self.counters[i].q.val();
            }
        }
        self.bus_rdata.next = self.rd_or.val();
        // ---- the tables' broadcasts ----
        self.responder.mr_wr.next = self.tables.mr_wr.val();
        self.responder.ack_every.next = self.ack_every.q.val();
        self.tables.mr_fence_done.next = self.responder.mr_fence_done.val();
        self.responder.mr_wr_index.next = self.tables.mr_wr_index.val();
        self.responder.mr_wr_entry.next = self.tables.mr_wr_entry.val();
        self.requester.mr_wr.next = self.tables.mr_wr.val();
        self.requester.mr_wr_index.next = self.tables.mr_wr_index.val();
        self.requester.mr_wr_entry.next = self.tables.mr_wr_entry.val();
        self.responder.qp_store.next = self.tables.qp_store.val();
        self.responder.qp_store_index.next = self.tables.qp_store_index.val();
        self.responder.qp_store_state.next = self.tables.qp_store_state.val();
        self.requester.qp_store.next = self.tables.qp_store.val();
        self.requester.qp_store_index.next = self.tables.qp_store_index.val();
        self.requester.qp_store_state.next = self.tables.qp_store_state.val();
        self.completer.qp_store.next = self.tables.qp_store.val();
        self.completer.qp_store_index.next = self.tables.qp_store_index.val();
        self.completer.qp_store_state.next = self.tables.qp_store_state.val();
        self.cq_writer.cq_restart.next = self.tables.cq_restart.val();
        self.cq_writer.cq_restart_index.next = self.tables.cq_restart_index.val();
        // ---- the QP port: round robin from qp_first among the roles offering ----
        self.qp_any.next = self.requester.qp_valid.val() | self.responder.qp_valid.val() | self.completer.qp_valid.val();
        self.qp_grant.next = self.qp_first.q.val();
        if self.qp_first.q.val() == 0 {
            if self.requester.qp_valid.val() {
                self.qp_grant.next = 0.into();
            } else if self.responder.qp_valid.val() {
                self.qp_grant.next = 1.into();
            } else {
                self.qp_grant.next = 2.into();
            }
        } else if self.qp_first.q.val() == 1 {
            if self.responder.qp_valid.val() {
                self.qp_grant.next = 1.into();
            } else if self.completer.qp_valid.val() {
                self.qp_grant.next = 2.into();
            } else {
                self.qp_grant.next = 0.into();
            }
        } else {
            if self.completer.qp_valid.val() {
                self.qp_grant.next = 2.into();
            } else if self.requester.qp_valid.val() {
                self.qp_grant.next = 0.into();
            } else {
                self.qp_grant.next = 1.into();
            }
        }
        self.tables.qp_valid.next = self.qp_any.val();
        self.tables.qp_index.next = self.requester.qp_index.val();
        self.tables.qp_write.next = self.requester.qp_write.val();
        self.tables.qp_mask.next = self.requester.qp_mask.val();
        self.tables.qp_wdata.next = self.requester.qp_wdata.val();
        if self.qp_grant.val() == 1 {
            self.tables.qp_index.next = self.responder.qp_index.val();
            self.tables.qp_write.next = self.responder.qp_write.val();
            self.tables.qp_mask.next = self.responder.qp_mask.val();
            self.tables.qp_wdata.next = self.responder.qp_wdata.val();
        }
        if self.qp_grant.val() == 2 {
            self.tables.qp_index.next = self.completer.qp_index.val();
            self.tables.qp_write.next = self.completer.qp_write.val();
            self.tables.qp_mask.next = self.completer.qp_mask.val();
            self.tables.qp_wdata.next = self.completer.qp_wdata.val();
        }
        self.requester.qp_ready.next = self.tables.qp_ready.val() & (self.qp_grant.val() == 0);
        self.responder.qp_ready.next = self.tables.qp_ready.val() & (self.qp_grant.val() == 1);
        self.completer.qp_ready.next = self.tables.qp_ready.val() & (self.qp_grant.val() == 2);
        if self.qp_any.val() & self.tables.qp_ready.val() {
            self.qp_owner.d.next = self.qp_grant.val();
            self.qp_first.d.next = self.qp_grant.val() + 1;
            if self.qp_grant.val() == 2 {
                self.qp_first.d.next = 0.into();
            }
        }
        self.requester.qp_rvalid.next = self.tables.qp_rvalid.val() & (self.qp_owner.q.val() == 0);
        self.responder.qp_rvalid.next = self.tables.qp_rvalid.val() & (self.qp_owner.q.val() == 1);
        self.completer.qp_rvalid.next = self.tables.qp_rvalid.val() & (self.qp_owner.q.val() == 2);
        // a store of STATE = ERR by the requester or the completer: the responder flushes
        // that QP's receive WQEs (its own ERR stores it knows)
        self.responder.qp_err.next = false;
        self.responder.qp_err_index.next = self.requester.qp_index.val();
        if self.tables.qp_ready.val() & (self.qp_grant.val() == 0) & self.requester.qp_valid.val() & self.requester.qp_write.val()
            & (self.requester.qp_mask.val().get_bits::<3>(0) != 0) & (self.requester.qp_wdata.val().get_bits::<3>(0) == self.state_err.val())
        {
            self.responder.qp_err.next = true;
        }
        if self.tables.qp_ready.val() & (self.qp_grant.val() == 2) & self.completer.qp_valid.val() & self.completer.qp_write.val()
            & (self.completer.qp_mask.val().get_bits::<3>(0) != 0) & (self.completer.qp_wdata.val().get_bits::<3>(0) == self.state_err.val())
        {
            self.responder.qp_err.next = true;
            self.responder.qp_err_index.next = self.completer.qp_index.val();
        }
        self.requester.qp_rdata.next = self.tables.qp_rdata.val();
        self.responder.qp_rdata.next = self.tables.qp_rdata.val();
        self.completer.qp_rdata.next = self.tables.qp_rdata.val();
        // ---- the CQ port: the CQ writer's alone ----
        self.tables.cq_valid.next = self.cq_writer.cq_valid.val();
        self.cq_writer.cq_ready.next = self.tables.cq_ready.val();
        self.tables.cq_index.next = self.cq_writer.cq_index.val();
        self.tables.cq_write.next = self.cq_writer.cq_write.val();
        self.tables.cq_mask.next = self.cq_writer.cq_mask.val();
        self.tables.cq_wdata.next = self.cq_writer.cq_wdata.val();
        self.cq_writer.cq_rvalid.next = self.tables.cq_rvalid.val();
        self.cq_writer.cq_rdata.next = self.tables.cq_rdata.val();
        // ---- RX: the parser feeds the responder (requests) and the completer (responses) ----
        self.rx_parse.in_valid.next = self.rx_valid.val();
        self.rx_parse.in_data.next = self.rx_data.val();
        self.rx_parse.in_nbytes.next = self.rx_nbytes.val();
        self.rx_parse.in_last.next = self.rx_last.val();
        self.rx_parse.in_status.next = self.rx_status.val();
        self.rx_parse.local_ipv4.next = self.local_ip.q.val();
        self.rx_parse.v_valid.next = self.rx_verdict_valid.val();
        self.rx_parse.v_roce.next = self.rx_verdict_roce.val();
        self.px_pay_valid.d.next = self.rx_parse.pay_valid.val();
        self.px_pay_data.d.next = self.rx_parse.pay_data.val();
        self.px_pay_nbytes.d.next = self.rx_parse.pay_nbytes.val();
        self.px_rec_valid.d.next = self.rx_parse.rec_valid.val();
        self.px_rec_status.d.next = self.rx_parse.rec_status.val();
        self.px_rec_opcode.d.next = self.rx_parse.rec_opcode.val();
        self.px_rec_ack_req.d.next = self.rx_parse.rec_ack_req.val();
        self.px_rec_solicited.d.next = self.rx_parse.rec_solicited.val();
        self.px_rec_immdt.d.next = self.rx_parse.rec_immdt.val();
        self.px_rec_dest_qp.d.next = self.rx_parse.rec_dest_qp.val();
        self.px_rec_psn.d.next = self.rx_parse.rec_psn.val();
        self.px_rec_va.d.next = self.rx_parse.rec_va.val();
        self.px_rec_rkey.d.next = self.rx_parse.rec_rkey.val();
        self.px_rec_dma_len.d.next = self.rx_parse.rec_dma_len.val();
        self.px_rec_payload_len.d.next = self.rx_parse.rec_payload_len.val();
        self.px_rec_syndrome.d.next = self.rx_parse.rec_syndrome.val();
        self.responder.pay_valid.next = self.px_pay_valid.q.val();
        self.responder.pay_data.next = self.px_pay_data.q.val();
        self.responder.pay_nbytes.next = self.px_pay_nbytes.q.val();
        self.responder.rec_valid.next = self.px_rec_valid.q.val();
        self.responder.rec_status.next = self.px_rec_status.q.val();
        self.responder.rec_opcode.next = self.px_rec_opcode.q.val();
        self.responder.rec_ack_req.next = self.px_rec_ack_req.q.val();
        self.responder.rec_solicited.next = self.px_rec_solicited.q.val();
        self.responder.rec_immdt.next = self.px_rec_immdt.q.val();
        self.responder.rec_dest_qp.next = self.px_rec_dest_qp.q.val();
        self.responder.rec_psn.next = self.px_rec_psn.q.val();
        self.responder.rec_va.next = self.px_rec_va.q.val();
        self.responder.rec_rkey.next = self.px_rec_rkey.q.val();
        self.responder.rec_dma_len.next = self.px_rec_dma_len.q.val();
        self.responder.rec_payload_len.next = self.px_rec_payload_len.q.val();
        self.completer.rec_valid.next = self.px_rec_valid.q.val();
        self.completer.rec_status.next = self.px_rec_status.q.val();
        self.completer.rec_opcode.next = self.px_rec_opcode.q.val();
        self.completer.rec_dest_qp.next = self.px_rec_dest_qp.q.val();
        self.completer.rec_psn.next = self.px_rec_psn.q.val();
        self.completer.rec_syndrome.next = self.px_rec_syndrome.q.val();
        self.completer.rec_payload_len.next = self.px_rec_payload_len.q.val();
        // READ responses: taken by both or neither; the completer's verdict on each to the
        // responder (which holds the payload and lands it), the result back
        self.completer.rsp_rec_full.next = self.responder.records_full.val();
        self.responder.cpl_rec_full.next = self.completer.records_full.val();
        self.responder.vd_valid.next = self.completer.vd_valid.val();
        self.completer.vd_ready.next = self.responder.vd_ready.val();
        self.responder.vd_ok.next = self.completer.vd_ok.val();
        self.responder.vd_wqe_addr.next = self.completer.vd_wqe_addr.val();
        self.responder.vd_pd.next = self.completer.vd_pd.val();
        self.responder.vd_len.next = self.completer.vd_len.val();
        self.responder.vd_offset.next = self.completer.vd_offset.val();
        self.completer.rr_valid.next = self.responder.rr_valid.val();
        self.responder.rr_ready.next = self.completer.rr_ready.val();
        self.completer.rr_status.next = self.responder.rr_status.val();
        self.completer.rr_lost.next = self.responder.rr_lost.val();
        // ---- requester → completer ----
        self.completer.out_valid.next = self.requester.out_valid.val();
        self.requester.out_ready.next = self.completer.out_ready.val();
        self.completer.out_qpn.next = self.requester.out_qpn.val();
        self.completer.out_wr_id.next = self.requester.out_wr_id.val();
        self.completer.out_opcode.next = self.requester.out_opcode.val();
        self.completer.out_signalled.next = self.requester.out_flags.val().get_bit(0);
        self.completer.out_last_psn.next = self.requester.out_last_psn.val();
        self.completer.out_first_psn.next = self.requester.out_first_psn.val();
        self.completer.out_sq_index.next = self.requester.out_sq_index.val();
        self.completer.out_len.next = self.requester.out_len.val();
        self.completer.out_status.next = self.requester.out_status.val();
        self.requester.sq_full.next = self.completer.sq_full.val();
        self.completer.out_offset.next = self.requester.out_offset.val();
        self.completer.timer_unit.next = self.timer_unit.q.val();
        self.requester.sq_hold.next = self.completer.sq_hold.val();
        self.requester.rd_sync_valid.next = self.completer.rd_sync_valid.val();
        self.requester.rd_sync_wake.next = self.completer.rd_sync_wake.val();
        self.requester.rd_sync_qpn.next = self.completer.rd_sync_qpn.val();
        self.requester.rd_sync_count.next = self.completer.rd_sync_count.val();
        self.requester.rw_valid.next = self.completer.rw_valid.val();
        self.completer.rw_ready.next = self.requester.rw_ready.val();
        self.requester.rw_qpn.next = self.completer.rw_qpn.val();
        self.requester.rw_sq_index.next = self.completer.rw_sq_index.val();
        self.requester.rw_first_psn.next = self.completer.rw_first_psn.val();
        self.requester.rw_psn.next = self.completer.rw_psn.val();
        self.requester.rw_offset.next = self.completer.rw_offset.val();
        // ---- completer and responder → CQ writer, in turn when both have one ----
        self.cqe_pick_resp.next = self.responder.cqe_valid.val() & (!self.completer.cqe_valid.val() | !self.cqe_from_resp.q.val());
        self.cq_writer.cqe_valid.next = self.completer.cqe_valid.val() | self.responder.cqe_valid.val();
        self.completer.cqe_ready.next = self.cq_writer.cqe_ready.val() & !self.cqe_pick_resp.val();
        self.responder.cqe_ready.next = self.cq_writer.cqe_ready.val() & self.cqe_pick_resp.val();
        self.cq_writer.cqe_cq.next = self.completer.cqe_cq.val();
        self.cq_writer.cqe_entry.next = self.completer.cqe_entry.val();
        if self.cqe_pick_resp.val() {
            self.cq_writer.cqe_cq.next = self.responder.cqe_cq.val();
            self.cq_writer.cqe_entry.next = self.responder.cqe_entry.val();
        }
        if self.cq_writer.cqe_valid.val() & self.cq_writer.cqe_ready.val() {
            self.cqe_from_resp.d.next = self.cqe_pick_resp.val();
        }
        self.irq.next = self.cq_writer.irq.val();
        // ---- DMA reads: the responder's receive WQE first (one at a time, rare), then the
        // requester's; answers routed by tag (both take theirs whenever they come) ----
        self.dma_rd_req_valid.next = self.requester.dma_rd_req_valid.val() | self.responder.dma_rd_req_valid.val() | self.response_tx.dma_rd_req_valid.val();
        self.responder.dma_rd_req_ready.next = self.dma_rd_req_ready.val();
        self.response_tx.dma_rd_req_ready.next = self.dma_rd_req_ready.val() & !self.responder.dma_rd_req_valid.val();
        self.requester.dma_rd_req_ready.next = self.dma_rd_req_ready.val() & !self.responder.dma_rd_req_valid.val() & !self.response_tx.dma_rd_req_valid.val();
        self.dma_rd_req_addr.next = self.requester.dma_rd_req_addr.val();
        self.dma_rd_req_len.next = self.requester.dma_rd_req_len.val();
        self.dma_rd_req_tag.next = self.rd_tag.val();
        if self.responder.dma_rd_req_valid.val() {
            self.dma_rd_req_addr.next = self.responder.dma_rd_req_addr.val();
            self.dma_rd_req_len.next = self.responder.dma_rd_req_len.val();
            self.dma_rd_req_tag.next = self.rd_tag_rq.val();
        } else if self.response_tx.dma_rd_req_valid.val() {
            self.dma_rd_req_addr.next = self.response_tx.dma_rd_req_addr.val();
            self.dma_rd_req_len.next = self.response_tx.dma_rd_req_len.val();
            self.dma_rd_req_tag.next = self.rd_tag_read.val();
        }
        self.requester.dma_rd_rsp_valid.next = self.dma_rd_rsp_valid.val() & (self.dma_rd_rsp_tag.val() == self.rd_tag.val());
        self.responder.dma_rd_rsp_valid.next = self.dma_rd_rsp_valid.val() & (self.dma_rd_rsp_tag.val() == self.rd_tag_rq.val());
        self.response_tx.dma_rd_rsp_valid.next = self.dma_rd_rsp_valid.val() & (self.dma_rd_rsp_tag.val() == self.rd_tag_read.val());
        self.response_tx.dma_rd_rsp_data.next = self.dma_rd_rsp_data.val();
        self.dma_rd_rsp_ready.next = self.requester.dma_rd_rsp_ready.val();
        if self.dma_rd_rsp_tag.val() == self.rd_tag_rq.val() {
            self.dma_rd_rsp_ready.next = self.responder.dma_rd_rsp_ready.val();
        }
        if self.dma_rd_rsp_tag.val() == self.rd_tag_read.val() {
            self.dma_rd_rsp_ready.next = self.response_tx.dma_rd_rsp_ready.val();
        }
        self.responder.dma_rd_rsp_data.next = self.dma_rd_rsp_data.val();
        self.responder.dma_rd_rsp_last.next = self.dma_rd_rsp_last.val();
        self.responder.dma_rd_rsp_error.next = self.dma_rd_rsp_error.val();
        self.requester.dma_rd_rsp_data.next = self.dma_rd_rsp_data.val();
        self.requester.dma_rd_rsp_last.next = self.dma_rd_rsp_last.val();
        self.requester.dma_rd_rsp_error.next = self.dma_rd_rsp_error.val();
        // ---- DMA writes: the CQ writer first, a burst kept together ----
        self.wr_sel.next = self.wr_owner.q.val();
        if self.wr_owner.q.val() == 0 {
            if self.cq_writer.dma_wr_valid.val() {
                self.wr_sel.next = 2.into();
            } else if self.responder.dma_wr_valid.val() {
                self.wr_sel.next = 1.into();
            }
        }
        self.responder.dma_wr_ready.next = self.dma_wr_ready.val() & (self.wr_sel.val() == 1);
        self.cq_writer.dma_wr_ready.next = self.dma_wr_ready.val() & (self.wr_sel.val() == 2);
        self.dma_wr_valid.next = false;
        self.dma_wr_addr.next = self.responder.dma_wr_addr.val();
        self.dma_wr_data.next = self.responder.dma_wr_data.val();
        self.dma_wr_strb.next = self.responder.dma_wr_strb.val();
        self.dma_wr_last.next = self.responder.dma_wr_last.val();
        self.dma_wr_tag.next = self.wr_tag_data.val();
        if self.wr_sel.val() == 1 {
            self.dma_wr_valid.next = self.responder.dma_wr_valid.val();
        }
        if self.wr_sel.val() == 2 {
            self.dma_wr_valid.next = self.cq_writer.dma_wr_valid.val();
            self.dma_wr_addr.next = self.cq_writer.dma_wr_addr.val();
            self.dma_wr_data.next = self.cq_writer.dma_wr_data.val();
            self.dma_wr_strb.next = self.cq_writer.dma_wr_strb.val();
            self.dma_wr_last.next = self.cq_writer.dma_wr_last.val();
            self.dma_wr_tag.next = self.wr_tag_cq.val();
        }
        // held from a beat offered to its burst's last beat taken, through gaps in the burst
        if self.dma_wr_valid.val() {
            if self.dma_wr_ready.val() & self.dma_wr_last.val() {
                self.wr_owner.d.next = 0.into();
                self.wr_mid.d.next = false;
            } else {
                self.wr_owner.d.next = self.wr_sel.val();
                if self.dma_wr_ready.val() {
                    self.wr_mid.d.next = true;
                }
            }
        } else if !self.wr_mid.q.val() {
            self.wr_owner.d.next = 0.into();
        }
        self.cq_writer.dma_wr_rsp_valid.next = self.in_wr_rsp_valid.q.val() & (self.in_wr_rsp_tag.q.val() == self.wr_tag_cq.val());
        self.cq_writer.dma_wr_rsp_error.next = self.in_wr_rsp_error.q.val();
        // ---- what the responder owes, to its transmit side ----
        self.response_tx.owed_valid.next = self.responder.ack_valid.val();
        self.responder.ack_ready.next = self.response_tx.owed_ready.val();
        self.response_tx.owed_read.next = self.responder.ack_read.val();
        self.response_tx.owed_psn.next = self.responder.ack_psn.val();
        self.response_tx.owed_syndrome.next = self.responder.ack_syndrome.val();
        self.response_tx.owed_msn.next = self.responder.ack_msn.val();
        self.response_tx.owed_dst_mac.next = self.responder.ack_dst_mac.val();
        self.response_tx.owed_dst_ip.next = self.responder.ack_dst_ip.val();
        self.response_tx.owed_udp_src_port.next = self.responder.ack_udp_src_port.val();
        self.response_tx.owed_dest_qp.next = self.responder.ack_dest_qp.val();
        self.response_tx.owed_bus.next = self.responder.ack_bus.val();
        self.response_tx.owed_len.next = self.responder.ack_len.val();
        self.response_tx.owed_pmtu.next = self.responder.ack_pmtu.val();
        self.response_tx.owed_qpn.next = self.responder.ack_qpn.val();
        self.response_tx.owed_urgent.next = self.responder.ack_urgent.val();
        self.responder.ack_yield.next = self.response_tx.owed_yield.val();
        self.response_tx.rs_valid.next = self.responder.rs_valid.val();
        self.responder.rs_take.next = self.response_tx.rs_take.val();
        self.response_tx.rs_qpn.next = self.responder.rs_qpn.val();
        self.response_tx.rs_psn.next = self.responder.rs_psn.val();
        self.response_tx.rs_bus.next = self.responder.rs_bus.val();
        self.response_tx.rs_len.next = self.responder.rs_len.val();
        // ---- transmit: a response (ACK, NAK, READ response) first, then the requester's packet ----
        self.tx_ack.next = self.response_tx.tx_valid.val();
        self.station_be.next = (bit_cast::<48, 8>(self.in_mac_lo.q.val().get_bits::<8>(0)) << 40) | (bit_cast::<48, 8>(self.in_mac_lo.q.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.in_mac_lo.q.val().get_bits::<8>(16)) << 24) | (bit_cast::<48, 8>(self.in_mac_lo.q.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.in_mac_hi.q.val().get_bits::<8>(0)) << 8) | bit_cast::<48, 8>(self.in_mac_hi.q.val().get_bits::<8>(8));
        self.tx_build.req_src_mac.next = self.station_be.val();
        self.tx_build.req_src_ip.next = self.local_ip.q.val();
        self.tx_build.req_tos.next = 0.into();
        self.tx_build.req_ttl.next = self.default_ttl.val();
        self.tx_build.req_pkey.next = self.default_pkey.val();
        self.tx_build.req_valid.next = self.requester.tx_valid.val();
        self.tx_build.req_dst_mac.next = self.requester.tx_dst_mac.val();
        self.tx_build.req_dst_ip.next = self.requester.tx_dst_ip.val();
        self.tx_build.req_udp_src_port.next = self.requester.tx_udp_src_port.val();
        self.tx_build.req_opcode.next = self.requester.tx_opcode.val();
        self.tx_build.req_solicited.next = self.requester.tx_solicited.val();
        self.tx_build.req_ack_req.next = self.requester.tx_ack_req.val();
        self.tx_build.req_dest_qp.next = self.requester.tx_dest_qp.val();
        self.tx_build.req_psn.next = self.requester.tx_psn.val();
        self.tx_build.req_va.next = self.requester.tx_va.val();
        self.tx_build.req_rkey.next = self.requester.tx_rkey.val();
        self.tx_build.req_dma_len.next = self.requester.tx_dma_len.val();
        self.tx_build.req_syndrome.next = 0.into();
        self.tx_build.req_msn.next = 0.into();
        self.tx_build.req_immdt.next = self.requester.tx_immdt.val();
        self.tx_build.req_payload_len.next = self.requester.tx_payload_len.val();
        if self.tx_ack.val() {
            self.tx_build.req_valid.next = true;
            self.tx_build.req_dst_mac.next = self.response_tx.tx_dst_mac.val();
            self.tx_build.req_dst_ip.next = self.response_tx.tx_dst_ip.val();
            self.tx_build.req_udp_src_port.next = self.response_tx.tx_udp_src_port.val();
            self.tx_build.req_opcode.next = self.response_tx.tx_opcode.val();
            self.tx_build.req_solicited.next = false;
            self.tx_build.req_ack_req.next = false;
            self.tx_build.req_dest_qp.next = self.response_tx.tx_dest_qp.val();
            self.tx_build.req_psn.next = self.response_tx.tx_psn.val();
            self.tx_build.req_va.next = 0.into();
            self.tx_build.req_rkey.next = 0.into();
            self.tx_build.req_dma_len.next = 0.into();
            self.tx_build.req_syndrome.next = self.response_tx.tx_syndrome.val();
            self.tx_build.req_msn.next = self.response_tx.tx_msn.val();
            self.tx_build.req_immdt.next = 0.into();
            self.tx_build.req_payload_len.next = self.response_tx.tx_payload_len.val();
        }
        self.response_tx.tx_ready.next = self.tx_ack.val() & self.tx_build.req_ready.val();
        self.requester.tx_ready.next = !self.tx_ack.val() & self.tx_build.req_ready.val();
        self.tx_fire.next = self.tx_build.req_valid.val() & self.tx_build.req_ready.val();
        if self.tx_fire.val() {
            self.pay_from_resp.d.next = self.tx_ack.val();
        }
        // the payload port belongs to the packet the framer took last
        self.tx_build.pay_valid.next = self.requester.pay_valid.val();
        self.tx_build.pay_data.next = self.requester.pay_data.val();
        self.requester.pay_ready.next = self.tx_build.pay_ready.val() & !self.pay_from_resp.q.val();
        self.response_tx.pay_ready.next = self.tx_build.pay_ready.val() & self.pay_from_resp.q.val();
        if self.pay_from_resp.q.val() {
            self.tx_build.pay_valid.next = self.response_tx.pay_valid.val();
            self.tx_build.pay_data.next = self.response_tx.pay_data.val();
        }
        self.tx_valid.next = self.tx_build.out_valid.val();
        self.tx_build.out_ready.next = self.tx_ready.val();
        self.tx_data.next = self.tx_build.out_data.val();
        self.tx_nbytes.next = self.tx_build.out_nbytes.val();
        self.tx_last.next = self.tx_build.out_last.val();
        // ---- counters (COUNTERS order) ----
        for i in 0..17 {
            self.inc[i].next = 0.into();
        }
        if self.tx_fire.val() {
            self.inc[0].next = 1.into();
            self.inc[1].next = bit_cast::<32, 16>(self.tx_build.req_payload_len.val());
            if self.tx_ack.val() & self.response_tx.tx_is_ack.val() {
                // AETH syndrome 000xxxxx: ACK; anything else a NAK (RNR 001, NAK 011)
                if self.response_tx.tx_syndrome.val().get_bits::<3>(5) == 0 {
                    self.inc[8].next = 1.into();
                } else {
                    self.inc[9].next = 1.into();
                }
            }
        }
        self.inc[2].next = bit_cast::<32, 1>(self.responder.cnt_rx_packet.val().into()) + bit_cast::<32, 1>(self.completer.cnt_rx_packet.val().into());
        if self.responder.cnt_rx_packet.val() {
            self.inc[3].next = bit_cast::<32, 16>(self.responder.cnt_rx_bytes.val());
        }
        if self.completer.cnt_rx_packet.val() {
            self.inc[3].next = self.inc[3].val() + bit_cast::<32, 16>(self.completer.cnt_rx_bytes.val());
        }
        if self.rx_parse.rec_valid.val() & !self.rx_parse.rec_foreign.val() {
            if self.rx_parse.rec_status.val() == self.status_bad_icrc.val() {
                self.inc[4].next = 1.into();
            }
            if (self.rx_parse.rec_status.val() == self.status_malformed.val()) | (self.rx_parse.rec_status.val() == self.status_unsupported.val()) {
                self.inc[5].next = 1.into();
            }
        }
        if self.completer.cnt_drop_malformed.val() {
            self.inc[5].next = self.inc[5].val() + 1;
        }
        if self.rx_parse.drop_short.val() {
            self.inc[5].next = self.inc[5].val() + 1;
        }
        self.inc[6].next = bit_cast::<32, 1>(self.responder.cnt_drop_qp.val().into()) + bit_cast::<32, 1>(self.completer.cnt_drop_qp.val().into());
        self.inc[16].next = bit_cast::<32, 1>(self.responder.cnt_drop_state.val().into()) + bit_cast::<32, 1>(self.completer.cnt_drop_state.val().into());
        self.inc[7].next = bit_cast::<32, 1>(self.responder.cnt_drop_psn.val().into()) + bit_cast::<32, 1>(self.completer.cnt_drop_psn.val().into());
        self.inc[10].next = bit_cast::<32, 1>(self.completer.cnt_nak.val().into());
        self.inc[11].next = bit_cast::<32, 1>(self.cq_writer.cnt_overflow.val().into());
        self.inc[12].next = bit_cast::<32, 1>(self.responder.cnt_drop_nobuf.val().into())
            + bit_cast::<32, 1>(self.responder.cnt_drop_norecord.val().into())
            + bit_cast::<32, 1>(self.completer.cnt_drop_norecord.val().into());
        self.inc[13].next = bit_cast::<32, 1>(self.responder.cnt_duplicate.val().into());
        self.inc[14].next = bit_cast::<32, 1>(self.completer.cnt_retry.val().into());
        self.inc[15].next = bit_cast::<32, 1>(self.requester.cnt_resent.val().into());
        for i in 0..17 {
            self.counters[i].d.next = self.counters[i].q.val() + self.inc[i].val();
        }
        if self.in_reset.q.val() {
            self.control.d.next = false;
            self.local_ip.d.next = 0.into();
            self.ack_every.d.next = 0.into();
            self.timer_unit.d.next = self.reset_timer_unit.val();
            self.qp_owner.d.next = 0.into();
            self.qp_first.d.next = 0.into();
            self.wr_owner.d.next = 0.into();
            self.wr_mid.d.next = false;
            self.cqe_from_resp.d.next = false;
            self.pay_from_resp.d.next = false;
            self.px_pay_valid.d.next = false;
            self.px_rec_valid.d.next = false;
            for i in 0..17 {
                self.counters[i].d.next = 0.into();
            }
        }
    }
}
