//! Packet buffer pool: fixed-size buffers carved out of one DMA region, handed out
//! and taken back by index (ixy's mempool, without reference counting: the queues own
//! the buffers they posted and return them when the NIC is done with them).

use crate::device::{Device, DmaRegion};
use crate::error::DriverError;

#[derive(Debug)]
pub struct Mempool {
    region: DmaRegion,
    entry_size: usize,
    entries: usize,
    free: Vec<u32>,
}

impl Mempool {
    /// `entries` buffers of `entry_size` bytes (rounded up to 64 for alignment).
    pub fn new<D: Device + ?Sized>(dev: &mut D, entries: usize, entry_size: usize) -> Result<Mempool, DriverError> {
        let entry_size = entry_size.div_ceil(64) * 64;
        let region = dev.alloc_dma(entries * entry_size)?;
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
