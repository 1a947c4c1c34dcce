//! The golden models judged by well-kept crates, so that they are never judged only by
//! themselves (the suites compare the RTL with them):
//! * CRC-32 and the Ethernet FCS against `crc32fast`;
//! * the TX offload model's output (checksum insertion and TSO, `txoffload::apply`) on
//!   random requests, parsed by `etherparse`: every frame must parse as Ethernet (with
//!   its VLAN tags), IPv4 or IPv6 and TCP or UDP, and its IPv4 header, TCP and UDP
//!   checksums must be what etherparse computes.

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use nic_testbench::txgen::{random_request, TxGenOptions};
use nic_testbench::txoffload::{self, OffloadKind};
use nic_testbench::{crc, fcs};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::SeedableRng;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn crc32_and_fcs_agree_with_crc32fast(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let want = crc32fast::hash(&data);
        prop_assert_eq!(crc::crc32(&data), want);
        prop_assert_eq!(crc::crc32_bitwise(&data), want);
        // the FCS goes least significant byte first (IEEE 802.3 3.2.9)
        let wire = fcs::with_fcs(&data);
        prop_assert_eq!(&wire[data.len()..], &want.to_le_bytes()[..]);
        prop_assert!(fcs::residue_ok(&wire));
    }
}

/// Counts of what etherparse judged.
#[derive(Default, Debug)]
struct Judged {
    frames: usize,
    ipv4_headers: usize,
    tcp: usize,
    udp: usize,
    tso_segments: usize,
}

/// A TCP or UDP checksum as the frame carries it and as etherparse computes it.
#[derive(Debug)]
struct L4Sum {
    udp: bool,
    ipv4: bool,
    in_frame: u16,
    computed: u16,
}

/// The frame's TCP or UDP checksum, judged by etherparse; `None` without TCP or UDP
/// over IPv4 or IPv6, or with a length the pseudo-header cannot carry.
fn l4_sum(p: &SlicedPacket) -> Option<L4Sum> {
    let (src, dst): (Vec<u8>, Vec<u8>) = match &p.net {
        Some(NetSlice::Ipv4(ip)) => (ip.header().source().to_vec(), ip.header().destination().to_vec()),
        Some(NetSlice::Ipv6(ip)) => (ip.header().source().to_vec(), ip.header().destination().to_vec()),
        _ => return None,
    };
    let (src, dst) = (&src[..], &dst[..]);
    let ipv4 = src.len() == 4;
    let (udp, in_frame, computed) = match &p.transport {
        Some(TransportSlice::Tcp(t)) => {
            let c = if ipv4 { t.calc_checksum_ipv4(src.try_into().ok()?, dst.try_into().ok()?) } else { t.calc_checksum_ipv6(src.try_into().ok()?, dst.try_into().ok()?) };
            (false, t.checksum(), c.ok()?)
        }
        Some(TransportSlice::Udp(u)) => {
            let h = u.to_header();
            let c = if ipv4 { h.calc_checksum_ipv4_raw(src.try_into().ok()?, dst.try_into().ok()?, u.payload()) } else { h.calc_checksum_ipv6_raw(src.try_into().ok()?, dst.try_into().ok()?, u.payload()) };
            (true, u.checksum(), c.ok()?)
        }
        _ => return None,
    };
    Some(L4Sum { udp, ipv4, in_frame, computed })
}

#[test]
fn tx_offload_model_frames_carry_the_checksums_etherparse_computes() {
    let opts = TxGenOptions { p_invalid: 0.0, ..TxGenOptions::default() };
    let mut rng = StdRng::seed_from_u64(0x0e7e_4a25);
    let mut n = Judged::default();
    for i in 0..600 {
        let r = random_request(&mut rng, &opts);
        let frames = txoffload::apply(&r.frame, &r.offload, opts.max_frame_len).unwrap_or_else(|e| panic!("request {i}: the model refused a valid request: {e:?}"));
        if r.kind == Some(OffloadKind::Tso) {
            n.tso_segments += frames.len();
        }
        for (s, f) in frames.iter().enumerate() {
            let what = format!("request {i} ({:?}), frame {s} of {}", r.kind, frames.len());
            let p = SlicedPacket::from_ethernet(f).unwrap_or_else(|e| panic!("{what}: etherparse cannot parse it: {e}"));
            n.frames += 1;
            match &p.net {
                Some(NetSlice::Ipv4(ip)) => {
                    let h = ip.header();
                    assert_eq!(h.header_checksum(), h.to_header().calc_header_checksum(), "{what}: IPv4 header checksum");
                    n.ipv4_headers += 1;
                }
                Some(NetSlice::Ipv6(_)) => {}
                other => panic!("{what}: etherparse sees no IP packet: {other:?}"),
            }
            let l4 = l4_sum(&p).unwrap_or_else(|| panic!("{what}: etherparse sees no TCP or UDP it can sum: {:?}", p.transport));
            if l4.udp {
                assert_eq!(l4.in_frame, l4.computed, "{what}: UDP checksum");
                n.udp += 1;
            } else {
                // a generic checksum that computes to 0 is sent as 0xffff (Linux's
                // skb_checksum_help); the same value in one's complement
                let generic_zero = r.kind == Some(OffloadKind::Generic) && l4.computed == 0 && l4.in_frame == 0xffff;
                assert!(l4.in_frame == l4.computed || generic_zero, "{what}: TCP checksum {:#06x}, etherparse computes {:#06x}", l4.in_frame, l4.computed);
                n.tcp += 1;
            }
        }
    }
    // every kind of frame was judged, many times
    assert!(n.ipv4_headers > 200 && n.tcp > 200 && n.udp > 100 && n.tso_segments > 500, "too little judged: {n:?}");
}

/// The receive model's checksum verdicts (`rxclass::classify`) on random RX traffic
/// (`rxgen`, with bad checksums, lengths and headers mixed in), judged by etherparse:
/// wherever the model checked a checksum and etherparse parses the frame as IPv4 or
/// IPv6 with TCP or UDP, "good" must mean the checksum etherparse computes is the one in
/// the frame, and "bad" that it is not.
#[test]
fn rx_model_checksum_verdicts_agree_with_etherparse() {
    use nic_testbench::rxclass::{classify, RxClassConfig};
    use nic_testbench::rxgen::{random_frame, RxGenOptions};
    const GOOD: u8 = nic_regmap::desc::CSUM_GOOD;
    const BAD: u8 = nic_regmap::desc::CSUM_BAD;
    let cfg = RxClassConfig::reset_default(4);
    let opts = RxGenOptions { p_bad_l3_csum: 0.2, p_bad_l4_csum: 0.2, ..RxGenOptions::default() };
    let mut rng = StdRng::seed_from_u64(0x0e7e_4a26);
    let (mut l3, mut l4, mut bad) = (0usize, 0usize, 0usize);
    for i in 0..4000 {
        let frame = fcs::padded(&random_frame(&mut rng, &opts));
        let m = classify(&cfg, &frame);
        let Ok(p) = SlicedPacket::from_ethernet(&frame) else { continue };
        let what = format!("frame {i} ({} bytes): model l3 {} l4 {}", frame.len(), m.l3_csum, m.l4_csum);
        match &p.net {
            Some(NetSlice::Ipv4(ip)) => {
                let h = ip.header();
                if m.l3_csum == GOOD || m.l3_csum == BAD {
                    let ok = h.header_checksum() == h.to_header().calc_header_checksum();
                    assert_eq!(m.l3_csum == GOOD, ok, "{what}: IPv4 header checksum");
                    l3 += 1;
                    bad += usize::from(!ok);
                }
            }
            Some(NetSlice::Ipv6(_)) => {}
            _ => continue,
        }
        if m.l4_csum != GOOD && m.l4_csum != BAD {
            continue;
        }
        let Some(sum) = l4_sum(&p) else { continue };
        // a zero UDP checksum over IPv4 means "none sent"
        let ok = sum.in_frame == sum.computed || (sum.udp && sum.ipv4 && sum.in_frame == 0);
        assert_eq!(m.l4_csum == GOOD, ok, "{what}: TCP/UDP checksum {sum:?}");
        l4 += 1;
        bad += usize::from(!ok);
    }
    assert!(l3 > 500 && l4 > 500 && bad > 100, "too little judged: {l3} IPv4 headers, {l4} TCP/UDP checksums, {bad} bad ones");
}
