//! `board_core`: everything of a board top level that is not vendor primitives — the NIC
//! core (`nic_top`), its host memory in block RAM (`HostMem`), the UART register bridge
//! (`UartRx` → `UartBridge` → `UartTx`, driving the NIC's register port and the host
//! memory), and the RGMII adapter (`RgmiiRx`, `RgmiiTx`) between the NIC's wire streams and
//! the per-edge nibbles of the DDR I/O cells.
//!
//! Three clock domains meet here, each with its own synchronous reset, synchronized by the
//! vendor layer (hw/src/board/ecpix5.rs) from one asynchronous board reset:
//! * `clock`: the core clock (the NIC, host memory, bridge, UART, the core side of both
//!   RGMII FIFOs);
//! * `tx_clock`: 125 MHz from the PLL, the RGMII transmit side;
//! * `rx_clock`: the PHY's 125 MHz receive clock, the RGMII receive side.
//! The only paths between domains are the Gray-coded pointers of the two `CdcFifo`s.
//!
//! The vendor layer is kept thin on purpose: what is here is plain synchronous logic that
//! any FPGA family (and Verilator) takes as it is, so the board test simulates exactly
//! this module with models of the DDR cells around it.

use super::bridge::UartBridge;
use super::host_mem::HostMem;
use super::rgmii::{RgmiiRx, RgmiiTx};
use super::uart::{UartRx, UartTx};
use crate::top::NicTop;
use crate::Config;
use rust_hdl::prelude::*;

/// Bits of the heartbeat counter: LED 0 toggles every 2^26 core cycles (0.4 s at
/// 156.25 MHz), so a configured board shows its core clock runs.
const HEARTBEAT_BITS: usize = 27;

#[derive(LogicBlock)]
pub struct BoardCore<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const AW: usize, const RD: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub tx_clock: Signal<In, Clock>,
    pub tx_reset: Signal<In, Bit>,
    pub rx_clock: Signal<In, Clock>,
    pub rx_reset: Signal<In, Bit>,
    /// Core clock cycles per UART bit (the vendor layer sets it from the core frequency).
    pub uart_divisor: Signal<In, Bits<16>>,
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    // RGMII receive, from the input DDR cells (rx_clock domain)
    pub rgmii_rxd_rise: Signal<In, Bits<4>>,
    pub rgmii_rxd_fall: Signal<In, Bits<4>>,
    pub rgmii_rx_ctl_rise: Signal<In, Bit>,
    pub rgmii_rx_ctl_fall: Signal<In, Bit>,
    // RGMII transmit, to the output DDR cells (tx_clock domain)
    pub rgmii_txd_rise: Signal<Out, Bits<4>>,
    pub rgmii_txd_fall: Signal<Out, Bits<4>>,
    pub rgmii_tx_ctl_rise: Signal<Out, Bit>,
    pub rgmii_tx_ctl_fall: Signal<Out, Bit>,
    /// 0: heartbeat; 1: toggles per received frame; 2: toggles per sent frame;
    /// 3: a DMA fault is logged (cleared when the host reads the log).
    pub led: Signal<Out, Bits<4>>,
    nic: NicTop<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, RD>,
    mem: HostMem<AW>,
    uart_in: UartRx,
    uart_out: UartTx,
    bridge: UartBridge,
    rgmii_rx: RgmiiRx,
    rgmii_tx: RgmiiTx,
    heartbeat: DFF<Bits<HEARTBEAT_BITS>>,
    rx_toggle: DFF<Bit>,
    tx_toggle: DFF<Bit>,
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const AW: usize, const RD: usize>
    BoardCore<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, AW, RD>
{
    pub fn new(config: Config) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tx_clock: Default::default(),
            tx_reset: Default::default(),
            rx_clock: Default::default(),
            rx_reset: Default::default(),
            uart_divisor: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            rgmii_rxd_rise: Default::default(),
            rgmii_rxd_fall: Default::default(),
            rgmii_rx_ctl_rise: Default::default(),
            rgmii_rx_ctl_fall: Default::default(),
            rgmii_txd_rise: Default::default(),
            rgmii_txd_fall: Default::default(),
            rgmii_tx_ctl_rise: Default::default(),
            rgmii_tx_ctl_fall: Default::default(),
            led: Default::default(),
            nic: NicTop::new(config),
            mem: Default::default(),
            uart_in: Default::default(),
            uart_out: Default::default(),
            bridge: Default::default(),
            rgmii_rx: Default::default(),
            rgmii_tx: Default::default(),
            heartbeat: Default::default(),
            rx_toggle: Default::default(),
            tx_toggle: Default::default(),
        }
    }
}

impl<const TN: usize, const TNP1: usize, const RN: usize, const RNP1: usize, const RQ: usize, const TQ: usize, const BN: usize, const BNP1: usize, const AW: usize, const RD: usize> Logic
    for BoardCore<TN, TNP1, RN, RNP1, RQ, TQ, BN, BNP1, AW, RD>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, nic, mem, uart_in, uart_out, bridge);
        dff_setup!(self, clock, heartbeat, rx_toggle, tx_toggle);
        self.nic.reset.next = self.reset.val();
        self.mem.reset.next = self.reset.val();
        self.uart_in.reset.next = self.reset.val();
        self.uart_out.reset.next = self.reset.val();
        self.bridge.reset.next = self.reset.val();

        // ---- UART → bridge → UART
        self.uart_in.divisor.next = self.uart_divisor.val();
        self.uart_out.divisor.next = self.uart_divisor.val();
        self.uart_in.rx.next = self.uart_rx.val();
        self.uart_tx.next = self.uart_out.tx.val();
        self.bridge.rx_data.next = self.uart_in.data.val();
        self.bridge.rx_valid.next = self.uart_in.valid.val();
        self.uart_out.data.next = self.bridge.tx_data.val();
        self.uart_out.valid.next = self.bridge.tx_valid.val();
        self.bridge.tx_ready.next = self.uart_out.ready.val();

        // ---- bridge → the NIC's register port (AXI4-Lite)
        self.nic.s_axil_awaddr.next = self.bridge.m_axil_awaddr.val();
        self.nic.s_axil_awvalid.next = self.bridge.m_axil_awvalid.val();
        self.bridge.m_axil_awready.next = self.nic.s_axil_awready.val();
        self.nic.s_axil_wdata.next = self.bridge.m_axil_wdata.val();
        self.nic.s_axil_wstrb.next = self.bridge.m_axil_wstrb.val();
        self.nic.s_axil_wvalid.next = self.bridge.m_axil_wvalid.val();
        self.bridge.m_axil_wready.next = self.nic.s_axil_wready.val();
        self.bridge.m_axil_bresp.next = self.nic.s_axil_bresp.val();
        self.bridge.m_axil_bvalid.next = self.nic.s_axil_bvalid.val();
        self.nic.s_axil_bready.next = self.bridge.m_axil_bready.val();
        self.nic.s_axil_araddr.next = self.bridge.m_axil_araddr.val();
        self.nic.s_axil_arvalid.next = self.bridge.m_axil_arvalid.val();
        self.bridge.m_axil_arready.next = self.nic.s_axil_arready.val();
        self.bridge.m_axil_rdata.next = self.nic.s_axil_rdata.val();
        self.bridge.m_axil_rresp.next = self.nic.s_axil_rresp.val();
        self.bridge.m_axil_rvalid.next = self.nic.s_axil_rvalid.val();
        self.nic.s_axil_rready.next = self.bridge.m_axil_rready.val();
        // the bridge's poll answer carries the Ethernet queues' vectors (bits 15:0)
        self.bridge.irq.next = self.nic.irq.val().get_bits::<16>(0);

        // ---- bridge → host memory (the CPU's side of DMA memory)
        self.mem.mem_addr.next = self.bridge.mem_addr.val();
        self.mem.mem_wr.next = self.bridge.mem_wr.val();
        self.mem.mem_wdata.next = self.bridge.mem_wdata.val();
        self.mem.mem_rd.next = self.bridge.mem_rd.val();
        self.bridge.mem_ready.next = self.mem.mem_ready.val();
        self.bridge.mem_rdata.next = self.mem.mem_rdata.val();
        self.bridge.mem_rvalid.next = self.mem.mem_rvalid.val();
        self.bridge.mem_size_log2.next = self.mem.mem_size_log2.val();
        self.bridge.fault_count.next = self.mem.fault_count.val();
        self.bridge.fault_addr.next = self.mem.fault_addr.val();
        self.bridge.fault_len.next = self.mem.fault_len.val();
        self.bridge.fault_write.next = self.mem.fault_write.val();
        self.mem.fault_clear.next = self.bridge.fault_clear.val();

        // ---- the NIC's DMA port → host memory
        self.mem.dma_rd_req_valid.next = self.nic.dma_rd_req_valid.val();
        self.nic.dma_rd_req_ready.next = self.mem.dma_rd_req_ready.val();
        self.mem.dma_rd_req_addr.next = self.nic.dma_rd_req_addr.val();
        self.mem.dma_rd_req_len.next = self.nic.dma_rd_req_len.val();
        self.mem.dma_rd_req_tag.next = self.nic.dma_rd_req_tag.val();
        self.nic.dma_rd_rsp_valid.next = self.mem.dma_rd_rsp_valid.val();
        self.mem.dma_rd_rsp_ready.next = self.nic.dma_rd_rsp_ready.val();
        self.nic.dma_rd_rsp_data.next = self.mem.dma_rd_rsp_data.val();
        self.nic.dma_rd_rsp_last.next = self.mem.dma_rd_rsp_last.val();
        self.nic.dma_rd_rsp_error.next = self.mem.dma_rd_rsp_error.val();
        self.nic.dma_rd_rsp_tag.next = self.mem.dma_rd_rsp_tag.val();
        self.mem.dma_wr_valid.next = self.nic.dma_wr_valid.val();
        self.nic.dma_wr_ready.next = self.mem.dma_wr_ready.val();
        self.mem.dma_wr_addr.next = self.nic.dma_wr_addr.val();
        self.mem.dma_wr_data.next = self.nic.dma_wr_data.val();
        self.mem.dma_wr_strb.next = self.nic.dma_wr_strb.val();
        self.mem.dma_wr_last.next = self.nic.dma_wr_last.val();
        self.mem.dma_wr_tag.next = self.nic.dma_wr_tag.val();
        self.nic.dma_wr_rsp_valid.next = self.mem.dma_wr_rsp_valid.val();
        self.nic.dma_wr_rsp_error.next = self.mem.dma_wr_rsp_error.val();
        self.nic.dma_wr_rsp_tag.next = self.mem.dma_wr_rsp_tag.val();

        // ---- RGMII receive: PHY → rx_clock domain → FIFO → the NIC's rx stream
        self.rgmii_rx.rx_clock.next = self.rx_clock.val();
        self.rgmii_rx.rx_reset.next = self.rx_reset.val();
        self.rgmii_rx.clock.next = self.clock.val();
        self.rgmii_rx.reset.next = self.reset.val();
        self.rgmii_rx.rxd_rise.next = self.rgmii_rxd_rise.val();
        self.rgmii_rx.rxd_fall.next = self.rgmii_rxd_fall.val();
        self.rgmii_rx.ctl_rise.next = self.rgmii_rx_ctl_rise.val();
        self.rgmii_rx.ctl_fall.next = self.rgmii_rx_ctl_fall.val();
        self.nic.rx_axis_tdata.next = self.rgmii_rx.m_axis_tdata.val();
        self.nic.rx_axis_tkeep.next = self.rgmii_rx.m_axis_tkeep.val();
        self.nic.rx_axis_tlast.next = self.rgmii_rx.m_axis_tlast.val();
        self.nic.rx_axis_tuser.next = self.rgmii_rx.m_axis_tuser.val();
        self.nic.rx_axis_tvalid.next = self.rgmii_rx.m_axis_tvalid.val();
        self.rgmii_rx.m_axis_tready.next = self.nic.rx_axis_tready.val();

        // ---- RGMII transmit: the NIC's tx stream → FIFO → tx_clock domain → PHY
        self.rgmii_tx.clock.next = self.clock.val();
        self.rgmii_tx.reset.next = self.reset.val();
        self.rgmii_tx.tx_clock.next = self.tx_clock.val();
        self.rgmii_tx.tx_reset.next = self.tx_reset.val();
        self.rgmii_tx.s_axis_tdata.next = self.nic.tx_axis_tdata.val();
        self.rgmii_tx.s_axis_tkeep.next = self.nic.tx_axis_tkeep.val();
        self.rgmii_tx.s_axis_tlast.next = self.nic.tx_axis_tlast.val();
        self.rgmii_tx.s_axis_tuser.next = self.nic.tx_axis_tuser.val();
        self.rgmii_tx.s_axis_tvalid.next = self.nic.tx_axis_tvalid.val();
        self.nic.tx_axis_tready.next = self.rgmii_tx.s_axis_tready.val();
        self.rgmii_txd_rise.next = self.rgmii_tx.txd_rise.val();
        self.rgmii_txd_fall.next = self.rgmii_tx.txd_fall.val();
        self.rgmii_tx_ctl_rise.next = self.rgmii_tx.ctl_rise.val();
        self.rgmii_tx_ctl_fall.next = self.rgmii_tx.ctl_fall.val();

        // ---- LEDs
        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        if self.nic.rx_axis_tvalid.val() & self.nic.rx_axis_tready.val() & self.nic.rx_axis_tlast.val() {
            self.rx_toggle.d.next = !self.rx_toggle.q.val();
        }
        if self.nic.tx_axis_tvalid.val() & self.nic.tx_axis_tready.val() & self.nic.tx_axis_tlast.val() {
            self.tx_toggle.d.next = !self.tx_toggle.q.val();
        }
        if self.reset.val() {
            self.heartbeat.d.next = 0.into();
            self.rx_toggle.d.next = false;
            self.tx_toggle.d.next = false;
        }
        self.led.next = bit_cast::<4, 1>(self.heartbeat.q.val().get_bit(26).into())
            | (bit_cast::<4, 1>(self.rx_toggle.q.val().into()) << 1)
            | (bit_cast::<4, 1>(self.tx_toggle.q.val().into()) << 2)
            | (bit_cast::<4, 1>(self.mem.fault_count.val().any().into()) << 3);
    }
}

/// Address bits of a host memory lane: 16 lanes of 2^12 bytes = 64 KiB (two DP16KD per
/// lane on ECP5), enough for a driver with 8-entry rings of 2 KiB buffers each way.
pub const HOST_MEM_AW: usize = 12;

/// The board cores of the two configurations.
pub type BoardCoreSmall = BoardCore<8, 9, 8, 9, 1, 1, 9, 10, HOST_MEM_AW, 0>;
pub type BoardCoreFull = BoardCore<9, 10, 10, 11, 8, 8, 12, 13, HOST_MEM_AW, 1>;
