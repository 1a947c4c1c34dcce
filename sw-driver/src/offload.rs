//! TX offload requests (docs/tx-offload.md): what one frame asks the NIC to do, and the
//! context descriptor that carries it.
//!
//! A frame with an offload request is posted as one context descriptor (`desc::TX_CTX`,
//! no buffer) followed by its data descriptors; the NIC completes the context
//! descriptor with its frame. The driver does not check the request: a request the NIC
//! refuses (docs/tx-offload.md "Refused requests") is not sent, its write-backs carry
//! `desc::TX_ERROR` and `TX_OFFLOAD_ERRORS` ([`crate::Stats::tx_offload_errors`]) counts it.

use nic_regmap::desc;

/// One frame's offload request: the fields of its context descriptor. Offsets are in
/// bytes from the start of the frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TxOffload {
    /// Bytes before the IP header (14, 18 or 22 with VLAN tags).
    pub l3_offset: u16,
    /// Bytes before the TCP/UDP header (`l3_offset` + IP header length).
    pub l4_offset: u16,
    /// Generic checksum: first byte summed.
    pub csum_start: u16,
    /// Generic checksum: where the result goes, relative to `csum_start`.
    pub csum_offset: u16,
    /// TSO: payload bytes per segment.
    pub mss: u16,
    /// TSO: header template length (`l4_offset` + TCP header length).
    pub hdr_len: u16,
    /// `GENERIC_CSUM`: Linux `CHECKSUM_PARTIAL` (`csum_start`, `csum_offset`).
    pub generic_csum: bool,
    /// `IPV4_CSUM`: compute the IPv4 header checksum.
    pub ipv4_csum: bool,
    /// `L4_CSUM`: compute the TCP/UDP checksum with its pseudo-header.
    pub l4_csum: bool,
    /// `TSO`: TCP segmentation (`mss`, `hdr_len`); implies the checksums.
    pub tso: bool,
    /// The L3 header is IPv6 (else IPv4).
    pub ipv6: bool,
    /// The L4 header is UDP (else TCP).
    pub udp: bool,
}

impl TxOffload {
    /// Generic checksum (Linux `CHECKSUM_PARTIAL`): the one's-complement sum from
    /// `csum_start` to the end of the frame, stored at `csum_start + csum_offset`.
    pub fn generic(csum_start: u16, csum_offset: u16) -> TxOffload {
        TxOffload { csum_start, csum_offset, generic_csum: true, ..TxOffload::default() }
    }

    /// Full checksum offload: the IPv4 header checksum (IPv4 only) and the TCP or UDP
    /// checksum with its pseudo-header.
    pub fn full_csum(l3_offset: u16, l4_offset: u16, ipv6: bool, udp: bool) -> TxOffload {
        TxOffload { l3_offset, l4_offset, ipv4_csum: !ipv6, l4_csum: true, ipv6, udp, ..TxOffload::default() }
    }

    /// TCP segmentation: `hdr_len` bytes of header template (Ethernet to TCP options),
    /// then the payload, sent as segments of `mss` payload bytes with all checksums.
    pub fn tcp_tso(l3_offset: u16, l4_offset: u16, hdr_len: u16, mss: u16, ipv6: bool) -> TxOffload {
        TxOffload { l3_offset, l4_offset, hdr_len, mss, ipv4_csum: !ipv6, l4_csum: true, tso: true, ipv6, ..TxOffload::default() }
    }

    /// Whether nothing is asked (such a frame needs no context descriptor).
    pub fn is_none(&self) -> bool {
        !(self.generic_csum || self.ipv4_csum || self.l4_csum || self.tso)
    }

    /// The flags word of the context descriptor, `TX_CTX` included.
    pub fn flags(&self) -> u16 {
        let bit = |on: bool, f: u16| if on { f } else { 0 };
        desc::TX_CTX
            | bit(self.generic_csum, desc::TX_GENERIC_CSUM)
            | bit(self.ipv4_csum, desc::TX_IPV4_CSUM)
            | bit(self.l4_csum, desc::TX_L4_CSUM)
            | bit(self.tso, desc::TX_TSO)
            | bit(self.ipv6, desc::TX_IPV6)
            | bit(self.udp, desc::TX_UDP)
    }

    /// The 16-byte context descriptor (little-endian; docs/tx-offload.md "Descriptors").
    pub fn context_descriptor(&self) -> [u8; desc::SIZE as usize] {
        let mut d = [0u8; desc::SIZE as usize];
        let fields = [
            (desc::CTX_L3_OFFSET, self.l3_offset),
            (desc::CTX_L4_OFFSET, self.l4_offset),
            (desc::CTX_CSUM_START, self.csum_start),
            (desc::CTX_CSUM_OFFSET, self.csum_offset),
            (desc::CTX_MSS, self.mss),
            (desc::FLAGS, self.flags()),
            (desc::CTX_HDR_LEN, self.hdr_len),
        ];
        for (at, v) in fields {
            d[at..at + 2].copy_from_slice(&v.to_le_bytes());
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_descriptor_layout() {
        let o = TxOffload { csum_start: 0x0304, csum_offset: 0x0506, mss: 0x0708, ..TxOffload::tcp_tso(0x0102, 0x0a0b, 0x0c0d, 0, false) };
        let d = o.context_descriptor();
        assert_eq!(&d[0..10], &[0x02, 0x01, 0x0b, 0x0a, 0x04, 0x03, 0x06, 0x05, 0x08, 0x07]);
        assert_eq!(u16::from_le_bytes([d[10], d[11]]), desc::TX_CTX | desc::TX_IPV4_CSUM | desc::TX_L4_CSUM | desc::TX_TSO);
        assert_eq!(&d[12..16], &[0x0d, 0x0c, 0, 0]);
        let g = TxOffload::generic(34, 16);
        assert_eq!(g.flags(), desc::TX_CTX | desc::TX_GENERIC_CSUM);
        assert!(!g.is_none() && TxOffload::default().is_none());
        let u6 = TxOffload::full_csum(14, 54, true, true);
        assert_eq!(u6.flags(), desc::TX_CTX | desc::TX_L4_CSUM | desc::TX_IPV6 | desc::TX_UDP);
    }
}
