//! Speed measurements the CLI can report (cycles per second, never used in tests' verdicts).

use std::time::Instant;

use nic_driver::device::Device;

use crate::device::{SimConfig, SimDevice};
use crate::model::{HwConfig, Inputs, Model};

/// Cycles per second of an idle `SimDevice` (model + host memory + wire serviced every
/// cycle, as in every driver-level test), for `cycles` cycles after reset.
pub fn bench_idle(hw: HwConfig, cycles: u64) -> f64 {
    bench_idle_with(SimConfig::new(hw), cycles)
}

/// [`bench_idle`] for any configuration (e.g. `SimConfig::axi(hw)`: the nic_top_axi model).
pub fn bench_idle_with(config: SimConfig, cycles: u64) -> f64 {
    let mut dev = SimDevice::new(config).expect("model");
    dev.idle(1000); // warm up
    let t = Instant::now();
    dev.idle(cycles);
    cycles as f64 / t.elapsed().as_secs_f64()
}

/// Cycles per second of the bare model (one FFI call per cycle, nothing serviced).
/// `traced_build`: run the variant compiled with `--trace-fst` (tracing off) instead.
pub fn bench_model_idle(hw: HwConfig, cycles: u64, traced_build: bool) -> f64 {
    let mut m = if traced_build { Model::new_variant(hw, true) } else { Model::new(hw) }.expect("model");
    let mut inp = Inputs { reset: true, ..Inputs::default() };
    for _ in 0..4 {
        m.step(&inp);
    }
    inp.reset = false;
    inp.dma_rd_req_ready = true;
    inp.dma_wr_ready = true;
    inp.tx_axis_tready = true;
    for _ in 0..1000 {
        m.step(&inp);
    }
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..cycles {
        acc = acc.wrapping_add(m.step(&inp).irq as u64);
    }
    std::hint::black_box(acc);
    cycles as f64 / t.elapsed().as_secs_f64()
}
