//! The NIC: open (discover, reset, set up rings), burst API, interrupts, control, stats.

use crate::device::Device;
use crate::discovery::{discover, Layout};
use crate::error::{Dir, DriverError};
use crate::regs::{RegisterVerbs, POLL_INTERVAL_CYCLES};
use crate::ring::Ring;
use crate::rxq::{RxFrame, RxQueue};
use crate::stats::Stats;
use crate::txq::{queue_error, TxFrame, TxQueue};
use nic_regmap::{bits, global, txq, RX_IRQ_BASE};

/// Largest RX/TX buffer the driver allocates: a 9018-byte jumbo frame fits with room to spare.
pub const MAX_BUF_LEN: usize = 16 * 1024;
/// Default buffer size: holds the longest frame `MAX_FRAME_LEN`'s reset value allows.
pub const DEFAULT_BUF_LEN: usize = 9216;
/// Cycles the driver waits after disabling its queues before freeing their memory:
/// longer than a jumbo frame takes to drain (one 8-byte beat per cycle) plus DMA latency.
pub const QUIESCE_CYCLES: u64 = 2048;

/// How the driver learns that frames arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqMode {
    /// Vectors masked; `wait_rx` polls the ring and lets the device run between polls.
    Polling,
    /// `wait_rx` unmasks the queue's vector and sleeps in `Device::wait_irq`.
    Interrupt,
}

/// Interrupt moderation of one queue (`Q_IRQ_COUNT`, `Q_IRQ_TIMER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moderation {
    /// Raise the vector after this many completions (0 and 1: each).
    pub count: u32,
    /// ...or this many cycles after the first unsignalled completion (0: off).
    pub timer: u32,
}

impl Default for Moderation {
    fn default() -> Self {
        Moderation { count: 1, timer: 0 }
    }
}

/// What `Nic::open_with` sets up.
#[derive(Clone, Debug)]
pub struct NicConfig {
    /// log2 of the TX ring size (1..=15).
    pub tx_ring_log2: u32,
    /// log2 of the RX ring size (1..=15).
    pub rx_ring_log2: u32,
    /// Bytes per TX buffer: the longest segment `TxSegment::Bytes` may carry.
    pub tx_buf_len: usize,
    /// Bytes per RX buffer (the descriptor's buffer length), up to 16 KiB.
    pub rx_buf_len: usize,
    /// Post a buffer into every RX slot at open.
    pub rx_prefill: bool,
    /// Queues to enable per direction (at most what the hardware has).
    pub tx_queues: u32,
    pub rx_queues: u32,
    pub irq_mode: IrqMode,
    pub moderation: Moderation,
    /// Ask for a TX write-back (REPORT_STATUS) on every descriptor instead of once per
    /// burst, as some drivers do; costs write bandwidth, frees buffers sooner.
    pub tx_report_each_descriptor: bool,
    /// Longest wait for a queue to come up.
    pub enable_timeout_cycles: u64,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            tx_ring_log2: 8,
            rx_ring_log2: 8,
            tx_buf_len: DEFAULT_BUF_LEN,
            rx_buf_len: DEFAULT_BUF_LEN,
            rx_prefill: true,
            tx_queues: 1,
            rx_queues: 1,
            irq_mode: IrqMode::Polling,
            moderation: Moderation::default(),
            tx_report_each_descriptor: false,
            enable_timeout_cycles: 10_000,
        }
    }
}

/// Status of one queue (`Q_STATUS`, `Q_HEAD`, `Q_TAIL`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueState {
    pub active: bool,
    pub head: u16,
    pub tail: u16,
    /// The error that stopped the queue, as the driver reports it.
    pub error: Option<DriverError>,
}

/// A NIC driven through a [`Device`].
pub struct Nic<D: Device> {
    pub(crate) dev: D,
    pub(crate) layout: Layout,
    config: NicConfig,
    tx: Vec<TxQueue>,
    rx: Vec<RxQueue>,
    /// Shadows of the write-only classification tables (RSS_RETA, MCAST_HASH).
    pub(crate) rxc_shadow: crate::rxclass::Shadow,
    /// The RDMA verbs' state, once `rdma_open` has run.
    pub(crate) rdma: Option<crate::verbs::RdmaState>,
}

impl<D: Device> Nic<D> {
    /// Opens with the default configuration (one queue pair, 256-entry rings, polling).
    pub fn open(dev: D) -> Result<Nic<D>, DriverError> {
        Self::open_with(dev, NicConfig::default())
    }

    /// Discovers the blocks, quiesces every queue, masks and clears interrupts, then
    /// sets up and enables the configured queues.
    pub fn open_with(mut dev: D, config: NicConfig) -> Result<Nic<D>, DriverError> {
        let layout = discover(&mut dev)?;
        let ring = |log2: u32, what: &str| Ring::new(log2).ok_or_else(|| DriverError::InvalidConfig(format!("{what} ring size log2 {log2} not in 1..=15")));
        let tx_ring = ring(config.tx_ring_log2, "TX")?;
        let rx_ring = ring(config.rx_ring_log2, "RX")?;
        if config.tx_buf_len == 0 || config.tx_buf_len > MAX_BUF_LEN || config.rx_buf_len < 64 || config.rx_buf_len > MAX_BUF_LEN {
            return Err(DriverError::InvalidConfig(format!(
                "buffer sizes TX {} / RX {} bytes: TX must be 1..={MAX_BUF_LEN}, RX 64..={MAX_BUF_LEN}",
                config.tx_buf_len, config.rx_buf_len
            )));
        }
        if config.tx_queues == 0 || config.tx_queues > layout.tx_queues || config.rx_queues == 0 || config.rx_queues > layout.rx_queues {
            return Err(DriverError::InvalidConfig(format!(
                "{} TX / {} RX queues requested, the NIC has {} / {}",
                config.tx_queues, config.rx_queues, layout.tx_queues, layout.rx_queues
            )));
        }
        // Quiesce everything a previous user may have left running.
        for q in 0..layout.tx_queues {
            dev.set_reg32(layout.queue_reg(Dir::Tx, q, txq::Q_CONTROL), 0)?;
        }
        for q in 0..layout.rx_queues {
            dev.set_reg32(layout.queue_reg(Dir::Rx, q, txq::Q_CONTROL), 0)?;
        }
        dev.set_reg32(layout.global_reg(global::IRQ_MASK), 0)?;
        dev.set_reg32(layout.global_reg(global::IRQ_STATUS), u32::MAX)?;

        let mut nic = Nic { dev, layout, config, tx: Vec::new(), rx: Vec::new(), rxc_shadow: Default::default(), rdma: None };
        for q in 0..nic.config.tx_queues {
            let reg_base = nic.layout.queue_reg(Dir::Tx, q, 0);
            let mut t = TxQueue::new(&mut nic.dev, q, reg_base, tx_ring, nic.config.tx_buf_len, nic.layout.dma_addr_bits)?;
            t.report_each_descriptor = nic.config.tx_report_each_descriptor;
            t.features = nic.layout.features;
            t.start(&mut nic.dev, nic.config.enable_timeout_cycles)?;
            nic.tx.push(t);
            nic.set_irq_moderation(Dir::Tx, q, nic.config.moderation)?;
        }
        for q in 0..nic.config.rx_queues {
            let reg_base = nic.layout.queue_reg(Dir::Rx, q, 0);
            let mut r = RxQueue::new(&mut nic.dev, q, reg_base, rx_ring, nic.config.rx_buf_len as u16, nic.layout.dma_addr_bits)?;
            r.start(&mut nic.dev, nic.config.rx_prefill, nic.config.enable_timeout_cycles)?;
            nic.rx.push(r);
            nic.set_irq_moderation(Dir::Rx, q, nic.config.moderation)?;
        }
        if nic.layout.rxc.is_some() {
            // Whatever a previous user left: the classification registers at their reset
            // values, RSS over the queues opened (Linux's default table), and known
            // contents for the write-only tables whose shadows the driver keeps.
            nic.set_rx_filter_mode(crate::rxclass::RxFilterMode::RESET)?;
            for i in 0..nic.layout.mac_filters {
                nic.set_mac_filter(i, None)?;
            }
            if nic.has_rss() {
                nic.set_rss_key(&nic_regmap::rxc::RSS_DEFAULT_KEY)?;
                nic.set_rss_types(crate::rxclass::rss_types::ALL)?;
                nic.set_rss_spread(nic.config.rx_queues)?;
            }
            nic.set_mcast_hash(&[0; 128])?;
        }
        Ok(nic)
    }

    pub fn device(&self) -> &D {
        &self.dev
    }
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.dev
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn config(&self) -> &NicConfig {
        &self.config
    }
    /// Core clock cycles of the device so far.
    pub fn cycles(&self) -> u64 {
        self.dev.cycles()
    }

    // ---- TX -------------------------------------------------------------------------

    /// Queues frames on TX queue 0; see [`Nic::tx_burst_on`].
    pub fn tx_burst(&mut self, frames: &[TxFrame<'_>]) -> Result<usize, DriverError> {
        self.tx_burst_on(0, frames)
    }

    /// Queues as many whole frames as the ring has descriptors for, in order, and writes
    /// the doorbell once. Returns how many were queued: fewer than given when the ring is
    /// full (never blocks). The last descriptor of the burst asks for a status write-back.
    pub fn tx_burst_on(&mut self, q: u32, frames: &[TxFrame<'_>]) -> Result<usize, DriverError> {
        let t = self.tx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Tx, queue: q })?;
        t.burst(&mut self.dev, frames)
    }

    /// Frees what TX queue 0 has sent; returns the number of whole frames completed.
    pub fn tx_reap(&mut self) -> Result<usize, DriverError> {
        self.tx_reap_on(0)
    }

    pub fn tx_reap_on(&mut self, q: u32) -> Result<usize, DriverError> {
        let t = self.tx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Tx, queue: q })?;
        t.reap(&mut self.dev)
    }

    /// Descriptors posted on a TX queue and not yet reaped.
    pub fn tx_in_flight(&self, q: u32) -> usize {
        self.tx.get(q as usize).map_or(0, |t| t.in_flight())
    }

    /// Free TX descriptors (without reaping first).
    pub fn tx_free(&self, q: u32) -> usize {
        self.tx.get(q as usize).map_or(0, |t| t.free())
    }

    /// Descriptors in a TX ring.
    pub fn tx_ring_size(&self, q: u32) -> usize {
        self.tx.get(q as usize).map_or(0, |t| usize::from(t.ring.size()))
    }

    /// Polls until every TX descriptor is reaped. Returns frames completed.
    pub fn tx_flush(&mut self, timeout_cycles: u64) -> Result<usize, DriverError> {
        let start = self.dev.cycles();
        let mut frames = 0;
        for q in 0..self.tx.len() as u32 {
            while self.tx_in_flight(q) > 0 {
                frames += self.tx_reap_on(q)?;
                if self.tx_in_flight(q) == 0 {
                    break;
                }
                let spent = self.dev.cycles() - start;
                if spent > timeout_cycles {
                    let left = self.tx_in_flight(q);
                    let regs = match self.queue_state(Dir::Tx, q) {
                        Ok(s) => format!("Q_HEAD {}, Q_TAIL {}, {}", s.head, s.tail, if s.active { "active" } else { "not active" }),
                        Err(e) => e.to_string(),
                    };
                    let rs = self.tx[q as usize].pending_report_status();
                    let hint = match rs {
                        Some(i) => format!("; still waiting for the DONE write-back of descriptor {i} (REPORT_STATUS)"),
                        None => String::new(),
                    };
                    return Err(DriverError::Timeout { what: format!("TX queue {q} to drain ({left} descriptors left; {regs}{hint})"), cycles: spent });
                }
                self.dev.idle(POLL_INTERVAL_CYCLES * 4);
            }
        }
        Ok(frames)
    }

    /// Waits until the oldest burst in flight on TX queue `q` is complete (its
    /// REPORT_STATUS descriptor written back, so `tx_reap_on` frees it), or
    /// `timeout_cycles` pass; returns whether it is (true at once when nothing is in
    /// flight). In interrupt mode the TX vector is unmasked for the wait, as in
    /// [`Nic::wait_rx`] (the write-back may land a few cycles after the vector); in
    /// polling mode the descriptor is polled with the device idling in between.
    pub fn wait_tx_on(&mut self, q: u32, timeout_cycles: u64) -> Result<bool, DriverError> {
        self.check_exists(Dir::Tx, q)?;
        let start = self.dev.cycles();
        if self.tx[q as usize].oldest_burst_done(&mut self.dev)? {
            return Ok(true);
        }
        if self.config.irq_mode == IrqMode::Interrupt {
            let vector = 1u32 << q;
            let status = self.layout.global_reg(global::IRQ_STATUS);
            let mask = self.layout.global_reg(global::IRQ_MASK);
            self.dev.set_reg32(status, vector)?;
            if self.tx[q as usize].oldest_burst_done(&mut self.dev)? {
                return Ok(true);
            }
            self.dev.set_flags32(mask, vector)?;
            self.dev.wait_irq(vector, timeout_cycles);
            self.dev.clear_flags32(mask, vector)?;
            self.dev.set_reg32(status, vector)?;
        }
        loop {
            if self.tx[q as usize].oldest_burst_done(&mut self.dev)? {
                return Ok(true);
            }
            if self.dev.cycles() - start >= timeout_cycles {
                self.check_queue(Dir::Tx, q)?;
                return Ok(false);
            }
            self.dev.idle(POLL_INTERVAL_CYCLES);
        }
    }

    /// [`Nic::wait_tx_on`] for TX queue 0.
    pub fn wait_tx(&mut self, timeout_cycles: u64) -> Result<bool, DriverError> {
        self.wait_tx_on(0, timeout_cycles)
    }

    // ---- RX -------------------------------------------------------------------------

    /// Takes up to `max` frames from RX queue 0 and reposts their buffers.
    pub fn rx_burst(&mut self, max: usize) -> Result<Vec<RxFrame>, DriverError> {
        self.rx_burst_on(0, max)
    }

    /// Takes up to `max` frames and reposts buffers (one doorbell write). An empty result
    /// with the queue stopped by an error is reported as `DriverError::QueueStopped`.
    pub fn rx_burst_on(&mut self, q: u32, max: usize) -> Result<Vec<RxFrame>, DriverError> {
        let r = self.rx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Rx, queue: q })?;
        r.burst(&mut self.dev, max, true)
    }

    /// Takes up to `max_per_queue` frames from every open RX queue, in queue order
    /// (what a NAPI poll over all vectors does). A queue that reports an error (stopped)
    /// does not cost the others their frames: the error is returned only when no queue
    /// had a frame, and [`Nic::queue_state`] names the stopped queue either way.
    pub fn rx_burst_all(&mut self, max_per_queue: usize) -> Result<Vec<RxFrame>, DriverError> {
        let mut out = Vec::new();
        let mut first_error = None;
        for q in 0..self.rx.len() as u32 {
            match self.rx_burst_on(q, max_per_queue) {
                Ok(frames) => out.extend(frames),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) if out.is_empty() => Err(e),
            _ => Ok(out),
        }
    }

    /// `Q_DROPS` of RX queue `q`: frames dropped because it was stopped or had no buffer.
    pub fn rx_queue_drops(&mut self, q: u32) -> Result<u32, DriverError> {
        if q >= self.layout.rx_queues {
            return Err(DriverError::NoSuchQueue { dir: Dir::Rx, queue: q });
        }
        self.dev.get_reg32(self.layout.queue_reg(Dir::Rx, q, nic_regmap::rxq::Q_DROPS))
    }

    /// Posts pool buffers into every free RX slot.
    pub fn rx_refill(&mut self, q: u32) -> Result<usize, DriverError> {
        let r = self.rx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Rx, queue: q })?;
        r.refill(&mut self.dev)
    }

    /// Posts one buffer the caller owns (zero copy into the caller's memory). The driver
    /// does not check the address: a bad one stops the queue with a write fault.
    pub fn rx_post_external(&mut self, q: u32, bus_addr: u64, len: u16) -> Result<(), DriverError> {
        let r = self.rx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Rx, queue: q })?;
        r.post_external(&mut self.dev, bus_addr, len)
    }

    /// RX buffers posted and not yet returned.
    pub fn rx_posted(&self, q: u32) -> usize {
        self.rx.get(q as usize).map_or(0, |r| r.posted())
    }

    /// Whether RX queue `q` has a completed frame waiting (reads memory only).
    pub fn rx_ready(&mut self, q: u32) -> Result<bool, DriverError> {
        let r = self.rx.get(q as usize).ok_or(DriverError::NoSuchQueue { dir: Dir::Rx, queue: q })?;
        r.ready(&mut self.dev)
    }

    /// Waits until RX queue 0 has a frame or `timeout_cycles` pass; returns whether one is
    /// ready. In interrupt mode the queue's vector is unmasked for the wait, the wait
    /// happens in `Device::wait_irq`, and the vector is cleared (W1C) and masked again
    /// afterwards. In polling mode the ring is polled with the device idling in between.
    pub fn wait_rx(&mut self, timeout_cycles: u64) -> Result<bool, DriverError> {
        self.wait_rx_on(0, timeout_cycles)
    }

    pub fn wait_rx_on(&mut self, q: u32, timeout_cycles: u64) -> Result<bool, DriverError> {
        self.check_exists(Dir::Rx, q)?;
        if self.rx_ready(q)? {
            return Ok(true);
        }
        match self.config.irq_mode {
            IrqMode::Interrupt => {
                let vector = 1u32 << (RX_IRQ_BASE + q);
                let status = self.layout.global_reg(global::IRQ_STATUS);
                let mask = self.layout.global_reg(global::IRQ_MASK);
                // Clear a stale vector, then look again: a frame completed between the first
                // look and the clear would otherwise wait for the next one.
                self.dev.set_reg32(status, vector)?;
                if self.rx_ready(q)? {
                    return Ok(true);
                }
                self.dev.set_flags32(mask, vector)?;
                let fired = self.dev.wait_irq(vector, timeout_cycles);
                self.dev.clear_flags32(mask, vector)?;
                self.dev.set_reg32(status, vector)?;
                let ready = self.rx_ready(q)?;
                if fired & vector != 0 && !ready {
                    // A vector without a frame: the queue may have stopped.
                    self.check_queue(Dir::Rx, q)?;
                }
                Ok(ready)
            }
            IrqMode::Polling => {
                let start = self.dev.cycles();
                loop {
                    if self.rx_ready(q)? {
                        return Ok(true);
                    }
                    if self.dev.cycles() - start >= timeout_cycles {
                        self.check_queue(Dir::Rx, q)?;
                        return Ok(false);
                    }
                    self.dev.idle(POLL_INTERVAL_CYCLES);
                }
            }
        }
    }

    /// Receives until `count` frames arrived or `timeout_cycles` passed without progress,
    /// using `wait_rx` between bursts.
    pub fn rx_collect(&mut self, count: usize, timeout_cycles: u64) -> Result<Vec<RxFrame>, DriverError> {
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let got = self.rx_burst(count - out.len())?;
            if got.is_empty() && !self.wait_rx(timeout_cycles)? {
                break;
            }
            out.extend(got);
        }
        Ok(out)
    }

    // ---- interrupts -----------------------------------------------------------------

    pub fn irq_mode(&self) -> IrqMode {
        self.config.irq_mode
    }

    /// Switches between interrupt and polling mode; both leave the vectors masked
    /// between waits.
    pub fn set_irq_mode(&mut self, mode: IrqMode) -> Result<(), DriverError> {
        self.config.irq_mode = mode;
        let mask = self.layout.global_reg(global::IRQ_MASK);
        self.dev.set_reg32(mask, 0)
    }

    /// Sets interrupt moderation of one queue. A build without moderation
    /// (`FEATURES.IRQ_MODERATION` clear, as `small`) raises the vector at every completion:
    /// that (`Moderation::default()`, or a count of 0) is accepted with nothing to write,
    /// anything else refused.
    pub fn set_irq_moderation(&mut self, dir: Dir, q: u32, m: Moderation) -> Result<(), DriverError> {
        self.check_exists(dir, q)?;
        if self.layout.features & nic_regmap::bits::FEATURES_IRQ_MODERATION == 0 {
            if m.count <= 1 && m.timer == 0 {
                return Ok(());
            }
            return Err(DriverError::InvalidConfig(format!(
                "{dir} queue {q}: interrupt moderation of {} completions / {} cycles, but this NIC has none (FEATURES.IRQ_MODERATION clear): every completion raises the vector",
                m.count, m.timer
            )));
        }
        // the widths of Q_IRQ_COUNT.COUNT and Q_IRQ_TIMER.CYCLES
        if m.count > 0xffff || m.timer > 0xf_ffff {
            return Err(DriverError::InvalidConfig(format!(
                "{dir} queue {q}: interrupt moderation of {} completions / {} cycles; the NIC counts at most 65535 / 1048575",
                m.count, m.timer
            )));
        }
        self.dev.set_reg32(self.layout.queue_reg(dir, q, txq::Q_IRQ_COUNT), m.count)?;
        self.dev.set_reg32(self.layout.queue_reg(dir, q, txq::Q_IRQ_TIMER), m.timer)
    }

    /// TX scheduler class of queue `q` (docs/tx-offload.md, Scheduler): a deficit
    /// round-robin quantum in bytes, and whether it is in the strict-priority class.
    pub fn set_tx_schedule(&mut self, q: u32, weight: u16, strict: bool) -> Result<(), DriverError> {
        self.check_exists(Dir::Tx, q)?;
        if weight == 0 {
            return Err(DriverError::InvalidConfig(format!("TX queue {q}: a scheduler weight of 0 bytes would never send")));
        }
        self.dev.set_reg32(self.layout.queue_reg(Dir::Tx, q, txq::Q_WEIGHT), u32::from(weight))?;
        self.dev.set_reg32(self.layout.queue_reg(Dir::Tx, q, txq::Q_PRIORITY), u32::from(strict))
    }

    /// `(weight, strict)` of TX queue `q`.
    pub fn tx_schedule(&mut self, q: u32) -> Result<(u16, bool), DriverError> {
        self.check_exists(Dir::Tx, q)?;
        let w = self.dev.get_reg32(self.layout.queue_reg(Dir::Tx, q, txq::Q_WEIGHT))?;
        let p = self.dev.get_reg32(self.layout.queue_reg(Dir::Tx, q, txq::Q_PRIORITY))?;
        Ok((w as u16, p & 1 != 0))
    }

    /// Pending vectors (`IRQ_STATUS`).
    pub fn irq_status(&mut self) -> Result<u32, DriverError> {
        self.dev.get_reg32(self.layout.global_reg(global::IRQ_STATUS))
    }

    // ---- queue state and recovery ---------------------------------------------------

    fn check_exists(&self, dir: Dir, q: u32) -> Result<(), DriverError> {
        let n = match dir {
            Dir::Tx => self.tx.len(),
            Dir::Rx => self.rx.len(),
        };
        if (q as usize) < n {
            Ok(())
        } else {
            Err(DriverError::NoSuchQueue { dir, queue: q })
        }
    }

    /// Reads a queue's status registers.
    pub fn queue_state(&mut self, dir: Dir, q: u32) -> Result<QueueState, DriverError> {
        self.check_exists(dir, q)?;
        let status = self.dev.get_reg32(self.layout.queue_reg(dir, q, txq::Q_STATUS))?;
        let head = self.dev.get_reg32(self.layout.queue_reg(dir, q, txq::Q_HEAD))? as u16;
        let tail = self.dev.get_reg32(self.layout.queue_reg(dir, q, txq::Q_TAIL))? as u16;
        Ok(QueueState { active: status & bits::Q_STATUS_ACTIVE != 0, head, tail, error: queue_error(dir, q, status) })
    }

    /// `Ok` while the queue runs; its error once the NIC stopped it.
    pub fn check_queue(&mut self, dir: Dir, q: u32) -> Result<(), DriverError> {
        match self.queue_state(dir, q)?.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Recovers a queue (typically after an error): disables it, which clears the error
    /// and the indices, takes every buffer back, and starts it again. Frames in flight are
    /// lost; returns how many TX frames were (0 for RX).
    pub fn restart_queue(&mut self, dir: Dir, q: u32) -> Result<usize, DriverError> {
        let timeout = self.config.enable_timeout_cycles;
        match dir {
            Dir::Tx => {
                let t = self.tx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir, queue: q })?;
                let lost = t.stop(&mut self.dev)?;
                t.start(&mut self.dev, timeout)?;
                Ok(lost)
            }
            Dir::Rx => {
                let fill = self.config.rx_prefill;
                let r = self.rx.get_mut(q as usize).ok_or(DriverError::NoSuchQueue { dir, queue: q })?;
                r.stop(&mut self.dev)?;
                r.start(&mut self.dev, fill, timeout)?;
                Ok(0)
            }
        }
    }

    // ---- control and statistics -----------------------------------------------------

    pub fn stats(&mut self) -> Result<Stats, DriverError> {
        Stats::read(&mut self.dev, &self.layout)
    }

    /// `CONTROL.LOOPBACK`: TX fed back into RX inside the NIC, the wire idle.
    pub fn set_loopback(&mut self, on: bool) -> Result<(), DriverError> {
        let reg = self.layout.global_reg(global::CONTROL);
        if on {
            self.dev.set_flags32(reg, bits::CONTROL_LOOPBACK)
        } else {
            self.dev.clear_flags32(reg, bits::CONTROL_LOOPBACK)
        }
    }

    pub fn loopback(&mut self) -> Result<bool, DriverError> {
        Ok(self.dev.get_reg32(self.layout.global_reg(global::CONTROL))? & bits::CONTROL_LOOPBACK != 0)
    }

    /// Station address (byte 0 is the first byte on the wire).
    pub fn set_mac(&mut self, mac: [u8; 6]) -> Result<(), DriverError> {
        self.dev.set_reg32(self.layout.global_reg(global::MAC_ADDR_LO), u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]))?;
        self.dev.set_reg32(self.layout.global_reg(global::MAC_ADDR_HI), u32::from(u16::from_le_bytes([mac[4], mac[5]])))
    }

    pub fn mac(&mut self) -> Result<[u8; 6], DriverError> {
        let lo = self.dev.get_reg32(self.layout.global_reg(global::MAC_ADDR_LO))?.to_le_bytes();
        let hi = self.dev.get_reg32(self.layout.global_reg(global::MAC_ADDR_HI))?.to_le_bytes();
        Ok([lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]])
    }

    /// Longest frame accepted, FCS included (64..=65535).
    pub fn set_max_frame_len(&mut self, len: u32) -> Result<(), DriverError> {
        if !(64..=65535).contains(&len) {
            return Err(DriverError::InvalidConfig(format!("MAX_FRAME_LEN {len} not in 64..=65535")));
        }
        self.dev.set_reg32(self.layout.global_reg(global::MAX_FRAME_LEN), len)
    }

    pub fn max_frame_len(&mut self) -> Result<u32, DriverError> {
        self.dev.get_reg32(self.layout.global_reg(global::MAX_FRAME_LEN))
    }

    /// The free-running `CYCLE_COUNT` register.
    pub fn hw_cycle_count(&mut self) -> Result<u32, DriverError> {
        self.dev.get_reg32(self.layout.global_reg(global::CYCLE_COUNT))
    }

    /// The DMA memory the driver gave the NIC, named (for diagnostics).
    pub fn dma_regions(&self) -> Vec<(String, crate::device::DmaRegion)> {
        let mut v = Vec::new();
        for t in &self.tx {
            let [ring, bufs] = t.regions();
            v.push((format!("TX{} ring", t.id), ring));
            v.push((format!("TX{} buffers", t.id), bufs));
        }
        for r in &self.rx {
            let [ring, bufs] = r.regions();
            v.push((format!("RX{} ring", r.id), ring));
            v.push((format!("RX{} buffers", r.id), bufs));
        }
        v
    }

    /// Disables every queue and frees the DMA memory (also done on drop).
    fn shutdown(&mut self) -> Result<(), DriverError> {
        for i in 0..self.tx.len() {
            self.tx[i].stop(&mut self.dev)?;
        }
        for i in 0..self.rx.len() {
            self.rx[i].stop(&mut self.dev)?;
        }
        self.dev.set_reg32(self.layout.global_reg(global::IRQ_MASK), 0)?;
        // A frame being written when its queue was disabled may still be in flight:
        // let it land before the memory is unmapped.
        if !self.tx.is_empty() || !self.rx.is_empty() {
            self.dev.idle(QUIESCE_CYCLES);
        }
        for t in self.tx.drain(..) {
            t.regions().into_iter().for_each(|r| self.dev.free_dma(r));
        }
        for r in self.rx.drain(..) {
            r.regions().into_iter().for_each(|g| self.dev.free_dma(g));
        }
        Ok(())
    }

    /// Shuts the NIC down, reporting a failure that `drop` would swallow.
    pub fn close(mut self) -> Result<(), DriverError> {
        self.shutdown()
    }
}

impl<D: Device> Drop for Nic<D> {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}
