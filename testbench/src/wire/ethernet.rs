//! Ethernet II header (IEEE 802.3 clause 3.2 with an EtherType in the length/type field).

use super::{Error, Field, Rest, Result};
use std::fmt;

/// A MAC address, first byte first on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    pub const BROADCAST: EthernetAddress = EthernetAddress([0xff; 6]);

    pub fn from_bytes(b: &[u8]) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(b);
        EthernetAddress(a)
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
    /// Group bit (I/G), the least significant bit of the first byte.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }
    pub fn is_unicast(&self) -> bool {
        !self.is_multicast()
    }
    /// U/L bit: set for locally administered addresses.
    pub fn is_local(&self) -> bool {
        self.0[0] & 0x02 != 0
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5])
    }
}

/// The EtherTypes this project meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EtherType {
    Ipv4,
    Arp,
    /// IEEE 802.1Q customer VLAN tag (C-tag) TPID.
    Vlan,
    /// IEEE 802.1ad service VLAN tag (S-tag, "QinQ") TPID.
    QinQ,
    Ipv6,
    /// IEEE 802 local experimental EtherType 1, for test traffic.
    Experimental,
    Unknown(u16),
}

impl From<u16> for EtherType {
    fn from(v: u16) -> Self {
        match v {
            0x0800 => EtherType::Ipv4,
            0x0806 => EtherType::Arp,
            0x8100 => EtherType::Vlan,
            0x88A8 => EtherType::QinQ,
            0x86DD => EtherType::Ipv6,
            0x88B5 => EtherType::Experimental,
            other => EtherType::Unknown(other),
        }
    }
}

impl From<EtherType> for u16 {
    fn from(t: EtherType) -> u16 {
        match t {
            EtherType::Ipv4 => 0x0800,
            EtherType::Arp => 0x0806,
            EtherType::Vlan => 0x8100,
            EtherType::QinQ => 0x88A8,
            EtherType::Ipv6 => 0x86DD,
            EtherType::Experimental => 0x88B5,
            EtherType::Unknown(v) => v,
        }
    }
}

mod field {
    use super::{Field, Rest};
    pub const DESTINATION: Field = 0..6;
    pub const SOURCE: Field = 6..12;
    pub const ETHERTYPE: Field = 12..14;
    pub const PAYLOAD: Rest = 14..;
}

/// Length of the Ethernet II header.
pub const HEADER_LEN: usize = field::PAYLOAD.start;

/// A read-only or read/write view of an Ethernet II frame (without FCS).
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps a buffer without checking its length; accessors may panic on short buffers.
    pub fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }
    /// Wraps a buffer after checking it holds a header; no accessor panics afterwards.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = Self::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
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
    pub const fn header_len() -> usize {
        HEADER_LEN
    }
    pub const fn buffer_len(payload_len: usize) -> usize {
        HEADER_LEN + payload_len
    }
    pub fn dst_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::DESTINATION])
    }
    pub fn src_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::SOURCE])
    }
    pub fn ethertype(&self) -> EtherType {
        let b = &self.buffer.as_ref()[field::ETHERTYPE];
        EtherType::from(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    pub fn set_dst_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::DESTINATION].copy_from_slice(a.as_bytes());
    }
    pub fn set_src_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::SOURCE].copy_from_slice(a.as_bytes());
    }
    pub fn set_ethertype(&mut self, t: EtherType) {
        self.buffer.as_mut()[field::ETHERTYPE].copy_from_slice(&u16::from(t).to_be_bytes());
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD]
    }
}

/// The header as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetRepr {
    pub src_addr: EthernetAddress,
    pub dst_addr: EthernetAddress,
    pub ethertype: EtherType,
}

impl EthernetRepr {
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<EthernetRepr> {
        frame.check_len()?;
        Ok(EthernetRepr { src_addr: frame.src_addr(), dst_addr: frame.dst_addr(), ethertype: frame.ethertype() })
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header; the buffer must hold at least `buffer_len()` bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_src_addr(self.src_addr);
        frame.set_dst_addr(self.dst_addr);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An ARP request broadcast from 52:54:00:12:34:56, as a capture shows it.
    static FRAME_BYTES: [u8; 20] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // destination
        0x52, 0x54, 0x00, 0x12, 0x34, 0x56, // source
        0x08, 0x06, // ARP
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, // payload start
    ];

    fn repr() -> EthernetRepr {
        EthernetRepr {
            src_addr: EthernetAddress([0x52, 0x54, 0x00, 0x12, 0x34, 0x56]),
            dst_addr: EthernetAddress::BROADCAST,
            ethertype: EtherType::Arp,
        }
    }

    #[test]
    fn parse() {
        let f = EthernetFrame::new_checked(&FRAME_BYTES[..]).unwrap();
        assert!(f.dst_addr().is_broadcast());
        assert_eq!(f.src_addr().to_string(), "52:54:00:12:34:56");
        assert_eq!(f.ethertype(), EtherType::Arp);
        assert_eq!(f.payload(), &FRAME_BYTES[14..]);
        assert_eq!(EthernetRepr::parse(&f).unwrap(), repr());
    }

    #[test]
    fn emit() {
        let mut bytes = [0u8; 20];
        bytes[14..].copy_from_slice(&FRAME_BYTES[14..]);
        let mut f = EthernetFrame::new_unchecked(&mut bytes[..]);
        repr().emit(&mut f);
        assert_eq!(bytes, FRAME_BYTES);
    }

    #[test]
    fn truncated() {
        assert_eq!(EthernetFrame::new_checked(&FRAME_BYTES[..13]).unwrap_err(), Error::Truncated);
        assert!(EthernetFrame::new_checked(&FRAME_BYTES[..14]).unwrap().payload().is_empty());
    }

    #[test]
    fn ethertype_round_trip() {
        for v in [0x0800u16, 0x0806, 0x8100, 0x88A8, 0x86DD, 0x88B5, 0x1234] {
            assert_eq!(u16::from(EtherType::from(v)), v);
        }
    }
}
