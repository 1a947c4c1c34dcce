//! The virtio-net header (`struct virtio_net_hdr`, virtio 1.2 section 5.1.6; Linux
//! `include/uapi/linux/virtio_net.h`): what a Linux TAP opened with `IFF_VNET_HDR` puts
//! in front of every frame, both ways. Toward user space it carries the stack's offload
//! request (`NEEDS_CSUM` with `csum_start`/`csum_offset`: Linux `CHECKSUM_PARTIAL`; a
//! `gso_type` with `gso_size`: a TSO super-frame); toward the kernel it can say the
//! checksum was verified (`DATA_VALID`: `CHECKSUM_UNNECESSARY`).
//!
//! Unlike the network headers in this module its fields are little-endian (the TAP's
//! default on little-endian hosts, and what `TUNSETVNETLE` asks for elsewhere). This is
//! the 10-byte header without `num_buffers` (no `VIRTIO_NET_F_MRG_RXBUF`).

use super::{Error, Field, Result};

mod field {
    use super::Field;
    pub const FLAGS: usize = 0;
    pub const GSO_TYPE: usize = 1;
    pub const HDR_LEN: Field = 2..4;
    pub const GSO_SIZE: Field = 4..6;
    pub const CSUM_START: Field = 6..8;
    pub const CSUM_OFFSET: Field = 8..10;
}

pub const HEADER_LEN: usize = field::CSUM_OFFSET.end;

/// `flags`: the checksum from `csum_start` to the end, stored at `csum_start +
/// csum_offset`, is still to be computed (the field holds the pseudo-header sum).
pub const F_NEEDS_CSUM: u8 = 1;
/// `flags`: the checksum has been verified (receive side).
pub const F_DATA_VALID: u8 = 2;

/// `gso_type` values (without the ECN bit).
pub mod gso {
    pub const NONE: u8 = 0;
    pub const TCPV4: u8 = 1;
    pub const UDP: u8 = 3;
    pub const TCPV6: u8 = 4;
    pub const UDP_L4: u8 = 5;
    /// Ored into `gso_type`: the super-frame has CWR set, which only its first segment
    /// may keep (Linux `SKB_GSO_TCP_ECN`).
    pub const ECN: u8 = 0x80;
}

fn get_le16(b: &[u8], f: Field) -> u16 {
    u16::from_le_bytes([b[f.start], b[f.start + 1]])
}

fn set_le16(b: &mut [u8], f: Field, v: u16) {
    b[f].copy_from_slice(&v.to_le_bytes());
}

/// A view of a virtio-net header at the start of a buffer (the frame follows it).
#[derive(Debug, Clone)]
pub struct VirtioNetHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VirtioNetHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        VirtioNetHeader { buffer }
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
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }
    pub fn gso_type(&self) -> u8 {
        self.buffer.as_ref()[field::GSO_TYPE]
    }
    pub fn hdr_len(&self) -> u16 {
        get_le16(self.buffer.as_ref(), field::HDR_LEN)
    }
    pub fn gso_size(&self) -> u16 {
        get_le16(self.buffer.as_ref(), field::GSO_SIZE)
    }
    pub fn csum_start(&self) -> u16 {
        get_le16(self.buffer.as_ref(), field::CSUM_START)
    }
    pub fn csum_offset(&self) -> u16 {
        get_le16(self.buffer.as_ref(), field::CSUM_OFFSET)
    }
    /// The frame behind the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VirtioNetHeader<T> {
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v;
    }
    pub fn set_gso_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::GSO_TYPE] = v;
    }
    pub fn set_hdr_len(&mut self, v: u16) {
        set_le16(self.buffer.as_mut(), field::HDR_LEN, v);
    }
    pub fn set_gso_size(&mut self, v: u16) {
        set_le16(self.buffer.as_mut(), field::GSO_SIZE, v);
    }
    pub fn set_csum_start(&mut self, v: u16) {
        set_le16(self.buffer.as_mut(), field::CSUM_START, v);
    }
    pub fn set_csum_offset(&mut self, v: u16) {
        set_le16(self.buffer.as_mut(), field::CSUM_OFFSET, v);
    }
}

/// What a header asks for, checked: one of the shapes a stack hands a NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VirtioNetRepr {
    /// Nothing to do (or, toward the kernel, nothing verified).
    Plain,
    /// Toward the kernel: the checksum was verified.
    DataValid,
    /// `CHECKSUM_PARTIAL`: sum from `csum_start` to the end, store at `csum_start +
    /// csum_offset`.
    Csum { csum_start: u16, csum_offset: u16 },
    /// A TCP super-frame to cut into segments of `gso_size` payload bytes (its checksum
    /// request, which Linux always sets with it, is implied). `hdr_len` is the sender's
    /// hint of the header length; `ecn`: the CWR flag must stay on the first segment only.
    Tso { ipv6: bool, ecn: bool, gso_size: u16, hdr_len: u16, csum_start: u16, csum_offset: u16 },
}

impl VirtioNetRepr {
    /// Parses a header; a shape no NIC could serve (UDP fragmentation offload, an
    /// unknown `gso_type`, segmentation without its checksum request or of 0 bytes,
    /// `DATA_VALID` with a request) is `Malformed`.
    pub fn parse<T: AsRef<[u8]>>(h: &VirtioNetHeader<T>) -> Result<VirtioNetRepr> {
        h.check_len()?;
        let flags = h.flags();
        let needs_csum = flags & F_NEEDS_CSUM != 0;
        let valid = flags & F_DATA_VALID != 0;
        let gso_type = h.gso_type() & !gso::ECN;
        let ecn = h.gso_type() & gso::ECN != 0;
        let (csum_start, csum_offset) = (h.csum_start(), h.csum_offset());
        match gso_type {
            gso::NONE if ecn => Err(Error::Malformed),
            gso::NONE => match (needs_csum, valid) {
                (false, false) => Ok(VirtioNetRepr::Plain),
                (false, true) => Ok(VirtioNetRepr::DataValid),
                (true, false) => Ok(VirtioNetRepr::Csum { csum_start, csum_offset }),
                (true, true) => Err(Error::Malformed),
            },
            gso::TCPV4 | gso::TCPV6 if needs_csum && !valid && h.gso_size() > 0 => Ok(VirtioNetRepr::Tso {
                ipv6: gso_type == gso::TCPV6,
                ecn,
                gso_size: h.gso_size(),
                hdr_len: h.hdr_len(),
                csum_start,
                csum_offset,
            }),
            _ => Err(Error::Malformed),
        }
    }

    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut VirtioNetHeader<T>) {
        let (flags, gso_type, gso_size, hdr_len, start, offset) = match *self {
            VirtioNetRepr::Plain => (0, gso::NONE, 0, 0, 0, 0),
            VirtioNetRepr::DataValid => (F_DATA_VALID, gso::NONE, 0, 0, 0, 0),
            VirtioNetRepr::Csum { csum_start, csum_offset } => (F_NEEDS_CSUM, gso::NONE, 0, 0, csum_start, csum_offset),
            VirtioNetRepr::Tso { ipv6, ecn, gso_size, hdr_len, csum_start, csum_offset } => {
                let t = if ipv6 { gso::TCPV6 } else { gso::TCPV4 } | if ecn { gso::ECN } else { 0 };
                (F_NEEDS_CSUM, t, gso_size, hdr_len, csum_start, csum_offset)
            }
        };
        h.set_flags(flags);
        h.set_gso_type(gso_type);
        h.set_hdr_len(hdr_len);
        h.set_gso_size(gso_size);
        h.set_csum_start(start);
        h.set_csum_offset(offset);
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        self.emit(&mut VirtioNetHeader::new_unchecked(&mut b[..]));
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header as Linux's `virtio_net_hdr_from_skb` writes it for a TCP/IPv4 super-frame
    /// (14-byte Ethernet, 20-byte IPv4, 32-byte TCP; MSS 1448), byte by byte from the
    /// struct layout in the virtio specification.
    const TSO4: [u8; 10] = [0x01, 0x01, 66, 0, 0xa8, 0x05, 34, 0, 16, 0];

    #[test]
    fn parses_a_tcpv4_super_frame_header() {
        let r = VirtioNetRepr::parse(&VirtioNetHeader::new_checked(&TSO4[..]).unwrap()).unwrap();
        assert_eq!(r, VirtioNetRepr::Tso { ipv6: false, ecn: false, gso_size: 1448, hdr_len: 66, csum_start: 34, csum_offset: 16 });
        assert_eq!(r.to_bytes(), TSO4);
    }

    #[test]
    fn round_trips_every_shape() {
        for r in [
            VirtioNetRepr::Plain,
            VirtioNetRepr::DataValid,
            VirtioNetRepr::Csum { csum_start: 54, csum_offset: 6 },
            VirtioNetRepr::Tso { ipv6: true, ecn: true, gso_size: 1428, hdr_len: 86, csum_start: 54, csum_offset: 16 },
        ] {
            let b = r.to_bytes();
            assert_eq!(VirtioNetRepr::parse(&VirtioNetHeader::new_unchecked(&b[..])), Ok(r));
        }
    }

    #[test]
    fn refuses_what_no_nic_serves() {
        let parse = |b: [u8; 10]| VirtioNetRepr::parse(&VirtioNetHeader::new_unchecked(&b[..]));
        // UDP fragmentation offload, UDP segmentation, an unknown type
        for t in [gso::UDP, gso::UDP_L4, 7] {
            assert_eq!(parse([1, t, 42, 0, 200, 0, 34, 0, 6, 0]), Err(Error::Malformed));
        }
        // TSO without its checksum request, TSO of 0 bytes, ECN without TSO
        assert_eq!(parse([0, gso::TCPV4, 66, 0, 0xa8, 0x05, 34, 0, 16, 0]), Err(Error::Malformed));
        assert_eq!(parse([1, gso::TCPV4, 66, 0, 0, 0, 34, 0, 16, 0]), Err(Error::Malformed));
        assert_eq!(parse([0, gso::ECN, 0, 0, 0, 0, 0, 0, 0, 0]), Err(Error::Malformed));
        // a request and a verdict at once
        assert_eq!(parse([3, 0, 0, 0, 0, 0, 34, 0, 16, 0]), Err(Error::Malformed));
        assert_eq!(VirtioNetHeader::new_checked(&[0u8; 9][..]).err(), Some(Error::Truncated));
    }
}
