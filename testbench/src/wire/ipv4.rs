//! IPv4 header (RFC 791): version/IHL, DSCP/ECN, total length, identification,
//! flags (DF, MF) and fragment offset, TTL, protocol, header checksum, addresses, and
//! options up to 40 bytes (`IHL` counts 32-bit words).

use super::{get_u16, set_u16, Error, Field, Result};
use crate::checksum;
use std::net::Ipv4Addr;

/// EtherType of IPv4.
pub const ETHERTYPE: u16 = 0x0800;

mod field {
    use super::Field;
    pub const VER_IHL: usize = 0;
    pub const DSCP_ECN: usize = 1;
    pub const LENGTH: Field = 2..4;
    pub const IDENT: Field = 4..6;
    pub const FLG_OFF: Field = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Field = 10..12;
    pub const SRC_ADDR: Field = 12..16;
    pub const DST_ADDR: Field = 16..20;
}

/// Length of the header without options.
pub const HEADER_LEN: usize = field::DST_ADDR.end;
/// Longest header: IHL 15.
pub const MAX_HEADER_LEN: usize = 60;
/// Longest options.
pub const MAX_OPTIONS_LEN: usize = MAX_HEADER_LEN - HEADER_LEN;

const FLAG_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const OFFSET_MASK: u16 = 0x1fff;

/// A view of an IPv4 packet (header, options, payload; bytes past the total length,
/// e.g. Ethernet padding, are outside `payload()`).
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }
    /// Checks the lengths (header, options, total length); after that no accessor
    /// panics. The version is not checked here ([`Ipv4Repr::parse`] does).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let hl = self.header_len();
        let total = usize::from(self.total_len());
        if hl < HEADER_LEN || total < hl {
            Err(Error::Malformed)
        } else if len < hl || len < total {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }
    /// The IHL field (32-bit words).
    pub fn ihl(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] & 0x0f
    }
    /// Header length in bytes, options included.
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * 4
    }
    pub fn dscp_ecn(&self) -> u8 {
        self.buffer.as_ref()[field::DSCP_ECN]
    }
    pub fn total_len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::LENGTH)
    }
    pub fn ident(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::IDENT)
    }
    pub fn dont_frag(&self) -> bool {
        get_u16(self.buffer.as_ref(), field::FLG_OFF) & FLAG_DF != 0
    }
    pub fn more_frags(&self) -> bool {
        get_u16(self.buffer.as_ref(), field::FLG_OFF) & FLAG_MF != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::FLG_OFF) & OFFSET_MASK
    }
    /// MF set or a non-zero fragment offset.
    pub fn is_fragment(&self) -> bool {
        self.more_frags() || self.frag_offset() != 0
    }
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }
    pub fn checksum(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::SRC_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::DST_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }
    /// The option bytes (`header_len() - 20` of them).
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }
    /// The header, options included.
    pub fn header(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.header_len()]
    }
    /// Whether the header (options included) sums to all ones.
    pub fn verify_checksum(&self) -> bool {
        checksum::verifies(checksum::data(self.header()))
    }
    /// The bytes after the header up to the total length.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..usize::from(self.total_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    pub fn set_version(&mut self, v: u8) {
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0x0f) | v << 4;
    }
    /// Sets IHL from a length in bytes (a multiple of 4, 20..=60).
    pub fn set_header_len(&mut self, len: usize) {
        debug_assert!(len.is_multiple_of(4) && len <= MAX_HEADER_LEN);
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0xf0) | (len / 4) as u8 & 0x0f;
    }
    pub fn set_dscp_ecn(&mut self, v: u8) {
        self.buffer.as_mut()[field::DSCP_ECN] = v;
    }
    pub fn set_total_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH, v);
    }
    pub fn set_ident(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::IDENT, v);
    }
    /// Sets DF, MF and the fragment offset (8-byte units) together.
    pub fn set_flags_frag(&mut self, dont_frag: bool, more_frags: bool, offset: u16) {
        let v = if dont_frag { FLAG_DF } else { 0 } | if more_frags { FLAG_MF } else { 0 } | (offset & OFFSET_MASK);
        set_u16(self.buffer.as_mut(), field::FLG_OFF, v);
    }
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[field::TTL] = v;
    }
    pub fn set_protocol(&mut self, v: u8) {
        self.buffer.as_mut()[field::PROTOCOL] = v;
    }
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
    pub fn set_src_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.octets());
    }
    pub fn set_dst_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.octets());
    }
    pub fn options_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len();
        &mut self.buffer.as_mut()[HEADER_LEN..hl]
    }
    /// Computes and stores the header checksum (over `header_len()` bytes).
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let c = checksum::finish(checksum::data(self.header()));
        self.set_checksum(c);
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let range = self.header_len()..usize::from(self.total_len());
        &mut self.buffer.as_mut()[range]
    }
}

/// The header as plain data. `options` are the raw option bytes; `emit` pads them with
/// End-of-Options (zero) bytes to a multiple of 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src_addr: Ipv4Addr,
    pub dst_addr: Ipv4Addr,
    pub protocol: u8,
    /// Bytes after the header (total length minus header length).
    pub payload_len: usize,
    pub ttl: u8,
    pub dscp_ecn: u8,
    pub ident: u16,
    pub dont_frag: bool,
    pub more_frags: bool,
    /// Fragment offset in 8-byte units.
    pub frag_offset: u16,
    pub options: Vec<u8>,
}

impl Ipv4Repr {
    /// An unfragmented datagram with TTL 64, DF set, identification 0 and no options.
    pub fn new(src_addr: Ipv4Addr, dst_addr: Ipv4Addr, protocol: u8, payload_len: usize) -> Ipv4Repr {
        Ipv4Repr { src_addr, dst_addr, protocol, payload_len, ttl: 64, dscp_ecn: 0, ident: 0, dont_frag: true, more_frags: false, frag_offset: 0, options: Vec::new() }
    }
    /// Parses a header whose lengths and version are consistent (the checksum is not
    /// checked: see [`Ipv4Packet::verify_checksum`]).
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>) -> Result<Ipv4Repr> {
        p.check_len()?;
        if p.version() != 4 {
            return Err(Error::Malformed);
        }
        Ok(Ipv4Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            protocol: p.protocol(),
            payload_len: usize::from(p.total_len()) - p.header_len(),
            ttl: p.ttl(),
            dscp_ecn: p.dscp_ecn(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
            options: p.options().to_vec(),
        })
    }
    /// Header length, options padded to a multiple of 4.
    pub fn header_len(&self) -> usize {
        assert!(self.options.len() <= MAX_OPTIONS_LEN, "{} option bytes", self.options.len());
        HEADER_LEN + self.options.len().div_ceil(4) * 4
    }
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_len
    }
    /// Writes the header and its checksum; the buffer must hold `header_len()` bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>) {
        let hl = self.header_len();
        p.set_version(4);
        p.set_header_len(hl);
        p.set_dscp_ecn(self.dscp_ecn);
        p.set_total_len((hl + self.payload_len) as u16);
        p.set_ident(self.ident);
        p.set_flags_frag(self.dont_frag, self.more_frags, self.frag_offset);
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
        let opts = p.options_mut();
        opts.fill(0);
        opts[..self.options.len()].copy_from_slice(&self.options);
        p.fill_checksum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // UDP, 192.168.0.1 -> 192.168.0.199, total length 0x73, DF, TTL 64, checksum b861.
    static HEADER: [u8; 20] = [0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7];

    // IGMPv2 report to 224.0.0.22 with the Router Alert option (RFC 2113: 94 04 00 00),
    // IHL 6, TOS 0xc0, TTL 1; header checksum 0x4257 and IGMP checksum 0xfa04 computed
    // independently (a few lines of Python over the bytes).
    static WITH_OPTIONS: [u8; 32] = [
        0x46, 0xc0, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x01, 0x02, 0x42, 0x57, 0xc0, 0xa8, 0x01, 0x02, 0xe0, 0x00, 0x00, 0x16, // header
        0x94, 0x04, 0x00, 0x00, // router alert
        0x16, 0x00, 0xfa, 0x04, 0xef, 0xff, 0xff, 0xfa, // IGMP payload
    ];

    fn repr() -> Ipv4Repr {
        Ipv4Repr::new(Ipv4Addr::new(192, 168, 0, 1), Ipv4Addr::new(192, 168, 0, 199), 17, 0x73 - 20)
    }

    #[test]
    fn parse() {
        let mut b = HEADER.to_vec();
        b.resize(0x73 + 6, 0xee); // payload and Ethernet padding
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!((p.version(), p.header_len(), p.total_len()), (4, 20, 0x73));
        assert!(p.dont_frag() && !p.more_frags() && !p.is_fragment());
        assert!(p.verify_checksum());
        assert_eq!(p.payload().len(), 0x73 - 20);
        assert_eq!(Ipv4Repr::parse(&p).unwrap(), repr());
    }

    #[test]
    fn emit() {
        let mut b = vec![0u8; 0x73];
        repr().emit(&mut Ipv4Packet::new_unchecked(&mut b[..]));
        assert_eq!(b[..20], HEADER);
    }

    #[test]
    fn options_round_trip() {
        let p = Ipv4Packet::new_checked(&WITH_OPTIONS[..]).unwrap();
        assert_eq!(p.header_len(), 24);
        assert_eq!(p.options(), &[0x94, 0x04, 0x00, 0x00]);
        assert!(p.verify_checksum());
        let r = Ipv4Repr::parse(&p).unwrap();
        assert_eq!((r.ttl, r.dscp_ecn, r.protocol, r.payload_len), (1, 0xc0, 2, 8));
        let mut b = [0u8; 32];
        b[24..].copy_from_slice(&WITH_OPTIONS[24..]);
        r.emit(&mut Ipv4Packet::new_unchecked(&mut b[..]));
        assert_eq!(b, WITH_OPTIONS);
        // odd option lengths are padded with End-of-Options
        let r3 = Ipv4Repr { options: vec![1, 1, 1], ..r };
        assert_eq!(r3.header_len(), 24);
    }

    #[test]
    fn fragments() {
        let mut b = HEADER;
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.set_flags_frag(false, true, 0);
        assert!(p.is_fragment() && p.more_frags() && p.frag_offset() == 0);
        p.set_flags_frag(false, false, 0x1fff);
        assert!(p.is_fragment() && !p.more_frags() && p.frag_offset() == 0x1fff && !p.dont_frag());
        p.set_flags_frag(true, false, 0);
        assert!(!p.is_fragment());
    }

    #[test]
    fn bad_lengths() {
        assert_eq!(Ipv4Packet::new_checked(&HEADER[..19]).unwrap_err(), Error::Truncated);
        assert_eq!(Ipv4Packet::new_checked(&HEADER[..]).unwrap_err(), Error::Truncated); // total 0x73 > 20
        let mut b = HEADER;
        b[0] = 0x44; // IHL 4
        assert_eq!(Ipv4Packet::new_checked(&b[..]).unwrap_err(), Error::Malformed);
        let mut b = HEADER;
        b[3] = 19; // total length below the header
        assert_eq!(Ipv4Packet::new_checked(&b[..]).unwrap_err(), Error::Malformed);
        let mut b = HEADER;
        b[3] = 20;
        b[0] = 0x65; // version 6
        assert_eq!(Ipv4Repr::parse(&Ipv4Packet::new_checked(&b[..]).unwrap()).unwrap_err(), Error::Malformed);
    }

    #[test]
    fn checksum_fill_and_verify() {
        let mut b = HEADER;
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.set_ttl(63);
        assert!(!p.verify_checksum());
        p.fill_checksum();
        assert!(p.verify_checksum());
    }
}
