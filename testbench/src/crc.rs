//! CRC-32 as IEEE 802.3 defines it for the FCS: polynomial 0x04C11DB7 processed
//! least significant bit first (reflected form 0xEDB88320), register preset to all ones,
//! result inverted. Written twice, bit by bit straight from the definition and
//! byte-at-a-time from a table, so each checks the other.

/// The reflected generator polynomial.
pub const POLY_REFLECTED: u32 = 0xEDB8_8320;
/// Preset and final XOR.
pub const INIT: u32 = 0xFFFF_FFFF;
pub const XOROUT: u32 = 0xFFFF_FFFF;
/// CRC of the ASCII bytes "123456789", the catalogue check value of CRC-32/ISO-HDLC.
pub const CHECK: u32 = 0xCBF4_3926;
/// Register value (before the final XOR) after running over data followed by its own
/// FCS: constant whatever the data (IEEE 802.3 clause 3.2.9's "remainder").
pub const RESIDUE: u32 = 0xDEBB_20E3;

/// One bit at a time: shift the register right, XOR the polynomial when the bit that
/// falls out differs from the data bit.
pub fn update_bitwise(mut crc: u32, data: &[u8]) -> u32 {
    for &byte in data {
        for i in 0..8 {
            let bit = (byte >> i) & 1;
            let out = crc & 1;
            crc >>= 1;
            if u32::from(bit) ^ out != 0 {
                crc ^= POLY_REFLECTED;
            }
        }
    }
    crc
}

pub fn crc32_bitwise(data: &[u8]) -> u32 {
    update_bitwise(INIT, data) ^ XOROUT
}

/// `TABLE[b]` is the register after shifting 8 zero bits through `b`.
pub const TABLE: [u32; 256] = make_table();

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY_REFLECTED } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

pub fn update_table(mut crc: u32, data: &[u8]) -> u32 {
    for &b in data {
        crc = TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

pub fn crc32(data: &[u8]) -> u32 {
    update_table(INIT, data) ^ XOROUT
}

/// Incremental form for data that arrives in pieces.
#[derive(Clone, Copy, Debug)]
pub struct Crc32 {
    reg: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Crc32 { reg: INIT }
    }
}

impl Crc32 {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        self.reg = update_table(self.reg, data);
        self
    }
    /// The register before the final XOR (what the residue check compares).
    pub fn register(&self) -> u32 {
        self.reg
    }
    pub fn finish(&self) -> u32 {
        self.reg ^ XOROUT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn check_value() {
        assert_eq!(crc32_bitwise(b"123456789"), CHECK);
        assert_eq!(crc32(b"123456789"), CHECK);
        assert_eq!(Crc32::new().update(b"1234").update(b"56789").finish(), CHECK);
    }

    #[test]
    fn known_vectors() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
        assert_eq!(crc32(b"The quick brown fox jumps over the lazy dog"), 0x414F_A339);
        assert_eq!(crc32(&[0u8; 32]), 0x190A_55AD);
        assert_eq!(crc32(&[0xffu8; 32]), 0xFF6C_AB0B);
    }

    #[test]
    fn table_matches_bitwise_on_random_data() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for len in 0..300 {
            let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            assert_eq!(crc32(&data), crc32_bitwise(&data), "len {len}");
        }
    }

    #[test]
    fn table_entries_from_definition() {
        assert_eq!(TABLE[0], 0);
        assert_eq!(TABLE[1], 0x7707_3096);
        assert_eq!(TABLE[128], POLY_REFLECTED);
        assert_eq!(TABLE[255], 0x2D02_EF8D);
    }
}
