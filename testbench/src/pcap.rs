//! A minimal pcap writer (libpcap format, nanosecond timestamps, Ethernet link type), so
//! frames the NIC put on the wire can be judged by independent tools (tshark, scapy),
//! and a helper that asks tshark for its verdict on each frame's FCS.

use std::io::{self, Write};
use std::path::Path;
use std::process::Command;

/// libpcap magic for nanosecond-resolution timestamps.
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// Writes a pcap stream: header first, then one record per frame.
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W, linktype: u32) -> io::Result<Self> {
        out.write_all(&MAGIC_NS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?; // version 2.4
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // thiszone
        out.write_all(&0u32.to_le_bytes())?; // sigfigs
        out.write_all(&262_144u32.to_le_bytes())?; // snaplen
        out.write_all(&linktype.to_le_bytes())?;
        Ok(PcapWriter { out })
    }

    /// One frame at `ts_ns` nanoseconds.
    pub fn write(&mut self, ts_ns: u64, frame: &[u8]) -> io::Result<()> {
        let len = frame.len() as u32;
        self.out.write_all(&((ts_ns / 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&((ts_ns % 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(frame)
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes frames (FCS included) to a pcap file, one per 6.4 ns cycle index given.
pub fn write_file(path: &Path, frames: &[Vec<u8>]) -> io::Result<()> {
    let mut w = PcapWriter::new(io::BufWriter::new(std::fs::File::create(path)?), LINKTYPE_ETHERNET)?;
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 * 1000, f)?;
    }
    w.into_inner().flush()
}

/// tshark's verdict on the FCS of every frame in a pcap whose frames carry their FCS:
/// `Some(good?)` per frame, or `None` when tshark is not installed.
pub fn tshark_fcs_verdicts(path: &Path) -> Option<io::Result<Vec<bool>>> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(path)
        .args(["-o", "eth.fcs:Always", "-o", "eth.check_fcs:TRUE", "-T", "fields", "-e", "eth.fcs.status"])
        .output();
    let out = match out {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(e)),
        Ok(o) => o,
    };
    if !out.status.success() {
        return Some(Err(io::Error::other(format!("tshark failed: {}", String::from_utf8_lossy(&out.stderr)))));
    }
    let text = String::from_utf8_lossy(&out.stdout);
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The golden FCS agrees with tshark (skipped where tshark is not installed).
    #[test]
    fn golden_fcs_agrees_with_tshark() {
        let mut g = crate::gen::FrameGen::new(3);
        let frames: Vec<Vec<u8>> = vec![crate::fcs::with_fcs(&g.frame(60)), crate::fcs::with_bad_fcs(&g.frame(100)), crate::fcs::with_fcs(&g.frame(1514))];
        let path = std::env::temp_dir().join(format!("nic-golden-{}.pcap", std::process::id()));
        write_file(&path, &frames).unwrap();
        match tshark_fcs_verdicts(&path) {
            None => eprintln!("tshark not installed: skipped (make setup installs it)"),
            Some(v) => assert_eq!(v.unwrap(), vec![true, false, true]),
        }
        let _ = std::fs::remove_file(&path);
    }
}
