//! [`RegionStack`]: DMA regions handed out from one window of bus addresses, for the
//! devices whose DMA memory is a fixed window (the boards: `SerialDevice`'s block RAM,
//! `LinkDevice`'s memory in this process). Regions are 64-byte aligned and allocated as
//! a stack: a freed region's memory is reused only once every newer region is freed
//! too, which is how the driver opens and closes queues.

use crate::device::{DeviceError, DmaRegion};

/// Regions start on this boundary (the descriptor interface asks for at least 64).
pub const REGION_ALIGN: u64 = 64;

/// Regions of a window of `size` bytes at bus address `base`.
#[derive(Clone, Debug)]
pub struct RegionStack {
    base: u64,
    size: u64,
    regions: Vec<DmaRegion>,
}

impl RegionStack {
    pub fn new(base: u64, size: u64) -> Self {
        RegionStack { base, size, regions: Vec::new() }
    }

    /// Bytes in the window.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Window offset where the next region would start.
    fn next_free(&self) -> u64 {
        self.regions.iter().map(|r| r.bus_addr - self.base + r.len.max(1) as u64).max().unwrap_or(0).next_multiple_of(REGION_ALIGN)
    }

    /// A new region of `len` bytes (at least 1 byte of the window is taken).
    pub fn alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let start = self.next_free();
        if start + len.max(1) as u64 > self.size {
            return Err(DeviceError::OutOfDmaMemory { requested: len });
        }
        let region = DmaRegion { bus_addr: self.base + start, len };
        self.regions.push(region);
        Ok(region)
    }

    /// Forgets a region (its memory is reused when it was the newest).
    pub fn free(&mut self, region: DmaRegion) {
        self.regions.retain(|r| *r != region);
    }

    /// The window offset of `[addr, addr + len)` if it lies inside one region.
    pub fn offset_of(&self, addr: u64, len: u64) -> Option<u64> {
        let end = addr.checked_add(len)?;
        self.regions.iter().any(|r| addr >= r.bus_addr && end <= r.bus_addr + r.len as u64).then(|| addr - self.base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_aligned_checked_and_reused_as_a_stack() {
        let mut w = RegionStack::new(0x1_0000_0000, 4096);
        let a = w.alloc(100).unwrap();
        let b = w.alloc(0).unwrap();
        let c = w.alloc(64).unwrap();
        assert_eq!((a.bus_addr, b.bus_addr, c.bus_addr), (0x1_0000_0000, 0x1_0000_0080, 0x1_0000_00c0));
        assert_eq!(w.offset_of(a.bus_addr + 10, 90), Some(10));
        assert_eq!(w.offset_of(a.bus_addr + 10, 91), None, "past the region's end");
        assert_eq!(w.offset_of(a.bus_addr + 100, 1), None, "the alignment gap belongs to no region");
        assert_eq!(w.offset_of(u64::MAX, 2), None);
        assert_eq!(w.alloc(4096 - 0x100 + 1), Err(DeviceError::OutOfDmaMemory { requested: 4096 - 0x100 + 1 }));
        // freeing an older region keeps the newer ones where they are
        w.free(b);
        assert_eq!(w.alloc(8).unwrap().bus_addr, 0x1_0000_0100);
        w.free(DmaRegion { bus_addr: 0x1_0000_0100, len: 8 });
        w.free(c);
        assert_eq!(w.alloc(8).unwrap().bus_addr, 0x1_0000_0080, "the newest freed: memory reused");
    }
}
