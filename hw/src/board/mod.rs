//! The board around the NIC core (docs/fpga.md): what a real FPGA board needs besides
//! `nic_top` to be driven by the same Rust driver — a host memory in block RAM behind the
//! DMA port, a UART register bridge, and an RGMII MAC adapter with clock-domain crossing.

pub mod bridge;
pub mod cdc_fifo;
pub mod core;
pub mod ecpix5;
pub mod host_mem;
pub mod rgmii;
pub mod uart;
