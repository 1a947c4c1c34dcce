//! MAC RX and MAC TX alone, in rust-hdl's simulator, against the golden FCS code
//! (`nic_testbench::fcs`, the bytewise CRC-32 of IEEE 802.3): random frames with random
//! faults, gaps on the input and stalls on the output, for both CRC builds (8 bytes a
//! cycle through the pipelined CRC, `full`; half rate, `small`). Every output byte,
//! every verdict and every frame boundary is compared; stalls must lose nothing.

mod common;

use common::hdl::{push_beat, run_testbench_of};
use common::icarus;
use nic_hw::mac::{rx_status, MacRx, MacTx};
use nic_testbench::fcs;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// The longest frame MAC RX accepts in these runs (bytes with FCS).
const MAX_FRAME: usize = 300;

/// A frame on the wire as the test sends it to MAC RX.
#[derive(Clone, Debug)]
struct WireFrame {
    bytes: Vec<u8>,
    /// `tuser` on this beat (a PHY error), if any.
    phy_error_beat: Option<usize>,
}

/// What MAC RX must say: the frame without its FCS (a frame of one beat leaves as its
/// first byte only, always a runt) and the verdict, by the MAC's priority.
fn rx_golden(w: &WireFrame) -> (Vec<u8>, u64) {
    let n = w.bytes.len();
    let bytes = if n <= 8 { w.bytes[..1].to_vec() } else { w.bytes[..n - 4].to_vec() };
    let fcs_ok = n >= 4 && fcs::fcs(&w.bytes[..n - 4]).to_le_bytes() == w.bytes[n - 4..];
    let status = if w.phy_error_beat.is_some() {
        rx_status::PHY_ERROR
    } else if n < fcs::MIN_FRAME_LEN {
        rx_status::RUNT
    } else if n > MAX_FRAME {
        rx_status::OVERSIZE
    } else if !fcs_ok {
        rx_status::BAD_FCS
    } else {
        rx_status::OK
    };
    (bytes, status)
}

fn wire_frame(rng: &mut StdRng) -> WireFrame {
    let len = match rng.gen_range(0..10) {
        0 => rng.gen_range(1..64),
        1 => rng.gen_range(MAX_FRAME - 8..MAX_FRAME + 16),
        _ => rng.gen_range(60..MAX_FRAME - 8),
    };
    let frame: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let mut bytes = fcs::with_fcs(&frame);
    bytes.truncate(rng.gen_range(bytes.len().saturating_sub(2).max(1)..=bytes.len()).max(1));
    if rng.gen_ratio(1, 8) {
        let i = rng.gen_range(0..bytes.len());
        bytes[i] ^= 1 << rng.gen_range(0..8);
    }
    let beats = bytes.len().div_ceil(8);
    let phy_error_beat = rng.gen_ratio(1, 12).then(|| rng.gen_range(0..beats));
    WireFrame { bytes, phy_error_beat }
}

/// Every cycle of a run: the block's inputs and its outputs (sampled with those inputs
/// applied, before the clock edge), in the order of the `*_INPUTS` / `*_OUTPUTS` lists.
type Trace = Vec<(Vec<u128>, Vec<u128>)>;

const RX_INPUTS: [&str; 8] = ["reset", "max_frame_len", "s_data", "s_keep", "s_last", "s_user", "s_valid", "m_ready"];
const RX_OUTPUTS: [&str; 6] = ["s_ready", "m_valid", "m_data", "m_len", "m_last", "m_status"];

/// Runs `frames` through a MAC RX built with `half_rate`, the input idle with
/// probability `gap` and the output stalled with probability `stall` in each cycle;
/// gives back each output frame's bytes and verdict, and the run's trace.
fn run_rx(half_rate: bool, frames: Vec<WireFrame>, gap: f64, stall: f64, seed: u64) -> (Vec<(Vec<u8>, u64)>, Trace) {
    let expected_frames = frames.len();
    run_testbench_of(MacRx::with_half_rate_crc(half_rate), 2_000_000, |x: &mut Box<MacRx>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut trace = Trace::new();
        let record = |x: &MacRx| {
            let ins = vec![
                x.reset.val() as u128,
                x.max_frame_len.val().to_u64() as u128,
                x.s_data.val().to_u64() as u128,
                x.s_keep.val().to_u64() as u128,
                x.s_last.val() as u128,
                x.s_user.val() as u128,
                x.s_valid.val() as u128,
                x.m_ready.val() as u128,
            ];
            let outs = vec![
                x.s_ready.val() as u128,
                x.m_valid.val() as u128,
                x.m_data.val().to_u64() as u128,
                x.m_len.val().to_u64() as u128,
                x.m_last.val() as u128,
                x.m_status.val().to_u64() as u128,
            ];
            (ins, outs)
        };
        x.max_frame_len.next = Bits::<16>::from(MAX_FRAME as u64);
        x.s_valid.next = false;
        x.s_data.next = 0.into();
        x.s_keep.next = 0.into();
        x.s_last.next = false;
        x.s_user.next = false;
        x.m_ready.next = true;
        x.reset.next = true;
        for _ in 0..3 {
            x = sim.wait(1, x)?;
            trace.push(record(&x));
            wait_clock_cycle!(sim, clock, x);
        }
        x.reset.next = false;
        let beats: Vec<(u64, u64, bool, bool)> = frames
            .iter()
            .flat_map(|w| {
                let n = w.bytes.chunks(8).count();
                w.bytes.chunks(8).enumerate().map(move |(i, c)| {
                    let mut d = [0u8; 8];
                    d[..c.len()].copy_from_slice(c);
                    (u64::from_le_bytes(d), c.len() as u64, i + 1 == n, w.phy_error_beat == Some(i))
                })
            })
            .collect();
        let (mut next, mut out, mut current, mut guard) = (0usize, Vec::new(), Vec::new(), 0u64);
        while out.len() < expected_frames {
            guard += 1;
            assert!(guard < 200_000, "MAC RX: {} of {} frames out", out.len(), expected_frames);
            let offer = next < beats.len() && !rng.gen_bool(gap);
            if offer {
                let (d, l, last, user) = beats[next];
                x.s_data.next = Bits::<64>::from(d);
                x.s_keep.next = Bits::<8>::from((1u64 << l) - 1);
                x.s_last.next = last;
                x.s_user.next = user;
            }
            x.s_valid.next = offer;
            x.m_ready.next = !rng.gen_bool(stall);
            x = sim.wait(1, x)?;
            trace.push(record(&x));
            if offer && x.s_ready.val() {
                next += 1;
            }
            if x.m_valid.val() && x.m_ready.val() {
                push_beat(&mut current, x.m_data.val().to_u64(), x.m_len.val().to_u64());
                if x.m_last.val() {
                    out.push((std::mem::take(&mut current), x.m_status.val().to_u64()));
                }
            }
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, (out, trace)))
    })
}

/// The trace's inputs into the block's exported Verilog under Icarus: every cycle's
/// outputs equal rust-hdl's (the data outputs while their valid is high). rust-hdl's
/// simulator runs the Rust; the Verilog sizes its expressions its own way, and the two
/// can differ (docs: testbench/tests/common/icarus.rs).
fn verilog_agrees(tag: &str, verilog: &str, inputs: &[&str], outputs: &[&str], valid: &str, trace: &Trace) {
    let vectors: Vec<Vec<u128>> = trace.iter().map(|(i, _)| i.clone()).collect();
    let rows = icarus::run(tag, verilog, inputs, &vectors, outputs);
    assert_eq!(rows.len(), trace.len());
    let vi = outputs.iter().position(|&n| n == valid).unwrap();
    let mut bad = Vec::new();
    for (c, (row, (_, want))) in rows.iter().zip(trace).enumerate() {
        for (k, name) in outputs.iter().enumerate() {
            let is_control = k == vi || name.ends_with("ready");
            if !is_control && want[vi] == 0 {
                continue;
            }
            if row[*name] != Some(want[k]) {
                bad.push(format!("cycle {c}: {name} = {:?} in Verilog, {:#x} in rust-hdl", row[*name], want[k]));
            }
        }
    }
    assert!(bad.is_empty(), "{tag}: the Verilog differs from rust-hdl:\n{}", bad.iter().take(8).cloned().collect::<Vec<_>>().join("\n"));
}

/// The pipelined MAC RX's Verilog, driven by a run with gaps and stalls, does what
/// rust-hdl's run of it did (which the golden model checks above).
#[test]
fn mac_rx_verilog_agrees_with_rust_hdl() {
    let mut rng = StdRng::seed_from_u64(0x4d41_4352);
    let frames: Vec<WireFrame> = (0..30).map(|_| wire_frame(&mut rng)).collect();
    let want: Vec<(Vec<u8>, u64)> = frames.iter().map(rx_golden).collect();
    let (got, trace) = run_rx(false, frames, 0.2, 0.2, 11);
    assert_eq!(got, want);
    let mut uut = MacRx::with_half_rate_crc(false);
    uut.connect_all();
    verilog_agrees("mac_rx", &generate_verilog(&uut), &RX_INPUTS, &RX_OUTPUTS, "m_valid", &trace);
}

fn rx_case(half_rate: bool) {
    let mut runner = TestRunner::new(Config { cases: 12, failure_persistence: None, ..Config::default() });
    let strategy = (any::<u64>(), 0.0f64..0.6, 0.0f64..0.6, 1usize..40);
    runner
        .run(&strategy, |(seed, gap, stall, count)| {
            let mut rng = StdRng::seed_from_u64(seed);
            let frames: Vec<WireFrame> = (0..count).map(|_| wire_frame(&mut rng)).collect();
            let want: Vec<(Vec<u8>, u64)> = frames.iter().map(rx_golden).collect();
            let (got, _) = run_rx(half_rate, frames, gap, stall, seed ^ 0x5eed);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert_eq!(&g.0, &w.0, "frame {}: bytes", i);
                prop_assert_eq!(g.1, w.1, "frame {}: verdict", i);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn mac_rx_pipelined_crc_matches_golden_under_gaps_and_stalls() {
    rx_case(false);
}

#[test]
fn mac_rx_half_rate_crc_matches_golden_under_gaps_and_stalls() {
    rx_case(true);
}

/// An idle pipe with the output always ready: a frame's first beat leaves MAC RX
/// `PIPE_LATENCY` + 1 cycles after it came in (the pipe, then the holding stage), and
/// back-to-back frames go through at a beat per cycle (no cycle lost between frames).
#[test]
fn mac_rx_pipelined_keeps_a_beat_per_cycle() {
    let frames: Vec<WireFrame> = (0..20).map(|i| WireFrame { bytes: fcs::with_fcs(&vec![i as u8; 60 + 8 * i]), phy_error_beat: None }).collect();
    let total_beats: usize = frames.iter().map(|w| w.bytes.len().div_ceil(8)).sum();
    let (out, _) = run_rx(false, frames.clone(), 0.0, 0.0, 1);
    assert_eq!(out, frames.iter().map(rx_golden).collect::<Vec<_>>());
    // the same run, counting cycles: every input beat is taken in the cycle it is offered
    let cycles = run_testbench_of(MacRx::with_half_rate_crc(false), 200_000, |x: &mut Box<MacRx>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.max_frame_len.next = Bits::<16>::from(MAX_FRAME as u64);
        x.m_ready.next = true;
        x.s_valid.next = false;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 3);
        x.reset.next = false;
        let mut taken = 0usize;
        let mut cycles = 0usize;
        for w in &frames {
            let n = w.bytes.len().div_ceil(8);
            for (i, c) in w.bytes.chunks(8).enumerate() {
                let mut d = [0u8; 8];
                d[..c.len()].copy_from_slice(c);
                x.s_data.next = Bits::<64>::from(u64::from_le_bytes(d));
                x.s_keep.next = Bits::<8>::from((1u64 << c.len()) - 1);
                x.s_last.next = i + 1 == n;
                x.s_user.next = false;
                x.s_valid.next = true;
                x = sim.wait(1, x)?;
                cycles += 1;
                if x.s_ready.val() {
                    taken += 1;
                }
                wait_clock_cycle!(sim, clock, x);
            }
        }
        Ok((x, (taken, cycles)))
    });
    assert_eq!(cycles, (total_beats, total_beats), "a beat every cycle");
}

// ---------------------------------------------------------------- MAC TX

/// A frame the TX path hands MAC TX.
#[derive(Clone, Debug)]
struct TxFrame {
    bytes: Vec<u8>,
    /// Aborted upstream (`s_user` on its last beat).
    aborted: bool,
}

/// What MAC TX must put on the wire: the frame padded to 60 bytes and its FCS; an
/// aborted frame unpadded, with the FCS inverted and `tuser` on its last beat.
fn tx_golden(f: &TxFrame) -> (Vec<u8>, bool) {
    if f.aborted {
        let mut v = f.bytes.clone();
        v.extend_from_slice(&(!fcs::fcs(&f.bytes)).to_le_bytes());
        (v, true)
    } else {
        (fcs::with_fcs(&fcs::padded(&f.bytes)), false)
    }
}

fn tx_frame(rng: &mut StdRng) -> TxFrame {
    let len = match rng.gen_range(0..6) {
        0 => rng.gen_range(1..61),
        1 => rng.gen_range(52..70),
        _ => rng.gen_range(60..400),
    };
    TxFrame { bytes: (0..len).map(|_| rng.gen()).collect(), aborted: rng.gen_ratio(1, 10) }
}

const TX_INPUTS: [&str; 7] = ["reset", "s_data", "s_len", "s_last", "s_user", "s_valid", "m_ready"];
const TX_OUTPUTS: [&str; 6] = ["s_ready", "m_valid", "m_data", "m_keep", "m_last", "m_user"];

fn run_tx(half_rate: bool, frames: Vec<TxFrame>, gap: f64, stall: f64, seed: u64) -> (Vec<(Vec<u8>, bool)>, Trace) {
    let expected_frames = frames.len();
    run_testbench_of(MacTx::with_half_rate_crc(half_rate), 4_000_000, |x: &mut Box<MacTx>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut trace = Trace::new();
        let record = |x: &MacTx| {
            let ins = vec![
                x.reset.val() as u128,
                x.s_data.val().to_u64() as u128,
                x.s_len.val().to_u64() as u128,
                x.s_last.val() as u128,
                x.s_user.val() as u128,
                x.s_valid.val() as u128,
                x.m_ready.val() as u128,
            ];
            let outs = vec![
                x.s_ready.val() as u128,
                x.m_valid.val() as u128,
                x.m_data.val().to_u64() as u128,
                x.m_keep.val().to_u64() as u128,
                x.m_last.val() as u128,
                x.m_user.val() as u128,
            ];
            (ins, outs)
        };
        x.s_valid.next = false;
        x.s_data.next = 0.into();
        x.s_len.next = 0.into();
        x.s_last.next = false;
        x.s_user.next = false;
        x.m_ready.next = true;
        x.reset.next = true;
        for _ in 0..3 {
            x = sim.wait(1, x)?;
            trace.push(record(&x));
            wait_clock_cycle!(sim, clock, x);
        }
        x.reset.next = false;
        let beats: Vec<(u64, u64, bool, bool)> = frames
            .iter()
            .flat_map(|f| {
                let n = f.bytes.chunks(8).count();
                f.bytes.chunks(8).enumerate().map(move |(i, c)| {
                    let mut d = [0u8; 8];
                    d[..c.len()].copy_from_slice(c);
                    // lanes past the count carry junk: the MAC must ignore them
                    let junk = if c.len() == 8 { 0 } else { !0u64 << (8 * c.len()) };
                    (u64::from_le_bytes(d) | junk, c.len() as u64, i + 1 == n, f.aborted && i + 1 == n)
                })
            })
            .collect();
        let (mut next, mut out, mut current, mut guard) = (0usize, Vec::new(), Vec::new(), 0u64);
        while out.len() < expected_frames {
            guard += 1;
            assert!(guard < 400_000, "MAC TX: {} of {} frames out", out.len(), expected_frames);
            let offer = next < beats.len() && !rng.gen_bool(gap);
            if offer {
                let (d, l, last, user) = beats[next];
                x.s_data.next = Bits::<64>::from(d);
                x.s_len.next = Bits::<4>::from(l);
                x.s_last.next = last;
                x.s_user.next = user;
            }
            x.s_valid.next = offer;
            x.m_ready.next = !rng.gen_bool(stall);
            x = sim.wait(1, x)?;
            trace.push(record(&x));
            if offer && x.s_ready.val() {
                next += 1;
            }
            if x.m_valid.val() && x.m_ready.val() {
                let keep = x.m_keep.val().to_u64();
                assert!(keep != 0 && (keep + 1) & keep == 0, "MAC TX: tkeep {keep:#x} not contiguous from lane 0");
                push_beat(&mut current, x.m_data.val().to_u64(), u64::from(keep.count_ones()));
                if x.m_last.val() {
                    out.push((std::mem::take(&mut current), x.m_user.val()));
                } else {
                    assert_eq!(keep, 0xff, "MAC TX: a short beat before the last");
                }
            }
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, (out, trace)))
    })
}

/// The pipelined MAC TX's Verilog, driven by a run with gaps and stalls, does what
/// rust-hdl's run of it did.
#[test]
fn mac_tx_verilog_agrees_with_rust_hdl() {
    let mut rng = StdRng::seed_from_u64(0x4d41_4354);
    let frames: Vec<TxFrame> = (0..30).map(|_| tx_frame(&mut rng)).collect();
    let want: Vec<(Vec<u8>, bool)> = frames.iter().map(tx_golden).collect();
    let (got, trace) = run_tx(false, frames, 0.2, 0.2, 12);
    assert_eq!(got, want);
    let mut uut = MacTx::with_half_rate_crc(false);
    uut.connect_all();
    verilog_agrees("mac_tx", &generate_verilog(&uut), &TX_INPUTS, &TX_OUTPUTS, "m_valid", &trace);
}

fn tx_case(half_rate: bool) {
    let mut runner = TestRunner::new(Config { cases: 12, failure_persistence: None, ..Config::default() });
    let strategy = (any::<u64>(), 0.0f64..0.6, 0.0f64..0.6, 1usize..40);
    runner
        .run(&strategy, |(seed, gap, stall, count)| {
            let mut rng = StdRng::seed_from_u64(seed);
            let frames: Vec<TxFrame> = (0..count).map(|_| tx_frame(&mut rng)).collect();
            let want: Vec<(Vec<u8>, bool)> = frames.iter().map(tx_golden).collect();
            let (got, _) = run_tx(half_rate, frames, gap, stall, seed ^ 0x7e57);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert_eq!(&g.0, &w.0, "frame {}: bytes", i);
                prop_assert_eq!(g.1, w.1, "frame {}: tuser", i);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn mac_tx_pipelined_crc_matches_golden_under_gaps_and_stalls() {
    tx_case(false);
}

#[test]
fn mac_tx_half_rate_crc_matches_golden_under_gaps_and_stalls() {
    tx_case(true);
}
