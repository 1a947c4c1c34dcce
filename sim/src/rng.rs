//! A tiny seeded PRNG for reproducible backpressure (no dependency needed).

/// xorshift64* seeded through splitmix64: fast, deterministic, good enough for stalls.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 step so that small seeds (0, 1, 2...) give unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A coin that comes up "stall" with a fixed probability each time it is flipped.
#[derive(Clone, Debug)]
pub struct Stall {
    rng: Rng,
    threshold: u64,
    always: bool,
}

impl Stall {
    /// `prob` is clamped to [0, 1].
    pub fn new(seed: u64, prob: f64) -> Stall {
        let p = if prob.is_nan() { 0.0 } else { prob.clamp(0.0, 1.0) };
        Stall { rng: Rng::new(seed), threshold: (p * u64::MAX as f64) as u64, always: p >= 1.0 }
    }

    /// A stall source that never stalls.
    pub fn never() -> Stall {
        Stall::new(0, 0.0)
    }

    /// From an optional `(seed, probability)` pair; `salt` separates channels sharing a seed.
    pub fn from_opt(opt: Option<(u64, f64)>, salt: u64) -> Stall {
        match opt {
            Some((seed, p)) => Stall::new(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15), p),
            None => Stall::never(),
        }
    }

    #[inline]
    pub fn flip(&mut self) -> bool {
        if self.threshold == 0 {
            return false;
        }
        self.always || self.rng.next_u64() < self.threshold
    }
}
