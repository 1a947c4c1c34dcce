//! What sits on the other end of the NIC's wire ports (AXI4-Stream, 64-bit).
//!
//! A [`WireEndpoint`] is asked once per cycle what to drive (`rx_offer`, `tx_ready`) and
//! then told which beats moved at the clock edge (`rx_taken`, `tx_beat`). Endpoints:
//! * [`QueueWire`]: the test harness's wire. Frames injected with `inject_rx` are fed to
//!   `rx_axis` (one beat per cycle, honouring `tready`, `tkeep` contiguous from lane 0);
//!   everything the NIC sends on `tx_axis` is collected into [`WireFrame`]s. Optional
//!   seeded random `tx_axis_tready` backpressure and idle gaps on `rx_axis`.
//! * [`LinkWire`]: one end of a cable between two simulated NICs (`LinkWire::pair`),
//!   e.g. two `SimDevice`s stepped in lockstep.
//!
//! More (pcap, TAP, impairment stages) can be added by implementing the trait.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::rng::Stall;

/// One AXI4-Stream beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxisBeat {
    pub data: u64,
    pub keep: u8,
    pub last: bool,
    /// On the last beat: the frame is bad (TX: aborted by the MAC; RX: PHY error).
    pub user: bool,
}

/// A whole frame as it crossed the wire: data includes the FCS as the NIC sent it;
/// `error` is `tuser` of its last beat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WireFrame {
    pub data: Vec<u8>,
    pub error: bool,
}

/// The far end of the NIC's wire ports.
pub trait WireEndpoint: Send {
    /// The beat to drive on `rx_axis` this cycle (`None`: `tvalid` = 0). Called exactly
    /// once per cycle, before the edge. A beat offered and not taken must be offered
    /// again, unchanged, in the next cycle (AXI4-Stream).
    fn rx_offer(&mut self) -> Option<AxisBeat>;
    /// `tx_axis_tready` for this cycle. Called exactly once per cycle, before the edge.
    fn tx_ready(&mut self) -> bool;
    /// The beat offered this cycle was taken (`tvalid && tready` at the edge).
    fn rx_taken(&mut self);
    /// The NIC transferred this beat on `tx_axis` at the edge.
    fn tx_beat(&mut self, beat: AxisBeat);

    /// Queues a frame (FCS included) to be sent into the NIC's `rx_axis`.
    /// Endpoints fed from elsewhere (a link, a TAP) panic.
    fn inject_rx(&mut self, frame: &[u8], error: bool) {
        let _ = (frame, error);
        panic!("this wire endpoint does not take injected frames");
    }
    /// Drains the frames the NIC sent that this endpoint collected (default: none).
    fn take_tx_frames(&mut self) -> Vec<WireFrame> {
        Vec::new()
    }
    /// Frames queued for `rx_axis` and not yet completely taken by the NIC.
    fn rx_pending(&self) -> usize {
        0
    }
    /// For downcasting to the concrete endpoint.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Splits a frame into beats (`tkeep` contiguous, only the last beat partial).
pub fn frame_to_beats(frame: &[u8], error: bool) -> Vec<AxisBeat> {
    let n = frame.len().div_ceil(8);
    frame
        .chunks(8)
        .enumerate()
        .map(|(i, c)| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            AxisBeat {
                data: u64::from_le_bytes(b),
                keep: if c.len() == 8 { 0xFF } else { (1u8 << c.len()) - 1 },
                last: i + 1 == n,
                user: error && i + 1 == n,
            }
        })
        .collect()
}

/// Reassembles beats into frames.
#[derive(Clone, Debug, Default)]
pub struct FrameAssembler {
    cur: Vec<u8>,
    frames: Vec<WireFrame>,
    /// Beats whose `tkeep` was not contiguous from lane 0, or partial before `tlast`.
    pub keep_violations: u64,
}

impl FrameAssembler {
    #[inline]
    pub fn push(&mut self, b: AxisBeat) {
        let contiguous = b.keep & b.keep.wrapping_add(1) == 0;
        if !contiguous || (!b.last && b.keep != 0xFF) {
            self.keep_violations += 1;
        }
        let bytes = b.data.to_le_bytes();
        if b.keep == 0xFF {
            self.cur.extend_from_slice(&bytes);
        } else {
            for (lane, &byte) in bytes.iter().enumerate() {
                if b.keep & (1 << lane) != 0 {
                    self.cur.push(byte);
                }
            }
        }
        if b.last {
            self.frames.push(WireFrame { data: std::mem::take(&mut self.cur), error: b.user });
        }
    }
    pub fn take(&mut self) -> Vec<WireFrame> {
        std::mem::take(&mut self.frames)
    }
    /// Completed frames not yet taken.
    pub fn completed(&self) -> usize {
        self.frames.len()
    }
    /// Bytes of a frame started and not finished.
    pub fn partial_len(&self) -> usize {
        self.cur.len()
    }
}

/// The test harness's wire: injected RX frames in, collected TX frames out.
#[derive(Debug)]
pub struct QueueWire {
    rx: VecDeque<(Vec<u8>, bool)>,
    /// Byte offset into the front RX frame of the next beat.
    rx_pos: usize,
    /// The current beat was offered this cycle.
    rx_offered: bool,
    tx: FrameAssembler,
    tx_stall: Stall,
    rx_gap: Stall,
    /// Beats moved in each direction (statistics).
    pub rx_beats: u64,
    pub tx_beats: u64,
}

impl Default for QueueWire {
    fn default() -> Self {
        QueueWire::new(None, None)
    }
}

impl QueueWire {
    /// `tx_backpressure`: `(seed, p)` drops `tx_axis_tready` with probability p per cycle;
    /// `rx_gaps`: `(seed, p)` inserts an idle RX cycle with probability p (between beats
    /// and between frames).
    pub fn new(tx_backpressure: Option<(u64, f64)>, rx_gaps: Option<(u64, f64)>) -> QueueWire {
        QueueWire {
            rx: VecDeque::new(),
            rx_pos: 0,
            rx_offered: false,
            tx: FrameAssembler::default(),
            tx_stall: Stall::from_opt(tx_backpressure, 11),
            rx_gap: Stall::from_opt(rx_gaps, 12),
            rx_beats: 0,
            tx_beats: 0,
        }
    }

    /// Frames sent by the NIC and not yet taken.
    pub fn tx_completed(&self) -> usize {
        self.tx.completed()
    }

    /// Beats whose `tkeep` broke the contiguity rule (should stay 0).
    pub fn tx_keep_violations(&self) -> u64 {
        self.tx.keep_violations
    }

    fn current_beat(&self) -> Option<AxisBeat> {
        let (f, err) = self.rx.front()?;
        let rest = &f[self.rx_pos..];
        let n = rest.len().min(8);
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&rest[..n]);
        let last = rest.len() <= 8;
        Some(AxisBeat {
            data: u64::from_le_bytes(b),
            keep: if n == 8 { 0xFF } else { (1u8 << n) - 1 },
            last,
            user: last && *err,
        })
    }
}

impl WireEndpoint for QueueWire {
    #[inline]
    fn rx_offer(&mut self) -> Option<AxisBeat> {
        if self.rx.is_empty() {
            self.rx_offered = false;
            return None;
        }
        // A beat offered last cycle and not taken stays up; otherwise maybe idle a cycle.
        if !self.rx_offered && self.rx_gap.flip() {
            return None;
        }
        self.rx_offered = true;
        self.current_beat()
    }

    #[inline]
    fn tx_ready(&mut self) -> bool {
        !self.tx_stall.flip()
    }

    fn rx_taken(&mut self) {
        self.rx_offered = false;
        self.rx_beats += 1;
        let len = self.rx.front().map(|f| f.0.len()).unwrap_or(0);
        self.rx_pos += 8;
        if self.rx_pos >= len {
            self.rx.pop_front();
            self.rx_pos = 0;
        }
    }

    fn tx_beat(&mut self, beat: AxisBeat) {
        self.tx_beats += 1;
        self.tx.push(beat);
    }

    /// Queues a frame; an empty frame is ignored (AXI4-Stream has no empty packets).
    fn inject_rx(&mut self, frame: &[u8], error: bool) {
        if !frame.is_empty() {
            self.rx.push_back((frame.to_vec(), error));
        }
    }

    fn take_tx_frames(&mut self) -> Vec<WireFrame> {
        self.tx.take()
    }

    fn rx_pending(&self) -> usize {
        self.rx.len()
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Beats in flight one way on a [`LinkWire`] cable.
type Lane = Arc<Mutex<VecDeque<AxisBeat>>>;

/// One end of a cable joining two simulated NICs: what one NIC sends on `tx_axis`
/// arrives on the other's `rx_axis` (a beat sent in cycle k is offered from cycle k or
/// k+1, depending on which device steps first), with at most `capacity` beats in flight
/// (beyond that `tx_axis_tready` drops). Step the two devices alternately, one cycle each.
#[derive(Debug)]
pub struct LinkWire {
    out: Lane,
    inp: Lane,
    capacity: usize,
    /// Also keep a copy of every frame this end sent (for checking).
    tx_copy: Option<FrameAssembler>,
    rx_offered: bool,
}

impl LinkWire {
    /// Two connected ends; `capacity` beats may be in flight each way (>= 1).
    pub fn pair(capacity: usize) -> (LinkWire, LinkWire) {
        let a: Lane = Arc::new(Mutex::new(VecDeque::new()));
        let b: Lane = Arc::new(Mutex::new(VecDeque::new()));
        let cap = capacity.max(1);
        (
            LinkWire { out: a.clone(), inp: b.clone(), capacity: cap, tx_copy: None, rx_offered: false },
            LinkWire { out: b, inp: a, capacity: cap, tx_copy: None, rx_offered: false },
        )
    }

    /// Keep a copy of the frames this end sends (drain with `take_tx_frames`).
    pub fn capture_tx(mut self) -> LinkWire {
        self.tx_copy = Some(FrameAssembler::default());
        self
    }
}

impl WireEndpoint for LinkWire {
    fn rx_offer(&mut self) -> Option<AxisBeat> {
        let b = self.inp.lock().unwrap().front().copied();
        self.rx_offered = b.is_some();
        b
    }
    fn tx_ready(&mut self) -> bool {
        self.out.lock().unwrap().len() < self.capacity
    }
    fn rx_taken(&mut self) {
        if self.rx_offered {
            self.inp.lock().unwrap().pop_front();
            self.rx_offered = false;
        }
    }
    fn tx_beat(&mut self, beat: AxisBeat) {
        self.out.lock().unwrap().push_back(beat);
        if let Some(c) = &mut self.tx_copy {
            c.push(beat);
        }
    }
    fn take_tx_frames(&mut self) -> Vec<WireFrame> {
        self.tx_copy.as_mut().map(|c| c.take()).unwrap_or_default()
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
