//! The one boundary between the driver and a NIC: registers, DMA memory, interrupts.
//!
//! `nic_sim::SimDevice` implements it over the Verilated model; a board bridge or a
//! VFIO backend would implement it over hardware. The driver uses nothing else.

use std::fmt;

/// A DMA fault the host memory (IOMMU) refused and reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmaFault {
    pub write: bool,
    pub addr: u64,
    pub len: u64,
}

/// Errors a device backend reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// No DMA memory left.
    OutOfDmaMemory { requested: usize },
    /// The CPU touched DMA memory outside any region it allocated.
    BadHostAccess { addr: u64, len: usize },
    /// A register access did not complete (bus hung).
    RegisterTimeout { offset: u32 },
    /// The link to a remote NIC (a board's serial bridge) failed or answered out of step.
    Link { detail: String },
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfDmaMemory { requested } => write!(f, "out of DMA memory ({requested} bytes requested)"),
            Self::BadHostAccess { addr, len } => write!(f, "host access to unallocated DMA memory at {addr:#x} (+{len})"),
            Self::RegisterTimeout { offset } => write!(f, "register access at {offset:#x} timed out"),
            Self::Link { detail } => write!(f, "link to the NIC: {detail}"),
        }
    }
}
impl std::error::Error for DeviceError {}

/// A region of DMA-able host memory, mapped for the device at `bus_addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaRegion {
    pub bus_addr: u64,
    pub len: usize,
}

/// What the driver needs from a NIC backend.
pub trait Device {
    /// 32-bit register read at a byte offset of the register space.
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError>;
    /// 32-bit register write.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError>;
    /// Allocates and maps DMA memory (zeroed), aligned to at least 64 bytes.
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError>;
    /// CPU write into DMA memory.
    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError>;
    /// CPU read from DMA memory.
    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError>;
    /// Waits until one of the interrupt vectors in `mask` is asserted, or `timeout_cycles`
    /// core clock cycles pass. Returns the asserted vectors (0 on timeout).
    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32;
    /// Lets the device run for `cycles` core clock cycles (a simulator advances its clock;
    /// hardware just waits). Polling-mode drivers call this between polls.
    fn idle(&mut self, cycles: u64);
    /// Core clock cycles elapsed since the device was created.
    fn cycles(&self) -> u64;
    /// DMA faults the host memory refused since the last call (IOMMU fault log).
    fn take_dma_faults(&mut self) -> Vec<DmaFault>;
    /// Unmaps and frees a region from `alloc_dma` once the device no longer uses it
    /// (the driver calls it after disabling the queues that pointed into it).
    /// The default keeps the memory: correct, only wasteful for long-lived backends.
    fn free_dma(&mut self, region: DmaRegion) {
        let _ = region;
    }
}

/// A borrowed device is a device: `Nic::open(&mut sim)` leaves the backend with the caller,
/// who can reach its wire (inject frames, capture TX) and reuse it after the `Nic` is gone.
impl<D: Device + ?Sized> Device for &mut D {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        (**self).read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        (**self).write32(offset, value)
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        (**self).alloc_dma(len)
    }
    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        (**self).mem_write(bus_addr, data)
    }
    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        (**self).mem_read(bus_addr, buf)
    }
    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        (**self).wait_irq(mask, timeout_cycles)
    }
    fn idle(&mut self, cycles: u64) {
        (**self).idle(cycles)
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        (**self).take_dma_faults()
    }
    fn free_dma(&mut self, region: DmaRegion) {
        (**self).free_dma(region)
    }
}

impl<D: Device + ?Sized> Device for Box<D> {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        (**self).read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        (**self).write32(offset, value)
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        (**self).alloc_dma(len)
    }
    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        (**self).mem_write(bus_addr, data)
    }
    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        (**self).mem_read(bus_addr, buf)
    }
    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        (**self).wait_irq(mask, timeout_cycles)
    }
    fn idle(&mut self, cycles: u64) {
        (**self).idle(cycles)
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        (**self).take_dma_faults()
    }
    fn free_dma(&mut self, region: DmaRegion) {
        (**self).free_dma(region)
    }
}
