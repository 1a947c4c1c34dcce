//! IPv6 fixed header (RFC 8200 3) and the common shape of the extension headers that
//! carry a length (RFC 8200 4: next header, length in 8-byte units not counting the
//! first 8; the Fragment header has the same first byte and a reserved zero second byte,
//! so the same view covers it).

use super::{get_u16, get_u32, set_u16, set_u32, Error, Field, Result};
use std::net::Ipv6Addr;

/// EtherType of IPv6.
pub const ETHERTYPE: u16 = 0x86DD;

mod field {
    use super::Field;
    pub const VER_TC_FLOW: Field = 0..4;
    pub const LENGTH: Field = 4..6;
    pub const NXT_HDR: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC_ADDR: Field = 8..24;
    pub const DST_ADDR: Field = 24..40;
}

/// Length of the fixed header.
pub const HEADER_LEN: usize = field::DST_ADDR.end;

/// A view of an IPv6 packet (bytes past `40 + payload_len` are outside `payload()`).
#[derive(Debug, Clone)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }
    /// Checks the header and the payload length fit; the version is checked by
    /// [`Ipv6Repr::parse`].
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN || len < HEADER_LEN + usize::from(self.payload_len()) {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    fn first_word(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::VER_TC_FLOW)
    }
    pub fn version(&self) -> u8 {
        (self.first_word() >> 28) as u8
    }
    pub fn traffic_class(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }
    pub fn flow_label(&self) -> u32 {
        self.first_word() & 0x000f_ffff
    }
    pub fn payload_len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::LENGTH)
    }
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NXT_HDR]
    }
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }
    pub fn src_addr(&self) -> Ipv6Addr {
        let b: [u8; 16] = self.buffer.as_ref()[field::SRC_ADDR].try_into().unwrap();
        Ipv6Addr::from(b)
    }
    pub fn dst_addr(&self) -> Ipv6Addr {
        let b: [u8; 16] = self.buffer.as_ref()[field::DST_ADDR].try_into().unwrap();
        Ipv6Addr::from(b)
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..HEADER_LEN + usize::from(self.payload_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    /// Sets version, traffic class and flow label (20 bits).
    pub fn set_first_word(&mut self, version: u8, traffic_class: u8, flow_label: u32) {
        let w = u32::from(version & 0xf) << 28 | u32::from(traffic_class) << 20 | (flow_label & 0x000f_ffff);
        set_u32(self.buffer.as_mut(), field::VER_TC_FLOW, w);
    }
    pub fn set_payload_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH, v);
    }
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[field::NXT_HDR] = v;
    }
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = v;
    }
    pub fn set_src_addr(&mut self, a: Ipv6Addr) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.octets());
    }
    pub fn set_dst_addr(&mut self, a: Ipv6Addr) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.octets());
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + usize::from(self.payload_len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// The fixed header as plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Repr {
    pub src_addr: Ipv6Addr,
    pub dst_addr: Ipv6Addr,
    pub next_header: u8,
    /// Bytes after the fixed header (extension headers included).
    pub payload_len: usize,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub flow_label: u32,
}

impl Ipv6Repr {
    /// Hop limit 64, traffic class and flow label 0.
    pub fn new(src_addr: Ipv6Addr, dst_addr: Ipv6Addr, next_header: u8, payload_len: usize) -> Ipv6Repr {
        Ipv6Repr { src_addr, dst_addr, next_header, payload_len, hop_limit: 64, traffic_class: 0, flow_label: 0 }
    }
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Ipv6Repr> {
        p.check_len()?;
        if p.version() != 6 {
            return Err(Error::Malformed);
        }
        Ok(Ipv6Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            next_header: p.next_header(),
            payload_len: usize::from(p.payload_len()),
            hop_limit: p.hop_limit(),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
        })
    }
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }
    /// Writes the fixed header; the buffer must hold 40 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv6Packet<T>) {
        p.set_first_word(6, self.traffic_class, self.flow_label);
        p.set_payload_len(self.payload_len as u16);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
    }
}

mod ext_field {
    pub const NXT_HDR: usize = 0;
    pub const LENGTH: usize = 1;
    pub const DATA: usize = 2;
}

/// Length of the shortest extension header.
pub const EXT_HEADER_MIN_LEN: usize = 8;

/// A view of an extension header with the generic layout (Hop-by-Hop, Routing,
/// Destination Options; the Fragment header, whose length byte is reserved 0, fits too).
#[derive(Debug, Clone)]
pub struct Ipv6ExtHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6ExtHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6ExtHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < EXT_HEADER_MIN_LEN || len < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[ext_field::NXT_HDR]
    }
    /// Header length in bytes: `8 * (length field + 1)`.
    pub fn header_len(&self) -> usize {
        8 * (usize::from(self.buffer.as_ref()[ext_field::LENGTH]) + 1)
    }
    /// The bytes after the two first ones, up to the header length.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[ext_field::DATA..self.header_len()]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6ExtHeader<T> {
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[ext_field::NXT_HDR] = v;
    }
    /// Sets the length field from a length in bytes (a multiple of 8, 8..=2048).
    pub fn set_header_len(&mut self, len: usize) {
        debug_assert!(len.is_multiple_of(8) && (8..=2048).contains(&len));
        self.buffer.as_mut()[ext_field::LENGTH] = (len / 8 - 1) as u8;
    }
    pub fn data_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len();
        &mut self.buffer.as_mut()[ext_field::DATA..hl]
    }
}

/// An extension header as plain data: `data` is padded with zeros (Pad1 options in
/// Hop-by-Hop and Destination Options) so that `2 + data` is a multiple of 8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv6ExtHeaderRepr {
    pub next_header: u8,
    pub data: Vec<u8>,
}

impl Ipv6ExtHeaderRepr {
    /// A Fragment header (RFC 8200 4.5): offset in 8-byte units, M flag, identification.
    pub fn fragment(next_header: u8, offset: u16, more: bool, ident: u32) -> Ipv6ExtHeaderRepr {
        let mut data = vec![0u8; 6];
        data[0..2].copy_from_slice(&((offset & 0x1fff) << 3 | u16::from(more)).to_be_bytes());
        data[2..6].copy_from_slice(&ident.to_be_bytes());
        Ipv6ExtHeaderRepr { next_header, data }
    }
    pub fn parse<T: AsRef<[u8]>>(h: &Ipv6ExtHeader<T>) -> Result<Ipv6ExtHeaderRepr> {
        h.check_len()?;
        Ok(Ipv6ExtHeaderRepr { next_header: h.next_header(), data: h.data().to_vec() })
    }
    pub fn buffer_len(&self) -> usize {
        (ext_field::DATA + self.data.len()).div_ceil(8).max(1) * 8
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut Ipv6ExtHeader<T>) {
        h.set_next_header(self.next_header);
        h.set_header_len(self.buffer_len());
        let d = h.data_mut();
        d.fill(0);
        d[..self.data.len()].copy_from_slice(&self.data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // fe80::1 -> ff02::1, traffic class 0x12, flow label 0x34567, 12 bytes of UDP,
    // hop limit 255.
    static HEADER: [u8; 40] = [
        0x61, 0x23, 0x45, 0x67, 0x00, 0x0c, 0x11, 0xff, //
        0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, //
        0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
    ];

    fn repr() -> Ipv6Repr {
        Ipv6Repr {
            src_addr: "fe80::1".parse().unwrap(),
            dst_addr: "ff02::1".parse().unwrap(),
            next_header: 17,
            payload_len: 12,
            hop_limit: 255,
            traffic_class: 0x12,
            flow_label: 0x34567,
        }
    }

    #[test]
    fn parse() {
        let mut b = HEADER.to_vec();
        b.resize(40 + 12 + 4, 0); // payload and padding
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!((p.version(), p.traffic_class(), p.flow_label()), (6, 0x12, 0x34567));
        assert_eq!(p.payload().len(), 12);
        assert_eq!(Ipv6Repr::parse(&p).unwrap(), repr());
    }

    #[test]
    fn emit() {
        let mut b = [0u8; 40];
        repr().emit(&mut Ipv6Packet::new_unchecked(&mut b[..]));
        assert_eq!(b, HEADER);
    }

    #[test]
    fn bad_lengths() {
        assert_eq!(Ipv6Packet::new_checked(&HEADER[..39]).unwrap_err(), Error::Truncated);
        assert_eq!(Ipv6Packet::new_checked(&HEADER[..]).unwrap_err(), Error::Truncated); // 12 payload bytes missing
        let mut b = HEADER;
        b[0] = 0x41;
        b[5] = 0;
        assert_eq!(Ipv6Repr::parse(&Ipv6Packet::new_checked(&b[..]).unwrap()).unwrap_err(), Error::Malformed);
    }

    #[test]
    fn extension_headers() {
        // Destination Options with one PadN option of 4 bytes, then TCP: 8 bytes.
        static DEST_OPTS: [u8; 8] = [0x06, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00];
        let h = Ipv6ExtHeader::new_checked(&DEST_OPTS[..]).unwrap();
        assert_eq!((h.next_header(), h.header_len()), (6, 8));
        let r = Ipv6ExtHeaderRepr::parse(&h).unwrap();
        assert_eq!(r.buffer_len(), 8);
        let mut b = [0xffu8; 8];
        r.emit(&mut Ipv6ExtHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, DEST_OPTS);
        // Fragment header: offset 185 (1480 bytes), M set, identification 0xdeadbeef.
        let f = Ipv6ExtHeaderRepr::fragment(17, 185, true, 0xdead_beef);
        let mut b = [0u8; 8];
        f.emit(&mut Ipv6ExtHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, [0x11, 0x00, 0x05, 0xc9, 0xde, 0xad, 0xbe, 0xef]);
        // a longer header: length field 1 -> 16 bytes
        let long = Ipv6ExtHeaderRepr { next_header: 59, data: vec![1; 9] };
        assert_eq!(long.buffer_len(), 16);
        let mut b = [0u8; 16];
        long.emit(&mut Ipv6ExtHeader::new_unchecked(&mut b[..]));
        assert_eq!(b[1], 1);
        assert_eq!(Ipv6ExtHeader::new_checked(&b[..15]).unwrap_err(), Error::Truncated);
    }
}
