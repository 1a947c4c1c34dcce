//! Block test of the RX classifier RTL (`nic_hw::rx::RxClassifier`) in rust-hdl's own
//! simulator, against the golden model `nic_testbench::rxclass::classify`: back-to-back
//! frames (random frames from `rxgen`, the Microsoft RSS suite, short garbage, jumbo
//! frames), every output frame's bytes and metadata compared; plus throughput and
//! latency on back-to-back 60-byte and long frames.
//!
//! One documented difference from the model (see hw/src/rx/parser.rs): for a frame longer
//! than the 104-byte header window, the per-frame metadata (ptype, hash, queue) is decided
//! before the frame's end, assuming it is as long as its IP header says. The expected
//! per-frame fields of such a frame are the model's for the frame extended with zeros;
//! the checksum verdicts (on the last beat) are the model's for the real frame.

mod common;

use common::hdl::{configure_classifier, push_beat, reset_for, run_testbench, Feed};
use nic_hw::rx::classifier::VERDICT_DELAY;
use nic_hw::rx::RxClassifier;
use nic_testbench::rxclass::{classify, RxClassConfig, RxMeta};
use nic_testbench::rxgen::{ms_suite_frames, random_config, random_frame, RxGenOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// Header window of the RTL parser: frames up to this length are judged on their length.
const WINDOW: usize = 104;

#[derive(Clone, Debug, Default)]
struct OutFrame {
    bytes: Vec<u8>,
    meta: RxMeta,
    status: u8,
    /// Cycle of the first and last output beat.
    first_cycle: u64,
    last_cycle: u64,
    /// The per-frame metadata changed between beats.
    meta_unstable: bool,
    /// `m_divert`: the frame is for the RDMA engine.
    divert: bool,
}

#[derive(Clone, Debug, Default)]
struct RunResult {
    out: Vec<OutFrame>,
    /// Cycle each frame's first beat was accepted.
    in_first: Vec<u64>,
    /// Cycles with a beat offered but not accepted (after the first frame started).
    in_stalls: u64,
    /// Cycle of the last input beat accepted.
    in_done: u64,
    /// Cycle each frame's last beat was accepted.
    in_last: Vec<u64>,
    /// The RDMA verdicts (`v_valid`), with their cycles.
    verdicts: Vec<(u64, bool)>,
}

/// Runs the classifier on `frames` (back-to-back), with `cfg`, MAC status `status[i]` on
/// frame i's last beat, `m_ready` low on cycles where `ready_gap(cycle)` is true.
fn run(cfg: &RxClassConfig, frames: &[Vec<u8>], status: &[u8], ready_gap: fn(u64) -> bool, max_cycles: u64) -> RunResult {
    run_with_rdma(cfg, None, frames, status, ready_gap, max_cycles)
}

/// As [`run`], with the RDMA engine enabled at LOCAL_IPV4 `rdma` (`Some`).
fn run_with_rdma(cfg: &RxClassConfig, rdma: Option<u32>, frames: &[Vec<u8>], status: &[u8], ready_gap: fn(u64) -> bool, max_cycles: u64) -> RunResult {
    let cfg = cfg.clone();
    let frames: Vec<Vec<u8>> = frames.to_vec();
    let status = status.to_vec();
    run_testbench((max_cycles + 2000) * 10, |x: &mut Box<RxClassifier>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        configure_classifier(&mut x, &cfg);
        x.rdma_enable.next = rdma.is_some();
        x.local_ipv4.next = Bits::<32>::from(u64::from(rdma.unwrap_or(0)));
        x.m_ready.next = false;
        x.s_valid.next = false;
        reset_for!(sim, x, 3);
        // the tables clear themselves after reset (256 cycles): wait, then write them,
        // one word every other cycle as the CSR block does
        for _ in 0..300 {
            wait_clock_cycle!(sim, clock, x);
        }
        let reta = cfg.reta_words();
        for i in 0..128 {
            x.mcast_wr.next = true;
            x.mcast_wr_addr.next = Bits::<7>::from(i as u64);
            x.mcast_wr_data.next = Bits::<32>::from(cfg.mcast_hash[i] as u64);
            x.reta_wr.next = i < 32;
            x.reta_wr_addr.next = Bits::<5>::from((i % 32) as u64);
            x.reta_wr_data.next = Bits::<32>::from(reta[i % 32] as u64);
            wait_clock_cycle!(sim, clock, x);
            x.mcast_wr.next = false;
            x.reta_wr.next = false;
            wait_clock_cycle!(sim, clock, x);
        }
        // traffic
        let mut feed = Feed::new(&frames);
        let mut r = RunResult::default();
        let mut cur = OutFrame::default();
        let mut in_frame_out = false;
        let mut cycle = 0u64;
        let mut started = false;
        while r.out.len() < frames.len() && cycle < max_cycles {
            // drive
            let beat = feed.beat();
            if let Some((d, l, last)) = beat {
                x.s_data.next = Bits::<64>::from(d);
                x.s_len.next = Bits::<4>::from(l);
                x.s_last.next = last;
                x.s_status.next = Bits::<3>::from(if last { status[feed.frame()] as u64 } else { 0 });
            }
            x.s_valid.next = beat.is_some();
            let ready = !ready_gap(cycle);
            x.m_ready.next = ready;
            x = sim.wait(1, x)?;
            // sample this cycle's handshakes
            if beat.is_some() {
                if x.s_ready.val() {
                    let (first, last) = feed.take();
                    if first {
                        r.in_first.push(cycle);
                        started = true;
                    }
                    if last {
                        r.in_done = cycle;
                        r.in_last.push(cycle);
                    }
                } else if started {
                    r.in_stalls += 1;
                }
            }
            if x.v_valid.val() {
                r.verdicts.push((cycle, x.v_divert.val()));
            }
            if x.m_valid.val() && ready {
                let meta = RxMeta {
                    drop: x.m_drop.val().to_u64() as u8,
                    queue: x.m_queue.val().to_u64() as u32,
                    hash: x.m_hash.val().to_u64() as u32,
                    hash_type: x.m_hash_type.val().to_u64() as u8,
                    l3_csum: 0,
                    l4_csum: 0,
                    ptype: x.m_ptype.val().to_u64() as u16,
                };
                let divert = x.m_divert.val();
                if !in_frame_out {
                    cur = OutFrame { meta, first_cycle: cycle, divert, ..Default::default() };
                    in_frame_out = true;
                } else if meta != cur.meta || divert != cur.divert {
                    cur.meta_unstable = true;
                }
                push_beat(&mut cur.bytes, x.m_data.val().to_u64(), x.m_len.val().to_u64());
                if x.m_last.val() {
                    cur.meta.l3_csum = x.m_l3_csum.val().to_u64() as u8;
                    cur.meta.l4_csum = x.m_l4_csum.val().to_u64() as u8;
                    cur.status = x.m_status.val().to_u64() as u8;
                    cur.last_cycle = cycle;
                    r.out.push(std::mem::take(&mut cur));
                    in_frame_out = false;
                }
            }
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
        }
        Ok((x, r))
    })
}

/// The expected metadata of a frame (see the module comment for frames past the window).
fn expected(cfg: &RxClassConfig, frame: &[u8]) -> RxMeta {
    let real = classify(cfg, frame);
    if frame.len() <= WINDOW {
        return real;
    }
    let mut long = frame.to_vec();
    long.resize(frame.len() + 22 + 40 + 65536, 0);
    let mut m = classify(cfg, &long);
    m.l3_csum = real.l3_csum;
    m.l4_csum = real.l4_csum;
    m
}

fn check(cfg: &RxClassConfig, frames: &[Vec<u8>], status: &[u8], r: &RunResult, what: &str) {
    check_with_rdma(cfg, None, frames, status, r, what)
}

fn check_with_rdma(cfg: &RxClassConfig, rdma: Option<u32>, frames: &[Vec<u8>], status: &[u8], r: &RunResult, what: &str) {
    assert_eq!(r.out.len(), frames.len(), "{what}: {} of {} frames came out", r.out.len(), frames.len());
    assert_eq!(r.verdicts.len(), frames.len(), "{what}: {} RDMA verdicts for {} frames", r.verdicts.len(), frames.len());
    let mut bad = Vec::new();
    for (i, (f, o)) in frames.iter().zip(&r.out).enumerate() {
        let e = expected(cfg, f);
        let roce = rdma.is_some_and(|ip| nic_testbench::roce::is_roce_v4_to(f, ip));
        if o.bytes != *f {
            bad.push(format!("frame {i} ({} bytes): bytes differ (got {} bytes)", f.len(), o.bytes.len()));
        } else if o.divert != (roce && e.drop == 0) {
            bad.push(format!("frame {i} ({} bytes): m_divert {}, expected {} (RoCE for this NIC {roce}, filter drop {})\n  {:02x?}", f.len(), o.divert, roce && e.drop == 0, e.drop, &f[..f.len().min(64)]));
        } else if r.verdicts.get(i).map(|v| v.1) != Some(roce && e.drop == 0) {
            bad.push(format!("frame {i} ({} bytes): RDMA verdict {:?}, expected {}", f.len(), r.verdicts.get(i), roce && e.drop == 0));
        } else if r.verdicts[i].0 > r.in_last[i] + VERDICT_DELAY + 8 {
            // (the bound the RDMA engine counts on: a record waits at most 8 cycles for
            // RSS, which takes one every 8 cycles; a window closes only once the previous
            // record is in RSS)
            bad.push(format!("frame {i} ({} bytes): RDMA verdict at cycle {}, its last beat in at {}", f.len(), r.verdicts[i].0, r.in_last[i]));
        } else if o.meta != e || o.status != status[i] || o.meta_unstable {
            bad.push(format!(
                "frame {i} ({} bytes): got {:?} status {} unstable {}, expected {:?} status {}\n  {:02x?}",
                f.len(),
                o.meta,
                o.status,
                o.meta_unstable,
                e,
                status[i],
                &f[..f.len().min(96)]
            ));
        }
    }
    let mut ptypes: Vec<u16> = r.out.iter().map(|o| o.meta.ptype).collect();
    ptypes.sort_unstable();
    ptypes.dedup();
    let count = |f: &dyn Fn(&RxMeta) -> bool| r.out.iter().filter(|o| f(&o.meta)).count();
    println!(
        "{what}: {} frames, {} ptypes, hashed {}, L3 good/bad {}/{}, L4 good/bad {}/{}, dropped {}, malformed {}, long {}",
        frames.len(),
        ptypes.len(),
        count(&|m| m.hash_type != 0),
        count(&|m| m.l3_csum == 1),
        count(&|m| m.l3_csum == 2),
        count(&|m| m.l4_csum == 1),
        count(&|m| m.l4_csum == 2),
        count(&|m| m.drop != 0),
        count(&|m| m.ptype & 0x100 != 0),
        frames.iter().filter(|f| f.len() > WINDOW).count()
    );
    assert!(bad.is_empty(), "{what}: {} of {} frames wrong:\n{}", bad.len(), frames.len(), bad[..bad.len().min(12)].join("\n"));
}

fn never(_: u64) -> bool {
    false
}

fn sometimes(c: u64) -> bool {
    // a deterministic irregular back-pressure pattern
    (c.wrapping_mul(2654435761) >> 7) % 5 == 0
}

#[test]
fn reset_config_ms_suite_and_random_frames() {
    let cfg = RxClassConfig::reset_default(4);
    let mut rng = StdRng::seed_from_u64(1);
    let mut frames: Vec<Vec<u8>> = ms_suite_frames().into_iter().map(|(f, _, _)| f).collect();
    let opts = RxGenOptions { p_jumbo: 0.0, max_ip_len: 600, ..RxGenOptions::for_config(&cfg) };
    while frames.len() < 300 {
        let f = random_frame(&mut rng, &opts);
        if !f.is_empty() {
            frames.push(f);
        }
    }
    let status: Vec<u8> = frames.iter().map(|_| if rng.gen_bool(0.1) { rng.gen_range(1..5) } else { 0 }).collect();
    let r = run(&cfg, &frames, &status, never, 200_000);
    check(&cfg, &frames, &status, &r, "reset config");
    // the suite's hashes, independently of the model
    for (i, (_, hash, ty)) in ms_suite_frames().into_iter().enumerate() {
        assert_eq!((r.out[i].meta.hash, r.out[i].meta.hash_type), (hash, ty), "Microsoft suite case {i}");
    }
}

#[test]
fn random_configs_faults_and_backpressure() {
    let mut rng = StdRng::seed_from_u64(2);
    for round in 0..4 {
        let queues = [1u32, 8, 64, 16][round];
        let mut cfg = random_config(&mut rng, queues);
        if round % 2 == 1 {
            cfg.promisc = false;
        }
        if round == 3 {
            cfg.allmulti = false;
            cfg.broadcast = false;
        }
        let opts = RxGenOptions { p_jumbo: 0.0, max_ip_len: 400, p_truncated: 0.1, p_bad_ip_len: 0.1, p_bad_l4_len: 0.1, p_short: 0.05, p_garbage: 0.05, ..RxGenOptions::for_config(&cfg) };
        let mut frames = Vec::new();
        for i in 0..200 {
            if i % 10 == 3 {
                // tiny garbage, back to back
                let n = rng.gen_range(1..24);
                frames.push((0..n).map(|_| rng.gen()).collect());
            } else {
                let f = random_frame(&mut rng, &opts);
                if !f.is_empty() {
                    frames.push(f);
                }
            }
        }
        let status: Vec<u8> = frames.iter().map(|_| if rng.gen_bool(0.1) { rng.gen_range(1..5) } else { 0 }).collect();
        let gaps = if round == 1 { sometimes } else { never };
        let r = run(&cfg, &frames, &status, gaps, 200_000);
        check(&cfg, &frames, &status, &r, &format!("random config {round}"));
    }
}

#[test]
fn throughput_and_latency() {
    let cfg = RxClassConfig::reset_default(4);
    let mut rng = StdRng::seed_from_u64(3);
    let opts = RxGenOptions::clean();
    // 60-byte frames (8 beats), back to back
    let mut short = Vec::new();
    while short.len() < 40 {
        let mut f = random_frame(&mut rng, &RxGenOptions { max_ip_len: 46, min_len: 60, ..opts.clone() });
        f.resize(60, 0);
        short.push(f);
    }
    // long frames: 9018 bytes, then a mix of lengths 60..1518
    let mut long = Vec::new();
    for _ in 0..2 {
        let mut f = random_frame(&mut rng, &RxGenOptions { max_ip_len: 9000, p_jumbo: 1.0, ..opts.clone() });
        f.resize(9018, 0);
        long.push(f);
    }
    for len in [60usize, 1518, 61, 64, 200, 60, 9018, 60, 67, 103, 104, 105, 60] {
        let mut f = random_frame(&mut rng, &opts);
        f.resize(len, 0);
        long.push(f);
    }
    for (name, frames) in [("60-byte", &short), ("long/mixed", &long)] {
        let status = vec![0u8; frames.len()];
        let total_beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
        let r = run(&cfg, frames, &status, never, total_beats + 2000);
        check(&cfg, frames, &status, &r, name);
        let first_in = r.in_first[0];
        let latency = r.out[0].first_cycle - first_in;
        let in_span = r.in_done - first_in + 1;
        let out_span = r.out.last().unwrap().last_cycle - r.out[0].first_cycle + 1;
        let mut gaps = 0;
        for w in r.out.windows(2) {
            gaps += w[1].first_cycle - w[0].last_cycle - 1;
        }
        println!("{name}: {} frames, {total_beats} beats; input took {in_span} cycles ({} stalls), output {out_span} cycles, {gaps} idle cycles between frames; latency first beat in -> out {latency} cycles", frames.len(), r.in_stalls);
        assert_eq!(in_span, total_beats, "{name}: the input did not take one beat per cycle");
        assert_eq!(out_span, total_beats, "{name}: the output did not give one beat per cycle");
        for (i, (a, o)) in r.in_first.iter().zip(&r.out).enumerate() {
            assert_eq!(o.first_cycle - a, latency, "{name}: frame {i} latency differs");
        }
    }
}

/// RoCEv2 for this NIC that the filter accepts is marked (`m_divert`), and nothing else: RoCE frames to LOCAL_IPV4
/// and their near misses (another address, another UDP port, TCP, a VLAN tag, IPv4
/// options, a fragment, IPv6) among random frames, every frame's metadata as without
/// RDMA, against the model's rule (`roce::is_roce_v4_to`); with the engine disabled
/// nothing is marked.
#[test]
fn roce_frames_for_this_nic_are_marked() {
    use nic_testbench::roce::{opcode, RoceRepr};
    use nic_testbench::wire::bth::BthRepr;
    use nic_testbench::wire::EthernetAddress;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    const LOCAL: u32 = 0x0a00_0002;
    let cfg = RxClassConfig::reset_default(4);
    let mut rng = StdRng::seed_from_u64(4);
    let roce = |rng: &mut StdRng, dst: IpAddr, len: usize| -> Vec<u8> {
        let src = match dst {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        };
        let repr = RoceRepr {
            eth_src: EthernetAddress([2, 0, 0, 0, 0, 1]),
            eth_dst: EthernetAddress([2, 0, 0, 0, 0, 2]),
            ip_src: src,
            ip_dst: dst,
            traffic_class: 0,
            ttl: 64,
            udp_src_port: rng.gen_range(0xc000..0xffff),
            bth: BthRepr { opcode: opcode::SEND_ONLY, solicited: false, mig_req: false, pad_count: 0, pkey: 0xffff, fecn: false, becn: false, dest_qp: 2, ack_req: true, psn: rng.gen_range(0..1 << 24) },
            reth: None,
            aeth: None,
            immdt: None,
        };
        let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut f = repr.emit_frame(&payload);
        f.resize(f.len().max(60), 0);
        f
    };
    // the IPv4 header checksum after an edit
    let fix = |f: &mut Vec<u8>| {
        let ihl = usize::from(f[14] & 15) * 4;
        f[24..26].copy_from_slice(&[0, 0]);
        let sum = nic_testbench::checksum::finish(nic_testbench::checksum::data(&f[14..14 + ihl]));
        f[24..26].copy_from_slice(&sum.to_be_bytes());
    };
    let here = IpAddr::V4(Ipv4Addr::from(LOCAL));
    let mut frames = Vec::new();
    let opts = RxGenOptions { p_jumbo: 0.0, max_ip_len: 600, ..RxGenOptions::for_config(&cfg) };
    for i in 0..240 {
        let len = rng.gen_range(0..300);
        let mut f = roce(&mut rng, here, len);
        match i % 12 {
            0..=3 => {} // for this NIC
            4 => {
                f[33] ^= 1; // another address
                fix(&mut f);
            }
            5 => f[37] ^= 0x10, // UDP port 4791 ^ 0x10
            6 => {
                f[23] = 6; // TCP
                fix(&mut f);
            }
            7 => {
                f.splice(12..12, [0x81, 0x00, 0x00, 0x05]); // a VLAN tag
            }
            8 => {
                // four bytes of IPv4 options
                f.splice(34..34, [1, 1, 1, 0]);
                f[14] = 0x46;
                let tl = u16::from_be_bytes([f[16], f[17]]) + 4;
                f[16..18].copy_from_slice(&tl.to_be_bytes());
                fix(&mut f);
            }
            9 => {
                f[20] |= 0x20; // more fragments
                fix(&mut f);
            }
            10 => f = roce(&mut rng, IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 2)), len),
            _ => {
                f = random_frame(&mut rng, &opts);
                if f.is_empty() {
                    continue;
                }
            }
        }
        frames.push(f);
    }
    let status = vec![0u8; frames.len()];
    let want = frames.iter().filter(|f| nic_testbench::roce::is_roce_v4_to(f, LOCAL)).count();
    assert!(want >= 70, "only {want} RoCE frames for this NIC");
    let r = run_with_rdma(&cfg, Some(LOCAL), &frames, &status, sometimes, 200_000);
    check_with_rdma(&cfg, Some(LOCAL), &frames, &status, &r, "RDMA enabled");
    let accepted = frames.iter().filter(|f| nic_testbench::roce::is_roce_v4_to(f, LOCAL) && expected(&cfg, f).drop == 0).count();
    assert_eq!(r.out.iter().filter(|o| o.divert).count(), accepted);
    let r = run(&cfg, &frames, &status, never, 200_000);
    check(&cfg, &frames, &status, &r, "RDMA disabled");
    // the filter's refusal outranks the RoCE mark: with the filter taking only this NIC's
    // MAC address, RoCE frames to this IP address but another MAC are not diverted
    let mut filtered = cfg.clone();
    filtered.promisc = false;
    filtered.exact[0] = nic_testbench::rxclass::MacFilterEntry { addr: [2, 0, 0, 0, 0, 2], enable: true, steer: false, queue: 0 };
    for (i, f) in frames.iter_mut().enumerate() {
        if i % 3 == 0 && nic_testbench::roce::is_roce_v4_to(f, LOCAL) {
            f[5] = 3;
        }
    }
    let refused = frames.iter().filter(|f| nic_testbench::roce::is_roce_v4_to(f, LOCAL) && expected(&filtered, f).drop != 0).count();
    assert!(refused >= 20, "only {refused} RoCE frames for this NIC that the filter refuses");
    let r = run_with_rdma(&filtered, Some(LOCAL), &frames, &status, sometimes, 200_000);
    check_with_rdma(&filtered, Some(LOCAL), &frames, &status, &r, "RDMA enabled, filter on");
}
