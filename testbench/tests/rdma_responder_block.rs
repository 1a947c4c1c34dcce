//! `RdmaResponder` (hw/src/rdma/responder.rs) alone in the rust-hdl simulator against the
//! behavioural model's responder (testbench/src/roce/engine/responder.rs): RDMA WRITE
//! traffic for several QPs (path MTUs 256 and 512, PSNs near the 24-bit wrap), messages of
//! 0..3 MTUs interleaved packet by packet across QPs and arriving as `RdmaRxParse` puts
//! them out (payload beats, then the record 8 cycles after the frame), with faults mixed
//! in: rkeys with a stale tag, ranges past the region, regions without remote write, the
//! wrong PD, a QP without remote write, a Middle with no First, a First of the wrong
//! length, duplicates (an old PSN, and real packets sent again: ACKed, never written
//! twice), packets ahead of a gap (one NAK PSN sequence error per gap), QPs in INIT,
//! reserved and absent QPNs, bad-ICRC frames whose payload must go nowhere. The QP table answers through a simulated
//! `RdmaTables` port with stalls, the DMA write port and the ACK output stall at random.
//!
//! Compared with the model fed the same frames: every byte written to host memory (and no
//! other), the ACKs and NAKs owed per QP in order (PSN, syndrome, MSN), each QP's state and
//! expected PSN at the end, and the counts of packets taken, dropped for the QP or the PSN,
//! NAKs and duplicates. The responder ACKs every third request of a QP (ACK_EVERY) besides
//! those asking.

mod common;

use common::hdl::{SparseMem, TablePortSim, bits_to_words, run_testbench, words_to_bits};
use nic_hw::rdma::RdmaResponder;
use nic_regmap::rdma::{self as map, access, mrc, qpc, QpState};
use nic_testbench::roce::engine::{EngineConfig, HostPort, RdmaEngine, Station};
use nic_testbench::roce::{opcode, psn_add, segments, Position, RoceRepr};
use nic_testbench::wire::{bth, EthernetAddress, RethRepr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};

const LOCAL_IP: u32 = 0x0a00_0001;
const PEER_IP: u32 = 0x0a00_0002;
const NMR: usize = 8;




struct Tables {
    qp: Vec<[u32; qpc::WORDS]>,
    mr: Vec<[u32; mrc::WORDS]>,
}

fn tables(rng: &mut StdRng) -> Tables {
    let mut qp = vec![[0u32; qpc::WORDS]; 64];
    for (q, w) in qp.iter_mut().enumerate().take(10).skip(2) {
        let state = if q == 9 { QpState::Init } else if rng.gen_bool(0.5) { QpState::Rts } else { QpState::Rtr };
        qpc::STATE.set(w, state as u32);
        qpc::PMTU.set(w, rng.gen_range(1..=2));
        qpc::PD.set(w, rng.gen_range(1..=2));
        qpc::ACCESS.set(w, if q == 8 { access::REMOTE_READ } else { access::REMOTE_WRITE | access::REMOTE_READ });
        qpc::DEST_QPN.set(w, 0x100 + q as u32);
        qpc::RQ_PSN.set(w, if rng.gen_bool(0.5) { 0xff_ffff - rng.gen_range(0..6) } else { rng.gen::<u32>() & bth::MASK_24 });
        qpc::DEST_IPV4.set(w, PEER_IP);
        qpc::DEST_MAC_LO.set(w, 0x0302_0100);
        qpc::DEST_MAC_HI.set(w, 0x0504);
        qpc::UDP_SPORT.set(w, 0xc000 + q as u32);
    }
    let mut mr = vec![[0u32; mrc::WORDS]; NMR];
    for (i, w) in mr.iter_mut().enumerate() {
        mrc::VALID.set(w, 1);
        mrc::ACCESS.set(w, if i == 7 { access::LOCAL_WRITE | access::REMOTE_READ } else { access::LOCAL_WRITE | access::REMOTE_WRITE });
        mrc::PD.set(w, 1 + (i as u32 & 1));
        mrc::KEY.set(w, rng.gen_range(1..0x100_0000u32) << 8 | i as u32);
        let iova: u64 = rng.gen::<u64>() >> 8;
        mrc::IOVA_LO.set(w, iova as u32);
        mrc::IOVA_HI.set(w, (iova >> 32) as u32);
        mrc::LENGTH.set(w, rng.gen_range(2048..6000));
        let bus = 0x10_0000 * (i as u64 + 1) + rng.gen_range(0..64);
        mrc::BUS_LO.set(w, bus as u32);
        mrc::BUS_HI.set(w, (bus >> 32) as u32);
    }
    Tables { qp, mr }
}

/// ACK coalescing: a QP's requests are ACKed at least every third, asked or not.
const ACK_EVERY: u32 = 3;

fn model(t: &Tables) -> RdmaEngine {
    let mut m = RdmaEngine::new(EngineConfig { qps: 64, mrs: 64, cqs: 16 });
    let mut mem = SparseMem::default();
    m.reg_write(map::CONTROL, 1, &mut mem, 0); // ENABLE
    m.reg_write(map::LOCAL_IPV4, LOCAL_IP, &mut mem, 0);
    m.reg_write(map::ACK_EVERY, ACK_EVERY, &mut mem, 0);
    let mut store = |m: &mut RdmaEngine, table: u32, index: usize, words: &[u32]| {
        for (w, &v) in words.iter().enumerate() {
            m.reg_write(map::TABLE_DATA + 4 * w as u32, v, &mut mem, 0);
        }
        m.reg_write(map::TABLE_CMD, index as u32 | table << 8 | map::TABLE_CMD_WRITE | 0xffff << 16, &mut mem, 0);
    };
    for (i, w) in t.mr.iter().enumerate() {
        store(&mut m, map::TABLE_MR, i, w);
    }
    for (q, w) in t.qp.iter().enumerate() {
        store(&mut m, map::TABLE_QP, q, w);
    }
    m
}

fn mtu(w: &[u32]) -> usize {
    128 << qpc::PMTU.get(w)
}

/// A WRITE packet to QP `q` as the peer sends it.
fn packet(q: usize, op: u8, psn: u32, ack_req: bool, reth: Option<RethRepr>) -> RoceRepr {
    let mut r = RoceRepr {
        eth_src: EthernetAddress([2, 0, 0, 0, 0, 2]),
        eth_dst: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ip_src: IpAddr::V4(Ipv4Addr::from(PEER_IP)),
        ip_dst: IpAddr::V4(Ipv4Addr::from(LOCAL_IP)),
        traffic_class: 0,
        ttl: 64,
        udp_src_port: 0xc000,
        bth: bth::BthRepr { opcode: op, solicited: false, mig_req: false, pad_count: 0, pkey: bth::DEFAULT_PKEY, fecn: false, becn: false, dest_qp: q as u32, ack_req, psn },
        reth,
        aeth: None,
        immdt: None,
    };
    r.bth.dest_qp = q as u32;
    r
}

/// The peer's traffic: (frame, whether its ICRC was damaged).
fn traffic(rng: &mut StdRng, t: &Tables, messages: usize) -> Vec<(Vec<u8>, bool)> {
    let mut next_psn: Vec<u32> = t.qp.iter().map(|w| qpc::RQ_PSN.get(w)).collect();
    let mut pending: Vec<VecDeque<(RoceRepr, Vec<u8>)>> = vec![VecDeque::new(); 64];
    let mut frames = Vec::new();
    // each QP's last packet sent, to be sent again as a duplicate
    let mut last: Vec<Option<(RoceRepr, Vec<u8>)>> = vec![None; 64];
    let mut made = 0;
    let qps: Vec<usize> = (2..10).collect();
    while made < messages || pending.iter().any(|p| !p.is_empty()) {
        let q = qps[rng.gen_range(0..qps.len())];
        if pending[q].is_empty() {
            if made >= messages {
                continue;
            }
            made += 1;
            let w = &t.qp[q];
            let m = mtu(w);
            // an MR of the QP's PD, mostly one that allows remote writes
            let same_pd: Vec<usize> = (0..NMR).filter(|&i| mrc::PD.get(&t.mr[i]) == qpc::PD.get(w) && mrc::ACCESS.get(&t.mr[i]) & access::REMOTE_WRITE != 0).collect();
            let i = if rng.gen_bool(0.02) { rng.gen_range(0..NMR) } else { same_pd[rng.gen_range(0..same_pd.len())] };
            let mr = &t.mr[i];
            let iova = u64::from(mrc::IOVA_LO.get(mr)) | u64::from(mrc::IOVA_HI.get(mr)) << 32;
            let length = u64::from(mrc::LENGTH.get(mr));
            let len = [0, 1, m - 1, m, m + 1, 2 * m, 3 * m - 5, rng.gen_range(0..3 * m)][rng.gen_range(0..8)];
            let mut va = iova + rng.gen_range(0..=length.saturating_sub(len as u64));
            let mut rkey = mrc::KEY.get(mr);
            match rng.gen_range(0..90) {
                0 => rkey ^= 0x100,                                 // stale tag
                1 => va = iova + length - len as u64 / 2,           // past the end
                2 => va = iova.wrapping_sub(1),                     // before the start
                _ => {}
            }
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let segs = segments(len, m);
            for (k, (pos, range)) in segs.iter().enumerate() {
                let op = match pos {
                    Position::First => opcode::RDMA_WRITE_FIRST,
                    Position::Middle => opcode::RDMA_WRITE_MIDDLE,
                    Position::Last => opcode::RDMA_WRITE_LAST,
                    Position::Only => opcode::RDMA_WRITE_ONLY,
                };
                let reth = pos.starts().then_some(RethRepr { virtual_addr: va, rkey, dma_len: len as u32 });
                let ack = pos.ends() || rng.gen_bool(0.2);
                let psn = next_psn[q];
                next_psn[q] = psn_add(psn, 1);
                let mut p = payload[range.clone()].to_vec();
                // a First one byte short of the MTU (the peer's bug)
                if k == 0 && *pos == Position::First && rng.gen_bool(0.01) {
                    p.pop();
                }
                pending[q].push_back((packet(q, op, psn, ack, reth), p));
            }
            continue;
        }
        let (r, p) = pending[q].pop_front().unwrap();
        let mtu_q = mtu(&t.qp[q]);
        match rng.gen_range(0..150) {
            // the last packet again (its ACK lost, the requester resent it), or two of
            // them: answered by ACKs, never written twice
            5 | 6 => {
                if let Some((lr, lp)) = last[q].clone() {
                    frames.push((lr.emit_frame(&lp), false));
                    if rng.gen_bool(0.5) {
                        frames.push((lr.emit_frame(&lp), false));
                    }
                }
            }
            // packets ahead of a gap (the real one was delayed behind them): the first
            // NAKed PSN sequence error, the rest dropped
            7 | 8 => {
                for k in 1..=rng.gen_range(1..4u32) {
                    frames.push((packet(q, opcode::RDMA_WRITE_MIDDLE, psn_add(r.bth.psn, k), rng.gen_bool(0.5), None).emit_frame(&vec![9u8; mtu_q]), false));
                }
            }
            // a duplicate of an earlier PSN, a Middle with nothing started, a bad ICRC,
            // reserved and absent QPNs: each before the real packet
            0 => frames.push((packet(q, opcode::RDMA_WRITE_ONLY, psn_add(r.bth.psn, 0xff_ffff), true, Some(RethRepr { virtual_addr: 0, rkey: 0, dma_len: 0 })).emit_frame(&[]), false)),
            1 if r.bth.opcode != opcode::RDMA_WRITE_MIDDLE && r.bth.opcode != opcode::RDMA_WRITE_LAST => {
                frames.push((packet(q, opcode::RDMA_WRITE_MIDDLE, r.bth.psn, false, None).emit_frame(&vec![7u8; mtu(&t.qp[q])]), false));
                next_psn[q] = psn_add(next_psn[q], 0); // the model and the RTL NAK it and the QP fails
            }
            2 => frames.push((r.emit_frame(&p), true)),
            3 => frames.push((packet(1, opcode::RDMA_WRITE_ONLY, 0, true, Some(RethRepr { virtual_addr: 0, rkey: 0, dma_len: 0 })).emit_frame(&[]), false)),
            4 => frames.push((packet(70, opcode::RDMA_WRITE_ONLY, 0, true, Some(RethRepr { virtual_addr: 0, rkey: 0, dma_len: 0 })).emit_frame(&[]), false)),
            _ => {}
        }
        frames.push((r.emit_frame(&p), false));
        last[q] = Some((r, p));
    }
    frames
}

/// What came out of the responder.
#[derive(Debug, Default, PartialEq)]
struct Outcome {
    acks: BTreeMap<usize, Vec<(u32, u8, u32)>>,
    mem: BTreeMap<u64, u8>,
    states: Vec<(u32, u32)>,
    counts: [u32; 6],
}

fn expect(t: &Tables, frames: &[(Vec<u8>, bool)]) -> Outcome {
    let mut m = model(t);
    let mut mem = SparseMem::default();
    let mut out = Outcome::default();
    let st = Station { mac: EthernetAddress([2, 0, 0, 0, 0, 1]), now: 0 };
    for (f, bad) in frames {
        let mut f = f.clone();
        if *bad {
            let n = f.len();
            f[n - 5] ^= 0x40; // the ICRC's first byte
        }
        m.receive(&f, &mut mem, 0);
        // what is owed leaves before the next frame (a QP that fails drops what it still owes)
        while let Some(f) = m.next_packet(&mut mem, st) {
            let (r, _) = RoceRepr::parse_frame(&f).expect("the model's frame parses");
            let aeth = r.aeth.expect("an ACK or NAK");
            let q = (r.bth.dest_qp - 0x100) as usize;
            out.acks.entry(q).or_default().push((r.bth.psn, aeth.syndrome.to_byte(), aeth.msn));
        }
    }
    out.mem = mem.0;
    out.states = (0..64).map(|q| { let w = m.entry(map::TABLE_QP, q); (qpc::STATE.get(&w), qpc::RQ_PSN.get(&w)) }).collect();
    out.counts = [map::RX_PACKETS, map::RX_DROP_QP, map::RX_DROP_PSN, map::TX_NAKS, map::RX_DUPLICATES, map::RX_DROP_STATE].map(|c| m.reg_read(c));
    out
}

/// One cycle of the responder's input.
#[derive(Clone, Default)]
struct Input {
    beat: Option<(u64, u64)>,
    record: Option<(RoceRepr, usize, u64, bool)>,
}

fn schedule(rng: &mut StdRng, frames: &[(Vec<u8>, bool)]) -> Vec<Input> {
    let mut sched: Vec<Input> = Vec::new();
    let mut t0 = 0usize;
    for (f, bad) in frames {
        let (r, range) = RoceRepr::parse_frame(f).expect("the peer's frame parses");
        let payload = &f[range];
        let nbeats = f.len().div_ceil(8);
        let need = t0 + nbeats + 9;
        if sched.len() < need {
            sched.resize(need, Input::default());
        }
        // payload beats from 9 cycles after the frame's start, its record 8 after its end
        for (k, c) in payload.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            sched[t0 + 9 + k].beat = Some((u64::from_le_bytes(b), c.len() as u64));
        }
        sched[t0 + nbeats + 8].record = Some((r, payload.len(), payload.len().div_ceil(8) as u64, *bad));
        t0 += nbeats + if rng.gen_bool(0.2) { rng.gen_range(1..200) } else { rng.gen_range(1..4) };
    }
    sched.resize(sched.len() + 4000, Input::default());
    sched
}

fn run(t: &Tables, sched: Vec<Input>, seed: u64) -> Outcome {
    let qp0 = t.qp.clone();
    let mr0 = t.mr.clone();
    run_testbench(40_000_000_000, |x: &mut Box<RdmaResponder>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut qp = qp0.clone();
        let mut out = Outcome::default();
        let mut mem = SparseMem::default();
        x.reset.next = true;
        x.ack_every.next = Bits::<3>::from(u64::from(ACK_EVERY));
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        for (i, w) in mr0.iter().enumerate() {
            x.mr_wr.next = true;
            x.mr_wr_index.next = Bits::<6>::from(i as u64);
            x.mr_wr_entry.next = words_to_bits::<224>(w);
            wait_clock_cycle!(sim, clock, x);
        }
        x.mr_wr.next = false;
        let mut port = TablePortSim::new(2);
        let mut counts = [0u32; 6];
        for input in sched.iter() {
            x.pay_valid.next = input.beat.is_some();
            if let Some((d, n)) = input.beat {
                x.pay_data.next = Bits::<64>::from(d);
                x.pay_nbytes.next = Bits::<4>::from(n);
            }
            x.rec_valid.next = input.record.is_some();
            if let Some((r, len, beats, bad)) = &input.record {
                x.rec_status.next = Bits::<2>::from(u64::from(*bad));
                x.rec_opcode.next = Bits::<8>::from(u64::from(r.bth.opcode));
                x.rec_ack_req.next = r.bth.ack_req;
                x.rec_dest_qp.next = Bits::<24>::from(u64::from(r.bth.dest_qp));
                x.rec_psn.next = Bits::<24>::from(u64::from(r.bth.psn));
                let reth = r.reth.unwrap_or(RethRepr { virtual_addr: 0x5a5a, rkey: 0x77, dma_len: 0x99 });
                x.rec_va.next = Bits::<64>::from(reth.virtual_addr);
                x.rec_rkey.next = Bits::<32>::from(u64::from(reth.rkey));
                x.rec_dma_len.next = Bits::<32>::from(u64::from(reth.dma_len));
                x.rec_payload_len.next = Bits::<16>::from(*len as u64);
                assert_eq!(*beats as usize, len.div_ceil(8));
            }
            let busy = !port.idle();
            x.qp_ready.next = !busy && rng.gen_bool(0.8);
            x.qp_rvalid.next = false;
            if let Some(i) = port.due() {
                x.qp_rvalid.next = true;
                x.qp_rdata.next = words_to_bits::<384>(&qp[i]);
            }
            x.dma_wr_ready.next = rng.gen_bool(0.85);
            x.ack_ready.next = rng.gen_bool(0.8);
            x = sim.wait(1, x)?;
            // what the edge takes
            let table_access = (x.qp_valid.val() && x.qp_ready.val())
                .then(|| (x.qp_index.val().to_u64() as usize, x.qp_write.val(), bits_to_words(x.qp_mask.val(), qpc::WORDS), bits_to_words(x.qp_wdata.val(), qpc::WORDS)));
            port.step(&mut qp, x.qp_rvalid.val(), table_access);
            if x.dma_wr_valid.val() && x.dma_wr_ready.val() {
                let addr = x.dma_wr_addr.val().to_u64();
                let lo = x.dma_wr_data.val().get_bits::<64>(0).to_u64().to_le_bytes();
                let hi = x.dma_wr_data.val().get_bits::<64>(64).to_u64().to_le_bytes();
                let strb = x.dma_wr_strb.val().to_u64();
                for j in 0..16 {
                    if strb >> j & 1 != 0 {
                        mem.write(addr + j as u64, &[if j < 8 { lo[j] } else { hi[j - 8] }]);
                    }
                }
            }
            if x.ack_valid.val() && x.ack_ready.val() {
                // the ACK carries its QP's path as the context holds it
                let w = &qp[x.ack_qpn.val().to_u64() as usize];
                let mac = u64::from(qpc::DEST_MAC_LO.get(w)) | u64::from(qpc::DEST_MAC_HI.get(w)) << 32;
                let mac_be = u64::from_be_bytes({ let b = mac.to_le_bytes(); [0, 0, b[0], b[1], b[2], b[3], b[4], b[5]] });
                assert_eq!(x.ack_dst_mac.val().to_u64(), mac_be, "ACK destination MAC");
                assert_eq!(x.ack_dst_ip.val().to_u64() as u32, qpc::DEST_IPV4.get(w), "ACK destination IPv4");
                assert_eq!(x.ack_udp_src_port.val().to_u64() as u32, qpc::UDP_SPORT.get(w), "ACK UDP source port");
                assert_eq!(x.ack_dest_qp.val().to_u64() as u32, qpc::DEST_QPN.get(w), "ACK destination QP");
                out.acks.entry(x.ack_qpn.val().to_u64() as usize).or_default().push((
                    x.ack_psn.val().to_u64() as u32,
                    x.ack_syndrome.val().to_u64() as u8,
                    x.ack_msn.val().to_u64() as u32,
                ));
            }
            counts[0] += u32::from(x.cnt_rx_packet.val());
            counts[1] += u32::from(x.cnt_drop_qp.val());
            counts[2] += u32::from(x.cnt_drop_psn.val());
            counts[3] += u32::from(x.cnt_nak.val());
            counts[4] += u32::from(x.cnt_duplicate.val());
            counts[5] += u32::from(x.cnt_drop_state.val());
            assert!(!x.cnt_drop_nobuf.val() && !x.cnt_drop_norecord.val(), "the responder fell behind the wire");
            wait_clock_cycle!(sim, clock, x);
        }
        out.mem = mem.0;
        out.states = qp.iter().map(|w| (qpc::STATE.get(w), qpc::RQ_PSN.get(w))).collect();
        out.counts = counts;
        Ok((x, out))
    })
}

#[test]
fn writes_acks_and_naks_equal_the_model() {
    let mut rng = StdRng::seed_from_u64(18);
    let t = tables(&mut rng);
    let frames = traffic(&mut rng, &t, 150);
    let want = expect(&t, &frames);
    // the case is worth running: bytes landed, ACKs and NAKs owed, drops of each kind
    assert!(want.mem.len() > 5000, "only {} bytes written", want.mem.len());
    assert!(want.acks.values().flatten().any(|a| a.1 == nic_regmap::rdma::syndrome::ACK));
    assert!(want.counts[1] > 0 && want.counts[2] > 0 && want.counts[3] > 0 && want.counts[4] > 0, "counts {:?}", want.counts);
    let seq_naks = want.acks.values().flatten().filter(|a| a.1 == nic_regmap::rdma::syndrome::NAK_PSN_SEQUENCE).count();
    assert!(seq_naks > 0 && (seq_naks as u32) < want.counts[2], "some PSN sequence NAKs, fewer than the packets ahead: {seq_naks}");
    let sched = schedule(&mut rng, &frames);
    let got = run(&t, sched, 19);
    assert_eq!(got.counts, want.counts, "packets taken, dropped (QP), dropped (PSN), NAKs, duplicates: rtl vs model");
    assert_eq!(got.acks, want.acks, "ACKs and NAKs per QP: (PSN, syndrome, MSN)");
    assert_eq!(got.states, want.states, "QP state and expected PSN");
    assert_eq!(got.mem.len(), want.mem.len(), "bytes written");
    assert!(got.mem == want.mem, "host memory differs from the model's");
}
