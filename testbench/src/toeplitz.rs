//! Golden model of the RSS Toeplitz hash (Microsoft "RSS hashing"; Intel 82599 datasheet
//! 7.1.2.8): for every set bit i of the input, most significant bit of the first byte
//! first, XOR the 32-bit window of the key that starts at bit i into the result.
//! The RTL's RSS block (issue 3) is checked against this, and this against the
//! Microsoft verification suite below.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The common default key (Microsoft's verification key, also DPDK's and most NICs').
pub const DEFAULT_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// Toeplitz hash of `input` under `key`. The key must be at least `input.len() + 4`
/// bytes long (40 bytes cover the 36-byte IPv6 tuple).
pub fn hash(key: &[u8], input: &[u8]) -> u32 {
    assert!(key.len() >= input.len() + 4, "key of {} bytes too short for {} input bytes", key.len(), input.len());
    let mut result = 0u32;
    // the 32-bit key window at the current bit, and the next key bits shifted in
    let mut window = u32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    for (i, &byte) in input.iter().enumerate() {
        let next = key[i + 4];
        for bit in (0..8).rev() {
            if byte >> bit & 1 == 1 {
                result ^= window;
            }
            window = (window << 1) | u32::from(next >> bit & 1);
        }
    }
    result
}

/// The RSS input of an IPv4 flow: source, destination, then ports when `ports` is given
/// (source port, destination port), all in network byte order.
pub fn ipv4_input(src: Ipv4Addr, dst: Ipv4Addr, ports: Option<(u16, u16)>) -> Vec<u8> {
    let mut v = Vec::with_capacity(12);
    v.extend_from_slice(&src.octets());
    v.extend_from_slice(&dst.octets());
    if let Some((sp, dp)) = ports {
        v.extend_from_slice(&sp.to_be_bytes());
        v.extend_from_slice(&dp.to_be_bytes());
    }
    v
}

/// The RSS input of an IPv6 flow (36 bytes with ports, 32 without).
pub fn ipv6_input(src: Ipv6Addr, dst: Ipv6Addr, ports: Option<(u16, u16)>) -> Vec<u8> {
    let mut v = Vec::with_capacity(36);
    v.extend_from_slice(&src.octets());
    v.extend_from_slice(&dst.octets());
    if let Some((sp, dp)) = ports {
        v.extend_from_slice(&sp.to_be_bytes());
        v.extend_from_slice(&dp.to_be_bytes());
    }
    v
}

/// One row of the Microsoft RSS verification suite ("Verifying the RSS Hash
/// Calculation", Windows driver documentation): addresses and ports as published,
/// the hash without ports and with TCP ports.
pub struct VerificationCase {
    pub dst: &'static str,
    pub dst_port: u16,
    pub src: &'static str,
    pub src_port: u16,
    pub hash_ip: u32,
    pub hash_ip_tcp: u32,
}

pub const MICROSOFT_IPV4: [VerificationCase; 5] = [
    VerificationCase { dst: "161.142.100.80", dst_port: 1766, src: "66.9.149.187", src_port: 2794, hash_ip: 0x323e8fc2, hash_ip_tcp: 0x51ccc178 },
    VerificationCase { dst: "65.69.140.83", dst_port: 4739, src: "199.92.111.2", src_port: 14230, hash_ip: 0xd718262a, hash_ip_tcp: 0xc626b0ea },
    VerificationCase { dst: "12.22.207.184", dst_port: 38024, src: "24.19.198.95", src_port: 12898, hash_ip: 0xd2d0a5de, hash_ip_tcp: 0x5c2b394a },
    VerificationCase { dst: "209.142.163.6", dst_port: 2217, src: "38.27.205.30", src_port: 48228, hash_ip: 0x82989176, hash_ip_tcp: 0xafc7327f },
    VerificationCase { dst: "202.188.127.2", dst_port: 1303, src: "153.39.163.191", src_port: 44251, hash_ip: 0x5d1809c5, hash_ip_tcp: 0x10e828a2 },
];

pub const MICROSOFT_IPV6: [VerificationCase; 3] = [
    VerificationCase { dst: "3ffe:2501:200:3::1", dst_port: 1766, src: "3ffe:2501:200:1fff::7", src_port: 2794, hash_ip: 0x2cc18cd5, hash_ip_tcp: 0x40207d3d },
    VerificationCase { dst: "ff02::1", dst_port: 4739, src: "3ffe:501:8::260:97ff:fe40:efab", src_port: 14230, hash_ip: 0x0f0c461c, hash_ip_tcp: 0xdde51bbf },
    VerificationCase { dst: "fe80::200:f8ff:fe21:67cf", dst_port: 38024, src: "3ffe:1900:4545:3:200:f8ff:fe21:67cf", src_port: 44251, hash_ip: 0x4b61e985, hash_ip_tcp: 0x02d1feef },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microsoft_suite_ipv4() {
        for c in &MICROSOFT_IPV4 {
            let (s, d): (Ipv4Addr, Ipv4Addr) = (c.src.parse().unwrap(), c.dst.parse().unwrap());
            assert_eq!(hash(&DEFAULT_KEY, &ipv4_input(s, d, None)), c.hash_ip, "{} -> {}", c.src, c.dst);
            assert_eq!(hash(&DEFAULT_KEY, &ipv4_input(s, d, Some((c.src_port, c.dst_port)))), c.hash_ip_tcp, "{} -> {} with ports", c.src, c.dst);
        }
    }

    #[test]
    fn microsoft_suite_ipv6() {
        for c in &MICROSOFT_IPV6 {
            let (s, d): (Ipv6Addr, Ipv6Addr) = (c.src.parse().unwrap(), c.dst.parse().unwrap());
            assert_eq!(hash(&DEFAULT_KEY, &ipv6_input(s, d, None)), c.hash_ip, "{} -> {}", c.src, c.dst);
            assert_eq!(hash(&DEFAULT_KEY, &ipv6_input(s, d, Some((c.src_port, c.dst_port)))), c.hash_ip_tcp, "{} -> {} with ports", c.src, c.dst);
        }
    }

    #[test]
    fn hash_is_linear_in_the_input() {
        // Toeplitz is XOR-linear: h(a ^ b) = h(a) ^ h(b); a check independent of the suite.
        let a: Vec<u8> = (0..36u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let b: Vec<u8> = (0..36u8).map(|i| i.wrapping_mul(101).wrapping_add(7)).collect();
        let ab: Vec<u8> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
        assert_eq!(hash(&DEFAULT_KEY, &ab), hash(&DEFAULT_KEY, &a) ^ hash(&DEFAULT_KEY, &b));
        assert_eq!(hash(&DEFAULT_KEY, &[0u8; 36]), 0);
    }
}
