//! `NicRam`, `NicFifo`, `RamOutReg` and `RamOutQueue` (hw/src/stream) alone in the rust-hdl simulator.
//!
//! `NicRam`: random writes and reads against a plain array. A read of the word written in
//! the same cycle is undefined in hardware, and the simulation returns 0 for it; every
//! other read returns the array's word.
//!
//! `NicFifo`: random pushes and pops against a `VecDeque`, with phases that keep it near
//! empty (a push into an empty FIFO while the RAM re-reads the head slot is exactly the
//! collision the FIFO must never use) and near full. Every word at the head is the
//! model's next word: never the collision's 0, as no word pushed is 0.
//!
//! `RamOutReg` and `RamOutQueue`: a random source and a random sink; every word arrives
//! once, in order, and the queue passes a word every cycle while both sides are willing
//! (the register one every other cycle).

mod common;

use common::hdl::{reset_for, run_testbench, run_testbench_of};
use nic_hw::stream::{NicFifo, NicRam, RamOutQueue, RamOutReg};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

#[test]
fn ram_reads_stored_words_and_poisons_collisions() {
    let (bad, collisions) = run_testbench(200_000, |x: &mut Box<NicRam<Bits<16>, 4>>| x.clock.next = !x.clock.val(), |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(0x4a11);
        let mut mem: [Option<u16>; 16] = [None; 16];
        let (mut bad, mut collisions) = (Vec::new(), 0);
        x.write_enable.next = false;
        wait_clock_cycle!(sim, clock, x);
        for cycle in 0..5000 {
            let wa = rng.gen_range(0..16usize);
            let ra = if rng.gen_bool(0.3) { wa } else { rng.gen_range(0..16usize) };
            let we = rng.gen_bool(0.5);
            let wd: u16 = rng.gen_range(1..=u16::MAX);
            x.write_address.next = Bits::<4>::from(wa as u64);
            x.read_address.next = Bits::<4>::from(ra as u64);
            x.write_enable.next = we;
            x.write_data.next = Bits::<16>::from(u64::from(wd));
            let expected = if we && wa == ra {
                collisions += 1;
                Some(0)
            } else {
                mem[ra]
            };
            wait_clock_cycle!(sim, clock, x);
            let got = x.read_data.val().to_u64() as u16;
            if let Some(e) = expected {
                if got != e {
                    bad.push(format!("cycle {cycle}: read {ra} (write {we} at {wa}) gave {got:#06x}, expected {e:#06x}"));
                }
            }
            if we {
                mem[wa] = Some(wd);
            }
        }
        Ok((x, (bad, collisions)))
    });
    assert!(collisions > 500, "only {collisions} collisions exercised");
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn fifo_never_shows_a_collision_read() {
    let (bad, popped, empty_pushes) = run_testbench(400_000, |x: &mut Box<NicFifo<Bits<16>, 3, 4>>| x.clock.next = !x.clock.val(), |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(0xf1f0);
        let mut model: VecDeque<u16> = VecDeque::new();
        let (mut bad, mut popped, mut empty_pushes) = (Vec::new(), 0u32, 0u32);
        x.write.next = false;
        x.read.next = false;
        reset_for!(sim, x, 3);
        for cycle in 0..12_000u32 {
            // phases of 500 cycles: mostly draining, balanced, mostly filling
            let (p_write, p_read) = match (cycle / 500) % 3 {
                0 => (0.3, 0.9),
                1 => (0.5, 0.5),
                _ => (0.9, 0.3),
            };
            // the outputs come from registers: this cycle's, before the inputs act
            let (empty, full) = (x.empty.val(), x.full.val());
            if x.count.val().to_u64() != model.len() as u64 {
                bad.push(format!("cycle {cycle}: count {} for {} words", x.count.val().to_u64(), model.len()));
            }
            if full != (model.len() == 8) {
                bad.push(format!("cycle {cycle}: full {full} with {} words", model.len()));
            }
            if !empty {
                let got = x.data_out.val().to_u64() as u16;
                if model.front() != Some(&got) {
                    bad.push(format!("cycle {cycle}: head {got:#06x}, expected {:?}", model.front()));
                }
            }
            let read = rng.gen_bool(p_read);
            let write = rng.gen_bool(p_write);
            let word: u16 = rng.gen_range(1..=u16::MAX);
            x.read.next = read;
            x.write.next = write;
            x.data_in.next = Bits::<16>::from(u64::from(word));
            if read && !empty {
                model.pop_front();
                popped += 1;
            }
            if write && !full {
                if model.is_empty() {
                    empty_pushes += 1;
                }
                model.push_back(word);
            }
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, (bad, popped, empty_pushes)))
    });
    assert!(popped > 3000 && empty_pushes > 300, "too little traffic: {popped} words out, {empty_pushes} pushes into an empty FIFO");
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n").chars().take(4000).collect::<String>());
}

/// A random source and sink around a `RamOutReg` or a `RamOutQueue` (the same ports): the
/// words sent, the words received, and (in the phases where both sides are always
/// willing) cycles and words delivered.
macro_rules! ram_out_run {
    ($name:ident, $stage:ty) => {
        fn $name(stage: $stage, seed: u64) -> (Vec<u16>, Vec<u16>, u32, u32) {
            run_testbench_of(stage, 1_000_000, |x: &mut Box<$stage>| x.clock.next = !x.clock.val(), move |sim, mut x| {
                let mut rng = StdRng::seed_from_u64(seed);
                let (mut sent, mut got) = (Vec::new(), Vec::new());
                let (mut both_cycles, mut both_words) = (0u32, 0u32);
                x.s_valid.next = false;
                x.m_ready.next = false;
                reset_for!(sim, x, 3);
                let mut next_word: u16 = 1;
                for cycle in 0..6_000u32 {
                    // phases of 1,000 cycles: both sides always willing (the rate), then random
                    let always = (cycle / 1000) % 2 == 0;
                    let offer = always || rng.gen_bool(0.6);
                    let take = always || rng.gen_bool(0.6);
                    x.s_valid.next = offer;
                    x.s_data.next = Bits::<16>::from(u64::from(next_word));
                    x.m_ready.next = take;
                    x = sim.wait(1, x)?;
                    // the handshakes at the coming edge
                    if x.m_valid.val() && take {
                        got.push(x.m_data.val().to_u64() as u16);
                        if always && cycle % 1000 >= 10 {
                            both_words += 1;
                        }
                    }
                    if always && cycle % 1000 >= 10 {
                        both_cycles += 1;
                    }
                    if offer && x.s_ready.val() {
                        sent.push(next_word);
                        next_word = next_word.wrapping_add(1).max(1);
                    }
                    wait_clock_cycle!(sim, clock, x);
                }
                Ok((x, (sent, got, both_cycles, both_words)))
            })
        }
    };
}

ram_out_run!(ram_out_reg_run, RamOutReg<Bits<16>>);
ram_out_run!(ram_out_queue_run, RamOutQueue<Bits<16>>);

#[test]
fn ram_out_reg_and_queue_keep_every_word_in_order_at_their_rates() {
    let runs = [
        ("RamOutReg (half rate)", ram_out_reg_run(RamOutReg::half_rate(), 0x5eed), 0.5, 1),
        // the output register, the ring of three and the RAM-side copy hold four at most
        ("RamOutQueue", ram_out_queue_run(RamOutQueue::default(), 0x5eed), 1.0, 4),
    ];
    for (name, (sent, got, cycles, words), per_cycle, inside) in runs {
        // everything sent arrived, in order; at most the words the stage holds are still inside
        assert!(sent.len() > 2000, "{name}: only {} words went in", sent.len());
        assert!(sent.len() - got.len() <= inside, "{name}: {} in, {} out", sent.len(), got.len());
        assert_eq!(&sent[..got.len()], &got[..], "{name}: words out of order, lost or doubled");
        let rate = f64::from(words) / f64::from(cycles);
        assert!((rate - per_cycle).abs() < 0.01, "{name}: {rate:.3} words a cycle with both sides willing, expected {per_cycle}");
    }
}
