//! `RdmaIcrc` (hw/src/rdma/icrc.rs) alone in the rust-hdl simulator, against the golden
//! model: random RoCEv2 frames from `nic_testbench::roce` (IPv4 and IPv6, every opcode,
//! payloads of 0..=600 bytes, random TOS/TTL/FECN that the ICRC must not see) stream past
//! the block whole, ICRC and Ethernet padding included, back to back or with idle cycles
//! between and inside frames. Each frame's ICRC must come out exactly `LATENCY` cycles
//! after its last covered beat and equal the bytes the golden model put on the wire
//! (which scapy's independent implementation confirms in roce_wire.rs).

mod common;

use common::hdl::{beats, run_testbench};
use nic_hw::rdma::icrc::{RdmaIcrc, LATENCY};
use nic_testbench::roce::gen;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// A random frame and where its ICRC coverage ends (the ICRC's first byte).
fn random_frame(rng: &mut StdRng) -> (Vec<u8>, usize) {
    let op = gen::random_opcode(rng);
    let v6 = rng.gen_bool(0.4);
    let r = gen::random_repr(rng, op, v6);
    let len = rng.gen_range(0..=600);
    let f = r.emit_frame(&gen::random_payload(rng, op, len));
    let ip_end = if v6 { 14 + 40 + usize::from(u16::from_be_bytes([f[18], f[19]])) } else { 14 + usize::from(u16::from_be_bytes([f[16], f[17]])) };
    (f, ip_end - 4)
}

/// What the bench expects and has seen.
#[derive(Default)]
struct Check {
    cycle: u64,
    /// (cycle the ICRC must show in, value), in order
    expect: std::collections::VecDeque<(u64, u32)>,
    checked: usize,
    bad: Vec<String>,
}

/// One clock cycle; checks the ICRC output after it.
fn step(sim: &mut Sim<RdmaIcrc>, mut x: Box<RdmaIcrc>, c: &mut Check) -> Result<Box<RdmaIcrc>, SimError> {
    wait_clock_cycle!(sim, clock, x);
    c.cycle += 1;
    if x.icrc_valid.val() {
        let got = x.icrc.val().to_u64() as u32;
        match c.expect.pop_front() {
            Some((at, want)) => {
                if at != c.cycle || got != want {
                    c.bad.push(format!("ICRC {got:08x} at cycle {}, expected {want:08x} at {at}", c.cycle));
                }
                c.checked += 1;
            }
            None => c.bad.push(format!("ICRC {got:08x} nobody expected at cycle {}", c.cycle)),
        }
    }
    Ok(x)
}

fn run(seed: u64, frames: usize, idle: f64) -> (usize, Vec<String>) {
    run_testbench(400_000_000, |x: &mut Box<RdmaIcrc>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut c = Check::default();
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        for _ in 0..frames {
            let (f, cover_end) = random_frame(&mut rng);
            let want = u32::from_le_bytes(f[cover_end..cover_end + 4].try_into().unwrap());
            let last_beat = (cover_end - 1) / 8;
            for (k, (data, _, _)) in beats(&f).into_iter().enumerate() {
                while rng.gen_bool(idle) {
                    x.beat_valid.next = false;
                    x = step(sim, x, &mut c)?;
                }
                x.beat_valid.next = true;
                x.beat_data.next = Bits::<64>::from(data);
                x.beat_first.next = k == 0;
                x.beat_last.next = k == last_beat;
                x.beat_last_6.next = cover_end % 8 == 6;
                if k == last_beat {
                    c.expect.push_back((c.cycle + LATENCY, want));
                }
                x = step(sim, x, &mut c)?;
            }
        }
        x.beat_valid.next = false;
        for _ in 0..LATENCY + 2 {
            x = step(sim, x, &mut c)?;
        }
        if !c.expect.is_empty() {
            c.bad.push(format!("{} ICRCs never came out", c.expect.len()));
        }
        Ok((x, (c.checked, c.bad)))
    })
}

#[test]
fn back_to_back_frames() {
    let (checked, bad) = run(0x1c7c, 300, 0.0);
    assert_eq!(checked, 300);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn idle_cycles_between_and_inside_frames() {
    let (checked, bad) = run(0x1d1e, 200, 0.3);
    assert_eq!(checked, 200);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}
