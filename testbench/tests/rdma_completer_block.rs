//! `RdmaCompleter` (hw/src/rdma/completer.rs) alone in rust-hdl's simulator against the
//! behavioural model's completer (testbench/src/roce/engine/completer.rs).
//!
//! Six QPs (two sharing each send CQ, some signalling every WQE, PSNs near the 24-bit
//! wrap) get the requester's reports (SEND, WRITE, their immediate forms and READ WQEs of
//! 1..3 PSNs, signalled or not, up to 16 outstanding; a few failing their checks, and
//! flushed ones for a QP in ERR) and responses in random order: ACKs at PSNs inside,
//! before and past what is outstanding, NAKs of every code, RNR NAKs, reserved
//! syndromes, responses to QPs out of range or not in RTS, READ responses (each READ's
//! packets in order at the 1,024-byte MTU, some at the wrong PSN, with a length that
//! does not fit, ending early or late, or answering a WQE that is not a READ), and the
//! driver moving QPs to ERR, or to RESET and back to RTS. The model runs the operations first; the block then
//! gets the same ones, each once the one before has settled, its QP table port served by
//! the test and its CQEs taken at random; the test plays the responder that lands READ
//! responses (every READ response gets exactly one verdict; a landing one's WQE address
//! is the READ's in its send queue; its result comes back after a random delay).
//!
//! Compared: every CQE in order per CQ (wr_id, length, QP, opcode, status, syndrome),
//! the QPs the requester is told to hold back after each operation, each QP's state at the
//! end, and the counters.

mod common;

use common::hdl::{SparseMem, TablePortSim, bits_to_words, run_testbench, words_to_bits};
use nic_hw::rdma::completer::SQ_FULL_AT;
use nic_hw::rdma::RdmaCompleter;
use nic_regmap::rdma::{self as map, cqc, cqe, qpc, wqe, QpState, WcStatus};
use nic_testbench::roce::engine::{EngineConfig, RdmaEngine};
use nic_testbench::roce::{opcode, psn_add, RoceRepr};
use nic_testbench::wire::aeth::{AethRepr, Syndrome};
use nic_testbench::wire::bth::{BthRepr, DEFAULT_PKEY};
use nic_testbench::wire::EthernetAddress;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

const QPS: std::ops::Range<usize> = 2..8;
/// The QPs' path MTU: code 3, 1,024 bytes.
const PMTU_CODE: u32 = 3;
const MTU: u32 = 1024;
/// Each QP's send queue: 2^SQ_LOG2 WQEs at `sq_base(q)`.
const SQ_LOG2: u32 = 5;

fn sq_base(q: usize) -> u64 {
    0x0200_0000 + 0x1_0000 * q as u64
}

/// The requester's index of a WQE (the test makes it from its wr_id).
fn sq_index(wr_id: u64) -> u64 {
    wr_id & 0xffff
}
const CQ_LOG2: u32 = 12;

fn cq_base(c: usize) -> u64 {
    0x1000_0000 + 0x100_0000 * c as u64
}

#[derive(Clone, Debug)]
enum Op {
    Report { q: usize, wr_id: u64, opcode: u8, signalled: bool, last_psn: u32, first_psn: u32, len: u32 },
    Failed { q: usize, wr_id: u64, opcode: u8, status: WcStatus },
    Response { q: u32, psn: u32, syndrome: u8 },
    /// `aim`: the READ it is meant for (its wr_id), the offset and the READ's length, for
    /// the test's responder to check a verdict that lands it.
    ReadResponse { q: u32, psn: u32, opcode: u8, len: u16, aim: (u64, u32, u32) },
    /// The driver stores word 0 of a QP's context (its state among it).
    Store { q: usize, word0: u32 },
}

#[derive(Debug, Default, PartialEq)]
struct Outcome {
    /// Per CQ, the CQEs in order, owner bit clear.
    cqes: BTreeMap<usize, Vec<[u8; 32]>>,
    /// After each operation: the QPs with `SQ_FULL_AT` or more WQEs outstanding.
    full: Vec<u64>,
    states: Vec<u32>,
    counters: Vec<u32>,
}

const COUNTERS: [u32; 6] = [map::RX_PACKETS, map::RX_DROP_QP, map::RX_DROP_PSN, map::RX_DROP_MALFORMED, map::RX_NAKS, map::RX_DROP_STATE];

fn store(m: &mut RdmaEngine, mem: &mut SparseMem, table: u32, index: usize, words: &[u32], mask: u32) {
    for (w, &v) in words.iter().enumerate() {
        m.reg_write(map::TABLE_DATA + 4 * w as u32, v, mem, 0);
    }
    m.reg_write(map::TABLE_CMD, index as u32 | table << 8 | map::TABLE_CMD_WRITE | mask << 16, mem, 0);
}

fn ack_frame(q: u32, psn: u32, syndrome: u8, msn: u32) -> Vec<u8> {
    response_frame(q, psn, opcode::ACKNOWLEDGE, syndrome, msn, 0)
}

fn response_frame(q: u32, psn: u32, op: u8, syndrome: u8, msn: u32, len: usize) -> Vec<u8> {
    let aeth = op != opcode::RDMA_READ_RESPONSE_MIDDLE;
    RoceRepr {
        eth_src: EthernetAddress([2, 0, 0, 0, 0, 2]),
        eth_dst: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ip_src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        ip_dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        traffic_class: 0,
        ttl: 64,
        udp_src_port: 0xc000,
        bth: BthRepr { opcode: op, solicited: false, mig_req: false, pad_count: ((4 - len % 4) % 4) as u8, pkey: DEFAULT_PKEY, fecn: false, becn: false, dest_qp: q, ack_req: false, psn },
        reth: None,
        aeth: aeth.then(|| AethRepr { syndrome: Syndrome::from_byte(syndrome), msn }),
        immdt: None,
    }
    .emit_frame(&vec![0x5a; len])
}

fn word0(state: QpState, q: usize, sig_all: bool) -> u32 {
    let mut w = [0u32; qpc::WORDS];
    qpc::STATE.set(&mut w, state as u32);
    qpc::PMTU.set(&mut w, PMTU_CODE);
    qpc::SIG_ALL.set(&mut w, u32::from(sig_all));
    qpc::SEND_CQ.set(&mut w, (q % 3) as u32);
    w[0]
}

fn apply(m: &mut RdmaEngine, mem: &mut SparseMem, op: &Op, now: u64, rng: &mut StdRng) {
    match op {
        Op::Report { q, wr_id, opcode, signalled, first_psn, last_psn, len } => {
            m.report_outstanding(*q, *wr_id, *opcode, u8::from(*signalled), *first_psn, *last_psn, *len)
        }
        Op::Failed { q, wr_id, opcode, status } => m.report_failed(*q, *wr_id, *opcode, *status, mem, now),
        Op::Response { q, psn, syndrome } => m.receive(&ack_frame(*q, *psn, *syndrome, rng.gen::<u32>() & 0xff_ffff), mem, now),
        Op::ReadResponse { q, psn, opcode, len, .. } => m.receive(&response_frame(*q, *psn, *opcode, 0, rng.gen::<u32>() & 0xff_ffff, usize::from(*len)), mem, now),
        Op::Store { q, word0 } => store(m, mem, map::TABLE_QP, *q, &[*word0], 1),
    }
}

/// The model runs `n` random operations: they, the QP table they start from, and the outcome.
fn expect(seed: u64, n: usize) -> (Vec<Op>, Vec<[u32; qpc::WORDS]>, Outcome) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut m = RdmaEngine::new(EngineConfig { qps: 64, mrs: 64, cqs: 16 });
    let mut mem = SparseMem::default();
    m.reg_write(map::CONTROL, 1, &mut mem, 0);
    m.reg_write(map::LOCAL_IPV4, 0x0a00_0001, &mut mem, 0);
    for c in 0..3 {
        let mut w = [0u32; cqc::WORDS];
        cqc::BASE_LO.set(&mut w, cq_base(c) as u32);
        cqc::LOG2.set(&mut w, CQ_LOG2);
        cqc::ENABLE.set(&mut w, 1);
        store(&mut m, &mut mem, map::TABLE_CQ, c, &w, 0x1f);
    }
    let mut qp = vec![[0u32; qpc::WORDS]; 64];
    let mut sig_all = [false; 64];
    let mut next_psn = [0u32; 64];
    for q in QPS {
        sig_all[q] = rng.gen_bool(0.3);
        qp[q][0] = word0(QpState::Rts, q, sig_all[q]);
        qpc::SQ_BASE_LO.set(&mut qp[q], sq_base(q) as u32);
        qpc::SQ_LOG2.set(&mut qp[q], SQ_LOG2);
        next_psn[q] = if rng.gen_bool(0.5) { 0xff_ffff - rng.gen_range(0..6) } else { rng.gen::<u32>() & 0xff_ffff };
        store(&mut m, &mut mem, map::TABLE_QP, q, &qp[q], 0xfff);
    }
    let qp0 = qp.clone();
    let mut ops = Vec::new();
    let mut wr = 0x100u64;
    let mut out = Outcome::default();
    let state = |m: &RdmaEngine, q: usize| qpc::STATE.get(&m.entry(map::TABLE_QP, q));
    // per READ (by wr_id), its response packets the model took so far
    let mut landed: BTreeMap<u64, u32> = BTreeMap::new();
    let mut reads = std::collections::BTreeSet::new();
    for i in 0..n {
        let q = rng.gen_range(QPS);
        let outstanding = m.outstanding_wqes(q);
        let rts = state(&m, q) == QpState::Rts as u32;
        let st = state(&m, q);
        // a QP in ERR is reset, one in RESET brought back to RTS, before long
        if st == QpState::Err as u32 && rng.gen_bool(0.2) {
            let op = if rng.gen_bool(0.3) {
                wr += 1;
                Op::Failed { q, wr_id: wr, opcode: rng.gen_range(0..5), status: WcStatus::WrFlushErr }
            } else {
                Op::Store { q, word0: word0(QpState::Reset, q, sig_all[q]) }
            };
            apply(&mut m, &mut mem, &op, i as u64, &mut rng);
            out.full.push(QPS.filter(|&q| m.outstanding_wqes(q).len() >= SQ_FULL_AT as usize).fold(0u64, |a, q| a | 1 << q));
            ops.push(op);
            continue;
        }
        if st == QpState::Reset as u32 && rng.gen_bool(0.5) {
            let op = Op::Store { q, word0: word0(QpState::Rts, q, sig_all[q]) };
            apply(&mut m, &mut mem, &op, i as u64, &mut rng);
            out.full.push(QPS.filter(|&q| m.outstanding_wqes(q).len() >= SQ_FULL_AT as usize).fold(0u64, |a, q| a | 1 << q));
            ops.push(op);
            continue;
        }
        let mut aimed_at = None;
        let op = match rng.gen_range(0..100) {
            0..=44 if rts && outstanding.len() < 16 => {
                wr += 1;
                let opcode = if rng.gen_bool(0.3) { wqe::OP_READ } else { rng.gen_range(0..4) };
                let first_psn = next_psn[q];
                let mut len = rng.gen_range(0..5000);
                let mut last_psn = psn_add(first_psn, rng.gen_range(0..3));
                if opcode == wqe::OP_READ {
                    // a READ's response takes a PSN per MTU
                    len = [0, 1, MTU - 1, MTU, MTU + 1, rng.gen_range(0..3500)][rng.gen_range(0..6)];
                    last_psn = psn_add(first_psn, len.max(1).div_ceil(MTU) - 1);
                }
                next_psn[q] = psn_add(last_psn, 1);
                if opcode == wqe::OP_READ {
                    reads.insert(wr);
                }
                Op::Report { q, wr_id: wr, opcode, signalled: rng.gen_bool(0.6), first_psn, last_psn, len }
            }
            45..=46 if rts => {
                wr += 1;
                let status = [WcStatus::LocProtErr, WcStatus::LocQpOpErr][rng.gen_range(0..2)];
                Op::Failed { q, wr_id: wr, opcode: rng.gen_range(0..5), status }
            }
            // QP 7's ACKs are rare: its ring fills up
            47..=79 if q != 7 || rng.gen_bool(0.2) => {
                let psn = match (outstanding.first(), outstanding.last(), rng.gen_range(0..10)) {
                    (Some(h), Some(t), 0..=6) => {
                        // inside: at or near one outstanding WQE's PSNs
                        let (_, f, l, _) = outstanding[rng.gen_range(0..outstanding.len())];
                        [f, l, psn_add(l, 0xff_ffff), h.1, t.2][rng.gen_range(0..5)]
                    }
                    (_, Some(t), 7) => psn_add(t.2, rng.gen_range(1..4)),
                    (Some(h), _, 8) => psn_add(h.1, 0xff_ffff - rng.gen_range(0..4)),
                    _ => next_psn[q].wrapping_sub(rng.gen_range(0..3)) & 0xff_ffff,
                };
                let syndrome = match rng.gen_range(0..100) {
                    0..=84 => rng.gen_range(0..0x20),
                    85..=90 => 0x60 | rng.gen_range(0..5),
                    91..=93 => 0x20 | rng.gen_range(0..0x20),
                    94..=96 => [0x40, 0x45, 0x65, 0x7f, 0x80, 0xe3][rng.gen_range(0..6)],
                    _ => 0,
                };
                let q = match rng.gen_range(0..40) {
                    0 => 1,
                    1 => 64 + rng.gen_range(0..100),
                    2 => 0x80_0000 | q as u32,
                    _ => q as u32,
                };
                Op::Response { q, psn, syndrome }
            }
            // a READ response: the next packet of the first READ outstanding, now and then wrong
            80..=95 => {
                let Some(&(wr_id, f, l, len)) = outstanding.iter().find(|o| reads.contains(&o.0)) else { continue };
                aimed_at = Some(wr_id);
                let pkts = psn_add(l, 0x100_0000 - f) + 1;
                let k = landed.get(&wr_id).copied().unwrap_or(0).min(pkts - 1);
                let mut psn = psn_add(f, k);
                let mut n = if k + 1 == pkts { len - k * MTU } else { MTU };
                let mut op = match (k, pkts) {
                    (_, 1) => opcode::RDMA_READ_RESPONSE_ONLY,
                    (0, _) => opcode::RDMA_READ_RESPONSE_FIRST,
                    (k, p) if k + 1 == p => opcode::RDMA_READ_RESPONSE_LAST,
                    _ => opcode::RDMA_READ_RESPONSE_MIDDLE,
                };
                match rng.gen_range(0..30) {
                    0 => psn = psn_add(psn, 1),
                    1 => psn = psn_add(psn, 0xff_ffff),
                    2 => n = n.saturating_sub(1),
                    3 => n += 1,
                    4 => op = opcode::RDMA_READ_RESPONSE_MIDDLE,
                    5 => op = opcode::RDMA_READ_RESPONSE_LAST,
                    _ => {}
                }
                let q = if rng.gen_range(0..30) == 0 { 64 + rng.gen_range(0..100) } else { q as u32 };
                Op::ReadResponse { q, psn, opcode: op, len: n as u16, aim: (wr_id, k * MTU, len) }
            }
            96..=97 => Op::Store { q, word0: word0(QpState::Err, q, sig_all[q]) },
            98..=99 => Op::Store { q, word0: word0(QpState::Reset, q, sig_all[q]) },
            _ => continue,
        };
        let took = [map::RX_PACKETS, map::RX_DROP_QP, map::RX_DROP_PSN, map::RX_DROP_MALFORMED, map::RX_DROP_STATE];
        let before: Vec<u32> = took.iter().map(|&r| m.reg_read(r)).collect();
        apply(&mut m, &mut mem, &op, i as u64, &mut rng);
        let after: Vec<u32> = took.iter().map(|&r| m.reg_read(r)).collect();
        if let (Op::ReadResponse { .. }, Some(wr_id)) = (&op, aimed_at) {
            // counted and not dropped: the READ took its next packet
            if after[0] > before[0] && after[1..] == before[1..] {
                *landed.entry(wr_id).or_default() += 1;
            }
        }
        out.full.push(QPS.filter(|&q| m.outstanding_wqes(q).len() >= SQ_FULL_AT as usize).fold(0u64, |a, q| a | 1 << q));
        ops.push(op);
    }
    for c in 0..3 {
        let v = out.cqes.entry(c).or_default();
        for k in 0..1u64 << CQ_LOG2 {
            let b = mem.0.get(&(cq_base(c) + 32 * k + cqe::FLAGS as u64)).copied().unwrap_or(0);
            if b & cqe::FLAG_OWNER == 0 {
                break;
            }
            let mut e = [0u8; 32];
            for (j, byte) in e.iter_mut().enumerate() {
                *byte = mem.0[&(cq_base(c) + 32 * k + j as u64)];
            }
            e[cqe::FLAGS] &= !cqe::FLAG_OWNER;
            v.push(e);
        }
    }
    out.states = QPS.map(|q| state(&m, q)).collect();
    out.counters = COUNTERS.iter().map(|&r| m.reg_read(r)).collect();
    (ops, qp0, out)
}

fn run(ops: Vec<Op>, qp0: Vec<[u32; qpc::WORDS]>, seed: u64) -> Outcome {
    run_testbench(400_000_000_000, |x: &mut Box<RdmaCompleter>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut qp = qp0.clone();
        let mut out = Outcome::default();
        for c in 0..3 {
            out.cqes.entry(c).or_default();
        }
        let mut counters = [0u32; 6];
        let mut port = TablePortSim::new(3);
        let mut verdicts = 0usize;
        let mut busy_vd = false;
        let mut result_in: Option<u32> = None;
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        for op in &ops {
            x.out_valid.next = false;
            x.rec_valid.next = false;
            x.qp_store.next = false;
            match op {
                Op::Report { q, wr_id, opcode, signalled, first_psn, last_psn, len } => {
                    x.out_valid.next = true;
                    x.out_qpn.next = Bits::<6>::from(*q as u64);
                    x.out_wr_id.next = Bits::<64>::from(*wr_id);
                    x.out_opcode.next = Bits::<3>::from(u64::from(*opcode));
                    x.out_signalled.next = *signalled;
                    x.out_last_psn.next = Bits::<24>::from(u64::from(*last_psn));
                    x.out_first_psn.next = Bits::<24>::from(u64::from(*first_psn));
                    x.out_sq_index.next = Bits::<16>::from(sq_index(*wr_id));
                    x.out_len.next = Bits::<32>::from(u64::from(*len));
                    x.out_status.next = 0.into();
                }
                Op::Failed { q, wr_id, opcode, status } => {
                    x.out_valid.next = true;
                    x.out_qpn.next = Bits::<6>::from(*q as u64);
                    x.out_wr_id.next = Bits::<64>::from(*wr_id);
                    x.out_opcode.next = Bits::<3>::from(u64::from(*opcode));
                    x.out_status.next = Bits::<8>::from(*status as u64);
                }
                Op::Response { q, psn, syndrome } => {
                    x.rec_valid.next = true;
                    x.rec_status.next = 0.into();
                    x.rec_opcode.next = Bits::<8>::from(u64::from(opcode::ACKNOWLEDGE));
                    x.rec_dest_qp.next = Bits::<24>::from(u64::from(*q));
                    x.rec_psn.next = Bits::<24>::from(u64::from(*psn));
                    x.rec_syndrome.next = Bits::<8>::from(u64::from(*syndrome));
                    x.rec_payload_len.next = 0.into();
                }
                Op::ReadResponse { q, psn, opcode, len, .. } => {
                    x.rec_valid.next = true;
                    x.rec_status.next = 0.into();
                    x.rec_opcode.next = Bits::<8>::from(u64::from(*opcode));
                    x.rec_dest_qp.next = Bits::<24>::from(u64::from(*q));
                    x.rec_psn.next = Bits::<24>::from(u64::from(*psn));
                    x.rec_syndrome.next = 0.into();
                    x.rec_payload_len.next = Bits::<16>::from(u64::from(*len));
                }
                Op::Store { q, word0 } => {
                    // as RdmaTables does it: the store, reported with the state after it
                    qp[*q][0] = *word0;
                    x.qp_store.next = true;
                    x.qp_store_index.next = Bits::<6>::from(*q as u64);
                    x.qp_store_state.next = Bits::<3>::from(u64::from(qpc::STATE.get(&qp[*q])));
                }
            }
            let mut quiet = 0;
            let mut cycle = 0u64;
            while quiet < 12 {
                cycle += 1;
                x.qp_ready.next = port.idle() && rng.gen_bool(0.7);
                x.qp_rvalid.next = false;
                if let Some(i) = port.due() {
                    x.qp_rvalid.next = true;
                    x.qp_rdata.next = words_to_bits::<384>(&qp[i]);
                }
                x.cqe_ready.next = rng.gen_bool(0.5);
                // the responder's side of READ responses: a verdict taken now and then, a
                // landing one's result a few cycles later
                x.vd_ready.next = rng.gen_bool(0.5);
                x.rr_valid.next = result_in == Some(0);
                x.rr_status.next = 0.into();
                x.rr_lost.next = false;
                x = sim.wait(1, x)?;
                if x.vd_valid.val() && x.vd_ready.val() {
                    verdicts += 1;
                    busy_vd = true;
                    if x.vd_ok.val() {
                        let Op::ReadResponse { q, aim: (wr_id, offset, len), .. } = op else { panic!("a verdict at {op:?}") };
                        let wqe_addr = sq_base(*q as usize) + ((sq_index(*wr_id) & ((1 << SQ_LOG2) - 1)) << 7);
                        assert_eq!((x.vd_wqe_addr.val().to_u64(), x.vd_offset.val().to_u64(), x.vd_len.val().to_u64()), (wqe_addr, u64::from(*offset), u64::from(*len)), "the verdict at {op:?}");
                        result_in = Some(rng.gen_range(0..4));
                    }
                }
                if x.rr_valid.val() && x.rr_ready.val() {
                    result_in = None;
                    busy_vd = true;
                } else if let Some(d) = result_in.filter(|&d| d > 0) {
                    result_in = Some(d - 1);
                }
                let mut busy = !port.idle() || busy_vd || result_in.is_some();
                busy_vd = false;
                let taken = x.out_valid.val() && x.out_ready.val();
                let table_access = (x.qp_valid.val() && x.qp_ready.val())
                    .then(|| (x.qp_index.val().to_u64() as usize, x.qp_write.val(), bits_to_words(x.qp_mask.val(), qpc::WORDS), bits_to_words(x.qp_wdata.val(), qpc::WORDS)));
                busy |= table_access.is_some();
                port.step(&mut qp, x.qp_rvalid.val(), table_access);
                if x.cqe_valid.val() && x.cqe_ready.val() {
                    let v = x.cqe_entry.val();
                    let mut e = [0u8; 32];
                    for (j, byte) in e.iter_mut().enumerate() {
                        *byte = v.get_bits::<8>(8 * j).to_u64() as u8;
                    }
                    out.cqes.entry(x.cqe_cq.val().to_u64() as usize).or_default().push(e);
                    busy = true;
                }
                for (k, hit) in [x.cnt_rx_packet.val(), x.cnt_drop_qp.val(), x.cnt_drop_psn.val(), x.cnt_drop_malformed.val(), x.cnt_nak.val(), x.cnt_drop_state.val()].into_iter().enumerate() {
                    if hit {
                        counters[k] += 1;
                        busy = true;
                    }
                }
                let full = x.sq_full.val().to_u64();
                wait_clock_cycle!(sim, clock, x);
                // a report until it is taken, the rest for one cycle
                if taken {
                    x.out_valid.next = false;
                    busy = true;
                }
                x.rec_valid.next = false;
                x.qp_store.next = false;
                quiet = if busy || x.out_valid.val() || !x.idle.val() { 0 } else { quiet + 1 };
                if quiet == 12 {
                    out.full.push(full);
                }
                assert!(cycle < 100_000, "stuck at {op:?}");
            }
        }
        out.states = QPS.map(|q| qpc::STATE.get(&qp[q])).collect();
        out.counters = counters.to_vec();
        let read_responses = ops.iter().filter(|o| matches!(o, Op::ReadResponse { .. })).count();
        assert_eq!(verdicts, read_responses, "one verdict per READ response");
        Ok((x, out))
    })
}

#[test]
fn completer_matches_the_model() {
    let (ops, qp0, want) = expect(7, 2000);
    let n_cqes: usize = want.cqes.values().map(|v| v.len()).sum();
    let errors = want.cqes.values().flatten().filter(|e| e[cqe::STATUS] != 0 && e[cqe::STATUS] != WcStatus::WrFlushErr as u8).count();
    let flushed = want.cqes.values().flatten().filter(|e| e[cqe::STATUS] == WcStatus::WrFlushErr as u8).count();
    eprintln!("{} operations: {n_cqes} CQEs ({errors} errors, {flushed} flushed), counters {:?}, {} times a QP was full", ops.len(), want.counters, want.full.iter().filter(|&&f| f != 0).count());
    assert!(n_cqes > 300 && errors > 10 && flushed > 20, "the run completes, fails and flushes WQEs");
    // READs complete only through their responses: some must, of several packets too
    let reads_done = want.cqes.values().flatten().filter(|e| e[cqe::OPCODE] == 2 && e[cqe::STATUS] == 0).count();
    let long_reads = want.cqes.values().flatten().filter(|e| e[cqe::OPCODE] == 2 && e[cqe::STATUS] == 0 && u32::from_le_bytes(e[cqe::BYTE_LEN..cqe::BYTE_LEN + 4].try_into().unwrap()) > MTU).count();
    let read_responses = ops.iter().filter(|o| matches!(o, Op::ReadResponse { .. })).count();
    eprintln!("{read_responses} READ responses: {reads_done} READs completed ({long_reads} of several packets)");
    assert!(reads_done > 10 && long_reads > 3, "READs complete");
    assert!(want.counters.iter().all(|&c| c > 0), "every counter counts: {:?}", want.counters);
    let got = run(ops.clone(), qp0, 8);
    for c in 0..3 {
        let (g, w) = (&got.cqes[&c], &want.cqes[&c]);
        for (k, (a, b)) in g.iter().zip(w.iter()).enumerate() {
            assert_eq!(a, b, "CQ {c}: CQE {k} differs");
        }
        assert_eq!(g.len(), w.len(), "CQ {c}: CQEs");
    }
    assert_eq!(got.counters, want.counters, "counters (RX_PACKETS, RX_DROP_QP, RX_DROP_PSN, RX_DROP_MALFORMED, RX_NAKS, RX_DROP_STATE)");
    assert_eq!(got.states, want.states, "QP states");
    for (i, (g, w)) in got.full.iter().zip(&want.full).enumerate() {
        assert_eq!(g, w, "QPs held back after operation {i} ({:?})", ops[i]);
    }
    assert_eq!(got.full.len(), want.full.len());
}

