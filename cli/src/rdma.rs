//! `nic sim rdma`: two NICs back to back, QPs connected to each other, RDMA operations
//! through the driver's verbs, every byte that landed checked against what was sent.
//!
//! On the RTL (`--backend rtl`, the default: two Verilated `full` NICs) and on the
//! behavioural model, which says that its figures are the wire's (its DMA is
//! instantaneous), not the hardware's. The wire between the hosts can be impaired
//! (`--loss`, `--dup`, `--reorder`, `--corrupt`, `--cut-at`/`--cut-for`: `ImpairArgs`);
//! what it did to the frames is reported beside the engines' counters.

use crate::loopback::{open_device, SimArgs};
use crate::rdma_attack::{run_attack, AttackArg};
use crate::{BackendArg, HwArg};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use nic_driver::verbs::{Mtu, RecvWr, SendOp, SendWr, Sge, WcStatus};
use nic_driver::Device;
use nic_testbench::impair::{ImpairConfig, ImpairStats};
use nic_testbench::rdma_pair::{Pair, PairConfig, Retransmit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OpArg {
    Write,
    Read,
    Send,
    WriteImm,
}

#[derive(Args, Debug)]
pub struct SimRdmaArgs {
    /// The operation every message does, from host A to host B.
    #[arg(long, value_enum, required_unless_present = "attack")]
    op: Option<OpArg>,
    /// Bytes per message (0..=16777216).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=16 << 20), required_unless_present = "attack")]
    size: Option<u32>,
    /// Instead of messages: host A attacks host B's memory this way; exits 0 only when
    /// B's NIC refused the access and B's memory is unchanged.
    #[arg(long, value_enum, conflicts_with_all = ["op", "size", "count", "qps", "wire", "wave", "wave_b"])]
    attack: Option<AttackArg>,
    /// Messages in all, spread round-robin over the QPs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: u32,
    /// Connected QP pairs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=62))]
    qps: u32,
    /// Path MTU in bytes.
    #[arg(long, default_value_t = 1024, value_parser = parse_mtu)]
    mtu: u32,
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    #[command(flatten)]
    sim: SimArgs,
    /// Write every frame that crossed the wire, both directions, to this pcap.
    #[arg(long, value_name = "OUT.pcap")]
    wire: Option<PathBuf>,
    /// Write host A's NIC's waveform (RTL backend only).
    #[arg(long, value_name = "FILE")]
    wave: Option<PathBuf>,
    /// Write host B's NIC's waveform (RTL backend only): the responder's side of a WRITE
    /// or SEND, the responding side of a READ.
    #[arg(long, value_name = "FILE")]
    wave_b: Option<PathBuf>,
    /// Seed of the payloads and of the wire's impairment.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    impair: ImpairArgs,
    /// The first PSN of every QP in both directions (24 bits; near 2^24 to cross the wrap).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=0xff_ffff))]
    psn_start: Option<u32>,
    /// The QPs' transport timer where the engines retransmit: ibverbs' `timeout` code,
    /// 640 << CODE cycles (4.096 us x 2^CODE at 156.25 MHz; perftest uses 14).
    #[arg(long, value_name = "CODE", default_value_t = RETRANSMIT.timeout, value_parser = clap::value_parser!(u8).range(1..=31))]
    timeout: u8,
}

/// What the wire between the two hosts does to frames (each rate per frame, 0 to 1).
#[derive(Args, Debug, Clone, Default)]
pub struct ImpairArgs {
    /// Frames lost.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    loss: f64,
    /// Frames delivered twice.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    dup: f64,
    /// Frames held back a random 1..=--reorder-window cycles, overtaken by those behind.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    reorder: f64,
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..))]
    reorder_window: u64,
    /// Frames with one bit flipped past the Ethernet header (FCS recomputed).
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    corrupt: f64,
    /// Cut the link at this cycle (of host A's NIC) ...
    #[arg(long, requires = "cut_for")]
    cut_at: Option<u64>,
    /// ... for this many cycles: every frame sent meanwhile is lost.
    #[arg(long, requires = "cut_at")]
    cut_for: Option<u64>,
}

impl ImpairArgs {
    pub fn config(&self, seed: u64) -> ImpairConfig {
        ImpairConfig {
            loss: self.loss,
            dup: self.dup,
            reorder: self.reorder,
            reorder_window: self.reorder_window,
            corrupt: self.corrupt,
            cut_at: self.cut_at.unwrap_or(0),
            cut_for: self.cut_for.unwrap_or(0),
            seed,
        }
    }
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is not a rate: give a probability from 0 to 1 (0.01 is 1%)"))
    }
}

pub fn parse_mtu(s: &str) -> Result<u32, String> {
    let v: u32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    Mtu::from_bytes(v).map(|_| v).ok_or_else(|| format!("path MTU {v}: one of 256, 512, 1024, 2048, 4096"))
}

/// The QPs' retransmission where the engines have it (CAPS.RETRANSMIT): a timeout of
/// 640 << 7 cycles (0.52 ms at 156.25 MHz), 7 retries, RNR retries for ever at 0.01 ms;
/// the responders then ACK every 4 requests (ACK_EVERY), so the timer need not cover a
/// whole long message.
pub const RETRANSMIT: Retransmit = Retransmit { timeout: 7, retry_cnt: 7, rnr_retry: 7, min_rnr_timer: 1 };
pub const ACK_EVERY: u8 = 4;

/// 10 GbE's payload-free line rate in bytes per cycle of a 156.25 MHz core clock.
const LINE_BYTES_PER_CYCLE: f64 = 10e9 / 8.0 / 156.25e6;

/// One run: `count` messages of `size` bytes from host A to host B over `qps` QPs.
pub struct Transfer {
    pub op: OpArg,
    pub size: u32,
    pub count: u32,
    pub qps: u32,
    pub mtu: u32,
    pub seed: u64,
    pub capture: bool,
    pub impair: ImpairConfig,
    pub psn_start: Option<u32>,
    /// The transport timer's code (`Retransmit::timeout`).
    pub timeout: u8,
}

/// What a run measured.
pub struct Outcome {
    pub bytes: u64,
    /// Cycles of host A's NIC from the first doorbell to the last CQE polled.
    pub cycles: u64,
    /// Of the first message: doorbell to its CQE seen by the driver (run alone, frames
    /// carried across and the CQ polled every cycle).
    pub first_latency: u64,
    pub counters: [Vec<(&'static str, u32)>; 2],
    pub wire: Vec<Vec<u8>>,
    /// What the wire did to the frames.
    pub impaired: ImpairStats,
    /// The QPs retransmit (both engines have CAPS.RETRANSMIT).
    pub retransmits: bool,
    /// Acknowledge packets delivered, by kind: ACK, NAK PSN sequence error, RNR NAK, NAK
    /// invalid request, remote access error, remote operational error.
    pub acks: [u64; 6],
}

/// The kinds of `Outcome::acks`, in order.
pub const ACK_KINDS: [&str; 6] = ["ACK", "NAK PSN sequence", "RNR NAK", "NAK invalid request", "NAK remote access", "NAK remote operational"];

fn ack_kind(syndrome: u8) -> usize {
    match syndrome {
        0x00..=0x1f => 0,
        0x20..=0x3f => 2,
        0x60 => 1,
        0x61 | 0x64 => 3,
        0x62 => 4,
        _ => 5,
    }
}

impl Outcome {
    /// Goodput (payload bytes) as a share of 10 GbE at 156.25 MHz, in percent.
    pub fn goodput_pct(&self) -> f64 {
        100.0 * self.bytes as f64 / self.cycles.max(1) as f64 / LINE_BYTES_PER_CYCLE
    }
}

/// Sets up two hosts, runs `t` and checks every byte that landed and every completion.
pub fn transfer(t: &Transfer, sim: &SimArgs, config: HwArg, waves: [Option<PathBuf>; 2]) -> Result<Outcome> {
    transfer_with(t, sim, config, waves, &mut |_| {})
}

/// [`transfer`], calling `progress` with the messages completed so far.
pub fn transfer_with(t: &Transfer, sim: &SimArgs, config: HwArg, waves: [Option<PathBuf>; 2], progress: &mut dyn FnMut(u32)) -> Result<Outcome> {
    if config == HwArg::Small {
        bail!("the `small` configuration has no RDMA engine (FEATURES.RDMA clear); use --config full");
    }
    let (size, qps) = (t.size as usize, t.qps as usize);
    // each QP has a source and a destination slot on both sides
    let buf_len = (2 * qps * size.max(64)).next_power_of_two();
    if buf_len > 1 << 30 {
        bail!("{qps} QPs of {size}-byte messages need {buf_len} bytes of registered memory per host; at most 1 GiB");
    }
    let mtu = Mtu::from_bytes(t.mtu).expect("parsed");
    let cfg = PairConfig { mtu, qps, buf_len, queue_log2: 8, cq_log2: 12, psn_start: t.psn_start, retransmit: Some(Retransmit { timeout: t.timeout, ..RETRANSMIT }), ..PairConfig::default() };
    let [wave_a, wave_b] = waves;
    let dev_a = open_device(sim, config, wave_a)?;
    let dev_b = open_device(sim, config, wave_b)?;
    let mut p = Pair::new(dev_a, dev_b, cfg).map_err(anyhow::Error::new).context("setting up two hosts")?;
    p.capture = t.capture;
    t.impair.validate().map_err(anyhow::Error::msg)?;
    p.set_impairment(t.impair);
    // where the QPs retransmit, the responders ACK every few requests, so a timer shorter
    // than a long message sees its progress
    if p.retransmits() {
        p.a.nic.rdma_set_ack_every(ACK_EVERY)?;
        p.b.nic.rdma_set_ack_every(ACK_EVERY)?;
    }
    let mut rng = StdRng::seed_from_u64(t.seed);
    let pattern_a: Vec<u8> = (0..buf_len).map(|_| rng.gen()).collect();
    let pattern_b: Vec<u8> = (0..buf_len).map(|_| rng.gen()).collect();
    p.a.nic.device_mut().mem_write(p.a.buf.bus_addr, &pattern_a)?;
    p.b.nic.device_mut().mem_write(p.b.buf.bus_addr, &pattern_b)?;
    let slot = buf_len / (2 * qps);
    let (mr_a, mr_b) = (p.a.mr, p.b.mr);
    let receiver = matches!(t.op, OpArg::Send | OpArg::WriteImm);
    // cycles without a completion before the run is called stuck: on an impaired wire
    // with retransmission, time for every retry's timeout besides
    let stall = 2_000_000 + if p.retransmits() && t.impair.active() { (u64::from(RETRANSMIT.retry_cnt) + 1) * (640u64 << t.timeout) } else { 0 };
    let start = p.a.nic.device().cycles();
    let mut first_latency = None;
    // the first message alone, with frames carried across and its CQ polled every cycle,
    // so its latency is exact (a step of 16 cycles rounds each hop and the poll up to 16);
    // the rest in steps of 16, which only the host side's time notices
    let step = p.cfg.step;
    p.cfg.step = 1;
    let mut posted = 0u32;
    let mut done = 0u32;
    let window = 1u32 << (cfg.queue_log2 - 1);
    while done < t.count {
        // keep up to half a queue per QP in flight (the first message alone, for its latency)
        while posted < t.count && posted - done < window * t.qps {
            let q = (posted % t.qps) as usize;
            let (src, dst) = ((2 * q * slot) as u64, ((2 * q + 1) * slot) as u64);
            let local = if t.op == OpArg::Read { dst } else { src };
            let sg = vec![Sge { addr: mr_a.addr + local, length: t.size, lkey: mr_a.lkey }];
            let op = match t.op {
                OpArg::Write => SendOp::Write { remote_addr: mr_b.addr + dst, rkey: mr_b.rkey },
                OpArg::WriteImm => SendOp::WriteImm { remote_addr: mr_b.addr + dst, rkey: mr_b.rkey, imm: posted },
                OpArg::Read => SendOp::Read { remote_addr: mr_b.addr + src, rkey: mr_b.rkey },
                OpArg::Send => SendOp::Send,
            };
            if receiver {
                let rsg = if t.op == OpArg::Send { vec![Sge { addr: mr_b.addr + dst, length: t.size, lkey: mr_b.lkey }] } else { Vec::new() };
                p.b.nic.post_recv(p.b.qps[q], &[RecvWr { wr_id: u64::from(posted), sg_list: rsg }])?;
            }
            p.a.nic.post_send(p.a.qps[q], &[SendWr { wr_id: u64::from(posted), op, sg_list: sg, signaled: true, solicited: false }])?;
            posted += 1;
            if first_latency.is_none() {
                break;
            }
        }
        let wcs = match p.collect(&[(true, p.a.send_cq)], 1, stall) {
            Ok(w) => w,
            Err(e) => {
                // what both engines had done by then, for whoever looks into it
                let ca = p.a.nic.rdma_counters().unwrap_or_default();
                let cb = p.b.nic.rdma_counters().unwrap_or_default();
                let text = |c: &[(&str, u32)]| c.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ");
                let w = p.impair_stats();
                bail!(
                    "{e} after {done} of {} messages completed ({posted} posted); NIC A: {}; NIC B: {}; the wire: {} frames offered, {} lost, {} cut, {} duplicated, {} reordered, {} corrupted",
                    t.count, text(&ca), text(&cb), w.offered, w.lost, w.cut, w.duplicated, w.reordered, w.corrupted
                );
            }
        };
        for (_, w) in &wcs {
            if w.status != WcStatus::Success {
                bail!("message {} completed with {:?} (syndrome {:#04x})", w.wr_id, w.status, w.syndrome);
            }
            if w.byte_len != t.size {
                bail!("message {} completed with {} bytes, sent {}", w.wr_id, w.byte_len, t.size);
            }
        }
        done += wcs.len() as u32;
        progress(done);
        if first_latency.is_none() {
            first_latency = Some(p.a.nic.device().cycles() - start);
            p.cfg.step = step;
        }
    }
    let cycles = p.a.nic.device().cycles() - start;
    if receiver {
        let got = p.collect(&[(false, p.b.recv_cq)], t.count as usize, stall)?;
        if let Some((_, w)) = got.iter().find(|(_, w)| w.status != WcStatus::Success || w.byte_len != t.size) {
            bail!("receive completion {:?}", w);
        }
    }
    // every QP's last message moved its source slot to its destination slot
    let mut a_mem = vec![0; buf_len];
    let mut b_mem = vec![0; buf_len];
    p.a.nic.device_mut().mem_read(p.a.buf.bus_addr, &mut a_mem)?;
    p.b.nic.device_mut().mem_read(p.b.buf.bus_addr, &mut b_mem)?;
    for q in 0..qps.min(t.count as usize) {
        let (src, dst) = (2 * q * slot, (2 * q + 1) * slot);
        let (got, want) = match t.op {
            OpArg::Read => (&a_mem[dst..dst + size], &pattern_b[src..src + size]),
            _ => (&b_mem[dst..dst + size], &pattern_a[src..src + size]),
        };
        if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
            bail!("QP {q}: byte {i} of the landed data is {:#04x}, {:#04x} was sent", got[i], want[i]);
        }
    }
    let counters = [p.a.nic.rdma_counters()?, p.b.nic.rdma_counters()?];
    let wire = p.wire.iter().map(|f| f.frame.clone()).collect();
    let mut acks = [0u64; 6];
    for (&s, &n) in &p.acks {
        acks[ack_kind(s)] += n;
    }
    let retransmits = p.retransmits();
    Ok(Outcome { bytes: u64::from(t.count) * u64::from(t.size), cycles, first_latency: first_latency.unwrap_or(0), counters, wire, impaired: p.impair_stats(), retransmits, acks })
}

pub fn run_sim(a: SimRdmaArgs) -> Result<()> {
    if let Some(kind) = a.attack {
        let what = if a.sim.backend == BackendArg::Rtl { "Verilated RTL" } else { "behavioural model" };
        println!("RDMA protection attack {kind:?} from host A on host B, {what}");
        return run_attack(kind, &a.sim, a.config, a.seed);
    }
    let (op, size) = (a.op.expect("clap requires --op"), a.size.expect("clap requires --size"));
    let impair = a.impair.config(a.seed);
    let t = Transfer { op, size, count: a.count, qps: a.qps, mtu: a.mtu, seed: a.seed, capture: a.wire.is_some(), impair, psn_start: a.psn_start, timeout: a.timeout };
    let mut bar = crate::progress::Progress::new("sim rdma", Some(u64::from(t.count)), "messages");
    let o = transfer_with(&t, &a.sim, a.config, [a.wave.clone(), a.wave_b.clone()], &mut |n| bar.set(u64::from(n)));
    bar.finish();
    let o = o?;
    let what = if a.sim.backend == BackendArg::Rtl { "Verilated RTL" } else { "behavioural model (DMA instantaneous: wire-bound figures)" };
    println!("RDMA {:?}, {} messages of {} bytes over {} QP(s), path MTU {}, {what}", op, a.count, size, a.qps, a.mtu);
    println!("  every byte checked: ok");
    println!("  payload bytes: {} in {} cycles: goodput {:.1}% of 10 GbE at 156.25 MHz", o.bytes, o.cycles, o.goodput_pct());
    println!("  latency of the first message, doorbell to CQE: {} cycles", o.first_latency);
    if impair.active() {
        let w = o.impaired;
        println!("  the wire: {} frames offered, {} lost, {} cut, {} duplicated, {} reordered, {} corrupted", w.offered, w.lost, w.cut, w.duplicated, w.reordered, w.corrupted);
    }
    if o.retransmits {
        println!("  retransmission: on (timeout 640 << {} cycles, {} retries, RNR retries for ever; ACK_EVERY {ACK_EVERY})", a.timeout, RETRANSMIT.retry_cnt);
    } else {
        println!("  retransmission: off (the engine has no CAPS.RETRANSMIT: a lost frame fails or stalls its QP)");
    }
    let acks: Vec<String> = ACK_KINDS.iter().zip(o.acks).filter(|(_, n)| *n > 0).map(|(k, n)| format!("{k} {n}")).collect();
    println!("  acknowledgements delivered: {}", if acks.is_empty() { "none".to_string() } else { acks.join(", ") });
    for (name, c) in [("A", &o.counters[0]), ("B", &o.counters[1])] {
        let text: Vec<String> = c.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n} {v}")).collect();
        println!("  NIC {name}: {}", text.join(", "));
    }
    if let Some(path) = a.wire {
        nic_testbench::pcap::write_file(&path, &o.wire).with_context(|| format!("writing {}", path.display()))?;
        println!("  wire: {} frames to {}", o.wire.len(), path.display());
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct BenchRdmaArgs {
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sim: SimArgs,
    /// Instead of the grid: 1 MiB WRITEs and READs at MTU 4096 over a wire losing these
    /// shares of frames (each 0 to 1, comma-separated), against the lossless figure.
    #[arg(long, value_delimiter = ',', value_parser = parse_rate)]
    loss: Vec<f64>,
}

/// `nic bench rdma --loss P,...`: goodput of 1 MiB WRITEs and READs (8 messages, one QP,
/// MTU 4096) at each loss rate as a share of the lossless run's, and the payload bytes
/// sent again per byte delivered (both engines' TX_BYTES beyond the messages' bytes).
fn run_bench_loss(a: &BenchRdmaArgs) -> Result<()> {
    let rtl = a.sim.backend == BackendArg::Rtl;
    println!("RDMA goodput under loss, {} (1 MiB messages, 8 per run, one QP, MTU 4096; every byte checked)", if rtl { "Verilated RTL" } else { "behavioural model (DMA instantaneous: the protocol's cost alone)" });
    println!("{:<6} {:>7} {:>10} {:>9} {:>12} {:>8} {:>15}", "op", "loss", "cycles", "goodput", "of lossless", "retries", "resent/useful");
    let mut failed = 0;
    for op in [OpArg::Write, OpArg::Read] {
        let mut lossless = None;
        for loss in std::iter::once(0.0).chain(a.loss.iter().copied()) {
            let impair = ImpairConfig { loss, seed: 7, ..ImpairConfig::clean() };
            let t = Transfer { op, size: 1 << 20, count: 8, qps: 1, mtu: 4096, seed: 1, capture: false, impair, psn_start: None, timeout: RETRANSMIT.timeout };
            match transfer(&t, &a.sim, a.config, [None, None]) {
                Ok(o) => {
                    let g = o.goodput_pct();
                    let base = *lossless.get_or_insert(g);
                    let get = |side: usize, name: &str| o.counters[side].iter().find(|(n, _)| *n == name).map_or(0, |c| c.1);
                    // payload goes A to B for a WRITE, B to A (READ responses) for a READ;
                    // ACKs and READ requests carry none
                    let sent = u64::from(get(0, "TX_BYTES")) + u64::from(get(1, "TX_BYTES"));
                    let resent = sent.saturating_sub(o.bytes) as f64 / o.bytes.max(1) as f64;
                    println!("{:<6} {:>6.2}% {:>10} {:>8.1}% {:>11.1}% {:>8} {:>15.4}", format!("{op:?}"), 100.0 * loss, o.cycles, g, 100.0 * g / base, get(0, "TX_RETRIES"), resent);
                }
                Err(e) => {
                    failed += 1;
                    println!("{:<6} {:>6.2}% FAILED: {e:#}", format!("{op:?}"), 100.0 * loss);
                }
            }
        }
    }
    if failed > 0 {
        bail!("{failed} runs failed");
    }
    Ok(())
}

/// `nic bench rdma`: goodput per operation, message size, path MTU and QP count, and the
/// latency of a 64-byte WRITE and READ; every run checks its bytes and completions.
pub fn run_bench(a: BenchRdmaArgs) -> Result<()> {
    if !a.loss.is_empty() {
        return run_bench_loss(&a);
    }
    let rtl = a.sim.backend == BackendArg::Rtl;
    let mut rows = Vec::new();
    let mut bar = (!a.json).then(|| crate::progress::Progress::new("bench rdma", Some(3 * 2 * 2 * 3 + 2), "runs"));
    for op in [OpArg::Write, OpArg::Read, OpArg::Send] {
        for mtu in [1024u32, 4096] {
            for qps in [1u32, 8] {
                for size in [64u32, 4096, 1 << 20] {
                    // about a mebibyte per run, at least one message per QP
                    let count = ((1u32 << 20) / size).clamp(qps, 256 * qps);
                    let t = Transfer { op, size, count, qps, mtu, seed: 1, capture: false, impair: ImpairConfig::clean(), psn_start: None, timeout: RETRANSMIT.timeout };
                    // a case that fails is reported and the others still run; the bench
                    // then exits non-zero
                    let o = transfer(&t, &a.sim, a.config, [None, None]).map_err(|e| format!("{e:#}"));
                    rows.push((op, mtu, qps, size, count, o));
                    if let Some(b) = &mut bar {
                        b.done_one(&format!("{op:?} {size} B, MTU {mtu}, {qps} QP"));
                    }
                }
            }
        }
    }
    let mut lat = Vec::new();
    for op in [OpArg::Write, OpArg::Read] {
        let t = Transfer { op, size: 64, count: 1, qps: 1, mtu: 1024, seed: 2, capture: false, impair: ImpairConfig::clean(), psn_start: None, timeout: RETRANSMIT.timeout };
        lat.push((op, transfer(&t, &a.sim, a.config, [None, None])?.first_latency));
        if let Some(b) = &mut bar {
            b.done_one(&format!("{op:?} latency"));
        }
    }
    if let Some(b) = bar {
        b.finish();
    }
    if a.json {
        let report = RdmaJson {
            backend: if rtl { "rtl" } else { "model" },
            goodput: rows
                .iter()
                .map(|(op, mtu, qps, size, count, o)| RdmaJsonRow {
                    op: format!("{op:?}"),
                    mtu: *mtu,
                    qps: *qps,
                    size: *size,
                    messages: *count,
                    cycles: o.as_ref().ok().map(|o| o.cycles),
                    goodput_pct: o.as_ref().ok().map(|o| crate::report::round(o.goodput_pct(), 2)),
                    error: o.as_ref().err().cloned(),
                })
                .collect(),
            latency: lat.iter().map(|(op, c)| RdmaJsonLatency { op: format!("{op:?}"), size: 64, cycles: *c }).collect(),
        };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_table(rtl, &rows, &lat);
    }
    let failed = rows.iter().filter(|r| r.5.is_err()).count();
    if failed > 0 {
        bail!("{failed} of {} cases failed", rows.len());
    }
    Ok(())
}

type Row = (OpArg, u32, u32, u32, u32, std::result::Result<Outcome, String>);

/// `nic bench rdma --json`.
#[derive(serde::Serialize)]
struct RdmaJson {
    backend: &'static str,
    goodput: Vec<RdmaJsonRow>,
    latency: Vec<RdmaJsonLatency>,
}

/// A case that failed has `error` and neither `cycles` nor `goodput_pct`.
#[derive(serde::Serialize)]
struct RdmaJsonRow {
    op: String,
    mtu: u32,
    qps: u32,
    size: u32,
    messages: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    goodput_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(serde::Serialize)]
struct RdmaJsonLatency {
    op: String,
    size: u32,
    cycles: u64,
}

fn print_table(rtl: bool, rows: &[Row], lat: &[(OpArg, u64)]) {
    println!("RDMA goodput, {} (payload bytes as a share of 10 GbE at 156.25 MHz; every byte checked)", if rtl { "Verilated RTL" } else { "behavioural model (DMA instantaneous)" });
    println!("{:<6} {:>5} {:>4} {:>8} {:>6} {:>10} {:>9}", "op", "MTU", "QPs", "size", "msgs", "cycles", "goodput");
    for (op, mtu, qps, size, count, o) in rows {
        match o {
            Ok(o) => println!("{:<6} {:>5} {:>4} {:>8} {:>6} {:>10} {:>8.1}%", format!("{op:?}"), mtu, qps, size, count, o.cycles, o.goodput_pct()),
            Err(e) => println!("{:<6} {:>5} {:>4} {:>8} {:>6} FAILED: {e}", format!("{op:?}"), mtu, qps, size, count),
        }
    }
    for (op, c) in lat {
        println!("latency of a 64-byte {op:?}, doorbell to CQE polled (frames carried and the CQ polled every cycle): {c} cycles");
    }
}
