//! Traffic engines that drive a NIC through the driver and check what comes back
//! against what was sent: the loopback used by the test suites, `nic sim loopback`
//! and `nic bench loopback`.

use nic_driver::{Device, DriverError, Nic, TxFrame};
use std::collections::VecDeque;
use std::fmt;

/// The wire side of a simulated NIC: what tests inject and capture. Implemented for
/// `nic_sim::SimDevice` and for the reference model.
pub trait WireAccess {
    /// Puts a frame (FCS included, as on the wire) on the RX wire; `error` sets `tuser`.
    fn inject_rx(&mut self, frame_with_fcs: &[u8], error: bool);
    /// Frames the MAC sent on the TX wire since the last call (FCS included) and
    /// whether each was marked bad (`tuser`).
    fn take_tx_frames(&mut self) -> Vec<(Vec<u8>, bool)>;
}

/// How `run_loopback` paces the traffic.
#[derive(Clone, Debug)]
pub struct LoopbackOptions {
    /// Frames per `tx_burst` call (one doorbell each), cycled through.
    pub bursts: Vec<usize>,
    /// Most frames taken per `rx_burst`.
    pub rx_burst: usize,
    /// Cycles the device idles when an iteration moved nothing.
    pub poll_idle: u64,
    /// Give up after this many cycles without a frame sent or received.
    pub stall_cycles: u64,
    /// Frames received before the steady-state measurement starts.
    pub warmup: usize,
}

impl Default for LoopbackOptions {
    fn default() -> Self {
        LoopbackOptions { bursts: vec![16], rx_burst: 64, poll_idle: 32, stall_cycles: 200_000, warmup: 0 }
    }
}

/// A frame and where to cut it into segments.
#[derive(Clone, Debug)]
pub struct PlannedFrame {
    pub data: Vec<u8>,
    pub cuts: Vec<usize>,
}

/// Counts reported while running and at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub sent: usize,
    pub received: usize,
    pub bytes: u64,
    pub cycles: u64,
}

/// What a loopback run measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoopbackResult {
    pub frames: usize,
    /// Bytes received, FCS excluded.
    pub bytes: u64,
    /// Device cycles from the first `tx_burst` to the last frame received.
    pub cycles: u64,
    /// Frames and cycles after the warm-up (the steady state).
    pub steady_frames: usize,
    pub steady_cycles: u64,
    pub steady_bytes: u64,
}

#[derive(Debug)]
pub enum TrafficError {
    Driver(DriverError),
    /// A received frame differs from the one sent at that position.
    Mismatch { index: usize, sent_len: usize, got_len: usize, first_diff: Option<usize>, cuts: Vec<usize> },
    /// A frame arrived that was never sent.
    Unexpected { len: usize },
    /// Nothing moved for too long.
    Stall { sent: usize, received: usize, cycles: u64, detail: String },
}

impl fmt::Display for TrafficError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Driver(e) => write!(f, "{e}"),
            Self::Mismatch { index, sent_len, got_len, first_diff, cuts } => write!(
                f,
                "frame {index}: sent {sent_len} bytes (segments cut at {cuts:?}), received {got_len} bytes, first difference at byte {}",
                first_diff.map_or("-".to_string(), |d| d.to_string())
            ),
            Self::Unexpected { len } => write!(f, "received a {len}-byte frame that was never sent"),
            Self::Stall { sent, received, cycles, detail } => {
                write!(f, "no progress for {cycles} cycles after {sent} frames sent, {received} received: {detail}")
            }
        }
    }
}
impl std::error::Error for TrafficError {}
impl From<DriverError> for TrafficError {
    fn from(e: DriverError) -> Self {
        Self::Driver(e)
    }
}

/// First byte offset where two frames differ (or the shorter length if one is a prefix).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or(if a.len() != b.len() { Some(a.len().min(b.len())) } else { None })
}

/// Sends `count` frames from `source` through TX, loopback and RX, comparing every
/// received frame byte for byte with the one sent at the same position. Loopback must
/// already be on. `progress` is called after every iteration.
pub fn run_loopback<D: Device>(
    nic: &mut Nic<D>,
    count: usize,
    mut source: impl FnMut(usize) -> PlannedFrame,
    opts: &LoopbackOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<LoopbackResult, TrafficError> {
    assert!(!opts.bursts.is_empty() && opts.bursts.iter().all(|&b| b > 0), "burst sizes must be positive");
    let mut staged: VecDeque<PlannedFrame> = VecDeque::new();
    let mut in_flight: VecDeque<PlannedFrame> = VecDeque::new();
    let (mut generated, mut sent, mut received) = (0usize, 0usize, 0usize);
    let mut bytes = 0u64;
    let mut burst_i = 0usize;
    let start = nic.cycles();
    let mut last_progress = start;
    let mut steady_start = (start, 0u64);
    if opts.warmup == 0 {
        steady_start = (start, 0);
    }
    while received < count {
        let mut moved = false;
        let burst = opts.bursts[burst_i % opts.bursts.len()];
        while staged.len() < burst && generated < count {
            staged.push_back(source(generated));
            generated += 1;
        }
        // Never more frames in flight than empty RX buffers: an RX ring that runs dry
        // drops frames (RX_DROP_NO_BUFFER), which is correct NIC behaviour but not what a
        // byte-for-byte loopback comparison is about (tests/bad_input.rs covers it).
        let credit = nic.rx_posted(0).saturating_sub(in_flight.len());
        if !staged.is_empty() && credit > 0 {
            let n = burst.min(staged.len()).min(credit);
            let frames: Vec<TxFrame<'_>> = staged.iter().take(n).map(|p| TxFrame::split(&p.data, &p.cuts)).collect();
            let k = nic.tx_burst(&frames)?;
            drop(frames);
            if k > 0 {
                in_flight.extend(staged.drain(..k));
                sent += k;
                burst_i += 1;
                moved = true;
            }
        } else if nic.tx_in_flight(0) > 0 {
            nic.tx_reap()?;
        }
        let got = nic.rx_burst(opts.rx_burst)?;
        for f in got {
            let Some(want) = in_flight.pop_front() else {
                return Err(TrafficError::Unexpected { len: f.data.len() });
            };
            if f.data != want.data {
                return Err(TrafficError::Mismatch {
                    index: received,
                    sent_len: want.data.len(),
                    got_len: f.data.len(),
                    first_diff: first_difference(&want.data, &f.data),
                    cuts: want.cuts,
                });
            }
            received += 1;
            bytes += f.data.len() as u64;
            moved = true;
            if received == opts.warmup {
                steady_start = (nic.cycles(), bytes);
            }
        }
        let now = nic.cycles();
        progress(&Progress { sent, received, bytes, cycles: now - start });
        if moved {
            last_progress = now;
        } else {
            if now - last_progress > opts.stall_cycles {
                let tx = nic.queue_state(nic_driver::Dir::Tx, 0).map(|s| format!("{s:?}")).unwrap_or_else(|e| e.to_string());
                let rx = nic.queue_state(nic_driver::Dir::Rx, 0).map(|s| format!("{s:?}")).unwrap_or_else(|e| e.to_string());
                let stats = nic.stats().map(|s| format!("{s:?}")).unwrap_or_else(|e| e.to_string());
                return Err(TrafficError::Stall {
                    sent,
                    received,
                    cycles: now - last_progress,
                    detail: format!("TX queue {tx}; RX queue {rx}; {stats}; {} TX descriptors in flight, {} RX buffers posted", nic.tx_in_flight(0), nic.rx_posted(0)),
                });
            }
            nic.device_mut().idle(opts.poll_idle);
        }
    }
    let end = nic.cycles();
    nic.tx_flush(opts.stall_cycles)?;
    let steady_frames = count - opts.warmup.min(count);
    Ok(LoopbackResult {
        frames: received,
        bytes,
        cycles: end - start,
        steady_frames,
        steady_cycles: end - steady_start.0,
        steady_bytes: bytes - steady_start.1,
    })
}
