//! Statistics counters in one block RAM.
//!
//! Every counter is a wrapping 32-bit value in a 16-bit wide RAM (word 2i its low half,
//! word 2i + 1 its high half), plus a small accumulator in flip-flops that takes the
//! datapath's per-cycle increments. A scanner folds one accumulator into the RAM every
//! other cycle (read the low half, add, write it back while reading the high half, add
//! the carry, write), so each counter is visited every 36 cycles. A counter held as 32
//! flip-flops with its own adder costs 32 LUTs and 32 flip-flops, and a source of the
//! register read mux; here it costs its accumulator (8 bits, 18 for the byte counters)
//! and a share of one adder.
//!
//! A register read asks for its counter: the scanner's next visit goes to that counter,
//! and the sum it writes back is the read's answer, so a read returns the exact count as
//! of that visit. The RAM has no reset: after reset the scanner first writes every word
//! to 0 (64 cycles), then starts; increments meanwhile wait in the accumulators, and a
//! read meanwhile waits for the clearing to end.
//!
//! The RAM (`NicRam`) never reads a word in the cycle it is written: a visit writes the
//! low half (even word) while reading the high half (odd), and the next visit starts
//! with an even word while the high half is written; while clearing, no visit reads.
//!
//! Accumulator widths: an event counter takes at most one increment a cycle, and its
//! accumulator is folded in at least every 2 × (36 + 64) cycles even while reads keep
//! taking the scanner's visits (a read takes one visit, and reads are at least four
//! cycles apart): 8 bits hold 255. A byte counter takes a frame's length (at most 65,535)
//! when the frame ends, and a frame of L bytes ends at least L / 16 cycles after the one
//! before (no datapath is wider than 16 bytes): within those 200 cycles at most 65,535 +
//! 3,200 bytes, which 18 bits hold.

use super::N_COUNTERS;
use crate::stream::NicRam;
use rust_hdl::prelude::*;

/// Accumulator width (the byte counters' width; event counters keep 8 of these bits).
pub type Acc = Bits<18>;

#[derive(LogicBlock)]
pub struct StatsCounters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Per-cycle increments (COUNTER_REGS order), at most 65,535 (accumulator-wide so
    /// that no cast sits in the per-counter loop: hdl_gen loses the loop index there).
    pub inc: [Signal<In, Acc>; N_COUNTERS],
    /// Read counter `rd_index`: held high until `rd_valid`.
    pub rd_req: Signal<In, Bit>,
    pub rd_index: Signal<In, Bits<5>>,
    /// One cycle: `rd_data` is the requested counter's value.
    pub rd_valid: Signal<Out, Bit>,
    pub rd_data: Signal<Out, Bits<32>>,
    ram: NicRam<Bits<16>, 6>,
    acc: [DFF<Acc>; N_COUNTERS],
    /// The bits accumulator i keeps: 8, 18 for the byte counters, none for a counter the
    /// build lacks (its flip-flops have a constant 0 next value and are removed).
    acc_bits: [Constant<Acc>; N_COUNTERS],
    id: [Constant<Bits<5>>; N_COUNTERS],
    last_id: Constant<Bits<5>>,
    /// Clearing the RAM after reset while bit 6 is 0.
    clear_idx: DFF<Bits<7>>,
    /// The counter the scanner visits next.
    scan: DFF<Bits<5>>,
    /// A visit for a read is under way.
    rd_busy: DFF<Bit>,
    // stage 1: the low half is read
    s1_valid: DFF<Bit>,
    s1_idx: DFF<Bits<5>>,
    s1_add: DFF<Acc>,
    s1_read: DFF<Bit>,
    // stage 2: the high half is read
    s2_valid: DFF<Bit>,
    s2_idx: DFF<Bits<5>>,
    s2_carry: DFF<Bits<3>>,
    s2_lo: DFF<Bits<16>>,
    s2_read: DFF<Bit>,
    clearing: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    slot: Signal<Local, Bits<5>>,
    slot_read: Signal<Local, Bit>,
    slot_acc: Signal<Local, Acc>,
    lo_sum: Signal<Local, Bits<19>>,
    hi_sum: Signal<Local, Bits<16>>,
}

impl StatsCounters {
    /// `present[i]`: the build has what increments counter i; `wide[i]`: counter i counts
    /// bytes (an 18-bit accumulator instead of 8).
    pub fn new(present: [bool; N_COUNTERS], wide: [bool; N_COUNTERS]) -> Self {
        let bits = |i: usize| match (present[i], wide[i]) {
            (false, _) => 0u64,
            (true, false) => 0xff,
            (true, true) => 0x3_ffff,
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            rd_req: Default::default(),
            rd_index: Default::default(),
            rd_valid: Default::default(),
            rd_data: Default::default(),
            ram: Default::default(),
            acc: Default::default(),
            acc_bits: std::array::from_fn(|i| Constant::new(Acc::from(bits(i)))),
            id: std::array::from_fn(|i| Constant::new(Bits::<5>::from(i as u64))),
            last_id: Constant::new(Bits::<5>::from(N_COUNTERS as u64 - 1)),
            clear_idx: Default::default(),
            scan: Default::default(),
            rd_busy: Default::default(),
            s1_valid: Default::default(),
            s1_idx: Default::default(),
            s1_add: Default::default(),
            s1_read: Default::default(),
            s2_valid: Default::default(),
            s2_idx: Default::default(),
            s2_carry: Default::default(),
            s2_lo: Default::default(),
            s2_read: Default::default(),
            clearing: Default::default(),
            start: Default::default(),
            slot: Default::default(),
            slot_read: Default::default(),
            slot_acc: Default::default(),
            lo_sum: Default::default(),
            hi_sum: Default::default(),
        }
    }
}

impl Logic for StatsCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, clear_idx, scan, rd_busy, s1_valid, s1_idx, s1_add, s1_read, s2_valid, s2_idx, s2_carry, s2_lo, s2_read);
        self.ram.clock.next = self.clock.val();
        self.clearing.next = !self.clear_idx.q.val().get_bit(6);
        if self.clearing.val() {
            self.clear_idx.d.next = self.clear_idx.q.val() + 1;
        }
        // stage 0: pick a counter (a read's first) and take its accumulator; the read
        // port is the low half's, so not while stage 1 reads a high half
        self.start.next = !self.clearing.val() & !self.s1_valid.q.val();
        self.slot.next = self.scan.q.val();
        self.slot_read.next = false;
        if self.rd_req.val() & !self.rd_busy.q.val() {
            self.slot.next = self.rd_index.val();
            self.slot_read.next = true;
        }
        self.slot_acc.next = 0.into();
        for i in 0..18 {
            self.acc[i].clock.next = self.clock.val();
            self.acc[i].d.next = (self.acc[i].q.val() + self.inc[i].val()) & self.acc_bits[i].val();
            if self.slot.val() == self.id[i].val() {
                self.slot_acc.next = self.acc[i].q.val();
                if self.start.val() {
                    self.acc[i].d.next = self.inc[i].val() & self.acc_bits[i].val();
                }
            }
        }
        self.ram.read_address.next = bit_cast::<6, 5>(self.slot.val()) << 1;
        self.s1_valid.d.next = self.start.val();
        self.s1_idx.d.next = self.slot.val();
        self.s1_add.d.next = self.slot_acc.val();
        self.s1_read.d.next = self.slot_read.val();
        if self.start.val() {
            if self.slot_read.val() {
                self.rd_busy.d.next = true;
            } else if self.scan.q.val() == self.last_id.val() {
                self.scan.d.next = 0.into();
            } else {
                self.scan.d.next = self.scan.q.val() + 1;
            }
        }
        // stage 1: low half + accumulator, written back; the high half is read
        self.lo_sum.next = bit_cast::<19, 16>(self.ram.read_data.val()) + bit_cast::<19, 18>(self.s1_add.q.val());
        self.ram.write_enable.next = false;
        self.ram.write_address.next = bit_cast::<6, 5>(self.s1_idx.q.val()) << 1;
        self.ram.write_data.next = self.lo_sum.val().get_bits::<16>(0);
        if self.s1_valid.q.val() {
            self.ram.read_address.next = (bit_cast::<6, 5>(self.s1_idx.q.val()) << 1) | 1;
            self.ram.write_enable.next = true;
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_idx.d.next = self.s1_idx.q.val();
        self.s2_carry.d.next = self.lo_sum.val().get_bits::<3>(16);
        self.s2_lo.d.next = self.lo_sum.val().get_bits::<16>(0);
        self.s2_read.d.next = self.s1_valid.q.val() & self.s1_read.q.val();
        // stage 2: high half + carry, written back (the write port is free: stage 1 of
        // the next visit is a cycle away); a read's visit answers it
        self.hi_sum.next = self.ram.read_data.val() + bit_cast::<16, 3>(self.s2_carry.q.val());
        if self.s2_valid.q.val() {
            self.ram.write_enable.next = true;
            self.ram.write_address.next = (bit_cast::<6, 5>(self.s2_idx.q.val()) << 1) | 1;
            self.ram.write_data.next = self.hi_sum.val();
        }
        self.rd_valid.next = self.s2_read.q.val();
        self.rd_data.next = (bit_cast::<32, 16>(self.hi_sum.val()) << 16) | bit_cast::<32, 16>(self.s2_lo.q.val());
        if self.s2_read.q.val() {
            self.rd_busy.d.next = false;
        }
        if self.clearing.val() {
            self.ram.write_enable.next = true;
            self.ram.write_address.next = self.clear_idx.q.val().get_bits::<6>(0);
            self.ram.write_data.next = 0.into();
        }
        if self.reset.val() {
            self.clear_idx.d.next = 0.into();
            self.scan.d.next = 0.into();
            self.rd_busy.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_read.d.next = false;
            for i in 0..18 {
                self.acc[i].d.next = 0.into();
            }
        }
    }
}

/// All counters present, the `_BYTES` ones wide (the `full` build's counters).
impl Default for StatsCounters {
    fn default() -> Self {
        Self::new([true; N_COUNTERS], std::array::from_fn(|i| super::counts_bytes(super::COUNTER_REGS[i])))
    }
}
