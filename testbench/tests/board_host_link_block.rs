//! Block test of the iCE40 board's host link (`nic_hw::board::host_link::HostLink`) in
//! rust-hdl's own simulator, at its byte ports, against models of both of its sides:
//!
//! * the host: register commands one at a time, `'V'` and unknown bytes between them; it
//!   answers every `'Q'` with its beats (random data, sometimes one error beat) and every
//!   write burst's last `'X'` with a `'K'` (random error), as the driver's `LinkDevice`
//!   does; the board's bytes are decoded with the driver's codec
//!   (`nic_driver::host_link::BoardMessage`);
//! * the NIC: read requests that are sometimes withdrawn before they are taken (the DMA
//!   port allows that), write beats held until taken, `dma_rd_rsp_ready` random but never
//!   low two cycles in a row on a beat (the NIC reserves room before it asks; the link's
//!   rule is that a beat is taken before the next `'B'` starts), the UART's `tx_ready`
//!   random, interrupt lines that change;
//! * an AXI4-Lite slave: a register map, random ready and response delays, SLVERR on
//!   addresses with bit 15 set.
//!
//! Checked each cycle, from the models' own state, never from the RTL's: every answer
//! (status, value), every `'Q'` is the request the port took in that cycle, each
//! `'X'` is the beat on the port and the beat is taken in the cycle its last byte leaves,
//! read response beats and write responses in order with their flags and tags, each
//! `'q'` a value the lines had and the last one their final value, the overrun count.
//! Then a scenario where the NIC does not take a beat: the next `'B'` counts one overrun
//! and its own beat is the one offered.

mod common;

use common::hdl::{bits128, run_testbench};
use nic_driver::host_link::{board_message_len, encode_read_beat, encode_reg_read, encode_reg_write, encode_write_response, BoardMessage, LINK_MAGIC};
use nic_hw::board::host_link::HostLink;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::{BTreeMap, VecDeque};

/// A read request on the NIC's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RdReq {
    addr: u64,
    len: u16,
    tag: u8,
}

/// A write beat on the NIC's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WrBeat {
    addr: u64,
    strb: u16,
    last: bool,
    tag: u8,
    data: u128,
}

/// A read response beat the NIC must see: data, last, error, tag.
type RspBeat = (u128, bool, bool, u8);

#[derive(Debug, Default)]
struct Outcome {
    failures: Vec<String>,
    cycles: u64,
    reads: usize,
    beats_out: usize,
    beats_in: usize,
    reg_commands: usize,
    irq_messages: usize,
    withdrawn: usize,
}

/// What the board must answer to the register command in flight.
#[derive(Debug)]
enum Pending {
    Reg(BoardMessage),
    Ident(u8),
    Unknown(u8),
}

/// The random scenario: `traffic` cycles of everything at once, then a drain.
fn run(seed: u64, traffic: u64) -> Outcome {
    run_testbench(20_000_000, |x: &mut Box<HostLink>| x.clock.next = !x.clock.val(), move |sim, mut x| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut o = Outcome::default();
        fn fail(o: &mut Outcome, cyc: u64, m: String) {
            if o.failures.len() < 20 {
                o.failures.push(format!("cycle {cyc}: {m}"));
            }
        }
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 4);
        x.reset.next = false;

        // host
        let mut to_board: VecDeque<u8> = VecDeque::new();
        let mut gap = 0u32;
        let mut from_board: Vec<u8> = Vec::new();
        let mut pending: Option<Pending> = None;
        // AXI slave
        let mut regs: BTreeMap<u16, u32> = BTreeMap::new();
        let (mut aw, mut w): (Option<u16>, Option<u32>) = (None, None);
        let mut b_due: Option<(u64, u8)> = None;
        let mut r_due: Option<(u64, u8, u32)> = None;
        // NIC
        let mut rd_offer: Option<RdReq> = None;
        let mut wr_offer: Option<WrBeat> = None;
        let mut taken_reads: VecDeque<RdReq> = VecDeque::new();
        let mut want_beats: VecDeque<RspBeat> = VecDeque::new();
        let mut want_wr_rsp: VecDeque<(u8, bool)> = VecDeque::new();
        let mut irq: u16 = 0;
        let mut irq_history: Vec<u16> = vec![0];
        let mut last_q: Option<u16> = None;
        let mut cyc = 0u64;
        let mut draining = false;
        let mut rsp_stalled = false;
        let mut final_ident_sent = false;
        loop {
            let generate = cyc < traffic;
            // ---- inputs for this cycle
            if gap > 0 {
                gap -= 1;
            }
            x.rx_valid.next = false;
            if gap == 0 {
                if let Some(b) = to_board.pop_front() {
                    x.rx_valid.next = true;
                    x.rx_data.next = Bits::<8>::from(u64::from(b));
                    // a real UART brings a byte every 10 bit times (40 cycles and
                    // more): 3..6 here, still time for the NIC to take a beat
                    gap = rng.gen_range(3..=6);
                }
            }
            x.tx_ready.next = rng.gen_bool(0.7);
            x.m_axil_awready.next = aw.is_none() && rng.gen_bool(0.6);
            x.m_axil_wready.next = w.is_none() && rng.gen_bool(0.6);
            x.m_axil_arready.next = r_due.is_none() && rng.gen_bool(0.6);
            x.m_axil_bvalid.next = b_due.is_some_and(|(c, _)| c <= cyc);
            x.m_axil_bresp.next = Bits::<2>::from(u64::from(b_due.map_or(0, |(_, r)| r)));
            x.m_axil_rvalid.next = r_due.is_some_and(|(c, _, _)| c <= cyc);
            x.m_axil_rresp.next = Bits::<2>::from(u64::from(r_due.map_or(0, |(_, r, _)| r)));
            x.m_axil_rdata.next = Bits::<32>::from(u64::from(r_due.map_or(0, |(_, _, d)| d)));
            match rd_offer {
                // about as much as the link carries: a read's beats take ~80 cycles each
                None if generate && rng.gen_bool(0.003) => {
                    rd_offer = Some(RdReq { addr: rng.gen::<u64>() >> rng.gen_range(0..40), len: rng.gen_range(1..=100), tag: rng.gen_range(0..16) });
                }
                Some(_) if rng.gen_bool(0.05) => {
                    // withdrawn before it was taken (a queue disabled or stopped)
                    rd_offer = None;
                    o.withdrawn += 1;
                }
                _ => {}
            }
            if wr_offer.is_none() && generate && rng.gen_bool(0.005) {
                wr_offer = Some(WrBeat {
                    addr: rng.gen::<u64>() >> rng.gen_range(0..40),
                    strb: rng.gen_range(1..=u16::MAX),
                    last: rng.gen_bool(0.4),
                    tag: rng.gen_range(0..16),
                    data: rng.gen(),
                });
            }
            x.dma_rd_req_valid.next = rd_offer.is_some();
            let r = rd_offer.unwrap_or(RdReq { addr: 0, len: 0, tag: 0 });
            x.dma_rd_req_addr.next = Bits::<64>::from(r.addr);
            x.dma_rd_req_len.next = Bits::<16>::from(u64::from(r.len));
            x.dma_rd_req_tag.next = Bits::<4>::from(u64::from(r.tag));
            x.dma_wr_valid.next = wr_offer.is_some();
            let wb = wr_offer.unwrap_or(WrBeat { addr: 0, strb: 0, last: false, tag: 0, data: 0 });
            x.dma_wr_addr.next = Bits::<64>::from(wb.addr);
            x.dma_wr_strb.next = Bits::<16>::from(u64::from(wb.strb));
            x.dma_wr_last.next = wb.last;
            x.dma_wr_tag.next = Bits::<4>::from(u64::from(wb.tag));
            x.dma_wr_data.next = bits128(wb.data);
            // the NIC stalls a beat at most one cycle (it reserves room before it asks)
            x.dma_rd_rsp_ready.next = rsp_stalled || rng.gen_bool(0.5);
            if generate && rng.gen_bool(0.002) {
                irq = rng.gen();
                irq_history.push(irq);
            }
            x.irq.next = Bits::<16>::from(u64::from(irq));
            // the next register command once the previous one is answered
            if pending.is_none() {
                if generate && rng.gen_bool(0.01) {
                    o.reg_commands += 1;
                    match rng.gen_range(0..10) {
                        0..=3 => {
                            let addr: u16 = rng.gen::<u16>() & if rng.gen_bool(0.2) { 0xffff } else { 0x7fff };
                            let value: u32 = rng.gen();
                            to_board.extend(encode_reg_write(addr, value));
                            let status = if addr & 0x8000 != 0 { 2 } else { 0 };
                            if status == 0 {
                                regs.insert(addr, value);
                            }
                            pending = Some(Pending::Reg(BoardMessage::RegWritten { status }));
                        }
                        4..=7 => {
                            let addr = if rng.gen_bool(0.6) && !regs.is_empty() {
                                *regs.keys().nth(rng.gen_range(0..regs.len())).unwrap()
                            } else {
                                rng.gen()
                            };
                            to_board.extend(encode_reg_read(addr));
                            let (status, value) = if addr & 0x8000 != 0 { (2, 0) } else { (0, regs.get(&addr).copied().unwrap_or(0)) };
                            pending = Some(Pending::Reg(BoardMessage::RegRead { status, value }));
                        }
                        8 => {
                            to_board.push_back(b'V');
                            pending = Some(Pending::Ident(0));
                        }
                        _ => {
                            let b = *[0u8, b'Z', b'q', 0xff, b'X'].get(rng.gen_range(0..5)).unwrap();
                            to_board.push_back(b);
                            pending = Some(Pending::Unknown(b));
                        }
                    }
                } else if draining && !final_ident_sent {
                    to_board.push_back(b'V');
                    pending = Some(Pending::Ident(0));
                    final_ident_sent = true;
                }
            }

            // ---- what happens at the coming edge, with these inputs
            wait_clock_false!(sim, clock, x);
            // AXI4-Lite slave
            if x.m_axil_awvalid.val() && x.m_axil_awready.val() {
                aw = Some(x.m_axil_awaddr.val().to_u64() as u16);
            }
            if x.m_axil_wvalid.val() && x.m_axil_wready.val() {
                if x.m_axil_wstrb.val().to_u64() != 0xf {
                    fail(&mut o, cyc, format!("wstrb {:#x}", x.m_axil_wstrb.val().to_u64()));
                }
                w = Some(x.m_axil_wdata.val().to_u64() as u32);
            }
            if x.m_axil_bvalid.val() && x.m_axil_bready.val() {
                b_due = None;
            }
            if x.m_axil_rvalid.val() && x.m_axil_rready.val() {
                r_due = None;
            }
            if let (Some(a), Some(_)) = (aw, w) {
                b_due = Some((cyc + rng.gen_range(1..6), if a & 0x8000 != 0 { 2 } else { 0 }));
                aw = None;
                w = None;
            }
            if x.m_axil_arvalid.val() && x.m_axil_arready.val() {
                let a = x.m_axil_araddr.val().to_u64() as u16;
                let (resp, data) = if a & 0x8000 != 0 { (2, 0xdead_beef) } else { (0, regs.get(&a).copied().unwrap_or(0)) };
                r_due = Some((cyc + rng.gen_range(1..6), resp, data));
            }
            // the NIC's port
            let rd_taken = x.dma_rd_req_valid.val() && x.dma_rd_req_ready.val();
            if rd_taken {
                taken_reads.push_back(rd_offer.take().unwrap());
                o.reads += 1;
            }
            let wr_taken = x.dma_wr_valid.val() && x.dma_wr_ready.val();
            rsp_stalled = x.dma_rd_rsp_valid.val() && !x.dma_rd_rsp_ready.val();
            if x.dma_rd_rsp_valid.val() && x.dma_rd_rsp_ready.val() {
                let got: RspBeat = (x.dma_rd_rsp_data.val().to_u128(), x.dma_rd_rsp_last.val(), x.dma_rd_rsp_error.val(), x.dma_rd_rsp_tag.val().to_u64() as u8);
                o.beats_in += 1;
                match want_beats.pop_front() {
                    Some(want) if want == got => {}
                    want => fail(&mut o, cyc, format!("read response beat {got:x?}, want {want:x?}")),
                }
            }
            if x.dma_wr_rsp_valid.val() {
                let got = (x.dma_wr_rsp_tag.val().to_u64() as u8, x.dma_wr_rsp_error.val());
                match want_wr_rsp.pop_front() {
                    Some(want) if want == got => {}
                    want => fail(&mut o, cyc, format!("write response {got:?}, want {want:?}")),
                }
            }
            // a byte from the board
            let mut x_done = false;
            if x.tx_valid.val() && x.tx_ready.val() {
                from_board.push(x.tx_data.val().to_u64() as u8);
                match board_message_len(from_board[0]) {
                    None => {
                        fail(&mut o, cyc, format!("the board sent {:#04x}, which starts no message", from_board[0]));
                        from_board.clear();
                    }
                    Some(n) if from_board.len() == n + 1 => {
                        let msg = BoardMessage::decode(&from_board).unwrap();
                        from_board.clear();
                        match msg {
                            BoardMessage::ReadRequest { addr, len, tag } => match taken_reads.pop_front() {
                                Some(r) if r == (RdReq { addr, len, tag }) => {
                                    let mut beats = Vec::new();
                                    if rng.gen_bool(0.1) {
                                        beats.push((0u128, true, true, tag));
                                    } else {
                                        let n = usize::from(len).div_ceil(16);
                                        for k in 0..n {
                                            beats.push((rng.gen::<u128>(), k + 1 == n, false, tag));
                                        }
                                    }
                                    for b in beats {
                                        to_board.extend(encode_read_beat(b.1, b.2, b.3, &b.0.to_le_bytes()));
                                        want_beats.push_back(b);
                                    }
                                }
                                r => fail(&mut o, cyc, format!("'Q' {addr:#x}+{len} tag {tag}, the port took {r:?}")),
                            },
                            BoardMessage::WriteBeat { addr, strb, last, tag, data } => {
                                o.beats_out += 1;
                                x_done = true;
                                let got = WrBeat { addr, strb, last, tag, data: u128::from_le_bytes(data) };
                                if wr_offer != Some(got) {
                                    fail(&mut o, cyc, format!("'X' {got:x?}, the port offers {wr_offer:x?}"));
                                }
                                if last {
                                    let error = rng.gen_bool(0.2);
                                    to_board.extend(encode_write_response(error, tag));
                                    want_wr_rsp.push_back((tag, error));
                                }
                            }
                            BoardMessage::Irq(v) => {
                                o.irq_messages += 1;
                                if !irq_history.contains(&v) || Some(v) == last_q {
                                    fail(&mut o, cyc, format!("'q' {v:#x}: not a value the lines had, or no change"));
                                }
                                last_q = Some(v);
                            }
                            answer => {
                                let ok = match (&pending, &answer) {
                                    (Some(Pending::Reg(want)), got) => want == got,
                                    (Some(Pending::Ident(ov)), BoardMessage::Identity { magic, version, overruns }) => *magic == LINK_MAGIC && *version == 1 && overruns == ov,
                                    (Some(Pending::Unknown(b)), BoardMessage::Unknown(got)) => b == got,
                                    _ => false,
                                };
                                if !ok {
                                    fail(&mut o, cyc, format!("answer {answer:?}, want {pending:?}"));
                                }
                                pending = None;
                            }
                        }
                    }
                    _ => {}
                }
            }
            if wr_taken != x_done {
                fail(&mut o, cyc, format!("write beat taken {wr_taken} while its message ended {x_done}"));
            }
            if wr_taken {
                wr_offer = None;
            }
            wait_clock_true!(sim, clock, x);
            cyc += 1;

            draining = !generate;
            let quiet = rd_offer.is_none() && wr_offer.is_none() && taken_reads.is_empty() && want_beats.is_empty() && want_wr_rsp.is_empty() && to_board.is_empty() && from_board.is_empty();
            if draining && quiet && final_ident_sent && pending.is_none() && last_q.unwrap_or(0) == irq {
                break;
            }
            if cyc > traffic + 200_000 {
                fail(&mut o, cyc, format!("no end: {} reads, {} beats, {} write responses outstanding; pending {pending:?}; last 'q' {last_q:?}, lines {irq:#x}", taken_reads.len(), want_beats.len(), want_wr_rsp.len()));
                break;
            }
        }
        o.cycles = cyc;
        Ok((x, o))
    })
}

#[test]
fn host_link_serves_both_sides() {
    for (seed, traffic) in [(1, 80_000), (2, 40_000)] {
        let o = run(seed, traffic);
        eprintln!(
            "seed {seed}: {} cycles, {} read requests ({} withdrawn before taken), {} write beats, {} response beats, {} register commands, {} irq messages",
            o.cycles, o.reads, o.withdrawn, o.beats_out, o.beats_in, o.reg_commands, o.irq_messages
        );
        assert!(o.failures.is_empty(), "seed {seed}:\n{}", o.failures.join("\n"));
        // the scenario did what it is for
        assert!(o.reads > 20 && o.beats_out > 20 && o.beats_in > 40 && o.reg_commands > 20 && o.irq_messages > 3 && o.withdrawn > 0, "{o:?}");
        assert!(o.cycles < traffic + 50_000, "the link fell behind the scenario: {o:?}");
    }
}

/// The NIC does not take a beat: the next `'B'` counts one overrun, its beat replaces the
/// untaken one, and `'v'` reports the count.
#[test]
fn a_beat_not_taken_counts_an_overrun() {
    let (overruns, taken) = run_testbench(1_000_000, |x: &mut Box<HostLink>| x.clock.next = !x.clock.val(), |sim, mut x| {
        x.reset.next = true;
        x.tx_ready.next = true;
        x.dma_rd_rsp_ready.next = false;
        wait_clock_cycles!(sim, clock, x, 4);
        x.reset.next = false;
        let mut bytes: VecDeque<u8> = VecDeque::new();
        bytes.extend(encode_read_beat(true, false, 3, &[0x11; 16]));
        bytes.extend(encode_read_beat(true, false, 4, &[0x22; 16]));
        bytes.push_back(b'V');
        let mut answer = Vec::new();
        let mut taken = Vec::new();
        for cyc in 0..400 {
            let send = cyc % 3 == 0 && !bytes.is_empty();
            x.rx_valid.next = send;
            if send {
                x.rx_data.next = Bits::<8>::from(u64::from(bytes.pop_front().unwrap()));
            }
            // the NIC takes beats only once the identity answer is complete
            x.dma_rd_rsp_ready.next = answer.len() == 7;
            wait_clock_false!(sim, clock, x);
            if x.tx_valid.val() {
                answer.push(x.tx_data.val().to_u64() as u8);
            }
            if x.dma_rd_rsp_valid.val() && x.dma_rd_rsp_ready.val() {
                taken.push((x.dma_rd_rsp_data.val().to_u128(), x.dma_rd_rsp_tag.val().to_u64() as u8));
            }
            wait_clock_true!(sim, clock, x);
        }
        let overruns = match BoardMessage::decode(&answer) {
            Some(BoardMessage::Identity { overruns, .. }) => overruns,
            other => panic!("identity answer {answer:x?}: {other:?}"),
        };
        Ok((x, (overruns, taken)))
    });
    assert_eq!(overruns, 1, "one 'B' found the previous beat untaken");
    assert_eq!(taken, vec![(u128::from_le_bytes([0x22; 16]), 4)], "the second beat is the one offered, once");
}
