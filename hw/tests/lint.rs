//! The exported Verilog is lint-clean under `verilator --lint-only -Wall` with only the
//! generator-caused waivers of hw/lint/waivers.vlt.
use nic_hw::Config;
use std::process::Command;

#[test]
fn exported_verilog_is_lint_clean() {
    let dir = std::env::temp_dir().join(format!("nic-lint-{}", std::process::id()));
    for c in Config::ALL {
        let d = dir.join(c.name());
        nic_hw::export::write_all(c, &d).unwrap();
        // both views of the text: the simulator's, and synthesis's (the blocks that write
        // a form of their own for each, `NicRam` and `XorReg`, under `SYNTHESIS`)
        for (top, define) in [("nic_top", None), ("nic_top_axi", None), ("nic_top", Some("-DSYNTHESIS"))] {
            let out = Command::new("verilator")
                .args(["--lint-only", "-Wall", "--top-module", top])
                .args(define)
                .arg(d.join("waivers.vlt"))
                .arg(d.join(format!("{top}.v")))
                .output()
                .expect("verilator not found: run `make setup`");
            let text = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success() && !text.contains("%Warning"), "{c} {top} {define:?}: lint failed:\n{text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The board layer `ecpix5_io` with `board_core` (both configurations) is lint-clean too;
/// the ECP5 DDR cells are the simulation models (`SIM_PRIMITIVES`), the PLL module is
/// outside `ecpix5_io` (its Verilog comes from ecppll in the flow).
#[test]
fn board_verilog_is_lint_clean() {
    let dir = std::env::temp_dir().join(format!("nic-lint-board-{}", std::process::id()));
    for c in Config::ALL {
        let d = dir.join(c.name());
        nic_hw::export::write_board(c, &d, 48.0e6).unwrap();
        std::fs::write(d.join("ecp5_cells.v"), nic_hw::board::ecpix5::SIM_PRIMITIVES).unwrap();
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "ecpix5_io"])
            .arg(d.join("waivers.vlt"))
            .args(["ecpix5.v", "board_core.v", "ecp5_cells.v"].map(|f| d.join(f)))
            .output()
            .expect("verilator not found: run `make setup`");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !text.contains("%Warning"), "{c} ecpix5_io: lint failed:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The iCE40 board core `ice40_core` (the NIC, the UART host link, the looped wire) is
/// lint-clean too; `ice40_top` around it is the PLL from icepll and a reset register.
#[test]
fn ice40_board_verilog_is_lint_clean() {
    let dir = std::env::temp_dir().join(format!("nic-lint-ice40-{}", std::process::id()));
    nic_hw::export::write_ice40_board(&dir, 33.0e6).unwrap();
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "ice40_core"])
        .arg(dir.join("waivers.vlt"))
        .arg(dir.join("ice40_core.v"))
        .output()
        .expect("verilator not found: run `make setup`");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !text.contains("%Warning"), "ice40_core: lint failed:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
