//! IEEE 802.1Q VLAN tag (C-tag, TPID 0x8100) and IEEE 802.1ad service tag (S-tag,
//! TPID 0x88a8). The TPID is the EtherType field before the tag; this view covers what
//! follows it: the tag control information (PCP 3 bits, DEI 1 bit, VID 12 bits) and the
//! inner EtherType.

use super::{get_u16, set_u16, Error, EtherType, Field, Rest, Result};

/// 802.1Q tag protocol identifier (customer tag).
pub const TPID_CTAG: u16 = 0x8100;
/// 802.1ad tag protocol identifier (service tag, outer tag of QinQ).
pub const TPID_STAG: u16 = 0x88A8;

/// Whether an EtherType field value announces a VLAN tag.
pub fn is_tpid(ethertype: u16) -> bool {
    ethertype == TPID_CTAG || ethertype == TPID_STAG
}

mod field {
    use super::{Field, Rest};
    pub const TCI: Field = 0..2;
    pub const ETHERTYPE: Field = 2..4;
    pub const PAYLOAD: Rest = 4..;
}

/// Bytes a tag adds to a frame.
pub const HEADER_LEN: usize = field::PAYLOAD.start;

/// A view of a VLAN tag: the bytes after its TPID.
#[derive(Debug, Clone)]
pub struct VlanTag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        VlanTag { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let t = Self::new_unchecked(buffer);
        t.check_len()?;
        Ok(t)
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
    pub fn tci(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::TCI)
    }
    /// Priority code point (802.1p).
    pub fn pcp(&self) -> u8 {
        (self.tci() >> 13) as u8
    }
    /// Drop eligible indicator.
    pub fn dei(&self) -> bool {
        self.tci() >> 12 & 1 == 1
    }
    /// VLAN identifier.
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0fff
    }
    pub fn ethertype(&self) -> EtherType {
        EtherType::from(get_u16(self.buffer.as_ref(), field::ETHERTYPE))
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    pub fn set_tci(&mut self, tci: u16) {
        set_u16(self.buffer.as_mut(), field::TCI, tci);
    }
    pub fn set_ethertype(&mut self, t: EtherType) {
        set_u16(self.buffer.as_mut(), field::ETHERTYPE, t.into());
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD]
    }
}

/// A tag as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanRepr {
    pub pcp: u8,
    pub dei: bool,
    pub vid: u16,
    /// The EtherType after the tag (another TPID for the outer tag of a QinQ pair).
    pub ethertype: EtherType,
}

impl VlanRepr {
    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> Result<VlanRepr> {
        tag.check_len()?;
        Ok(VlanRepr { pcp: tag.pcp(), dei: tag.dei(), vid: tag.vid(), ethertype: tag.ethertype() })
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn tci(&self) -> u16 {
        u16::from(self.pcp & 7) << 13 | u16::from(self.dei) << 12 | (self.vid & 0x0fff)
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, tag: &mut VlanTag<T>) {
        tag.set_tci(self.tci());
        tag.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // PCP 5, DEI 0, VID 100 (0x064), then IPv4.
    static TAG_BYTES: [u8; 6] = [0xa0, 0x64, 0x08, 0x00, 0x45, 0x00];

    fn repr() -> VlanRepr {
        VlanRepr { pcp: 5, dei: false, vid: 100, ethertype: EtherType::Ipv4 }
    }

    #[test]
    fn parse() {
        let t = VlanTag::new_checked(&TAG_BYTES[..]).unwrap();
        assert_eq!((t.pcp(), t.dei(), t.vid()), (5, false, 100));
        assert_eq!(t.payload(), &[0x45, 0x00]);
        assert_eq!(VlanRepr::parse(&t).unwrap(), repr());
    }

    #[test]
    fn emit() {
        let mut b = [0u8; 6];
        b[4..].copy_from_slice(&TAG_BYTES[4..]);
        repr().emit(&mut VlanTag::new_unchecked(&mut b[..]));
        assert_eq!(b, TAG_BYTES);
        let dei = VlanRepr { pcp: 7, dei: true, vid: 0xfff, ethertype: EtherType::Vlan };
        let mut b = [0u8; 4];
        dei.emit(&mut VlanTag::new_unchecked(&mut b[..]));
        assert_eq!(b, [0xff, 0xff, 0x81, 0x00]);
    }

    #[test]
    fn truncated_and_tpids() {
        assert_eq!(VlanTag::new_checked(&TAG_BYTES[..3]).unwrap_err(), Error::Truncated);
        assert!(is_tpid(0x8100) && is_tpid(0x88a8) && !is_tpid(0x9100) && !is_tpid(0x0800));
    }
}
