//! `nic tap` with the Linux kernel on both ends: two network namespaces joined only
//! through two simulated NICs (the RTL, through the driver). The kernels ping each
//! other over IPv4 and IPv6 and move TCP streams both ways, checked by SHA-256 on
//! both ends; then every counter is compared at a quiet moment: what each kernel says
//! it sent and received, what the bridge took and handed over, what each NIC counted
//! in hardware, and what crossed the wire. Needs root (CI runs as root); elsewhere the
//! test says it skipped, and under CI it fails instead.

use nic_testbench::netns::{self, hex, tcp_transfer};
use nic_testbench::tap_session::TapSession;
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn privileged(test: &str) -> bool {
    netns::privileged_or_skip(test)
}

fn nic() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_nic"))
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.gen()).collect()
}

#[test]
fn kernel_traffic_crosses_the_rtl_with_its_offloads() {
    if !privileged("kernel_traffic_crosses_the_rtl_with_its_offloads") {
        return;
    }
    let prefix = format!("nt{}", std::process::id() % 100_000);
    let mut s = TapSession::start(nic(), &prefix, 1, &["--config", "full", "--stats-every", "0.25"], Duration::from_secs(600)).expect("nic tap comes up");

    // IPv4 and IPv6 both ways (ARP, neighbour discovery and ICMP through the RTL)
    for (from, to) in [(0, 1), (1, 0)] {
        s.ns[from].ping(&s.v4[to], 3).expect("IPv4 ping");
        s.ns[from].ping(&s.v6[to], 3).expect("IPv6 ping");
    }

    // 8 MiB over TCP/IPv4 from A to B, 2 MiB over TCP/IPv6 from B to A
    let timeout = Duration::from_secs(300);
    let to_b: SocketAddr = format!("{}:5201", s.v4[1]).parse().unwrap();
    let t4 = tcp_transfer(&s.ns[1], to_b, &s.ns[0], random_bytes(8 << 20, 1), timeout).expect("TCP/IPv4 transfer");
    assert_eq!((t4.received_len, hex(&t4.received_sha256)), (8 << 20, hex(&t4.sent_sha256)), "TCP/IPv4: B must receive exactly what A sent");
    let to_a: SocketAddr = format!("[{}]:5202", s.v6[0]).parse().unwrap();
    let t6 = tcp_transfer(&s.ns[0], to_a, &s.ns[1], random_bytes(2 << 20, 2), timeout).expect("TCP/IPv6 transfer");
    assert_eq!((t6.received_len, hex(&t6.received_sha256)), (2 << 20, hex(&t6.sent_sha256)), "TCP/IPv6: A must receive exactly what B sent");

    let (kernel, c) = s.quiet_snapshot(Duration::from_secs(120)).expect("a quiet moment");
    for (i, p) in ["a", "b"].iter().enumerate() {
        let other = ["b", "a"][i];
        let k = |name: &str| c.get(&format!("{p}.{name}"));
        // nothing was refused or lost anywhere
        for zero in ["malformed", "refused", "nic_tx_errors", "nic_tx_offload_errors", "nic_rx_drops", "nic_rx_csum_l4_bad"] {
            assert_eq!(k(zero), 0, "{p}.{zero}");
        }
        // what the kernel says it sent is what the bridge took from it
        assert_eq!(kernel[i].tx_packets, k("kernel_tx_frames"), "{p}: frames the kernel sent");
        assert_eq!(kernel[i].tx_bytes, k("kernel_tx_bytes"), "{p}: bytes the kernel sent");
        // the NIC sent each frame once, a TSO super-frame as its segments
        assert_eq!(k("nic_tx_frames"), k("kernel_tx_frames") - k("tso_frames") + k("nic_tx_tso_segments"), "{p}: frames NIC sent");
        assert_eq!(k("wire_tx_frames"), k("nic_tx_frames"), "{p}: frames on the wire");
        // the other NIC received all of them, and its kernel got each one
        assert_eq!(c.get(&format!("{other}.nic_rx_frames")), k("nic_tx_frames"), "{other}: frames received");
        // (those that arrived while the interface was still down, before the test set
        // it up, the kernel refused, as it drops what a NIC receives while down)
        assert_eq!(kernel[i].rx_packets, k("kernel_rx_frames"), "{p}: frames handed to the kernel");
        assert_eq!(k("nic_rx_frames"), k("kernel_rx_frames") + k("kernel_rx_refused"), "{p}: frames the NIC received");
        assert!(k("kernel_rx_refused") < 10, "{p}: {} frames refused by a kernel whose interface was up", k("kernel_rx_refused"));
        assert_eq!(kernel[i].rx_bytes, k("kernel_rx_bytes"), "{p}: bytes the kernel received");
        assert_eq!(k("nic_rx_bytes"), k("kernel_rx_bytes") + k("kernel_rx_refused_bytes"), "{p}: bytes the NIC received");
        // the NIC verified the TCP checksums and the kernel was told
        assert!(k("data_valid") > 0, "{p}: no frame went up with DATA_VALID");
    }
    // the kernels used the offloads: super-frames larger than the MTU, cut by the NIC
    // into more segments than there were super-frames, both ways
    for p in ["a", "b"] {
        let k = |name: &str| c.get(&format!("{p}.{name}"));
        assert!(k("tso_frames") > 0, "{p}: the kernel sent no TSO super-frame");
        assert!(k("tso_largest") > 1514, "{p}: largest super-frame {} bytes, not beyond a 1500-byte MTU", k("tso_largest"));
        assert!(k("nic_tx_tso_segments") > k("tso_frames"), "{p}: TSO segments");
        assert!(k("csum_frames") > 0, "{p}: no checksum offload request");
    }
    let bytes_through = c.get("b.kernel_rx_bytes");
    assert!(bytes_through >= 8 << 20, "{bytes_through} bytes reached B's kernel, less than the transfer");

    let names = s.names.clone();
    let ns_names = [s.ns[0].name().to_string(), s.ns[1].name().to_string()];
    let (status, summary, transcript) = s.stop(Duration::from_secs(60)).expect("nic tap stops");
    assert!(status.success(), "nic tap exited with {status}:\n{}", transcript.join("\n"));
    let summary = summary.expect("a summary line");
    assert!(summary.get("a.nic_tx_frames") >= c.get("a.nic_tx_frames"));
    // the interfaces went with the process
    for (n, ns) in names.iter().zip(&ns_names) {
        let out = Command::new("ip").args(["-n", ns, "link", "show", n]).output().unwrap();
        assert!(!out.status.success(), "{n} still exists in {ns} after nic tap ended");
    }
}

#[test]
fn without_net_admin_it_says_so_and_exits_2() {
    if !privileged("without_net_admin_it_says_so_and_exits_2") {
        return;
    }
    // the same binary as an unprivileged user (nobody), no capabilities
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"])
        .arg(nic())
        .args(["tap", "--names", "ntperm0,ntperm1", "--backend", "model"])
        .output()
        .expect("setpriv (util-linux) runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit status; stderr: {stderr}");
    assert!(stderr.contains("CAP_NET_ADMIN"), "the message names what is missing: {stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ready"));
}
