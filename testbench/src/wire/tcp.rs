//! TCP header (RFC 9293 3.1): ports, sequence and acknowledgment numbers, data offset
//! (header length in 32-bit words, options included), the nine flags, window,
//! checksum over the pseudo-header and the segment, urgent pointer, options.

use super::ip::{self, protocol};
use super::{get_u16, get_u32, set_u16, set_u32, Error, Field, Result};
use std::net::IpAddr;

mod field {
    use super::Field;
    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const SEQ_NUM: Field = 4..8;
    pub const ACK_NUM: Field = 8..12;
    pub const FLAGS: Field = 12..14;
    pub const WIN_SIZE: Field = 14..16;
    pub const CHECKSUM: Field = 16..18;
    pub const URGENT: Field = 18..20;
}

/// Length of the header without options.
pub const HEADER_LEN: usize = field::URGENT.end;
/// Longest header: data offset 15.
pub const MAX_HEADER_LEN: usize = 60;
pub const MAX_OPTIONS_LEN: usize = MAX_HEADER_LEN - HEADER_LEN;

/// The flag bits as they sit in the low 9 bits of bytes 12..14.
pub mod flags {
    pub const FIN: u16 = 0x001;
    pub const SYN: u16 = 0x002;
    pub const RST: u16 = 0x004;
    pub const PSH: u16 = 0x008;
    pub const ACK: u16 = 0x010;
    pub const URG: u16 = 0x020;
    pub const ECE: u16 = 0x040;
    pub const CWR: u16 = 0x080;
    /// ECN nonce (RFC 3540, historic).
    pub const NS: u16 = 0x100;
    pub const MASK: u16 = 0x1ff;
}

/// A view of a TCP segment: the buffer is the whole segment (header and payload, as
/// many bytes as the IP header says), which the checksum covers.
#[derive(Debug, Clone)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        TcpPacket { buffer }
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
        } else if self.header_len() < HEADER_LEN {
            Err(Error::Malformed)
        } else if len < self.header_len() {
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
    pub fn seq_number(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::SEQ_NUM)
    }
    pub fn ack_number(&self) -> u32 {
        get_u32(self.buffer.as_ref(), field::ACK_NUM)
    }
    /// The data offset field (32-bit words).
    pub fn data_offset(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS.start] >> 4
    }
    /// Header length in bytes, options included.
    pub fn header_len(&self) -> usize {
        usize::from(self.data_offset()) * 4
    }
    /// The nine flag bits ([`flags`]).
    pub fn flags(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::FLAGS) & flags::MASK
    }
    pub fn fin(&self) -> bool {
        self.flags() & flags::FIN != 0
    }
    pub fn syn(&self) -> bool {
        self.flags() & flags::SYN != 0
    }
    pub fn rst(&self) -> bool {
        self.flags() & flags::RST != 0
    }
    pub fn psh(&self) -> bool {
        self.flags() & flags::PSH != 0
    }
    pub fn ack(&self) -> bool {
        self.flags() & flags::ACK != 0
    }
    pub fn window_len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::WIN_SIZE)
    }
    pub fn checksum(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn urgent_at(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::URGENT)
    }
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
    /// Whether the segment with its pseudo-header sums to all ones.
    pub fn verify_checksum(&self, src: IpAddr, dst: IpAddr) -> bool {
        ip::l4_verifies(src, dst, protocol::TCP, self.buffer.as_ref())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    pub fn set_src_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SRC_PORT, v);
    }
    pub fn set_dst_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DST_PORT, v);
    }
    pub fn set_seq_number(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::SEQ_NUM, v);
    }
    pub fn set_ack_number(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::ACK_NUM, v);
    }
    /// Sets the header length in bytes (a multiple of 4, up to 60) and the flags.
    pub fn set_header_len_flags(&mut self, header_len: usize, f: u16) {
        debug_assert!(header_len.is_multiple_of(4) && header_len <= MAX_HEADER_LEN);
        let v = ((header_len / 4) as u16 & 0xf) << 12 | (f & flags::MASK);
        set_u16(self.buffer.as_mut(), field::FLAGS, v);
    }
    /// Sets the nine flag bits, keeping the data offset and the reserved bits.
    pub fn set_flags(&mut self, f: u16) {
        let v = get_u16(self.buffer.as_ref(), field::FLAGS) & !flags::MASK | (f & flags::MASK);
        set_u16(self.buffer.as_mut(), field::FLAGS, v);
    }
    pub fn set_window_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::WIN_SIZE, v);
    }
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
    pub fn set_urgent_at(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::URGENT, v);
    }
    pub fn options_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len();
        &mut self.buffer.as_mut()[HEADER_LEN..hl]
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len();
        &mut self.buffer.as_mut()[hl..]
    }
    /// Computes and stores the checksum over the pseudo-header and the whole buffer.
    pub fn fill_checksum(&mut self, src: IpAddr, dst: IpAddr) {
        self.set_checksum(0);
        let c = ip::l4_checksum(src, dst, protocol::TCP, self.buffer.as_ref());
        self.set_checksum(c);
    }
}

/// The options this project writes and reads; anything else is `Unknown`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOption {
    EndOfList,
    NoOp,
    MaxSegmentSize(u16),
    WindowScale(u8),
    SackPermitted,
    /// TSval, TSecr.
    Timestamps(u32, u32),
    Unknown { kind: u8, data: Vec<u8> },
}

impl TcpOption {
    /// Bytes the option takes.
    pub fn buffer_len(&self) -> usize {
        match self {
            TcpOption::EndOfList | TcpOption::NoOp => 1,
            TcpOption::MaxSegmentSize(_) => 4,
            TcpOption::WindowScale(_) => 3,
            TcpOption::SackPermitted => 2,
            TcpOption::Timestamps(..) => 10,
            TcpOption::Unknown { data, .. } => 2 + data.len(),
        }
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        match self {
            TcpOption::EndOfList => out.push(0),
            TcpOption::NoOp => out.push(1),
            TcpOption::MaxSegmentSize(m) => out.extend_from_slice(&[2, 4, (m >> 8) as u8, *m as u8]),
            TcpOption::WindowScale(s) => out.extend_from_slice(&[3, 3, *s]),
            TcpOption::SackPermitted => out.extend_from_slice(&[4, 2]),
            TcpOption::Timestamps(v, e) => {
                out.extend_from_slice(&[8, 10]);
                out.extend_from_slice(&v.to_be_bytes());
                out.extend_from_slice(&e.to_be_bytes());
            }
            TcpOption::Unknown { kind, data } => {
                out.extend_from_slice(&[*kind, (2 + data.len()) as u8]);
                out.extend_from_slice(data);
            }
        }
    }
    /// The option bytes of a list of options (not padded).
    pub fn emit_all(opts: &[TcpOption]) -> Vec<u8> {
        let mut v = Vec::new();
        for o in opts {
            o.emit(&mut v);
        }
        v
    }
    /// Parses option bytes up to End of Option List (which ends the list and is
    /// returned) or the end of the bytes; a length byte below 2 or past the end is
    /// `Malformed`.
    pub fn parse_all(mut b: &[u8]) -> Result<Vec<TcpOption>> {
        let mut v = Vec::new();
        while let Some(&kind) = b.first() {
            match kind {
                0 => {
                    v.push(TcpOption::EndOfList);
                    break;
                }
                1 => {
                    v.push(TcpOption::NoOp);
                    b = &b[1..];
                    continue;
                }
                _ => {}
            }
            let len = usize::from(*b.get(1).ok_or(Error::Malformed)?);
            if len < 2 || len > b.len() {
                return Err(Error::Malformed);
            }
            let d = &b[2..len];
            v.push(match (kind, len) {
                (2, 4) => TcpOption::MaxSegmentSize(u16::from_be_bytes([d[0], d[1]])),
                (3, 3) => TcpOption::WindowScale(d[0]),
                (4, 2) => TcpOption::SackPermitted,
                (8, 10) => TcpOption::Timestamps(u32::from_be_bytes(d[0..4].try_into().unwrap()), u32::from_be_bytes(d[4..8].try_into().unwrap())),
                _ => TcpOption::Unknown { kind, data: d.to_vec() },
            });
            b = &b[len..];
        }
        Ok(v)
    }
}

/// The header as plain data; `options` are raw bytes ([`TcpOption::emit_all`]) that
/// `emit` pads with End-of-Option-List (zero) bytes to a multiple of 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq_number: u32,
    pub ack_number: u32,
    /// [`flags`] bits.
    pub flags: u16,
    pub window_len: u16,
    pub urgent_at: u16,
    pub options: Vec<u8>,
}

impl TcpRepr {
    pub fn parse<T: AsRef<[u8]>>(p: &TcpPacket<T>) -> Result<TcpRepr> {
        p.check_len()?;
        Ok(TcpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            seq_number: p.seq_number(),
            ack_number: p.ack_number(),
            flags: p.flags(),
            window_len: p.window_len(),
            urgent_at: p.urgent_at(),
            options: p.options().to_vec(),
        })
    }
    /// Header length, options padded to a multiple of 4.
    pub fn header_len(&self) -> usize {
        assert!(self.options.len() <= MAX_OPTIONS_LEN, "{} option bytes", self.options.len());
        HEADER_LEN + self.options.len().div_ceil(4) * 4
    }
    pub fn buffer_len(&self, payload_len: usize) -> usize {
        self.header_len() + payload_len
    }
    /// Writes header and payload and fills the checksum. The packet's buffer must be
    /// exactly `buffer_len(payload.len())` bytes (the checksum covers all of it).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut TcpPacket<T>, src: IpAddr, dst: IpAddr, payload: &[u8]) {
        let hl = self.header_len();
        assert_eq!(p.buffer.as_ref().len(), hl + payload.len(), "TCP buffer length");
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_seq_number(self.seq_number);
        p.set_ack_number(self.ack_number);
        p.set_header_len_flags(hl, self.flags);
        p.set_window_len(self.window_len);
        p.set_urgent_at(self.urgent_at);
        let o = p.options_mut();
        o.fill(0);
        o[..self.options.len()].copy_from_slice(&self.options);
        p.payload_mut().copy_from_slice(payload);
        p.fill_checksum(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    // SYN|ECE|CWR 10.0.0.1:49152 -> 10.0.0.2:80, seq 0x01020304, MSS 1460, window 64240;
    // checksum 0xc41c computed independently (Python over pseudo-header and bytes).
    static SEGMENT: [u8; 24] = [
        0xc0, 0x00, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x60, 0xc2, 0xfa, 0xf0, 0xc4, 0x1c, 0x00, 0x00, 0x02, 0x04,
        0x05, 0xb4,
    ];

    fn addrs() -> (IpAddr, IpAddr) {
        (Ipv4Addr::new(10, 0, 0, 1).into(), Ipv4Addr::new(10, 0, 0, 2).into())
    }

    fn repr() -> TcpRepr {
        TcpRepr {
            src_port: 49152,
            dst_port: 80,
            seq_number: 0x0102_0304,
            ack_number: 0,
            flags: flags::SYN | flags::ECE | flags::CWR,
            window_len: 64240,
            urgent_at: 0,
            options: TcpOption::emit_all(&[TcpOption::MaxSegmentSize(1460)]),
        }
    }

    #[test]
    fn parse() {
        let (s, d) = addrs();
        let p = TcpPacket::new_checked(&SEGMENT[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port(), p.header_len()), (49152, 80, 24));
        assert!(p.syn() && !p.ack() && !p.fin());
        assert!(p.verify_checksum(s, d));
        assert!(!p.verify_checksum(d, Ipv4Addr::new(10, 0, 0, 3).into()));
        assert_eq!(TcpRepr::parse(&p).unwrap(), repr());
        assert_eq!(TcpOption::parse_all(p.options()).unwrap(), vec![TcpOption::MaxSegmentSize(1460)]);
        assert!(p.payload().is_empty());
    }

    #[test]
    fn emit() {
        let (s, d) = addrs();
        let mut b = [0u8; 24];
        repr().emit(&mut TcpPacket::new_unchecked(&mut b[..]), s, d, &[]);
        assert_eq!(b, SEGMENT);
    }

    #[test]
    fn payload_and_ipv6_checksum() {
        let (s, d): (IpAddr, IpAddr) = ("2001:db8::1".parse().unwrap(), "2001:db8::2".parse().unwrap());
        let r = TcpRepr { flags: flags::ACK | flags::PSH, options: vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2], ..repr() };
        let payload = b"hello, world!";
        let mut b = vec![0u8; r.buffer_len(payload.len())];
        r.emit(&mut TcpPacket::new_unchecked(&mut b[..]), s, d, payload);
        let p = TcpPacket::new_checked(&b[..]).unwrap();
        assert_eq!(p.header_len(), 32);
        assert_eq!(p.payload(), payload);
        assert!(p.verify_checksum(s, d));
        assert_eq!(TcpOption::parse_all(p.options()).unwrap(), vec![TcpOption::NoOp, TcpOption::NoOp, TcpOption::Timestamps(1, 2)]);
        b[40] ^= 1;
        assert!(!TcpPacket::new_checked(&b[..]).unwrap().verify_checksum(s, d));
    }

    #[test]
    fn bad_lengths_and_options() {
        assert_eq!(TcpPacket::new_checked(&SEGMENT[..19]).unwrap_err(), Error::Truncated);
        assert_eq!(TcpPacket::new_checked(&SEGMENT[..23]).unwrap_err(), Error::Truncated);
        let mut b = SEGMENT;
        b[12] = 0x40; // data offset 4
        assert_eq!(TcpPacket::new_checked(&b[..]).unwrap_err(), Error::Malformed);
        assert_eq!(TcpOption::parse_all(&[2, 1]).unwrap_err(), Error::Malformed);
        assert_eq!(TcpOption::parse_all(&[2, 4, 5]).unwrap_err(), Error::Malformed);
        assert_eq!(TcpOption::parse_all(&[3]).unwrap_err(), Error::Malformed);
        assert_eq!(TcpOption::parse_all(&[4, 2, 0, 9, 9]).unwrap(), vec![TcpOption::SackPermitted, TcpOption::EndOfList]);
        let odd = [TcpOption::WindowScale(7), TcpOption::SackPermitted, TcpOption::Unknown { kind: 30, data: vec![1, 2, 3] }];
        assert_eq!(TcpOption::parse_all(&TcpOption::emit_all(&odd)).unwrap(), odd);
        assert_eq!(odd.iter().map(TcpOption::buffer_len).sum::<usize>(), TcpOption::emit_all(&odd).len());
    }
}
