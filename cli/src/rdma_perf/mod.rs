//! `nic rdma-perf`: one simulated NIC as a RoCEv2 host on a real Linux network, and
//! perftest's benchmarks (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`, and with `--lat`
//! their latency) between two such hosts or against a peer that speaks perftest.
//!
//! The NIC's wire is a TAP interface the command creates ([`host`]); the simulated host
//! owns `--ip` and runs a TCP/IP stack of its own over the NIC's Ethernet queues, which
//! carries perftest's out-of-band connection exchange ([`exchange`]) on TCP port 18515;
//! the benchmark itself goes through the driver's verbs and the RDMA engine
//! ([`run`]). docs/rdma.md says how to use it, also against a real `ib_write_bw`.

pub mod bench;
pub mod run;
pub mod exchange;
pub mod host;
pub mod link;

use crate::loopback::{open_device, SimArgs};
use crate::HwArg;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use host::SimHost;
use std::io::Write;
use std::net::Ipv4Addr;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    Write,
    Read,
    Send,
}

impl Op {
    /// The name `--op` takes.
    pub fn name(self) -> &'static str {
        match self {
            Op::Write => "write",
            Op::Read => "read",
            Op::Send => "send",
        }
    }

    /// perftest's name of the test, as its banner prints it.
    pub fn title(self, lat: bool) -> &'static str {
        match (self, lat) {
            (Op::Write, false) => "RDMA_Write BW Test",
            (Op::Read, false) => "RDMA_Read BW Test",
            (Op::Send, false) => "Send BW Test",
            (Op::Write, true) => "RDMA_Write Latency Test",
            (Op::Read, true) => "RDMA_Read Latency Test",
            (Op::Send, true) => "Send Latency Test",
        }
    }
}

#[derive(Args, Debug)]
pub struct RdmaPerfArgs {
    /// The TAP interface to create as the NIC's wire (move it into a namespace or a
    /// bridge after `ready`).
    #[arg(long, value_name = "NAME")]
    pub tap: String,
    /// The simulated host's IPv4 address and prefix (RoCEv2 and the TCP exchange).
    #[arg(long, value_name = "ADDR/PREFIX", value_parser = parse_cidr)]
    pub ip: (Ipv4Addr, u8),
    /// The host's MAC address (default 02:4e and the four bytes of --ip).
    #[arg(long, value_parser = parse_mac)]
    pub mac: Option<MacArg>,
    /// Wait for a client on --port.
    #[arg(long, conflicts_with = "client", required_unless_present = "client")]
    pub server: bool,
    /// Connect to the server at HOST (an IPv4 address).
    #[arg(long, value_name = "HOST")]
    pub client: Option<Ipv4Addr>,
    /// TCP port of perftest's connection exchange.
    #[arg(long, default_value_t = 18515)]
    pub port: u16,
    #[arg(long, value_enum, default_value_t = Op::Write)]
    pub op: Op,
    /// Bytes per message (1 .. 1 MiB).
    #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    pub size: u32,
    /// Messages per QP (perftest's default is 5000 for bandwidth; a simulated NIC takes
    /// its time).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub iters: u32,
    /// Path MTU: 256, 512, 1024, 2048 or 4096 (the smaller of the two sides' is used).
    #[arg(long, default_value_t = 1024, value_parser = crate::rdma::parse_mtu)]
    pub mtu: u32,
    /// Queue pairs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub qps: u32,
    /// Work requests outstanding per QP (perftest's --tx-depth).
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub tx_depth: u32,
    /// Latency instead of bandwidth: one message at a time, percentiles.
    #[arg(long)]
    pub lat: bool,
    /// Do not check the bytes that landed (for a peer whose buffer holds other data than
    /// this command's pattern, such as perftest's own).
    #[arg(long)]
    pub no_verify: bool,
    /// Seconds the server waits for a client to connect.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0, value_parser = parse_seconds)]
    pub accept_timeout: f64,
    /// Seconds the client tries to reach the server (ARP and TCP handshake).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_seconds)]
    pub connect_timeout: f64,
    /// Seconds to wait for each message of the exchange (and the final sync).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds)]
    pub exchange_timeout: f64,
    /// Seconds without a completion after which the benchmark gives up.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds)]
    pub stall_timeout: f64,
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    pub config: HwArg,
    /// Write every frame on the wire, both ways, to FILE (pcap, without FCS, wall-clock
    /// timestamps).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<std::path::PathBuf>,
    /// Write the NIC's waveform (FST) to FILE (RTL backend; slow).
    #[arg(long, value_name = "FILE")]
    pub wave: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub sim: SimArgs,
}

#[derive(Clone, Copy, Debug)]
pub struct MacArg(pub [u8; 6]);

fn parse_cidr(s: &str) -> Result<(Ipv4Addr, u8), String> {
    let Some((a, p)) = s.split_once('/') else {
        return Err(format!("`{s}`: give ADDR/PREFIX, e.g. 10.0.0.1/24"));
    };
    if a.contains(':') {
        return Err(format!("`{a}`: the RDMA engine carries RoCEv2 over IPv4 only; give an IPv4 address"));
    }
    let ip: Ipv4Addr = a.parse().map_err(|_| format!("`{a}` is not an IPv4 address"))?;
    let prefix: u8 = p.parse().ok().filter(|p| (1..=32).contains(p)).ok_or(format!("`{p}`: a prefix is 1 to 32"))?;
    if ip.is_unspecified() || ip.is_multicast() || ip.is_broadcast() || ip.is_loopback() {
        return Err(format!("{ip} cannot be a host's address"));
    }
    Ok((ip, prefix))
}

fn parse_mac(s: &str) -> Result<MacArg, String> {
    let b: Vec<u8> = s.split(':').map(|t| u8::from_str_radix(t, 16)).collect::<Result<_, _>>().map_err(|_| format!("`{s}` is not a MAC address (xx:xx:xx:xx:xx:xx)"))?;
    let m: [u8; 6] = b.try_into().map_err(|_| format!("`{s}`: a MAC address has six bytes"))?;
    if m[0] & 1 != 0 || m == [0; 6] {
        return Err(format!("`{s}` is not a unicast address"));
    }
    Ok(MacArg(m))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    crate::parse_seconds_in(s, 0.1..=86_400.0)
}

pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

pub use crate::stop::stopped;

pub fn mac_str(m: [u8; 6]) -> String {
    nic_testbench::wire::ethernet::EthernetAddress(m).to_string()
}

/// Exit status when the TAP cannot be created for lack of privileges (as `nic tap`).
pub const EXIT_NOT_PERMITTED: i32 = 2;

pub fn run(a: RdmaPerfArgs) -> Result<()> {
    if a.config != HwArg::Full {
        bail!("--config small: only the full configuration has the RDMA engine");
    }
    crate::stop::catch_stop_signals();
    let tap = match SimHost::create_tap(&a.tap) {
        Ok(t) => t,
        Err(crate::tap::dev::TapError::NotPermitted(m)) => {
            eprintln!("error: {m}");
            std::process::exit(EXIT_NOT_PERMITTED);
        }
        Err(e) => bail!("{e}"),
    };
    let (ip, prefix) = a.ip;
    let mac = a.mac.map_or_else(|| host::default_mac(ip), |m| m.0);
    let dev = open_device(&a.sim, a.config, a.wave.clone())?;
    let mut h = SimHost::new(dev, tap, ip, prefix, mac)?;
    if let Some(p) = &a.pcap {
        h.capture(p)?;
    }
    let role = if a.server { "server" } else { "client" };
    println!("ready role={role} tap={} ip={ip}/{prefix} ip6={} mac={} port={}", h.tap_name(), host::link_local(mac), mac_str(mac), a.port);
    std::io::stdout().flush().ok();
    let outcome = run::run(&a, &mut h);
    let outcome = outcome.and_then(|o| h.finish_capture().map(|_| o));
    // the counters also when the run failed: they say how far it got
    println!("{}", run::summary_line(role, &a, &mut h, outcome.as_ref().ok()));
    std::io::stdout().flush().ok();
    outcome.map(|_| ()).with_context(|| format!("rdma-perf {role} on {}", a.tap))
}
