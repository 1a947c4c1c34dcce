//! Golden model of the Internet checksum (RFC 1071) and the TCP/UDP pseudo-headers
//! (RFC 793, RFC 768, RFC 8200 8.1), shared helpers in smoltcp's shape: partial sums
//! that combine, then fold and invert. For the RX validation (issue 3) and TX insertion
//! and TSO (issue 4) golden models.

use std::net::{Ipv4Addr, Ipv6Addr};

/// One's-complement partial sum of `data` as big-endian 16-bit words (an odd last byte
/// is padded with zero), not yet folded.
pub fn data(bytes: &[u8]) -> u32 {
    let mut sum = 0u32;
    let mut chunks = bytes.chunks_exact(2);
    for w in &mut chunks {
        sum = sum.wrapping_add(u32::from(u16::from_be_bytes([w[0], w[1]])));
        sum = (sum & 0xffff) + (sum >> 16);
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

/// Adds partial sums.
pub fn combine(sums: &[u32]) -> u32 {
    sums.iter().fold(0u32, |acc, &s| {
        let t = acc as u64 + s as u64;
        ((t & 0xffff) + (t >> 16)) as u32
    })
}

/// Folds a partial sum to 16 bits (end-around carry), not inverted.
pub fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The checksum field value for data whose partial sum is `sum`.
pub fn finish(sum: u32) -> u16 {
    !fold(sum)
}

/// Pseudo-header partial sum for TCP/UDP over IPv4.
pub fn pseudo_header_v4(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, l4_len: u16) -> u32 {
    combine(&[data(&src.octets()), data(&dst.octets()), u32::from(protocol), u32::from(l4_len)])
}

/// Pseudo-header partial sum for TCP/UDP over IPv6 (upper-layer length as 32 bits).
pub fn pseudo_header_v6(src: Ipv6Addr, dst: Ipv6Addr, next_header: u8, l4_len: u32) -> u32 {
    combine(&[data(&src.octets()), data(&dst.octets()), data(&l4_len.to_be_bytes()), u32::from(next_header)])
}

/// Whether data that includes its checksum field sums to all ones (a valid checksum).
pub fn verifies(sum_including_checksum: u32) -> bool {
    fold(sum_including_checksum) == 0xffff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2.
        assert_eq!(fold(data(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), 0xddf2);
    }

    #[test]
    fn ipv4_header_checksum_example() {
        // A well-known IPv4 header (20 bytes, UDP, 192.168.0.1 -> 192.168.0.199) whose
        // checksum field is 0xb861.
        let mut h = [0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7];
        assert_eq!(finish(data(&h)), 0xb861);
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert!(verifies(data(&h)));
    }

    #[test]
    fn partial_sums_combine_at_even_offsets() {
        let bytes: Vec<u8> = (0..1001u32).map(|i| (i * 7 + 3) as u8).collect();
        for cut in (0..bytes.len()).step_by(2) {
            assert_eq!(fold(combine(&[data(&bytes[..cut]), data(&bytes[cut..])])), fold(data(&bytes)), "cut {cut}");
        }
    }

    #[test]
    fn udp_over_ipv4_with_pseudo_header_verifies() {
        let (s, d) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let mut udp = vec![0x30, 0x39, 0x00, 0x35, 0x00, 0x0d, 0x00, 0x00, b'h', b'e', b'l', b'l', b'o'];
        let c = finish(combine(&[pseudo_header_v4(s, d, 17, udp.len() as u16), data(&udp)]));
        udp[6..8].copy_from_slice(&c.to_be_bytes());
        assert!(verifies(combine(&[pseudo_header_v4(s, d, 17, udp.len() as u16), data(&udp)])));
    }
}
