//! `nic_top`: the CSR block, the TX and RX queue engines, the RX classifier (MAC filter,
//! parser, checksum check, RSS), the MAC and the loopback switch, wired to the four
//! external interfaces of docs/interfaces.md.
//!
//! The two arbiters for the DMA port live here because they are a few lines each:
//! reads go to the RX descriptor fetch first (RX must never starve for buffers), then
//! the TX descriptor fetch, then TX data; writes (every RX data beat is a burst of its
//! own, so nothing holds the port for a frame) keep a burst together and
//! otherwise let the RX engine go first. A request or beat offered and not yet accepted
//! keeps the grant (valid/ready: what is offered holds until taken). Responses are
//! routed by tag.

use crate::csr::{CsrBlock, QueueDir, QueueRegs, RxcRegs};
use crate::dma::{RxEngine, TxEngine};
use crate::mac::{MacRx, MacTx};
use crate::rdma::engine::{RdmaEngine, RD_TAG, RD_TAG_READ, RD_TAG_RQ, WR_TAG_CQ, WR_TAG_DATA};
use crate::rx::{RxClassifier, RxLeanClassifier};
use crate::stream::RegSlice;
use crate::tx::TxOffload;
use crate::Config;
use rust_hdl::prelude::*;

/// Read tags (docs/interfaces.md).
pub const TAG_TX_DESC: u64 = 0;
pub const TAG_TX_DATA: u64 = 1;
/// RX queue q's descriptor fetch: `TAG_RX_DESC + q`.
pub const TAG_RX_DESC: u64 = 8;
/// Write tags.
pub const TAG_RX_DATA: u64 = 0;
pub const TAG_TX_WRITEBACK: u64 = 2;
/// RX queue q's descriptor write-back: `TAG_RX_WRITEBACK + q`.
pub const TAG_RX_WRITEBACK: u64 = 8;

/// `TN`/`TNP1`: log2 depth of the TX data FIFO (+1); `RN`/`RNP1`: of the RX FIFO;
/// `RQ`: number of RX queues; `TQ`: number of TX queues; `BN`/`BNP1`: log2 of the TX
/// offload buffer in 8-byte beats (+1).
#[derive(LogicBlock)]
pub struct NicTop<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // AXI4-Lite register slave
    pub s_axil_awaddr: Signal<In, Bits<16>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<16>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // DMA port: reads
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_len: Signal<Out, Bits<16>>,
    pub dma_rd_req_tag: Signal<Out, Bits<4>>,
    pub dma_rd_rsp_valid: Signal<In, Bit>,
    pub dma_rd_rsp_ready: Signal<Out, Bit>,
    pub dma_rd_rsp_data: Signal<In, Bits<128>>,
    pub dma_rd_rsp_last: Signal<In, Bit>,
    pub dma_rd_rsp_error: Signal<In, Bit>,
    pub dma_rd_rsp_tag: Signal<In, Bits<4>>,
    // DMA port: writes
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
    // wire out
    pub tx_axis_tdata: Signal<Out, Bits<64>>,
    pub tx_axis_tkeep: Signal<Out, Bits<8>>,
    pub tx_axis_tlast: Signal<Out, Bit>,
    pub tx_axis_tuser: Signal<Out, Bit>,
    pub tx_axis_tvalid: Signal<Out, Bit>,
    pub tx_axis_tready: Signal<In, Bit>,
    // wire in
    pub rx_axis_tdata: Signal<In, Bits<64>>,
    pub rx_axis_tkeep: Signal<In, Bits<8>>,
    pub rx_axis_tlast: Signal<In, Bit>,
    pub rx_axis_tuser: Signal<In, Bit>,
    pub rx_axis_tvalid: Signal<In, Bit>,
    pub rx_axis_tready: Signal<Out, Bit>,
    // interrupts: bit q = TX queue q, bit 8 + q = RX queue q, bit 16 + c = RDMA CQ c
    pub irq: Signal<Out, Bits<32>>,
    csr: CsrBlock,
    tx: TxEngine<TN, TNP1, TQ>,
    tx_offload: TxOffload<BN, BNP1>,
    rx: RxEngine<RN, RNP1, RQ>,
    txq_regs: [QueueRegs; TQ],
    rxq_regs: [QueueRegs; RQ],
    rxc_regs: RxcRegs,
    rx_class: RxClassifier,
    /// The classifier of a build without RSS and checksum validation (one of the two
    /// classifiers is used; synthesis removes the other).
    rx_lean: RxLeanClassifier,
    mac_tx: MacTx,
    mac_rx: MacRx,
    /// Register slices cutting the stream path (timing): TX engine → MAC TX (data 64,
    /// len 4, last, user), MAC TX → wire and loopback (data 64, keep 8, last, user), MAC
    /// RX → RX engine (data 64, len 4, last, status 3). Skid buffers in `full`,
    /// forward-only in `small` (`Config::skid_slices`).
    slice_tx: RegSlice<Bits<70>>,
    slice_wire: RegSlice<Bits<74>>,
    slice_rx: RegSlice<Bits<72>>,
    /// The RDMA engine: one in a build with `Config::has_rdma` (`RD` = 1), none otherwise.
    rdma: [RdmaEngine; RD],
    /// The DMA write port's holder (0 none, 1 RX engine, 2 TX write-back, 3 RDMA engine):
    /// a beat offered and not yet taken, or a burst not yet over, keeps the port.
    wr_cur: DFF<Bits<2>>,
    /// A beat of the holder's burst was taken and its last is still to come.
    wr_mid: DFF<Bit>,
    wr_sel: Signal<Local, Bits<2>>,
    /// The read client offered and not yet taken (0 none, 1 RX desc, 2 TX desc, 3 TX
    /// data, 4 RDMA engine).
    rd_hold: DFF<Bits<3>>,
    /// The register blocks' read data, ORed.
    rd_or: Signal<Local, Bits<32>>,
    rd_sel: Signal<Local, Bits<3>>,
    loopback: Signal<Local, Bit>,
    /// MAC TX arbiter: the source of the frame under way (0 none, 1 the TX queues, 2 the
    /// RDMA engine), held from its first beat offered to its last beat taken.
    tx_owner: DFF<Bits<2>>,
    /// A beat of the frame under way was taken and its last is still to come.
    tx_mid: DFF<Bit>,
    /// The RDMA engine sent the last frame: the TX queues go first next (frames alternate).
    tx_rdma_last: DFF<Bit>,
    tx_sel: Signal<Local, Bits<2>>,
    /// The TX queues' frame stream before the arbiter (the `slice_tx` layout), and its ready.
    eth_tx: Signal<Local, Bits<70>>,
    eth_tx_valid: Signal<Local, Bit>,
    eth_tx_ready: Signal<Local, Bit>,
    /// The arbiter's choice, into `slice_tx`.
    arb_tx: Signal<Local, Bits<70>>,
    arb_tx_valid: Signal<Local, Bit>,
    /// A classified frame for the RDMA engine (RoCEv2 to LOCAL_IPV4, accepted by the filter).
    divert: Signal<Local, Bit>,
    // the RDMA engine's outputs (0 without one)
    rdma_tx: Signal<Local, Bits<70>>,
    rdma_tx_valid: Signal<Local, Bit>,
    rdma_tx_data: Signal<Local, Bits<64>>,
    rdma_tx_nbytes: Signal<Local, Bits<4>>,
    rdma_tx_last: Signal<Local, Bit>,
    rdma_irq16: Signal<Local, Bits<16>>,
    rdma_enabled: Signal<Local, Bit>,
    rdma_local_ipv4: Signal<Local, Bits<32>>,
    rdma_rdata: Signal<Local, Bits<32>>,
    rdma_irq: Signal<Local, Bits<32>>,
    rdma_rd_valid: Signal<Local, Bit>,
    rdma_rd_addr: Signal<Local, Bits<64>>,
    rdma_rd_len: Signal<Local, Bits<16>>,
    rdma_rd_rsp_ready: Signal<Local, Bit>,
    rdma_rd_tag: Signal<Local, Bits<4>>,
    /// A read answer carries one of the engine's tags (RD_TAG, RD_TAG_RQ, RD_TAG_READ: 2, 3, 4).
    rdma_rsp_mine: Signal<Local, Bit>,
    rdma_wr_valid: Signal<Local, Bit>,
    rdma_wr_addr: Signal<Local, Bits<64>>,
    rdma_wr_data: Signal<Local, Bits<128>>,
    rdma_wr_strb: Signal<Local, Bits<16>>,
    rdma_wr_last: Signal<Local, Bit>,
    rdma_wr_tag: Signal<Local, Bits<4>>,
    rd_tag_rdma: Constant<Bits<4>>,
    rx_meta: Signal<Local, Bits<72>>,
    rx_irq_bits: Signal<Local, Bits<32>>,
    tx_irq_bits: Signal<Local, Bits<32>>,
    /// IRQ_STATUS bit of TX queue q: q.
    tx_irq_bit: [Constant<Bits<32>>; TQ],
    /// IRQ_STATUS bit of RX queue q: 8 + q.
    rx_irq_bit: [Constant<Bits<32>>; RQ],
    /// RQ - 1: the classifier masks queue numbers with it.
    rx_queue_mask: Constant<Bits<8>>,
    /// The build has the TX offload engine (`Config::has_tx_offload`). Without it the
    /// TX engine feeds the MAC directly and the engine's logic, left without a reader,
    /// is removed by synthesis.
    has_tx_offload: Constant<Bit>,
    /// The build has RSS and RX checksum validation (`Config::has_rx_offload`).
    has_rx_offload: Constant<Bit>,
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> NicTop<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD> {
    pub fn new(config: Config) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_req_tag: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            dma_rd_rsp_last: Default::default(),
            dma_rd_rsp_error: Default::default(),
            dma_rd_rsp_tag: Default::default(),
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
            tx_axis_tdata: Default::default(),
            tx_axis_tkeep: Default::default(),
            tx_axis_tlast: Default::default(),
            tx_axis_tuser: Default::default(),
            tx_axis_tvalid: Default::default(),
            tx_axis_tready: Default::default(),
            rx_axis_tdata: Default::default(),
            rx_axis_tkeep: Default::default(),
            rx_axis_tlast: Default::default(),
            rx_axis_tuser: Default::default(),
            rx_axis_tvalid: Default::default(),
            rx_axis_tready: Default::default(),
            irq: Default::default(),
            csr: CsrBlock::new(config),
            tx: TxEngine::default()
                .with_scatter_gather(config.has_scatter_gather())
                .with_narrow_fifo(config.narrow_tx_fifo())
                .with_head_slice(config.skid_slices()),
            tx_offload: Default::default(),
            rx: if config.has_rx_offload() { RxEngine::default() } else { RxEngine::without_rx_offload() }
                .with_narrow_fifo(config.narrow_rx_fifo())
                .with_head_slice(config.skid_slices()),
            txq_regs: std::array::from_fn(|q| QueueRegs::new(QueueDir::Tx, q as u32, config.has_irq_moderation(), config.gates_register_decode())),
            tx_irq_bit: std::array::from_fn(|q| Constant::new(Bits::<32>::from(1u64 << q))),
            rxq_regs: std::array::from_fn(|q| QueueRegs::new(QueueDir::Rx, q as u32, config.has_irq_moderation(), config.gates_register_decode())),
            rxc_regs: RxcRegs::new(config),
            rx_class: Default::default(),
            rx_lean: Default::default(),
            mac_tx: MacTx::with_half_rate_crc(config.half_rate_crc()),
            mac_rx: MacRx::with_half_rate_crc(config.half_rate_crc()),
            slice_tx: RegSlice::with_skid(config.skid_slices()),
            slice_wire: RegSlice::with_skid(config.skid_slices()),
            slice_rx: if config.mac_rx_slice() { RegSlice::with_skid(config.skid_slices()) } else { RegSlice::wire() },
            rdma: {
                assert_eq!(RD, usize::from(config.has_rdma()), "NicTop<.., RD>: RD is 1 exactly in a build with RDMA");
                std::array::from_fn(|_| RdmaEngine::default())
            },
            wr_cur: Default::default(),
            wr_mid: Default::default(),
            wr_sel: Default::default(),
            rd_hold: Default::default(),
            rd_or: Default::default(),
            rd_sel: Default::default(),
            loopback: Default::default(),
            tx_owner: Default::default(),
            tx_mid: Default::default(),
            tx_rdma_last: Default::default(),
            tx_sel: Default::default(),
            eth_tx: Default::default(),
            eth_tx_valid: Default::default(),
            eth_tx_ready: Default::default(),
            arb_tx: Default::default(),
            arb_tx_valid: Default::default(),
            divert: Default::default(),
            rdma_tx: Default::default(),
            rdma_tx_valid: Default::default(),
            rdma_tx_data: Default::default(),
            rdma_tx_nbytes: Default::default(),
            rdma_tx_last: Default::default(),
            rdma_irq16: Default::default(),
            rdma_enabled: Default::default(),
            rdma_local_ipv4: Default::default(),
            rdma_rdata: Default::default(),
            rdma_irq: Default::default(),
            rdma_rd_valid: Default::default(),
            rdma_rd_addr: Default::default(),
            rdma_rd_len: Default::default(),
            rdma_rd_rsp_ready: Default::default(),
            rdma_rd_tag: Default::default(),
            rdma_rsp_mine: Default::default(),
            rdma_wr_valid: Default::default(),
            rdma_wr_addr: Default::default(),
            rdma_wr_data: Default::default(),
            rdma_wr_strb: Default::default(),
            rdma_wr_last: Default::default(),
            rdma_wr_tag: Default::default(),
            rd_tag_rdma: {
                assert!(nic_regmap::rdma::BASE == 0x4000, "the RDMA engine's inputs decode its register window as 0x4xxx");
                assert!(WR_TAG_DATA == 4 && WR_TAG_CQ == 5, "the RDMA engine's write acknowledgements are decoded as tags 4 and 5");
                assert!(RD_TAG == 2 && RD_TAG_RQ == 3 && RD_TAG_READ == 4, "rdma_rsp_mine decodes the engine's read tags as 2..4");
                Constant::new(RD_TAG.into())
            },
            rx_meta: Default::default(),
            rx_irq_bits: Default::default(),
            tx_irq_bits: Default::default(),
            rx_irq_bit: std::array::from_fn(|q| Constant::new(Bits::<32>::from(1u64 << (nic_regmap::RX_IRQ_BASE as usize + q)))),
            rx_queue_mask: {
                assert!(RQ.is_power_of_two(), "RX queue counts are powers of two (RSS masks with RQ - 1)");
                Constant::new(Bits::<8>::from(RQ as u64 - 1))
            },
            has_tx_offload: Constant::new(config.has_tx_offload()),
            has_rx_offload: Constant::new(config.has_rx_offload()),
        }
    }
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> Logic for NicTop<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_cur, wr_mid, rd_hold, tx_owner, tx_mid, tx_rdma_last);
        clock!(self, clock, csr, tx, tx_offload, rx, rxc_regs, rx_class, rx_lean, mac_tx, mac_rx, slice_tx, slice_wire, slice_rx);
        self.slice_tx.reset.next = self.reset.val();
        self.slice_wire.reset.next = self.reset.val();
        self.slice_rx.reset.next = self.reset.val();
        self.csr.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();
        self.rx.reset.next = self.reset.val();
        self.mac_tx.reset.next = self.reset.val();
        self.mac_rx.reset.next = self.reset.val();
        self.tx_offload.reset.next = self.reset.val();
        self.rxc_regs.reset.next = self.reset.val();
        self.rx_class.reset.next = self.reset.val();
        self.rx_lean.reset.next = self.reset.val();
        // ---- registers (RW_REGS indices: see csr::RW_REGS)
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = 0.into();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = 0.into();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
        self.loopback.next = self.csr.rw_value[0].val().get_bit(0);
        // ---- the RDMA engine (none when RD = 0: its outputs read as 0) ----
        self.rdma_tx_data.next = 0.into();
        self.rdma_tx_nbytes.next = 0.into();
        self.rdma_tx_last.next = false;
        self.rdma_irq16.next = 0.into();
        self.rdma_tx_valid.next = false;
        self.rdma_enabled.next = false;
        self.rdma_local_ipv4.next = 0.into();
        self.rdma_rdata.next = 0.into();
        self.rdma_rd_valid.next = false;
        self.rdma_rd_addr.next = 0.into();
        self.rdma_rd_len.next = 0.into();
        self.rdma_rd_rsp_ready.next = false;
        self.rdma_rd_tag.next = self.rd_tag_rdma.val();
        self.rdma_rsp_mine.next = (self.dma_rd_rsp_tag.val() >= 2) & (self.dma_rd_rsp_tag.val() <= 4);
        self.rdma_wr_valid.next = false;
        self.rdma_wr_addr.next = 0.into();
        self.rdma_wr_data.next = 0.into();
        self.rdma_wr_strb.next = 0.into();
        self.rdma_wr_last.next = false;
        self.rdma_wr_tag.next = 0.into();
        for i in 0..RD {
            self.rdma[i].clock.next = self.clock.val();
            self.rdma[i].reset.next = self.reset.val();
            // The engine's inputs carry only what is the engine's: a register access in its
            // window (`nic_regmap::rdma::BASE` = 0x4000, 4 KiB), a read answer or write
            // acknowledgement with its tags; zero otherwise, so nothing moves at its ports
            // while the NIC carries Ethernet alone (a simulator then skips the engine,
            // docs/performance.md; in hardware, less toggling).
            self.rdma[i].bus_wr.next = self.csr.bus_wr.val() & (self.csr.bus_addr.val().get_bits::<4>(12) == 4);
            self.rdma[i].bus_addr.next = 0.into();
            self.rdma[i].bus_wdata.next = 0.into();
            self.rdma[i].bus_wmask.next = 0.into();
            if self.csr.bus_wr.val() & (self.csr.bus_addr.val().get_bits::<4>(12) == 4) {
                self.rdma[i].bus_addr.next = self.csr.bus_addr.val();
                self.rdma[i].bus_wdata.next = self.csr.bus_wdata.val();
                self.rdma[i].bus_wmask.next = self.csr.bus_wmask.val();
            }
            // (outside its window the engine reads address 0, which none of its registers has)
            self.rdma[i].bus_rd_addr.next = 0.into();
            if self.csr.bus_rd_addr.val().get_bits::<4>(12) == 4 {
                self.rdma[i].bus_rd_addr.next = self.csr.bus_rd_addr.val();
            }
            self.rdma[i].station_mac_lo.next = self.csr.rw_value[1].val();
            self.rdma[i].station_mac_hi.next = self.csr.rw_value[2].val().get_bits::<16>(0);
            self.rdma_rdata.next = self.rdma[i].bus_rdata.val();
            self.rdma_enabled.next = self.rdma[i].enabled.val();
            self.rdma_local_ipv4.next = self.rdma[i].local_ipv4.val();
            self.rdma_irq16.next = self.rdma[i].irq.val();
            self.rdma_tx_data.next = self.rdma[i].tx_data.val();
            self.rdma_tx_nbytes.next = self.rdma[i].tx_nbytes.val();
            self.rdma_tx_last.next = self.rdma[i].tx_last.val();
            self.rdma_tx_valid.next = self.rdma[i].tx_valid.val();
            self.rdma_rd_valid.next = self.rdma[i].dma_rd_req_valid.val();
            self.rdma_rd_addr.next = self.rdma[i].dma_rd_req_addr.val();
            self.rdma_rd_len.next = self.rdma[i].dma_rd_req_len.val();
            self.rdma_rd_rsp_ready.next = self.rdma[i].dma_rd_rsp_ready.val();
            self.rdma_rd_tag.next = self.rdma[i].dma_rd_req_tag.val();
            self.rdma[i].dma_rd_rsp_tag.next = 0.into();
            if self.rdma_rsp_mine.val() {
                self.rdma[i].dma_rd_rsp_tag.next = self.dma_rd_rsp_tag.val();
            }
            self.rdma_wr_valid.next = self.rdma[i].dma_wr_valid.val();
            self.rdma_wr_addr.next = self.rdma[i].dma_wr_addr.val();
            self.rdma_wr_data.next = self.rdma[i].dma_wr_data.val();
            self.rdma_wr_strb.next = self.rdma[i].dma_wr_strb.val();
            self.rdma_wr_last.next = self.rdma[i].dma_wr_last.val();
            self.rdma_wr_tag.next = self.rdma[i].dma_wr_tag.val();
        }
        // (shifts stay outside the loops over arrays of blocks: hdl_gen does not take them there)
        self.rdma_irq.next = bit_cast::<32, 16>(self.rdma_irq16.val()) << 16;
        self.rdma_tx.next = bit_cast::<70, 64>(self.rdma_tx_data.val())
            | (bit_cast::<70, 4>(self.rdma_tx_nbytes.val()) << 64)
            | (bit_cast::<70, 1>(self.rdma_tx_last.val().into()) << 68);
        // TX queues: register windows on the CSR register bus, and the engine
        self.tx.max_frame_len.next = self.csr.rw_value[3].val().get_bits::<16>(0);
        self.tx_irq_bits.next = 0.into();
        for i in 0..TQ {
            self.txq_regs[i].clock.next = self.clock.val();
            self.txq_regs[i].reset.next = self.reset.val();
            self.txq_regs[i].bus_wr.next = self.csr.bus_wr.val();
            self.txq_regs[i].bus_addr.next = self.csr.bus_addr.val();
            self.txq_regs[i].bus_wdata.next = self.csr.bus_wdata.val();
            self.txq_regs[i].bus_wmask.next = self.csr.bus_wmask.val();
            self.txq_regs[i].bus_rd.next = self.csr.bus_rd.val();
            self.txq_regs[i].bus_rd_addr.next = self.csr.bus_rd_addr.val();
            self.tx.enable[i].next = self.txq_regs[i].enable.val();
            self.tx.ring_base[i].next = self.txq_regs[i].ring_base.val();
            self.tx.ring_mask[i].next = self.txq_regs[i].ring_mask.val();
            self.tx.tail[i].next = self.txq_regs[i].tail.val();
            self.tx.weight[i].next = self.txq_regs[i].weight.val();
            self.tx.strict[i].next = self.txq_regs[i].strict.val();
            self.txq_regs[i].head.next = self.tx.head[i].val();
            self.txq_regs[i].active.next = self.tx.active[i].val();
            self.txq_regs[i].error_code.next = self.tx.error_code[i].val();
            self.txq_regs[i].completion.next = self.tx.completion[i].val();
            self.txq_regs[i].dropped.next = false;
            if self.txq_regs[i].irq_fire.val() {
                self.tx_irq_bits.next = self.tx_irq_bits.val() | self.tx_irq_bit[i].val();
            }
        }
        self.mac_rx.max_frame_len.next = self.csr.rw_value[3].val().get_bits::<16>(0);
        // RX queues: register windows on the CSR register bus, and the engine
        self.rxc_regs.bus_wr.next = self.csr.bus_wr.val();
        self.rxc_regs.bus_addr.next = self.csr.bus_addr.val();
        self.rxc_regs.bus_wdata.next = self.csr.bus_wdata.val();
        self.rxc_regs.bus_wmask.next = self.csr.bus_wmask.val();
        self.rxc_regs.bus_rd.next = self.csr.bus_rd.val();
        self.rxc_regs.bus_rd_addr.next = self.csr.bus_rd_addr.val();
        // every block reads 0 where it has no register, so their read data are ORed
        self.rd_or.next = self.rxc_regs.bus_rdata.val() | self.rdma_rdata.val();
        for i in 0..TQ {
            self.rd_or.next = self.rd_or.val() | self.txq_regs[i].bus_rdata.val();
        }
        self.rx_irq_bits.next = 0.into();
        for i in 0..RQ {
            self.rxq_regs[i].clock.next = self.clock.val();
            self.rxq_regs[i].reset.next = self.reset.val();
            self.rxq_regs[i].bus_wr.next = self.csr.bus_wr.val();
            self.rxq_regs[i].bus_addr.next = self.csr.bus_addr.val();
            self.rxq_regs[i].bus_wdata.next = self.csr.bus_wdata.val();
            self.rxq_regs[i].bus_wmask.next = self.csr.bus_wmask.val();
            self.rxq_regs[i].bus_rd.next = self.csr.bus_rd.val();
            self.rxq_regs[i].bus_rd_addr.next = self.csr.bus_rd_addr.val();
            self.rd_or.next = self.rd_or.val() | self.rxq_regs[i].bus_rdata.val();
            self.rx.enable[i].next = self.rxq_regs[i].enable.val();
            self.rx.ring_base[i].next = self.rxq_regs[i].ring_base.val();
            self.rx.ring_mask[i].next = self.rxq_regs[i].ring_mask.val();
            self.rx.tail[i].next = self.rxq_regs[i].tail.val();
            self.rxq_regs[i].head.next = self.rx.head[i].val();
            self.rxq_regs[i].active.next = self.rx.active[i].val();
            self.rxq_regs[i].error_code.next = self.rx.error_code[i].val();
            self.rxq_regs[i].completion.next = self.rx.completion[i].val();
            self.rxq_regs[i].dropped.next = self.rx.dropped[i].val();
            if self.rxq_regs[i].irq_fire.val() {
                self.rx_irq_bits.next = self.rx_irq_bits.val() | self.rx_irq_bit[i].val();
            }
        }
        self.csr.bus_rdata.next = self.rd_or.val();
        // interrupts with moderation
        self.csr.irq_set.next = self.tx_irq_bits.val() | self.rx_irq_bits.val() | self.rdma_irq.val();
        self.irq.next = self.csr.irq.val();
        // statistics (COUNTER_REGS indices: see csr::COUNTER_REGS)
        self.csr.count_inc[0].next = bit_cast::<18, 1>(self.mac_tx.stat_frame.val().into());
        self.csr.count_inc[1].next = 0.into();
        if self.mac_tx.stat_frame.val() {
            self.csr.count_inc[1].next = bit_cast::<18, 16>(self.mac_tx.stat_bytes.val());
        }
        self.csr.count_inc[2].next = bit_cast::<18, 1>(self.mac_tx.stat_aborted.val().into());
        self.csr.count_inc[3].next = bit_cast::<18, 1>(self.rx.stat_frame.val().into());
        self.csr.count_inc[4].next = 0.into();
        if self.rx.stat_frame.val() {
            self.csr.count_inc[4].next = bit_cast::<18, 16>(self.rx.stat_bytes.val());
        }
        self.csr.count_inc[5].next = bit_cast::<18, 1>(self.rx.drop_no_buffer.val().into());
        self.csr.count_inc[6].next = bit_cast::<18, 1>(self.rx.drop_fcs.val().into());
        self.csr.count_inc[7].next = bit_cast::<18, 1>(self.rx.drop_runt.val().into());
        self.csr.count_inc[8].next = bit_cast::<18, 1>(self.rx.drop_oversize.val().into());
        self.csr.count_inc[9].next = bit_cast::<18, 1>(self.rx.drop_truncated.val().into());
        self.csr.count_inc[10].next = bit_cast::<18, 1>(self.rx.drop_phy.val().into());
        self.csr.count_inc[11].next = bit_cast::<18, 1>(self.rx.drop_ucast.val().into());
        self.csr.count_inc[12].next = bit_cast::<18, 1>(self.rx.drop_mcast.val().into());
        self.csr.count_inc[13].next = bit_cast::<18, 1>(self.rx.drop_bcast.val().into());
        self.csr.count_inc[14].next = bit_cast::<18, 1>(self.rx.csum_l3_bad.val().into());
        self.csr.count_inc[15].next = bit_cast::<18, 1>(self.rx.csum_l4_bad.val().into());
        self.csr.count_inc[16].next = bit_cast::<18, 1>(self.tx.stat_refused.val().into());
        self.csr.count_inc[17].next = 0.into();
        if self.has_tx_offload.val() {
            self.csr.count_inc[17].next = bit_cast::<18, 1>(self.tx_offload.stat_tso_segments.val().into());
        }
        // ---- DMA reads: RX descriptors, then TX descriptors, then TX data
        self.rx.desc_req_ready.next = false;
        self.tx.desc_req_ready.next = false;
        self.tx.data_req_ready.next = false;
        self.rd_sel.next = 0.into();
        if self.tx.data_req_valid.val() {
            self.rd_sel.next = 3.into();
        }
        if self.rdma_rd_valid.val() {
            self.rd_sel.next = 4.into();
        }
        if self.tx.desc_req_valid.val() {
            self.rd_sel.next = 2.into();
        }
        if self.rx.desc_req_valid.val() {
            self.rd_sel.next = 1.into();
        }
        if self.rd_hold.q.val() != 0 {
            self.rd_sel.next = self.rd_hold.q.val();
        }
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = self.tx.data_req_addr.val();
        self.dma_rd_req_len.next = self.tx.data_req_len.val();
        self.dma_rd_req_tag.next = 1.into(); // TAG_TX_DATA
        if self.rd_sel.val() == 1 {
            self.dma_rd_req_valid.next = self.rx.desc_req_valid.val();
            self.dma_rd_req_addr.next = self.rx.desc_req_addr.val();
            self.dma_rd_req_len.next = self.rx.desc_req_len.val();
            self.dma_rd_req_tag.next = self.rx.desc_req_tag.val(); // TAG_RX_DESC + q
            self.rx.desc_req_ready.next = self.dma_rd_req_ready.val();
        }
        if self.rd_sel.val() == 2 {
            self.dma_rd_req_valid.next = self.tx.desc_req_valid.val();
            self.dma_rd_req_addr.next = self.tx.desc_req_addr.val();
            self.dma_rd_req_len.next = self.tx.desc_req_len.val();
            self.dma_rd_req_tag.next = 0.into(); // TAG_TX_DESC
            self.tx.desc_req_ready.next = self.dma_rd_req_ready.val();
        }
        if self.rd_sel.val() == 3 {
            self.dma_rd_req_valid.next = self.tx.data_req_valid.val();
            self.tx.data_req_ready.next = self.dma_rd_req_ready.val();
        }
        if self.rd_sel.val() == 4 {
            self.dma_rd_req_valid.next = self.rdma_rd_valid.val();
            self.dma_rd_req_addr.next = self.rdma_rd_addr.val();
            self.dma_rd_req_len.next = self.rdma_rd_len.val();
            self.dma_rd_req_tag.next = self.rdma_rd_tag.val();
        }
        // hold the grant while offered and not taken (a client that withdraws, e.g. a
        // queue stopped by an error, releases it)
        self.rd_hold.d.next = 0.into();
        if self.dma_rd_req_valid.val() & !self.dma_rd_req_ready.val() {
            self.rd_hold.d.next = self.rd_sel.val();
        }
        self.tx.rsp_data.next = self.dma_rd_rsp_data.val();
        self.tx.rsp_last.next = self.dma_rd_rsp_last.val();
        self.tx.rsp_error.next = self.dma_rd_rsp_error.val();
        self.rx.rsp_data.next = self.dma_rd_rsp_data.val();
        self.rx.rsp_last.next = self.dma_rd_rsp_last.val();
        self.rx.rsp_error.next = self.dma_rd_rsp_error.val();
        self.tx.desc_rsp_valid.next = self.dma_rd_rsp_valid.val() & (self.dma_rd_rsp_tag.val() == 0);
        self.tx.data_rsp_valid.next = self.dma_rd_rsp_valid.val() & (self.dma_rd_rsp_tag.val() == 1);
        self.rx.desc_rsp_valid.next = self.dma_rd_rsp_valid.val() & self.dma_rd_rsp_tag.val().get_bit(3);
        self.rx.rsp_tag.next = self.dma_rd_rsp_tag.val();
        self.dma_rd_rsp_ready.next = true;
        if self.dma_rd_rsp_tag.val() == 1 {
            self.dma_rd_rsp_ready.next = self.tx.data_rsp_ready.val();
        }
        if self.rdma_rsp_mine.val() {
            self.dma_rd_rsp_ready.next = self.rdma_rd_rsp_ready.val();
        }
        // ---- DMA writes: a burst stays together; RX first, then the RDMA engine, then TX
        // write-back
        self.wr_sel.next = self.wr_cur.q.val();
        if self.wr_cur.q.val() == 0 {
            if self.rx.wr_valid.val() {
                self.wr_sel.next = 1.into();
            } else if self.rdma_wr_valid.val() {
                self.wr_sel.next = 3.into();
            } else {
                self.wr_sel.next = 2.into();
            }
        }
        self.rx.wr_ready.next = false;
        self.tx.wb_ready.next = false;
        if self.wr_sel.val() == 1 {
            self.dma_wr_valid.next = self.rx.wr_valid.val();
            self.dma_wr_addr.next = self.rx.wr_addr.val();
            self.dma_wr_data.next = self.rx.wr_data.val();
            self.dma_wr_strb.next = self.rx.wr_strb.val();
            self.dma_wr_last.next = self.rx.wr_last.val();
            self.dma_wr_tag.next = self.rx.wr_tag.val();
            self.rx.wr_ready.next = self.dma_wr_ready.val();
        } else if self.wr_sel.val() == 3 {
            self.dma_wr_valid.next = self.rdma_wr_valid.val();
            self.dma_wr_addr.next = self.rdma_wr_addr.val();
            self.dma_wr_data.next = self.rdma_wr_data.val();
            self.dma_wr_strb.next = self.rdma_wr_strb.val();
            self.dma_wr_last.next = self.rdma_wr_last.val();
            self.dma_wr_tag.next = self.rdma_wr_tag.val();
        } else {
            self.dma_wr_valid.next = self.tx.wb_valid.val();
            self.dma_wr_addr.next = self.tx.wb_addr.val();
            self.dma_wr_data.next = bit_cast::<128, 64>(self.tx.wb_data.val());
            self.dma_wr_strb.next = 0xff.into(); // bytes 8..16 of the descriptor
            self.dma_wr_last.next = true;
            self.dma_wr_tag.next = 2.into(); // TAG_TX_WRITEBACK
            self.tx.wb_ready.next = self.dma_wr_ready.val();
        }
        // held from a beat offered to its burst's last beat taken, through gaps in the burst
        if self.dma_wr_valid.val() {
            if self.dma_wr_ready.val() & self.dma_wr_last.val() {
                self.wr_cur.d.next = 0.into();
                self.wr_mid.d.next = false;
            } else {
                self.wr_cur.d.next = self.wr_sel.val();
                if self.dma_wr_ready.val() {
                    self.wr_mid.d.next = true;
                }
            }
        } else if !self.wr_mid.q.val() {
            self.wr_cur.d.next = 0.into();
        }
        self.rx.wr_rsp_valid.next = self.dma_wr_rsp_valid.val() & (self.dma_wr_rsp_tag.val() == 0);
        self.rx.wr_rsp_error.next = self.dma_wr_rsp_error.val();
        self.rx.wb_rsp.next = self.dma_wr_rsp_valid.val() & self.dma_wr_rsp_tag.val().get_bit(3);
        self.rx.wb_fault.next = self.dma_wr_rsp_valid.val() & self.dma_wr_rsp_tag.val().get_bit(3) & self.dma_wr_rsp_error.val();
        self.rx.wb_fault_tag.next = self.dma_wr_rsp_tag.val();
        self.tx.wb_rsp_valid.next = self.dma_wr_rsp_valid.val() & (self.dma_wr_rsp_tag.val() == 2);
        self.tx.wb_rsp_error.next = self.dma_wr_rsp_error.val();
        // ---- TX engine → offload engine → slice → MAC TX
        self.tx_offload.max_frame_len.next = self.csr.rw_value[3].val().get_bits::<16>(0);
        self.tx_offload.s_data.next = self.tx.m_data.val();
        self.tx_offload.s_len.next = self.tx.m_len.val();
        self.tx_offload.s_last.next = self.tx.m_last.val();
        self.tx_offload.s_user.next = self.tx.m_user.val();
        self.tx_offload.s_valid.next = self.tx.m_valid.val();
        self.tx.m_ready.next = self.tx_offload.s_ready.val();
        self.tx_offload.s_l3_offset.next = self.tx.m_ctx.val().get_bits::<16>(0);
        self.tx_offload.s_l4_offset.next = self.tx.m_ctx.val().get_bits::<16>(16);
        self.tx_offload.s_csum_start.next = self.tx.m_ctx.val().get_bits::<16>(32);
        self.tx_offload.s_csum_offset.next = self.tx.m_ctx.val().get_bits::<16>(48);
        self.tx_offload.s_mss.next = self.tx.m_ctx.val().get_bits::<16>(64);
        self.tx_offload.s_flags.next = self.tx.m_ctx.val().get_bits::<16>(80);
        self.tx_offload.s_hdr_len.next = self.tx.m_ctx.val().get_bits::<16>(96);
        self.tx.v_valid.next = self.tx_offload.v_valid.val();
        self.tx.v_error.next = self.tx_offload.v_error.val();
        // the TX queues' frames: through the offload engine, or (without one) as the queue
        // engine gives them
        self.eth_tx.next = bit_cast::<70, 64>(self.tx_offload.m_data.val())
            | (bit_cast::<70, 4>(self.tx_offload.m_len.val()) << 64)
            | (bit_cast::<70, 1>(self.tx_offload.m_last.val().into()) << 68)
            | (bit_cast::<70, 1>(self.tx_offload.m_user.val().into()) << 69);
        self.eth_tx_valid.next = self.tx_offload.m_valid.val();
        if !self.has_tx_offload.val() {
            self.eth_tx.next = bit_cast::<70, 64>(self.tx.m_data.val())
                | (bit_cast::<70, 4>(self.tx.m_len.val()) << 64)
                | (bit_cast::<70, 1>(self.tx.m_last.val().into()) << 68)
                | (bit_cast::<70, 1>(self.tx.m_user.val().into()) << 69);
            self.eth_tx_valid.next = self.tx.m_valid.val();
        }
        // ---- MAC TX arbiter: whole frames, the TX queues and the RDMA engine in turn ----
        self.tx_sel.next = self.tx_owner.q.val();
        if self.tx_owner.q.val() == 0 {
            if self.rdma_tx_valid.val() & (!self.eth_tx_valid.val() | !self.tx_rdma_last.q.val()) {
                self.tx_sel.next = 2.into();
            } else {
                self.tx_sel.next = 1.into();
            }
        }
        self.eth_tx_ready.next = self.slice_tx.s_ready.val() & (self.tx_sel.val() == 1);
        self.arb_tx.next = self.eth_tx.val();
        self.arb_tx_valid.next = self.eth_tx_valid.val();
        if self.tx_sel.val() == 2 {
            self.arb_tx.next = self.rdma_tx.val();
            self.arb_tx_valid.next = self.rdma_tx_valid.val();
        }
        self.slice_tx.s_data.next = self.arb_tx.val();
        self.slice_tx.s_valid.next = self.arb_tx_valid.val();
        // the source keeps MAC TX from its first beat offered to its last beat taken, through
        // any gap inside the frame
        if self.arb_tx_valid.val() {
            if self.slice_tx.s_ready.val() & self.arb_tx.val().get_bit(68) {
                self.tx_rdma_last.d.next = self.tx_sel.val() == 2;
                self.tx_owner.d.next = 0.into();
                self.tx_mid.d.next = false;
            } else {
                self.tx_owner.d.next = self.tx_sel.val();
                if self.slice_tx.s_ready.val() {
                    self.tx_mid.d.next = true;
                }
            }
        } else if !self.tx_mid.q.val() {
            self.tx_owner.d.next = 0.into();
        }
        self.tx_offload.m_ready.next = self.eth_tx_ready.val();
        self.tx.ctx_supported.next = self.has_tx_offload.val();
        if !self.has_tx_offload.val() {
            // no offload engine: frames go out as the engine gives them, and each frame's
            // verdict (never an error: a context descriptor stops the queue instead) is
            // given as its last beat leaves
            self.tx_offload.s_valid.next = false;
            self.tx_offload.m_ready.next = false;
            self.tx.m_ready.next = self.eth_tx_ready.val();
            self.tx.v_valid.next = self.tx.m_valid.val() & self.eth_tx_ready.val() & self.tx.m_last.val();
            self.tx.v_error.next = false;
        }
        self.mac_tx.s_data.next = self.slice_tx.m_data.val().get_bits::<64>(0);
        self.mac_tx.s_len.next = self.slice_tx.m_data.val().get_bits::<4>(64);
        self.mac_tx.s_last.next = self.slice_tx.m_data.val().get_bit(68);
        self.mac_tx.s_user.next = self.slice_tx.m_data.val().get_bit(69);
        self.mac_tx.s_valid.next = self.slice_tx.m_valid.val();
        self.slice_tx.m_ready.next = self.mac_tx.s_ready.val();
        // ---- MAC TX → slice → loopback switch / wire
        self.slice_wire.s_data.next = bit_cast::<74, 64>(self.mac_tx.m_data.val())
            | (bit_cast::<74, 8>(self.mac_tx.m_keep.val()) << 64)
            | (bit_cast::<74, 1>(self.mac_tx.m_last.val().into()) << 72)
            | (bit_cast::<74, 1>(self.mac_tx.m_user.val().into()) << 73);
        self.slice_wire.s_valid.next = self.mac_tx.m_valid.val();
        self.mac_tx.m_ready.next = self.slice_wire.s_ready.val();
        self.tx_axis_tdata.next = self.slice_wire.m_data.val().get_bits::<64>(0);
        self.tx_axis_tkeep.next = self.slice_wire.m_data.val().get_bits::<8>(64);
        self.tx_axis_tlast.next = self.slice_wire.m_data.val().get_bit(72);
        self.tx_axis_tuser.next = self.slice_wire.m_data.val().get_bit(73);
        self.tx_axis_tvalid.next = self.slice_wire.m_valid.val() & !self.loopback.val();
        self.slice_wire.m_ready.next = self.tx_axis_tready.val();
        self.mac_rx.s_data.next = self.rx_axis_tdata.val();
        self.mac_rx.s_keep.next = self.rx_axis_tkeep.val();
        self.mac_rx.s_last.next = self.rx_axis_tlast.val();
        self.mac_rx.s_user.next = self.rx_axis_tuser.val();
        self.mac_rx.s_valid.next = self.rx_axis_tvalid.val();
        self.rx_axis_tready.next = self.mac_rx.s_ready.val() & !self.loopback.val();
        if self.loopback.val() {
            self.slice_wire.m_ready.next = self.mac_rx.s_ready.val();
            self.mac_rx.s_data.next = self.slice_wire.m_data.val().get_bits::<64>(0);
            self.mac_rx.s_keep.next = self.slice_wire.m_data.val().get_bits::<8>(64);
            self.mac_rx.s_last.next = self.slice_wire.m_data.val().get_bit(72);
            self.mac_rx.s_user.next = self.slice_wire.m_data.val().get_bit(73);
            self.mac_rx.s_valid.next = self.slice_wire.m_valid.val();
        }
        // ---- MAC RX → slice → RX engine
        self.slice_rx.s_data.next = bit_cast::<72, 64>(self.mac_rx.m_data.val())
            | (bit_cast::<72, 4>(self.mac_rx.m_len.val()) << 64)
            | (bit_cast::<72, 1>(self.mac_rx.m_last.val().into()) << 68)
            | (bit_cast::<72, 3>(self.mac_rx.m_status.val()) << 69);
        self.slice_rx.s_valid.next = self.mac_rx.m_valid.val();
        self.mac_rx.m_ready.next = self.slice_rx.s_ready.val();
        // ---- slice → RX classifier → RX engine (metadata layout: dma::rx_meta)
        self.rx_class.s_data.next = self.slice_rx.m_data.val().get_bits::<64>(0);
        self.rx_class.s_len.next = self.slice_rx.m_data.val().get_bits::<4>(64);
        self.rx_class.s_last.next = self.slice_rx.m_data.val().get_bit(68);
        self.rx_class.s_status.next = self.slice_rx.m_data.val().get_bits::<3>(69);
        self.rx_class.s_valid.next = self.slice_rx.m_valid.val();
        self.slice_rx.m_ready.next = self.rx_class.s_ready.val();
        self.rx_class.filter_ctrl.next = self.rxc_regs.filter_ctrl.val();
        for i in 0..32 {
            self.rx_class.mac_filter[i].next = self.rxc_regs.mac_filter[i].val();
        }
        self.rx_class.mcast_wr.next = self.rxc_regs.mcast_wr.val();
        self.rx_class.mcast_wr_addr.next = self.rxc_regs.mcast_wr_addr.val();
        self.rx_class.mcast_wr_data.next = self.rxc_regs.mcast_wr_data.val();
        self.rx_class.rss_ctrl.next = self.rxc_regs.rss_ctrl.val();
        for i in 0..10 {
            self.rx_class.rss_key[i].next = self.rxc_regs.rss_key[i].val();
        }
        self.rx_class.reta_wr.next = self.rxc_regs.reta_wr.val();
        self.rx_class.reta_wr_addr.next = self.rxc_regs.reta_wr_addr.val();
        self.rx_class.reta_wr_data.next = self.rxc_regs.reta_wr_data.val();
        self.rx_class.queue_mask.next = self.rx_queue_mask.val();
        self.rx_class.rdma_enable.next = self.rdma_enabled.val();
        self.rx_class.local_ipv4.next = self.rdma_local_ipv4.val();
        // RoCEv2 for this NIC that the filter accepted is the RDMA engine's: it parses every
        // frame as the classifier takes it in and acts on the ones the classifier's verdict
        // names (rdma/rx_parse.rs); here they leave the Ethernet path (the same rule)
        self.divert.next = self.rx_class.m_divert.val();
        self.rx_meta.next = bit_cast::<72, 32>(self.rx_class.m_hash.val())
            | (bit_cast::<72, 16>(self.rx_class.m_ptype.val()) << 32)
            | (bit_cast::<72, 4>(self.rx_class.m_hash_type.val()) << 48)
            | (bit_cast::<72, 4>(self.rx_class.m_queue.val().get_bits::<4>(0)) << 52)
            | (bit_cast::<72, 2>(self.rx_class.m_drop.val()) << 56)
            | (bit_cast::<72, 2>(self.rx_class.m_l3_csum.val()) << 58)
            | (bit_cast::<72, 2>(self.rx_class.m_l4_csum.val()) << 60)
            | (bit_cast::<72, 3>(self.rx_class.m_status.val()) << 62);
        self.rx.s_data.next = self.rx_class.m_data.val();
        self.rx.s_len.next = self.rx_class.m_len.val();
        self.rx.s_last.next = self.rx_class.m_last.val();
        self.rx.s_meta.next = self.rx_meta.val();
        self.rx.s_valid.next = self.rx_class.m_valid.val() & !self.divert.val();
        self.rx_class.m_ready.next = self.rx.s_ready.val() | self.divert.val();
        // without RSS and checksum validation: the filter alone (metadata layout as above)
        self.rx_lean.s_data.next = self.slice_rx.m_data.val().get_bits::<64>(0);
        self.rx_lean.s_len.next = self.slice_rx.m_data.val().get_bits::<4>(64);
        self.rx_lean.s_last.next = self.slice_rx.m_data.val().get_bit(68);
        self.rx_lean.s_status.next = self.slice_rx.m_data.val().get_bits::<3>(69);
        self.rx_lean.filter_ctrl.next = self.rxc_regs.filter_ctrl.val();
        for i in 0..32 {
            self.rx_lean.mac_filter[i].next = self.rxc_regs.mac_filter[i].val();
        }
        self.rx_lean.mcast_wr.next = self.rxc_regs.mcast_wr.val();
        self.rx_lean.mcast_wr_addr.next = self.rxc_regs.mcast_wr_addr.val();
        self.rx_lean.mcast_wr_data.next = self.rxc_regs.mcast_wr_data.val();
        self.rx_lean.queue_mask.next = self.rx_queue_mask.val();
        self.rx_lean.s_valid.next = false;
        self.rx_lean.m_ready.next = false;
        if !self.has_rx_offload.val() {
            self.rx_class.s_valid.next = false;
            self.rx_class.m_ready.next = false;
            self.rx_lean.s_valid.next = self.slice_rx.m_valid.val();
            self.slice_rx.m_ready.next = self.rx_lean.s_ready.val();
            self.rx.s_data.next = self.rx_lean.m_data.val();
            self.rx.s_len.next = self.rx_lean.m_len.val();
            self.rx.s_last.next = self.rx_lean.m_last.val();
            self.rx.s_meta.next = (bit_cast::<72, 4>(self.rx_lean.m_queue.val().get_bits::<4>(0)) << 52)
                | (bit_cast::<72, 2>(self.rx_lean.m_drop.val()) << 56)
                | (bit_cast::<72, 3>(self.rx_lean.m_status.val()) << 62);
            self.rx.s_valid.next = self.rx_lean.m_valid.val();
            self.rx_lean.m_ready.next = self.rx.s_ready.val();
        }
        // ---- the RDMA engine's inputs from the arbiters and the classifier ----
        for i in 0..RD {
            self.rdma[i].tx_ready.next = self.slice_tx.s_ready.val() & (self.tx_sel.val() == 2);
            self.rdma[i].rx_valid.next = self.slice_rx.m_valid.val() & self.rx_class.s_ready.val() & self.has_rx_offload.val();
            self.rdma[i].rx_data.next = self.slice_rx.m_data.val().get_bits::<64>(0);
            self.rdma[i].rx_nbytes.next = self.slice_rx.m_data.val().get_bits::<4>(64);
            self.rdma[i].rx_last.next = self.slice_rx.m_data.val().get_bit(68);
            self.rdma[i].rx_status.next = self.slice_rx.m_data.val().get_bits::<3>(69);
            self.rdma[i].rx_verdict_valid.next = self.rx_class.v_valid.val() & self.has_rx_offload.val();
            self.rdma[i].rx_verdict_roce.next = self.rx_class.v_divert.val();
            self.rdma[i].dma_rd_req_ready.next = self.dma_rd_req_ready.val() & (self.rd_sel.val() == 4);
            self.rdma[i].dma_rd_rsp_valid.next = self.dma_rd_rsp_valid.val() & self.rdma_rsp_mine.val();
            self.rdma[i].dma_rd_rsp_data.next = 0.into();
            self.rdma[i].dma_rd_rsp_last.next = false;
            self.rdma[i].dma_rd_rsp_error.next = false;
            if self.dma_rd_rsp_valid.val() & self.rdma_rsp_mine.val() {
                self.rdma[i].dma_rd_rsp_data.next = self.dma_rd_rsp_data.val();
                self.rdma[i].dma_rd_rsp_last.next = self.dma_rd_rsp_last.val();
                self.rdma[i].dma_rd_rsp_error.next = self.dma_rd_rsp_error.val();
            }
            self.rdma[i].dma_wr_ready.next = self.dma_wr_ready.val() & (self.wr_sel.val() == 3);
            self.rdma[i].dma_wr_rsp_valid.next = self.dma_wr_rsp_valid.val() & ((self.dma_wr_rsp_tag.val() == 4) | (self.dma_wr_rsp_tag.val() == 5));
            self.rdma[i].dma_wr_rsp_error.next = false;
            self.rdma[i].dma_wr_rsp_tag.next = 0.into();
            if self.dma_wr_rsp_valid.val() & ((self.dma_wr_rsp_tag.val() == 4) | (self.dma_wr_rsp_tag.val() == 5)) {
                self.rdma[i].dma_wr_rsp_error.next = self.dma_wr_rsp_error.val();
                self.rdma[i].dma_wr_rsp_tag.next = self.dma_wr_rsp_tag.val();
            }
        }
        if self.reset.val() {
            self.wr_cur.d.next = 0.into();
            self.wr_mid.d.next = false;
            self.rd_hold.d.next = 0.into();
            self.tx_owner.d.next = 0.into();
            self.tx_mid.d.next = false;
            self.tx_rdma_last.d.next = false;
        }
    }
}

/// `small`: 256-beat TX and RX FIFOs.
pub type NicTopSmall = NicTop<8, 9, 8, 9, 1, 1, 9, 10, 0>;
/// `full`: 512-beat TX FIFO, 1024-beat RX FIFO, 8 RX queues.
pub type NicTopFull = NicTop<9, 10, 10, 11, 8, 8, 12, 13, 1>;

#[cfg(test)]
mod tests {
    use crate::Config;

    /// The offload buffer the configurations declare is the one `NicTop` instantiates.
    #[test]
    fn offload_buffer_matches_the_configurations() {
        fn bn<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize>(
            _: &super::NicTop<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD>,
        ) -> (usize, u32) {
            (8 << BN, TQ as u32)
        }
        // (a thread with room: `full`'s blocks are built on the stack)
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                let small = super::NicTopSmall::new(Config::Small);
                let full = super::NicTopFull::new(Config::Full);
                assert_eq!(bn(&small), (Config::Small.tx_offload_buffer_bytes(), Config::Small.tx_queues()));
                assert_eq!(bn(&full), (Config::Full.tx_offload_buffer_bytes(), Config::Full.tx_queues()));
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
