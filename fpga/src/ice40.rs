//! The iCE40 board flow: `ice40_top` (hw/src/board/ice40.rs, the iCE40-HX8K Breakout
//! Board) from Verilog to a bitstream.
//!
//! 1. `icepll` (IceStorm) configures the SB_PLL40_CORE as `board_pll`: 12 MHz in, the
//!    core clock nearest the requested frequency (its report gives the frequency actually
//!    built, which sets the UART divisor and is what timing is checked against);
//! 2. export `ice40_core.v`, `ice40.v`, `ice40.pcf` (nic_hw::export::write_ice40_board);
//! 3. yosys `synth_ice40`, nextpnr-ice40 with the PCF (pins) and the core frequency;
//! 4. `icepack` packs the bitstream (`ice40.bin`, for `iceprog`).

use crate::flow::{nextpnr_report, run_nextpnr, run_tool, Report, Target, QUICK_NOTE};
use crate::yosys_cells;
use anyhow::{bail, Context, Result};
use nic_hw::board::ice40;
use nic_hw::Config;
use std::path::Path;

/// The board top's module name.
pub const ICE40_TOP: &str = "ice40_top";

/// Logic cells and RAM40s of an HX8K.
pub const HX8K_CELLS: u64 = 7680;
pub const HX8K_RAMS: u64 = 32;

/// The frequency `icepll` built, in MHz ("Achieved output frequency: X MHz").
fn pll_achieved_mhz(icepll_output: &str) -> Option<f64> {
    icepll_output.lines().find_map(|l| l.trim().trim_start_matches('*').trim().strip_prefix("Achieved output frequency:")?.trim().strip_suffix("MHz")?.trim().parse().ok())
}

/// Runs the iCE40 board flow into `out` (`small` only: `full` is several times an HX8K).
/// `quick`: place without timing-driven placement (`--no-tmdriv`).
pub fn synth_ice40_board(config: Config, freq_mhz: f64, quick: bool, out: &Path, mut progress: impl FnMut(&str)) -> Result<Report> {
    if config != Config::Small {
        bail!("the iCE40 board holds only the small configuration (full needs an ECP5 target)");
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;

    progress(&format!("icepll: configuring the PLL ({} MHz in, {freq_mhz} MHz core)", ice40::ICE40_CLOCK_IN_MHZ));
    let pll = std::process::Command::new("icepll")
        .current_dir(out)
        .args(["-i", &format!("{}", ice40::ICE40_CLOCK_IN_MHZ), "-o", &format!("{freq_mhz}"), "-m", "-n", "board_pll", "-f", "board_pll.v"])
        .output()
        .context("running icepll (run `make setup`)")?;
    let pll_log = format!("{}{}", String::from_utf8_lossy(&pll.stdout), String::from_utf8_lossy(&pll.stderr));
    std::fs::write(out.join("pll.log"), &pll_log).context("writing pll.log")?;
    if !pll.status.success() {
        bail!("icepll failed:\n{pll_log}");
    }
    let pll_v = std::fs::read_to_string(out.join("board_pll.v")).context("icepll wrote no board_pll.v")?;
    let core_mhz = pll_achieved_mhz(&pll_v).with_context(|| format!("icepll reported no output frequency:\n{pll_log}"))?;

    progress(&format!("exporting Verilog (core clock {core_mhz} MHz)"));
    nic_hw::export::write_ice40_board(out, core_mhz * 1e6).context("writing the board Verilog")?;

    progress("yosys synth_ice40 (minutes; log: synth.log)");
    run_tool(
        Path::new("yosys"),
        out,
        &["-q", "-l", "synth.log", "-p", &format!("read_verilog ice40_core.v ice40.v board_pll.v; synth_ice40 -top {ICE40_TOP} -json {ICE40_TOP}.json; stat")],
        "synth.log",
    )?;
    let cells = yosys_cells(&std::fs::read_to_string(out.join("synth.log")).unwrap_or_default(), ICE40_TOP);

    let (device, package) = ice40::ICE40_DEVICE;
    progress(&format!("nextpnr-ice40 {device} {package} (minutes; log: pnr.log)"));
    let freq = format!("{core_mhz}");
    let mut args = vec![device, "--package", package, "--json", "ice40_top.json", "--pcf", "ice40.pcf", "--freq", &freq, "--asc", "ice40.asc", "--report", "pnr_report.json", "--log", "pnr.log"];
    if quick {
        args.push("--no-tmdriv");
    }
    // the bitstream and the report are written when timing fails too; the report says so
    args.push("--timing-allow-fail");
    let json = run_nextpnr(Path::new("nextpnr-ice40"), out, &args)?;

    progress("icepack: bitstream (ice40.bin)");
    run_tool(Path::new("icepack"), out, &["ice40.asc", "ice40.bin"], "pack.log")?;
    let bin_len = std::fs::metadata(out.join("ice40.bin")).map(|m| m.len()).unwrap_or(0);
    if bin_len == 0 {
        bail!("icepack wrote no bitstream");
    }

    let (util, fmax) = nextpnr_report(&json);
    let mut report = Report {
        target: Target::Ice40Hx8k.name().into(),
        config: config.name().into(),
        top: ICE40_TOP.into(),
        freq_mhz: core_mhz,
        luts: cells.get("SB_LUT4").copied().unwrap_or(0),
        ffs: cells.iter().filter(|(k, _)| k.starts_with("SB_DFF")).map(|(_, v)| v).sum(),
        brams: util.get("ICESTORM_RAM").copied().unwrap_or(0),
        logic_cells: util.get("ICESTORM_LC").copied().unwrap_or(0),
        ..Report::default()
    };
    report.set_timing(&fmax, out);
    report.bitstream = Some(format!("ice40.bin ({bin_len} bytes)"));
    if quick {
        report.notes.push(QUICK_NOTE.into());
    }
    report.notes.push(format!(
        "iCE40-HX8K Breakout Board top (iCE40HX8K-CT256): {} of {HX8K_CELLS} logic cells, {} of {HX8K_RAMS} RAM40s, placed and routed; core clock {core_mhz} MHz from the PLL; UART {} baud carrying registers and DMA; wire looped back (no PHY on the board)",
        report.logic_cells,
        report.brams,
        ice40::ICE40_BAUD
    ));
    std::fs::write(out.join("report.json"), report.to_json()).context("writing report.json")?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_core_clock_from_icepll() {
        let v = "/**\n * Given input frequency:        12.000 MHz\n * Requested output frequency:   33.000 MHz\n * Achieved output frequency:    33.000 MHz\n */";
        assert_eq!(pll_achieved_mhz(v), Some(33.0));
        assert_eq!(pll_achieved_mhz("nothing"), None);
    }
}
