//! An AXI4 slave (128-bit data, single ID) in front of [`HostMemory`], serving the
//! `m_axi_*` master of `nic_top_axi`, and a protocol checker of that master.
//!
//! Like [`HostMemory::drive`]/[`HostMemory::observe`] for the DMA port: [`AxiMemPort::drive`]
//! sets the slave's inputs of the coming cycle, [`AxiMemPort::observe`] takes the
//! handshakes of that cycle's clock edge.
//!
//! Reads (AR/R):
//! * INCR bursts of 16-byte beats; ARREADY while fewer than `max_outstanding_reads`
//!   bursts are pending (and no random stall);
//! * the data is taken from memory when the AR is accepted; the first beat is offered
//!   `latency` cycles after the acceptance edge, then beats and bursts follow in order
//!   without bubbles whenever RREADY is 1; RLAST on each burst's last beat;
//! * a beat whose 16-byte word touches an unmapped byte answers RRESP = SLVERR (2) with
//!   RDATA 0 (the IOMMU is byte-granular: memory a master reads must cover whole aligned
//!   words, which the driver's allocations do); the refused words are logged as a
//!   [`DmaFault`] (`write: false`), contiguous refusals coalesced into one entry.
//!
//! Writes (AW/W/B):
//! * AW and W accepted independently, in any order (W beats before their AW are
//!   buffered, at most `max_w_ahead`; then WREADY waits for the AW); AWREADY while fewer
//!   than `max_outstanding_writes` writes await their B;
//! * a burst is applied when its AW and all its W beats are in: the WSTRB-enabled bytes
//!   are written only if every enabled byte of the whole burst is mapped, else nothing is
//!   written, BRESP = SLVERR and the enabled span is logged as a [`DmaFault`]
//!   (`write: true`, coalesced like reads). A beat with WSTRB = 0 writes nothing and is OKAY;
//! * one B per burst, in order, offered `write_latency` cycles after the burst completed.
//!
//! Backpressure `(seed, p)`: ARREADY, AWREADY and WREADY are dropped, and the start of a
//! new R beat and of a new B are delayed, each with probability `p` per cycle and channel.
//! A beat or response once offered is held until taken (AXI).
//!
//! Checker: the master's behaviour is checked every cycle and any violation panics with
//! the rule, the cycle (0-based, = `SimDevice::cycles()` before the step) and the last
//! AXI handshakes: ARVALID/AWVALID/WVALID dropped, or their payload changed, before the
//! handshake; VALIDs high during reset; AxSIZE != 4 (16 bytes), AxBURST != INCR, an
//! address not aligned to 16, an AxLEN above 255, a burst crossing a 4 KiB boundary;
//! WLAST missing on a burst's last beat or set on another; more than 256 W beats without
//! WLAST; W data waiting for its AW longer than `w_without_aw_timeout` cycles. The
//! slave's own side (R only after AR, B only after AW and W, one B per burst, RLAST
//! placement, values held until taken) is asserted too. [`AxiMemPort::check_idle`] fails
//! if transactions are left open. The DMA port inside `nic_top_axi` (`nic_top`'s side,
//! exposed in [`AxiOutputs`]) is watched as well: a write beat that changes or goes away
//! while its valid waits for ready, after the bridge issued part of it, is a violation
//! (nic_top's: the rest of the old beat's AXI write carries the new beat); changes the
//! bridge survives are counted in [`AxiStats`]. `NIC_AXI_CHECK=warn` prints
//! violations instead of panicking.

use std::collections::VecDeque;
use std::fmt;

use nic_driver::device::DmaFault;

use crate::axi_model::{AxiInputs, AxiOutputs};
use crate::host_mem::HostMemory;
use crate::rng::Stall;

/// OKAY response.
pub const RESP_OKAY: u8 = 0;
/// SLVERR response: the IOMMU refused the access.
pub const RESP_SLVERR: u8 = 2;
/// AxSIZE of 16-byte beats.
pub const SIZE_16: u8 = 4;
/// AxBURST INCR.
pub const BURST_INCR: u8 = 1;
const BEAT: u64 = 16;
const PAGE: u64 = 4096;
/// Handshakes kept for the checker's messages.
const HISTORY: usize = 48;

/// Timing and limits of the AXI slave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxiMemConfig {
    /// Cycles from an AR's acceptance edge to the cycle its first beat is offered (>= 1).
    pub latency: u32,
    /// Cycles from the edge completing a write burst (its AW and last W beat both in) to
    /// the cycle its B is offered (>= 1).
    pub write_latency: u32,
    /// AR bursts accepted and not fully answered, at most.
    pub max_outstanding_reads: usize,
    /// AW bursts accepted whose B has not been taken, at most.
    pub max_outstanding_writes: usize,
    /// W beats accepted ahead of their AW, at most.
    pub max_w_ahead: usize,
    /// Random backpressure `(seed, probability per cycle and channel)`.
    pub backpressure: Option<(u64, f64)>,
    /// W beats waiting this many cycles for their AW are a protocol error (a deadlock).
    pub w_without_aw_timeout: u64,
}

impl Default for AxiMemConfig {
    fn default() -> Self {
        AxiMemConfig {
            latency: 16,
            write_latency: 1,
            max_outstanding_reads: 64,
            max_outstanding_writes: 64,
            max_w_ahead: 16,
            backpressure: None,
            w_without_aw_timeout: 100_000,
        }
    }
}

/// Counters of the AXI traffic served (the [`HostMemory`] stats count it too: AR bursts
/// as read requests, AW bursts as write bursts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxiStats {
    pub ar_bursts: u64,
    /// Beats requested by all AR bursts.
    pub ar_beats: u64,
    /// AR bursts that end on a 4 KiB boundary while the read continues (the bridge's splits).
    pub ar_bursts_at_page_end: u64,
    pub max_ar_len: u8,
    pub r_beats: u64,
    pub r_slverr_beats: u64,
    pub aw_bursts: u64,
    pub w_beats: u64,
    /// W beats with WSTRB = 0 (legal, wasteful).
    pub w_empty_strobe: u64,
    /// W beats with some but not all lanes enabled.
    pub w_partial_strobe: u64,
    /// W beats accepted before their AW.
    pub w_before_aw: u64,
    pub b_resps: u64,
    pub b_slverr: u64,
    /// Most AR bursts outstanding at once.
    pub max_reads_outstanding: usize,
    /// Cycles in which a VALID of the master waited for a READY the slave withheld.
    pub ar_stalls: u64,
    pub aw_stalls: u64,
    pub w_stalls: u64,
    /// Cycles in which the master did not take an offered R beat / B response.
    pub r_backpressure: u64,
    pub b_backpressure: u64,
    /// Cycles in which nic_top changed or withdrew a DMA write beat / read request that
    /// was waiting for ready (inside nic_top_axi; harmless to the bridge unless part of
    /// the write was issued, which is a violation).
    pub nic_wr_beat_changed: u64,
    pub nic_rd_req_changed: u64,
}

#[derive(Debug)]
struct RBurst {
    /// First cycle in which the first beat may be offered.
    ready_at: u64,
    addr: u64,
    /// (data, SLVERR) per beat.
    beats: Vec<(u128, bool)>,
    next: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ax {
    addr: u64,
    len: u8,
    size: u8,
    burst: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WBeat {
    data: u128,
    strb: u16,
    last: bool,
}

#[derive(Debug, Default)]
struct WBurst {
    beats: Vec<WBeat>,
    complete: bool,
    /// Cycle the first beat was accepted.
    since: u64,
}

#[derive(Clone, Copy, Debug)]
struct BRsp {
    ready_at: u64,
    resp: u8,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Ar { addr: u64, len: u8 },
    R { resp: u8, last: bool, data: u128 },
    Aw { addr: u64, len: u8 },
    W { strb: u16, last: bool, data: u128 },
    B { resp: u8 },
    Reset,
}

/// The AXI4 slave in front of [`HostMemory`] and the checker of the master.
#[derive(Debug)]
pub struct AxiMemPort {
    cfg: AxiMemConfig,
    cycle: u64,
    stats: AxiStats,
    // read side
    reads: VecDeque<RBurst>,
    r_offered: bool,
    // write side
    aws: VecDeque<Ax>,
    wbursts: VecDeque<WBurst>,
    bs: VecDeque<BRsp>,
    b_offered: bool,
    // checker
    pending_ar: Option<Ax>,
    pending_aw: Option<Ax>,
    pending_w: Option<WBeat>,
    /// The NIC's DMA-port write beat / read request waiting for ready (nic_top side).
    pending_dma_wr: Option<(u64, u128, u16, bool, u8)>,
    pending_dma_rd: Option<(u64, u16, u8)>,
    dma_wr_partial: bool,
    reset_cycles: u64,
    history: VecDeque<(u64, Event)>,
    /// Print every handshake to stderr.
    log: bool,
    // backpressure
    stall_ar: Stall,
    stall_r: Stall,
    stall_aw: Stall,
    stall_w: Stall,
    stall_b: Stall,
}

impl Default for AxiMemPort {
    fn default() -> Self {
        AxiMemPort::new(AxiMemConfig::default())
    }
}

impl AxiMemPort {
    pub fn new(cfg: AxiMemConfig) -> AxiMemPort {
        let mut p = AxiMemPort {
            cfg,
            cycle: 0,
            stats: AxiStats::default(),
            reads: VecDeque::new(),
            r_offered: false,
            aws: VecDeque::new(),
            wbursts: VecDeque::new(),
            bs: VecDeque::new(),
            b_offered: false,
            pending_ar: None,
            pending_aw: None,
            pending_w: None,
            pending_dma_wr: None,
            pending_dma_rd: None,
            dma_wr_partial: false,
            reset_cycles: 0,
            history: VecDeque::with_capacity(HISTORY),
            log: false,
            stall_ar: Stall::never(),
            stall_r: Stall::never(),
            stall_aw: Stall::never(),
            stall_w: Stall::never(),
            stall_b: Stall::never(),
        };
        p.set_backpressure(cfg.backpressure);
        p
    }

    pub fn config(&self) -> &AxiMemConfig {
        &self.cfg
    }

    /// Changes the read latency (bursts accepted from now on).
    pub fn set_latency(&mut self, latency: u32) {
        self.cfg.latency = latency;
    }

    /// Changes the B latency (writes completed from now on; >= 1: 1 offers BVALID in the
    /// cycle right after the burst's last handshake, the earliest AXI allows).
    pub fn set_write_latency(&mut self, cycles: u32) {
        self.cfg.write_latency = cycles.max(1);
    }

    /// Turns random backpressure on (`Some((seed, p))`) or off.
    pub fn set_backpressure(&mut self, bp: Option<(u64, f64)>) {
        self.cfg.backpressure = bp;
        // Salts distinct from HostMemory's DMA-port channels (1..3).
        self.stall_ar = Stall::from_opt(bp, 11);
        self.stall_r = Stall::from_opt(bp, 12);
        self.stall_aw = Stall::from_opt(bp, 13);
        self.stall_w = Stall::from_opt(bp, 14);
        self.stall_b = Stall::from_opt(bp, 15);
    }

    /// Prints every AXI handshake (with RDATA/WDATA) to stderr from now on: for debugging.
    pub fn set_log(&mut self, on: bool) {
        self.log = on;
    }

    /// The last handshakes (up to 48), formatted as in the checker's messages.
    pub fn recent_handshakes(&self) -> String {
        self.history_text()
    }

    pub fn stats(&self) -> AxiStats {
        self.stats
    }

    /// AR bursts accepted and not fully answered.
    pub fn outstanding_reads(&self) -> usize {
        self.reads.len()
    }

    /// No read pending, no write open, no B due.
    pub fn idle(&self) -> bool {
        self.reads.is_empty() && self.aws.is_empty() && self.wbursts.is_empty() && self.bs.is_empty()
    }

    /// Err with a description if transactions are still open (e.g. at the end of a test
    /// whose traffic has drained: a W without its AW, a B never taken...).
    pub fn check_idle(&self) -> Result<(), String> {
        if self.idle() {
            return Ok(());
        }
        Err(format!(
            "AXI transactions left open at cycle {}: {} read bursts, {} AWs without their W data, {} W bursts without their AW ({} beats), {} B responses not taken\n{}",
            self.cycle,
            self.reads.len(),
            self.aws.len().saturating_sub(self.wbursts.len()),
            self.wbursts.len().saturating_sub(self.aws.len()),
            self.wbursts.iter().skip(self.aws.len()).map(|w| w.beats.len()).sum::<usize>(),
            self.bs.len(),
            self.history_text()
        ))
    }

    /// Cycles observed (= `SimDevice::cycles()` while this port serves the model from reset).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    // ----- cycle by cycle ------------------------------------------------------------

    /// Sets the slave's inputs of `inp` for the coming cycle (`inp.reset` must already be
    /// set: during reset the slave drives nothing).
    #[inline]
    pub fn drive(&mut self, inp: &mut AxiInputs) {
        if inp.reset {
            inp.m_axi_arready = false;
            inp.m_axi_awready = false;
            inp.m_axi_wready = false;
            inp.m_axi_rvalid = false;
            inp.m_axi_bvalid = false;
            inp.set_rdata(0);
            inp.m_axi_rresp = 0;
            inp.m_axi_rlast = false;
            inp.m_axi_bresp = 0;
            return;
        }
        inp.m_axi_arready = self.reads.len() < self.cfg.max_outstanding_reads && !self.stall_ar.flip();
        let writes_open = self.aws.len() + self.bs.len();
        inp.m_axi_awready = writes_open < self.cfg.max_outstanding_writes && !self.stall_aw.flip();
        // W beats not yet matched to an AW, including the one in progress.
        let ahead: usize = self.wbursts.iter().skip(self.aws.len()).map(|w| w.beats.len()).sum();
        inp.m_axi_wready = ahead < self.cfg.max_w_ahead && !self.stall_w.flip();

        // R: a beat once offered stays offered, unchanged, until taken.
        let mut rvalid = false;
        if let Some(r) = self.reads.front() {
            if r.ready_at <= self.cycle && (self.r_offered || !self.stall_r.flip()) {
                let (data, err) = r.beats[r.next];
                rvalid = true;
                inp.set_rdata(data);
                inp.m_axi_rresp = if err { RESP_SLVERR } else { RESP_OKAY };
                inp.m_axi_rlast = r.next + 1 == r.beats.len();
            }
        }
        debug_assert!(!self.r_offered || rvalid, "slave: RVALID dropped before RREADY");
        self.r_offered = rvalid;
        inp.m_axi_rvalid = rvalid;
        if !rvalid {
            inp.set_rdata(0);
            inp.m_axi_rresp = 0;
            inp.m_axi_rlast = false;
        }

        // B: likewise held until taken.
        let mut bvalid = false;
        if let Some(b) = self.bs.front() {
            if b.ready_at <= self.cycle && (self.b_offered || !self.stall_b.flip()) {
                bvalid = true;
                inp.m_axi_bresp = b.resp;
            }
        }
        self.b_offered = bvalid;
        inp.m_axi_bvalid = bvalid;
        if !bvalid {
            inp.m_axi_bresp = 0;
        }
    }

    /// Takes the handshakes of the clock edge that ended the cycle stepped with `inp` (as
    /// set by [`AxiMemPort::drive`]) and produced `out`; checks the master.
    #[inline]
    pub fn observe(&mut self, inp: &AxiInputs, out: &AxiOutputs, mem: &mut HostMemory) {
        if inp.reset {
            self.observe_reset(out);
            self.cycle += 1;
            return;
        }
        self.reset_cycles = 0;
        self.check_stability(inp, out);

        // R beat taken.
        if inp.m_axi_rvalid && out.m_axi_rready {
            self.take_r(inp, mem);
        } else if inp.m_axi_rvalid {
            self.stats.r_backpressure += 1;
        }
        // B taken.
        if inp.m_axi_bvalid && out.m_axi_bready {
            let b = self.bs.pop_front().expect("slave: B without a completed write");
            assert_eq!(b.resp, inp.m_axi_bresp, "slave: BRESP changed while offered");
            self.b_offered = false;
            self.stats.b_resps += 1;
            self.event(Event::B { resp: b.resp });
        } else if inp.m_axi_bvalid {
            self.stats.b_backpressure += 1;
        }
        // AR accepted.
        if out.m_axi_arvalid && inp.m_axi_arready {
            let ax = Ax { addr: out.m_axi_araddr, len: out.m_axi_arlen, size: out.m_axi_arsize, burst: out.m_axi_arburst };
            self.accept_ar(ax, mem);
        } else if out.m_axi_arvalid {
            self.stats.ar_stalls += 1;
        }
        // AW accepted.
        if out.m_axi_awvalid && inp.m_axi_awready {
            let ax = Ax { addr: out.m_axi_awaddr, len: out.m_axi_awlen, size: out.m_axi_awsize, burst: out.m_axi_awburst };
            self.accept_aw(ax);
        } else if out.m_axi_awvalid {
            self.stats.aw_stalls += 1;
        }
        // W accepted.
        if out.m_axi_wvalid && inp.m_axi_wready {
            self.accept_w(WBeat { data: out.wdata(), strb: out.m_axi_wstrb, last: out.m_axi_wlast });
        } else if out.m_axi_wvalid {
            self.stats.w_stalls += 1;
        }
        self.complete_writes(mem);
        if let Some(w) = self.wbursts.get(self.aws.len()) {
            if self.cycle - w.since > self.cfg.w_without_aw_timeout {
                self.violation(format!(
                    "W data waiting {} cycles for its AW (W burst {} of {} buffered, {} beats): write data without a matching AW",
                    self.cycle - w.since,
                    self.aws.len() + 1,
                    self.wbursts.len(),
                    w.beats.len()
                ));
            }
        }
        self.cycle += 1;
    }

    fn observe_reset(&mut self, out: &AxiOutputs) {
        // AXI: during reset the master drives ARVALID, AWVALID and WVALID low. Checked
        // from the second reset cycle on (registers have taken their reset values at the
        // first edge).
        if self.reset_cycles > 0 && (out.m_axi_arvalid || out.m_axi_awvalid || out.m_axi_wvalid) {
            self.violation(format!(
                "VALID high during reset (cycle {} of reset): ARVALID {} AWVALID {} WVALID {}",
                self.reset_cycles + 1,
                out.m_axi_arvalid as u8,
                out.m_axi_awvalid as u8,
                out.m_axi_wvalid as u8
            ));
        }
        if self.reset_cycles == 0 {
            // Both sides reset: whatever was in flight is gone.
            self.reads.clear();
            self.aws.clear();
            self.wbursts.clear();
            self.bs.clear();
            self.r_offered = false;
            self.b_offered = false;
            self.pending_ar = None;
            self.pending_aw = None;
            self.pending_w = None;
            self.pending_dma_wr = None;
            self.pending_dma_rd = None;
            self.dma_wr_partial = false;
            self.event(Event::Reset);
        }
        self.reset_cycles += 1;
    }

    /// VALID must stay high with its payload unchanged until READY (AXI A3.2.1).
    fn check_stability(&mut self, inp: &AxiInputs, out: &AxiOutputs) {
        let ar = Ax { addr: out.m_axi_araddr, len: out.m_axi_arlen, size: out.m_axi_arsize, burst: out.m_axi_arburst };
        if let Some(p) = self.pending_ar {
            if !out.m_axi_arvalid {
                self.violation(format!("ARVALID dropped before ARREADY (AR {p:x?} was waiting)"));
            }
            if p != ar {
                self.violation(format!("AR payload changed while ARVALID waited for ARREADY: {p:x?} -> {ar:x?}"));
            }
        }
        self.pending_ar = (out.m_axi_arvalid && !inp.m_axi_arready).then_some(ar);

        let aw = Ax { addr: out.m_axi_awaddr, len: out.m_axi_awlen, size: out.m_axi_awsize, burst: out.m_axi_awburst };
        if let Some(p) = self.pending_aw {
            if !out.m_axi_awvalid {
                self.violation(format!("AWVALID dropped before AWREADY (AW {p:x?} was waiting)"));
            }
            if p != aw {
                self.violation(format!("AW payload changed while AWVALID waited for AWREADY: {p:x?} -> {aw:x?}"));
            }
        }
        self.pending_aw = (out.m_axi_awvalid && !inp.m_axi_awready).then_some(aw);

        let w = WBeat { data: out.wdata(), strb: out.m_axi_wstrb, last: out.m_axi_wlast };
        if let Some(p) = self.pending_w {
            if !out.m_axi_wvalid {
                self.violation(format!(
                    "WVALID dropped before WREADY (W beat data {:#034x} strb {:#06x} last {} was waiting)",
                    p.data, p.strb, p.last as u8
                ));
            }
            if p != w {
                self.violation(format!(
                    "W payload changed while WVALID waited for WREADY: data {:#034x} strb {:#06x} last {} -> data {:#034x} strb {:#06x} last {}",
                    p.data, p.strb, p.last as u8, w.data, w.strb, w.last as u8
                ));
            }
        }
        self.pending_w = (out.m_axi_wvalid && !inp.m_axi_wready).then_some(w);

        // The DMA port inside nic_top_axi. A write beat or read request that changes or
        // goes away while its valid waits for ready breaks the usual valid/ready rule;
        // the bridge survives it (counted) unless it already issued part of the beat (an
        // AW or W handshake for it while dma_wr_ready was 0): then the rest of the old
        // beat's AXI write goes out with the new beat's address or data.
        let dw = (out.dma_wr_addr, out.dma_wr_data_lo as u128 | (out.dma_wr_data_hi as u128) << 64, out.dma_wr_strb, out.dma_wr_last, out.dma_wr_tag);
        if let Some(p) = self.pending_dma_wr {
            if !out.dma_wr_valid || p != dw {
                if self.dma_wr_partial {
                    self.violation(format!(
                        "nic_top changed its DMA-port write beat while dma_wr_valid waited for dma_wr_ready, after the bridge had issued part of it \
                         (an AXI AW or W handshake): addr {:#x} strb {:#06x} last {} tag {} data {:#034x} -> valid {} addr {:#x} strb {:#06x} last {} tag {} data {:#034x}",
                        p.0, p.2, p.3 as u8, p.4, p.1, out.dma_wr_valid as u8, dw.0, dw.2, dw.3 as u8, dw.4, dw.1
                    ));
                }
                self.stats.nic_wr_beat_changed += 1;
                self.dma_wr_partial = false;
            }
        }
        let part = (out.m_axi_awvalid && inp.m_axi_awready) || (out.m_axi_wvalid && inp.m_axi_wready);
        if out.dma_wr_valid && out.dma_wr_ready {
            self.dma_wr_partial = false;
        } else if out.dma_wr_valid && part {
            self.dma_wr_partial = true;
        }
        self.pending_dma_wr = (out.dma_wr_valid && !out.dma_wr_ready).then_some(dw);
        let dr = (out.dma_rd_req_addr, out.dma_rd_req_len, out.dma_rd_req_tag);
        if let Some(p) = self.pending_dma_rd {
            if !out.dma_rd_req_valid || p != dr {
                self.stats.nic_rd_req_changed += 1;
            }
        }
        self.pending_dma_rd = (out.dma_rd_req_valid && !out.dma_rd_req_ready).then_some(dr);
    }

    /// AxSIZE, AxBURST, alignment, length and the 4 KiB rule.
    fn check_burst(&self, ch: &str, ax: Ax) {
        if ax.size != SIZE_16 {
            self.violation(format!("{ch}SIZE {} (expected {SIZE_16}: 16-byte beats) at {ch}ADDR {:#x}", ax.size, ax.addr));
        }
        if ax.burst != BURST_INCR {
            self.violation(format!("{ch}BURST {} (expected {BURST_INCR}: INCR) at {ch}ADDR {:#x}", ax.burst, ax.addr));
        }
        let beats = ax.len as u64 + 1;
        if beats > 256 {
            self.violation(format!("{ch}LEN {} > 255", ax.len));
        }
        if !ax.addr.is_multiple_of(BEAT) {
            self.violation(format!("{ch}ADDR {:#x} not aligned to the 16-byte beat of an INCR burst", ax.addr));
        }
        let end = ax.addr.wrapping_add(beats * BEAT);
        if (ax.addr & (PAGE - 1)) + beats * BEAT > PAGE {
            self.violation(format!(
                "{ch} burst crosses a 4 KiB boundary: {ch}ADDR {:#x} {ch}LEN {} ({} bytes, ends at {:#x}, page ends at {:#x})",
                ax.addr,
                ax.len,
                beats * BEAT,
                end,
                (ax.addr | (PAGE - 1)) + 1
            ));
        }
    }

    fn accept_ar(&mut self, ax: Ax, mem: &mut HostMemory) {
        self.event(Event::Ar { addr: ax.addr, len: ax.len });
        self.check_burst("AR", ax);
        let n = ax.len as usize + 1;
        self.stats.ar_bursts += 1;
        self.stats.ar_beats += n as u64;
        self.stats.max_ar_len = self.stats.max_ar_len.max(ax.len);
        if (ax.addr + n as u64 * BEAT).is_multiple_of(PAGE) && n < 256 {
            self.stats.ar_bursts_at_page_end += 1;
        }
        let mut beats = Vec::with_capacity(n);
        let mut fault: Option<(u64, u64)> = None;
        let mut ok_bytes = 0u64;
        for i in 0..n as u64 {
            let a = ax.addr + i * BEAT;
            match mem.word(a) {
                Some(w) => {
                    beats.push((w, false));
                    ok_bytes += BEAT;
                }
                None => {
                    beats.push((0, true));
                    fault = match fault {
                        Some((s, e)) if e == a => Some((s, a + BEAT)),
                        Some((s, e)) => {
                            mem.log_fault(DmaFault { write: false, addr: s, len: e - s }, true);
                            Some((a, a + BEAT))
                        }
                        None => Some((a, a + BEAT)),
                    };
                }
            }
        }
        let st = mem.stats_mut();
        st.read_requests += 1;
        st.read_bytes += ok_bytes;
        if let Some((s, e)) = fault {
            st.read_faults += 1;
            mem.log_fault(DmaFault { write: false, addr: s, len: e - s }, true);
        }
        self.reads.push_back(RBurst { ready_at: self.cycle + self.cfg.latency.max(1) as u64, addr: ax.addr, beats, next: 0 });
        self.stats.max_reads_outstanding = self.stats.max_reads_outstanding.max(self.reads.len());
    }

    fn take_r(&mut self, inp: &AxiInputs, mem: &mut HostMemory) {
        let r = self.reads.front_mut().expect("slave: R beat without a read burst");
        let (data, err) = r.beats[r.next];
        assert!(
            inp.rdata() == data && (inp.m_axi_rresp != 0) == err && inp.m_axi_rlast == (r.next + 1 == r.beats.len()),
            "slave: R beat changed while offered"
        );
        r.next += 1;
        let done = r.next == r.beats.len();
        let _ = r.addr;
        self.r_offered = false;
        self.stats.r_beats += 1;
        mem.stats_mut().read_beats += 1;
        if err {
            self.stats.r_slverr_beats += 1;
        }
        if done {
            self.reads.pop_front();
        }
        self.event(Event::R { resp: inp.m_axi_rresp, last: inp.m_axi_rlast, data });
    }

    fn accept_aw(&mut self, ax: Ax) {
        self.event(Event::Aw { addr: ax.addr, len: ax.len });
        self.check_burst("AW", ax);
        self.stats.aw_bursts += 1;
        self.aws.push_back(ax);
        // Data may have come first: check what is there against the length.
        let i = self.aws.len() - 1;
        if let Some(w) = self.wbursts.get(i) {
            let n = ax.len as usize + 1;
            if w.complete && w.beats.len() != n {
                self.violation(format!(
                    "W burst of {} beats (WLAST on beat {}) for an AW of AWLEN {} ({n} beats) at AWADDR {:#x}",
                    w.beats.len(),
                    w.beats.len(),
                    ax.len,
                    ax.addr
                ));
            }
            if !w.complete && w.beats.len() >= n {
                self.violation(format!(
                    "no WLAST on beat {n} of the W burst for AWADDR {:#x} AWLEN {} ({} beats without WLAST so far)",
                    ax.addr,
                    ax.len,
                    w.beats.len()
                ));
            }
        }
    }

    fn accept_w(&mut self, b: WBeat) {
        self.event(Event::W { strb: b.strb, last: b.last, data: b.data });
        self.stats.w_beats += 1;
        if b.strb == 0 {
            self.stats.w_empty_strobe += 1;
        } else if b.strb != 0xFFFF {
            self.stats.w_partial_strobe += 1;
        }
        if self.wbursts.back().is_none_or(|w| w.complete) {
            self.wbursts.push_back(WBurst { beats: Vec::new(), complete: false, since: self.cycle });
        }
        let i = self.wbursts.len() - 1;
        if i >= self.aws.len() {
            self.stats.w_before_aw += 1;
        }
        let w = self.wbursts.back_mut().unwrap();
        w.beats.push(b);
        w.complete = b.last;
        let k = w.beats.len();
        if let Some(ax) = self.aws.get(i).copied() {
            let n = ax.len as usize + 1;
            if b.last && k != n {
                self.violation(format!("WLAST on beat {k} of a burst of AWLEN {} ({n} beats) at AWADDR {:#x}", ax.len, ax.addr));
            }
            if !b.last && k == n {
                self.violation(format!("WLAST missing on the last beat ({k}) of the burst at AWADDR {:#x} AWLEN {}", ax.addr, ax.len));
            }
        } else if !b.last && k >= 256 {
            self.violation(format!("{k} W beats without WLAST (an AXI4 burst has at most 256)"));
        }
    }

    /// Applies every write whose AW and W data are both complete; queues its B.
    fn complete_writes(&mut self, mem: &mut HostMemory) {
        while !self.aws.is_empty() && self.wbursts.front().is_some_and(|w| w.complete) {
            let ax = self.aws.pop_front().unwrap();
            let w = self.wbursts.pop_front().unwrap();
            debug_assert_eq!(w.beats.len(), ax.len as usize + 1);
            // All or nothing: every enabled byte of the burst must be mapped.
            let mut span: Option<(u64, u64)> = None;
            let mut ok = true;
            for (i, b) in w.beats.iter().enumerate() {
                if b.strb == 0 {
                    continue;
                }
                let a = ax.addr + i as u64 * BEAT;
                let lo = a + b.strb.trailing_zeros() as u64;
                let hi = a + BEAT - b.strb.leading_zeros() as u64;
                span = Some(span.map_or((lo, hi), |(s, e)| (s.min(lo), e.max(hi))));
                if ok && !(lo..hi).all(|x| b.strb & (1 << (x - a)) == 0 || mem.is_mapped(x, 1)) {
                    ok = false;
                }
            }
            let mut written = 0u64;
            if ok {
                for (i, b) in w.beats.iter().enumerate() {
                    let applied = mem.write_strobed(ax.addr + i as u64 * BEAT, b.data, b.strb);
                    debug_assert!(applied);
                    written += b.strb.count_ones() as u64;
                }
            } else {
                let (s, e) = span.unwrap();
                mem.log_fault(DmaFault { write: true, addr: s, len: e - s }, true);
                self.stats.b_slverr += 1;
            }
            let st = mem.stats_mut();
            st.write_bursts += 1;
            st.write_beats += w.beats.len() as u64;
            st.write_bytes += written;
            if !ok {
                st.write_faults += 1;
            }
            self.bs.push_back(BRsp {
                ready_at: self.cycle + self.cfg.write_latency.max(1) as u64,
                resp: if ok { RESP_OKAY } else { RESP_SLVERR },
            });
        }
    }

    // ----- checker output ------------------------------------------------------------

    fn event(&mut self, e: Event) {
        if self.log {
            eprintln!("axi {:>9}: {e}", self.cycle);
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back((self.cycle, e));
    }

    fn history_text(&self) -> String {
        let mut s = format!("last {} AXI handshakes (cycle: channel):\n", self.history.len());
        for (c, e) in &self.history {
            s += &format!("  {c:>9}: {e}\n");
        }
        s
    }

    #[cold]
    #[track_caller]
    fn violation(&self, what: String) {
        let msg = format!(
            "protocol violation in nic_top_axi at cycle {}: {what}\n{}open: {} read bursts, {} AWs, {} W bursts, {} Bs\n",
            self.cycle,
            self.history_text(),
            self.reads.len(),
            self.aws.len(),
            self.wbursts.len(),
            self.bs.len()
        );
        // NIC_AXI_CHECK=warn: report and go on (to see what a violation leads to). Never
        // a second panic while one unwinds (e.g. the driver's close stepping the device).
        if std::thread::panicking() || std::env::var("NIC_AXI_CHECK").is_ok_and(|v| v == "warn") {
            eprintln!("{msg}");
        } else {
            panic!("{msg}");
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Event::Ar { addr, len } => write!(f, "AR  addr {addr:#x} len {len}"),
            Event::R { resp, last, data } => write!(f, "R   resp {resp} last {} data {data:#034x}", last as u8),
            Event::Aw { addr, len } => write!(f, "AW  addr {addr:#x} len {len}"),
            Event::W { strb, last, data } => write!(f, "W   strb {strb:#06x} last {} data {data:#034x}", last as u8),
            Event::B { resp } => write!(f, "B   resp {resp}"),
            Event::Reset => write!(f, "reset"),
        }
    }
}
