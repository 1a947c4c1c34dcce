//! `nic sim rx`: replay a pcap into the simulated wire and report, per frame, what the
//! receive side decided (filter, queue, RSS hash and type, checksum verdicts), plus one
//! pcap per queue of what the driver received.
//!
//! `nic bench rx`: back-to-back TCP/IPv4 frames on random flows with the MAC filter,
//! RSS over every queue and checksum validation all on, per frame size.

use crate::loopback::{open_device, SimArgs};
use crate::report::{grouped, round};
use crate::HwArg;
use anyhow::{bail, Context, Result};
use clap::Args;
use nic_driver::{IrqMode, MacFilter, Nic, NicConfig, RxFilterMode};
use nic_regmap::rxc::RSS_DEFAULT_KEY;
use nic_testbench::pcap::{self, PcapWriter, LINKTYPE_ETHERNET};
use nic_testbench::rxsuite::{replay_one_by_one_with, RxOutcome};
use crate::line_rate;
use nic_testbench::{fcs, rxgen};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SimRxArgs {
    /// Frames to replay (pcap or pcapng, Ethernet, without FCS as captured).
    #[arg(long, value_name = "IN.pcap")]
    pcap: PathBuf,
    /// Output directory: rx.jsonl and queue-<n>.pcap.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// RX queues to open and spread RSS over (default: all the configuration has).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    queues: Option<u32>,
    /// RSS key, 40 bytes as 80 hex digits (colons allowed). Default: the common default key.
    #[arg(long, value_name = "HEX", value_parser = parse_key)]
    rss_key: Option<[u8; 40]>,
    /// Hash types, comma separated: ipv4, tcp-ipv4, udp-ipv4, ipv6, tcp-ipv6, udp-ipv6,
    /// all or none. Default: all.
    #[arg(long, value_name = "LIST", value_parser = parse_types, default_value = "all")]
    rss_types: u32,
    /// Accept this destination (exact-match filter entry); repeat for up to 16. With
    /// --mac the filter is on (broadcast accepted); without, the NIC stays promiscuous.
    #[arg(long, value_name = "MAC", value_parser = parse_mac)]
    mac: Vec<[u8; 6]>,
    /// Accept every frame.
    #[arg(long)]
    promisc: bool,
    /// Accept every multicast frame.
    #[arg(long)]
    allmulti: bool,
    #[command(flatten)]
    sim: SimArgs,
}

pub fn parse_key(s: &str) -> Result<[u8; 40], String> {
    let hex: String = s.chars().filter(|c| *c != ':').collect();
    if hex.len() != 80 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("an RSS key is 40 bytes: 80 hex digits (colons allowed), got {} characters", hex.len()));
    }
    let mut key = [0u8; 40];
    for (i, b) in key.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    Ok(key)
}

pub fn parse_types(s: &str) -> Result<u32, String> {
    use nic_driver::rxclass::rss_types as t;
    let mut v = 0;
    for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        v |= match name {
            "ipv4" => t::IPV4,
            "tcp-ipv4" => t::TCP_IPV4,
            "udp-ipv4" => t::UDP_IPV4,
            "ipv6" => t::IPV6,
            "tcp-ipv6" => t::TCP_IPV6,
            "udp-ipv6" => t::UDP_IPV6,
            "all" => t::ALL,
            "none" => 0,
            other => return Err(format!("unknown hash type `{other}` (ipv4, tcp-ipv4, udp-ipv4, ipv6, tcp-ipv6, udp-ipv6, all, none)")),
        };
    }
    Ok(v)
}

pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return Err(format!("`{s}` is not a MAC address (six hex bytes, e.g. 02:00:00:00:00:01)"));
    }
    let mut m = [0u8; 6];
    for (b, p) in m.iter_mut().zip(&parts) {
        *b = u8::from_str_radix(p, 16).map_err(|_| format!("`{s}` is not a MAC address: `{p}` is not a hex byte"))?;
        if p.len() > 2 {
            return Err(format!("`{s}` is not a MAC address: `{p}` is longer than a byte"));
        }
    }
    Ok(m)
}

fn type_name(t: u8) -> &'static str {
    ["none", "ipv4", "tcp-ipv4", "udp-ipv4", "ipv6", "tcp-ipv6", "udp-ipv6"].get(usize::from(t)).copied().unwrap_or("reserved")
}

fn csum_name(v: u8) -> &'static str {
    ["not-checked", "good", "bad"].get(usize::from(v)).copied().unwrap_or("reserved")
}

/// One line of `rx.jsonl`: what the receive side decided for one frame.
#[derive(serde::Serialize)]
struct RxJsonLine {
    index: usize,
    accepted: bool,
    drop_reason: Option<&'static str>,
    queue: Option<u32>,
    /// Hex, 8 digits.
    rss_hash: String,
    rss_type: &'static str,
    l3_csum: &'static str,
    l4_csum: &'static str,
    ptype: u16,
    len: usize,
}

fn json_line(o: &RxOutcome) -> String {
    let line = RxJsonLine {
        index: o.index,
        accepted: o.accepted,
        drop_reason: o.drop_reason,
        queue: o.queue,
        rss_hash: format!("{:08x}", o.rss_hash),
        rss_type: type_name(o.rss_type),
        l3_csum: csum_name(o.l3_csum),
        l4_csum: csum_name(o.l4_csum),
        ptype: o.ptype,
        len: o.len,
    };
    serde_json::to_string(&line).expect("a line always serializes")
}

/// `nic bench rx --json`.
#[derive(serde::Serialize)]
struct RxBenchJson {
    config: String,
    backend: String,
    bus: String,
    queues: u32,
    results: Vec<RxBenchJsonRow>,
}

#[derive(serde::Serialize)]
struct RxBenchJsonRow {
    frame_bytes: usize,
    frames: usize,
    cycles_per_frame: f64,
    beats_per_frame: f64,
    beat_efficiency: f64,
    line_rate_ratio: f64,
    completion_latency_cycles: u64,
}

pub fn run_sim(a: SimRxArgs) -> Result<()> {
    let entries = a.config.hw().mac_filters();
    if a.mac.len() > entries as usize {
        bail!("{} --mac addresses given; the {} configuration's exact-match table has {entries} entries", a.mac.len(), a.config.hw());
    }
    let frames = pcap::read_file(&a.pcap).with_context(|| format!("reading {}", a.pcap.display()))?;
    let hw_queues = a.config.hw().rx_queues();
    let queues = a.queues.unwrap_or(hw_queues);
    if queues > hw_queues || !queues.is_power_of_two() {
        bail!("--queues {queues}: the {} configuration has {hw_queues} RX queues (use a power of two up to that)", a.config.hw());
    }
    if let Some(i) = frames.iter().position(|f| f.len() + fcs::FCS_LEN > 9022) {
        bail!("frame {i} is {} bytes: longer than the NIC's maximum (9018 bytes without FCS)", frames[i].len());
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut dev = open_device(&a.sim, a.config, None)?;
    let cfg = NicConfig { rx_queues: queues, rx_ring_log2: 8, rx_buf_len: 9216, irq_mode: IrqMode::Polling, ..NicConfig::default() };
    let mut nic = Nic::open_with(&mut dev, cfg).context("opening the NIC")?;
    nic.set_loopback(false)?;
    if nic.has_rss() {
        nic.set_rss_key(&a.rss_key.unwrap_or(RSS_DEFAULT_KEY))?;
        nic.set_rss_types(a.rss_types)?;
    } else if a.rss_key.is_some() {
        bail!("--rss-key: the {} configuration has no RSS (use --config full)", a.config.hw());
    }
    for (i, m) in a.mac.iter().enumerate() {
        nic.set_mac_filter(i as u32, Some(MacFilter { addr: *m, steer_queue: None }))?;
    }
    let promisc = a.promisc || a.mac.is_empty();
    nic.set_rx_filter_mode(RxFilterMode { promisc, allmulti: a.allmulti, broadcast: true })?;
    // A sender's MAC pads frames to the 60-byte minimum; captures show them unpadded.
    let wire: Vec<Vec<u8>> = frames.iter().map(|f| fcs::padded(f)).collect();
    let mut bar = crate::progress::Progress::new("sim rx", Some(wire.len() as u64), "frames");
    let outcomes = replay_one_by_one_with(&mut nic, &wire, 400_000, |n| bar.set(n as u64));
    bar.finish();
    let outcomes = outcomes.map_err(anyhow::Error::msg)?;
    let mut jsonl = std::io::BufWriter::new(std::fs::File::create(a.out.join("rx.jsonl"))?);
    let mut per_queue: Vec<PcapWriter<_>> = (0..queues)
        .map(|q| -> Result<_> { Ok(PcapWriter::new(std::io::BufWriter::new(std::fs::File::create(a.out.join(format!("queue-{q}.pcap")))?), LINKTYPE_ETHERNET)?) })
        .collect::<Result<_>>()?;
    let mut counts = vec![0u64; queues as usize];
    let mut dropped = 0u64;
    for (o, f) in outcomes.iter().zip(&wire) {
        writeln!(jsonl, "{}", json_line(o))?;
        match o.queue {
            Some(q) => {
                per_queue[q as usize].write(o.index as u64 * 1000, f)?;
                counts[q as usize] += 1;
            }
            None => dropped += 1,
        }
    }
    jsonl.flush()?;
    for w in per_queue {
        w.into_inner().flush()?;
    }
    println!(
        "{} frames: {} delivered ({}), {} dropped; wrote {}/rx.jsonl and queue-0..{}.pcap",
        grouped(frames.len() as u64),
        grouped(frames.len() as u64 - dropped),
        counts.iter().enumerate().map(|(q, n)| format!("q{q} {n}")).collect::<Vec<_>>().join(", "),
        grouped(dropped),
        a.out.display(),
        queues - 1
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct BenchRxArgs {
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    /// Frames measured per size (after a warm-up).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    frames: Option<u64>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sim: SimArgs,
}

/// Frame sizes on the wire, FCS included (odd sizes too: a last beat of 1..7 bytes).
pub const SIZES: [usize; 12] = [64, 65, 71, 100, 128, 256, 512, 1024, 1500, 1518, 4096, 9018];

struct Row {
    wire_len: usize,
    frames: usize,
    cycles_per_frame: f64,
    beats_per_frame: f64,
    line_cycles: f64,
    latency: u64,
}

/// Cycles from offering one frame on an idle wire until its completion (DONE in the
/// descriptor) is visible in host memory; the driver polls memory only, which costs
/// no simulated time.
fn completion_latency<D: nic_driver::Device + nic_testbench::WireAccess>(nic: &mut Nic<D>, frame: &[u8]) -> Result<u64> {
    nic.device_mut().idle(2_000);
    nic.rx_burst_all(1024)?;
    let queues = nic.config().rx_queues;
    let start = nic.cycles();
    nic.device_mut().inject_rx(&fcs::with_fcs(frame), false);
    loop {
        for q in 0..queues {
            if nic.rx_ready(q)? {
                let cycles = nic.cycles() - start;
                nic.rx_burst_on(q, 1)?;
                return Ok(cycles);
            }
        }
        if nic.cycles() - start > 100_000 {
            bail!("a {}-byte frame never completed", frame.len());
        }
        nic.device_mut().idle(1);
    }
}

pub fn run_bench(a: BenchRxArgs) -> Result<()> {
    let mut rows = Vec::new();
    let queues = a.config.hw().rx_queues();
    let target = line_rate::target(a.config.hw());
    let ours = [0x02, 0x4e, 0x49, 0x43, 0x00, 0x01];
    let mut bar = (!a.json).then(|| crate::progress::Progress::new("bench rx", Some(SIZES.len() as u64), "sizes"));
    for &wire_len in &SIZES {
        let mut dev = open_device(&a.sim, a.config, None)?;
        let cfg = NicConfig { rx_queues: queues, rx_ring_log2: 10, rx_buf_len: 9216, irq_mode: IrqMode::Polling, ..NicConfig::default() };
        let mut nic = Nic::open_with(&mut dev, cfg).context("opening the NIC")?;
        nic.set_loopback(false)?;
        // filter on (one exact entry), RSS over every queue, checksums checked (always on)
        nic.set_mac_filter(0, Some(MacFilter { addr: ours, steer_queue: None }))?;
        nic.set_rx_filter_mode(RxFilterMode::NORMAL)?;
        let measured = a.frames.map_or_else(|| ((100_000.0 / line_rate::target(nic_hw::Config::Full).cycles_per_frame(wire_len as u64)) as usize).clamp(300, 8000), |f| f as usize);
        let warmup = 64;
        let count = warmup + measured;
        let mut rng = StdRng::seed_from_u64(wire_len as u64);
        let pool: Vec<Vec<u8>> = (0..64).map(|_| rxgen::flow_frame(&mut rng, ours, wire_len - fcs::FCS_LEN)).collect();
        // what the build says of a good TCP/IPv4 frame: a build without checksum
        // validation or RSS (FEATURES) says "not checked" and hash type none
        let features = nic.layout().features;
        let csum = |bit: u32| if features & bit != 0 { nic_regmap::desc::CSUM_GOOD } else { nic_regmap::desc::CSUM_NOT_CHECKED };
        let want_csum = (csum(nic_regmap::bits::FEATURES_RX_CSUM), csum(nic_regmap::bits::FEATURES_RX_CSUM));
        let want_hash = if features & nic_regmap::bits::FEATURES_RSS != 0 { nic_regmap::desc::HASH_TCP_IPV4 } else { nic_regmap::desc::HASH_NONE };
        let want_what = format!("checksums {:?}, hash type {want_hash}", want_csum);
        let before = nic.stats()?;
        for i in 0..count {
            nic.device_mut().inject_rx(&fcs::with_fcs(&pool[i % pool.len()]), false);
        }
        let mut seen = 0usize;
        let mut t_warm = None;
        let mut t_last = 0;
        let start = nic.cycles();
        while seen < count {
            let got = nic.rx_burst_all(256)?;
            if got.is_empty() {
                if nic.cycles() - start > 1_000 + 4 * (count * wire_len) as u64 {
                    bail!("{wire_len}-byte frames: only {seen} of {count} arrived ({:?})", nic.stats()?.since(&before));
                }
                nic.device_mut().idle(8);
                continue;
            }
            for r in got {
                if (r.l3_csum(), r.l4_csum()) != want_csum || r.hash_type() != want_hash {
                    bail!("{wire_len}-byte frame {seen}: not classified as a good TCP/IPv4 frame ({want_what}): flags {:#06x}", r.flags);
                }
                seen += 1;
                if seen == warmup {
                    t_warm = Some(nic.cycles());
                }
            }
            t_last = nic.cycles();
        }
        let d = nic.stats()?.since(&before);
        if d.rx_drops() != 0 {
            bail!("{wire_len}-byte frames: drops {d:?}");
        }
        let steady = (t_last - t_warm.unwrap()) as f64 / (count - warmup) as f64;
        let latency = completion_latency(&mut nic, &pool[0])?;
        rows.push(Row {
            wire_len,
            frames: count - warmup,
            cycles_per_frame: steady,
            beats_per_frame: wire_len.div_ceil(8) as f64,
            line_cycles: target.cycles_per_frame(wire_len as u64),
            latency,
        });
        if let Some(b) = &mut bar {
            b.done_one(&format!("{wire_len} bytes done ({} frames)", grouped(count as u64)));
        }
    }
    if let Some(b) = bar {
        b.finish();
    }
    if a.json {
        let report = RxBenchJson {
            config: a.config.hw().to_string(),
            backend: format!("{:?}", a.sim.backend),
            bus: format!("{:?}", a.sim.bus),
            queues,
            results: rows
                .iter()
                .map(|r| RxBenchJsonRow {
                    frame_bytes: r.wire_len,
                    frames: r.frames,
                    cycles_per_frame: round(r.cycles_per_frame, 3),
                    beats_per_frame: r.beats_per_frame,
                    beat_efficiency: round(r.beats_per_frame / r.cycles_per_frame, 5),
                    line_rate_ratio: round(r.line_cycles / r.cycles_per_frame, 5),
                    completion_latency_cycles: r.latency,
                })
                .collect(),
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let classes = if a.config.hw().has_rx_offload() {
        format!("MAC filter, RSS over {queues} queues, checksum validation on")
    } else {
        "MAC filter only: this configuration has no RSS or checksum validation".to_string()
    };
    println!(
        "RX back to back (TCP/IPv4, random flows; {classes}), {} configuration, {:?} backend, {:?} bus",
        a.config.hw(),
        a.sim.backend,
        a.sim.bus
    );
    println!("target: {}; the datapath moves {}", target.describe(), target.limit);
    println!("{:>11} {:>8} {:>14} {:>14} {:>16} {:>13} {:>16}", "frame bytes", "frames", "cycles/frame", "beats/frame", "beats per cycle", "% line rate", "latency cycles");
    for r in &rows {
        println!(
            "{:>11} {:>8} {:>14.2} {:>14} {:>16.3} {:>12.1}% {:>16}",
            r.wire_len,
            r.frames,
            r.cycles_per_frame,
            r.beats_per_frame,
            r.beats_per_frame / r.cycles_per_frame,
            100.0 * r.line_cycles / r.cycles_per_frame,
            r.latency
        );
    }
    println!("(beats: 64-bit wire beats of the frame with FCS; 1.000 beats per cycle is the wire's full rate;");
    println!(" line rate: {} with 20 bytes of preamble and gap per frame, which the AXI4-Stream wire does not have;", target.describe());
    println!(" latency: one frame on an idle NIC, from its first beat offered on the wire to its completion visible in host memory)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn argument_parsers() {
        assert_eq!(parse_key(&"6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa").unwrap(), RSS_DEFAULT_KEY);
        assert!(parse_key("6d5a").unwrap_err().contains("80 hex digits"));
        assert_eq!(parse_types("ipv4,tcp-ipv6").unwrap(), 1 | 16);
        assert_eq!(parse_types("none").unwrap(), 0);
        assert!(parse_types("tcp").unwrap_err().contains("unknown hash type"));
        assert_eq!(parse_mac("02:00:5e:10:00:ff").unwrap(), [2, 0, 0x5e, 0x10, 0, 0xff]);
        assert!(parse_mac("02:00:5e:10:00").is_err());
        assert!(parse_mac("02:00:5e:10:00:fg").unwrap_err().contains("hex byte"));
    }
}
