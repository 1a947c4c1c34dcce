//! `nic sim loopback`: random frames through TX, the internal loopback and RX via the
//! driver, every byte checked.

use crate::report::{grouped, si};
use crate::{parse_size_range, BackendArg, HwArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use nic_driver::{Device, Nic, NicConfig};
use nic_testbench::backend::TestDevice;
use nic_testbench::gen::FrameGen;
use crate::line_rate;
use nic_testbench::traffic::{run_loopback, LoopbackOptions, PlannedFrame, Progress};
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct LoopbackArgs {
    /// Number of frames to send (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    frames: u64,
    /// Frame sizes without FCS, MIN..MAX inclusive (60..=9018), drawn uniformly.
    #[arg(long, value_name = "MIN..MAX", value_parser = parse_size_range, default_value = "60..1514")]
    size: RangeInclusive<usize>,
    #[arg(long, value_enum, default_value_t = HwArg::Small)]
    config: HwArg,
    /// Write an FST waveform of the run to FILE (slow: use with few frames).
    #[arg(long, value_name = "FILE")]
    wave: Option<PathBuf>,
    /// Seed of the random frames (the same seed sends the same traffic).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Split each frame into 1..=K scatter-gather segments at random.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=16))]
    segments: u64,
    /// Frames per doorbell (tx_burst call).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=4096))]
    burst: u64,
    /// log2 of the TX and RX ring sizes.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=15))]
    ring_log2: u32,
    #[command(flatten)]
    sim: SimArgs,
}

/// How the NIC is simulated (shared by `sim` and `bench`).
#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    /// Which NIC implementation to drive.
    #[arg(long, value_enum, default_value_t = BackendArg::Rtl)]
    pub backend: BackendArg,
    /// Bus between the NIC and host memory: the NIC's DMA port, or its AXI4 master bridge.
    #[arg(long, value_enum, default_value_t = BusArg::Dma)]
    pub bus: BusArg,
    /// Host memory read latency of the simulator in cycles.
    #[arg(long, default_value_t = nic_sim::SimConfig::default().mem_latency, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub mem_latency: u32,
    /// Random backpressure: probability per cycle that the environment stalls a channel
    /// it drives (DMA/AXI ready and valid, tx_axis_tready).
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub backpressure: Option<f64>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum BusArg {
    Dma,
    Axi,
}

fn parse_probability(s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is not a probability in [0, 1)"))
    }
}

pub fn open_device(sim: &SimArgs, config: HwArg, wave: Option<PathBuf>) -> Result<Box<dyn TestDevice>> {
    Ok(match sim.backend {
        BackendArg::Rtl => {
            let bus = match sim.bus {
                BusArg::Dma => nic_sim::Bus::DmaPort,
                BusArg::Axi => nic_sim::Bus::Axi4,
            };
            let cfg = nic_sim::SimConfig {
                wave,
                mem_latency: sim.mem_latency,
                bus,
                backpressure: sim.backpressure.map(|p| (0x5eed, p)),
                ..nic_sim::SimConfig::new(config.sim())
            };
            Box::new(nic_testbench::backend::rtl::RtlDevice::new(cfg).map_err(anyhow::Error::msg).context("building the simulated NIC")?)
        }
        BackendArg::Model => {
            if wave.is_some() {
                bail!("--wave needs the RTL backend (the behavioural model has no signals)");
            }
            nic_testbench::backend::Backend::Model.open(config.size())
        }
    })
}

pub fn run(a: LoopbackArgs) -> Result<()> {
    let mut dev = open_device(&a.sim, a.config, a.wave.clone())?;
    let cfg = NicConfig { tx_ring_log2: a.ring_log2, rx_ring_log2: a.ring_log2, ..NicConfig::default() };
    let mut nic = Nic::open_with(&mut dev, cfg).context("opening the NIC")?;
    nic.set_loopback(true)?;
    nic.device_mut().take_dma_faults();
    let before = nic.stats()?;
    let start_cycles = nic.cycles();

    let count = a.frames as usize;
    let mut g = FrameGen::new(a.seed);
    let range = a.size.clone();
    let segments = a.segments as usize;
    let opts = LoopbackOptions { bursts: vec![a.burst as usize], rx_burst: 256, ..LoopbackOptions::default() };
    let mut bar = crate::progress::Progress::new("sim loopback", Some(count as u64), "frames");
    let progress = |p: &Progress| bar.set(p.received as u64);
    let sim_start = Instant::now();
    let r = run_loopback(
        &mut nic,
        count,
        |_| {
            let data = g.frame_in(range.clone());
            let cuts = g.cuts(data.len(), segments);
            PlannedFrame { data, cuts }
        },
        &opts,
        progress,
    )
    .map_err(|e| anyhow::anyhow!("loopback failed: {e}"));
    bar.finish();
    let r = r?;
    let elapsed = sim_start.elapsed().as_secs_f64();
    let total_cycles = nic.cycles() - start_cycles;

    let s = nic.stats()?.since(&before);
    let faults = nic.device_mut().take_dma_faults();
    if !faults.is_empty() {
        bail!("the NIC hit {} DMA faults during the run, first {:?}", faults.len(), faults[0]);
    }
    if s.rx_frames as usize != count || s.tx_frames as usize != count || s.rx_drops() != 0 {
        bail!("statistics disagree with the traffic: {s:?}");
    }
    drop(nic);

    let frames = r.frames as u64;
    let cpf = r.cycles as f64 / frames as f64;
    // Each configuration against its own wire and clock (`line_rate::target`).
    let target = line_rate::target(a.config.hw());
    let sim_s = target.seconds(r.cycles);
    let line_s = target.line_seconds(frames, r.bytes);
    println!("frames:            {} sent, {} received, all identical byte for byte and in order", grouped(frames), grouped(frames));
    println!("bytes:             {} (without FCS), sizes {}..={}", grouped(r.bytes), a.size.start(), a.size.end());
    println!("cycles:            {}", grouped(r.cycles));
    println!("cycles per frame:  {cpf:.2}");
    println!("target:            {}; the datapath moves {}", target.describe(), target.limit);
    println!("frames/s:          {}frames/s of simulated time at {:.2} MHz ({}b/s)", si(frames as f64 / sim_s), target.clock_hz / 1e6, si(r.bytes as f64 * 8.0 / sim_s));
    println!(
        "line rate:         {:.1}% of {} (the same frames need {:.3} ms of line time, the NIC took {:.3} ms)",
        100.0 * line_s / sim_s,
        target.wire,
        line_s * 1e3,
        sim_s * 1e3,
    );
    println!("simulation speed:  {}cycles/s wall clock ({} cycles in {elapsed:.2} s, driver included)", si(total_cycles as f64 / elapsed), grouped(total_cycles));
    if matches!(a.sim.backend, crate::BackendArg::Rtl) {
        println!("{}", crate::bench::model_build_note(a.config.sim(), matches!(a.sim.bus, BusArg::Axi)));
    }
    if let Some(w) = &a.wave {
        println!("waveform:          {}", w.display());
    }
    Ok(())
}
