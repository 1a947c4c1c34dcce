//! TX queue: descriptor ring, buffers, doorbell, completion reaping.

use crate::device::{Device, DmaRegion};
use crate::error::{Dir, DriverError};
use crate::offload::TxOffload;
use crate::pool::Mempool;
use crate::regs::RegisterVerbs;
use crate::ring::{encode, Ring, WriteBack, WRITEBACK_LEN};
use nic_regmap::{desc, txq};
use std::collections::VecDeque;

/// One piece of a frame; each becomes one TX descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxSegment<'a> {
    /// Bytes the driver copies into one of its TX buffers.
    Bytes(&'a [u8]),
    /// A buffer the caller owns, already at a bus address (zero copy). The driver posts
    /// it as given, without checks: a bad address or length is the NIC's to report.
    Raw { bus_addr: u64, len: u16 },
}

impl TxSegment<'_> {
    pub fn len(&self) -> usize {
        match self {
            TxSegment::Bytes(b) => b.len(),
            TxSegment::Raw { len, .. } => usize::from(*len),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A frame to send (without FCS: the MAC appends it), as a list of segments, with an
/// optional offload request.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TxFrame<'a> {
    pub segments: Vec<TxSegment<'a>>,
    /// The frame's offload request (docs/tx-offload.md): when set, the frame is posted
    /// behind one context descriptor carrying it (one more ring slot, no buffer), even if
    /// the request asks for nothing.
    pub offload: Option<TxOffload>,
}

impl<'a> TxFrame<'a> {
    /// A frame in one segment.
    pub fn new(bytes: &'a [u8]) -> Self {
        TxFrame { segments: vec![TxSegment::Bytes(bytes)], offload: None }
    }
    /// A frame split at the given byte offsets (ascending, inside the frame): `cuts.len() + 1` segments.
    pub fn split(bytes: &'a [u8], cuts: &[usize]) -> Self {
        let mut segments = Vec::with_capacity(cuts.len() + 1);
        let mut start = 0;
        for &c in cuts {
            segments.push(TxSegment::Bytes(&bytes[start..c]));
            start = c;
        }
        segments.push(TxSegment::Bytes(&bytes[start..]));
        TxFrame { segments, offload: None }
    }
    pub fn from_segments(segments: Vec<TxSegment<'a>>) -> Self {
        TxFrame { segments, offload: None }
    }
    /// The same frame with an offload request (one context descriptor ahead of its data).
    pub fn with_offload(mut self, offload: TxOffload) -> Self {
        self.offload = Some(offload);
        self
    }
    /// Ring slots the frame takes: one per segment, plus the context descriptor.
    pub fn descriptors(&self) -> usize {
        self.segments.len() + usize::from(self.offload.is_some())
    }
    /// Bytes of the frame (sum of the segments).
    pub fn len(&self) -> usize {
        self.segments.iter().map(TxSegment::len).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct TxSlot {
    buf: Option<u32>,
    eop: bool,
}

pub(crate) struct TxQueue {
    pub id: u32,
    /// REPORT_STATUS on every descriptor (`NicConfig::tx_report_each_descriptor`).
    pub report_each_descriptor: bool,
    /// The NIC's `FEATURES` register: frames asking for an offload it lacks are refused
    /// before anything is posted.
    pub features: u32,
    pub ring: Ring,
    pub ring_mem: DmaRegion,
    pub pool: Mempool,
    slots: Vec<TxSlot>,
    /// Next index the driver posts (what `Q_TAIL` was last set to).
    tail: u16,
    /// Oldest index not yet reaped.
    clean: u16,
    /// Index one past each descriptor posted with REPORT_STATUS, oldest first.
    rs_ends: VecDeque<u16>,
    reg_base: u32,
}

impl TxQueue {
    /// Ring and buffers below 2^`dma_addr_bits` (the NIC's DMA_ADDR_BITS).
    pub fn new<D: Device + ?Sized>(dev: &mut D, id: u32, reg_base: u32, ring: Ring, buf_len: usize, dma_addr_bits: u32) -> Result<TxQueue, DriverError> {
        let ring_mem = crate::pool::alloc_reachable(dev, ring.bytes(), dma_addr_bits)?;
        let pool = Mempool::new(dev, usize::from(ring.size()), buf_len, dma_addr_bits)?;
        Ok(TxQueue { id, report_each_descriptor: false, features: 0, ring, ring_mem, pool, slots: vec![TxSlot::default(); usize::from(ring.size())], tail: 0, clean: 0, rs_ends: VecDeque::new(), reg_base })
    }

    pub fn reg(&self, offset: u32) -> u32 {
        self.reg_base + offset
    }

    /// Programs the ring registers and enables the queue (indices restart at 0).
    pub fn start<D: Device + ?Sized>(&mut self, dev: &mut D, timeout_cycles: u64) -> Result<(), DriverError> {
        dev.set_reg32(self.reg(txq::Q_CONTROL), 0)?;
        self.forget_all();
        // Disabling resets HEAD and TAIL (regmap Q_CONTROL; the NIC holds TAIL at 0 while
        // the queue is disabled), so the driver's indices restart at 0 with the NIC's.
        dev.set_reg32(self.reg(txq::Q_BASE_LO), self.ring_mem.bus_addr as u32)?;
        dev.set_reg32(self.reg(txq::Q_BASE_HI), (self.ring_mem.bus_addr >> 32) as u32)?;
        dev.set_reg32(self.reg(txq::Q_SIZE_LOG2), self.ring.size_log2())?;
        dev.set_reg32(self.reg(txq::Q_CONTROL), nic_regmap::bits::Q_CONTROL_ENABLE)?;
        dev.wait_set_reg32(self.reg(txq::Q_STATUS), nic_regmap::bits::Q_STATUS_ACTIVE, timeout_cycles)
    }

    /// Disables the queue; frames not yet sent are dropped and their buffers return to the pool.
    pub fn stop<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<usize, DriverError> {
        dev.clear_flags32(self.reg(txq::Q_CONTROL), nic_regmap::bits::Q_CONTROL_ENABLE)?;
        let lost = self.slots_between(self.clean, self.tail).filter(|s| s.eop).count();
        self.forget_all();
        Ok(lost)
    }

    fn forget_all(&mut self) {
        self.pool.reset();
        self.slots.iter_mut().for_each(|s| *s = TxSlot::default());
        self.tail = 0;
        self.clean = 0;
        self.rs_ends.clear();
    }

    fn slots_between(&self, from: u16, to: u16) -> impl Iterator<Item = &TxSlot> + '_ {
        let n = self.ring.distance(from, to);
        (0..n).map(move |i| &self.slots[self.ring.slot(from.wrapping_add(i))])
    }

    /// Whether the oldest burst in flight has its REPORT_STATUS write-back (true when
    /// nothing is in flight).
    pub fn oldest_burst_done<D: Device + ?Sized>(&self, dev: &mut D) -> Result<bool, DriverError> {
        match self.rs_ends.front() {
            Some(&end) => self.rs_done(dev, end),
            None => Ok(true),
        }
    }

    pub fn in_flight(&self) -> usize {
        usize::from(self.ring.distance(self.clean, self.tail))
    }

    pub fn free(&self) -> usize {
        usize::from(self.ring.free(self.clean, self.tail))
    }

    /// Checks a burst before touching the ring: nothing is queued if any frame is bad.
    pub fn validate(&self, frames: &[TxFrame<'_>]) -> Result<(), DriverError> {
        for (index, f) in frames.iter().enumerate() {
            let bad = |reason: String| Err(DriverError::InvalidFrame { index, reason });
            if f.segments.is_empty() {
                return bad("no segments".into());
            }
            if f.segments.len() > desc::TX_MAX_FRAME_DESCS {
                return bad(format!("{} segments: the NIC takes at most {} data descriptors per frame", f.segments.len(), desc::TX_MAX_FRAME_DESCS));
            }
            if let Some(o) = &f.offload {
                use nic_regmap::bits::{FEATURES_TSO, FEATURES_TX_CSUM};
                // without the offload engine a context descriptor would stop the queue
                if self.features & FEATURES_TX_CSUM == 0 {
                    return bad("the NIC has no TX offload (FEATURES.TX_CSUM clear): send the frame with its checksums filled in".into());
                }
                if o.tso && self.features & FEATURES_TSO == 0 {
                    return bad("the NIC has no TSO (FEATURES.TSO clear)".into());
                }
            }
            if f.descriptors() > usize::from(self.ring.size()) {
                return bad(format!("{} descriptors never fit a ring of {} descriptors", f.descriptors(), self.ring.size()));
            }
            for (i, s) in f.segments.iter().enumerate() {
                if let TxSegment::Bytes(b) = s {
                    if b.is_empty() {
                        return bad(format!("segment {i} is empty"));
                    }
                    if b.len() > self.pool.entry_size() || b.len() > usize::from(u16::MAX) {
                        return bad(format!("segment {i} has {} bytes, TX buffers hold {}", b.len(), self.pool.entry_size().min(65535)));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `f` must be copied into whole-beat buffers before a NIC without
    /// scatter-gather of arbitrary fragments (`FEATURES.SCATTER_GATHER` clear) takes it:
    /// a fragment before its last is not a multiple of 8 bytes. Frames with a
    /// `TxSegment::Raw` are posted as given (the NIC stops the queue on a bad one).
    fn needs_joining(&self, f: &TxFrame<'_>) -> bool {
        self.features & nic_regmap::bits::FEATURES_SCATTER_GATHER == 0
            && f.segments.iter().all(|s| matches!(s, TxSegment::Bytes(_)))
            && f.segments[..f.segments.len().saturating_sub(1)].iter().any(|s| s.len() % 8 != 0)
    }

    /// Queues as many whole frames as fit, in order; rings the doorbell once. A burst
    /// with a bad frame queues nothing (`validate`). On a NIC
    /// without scatter-gather of arbitrary fragments, a frame whose fragments are not
    /// whole 8-byte beats is first copied into buffers that are, as Linux linearizes a
    /// frame for a NIC without NETIF_F_SG: each holds the most bytes a TX buffer takes
    /// in whole beats, the last the rest.
    pub fn burst<D: Device + ?Sized>(&mut self, dev: &mut D, frames: &[TxFrame<'_>]) -> Result<usize, DriverError> {
        // the frames as the caller gave them are checked either way
        self.validate(frames)?;
        if !frames.iter().any(|f| self.needs_joining(f)) {
            return self.burst_as_given(dev, frames);
        }
        let joined: Vec<Option<Vec<u8>>> = frames
            .iter()
            .map(|f| {
                self.needs_joining(f).then(|| {
                    f.segments.iter().flat_map(|s| if let TxSegment::Bytes(b) = s { b.iter().copied() } else { [].iter().copied() }).collect()
                })
            })
            .collect();
        let whole = (self.pool.entry_size().min(usize::from(u16::MAX)) / 8 * 8).max(8);
        let frames: Vec<TxFrame<'_>> = frames
            .iter()
            .zip(&joined)
            .map(|(f, j)| match j {
                Some(bytes) => TxFrame { segments: bytes.chunks(whole).map(TxSegment::Bytes).collect(), offload: f.offload },
                None => f.clone(),
            })
            .collect();
        // joining may change a frame's descriptor count: check what is posted too
        self.validate(&frames)?;
        self.burst_as_given(dev, &frames)
    }

    /// Posts frames `validate` has passed, as they are.
    fn burst_as_given<D: Device + ?Sized>(&mut self, dev: &mut D, frames: &[TxFrame<'_>]) -> Result<usize, DriverError> {
        let needed: usize = frames.iter().map(TxFrame::descriptors).sum();
        if needed > self.free() {
            self.reap(dev)?;
        }
        // How many whole frames fit.
        let mut free = self.free();
        let mut count = 0;
        for f in frames {
            if f.descriptors() > free {
                break;
            }
            free -= f.descriptors();
            count += 1;
        }
        if count == 0 {
            return Ok(0);
        }
        for (fi, f) in frames[..count].iter().enumerate() {
            let last_frame = fi + 1 == count;
            if let Some(o) = &f.offload {
                // The context descriptor never asks for a write-back: it has no buffer,
                // and HEAD passing it (with its frame) is all the driver needs.
                dev.mem_write(self.ring.desc_addr(self.ring_mem.bus_addr, self.tail), &o.context_descriptor())?;
                let slot = self.ring.slot(self.tail);
                self.slots[slot] = TxSlot { buf: None, eop: false };
                self.tail = self.tail.wrapping_add(1);
            }
            for (si, seg) in f.segments.iter().enumerate() {
                let eop = si + 1 == f.segments.len();
                let (addr, len, buf) = match *seg {
                    TxSegment::Bytes(b) => {
                        let idx = self.pool.alloc().expect("TX pool holds one buffer per ring slot");
                        let addr = self.pool.addr(idx);
                        dev.mem_write(addr, b)?;
                        (addr, b.len() as u16, Some(idx))
                    }
                    TxSegment::Raw { bus_addr, len } => (bus_addr, len, None),
                };
                let mut flags = if eop { desc::TX_EOP } else { 0 };
                if (eop && last_frame) || self.report_each_descriptor {
                    flags |= desc::TX_REPORT_STATUS;
                }
                dev.mem_write(self.ring.desc_addr(self.ring_mem.bus_addr, self.tail), &encode(addr, len, flags))?;
                let slot = self.ring.slot(self.tail);
                self.slots[slot] = TxSlot { buf, eop };
                self.tail = self.tail.wrapping_add(1);
                if self.report_each_descriptor {
                    // every slot waits for its own write-back before it is reused
                    self.rs_ends.push_back(self.tail);
                }
            }
        }
        if !self.report_each_descriptor {
            self.rs_ends.push_back(self.tail);
        }
        dev.set_reg32(self.reg(txq::Q_TAIL), u32::from(self.tail))?;
        Ok(count)
    }

    /// Returns buffers of descriptors the NIC has finished with; counts whole frames.
    /// Completions are found through the DONE bit of REPORT_STATUS descriptors (no register
    /// access); when that shows nothing, `Q_HEAD` is read, and if the queue made no
    /// progress at all, `Q_STATUS` too, so a stopped queue is reported here.
    pub fn reap<D: Device + ?Sized>(&mut self, dev: &mut D) -> Result<usize, DriverError> {
        if self.in_flight() == 0 {
            return Ok(0);
        }
        let mut done_to = self.clean;
        while let Some(&end) = self.rs_ends.front() {
            if !self.rs_done(dev, end)? {
                break;
            }
            done_to = end;
            self.rs_ends.pop_front();
        }
        if done_to == self.clean {
            let head = dev.get_reg32(self.reg(txq::Q_HEAD))? as u16;
            if !self.ring.within(self.clean, head, self.tail) {
                return Err(DriverError::NicMisbehaved(format!(
                    "TX queue {}: Q_HEAD {head} outside the posted range {}..={}",
                    self.id, self.clean, self.tail
                )));
            }
            done_to = head;
            // A REPORT_STATUS descriptor's slot is reused only once its write-back (DONE)
            // is in memory: a write-back landing after the slot was reposted would
            // overwrite the new descriptor's length and flags.
            while let Some(&end) = self.rs_ends.front() {
                if !self.ring.within(self.clean, end, head) {
                    break;
                }
                if !self.rs_done(dev, end)? {
                    done_to = end.wrapping_sub(1);
                    break;
                }
                self.rs_ends.pop_front();
            }
        }
        if done_to == self.clean {
            check_status(dev, Dir::Tx, self.id, self.reg(txq::Q_STATUS))?;
            return Ok(0);
        }
        let mut frames = 0;
        while self.clean != done_to {
            let slot = self.ring.slot(self.clean);
            let s = std::mem::take(&mut self.slots[slot]);
            if let Some(b) = s.buf {
                self.pool.free(b);
            }
            frames += usize::from(s.eop);
            self.clean = self.clean.wrapping_add(1);
        }
        Ok(frames)
    }

    /// Index of the oldest REPORT_STATUS descriptor whose write-back has not been seen.
    pub fn pending_report_status(&self) -> Option<u16> {
        self.rs_ends.front().map(|e| e.wrapping_sub(1))
    }

    /// Whether the REPORT_STATUS descriptor just before index `end` was written back.
    fn rs_done<D: Device + ?Sized>(&self, dev: &mut D, end: u16) -> Result<bool, DriverError> {
        let mut wb = [0u8; WRITEBACK_LEN];
        dev.mem_read(self.ring.desc_addr(self.ring_mem.bus_addr, end.wrapping_sub(1)) + desc::WRITEBACK_OFFSET, &mut wb)?;
        Ok(WriteBack::decode(&wb).done())
    }

    pub fn regions(&self) -> [DmaRegion; 2] {
        [self.ring_mem, self.pool.region()]
    }
}

/// Reads `Q_STATUS` and turns ERROR/ERROR_CODE into an error.
pub(crate) fn check_status<D: Device + ?Sized>(dev: &mut D, dir: Dir, queue: u32, status_reg: u32) -> Result<(), DriverError> {
    let s = dev.get_reg32(status_reg)?;
    match queue_error(dir, queue, s) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The error a `Q_STATUS` value reports, if any.
pub fn queue_error(dir: Dir, queue: u32, status: u32) -> Option<DriverError> {
    use nic_regmap::bits::{Q_STATUS_ERROR, Q_STATUS_ERROR_CODE_MASK, Q_STATUS_ERROR_CODE_SHIFT};
    if status & Q_STATUS_ERROR == 0 {
        return None;
    }
    let raw = (status & Q_STATUS_ERROR_CODE_MASK) >> Q_STATUS_ERROR_CODE_SHIFT;
    Some(match nic_regmap::QueueError::from_code(raw) {
        Some(code) => DriverError::QueueStopped { dir, queue, code },
        None => DriverError::UnknownQueueError { dir, queue, raw },
    })
}
