//! The memory protection check every byte the RDMA engine moves passes first (rxe_mr.c's
//! role): does key K, used by a QP of protection domain PD, allow access NEED to
//! `[addr, addr + len)`? If so, the bus address of `addr`.
//!
//! The rules, as the behavioural model's `check_mr` (testbench/src/roce/engine/tables.rs)
//! states them: a zero-length access needs no key (IBTA 9.4.1.1) and is allowed at bus
//! address 0; otherwise the key's low byte selects the MR entry (past the table: refused),
//! which must be VALID and carry the whole key (a stale key's tag misses), the same PD,
//! every NEED bit in its ACCESS, and the range inside `[IOVA, IOVA + LENGTH)`, computed
//! without wrap-around (an `addr + len` past 2^64 is refused, not folded).
//!
//! One check per cycle, answered `LATENCY` cycles later in order, with a tag the user
//! chooses passed through. The block keeps its own copy of the MR table, written from
//! `RdmaTables`'s `mr_wr_*` broadcast, so each user (requester, responder) has a read
//! port of its own. Pipelined for 156.25 MHz: the RAM's output is registered twice (a copy
//! beside the RAM, then one beside its users) before the 65-bit arithmetic; the range's
//! compare (65 bits, one carry chain of 60 cells that missed 156.25 MHz in one placement)
//! is made in two halves in a cycle of their own and joined in the next. The question itself is registered before the RAM's read address: each user picks
//! its key from a list (an SGE of six, the RETH's) under its state, and that choice
//! reached the RAM's address pins through the routing of a whole block.

use super::super::stream::NicRam;
use nic_regmap::rdma::mrc;
use rust_hdl::prelude::*;

/// Cycles from a check's `in_valid` to its `out_valid`.
pub const LATENCY: u64 = 7;

#[derive(LogicBlock)]
pub struct RdmaMrCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- the MR table's stores (from RdmaTables) ----
    pub mr_wr: Signal<In, Bit>,
    pub mr_wr_index: Signal<In, Bits<6>>,
    pub mr_wr_entry: Signal<In, Bits<224>>,
    // ---- a check ----
    pub in_valid: Signal<In, Bit>,
    pub in_key: Signal<In, Bits<32>>,
    pub in_pd: Signal<In, Bits<16>>,
    pub in_addr: Signal<In, Bits<64>>,
    pub in_len: Signal<In, Bits<32>>,
    /// `access` bits the access needs (1 LOCAL_WRITE, 2 REMOTE_WRITE, 4 REMOTE_READ).
    pub in_need: Signal<In, Bits<3>>,
    pub in_tag: Signal<In, Bits<16>>,
    // ---- its answer ----
    pub out_valid: Signal<Out, Bit>,
    pub out_ok: Signal<Out, Bit>,
    /// Bus address of `addr` (0 for a zero-length access); meaningful with `out_ok`.
    pub out_bus: Signal<Out, Bits<64>>,
    pub out_tag: Signal<Out, Bits<16>>,
    ram: NicRam<Bits<224>, 6>,
    // S0: the question registered
    s0_valid: DFF<Bit>,
    s0_key: DFF<Bits<32>>,
    s0_pd: DFF<Bits<16>>,
    s0_addr: DFF<Bits<64>>,
    s0_len: DFF<Bits<32>>,
    s0_need: DFF<Bits<3>>,
    s0_tag: DFF<Bits<16>>,
    // S1: the RAM answers
    s1_valid: DFF<Bit>,
    s1_key: DFF<Bits<32>>,
    s1_pd: DFF<Bits<16>>,
    s1_addr: DFF<Bits<64>>,
    s1_len: DFF<Bits<32>>,
    s1_need: DFF<Bits<3>>,
    s1_tag: DFF<Bits<16>>,
    // R: the RAM's word in flip-flops that feed nothing else, so the placer keeps them
    // beside the block RAM (its data leaves 4.26 ns after the clock at speed 8: a register
    // with logic behind it sat 2.2 ns of routing away and missed 156.25 MHz)
    r_valid: DFF<Bit>,
    r_entry: DFF<Bits<224>>,
    r_key: DFF<Bits<32>>,
    r_pd: DFF<Bits<16>>,
    r_addr: DFF<Bits<64>>,
    r_len: DFF<Bits<32>>,
    r_need: DFF<Bits<3>>,
    r_tag: DFF<Bits<16>>,
    // S2: the entry registered
    s2_valid: DFF<Bit>,
    s2_entry: DFF<Bits<224>>,
    s2_key: DFF<Bits<32>>,
    s2_pd: DFF<Bits<16>>,
    s2_addr: DFF<Bits<64>>,
    s2_len: DFF<Bits<32>>,
    s2_need: DFF<Bits<3>>,
    s2_tag: DFF<Bits<16>>,
    // S3: the sums
    s3_valid: DFF<Bit>,
    s3_zero: DFF<Bit>,
    s3_granted: DFF<Bit>,
    s3_end: DFF<Bits<65>>,
    s3_off: DFF<Bits<65>>,
    s3_limit: DFF<Bits<65>>,
    s3_base: DFF<Bits<44>>,
    s3_tag: DFF<Bits<16>>,
    // S4: the compare's halves, the bus address
    s4_valid: DFF<Bit>,
    s4_zero: DFF<Bit>,
    /// Granted, no borrow below the region, no carry past 2^64.
    s4_inside: DFF<Bit>,
    s4_hi_lt: DFF<Bit>,
    s4_hi_eq: DFF<Bit>,
    s4_lo_le: DFF<Bit>,
    s4_bus: DFF<Bits<64>>,
    s4_tag: DFF<Bits<16>>,
    // S5: the answer
    o_valid: DFF<Bit>,
    o_ok: DFF<Bit>,
    o_bus: DFF<Bits<64>>,
    o_tag: DFF<Bits<16>>,
    iova: Signal<Local, Bits<64>>,
    granted: Signal<Local, Bit>,
}

impl Default for RdmaMrCheck {
    fn default() -> Self {
        // the bit positions the update below reads
        assert!(mrc::VALID.word == 0 && mrc::VALID.lsb == 0 && mrc::ACCESS.word == 0 && mrc::ACCESS.lsb == 1 && mrc::ACCESS.width == 3);
        assert!(mrc::PD.word == 0 && mrc::PD.lsb == 16 && mrc::KEY.word == 1 && mrc::IOVA_LO.word == 2 && mrc::IOVA_HI.word == 3);
        assert!(mrc::LENGTH.word == 4 && mrc::BUS_LO.word == 5 && mrc::BUS_HI.word == 6 && mrc::BUS_HI.width == 12);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            mr_wr: Default::default(),
            mr_wr_index: Default::default(),
            mr_wr_entry: Default::default(),
            in_valid: Default::default(),
            in_key: Default::default(),
            in_pd: Default::default(),
            in_addr: Default::default(),
            in_len: Default::default(),
            in_need: Default::default(),
            in_tag: Default::default(),
            out_valid: Default::default(),
            out_ok: Default::default(),
            out_bus: Default::default(),
            out_tag: Default::default(),
            ram: Default::default(),
            s0_valid: Default::default(),
            s0_key: Default::default(),
            s0_pd: Default::default(),
            s0_addr: Default::default(),
            s0_len: Default::default(),
            s0_need: Default::default(),
            s0_tag: Default::default(),
            s1_valid: Default::default(),
            s1_key: Default::default(),
            s1_pd: Default::default(),
            s1_addr: Default::default(),
            s1_len: Default::default(),
            s1_need: Default::default(),
            s1_tag: Default::default(),
            r_valid: Default::default(),
            r_entry: Default::default(),
            r_key: Default::default(),
            r_pd: Default::default(),
            r_addr: Default::default(),
            r_len: Default::default(),
            r_need: Default::default(),
            r_tag: Default::default(),
            s2_valid: Default::default(),
            s2_entry: Default::default(),
            s2_key: Default::default(),
            s2_pd: Default::default(),
            s2_addr: Default::default(),
            s2_len: Default::default(),
            s2_need: Default::default(),
            s2_tag: Default::default(),
            s3_valid: Default::default(),
            s3_zero: Default::default(),
            s3_granted: Default::default(),
            s3_end: Default::default(),
            s3_off: Default::default(),
            s3_limit: Default::default(),
            s3_base: Default::default(),
            s3_tag: Default::default(),
            s4_valid: Default::default(),
            s4_zero: Default::default(),
            s4_inside: Default::default(),
            s4_hi_lt: Default::default(),
            s4_hi_eq: Default::default(),
            s4_lo_le: Default::default(),
            s4_bus: Default::default(),
            s4_tag: Default::default(),
            o_valid: Default::default(),
            o_ok: Default::default(),
            o_bus: Default::default(),
            o_tag: Default::default(),
            iova: Default::default(),
            granted: Default::default(),
        }
    }
}

impl Logic for RdmaMrCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s0_valid, s0_key, s0_pd, s0_addr, s0_len, s0_need, s0_tag, s1_valid, s1_key, s1_pd, s1_addr, s1_len, s1_need, s1_tag, r_valid, r_entry, r_key, r_pd, r_addr, r_len, r_need, r_tag, s2_valid, s2_entry, s2_key, s2_pd, s2_addr,
            s2_len, s2_need, s2_tag, s3_valid, s3_zero, s3_granted, s3_end, s3_off, s3_limit, s3_base, s3_tag, s4_valid, s4_zero, s4_inside, s4_hi_lt, s4_hi_eq, s4_lo_le, s4_bus, s4_tag, o_valid, o_ok, o_bus, o_tag);
        clock!(self, clock, ram);
        self.ram.write_enable.next = self.mr_wr.val();
        self.ram.write_address.next = self.mr_wr_index.val();
        self.ram.write_data.next = self.mr_wr_entry.val();
        // ---- the question, registered ----
        self.s0_valid.d.next = self.in_valid.val();
        self.s0_key.d.next = self.in_key.val();
        self.s0_pd.d.next = self.in_pd.val();
        self.s0_addr.d.next = self.in_addr.val();
        self.s0_len.d.next = self.in_len.val();
        self.s0_need.d.next = self.in_need.val();
        self.s0_tag.d.next = self.in_tag.val();
        // ---- S0: look the key's entry up ----
        self.ram.read_address.next = self.s0_key.q.val().get_bits::<6>(0);
        self.s1_valid.d.next = self.s0_valid.q.val();
        self.s1_key.d.next = self.s0_key.q.val();
        self.s1_pd.d.next = self.s0_pd.q.val();
        self.s1_addr.d.next = self.s0_addr.q.val();
        self.s1_len.d.next = self.s0_len.q.val();
        self.s1_need.d.next = self.s0_need.q.val();
        self.s1_tag.d.next = self.s0_tag.q.val();
        // ---- S1: the entry, registered beside the RAM ----
        self.r_valid.d.next = self.s1_valid.q.val();
        self.r_entry.d.next = self.ram.read_data.val();
        self.r_key.d.next = self.s1_key.q.val();
        self.r_pd.d.next = self.s1_pd.q.val();
        self.r_addr.d.next = self.s1_addr.q.val();
        self.r_len.d.next = self.s1_len.q.val();
        self.r_need.d.next = self.s1_need.q.val();
        self.r_tag.d.next = self.s1_tag.q.val();
        // ---- R: the entry, registered again where its users are ----
        self.s2_valid.d.next = self.r_valid.q.val();
        self.s2_entry.d.next = self.r_entry.q.val();
        self.s2_key.d.next = self.r_key.q.val();
        self.s2_pd.d.next = self.r_pd.q.val();
        self.s2_addr.d.next = self.r_addr.q.val();
        self.s2_len.d.next = self.r_len.q.val();
        self.s2_need.d.next = self.r_need.q.val();
        self.s2_tag.d.next = self.r_tag.q.val();
        // ---- S2: the key, PD and access; the range's end, the offset in the region, the region's end ----
        self.iova.next = self.s2_entry.q.val().get_bits::<64>(64);
        self.granted.next = self.s2_entry.q.val().get_bit(0)
            & (self.s2_entry.q.val().get_bits::<32>(32) == self.s2_key.q.val())
            & !self.s2_key.q.val().get_bits::<2>(6).any()
            & (self.s2_entry.q.val().get_bits::<16>(16) == self.s2_pd.q.val())
            & ((self.s2_entry.q.val().get_bits::<3>(1) & self.s2_need.q.val()) == self.s2_need.q.val());
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_zero.d.next = !self.s2_len.q.val().any();
        self.s3_granted.d.next = self.granted.val();
        self.s3_end.d.next = bit_cast::<65, 64>(self.s2_addr.q.val()) + bit_cast::<65, 32>(self.s2_len.q.val());
        self.s3_off.d.next = bit_cast::<65, 64>(self.s2_addr.q.val()) - bit_cast::<65, 64>(self.iova.val());
        self.s3_limit.d.next = bit_cast::<65, 64>(self.iova.val()) + bit_cast::<65, 32>(self.s2_entry.q.val().get_bits::<32>(128));
        self.s3_base.d.next = self.s2_entry.q.val().get_bits::<44>(160);
        self.s3_tag.d.next = self.s2_tag.q.val();
        // ---- S3: inside the region (no borrow below it, no carry past 2^64, not past its
        // end), the end's compare in halves: bits 64:32, then 31:0 ----
        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_zero.d.next = self.s3_zero.q.val();
        self.s4_inside.d.next = self.s3_granted.q.val() & !self.s3_off.q.val().get_bit(64) & !self.s3_end.q.val().get_bit(64);
        self.s4_hi_lt.d.next = self.s3_end.q.val().get_bits::<33>(32) < self.s3_limit.q.val().get_bits::<33>(32);
        self.s4_hi_eq.d.next = self.s3_end.q.val().get_bits::<33>(32) == self.s3_limit.q.val().get_bits::<33>(32);
        self.s4_lo_le.d.next = self.s3_end.q.val().get_bits::<32>(0) <= self.s3_limit.q.val().get_bits::<32>(0);
        self.s4_bus.d.next = bit_cast::<64, 44>(self.s3_base.q.val()) + bit_cast::<64, 32>(self.s3_off.q.val().get_bits::<32>(0));
        if self.s3_zero.q.val() {
            self.s4_bus.d.next = 0.into();
        }
        self.s4_tag.d.next = self.s3_tag.q.val();
        // ---- S4: the halves joined ----
        self.o_valid.d.next = self.s4_valid.q.val();
        self.o_ok.d.next = self.s4_zero.q.val()
            | (self.s4_inside.q.val() & (self.s4_hi_lt.q.val() | (self.s4_hi_eq.q.val() & self.s4_lo_le.q.val())));
        self.o_bus.d.next = self.s4_bus.q.val();
        self.o_tag.d.next = self.s4_tag.q.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_ok.next = self.o_ok.q.val();
        self.out_bus.next = self.o_bus.q.val();
        self.out_tag.next = self.o_tag.q.val();
        if self.reset.val() {
            self.s0_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.r_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.s4_valid.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
