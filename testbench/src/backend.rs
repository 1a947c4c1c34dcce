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

/// Which implementation of the NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The Verilated RTL through `nic_sim::SimDevice`.
    Rtl,
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
    /// Backends the suites run on: `NIC_BACKEND=rtl|model|both` (default both; only the
    /// model when this crate is built without the `rtl` feature).
    pub fn selected() -> Vec<Backend> {
        let rtl = cfg!(feature = "rtl");
        match std::env::var("NIC_BACKEND").as_deref() {
            Ok("rtl") if rtl => vec![Backend::Rtl],
            Ok("model") => vec![Backend::Model],
            _ if rtl => vec![Backend::Model, Backend::Rtl],
            _ => vec![Backend::Model],
        }
    }

    pub fn open(self, size: HwSize) -> Box<dyn TestDevice> {
        match self {
            Backend::Model => Box::new(RefNic::new(match size {
                HwSize::Small => RefNicConfig::small(),
                HwSize::Full => RefNicConfig::full(),
            })),
            Backend::Rtl => crate::backend::rtl::open(size),
        }
    }
}

#[cfg(feature = "rtl")]
pub mod rtl {
    //! The Verilated RTL: `nic_sim::SimDevice` with its frame-queue wire.
    use super::*;
    use nic_driver::{DeviceError, DmaFault, DmaRegion};
    use nic_sim::{HwConfig, SimConfig, SimDevice};

    /// `SimDevice` as the suites use it: adds `free_dma` (so one model serves many
    /// `Nic`s without its host memory filling up) and the [`WireAccess`] view.
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
            self.0.mem().free(region.bus_addr);
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

    pub fn open(size: HwSize) -> Box<dyn TestDevice> {
        Box::new(RtlDevice::new(SimConfig::new(hw_config(size))).expect("build the Verilated model"))
    }
}

#[cfg(not(feature = "rtl"))]
mod rtl {
    use super::*;
    pub fn open(_: HwSize) -> Box<dyn TestDevice> {
        unreachable!("built without the rtl feature")
    }
}
