//! The RX classification golden model (`rxclass`) against docs/rx-classification.md,
//! rule by rule, on real frames built with the `wire` views (through `rxgen`'s frame
//! specs), plus the Microsoft RSS suite, the multicast hash against independent values,
//! and randomized runs of the generator checked against what each frame spec implies.

use nic_testbench::crc;
use nic_testbench::rxclass::{self, classify, csum, drop_reason, hash_type, ptype, rss_type, MacFilterEntry, RxClassConfig, RxMeta};
use nic_testbench::rxgen::{self, Fault, L3Spec, L4Spec, RxFrameSpec, RxGenOptions};
use nic_testbench::toeplitz;
use nic_testbench::wire::ip::protocol;
use nic_testbench::wire::tcp::flags;
use nic_testbench::wire::{Ipv4Packet, Ipv4Repr, Ipv6ExtHeaderRepr, Ipv6Packet, Ipv6Repr, TcpOption, TcpPacket, TcpRepr, UdpPacket, UdpRepr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const OUR: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];
const OTHER: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x99];
const BCAST: [u8; 6] = [0xff; 6];
const MCAST: [u8; 6] = [0x01, 0x00, 0x5e, 0x00, 0x00, 0x01];

fn v4_addrs() -> (Ipv4Addr, Ipv4Addr) {
    (Ipv4Addr::new(66, 9, 149, 187), Ipv4Addr::new(161, 142, 100, 80))
}
fn v6_addrs() -> (Ipv6Addr, Ipv6Addr) {
    ("3ffe:2501:200:1fff::7".parse().unwrap(), "3ffe:2501:200:3::1".parse().unwrap())
}

fn tcp(payload_len: usize) -> L4Spec {
    let repr = TcpRepr { src_port: 2794, dst_port: 1766, seq_number: 7, ack_number: 9, flags: flags::ACK | flags::PSH, window_len: 512, urgent_at: 0, options: Vec::new() };
    L4Spec::Tcp { repr, payload: (0..payload_len).map(|i| i as u8 ^ 0x5a).collect() }
}
fn udp(payload_len: usize) -> L4Spec {
    L4Spec::Udp { repr: UdpRepr { src_port: 2794, dst_port: 1766 }, payload: (0..payload_len).map(|i| i as u8 ^ 0x3c).collect() }
}

fn spec(l3: L3Spec) -> RxFrameSpec {
    RxFrameSpec { dst: OUR, src: OTHER, vlans: Vec::new(), l3, trailer: Vec::new(), dirty_padding: false, min_len: 60, fault: Fault::None }
}
fn v4(proto: u8, l4: L4Spec) -> RxFrameSpec {
    let (s, d) = v4_addrs();
    spec(L3Spec::Ipv4 { ip: Ipv4Repr::new(s, d, proto, 0), l4 })
}
fn v6(next: u8, ext: Option<Ipv6ExtHeaderRepr>, l4: L4Spec) -> RxFrameSpec {
    let (s, d) = v6_addrs();
    spec(L3Spec::Ipv6 { ip: Ipv6Repr::new(s, d, next, 0), ext, l4 })
}
fn v4_tcp() -> RxFrameSpec {
    v4(protocol::TCP, tcp(100))
}
fn v4_udp() -> RxFrameSpec {
    v4(protocol::UDP, udp(100))
}
fn v6_tcp() -> RxFrameSpec {
    v6(protocol::TCP, None, tcp(100))
}
fn v6_udp() -> RxFrameSpec {
    v6(protocol::UDP, None, udp(100))
}

fn reset() -> RxClassConfig {
    RxClassConfig::reset_default(8)
}

fn l3(m: &RxMeta) -> u16 {
    m.ptype & ptype::L3_MASK
}
fn l4(m: &RxMeta) -> u16 {
    m.ptype & ptype::L4_MASK
}
fn vlans(m: &RxMeta) -> u16 {
    (m.ptype & ptype::VLAN_MASK) >> ptype::VLAN_SHIFT
}
fn v4_tuple_hash(key: &[u8], ports: bool) -> u32 {
    let (s, d) = v4_addrs();
    toeplitz::hash(key, &toeplitz::ipv4_input(s, d, ports.then_some((2794, 1766))))
}
fn v6_tuple_hash(key: &[u8], ports: bool) -> u32 {
    let (s, d) = v6_addrs();
    toeplitz::hash(key, &toeplitz::ipv6_input(s, d, ports.then_some((2794, 1766))))
}

// ---------------------------------------------------------------- registers

#[test]
fn reset_values_and_register_words() {
    let c = reset();
    assert_eq!(c.filter_ctrl_word(), 0b101, "PROMISC | BROADCAST");
    assert_eq!(c.rss_types, 0x3f);
    assert_eq!(c.rss_key, toeplitz::DEFAULT_KEY);
    let k = c.rss_key_words();
    assert_eq!((k[0], k[9]), (0x6d5a_56da, 0xbeac_01fa), "key byte 4i in bits 31:24");
    let r = c.reta_words();
    assert_eq!((r[0], r[31]), (0x0302_0100, 0x7f7e_7d7c), "entry 4i in bits 7:0, reset entry j = j");
    assert!(c.exact.iter().all(|e| !e.enable));
    assert!(c.mcast_hash.iter().all(|&w| w == 0));

    let mut c = c;
    c.exact[3] = MacFilterEntry { addr: [0x52, 0x54, 0x00, 0x12, 0x34, 0x56], enable: true, steer: true, queue: 0xa5 };
    let (lo, hi) = c.mac_filter_words(3);
    assert_eq!(lo, 0x1200_5452, "byte 0 in bits 7:0");
    assert_eq!(hi, 0x80 << 24 | 0x40 << 24 | 0xa5 << 16 | 0x5634);
    assert_eq!(MacFilterEntry::from_words(lo, hi), c.exact[3]);
    assert_eq!(c.mac_filter_words(0), (0, 0));
    c.set_filter_ctrl_word(0b010);
    assert!(!c.promisc && c.allmulti && !c.broadcast);
    assert_eq!(c.filter_ctrl_word(), 0b010);
}

#[test]
fn completion_flags_layout() {
    let m = RxMeta { drop: 0, queue: 0, hash: 1, hash_type: hash_type::UDP_IPV6, l3_csum: csum::BAD, l4_csum: csum::GOOD, ptype: 0 };
    assert_eq!(m.completion_flags(), 1 << 15 | 1 | 2 << 2 | 1 << 4 | 6 << 6);
}

// ---------------------------------------------------------------- RSS

#[test]
fn microsoft_suite_through_classify() {
    let cfg = reset();
    for (f, hash, ty) in rxgen::ms_suite_frames() {
        let m = classify(&cfg, &f);
        assert_eq!((m.hash, m.hash_type), (hash, ty));
        assert_eq!(m.queue, (hash % 128) & 7);
        assert_eq!((m.l3_csum == csum::NOT_CHECKED, m.drop), (l3(&m) == ptype::L3_IPV6, 0));
    }
    // The "without ports" column also from TCP frames whose L4 types are disabled, and
    // the suite is unchanged under two VLAN tags.
    let cfg = RxClassConfig { rss_types: rss_type::IPV4 | rss_type::IPV6, ..reset() };
    for c in &toeplitz::MICROSOFT_IPV4 {
        let l4 = L4Spec::Tcp { repr: TcpRepr { src_port: c.src_port, dst_port: c.dst_port, seq_number: 0, ack_number: 0, flags: 0, window_len: 0, urgent_at: 0, options: vec![] }, payload: vec![] };
        let mut s = spec(L3Spec::Ipv4 { ip: Ipv4Repr::new(c.src.parse().unwrap(), c.dst.parse().unwrap(), protocol::TCP, 0), l4 });
        assert_eq!((classify(&cfg, &s.build()).hash, classify(&cfg, &s.build()).hash_type), (c.hash_ip, hash_type::IPV4));
        s.vlans = vec![(0x88a8, 100), (0x8100, 200)];
        let m = classify(&reset(), &s.build());
        assert_eq!((m.hash, m.hash_type, vlans(&m)), (c.hash_ip_tcp, hash_type::TCP_IPV4, 2));
    }
    for c in &toeplitz::MICROSOFT_IPV6 {
        let l4 = L4Spec::Udp { repr: UdpRepr { src_port: c.src_port, dst_port: c.dst_port }, payload: vec![1, 2, 3] };
        let mut s = spec(L3Spec::Ipv6 { ip: Ipv6Repr::new(c.src.parse().unwrap(), c.dst.parse().unwrap(), protocol::UDP, 0), ext: None, l4 });
        assert_eq!((classify(&cfg, &s.build()).hash, classify(&cfg, &s.build()).hash_type), (c.hash_ip, hash_type::IPV6));
        s.vlans = vec![(0x8100, 1)];
        let m = classify(&reset(), &s.build());
        assert_eq!((m.hash, m.hash_type, vlans(&m)), (c.hash_ip_tcp, hash_type::UDP_IPV6, 1));
    }
}

#[test]
fn hash_type_selection_per_enable_bit() {
    let key = toeplitz::DEFAULT_KEY;
    // (enabled types, expected type, ports hashed)
    type Row = (u8, u8, bool);
    let cases: [(RxFrameSpec, [Row; 3]); 4] = [
        (v4_tcp(), [(rss_type::ALL, hash_type::TCP_IPV4, true), (rss_type::ALL & !rss_type::TCP_IPV4, hash_type::IPV4, false), (rss_type::TCP_IPV4 | rss_type::UDP_IPV4 | rss_type::IPV6, hash_type::TCP_IPV4, true)]),
        (v4_udp(), [(rss_type::ALL, hash_type::UDP_IPV4, true), (rss_type::ALL & !rss_type::UDP_IPV4, hash_type::IPV4, false), (rss_type::ALL & !(rss_type::UDP_IPV4 | rss_type::IPV4), hash_type::NONE, false)]),
        (v6_tcp(), [(rss_type::ALL, hash_type::TCP_IPV6, true), (rss_type::IPV6, hash_type::IPV6, false), (rss_type::IPV4 | rss_type::TCP_IPV4, hash_type::NONE, false)]),
        (v6_udp(), [(rss_type::ALL, hash_type::UDP_IPV6, true), (rss_type::IPV6 | rss_type::TCP_IPV6, hash_type::IPV6, false), (rss_type::UDP_IPV6, hash_type::UDP_IPV6, true)]),
    ];
    for (s, rows) in cases {
        let f = s.build();
        for (types, ty, ports) in rows {
            let cfg = RxClassConfig { rss_types: types, ..reset() };
            let m = classify(&cfg, &f);
            let want = match ty {
                hash_type::NONE => 0,
                hash_type::IPV4 | hash_type::TCP_IPV4 | hash_type::UDP_IPV4 => v4_tuple_hash(&key, ports),
                _ => v6_tuple_hash(&key, ports),
            };
            assert_eq!((m.hash_type, m.hash), (ty, want), "types {types:#x}");
            if ty == hash_type::NONE {
                assert_eq!(m.queue, 0, "type NONE goes to queue 0");
            }
        }
    }
}

#[test]
fn reta_lookup_and_queue_mask() {
    let mut cfg = reset();
    let f = v4_tcp().build();
    let h = v4_tuple_hash(&toeplitz::DEFAULT_KEY, true);
    for (i, e) in cfg.reta.iter_mut().enumerate() {
        *e = (i as u8).wrapping_mul(37).wrapping_add(200);
    }
    for q in [1u32, 2, 4, 16, 64, 256] {
        cfg.queues = q;
        let m = classify(&cfg, &f);
        assert_eq!(m.queue, u32::from(cfg.reta[(h & 127) as usize]) & (q - 1), "{q} queues");
    }
    // another key changes hash and queue the same way
    let mut k = [0u8; 40];
    k.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8 * 3 + 1);
    cfg.rss_key = k;
    cfg.queues = 64;
    let m = classify(&cfg, &f);
    let h = v4_tuple_hash(&k, true);
    assert_eq!((m.hash, m.queue), (h, u32::from(cfg.reta[(h % 128) as usize]) & 63));
}

// ---------------------------------------------------------------- MAC filter

fn filtered(promisc: bool, allmulti: bool, broadcast: bool) -> RxClassConfig {
    let mut c = reset();
    c.promisc = promisc;
    c.allmulti = allmulti;
    c.broadcast = broadcast;
    c
}

fn drop_of(cfg: &RxClassConfig, dst: [u8; 6]) -> u8 {
    let mut s = v4_udp();
    s.dst = dst;
    classify(cfg, &s.build()).drop
}

#[test]
fn filter_decision_order() {
    // 1. PROMISC accepts everything
    let c = filtered(true, false, false);
    for d in [OUR, OTHER, BCAST, MCAST] {
        assert_eq!(drop_of(&c, d), drop_reason::ACCEPT);
    }
    // 2. broadcast: BROADCAST only, even with ALLMULTI and an exact entry for ff:..:ff
    let mut c = filtered(false, true, false);
    c.exact[0] = MacFilterEntry { addr: BCAST, enable: true, steer: false, queue: 0 };
    c.add_mcast_hash(&BCAST);
    assert_eq!(drop_of(&c, BCAST), drop_reason::BROADCAST_REJECTED);
    c.broadcast = true;
    assert_eq!(drop_of(&c, BCAST), drop_reason::ACCEPT);
    // 3. multicast: ALLMULTI, exact hit, or hash bit
    let mut c = filtered(false, false, true);
    assert_eq!(drop_of(&c, MCAST), drop_reason::MULTICAST_MISS);
    c.allmulti = true;
    assert_eq!(drop_of(&c, MCAST), drop_reason::ACCEPT);
    c.allmulti = false;
    c.exact[7] = MacFilterEntry { addr: MCAST, enable: true, steer: false, queue: 0 };
    assert_eq!(drop_of(&c, MCAST), drop_reason::ACCEPT);
    c.exact[7].enable = false;
    assert_eq!(drop_of(&c, MCAST), drop_reason::MULTICAST_MISS);
    c.add_mcast_hash(&MCAST);
    assert_eq!(drop_of(&c, MCAST), drop_reason::ACCEPT);
    // the hash table does not apply to unicast, ALLMULTI neither
    let mut c = filtered(false, true, true);
    c.add_mcast_hash(&OUR);
    assert_eq!(drop_of(&c, OUR), drop_reason::UNICAST_MISS);
    // 4. unicast: exact entries only, enabled ones
    c.exact[15] = MacFilterEntry { addr: OUR, enable: false, steer: false, queue: 0 };
    assert_eq!(drop_of(&c, OUR), drop_reason::UNICAST_MISS);
    c.exact[15].enable = true;
    assert_eq!(drop_of(&c, OUR), drop_reason::ACCEPT);
    assert_eq!(drop_of(&c, OTHER), drop_reason::UNICAST_MISS);
    // a multicast-looking entry does not make its unicast twin hit
    let mut twin = MCAST;
    twin[0] &= !1;
    assert_eq!(drop_of(&c, twin), drop_reason::UNICAST_MISS);
}

#[test]
fn filter_works_on_the_destination_alone() {
    // a rejected frame still gets its hash and checksum verdicts; frames of 6..14 bytes
    // are judged on their destination; below 6 bytes the MAC's runt verdict stands.
    let c = filtered(false, false, false);
    let m = classify(&c, &v4_tcp().build());
    assert_eq!((m.drop, m.hash_type, m.l3_csum, m.l4_csum), (drop_reason::UNICAST_MISS, hash_type::TCP_IPV4, csum::GOOD, csum::GOOD));
    assert_eq!(classify(&c, &BCAST).drop, drop_reason::BROADCAST_REJECTED);
    assert_eq!(classify(&c, &MCAST[..]).drop, drop_reason::MULTICAST_MISS);
    for n in 0..6 {
        let m = classify(&c, &OTHER[..n]);
        assert_eq!((m.drop, m.queue, m.hash_type), (drop_reason::ACCEPT, 0, hash_type::NONE));
        assert_eq!(m.ptype, ptype::MALFORMED);
    }
}

#[test]
fn steering() {
    let mut c = filtered(false, false, true);
    c.queues = 4;
    let frame = |d: [u8; 6]| {
        let mut s = v4_tcp();
        s.dst = d;
        s.build()
    };
    let rss = classify(&RxClassConfig { queues: 4, ..reset() }, &frame(OUR));
    // steering entry: its queue (masked), hash still reported
    c.exact[5] = MacFilterEntry { addr: OUR, enable: true, steer: true, queue: 6 };
    let m = classify(&c, &frame(OUR));
    assert_eq!((m.drop, m.queue, m.hash, m.hash_type), (0, 6 & 3, rss.hash, rss.hash_type));
    // the lowest index that hits decides: a non-steering entry 2 for the same address
    c.exact[2] = MacFilterEntry { addr: OUR, enable: true, steer: false, queue: 1 };
    assert_eq!(classify(&c, &frame(OUR)).queue, rss.queue);
    // ... but not a disabled one
    c.exact[2].enable = false;
    assert_eq!(classify(&c, &frame(OUR)).queue, 2);
    // a lower steering entry wins over a higher one
    c.exact[1] = MacFilterEntry { addr: OUR, enable: true, steer: true, queue: 1 };
    assert_eq!(classify(&c, &frame(OUR)).queue, 1);
    // steering applies whatever accepted the frame: PROMISC, ALLMULTI, the hash
    let mut c = filtered(true, false, false);
    c.queues = 8;
    c.exact[9] = MacFilterEntry { addr: OTHER, enable: true, steer: true, queue: 5 };
    assert_eq!(classify(&c, &frame(OTHER)).queue, 5);
    c.exact[9].addr = MCAST;
    c.promisc = false;
    c.allmulti = true;
    assert_eq!(classify(&c, &frame(MCAST)).queue, 5);
    // frames without a hash (non-IP) are steered too
    let mut s = spec(L3Spec::Other { ethertype: 0x0806, payload: vec![0; 28] });
    s.dst = MCAST;
    let m = classify(&c, &s.build());
    assert_eq!((m.queue, m.hash_type, m.hash), (5, hash_type::NONE, 0));
    // without steering, RSS decides and NONE goes to queue 0
    c.exact[9].steer = false;
    assert_eq!(classify(&c, &s.build()).queue, 0);
}

#[test]
fn multicast_hash_index_independent_values() {
    // crc32 & 0xfff, values from Python's zlib.crc32 (an implementation independent of
    // crc.rs): address, crc32, register, bit.
    let known: [([u8; 6], u32, usize, u32); 6] = [
        ([0x01, 0x00, 0x5e, 0x00, 0x00, 0x01], 0x264b_3a01, 80, 1),
        ([0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa], 0xc0ad_c38a, 28, 10),
        ([0x33, 0x33, 0x00, 0x00, 0x00, 0x01], 0xa2aa_2660, 51, 0),
        ([0x33, 0x33, 0xff, 0x00, 0x00, 0x01], 0x7caf_2091, 4, 17),
        ([0x01, 0x80, 0xc2, 0x00, 0x00, 0x00], 0x173c_e419, 32, 25),
        ([0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 0x41d9_ed00, 104, 0),
    ];
    for (a, c, word, bit) in known {
        assert_eq!(crc::crc32(&a), c);
        assert_eq!(crc::crc32_bitwise(&a), c);
        assert_eq!(rxclass::mcast_hash_index(&a), (c & 0xfff) as u16);
        assert_eq!(rxclass::mcast_hash_index(&a) as usize, word * 32 + bit as usize);
        let mut cfg = filtered(false, false, true);
        cfg.mcast_hash[word] = 1 << bit;
        assert!(cfg.mcast_hash_bit(&a));
        if a != BCAST {
            assert_eq!(drop_of(&cfg, a), drop_reason::ACCEPT, "{a:02x?}");
            cfg.mcast_hash[word] = !(1 << bit);
            assert_eq!(drop_of(&cfg, a), drop_reason::MULTICAST_MISS, "{a:02x?}");
        }
    }
}

/// Linux's `ether_crc_le` (lib/crc32 `crc32_le(~0, addr, 6)`, no final inversion), written
/// out bit by bit as include/linux/etherdevice.h users compute it.
fn ether_crc_le(addr: &[u8; 6]) -> u32 {
    let mut crc: u32 = !0;
    for &b in addr {
        let mut octet = b;
        for _ in 0..8 {
            let carry = (crc ^ u32::from(octet)) & 1;
            crc >>= 1;
            if carry != 0 {
                crc ^= 0xedb8_8320;
            }
            octet >>= 1;
        }
    }
    crc
}

#[test]
fn multicast_hash_index_matches_linux_ether_crc_le() {
    let mut rng = StdRng::seed_from_u64(21);
    for _ in 0..2000 {
        let mut a: [u8; 6] = rng.gen();
        a[0] |= 1;
        assert_eq!(crc::crc32(&a), !ether_crc_le(&a));
        assert_eq!(u32::from(rxclass::mcast_hash_index(&a)), !ether_crc_le(&a) & 0xfff);
    }
}

// ---------------------------------------------------------------- parser

#[test]
fn vlan_tags() {
    for (tags, tpids) in [(0usize, vec![]), (1, vec![0x8100]), (1, vec![0x88a8]), (2, vec![0x88a8, 0x8100]), (2, vec![0x8100, 0x8100]), (2, vec![0x88a8, 0x88a8])] {
        let mut s = v4_tcp();
        s.vlans = tpids.iter().map(|&t| (t, 0x2064)).collect();
        let m = classify(&reset(), &s.build());
        assert_eq!(vlans(&m) as usize, tags);
        assert_eq!((l3(&m), l4(&m), m.hash_type, m.l3_csum, m.l4_csum), (ptype::L3_IPV4, ptype::L4_TCP, hash_type::TCP_IPV4, csum::GOOD, csum::GOOD));
        assert_eq!(m.ptype & ptype::MALFORMED, 0);
    }
    // a third tag is not parsed: other L3, two tags, not malformed
    let mut s = v6_udp();
    s.vlans = vec![(0x88a8, 1), (0x8100, 2), (0x8100, 3)];
    let m = classify(&reset(), &s.build());
    assert_eq!((l3(&m), l4(&m), vlans(&m), m.ptype & ptype::MALFORMED), (ptype::L3_OTHER, ptype::L4_NONE, 2, 0));
    assert_eq!((m.hash_type, m.l3_csum, m.l4_csum), (hash_type::NONE, csum::NOT_CHECKED, csum::NOT_CHECKED));
    // a frame too short for its tags is truncated
    let mut s = v4_tcp();
    s.vlans = vec![(0x8100, 1), (0x8100, 2)];
    let f = s.build();
    for n in [14usize, 15, 17, 18, 19, 21] {
        let m = classify(&reset(), &f[..n]);
        assert_eq!((l3(&m), m.ptype & ptype::MALFORMED), (ptype::L3_OTHER, ptype::MALFORMED), "{n} bytes");
        assert_eq!(vlans(&m), if n < 18 { 1 } else { 2 });
    }
    // with the tags complete, IPv4 is announced but its header missing
    let m = classify(&reset(), &f[..22]);
    assert_eq!((l3(&m), m.ptype & ptype::MALFORMED, vlans(&m)), (ptype::L3_IPV4, ptype::MALFORMED, 2));
    // shorter than an Ethernet header
    for n in 6..14 {
        assert_eq!(classify(&reset(), &f[..n]).ptype, ptype::MALFORMED);
    }
}

#[test]
fn other_ethertypes() {
    for t in [0x0806u16, 0x88b5, 0x88cc, 0x0801, 0x86dc, 0x9100] {
        let m = classify(&reset(), &spec(L3Spec::Other { ethertype: t, payload: vec![0x45; 80] }).build());
        assert_eq!((m.ptype, m.hash_type, m.hash, m.queue, m.l3_csum, m.l4_csum), (0, 0, 0, 0, 0, 0), "{t:#06x}");
    }
}

#[test]
fn ipv4_options_every_length() {
    for words in 0..=10usize {
        for (proto, l4s) in [(protocol::TCP, tcp(33)), (protocol::UDP, udp(7))] {
            let mut s = v4(proto, l4s);
            if let L3Spec::Ipv4 { ip, .. } = &mut s.l3 {
                ip.options = vec![1; words * 4]; // No-Operation options
                if words > 0 {
                    ip.options[..4].copy_from_slice(&[0x94, 0x04, 0x00, 0x00]);
                }
            }
            let (f, at) = s.build_with_layout();
            assert_eq!(at.l4 - at.l3, 20 + 4 * words);
            let m = classify(&reset(), &f);
            let ty = if proto == protocol::TCP { hash_type::TCP_IPV4 } else { hash_type::UDP_IPV4 };
            assert_eq!((m.l3_csum, m.l4_csum, m.hash_type, m.hash), (csum::GOOD, csum::GOOD, ty, v4_tuple_hash(&toeplitz::DEFAULT_KEY, true)), "{words} option words");
            assert_eq!(m.ptype & !ptype::L4_MASK, ptype::L3_IPV4);
            // the header checksum covers the options
            let mut g = f.clone();
            if words > 0 {
                g[at.l3 + 21] ^= 0x10;
                let m = classify(&reset(), &g);
                assert_eq!((m.l3_csum, m.l4_csum), (csum::BAD, csum::GOOD));
            }
        }
    }
}

#[test]
fn tcp_options_via_data_offset() {
    let opts = TcpOption::emit_all(&[TcpOption::MaxSegmentSize(1460), TcpOption::SackPermitted, TcpOption::Timestamps(1, 2), TcpOption::NoOp, TcpOption::WindowScale(7)]);
    for n in [0usize, 4, 20, opts.len(), 40] {
        let mut o = opts.clone();
        o.resize(n, 1);
        let repr = TcpRepr { src_port: 2794, dst_port: 1766, seq_number: 1, ack_number: 2, flags: flags::SYN, window_len: 1, urgent_at: 0, options: o };
        let f = v4(protocol::TCP, L4Spec::Tcp { repr, payload: vec![9; 5] }).build();
        let m = classify(&reset(), &f);
        assert_eq!((l4(&m), m.l4_csum, m.hash_type), (ptype::L4_TCP, csum::GOOD, hash_type::TCP_IPV4), "{n} option bytes");
    }
}

#[test]
fn fragments_hash_l3_only() {
    let key = toeplitz::DEFAULT_KEY;
    // IPv4: MF, non-zero offset, both; DF alone is no fragment
    for (mf, off, frag) in [(true, 0u16, true), (false, 1, true), (true, 185, true), (false, 0x1fff, true), (false, 0, false)] {
        for (proto, l4s) in [(protocol::TCP, tcp(40)), (protocol::UDP, udp(40)), (protocol::ICMP, L4Spec::Raw { payload: vec![8; 40] })] {
            let mut s = v4(proto, l4s);
            if let L3Spec::Ipv4 { ip, .. } = &mut s.l3 {
                ip.more_frags = mf;
                ip.frag_offset = off;
                ip.dont_frag = false;
            }
            let m = classify(&reset(), &s.build());
            if frag {
                assert_eq!(m.ptype, ptype::L3_IPV4 | ptype::L4_NONE | ptype::FRAGMENT);
                assert_eq!((m.hash_type, m.hash), (hash_type::IPV4, v4_tuple_hash(&key, false)));
                assert_eq!((m.l3_csum, m.l4_csum), (csum::GOOD, csum::NOT_CHECKED));
            } else {
                assert_eq!(m.ptype & ptype::FRAGMENT, 0);
                assert_ne!(l4(&m), ptype::L4_NONE);
            }
        }
    }
    // a fragment with IPV4 disabled gets no hash, even with TCP_IPV4 enabled
    let mut s = v4_tcp();
    if let L3Spec::Ipv4 { ip, .. } = &mut s.l3 {
        ip.more_frags = true;
    }
    let m = classify(&RxClassConfig { rss_types: rss_type::ALL & !rss_type::IPV4, ..reset() }, &s.build());
    assert_eq!((m.hash_type, m.hash, m.queue), (hash_type::NONE, 0, 0));
    // IPv6 Fragment header: fragment and extension flags, IPV6 hash
    for off in [0u16, 100] {
        let m = classify(&reset(), &v6(protocol::IPV6_FRAG, Some(Ipv6ExtHeaderRepr::fragment(protocol::TCP, off, true, 1)), tcp(20)).build());
        assert_eq!(m.ptype, ptype::L3_IPV6 | ptype::L4_NONE | ptype::FRAGMENT | ptype::IPV6_EXT);
        assert_eq!((m.hash_type, m.hash), (hash_type::IPV6, v6_tuple_hash(&key, false)));
        assert_eq!((m.l3_csum, m.l4_csum), (csum::NOT_CHECKED, csum::NOT_CHECKED));
    }
}

#[test]
fn ipv6_extension_headers_are_not_walked() {
    let key = toeplitz::DEFAULT_KEY;
    for nh in [0u8, 43, 50, 51, 60, 135, 139, 140, 253, 254] {
        let ext = Ipv6ExtHeaderRepr { next_header: protocol::TCP, data: vec![1, 4, 0, 0, 0, 0] };
        let m = classify(&reset(), &v6(nh, Some(ext), tcp(30)).build());
        assert_eq!(m.ptype, ptype::L3_IPV6 | ptype::L4_OTHER | ptype::IPV6_EXT, "next header {nh}");
        assert_eq!((m.hash_type, m.hash), (hash_type::IPV6, v6_tuple_hash(&key, false)));
        assert_eq!(m.l4_csum, csum::NOT_CHECKED);
    }
    // not extension headers: other L4 without the flag
    for nh in [protocol::ICMPV6, protocol::IPV6_NONXT, protocol::GRE, protocol::SCTP, 4, 41] {
        let m = classify(&reset(), &v6(nh, None, L4Spec::Raw { payload: vec![0; 12] }).build());
        assert_eq!(m.ptype, ptype::L3_IPV6 | ptype::L4_OTHER, "next header {nh}");
        assert_eq!(m.hash_type, hash_type::IPV6);
    }
    // IPv4 other protocols, including IPv6 extension numbers (meaningless in IPv4)
    for p in [protocol::ICMP, protocol::GRE, 0, 44, 60, 255] {
        let m = classify(&reset(), &v4(p, L4Spec::Raw { payload: vec![0; 12] }).build());
        assert_eq!(m.ptype, ptype::L3_IPV4 | ptype::L4_OTHER, "protocol {p}");
        assert_eq!((m.hash_type, m.l3_csum, m.l4_csum), (hash_type::IPV4, csum::GOOD, csum::NOT_CHECKED));
    }
}

fn not_checked_malformed_ip(m: &RxMeta, l3_code: u16) {
    assert_eq!(m.ptype & !ptype::VLAN_MASK, l3_code | ptype::MALFORMED);
    assert_eq!((m.hash_type, m.hash, m.queue, m.l3_csum, m.l4_csum), (hash_type::NONE, 0, 0, csum::NOT_CHECKED, csum::NOT_CHECKED));
}

#[test]
fn malformed_ip_is_not_checked() {
    let (f, at) = v4_tcp().build_with_layout();
    let total = f.len() - at.l3;
    let edit = |g: &mut Vec<u8>, e: &dyn Fn(&mut Ipv4Packet<&mut [u8]>)| {
        let mut p = Ipv4Packet::new_unchecked(&mut g[at.l3..]);
        e(&mut p);
        p.fill_checksum();
    };
    // total length beyond the frame, by one byte: a frame within the header window is
    // malformed; a longer one (this one) is decided on its headers (cut-through) and
    // only loses its checksum verdicts
    assert!(f.len() > rxclass::HEADER_WINDOW);
    let mut g = f.clone();
    edit(&mut g, &|p| p.set_total_len(total as u16 + 1));
    let m = classify(&reset(), &g);
    assert_eq!((m.ptype, m.hash_type, m.l3_csum, m.l4_csum), (ptype::L3_IPV4 | ptype::L4_TCP, hash_type::TCP_IPV4, csum::NOT_CHECKED, csum::NOT_CHECKED));
    let (short, sat) = v4(protocol::TCP, tcp(20)).build_with_layout();
    assert!(short.len() <= rxclass::HEADER_WINDOW);
    let mut g = short.clone();
    let mut p = Ipv4Packet::new_unchecked(&mut g[sat.l3..]);
    p.set_total_len((short.len() - sat.l3) as u16 + 1);
    p.fill_checksum();
    not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV4);
    // total length below the header; at the header it is well-formed with no L4 bytes
    for t in [0u16, 19] {
        let mut g = f.clone();
        edit(&mut g, &|p| p.set_total_len(t));
        not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV4);
    }
    let mut g = f.clone();
    edit(&mut g, &|p| p.set_total_len(20));
    let m = classify(&reset(), &g);
    assert_eq!((m.ptype, m.l3_csum, m.l4_csum, m.hash_type), (ptype::L3_IPV4 | ptype::L4_TCP | ptype::MALFORMED, csum::GOOD, csum::NOT_CHECKED, hash_type::IPV4));
    // IHL below 5, IHL past the total length, version not 4
    for ihl in 0..5u8 {
        let mut g = f.clone();
        g[at.l3] = 0x40 | ihl;
        not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV4);
    }
    let mut g = f.clone();
    edit(&mut g, &|p| p.set_total_len(40));
    g[at.l3] = 0x4f; // 60 > 40
    not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV4);
    for v in [0u8, 5, 6, 15] {
        let mut g = f.clone();
        edit(&mut g, &|p| p.set_version(v));
        not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV4);
    }
    // every cut inside the IPv4 header
    for n in at.l3..at.l3 + 20 {
        not_checked_malformed_ip(&classify(&reset(), &f[..n]), ptype::L3_IPV4);
    }
    // IPv6: payload length 0, beyond the frame, version, cuts
    let (f, at) = v6_udp().build_with_layout();
    let plen = f.len() - at.l3 - 40;
    assert!(f.len() > rxclass::HEADER_WINDOW);
    for (pl, ok) in [(0u16, false), (1, true)] {
        let mut g = f.clone();
        Ipv6Packet::new_unchecked(&mut g[at.l3..]).set_payload_len(pl);
        let m = classify(&reset(), &g);
        if ok {
            // one byte: well-formed IPv6, malformed UDP
            assert_eq!(m.ptype, ptype::L3_IPV6 | ptype::L4_UDP | ptype::MALFORMED);
            assert_eq!(m.hash_type, hash_type::IPV6);
        } else {
            not_checked_malformed_ip(&m, ptype::L3_IPV6);
        }
    }
    let mut g = f.clone();
    Ipv6Packet::new_unchecked(&mut g[at.l3..]).set_first_word(4, 0, 0);
    not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV6);
    for n in at.l3..at.l3 + 40 {
        not_checked_malformed_ip(&classify(&reset(), &f[..n]), ptype::L3_IPV6);
    }
    // payload beyond the frame: malformed within the header window; past it, decided
    // on the headers with no checksum verdicts (cut-through)
    for pl in [plen as u16 + 1, 0xffff] {
        let mut g = f.clone();
        Ipv6Packet::new_unchecked(&mut g[at.l3..]).set_payload_len(pl);
        let m = classify(&reset(), &g);
        // (the UDP length no longer matches the payload length: a malformed UDP header)
        assert_eq!((m.ptype, m.hash_type, m.l4_csum), (ptype::L3_IPV6 | ptype::L4_UDP | ptype::MALFORMED, hash_type::IPV6, csum::NOT_CHECKED), "payload length {pl}");
    }
    let (short, sat) = v6(protocol::UDP, None, udp(8)).build_with_layout();
    assert!(short.len() <= rxclass::HEADER_WINDOW);
    let mut g = short.clone();
    Ipv6Packet::new_unchecked(&mut g[sat.l3..]).set_payload_len((short.len() - sat.l3 - 40) as u16 + 1);
    not_checked_malformed_ip(&classify(&reset(), &g), ptype::L3_IPV6);
    // a cut between header and end of payload
    not_checked_malformed_ip(&classify(&reset(), &short[..short.len() - 1]), ptype::L3_IPV6);
    let m = classify(&reset(), &f[..f.len() - 1]);
    assert_eq!((m.ptype, m.l4_csum), (ptype::L3_IPV6 | ptype::L4_UDP, csum::NOT_CHECKED));
}

#[test]
fn malformed_l4_keeps_its_code_and_l3_hash() {
    let key = toeplitz::DEFAULT_KEY;
    // TCP: data offset below 5 or past the segment; segment shorter than 20
    let (f, at) = v4(protocol::TCP, tcp(8)).build_with_layout(); // 28-byte segment
    for doff in [0usize, 4, 8, 15] {
        let mut g = f.clone();
        g[at.l4 + 12] = (doff as u8) << 4;
        let m = classify(&reset(), &g);
        assert_eq!(m.ptype, ptype::L3_IPV4 | ptype::L4_TCP | ptype::MALFORMED, "data offset {doff}");
        assert_eq!((m.l3_csum, m.l4_csum, m.hash_type, m.hash), (csum::GOOD, csum::NOT_CHECKED, hash_type::IPV4, v4_tuple_hash(&key, false)));
    }
    let mut g = f.clone();
    g[at.l4 + 12] = 7 << 4; // 28 bytes: exactly the segment, well-formed
    let m = classify(&reset(), &g);
    assert_eq!((m.ptype, m.l4_csum), (ptype::L3_IPV4 | ptype::L4_TCP, csum::BAD)); // header changed, checksum not refilled
    TcpPacket::new_unchecked(&mut g[at.l4..at.ip_end]).fill_checksum(IpAddr::V4(v4_addrs().0), IpAddr::V4(v4_addrs().1));
    assert_eq!(classify(&reset(), &g).l4_csum, csum::GOOD);
    for seg in [0usize, 1, 8, 19] {
        let (s, d) = v4_addrs();
        let mut ip = Ipv4Repr::new(s, d, protocol::TCP, seg);
        ip.ident = 1;
        let mut b = vec![0u8; 14 + 20 + seg];
        b[12..14].copy_from_slice(&[0x08, 0x00]);
        ip.emit(&mut Ipv4Packet::new_unchecked(&mut b[14..]));
        b[34..].iter_mut().for_each(|x| *x = 0x50);
        b.resize(60, 0);
        let m = classify(&reset(), &b);
        assert_eq!((m.ptype, m.l4_csum, m.hash_type), (ptype::L3_IPV4 | ptype::L4_TCP | ptype::MALFORMED, csum::NOT_CHECKED, hash_type::IPV4), "{seg}-byte segment");
    }
    // UDP: length field must equal the IP's L4 length
    for (s, ty, l3c) in [(v4_udp(), hash_type::IPV4, ptype::L3_IPV4), (v6_udp(), hash_type::IPV6, ptype::L3_IPV6)] {
        let (f, at) = s.build_with_layout();
        let seg = (at.ip_end - at.l4) as u16;
        for len in [0u16, 7, 8, seg - 1, seg + 1, 0xffff] {
            let mut g = f.clone();
            UdpPacket::new_unchecked(&mut g[at.l4..]).set_len(len);
            let m = classify(&reset(), &g);
            assert_eq!(m.ptype, l3c | ptype::L4_UDP | ptype::MALFORMED, "UDP length {len}");
            assert_eq!((m.l4_csum, m.hash_type), (csum::NOT_CHECKED, ty));
        }
    }
}

#[test]
fn udp_zero_checksum() {
    for (s, want, ty) in [(v4_udp(), csum::NOT_CHECKED, hash_type::UDP_IPV4), (v6_udp(), csum::BAD, hash_type::UDP_IPV6)] {
        let mut s = s;
        s.fault = Fault::UdpZeroChecksum;
        let m = classify(&reset(), &s.build());
        assert_eq!((m.l4_csum, m.hash_type, l4(&m)), (want, ty, ptype::L4_UDP));
        assert_eq!(m.ptype & ptype::MALFORMED, 0);
    }
    // 0xffff is a checksum (a computed 0), not "none": it verifies when it is right
    let (s, d) = v4_addrs();
    let mut f = v4(protocol::UDP, udp(4)).build_with_layout();
    let at = f.1;
    let c = UdpPacket::new_unchecked(&f.0[at.l4..at.ip_end]).checksum();
    // adding the checksum c = !sum to a payload word makes the sum all ones, so the
    // computed checksum is 0 and goes out as 0xffff
    {
        let g = &mut f.0;
        let p = &mut g[at.l4 + 8..at.l4 + 10];
        let w = u16::from_be_bytes([p[0], p[1]]);
        let nw = nic_testbench::checksum::fold(u32::from(w) + u32::from(c));
        p.copy_from_slice(&nw.to_be_bytes());
        UdpPacket::new_unchecked(&mut g[at.l4..at.ip_end]).fill_checksum(s.into(), d.into());
    }
    assert_eq!(UdpPacket::new_unchecked(&f.0[at.l4..at.ip_end]).checksum(), 0xffff);
    assert_eq!(classify(&reset(), &f.0).l4_csum, csum::GOOD);
}

#[test]
fn bad_checksums_are_reported() {
    for (s, l3_ok) in [(v4_tcp(), true), (v4_udp(), true), (v6_tcp(), false), (v6_udp(), false)] {
        let base = classify(&reset(), &s.build());
        assert_eq!((base.l3_csum, base.l4_csum), (if l3_ok { csum::GOOD } else { csum::NOT_CHECKED }, csum::GOOD));
        let mut b = s.clone();
        b.fault = Fault::BadL4Checksum;
        let m = classify(&reset(), &b.build());
        assert_eq!((m.l3_csum, m.l4_csum, m.drop, m.hash_type), (base.l3_csum, csum::BAD, 0, base.hash_type));
        if l3_ok {
            let mut b = s.clone();
            b.fault = Fault::BadL3Checksum;
            let m = classify(&reset(), &b.build());
            assert_eq!((m.l3_csum, m.l4_csum, m.hash_type, m.ptype), (csum::BAD, csum::GOOD, base.hash_type, base.ptype));
        }
        // a flipped payload bit, pseudo-header fields (addresses), protocol
        let (mut f, at) = s.build_with_layout();
        f[at.ip_end - 1] ^= 0x80;
        assert_eq!(classify(&reset(), &f).l4_csum, csum::BAD);
        let (mut f, at) = s.build_with_layout();
        let src_at = if l3_ok { at.l3 + 12 } else { at.l3 + 8 };
        f[src_at + 3] ^= 1;
        if l3_ok {
            Ipv4Packet::new_unchecked(&mut f[at.l3..]).fill_checksum();
        }
        let m = classify(&reset(), &f);
        assert_eq!((m.l3_csum, m.l4_csum), (base.l3_csum, csum::BAD));
    }
}

#[test]
fn ethernet_padding_and_trailers_are_ignored() {
    for s in [v4(protocol::TCP, tcp(0)), v4(protocol::UDP, udp(0)), v6(protocol::UDP, None, udp(0)), v4_tcp(), v6_tcp()] {
        let clean = classify(&reset(), &s.build());
        for (trailer, dirty) in [(vec![], true), (vec![0xff; 7], false), (vec![0x12, 0x34, 0x56], true)] {
            let mut t = s.clone();
            t.trailer = trailer;
            t.dirty_padding = dirty;
            let f = t.build();
            assert!(f.len() >= 60);
            assert_eq!(classify(&reset(), &f), clean);
        }
    }
    // a minimal UDP/IPv4 frame: 14 + 20 + 8 = 42 bytes, 18 of padding
    let (f, at) = v4(protocol::UDP, udp(0)).build_with_layout();
    assert_eq!((f.len(), at.ip_end), (60, 42));
}

// ---------------------------------------------------------------- robustness

#[test]
fn any_bytes_any_length() {
    let mut rng = StdRng::seed_from_u64(31);
    let cfgs: Vec<RxClassConfig> = (0..4).map(|i| rxgen::random_config(&mut rng, 1 << i)).chain([reset()]).collect();
    // every prefix of a few real frames
    let frames = [v4_tcp().build(), v6_udp().build(), v6(0, Some(Ipv6ExtHeaderRepr { next_header: 6, data: vec![0; 6] }), tcp(3)).build()];
    for f in &frames {
        for n in 0..=f.len() {
            for c in &cfgs {
                check_invariants(c, &f[..n]);
            }
        }
    }
    // random bytes of every length up to 300, then long ones up to jumbo
    for len in (0..300).chain([1514, 1518, 9018, 9022, 16000]) {
        let mut f = vec![0u8; len];
        rng.fill(&mut f[..]);
        if len >= 14 && rng.gen_bool(0.7) {
            f[12..14].copy_from_slice(&[[0x08, 0x00], [0x86, 0xdd], [0x81, 0x00], [0x88, 0xa8]][len % 4]);
        }
        for c in &cfgs {
            check_invariants(c, &f);
        }
    }
    // a jumbo TCP segment
    let j = v4(protocol::TCP, tcp(9000 - 40)).build();
    assert_eq!(j.len(), 9014);
    let m = classify(&reset(), &j);
    assert_eq!((m.l3_csum, m.l4_csum, m.hash_type), (csum::GOOD, csum::GOOD, hash_type::TCP_IPV4));
}

fn check_invariants(cfg: &RxClassConfig, f: &[u8]) -> RxMeta {
    let m = classify(cfg, f);
    assert!(m.queue < cfg.queues.max(1));
    assert!(m.drop <= 3 && m.hash_type <= 6 && m.l3_csum <= 2 && m.l4_csum <= 2 && m.ptype < 1 << 9);
    if m.hash_type == hash_type::NONE {
        assert_eq!(m.hash, 0);
    }
    if cfg.promisc || f.len() < 6 {
        assert_eq!(m.drop, 0);
    }
    if m.ptype & ptype::L3_MASK != ptype::L3_IPV4 {
        assert_eq!(m.l3_csum, csum::NOT_CHECKED);
    }
    assert_eq!(m, classify(cfg, f), "deterministic");
    m
}

/// What docs/rx-classification.md says about a generated frame, derived from its spec
/// (not from the parser): (ptype, l3 verdict, l4 verdict, hash type) under the reset
/// configuration. None for truncated frames, which are only checked for invariants.
fn expected(s: &RxFrameSpec, frame_len: usize) -> Option<(u16, u8, u8, u8)> {
    if let Fault::Truncate(_) = s.fault {
        return None;
    }
    let tags = s.vlans.len().min(2) as u16;
    let vl = tags << ptype::VLAN_SHIFT;
    if s.vlans.len() > 2 {
        return Some((vl, 0, 0, 0));
    }
    let (v4, l4spec) = match &s.l3 {
        L3Spec::Other { .. } => return Some((vl, 0, 0, 0)),
        L3Spec::Ipv4 { l4, .. } => (true, l4),
        L3Spec::Ipv6 { l4, .. } => (false, l4),
    };
    let l3c = if v4 { ptype::L3_IPV4 } else { ptype::L3_IPV6 };
    let ip_ty = if v4 { hash_type::IPV4 } else { hash_type::IPV6 };
    if matches!(s.fault, Fault::IpLenTooLong { .. }) && frame_len > rxclass::HEADER_WINDOW {
        // cut-through: decided on the headers, which are fine; the end of the frame only
        // takes the checksum verdicts away
        // takes the checksum verdicts away; a UDP length no longer matches the IP length
        let fine = RxFrameSpec { fault: Fault::None, ..s.clone() };
        let ip_ty = if matches!(s.l3, L3Spec::Ipv4 { .. }) { hash_type::IPV4 } else { hash_type::IPV6 };
        return expected(&fine, frame_len).map(|(p, _, _, ty)| if p & ptype::L4_MASK == ptype::L4_UDP { (p | ptype::MALFORMED, 0, 0, ip_ty) } else { (p, 0, 0, ty) });
    }
    if matches!(s.fault, Fault::IpLenTooLong { .. } | Fault::IpLenTooShort { .. } | Fault::BadIpHeader { .. }) {
        return Some((vl | l3c | ptype::MALFORMED, 0, 0, 0));
    }
    let l3v = if !v4 {
        csum::NOT_CHECKED
    } else if s.fault == Fault::BadL3Checksum {
        csum::BAD
    } else {
        csum::GOOD
    };
    let mut p = vl | l3c;
    let next = match &s.l3 {
        L3Spec::Ipv6 { ip, .. } => ip.next_header,
        _ => s.l4_protocol().unwrap(),
    };
    if !v4 && nic_testbench::wire::ip::is_ipv6_extension_header(next) {
        p |= ptype::IPV6_EXT;
    }
    if s.is_fragment() {
        return Some((p | ptype::FRAGMENT, l3v, 0, ip_ty));
    }
    let direct = v4 || !nic_testbench::wire::ip::is_ipv6_extension_header(next);
    match (l4spec, direct) {
        (L4Spec::Tcp { .. } | L4Spec::Udp { .. }, true) => {
            let is_tcp = matches!(l4spec, L4Spec::Tcp { .. });
            p |= if is_tcp { ptype::L4_TCP } else { ptype::L4_UDP };
            if let Fault::BadL4Length { .. } = s.fault {
                return Some((p | ptype::MALFORMED, l3v, 0, ip_ty));
            }
            let l4v = match s.fault {
                Fault::BadL4Checksum => csum::BAD,
                Fault::UdpZeroChecksum if v4 => csum::NOT_CHECKED,
                Fault::UdpZeroChecksum => csum::BAD,
                _ => csum::GOOD,
            };
            let ty = match (v4, is_tcp) {
                (true, true) => hash_type::TCP_IPV4,
                (true, false) => hash_type::UDP_IPV4,
                (false, true) => hash_type::TCP_IPV6,
                (false, false) => hash_type::UDP_IPV6,
            };
            Some((p, l3v, l4v, ty))
        }
        _ => Some((p | ptype::L4_OTHER, l3v, 0, ip_ty)),
    }
}

#[test]
fn generated_traffic_matches_its_specs() {
    let mut rng = StdRng::seed_from_u64(41);
    let opts = RxGenOptions { p_jumbo: 0.01, ..Default::default() };
    let cfg = reset();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for i in 0..20000 {
        let s = rxgen::random_spec(&mut rng, &opts);
        let (f, _) = s.build_with_layout();
        let m = check_invariants(&cfg, &f);
        *seen.entry(format!("{:?}", std::mem::discriminant(&s.fault))).or_default() += 1;
        if let Some((p, l3v, l4v, ty)) = expected(&s, f.len()) {
            assert_eq!((m.ptype, m.l3_csum, m.l4_csum, m.hash_type), (p, l3v, l4v, ty), "frame {i}: {s:?}\n{f:02x?}");
        }
        if ty_has_ports(m.hash_type) {
            *seen.entry("l4 hash".into()).or_default() += 1;
        }
    }
    // every fault occurred
    assert!(seen.len() >= 10, "{seen:?}");
}

fn ty_has_ports(t: u8) -> bool {
    matches!(t, hash_type::TCP_IPV4 | hash_type::UDP_IPV4 | hash_type::TCP_IPV6 | hash_type::UDP_IPV6)
}

#[test]
fn random_configs_filter_consistently() {
    // The filter verdict from the frame agrees with a table-free restatement per kind.
    let mut rng = StdRng::seed_from_u64(51);
    for _ in 0..300 {
        let q = 1 << rng.gen_range(0..7);
        let cfg = rxgen::random_config(&mut rng, q);
        let opts = RxGenOptions::for_config(&cfg);
        for _ in 0..50 {
            let f = rxgen::random_frame(&mut rng, &opts);
            let m = check_invariants(&cfg, &f);
            if f.len() < 6 {
                continue;
            }
            let d: [u8; 6] = f[..6].try_into().unwrap();
            let hit = cfg.exact.iter().find(|e| e.enable && e.addr == d);
            let accept = cfg.promisc
                || if d == BCAST {
                    cfg.broadcast
                } else if d[0] & 1 == 1 {
                    cfg.allmulti || hit.is_some() || cfg.mcast_hash[(crc::crc32_bitwise(&d) & 0xfff) as usize / 32] >> (crc::crc32_bitwise(&d) & 31) & 1 == 1
                } else {
                    hit.is_some()
                };
            assert_eq!(m.drop == 0, accept);
            match hit {
                Some(e) if e.steer => assert_eq!(m.queue, u32::from(e.queue) & (cfg.queues - 1)),
                _ if m.hash_type == 0 => assert_eq!(m.queue, 0),
                _ => assert_eq!(m.queue, u32::from(cfg.reta[(m.hash & 127) as usize]) & (cfg.queues - 1)),
            }
        }
    }
}
