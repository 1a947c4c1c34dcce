//! The RDMA engine's context tables (the QP, MR and CQ tables of `nic_regmap::rdma`) in
//! block RAM, reached by the driver through `TABLE_CMD`, `TABLE_STATUS` and
//! `TABLE_DATA` (decoded here on the CSR block's register bus), and by the engine's roles
//! through one read-modify-write port per table.
//!
//! Each entry is one RAM word (QP 12 x 32 bits, MR 7 x 32, CQ 5 x 32), so a role reads a
//! whole context in one access. Every access, the driver's or the engine's, is a
//! read-modify-write done here, one at a time: accept, read, merge under a bit mask,
//! write. So the driver's `modify_qp` (which stores only the words it names) and the
//! engine advancing a PSN or a ring index in the same entry never undo each other. An
//! access takes five cycles (accept, read address, the read data registered, merged
//! into a register, written): the BRAM's output (slow to come out of the block) and the
//! merge each get a cycle of their own at 156.25 MHz.
//! The driver's command goes first; the engine's ports are served QP before CQ.
//!
//! The engine's ports store exactly the bits they name. What a driver's store does
//! besides storing, as the behavioural model does it
//! (`testbench/src/roce/engine/mod.rs`, `table_cmd`):
//! * a QP whose STATE is RESET after the store has its SQ_CI and RQ_CI cleared;
//! * a store that names a CQ's ENABLE word clears its PI and OVERFLOW;
//! * a store to a QP is reported (`qp_store_*`) for the engine's own per-QP state (a
//!   QP entering ERR is flushed, one entering RESET forgets what it had in flight);
//! * a store naming a CQ's ENABLE word is reported (`cq_restart_*`) for the CQ writer's
//!   per-CQ state (consumer index, arming);
//! * a store to an MR is broadcast (`mr_wr_*`) to the copies of the MR table the
//!   protection checks keep (`RdmaMrCheck`), each with a read port of its own.
//!
//! Bad commands (table 3, an index past the table) set `BAD_INDEX` and do nothing.

use super::super::stream::NicRam;
use nic_regmap::rdma::{self as map, cqc, mrc, qpc};
use rust_hdl::prelude::*;

/// Bits of a QP context, an MR entry and a CQ context.
pub const QP_BITS: usize = qpc::WORDS * 32;
pub const MR_BITS: usize = mrc::WORDS * 32;
pub const CQ_BITS: usize = cqc::WORDS * 32;

/// Where an access is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TableOpState {
    Idle,
    Read,
    Latch,
    Merge,
    Write,
}


#[derive(LogicBlock)]
pub struct RdmaTables {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- register bus (see CsrBlock): TABLE_CMD, TABLE_STATUS, TABLE_DATA ----
    pub bus_wr: Signal<In, Bit>,
    pub bus_addr: Signal<In, Bits<16>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_wmask: Signal<In, Bits<32>>,
    pub bus_rd_addr: Signal<In, Bits<16>>,
    pub bus_rdata: Signal<Out, Bits<32>>,
    // ---- the engine's QP port: read an entry, and store `wdata` where `mask` is 1 ----
    pub qp_valid: Signal<In, Bit>,
    pub qp_ready: Signal<Out, Bit>,
    pub qp_index: Signal<In, Bits<6>>,
    pub qp_write: Signal<In, Bit>,
    pub qp_mask: Signal<In, Bits<384>>,
    pub qp_wdata: Signal<In, Bits<384>>,
    /// Four cycles after the access was taken, for one cycle: the entry before the store.
    pub qp_rvalid: Signal<Out, Bit>,
    pub qp_rdata: Signal<Out, Bits<384>>,
    // ---- the engine's CQ port, the same ----
    pub cq_valid: Signal<In, Bit>,
    pub cq_ready: Signal<Out, Bit>,
    pub cq_index: Signal<In, Bits<4>>,
    pub cq_write: Signal<In, Bit>,
    pub cq_mask: Signal<In, Bits<160>>,
    pub cq_wdata: Signal<In, Bits<160>>,
    pub cq_rvalid: Signal<Out, Bit>,
    pub cq_rdata: Signal<Out, Bits<160>>,
    // ---- what the driver's stores change ----
    /// An MR entry was stored: the protection checks' copies take it.
    pub mr_wr: Signal<Out, Bit>,
    pub mr_wr_index: Signal<Out, Bits<6>>,
    pub mr_wr_entry: Signal<Out, Bits<224>>,
    /// The responder has finished every packet checked before the last MR store (its
    /// `mr_fence_done`): until then TABLE_STATUS.BUSY stays set, so a driver's
    /// `dereg_mr` returns only when no byte can land in the region any more.
    pub mr_fence_done: Signal<In, Bit>,
    /// An MR store waits for `mr_fence_done`.
    mr_fence: DFF<Bit>,
    /// A QP context was stored by the driver: its STATE after the store.
    pub qp_store: Signal<Out, Bit>,
    pub qp_store_index: Signal<Out, Bits<6>>,
    pub qp_store_state: Signal<Out, Bits<3>>,
    /// A driver's store named a CQ's ENABLE word (its PI and OVERFLOW were cleared): the
    /// CQ writer starts that CQ afresh.
    pub cq_restart: Signal<Out, Bit>,
    pub cq_restart_index: Signal<Out, Bits<4>>,
    // ---- the tables ----
    qp_ram: NicRam<Bits<384>, 6>,
    mr_ram: NicRam<Bits<224>, 6>,
    cq_ram: NicRam<Bits<160>, 4>,
    // ---- registers ----
    data: [DFF<Bits<32>>; 16],
    cmd_pending: DFF<Bit>,
    cmd_word: DFF<Bits<32>>,
    bad_index: DFF<Bit>,
    // ---- the access in progress ----
    state: DFF<TableOpState>,
    op_by: DFF<Bits<2>>,
    op_table: DFF<Bits<2>>,
    op_index: DFF<Bits<6>>,
    op_write: DFF<Bit>,
    op_mask: DFF<Bits<384>>,
    op_wdata: DFF<Bits<384>>,
    /// A driver's store naming a CQ's ENABLE word.
    op_cq_enable: DFF<Bit>,
    old: DFF<Bits<384>>,
    qp_out: DFF<Bits<384>>,
    mr_out: DFF<Bits<224>>,
    cq_out: DFF<Bits<160>>,
    merged: DFF<Bits<384>>,
    // ---- scratch ----
    host_bad: Signal<Local, Bit>,
    /// TABLE_STATUS.BUSY: the driver's command waits or runs.
    host_busy: Signal<Local, Bit>,
    host_mask: Signal<Local, Bits<384>>,
    host_data: Signal<Local, Bits<384>>,
    wmerge: Signal<Local, Bits<32>>,
    word_tmp: Signal<Local, Bits<32>>,
    raw: Signal<Local, Bits<384>>,
    mix: Signal<Local, Bits<384>>,
    rd_or: Signal<Local, Bits<32>>,
    // ---- constants ----
    addr_cmd: Constant<Bits<16>>,
    addr_status: Constant<Bits<16>>,
    addr_data: [Constant<Bits<16>>; 16],
    word_shift: [Constant<Bits<9>>; 12],
    word_ones: Constant<Bits<384>>,
    /// QP word 11: SQ_CI and RQ_CI.
    qp_ci_bits: Constant<Bits<384>>,
    /// CQ word 4's PI and OVERFLOW bits.
    cq_pi_bits: Constant<Bits<384>>,
    /// Whose access it is: the driver's, the QP port's, the CQ port's.
    by_host: Constant<Bits<2>>,
    by_qp: Constant<Bits<2>>,
    by_cq: Constant<Bits<2>>,
    /// TABLE_CMD.TABLE codes.
    t_qp: Constant<Bits<2>>,
    t_mr: Constant<Bits<2>>,
    t_cq: Constant<Bits<2>>,
}

impl Default for RdmaTables {
    fn default() -> Self {
        let c16 = |v: u32| Constant::new(Bits::<16>::from(u64::from(v)));
        assert!(qpc::WORDS == 12 && mrc::WORDS == 7 && cqc::WORDS == 5, "entry widths are fixed in the ports");
        assert!(qpc::SQ_CI.word == 11 && qpc::RQ_CI.word == 11 && cqc::PI.word == 4 && cqc::OVERFLOW.word == 4 && cqc::ENABLE.word == 1);
        assert!(qpc::STATE.word == 0 && qpc::STATE.lsb == 0 && qpc::STATE.width == 3);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bus_wr: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_wmask: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rdata: Default::default(),
            qp_valid: Default::default(),
            qp_ready: Default::default(),
            qp_index: Default::default(),
            qp_write: Default::default(),
            qp_mask: Default::default(),
            qp_wdata: Default::default(),
            qp_rvalid: Default::default(),
            qp_rdata: Default::default(),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            cq_index: Default::default(),
            cq_write: Default::default(),
            cq_mask: Default::default(),
            cq_wdata: Default::default(),
            cq_rvalid: Default::default(),
            cq_rdata: Default::default(),
            mr_wr: Default::default(),
            mr_wr_index: Default::default(),
            mr_wr_entry: Default::default(),
            mr_fence_done: Default::default(),
            mr_fence: Default::default(),
            qp_store: Default::default(),
            cq_restart: Default::default(),
            cq_restart_index: Default::default(),
            qp_store_index: Default::default(),
            qp_store_state: Default::default(),
            qp_ram: Default::default(),
            mr_ram: Default::default(),
            cq_ram: Default::default(),
            data: Default::default(),
            cmd_pending: Default::default(),
            cmd_word: Default::default(),
            bad_index: Default::default(),
            state: Default::default(),
            op_by: Default::default(),
            op_table: Default::default(),
            op_index: Default::default(),
            op_write: Default::default(),
            op_mask: Default::default(),
            op_wdata: Default::default(),
            op_cq_enable: Default::default(),
            old: Default::default(),
            qp_out: Default::default(),
            mr_out: Default::default(),
            cq_out: Default::default(),
            merged: Default::default(),
            host_bad: Default::default(),
            host_busy: Default::default(),
            host_mask: Default::default(),
            host_data: Default::default(),
            wmerge: Default::default(),
            word_tmp: Default::default(),
            raw: Default::default(),
            mix: Default::default(),
            rd_or: Default::default(),
            addr_cmd: c16(map::BASE + map::TABLE_CMD),
            addr_status: c16(map::BASE + map::TABLE_STATUS),
            addr_data: std::array::from_fn(|w| c16(map::BASE + map::TABLE_DATA + 4 * w as u32)),
            word_shift: std::array::from_fn(|w| Constant::new(Bits::<9>::from(32 * w as u64))),
            word_ones: Constant::new(Bits::<384>::from(0xffff_ffffu64)),
            qp_ci_bits: Constant::new(Bits::<384>::from(u64::from(qpc::SQ_CI.mask() << qpc::SQ_CI.lsb | qpc::RQ_CI.mask() << qpc::RQ_CI.lsb)) << 352u64),
            cq_pi_bits: Constant::new(Bits::<384>::from(u64::from(cqc::PI.mask() << cqc::PI.lsb | cqc::OVERFLOW.mask() << cqc::OVERFLOW.lsb)) << 128u64),
            by_host: Constant::new(0u64.into()),
            by_qp: Constant::new(1u64.into()),
            by_cq: Constant::new(2u64.into()),
            t_qp: Constant::new(u64::from(map::TABLE_QP).into()),
            t_mr: Constant::new(u64::from(map::TABLE_MR).into()),
            t_cq: Constant::new(u64::from(map::TABLE_CQ).into()),
        }
    }
}

impl Logic for RdmaTables {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cmd_pending, cmd_word, bad_index, state, op_by, op_table, op_index, op_write, op_mask, op_wdata,
            op_cq_enable, old, qp_out, mr_out, cq_out, merged, mr_fence);
        for w in 0..16 {
            self.data[w].clock.next = self.clock.val();
            self.data[w].d.next = self.data[w].q.val();
        }
        clock!(self, clock, qp_ram, mr_ram, cq_ram);
        // ---- register bus: TABLE_DATA words (byte strobes apply), TABLE_CMD ----
        self.wmerge.next = self.bus_wdata.val() & self.bus_wmask.val();
        self.host_busy.next = self.cmd_pending.q.val() | ((self.state.q.val() != TableOpState::Idle) & (self.op_by.q.val() == self.by_host.val())) | self.mr_fence.q.val();

        if self.bus_wr.val() {
            for w in 0..16 {
                if self.bus_addr.val() == self.addr_data[w].val() {
                    self.data[w].d.next = (self.data[w].q.val() & !self.bus_wmask.val()) | self.wmerge.val();
                }
            }
            // a command while one runs is ignored: the driver waits for BUSY to clear
            if (self.bus_addr.val() == self.addr_cmd.val()) & !self.host_busy.val() {
                self.cmd_pending.d.next = true;
                self.cmd_word.d.next = self.bus_wdata.val();
            }
        }
        self.rd_or.next = 0.into();
        if self.bus_rd_addr.val() == self.addr_status.val() {
            if self.bad_index.q.val() {
                self.rd_or.next = 2.into();
            }
            if self.host_busy.val() {
                self.rd_or.next = self.rd_or.val() | 1;
            }
        }
        for w in 0..16 {
            if self.bus_rd_addr.val() == self.addr_data[w].val() {
                self.rd_or.next = self.rd_or.val() | self.data[w].q.val();
            }
        }
        self.bus_rdata.next = self.rd_or.val();
        // ---- the driver's command as an access: its word mask as bits, TABLE_DATA as an entry ----
        self.host_mask.next = 0.into();
        self.host_data.next = 0.into();
        for w in 0..12 {
            if self.cmd_word.q.val().get_bit(16 + w) {
                self.host_mask.next = self.host_mask.val() | (self.word_ones.val() << self.word_shift[w].val());
            }
        }
        for v in 0..12 {
            self.word_tmp.next = self.data[v].q.val();
            self.host_data.next = self.host_data.val() | (bit_cast::<384, 32>(self.word_tmp.val()) << self.word_shift[v].val());
        }
        self.host_bad.next = (self.cmd_word.q.val().get_bits::<2>(8) == 3)
            | ((self.cmd_word.q.val().get_bits::<2>(8) != self.t_cq.val()) & self.cmd_word.q.val().get_bits::<2>(6).any())
            | ((self.cmd_word.q.val().get_bits::<2>(8) == self.t_cq.val()) & self.cmd_word.q.val().get_bits::<4>(4).any());
        // ---- accept: the driver first, then the QP port, then the CQ port ----
        self.qp_ready.next = (self.state.q.val() == TableOpState::Idle) & !self.cmd_pending.q.val();
        self.cq_ready.next = (self.state.q.val() == TableOpState::Idle) & !self.cmd_pending.q.val() & !self.qp_valid.val();
        if self.state.q.val() == TableOpState::Idle {
            if self.cmd_pending.q.val() {
                self.cmd_pending.d.next = false;
                self.bad_index.d.next = self.host_bad.val();
                if !self.host_bad.val() {
                    self.state.d.next = TableOpState::Read;
                }
                self.op_by.d.next = self.by_host.val();
                self.op_table.d.next = self.cmd_word.q.val().get_bits::<2>(8);
                self.op_index.d.next = self.cmd_word.q.val().get_bits::<6>(0);
                self.op_write.d.next = self.cmd_word.q.val().get_bit(15);
                self.op_mask.d.next = self.host_mask.val();
                self.op_wdata.d.next = self.host_data.val();
                self.op_cq_enable.d.next = self.cmd_word.q.val().get_bit(15) & self.cmd_word.q.val().get_bit(17)
                    & (self.cmd_word.q.val().get_bits::<2>(8) == self.t_cq.val());
            } else if self.qp_valid.val() {
                self.state.d.next = TableOpState::Read;
                self.op_by.d.next = self.by_qp.val();
                self.op_table.d.next = self.t_qp.val();
                self.op_index.d.next = self.qp_index.val();
                self.op_write.d.next = self.qp_write.val();
                self.op_mask.d.next = self.qp_mask.val();
                self.op_wdata.d.next = self.qp_wdata.val();
                self.op_cq_enable.d.next = false;
            } else if self.cq_valid.val() {
                self.state.d.next = TableOpState::Read;
                self.op_by.d.next = self.by_cq.val();
                self.op_table.d.next = self.t_cq.val();
                self.op_index.d.next = bit_cast::<6, 4>(self.cq_index.val());
                self.op_write.d.next = self.cq_write.val();
                self.op_mask.d.next = bit_cast::<384, 160>(self.cq_mask.val());
                self.op_wdata.d.next = bit_cast::<384, 160>(self.cq_wdata.val());
                self.op_cq_enable.d.next = false;
            }
        }
        // ---- read ----
        self.qp_ram.read_address.next = self.op_index.q.val();
        self.mr_ram.read_address.next = self.op_index.q.val();
        self.cq_ram.read_address.next = self.op_index.q.val().get_bits::<4>(0);
        if self.state.q.val() == TableOpState::Read {
            self.state.d.next = TableOpState::Latch;
        }
        // ---- merge: the entry as read, the stored bits over it, and the side effects ----
        // each RAM's output registered as it is (no mux in front: the block RAM's own
        // output register can take it), the table's chosen after
        self.qp_out.d.next = self.qp_ram.read_data.val();
        self.mr_out.d.next = self.mr_ram.read_data.val();
        self.cq_out.d.next = self.cq_ram.read_data.val();
        if self.state.q.val() == TableOpState::Latch {
            self.state.d.next = TableOpState::Merge;
        }
        self.raw.next = self.qp_out.q.val();
        if self.op_table.q.val() == self.t_mr.val() {
            self.raw.next = bit_cast::<384, 224>(self.mr_out.q.val());
        }
        if self.op_table.q.val() == self.t_cq.val() {
            self.raw.next = bit_cast::<384, 160>(self.cq_out.q.val());
        }
        self.mix.next = (self.raw.val() & !self.op_mask.q.val()) | (self.op_wdata.q.val() & self.op_mask.q.val());
        if (self.op_by.q.val() == self.by_host.val()) & (self.op_table.q.val() == self.t_qp.val()) & (self.mix.val().get_bits::<3>(0) == 0) {
            self.mix.next = self.mix.val() & !self.qp_ci_bits.val();
        }
        if self.op_cq_enable.q.val() {
            self.mix.next = self.mix.val() & !self.cq_pi_bits.val();
        }
        if self.state.q.val() == TableOpState::Merge {
            self.state.d.next = TableOpState::Write;
            self.old.d.next = self.raw.val();
            self.merged.d.next = self.mix.val();
        }
        // ---- write, and answer ----
        self.qp_ram.write_address.next = self.op_index.q.val();
        self.mr_ram.write_address.next = self.op_index.q.val();
        self.cq_ram.write_address.next = self.op_index.q.val().get_bits::<4>(0);
        self.qp_ram.write_data.next = self.merged.q.val();
        self.mr_ram.write_data.next = self.merged.q.val().get_bits::<224>(0);
        self.cq_ram.write_data.next = self.merged.q.val().get_bits::<160>(0);
        self.qp_ram.write_enable.next = false;
        self.mr_ram.write_enable.next = false;
        self.cq_ram.write_enable.next = false;
        self.qp_rvalid.next = false;
        self.cq_rvalid.next = false;
        self.qp_rdata.next = self.old.q.val();
        self.cq_rdata.next = self.old.q.val().get_bits::<160>(0);
        self.mr_wr.next = false;
        self.mr_wr_index.next = self.op_index.q.val();
        self.mr_wr_entry.next = self.merged.q.val().get_bits::<224>(0);
        self.qp_store.next = false;
        self.qp_store_index.next = self.op_index.q.val();
        self.qp_store_state.next = self.merged.q.val().get_bits::<3>(0);
        self.cq_restart.next = false;
        self.cq_restart_index.next = self.op_index.q.val().get_bits::<4>(0);
        if self.state.q.val() == TableOpState::Write {
            self.state.d.next = TableOpState::Idle;
            if self.op_write.q.val() {
                self.qp_ram.write_enable.next = self.op_table.q.val() == self.t_qp.val();
                self.mr_ram.write_enable.next = self.op_table.q.val() == self.t_mr.val();
                self.cq_ram.write_enable.next = self.op_table.q.val() == self.t_cq.val();
            }
            if self.op_by.q.val() == self.by_host.val() {
                if !self.op_write.q.val() {
                    // a load: TABLE_DATA is the entry, words past it 0
                    for w in 0..12 {
                        self.data[w].d.next = self.old.q.val().get_bits::<32>(w * 32);
                    }
                    for w in 12..16 {
                        self.data[w].d.next = 0.into();
                    }
                }
                self.mr_wr.next = self.op_write.q.val() & (self.op_table.q.val() == self.t_mr.val());
                self.qp_store.next = self.op_write.q.val() & (self.op_table.q.val() == self.t_qp.val());
                self.cq_restart.next = self.op_cq_enable.q.val();
            }
            self.qp_rvalid.next = self.op_by.q.val() == self.by_qp.val();
            self.cq_rvalid.next = self.op_by.q.val() == self.by_cq.val();
        }
        // an MR store holds BUSY until the responder is past every packet checked before it
        if self.mr_fence_done.val() {
            self.mr_fence.d.next = false;
        }
        if self.mr_wr.val() {
            self.mr_fence.d.next = true;
        }
        if self.reset.val() {
            self.state.d.next = TableOpState::Idle;
            self.cmd_pending.d.next = false;
            self.bad_index.d.next = false;
            self.mr_fence.d.next = false;
        }
    }
}
