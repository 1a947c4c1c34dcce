//! `nic bench loopback`: back-to-back loopback per frame size (TX ring kept full, large
//! bursts, RX buffers posted ahead, interrupts masked, polling), in cycles per frame and
//! share of the configuration's own line rate (`line_rate::target`: `full` 10 GbE at
//! 156.25 MHz, `small` 1 GbE at the ECPIX-5 build's 41.67 MHz).

use crate::loopback::{open_device, BusArg, SimArgs};
use crate::report::{grouped, round, si};
use crate::{BackendArg, HwArg};
use anyhow::{Context, Result};
use clap::Args;
use nic_driver::{IrqMode, Nic, NicConfig};
use nic_testbench::gen::FrameGen;
use crate::line_rate;
use nic_testbench::traffic::{run_loopback, LoopbackOptions, PlannedFrame};
use std::time::Instant;

/// Frame sizes on the wire, FCS included.
pub const SIZES: [usize; 5] = [64, 128, 512, 1518, 9018];

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[arg(long, value_enum, default_value_t = HwArg::Small)]
    config: HwArg,
    /// Frames measured per size (after a warm-up of one ring).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    frames: Option<u64>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sim: SimArgs,
}

struct Row {
    wire_len: usize,
    frames: usize,
    cycles_per_frame: f64,
    line_cycles: f64,
    ratio: f64,
    wall_cycles_per_s: f64,
}

/// `nic bench loopback --json`.
#[derive(serde::Serialize)]
struct LoopbackJson {
    config: String,
    backend: String,
    bus: String,
    backpressure: Option<f64>,
    mem_latency: u32,
    clock_hz: f64,
    line_bps: f64,
    results: Vec<LoopbackJsonRow>,
    idle_cycles_per_second: Option<f64>,
}

#[derive(serde::Serialize)]
struct LoopbackJsonRow {
    frame_bytes: usize,
    frames: usize,
    cycles_per_frame: f64,
    line_rate_cycles_per_frame: f64,
    line_rate_ratio: f64,
    sim_cycles_per_second: f64,
}

fn default_frames(wire_len: usize) -> usize {
    // About 100k cycles of 10 GbE line time per size, at least 300 frames.
    ((100_000.0 / line_rate::target(nic_hw::Config::Full).cycles_per_frame(wire_len as u64)) as usize).clamp(300, 8000)
}

pub fn run(a: BenchArgs) -> Result<()> {
    let mut rows = Vec::new();
    let target = line_rate::target(a.config.hw());
    const RING_LOG2: u32 = 10;
    let warmup = 1usize << RING_LOG2;
    let mut bar = (!a.json).then(|| crate::progress::Progress::new("bench loopback", Some(SIZES.len() as u64), "sizes"));
    for &wire_len in &SIZES {
        let mut dev = open_device(&a.sim, a.config, None)?;
        let cfg = NicConfig { tx_ring_log2: RING_LOG2, rx_ring_log2: RING_LOG2, irq_mode: IrqMode::Polling, ..NicConfig::default() };
        let mut nic = Nic::open_with(&mut dev, cfg).context("opening the NIC")?;
        nic.set_loopback(true)?;
        let measured = a.frames.map_or_else(|| default_frames(wire_len), |f| f as usize);
        let count = warmup + measured;
        // Few distinct frames, reused: generating random bytes is not what is measured.
        let mut g = FrameGen::new(wire_len as u64);
        let pool: Vec<Vec<u8>> = (0..64).map(|_| g.frame(wire_len - 4)).collect();
        let opts = LoopbackOptions { bursts: vec![256], rx_burst: 512, poll_idle: 16, warmup, ..LoopbackOptions::default() };
        let t = Instant::now();
        let start = nic.cycles();
        let r = run_loopback(&mut nic, count, |i| PlannedFrame { data: pool[i % pool.len()].clone(), cuts: vec![] }, &opts, |_| {})
            .map_err(|e| anyhow::anyhow!("{wire_len}-byte frames: {e}"))?;
        let wall = t.elapsed().as_secs_f64();
        let cycles_per_frame = r.steady_cycles as f64 / r.steady_frames as f64;
        let line_cycles = target.cycles_per_frame(wire_len as u64);
        rows.push(Row {
            wire_len,
            frames: r.steady_frames,
            cycles_per_frame,
            line_cycles,
            ratio: line_cycles / cycles_per_frame,
            wall_cycles_per_s: (nic.cycles() - start) as f64 / wall,
        });
        if let Some(b) = &mut bar {
            b.done_one(&format!("{wire_len} bytes done ({} frames)", grouped(count as u64)));
        }
    }
    if let Some(b) = bar {
        b.finish();
    }
    let idle = match a.sim.backend {
        BackendArg::Rtl => {
            let bus = match a.sim.bus {
                BusArg::Dma => nic_sim::Bus::DmaPort,
                BusArg::Axi => nic_sim::Bus::Axi4,
            };
            Some(nic_sim::bench_idle_with(nic_sim::SimConfig { bus, ..nic_sim::SimConfig::new(a.config.sim()) }, 2_000_000))
        }
        BackendArg::Model => None,
    };

    if a.json {
        let report = LoopbackJson {
            config: a.config.hw().to_string(),
            backend: format!("{:?}", a.sim.backend),
            bus: format!("{:?}", a.sim.bus),
            backpressure: a.sim.backpressure,
            mem_latency: a.sim.mem_latency,
            clock_hz: target.clock_hz,
            line_bps: target.line_bps,
            results: rows
                .iter()
                .map(|r| LoopbackJsonRow {
                    frame_bytes: r.wire_len,
                    frames: r.frames,
                    cycles_per_frame: round(r.cycles_per_frame, 3),
                    line_rate_cycles_per_frame: round(r.line_cycles, 3),
                    line_rate_ratio: round(r.ratio, 5),
                    sim_cycles_per_second: r.wall_cycles_per_s.round(),
                })
                .collect(),
            idle_cycles_per_second: idle.map(f64::round),
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "loopback back to back, {} configuration, {:?} backend, {:?} bus, host memory latency {} cycles{}",
        a.config.hw(),
        a.sim.backend,
        a.sim.bus,
        a.sim.mem_latency,
        a.sim.backpressure.map_or(String::new(), |p| format!(", backpressure {p}"))
    );
    println!("target: {}; the datapath moves {}", target.describe(), target.limit);
    println!("{:>11} {:>8} {:>16} {:>16} {:>13} {:>14} {:>14}", "frame bytes", "frames", "cycles/frame", "line cyc/frame", "% line rate", "Mframes/s", "sim cycles/s");
    for r in &rows {
        println!(
            "{:>11} {:>8} {:>16.2} {:>16.2} {:>12.1}% {:>14.3} {:>14}",
            r.wire_len,
            r.frames,
            r.cycles_per_frame,
            r.line_cycles,
            100.0 * r.ratio,
            target.clock_hz / r.cycles_per_frame / 1e6,
            si(r.wall_cycles_per_s)
        );
    }
    println!("(frame bytes include the FCS; line time adds 8 bytes preamble/SFD and 12 bytes inter-frame gap per frame;");
    println!(" over 100%: the core moves frames faster than the {} line carries them, as its AXI4-Stream has no gap)", target.wire);
    if let Some(v) = idle {
        println!("idle Verilator model (SimDevice, nothing to do): {}cycles/s", si(v));
    }
    if matches!(a.sim.backend, BackendArg::Rtl) {
        println!("{}", model_build_note(a.config.sim(), matches!(a.sim.bus, BusArg::Axi)));
    }
    Ok(())
}

/// How the configuration's Verilator model was compiled, for a bench's speed figures:
/// scripts/build.sh trains it (profile-guided, sim/build.rs `PGO_ENV`), about a fifth
/// faster than a `cargo build` alone gives it.
pub fn model_build_note(cfg: nic_sim::HwConfig, axi: bool) -> String {
    if axi {
        return "simulator: the AXI4 model compiled without a training profile (scripts/build.sh trains the DMA-port models)".to_string();
    }
    match cfg.model_build() {
        "trained" => "simulator: the model compiled with the profile of its training runs (scripts/build.sh)".to_string(),
        "instrumented" => "simulator: the model instrumented for a training run (slower than a trained or a plain build)".to_string(),
        _ => "simulator: the model compiled without a training profile (a cargo build alone; make build trains it, docs/performance.md)".to_string(),
    }
}
