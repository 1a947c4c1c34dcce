//! pcap files through the `pcap-file` crate: a writer (libpcap format, nanosecond
//! timestamps, Ethernet link type), so frames the NIC put on the wire can be judged by
//! independent tools (tshark, scapy); a reader for what people capture with tcpdump,
//! tshark or Wireshark (classic pcap in either byte order and resolution, and pcapng,
//! Wireshark's default); and helpers that ask tshark for its verdict on each frame's FCS
//! and checksums and for the TCP payload it sees.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader};
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::io::{self, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// The snapshot length written (what tcpdump uses): no frame is cut.
const SNAPLEN: u32 = 262_144;

fn to_io(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// Writes a pcap stream (little-endian, nanosecond timestamps): header first, then one
/// record per frame.
pub struct PcapWriter<W: Write> {
    inner: pcap_file::pcap::PcapWriter<W>,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(out: W, linktype: u32) -> io::Result<Self> {
        let header = PcapHeader {
            snaplen: SNAPLEN,
            datalink: DataLink::from(linktype),
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        Ok(PcapWriter { inner: pcap_file::pcap::PcapWriter::with_header(out, header).map_err(to_io)? })
    }

    /// One frame at `ts_ns` nanoseconds.
    pub fn write(&mut self, ts_ns: u64, frame: &[u8]) -> io::Result<()> {
        self.inner.write_packet(&PcapPacket::new(Duration::from_nanos(ts_ns), frame.len() as u32, frame)).map_err(to_io)?;
        Ok(())
    }

    pub fn into_inner(self) -> W {
        self.inner.into_writer()
    }
}

/// Why a pcap file could not be read.
#[derive(Debug)]
pub enum PcapError {
    Io(io::Error),
    /// Not a pcap or pcapng file of Ethernet frames, or a damaged one.
    Format(String),
}

impl std::fmt::Display for PcapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PcapError::Io(e) => write!(f, "{e}"),
            PcapError::Format(m) => f.write_str(m),
        }
    }
}
impl std::error::Error for PcapError {}
impl From<io::Error> for PcapError {
    fn from(e: io::Error) -> Self {
        PcapError::Io(e)
    }
}

/// The magic number that opens a pcapng file (its Section Header Block type).
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// The frames of a capture: classic pcap (either byte order, micro- or nanosecond
/// timestamps) or pcapng (enhanced and simple packet blocks). Only Ethernet captures
/// are accepted; a frame captured cut short (snap length) or a record cut off by the end
/// of the file is an error.
pub fn read_frames(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PcapError> {
    let bad = |m: String| PcapError::Format(m);
    let truncated = |n: usize, incl: usize, orig: usize| bad(format!("record {n} was captured truncated ({incl} of {orig} bytes; capture with a larger snaplen)"));
    let ended = |n: usize, e: pcap_file::PcapError| match e {
        pcap_file::PcapError::IoError(io) if io.kind() == io::ErrorKind::UnexpectedEof => bad(format!("record {n}: the file ends first")),
        e => bad(format!("record {n}: {e}")),
    };
    let mut frames = Vec::new();
    if bytes.starts_with(&PCAPNG_MAGIC) {
        let mut r = PcapNgReader::new(bytes).map_err(|e| bad(format!("not a pcapng file: {e}")))?;
        while let Some(block) = r.next_block() {
            let block = block.map_err(|e| ended(frames.len(), e))?;
            let (data, orig, iface) = match block {
                Block::EnhancedPacket(p) => (p.data.into_owned(), p.original_len as usize, Some(p.interface_id as usize)),
                Block::SimplePacket(p) => (p.data.into_owned(), p.original_len as usize, Some(0)),
                Block::Packet(p) => (p.data.into_owned(), p.original_len as usize, Some(usize::from(p.interface_id))),
                _ => continue,
            };
            let linktype = iface.and_then(|i| r.interfaces().get(i)).map(|d| u32::from(d.linktype));
            if linktype != Some(LINKTYPE_ETHERNET) {
                return Err(bad(format!("record {}: link type {linktype:?} is not Ethernet (1)", frames.len())));
            }
            if data.len() < orig {
                return Err(truncated(frames.len(), data.len(), orig));
            }
            frames.push(data);
        }
        return Ok(frames);
    }
    if bytes.len() < 24 {
        return Err(bad(format!("{} bytes: too short for a pcap header (24 bytes)", bytes.len())));
    }
    let mut r = PcapReader::new(bytes).map_err(|e| bad(format!("not a pcap file: {e}")))?;
    let linktype = u32::from(r.header().datalink);
    if linktype != LINKTYPE_ETHERNET {
        return Err(bad(format!("link type {linktype} is not Ethernet (1)")));
    }
    while let Some(p) = r.next_packet() {
        let p = p.map_err(|e| ended(frames.len(), e))?;
        if p.data.len() < p.orig_len as usize {
            return Err(truncated(frames.len(), p.data.len(), p.orig_len as usize));
        }
        frames.push(p.data.into_owned());
    }
    Ok(frames)
}

/// Reads a pcap file ([`read_frames`]).
pub fn read_file(path: &Path) -> Result<Vec<Vec<u8>>, PcapError> {
    read_frames(&std::fs::read(path)?)
}

/// Writes frames (FCS included) to a pcap file, one per 6.4 ns cycle index given.
pub fn write_file(path: &Path, frames: &[Vec<u8>]) -> io::Result<()> {
    let mut w = PcapWriter::new(io::BufWriter::new(std::fs::File::create(path)?), LINKTYPE_ETHERNET)?;
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 * 1000, f)?;
    }
    w.into_inner().flush()
}

/// Runs `tshark -r path args...` and returns what it printed; `None` when tshark is not
/// installed, an error when it failed.
fn tshark(path: &Path, args: &[&str]) -> Option<io::Result<String>> {
    match Command::new("tshark").arg("-r").arg(path).args(args).output() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => Some(Err(e)),
        Ok(out) if !out.status.success() => Some(Err(io::Error::other(format!("tshark failed: {}", String::from_utf8_lossy(&out.stderr))))),
        Ok(out) => Some(Ok(String::from_utf8_lossy(&out.stdout).into_owned())),
    }
}

/// tshark's verdict on the FCS of every frame in a pcap whose frames carry their FCS:
/// `Some(good?)` per frame, or `None` when tshark is not installed.
pub fn tshark_fcs_verdicts(path: &Path) -> Option<io::Result<Vec<bool>>> {
    let text = match tshark(path, &[
        "-o", "eth.fcs:Always", "-o", "eth.check_fcs:TRUE", "-T", "fields", "-e", "eth.fcs.status",
    ])? {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    Some(
        text.lines()
            .map(|l| match l.trim() {
                "1" => Ok(true),
                "0" => Ok(false),
                other => Err(io::Error::other(format!("tshark printed FCS status `{other}`"))),
            })
            .collect(),
    )
}

/// tshark's checksum verdicts of one frame: `Some(true)` good, `Some(false)` bad, `None`
/// not verified or no such header. Only the outermost IPv4 and TCP/UDP headers count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsharkCsum {
    pub ip: Option<bool>,
    pub tcp: Option<bool>,
    pub udp: Option<bool>,
}

/// Runs tshark with IPv4, TCP and UDP checksum validation on over a pcap (frames
/// without FCS) and returns its verdicts per frame, or `None` when tshark is not
/// installed.
pub fn tshark_checksum_verdicts(path: &Path) -> Option<io::Result<Vec<TsharkCsum>>> {
    let text = match tshark(path, &[
        "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
        "-T", "fields", "-E", "separator=;", "-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "udp.checksum.status",
    ])? {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    // status: 0 bad, 1 good, 2 unverified; a field lists one value per header, outer first
    let verdict = |f: &str| match f.split(',').next().unwrap_or("").trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    };
    Some(Ok(text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            TsharkCsum { ip: verdict(f.first().unwrap_or(&"")), tcp: verdict(f.get(1).unwrap_or(&"")), udp: verdict(f.get(2).unwrap_or(&"")) }
        })
        .collect()))
}

/// The TCP segment tshark sees in a frame: raw sequence number and payload bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TsharkTcp {
    pub seq: u32,
    pub payload: Vec<u8>,
}

/// tshark's view of the TCP payload of every frame in a pcap (frames without FCS):
/// per frame `Some` for a frame with a TCP header (outermost), else `None`; `None`
/// overall when tshark is not installed. Reassembly and sequence analysis are off, so
/// each frame's own payload bytes are reported.
pub fn tshark_tcp_payloads(path: &Path) -> Option<io::Result<Vec<Option<TsharkTcp>>>> {
    let text = match tshark(path, &[
        "-o", "tcp.desegment_tcp_streams:FALSE", "-o", "tcp.analyze_sequence_numbers:FALSE",
        "-T", "fields", "-E", "separator=;", "-e", "tcp.seq_raw", "-e", "tcp.payload",
    ])? {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    let first = |f: &str| f.split(',').next().unwrap_or("").trim().to_string();
    Some(
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.split(';').collect();
                let seq = first(f.first().unwrap_or(&""));
                if seq.is_empty() {
                    return Ok(None);
                }
                let seq = seq.parse::<u32>().map_err(|e| io::Error::other(format!("tshark printed sequence number `{seq}`: {e}")))?;
                let hex: String = first(f.get(1).unwrap_or(&"")).chars().filter(|c| *c != ':').collect();
                if !hex.len().is_multiple_of(2) {
                    return Err(io::Error::other("tshark printed an odd number of hex digits"));
                }
                let payload = (0..hex.len() / 2)
                    .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|e| io::Error::other(format!("tshark printed payload `{}`: {e}", &hex[..hex.len().min(40)])))?;
                Ok(Some(TsharkTcp { seq, payload }))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes_and_refuses_what_it_cannot() {
        let frames = vec![vec![], vec![1u8; 60], vec![2u8; 1514]];
        let mut w = PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET).unwrap();
        for (i, f) in frames.iter().enumerate() {
            w.write(i as u64, f).unwrap();
        }
        let bytes = w.into_inner();
        assert_eq!(read_frames(&bytes).unwrap(), frames);
        // big-endian microsecond capture, built by hand
        let mut be = vec![0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 1];
        be.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3, 7, 8, 9]);
        assert_eq!(read_frames(&be).unwrap(), vec![vec![7, 8, 9]]);
        assert!(read_frames(&bytes[..bytes.len() - 1]).unwrap_err().to_string().contains("file ends first"));
        assert!(read_frames(&[0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err().to_string().contains("pcapng"));
        let mut other = bytes.clone();
        other[20] = 113; // Linux cooked capture
        assert!(read_frames(&other).unwrap_err().to_string().contains("not Ethernet"));
    }

    /// A pcapng file built by hand from the format's block layout (little-endian): a
    /// Section Header Block, an Interface Description Block (Ethernet) and two Enhanced
    /// Packet Blocks, the second with padding.
    #[test]
    fn reads_pcapng() {
        let le32 = |v: u32| v.to_le_bytes();
        let mut b = Vec::new();
        b.extend(le32(0x0a0d_0d0a));
        b.extend(le32(28));
        b.extend(le32(0x1a2b_3c4d));
        b.extend([1, 0, 0, 0]); // version 1.0
        b.extend([0xff; 8]); // section length unknown
        b.extend(le32(28));
        b.extend(le32(1));
        b.extend(le32(20));
        b.extend([1, 0, 0, 0]); // LINKTYPE_ETHERNET, reserved
        b.extend(le32(0)); // snaplen: none
        b.extend(le32(20));
        for data in [&[1u8, 2, 3, 4][..], &[7, 8, 9][..]] {
            let padded = data.len().div_ceil(4) * 4;
            let total = 32 + padded as u32;
            b.extend(le32(6));
            b.extend(le32(total));
            b.extend(le32(0)); // interface 0
            b.extend(le32(0));
            b.extend(le32(1000)); // timestamp
            b.extend(le32(data.len() as u32));
            b.extend(le32(data.len() as u32));
            b.extend(data);
            b.extend(vec![0u8; padded - data.len()]);
            b.extend(le32(total));
        }
        assert_eq!(read_frames(&b).unwrap(), vec![vec![1, 2, 3, 4], vec![7, 8, 9]]);
        // cut inside the last block
        assert!(read_frames(&b[..b.len() - 6]).is_err());
        // an interface that is not Ethernet
        let mut sll = b.clone();
        sll[36] = 113;
        assert!(read_frames(&sll).unwrap_err().to_string().contains("not Ethernet"));
    }

    /// What Wireshark's own tools write as pcapng (editcap, shipped with tshark) reads back
    /// as the frames written (skipped where it is not installed, except under CI).
    #[test]
    fn reads_the_pcapng_editcap_writes() {
        let mut g = crate::gen::FrameGen::new(9);
        let frames: Vec<Vec<u8>> = [60, 61, 1514, 9018].iter().map(|&n| g.frame(n)).collect();
        let dir = std::env::temp_dir();
        let (classic, ng) = (dir.join(format!("nic-ng-{}.pcap", std::process::id())), dir.join(format!("nic-ng-{}.pcapng", std::process::id())));
        write_file(&classic, &frames).unwrap();
        match Command::new("editcap").args(["-F", "pcapng"]).arg(&classic).arg(&ng).output() {
            Err(_) => {
                assert!(std::env::var("CI").is_err(), "editcap (tshark's package) missing under CI: `make setup` should have installed it");
                eprintln!("editcap not installed: skipped (make setup installs it)");
            }
            Ok(out) => {
                assert!(out.status.success(), "editcap failed: {}", String::from_utf8_lossy(&out.stderr));
                let bytes = std::fs::read(&ng).unwrap();
                assert!(bytes.starts_with(&PCAPNG_MAGIC), "editcap did not write pcapng");
                assert_eq!(read_frames(&bytes).unwrap(), frames);
            }
        }
        let _ = std::fs::remove_file(&classic);
        let _ = std::fs::remove_file(&ng);
    }

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(Vec::new(), LINKTYPE_ETHERNET).unwrap();
        w.write(1_500_000_123, &[1, 2, 3]).unwrap();
        let b = w.into_inner();
        assert_eq!(b.len(), 24 + 16 + 3);
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 500_000_123);
        assert_eq!(u32::from_le_bytes(b[32..36].try_into().unwrap()), 3);
        assert_eq!(&b[40..], &[1, 2, 3]);
    }

    /// The golden FCS agrees with tshark (skipped where tshark is not installed, except
    /// under CI, where `make setup` has installed it: there a missing tshark fails).
    #[test]
    fn golden_fcs_agrees_with_tshark() {
        let mut g = crate::gen::FrameGen::new(3);
        let frames: Vec<Vec<u8>> = vec![crate::fcs::with_fcs(&g.frame(60)), crate::fcs::with_bad_fcs(&g.frame(100)), crate::fcs::with_fcs(&g.frame(1514))];
        let path = std::env::temp_dir().join(format!("nic-golden-{}.pcap", std::process::id()));
        write_file(&path, &frames).unwrap();
        match tshark_fcs_verdicts(&path) {
            None => {
                assert!(std::env::var("CI").is_err(), "tshark missing under CI: `make setup` should have installed it");
                eprintln!("tshark not installed: skipped (make setup installs it)");
            }
            Some(v) => assert_eq!(v.unwrap(), vec![true, false, true]),
        }
        let _ = std::fs::remove_file(&path);
    }
}
