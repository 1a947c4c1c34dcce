//! `SimDevice`: the Verilated NIC + host memory + a wire endpoint, as a driver `Device`.

use std::path::PathBuf;

use nic_driver::device::{Device, DeviceError, DmaFault, DmaRegion};

use crate::host_mem::{HostMemConfig, HostMemory};
use crate::model::{HwConfig, Inputs, Model, Outputs};
use crate::wire::{AxisBeat, QueueWire, WireEndpoint, WireFrame};

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
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { hw: HwConfig::Small, mem_latency: 16, backpressure: None, wave: None }
    }
}

impl SimConfig {
    pub fn new(hw: HwConfig) -> SimConfig {
        SimConfig { hw, ..SimConfig::default() }
    }
}

/// A simulated NIC: the Verilated `nic_top`, a host memory with an IOMMU serving its DMA
/// port, and a wire endpoint on its AXI4-Stream ports. Every cycle stepped (by register
/// accesses, `idle`, `wait_irq` or `step`) services the DMA port and the wire.
pub struct SimDevice {
    model: Model,
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
        let model = match &config.wave {
            Some(p) => Model::with_wave(config.hw, p)?,
            None => Model::new(config.hw)?,
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
        let mut d = SimDevice {
            model,
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

    /// One clock cycle: DMA port and wire are driven, the model steps, the handshakes of
    /// the edge are handed to the host memory and the wire endpoint.
    #[inline]
    pub fn step(&mut self) -> &Outputs {
        let inp = &mut self.inputs;
        self.mem.drive(inp);
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
        let out = self.model.step(inp);
        self.mem.observe(inp, out);
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

    /// Port values of the last cycle stepped (as sampled at its rising edge).
    pub fn outputs(&self) -> &Outputs {
        self.model.outputs()
    }

    /// Inputs driven in the last cycle stepped.
    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }

    pub fn model(&mut self) -> &mut Model {
        &mut self.model
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
        self.model.open_wave(path)
    }

    pub fn stop_wave(&mut self) {
        self.model.close_wave();
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
        let now = self.model.outputs().irq as u32 & mask;
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
        self.model.cycles()
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
        f.debug_struct("SimDevice").field("model", &self.model).field("config", &self.config).finish()
    }
}
