//! A network for `nic rdma-perf`: two namespaces, each with a Linux bridge, the bridges
//! joined by a veth pair, IPv6 and multicast snooping off (so the kernel adds no frames of
//! its own: no neighbour discovery, no IGMP reports of the bridges) and jumbo
//! frames allowed (path MTU 4096). Each `nic rdma-perf` process's TAP is moved into
//! one namespace and onto its bridge once the process printed `ready`, so everything
//! between two simulated hosts crosses two real kernel bridges. The kernel may also get
//! an address on a bridge, to play a peer of its own (the bad-input tests).
//!
//! Needs root, like [`crate::netns`].

use crate::netns::Netns;
use crate::tap_session::Counters;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// MTU of every kernel link (a RoCE packet at path MTU 4096 is 4,158 bytes long).
pub const LINK_MTU: &str = "9000";

/// The two namespaces and their bridges.
pub struct RdmaNet {
    pub ns: [Netns; 2],
    /// The hosts' subnet: `10.<net>.0.0/24`.
    pub net: u8,
}

fn check(out: io::Result<std::process::Output>, what: &str) -> io::Result<()> {
    let out = out?;
    if !out.status.success() {
        return Err(io::Error::other(format!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(())
}

impl RdmaNet {
    /// Namespaces `<prefix>a` and `<prefix>b`, each with bridge `br0`, joined by veth;
    /// IPv6 off unless `ipv6` (then the kernels add frames of their own).
    pub fn create(prefix: &str, net: u8, ipv6: bool) -> io::Result<RdmaNet> {
        let ns = [Netns::create(&format!("{prefix}a"))?, Netns::create(&format!("{prefix}b"))?];
        for n in &ns {
            let off = if ipv6 { "0" } else { "1" };
            check(n.exec(&["sysctl", "-qw", &format!("net.ipv6.conf.all.disable_ipv6={off}"), &format!("net.ipv6.conf.default.disable_ipv6={off}")]), "setting IPv6")?;
            n.ip(&["link", "add", "br0", "mtu", LINK_MTU, "type", "bridge", "stp_state", "0", "mcast_snooping", "0"])?;
        }
        // made inside the namespaces, so they take the namespaces' IPv6 setting
        ns[0].ip(&["link", "add", "v0", "mtu", LINK_MTU, "type", "veth", "peer", "name", "v1", "mtu", LINK_MTU, "netns", ns[1].name()])?;
        for (n, v) in ns.iter().zip(["v0", "v1"]) {
            n.ip(&["link", "set", v, "master", "br0"])?;
            n.ip(&["link", "set", "br0", "up"])?;
            n.ip(&["link", "set", v, "up"])?;
        }
        let net = RdmaNet { ns, net };
        net.wait_forwarding(0, "v0")?;
        net.wait_forwarding(1, "v1")?;
        Ok(net)
    }

    /// Waits until bridge port `port` of namespace `side` forwards. The kernel enables a
    /// port when its link watch sees the carrier, which it may defer by up to a second
    /// (a veth's carrier comes when both ends are up); a frame before that is dropped.
    pub fn wait_forwarding(&self, side: usize, port: &str) -> io::Result<()> {
        let path = format!("/sys/class/net/{port}/brport/state");
        let start = Instant::now();
        loop {
            // `ip netns exec` mounts the namespace's own /sys; 3 is BR_STATE_FORWARDING
            let out = self.ns[side].exec(&["cat", &path])?;
            if String::from_utf8_lossy(&out.stdout).trim() == "3" {
                return Ok(());
            }
            if start.elapsed() > Duration::from_secs(10) {
                return Err(io::Error::other(format!("bridge port {port} in {} does not forward after 10 s ({})", self.ns[side].name(), String::from_utf8_lossy(&out.stdout).trim())));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The simulated host `k`'s address (`10.<net>.0.<k>`).
    pub fn host(&self, k: u8) -> String {
        format!("10.{}.0.{k}", self.net)
    }

    /// Moves TAP `name` into namespace `side`, onto its bridge, and brings it up.
    pub fn attach(&self, side: usize, name: &str) -> io::Result<()> {
        check(Command::new("ip").args(["link", "set", name, "netns", self.ns[side].name()]).output(), "moving the TAP")?;
        let n = &self.ns[side];
        check(n.exec(&["sysctl", "-qw", &format!("net.ipv6.conf.{name}.disable_ipv6=1")]), "disabling IPv6 on the TAP")?;
        n.ip(&["link", "set", name, "mtu", LINK_MTU])?;
        n.ip(&["link", "set", name, "master", "br0"])?;
        n.ip(&["link", "set", name, "up"])?;
        self.wait_forwarding(side, name)
    }

    /// A server (host 1, TAP `<tag>s` on bridge A) and a client of it (host 2, TAP
    /// `<tag>c` on bridge B), each `nic rdma-perf` with `args` and its own extra
    /// arguments, each TAP attached once its process is ready; waits for both to end
    /// (each within `run`). Returns the server's exit, then the client's.
    pub fn run_pair(&self, nic: &Path, tag: &str, args: &[&str], server_extra: &[&str], client_extra: &[&str], run: Duration) -> io::Result<(PerfExit, PerfExit)> {
        const READY: Duration = Duration::from_secs(120);
        let (s_tap, c_tap) = (format!("{tag}s"), format!("{tag}c"));
        let (s_ip, c_ip, host1) = (format!("{}/24", self.host(1)), format!("{}/24", self.host(2)), self.host(1));
        let s_args: Vec<&str> = ["--ip", &s_ip, "--server"].iter().chain(server_extra).chain(args).copied().collect();
        let server = PerfProcess::start(nic, &s_tap, &s_args, READY)?;
        self.attach(0, &s_tap)?;
        let c_args: Vec<&str> = ["--ip", &c_ip, "--client", &host1].iter().chain(client_extra).chain(args).copied().collect();
        let client = PerfProcess::start(nic, &c_tap, &c_args, READY)?;
        self.attach(1, &c_tap)?;
        let c = client.wait(run)?;
        let s = server.wait(run)?;
        Ok((s, c))
    }

    /// Gives the kernel of namespace `side` address `10.<net>.0.<k>/24` on its bridge.
    pub fn kernel_address(&self, side: usize, k: u8) -> io::Result<String> {
        let a = self.host(k);
        self.ns[side].ip(&["addr", "add", &format!("{a}/24"), "dev", "br0"])?;
        Ok(a)
    }
}

/// One `nic rdma-perf` process.
pub struct PerfProcess {
    child: Child,
    lines: Receiver<Option<String>>,
    /// Everything it printed (stdout and stderr, interleaved per stream).
    pub transcript: Vec<String>,
    pub tap: String,
}

/// How it ended.
#[derive(Debug)]
pub struct PerfExit {
    pub status: ExitStatus,
    pub transcript: Vec<String>,
    /// Its `summary` line.
    pub summary: Option<Counters>,
}

impl PerfExit {
    pub fn text(&self) -> String {
        self.transcript.join("\n")
    }
}

impl PerfProcess {
    /// Starts `nic rdma-perf --tap TAP ARGS...` and waits for `ready` (`timeout`).
    pub fn start(nic: &Path, tap: &str, args: &[&str], timeout: Duration) -> io::Result<PerfProcess> {
        let mut child = Command::new(nic).arg("rdma-perf").args(["--tap", tap]).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let (tx, lines) = channel();
        for stream in [Box::new(child.stdout.take().expect("piped")) as Box<dyn io::Read + Send>, Box::new(child.stderr.take().expect("piped"))] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for l in BufReader::new(stream).lines() {
                    let Ok(l) = l else { break };
                    if tx.send(Some(l)).is_err() {
                        return;
                    }
                }
                let _ = tx.send(None);
            });
        }
        let mut p = PerfProcess { child, lines, transcript: Vec::new(), tap: tap.to_string() };
        let start = Instant::now();
        let mut closed = 0;
        while !p.transcript.iter().any(|l| l.starts_with("ready ")) {
            let left = timeout.checked_sub(start.elapsed()).ok_or_else(|| io::Error::other(format!("no `ready` from nic rdma-perf within {timeout:?}: {}", p.transcript.join("\n"))))?;
            match p.lines.recv_timeout(left) {
                Ok(Some(l)) => p.transcript.push(l),
                Ok(None) => {
                    closed += 1;
                    if closed == 2 {
                        let st = p.child.wait()?;
                        return Err(io::Error::other(format!("nic rdma-perf exited ({st}) before `ready`: {}", p.transcript.join("\n"))));
                    }
                }
                Err(_) => return Err(io::Error::other(format!("no `ready` from nic rdma-perf within {timeout:?}: {}", p.transcript.join("\n")))),
            }
        }
        Ok(p)
    }

    /// Waits for the process to exit (killing it after `timeout`: a hang is a failure).
    pub fn wait(mut self, timeout: Duration) -> io::Result<PerfExit> {
        let start = Instant::now();
        let mut closed = 0;
        while closed < 2 {
            let left = timeout.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(Some(l)) => self.transcript.push(l),
                Ok(None) => closed += 1,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return Err(io::Error::other(format!("nic rdma-perf did not finish within {timeout:?} (killed): {}", self.transcript.join("\n"))));
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = self.child.wait()?;
        let summary = self.transcript.iter().find_map(|l| Counters::parse(l).filter(|c| c.kind == "summary"));
        Ok(PerfExit { status, transcript: std::mem::take(&mut self.transcript), summary })
    }
}

impl Drop for PerfProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
