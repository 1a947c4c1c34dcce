//! Packet buffer pool: fixed-size buffers carved out of one DMA region, handed out
//! and taken back by index (ixy's mempool, without reference counting: the queues own
//! the buffers they posted and return them when the NIC is done with them).

use crate::device::{Device, DmaRegion};
use crate::error::DriverError;

/// Allocates DMA memory the NIC can reach: all of it below 2^`dma_addr_bits` (the
/// NIC's `DMA_ADDR_BITS`, what a Linux driver passes to `dma_set_mask`). A region beyond
/// is given back and refused: the NIC would stop the queue (AddressTooWide) on it.
pub fn alloc_reachable<D: Device + ?Sized>(dev: &mut D, len: usize, dma_addr_bits: u32) -> Result<DmaRegion, DriverError> {
    let region = dev.alloc_dma(len)?;
    // one past the last byte, which may be 2^64 itself
    let end = u128::from(region.bus_addr) + region.len as u128;
    if end > 1u128 << dma_addr_bits.min(64) {
        dev.free_dma(region);
        return Err(DriverError::InvalidConfig(format!(
            "the device gave DMA memory at {:#x} (+{} bytes), beyond the NIC's {dma_addr_bits}-bit DMA reach (DMA_ADDR_BITS)",
            region.bus_addr, region.len
        )));
    }
    Ok(region)
}

#[derive(Debug)]
pub struct Mempool {
    region: DmaRegion,
    entry_size: usize,
    entries: usize,
    free: Vec<u32>,
}

impl Mempool {
    /// `entries` buffers of `entry_size` bytes (rounded up to 64 for alignment), below
    /// 2^`dma_addr_bits`.
    pub fn new<D: Device + ?Sized>(dev: &mut D, entries: usize, entry_size: usize, dma_addr_bits: u32) -> Result<Mempool, DriverError> {
        let entry_size = entry_size.div_ceil(64) * 64;
        let region = alloc_reachable(dev, entries * entry_size, dma_addr_bits)?;
        // Handed out lowest index first.
        let free = (0..entries as u32).rev().collect();
        Ok(Mempool { region, entry_size, entries, free })
    }
    pub fn alloc(&mut self) -> Option<u32> {
        self.free.pop()
    }
    pub fn free(&mut self, index: u32) {
        debug_assert!((index as usize) < self.entries && !self.free.contains(&index), "double free of buffer {index}");
        self.free.push(index);
    }
    pub fn addr(&self, index: u32) -> u64 {
        self.region.bus_addr + index as u64 * self.entry_size as u64
    }
    pub fn entry_size(&self) -> usize {
        self.entry_size
    }
    pub fn available(&self) -> usize {
        self.free.len()
    }
    pub fn capacity(&self) -> usize {
        self.entries
    }
    pub fn region(&self) -> DmaRegion {
        self.region
    }
    /// Takes every buffer back (after the queue was reset).
    pub fn reset(&mut self) {
        self.free = (0..self.entries as u32).rev().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceError, DmaFault};

    /// Hands out one region at a fixed bus address and records what is given back.
    struct FixedAlloc {
        at: u64,
        freed: Vec<DmaRegion>,
    }

    impl Device for FixedAlloc {
        fn read32(&mut self, _: u32) -> Result<u32, DeviceError> {
            Ok(0)
        }
        fn write32(&mut self, _: u32, _: u32) -> Result<(), DeviceError> {
            Ok(())
        }
        fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
            Ok(DmaRegion { bus_addr: self.at, len })
        }
        fn mem_write(&mut self, _: u64, _: &[u8]) -> Result<(), DeviceError> {
            Ok(())
        }
        fn mem_read(&mut self, _: u64, _: &mut [u8]) -> Result<(), DeviceError> {
            Ok(())
        }
        fn wait_irq(&mut self, _: u32, _: u64) -> u32 {
            0
        }
        fn idle(&mut self, _: u64) {}
        fn cycles(&self) -> u64 {
            0
        }
        fn take_dma_faults(&mut self) -> Vec<DmaFault> {
            Vec::new()
        }
        fn free_dma(&mut self, region: DmaRegion) {
            self.freed.push(region);
        }
    }

    #[test]
    fn memory_beyond_the_nics_reach_is_given_back_and_refused() {
        // the last 4 KiB below 2^44 are fine; one byte further is not
        let mut dev = FixedAlloc { at: (1 << 44) - 4096, freed: Vec::new() };
        assert_eq!(alloc_reachable(&mut dev, 4096, 44).unwrap().bus_addr, (1 << 44) - 4096);
        match alloc_reachable(&mut dev, 4097, 44) {
            Err(DriverError::InvalidConfig(m)) => assert!(m.contains("44-bit"), "{m}"),
            other => panic!("expected InvalidConfig, got {other:?}"),
        }
        assert_eq!(dev.freed, [DmaRegion { bus_addr: (1 << 44) - 4096, len: 4097 }]);
        // a 64-bit NIC reaches the last byte of the address space, and nothing wraps
        let mut dev = FixedAlloc { at: u64::MAX - 63, freed: Vec::new() };
        assert!(alloc_reachable(&mut dev, 64, 64).is_ok());
        assert!(alloc_reachable(&mut dev, 65, 64).is_err());
    }
}
