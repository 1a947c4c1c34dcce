//! nic-sim: the NIC simulated cycle by cycle.
//!
//! * [`Model`]: the Verilated `nic_top` of a [`HwConfig`], one FFI call per clock cycle
//!   ([`Inputs`] in, [`Outputs`] out), optional FST waveforms.
//! * [`HostMemory`]: host memory behind an IOMMU, serving the NIC's DMA port.
//! * [`WireEndpoint`]: the far end of the wire ports ([`QueueWire`] for tests,
//!   [`LinkWire`] to cable two simulated NICs together).
//! * [`AxiModel`]: the Verilated `nic_top_axi` (the NIC behind its AXI4 bridge), and
//!   [`AxiMemPort`]: an AXI4 slave in front of [`HostMemory`] that checks the protocol.
//! * [`SimDevice`]: all three together, implementing the driver's `Device` trait, on
//!   either [`Bus`] (`SimConfig::bus`).
//! * [`board::BoardSim`]: the ECPIX-5 board top at its pins (`board_model`), with the
//!   PLL, the RGMII PHY and the host's UART modelled.
//! * [`bench_idle`]: simulation speed.

pub mod axi_mem;
pub mod axi_model;
pub mod bench;
pub mod board;
pub mod board_model;
pub mod device;
pub mod host_mem;
pub mod ice40;
pub mod ice40_model;
pub mod model;
pub mod rng;
pub mod wire;

pub use bench::{bench_idle, bench_idle_with, bench_model_idle};
pub use axi_mem::{AxiMemConfig, AxiMemPort, AxiStats};
pub use device::{Bus, SimConfig, SimDevice, DEFAULT_REGISTER_TIMEOUT, RESET_CYCLES};
pub use host_mem::{DmaStats, HostMemConfig, HostMemory, DMA_BASE, GUARD_GAP};
pub use axi_model::{AxiInputs, AxiModel, AxiOutputs};
pub use model::{HwConfig, Inputs, Model, Outputs};
pub use nic_driver::device::{Device, DeviceError, DmaFault, DmaRegion};
pub use wire::{frame_to_beats, AxisBeat, FrameAssembler, LinkWire, QueueWire, WireEndpoint, WireFrame};
