//! First-word-fall-through FIFO with a synchronous reset, on one inferred block RAM.
//!
//! rust-hdl's own `SynchronousFIFO` has no reset, and every stateful block of the NIC
//! must honour one. The RAM has a registered read port (what block RAMs offer), so the
//! read address is chosen one cycle ahead: the word at the head is re-read every cycle
//! unless the head advances. A word is readable one cycle after it was written
//! (`caught_up` compares the next read pointer with the write pointer a cycle ahead), so
//! the RAM's read of a word in the cycle it is written (undefined in `NicRam`) only ever
//! happens while the FIFO reads as empty, and its data is not used.

use super::NicRam;
use rust_hdl::prelude::*;

/// `N` address bits (depth 2^N), `NP1` = N + 1 (pointer width with the wrap bit).
#[derive(LogicBlock)]
pub struct NicFifo<D: Synth, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // write side
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    /// Registered: the FIFO held depth - 1 words or more at the end of last cycle. A
    /// writer of at most one word a cycle that writes only while it is clear never finds
    /// the FIFO full, and its write enable comes from a flip-flop, not from the pointers'
    /// compare (156.25 MHz).
    pub almost_full: Signal<Out, Bit>,
    /// Words stored (including the one at the head), for credit checks.
    pub count: Signal<Out, Bits<NP1>>,
    // read side
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    ram: NicRam<D, N>,
    wr_ptr: DFF<Bits<NP1>>,
    /// The head is the word written last cycle or not written yet: `rd_ptr` equals last
    /// cycle's `wr_ptr`. One flip-flop where a delayed copy of the write pointer took
    /// N + 1 (each a logic cell of its own on the iCE40: a flip-flop fed by a flip-flop).
    caught_up: DFF<Bit>,
    /// Next word to read: the head is at `rd_ptr`.
    rd_ptr: DFF<Bits<NP1>>,
    /// The RAM's output register holds the word at `rd_ptr`.
    head_loaded: DFF<Bit>,
    depth: Constant<Bits<NP1>>,
    almost_full_q: DFF<Bit>,
    /// The FIFO holds depth words, registered so that the RAM's write enable (and, on the
    /// ECP5, the byte enables of a 36-bit-wide DP16KD, which share its address pins)
    /// waits on a flip-flop, not on a pointer compare (156.25 MHz). Its next value is a
    /// compare of the current pointers chosen by the write and read decisions, not a
    /// compare of the next pointers, which would put the read pointer's increment and
    /// the caller's read decision before the compare.
    full_q: DFF<Bit>,
    wr_next: Signal<Local, Bits<NP1>>,
    /// `wr_ptr + 1` at the pointer's own width. rust-hdl writes `(wr_ptr + 1) ^ next_rd`
    /// inside a compare as Verilog, where the sum takes the 32-bit width of the literal
    /// and does not wrap: at `wr_ptr` = 2^(N+1) - 1 the FIFO then never read as full and
    /// the next write overwrote its head (found by the AXI backpressure proptest). A
    /// signal of NP1 bits wraps in both the rust-hdl simulator and the Verilog.
    wr_plus_one: Signal<Local, Bits<NP1>>,
    depth_less_one: Constant<Bits<NP1>>,
    do_write: Signal<Local, Bit>,
    do_read: Signal<Local, Bit>,
    /// `rd_ptr + 1`, at the pointer's width (as `wr_plus_one`).
    rd_plus_one: Signal<Local, Bits<NP1>>,
    next_rd: Signal<Local, Bits<NP1>>,
    /// `with_fast_read`: `rd_plus_one` from `rd_p1`, not from an adder.
    fast_read: Constant<Bit>,
    /// `rd_ptr + 1` kept in flip-flops (`with_fast_read`; synthesis removes it otherwise).
    rd_p1: DFF<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize> NicFifo<D, N, NP1> {
    /// The next read address without an adder in front of the RAM: `rd_ptr + 1` is kept
    /// in flip-flops beside `rd_ptr`, so a read's new address is a mux of two registers
    /// (the RX engine's descriptor fetchers: their pointer's carry chain in front of the
    /// LUT RAM's read was 1 ns of a 6.68 ns path, 156.25 MHz). N + 1 flip-flops and their
    /// incrementer more; off by default, as the iCE40 build has no cells to spare.
    pub fn with_fast_read(self, on: bool) -> Self {
        Self { fast_read: Constant::new(on), ..self }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Default for NicFifo<D, N, NP1> {
    fn default() -> Self {
        assert_eq!(N + 1, NP1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            almost_full: Default::default(),
            count: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            ram: Default::default(),
            wr_ptr: Default::default(),
            caught_up: Default::default(),
            rd_ptr: Default::default(),
            head_loaded: Default::default(),
            depth: Constant::new(Bits::<NP1>::from(1u64 << N)),
            almost_full_q: Default::default(),
            full_q: Default::default(),
            wr_next: Default::default(),
            wr_plus_one: Default::default(),
            depth_less_one: Constant::new(Bits::<NP1>::from((1u64 << N) - 1)),
            do_write: Default::default(),
            do_read: Default::default(),
            rd_plus_one: Default::default(),
            next_rd: Default::default(),
            fast_read: Constant::new(false),
            rd_p1: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Logic for NicFifo<D, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, caught_up, rd_ptr, head_loaded, almost_full_q, full_q, rd_p1);
        self.ram.clock.next = self.clock.val();
        // write side
        self.count.next = self.wr_ptr.q.val() - self.rd_ptr.q.val();
        self.full.next = self.full_q.q.val();
        self.almost_full_q.d.next = self.count.val() >= self.depth_less_one.val();
        self.almost_full.next = self.almost_full_q.q.val();
        // The write and read decisions (`write`, `read`) are often a caller's late
        // signals, so every flag below is computed from the registers first, for each
        // outcome, and the decisions only choose at the end (156.25 MHz).
        self.do_write.next = self.write.val() & !self.full.val();
        self.ram.write_enable.next = self.do_write.val();
        self.ram.write_address.next = bit_cast::<N, NP1>(self.wr_ptr.q.val());
        self.ram.write_data.next = self.data_in.val();
        self.wr_plus_one.next = self.wr_ptr.q.val() + 1;
        self.wr_next.next = self.wr_ptr.q.val();
        if self.do_write.val() {
            self.wr_next.next = self.wr_plus_one.val();
        }
        self.wr_ptr.d.next = self.wr_next.val();
        // read side: the head is valid once written a cycle ago and loaded into the RAM register
        self.empty.next = !self.head_loaded.q.val() | self.caught_up.q.val();
        self.data_out.next = self.ram.read_data.val();
        self.do_read.next = self.read.val() & !self.empty.val();
        self.rd_plus_one.next = self.rd_ptr.q.val() + 1;
        if self.fast_read.val() {
            self.rd_plus_one.next = self.rd_p1.q.val();
        }
        self.rd_p1.d.next = self.rd_p1.q.val();
        self.next_rd.next = self.rd_ptr.q.val();
        self.caught_up.d.next = self.rd_ptr.q.val() == self.wr_ptr.q.val();
        if self.do_read.val() {
            self.next_rd.next = self.rd_plus_one.val();
            self.caught_up.d.next = self.rd_plus_one.val() == self.wr_ptr.q.val();
            self.rd_p1.d.next = self.rd_p1.q.val() + 1;
        }
        self.rd_ptr.d.next = self.next_rd.val();
        self.ram.read_address.next = bit_cast::<N, NP1>(self.next_rd.val());
        self.head_loaded.d.next = true;
        // Full next cycle (depth words). With neither a write nor a read it stays as it
        // is; a write alone (never while full) fills it when it held depth - 1 words, the
        // pointers one write apart from differing in their wrap bit only; after a read,
        // with or without a write, it holds fewer than depth.
        self.full_q.d.next = self.full_q.q.val();
        if self.do_write.val() {
            self.full_q.d.next = (self.wr_plus_one.val() ^ self.rd_ptr.q.val()) == self.depth.val();
        }
        if self.do_read.val() {
            self.full_q.d.next = false;
        }
        if self.reset.val() {
            self.wr_ptr.d.next = 0.into();
            self.caught_up.d.next = true;
            self.rd_ptr.d.next = 0.into();
            self.rd_p1.d.next = 1.into();
            self.head_loaded.d.next = false;
            self.almost_full_q.d.next = false;
            self.full_q.d.next = false;
        }
    }
}
