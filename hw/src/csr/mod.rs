//! The register block: an AXI4-Lite slave whose address decode comes from
//! `nic-regmap`'s tables.
//!
//! Every address compared here is a `Constant` looked up by name in the register map
//! at construction, so the RTL cannot drift from the map the driver, the docs and the C
//! header are generated from; `tests` walks every register of the map through the
//! Verilated model. Registers come in four kinds:
//! * constants (ID, VERSION, NEXT, FEATURES, QUEUES, DMA_ADDR_BITS, COUNT): `CONST_REGS`;
//! * read/write configuration: `RW_REGS`, exposed as named outputs;
//! * statistics counters, incremented by the datapath: `COUNTER_REGS`, kept in block
//!   RAM (`stats`): a read of one waits a few cycles for the counter's value;
//! * status (IRQ_STATUS, write 1 to clear, and CYCLE_COUNT).
//! Queue windows and the RX classification block decode their own registers on the
//! register bus (`queue_regs`, `rxc_regs`).

pub mod cfg_reg;
pub mod queue_regs;
pub mod rxc_regs;
pub mod stats;

pub use cfg_reg::CfgReg;
pub use queue_regs::{QueueDir, QueueRegs};
pub use rxc_regs::RxcRegs;
pub use stats::StatsCounters;

use crate::Config;
use nic_regmap as map;
use rust_hdl::prelude::*;

/// Constant registers, in the order of `CsrBlock::const_addr`.
pub const CONST_REGS: [(&str, &str); 17] = [
    ("global", "ID"),
    ("global", "VERSION"),
    ("global", "NEXT"),
    ("global", "FEATURES"),
    ("global", "QUEUES"),
    ("global", "DMA_ADDR_BITS"),
    ("stats", "ID"),
    ("stats", "VERSION"),
    ("stats", "NEXT"),
    ("txq", "ID"),
    ("txq", "VERSION"),
    ("txq", "NEXT"),
    ("txq", "COUNT"),
    ("rxq", "ID"),
    ("rxq", "VERSION"),
    ("rxq", "NEXT"),
    ("rxq", "COUNT"),
];

/// Read/write registers, in the order of `CsrBlock::rw` (the named outputs below read
/// them by these indices; `rw_indices_match_names` checks the pairing).
pub const RW_REGS: [(&str, &str); 5] = [
    ("global", "CONTROL"),       // 0
    ("global", "MAC_ADDR_LO"),   // 1
    ("global", "MAC_ADDR_HI"),   // 2
    ("global", "MAX_FRAME_LEN"), // 3
    ("global", "IRQ_MASK"),      // 4
];

/// Statistics counters, in the order of `CsrBlock::count_inc`.
pub const COUNTER_REGS: [&str; N_COUNTERS] = [
    "TX_FRAMES",         // 0
    "TX_BYTES",          // 1
    "TX_ERRORS",         // 2
    "RX_FRAMES",         // 3
    "RX_BYTES",          // 4
    "RX_DROP_NO_BUFFER", // 5
    "RX_DROP_FCS",       // 6
    "RX_DROP_RUNT",      // 7
    "RX_DROP_OVERSIZE",  // 8
    "RX_DROP_TRUNCATED", // 9
    "RX_DROP_PHY_ERROR", // 10
    "RX_DROP_UCAST_FILTER", // 11
    "RX_DROP_MCAST_FILTER", // 12
    "RX_DROP_BCAST_FILTER", // 13
    "RX_CSUM_L3_BAD",    // 14
    "RX_CSUM_L4_BAD",    // 15
    "TX_OFFLOAD_ERRORS", // 16
    "TX_TSO_SEGMENTS",   // 17
];
/// Number of statistics counters.
pub const N_COUNTERS: usize = 18;

/// Whether a counter counts bytes (its increments are frame lengths, not events).
pub fn counts_bytes(name: &str) -> bool {
    name.ends_with("_BYTES")
}

/// Whether a build has what increments a counter: the checksum-verdict counters need
/// RX checksum validation, the offload counters the TX offload engine. A counter the
/// build lacks reads 0, as it would anyway.
pub fn counter_in_build(config: Config, name: &str) -> bool {
    match name {
        "RX_CSUM_L3_BAD" | "RX_CSUM_L4_BAD" => config.has_rx_offload(),
        "TX_OFFLOAD_ERRORS" | "TX_TSO_SEGMENTS" => config.has_tx_offload(),
        _ => true,
    }
}

#[derive(LogicBlock)]
pub struct CsrBlock {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // AXI4-Lite slave
    pub s_axil_awaddr: Signal<In, Bits<16>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<16>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // configuration out (RW_REGS order)
    pub rw_value: [Signal<Out, Bits<32>>; 5],
    /// Register bus to the blocks that decode their own registers (RX queues, RX
    /// classification): a write strobe with address, data and byte mask, and a read
    /// strobe with its address whose data come back in the same cycle: each block's read
    /// data are 0 where it has no register, so the top ORs them. Where the build gates
    /// the register decode (`Config::gates_register_decode`) the read address comes from
    /// a register loaded when AR is taken (`bus_rd` the cycle after): the decode of every
    /// block is then a path from flip-flops, not from the host's port, and the simulator
    /// evaluates it only in that cycle, not with every change of the NIC's inputs. A
    /// block may decode its reads only while `bus_rd` and its writes only while
    /// `bus_wr`.
    pub bus_wr: Signal<Out, Bit>,
    pub bus_addr: Signal<Out, Bits<16>>,
    pub bus_wdata: Signal<Out, Bits<32>>,
    pub bus_wmask: Signal<Out, Bits<32>>,
    pub bus_rd: Signal<Out, Bit>,
    pub bus_rd_addr: Signal<Out, Bits<16>>,
    pub bus_rdata: Signal<In, Bits<32>>,
    /// Pulses that set IRQ_STATUS bits.
    pub irq_set: Signal<In, Bits<32>>,
    /// IRQ_STATUS & IRQ_MASK.
    pub irq: Signal<Out, Bits<32>>,
    /// Per-cycle increments of the statistics counters (COUNTER_REGS order).
    pub count_inc: [Signal<In, stats::Acc>; N_COUNTERS],
    const_addr: [Constant<Bits<16>>; 17],
    const_value: [Constant<Bits<32>>; 17],
    rw_addr: [Constant<Bits<16>>; 5],
    /// Each holds its declared fields' bits, written under its own decode (`CfgReg`).
    rw: [CfgReg<32>; 5],
    counter_addr: [Constant<Bits<16>>; N_COUNTERS],
    counter_id: [Constant<Bits<5>>; N_COUNTERS],
    counters: StatsCounters,
    /// A counter read waits for its value (`counters.rd_valid`).
    stat_wait: DFF<Bit>,
    stat_idx: DFF<Bits<5>>,
    stat_hit: Signal<Local, Bit>,
    stat_sel: Signal<Local, Bits<5>>,
    byte_lane: Constant<Bits<32>>,
    addr_irq_status: Constant<Bits<16>>,
    addr_cycle_count: Constant<Bits<16>>,
    irq_status: DFF<Bits<32>>,
    cycle_count: DFF<Bits<32>>,
    b_valid: DFF<Bit>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    /// An AR was taken last cycle: its address is in `rd_addr`, decoded this cycle.
    rd_pend: DFF<Bit>,
    rd_addr: DFF<Bits<16>>,
    /// `Config::gates_register_decode` clear: the read address is the port's, decoded
    /// in the AR cycle, and the decode runs in every cycle.
    ungated: Constant<Bit>,
    /// The cycle whose read address is on the bus (`bus_rd`).
    rd_now: Signal<Local, Bit>,
    do_write: Signal<Local, Bit>,
    strb_mask: Signal<Local, Bits<32>>,
    w_clear: Signal<Local, Bits<32>>,
    read_value: Signal<Local, Bits<32>>,
}

fn c16(v: u32) -> Constant<Bits<16>> {
    Constant::new(Bits::<16>::from(v as u64))
}
fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new(Bits::<32>::from(v as u64))
}

impl CsrBlock {
    pub fn new(config: Config) -> Self {
        let const_value = |(b, r): (&str, &str)| match r {
            "QUEUES" => config.tx_queues() | (config.rx_queues() << 8),
            "FEATURES" => config.features(),
            "COUNT" if b == "txq" => config.tx_queues(),
            "COUNT" => config.rx_queues(),
            _ => map::reset_of(b, r),
        };
        let rw: [CfgReg<32>; 5] = std::array::from_fn(|i| {
            let (block, name) = RW_REGS[i];
            CfgReg::new(map::offset_of(block, name) as u16, u64::from(map::bits_of(block, name)), u64::from(map::reset_of(block, name)))
        });
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            rw_value: Default::default(),
            bus_wr: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_wmask: Default::default(),
            bus_rd: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rdata: Default::default(),
            irq_set: Default::default(),
            irq: Default::default(),
            count_inc: Default::default(),
            const_addr: std::array::from_fn(|i| c16(map::offset_of(CONST_REGS[i].0, CONST_REGS[i].1))),
            const_value: std::array::from_fn(|i| c32(const_value(CONST_REGS[i]))),
            rw_addr: std::array::from_fn(|i| rw[i].addr_constant()),
            rw,
            counter_addr: std::array::from_fn(|i| c16(map::offset_of("stats", COUNTER_REGS[i]))),
            counter_id: std::array::from_fn(|i| Constant::new(Bits::<5>::from(i as u64))),
            counters: StatsCounters::new(
                std::array::from_fn(|i| counter_in_build(config, COUNTER_REGS[i])),
                std::array::from_fn(|i| counts_bytes(COUNTER_REGS[i])),
            ),
            stat_wait: Default::default(),
            stat_idx: Default::default(),
            stat_hit: Default::default(),
            stat_sel: Default::default(),
            byte_lane: c32(0xff),
            addr_irq_status: c16(map::offset_of("global", "IRQ_STATUS")),
            addr_cycle_count: c16(map::offset_of("global", "CYCLE_COUNT")),
            irq_status: Default::default(),
            cycle_count: Default::default(),
            b_valid: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            rd_pend: Default::default(),
            rd_addr: Default::default(),
            ungated: Constant::new(!config.gates_register_decode()),
            rd_now: Default::default(),
            do_write: Default::default(),
            strb_mask: Default::default(),
            w_clear: Default::default(),
            read_value: Default::default(),
        }
    }
}

impl Logic for CsrBlock {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, irq_status, cycle_count, b_valid, r_valid, r_data, stat_wait, stat_idx, rd_pend, rd_addr);
        clock!(self, clock, counters);
        self.counters.reset.next = self.reset.val();
        for i in 0..5 {
            self.rw[i].clock.next = self.clock.val();
            self.rw_value[i].next = self.rw[i].q.val();
        }
        // 18 = N_COUNTERS (an hdl_gen loop bound is a literal or a const generic)
        for i in 0..18 {
            self.counters.inc[i].next = self.count_inc[i].val();
        }
        self.cycle_count.d.next = self.cycle_count.q.val() + 1;
        // write channel: address and data are taken together, once both are offered
        // (AXI4-Lite lets a slave wait for both before either ready), written in that
        // cycle and answered. Holding one until the other came took 48 flip-flops fed
        // straight by the ports, each an iCE40 logic cell of its own.
        self.do_write.next = self.s_axil_awvalid.val() & self.s_axil_wvalid.val() & !self.b_valid.q.val();
        self.s_axil_awready.next = self.do_write.val();
        self.s_axil_wready.next = self.do_write.val();
        // byte enables: a lane with wstrb low keeps its old value
        self.strb_mask.next = 0.into();
        if self.s_axil_wstrb.val().get_bit(0) {
            self.strb_mask.next = self.strb_mask.val() | (self.byte_lane.val() << 0);
        }
        if self.s_axil_wstrb.val().get_bit(1) {
            self.strb_mask.next = self.strb_mask.val() | (self.byte_lane.val() << 8);
        }
        if self.s_axil_wstrb.val().get_bit(2) {
            self.strb_mask.next = self.strb_mask.val() | (self.byte_lane.val() << 16);
        }
        if self.s_axil_wstrb.val().get_bit(3) {
            self.strb_mask.next = self.strb_mask.val() | (self.byte_lane.val() << 24);
        }
        self.irq_status.d.next = self.irq_status.q.val() | self.irq_set.val();
        self.w_clear.next = self.s_axil_wdata.val() & self.strb_mask.val();
        // each RW register decodes its own writes (`CfgReg`)
        for i in 0..5 {
            self.rw[i].reset.next = self.reset.val();
            self.rw[i].clear.next = false;
            self.rw[i].write.next = self.do_write.val();
            self.rw[i].addr.next = self.s_axil_awaddr.val();
            self.rw[i].wdata.next = self.s_axil_wdata.val();
            self.rw[i].wmask.next = self.strb_mask.val();
        }
        self.bus_wr.next = self.do_write.val();
        self.bus_addr.next = self.s_axil_awaddr.val();
        self.bus_wdata.next = self.s_axil_wdata.val();
        self.bus_wmask.next = self.strb_mask.val();
        if self.do_write.val() {
            self.b_valid.d.next = true;
            if self.s_axil_awaddr.val() == self.addr_irq_status.val() {
                self.irq_status.d.next =
                    (self.irq_status.q.val() & !self.w_clear.val()) | self.irq_set.val();
            }
        }
        self.s_axil_bvalid.next = self.b_valid.q.val();
        if self.b_valid.q.val() & self.s_axil_bready.val() {
            self.b_valid.d.next = false;
        }
        // read channel: the address registered as AR is taken and decoded the next cycle
        // (`bus_rd`), the data held until taken; in a build that does not gate the
        // register decode (`ungated`, `small`: no flip-flop or gate more on the iCE40)
        // the port's address is decoded in the AR cycle itself, as it always was
        // (the addresses are distinct: the selected values are ORed, not chained; the
        // register blocks on the bus read 0 where they have no register)
        self.s_axil_arready.next = !self.rd_pend.q.val() & !self.r_valid.q.val() & !self.stat_wait.q.val();
        self.rd_pend.d.next = false;
        if self.s_axil_arvalid.val() & self.s_axil_arready.val() & !self.ungated.val() {
            self.rd_pend.d.next = true;
            self.rd_addr.d.next = self.s_axil_araddr.val();
        }
        self.rd_now.next = self.rd_pend.q.val();
        self.bus_rd_addr.next = self.rd_addr.q.val();
        if self.ungated.val() {
            self.rd_now.next = self.s_axil_arvalid.val() & self.s_axil_arready.val();
            self.bus_rd_addr.next = self.s_axil_araddr.val();
        }
        self.bus_rd.next = self.rd_now.val();
        self.read_value.next = 0.into();
        self.stat_hit.next = false;
        self.stat_sel.next = 0.into();
        if self.rd_now.val() | self.ungated.val() {
            self.read_value.next = self.bus_rdata.val();
            for i in 0..17 {
                if self.bus_rd_addr.val() == self.const_addr[i].val() {
                    self.read_value.next = self.read_value.val() | self.const_value[i].val();
                }
            }
            for i in 0..5 {
                if self.bus_rd_addr.val() == self.rw_addr[i].val() {
                    self.read_value.next = self.read_value.val() | self.rw[i].q.val();
                }
            }
            for i in 0..18 {
                if self.bus_rd_addr.val() == self.counter_addr[i].val() {
                    self.stat_hit.next = true;
                    self.stat_sel.next = self.counter_id[i].val();
                }
            }
            if self.bus_rd_addr.val() == self.addr_irq_status.val() {
                self.read_value.next = self.read_value.val() | self.irq_status.q.val();
            }
            if self.bus_rd_addr.val() == self.addr_cycle_count.val() {
                self.read_value.next = self.read_value.val() | self.cycle_count.q.val();
            }
        }
        if self.rd_now.val() {
            if self.stat_hit.val() {
                self.stat_wait.d.next = true;
                self.stat_idx.d.next = self.stat_sel.val();
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = self.read_value.val();
            }
        }
        self.counters.rd_req.next = self.stat_wait.q.val();
        self.counters.rd_index.next = self.stat_idx.q.val();
        if self.counters.rd_valid.val() {
            self.stat_wait.d.next = false;
            self.r_valid.d.next = true;
            self.r_data.d.next = self.counters.rd_data.val();
        }
        if self.r_valid.q.val() & self.s_axil_rready.val() {
            self.r_valid.d.next = false;
        }
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.irq.next = self.irq_status.q.val() & self.rw[4].q.val();
        if self.reset.val() {
            self.stat_wait.d.next = false;
            self.irq_status.d.next = 0.into();
            self.cycle_count.d.next = 0.into();
            self.b_valid.d.next = false;
            self.r_valid.d.next = false;
            self.rd_pend.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rw_indices_match_names() {
        // top.rs reads rw_value by index; these are the indices it uses.
        let used = [(0, "CONTROL"), (1, "MAC_ADDR_LO"), (3, "MAX_FRAME_LEN"), (4, "IRQ_MASK")];
        for (i, name) in used {
            assert_eq!(RW_REGS[i].1, name, "RW_REGS[{i}]");
        }
    }
    #[test]
    fn every_register_of_the_map_is_decoded() {
        // each register of the map is a constant, an RW register, a counter or a status
        // input here, or is decoded on the register bus by the RX queue or RX
        // classification register blocks
        let status = ["IRQ_STATUS", "CYCLE_COUNT"];
        let every_feature = crate::Config::Full.features() | crate::Config::Small.features();
        for b in map::blocks_present(every_feature) {
            for r in b.regs.iter().chain(b.queue_regs.iter()) {
                let known = CONST_REGS.contains(&(b.name, r.name))
                    || RW_REGS.contains(&(b.name, r.name))
                    || (b.name == "stats" && COUNTER_REGS.contains(&r.name))
                    || (b.name == "global" && status.contains(&r.name))
                    || ((b.name == "rxq" || b.name == "txq") && super::queue_regs::DECODED.contains(&r.name))
                    || (b.name == "rxc" && super::rxc_regs::DECODED.contains(&r.name))
                    || (b.name == "rdma" && crate::rdma::engine::DECODED.contains(&r.name))
                    || (b.name == "rdma" && crate::rdma::engine::COUNTERS.contains(&r.name));
                assert!(known, "{}.{} is in the register map but not decoded", b.name, r.name);
            }
        }
    }
}
