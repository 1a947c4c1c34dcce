//! Block test of the board's serial register bridge (`nic_hw::board::bridge::UartBridge`)
//! with its UARTs, in rust-hdl's own simulator, the way the host sees it:
//!
//! host `UartTx` -> line -> board `UartRx` -> `UartBridge` -> board `UartTx` -> line -> host `UartRx`
//!
//! Requests are encoded and answers decoded with the driver's codec (`nic_driver::serial`).
//! Around the bridge: an AXI4-Lite slave model (a register map, random ready and response
//! delays; modes that never answer, that take the access but never respond, and that
//! answer SLVERR) and a host memory model (a `Vec<u8>`, random `mem_ready`, random read
//! latency, in order). The expected answer and the expected registers/memory after each
//! command are computed here from the models' state before it, never taken from the RTL.
//!
//! Covered: every command, range errors (register address, memory end exactly at and one
//! past the window, `'M'` data consumed), an unknown byte (`'?'` and the byte, then the
//! next command works), register timeout (both silent modes, then recovery), slave error,
//! the fault log and its clear, a broken frame on the line (frame error, the byte dropped,
//! no answer), at divisor 4 and at divisor 7.

use nic_driver::serial::{Answer, AnswerParser, FaultLog, Request, SerialError, Status};
use nic_hw::board::bridge::UartBridge;
use nic_hw::board::uart::{UartRx, UartTx};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// The bridge between the two UART pairs; the bridge's AXI, memory and status ports are
/// the chain's ports. `line_low` forces the host->board line low (a broken frame).
#[derive(LogicBlock, Default)]
struct Chain {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    divisor: Signal<In, Bits<16>>,
    host_data: Signal<In, Bits<8>>,
    host_valid: Signal<In, Bit>,
    host_ready: Signal<Out, Bit>,
    host_rx_data: Signal<Out, Bits<8>>,
    host_rx_valid: Signal<Out, Bit>,
    host_rx_frame_error: Signal<Out, Bit>,
    line_low: Signal<In, Bit>,
    board_frame_error: Signal<Out, Bit>,
    awaddr: Signal<Out, Bits<16>>,
    awvalid: Signal<Out, Bit>,
    awready: Signal<In, Bit>,
    wdata: Signal<Out, Bits<32>>,
    wstrb: Signal<Out, Bits<4>>,
    wvalid: Signal<Out, Bit>,
    wready: Signal<In, Bit>,
    bresp: Signal<In, Bits<2>>,
    bvalid: Signal<In, Bit>,
    bready: Signal<Out, Bit>,
    araddr: Signal<Out, Bits<16>>,
    arvalid: Signal<Out, Bit>,
    arready: Signal<In, Bit>,
    rdata: Signal<In, Bits<32>>,
    rresp: Signal<In, Bits<2>>,
    rvalid: Signal<In, Bit>,
    rready: Signal<Out, Bit>,
    mem_addr: Signal<Out, Bits<32>>,
    mem_wr: Signal<Out, Bit>,
    mem_wdata: Signal<Out, Bits<8>>,
    mem_rd: Signal<Out, Bit>,
    mem_ready: Signal<In, Bit>,
    mem_rdata: Signal<In, Bits<8>>,
    mem_rvalid: Signal<In, Bit>,
    mem_size_log2: Signal<In, Bits<8>>,
    irq: Signal<In, Bits<16>>,
    fault_count: Signal<In, Bits<16>>,
    fault_addr: Signal<In, Bits<64>>,
    fault_len: Signal<In, Bits<16>>,
    fault_write: Signal<In, Bit>,
    fault_clear: Signal<Out, Bit>,
    host_tx: UartTx,
    board_rx: UartRx,
    bridge: UartBridge,
    board_tx: UartTx,
    host_rx: UartRx,
}

impl Logic for Chain {
    #[hdl_gen]
    fn update(&mut self) {
        self.host_tx.clock.next = self.clock.val();
        self.board_rx.clock.next = self.clock.val();
        self.bridge.clock.next = self.clock.val();
        self.board_tx.clock.next = self.clock.val();
        self.host_rx.clock.next = self.clock.val();
        self.host_tx.reset.next = self.reset.val();
        self.board_rx.reset.next = self.reset.val();
        self.bridge.reset.next = self.reset.val();
        self.board_tx.reset.next = self.reset.val();
        self.host_rx.reset.next = self.reset.val();
        self.host_tx.divisor.next = self.divisor.val();
        self.board_rx.divisor.next = self.divisor.val();
        self.board_tx.divisor.next = self.divisor.val();
        self.host_rx.divisor.next = self.divisor.val();
        // host -> board
        self.host_tx.data.next = self.host_data.val();
        self.host_tx.valid.next = self.host_valid.val();
        self.host_ready.next = self.host_tx.ready.val();
        self.board_rx.rx.next = self.host_tx.tx.val() & !self.line_low.val();
        self.board_frame_error.next = self.board_rx.frame_error.val();
        self.bridge.rx_data.next = self.board_rx.data.val();
        self.bridge.rx_valid.next = self.board_rx.valid.val();
        // board -> host
        self.board_tx.data.next = self.bridge.tx_data.val();
        self.board_tx.valid.next = self.bridge.tx_valid.val();
        self.bridge.tx_ready.next = self.board_tx.ready.val();
        self.host_rx.rx.next = self.board_tx.tx.val();
        self.host_rx_data.next = self.host_rx.data.val();
        self.host_rx_valid.next = self.host_rx.valid.val();
        self.host_rx_frame_error.next = self.host_rx.frame_error.val();
        // AXI4-Lite
        self.awaddr.next = self.bridge.m_axil_awaddr.val();
        self.awvalid.next = self.bridge.m_axil_awvalid.val();
        self.bridge.m_axil_awready.next = self.awready.val();
        self.wdata.next = self.bridge.m_axil_wdata.val();
        self.wstrb.next = self.bridge.m_axil_wstrb.val();
        self.wvalid.next = self.bridge.m_axil_wvalid.val();
        self.bridge.m_axil_wready.next = self.wready.val();
        self.bridge.m_axil_bresp.next = self.bresp.val();
        self.bridge.m_axil_bvalid.next = self.bvalid.val();
        self.bready.next = self.bridge.m_axil_bready.val();
        self.araddr.next = self.bridge.m_axil_araddr.val();
        self.arvalid.next = self.bridge.m_axil_arvalid.val();
        self.bridge.m_axil_arready.next = self.arready.val();
        self.bridge.m_axil_rdata.next = self.rdata.val();
        self.bridge.m_axil_rresp.next = self.rresp.val();
        self.bridge.m_axil_rvalid.next = self.rvalid.val();
        self.rready.next = self.bridge.m_axil_rready.val();
        // memory and status
        self.mem_addr.next = self.bridge.mem_addr.val();
        self.mem_wr.next = self.bridge.mem_wr.val();
        self.mem_wdata.next = self.bridge.mem_wdata.val();
        self.mem_rd.next = self.bridge.mem_rd.val();
        self.bridge.mem_ready.next = self.mem_ready.val();
        self.bridge.mem_rdata.next = self.mem_rdata.val();
        self.bridge.mem_rvalid.next = self.mem_rvalid.val();
        self.bridge.mem_size_log2.next = self.mem_size_log2.val();
        self.bridge.irq.next = self.irq.val();
        self.bridge.fault_count.next = self.fault_count.val();
        self.bridge.fault_addr.next = self.fault_addr.val();
        self.bridge.fault_len.next = self.fault_len.val();
        self.bridge.fault_write.next = self.fault_write.val();
        self.fault_clear.next = self.bridge.fault_clear.val();
    }
}

/// How the AXI4-Lite slave model behaves.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Slave {
    /// Random ready and response delays, OKAY.
    Normal,
    /// Never ready, never responds.
    Silent,
    /// Takes the address and data, never responds.
    NoResponse,
    /// Random delays, SLVERR (2), registers untouched, read data garbage.
    SlvErr,
    /// OKAY, but each response comes this many cycles after the access was taken.
    Slow(u64),
}

#[derive(Clone, Debug)]
enum Step {
    /// A command, with the slave mode during it.
    Req(Request, Slave),
    /// A byte the bridge does not know: the answer must be `'?'` and the byte.
    Unknown(u8),
    /// The host->board line forced low for 12 bit times: a frame error, no byte, no answer.
    Break,
    /// Change the NIC status inputs.
    SetIrq(u16),
    SetFaults(FaultLog),
}

#[derive(Default)]
struct Models {
    regs: HashMap<u16, u32>,
    mem: Vec<u8>,
    /// AXI address handshakes seen (to check a range error makes none).
    axi_accesses: u64,
    mem_accesses: u64,
    faults: FaultLog,
    irq: u16,
}

/// What a step must give: the answer and the models after it.
struct Expect {
    answer: Result<Answer, ()>,
    regs: HashMap<u16, u32>,
    mem: Vec<u8>,
    axi_accesses: u64,
    mem_accesses: Option<u64>,
    faults_after: FaultLog,
}

/// The golden protocol: the answer to `req` and the state after it, from the state before.
fn expect(req: &Request, slave: Slave, m: &Models) -> Expect {
    let size = m.mem.len() as u64;
    let mut e = Expect {
        answer: Err(()),
        regs: m.regs.clone(),
        mem: m.mem.clone(),
        axi_accesses: m.axi_accesses,
        mem_accesses: Some(m.mem_accesses),
        faults_after: m.faults,
    };
    let reg_status = |addr: u32| {
        if addr >= 0x1_0000 {
            Status::Range
        } else {
            match slave {
                Slave::Normal | Slave::Slow(_) => Status::Ok,
                Slave::Silent | Slave::NoResponse => Status::Timeout,
                Slave::SlvErr => Status::SlaveError,
            }
        }
    };
    let in_range = |off: u32, len: u64| u64::from(off) + len <= size;
    e.answer = Ok(match req {
        Request::WriteReg { addr, value } => {
            let status = reg_status(*addr);
            if status == Status::Ok {
                e.regs.insert(*addr as u16, *value);
            }
            if *addr < 0x1_0000 && slave != Slave::Silent {
                e.axi_accesses += 1;
            }
            Answer::WriteReg { status }
        }
        Request::ReadReg { addr } => {
            let status = reg_status(*addr);
            let value = if status == Status::Ok { m.regs.get(&(*addr as u16)).copied().unwrap_or(0) } else { 0 };
            if *addr < 0x1_0000 && slave != Slave::Silent {
                e.axi_accesses += 1;
            }
            Answer::ReadReg { status, value }
        }
        Request::MemWrite { off, data } => {
            if in_range(*off, data.len() as u64) {
                e.mem[*off as usize..*off as usize + data.len()].copy_from_slice(data);
                e.mem_accesses = Some(m.mem_accesses + data.len() as u64);
                Answer::MemWrite { status: Status::Ok }
            } else {
                Answer::MemWrite { status: Status::Range }
            }
        }
        Request::MemRead { off, len } => {
            if in_range(*off, u64::from(*len)) {
                e.mem_accesses = None; // read ahead: not an exact count
                Answer::MemRead { status: Status::Ok, data: m.mem[*off as usize..*off as usize + usize::from(*len)].to_vec() }
            } else {
                Answer::MemRead { status: Status::Range, data: vec![] }
            }
        }
        Request::MemZero { off, len } => {
            if in_range(*off, u64::from(*len)) {
                e.mem[*off as usize..*off as usize + *len as usize].fill(0);
                e.mem_accesses = Some(m.mem_accesses + u64::from(*len));
                Answer::MemZero { status: Status::Ok }
            } else {
                Answer::MemZero { status: Status::Range }
            }
        }
        // cycles: checked against the testbench's own count
        Request::Poll => Answer::Poll { irq: m.irq, cycles: 0 },
        Request::Faults => {
            e.faults_after = FaultLog { count: 0, ..m.faults };
            Answer::Faults(m.faults)
        }
        Request::Identify => Answer::Identify { version: 1, mem_size_log2: size.trailing_zeros() as u8 },
    });
    e
}

#[derive(Debug, Default, Clone)]
struct Outcome {
    /// One line per failed check.
    failures: Vec<String>,
    steps_done: usize,
    board_frame_errors: usize,
    cycles: u64,
}

fn run(steps: Vec<Step>, div: u64, mem_log2: u32, seed: u64) -> Outcome {
    let out = Arc::new(Mutex::new(Outcome::default()));
    let o2 = out.clone();
    let bit = div * 10;
    let max_cycles: u64 = 400_000;
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Chain>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Chain>| {
        let mut x = sim.init()?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut m = Models { mem: (0..1usize << mem_log2).map(|_| rng.gen()).collect(), ..Default::default() };
        let mut o = Outcome::default();
        x.divisor.next = Bits::<16>::from(div);
        x.mem_size_log2.next = Bits::<8>::from(u64::from(mem_log2));
        x.host_valid.next = false;
        x.line_low.next = false;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 4);
        x.reset.next = false;

        // AXI slave state
        let mut slave = Slave::Normal;
        let (mut aw, mut w, mut ar): (Option<u16>, Option<u32>, Option<u16>) = (None, None, None);
        let mut b_due: Option<(u64, u64)> = None; // (cycle, resp)
        let mut r_due: Option<(u64, u64, u32)> = None;
        // memory: read data due (cycle, byte), in order
        let mut rq: VecDeque<(u64, u8)> = VecDeque::new();
        // host
        let mut txq: VecDeque<u8> = VecDeque::new();
        let mut step = 0usize;
        let mut cur: Option<(Request, AnswerParser, Expect, u64)> = None;
        let mut quiet_until = 0u64; // Break / Unknown bookkeeping
        let mut break_until = 0u64;
        let mut unknown: Option<(u8, AnswerParser, u64)> = None;
        let mut fe_before = 0usize;
        let mut stray_rx = 0usize;
        let mut cycle = 0u64;
        let mut step_start = 0u64;
        // the cycle the request's last byte went into the host UART
        let mut sent_at = 0u64;
        let mut answer_started = false;
        while cycle < max_cycles {
            // ---- start the next step when the previous one is over
            let idle = cur.is_none() && unknown.is_none() && cycle >= quiet_until && txq.is_empty();
            if idle {
                if quiet_until != 0 && cycle == quiet_until {
                    // end of a Break: one frame error, no byte answered
                    if o.board_frame_errors != fe_before + 1 {
                        o.failures.push(format!("step {step}: break gave {} frame errors", o.board_frame_errors - fe_before));
                    }
                    if stray_rx != 0 {
                        o.failures.push(format!("step {step}: {stray_rx} bytes answered to a break"));
                    }
                    step += 1;
                }
                if step == steps.len() {
                    break;
                }
                step_start = cycle;
                match steps[step].clone() {
                    Step::Req(req, mode) => {
                        slave = mode;
                        txq.extend(req.encode());
                        let e = expect(&req, mode, &m);
                        cur = Some((req.clone(), AnswerParser::new(&req), e, cycle));
                    }
                    Step::Unknown(b) => {
                        txq.push_back(b);
                        unknown = Some((b, AnswerParser::new(&Request::Identify), cycle));
                    }
                    Step::Break => {
                        fe_before = o.board_frame_errors;
                        stray_rx = 0;
                        break_until = cycle + 12 * div;
                        quiet_until = cycle + 40 * div;
                    }
                    Step::SetIrq(v) => {
                        m.irq = v;
                        step += 1;
                    }
                    Step::SetFaults(f) => {
                        m.faults = f;
                        step += 1;
                    }
                }
            }
            if cycle > step_start + 20_000 + 20 * bit {
                o.failures.push(format!("step {step} ({:?}): no answer after {} cycles", steps[step], cycle - step_start));
                break;
            }

            // ---- drive inputs
            x.line_low.next = cycle < break_until;
            x.host_valid.next = !txq.is_empty();
            if let Some(&b) = txq.front() {
                x.host_data.next = Bits::<8>::from(u64::from(b));
            }
            x.irq.next = Bits::<16>::from(u64::from(m.irq));
            x.fault_count.next = Bits::<16>::from(u64::from(m.faults.count));
            x.fault_addr.next = Bits::<64>::from(m.faults.addr);
            x.fault_len.next = Bits::<16>::from(u64::from(m.faults.len));
            x.fault_write.next = m.faults.write;
            let live = slave != Slave::Silent;
            let awready = live && aw.is_none() && rng.gen_bool(0.6);
            let wready = live && w.is_none() && rng.gen_bool(0.6);
            let arready = live && ar.is_none() && rng.gen_bool(0.6);
            x.awready.next = awready;
            x.wready.next = wready;
            x.arready.next = arready;
            let bvalid = matches!(b_due, Some((c, _)) if c <= cycle);
            x.bvalid.next = bvalid;
            x.bresp.next = Bits::<2>::from(b_due.map_or(0, |b| b.1));
            let rvalid = matches!(r_due, Some((c, _, _)) if c <= cycle);
            x.rvalid.next = rvalid;
            x.rresp.next = Bits::<2>::from(r_due.map_or(0, |r| r.1));
            x.rdata.next = Bits::<32>::from(u64::from(r_due.map_or(0, |r| r.2)));
            let mem_ready = rng.gen_bool(0.7);
            x.mem_ready.next = mem_ready;
            let rv = matches!(rq.front(), Some(&(c, _)) if c <= cycle);
            x.mem_rvalid.next = rv;
            x.mem_rdata.next = Bits::<8>::from(u64::from(rq.front().map_or(0xee, |r| r.1)));
            x = sim.wait(1, x)?;

            // ---- observe outputs, update the models (handshakes at the coming edge)
            if x.host_valid.val() && x.host_ready.val() {
                txq.pop_front();
                if txq.is_empty() {
                    sent_at = cycle;
                }
            }
            if x.board_frame_error.val() {
                o.board_frame_errors += 1;
            }
            if x.host_rx_frame_error.val() {
                o.failures.push(format!("step {step}: frame error on the board->host line"));
            }
            if x.wstrb.val().to_u64() != 0xf && x.wvalid.val() {
                o.failures.push(format!("step {step}: wstrb {:x}", x.wstrb.val().to_u64()));
            }
            if x.awvalid.val() && awready {
                aw = Some(x.awaddr.val().to_u64() as u16);
                m.axi_accesses += 1;
            }
            if x.wvalid.val() && wready {
                w = Some(x.wdata.val().to_u64() as u32);
            }
            if x.arvalid.val() && arready {
                ar = Some(x.araddr.val().to_u64() as u16);
                m.axi_accesses += 1;
            }
            if bvalid && x.bready.val() {
                b_due = None;
            }
            if rvalid && x.rready.val() {
                r_due = None;
            }
            if let (Some(a), Some(d), None) = (aw, w, b_due) {
                aw = None;
                w = None;
                match slave {
                    Slave::Normal => {
                        m.regs.insert(a, d);
                        b_due = Some((cycle + rng.gen_range(1..20), 0));
                    }
                    Slave::Slow(n) => {
                        m.regs.insert(a, d);
                        b_due = Some((cycle + n, 0));
                    }
                    Slave::SlvErr => b_due = Some((cycle + rng.gen_range(1..20), 2)),
                    Slave::NoResponse | Slave::Silent => {}
                }
            }
            if let (Some(a), None) = (ar, r_due) {
                ar = None;
                match slave {
                    Slave::Normal => r_due = Some((cycle + rng.gen_range(1..20), 0, m.regs.get(&a).copied().unwrap_or(0))),
                    Slave::Slow(n) => r_due = Some((cycle + n, 0, m.regs.get(&a).copied().unwrap_or(0))),
                    Slave::SlvErr => r_due = Some((cycle + rng.gen_range(1..20), 2, 0xbad0_bad0)),
                    Slave::NoResponse | Slave::Silent => {}
                }
            }
            if rv {
                rq.pop_front();
            }
            if (x.mem_wr.val() || x.mem_rd.val()) && mem_ready {
                let a = x.mem_addr.val().to_u64();
                if x.mem_wr.val() && x.mem_rd.val() {
                    o.failures.push(format!("step {step}: mem_wr and mem_rd together"));
                }
                if a >= m.mem.len() as u64 {
                    o.failures.push(format!("step {step}: memory access at {a:#x} outside the window"));
                } else if x.mem_wr.val() {
                    m.mem[a as usize] = x.mem_wdata.val().to_u64() as u8;
                } else {
                    let due = (cycle + rng.gen_range(1..6)).max(rq.back().map_or(0, |r| r.0 + 1));
                    rq.push_back((due, m.mem[a as usize]));
                }
                m.mem_accesses += 1;
            }
            if x.fault_clear.val() {
                m.faults.count = 0;
            }
            if x.host_rx_valid.val() {
                let b = x.host_rx_data.val().to_u64() as u8;
                if let Some((req, p, e, t0)) = cur.as_mut() {
                    if !answer_started {
                        answer_started = true;
                        // a timeout answers 4096 cycles after the access started: that is
                        // after the last request byte arrived (one frame after it went into
                        // the host UART) and before that plus a frame and some slack
                        if matches!(e.answer, Ok(Answer::WriteReg { status: Status::Timeout }) | Ok(Answer::ReadReg { status: Status::Timeout, .. })) {
                            let waited = cycle - sent_at;
                            if waited < 4096 || waited > 4096 + 2 * bit + 100 {
                                o.failures.push(format!("step {step} {req:?}: timeout answer {waited} cycles after the request"));
                            }
                        }
                    }
                    match p.push(b) {
                        Ok(None) => {}
                        Ok(Some(mut got)) => {
                            if let (Request::Poll, Answer::Poll { cycles, .. }) = (&*req, &mut got) {
                                // the counter runs from reset: it read between the request's
                                // start and now (the board's count starts a cycle after ours)
                                if *cycles + 1 < *t0 || *cycles > cycle {
                                    o.failures.push(format!("step {step}: poll cycles {cycles} not in [{t0}, {cycle}]"));
                                }
                                *cycles = 0;
                            }
                            if Ok(&got) != e.answer.as_ref() {
                                o.failures.push(format!("step {step} {req:?}: answer {got:?}, expected {:?}", e.answer));
                            }
                        }
                        Err(err) => o.failures.push(format!("step {step} {req:?}: {err}")),
                    }
                } else if let Some((u, p, _)) = unknown.as_mut() {
                    match p.push(b) {
                        Ok(None) => {}
                        Err(SerialError::Unknown { byte }) if byte == *u => {
                            unknown = None;
                            step += 1;
                        }
                        r => {
                            o.failures.push(format!("step {step}: unknown byte {u:#x} answered {r:?}"));
                            unknown = None;
                            step += 1;
                        }
                    }
                } else if quiet_until > cycle {
                    stray_rx += 1;
                } else {
                    o.failures.push(format!("step {step}: byte {b:#x} with no request"));
                }
            }
            // a finished request: check the models once the memory port went quiet
            if let Some((req, p, e, _)) = cur.as_ref() {
                if p.is_done() && rq.is_empty() {
                    if m.regs != e.regs {
                        o.failures.push(format!("step {step} {req:?}: registers differ from the expected ones"));
                    }
                    if m.mem != e.mem {
                        let first = m.mem.iter().zip(&e.mem).position(|(a, b)| a != b).unwrap();
                        o.failures.push(format!("step {step} {req:?}: memory differs first at {first:#x}"));
                    }
                    if m.axi_accesses != e.axi_accesses {
                        o.failures.push(format!("step {step} {req:?}: {} AXI accesses, expected {}", m.axi_accesses, e.axi_accesses));
                    }
                    if let Some(n) = e.mem_accesses {
                        if n != m.mem_accesses {
                            o.failures.push(format!("step {step} {req:?}: {} memory accesses, expected {n}", m.mem_accesses));
                        }
                    }
                    if m.faults != e.faults_after {
                        o.failures.push(format!("step {step} {req:?}: fault log {:?}, expected {:?}", m.faults, e.faults_after));
                    }
                    cur = None;
                    answer_started = false;
                    step += 1;
                    o.steps_done = step;
                }
            }
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
        }
        o.steps_done = step;
        o.cycles = cycle;
        *o2.lock().unwrap() = o;
        sim.done(x)
    });
    let mut uut = Chain::default();
    uut.connect_all();
    sim.run(Box::new(uut), (max_cycles + 100) * 10).unwrap();
    let o = out.lock().unwrap().clone();
    o
}

fn check(o: &Outcome, n: usize, what: &str) {
    eprintln!("{what}: {} steps in {} cycles", o.steps_done, o.cycles);
    assert!(o.failures.is_empty(), "{what}:\n{}", o.failures.join("\n"));
    assert_eq!(o.steps_done, n, "{what}: not every step finished");
}

fn req(r: Request) -> Step {
    Step::Req(r, Slave::Normal)
}

/// Every command, the error cases, resync, break, timeout and slave error.
fn full_script(rng: &mut StdRng, size: u32) -> Vec<Step> {
    let mut s = vec![
        req(Request::Identify),
        Step::SetIrq(0x8005),
        req(Request::Poll),
        req(Request::WriteReg { addr: 0x0010, value: 0xdead_beef }),
        req(Request::WriteReg { addr: 0xfffc, value: 0x0123_4567 }),
        req(Request::ReadReg { addr: 0x0010 }),
        req(Request::ReadReg { addr: 0xfffc }),
        req(Request::ReadReg { addr: 0x0020 }),
        // register range: no access, status 3
        req(Request::WriteReg { addr: 0x1_0010, value: 1 }),
        req(Request::ReadReg { addr: 0x8000_0010 }),
        // memory
        req(Request::MemWrite { off: 5, data: (0..37).map(|_| rng.gen()).collect() }),
        req(Request::MemRead { off: 3, len: 41 }),
        req(Request::MemWrite { off: size - 9, data: (0..9).map(|_| rng.gen()).collect() }),
        req(Request::MemRead { off: size - 16, len: 16 }),
        req(Request::MemZero { off: 7, len: 100 }),
        req(Request::MemRead { off: 0, len: 120 }),
        // one and two bytes: `remain` loaded at 1, and counting down from 2
        req(Request::MemWrite { off: 2, data: vec![rng.gen()] }),
        req(Request::MemZero { off: 4, len: 1 }),
        req(Request::MemWrite { off: 11, data: (0..2).map(|_| rng.gen()).collect() }),
        req(Request::MemZero { off: 20, len: 2 }),
        req(Request::MemRead { off: 1, len: 22 }),
        req(Request::MemRead { off: 2, len: 1 }),
        req(Request::MemRead { off: 9, len: 0 }),
        req(Request::MemWrite { off: 9, data: vec![] }),
        req(Request::MemZero { off: 9, len: 0 }),
        // memory range: one past the end; data consumed, nothing written
        req(Request::MemWrite { off: size - 8, data: (0..9).map(|_| rng.gen()).collect() }),
        req(Request::MemRead { off: size - 8, len: 9 }),
        req(Request::MemZero { off: 1, len: size }),
        req(Request::MemZero { off: 0xffff_ff00, len: 0x200 }),
        req(Request::MemRead { off: 0xffff_ffff, len: 2 }),
        req(Request::MemZero { off: 0, len: 0xffff_ffff }),
        req(Request::MemRead { off: 0, len: 8 }),
        // unknown bytes: '?' and the byte, then business as usual
        Step::Unknown(b'x'),
        Step::Unknown(0x00),
        Step::Unknown(b'w'),
        req(Request::ReadReg { addr: 0x0010 }),
        // a broken frame: dropped, no answer
        Step::Break,
        req(Request::Identify),
        // fault log, then cleared
        Step::SetFaults(FaultLog { count: 3, addr: 0x1_2345_6789_abcd, len: 0x0440, write: true }),
        req(Request::Faults),
        req(Request::Faults),
        Step::SetFaults(FaultLog { count: 0xffff, addr: 0x1_0000_0000, len: 1, write: false }),
        req(Request::Faults),
        // slave error, timeouts (answered 4096 cycles after the access started), recovery
        Step::Req(Request::WriteReg { addr: 0x0010, value: 0x5555_5555 }, Slave::SlvErr),
        Step::Req(Request::ReadReg { addr: 0x0010 }, Slave::SlvErr),
        Step::Req(Request::WriteReg { addr: 0x0014, value: 0x6666_6666 }, Slave::Silent),
        Step::Req(Request::ReadReg { addr: 0x0010 }, Slave::Silent),
        Step::Req(Request::WriteReg { addr: 0x0018, value: 0x7777_7777 }, Slave::NoResponse),
        Step::Req(Request::ReadReg { addr: 0x0010 }, Slave::NoResponse),
        req(Request::WriteReg { addr: 0x0018, value: 0x8888_8888 }),
        req(Request::ReadReg { addr: 0x0018 }),
        // slow but within the 4096 cycles
        Step::Req(Request::WriteReg { addr: 0x001c, value: 0x9999_9999 }, Slave::Slow(4000)),
        Step::Req(Request::ReadReg { addr: 0x001c }, Slave::Slow(4000)),
        Step::SetIrq(0x0001),
        req(Request::Poll),
        req(Request::Poll),
    ];
    // a random tail
    for _ in 0..10 {
        let off = rng.gen_range(0..size);
        let len = rng.gen_range(0..=(size - off).min(40)) as u16;
        s.push(req(match rng.gen_range(0..5) {
            0 => Request::MemWrite { off, data: (0..len).map(|_| rng.gen()).collect() },
            1 => Request::MemRead { off, len },
            2 => Request::MemZero { off, len: u32::from(len) },
            3 => Request::WriteReg { addr: rng.gen_range(0..0x40) * 4, value: rng.gen() },
            _ => Request::ReadReg { addr: rng.gen_range(0..0x40) * 4 },
        }));
    }
    s
}

#[test]
fn bridge_every_command_divisor_4() {
    let mut rng = StdRng::seed_from_u64(1);
    let steps = full_script(&mut rng, 1 << 10);
    let n = steps.len();
    let o = run(steps, 4, 10, 11);
    check(&o, n, "divisor 4");
    assert_eq!(o.board_frame_errors, 1);
}

#[test]
fn bridge_every_command_divisor_7() {
    let mut rng = StdRng::seed_from_u64(2);
    let steps = full_script(&mut rng, 1 << 9);
    let n = steps.len();
    let o = run(steps, 7, 9, 12);
    check(&o, n, "divisor 7");
    assert_eq!(o.board_frame_errors, 1);
}
