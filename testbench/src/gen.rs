//! Seeded random traffic: Ethernet frames with valid headers, scatter-gather splits,
//! burst sizes. The same seed gives the same traffic, so a failure can be replayed.

use crate::wire::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::ops::RangeInclusive;

/// Shortest frame a driver sends (without FCS): 64 bytes on the wire.
pub const MIN_LEN: usize = 60;
/// Longest frame (without FCS) under the default `MAX_FRAME_LEN` of 9022: 9000-byte MTU,
/// VLAN tag and header.
pub const MAX_LEN: usize = 9018;
/// Bytes of the payload that carry the frame's sequence number (big-endian).
pub const SEQ_LEN: usize = 4;

/// Random frame source.
pub struct FrameGen {
    rng: StdRng,
    seq: u32,
    src: EthernetAddress,
}

impl FrameGen {
    pub fn new(seed: u64) -> FrameGen {
        let mut rng = StdRng::seed_from_u64(seed);
        let src = random_unicast(&mut rng);
        FrameGen { rng, seq: 0, src }
    }

    pub fn rng(&mut self) -> &mut StdRng {
        &mut self.rng
    }

    /// A frame of exactly `len` bytes (>= 18: header and sequence number): a locally
    /// administered unicast source, a unicast or broadcast destination, the local
    /// experimental EtherType, then the sequence number and random bytes.
    pub fn frame(&mut self, len: usize) -> Vec<u8> {
        assert!(len >= EthernetFrame::<&[u8]>::header_len() + SEQ_LEN, "frame of {len} bytes cannot hold header and sequence number");
        let mut buf = vec![0u8; len];
        let dst = if self.rng.gen_ratio(1, 8) { EthernetAddress::BROADCAST } else { random_unicast(&mut self.rng) };
        let repr = EthernetRepr { src_addr: self.src, dst_addr: dst, ethertype: EtherType::Experimental };
        let mut f = EthernetFrame::new_unchecked(&mut buf[..]);
        repr.emit(&mut f);
        let p = f.payload_mut();
        p[..SEQ_LEN].copy_from_slice(&self.seq.to_be_bytes());
        self.rng.fill(&mut p[SEQ_LEN..]);
        self.seq = self.seq.wrapping_add(1);
        buf
    }

    /// A frame with a length drawn uniformly from `range`.
    pub fn frame_in(&mut self, range: RangeInclusive<usize>) -> Vec<u8> {
        let len = self.rng.gen_range(range);
        self.frame(len)
    }

    /// Cut points splitting `len` bytes into 1..=`max_segments` non-empty segments.
    pub fn cuts(&mut self, len: usize, max_segments: usize) -> Vec<usize> {
        let n = self.rng.gen_range(1..=max_segments.max(1)).min(len);
        random_cuts(&mut self.rng, len, n)
    }
}

/// `segments - 1` distinct ascending cut points inside `1..len`.
pub fn random_cuts<R: Rng>(rng: &mut R, len: usize, segments: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = rand::seq::index::sample(rng, len - 1, segments.saturating_sub(1).min(len - 1)).into_iter().map(|c| c + 1).collect();
    cuts.sort_unstable();
    cuts
}

fn random_unicast<R: Rng>(rng: &mut R) -> EthernetAddress {
    let mut a: [u8; 6] = rng.gen();
    a[0] = (a[0] & !0x01) | 0x02; // unicast, locally administered
    EthernetAddress(a)
}

/// The sequence number `FrameGen` put into a frame.
pub fn sequence_of(frame: &[u8]) -> Option<u32> {
    let f = EthernetFrame::new_checked(frame).ok()?;
    let p = f.payload();
    (p.len() >= SEQ_LEN).then(|| u32::from_be_bytes(p[..SEQ_LEN].try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_have_valid_headers_and_lengths() {
        let mut g = FrameGen::new(3);
        for (i, len) in [60usize, 61, 64, 1514, 9018].into_iter().enumerate() {
            let f = g.frame(len);
            assert_eq!(f.len(), len);
            let view = EthernetFrame::new_checked(&f[..]).unwrap();
            let repr = EthernetRepr::parse(&view).unwrap();
            assert!(repr.src_addr.is_unicast() && repr.src_addr.is_local());
            assert_eq!(repr.ethertype, EtherType::Experimental);
            assert_eq!(sequence_of(&f), Some(i as u32));
        }
    }

    #[test]
    fn same_seed_same_traffic() {
        let (mut a, mut b) = (FrameGen::new(9), FrameGen::new(9));
        for _ in 0..10 {
            assert_eq!(a.frame_in(60..=200), b.frame_in(60..=200));
        }
    }

    #[test]
    fn cuts_make_nonempty_segments() {
        let mut g = FrameGen::new(5);
        for len in [1usize, 2, 3, 60, 9018] {
            for _ in 0..50 {
                let c = g.cuts(len, 4);
                assert!(c.len() < 4);
                let mut prev = 0;
                for &x in &c {
                    assert!(x > prev && x < len);
                    prev = x;
                }
            }
        }
    }
}
