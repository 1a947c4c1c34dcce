//! `nic bench rdma-perf`: `nic rdma-perf` server and client across two kernel bridges
//! (the CI test's network, `nic_testbench::rdma_perf_session`), per operation, message
//! size and path MTU: bandwidth in simulated time (share of 10 GbE at 156.25 MHz) and in
//! wall-clock time, and the READ latency, each run's bytes checked by the side they
//! landed on. `nic bench rdma` gives the same NIC back to back, without TAPs and kernels.

use super::run::target;
use anyhow::{bail, Context, Result};
use clap::Args;
use nic_testbench::netns;
use nic_testbench::rdma_perf_session::RdmaNet;
use nic_testbench::tap_session::Counters;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct BenchRdmaPerfArgs {
    /// Messages per bandwidth run of 4 KiB (runs of 64 KiB take a tenth of them).
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(10..=100_000))]
    iters: u32,
}

struct Row {
    op: &'static str,
    size: u32,
    mtu: u32,
    lat: bool,
    client: Counters,
    server: Counters,
}

fn one(net: &RdmaNet, tag: &str, args: &[String]) -> Result<(Counters, Counters)> {
    let exe = std::env::current_exe().context("finding the nic binary")?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (s, c) = net.run_pair(&exe, tag, &args, &[], &[], Duration::from_secs(3600)).map_err(anyhow::Error::msg)?;
    for (e, who) in [(&c, "client"), (&s, "server")] {
        if !e.status.success() {
            bail!("the {who} failed ({}):\n{}", e.status, e.text());
        }
    }
    let get = |e: &nic_testbench::rdma_perf_session::PerfExit, who: &str| e.summary.clone().with_context(|| format!("no summary from the {who}"));
    Ok((get(&c, "client")?, get(&s, "server")?))
}

pub fn run(a: BenchRdmaPerfArgs) -> Result<()> {
    if !netns::have_privileges() {
        bail!("nic bench rdma-perf creates TAP interfaces and network namespaces: run it as root");
    }
    let prefix = format!("bp{}", std::process::id() % 100_000);
    let net = RdmaNet::create(&prefix, 81, false).map_err(anyhow::Error::msg).context("namespaces and bridges")?;
    let mut rows = Vec::new();
    let plan: Vec<(&'static str, u32, u32, bool)> = vec![
        ("write", 4096, 1024, false),
        ("read", 4096, 1024, false),
        ("send", 4096, 1024, false),
        ("write", 65536, 4096, false),
        ("read", 65536, 4096, false),
        ("send", 65536, 4096, false),
        ("read", 64, 1024, true),
        ("write", 64, 1024, true),
    ];
    for (k, &(op, size, mtu, lat)) in plan.iter().enumerate() {
        let iters = if lat { 200 } else if size > 4096 { (a.iters / 10).max(10) } else { a.iters };
        let mut args = vec![format!("--op={op}"), format!("--size={size}"), format!("--iters={iters}"), format!("--mtu={mtu}")];
        if lat {
            args.push("--lat".into());
        }
        eprintln!("{op} {size} B x {iters}, MTU {mtu}{}", if lat { ", latency" } else { "" });
        let (client, server) = one(&net, &format!("{prefix}{k}"), &args)?;
        rows.push(Row { op, size, mtu, lat, client, server });
    }
    println!("nic rdma-perf across two kernel bridges (two simulated full NICs, each behind a TAP; every landed byte checked)");
    println!("{:<6} {:>6} {:>5} {:>6} {:>11} {:>9} {:>8} {:>8} {:>10} {:>11}", "op", "size", "MTU", "iters", "sim cycles", "sim Gb/s", "of 10G", "wall s", "wall Mb/s", "NIC cyc/s");
    for r in rows.iter().filter(|r| !r.lat) {
        let (cycles, bytes, wall) = (r.client.get("run_cycles"), r.client.get("bytes"), r.client.value("wall"));
        let bps = bytes as f64 * 8.0 / target().seconds(cycles);
        let gbps = bps / 1e9;
        println!(
            "{:<6} {:>6} {:>5} {:>6} {:>11} {:>9.2} {:>7.1}% {:>8.2} {:>10.2} {:>11.0}",
            r.op,
            r.size,
            r.mtu,
            r.client.get("messages"),
            cycles,
            gbps,
            bps / target().line_bps * 100.0,
            wall,
            bytes as f64 * 8.0 / wall / 1e6,
            cycles as f64 / wall
        );
    }
    println!();
    println!("{:<6} {:>6} {:>6} {:>20} {:>20}", "op", "size", "iters", "mean sim latency", "mean wall latency");
    for r in rows.iter().filter(|r| r.lat) {
        let n = r.client.get("messages").max(1) as f64;
        let cyc = r.client.get("run_cycles") as f64 / n;
        println!("{:<6} {:>6} {:>6} {:>11.0} cyc {:>5.2} us {:>17.0} us", r.op, r.size, n, cyc, cyc / target().clock_hz * 1e6, r.client.value("wall") / n * 1e6);
    }
    let naks: u64 = rows.iter().map(|r| r.client.get("rdma_tx_retries") + r.server.get("rdma_tx_retries")).sum();
    println!("\nretransmissions in all runs: {naks}. Simulated time stands still while a NIC waits for its peer (see docs/rdma.md, \"Against real peers\").");
    Ok(())
}
