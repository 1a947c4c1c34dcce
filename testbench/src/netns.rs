//! Linux network namespaces for tests that put the kernel's own stack on both ends of
//! the simulated NICs (`nic tap`): create and remove them with iproute2, run commands
//! in them, read an interface's counters as the kernel keeps them, and move TCP bytes
//! between two of them from threads that entered each (`setns(2)` is per thread), with
//! a SHA-256 of what each end saw.
//!
//! Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN), `ip` (iproute2) and, for pings,
//! `ping` (iputils-ping); `make setup` installs both.

use sha2::{Digest, Sha256};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn run(cmd: &mut Command) -> io::Result<Output> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!("{cmd:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(out)
}

/// Whether this process may create namespaces and TAP interfaces (it runs as root).
pub fn have_privileges() -> bool {
    // SAFETY: geteuid(2) has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// For a test that needs root: true when it may go on. Elsewhere it says `test` skipped
/// and returns false; under CI (`CI` set, which runs as root) it fails instead, so a
/// lost privilege cannot pass for a green run.
pub fn privileged_or_skip(test: &str) -> bool {
    if have_privileges() {
        return true;
    }
    assert!(std::env::var("CI").is_err(), "{test} needs root, and CI runs as root");
    eprintln!("{test}: skipped (needs root to create TAP interfaces and network namespaces)");
    false
}

/// A named network namespace (`ip netns add`), removed on drop.
#[derive(Debug)]
pub struct Netns {
    name: String,
}

/// An interface's counters as the kernel keeps them (`/sys/class/net/IF/statistics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IfCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
}

impl Netns {
    /// Creates namespace `name` with its loopback up.
    pub fn create(name: &str) -> io::Result<Netns> {
        run(Command::new("ip").args(["netns", "add", name]))?;
        let ns = Netns { name: name.to_string() };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// `ip -n NAME ARGS...`, which must succeed.
    pub fn ip(&self, args: &[&str]) -> io::Result<Output> {
        run(Command::new("ip").arg("-n").arg(&self.name).args(args))
    }

    /// Runs `argv` in the namespace (`ip netns exec`); its output, success or not.
    pub fn exec(&self, argv: &[&str]) -> io::Result<Output> {
        Command::new("ip").args(["netns", "exec", &self.name]).args(argv).output()
    }

    /// Moves interface `ifname` (from the caller's namespace) here, gives it `addrs`
    /// (CIDR; IPv6 ones without duplicate address detection, so they are usable at once)
    /// and brings it up.
    pub fn take_interface(&self, ifname: &str, addrs: &[&str]) -> io::Result<()> {
        run(Command::new("ip").args(["link", "set", ifname, "netns", &self.name]))?;
        for a in addrs {
            let mut args = vec!["addr", "add", a, "dev", ifname];
            if a.contains(':') {
                args.push("nodad");
            }
            self.ip(&args)?;
        }
        self.ip(&["link", "set", ifname, "up"])?;
        Ok(())
    }

    /// The kernel's counters of `ifname` in this namespace.
    pub fn counters(&self, ifname: &str) -> io::Result<IfCounters> {
        let dir = format!("/sys/class/net/{ifname}/statistics");
        let files: Vec<String> = ["tx_packets", "tx_bytes", "rx_packets", "rx_bytes"].iter().map(|f| format!("{dir}/{f}")).collect();
        let mut argv = vec!["cat"];
        argv.extend(files.iter().map(String::as_str));
        let out = self.exec(&argv)?;
        if !out.status.success() {
            return Err(io::Error::other(format!("reading {dir} in {}: {}", self.name, String::from_utf8_lossy(&out.stderr).trim())));
        }
        let v: Vec<u64> = String::from_utf8_lossy(&out.stdout).split_whitespace().map(|t| t.parse().unwrap_or(u64::MAX)).collect();
        if v.len() != 4 || v.contains(&u64::MAX) {
            return Err(io::Error::other(format!("unexpected counters in {dir}: {v:?}")));
        }
        Ok(IfCounters { tx_packets: v[0], tx_bytes: v[1], rx_packets: v[2], rx_bytes: v[3] })
    }

    /// `ping -c COUNT ADDR` from this namespace (IPv6 when ADDR has a colon); its
    /// output when every reply came back.
    pub fn ping(&self, addr: &str, count: u32) -> io::Result<String> {
        let c = count.to_string();
        let mut argv = vec!["ping", "-c", &c, "-W", "10", "-i", "0.2"];
        if addr.contains(':') {
            argv.push("-6");
        }
        argv.push(addr);
        let out = self.exec(&argv)?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() || !text.contains(&format!("{count} received")) {
            return Err(io::Error::other(format!("ping {addr} from {} failed ({}): {text}{}", self.name, out.status, String::from_utf8_lossy(&out.stderr))));
        }
        Ok(text)
    }

    /// Runs `f` on a new thread that entered this namespace first: the sockets it
    /// opens live here.
    pub fn spawn<T: Send + 'static>(&self, f: impl FnOnce() -> io::Result<T> + Send + 'static) -> std::thread::JoinHandle<io::Result<T>> {
        let path = format!("/run/netns/{}", self.name);
        std::thread::spawn(move || {
            let ns = std::fs::File::open(&path)?;
            // SAFETY: setns(2) with a namespace file we hold open; it changes this thread only.
            if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(io::Error::other(format!("setns into {path}: {}", io::Error::last_os_error())));
            }
            f()
        })
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.name]).output();
    }
}

/// What one TCP transfer moved, as each end saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    pub sent_len: usize,
    pub sent_sha256: [u8; 32],
    pub received_len: usize,
    pub received_sha256: [u8; 32],
    /// From the connection's start to the receiver seeing its end.
    pub seconds: f64,
}

/// Sends `data` over one TCP connection from a socket in `client` to `server_addr`,
/// listened on in `server`; each end hashes what it wrote or read. Every blocking call
/// is bounded by `timeout`.
pub fn tcp_transfer(server: &Netns, server_addr: SocketAddr, client: &Netns, data: Vec<u8>, timeout: Duration) -> io::Result<Transfer> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
    let receiver = server.spawn(move || {
        let l = TcpListener::bind(server_addr)?;
        l.set_nonblocking(true)?;
        let _ = ready_tx.send(());
        let start = Instant::now();
        let mut conn = loop {
            match l.accept() {
                Ok((c, _)) => break c,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(io::Error::other(format!("accept on {server_addr}: {e}"))),
            }
        };
        conn.set_nonblocking(false)?;
        conn.set_read_timeout(Some(timeout))?;
        let mut h = Sha256::new();
        let mut n = 0;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let k = conn.read(&mut buf).map_err(|e| io::Error::other(format!("receiving after {n} bytes: {e}")))?;
            if k == 0 {
                break;
            }
            h.update(&buf[..k]);
            n += k;
        }
        // tell the sender everything arrived (it waits for this before closing)
        conn.write_all(b"k")?;
        Ok((n, <[u8; 32]>::from(h.finalize())))
    });
    ready_rx.recv_timeout(timeout).map_err(|_| io::Error::other("the receiver never listened"))?;
    let sender = client.spawn(move || {
        let start = Instant::now();
        let mut conn = TcpStream::connect_timeout(&server_addr, timeout)?;
        conn.set_write_timeout(Some(timeout))?;
        conn.set_read_timeout(Some(timeout))?;
        conn.write_all(&data)?;
        conn.shutdown(std::net::Shutdown::Write)?;
        let mut ack = [0u8; 1];
        conn.read_exact(&mut ack).map_err(|e| io::Error::other(format!("waiting for the receiver's end: {e}")))?;
        Ok((data.len(), <[u8; 32]>::from(Sha256::digest(&data)), start.elapsed().as_secs_f64()))
    });
    let (sent_len, sent_sha256, seconds) = sender.join().map_err(|_| io::Error::other("sender panicked"))??;
    let (received_len, received_sha256) = receiver.join().map_err(|_| io::Error::other("receiver panicked"))??;
    Ok(Transfer { sent_len, sent_sha256, received_len, received_sha256, seconds })
}

/// Hex of a digest.
pub fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}
