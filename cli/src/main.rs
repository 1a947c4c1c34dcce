//! `nic`: the user's entry point. Export Verilog and the register map, run the NIC in
//! simulation through the real driver, benchmark it.

mod bench;
mod board;
mod bench_tx;
mod line_rate;
mod loopback;
mod progress;
mod rdma;
mod rdma_attack;
mod rdma_perf;
mod report;
mod rx;
mod stop;
mod tap;
mod tx;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use std::ops::RangeInclusive;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "nic", version, about = "Open NIC in Rust HDL: Verilog export, co-simulation with the real driver, benchmarks")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Export the NIC as Verilog (nic_top.v, a FuseSoC core file and the lint waivers).
    Verilog {
        #[arg(long, value_enum, default_value_t = HwArg::Small)]
        config: HwArg,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the register map as Markdown (regmap.md), a C header (nic_regs.h) and
    /// SystemRDL 2.0 (nic_regs.rdl, for PeakRDL and other SystemRDL tools).
    Regmap {
        #[arg(long, default_value = "docs")]
        out: PathBuf,
    },
    /// Run the NIC in simulation.
    Sim {
        #[command(subcommand)]
        cmd: SimCmd,
    },
    /// Synthesize with yosys; for ECP5 the ECPIX-5 board top through nextpnr and ecppack
    /// to a bitstream (or, with --ooc or --block, nextpnr out of context), for ice40-hx8k
    /// the iCE40-HX8K breakout top through nextpnr-ice40 and icepack (`small` only); writes
    /// DIR/report.json (luts, ffs, brams, dsps, iCE40 logic_cells, fmax_mhz, timing_met,
    /// critical_path) and the logs.
    Synth {
        /// ecp5-85k, ecp5-25k, ice40-hx8k or ice40-up5k.
        #[arg(long)]
        target: nic_fpga::flow::Target,
        #[arg(long, value_enum, default_value_t = HwArg::Small)]
        config: HwArg,
        /// Synthesize one block alone, out of context: rx_parser, rx_filter, rx_rss, rx_csum,
        /// rx_classifier, rx_lean, mac_rx, mac_tx, tx_engine, tx_offload, rx_engine, board_host_mem,
        /// board_uart_bridge, board_rgmii_rx, board_rgmii_tx, board_host_link, rdma_icrc, rdma_rx_parse, rdma_tx_build, rdma_tables, rdma_mr_check, rdma_responder, rdma_response_tx, rdma_requester, rdma_cq, rdma_completer or rdma_engine.
        #[arg(long, conflicts_with = "config")]
        block: Option<nic_fpga::flow::Block>,
        /// ECP5 speed grade: 6, 7 or 8 (default: 8 for ecp5-85k, the ECPIX-5's LFE5UM5G-85F-8;
        /// 6 otherwise).
        #[arg(long)]
        speed: Option<u8>,
        /// Core clock in MHz (the board's PLL takes the nearest frequency it can make).
        /// Default: 156.25 on ECP5 (the timing target of the full configuration), 33 on iCE40 (what `small` meets
        /// on the HX8K board).
        #[arg(long)]
        freq: Option<f64>,
        /// ECP5: synthesize nic_top alone out of context (core area and Fmax, no
        /// bitstream) instead of the board top.
        #[arg(long, conflicts_with = "block")]
        ooc: bool,
        /// Board flows (ECP5, iCE40): place without timing-driven placement (about half
        /// the place-and-route time, lower Fmax): checks the flow, not for figures.
        #[arg(long)]
        quick: bool,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Drive the NIC on a real board over its UART (docs/fpga.md): identify, bring the
    /// queues up, send broadcast frames, report the NIC's counters (--board ice40: the
    /// frames come back through the looped wire and are checked).
    Board(board::BoardArgs),
    /// Two Linux TAP interfaces joined through two simulated NICs and the wire between
    /// them: the kernel's own traffic through the RTL, with its checksum and TSO requests
    /// mapped onto the NICs' offloads (needs root or CAP_NET_ADMIN; docs/driver-dev.md).
    /// Prints `ready` once both interfaces exist, a `stats` line every --stats-every
    /// seconds; runs until SIGINT or SIGTERM, then prints a summary and removes them.
    Tap(tap::TapArgs),
    /// One simulated NIC as a RoCEv2 host behind a TAP interface it creates (the host's
    /// own TCP/IP stack over the NIC's Ethernet queues owns --ip), and perftest's
    /// benchmarks against a peer: perftest's connection exchange over TCP, then RDMA WRITE,
    /// READ or SEND bandwidth (or --lat latency) through the RDMA engine, printed in
    /// perftest's table (needs root or CAP_NET_ADMIN; docs/rdma.md).
    RdmaPerf(rdma_perf::RdmaPerfArgs),
    /// Measure the simulated NIC.
    Bench {
        #[command(subcommand)]
        cmd: BenchCmd,
    },
}

#[derive(Subcommand)]
enum SimCmd {
    /// Send random frames through TX, the internal loopback and RX via the driver and
    /// check every byte.
    Loopback(loopback::LoopbackArgs),
    /// Replay a pcap into the simulated wire: per frame, the filter verdict, queue, RSS
    /// hash and type and checksum verdicts (DIR/rx.jsonl), and DIR/queue-<n>.pcap.
    Rx(rx::SimRxArgs),
    /// Transmit a pcap's frames as an OS hands them to the driver (with --csum, full
    /// checksum offload; with --tso-mss N, TSO) and write what left the wire to a pcap.
    Tx(tx::SimTxArgs),
    /// Two NICs back to back, QPs connected: RDMA WRITE, READ, SEND or WRITE with
    /// immediate through the verbs, every landed byte checked; goodput, latency,
    /// counters (the RTL's engine and the model do every operation; docs/rdma.md).
    Rdma(rdma::SimRdmaArgs),
    /// A board simulated at its pins (docs/fpga.md). ECPIX-5: the driver over the board's
    /// UART bridge, frames from and to a model of the PHY through RGMII. iCE40: the driver
    /// over the host link (registers and DMA), frames through the looped wire.
    Board(board::SimBoardArgs),
}

#[derive(Subcommand)]
enum BenchCmd {
    /// Back-to-back loopback at 64, 128, 512, 1518 and 9018-byte frames: cycles per frame
    /// and share of the configuration's line rate (full: 10 GbE at 156.25 MHz; small: 1 GbE
    /// at the ECPIX-5 build's 41.67 MHz).
    Loopback(bench::BenchArgs),
    /// Back-to-back TCP/IPv4 into the wire with filter, RSS and checksum validation on:
    /// cycles per frame per size.
    Rx(rx::BenchRxArgs),
    /// Back-to-back TCP/IPv4 onto the wire with checksum insertion, per size, and TSO of
    /// the largest IPv4 requests at MSS 1448: cycles per frame and share of line rate.
    Tx(bench_tx::BenchTxArgs),
    /// Two NICs back to back: RDMA goodput per operation, message size (64 B, 4 KiB,
    /// 1 MiB), path MTU (1024, 4096) and QP count (1, 8), and the latency of a 64-byte
    /// WRITE and READ, every byte checked.
    Rdma(rdma::BenchRdmaArgs),
    /// TCP between two network namespaces through `nic tap` (the kernels' stacks, two
    /// simulated NICs), with and without TSO and checksum offload: megabits per wall-clock
    /// second and simulator cycles per second while carrying them (needs root).
    Tap(tap::bench::BenchTapArgs),
    /// `nic rdma-perf` server and client across two kernel bridges: WRITE, READ and SEND
    /// bandwidth at 4 and 64 KiB in simulated time (share of 10 GbE) and wall-clock time,
    /// and READ/WRITE latency (needs root).
    RdmaPerf(rdma_perf::bench::BenchRdmaPerfArgs),
}

/// Hardware configuration.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum HwArg {
    Small,
    Full,
}

impl HwArg {
    pub fn hw(self) -> nic_hw::Config {
        match self {
            HwArg::Small => nic_hw::Config::Small,
            HwArg::Full => nic_hw::Config::Full,
        }
    }
    pub fn sim(self) -> nic_sim::HwConfig {
        match self {
            HwArg::Small => nic_sim::HwConfig::Small,
            HwArg::Full => nic_sim::HwConfig::Full,
        }
    }
    pub fn size(self) -> nic_testbench::backend::HwSize {
        match self {
            HwArg::Small => nic_testbench::backend::HwSize::Small,
            HwArg::Full => nic_testbench::backend::HwSize::Full,
        }
    }
}

/// Which NIC implementation runs.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum BackendArg {
    /// The Verilated RTL.
    Rtl,
    /// The behavioural model (fast; checks the driver, not the RTL).
    Model,
}

/// Parses `MIN..MAX`, `MIN..=MAX` (both inclusive) or a single `N`: frame sizes as the
/// driver sees them (without FCS), within 60..=9018.
/// A number of seconds within `range` (the long-running commands' intervals and waits).
pub fn parse_seconds_in(s: &str, range: std::ops::RangeInclusive<f64>) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} s is not in {}..={}", range.start(), range.end())),
        Err(_) => Err(format!("`{s}` is not a number of seconds")),
    }
}

pub fn parse_size_range(s: &str) -> Result<RangeInclusive<usize>, String> {
    use nic_testbench::gen::{MAX_LEN, MIN_LEN};
    let num = |t: &str, what: &str| -> Result<usize, String> {
        t.trim().parse::<usize>().map_err(|_| format!("{what} `{t}` is not a number (expected MIN..MAX, e.g. 60..1514)"))
    };
    let (lo, hi) = if let Some((a, b)) = s.split_once("..=") {
        (num(a, "MIN")?, num(b, "MAX")?)
    } else if let Some((a, b)) = s.split_once("..") {
        (num(a, "MIN")?, num(b, "MAX")?)
    } else {
        let n = num(s, "size")?;
        (n, n)
    };
    if lo > hi {
        return Err(format!("MIN {lo} is larger than MAX {hi}"));
    }
    if lo < MIN_LEN {
        return Err(format!("{lo} bytes is below the minimum frame of {MIN_LEN} bytes (64 on the wire with FCS)"));
    }
    if hi > MAX_LEN {
        return Err(format!("{hi} bytes is above the maximum frame of {MAX_LEN} bytes (9022 with FCS, the default MAX_FRAME_LEN)"));
    }
    Ok(lo..=hi)
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        // no permission to create the TAP interfaces: a distinct status, as the issue of
        // rights is not one of the command's input
        if matches!(e.downcast_ref::<tap::dev::TapError>(), Some(tap::dev::TapError::NotPermitted(_))) {
            std::process::exit(2);
        }
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Verilog { config, out } => {
            nic_hw::export::write_all(config.hw(), &out).with_context(|| format!("writing Verilog into {}", out.display()))?;
            println!("wrote {}/nic_top.v ({} configuration), {}/nic_top_{}.core, {}/waivers.vlt", out.display(), config.hw(), out.display(), config.hw(), out.display());
            Ok(())
        }
        Cmd::Regmap { out } => {
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            std::fs::write(out.join("regmap.md"), nic_regmap::render_markdown()).context("writing regmap.md")?;
            std::fs::write(out.join("nic_regs.h"), nic_regmap::render_c_header()).context("writing nic_regs.h")?;
            std::fs::write(out.join("nic_regs.rdl"), nic_regmap::render_systemrdl()).context("writing nic_regs.rdl")?;
            println!("wrote {0}/regmap.md, {0}/nic_regs.h and {0}/nic_regs.rdl", out.display());
            Ok(())
        }
        Cmd::Synth { target, config, block, speed, freq, ooc, quick, out } => {
            use nic_fpga::flow::{Design, Target};
            let design = match (block, ooc) {
                (Some(b), _) => Design::Block(b),
                (None, true) => Design::Core(config.hw()),
                (None, false) => Design::Nic(config.hw()),
            };
            let speed = speed.unwrap_or(if target == Target::Ecp5_85k && design == Design::Nic(config.hw()) { 8 } else { 6 });
            let freq = freq.unwrap_or(match target.family() {
                nic_fpga::Family::Ecp5 => 156.25,
                nic_fpga::Family::Ice40 => 33.0,
            });
            let mut bar = progress::Progress::new("nic synth", None, "steps");
            let r = nic_fpga::flow::synth_design(target, design, freq, speed, quick, &out, |step| bar.step(step));
            bar.finish();
            let r = r?;
            print!("{}", r.to_json());
            eprintln!("wrote {}/report.json", out.display());
            Ok(())
        }
        Cmd::Sim { cmd: SimCmd::Loopback(a) } => loopback::run(a),
        Cmd::Bench { cmd: BenchCmd::Loopback(a) } => bench::run(a),
        Cmd::Sim { cmd: SimCmd::Rx(a) } => rx::run_sim(a),
        Cmd::Sim { cmd: SimCmd::Tx(a) } => tx::run_sim(a),
        Cmd::Sim { cmd: SimCmd::Rdma(a) } => rdma::run_sim(a),
        Cmd::Sim { cmd: SimCmd::Board(a) } => board::run_sim(a),
        Cmd::Board(a) => board::run_board(a),
        Cmd::Tap(a) => tap::run(a),
        Cmd::RdmaPerf(a) => rdma_perf::run(a),
        Cmd::Bench { cmd: BenchCmd::Rx(a) } => rx::run_bench(a),
        Cmd::Bench { cmd: BenchCmd::Tx(a) } => bench_tx::run_bench(a),
        Cmd::Bench { cmd: BenchCmd::Rdma(a) } => rdma::run_bench(a),
        Cmd::Bench { cmd: BenchCmd::Tap(a) } => tap::bench::run(a),
        Cmd::Bench { cmd: BenchCmd::RdmaPerf(a) } => rdma_perf::bench::run(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_ranges() {
        assert_eq!(parse_size_range("60..1514").unwrap(), 60..=1514);
        assert_eq!(parse_size_range("60..=9018").unwrap(), 60..=9018);
        assert_eq!(parse_size_range("1000").unwrap(), 1000..=1000);
        assert!(parse_size_range("10..5").unwrap_err().contains("larger"));
        assert!(parse_size_range("59..100").unwrap_err().contains("below"));
        assert!(parse_size_range("60..9019").unwrap_err().contains("above"));
        assert!(parse_size_range("a..b").unwrap_err().contains("not a number"));
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
