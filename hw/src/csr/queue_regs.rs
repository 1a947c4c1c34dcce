//! One queue's register window (`txq` or `rxq` block, `BASE + 0x40 * (q + 1)`), decoded
//! on the CSR block's register bus, with the queue's interrupt moderation.
//!
//! Every address is a `Constant` taken from the register map for queue `q` of its block,
//! so the window cannot drift from docs/regmap.md; a register the block does not have
//! (TX: `Q_DROPS`; RX: `Q_WEIGHT`, `Q_PRIORITY`) gets an address no access can match and
//! stays at 0. A disabled queue holds `Q_TAIL` at 0 (the map: clearing ENABLE resets
//! HEAD and TAIL). Without interrupt moderation (`Config::has_irq_moderation`)
//! `Q_IRQ_COUNT` and `Q_IRQ_TIMER` hold no bits, so they ignore writes and read 0, and every
//! completion raises the vector.

use super::cfg_reg::CfgReg;
use crate::dma::{BusAddr, IrqModeration};
use nic_regmap::{Register, QUEUE_STRIDE};
use rust_hdl::prelude::*;

/// Registers of a window decoded here (the CSR block's decode test checks the map).
pub const DECODED: [&str; 12] = [
    "Q_BASE_LO", "Q_BASE_HI", "Q_SIZE_LOG2", "Q_CONTROL", "Q_TAIL", "Q_HEAD", "Q_STATUS", "Q_IRQ_COUNT", "Q_IRQ_TIMER", "Q_DROPS", "Q_WEIGHT",
    "Q_PRIORITY",
];

/// Read/write registers, in the order of `QueueRegs::rw`.
const RW: [&str; 9] = ["Q_BASE_LO", "Q_BASE_HI", "Q_SIZE_LOG2", "Q_CONTROL", "Q_TAIL", "Q_IRQ_COUNT", "Q_IRQ_TIMER", "Q_WEIGHT", "Q_PRIORITY"];

/// Which queue block a window belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDir {
    Tx,
    Rx,
}

#[derive(LogicBlock)]
pub struct QueueRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // register bus (see CsrBlock)
    pub bus_wr: Signal<In, Bit>,
    pub bus_addr: Signal<In, Bits<16>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_wmask: Signal<In, Bits<32>>,
    pub bus_rd: Signal<In, Bit>,
    pub bus_rd_addr: Signal<In, Bits<16>>,
    /// Read data of the register at `bus_rd_addr`, 0 where the window has none (the
    /// top ORs the blocks' read data).
    pub bus_rdata: Signal<Out, Bits<32>>,
    // configuration out
    pub enable: Signal<Out, Bit>,
    /// Q_BASE_HI holds bits 43:32 (DMA_ADDR_BITS), so bits 47:44 are 0.
    pub ring_base: Signal<Out, BusAddr>,
    pub ring_mask: Signal<Out, Bits<16>>,
    pub tail: Signal<Out, Bits<16>>,
    /// TX scheduler: deficit round-robin quantum (Q_WEIGHT) and strict-priority class.
    pub weight: Signal<Out, Bits<16>>,
    pub strict: Signal<Out, Bit>,
    // status in
    pub head: Signal<In, Bits<16>>,
    pub active: Signal<In, Bit>,
    pub error_code: Signal<In, Bits<8>>,
    /// A frame completed (interrupt moderation counts these).
    pub completion: Signal<In, Bit>,
    /// RX: a frame for this queue was dropped (no buffer, or the queue stopped).
    pub dropped: Signal<In, Bit>,
    /// One-cycle pulse: set this queue's IRQ_STATUS bit.
    pub irq_fire: Signal<Out, Bit>,
    irq: IrqModeration,
    /// The build has interrupt moderation: `irq_fire` is `irq`'s, else each completion.
    moderated: Constant<Bit>,
    /// The read decode runs in every cycle, not only under `bus_rd`
    /// (`Config::gates_register_decode` clear).
    ungated: Constant<Bit>,
    rw_addr: [Constant<Bits<16>>; 9],
    /// Each holds its declared fields' bits, written under its own decode (`CfgReg`).
    rw: [CfgReg<32>; 9],
    drops: DFF<Bits<32>>,
    addr_head: Constant<Bits<16>>,
    addr_status: Constant<Bits<16>>,
    addr_drops: Constant<Bits<16>>,
    align_mask: Constant<BusAddr>,
    ones16: Constant<Bits<16>>,
    enabled: Signal<Local, Bit>,
    rd_or: Signal<Local, Bits<32>>,
}

impl QueueRegs {
    /// The window of queue `q` of the TX or RX queue block.
    /// Without `moderation` the window has no `Q_IRQ_COUNT` and `Q_IRQ_TIMER` bits;
    /// `gated`: `Config::gates_register_decode`.
    pub fn new(dir: QueueDir, q: u32, moderation: bool, gated: bool) -> Self {
        let c16 = |v: u32| Constant::new(Bits::<16>::from(v as u64));
        let (base, regs): (u32, &[Register]) = match dir {
            QueueDir::Tx => (nic_regmap::txq::BASE, nic_regmap::txq::QUEUE_REGS),
            QueueDir::Rx => (nic_regmap::rxq::BASE, nic_regmap::rxq::QUEUE_REGS),
        };
        // the register's address in this window, or one no aligned access matches
        let addr = |name: &str| regs.iter().find(|r| r.name == name).map_or(0xffff, |r| base + QUEUE_STRIDE * (q + 1) + r.offset);
        let reset = |name: &str| regs.iter().find(|r| r.name == name).map_or(0, |r| r.reset);
        let bits = |name: &str| regs.iter().find(|r| r.name == name).map_or(0, |r| if r.fields.is_empty() { u32::MAX } else { r.fields.iter().fold(0, |m, f| m | f.mask()) });
        let held = |name: &str| if !moderation && name.starts_with("Q_IRQ_") { 0 } else { bits(name) };
        let rw: [CfgReg<32>; 9] = std::array::from_fn(|i| CfgReg::new(addr(RW[i]) as u16, u64::from(held(RW[i])), u64::from(reset(RW[i]))));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bus_wr: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_wmask: Default::default(),
            bus_rd: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rdata: Default::default(),
            enable: Default::default(),
            ring_base: Default::default(),
            ring_mask: Default::default(),
            tail: Default::default(),
            weight: Default::default(),
            strict: Default::default(),
            head: Default::default(),
            active: Default::default(),
            error_code: Default::default(),
            completion: Default::default(),
            dropped: Default::default(),
            irq_fire: Default::default(),
            irq: Default::default(),
            moderated: Constant::new(moderation),
            ungated: Constant::new(!gated),
            rw_addr: std::array::from_fn(|i| rw[i].addr_constant()),
            rw,
            drops: Default::default(),
            addr_head: c16(addr("Q_HEAD")),
            addr_status: c16(addr("Q_STATUS")),
            addr_drops: c16(addr("Q_DROPS")),
            align_mask: Constant::new(BusAddr::from(0xffff_ffff_fff0u64)),
            ones16: Constant::new(Bits::<16>::from(0xffffu64)),
            enabled: Default::default(),
            rd_or: Default::default(),
        }
    }
}

impl Logic for QueueRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, drops);
        clock!(self, clock, irq);
        // each register decodes its own writes (`CfgReg`)
        for i in 0..9 {
            self.rw[i].clock.next = self.clock.val();
            self.rw[i].reset.next = self.reset.val();
            self.rw[i].clear.next = false;
            self.rw[i].write.next = self.bus_wr.val();
            self.rw[i].addr.next = self.bus_addr.val();
            self.rw[i].wdata.next = self.bus_wdata.val();
            self.rw[i].wmask.next = self.bus_wmask.val();
        }
        // RW order: 0 BASE_LO, 1 BASE_HI, 2 SIZE_LOG2, 3 CONTROL, 4 TAIL, 5 IRQ_COUNT,
        // 6 IRQ_TIMER, 7 WEIGHT, 8 PRIORITY
        self.enabled.next = self.rw[3].q.val().get_bit(0);
        self.rw[4].clear.next = !self.enabled.val();
        self.enable.next = self.enabled.val();
        // bits 3:0 of Q_BASE_LO are ignored: the ring is 16-byte aligned
        self.ring_base.next = (bit_cast::<48, 32>(self.rw[0].q.val()) | (bit_cast::<48, 32>(self.rw[1].q.val()) << 32)) & self.align_mask.val();
        // !(ones << n), not (1 << n) - 1: every mask bit is a function of the 4 bits of n
        // alone (one LUT4 each), where a subtraction would be a carry chain
        self.ring_mask.next = !(self.ones16.val() << self.rw[2].q.val().get_bits::<4>(0));
        self.tail.next = self.rw[4].q.val().get_bits::<16>(0);
        self.weight.next = self.rw[7].q.val().get_bits::<16>(0);
        self.strict.next = self.rw[8].q.val().get_bit(0);
        self.drops.d.next = self.drops.q.val() + bit_cast::<32, 1>(self.dropped.val().into());
        // interrupt moderation
        self.irq.reset.next = self.reset.val();
        self.irq.strobe.next = self.completion.val();
        self.irq.count.next = self.rw[5].q.val().get_bits::<16>(0);
        self.irq.timer.next = self.rw[6].q.val().get_bits::<20>(0);
        // without moderation nothing reads `irq`, and synthesis removes it
        self.irq_fire.next = self.completion.val();
        if self.moderated.val() {
            self.irq_fire.next = self.irq.fire.val();
        }
        // reads, decoded only in a read's cycle (where the build gates them)
        // (the addresses are distinct: the selected values are ORed, not chained)
        self.rd_or.next = 0.into();
        if self.bus_rd.val() | self.ungated.val() {
            for i in 0..9 {
                if self.bus_rd_addr.val() == self.rw_addr[i].val() {
                    self.rd_or.next = self.rd_or.val() | self.rw[i].q.val();
                }
            }
            if self.bus_rd_addr.val() == self.addr_head.val() {
                self.rd_or.next = self.rd_or.val() | bit_cast::<32, 16>(self.head.val());
            }
            if self.bus_rd_addr.val() == self.addr_status.val() {
                self.rd_or.next = self.rd_or.val()
                    | bit_cast::<32, 1>(self.active.val().into())
                    | (bit_cast::<32, 1>((self.error_code.val() != 0).into()) << 1)
                    | (bit_cast::<32, 8>(self.error_code.val()) << 8);
            }
            if self.bus_rd_addr.val() == self.addr_drops.val() {
                self.rd_or.next = self.rd_or.val() | self.drops.q.val();
            }
        }
        self.bus_rdata.next = self.rd_or.val();
        if self.reset.val() {
            self.drops.d.next = 0.into();
        }
    }
}
