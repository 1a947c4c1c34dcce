//! The completion queues' writer (rxe_cq.c's role): every CQE the engine posts goes
//! through here into its CQ's ring in host memory, and the CQ's interrupt fires when it
//! was armed. The behavioural model's `post_cqe` and `tick`
//! (testbench/src/roce/engine/mod.rs) are the reference.
//!
//! A CQE comes in as its 32-byte image (`cqe_entry`, byte k at bits 8k+7..8k, the layout
//! of `nic_regmap::rdma::cqe`) with the owner bit clear. Per CQE, one at a time:
//!
//! 1. the CQ's context is read on the CQ table port (`RdmaTables`);
//! 2. a CQ not ENABLEd, or stopped by OVERFLOW, loses the CQE (`cnt_overflow`); a full
//!    ring (PI - CI = 2^LOG2, CI being the consumer index of the CQ doorbell) sets
//!    OVERFLOW and loses it too;
//! 3. else the CQE goes to `BASE + 32 (PI mod 2^LOG2)` in two 16-byte beats with the owner
//!    bit of this pass over the ring (1 on even passes), and once the host has answered
//!    the write: PI + 1 is stored (`cnt_cqe`), or, if the host refused the write,
//!    OVERFLOW (the completion is lost; the CQ stops as when full).
//!
//! Waiting for the write's answer keeps the order a driver relies on: by the time PI
//! moves and an interrupt fires, the CQE is in memory.
//!
//! Each CQ's run state (consumer index, arming, moderation) is an `RdmaCqRun`. A driver's
//! store that names the CQ's ENABLE word (`cq_restart_*` from `RdmaTables`, which clears
//! PI and OVERFLOW) starts that CQ afresh; a CQE in flight to it then is begun again from
//! its context if its write has not gone out yet, and lost if it has (the driver reset
//! the ring under it).

use nic_regmap::rdma::{cqc, cqe};
use rust_hdl::prelude::*;

/// One CQ's consumer index and interrupt arming, with moderation: armed by the doorbell
/// (`ARM`, `SOLICITED`: only solicited or failed completions count), the CQ's vector fires
/// at the IRQ_COUNT-th counted CQE, or IRQ_TIMER cycles after the first one (0: off),
/// once per arming.
#[derive(LogicBlock, Default)]
pub struct RdmaCqRun {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The driver re-enabled the CQ: consumer index 0, not armed.
    pub restart: Signal<In, Bit>,
    pub db: Signal<In, Bit>,
    pub db_ci: Signal<In, Bits<16>>,
    pub db_arm: Signal<In, Bit>,
    pub db_solicited: Signal<In, Bit>,
    /// A CQE was written to the ring; `cqe_urgent`: it is solicited or failed.
    pub cqe: Signal<In, Bit>,
    pub cqe_urgent: Signal<In, Bit>,
    /// The CQ's IRQ_COUNT and IRQ_TIMER, valid with `cqe`.
    pub irq_count: Signal<In, Bits<16>>,
    pub irq_timer: Signal<In, Bits<20>>,
    pub ci: Signal<Out, Bits<16>>,
    /// One-cycle pulse: raise the CQ's vector.
    pub fire: Signal<Out, Bit>,
    ci_q: DFF<Bits<16>>,
    armed: DFF<Bit>,
    solicited_only: DFF<Bit>,
    /// Counted CQEs since arming, plus one (the count a CQE would reach: its compare
    /// starts from a register, for 156.25 MHz).
    pending_plus1: DFF<Bits<16>>,
    /// A counted CQE a cycle ago, and whether it reached IRQ_COUNT.
    hit: DFF<Bit>,
    reach: DFF<Bit>,
    timer: DFF<Bits<20>>,
    timing: DFF<Bit>,
    left: DFF<Bits<20>>,
}

impl Logic for RdmaCqRun {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ci_q, armed, solicited_only, pending_plus1, hit, reach, timer, timing, left);
        self.ci.next = self.ci_q.q.val();
        self.fire.next = false;
        // the timer, counting down from the first counted CQE
        if self.timing.q.val() {
            self.left.d.next = self.left.q.val() - 1;
            if self.left.q.val() <= 1 {
                self.fire.next = true;
                self.armed.d.next = false;
                self.timing.d.next = false;
                self.pending_plus1.d.next = 1.into();
            }
        }
        // a CQE: counted if armed for it; judged against IRQ_COUNT here, acted on next cycle
        self.hit.d.next = self.cqe.val() & self.armed.q.val() & (!self.solicited_only.q.val() | self.cqe_urgent.val());
        self.reach.d.next = self.pending_plus1.q.val() >= self.irq_count.val();
        self.timer.d.next = self.irq_timer.val();
        if self.hit.q.val() {
            self.pending_plus1.d.next = self.pending_plus1.q.val() + 1;
            if self.reach.q.val() {
                self.fire.next = true;
                self.armed.d.next = false;
                self.timing.d.next = false;
                self.pending_plus1.d.next = 1.into();
            } else if self.timer.q.val().any() & !self.timing.q.val() {
                self.timing.d.next = true;
                self.left.d.next = self.timer.q.val();
            }
        }
        if self.db.val() {
            self.ci_q.d.next = self.db_ci.val();
            if self.db_arm.val() {
                self.armed.d.next = true;
                self.solicited_only.d.next = self.db_solicited.val();
                self.pending_plus1.d.next = 1.into();
                self.timing.d.next = false;
            }
        }
        if self.reset.val() | self.restart.val() {
            self.ci_q.d.next = 0.into();
            self.armed.d.next = false;
            self.pending_plus1.d.next = 1.into();
            self.timing.d.next = false;
            self.hit.d.next = false;
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CqWriterState {
    Idle,
    Ask,
    Wait,
    Fields,
    Slot,
    Plan,
    Beat0,
    Beat1,
    Answer,
    Store,
}

/// Completion queues of a build.
pub const CQS: usize = 16;

#[derive(LogicBlock)]
pub struct RdmaCqWriter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- a CQE to post ----
    pub cqe_valid: Signal<In, Bit>,
    pub cqe_ready: Signal<Out, Bit>,
    pub cqe_cq: Signal<In, Bits<4>>,
    /// The CQE's 32 bytes, owner bit clear.
    pub cqe_entry: Signal<In, Bits<256>>,
    // ---- the CQ doorbell (CQ_DOORBELL's fields) ----
    pub db_valid: Signal<In, Bit>,
    pub db_cq: Signal<In, Bits<4>>,
    pub db_ci: Signal<In, Bits<16>>,
    pub db_arm: Signal<In, Bit>,
    pub db_solicited: Signal<In, Bit>,
    // ---- the CQ table (an `RdmaTables` CQ port) and the driver's ENABLE stores ----
    pub cq_valid: Signal<Out, Bit>,
    pub cq_ready: Signal<In, Bit>,
    pub cq_index: Signal<Out, Bits<4>>,
    pub cq_write: Signal<Out, Bit>,
    pub cq_mask: Signal<Out, Bits<160>>,
    pub cq_wdata: Signal<Out, Bits<160>>,
    pub cq_rvalid: Signal<In, Bit>,
    pub cq_rdata: Signal<In, Bits<160>>,
    pub cq_restart: Signal<In, Bit>,
    pub cq_restart_index: Signal<In, Bits<4>>,
    // ---- DMA writes, and their answer (one per burst, in order) ----
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    pub dma_wr_addr: Signal<Out, Bits<64>>,
    pub dma_wr_data: Signal<Out, Bits<128>>,
    pub dma_wr_strb: Signal<Out, Bits<16>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_rsp_valid: Signal<In, Bit>,
    pub dma_wr_rsp_error: Signal<In, Bit>,
    // ---- the CQs' vectors (bit c: CQ c), one-cycle pulses ----
    pub irq: Signal<Out, Bits<16>>,
    // ---- counter pulses ----
    pub cnt_cqe: Signal<Out, Bit>,
    pub cnt_overflow: Signal<Out, Bit>,
    // ---- children ----
    run: [RdmaCqRun; CQS],
    cq_id: [Constant<Bits<4>>; CQS],
    bit_of_cq: [Constant<Bits<16>>; CQS],
    // ---- the CQE in progress ----
    state: DFF<CqWriterState>,
    asked: DFF<Bit>,
    /// The CQ was restarted since its context was read.
    stale: DFF<Bit>,
    cq: DFF<Bits<4>>,
    entry: DFF<Bits<256>>,
    /// The CQ's context as read.
    ctx: DFF<Bits<160>>,
    // its fields
    enabled: DFF<Bit>,
    stopped: DFF<Bit>,
    log2: DFF<Bits<4>>,
    pi: DFF<Bits<16>>,
    ci: DFF<Bits<16>>,
    base: DFF<Bits<44>>,
    irq_count: DFF<Bits<16>>,
    irq_timer: DFF<Bits<20>>,
    // where it goes
    full: DFF<Bit>,
    owner: DFF<Bit>,
    slot: DFF<Bits<16>>,
    addr: DFF<Bits<64>>,
    refused: DFF<Bit>,
    // ---- scratch ----
    ci_sel: Signal<Local, Bits<16>>,
    ring_mask: Signal<Local, Bits<16>>,
    used: Signal<Local, Bits<16>>,
    urgent: Signal<Local, Bit>,
    store_pi: Signal<Local, Bit>,
    store_overflow: Signal<Local, Bit>,
    /// A CQE went into CQ `ev_cq`'s ring (a cycle after its PI was stored).
    ev_cqe: DFF<Bit>,
    ev_overflow: DFF<Bit>,
    ev_cq: DFF<Bits<4>>,
    ev_urgent: DFF<Bit>,
    pi_mask: Constant<Bits<160>>,
    overflow_mask: Constant<Bits<160>>,
    owner_flag: Constant<Bits<256>>,
    one: Constant<Bits<16>>,
}

impl Default for RdmaCqWriter {
    fn default() -> Self {
        // the bit positions the update below reads
        assert!(cqc::BASE_LO.word == 0 && cqc::BASE_HI.word == 1 && cqc::BASE_HI.width == 12);
        assert!(cqc::LOG2.word == 1 && cqc::LOG2.lsb == 16 && cqc::ENABLE.word == 1 && cqc::ENABLE.lsb == 31);
        assert!(cqc::IRQ_COUNT.word == 2 && cqc::IRQ_COUNT.lsb == 0 && cqc::IRQ_TIMER.word == 3 && cqc::IRQ_TIMER.width == 20);
        assert!(cqc::PI.word == 4 && cqc::PI.lsb == 0 && cqc::PI.width == 16 && cqc::OVERFLOW.word == 4 && cqc::OVERFLOW.lsb == 31);
        assert!(cqe::STATUS == 21 && cqe::FLAGS == 22 && cqe::FLAG_OWNER == 0x80 && cqe::FLAG_SOLICITED == 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cq: Default::default(),
            cqe_entry: Default::default(),
            db_valid: Default::default(),
            db_cq: Default::default(),
            db_ci: Default::default(),
            db_arm: Default::default(),
            db_solicited: Default::default(),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            cq_index: Default::default(),
            cq_write: Default::default(),
            cq_mask: Default::default(),
            cq_wdata: Default::default(),
            cq_rvalid: Default::default(),
            cq_rdata: Default::default(),
            cq_restart: Default::default(),
            cq_restart_index: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_last: Default::default(),
            dma_wr_rsp_valid: Default::default(),
            dma_wr_rsp_error: Default::default(),
            irq: Default::default(),
            cnt_cqe: Default::default(),
            cnt_overflow: Default::default(),
            run: Default::default(),
            cq_id: std::array::from_fn(|c| Constant::new(Bits::<4>::from(c as u64))),
            bit_of_cq: std::array::from_fn(|c| Constant::new(Bits::<16>::from(1u64 << c))),
            state: Default::default(),
            asked: Default::default(),
            stale: Default::default(),
            cq: Default::default(),
            entry: Default::default(),
            ctx: Default::default(),
            enabled: Default::default(),
            stopped: Default::default(),
            log2: Default::default(),
            pi: Default::default(),
            ci: Default::default(),
            base: Default::default(),
            irq_count: Default::default(),
            irq_timer: Default::default(),
            full: Default::default(),
            owner: Default::default(),
            slot: Default::default(),
            addr: Default::default(),
            refused: Default::default(),
            ci_sel: Default::default(),
            ring_mask: Default::default(),
            used: Default::default(),
            urgent: Default::default(),
            store_pi: Default::default(),
            ev_cqe: Default::default(),
            ev_overflow: Default::default(),
            ev_cq: Default::default(),
            ev_urgent: Default::default(),
            store_overflow: Default::default(),
            pi_mask: Constant::new(Bits::<160>::from(0xffffu64) << 128),
            overflow_mask: Constant::new(Bits::<160>::from(1u64) << 159),
            owner_flag: Constant::new(Bits::<256>::from(1u64) << (8 * cqe::FLAGS as u64 + 7)),
            one: Constant::new(Bits::<16>::from(1u64)),
        }
    }
}

impl Logic for RdmaCqWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, asked, stale, cq, entry, ctx, enabled, stopped, log2, pi, ci, base, irq_count, irq_timer, full, owner, slot,
            addr, refused, ev_cqe, ev_overflow, ev_cq, ev_urgent);
        for c in 0..16 {
            self.run[c].clock.next = self.clock.val();
            self.run[c].reset.next = self.reset.val();
            self.run[c].restart.next = self.cq_restart.val() & (self.cq_restart_index.val() == self.cq_id[c].val());
            self.run[c].db.next = self.db_valid.val() & (self.db_cq.val() == self.cq_id[c].val());
            self.run[c].db_ci.next = self.db_ci.val();
            self.run[c].db_arm.next = self.db_arm.val();
            self.run[c].db_solicited.next = self.db_solicited.val();
            self.run[c].cqe.next = false;
            self.run[c].irq_count.next = self.irq_count.q.val();
            self.run[c].irq_timer.next = self.irq_timer.q.val();
        }
        self.irq.next = 0.into();
        self.ci_sel.next = 0.into();
        for c in 0..16 {
            if self.run[c].fire.val() {
                self.irq.next = self.irq.val() | self.bit_of_cq[c].val();
            }
            if self.cq.q.val() == self.cq_id[c].val() {
                self.ci_sel.next = self.run[c].ci.val();
            }
        }
        if self.cq_restart.val() & (self.cq_restart_index.val() == self.cq.q.val()) {
            self.stale.d.next = true;
        }
        // solicited, or failed: counted by a CQ armed for solicited completions only
        self.urgent.next = self.entry.q.val().get_bit(8 * 22 + 1) | self.entry.q.val().get_bits::<8>(8 * 21).any();
        self.ring_mask.next = (self.one.val() << bit_cast::<16, 4>(self.log2.q.val())) - 1;
        self.used.next = self.pi.q.val() - self.ci.q.val();
        self.cqe_ready.next = self.state.q.val() == CqWriterState::Idle;
        self.cq_valid.next = false;
        self.cq_index.next = self.cq.q.val();
        self.cq_write.next = false;
        self.cq_mask.next = 0.into();
        // the entry as read, PI + 1 in it (the mask picks PI, or OVERFLOW)
        self.cq_wdata.next = (self.ctx.q.val() & !self.pi_mask.val()) | (bit_cast::<160, 16>(self.pi.q.val() + 1) << 128) | self.overflow_mask.val();
        self.dma_wr_valid.next = false;
        self.dma_wr_addr.next = self.addr.q.val();
        self.dma_wr_data.next = self.entry.q.val().get_bits::<128>(0);
        self.dma_wr_strb.next = 0xffff.into();
        self.dma_wr_last.next = false;
        self.cnt_cqe.next = false;
        self.cnt_overflow.next = false;
        self.store_pi.next = false;
        self.store_overflow.next = false;
        match self.state.q.val() {
            CqWriterState::Idle => {
                if self.cqe_valid.val() {
                    self.cq.d.next = self.cqe_cq.val();
                    self.entry.d.next = self.cqe_entry.val();
                    self.state.d.next = CqWriterState::Ask;
                    self.asked.d.next = false;
                }
            }
            CqWriterState::Ask => {
                // read the context (a restart from here on is seen in it)
                self.stale.d.next = false;
                self.asked.d.next = false;
                self.state.d.next = CqWriterState::Wait;
            }
            CqWriterState::Wait => {
                self.cq_valid.next = !self.asked.q.val();
                if self.cq_ready.val() {
                    self.asked.d.next = true;
                }
                if self.cq_rvalid.val() {
                    self.ctx.d.next = self.cq_rdata.val();
                    self.ci.d.next = self.ci_sel.val();
                    self.state.d.next = CqWriterState::Fields;
                }
            }
            CqWriterState::Fields => {
                self.enabled.d.next = self.ctx.q.val().get_bit(63);
                self.stopped.d.next = self.ctx.q.val().get_bit(159);
                self.log2.d.next = self.ctx.q.val().get_bits::<4>(48);
                self.pi.d.next = self.ctx.q.val().get_bits::<16>(128);
                self.base.d.next = self.ctx.q.val().get_bits::<44>(0);
                self.irq_count.d.next = self.ctx.q.val().get_bits::<16>(64);
                self.irq_timer.d.next = self.ctx.q.val().get_bits::<20>(96);
                self.state.d.next = CqWriterState::Slot;
            }
            CqWriterState::Slot => {
                self.full.d.next = self.used.val() > self.ring_mask.val();
                self.slot.d.next = self.pi.q.val() & self.ring_mask.val();
                // the owner bit is 1 on the ring's even passes
                self.owner.d.next = !(self.pi.q.val() & (self.one.val() << bit_cast::<16, 4>(self.log2.q.val()))).any();
                self.state.d.next = CqWriterState::Plan;
            }
            CqWriterState::Plan => {
                self.addr.d.next = bit_cast::<64, 44>(self.base.q.val()) + (bit_cast::<64, 16>(self.slot.q.val()) << 5);
                if self.owner.q.val() {
                    self.entry.d.next = self.entry.q.val() | self.owner_flag.val();
                }
                self.refused.d.next = false;
                if self.stale.q.val() {
                    self.state.d.next = CqWriterState::Ask;
                } else if !self.enabled.q.val() | self.stopped.q.val() {
                    self.store_overflow.next = true;
                    self.state.d.next = CqWriterState::Idle;
                } else if self.full.q.val() {
                    self.refused.d.next = true;
                    self.state.d.next = CqWriterState::Store;
                    self.asked.d.next = false;
                } else {
                    self.state.d.next = CqWriterState::Beat0;
                }
            }
            CqWriterState::Beat0 => {
                self.dma_wr_valid.next = true;
                if self.dma_wr_ready.val() {
                    self.addr.d.next = self.addr.q.val() + 16;
                    self.state.d.next = CqWriterState::Beat1;
                }
            }
            CqWriterState::Beat1 => {
                self.dma_wr_valid.next = true;
                self.dma_wr_data.next = self.entry.q.val().get_bits::<128>(128);
                self.dma_wr_last.next = true;
                if self.dma_wr_ready.val() {
                    self.state.d.next = CqWriterState::Answer;
                }
            }
            CqWriterState::Answer => {
                if self.dma_wr_rsp_valid.val() {
                    self.refused.d.next = self.dma_wr_rsp_error.val();
                    self.state.d.next = CqWriterState::Store;
                    self.asked.d.next = false;
                }
            }
            CqWriterState::Store => {
                // PI + 1, or OVERFLOW; not into a ring the driver has reset meanwhile. The
                // store's answer is waited for, so that it is not taken for the answer to
                // the next CQE's context read.
                self.cq_valid.next = !self.stale.q.val() & !self.asked.q.val();
                self.cq_write.next = true;
                self.cq_mask.next = self.pi_mask.val();
                if self.refused.q.val() {
                    self.cq_mask.next = self.overflow_mask.val();
                }
                if self.cq_ready.val() {
                    self.asked.d.next = true;
                }
                if self.cq_rvalid.val() | (self.stale.q.val() & !self.asked.q.val()) {
                    self.state.d.next = CqWriterState::Idle;
                    self.store_pi.next = !self.stale.q.val() & !self.refused.q.val();
                    self.store_overflow.next = self.stale.q.val() | self.refused.q.val();
                }
            }
            _ => {
                self.state.d.next = CqWriterState::Idle;
            }
        }
        // the CQ's run state and the counters hear of it a cycle later (156.25 MHz)
        self.ev_cqe.d.next = self.store_pi.val();
        self.ev_overflow.d.next = self.store_overflow.val();
        self.ev_cq.d.next = self.cq.q.val();
        self.ev_urgent.d.next = self.urgent.val();
        self.cnt_cqe.next = self.ev_cqe.q.val();
        if self.ev_overflow.q.val() {
            self.cnt_overflow.next = true;
        }
        for c in 0..16 {
            if self.ev_cq.q.val() == self.cq_id[c].val() {
                self.run[c].cqe.next = self.ev_cqe.q.val();
            }
            self.run[c].cqe_urgent.next = self.ev_urgent.q.val();
        }
        if self.reset.val() {
            self.state.d.next = CqWriterState::Idle;
        }
    }
}
