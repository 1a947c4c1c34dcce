//! `nic rdma-perf` on a real Linux network: two processes, each one simulated `full`
//! NIC (the RTL, through the driver) behind a TAP, the TAPs in two namespaces joined by
//! kernel bridges and a veth pair. perftest's connection exchange runs over TCP through
//! both NICs' Ethernet paths and the hosts' own stacks, then WRITE, READ and SEND runs
//! through the RDMA engines, every landed byte checked by the side it landed on; then
//! each side's counters are compared with the other's. And the bad peers: malformed QP
//! information, a peer that closes early, one that never answers, no peer at all, each
//! a clear error and a non-zero exit within its bounded wait.
//!
//! Needs root (CI runs as root); elsewhere the tests say they skipped, and under CI
//! they fail instead.

use nic_testbench::netns;
use nic_testbench::rdma_perf_session::{PerfExit, PerfProcess, RdmaNet};
use nic_testbench::tap_session::Counters;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

fn privileged(test: &str) -> bool {
    netns::privileged_or_skip(test)
}

fn nic() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_nic"))
}

const READY: Duration = Duration::from_secs(120);
const RUN: Duration = Duration::from_secs(600);

/// Runs a server and a client with `args` on both, each capturing its wire; returns
/// their exits.
fn pair(net: &RdmaNet, tag: &str, args: &[&str]) -> (PerfExit, PerfExit) {
    // both sides' captures, for a failure to be looked into
    let dir = std::env::temp_dir();
    let (s_pcap, c_pcap) = (dir.join(format!("{tag}s.pcap")).display().to_string(), dir.join(format!("{tag}c.pcap")).display().to_string());
    eprintln!("captures: {s_pcap} {c_pcap}");
    net.run_pair(nic(), tag, args, &["--pcap", &s_pcap], &["--pcap", &c_pcap], RUN).expect("the server and the client run to their ends")
}

fn summary(e: &PerfExit, who: &str) -> Counters {
    assert!(e.status.success(), "the {who} failed ({}):\n{}", e.status, e.text());
    e.summary.clone().unwrap_or_else(|| panic!("the {who} printed no summary:\n{}", e.text()))
}

/// What one side sent the other received, frame by frame and byte by byte (a frame
/// the client sent before its TAP was up is refused by its kernel and reaches no one),
/// and the engines' counts agree: every RoCE packet one sent, the other accepted.
fn counters_agree(s: &Counters, c: &Counters, ctx: &str) {
    for (from, to, names) in [(s, c, ("server", "client")), (c, s, ("client", "server"))] {
        assert_eq!(from.get("wire_out_frames"), to.get("wire_in_frames"), "{ctx}: frames from the {} to the {}", names.0, names.1);
        assert_eq!(from.get("wire_out_bytes"), to.get("wire_in_bytes"), "{ctx}: bytes from the {} to the {}", names.0, names.1);
        assert_eq!(from.get("rdma_tx_packets"), to.get("rdma_rx_packets"), "{ctx}: RoCE packets from the {} to the {}", names.0, names.1);
        assert_eq!(from.get("rdma_tx_bytes"), to.get("rdma_rx_bytes"), "{ctx}: RoCE payload bytes from the {} to the {}", names.0, names.1);
        // each NIC sent what its host gave it and delivered all it took in
        assert_eq!(from.get("nic_tx_frames"), from.get("wire_out_frames") + from.get("wire_out_refused"), "{ctx}: the {}'s NIC TX against its wire", names.0);
        assert_eq!(from.get("nic_tx_frames"), from.get("stack_tx_frames") + from.get("rdma_tx_packets"), "{ctx}: the {}'s NIC TX = its stack's frames + its engine's packets", names.0);
        assert_eq!(from.get("wire_in_frames"), from.get("nic_rx_frames") + from.get("rdma_rx_packets") + from.get("nic_rx_drops"), "{ctx}: the {}'s wire in = Ethernet RX + RoCE", names.0);
        assert_eq!(from.get("nic_rx_frames"), from.get("stack_rx_frames"), "{ctx}: the {}'s Ethernet RX reached its stack", names.0);
        for k in ["nic_rx_drops", "wire_in_malformed", "rdma_rx_drop_icrc", "rdma_rx_drop_malformed", "rdma_rx_drop_qp", "rdma_rx_drop_psn", "rdma_rx_drop_nobuf", "rdma_rx_drop_state", "rdma_tx_naks", "rdma_cq_overflows"] {
            assert_eq!(from.get(k), 0, "{ctx}: the {}'s {k}", names.0);
        }
    }
}

#[test]
fn perftest_runs_between_two_simulated_hosts_across_kernel_bridges() {
    if !privileged("perftest_runs_between_two_simulated_hosts_across_kernel_bridges") {
        return;
    }
    let prefix = format!("rp{}", std::process::id() % 100_000);
    let net = RdmaNet::create(&prefix, 78, false).expect("namespaces and bridges");
    // (op, size, iters, extra): sizes below and above half a page (perftest's cycle
    // buffer walk, and all at one address), path MTUs 1024 and 4096, one and two QPs
    let runs: [(&str, u32, u32, &[&str]); 3] = [
        ("write", 1000, 100, &["--qps", "2"]),
        ("read", 65536, 20, &["--mtu", "4096"]),
        ("send", 65536, 30, &["--qps", "2", "--tx-depth", "16"]),
    ];
    for (k, (op, size, iters, extra)) in runs.iter().enumerate() {
        let (size_s, iters_s) = (size.to_string(), iters.to_string());
        let mut args = vec!["--op", op, "--size", &size_s, "--iters", &iters_s];
        args.extend_from_slice(extra);
        let (s, c) = pair(&net, &format!("{prefix}{k}"), &args);
        let (ss, cs) = (summary(&s, "server"), summary(&c, "client"));
        let ctx = format!("{op} {size} B x {iters}");
        counters_agree(&ss, &cs, &ctx);
        let qps = if extra.contains(&"--qps") { 2 } else { 1 };
        let total = u64::from(*size) * u64::from(*iters) * qps;
        // every message's payload crossed once (no retransmission on a clean bridge)
        let (payload_from, payload_to) = if *op == "read" { (&ss, &cs) } else { (&cs, &ss) };
        assert_eq!(payload_from.get("rdma_tx_bytes"), total, "{ctx}: payload bytes sent");
        assert_eq!(payload_to.get("rdma_rx_bytes"), total, "{ctx}: payload bytes accepted");
        assert_eq!(cs.get("rdma_tx_retries") + ss.get("rdma_tx_retries"), 0, "{ctx}: no retransmission");
        // the checks of what landed: READs on the client, each as it completes; SENDs on
        // the server, each as it completes; WRITEs on the server, every reached offset
        match *op {
            "read" => assert_eq!(cs.get("verified_bytes"), total, "{ctx}: every READ checked"),
            "send" => assert_eq!(ss.get("verified_bytes"), total, "{ctx}: every SEND checked"),
            _ => assert!(ss.get("verified_bytes") >= u64::from(*size) * qps, "{ctx}: the WRITE target checked"),
        }
        // perftest's table on both sides, the client's figures on both
        let row = |e: &PerfExit| e.transcript.iter().find(|l| l.starts_with(&format!(" {size} "))).cloned();
        let crow = row(&c).unwrap_or_else(|| panic!("{ctx}: no result row from the client:\n{}", c.text()));
        assert!(c.text().contains("BW average[MiB/sec]"), "{ctx}: perftest's header:\n{}", c.text());
        assert!(crow.split_whitespace().nth(1) == Some(&(u64::from(*iters) * qps).to_string()), "{ctx}: iterations column: {crow}");
        if *op != "send" {
            assert_eq!(row(&s), Some(crow.clone()), "{ctx}: perftest's server prints the client's figures");
        }
        let bw: f64 = crow.split_whitespace().nth(3).and_then(|v| v.parse().ok()).unwrap_or(0.0);
        assert!(bw > 0.0 && bw <= 10e9 / 8.0 / 1_048_576.0 * 1.001, "{ctx}: {bw} MiB/s in simulated time must be positive and within 10 GbE");
    }

    // latency: one 64-byte READ at a time, perftest's latency table
    let (s, c) = pair(&net, &format!("{prefix}l"), &["--op", "read", "--size", "64", "--iters", "20", "--lat"]);
    let (ss, cs) = (summary(&s, "server"), summary(&c, "client"));
    counters_agree(&ss, &cs, "read 64 B latency");
    assert_eq!(cs.get("verified_bytes"), 20 * 64, "every READ of the latency run checked");
    assert!(c.text().contains("t_typical[usec]") && c.text().contains("99.9% percentile[usec]"), "perftest's latency header:\n{}", c.text());
    let row = c.transcript.iter().find(|l| l.starts_with(" 64 ")).unwrap_or_else(|| panic!("no latency row:\n{}", c.text()));
    let v: Vec<f64> = row.split_whitespace().map(|t| t.parse().expect("numbers")).collect();
    assert_eq!((v.len(), v[1]), (9, 20.0), "bytes, iterations and seven figures: {row}");
    let (min, max, typical, avg, p99, p999) = (v[2], v[3], v[4], v[5], v[7], v[8]);
    // a READ's round trip through two NICs is at least a few hundred nanoseconds of
    // simulated time, and the order statistics are ordered
    assert!(min > 0.1 && min <= typical && typical <= max && min <= avg && avg <= max && p99 <= p999 && p999 <= max, "latency figures out of order: {row}");
}

/// A kernel-side peer on bridge A (10.<net>.0.100) doing `f` with the first connection.
fn fake_server(net: &RdmaNet, port: u16, f: impl FnOnce(TcpStream) -> std::io::Result<()> + Send + 'static) -> std::thread::JoinHandle<std::io::Result<()>> {
    let addr = format!("{}:{port}", net.host(100));
    net.ns[0].spawn(move || {
        let l = TcpListener::bind(&addr)?;
        let (s, _) = l.accept()?;
        s.set_read_timeout(Some(Duration::from_secs(120)))?;
        f(s)
    })
}

/// perftest's opening as a client of ours would see it: version, page size, cache line,
/// MTU, answered after reading each.
fn perftest_opening(s: &mut TcpStream) -> std::io::Result<()> {
    for mine in [&b"6.27\0\0\0\0\0\0\0\0\0\0\0\0"[..], &4096u32.to_be_bytes(), &64u32.to_be_bytes(), b"3\0"] {
        let mut theirs = vec![0u8; mine.len()];
        s.read_exact(&mut theirs)?;
        s.write_all(mine)?;
    }
    Ok(())
}

fn client_against(net: &RdmaNet, tap: &str, extra: &[&str]) -> PerfExit {
    let ip = format!("{}/24", net.host(2));
    let server = net.host(100);
    let mut args = vec!["--ip", &ip, "--client", &server, "--op", "write", "--size", "4096", "--iters", "4"];
    args.extend_from_slice(extra);
    let p = PerfProcess::start(nic(), tap, &args, READY).expect("the client comes up");
    net.attach(1, tap).expect("the client's TAP on bridge B");
    p.wait(Duration::from_secs(180)).expect("the client ends on its own: no hang")
}

fn assert_fails(e: &PerfExit, what: &str, needle: &str) {
    assert!(!e.status.success(), "{what}: must exit non-zero:\n{}", e.text());
    assert!(e.text().contains(needle), "{what}: the error must say `{needle}`:\n{}", e.text());
}

#[test]
fn bad_peers_get_clear_errors_and_no_hang() {
    if !privileged("bad_peers_get_clear_errors_and_no_hang") {
        return;
    }
    let prefix = format!("rq{}", std::process::id() % 100_000);
    // IPv6 on: the kernel pings the simulated host's link-local address below
    let net = RdmaNet::create(&prefix, 79, true).expect("namespaces and bridges");
    net.kernel_address(0, 100).expect("the kernel's address on bridge A");

    // malformed QP information after a correct opening
    let t = fake_server(&net, 18515, |mut s| {
        perftest_opening(&mut s)?;
        let mut key = [0u8; 108];
        s.read_exact(&mut key)?;
        let mut bad = [b'z'; 108];
        bad[107] = 0;
        s.write_all(&bad)?;
        std::thread::sleep(Duration::from_secs(2));
        Ok(())
    });
    let e = client_against(&net, &format!("{prefix}m"), &[]);
    assert_fails(&e, "malformed QP information", "malformed");
    t.join().unwrap().expect("the fake server ran");

    // a peer that closes after the version
    let t = fake_server(&net, 18516, |mut s| {
        let mut v = [0u8; 16];
        s.read_exact(&mut v)?;
        s.write_all(b"6.27\0\0\0\0\0\0\0\0\0\0\0\0")?;
        Ok(()) // dropped: closed
    });
    let e = client_against(&net, &format!("{prefix}c"), &["--port", "18516"]);
    assert_fails(&e, "a peer that closes early", "closed the connection");
    t.join().unwrap().expect("the fake server ran");

    // a peer that never answers
    let t = fake_server(&net, 18517, |mut s| {
        let mut v = [0u8; 16];
        s.read_exact(&mut v)?;
        std::thread::sleep(Duration::from_secs(15));
        Ok(())
    });
    let e = client_against(&net, &format!("{prefix}n"), &["--port", "18517", "--exchange-timeout", "4"]);
    assert_fails(&e, "a peer that never answers", "timed out after 4.0 s");
    t.join().unwrap().expect("the fake server ran");

    // a peer speaking something else than perftest
    let t = fake_server(&net, 18518, |mut s| {
        let mut v = [0u8; 16];
        s.read_exact(&mut v)?;
        s.write_all(b"SSH-2.0-OpenSSH\0")?;
        std::thread::sleep(Duration::from_secs(2));
        Ok(())
    });
    let e = client_against(&net, &format!("{prefix}v"), &["--port", "18518"]);
    assert_fails(&e, "a peer that is not perftest", "not a perftest peer");
    t.join().unwrap().expect("the fake server ran");

    // nobody at that address: ARP goes unanswered
    let ip = format!("{}/24", net.host(2));
    let p = PerfProcess::start(nic(), &format!("{prefix}x"), &["--ip", &ip, "--client", &net.host(99), "--connect-timeout", "3"], READY).expect("the client comes up");
    net.attach(1, &format!("{prefix}x")).expect("the client's TAP on bridge B");
    let e = p.wait(Duration::from_secs(120)).expect("the client ends on its own");
    assert_fails(&e, "no server", "timed out after 3.0 s waiting for the server");

    // a server whose client sends a malformed version string: the server refuses it
    let s_ip = format!("{}/24", net.host(1));
    let p = PerfProcess::start(nic(), &format!("{prefix}s"), &["--ip", &s_ip, "--server"], READY).expect("the server comes up");
    net.attach(0, &format!("{prefix}s")).expect("the server's TAP on bridge A");
    // the kernel finds the simulated host by ARP and by IPv6 neighbour discovery, and its
    // stack answers pings: all through the NIC's RX and TX paths
    let ping = |argv: &[&str], what: &str| {
        let out = net.ns[0].exec(argv).expect("ping runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success() && text.contains("3 received"), "{what}: {text}{}", String::from_utf8_lossy(&out.stderr));
    };
    ping(&["ping", "-c", "3", "-w", "30", "-i", "0.2", &net.host(1)], "IPv4 ping of the simulated host");
    let ll = p.transcript.iter().find_map(|l| l.split_whitespace().find_map(|t| t.strip_prefix("ip6="))).expect("`ready` names the link-local address").to_string();
    ping(&["ping", "-6", "-c", "3", "-w", "30", "-i", "0.2", &format!("{ll}%br0")], "IPv6 ping of the simulated host's link-local address");
    // and UDP: datagrams to its echo port come back, byte for byte
    let echo_to = format!("{}:7", net.host(1));
    let echoed = net.ns[0]
        .spawn(move || {
            let s = std::net::UdpSocket::bind("0.0.0.0:0")?;
            s.set_read_timeout(Some(Duration::from_secs(30)))?;
            let mut back = Vec::new();
            for k in 0..3u8 {
                let msg: Vec<u8> = (0..200 + usize::from(k) * 500).map(|i| (i as u8) ^ k).collect();
                s.send_to(&msg, &echo_to)?;
                let mut buf = [0u8; 2048];
                let (n, _) = s.recv_from(&mut buf)?;
                back.push((msg, buf[..n].to_vec()));
            }
            Ok(back)
        })
        .join()
        .unwrap()
        .expect("UDP echo answered");
    for (sent, got) in echoed {
        assert_eq!(got, sent, "the UDP echo of {} bytes", sent.len());
    }
    let to = format!("{}:18515", net.host(1));
    let t = net.ns[0].spawn(move || {
        let mut s = TcpStream::connect_timeout(&to.parse().unwrap(), Duration::from_secs(60))?;
        s.write_all(b"hello, world\0\0\0\0")?;
        std::thread::sleep(Duration::from_secs(2));
        Ok(())
    });
    let e = p.wait(Duration::from_secs(120)).expect("the server ends on its own");
    assert_fails(&e, "a client that is not perftest", "not a perftest peer");
    assert_eq!(e.summary.as_ref().map(|c| c.get("udp_echoed")), Some(3), "the server's count of UDP echoes");
    t.join().unwrap().expect("the fake client ran");
}

#[test]
fn without_privileges_it_says_so() {
    // as `nobody` without capabilities (setpriv), where available and we are root
    if !netns::have_privileges() || Path::new("/usr/bin/setpriv").metadata().is_err() {
        eprintln!("without_privileges_it_says_so: skipped (needs root and setpriv)");
        return;
    }
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"])
        .arg(nic())
        .args(["rdma-perf", "--tap", "rpnobody0", "--ip", "10.80.0.1/24", "--server"])
        .output()
        .expect("setpriv runs");
    assert_eq!(out.status.code(), Some(2), "exit status 2 without CAP_NET_ADMIN: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CAP_NET_ADMIN"));
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    for (args, needle) in [
        (&["--ip", "10.0.0.1", "--server"][..], "ADDR/PREFIX"),
        (&["--ip", "fe80::1/64", "--server"], "IPv4 only"),
        (&["--ip", "10.0.0.1/24", "--server", "--mtu", "1500"], "one of 256, 512, 1024, 2048, 4096"),
        (&["--ip", "10.0.0.1/24"], "--server"),
        (&["--ip", "10.0.0.1/24", "--server", "--size", "0"], "--size"),
        (&["--ip", "10.0.0.1/24", "--server", "--exchange-timeout=0"], "not in 0.1..=86400"),
        (&["--ip", "10.0.0.1/24", "--server", "--config", "small"], "only the full configuration"),
    ] {
        let out = std::process::Command::new(nic()).args(["rdma-perf", "--tap", "rpargs0"]).args(args).output().expect("nic runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} must fail");
        assert!(err.contains(needle), "{args:?}: the error must mention `{needle}`: {err}");
    }
}
