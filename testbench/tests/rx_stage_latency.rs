//! Per-stage latency of the receive path, in clock cycles, measured in rust-hdl's own
//! simulator: MAC RX, then each RX classification block in isolation (RxParser, RxFilter,
//! RxRss, RxCsum) and the whole RxClassifier, for three frames: a 60-byte and a 1514-byte
//! TCP/IPv4 frame and a 126-byte IPv6/UDP frame (`rxgen`). Every block runs into an
//! idle pipeline (one frame at a time, outputs always ready).
//!
//! Convention: an input event happens in the cycle its signals are presented (they are
//! sampled at the clock edge that ends the cycle); an output event in the first cycle the
//! output shows it. A latency is the difference of the two cycle numbers: one register
//! stage is 1, a combinational path 0.
//!
//! The measured numbers are asserted (table `EXPECTED`) so that a change in any stage's
//! latency is noticed; docs/performance.md quotes them. The RX engine's latency is
//! measured elsewhere.
//!
//! Each block's result is also checked (bytes, verdicts, hash), so the numbers are those
//! of a block doing its job.

mod common;

use common::hdl::{configure_classifier, cycles_until, frame_through, reset_for, run_testbench, Beat, Feed, FrameTimes};
use nic_hw::mac::MacRx;
use nic_hw::rx::filter::mcast_index;
use nic_hw::rx::{RxClassifier, RxCsum, RxFilter, RxParser, RxRss};
use nic_testbench::fcs::with_fcs;
use nic_testbench::rxclass::RxClassConfig;
use nic_testbench::rxgen::{flow_frame, Fault, L3Spec, L4Spec, RxFrameSpec};
use nic_testbench::toeplitz;
use nic_testbench::wire::ip::protocol;
use nic_testbench::wire::udp::UdpRepr;
use nic_testbench::wire::Ipv6Repr;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::net::Ipv6Addr;

/// The frames, in the order of the table columns.
const FRAMES: [&str; 3] = ["60 B TCP/IPv4", "1514 B TCP/IPv4", "126 B UDP/IPv6"];

/// Measured latencies in clock cycles: (stage, from -> to, [60 B TCP/IPv4, 1514 B
/// TCP/IPv4, 126 B UDP/IPv6]). docs/performance.md quotes these numbers: when a block's
/// pipeline changes, update both.
///
/// * MacRx (8 bytes a cycle, as in `full`): the pipelined CRC's 5 stages, then the
///   holding stage that cuts the FCS: a beat leaves when the next comes out of the pipe
///   (5 + 1); the last beat leaves a cycle after the pipe's last beat when that beat
///   still has frame bytes (64 and 1518 bytes with FCS: 5 + 1), in the same cycle when the
///   wire's last beat is FCS only (130 bytes with FCS: 2 bytes in the last beat, 5 + 0).
/// * RxParser: the header window closes on the frame's last beat (beat 7 of a 60-byte
///   frame) or on beat 12, then S1 (select IP words), S2 (checks), record register: 3.
/// * RxFilter: compare and hash index, priority encoder and hash-table read, decision: 3.
/// * RxRss: 5 Toeplitz steps, 2 indirection-table cycles, the result register: 8.
/// * RxCsum: stages A..F: 6, for every beat.
/// * RxClassifier: a frame starts into RxCsum when its info is in the FIFO (window close
///   + 3 parser + 8 RSS + 2 FIFO write-to-read) and either its last beat is in or
///   `START_FILL` (26) beats are buffered; then 6 checksum stages and the output register
///   slice (1): 7 + 20 = 27, 12 + 20 = 32, and for the long frame 26 + 7 = 33. Input and
///   output run at one beat per cycle, so last-beat latency equals first-beat latency.
const EXPECTED: &[(&str, &str, [u64; 3])] = &[
    ("MacRx", "first beat in -> first beat out", [6, 6, 6]),
    ("MacRx", "last beat in -> last beat out", [6, 6, 5]),
    ("RxParser", "first beat in -> record valid", [10, 15, 15]),
    ("RxParser", "window closed -> record valid", [3, 3, 3]),
    ("RxFilter", "dst in -> verdict", [3, 3, 3]),
    ("RxRss", "start -> hash/queue valid (done)", [8, 8, 8]),
    ("RxCsum", "first beat in -> first beat out", [6, 6, 6]),
    ("RxCsum", "last beat in -> verdict out", [6, 6, 6]),
    ("RxClassifier", "first beat in -> first beat out", [27, 33, 32]),
    ("RxClassifier", "last beat in -> last beat out", [27, 33, 32]),
];

/// Parser window: the beat that closes it when the frame is longer.
const WINDOW_BEAT: usize = 12;

fn mac_words(addr: &[u8; 6]) -> (u32, u32) {
    (u32::from_le_bytes(addr[..4].try_into().unwrap()), u32::from(addr[4]) | u32::from(addr[5]) << 8)
}

fn dst48(addr: &[u8; 6]) -> u64 {
    let mut b = [0u8; 8];
    b[..6].copy_from_slice(addr);
    u64::from_le_bytes(b)
}

const OURS: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];
const GROUP: [u8; 6] = [0x01, 0x00, 0x5e, 0x01, 0x02, 0x03];
const BCAST: [u8; 6] = [0xff; 6];
/// Exact-filter entry 0 (OURS) steers to this queue.
const STEER_QUEUE: u64 = 5;

/// The three frames: TCP/IPv4 to our address, TCP/IPv4 to a subscribed multicast group,
/// UDP/IPv6 to broadcast (three different filter paths).
fn frames() -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(7);
    let short = flow_frame(&mut rng, OURS, 60);
    let long = flow_frame(&mut rng, GROUP, 1514);
    let ip = Ipv6Repr::new(Ipv6Addr::from(rng.gen::<u128>()), Ipv6Addr::from(rng.gen::<u128>()), protocol::UDP, 0);
    let repr = UdpRepr { src_port: rng.gen(), dst_port: rng.gen() };
    let payload: Vec<u8> = (0..64).map(|_| rng.gen()).collect();
    let v6 = RxFrameSpec {
        dst: BCAST,
        src: [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
        vlans: Vec::new(),
        l3: L3Spec::Ipv6 { ip, ext: None, l4: L4Spec::Udp { repr, payload } },
        trailer: Vec::new(),
        dirty_padding: false,
        min_len: 0,
        fault: Fault::None,
    }
    .build();
    let fs = vec![short, long, v6];
    assert_eq!(fs.iter().map(|f| f.len()).collect::<Vec<_>>(), [60, 1514, 126]);
    fs
}

/// The RSS input bytes of a frame (untagged IPv4 or IPv6, with ports).
fn rss_input(f: &[u8]) -> Vec<u8> {
    if f[12..14] == [0x08, 0x00] {
        f[26..38].to_vec()
    } else {
        f[22..58].to_vec()
    }
}

// ---------------------------------------------------------------- MAC RX

fn measure_mac_rx(frames: &[Vec<u8>]) -> Vec<FrameTimes> {
    let wires: Vec<Vec<u8>> = frames.iter().map(|f| with_fcs(f)).collect();
    let r = run_testbench(20_000, |x: &mut Box<MacRx>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.max_frame_len.next = Bits::<16>::from(9022u64);
        x.s_valid.next = false;
        x.s_user.next = false;
        x.m_ready.next = true;
        reset_for!(sim, x, 3);
        wait_clock_cycles!(sim, clock, x, 3);
        let mut cycle = 0u64;
        let mut out = Vec::new();
        for w in &wires {
            let mut status = 0u8;
            let t = frame_through!(sim, x, cycle, w, "MAC RX",
                in: s_valid ready s_ready, |d, l, last| {
                    x.s_data.next = Bits::<64>::from(d);
                    x.s_keep.next = Bits::<8>::from((1u64 << l) - 1);
                    x.s_last.next = last;
                },
                out: m_valid, m_data, m_len, m_last,
                last: { status = x.m_status.val().to_u64() as u8; });
            out.push((t, status));
            wait_clock_cycles!(sim, clock, x, 4);
            cycle += 4;
        }
        Ok((x, out))
    });
    for (f, (t, status)) in frames.iter().zip(&r) {
        assert_eq!(&t.bytes, f, "MAC RX: bytes differ");
        assert_eq!(*status, 0, "MAC RX: bad status");
    }
    r.into_iter().map(|(t, _)| t).collect()
}

// ---------------------------------------------------------------- parser

/// What the parser says about a frame (the inputs of RSS, filter and checksum).
#[derive(Clone, Debug, Default)]
struct Record {
    first_in: u64,
    window_closed: u64,
    valid: u64,
    dst: u64,
    ptype: u16,
    tuple: [u64; 5],
    v4ok: bool,
    v6ok: bool,
    tcp_ok: bool,
    udp_ok: bool,
    l3: u64,
    l4: u64,
    l4end: u64,
    addr_start: u64,
    addr_end: u64,
    pconst: u64,
    chk3: bool,
    chk4: bool,
    udp0: bool,
}

/// Presents a beat to the parser (its `fire` says whether there is one).
fn drive_parser(x: &mut RxParser, (d, l, last): Beat) {
    x.data.next = Bits::<64>::from(d);
    x.len.next = Bits::<4>::from(l);
    x.last.next = last;
}

fn measure_parser(frames: &[Vec<u8>]) -> Vec<Record> {
    let frames = frames.to_vec();
    let r = run_testbench(50_000, |x: &mut Box<RxParser>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.fire.next = false;
        x.rec_take.next = false;
        reset_for!(sim, x, 3);
        wait_clock_cycles!(sim, clock, x, 3);
        let mut cycle = 0u64;
        let mut out = Vec::new();
        for f in &frames {
            let mut feed = Feed::one(f);
            let mut r = Record::default();
            let mut guard = 0;
            loop {
                guard += 1;
                assert!(guard < 1000, "parser: no record");
                let beat = feed.beat();
                if let Some(b) = beat {
                    drive_parser(&mut x, b);
                }
                x.fire.next = beat.is_some();
                x.rec_take.next = false;
                x = sim.wait(1, x)?;
                if let Some((_, _, last)) = beat {
                    let bi = feed.index();
                    if bi == 0 {
                        r.first_in = cycle;
                    }
                    // the beat that closes the window: beat 12, or the last one if sooner
                    if bi == WINDOW_BEAT || (last && bi < WINDOW_BEAT) {
                        assert!(x.window_end.val() || (last && x.window_open.val()), "parser: window not closing at beat {bi}");
                        r.window_closed = cycle;
                    }
                    feed.take();
                }
                if x.rec_valid.val() {
                    r.valid = cycle;
                    r.dst = x.dst.val().to_u64();
                    r.ptype = x.ptype.val().to_u64() as u16;
                    for k in 0..5 {
                        r.tuple[k] = x.tuple[k].val().to_u64();
                    }
                    r.v4ok = x.v4ok.val();
                    r.v6ok = x.v6ok.val();
                    r.tcp_ok = x.tcp_ok.val();
                    r.udp_ok = x.udp_ok.val();
                    r.l3 = x.l3.val().to_u64();
                    r.l4 = x.l4.val().to_u64();
                    r.l4end = x.l4end.val().to_u64();
                    r.addr_start = x.addr_start.val().to_u64();
                    r.addr_end = x.addr_end.val().to_u64();
                    r.pconst = x.pconst.val().to_u64();
                    r.chk3 = x.chk3.val();
                    r.chk4 = x.chk4.val();
                    r.udp0 = x.udp0.val();
                    x.rec_take.next = true;
                    wait_clock_cycle!(sim, clock, x);
                    cycle += 1;
                    x.rec_take.next = false;
                    x.fire.next = false;
                    // the rest of a long frame (outside the window: ignored by the parser)
                    while let Some(b) = feed.beat() {
                        drive_parser(&mut x, b);
                        x.fire.next = true;
                        wait_clock_cycle!(sim, clock, x);
                        cycle += 1;
                        feed.take();
                    }
                    x.fire.next = false;
                    break;
                }
                wait_clock_cycle!(sim, clock, x);
                cycle += 1;
            }
            out.push(r);
            wait_clock_cycles!(sim, clock, x, 4);
            cycle += 4;
        }
        Ok((x, out))
    });
    // sanity: untagged TCP/IPv4, TCP/IPv4, UDP/IPv6, all well-formed
    assert_eq!(r.iter().map(|x| x.ptype).collect::<Vec<_>>(), [0x05, 0x05, 0x0a], "parser: ptypes");
    assert!(r[0].tcp_ok && r[1].tcp_ok && r[2].udp_ok && r[0].chk3 && r[2].chk4, "parser: flags {r:?}");
    r
}

// ---------------------------------------------------------------- filter

fn measure_filter(frames: &[Vec<u8>]) -> Vec<u64> {
    let dsts: Vec<[u8; 6]> = frames.iter().map(|f| f[..6].try_into().unwrap()).collect();
    run_testbench(50_000, |x: &mut Box<RxFilter>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        // BROADCAST only: unicast must hit the exact table, multicast the hash table
        x.filter_ctrl.next = Bits::<3>::from(0b100u64);
        let (lo, hi) = mac_words(&OURS);
        for i in 0..32 {
            x.mac_filter[i].next = Bits::<32>::from(0u64);
        }
        x.mac_filter[0].next = Bits::<32>::from(lo as u64);
        x.mac_filter[1].next = Bits::<32>::from(hi as u64 | STEER_QUEUE << 16 | 1 << 30 | 1 << 31);
        x.mcast_wr.next = false;
        let baseline = dst48(&[0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee]);
        x.dst.next = Bits::<48>::from(baseline);
        reset_for!(sim, x, 3);
        let ready = cycles_until!(sim, x, 0..1000, x.ready.val());
        assert!(ready.is_some(), "filter never ready");
        wait_clock_cycle!(sim, clock, x);
        // subscribe GROUP in the multicast hash table
        let idx = mcast_index(&GROUP) as u64;
        x.mcast_wr.next = true;
        x.mcast_wr_addr.next = Bits::<7>::from(idx >> 5);
        x.mcast_wr_data.next = Bits::<32>::from(1u64 << (idx & 31));
        wait_clock_cycle!(sim, clock, x);
        x.mcast_wr.next = false;
        wait_clock_cycles!(sim, clock, x, 5);
        let mut out = Vec::new();
        for d in &dsts {
            // from a unicast miss (drop 1) to the frame's address (accepted)
            x.dst.next = Bits::<48>::from(baseline);
            wait_clock_cycles!(sim, clock, x, 6);
            x = sim.wait(1, x)?;
            assert_eq!(x.drop.val().to_u64(), 1, "filter: baseline is not a unicast miss");
            let steer = *d == OURS;
            x.dst.next = Bits::<48>::from(dst48(d));
            let lat = cycles_until!(sim, x, 0..10u64, x.drop.val().to_u64() == 0).expect("filter: no verdict");
            assert_eq!(x.steer.val(), steer, "filter: steer");
            if steer {
                assert_eq!(x.steer_queue.val().to_u64(), STEER_QUEUE, "filter: steer queue");
            }
            out.push(lat);
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, out))
    })
}

// ---------------------------------------------------------------- RSS

fn measure_rss(frames: &[Vec<u8>], recs: &[Record]) -> Vec<u64> {
    let recs = recs.to_vec();
    let expected: Vec<(u32, u64)> = frames
        .iter()
        .map(|f| {
            let ty = if f[12..14] == [0x08, 0x00] { 2 } else { 6 };
            (toeplitz::hash(&toeplitz::DEFAULT_KEY, &rss_input(f)), ty)
        })
        .collect();
    run_testbench(50_000, |x: &mut Box<RxRss>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.rss_ctrl.next = Bits::<6>::from(0x3fu64);
        for i in 0..10 {
            let w = u32::from_be_bytes(toeplitz::DEFAULT_KEY[4 * i..4 * i + 4].try_into().unwrap());
            x.rss_key[i].next = Bits::<32>::from(w as u64);
        }
        x.start.next = false;
        x.reta_wr.next = false;
        reset_for!(sim, x, 3);
        wait_clock_cycles!(sim, clock, x, 40);
        x = sim.wait(1, x)?;
        assert!(x.ready.val() && x.idle.val(), "RSS not ready");
        let mut out = Vec::new();
        for (r, (hash, ty)) in recs.iter().zip(&expected) {
            for k in 0..5 {
                x.tuple[k].next = Bits::<64>::from(r.tuple[k]);
            }
            x.v4ok.next = r.v4ok;
            x.v6ok.next = r.v6ok;
            x.tcp_ok.next = r.tcp_ok;
            x.udp_ok.next = r.udp_ok;
            x.start.next = true;
            x = sim.wait(1, x)?;
            assert!(x.idle.val(), "RSS busy at start");
            wait_clock_cycle!(sim, clock, x);
            x.start.next = false;
            let lat = cycles_until!(sim, x, 1..20u64, x.done.val()).expect("RSS: no done");
            assert_eq!(x.hash.val().to_u64() as u32, *hash, "RSS: hash");
            assert_eq!(x.hash_type.val().to_u64(), *ty, "RSS: hash type");
            // the reset indirection table: entry j = j
            assert_eq!(x.reta_queue.val().to_u64(), (*hash & 127) as u64, "RSS: queue");
            out.push(lat);
            wait_clock_cycles!(sim, clock, x, 4);
        }
        Ok((x, out))
    })
}

// ---------------------------------------------------------------- checksum

fn measure_csum(frames: &[Vec<u8>], recs: &[Record]) -> Vec<FrameTimes> {
    let owned = frames.to_vec();
    let recs = recs.to_vec();
    let r = run_testbench(50_000, |x: &mut Box<RxCsum>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.en.next = true;
        x.in_valid.next = false;
        x.in_status.next = Bits::<3>::from(0u64);
        reset_for!(sim, x, 3);
        wait_clock_cycles!(sim, clock, x, 3);
        let mut cycle = 0u64;
        let mut out = Vec::new();
        for (f, r) in owned.iter().zip(&recs) {
            x.l3.next = Bits::<17>::from(r.l3);
            x.l4.next = Bits::<17>::from(r.l4);
            x.l4end.next = Bits::<17>::from(r.l4end);
            x.addr_start.next = Bits::<17>::from(r.addr_start);
            x.addr_end.next = Bits::<17>::from(r.addr_end);
            x.pconst.next = Bits::<17>::from(r.pconst);
            x.chk3.next = r.chk3;
            x.chk4.next = r.chk4;
            x.udp0.next = r.udp0;
            x.v6.next = r.v6ok;
            let (mut l3, mut l4) = (0u8, 0u8);
            // RxCsum has no input ready: it takes a beat in every cycle
            let t = frame_through!(sim, x, cycle, f, "csum",
                in: in_valid, |d, l, last| {
                    x.in_data.next = Bits::<64>::from(d);
                    x.in_len.next = Bits::<4>::from(l);
                    x.in_last.next = last;
                },
                out: out_valid, out_data, out_len, out_last,
                last: {
                    l3 = x.out_l3.val().to_u64() as u8;
                    l4 = x.out_l4.val().to_u64() as u8;
                });
            out.push((t, l3, l4));
            wait_clock_cycles!(sim, clock, x, 4);
            cycle += 4;
        }
        Ok((x, out))
    });
    for (i, (f, (t, l3, l4))) in frames.iter().zip(&r).enumerate() {
        assert_eq!(&t.bytes, f, "csum: bytes differ");
        // IPv4 frames: both verdicts good; IPv6: no L3 checksum, L4 good
        let want_l3 = if i < 2 { 1 } else { 0 };
        assert_eq!((*l3, *l4), (want_l3, 1), "csum: verdicts of frame {i}");
    }
    r.into_iter().map(|(t, _, _)| t).collect()
}

// ---------------------------------------------------------------- classifier

/// What the classifier says about a frame: hash and hash type (first beat), checksum
/// verdicts and status (last beat).
#[derive(Clone, Debug, Default)]
struct ClassOut {
    hash: u32,
    hash_type: u8,
    l3: u8,
    l4: u8,
    status: u8,
}

fn measure_classifier(frames: &[Vec<u8>]) -> Vec<FrameTimes> {
    let owned = frames.to_vec();
    let cfg = RxClassConfig::reset_default(4);
    let r = run_testbench(100_000, |x: &mut Box<RxClassifier>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        // the reset configuration (PROMISC | BROADCAST, all hash types, default key); the
        // tables keep the values the blocks write after reset
        configure_classifier(&mut x, &cfg);
        x.mcast_wr.next = false;
        x.reta_wr.next = false;
        x.m_ready.next = true;
        x.s_valid.next = false;
        reset_for!(sim, x, 3);
        let ready = cycles_until!(sim, x, 0..1000, x.s_ready.val());
        assert!(ready.is_some(), "classifier never ready");
        wait_clock_cycle!(sim, clock, x);
        let mut cycle = 0u64;
        let mut out = Vec::new();
        for f in &owned {
            let mut c = ClassOut::default();
            let t = frame_through!(sim, x, cycle, f, "classifier",
                in: s_valid ready s_ready, |d, l, last| {
                    x.s_data.next = Bits::<64>::from(d);
                    x.s_len.next = Bits::<4>::from(l);
                    x.s_last.next = last;
                    x.s_status.next = Bits::<3>::from(0u64);
                },
                out: m_valid, m_data, m_len, m_last,
                first: {
                    c.hash = x.m_hash.val().to_u64() as u32;
                    c.hash_type = x.m_hash_type.val().to_u64() as u8;
                },
                last: {
                    c.status = x.m_status.val().to_u64() as u8;
                    c.l3 = x.m_l3_csum.val().to_u64() as u8;
                    c.l4 = x.m_l4_csum.val().to_u64() as u8;
                });
            out.push((t, c));
            wait_clock_cycles!(sim, clock, x, 8);
            cycle += 8;
        }
        Ok((x, out))
    });
    for (i, (f, (t, c))) in frames.iter().zip(&r).enumerate() {
        assert_eq!(&t.bytes, f, "classifier: bytes of frame {i} differ");
        let l3 = if i < 2 { 1 } else { 0 };
        assert_eq!((c.l3, c.l4, c.status), (l3, 1, 0), "classifier: verdicts of frame {i}");
        assert_eq!(c.hash, toeplitz::hash(&toeplitz::DEFAULT_KEY, &rss_input(f)), "classifier: hash of frame {i}");
        assert_eq!(c.hash_type, if i < 2 { 2 } else { 6 }, "classifier: hash type of frame {i}");
    }
    r.into_iter().map(|(t, _)| t).collect()
}

#[test]
fn per_stage_latency() {
    let started = std::time::Instant::now();
    let frames = frames();
    let mac = measure_mac_rx(&frames);
    let recs = measure_parser(&frames);
    let filter = measure_filter(&frames);
    let rss = measure_rss(&frames, &recs);
    let csum = measure_csum(&frames, &recs);
    let cls = measure_classifier(&frames);
    let per = |f: &dyn Fn(usize) -> u64| -> [u64; 3] { [f(0), f(1), f(2)] };
    let measured: Vec<(&str, &str, [u64; 3])> = vec![
        ("MacRx", "first beat in -> first beat out", per(&|i| mac[i].first_latency())),
        ("MacRx", "last beat in -> last beat out", per(&|i| mac[i].last_latency())),
        ("RxParser", "first beat in -> record valid", per(&|i| recs[i].valid - recs[i].first_in)),
        ("RxParser", "window closed -> record valid", per(&|i| recs[i].valid - recs[i].window_closed)),
        ("RxFilter", "dst in -> verdict", per(&|i| filter[i])),
        ("RxRss", "start -> hash/queue valid (done)", per(&|i| rss[i])),
        ("RxCsum", "first beat in -> first beat out", per(&|i| csum[i].first_latency())),
        ("RxCsum", "last beat in -> verdict out", per(&|i| csum[i].last_latency())),
        ("RxClassifier", "first beat in -> first beat out", per(&|i| cls[i].first_latency())),
        ("RxClassifier", "last beat in -> last beat out", per(&|i| cls[i].last_latency())),
    ];
    eprintln!("RX per-stage latency in clock cycles (idle pipeline, output always ready; {:.1} s)", started.elapsed().as_secs_f64());
    eprintln!("| {:<12} | {:<34} | {:>13} | {:>15} | {:>14} |", "stage", "from -> to", FRAMES[0], FRAMES[1], FRAMES[2]);
    eprintln!("|{:-<14}|{:-<36}|{:->15}|{:->17}|{:->16}|", "", "", "", "", "");
    for (stage, what, v) in &measured {
        eprintln!("| {:<12} | {:<34} | {:>13} | {:>15} | {:>14} |", stage, what, v[0], v[1], v[2]);
    }
    let expected: Vec<(&str, &str, [u64; 3])> = EXPECTED.to_vec();
    assert_eq!(measured, expected, "a stage's latency changed: update EXPECTED and docs/performance.md");
}
