//! A running `nic tap` (two TAP interfaces joined through two simulated NICs), its
//! interfaces in two network namespaces with IPv4 and IPv6 addresses: the kernel's own
//! stack on both ends of the RTL. Used by the CLI's TAP test and `nic bench tap`.
//!
//! The command's `stats`/`summary` lines are `key=value` tokens (cli/src/tap/mod.rs,
//! `counter_line`); [`Counters`] reads them.

use crate::netns::{IfCounters, Netns};
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// One `stats` or `summary` line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub kind: String,
    values: HashMap<String, f64>,
}

impl Counters {
    /// Parses a `stats ...`/`summary ...` line.
    pub fn parse(line: &str) -> Option<Counters> {
        let mut t = line.split_whitespace();
        let kind = t.next().filter(|k| *k == "stats" || *k == "summary")?.to_string();
        let values = t.filter_map(|kv| kv.split_once('=')).filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?))).collect();
        Some(Counters { kind, values })
    }

    /// A counter (`a.nic_tx_frames`, `elapsed`, ...); panics when the line lacks it, as
    /// a test then checks nothing.
    pub fn get(&self, key: &str) -> u64 {
        self.values.get(key).copied().unwrap_or_else(|| panic!("no `{key}` in the {} line", self.kind)) as u64
    }

    /// A value as printed (fractions kept); panics when the line lacks it.
    pub fn value(&self, key: &str) -> f64 {
        self.values.get(key).copied().unwrap_or_else(|| panic!("no `{key}` in the {} line", self.kind))
    }

    pub fn seconds(&self) -> f64 {
        self.values.get("elapsed").copied().unwrap_or(0.0)
    }
}

/// What the command printed, line by line.
enum Line {
    Text(String),
    Closed,
}

/// `nic tap` running, its interfaces in namespaces `<prefix>a` and `<prefix>b`.
pub struct TapSession {
    child: Child,
    lines: Receiver<Line>,
    /// Everything it printed so far.
    pub transcript: Vec<String>,
    pub names: [String; 2],
    /// Host A's and host B's namespace (dropped after the child is gone).
    pub ns: [Netns; 2],
    /// Side A's and B's IPv4 and IPv6 addresses (without prefix).
    pub v4: [String; 2],
    pub v6: [String; 2],
}

impl TapSession {
    /// Starts `nic tap --names <prefix>a,<prefix>b` with `extra` arguments, waits for
    /// `ready`, moves the interfaces into fresh namespaces and addresses them
    /// (10.77.<net>.1/.2 and fd77:<net>::1/::2).
    pub fn start(nic: &Path, prefix: &str, net: u8, extra: &[&str], ready_timeout: Duration) -> io::Result<TapSession> {
        let names = [format!("{prefix}a"), format!("{prefix}b")];
        let ns = [Netns::create(&format!("{prefix}nsa"))?, Netns::create(&format!("{prefix}nsb"))?];
        let mut child = Command::new(nic)
            .args(["tap", "--names", &format!("{},{}", names[0], names[1])])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let out = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                match l {
                    Ok(l) => {
                        if tx.send(Line::Text(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(Line::Closed);
        });
        let mut s = TapSession {
            child,
            lines,
            transcript: Vec::new(),
            names,
            ns,
            v4: [format!("10.77.{net}.1"), format!("10.77.{net}.2")],
            v6: [format!("fd77:{net}::1"), format!("fd77:{net}::2")],
        };
        s.wait_line(ready_timeout, |l| l.starts_with("ready "))?;
        for i in 0..2 {
            let (v4, v6) = (format!("{}/24", s.v4[i]), format!("{}/64", s.v6[i]));
            s.ns[i].take_interface(&s.names[i], &[&v4, &v6])?;
        }
        Ok(s)
    }

    /// Reads lines until one satisfies `want` (returned), the command ends, or `timeout`.
    pub fn wait_line(&mut self, timeout: Duration, want: impl Fn(&str) -> bool) -> io::Result<String> {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(l)) => {
                    self.transcript.push(l.clone());
                    if want(&l) {
                        return Ok(l);
                    }
                }
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait()?;
                    return Err(io::Error::other(format!("nic tap ended ({status}) before the line awaited; it printed:\n{}", self.transcript.join("\n"))));
                }
                Err(RecvTimeoutError::Timeout) => return Err(io::Error::other(format!("no awaited line from nic tap within {timeout:?}; it printed:\n{}", self.transcript.join("\n")))),
            }
        }
    }

    /// The next `stats` line printed after this call.
    pub fn next_stats(&mut self, timeout: Duration) -> io::Result<Counters> {
        // lines already queued were printed before the call
        while let Ok(l) = self.lines.try_recv() {
            match l {
                Line::Text(t) => self.transcript.push(t),
                Line::Closed => return Err(io::Error::other("nic tap ended")),
            }
        }
        let l = self.wait_line(timeout, |l| l.starts_with("stats "))?;
        Ok(Counters::parse(&l).expect("a stats line"))
    }

    /// The kernels' counters of both interfaces.
    pub fn kernel_counters(&self) -> io::Result<[IfCounters; 2]> {
        Ok([self.ns[0].counters(&self.names[0])?, self.ns[1].counters(&self.names[1])?])
    }

    /// A moment when nothing moves: the kernels' counters read before and after a
    /// `stats` line that says the bridge was idle, unchanged. Returns both (tries until
    /// `timeout`: the kernels send neighbour and multicast messages of their own now
    /// and then).
    pub fn quiet_snapshot(&mut self, timeout: Duration) -> io::Result<([IfCounters; 2], Counters)> {
        let end = Instant::now() + timeout;
        let stats_wait = Duration::from_secs(30);
        loop {
            let before = self.kernel_counters()?;
            // the first line may answer a request made before `before` was read; the
            // second was asked for after it
            self.next_stats(stats_wait)?;
            let s = self.next_stats(stats_wait)?;
            let after = self.kernel_counters()?;
            if before == after && s.get("idle") == 1 {
                return Ok((after, s));
            }
            if Instant::now() > end {
                return Err(io::Error::other(format!("the kernels and the bridge never rested together within {timeout:?}")));
            }
        }
    }

    /// SIGTERM, then the exit status and the `summary` line.
    pub fn stop(mut self, timeout: Duration) -> io::Result<(ExitStatus, Option<Counters>, Vec<String>)> {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let end = Instant::now() + timeout;
        let mut summary = None;
        loop {
            match self.lines.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(Line::Text(l)) => {
                    if l.starts_with("summary ") {
                        summary = Counters::parse(&l);
                    }
                    self.transcript.push(l);
                }
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    return Err(io::Error::other("nic tap did not end within its time after SIGTERM"));
                }
            }
        }
        let status = self.child.wait()?;
        Ok((status, summary, std::mem::take(&mut self.transcript)))
    }
}

impl Drop for TapSession {
    fn drop(&mut self) {
        // a test that failed midway: the interfaces go with the process
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
