//! Numbers printed by `sim loopback` and `bench loopback`.

use nic_testbench::traffic::line_rate;

/// Human-readable count with thousands separators.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1.23 M` style.
pub fn si(v: f64) -> String {
    if v >= 1e9 {
        format!("{:.2} G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.2} k", v / 1e3)
    } else {
        format!("{v:.1} ")
    }
}

/// Seconds of 10 GbE line time that frames totalling `bytes` (without FCS) occupy,
/// `frames` of them: (L + 4 FCS + 20 preamble/SFD/IFG) * 8 bits each.
pub fn line_seconds(frames: u64, bytes: u64) -> f64 {
    ((bytes + frames * (4 + line_rate::OVERHEAD_BYTES)) * 8) as f64 / line_rate::LINE_BPS
}

/// Seconds of simulated time at 156.25 MHz.
pub fn sim_seconds(cycles: u64) -> f64 {
    cycles as f64 / line_rate::CLOCK_HZ
}
