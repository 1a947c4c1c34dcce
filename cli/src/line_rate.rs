//! Line-rate arithmetic: each configuration measured against the wire it is sized for,
//! at the core clock it runs at there ([`target`]).

use nic_hw::Config;

/// Preamble and SFD (8 bytes) and the minimum inter-frame gap (12 bytes) that every
/// frame occupies on the line besides its own bytes.
pub const OVERHEAD_BYTES: u64 = 20;

/// What a configuration's figures are measured against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The wire, e.g. "10 GbE".
    pub wire: &'static str,
    /// Its bit rate.
    pub line_bps: f64,
    /// The core clock the configuration runs at with that wire.
    pub clock_hz: f64,
    /// Where the wire and the clock come from.
    pub why: &'static str,
    /// What bounds the datapath, in beats per cycle.
    pub limit: &'static str,
}

/// `full`: 10GBASE-R, whose 64-bit PCS runs at 156.25 MHz, one 64-bit beat per cycle.
/// `small`: the Gigabit RGMII PHY of the ECPIX-5, the board it is built for with the
/// iCE40 HX8K, at the 41.67 MHz core clock of that board build (`nic synth --target
/// ecp5-85k --config small --freq 40`: the PLL's nearest); its CRC-32 takes 4 bytes a
/// cycle (`Config::half_rate_crc`, for the iCE40 fit), so it moves half a beat per
/// cycle, 1.33 Gb/s at that clock.
pub fn target(config: Config) -> Target {
    match config {
        Config::Full => Target {
            wire: "10 GbE",
            line_bps: 10e9,
            clock_hz: 156.25e6,
            why: "10GBASE-R's 64-bit core clock",
            limit: "one 64-bit beat per cycle",
        },
        Config::Small => Target {
            wire: "1 GbE",
            line_bps: 1e9,
            clock_hz: 125e6 / 3.0,
            why: "the ECPIX-5's RGMII PHY, at that board build's core clock",
            limit: "half a 64-bit beat per cycle: the CRC-32 takes 4 bytes a cycle (iCE40 fit)",
        },
    }
}

impl Target {
    /// Line time of one frame of `wire_len` bytes (FCS included), in core cycles:
    /// (L + 20) * 8 bits at the line rate.
    pub fn cycles_per_frame(&self, wire_len: u64) -> f64 {
        ((wire_len + OVERHEAD_BYTES) * 8) as f64 / self.line_bps * self.clock_hz
    }

    /// Seconds of simulated time `cycles` take at the target clock.
    pub fn seconds(&self, cycles: u64) -> f64 {
        cycles as f64 / self.clock_hz
    }

    /// Seconds of line time that `frames` frames totalling `bytes` (without FCS) occupy:
    /// (L + 4 FCS + 20 preamble/SFD/IFG) * 8 bits each.
    pub fn line_seconds(&self, frames: u64, bytes: u64) -> f64 {
        ((bytes + frames * (4 + OVERHEAD_BYTES)) * 8) as f64 / self.line_bps
    }

    /// "10 GbE at 156.25 MHz (10GBASE-R's 64-bit core clock)".
    pub fn describe(&self) -> String {
        format!("{} at {:.2} MHz ({})", self.wire, self.clock_hz / 1e6, self.why)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn minimum_frames_at_each_target() {
        use super::{target, Config};
        // 64-byte frames at 10 GbE: 14.88 Mframes/s (IEEE 802.3), 10.5 cycles each at 156.25 MHz.
        let full = target(Config::Full);
        assert!((full.clock_hz / full.cycles_per_frame(64) - 14_880_952.4).abs() < 1.0);
        assert!((full.cycles_per_frame(64) - 10.5).abs() < 1e-9);
        // At 1 GbE a 64-byte frame occupies 672 ns (1.488 Mframes/s): 28 cycles of 24 ns at 41.67 MHz.
        let small = target(Config::Small);
        assert!((small.clock_hz / small.cycles_per_frame(64) - 1_488_095.2).abs() < 1.0);
        assert!((small.cycles_per_frame(64) - 28.0).abs() < 1e-9);
        // line time of 10 frames of 60 bytes (FCS not counted in `bytes`): 10 x 84 x 8 bits
        assert!((full.line_seconds(10, 600) - 6720.0 / 10e9).abs() < 1e-15);
    }
}
