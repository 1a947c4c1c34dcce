//! What IPv4 and IPv6 share: protocol numbers (IANA "Assigned Internet Protocol
//! Numbers"), the IPv6 extension-header numbers (RFC 8200 4, IANA "IPv6 Extension
//! Header Types") and the TCP/UDP pseudo-header sum over either family.

use crate::checksum;
use std::net::IpAddr;

/// IPv4 protocol / IPv6 next-header numbers.
pub mod protocol {
    pub const HOPOPT: u8 = 0;
    pub const ICMP: u8 = 1;
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const IPV6_ROUTE: u8 = 43;
    pub const IPV6_FRAG: u8 = 44;
    pub const GRE: u8 = 47;
    pub const ESP: u8 = 50;
    pub const AH: u8 = 51;
    pub const ICMPV6: u8 = 58;
    pub const IPV6_NONXT: u8 = 59;
    pub const IPV6_OPTS: u8 = 60;
    pub const SCTP: u8 = 132;
    pub const MOBILITY: u8 = 135;
    pub const HIP: u8 = 139;
    pub const SHIM6: u8 = 140;
    pub const EXPERIMENT1: u8 = 253;
    pub const EXPERIMENT2: u8 = 254;
}

/// The IPv6 extension headers (RFC 8200 4 and the IANA registry).
pub const IPV6_EXTENSION_HEADERS: [u8; 11] = [
    protocol::HOPOPT,
    protocol::IPV6_ROUTE,
    protocol::IPV6_FRAG,
    protocol::ESP,
    protocol::AH,
    protocol::IPV6_OPTS,
    protocol::MOBILITY,
    protocol::HIP,
    protocol::SHIM6,
    protocol::EXPERIMENT1,
    protocol::EXPERIMENT2,
];

pub fn is_ipv6_extension_header(next_header: u8) -> bool {
    IPV6_EXTENSION_HEADERS.contains(&next_header)
}

/// Pseudo-header partial sum for an upper-layer packet of `len` bytes between `src` and
/// `dst`, which must be of the same family.
pub fn pseudo_header(src: IpAddr, dst: IpAddr, protocol: u8, len: usize) -> u32 {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => checksum::pseudo_header_v4(s, d, protocol, len as u16),
        (IpAddr::V6(s), IpAddr::V6(d)) => checksum::pseudo_header_v6(s, d, protocol, len as u32),
        _ => panic!("pseudo-header over mixed address families {src} and {dst}"),
    }
}

/// The checksum field value of an upper-layer packet `l4` (its checksum field zeroed or
/// not: the caller decides what is summed).
pub fn l4_checksum(src: IpAddr, dst: IpAddr, protocol: u8, l4: &[u8]) -> u16 {
    checksum::finish(checksum::combine(&[pseudo_header(src, dst, protocol, l4.len()), checksum::data(l4)]))
}

/// Whether an upper-layer packet, checksum field included, sums to all ones.
pub fn l4_verifies(src: IpAddr, dst: IpAddr, protocol: u8, l4: &[u8]) -> bool {
    checksum::verifies(checksum::combine(&[pseudo_header(src, dst, protocol, l4.len()), checksum::data(l4)]))
}
