//! Packet views in smoltcp's shape: a zero-copy `Frame<T>` over a byte buffer with field
//! ranges kept in a private `field` module, `new_checked` for untrusted bytes, setters
//! only where the buffer is mutable, and a `Repr` with `parse`/`emit`/`buffer_len`.
//!
//! * [`ethernet`]: Ethernet II header and addresses.
//! * [`vlan`]: IEEE 802.1Q / 802.1ad tags.
//! * [`ip`]: IP protocol numbers, IPv6 extension-header numbers, pseudo-header sums.
//! * [`ipv4`]: IPv4 header with options, fragmentation fields and header checksum.
//! * [`ipv6`]: IPv6 fixed header and the generic extension-header shape.
//! * [`tcp`]: TCP header, options and checksum.
//! * [`udp`]: UDP header and checksum.
//! * [`bth`], [`reth`], [`aeth`]: the InfiniBand transport headers RoCEv2 carries
//!   (base, RDMA extended, ACK extended); the packets they form are in `roce`.
//! * [`virtio_net`]: the virtio-net header a Linux TAP puts before each frame (offload
//!   requests toward user space, checksum verdicts toward the kernel; little-endian).
//!
//! The RX classification model (`rxclass`), its traffic generator (`rxgen`), the TX
//! offload model, the driver-facing tools and the CLI share these views.

pub mod aeth;
pub mod bth;
pub mod ethernet;
pub mod ip;
pub mod ipv4;
pub mod ipv6;
pub mod reth;
pub mod tcp;
pub mod udp;
pub mod vlan;
pub mod virtio_net;

pub use aeth::{AethHeader, AethRepr, NakCode, Syndrome};
pub use bth::{BthHeader, BthRepr};
pub use ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6ExtHeader, Ipv6ExtHeaderRepr, Ipv6Packet, Ipv6Repr};
pub use reth::{RethHeader, RethRepr};
pub use tcp::{TcpOption, TcpPacket, TcpRepr};
pub use udp::{UdpPacket, UdpRepr};
pub use virtio_net::{VirtioNetHeader, VirtioNetRepr};
pub use vlan::{VlanRepr, VlanTag};

/// Why bytes could not be viewed as a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Shorter than the header (or than the length the header declares).
    Truncated,
    /// A field contradicts the header's structure (version, a length below the minimum).
    Malformed,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Truncated => f.write_str("buffer shorter than the header"),
            Error::Malformed => f.write_str("malformed header"),
        }
    }
}
impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

pub(crate) type Field = core::ops::Range<usize>;
pub(crate) type Rest = core::ops::RangeFrom<usize>;

pub(crate) fn get_u16(b: &[u8], f: Field) -> u16 {
    let b = &b[f];
    u16::from_be_bytes([b[0], b[1]])
}

pub(crate) fn get_u32(b: &[u8], f: Field) -> u32 {
    let b = &b[f];
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

pub(crate) fn set_u16(b: &mut [u8], f: Field, v: u16) {
    b[f].copy_from_slice(&v.to_be_bytes());
}

pub(crate) fn set_u32(b: &mut [u8], f: Field, v: u32) {
    b[f].copy_from_slice(&v.to_be_bytes());
}
