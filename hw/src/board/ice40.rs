//! The iCE40 board top level, for Lattice's iCE40-HX8K Breakout Board (ICE40HX8K-B-EVN):
//! an HX8K in a CT256 package, a 12 MHz oscillator, an FT2232H whose channel B is a UART
//! to the FPGA, eight LEDs. Why this board: it is the HX8K board with the host link on
//! the same USB cable that programs it, as the ECPIX-5 has, and it needs nothing on the
//! board but the FPGA, which is what an HX8K has room for beside `small`.
//!
//! An HX8K has 32 block RAMs of 512 bytes, and `small` uses 28 of them, so host memory
//! cannot be on chip as on the ECPIX-5 (`HostMem`). Instead the whole host interface goes
//! over the UART (`HostLink`): register commands, and the DMA port tunnelled to the host,
//! whose own memory answers it, as behind a PCIe link. The same Rust driver drives it
//! through `nic_driver::host_link::LinkDevice`.
//!
//! The board has no Ethernet PHY: the MAC's wire streams are looped to each other here
//! (what leaves on `tx_axis` comes back on `rx_axis`), as a loopback plug would, so the
//! whole NIC is live and exercised. An RMII PHY module on the breakout's headers, at
//! 100 Mb/s, is the next step for a real wire.
//!
//! * `ice40_core` (this module's [`Ice40Core`], generated): the NIC, the UART, the host
//!   link, the loopback, the LEDs; one clock domain.
//! * `ice40_top` ([`ice40_verilog`]): the pins, the PLL (`board_pll`, an SB_PLL40_CORE
//!   configured by IceStorm's `icepll` in the synthesis flow: 12 MHz in, the core clock
//!   out) and the reset, held while the PLL is not locked and released synchronously.

use super::host_link::HostLink;
use super::uart::{UartRx, UartTx};
use crate::top::NicTop;
use crate::Config;
use rust_hdl::prelude::*;

/// Pins of the iCE40-HX8K Breakout Board used by the NIC (from the board's user guide):
/// name, site.
pub const ICE40_PINS: &[(&str, &str)] = &[
    ("clk12", "J3"),
    ("uart_rxd", "B10"), // FT2232H channel B TXD -> FPGA
    ("uart_txd", "B12"),
    ("led[0]", "B5"),
    ("led[1]", "B4"),
    ("led[2]", "A2"),
    ("led[3]", "A1"),
    ("led[4]", "C5"),
    ("led[5]", "C4"),
    ("led[6]", "B3"),
    ("led[7]", "C3"),
];

/// The board's FPGA (nextpnr-ice40: `--hx8k --package ct256`).
pub const ICE40_DEVICE: (&str, &str) = ("--hx8k", "ct256");

/// The board's oscillator, MHz.
pub const ICE40_CLOCK_IN_MHZ: f64 = 12.0;

/// The UART's bit rate on the board (the FT2232H takes 3 Mbaud).
pub const ICE40_BAUD: f64 = 3_000_000.0;

/// Bits of the heartbeat counter: LED 0 toggles every 2^24 core cycles (0.5 s at 33 MHz).
const HEARTBEAT_BITS: usize = 25; // its top bit, 24, drives LED 0 (hdl_gen takes the literal)

#[derive(LogicBlock)]
pub struct Ice40Core {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Core clocks per UART bit (the vendor layer sets it from the core frequency).
    pub uart_divisor: Signal<In, Bits<16>>,
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    /// 0: heartbeat; 1: toggles per frame looped; 2: a read response beat was lost
    /// (`HostLink` overrun); 3: any interrupt line is high; 7:4 off.
    pub led: Signal<Out, Bits<8>>,
    nic: NicTop<8, 9, 8, 9, 1, 1, 9, 10, 0>,
    uart_in: UartRx,
    uart_out: UartTx,
    link: HostLink,
    heartbeat: DFF<Bits<HEARTBEAT_BITS>>,
    frame_toggle: DFF<Bit>,
}

impl Ice40Core {
    /// The core of `small` (the only configuration an HX8K holds).
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            uart_divisor: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            led: Default::default(),
            nic: NicTop::new(Config::Small),
            uart_in: Default::default(),
            uart_out: Default::default(),
            link: Default::default(),
            heartbeat: Default::default(),
            frame_toggle: Default::default(),
        }
    }
}

impl Default for Ice40Core {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for Ice40Core {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, nic, uart_in, uart_out, link);
        dff_setup!(self, clock, heartbeat, frame_toggle);
        self.nic.reset.next = self.reset.val();
        self.uart_in.reset.next = self.reset.val();
        self.uart_out.reset.next = self.reset.val();
        self.link.reset.next = self.reset.val();

        // ---- UART → host link → UART
        self.uart_in.divisor.next = self.uart_divisor.val();
        self.uart_out.divisor.next = self.uart_divisor.val();
        self.uart_in.rx.next = self.uart_rx.val();
        self.uart_tx.next = self.uart_out.tx.val();
        self.link.rx_data.next = self.uart_in.data.val();
        self.link.rx_valid.next = self.uart_in.valid.val();
        self.uart_out.data.next = self.link.tx_data.val();
        self.uart_out.valid.next = self.link.tx_valid.val();
        self.link.tx_ready.next = self.uart_out.ready.val();

        // ---- host link → the NIC's register port (AXI4-Lite)
        self.nic.s_axil_awaddr.next = self.link.m_axil_awaddr.val();
        self.nic.s_axil_awvalid.next = self.link.m_axil_awvalid.val();
        self.link.m_axil_awready.next = self.nic.s_axil_awready.val();
        self.nic.s_axil_wdata.next = self.link.m_axil_wdata.val();
        self.nic.s_axil_wstrb.next = self.link.m_axil_wstrb.val();
        self.nic.s_axil_wvalid.next = self.link.m_axil_wvalid.val();
        self.link.m_axil_wready.next = self.nic.s_axil_wready.val();
        self.link.m_axil_bresp.next = self.nic.s_axil_bresp.val();
        self.link.m_axil_bvalid.next = self.nic.s_axil_bvalid.val();
        self.nic.s_axil_bready.next = self.link.m_axil_bready.val();
        self.nic.s_axil_araddr.next = self.link.m_axil_araddr.val();
        self.nic.s_axil_arvalid.next = self.link.m_axil_arvalid.val();
        self.link.m_axil_arready.next = self.nic.s_axil_arready.val();
        self.link.m_axil_rdata.next = self.nic.s_axil_rdata.val();
        self.link.m_axil_rresp.next = self.nic.s_axil_rresp.val();
        self.link.m_axil_rvalid.next = self.nic.s_axil_rvalid.val();
        self.nic.s_axil_rready.next = self.link.m_axil_rready.val();
        // the host link carries the Ethernet queues' vectors (bits 15:0); `small` has no others
        self.link.irq.next = self.nic.irq.val().get_bits::<16>(0);

        // ---- the NIC's DMA port → host link
        self.link.dma_rd_req_valid.next = self.nic.dma_rd_req_valid.val();
        self.nic.dma_rd_req_ready.next = self.link.dma_rd_req_ready.val();
        self.link.dma_rd_req_addr.next = self.nic.dma_rd_req_addr.val();
        self.link.dma_rd_req_len.next = self.nic.dma_rd_req_len.val();
        self.link.dma_rd_req_tag.next = self.nic.dma_rd_req_tag.val();
        self.nic.dma_rd_rsp_valid.next = self.link.dma_rd_rsp_valid.val();
        self.link.dma_rd_rsp_ready.next = self.nic.dma_rd_rsp_ready.val();
        self.nic.dma_rd_rsp_data.next = self.link.dma_rd_rsp_data.val();
        self.nic.dma_rd_rsp_last.next = self.link.dma_rd_rsp_last.val();
        self.nic.dma_rd_rsp_error.next = self.link.dma_rd_rsp_error.val();
        self.nic.dma_rd_rsp_tag.next = self.link.dma_rd_rsp_tag.val();
        self.link.dma_wr_valid.next = self.nic.dma_wr_valid.val();
        self.nic.dma_wr_ready.next = self.link.dma_wr_ready.val();
        self.link.dma_wr_addr.next = self.nic.dma_wr_addr.val();
        self.link.dma_wr_data.next = self.nic.dma_wr_data.val();
        self.link.dma_wr_strb.next = self.nic.dma_wr_strb.val();
        self.link.dma_wr_last.next = self.nic.dma_wr_last.val();
        self.link.dma_wr_tag.next = self.nic.dma_wr_tag.val();
        self.nic.dma_wr_rsp_valid.next = self.link.dma_wr_rsp_valid.val();
        self.nic.dma_wr_rsp_error.next = self.link.dma_wr_rsp_error.val();
        self.nic.dma_wr_rsp_tag.next = self.link.dma_wr_rsp_tag.val();

        // ---- the wire, looped: tx_axis → rx_axis
        self.nic.rx_axis_tdata.next = self.nic.tx_axis_tdata.val();
        self.nic.rx_axis_tkeep.next = self.nic.tx_axis_tkeep.val();
        self.nic.rx_axis_tlast.next = self.nic.tx_axis_tlast.val();
        self.nic.rx_axis_tuser.next = self.nic.tx_axis_tuser.val();
        self.nic.rx_axis_tvalid.next = self.nic.tx_axis_tvalid.val();
        self.nic.tx_axis_tready.next = self.nic.rx_axis_tready.val();

        // ---- LEDs
        self.heartbeat.d.next = self.heartbeat.q.val() + 1;
        if self.nic.tx_axis_tvalid.val()
            & self.nic.rx_axis_tready.val()
            & self.nic.tx_axis_tlast.val()
        {
            self.frame_toggle.d.next = !self.frame_toggle.q.val();
        }
        if self.reset.val() {
            self.heartbeat.d.next = 0.into();
            self.frame_toggle.d.next = false;
        }
        self.led.next = bit_cast::<8, 1>(self.heartbeat.q.val().get_bit(24).into())
            | (bit_cast::<8, 1>(self.frame_toggle.q.val().into()) << 1)
            | (bit_cast::<8, 1>(self.link.overrun.val().into()) << 2)
            | (bit_cast::<8, 1>(self.nic.irq.val().any().into()) << 3);
    }
}

/// The UART divisor for a core clock (rounded to the nearest: at 3 Mbaud the error is at
/// most half a clock per bit, under 2 % at the 33 MHz the flow builds).
pub fn uart_divisor(core_hz: f64) -> u16 {
    (core_hz / ICE40_BAUD).round().max(4.0) as u16
}

/// `ice40_top`: the pins, the PLL and the reset around `ice40_core`.
pub fn ice40_verilog(uart_divisor: u16) -> String {
    format!(
        r#"// iCE40-HX8K Breakout Board top level (generated by nic_hw::board::ice40)
module ice40_top (
    input  wire clk12,
    input  wire uart_rxd,
    output wire uart_txd,
    output wire [7:0] led
);
    wire clock;
    wire locked;
    board_pll pll (.clock_in(clk12), .clock_out(clock), .locked(locked));
    // held in reset until the PLL locks; released synchronously to the core clock
    reg [3:0] reset_sync = 4'b1111;
    always @(posedge clock or negedge locked)
        if (!locked) reset_sync <= 4'b1111;
        else reset_sync <= {{reset_sync[2:0], 1'b0}};
    ice40_core core (
        .clock(clock),
        .reset(reset_sync[3]),
        .uart_divisor(16'd{uart_divisor}),
        .uart_rx(uart_rxd),
        .uart_tx(uart_txd),
        .led(led)
    );
endmodule
"#
    )
}

/// The pin constraints (nextpnr-ice40 `--pcf`).
pub fn ice40_pcf() -> String {
    let mut s = String::from("# iCE40-HX8K Breakout Board (generated by nic_hw::board::ice40)\n");
    for (name, site) in ICE40_PINS {
        s += &format!("set_io {name} {site}\n");
    }
    s
}
