//! `RdmaRxParse` (hw/src/rdma/rx_parse.rs) alone in the rust-hdl simulator, against the
//! golden model `nic_testbench::roce`: random RoCEv2 frames of every opcode, whole or
//! damaged in one way each, and frames that are no candidates (another destination
//! address or port, IPv6, not IP at all), stream past the block back to back or with idle
//! cycles. Each frame's verdict (the classifier's, here random for a candidate and "not
//! RoCE" for any other frame) comes in order, early or up to a few cycles after the
//! frame's record would leave. A candidate's record must come out `RECORD_DELAY` cycles
//! after its last beat, or the cycle after its verdict came if that is later; with the
//! status its damage calls for, or as foreign when its verdict refused it; a good frame's
//! fields must equal the golden parse and its payload beats the golden payload; every
//! record must account for the payload beats its frame put out. Other frames must put out
//! no payload and no record.

mod common;

use common::hdl::{beats, run_testbench};
use nic_hw::rdma::rx_parse::{status, RdmaRxParse, RECORD_DELAY, VERDICT_WAIT_MAX};
use nic_testbench::roce::{gen, icrc, opcode, RoceRepr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};

/// The block's LOCAL_IPV4.
const LOCAL: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

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
    /// Whole, but MAC RX's status on the last beat says an error (bad FCS, PHY error).
    MacError,
    /// UDP destination port 4792: not a candidate.
    OtherPort,
    /// Another destination address (ICRC recomputed): not a candidate.
    OtherHost,
    /// Not RoCE: the bytes after the Ethernet header random, EtherType 0x0800 or other.
    NotRoce,
    /// Cut to fewer than 8 beats (a runt, which MAC RX passes with its status): no record,
    /// whatever its verdict; one the classifier diverts is counted (`drop_short`).
    Short,
}

impl Damage {
    /// The classifier could divert it, so the block must parse it and give it a record.
    fn candidate(self) -> bool {
        !matches!(self, Damage::Ipv6 | Damage::OtherPort | Damage::OtherHost | Damage::NotRoce | Damage::Short)
    }

    /// The classifier's verdict may say RoCE for this NIC.
    fn may_divert(self) -> bool {
        self.candidate() || self == Damage::Short
    }

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
    let damage = match rng.gen_range(0..24) {
        0 => Damage::CoveredBit,
        1 => Damage::MaskedFields,
        2 => Damage::Truncated,
        3 => Damage::UdpLength,
        4 => Damage::TransportVersion,
        5 => Damage::UnknownOpcode,
        6 => Damage::Ipv6,
        7 => Damage::OtherPort,
        8 => Damage::OtherHost,
        9 => Damage::NotRoce,
        10 => Damage::Short,
        11 => Damage::MacError,
        _ => Damage::None,
    };
    let mut r = gen::random_repr(rng, op, damage == Damage::Ipv6);
    if damage != Damage::Ipv6 {
        r.ip_dst = IpAddr::V4(LOCAL);
    }
    let len = if opcode::info(op).unwrap().payload { [0, 1, 2, 3, 4, 7, 8, 9, 255, 256, 257][rng.gen_range(0..11)].max(rng.gen_range(0..=700) * rng.gen_range(0..2)) } else { 0 };
    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let mut f = r.emit_frame(&payload);
    match damage {
        Damage::None | Damage::Ipv6 | Damage::MacError => {}
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
        Damage::OtherHost => {
            f[33] ^= 1 << rng.gen_range(0..8);
            refresh_icrc(&mut f);
        }
        Damage::Short => {
            f.truncate(rng.gen_range(1..57));
        }
        Damage::NotRoce => {
            let len = rng.gen_range(60..1600);
            f.resize(len, 0);
            for b in &mut f[14..] {
                *b = rng.gen();
            }
            if rng.gen_bool(0.5) {
                f[12..14].copy_from_slice(&[0x08, 0x00]);
            }
        }
    }
    let golden = match RoceRepr::parse_frame(&f) {
        Ok((g, range)) => Some((g, f[range].to_vec())),
        Err(_) => None,
    };
    // the golden model and the damage agree on what is acceptable (the MAC's status is
    // not in the bytes)
    if damage.candidate() && damage != Damage::MacError {
        assert_eq!(golden.is_some(), damage.status() == status::OK, "{damage:?}: golden model says {:?}", RoceRepr::parse_frame(&f).err());
    }
    Case { frame: f, damage, golden }
}

fn run(seed: u64, frames: usize, idle: f64) -> (usize, Vec<String>) {
    run_testbench(2_000_000_000, |x: &mut Box<RdmaRxParse>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let cases: Vec<Case> = (0..frames).map(|_| case(&mut rng)).collect();
        // the classifier's verdicts: RoCE for this NIC (for a candidate, most of the time)
        let verdicts: Vec<bool> = cases.iter().map(|c| c.damage.may_divert() && rng.gen_bool(0.85)).collect();
        let shorts_diverted = cases.iter().zip(&verdicts).filter(|(c, v)| c.damage == Damage::Short && **v).count();
        let mut drop_short = 0;
        let mut bad = Vec::new();
        // (cycle the record is due, case): due when the frame's last beat went in
        let mut due: VecDeque<(u64, usize)> = VecDeque::new();
        // verdicts to give: (not before this cycle, case)
        let mut to_give: VecDeque<(u64, usize)> = VecDeque::new();
        let mut given: Vec<Option<u64>> = vec![None; frames];
        let mut payload: VecDeque<(u64, u64, bool)> = VecDeque::new();
        let (mut cycle, mut checked) = (0u64, 0usize);
        x.local_ipv4.next = Bits::<32>::from(u64::from(u32::from(LOCAL)));
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
        let mut last_given = 0u64;
        while next < feed.len() || drain < RECORD_DELAY + VERDICT_WAIT_MAX + 4 {
            let offer = next < feed.len() && !rng.gen_bool(idle);
            if offer {
                let (i, d, n, last) = feed[next];
                x.in_data.next = Bits::<64>::from(d);
                x.in_nbytes.next = Bits::<4>::from(n);
                x.in_last.next = last;
                x.in_status.next = Bits::<3>::from(if last && cases[i].damage == Damage::MacError { rng.gen_range(1..8) } else { 0 });
                if next == 0 || feed[next - 1].0 != i {
                    // the verdict: from the frame's first beat on, up to 3 cycles after
                    // its record would leave (the classifier's worst case)
                    let beats_left = feed[next..].iter().take_while(|b| b.0 == i).count() as u64;
                    let at = cycle + rng.gen_range(1..=beats_left + RECORD_DELAY + 3);
                    to_give.push_back((at, i));
                }
                if last {
                    due.push_back((cycle + RECORD_DELAY, i));
                }
                next += 1;
            } else if next >= feed.len() {
                drain += 1;
            }
            x.in_valid.next = offer;
            // verdicts in frame order, one a cycle at most
            x.v_valid.next = false;
            if let Some(&(at, i)) = to_give.front() {
                if at <= cycle && cycle > last_given {
                    to_give.pop_front();
                    x.v_valid.next = true;
                    x.v_roce.next = verdicts[i];
                    given[i] = Some(cycle);
                    last_given = cycle;
                }
            }
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
            if x.drop_short.val() {
                drop_short += 1;
            }
            if x.pay_valid.val() {
                payload.push_back((x.pay_data.val().to_u64(), x.pay_nbytes.val().to_u64(), x.pay_last.val()));
            }
            // frames that are no candidates are due nothing
            while due.front().is_some_and(|&(at, i)| !cases[i].damage.candidate() && at <= cycle) {
                let (_, i) = due.pop_front().unwrap();
                if !payload.is_empty() {
                    bad.push(format!("frame {i} ({:?}): no candidate, {} payload beats out", cases[i].damage, payload.len()));
                    payload.clear();
                }
            }
            if !x.rec_valid.val() {
                if let Some(&(at, i)) = due.front() {
                    let wait_until = given[i].map_or(u64::MAX, |g| g + 1).max(at);
                    if cycle > wait_until {
                        bad.push(format!("frame {i} ({:?}): no record by cycle {cycle} (due {at}, verdict at {:?})", cases[i].damage, given[i]));
                        due.pop_front();
                    }
                }
                continue;
            }
            let Some((at, i)) = due.pop_front() else {
                bad.push(format!("cycle {cycle}: a record for no frame"));
                continue;
            };
            let at = given[i].map_or(u64::MAX, |g| g + 1).max(at);
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
            if !c.damage.candidate() {
                bad.push(format!("{what}: a record for a frame that is no candidate"));
                continue;
            }
            if x.rec_foreign.val() != !verdicts[i] {
                bad.push(format!("{what}: rec_foreign {}, verdict {}", x.rec_foreign.val(), verdicts[i]));
                continue;
            }
            if !verdicts[i] {
                if st != status::MALFORMED || x.rec_payload_len.val().to_u64() != 0 {
                    bad.push(format!("{what}: a foreign record with status {st}"));
                }
                continue;
            }
            if st != c.damage.status() {
                bad.push(format!("{what}: status {st}, expected {}", c.damage.status()));
                continue;
            }
            let Some((g, gp)) = &c.golden else { continue };
            if st != status::OK {
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
        let candidates = cases.iter().filter(|c| c.damage.candidate()).count();
        if checked != candidates {
            bad.push(format!("{checked} records for {candidates} candidates"));
        }
        if drop_short != shorts_diverted {
            bad.push(format!("drop_short {drop_short} times, {shorts_diverted} short frames diverted"));
        }
        Ok((x, (checked, bad)))
    })
}

#[test]
fn frames_back_to_back() {
    let (checked, bad) = run(0xbeef, 400, 0.0);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert!(checked > 400 * 2 / 3, "{checked} records");
}

#[test]
fn frames_with_idle_cycles() {
    let (checked, bad) = run(0xcafe, 250, 0.25);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert!(checked > 250 * 2 / 3, "{checked} records");
}

/// Mostly idle: a frame's ICRC bytes may arrive after its ICRC was computed.
#[test]
fn frames_with_long_gaps() {
    let (checked, bad) = run(0x5107, 150, 0.6);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
    assert!(checked > 150 * 2 / 3, "{checked} records");
}
