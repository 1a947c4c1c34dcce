//! The `nic` binary end to end: outputs, exit codes and messages.

use std::process::Command;

fn nic(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nic")).args(args).output().expect("run nic");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nic-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn bad_arguments_say_what_is_wrong_and_fail() {
    for (args, needle) in [
        (vec!["sim", "loopback", "--frames", "10", "--size", "10..5"], "larger than MAX"),
        (vec!["sim", "loopback", "--frames", "10", "--size", "59..100"], "below the minimum"),
        (vec!["sim", "loopback", "--frames", "10", "--size", "60..9019"], "above the maximum"),
        (vec!["sim", "loopback", "--frames", "0"], "--frames"),
        (vec!["sim", "loopback", "--frames", "ten"], "--frames"),
        (vec!["sim", "loopback"], "--frames"),
        (vec!["sim", "loopback", "--frames", "1", "--config", "huge"], "--config"),
        (vec!["sim", "loopback", "--frames", "1", "--backpressure", "2"], "probability"),
        (vec!["verilog", "--config", "small"], "--out"),
        (vec!["tap", "--names", "nic0"], "separated by a comma"),
        (vec!["tap", "--names", "nic0,nic0"], "both interfaces are named"),
        (vec!["tap", "--names", "nic0,a-name-far-too-long"], "1 to 15 bytes"),
        (vec!["tap", "--names", "nic0,nic1", "--stats-every", "0"], "not in 0.05..=3600"),
        (vec!["synth", "--target", "ecp5-45k", "--out", "/tmp/nic-synth-bad"], "unknown target"),
        (vec!["synth", "--target", "ecp5-85k", "--freq", "0", "--out", "/tmp/nic-synth-bad"], "out of range"),
        (vec!["synth", "--target", "ice40-hx8k"], "--out"),
        (vec!["synth", "--target", "ice40-hx8k", "--config", "full", "--out", "/tmp/nic-synth-bad"], "does not fit an iCE40"),
        (vec!["synth", "--target", "ice40-up5k", "--config", "full", "--out", "/tmp/nic-synth-bad"], "does not fit an iCE40"),
        (vec!["sim", "board", "--board", "ice40", "--wave", "/tmp/nic-bad.fst"], "not traced"),
        (vec!["sim", "board", "--board", "de0-nano"], "--board"),
        (vec!["sim", "rx", "--pcap", "/nonexistent.pcap", "--out", "/tmp/nic-rx-bad"], "reading /nonexistent.pcap"),
        (vec!["sim", "rx", "--pcap", "x.pcap", "--out", "/tmp/nic-rx-bad", "--rss-key", "6d5a"], "80 hex digits"),
        (vec!["sim", "rx", "--pcap", "x.pcap", "--out", "/tmp/nic-rx-bad", "--rss-types", "tcp"], "unknown hash type"),
        (vec!["sim", "rx", "--pcap", "x.pcap", "--out", "/tmp/nic-rx-bad", "--mac", "02:00:00:00:00"], "not a MAC address"),
        (vec!["sim", "rx", "--pcap", "x.pcap", "--out", "/tmp/nic-rx-bad", "--queues", "9"], "--queues"),
        (vec!["sim", "tx", "--pcap", "/nonexistent.pcap", "--wire", "/tmp/nic-tx-bad.pcap"], "reading /nonexistent.pcap"),
        (vec!["sim", "tx", "--pcap", "x.pcap", "--wire", "/tmp/nic-tx-bad.pcap", "--tso-mss", "0"], "--tso-mss"),
        (vec!["sim", "tx", "--pcap", "x.pcap", "--wire", "/tmp/nic-tx-bad.pcap", "--tso-mss", "many"], "not a number"),
        (vec!["sim", "tx", "--pcap", "x.pcap", "--wire", "/tmp/nic-tx-bad.pcap", "--queues", "9"], "--queues"),
        (vec!["sim", "tx", "--pcap", "x.pcap", "--wire", "/tmp/nic-tx-bad.pcap", "--queues", "2", "--config", "small"], "small configuration has 1 TX queue"),
        (vec!["sim", "tx", "--pcap", "x.pcap"], "--wire"),
    ] {
        let (code, out, err) = nic(&args);
        assert_ne!(code, 0, "{args:?} succeeded: {out}");
        assert!(err.contains(needle), "{args:?}: stderr does not mention `{needle}`:\n{err}");
    }
}

/// The iCE40 board's core in Verilator, driven by the driver over the simulated UART: the
/// frames sent come back through the looped wire, byte for byte.
#[test]
fn sim_board_ice40_loops_frames_back() {
    let (code, out, err) = nic(&["sim", "board", "--board", "ice40", "--frames", "5", "--size", "60..300"]);
    assert_eq!(code, 0, "{err}");
    for needle in ["host link: NICL protocol 1", "1 TX / 1 RX queues", "loop: 5 frames", "byte for byte", "rx_frames 5 tx_frames 5"] {
        assert!(out.contains(needle), "output lacks `{needle}`:\n{out}");
    }
}

#[test]
fn regmap_writes_the_generated_docs() {
    let d = tmpdir("regmap");
    let (code, _, err) = nic(&["regmap", "--out", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(d.join("regmap.md")).unwrap(), nic_regmap::render_markdown());
    assert_eq!(std::fs::read_to_string(d.join("nic_regs.h")).unwrap(), nic_regmap::render_c_header());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn verilog_writes_nic_top() {
    let d = tmpdir("verilog");
    let (code, _, err) = nic(&["verilog", "--config", "small", "--out", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v = std::fs::read_to_string(d.join("nic_top.v")).unwrap();
    assert!(v.contains("module nic_top("), "no nic_top module in nic_top.v");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_loopback_reports_rates() {
    for backend in ["model", "rtl"] {
        let (code, out, err) = nic(&["sim", "loopback", "--frames", "50", "--size", "60..2000", "--segments", "3", "--backend", backend]);
        assert_eq!(code, 0, "{backend}: {err}");
        // the default configuration, small, is measured against its own wire and clock
        for needle in ["50 sent, 50 received", "cycles per frame", "frames/s", "of 1 GbE", "1 GbE at 41.67 MHz", "simulation speed"] {
            assert!(out.contains(needle), "{backend}: output lacks `{needle}`:\n{out}");
        }
    }
}

#[test]
fn bench_json_has_every_size() {
    let (code, out, err) = nic(&["bench", "loopback", "--backend", "model", "--frames", "50", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(frame_sizes(&out), [64, 128, 512, 1518, 9018], "{out}");
}

/// `nic bench rx` checks every frame's classification against what the build's
/// FEATURES say (checksums good and a TCP/IPv4 hash on `full`; "not checked" and no
/// hash on `small`, which has neither), on both configurations.
#[test]
fn bench_rx_runs_on_both_configurations() {
    for config in ["small", "full"] {
        let (code, out, err) = nic(&["bench", "rx", "--config", config, "--frames", "40", "--json"]);
        assert_eq!(code, 0, "{config}: {err}");
        let sizes = frame_sizes(&out);
        for size in [64, 65, 1518, 9018] {
            assert!(sizes.contains(&size), "{config}: no {size}-byte row in {out}");
        }
    }
}

/// The `frame_bytes` of every row of a bench's `--json` output (parsed with serde_json).
fn frame_sizes(out: &str) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    v["results"].as_array().unwrap_or_else(|| panic!("no results array: {out}")).iter().map(|r| r["frame_bytes"].as_u64().expect("frame_bytes")).collect()
}

/// One field of one JSON line, as text: a string's contents, `null`, or the number or
/// boolean as JSON writes it.
fn field(line: &str, key: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    match &v[key] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null if v.get(key).is_none() => panic!("no {key} in {line}"),
        other => other.to_string(),
    }
}

#[test]
fn sim_rx_reports_every_frame_as_the_model_classifies_it() {
    use nic_testbench::rxclass::{self, RxClassConfig};
    use nic_testbench::{pcap, rxgen};
    use rand::SeedableRng;
    let d = tmpdir("simrx");
    std::fs::create_dir_all(&d).unwrap();
    let ours = [0x02, 0x12, 0x34, 0x56, 0x78, 0x9a];
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let opts = rxgen::RxGenOptions { our_macs: vec![ours], p_short: 0.0, ..rxgen::RxGenOptions::default() };
    // as captured: frames shorter than 60 bytes stay short (the CLI pads them like a sender)
    let frames: Vec<Vec<u8>> = (0..40).map(|_| rxgen::random_frame(&mut rng, &opts)).collect();
    let input = d.join("in.pcap");
    let mut w = pcap::PcapWriter::new(std::fs::File::create(&input).unwrap(), pcap::LINKTYPE_ETHERNET).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64, f).unwrap();
    }
    drop(w);
    let out = d.join("out");
    let (code, stdout, err) = nic(&["sim", "rx", "--pcap", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "--queues", "4", "--mac", "02:12:34:56:78:9a"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("40 frames"), "{stdout}");
    let mut cfg = RxClassConfig::reset_default(4);
    cfg.promisc = false;
    cfg.exact[0] = rxclass::MacFilterEntry { addr: ours, enable: true, steer: false, queue: 0 };
    cfg.reta = std::array::from_fn(|j| (j % 4) as u8);
    let lines: Vec<String> = std::fs::read_to_string(out.join("rx.jsonl")).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), frames.len());
    let mut per_queue = vec![0usize; 4];
    for (i, (line, f)) in lines.iter().zip(&frames).enumerate() {
        let m = rxclass::classify(&cfg, &nic_testbench::fcs::padded(f));
        assert_eq!(field(line, "index"), i.to_string());
        assert_eq!(field(line, "accepted"), (m.drop == 0).to_string(), "frame {i}: {line} vs {m:?}");
        if m.drop == 0 {
            assert_eq!(field(line, "queue"), m.queue.to_string(), "frame {i}: {line}");
            assert_eq!(field(line, "rss_hash"), format!("{:08x}", m.hash), "frame {i}: {line}");
            let csum = |v: u8| ["not-checked", "good", "bad"][usize::from(v)];
            assert_eq!((field(line, "l3_csum").as_str(), field(line, "l4_csum").as_str()), (csum(m.l3_csum), csum(m.l4_csum)), "frame {i}: {line}");
            per_queue[m.queue as usize] += 1;
        } else {
            assert_eq!(field(line, "queue"), "null");
            assert!(field(line, "drop_reason").ends_with("_filter"), "frame {i}: {line}");
        }
    }
    for q in 0..4 {
        let got = pcap::read_file(&out.join(format!("queue-{q}.pcap"))).unwrap();
        assert_eq!(got.len(), per_queue[q], "queue-{q}.pcap");
    }
    assert!(per_queue.iter().filter(|&&n| n > 0).count() > 1, "RSS spread the flows: {per_queue:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Frames for `sim tx`: TCP or UDP over IPv4 with correct checksums, `payload` bytes.
fn ipv4_frame(udp: bool, port: u16, payload: usize) -> Vec<u8> {
    use nic_testbench::rxgen::{Fault, L3Spec, L4Spec, RxFrameSpec};
    use nic_testbench::wire::{ip::protocol, Ipv4Repr, TcpRepr, UdpRepr};
    let data: Vec<u8> = (0..payload).map(|i| (i * 7 + 3) as u8).collect();
    let (proto, l4) = if udp {
        (protocol::UDP, L4Spec::Udp { repr: UdpRepr { src_port: port, dst_port: 9 }, payload: data })
    } else {
        let repr = TcpRepr { src_port: port, dst_port: 9, seq_number: 1, ack_number: 1, flags: 0x10, window_len: 100, urgent_at: 0, options: vec![] };
        (protocol::TCP, L4Spec::Tcp { repr, payload: data })
    };
    let ip = Ipv4Repr::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), proto, 0);
    RxFrameSpec { dst: [2, 0, 0, 0, 0, 1], src: [2, 0, 0, 0, 0, 2], vlans: vec![], l3: L3Spec::Ipv4 { ip, l4 }, trailer: vec![], dirty_padding: false, min_len: 0, fault: Fault::None }.build()
}

/// A request the NIC refuses (a TSO segment over MAX_FRAME_LEN) is reported and the rest
/// goes out; `small`, which has no offload engine, refuses offload requests up front; a
/// frame too long to send at all is an error.
#[test]
fn sim_tx_reports_refusals_and_keeps_going() {
    let d = tmpdir("simtx");
    std::fs::create_dir_all(&d).unwrap();
    let frames = vec![ipv4_frame(false, 1, 10), ipv4_frame(false, 2, 9500), ipv4_frame(false, 3, 2500), ipv4_frame(true, 4, 0)];
    let input = d.join("in.pcap");
    nic_testbench::pcap::write_file(&input, &frames).unwrap();
    let wire = d.join("out.pcap");
    for backend in ["model", "rtl"] {
        let (code, out, err) = nic(&["sim", "tx", "--pcap", input.to_str().unwrap(), "--wire", wire.to_str().unwrap(), "--config", "full", "--csum", "--tso-mss", "9000", "--backend", backend]);
        assert_eq!(code, 0, "{backend}: {err}");
        eprintln!("{backend}:\n{out}");
        for needle in ["4 from", "3 with a checksum request, 1 with a TSO request (mss 9000), 0 as they were", "1 request refused", "frame 1: TSO segment (hdr_len + mss + FCS) over MAX_FRAME_LEN", "golden model:     agrees", "every FCS good"] {
            assert!(out.contains(needle), "{backend}: output lacks `{needle}`:\n{out}");
        }
        assert_eq!(nic_testbench::pcap::read_file(&wire).unwrap().len(), 3);
    }
    let (code, _, err) = nic(&["sim", "tx", "--pcap", input.to_str().unwrap(), "--wire", wire.to_str().unwrap(), "--config", "small", "--csum", "--backend", "model"]);
    assert!(code != 0 && err.contains("no TX offload engine"), "{err}");
    let (code, _, err) = nic(&["sim", "tx", "--pcap", input.to_str().unwrap(), "--wire", "/nonexistent-dir/out.pcap", "--backend", "model"]);
    assert!(code != 0 && err.contains("creating /nonexistent-dir/out.pcap"), "{err}");
    let long = d.join("long.pcap");
    nic_testbench::pcap::write_file(&long, &[ipv4_frame(false, 5, 9000)]).unwrap();
    let (code, _, err) = nic(&["sim", "tx", "--pcap", long.to_str().unwrap(), "--wire", wire.to_str().unwrap(), "--backend", "model"]);
    assert_ne!(code, 0);
    assert!(err.contains("frame 0 is 9054 bytes") && err.contains("--tso-mss"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `nic sim rdma` moves and checks the bytes, and its wire capture is RoCEv2 as
/// Wireshark's dissector reads it: per frame, tshark's BTH opcode, destination QP, PSN
/// and AckReq (and, from the RTL, RETH and AETH) equal the golden parse's. Bad
/// arguments fail with a message.
#[test]
fn sim_rdma_checks_bytes_and_writes_a_wire_tshark_decodes() {
    use nic_testbench::roce::RoceRepr;
    let dir = tmpdir("rdma");
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("wire.pcap");
    let (code, out, err) = nic(&["sim", "rdma", "--backend", "model", "--op", "read", "--size", "5000", "--count", "6", "--qps", "2", "--mtu", "1024", "--timeout", "14", "--wire", pcap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for needle in ["every byte checked: ok", "goodput", "doorbell to CQE", "RX_PACKETS 30", "timeout 640 << 14 cycles"] {
        assert!(out.contains(needle), "output lacks `{needle}`:\n{out}");
    }
    let frames = nic_testbench::pcap::read_file(&pcap).unwrap();
    // six READ requests and five responses each
    assert_eq!(frames.len(), 6 * 6, "{out}");
    let ours: Vec<String> = frames
        .iter()
        .map(|f| {
            let (r, _) = RoceRepr::parse_frame(&f[..f.len() - 4]).expect("a RoCEv2 frame");
            format!("{}\t{:#08x}\t{}\t{}", r.bth.opcode, r.bth.dest_qp, r.bth.psn, u8::from(r.bth.ack_req))
        })
        .collect();
    let fields = ["-T", "fields", "-E", "separator=\t", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn", "-e", "infiniband.bth.a"];
    let t = Command::new("tshark").arg("-r").arg(&pcap).args(fields).output().expect("tshark (make setup installs it)");
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let theirs: Vec<String> = String::from_utf8_lossy(&t.stdout).lines().map(|l| l.to_string()).collect();
    assert_eq!(theirs, ours, "tshark's BTH fields against the golden parse");

    // the RTL: WRITEs of 5000 bytes cut at 1024 (First, 3 Middle, Last), each message's
    // Last asking for the ACK that B's responder sends back; the RTL retransmits
    // (CAPS.RETRANSMIT), so `nic sim rdma` sets ACK_EVERY 4 and B also ACKs each
    // message's fourth packet: two ACKs a message
    let pcap = dir.join("wire-rtl.pcap");
    let (code, out, err) = nic(&["sim", "rdma", "--op", "write", "--size", "5000", "--count", "6", "--qps", "2", "--mtu", "1024", "--wire", pcap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for needle in ["Verilated RTL", "every byte checked: ok", "TX_PACKETS 30", "TX_ACKS 12", "ACK_EVERY 4"] {
        assert!(out.contains(needle), "output lacks `{needle}`:\n{out}");
    }
    let frames = nic_testbench::pcap::read_file(&pcap).unwrap();
    assert_eq!(frames.len(), 6 * 5 + 6 * 2, "{out}");
    let reprs: Vec<RoceRepr> = frames.iter().map(|f| RoceRepr::parse_frame(&f[..f.len() - 4]).expect("a RoCEv2 frame with a good ICRC").0).collect();
    assert_eq!(reprs.iter().filter(|r| r.reth.as_ref().is_some_and(|h| h.dma_len == 5000)).count(), 6, "one RETH of 5000 bytes per message");
    let ours: Vec<Vec<Option<u64>>> = reprs
        .iter()
        .map(|r| {
            let b = &r.bth;
            let mut v = vec![Some(u64::from(b.opcode)), Some(u64::from(b.dest_qp)), Some(u64::from(b.psn)), Some(u64::from(b.ack_req))];
            v.extend(match &r.reth {
                Some(h) => [Some(h.virtual_addr), Some(u64::from(h.rkey)), Some(u64::from(h.dma_len))],
                None => [None; 3],
            });
            v.extend(match &r.aeth {
                Some(h) => [Some(u64::from(h.syndrome.to_byte())), Some(u64::from(h.msn))],
                None => [None; 2],
            });
            v
        })
        .collect();
    let fields = [
        "-T", "fields", "-E", "separator=;", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn", "-e", "infiniband.bth.a", "-e", "infiniband.reth.va",
        "-e", "infiniband.reth.r_key", "-e", "infiniband.reth.dmalen", "-e", "infiniband.aeth.syndrome", "-e", "infiniband.aeth.msn",
    ];
    let t = Command::new("tshark").arg("-r").arg(&pcap).args(["--disable-protocol", "rpcordma"]).args(fields).output().expect("tshark (make setup installs it)");
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let num = |s: &str| -> Option<u64> {
        let s = s.trim();
        match s {
            "" => None,
            "True" => Some(1),
            "False" => Some(0),
            _ if s.starts_with("0x") => Some(u64::from_str_radix(&s[2..], 16).unwrap()),
            _ => Some(s.parse().unwrap_or_else(|_| panic!("tshark printed `{s}`"))),
        }
    };
    let theirs: Vec<Vec<Option<u64>>> = String::from_utf8_lossy(&t.stdout).lines().map(|l| l.split(';').map(num).collect()).collect();
    assert_eq!(theirs, ours, "tshark's BTH, RETH and AETH fields of the RTL's frames against the golden parse");

    for (args, needle) in [
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--mtu", "300"], "one of 256, 512"),
        (vec!["sim", "rdma", "--op", "fetch", "--size", "10"], "invalid value"),
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--config", "small"], "no RDMA engine"),
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--timeout", "0"], "not in 1..=31"),
    ] {
        let (code, _, err) = nic(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(needle), "{args:?}: stderr lacks `{needle}`:\n{err}");
    }
}

/// `nic sim rdma --attack KIND` on the RTL: each attack is refused with REM_ACCESS_ERR
/// and leaves the target's memory unchanged (exit 0, "target memory unchanged: yes"); a
/// wire that duplicates frames changes nothing delivered; bad impairment rates and an
/// attack beside a transfer's options are refused with a reason.
#[test]
fn sim_rdma_attacks_are_refused_and_impaired_wires_reported() {
    for kind in ["rkey", "pd", "range", "access", "dereg"] {
        let (code, out, err) = nic(&["sim", "rdma", "--attack", kind]);
        assert_eq!(code, 0, "--attack {kind}: {out}\n{err}");
        assert!(out.contains("RemAccessErr") && out.contains("target memory unchanged: yes") && !out.contains("unchanged: NO"), "--attack {kind}:\n{out}");
        assert!(out.contains("refused, memory unchanged: ok"), "--attack {kind}:\n{out}");
    }
    let (code, out, err) = nic(&["sim", "rdma", "--op", "write", "--size", "20000", "--count", "8", "--qps", "2", "--dup", "0.3", "--seed", "4"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("every byte checked: ok"), "{out}");
    let wire = out.lines().find(|l| l.contains("the wire:")).expect("the wire's line");
    let duplicated: u32 = wire.split(", ").find_map(|f| f.strip_suffix(" duplicated")).and_then(|n| n.parse().ok()).expect("N duplicated");
    assert!(duplicated > 10, "{wire}");
    assert!(out.contains("RX_DUPLICATES"), "the target saw duplicates:\n{out}");
    for (args, needle) in [
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--loss", "1.5"], "not a rate"),
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--dup", "x"], "not a number"),
        (vec!["sim", "rdma", "--attack", "rkey", "--op", "write"], "cannot be used with"),
        (vec!["sim", "rdma", "--attack", "everything"], "invalid value"),
        (vec!["sim", "rdma", "--op", "write", "--size", "10", "--cut-at", "5"], "--cut-for"),
    ] {
        let (code, _, err) = nic(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(needle), "{args:?}: stderr lacks `{needle}`:\n{err}");
    }
}
