//! `RdmaTxBuild` (hw/src/rdma/tx_build.rs) alone in the rust-hdl simulator, against the
//! golden model: random RoCEv2 packets of every opcode (IPv4; the path, the BTH, RETH,
//! AETH and ImmDt fields, payloads of 0..=600 bytes, TOS and TTL all random) are requested
//! and their payloads streamed with idle cycles, the output taken under random
//! backpressure; every frame must equal `RoceRepr::emit_frame` byte for byte (IPv4 header
//! checksum and ICRC included; the golden frame's Ethernet padding to 60 bytes aside,
//! which MAC TX adds). And with nothing in the way, MTU-sized packets leave one beat per
//! cycle but for the three cycles each request takes.

mod common;

use nic_hw::rdma::RdmaTxBuild;
use nic_testbench::roce::{gen, opcode, RoceRepr};
use nic_testbench::wire::{AethRepr, RethRepr, Syndrome};
use common::hdl::{mac48, run_testbench};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::net::IpAddr;

/// A random IPv4 packet with what the block sends as 0 (M, FECN, BECN) cleared.
fn packet(rng: &mut StdRng, max_len: usize) -> (RoceRepr, Vec<u8>) {
    let op = gen::random_opcode(rng);
    let mut r = gen::random_repr(rng, op, false);
    r.bth.mig_req = false;
    r.bth.fecn = false;
    r.bth.becn = false;
    let len = [0, 1, 2, 3, 5, 8, 13, 256][rng.gen_range(0..8)].max(rng.gen_range(0..=max_len) * rng.gen_range(0..2));
    let p = gen::random_payload(rng, op, len);
    (r, p)
}

fn ip(a: IpAddr) -> u64 {
    match a {
        IpAddr::V4(v) => u64::from(u32::from(v)),
        IpAddr::V6(_) => unreachable!("IPv4 only"),
    }
}

fn set_request(x: &mut RdmaTxBuild, r: &RoceRepr, len: usize) {
    x.req_dst_mac.next = Bits::<48>::from(mac48(r.eth_dst));
    x.req_src_mac.next = Bits::<48>::from(mac48(r.eth_src));
    x.req_src_ip.next = Bits::<32>::from(ip(r.ip_src));
    x.req_dst_ip.next = Bits::<32>::from(ip(r.ip_dst));
    x.req_udp_src_port.next = Bits::<16>::from(u64::from(r.udp_src_port));
    x.req_tos.next = Bits::<8>::from(u64::from(r.traffic_class));
    x.req_ttl.next = Bits::<8>::from(u64::from(r.ttl));
    x.req_opcode.next = Bits::<8>::from(u64::from(r.bth.opcode));
    x.req_solicited.next = r.bth.solicited;
    x.req_ack_req.next = r.bth.ack_req;
    x.req_pkey.next = Bits::<16>::from(u64::from(r.bth.pkey));
    x.req_dest_qp.next = Bits::<24>::from(u64::from(r.bth.dest_qp));
    x.req_psn.next = Bits::<24>::from(u64::from(r.bth.psn));
    let reth = r.reth.unwrap_or(RethRepr { virtual_addr: 0x1111_2222_3333_4444, rkey: 0x5555_6666, dma_len: 0x7777_8888 });
    x.req_va.next = Bits::<64>::from(reth.virtual_addr);
    x.req_rkey.next = Bits::<32>::from(u64::from(reth.rkey));
    x.req_dma_len.next = Bits::<32>::from(u64::from(reth.dma_len));
    let aeth = r.aeth.unwrap_or(AethRepr { syndrome: Syndrome::Ack { credits: 3 }, msn: 0xabcdef });
    x.req_syndrome.next = Bits::<8>::from(u64::from(aeth.syndrome.to_byte()));
    x.req_msn.next = Bits::<24>::from(u64::from(aeth.msn));
    x.req_immdt.next = Bits::<32>::from(u64::from(r.immdt.unwrap_or(0x9999_aaaa)));
    x.req_payload_len.next = Bits::<16>::from(len as u64);
}

/// Runs `packets` through the block; returns the frames that came out and the cycles taken.
fn run(packets: Vec<(RoceRepr, Vec<u8>)>, seed: u64, gaps: f64, backpressure: f64) -> (Vec<Vec<u8>>, u64) {
    run_testbench(4_000_000_000, |x: &mut Box<RdmaTxBuild>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut reqs: VecDeque<&(RoceRepr, Vec<u8>)> = packets.iter().collect();
        let mut pay: VecDeque<u64> = VecDeque::new();
        let mut frames = Vec::new();
        let mut frame = Vec::new();
        let mut cycles = 0u64;
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        while frames.len() < packets.len() {
            cycles += 1;
            assert!(cycles < 200_000, "stuck after {} frames", frames.len());
            if let Some((r, p)) = reqs.front() {
                set_request(&mut x, r, p.len());
            }
            x.req_valid.next = !reqs.is_empty();
            // the payload source: the next request's payload is queued once it is taken
            let offer = !pay.is_empty() && !rng.gen_bool(gaps);
            x.pay_valid.next = offer;
            x.pay_data.next = Bits::<64>::from(pay.front().copied().unwrap_or(0xdead_beef_dead_beef));
            x.out_ready.next = !rng.gen_bool(backpressure);
            // let the inputs settle, then see what is taken at the coming edge
            x = sim.wait(1, x)?;
            let took_req = x.req_valid.val() & x.req_ready.val();
            let took_pay = offer && x.pay_ready.val();
            let out = (x.out_valid.val() && x.out_ready.val()).then(|| (x.out_data.val().to_u64(), x.out_nbytes.val().to_u64() as usize, x.out_last.val()));
            wait_clock_cycle!(sim, clock, x);
            if took_pay {
                pay.pop_front();
            }
            if took_req {
                let (_, p) = reqs.pop_front().unwrap();
                for c in p.chunks(8) {
                    let mut b = [0xa5u8; 8]; // bytes past the payload's end are the block's to ignore
                    b[..c.len()].copy_from_slice(c);
                    pay.push_back(u64::from_le_bytes(b));
                }
            }
            if let Some((d, n, last)) = out {
                frame.extend_from_slice(&d.to_le_bytes()[..n]);
                if last {
                    frames.push(std::mem::take(&mut frame));
                }
            }
        }
        Ok((x, (frames, cycles)))
    })
}

/// The frame the golden model sends, without the Ethernet padding MAC TX adds.
fn golden(r: &RoceRepr, p: &[u8]) -> Vec<u8> {
    let mut f = r.emit_frame(p);
    let ip_total = usize::from(u16::from_be_bytes([f[16], f[17]]));
    f.truncate(14 + ip_total);
    f
}

fn check(packets: &[(RoceRepr, Vec<u8>)], frames: &[Vec<u8>]) {
    let mut bad = Vec::new();
    for (i, ((r, p), f)) in packets.iter().zip(frames).enumerate() {
        let g = golden(r, p);
        if *f != g {
            let at = f.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(f.len().min(g.len()));
            bad.push(format!("frame {i} ({}, {} payload bytes): {} bytes, golden {}; first difference at byte {at}", opcode::info(r.bth.opcode).unwrap().name, p.len(), f.len(), g.len()));
        }
    }
    assert!(bad.is_empty(), "{} of {} wrong:\n{}", bad.len(), frames.len(), bad.join("\n"));
}

#[test]
fn frames_equal_the_golden_model() {
    let mut rng = StdRng::seed_from_u64(0x7b01);
    let packets: Vec<_> = (0..300).map(|_| packet(&mut rng, 600)).collect();
    let (frames, _) = run(packets.clone(), 1, 0.2, 0.3);
    check(&packets, &frames);
}

#[test]
fn mtu_packets_at_a_beat_per_cycle() {
    let mut rng = StdRng::seed_from_u64(0x4096);
    let packets: Vec<_> = (0..6)
        .map(|_| {
            let (mut r, _) = packet(&mut rng, 0);
            r.bth.opcode = opcode::RDMA_WRITE_MIDDLE;
            r.reth = None;
            r.aeth = None;
            r.immdt = None;
            (r, (0..4096).map(|_| rng.gen()).collect::<Vec<u8>>())
        })
        .collect();
    let (frames, cycles) = run(packets.clone(), 2, 0.0, 0.0);
    check(&packets, &frames);
    // 4096 + 58 bytes: 520 beats a frame; 3 cycles a request; the first frame's start-up
    let beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    let bound = beats + 3 * frames.len() as u64 + 12;
    assert!(cycles <= bound, "{cycles} cycles for {beats} beats in {} frames (at most {bound})", frames.len());
}
