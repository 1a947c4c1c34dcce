//! `nic bench tap`: TCP through the kernel's stack on both ends and two simulated NICs
//! (`nic tap` in two network namespaces), with and without TSO: megabits per
//! wall-clock second, the simulator's cycles per second while carrying them, and what
//! the transfer cost in simulated cycles.

use crate::line_rate;
use crate::report::si;
use crate::HwArg;
use anyhow::{Context, Result};
use clap::Args;
use nic_testbench::netns::{self, hex, tcp_transfer};
use nic_testbench::tap_session::{Counters, TapSession};
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct BenchTapArgs {
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// MiB moved per run (TCP/IPv4 from A to B).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1024))]
    mib: u64,
}

/// One run's figures.
struct Run {
    label: &'static str,
    bytes: u64,
    wall: f64,
    cycles: u64,
    /// Cycles both NICs ran together (each on its own thread).
    cycles_both: u64,
    tso_frames: u64,
    segments: u64,
    frames: u64,
}

fn delta(after: &Counters, before: &Counters, key: &str) -> u64 {
    after.get(key) - before.get(key)
}

fn run_one(a: &BenchTapArgs, label: &'static str, extra: &[&str], net: u8) -> Result<Run> {
    let exe = std::env::current_exe().context("finding the nic binary")?;
    let prefix = format!("nb{}", std::process::id() % 100_000);
    let mut args = vec!["--config", if a.config == HwArg::Full { "full" } else { "small" }, "--stats-every", "0.2"];
    args.extend_from_slice(extra);
    let mut s = TapSession::start(&exe, &prefix, net, &args, Duration::from_secs(600)).map_err(anyhow::Error::msg).context("starting nic tap")?;
    // neighbours resolved before the clock starts
    s.ns[0].ping(&s.v4[1], 1).map_err(anyhow::Error::msg)?;
    let len = (a.mib as usize) << 20;
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.mib);
    let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let before = s.next_stats(Duration::from_secs(30)).map_err(anyhow::Error::msg)?;
    let to: SocketAddr = format!("{}:5301", s.v4[1]).parse().expect("an address");
    let t = tcp_transfer(&s.ns[1], to, &s.ns[0], data, Duration::from_secs(600)).map_err(anyhow::Error::msg).context("the TCP transfer")?;
    if t.received_len != len || t.received_sha256 != t.sent_sha256 {
        anyhow::bail!("B received {} bytes (SHA-256 {}) of {len} sent (SHA-256 {})", t.received_len, hex(&t.received_sha256), hex(&t.sent_sha256));
    }
    let after = s.next_stats(Duration::from_secs(30)).map_err(anyhow::Error::msg)?;
    let (status, _, transcript) = s.stop(Duration::from_secs(60)).map_err(anyhow::Error::msg)?;
    if !status.success() {
        anyhow::bail!("nic tap exited with {status}:\n{}", transcript.join("\n"));
    }
    Ok(Run {
        label,
        bytes: len as u64,
        wall: after.seconds() - before.seconds(),
        cycles: delta(&after, &before, "a.cycles"),
        cycles_both: delta(&after, &before, "a.cycles") + delta(&after, &before, "b.cycles"),
        tso_frames: delta(&after, &before, "a.tso_frames"),
        segments: delta(&after, &before, "a.nic_tx_tso_segments"),
        frames: delta(&after, &before, "a.nic_tx_frames"),
    })
}

pub fn run(a: BenchTapArgs) -> Result<()> {
    if !netns::have_privileges() {
        return Err(super::dev::TapError::NotPermitted("nic bench tap creates TAP interfaces and network namespaces: it needs root".into()).into());
    }
    let hw = a.config.hw();
    let target = line_rate::target(hw);
    println!("nic bench tap: {} MiB of TCP/IPv4 from namespace A to B through the kernels and two simulated NICs ({hw})", a.mib);
    println!("target: {}", target.describe());
    let mut runs = Vec::new();
    let plan: Vec<(&'static str, &[&str], u8)> = if hw.has_tx_offload() {
        vec![("TSO + checksum offload", &[], 1), ("checksum offload, no TSO", &["--no-tso"], 2), ("no offload", &["--no-csum"], 3)]
    } else {
        vec![("no offload", &["--no-csum"], 3)]
    };
    let mut bar = crate::progress::Progress::new("bench tap", Some(plan.len() as u64), "runs");
    for (label, extra, net) in plan {
        bar.step(label);
        runs.push(run_one(&a, label, extra, net)?);
        bar.done_one(label);
    }
    bar.finish();
    println!(
        "{:<26} {:>8} {:>12} {:>14} {:>16} {:>14} {:>12} {:>18}",
        "kernel offloads", "wall s", "Mb/s (wall)", "NIC 1 cycles/s", "both NICs cyc/s", "NIC 1 cycles", "NIC 1 frames", "TSO super/segments"
    );
    for r in &runs {
        println!(
            "{:<26} {:>8.1} {:>12.2} {:>14} {:>16} {:>14} {:>12} {:>18}",
            r.label,
            r.wall,
            r.bytes as f64 * 8.0 / r.wall / 1e6,
            si(r.cycles as f64 / r.wall),
            si(r.cycles_both as f64 / r.wall),
            r.cycles,
            r.frames,
            format!("{}/{}", r.tso_frames, r.segments)
        );
    }
    println!(
        "NIC 1 cycles: cycles NIC 1 ran during the transfer (each NIC runs on its own thread, and its simulated time stops while it has nothing in flight); \
         at {:.2} MHz the transfer's {} MiB would need {:.0} cycles at line rate",
        target.clock_hz / 1e6,
        a.mib,
        (a.mib << 20) as f64 * 8.0 / target.line_bps * target.clock_hz
    );
    Ok(())
}
