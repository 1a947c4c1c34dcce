//! Writes and reads back a capture of N frames (64 and 1514 bytes, alternating) in
//! memory through `nic_testbench::pcap`, and prints frames per second each way: the
//! pcap code is on the per-frame path of `nic sim rx/tx` and `nic tap --pcap`.
//!
//! `cargo run --release -p nic-testbench --no-default-features --example pcap_speed -- 1000000`

use nic_testbench::pcap::{read_frames, PcapWriter, LINKTYPE_ETHERNET};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let frames = [vec![0x5au8; 64], vec![0xa5u8; 1514]];
    let t = Instant::now();
    let mut w = PcapWriter::new(Vec::with_capacity(n * 800), LINKTYPE_ETHERNET).unwrap();
    for i in 0..n {
        w.write(i as u64 * 100, &frames[i % 2]).unwrap();
    }
    let bytes = w.into_inner();
    let wrote = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let back = read_frames(&bytes).unwrap();
    let read = t.elapsed().as_secs_f64();
    assert_eq!(back.len(), n);
    println!("{n} frames, {} bytes: write {:.2} M frames/s, read {:.2} M frames/s", bytes.len(), n as f64 / wrote / 1e6, n as f64 / read / 1e6);
}
