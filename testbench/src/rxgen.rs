//! Seeded random receive traffic for the differential tests of the RX classifier
//! (docs/rx-classification.md; golden model [`crate::rxclass`]): frames as the MAC
//! delivers them (no FCS), with random flows, 0..2 VLAN tags (now and then a third),
//! IPv4 with options and fragments, IPv6 with and without an extension header,
//! TCP with options, UDP, other protocols and EtherTypes, correct checksums by default,
//! and with small probabilities the faults the classifier must judge: bad checksums,
//! UDP zero checksum, truncated headers, inconsistent lengths, garbage, short frames.
//! Destinations come from "our" addresses, random unicast, random multicast, broadcast.
//!
//! A frame is first drawn as an [`RxFrameSpec`] (plain data: what the frame is meant to
//! be, and its fault), then built with the [`crate::wire`] views; the spec is what a test
//! reads to know what the classifier should say. Frames shorter than `min_len` (60) are
//! padded as a sender pads them: after the IP packet, whose lengths stay consistent.
//!
//! [`random_config`] draws register states, [`ms_suite_frames`] turns the Microsoft RSS
//! verification suite into real frames.

use crate::gen::MIN_LEN;
use crate::rxclass::{hash_type, rss_type, MacFilterEntry, RxClassConfig, MAC_FILTER_ENTRIES};
use crate::toeplitz;
use crate::wire::ip::protocol;
use crate::wire::{ipv4, ipv6, tcp, udp, vlan};
use crate::wire::{
    EthernetAddress, EthernetFrame, EthernetRepr, Ipv4Packet, Ipv4Repr, Ipv6ExtHeader, Ipv6ExtHeaderRepr, Ipv6Packet, Ipv6Repr, TcpOption, TcpPacket,
    TcpRepr, UdpPacket, UdpRepr, VlanRepr, VlanTag,
};
use rand::seq::SliceRandom;
use rand::Rng;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Knobs of the generator. Probabilities are per frame; weights are relative.
#[derive(Clone, Debug)]
pub struct RxGenOptions {
    /// Addresses the NIC under test is configured for (exact-filter entries, subscribed
    /// multicast groups); the "ours" destinations are drawn from these.
    pub our_macs: Vec<[u8; 6]>,
    /// Destination kinds: ours, random unicast, random multicast, broadcast.
    pub dst_weights: [u32; 4],
    /// VLAN tags: 0, 1, 2, 3 (a third tag is left unparsed by the classifier).
    pub vlan_weights: [u32; 4],
    /// IPv4, IPv6, another EtherType.
    pub l3_weights: [u32; 3],
    /// TCP, UDP, another protocol.
    pub l4_weights: [u32; 3],
    pub p_ipv4_options: f64,
    pub p_fragment: f64,
    pub p_ipv6_ext: f64,
    pub p_tcp_options: f64,
    /// Largest IP packet (header included) of an ordinary frame: the MTU.
    pub max_ip_len: usize,
    /// Probability of a jumbo frame, IP packet up to `jumbo_ip_len`.
    pub p_jumbo: f64,
    pub jumbo_ip_len: usize,
    /// Probability of random bytes after the IP packet (beyond what padding needs),
    /// and of padding with random rather than zero bytes.
    pub p_trailer: f64,
    /// Frames are padded to this length (60: 64 on the wire with the FCS).
    pub min_len: usize,
    // faults
    pub p_bad_l3_csum: f64,
    pub p_bad_l4_csum: f64,
    pub p_udp_zero_csum: f64,
    pub p_truncated: f64,
    pub p_bad_ip_len: f64,
    pub p_bad_ip_header: f64,
    pub p_bad_l4_len: f64,
    pub p_garbage: f64,
    pub p_short: f64,
}

impl Default for RxGenOptions {
    fn default() -> Self {
        RxGenOptions {
            our_macs: vec![[0x02, 0x00, 0x00, 0x00, 0x00, 0x01]],
            dst_weights: [6, 2, 2, 1],
            vlan_weights: [12, 4, 3, 1],
            l3_weights: [6, 4, 1],
            l4_weights: [5, 4, 1],
            p_ipv4_options: 0.15,
            p_fragment: 0.08,
            p_ipv6_ext: 0.15,
            p_tcp_options: 0.5,
            max_ip_len: 1500,
            p_jumbo: 0.02,
            jumbo_ip_len: 9000,
            p_trailer: 0.05,
            min_len: MIN_LEN,
            p_bad_l3_csum: 0.04,
            p_bad_l4_csum: 0.05,
            p_udp_zero_csum: 0.05,
            p_truncated: 0.03,
            p_bad_ip_len: 0.03,
            p_bad_ip_header: 0.02,
            p_bad_l4_len: 0.03,
            p_garbage: 0.02,
            p_short: 0.01,
        }
    }
}

impl RxGenOptions {
    /// Defaults with the exact-filter addresses of `cfg` (enabled or not) as "ours".
    pub fn for_config(cfg: &RxClassConfig) -> Self {
        let mut our: Vec<[u8; 6]> = cfg.exact.iter().map(|e| e.addr).collect();
        our.sort_unstable();
        our.dedup();
        RxGenOptions { our_macs: our, ..Default::default() }
    }
    /// No faults, no garbage: every frame well-formed with correct checksums.
    pub fn clean() -> Self {
        RxGenOptions {
            p_bad_l3_csum: 0.0,
            p_bad_l4_csum: 0.0,
            p_udp_zero_csum: 0.0,
            p_truncated: 0.0,
            p_bad_ip_len: 0.0,
            p_bad_ip_header: 0.0,
            p_bad_l4_len: 0.0,
            p_garbage: 0.0,
            p_short: 0.0,
            ..Default::default()
        }
    }
}

/// The layer-4 part of an IP packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L4Spec {
    Tcp { repr: TcpRepr, payload: Vec<u8> },
    Udp { repr: UdpRepr, payload: Vec<u8> },
    /// Bytes under another protocol, or a non-first fragment's data.
    Raw { payload: Vec<u8> },
}

impl L4Spec {
    pub fn len(&self) -> usize {
        match self {
            L4Spec::Tcp { repr, payload } => repr.buffer_len(payload.len()),
            L4Spec::Udp { repr, payload } => repr.buffer_len(payload.len()),
            L4Spec::Raw { payload } => payload.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn header_len(&self) -> usize {
        match self {
            L4Spec::Tcp { repr, .. } => repr.header_len(),
            L4Spec::Udp { .. } => udp::HEADER_LEN,
            L4Spec::Raw { .. } => 0,
        }
    }
    /// The bytes, checksum filled over the pseudo-header of `src`, `dst`.
    pub fn build(&self, src: IpAddr, dst: IpAddr) -> Vec<u8> {
        let mut b = vec![0u8; self.len()];
        match self {
            L4Spec::Tcp { repr, payload } => repr.emit(&mut TcpPacket::new_unchecked(&mut b[..]), src, dst, payload),
            L4Spec::Udp { repr, payload } => repr.emit(&mut UdpPacket::new_unchecked(&mut b[..]), src, dst, payload),
            L4Spec::Raw { payload } => b.copy_from_slice(payload),
        }
        b
    }
}

/// What follows the Ethernet header and the tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L3Spec {
    /// `ip.payload_len` is set from `l4` when building.
    Ipv4 { ip: Ipv4Repr, l4: L4Spec },
    /// `ip.next_header` is the extension header's type when `ext` is given, whose own
    /// `next_header` is then the L4 protocol. `ip.payload_len` is set when building.
    Ipv6 { ip: Ipv6Repr, ext: Option<Ipv6ExtHeaderRepr>, l4: L4Spec },
    Other { ethertype: u16, payload: Vec<u8> },
}

/// A deliberate defect of a frame, applied after it is built and padded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// IPv4 header checksum off by one bit.
    BadL3Checksum,
    /// TCP/UDP checksum off by one bit (never turning a UDP checksum into 0).
    BadL4Checksum,
    /// UDP checksum field 0 (none over IPv4, an error over IPv6).
    UdpZeroChecksum,
    /// IPv4 total length / IPv6 payload length beyond the frame (`by` bytes too many).
    IpLenTooLong { by: u16 },
    /// IPv4 total length below the header length / IPv6 payload length 0.
    IpLenTooShort { len: u16 },
    /// IPv4: version `version` or IHL `ihl` (whichever is wrong); IPv6: version.
    BadIpHeader { version: u8, ihl: u8 },
    /// TCP data offset (< 5 or past the segment) or UDP length (≠ the IP's L4 length).
    BadL4Length { value: u16 },
    /// The frame cut to this many bytes (no padding after the cut).
    Truncate(usize),
}

/// A frame as data: the generator draws these, [`RxFrameSpec::build`] makes the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrameSpec {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    /// (TPID, TCI) of each tag, outermost first.
    pub vlans: Vec<(u16, u16)>,
    pub l3: L3Spec,
    /// Random bytes after the IP packet (or the other-EtherType payload).
    pub trailer: Vec<u8>,
    /// Pad with random bytes rather than zeros.
    pub dirty_padding: bool,
    pub min_len: usize,
    pub fault: Fault,
}

/// Where the layers of a built frame start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub l3: usize,
    /// The TCP/UDP header (after an IPv6 extension header); 0 without IP.
    pub l4: usize,
    /// End of the IP packet (its lengths as built, before a fault).
    pub ip_end: usize,
}

impl RxFrameSpec {
    /// Ethernet header, tags, IP header, extension header and L4 header lengths.
    pub fn headers_len(&self) -> usize {
        let mut n = ethernet_header_len() + vlan::HEADER_LEN * self.vlans.len();
        match &self.l3 {
            L3Spec::Ipv4 { ip, l4 } => n += ip.header_len() + l4.header_len(),
            L3Spec::Ipv6 { ext, l4, .. } => n += ipv6::HEADER_LEN + ext.as_ref().map_or(0, |e| e.buffer_len()) + l4.header_len(),
            L3Spec::Other { .. } => {}
        }
        n
    }

    /// The L4 protocol number of an IP frame.
    pub fn l4_protocol(&self) -> Option<u8> {
        match &self.l3 {
            L3Spec::Ipv4 { ip, .. } => Some(ip.protocol),
            L3Spec::Ipv6 { ip, ext, .. } => Some(ext.as_ref().map_or(ip.next_header, |e| e.next_header)),
            L3Spec::Other { .. } => None,
        }
    }

    /// An IPv4 fragment or an IPv6 packet with a Fragment header.
    pub fn is_fragment(&self) -> bool {
        match &self.l3 {
            L3Spec::Ipv4 { ip, .. } => ip.more_frags || ip.frag_offset != 0,
            L3Spec::Ipv6 { ip, .. } => ip.next_header == protocol::IPV6_FRAG,
            L3Spec::Other { .. } => false,
        }
    }

    pub fn build(&self) -> Vec<u8> {
        self.build_with_layout().0
    }

    pub fn build_with_layout(&self) -> (Vec<u8>, Layout) {
        // Ethernet header and tags
        let mut f = vec![0u8; ethernet_header_len() + vlan::HEADER_LEN * self.vlans.len()];
        let l3_type = match &self.l3 {
            L3Spec::Ipv4 { .. } => ipv4::ETHERTYPE,
            L3Spec::Ipv6 { .. } => ipv6::ETHERTYPE,
            L3Spec::Other { ethertype, .. } => *ethertype,
        };
        let mut types: Vec<u16> = self.vlans.iter().map(|v| v.0).collect();
        types.push(l3_type);
        let eth = EthernetRepr { dst_addr: EthernetAddress(self.dst), src_addr: EthernetAddress(self.src), ethertype: types[0].into() };
        eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        for (i, &(_, tci)) in self.vlans.iter().enumerate() {
            let at = ethernet_header_len() + vlan::HEADER_LEN * i;
            let r = VlanRepr { pcp: (tci >> 13) as u8, dei: tci >> 12 & 1 == 1, vid: tci & 0xfff, ethertype: types[i + 1].into() };
            r.emit(&mut VlanTag::new_unchecked(&mut f[at..]));
        }
        let l3 = f.len();
        let mut layout = Layout { l3, l4: 0, ip_end: l3 };
        // L3 and L4
        match &self.l3 {
            L3Spec::Ipv4 { ip, l4 } => {
                let bytes = l4.build(ip.src_addr.into(), ip.dst_addr.into());
                let ip = Ipv4Repr { payload_len: bytes.len(), ..ip.clone() };
                let hl = ip.header_len();
                f.resize(l3 + hl, 0);
                ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[l3..]));
                layout.l4 = f.len();
                f.extend_from_slice(&bytes);
            }
            L3Spec::Ipv6 { ip, ext, l4 } => {
                let bytes = l4.build(ip.src_addr.into(), ip.dst_addr.into());
                let ext_len = ext.as_ref().map_or(0, |e| e.buffer_len());
                let ip = Ipv6Repr { payload_len: ext_len + bytes.len(), ..*ip };
                f.resize(l3 + ipv6::HEADER_LEN + ext_len, 0);
                ip.emit(&mut Ipv6Packet::new_unchecked(&mut f[l3..]));
                if let Some(e) = ext {
                    e.emit(&mut Ipv6ExtHeader::new_unchecked(&mut f[l3 + ipv6::HEADER_LEN..]));
                }
                layout.l4 = f.len();
                f.extend_from_slice(&bytes);
            }
            L3Spec::Other { payload, .. } => f.extend_from_slice(payload),
        }
        layout.ip_end = f.len();
        // trailer and padding
        f.extend_from_slice(&self.trailer);
        if f.len() < self.min_len {
            let fill = if self.dirty_padding { 0xa5 } else { 0 };
            let start = f.len();
            f.resize(self.min_len, fill);
            if self.dirty_padding {
                for (i, b) in f[start..].iter_mut().enumerate() {
                    *b = (i as u8).wrapping_mul(29) ^ 0xa5;
                }
            }
        }
        self.apply_fault(&mut f, &layout);
        (f, layout)
    }

    fn apply_fault(&self, f: &mut Vec<u8>, at: &Layout) {
        let l3 = at.l3;
        match (self.fault, &self.l3) {
            (Fault::None, _) => {}
            (Fault::Truncate(n), _) => f.truncate(n),
            (Fault::BadL3Checksum, L3Spec::Ipv4 { .. }) => {
                let mut p = Ipv4Packet::new_unchecked(&mut f[l3..]);
                let c = p.checksum();
                p.set_checksum(c ^ 0x0001);
            }
            (Fault::BadL4Checksum, L3Spec::Ipv4 { l4, .. } | L3Spec::Ipv6 { l4, .. }) => match l4 {
                L4Spec::Tcp { .. } => {
                    let mut p = TcpPacket::new_unchecked(&mut f[at.l4..at.ip_end]);
                    let c = p.checksum();
                    p.set_checksum(c ^ 0x0001);
                }
                L4Spec::Udp { .. } => {
                    let mut p = UdpPacket::new_unchecked(&mut f[at.l4..at.ip_end]);
                    let c = p.checksum();
                    p.set_checksum(if c == 0x0001 { c ^ 0x0002 } else { c ^ 0x0001 });
                }
                L4Spec::Raw { .. } => {}
            },
            (Fault::UdpZeroChecksum, L3Spec::Ipv4 { l4: L4Spec::Udp { .. }, .. } | L3Spec::Ipv6 { l4: L4Spec::Udp { .. }, .. }) => {
                UdpPacket::new_unchecked(&mut f[at.l4..at.ip_end]).set_checksum(0);
            }
            (Fault::IpLenTooLong { by }, L3Spec::Ipv4 { .. }) => {
                let total = (f.len() - l3 + usize::from(by.max(1))).min(0xffff) as u16;
                let mut p = Ipv4Packet::new_unchecked(&mut f[l3..]);
                p.set_total_len(total);
                p.fill_checksum();
            }
            (Fault::IpLenTooLong { by }, L3Spec::Ipv6 { .. }) => {
                let plen = (f.len() - l3 - ipv6::HEADER_LEN + usize::from(by.max(1))).min(0xffff) as u16;
                Ipv6Packet::new_unchecked(&mut f[l3..]).set_payload_len(plen);
            }
            (Fault::IpLenTooShort { len }, L3Spec::Ipv4 { .. }) => {
                let mut p = Ipv4Packet::new_unchecked(&mut f[l3..]);
                let hl = p.header_len() as u16;
                p.set_total_len(len % hl);
                p.fill_checksum();
            }
            (Fault::IpLenTooShort { .. }, L3Spec::Ipv6 { .. }) => Ipv6Packet::new_unchecked(&mut f[l3..]).set_payload_len(0),
            (Fault::BadIpHeader { version, ihl }, L3Spec::Ipv4 { .. }) => {
                let mut p = Ipv4Packet::new_unchecked(&mut f[l3..]);
                if version != 4 {
                    p.set_version(version & 0xf);
                    p.fill_checksum();
                } else {
                    // IHL below 5 (the checksum is left as it was: nothing checks it)
                    f[l3] = 0x40 | (ihl % 5);
                }
            }
            (Fault::BadIpHeader { version, .. }, L3Spec::Ipv6 { ip, .. }) => {
                let v = if version == 6 { 4 } else { version & 0xf };
                Ipv6Packet::new_unchecked(&mut f[l3..]).set_first_word(v, ip.traffic_class, ip.flow_label);
            }
            (Fault::BadL4Length { value }, L3Spec::Ipv4 { l4, .. } | L3Spec::Ipv6 { l4, .. }) => {
                let seg_len = at.ip_end - at.l4;
                match l4 {
                    L4Spec::Tcp { repr, .. } => {
                        // a data offset below 5, or past the segment when one fits in 4 bits
                        let max_ok = (seg_len / 4).min(15);
                        let doff = if value & 1 == 1 && max_ok < 15 { (max_ok + 1 + usize::from(value >> 1) % (15 - max_ok)) as u16 } else { (value >> 1) % 5 };
                        TcpPacket::new_unchecked(&mut f[at.l4..at.ip_end]).set_header_len_flags(usize::from(doff) * 4, repr.flags);
                    }
                    L4Spec::Udp { .. } => {
                        let mut v = value;
                        if usize::from(v) == seg_len {
                            v = v.wrapping_add(1);
                        }
                        UdpPacket::new_unchecked(&mut f[at.l4..at.ip_end]).set_len(v);
                    }
                    L4Spec::Raw { .. } => {}
                }
            }
            _ => {}
        }
    }
}

fn ethernet_header_len() -> usize {
    EthernetFrame::<&[u8]>::header_len()
}

fn weighted<R: Rng>(rng: &mut R, w: &[u32]) -> usize {
    let total: u32 = w.iter().sum();
    if total == 0 {
        return 0;
    }
    let mut x = rng.gen_range(0..total);
    for (i, &wi) in w.iter().enumerate() {
        if x < wi {
            return i;
        }
        x -= wi;
    }
    w.len() - 1
}

/// A random unicast address (I/G clear), globally or locally administered.
pub fn random_unicast<R: Rng>(rng: &mut R) -> [u8; 6] {
    let mut a: [u8; 6] = rng.gen();
    a[0] &= !0x01;
    a
}

/// A random multicast address other than broadcast: often an IPv4 (01:00:5e) or IPv6
/// (33:33) group mapping, otherwise any address with the I/G bit.
pub fn random_multicast<R: Rng>(rng: &mut R) -> [u8; 6] {
    let mut a: [u8; 6] = rng.gen();
    match rng.gen_range(0..3) {
        0 => {
            a[..3].copy_from_slice(&[0x01, 0x00, 0x5e]);
            a[3] &= 0x7f;
        }
        1 => a[..2].copy_from_slice(&[0x33, 0x33]),
        _ => a[0] |= 0x01,
    }
    if a == [0xff; 6] {
        a[5] = 0xfe;
    }
    a
}

fn random_dst<R: Rng>(rng: &mut R, opts: &RxGenOptions) -> [u8; 6] {
    let mut w = opts.dst_weights;
    if opts.our_macs.is_empty() {
        w[0] = 0;
    }
    match weighted(rng, &w) {
        0 => *opts.our_macs.choose(rng).unwrap(),
        1 => random_unicast(rng),
        2 => random_multicast(rng),
        _ => [0xff; 6],
    }
}

fn random_bytes<R: Rng>(rng: &mut R, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

/// IPv4 options (RFC 791 3.1 shapes): No-Operation, Router Alert, and options of other
/// types with a correct length byte, up to `max` bytes.
fn random_ipv4_options<R: Rng>(rng: &mut R, max: usize) -> Vec<u8> {
    let target = rng.gen_range(1..=max / 4) * 4;
    let mut o = Vec::new();
    while o.len() < target {
        let room = target - o.len();
        match rng.gen_range(0..4) {
            0 => o.push(1), // NOP
            1 if room >= 4 => o.extend_from_slice(&[0x94, 0x04, 0x00, 0x00]), // Router Alert
            2 if room >= 2 => {
                let len = rng.gen_range(2..=room.min(12));
                // a type other than End of List and NOP; the class and copied bits random
                let kind = loop {
                    let k: u8 = rng.gen();
                    if k & 0x1f > 1 {
                        break k;
                    }
                };
                o.push(kind);
                o.push(len as u8);
                o.extend(random_bytes(rng, len - 2));
            }
            _ => {
                o.push(0); // End of Option List: the rest is padding
                o.resize(target, 0);
            }
        }
    }
    o
}

fn random_tcp_options<R: Rng>(rng: &mut R) -> Vec<u8> {
    let mut opts = Vec::new();
    let mut len = 0;
    for _ in 0..rng.gen_range(1..=6) {
        let o = match rng.gen_range(0..7) {
            0 => TcpOption::MaxSegmentSize(rng.gen()),
            1 => TcpOption::WindowScale(rng.gen_range(0..=14)),
            2 => TcpOption::SackPermitted,
            3 => TcpOption::Timestamps(rng.gen(), rng.gen()),
            4 => TcpOption::NoOp,
            5 => {
                let n = rng.gen_range(0..=8);
                TcpOption::Unknown { kind: rng.gen_range(9..=254), data: random_bytes(rng, n) }
            }
            _ => TcpOption::EndOfList,
        };
        if len + o.buffer_len() > tcp::MAX_OPTIONS_LEN {
            break;
        }
        len += o.buffer_len();
        opts.push(o);
    }
    TcpOption::emit_all(&opts)
}

/// A payload length: often small (the padding and short-segment cases), else uniform.
fn random_payload_len<R: Rng>(rng: &mut R, max: usize) -> usize {
    if rng.gen_bool(0.5) {
        rng.gen_range(0..=max.min(64))
    } else {
        rng.gen_range(0..=max)
    }
}

fn random_l4<R: Rng>(rng: &mut R, opts: &RxGenOptions, proto: u8, room: usize) -> L4Spec {
    match proto {
        protocol::TCP => {
            let options = if rng.gen_bool(opts.p_tcp_options) { random_tcp_options(rng) } else { Vec::new() };
            let repr = TcpRepr {
                src_port: rng.gen(),
                dst_port: rng.gen(),
                seq_number: rng.gen(),
                ack_number: rng.gen(),
                flags: rng.gen::<u16>() & tcp::flags::MASK,
                window_len: rng.gen(),
                urgent_at: if rng.gen_bool(0.1) { rng.gen() } else { 0 },
                options,
            };
            let n = random_payload_len(rng, room.saturating_sub(repr.header_len()));
            L4Spec::Tcp { repr, payload: random_bytes(rng, n) }
        }
        protocol::UDP => {
            let repr = UdpRepr { src_port: rng.gen(), dst_port: rng.gen() };
            let n = random_payload_len(rng, room.saturating_sub(udp::HEADER_LEN));
            L4Spec::Udp { repr, payload: random_bytes(rng, n) }
        }
        _ => {
            let n = random_payload_len(rng, room);
            L4Spec::Raw { payload: random_bytes(rng, n) }
        }
    }
}

/// A protocol number other than TCP and UDP (IPv6: and not an extension header).
fn other_protocol<R: Rng>(rng: &mut R, v6: bool) -> u8 {
    const COMMON: [u8; 6] = [protocol::ICMP, protocol::GRE, protocol::SCTP, protocol::ICMPV6, protocol::IPV6_NONXT, 89 /* OSPF */];
    loop {
        let p = if rng.gen_bool(0.6) { *COMMON.choose(rng).unwrap() } else { rng.gen() };
        if p != protocol::TCP && p != protocol::UDP && !(v6 && crate::wire::ip::is_ipv6_extension_header(p)) {
            return p;
        }
    }
}

/// Draws a frame description.
pub fn random_spec<R: Rng>(rng: &mut R, opts: &RxGenOptions) -> RxFrameSpec {
    let dst = random_dst(rng, opts);
    let src = random_unicast(rng);
    let tags = weighted(rng, &opts.vlan_weights);
    let vlans: Vec<(u16, u16)> = (0..tags)
        .map(|i| {
            // an outer tag is often an S-tag (QinQ), an inner or single one now and then
            let p_stag = if i + 1 < tags { 0.5 } else { 0.1 };
            let tpid = if rng.gen_bool(p_stag) { vlan::TPID_STAG } else { vlan::TPID_CTAG };
            (tpid, rng.gen())
        })
        .collect();
    let ip_max = if rng.gen_bool(opts.p_jumbo) { opts.jumbo_ip_len } else { opts.max_ip_len };
    let l4_pick = weighted(rng, &opts.l4_weights);
    let fragment = rng.gen_bool(opts.p_fragment);
    let l3 = match weighted(rng, &opts.l3_weights) {
        0 => {
            let proto = match l4_pick {
                0 => protocol::TCP,
                1 => protocol::UDP,
                _ => other_protocol(rng, false),
            };
            let mut ip = Ipv4Repr::new(Ipv4Addr::from(rng.gen::<u32>()), Ipv4Addr::from(rng.gen::<u32>()), proto, 0);
            ip.ttl = rng.gen();
            ip.dscp_ecn = rng.gen();
            ip.ident = rng.gen();
            ip.dont_frag = !fragment && rng.gen_bool(0.7);
            if rng.gen_bool(opts.p_ipv4_options) {
                ip.options = random_ipv4_options(rng, ipv4::MAX_OPTIONS_LEN);
            }
            let mut first = true;
            if fragment {
                // first (MF, offset 0), middle (MF, offset), last (offset)
                match rng.gen_range(0..3) {
                    0 => ip.more_frags = true,
                    k => {
                        ip.more_frags = k == 1;
                        ip.frag_offset = rng.gen_range(1..=0x1fff);
                        first = false;
                    }
                }
            }
            let room = ip_max.saturating_sub(ip.header_len());
            let l4 = if first { random_l4(rng, opts, proto, room) } else { random_l4(rng, opts, 0xff, room) };
            L3Spec::Ipv4 { ip, l4 }
        }
        1 => {
            let proto = match l4_pick {
                0 => protocol::TCP,
                1 => protocol::UDP,
                _ => other_protocol(rng, true),
            };
            let mut ip = Ipv6Repr::new(Ipv6Addr::from(rng.gen::<u128>()), Ipv6Addr::from(rng.gen::<u128>()), proto, 0);
            ip.hop_limit = rng.gen();
            ip.traffic_class = rng.gen();
            ip.flow_label = rng.gen::<u32>() & 0xfffff;
            let mut first = true;
            let ext = if fragment {
                let offset = if rng.gen_bool(0.4) { 0 } else { rng.gen_range(1..=0x1fff) };
                first = offset == 0;
                // M random: offset 0 without M is an atomic fragment (RFC 6946), still a fragment
                Some(Ipv6ExtHeaderRepr::fragment(proto, offset, rng.gen_bool(0.7), rng.gen()))
            } else if rng.gen_bool(opts.p_ipv6_ext) {
                let kind = *[protocol::HOPOPT, protocol::IPV6_OPTS, protocol::IPV6_ROUTE].choose(rng).unwrap();
                let data_len = 6 + 8 * rng.gen_range(0..3);
                let mut data = random_bytes(rng, data_len);
                if kind != protocol::IPV6_ROUTE {
                    // one PadN option covering the data keeps it a valid options header
                    data[0] = 1;
                    data[1] = (data_len - 2) as u8;
                }
                ip.next_header = kind;
                Some(Ipv6ExtHeaderRepr { next_header: proto, data })
            } else {
                None
            };
            if fragment {
                ip.next_header = protocol::IPV6_FRAG;
            }
            let ext_len = ext.as_ref().map_or(0, |e| e.buffer_len());
            let room = ip_max.saturating_sub(ipv6::HEADER_LEN + ext_len);
            let mut l4 = if first { random_l4(rng, opts, proto, room) } else { random_l4(rng, opts, 0xff, room) };
            if let L4Spec::Raw { payload } = &mut l4 {
                if ext.is_none() && payload.is_empty() {
                    // a payload length of 0 is malformed IPv6 (spec section 2)
                    payload.push(rng.gen());
                }
            }
            L3Spec::Ipv6 { ip, ext, l4 }
        }
        _ => {
            const TYPES: [u16; 5] = [0x0806, 0x88B5, 0x88CC, 0x8847, 0x22F0];
            let ethertype = loop {
                let t = if rng.gen_bool(0.7) { *TYPES.choose(rng).unwrap() } else { rng.gen() };
                if t != ipv4::ETHERTYPE && t != ipv6::ETHERTYPE && !vlan::is_tpid(t) {
                    break t;
                }
            };
            let n = random_payload_len(rng, ip_max);
            L3Spec::Other { ethertype, payload: random_bytes(rng, n) }
        }
    };
    let dirty = rng.gen_bool(opts.p_trailer);
    let trailer = if rng.gen_bool(opts.p_trailer) {
        let n = rng.gen_range(1..=32);
        random_bytes(rng, n)
    } else {
        Vec::new()
    };
    let mut spec = RxFrameSpec { dst, src, vlans, l3, trailer, dirty_padding: dirty, min_len: opts.min_len, fault: Fault::None };
    spec.fault = random_fault(rng, opts, &spec);
    spec
}

fn random_fault<R: Rng>(rng: &mut R, opts: &RxGenOptions, spec: &RxFrameSpec) -> Fault {
    let (v4, ip) = match &spec.l3 {
        L3Spec::Ipv4 { .. } => (true, true),
        L3Spec::Ipv6 { .. } => (false, true),
        L3Spec::Other { .. } => (false, false),
    };
    let l4 = match &spec.l3 {
        L3Spec::Ipv4 { l4, .. } | L3Spec::Ipv6 { l4, .. } => Some(l4),
        L3Spec::Other { .. } => None,
    };
    let tcp_udp = matches!(l4, Some(L4Spec::Tcp { .. } | L4Spec::Udp { .. }));
    let is_udp = matches!(l4, Some(L4Spec::Udp { .. }));
    if rng.gen_bool(opts.p_short) {
        return Fault::Truncate(rng.gen_range(0..opts.min_len.max(1)));
    }
    if rng.gen_bool(opts.p_truncated) {
        return Fault::Truncate(rng.gen_range(0..spec.headers_len()));
    }
    if ip && rng.gen_bool(opts.p_bad_ip_len) {
        return if rng.gen_bool(0.5) { Fault::IpLenTooLong { by: rng.gen_range(1..=64) } } else { Fault::IpLenTooShort { len: rng.gen() } };
    }
    if ip && rng.gen_bool(opts.p_bad_ip_header) {
        let version = if rng.gen_bool(0.5) { rng.gen_range(0..16) } else if v4 { 4 } else { 6 };
        return Fault::BadIpHeader { version, ihl: rng.gen_range(0..5) };
    }
    if tcp_udp && rng.gen_bool(opts.p_bad_l4_len) {
        return Fault::BadL4Length { value: rng.gen() };
    }
    if v4 && rng.gen_bool(opts.p_bad_l3_csum) {
        return Fault::BadL3Checksum;
    }
    if is_udp && rng.gen_bool(opts.p_udp_zero_csum) {
        return Fault::UdpZeroChecksum;
    }
    if tcp_udp && rng.gen_bool(opts.p_bad_l4_csum) {
        return Fault::BadL4Checksum;
    }
    Fault::None
}

/// Random bytes with a drawn destination, often with an IP or VLAN EtherType (and the
/// matching version nibble) so that the parser goes deep into nonsense.
pub fn random_garbage<R: Rng>(rng: &mut R, opts: &RxGenOptions) -> Vec<u8> {
    let len = if rng.gen_bool(0.8) { rng.gen_range(0..=200) } else { rng.gen_range(0..=1518) };
    let mut f = random_bytes(rng, len);
    let dst = random_dst(rng, opts);
    let n = f.len().min(6);
    f[..n].copy_from_slice(&dst[..n]);
    if f.len() >= 14 && rng.gen_bool(0.7) {
        let t = *[ipv4::ETHERTYPE, ipv6::ETHERTYPE, vlan::TPID_CTAG, vlan::TPID_STAG].choose(rng).unwrap();
        f[12..14].copy_from_slice(&t.to_be_bytes());
        if f.len() > 14 && rng.gen_bool(0.5) {
            f[14] = if t == ipv6::ETHERTYPE { 0x60 | (f[14] & 0x0f) } else { 0x40 | (f[14] & 0x0f) };
        }
    }
    f
}

/// One random frame: mostly [`random_spec`] built, sometimes [`random_garbage`].
pub fn random_frame<R: Rng>(rng: &mut R, opts: &RxGenOptions) -> Vec<u8> {
    if rng.gen_bool(opts.p_garbage) {
        random_garbage(rng, opts)
    } else {
        random_spec(rng, opts).build()
    }
}

/// A random register state for `queues` queues: random filter modes (promiscuous only
/// now and then, so the filter is exercised), exact entries enabled or not with unicast,
/// multicast or broadcast addresses (sometimes repeated, to test lowest-index-wins),
/// some steering with queue numbers wider than the queue count (to test the mask), a
/// multicast hash table of random density, random hash types, key and indirection table
/// (sometimes the defaults).
pub fn random_config<R: Rng>(rng: &mut R, queues: u32) -> RxClassConfig {
    let mut cfg = RxClassConfig::reset_default(queues);
    cfg.promisc = rng.gen_bool(0.15);
    cfg.allmulti = rng.gen_bool(0.25);
    cfg.broadcast = rng.gen_bool(0.7);
    for i in 0..MAC_FILTER_ENTRIES {
        let addr = if i > 0 && rng.gen_bool(0.15) {
            cfg.exact[rng.gen_range(0..i)].addr
        } else {
            match rng.gen_range(0..10) {
                0..=6 => random_unicast(rng),
                7 | 8 => random_multicast(rng),
                _ => [0xff; 6],
            }
        };
        cfg.exact[i] = MacFilterEntry { addr, enable: rng.gen_bool(0.6), steer: rng.gen_bool(0.3), queue: rng.gen() };
    }
    let density = *[0.0, 0.02, 0.125, 0.5, 1.0].choose(rng).unwrap();
    for w in cfg.mcast_hash.iter_mut() {
        for b in 0..32 {
            if rng.gen_bool(density) {
                *w |= 1 << b;
            }
        }
    }
    cfg.rss_types = if rng.gen_bool(0.4) { rss_type::ALL } else { rng.gen::<u8>() & rss_type::ALL };
    if rng.gen_bool(0.75) {
        rng.fill(&mut cfg.rss_key[..]);
    }
    if rng.gen_bool(0.75) {
        rng.fill(&mut cfg.reta[..]);
    }
    cfg
}

/// The Microsoft RSS verification suite as real frames, for the reset configuration
/// (default key, all hash types): per IPv4 and IPv6 case, a TCP segment and a UDP
/// datagram (both hash the ports: the "with ports" hash) and an ICMP / ICMPv6 packet
/// (no ports: the "IP only" hash). Returns (frame, expected hash, expected type).
pub fn ms_suite_frames() -> Vec<(Vec<u8>, u32, u8)> {
    let mut out = Vec::new();
    let base = |l3: L3Spec| RxFrameSpec {
        dst: [0x02, 0x00, 0x00, 0x00, 0x00, 0x01],
        src: [0x02, 0x00, 0x00, 0x00, 0x00, 0x02],
        vlans: Vec::new(),
        l3,
        trailer: Vec::new(),
        dirty_padding: false,
        min_len: MIN_LEN,
        fault: Fault::None,
    };
    let l4s = |sp: u16, dp: u16| {
        let tcp = L4Spec::Tcp {
            repr: TcpRepr { src_port: sp, dst_port: dp, seq_number: 1, ack_number: 0, flags: tcp::flags::SYN, window_len: 65535, urgent_at: 0, options: Vec::new() },
            payload: Vec::new(),
        };
        let udp = L4Spec::Udp { repr: UdpRepr { src_port: sp, dst_port: dp }, payload: b"rss".to_vec() };
        let icmp = L4Spec::Raw { payload: vec![8, 0, 0xf7, 0xff, 0, 0, 0, 0] };
        [tcp, udp, icmp]
    };
    for c in &toeplitz::MICROSOFT_IPV4 {
        let (s, d): (Ipv4Addr, Ipv4Addr) = (c.src.parse().unwrap(), c.dst.parse().unwrap());
        let [tcp, udp, icmp] = l4s(c.src_port, c.dst_port);
        for (proto, l4, hash, ty) in [
            (protocol::TCP, tcp, c.hash_ip_tcp, hash_type::TCP_IPV4),
            (protocol::UDP, udp, c.hash_ip_tcp, hash_type::UDP_IPV4),
            (protocol::ICMP, icmp, c.hash_ip, hash_type::IPV4),
        ] {
            out.push((base(L3Spec::Ipv4 { ip: Ipv4Repr::new(s, d, proto, 0), l4 }).build(), hash, ty));
        }
    }
    for c in &toeplitz::MICROSOFT_IPV6 {
        let (s, d): (Ipv6Addr, Ipv6Addr) = (c.src.parse().unwrap(), c.dst.parse().unwrap());
        let [tcp, udp, icmp] = l4s(c.src_port, c.dst_port);
        for (proto, l4, hash, ty) in [
            (protocol::TCP, tcp, c.hash_ip_tcp, hash_type::TCP_IPV6),
            (protocol::UDP, udp, c.hash_ip_tcp, hash_type::UDP_IPV6),
            (protocol::ICMPV6, icmp, c.hash_ip, hash_type::IPV6),
        ] {
            out.push((base(L3Spec::Ipv6 { ip: Ipv6Repr::new(s, d, proto, 0), ext: None, l4 }).build(), hash, ty));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rxclass::{classify, parse};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn same_seed_same_frames() {
        let opts = RxGenOptions::default();
        let (mut a, mut b) = (StdRng::seed_from_u64(11), StdRng::seed_from_u64(11));
        for _ in 0..200 {
            assert_eq!(random_frame(&mut a, &opts), random_frame(&mut b, &opts));
        }
    }

    #[test]
    fn clean_frames_are_padded_and_consistent() {
        let opts = RxGenOptions::clean();
        let mut rng = StdRng::seed_from_u64(12);
        for _ in 0..2000 {
            let spec = random_spec(&mut rng, &opts);
            let (f, at) = spec.build_with_layout();
            assert!(f.len() >= MIN_LEN);
            assert!(f.len() <= 9018 + 32 + 4, "{} bytes", f.len());
            match &spec.l3 {
                L3Spec::Ipv4 { .. } => {
                    let p = Ipv4Packet::new_checked(&f[at.l3..]).unwrap();
                    assert_eq!(at.l3 + usize::from(p.total_len()), at.ip_end);
                    assert!(p.verify_checksum());
                    assert!(usize::from(p.total_len()) <= opts.jumbo_ip_len);
                }
                L3Spec::Ipv6 { .. } => {
                    let p = Ipv6Packet::new_checked(&f[at.l3..]).unwrap();
                    assert_eq!(at.l3 + 40 + usize::from(p.payload_len()), at.ip_end);
                }
                L3Spec::Other { .. } => {}
            }
            let p = parse(&f);
            assert!(!p.malformed, "{spec:?}");
            assert_eq!(p.vlan_tags as usize, spec.vlans.len().min(2));
        }
    }

    #[test]
    fn ms_suite_through_the_classifier() {
        let cfg = RxClassConfig::reset_default(8);
        let frames = ms_suite_frames();
        assert_eq!(frames.len(), 3 * (5 + 3));
        for (f, hash, ty) in frames {
            let m = classify(&cfg, &f);
            assert_eq!((m.hash, m.hash_type), (hash, ty), "{f:02x?}");
            assert_eq!(m.queue, u32::from(cfg.reta[hash as usize % 128]) & 7);
        }
    }

    #[test]
    fn random_configs_are_valid() {
        let mut rng = StdRng::seed_from_u64(13);
        for q in [1, 2, 4, 8, 16, 64] {
            let cfg = random_config(&mut rng, q);
            assert_eq!(cfg.queues, q);
            assert_eq!(cfg.rss_types & !rss_type::ALL, 0);
        }
    }
}

/// A well-formed TCP/IPv4 frame of exactly `len` bytes (no FCS; `len` ≥ 54) on a random
/// flow, with correct checksums: what the benchmarks send, so that filter, parser,
/// checksum check and RSS all work on every frame.
pub fn flow_frame<R: Rng>(rng: &mut R, dst: [u8; 6], len: usize) -> Vec<u8> {
    let headers = 14 + 20 + 20;
    assert!(len >= headers, "a TCP/IPv4 frame needs {headers} bytes of headers");
    let ip = Ipv4Repr::new(Ipv4Addr::from(rng.gen::<u32>()), Ipv4Addr::from(rng.gen::<u32>()), protocol::TCP, 0);
    let repr = TcpRepr {
        src_port: rng.gen(),
        dst_port: rng.gen(),
        seq_number: rng.gen(),
        ack_number: rng.gen(),
        flags: tcp::flags::ACK,
        window_len: rng.gen(),
        urgent_at: 0,
        options: Vec::new(),
    };
    let spec = RxFrameSpec {
        dst,
        src: random_unicast(rng),
        vlans: Vec::new(),
        l3: L3Spec::Ipv4 { ip, l4: L4Spec::Tcp { repr, payload: random_bytes(rng, len - headers) } },
        trailer: Vec::new(),
        dirty_padding: false,
        min_len: 0,
        fault: Fault::None,
    };
    let f = spec.build();
    debug_assert_eq!(f.len(), len);
    f
}
