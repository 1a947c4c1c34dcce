//! UDP header (RFC 768): ports, length (header and data), checksum over the
//! pseudo-header. Over IPv4 a checksum field of 0 means "none sent" and a computed 0 is
//! sent as 0xffff; over IPv6 a checksum is mandatory (RFC 8200 8.1).

use super::ip::{self, protocol};
use super::{get_u16, set_u16, Error, Field, Result};
use std::net::IpAddr;

mod field {
    use super::Field;
    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const LENGTH: Field = 4..6;
    pub const CHECKSUM: Field = 6..8;
}

pub const HEADER_LEN: usize = field::CHECKSUM.end;

/// A view of a UDP datagram; bytes past the length field are outside `payload()` and
/// the checksum.
#[derive(Debug, Clone)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            Err(Error::Truncated)
        } else if usize::from(self.len()) < HEADER_LEN {
            Err(Error::Malformed)
        } else if len < usize::from(self.len()) {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn src_port(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::SRC_PORT)
    }
    pub fn dst_port(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::DST_PORT)
    }
    /// The length field: header and payload.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::LENGTH)
    }
    pub fn checksum(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..usize::from(self.len())]
    }
    /// The datagram as the length field delimits it.
    pub fn datagram(&self) -> &[u8] {
        &self.buffer.as_ref()[..usize::from(self.len())]
    }
    /// Whether the checksum verifies: a zero field passes over IPv4 (none sent) and
    /// fails over IPv6 (mandatory).
    pub fn verify_checksum(&self, src: IpAddr, dst: IpAddr) -> bool {
        if self.checksum() == 0 {
            return src.is_ipv4();
        }
        ip::l4_verifies(src, dst, protocol::UDP, self.datagram())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    pub fn set_src_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SRC_PORT, v);
    }
    pub fn set_dst_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DST_PORT, v);
    }
    pub fn set_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH, v);
    }
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = usize::from(self.len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
    /// Computes and stores the checksum over the pseudo-header and `len()` bytes; a
    /// computed 0 is stored as 0xffff.
    pub fn fill_checksum(&mut self, src: IpAddr, dst: IpAddr) {
        self.set_checksum(0);
        let c = ip::l4_checksum(src, dst, protocol::UDP, self.datagram());
        self.set_checksum(if c == 0 { 0xffff } else { c });
    }
}

/// The header as plain data (the length follows from the payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
}

impl UdpRepr {
    pub fn parse<T: AsRef<[u8]>>(p: &UdpPacket<T>) -> Result<UdpRepr> {
        p.check_len()?;
        Ok(UdpRepr { src_port: p.src_port(), dst_port: p.dst_port() })
    }
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }
    pub const fn buffer_len(&self, payload_len: usize) -> usize {
        HEADER_LEN + payload_len
    }
    /// Writes header, payload and checksum; the buffer must hold `buffer_len(payload.len())`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut UdpPacket<T>, src: IpAddr, dst: IpAddr, payload: &[u8]) {
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len((HEADER_LEN + payload.len()) as u16);
        p.payload_mut().copy_from_slice(payload);
        p.fill_checksum(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // mDNS-port datagram fe80::1 -> ff02::1 carrying "hi!!"; checksum 0x4ef4 computed
    // independently (Python over pseudo-header and bytes).
    static DATAGRAM: [u8; 12] = [0x14, 0xe9, 0x14, 0xe9, 0x00, 0x0c, 0x4e, 0xf4, 0x68, 0x69, 0x21, 0x21];

    fn addrs() -> (IpAddr, IpAddr) {
        ("fe80::1".parse().unwrap(), "ff02::1".parse().unwrap())
    }

    #[test]
    fn parse() {
        let (s, d) = addrs();
        let mut b = DATAGRAM.to_vec();
        b.extend_from_slice(&[0, 0]); // padding outside the datagram
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port(), p.len()), (5353, 5353, 12));
        assert_eq!(p.payload(), b"hi!!");
        assert!(p.verify_checksum(s, d));
        assert_eq!(UdpRepr::parse(&p).unwrap(), UdpRepr { src_port: 5353, dst_port: 5353 });
    }

    #[test]
    fn emit() {
        let (s, d) = addrs();
        let mut b = [0u8; 12];
        UdpRepr { src_port: 5353, dst_port: 5353 }.emit(&mut UdpPacket::new_unchecked(&mut b[..]), s, d, b"hi!!");
        assert_eq!(b, DATAGRAM);
    }

    #[test]
    fn zero_checksum() {
        let mut b = DATAGRAM;
        b[6] = 0;
        b[7] = 0;
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        let (s6, d6) = addrs();
        assert!(!p.verify_checksum(s6, d6));
        assert!(p.verify_checksum("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()));
    }

    #[test]
    fn computed_zero_is_sent_as_ffff() {
        // Choose the payload so that the checksum computes to 0: put the complement of
        // the rest of the sum in the last two payload bytes.
        let (s, d): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let mut b = [0u8; 12];
        let r = UdpRepr { src_port: 1, dst_port: 2 };
        r.emit(&mut UdpPacket::new_unchecked(&mut b[..]), s, d, &[0, 0, 0, 0]);
        // sum without checksum is !c; adding !(!c)... set the payload word to c's
        // complement of the sum so the total becomes 0xffff -> checksum 0
        let c = UdpPacket::new_unchecked(&b[..]).checksum();
        r.emit(&mut UdpPacket::new_unchecked(&mut b[..]), s, d, &[(c >> 8) as u8, c as u8, 0, 0]);
        let p = UdpPacket::new_unchecked(&b[..]);
        assert_eq!(p.checksum(), 0xffff);
        assert!(p.verify_checksum(s, d));
    }

    #[test]
    fn bad_lengths() {
        assert_eq!(UdpPacket::new_checked(&DATAGRAM[..7]).unwrap_err(), Error::Truncated);
        assert_eq!(UdpPacket::new_checked(&DATAGRAM[..11]).unwrap_err(), Error::Truncated);
        let mut b = DATAGRAM;
        b[5] = 7;
        assert_eq!(UdpPacket::new_checked(&b[..]).unwrap_err(), Error::Malformed);
    }
}
