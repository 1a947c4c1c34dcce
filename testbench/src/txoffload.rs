//! Golden model of the TX offloads of docs/tx-offload.md: the context descriptor, the
//! generic checksum (Linux `CHECKSUM_PARTIAL`), the full IPv4 header and TCP/UDP
//! checksum offload, TCP segmentation (TSO) and the requests the NIC refuses.
//!
//! [`apply`] turns one frame handed to the NIC (the bytes of its data descriptors) and
//! its offload request into what goes on the wire (without FCS, before the MAC pads to
//! 60 bytes). [`as_stack_hands_it`] goes the other way: from a well-formed frame with
//! correct checksums to the bytes and request a Linux-like stack passes down.
//!
//! The NIC does not parse headers: it trusts the offsets of the request and takes the
//! L4 length from the frame length. The model does the same; the only header knowledge
//! it uses is where fields sit (addresses in the IP header at `l3_offset`, the IPv4
//! identification and lengths, the TCP sequence number and flags at `l4_offset`).
//!
//! Decisions where the spec is silent (as Linux would):
//! * `TSO` implies the checksums: with `TSO` the IPv4 header checksum (unless `IPV6`)
//!   and the TCP checksum are computed whether `IPV4_CSUM`/`L4_CSUM` are set or not, and
//!   `TSO` with `GENERIC_CSUM` is refused like `GENERIC_CSUM` with `L4_CSUM`.
//! * `IPV4_CSUM` with `IPV6` computes nothing (IPv6 has no header checksum); the offsets
//!   are still checked, with the IPv6 minimum of 40 bytes.
//! * `GENERIC_CSUM` with `IPV4_CSUM`: the IPv4 header checksum is stored first, so a
//!   generic range that covers the IPv4 header sums the header as sent.
//! * TSO takes the payload from `hdr_len` on, whatever the TCP data offset says; the
//!   template's other fields (URG and the urgent pointer, the reserved bits, ECE, the
//!   IPv4 flags, the IPv6 flow label) are copied unchanged into every segment.
//! * Generic checksum: a result of 0 is stored as 0xffff (`CSUM_MANGLED_0`), as Linux's
//!   software fallback `skb_checksum_help` does (`csum_fold(csum) ?: CSUM_MANGLED_0`).
//!   docs/tx-offload.md says "stored as is (Linux does the same)", which Linux does not:
//!   0xffff verifies wherever 0 does, and a UDP 0 would mean "no checksum" (IPv4) or be
//!   invalid (IPv6, RFC 8200 8.1).
//! * A frame without `TSO` longer than `MAX_FRAME_LEN` (FCS included) is not an
//!   offload refusal: it stops the queue (`QueueError::FrameTooLong`); [`validate`]
//!   reports it as [`TxOffloadError::FrameTooLong`] before anything else. A TSO frame
//!   may be longer (up to `hdr_len` + 65,535 bytes); its segments must fit.
//!
//! Several refusals at once are reported in a fixed order (the order of the variants
//! of [`TxOffloadError`]); the NIC has a single `ERROR` bit, so the order only matters
//! for diagnostics.

use crate::checksum;
use crate::wire::ip::{self, protocol};
use crate::wire::{ethernet, ipv4, ipv6, tcp, udp, vlan};
use crate::wire::{EthernetFrame, Ipv4Packet, Ipv6Packet, TcpPacket, UdpPacket, VlanTag};
use std::net::IpAddr;

/// Bits of the context descriptor's flags word (bytes 10..12); the data descriptors'
/// `EOP` and the write-back `ERROR` share the word.
pub mod flags {
    use nic_regmap::desc;
    /// Data descriptors only: last descriptor of the frame.
    pub const EOP: u16 = desc::TX_EOP;
    pub const CTX: u16 = desc::TX_CTX;
    pub const GENERIC_CSUM: u16 = desc::TX_GENERIC_CSUM;
    pub const IPV4_CSUM: u16 = desc::TX_IPV4_CSUM;
    pub const L4_CSUM: u16 = desc::TX_L4_CSUM;
    pub const TSO: u16 = desc::TX_TSO;
    pub const IPV6: u16 = desc::TX_IPV6;
    pub const UDP: u16 = desc::TX_UDP;
    /// Write-back: the frame was refused.
    pub const ERROR: u16 = desc::TX_ERROR;
}

/// Bytes the MAC appends; `MAX_FRAME_LEN` counts them.
pub const FCS_LEN: usize = 4;
/// Longest TSO payload.
pub const MAX_TSO_PAYLOAD: usize = 65_535;
/// Longest TSO header template.
pub const MAX_TSO_HDR_LEN: usize = 255;
/// Where the checksum sits in a TCP header (generic `csum_offset` for TCP).
pub const TCP_CSUM_OFFSET: u16 = 16;
/// Where the checksum sits in a UDP header (generic `csum_offset` for UDP).
pub const UDP_CSUM_OFFSET: u16 = 6;

/// One frame's offload request: the contents of its context descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxOffload {
    pub l3_offset: u16,
    pub l4_offset: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
    pub mss: u16,
    pub hdr_len: u16,
    pub generic_csum: bool,
    pub ipv4_csum: bool,
    pub l4_csum: bool,
    pub tso: bool,
    pub ipv6: bool,
    pub udp: bool,
}

impl TxOffload {
    /// No offload requested: the frame needs no context descriptor and goes out as is.
    pub fn is_none(&self) -> bool {
        !(self.generic_csum || self.ipv4_csum || self.l4_csum || self.tso)
    }

    /// The flags word of the context descriptor (`CTX` included).
    pub fn flags(&self) -> u16 {
        let bit = |b: bool, f: u16| if b { f } else { 0 };
        flags::CTX
            | bit(self.generic_csum, flags::GENERIC_CSUM)
            | bit(self.ipv4_csum, flags::IPV4_CSUM)
            | bit(self.l4_csum, flags::L4_CSUM)
            | bit(self.tso, flags::TSO)
            | bit(self.ipv6, flags::IPV6)
            | bit(self.udp, flags::UDP)
    }

    /// The 16 bytes of the context descriptor, little-endian like every descriptor.
    pub fn context_descriptor(&self) -> [u8; 16] {
        let mut d = [0u8; 16];
        let words = [self.l3_offset, self.l4_offset, self.csum_start, self.csum_offset, self.mss, self.flags(), self.hdr_len];
        for (i, w) in words.iter().enumerate() {
            d[2 * i..2 * i + 2].copy_from_slice(&w.to_le_bytes());
        }
        d
    }

    /// Reads a context descriptor (flags other than the offload ones are ignored).
    pub fn from_context_descriptor(d: &[u8; 16]) -> TxOffload {
        let w = |i: usize| u16::from_le_bytes([d[2 * i], d[2 * i + 1]]);
        let f = w(5);
        TxOffload {
            l3_offset: w(0),
            l4_offset: w(1),
            csum_start: w(2),
            csum_offset: w(3),
            mss: w(4),
            hdr_len: w(6),
            generic_csum: f & flags::GENERIC_CSUM != 0,
            ipv4_csum: f & flags::IPV4_CSUM != 0,
            l4_csum: f & flags::L4_CSUM != 0,
            tso: f & flags::TSO != 0,
            ipv6: f & flags::IPV6 != 0,
            udp: f & flags::UDP != 0,
        }
    }

    /// The same request in the driver's type (the driver does not depend on the
    /// testbench; the context descriptors they make are compared in tests).
    pub fn to_driver(&self) -> nic_driver::TxOffload {
        nic_driver::TxOffload {
            l3_offset: self.l3_offset,
            l4_offset: self.l4_offset,
            csum_start: self.csum_start,
            csum_offset: self.csum_offset,
            mss: self.mss,
            hdr_len: self.hdr_len,
            generic_csum: self.generic_csum,
            ipv4_csum: self.ipv4_csum,
            l4_csum: self.l4_csum,
            tso: self.tso,
            ipv6: self.ipv6,
            udp: self.udp,
        }
    }

    /// Whether the TCP/UDP checksum is computed: `L4_CSUM` or `TSO`.
    pub fn does_l4_csum(&self) -> bool {
        self.l4_csum || self.tso
    }

    /// Whether the IPv4 header checksum is computed: `IPV4_CSUM` or `TSO`, not `IPV6`.
    pub fn does_ipv4_csum(&self) -> bool {
        (self.ipv4_csum || self.tso) && !self.ipv6
    }

    fn l4_protocol(&self) -> u8 {
        if self.udp {
            protocol::UDP
        } else {
            protocol::TCP
        }
    }
}

/// Why a frame is not sent. The order of the variants is the order [`validate`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxOffloadError {
    /// Not an offload refusal: a frame without `TSO` longer than `MAX_FRAME_LEN` (FCS
    /// included) stops the queue with `QueueError::FrameTooLong`.
    FrameTooLong,
    /// `GENERIC_CSUM` with `L4_CSUM` (or with `TSO`, which implies `L4_CSUM`).
    GenericWithL4,
    /// `GENERIC_CSUM` with `csum_start + csum_offset + 2` beyond the frame.
    GenericBeyondFrame,
    /// `IPV4_CSUM`/`L4_CSUM`/`TSO` with `l3_offset` or `l4_offset` beyond the frame.
    OffsetsBeyondFrame,
    /// `IPV4_CSUM`/`L4_CSUM`/`TSO` with `l3_offset` + 20 (IPv4) or + 40 (IPv6) > `l4_offset`.
    OffsetsOutOfOrder,
    /// `L4_CSUM`/`TSO` with the TCP (20 bytes) or UDP (8 bytes) header beyond the frame.
    L4HeaderBeyondFrame,
    /// `TSO` with `UDP`.
    TsoUdp,
    /// `TSO` with `mss` 0.
    TsoMssZero,
    /// `TSO` with `hdr_len` > 255.
    TsoHeaderTooLong,
    /// `TSO` with `hdr_len` beyond the frame.
    TsoHeaderBeyondFrame,
    /// `TSO` with `hdr_len` < `l4_offset` + 20.
    TsoHeaderTooShort,
    /// `TSO` with more than 65,535 payload bytes.
    TsoPayloadTooLong,
    /// `TSO` with `hdr_len + mss` + FCS over `MAX_FRAME_LEN`.
    TsoSegmentTooLong,
    /// Descriptor level (never returned by [`validate`]): a context descriptor with `EOP`.
    ContextWithEop,
    /// Descriptor level (never returned by [`validate`]): two context descriptors for one frame.
    TwoContexts,
    /// Descriptor level (never returned by [`validate`]): `TSO` whose header template
    /// (`hdr_len` bytes) is not whole in the frame's first data descriptor.
    TsoHeaderSplit,
}

impl TxOffloadError {
    /// Whether the NIC refuses the frame with the `ERROR` write-back flag (every case
    /// but [`TxOffloadError::FrameTooLong`], which stops the queue).
    pub fn is_refusal(self) -> bool {
        self != TxOffloadError::FrameTooLong
    }

    pub fn describe(self) -> &'static str {
        use TxOffloadError::*;
        match self {
            FrameTooLong => "frame longer than MAX_FRAME_LEN (queue stops)",
            TsoHeaderSplit => "TSO header template not whole in the first data descriptor",
            GenericWithL4 => "GENERIC_CSUM with L4_CSUM or TSO",
            GenericBeyondFrame => "generic checksum field beyond the frame",
            OffsetsBeyondFrame => "l3_offset or l4_offset beyond the frame",
            OffsetsOutOfOrder => "l4_offset closer to l3_offset than an IP header",
            L4HeaderBeyondFrame => "TCP/UDP header beyond the frame",
            TsoUdp => "TSO with UDP",
            TsoMssZero => "TSO with mss 0",
            TsoHeaderTooLong => "TSO hdr_len over 255",
            TsoHeaderBeyondFrame => "TSO hdr_len beyond the frame",
            TsoHeaderTooShort => "TSO hdr_len shorter than l4_offset + 20",
            TsoPayloadTooLong => "TSO payload over 65,535 bytes",
            TsoSegmentTooLong => "TSO segment (hdr_len + mss + FCS) over MAX_FRAME_LEN",
            ContextWithEop => "context descriptor with EOP",
            TwoContexts => "two context descriptors for one frame",
        }
    }
}

impl std::fmt::Display for TxOffloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}
impl std::error::Error for TxOffloadError {}

/// Whether the NIC accepts `frame` (the bytes of its data descriptors) with request `o`
/// under `MAX_FRAME_LEN` = `max_frame_len` (FCS included).
pub fn validate(frame: &[u8], o: &TxOffload, max_frame_len: usize) -> Result<(), TxOffloadError> {
    use TxOffloadError::*;
    let len = frame.len();
    let (l3, l4) = (usize::from(o.l3_offset), usize::from(o.l4_offset));
    if !o.tso && len + FCS_LEN > max_frame_len {
        return Err(FrameTooLong);
    }
    if o.generic_csum {
        if o.does_l4_csum() {
            return Err(GenericWithL4);
        }
        if usize::from(o.csum_start) + usize::from(o.csum_offset) + 2 > len {
            return Err(GenericBeyondFrame);
        }
    }
    if o.ipv4_csum || o.does_l4_csum() {
        if l3 > len || l4 > len {
            return Err(OffsetsBeyondFrame);
        }
        let ip_min = if o.ipv6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
        if l3 + ip_min > l4 {
            return Err(OffsetsOutOfOrder);
        }
        let l4_min = if o.udp { udp::HEADER_LEN } else { tcp::HEADER_LEN };
        if o.does_l4_csum() && l4 + l4_min > len {
            return Err(L4HeaderBeyondFrame);
        }
    }
    if o.tso {
        let hdr_len = usize::from(o.hdr_len);
        if o.udp {
            return Err(TsoUdp);
        }
        if o.mss == 0 {
            return Err(TsoMssZero);
        }
        if hdr_len > MAX_TSO_HDR_LEN {
            return Err(TsoHeaderTooLong);
        }
        if hdr_len > len {
            return Err(TsoHeaderBeyondFrame);
        }
        if hdr_len < l4 + tcp::HEADER_LEN {
            return Err(TsoHeaderTooShort);
        }
        if len - hdr_len > MAX_TSO_PAYLOAD {
            return Err(TsoPayloadTooLong);
        }
        if hdr_len + usize::from(o.mss) + FCS_LEN > max_frame_len {
            return Err(TsoSegmentTooLong);
        }
    }
    Ok(())
}

/// What goes on the wire for one frame handed to the NIC (bytes without FCS, before the
/// MAC's padding to 60): one frame, or the TSO segments.
pub fn apply(frame: &[u8], o: &TxOffload, max_frame_len: usize) -> Result<Vec<Vec<u8>>, TxOffloadError> {
    validate(frame, o, max_frame_len)?;
    if o.tso {
        return Ok(segment(frame, o));
    }
    let mut f = frame.to_vec();
    if o.does_ipv4_csum() {
        fill_ipv4_checksum(&mut f, o);
    }
    if o.l4_csum {
        fill_l4_checksum(&mut f, o);
    }
    if o.generic_csum {
        fill_generic_checksum(&mut f, o);
    }
    Ok(vec![f])
}

/// What leaves the wire for a request the NIC refuses with `e` (from [`apply`]):
/// nothing, except for a TSO payload over 65,535 bytes, which is found only when its
/// 65,536th byte arrives: the `floor(65535 / mss)` full segments before it have left
/// (docs/tx-offload.md, Refused requests).
pub fn sent_before_refusal(frame: &[u8], o: &TxOffload, max_frame_len: usize, e: TxOffloadError) -> Vec<Vec<u8>> {
    if e != TxOffloadError::TsoPayloadTooLong {
        return Vec::new();
    }
    let mss = usize::from(o.mss);
    let hdr = usize::from(o.hdr_len);
    let sent = MAX_TSO_PAYLOAD / mss;
    let cut = (hdr + sent * mss + 1).min(hdr + MAX_TSO_PAYLOAD);
    let mut segs = apply(&frame[..cut], o, max_frame_len).expect("a TSO request cut to 65,535 payload bytes is valid");
    segs.truncate(sent);
    // The segments sent are the request's middle ones: its payload goes on, so none
    // carries FIN or PSH. The cut above keeps one byte more to make `apply` see them so,
    // except when the MSS divides 65,535 and that byte is past the limit: then the last
    // segment came out as the request's last, and is made a middle one here.
    if sent * mss == MAX_TSO_PAYLOAD {
        if let Some(last) = segs.last_mut() {
            let l4 = usize::from(o.l4_offset);
            let (src, dst) = addresses(last, o);
            let mut t = TcpPacket::new_unchecked(&mut last[l4..]);
            let f = t.flags() & !(tcp::flags::FIN | tcp::flags::PSH);
            t.set_flags(f);
            t.fill_checksum(src, dst);
        }
    }
    segs
}

/// The number of segments TSO makes of `payload_len` bytes: one when empty.
pub fn tso_segment_count(payload_len: usize, mss: u16) -> usize {
    payload_len.div_ceil(usize::from(mss)).max(1)
}

/// The IPv4 header checksum over `l3_offset..l4_offset`, its field taken as 0.
fn fill_ipv4_checksum(f: &mut [u8], o: &TxOffload) {
    let (l3, l4) = (usize::from(o.l3_offset), usize::from(o.l4_offset));
    Ipv4Packet::new_unchecked(&mut f[l3..l4]).set_checksum(0);
    let c = checksum::finish(checksum::data(&f[l3..l4]));
    Ipv4Packet::new_unchecked(&mut f[l3..l4]).set_checksum(c);
}

/// The addresses of the IP header at `l3_offset`.
fn addresses(f: &[u8], o: &TxOffload) -> (IpAddr, IpAddr) {
    let ip = &f[usize::from(o.l3_offset)..];
    if o.ipv6 {
        let p = Ipv6Packet::new_unchecked(ip);
        (p.src_addr().into(), p.dst_addr().into())
    } else {
        let p = Ipv4Packet::new_unchecked(ip);
        (p.src_addr().into(), p.dst_addr().into())
    }
}

/// The TCP/UDP checksum over the pseudo-header and `l4_offset..` to the end of the
/// frame, the field taken as 0; a UDP result of 0 is sent as 0xffff.
fn fill_l4_checksum(f: &mut [u8], o: &TxOffload) {
    let (src, dst) = addresses(f, o);
    let l4 = usize::from(o.l4_offset);
    if o.udp {
        UdpPacket::new_unchecked(&mut f[l4..]).set_checksum(0);
        let c = ip::l4_checksum(src, dst, protocol::UDP, &f[l4..]);
        UdpPacket::new_unchecked(&mut f[l4..]).set_checksum(if c == 0 { 0xffff } else { c });
    } else {
        TcpPacket::new_unchecked(&mut f[l4..]).fill_checksum(src, dst);
    }
}

/// Sums `csum_start..` to the end of the frame (the seed in the field included),
/// inverts and stores at `csum_start + csum_offset`; 0 is stored as 0xffff (Linux).
fn fill_generic_checksum(f: &mut [u8], o: &TxOffload) {
    let start = usize::from(o.csum_start);
    let at = start + usize::from(o.csum_offset);
    let c = match checksum::finish(checksum::data(&f[start..])) {
        0 => 0xffff,
        c => c,
    };
    f[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// TCP segmentation of a validated TSO request.
fn segment(frame: &[u8], o: &TxOffload) -> Vec<Vec<u8>> {
    let (l3, l4, hdr_len) = (usize::from(o.l3_offset), usize::from(o.l4_offset), usize::from(o.hdr_len));
    let mss = usize::from(o.mss);
    let (template, payload) = frame.split_at(hdr_len);
    let (ident, seq, tcp_flags) = {
        let t = TcpPacket::new_unchecked(&template[l4..]);
        (if o.ipv6 { 0 } else { Ipv4Packet::new_unchecked(&template[l3..]).ident() }, t.seq_number(), t.flags())
    };
    let n = tso_segment_count(payload.len(), o.mss);
    (0..n)
        .map(|k| {
            let chunk = &payload[(k * mss).min(payload.len())..((k + 1) * mss).min(payload.len())];
            let mut s = Vec::with_capacity(hdr_len + chunk.len());
            s.extend_from_slice(template);
            s.extend_from_slice(chunk);
            let seg_len = s.len();
            if o.ipv6 {
                Ipv6Packet::new_unchecked(&mut s[l3..]).set_payload_len((seg_len - l3 - ipv6::HEADER_LEN) as u16);
            } else {
                let mut ip = Ipv4Packet::new_unchecked(&mut s[l3..]);
                ip.set_total_len((seg_len - l3) as u16);
                ip.set_ident(ident.wrapping_add(k as u16));
                fill_ipv4_checksum(&mut s, o);
            }
            let mut f = tcp_flags;
            if k + 1 < n {
                f &= !(tcp::flags::FIN | tcp::flags::PSH);
            }
            if k > 0 {
                f &= !tcp::flags::CWR;
            }
            let (src, dst) = addresses(&s, o);
            let mut t = TcpPacket::new_unchecked(&mut s[l4..]);
            t.set_seq_number(seq.wrapping_add((k * mss) as u32));
            t.set_flags(f);
            t.fill_checksum(src, dst);
            s
        })
        .collect()
}

/// Where the headers of a well-formed TCP or UDP frame sit: any number of VLAN tags,
/// IPv4 (options allowed, not a fragment) or IPv6 (no extension headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeaders {
    pub vlan_tags: usize,
    pub l3: usize,
    pub l4: usize,
    pub ipv6: bool,
    pub udp: bool,
    /// TCP header length (data offset, options included) or 8 for UDP.
    pub l4_header_len: usize,
    /// End of the IP packet as its length field says.
    pub ip_end: usize,
}

impl FrameHeaders {
    /// Ethernet, tags, IP and TCP/UDP headers: a TSO `hdr_len`.
    pub fn hdr_len(&self) -> usize {
        self.l4 + self.l4_header_len
    }
    /// The TCP/UDP payload of `frame`.
    pub fn payload<'a>(&self, frame: &'a [u8]) -> &'a [u8] {
        &frame[self.hdr_len()..self.ip_end]
    }
}

/// Parses a frame's headers with the wire views; `None` unless it is a well-formed,
/// unfragmented TCP or UDP packet over IPv4 or IPv6 (without extension headers).
pub fn parse_headers(frame: &[u8]) -> Option<FrameHeaders> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    let mut ethertype = u16::from(eth.ethertype());
    let mut l3 = ethernet::HEADER_LEN;
    let mut vlan_tags = 0;
    while vlan::is_tpid(ethertype) {
        ethertype = VlanTag::new_checked(frame.get(l3..)?).ok()?.ethertype().into();
        l3 += vlan::HEADER_LEN;
        vlan_tags += 1;
    }
    let (l4, ip_end, proto, is_v6) = match ethertype {
        ipv4::ETHERTYPE => {
            let p = Ipv4Packet::new_checked(&frame[l3..]).ok()?;
            if p.version() != 4 || p.is_fragment() {
                return None;
            }
            (l3 + p.header_len(), l3 + usize::from(p.total_len()), p.protocol(), false)
        }
        ipv6::ETHERTYPE => {
            let p = Ipv6Packet::new_checked(&frame[l3..]).ok()?;
            if p.version() != 6 {
                return None;
            }
            (l3 + ipv6::HEADER_LEN, l3 + ipv6::HEADER_LEN + usize::from(p.payload_len()), p.next_header(), true)
        }
        _ => return None,
    };
    let seg = &frame[l4..ip_end];
    let (udp, l4_header_len) = match proto {
        protocol::TCP => (false, TcpPacket::new_checked(seg).ok()?.header_len()),
        protocol::UDP => {
            let u = UdpPacket::new_checked(seg).ok()?;
            if usize::from(u.len()) != seg.len() {
                return None;
            }
            (true, udp::HEADER_LEN)
        }
        _ => return None,
    };
    Some(FrameHeaders { vlan_tags, l3, l4, ipv6: is_v6, udp, l4_header_len, ip_end })
}

/// What a stack asks of the NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffloadKind {
    /// `CHECKSUM_PARTIAL` to a `NETIF_F_HW_CSUM` device: the pseudo-header seed in the
    /// checksum field, `csum_start`/`csum_offset` point at it.
    Generic,
    /// IPv4 header and TCP/UDP checksum computed by the NIC (`IPV4_CSUM`, `L4_CSUM`).
    Full,
    /// TCP segmentation (with its checksums).
    Tso,
}

/// How Linux would hand a packet over: given a well-formed frame (any VLANs, IPv4 with
/// options or IPv6, TCP with options or UDP; no padding after the IP packet) with its
/// checksums already correct, the bytes the stack passes down and the request.
///
/// * `Generic`: the L4 checksum field holds the folded pseudo-header sum (Linux's
///   `~csum_tcpudp_magic(.., 0)`), `csum_start` = L4 offset, `csum_offset` = 16 (TCP)
///   or 6 (UDP); the IPv4 header checksum stays as the stack computed it.
/// * `Full`: the L4 checksum field holds garbage (the complement of the correct value,
///   so a NIC that sums the field instead of taking it as 0 is caught); over IPv4 the
///   header checksum is zeroed and `IPV4_CSUM` set.
/// * `Tso`: as `Full`, plus `TSO`, `mss` (required) and `hdr_len`. A UDP frame gives a
///   request with `TSO` and `UDP`, which the NIC refuses.
///
/// Panics when the frame is not such a frame.
pub fn as_stack_hands_it(frame: &[u8], kind: OffloadKind, mss: Option<u16>) -> (Vec<u8>, TxOffload) {
    let h = parse_headers(frame).unwrap_or_else(|| panic!("not a well-formed TCP/UDP frame: {:02x?}", &frame[..frame.len().min(80)]));
    assert_eq!(h.ip_end, frame.len(), "a stack hands over frames without padding after the IP packet");
    let mut f = frame.to_vec();
    let mut o = TxOffload { l3_offset: h.l3 as u16, l4_offset: h.l4 as u16, ipv6: h.ipv6, udp: h.udp, ..TxOffload::default() };
    let csum_at = h.l4 + usize::from(if h.udp { UDP_CSUM_OFFSET } else { TCP_CSUM_OFFSET });
    match kind {
        OffloadKind::Generic => {
            let (src, dst) = addresses(&f, &o);
            let seed = checksum::fold(ip::pseudo_header(src, dst, o.l4_protocol(), f.len() - h.l4));
            f[csum_at..csum_at + 2].copy_from_slice(&seed.to_be_bytes());
            o.generic_csum = true;
            o.csum_start = h.l4 as u16;
            o.csum_offset = if h.udp { UDP_CSUM_OFFSET } else { TCP_CSUM_OFFSET };
        }
        OffloadKind::Full | OffloadKind::Tso => {
            for b in &mut f[csum_at..csum_at + 2] {
                *b = !*b;
            }
            if !h.ipv6 {
                Ipv4Packet::new_unchecked(&mut f[h.l3..]).set_checksum(0);
                o.ipv4_csum = true;
            }
            o.l4_csum = true;
            if kind == OffloadKind::Tso {
                o.tso = true;
                o.mss = mss.expect("TSO needs an MSS");
                o.hdr_len = h.hdr_len() as u16;
            }
        }
    }
    (f, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tcp::flags as tf;
    use crate::wire::{EthernetAddress, EthernetRepr, Ipv4Repr, Ipv6Repr, TcpOption, TcpRepr, UdpRepr, VlanRepr};
    use std::net::{Ipv4Addr, Ipv6Addr};

    const MAX: usize = 9022;

    fn eth(ethertype: u16, vlans: &[u16]) -> Vec<u8> {
        let mut types: Vec<u16> = vlans.iter().map(|_| vlan::TPID_CTAG).collect();
        types.push(ethertype);
        let mut f = vec![0u8; ethernet::HEADER_LEN + vlan::HEADER_LEN * vlans.len()];
        let e = EthernetRepr { dst_addr: EthernetAddress([2, 0, 0, 0, 0, 1]), src_addr: EthernetAddress([2, 0, 0, 0, 0, 2]), ethertype: types[0].into() };
        e.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        for (i, &vid) in vlans.iter().enumerate() {
            let at = ethernet::HEADER_LEN + vlan::HEADER_LEN * i;
            VlanRepr { pcp: 1, dei: false, vid, ethertype: types[i + 1].into() }.emit(&mut VlanTag::new_unchecked(&mut f[at..]));
        }
        f
    }

    /// A frame with correct checksums: L4 bytes built by `l4` over the addresses.
    fn ipv4_frame(vlans: &[u16], ip: Ipv4Repr, l4: Vec<u8>) -> Vec<u8> {
        let mut f = eth(ipv4::ETHERTYPE, vlans);
        let l3 = f.len();
        let ip = Ipv4Repr { payload_len: l4.len(), ..ip };
        f.resize(l3 + ip.header_len(), 0);
        ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[l3..]));
        f.extend_from_slice(&l4);
        f
    }

    fn ipv6_frame(vlans: &[u16], ip: Ipv6Repr, l4: Vec<u8>) -> Vec<u8> {
        let mut f = eth(ipv6::ETHERTYPE, vlans);
        let l3 = f.len();
        let ip = Ipv6Repr { payload_len: l4.len(), ..ip };
        f.resize(l3 + ipv6::HEADER_LEN, 0);
        ip.emit(&mut Ipv6Packet::new_unchecked(&mut f[l3..]));
        f.extend_from_slice(&l4);
        f
    }

    fn tcp_bytes(r: &TcpRepr, src: IpAddr, dst: IpAddr, payload: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; r.buffer_len(payload.len())];
        r.emit(&mut TcpPacket::new_unchecked(&mut b[..]), src, dst, payload);
        b
    }

    fn udp_bytes(r: &UdpRepr, src: IpAddr, dst: IpAddr, payload: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; r.buffer_len(payload.len())];
        r.emit(&mut UdpPacket::new_unchecked(&mut b[..]), src, dst, payload);
        b
    }

    fn v4() -> (Ipv4Addr, Ipv4Addr) {
        (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
    }

    fn v6() -> (Ipv6Addr, Ipv6Addr) {
        ("2001:db8::1".parse().unwrap(), "2001:db8::2".parse().unwrap())
    }

    fn tcp_repr(flags: u16, options: Vec<u8>) -> TcpRepr {
        TcpRepr { src_port: 49152, dst_port: 80, seq_number: 0x0102_0304, ack_number: 7, flags, window_len: 64240, urgent_at: 0, options }
    }

    fn payload(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 131 + 7) as u8).collect()
    }

    fn tcp_v4_frame(vlans: &[u16], ip_options: Vec<u8>, r: &TcpRepr, pl: &[u8]) -> Vec<u8> {
        let (s, d) = v4();
        let ip = Ipv4Repr { options: ip_options, ident: 0x1234, ..Ipv4Repr::new(s, d, protocol::TCP, 0) };
        ipv4_frame(vlans, ip, tcp_bytes(r, s.into(), d.into(), pl))
    }

    fn tcp_v6_frame(vlans: &[u16], r: &TcpRepr, pl: &[u8]) -> Vec<u8> {
        let (s, d) = v6();
        ipv6_frame(vlans, Ipv6Repr::new(s, d, protocol::TCP, 0), tcp_bytes(r, s.into(), d.into(), pl))
    }

    fn l4_ok(f: &[u8]) -> bool {
        let h = parse_headers(f).unwrap();
        let seg = &f[h.l4..h.ip_end];
        let (s, d): (IpAddr, IpAddr) = if h.ipv6 {
            let p = Ipv6Packet::new_unchecked(&f[h.l3..]);
            (p.src_addr().into(), p.dst_addr().into())
        } else {
            let p = Ipv4Packet::new_unchecked(&f[h.l3..]);
            (p.src_addr().into(), p.dst_addr().into())
        };
        if h.udp {
            UdpPacket::new_unchecked(seg).verify_checksum(s, d)
        } else {
            TcpPacket::new_unchecked(seg).verify_checksum(s, d)
        }
    }

    fn ip_ok(f: &[u8]) -> bool {
        let h = parse_headers(f).unwrap();
        h.ipv6 || Ipv4Packet::new_unchecked(&f[h.l3..]).verify_checksum()
    }

    #[test]
    fn context_descriptor_layout_and_round_trip() {
        let o = TxOffload { l3_offset: 18, l4_offset: 38, csum_start: 38, csum_offset: 16, mss: 1448, hdr_len: 70, tso: true, l4_csum: true, ipv4_csum: true, ..Default::default() };
        let d = o.context_descriptor();
        assert_eq!(d, [18, 0, 38, 0, 38, 0, 16, 0, 0xa8, 0x05, 0x74, 0x00, 70, 0, 0, 0]);
        assert_eq!(TxOffload::from_context_descriptor(&d), o);
        let all = TxOffload { generic_csum: true, ipv6: true, udp: true, ..o };
        assert_eq!(u16::from_le_bytes([all.context_descriptor()[10], all.context_descriptor()[11]]), 0x1fc);
        assert_eq!(TxOffload::from_context_descriptor(&all.context_descriptor()), all);
        assert!(TxOffload::default().is_none());
        assert!(TxOffload { ipv6: true, udp: true, l3_offset: 14, ..Default::default() }.is_none());
        assert!(!TxOffload { ipv4_csum: true, ..Default::default() }.is_none());
    }

    #[test]
    fn generic_checksum_matches_known_good_packets() {
        // The SYN of wire::tcp's test: checksum 0xc41c computed independently.
        let r = tcp_repr(tf::SYN | tf::ECE | tf::CWR, TcpOption::emit_all(&[TcpOption::MaxSegmentSize(1460)]));
        let r = TcpRepr { ack_number: 0, ..r };
        let f = tcp_v4_frame(&[], vec![], &r, &[]);
        assert_eq!(&f[34 + 16..34 + 18], &[0xc4, 0x1c]);
        let (handed, o) = as_stack_hands_it(&f, OffloadKind::Generic, None);
        assert_eq!((o.csum_start, o.csum_offset, o.generic_csum, o.ipv4_csum, o.l4_csum), (34, 16, true, false, false));
        assert_ne!(&handed[50..52], &[0xc4, 0x1c]);
        assert_eq!(apply(&handed, &o, MAX).unwrap(), vec![f.clone()]);
        // The UDP datagram of wire::udp's test: fe80::1 -> ff02::1, checksum 0x4ef4.
        let (s, d): (Ipv6Addr, Ipv6Addr) = ("fe80::1".parse().unwrap(), "ff02::1".parse().unwrap());
        let dg = vec![0x14, 0xe9, 0x14, 0xe9, 0x00, 0x0c, 0x4e, 0xf4, 0x68, 0x69, 0x21, 0x21];
        let f = ipv6_frame(&[5], Ipv6Repr::new(s, d, protocol::UDP, 0), dg);
        let (handed, o) = as_stack_hands_it(&f, OffloadKind::Generic, None);
        assert_eq!((o.l3_offset, o.csum_start, o.csum_offset), (18, 58, 6));
        assert_eq!(apply(&handed, &o, MAX).unwrap(), vec![f]);
        // The seed is what Linux writes: the folded pseudo-header sum, not inverted.
        let seed = u16::from_be_bytes([handed[64], handed[65]]);
        assert_eq!(seed, checksum::fold(checksum::pseudo_header_v6(s, d, 17, 12)));
    }

    #[test]
    fn generic_checksum_anywhere_and_zero_result_stored_as_ffff() {
        // Any range: a one's-complement sum over bytes 20.. stored at 30.
        let mut f = payload(101);
        let o = TxOffload { generic_csum: true, csum_start: 20, csum_offset: 10, ..Default::default() };
        f[30] = 0;
        f[31] = 0;
        let out = apply(&f, &o, MAX).unwrap().remove(0);
        assert!(checksum::verifies(checksum::data(&out[20..])));
        assert_eq!(&out[..30], &f[..30]);
        assert_eq!(&out[32..], &f[32..]);
        // Bytes summing to 0xffff give a checksum of 0, stored as 0xffff (Linux's
        // CSUM_MANGLED_0), which verifies all the same.
        let mut z = vec![0u8; 64];
        z[40] = 0xff;
        z[41] = 0xff;
        let o = TxOffload { generic_csum: true, csum_start: 40, csum_offset: 6, ..Default::default() };
        let out = apply(&z, &o, MAX).unwrap().remove(0);
        assert_eq!(&out[46..48], &[0xff, 0xff]);
        assert!(checksum::verifies(checksum::data(&out[40..])));
    }

    #[test]
    fn full_offload_ipv4_ipv6_tcp_udp() {
        let r = tcp_repr(tf::ACK | tf::PSH, TcpOption::emit_all(&[TcpOption::NoOp, TcpOption::NoOp, TcpOption::Timestamps(1, 2)]));
        let (s4, d4) = v4();
        let (s6, d6) = v6();
        let udp = UdpRepr { src_port: 5353, dst_port: 53 };
        let frames = vec![
            tcp_v4_frame(&[], vec![], &r, &payload(100)),
            tcp_v4_frame(&[1, 2], vec![0x94, 0x04, 0x00, 0x00, 1, 1, 1, 0], &r, &payload(1001)),
            tcp_v6_frame(&[3], &r, &payload(7)),
            ipv4_frame(&[], Ipv4Repr::new(s4, d4, protocol::UDP, 0), udp_bytes(&udp, s4.into(), d4.into(), &payload(33))),
            ipv6_frame(&[4, 5], Ipv6Repr::new(s6, d6, protocol::UDP, 0), udp_bytes(&udp, s6.into(), d6.into(), &payload(0))),
        ];
        for f in frames {
            let (handed, o) = as_stack_hands_it(&f, OffloadKind::Full, None);
            assert_ne!(handed, f);
            assert_eq!(o.ipv4_csum, !o.ipv6);
            let out = apply(&handed, &o, MAX).unwrap();
            assert_eq!(out, vec![f.clone()], "{o:?}");
            assert!(ip_ok(&out[0]) && l4_ok(&out[0]));
            // only the IPv4 header checksum, or only the L4 one
            let only_l4 = TxOffload { ipv4_csum: false, ..o };
            let out = apply(&handed, &only_l4, MAX).unwrap().remove(0);
            assert!(l4_ok(&out));
            assert_eq!(ip_ok(&out), o.ipv6);
            let only_ip = TxOffload { l4_csum: false, ..o };
            let out = apply(&handed, &only_ip, MAX).unwrap().remove(0);
            assert!(ip_ok(&out) && !l4_ok(&out));
        }
    }

    #[test]
    fn full_offload_udp_zero_is_sent_as_ffff() {
        let (s, d) = v4();
        let udp = UdpRepr { src_port: 1, dst_port: 2 };
        // choose the last payload word so that the checksum computes to 0
        let c = {
            let b = udp_bytes(&udp, s.into(), d.into(), &[0, 0, 0, 0]);
            UdpPacket::new_unchecked(&b[..]).checksum()
        };
        let pl = [(c >> 8) as u8, c as u8, 0, 0];
        let f = ipv4_frame(&[], Ipv4Repr::new(s, d, protocol::UDP, 0), udp_bytes(&udp, s.into(), d.into(), &pl));
        assert_eq!(&f[40..42], &[0xff, 0xff]);
        let (handed, o) = as_stack_hands_it(&f, OffloadKind::Full, None);
        let out = apply(&handed, &o, MAX).unwrap().remove(0);
        assert_eq!(&out[40..42], &[0xff, 0xff]);
        assert_eq!(out, f);
        // generic too (Linux's CSUM_MANGLED_0)
        let (handed, o) = as_stack_hands_it(&f, OffloadKind::Generic, None);
        assert_eq!(apply(&handed, &o, MAX).unwrap(), vec![f]);
    }

    /// Checks the TSO properties of the spec on one request; returns the segments.
    fn check_tso(f: &[u8], mss: u16) -> Vec<Vec<u8>> {
        let h = parse_headers(f).unwrap();
        let pl = h.payload(f).to_vec();
        let (handed, o) = as_stack_hands_it(f, OffloadKind::Tso, Some(mss));
        let segs = apply(&handed, &o, MAX).unwrap();
        let n = pl.len().div_ceil(usize::from(mss)).max(1);
        assert_eq!(segs.len(), n);
        let t0 = TcpPacket::new_unchecked(&f[h.l4..]);
        let ip0 = Ipv4Packet::new_unchecked(&f[h.l3..]);
        let mut joined = Vec::new();
        for (k, s) in segs.iter().enumerate() {
            let want = if k + 1 < n { usize::from(mss) } else { pl.len() - k * usize::from(mss) };
            assert_eq!(s.len(), h.hdr_len() + want, "segment {k}");
            assert!(s.len() + FCS_LEN <= MAX);
            let sh = parse_headers(s).expect("segment parses");
            assert_eq!((sh.l3, sh.l4, sh.ip_end), (h.l3, h.l4, s.len()));
            assert!(ip_ok(s) && l4_ok(s), "segment {k} checksums");
            assert_eq!(&s[..h.l3], &f[..h.l3]);
            if !h.ipv6 {
                let ip = Ipv4Packet::new_unchecked(&s[h.l3..]);
                assert_eq!(ip.ident(), ip0.ident().wrapping_add(k as u16));
                assert_eq!(ip.options(), ip0.options());
                assert_eq!(ip.dont_frag(), ip0.dont_frag());
            }
            let t = TcpPacket::new_unchecked(&s[h.l4..]);
            assert_eq!(t.seq_number(), t0.seq_number().wrapping_add((k * usize::from(mss)) as u32));
            let mut fl = t0.flags();
            if k + 1 < n {
                fl &= !(tf::FIN | tf::PSH);
            }
            if k > 0 {
                fl &= !tf::CWR;
            }
            assert_eq!(t.flags(), fl, "segment {k} flags");
            assert_eq!((t.ack_number(), t.window_len(), t.options()), (t0.ack_number(), t0.window_len(), t0.options()));
            joined.extend_from_slice(t.payload());
        }
        assert_eq!(joined, pl);
        segs
    }

    #[test]
    fn tso_counts_lengths_flags_and_checksums() {
        let all = tf::FIN | tf::PSH | tf::CWR | tf::ACK | tf::ECE;
        let r = tcp_repr(all, TcpOption::emit_all(&[TcpOption::NoOp, TcpOption::NoOp, TcpOption::Timestamps(9, 10)]));
        for (len, mss) in [(0, 1448), (1, 1448), (1448, 1448), (1449, 1448), (4000, 1000), (4001, 1000), (10, 1), (65535 - 52, 8952)] {
            let segs = check_tso(&tcp_v4_frame(&[], vec![], &r, &payload(len)), mss);
            assert_eq!(segs.len(), len.div_ceil(usize::from(mss)).max(1));
        }
        // a single segment keeps every flag
        let segs = check_tso(&tcp_v4_frame(&[], vec![], &r, &payload(100)), 1448);
        assert_eq!(TcpPacket::new_unchecked(&segs[0][34..]).flags(), all);
        // VLANs and IPv4 options; IPv6
        check_tso(&tcp_v4_frame(&[7, 8], vec![0x94, 0x04, 0x00, 0x00, 0x07, 0x07, 0x04, 0, 0, 0, 0, 0, 1, 0, 0, 0], &r, &payload(5000)), 1200);
        check_tso(&tcp_v6_frame(&[9], &r, &payload(9000)), 1440);
        check_tso(&tcp_v6_frame(&[], &r, &payload(0)), 1);
    }

    #[test]
    fn tso_ident_and_sequence_wrap() {
        let r = TcpRepr { seq_number: u32::MAX - 1500, ..tcp_repr(tf::ACK, vec![]) };
        let (s, d) = v4();
        let ip = Ipv4Repr { ident: 0xfffe, ..Ipv4Repr::new(s, d, protocol::TCP, 0) };
        let f = ipv4_frame(&[], ip, tcp_bytes(&r, s.into(), d.into(), &payload(4000)));
        let segs = check_tso(&f, 1000);
        let idents: Vec<u16> = segs.iter().map(|s| Ipv4Packet::new_unchecked(&s[14..]).ident()).collect();
        assert_eq!(idents, vec![0xfffe, 0xffff, 0, 1]);
        let seqs: Vec<u32> = segs.iter().map(|s| TcpPacket::new_unchecked(&s[34..]).seq_number()).collect();
        assert_eq!(seqs, vec![u32::MAX - 1500, u32::MAX - 500, 499, 1499]);
    }

    #[test]
    fn tso_implies_the_checksums_and_keeps_the_template_lengths_out() {
        let r = tcp_repr(tf::ACK, vec![]);
        let f = tcp_v4_frame(&[], vec![], &r, &payload(3000));
        let (mut handed, o) = as_stack_hands_it(&f, OffloadKind::Tso, Some(1000));
        // no IPV4_CSUM/L4_CSUM bits, garbage lengths in the template: same segments
        let bare = TxOffload { ipv4_csum: false, l4_csum: false, ..o };
        let want = apply(&handed, &o, MAX).unwrap();
        Ipv4Packet::new_unchecked(&mut handed[14..]).set_total_len(0xdead);
        assert_eq!(apply(&handed, &bare, MAX).unwrap(), want);
        // the TCP reserved bits are copied like the rest of the template
        handed[34 + 12] |= 0x0e;
        for s in apply(&handed, &o, MAX).unwrap() {
            assert_eq!(s[34 + 12] & 0x0e, 0x0e);
            assert!(l4_ok(&s));
        }
    }

    #[test]
    fn refused_requests() {
        use TxOffloadError::*;
        let r = tcp_repr(tf::ACK, vec![]);
        let f = tcp_v4_frame(&[], vec![], &r, &payload(3000));
        let len = f.len();
        let (h, tso) = as_stack_hands_it(&f, OffloadKind::Tso, Some(1448));
        let (_, full) = as_stack_hands_it(&f, OffloadKind::Full, None);
        let (_, generic) = as_stack_hands_it(&f, OffloadKind::Generic, None);
        let e = |o: TxOffload| validate(&h, &o, MAX).unwrap_err();
        assert_eq!(validate(&h, &tso, MAX), Ok(()));
        assert_eq!(e(TxOffload { mss: 0, ..tso }), TsoMssZero);
        assert_eq!(e(TxOffload { udp: true, ..tso }), TsoUdp);
        assert_eq!(e(TxOffload { hdr_len: 256, ..tso }), TsoHeaderTooLong);
        assert_eq!(e(TxOffload { hdr_len: 53, ..tso }), TsoHeaderTooShort);
        assert_eq!(e(TxOffload { mss: (MAX - FCS_LEN - 54 + 1) as u16, ..tso }), TsoSegmentTooLong);
        assert_eq!(validate(&h, &TxOffload { mss: (MAX - FCS_LEN - 54) as u16, ..tso }, MAX), Ok(()));
        assert_eq!(e(TxOffload { generic_csum: true, ..tso }), GenericWithL4);
        let short = &h[..100];
        assert_eq!(validate(short, &TxOffload { hdr_len: 101, ..tso }, MAX), Err(TsoHeaderBeyondFrame));
        let mut big = h.clone();
        big.resize(54 + 65_536, 0);
        assert_eq!(validate(&big, &tso, MAX), Err(TsoPayloadTooLong));
        big.truncate(54 + 65_535);
        assert_eq!(validate(&big, &tso, MAX), Ok(()));
        assert_eq!(apply(&big, &tso, MAX).unwrap().len(), 65_535usize.div_ceil(1448));
        assert_eq!(e(TxOffload { l4_csum: true, ..generic }), GenericWithL4);
        assert_eq!(e(TxOffload { csum_offset: (len - 34 - 1) as u16, ..generic }), GenericBeyondFrame);
        assert_eq!(validate(&h, &TxOffload { csum_offset: (len - 34 - 2) as u16, ..generic }, MAX), Ok(()));
        assert_eq!(e(TxOffload { l4_offset: len as u16 + 1, ..full }), OffsetsBeyondFrame);
        assert_eq!(e(TxOffload { l3_offset: len as u16 + 1, ..full }), OffsetsBeyondFrame);
        assert_eq!(e(TxOffload { l4_offset: 33, ..full }), OffsetsOutOfOrder);
        assert_eq!(e(TxOffload { ipv6: true, ..full }), OffsetsOutOfOrder);
        assert_eq!(validate(&h[..53], &full, MAX), Err(L4HeaderBeyondFrame));
        assert_eq!(validate(&h[..54], &full, MAX), Ok(()));
        assert_eq!(validate(&h[..42], &TxOffload { udp: true, ..full }, MAX), Ok(()));
        assert_eq!(validate(&h[..41], &TxOffload { udp: true, ..full }, MAX), Err(L4HeaderBeyondFrame));
        // IPV4_CSUM alone does not need an L4 header
        assert_eq!(validate(&h[..34], &TxOffload { l4_csum: false, ..full }, MAX), Ok(()));
        // overlong frames without TSO stop the queue; with no offload too
        assert_eq!(validate(&vec![0; MAX - FCS_LEN + 1], &TxOffload::default(), MAX), Err(FrameTooLong));
        assert_eq!(validate(&vec![0; MAX - FCS_LEN], &TxOffload::default(), MAX), Ok(()));
        assert!(!FrameTooLong.is_refusal() && TsoUdp.is_refusal());
        // nothing is applied to a refused request
        assert_eq!(apply(&h, &TxOffload { mss: 0, ..tso }, MAX), Err(TsoMssZero));
    }

    #[test]
    fn parse_headers_finds_offsets() {
        let r = tcp_repr(tf::ACK, TcpOption::emit_all(&[TcpOption::MaxSegmentSize(1)]));
        let f = tcp_v4_frame(&[1, 2, 3], vec![1, 1, 1, 1], &r, &payload(10));
        let h = parse_headers(&f).unwrap();
        assert_eq!((h.vlan_tags, h.l3, h.l4, h.hdr_len(), h.ip_end, h.udp, h.ipv6), (3, 26, 50, 74, f.len(), false, false));
        assert!(parse_headers(&f[..f.len() - 1]).is_none());
        assert!(parse_headers(&f[..20]).is_none());
    }
}
