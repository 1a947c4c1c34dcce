//! RX classification end to end: frames on the wire, through MAC filter, parser,
//! checksum check and RSS, into the queues, read back by the real driver and judged
//! against the golden classifier (`nic_testbench::rxclass`) and, for RSS, against the
//! published Microsoft verification hashes.

mod common;

use common::*;
use nic_driver::{Dir, IrqMode, MacFilter, NicConfig, RegisterVerbs, RxFilterMode};
use nic_testbench::rxclass::{self, RxClassConfig};
use nic_testbench::rxgen::{self, RxGenOptions};
use nic_testbench::{fcs, rxsuite};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn queues(size: HwSize) -> u32 {
    match size {
        HwSize::Small => 1,
        HwSize::Full => 8,
    }
}

/// Every queue open, rings and buffers big enough that nothing is dropped for lack of
/// a buffer (jumbo frames included).
fn config(size: HwSize) -> NicConfig {
    NicConfig { rx_queues: queues(size), rx_ring_log2: 8, rx_buf_len: 9216, ..NicConfig::default() }
}

/// The golden configuration that matches what `Nic::open` leaves: reset values, with
/// the indirection table spread over the open queues.
fn after_open(size: HwSize) -> RxClassConfig {
    let q = queues(size);
    let mut cfg = RxClassConfig::reset_default(q);
    cfg.reta = std::array::from_fn(|j| (j as u32 % q) as u8);
    cfg
}

/// `small` has neither RSS nor checksum validation (FEATURES.RSS and RX_CSUM clear, set in
/// `full`): the Microsoft suite's frames (TCP over IPv4 and IPv6, and IP alone) all reach
/// queue 0 there with hash, hash type and packet type 0 and both verdicts "not
/// checked", where `full` hashes and types every one and finds the TCP checksums good.
#[test]
fn small_classifies_with_the_filter_alone() {
    let rx_bits = nic_regmap::bits::FEATURES_RSS | nic_regmap::bits::FEATURES_RX_CSUM;
    let frames: Vec<Vec<u8>> = rxgen::ms_suite_frames().into_iter().map(|(f, _, _)| f).collect();
    for size in [HwSize::Full, HwSize::Small] {
        each_backend(size, |b, dev| {
            let mut nic = open(dev, config(size));
            let features = nic.layout().features & rx_bits;
            let got = rxsuite::replay_one_by_one(&mut nic, &frames, TIMEOUT).unwrap();
            for o in &got {
                assert!(o.accepted, "{b:?} {size:?}: frame {} dropped: {:?}", o.index, o.drop_reason);
                let seen = (o.rss_type, o.ptype, o.l3_csum.max(o.l4_csum));
                match size {
                    HwSize::Small => {
                        assert_eq!(features, 0, "{b:?}: FEATURES of small");
                        assert_eq!((seen, o.rss_hash, o.queue), ((0, 0, rxclass::csum::NOT_CHECKED), 0, Some(0)), "{b:?} small: frame {}", o.index);
                    }
                    HwSize::Full => {
                        assert_eq!(features, rx_bits, "{b:?}: FEATURES of full");
                        assert!(o.rss_type != 0 && o.ptype != 0, "{b:?} full: frame {}: {o:?}", o.index);
                    }
                }
            }
            if size == HwSize::Full {
                assert!(got.iter().any(|o| o.l4_csum == rxclass::csum::GOOD), "{b:?} full: no checksum verdict");
            }
            assert!(nic.set_rss_types(0).is_ok() == (size == HwSize::Full), "{b:?} {size:?}: the driver refuses RSS set-up only without RSS");
        });
    }
}

/// `full` has the map's sixteen exact-match entries, `small` two (the station address
/// and one more: an iCE40 HX8K cannot spare the logic of more): `MAC_FILTER_COUNT` says
/// so, the absent entries ignore writes and read 0, a frame to an address written there
/// is a unicast miss while one to the last present entry is taken, and the driver
/// refuses the absent entries. A build without RSS has no key either: it reads 0 after a
/// raw write.
#[test]
fn exact_match_entries_per_build() {
    use nic_regmap::rxc;
    for (size, want) in [(HwSize::Full, 16u32), (HwSize::Small, 2)] {
        each_backend(size, |b, dev| {
            let mut nic = open(dev, config(size));
            assert_eq!(nic.mac_filter_count(), want, "{b:?} {size:?}: MAC_FILTER_COUNT");
            nic.set_rx_filter_mode(RxFilterMode { promisc: false, allmulti: false, broadcast: true }).unwrap();
            let base = nic.layout().rxc.unwrap() - rxc::BASE;
            let addr = |i: u32| [0x02, 0x00, 0x5e, 0x10, 0x20, i as u8];
            for i in 0..rxc::MAC_FILTERS {
                let a = addr(i);
                let lo = u32::from_le_bytes([a[0], a[1], a[2], a[3]]);
                let hi = u32::from(a[4]) | u32::from(a[5]) << 8 | 1 << 31;
                nic.device_mut().set_reg32(base + rxc::mac_filter_lo(i), lo).unwrap();
                nic.device_mut().set_reg32(base + rxc::mac_filter_hi(i), hi).unwrap();
                let back = (nic.device_mut().get_reg32(base + rxc::mac_filter_lo(i)).unwrap(), nic.device_mut().get_reg32(base + rxc::mac_filter_hi(i)).unwrap());
                let expect = if i < want { (lo, hi) } else { (0, 0) };
                assert_eq!(back, expect, "{b:?} {size:?}: entry {i} read back");
            }
            assert!(nic.set_mac_filter(want, Some(MacFilter { addr: addr(want), steer_queue: None })).is_err(), "{b:?} {size:?}: the driver refuses entry {want}");
            assert!(nic.set_mac_filter(want - 1, Some(MacFilter { addr: addr(want - 1), steer_queue: None })).is_ok());
            let frame = |dst: [u8; 6]| {
                let mut f = vec![0u8; 60];
                f[..6].copy_from_slice(&dst);
                f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
                f[12..14].copy_from_slice(&[0x88, 0xb5]);
                f
            };
            let mut frames = vec![frame(addr(want - 1))];
            if want < rxc::MAC_FILTERS {
                frames.push(frame(addr(want)));
            }
            let got = rxsuite::replay_one_by_one(&mut nic, &frames, TIMEOUT).unwrap();
            assert!(got[0].accepted, "{b:?} {size:?}: frame to the last entry: {:?}", got[0]);
            if let Some(o) = got.get(1) {
                assert_eq!((o.accepted, o.drop_reason), (false, Some("unicast_filter")), "{b:?} {size:?}: frame to an absent entry");
            }
            nic.device_mut().set_reg32(base + rxc::rss_key(0), 0x1234_5678).unwrap();
            let key0 = nic.device_mut().get_reg32(base + rxc::rss_key(0)).unwrap();
            assert_eq!(key0, if nic.has_rss() { 0x1234_5678 } else { 0 }, "{b:?} {size:?}: RSS_KEY[0] after a raw write");
        });
    }
}

#[test]
fn microsoft_rss_suite_through_the_nic() {
    for size in [HwSize::Full] {
        each_backend(size, |_, dev| {
            let mut nic = open(dev, config(size));
            let suite = rxgen::ms_suite_frames();
            let frames: Vec<Vec<u8>> = suite.iter().map(|(f, _, _)| f.clone()).collect();
            let got = rxsuite::replay_one_by_one(&mut nic, &frames, TIMEOUT).unwrap();
            for ((f, hash, ty), o) in suite.iter().zip(&got) {
                assert!(o.accepted, "suite frame {} dropped: {:?}", o.index, o.drop_reason);
                // the published hash, independent of our model
                assert_eq!((o.rss_hash, o.rss_type), (*hash, *ty), "suite frame {} ({} bytes)", o.index, f.len());
                assert_eq!(o.queue, Some(hash % 128 % queues(size)), "queue = RETA[hash % 128] with the spread table");
            }
            // and the whole classification agrees with the model
            rxsuite::burst_and_check(&mut nic, &after_open(size), &frames, TIMEOUT).unwrap();
        });
    }
}

/// Random configurations and random traffic (VLANs, options, fragments, IPv6 extension
/// headers, malformed and truncated headers, bad checksums, random addresses).
fn random_run(size: HwSize, seed: u64, frames: usize) {
    each_backend(size, |b, dev| {
        let mut nic = open(dev, config(size));
        let mut rng = StdRng::seed_from_u64(seed);
        let cfg = rxgen::random_config(&mut rng, queues(size));
        rxsuite::program(&mut nic, &cfg).unwrap();
        let opts = RxGenOptions::for_config(&cfg);
        let traffic: Vec<Vec<u8>> = (0..frames).map(|_| rxgen::random_frame(&mut rng, &opts)).collect();
        if let Err(e) = rxsuite::burst_and_check(&mut nic, &cfg, &traffic, 4 * TIMEOUT) {
            panic!("backend {b:?} {size:?} seed {seed}: {e}");
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_traffic_matches_the_model_full(seed in any::<u64>()) {
        random_run(HwSize::Full, seed, 200);
    }
    #[test]
    fn random_traffic_matches_the_model_small(seed in any::<u64>()) {
        random_run(HwSize::Small, seed, 120);
    }
}

#[test]
fn filter_modes_count_drops_by_reason() {
    each_backend(HwSize::Full, |_, dev| {
        let mut nic = open(dev, config(HwSize::Full));
        let ours = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
        let group = [0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb];
        nic.set_rx_filter_mode(RxFilterMode::NORMAL).unwrap();
        nic.set_mac_filter(0, Some(MacFilter { addr: ours, steer_queue: Some(5) })).unwrap();
        nic.set_multicast_list(&[group]).unwrap();
        assert_eq!(nic.mac_filter(0).unwrap(), Some(MacFilter { addr: ours, steer_queue: Some(5) }));
        let mut rng = StdRng::seed_from_u64(7);
        let mut opts = RxGenOptions::clean();
        opts.our_macs = vec![ours];
        let mut frame_to = |dst: [u8; 6]| {
            let mut f = rxgen::random_frame(&mut rng, &opts);
            f[..6].copy_from_slice(&dst);
            f
        };
        let other_group = loop {
            let g = rxgen::random_multicast(&mut StdRng::seed_from_u64(rand::random()));
            if rxclass::mcast_hash_index(&g) != rxclass::mcast_hash_index(&group) {
                break g;
            }
        };
        let frames = vec![
            frame_to(ours),
            frame_to([0x02, 0, 0, 0, 0, 9]),
            frame_to(group),
            frame_to(other_group),
            frame_to([0xff; 6]),
        ];
        let got = rxsuite::replay_one_by_one(&mut nic, &frames, TIMEOUT).unwrap();
        let summary: Vec<(bool, Option<&str>, Option<u32>)> = got.iter().map(|o| (o.accepted, o.drop_reason, o.queue)).collect();
        assert_eq!(summary[0], (true, None, Some(5)), "exact match steered to queue 5");
        assert_eq!(summary[1], (false, Some("unicast_filter"), None));
        assert!(summary[2].0, "multicast group in the hash accepted: {:?}", summary[2]);
        assert_eq!(summary[3], (false, Some("multicast_filter"), None));
        assert!(summary[4].0, "broadcast accepted with BROADCAST set");
        nic.set_rx_filter_mode(RxFilterMode { broadcast: false, ..RxFilterMode::NORMAL }).unwrap();
        let got = rxsuite::replay_one_by_one(&mut nic, &frames[4..], TIMEOUT).unwrap();
        assert_eq!(got[0].drop_reason, Some("broadcast_filter"));
        nic.set_rx_filter_mode(RxFilterMode { promisc: true, allmulti: false, broadcast: false }).unwrap();
        let got = rxsuite::replay_one_by_one(&mut nic, &frames, TIMEOUT).unwrap();
        assert!(got.iter().all(|o| o.accepted), "promiscuous accepts everything: {got:?}");
        let s = nic.stats().unwrap();
        assert_eq!((s.rx_drop_ucast_filter, s.rx_drop_mcast_filter, s.rx_drop_bcast_filter), (1, 1, 1));
    });
}

#[test]
fn a_full_ring_drops_only_its_own_frames() {
    each_backend(HwSize::Full, |_, dev| {
        // 8-entry rings; queue 3 is never drained
        let mut nic = open(dev, NicConfig { rx_ring_log2: 3, ..config(HwSize::Full) });
        let mut rng = StdRng::seed_from_u64(3);
        let cfg = after_open(HwSize::Full);
        let mut per_queue = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut frames = Vec::new();
        let opts = RxGenOptions::clean();
        while per_queue[3].len() < 20 {
            let f = rxgen::random_frame(&mut rng, &opts);
            let m = rxclass::classify(&cfg, &f);
            if per_queue.iter().map(Vec::len).sum::<usize>() >= 200 && m.queue != 3 {
                continue;
            }
            per_queue[m.queue as usize].push(frames.len());
            frames.push(f);
        }
        let mut got: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 8];
        let before = nic.stats().unwrap();
        for f in &frames {
            nic.device_mut().inject_rx(&fcs::with_fcs(f), false);
            // drain every queue but 3 as frames come
            for q in (0..8).filter(|&q| q != 3) {
                got[q as usize].extend(nic.rx_burst_on(q, 8).unwrap().into_iter().map(|r| r.data));
            }
        }
        let start = nic.cycles();
        while (0..8).filter(|&q| q != 3).map(|q| got[q].len()).sum::<usize>() < frames.len() - per_queue[3].len() && nic.cycles() - start < TIMEOUT {
            nic.device_mut().idle(200);
            for q in (0..8).filter(|&q| q != 3) {
                got[q as usize].extend(nic.rx_burst_on(q, 8).unwrap().into_iter().map(|r| r.data));
            }
        }
        for q in (0..8).filter(|&q| q != 3) {
            let want: Vec<Vec<u8>> = per_queue[q].iter().map(|&i| frames[i].clone()).collect();
            assert_eq!(got[q], want, "queue {q} lost or reordered frames while queue 3 was full");
        }
        let q3: Vec<Vec<u8>> = nic.rx_burst_on(3, 64).unwrap().into_iter().map(|r| r.data).collect();
        let want: Vec<Vec<u8>> = per_queue[3][..8].iter().map(|&i| frames[i].clone()).collect();
        assert_eq!(q3, want, "queue 3 holds the first 8 of its frames");
        let dropped = (per_queue[3].len() - 8) as u32;
        // queue 3's last frames come after everyone else's: let them reach the NIC
        let start = nic.cycles();
        while nic.rx_queue_drops(3).unwrap() < dropped && nic.cycles() - start < TIMEOUT {
            nic.device_mut().idle(500);
        }
        assert_eq!(nic.rx_queue_drops(3).unwrap(), dropped);
        assert_eq!(nic.stats().unwrap().since(&before).rx_drop_no_buffer, dropped);
        for q in (0..8).filter(|&q| q != 3) {
            assert_eq!(nic.rx_queue_drops(q).unwrap(), 0, "queue {q}");
        }
    });
}

#[test]
fn each_queue_raises_its_own_vector() {
    each_backend(HwSize::Full, |_, dev| {
        // polling, so the test itself reads IRQ_STATUS: a frame steered to queue q must set
        // exactly vector 8 + q (moderation: every completion)
        let mut nic = open(dev, config(HwSize::Full));
        let ours = [0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x00];
        nic.set_rx_filter_mode(RxFilterMode::NORMAL).unwrap();
        let mut rng = StdRng::seed_from_u64(9);
        let opts = RxGenOptions::clean();
        for q in [6u32, 1, 7, 0] {
            let mut addr = ours;
            addr[5] = q as u8;
            nic.set_mac_filter(q, Some(MacFilter { addr, steer_queue: Some(q as u8) })).unwrap();
            nic.device_mut().set_reg32(nic_regmap::global::IRQ_STATUS, u32::MAX).unwrap();
            assert_eq!(nic.irq_status().unwrap(), 0);
            let mut f = rxgen::random_frame(&mut rng, &opts);
            f[..6].copy_from_slice(&addr);
            nic.device_mut().inject_rx(&fcs::with_fcs(&f), false);
            let start = nic.cycles();
            while !nic.rx_ready(q).unwrap() {
                assert!(nic.cycles() - start < TIMEOUT, "queue {q}: the frame never arrived");
                nic.device_mut().idle(64);
            }
            nic.device_mut().idle(64);
            assert_eq!(nic.irq_status().unwrap(), 1 << (nic_regmap::RX_IRQ_BASE + q), "queue {q}: IRQ_STATUS");
            for other in (0..8).filter(|&o| o != q) {
                assert!(!nic.rx_ready(other).unwrap(), "frame for queue {q} showed up on {other}");
            }
            let got = nic.rx_burst_on(q, 4).unwrap();
            assert_eq!(got.len(), 1);
            assert_eq!(got[0].data, f);
            assert!(nic.queue_state(Dir::Rx, q).unwrap().active);
        }
    });
}

/// Interrupt mode end to end: the driver waits on queue q's vector.
#[test]
fn interrupt_mode_waits_on_the_queue_vector() {
    each_backend(HwSize::Full, |_, dev| {
        let mut nic = open(dev, NicConfig { irq_mode: IrqMode::Interrupt, ..config(HwSize::Full) });
        let addr = [0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x05];
        nic.set_mac_filter(0, Some(MacFilter { addr, steer_queue: Some(5) })).unwrap();
        let mut f = rxgen::random_frame(&mut StdRng::seed_from_u64(10), &RxGenOptions::clean());
        f[..6].copy_from_slice(&addr);
        nic.device_mut().inject_rx(&fcs::with_fcs(&f), false);
        assert!(nic.wait_rx_on(5, TIMEOUT).unwrap());
        assert_eq!(nic.rx_burst_on(5, 4).unwrap()[0].data, f);
    });
}
