//! Register verbs over any [`Device`], in the shape of ixy.rs (`get_reg32`, `set_reg32`,
//! `set_flags32`, `clear_flags32`, `wait_set_reg32`, `wait_clear_reg32`). Addresses
//! are byte offsets of the register space, always built from `nic_regmap` constants.

use crate::device::Device;
use crate::error::DriverError;

/// Cycles between two reads while waiting for a register condition.
pub const POLL_INTERVAL_CYCLES: u64 = 16;

pub trait RegisterVerbs: Device {
    fn get_reg32(&mut self, reg: u32) -> Result<u32, DriverError> {
        Ok(self.read32(reg)?)
    }

    fn set_reg32(&mut self, reg: u32, value: u32) -> Result<(), DriverError> {
        Ok(self.write32(reg, value)?)
    }

    /// Read-modify-write: sets the bits of `flags`.
    fn set_flags32(&mut self, reg: u32, flags: u32) -> Result<(), DriverError> {
        let v = self.get_reg32(reg)?;
        self.set_reg32(reg, v | flags)
    }

    /// Read-modify-write: clears the bits of `flags`.
    fn clear_flags32(&mut self, reg: u32, flags: u32) -> Result<(), DriverError> {
        let v = self.get_reg32(reg)?;
        self.set_reg32(reg, v & !flags)
    }

    /// Waits until all bits of `mask` read as 1, letting the device run between reads.
    fn wait_set_reg32(&mut self, reg: u32, mask: u32, timeout_cycles: u64) -> Result<(), DriverError> {
        wait_reg32(self, reg, mask, mask, timeout_cycles)
    }

    /// Waits until all bits of `mask` read as 0.
    fn wait_clear_reg32(&mut self, reg: u32, mask: u32, timeout_cycles: u64) -> Result<(), DriverError> {
        wait_reg32(self, reg, mask, 0, timeout_cycles)
    }
}

impl<D: Device + ?Sized> RegisterVerbs for D {}

fn wait_reg32<D: Device + ?Sized>(dev: &mut D, reg: u32, mask: u32, want: u32, timeout_cycles: u64) -> Result<(), DriverError> {
    let start = dev.cycles();
    loop {
        let v = dev.read32(reg)?;
        if v & mask == want {
            return Ok(());
        }
        let spent = dev.cycles().saturating_sub(start);
        if spent >= timeout_cycles {
            return Err(DriverError::Timeout {
                what: format!("register {reg:#06x} & {mask:#x} == {want:#x} (last read {v:#x})"),
                cycles: spent,
            });
        }
        dev.idle(POLL_INTERVAL_CYCLES);
    }
}
