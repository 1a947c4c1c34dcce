//! Descriptor rings: index arithmetic and the 16-byte descriptor layout.
//!
//! Indices are free-running 16-bit counters (`Q_TAIL`, `Q_HEAD` in the regmap): the slot
//! of index `i` is `i mod size`, the ring holds `tail - head` (mod 2^16) descriptors and is
//! full when that equals its size. All of that arithmetic lives in [`Ring`], nowhere else.

use nic_regmap::desc;

/// A ring of `2^size_log2` descriptors (`Q_SIZE_LOG2`, 1..=15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring {
    size_log2: u32,
}

impl Ring {
    pub const MIN_LOG2: u32 = 1;
    pub const MAX_LOG2: u32 = 15;

    pub fn new(size_log2: u32) -> Option<Ring> {
        (Self::MIN_LOG2..=Self::MAX_LOG2).contains(&size_log2).then_some(Ring { size_log2 })
    }
    pub fn size_log2(self) -> u32 {
        self.size_log2
    }
    pub fn size(self) -> u16 {
        1 << self.size_log2
    }
    /// Ring slot of a free-running index.
    pub fn slot(self, index: u16) -> usize {
        usize::from(index) & (usize::from(self.size()) - 1)
    }
    /// Descriptors between `from` and `to` (`to - from` mod 2^16), e.g. in flight = `distance(head, tail)`.
    pub fn distance(self, from: u16, to: u16) -> u16 {
        to.wrapping_sub(from)
    }
    /// Free descriptors: size minus those between head and tail.
    pub fn free(self, head: u16, tail: u16) -> u16 {
        self.size() - self.distance(head, tail)
    }
    /// Whether `index` lies in `[from, to]`, walking forward from `from`.
    pub fn within(self, from: u16, index: u16, to: u16) -> bool {
        self.distance(from, index) <= self.distance(from, to)
    }
    /// Bus address of the descriptor of `index` in a ring at `base`.
    pub fn desc_addr(self, base: u64, index: u16) -> u64 {
        base + desc::SIZE * self.slot(index) as u64
    }
    /// Bytes of ring memory.
    pub fn bytes(self) -> usize {
        usize::from(self.size()) * desc::SIZE as usize
    }
}

/// A descriptor as the driver writes it (buffer address, length, flags; info 0).
pub fn encode(addr: u64, len: u16, flags: u16) -> [u8; desc::SIZE as usize] {
    let mut d = [0u8; desc::SIZE as usize];
    d[desc::ADDR..desc::ADDR + 8].copy_from_slice(&addr.to_le_bytes());
    d[desc::LEN..desc::LEN + 2].copy_from_slice(&len.to_le_bytes());
    d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
    d
}

/// Bytes 8..16 of a descriptor as the NIC writes them back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteBack {
    pub len: u16,
    pub flags: u16,
    pub info: u32,
}

pub const WRITEBACK_LEN: usize = (desc::SIZE - desc::WRITEBACK_OFFSET) as usize;

impl WriteBack {
    /// Decodes the write-back half (`desc::WRITEBACK_OFFSET..desc::SIZE`).
    pub fn decode(b: &[u8; WRITEBACK_LEN]) -> WriteBack {
        let at = |field: usize| field - desc::WRITEBACK_OFFSET as usize;
        WriteBack {
            len: u16::from_le_bytes([b[at(desc::LEN)], b[at(desc::LEN) + 1]]),
            flags: u16::from_le_bytes([b[at(desc::FLAGS)], b[at(desc::FLAGS) + 1]]),
            info: u32::from_le_bytes(b[at(desc::INFO)..at(desc::INFO) + 4].try_into().unwrap()),
        }
    }
    pub fn done(&self) -> bool {
        self.flags & desc::DONE != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_running_indices_wrap() {
        let r = Ring::new(4).unwrap();
        assert_eq!(r.size(), 16);
        assert_eq!(r.slot(17), 1);
        assert_eq!(r.slot(0xffff), 15);
        assert_eq!(r.distance(0xfff8, 0x0008), 16);
        assert_eq!(r.free(0xfff8, 0x0008), 0);
        assert_eq!(r.free(5, 5), 16);
        assert!(r.within(0xfffe, 0x0001, 0x0003));
        assert!(!r.within(0xfffe, 0x0004, 0x0003));
        assert!(Ring::new(0).is_none() && Ring::new(16).is_none() && Ring::new(15).is_some());
        assert_eq!(Ring::new(15).unwrap().free(0, 0), 0x8000);
    }

    #[test]
    fn descriptor_layout() {
        let d = encode(0x1122_3344_5566_7788, 0x0abc, desc::TX_EOP | desc::TX_REPORT_STATUS);
        assert_eq!(&d[0..8], &[0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]);
        assert_eq!(&d[8..10], &[0xbc, 0x0a]);
        assert_eq!(&d[10..12], &[0x03, 0x00]);
        assert_eq!(&d[12..16], &[0; 4]);
        let wb = WriteBack::decode(&[0x10, 0x02, 0x01, 0x80, 0xef, 0xbe, 0xad, 0xde]);
        assert_eq!(wb, WriteBack { len: 0x210, flags: desc::DONE | desc::RX_EOP, info: 0xdead_beef });
        assert!(wb.done());
    }
}
