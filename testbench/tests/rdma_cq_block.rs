//! `RdmaCqWriter` (hw/src/rdma/cq.rs) alone in rust-hdl's simulator against the
//! behavioural model's CQ writer (`RdmaEngine::post_cqe`, the CQ doorbell, moderation by
//! `tick`).
//!
//! A random run over the 16 CQs: CQEs posted to rings of 2..16 entries (so rings wrap,
//! the owner bit flips and rings fill up), consumer index updates, arming (all or
//! solicited-only completions) with random IRQ_COUNT and IRQ_TIMER, the driver re-storing
//! a CQ's context (with and without its ENABLE word), a disabled CQ, and a CQ whose ring
//! the host refuses to take writes into. The model runs the operations first and
//! records them; the block then gets the same ones, each once the one before has
//! settled, with its CQ table port, DMA writes and their answers served by the test at
//! random latencies. Compared: the interrupts raised after every operation, host memory
//! byte for byte, the CQ contexts (PI, OVERFLOW) at the end, and the CQE and overflow
//! counts.

mod common;

use common::hdl::{SparseMem, TablePortSim, bits_to_words, run_testbench, words_to_bits};
use nic_hw::rdma::RdmaCqWriter;
use nic_regmap::rdma::{self as map, cqc, WcStatus};
use nic_testbench::roce::engine::{Cqe, EngineConfig, HostPort, RdmaEngine};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Writes at or above this bus address are refused by the host (an unmapped page).
const UNMAPPED: u64 = 1 << 40;
/// The CQ whose ring is unmapped, and the one that starts disabled.
const CQ_UNMAPPED: usize = 13;
const CQ_DISABLED: usize = 14;
/// The longest moderation timer the test sets: the block gets this long (and more)
/// after each operation for its timers to run out, the model a thousand cycles.
const MAX_TIMER: u32 = 30;

#[derive(Clone, Default)]
struct Mem(SparseMem);

impl HostPort for Mem {
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        self.0.read(addr, len)
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        addr < UNMAPPED && self.0.write(addr, data)
    }
}

#[derive(Clone, Debug)]
enum Op {
    Post(usize, Cqe),
    Doorbell { cq: usize, ci: u16, arm: Option<bool> },
    /// The driver stores these words of a CQ's context (word mask).
    Store { cq: usize, words: [u32; cqc::WORDS], mask: u32 },
}

#[derive(Debug, PartialEq)]
struct Outcome {
    /// Vectors raised after each operation (bit c: CQ c).
    irqs: Vec<u16>,
    mem: std::collections::BTreeMap<u64, u8>,
    cq: Vec<Vec<u32>>,
    cqes: u32,
    overflows: u32,
}

fn random_context(rng: &mut StdRng, c: usize) -> [u32; cqc::WORDS] {
    let mut w = [0u32; cqc::WORDS];
    let base = if c == CQ_UNMAPPED { UNMAPPED + 0x1000 } else { 0x10_0000 * (c as u64 + 1) + 32 * rng.gen_range(0..4) };
    cqc::BASE_LO.set(&mut w, base as u32);
    cqc::BASE_HI.set(&mut w, (base >> 32) as u32);
    cqc::LOG2.set(&mut w, rng.gen_range(1..=4));
    cqc::ENABLE.set(&mut w, u32::from(c != CQ_DISABLED));
    cqc::IRQ_COUNT.set(&mut w, rng.gen_range(0..=4));
    cqc::IRQ_TIMER.set(&mut w, if rng.gen_bool(0.5) { 0 } else { rng.gen_range(5..=MAX_TIMER) });
    w
}

fn random_cqe(rng: &mut StdRng) -> Cqe {
    let status = if rng.gen_bool(0.8) {
        WcStatus::Success
    } else {
        [WcStatus::LocProtErr, WcStatus::WrFlushErr, WcStatus::RemAccessErr, WcStatus::RemOpErr][rng.gen_range(0..4)]
    };
    Cqe {
        wr_id: rng.gen(),
        byte_len: rng.gen(),
        imm: rng.gen_bool(0.3).then(|| rng.gen()),
        qpn: rng.gen_range(2..64),
        opcode: [0, 1, 2, 128, 129][rng.gen_range(0..5)],
        status,
        solicited: rng.gen_bool(0.3),
        syndrome: if status == WcStatus::Success { 0 } else { rng.gen() },
    }
}

fn store(m: &mut RdmaEngine, mem: &mut Mem, cq: usize, words: &[u32; cqc::WORDS], mask: u32) {
    for (w, &v) in words.iter().enumerate() {
        m.reg_write(map::TABLE_DATA + 4 * w as u32, v, mem, 0);
    }
    m.reg_write(map::TABLE_CMD, cq as u32 | map::TABLE_CQ << 8 | map::TABLE_CMD_WRITE | mask << 16, mem, 0);
}

/// The model runs `n` random operations; they and what came of them.
fn expect(seed: u64, n: usize) -> (Vec<Op>, Outcome) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut m = RdmaEngine::new(EngineConfig { qps: 64, mrs: 64, cqs: 16 });
    let mut mem = Mem::default();
    let mut ops = Vec::new();
    for c in 0..16 {
        ops.push(Op::Store { cq: c, words: random_context(&mut rng, c), mask: 0x1f });
    }
    for _ in 0..n {
        let c = if rng.gen_bool(0.5) { rng.gen_range(0..4) } else { rng.gen_range(0..16) };
        let pi = cqc::PI.get(&m.entry(map::TABLE_CQ, c)) as u16;
        ops.push(match rng.gen_range(0..100) {
            0..=54 => Op::Post(c, random_cqe(&mut rng)),
            55..=86 => Op::Doorbell { cq: c, ci: pi.wrapping_sub(rng.gen_range(0..3)), arm: rng.gen_bool(0.6).then(|| rng.gen_bool(0.3)) },
            87..=94 => Op::Store { cq: c, words: random_context(&mut rng, c), mask: 0x1f },
            // moderation changed, the ring left as it is
            _ => Op::Store { cq: c, words: random_context(&mut rng, c), mask: 1 << cqc::IRQ_COUNT.word | 1 << cqc::IRQ_TIMER.word },
        });
    }
    let mut now = 0u64;
    let mut irqs = Vec::new();
    let mut cqes = 0;
    for op in &ops {
        now += 1000;
        match op {
            Op::Post(c, e) => {
                let before = m.entry(map::TABLE_CQ, *c);
                m.post_cqe(&mut mem, *c, e, now);
                if cqc::PI.get(&m.entry(map::TABLE_CQ, *c)) != cqc::PI.get(&before) {
                    cqes += 1;
                }
            }
            Op::Doorbell { cq, ci, arm } => {
                let flags = match arm {
                    None => 0,
                    Some(false) => map::CQ_DOORBELL_ARM,
                    Some(true) => map::CQ_DOORBELL_ARM | map::CQ_DOORBELL_SOLICITED,
                };
                m.reg_write(map::CQ_DOORBELL, *cq as u32 | flags | u32::from(*ci) << 16, &mut mem, now);
            }
            Op::Store { cq, words, mask } => store(&mut m, &mut mem, *cq, words, *mask),
        }
        m.tick(now + 999);
        irqs.push((m.take_irq() >> map::CQ_IRQ_BASE) as u16);
    }
    let cq = (0..16).map(|c| m.entry(map::TABLE_CQ, c).to_vec()).collect();
    (ops, Outcome { irqs, mem: mem.0 .0, cq, cqes, overflows: m.reg_read(map::CQ_OVERFLOWS) })
}

fn run(ops: Vec<Op>, seed: u64) -> Outcome {
    run_testbench(400_000_000_000, |x: &mut Box<RdmaCqWriter>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut table = vec![[0u32; cqc::WORDS]; 16];
        let mut mem = Mem::default();
        // the CQ port: (index, write, mask, data, cycles to its answer)
        let mut port = TablePortSim::new(3);
        // DMA: the burst's beats so far, and answers due (cycle, error)
        let mut burst: Vec<(u64, [u8; 16])> = Vec::new();
        let mut answers: VecDeque<(u64, bool)> = VecDeque::new();
        let mut out = Outcome { irqs: Vec::new(), mem: Default::default(), cq: Vec::new(), cqes: 0, overflows: 0 };
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        let mut cycle = 0u64;
        for op in &ops {
            // the operation, for a cycle
            x.cqe_valid.next = false;
            x.db_valid.next = false;
            x.cq_restart.next = false;
            let mut irq = 0u16;
            match op {
                Op::Post(c, e) => {
                    let b = e.bytes();
                    let mut v = Bits::<256>::default();
                    for &byte in b.iter().rev() {
                        v = (v << 8u64) | Bits::<256>::from(u64::from(byte));
                    }
                    x.cqe_valid.next = true;
                    x.cqe_cq.next = Bits::<4>::from(*c as u64);
                    x.cqe_entry.next = v;
                    loop {
                        x = sim.wait(1, x)?;
                        let taken = x.cqe_ready.val();
                        wait_clock_cycle!(sim, clock, x);
                        if taken {
                            break;
                        }
                    }
                    x.cqe_valid.next = false;
                }
                Op::Doorbell { cq, ci, arm } => {
                    x.db_valid.next = true;
                    x.db_cq.next = Bits::<4>::from(*cq as u64);
                    x.db_ci.next = Bits::<16>::from(u64::from(*ci));
                    x.db_arm.next = arm.is_some();
                    x.db_solicited.next = *arm == Some(true);
                    wait_clock_cycle!(sim, clock, x);
                    x.db_valid.next = false;
                }
                Op::Store { cq, words, mask } => {
                    // as RdmaTables does it: the store, PI and OVERFLOW cleared with ENABLE's word, reported
                    for w in 0..cqc::WORDS {
                        if mask & (1 << w) != 0 {
                            table[*cq][w] = words[w];
                        }
                    }
                    if mask & (1 << cqc::ENABLE.word) != 0 {
                        cqc::PI.set(&mut table[*cq], 0);
                        cqc::OVERFLOW.set(&mut table[*cq], 0);
                        x.cq_restart.next = true;
                        x.cq_restart_index.next = Bits::<4>::from(*cq as u64);
                    }
                    wait_clock_cycle!(sim, clock, x);
                    x.cq_restart.next = false;
                }
            }
            // then the block at work until it has settled and its timers could run out
            let mut quiet = 0;
            while quiet < MAX_TIMER + 8 {
                cycle += 1;
                x.cq_ready.next = port.idle() && rng.gen_bool(0.7);
                x.cq_rvalid.next = false;
                if let Some(i) = port.due() {
                    x.cq_rvalid.next = true;
                    x.cq_rdata.next = words_to_bits::<160>(&table[i]);
                }
                x.dma_wr_ready.next = rng.gen_bool(0.7);
                x.dma_wr_rsp_valid.next = false;
                if let Some(&(due, err)) = answers.front() {
                    if due <= cycle {
                        x.dma_wr_rsp_valid.next = true;
                        x.dma_wr_rsp_error.next = err;
                    }
                }
                x = sim.wait(1, x)?;
                let mut busy = !port.idle() || !answers.is_empty() || !burst.is_empty();
                irq |= x.irq.val().to_u64() as u16;
                if x.cnt_cqe.val() {
                    out.cqes += 1;
                }
                if x.cnt_overflow.val() {
                    out.overflows += 1;
                }
                let table_access = (x.cq_valid.val() && x.cq_ready.val())
                    .then(|| (x.cq_index.val().to_u64() as usize, x.cq_write.val(), bits_to_words(x.cq_mask.val(), cqc::WORDS), bits_to_words(x.cq_wdata.val(), cqc::WORDS)));
                busy |= table_access.is_some();
                port.step(&mut table, x.cq_rvalid.val(), table_access);
                if x.dma_wr_rsp_valid.val() {
                    answers.pop_front();
                }
                if x.dma_wr_valid.val() && x.dma_wr_ready.val() {
                    assert_eq!(x.dma_wr_strb.val().to_u64(), 0xffff, "a CQE beat writes all 16 bytes");
                    let d = x.dma_wr_data.val();
                    let mut b = [0u8; 16];
                    for (k, byte) in b.iter_mut().enumerate() {
                        *byte = d.get_bits::<8>(8 * k).to_u64() as u8;
                    }
                    burst.push((x.dma_wr_addr.val().to_u64(), b));
                    if x.dma_wr_last.val() {
                        let mut refused = false;
                        for (a, b) in burst.drain(..) {
                            refused |= !mem.write(a, &b);
                        }
                        answers.push_back((cycle + rng.gen_range(1..20), refused));
                    }
                    busy = true;
                }
                wait_clock_cycle!(sim, clock, x);
                quiet = if busy || !x.cqe_ready.val() { 0 } else { quiet + 1 };
                assert!(cycle < 10_000_000, "stuck at {op:?}");
            }
            out.irqs.push(irq);
        }
        out.mem = mem.0 .0;
        out.cq = table.iter().map(|w| w.to_vec()).collect();
        Ok((x, out))
    })
}

#[test]
fn cq_writer_matches_the_model() {
    for seed in [1u64] {
        let (ops, want) = expect(seed, 800);
        assert!(want.cqes > 200 && want.overflows > 10, "the run exercises full rings and posts (cqes {}, overflows {})", want.cqes, want.overflows);
        assert!(want.irqs.iter().filter(|&&v| v != 0).count() > 20, "the run raises interrupts");
        eprintln!("{} operations: {} CQEs, {} lost, {} operations raised vectors", ops.len(), want.cqes, want.overflows, want.irqs.iter().filter(|&&v| v != 0).count());
        let got = run(ops.clone(), seed + 100);
        assert_eq!(got.cqes, want.cqes, "CQEs written");
        assert_eq!(got.overflows, want.overflows, "CQEs lost");
        assert_eq!(got.cq, want.cq, "CQ contexts");
        assert!(got.mem == want.mem, "host memory differs");
        for (i, (g, w)) in got.irqs.iter().zip(&want.irqs).enumerate() {
            assert_eq!(g, w, "vectors raised after operation {i} ({:?})", ops[i]);
        }
    }
}
