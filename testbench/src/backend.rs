//! Opens a device for the suites: the Verilated RTL (`nic_sim::SimDevice`) or the
//! behavioural model ([`crate::refnic::RefNic`]), in either configuration.

use crate::refnic::{RefNic, RefNicConfig};
use crate::traffic::WireAccess;
use nic_driver::Device;

/// A device with a wire the tests can reach.
pub trait TestDevice: Device + WireAccess {}
impl<T: Device + WireAccess> TestDevice for T {}

impl<T: WireAccess + ?Sized> WireAccess for Box<T> {
    fn inject_rx(&mut self, frame_with_fcs: &[u8], error: bool) {
        (**self).inject_rx(frame_with_fcs, error)
    }
    fn take_tx_frames(&mut self) -> Vec<(Vec<u8>, bool)> {
        (**self).take_tx_frames()
    }
}

impl<T: WireAccess + ?Sized> WireAccess for &mut T {
    fn inject_rx(&mut self, frame_with_fcs: &[u8], error: bool) {
        (**self).inject_rx(frame_with_fcs, error)
    }
    fn take_tx_frames(&mut self) -> Vec<(Vec<u8>, bool)> {
        (**self).take_tx_frames()
    }
}

/// Which implementation of the NIC, and how its environment behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The Verilated RTL through `nic_sim::SimDevice`, served on its DMA port.
    Rtl,
    /// The RTL behind its AXI4 master bridge (`nic_top_axi`), served by an AXI4 slave.
    RtlAxi,
    /// The RTL on its DMA port with random backpressure on every channel the
    /// environment drives and a slower host memory.
    RtlStress,
    /// The behavioural model.
    Model,
}

/// Which configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwSize {
    Small,
    Full,
}

impl Backend {
    pub const ALL: [Backend; 4] = [Backend::Model, Backend::Rtl, Backend::RtlAxi, Backend::RtlStress];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Rtl => "rtl",
            Backend::RtlAxi => "rtl-axi",
            Backend::RtlStress => "rtl-stress",
            Backend::Model => "model",
        }
    }

    /// Backends the suites run on by default.
    pub const DEFAULT: [Backend; 4] = [Backend::Model, Backend::Rtl, Backend::RtlAxi, Backend::RtlStress];

    /// Backends the suites run on: `NIC_BACKEND` is a comma-separated list of `model`,
    /// `rtl`, `rtl-axi`, `rtl-stress`, or `all`; unset: all four. Without the `rtl`
    /// feature only the model is available.
    pub fn selected() -> Vec<Backend> {
        let available: Vec<Backend> = Self::ALL.into_iter().filter(|b| cfg!(feature = "rtl") || *b == Backend::Model).collect();
        let spec = match std::env::var("NIC_BACKEND") {
            Ok(s) => s,
            Err(_) => return Self::DEFAULT.into_iter().filter(|b| available.contains(b)).collect(),
        };
        if spec.trim() == "all" {
            return available;
        }
        let picked: Vec<Backend> = spec
            .split(',')
            .map(|n| {
                let n = n.trim();
                *Self::ALL.iter().find(|b| b.name() == n).unwrap_or_else(|| panic!("NIC_BACKEND: unknown backend `{n}` (model, rtl, rtl-axi, rtl-stress, all)"))
            })
            .filter(|b| available.contains(b))
            .collect();
        assert!(!picked.is_empty(), "NIC_BACKEND={spec}: none of these backends is available in this build");
        picked
    }

    pub fn open(self, size: HwSize) -> Box<dyn TestDevice> {
        match self {
            Backend::Model => Box::new(RefNic::new(match size {
                HwSize::Small => RefNicConfig::small(),
                HwSize::Full => RefNicConfig::full(),
            })),
            rtl_backend => crate::backend::rtl::open(rtl_backend, size),
        }
    }
}

#[cfg(feature = "rtl")]
pub mod rtl {
    //! The Verilated RTL: `nic_sim::SimDevice` with its frame-queue wire.
    use super::*;
    use nic_sim::{Bus, HwConfig, SimConfig, SimDevice};

    use nic_driver::{DeviceError, DmaFault, DmaRegion};

    /// `SimDevice` as the suites and the CLI use it: the driver's `Device` plus the
    /// [`WireAccess`] view of its frame-queue wire. The simulator stays reachable as `.0`.
    pub struct RtlDevice(pub SimDevice);

    impl RtlDevice {
        pub fn new(config: SimConfig) -> Result<RtlDevice, String> {
            SimDevice::new(config).map(RtlDevice)
        }
    }

    impl Device for RtlDevice {
        fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
            self.0.read32(offset)
        }
        fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
            self.0.write32(offset, value)
        }
        fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
            self.0.alloc_dma(len)
        }
        fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
            self.0.mem_write(bus_addr, data)
        }
        fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
            self.0.mem_read(bus_addr, buf)
        }
        fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
            self.0.wait_irq(mask, timeout_cycles)
        }
        fn idle(&mut self, cycles: u64) {
            self.0.idle(cycles)
        }
        fn cycles(&self) -> u64 {
            self.0.cycles()
        }
        fn take_dma_faults(&mut self) -> Vec<DmaFault> {
            self.0.take_dma_faults()
        }
        fn free_dma(&mut self, region: DmaRegion) {
            self.0.free_dma(region)
        }
    }

    impl WireAccess for RtlDevice {
        fn inject_rx(&mut self, frame_with_fcs: &[u8], error: bool) {
            self.0.inject_rx(frame_with_fcs, error)
        }
        fn take_tx_frames(&mut self) -> Vec<(Vec<u8>, bool)> {
            self.0.take_tx_frames().into_iter().map(|f| (f.data, f.error)).collect()
        }
    }

    pub fn hw_config(size: HwSize) -> HwConfig {
        match size {
            HwSize::Small => HwConfig::Small,
            HwSize::Full => HwConfig::Full,
        }
    }

    /// The simulator configuration of an RTL backend.
    pub fn sim_config(backend: Backend, size: HwSize) -> SimConfig {
        let base = SimConfig::new(hw_config(size));
        match backend {
            Backend::RtlAxi => SimConfig { bus: Bus::Axi4, ..base },
            Backend::RtlStress => SimConfig { backpressure: Some((0x5eed, 0.3)), mem_latency: 40, ..base },
            _ => base,
        }
    }

    pub fn open(backend: Backend, size: HwSize) -> Box<dyn TestDevice> {
        Box::new(RtlDevice::new(sim_config(backend, size)).unwrap_or_else(|e| panic!("building the {} model: {e}", backend.name())))
    }
}

#[cfg(not(feature = "rtl"))]
mod rtl {
    use super::*;
    pub fn open(_: Backend, _: HwSize) -> Box<dyn TestDevice> {
        unreachable!("built without the rtl feature")
    }
}
