//! `nic bench tx`: back-to-back transmission onto the wire through the driver, with
//! checksum insertion on (full offload of TCP/IPv4 frames: the IPv4 header and TCP
//! checksums computed by the NIC), per frame size; then TCP segmentation of the
//! largest IPv4 TSO requests at MSS 1448. Measured where frames leave the core
//! (`tx_axis`): cycles per frame from the end of a warm-up to the last frame, against
//! the line time of the configuration's own wire (`line_rate::target`; TX offload is in
//! `full` only: 10 GbE at 156.25 MHz), every TSO segment with its own headers, FCS,
//! preamble and gap. Every frame on the wire is compared with what the golden model says it must be.

use crate::loopback::{open_device, SimArgs};
use crate::report::{grouped, round};
use crate::rx::SIZES;
use crate::HwArg;
use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use nic_driver::{Device, IrqMode, Nic, NicConfig, TxFrame};
use crate::line_rate;
use nic_testbench::txoffload::{apply, as_stack_hands_it, OffloadKind, TxOffload};
use nic_testbench::{fcs, rxgen, WireAccess};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// TSO: the MSS, and the payload of the largest IPv4 request (IPv4 total length 65,535).
pub const TSO_MSS: u16 = 1448;
pub const TSO_PAYLOAD: usize = 65_535 - 40;

#[derive(Args, Debug)]
pub struct BenchTxArgs {
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// Frames measured per size (after a warm-up).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    frames: Option<u64>,
    /// TX queues to spread the frames over, round-robin (default 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    queues: u32,
    /// TSO requests measured (after a warm-up of two).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    tso_requests: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sim: SimArgs,
}

/// One measurement: `frames` wire frames of `wire_bytes` (FCS included) in `cycles`.
/// `nic bench tx --json`.
#[derive(serde::Serialize)]
struct TxJson {
    config: String,
    backend: String,
    bus: String,
    queues: u32,
    results: Vec<TxJsonRow>,
    skipped_sizes: Vec<usize>,
}

#[derive(serde::Serialize)]
struct TxJsonRow {
    /// What was sent (a frame size, or the TSO request).
    frames: String,
    wire_frames: usize,
    wire_bytes: u64,
    cycles: u64,
    cycles_per_frame: f64,
    beat_efficiency: f64,
    line_rate_ratio: f64,
}

struct Row {
    what: String,
    frames: usize,
    wire_bytes: u64,
    beats: u64,
    line_cycles: f64,
    cycles: u64,
}

impl Row {
    fn cycles_per_frame(&self) -> f64 {
        self.cycles as f64 / self.frames as f64
    }
    fn ratio(&self) -> f64 {
        self.line_cycles / self.cycles as f64
    }
    fn beat_efficiency(&self) -> f64 {
        self.beats as f64 / self.cycles as f64
    }
}

/// A request to send: the bytes as the stack hands them, its offload, and what the wire
/// must carry for it (FCS included).
struct Request {
    frame: Vec<u8>,
    offload: TxOffload,
    wire: Vec<Vec<u8>>,
}

fn request(frame: &[u8], kind: OffloadKind, mss: Option<u16>, max_frame_len: usize) -> Result<Request> {
    let (stack, offload) = as_stack_hands_it(frame, kind, mss);
    let out = apply(&stack, &offload, max_frame_len).map_err(|e| anyhow::anyhow!("golden model refuses the request: {}", e.describe()))?;
    Ok(Request { frame: stack, offload, wire: out.iter().map(|f| fcs::with_fcs(&fcs::padded(f))).collect() })
}

/// Sends `count` requests (request `i` is `pool[i % len]`) over `queues` TX queues,
/// round-robin, keeping the rings full; checks every wire frame; returns the cycles
/// from the moment the first `warmup` requests' frames have all left to the last frame.
fn run<D: Device + WireAccess>(nic: &mut Nic<D>, pool: &[Request], count: usize, warmup: usize, queues: u32, cut: usize) -> Result<(u64, usize)> {
    let per_request: Vec<usize> = pool.iter().map(|r| r.wire.len()).collect();
    let warm_frames: usize = (0..warmup).map(|i| per_request[i % pool.len()]).sum();
    let total_frames: usize = (0..count).map(|i| per_request[i % pool.len()]).sum();
    // frames each request is cut into (a TX buffer each), and the request each queue sends next
    let cuts: Vec<Vec<usize>> = pool.iter().map(|r| (1..r.frame.len().div_ceil(cut)).map(|k| k * cut).collect()).collect();
    let mut next: Vec<usize> = (0..queues as usize).collect();
    // the wire frames still due from the request leaving now (a request leaves whole)
    let mut expect = std::collections::VecDeque::new();
    let mut per_queue: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); queues as usize];
    let (mut seen, mut t_warm, mut t_last) = (0usize, None, 0u64);
    let start = nic.cycles();
    while seen < total_frames {
        for q in 0..queues {
            nic.tx_reap_on(q)?;
            let qi = q as usize;
            let mut batch = Vec::new();
            let mut idx = next[qi];
            while idx < count && batch.len() < 64 {
                let r = &pool[idx % pool.len()];
                batch.push((idx, TxFrame::split(&r.frame, &cuts[idx % pool.len()]).with_offload(r.offload.to_driver())));
                idx += queues as usize;
            }
            if batch.is_empty() {
                continue;
            }
            let frames: Vec<TxFrame<'_>> = batch.iter().map(|(_, f)| f.clone()).collect();
            let sent = nic.tx_burst_on(q, &frames)?;
            for (i, _) in &batch[..sent] {
                per_queue[qi].push_back(*i);
            }
            next[qi] += sent * queues as usize;
        }
        nic.device_mut().idle(8);
        let got = nic.device_mut().take_tx_frames();
        for (w, error) in got {
            // which queue's request this is: the wire carries whole requests in order per
            // queue; find the queue whose oldest request starts (or continues) with it
            if expect.is_empty() {
                let q = (0..queues as usize)
                    .find(|&q| per_queue[q].front().is_some_and(|&i| pool[i % pool.len()].wire[0] == w))
                    .with_context(|| format!("wire frame {seen} ({} bytes, error flag {error}) is no queue's next frame", w.len()))?;
                let i = per_queue[q].pop_front().unwrap();
                expect.extend(pool[i % pool.len()].wire.iter().cloned());
            }
            let want = expect.pop_front().unwrap();
            ensure!(!error && w == want, "wire frame {seen}: {} bytes (error flag {error}), want {} bytes", w.len(), want.len());
            seen += 1;
            if seen == warm_frames {
                t_warm = Some(nic.cycles());
            }
            t_last = nic.cycles();
        }
        if nic.cycles() - start > 200_000 + 4 * total_frames as u64 * 1200 {
            bail!("only {seen} of {total_frames} frames left ({:?})", nic.stats()?);
        }
    }
    Ok((t_last - t_warm.unwrap_or(start), total_frames - warm_frames))
}

fn open_nic<'a>(dev: &'a mut Box<dyn nic_testbench::backend::TestDevice>, queues: u32) -> Result<Nic<&'a mut Box<dyn nic_testbench::backend::TestDevice>>> {
    let cfg = NicConfig { tx_queues: queues, tx_ring_log2: 10, tx_buf_len: 9216, irq_mode: IrqMode::Polling, ..NicConfig::default() };
    let mut nic = Nic::open_with(dev, cfg).context("opening the NIC")?;
    nic.set_loopback(false)?;
    Ok(nic)
}

pub fn run_bench(a: BenchTxArgs) -> Result<()> {
    let hw = a.config.hw();
    if a.queues > hw.tx_queues() {
        bail!("--queues {}: the {} configuration has {} TX queue(s)", a.queues, hw, hw.tx_queues());
    }
    if !hw.has_tx_offload() {
        bail!("the {hw} configuration has no TX offload engine: `nic bench tx` measures checksum insertion and TSO (use --config full; plain TX throughput is `nic bench loopback`)");
    }
    let mut rows = Vec::new();
    let target = line_rate::target(hw);
    let dst = [0x02, 0x4e, 0x49, 0x43, 0x00, 0x01];
    // checksum offload takes frames up to the offload buffer less 512 bytes
    let sizes: Vec<usize> = SIZES.iter().copied().filter(|&l| l - fcs::FCS_LEN <= hw.tx_offload_max_frame()).collect();
    let skipped: Vec<usize> = SIZES.iter().copied().filter(|l| !sizes.contains(l)).collect();
    let mut bar = (!a.json).then(|| crate::progress::Progress::new("bench tx", Some(sizes.len() as u64 + 1), "runs"));
    for &wire_len in &sizes {
        let mut dev = open_device(&a.sim, a.config, None)?;
        let mut nic = open_nic(&mut dev, a.queues)?;
        let max_frame_len = nic.max_frame_len()? as usize;
        let mut rng = StdRng::seed_from_u64(wire_len as u64);
        let pool = (0..64)
            .map(|_| request(&rxgen::flow_frame(&mut rng, dst, wire_len - fcs::FCS_LEN), OffloadKind::Full, None, max_frame_len))
            .collect::<Result<Vec<_>>>()?;
        let measured = a.frames.map_or_else(|| ((100_000.0 / target.cycles_per_frame(wire_len as u64)) as usize).clamp(300, 8000), |f| f as usize);
        let warmup = 256;
        let before = nic.stats()?;
        let (cycles, frames) = run(&mut nic, &pool, warmup + measured, warmup, a.queues, 9216).with_context(|| format!("{wire_len}-byte frames"))?;
        let d = nic.stats()?.since(&before);
        ensure!(d.tx_offload_errors == 0 && d.tx_errors == 0, "{wire_len}-byte frames: errors {d:?}");
        rows.push(Row {
            what: format!("{wire_len}"),
            frames,
            wire_bytes: (frames * wire_len) as u64,
            beats: (frames * wire_len.div_ceil(8)) as u64,
            line_cycles: frames as f64 * target.cycles_per_frame(wire_len as u64),
            cycles,
        });
        if let Some(b) = &mut bar {
            b.done_one(&format!("{wire_len} bytes done ({} frames)", grouped((warmup + measured) as u64)));
        }
    }
    // TSO: the largest IPv4 request, cut into 8 KiB buffers
    {
        let mut dev = open_device(&a.sim, a.config, None)?;
        let mut nic = open_nic(&mut dev, a.queues)?;
        let max_frame_len = nic.max_frame_len()? as usize;
        let mut rng = StdRng::seed_from_u64(1448);
        let pool = (0..4)
            .map(|_| request(&rxgen::flow_frame(&mut rng, dst, 54 + TSO_PAYLOAD), OffloadKind::Tso, Some(TSO_MSS), max_frame_len))
            .collect::<Result<Vec<_>>>()?;
        let warmup = 2;
        let count = warmup + a.tso_requests as usize;
        let before = nic.stats()?;
        let (cycles, frames) = run(&mut nic, &pool, count, warmup, a.queues, 8192).context("TSO")?;
        let d = nic.stats()?.since(&before);
        ensure!(d.tx_offload_errors == 0 && d.tx_errors == 0, "TSO: errors {d:?}");
        let segs = &pool[0].wire;
        let seg_bytes: u64 = segs.iter().map(|s| s.len() as u64).sum();
        let reqs = (frames / segs.len()) as u64;
        rows.push(Row {
            what: format!("TSO {} B, MSS {TSO_MSS}", TSO_PAYLOAD),
            frames,
            wire_bytes: reqs * seg_bytes,
            beats: reqs * segs.iter().map(|s| s.len().div_ceil(8) as u64).sum::<u64>(),
            line_cycles: reqs as f64 * segs.iter().map(|s| target.cycles_per_frame(s.len() as u64)).sum::<f64>(),
            cycles,
        });
        if let Some(b) = &mut bar {
            b.done_one(&format!("TSO done ({} requests, {} segments each)", count, segs.len()));
        }
    }
    if let Some(b) = bar {
        b.finish();
    }
    if a.json {
        let report = TxJson {
            config: hw.to_string(),
            backend: format!("{:?}", a.sim.backend),
            bus: format!("{:?}", a.sim.bus),
            queues: a.queues,
            results: rows
                .iter()
                .map(|r| TxJsonRow {
                    frames: r.what.clone(),
                    wire_frames: r.frames,
                    wire_bytes: r.wire_bytes,
                    cycles: r.cycles,
                    cycles_per_frame: round(r.cycles_per_frame(), 3),
                    beat_efficiency: round(r.beat_efficiency(), 5),
                    line_rate_ratio: round(r.ratio(), 5),
                })
                .collect(),
            skipped_sizes: skipped.clone(),
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "TX back to back onto the wire (TCP/IPv4, IPv4 and TCP checksums inserted by the NIC; TSO at MSS {TSO_MSS}), {hw} configuration, {:?} backend, {:?} bus, {} TX queue(s)",
        a.sim.backend, a.sim.bus, a.queues
    );
    println!("target: {}; the datapath moves {}", target.describe(), target.limit);
    println!("{:>22} {:>8} {:>14} {:>12} {:>13}", "frame bytes", "frames", "cycles/frame", "beats/cycle", "% line rate");
    for r in &rows {
        println!("{:>22} {:>8} {:>14.2} {:>12.3} {:>12.1}%", r.what, r.frames, r.cycles_per_frame(), r.beat_efficiency(), 100.0 * r.ratio());
    }
    if !skipped.is_empty() {
        println!("not measured: {skipped:?} bytes (longer than the {hw} offload buffer takes for checksum offload: {} bytes)", hw.tx_offload_max_frame());
    }
    println!("(frame bytes include the FCS; a beat is 8 bytes at the MAC; line time adds 8 bytes preamble/SFD and 12 bytes");
    println!(" inter-frame gap per frame, TSO per segment; over 100%: the core's AXI4-Stream carries no gap)");
    Ok(())
}
