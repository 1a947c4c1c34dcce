//! Harness for the tests that drive RTL blocks (`nic_hw`) in rust-hdl's own simulator:
//! a frame as 64-bit beats with byte counts ([`beats`], [`Feed`]), the simulation around
//! one testbench ([`run_testbench`]), the output bytes ([`push_beat`]), one frame through
//! a streaming block with the cycles it went in and came out ([`frame_through!`]), and
//! reset and waiting for a signal ([`reset_for!`], [`cycles_until!`]).
//!
//! The macros take the block's port names, which differ from block to block; they expect
//! rust-hdl's prelude (`wait_clock_cycle!`, `Bits`) in scope where they are used, the
//! block's clock in a field `clock`, and `?` to work there (inside a testbench).
// Every suite that includes `common` compiles this; most use none of the macros.
#![allow(unused_imports, unused_macros)]

use nic_hw::rx::RxClassifier;
use nic_testbench::rxclass::RxClassConfig;
use rust_hdl::prelude::*;
use std::panic::RefUnwindSafe;
use std::sync::{Arc, Mutex};

/// A 128-bit value (a DMA beat, lane 0 in the low byte) as the simulator's `Bits<128>`.
pub fn bits128(v: u128) -> Bits<128> {
    (Bits::<128>::from((v >> 64) as u64) << 64u64) | Bits::<128>::from(v as u64)
}

/// One beat of a frame: 8 bytes of data (little-endian, the unused ones zero), how many
/// of them are the frame's (1..=8), and whether it is the frame's last beat.
pub type Beat = (u64, u64, bool);

/// A frame as beats.
pub fn beats(frame: &[u8]) -> Vec<Beat> {
    let n = frame.len().div_ceil(8);
    (0..n)
        .map(|k| {
            let chunk = &frame[8 * k..(8 * k + 8).min(frame.len())];
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            (u64::from_le_bytes(b), chunk.len() as u64, k + 1 == n)
        })
        .collect()
}

/// Frames offered as beats, one after the other with no gap.
pub struct Feed {
    frames: Vec<Vec<Beat>>,
    frame: usize,
    beat: usize,
}

impl Feed {
    pub fn new<F: AsRef<[u8]>>(frames: &[F]) -> Self {
        Feed { frames: frames.iter().map(|f| beats(f.as_ref())).collect(), frame: 0, beat: 0 }
    }

    pub fn one(frame: &[u8]) -> Self {
        Self::new(&[frame])
    }

    /// The beat to offer now; None when all were taken.
    pub fn beat(&self) -> Option<Beat> {
        self.frames.get(self.frame).map(|f| f[self.beat])
    }

    /// The frame the beat to offer belongs to.
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// The place of the beat to offer in its frame.
    pub fn index(&self) -> usize {
        self.beat
    }

    /// The block took the beat: moves on; says whether it was its frame's first and last.
    pub fn take(&mut self) -> (bool, bool) {
        let first = self.beat == 0;
        self.beat += 1;
        let last = self.beat == self.frames[self.frame].len();
        if last {
            self.beat = 0;
            self.frame += 1;
        }
        (first, last)
    }
}

/// Appends an output beat's bytes: the first `len` (at most 8) of `data`, little-endian.
pub fn push_beat(bytes: &mut Vec<u8>, data: u64, len: u64) {
    bytes.extend_from_slice(&data.to_le_bytes()[..(len as usize).min(8)]);
}

/// The cycles a frame went into a block and came out (see [`frame_through!`]) and the bytes
/// that came out.
#[derive(Clone, Debug, Default)]
pub struct FrameTimes {
    pub first_in: u64,
    pub last_in: u64,
    pub first_out: u64,
    pub last_out: u64,
    pub bytes: Vec<u8>,
}

impl FrameTimes {
    /// First beat in -> first beat out.
    pub fn first_latency(&self) -> u64 {
        self.first_out - self.first_in
    }

    /// Last beat in -> last beat out.
    pub fn last_latency(&self) -> u64 {
        self.last_out - self.last_in
    }
}

/// Simulates a fresh `U` (connected) for at most `max_time`, `clock` toggling its clock
/// every 5 time units, with one testbench: `bench` gets the simulation and the circuit
/// (from `Sim::init`) and gives back the circuit and its result, which this returns.
pub fn run_testbench<U, R>(
    max_time: u64,
    clock: impl Fn(&mut Box<U>) + Send + RefUnwindSafe + 'static,
    bench: impl Fn(&mut Sim<U>, Box<U>) -> Result<(Box<U>, R), SimError> + Send + RefUnwindSafe + 'static,
) -> R
where
    U: Block + Default + Send + 'static,
    R: Send + 'static,
{
    run_testbench_of(U::default(), max_time, clock, bench)
}

/// `run_testbench` on a block built some other way than `Default` (a constructor's variant).
#[allow(dead_code)]
pub fn run_testbench_of<U, R>(
    mut uut: U,
    max_time: u64,
    clock: impl Fn(&mut Box<U>) + Send + RefUnwindSafe + 'static,
    bench: impl Fn(&mut Sim<U>, Box<U>) -> Result<(Box<U>, R), SimError> + Send + RefUnwindSafe + 'static,
) -> R
where
    U: Block + Send + 'static,
    R: Send + 'static,
{
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, clock);
    sim.add_testbench(move |mut sim: Sim<U>| {
        let x = sim.init()?;
        let (x, r) = bench(&mut sim, x)?;
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    uut.connect_all();
    sim.run(Box::new(uut), max_time).unwrap();
    let r = result.lock().unwrap().take();
    r.expect("the testbench gave no result")
}

/// Sets the RX classifier's configuration inputs from `cfg`: filter control, exact MAC
/// filters, RSS hash types and key, queue mask (not the tables, written through ports).
pub fn configure_classifier(x: &mut RxClassifier, cfg: &RxClassConfig) {
    x.filter_ctrl.next = Bits::<32>::from(cfg.filter_ctrl_word() as u64);
    for i in 0..16 {
        let (lo, hi) = cfg.mac_filter_words(i);
        x.mac_filter[2 * i].next = Bits::<32>::from(lo as u64);
        x.mac_filter[2 * i + 1].next = Bits::<32>::from(hi as u64);
    }
    x.rss_ctrl.next = Bits::<32>::from(cfg.rss_types as u64);
    for (i, w) in cfg.rss_key_words().iter().enumerate() {
        x.rss_key[i].next = Bits::<32>::from(*w as u64);
    }
    x.queue_mask.next = Bits::<8>::from(cfg.queue_mask() as u64);
}

/// One frame through an idle block with a beat stream in and out, until the output's last
/// beat; evaluates to the frame's [`FrameTimes`].
///
/// ```ignore
/// let t = frame_through!(sim, x, cycle, frame, "what",
///     in: VALID [ready READY], |d, len, last| { /* set the beat's data ports */ },
///     out: VALID, DATA, LEN, LAST
///     [, first: { /* on the first output beat */ }] [, last: { /* on the last output beat */ }]);
/// ```
///
/// Each cycle it offers the next beat (input `VALID` high; the given block sets the data
/// ports from `d`, `len`, `last`), which the block takes in that cycle (when `READY` is
/// high, if given), and collects the output beat (output `VALID`: the first `LEN` bytes of
/// `DATA`; `LAST` ends the frame). An input event is the cycle its beat is offered and
/// taken; an output event the first cycle it shows. `cycle` counts the cycles (it adds the
/// ones it runs); 1000 without the last output beat fail the test. It leaves `VALID` low.
macro_rules! frame_through {
    (
        $sim:ident, $x:ident, $cycle:ident, $frame:expr, $what:expr,
        in: $valid:ident $(ready $ready:ident)?, |$d:ident, $l:ident, $last:ident| $drive:block,
        out: $ovalid:ident, $odata:ident, $olen:ident, $olast:ident
        $(, first: $on_first:block)? $(, last: $on_last:block)? $(,)?
    ) => {{
        let mut feed = $crate::common::hdl::Feed::one($frame);
        let mut t = $crate::common::hdl::FrameTimes::default();
        let (mut got_first, mut done, mut guard) = (false, false, 0);
        while !done {
            guard += 1;
            assert!(guard < 1000, "{}: frame did not come out", $what);
            let beat = feed.beat();
            if let Some(($d, $l, $last)) = beat {
                $drive
            }
            $x.$valid.next = beat.is_some();
            $x = $sim.wait(1, $x)?;
            if beat.is_some() $(&& $x.$ready.val())? {
                let (first, last) = feed.take();
                if first {
                    t.first_in = $cycle;
                }
                if last {
                    t.last_in = $cycle;
                }
            }
            if $x.$ovalid.val() {
                if !got_first {
                    t.first_out = $cycle;
                    got_first = true;
                    $($on_first)?
                }
                $crate::common::hdl::push_beat(&mut t.bytes, $x.$odata.val().to_u64(), $x.$olen.val().to_u64());
                if $x.$olast.val() {
                    t.last_out = $cycle;
                    done = true;
                    $($on_last)?
                }
            }
            wait_clock_cycle!($sim, clock, $x);
            $cycle += 1;
        }
        $x.$valid.next = false;
        t
    }};
}
pub(crate) use frame_through;

/// Holds the block's `reset` high for `cycles` clock cycles, then releases it.
macro_rules! reset_for {
    ($sim:ident, $x:ident, $cycles:expr) => {
        $x.reset.next = true;
        wait_clock_cycles!($sim, clock, $x, $cycles);
        $x.reset.next = false;
    };
}
pub(crate) use reset_for;

/// Looks at the block once a cycle, `count` taking the values of `counts`, until `cond`
/// holds; evaluates to the count it held at (the block is left in that cycle, its signals
/// readable), or None.
macro_rules! cycles_until {
    ($sim:ident, $x:ident, $counts:expr, $cond:expr) => {{
        let mut found = None;
        for count in $counts {
            $x = $sim.wait(1, $x)?;
            if $cond {
                found = Some(count);
                break;
            }
            wait_clock_cycle!($sim, clock, $x);
        }
        found
    }};
}
pub(crate) use cycles_until;

/// A wide value (an RDMA context entry, a packed record) from 32-bit words, word 0 in bits 31:0.
pub fn words_to_bits<const N: usize>(words: &[u32]) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for &v in words.iter().rev() {
        b = (b << 32u64) | Bits::<N>::from(u64::from(v));
    }
    b
}

/// The first `n` 32-bit words of a wide value.
pub fn bits_to_words<const N: usize>(b: Bits<N>, n: usize) -> Vec<u32> {
    (0..n).map(|w| b.get_bits::<32>(32 * w).to_u64() as u32).collect()
}

/// Host memory for the RDMA engine's model and the RTL blocks' simulated DMA: bytes by
/// address; a read that touches a byte never written is refused (an unmapped page).
#[derive(Clone, Default)]
pub struct SparseMem(pub std::collections::BTreeMap<u64, u8>);

impl nic_testbench::roce::engine::HostPort for SparseMem {
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        (0..len as u64).map(|i| self.0.get(&(addr + i)).copied()).collect()
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        for (i, &b) in data.iter().enumerate() {
            self.0.insert(addr + i as u64, b);
        }
        true
    }
}

/// A MAC address as the 48-bit value the RTL carries (first byte most significant).
pub fn mac48(a: nic_testbench::wire::EthernetAddress) -> u64 {
    a.0.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b))
}

/// An engine port of `RdmaTables` simulated over a table of entries (32-bit words): one
/// access at a time, answered `latency` cycles after it is taken with the entry as it was,
/// a store merged under its mask when it is answered.
pub struct TablePortSim {
    latency: u32,
    /// The access taken: entry, store, mask, data, cycles to its answer.
    access: Option<(usize, bool, Vec<u32>, Vec<u32>, u32)>,
}

impl TablePortSim {
    pub fn new(latency: u32) -> Self {
        TablePortSim { latency, access: None }
    }

    /// No access is being served (the port may take one).
    pub fn idle(&self) -> bool {
        self.access.is_none()
    }

    /// The entry whose answer is due this cycle (drive `rvalid` and `rdata` with it).
    pub fn due(&self) -> Option<usize> {
        match self.access {
            Some((i, _, _, _, 0)) => Some(i),
            _ => None,
        }
    }

    /// After the cycle has settled: the answer given (`rvalid`) completes the access, and
    /// a new one taken (`valid` and `ready`: entry, store, mask and data as words) starts.
    pub fn step<T: AsMut<[u32]>>(&mut self, table: &mut [T], rvalid: bool, taken: Option<(usize, bool, Vec<u32>, Vec<u32>)>) {
        if rvalid {
            let (i, write, mask, data, _) = self.access.take().expect("an answer to an access");
            if write {
                for (w, word) in table[i].as_mut().iter_mut().enumerate() {
                    *word = (*word & !mask[w]) | (data[w] & mask[w]);
                }
            }
        } else if let Some(a) = self.access.as_mut() {
            a.4 -= 1;
        }
        if let Some((i, write, mask, data)) = taken {
            assert!(self.access.is_none(), "an access taken while one is served");
            self.access = Some((i, write, mask, data, self.latency));
        }
    }
}
