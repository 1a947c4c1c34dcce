//! `nic tap`: two Linux TAP interfaces joined through two simulated NICs and the wire
//! between them, so the kernel's own traffic crosses the RTL (docs/driver-dev.md).
//!
//! ```text
//!  kernel ─ TAP A ─ driver ─ NIC 1 (RTL) ═══ wire ═══ NIC 2 (RTL) ─ driver ─ TAP B ─ kernel
//! ```
//!
//! Each side is what a Linux NIC driver does for its stack: a frame the kernel sends on
//! the TAP comes with a virtio-net header holding its offload request, which becomes the
//! NIC's context descriptor (`CHECKSUM_PARTIAL` → generic checksum, a TCP super-frame →
//! TSO with the stack's MSS); the frame goes out on the TX queue of its flow. A frame
//! the NIC receives goes to the kernel with `DATA_VALID` when the NIC verified its TCP
//! or UDP checksum. Simulated time advances only while something is in flight.

pub mod bench;
pub mod dev;

use crate::loopback::{open_device, SimArgs};
use crate::tx::{flow_hash, queue_of, tx_frame, Handed, Request};
use crate::stop::{catch_stop_signals, request_stop, stopped};
use crate::HwArg;
use anyhow::{bail, Context, Result};
use clap::Args;
use dev::{Offloads, TapDevice};
use nic_driver::{DriverError, MacFilter, Nic, NicConfig, RxFilterMode, RxFrame, Stats, TxOffload};
use nic_regmap::desc;
use nic_testbench::backend::TestDevice;
use nic_testbench::pcap::{PcapWriter, LINKTYPE_ETHERNET};
use nic_testbench::txoffload::{self, parse_headers};
use nic_testbench::wire::ethernet::EthernetAddress;
use nic_testbench::wire::virtio_net::{self, VirtioNetHeader, VirtioNetRepr};
use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct TapArgs {
    /// The two interfaces to create, A (NIC 1's host) and B (NIC 2's host), e.g.
    /// `nic0,nic1`.
    #[arg(long, value_name = "A,B", value_parser = parse_names)]
    names: Names,
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// Write every frame that crosses the wire, both ways, to FILE (pcap, without FCS,
    /// timestamps in simulated time).
    #[arg(long, value_name = "FILE")]
    pcap: Option<PathBuf>,
    /// Write NIC 1's waveform (FST) to FILE (RTL backend; slow).
    #[arg(long, value_name = "FILE")]
    wave: Option<PathBuf>,
    /// Write NIC 2's waveform (FST) to FILE.
    #[arg(long, value_name = "FILE")]
    wave_b: Option<PathBuf>,
    /// Seconds between two live counter lines (`stats ...`).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = parse_seconds)]
    stats_every: f64,
    /// Do not offer TSO to the kernels (checksum offload stays where the NIC has it).
    #[arg(long)]
    no_tso: bool,
    /// Do not offer checksum offload (nor TSO) to the kernels.
    #[arg(long)]
    no_csum: bool,
    #[command(flatten)]
    sim: SimArgs,
}

#[derive(Clone, Debug)]
pub struct Names(pub String, pub String);

fn parse_names(s: &str) -> Result<Names, String> {
    let Some((a, b)) = s.split_once(',') else {
        return Err(format!("`{s}`: give two interface names separated by a comma, e.g. nic0,nic1"));
    };
    for n in [a, b] {
        if n.is_empty() || n.len() > dev::MAX_NAME_LEN {
            return Err(format!("`{n}`: an interface name has 1 to {} bytes", dev::MAX_NAME_LEN));
        }
        if n == "." || n == ".." || n.chars().any(|c| c == '/' || c == ':' || c == ',' || c.is_whitespace() || c.is_control()) {
            return Err(format!("`{n}` is not a valid interface name (no '/', ':', ',' or spaces)"));
        }
    }
    if a == b {
        return Err(format!("both interfaces are named `{a}`"));
    }
    Ok(Names(a.to_string(), b.to_string()))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    crate::parse_seconds_in(s, 0.05..=3600.0)
}

/// Cycles both NICs run between two passes over the TAPs and the wire.
const STEP: u64 = 64;
/// Cycles without anything moving after which simulated time stops until a kernel sends
/// (enough for a jumbo frame to cross the RX pipeline and be written to host memory).
const QUIET_CYCLES: u64 = 16_384;
/// Frames taken from a kernel and not yet on a TX ring, at most (beyond it the kernel's
/// own queue holds them).
const BACKLOG: usize = 256;
/// Frames taken from each RX queue per pass.
const RX_BURST: usize = 64;

/// What one side saw, counted by the bridge (the NIC counts in hardware, `Stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames (and their bytes, without the virtio-net header) the kernel sent.
    pub kernel_tx_frames: u64,
    pub kernel_tx_bytes: u64,
    /// Of those: TSO super-frames, the largest one, and frames with a checksum request.
    pub tso_frames: u64,
    pub tso_largest: u64,
    pub csum_frames: u64,
    /// Frames whose virtio-net header no NIC serves, or whose request contradicts their
    /// headers (counted and dropped).
    pub malformed: u64,
    /// Frames the driver refused (`DriverError::InvalidFrame`: counted and dropped).
    pub refused: u64,
    /// Frames handed to the kernel, their bytes, and how many with `DATA_VALID`.
    pub kernel_rx_frames: u64,
    pub kernel_rx_bytes: u64,
    pub data_valid: u64,
    /// Frames the kernel would not take (interface down).
    pub kernel_rx_refused: u64,
    pub kernel_rx_refused_bytes: u64,
}

/// One host: the kernel's interface and the NIC behind it.
struct Host {
    tap: TapDevice,
    nic: Nic<Box<dyn TestDevice>>,
    /// Frames from the kernel per TX queue, not yet on the ring.
    backlog: Vec<VecDeque<Handed>>,
    count: Counters,
    warned_malformed: bool,
}

impl Host {
    fn backlog_len(&self) -> usize {
        self.backlog.iter().map(VecDeque::len).sum()
    }

    fn tx_in_flight(&self) -> bool {
        (0..self.nic.config().tx_queues).any(|q| self.nic.tx_in_flight(q) > 0)
    }

    /// Takes what the kernel sent, up to the backlog's room. Returns frames taken.
    fn take_from_kernel(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut taken = 0;
        while self.backlog_len() < BACKLOG {
            let Some(n) = self.tap.recv(buf).with_context(|| format!("reading from {}", self.tap.name()))? else { break };
            taken += 1;
            let frame = &buf[virtio_net::HEADER_LEN.min(n)..n];
            self.count.kernel_tx_frames += 1;
            self.count.kernel_tx_bytes += frame.len() as u64;
            match hand_over(&buf[..n]) {
                Ok(h) => {
                    match h.request {
                        Request::Tso => {
                            self.count.tso_frames += 1;
                            self.count.tso_largest = self.count.tso_largest.max(h.bytes.len() as u64);
                        }
                        Request::Csum => self.count.csum_frames += 1,
                        Request::None => {}
                    }
                    let queues = self.nic.config().tx_queues;
                    let q = if queues > 1 { queue_of(flow_hash(&h.bytes), queues) } else { 0 };
                    self.backlog[q as usize].push_back(h);
                }
                Err(why) => {
                    self.count.malformed += 1;
                    if !self.warned_malformed {
                        eprintln!("warning: {}: dropped a frame the NIC cannot serve: {why} (further ones are only counted)", self.tap.name());
                        self.warned_malformed = true;
                    }
                }
            }
        }
        Ok(taken)
    }

    /// Puts the backlog on the TX rings, as much as fits. Returns frames posted.
    fn post(&mut self) -> Result<usize> {
        let mut posted = 0;
        for q in 0..self.backlog.len() {
            if self.nic.tx_in_flight(q as u32) > 0 {
                self.nic.tx_reap_on(q as u32).with_context(|| format!("TX queue {q} of {}'s NIC", self.tap.name()))?;
            }
            while !self.backlog[q].is_empty() {
                let frames: Vec<_> = self.backlog[q].iter().take(32).map(tx_frame).collect();
                match self.nic.tx_burst_on(q as u32, &frames) {
                    Ok(0) => break,
                    Ok(n) => {
                        drop(frames);
                        self.backlog[q].drain(..n);
                        posted += n;
                    }
                    Err(DriverError::InvalidFrame { index, reason }) => {
                        drop(frames);
                        self.count.refused += 1;
                        eprintln!("warning: {}: the driver refused a frame: {reason}", self.tap.name());
                        self.backlog[q].remove(index);
                    }
                    Err(e) => return Err(e).with_context(|| format!("TX queue {q} of {}'s NIC", self.tap.name())),
                }
            }
        }
        Ok(posted)
    }

    /// Hands what the NIC received to the kernel. Returns frames handed.
    fn deliver(&mut self) -> Result<usize> {
        let frames = self.nic.rx_burst_all(RX_BURST).with_context(|| format!("RX of {}'s NIC", self.tap.name()))?;
        for f in &frames {
            let repr = rx_header(f);
            if repr == VirtioNetRepr::DataValid {
                self.count.data_valid += 1;
            }
            if self.tap.send(&repr.to_bytes(), &f.data).with_context(|| format!("writing to {}", self.tap.name()))? {
                self.count.kernel_rx_frames += 1;
                self.count.kernel_rx_bytes += f.data.len() as u64;
            } else {
                self.count.kernel_rx_refused += 1;
                self.count.kernel_rx_refused_bytes += f.data.len() as u64;
            }
        }
        Ok(frames.len())
    }
}

/// The driver's request for a frame as a TAP hands it over (virtio-net header first):
/// `CHECKSUM_PARTIAL` becomes a generic checksum, a TCP super-frame TSO with the
/// stack's MSS and the header length read from the frame itself.
pub fn hand_over(with_header: &[u8]) -> Result<Handed, String> {
    let h = VirtioNetHeader::new_checked(with_header).map_err(|e| format!("virtio-net header: {e}"))?;
    let repr = VirtioNetRepr::parse(&h).map_err(|_| format!("virtio-net header {:02x?} asks for an offload no NIC serves", &with_header[..virtio_net::HEADER_LEN]))?;
    let frame = h.payload();
    let handed = |offload: Option<TxOffload>, request| Handed { bytes: frame.to_vec(), offload, request, trimmed: false };
    match repr {
        VirtioNetRepr::Plain | VirtioNetRepr::DataValid => Ok(handed(None, Request::None)),
        VirtioNetRepr::Csum { csum_start, csum_offset } => {
            if usize::from(csum_start) + usize::from(csum_offset) + 2 > frame.len() {
                return Err(format!("checksum at {csum_start}+{csum_offset} lies beyond the {}-byte frame", frame.len()));
            }
            Ok(handed(Some(TxOffload::generic(csum_start, csum_offset)), Request::Csum))
        }
        VirtioNetRepr::Tso { ipv6, gso_size, csum_start, .. } => {
            let p = parse_headers(frame).ok_or("a TSO super-frame whose headers do not parse as TCP over IPv4 or IPv6")?;
            if p.udp || p.ipv6 != ipv6 || p.l4 != usize::from(csum_start) || p.ip_end != frame.len() {
                return Err(format!(
                    "a TSO request ({}, TCP at {csum_start}) that does not match its frame ({}, {} at {}, IP packet ends at {} of {})",
                    if ipv6 { "IPv6" } else { "IPv4" },
                    if p.ipv6 { "IPv6" } else { "IPv4" },
                    if p.udp { "UDP" } else { "TCP" },
                    p.l4,
                    p.ip_end,
                    frame.len()
                ));
            }
            if p.hdr_len() > txoffload::MAX_TSO_HDR_LEN {
                return Err(format!("TSO headers of {} bytes (the NIC takes {})", p.hdr_len(), txoffload::MAX_TSO_HDR_LEN));
            }
            let o = TxOffload::tcp_tso(p.l3 as u16, p.l4 as u16, p.hdr_len() as u16, gso_size, ipv6);
            Ok(handed(Some(o), Request::Tso))
        }
    }
}

/// The header a received frame goes to the kernel with: `DATA_VALID` where the NIC
/// verified its TCP or UDP checksum (Linux `CHECKSUM_UNNECESSARY`), else nothing, and
/// the kernel checks it itself.
pub fn rx_header(f: &RxFrame) -> VirtioNetRepr {
    if f.l4_csum() == desc::CSUM_GOOD {
        VirtioNetRepr::DataValid
    } else {
        VirtioNetRepr::Plain
    }
}

/// The hardware counters that matter here, kept in 64 bits: the statistics block's
/// 32-bit counters wrap after 4 GiB, so each read adds what changed since the last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HwCounts {
    pub tx_frames: u64,
    pub tx_bytes: u64,
    pub tx_tso_segments: u64,
    pub tx_offload_errors: u64,
    pub tx_errors: u64,
    pub rx_frames: u64,
    pub rx_bytes: u64,
    pub rx_drops: u64,
    pub rx_csum_l4_bad: u64,
}

impl HwCounts {
    fn add(&mut self, d: &Stats) {
        self.tx_frames += u64::from(d.tx_frames);
        self.tx_bytes += u64::from(d.tx_bytes);
        self.tx_tso_segments += u64::from(d.tx_tso_segments);
        self.tx_offload_errors += u64::from(d.tx_offload_errors);
        self.tx_errors += u64::from(d.tx_errors);
        self.rx_frames += u64::from(d.rx_frames);
        self.rx_bytes += u64::from(d.rx_bytes);
        self.rx_drops += u64::from(d.rx_drops());
        self.rx_csum_l4_bad += u64::from(d.rx_csum_l4_bad);
    }
}

/// What one side publishes for a `stats` line.
#[derive(Clone, Copy, Debug, Default)]
struct Snapshot {
    /// The request it answers (see `Side::publish`).
    generation: u64,
    count: Counters,
    hw: HwCounts,
    wire_tx_frames: u64,
    cycles: u64,
    idle: bool,
}

/// A frame one NIC put on the wire (FCS included) and its error flag.
type WireBatch = Vec<(Vec<u8>, bool)>;

/// An eventfd: the peer's way of waking a side that sleeps in poll(2).
struct Waker(std::os::fd::OwnedFd);

impl Waker {
    fn new() -> Result<Waker> {
        // SAFETY: plain eventfd(2).
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            bail!("eventfd: {}", std::io::Error::last_os_error());
        }
        // SAFETY: we own the new descriptor.
        Ok(Waker(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) }))
    }
    fn raw(&self) -> i32 {
        std::os::fd::AsRawFd::as_raw_fd(&self.0)
    }
    fn wake(&self) {
        let one = 1u64;
        // SAFETY: writes 8 bytes from a live u64 (a full counter only means it is awake).
        unsafe { libc::write(self.raw(), (&one as *const u64).cast(), 8) };
    }
    fn clear(&self) {
        let mut v = 0u64;
        // SAFETY: reads 8 bytes into a live u64 (EAGAIN when nothing was written).
        unsafe { libc::read(self.raw(), (&mut v as *mut u64).cast(), 8) };
    }
}

/// What the two sides and the main thread share.
struct Shared {
    wakers: [Waker; 2],
    /// The latest `stats` request; each side answers it in `snapshots`.
    wanted: std::sync::atomic::AtomicU64,
    snapshots: [std::sync::Mutex<Snapshot>; 2],
    pcap: Option<std::sync::Mutex<PcapWriter<std::io::BufWriter<std::fs::File>>>>,
    started: Instant,
}

/// One side's thread: its NIC is built here (a Verilated model stays on its thread),
/// then it moves frames between its kernel, its NIC and the wire until STOP.
struct Side {
    i: usize,
    host: Host,
    to_peer: std::sync::mpsc::Sender<WireBatch>,
    from_peer: std::sync::mpsc::Receiver<WireBatch>,
    shared: std::sync::Arc<Shared>,
    base: Stats,
    hw: HwCounts,
    wire_tx_frames: u64,
    start_cycles: u64,
    quiet: u64,
}

impl Side {
    /// Reads the NIC's counters and publishes a snapshot for request `generation`.
    fn publish(&mut self, generation: u64) -> Result<()> {
        let now = self.host.nic.stats()?;
        self.hw.add(&now.since(&self.base));
        self.base = now;
        let snap = Snapshot {
            generation,
            count: self.host.count,
            hw: self.hw,
            wire_tx_frames: self.wire_tx_frames,
            cycles: self.host.nic.device().cycles() - self.start_cycles,
            idle: self.quiet >= QUIET_CYCLES,
        };
        *self.shared.snapshots[self.i].lock().unwrap() = snap;
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        let mut buf = vec![0u8; virtio_net::HEADER_LEN + dev::MAX_FRAME_LEN];
        let mut answered = 0u64;
        while !stopped() {
            let mut moved = 0;
            for batch in self.from_peer.try_iter() {
                moved += batch.len();
                for (f, err) in batch {
                    self.host.nic.device_mut().inject_rx(&f, err);
                }
            }
            moved += self.host.take_from_kernel(&mut buf)?;
            moved += self.host.post()?;
            self.host.nic.device_mut().idle(STEP);
            let sent = self.host.nic.device_mut().take_tx_frames();
            if !sent.is_empty() {
                moved += sent.len();
                self.wire_tx_frames += sent.len() as u64;
                if let Some(p) = &self.shared.pcap {
                    // wall-clock time: each NIC keeps its own simulated time
                    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
                    let mut w = p.lock().unwrap();
                    for (f, _) in &sent {
                        w.write(ns, &f[..f.len().saturating_sub(4)])?;
                    }
                }
                // a peer that is gone (its thread failed) is reported by its own result
                if self.to_peer.send(sent).is_ok() {
                    self.shared.wakers[1 - self.i].wake();
                }
            }
            moved += self.host.deliver()?;
            if let Some(fault) = self.host.nic.device_mut().take_dma_faults().first() {
                bail!("{}'s NIC: DMA fault {fault:?}", self.host.tap.name());
            }
            let busy = moved > 0 || self.host.tx_in_flight() || self.host.backlog_len() > 0;
            self.quiet = if busy { 0 } else { self.quiet + STEP };
            let wanted = self.shared.wanted.load(Ordering::SeqCst);
            if wanted > answered {
                self.publish(wanted)?;
                answered = wanted;
            }
            if self.quiet >= QUIET_CYCLES {
                // nothing in flight: simulated time waits for the kernel or the peer
                let waker = &self.shared.wakers[self.i];
                dev::wait_readable(&[self.host.tap.raw_fd(), waker.raw()], 50);
                waker.clear();
            }
        }
        Ok(())
    }
}

fn open_host(a: &TapArgs, tap: TapDevice, wave: Option<PathBuf>) -> Result<Host> {
    let name = tap.name().to_string();
    let dev = open_device(&a.sim, a.config, wave)?;
    let hw = a.config.hw();
    let cfg = NicConfig { tx_queues: hw.tx_queues(), rx_queues: hw.rx_queues(), tx_ring_log2: 9, rx_ring_log2: 9, ..NicConfig::default() };
    let mut nic = Nic::open_with(dev, cfg).with_context(|| format!("opening the NIC behind {name}"))?;
    if nic.layout().rxc.is_some() {
        // the kernel's address in the exact-match table, every multicast group (a TAP
        // does not tell user space which groups the stack joined) and broadcast
        nic.set_mac_filter(0, Some(MacFilter { addr: tap.mac(), steer_queue: None }))?;
        nic.set_rx_filter_mode(RxFilterMode { promisc: false, allmulti: true, broadcast: true })?;
    }
    nic.device_mut().take_dma_faults();
    let backlog = (0..nic.config().tx_queues).map(|_| VecDeque::new()).collect();
    Ok(Host { tap, nic, backlog, count: Counters::default(), warned_malformed: false })
}

fn mac_str(m: [u8; 6]) -> String {
    EthernetAddress(m).to_string()
}

/// One `stats`/`summary` line: `key=value` tokens, side A's then side B's. `cycles` is
/// NIC 1's (each NIC keeps its own time).
fn counter_line(kind: &str, elapsed: f64, snaps: &[Snapshot; 2]) -> String {
    let mut s = format!("{kind} elapsed={elapsed:.2} cycles={} idle={}", snaps[0].cycles, u8::from(snaps[0].idle && snaps[1].idle));
    for (i, n) in snaps.iter().enumerate() {
        let (c, h) = (&n.count, &n.hw);
        let p = ["a", "b"][i];
        s += &format!(
            " {p}.cycles={} {p}.kernel_tx_frames={} {p}.kernel_tx_bytes={} {p}.tso_frames={} {p}.tso_largest={} {p}.csum_frames={} {p}.malformed={} {p}.refused={} \
             {p}.kernel_rx_frames={} {p}.kernel_rx_bytes={} {p}.data_valid={} {p}.kernel_rx_refused={} {p}.kernel_rx_refused_bytes={} {p}.wire_tx_frames={} \
             {p}.nic_tx_frames={} {p}.nic_tx_bytes={} {p}.nic_tx_tso_segments={} {p}.nic_tx_offload_errors={} {p}.nic_tx_errors={} \
             {p}.nic_rx_frames={} {p}.nic_rx_bytes={} {p}.nic_rx_drops={} {p}.nic_rx_csum_l4_bad={}",
            n.cycles,
            c.kernel_tx_frames,
            c.kernel_tx_bytes,
            c.tso_frames,
            c.tso_largest,
            c.csum_frames,
            c.malformed,
            c.refused,
            c.kernel_rx_frames,
            c.kernel_rx_bytes,
            c.data_valid,
            c.kernel_rx_refused,
            c.kernel_rx_refused_bytes,
            n.wire_tx_frames,
            h.tx_frames,
            h.tx_bytes,
            h.tx_tso_segments,
            h.tx_offload_errors,
            h.tx_errors,
            h.rx_frames,
            h.rx_bytes,
            h.rx_drops,
            h.rx_csum_l4_bad,
        );
    }
    s
}

pub fn run(a: TapArgs) -> Result<()> {
    let hw = a.config.hw();
    let offloads = Offloads { csum: hw.has_tx_offload() && !a.no_csum, tso: hw.has_tx_offload() && !a.no_csum && !a.no_tso };
    if a.sim.backend != crate::BackendArg::Rtl && (a.wave.is_some() || a.wave_b.is_some()) {
        bail!("--wave needs the RTL backend (the behavioural model has no signals)");
    }
    let pcap = match &a.pcap {
        Some(p) => Some(std::sync::Mutex::new(PcapWriter::new(
            std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?),
            LINKTYPE_ETHERNET,
        )?)),
        None => None,
    };
    catch_stop_signals();
    let taps = [TapDevice::create(&a.names.0, offloads)?, TapDevice::create(&a.names.1, offloads)?];
    let macs = [taps[0].mac(), taps[1].mac()];
    let names = [taps[0].name().to_string(), taps[1].name().to_string()];
    let shared = std::sync::Arc::new(Shared {
        wakers: [Waker::new()?, Waker::new()?],
        wanted: std::sync::atomic::AtomicU64::new(0),
        snapshots: Default::default(),
        pcap,
        started: Instant::now(),
    });
    let (to_b, from_a) = std::sync::mpsc::channel();
    let (to_a, from_b) = std::sync::mpsc::channel();
    let (up_tx, up_rx) = std::sync::mpsc::channel::<std::result::Result<(), String>>();
    let a = std::sync::Arc::new(a);
    // each NIC on a thread of its own: the two simulations run on two cores, and meet
    // only where frames cross the wire
    let threads: Vec<_> = taps
        .into_iter()
        .zip([(to_b, from_b), (to_a, from_a)])
        .enumerate()
        .map(|(i, (tap, (to_peer, from_peer)))| {
            let (a, shared, up) = (a.clone(), shared.clone(), up_tx.clone());
            std::thread::Builder::new()
                .name(format!("nic{}", i + 1))
                .spawn(move || -> Result<Snapshot> {
                    let wave = if i == 0 { a.wave.clone() } else { a.wave_b.clone() };
                    let host = match open_host(&a, tap, wave) {
                        Ok(h) => h,
                        Err(e) => {
                            let _ = up.send(Err(format!("{e:#}")));
                            return Err(e);
                        }
                    };
                    let mut side = Side { i, to_peer, from_peer, shared, base: Stats::default(), hw: HwCounts::default(), wire_tx_frames: 0, start_cycles: 0, quiet: 0, host };
                    side.base = side.host.nic.stats()?;
                    side.start_cycles = side.host.nic.device().cycles();
                    let _ = up.send(Ok(()));
                    let r = side.run();
                    // a side that fails stops the other
                    request_stop();
                    side.shared.wakers[1 - i].wake();
                    r?;
                    side.publish(u64::MAX)?;
                    let snap = *side.shared.snapshots[i].lock().unwrap();
                    Ok(snap)
                })
                .expect("spawning a NIC thread")
        })
        .collect();
    drop(up_tx);
    let mut up_error = None;
    for _ in 0..2 {
        match up_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => up_error = Some(e),
            Err(_) => up_error = up_error.or(Some("a NIC thread ended before its NIC was up".into())),
        }
    }
    if let Some(e) = up_error {
        request_stop();
        for t in threads {
            let _ = t.join();
        }
        bail!("{e}");
    }
    println!(
        "ready {} ({}) {} ({}): {} configuration, offloads to the kernels: checksum {}, TSO {}",
        names[0],
        mac_str(macs[0]),
        names[1],
        mac_str(macs[1]),
        hw,
        if offloads.csum { "on" } else { "off" },
        if offloads.tso { "on" } else { "off" }
    );
    std::io::stdout().flush()?;

    let every = Duration::from_secs_f64(a.stats_every);
    let mut next_stats = Instant::now() + every;
    let mut generation = 0u64;
    while !stopped() {
        std::thread::sleep(next_stats.saturating_duration_since(Instant::now()).min(Duration::from_millis(20)));
        if Instant::now() < next_stats {
            continue;
        }
        // ask both sides for their counters and wait for both answers
        generation += 1;
        shared.wanted.store(generation, Ordering::SeqCst);
        shared.wakers.iter().for_each(Waker::wake);
        let asked = Instant::now();
        let snaps = loop {
            let snaps = [*shared.snapshots[0].lock().unwrap(), *shared.snapshots[1].lock().unwrap()];
            if snaps.iter().all(|s| s.generation >= generation) || stopped() || asked.elapsed() > Duration::from_secs(10) {
                break snaps;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        if snaps.iter().all(|s| s.generation >= generation) {
            println!("{}", counter_line("stats", shared.started.elapsed().as_secs_f64(), &snaps));
            std::io::stdout().flush()?;
        }
        next_stats = Instant::now() + every;
    }
    shared.wakers.iter().for_each(Waker::wake);
    let results: Vec<Result<Snapshot>> = threads.into_iter().map(|t| t.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a NIC thread panicked")))).collect();
    let elapsed = shared.started.elapsed().as_secs_f64();
    if let Ok(Shared { pcap: Some(p), .. }) = std::sync::Arc::try_unwrap(shared) {
        p.into_inner().unwrap().into_inner().flush()?;
    }
    let mut snaps = [Snapshot::default(); 2];
    for (i, r) in results.into_iter().enumerate() {
        snaps[i] = r.with_context(|| format!("NIC {} (behind {})", i + 1, names[i]))?;
    }
    println!("{}", counter_line("summary", elapsed, &snaps));
    for (i, n) in snaps.iter().enumerate() {
        let (c, h) = (&n.count, &n.hw);
        println!(
            "{}: kernel sent {} frames ({} TSO super-frames, largest {} bytes; {} checksum requests), NIC {} sent {} frames ({} TSO segments); \
             NIC {} received {} frames, {} handed to the kernel ({} with DATA_VALID)",
            names[i],
            c.kernel_tx_frames,
            c.tso_frames,
            c.tso_largest,
            c.csum_frames,
            i + 1,
            h.tx_frames,
            h.tx_tso_segments,
            i + 1,
            h.rx_frames,
            c.kernel_rx_frames,
            c.data_valid
        );
    }
    let rate = |n: &Snapshot| n.cycles as f64 / elapsed.max(1e-9);
    println!(
        "simulated {} and {} cycles in {elapsed:.1} s ({:.0} and {:.0} cycles/s); removing {} and {}",
        snaps[0].cycles,
        snaps[1].cycles,
        rate(&snaps[0]),
        rate(&snaps[1]),
        names[0],
        names[1]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ethernet, IPv4 (20 bytes, total length over the whole packet as a stack writes a
    /// super-frame's), then a TCP header of `tcp_len` bytes or a UDP header, then
    /// `payload` bytes: written out byte by byte, not with the project's header views.
    fn ipv4_frame(udp: bool, tcp_len: usize, payload: usize) -> Vec<u8> {
        let l4_len = if udp { 8 } else { tcp_len };
        let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00];
        let total = (20 + l4_len + payload) as u16;
        f.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8, 0, 1, 0x40, 0, 64, if udp { 17 } else { 6 }, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        if udp {
            let ul = (8 + payload) as u16;
            f.extend_from_slice(&[0x13, 0x88, 0x13, 0x89, (ul >> 8) as u8, ul as u8, 0, 0]);
        } else {
            let mut t = vec![0u8; tcp_len];
            t[0..4].copy_from_slice(&[0xc0, 0x00, 0x14, 0x51]);
            t[12] = ((tcp_len / 4) as u8) << 4;
            t[13] = 0x18;
            f.extend_from_slice(&t);
        }
        f.extend((0..payload).map(|i| i as u8));
        f
    }

    fn with_header(h: [u8; 10], frame: &[u8]) -> Vec<u8> {
        let mut v = h.to_vec();
        v.extend_from_slice(frame);
        v
    }

    #[test]
    fn a_tcpv4_super_frame_becomes_a_tso_request() {
        // as Linux fills the header: NEEDS_CSUM, TCPV4, hdr_len 66, gso_size 1448,
        // csum_start 34, csum_offset 16 (little-endian)
        let frame = ipv4_frame(false, 32, 4000);
        let h = hand_over(&with_header([1, 1, 66, 0, 0xa8, 0x05, 34, 0, 16, 0], &frame)).unwrap();
        assert_eq!(h.request, Request::Tso);
        assert_eq!(h.bytes, frame);
        let o = h.offload.unwrap();
        assert_eq!((o.l3_offset, o.l4_offset, o.hdr_len, o.mss, o.tso, o.ipv6, o.udp), (14, 34, 66, 1448, true, false, false));
        // the header length comes from the frame's TCP data offset, not the hint
        let h = hand_over(&with_header([1, 1, 0, 0, 0xa8, 0x05, 34, 0, 16, 0], &frame)).unwrap();
        assert_eq!(h.offload.unwrap().hdr_len, 66);
    }

    #[test]
    fn a_partial_checksum_becomes_a_generic_checksum() {
        let frame = ipv4_frame(true, 0, 100);
        let h = hand_over(&with_header([1, 0, 0, 0, 0, 0, 34, 0, 6, 0], &frame)).unwrap();
        assert_eq!(h.request, Request::Csum);
        let o = h.offload.unwrap();
        assert_eq!((o.generic_csum, o.csum_start, o.csum_offset, o.tso, o.l4_csum), (true, 34, 6, false, false));
        // no request: the frame as it is
        let h = hand_over(&with_header([0; 10], &frame)).unwrap();
        assert_eq!((h.request, h.offload, h.bytes), (Request::None, None, frame));
    }

    #[test]
    fn requests_that_contradict_their_frame_are_refused() {
        let tcp = ipv4_frame(false, 20, 3000);
        let udp = ipv4_frame(true, 0, 3000);
        for (hdr, frame, why) in [
            ([1, 4, 54, 0, 0xa8, 0x05, 34, 0, 16, 0], &tcp, "does not match"),  // TCPV6 on IPv4
            ([1, 1, 42, 0, 0xa8, 0x05, 34, 0, 6, 0], &udp, "does not match"),   // TSO of UDP
            ([1, 1, 54, 0, 0xa8, 0x05, 38, 0, 16, 0], &tcp, "does not match"),  // TCP elsewhere
            ([1, 3, 42, 0, 0xa8, 0x05, 34, 0, 6, 0], &udp, "no NIC serves"),    // UFO
            ([1, 0, 0, 0, 0, 0, 0xf0, 0x0b, 16, 0], &tcp, "beyond"),             // csum past the end
        ] {
            let e = hand_over(&with_header(hdr, frame)).unwrap_err();
            assert!(e.contains(why), "{hdr:?}: {e}");
        }
        assert!(hand_over(&[0u8; 6]).unwrap_err().contains("virtio-net header"));
    }

    #[test]
    fn data_valid_only_where_the_nic_verified_the_l4_checksum() {
        let f = |l4: u8, l3: u8| RxFrame {
            queue: 0,
            data: vec![0; 60],
            flags: desc::DONE | u16::from(l4) << desc::RX_L4_CSUM_SHIFT | u16::from(l3) << desc::RX_L3_CSUM_SHIFT,
            info: 0,
            ptype: 0,
        };
        assert_eq!(rx_header(&f(desc::CSUM_GOOD, desc::CSUM_GOOD)), VirtioNetRepr::DataValid);
        assert_eq!(rx_header(&f(desc::CSUM_BAD, desc::CSUM_GOOD)), VirtioNetRepr::Plain);
        assert_eq!(rx_header(&f(desc::CSUM_NOT_CHECKED, desc::CSUM_GOOD)), VirtioNetRepr::Plain);
    }

    #[test]
    fn names() {
        assert_eq!(parse_names("a,b").unwrap().1, "b");
        assert!(parse_names("ab").unwrap_err().contains("comma"));
        assert!(parse_names("a,a").unwrap_err().contains("both"));
        assert!(parse_names("a,0123456789abcdef").unwrap_err().contains("1 to 15"));
        assert!(parse_names("a/b,c").unwrap_err().contains("not a valid"));
    }
}
