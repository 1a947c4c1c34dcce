//! An impaired wire: what ordinary Ethernet does to frames between two NICs, at
//! programmable rates, seeded and deterministic (issue 19's test bed for RoCEv2
//! reliability).
//!
//! Each frame offered with [`Impairment::offer`] meets, in this order:
//! * a **cut link**: from cycle `cut_at` for `cut_for` cycles every frame is lost;
//! * **loss**: dropped with probability `loss`;
//! * **corruption**: with probability `corrupt` one bit between the Ethernet header and
//!   the FCS is flipped and the FCS recomputed, as a switch that damages a frame in its
//!   memory and forwards it with a fresh FCS does: the MAC's FCS check passes it on, and
//!   only the IPv4 checksum, the UDP length or the ICRC can catch it;
//! * **duplication**: with probability `dup` a second copy follows the first;
//! * **reordering**: with probability `reorder` the frame (each copy on its own) is held
//!   back a random 1..=`reorder_window` cycles, so the frames behind it overtake it.
//!
//! [`Impairment::deliver`] hands out, in order of their delivery cycle, the frames due by
//! `now`. The same seed and the same offers give the same deliveries.

use crate::fcs::{fcs, FCS_LEN};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Bytes of Ethernet header that corruption leaves alone (so a frame still reaches the
/// NIC it was addressed to; damage there is the MAC filter's business, already tested).
const ETH_HEADER: usize = 14;

/// What the wire does, as rates per frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpairConfig {
    pub loss: f64,
    pub dup: f64,
    pub reorder: f64,
    /// Cycles a reordered frame may be held (at least 1).
    pub reorder_window: u64,
    pub corrupt: f64,
    /// A cut link: every frame offered in `cut_at .. cut_at + cut_for` is lost.
    pub cut_at: u64,
    pub cut_for: u64,
    pub seed: u64,
}

impl ImpairConfig {
    /// A wire that does nothing to frames.
    pub fn clean() -> ImpairConfig {
        ImpairConfig { reorder_window: 1, ..ImpairConfig::default() }
    }

    /// Every rate is a probability and the window is not empty; else what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        for (name, p) in [("loss", self.loss), ("dup", self.dup), ("reorder", self.reorder), ("corrupt", self.corrupt)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("{name} rate {p} is not a probability (0 to 1)"));
            }
        }
        if self.reorder > 0.0 && self.reorder_window == 0 {
            return Err("reordering needs a window of at least one cycle".into());
        }
        Ok(())
    }

    /// The wire changes some frame (some rate is not zero, or the link is cut).
    pub fn active(&self) -> bool {
        self.loss > 0.0 || self.dup > 0.0 || self.reorder > 0.0 || self.corrupt > 0.0 || self.cut_for > 0
    }
}

/// What the wire did, frame by frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImpairStats {
    pub offered: u64,
    pub delivered: u64,
    pub lost: u64,
    pub cut: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub corrupted: u64,
}

impl ImpairStats {
    pub fn add(&mut self, o: &ImpairStats) {
        self.offered += o.offered;
        self.delivered += o.delivered;
        self.lost += o.lost;
        self.cut += o.cut;
        self.duplicated += o.duplicated;
        self.reordered += o.reordered;
        self.corrupted += o.corrupted;
    }
}

/// One direction of an impaired wire.
pub struct Impairment {
    cfg: ImpairConfig,
    rng: StdRng,
    /// Frames waiting for their cycle: (due, order offered, frame with FCS, error flag).
    held: Vec<(u64, u64, Vec<u8>, bool)>,
    order: u64,
    pub stats: ImpairStats,
}

impl Impairment {
    pub fn new(cfg: ImpairConfig) -> Impairment {
        Impairment { cfg, rng: StdRng::seed_from_u64(cfg.seed), held: Vec::new(), order: 0, stats: ImpairStats::default() }
    }

    pub fn config(&self) -> &ImpairConfig {
        &self.cfg
    }

    fn coin(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.gen_bool(p.min(1.0))
    }

    /// A frame (FCS included, `error` its PHY error flag) put on the wire at cycle `now`.
    pub fn offer(&mut self, frame: &[u8], error: bool, now: u64) {
        self.stats.offered += 1;
        let c = self.cfg;
        if c.cut_for > 0 && now >= c.cut_at && now - c.cut_at < c.cut_for {
            self.stats.cut += 1;
            return;
        }
        if self.coin(c.loss) {
            self.stats.lost += 1;
            return;
        }
        let mut f = frame.to_vec();
        if self.coin(c.corrupt) && f.len() > ETH_HEADER + FCS_LEN {
            let body = f.len() - FCS_LEN;
            let bit = self.rng.gen_range(ETH_HEADER * 8..body * 8);
            f[bit / 8] ^= 1 << (bit % 8);
            let sum = fcs(&f[..body]).to_le_bytes();
            f[body..].copy_from_slice(&sum);
            self.stats.corrupted += 1;
        }
        let copies = if self.coin(c.dup) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut due = now;
            if self.coin(c.reorder) {
                due += self.rng.gen_range(1..=c.reorder_window.max(1));
                self.stats.reordered += 1;
            }
            self.held.push((due, self.order, f.clone(), error));
            self.order += 1;
        }
    }

    /// The frames due by `now`, in delivery order (by due cycle, then as offered).
    pub fn deliver(&mut self, now: u64) -> Vec<(Vec<u8>, bool)> {
        let mut due: Vec<_> = Vec::new();
        let mut keep = Vec::with_capacity(self.held.len());
        for h in self.held.drain(..) {
            if h.0 <= now {
                due.push(h);
            } else {
                keep.push(h);
            }
        }
        self.held = keep;
        due.sort_by_key(|h| (h.0, h.1));
        self.stats.delivered += due.len() as u64;
        due.into_iter().map(|(_, _, f, e)| (f, e)).collect()
    }

    /// Frames held back for later.
    pub fn in_flight(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fcs::with_fcs;

    fn frames(n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|i| with_fcs(&[(i % 251) as u8; 80])).collect()
    }

    fn run(cfg: ImpairConfig, n: usize) -> (Vec<Vec<u8>>, ImpairStats) {
        let mut w = Impairment::new(cfg);
        let mut out = Vec::new();
        for (i, f) in frames(n).iter().enumerate() {
            w.offer(f, false, i as u64 * 10);
            out.extend(w.deliver(i as u64 * 10).into_iter().map(|(f, _)| f));
        }
        out.extend(w.deliver(u64::MAX).into_iter().map(|(f, _)| f));
        (out, w.stats)
    }

    #[test]
    fn a_clean_wire_delivers_every_frame_unchanged_and_in_order() {
        let (out, st) = run(ImpairConfig::clean(), 500);
        assert_eq!(out, frames(500));
        assert_eq!((st.offered, st.delivered, st.lost), (500, 500, 0));
    }

    #[test]
    fn rates_are_met_within_a_few_standard_deviations() {
        let n = 20_000;
        let cfg = ImpairConfig { loss: 0.1, dup: 0.05, corrupt: 0.02, reorder: 0.03, reorder_window: 100, seed: 7, ..ImpairConfig::default() };
        let (out, st) = run(cfg, n);
        let near = |got: u64, expect: f64| ((got as f64) - expect).abs() < 5.0 * expect.sqrt() + 1.0;
        assert!(near(st.lost, 0.1 * n as f64), "lost {}", st.lost);
        let kept = (n as u64 - st.lost) as f64;
        assert!(near(st.duplicated, 0.05 * kept), "duplicated {}", st.duplicated);
        assert!(near(st.corrupted, 0.02 * kept), "corrupted {}", st.corrupted);
        assert_eq!(out.len() as u64, st.delivered);
        assert_eq!(st.delivered, n as u64 - st.lost + st.duplicated);
        // every delivered frame still carries a good FCS; the corrupted ones differ from
        // every frame offered in exactly one bit outside the Ethernet header
        let originals = frames(n);
        let mut damaged = 0;
        for f in &out {
            let body = f.len() - FCS_LEN;
            assert_eq!(fcs(&f[..body]).to_le_bytes(), f[body..]);
            if !originals.contains(f) {
                damaged += 1;
                let o = originals.iter().find(|o| o[..ETH_HEADER] == f[..ETH_HEADER] && o.len() == f.len()).unwrap();
                let bits: u32 = o[..body].iter().zip(&f[..body]).map(|(a, b)| (a ^ b).count_ones()).sum();
                assert_eq!(bits, 1, "a corrupted frame differs from its original in one bit");
            }
        }
        assert!(damaged > 0 && damaged as u64 <= st.corrupted * 2);
    }

    #[test]
    fn reordered_frames_are_overtaken_and_none_is_lost() {
        let cfg = ImpairConfig { reorder: 0.2, reorder_window: 35, seed: 3, ..ImpairConfig::default() };
        let (out, st) = run(cfg, 2_000);
        assert_eq!(st.delivered, 2_000);
        assert!(st.reordered > 300);
        let originals = frames(2_000);
        assert_ne!(out, originals, "nothing was reordered");
        let mut sorted = out.clone();
        sorted.sort();
        let mut want = originals.clone();
        want.sort();
        assert_eq!(sorted, want);
    }

    #[test]
    fn a_cut_link_loses_exactly_the_frames_offered_while_cut() {
        let cfg = ImpairConfig { cut_at: 1_000, cut_for: 500, seed: 1, ..ImpairConfig::clean() };
        let (out, st) = run(cfg, 300);
        // frames offered at 1000, 1010, ..., 1490
        assert_eq!(st.cut, 50);
        assert_eq!(out.len(), 250);
        assert!(out.iter().all(|f| !(100..150).contains(&(f[0] as usize))));
    }

    #[test]
    fn the_same_seed_gives_the_same_wire_and_another_seed_another() {
        let cfg = ImpairConfig { loss: 0.05, dup: 0.05, reorder: 0.05, reorder_window: 40, corrupt: 0.05, seed: 11, ..ImpairConfig::default() };
        let (a, sa) = run(cfg, 3_000);
        let (b, sb) = run(cfg, 3_000);
        assert_eq!((a.clone(), sa), (b, sb));
        let (c, _) = run(ImpairConfig { seed: 12, ..cfg }, 3_000);
        assert_ne!(a, c);
    }

    #[test]
    fn bad_rates_are_refused() {
        assert!(ImpairConfig { loss: 1.5, ..ImpairConfig::clean() }.validate().is_err());
        assert!(ImpairConfig { dup: -0.1, ..ImpairConfig::clean() }.validate().is_err());
        assert!(ImpairConfig { reorder: 0.1, reorder_window: 0, ..ImpairConfig::default() }.validate().is_err());
        assert!(ImpairConfig::clean().validate().is_ok());
    }
}
