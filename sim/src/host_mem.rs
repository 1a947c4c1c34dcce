//! Host memory behind an IOMMU, serving the NIC's DMA port (docs/interfaces.md).
//!
//! * [`HostMemory::alloc`] maps a zeroed region at a bus address above 4 GiB
//!   (from `0x1_0000_0000`), 4 KiB aligned, with an unmapped guard gap of at least
//!   4 KiB after every region, so an overrun faults instead of hitting a neighbour.
//!   The IOMMU is byte-granular: only `[bus_addr, bus_addr + len)` is mapped.
//! * CPU accesses ([`HostMemory::read`], [`HostMemory::write`]) are checked the same way.
//! * Device accesses come through the DMA port, one cycle at a time: [`HostMemory::drive`]
//!   sets the port's inputs for the coming cycle, [`HostMemory::observe`] takes the
//!   handshakes of that cycle's clock edge. Refused accesses are logged as [`DmaFault`]s.
//!
//! Timing of the port:
//! * read requests are accepted while fewer than `max_outstanding_reads` are pending;
//! * the data is taken from memory when the request is accepted; the first beat is offered
//!   `latency` cycles after the acceptance edge, and responses follow each other in
//!   request order without bubbles (pipelined) whenever `dma_rd_rsp_ready` is 1;
//! * a read touching any unmapped byte answers one beat with `error = 1, last = 1`;
//! * every write beat is checked on its own: a beat whose enabled bytes are not all mapped
//!   is dropped whole (memory untouched) and marks its burst as failed;
//! * one `dma_wr_rsp_valid` pulse per burst, in the cycle right after its last beat was
//!   accepted (never delayed, never stretched);
//! * optional seeded random backpressure: in each cycle `dma_rd_req_ready`, `dma_wr_ready`
//!   and `dma_rd_rsp_valid` are each dropped with probability `p`.

use std::collections::{BTreeMap, VecDeque};

use nic_driver::device::{DeviceError, DmaFault, DmaRegion};

use crate::model::{Inputs, Outputs};
use crate::rng::Stall;

/// First bus address handed out (above 4 GiB so 32-bit truncation bugs fault).
pub const DMA_BASE: u64 = 0x1_0000_0000;
/// Unmapped bytes at least between two regions.
pub const GUARD_GAP: u64 = 4096;
/// Bytes per beat of the DMA port's data (docs/interfaces.md).
pub const BEAT_BYTES: usize = 16;

/// Regions start on this boundary (the interface promises at least 64).
pub const REGION_ALIGN: u64 = 4096;

/// Timing and limits of the host memory model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostMemConfig {
    /// Cycles from a read request's acceptance edge to the cycle of its first beat (>= 1).
    pub latency: u32,
    /// Read requests accepted but not fully answered, at most (then `dma_rd_req_ready` = 0).
    pub max_outstanding_reads: usize,
    /// Random backpressure `(seed, probability per cycle and channel)`.
    pub backpressure: Option<(u64, f64)>,
    /// Total bytes that may be mapped.
    pub capacity: u64,
}

impl Default for HostMemConfig {
    fn default() -> Self {
        HostMemConfig { latency: 16, max_outstanding_reads: 64, backpressure: None, capacity: 1 << 30 }
    }
}

/// Counters of the DMA traffic served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmaStats {
    pub read_requests: u64,
    pub read_bytes: u64,
    pub read_beats: u64,
    pub write_bursts: u64,
    pub write_beats: u64,
    /// Bytes written (enabled lanes of accepted, mapped beats).
    pub write_bytes: u64,
    pub read_faults: u64,
    pub write_faults: u64,
}

#[derive(Debug)]
struct ReadRsp {
    /// First cycle in which the first beat may be offered.
    ready_at: u64,
    tag: u8,
    error: bool,
    beats: Vec<u128>,
    next: usize,
}

/// Host memory with an IOMMU, and the DMA-port server in front of it.
#[derive(Debug)]
pub struct HostMemory {
    cfg: HostMemConfig,
    regions: BTreeMap<u64, Vec<u8>>,
    next_addr: u64,
    mapped: u64,
    faults: Vec<DmaFault>,
    stats: DmaStats,
    cycle: u64,
    // read side
    rd_queue: VecDeque<ReadRsp>,
    // write side
    wr_in_burst: bool,
    wr_burst_error: bool,
    /// Refused byte range of the current burst, being coalesced: (start, end).
    wr_fault: Option<(u64, u64)>,
    wr_rsp_pending: Option<(u8, bool)>,
    // backpressure
    stall_rd_req: Stall,
    stall_rd_rsp: Stall,
    stall_wr: Stall,
}

impl Default for HostMemory {
    fn default() -> Self {
        HostMemory::new(HostMemConfig::default())
    }
}

impl HostMemory {
    pub fn new(cfg: HostMemConfig) -> HostMemory {
        HostMemory {
            cfg,
            regions: BTreeMap::new(),
            next_addr: DMA_BASE,
            mapped: 0,
            faults: Vec::new(),
            stats: DmaStats::default(),
            cycle: 0,
            rd_queue: VecDeque::new(),
            wr_in_burst: false,
            wr_burst_error: false,
            wr_fault: None,
            wr_rsp_pending: None,
            stall_rd_req: Stall::from_opt(cfg.backpressure, 1),
            stall_rd_rsp: Stall::from_opt(cfg.backpressure, 2),
            stall_wr: Stall::from_opt(cfg.backpressure, 3),
        }
    }

    pub fn config(&self) -> &HostMemConfig {
        &self.cfg
    }

    /// Changes the read latency (affects requests accepted from now on).
    pub fn set_latency(&mut self, latency: u32) {
        self.cfg.latency = latency;
    }

    /// Turns random backpressure on (`Some((seed, p))`) or off.
    pub fn set_backpressure(&mut self, bp: Option<(u64, f64)>) {
        self.cfg.backpressure = bp;
        self.stall_rd_req = Stall::from_opt(bp, 1);
        self.stall_rd_rsp = Stall::from_opt(bp, 2);
        self.stall_wr = Stall::from_opt(bp, 3);
    }

    // ----- mapping ---------------------------------------------------------------------

    /// Maps `len` zeroed bytes; returns the region (bus address 4 KiB aligned, > 4 GiB).
    pub fn alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let l = len as u64;
        if self.mapped + l > self.cfg.capacity {
            return Err(DeviceError::OutOfDmaMemory { requested: len });
        }
        let start = align_up(self.next_addr, REGION_ALIGN);
        self.next_addr = align_up(start + l, REGION_ALIGN) + GUARD_GAP.max(REGION_ALIGN);
        self.regions.insert(start, vec![0u8; len]);
        self.mapped += l;
        Ok(DmaRegion { bus_addr: start, len })
    }

    /// Unmaps the region starting at `bus_addr` (later accesses fault). Returns false if
    /// no region starts there. Bus addresses are never reused.
    pub fn free(&mut self, bus_addr: u64) -> bool {
        match self.regions.remove(&bus_addr) {
            Some(r) => {
                self.mapped -= r.len() as u64;
                true
            }
            None => false,
        }
    }

    /// Whether every byte of `[addr, addr + len)` is mapped (len 0: true).
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        len == 0 || self.locate(addr, len).is_some()
    }

    /// Bytes mapped now.
    pub fn mapped_bytes(&self) -> u64 {
        self.mapped
    }

    /// The mapped regions, in address order.
    pub fn regions(&self) -> Vec<DmaRegion> {
        self.regions.iter().map(|(&a, v)| DmaRegion { bus_addr: a, len: v.len() }).collect()
    }

    /// (region start, offset) holding all of `[addr, addr + len)`, len >= 1.
    #[inline]
    fn locate(&self, addr: u64, len: u64) -> Option<(u64, usize)> {
        let (&start, r) = self.regions.range(..=addr).next_back()?;
        let off = addr - start;
        let end = off.checked_add(len)?;
        if end <= r.len() as u64 {
            Some((start, off as usize))
        } else {
            None
        }
    }

    // ----- CPU access ------------------------------------------------------------------

    /// CPU read of `buf.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        if buf.is_empty() {
            return Ok(());
        }
        let (start, off) = self
            .locate(addr, buf.len() as u64)
            .ok_or(DeviceError::BadHostAccess { addr, len: buf.len() })?;
        buf.copy_from_slice(&self.regions[&start][off..off + buf.len()]);
        Ok(())
    }

    /// CPU write of `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        if data.is_empty() {
            return Ok(());
        }
        let (start, off) = self
            .locate(addr, data.len() as u64)
            .ok_or(DeviceError::BadHostAccess { addr, len: data.len() })?;
        self.regions.get_mut(&start).unwrap()[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Convenience: reads `len` bytes into a new vector.
    pub fn read_vec(&self, addr: u64, len: usize) -> Result<Vec<u8>, DeviceError> {
        let mut v = vec![0u8; len];
        self.read(addr, &mut v)?;
        Ok(v)
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, DeviceError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn read_u64(&self, addr: u64) -> Result<u64, DeviceError> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), DeviceError> {
        self.write(addr, &v.to_le_bytes())
    }

    pub fn write_u64(&mut self, addr: u64, v: u64) -> Result<(), DeviceError> {
        self.write(addr, &v.to_le_bytes())
    }

    // ----- faults and statistics -------------------------------------------------------

    /// Drains the IOMMU fault log.
    pub fn take_faults(&mut self) -> Vec<DmaFault> {
        std::mem::take(&mut self.faults)
    }

    /// The fault log, without draining it.
    pub fn faults(&self) -> &[DmaFault] {
        &self.faults
    }

    pub fn stats(&self) -> DmaStats {
        self.stats
    }

    /// Read requests accepted and not yet fully answered.
    pub fn outstanding_reads(&self) -> usize {
        self.rd_queue.len()
    }

    /// True when no read is pending, no write burst is open and no response is due.
    pub fn dma_idle(&self) -> bool {
        self.rd_queue.is_empty() && !self.wr_in_burst && self.wr_rsp_pending.is_none()
    }

    // ----- for other bus front-ends (crate::axi_mem) -----------------------------------

    /// The 16 bytes at `addr` as one little-endian word if all are mapped.
    #[inline]
    pub(crate) fn word(&self, addr: u64) -> Option<u128> {
        let (start, off) = self.locate(addr, BEAT_BYTES as u64)?;
        let r = &self.regions[&start][off..off + BEAT_BYTES];
        Some(u128::from_le_bytes(r.try_into().unwrap()))
    }

    /// Writes the lanes of `data` enabled in `strb` at `addr + lane`, all or nothing:
    /// returns false (memory untouched) unless every enabled byte is mapped. No enabled
    /// lane: true, nothing written.
    pub(crate) fn write_strobed(&mut self, addr: u64, data: u128, strb: u16) -> bool {
        if strb == 0 {
            return true;
        }
        let first = strb.trailing_zeros() as u64;
        let end = BEAT_BYTES as u64 - strb.leading_zeros() as u64;
        let bytes = data.to_le_bytes();
        match self.locate(addr + first, end - first) {
            Some((start, off)) => {
                let region = self.regions.get_mut(&start).unwrap();
                for lane in first..end {
                    if strb & (1 << lane) != 0 {
                        region[off + (lane - first) as usize] = bytes[lane as usize];
                    }
                }
                true
            }
            None => {
                // The span is not mapped whole; the enabled bytes alone might be (a hole
                // under disabled lanes): check them one by one.
                if (first..end).any(|l| strb & (1 << l) != 0 && self.locate(addr + l, 1).is_none()) {
                    return false;
                }
                for lane in first..end {
                    if strb & (1 << lane) != 0 {
                        let (start, off) = self.locate(addr + lane, 1).unwrap();
                        self.regions.get_mut(&start).unwrap()[off] = bytes[lane as usize];
                    }
                }
                true
            }
        }
    }

    /// Logs a refused access; with `coalesce`, extends the last logged fault instead
    /// when it is of the same direction and ends where this one starts.
    pub(crate) fn log_fault(&mut self, f: DmaFault, coalesce: bool) {
        if coalesce {
            if let Some(last) = self.faults.last_mut() {
                if last.write == f.write && last.addr.wrapping_add(last.len) == f.addr {
                    last.len += f.len;
                    return;
                }
            }
        }
        self.faults.push(f);
    }

    pub(crate) fn stats_mut(&mut self) -> &mut DmaStats {
        &mut self.stats
    }

    // ----- the DMA port, cycle by cycle ------------------------------------------------

    /// Sets the DMA-port inputs of `inp` for the coming cycle.
    #[inline]
    pub fn drive(&mut self, inp: &mut Inputs) {
        inp.dma_rd_req_ready = self.rd_queue.len() < self.cfg.max_outstanding_reads && !self.stall_rd_req.flip();
        inp.dma_wr_ready = !self.stall_wr.flip();

        // Write response: exactly one cycle, right after the burst's last beat.
        match self.wr_rsp_pending.take() {
            Some((tag, error)) => {
                inp.dma_wr_rsp_valid = true;
                inp.dma_wr_rsp_error = error;
                inp.dma_wr_rsp_tag = tag;
            }
            None => {
                inp.dma_wr_rsp_valid = false;
                inp.dma_wr_rsp_error = false;
                inp.dma_wr_rsp_tag = 0;
            }
        }

        // Read response.
        inp.dma_rd_rsp_valid = false;
        if let Some(r) = self.rd_queue.front() {
            if r.ready_at <= self.cycle && !self.stall_rd_rsp.flip() {
                inp.dma_rd_rsp_valid = true;
                inp.dma_rd_rsp_tag = r.tag;
                if r.error {
                    inp.dma_rd_rsp_data_lo = 0;
                    inp.dma_rd_rsp_data_hi = 0;
                    inp.dma_rd_rsp_error = true;
                    inp.dma_rd_rsp_last = true;
                } else {
                    let beat = r.beats[r.next];
                    inp.dma_rd_rsp_data_lo = beat as u64;
                    inp.dma_rd_rsp_data_hi = (beat >> 64) as u64;
                    inp.dma_rd_rsp_error = false;
                    inp.dma_rd_rsp_last = r.next + 1 == r.beats.len();
                }
            }
        }
        if !inp.dma_rd_rsp_valid {
            inp.dma_rd_rsp_data_lo = 0;
            inp.dma_rd_rsp_data_hi = 0;
            inp.dma_rd_rsp_last = false;
            inp.dma_rd_rsp_error = false;
            inp.dma_rd_rsp_tag = 0;
        }
    }

    /// Takes the DMA handshakes of the clock edge that ended the cycle stepped with `inp`
    /// (as set by [`HostMemory::drive`]) and produced `out`.
    #[inline]
    pub fn observe(&mut self, inp: &Inputs, out: &Outputs) {
        // Read response beat taken.
        if inp.dma_rd_rsp_valid && out.dma_rd_rsp_ready {
            let done = {
                let r = self.rd_queue.front_mut().expect("response without request");
                if r.error {
                    true
                } else {
                    r.next += 1;
                    self.stats.read_beats += 1;
                    r.next == r.beats.len()
                }
            };
            if done {
                self.rd_queue.pop_front();
            }
        }
        // Read request accepted.
        if out.dma_rd_req_valid && inp.dma_rd_req_ready {
            self.accept_read(out.dma_rd_req_addr, out.dma_rd_req_len, out.dma_rd_req_tag);
        }
        // Write beat accepted.
        if out.dma_wr_valid && inp.dma_wr_ready {
            let data = out.dma_wr_data_lo as u128 | (out.dma_wr_data_hi as u128) << 64;
            self.accept_write_beat(out.dma_wr_addr, data, out.dma_wr_strb, out.dma_wr_last, out.dma_wr_tag);
        }
        self.cycle += 1;
    }

    fn accept_read(&mut self, addr: u64, len: u16, tag: u8) {
        self.stats.read_requests += 1;
        let ready_at = self.cycle + self.cfg.latency.max(1) as u64;
        let len = len as usize;
        let loc = if len == 0 { None } else { self.locate(addr, len as u64) };
        let rsp = match loc {
            Some((start, off)) => {
                let src = &self.regions[&start][off..off + len];
                let mut beats = Vec::with_capacity(len.div_ceil(BEAT_BYTES));
                for chunk in src.chunks(BEAT_BYTES) {
                    let mut b = [0u8; BEAT_BYTES];
                    b[..chunk.len()].copy_from_slice(chunk);
                    beats.push(u128::from_le_bytes(b));
                }
                self.stats.read_bytes += len as u64;
                ReadRsp { ready_at, tag, error: false, beats, next: 0 }
            }
            None => {
                self.stats.read_faults += 1;
                self.faults.push(DmaFault { write: false, addr, len: len as u64 });
                ReadRsp { ready_at, tag, error: true, beats: Vec::new(), next: 0 }
            }
        };
        self.rd_queue.push_back(rsp);
    }

    fn accept_write_beat(&mut self, addr: u64, data: u128, strb: u16, last: bool, tag: u8) {
        if !self.wr_in_burst {
            self.wr_in_burst = true;
            self.wr_burst_error = false;
            self.wr_fault = None;
        }
        self.stats.write_beats += 1;
        if strb != 0 {
            let first = strb.trailing_zeros() as u64;
            let end = BEAT_BYTES as u64 - strb.leading_zeros() as u64; // one past the highest enabled lane
            let lo = addr.wrapping_add(first);
            let n = end - first;
            match self.locate(lo, n) {
                Some((start, off)) if lo >= addr => {
                    let bytes = data.to_le_bytes();
                    let region = self.regions.get_mut(&start).unwrap();
                    for lane in first..end {
                        if strb & (1 << lane) != 0 {
                            region[off + (lane - first) as usize] = bytes[lane as usize];
                            self.stats.write_bytes += 1;
                        }
                    }
                }
                _ => {
                    // Refused whole; coalesce contiguous refused bytes into one fault.
                    self.wr_burst_error = true;
                    let hi = lo.wrapping_add(n);
                    self.wr_fault = match self.wr_fault {
                        Some((s, e)) if e == lo => Some((s, hi)),
                        Some((s, e)) => {
                            self.faults.push(DmaFault { write: true, addr: s, len: e - s });
                            self.stats.write_faults += 1;
                            Some((lo, hi))
                        }
                        None => Some((lo, hi)),
                    };
                }
            }
        }
        if last {
            if let Some((s, e)) = self.wr_fault.take() {
                self.faults.push(DmaFault { write: true, addr: s, len: e - s });
                self.stats.write_faults += 1;
            }
            self.stats.write_bursts += 1;
            self.wr_rsp_pending = Some((tag, self.wr_burst_error));
            self.wr_in_burst = false;
        }
    }
}

#[inline]
fn align_up(x: u64, a: u64) -> u64 {
    (x + a - 1) & !(a - 1)
}
