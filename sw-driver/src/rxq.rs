//! RX queue: descriptor ring, buffer posting and refill, completion by the DONE bit.

use crate::device::{Device, DmaRegion};
use crate::error::{Dir, DriverError};
use crate::pool::Mempool;
use crate::regs::RegisterVerbs;
use crate::ring::{encode, Ring, WriteBack, WRITEBACK_LEN};
use crate::txq::check_status;
use nic_regmap::{desc, rxq};

/// A received frame (FCS stripped) and what the NIC reported about it
/// (docs/rx-classification.md section 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrame {
    pub queue: u32,
    pub data: Vec<u8>,
    /// Write-back flags (`desc::DONE`, `desc::RX_EOP`, checksum verdicts, hash type).
    pub flags: u16,
    /// Write-back info word: the RSS hash.
    pub info: u32,
    /// Packet type (docs/rx-classification.md section 2).
    pub ptype: u16,
}

impl RxFrame {
    /// The RSS hash (0 when `hash_type` is `desc::HASH_NONE`).
    pub fn rss_hash(&self) -> u32 {
        self.info
    }
    /// `desc::HASH_*`.
    pub fn hash_type(&self) -> u8 {
        ((self.flags >> desc::RX_HASH_TYPE_SHIFT) & 0xf) as u8
    }
    /// IPv4 header checksum verdict: `desc::CSUM_*`.
    pub fn l3_csum(&self) -> u8 {
        ((self.flags >> desc::RX_L3_CSUM_SHIFT) & 3) as u8
    }
    /// TCP/UDP checksum verdict: `desc::CSUM_*`.
    pub fn l4_csum(&self) -> u8 {
        ((self.flags >> desc::RX_L4_CSUM_SHIFT) & 3) as u8
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum RxSlot {
    #[default]
    Empty,
    Pool(u32),
    /// A buffer the caller owns (see `Nic::rx_post_external`).
    External { addr: u64, len: u16 },
}

pub(crate) struct RxQueue {
    pub id: u32,
    pub ring: Ring,
    pub ring_mem: DmaRegion,
    pub pool: Mempool,
    slots: Vec<RxSlot>,
    /// Next index the driver posts (what `Q_TAIL` was last set to).
    tail: u16,
    /// Next index the driver expects the NIC to complete.
    next: u16,
    buf_len: u16,
    reg_base: u32,
}

impl RxQueue {
    /// Ring and buffers below 2^`dma_addr_bits` (the NIC's DMA_ADDR_BITS).
    pub fn new<D: Device + ?Sized>(dev: &mut D, id: u32, reg_base: u32, ring: Ring, buf_len: u16, dma_addr_bits: u32) -> Result<RxQueue, DriverError> {
        let ring_mem = crate::pool::alloc_reachable(dev, ring.bytes(), dma_addr_bits)?;
        let pool = Mempool::new(dev, usize::from(ring.size()), usize::from(buf_len), dma_addr_bits)?;
        Ok(RxQueue { id, ring, ring_mem, pool, slots: vec![RxSlot::Empty; usize::from(ring.size())], tail: 0, next: 0, buf_len, reg_base })
    }

    pub fn reg(&self, offset: u32) -> u32 {
        self.reg_base + offset
    }

    /// Programs the ring registers, enables the queue, and posts buffers if `fill`.
    pub fn start<D: Device + ?Sized>(&mut self, dev: &mut D, fill: bool, timeout_cycles: u64) -> Result<(), DriverError> {
        dev.set_reg32(self.reg(rxq::Q_CONTROL), 0)?;
        self.forget_all();
        // See TxQueue::start: disabling reset the NIC's HEAD and TAIL to 0.
        dev.set_reg32(self.reg(rxq::Q_BASE_LO), self.ring_mem.bus_addr as u32)?;
        dev.set_reg32(self.reg(rxq::Q_BASE_HI), (self.ring_mem.bus_addr >> 32) as u32)?;
        dev.set_reg32(self.reg(rxq::Q_SIZE_LOG2), self.ring.size_log2())?;
        dev.set_reg32(self.reg(rxq::Q_CONTROL), nic_regmap::bits::Q_CONTROL_ENABLE)?;
        dev.wait_set_reg32(self.reg(rxq::Q_STATUS), nic_regmap::bits::Q_STATUS_ACTIVE, timeout_cycles)?;
        if fill {
            self.refill(dev)?;
        }
        Ok(())
    }

    /// Disables the queue; frames received but not yet taken are dropped.
    pub fn stop<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<(), DriverError> {
        dev.clear_flags32(self.reg(rxq::Q_CONTROL), nic_regmap::bits::Q_CONTROL_ENABLE)?;
        self.forget_all();
        Ok(())
    }

    fn forget_all(&mut self) {
        self.pool.reset();
        self.slots.iter_mut().for_each(|s| *s = RxSlot::Empty);
        self.tail = 0;
        self.next = 0;
    }

    /// Descriptors posted and not yet taken back.
    pub fn posted(&self) -> usize {
        usize::from(self.ring.distance(self.next, self.tail))
    }

    fn post<D: Device + ?Sized>(&mut self, dev: &mut D, addr: u64, len: u16, slot: RxSlot) -> Result<(), DriverError> {
        dev.mem_write(self.ring.desc_addr(self.ring_mem.bus_addr, self.tail), &encode(addr, len, 0))?;
        let s = self.ring.slot(self.tail);
        self.slots[s] = slot;
        self.tail = self.tail.wrapping_add(1);
        Ok(())
    }

    /// Posts pool buffers into every free slot; one doorbell write. Returns how many.
    pub fn refill<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<usize, DriverError> {
        let mut n = 0;
        while self.ring.free(self.next, self.tail) > 0 {
            let Some(idx) = self.pool.alloc() else { break };
            let addr = self.pool.addr(idx);
            self.post(dev, addr, self.buf_len, RxSlot::Pool(idx))?;
            n += 1;
        }
        if n > 0 {
            dev.set_reg32(self.reg(rxq::Q_TAIL), u32::from(self.tail))?;
        }
        Ok(n)
    }

    /// Posts one caller-owned buffer.
    pub fn post_external<D: Device + ?Sized>(&mut self, dev: &mut D, addr: u64, len: u16) -> Result<(), DriverError> {
        if self.ring.free(self.next, self.tail) == 0 {
            return Err(DriverError::RingFull { dir: Dir::Rx, queue: self.id });
        }
        self.post(dev, addr, len, RxSlot::External { addr, len })?;
        dev.set_reg32(self.reg(rxq::Q_TAIL), u32::from(self.tail))
    }

    /// The RX write-back covers the whole descriptor: the packet type replaces the
    /// address (bytes `desc::RX_PTYPE..+2`), the rest is the common write-back half.
    fn writeback<D: Device + ?Sized>(&self, dev: &mut D, index: u16) -> Result<(WriteBack, u16), DriverError> {
        let mut d = [0u8; desc::SIZE as usize];
        dev.mem_read(self.ring.desc_addr(self.ring_mem.bus_addr, index), &mut d)?;
        let half: &[u8; WRITEBACK_LEN] = d[desc::WRITEBACK_OFFSET as usize..].try_into().unwrap();
        Ok((WriteBack::decode(half), u16::from_le_bytes([d[desc::RX_PTYPE], d[desc::RX_PTYPE + 1]])))
    }

    /// Whether a completed frame is waiting (no register access).
    pub fn ready<D: Device + ?Sized>(&self, dev: &mut D) -> Result<bool, DriverError> {
        Ok(self.posted() > 0 && self.writeback(dev, self.next)?.0.done())
    }

    /// Takes up to `max` completed frames, then reposts buffers if `refill`. When nothing
    /// was received, `Q_STATUS` is read so a stopped queue is reported.
    pub fn burst<D: Device + ?Sized>(&mut self, dev: &mut D, max: usize, refill: bool) -> Result<Vec<RxFrame>, DriverError> {
        let mut frames = Vec::new();
        while frames.len() < max && self.posted() > 0 {
            let (wb, ptype) = self.writeback(dev, self.next)?;
            if !wb.done() {
                break;
            }
            let slot = self.ring.slot(self.next);
            let (addr, cap) = match self.slots[slot] {
                RxSlot::Pool(i) => (self.pool.addr(i), self.buf_len),
                RxSlot::External { addr, len } => (addr, len),
                RxSlot::Empty => unreachable!("posted slot without buffer"),
            };
            if wb.len > cap {
                return Err(DriverError::NicMisbehaved(format!(
                    "RX queue {}: frame of {} bytes written into a buffer of {cap}",
                    self.id, wb.len
                )));
            }
            let mut data = vec![0u8; usize::from(wb.len)];
            dev.mem_read(addr, &mut data)?;
            if let RxSlot::Pool(i) = std::mem::take(&mut self.slots[slot]) {
                self.pool.free(i);
            }
            self.next = self.next.wrapping_add(1);
            frames.push(RxFrame { queue: self.id, data, flags: wb.flags, info: wb.info, ptype });
        }
        if refill {
            self.refill(dev)?;
        }
        if frames.is_empty() {
            check_status(dev, Dir::Rx, self.id, self.reg(rxq::Q_STATUS))?;
        }
        Ok(frames)
    }

    pub fn regions(&self) -> [DmaRegion; 2] {
        [self.ring_mem, self.pool.region()]
    }
}
