//! Ethernet frame check sequence (IEEE 802.3 clause 3.2.9): CRC-32 over destination
//! address through the end of the payload (padding included), transmitted least
//! significant byte first, i.e. the CRC value's little-endian bytes follow the frame.

use crate::crc::{self, Crc32};

/// Bytes of FCS.
pub const FCS_LEN: usize = 4;
/// Shortest valid frame with FCS; shorter is a runt.
pub const MIN_FRAME_LEN: usize = 64;

/// The FCS of a frame (without FCS).
pub fn fcs(frame: &[u8]) -> u32 {
    crc::crc32(frame)
}

/// The frame with its FCS appended, as it goes on the wire.
/// Shortest frame without FCS that IEEE 802.3 allows (64 bytes on the wire with the FCS).
pub const MIN_FRAME: usize = 60;

/// The frame as a MAC sends it: zero-padded to 60 bytes when shorter (802.3 clause 4.2.3.3).
pub fn padded(frame: &[u8]) -> Vec<u8> {
    let mut v = frame.to_vec();
    if v.len() < MIN_FRAME {
        v.resize(MIN_FRAME, 0);
    }
    v
}

pub fn with_fcs(frame: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(frame.len() + FCS_LEN);
    v.extend_from_slice(frame);
    v.extend_from_slice(&fcs(frame).to_le_bytes());
    v
}

/// The same frame with a wrong FCS (one bit flipped).
pub fn with_bad_fcs(frame: &[u8]) -> Vec<u8> {
    let mut v = with_fcs(frame);
    let n = v.len();
    v[n - 1] ^= 0x80;
    v
}

/// Splits a wire frame into frame and FCS when the FCS is correct (compares values).
pub fn check_fcs(wire: &[u8]) -> Option<&[u8]> {
    if wire.len() < FCS_LEN {
        return None;
    }
    let (frame, f) = wire.split_at(wire.len() - FCS_LEN);
    (fcs(frame) == u32::from_le_bytes(f.try_into().unwrap())).then_some(frame)
}

/// The receiver's way: run the CRC over frame and FCS together and compare the register
/// with the constant residue, no need to know where the frame ends.
pub fn residue_ok(wire: &[u8]) -> bool {
    wire.len() >= FCS_LEN && Crc32::new().update(wire).register() == crc::RESIDUE
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn fcs_is_sent_least_significant_byte_first() {
        let w = with_fcs(b"123456789");
        assert_eq!(&w[9..], &[0x26, 0x39, 0xF4, 0xCB]);
    }

    #[test]
    fn residue_and_value_checks_agree() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for len in [0usize, 1, 14, 59, 60, 61, 1514, 9018] {
            let frame: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let good = with_fcs(&frame);
            assert!(residue_ok(&good), "len {len}");
            assert_eq!(check_fcs(&good), Some(&frame[..]));
            let bad = with_bad_fcs(&frame);
            assert!(!residue_ok(&bad));
            assert_eq!(check_fcs(&bad), None);
            // Any single-bit error anywhere is caught.
            let mut flipped = good.clone();
            let bit = rng.gen_range(0..flipped.len() * 8);
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(!residue_ok(&flipped));
        }
    }

    #[test]
    fn residue_constant_after_final_xor() {
        // Often quoted in its inverted form.
        assert_eq!(crate::crc::RESIDUE ^ crate::crc::XOROUT, 0x2144_DF1C);
    }

    /// A minimum-size frame as captured with FCS (the 60-byte all-zero payload frame).
    #[test]
    fn zero_frame_fixture() {
        let w = with_fcs(&[0u8; 60]);
        assert_eq!(fcs(&[0u8; 60]), crate::crc::crc32_bitwise(&[0u8; 60]));
        assert!(residue_ok(&w));
    }
}
