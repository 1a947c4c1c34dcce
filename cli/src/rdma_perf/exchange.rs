//! perftest's out-of-band connection exchange over TCP (its `perftest_communication.c`
//! protocol, socket method, RoCE), so `nic rdma-perf` meets `ib_write_bw`,
//! `ib_read_bw` and `ib_send_bw` as well as itself.
//!
//! Every step is a fixed-size blob each way, the client's first: the version string (16
//! bytes, NUL-padded), the page size ("cycle buffer") and the cache-line size (4 bytes
//! each, big-endian; both sides take the larger), the path MTU (the ibv_mtu digit and a
//! NUL; both take the smaller), then hand-shakes of one QP message each (108 bytes on
//! RoCE: [`QpInfo`]). After the run the WRITE and READ tests exchange the client's
//! figures (five 8-byte big-endian values) between two more hand-shakes; SEND has one.
//!
//! This side announces version 6.27: perftest from 6.28 on exchanges a raw parameter
//! structure whose size depends on how the peer was built, and skips that step with a
//! peer older than 6.28.

use super::host::SimHost;
use super::link::Link;
use super::Op;
use anyhow::{bail, Result};
use std::net::Ipv4Addr;

/// The version this side announces (see the module's comment).
pub const VERSION: &str = "6.27";
/// The oldest peer perftest talks to (its `check_version_compatibility`).
const OLDEST: f64 = 5.70;
/// Bytes of one QP message with a GID, its NUL included.
pub const KEY_MSG_LEN: usize = 108;
/// This host's page size and cache line, as perftest reads them from sysconf.
const PAGE: u32 = 4096;
const CACHE_LINE: u32 = 64;

/// perftest's `pingpong_dest` as it crosses the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpInfo {
    pub lid: u16,
    pub out_reads: u16,
    pub qpn: u32,
    pub psn: u32,
    pub rkey: u32,
    pub vaddr: u64,
    pub gid: [u8; 16],
}

/// The IPv4-mapped GID of `ip` (::ffff:a.b.c.d), as RoCEv2 over IPv4 uses.
pub fn gid_of(ip: Ipv4Addr) -> [u8; 16] {
    ip.to_ipv6_mapped().octets()
}

/// The IPv4 address inside an IPv4-mapped GID.
pub fn gid_ipv4(gid: &[u8; 16]) -> Option<Ipv4Addr> {
    std::net::Ipv6Addr::from(*gid).to_ipv4_mapped()
}

pub fn gid_str(gid: &[u8; 16]) -> String {
    std::net::Ipv6Addr::from(*gid).to_string()
}

impl QpInfo {
    /// `%04x:%04x:%06x:%06x:%08x:%016llx:` then the 16 GID bytes `%02x:` each, then the
    /// SRQ number `%08x:` (0) and a NUL: 108 bytes.
    pub fn emit(&self) -> [u8; KEY_MSG_LEN] {
        let mut s = format!("{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:", self.lid, self.out_reads, self.qpn & 0xff_ffff, self.psn & 0xff_ffff, self.rkey, self.vaddr);
        for b in self.gid {
            s += &format!("{b:02x}:");
        }
        s += "00000000:";
        let mut out = [0u8; KEY_MSG_LEN];
        out[..s.len()].copy_from_slice(s.as_bytes());
        out
    }

    /// Parses one message; every field must be there at its width, in hex.
    pub fn parse(msg: &[u8]) -> Result<QpInfo, String> {
        let shown = || String::from_utf8_lossy(msg).trim_end_matches('\0').escape_debug().to_string();
        if msg.len() != KEY_MSG_LEN {
            return Err(format!("{} bytes where perftest sends {KEY_MSG_LEN}", msg.len()));
        }
        if msg[KEY_MSG_LEN - 1] != 0 {
            return Err(format!("no terminating NUL in `{}`", shown()));
        }
        let text = std::str::from_utf8(&msg[..KEY_MSG_LEN - 1]).map_err(|_| format!("not text: {:02x?}", &msg[..16]))?;
        let fields: Vec<&str> = text.split(':').collect();
        // 6 fields, 16 GID bytes, the SRQ number and the empty tail after the last ':'
        const NAMES: [&str; 6] = ["lid", "out_reads", "qpn", "psn", "rkey", "vaddr"];
        const WIDTHS: [usize; 6] = [4, 4, 6, 6, 8, 16];
        if fields.len() != 6 + 16 + 2 || !fields[23].is_empty() {
            return Err(format!("`{}` has not the layout lid:out_reads:qpn:psn:rkey:vaddr:16 GID bytes:srqn:", shown()));
        }
        let hex = |i: usize, name: &str, width: usize| -> Result<u64, String> {
            let f = fields[i];
            if f.len() != width || !f.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("field {name} `{f}` in `{}` is not {width} hex digits", shown()));
            }
            Ok(u64::from_str_radix(f, 16).expect("hex digits"))
        };
        let mut v = [0u64; 6];
        for i in 0..6 {
            v[i] = hex(i, NAMES[i], WIDTHS[i])?;
        }
        let mut gid = [0u8; 16];
        for (k, g) in gid.iter_mut().enumerate() {
            *g = hex(6 + k, "gid", 2)? as u8;
        }
        hex(22, "srqn", 8)?;
        Ok(QpInfo { lid: v[0] as u16, out_reads: v[1] as u16, qpn: v[2] as u32, psn: v[3] as u32, rkey: v[4] as u32, vaddr: v[5], gid })
    }
}

/// perftest's two address lines for one QP (`ctx_print_pingpong_data`).
pub fn describe(side: &str, q: &QpInfo, op: Op) -> String {
    // C's `%#04x` prints 0 without the 0x
    let alt = |v: u64, w: usize| if v == 0 { format!("{:0w$}", 0) } else { format!("{v:#0w$x}") };
    let mut s = format!(" {side} address: LID {} QPN {} PSN {}", alt(q.lid.into(), 4), alt(q.qpn.into(), 6), alt(q.psn.into(), 6));
    if op == Op::Read {
        s += &format!(" OUT {}", alt(q.out_reads.into(), 4));
    }
    if op != Op::Send {
        s += &format!(" RKey {} VAddr {}", alt(q.rkey.into(), 8), alt(q.vaddr, 16));
    }
    s += "\n GID: ";
    s += &q.gid.iter().map(|b| format!("{b:02}")).collect::<Vec<_>>().join(":");
    s
}

/// One blob each way, the client's first.
fn xchg(h: &mut SimHost, link: &Link, server: bool, mine: &[u8], what: &str) -> Result<Vec<u8>> {
    if server {
        let theirs = link.recv_exact(h, mine.len(), what)?;
        link.send(h, mine, what)?;
        Ok(theirs)
    } else {
        link.send(h, mine, what)?;
        link.recv_exact(h, mine.len(), what)
    }
}

/// What the opening steps agreed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agreed {
    /// Page size both use for the cycle buffer, and the cache line.
    pub cycle_buffer: u32,
    pub cache_line: u32,
    /// Path MTU in bytes.
    pub mtu: u32,
}

/// Versions, page and cache-line sizes, and the MTU (`mtu` bytes here).
pub fn open(h: &mut SimHost, link: &Link, server: bool, mtu: u32) -> Result<Agreed> {
    let mut v = [0u8; 16];
    v[..VERSION.len()].copy_from_slice(VERSION.as_bytes());
    let theirs = xchg(h, link, server, &v, "perftest's version")?;
    let text: String = theirs.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect();
    // perftest reads it with atof: the leading number counts
    let num: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let peer_version: f64 = num.parse().unwrap_or(0.0);
    if peer_version < OLDEST {
        bail!("the peer announced version `{}`: not a perftest peer of version {OLDEST} or later", text.escape_debug());
    }
    let get = |b: Vec<u8>| u32::from_be_bytes(b.try_into().expect("4 bytes"));
    let cycle = get(xchg(h, link, server, &PAGE.to_be_bytes(), "the page size")?).max(PAGE);
    let line = get(xchg(h, link, server, &CACHE_LINE.to_be_bytes(), "the cache-line size")?).max(CACHE_LINE);
    if !cycle.is_power_of_two() || cycle > 1 << 20 || !line.is_power_of_two() || line > 4096 {
        bail!("the peer's page size {cycle} or cache line {line} is not a power of two of a sane size");
    }
    let code = nic_driver::verbs::Mtu::from_bytes(mtu).expect("checked by the parser") as u8;
    let rem = xchg(h, link, server, &[b'0' + code, 0], "the MTU")?;
    let peer_code = match rem.as_slice() {
        [d @ b'1'..=b'5', 0] => d - b'0',
        other => bail!("the peer's MTU `{}` is not an ibv_mtu digit 1..5", String::from_utf8_lossy(other).escape_debug()),
    };
    Ok(Agreed { cycle_buffer: cycle, cache_line: line, mtu: 128 << code.min(peer_code) })
}

/// One hand-shake: this side's first QP message for the peer's.
pub fn hand_shake(h: &mut SimHost, link: &Link, server: bool, mine: &QpInfo, what: &str) -> Result<QpInfo> {
    let b = xchg(h, link, server, &mine.emit(), what)?;
    QpInfo::parse(&b).map_err(|e| anyhow::anyhow!("the peer's QP information ({what}) is malformed: {e}"))
}

/// The QP messages: one round per QP for the keys, (SEND: one more hand-shake), then
/// the same messages again (perftest prints the peer's then). The peer must not change
/// its QPs between the rounds.
pub fn keys(h: &mut SimHost, link: &Link, server: bool, local: &[QpInfo], op: Op) -> Result<Vec<QpInfo>> {
    let mut peers = Vec::new();
    for (i, l) in local.iter().enumerate() {
        peers.push(hand_shake(h, link, server, l, &format!("QP {i}'s keys"))?);
    }
    if op == Op::Send {
        hand_shake(h, link, server, &local[0], "the hand-shake after connecting")?;
    }
    for (i, l) in local.iter().enumerate() {
        let again = hand_shake(h, link, server, l, &format!("QP {i}'s keys, again"))?;
        if again != peers[i] {
            bail!("the peer changed QP {i}'s information between two rounds: {:?} then {:?}", peers[i], again);
        }
    }
    Ok(peers)
}

/// The client's figures, as `xchg_bw_reports` sends them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BwReport {
    pub size: u64,
    pub iters: u64,
    pub bw_peak: f64,
    pub bw_avg: f64,
    pub msg_rate: f64,
}

/// After the run: WRITE and READ do a hand-shake, exchange the figures (the server's
/// are not meaningful; perftest's server prints the client's) and hand-shake to close;
/// SEND only closes. Returns the peer's figures where they were exchanged.
pub fn finish(h: &mut SimHost, link: &Link, server: bool, op: Op, mine: &QpInfo, report: BwReport) -> Result<Option<BwReport>> {
    let mut peer = None;
    if op != Op::Send {
        hand_shake(h, link, server, mine, "the hand-shake after the run")?;
        let mut vals = [0u64; 5];
        let out = [report.size, report.iters, report.bw_peak.to_bits(), report.bw_avg.to_bits(), report.msg_rate.to_bits()];
        for (k, v) in out.iter().enumerate() {
            let b = xchg(h, link, server, &v.to_be_bytes(), "the bandwidth report")?;
            vals[k] = u64::from_be_bytes(b.try_into().expect("8 bytes"));
        }
        peer = Some(BwReport { size: vals[0], iters: vals[1], bw_peak: f64::from_bits(vals[2]), bw_avg: f64::from_bits(vals[3]), msg_rate: f64::from_bits(vals[4]) });
    }
    hand_shake(h, link, server, mine, "the closing hand-shake")?;
    Ok(peer)
}

/// Where perftest's requester puts message `n` in the peer's buffer: messages of at
/// most half the cycle buffer walk through it in cache-line steps, larger ones all go
/// to the buffer's start.
pub fn remote_offset(n: u64, size: u32, cycle: u32, line: u32) -> u64 {
    if size <= cycle / 2 {
        let inc = u64::from(size.div_ceil(line) * line).max(u64::from(line));
        let per = (u64::from(cycle) / inc).max(1);
        (n % per) * inc
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> QpInfo {
        QpInfo { lid: 0, out_reads: 1, qpn: 0x11a, psn: 0xabcdef, rkey: 0x1fff00, vaddr: 0x7f12_3456_7000, gid: gid_of(Ipv4Addr::new(192, 168, 1, 2)) }
    }

    /// The message perftest's KEY_PRINT_FMT_GID makes of these values, written out by
    /// hand from the format string.
    #[test]
    fn key_message_matches_perftest_format() {
        let want = b"0000:0001:00011a:abcdef:001fff00:00007f1234567000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:02:00000000:\0";
        assert_eq!(want.len(), KEY_MSG_LEN);
        assert_eq!(&sample().emit()[..], &want[..]);
        assert_eq!(QpInfo::parse(want).unwrap(), sample());
    }

    #[test]
    fn malformed_key_messages_are_refused() {
        let good = sample().emit();
        assert!(QpInfo::parse(&good[..107]).unwrap_err().contains("107 bytes"));
        let mut no_nul = good;
        no_nul[107] = b'x';
        assert!(QpInfo::parse(&no_nul).unwrap_err().contains("NUL"));
        let mut bad_hex = good;
        bad_hex[12] = b'g'; // inside qpn
        assert!(QpInfo::parse(&bad_hex).unwrap_err().contains("qpn"), "{}", QpInfo::parse(&bad_hex).unwrap_err());
        let mut bad_sep = good;
        bad_sep[4] = b'-';
        assert!(QpInfo::parse(&bad_sep).unwrap_err().contains("layout"));
        let mut garbage = [b'A'; KEY_MSG_LEN];
        garbage[107] = 0;
        assert!(QpInfo::parse(&garbage).is_err());
    }

    #[test]
    fn address_lines_follow_c_alternate_form() {
        let s = describe("local", &sample(), Op::Write);
        assert_eq!(s, " local address: LID 0000 QPN 0x011a PSN 0xabcdef RKey 0x1fff00 VAddr 0x007f1234567000\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:02");
        assert!(describe("remote", &sample(), Op::Read).contains(" OUT 0x01 RKey"));
        assert!(!describe("remote", &sample(), Op::Send).contains("RKey"));
    }

    #[test]
    fn gids_map_ipv4() {
        let ip = Ipv4Addr::new(10, 1, 2, 3);
        assert_eq!(gid_ipv4(&gid_of(ip)), Some(ip));
        assert_eq!(gid_ipv4(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), None);
    }

    #[test]
    fn remote_offsets_walk_the_cycle_buffer_for_small_messages() {
        assert_eq!((0..5).map(|n| remote_offset(n, 64, 4096, 64)).collect::<Vec<_>>(), [0, 64, 128, 192, 256]);
        assert_eq!(remote_offset(64, 64, 4096, 64), 0);
        assert_eq!(remote_offset(1, 100, 4096, 64), 128);
        assert_eq!(remote_offset(3, 2049, 4096, 64), 0);
        assert_eq!(remote_offset(7, 65536, 4096, 64), 0);
    }
}
