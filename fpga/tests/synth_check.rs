//! The FPGA flows run on every build:
//! * iCE40 HX8K: `nic synth --target ice40-hx8k --config small` runs the board flow to a
//!   bitstream for the iCE40-HX8K Breakout Board (icepll, yosys, nextpnr-ice40 with the
//!   board's pins, icepack), and its report is checked for sanity;
//! * iCE40 UP5K: `nic synth --target ice40-up5k --config small` synthesizes `nic_top` and
//!   packs it into logic cells (`nextpnr-ice40 --pack-only`: no board top), and the
//!   report's verdict is checked against the cell count;
//! * ECP5: `nic synth --target ecp5-85k --config small` runs the board flow to a bitstream
//!   for the ECPIX-5 (yosys, nextpnr with the board's pins, ecppack), and its report is
//!   checked for sanity.
use nic_fpga::flow::Target;
use nic_hw::Config;

#[test]
fn small_config_synthesizes_and_packs_for_ice40_up5k() {
    let dir = std::env::temp_dir().join(format!("nic-synth-up5k-{}", std::process::id()));
    let report = nic_fpga::flow::synth(Target::Ice40Up5k, Config::Small, 40.0, true, &dir, |step| eprintln!("{step}")).unwrap_or_else(|e| panic!("{e:#}"));
    let json = report.to_json();
    // the design is there after mapping: LUTs, flip-flops, block RAMs for the FIFOs
    assert!(report.luts > 1000 && report.ffs > 1000, "ice40: implausibly little logic after synthesis: {json}");
    assert!(report.brams > 0, "ice40: no block RAM inferred for the FIFOs: {json}");
    // packing puts every LUT and every flip-flop in a logic cell, at most one of each
    assert!(report.logic_cells >= report.luts.max(report.ffs) && report.logic_cells <= report.luts + report.ffs, "ice40: logic cells inconsistent with the LUTs and flip-flops: {json}");
    // the report's verdict follows the UP5K's 5,280 logic cells and 30 RAM40s
    let fits = report.logic_cells <= 5280 && report.brams <= 30;
    let verdict = if fits { "fits, before placement" } else { "does not fit" };
    assert!(report.notes.iter().any(|n| n.contains(verdict)), "ice40: the note should say \"{verdict}\": {json}");
    eprintln!("{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A board flow's report: from the run `make test` started in the background (the
/// directory in `env_var`; that run's exit code in `<dir>.rc`, its output in
/// `<dir>.log`), waited for, or else from running `run` here.
fn board_flow_report(env_var: &str, name: &str, run: impl FnOnce(&std::path::Path) -> nic_fpga::flow::Report) -> (std::path::PathBuf, nic_fpga::flow::Report) {
    match std::env::var_os(env_var) {
        Some(d) => {
            let dir = std::path::PathBuf::from(d);
            let rc_file = dir.with_extension("rc");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90 * 60);
            let rc = loop {
                if let Ok(s) = std::fs::read_to_string(&rc_file) {
                    break s.trim().to_string();
                }
                assert!(std::time::Instant::now() < deadline, "the board flow in {} did not finish within 90 minutes", dir.display());
                std::thread::sleep(std::time::Duration::from_secs(5));
            };
            let log = std::fs::read_to_string(dir.with_extension("log")).unwrap_or_default();
            assert_eq!(rc, "0", "the board flow failed:\n{log}");
            let json = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
            let r = nic_fpga::flow::Report::from_json(&json).unwrap_or_else(|| panic!("report.json does not parse:\n{json}"));
            (dir, r)
        }
        None => {
            let dir = std::env::temp_dir().join(format!("nic-{name}-{}", std::process::id()));
            let r = run(&dir);
            (dir, r)
        }
    }
}

/// The iCE40 core clock the CI build asks for (scripts/test.sh passes the same): one the
/// board design meets (docs/fpga.md), so the timing verdict means something.
const CI_ICE40_MHZ: f64 = 33.0;

/// The iCE40 board flow for `small` to a bitstream, and its report checked for sanity.
/// `make test` runs the flow in the background (after the ECP5 one) with
/// NIC_ICE40_FLOW_DIR set for this test, as for `board_flow_small_ecp5`.
#[test]
fn board_flow_small_ice40() {
    let (dir, report) = board_flow_report("NIC_ICE40_FLOW_DIR", "ice40-flow", |dir| {
        let started = std::time::Instant::now();
        nic_fpga::flow::synth(Target::Ice40Hx8k, Config::Small, CI_ICE40_MHZ, false, dir, |step| eprintln!("[{:>4.0} s] {step}", started.elapsed().as_secs_f64()))
            .unwrap_or_else(|e| panic!("iCE40 board flow: {e:#}"))
    });
    let json = report.to_json();
    assert_eq!((report.target.as_str(), report.config.as_str(), report.top.as_str()), ("ice40-hx8k", "small", "ice40_top"), "{json}");
    // the whole NIC is there: `small` alone packs into 6,644 logic cells (docs/fpga.md),
    // and it must fit the HX8K's 7,680 and 32 RAM40s, placed and routed
    assert!(report.logic_cells > 6_000 && report.logic_cells <= nic_fpga::ice40::HX8K_CELLS, "logic cells: {json}");
    assert!(report.luts > 5_000 && report.ffs > 1_500, "implausible area: {json}");
    assert!(report.brams >= 20 && report.brams <= nic_fpga::ice40::HX8K_RAMS, "RAM40s: {json}");
    let bin = std::fs::metadata(dir.join("ice40.bin")).map(|m| m.len()).unwrap_or(0);
    assert!(bin > 100_000, "bitstream of {bin} bytes");
    // one clock domain, timed; the PLL made a core clock near the request
    assert_eq!(report.fmax_mhz.len(), 1, "{json}");
    assert!(report.fmax_mhz.values().all(|&f| f > 1.0), "{json}");
    assert!((report.freq_mhz - CI_ICE40_MHZ).abs() < 2.0, "core clock {} MHz", report.freq_mhz);
    let met = report.fmax_mhz.iter().all(|(k, f)| report.constraint_mhz.get(k).is_some_and(|c| f >= c));
    assert_eq!(report.timing_met, met, "{json}");
    assert!(!report.critical_path.is_empty(), "no critical path reported: {json}");
}

/// The core clock the CI build asks for (scripts/test.sh passes the same): one the
/// `small` core meets on the ECPIX-5 (docs/fpga.md), so the timing verdict means something.
const CI_CORE_MHZ: f64 = 40.0;

/// The ECP5 board flow for `small` to a bitstream, and its report checked for sanity.
/// `make test` (scripts/test.sh) starts the flow beside the rest of the suite and runs
/// this test last with NIC_BOARD_FLOW_DIR set: it then waits for that run (its exit code
/// in `<dir>.rc`) and checks its output instead of running the flow a second time.
#[test]
fn board_flow_small_ecp5() {
    let (dir, report) = board_flow_report("NIC_BOARD_FLOW_DIR", "board-flow", |dir| {
        let started = std::time::Instant::now();
        nic_fpga::flow::synth(Target::Ecp5_85k, Config::Small, CI_CORE_MHZ, true, dir, |step| eprintln!("[{:>4.0} s] {step}", started.elapsed().as_secs_f64()))
            .unwrap_or_else(|e| panic!("board flow: {e:#}"))
    });
    let json = report.to_json();
    assert_eq!((report.target.as_str(), report.config.as_str(), report.top.as_str(), report.speed), ("ecp5-85k", "small", "ecpix5_top", 8), "{json}");
    // the whole design is there: the NIC, the 16-lane host memory (two DP16KD per lane).
    // `small` on this board is 13,874 LUTs / 4,036 FFs (docs/fpga.md); the host memory
    // alone is about 4,500 LUTs, so a NIC optimized away would fall well below these
    assert!(report.luts > 10_000 && report.ffs > 3_000, "implausible area: {json}");
    assert!(report.brams >= 32, "host memory and FIFOs need at least 32 DP16KD: {json}");
    let bit = std::fs::metadata(dir.join("ecpix5.bit")).map(|m| m.len()).unwrap_or(0);
    assert!(bit > 100_000, "bitstream of {bit} bytes");
    // every clock domain with logic is timed: core, RGMII transmit, RGMII receive
    for domain in ["clk_core", "clk_tx", "eth_rxc"] {
        let f = report.fmax_mhz.iter().find(|(k, _)| k.contains(domain)).map(|(_, f)| *f);
        assert!(f.is_some_and(|f| f > 1.0), "no Fmax for {domain}: {json}");
    }
    // the PLL made a core clock near the request, and the verdict matches the figures
    assert!((report.freq_mhz - CI_CORE_MHZ).abs() < 5.0, "core clock {} MHz", report.freq_mhz);
    let met = report.fmax_mhz.iter().all(|(k, f)| report.constraint_mhz.get(k).is_some_and(|c| f >= c));
    assert_eq!(report.timing_met, met, "{json}");
    assert!(!report.critical_path.is_empty(), "no critical path reported: {json}");
}
