//! Block test of the board's host memory (`nic_hw::board::host_mem::HostMem`, board spec
//! section 3) in rust-hdl's own simulator, against a golden model that is a plain
//! `Vec<u8>` of the window, updated by the test from the beats and bridge writes it sees
//! taken, and a fault log the test keeps itself from the accesses it knows are outside.
//!
//! Each scenario runs the three masters at once — DMA read requests (random unaligned
//! addresses and lengths 1..300, some outside the window), DMA write bursts (random
//! alignments, random byte enables, several beats, some beats outside the window) and the
//! bridge's byte port (reads and writes) — with random `dma_rd_rsp_ready` and random gaps.
//! Concurrent reads and writes use disjoint parts of the window, so every expected read
//! result is known when the request is made. Checked every cycle: read responses in
//! order with their tags, data packed from lane 0 and zero past the end, one error beat
//! for a refused read; an offered response beat never changes before it is taken; one
//! write response per burst, the cycle after its last beat, with tag and error; bridge
//! bytes in order; the fault log registers; no side waits more than one cycle for the
//! other. Each run ends with a dump of the whole window through DMA reads.
//!
//! Then throughput and latency at full `dma_rd_rsp_ready`, and the saturation of the
//! fault count.

mod common;

use common::hdl::{bits128, run_testbench};
use nic_hw::board::host_mem::{HostMem, HOST_MEM_BASE as BASE};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
struct RdReq {
    addr: u64,
    len: u16,
    tag: u8,
    /// The bytes the response must carry; None: the request must be refused.
    expect: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
struct WrBeat {
    addr: u64,
    data: [u8; 16],
    strb: u16,
    last: bool,
    tag: u8,
}

#[derive(Clone, Copy, Debug)]
enum BrOp {
    Rd(u32),
    Wr(u32, u8),
}

#[derive(Clone, Debug)]
struct Scenario {
    name: String,
    reads: Vec<RdReq>,
    writes: Vec<WrBeat>,
    bridge: Vec<BrOp>,
    /// Probability that `dma_rd_rsp_ready` is high in a cycle.
    ready_p: f64,
    /// Probabilities of an idle cycle before the next request / write beat / bridge access.
    req_gap_p: f64,
    wr_gap_p: f64,
    br_gap_p: f64,
    /// Probability of a `fault_clear` pulse in a cycle.
    clear_p: f64,
}

impl Scenario {
    fn new(name: &str) -> Self {
        Scenario {
            name: name.into(),
            reads: vec![],
            writes: vec![],
            bridge: vec![],
            ready_p: 1.0,
            req_gap_p: 0.0,
            wr_gap_p: 0.0,
            br_gap_p: 0.0,
            clear_p: 0.0,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct FaultLog {
    count: u16,
    addr: u64,
    len: u16,
    write: bool,
}

/// Cycle numbers of what happened in one scenario.
#[derive(Clone, Debug, Default)]
struct Stats {
    rd_accept: Vec<u64>,
    rd_first: Vec<u64>,
    rd_last: Vec<u64>,
    wr_take: Vec<u64>,
    br_take: Vec<u64>,
    br_rvalid: Vec<u64>,
    /// Longest run of cycles the bridge waited with an access offered.
    br_max_wait: u64,
    /// Longest run of cycles a DMA write beat waited.
    dmaw_max_wait: u64,
    /// Longest run of cycles with a read beat to send, ready high and no beat offered
    /// (counted only after the first beat of a request showed).
    rd_max_bubble: u64,
    start: u64,
    end: u64,
}

struct Tb {
    win: u64,
    model: Vec<u8>,
    faults: FaultLog,
    cycle: u64,
    rng: StdRng,
    errors: Vec<String>,
}

impl Tb {
    fn fault(&mut self, addr: u64, len: u16, write: bool) {
        self.faults.count = self.faults.count.saturating_add(1);
        self.faults.addr = addr;
        self.faults.len = len;
        self.faults.write = write;
    }

    fn err(&mut self, s: String) {
        if self.errors.len() < 20 {
            self.errors.push(s);
        }
    }

    fn read_ok(&self, addr: u64, len: u16) -> bool {
        len > 0 && addr >= BASE && addr - BASE + u64::from(len) <= self.win
    }

    fn beat_ok(&self, w: &WrBeat) -> bool {
        (0..16u64).all(|j| (w.strb >> j) & 1 == 0 || (w.addr + j >= BASE && w.addr + j < BASE + self.win))
    }

    fn rd_req(&self, addr: u64, len: u16, tag: u8) -> RdReq {
        let expect = self.read_ok(addr, len).then(|| {
            let o = (addr - BASE) as usize;
            self.model[o..o + usize::from(len)].to_vec()
        });
        RdReq { addr, len, tag, expect }
    }
}

/// `n` reads inside window offsets [lo, hi), a share `oow_p` of them outside the window.
fn gen_reads(tb: &mut Tb, n: usize, lo: u64, hi: u64, oow_p: f64) -> Vec<RdReq> {
    (0..n)
        .map(|_| {
            let tag = tb.rng.gen_range(0..16u8);
            if tb.rng.gen_bool(oow_p) {
                let len = tb.rng.gen_range(1..=300u16);
                let addr = match tb.rng.gen_range(0..4) {
                    0 => BASE - tb.rng.gen_range(1..=64u64),                                     // starts below
                    1 => BASE + tb.win - tb.rng.gen_range(0..u64::from(len).min(tb.win)),        // runs past the end
                    2 => tb.rng.gen_range(0..0x1000u64),                                          // far below
                    _ => BASE + tb.win + tb.rng.gen_range(0..0x1_0000u64),                       // above
                };
                let r = tb.rd_req(addr, len, tag);
                assert!(r.expect.is_none());
                r
            } else {
                let len = tb.rng.gen_range(1..=300u64.min(hi - lo));
                let off = tb.rng.gen_range(lo..=hi - len);
                tb.rd_req(BASE + off, len as u16, tag)
            }
        })
        .collect()
}

/// `n` write bursts whose enabled bytes are inside window offsets [lo, hi), except that a
/// share `oow_p` of the bursts get one beat moved outside the window (with some byte
/// enabled past the window's edge).
fn gen_writes(tb: &mut Tb, n: usize, lo: u64, hi: u64, oow_p: f64) -> Vec<WrBeat> {
    let mut out = vec![];
    for _ in 0..n {
        let tag = tb.rng.gen_range(0..16u8);
        let len = tb.rng.gen_range(1..=300u64.min(hi - lo));
        let start = BASE + tb.rng.gen_range(lo..=hi - len);
        let ph = tb.rng.gen_range(0..16u64);
        let nb = (ph + len).div_ceil(16);
        let dense = tb.rng.gen_bool(0.5);
        let mut beats: Vec<WrBeat> = (0..nb)
            .map(|k| {
                let a = start - ph + 16 * k;
                let mut strb = 0u16;
                let mut data = [0u8; 16];
                for j in 0..16u64 {
                    data[j as usize] = tb.rng.gen();
                    if a + j >= start && a + j < start + len && (dense || tb.rng.gen_bool(0.7)) {
                        strb |= 1 << j;
                    }
                }
                WrBeat { addr: a, data, strb, last: k + 1 == nb, tag }
            })
            .collect();
        if tb.rng.gen_bool(oow_p) {
            let k = tb.rng.gen_range(0..beats.len());
            let b = &mut beats[k];
            match tb.rng.gen_range(0..3) {
                0 => {
                    // below the window: some enabled byte before BASE
                    b.addr = BASE - tb.rng.gen_range(1..=15u64);
                    b.strb |= 1;
                }
                1 => {
                    // straddles the end: lane 15 is past it
                    b.addr = BASE + tb.win - tb.rng.gen_range(1..=15u64);
                    b.strb |= 1 << 15;
                }
                _ => {
                    b.addr = 0x8000_0000_0000_0000 + tb.rng.gen_range(0..0x100u64);
                    b.strb |= 1 << tb.rng.gen_range(0..16);
                }
            }
            assert!(!tb.beat_ok(b));
        }
        out.extend(beats);
    }
    out
}

/// `n` bridge accesses: reads at offsets in `rd`, writes in `wr` (either may be None).
fn gen_bridge(tb: &mut Tb, n: usize, rd: Option<(u64, u64)>, wr: Option<(u64, u64)>) -> Vec<BrOp> {
    (0..n)
        .map(|_| {
            let write = match (rd, wr) {
                (Some(_), Some(_)) => tb.rng.gen_bool(0.5),
                (None, Some(_)) => true,
                _ => false,
            };
            if write {
                let (lo, hi) = wr.unwrap();
                BrOp::Wr(tb.rng.gen_range(lo..hi) as u32, tb.rng.gen())
            } else {
                let (lo, hi) = rd.unwrap();
                BrOp::Rd(tb.rng.gen_range(lo..hi) as u32)
            }
        })
        .collect()
}

macro_rules! ensure {
    ($tb:expr, $c:expr, $($m:tt)*) => {
        if !$c {
            let m = format!($($m)*);
            $tb.err(m);
        }
    };
}

type Beat = (u128, bool, bool, u8);

/// Checks one read response (its beats) against its request.
fn check_response(tb: &mut Tb, what: &str, r: &RdReq, beats: &[Beat]) {
    match &r.expect {
        None => {
            ensure!(
                tb,
                beats.len() == 1 && beats[0] == (0, true, true, r.tag),
                "{what}: refused read {:#x}+{} tag {}: got {:x?}",
                r.addr,
                r.len,
                r.tag,
                beats
            );
        }
        Some(bytes) => {
            let n = bytes.len().div_ceil(16);
            ensure!(tb, beats.len() == n, "{what}: read {:#x}+{}: {} beats, want {n}", r.addr, r.len, beats.len());
            for (k, b) in beats.iter().enumerate().take(n) {
                let mut want = [0u8; 16];
                let chunk = &bytes[16 * k..(16 * k + 16).min(bytes.len())];
                want[..chunk.len()].copy_from_slice(chunk);
                let want = (u128::from_le_bytes(want), k + 1 == n, false, r.tag);
                ensure!(tb, *b == want, "{what}: read {:#x}+{} beat {k}: got {:x?} want {:x?}", r.addr, r.len, b, want);
            }
        }
    }
}

/// Runs one scenario to its end (every response in), checking as it goes.
fn run_scenario<const AW: usize>(
    sim: &mut Sim<HostMem<AW>>,
    mut x: Box<HostMem<AW>>,
    tb: &mut Tb,
    sc: &Scenario,
) -> Result<(Box<HostMem<AW>>, Stats), SimError> {
    let what = sc.name.as_str();
    let n_rd = sc.reads.len();
    let mut st = Stats {
        rd_accept: vec![0; n_rd],
        rd_first: vec![0; n_rd],
        rd_last: vec![0; n_rd],
        start: tb.cycle,
        ..Default::default()
    };
    let (mut ri, mut wi, mut bi) = (0usize, 0usize, 0usize);
    let mut rd_pending: VecDeque<usize> = VecDeque::new();
    let mut cur: Vec<Beat> = vec![];
    let mut wr_rsp_due: VecDeque<(u8, bool, u64)> = VecDeque::new();
    let mut burst_err = false;
    let mut br_rd_due: VecDeque<u8> = VecDeque::new();
    let mut stalled: Option<Beat> = None;
    let (mut rd_gap, mut wr_gap, mut br_gap) = (false, false, false);
    let (mut br_wait, mut w_wait, mut bubble) = (0u64, 0u64, 0u64);
    let limit = tb.cycle + 200_000;
    loop {
        let rd_off = ri < n_rd && !rd_gap;
        if rd_off {
            let r = &sc.reads[ri];
            x.dma_rd_req_addr.next = Bits::<64>::from(r.addr);
            x.dma_rd_req_len.next = Bits::<16>::from(u64::from(r.len));
            x.dma_rd_req_tag.next = Bits::<4>::from(u64::from(r.tag));
        }
        x.dma_rd_req_valid.next = rd_off;
        let wr_off = wi < sc.writes.len() && !wr_gap;
        if wr_off {
            let w = &sc.writes[wi];
            x.dma_wr_addr.next = Bits::<64>::from(w.addr);
            x.dma_wr_data.next = bits128(u128::from_le_bytes(w.data));
            x.dma_wr_strb.next = Bits::<16>::from(u64::from(w.strb));
            x.dma_wr_last.next = w.last;
            x.dma_wr_tag.next = Bits::<4>::from(u64::from(w.tag));
        }
        x.dma_wr_valid.next = wr_off;
        let br_off = bi < sc.bridge.len() && !br_gap;
        x.mem_rd.next = false;
        x.mem_wr.next = false;
        if br_off {
            match sc.bridge[bi] {
                BrOp::Rd(a) => {
                    x.mem_addr.next = Bits::<32>::from(u64::from(a));
                    x.mem_rd.next = true;
                }
                BrOp::Wr(a, d) => {
                    x.mem_addr.next = Bits::<32>::from(u64::from(a));
                    x.mem_wdata.next = Bits::<8>::from(u64::from(d));
                    x.mem_wr.next = true;
                }
            }
        }
        let ready = sc.ready_p >= 1.0 || tb.rng.gen_bool(sc.ready_p);
        x.dma_rd_rsp_ready.next = ready;
        let clear = sc.clear_p > 0.0 && tb.rng.gen_bool(sc.clear_p);
        x.fault_clear.next = clear;
        x = sim.wait(1, x)?;
        let cyc = tb.cycle;

        // the fault log shows every fault up to the previous cycle
        let got = FaultLog {
            count: x.fault_count.val().to_u64() as u16,
            addr: x.fault_addr.val().to_u64(),
            len: x.fault_len.val().to_u64() as u16,
            write: x.fault_write.val(),
        };
        ensure!(tb, got == tb.faults, "{what} cycle {cyc}: fault log {got:x?}, want {:x?}", tb.faults);
        ensure!(tb, x.mem_size_log2.val().to_u64() == AW as u64 + 4, "mem_size_log2");

        // write responses: the cycle after the burst's last beat
        if x.dma_wr_rsp_valid.val() {
            match wr_rsp_due.pop_front() {
                Some((tag, err, due)) => {
                    let got = (x.dma_wr_rsp_tag.val().to_u64() as u8, x.dma_wr_rsp_error.val());
                    ensure!(tb, got == (tag, err) && due == cyc, "{what} cycle {cyc}: write response {got:?}, want {:?} at {due}", (tag, err));
                }
                None => ensure!(tb, false, "{what} cycle {cyc}: write response without a burst"),
            }
        }
        if let Some(&(_, _, due)) = wr_rsp_due.front() {
            ensure!(tb, due >= cyc, "{what} cycle {cyc}: write response due at {due} missing");
        }
        // bridge read data, in order
        if x.mem_rvalid.val() {
            st.br_rvalid.push(cyc);
            match br_rd_due.pop_front() {
                Some(b) => {
                    let got = x.mem_rdata.val().to_u64() as u8;
                    ensure!(tb, got == b, "{what} cycle {cyc}: bridge read {got:#x}, want {b:#x}");
                }
                None => ensure!(tb, false, "{what} cycle {cyc}: mem_rvalid without a read"),
            }
        }
        // read response beats
        let v = x.dma_rd_rsp_valid.val();
        let beat: Beat = (
            x.dma_rd_rsp_data.val().to_u128(),
            x.dma_rd_rsp_last.val(),
            x.dma_rd_rsp_error.val(),
            x.dma_rd_rsp_tag.val().to_u64() as u8,
        );
        if let Some(prev) = stalled {
            ensure!(tb, v && beat == prev, "{what} cycle {cyc}: offered beat {prev:x?} withdrawn or changed to {beat:x?} (valid {v})");
        }
        stalled = None;
        if v {
            bubble = 0;
            if ready {
                match rd_pending.front().copied() {
                    Some(idx) => {
                        if cur.is_empty() {
                            st.rd_first[idx] = cyc;
                        }
                        cur.push(beat);
                        if beat.1 {
                            rd_pending.pop_front();
                            st.rd_last[idx] = cyc;
                            let beats = std::mem::take(&mut cur);
                            check_response(tb, what, &sc.reads[idx], &beats);
                        }
                    }
                    None => ensure!(tb, false, "{what} cycle {cyc}: read beat without a request"),
                }
            } else {
                stalled = Some(beat);
            }
        } else if ready && !cur.is_empty() {
            bubble += 1;
            st.rd_max_bubble = st.rd_max_bubble.max(bubble);
        }
        // requests and beats taken in this cycle
        let mut events: Vec<(u64, u16, bool)> = vec![];
        if rd_off && x.dma_rd_req_ready.val() {
            let r = &sc.reads[ri];
            st.rd_accept[ri] = cyc;
            rd_pending.push_back(ri);
            if r.expect.is_none() {
                events.push((r.addr, r.len, false));
            }
            ri += 1;
            rd_gap = sc.req_gap_p > 0.0 && tb.rng.gen_bool(sc.req_gap_p);
        } else if !rd_off {
            rd_gap = sc.req_gap_p > 0.0 && tb.rng.gen_bool(sc.req_gap_p);
        }
        if wr_off && x.dma_wr_ready.val() {
            let w = sc.writes[wi].clone();
            st.wr_take.push(cyc);
            w_wait = 0;
            if tb.beat_ok(&w) {
                for j in 0..16 {
                    if (w.strb >> j) & 1 != 0 {
                        tb.model[(w.addr + j as u64 - BASE) as usize] = w.data[j];
                    }
                }
            } else {
                let first = u64::from(w.strb.trailing_zeros());
                let hi = 15 - u64::from(w.strb.leading_zeros());
                events.push((w.addr + first, (hi - first + 1) as u16, true));
                burst_err = true;
            }
            if w.last {
                wr_rsp_due.push_back((w.tag, burst_err, cyc + 1));
                burst_err = false;
            }
            wi += 1;
            wr_gap = sc.wr_gap_p > 0.0 && tb.rng.gen_bool(sc.wr_gap_p);
        } else if wr_off {
            w_wait += 1;
            st.dmaw_max_wait = st.dmaw_max_wait.max(w_wait);
        } else {
            wr_gap = sc.wr_gap_p > 0.0 && tb.rng.gen_bool(sc.wr_gap_p);
        }
        if br_off && x.mem_ready.val() {
            st.br_take.push(cyc);
            br_wait = 0;
            match sc.bridge[bi] {
                BrOp::Rd(a) => br_rd_due.push_back(tb.model[a as usize]),
                BrOp::Wr(a, d) => tb.model[a as usize] = d,
            }
            bi += 1;
            br_gap = sc.br_gap_p > 0.0 && tb.rng.gen_bool(sc.br_gap_p);
        } else if br_off {
            br_wait += 1;
            st.br_max_wait = st.br_max_wait.max(br_wait);
        } else {
            br_gap = sc.br_gap_p > 0.0 && tb.rng.gen_bool(sc.br_gap_p);
        }
        if clear {
            tb.faults.count = 0;
        }
        for (a, l, w) in events {
            tb.fault(a, l, w);
        }
        wait_clock_cycle!(sim, clock, x);
        tb.cycle += 1;
        let done = ri == n_rd
            && wi == sc.writes.len()
            && bi == sc.bridge.len()
            && rd_pending.is_empty()
            && wr_rsp_due.is_empty()
            && br_rd_due.is_empty();
        if done || !tb.errors.is_empty() {
            break;
        }
        if tb.cycle > limit {
            tb.err(format!("{what}: stuck: {ri}/{n_rd} reads, {wi} beats, {bi} bridge, {} responses pending", rd_pending.len()));
            break;
        }
    }
    x.dma_rd_req_valid.next = false;
    x.dma_wr_valid.next = false;
    x.mem_rd.next = false;
    x.mem_wr.next = false;
    x.fault_clear.next = false;
    st.end = tb.cycle;
    Ok((x, st))
}

fn reset<const AW: usize>(sim: &mut Sim<HostMem<AW>>, mut x: Box<HostMem<AW>>) -> Result<Box<HostMem<AW>>, SimError> {
    x.dma_rd_req_valid.next = false;
    x.dma_wr_valid.next = false;
    x.mem_rd.next = false;
    x.mem_wr.next = false;
    x.fault_clear.next = false;
    x.dma_rd_rsp_ready.next = true;
    x.reset.next = true;
    wait_clock_cycles!(sim, clock, x, 3);
    x.reset.next = false;
    wait_clock_cycles!(sim, clock, x, 1);
    Ok(x)
}

/// The whole window read back through DMA reads (random lengths, back to back).
fn dump(tb: &mut Tb) -> Scenario {
    let mut sc = Scenario::new("dump");
    let mut off = 0u64;
    while off < tb.win {
        let len = tb.rng.gen_range(1..=300u64).min(tb.win - off);
        let tag = tb.rng.gen_range(0..16u8);
        let r = tb.rd_req(BASE + off, len as u16, tag);
        sc.reads.push(r);
        off += len;
    }
    sc.ready_p = 0.8;
    sc
}

/// The random run: writes with bridge writes; reads with bridge reads; two mixed phases on
/// disjoint halves; the dump. Returns the errors found.
fn random_run<const AW: usize>(seed: u64, scale: usize) -> Vec<String> {
    run_testbench::<HostMem<AW>, Vec<String>>(
        200_000_000,
        |x| x.clock.next = !x.clock.val(),
        move |sim, x| {
            let win = 16u64 << AW;
            let mut tb = Tb { win, model: vec![0; win as usize], faults: FaultLog::default(), cycle: 0, rng: StdRng::seed_from_u64(seed), errors: vec![] };
            let mut x = reset(sim, x)?;
            let q = win / 16; // sixteenths of the window
            let mut plan: Vec<Box<dyn Fn(&mut Tb) -> Scenario>> = vec![];
            plan.push(Box::new(move |tb| {
                let mut sc = Scenario::new("writes");
                sc.writes = gen_writes(tb, 20 * scale, 0, 12 * q, 0.15);
                sc.bridge = gen_bridge(tb, 120 * scale, None, Some((12 * q, 16 * q)));
                sc.wr_gap_p = 0.2;
                sc.br_gap_p = 0.3;
                sc.clear_p = 0.02;
                sc
            }));
            plan.push(Box::new(move |tb| {
                let mut sc = Scenario::new("reads");
                sc.reads = gen_reads(tb, 30 * scale, 0, 16 * q, 0.15);
                sc.bridge = gen_bridge(tb, 80 * scale, Some((0, 16 * q)), None);
                // only beats outside the window: the memory must not change
                sc.writes = gen_writes(tb, 4, 0, 16 * q, 1.0);
                sc.writes.retain(|w| !tb.beat_ok(w) || w.strb == 0);
                if let Some(l) = sc.writes.last_mut() {
                    l.last = true;
                }
                sc.ready_p = 0.7;
                sc.req_gap_p = 0.3;
                sc.wr_gap_p = 0.5;
                sc.br_gap_p = 0.2;
                sc.clear_p = 0.01;
                sc
            }));
            plan.push(Box::new(move |tb| {
                let mut sc = Scenario::new("mixed-a");
                sc.writes = gen_writes(tb, 12 * scale, 0, 7 * q, 0.1);
                sc.reads = gen_reads(tb, 20 * scale, 8 * q, 16 * q, 0.1);
                sc.bridge = gen_bridge(tb, 100 * scale, Some((8 * q, 16 * q)), Some((7 * q, 8 * q)));
                sc.ready_p = 0.5;
                sc.req_gap_p = 0.1;
                sc
            }));
            plan.push(Box::new(move |tb| {
                let mut sc = Scenario::new("mixed-b");
                sc.writes = gen_writes(tb, 12 * scale, 9 * q, 16 * q, 0.1);
                sc.reads = gen_reads(tb, 20 * scale, 0, 8 * q, 0.1);
                sc.bridge = gen_bridge(tb, 100 * scale, Some((0, 8 * q)), Some((8 * q, 9 * q)));
                sc.ready_p = 0.9;
                sc.clear_p = 0.005;
                sc
            }));
            plan.push(Box::new(dump));
            for make in plan {
                let sc = make(&mut tb);
                let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
                x = nx;
                if st.br_max_wait > 1 || st.dmaw_max_wait > 1 {
                    tb.err(format!("{}: starvation: bridge waited {} cycles, DMA write {}", sc.name, st.br_max_wait, st.dmaw_max_wait));
                }
                eprintln!(
                    "seed {seed} AW {AW} {}: {} reads, {} write beats, {} bridge accesses in {} cycles; faults so far {}",
                    sc.name,
                    sc.reads.len(),
                    sc.writes.len(),
                    sc.bridge.len(),
                    st.end - st.start,
                    tb.faults.count
                );
                if !tb.errors.is_empty() {
                    break;
                }
            }
            Ok((x, tb.errors))
        },
    )
}

#[test]
fn random_traffic_aw6() {
    for seed in [1u64, 2, 3] {
        let errors = random_run::<6>(seed, 1);
        assert!(errors.is_empty(), "seed {seed}:\n{}", errors.join("\n"));
    }
}

#[test]
fn random_traffic_aw11() {
    let errors = random_run::<11>(11, 1);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// Throughput and latency at full `dma_rd_rsp_ready` (AW = 11, 32 KiB):
/// * a 1500-byte read: accepted in cycle t, first beat in t + 7 (queue write, queue head,
///   the read addresses registered, RAM read, the RAMs' words registered, the response
///   queue's write and its head), then
///   94 beats in 94 consecutive cycles;
/// * 12 queued requests of random lengths: every beat of all of them back to back (no
///   bubble between requests);
/// * 32 one-beat requests offered back to back: one beat per cycle;
/// * a 1500-byte read while the bridge reads 40 bytes back to back: the two alternate
///   (each bridge read costs the stream one cycle; the bridge never waits more than one);
/// * a 94-beat write burst: one beat per cycle; with 60 bridge writes back to back, both
///   progress (neither waits more than one cycle at a time).
#[test]
fn throughput_and_latency() {
    let errors = run_testbench::<HostMem<11>, Vec<String>>(
        100_000_000,
        |x| x.clock.next = !x.clock.val(),
        |sim, x| {
            let win = 16u64 << 11;
            let mut tb = Tb { win, model: vec![0; win as usize], faults: FaultLog::default(), cycle: 0, rng: StdRng::seed_from_u64(7), errors: vec![] };
            let mut x = reset(sim, x)?;
            // fill the window with known bytes through DMA writes
            let mut sc = Scenario::new("fill");
            for k in 0..win / 16 {
                let mut data = [0u8; 16];
                tb.rng.fill(&mut data[..]);
                sc.writes.push(WrBeat { addr: BASE + 16 * k, data, strb: 0xffff, last: k % 64 == 63, tag: 2 });
            }
            let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            let wt = &st.wr_take;
            ensure!(tb, wt.last().unwrap() - wt[0] + 1 == wt.len() as u64, "fill: {} beats took {} cycles", wt.len(), wt.last().unwrap() - wt[0] + 1);

            // one 1500-byte read
            let mut sc = Scenario::new("1500");
            sc.reads.push(tb.rd_req(BASE + 0x105, 1500, 5));
            let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            let lat = st.rd_first[0] - st.rd_accept[0];
            let span = st.rd_last[0] - st.rd_first[0] + 1;
            eprintln!("1500-byte read: latency {lat} cycles (accept -> first beat), 94 beats in {span} cycles");
            ensure!(tb, lat == 7, "1500: latency {lat}, want 7");
            ensure!(tb, span == 94, "1500: 94 beats in {span} cycles, want 94");

            // queued requests back to back
            let mut sc = Scenario::new("queued");
            let mut beats = 0u64;
            for _ in 0..12 {
                let len = tb.rng.gen_range(1..=300u64);
                let off = tb.rng.gen_range(0..win - len);
                beats += len.div_ceil(16);
                let tag = tb.rng.gen_range(0..16);
                sc.reads.push(tb.rd_req(BASE + off, len as u16, tag));
            }
            let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            let span = st.rd_last[11] - st.rd_first[0] + 1;
            eprintln!("12 queued requests: {beats} beats in {span} cycles");
            ensure!(tb, span == beats, "queued: {beats} beats in {span} cycles");

            // one-beat requests back to back
            let mut sc = Scenario::new("one-beat");
            for _ in 0..32 {
                let len = tb.rng.gen_range(1..=16u64);
                let off = tb.rng.gen_range(0..win - len);
                let tag = tb.rng.gen_range(0..16);
                sc.reads.push(tb.rd_req(BASE + off, len as u16, tag));
            }
            let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            let span = st.rd_last[31] - st.rd_first[0] + 1;
            eprintln!("32 one-beat requests: 32 beats in {span} cycles, first accepted -> last beat {}", st.rd_last[31] - st.rd_accept[0] + 1);
            ensure!(tb, span == 32, "one-beat: 32 beats in {span} cycles");

            // a read stream against back-to-back bridge reads
            let mut sc = Scenario::new("contended-read");
            sc.reads.push(tb.rd_req(BASE + 0x2003, 1500, 9));
            sc.bridge = gen_bridge(&mut tb, 40, Some((0, win)), None);
            let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            let span = st.rd_last[0] - st.rd_first[0] + 1;
            let br_span = st.br_take.last().unwrap() - st.br_take[0] + 1;
            eprintln!(
                "1500-byte read with 40 bridge reads: 94 beats in {span} cycles, bridge reads in {br_span} cycles, bridge max wait {}, stream max bubble {}",
                st.br_max_wait, st.rd_max_bubble
            );
            ensure!(tb, span <= 94 + 40, "contended read: {span} cycles");
            ensure!(tb, br_span <= 2 * 40, "contended read: bridge took {br_span} cycles");
            ensure!(tb, st.br_max_wait <= 1 && st.rd_max_bubble <= 1, "contended read: a side waited more than a cycle");

            // a write burst, then one against back-to-back bridge writes
            for with_bridge in [false, true] {
                let mut sc = Scenario::new(if with_bridge { "contended-write" } else { "write-burst" });
                for k in 0..94u64 {
                    let mut data = [0u8; 16];
                    tb.rng.fill(&mut data[..]);
                    sc.writes.push(WrBeat { addr: BASE + 0x4007 + 16 * k, data, strb: 0xffff, last: k == 93, tag: 0 });
                }
                if with_bridge {
                    sc.bridge = gen_bridge(&mut tb, 60, None, Some((0x6000, 0x7000)));
                }
                let (nx, st) = run_scenario(sim, x, &mut tb, &sc)?;
                x = nx;
                let span = st.wr_take.last().unwrap() - st.wr_take[0] + 1;
                eprintln!("{}: 94 beats in {span} cycles, DMA max wait {}, bridge max wait {}", sc.name, st.dmaw_max_wait, st.br_max_wait);
                if with_bridge {
                    ensure!(tb, span <= 94 + 60 && st.dmaw_max_wait <= 1 && st.br_max_wait <= 1, "contended write: {span} cycles");
                } else {
                    ensure!(tb, span == 94, "write burst: 94 beats in {span} cycles");
                }
            }
            let sc = dump(&mut tb);
            let (nx, _) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            Ok((x, tb.errors))
        },
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The fault count saturates at 65535 (65,600 refused write beats), `fault_clear` zeroes
/// it, address/length/direction stay.
#[test]
fn fault_count_saturates_and_clears() {
    let errors = run_testbench::<HostMem<6>, Vec<String>>(
        100_000_000,
        |x| x.clock.next = !x.clock.val(),
        |sim, x| {
            let win = 16u64 << 6;
            let mut tb = Tb { win, model: vec![0; win as usize], faults: FaultLog::default(), cycle: 0, rng: StdRng::seed_from_u64(5), errors: vec![] };
            let mut x = reset(sim, x)?;
            let mut sc = Scenario::new("saturate");
            for k in 0..65_600u64 {
                sc.writes.push(WrBeat { addr: BASE + win + (k % 256), data: [0xa5; 16], strb: 0x0ff0, last: k % 16 == 15, tag: 3 });
            }
            let (nx, _) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            ensure!(tb, tb.faults.count == 0xffff, "the model did not saturate");
            // one idle cycle, then clear
            let mut sc = Scenario::new("clear");
            sc.clear_p = 1.0;
            sc.reads.push(tb.rd_req(BASE, 16, 0));
            let (nx, _) = run_scenario(sim, x, &mut tb, &sc)?;
            x = nx;
            x = sim.wait(1, x)?;
            ensure!(tb, x.fault_count.val().to_u64() == 0 && x.fault_write.val() && x.fault_len.val().to_u64() == 8, "after clear: count {}", x.fault_count.val().to_u64());
            ensure!(tb, tb.model.iter().all(|&b| b == 0), "memory changed");
            Ok((x, tb.errors))
        },
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
