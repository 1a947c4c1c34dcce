//! Prints simulation speed: `cargo run --release -p nic-sim --example sim_speed [cycles]`.
//! `sim_speed CYCLES small|full plain|traced|device|axi` runs one measurement only (for
//! instruction counting under valgrind, which is stable where wall time is not).

use nic_sim::{bench_idle, bench_idle_with, bench_model_idle, HwConfig, Model, SimConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cycles: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5_000_000);
    if args.len() > 3 {
        let hw: HwConfig = args[2].parse().unwrap();
        let r = match args[3].as_str() {
            "plain" => bench_model_idle(hw, cycles, false),
            "traced" => bench_model_idle(hw, cycles, true),
            "axi" => bench_idle_with(SimConfig::axi(hw), cycles),
            _ => bench_idle(hw, cycles),
        };
        println!("{hw} {}: {:.3} M cycles/s", args[3], r / 1e6);
        return;
    }
    for hw in HwConfig::ALL {
        let dev = bench_idle(hw, cycles);
        let bare = bench_model_idle(hw, cycles, false);
        let line = if Model::can_trace(hw) && Model::has_untraced_build(hw) {
            let traced = bench_model_idle(hw, cycles, true);
            format!("traced build (tracing off) {:.2} M/s ({:+.1}%)", traced / 1e6, (traced / bare - 1.0) * 100.0)
        } else {
            format!("one build (traced: {})", Model::can_trace(hw))
        };
        let axi = bench_idle_with(SimConfig::axi(hw), cycles);
        println!("{hw:5}: SimDevice idle {:.2} M cycles/s (nic_top_axi: {:.2} M/s), bare model {:.2} M/s, {line}", dev / 1e6, axi / 1e6, bare / 1e6);
    }
}
