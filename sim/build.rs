//! Verilates the exported `nic_top` of every hardware configuration and compiles it,
//! with the cxx bridges of `src/model.rs` and `src/axi_model.rs` and the C++ wrappers of
//! `csrc/`, into this crate.
//!
//! Per configuration `<cfg>` (small, full) and variant (traced or not, see `VARIANTS`):
//!   OUT_DIR/<variant>/nic_top.v          the Verilog from `nic_hw::export::top_verilog`
//!   OUT_DIR/<variant>/obj/               verilator --cc output (prefix `Vnic_<variant>`,
//!                                        variant = `<cfg>` or `<cfg>_trace`)
//!   OUT_DIR/<variant>/libnicv_<variant>_{fast,slow}.a
//! and once, `nic_hw::dma::DmaAxiBridge` on its own (variant `axi_bridge[_trace]`, Verilog
//! `axi_bridge.v`), which the `nic_top_axi` models of src/axi_model.rs put in front of
//! the `nic_top` model of their configuration (csrc/nic_axi_model_impl.h says why).
//! The Verilator runtime is compiled once into OUT_DIR/rt/libnicv_rt.a.
//!
//! Verilating and compiling a model takes a while, so each variant keeps a stamp (a hash
//! of the Verilog, the flags and the Verilator version) and is rebuilt only when it
//! changes: a change in hw/ that leaves the Verilog alone costs nothing here.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump to force every model to be rebuilt (e.g. after changing the flags below).
const BUILD_KEY: &str = "nic-sim-build-v4";

/// Which model variants are built: (config, traced).
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

/// The `nic_top_axi` models (src/axi_model.rs) are not Verilated from `nic_top_axi.v`:
/// they pair the `nic_top` model of their variant with a model of the bridge alone
/// (`nic_top_axi` is exactly `nic_top` + `DmaAxiBridge`, wired port to port), settled
/// together each cycle by csrc/nic_axi_model_impl.h. Reason, found on the first
/// `nic_top_axi` model: Verilator 5.006 mis-schedules it. rust-hdl emits one
/// `always @(*)` per module, so the NIC's and the bridge's blocks form block-level
/// combinational cycles (UNOPTFLAT); Verilator cuts them with "hybrid" triggers that
/// its input-combinational ('ico') and active ('act') regions share
/// (`__Vtrigrprev__TOP__nic_top_axi__DOT__bridge__024dma_rd_rsp_valid`): a change of
/// `bridge$dma_rd_rsp_valid` caused by an input (RVALID) is consumed by the 'ico'
/// trigger, while `tx$desc_rsp_valid = dma_rd_rsp_valid & (tag == 0)` is scheduled in
/// 'act' only (`_act_sequent__TOP__6`), so it kept its old value for a cycle: the TX
/// descriptor FIFO took a zero beat and the queue stopped with ZeroLength on the first
/// frame. (Cost then: 11.9 s per nic_top_axi model; the bridge alone builds in ~2 s and
/// gives both configurations.)
const BRIDGE: &str = "axi_bridge";

/// The exported top a model variant is built from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Top {
    /// `nic_top`: the DMA port (src/model.rs).
    Nic,
    /// `DmaAxiBridge` alone (top module `top`), for src/axi_model.rs.
    Bridge,
}

impl Top {
    fn module(self) -> &'static str {
        match self {
            Top::Nic => "nic_top",
            Top::Bridge => "top",
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
    for p in ["build.rs", "csrc", "src/model.rs", "src/axi_model.rs", "../hw/src", "../hw/Cargo.toml", "../regmap/src"] {
        println!("cargo:rerun-if-changed={}", manifest.join(p).display());
    }

    let vroot = verilator_root();
    let vinc = vroot.join("include");
    let vversion = cmd_output("verilator", &["--version"]).unwrap_or_default();

    // Every model to build: the nic_top variants, then the bridge once per tracing flavour.
    let mut all: Vec<(Top, &str, bool)> = VARIANTS.iter().map(|&(c, t)| (Top::Nic, c, t)).collect();
    for t in [true, false] {
        if VARIANTS.iter().any(|v| v.1 == t) {
            all.push((Top::Bridge, BRIDGE, t));
        }
    }
    let variant_names: Vec<String> = all.iter().map(|&(top, c, t)| full_variant_name(top, c, t)).collect();
    let mut libs: Vec<String> = Vec::new();
    let mut obj_dirs: Vec<PathBuf> = Vec::new();
    let mut fast_clock: Vec<bool> = Vec::new();

    for (&(top, cfg, traced), vname) in all.iter().zip(&variant_names) {
        let t0 = std::time::Instant::now();
        let verilog = match top {
            Top::Nic => top_verilog(cfg),
            Top::Bridge => bridge_verilog(),
        };
        let vfile = match top {
            Top::Nic => "nic_top.v".to_string(),
            Top::Bridge => format!("{BRIDGE}.v"),
        };
        let dir = out.join(vname);
        fs::create_dir_all(&dir).unwrap();
        write_if_changed(&dir.join(&vfile), &verilog);
        let obj = dir.join("obj");
        obj_dirs.push(obj.clone());

        let flags = verilator_flags(top);
        let mut h = DefaultHasher::new();
        // (for nic_top the hashed flags are those of the single-top build: stamps stay valid)
        (BUILD_KEY, &verilog, flags.as_slice(), traced, &vversion, cfg).hash(&mut h);
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
            verilate(&flags, traced, &dir, &obj, &vfile);
            let (fast_files, slow_files) = class_files(&obj, vname);
            compile(&fast, &dir, &obj, &vinc, traced, &fast_files, 3);
            // Constructors and initialisation: run once, compile fast.
            compile(&slow, &dir, &obj, &vinc, traced, &slow_files, 1);
            fs::write(&stamp, &key).unwrap();
            // Build cost of each model, for the record (`cargo build -vv` shows it).
            let _ = fs::write(dir.join("build_seconds"), format!("{:.1}\n", t0.elapsed().as_secs_f64()));
        }
        fast_clock.push(fast_clock_safe(&obj, vname));
        println!("cargo:rustc-link-search=native={}", dir.display());
        libs.push(fast);
        libs.push(slow);
    }

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
    let index_of = |top: Top, traced: bool| all.iter().position(|&(t, _, tr)| t == top && tr == traced).unwrap();
    for (i, (&(top, cfg, traced), vname)) in all.iter().zip(&variant_names).enumerate() {
        if top != Top::Nic {
            continue;
        }
        // nic_top alone (NicModel) ...
        let class = format!("Vnic_{vname}");
        let src = format!(
            "// generated by nic-sim/build.rs\n#include \"{class}.h\"\n#include \"{class}___024root.h\"\n\
             #define NIC_VCLASS {class}\n#define NIC_WRAPPER Wrap_{vname}\n\
             #define NIC_FACTORY make_{vname}\n#define NIC_TRACED {}\n#define NIC_FAST_CLOCK {}\n#include \"nic_model_impl.h\"\n",
            traced as u32, fast_clock[i] as u32
        );
        let f = gen.join(format!("wrap_{vname}.cpp"));
        write_if_changed(&f, &src);
        wrap_files.push((f, traced, vec![obj_dirs[i].clone()]));
        factory += &format!("std::unique_ptr<NicModel> make_{vname}();\n");
        // ... and with the bridge in front (AxiNicModel).
        let b = index_of(Top::Bridge, traced);
        let bclass = format!("Vnic_{}", variant_names[b]);
        let aname = axi_variant_name(cfg, traced);
        let src = format!(
            "// generated by nic-sim/build.rs\n#include \"{class}.h\"\n#include \"{class}___024root.h\"\n\
             #include \"{bclass}.h\"\n#include \"{bclass}___024root.h\"\n\
             #define NIC_VCLASS {class}\n#define BRIDGE_VCLASS {bclass}\n#define NIC_WRAPPER Wrap_{aname}\n\
             #define NIC_FACTORY make_{aname}\n#define NIC_TRACED {}\n#define NIC_FAST_CLOCK {}\n#define BRIDGE_FAST_CLOCK {}\n\
             #include \"nic_axi_model_impl.h\"\n",
            traced as u32, fast_clock[i] as u32, fast_clock[b] as u32
        );
        let f = gen.join(format!("wrap_{aname}.cpp"));
        write_if_changed(&f, &src);
        wrap_files.push((f, traced, vec![obj_dirs[i].clone(), obj_dirs[b].clone()]));
        factory += &format!("std::unique_ptr<AxiNicModel> make_{aname}();\n");
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

    let mut bridge = cxx_build::bridges(["src/model.rs", "src/axi_model.rs"]);
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

/// Variant name with the top: `<cfg>[_trace]` for nic_top, `axi_bridge[_trace]` for the bridge.
fn full_variant_name(top: Top, cfg: &str, traced: bool) -> String {
    match top {
        Top::Nic => variant_name(cfg, traced),
        Top::Bridge => variant_name(BRIDGE, traced),
    }
}

/// Name of the `nic_top_axi` model (nic_top + bridge) of a nic_top variant.
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

/// The Verilog of `nic_top` for a configuration, from the RTL crate.
fn top_verilog(cfg: &str) -> String {
    nic_hw::export::top_verilog(hw_config(cfg))
}

/// The Verilog of `DmaAxiBridge` alone (module `top`): the block `nic_top_axi` puts
/// between `nic_top`'s DMA port and its `m_axi_*` ports.
fn bridge_verilog() -> String {
    use rust_hdl::prelude::*;
    let mut b = nic_hw::dma::DmaAxiBridge::default();
    b.connect_all();
    format!("// nic_hw::dma::DmaAxiBridge, generated by nic-sim/build.rs for the nic_top_axi model\n{}", generate_verilog(&b))
}

fn verilator_flags(top: Top) -> Vec<&'static str> {
    VERILATOR_FLAGS.iter().map(|&f| if f == "TOP_MODULE" { top.module() } else { f }).collect()
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

fn verilate(flags: &[&str], traced: bool, dir: &Path, obj: &Path, vfile: &str) {
    let mut cmd = Command::new("verilator");
    cmd.args(flags)
        .arg("--prefix")
        .arg(format!("Vnic_{}", dir.file_name().unwrap().to_string_lossy()))
        .arg("--Mdir")
        .arg(obj);
    if traced {
        cmd.arg("--trace-fst");
    }
    cmd.arg(dir.join(vfile));
    let o = cmd.output().unwrap_or_else(|e| panic!("cannot run verilator: {e} (run `make setup`)"));
    if !o.status.success() {
        panic!(
            "verilator failed on {}:\n{}\n{}",
            dir.join(vfile).display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Whether the clock-low evaluation may be skipped for cycles with unchanged inputs
/// (csrc/nic_model_impl.h): the generated model must read the top-level `clock` only in
/// its rising-edge trigger, `(IData)(vlSelf->clock)` and `__Vtrigrprev__TOP__clock =
/// vlSelf->clock` (Verilator 5.0xx naming), plus the debug-only width check.
fn fast_clock_safe(obj: &Path, vname: &str) -> bool {
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
    uses == 2 && trig == 2
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
