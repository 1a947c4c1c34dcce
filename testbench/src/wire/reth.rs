//! InfiniBand RDMA Extended Transport Header (IBTA vol. 1, 9.3.3): 16 bytes after the
//! BTH of RDMA WRITE First/Only and RDMA READ Request packets.
//!
//! ```text
//!  0: virtual address (64)
//!  8: R_Key (32)
//! 12: DMA length (32): bytes of the whole message
//! ```

use super::{get_u32, set_u32, Error, Field, Result};

mod field {
    use super::Field;
    pub const VA_HI: Field = 0..4;
    pub const VA_LO: Field = 4..8;
    pub const RKEY: Field = 8..12;
    pub const DMA_LEN: Field = 12..16;
}

pub const HEADER_LEN: usize = field::DMA_LEN.end;

#[derive(Debug, Clone)]
pub struct RethHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> RethHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        RethHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        if h.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(h)
    }
    pub fn virtual_addr(&self) -> u64 {
        let b = self.buffer.as_ref();
        u64::from(get_u32(b, field::VA_HI)) << 32 | u64::from(get_u32(b, field::VA_LO))
    }
    pub fn rkey(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::RKEY)
    }
    pub fn dma_len(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::DMA_LEN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> RethHeader<T> {
    pub fn set_virtual_addr(&mut self, va: u64) {
        let b = self.buffer.as_mut();
        set_u32(b, field::VA_HI, (va >> 32) as u32);
        set_u32(b, field::VA_LO, va as u32);
    }
    pub fn set_rkey(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::RKEY, v);
    }
    pub fn set_dma_len(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::DMA_LEN, v);
    }
}

/// The RETH as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RethRepr {
    pub virtual_addr: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

impl RethRepr {
    pub fn parse<T: AsRef<[u8]>>(h: &RethHeader<T>) -> Result<RethRepr> {
        if h.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(RethRepr { virtual_addr: h.virtual_addr(), rkey: h.rkey(), dma_len: h.dma_len() })
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut RethHeader<T>) {
        h.set_virtual_addr(self.virtual_addr);
        h.set_rkey(self.rkey);
        h.set_dma_len(self.dma_len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static BYTES: [u8; 16] = [0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x10, 0x00, 0x00];
    const REPR: RethRepr = RethRepr { virtual_addr: 0x7f12_3456_789a, rkey: 0xdead_beef, dma_len: 1 << 20 };

    #[test]
    fn parse() {
        assert_eq!(RethRepr::parse(&RethHeader::new_checked(&BYTES[..]).unwrap()).unwrap(), REPR);
        assert_eq!(RethHeader::new_checked(&BYTES[..15]).unwrap_err(), Error::Truncated);
    }

    #[test]
    fn emit() {
        let mut b = [0u8; 16];
        REPR.emit(&mut RethHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, BYTES);
    }
}
