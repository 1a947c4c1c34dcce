//! Golden model of the receive-side classification (docs/rx-classification.md): the
//! destination MAC filter, the parser (Ethernet, up to two VLAN tags, IPv4/IPv6,
//! TCP/UDP), the checksum verdicts and RSS (Toeplitz hash, indirection table, MAC-based
//! steering). One call, [`classify`], turns a frame (as the MAC delivers it: no FCS, any
//! length, any content) and the register state ([`RxClassConfig`]) into the tags the RTL
//! classifier puts on the frame ([`RxMeta`]). Section numbers below are the spec's.
//!
//! The classifier never drops: `drop` is the filter's verdict, which the dispatcher acts
//! on. Queue, hash and checksum verdicts are computed for every frame, rejected or not.

use crate::checksum;
use crate::crc::crc32;
use crate::toeplitz;
use crate::wire::ip::{self, protocol};
use crate::wire::{ipv4, ipv6, tcp, udp, vlan};
use crate::wire::{EthernetFrame, Ipv4Packet, Ipv6Packet, TcpPacket, UdpPacket, VlanTag};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Filter verdicts (`RxMeta::drop`, section 1).
pub mod drop_reason {
    pub const ACCEPT: u8 = 0;
    pub const UNICAST_MISS: u8 = 1;
    pub const MULTICAST_MISS: u8 = 2;
    pub const BROADCAST_REJECTED: u8 = 3;
}

/// RSS hash type codes (`RxMeta::hash_type`, section 4).
pub mod hash_type {
    pub const NONE: u8 = 0;
    pub const IPV4: u8 = 1;
    pub const TCP_IPV4: u8 = 2;
    pub const UDP_IPV4: u8 = 3;
    pub const IPV6: u8 = 4;
    pub const TCP_IPV6: u8 = 5;
    pub const UDP_IPV6: u8 = 6;
}

/// `RSS_CTRL` bits 5:0: which hash types are enabled (section 4).
pub mod rss_type {
    pub const IPV4: u8 = 1 << 0;
    pub const TCP_IPV4: u8 = 1 << 1;
    pub const UDP_IPV4: u8 = 1 << 2;
    pub const IPV6: u8 = 1 << 3;
    pub const TCP_IPV6: u8 = 1 << 4;
    pub const UDP_IPV6: u8 = 1 << 5;
    pub const ALL: u8 = 0x3f;
}

/// Checksum verdicts (`RxMeta::l3_csum`, `RxMeta::l4_csum`, section 3).
pub mod csum {
    pub const NOT_CHECKED: u8 = 0;
    pub const GOOD: u8 = 1;
    pub const BAD: u8 = 2;
}

/// `RX_FILTER_CTRL` bits (section 1).
pub mod filter_ctrl {
    pub const PROMISC: u32 = 1 << 0;
    pub const ALLMULTI: u32 = 1 << 1;
    pub const BROADCAST: u32 = 1 << 2;
    /// Reset value: receive everything until the driver narrows it.
    pub const RESET: u32 = PROMISC | BROADCAST;
}

/// `MAC_FILTER_HI` fields (section 1).
pub mod mac_filter_hi {
    pub const QUEUE_SHIFT: u32 = 16;
    pub const QUEUE_MASK: u32 = 0xff << QUEUE_SHIFT;
    pub const STEER: u32 = 1 << 30;
    pub const ENABLE: u32 = 1 << 31;
}

/// Packet type bits of the completion (section 2).
pub mod ptype {
    pub const L3_MASK: u16 = 0x3;
    pub const L3_OTHER: u16 = 0;
    pub const L3_IPV4: u16 = 1;
    pub const L3_IPV6: u16 = 2;
    pub const L4_SHIFT: u32 = 2;
    pub const L4_MASK: u16 = 0x3 << L4_SHIFT;
    pub const L4_NONE: u16 = 0 << L4_SHIFT;
    pub const L4_TCP: u16 = 1 << L4_SHIFT;
    pub const L4_UDP: u16 = 2 << L4_SHIFT;
    pub const L4_OTHER: u16 = 3 << L4_SHIFT;
    pub const VLAN_SHIFT: u32 = 4;
    pub const VLAN_MASK: u16 = 0x3 << VLAN_SHIFT;
    pub const FRAGMENT: u16 = 1 << 6;
    pub const IPV6_EXT: u16 = 1 << 7;
    pub const MALFORMED: u16 = 1 << 8;
}

/// Completion flags (bytes 10..12 of the RX descriptor write-back, section 5).
pub mod completion_flags {
    pub const EOP: u16 = 1 << 0;
    pub const L3_CSUM_SHIFT: u32 = 2;
    pub const L4_CSUM_SHIFT: u32 = 4;
    pub const HASH_TYPE_SHIFT: u32 = 6;
    pub const DONE: u16 = 1 << 15;
}

/// Entries of the exact-match table, of the multicast hash table (32-bit registers),
/// of the indirection table, and the key length.
pub const MAC_FILTER_ENTRIES: usize = 16;
pub const MCAST_HASH_WORDS: usize = 128;
pub const RETA_ENTRIES: usize = 128;
pub const RSS_KEY_LEN: usize = 40;
/// VLAN tags the parser walks.
pub const MAX_VLAN_TAGS: usize = 2;

/// One entry of the exact-match table (`MAC_FILTER_LO/HI[i]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MacFilterEntry {
    pub addr: [u8; 6],
    pub enable: bool,
    pub steer: bool,
    pub queue: u8,
}

impl MacFilterEntry {
    /// The entry as its two registers (LO, HI).
    pub fn words(&self) -> (u32, u32) {
        let a = self.addr;
        let lo = u32::from_le_bytes([a[0], a[1], a[2], a[3]]);
        let mut hi = u32::from(a[4]) | u32::from(a[5]) << 8 | u32::from(self.queue) << mac_filter_hi::QUEUE_SHIFT;
        if self.steer {
            hi |= mac_filter_hi::STEER;
        }
        if self.enable {
            hi |= mac_filter_hi::ENABLE;
        }
        (lo, hi)
    }
    /// The entry the two registers describe (inverse of [`MacFilterEntry::words`]).
    pub fn from_words(lo: u32, hi: u32) -> MacFilterEntry {
        let l = lo.to_le_bytes();
        let h = hi.to_le_bytes();
        MacFilterEntry {
            addr: [l[0], l[1], l[2], l[3], h[0], h[1]],
            enable: hi & mac_filter_hi::ENABLE != 0,
            steer: hi & mac_filter_hi::STEER != 0,
            queue: h[2],
        }
    }
    pub fn hits(&self, dst: &[u8; 6]) -> bool {
        self.enable && self.addr == *dst
    }
}

/// The register state the classifier works from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxClassConfig {
    pub promisc: bool,
    pub allmulti: bool,
    pub broadcast: bool,
    pub exact: [MacFilterEntry; MAC_FILTER_ENTRIES],
    pub mcast_hash: [u32; MCAST_HASH_WORDS],
    /// `RSS_CTRL` bits 5:0 ([`rss_type`]).
    pub rss_types: u8,
    pub rss_key: [u8; RSS_KEY_LEN],
    pub reta: [u8; RETA_ENTRIES],
    /// Number of RX queues, a power of two (queue numbers are masked with `queues - 1`).
    pub queues: u32,
    /// The NIC has RSS (`FEATURES.RSS`): without it hash, hash type and packet type are
    /// 0 and only a steering entry moves a frame off queue 0.
    pub rss: bool,
    /// The NIC validates checksums (`FEATURES.RX_CSUM`): without it both verdicts are
    /// "not checked".
    pub csum: bool,
    /// Exact-match entries the NIC has (`MAC_FILTER_COUNT`): entries at and above it
    /// never match, whatever `exact` holds there.
    pub mac_filters: usize,
}

impl RxClassConfig {
    /// The register reset values: `PROMISC | BROADCAST`, empty exact and hash tables,
    /// all six hash types, the default key, `RETA[j] = j`.
    pub fn reset_default(queues: u32) -> Self {
        let mut reta = [0u8; RETA_ENTRIES];
        for (j, e) in reta.iter_mut().enumerate() {
            *e = j as u8;
        }
        RxClassConfig {
            promisc: true,
            allmulti: false,
            broadcast: true,
            exact: [MacFilterEntry::default(); MAC_FILTER_ENTRIES],
            mcast_hash: [0; MCAST_HASH_WORDS],
            rss_types: rss_type::ALL,
            rss_key: toeplitz::DEFAULT_KEY,
            reta,
            queues,
            rss: true,
            csum: true,
            mac_filters: MAC_FILTER_ENTRIES,
        }
    }

    /// The same configuration on a NIC with these `FEATURES` bits.
    pub fn with_features(mut self, features: u32) -> Self {
        self.rss = features & nic_regmap::bits::FEATURES_RSS != 0;
        self.csum = features & nic_regmap::bits::FEATURES_RX_CSUM != 0;
        self
    }

    /// The same configuration on a NIC with `n` exact-match entries.
    pub fn with_mac_filters(mut self, n: usize) -> Self {
        self.mac_filters = n.min(MAC_FILTER_ENTRIES);
        self
    }

    /// `RX_FILTER_CTRL`.
    pub fn filter_ctrl_word(&self) -> u32 {
        let mut w = 0;
        if self.promisc {
            w |= filter_ctrl::PROMISC;
        }
        if self.allmulti {
            w |= filter_ctrl::ALLMULTI;
        }
        if self.broadcast {
            w |= filter_ctrl::BROADCAST;
        }
        w
    }

    /// Sets the three mode bits from an `RX_FILTER_CTRL` value.
    pub fn set_filter_ctrl_word(&mut self, w: u32) {
        self.promisc = w & filter_ctrl::PROMISC != 0;
        self.allmulti = w & filter_ctrl::ALLMULTI != 0;
        self.broadcast = w & filter_ctrl::BROADCAST != 0;
    }

    /// `(MAC_FILTER_LO[i], MAC_FILTER_HI[i])`.
    pub fn mac_filter_words(&self, i: usize) -> (u32, u32) {
        self.exact[i].words()
    }

    /// `RSS_KEY[0..10]`: key byte `4i` in bits 31:24 of word `i`.
    pub fn rss_key_words(&self) -> [u32; 10] {
        let mut w = [0u32; 10];
        for (i, c) in self.rss_key.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        w
    }

    /// `RSS_RETA[0..32]`: entry `4i` in bits 7:0 of word `i`.
    pub fn reta_words(&self) -> [u32; 32] {
        let mut w = [0u32; 32];
        for (i, c) in self.reta.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        w
    }

    /// Sets the multicast hash bit of `addr` (what a driver does for each address of
    /// its multicast list).
    pub fn add_mcast_hash(&mut self, addr: &[u8; 6]) {
        let idx = mcast_hash_index(addr) as usize;
        self.mcast_hash[idx / 32] |= 1 << (idx % 32);
    }

    pub fn mcast_hash_bit(&self, addr: &[u8; 6]) -> bool {
        let idx = mcast_hash_index(addr) as usize;
        self.mcast_hash[idx / 32] >> (idx % 32) & 1 == 1
    }

    /// `queues - 1` (a zero queue count is taken as one queue).
    pub fn queue_mask(&self) -> u32 {
        self.queues.max(1) - 1
    }

    /// The lowest-index enabled exact entry equal to `dst`, among those the NIC has.
    pub fn exact_hit(&self, dst: &[u8; 6]) -> Option<usize> {
        self.exact[..self.mac_filters.min(MAC_FILTER_ENTRIES)].iter().position(|e| e.hits(dst))
    }
}

/// The multicast hash table bit of an address: `crc32(addr) & 0xfff` (section 1).
pub fn mcast_hash_index(addr: &[u8; 6]) -> u16 {
    (crc32(addr) & 0xfff) as u16
}

/// What the classifier tags a frame with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RxMeta {
    /// Filter verdict ([`drop_reason`]); 0 = accepted.
    pub drop: u8,
    /// Destination RX queue (steering entry or RSS), already masked to the queue count.
    pub queue: u32,
    /// RSS hash, 0 for type `NONE`.
    pub hash: u32,
    /// [`hash_type`] code.
    pub hash_type: u8,
    /// [`csum`] verdicts.
    pub l3_csum: u8,
    pub l4_csum: u8,
    /// [`ptype`] bits.
    pub ptype: u16,
}

impl RxMeta {
    /// Bytes 10..12 of the write-back of a single-buffer frame: `DONE | EOP` and the
    /// verdict fields (section 5).
    pub fn completion_flags(&self) -> u16 {
        use completion_flags::*;
        DONE | EOP
            | u16::from(self.l3_csum & 3) << L3_CSUM_SHIFT
            | u16::from(self.l4_csum & 3) << L4_CSUM_SHIFT
            | u16::from(self.hash_type & 0xf) << HASH_TYPE_SHIFT
    }
}

/// Layer 3 the parser found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L3 {
    Other,
    Ipv4,
    Ipv6,
}

/// Layer 4 the parser found (as the ptype code: fragments and malformed IP say `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L4 {
    None,
    Tcp,
    Udp,
    Other,
}

/// The parser's result (section 2): offsets from the start of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parsed {
    /// VLAN tags parsed (0..=2; a third tag is left unparsed and makes L3 "other").
    pub vlan_tags: u8,
    /// EtherType after the tags (None when the frame is too short to hold it).
    pub ethertype: Option<u16>,
    /// Offset of the L3 header: `14 + 4 * vlan_tags`.
    pub l3: usize,
    pub l3_kind: L3,
    /// The IP header is well-formed (false for L3 other).
    pub l3_ok: bool,
    /// IP fragment (IPv4 MF or offset, IPv6 next header 44); only from a well-formed header.
    pub fragment: bool,
    /// IPv6 next header is an extension header; only from a well-formed header.
    pub ipv6_ext: bool,
    /// IPv4 protocol / IPv6 next header (0 when there is no well-formed IP header).
    pub protocol: u8,
    /// Offset of the L4 header and the L4 length (bytes the IP header says follow it).
    pub l4: usize,
    pub l4_len: usize,
    pub l4_kind: L4,
    /// The TCP/UDP header is well-formed (false when `l4_kind` is not TCP/UDP).
    pub l4_ok: bool,
    /// Ptype bit 8: truncated Ethernet/VLAN, malformed IP or malformed TCP/UDP header.
    pub malformed: bool,
}

impl Parsed {
    /// The 16-bit packet type of the completion.
    pub fn ptype(&self) -> u16 {
        let l3 = match self.l3_kind {
            L3::Other => ptype::L3_OTHER,
            L3::Ipv4 => ptype::L3_IPV4,
            L3::Ipv6 => ptype::L3_IPV6,
        };
        let l4 = match self.l4_kind {
            L4::None => ptype::L4_NONE,
            L4::Tcp => ptype::L4_TCP,
            L4::Udp => ptype::L4_UDP,
            L4::Other => ptype::L4_OTHER,
        };
        let mut p = l3 | l4 | u16::from(self.vlan_tags) << ptype::VLAN_SHIFT;
        if self.fragment {
            p |= ptype::FRAGMENT;
        }
        if self.ipv6_ext {
            p |= ptype::IPV6_EXT;
        }
        if self.malformed {
            p |= ptype::MALFORMED;
        }
        p
    }

    fn other(vlan_tags: u8, ethertype: Option<u16>, l3: usize, malformed: bool) -> Parsed {
        Parsed {
            vlan_tags,
            ethertype,
            l3,
            l3_kind: L3::Other,
            l3_ok: false,
            fragment: false,
            ipv6_ext: false,
            protocol: 0,
            l4: 0,
            l4_len: 0,
            l4_kind: L4::None,
            l4_ok: false,
            malformed,
        }
    }
}

/// Bytes of a frame the receive side sees before it must decide the frame's queue
/// (docs/rx-classification.md section 2, "cut-through"): every header it parses ends
/// within them (2 VLAN tags + 60-byte IPv4 header + 20-byte TCP header = 102 bytes).
pub const HEADER_WINDOW: usize = 104;

/// The parser of section 2. Never panics, whatever the bytes.
pub fn parse(frame: &[u8]) -> Parsed {
    let len = frame.len();
    if len < EthernetFrame::<&[u8]>::header_len() {
        return Parsed::other(0, None, EthernetFrame::<&[u8]>::header_len(), true);
    }
    let eth = EthernetFrame::new_unchecked(frame);
    let mut ethertype = u16::from(eth.ethertype());
    let mut tags = 0u8;
    let mut l3 = EthernetFrame::<&[u8]>::header_len();
    while vlan::is_tpid(ethertype) && usize::from(tags) < MAX_VLAN_TAGS {
        tags += 1;
        l3 += vlan::HEADER_LEN;
        if len < l3 {
            return Parsed::other(tags, None, l3, true);
        }
        ethertype = VlanTag::new_unchecked(&frame[l3 - vlan::HEADER_LEN..l3]).ethertype().into();
    }
    let mut p = Parsed::other(tags, Some(ethertype), l3, false);
    match ethertype {
        ipv4::ETHERTYPE => parse_ipv4(frame, &mut p),
        ipv6::ETHERTYPE => parse_ipv6(frame, &mut p),
        _ => {}
    }
    p
}

fn parse_ipv4(frame: &[u8], p: &mut Parsed) {
    p.l3_kind = L3::Ipv4;
    let Some(bytes) = frame.get(p.l3..).filter(|b| b.len() >= ipv4::HEADER_LEN) else {
        p.malformed = true;
        return;
    };
    let ip = Ipv4Packet::new_unchecked(bytes);
    let hl = ip.header_len();
    let total = usize::from(ip.total_len());
    if ip.version() != 4 || hl < ipv4::HEADER_LEN || hl > total || total > bytes.len() {
        p.malformed = true;
        return;
    }
    p.l3_ok = true;
    p.fragment = ip.is_fragment();
    p.protocol = ip.protocol();
    p.l4 = p.l3 + hl;
    p.l4_len = total - hl;
    parse_l4(frame, p);
}

fn parse_ipv6(frame: &[u8], p: &mut Parsed) {
    p.l3_kind = L3::Ipv6;
    let Some(bytes) = frame.get(p.l3..).filter(|b| b.len() >= ipv6::HEADER_LEN) else {
        p.malformed = true;
        return;
    };
    let ip = Ipv6Packet::new_unchecked(bytes);
    let plen = usize::from(ip.payload_len());
    if ip.version() != 6 || plen < 1 || ipv6::HEADER_LEN + plen > bytes.len() {
        p.malformed = true;
        return;
    }
    p.l3_ok = true;
    p.protocol = ip.next_header();
    p.ipv6_ext = ip::is_ipv6_extension_header(p.protocol);
    p.fragment = p.protocol == protocol::IPV6_FRAG;
    p.l4 = p.l3 + ipv6::HEADER_LEN;
    p.l4_len = plen;
    parse_l4(frame, p);
}

/// L4 over a well-formed IP header.
fn parse_l4(frame: &[u8], p: &mut Parsed) {
    if p.fragment {
        p.l4_kind = L4::None;
        return;
    }
    // l4 + l4_len <= frame.len() holds for a well-formed IP header
    let seg = &frame[p.l4..p.l4 + p.l4_len];
    match p.protocol {
        protocol::TCP => {
            p.l4_kind = L4::Tcp;
            p.l4_ok = seg.len() >= tcp::HEADER_LEN && {
                let hl = TcpPacket::new_unchecked(seg).header_len();
                hl >= tcp::HEADER_LEN && hl <= seg.len()
            };
        }
        protocol::UDP => {
            p.l4_kind = L4::Udp;
            p.l4_ok = seg.len() >= udp::HEADER_LEN && usize::from(UdpPacket::new_unchecked(seg).len()) == seg.len();
        }
        _ => p.l4_kind = L4::Other,
    }
    if matches!(p.l4_kind, L4::Tcp | L4::Udp) && !p.l4_ok {
        p.malformed = true;
    }
}

/// The IPv4 or IPv6 addresses of a frame with a well-formed IP header.
enum Addrs {
    V4(Ipv4Addr, Ipv4Addr),
    V6(Ipv6Addr, Ipv6Addr),
}

fn addrs(frame: &[u8], p: &Parsed) -> Option<Addrs> {
    if !p.l3_ok {
        return None;
    }
    let ip = &frame[p.l3..];
    match p.l3_kind {
        L3::Ipv4 => {
            let h = Ipv4Packet::new_unchecked(ip);
            Some(Addrs::V4(h.src_addr(), h.dst_addr()))
        }
        L3::Ipv6 => {
            let h = Ipv6Packet::new_unchecked(ip);
            Some(Addrs::V6(h.src_addr(), h.dst_addr()))
        }
        L3::Other => None,
    }
}

/// Checksum verdicts (section 3).
pub fn checksum_verdicts(frame: &[u8], p: &Parsed) -> (u8, u8) {
    let Some(a) = addrs(frame, p) else {
        return (csum::NOT_CHECKED, csum::NOT_CHECKED);
    };
    let l3 = match a {
        Addrs::V4(..) => {
            let hdr = &frame[p.l3..p.l4];
            if checksum::verifies(checksum::data(hdr)) {
                csum::GOOD
            } else {
                csum::BAD
            }
        }
        Addrs::V6(..) => csum::NOT_CHECKED,
    };
    if !p.l4_ok {
        return (l3, csum::NOT_CHECKED);
    }
    let seg = &frame[p.l4..p.l4 + p.l4_len];
    if p.l4_kind == L4::Udp && UdpPacket::new_unchecked(seg).checksum() == 0 {
        return match a {
            Addrs::V4(..) => (l3, csum::NOT_CHECKED),
            Addrs::V6(..) => (l3, csum::BAD),
        };
    }
    let pseudo = match a {
        Addrs::V4(s, d) => checksum::pseudo_header_v4(s, d, p.protocol, p.l4_len as u16),
        Addrs::V6(s, d) => checksum::pseudo_header_v6(s, d, p.protocol, p.l4_len as u32),
    };
    let l4 = if checksum::verifies(checksum::combine(&[pseudo, checksum::data(seg)])) { csum::GOOD } else { csum::BAD };
    (l3, l4)
}

/// The RSS hash type and the Toeplitz input of a frame (section 4); `(NONE, [])` when
/// no enabled type applies.
pub fn rss_input(cfg: &RxClassConfig, frame: &[u8], p: &Parsed) -> (u8, Vec<u8>) {
    let en = |bit: u8| cfg.rss_types & bit != 0;
    // only called for a well-formed TCP/UDP header
    let ports = || {
        let seg = &frame[p.l4..p.l4 + p.l4_len];
        if p.l4_kind == L4::Tcp {
            let t = TcpPacket::new_unchecked(seg);
            (t.src_port(), t.dst_port())
        } else {
            let u = UdpPacket::new_unchecked(seg);
            (u.src_port(), u.dst_port())
        }
    };
    match addrs(frame, p) {
        Some(Addrs::V4(s, d)) => {
            let l4 = if p.l4_ok { p.l4_kind } else { L4::None };
            if l4 == L4::Tcp && en(rss_type::TCP_IPV4) {
                (hash_type::TCP_IPV4, toeplitz::ipv4_input(s, d, Some(ports())))
            } else if l4 == L4::Udp && en(rss_type::UDP_IPV4) {
                (hash_type::UDP_IPV4, toeplitz::ipv4_input(s, d, Some(ports())))
            } else if en(rss_type::IPV4) {
                (hash_type::IPV4, toeplitz::ipv4_input(s, d, None))
            } else {
                (hash_type::NONE, Vec::new())
            }
        }
        Some(Addrs::V6(s, d)) => {
            let l4 = if p.l4_ok { p.l4_kind } else { L4::None };
            if l4 == L4::Tcp && en(rss_type::TCP_IPV6) {
                (hash_type::TCP_IPV6, toeplitz::ipv6_input(s, d, Some(ports())))
            } else if l4 == L4::Udp && en(rss_type::UDP_IPV6) {
                (hash_type::UDP_IPV6, toeplitz::ipv6_input(s, d, Some(ports())))
            } else if en(rss_type::IPV6) {
                (hash_type::IPV6, toeplitz::ipv6_input(s, d, None))
            } else {
                (hash_type::NONE, Vec::new())
            }
        }
        None => (hash_type::NONE, Vec::new()),
    }
}

/// The MAC filter's verdict for a destination address (section 1).
pub fn filter(cfg: &RxClassConfig, dst: &[u8; 6]) -> u8 {
    if cfg.promisc {
        drop_reason::ACCEPT
    } else if *dst == [0xff; 6] {
        if cfg.broadcast {
            drop_reason::ACCEPT
        } else {
            drop_reason::BROADCAST_REJECTED
        }
    } else if dst[0] & 1 != 0 {
        if cfg.allmulti || cfg.exact_hit(dst).is_some() || cfg.mcast_hash_bit(dst) {
            drop_reason::ACCEPT
        } else {
            drop_reason::MULTICAST_MISS
        }
    } else if cfg.exact_hit(dst).is_some() {
        drop_reason::ACCEPT
    } else {
        drop_reason::UNICAST_MISS
    }
}

/// Classifies one frame: filter verdict, queue, RSS hash and type, checksum verdicts
/// and packet type. Works on any bytes. A frame shorter than 6 bytes has no destination:
/// it is a runt whose verdict is the MAC's, so the filter passes it (`drop` 0) and the
/// parser marks it truncated.
pub fn classify(cfg: &RxClassConfig, frame: &[u8]) -> RxMeta {
    let p = parse(frame);
    let (l3_csum, l4_csum) = if cfg.csum { checksum_verdicts(frame, &p) } else { (csum::NOT_CHECKED, csum::NOT_CHECKED) };
    // Cut-through: the per-frame decisions (packet type, hash, queue) are made on the
    // first HEADER_WINDOW bytes, before the frame's end is known; a longer frame is
    // taken to hold its whole IP packet. Only the checksum verdicts, given at the end,
    // see a frame that turns out shorter than its IP length.
    let extended;
    let (frame, p) = if frame.len() > HEADER_WINDOW && p.malformed {
        extended = [frame, &[0u8; 65_536][..]].concat();
        let q = parse(&extended);
        (&extended[..], q)
    } else {
        (frame, p)
    };
    let (hash_type, input) = if cfg.rss { rss_input(cfg, frame, &p) } else { (hash_type::NONE, Vec::new()) };
    let hash = if hash_type == hash_type::NONE { 0 } else { toeplitz::hash(&cfg.rss_key, &input) };
    let rss_queue = if hash_type == hash_type::NONE { 0 } else { u32::from(cfg.reta[hash as usize % RETA_ENTRIES]) };
    let (drop, steer) = match frame.get(..6) {
        Some(d) => {
            let dst: [u8; 6] = d.try_into().unwrap();
            let steer = cfg.exact_hit(&dst).map(|i| cfg.exact[i]).filter(|e| e.steer).map(|e| u32::from(e.queue));
            (filter(cfg, &dst), steer)
        }
        None => (drop_reason::ACCEPT, None),
    };
    let queue = steer.unwrap_or(rss_queue) & cfg.queue_mask();
    RxMeta { drop, queue, hash, hash_type, l3_csum, l4_csum, ptype: if cfg.rss { p.ptype() } else { 0 } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rxgen::{Fault, L3Spec, L4Spec, RxFrameSpec};
    use crate::wire::{Ipv4Repr, UdpRepr};

    #[test]
    fn parsed_offsets() {
        let mut s = RxFrameSpec {
            dst: [2, 0, 0, 0, 0, 1],
            src: [2, 0, 0, 0, 0, 2],
            vlans: vec![(vlan::TPID_STAG, 10), (vlan::TPID_CTAG, 20)],
            l3: L3Spec::Ipv4 {
                ip: Ipv4Repr { options: vec![1; 8], ..Ipv4Repr::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), protocol::UDP, 0) },
                l4: L4Spec::Udp { repr: UdpRepr { src_port: 1, dst_port: 2 }, payload: vec![7; 3] },
            },
            trailer: vec![],
            dirty_padding: true,
            min_len: 60,
            fault: Fault::None,
        };
        let f = s.build();
        let p = parse(&f);
        assert_eq!((p.vlan_tags, p.ethertype, p.l3, p.l4, p.l4_len), (2, Some(ipv4::ETHERTYPE), 22, 22 + 28, 11));
        assert_eq!((p.l3_kind, p.l3_ok, p.l4_kind, p.l4_ok, p.fragment, p.malformed), (L3::Ipv4, true, L4::Udp, true, false, false));
        assert_eq!(p.ptype(), ptype::L3_IPV4 | ptype::L4_UDP | 2 << ptype::VLAN_SHIFT);
        assert_eq!(checksum_verdicts(&f, &p), (csum::GOOD, csum::GOOD));
        s.fault = Fault::UdpZeroChecksum;
        let f = s.build();
        assert_eq!(checksum_verdicts(&f, &parse(&f)), (csum::GOOD, csum::NOT_CHECKED));
    }
}
