//! The out-of-band TCP connection of `nic rdma-perf` as blocking calls with bounded
//! waits: each call pumps the simulated host (NIC, wire, stack) until its bytes went or
//! came, the peer closed, or its time ran out.

use super::host::SimHost;
use anyhow::{bail, Result};
use smoltcp::iface::SocketHandle;
use std::time::Duration;

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
        // the last ACK onto the wire
        let mut quiet_passes = 0;
        h.pump_until("the last frames to leave", self.timeout, |h| {
            quiet_passes = if h.is_quiet() { quiet_passes + 1 } else { 0 };
            Ok(quiet_passes >= 4)
        })
    }
}
