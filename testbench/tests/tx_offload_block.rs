//! Block test of the TX offload RTL (`nic_hw::tx::TxOffload`) in rust-hdl's own simulator,
//! against the golden model `nic_testbench::txoffload::apply` (docs/tx-offload.md):
//! back-to-back requests (random ones from `txgen`: no offload, generic, full IPv4/IPv6
//! TCP/UDP checksum offload, TSO with random MSS and payloads, refused ones; plus aborted
//! frames), every output frame compared byte for byte and every verdict; one run with
//! random back-pressure on `m_ready`. Then throughput and latency.
//!
//! Documented differences from the model (hw/src/tx/offload.rs):
//! * a TSO payload over 65,535 bytes is refused when its 65,536th byte arrives: the
//!   segments complete before that (`floor(65535 / mss)`, all full) have left;
//! * an aborted frame (`s_user` on its last beat) without offload leaves with `m_user`
//!   on its last beat; with checksum offload it is dropped; with TSO its last segment
//!   (the one in progress) is dropped, the others have left (verdict: error only if the
//!   request was also refused);
//! * a checksummed frame or TSO segment larger than the buffer allows (2^BN - 64 beats)
//!   is refused.

mod common;

use common::hdl::beats;
use nic_hw::tx::TxOffload as Rtl;
use nic_testbench::txgen::{random_tx_request, TxGenOptions};
use nic_testbench::txoffload::{apply, sent_before_refusal, TxOffload, TxOffloadError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};


#[derive(Clone, Debug)]
struct Req {
    frame: Vec<u8>,
    o: TxOffload,
    abort: bool,
}

#[derive(Clone, Debug, Default)]
struct OutFrame {
    bytes: Vec<u8>,
    user: bool,
    first_cycle: u64,
    last_cycle: u64,
}

#[derive(Clone, Debug, Default)]
struct RunResult {
    out: Vec<OutFrame>,
    verdicts: Vec<(bool, u64)>,
    in_first: Vec<u64>,
    in_done: u64,
    busy: u64,
    segments: u64,
    cycles: u64,
}

/// Runs the block on `reqs` back to back; `m_ready` low on cycles where `gap(cycle)`.
fn run<const BN: usize, const BNP1: usize>(reqs: &[Req], max_frame_len: usize, expect_out: usize, gap: fn(u64) -> bool, max_cycles: u64) -> RunResult {
    let reqs = reqs.to_vec();
    let result = Arc::new(Mutex::new(RunResult::default()));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Rtl<BN, BNP1>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Rtl<BN, BNP1>>| {
        let mut x = sim.init()?;
        x.max_frame_len.next = Bits::<16>::from(max_frame_len as u64);
        x.m_ready.next = false;
        x.s_valid.next = false;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 3);
        x.reset.next = false;
        wait_clock_cycles!(sim, clock, x, 2);
        let all: Vec<Vec<(u64, u64, bool)>> = reqs.iter().map(|r| beats(&r.frame)).collect();
        let (mut fi, mut bi) = (0usize, 0usize);
        let mut r = RunResult::default();
        let mut cur = OutFrame::default();
        let mut in_out = false;
        let mut cycle = 0u64;
        let mut idle_after = 0u64;
        while cycle < max_cycles {
            let offering = fi < all.len();
            if offering {
                let (d, l, last) = all[fi][bi];
                let o = &reqs[fi].o;
                x.s_data.next = Bits::<64>::from(d);
                x.s_len.next = Bits::<4>::from(l);
                x.s_last.next = last;
                x.s_user.next = last && reqs[fi].abort;
                x.s_l3_offset.next = Bits::<16>::from(o.l3_offset as u64);
                x.s_l4_offset.next = Bits::<16>::from(o.l4_offset as u64);
                x.s_csum_start.next = Bits::<16>::from(o.csum_start as u64);
                x.s_csum_offset.next = Bits::<16>::from(o.csum_offset as u64);
                x.s_mss.next = Bits::<16>::from(o.mss as u64);
                x.s_flags.next = Bits::<16>::from(if o.is_none() { 0 } else { o.flags() as u64 });
                x.s_hdr_len.next = Bits::<16>::from(o.hdr_len as u64);
            }
            x.s_valid.next = offering;
            let ready = !gap(cycle);
            x.m_ready.next = ready;
            x = sim.wait(1, x)?;
            if offering && x.s_ready.val() {
                if bi == 0 {
                    r.in_first.push(cycle);
                }
                bi += 1;
                if bi == all[fi].len() {
                    bi = 0;
                    fi += 1;
                    r.in_done = cycle;
                }
            }
            if x.m_valid.val() && ready {
                r.busy += 1;
                if !in_out {
                    cur = OutFrame { first_cycle: cycle, ..Default::default() };
                    in_out = true;
                }
                let len = x.m_len.val().to_u64() as usize;
                let d = x.m_data.val().to_u64().to_le_bytes();
                cur.bytes.extend_from_slice(&d[..len.min(8)]);
                if x.m_last.val() {
                    cur.user = x.m_user.val();
                    cur.last_cycle = cycle;
                    r.out.push(std::mem::take(&mut cur));
                    in_out = false;
                }
            }
            if x.stat_segments.val() {
                r.segments += 1;
            }
            if x.v_valid.val() {
                r.verdicts.push((x.v_error.val(), cycle));
            }
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
            if fi == all.len() && r.verdicts.len() >= reqs.len() && r.out.len() >= expect_out {
                idle_after += 1;
                if idle_after > 50 {
                    break;
                }
            }
        }
        r.cycles = cycle;
        *res.lock().unwrap() = r;
        sim.done(x)
    });
    let mut uut = Rtl::<BN, BNP1>::default();
    uut.connect_all();
    sim.run(Box::new(uut), (max_cycles + 200) * 10).unwrap();
    let r = result.lock().unwrap().clone();
    r
}

/// What must leave for one request: (frames with their abort mark, verdict error).
/// `cap` = the most buffer beats a checksummed frame or TSO segment may take (2^BN - 64).
fn expected(r: &Req, max_frame_len: usize, cap: usize) -> (Vec<(Vec<u8>, bool)>, bool) {
    if !r.o.is_none() && apply(&r.frame, &r.o, max_frame_len).is_ok() {
        // store-and-forward beyond the buffer: refused
        let hdr = usize::from(r.o.hdr_len);
        let beats = if r.o.tso {
            let pay = (r.frame.len() - hdr).min(usize::from(r.o.mss));
            (hdr % 8 + pay).div_ceil(8)
        } else {
            r.frame.len().div_ceil(8)
        };
        if beats > cap {
            return (vec![], true);
        }
    }
    match apply(&r.frame, &r.o, max_frame_len) {
        Ok(segs) => {
            if r.abort {
                if r.o.is_none() {
                    (vec![(r.frame.clone(), true)], false)
                } else if r.o.tso {
                    // the segment in progress (the last) is dropped; the others have left
                    let n = segs.len() - 1;
                    (segs.into_iter().take(n).map(|s| (s, false)).collect(), false)
                } else {
                    (vec![], false)
                }
            } else {
                (segs.into_iter().map(|s| (s, false)).collect(), false)
            }
        }
        Err(e @ TxOffloadError::TsoPayloadTooLong) => {
            // segments complete before the 65,536th payload byte have left
            (sent_before_refusal(&r.frame, &r.o, max_frame_len, e).into_iter().map(|s| (s, false)).collect(), true)
        }
        Err(e) => {
            assert!(e.is_refusal(), "{e:?} is not an offload refusal");
            (vec![], true)
        }
    }
}

fn check(reqs: &[Req], max_frame_len: usize, cap: usize, r: &RunResult, what: &str) {
    let mut want = Vec::new();
    let mut want_v = Vec::new();
    let mut owner = Vec::new();
    for (i, q) in reqs.iter().enumerate() {
        let (f, e) = expected(q, max_frame_len, cap);
        for x in f {
            want.push(x);
            owner.push(i);
        }
        want_v.push(e);
    }
    let got_v: Vec<bool> = r.verdicts.iter().map(|v| v.0).collect();
    let mut bad = Vec::new();
    if got_v != want_v {
        let first = got_v.iter().zip(&want_v).position(|(a, b)| a != b).unwrap_or(got_v.len().min(want_v.len()));
        bad.push(format!("verdicts differ: got {} expected {}; first difference at request {first}: {:?}", got_v.len(), want_v.len(), reqs.get(first).map(|q| (q.frame.len(), q.o, q.abort))));
    }
    if r.out.len() != want.len() {
        bad.push(format!("{} frames came out, {} expected", r.out.len(), want.len()));
    }
    for (k, (o, (w, user))) in r.out.iter().zip(&want).enumerate() {
        if o.bytes != *w || o.user != *user {
            let i = owner[k];
            let diff = o.bytes.iter().zip(w).position(|(a, b)| a != b).unwrap_or(o.bytes.len().min(w.len()));
            bad.push(format!(
                "output frame {k} (request {i}: {} bytes, {:?}, abort {}): got {} bytes user {}, expected {} bytes user {}; first difference at byte {diff}",
                reqs[i].frame.len(),
                reqs[i].o,
                reqs[i].abort,
                o.bytes.len(),
                o.user,
                w.len(),
                user
            ));
            if bad.len() > 8 {
                break;
            }
        }
    }
    assert_eq!(r.segments as usize, r.out.len(), "{what}: stat_segments");
    let kinds = |f: &dyn Fn(&Req) -> bool| reqs.iter().filter(|q| f(q)).count();
    println!(
        "{what}: {} requests (none {}, generic {}, full {}, TSO {}, refused {}, aborted {}), {} frames out, {} cycles",
        reqs.len(),
        kinds(&|q| q.o.is_none()),
        kinds(&|q| q.o.generic_csum),
        kinds(&|q| !q.o.tso && (q.o.l4_csum || q.o.ipv4_csum) && !q.o.generic_csum),
        kinds(&|q| q.o.tso),
        want_v.iter().filter(|e| **e).count(),
        kinds(&|q| q.abort),
        r.out.len(),
        r.cycles
    );
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

fn never(_: u64) -> bool {
    false
}

fn sometimes(c: u64) -> bool {
    (c.wrapping_mul(2654435761) >> 7) % 4 == 0
}

fn random_reqs(seed: u64, n: usize, opts: &TxGenOptions, p_abort: f64) -> Vec<Req> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let (frame, o) = random_tx_request(&mut rng, opts);
            let abort = rng.gen_bool(p_abort);
            Req { frame, o, abort }
        })
        .collect()
}

fn total_out_beats(reqs: &[Req], mfl: usize, cap: usize) -> u64 {
    reqs.iter().flat_map(|q| expected(q, mfl, cap).0).map(|(f, _)| f.len().div_ceil(8) as u64).sum()
}

fn run_and_check_cfg<const BN: usize, const BNP1: usize>(reqs: &[Req], mfl: usize, gap: fn(u64) -> bool, what: &str) -> RunResult {
    let cap = (1 << BN) - 64;
    let want: usize = reqs.iter().map(|q| expected(q, mfl, cap).0.len()).sum();
    let in_beats: u64 = reqs.iter().map(|q| q.frame.len().div_ceil(8) as u64).sum();
    let budget = 3 * (in_beats + total_out_beats(reqs, mfl, cap)) + 100 * reqs.len() as u64 + 2000;
    let r = run::<BN, BNP1>(reqs, mfl, want, gap, budget);
    check(reqs, mfl, cap, &r, what);
    r
}

/// The full configuration's buffer (BN = 12: 4096 beats, 32 KiB).
fn run_and_check(reqs: &[Req], mfl: usize, gap: fn(u64) -> bool, what: &str) -> RunResult {
    run_and_check_cfg::<12, 13>(reqs, mfl, gap, what)
}

const CAP_FULL: usize = 4096 - 64;

/// Hand-made corner cases: odd generic offsets, a generic range over the IPv4 header
/// checksum, tiny frames, mss 1..9, empty TSO payloads, header-only segments.
fn corner_reqs() -> Vec<Req> {
    let mut rng = StdRng::seed_from_u64(77);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.gen()).collect() };
    let mut v = Vec::new();
    let none = TxOffload::default();
    for len in [1usize, 7, 8, 9, 60, 64, 65] {
        v.push(Req { frame: bytes(len), o: none, abort: false });
    }
    for (len, cs, co) in [(64usize, 13u16, 7u16), (61, 0, 0), (100, 33, 5), (9, 1, 6), (200, 199 - 2, 0), (300, 7, 290)] {
        v.push(Req { frame: bytes(len), o: TxOffload { generic_csum: true, csum_start: cs, csum_offset: co, ..none }, abort: false });
    }
    // IPv4 header checksum and a generic range covering it (from inside the field too)
    for cs in [14u16, 23, 24, 25, 26, 40] {
        v.push(Req { frame: bytes(120), o: TxOffload { generic_csum: true, ipv4_csum: true, l3_offset: 14, l4_offset: 34, csum_start: cs, csum_offset: 16, ..none }, abort: false });
    }
    // odd l3 and l4
    v.push(Req { frame: bytes(150), o: TxOffload { ipv4_csum: true, l4_csum: true, l3_offset: 15, l4_offset: 37, ..none }, abort: false });
    v.push(Req { frame: bytes(150), o: TxOffload { l4_csum: true, ipv6: true, udp: true, l3_offset: 19, l4_offset: 59, ..none }, abort: false });
    // TSO: tiny MSS, empty payload, header lengths around beat boundaries
    for (hdr, pay, mss) in [(54usize, 0usize, 1448u16), (56, 0, 100), (54, 1, 1), (54, 13, 1), (56, 30, 3), (60, 64, 8), (61, 65, 9), (64, 17, 7), (63, 40, 16), (54, 1448 * 3, 1448), (66, 4000, 1000)] {
        let mut f = bytes(hdr + pay);
        f[12] = 0x08;
        f[13] = 0x00;
        v.push(Req { frame: f, o: TxOffload { tso: true, l3_offset: 14, l4_offset: 34, hdr_len: hdr as u16, mss, ..none }, abort: false });
    }
    v.push(Req { frame: bytes(200), o: TxOffload { tso: true, ipv6: true, l3_offset: 14, l4_offset: 54, hdr_len: 74, mss: 50, ..none }, abort: false });
    // aborted: no offload (passed on, m_user) and checksummed (dropped)
    v.push(Req { frame: bytes(100), o: none, abort: true });
    v.push(Req { frame: bytes(100), o: TxOffload { generic_csum: true, csum_start: 20, csum_offset: 4, ..none }, abort: true });
    for (pay, mss) in [(3000usize, 1000u16), (3010, 1000), (0, 100), (5, 1)] {
        let mut f = bytes(54 + pay);
        f[12] = 0x08;
        f[13] = 0x00;
        v.push(Req { frame: f, o: TxOffload { tso: true, l3_offset: 14, l4_offset: 34, hdr_len: 54, mss, ..none }, abort: true });
    }
    v.push(Req { frame: bytes(70), o: none, abort: false });
    v
}

#[test]
fn corner_cases() {
    run_and_check(&corner_reqs(), 9022, never, "corner cases");
}

#[test]
fn random_requests_back_to_back() {
    let opts = TxGenOptions { max_tso_payload: 8_000, max_tso_segments: 24, p_invalid: 0.15, p_jumbo: 0.05, ..Default::default() };
    let reqs = random_reqs(11, 90, &opts, 0.05);
    run_and_check(&reqs, opts.max_frame_len, never, "random, no back-pressure");
}

#[test]
fn random_requests_with_backpressure() {
    let opts = TxGenOptions { max_tso_payload: 3_000, max_tso_segments: 16, p_invalid: 0.15, p_jumbo: 0.02, mtu: 600, ..Default::default() };
    let reqs = random_reqs(12, 70, &opts, 0.05);
    run_and_check(&reqs, opts.max_frame_len, sometimes, "random, back-pressure");
}

#[test]
fn big_tso_and_payload_too_long() {
    let opts = TxGenOptions { kind_weights: [0, 0, 0, 1], p_invalid: 0.0, max_tso_segments: 60, ..Default::default() };
    let mut reqs = random_reqs(13, 2, &opts, 0.0);
    // a payload over 65,535 bytes: the segments before the 65,536th byte leave
    let mut f = vec![0u8; 54 + 65535 + 300];
    StdRng::seed_from_u64(5).fill(&mut f[..]);
    reqs.push(Req { frame: f, o: TxOffload { tso: true, l3_offset: 14, l4_offset: 34, hdr_len: 54, mss: 8000, ..Default::default() }, abort: false });
    reqs.push(Req { frame: vec![1; 80], o: TxOffload::default(), abort: false });
    run_and_check(&reqs, 9022, never, "big TSO");
}

fn tcp4_frame(len: usize, seed: u64) -> Vec<u8> {
    let mut f = vec![0u8; len];
    StdRng::seed_from_u64(seed).fill(&mut f[..]);
    f[12] = 0x08;
    f[13] = 0x00;
    f
}

#[test]
fn throughput_and_latency() {
    let full = TxOffload { ipv4_csum: true, l4_csum: true, l3_offset: 14, l4_offset: 34, ..Default::default() };
    let mut report = Vec::new();
    for (name, len, n) in [("64-byte", 64usize, 40usize), ("1518-byte", 1518, 8), ("9018-byte", 9018, 4)] {
        let reqs: Vec<Req> = (0..n).map(|i| Req { frame: tcp4_frame(len, i as u64), o: full, abort: false }).collect();
        let r = run_and_check(&reqs, 9022, never, name);
        let span = r.out.last().unwrap().last_cycle - r.out[0].first_cycle + 1;
        let beats = total_out_beats(&reqs, 9022, CAP_FULL);
        let lat = r.out[0].first_cycle - r.in_first[0];
        // steady state: from the second frame's first beat out
        let span2 = r.out.last().unwrap().last_cycle - r.out[1].first_cycle + 1;
        let beats2 = beats - (len.div_ceil(8) as u64);
        report.push(format!(
            "{name} checksum offload: {n} frames, {beats} output beats in {span} cycles ({:.1}% busy; {:.1}% after the first frame); latency first beat in -> out {lat} cycles",
            100.0 * beats as f64 / span as f64,
            100.0 * beats2 as f64 / span2 as f64
        ));
        assert_eq!(beats2, span2, "{name}: the output is not busy every cycle after the first frame");
    }
    // TSO: 64 KiB payload at MSS 1448
    let pay = 65535 - 40;
    let tso = TxOffload { tso: true, l3_offset: 14, l4_offset: 34, hdr_len: 54, mss: 1448, ..Default::default() };
    let reqs = vec![Req { frame: tcp4_frame(54 + pay, 99), o: tso, abort: false }];
    let r = run_and_check(&reqs, 9022, never, "64 KiB TSO");
    let span = r.out.last().unwrap().last_cycle - r.out[0].first_cycle + 1;
    let beats = total_out_beats(&reqs, 9022, CAP_FULL);
    let lat = r.out[0].first_cycle - r.in_first[0];
    let busy = beats as f64 / span as f64;
    report.push(format!("64 KiB TSO at MSS 1448: {} segments, {beats} output beats in {span} cycles ({:.2}% busy); latency first beat in -> first segment out {lat} cycles", r.out.len(), 100.0 * busy));
    assert!(busy >= 0.99, "TSO output only {:.2}% busy", 100.0 * busy);
    // latency without offload (cut-through)
    let reqs: Vec<Req> = [64usize, 1518, 9018].iter().map(|&l| Req { frame: tcp4_frame(l, l as u64), o: TxOffload::default(), abort: false }).collect();
    let mut lats = Vec::new();
    for q in &reqs {
        let r = run_and_check(std::slice::from_ref(q), 9022, never, "no offload");
        lats.push(format!("{} bytes {} cycles", q.frame.len(), r.out[0].first_cycle - r.in_first[0]));
    }
    report.push(format!("no offload (cut-through) latency first beat in -> out: {}", lats.join(", ")));
    println!("{}", report.join("\n"));
}

/// The small configuration's buffer (BN = 9: 512 beats, 4 KiB): a checksummed frame or
/// TSO segment over 448 beats (3,584 bytes) is refused; frames without offload of any
/// length pass cut-through; TSO at MSS 1448 still works.
#[test]
fn small_buffer() {
    let full = TxOffload { ipv4_csum: true, l4_csum: true, l3_offset: 14, l4_offset: 34, ..Default::default() };
    let tso = TxOffload { tso: true, l3_offset: 14, l4_offset: 34, hdr_len: 54, mss: 1448, ..Default::default() };
    let reqs = vec![
        Req { frame: tcp4_frame(3000, 1), o: full, abort: false },
        Req { frame: tcp4_frame(3584, 2), o: full, abort: false },
        Req { frame: tcp4_frame(3585, 3), o: full, abort: false },
        Req { frame: tcp4_frame(9018, 4), o: TxOffload::default(), abort: false },
        Req { frame: tcp4_frame(5000, 5), o: full, abort: false },
        Req { frame: tcp4_frame(54 + 20_000, 6), o: tso, abort: false },
        Req { frame: tcp4_frame(54 + 9_000, 7), o: TxOffload { mss: 4000, ..tso }, abort: false },
        Req { frame: tcp4_frame(64, 8), o: full, abort: false },
    ];
    run_and_check_cfg::<9, 10>(&reqs, 9022, never, "small buffer");
}
