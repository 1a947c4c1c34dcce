//! InfiniBand ACK Extended Transport Header (IBTA vol. 1, 9.3.5): 4 bytes after the BTH
//! of Acknowledge packets and of the first, last and only RDMA READ response.
//!
//! ```text
//!  0: syndrome (8): bits 7..5 the kind, 4..0 its value
//!  1: MSN (24): message sequence number, the count of requests the responder completed
//! ```

use super::{get_u32, set_u32, Error, Field, Result};

mod field {
    use super::Field;
    pub const SYNDROME_MSN: Field = 0..4;
}

pub const HEADER_LEN: usize = field::SYNDROME_MSN.end;
const MSN_MASK: u32 = 0x00ff_ffff;

/// NAK codes (syndrome 011xxxxx, IBTA table 47).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NakCode {
    PsnSequenceError = 0,
    InvalidRequest = 1,
    RemoteAccessError = 2,
    RemoteOperationalError = 3,
    InvalidRdRequest = 4,
}

impl NakCode {
    pub fn from_u8(v: u8) -> Option<NakCode> {
        Some(match v {
            0 => NakCode::PsnSequenceError,
            1 => NakCode::InvalidRequest,
            2 => NakCode::RemoteAccessError,
            3 => NakCode::RemoteOperationalError,
            4 => NakCode::InvalidRdRequest,
            _ => return None,
        })
    }
}

/// The syndrome, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syndrome {
    /// 000: ACK with the responder's end-to-end credit count (31: unlimited).
    Ack { credits: u8 },
    /// 001: receiver not ready; the 5-bit timer code of IBTA table 45.
    RnrNak { timer: u8 },
    /// 011: NAK.
    Nak(NakCode),
    /// 010, 1xx, or an unassigned NAK code.
    Reserved(u8),
}

/// Credit count that says "no end-to-end flow control".
pub const CREDITS_UNLIMITED: u8 = 0x1f;

impl Syndrome {
    pub fn from_byte(b: u8) -> Syndrome {
        let v = b & 0x1f;
        match b >> 5 {
            0 => Syndrome::Ack { credits: v },
            1 => Syndrome::RnrNak { timer: v },
            3 => NakCode::from_u8(v).map_or(Syndrome::Reserved(b), Syndrome::Nak),
            _ => Syndrome::Reserved(b),
        }
    }
    pub fn to_byte(self) -> u8 {
        match self {
            Syndrome::Ack { credits } => credits & 0x1f,
            Syndrome::RnrNak { timer } => 0x20 | timer & 0x1f,
            Syndrome::Nak(code) => 0x60 | code as u8,
            Syndrome::Reserved(b) => b,
        }
    }
}

#[derive(Debug, Clone)]
pub struct AethHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AethHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        AethHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        if h.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(h)
    }
    pub fn syndrome(&self) -> u8 {
        self.buffer.as_ref()[0]
    }
    pub fn msn(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::SYNDROME_MSN) & MSN_MASK
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AethHeader<T> {
    pub fn set(&mut self, syndrome: u8, msn: u32) {
        set_u32(self.buffer.as_mut(), field::SYNDROME_MSN, u32::from(syndrome) << 24 | msn & MSN_MASK);
    }
}

/// The AETH as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AethRepr {
    pub syndrome: Syndrome,
    pub msn: u32,
}

impl AethRepr {
    pub fn parse<T: AsRef<[u8]>>(h: &AethHeader<T>) -> Result<AethRepr> {
        if h.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(AethRepr { syndrome: Syndrome::from_byte(h.syndrome()), msn: h.msn() })
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut AethHeader<T>) {
        h.set(self.syndrome.to_byte(), self.msn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syndromes_of_ibta_table_44() {
        assert_eq!(Syndrome::from_byte(0x1f), Syndrome::Ack { credits: CREDITS_UNLIMITED });
        assert_eq!(Syndrome::from_byte(0x2e), Syndrome::RnrNak { timer: 0x0e });
        assert_eq!(Syndrome::from_byte(0x60), Syndrome::Nak(NakCode::PsnSequenceError));
        assert_eq!(Syndrome::from_byte(0x62), Syndrome::Nak(NakCode::RemoteAccessError));
        assert_eq!(Syndrome::from_byte(0x40), Syndrome::Reserved(0x40));
        assert_eq!(Syndrome::from_byte(0x7f), Syndrome::Reserved(0x7f));
        for b in 0..=255u8 {
            let s = Syndrome::from_byte(b);
            assert_eq!(s.to_byte(), b, "{s:?}");
        }
    }

    #[test]
    fn parse_and_emit() {
        let bytes = [0x63, 0x00, 0x01, 0x02];
        let r = AethRepr::parse(&AethHeader::new_checked(&bytes[..]).unwrap()).unwrap();
        assert_eq!(r, AethRepr { syndrome: Syndrome::Nak(NakCode::RemoteOperationalError), msn: 0x102 });
        let mut b = [0u8; 4];
        r.emit(&mut AethHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, bytes);
        assert_eq!(AethHeader::new_checked(&bytes[..3]).unwrap_err(), Error::Truncated);
    }
}
