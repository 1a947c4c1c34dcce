//! The board around the NIC core (docs/fpga.md): what a real FPGA board needs besides
//! `nic_top` to be driven by the same Rust driver. The ECPIX-5 (`core`, `ecpix5`): a host
//! memory in block RAM behind the DMA port, a UART register bridge, and an RGMII MAC
//! adapter with clock-domain crossing. The iCE40-HX8K breakout (`ice40`): the register
//! port and the DMA port both over the UART (`host_link`), the host's memory serving DMA.

pub mod bridge;
pub mod cdc_fifo;
pub mod core;
pub mod ecpix5;
pub mod host_link;
pub mod host_mem;
pub mod ice40;
pub mod rgmii;
pub mod uart;
