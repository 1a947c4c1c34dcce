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
        (vec!["synth", "--target", "ecp5-45k", "--out", "/tmp/nic-synth-bad"], "unknown target"),
        (vec!["synth", "--target", "ecp5-85k", "--freq", "0", "--out", "/tmp/nic-synth-bad"], "out of range"),
        (vec!["synth", "--target", "ice40-hx8k"], "--out"),
    ] {
        let (code, out, err) = nic(&args);
        assert_ne!(code, 0, "{args:?} succeeded: {out}");
        assert!(err.contains(needle), "{args:?}: stderr does not mention `{needle}`:\n{err}");
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
        for needle in ["50 sent, 50 received", "cycles per frame", "frames/s", "10 GbE line rate", "simulation speed"] {
            assert!(out.contains(needle), "{backend}: output lacks `{needle}`:\n{out}");
        }
    }
}

#[test]
fn bench_json_has_every_size() {
    let (code, out, err) = nic(&["bench", "loopback", "--backend", "model", "--frames", "50", "--json"]);
    assert_eq!(code, 0, "{err}");
    for size in [64, 128, 512, 1518, 9018] {
        assert!(out.contains(&format!("\"frame_bytes\":{size},")), "no {size}-byte row in {out}");
    }
}
