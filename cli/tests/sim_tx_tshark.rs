//! `nic sim tx` end to end on the Verilated RTL (full configuration, 4 TX queues),
//! judged by tshark: TCP and UDP flows over IPv4 (with and without options and VLAN
//! tags) and IPv6, TCP payloads from 0 to 64 KiB, handed to the driver as a stack hands
//! them (checksum fields left to the NIC, big TCP packets for TSO with an MSS of 1448).
//! What left the wire must have every IPv4, TCP and UDP checksum good (tshark counts
//! them, so the check cannot pass on nothing), no TCP segment over 1448 payload bytes,
//! every flow's TCP stream (reassembled by sequence number from tshark's view) equal to
//! what was sent, and each flow's frames in order. A control run sends the same
//! traffic already segmented with correct checksums and no offload: it must leave byte
//! for byte, and both runs must put the same frames on the wire.
//!
//! tshark is required (`make setup` installs it), as in
//! testbench/tests/rxclass_tshark.rs: without it the test fails rather than passing
//! vacuously.

use nic_testbench::fcs;
use nic_testbench::pcap::{self, tshark_checksum_verdicts, tshark_tcp_payloads};
use nic_testbench::rxgen::{Fault, L3Spec, L4Spec, RxFrameSpec};
use nic_testbench::txgen::tcp_reassemble;
use nic_testbench::txoffload::{as_stack_hands_it, OffloadKind};
use nic_testbench::wire::ip::protocol;
use nic_testbench::wire::tcp::flags;
use nic_testbench::wire::{vlan, Ipv4Repr, Ipv6Repr, TcpOption, TcpRepr, UdpRepr};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const MSS: usize = 1448;

struct Flow {
    id: u8,
    vlans: Vec<(u16, u16)>,
    ipv6: bool,
    ip_options: Vec<u8>,
    udp: bool,
    tcp_options: Vec<u8>,
    seq: u32,
    /// Payload bytes per packet.
    sizes: Vec<usize>,
}

impl Flow {
    /// The flow's byte stream: a pattern that differs per flow and never repeats within
    /// a segment's length.
    fn byte(&self, k: usize) -> u8 {
        (k as u32).wrapping_mul(2_654_435_761).wrapping_add(u32::from(self.id) * 0x9e37).rotate_right(13) as u8 ^ (k / 7919) as u8
    }

    fn stream(&self) -> Vec<u8> {
        (0..self.sizes.iter().sum()).map(|k| self.byte(k)).collect()
    }

    fn header_room(&self) -> usize {
        let ip = if self.ipv6 { 0 } else { 20 + self.ip_options.len() };
        ip + if self.udp { 8 } else { 20 + self.tcp_options.len() }
    }

    /// One packet with correct checksums: `payload` at stream offset `at`, IPv4
    /// identification `ident`, TCP flags `fl`.
    fn packet(&self, at: usize, payload: Vec<u8>, ident: u16, fl: u16) -> Vec<u8> {
        let ports = (47_000 + u16::from(self.id), 48_000 + u16::from(self.id));
        let l4 = if self.udp {
            L4Spec::Udp { repr: UdpRepr { src_port: ports.0, dst_port: ports.1 }, payload }
        } else {
            let repr = TcpRepr {
                src_port: ports.0,
                dst_port: ports.1,
                seq_number: self.seq.wrapping_add(at as u32),
                ack_number: 0x1234_5678,
                flags: fl,
                window_len: 502,
                urgent_at: 0,
                options: self.tcp_options.clone(),
            };
            L4Spec::Tcp { repr, payload }
        };
        let l3 = if self.ipv6 {
            let src = format!("2001:db8::{}", self.id).parse().unwrap();
            let dst = "2001:db8:ffff::1".parse().unwrap();
            L3Spec::Ipv6 { ip: Ipv6Repr { flow_label: u32::from(self.id), ..Ipv6Repr::new(src, dst, if self.udp { protocol::UDP } else { protocol::TCP }, 0) }, ext: None, l4 }
        } else {
            let ip = Ipv4Repr { ident, options: self.ip_options.clone(), ..Ipv4Repr::new([10, 1, 0, self.id].into(), [10, 2, 0, 1].into(), if self.udp { protocol::UDP } else { protocol::TCP }, 0) };
            L3Spec::Ipv4 { ip, l4 }
        };
        RxFrameSpec { dst: [0x02, 0, 0, 0, 0, 0xfe], src: [0x02, 0, 0, 0, 0, self.id], vlans: self.vlans.clone(), l3, trailer: Vec::new(), dirty_padding: false, min_len: 0, fault: Fault::None }.build()
    }

    /// (what the stack hands the driver, what the wire must carry) per packet.
    fn packets(&self) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        let mut at = 0;
        let mut out = Vec::new();
        for (i, &size) in self.sizes.iter().enumerate() {
            let ident = 0xfff0u16.wrapping_add(i as u16 * 100);
            let payload: Vec<u8> = (at..at + size).map(|k| self.byte(k)).collect();
            let fl = flags::ACK | flags::PSH;
            let whole = self.packet(at, payload.clone(), ident, fl);
            let (handed, wire) = if self.udp {
                (as_stack_hands_it(&whole, OffloadKind::Full, None).0, vec![whole])
            } else if size > MSS {
                // TSO: identification + k, sequence + k * mss, PSH on the last segment only
                let n = size.div_ceil(MSS);
                let segs = (0..n)
                    .map(|k| {
                        let chunk = payload[k * MSS..((k + 1) * MSS).min(size)].to_vec();
                        self.packet(at + k * MSS, chunk, ident.wrapping_add(k as u16), if k + 1 == n { fl } else { flags::ACK })
                    })
                    .collect();
                (as_stack_hands_it(&whole, OffloadKind::Tso, Some(MSS as u16)).0, segs)
            } else {
                (as_stack_hands_it(&whole, OffloadKind::Full, None).0, vec![whole])
            };
            out.push((handed, wire));
            at += size;
        }
        out
    }
}

fn flows() -> Vec<Flow> {
    let ts = TcpOption::emit_all(&[TcpOption::NoOp, TcpOption::NoOp, TcpOption::Timestamps(0x0102_0304, 0x0506_0708)]);
    let sack = TcpOption::emit_all(&[TcpOption::NoOp, TcpOption::WindowScale(7), TcpOption::NoOp, TcpOption::NoOp, TcpOption::Timestamps(1, 2)]);
    let router_alert = vec![0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00];
    let big = |room: usize| 65_535 - room;
    let mut f = vec![
        // TCP/IPv4, plain, sequence numbers wrapping inside a TSO request
        Flow { id: 1, vlans: vec![], ipv6: false, ip_options: vec![], udp: false, tcp_options: vec![], seq: u32::MAX - 3000, sizes: vec![0, 1, 100, MSS, MSS + 1, 5000, 20_000] },
        // TCP/IPv4 with IPv4 options and TCP options, one VLAN tag
        Flow { id: 2, vlans: vec![(vlan::TPID_CTAG, 0x2064)], ipv6: false, ip_options: router_alert.clone(), udp: false, tcp_options: ts.clone(), seq: 1_000_000, sizes: vec![3 * MSS, 7, 0] },
        // TCP/IPv4 behind two tags (QinQ), TCP options
        Flow { id: 3, vlans: vec![(vlan::TPID_STAG, 0x0010), (vlan::TPID_CTAG, 0x0020)], ipv6: false, ip_options: vec![], udp: false, tcp_options: sack.clone(), seq: 77, sizes: vec![9000, 2 * MSS - 1, 60] },
        // TCP/IPv6, plain
        Flow { id: 4, vlans: vec![], ipv6: true, ip_options: vec![], udp: false, tcp_options: vec![], seq: 0x8000_0000, sizes: vec![12_345, 0, 1, MSS] },
        // TCP/IPv6 with a VLAN tag and TCP options
        Flow { id: 5, vlans: vec![(vlan::TPID_CTAG, 0x0005)], ipv6: true, ip_options: vec![], udp: false, tcp_options: ts, seq: 5, sizes: vec![300, 4 * MSS + 2] },
        // UDP/IPv4 with and without options, UDP/IPv6 with a tag
        Flow { id: 6, vlans: vec![], ipv6: false, ip_options: vec![], udp: true, tcp_options: vec![], seq: 0, sizes: vec![0, 1, 18, 1472, 4000, 8900] },
        Flow { id: 7, vlans: vec![(vlan::TPID_CTAG, 0x0007)], ipv6: false, ip_options: router_alert.clone(), udp: true, tcp_options: vec![], seq: 0, sizes: vec![33, 1000] },
        Flow { id: 8, vlans: vec![(vlan::TPID_CTAG, 0x0008)], ipv6: true, ip_options: vec![], udp: true, tcp_options: vec![], seq: 0, sizes: vec![0, 555, 3000] },
    ];
    // the largest TSO requests the IP length fields allow: IPv4 with options and a tag, IPv6
    f.push(Flow { id: 9, vlans: vec![(vlan::TPID_CTAG, 0x0009)], ipv6: false, ip_options: router_alert, udp: false, tcp_options: sack, seq: 9, sizes: vec![] });
    f.push(Flow { id: 10, vlans: vec![], ipv6: true, ip_options: vec![], udp: false, tcp_options: vec![], seq: 10, sizes: vec![] });
    for fl in &mut f[8..] {
        let m = big(fl.header_room());
        fl.sizes = vec![m, 2000, m];
    }
    f
}

fn nic(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nic")).args(args).output().expect("run nic");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let mut w = pcap::PcapWriter::new(std::fs::File::create(path).unwrap(), pcap::LINKTYPE_ETHERNET).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 * 1000, f).unwrap();
    }
}

/// The flow a frame belongs to (its source MAC's last byte).
fn flow_of(f: &[u8]) -> u8 {
    f[11]
}

/// Per flow, the frames that left (`got`, without FCS) are `want` padded to 60 bytes,
/// in the same order (the queues may interleave flows, never reorder one).
fn same_per_flow(flows: &[Flow], want: &[Vec<u8>], got: &[Vec<u8>], what: &str) {
    for id in flows.iter().map(|f| f.id) {
        let sent: Vec<Vec<u8>> = want.iter().filter(|f| flow_of(f) == id).map(|f| fcs::padded(f)).collect();
        let left: Vec<&Vec<u8>> = got.iter().filter(|f| flow_of(f) == id).collect();
        assert_eq!(left.len(), sent.len(), "{what}, flow {id}: frames");
        for (k, (a, b)) in sent.iter().zip(left).enumerate() {
            assert!(a == b, "{what}, flow {id}, frame {k}: {} bytes expected, {} bytes left, first difference at {:?}", a.len(), b.len(), a.iter().zip(b.iter()).position(|(x, y)| x != y));
        }
    }
}

#[test]
fn sim_tx_offloads_judged_by_tshark() {
    let flows = flows();
    let mut handed = Vec::new();
    let mut wire_ready = Vec::new();
    // interleave the flows packet by packet, as several senders would
    let per_flow: Vec<Vec<(Vec<u8>, Vec<Vec<u8>>)>> = flows.iter().map(Flow::packets).collect();
    for i in 0..per_flow.iter().map(Vec::len).max().unwrap() {
        for p in &per_flow {
            if let Some((h, w)) = p.get(i) {
                handed.push(h.clone());
                wire_ready.extend(w.iter().cloned());
            }
        }
    }
    let (mut ipv4_frames, mut tcp_frames, mut udp_frames) = (0, 0, 0);
    for fl in &flows {
        let frames: usize = fl.sizes.iter().map(|&s| if fl.udp { 1 } else { s.div_ceil(MSS).max(1) }).sum();
        ipv4_frames += if fl.ipv6 { 0 } else { frames };
        if fl.udp {
            udp_frames += frames;
        } else {
            tcp_frames += frames;
        }
    }
    assert_eq!(wire_ready.len(), tcp_frames + udp_frames);
    let tso_requests = flows.iter().filter(|f| !f.udp).flat_map(|f| &f.sizes).filter(|&&s| s > MSS).count();
    let bytes_in: usize = handed.iter().map(Vec::len).sum();
    assert!(handed.iter().any(|h| h.len() > 65_000), "a 64 KiB TSO request is in the input");

    let dir = std::env::temp_dir().join(format!("nic-sim-tx-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.pcap"), dir.join("out.pcap"));
    write_pcap(&input, &handed);

    // the input really leaves the checksums to the NIC: tshark finds every one bad
    let v_in = tshark_checksum_verdicts(&input).expect("tshark is installed by `make setup`").unwrap();
    assert_eq!(v_in.iter().filter(|v| v.tcp == Some(false) || v.udp == Some(false)).count(), handed.len(), "input L4 checksums: {v_in:?}");

    let t = Instant::now();
    let (code, out, err) = nic(&["sim", "tx", "--pcap", input.to_str().unwrap(), "--wire", output.to_str().unwrap(), "--csum", "--tso-mss", "1448", "--queues", "4", "--config", "full"]);
    eprintln!("nic sim tx: {} frames, {} bytes in {:.1} s\n{out}{err}", handed.len(), bytes_in, t.elapsed().as_secs_f64());
    assert_eq!(code, 0, "nic sim tx failed:\n{out}\n{err}");
    for needle in [
        format!("{} with a TSO request (mss 1448)", tso_requests),
        format!("{} on the wire, {} of them TSO segments", wire_ready.len(), wire_ready.len() - (handed.len() - tso_requests)),
        "0 requests refused".to_string(),
        "golden model:     agrees".to_string(),
        "every FCS good".to_string(),
    ] {
        assert!(out.contains(&needle), "the summary lacks `{needle}`:\n{out}");
    }
    let per_queue: Vec<usize> = out.split("frames per queue: ").nth(1).and_then(|r| r.split(')').next()).expect("frames per queue in the summary").split(", ").map(|n| n.parse().unwrap()).collect();
    assert_eq!(per_queue.len(), 4);
    assert_eq!(per_queue.iter().sum::<usize>(), handed.len());
    assert!(per_queue.iter().filter(|&&n| n > 0).count() >= 2, "the flows spread over the queues: {per_queue:?}");
    let got = pcap::read_file(&output).unwrap();
    assert_eq!(got.len(), wire_ready.len(), "frames on the wire");

    // tshark: every checksum verified good, counted per kind
    let v = tshark_checksum_verdicts(&output).unwrap().unwrap();
    assert_eq!(v.len(), got.len());
    let count = |f: &dyn Fn(&pcap::TsharkCsum) -> Option<bool>, want: bool| v.iter().filter(|c| f(c) == Some(want)).count();
    let (ip_good, tcp_good, udp_good) = (count(&|c| c.ip, true), count(&|c| c.tcp, true), count(&|c| c.udp, true));
    let (ip_bad, tcp_bad, udp_bad) = (count(&|c| c.ip, false), count(&|c| c.tcp, false), count(&|c| c.udp, false));
    eprintln!("tshark: IPv4 {ip_good} good / {ip_bad} bad, TCP {tcp_good} / {tcp_bad}, UDP {udp_good} / {udp_bad}");
    assert_eq!((ip_bad, tcp_bad, udp_bad), (0, 0, 0), "bad checksums on the wire");
    assert_eq!((ip_good, tcp_good, udp_good), (ipv4_frames, tcp_frames, udp_frames), "checksums tshark verified (IPv4, TCP, UDP)");

    // tshark's TCP segments: at most one MSS each, in order per flow, streams intact
    let segs = tshark_tcp_payloads(&output).unwrap().unwrap();
    assert_eq!(segs.len(), got.len());
    assert_eq!(segs.iter().flatten().count(), tcp_frames);
    for fl in flows.iter().filter(|f| !f.udp) {
        let mine: Vec<&pcap::TsharkTcp> = got.iter().zip(&segs).filter(|(f, _)| flow_of(f) == fl.id).map(|(_, s)| s.as_ref().expect("a TCP segment")).collect();
        for s in &mine {
            assert!(s.payload.len() <= MSS, "flow {}: a {}-byte segment", fl.id, s.payload.len());
        }
        let offsets: Vec<u32> = mine.iter().map(|s| s.seq.wrapping_sub(fl.seq)).collect();
        assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "flow {}: segments out of order on the wire: {offsets:?}", fl.id);
        let stream = tcp_reassemble(mine.iter().map(|s| (s.seq, &s.payload[..]))).unwrap_or_else(|e| panic!("flow {}: {e}", fl.id));
        assert!(stream == fl.stream(), "flow {}: reassembled {} bytes differ from the {} sent", fl.id, stream.len(), fl.stream().len());
    }
    // byte for byte, in order per flow: the segments a stack would have sent itself
    same_per_flow(&flows, &wire_ready, &got, "offload run");

    // control: the same traffic segmented with correct checksums, no offload
    let (ctrl_in, ctrl_out) = (dir.join("control-in.pcap"), dir.join("control-out.pcap"));
    write_pcap(&ctrl_in, &wire_ready);
    let t = Instant::now();
    let (code, out, err) = nic(&["sim", "tx", "--pcap", ctrl_in.to_str().unwrap(), "--wire", ctrl_out.to_str().unwrap(), "--queues", "4", "--config", "full"]);
    eprintln!("control: {:.1} s\n{out}{err}", t.elapsed().as_secs_f64());
    assert_eq!(code, 0, "control run failed:\n{out}\n{err}");
    assert!(out.contains("0 with a checksum request, 0 with a TSO request"), "{out}");
    let ctrl = pcap::read_file(&ctrl_out).unwrap();
    assert_eq!(ctrl.len(), wire_ready.len());
    same_per_flow(&flows, &wire_ready, &ctrl, "control run");
    std::fs::remove_dir_all(&dir).ok();
}
