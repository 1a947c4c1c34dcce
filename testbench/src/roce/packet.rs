//! A whole RoCEv2 frame: Ethernet, IPv4 or IPv6, UDP to port 4791, BTH, the extended
//! headers the opcode table names (RETH, AETH, ImmDt), payload, pad to a multiple of 4,
//! ICRC. The frame is returned without FCS (MAC TX appends it) and padded to Ethernet's
//! 60-byte minimum after the ICRC, where the IP length says the packet ends.

use super::icrc;
use super::opcode::{self, OpInfo, IMMDT_LEN};
use crate::wire::{self, aeth, bth, ip, ipv4, ipv6, reth, udp};
use crate::wire::{AethHeader, AethRepr, BthHeader, BthRepr, EtherType, EthernetAddress, EthernetFrame, EthernetRepr};
use crate::wire::{Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, RethHeader, RethRepr, UdpPacket};
use std::net::IpAddr;
use std::ops::Range;

/// The UDP destination port of RoCEv2 (IANA).
pub const ROCE_UDP_PORT: u16 = 4791;
/// Ethernet frames shorter than this (without FCS) are padded.
pub const ETH_MIN_FRAME: usize = 60;

/// Why a frame is not a RoCEv2 packet this NIC accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoceError {
    /// Not IP/UDP to port 4791: an ordinary frame, not an error of RoCE.
    NotRoce,
    /// A header shorter than it must be, or lengths that contradict each other.
    Header(wire::Error),
    /// The ICRC does not match.
    BadIcrc,
    /// An opcode outside the RC table (`opcode::TABLE`).
    UnknownOpcode(u8),
    /// Payload and pad do not fit the opcode (a payload where none belongs, or a pad
    /// longer than the bytes after the headers).
    BadLength,
}

impl std::fmt::Display for RoceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoceError::NotRoce => f.write_str("not a RoCEv2 packet"),
            RoceError::Header(e) => write!(f, "RoCEv2 header: {e}"),
            RoceError::BadIcrc => f.write_str("bad ICRC"),
            RoceError::UnknownOpcode(o) => write!(f, "unsupported BTH opcode {o:#04x}"),
            RoceError::BadLength => f.write_str("payload length does not fit the opcode"),
        }
    }
}
impl std::error::Error for RoceError {}

impl From<wire::Error> for RoceError {
    fn from(e: wire::Error) -> Self {
        RoceError::Header(e)
    }
}

/// One RoCEv2 packet as plain data (its payload travels beside it). `bth.pad_count` is
/// derived from the payload length on emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoceRepr {
    pub eth_src: EthernetAddress,
    pub eth_dst: EthernetAddress,
    /// Both IPv4 or both IPv6.
    pub ip_src: IpAddr,
    pub ip_dst: IpAddr,
    /// IPv4 TOS / IPv6 traffic class (DSCP and ECN).
    pub traffic_class: u8,
    /// IPv4 TTL / IPv6 hop limit.
    pub ttl: u8,
    /// The UDP source port: free for the sender, used for ECMP entropy (per QP here).
    pub udp_src_port: u16,
    pub bth: BthRepr,
    pub reth: Option<RethRepr>,
    pub aeth: Option<AethRepr>,
    pub immdt: Option<u32>,
}

/// Bytes of pad that make `payload_len` a multiple of 4.
pub fn pad_for(payload_len: usize) -> u8 {
    ((4 - payload_len % 4) % 4) as u8
}

impl RoceRepr {
    fn info(&self) -> Result<&'static OpInfo, RoceError> {
        opcode::info(self.bth.opcode).ok_or(RoceError::UnknownOpcode(self.bth.opcode))
    }

    /// The UDP datagram's payload: BTH, extended headers, payload, pad, ICRC (ICRC left 0).
    fn transport_len(&self, payload_len: usize) -> Result<usize, RoceError> {
        Ok(self.info()?.header_len() + payload_len + usize::from(pad_for(payload_len)) + icrc::ICRC_LEN)
    }

    /// The Ethernet frame (no FCS). Panics if the headers the opcode needs are missing
    /// or the addresses mix families: a caller bug, not bad input.
    pub fn emit_frame(&self, payload: &[u8]) -> Vec<u8> {
        let info = self.info().expect("emit of an opcode outside the table");
        assert_eq!(info.reth, self.reth.is_some(), "{}: RETH", info.name);
        assert_eq!(info.aeth, self.aeth.is_some(), "{}: AETH", info.name);
        assert_eq!(info.immdt, self.immdt.is_some(), "{}: ImmDt", info.name);
        assert!(info.payload || payload.is_empty(), "{} carries no payload", info.name);
        let l4_len = udp::HEADER_LEN + self.transport_len(payload.len()).unwrap();
        let (ethertype, ip_len) = match self.ip_src {
            IpAddr::V4(_) => (EtherType::Ipv4, ipv4::HEADER_LEN),
            IpAddr::V6(_) => (EtherType::Ipv6, ipv6::HEADER_LEN),
        };
        let eth_len = wire::ethernet::HEADER_LEN;
        let mut f = vec![0u8; (eth_len + ip_len + l4_len).max(ETH_MIN_FRAME)];
        EthernetRepr { src_addr: self.eth_src, dst_addr: self.eth_dst, ethertype }.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        let ip_end = eth_len + ip_len + l4_len;
        {
            let ip = &mut f[eth_len..ip_end];
            match (self.ip_src, self.ip_dst) {
                (IpAddr::V4(src), IpAddr::V4(dst)) => {
                    let mut r = Ipv4Repr::new(src, dst, ip::protocol::UDP, l4_len);
                    r.ttl = self.ttl;
                    r.dscp_ecn = self.traffic_class;
                    r.emit(&mut Ipv4Packet::new_unchecked(&mut ip[..]));
                }
                (IpAddr::V6(src), IpAddr::V6(dst)) => {
                    let mut r = Ipv6Repr::new(src, dst, ip::protocol::UDP, l4_len);
                    r.hop_limit = self.ttl;
                    r.traffic_class = self.traffic_class;
                    r.emit(&mut Ipv6Packet::new_unchecked(&mut ip[..]));
                }
                _ => panic!("RoCE addresses of two families: {} -> {}", self.ip_src, self.ip_dst),
            }
        }
        let udp_start = eth_len + ip_len;
        {
            let mut u = UdpPacket::new_unchecked(&mut f[udp_start..ip_end]);
            u.set_src_port(self.udp_src_port);
            u.set_dst_port(ROCE_UDP_PORT);
            u.set_len(l4_len as u16);
            u.set_checksum(0);
        }
        let t = udp_start + udp::HEADER_LEN;
        let pad = pad_for(payload.len());
        let mut bth = self.bth;
        bth.pad_count = pad;
        bth.emit(&mut BthHeader::new_unchecked(&mut f[t..]));
        let mut at = t + bth::HEADER_LEN;
        if let Some(r) = &self.reth {
            r.emit(&mut RethHeader::new_unchecked(&mut f[at..]));
            at += reth::HEADER_LEN;
        }
        if let Some(a) = &self.aeth {
            a.emit(&mut AethHeader::new_unchecked(&mut f[at..]));
            at += aeth::HEADER_LEN;
        }
        if let Some(imm) = self.immdt {
            f[at..at + IMMDT_LEN].copy_from_slice(&imm.to_be_bytes());
            at += IMMDT_LEN;
        }
        f[at..at + payload.len()].copy_from_slice(payload);
        at += payload.len() + usize::from(pad);
        // IPv6 makes the UDP checksum mandatory (RFC 8200 8.1); over IPv4 RoCEv2 sends 0.
        if let (IpAddr::V6(_), IpAddr::V6(_)) = (self.ip_src, self.ip_dst) {
            UdpPacket::new_unchecked(&mut f[udp_start..ip_end]).fill_checksum(self.ip_src, self.ip_dst);
        }
        let c = icrc::icrc(&f[eth_len..at]).expect("headers just written");
        f[at..at + icrc::ICRC_LEN].copy_from_slice(&c.to_le_bytes());
        // The UDP checksum covers the ICRC too: compute it again now that it is in place.
        if let (IpAddr::V6(_), IpAddr::V6(_)) = (self.ip_src, self.ip_dst) {
            UdpPacket::new_unchecked(&mut f[udp_start..ip_end]).fill_checksum(self.ip_src, self.ip_dst);
        }
        f
    }

    /// Parses an Ethernet frame (no FCS): the packet and the payload's byte range in the
    /// frame. Checks lengths, the opcode against the table and the ICRC; IP and UDP
    /// checksums are not RoCE's business here (the RX checksum block reports them).
    pub fn parse_frame(frame: &[u8]) -> Result<(RoceRepr, Range<usize>), RoceError> {
        let eth = EthernetFrame::new_checked(frame).map_err(|_| RoceError::NotRoce)?;
        let eth_len = wire::ethernet::HEADER_LEN;
        let (ip_src, ip_dst, traffic_class, ttl, ip_hdr_len, ip_total) = match eth.ethertype() {
            EtherType::Ipv4 => {
                let p = Ipv4Packet::new_checked(&frame[eth_len..])?;
                let r = Ipv4Repr::parse(&p)?;
                if r.protocol != ip::protocol::UDP || r.more_frags || r.frag_offset != 0 {
                    return Err(RoceError::NotRoce);
                }
                (IpAddr::V4(r.src_addr), IpAddr::V4(r.dst_addr), r.dscp_ecn, r.ttl, p.header_len(), usize::from(p.total_len()))
            }
            EtherType::Ipv6 => {
                let p = Ipv6Packet::new_checked(&frame[eth_len..])?;
                let r = Ipv6Repr::parse(&p)?;
                if r.next_header != ip::protocol::UDP {
                    return Err(RoceError::NotRoce);
                }
                (IpAddr::V6(r.src_addr), IpAddr::V6(r.dst_addr), r.traffic_class, r.hop_limit, ipv6::HEADER_LEN, ipv6::HEADER_LEN + r.payload_len)
            }
            _ => return Err(RoceError::NotRoce),
        };
        let ip_packet = &frame[eth_len..eth_len + ip_total];
        let u = UdpPacket::new_checked(&ip_packet[ip_hdr_len..])?;
        if u.dst_port() != ROCE_UDP_PORT {
            return Err(RoceError::NotRoce);
        }
        let udp_src_port = u.src_port();
        let l4_end = ip_hdr_len + usize::from(u.len());
        let transport = &ip_packet[ip_hdr_len + udp::HEADER_LEN..l4_end];
        let bth_view = BthHeader::new_checked(transport)?;
        if transport.len() < bth::HEADER_LEN + icrc::ICRC_LEN {
            return Err(RoceError::Header(wire::Error::Truncated));
        }
        // The ICRC first: a damaged opcode or version is a damaged packet, dropped
        // silently, not a request to refuse.
        if !icrc::verify(&ip_packet[..l4_end]) {
            return Err(RoceError::BadIcrc);
        }
        let bth = BthRepr::parse(&bth_view)?;
        let info = opcode::info(bth.opcode).ok_or(RoceError::UnknownOpcode(bth.opcode))?;
        let fixed = info.header_len() + icrc::ICRC_LEN;
        if transport.len() < fixed {
            return Err(RoceError::Header(wire::Error::Truncated));
        }
        let mut at = bth::HEADER_LEN;
        let reth = if info.reth {
            let r = RethRepr::parse(&RethHeader::new_checked(&transport[at..])?)?;
            at += reth::HEADER_LEN;
            Some(r)
        } else {
            None
        };
        let aeth = if info.aeth {
            let a = AethRepr::parse(&AethHeader::new_checked(&transport[at..])?)?;
            at += aeth::HEADER_LEN;
            Some(a)
        } else {
            None
        };
        let immdt = if info.immdt {
            let b = &transport[at..at + IMMDT_LEN];
            at += IMMDT_LEN;
            Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        } else {
            None
        };
        let body = transport.len() - icrc::ICRC_LEN - at;
        let pad = usize::from(bth.pad_count);
        if body < pad || (!info.payload && body != 0) || body % 4 != 0 {
            return Err(RoceError::BadLength);
        }
        let start = eth_len + ip_hdr_len + udp::HEADER_LEN + at;
        let repr = RoceRepr { eth_src: eth.src_addr(), eth_dst: eth.dst_addr(), ip_src, ip_dst, traffic_class, ttl, udp_src_port, bth, reth, aeth, immdt };
        Ok((repr, start..start + body - pad))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{NakCode, Syndrome};

    fn base(opcode: u8, v6: bool) -> RoceRepr {
        let (s, d): (IpAddr, IpAddr) = if v6 { ("fd00::2".parse().unwrap(), "fd00::1".parse().unwrap()) } else { ("10.0.0.2".parse().unwrap(), "10.0.0.1".parse().unwrap()) };
        RoceRepr {
            eth_src: EthernetAddress([2, 0, 0, 0, 0, 2]),
            eth_dst: EthernetAddress([2, 0, 0, 0, 0, 1]),
            ip_src: s,
            ip_dst: d,
            traffic_class: 0,
            ttl: 64,
            udp_src_port: 0xc011,
            bth: BthRepr { opcode, solicited: false, mig_req: false, pad_count: 0, pkey: bth::DEFAULT_PKEY, fecn: false, becn: false, dest_qp: 0x11, ack_req: true, psn: 0xff_fffe },
            reth: None,
            aeth: None,
            immdt: None,
        }
    }

    #[test]
    fn round_trip_every_opcode_and_pad() {
        for v6 in [false, true] {
            for info in opcode::TABLE {
                for len in [0usize, 1, 2, 3, 4, 5, 255, 256] {
                    if !info.payload && len > 0 {
                        continue;
                    }
                    let mut r = base(info.opcode, v6);
                    r.reth = info.reth.then_some(RethRepr { virtual_addr: 0x1234_5678_9abc, rkey: 0x55aa, dma_len: len as u32 });
                    r.aeth = info.aeth.then_some(AethRepr { syndrome: Syndrome::Nak(NakCode::RemoteAccessError), msn: 7 });
                    r.immdt = info.immdt.then_some(0xdead_beef);
                    let payload: Vec<u8> = (0..len).map(|i| i as u8 ^ 0x5a).collect();
                    let f = r.emit_frame(&payload);
                    assert!(f.len() >= ETH_MIN_FRAME);
                    let (back, range) = RoceRepr::parse_frame(&f).unwrap();
                    let mut want = r.clone();
                    want.bth.pad_count = pad_for(len);
                    assert_eq!(back, want, "{} len {len}", info.name);
                    assert_eq!(&f[range], &payload[..]);
                }
            }
        }
    }

    #[test]
    fn errors() {
        let f = base(opcode::SEND_ONLY, false).emit_frame(b"abcde");
        let mut bad = f.clone();
        bad[14 + 20 + 8 + 12] ^= 1; // a payload byte
        assert_eq!(RoceRepr::parse_frame(&bad).unwrap_err(), RoceError::BadIcrc);
        let mut other = f.clone();
        other[14 + 20 + 2..14 + 20 + 4].copy_from_slice(&4792u16.to_be_bytes());
        assert_eq!(RoceRepr::parse_frame(&other).unwrap_err(), RoceError::NotRoce);
        let mut op = f.clone();
        op[14 + 20 + 8] = 0x64; // UD SEND Only
        assert_eq!(RoceRepr::parse_frame(&op).unwrap_err(), RoceError::BadIcrc, "the ICRC is checked first");
        let c = icrc::icrc(&op[14..op.len() - 4]).unwrap();
        let n = op.len();
        op[n - 4..].copy_from_slice(&c.to_le_bytes());
        assert_eq!(RoceRepr::parse_frame(&op).unwrap_err(), RoceError::UnknownOpcode(0x64));
        // UDP length that cuts the BTH short
        let mut short = f.clone();
        short[14 + 20 + 4..14 + 20 + 6].copy_from_slice(&18u16.to_be_bytes());
        assert!(matches!(RoceRepr::parse_frame(&short).unwrap_err(), RoceError::Header(_)));
        // Ethernet padding after the ICRC is ignored: a zero-byte SEND is 58 bytes
        let tiny = base(opcode::SEND_ONLY, false).emit_frame(&[]);
        assert_eq!(tiny.len(), ETH_MIN_FRAME);
        assert!(RoceRepr::parse_frame(&tiny).unwrap().1.is_empty());
    }
}
