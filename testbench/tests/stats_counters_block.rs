//! `StatsCounters` (hw/src/csr/stats.rs) alone in the rust-hdl simulator, against plain
//! sums: increments at the worst rates (every event counter every other cycle on
//! average, far above one per frame; a byte counter a frame's length, up to 65,535, as
//! often as a 16-byte datapath can end frames: one of L bytes at least max(8, L/16)
//! cycles after the one before), reads of random
//! counters at random times from the first cycle after reset (while the RAM still
//! clears), each answer between the counter's sum when the read was asked and its sum
//! when it was answered; then, once the increments stop, every counter read exactly.

mod common;

use common::hdl::{reset_for, run_testbench};
use nic_hw::csr::{counts_bytes, StatsCounters, COUNTER_REGS, N_COUNTERS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

#[test]
fn counters_in_ram_match_their_sums() {
    let bad = run_testbench(400_000, |x: &mut Box<StatsCounters>| x.clock.next = !x.clock.val(), |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(0x57a7);
        let wide: Vec<bool> = COUNTER_REGS.iter().map(|n| counts_bytes(n)).collect();
        let mut sum = [0u32; N_COUNTERS];
        let mut bad = Vec::new();
        let mut pending: Option<(usize, u32, u64)> = None;
        let mut gap = 0u32;
        // per byte counter: the next frame's length and the cycle it ends
        let mut next_frame: Vec<(u32, u64)> = vec![(0, 0); N_COUNTERS];
        x.rd_req.next = false;
        for i in 0..N_COUNTERS {
            x.inc[i].next = Bits::<18>::from(0u64);
        }
        reset_for!(sim, x, 3);
        let mut answers = 0;
        for cycle in 0..12_000u64 {
            let traffic = cycle < 10_000;
            // this cycle's increments, counted at its end
            for i in 0..N_COUNTERS {
                let v: u32 = match (traffic, wide[i]) {
                    (false, _) => 0,
                    (true, false) => rng.gen_range(0..2),
                    (true, true) if cycle == next_frame[i].1 => {
                        let len = next_frame[i].0;
                        let next = if rng.gen_bool(0.1) { rng.gen_range(60..=65_535) } else { rng.gen_range(60..=1518) };
                        next_frame[i] = (next, cycle + u64::from(next.div_ceil(16)).max(8));
                        len
                    }
                    (true, true) => 0,
                };
                x.inc[i].next = Bits::<18>::from(u64::from(v));
            }
            if pending.is_none() && gap == 0 {
                let i = rng.gen_range(0..N_COUNTERS);
                pending = Some((i, sum[i], cycle));
                gap = rng.gen_range(4..12);
            }
            if let Some((i, _, _)) = pending {
                x.rd_req.next = true;
                x.rd_index.next = Bits::<5>::from(i as u64);
            } else {
                x.rd_req.next = false;
            }
            for i in 0..N_COUNTERS {
                sum[i] = sum[i].wrapping_add(x.inc[i].next.to_u64() as u32);
            }
            wait_clock_cycle!(sim, clock, x);
            gap = gap.saturating_sub(1);
            if x.rd_valid.val() {
                let (i, low, asked) = pending.take().expect("an answer without a read");
                let got = x.rd_data.val().to_u64() as u32;
                // the value at the scanner's visit: at or after the read was asked, before now
                let high = sum[i] - x.inc[i].val().to_u64() as u32;
                if got < low || got > high || (cycle >= 10_200 && got != sum[i]) {
                    bad.push(format!("cycle {cycle}: {} read {got}, expected {low}..={high} (asked at {asked})", COUNTER_REGS[i]));
                }
                answers += 1;
            }
            if let Some((_, _, asked)) = pending {
                if cycle - asked > 200 {
                    bad.push(format!("cycle {cycle}: a read asked at {asked} is not answered"));
                    break;
                }
            }
        }
        // every counter once the increments stopped
        for i in 0..N_COUNTERS {
            x.rd_req.next = true;
            x.rd_index.next = Bits::<5>::from(i as u64);
            let mut got = None;
            for _ in 0..200 {
                wait_clock_cycle!(sim, clock, x);
                if x.rd_valid.val() {
                    got = Some(x.rd_data.val().to_u64() as u32);
                    break;
                }
            }
            x.rd_req.next = false;
            wait_clock_cycle!(sim, clock, x);
            if got != Some(sum[i]) {
                bad.push(format!("{} at rest: read {got:?}, sum {}", COUNTER_REGS[i], sum[i]));
            }
        }
        assert!(answers > 500, "only {answers} reads answered");
        Ok((x, bad))
    });
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}
