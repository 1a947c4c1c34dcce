//! yosys synthesizes the exported `nic_top` of the `small` configuration for iCE40 and
//! ECP5 without errors (see `nic_fpga::check_script` for what runs).
use nic_fpga::{synth_check, Family};
use nic_hw::Config;

#[test]
fn small_config_synthesizes_for_ice40_and_ecp5() {
    let dir = std::env::temp_dir().join(format!("nic-synth-{}", std::process::id()));
    nic_hw::export::write_all(Config::Small, &dir).unwrap();
    for family in Family::ALL {
        let log = synth_check(family, &dir.join("nic_top.v"), "nic_top").unwrap_or_else(|e| panic!("{e:#}"));
        // the design must actually be there after mapping: cells, and block RAMs for the FIFOs
        let cells = nic_fpga::yosys_cells(&log, "nic_top");
        let total = cells.get("cells").copied().unwrap_or(0);
        assert!(total > 1000, "{}: implausibly few cells after synthesis: {total}\n{log}", family.name());
        if family == Family::Ice40 {
            assert!(cells.get("SB_LUT4").copied().unwrap_or(0) > 1000, "ice40: no LUTs after mapping: {cells:?}");
        }
        let bram = match family {
            Family::Ice40 => "SB_RAM40_4K",
            Family::Ecp5 => "DP16KD",
        };
        assert!(cells.get(bram).copied().unwrap_or(0) > 0, "{}: no block RAM inferred for the FIFOs: {cells:?}", family.name());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
