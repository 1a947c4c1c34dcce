//! The RDMA engine's context tables (`RdmaTables`, hw/src/rdma/tables.rs) and protection
//! check (`RdmaMrCheck`, hw/src/rdma/mr_check.rs), each alone in the rust-hdl simulator,
//! against the behavioural model of the engine (testbench/src/roce/engine/):
//!
//! * the driver's side: random TABLE_DATA writes (with byte strobes) and TABLE_CMD loads
//!   and stores (every table, indices in and past each table, random word masks, QP
//!   states that clear the ring indices, CQ enables that clear PI) on the register bus,
//!   as CsrBlock drives it; after each command TABLE_STATUS and all sixteen TABLE_DATA
//!   words equal the model's `reg_read`, and at the end every entry of every table does;
//! * the engine's side interleaved with it: read-modify-writes on the QP and CQ ports,
//!   some taken while a driver's command waits (the driver goes first) and some while
//!   one runs, each answering the entry as it was before (the model's `engine_store`);
//! * the broadcasts: every MR store reaches `mr_wr_*` with the stored entry, every QP
//!   store `qp_store_*` with the QP's state after it;
//! * the protection check: random MR tables (stale tags, other PDs, missing access bits,
//!   regions ending past 2^64, zero lengths, ranges at and one past each edge), one
//!   check a cycle back to back, every answer equal to the model's `check_mr`, in order,
//!   `mr_check::LATENCY` cycles after its question.

mod common;

use common::hdl::{bits_to_words, run_testbench, words_to_bits, SparseMem};
use nic_hw::rdma::{mr_check, RdmaMrCheck, RdmaTables};
use nic_regmap::rdma::{self as map, cqc, mrc, qpc};
use nic_testbench::roce::engine::{EngineConfig, RdmaEngine};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;


fn model() -> RdmaEngine {
    RdmaEngine::new(EngineConfig { qps: 64, mrs: 64, cqs: 16 })
}



fn words_of(table: u32) -> usize {
    match table {
        map::TABLE_QP => qpc::WORDS,
        map::TABLE_MR => mrc::WORDS,
        _ => cqc::WORDS,
    }
}

/// A random word for word `w` of an entry of `table`. A QP's state stays RESET, INIT,
/// RTR or RTS: a store that moves a QP to ERR makes the model's engine flush it, which
/// is the engine's doing, not the tables' (the tables report the store, `qp_store_*`).
fn random_word(rng: &mut StdRng, table: u32, w: usize) -> u32 {
    let v: u32 = rng.gen();
    if table == map::TABLE_QP && w == 0 {
        return (v & !7) | rng.gen_range(0..4);
    }
    v
}

/// Whether a driver's command would leave a QP in a state the model's engine flushes.
fn leaves_error_state(m: &RdmaEngine, c: u32) -> bool {
    let index = (c & 0xff) as usize;
    if c >> 8 & 3 != map::TABLE_QP || index >= 64 || c & map::TABLE_CMD_WRITE == 0 {
        return false;
    }
    let state = if c >> 16 & 1 != 0 { m.reg_read(map::TABLE_DATA) } else { m.entry(map::TABLE_QP, index)[0] } & 7;
    state >= 4
}

/// One step of the driver/engine script.
#[derive(Clone, Debug)]
enum Step {
    /// TABLE_DATA[w] written with byte strobes.
    Data { w: u32, value: u32, strobes: u32 },
    /// TABLE_CMD, then wait for BUSY and read TABLE_STATUS and TABLE_DATA back.
    Cmd(u32),
    /// A read-modify-write on the QP (table 0) or CQ (table 2) port.
    Engine { table: u32, index: usize, write: bool, mask: Vec<u32>, data: Vec<u32> },
    /// An engine access taken in the cycle the driver writes TABLE_CMD (the engine's goes first).
    EngineWithCmd { table: u32, index: usize, mask: Vec<u32>, data: Vec<u32>, cmd: u32 },
    /// TABLE_CMD written, and an engine access asked for in the next cycle (the driver's goes first).
    CmdThenEngine { cmd: u32, table: u32, index: usize, mask: Vec<u32>, data: Vec<u32> },
}

fn random_cmd(rng: &mut StdRng) -> u32 {
    let table = [0u32, 0, 0, 1, 1, 2, 2, 3][rng.gen_range(0..8)];
    let index: u32 = if rng.gen_bool(0.08) { rng.gen_range(0..256) } else { rng.gen_range(0..if table == 2 { 16 } else { 64 }) };
    let write = rng.gen_bool(0.6);
    let mask: u32 = if rng.gen_bool(0.3) { 0xffff } else { rng.gen_range(0..0x10000) };
    index | table << 8 | u32::from(write) * map::TABLE_CMD_WRITE | mask << 16
}

fn random_engine(rng: &mut StdRng) -> (u32, usize, Vec<u32>, Vec<u32>) {
    let table = if rng.gen_bool(0.6) { map::TABLE_QP } else { map::TABLE_CQ };
    let n = words_of(table);
    let index = rng.gen_range(0..if table == map::TABLE_QP { 64 } else { 16 });
    // a role's mask: a few fields' bits, or nothing (a read)
    let mask: Vec<u32> = (0..n).map(|_| if rng.gen_bool(0.3) { rng.gen::<u32>() & rng.gen::<u32>() } else { 0 }).collect();
    let data: Vec<u32> = (0..n).map(|w| random_word(rng, table, w)).collect();
    (table, index, mask, data)
}

fn script(seed: u64, steps: usize) -> Vec<Step> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    // the model follows the script as it is written, so no command moves a QP to ERR
    let mut m = model();
    let mut seen = Seen::default();
    let mut push = |m: &mut RdmaEngine, seen: &mut Seen, mut step: Step| {
        let fix = |m: &RdmaEngine, c: &mut u32| {
            if leaves_error_state(m, *c) {
                *c &= !(1 << 16);
            }
            if leaves_error_state(m, *c) {
                *c &= !map::TABLE_CMD_WRITE;
            }
        };
        match &mut step {
            Step::Cmd(c) | Step::CmdThenEngine { cmd: c, .. } => fix(m, c),
            // the engine's store goes first, but it keeps every state below 4 (random_word)
            Step::EngineWithCmd { cmd, .. } => fix(m, cmd),
            _ => {}
        }
        apply(m, seen, &step);
        out.push(step);
    };
    // fill every entry first, so the loads see more than zeros
    for (table, count) in [(map::TABLE_QP, 64u32), (map::TABLE_MR, 64), (map::TABLE_CQ, 16)] {
        for index in 0..count {
            for w in 0..words_of(table) {
                push(&mut m, &mut seen, Step::Data { w: w as u32, value: random_word(&mut rng, table, w), strobes: 0xf });
            }
            push(&mut m, &mut seen, Step::Cmd(index | table << 8 | map::TABLE_CMD_WRITE | 0xffff << 16));
        }
    }
    for _ in 0..steps {
        match rng.gen_range(0..10) {
            0..=3 => push(&mut m, &mut seen, Step::Data { w: rng.gen_range(0..16), value: rng.gen(), strobes: rng.gen_range(1..16) }),
            4..=6 => push(&mut m, &mut seen, Step::Cmd(random_cmd(&mut rng))),
            7 => {
                let (table, index, mask, data) = random_engine(&mut rng);
                let write = rng.gen_bool(0.8);
                push(&mut m, &mut seen, Step::Engine { table, index, write, mask, data });
            }
            8 => {
                let (table, index, mask, data) = random_engine(&mut rng);
                push(&mut m, &mut seen, Step::EngineWithCmd { table, index, mask, data, cmd: random_cmd(&mut rng) });
            }
            _ => {
                let (table, index, mask, data) = random_engine(&mut rng);
                push(&mut m, &mut seen, Step::CmdThenEngine { cmd: random_cmd(&mut rng), table, index, mask, data });
            }
        }
    }
    // and every entry loaded at the end
    for (table, count) in [(map::TABLE_QP, 64u32), (map::TABLE_MR, 64), (map::TABLE_CQ, 16)] {
        for index in 0..count {
            push(&mut m, &mut seen, Step::Cmd(index | table << 8));
        }
    }
    drop(push);
    out
}

/// What the RTL showed: the registers after each command, each engine answer, the broadcasts.
#[derive(Default, Debug)]
struct Seen {
    after_cmd: Vec<(u32, [u32; 16])>,
    engine: Vec<Vec<u32>>,
    mr_wr: Vec<(usize, Vec<u32>)>,
    qp_store: Vec<(usize, u32)>,
}

fn run_tables(steps: Vec<Step>) -> Seen {
    run_testbench(40_000_000_000, |x: &mut Box<RdmaTables>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut seen = Seen::default();
        let mut cycles = 0u64;
        // one clock edge, with the broadcasts of the cycle before it recorded (every edge
        // of the run goes through here)
        macro_rules! edge {
            () => {{
                x = sim.wait(1, x)?;
                if x.mr_wr.val() {
                    seen.mr_wr.push((x.mr_wr_index.val().to_u64() as usize, bits_to_words(x.mr_wr_entry.val(), mrc::WORDS)));
                }
                if x.qp_store.val() {
                    seen.qp_store.push((x.qp_store_index.val().to_u64() as usize, x.qp_store_state.val().to_u64() as u32));
                }
                wait_clock_cycle!(sim, clock, x);
                cycles += 1;
                // the responder's side of an MR store's fence: past its packets every
                // fifth cycle (TABLE_STATUS stays BUSY until then)
                x.mr_fence_done.next = cycles % 5 == 0;
                assert!(cycles < 2_000_000, "stuck");
            }};
        }
        macro_rules! tick {
            () => {{
                edge!();
                x.bus_wr.next = false;
            }};
        }
        macro_rules! bus_write {
            ($off:expr, $value:expr, $strobes:expr) => {{
                let strobes: u32 = $strobes;
                let mask = (0..4).filter(|b| strobes >> b & 1 != 0).fold(0u64, |m, b| m | 0xff << (8 * b));
                x.bus_wr.next = true;
                x.bus_addr.next = Bits::<16>::from(u64::from(map::BASE + $off));
                x.bus_wdata.next = Bits::<32>::from(u64::from($value));
                x.bus_wmask.next = Bits::<32>::from(mask);
            }};
        }
        macro_rules! bus_read {
            ($off:expr) => {{
                x.bus_rd_addr.next = Bits::<16>::from(u64::from(map::BASE + $off));
                x = sim.wait(1, x)?;
                let v = x.bus_rdata.val().to_u64() as u32;
                edge!();
                v
            }};
        }
        macro_rules! engine_ask {
            ($table:expr, $index:expr, $write:expr, $mask:expr, $data:expr) => {{
                if $table == map::TABLE_QP {
                    x.qp_valid.next = true;
                    x.qp_index.next = Bits::<6>::from($index as u64);
                    x.qp_write.next = $write;
                    x.qp_mask.next = words_to_bits::<384>($mask);
                    x.qp_wdata.next = words_to_bits::<384>($data);
                } else {
                    x.cq_valid.next = true;
                    x.cq_index.next = Bits::<4>::from($index as u64);
                    x.cq_write.next = $write;
                    x.cq_mask.next = words_to_bits::<160>($mask);
                    x.cq_wdata.next = words_to_bits::<160>($data);
                }
            }};
        }
        macro_rules! engine_taken {
            ($table:expr) => {{
                x = sim.wait(1, x)?;
                if $table == map::TABLE_QP { x.qp_valid.val() && x.qp_ready.val() } else { x.cq_valid.val() && x.cq_ready.val() }
            }};
        }
        macro_rules! engine_answer {
            ($table:expr) => {{
                x.qp_valid.next = false;
                x.cq_valid.next = false;
                let mut waited = 0;
                loop {
                    x = sim.wait(1, x)?;
                    if $table == map::TABLE_QP && x.qp_rvalid.val() {
                        seen.engine.push(bits_to_words(x.qp_rdata.val(), qpc::WORDS));
                        break;
                    }
                    if $table == map::TABLE_CQ && x.cq_rvalid.val() {
                        seen.engine.push(bits_to_words(x.cq_rdata.val(), cqc::WORDS));
                        break;
                    }
                    edge!();
                    waited += 1;
                    assert!(waited < 20, "no engine answer");
                }
                edge!();
            }};
        }
        macro_rules! finish_cmd {
            ($cmd:expr) => {{
                let mut polls = 0;
                let status = loop {
                    let s = bus_read!(map::TABLE_STATUS);
                    if s & map::TABLE_STATUS_BUSY == 0 {
                        break s;
                    }
                    polls += 1;
                    assert!(polls < 30, "TABLE_STATUS stays BUSY");
                };
                let mut data = [0u32; 16];
                for (w, d) in data.iter_mut().enumerate() {
                    *d = bus_read!(map::TABLE_DATA + 4 * w as u32);
                }
                seen.after_cmd.push((status, data));
            }};
        }
        x.reset.next = true;
        tick!();
        x.reset.next = false;
        for step in steps.iter() {
            match step {
                Step::Data { w, value, strobes } => {
                    bus_write!(map::TABLE_DATA + 4 * w, *value, *strobes);
                    tick!();
                }
                Step::Cmd(c) => {
                    bus_write!(map::TABLE_CMD, *c, 0xf);
                    tick!();
                    finish_cmd!(*c);
                }
                Step::Engine { table, index, write, mask, data } => {
                    engine_ask!(*table, *index, *write, mask, data);
                    while !engine_taken!(*table) {
                        edge!();
                    }
                    edge!();
                    engine_answer!(*table);
                }
                Step::EngineWithCmd { table, index, mask, data, cmd } => {
                    engine_ask!(*table, *index, true, mask, data);
                    assert!(engine_taken!(*table), "an idle table refused the engine");
                    bus_write!(map::TABLE_CMD, *cmd, 0xf);
                    tick!();
                    engine_answer!(*table);
                    finish_cmd!(*cmd);
                }
                Step::CmdThenEngine { cmd, table, index, mask, data } => {
                    bus_write!(map::TABLE_CMD, *cmd, 0xf);
                    tick!();
                    engine_ask!(*table, *index, true, mask, data);
                    while !engine_taken!(*table) {
                        edge!();
                    }
                    edge!();
                    engine_answer!(*table);
                    finish_cmd!(*cmd);
                }
            }
        }
        Ok((x, seen))
    })
}

/// One step of the script on the model, in the order the RTL promises.
fn apply(m: &mut RdmaEngine, seen: &mut Seen, step: &Step) {
    let cmd = |m: &mut RdmaEngine, seen: &mut Seen, c: u32| {
        m.reg_write(map::TABLE_CMD, c, &mut SparseMem::default(), 0);
        let status = m.reg_read(map::TABLE_STATUS);
        let table = c >> 8 & 3;
        let index = (c & 0xff) as usize;
        if status & map::TABLE_STATUS_BAD_INDEX == 0 && c & map::TABLE_CMD_WRITE != 0 {
            if table == map::TABLE_MR {
                seen.mr_wr.push((index, m.entry(table, index)));
            }
            if table == map::TABLE_QP {
                seen.qp_store.push((index, qpc::STATE.get(&m.entry(table, index))));
            }
        }
        seen.after_cmd.push((status, std::array::from_fn(|w| m.reg_read(map::TABLE_DATA + 4 * w as u32))));
    };
    match step {
        Step::Data { w, value, strobes } => {
            let mask = (0..4).filter(|b| strobes >> b & 1 != 0).fold(0u32, |m, b| m | 0xff << (8 * b));
            let off = map::TABLE_DATA + 4 * w;
            let v = (m.reg_read(off) & !mask) | (value & mask);
            m.reg_write(off, v, &mut SparseMem::default(), 0);
        }
        Step::Cmd(c) => cmd(m, seen, *c),
        Step::Engine { table, index, write, mask, data } => {
            let none = vec![0; mask.len()];
            seen.engine.push(m.engine_store(*table, *index, if *write { mask } else { &none }, data));
        }
        Step::EngineWithCmd { table, index, mask, data, cmd: c } => {
            seen.engine.push(m.engine_store(*table, *index, mask, data));
            cmd(m, seen, *c);
        }
        Step::CmdThenEngine { cmd: c, table, index, mask, data } => {
            cmd(m, seen, *c);
            seen.engine.push(m.engine_store(*table, *index, mask, data));
        }
    }
}

fn expect_tables(steps: &[Step]) -> Seen {
    let mut m = model();
    let mut seen = Seen::default();
    for step in steps {
        apply(&mut m, &mut seen, step);
    }
    seen
}

#[test]
fn driver_and_engine_accesses_equal_the_model() {
    let steps = script(18, 700);
    let cmds = steps.iter().filter(|s| !matches!(s, Step::Data { .. } | Step::Engine { .. })).count();
    let want = expect_tables(&steps);
    let got = run_tables(steps);
    assert_eq!(got.after_cmd.len(), cmds);
    for (i, (g, w)) in got.after_cmd.iter().zip(&want.after_cmd).enumerate() {
        assert_eq!(g, w, "command {i}: TABLE_STATUS and TABLE_DATA (rtl, model)");
    }
    assert_eq!(got.engine.len(), want.engine.len());
    for (i, (g, w)) in got.engine.iter().zip(&want.engine).enumerate() {
        assert_eq!(g, w, "engine access {i}: the entry before it (rtl, model)");
    }
    assert_eq!(got.mr_wr, want.mr_wr, "MR stores broadcast");
    assert_eq!(got.qp_store, want.qp_store, "QP stores reported");
    // the script did reach the cases it is for
    assert!(want.after_cmd.iter().any(|(s, _)| s & map::TABLE_STATUS_BAD_INDEX != 0), "no bad index");
    assert!(want.after_cmd.iter().filter(|(s, _)| *s == 0).count() > 300);
    assert!(want.qp_store.iter().any(|&(_, s)| s == 0) && want.qp_store.iter().any(|&(_, s)| s != 0));
}

// ---------------------------------------------------------------- protection check

/// A check: (key, pd, addr, len, need).
type Check = (u32, u32, u64, u32, u32);

fn random_mr(rng: &mut StdRng, index: u32) -> [u32; mrc::WORDS] {
    let mut w = [0u32; mrc::WORDS];
    mrc::VALID.set(&mut w, u32::from(rng.gen_bool(0.85)));
    mrc::ACCESS.set(&mut w, rng.gen_range(0..8));
    mrc::PD.set(&mut w, rng.gen_range(1..4));
    mrc::KEY.set(&mut w, rng.gen_range(0..0x100_0000u32) << 8 | index);
    let iova: u64 = match rng.gen_range(0..4) {
        0 => u64::MAX - rng.gen_range(0..0x1_0000), // the region may end past 2^64
        1 => rng.gen_range(0..0x1_0000),
        _ => rng.gen(),
    };
    mrc::IOVA_LO.set(&mut w, iova as u32);
    mrc::IOVA_HI.set(&mut w, (iova >> 32) as u32);
    let len: u32 = match rng.gen_range(0..4) {
        0 => rng.gen_range(0..64),
        1 => u32::MAX - rng.gen_range(0..64),
        _ => rng.gen_range(0..0x10_0000),
    };
    mrc::LENGTH.set(&mut w, len);
    let bus: u64 = rng.gen_range(0..1u64 << 44);
    mrc::BUS_LO.set(&mut w, bus as u32);
    mrc::BUS_HI.set(&mut w, (bus >> 32) as u32);
    w
}

fn random_check(rng: &mut StdRng, mrs: &[[u32; mrc::WORDS]]) -> Check {
    let i = rng.gen_range(0..mrs.len());
    let w = &mrs[i];
    let mut key = mrc::KEY.get(w);
    match rng.gen_range(0..12) {
        0 => key ^= 1 << rng.gen_range(8..32),          // a stale tag
        1 => key = key & !0xff | rng.gen_range(64..256), // past the table
        _ => {}
    }
    let pd = if rng.gen_bool(0.9) { mrc::PD.get(w) } else { rng.gen_range(0..5) };
    let need = [0u32, 1, 2, 4, 2, 4, 6, 7][rng.gen_range(0..8)];
    let iova = u64::from(mrc::IOVA_LO.get(w)) | u64::from(mrc::IOVA_HI.get(w)) << 32;
    let length = u64::from(mrc::LENGTH.get(w));
    let (addr, len): (u64, u32) = match rng.gen_range(0..8) {
        0 => (iova, length.min(u64::from(u32::MAX)) as u32),                         // the whole region
        1 => (iova.wrapping_add(length).wrapping_sub(1), 1),                           // its last byte
        2 => (iova.wrapping_add(length), 1),                                           // one past
        3 => (iova.wrapping_sub(1), 1),                                                // one before
        4 => (iova.wrapping_add(rng.gen_range(0..=length)), 0),                        // nothing
        5 => (rng.gen(), rng.gen()),                                                   // anywhere
        6 => (u64::MAX - rng.gen_range(0..16), rng.gen_range(1..64)),                  // past 2^64
        _ => {
            let off = rng.gen_range(0..=length);
            (iova.wrapping_add(off), rng.gen_range(0..=(length - off + 1).min(u64::from(u32::MAX))) as u32)
        }
    };
    (key, pd, addr, len, need)
}

#[test]
fn protection_checks_equal_the_model_at_one_per_cycle() {
    let mut rng = StdRng::seed_from_u64(19);
    let mut m = model();
    let mrs: Vec<[u32; mrc::WORDS]> = (0..64).map(|i| random_mr(&mut rng, i)).collect();
    let full = vec![u32::MAX; mrc::WORDS];
    for (i, w) in mrs.iter().enumerate() {
        m.engine_store(map::TABLE_MR, i, &full, w);
    }
    let checks: Vec<Check> = (0..4000).map(|_| random_check(&mut rng, &mrs)).collect();
    let want: Vec<Option<u64>> = checks.iter().map(|&(k, pd, a, l, n)| m.check_mr(k, pd, a, u64::from(l), n)).collect();
    assert!(want.iter().filter(|r| r.is_some()).count() > 600, "too few allowed checks to mean anything");
    assert!(want.iter().filter(|r| r.is_none()).count() > 600, "too few refused checks");
    let mrs2 = mrs.clone();
    let checks2 = checks.clone();
    let got: Vec<(u64, bool, u64, u64)> = run_testbench(4_000_000_000, |x: &mut Box<RdmaMrCheck>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        for (i, w) in mrs2.iter().enumerate() {
            x.mr_wr.next = true;
            x.mr_wr_index.next = Bits::<6>::from(i as u64);
            x.mr_wr_entry.next = words_to_bits::<224>(w);
            wait_clock_cycle!(sim, clock, x);
        }
        x.mr_wr.next = false;
        let mut out = Vec::new();
        let mut queue: VecDeque<&Check> = checks2.iter().collect();
        let mut cycle = 0u64;
        while out.len() < checks2.len() {
            cycle += 1;
            assert!(cycle < 10 * checks2.len() as u64, "answers missing");
            x.in_valid.next = false;
            if let Some(&&(key, pd, addr, len, need)) = queue.front() {
                x.in_valid.next = true;
                x.in_key.next = Bits::<32>::from(u64::from(key));
                x.in_pd.next = Bits::<16>::from(u64::from(pd));
                x.in_addr.next = Bits::<64>::from(addr);
                x.in_len.next = Bits::<32>::from(u64::from(len));
                x.in_need.next = Bits::<3>::from(u64::from(need));
                x.in_tag.next = Bits::<16>::from(cycle & 0xffff);
                queue.pop_front();
            }
            x = sim.wait(1, x)?;
            if x.out_valid.val() {
                out.push((x.out_tag.val().to_u64(), x.out_ok.val(), x.out_bus.val().to_u64(), cycle));
            }
            wait_clock_cycle!(sim, clock, x);
        }
        Ok((x, out))
    });
    for (i, ((tag, ok, bus, at), w)) in got.iter().zip(&want).enumerate() {
        // asked in cycle i + 1 (tag), answered LATENCY cycles later
        assert_eq!(*tag, (i as u64 + 1) & 0xffff, "check {i}: answers in order");
        assert_eq!(*at, i as u64 + 1 + mr_check::LATENCY, "check {i}: latency");
        assert_eq!(*ok, w.is_some(), "check {i} {:x?}: allowed (rtl) vs model", checks[i]);
        if let Some(b) = w {
            assert_eq!(*bus, *b, "check {i} {:x?}: bus address", checks[i]);
        }
    }
}
