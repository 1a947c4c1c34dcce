//! A behavioural model of the NIC, written from the documented behaviour (the regmap's
//! register descriptions, docs/interfaces.md) and exposed through the driver's `Device`
//! trait. It is the golden model at NIC level: the suites run the same driver code and
//! the same assertions on it and on the Verilated RTL, so a failure on one backend only
//! points at the RTL (or at this model's reading of the spec), not at the driver.
//!
//! TX follows docs/tx-offload.md: context descriptors, the offloads (through the golden
//! model `txoffload::apply`), refused requests completed with `TX_ERROR`, and the
//! scheduler across TX queues (strict priority, then deficit round-robin).
//!
//! Timing is approximate: a register access costs a few cycles, a frame occupies the
//! datapath one cycle per 8 bytes plus a little overhead, DMA is instantaneous.

use crate::fcs;
use crate::traffic::WireAccess;
use nic_driver::{Device, DeviceError, DmaFault, DmaRegion};
use crate::rxclass::{self, MacFilterEntry, RxClassConfig};
use crate::txoffload::{self, TxOffload, TxOffloadError};
use crate::roce::engine::{EngineConfig, HostPort, RdmaEngine, Station};
use crate::wire::EthernetAddress;
use nic_regmap::rdma;
use nic_regmap::{bits, desc, global, reset_of, rxc, rxq, stats, txq, QueueError, DMA_ADDR_BITS, QUEUE_STRIDE, RX_IRQ_BASE};
use std::collections::{BTreeMap, VecDeque};

/// Cycles one AXI4-Lite register access takes in the model.
const REG_ACCESS_CYCLES: u64 = 4;
/// Bytes of the TX offload buffer a checksummed frame or TSO segment may not use.
const TX_OFFLOAD_BUFFER_RESERVE: usize = 512;
/// First bus address handed out (above 4 GiB, so `Q_BASE_HI` matters).
const DMA_BASE: u64 = 0x1_0000_0000;

#[derive(Clone, Copy, Debug)]
pub struct RefNicConfig {
    pub tx_queues: u32,
    pub rx_queues: u32,
    /// The TX offload engine (checksums, TSO) is there; without it a context descriptor
    /// stops its queue (`QueueError::UnsupportedContext`).
    pub tx_offload: bool,
    /// RSS and RX checksum validation are there; without them the MAC filter alone
    /// classifies (`RxClassConfig::with_features`).
    pub rx_offload: bool,
    /// Exact-match entries of the MAC filter (`MAC_FILTER_COUNT`).
    pub mac_filters: u32,
    /// Per-queue interrupt moderation (`Q_IRQ_COUNT`, `Q_IRQ_TIMER`); without it those
    /// registers ignore writes and read 0 and every completion raises the vector.
    pub irq_moderation: bool,
    /// TX fragments of any length are joined; without, a data descriptor other than its
    /// frame's last must hold a multiple of 8 bytes (`QueueError::FragmentNotWhole`).
    pub scatter_gather: bool,
    /// Bytes of the TX offload buffer (docs/tx-offload.md, "Refused requests"): a
    /// checksummed frame or TSO segment longer than this less 512 bytes is refused.
    pub tx_offload_buffer: usize,
    /// The RDMA engine (`FEATURES.RDMA`, the `rdma` register block; docs/rdma.md).
    pub rdma: bool,
}

impl RefNicConfig {
    /// The `small` configuration: one queue each way, no TX offload, no RSS or RX
    /// checksum validation, no interrupt moderation, whole-beat TX fragments only.
    pub fn small() -> Self {
        RefNicConfig { tx_queues: 1, rx_queues: 1, tx_offload: false, rx_offload: false, mac_filters: rxc::MAC_FILTERS_SMALL, irq_moderation: false, scatter_gather: false, tx_offload_buffer: 0, rdma: false }
    }
    /// The `full` configuration: eight each way, the RDMA engine.
    pub fn full() -> Self {
        RefNicConfig { tx_queues: 8, rx_queues: 8, tx_offload: true, rx_offload: true, mac_filters: rxc::MAC_FILTERS, irq_moderation: true, scatter_gather: true, tx_offload_buffer: 32768, rdma: true }
    }
    /// This configuration with the RDMA engine (`full` has it already).
    pub fn with_rdma(mut self) -> Self {
        self.rdma = true;
        self
    }
    /// The `FEATURES` register the configuration reads back.
    pub fn features(&self) -> u32 {
        nic_regmap::BuildFeatures { tx_offload: self.tx_offload, rx_offload: self.rx_offload, irq_moderation: self.irq_moderation, scatter_gather: self.scatter_gather, rdma: self.rdma }.register()
    }
}

#[derive(Clone, Debug, Default)]
struct Queue {
    base: u64,
    size_log2: u32,
    enabled: bool,
    error: u8,
    head: u16,
    tail: u16,
    irq_count: u32,
    irq_timer: u32,
    pending: u32,
    pending_since: Option<u64>,
    /// RX: frames dropped for lack of a buffer (`Q_DROPS`).
    drops: u32,
    /// TX scheduler registers (`Q_WEIGHT`, `Q_PRIORITY`).
    weight: u32,
    priority: u32,
    /// TX deficit round-robin: bytes the queue may still send (negative: in debt).
    deficit: i64,
}

impl Queue {
    fn new() -> Queue {
        Queue { irq_count: 1, weight: reset_of("txq", "Q_WEIGHT"), ..Default::default() }
    }
    fn running(&self) -> bool {
        self.enabled && self.error == 0
    }
    fn desc_addr(&self, index: u16) -> u64 {
        self.base + desc::SIZE * u64::from(index & ((1u16 << self.size_log2.min(15)) - 1))
    }
    fn stop(&mut self, e: QueueError) {
        self.error = e as u8;
    }
    fn reset(&mut self) {
        self.enabled = false;
        self.error = 0;
        self.head = 0;
        self.tail = 0;
        self.pending = 0;
        self.pending_since = None;
        self.deficit = 0;
    }
}

/// Next round-robin candidate after `last`: by descending index with wrap (the highest
/// candidate below `last`, else the highest overall, `last` itself included).
fn next_round_robin(last: Option<usize>, n: usize, candidate: impl Fn(usize) -> bool) -> Option<usize> {
    let l = last.map_or(n, |l| l.min(n));
    (0..l).rev().chain((l..n).rev()).find(|&q| candidate(q))
}

/// One frame as the TX engine read it.
struct TxJob {
    /// Ring index one past the frame's last descriptor (its new `Q_HEAD`).
    end: u16,
    /// Its data descriptors' bytes, concatenated.
    frame: Vec<u8>,
    /// The context descriptor's request.
    ctx: Option<TxOffload>,
    /// A refusal found in the descriptors (a context descriptor with `EOP`, two of them).
    refusal: Option<TxOffloadError>,
    /// Descriptors asking for a write-back: (address, length, flags).
    report: Vec<(u64, u16, u16)>,
}

impl TxJob {
    fn tso(&self) -> bool {
        self.ctx.is_some_and(|o| o.tso)
    }
}

/// What the TX engine finds at a queue's `Q_HEAD`.
enum TxFetch {
    /// No complete frame before `Q_TAIL`.
    NotReady,
    /// The queue stops; the job holds what was read before.
    Stop(QueueError, TxJob),
    /// A frame through its `EOP` descriptor.
    Frame(TxJob),
}

/// Host memory with an IOMMU: only allocated regions are reachable.
#[derive(Default)]
struct HostMemory {
    regions: BTreeMap<u64, Vec<u8>>,
    next: u64,
}

impl HostMemory {
    fn region(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let (&base, mem) = self.regions.range_mut(..=addr).next_back()?;
        let off = usize::try_from(addr - base).ok()?;
        (off.checked_add(len)? <= mem.len()).then(|| &mut mem[off..off + len])
    }
}

/// The model.
pub struct RefNic {
    cfg: RefNicConfig,
    now: u64,
    control: u32,
    mac_lo: u32,
    mac_hi: u32,
    max_frame_len: u32,
    irq_status: u32,
    irq_mask: u32,
    stats: BTreeMap<u32, u32>,
    txq: Vec<Queue>,
    rxq: Vec<Queue>,
    mem: HostMemory,
    faults: Vec<DmaFault>,
    tx_wire: Vec<(Vec<u8>, bool)>,
    rx_wire: VecDeque<(Vec<u8>, bool)>,
    tx_busy_until: u64,
    rx_busy_until: u64,
    /// RX classification registers, kept as the golden classifier's configuration.
    rxc: RxClassConfig,
    /// MAC_FILTER_LO/HI as written (entry i: words 2i, 2i+1).
    mac_filter_words: [u32; 32],
    /// TX scheduler: the strict-priority queue served last, the deficit round-robin
    /// queue visited last, and the one whose visit goes on (deficit left).
    strict_last: Option<usize>,
    drr_last: Option<usize>,
    drr_current: Option<usize>,
    /// The RDMA engine, in a configuration with `FEATURES.RDMA`.
    rdma: Option<RdmaEngine>,
    /// MAC TX arbiter: the RDMA engine sends next (else the TX queues).
    rdma_turn: bool,
}

/// DMA as the NIC's engines see it (Ethernet and RDMA alike): refused accesses are
/// logged as DMA faults and touch nothing.
struct EngineHost<'a> {
    mem: &'a mut HostMemory,
    faults: &'a mut Vec<DmaFault>,
}

impl HostPort for EngineHost<'_> {
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        let r = self.mem.region(addr, len).map(|m| m.to_vec());
        if r.is_none() {
            self.faults.push(DmaFault { write: false, addr, len: len as u64 });
        }
        r
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        match self.mem.region(addr, data.len()) {
            Some(m) => {
                m.copy_from_slice(data);
                true
            }
            None => {
                self.faults.push(DmaFault { write: true, addr, len: data.len() as u64 });
                false
            }
        }
    }
}

impl RefNic {
    pub fn new(cfg: RefNicConfig) -> RefNic {
        RefNic {
            cfg,
            now: 0,
            control: 0,
            mac_lo: 0,
            mac_hi: 0,
            max_frame_len: reset_of("global", "MAX_FRAME_LEN"),
            irq_status: 0,
            irq_mask: 0,
            stats: BTreeMap::new(),
            txq: (0..cfg.tx_queues).map(|_| Queue::new()).collect(),
            rxq: (0..cfg.rx_queues).map(|_| Queue::new()).collect(),
            mem: HostMemory { regions: BTreeMap::new(), next: DMA_BASE },
            faults: Vec::new(),
            tx_wire: Vec::new(),
            rx_wire: VecDeque::new(),
            tx_busy_until: 0,
            rx_busy_until: 0,
            rxc: RxClassConfig::reset_default(cfg.rx_queues).with_features(cfg.features()).with_mac_filters(cfg.mac_filters as usize),
            mac_filter_words: [0; 32],
            strict_last: None,
            drr_last: None,
            drr_current: None,
            rdma: cfg.rdma.then(|| RdmaEngine::new(EngineConfig::default())),
            rdma_turn: false,
        }
    }

    fn station_mac(&self) -> EthernetAddress {
        let b = (u64::from(self.mac_lo) | u64::from(self.mac_hi) << 32).to_le_bytes();
        EthernetAddress([b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    /// Runs `f` on the RDMA engine with its host port, then collects its interrupts.
    fn with_rdma<R>(&mut self, f: impl FnOnce(&mut RdmaEngine, &mut dyn HostPort, Station) -> R) -> Option<R> {
        let st = Station { mac: self.station_mac(), now: self.now };
        let engine = self.rdma.as_mut()?;
        let mut host = EngineHost { mem: &mut self.mem, faults: &mut self.faults };
        let r = f(engine, &mut host, st);
        self.irq_status |= engine.take_irq();
        Some(r)
    }

    /// Whether a frame (no FCS) goes to the RDMA engine: RoCEv2 (IPv4, UDP 4791) to
    /// LOCAL_IPV4 while the engine is enabled. Fragments and IPv4 options never do
    /// (RoCEv2 senders send neither); every other frame keeps the Ethernet path.
    fn is_rdma_frame(&self, data: &[u8]) -> bool {
        let Some(e) = self.rdma.as_ref().filter(|e| e.enabled()) else { return false };
        crate::roce::is_roce_v4_to(data, e.local_ipv4())
    }

    /// The RDMA engine's next packet onto the wire, with its wire time.
    fn rdma_tx_next(&mut self) -> Option<u64> {
        let frame = self.with_rdma(|e, host, st| e.next_packet(host, st)).flatten()?;
        let wire = fcs::with_fcs(&fcs::padded(&frame));
        let cycles = wire.len().div_ceil(8) as u64 + 1;
        self.tx_to_wire(wire, false);
        Some(cycles)
    }

    fn count(&mut self, stat: u32, by: u32) {
        let c = self.stats.entry(stat).or_insert(0);
        *c = c.wrapping_add(by);
    }

    fn loopback(&self) -> bool {
        self.control & bits::CONTROL_LOOPBACK != 0
    }

    // ---- DMA as the NIC sees it: refused accesses are logged, nothing is touched ----

    fn dma_read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        EngineHost { mem: &mut self.mem, faults: &mut self.faults }.read(addr, len)
    }

    fn dma_write(&mut self, addr: u64, data: &[u8]) -> bool {
        EngineHost { mem: &mut self.mem, faults: &mut self.faults }.write(addr, data)
    }

    fn completion(&mut self, vector: u32, which: &mut Queue) {
        which.pending += 1;
        if which.pending >= which.irq_count.max(1) {
            self.irq_status |= 1 << vector;
            which.pending = 0;
            which.pending_since = None;
        } else if which.irq_timer > 0 && which.pending_since.is_none() {
            which.pending_since = Some(self.now);
        }
    }

    // ---- TX: the scheduler picks a queue, the engine sends one whole frame of it ----
    //
    // docs/tx-offload.md, "Descriptors", "Refused requests" and "Scheduler".

    /// Whether a data descriptor is a fragment a NIC without the byte packer
    /// (`FEATURES.SCATTER_GATHER` clear) refuses: not its frame's last and not a whole
    /// number of 8-byte beats (`QueueError::FragmentNotWhole`).
    fn fragment_not_whole(&self, len: u16, flags: u16) -> bool {
        !self.cfg.scatter_gather && flags & desc::TX_EOP == 0 && len % 8 != 0
    }

    /// Whether TX queue q is eligible: running, with a complete frame posted (its
    /// descriptors up to `EOP` before `Q_TAIL`). A descriptor the engine will stop on (a
    /// refused read, a zero length, a fragment not of whole beats without scatter-gather,
    /// a frame already longer than `MAX_FRAME_LEN`) makes
    /// the queue eligible too, so that the error is found as it was before the scheduler
    /// (the engine reads descriptors up to `Q_TAIL`). Reads nothing through the logged DMA
    /// path: [`Self::tx_fetch`] logs the faults when the queue is served.
    fn tx_ready(&mut self, q: usize) -> bool {
        let queue = &self.txq[q];
        if !queue.running() {
            return false;
        }
        let (mut idx, tail) = (queue.head, queue.tail);
        let mut first = true;
        let mut tso = false;
        let mut len_sum = 0usize;
        let mut descs = 0usize;
        while idx != tail {
            let daddr = self.txq[q].desc_addr(idx);
            let Some(d) = self.mem.region(daddr, desc::SIZE as usize) else { return true };
            let len = u16::from_le_bytes([d[desc::LEN], d[desc::LEN + 1]]);
            let flags = u16::from_le_bytes([d[desc::FLAGS], d[desc::FLAGS + 1]]);
            if flags & desc::TX_CTX != 0 {
                tso |= first && flags & desc::TX_TSO != 0;
                if flags & desc::TX_EOP != 0 {
                    return true;
                }
            } else {
                len_sum += usize::from(len);
                descs += 1;
                if len == 0 || flags & desc::TX_EOP != 0 || descs > desc::TX_MAX_FRAME_DESCS || self.fragment_not_whole(len, flags) || (!tso && len_sum + fcs::FCS_LEN > self.max_frame_len as usize) {
                    return true;
                }
            }
            first = false;
            idx = idx.wrapping_add(1);
        }
        false
    }

    /// Reads queue q's next frame: its descriptors from `Q_HEAD` through `EOP`, the
    /// context descriptor's request and the data. Changes nothing but the fault log.
    fn tx_fetch(&mut self, queue: &Queue) -> TxFetch {
        let mut job = TxJob { end: queue.head, frame: Vec::new(), ctx: None, refusal: None, report: Vec::new() };
        let mut seen_data = false;
        let mut data_descs = 0usize;
        loop {
            if job.end == queue.tail {
                return TxFetch::NotReady;
            }
            let daddr = queue.desc_addr(job.end);
            let Some(d) = self.dma_read(daddr, desc::SIZE as usize) else {
                return TxFetch::Stop(QueueError::DescReadFault, job);
            };
            let addr = u64::from_le_bytes(d[desc::ADDR..desc::ADDR + 8].try_into().unwrap());
            let len = u16::from_le_bytes([d[desc::LEN], d[desc::LEN + 1]]);
            let flags = u16::from_le_bytes([d[desc::FLAGS], d[desc::FLAGS + 1]]);
            job.end = job.end.wrapping_add(1);
            if flags & desc::TX_CTX != 0 {
                // A context descriptor has no data; one after the frame's data started
                // is a bad descriptor (the queue stops); a second one refuses the frame;
                // one with EOP ends (and refuses) the frame there.
                if seen_data {
                    return TxFetch::Stop(QueueError::MisplacedContext, job);
                }
                if !self.cfg.tx_offload {
                    return TxFetch::Stop(QueueError::UnsupportedContext, job);
                }
                if job.ctx.is_some() {
                    job.refusal.get_or_insert(TxOffloadError::TwoContexts);
                } else {
                    job.ctx = Some(TxOffload::from_context_descriptor(&<[u8; 16]>::try_from(&d[..]).unwrap()));
                }
                if flags & desc::TX_REPORT_STATUS != 0 {
                    job.report.push((daddr, 0, flags));
                }
                if flags & desc::TX_EOP != 0 {
                    job.refusal.get_or_insert(TxOffloadError::ContextWithEop);
                    break;
                }
                continue;
            }
            if len == 0 {
                return TxFetch::Stop(QueueError::ZeroLength, job);
            }
            if addr >> DMA_ADDR_BITS != 0 {
                return TxFetch::Stop(QueueError::AddressTooWide, job);
            }
            data_descs += 1;
            if data_descs > desc::TX_MAX_FRAME_DESCS {
                return TxFetch::Stop(QueueError::TooManyDescriptors, job);
            }
            if self.fragment_not_whole(len, flags) {
                return TxFetch::Stop(QueueError::FragmentNotWhole, job);
            }
            if data_descs == 1 && job.ctx.is_some_and(|o| o.tso && len < o.hdr_len) {
                job.refusal.get_or_insert(TxOffloadError::TsoHeaderSplit);
            }
            // MAX_FRAME_LEN stops the queue before any offload check (and before the
            // descriptor's data is read); a TSO request's segments are checked instead
            // (txoffload::apply)
            if !job.tso() && job.frame.len() + usize::from(len) + fcs::FCS_LEN > self.max_frame_len as usize {
                return TxFetch::Stop(QueueError::FrameTooLong, job);
            }
            let Some(data) = self.dma_read(addr, usize::from(len)) else {
                return TxFetch::Stop(QueueError::DataReadFault, job);
            };
            job.frame.extend_from_slice(&data);
            seen_data = true;
            if flags & desc::TX_REPORT_STATUS != 0 {
                job.report.push((daddr, len, flags));
            }
            if flags & desc::TX_EOP != 0 {
                break;
            }
        }
        TxFetch::Frame(job)
    }

    /// What the offload engine makes of a whole frame: the wire frames (without FCS,
    /// before padding) or the reason it is refused. Beyond `txoffload::apply`, the
    /// offload buffer's limit: a checksummed frame or TSO segment longer than the buffer
    /// less 512 bytes is refused.
    fn tx_offload(&self, job: &TxJob) -> Result<Vec<Vec<u8>>, TxOffloadError> {
        if let Some(e) = job.refusal {
            return Err(e);
        }
        let Some(o) = job.ctx.filter(|o| !o.is_none()) else {
            return Ok(vec![job.frame.clone()]);
        };
        let out = txoffload::apply(&job.frame, &o, self.max_frame_len as usize)?;
        let limit = self.cfg.tx_offload_buffer.saturating_sub(TX_OFFLOAD_BUFFER_RESERVE);
        if out.iter().any(|f| f.len() > limit) {
            return Err(if o.tso { TxOffloadError::TsoSegmentTooLong } else { TxOffloadError::FrameTooLong });
        }
        Ok(out)
    }

    /// Serves one frame of queue q. Returns the cycles the TX path was busy and the
    /// frame's length for the scheduler (the sum of its data descriptors), or None when
    /// queue q has nothing to send.
    fn tx_send(&mut self, q: usize) -> Option<(u64, usize)> {
        let mut queue = std::mem::take(&mut self.txq[q]);
        let r = match self.tx_fetch(&queue) {
            TxFetch::NotReady => None,
            TxFetch::Stop(e, job) => {
                queue.stop(e);
                if !job.frame.is_empty() {
                    // Stopped mid-frame (a fault, a bad descriptor): without offload what
                    // was read leaves with a bad FCS (and the wire's error flag), counted
                    // in TX_ERRORS; with a checksum or TSO request the offload engine
                    // drops the frame (the model drops a TSO request whole).
                    if job.ctx.is_none_or(|o| o.is_none()) {
                        self.count(stats::TX_ERRORS, 1);
                        let mut wire = fcs::with_fcs(&fcs::padded(&job.frame));
                        let n = wire.len();
                        wire[n - fcs::FCS_LEN..].iter_mut().for_each(|b| *b = !*b);
                        self.tx_to_wire(wire, true);
                    }
                }
                Some((1, 0))
            }
            TxFetch::Frame(job) => Some(self.tx_complete(&mut queue, q, job)),
        };
        self.txq[q] = queue;
        r
    }

    fn tx_complete(&mut self, queue: &mut Queue, q: usize, job: TxJob) -> (u64, usize) {
        let len = job.frame.len();
        let out = self.tx_offload(&job);
        let error = if out.is_err() { desc::TX_ERROR } else { 0 };
        for &(daddr, dlen, flags) in &job.report {
            let mut wb = [0u8; 8];
            wb[0..2].copy_from_slice(&dlen.to_le_bytes());
            wb[2..4].copy_from_slice(&(flags | desc::DONE | error).to_le_bytes());
            if !self.dma_write(daddr + desc::WRITEBACK_OFFSET, &wb) {
                queue.stop(QueueError::WriteFault);
                return (1, len);
            }
        }
        queue.head = job.end;
        self.completion(q as u32, queue);
        let frames = match out {
            Ok(frames) => frames,
            Err(e) => {
                self.count(stats::TX_OFFLOAD_ERRORS, 1);
                let o = job.ctx.unwrap_or_default();
                txoffload::sent_before_refusal(&job.frame, &o, self.max_frame_len as usize, e)
            }
        };
        let mut cycles = 0;
        for f in frames {
            self.count(stats::TX_FRAMES, 1);
            self.count(stats::TX_BYTES, f.len() as u32);
            if job.tso() {
                self.count(stats::TX_TSO_SEGMENTS, 1);
            }
            // the MAC pads short frames to 60 bytes before the FCS
            let wire = fcs::with_fcs(&fcs::padded(&f));
            cycles += wire.len().div_ceil(8) as u64 + 1;
            self.tx_to_wire(wire, false);
        }
        (cycles, len)
    }

    fn tx_to_wire(&mut self, wire: Vec<u8>, error: bool) {
        if self.loopback() {
            self.rx_frame(&wire, error);
        } else {
            self.tx_wire.push((wire, error));
        }
    }

    /// The scheduler (docs/tx-offload.md, "Scheduler"): one whole frame of the queue it
    /// picks. Strict-priority queues first, round-robin by frame; then deficit
    /// round-robin on bytes. Round-robin order is by descending index with wrap (after
    /// queue q: the highest candidate below q, else the highest overall), as in the RTL.
    fn tx_next(&mut self) -> Option<u64> {
        let n = self.txq.len();
        let eligible: Vec<bool> = (0..n).map(|q| self.tx_ready(q)).collect();
        for (q, e) in self.txq.iter_mut().zip(&eligible) {
            if !e {
                q.deficit = 0;
            }
        }
        let strict: Vec<bool> = self.txq.iter().map(|q| q.priority & 1 != 0).collect();
        if let Some(q) = next_round_robin(self.strict_last, n, |q| eligible[q] && strict[q]) {
            self.strict_last = Some(q);
            return self.tx_send(q).map(|(c, _)| c);
        }
        let q = match self.drr_current {
            Some(q) if eligible[q] && !strict[q] && self.txq[q].deficit > 0 => q,
            _ => loop {
                // a visit: add the quantum; a queue still in debt passes its turn
                let q = next_round_robin(self.drr_last, n, |q| eligible[q] && !strict[q])?;
                self.drr_last = Some(q);
                let queue = &mut self.txq[q];
                queue.deficit += i64::from(queue.weight.max(1));
                if queue.deficit > 0 {
                    break q;
                }
            },
        };
        let (cycles, len) = self.tx_send(q)?;
        self.txq[q].deficit -= len as i64;
        self.drr_current = (self.txq[q].deficit > 0).then_some(q);
        Some(cycles)
    }

    // ---- RX: check one wire frame and deliver it to queue 0 --------------------------

    /// Checks in the order of precedence the documentation's counters imply: a PHY
    /// error, then length (runt, oversize), then the FCS.
    fn rx_frame(&mut self, wire: &[u8], error: bool) {
        if error {
            return self.count(stats::RX_DROP_PHY_ERROR, 1);
        }
        if wire.len() < fcs::MIN_FRAME_LEN {
            return self.count(stats::RX_DROP_RUNT, 1);
        }
        if wire.len() > self.max_frame_len as usize {
            return self.count(stats::RX_DROP_OVERSIZE, 1);
        }
        if !fcs::residue_ok(wire) {
            return self.count(stats::RX_DROP_FCS, 1);
        }
        let data = &wire[..wire.len() - fcs::FCS_LEN];
        let meta = rxclass::classify(&self.rxc, data);
        match meta.drop {
            rxclass::drop_reason::ACCEPT => {}
            rxclass::drop_reason::UNICAST_MISS => return self.count(stats::RX_DROP_UCAST_FILTER, 1),
            rxclass::drop_reason::MULTICAST_MISS => return self.count(stats::RX_DROP_MCAST_FILTER, 1),
            _ => return self.count(stats::RX_DROP_BCAST_FILTER, 1),
        }
        if self.is_rdma_frame(data) {
            let now = self.now;
            self.with_rdma(|e, host, _| e.receive(data, host, now));
            return;
        }
        let q = meta.queue as usize;
        let mut queue = std::mem::take(&mut self.rxq[q]);
        self.rx_deliver(&mut queue, q, data, &meta);
        self.rxq[q] = queue;
    }

    fn rx_deliver(&mut self, queue: &mut Queue, q: usize, data: &[u8], meta: &rxclass::RxMeta) {
        if !queue.running() || queue.head == queue.tail {
            queue.drops = queue.drops.wrapping_add(1);
            return self.count(stats::RX_DROP_NO_BUFFER, 1);
        }
        let daddr = queue.desc_addr(queue.head);
        let Some(d) = self.dma_read(daddr, desc::SIZE as usize) else {
            queue.stop(QueueError::DescReadFault);
            queue.drops = queue.drops.wrapping_add(1);
            return self.count(stats::RX_DROP_NO_BUFFER, 1);
        };
        let addr = u64::from_le_bytes(d[desc::ADDR..desc::ADDR + 8].try_into().unwrap());
        let cap = u16::from_le_bytes([d[desc::LEN], d[desc::LEN + 1]]);
        if addr >> DMA_ADDR_BITS != 0 {
            // refused before any byte moves (the frame is dropped as for a stopped queue)
            queue.stop(QueueError::AddressTooWide);
            queue.drops = queue.drops.wrapping_add(1);
            return self.count(stats::RX_DROP_NO_BUFFER, 1);
        }
        if data.len() > usize::from(cap) {
            return self.count(stats::RX_DROP_TRUNCATED, 1);
        }
        if !self.dma_write(addr, data) {
            return queue.stop(QueueError::WriteFault);
        }
        // the RX write-back covers the whole descriptor (regmap desc, docs/rx-classification.md)
        let flags = desc::DONE
            | desc::RX_EOP
            | u16::from(meta.l3_csum) << desc::RX_L3_CSUM_SHIFT
            | u16::from(meta.l4_csum) << desc::RX_L4_CSUM_SHIFT
            | u16::from(meta.hash_type) << desc::RX_HASH_TYPE_SHIFT;
        let mut wb = [0u8; desc::SIZE as usize];
        wb[desc::RX_PTYPE..desc::RX_PTYPE + 2].copy_from_slice(&meta.ptype.to_le_bytes());
        wb[desc::LEN..desc::LEN + 2].copy_from_slice(&(data.len() as u16).to_le_bytes());
        wb[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
        wb[desc::RX_HASH..desc::RX_HASH + 4].copy_from_slice(&meta.hash.to_le_bytes());
        if !self.dma_write(daddr, &wb) {
            return queue.stop(QueueError::WriteFault);
        }
        queue.head = queue.head.wrapping_add(1);
        self.completion(RX_IRQ_BASE + q as u32, queue);
        self.count(stats::RX_FRAMES, 1);
        self.count(stats::RX_BYTES, data.len() as u32);
        if meta.l3_csum == rxclass::csum::BAD {
            self.count(stats::RX_CSUM_L3_BAD, 1);
        }
        if meta.l4_csum == rxclass::csum::BAD {
            self.count(stats::RX_CSUM_L4_BAD, 1);
        }
    }

    /// Runs the datapath up to `now + cycles`.
    fn advance(&mut self, cycles: u64) {
        let target = self.now + cycles;
        loop {
            let mut moved = false;
            if self.tx_busy_until <= target {
                // MAC TX arbiter: the RDMA engine and the TX queues take turns
                let sent = if self.rdma_turn { self.rdma_tx_next().or_else(|| self.tx_next()) } else { self.tx_next().or_else(|| self.rdma_tx_next()) };
                if let Some(c) = sent {
                    self.rdma_turn = !self.rdma_turn;
                    self.tx_busy_until = self.tx_busy_until.max(self.now) + c;
                    moved = true;
                }
            }
            if !self.loopback() && self.rx_busy_until <= target {
                if let Some((w, e)) = self.rx_wire.pop_front() {
                    self.rx_busy_until = self.rx_busy_until.max(self.now) + w.len().div_ceil(8) as u64 + 1;
                    self.rx_frame(&w, e);
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        self.now = target;
        let now = self.now;
        let mut fire = 0u32;
        for (i, q) in self.txq.iter_mut().enumerate().map(|(i, q)| (i as u32, q)).chain(self.rxq.iter_mut().enumerate().map(|(i, q)| (RX_IRQ_BASE + i as u32, q))) {
            if let Some(t) = q.pending_since {
                if now >= t + u64::from(q.irq_timer) {
                    fire |= 1 << i;
                    q.pending = 0;
                    q.pending_since = None;
                }
            }
        }
        self.irq_status |= fire;
        if let Some(e) = self.rdma.as_mut() {
            e.tick(now);
            e.requester_timers_all(&mut EngineHost { mem: &mut self.mem, faults: &mut self.faults }, now);
            self.irq_status |= e.take_irq();
        }
    }

    // ---- registers --------------------------------------------------------------------

    fn queue_window(addr: u32, base: u32) -> Option<(usize, u32)> {
        let rel = addr.checked_sub(base)?;
        if !(QUEUE_STRIDE..QUEUE_STRIDE * (nic_regmap::MAX_QUEUES + 1)).contains(&rel) {
            return None;
        }
        Some(((rel / QUEUE_STRIDE - 1) as usize, rel % QUEUE_STRIDE))
    }

    fn header(&self, block: &str, off: u32, count: u32) -> u32 {
        match off {
            nic_regmap::HEADER_ID => reset_of(block, "ID"),
            nic_regmap::HEADER_VERSION => reset_of(block, "VERSION"),
            nic_regmap::HEADER_NEXT => nic_regmap::next_of(block, self.cfg.features()),
            o if o == txq::COUNT => count,
            _ => 0,
        }
    }

    /// `moderated`: the build has Q_IRQ_COUNT and Q_IRQ_TIMER (else they read 0).
    fn queue_read(q: Option<&Queue>, off: u32, tx: bool, moderated: bool) -> u32 {
        let Some(q) = q else { return 0 };
        match off {
            txq::Q_BASE_LO => q.base as u32,
            txq::Q_BASE_HI => (q.base >> 32) as u32,
            txq::Q_SIZE_LOG2 => q.size_log2,
            txq::Q_CONTROL => u32::from(q.enabled),
            txq::Q_TAIL => u32::from(q.tail),
            txq::Q_HEAD => u32::from(q.head),
            txq::Q_STATUS => {
                (if q.running() { bits::Q_STATUS_ACTIVE } else { 0 })
                    | (if q.error != 0 { bits::Q_STATUS_ERROR } else { 0 })
                    | (u32::from(q.error) << bits::Q_STATUS_ERROR_CODE_SHIFT)
            }
            txq::Q_IRQ_COUNT if moderated => q.irq_count,
            txq::Q_IRQ_TIMER if moderated => q.irq_timer,
            rxq::Q_DROPS if !tx => q.drops,
            txq::Q_WEIGHT if tx => q.weight,
            txq::Q_PRIORITY if tx => q.priority,
            _ => 0,
        }
    }

    /// Without `moderated` the moderation registers ignore writes: `irq_count` stays 1
    /// and `irq_timer` 0, so every completion raises the vector.
    fn queue_write(q: Option<&mut Queue>, off: u32, v: u32, tx: bool, moderated: bool) {
        let Some(q) = q else { return };
        match off {
            txq::Q_BASE_LO => q.base = (q.base & !0xffff_ffff) | u64::from(v & !0xf),
            // the bits the NIC can address (DMA_ADDR_BITS)
            txq::Q_BASE_HI => q.base = (q.base & 0xffff_ffff) | (u64::from(v) << 32 & ((1 << DMA_ADDR_BITS) - 1)),
            txq::Q_SIZE_LOG2 => q.size_log2 = v & 0xf,
            txq::Q_CONTROL => {
                if v & bits::Q_CONTROL_ENABLE == 0 {
                    q.reset();
                } else {
                    q.enabled = true;
                }
            }
            txq::Q_TAIL => q.tail = v as u16,
            txq::Q_IRQ_COUNT if moderated => q.irq_count = v & 0xffff,
            txq::Q_IRQ_TIMER if moderated => q.irq_timer = v & 0xf_ffff,
            txq::Q_WEIGHT if tx => q.weight = v & 0xffff,
            txq::Q_PRIORITY if tx => q.priority = v & 1,
            _ => {}
        }
    }

    fn reg_read(&self, a: u32) -> u32 {
        if let Some((q, off)) = Self::queue_window(a, rxq::BASE) {
            return Self::queue_read(self.rxq.get(q), off, false, self.cfg.irq_moderation);
        }
        if let Some((q, off)) = Self::queue_window(a, txq::BASE) {
            return Self::queue_read(self.txq.get(q), off, true, self.cfg.irq_moderation);
        }
        if (rxq::BASE..rxq::BASE + QUEUE_STRIDE).contains(&a) {
            return self.header("rxq", a - rxq::BASE, self.cfg.rx_queues);
        }
        if (txq::BASE..txq::BASE + QUEUE_STRIDE).contains(&a) {
            return self.header("txq", a - txq::BASE, self.cfg.tx_queues);
        }
        if (rxc::BASE..rxc::BASE + 0x1000).contains(&a) {
            return self.rxc_read(a - rxc::BASE);
        }
        if let (Some(e), true) = (self.rdma.as_ref(), (rdma::BASE..rdma::BASE + 0x1000).contains(&a)) {
            return e.reg_read(a - rdma::BASE);
        }
        if (stats::BASE..stats::BASE + 0x100).contains(&a) {
            let off = a - stats::BASE;
            return if off < 0x10 { self.header("stats", off, 0) } else { self.stats.get(&off).copied().unwrap_or(0) };
        }
        match a {
            global::ID | global::VERSION | global::NEXT => reset_of("global", ["ID", "VERSION", "NEXT"][(a / 4) as usize]),
            global::FEATURES => self.cfg.features(),
            global::QUEUES => self.cfg.tx_queues | (self.cfg.rx_queues << 8),
            global::CONTROL => self.control,
            global::MAC_ADDR_LO => self.mac_lo,
            global::MAC_ADDR_HI => self.mac_hi,
            global::MAX_FRAME_LEN => self.max_frame_len,
            global::IRQ_STATUS => self.irq_status,
            global::IRQ_MASK => self.irq_mask,
            global::CYCLE_COUNT => self.now as u32,
            global::DMA_ADDR_BITS => DMA_ADDR_BITS,
            _ => 0,
        }
    }

    fn reg_write(&mut self, a: u32, v: u32) {
        if let Some((q, off)) = Self::queue_window(a, rxq::BASE) {
            return Self::queue_write(self.rxq.get_mut(q), off, v, false, self.cfg.irq_moderation);
        }
        if let Some((q, off)) = Self::queue_window(a, txq::BASE) {
            return Self::queue_write(self.txq.get_mut(q), off, v, true, self.cfg.irq_moderation);
        }
        if (rxc::BASE..rxc::BASE + 0x1000).contains(&a) {
            return self.rxc_write(a - rxc::BASE, v);
        }
        if self.rdma.is_some() && (rdma::BASE..rdma::BASE + 0x1000).contains(&a) {
            let now = self.now;
            self.with_rdma(|e, host, _| e.reg_write(a - rdma::BASE, v, host, now));
            return;
        }
        match a {
            global::CONTROL => self.control = v & bits::CONTROL_LOOPBACK,
            global::MAC_ADDR_LO => self.mac_lo = v,
            global::MAC_ADDR_HI => self.mac_hi = v & 0xffff,
            global::MAX_FRAME_LEN => self.max_frame_len = v & 0xffff,
            global::IRQ_STATUS => self.irq_status &= !v,
            global::IRQ_MASK => self.irq_mask = v,
            _ => {}
        }
    }

    /// The exact-match table word at block offset `off` (2i: MAC_FILTER_LO[i], 2i + 1:
    /// MAC_FILTER_HI[i]), when the build has entry i (`MAC_FILTER_COUNT`).
    fn mac_filter_word(&self, off: u32) -> Option<usize> {
        let w = off.checked_sub(rxc::MAC_FILTER_LO)? / 4;
        (w / 2 < self.cfg.mac_filters).then_some(w as usize)
    }

    /// The RX classification block; RSS_RETA and MCAST_HASH are write-only.
    fn rxc_read(&self, off: u32) -> u32 {
        if let Some(w) = self.mac_filter_word(off) {
            return self.mac_filter_words[w];
        }
        match off {
            nic_regmap::HEADER_ID | nic_regmap::HEADER_VERSION | nic_regmap::HEADER_NEXT => self.header("rxc", off, 0),
            rxc::FILTER_CTRL => self.rxc.filter_ctrl_word(),
            rxc::MAC_FILTER_COUNT => self.cfg.mac_filters,
            rxc::RSS_CTRL => u32::from(self.rxc.rss_types),
            o if (rxc::RSS_KEY..rxc::RSS_KEY + 40).contains(&o) && self.cfg.rx_offload => self.rxc.rss_key_words()[((o - rxc::RSS_KEY) / 4) as usize],
            _ => 0,
        }
    }

    fn rxc_write(&mut self, off: u32, v: u32) {
        if let Some(w) = self.mac_filter_word(off) {
            self.mac_filter_words[w] = v & nic_regmap::bits_of("rxc", if w % 2 == 0 { "MAC_FILTER_LO" } else { "MAC_FILTER_HI" });
            let e = w / 2;
            self.rxc.exact[e] = MacFilterEntry::from_words(self.mac_filter_words[2 * e], self.mac_filter_words[2 * e + 1]);
            return;
        }
        match off {
            rxc::FILTER_CTRL => self.rxc.set_filter_ctrl_word(v),
            rxc::RSS_CTRL => self.rxc.rss_types = (v & 0x3f) as u8,
            o if (rxc::RSS_KEY..rxc::RSS_KEY + 40).contains(&o) && self.cfg.rx_offload => {
                let i = (o - rxc::RSS_KEY) as usize;
                self.rxc.rss_key[i..i + 4].copy_from_slice(&v.to_be_bytes());
            }
            o if (rxc::RSS_RETA..rxc::RSS_RETA + 128).contains(&o) => {
                let i = (o - rxc::RSS_RETA) as usize;
                self.rxc.reta[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            o if (rxc::MCAST_HASH..rxc::MCAST_HASH + 512).contains(&o) => self.rxc.mcast_hash[((o - rxc::MCAST_HASH) / 4) as usize] = v,
            _ => {}
        }
    }

    /// Whether any byte of `[addr, addr + len)` lies in allocated memory (for tests that
    /// check nothing was scribbled outside the driver's buffers).
    pub fn is_mapped(&mut self, addr: u64, len: usize) -> bool {
        self.mem.region(addr, len).is_some()
    }
}

impl Device for RefNic {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        self.advance(REG_ACCESS_CYCLES);
        Ok(self.reg_read(offset))
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        self.advance(REG_ACCESS_CYCLES);
        self.reg_write(offset, value);
        Ok(())
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let addr = self.mem.next;
        self.mem.next += (len.max(1) as u64).div_ceil(4096) * 4096 + 4096; // a guard page between regions
        self.mem.regions.insert(addr, vec![0; len]);
        Ok(DmaRegion { bus_addr: addr, len })
    }
    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        let m = self.mem.region(bus_addr, data.len()).ok_or(DeviceError::BadHostAccess { addr: bus_addr, len: data.len() })?;
        m.copy_from_slice(data);
        Ok(())
    }
    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let m = self.mem.region(bus_addr, buf.len()).ok_or(DeviceError::BadHostAccess { addr: bus_addr, len: buf.len() })?;
        buf.copy_from_slice(m);
        Ok(())
    }
    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        let start = self.now;
        loop {
            let v = self.irq_status & self.irq_mask & mask;
            if v != 0 {
                return v;
            }
            if self.now - start >= timeout_cycles {
                return 0;
            }
            self.advance(8);
        }
    }
    fn idle(&mut self, cycles: u64) {
        self.advance(cycles);
    }
    fn cycles(&self) -> u64 {
        self.now
    }
    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        std::mem::take(&mut self.faults)
    }
    fn free_dma(&mut self, region: DmaRegion) {
        self.mem.regions.remove(&region.bus_addr);
    }
}

impl WireAccess for RefNic {
    fn inject_rx(&mut self, frame_with_fcs: &[u8], error: bool) {
        self.rx_wire.push_back((frame_with_fcs.to_vec(), error));
    }
    fn take_tx_frames(&mut self) -> Vec<(Vec<u8>, bool)> {
        std::mem::take(&mut self.tx_wire)
    }
}

#[cfg(test)]
mod tests {
    //! Descriptor-level TX cases the driver never produces (docs/tx-offload.md,
    //! "Refused requests"), written into the ring by hand.
    use super::*;

    /// A bus address within the NIC's reach (below 2^DMA_ADDR_BITS) that no region maps.
    const UNMAPPED_BUS_ADDR: u64 = 0x0dea_d000_0000;

    const LOG2: u32 = 4;

    fn stat(nic: &RefNic, s: u32) -> u32 {
        nic.stats.get(&s).copied().unwrap_or(0)
    }

    /// TX queue 0 of a `full` model with a 16-entry ring; returns the ring's address.
    fn tx_queue0(nic: &mut RefNic) -> u64 {
        let ring = nic.alloc_dma(16 << LOG2).unwrap().bus_addr;
        let q = txq::BASE + QUEUE_STRIDE;
        nic.write32(q + txq::Q_BASE_LO, ring as u32).unwrap();
        nic.write32(q + txq::Q_BASE_HI, (ring >> 32) as u32).unwrap();
        nic.write32(q + txq::Q_SIZE_LOG2, LOG2).unwrap();
        nic.write32(q + txq::Q_CONTROL, bits::Q_CONTROL_ENABLE).unwrap();
        ring
    }

    fn data_desc(nic: &mut RefNic, ring: u64, i: u64, bytes: &[u8], flags: u16) {
        let buf = nic.alloc_dma(bytes.len()).unwrap().bus_addr;
        nic.mem_write(buf, bytes).unwrap();
        let mut d = [0u8; 16];
        d[desc::ADDR..desc::ADDR + 8].copy_from_slice(&buf.to_le_bytes());
        d[desc::LEN..desc::LEN + 2].copy_from_slice(&(bytes.len() as u16).to_le_bytes());
        d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
        nic.mem_write(ring + 16 * i, &d).unwrap();
    }

    fn ctx_desc(nic: &mut RefNic, ring: u64, i: u64, o: &TxOffload, extra: u16) {
        let mut d = o.context_descriptor();
        let f = u16::from_le_bytes([d[desc::FLAGS], d[desc::FLAGS + 1]]) | extra;
        d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&f.to_le_bytes());
        nic.mem_write(ring + 16 * i, &d).unwrap();
    }

    fn set_tail(nic: &mut RefNic, tail: u32) {
        nic.write32(txq::BASE + QUEUE_STRIDE + txq::Q_TAIL, tail).unwrap();
        nic.idle(5_000);
    }

    #[test]
    fn frame_aborted_mid_frame_leaves_with_a_bad_fcs_only_without_offload() {
        for offload in [false, true] {
            let mut nic = RefNic::new(RefNicConfig::full());
            let ring = tx_queue0(&mut nic);
            let frame = vec![0x5au8; 100];
            let mut i = 0;
            if offload {
                ctx_desc(&mut nic, ring, 0, &TxOffload { csum_start: 14, csum_offset: 10, generic_csum: true, ..TxOffload::default() }, 0);
                i = 1;
            }
            data_desc(&mut nic, ring, i, &frame, 0);
            let mut d = [0u8; 16];
            d[desc::ADDR..desc::ADDR + 8].copy_from_slice(&UNMAPPED_BUS_ADDR.to_le_bytes());
            d[desc::LEN..desc::LEN + 2].copy_from_slice(&64u16.to_le_bytes());
            d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&desc::TX_EOP.to_le_bytes());
            nic.mem_write(ring + 16 * (i + 1), &d).unwrap();
            set_tail(&mut nic, i as u32 + 2);
            let wire = nic.take_tx_frames();
            assert_eq!(nic.txq[0].error, QueueError::DataReadFault as u8);
            // TX_ERRORS counts aborted frames the MAC sends (the offload engine drops one
            // that asked for a checksum)
            assert_eq!(stat(&nic, stats::TX_ERRORS), u32::from(!offload));
            assert_eq!(stat(&nic, stats::TX_FRAMES), 0);
            if offload {
                assert!(wire.is_empty(), "a checksum frame aborted mid-frame was sent: {wire:?}");
            } else {
                assert_eq!(wire.len(), 1);
                let (w, error) = &wire[0];
                assert!(*error && w.len() == 104 && &w[..100] == &frame[..] && !fcs::residue_ok(w), "{wire:?}");
            }
        }
    }

    #[test]
    fn round_robin_goes_down_and_wraps() {
        let all = |_| true;
        assert_eq!(next_round_robin(None, 8, all), Some(7));
        assert_eq!(next_round_robin(Some(3), 8, all), Some(2));
        assert_eq!(next_round_robin(Some(0), 8, all), Some(7));
        assert_eq!(next_round_robin(Some(3), 8, |q| q == 3), Some(3));
        assert_eq!(next_round_robin(Some(3), 8, |q| q == 5 || q == 6), Some(6));
        assert_eq!(next_round_robin(Some(3), 8, |_| false), None);
    }
}
