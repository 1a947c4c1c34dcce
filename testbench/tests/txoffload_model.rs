//! The TX offload golden model (docs/tx-offload.md, `txoffload`) on random requests
//! (`txgen`): against an independent construction of the wire frames from the drawn
//! packets, against the spec's properties checked field by field, and judged by tshark
//! (checksums of every frame, TCP payload reassembled from tshark's view).

use nic_testbench::pcap::{self, tshark_checksum_verdicts, tshark_tcp_payloads};
use nic_testbench::txgen::{self, random_request, TxGenOptions, TxRequest, INVALID_CASES};
use nic_testbench::txoffload::{self, apply, parse_headers, validate, OffloadKind, TxOffload, FCS_LEN};
use nic_testbench::wire::tcp::flags as tf;
use nic_testbench::wire::{Ipv4Packet, Ipv6Packet, TcpPacket, UdpPacket};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::net::IpAddr;

fn addrs(f: &[u8], l3: usize, v6: bool) -> (IpAddr, IpAddr) {
    if v6 {
        let p = Ipv6Packet::new_unchecked(&f[l3..]);
        (p.src_addr().into(), p.dst_addr().into())
    } else {
        let p = Ipv4Packet::new_unchecked(&f[l3..]);
        (p.src_addr().into(), p.dst_addr().into())
    }
}

/// Checksums of a wire frame: IPv4 header and TCP/UDP.
fn checksums_ok(f: &[u8]) -> bool {
    let h = parse_headers(f).expect("wire frame parses");
    let (s, d) = addrs(f, h.l3, h.ipv6);
    let seg = &f[h.l4..h.ip_end];
    let ip = h.ipv6 || Ipv4Packet::new_unchecked(&f[h.l3..]).verify_checksum();
    let l4 = if h.udp { UdpPacket::new_unchecked(seg).verify_checksum(s, d) } else { TcpPacket::new_unchecked(seg).verify_checksum(s, d) };
    ip && l4
}

/// The spec's TSO properties, field by field, on the segments of a valid request.
fn check_tso_properties(r: &TxRequest, segs: &[Vec<u8>], max_frame_len: usize, ctx: &str) {
    let o = &r.offload;
    let (l3, l4, hdr_len, mss) = (usize::from(o.l3_offset), usize::from(o.l4_offset), usize::from(o.hdr_len), usize::from(o.mss));
    let payload = &r.frame[hdr_len..];
    let n = payload.len().div_ceil(mss).max(1);
    assert_eq!(segs.len(), n, "{ctx}: segment count");
    let t0 = TcpPacket::new_unchecked(&r.frame[l4..]);
    let ident0 = if o.ipv6 { 0 } else { Ipv4Packet::new_unchecked(&r.frame[l3..]).ident() };
    for (k, s) in segs.iter().enumerate() {
        let want = if k + 1 < n { mss } else { payload.len() - k * mss };
        assert_eq!(s.len(), hdr_len + want, "{ctx}: segment {k} length");
        assert!(s.len() + FCS_LEN <= max_frame_len, "{ctx}: segment {k} over MAX_FRAME_LEN");
        assert_eq!(&s[..l3], &r.frame[..l3], "{ctx}: Ethernet header and tags copied");
        if o.ipv6 {
            assert_eq!(usize::from(Ipv6Packet::new_unchecked(&s[l3..]).payload_len()), s.len() - l3 - 40, "{ctx}: IPv6 payload length");
        } else {
            let ip = Ipv4Packet::new_unchecked(&s[l3..]);
            assert_eq!(usize::from(ip.total_len()), s.len() - l3, "{ctx}: IPv4 total length");
            assert_eq!(ip.ident(), ident0.wrapping_add(k as u16), "{ctx}: IPv4 identification");
        }
        let t = TcpPacket::new_unchecked(&s[l4..]);
        assert_eq!(t.seq_number(), t0.seq_number().wrapping_add((k * mss) as u32), "{ctx}: sequence number of segment {k}");
        let mut fl = t0.flags();
        if k + 1 < n {
            fl &= !(tf::FIN | tf::PSH);
        }
        if k > 0 {
            fl &= !tf::CWR;
        }
        assert_eq!(t.flags(), fl, "{ctx}: flags of segment {k}");
        assert_eq!(&s[hdr_len..], &payload[k * mss..k * mss + want], "{ctx}: payload of segment {k}");
        assert!(checksums_ok(s), "{ctx}: checksums of segment {k}");
    }
    assert_eq!(txgen::tcp_stream_payload(segs), payload, "{ctx}: reassembled payload");
}

#[test]
fn random_requests_agree_with_an_independent_construction() {
    let mut rng = StdRng::seed_from_u64(0x7478_6f66);
    let opts = TxGenOptions { p_invalid: 0.12, ..TxGenOptions::default() };
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let (mut segments, mut seq_wraps, mut ident_wraps, mut empty_tso, mut at_limit, mut vlan2, mut v4_opts, mut bare) = (0, 0, 0, 0, 0, 0, 0, 0);
    for i in 0..3000 {
        let r = random_request(&mut rng, &opts);
        let ctx = format!("request {i} ({:?}, {:?}, {} bytes, {:?})", r.kind, r.invalid, r.frame.len(), r.offload);
        // the context descriptor carries the request
        assert_eq!(TxOffload::from_context_descriptor(&r.offload.context_descriptor()), r.offload, "{ctx}");
        assert_eq!(validate(&r.frame, &r.offload, opts.max_frame_len), r.invalid.map_or(Ok(()), Err), "{ctx}");
        let wire = apply(&r.frame, &r.offload, opts.max_frame_len);
        assert_eq!(wire, r.expected_wire(), "{ctx}");
        if let Some(e) = r.invalid {
            *refused.entry(format!("{e:?}")).or_default() += 1;
            continue;
        }
        let wire = wire.unwrap();
        *kinds.entry(format!("{:?}", r.kind)).or_default() += 1;
        let h = parse_headers(&wire[0]).unwrap();
        vlan2 += usize::from(h.vlan_tags == 2);
        v4_opts += usize::from(!h.ipv6 && h.l4 - h.l3 > 20);
        for f in &wire {
            assert!(f.len() + FCS_LEN <= opts.max_frame_len, "{ctx}");
            assert!(checksums_ok(f), "{ctx}: checksums");
            assert!(!h.udp || UdpPacket::new_unchecked(&f[h.l4..]).checksum() != 0, "{ctx}: UDP checksum 0 sent");
        }
        match r.kind {
            Some(OffloadKind::Tso) => {
                check_tso_properties(&r, &wire, opts.max_frame_len, &ctx);
                segments += wire.len();
                let o = &r.offload;
                let seq0 = TcpPacket::new_unchecked(&r.frame[usize::from(o.l4_offset)..]).seq_number();
                seq_wraps += usize::from(seq0.checked_add((r.frame.len() - usize::from(o.hdr_len)) as u32).is_none());
                if !o.ipv6 {
                    let id0 = Ipv4Packet::new_unchecked(&r.frame[usize::from(o.l3_offset)..]).ident();
                    ident_wraps += usize::from(usize::from(id0) + wire.len() > 0x10000);
                }
                empty_tso += usize::from(r.frame.len() == usize::from(o.hdr_len));
                at_limit += usize::from(usize::from(o.hdr_len) + usize::from(o.mss) + FCS_LEN == opts.max_frame_len);
                bare += usize::from(!o.l4_csum);
            }
            _ => {
                assert_eq!(wire.len(), 1);
                assert_eq!(&wire[0][h.hdr_len()..], r.payload(), "{ctx}: payload untouched");
            }
        }
    }
    eprintln!("valid requests by kind {kinds:?}, {segments} TSO segments; refused {refused:?}");
    eprintln!("TSO: {seq_wraps} sequence wraps, {ident_wraps} identification wraps, {empty_tso} empty, {at_limit} at MAX_FRAME_LEN, {bare} without checksum bits; {vlan2} with 2 tags, {v4_opts} with IPv4 options");
    for e in INVALID_CASES {
        assert!(refused.get(&format!("{e:?}")).copied().unwrap_or(0) >= 5, "refused case {e:?} too rare: {refused:?}");
    }
    assert_eq!(kinds.len(), 4, "every kind: {kinds:?}");
    assert!(seq_wraps > 0 && ident_wraps > 0 && empty_tso > 0 && at_limit > 0 && bare > 0 && vlan2 > 100 && v4_opts > 100);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any 16 bytes read as a context descriptor and written back keep every field and
    /// offload flag; the other flag bits and bytes 14..16 come back as CTX and zeros.
    #[test]
    fn context_descriptor_round_trips(d in proptest::array::uniform16(any::<u8>())) {
        let o = TxOffload::from_context_descriptor(&d);
        let back = o.context_descriptor();
        let flags = u16::from_le_bytes([d[10], d[11]]);
        let mut want = d;
        want[10..12].copy_from_slice(&((flags & 0x1f8) | txoffload::flags::CTX).to_le_bytes());
        want[14] = 0;
        want[15] = 0;
        prop_assert_eq!(back, want);
        prop_assert_eq!(TxOffload::from_context_descriptor(&back), o);
        prop_assert_eq!(o.is_none(), flags & 0x78 == 0);
    }

    /// Whatever the request, the model never panics, and what it sends is either nothing
    /// (refused, with the reason `validate` gives) or frames within MAX_FRAME_LEN:
    /// without TSO exactly one frame of the same length, with TSO the segment count.
    #[test]
    fn arbitrary_requests_never_panic(
        len in 0usize..400,
        fill in any::<u8>(),
        words in proptest::array::uniform6(0u16..450),
        bits in any::<u8>(),
    ) {
        let frame: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(fill | 1)).collect();
        let o = TxOffload {
            l3_offset: words[0], l4_offset: words[1], csum_start: words[2], csum_offset: words[3] % 64,
            mss: words[4], hdr_len: words[5] % 300,
            generic_csum: bits & 1 != 0, ipv4_csum: bits & 2 != 0, l4_csum: bits & 4 != 0, tso: bits & 8 != 0,
            ipv6: bits & 16 != 0, udp: bits & 32 != 0,
        };
        let max = 1518;
        match apply(&frame, &o, max) {
            Err(e) => prop_assert_eq!(validate(&frame, &o, max), Err(e)),
            Ok(out) => {
                prop_assert!(out.iter().all(|f| f.len() + FCS_LEN <= max));
                if !o.tso {
                    prop_assert_eq!(out.len(), 1);
                    prop_assert_eq!(out[0].len(), frame.len());
                } else {
                    prop_assert_eq!(out.len(), txoffload::tso_segment_count(frame.len() - usize::from(o.hdr_len), o.mss));
                }
            }
        }
    }
}

/// tshark judges the model's output: every IPv4 header, TCP and UDP checksum of ~500
/// random requests' wire frames is good, and per request the TCP payload tshark sees,
/// reassembled by sequence number, is the payload the stack handed over.
#[test]
fn tshark_judges_checksums_and_tso_payloads() {
    let mut rng = StdRng::seed_from_u64(0x7473_6861_726b);
    // well-known IPv4 options and no RST, whose payload tshark shows as text
    let opts = TxGenOptions { p_invalid: 0.0, known_ipv4_options: true, tcp_flags_mask: tf::MASK & !tf::RST, ..TxGenOptions::default() };
    let requests: Vec<TxRequest> = (0..500).map(|_| random_request(&mut rng, &opts)).collect();
    // every wire frame, padded to 60 as the MAC does, with its request's index
    let mut frames: Vec<(usize, Vec<u8>)> = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        for mut f in apply(&r.frame, &r.offload, opts.max_frame_len).unwrap() {
            if f.len() < 60 {
                f.resize(60, 0);
            }
            frames.push((i, f));
        }
    }
    let dir = std::env::temp_dir().join(format!("nic-txoffload-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tx.pcap");
    let mut w = pcap::PcapWriter::new(std::io::BufWriter::new(std::fs::File::create(&path).unwrap()), pcap::LINKTYPE_ETHERNET).unwrap();
    for (n, (_, f)) in frames.iter().enumerate() {
        w.write(n as u64 * 1000, f).unwrap();
    }
    drop(w);
    let Some(verdicts) = tshark_checksum_verdicts(&path) else {
        assert!(std::env::var("CI").is_err(), "tshark missing under CI: `make setup` should have installed it");
        eprintln!("tshark not installed: skipped (make setup installs it)");
        return;
    };
    let verdicts = verdicts.unwrap();
    let payloads = tshark_tcp_payloads(&path).unwrap().unwrap();
    assert_eq!((verdicts.len(), payloads.len()), (frames.len(), frames.len()));
    let (mut ip_good, mut tcp_good, mut udp_good) = (0, 0, 0);
    let mut per_request: Vec<Vec<(u32, &[u8])>> = vec![Vec::new(); requests.len()];
    for (n, ((i, f), (v, p))) in frames.iter().zip(verdicts.iter().zip(&payloads)).enumerate() {
        let h = parse_headers(f).unwrap();
        let ctx = || format!("frame {n} of request {i} ({:?}, {:?}): tshark {v:?}\n{:02x?}", requests[*i].kind, requests[*i].offload, &f[..f.len().min(96)]);
        if h.ipv6 {
            assert_eq!(v.ip, None, "{}", ctx());
        } else {
            assert_eq!(v.ip, Some(true), "IPv4 header checksum: {}", ctx());
            ip_good += 1;
        }
        if h.udp {
            assert_eq!(v.udp, Some(true), "UDP checksum: {}", ctx());
            udp_good += 1;
            assert!(p.is_none(), "{}", ctx());
        } else {
            assert_eq!(v.tcp, Some(true), "TCP checksum: {}", ctx());
            tcp_good += 1;
            let p = p.as_ref().unwrap_or_else(|| panic!("tshark sees no TCP: {}", ctx()));
            per_request[*i].push((p.seq, &p.payload));
        }
    }
    let mut tso_checked = 0;
    for (i, r) in requests.iter().enumerate() {
        if r.is_udp() {
            continue;
        }
        let got = txgen::tcp_reassemble(per_request[i].iter().copied()).unwrap_or_else(|e| panic!("request {i}: {e}"));
        assert_eq!(got, r.payload(), "request {i} ({:?}, {:?}): payload tshark reassembles", r.kind, r.offload);
        tso_checked += usize::from(r.kind == Some(OffloadKind::Tso) && per_request[i].len() > 1);
    }
    eprintln!("tshark: {} frames of {} requests; good IPv4 {ip_good}, TCP {tcp_good}, UDP {udp_good}; {tso_checked} multi-segment TSO payloads reassembled", frames.len(), requests.len());
    assert!(ip_good > 300 && tcp_good > 1000 && udp_good > 50 && tso_checked > 50);
    std::fs::remove_dir_all(&dir).ok();
}
