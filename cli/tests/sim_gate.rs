//! The RDMA engine's simulation clock gate (sim/build.rs `gate_blocks`): a `full` model
//! pulses the engine's clock only in a cycle where its state or one of its inputs moved.
//! Exact or not at all: each run below goes through the `nic` binary three times, with
//! the gate on (the default), off (the engine clocked every cycle), and in `check` mode
//! (clocked every cycle, and the process aborts at the first cycle where the engine
//! changed while the gate would have skipped it). The three reports must be the same,
//! cycle counts, latencies, counters and checked bytes included; only wall-clock lines
//! may differ. Loss, duplication and a protection attack bring the engine's timers,
//! retransmissions and error paths in; Ethernet loopback runs the engine beside traffic
//! it does not take.

use std::process::Command;

fn nic(gate: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nic")).env("NIC_SIM_GATE", gate).args(args).output().expect("run nic");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The report without its wall-clock figures (simulator speed, seconds of host time).
fn simulated(out: &str) -> String {
    out.lines().filter(|l| !l.contains("wall clock") && !l.contains("cycles/s") && !l.contains("wall-clock")).collect::<Vec<_>>().join("\n")
}

#[test]
fn rdma_engine_clock_gate_changes_nothing() {
    let runs: [&[&str]; 6] = [
        &["sim", "rdma", "--op", "write", "--size", "20000", "--count", "6", "--qps", "2"],
        &["sim", "rdma", "--op", "read", "--size", "9000", "--count", "4", "--qps", "3", "--mtu", "1024"],
        &["sim", "rdma", "--op", "send", "--size", "5000", "--count", "6", "--qps", "2", "--loss", "0.05", "--seed", "3", "--timeout", "3"],
        &["sim", "rdma", "--op", "write", "--size", "20000", "--count", "8", "--qps", "2", "--dup", "0.3", "--seed", "4"],
        &["sim", "rdma", "--attack", "rkey"],
        &["sim", "loopback", "--config", "full", "--frames", "300"],
    ];
    for args in runs {
        let mut reports = Vec::new();
        for gate in ["check", "off", "on"] {
            let (code, out, err) = nic(gate, args);
            assert_eq!(code, 0, "NIC_SIM_GATE={gate} nic {}:\n{out}\n{err}", args.join(" "));
            assert!(!err.contains("NIC_SIM_GATE=check"), "{err}");
            reports.push((gate, simulated(&out)));
        }
        let (_, first) = &reports[0];
        assert!(first.lines().count() > 3, "nic {}: a report too short to compare:\n{first}", args.join(" "));
        for (gate, r) in &reports[1..] {
            assert_eq!(r, first, "nic {}: NIC_SIM_GATE={gate} reports differently from check", args.join(" "));
        }
    }
}

#[test]
fn check_mode_catches_a_gate_that_is_not_exact() {
    // a fault: the gate ignores the engine's inputs, so the driver's first register write
    // to the engine lands while the gate would have skipped the edge
    let out = Command::new(env!("CARGO_BIN_EXE_nic"))
        .env("NIC_SIM_GATE", "check")
        .env("NIC_SIM_GATE_FAULT", "inputs")
        .args(["sim", "rdma", "--op", "write", "--size", "4096", "--count", "2"])
        .output()
        .expect("run nic");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a gate blind to its inputs passed the check:\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("NIC_SIM_GATE=check: at cycle") && err.contains("not exact"), "{err}");
}

#[test]
fn a_bad_gate_mode_is_refused() {
    let (code, out, err) = nic("sometimes", &["sim", "loopback", "--config", "full", "--frames", "10"]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("NIC_SIM_GATE=sometimes") && err.contains("on, off or check"), "{err}");
}
