//! `nic_top_axi`: `nic_top` with its DMA port bridged to a 128-bit AXI4 master
//! (`dma::DmaAxiBridge`), for SoCs and FPGA shells that offer AXI4. Everything else is
//! `nic_top`'s ports, unchanged.

use crate::dma::DmaAxiBridge;
use crate::top::NicTop;
use crate::Config;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct NicTopAxi<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
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
    pub tx_axis_tdata: Signal<Out, Bits<64>>,
    pub tx_axis_tkeep: Signal<Out, Bits<8>>,
    pub tx_axis_tlast: Signal<Out, Bit>,
    pub tx_axis_tuser: Signal<Out, Bit>,
    pub tx_axis_tvalid: Signal<Out, Bit>,
    pub tx_axis_tready: Signal<In, Bit>,
    pub rx_axis_tdata: Signal<In, Bits<64>>,
    pub rx_axis_tkeep: Signal<In, Bits<8>>,
    pub rx_axis_tlast: Signal<In, Bit>,
    pub rx_axis_tuser: Signal<In, Bit>,
    pub rx_axis_tvalid: Signal<In, Bit>,
    pub rx_axis_tready: Signal<Out, Bit>,
    pub irq: Signal<Out, Bits<32>>,
    // AXI4 master (host memory), 128-bit data
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    pub m_axi_arsize: Signal<Out, Bits<3>>,
    pub m_axi_arburst: Signal<Out, Bits<2>>,
    pub m_axi_arvalid: Signal<Out, Bit>,
    pub m_axi_arready: Signal<In, Bit>,
    pub m_axi_rdata: Signal<In, Bits<128>>,
    pub m_axi_rresp: Signal<In, Bits<2>>,
    pub m_axi_rlast: Signal<In, Bit>,
    pub m_axi_rvalid: Signal<In, Bit>,
    pub m_axi_rready: Signal<Out, Bit>,
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    pub m_axi_awvalid: Signal<Out, Bit>,
    pub m_axi_awready: Signal<In, Bit>,
    pub m_axi_wdata: Signal<Out, Bits<128>>,
    pub m_axi_wstrb: Signal<Out, Bits<16>>,
    pub m_axi_wlast: Signal<Out, Bit>,
    pub m_axi_wvalid: Signal<Out, Bit>,
    pub m_axi_wready: Signal<In, Bit>,
    pub m_axi_bresp: Signal<In, Bits<2>>,
    pub m_axi_bvalid: Signal<In, Bit>,
    pub m_axi_bready: Signal<Out, Bit>,
    nic: NicTop<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD>,
    bridge: DmaAxiBridge,
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> NicTopAxi<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD> {
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
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_arsize: Default::default(),
            m_axi_arburst: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rresp: Default::default(),
            m_axi_rlast: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_bresp: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            nic: NicTop::new(config),
            bridge: Default::default(),
        }
    }
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const RD: usize> Logic for NicTopAxi<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, nic, bridge);
        self.bridge.reset.next = self.reset.val();
        self.nic.reset.next = self.reset.val();
        self.nic.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.nic.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.nic.s_axil_awready.val();
        self.nic.s_axil_wdata.next = self.s_axil_wdata.val();
        self.nic.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.nic.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.nic.s_axil_wready.val();
        self.s_axil_bresp.next = self.nic.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.nic.s_axil_bvalid.val();
        self.nic.s_axil_bready.next = self.s_axil_bready.val();
        self.nic.s_axil_araddr.next = self.s_axil_araddr.val();
        self.nic.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.nic.s_axil_arready.val();
        self.s_axil_rdata.next = self.nic.s_axil_rdata.val();
        self.s_axil_rresp.next = self.nic.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.nic.s_axil_rvalid.val();
        self.nic.s_axil_rready.next = self.s_axil_rready.val();
        self.tx_axis_tdata.next = self.nic.tx_axis_tdata.val();
        self.tx_axis_tkeep.next = self.nic.tx_axis_tkeep.val();
        self.tx_axis_tlast.next = self.nic.tx_axis_tlast.val();
        self.tx_axis_tuser.next = self.nic.tx_axis_tuser.val();
        self.tx_axis_tvalid.next = self.nic.tx_axis_tvalid.val();
        self.nic.tx_axis_tready.next = self.tx_axis_tready.val();
        self.nic.rx_axis_tdata.next = self.rx_axis_tdata.val();
        self.nic.rx_axis_tkeep.next = self.rx_axis_tkeep.val();
        self.nic.rx_axis_tlast.next = self.rx_axis_tlast.val();
        self.nic.rx_axis_tuser.next = self.rx_axis_tuser.val();
        self.nic.rx_axis_tvalid.next = self.rx_axis_tvalid.val();
        self.rx_axis_tready.next = self.nic.rx_axis_tready.val();
        self.irq.next = self.nic.irq.val();
        self.bridge.dma_rd_req_valid.next = self.nic.dma_rd_req_valid.val();
        self.nic.dma_rd_req_ready.next = self.bridge.dma_rd_req_ready.val();
        self.bridge.dma_rd_req_addr.next = self.nic.dma_rd_req_addr.val();
        self.bridge.dma_rd_req_len.next = self.nic.dma_rd_req_len.val();
        self.bridge.dma_rd_req_tag.next = self.nic.dma_rd_req_tag.val();
        self.nic.dma_rd_rsp_valid.next = self.bridge.dma_rd_rsp_valid.val();
        self.bridge.dma_rd_rsp_ready.next = self.nic.dma_rd_rsp_ready.val();
        self.nic.dma_rd_rsp_data.next = self.bridge.dma_rd_rsp_data.val();
        self.nic.dma_rd_rsp_last.next = self.bridge.dma_rd_rsp_last.val();
        self.nic.dma_rd_rsp_error.next = self.bridge.dma_rd_rsp_error.val();
        self.nic.dma_rd_rsp_tag.next = self.bridge.dma_rd_rsp_tag.val();
        self.bridge.dma_wr_valid.next = self.nic.dma_wr_valid.val();
        self.nic.dma_wr_ready.next = self.bridge.dma_wr_ready.val();
        self.bridge.dma_wr_addr.next = self.nic.dma_wr_addr.val();
        self.bridge.dma_wr_data.next = self.nic.dma_wr_data.val();
        self.bridge.dma_wr_strb.next = self.nic.dma_wr_strb.val();
        self.bridge.dma_wr_last.next = self.nic.dma_wr_last.val();
        self.bridge.dma_wr_tag.next = self.nic.dma_wr_tag.val();
        self.nic.dma_wr_rsp_valid.next = self.bridge.dma_wr_rsp_valid.val();
        self.nic.dma_wr_rsp_error.next = self.bridge.dma_wr_rsp_error.val();
        self.nic.dma_wr_rsp_tag.next = self.bridge.dma_wr_rsp_tag.val();
        self.m_axi_araddr.next = self.bridge.m_axi_araddr.val();
        self.m_axi_arlen.next = self.bridge.m_axi_arlen.val();
        self.m_axi_arsize.next = self.bridge.m_axi_arsize.val();
        self.m_axi_arburst.next = self.bridge.m_axi_arburst.val();
        self.m_axi_arvalid.next = self.bridge.m_axi_arvalid.val();
        self.bridge.m_axi_arready.next = self.m_axi_arready.val();
        self.bridge.m_axi_rdata.next = self.m_axi_rdata.val();
        self.bridge.m_axi_rresp.next = self.m_axi_rresp.val();
        self.bridge.m_axi_rlast.next = self.m_axi_rlast.val();
        self.bridge.m_axi_rvalid.next = self.m_axi_rvalid.val();
        self.m_axi_rready.next = self.bridge.m_axi_rready.val();
        self.m_axi_awaddr.next = self.bridge.m_axi_awaddr.val();
        self.m_axi_awlen.next = self.bridge.m_axi_awlen.val();
        self.m_axi_awsize.next = self.bridge.m_axi_awsize.val();
        self.m_axi_awburst.next = self.bridge.m_axi_awburst.val();
        self.m_axi_awvalid.next = self.bridge.m_axi_awvalid.val();
        self.bridge.m_axi_awready.next = self.m_axi_awready.val();
        self.m_axi_wdata.next = self.bridge.m_axi_wdata.val();
        self.m_axi_wstrb.next = self.bridge.m_axi_wstrb.val();
        self.m_axi_wlast.next = self.bridge.m_axi_wlast.val();
        self.m_axi_wvalid.next = self.bridge.m_axi_wvalid.val();
        self.bridge.m_axi_wready.next = self.m_axi_wready.val();
        self.bridge.m_axi_bresp.next = self.m_axi_bresp.val();
        self.bridge.m_axi_bvalid.next = self.m_axi_bvalid.val();
        self.m_axi_bready.next = self.bridge.m_axi_bready.val();
    }
}

/// `small` with the AXI4 bridge.
pub type NicTopAxiSmall = NicTopAxi<8, 9, 8, 9, 1, 1, 9, 10, 0>;
/// `full` with the AXI4 bridge.
pub type NicTopAxiFull = NicTopAxi<9, 10, 10, 11, 8, 8, 12, 13, 1>;
