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
//! `NicFifo` again as exported Verilog under Icarus Verilog (`common::icarus`), on the
//! same random vectors as in rust-hdl's simulator: both must match the model cycle by
//! cycle. The Verilog once disagreed: its `full` missed the fill that wraps the write
//! pointer, and the next write overwrote the head (see `NicFifo::wr_plus_one`).
//! Both FIFO tests run the default FIFO and the one `with_fast_read` (its next read
//! address from a register holding `rd_ptr + 1`).
//!
//! `RamOutReg` and `RamOutQueue`: a random source and a random sink; every word arrives
//! once, in order, and the queue passes a word every cycle while both sides are willing
//! (the register one every other cycle).

mod common;

use common::hdl::{reset_for, run_testbench, run_testbench_of};
use common::icarus;
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
    fifo_collision_run(false);
}

#[test]
fn fifo_with_fast_read_never_shows_a_collision_read() {
    fifo_collision_run(true);
}

fn fifo_collision_run(fast_read: bool) {
    let uut = NicFifo::<Bits<16>, 3, 4>::default().with_fast_read(fast_read);
    let (bad, popped, empty_pushes) = run_testbench_of(uut, 400_000, |x: &mut Box<NicFifo<Bits<16>, 3, 4>>| x.clock.next = !x.clock.val(), |sim, mut x| {
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

/// Random (write, read, word) vectors for `NicFifo<Bits<16>, 3, 4>`: three reset cycles,
/// then phases of 300 cycles that fill, balance and drain, so the FIFO fills up at every
/// position of its pointers (their wrap included) and empties often.
fn fifo_vectors(seed: u64, cycles: usize) -> Vec<(bool, bool, bool, u16)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut v = vec![(true, false, false, 0u16); 3];
    for c in 0..cycles {
        let (p_write, p_read) = match (c / 300) % 3 {
            0 => (0.9, 0.3),
            1 => (0.5, 0.5),
            _ => (0.3, 0.9),
        };
        v.push((false, rng.gen_bool(p_write), rng.gen_bool(p_read), rng.gen_range(1..=u16::MAX)));
    }
    v
}

/// What `NicFifo<_, 3, 4>` shows each cycle for `vectors` (empty, full, count, the head
/// when not empty), from a queue of words and the cycle each was pushed: a word pushed in
/// cycle c is at the head from cycle c + 2 (the RAM's registered read), a write while
/// full and a read while empty do nothing.
fn fifo_expected(vectors: &[(bool, bool, bool, u16)]) -> Vec<(bool, bool, u64, Option<u16>)> {
    let mut q: VecDeque<(usize, u16)> = VecDeque::new();
    let mut out = Vec::new();
    let mut since_reset = 0;
    for (c, &(reset, write, read, word)) in vectors.iter().enumerate() {
        let empty = since_reset < 1 || q.front().is_none_or(|&(at, _)| at + 2 > c);
        let full = q.len() == 8;
        out.push((empty, full, q.len() as u64, (!empty).then(|| q.front().unwrap().1)));
        if reset {
            q.clear();
            since_reset = 0;
            continue;
        }
        since_reset += 1;
        if read && !empty {
            q.pop_front();
        }
        if write && !full {
            q.push_back((c, word));
        }
    }
    out
}

/// The same vectors through rust-hdl's simulator and through the exported Verilog under
/// Icarus: each cycle's empty, full, count and head equal the model's in both.
#[test]
fn fifo_verilog_and_rust_hdl_agree_with_the_model_across_pointer_wraps() {
    fifo_wrap_run(false);
}

#[test]
fn fifo_with_fast_read_verilog_and_rust_hdl_agree_with_the_model_across_pointer_wraps() {
    fifo_wrap_run(true);
}

fn fifo_wrap_run(fast_read: bool) {
    let vectors = fifo_vectors(0xf1f0_57a7, 6000);
    let expected = fifo_expected(&vectors);
    let full_at_wrap = (0..vectors.len() - 1)
        .filter(|&c| expected[c].2 == 7 && !expected[c].1 && expected[c + 1].1)
        .filter(|&c| vectors[..=c].iter().filter(|v| !v.0 && v.1).count() % 16 == 0)
        .count();
    let show = |who: &str, got: &[(bool, bool, u64, Option<u16>)]| {
        let bad: Vec<String> = (0..got.len())
            .filter(|&c| got[c] != expected[c])
            .take(8)
            .map(|c| format!("cycle {c}: (empty, full, count, head) {:?}, expected {:?}", got[c], expected[c]))
            .collect();
        assert!(bad.is_empty(), "{who} differs from the model:\n{}", bad.join("\n"));
    };
    // rust-hdl's simulator
    let v = vectors.clone();
    let uut = NicFifo::<Bits<16>, 3, 4>::default().with_fast_read(fast_read);
    let rust_hdl = run_testbench_of(uut, 1_000_000, |x: &mut Box<NicFifo<Bits<16>, 3, 4>>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut got = Vec::new();
        for &(reset, write, read, word) in &v {
            x.reset.next = reset;
            x.write.next = write;
            x.read.next = read;
            x.data_in.next = Bits::<16>::from(u64::from(word));
            let empty = x.empty.val();
            got.push((empty, x.full.val(), x.count.val().to_u64(), (!empty).then(|| x.data_out.val().to_u64() as u16)));
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, got))
    });
    show("rust-hdl", &rust_hdl);
    // the exported Verilog
    let mut uut = NicFifo::<Bits<16>, 3, 4>::default().with_fast_read(fast_read);
    uut.connect_all();
    let verilog = generate_verilog(&uut);
    let vecs: Vec<Vec<u128>> = vectors.iter().map(|&(r, w, rd, d)| vec![r as u128, w as u128, rd as u128, d as u128]).collect();
    let rows = icarus::run(if fast_read { "nicfifo_fast" } else { "nicfifo" }, &verilog, &["reset", "write", "read", "data_in"], &vecs, &["empty", "full", "count", "data_out"]);
    let icarus: Vec<_> = rows
        .iter()
        .map(|r| {
            let bit = |n: &str| r[n].unwrap_or_else(|| panic!("{n} is x or z")) as u64;
            let empty = bit("empty") == 1;
            // (an x head while not empty reads as 0, which no pushed word is)
            (empty, bit("full") == 1, bit("count"), (!empty).then(|| r["data_out"].unwrap_or(0) as u16))
        })
        .collect();
    show("the Verilog under Icarus", &icarus);
    assert!(full_at_wrap >= 5, "the vectors filled the FIFO with the write that wraps its pointer only {full_at_wrap} times");
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
