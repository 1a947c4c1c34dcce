//! `RdmaRxParse` (hw/src/rdma/rx_parse.rs) alone in the rust-hdl simulator, against the
//! golden model `nic_testbench::roce`: random RoCEv2 frames of every opcode, whole or
//! damaged in one way each, stream past the block back to back or with idle cycles. Every
//! frame's record must come out exactly `RECORD_DELAY` cycles after its last beat, with
//! the status its damage calls for; a good frame's fields must equal the golden parse and
//! its payload beats the golden payload; every record must account for the payload beats
//! its frame put out.

mod common;

use common::hdl::{beats, run_testbench};
use nic_hw::rdma::rx_parse::{status, RdmaRxParse, RECORD_DELAY};
use nic_testbench::roce::{gen, icrc, opcode, RoceRepr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::net::IpAddr;

/// How a test frame is damaged, and the status that calls for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Damage {
    None,
    /// A bit of a byte the ICRC covers unmasked.
    CoveredBit,
    /// TTL, TOS and FECN changed: the ICRC does not see them.
    MaskedFields,
    /// Cut short of its IP length (not below 60 bytes).
    Truncated,
    /// The UDP length disagrees with the IP length.
    UdpLength,
    /// BTH transport version 1 (ICRC recomputed).
    TransportVersion,
    /// An opcode outside the RC table (ICRC recomputed).
    UnknownOpcode,
    /// RoCEv2 over IPv6, which this block leaves to a later version.
    Ipv6,
    /// UDP destination port 4792.
    OtherPort,
}

impl Damage {
    fn status(self) -> u64 {
        match self {
            Damage::None | Damage::MaskedFields => status::OK,
            Damage::CoveredBit => status::BAD_ICRC,
            Damage::UnknownOpcode => status::UNSUPPORTED_OPCODE,
            _ => status::MALFORMED,
        }
    }
}

/// Writes the right ICRC again after a change in an IPv4 frame.
fn refresh_icrc(f: &mut [u8]) {
    let end = 14 + usize::from(u16::from_be_bytes([f[16], f[17]]));
    let c = icrc::icrc(&f[14..end - 4]).unwrap();
    f[end - 4..end].copy_from_slice(&c.to_le_bytes());
}

/// A test frame, its damage and (for one the golden model accepts) the golden parse and payload.
struct Case {
    frame: Vec<u8>,
    damage: Damage,
    golden: Option<(RoceRepr, Vec<u8>)>,
}

fn case(rng: &mut StdRng) -> Case {
    let op = opcode::TABLE[rng.gen_range(0..opcode::TABLE.len())].opcode;
    let damage = match rng.gen_range(0..20) {
        0 => Damage::CoveredBit,
        1 => Damage::MaskedFields,
        2 => Damage::Truncated,
        3 => Damage::UdpLength,
        4 => Damage::TransportVersion,
        5 => Damage::UnknownOpcode,
        6 => Damage::Ipv6,
        7 => Damage::OtherPort,
        _ => Damage::None,
    };
    let r = gen::random_repr(rng, op, damage == Damage::Ipv6);
    let len = if opcode::info(op).unwrap().payload { [0, 1, 2, 3, 4, 7, 8, 9, 255, 256, 257][rng.gen_range(0..11)].max(rng.gen_range(0..=700) * rng.gen_range(0..2)) } else { 0 };
    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let mut f = r.emit_frame(&payload);
    match damage {
        Damage::None | Damage::Ipv6 => {}
        Damage::CoveredBit => {
            let end = 14 + usize::from(u16::from_be_bytes([f[16], f[17]]));
            // anything from the BTH to the ICRC but the masked BTH byte 46
            let mut at = rng.gen_range(42..end);
            if at == 46 {
                at = 42;
            }
            f[at] ^= 1 << rng.gen_range(0..8);
        }
        Damage::MaskedFields => {
            f[15] ^= 0xa5;
            f[22] = f[22].wrapping_add(7);
            f[46] ^= 0x80;
        }
        Damage::Truncated => {
            let end = 14 + usize::from(u16::from_be_bytes([f[16], f[17]]));
            let cut = rng.gen_range(60.min(end - 1)..end);
            f.truncate(cut.max(60));
            if f.len() >= end {
                f.truncate(end - 1);
            }
        }
        Damage::UdpLength => {
            let l = u16::from_be_bytes([f[38], f[39]]) - 4;
            f[38..40].copy_from_slice(&l.to_be_bytes());
            refresh_icrc(&mut f);
        }
        Damage::TransportVersion => {
            f[43] |= 1;
            refresh_icrc(&mut f);
        }
        Damage::UnknownOpcode => {
            f[42] = 0x64;
            refresh_icrc(&mut f);
        }
        Damage::OtherPort => {
            f[36..38].copy_from_slice(&4792u16.to_be_bytes());
            refresh_icrc(&mut f);
        }
    }
    let golden = match RoceRepr::parse_frame(&f) {
        Ok((g, range)) => Some((g, f[range].to_vec())),
        Err(_) => None,
    };
    // the golden model and the damage agree on what is acceptable (IPv6 aside)
    if damage != Damage::Ipv6 {
        assert_eq!(golden.is_some(), damage.status() == status::OK, "{damage:?}: golden model says {:?}", RoceRepr::parse_frame(&f).err());
    }
    Case { frame: f, damage, golden }
}

fn run(seed: u64, frames: usize, idle: f64) -> (usize, Vec<String>) {
    run_testbench(2_000_000_000, |x: &mut Box<RdmaRxParse>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let cases: Vec<Case> = (0..frames).map(|_| case(&mut rng)).collect();
        let mut bad = Vec::new();
        let mut due: VecDeque<(u64, usize)> = VecDeque::new(); // (cycle the record is due, case)
        let mut payload: VecDeque<(u64, u64, bool)> = VecDeque::new();
        let (mut cycle, mut checked) = (0u64, 0usize);
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        let mut feed: Vec<(usize, u64, u64, bool)> = Vec::new();
        for (i, c) in cases.iter().enumerate() {
            for (d, n, last) in beats(&c.frame) {
                feed.push((i, d, n, last));
            }
        }
        let mut next = 0;
        let mut drain = 0;
        while next < feed.len() || drain < RECORD_DELAY + 4 {
            let offer = next < feed.len() && !rng.gen_bool(idle);
            if offer {
                let (i, d, n, last) = feed[next];
                x.in_data.next = Bits::<64>::from(d);
                x.in_nbytes.next = Bits::<4>::from(n);
                x.in_last.next = last;
                if last {
                    due.push_back((cycle + RECORD_DELAY, i));
                }
                next += 1;
            } else if next >= feed.len() {
                drain += 1;
            }
            x.in_valid.next = offer;
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
            if x.pay_valid.val() {
                payload.push_back((x.pay_data.val().to_u64(), x.pay_nbytes.val().to_u64(), x.pay_last.val()));
            }
            if !x.rec_valid.val() {
                continue;
            }
            let Some((at, i)) = due.pop_front() else {
                bad.push(format!("cycle {cycle}: a record for no frame"));
                continue;
            };
            let c = &cases[i];
            let what = format!("frame {i} ({:?}, opcode {:#04x}, {} bytes)", c.damage, c.frame.get(42).copied().unwrap_or(0), c.frame.len());
            checked += 1;
            if at != cycle {
                bad.push(format!("{what}: record at cycle {cycle}, due at {at}"));
            }
            let st = x.rec_status.val().to_u64();
            let beats_out = x.rec_beats.val().to_u64() as usize;
            if beats_out > payload.len() {
                bad.push(format!("{what}: record counts {beats_out} payload beats, {} came out", payload.len()));
                continue;
            }
            let mine: Vec<_> = payload.drain(..beats_out).collect();
            if st != c.damage.status() {
                bad.push(format!("{what}: status {st}, expected {}", c.damage.status()));
                continue;
            }
            let Some((g, gp)) = &c.golden else { continue };
            if c.damage == Damage::Ipv6 {
                continue;
            }
            let mut bytes = Vec::new();
            for (k, (d, n, last)) in mine.iter().enumerate() {
                bytes.extend_from_slice(&d.to_le_bytes()[..*n as usize]);
                if *last != (k + 1 == mine.len()) {
                    bad.push(format!("{what}: payload beat {k} of {} has last={last}", mine.len()));
                }
            }
            if &bytes != gp {
                bad.push(format!("{what}: payload {} bytes differ from the golden {} bytes", bytes.len(), gp.len()));
            }
            let b = &g.bth;
            let got = (
                x.rec_opcode.val().to_u64(), x.rec_solicited.val(), x.rec_ack_req.val(), x.rec_pkey.val().to_u64(),
                x.rec_dest_qp.val().to_u64(), x.rec_psn.val().to_u64(), x.rec_payload_len.val().to_u64(), x.rec_udp_src_port.val().to_u64(),
            );
            let want = (u64::from(b.opcode), b.solicited, b.ack_req, u64::from(b.pkey), u64::from(b.dest_qp), u64::from(b.psn), gp.len() as u64, u64::from(g.udp_src_port));
            if got != want {
                bad.push(format!("{what}: BTH etc. {got:?}, golden {want:?}"));
            }
            if let IpAddr::V4(a) = g.ip_src {
                if x.rec_src_ip.val().to_u64() != u64::from(u32::from(a)) {
                    bad.push(format!("{what}: source IP"));
                }
            }
            if let Some(r) = &g.reth {
                let got = (x.rec_va.val().to_u64(), x.rec_rkey.val().to_u64(), x.rec_dma_len.val().to_u64());
                if got != (r.virtual_addr, u64::from(r.rkey), u64::from(r.dma_len)) {
                    bad.push(format!("{what}: RETH {got:x?}, golden {r:x?}"));
                }
            }
            if let Some(a) = &g.aeth {
                let got = (x.rec_syndrome.val().to_u64(), x.rec_msn.val().to_u64());
                if got != (u64::from(a.syndrome.to_byte()), u64::from(a.msn)) {
                    bad.push(format!("{what}: AETH {got:x?}, golden {a:x?}"));
                }
            }
            if let Some(v) = g.immdt {
                if x.rec_immdt.val().to_u64() != u64::from(v) {
                    bad.push(format!("{what}: ImmDt {:#x}, golden {v:#x}", x.rec_immdt.val().to_u64()));
                }
            }
        }
        if !due.is_empty() {
            bad.push(format!("{} records never came", due.len()));
        }
        if !payload.is_empty() {
            bad.push(format!("{} payload beats no record accounted for", payload.len()));
        }
        Ok((x, (checked, bad)))
    })
}

#[test]
fn frames_back_to_back() {
    let (checked, bad) = run(0xbeef, 400, 0.0);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert_eq!(checked, 400);
}

#[test]
fn frames_with_idle_cycles() {
    let (checked, bad) = run(0xcafe, 250, 0.25);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert_eq!(checked, 250);
}

/// Mostly idle: a frame's ICRC bytes may arrive after its ICRC was computed.
#[test]
fn frames_with_long_gaps() {
    let (checked, bad) = run(0x5107, 150, 0.6);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert_eq!(checked, 150);
}
