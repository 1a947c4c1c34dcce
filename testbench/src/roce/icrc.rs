//! The RoCEv2 invariant CRC (IBTA Annex A17.3.3, and rdma_rxe's rxe_icrc.c).
//!
//! CRC-32 (the Ethernet polynomial, preset all ones) over: 8 bytes of 0xFF standing for
//! the masked LRH; the IP header with the fields routers may change set to all ones
//! (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label, hop limit); the UDP
//! header with its checksum set to all ones; the BTH with its FECN/BECN/reserved byte set
//! to all ones; then the rest of the packet (extended headers, payload, pad) as it is.
//! The inverted CRC follows the pad, least significant byte first.
//!
//! Generation and checking share [`masked_headers`]: the only place that knows which
//! bytes are masked.

use crate::crc;
use crate::wire::{bth, ipv4, ipv6, udp, Error, Result};

/// Bytes of 0xFF that stand for the LRH (RoCEv2 has none).
pub const MASKED_LRH_LEN: usize = 8;
/// Bytes of the ICRC itself.
pub const ICRC_LEN: usize = 4;

/// The masked pseudo-header (LRH stand-in, IP, UDP, BTH with its masks applied) of an IP
/// packet carrying a RoCEv2 datagram, and how many bytes of `ip_packet` it covers.
/// IPv4 options, if any, are covered unmasked.
pub fn masked_headers(ip_packet: &[u8]) -> Result<(Vec<u8>, usize)> {
    let version = ip_packet.first().ok_or(Error::Truncated)? >> 4;
    let ip_len = match version {
        4 => {
            let ihl = usize::from(ip_packet[0] & 0x0f) * 4;
            if ihl < ipv4::HEADER_LEN {
                return Err(Error::Malformed);
            }
            ihl
        }
        6 => ipv6::HEADER_LEN,
        _ => return Err(Error::Malformed),
    };
    let covered = ip_len + udp::HEADER_LEN + bth::HEADER_LEN;
    if ip_packet.len() < covered {
        return Err(Error::Truncated);
    }
    let mut h = Vec::with_capacity(MASKED_LRH_LEN + covered);
    h.extend_from_slice(&[0xff; MASKED_LRH_LEN]);
    h.extend_from_slice(&ip_packet[..covered]);
    let ip = MASKED_LRH_LEN;
    if version == 4 {
        h[ip + 1] = 0xff; // TOS (DSCP, ECN)
        h[ip + 8] = 0xff; // TTL
        h[ip + 10] = 0xff; // header checksum
        h[ip + 11] = 0xff;
    } else {
        h[ip] |= 0x0f; // traffic class and flow label: all but the version
        h[ip + 1..ip + 4].fill(0xff);
        h[ip + 7] = 0xff; // hop limit
    }
    let udp = ip + ip_len;
    h[udp + 6] = 0xff; // UDP checksum
    h[udp + 7] = 0xff;
    h[udp + udp::HEADER_LEN + bth::ICRC_MASKED_BYTE] = 0xff;
    Ok((h, covered))
}

/// The ICRC of an IP packet whose UDP datagram holds a BTH, its extended headers, the
/// payload and the pad, without the ICRC: the value whose little-endian bytes are sent.
pub fn icrc(ip_packet: &[u8]) -> Result<u32> {
    let (masked, covered) = masked_headers(ip_packet)?;
    let reg = crc::update_table(crc::INIT, &masked);
    Ok(!crc::update_table(reg, &ip_packet[covered..]))
}

/// Whether the last four bytes of `ip_packet` are the right ICRC of the rest.
pub fn verify(ip_packet: &[u8]) -> bool {
    let Some(body_len) = ip_packet.len().checked_sub(ICRC_LEN) else { return false };
    match icrc(&ip_packet[..body_len]) {
        Ok(c) => c.to_le_bytes() == ip_packet[body_len..],
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An IPv4 RoCEv2 ACK (IP 10.0.0.2 -> 10.0.0.1, UDP 49152 -> 4791, BTH ACKNOWLEDGE to
    // QP 0x11, PSN 5, AETH ACK MSN 1); its ICRC computed independently with Python's
    // zlib.crc32 over the masked bytes as Annex A17 lists them.
    const ACK: [u8; 48] = [
        0x45, 0x00, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xbb, 0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x01,
        0xc0, 0x00, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
        0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x05,
        0x1f, 0x00, 0x00, 0x01,
        0xd8, 0x5e, 0x5b, 0x68,
    ];

    #[test]
    fn known_ack() {
        assert_eq!(icrc(&ACK[..44]).unwrap().to_le_bytes(), ACK[44..]);
        assert!(verify(&ACK));
        let mut p = ACK;
        p[47] ^= 0x80;
        assert!(!verify(&p));
    }

    #[test]
    fn masks_only_the_variant_fields() {
        let (m, covered) = masked_headers(&ACK[..44]).unwrap();
        assert_eq!(covered, 40);
        let changed: Vec<usize> = (0..covered).filter(|&i| m[MASKED_LRH_LEN + i] != ACK[i]).collect();
        // TOS, TTL, checksum (2), UDP checksum (2), BTH byte 4
        assert_eq!(changed, vec![1, 8, 10, 11, 26, 27, 32]);
    }

    #[test]
    fn changing_a_masked_field_keeps_the_icrc() {
        let mut p = ACK;
        let before = icrc(&p[..44]).unwrap();
        p[8] = 3; // TTL
        p[1] = 0x02; // ECN
        p[32] = 0x80; // FECN
        assert_eq!(icrc(&p[..44]).unwrap(), before);
        p[43] ^= 1; // MSN
        assert_ne!(icrc(&p[..44]).unwrap(), before);
    }

    #[test]
    fn bad_headers() {
        assert_eq!(masked_headers(&ACK[..39]).unwrap_err(), Error::Truncated);
        let mut p = ACK;
        p[0] = 0x55;
        assert_eq!(masked_headers(&p).unwrap_err(), Error::Malformed);
        assert!(!verify(&ACK[..3]));
    }
}
