//! InfiniBand Base Transport Header (IBTA vol. 1, 9.2; RoCEv2 carries it in UDP
//! datagrams to port 4791, Annex A17): 12 bytes.
//!
//! ```text
//!  0: opcode (8)
//!  1: SE (1) M (1) PadCnt (2) TVer (4)
//!  2: P_Key (16)
//!  4: FECN (1) BECN (1) reserved (6)
//!  5: DestQP (24)
//!  8: AckReq (1) reserved (7)
//!  9: PSN (24)
//! ```

use super::{get_u16, get_u32, set_u16, set_u32, Error, Field, Result};

mod field {
    use super::Field;
    pub const OPCODE: usize = 0;
    pub const FLAGS: usize = 1;
    pub const PKEY: Field = 2..4;
    /// FECN, BECN and six reserved bits: the byte ICRC masks to all ones.
    pub const RESV8A: usize = 4;
    pub const DEST_QP: Field = 4..8;
    pub const PSN: Field = 8..12;
}

pub const HEADER_LEN: usize = field::PSN.end;
/// Offset of the byte (FECN, BECN, reserved) that the ICRC covers as all ones.
pub const ICRC_MASKED_BYTE: usize = field::RESV8A;
/// The default partition key (full membership).
pub const DEFAULT_PKEY: u16 = 0xffff;
/// 24-bit fields: QPN, PSN.
pub const MASK_24: u32 = 0x00ff_ffff;

const SE: u8 = 0x80;
const MIGREQ: u8 = 0x40;
const PAD_SHIFT: u8 = 4;
const FECN: u8 = 0x80;
const BECN: u8 = 0x40;
const ACKREQ: u32 = 0x8000_0000;

/// A view of a BTH at the start of a buffer (what follows is the rest of the packet).
#[derive(Debug, Clone)]
pub struct BthHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> BthHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        BthHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn opcode(&self) -> u8 {
        self.buffer.as_ref()[field::OPCODE]
    }
    /// Solicited event.
    pub fn solicited(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS] & SE != 0
    }
    pub fn mig_req(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS] & MIGREQ != 0
    }
    /// Bytes of padding after the payload that make it a multiple of 4.
    pub fn pad_count(&self) -> u8 {
        (self.buffer.as_ref()[field::FLAGS] >> PAD_SHIFT) & 3
    }
    /// Transport header version (0).
    pub fn tver(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS] & 0x0f
    }
    pub fn pkey(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::PKEY)
    }
    pub fn fecn(&self) -> bool {
        self.buffer.as_ref()[field::RESV8A] & FECN != 0
    }
    pub fn becn(&self) -> bool {
        self.buffer.as_ref()[field::RESV8A] & BECN != 0
    }
    pub fn dest_qp(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::DEST_QP) & MASK_24
    }
    pub fn ack_req(&self) -> bool {
        get_u32(self.buffer.as_ref(), field::PSN) & ACKREQ != 0
    }
    pub fn psn(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::PSN) & MASK_24
    }
    /// What follows the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> BthHeader<T> {
    pub fn set_opcode(&mut self, v: u8) {
        self.buffer.as_mut()[field::OPCODE] = v;
    }
    /// SE, M, PadCnt and TVer together.
    pub fn set_flags(&mut self, solicited: bool, mig_req: bool, pad_count: u8, tver: u8) {
        let v = if solicited { SE } else { 0 } | if mig_req { MIGREQ } else { 0 } | (pad_count & 3) << PAD_SHIFT | tver & 0x0f;
        self.buffer.as_mut()[field::FLAGS] = v;
    }
    pub fn set_pkey(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::PKEY, v);
    }
    /// FECN, BECN; the six reserved bits are sent as 0.
    pub fn set_dest_qp(&mut self, qpn: u32, fecn: bool, becn: bool) {
        let top = u32::from(if fecn { FECN } else { 0 } | if becn { BECN } else { 0 }) << 24;
        set_u32(self.buffer.as_mut(), field::DEST_QP, top | qpn & MASK_24);
    }
    /// AckReq; the seven reserved bits are sent as 0.
    pub fn set_psn(&mut self, psn: u32, ack_req: bool) {
        set_u32(self.buffer.as_mut(), field::PSN, if ack_req { ACKREQ } else { 0 } | psn & MASK_24);
    }
}

/// The BTH as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BthRepr {
    pub opcode: u8,
    pub solicited: bool,
    pub mig_req: bool,
    pub pad_count: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub psn: u32,
}

impl BthRepr {
    /// Parses a BTH; a transport header version other than 0 is malformed (IBTA 9.2.1.4:
    /// such packets are dropped).
    pub fn parse<T: AsRef<[u8]>>(h: &BthHeader<T>) -> Result<BthRepr> {
        h.check_len()?;
        if h.tver() != 0 {
            return Err(Error::Malformed);
        }
        Ok(BthRepr {
            opcode: h.opcode(),
            solicited: h.solicited(),
            mig_req: h.mig_req(),
            pad_count: h.pad_count(),
            pkey: h.pkey(),
            fecn: h.fecn(),
            becn: h.becn(),
            dest_qp: h.dest_qp(),
            ack_req: h.ack_req(),
            psn: h.psn(),
        })
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut BthHeader<T>) {
        h.set_opcode(self.opcode);
        h.set_flags(self.solicited, self.mig_req, self.pad_count, 0);
        h.set_pkey(self.pkey);
        h.set_dest_qp(self.dest_qp, self.fecn, self.becn);
        h.set_psn(self.psn, self.ack_req);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RDMA WRITE Only (0x0a), SE clear, M set, PadCnt 3, P_Key 0xffff, BECN set,
    // DestQP 0x000011, AckReq set, PSN 0x123456. Bytes written out by hand from the
    // layout in IBTA 9.2 (figure 122).
    static BYTES: [u8; 12] = [0x0a, 0x70, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56];

    fn repr() -> BthRepr {
        BthRepr { opcode: 0x0a, solicited: false, mig_req: true, pad_count: 3, pkey: 0xffff, fecn: false, becn: true, dest_qp: 0x11, ack_req: true, psn: 0x12_3456 }
    }

    #[test]
    fn parse() {
        let h = BthHeader::new_checked(&BYTES[..]).unwrap();
        assert_eq!(BthRepr::parse(&h).unwrap(), repr());
    }

    #[test]
    fn emit() {
        let mut b = [0u8; 12];
        repr().emit(&mut BthHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, BYTES);
    }

    #[test]
    fn bad() {
        assert_eq!(BthHeader::new_checked(&BYTES[..11]).unwrap_err(), Error::Truncated);
        let mut b = BYTES;
        b[1] |= 1; // TVer 1
        assert_eq!(BthRepr::parse(&BthHeader::new_unchecked(&b[..])).unwrap_err(), Error::Malformed);
    }
}
