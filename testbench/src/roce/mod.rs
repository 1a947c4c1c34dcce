//! The RoCEv2 golden model (reliable connected transport), split by role as Linux's
//! rdma_rxe is:
//!
//! * [`opcode`]: the one opcode table (headers, class, position of each RC opcode).
//! * [`icrc`]: the invariant CRC, one masked-header function for generation and check.
//! * [`gen`]: seeded random packets for the suites.
//! * [`engine`]: the behavioural model of the whole RDMA engine (requester, responder,
//!   completer, tables), which `RefNic` runs behind the register block.
//! * [`packet`]: whole frames (Ethernet/IP/UDP 4791/BTH/RETH/AETH/ImmDt/payload/ICRC),
//!   emitted and parsed.
//!
//! The header views themselves are in `wire` (`bth`, `reth`, `aeth`), beside Ethernet,
//! IP and UDP. This module adds the transport rules shared by requester and responder:
//! PSN arithmetic and how a message is cut into packets by the path MTU.

pub mod engine;
pub mod gen;
pub mod icrc;
pub mod opcode;
pub mod packet;

pub use opcode::{OpClass, OpInfo, Position};
pub use packet::{RoceError, RoceRepr, ROCE_UDP_PORT};

/// Whether a frame (no FCS) is RoCEv2 for the NIC at `local_ipv4` (a.b.c.d as 0xaabbccdd),
/// the frames the classifier diverts to the RDMA engine: untagged IPv4 without options or
/// fragmentation, UDP to port 4791, that address as the destination. RoCEv2 senders send
/// nothing else; every other frame keeps the Ethernet path.
pub fn is_roce_v4_to(data: &[u8], local_ipv4: u32) -> bool {
    data.len() >= 14 + 20 + 8
        && data[12..14] == [0x08, 0x00]
        && data[14] == 0x45
        && data[14 + 6] & 0x3f == 0
        && data[14 + 7] == 0
        && data[14 + 9] == 17
        && data[14 + 16..14 + 20] == local_ipv4.to_be_bytes()
        && data[14 + 20 + 2..14 + 20 + 4] == ROCE_UDP_PORT.to_be_bytes()
}

use crate::wire::bth::MASK_24;
use std::cmp::Ordering;
use std::ops::Range;

/// The path MTUs IBTA defines (bytes of payload per packet).
pub const PATH_MTUS: [usize; 5] = [256, 512, 1024, 2048, 4096];

/// `psn + n`, modulo 2^24.
pub fn psn_add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & MASK_24
}

/// Compares 24-bit PSNs on the circle: the sign of `(a - b) << 8` as a 32-bit value
/// (IBTA 9.7.2; rdma_rxe's `psn_compare`).
pub fn psn_cmp(a: u32, b: u32) -> Ordering {
    ((a.wrapping_sub(b) << 8) as i32).cmp(&0)
}

/// Packets a message of `len` bytes takes at path MTU `mtu`: one per started MTU, and
/// one for a zero-byte message.
pub fn packet_count(len: usize, mtu: usize) -> usize {
    assert!(mtu > 0);
    len.div_ceil(mtu).max(1)
}

/// The position of packet `index` of a message of `count` packets.
pub fn position_of(index: usize, count: usize) -> Position {
    match (index, count) {
        (_, 1) => Position::Only,
        (0, _) => Position::First,
        (i, n) if i + 1 == n => Position::Last,
        _ => Position::Middle,
    }
}

/// How a message of `len` bytes is sent at path MTU `mtu`: each packet's position and
/// byte range.
pub fn segments(len: usize, mtu: usize) -> Vec<(Position, Range<usize>)> {
    let n = packet_count(len, mtu);
    (0..n).map(|i| (position_of(i, n), i * mtu..((i + 1) * mtu).min(len))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psn_wraps() {
        assert_eq!(psn_add(0xff_ffff, 1), 0);
        assert_eq!(psn_cmp(0, 0xff_ffff), Ordering::Greater);
        assert_eq!(psn_cmp(0xff_ffff, 0), Ordering::Less);
        assert_eq!(psn_cmp(5, 5), Ordering::Equal);
        assert_eq!(psn_cmp(0x80_0000, 0), Ordering::Less, "half the circle away counts as behind");
    }

    #[test]
    fn segmentation_at_the_edges() {
        let m = 256;
        let pos = |len| segments(len, m).iter().map(|s| s.0).collect::<Vec<_>>();
        assert_eq!(pos(0), [Position::Only]);
        assert_eq!(segments(0, m)[0].1, 0..0);
        assert_eq!(pos(m - 1), [Position::Only]);
        assert_eq!(pos(m), [Position::Only]);
        assert_eq!(pos(m + 1), [Position::First, Position::Last]);
        assert_eq!(segments(m + 1, m)[1].1, m..m + 1);
        assert_eq!(pos(3 * m), [Position::First, Position::Middle, Position::Last]);
        let s = segments(1 << 20, 4096);
        assert_eq!(s.len(), 256);
        assert_eq!(s.iter().map(|x| x.1.len()).sum::<usize>(), 1 << 20);
    }
}
