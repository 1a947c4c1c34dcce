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
    /// Backends the suites run on: `NIC_BACKEND=rtl|model|both` (default both).
    pub fn selected() -> Vec<Backend> {
        match std::env::var("NIC_BACKEND").as_deref() {
            Ok("rtl") => vec![Backend::Rtl],
            Ok("model") => vec![Backend::Model],
            _ => vec![Backend::Model, Backend::Rtl],
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

mod rtl {
    use super::*;
    pub fn open(size: HwSize) -> Box<dyn TestDevice> {
        let _ = size;
        unimplemented!("nic_sim::SimDevice is not available yet")
    }
}
