//! `SimDevice`: the Verilated NIC + host memory + a wire endpoint, as a driver `Device`.
//!
//! Two buses between the NIC and host memory ([`Bus`]): the NIC's own DMA port
//! (`nic_top`, served by [`HostMemory::drive`]/[`HostMemory::observe`]), or AXI4
//! (`nic_top_axi`: the same NIC behind its `DmaAxiBridge`, served by the AXI slave and
//! protocol checker of [`crate::axi_mem`]). The driver sees no difference.

use std::path::PathBuf;

use nic_driver::device::{Device, DeviceError, DmaFault, DmaRegion};

use crate::axi_mem::{AxiMemConfig, AxiMemPort};
use crate::axi_model::{AxiInputs, AxiModel, AxiOutputs};
use crate::host_mem::{HostMemConfig, HostMemory};
use crate::model::{HwConfig, Inputs, Model, Outputs};
use crate::wire::{AxisBeat, QueueWire, WireEndpoint, WireFrame};

/// How the simulated NIC reaches host memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bus {
    /// `nic_top` and its DMA port (docs/interfaces.md).
    #[default]
    DmaPort,
    /// `nic_top_axi`: the NIC's DMA port bridged to a 128-bit AXI4 master, served by an
    /// AXI4 slave that checks the protocol ([`crate::axi_mem::AxiMemPort`]).
    Axi4,
}

impl Bus {
    pub fn name(self) -> &'static str {
        match self {
            Bus::DmaPort => "dma",
            Bus::Axi4 => "axi",
        }
    }
}

impl std::str::FromStr for Bus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "dma" | "dma-port" | "dmaport" => Ok(Bus::DmaPort),
            "axi" | "axi4" => Ok(Bus::Axi4),
            other => Err(format!("unknown bus `{other}` (dma, axi)")),
        }
    }
}

impl std::fmt::Display for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Cycles of reset applied by [`SimDevice::new`] and [`SimDevice::reset`].
pub const RESET_CYCLES: u64 = 4;
/// Default cycles a register access may take before `RegisterTimeout`.
pub const DEFAULT_REGISTER_TIMEOUT: u64 = 4096;

/// How to build a [`SimDevice`].
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    pub hw: HwConfig,
    /// Host memory read latency in cycles (request accepted -> first beat), >= 1.
    pub mem_latency: u32,
    /// Random backpressure `(seed, probability per cycle)` on every channel the
    /// environment drives: DMA read-request ready, read-response valid, write ready,
    /// `tx_axis_tready`, and idle gaps on `rx_axis`.
    pub backpressure: Option<(u64, f64)>,
    /// Dump an FST waveform of the whole run into this file.
    pub wave: Option<PathBuf>,
    /// The bus to host memory. With [`Bus::Axi4`], `mem_latency` is the AR-to-first-R-beat
    /// latency and `backpressure` stalls ARREADY, RVALID, AWREADY, WREADY and BVALID.
    pub bus: Bus,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { hw: HwConfig::Small, mem_latency: 16, backpressure: None, wave: None, bus: Bus::DmaPort }
    }
}

impl SimConfig {
    pub fn new(hw: HwConfig) -> SimConfig {
        SimConfig { hw, ..SimConfig::default() }
    }

    /// `hw` behind the AXI4 bridge (`nic_top_axi`).
    pub fn axi(hw: HwConfig) -> SimConfig {
        SimConfig { hw, bus: Bus::Axi4, ..SimConfig::default() }
    }
}

/// The model and what serves its memory bus.
enum Core {
    /// `nic_top`; its DMA port is served by `SimDevice::mem` directly.
    Dma(Model),
    Axi(Box<AxiCore>),
}

struct AxiCore {
    model: AxiModel,
    port: AxiMemPort,
    inputs: AxiInputs,
    /// The ports `nic_top` and `nic_top_axi` share, as `Outputs` (DMA fields 0), so that
    /// `SimDevice::step` and `outputs` keep their signature.
    view: Outputs,
}

impl AxiCore {
    #[inline]
    fn step(&mut self, common: &Inputs, mem: &mut HostMemory) -> &Outputs {
        let i = &mut self.inputs;
        i.reset = common.reset;
        i.s_axil_awaddr = common.s_axil_awaddr;
        i.s_axil_awvalid = common.s_axil_awvalid;
        i.s_axil_wdata = common.s_axil_wdata;
        i.s_axil_wstrb = common.s_axil_wstrb;
        i.s_axil_wvalid = common.s_axil_wvalid;
        i.s_axil_bready = common.s_axil_bready;
        i.s_axil_araddr = common.s_axil_araddr;
        i.s_axil_arvalid = common.s_axil_arvalid;
        i.s_axil_rready = common.s_axil_rready;
        i.tx_axis_tready = common.tx_axis_tready;
        i.rx_axis_tdata = common.rx_axis_tdata;
        i.rx_axis_tkeep = common.rx_axis_tkeep;
        i.rx_axis_tlast = common.rx_axis_tlast;
        i.rx_axis_tuser = common.rx_axis_tuser;
        i.rx_axis_tvalid = common.rx_axis_tvalid;
        self.port.drive(i);
        let out = self.model.step(i);
        self.port.observe(i, out, mem);
        let v = &mut self.view;
        v.s_axil_awready = out.s_axil_awready;
        v.s_axil_wready = out.s_axil_wready;
        v.s_axil_bresp = out.s_axil_bresp;
        v.s_axil_bvalid = out.s_axil_bvalid;
        v.s_axil_arready = out.s_axil_arready;
        v.s_axil_rdata = out.s_axil_rdata;
        v.s_axil_rresp = out.s_axil_rresp;
        v.s_axil_rvalid = out.s_axil_rvalid;
        v.tx_axis_tdata = out.tx_axis_tdata;
        v.tx_axis_tkeep = out.tx_axis_tkeep;
        v.tx_axis_tlast = out.tx_axis_tlast;
        v.tx_axis_tuser = out.tx_axis_tuser;
        v.tx_axis_tvalid = out.tx_axis_tvalid;
        v.rx_axis_tready = out.rx_axis_tready;
        v.irq = out.irq;
        &self.view
    }
}

/// A simulated NIC: the Verilated `nic_top`, a host memory with an IOMMU serving its DMA
/// port, and a wire endpoint on its AXI4-Stream ports. Every cycle stepped (by register
/// accesses, `idle`, `wait_irq` or `step`) services the DMA port and the wire.
/// With [`Bus::Axi4`] the model is `nic_top_axi` and an AXI4 slave serves host memory.
pub struct SimDevice {
    core: Core,
    mem: HostMemory,
    wire: Box<dyn WireEndpoint>,
    /// Inputs as driven in the last/coming cycle (AXI-Lite fields persist between steps).
    inputs: Inputs,
    register_timeout: u64,
    config: SimConfig,
}

impl SimDevice {
    /// Builds the model, applies reset for [`RESET_CYCLES`] cycles.
    pub fn new(config: SimConfig) -> Result<SimDevice, String> {
        let core = match config.bus {
            Bus::DmaPort => Core::Dma(match &config.wave {
                Some(p) => Model::with_wave(config.hw, p)?,
                None => Model::new(config.hw)?,
            }),
            Bus::Axi4 => {
                let model = match &config.wave {
                    Some(p) => AxiModel::with_wave(config.hw, p)?,
                    None => AxiModel::new(config.hw)?,
                };
                let port = AxiMemPort::new(AxiMemConfig {
                    latency: config.mem_latency.max(1),
                    backpressure: config.backpressure,
                    ..AxiMemConfig::default()
                });
                Core::Axi(Box::new(AxiCore { model, port, inputs: AxiInputs::default(), view: Outputs::default() }))
            }
        };
        let mem = HostMemory::new(HostMemConfig {
            latency: config.mem_latency.max(1),
            backpressure: config.backpressure,
            ..HostMemConfig::default()
        });
        let wire = Box::new(QueueWire::new(
            config.backpressure.map(|(s, p)| (s ^ 0x5157_4952, p)),
            config.backpressure.map(|(s, p)| (s ^ 0x5258_4741, p)),
        ));
        let mut core = core;
        // NIC_SIM_EXACT=1: every cycle evaluated twice (clock low, clock high), as with a
        // waveform open, to tell a simulator fault from an RTL one
        if std::env::var_os("NIC_SIM_EXACT").is_some_and(|v| v == "1") {
            match &mut core {
                Core::Dma(m) => m.set_exact_eval(true),
                Core::Axi(a) => a.model.set_exact_eval(true),
            }
        }
        let mut d = SimDevice {
            core,
            mem,
            wire,
            inputs: Inputs::default(),
            register_timeout: DEFAULT_REGISTER_TIMEOUT,
            config,
        };
        d.reset();
        Ok(d)
    }

    /// Drives `reset` for [`RESET_CYCLES`] cycles (DMA and wire keep being serviced).
    pub fn reset(&mut self) {
        self.inputs.reset = true;
        for _ in 0..RESET_CYCLES {
            self.step();
        }
        self.inputs.reset = false;
    }

    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    pub fn hw(&self) -> HwConfig {
        self.config.hw
    }

    pub fn bus(&self) -> Bus {
        self.config.bus
    }

    /// One clock cycle: DMA port and wire are driven, the model steps, the handshakes of
    /// the edge are handed to the host memory and the wire endpoint.
    #[inline]
    pub fn step(&mut self) -> &Outputs {
        let inp = &mut self.inputs;
        if let Core::Dma(_) = self.core {
            self.mem.drive(inp);
        }
        let rx = self.wire.rx_offer();
        let tx_ready = self.wire.tx_ready();
        match rx {
            Some(b) => {
                inp.rx_axis_tvalid = true;
                inp.rx_axis_tdata = b.data;
                inp.rx_axis_tkeep = b.keep;
                inp.rx_axis_tlast = b.last;
                inp.rx_axis_tuser = b.user;
            }
            None => {
                inp.rx_axis_tvalid = false;
                inp.rx_axis_tdata = 0;
                inp.rx_axis_tkeep = 0;
                inp.rx_axis_tlast = false;
                inp.rx_axis_tuser = false;
            }
        }
        inp.tx_axis_tready = tx_ready;
        let out = match &mut self.core {
            Core::Dma(model) => {
                let out = model.step(inp);
                self.mem.observe(inp, out);
                out
            }
            Core::Axi(a) => a.step(inp, &mut self.mem),
        };
        if inp.rx_axis_tvalid && out.rx_axis_tready {
            self.wire.rx_taken();
        }
        if out.tx_axis_tvalid && tx_ready {
            self.wire.tx_beat(AxisBeat {
                data: out.tx_axis_tdata,
                keep: out.tx_axis_tkeep,
                last: out.tx_axis_tlast,
                user: out.tx_axis_tuser,
            });
        }
        out
    }

    /// Steps until `cond(outputs)` holds (checked after each step) or `max_cycles` pass.
    /// Returns whether it held.
    pub fn step_until(&mut self, max_cycles: u64, mut cond: impl FnMut(&Outputs) -> bool) -> bool {
        for _ in 0..max_cycles {
            if cond(self.step()) {
                return true;
            }
        }
        false
    }

    /// Port values of the last cycle stepped (as sampled at its rising edge). With
    /// [`Bus::Axi4`]: the ports `nic_top_axi` shares with `nic_top`, the `dma_*` fields 0
    /// (see [`SimDevice::axi_outputs`]).
    pub fn outputs(&self) -> &Outputs {
        match &self.core {
            Core::Dma(m) => m.outputs(),
            Core::Axi(a) => &a.view,
        }
    }

    /// Inputs driven in the last cycle stepped. With [`Bus::Axi4`] the `dma_*` fields are
    /// unused (see [`SimDevice::axi_inputs`]).
    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }

    /// The `nic_top` model. Panics with [`Bus::Axi4`] (use [`SimDevice::axi_model`]).
    pub fn model(&mut self) -> &mut Model {
        match &mut self.core {
            Core::Dma(m) => m,
            Core::Axi(_) => panic!("SimDevice::model: this device runs nic_top_axi (Bus::Axi4); use axi_model()"),
        }
    }

    /// The `nic_top_axi` model (`None` on the DMA port).
    pub fn axi_model(&mut self) -> Option<&mut AxiModel> {
        match &mut self.core {
            Core::Dma(_) => None,
            Core::Axi(a) => Some(&mut a.model),
        }
    }

    /// The AXI4 slave serving host memory: statistics, `check_idle` (`None` on the DMA port).
    pub fn axi_port(&mut self) -> Option<&mut AxiMemPort> {
        match &mut self.core {
            Core::Dma(_) => None,
            Core::Axi(a) => Some(&mut a.port),
        }
    }

    /// Inputs of `nic_top_axi` in the last cycle stepped (`None` on the DMA port).
    pub fn axi_inputs(&self) -> Option<&AxiInputs> {
        match &self.core {
            Core::Dma(_) => None,
            Core::Axi(a) => Some(&a.inputs),
        }
    }

    /// Outputs of `nic_top_axi` in the last cycle stepped (`None` on the DMA port).
    pub fn axi_outputs(&self) -> Option<&AxiOutputs> {
        match &self.core {
            Core::Dma(_) => None,
            Core::Axi(a) => Some(a.model.outputs()),
        }
    }

    /// No memory transaction in flight on the bus (DMA port or AXI).
    pub fn bus_idle(&self) -> bool {
        match &self.core {
            Core::Dma(_) => self.mem.dma_idle(),
            Core::Axi(a) => a.port.idle(),
        }
    }

    pub fn mem(&mut self) -> &mut HostMemory {
        &mut self.mem
    }

    pub fn mem_ref(&self) -> &HostMemory {
        &self.mem
    }

    pub fn wire(&mut self) -> &mut dyn WireEndpoint {
        &mut *self.wire
    }

    /// Replaces the wire endpoint; returns the old one.
    pub fn set_wire(&mut self, wire: Box<dyn WireEndpoint>) -> Box<dyn WireEndpoint> {
        std::mem::replace(&mut self.wire, wire)
    }

    /// The endpoint as its concrete type, if it is one.
    pub fn wire_as<T: 'static>(&mut self) -> Option<&mut T> {
        self.wire.as_any_mut().downcast_mut::<T>()
    }

    /// Queues a frame (FCS included) for the NIC's `rx_axis` (panics if the endpoint is
    /// not a frame queue, e.g. a link to another device).
    pub fn inject_rx(&mut self, frame: &[u8], error: bool) {
        self.wire.inject_rx(frame, error);
    }

    /// Frames the NIC sent on `tx_axis` since the last call.
    pub fn take_tx_frames(&mut self) -> Vec<WireFrame> {
        self.wire.take_tx_frames()
    }

    /// Cycles a register access may take before it fails with `RegisterTimeout`.
    pub fn set_register_timeout(&mut self, cycles: u64) {
        self.register_timeout = cycles.max(1);
    }

    /// Dumps an FST waveform from now on (needs a build with tracing, see `Model`).
    pub fn start_wave(&mut self, path: &std::path::Path) -> Result<(), String> {
        match &mut self.core {
            Core::Dma(m) => m.open_wave(path),
            Core::Axi(a) => a.model.open_wave(path),
        }
    }

    pub fn stop_wave(&mut self) {
        match &mut self.core {
            Core::Dma(m) => m.close_wave(),
            Core::Axi(a) => a.model.close_wave(),
        }
    }

    fn check_offset(offset: u32) -> u16 {
        assert!(offset <= 0xFFFC && offset.is_multiple_of(4), "register offset {offset:#x} outside the 16-bit AXI4-Lite space or unaligned");
        offset as u16
    }
}

impl Device for SimDevice {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        let addr = Self::check_offset(offset);
        self.inputs.s_axil_araddr = addr;
        self.inputs.s_axil_arvalid = true;
        self.inputs.s_axil_rready = true;
        for _ in 0..self.register_timeout {
            let arvalid = self.inputs.s_axil_arvalid;
            let out = *self.step();
            if arvalid && out.s_axil_arready {
                self.inputs.s_axil_arvalid = false;
            }
            if !self.inputs.s_axil_arvalid && out.s_axil_rvalid {
                self.inputs.s_axil_rready = false;
                return Ok(out.s_axil_rdata);
            }
        }
        self.inputs.s_axil_arvalid = false;
        self.inputs.s_axil_rready = false;
        Err(DeviceError::RegisterTimeout { offset })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let addr = Self::check_offset(offset);
        self.inputs.s_axil_awaddr = addr;
        self.inputs.s_axil_awvalid = true;
        self.inputs.s_axil_wdata = value;
        self.inputs.s_axil_wstrb = 0xF;
        self.inputs.s_axil_wvalid = true;
        self.inputs.s_axil_bready = true;
        for _ in 0..self.register_timeout {
            let (awvalid, wvalid) = (self.inputs.s_axil_awvalid, self.inputs.s_axil_wvalid);
            let out = *self.step();
            if awvalid && out.s_axil_awready {
                self.inputs.s_axil_awvalid = false;
            }
            if wvalid && out.s_axil_wready {
                self.inputs.s_axil_wvalid = false;
            }
            if !self.inputs.s_axil_awvalid && !self.inputs.s_axil_wvalid && out.s_axil_bvalid {
                self.inputs.s_axil_bready = false;
                return Ok(());
            }
        }
        self.inputs.s_axil_awvalid = false;
        self.inputs.s_axil_wvalid = false;
        self.inputs.s_axil_bready = false;
        Err(DeviceError::RegisterTimeout { offset })
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        self.mem.alloc(len)
    }

    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        self.mem.write(bus_addr, data)
    }

    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        self.mem.read(bus_addr, buf)
    }

    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        let now = self.outputs().irq as u32 & mask;
        if now != 0 {
            return now;
        }
        for _ in 0..timeout_cycles {
            let v = self.step().irq as u32 & mask;
            if v != 0 {
                return v;
            }
        }
        0
    }

    fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    fn cycles(&self) -> u64 {
        match &self.core {
            Core::Dma(m) => m.cycles(),
            Core::Axi(a) => a.model.cycles(),
        }
    }

    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        self.mem.take_faults()
    }

    fn free_dma(&mut self, region: DmaRegion) {
        self.mem.free(region.bus_addr);
    }
}

impl std::fmt::Debug for SimDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("SimDevice");
        match &self.core {
            Core::Dma(m) => d.field("model", m),
            Core::Axi(a) => d.field("model", &a.model),
        };
        d.field("config", &self.config).finish()
    }
}
