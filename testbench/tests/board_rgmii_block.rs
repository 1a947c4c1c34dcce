//! Block tests of the board's RGMII adapter (`nic_hw::board::rgmii`) and its dual-clock
//! FIFO (`nic_hw::board::cdc_fifo`) in rust-hdl's own simulator, with two unrelated clocks
//! (the core clock and the PHY's 125 MHz clock), one testbench thread per clock domain.
//!
//! The PHY side is modelled here, independently of the RTL: the RX model turns frames
//! into one byte per rx_clock cycle (rising nibble = bits 3:0, falling = bits 7:4, CTL
//! rising = RX_DV, falling = RX_DV xor RX_ER) with 7 x 0x55, 0xD5, the data and a gap;
//! the TX model decodes TXD/CTL back into frames (checking the preamble and SFD and
//! measuring the gap). Expected results come from the frame lists, never from the RTL.
//!
//! Clock ratios: `add_clock(h)` toggles every h units (period 2h). "core faster" runs the
//! core at half period 3 against 4 for the PHY clock; "roughly equal" runs 9 against 8
//! (the core a little slower than 125 MHz, still far above the 15.6 MHz that 1 Gb/s
//! needs on a 64-bit path).
use nic_hw::board::cdc_fifo::CdcFifo;
use nic_hw::board::rgmii::{RgmiiRx, RgmiiRxN, RgmiiTx, RgmiiTxN};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Waits for the next rising edge of `$clk` (returns right after it, with the flops updated).
macro_rules! posedge {
    ($sim:ident, $clk:ident, $x:ident) => {
        wait_clock_false!($sim, $clk, $x);
        wait_clock_true!($sim, $clk, $x);
    };
}

const CORE_FASTER: (u64, u64) = (3, 4);
const ROUGHLY_EQUAL: (u64, u64) = (9, 8);

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.gen()).collect()
}

// ---------------------------------------------------------------------------------------
// RX

/// One frame as the PHY sends it.
#[derive(Clone, Debug)]
struct RxWireFrame {
    data: Vec<u8>,
    /// Byte indices (into `data`) sent with RX_ER.
    er_at: Vec<usize>,
    /// Send the preamble without the SFD (the frame must be ignored).
    no_sfd: bool,
    /// Idle cycles after the frame.
    gap: usize,
}

impl RxWireFrame {
    fn good(data: Vec<u8>) -> Self {
        RxWireFrame { data, er_at: vec![], no_sfd: false, gap: 12 }
    }
}

/// The PHY model: (byte, RX_DV, RX_ER) per rx_clock cycle.
fn rx_wire(frames: &[RxWireFrame]) -> Vec<(u8, bool, bool)> {
    let mut w = vec![(0u8, false, false); 20];
    for f in frames {
        for _ in 0..7 {
            w.push((0x55, true, false));
        }
        if !f.no_sfd {
            w.push((0xd5, true, false));
        }
        for (i, b) in f.data.iter().enumerate() {
            w.push((*b, true, f.er_at.contains(&i)));
        }
        for _ in 0..f.gap {
            w.push((0, false, false));
        }
    }
    w
}

#[derive(Clone, Debug, Default, PartialEq)]
struct RxOut {
    bytes: Vec<u8>,
    user: bool,
}

#[derive(Clone, Debug, Default)]
struct RxResult {
    frames: Vec<RxOut>,
    stat_errors: u64,
    protocol_errors: Vec<String>,
}

/// Runs `RgmiiRxN<N, NP1>`: the PHY testbench plays `wire`, the core testbench takes
/// beats with `tready` from `ready(core cycle)`, until `expect` frames came out and the
/// wire is done (plus a tail).
fn run_rx<const N: usize, const NP1: usize>(halves: (u64, u64), wire: Vec<(u8, bool, bool)>, ready: fn(u64) -> bool, expect: usize) -> RxResult {
    let (core_half, rx_half) = halves;
    let result = Arc::new(Mutex::new(RxResult::default()));
    let wire_done = Arc::new(AtomicBool::new(false));
    let mut sim = Simulation::new();
    sim.add_clock(core_half, |x: &mut Box<RgmiiRxN<N, NP1>>| x.clock.next = !x.clock.val());
    sim.add_clock(rx_half, |x: &mut Box<RgmiiRxN<N, NP1>>| x.rx_clock.next = !x.rx_clock.val());
    // PHY side
    let done = wire_done.clone();
    sim.add_testbench(move |mut sim: Sim<RgmiiRxN<N, NP1>>| {
        let mut x = sim.init()?;
        x.rx_reset.next = true;
        x.ctl_rise.next = false;
        x.ctl_fall.next = false;
        wait_clock_cycles!(sim, rx_clock, x, 12);
        posedge!(sim, rx_clock, x);
        x.rx_reset.next = false;
        for &(b, dv, er) in &wire {
            posedge!(sim, rx_clock, x);
            x.rxd_rise.next = Bits::<4>::from((b & 0xf) as u64);
            x.rxd_fall.next = Bits::<4>::from((b >> 4) as u64);
            x.ctl_rise.next = dv;
            x.ctl_fall.next = dv ^ er;
        }
        posedge!(sim, rx_clock, x);
        x.ctl_rise.next = false;
        x.ctl_fall.next = false;
        done.store(true, Ordering::SeqCst);
        sim.done(x)
    });
    // core side
    let res = result.clone();
    sim.add_testbench(move |mut sim: Sim<RgmiiRxN<N, NP1>>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.m_axis_tready.next = false;
        wait_clock_cycles!(sim, clock, x, 12);
        posedge!(sim, clock, x);
        x.reset.next = false;
        let mut r = RxResult::default();
        let mut cur = RxOut::default();
        let mut cycle = 0u64;
        let mut tail = 0u64;
        loop {
            posedge!(sim, clock, x);
            let rdy = ready(cycle);
            x.m_axis_tready.next = rdy;
            x = sim.wait(1, x)?;
            if x.stat_rx_errors.val() {
                r.stat_errors += 1;
            }
            if x.m_axis_tvalid.val() && rdy {
                let keep = x.m_axis_tkeep.val().to_u64() as u8;
                let last = x.m_axis_tlast.val();
                let n = keep.trailing_ones() as usize;
                if keep == 0 || (keep as u16 + 1) & keep as u16 != 0 {
                    r.protocol_errors.push(format!("beat with tkeep {keep:#04x} (empty or not contiguous from lane 0)"));
                }
                if !last && keep != 0xff {
                    r.protocol_errors.push(format!("partial beat (tkeep {keep:#04x}) without tlast"));
                }
                if !last && x.m_axis_tuser.val() {
                    r.protocol_errors.push("tuser on a beat without tlast".into());
                }
                let d = x.m_axis_tdata.val().to_u64().to_le_bytes();
                cur.bytes.extend_from_slice(&d[..n]);
                if last {
                    cur.user = x.m_axis_tuser.val();
                    r.frames.push(std::mem::take(&mut cur));
                }
            }
            cycle += 1;
            if done_and(&wire_done) && r.frames.len() >= expect {
                tail += 1;
                if tail > 200 {
                    break;
                }
            }
            if cycle > 3_000_000 {
                r.protocol_errors.push("timeout".into());
                break;
            }
        }
        *res.lock().unwrap() = r;
        sim.done(x)
    });
    let mut uut = RgmiiRxN::<N, NP1>::default();
    uut.connect_all();
    sim.run(Box::new(uut), 100_000_000).unwrap();
    let r = result.lock().unwrap().clone();
    r
}

fn done_and(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}

/// What must come out: frames with an SFD, marked bad when RX_ER was seen in their data.
fn rx_expected(frames: &[RxWireFrame]) -> Vec<RxOut> {
    frames.iter().filter(|f| !f.no_sfd).map(|f| RxOut { bytes: f.data.clone(), user: !f.er_at.is_empty() }).collect()
}

fn check_rx(what: &str, frames: &[RxWireFrame], r: &RxResult) {
    let want = rx_expected(frames);
    assert!(r.protocol_errors.is_empty(), "{what}: {:?}", &r.protocol_errors[..r.protocol_errors.len().min(8)]);
    let mut bad = Vec::new();
    if r.frames.len() != want.len() {
        bad.push(format!("{} frames came out, {} expected", r.frames.len(), want.len()));
    }
    for (k, (g, w)) in r.frames.iter().zip(&want).enumerate() {
        if g != w {
            let diff = g.bytes.iter().zip(&w.bytes).position(|(a, b)| a != b).unwrap_or(g.bytes.len().min(w.bytes.len()));
            bad.push(format!("frame {k}: got {} bytes user {}, expected {} bytes user {}; first difference at byte {diff}", g.bytes.len(), g.user, w.bytes.len(), w.user));
        }
    }
    let want_stat = want.iter().filter(|f| f.user).count() as u64;
    if r.stat_errors != want_stat {
        bad.push(format!("stat_rx_errors pulsed {} times, {} expected", r.stat_errors, want_stat));
    }
    println!("{what}: {} wire frames, {} out ({} bad), {} bytes", frames.len(), r.frames.len(), want_stat, want.iter().map(|f| f.bytes.len()).sum::<usize>());
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// Random frames 60..=1518 and a 9018-byte jumbo, back to back with the minimum gap;
/// two with RX_ER (one of them in the last byte), one without SFD between good ones.
fn rx_frames(seed: u64) -> Vec<RxWireFrame> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut v = Vec::new();
    for i in 0..10 {
        let len = rng.gen_range(60..=1518);
        let mut f = RxWireFrame::good(random_bytes(&mut rng, len));
        if i == 1 {
            f.er_at = vec![rng.gen_range(0..len)];
        }
        if i == 4 {
            f.er_at = vec![len - 1];
        }
        v.push(f);
        if i == 2 {
            // a preamble without SFD: data whose first byte is neither 0x55 nor 0xd5
            let mut d = random_bytes(&mut rng, 100);
            d[0] = 0x12;
            v.push(RxWireFrame { data: d, er_at: vec![], no_sfd: true, gap: 12 });
        }
    }
    v.insert(2, RxWireFrame::good(random_bytes(&mut rng, 9018)));
    // lengths around beat boundaries
    for len in [60usize, 61, 63, 64, 65, 71, 72, 73] {
        v.push(RxWireFrame::good(random_bytes(&mut rng, len)));
    }
    v
}

fn always(_: u64) -> bool {
    true
}

/// tready low about one cycle in four (in bursts), sustainable at line rate.
fn mostly(c: u64) -> bool {
    (c.wrapping_mul(2654435761) >> 9) % 4 != 0
}

#[test]
fn rx_frames_core_faster() {
    let frames = rx_frames(1);
    let r = run_rx::<9, 10>(CORE_FASTER, rx_wire(&frames), mostly, rx_expected(&frames).len());
    check_rx("rx, core faster, random tready", &frames, &r);
}

#[test]
fn rx_frames_clocks_roughly_equal() {
    let frames = rx_frames(2);
    let r = run_rx::<9, 10>(ROUGHLY_EQUAL, rx_wire(&frames), always, rx_expected(&frames).len());
    check_rx("rx, clocks roughly equal", &frames, &r);
}

/// tready low from core cycle 300 to 2500: with a 16-entry FIFO the second frame
/// overflows. It must come out marked bad with a prefix of its bytes (the terminating
/// beat's bytes are not checked), the frames around it intact, one stat pulse.
#[test]
fn rx_overflow_small_fifo() {
    let mut rng = StdRng::seed_from_u64(3);
    let frames = vec![
        RxWireFrame::good(random_bytes(&mut rng, 64)),
        RxWireFrame { gap: 3000, ..RxWireFrame::good(random_bytes(&mut rng, 1000)) },
        RxWireFrame::good(random_bytes(&mut rng, 300)),
        RxWireFrame::good(random_bytes(&mut rng, 77)),
    ];
    fn stall(c: u64) -> bool {
        !(300..2500).contains(&c)
    }
    let r = run_rx::<4, 5>(CORE_FASTER, rx_wire(&frames), stall, 4);
    assert!(r.protocol_errors.is_empty(), "{:?}", r.protocol_errors);
    assert_eq!(r.frames.len(), 4, "frames out: {:?}", r.frames.iter().map(|f| (f.bytes.len(), f.user)).collect::<Vec<_>>());
    assert_eq!(r.frames[0], RxOut { bytes: frames[0].data.clone(), user: false });
    let f1 = &r.frames[1];
    assert!(f1.user, "the overflowed frame is not marked bad");
    assert!(f1.bytes.len() >= 8 && f1.bytes.len() < 1000, "overflowed frame: {} bytes", f1.bytes.len());
    let prefix = f1.bytes.len() - 8;
    assert_eq!(f1.bytes[..prefix], frames[1].data[..prefix], "the overflowed frame's bytes before its terminator");
    assert_eq!(r.frames[2], RxOut { bytes: frames[2].data.clone(), user: false });
    assert_eq!(r.frames[3], RxOut { bytes: frames[3].data.clone(), user: false });
    assert_eq!(r.stat_errors, 1, "stat_rx_errors");
    println!("rx overflow: the second frame came out with {} bytes and tuser", f1.bytes.len());
}

// ---------------------------------------------------------------------------------------
// TX

#[derive(Clone, Debug, Default, PartialEq)]
struct TxWireFrame {
    data: Vec<u8>,
    er: bool,
}

#[derive(Clone, Debug, Default)]
struct TxResult {
    frames: Vec<TxWireFrame>,
    /// Idle byte times before each frame after the first.
    gaps: Vec<u64>,
    underruns: u64,
    errors: Vec<String>,
}

#[derive(Clone, Copy)]
struct Stall {
    frame: usize,
    beat: usize,
    cycles: u64,
}

/// Runs `RgmiiTxN<N, NP1>`: the core testbench offers `frames` (with abort flags) on
/// s_axis with tvalid from `valid(rng)`, optionally stalling; the PHY testbench decodes
/// TXD/CTL until `expect` frames were seen and the wire has been idle for a while.
fn run_tx<const N: usize, const NP1: usize>(halves: (u64, u64), frames: Vec<(Vec<u8>, bool)>, p_valid: f64, stall: Option<Stall>, expect: usize) -> TxResult {
    let (core_half, tx_half) = halves;
    let result = Arc::new(Mutex::new(TxResult::default()));
    let underruns = Arc::new(AtomicU64::new(0));
    let core_done = Arc::new(AtomicBool::new(false));
    let phy_done = Arc::new(AtomicBool::new(false));
    let mut sim = Simulation::new();
    sim.add_clock(core_half, |x: &mut Box<RgmiiTxN<N, NP1>>| x.clock.next = !x.clock.val());
    sim.add_clock(tx_half, |x: &mut Box<RgmiiTxN<N, NP1>>| x.tx_clock.next = !x.tx_clock.val());
    // core side
    let (und, cdone, pdone) = (underruns.clone(), core_done.clone(), phy_done.clone());
    sim.add_testbench(move |mut sim: Sim<RgmiiTxN<N, NP1>>| {
        let mut x = sim.init()?;
        let mut rng = StdRng::seed_from_u64(99);
        x.reset.next = true;
        x.s_axis_tvalid.next = false;
        wait_clock_cycles!(sim, clock, x, 12);
        posedge!(sim, clock, x);
        x.reset.next = false;
        let beats: Vec<Vec<(u64, u8, bool, bool)>> = frames
            .iter()
            .map(|(f, abort)| {
                let n = f.len().div_ceil(8);
                f.chunks(8)
                    .enumerate()
                    .map(|(i, c)| {
                        let mut b = [0u8; 8];
                        b[..c.len()].copy_from_slice(c);
                        let keep = ((1u16 << c.len()) - 1) as u8;
                        (u64::from_le_bytes(b), keep, i + 1 == n, *abort && i + 1 == n)
                    })
                    .collect()
            })
            .collect();
        let (mut fi, mut bi) = (0usize, 0usize);
        let mut stalled = 0u64;
        loop {
            posedge!(sim, clock, x);
            let offering = fi < beats.len();
            let mut v = offering && rng.gen_bool(p_valid);
            if let Some(s) = stall {
                if offering && fi == s.frame && bi == s.beat && stalled < s.cycles {
                    stalled += 1;
                    v = false;
                }
            }
            if offering {
                let (d, k, l, u) = beats[fi][bi];
                x.s_axis_tdata.next = Bits::<64>::from(d);
                x.s_axis_tkeep.next = Bits::<8>::from(k as u64);
                x.s_axis_tlast.next = l;
                x.s_axis_tuser.next = u;
            }
            x.s_axis_tvalid.next = v;
            x = sim.wait(1, x)?;
            if x.stat_underruns.val() {
                und.fetch_add(1, Ordering::SeqCst);
            }
            if v && x.s_axis_tready.val() {
                bi += 1;
                if bi == beats[fi].len() {
                    bi = 0;
                    fi += 1;
                }
            }
            if fi == beats.len() {
                cdone.store(true, Ordering::SeqCst);
                // keep counting underrun pulses until the PHY side is done
                if pdone.load(Ordering::SeqCst) {
                    break;
                }
            }
        }
        sim.done(x)
    });
    // PHY side: decode the wire
    let (res, cdone, pdone) = (result.clone(), core_done.clone(), phy_done.clone());
    sim.add_testbench(move |mut sim: Sim<RgmiiTxN<N, NP1>>| {
        let mut x = sim.init()?;
        x.tx_reset.next = true;
        wait_clock_cycles!(sim, tx_clock, x, 12);
        posedge!(sim, tx_clock, x);
        x.tx_reset.next = false;
        let mut r = TxResult::default();
        let mut cur: Vec<(u8, bool)> = Vec::new();
        let mut in_frame = false;
        let mut idle = 0u64;
        let mut seen_one = false;
        let mut cycles = 0u64;
        loop {
            posedge!(sim, tx_clock, x);
            cycles += 1;
            let b = (x.txd_rise.val().to_u64() | (x.txd_fall.val().to_u64() << 4)) as u8;
            let en = x.ctl_rise.val();
            let er = en ^ x.ctl_fall.val();
            if en {
                if !in_frame {
                    in_frame = true;
                    if seen_one {
                        r.gaps.push(idle);
                    }
                }
                cur.push((b, er));
            } else {
                if er {
                    r.errors.push("TX_ER with TX_EN low".into());
                }
                if in_frame {
                    in_frame = false;
                    seen_one = true;
                    idle = 0;
                    let f = std::mem::take(&mut cur);
                    let pre: Vec<u8> = f.iter().take(8).map(|p| p.0).collect();
                    let er_any = f.iter().any(|p| p.1);
                    if pre.len() < 8 || pre[..7] != [0x55; 7] || pre[7] != 0xd5 || f.iter().take(8).any(|p| p.1) {
                        r.errors.push(format!("frame {} has a bad preamble/SFD: {:02x?}", r.frames.len(), pre));
                    }
                    r.frames.push(TxWireFrame { data: f.iter().skip(8).map(|p| p.0).collect(), er: er_any });
                }
                idle += 1;
            }
            if r.frames.len() >= expect && !in_frame && idle > 100 && cdone.load(Ordering::SeqCst) {
                break;
            }
            if cycles > 2_000_000 {
                r.errors.push("timeout".into());
                break;
            }
        }
        *res.lock().unwrap() = r;
        pdone.store(true, Ordering::SeqCst);
        sim.done(x)
    });
    let mut uut = RgmiiTxN::<N, NP1>::default();
    uut.connect_all();
    sim.run(Box::new(uut), 200_000_000).unwrap();
    let mut r = result.lock().unwrap().clone();
    r.underruns = underruns.load(Ordering::SeqCst);
    r
}

fn check_tx(what: &str, frames: &[(Vec<u8>, bool)], r: &TxResult) {
    assert!(r.errors.is_empty(), "{what}: {:?}", r.errors);
    let mut bad = Vec::new();
    if r.frames.len() != frames.len() {
        bad.push(format!("{} frames on the wire, {} expected", r.frames.len(), frames.len()));
    }
    for (k, (g, (w, abort))) in r.frames.iter().zip(frames).enumerate() {
        if g.data != *w || g.er != *abort {
            let diff = g.data.iter().zip(w).position(|(a, b)| a != b).unwrap_or(g.data.len().min(w.len()));
            bad.push(format!("frame {k}: got {} bytes TX_ER {}, expected {} bytes TX_ER {}; first difference at byte {diff}", g.data.len(), g.er, w.len(), abort));
        }
    }
    let min_gap = r.gaps.iter().copied().min().unwrap_or(0);
    if min_gap < 12 {
        bad.push(format!("inter-frame gap of {min_gap} byte times (< 12)"));
    }
    if r.underruns != 0 {
        bad.push(format!("{} underruns", r.underruns));
    }
    println!("{what}: {} frames, {} bytes, gaps min {min_gap} max {}", r.frames.len(), frames.iter().map(|f| f.0.len()).sum::<usize>(), r.gaps.iter().max().unwrap_or(&0));
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// Random frames 60..=1518, a 9018-byte jumbo (larger than the FIFO: it starts on the
/// half-full rule), lengths around beat boundaries, one aborted frame.
fn tx_frames(seed: u64) -> Vec<(Vec<u8>, bool)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut v: Vec<(Vec<u8>, bool)> = (0..8).map(|_| {
        let len = rng.gen_range(60..=1518);
        (random_bytes(&mut rng, len), false)
    }).collect();
    v.insert(3, (random_bytes(&mut rng, 9018), false));
    v[5].1 = true;
    for len in [60usize, 63, 64, 65, 72] {
        v.push((random_bytes(&mut rng, len), false));
    }
    v
}

#[test]
fn tx_frames_core_faster() {
    let frames = tx_frames(4);
    let r = run_tx::<9, 10>(CORE_FASTER, frames.clone(), 0.7, None, frames.len());
    check_tx("tx, core faster, random tvalid", &frames, &r);
}

#[test]
fn tx_frames_clocks_roughly_equal() {
    let frames = tx_frames(5);
    let r = run_tx::<9, 10>(ROUGHLY_EQUAL, frames.clone(), 0.8, None, frames.len());
    check_tx("tx, clocks roughly equal, random tvalid", &frames, &r);
}

/// Back to back with tvalid always high and small frames: the gap is exactly 12.
#[test]
fn tx_minimum_gap() {
    let mut rng = StdRng::seed_from_u64(6);
    let frames: Vec<(Vec<u8>, bool)> = (0..12).map(|i| (random_bytes(&mut rng, 60 + i * 7), false)).collect();
    let r = run_tx::<9, 10>(CORE_FASTER, frames.clone(), 1.0, None, frames.len());
    check_tx("tx, minimum gap", &frames, &r);
    assert_eq!(r.gaps.iter().copied().max(), Some(12), "with the frames waiting in the FIFO every gap is 12: {:?}", r.gaps);
}

/// A 3000-byte frame (375 beats, more than half the 512-entry FIFO: it starts before its
/// end is in) whose s_axis stalls after beat 300 for 6000 core cycles: the wire frame
/// ends with TX_ER, one underrun is counted, the next frame is intact.
#[test]
fn tx_underrun() {
    let mut rng = StdRng::seed_from_u64(7);
    let frames = vec![(random_bytes(&mut rng, 100), false), (random_bytes(&mut rng, 3000), false), (random_bytes(&mut rng, 200), false), (random_bytes(&mut rng, 64), false)];
    let stall = Stall { frame: 1, beat: 300, cycles: 6000 };
    let r = run_tx::<9, 10>(CORE_FASTER, frames.clone(), 1.0, Some(stall), frames.len());
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.frames.len(), 4, "{:?}", r.frames.iter().map(|f| (f.data.len(), f.er)).collect::<Vec<_>>());
    assert_eq!(r.frames[0], TxWireFrame { data: frames[0].0.clone(), er: false });
    let u = &r.frames[1];
    assert!(u.er, "the underrun frame has no TX_ER");
    assert!(u.data.len() < 3000 && u.data.len() >= 2400, "underrun frame: {} bytes on the wire", u.data.len());
    // the bytes before the underrun are the frame's own; then 5 byte times with TX_ER
    assert_eq!(u.data[..2400], frames[1].0[..2400]);
    assert_eq!(r.frames[2], TxWireFrame { data: frames[2].0.clone(), er: false });
    assert_eq!(r.frames[3], TxWireFrame { data: frames[3].0.clone(), er: false });
    assert_eq!(r.underruns, 1, "stat_underruns");
    assert!(r.gaps.iter().all(|g| *g >= 12), "gaps {:?}", r.gaps);
    println!("tx underrun: {} bytes sent before TX_ER ended the frame", u.data.len());
}

// ---------------------------------------------------------------------------------------
// CdcFifo

/// Random write and read enables on an 8-entry FIFO: every word comes out once, in
/// order; `wr_free` never claims more room than there is; at the end both sides agree
/// it is empty.
fn cdc_stress(halves: (u64, u64), seed: u64, words: u64) {
    type F = CdcFifo<Bits<16>, 3, 4>;
    let (wr_half, rd_half) = halves;
    let written = Arc::new(AtomicU64::new(0));
    let read = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut sim = Simulation::new();
    sim.add_clock(wr_half, |x: &mut Box<F>| x.wr_clock.next = !x.wr_clock.val());
    sim.add_clock(rd_half, |x: &mut Box<F>| x.rd_clock.next = !x.rd_clock.val());
    let (w, rd, errs) = (written.clone(), read.clone(), errors.clone());
    sim.add_testbench(move |mut sim: Sim<F>| {
        let mut x = sim.init()?;
        let mut rng = StdRng::seed_from_u64(seed);
        x.wr_reset.next = true;
        x.write.next = false;
        wait_clock_cycles!(sim, wr_clock, x, 12);
        posedge!(sim, wr_clock, x);
        x.wr_reset.next = false;
        let mut n = 0u64;
        let mut full_seen = 0u64;
        while n < words {
            posedge!(sim, wr_clock, x);
            // bursts of eagerness and of idleness
            let p = if (n / 50) % 2 == 0 { 0.9 } else { 0.3 };
            let we = rng.gen_bool(p);
            x.write.next = we;
            x.data_in.next = Bits::<16>::from(n.wrapping_mul(40503) & 0xffff);
            x = sim.wait(1, x)?;
            // pops already done are at most `read` (the reader counts after deciding)
            let free = x.wr_free.val().to_u64();
            let stored_min = n - rd.load(Ordering::SeqCst).min(n);
            if free + stored_min > 8 {
                errs.lock().unwrap().push(format!("wr_free {free} with at least {stored_min} stored"));
            }
            if x.full.val() != (free == 0) {
                errs.lock().unwrap().push(format!("full {} with wr_free {free}", x.full.val()));
            }
            if x.full.val() {
                full_seen += 1;
            }
            if we && !x.full.val() {
                n += 1;
                w.store(n, Ordering::SeqCst);
            }
        }
        // the last write is taken at this edge
        posedge!(sim, wr_clock, x);
        x.write.next = false;
        // the free count comes back to 8 once the reader has drained it
        let mut k = 0;
        loop {
            posedge!(sim, wr_clock, x);
            if rd.load(Ordering::SeqCst) == words && x.wr_free.val().to_u64() == 8 {
                break;
            }
            k += 1;
            if k > 10_000 {
                errs.lock().unwrap().push(format!("wr_free stays at {}", x.wr_free.val().to_u64()));
                break;
            }
        }
        println!("cdc stress ({wr_half}/{rd_half}): writer saw full on {full_seen} cycles");
        sim.done(x)
    });
    let (w, rd, errs) = (written.clone(), read.clone(), errors.clone());
    sim.add_testbench(move |mut sim: Sim<F>| {
        let mut x = sim.init()?;
        let mut rng = StdRng::seed_from_u64(seed + 1);
        x.rd_reset.next = true;
        x.read.next = false;
        wait_clock_cycles!(sim, rd_clock, x, 12);
        posedge!(sim, rd_clock, x);
        x.rd_reset.next = false;
        let mut n = 0u64;
        let mut cycles = 0u64;
        while n < words {
            posedge!(sim, rd_clock, x);
            cycles += 1;
            let p = if (cycles / 70) % 3 == 0 { 0.2 } else { 0.95 };
            let re = rng.gen_bool(p);
            x.read.next = re;
            x = sim.wait(1, x)?;
            let fill = x.rd_fill.val().to_u64();
            if fill > w.load(Ordering::SeqCst) - n {
                errs.lock().unwrap().push(format!("rd_fill {fill} with {} written and {n} read", w.load(Ordering::SeqCst)));
            }
            if x.valid.val() != (fill != 0) {
                errs.lock().unwrap().push(format!("valid {} with rd_fill {fill}", x.valid.val()));
            }
            if re && x.valid.val() {
                let want = n.wrapping_mul(40503) & 0xffff;
                let got = x.data_out.val().to_u64();
                if got != want {
                    errs.lock().unwrap().push(format!("word {n}: got {got:#06x}, expected {want:#06x}"));
                    break;
                }
                n += 1;
                rd.store(n, Ordering::SeqCst);
            }
            if cycles > 40 * words + 10_000 {
                errs.lock().unwrap().push(format!("timeout after {n} words"));
                break;
            }
        }
        // nothing more comes out
        x.read.next = true;
        for _ in 0..20 {
            posedge!(sim, rd_clock, x);
            if x.valid.val() {
                errs.lock().unwrap().push("valid after the last word".into());
                break;
            }
        }
        sim.done(x)
    });
    let mut uut = F::default();
    uut.connect_all();
    sim.run(Box::new(uut), 100_000_000).unwrap();
    let e = errors.lock().unwrap();
    assert!(e.is_empty(), "cdc stress {halves:?}: {:?}", &e[..e.len().min(10)]);
    assert_eq!(read.load(Ordering::SeqCst), words);
}

#[test]
fn cdc_fifo_stress_writer_faster() {
    cdc_stress((3, 4), 21, 3000);
}

#[test]
fn cdc_fifo_stress_reader_faster() {
    cdc_stress((4, 3), 22, 3000);
}

#[test]
fn cdc_fifo_stress_roughly_equal() {
    cdc_stress((9, 8), 23, 3000);
}

#[allow(dead_code)]
fn _board_sizes_are_the_aliases() {
    let _ = RgmiiRx::default();
    let _ = RgmiiTx::default();
}
