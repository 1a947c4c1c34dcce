//! Seeded random TX offload work for the differential tests of the TX offloads
//! (docs/tx-offload.md; golden model [`crate::txoffload`]): frames as a Linux-like stack
//! hands them to the NIC, with their offload requests.
//!
//! A request is drawn as headers first (0–2 VLAN tags, C- or S-tags; IPv4 with random
//! options or IPv6; TCP with random options and flags or UDP), reusing the RX
//! generator's header builder ([`crate::rxgen::random_spec`], no faults, no
//! fragments, no extension headers), then a payload size that fits the kind:
//! one frame under `MAX_FRAME_LEN` (usually an MTU of 1500) for no offload, generic or
//! full checksum offload; for TSO up to 65,535 bytes (what the IP length fields can say)
//! and an MSS from 1 up to what fits `MAX_FRAME_LEN`, with at most `max_tso_segments`
//! segments. The packet is built with correct checksums and handed over by
//! [`crate::txoffload::as_stack_hands_it`]. With probability `p_invalid` the request is
//! then spoilt to one refused case of the spec.
//!
//! [`TxRequest::expected_wire`] says what the wire must carry, built independently of
//! the golden model: from the drawn packet description, segment by segment, with the
//! wire views' `emit` filling lengths and checksums. [`tcp_stream_payload`] reassembles
//! TCP payload by sequence number, for checking TSO (with tshark's view of the payloads,
//! [`crate::pcap::tshark_tcp_payloads`], as an independent judge).

use crate::rxgen::{self, L3Spec, L4Spec, RxFrameSpec, RxGenOptions};
use crate::txoffload::{self, as_stack_hands_it, OffloadKind, TxOffload, TxOffloadError, FCS_LEN, MAX_TSO_HDR_LEN, MAX_TSO_PAYLOAD};
use crate::wire::tcp::flags as tcp_flags;
use crate::wire::{ethernet, ipv6, tcp, udp, vlan, TcpPacket};
use rand::distributions::{Distribution, WeightedIndex};
use rand::seq::SliceRandom;
use rand::Rng;

/// Knobs of the generator. Probabilities are per request; weights are relative.
#[derive(Clone, Debug)]
pub struct TxGenOptions {
    /// `MAX_FRAME_LEN` (FCS included): frames and TSO segments fit it.
    pub max_frame_len: usize,
    /// Offload kinds: none, generic checksum, full checksum offload, TSO.
    pub kind_weights: [u32; 4],
    /// VLAN tags: 0, 1, 2.
    pub vlan_weights: [u32; 3],
    pub p_ipv6: f64,
    /// UDP rather than TCP (frames without TSO).
    pub p_udp: f64,
    pub p_ipv4_options: f64,
    pub p_tcp_options: f64,
    /// Largest IP packet of a frame without TSO, unless jumbo.
    pub mtu: usize,
    /// A frame without TSO as long as `max_frame_len` allows.
    pub p_jumbo: f64,
    /// Largest TSO payload (65,535 at most; the IP length fields limit it further).
    pub max_tso_payload: usize,
    /// Most segments one TSO request makes (bounds the MSS from below for big payloads).
    pub max_tso_segments: usize,
    /// A TSO request without the `IPV4_CSUM`/`L4_CSUM` bits (TSO implies them).
    pub p_tso_bare_flags: f64,
    /// TCP sequence number / IPv4 identification close to wrapping within the request.
    pub p_near_wrap: f64,
    /// A request spoilt to one refused case ([`INVALID_CASES`]).
    pub p_invalid: f64,
    /// IPv4 options only of well-known kinds with their proper lengths (No-Operation,
    /// Router Alert, Record Route, Timestamp), so that dissectors such as tshark's read
    /// past them; otherwise the RX generator's options of any type (the NIC must not care).
    pub known_ipv4_options: bool,
    /// The TCP flags are drawn at random within this mask (tshark, for one, reads an RST
    /// segment's payload as its "reset cause" text rather than as payload).
    pub tcp_flags_mask: u16,
}

impl Default for TxGenOptions {
    fn default() -> Self {
        TxGenOptions {
            max_frame_len: 9022,
            kind_weights: [2, 3, 3, 4],
            vlan_weights: [6, 3, 2],
            p_ipv6: 0.35,
            p_udp: 0.4,
            p_ipv4_options: 0.25,
            p_tcp_options: 0.6,
            mtu: 1500,
            p_jumbo: 0.15,
            max_tso_payload: MAX_TSO_PAYLOAD,
            max_tso_segments: 200,
            p_tso_bare_flags: 0.2,
            p_near_wrap: 0.15,
            p_invalid: 0.05,
            known_ipv4_options: false,
            tcp_flags_mask: tcp_flags::MASK,
        }
    }
}

/// The refused cases the generator draws (the descriptor-level ones, a context
/// descriptor with `EOP` or two of them, and `FrameTooLong` are not offload requests).
pub const INVALID_CASES: [TxOffloadError; 12] = [
    TxOffloadError::GenericWithL4,
    TxOffloadError::GenericBeyondFrame,
    TxOffloadError::OffsetsBeyondFrame,
    TxOffloadError::OffsetsOutOfOrder,
    TxOffloadError::L4HeaderBeyondFrame,
    TxOffloadError::TsoUdp,
    TxOffloadError::TsoMssZero,
    TxOffloadError::TsoHeaderTooLong,
    TxOffloadError::TsoHeaderBeyondFrame,
    TxOffloadError::TsoHeaderTooShort,
    TxOffloadError::TsoPayloadTooLong,
    TxOffloadError::TsoSegmentTooLong,
];

/// One drawn request.
#[derive(Clone, Debug)]
pub struct TxRequest {
    /// The bytes handed to the NIC (as the stack hands them).
    pub frame: Vec<u8>,
    /// The context descriptor's request (`is_none()` without offload).
    pub offload: TxOffload,
    /// What the stack asked for; `None`: no offload, the frame goes out as is.
    pub kind: Option<OffloadKind>,
    /// The packet with correct checksums (TSO: the whole payload behind one header).
    pub spec: RxFrameSpec,
    /// The refused case this request was spoilt to.
    pub invalid: Option<TxOffloadError>,
}

impl TxRequest {
    /// The TCP/UDP payload the stack wanted sent.
    pub fn payload(&self) -> &[u8] {
        match l4_of_ref(&self.spec) {
            L4Spec::Tcp { payload, .. } | L4Spec::Udp { payload, .. } | L4Spec::Raw { payload } => payload,
        }
    }

    pub fn is_udp(&self) -> bool {
        matches!(l4_of_ref(&self.spec), L4Spec::Udp { .. })
    }

    /// What the wire must carry (without FCS, before padding), built from [`Self::spec`]
    /// without the golden model: the packet itself (generic checksum: a TCP checksum
    /// that computes to 0 is sent as 0xffff, as UDP's always is), or per TSO segment the
    /// packet with that part of the payload, identification + k, sequence number + k·mss
    /// and the flags of the spec.
    pub fn expected_wire(&self) -> Result<Vec<Vec<u8>>, TxOffloadError> {
        if let Some(e) = self.invalid {
            return Err(e);
        }
        match self.kind {
            None | Some(OffloadKind::Full) => Ok(vec![self.spec.build()]),
            Some(OffloadKind::Generic) => {
                let (mut f, at) = self.spec.build_with_layout();
                if !self.is_udp() {
                    let mut t = TcpPacket::new_unchecked(&mut f[at.l4..]);
                    if t.checksum() == 0 {
                        t.set_checksum(0xffff);
                    }
                }
                Ok(vec![f])
            }
            Some(OffloadKind::Tso) => {
                let mut tmpl = self.spec.clone();
                let payload = std::mem::take(l4_payload_mut(&mut tmpl));
                let mss = usize::from(self.offload.mss);
                let n = txoffload::tso_segment_count(payload.len(), self.offload.mss);
                Ok((0..n)
                    .map(|k| {
                        let mut s = tmpl.clone();
                        if let L3Spec::Ipv4 { ip, .. } = &mut s.l3 {
                            ip.ident = ip.ident.wrapping_add(k as u16);
                        }
                        if let L4Spec::Tcp { repr, payload: p } = l4_of(&mut s) {
                            repr.seq_number = repr.seq_number.wrapping_add((k * mss) as u32);
                            if k + 1 < n {
                                repr.flags &= !(tcp_flags::FIN | tcp_flags::PSH);
                            }
                            if k > 0 {
                                repr.flags &= !tcp_flags::CWR;
                            }
                            *p = payload[(k * mss).min(payload.len())..((k + 1) * mss).min(payload.len())].to_vec();
                        }
                        s.build()
                    })
                    .collect())
            }
        }
    }
}

fn l4_of(spec: &mut RxFrameSpec) -> &mut L4Spec {
    match &mut spec.l3 {
        L3Spec::Ipv4 { l4, .. } | L3Spec::Ipv6 { l4, .. } => l4,
        L3Spec::Other { .. } => unreachable!("TX requests are IP"),
    }
}

fn l4_of_ref(spec: &RxFrameSpec) -> &L4Spec {
    match &spec.l3 {
        L3Spec::Ipv4 { l4, .. } | L3Spec::Ipv6 { l4, .. } => l4,
        L3Spec::Other { .. } => unreachable!("TX requests are IP"),
    }
}

fn l4_payload_mut(spec: &mut RxFrameSpec) -> &mut Vec<u8> {
    match l4_of(spec) {
        L4Spec::Tcp { payload, .. } | L4Spec::Udp { payload, .. } | L4Spec::Raw { payload } => payload,
    }
}

fn random_bytes<R: Rng>(rng: &mut R, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

fn weighted<R: Rng>(rng: &mut R, w: &[u32]) -> usize {
    WeightedIndex::new(w).map(|d| d.sample(rng)).unwrap_or(0)
}

/// Headers only (empty payload), drawn by the RX generator without faults.
fn random_headers<R: Rng>(rng: &mut R, opts: &TxGenOptions, v6: bool, is_udp: bool) -> RxFrameSpec {
    let [v0, v1, v2] = opts.vlan_weights;
    let ro = RxGenOptions {
        vlan_weights: [v0, v1, v2, 0],
        l3_weights: if v6 { [0, 1, 0] } else { [1, 0, 0] },
        l4_weights: if is_udp { [0, 1, 0] } else { [1, 0, 0] },
        p_ipv4_options: opts.p_ipv4_options,
        p_fragment: 0.0,
        p_ipv6_ext: 0.0,
        p_tcp_options: opts.p_tcp_options,
        max_ip_len: 0,
        p_jumbo: 0.0,
        p_trailer: 0.0,
        min_len: 0,
        ..RxGenOptions::clean()
    };
    let mut spec = rxgen::random_spec(rng, &ro);
    l4_payload_mut(&mut spec).clear();
    if let L4Spec::Tcp { repr, .. } = l4_of(&mut spec) {
        repr.flags &= opts.tcp_flags_mask;
    }
    if let L3Spec::Ipv4 { ip, .. } = &mut spec.l3 {
        if opts.known_ipv4_options && !ip.options.is_empty() {
            let n = ip.options.len().div_ceil(4) * 4;
            ip.options = known_ipv4_options(rng, n);
        }
    }
    spec
}

/// `len` bytes (a multiple of 4) of well-formed IPv4 options (RFC 791 3.1): No-Operation,
/// Router Alert (RFC 2113), Record Route and Timestamp (flag 0) with room for one to
/// three entries, none filled yet; End of Option List and zeros pad the rest.
fn known_ipv4_options<R: Rng>(rng: &mut R, len: usize) -> Vec<u8> {
    let mut o = Vec::with_capacity(len);
    while o.len() < len {
        let room = len - o.len();
        match rng.gen_range(0..5) {
            0 => o.push(1),
            1 if room >= 4 => o.extend_from_slice(&[0x94, 0x04, 0x00, 0x00]),
            2 if room >= 7 => {
                let n = rng.gen_range(1..=((room - 3) / 4).min(3));
                o.extend_from_slice(&[7, (3 + 4 * n) as u8, 4]);
                o.resize(o.len() + 4 * n, 0);
            }
            3 if room >= 8 => {
                let n = rng.gen_range(1..=((room - 4) / 4).min(3));
                o.extend_from_slice(&[68, (4 + 4 * n) as u8, 5, 0]);
                o.resize(o.len() + 4 * n, 0);
            }
            4 => o.resize(len, 0), // End of Option List, then padding
            _ => {}
        }
    }
    o
}

/// A payload length up to `max`: often small, sometimes exactly `max`.
fn random_len<R: Rng>(rng: &mut R, max: usize) -> usize {
    match rng.gen_range(0..20) {
        0 => 0,
        1 => max,
        2..=8 => rng.gen_range(0..=max.min(64)),
        _ => rng.gen_range(0..=max),
    }
}

/// A TSO payload length up to `max`.
fn random_tso_len<R: Rng>(rng: &mut R, max: usize) -> usize {
    match rng.gen_range(0..20) {
        0 | 1 => 0,
        2..=6 => rng.gen_range(1..=max.clamp(1, 3000)).min(max),
        7..=9 => max - rng.gen_range(0..=max.min(100)),
        _ => rng.gen_range(0..=max),
    }
}

/// An MSS in `lo..=hi` for `payload` bytes: common values, tiny ones, the limit, exact
/// divisors of the payload, or anything.
fn random_mss<R: Rng>(rng: &mut R, lo: usize, hi: usize, payload: usize) -> usize {
    const COMMON: [usize; 9] = [536, 1220, 1380, 1440, 1448, 1460, 4096, 8948, 8960];
    match rng.gen_range(0..10) {
        0..=2 => {
            let fits: Vec<usize> = COMMON.iter().copied().filter(|m| (lo..=hi).contains(m)).collect();
            fits.choose(rng).copied().unwrap_or_else(|| rng.gen_range(lo..=hi))
        }
        3 => rng.gen_range(lo..=hi.min(lo + 64)),
        4 => hi,
        5 if payload > 0 => {
            let k = rng.gen_range(1..=8);
            (payload / k).clamp(lo, hi)
        }
        _ => rng.gen_range(lo..=hi),
    }
}

/// The offload kind a refused case is drawn on.
fn kind_for<R: Rng>(rng: &mut R, e: TxOffloadError) -> OffloadKind {
    use TxOffloadError::*;
    match e {
        GenericWithL4 => *[OffloadKind::Generic, OffloadKind::Tso].choose(rng).unwrap(),
        GenericBeyondFrame => OffloadKind::Generic,
        OffsetsBeyondFrame | OffsetsOutOfOrder | L4HeaderBeyondFrame => OffloadKind::Full,
        _ => OffloadKind::Tso,
    }
}

/// One random request: the frame as the stack hands it and its offload request.
pub fn random_tx_request<R: Rng>(rng: &mut R, opts: &TxGenOptions) -> (Vec<u8>, TxOffload) {
    let r = random_request(rng, opts);
    (r.frame, r.offload)
}

/// One random request with what it was drawn from.
pub fn random_request<R: Rng>(rng: &mut R, opts: &TxGenOptions) -> TxRequest {
    use TxOffloadError::*;
    let invalid = if rng.gen_bool(opts.p_invalid) { Some(*INVALID_CASES.choose(rng).unwrap()) } else { None };
    let kind = match invalid {
        Some(e) => Some(kind_for(rng, e)),
        None => match weighted(rng, &opts.kind_weights) {
            0 => None,
            1 => Some(OffloadKind::Generic),
            2 => Some(OffloadKind::Full),
            _ => Some(OffloadKind::Tso),
        },
    };
    let tso = kind == Some(OffloadKind::Tso);
    let is_udp = if invalid == Some(TsoUdp) { true } else { !tso && rng.gen_bool(opts.p_udp) };
    let v6 = rng.gen_bool(opts.p_ipv6);
    let mut spec = random_headers(rng, opts, v6, is_udp);
    let hdrs = spec.headers_len();
    let l3 = ethernet::HEADER_LEN + vlan::HEADER_LEN * spec.vlans.len();
    let l4_hdr = match l4_of_ref(&spec) {
        L4Spec::Tcp { repr, .. } => repr.header_len(),
        _ => udp::HEADER_LEN,
    };
    let l4 = hdrs - l4_hdr;
    let frame_max = opts.max_frame_len - FCS_LEN;

    let mut mss = 0usize;
    let payload_len = if tso {
        // what the IP length field can say: IPv4 total length, IPv6 payload length
        let ip_overhead = if v6 { l4_hdr } else { hdrs - l3 };
        let mut max = opts.max_tso_payload.min(MAX_TSO_PAYLOAD - ip_overhead);
        if invalid == Some(TsoHeaderBeyondFrame) {
            max = max.min(MAX_TSO_HDR_LEN - 1 - hdrs);
        }
        let mss_max = (frame_max - hdrs).min(usize::from(u16::MAX));
        let segs = opts.max_tso_segments.max(1);
        let mut pl = random_tso_len(rng, max);
        pl = pl.min(mss_max * segs);
        let mss_min = pl.div_ceil(segs).max(1);
        mss = random_mss(rng, mss_min, mss_max, pl);
        pl
    } else {
        let max = if rng.gen_bool(opts.p_jumbo) { frame_max } else { frame_max.min(l3 + opts.mtu) };
        random_len(rng, max - hdrs)
    };
    *l4_payload_mut(&mut spec) = random_bytes(rng, payload_len);
    if rng.gen_bool(opts.p_near_wrap) {
        if let L4Spec::Tcp { repr, .. } = l4_of(&mut spec) {
            repr.seq_number = u32::MAX - rng.gen_range(0..=payload_len as u32 + 1);
        }
        if let L3Spec::Ipv4 { ip, .. } = &mut spec.l3 {
            ip.ident = u16::MAX - rng.gen_range(0..=8);
        }
    }
    let (packet, at) = spec.build_with_layout();
    debug_assert_eq!((at.l3, at.l4, at.ip_end), (l3, l4, packet.len()));
    let (mut frame, mut o) = match kind {
        None => (packet, TxOffload::default()),
        Some(k) => as_stack_hands_it(&packet, k, Some(mss as u16)),
    };
    if !tso {
        o.mss = 0;
    }
    if tso && invalid.is_none() && rng.gen_bool(opts.p_tso_bare_flags) {
        o.ipv4_csum = false;
        o.l4_csum = false;
    }
    if let Some(e) = invalid {
        spoil(rng, e, &mut frame, &mut o, opts);
    }
    TxRequest { frame, offload: o, kind, spec, invalid }
}

/// Turns a valid request into one the NIC refuses with `e` (and with nothing that
/// [`txoffload::validate`] checks earlier).
fn spoil<R: Rng>(rng: &mut R, e: TxOffloadError, frame: &mut Vec<u8>, o: &mut TxOffload, opts: &TxGenOptions) {
    use TxOffloadError::*;
    let len = frame.len();
    let (l3, l4) = (usize::from(o.l3_offset), usize::from(o.l4_offset));
    let ip_min = if o.ipv6 { ipv6::HEADER_LEN } else { 20 };
    let l4_min = if o.udp { udp::HEADER_LEN } else { tcp::HEADER_LEN };
    match e {
        GenericWithL4 => {
            if o.tso {
                o.generic_csum = true;
                o.csum_start = o.l4_offset;
                o.csum_offset = txoffload::TCP_CSUM_OFFSET;
            } else {
                o.l4_csum = true;
                o.ipv4_csum = !o.ipv6 && rng.gen_bool(0.5);
            }
        }
        GenericBeyondFrame => {
            if rng.gen_bool(0.5) {
                let cs = usize::from(o.csum_start);
                o.csum_offset = (len - cs - 2 + rng.gen_range(1..=8)) as u16;
            } else {
                o.csum_start = (len - 1 + rng.gen_range(0..=64)) as u16;
                o.csum_offset = rng.gen_range(0..=20);
            }
        }
        OffsetsBeyondFrame => {
            let past = (len + rng.gen_range(1..=64)) as u16;
            if rng.gen_bool(0.5) {
                o.l4_offset = past;
            } else {
                o.l3_offset = past;
            }
        }
        OffsetsOutOfOrder => {
            if !o.ipv6 && l4 - l3 < ipv6::HEADER_LEN && rng.gen_bool(0.3) {
                o.ipv6 = true; // an IPv4 header announced as IPv6
            } else {
                o.l4_offset = (l3 + rng.gen_range(0..ip_min)) as u16;
            }
        }
        L4HeaderBeyondFrame => frame.truncate(l4 + rng.gen_range(0..l4_min)),
        TsoUdp => {}
        TsoMssZero => o.mss = 0,
        TsoHeaderTooLong => o.hdr_len = rng.gen_range(MAX_TSO_HDR_LEN as u16 + 1..=4096),
        TsoHeaderBeyondFrame => o.hdr_len = rng.gen_range(len + 1..=MAX_TSO_HDR_LEN) as u16,
        TsoHeaderTooShort => o.hdr_len = rng.gen_range(0..l4 + tcp::HEADER_LEN) as u16,
        TsoPayloadTooLong => {
            let payload = len - usize::from(o.hdr_len);
            let extra = MAX_TSO_PAYLOAD - payload + rng.gen_range(1..=2000);
            frame.extend(random_bytes(rng, extra));
        }
        TsoSegmentTooLong => {
            let mss_max = opts.max_frame_len - FCS_LEN - usize::from(o.hdr_len);
            o.mss = rng.gen_range(mss_max as u16 + 1..=u16::MAX);
        }
        FrameTooLong | ContextWithEop | TwoContexts | TsoHeaderSplit => unreachable!("not drawn"),
    }
}

/// Reassembles the TCP payload of wire frames by sequence number (relative to the
/// lowest one, within 2^31). Overlaps must carry the same bytes.
pub fn try_tcp_stream_payload(segments: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let mut parts = Vec::with_capacity(segments.len());
    for (i, s) in segments.iter().enumerate() {
        let h = txoffload::parse_headers(s).filter(|h| !h.udp).ok_or_else(|| format!("frame {i} is not a well-formed TCP frame"))?;
        let seq = TcpPacket::new_unchecked(&s[h.l4..h.ip_end]).seq_number();
        parts.push((seq, h.payload(s)));
    }
    tcp_reassemble(parts.iter().map(|(s, p)| (*s, *p)))
}

/// [`try_tcp_stream_payload`], panicking on frames that are not TCP or leave a gap.
pub fn tcp_stream_payload(segments: &[Vec<u8>]) -> Vec<u8> {
    try_tcp_stream_payload(segments).unwrap_or_else(|e| panic!("{e}"))
}

/// Reassembles (sequence number, payload) pairs into one stream.
pub fn tcp_reassemble<'a>(parts: impl IntoIterator<Item = (u32, &'a [u8])>) -> Result<Vec<u8>, String> {
    let parts: Vec<(u32, &[u8])> = parts.into_iter().collect();
    let Some(&(base, _)) = parts.first() else { return Ok(Vec::new()) };
    let mut rel: Vec<(i64, &[u8])> = parts.iter().map(|&(s, p)| (i64::from(s.wrapping_sub(base) as i32), p)).collect();
    let lowest = rel.iter().map(|r| r.0).min().unwrap();
    rel.iter_mut().for_each(|r| r.0 -= lowest);
    rel.sort_by_key(|r| r.0);
    let mut out: Vec<u8> = Vec::new();
    for (off, p) in rel {
        let off = off as usize;
        if off > out.len() {
            return Err(format!("gap: {} bytes missing at stream offset {}", off - out.len(), out.len()));
        }
        let overlap = (out.len() - off).min(p.len());
        if out[off..off + overlap] != p[..overlap] {
            return Err(format!("overlap at stream offset {off} carries different bytes"));
        }
        out.extend_from_slice(&p[overlap..]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txoffload::{apply, validate};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn requests_are_what_they_say() {
        let mut rng = StdRng::seed_from_u64(1);
        let opts = TxGenOptions { p_invalid: 0.2, max_tso_payload: 20_000, ..Default::default() };
        for i in 0..400 {
            let r = random_request(&mut rng, &opts);
            assert_eq!(validate(&r.frame, &r.offload, opts.max_frame_len), r.invalid.map_or(Ok(()), Err), "request {i}: {r:?}");
            assert_eq!(r.kind.is_none(), r.offload.is_none());
            if r.invalid.is_none() {
                let wire = apply(&r.frame, &r.offload, opts.max_frame_len).unwrap();
                assert_eq!(wire, r.expected_wire().unwrap(), "request {i}");
                if !r.is_udp() {
                    assert_eq!(tcp_stream_payload(&wire), r.payload());
                }
            }
        }
    }

    #[test]
    fn reassembly_by_sequence_number() {
        let a: &[u8] = b"hello ";
        let b: &[u8] = b"world";
        assert_eq!(tcp_reassemble([(u32::MAX - 2, a), ((u32::MAX - 2).wrapping_add(6), b)]).unwrap(), b"hello world");
        assert_eq!(tcp_reassemble([(10, b), (4, a)]).unwrap(), b"hello world");
        assert_eq!(tcp_reassemble([(4, a), (7, &b"lo world"[..])]).unwrap(), b"hello world");
        assert!(tcp_reassemble([(4, a), (11, b)]).unwrap_err().contains("gap"));
        assert!(tcp_reassemble([(4, a), (5, b)]).unwrap_err().contains("overlap"));
        assert!(tcp_reassemble([]).unwrap().is_empty());
    }
}
