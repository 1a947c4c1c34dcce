//! Verilates the exported `nic_top` and `nic_top_axi` of every hardware configuration,
//! each behind a generated simulation-only wrapper that registers its inputs (see
//! `sim_wrapper`), and compiles them, with the cxx bridges of `src/model.rs` and
//! `src/axi_model.rs` and the C++ wrappers of `csrc/`, into this crate.
//!
//! Per configuration `<cfg>` (small, full), tracing flavour (see `VARIANTS`) and top:
//!   OUT_DIR/<variant>/<top>.v            the Verilog from `nic_hw::export::top[_axi]_verilog`
//!   OUT_DIR/<variant>/<top>_sim.v        the input-register wrapper generated from it
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
//! # Why the input registers (Verilator 5.006 and rust-hdl's Verilog)
//!
//! rust-hdl emits each module's combinational logic as ONE `always @(*)` block, and a
//! parent's block both drives its children's inputs and reads their outputs, so the
//! design is full of block-level combinational cycles (UNOPTFLAT). Verilator 5.006 cuts
//! them with "hybrid" triggers that its input-combinational ('ico') and active ('act')
//! regions share, and a change of a top-level INPUT is not always propagated through
//! them: after an input changed and eval() ran with the clock low, some logic
//! downstream of it (in another module's block) kept its old value, so the flip-flops
//! sampled stale values at the next rising edge, as if the design had seen the previous
//! cycle's input. Seen twice: (1) nic_top with random `tx_axis_tready` (loopback off):
//! the MAC advanced its beat one cycle late, repeating accepted beats and skipping
//! refused ones (a 60-byte frame left as 72 bytes with a valid FCS;
//! testbench/tests/loopback.rs `wire_tx_under_tready_backpressure`); `set_exact_eval`
//! gave the same, so it was the scheduling, not the fast-clock skip below. (2)
//! `nic_top_axi` Verilated whole: a change of `bridge$dma_rd_rsp_valid` caused by RVALID
//! was consumed by the 'ico' trigger while `tx$desc_rsp_valid = dma_rd_rsp_valid & (tag
//! == 0)` was scheduled in 'act' only (`_act_sequent__TOP__6`), so it kept its old
//! value for a cycle and the TX descriptor FIFO took a zero beat. (Until then the AXI
//! model paired a nic_top model with a model of the bridge alone, settled per cycle.)
//! Changes that come from flip-flops get through (the design always worked where only
//! its own registers changed between edges, and with the wrapper every test passes,
//! these two cases included), so the wrapper makes the inputs come from flip-flops too:
//! each input except `clock` is registered on the FALLING edge of `clock` and the
//! registered value drives the real top; outputs pass straight through. A step of the
//! C++ model (csrc/nic_model_impl.h) sets the inputs, evaluates with the clock low (the
//! falling edge captures them and the change propagates like any register output),
//! reads the outputs, then raises the clock. For a testbench that changes inputs only
//! while the clock is high, which every caller of `step` does, this is the same circuit
//! as the inputs wired straight in: the registers are transparent in time, they only
//! move the change into the region where Verilator schedules it right.
//! (sim/tests/accept_once.rs checks it directly: every beat the RTL accepts under random
//! valid/ready is seen exactly once.) In waveforms the design sits one level deeper,
//! under `<top>_sim.dut`, next to the registered inputs `in$<port>`.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump to force every model to be rebuilt (e.g. after changing the flags below).
const BUILD_KEY: &str = "nic-sim-build-v5";

/// Which model variants are built: (config, traced). Each gives a `nic_top` model
/// (src/model.rs) and a `nic_top_axi` model (src/axi_model.rs).
///
/// Waveform tracing decision (measured with valgrind instruction counts per simulated
/// idle cycle on the first real nic_top, small and full): the model compiled with
/// `--trace-fst`, tracing off, ran 24.84 k instructions/cycle against 24.89 k without
/// `--trace-fst` (-0.2%, i.e. nothing: the only cost is an activity flag set per eval).
/// So only the traced variant is built: tracing is a run-time switch (`SimConfig::wave`,
/// `Model::open_wave`) that costs nothing while off, and the model builds once, not
/// twice. Should a future design make the traced build measurably slower (>5%), add
/// `(cfg, false)` entries here: `Model::new` then picks the untraced build and
/// `Model::with_wave` the traced one (src/model.rs, factory generated below).
const VARIANTS: &[(&str, bool)] = &[("small", true), ("full", true)];

/// The `nic_top_axi` models are Verilated whole (behind the input-register wrapper like
/// nic_top), one Verilated model per variant.
///
/// Before the wrapper they could not be (see the module doc): they paired the `nic_top`
/// model with a model of `DmaAxiBridge` alone, their DMA port copied back and forth by
/// C++ until settled every clock-low phase. With the wrapper the whole model passes
/// every AXI test, so the pair was dropped: one model is the exported circuit itself
/// (nothing hand-wired in C++ to keep in step with hw/src/top_axi.rs), its C++ is a
/// copy of nic_top's, and its combinational paths through the DMA port are Verilator's
/// business. Measured when switching (2 cores, -j2, both configurations traced): a clean
/// build of all models took 37.6 s against 25.6 s for the pair (nic_top is Verilated a
/// second time inside nic_top_axi: ~7 s per model against ~3 s for the bridge alone),
/// and the AXI model got faster, idle 1.02-1.05 -> 1.46-1.62 M cycles/s (one eval per
/// idle cycle instead of two models' and no settling loop; the input registers also
/// empty Verilator's input-combinational region, which every eval() ran).
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
    // Measured on the first full nic_top (callgrind, instructions per simulated cycle):
    // Verilator 5.006's DFG pass turned the bit-level CRC XOR trees into thousands of
    // 1-bit temporaries; without it the model runs ~23% fewer instructions.
    "-fno-dfg",
    // Smaller generated files so the two cores compile them in parallel: a full model
    // build took 41 s as one big file, 33 s split, for +1.7% instructions per cycle.
    "--output-split",
    "4000",
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

    let vroot = verilator_root();
    let vinc = vroot.join("include");
    let vversion = cmd_output("verilator", &["--version"]).unwrap_or_default();

    // Every model to build: per variant, nic_top and nic_top_axi.
    let all: Vec<(Top, &str, bool)> =
        VARIANTS.iter().flat_map(|&(c, t)| [(Top::Nic, c, t), (Top::NicAxi, c, t)]).collect();
    let variant_names: Vec<String> = all.iter().map(|&(top, c, t)| full_variant_name(top, c, t)).collect();
    let mut libs: Vec<String> = Vec::new();
    let mut obj_dirs: Vec<PathBuf> = Vec::new();
    let mut fast_clock: Vec<bool> = Vec::new();

    for (&(top, cfg, traced), vname) in all.iter().zip(&variant_names) {
        let verilog = top.verilog(cfg);
        let wrapper = sim_wrapper(&verilog, top.module(), &top.sim_module(), top.taps());
        let files = [(format!("{}.v", top.sim_module()), wrapper), (format!("{}.v", top.module()), verilog)];
        let obj = verilated_model(&out, &vinc, &vversion, &mut libs, vname, &top.sim_module(), &files, traced);
        fast_clock.push(fast_clock_safe(&obj, vname, &[&files[1].1, &files[0].1]));
        obj_dirs.push(obj);
    }

    // The board model (src/board_model.rs): `ecpix5_io` of the small configuration, the
    // ECPIX-5 board layer without its PLL, with simulation models of the DDR cells and
    // the simulation parameters (fast UART, short PHY reset). Several clocks, each an
    // input the test bench drives, and no input feeding logic before a flip-flop, so it
    // needs no input-register wrapper.
    let board_obj = {
        use nic_hw::board::ecpix5;
        let files = [
            ("board_core.v".to_string(), nic_hw::export::board_core_verilog(nic_hw::Config::Small)),
            ("ecpix5.v".to_string(), ecpix5::ecpix5_verilog(ecpix5::SIM_UART_DIVISOR, ecpix5::SIM_PHY_RESET_BITS)),
            ("ecp5_sim_cells.v".to_string(), ecpix5::SIM_PRIMITIVES.to_string()),
        ];
        verilated_model(&out, &vinc, &vversion, &mut libs, "board_small", "ecpix5_io", &files, true)
    };

    // The iCE40 board model (src/ice40_model.rs): `ice40_core`, the iCE40 board's NIC
    // (small) with its UART host link and looped wire; one clock, which the test bench
    // drives, and the UART divisor an input. Not traced.
    let ice40_obj = verilated_model(&out, &vinc, &vversion, &mut libs, "ice40_small", "ice40_core", &[("ice40_core.v".to_string(), nic_hw::export::ice40_core_verilog())], false);

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
        compile("nicv_rt", &rt_dir, &rt_dir, &vinc, true, &files, 3);
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
             #define NIC_FACTORY make_{vname}\n#define NIC_TRACED {}\n#define NIC_FAST_CLOCK {}\n#include \"{imp}\"\n",
            traced as u32, fast_clock[i] as u32
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
        factory += &format!("std::unique_ptr<{base}> {new_fn}(uint32_t config, bool want_trace) {{\n");
        for (ci, cfg) in ["small", "full"].iter().enumerate() {
            let has = |t: bool| VARIANTS.contains(&(cfg, t));
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
            let bits = VARIANTS.contains(&(cfg, false)) as u32 | (VARIANTS.contains(&(cfg, true)) as u32) << 1;
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
    wrap_files.push((manifest.join("csrc").join("board_model.cpp"), true, vec![board_obj.clone()]));
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
    println!("cargo:rustc-link-lib=dylib=atomic");
    println!("cargo:rustc-link-lib=dylib=pthread");
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
/// why): the same ports, every input except `clock` registered on the falling edge of
/// `clock` before it reaches the top, outputs straight through; plus, for each name in
/// `taps`, an extra output `sim_<name>` carrying the top's internal signal `nic$<name>`
/// (the child `nic`'s port as the parent sees it), by hierarchical reference.
///
/// Generated from the port declarations of the exported Verilog, so a port added in
/// hw/ needs nothing here (but a field in src/model.rs or src/axi_model.rs and a line
/// in csrc/ to be driven or seen: a port with no line there stays 0).
fn sim_wrapper(verilog: &str, module: &str, sim: &str, taps: &[&str]) -> String {
    let (ports, decls) = module_decls(verilog, module);
    let decl = |name: &str| decls.iter().find(|d| d.name == name);
    let sized = |range: &str, name: &str| if range.is_empty() { name.to_string() } else { format!("{range} {name}") };
    assert!(
        decl("clock").map(|d| d.kind == "input" && d.range.is_empty()) == Some(true),
        "{module} has no 1-bit input `clock`"
    );
    let mut port_decls = String::new();
    let mut regs = String::new();
    let mut samples = String::new();
    let mut conns = Vec::new();
    for p in &ports {
        let d = decl(p).unwrap_or_else(|| panic!("{module}: port `{p}` is not declared"));
        match d.kind.as_str() {
            "input" if p == "clock" => {
                port_decls += "    input wire clock;\n";
                conns.push(".clock(clock)".to_string());
            }
            "input" => {
                port_decls += &format!("    input wire {};\n", sized(&d.range, p));
                regs += &format!("    reg {};\n", sized(&d.range, &format!("in${p}")));
                samples += &format!("        in${p} <= {p};\n");
                conns.push(format!(".{p}(in${p})"));
            }
            "output" => {
                port_decls += &format!("    output wire {};\n", sized(&d.range, p));
                conns.push(format!(".{p}({p})"));
            }
            k => panic!("{module}: port `{p}` is `{k}`; the simulation wrapper handles input and output"),
        }
    }
    let mut tap_names = Vec::new();
    let mut assigns = String::new();
    for t in taps {
        let inner = format!("nic${t}");
        let d = decl(&inner).unwrap_or_else(|| panic!("{module} has no signal `{inner}` to bring out"));
        let out = format!("sim_{t}");
        assert!(!ports.contains(&out), "{module} already has a port `{out}`");
        port_decls += &format!("    output wire {};\n", sized(&d.range, &out));
        assigns += &format!("    assign {out} = dut.{inner};\n");
        tap_names.push(out);
    }
    let all_ports: Vec<&str> = ports.iter().map(String::as_str).chain(tap_names.iter().map(String::as_str)).collect();
    format!(
        "// {sim}: simulation-only wrapper of `{module}`, generated by nic-sim/build.rs (see there).\n\
         // Every input except `clock` is registered on the falling edge of `clock`; outputs pass through.\n\
         module {sim}({});\n{port_decls}\n{regs}\n    always @(negedge clock) begin\n{samples}    end\n\n    \
         {module} dut({});\n{assigns}endmodule\n",
        all_ports.join(","),
        conns.join(", "),
    )
}

/// Verilates and compiles one model `vname` (top module `top`, its Verilog `files` —
/// name and text — written into OUT_DIR/vname) unless its stamp says it is current; adds
/// its two libraries (the per-cycle code at -O3, constructors and initialisation, run
/// once, at -O1) to `libs` and returns its object directory (the wrapper's include
/// directory). Its build time goes to `build_seconds` (`cargo build -vv` shows it).
#[allow(clippy::too_many_arguments)]
fn verilated_model(out: &Path, vinc: &Path, vversion: &str, libs: &mut Vec<String>, vname: &str, top: &str, files: &[(String, String)], traced: bool) -> PathBuf {
    let t0 = std::time::Instant::now();
    let dir = out.join(vname);
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        write_if_changed(&dir.join(name), text);
    }
    let obj = dir.join("obj");
    let flags = verilator_flags(top);
    let mut h = DefaultHasher::new();
    (BUILD_KEY, files, flags.as_slice(), vversion, traced).hash(&mut h);
    let key = format!("{:016x}", h.finish());
    let stamp = dir.join("stamp");
    let fast = format!("nicv_{vname}_fast");
    let slow = format!("nicv_{vname}_slow");
    let up_to_date = fs::read_to_string(&stamp).map(|s| s == key).unwrap_or(false)
        && dir.join(format!("lib{fast}.a")).exists()
        && dir.join(format!("lib{slow}.a")).exists();
    if !up_to_date {
        let _ = fs::remove_file(&stamp);
        let _ = fs::remove_dir_all(&obj);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        verilate(&flags, traced, &dir, &obj, &names);
        let (fast_files, slow_files) = class_files(&obj, vname);
        compile(&fast, &dir, &obj, vinc, traced, &fast_files, 3);
        compile(&slow, &dir, &obj, vinc, traced, &slow_files, 1);
        fs::write(&stamp, &key).unwrap();
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

fn verilator_root() -> PathBuf {
    match cmd_output("verilator", &["--getenv", "VERILATOR_ROOT"]) {
        Some(s) if !s.trim().is_empty() => PathBuf::from(s.trim()),
        _ => {
            eprintln!("\nerror: `verilator` was not found on PATH; nic-sim needs it to build the simulation model.\n       run `make setup` (installs verilator, Debian package `verilator`).\n");
            panic!("verilator is missing: run `make setup`");
        }
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

fn verilate(flags: &[String], traced: bool, dir: &Path, obj: &Path, vfiles: &[&str]) {
    let mut cmd = Command::new("verilator");
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

/// Whether the clock-low evaluation may be skipped for cycles whose inputs equal those of
/// the previous cycle (csrc/nic_model_impl.h). At the falling edge of `clock` the wrapper's
/// input registers load the inputs; when the inputs are those they already hold, the
/// edge changes nothing, so it can be skipped as long as nothing else happens at it.
/// Checked in two places:
/// * the Verilog: `negedge` appears only once, in the wrapper's input-register block
///   (rust-hdl's flip-flops are all `posedge`);
/// * the generated model: it reads the top-level `clock` only to compute its edge
///   triggers (`__VactTriggered.at(..) = .. vlSelf->clock ..`) and to remember it
///   (`__Vtrigrprev__TOP__clock = vlSelf->clock`, Verilator 5.0xx naming; the skip
///   sets that memory by hand), plus the debug-only width check: no logic uses the
///   clock as data, so nothing in the 'ico' region depends on it either.
fn fast_clock_safe(obj: &Path, vname: &str, sources: &[&str]) -> bool {
    let negedges: usize = sources.iter().map(|s| s.matches("negedge").count()).sum();
    if negedges != 1 {
        println!("cargo:warning=nic-sim {vname}: {negedges} `negedge` in the Verilog, the clock-low evaluation is never skipped");
        return false;
    }
    let root_h = fs::read_to_string(obj.join(format!("Vnic_{vname}___024root.h"))).unwrap_or_default();
    if !root_h.contains("CData/*0:0*/ __Vtrigrprev__TOP__clock;") {
        return false;
    }
    let mut uses = 0;
    let mut trig = 0;
    for e in fs::read_dir(obj).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".cpp") || name.contains("__Slow") || name.contains("__Trace") {
            continue;
        }
        let text = fs::read_to_string(e.path()).unwrap_or_default();
        for line in text.lines() {
            if !line.contains("vlSelf->clock") {
                continue;
            }
            if line.contains("overWidthError") || line.contains("(vlSelf->clock & 0xfeU)") {
                continue;
            }
            uses += 1;
            if line.contains("__Vtrigrprev__TOP__clock = vlSelf->clock;") || line.contains("__VactTriggered.at(") {
                trig += 1;
            }
        }
    }
    let ok = uses == trig && (2..=3).contains(&uses);
    if !ok {
        println!("cargo:warning=nic-sim {vname}: `clock` read {uses} times, {trig} in triggers: the clock-low evaluation is never skipped");
    }
    ok
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

fn compile(name: &str, dir: &Path, obj: &Path, vinc: &Path, traced: bool, files: &[PathBuf], opt: u32) {
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
    b.compile(name);
}
