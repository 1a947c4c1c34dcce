//! The out-of-band TCP connection of `nic rdma-perf` as blocking calls with bounded
//! waits: each call pumps the simulated host (NIC, wire, stack) until its bytes went or
//! came, the peer closed, or its time ran out.

use super::host::SimHost;
use anyhow::{bail, Result};
use smoltcp::iface::SocketHandle;
use std::time::{Duration, Instant};

/// Wall-clock time without a frame after which a closed connection is over for good.
const LINGER: Duration = Duration::from_millis(500);

/// One TCP connection and how long each wait on it may take.
pub struct Link {
    pub sock: SocketHandle,
    pub timeout: Duration,
}

impl Link {
    pub fn new(sock: SocketHandle, timeout: Duration) -> Link {
        Link { sock, timeout }
    }

    /// Queues `bytes` for sending (waiting for room in the socket's buffer).
    pub fn send(&self, h: &mut SimHost, bytes: &[u8], what: &str) -> Result<()> {
        let mut sent = 0;
        let sock = self.sock;
        h.pump_until(&format!("room to send {what}"), self.timeout, |h| {
            let s = h.tcp(sock);
            if !s.may_send() {
                bail!("the peer closed the connection before {what} was sent");
            }
            sent += s.send_slice(&bytes[sent..]).map_err(|e| anyhow::anyhow!("sending {what}: {e}"))?;
            Ok(sent == bytes.len())
        })
    }

    /// Receives exactly `n` bytes.
    pub fn recv_exact(&self, h: &mut SimHost, n: usize, what: &str) -> Result<Vec<u8>> {
        let mut got = Vec::with_capacity(n);
        let sock = self.sock;
        h.pump_until(&format!("{what} from the peer ({n} bytes)"), self.timeout, |h| {
            let s = h.tcp(sock);
            if s.can_recv() {
                let mut buf = vec![0u8; n - got.len()];
                let k = s.recv_slice(&mut buf).map_err(|e| anyhow::anyhow!("receiving {what}: {e}"))?;
                got.extend_from_slice(&buf[..k]);
            }
            if got.len() < n && !s.may_recv() {
                bail!("the peer closed the connection after {} of the {n} bytes of {what}", got.len());
            }
            Ok(got.len() == n)
        })?;
        Ok(got)
    }

    /// Closes: the client first; each side waits until the other's FIN came and its own
    /// was acknowledged (or, for the side that closed first, until TIME-WAIT), so both
    /// sides' frame counters are final when it returns.
    pub fn close(&self, h: &mut SimHost, server: bool) -> Result<()> {
        use smoltcp::socket::tcp::State;
        let sock = self.sock;
        if !server {
            h.tcp(sock).close();
        }
        h.pump_until("the peer to close the connection", self.timeout, |h| {
            let s = h.tcp(sock);
            if server && s.state() == State::CloseWait {
                s.close();
            }
            Ok(matches!(s.state(), State::TimeWait | State::Closed))
        })?;
        // the last ACK onto the wire, and a late retransmission from the peer (its TCP
        // timers run in wall-clock time against a simulated peer) received and counted:
        // the wire silent for LINGER
        let start = Instant::now();
        let mut last_move = Instant::now();
        loop {
            if h.pump()? > 0 || !h.is_quiet() {
                last_move = Instant::now();
            }
            if last_move.elapsed() >= LINGER {
                return Ok(());
            }
            if start.elapsed() > self.timeout || super::stopped() {
                bail!("the wire did not fall silent within {:.1} s after closing", self.timeout.as_secs_f64());
            }
        }
    }
}
