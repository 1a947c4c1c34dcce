//! Asynchronous (dual-clock) first-word-fall-through FIFO with Gray-code pointers.
//!
//! `2^N` entries (`NP1` = N + 1, the pointer width with its wrap bit) in one `RAM<D, N>`
//! written on `wr_clock` and read on `rd_clock` (a true dual-clock block RAM on the FPGA).
//!
//! # Why it is safe across unrelated clocks
//! * Each side owns one binary pointer and a *registered* Gray-code copy of it. Only the
//!   Gray copy crosses to the other domain. Consecutive Gray values differ in exactly one
//!   bit, so when the receiving flop samples a pointer while it changes, at most one bit
//!   is uncertain and the sampled value is either the old or the new pointer — never a
//!   mix of the two (a binary pointer going 0111 -> 1000 could be sampled as anything).
//!   The Gray copy is a flop, not logic, so no combinational glitch can be sampled.
//!   The pointer advances at most once per cycle of its own clock, so even a slower
//!   receiver sees a value the pointer really had at some recent time.
//! * Two flops in series in the receiving domain (`*_s1`, `*_s2`): the first may go
//!   metastable when it samples during a change; a whole clock period is left for it to
//!   resolve before the second flop takes it, which makes the failure rate negligible at
//!   these clock rates. Nothing but the second flop reads the first.
//! * A synchronized pointer is always old (3..4 receiving cycles late: two synchronizer
//!   flops and a register after the Gray-to-binary conversion, which keeps the
//!   conversion out of the paths that compute the free count and the next pointer), and a stale
//!   pointer only errs on the safe side: the writer sees a read pointer that is at most
//!   behind the real one, so `wr_free` counts fewer free entries than there are and
//!   `full` may stay set a little long, never too short (no overwrite). `full` and
//!   `wr_free` are themselves registers, made from the write pointer as this cycle's
//!   write leaves it and the reader's pointer as seen in this cycle (one cycle older
//!   again, so still safe): the writer's decision drives only the choice between the two
//!   precomputed outcomes, not a subtraction and a compare in front of the RAM's write
//!   enable (the ECPIX-5 flow's worst path in the RGMII receive domain, 9.65 ns against
//!   125 MHz's 8 ns). The reader sees a
//!   write pointer that is behind, so `valid` may come late, never early (no read of an
//!   unwritten word). The same reasoning makes `rd_fill` a lower bound.
//! * The RAM has a registered read port. As in `stream::NicFifo` the read address is the
//!   *next* read pointer, so the head is re-read every `rd_clock` edge; a word becomes
//!   visible to the reader only after its write pointer has gone through the Gray register
//!   and two reader flops, i.e. at least one whole reader cycle after the RAM was written,
//!   so the dual-clock RAM is never read at the address being written.
//!
//! # Resets
//! Each side has its own synchronous reset (`wr_reset` on `wr_clock`, `rd_reset` on
//! `rd_clock`), which clears its pointers and its synchronizer flops. The board top
//! synchronizes one reset into each domain and holds both together for many cycles of
//! both clocks, so both sides come out of reset empty and agreeing. Resetting one side
//! alone is not supported (the FIFO would be inconsistent until both were reset).
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CdcFifo<D: Synth, const N: usize, const NP1: usize> {
    // write side (wr_clock)
    pub wr_clock: Signal<In, Clock>,
    pub wr_reset: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub write: Signal<In, Bit>,
    pub full: Signal<Out, Bit>,
    /// Free entries as the writer sees them (a lower bound of the real number).
    pub wr_free: Signal<Out, Bits<NP1>>,
    // read side (rd_clock)
    pub rd_clock: Signal<In, Clock>,
    pub rd_reset: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    /// `data_out` holds the head word (first-word-fall-through).
    pub valid: Signal<Out, Bit>,
    /// Pops the head when `valid`.
    pub read: Signal<In, Bit>,
    /// Words stored as the reader sees them (a lower bound of the real number).
    pub rd_fill: Signal<Out, Bits<NP1>>,
    ram: RAM<D, N>,
    // wr_clock domain
    wr_bin: DFF<Bits<NP1>>,
    wr_gray: DFF<Bits<NP1>>,
    rd_gray_s1: DFF<Bits<NP1>>,
    rd_gray_s2: DFF<Bits<NP1>>,
    /// The reader's pointer in binary, registered: the Gray-to-binary fold and the
    /// free-count subtraction would otherwise be one path into `wr_gray` (ECPIX-5 board
    /// flow: 87.7 MHz against the RGMII receive clock's 125 MHz).
    rd_seen_q: DFF<Bits<NP1>>,
    /// `full` and `wr_free` as registers (see above).
    full_q: DFF<Bit>,
    free_q: DFF<Bits<NP1>>,
    // rd_clock domain
    rd_bin: DFF<Bits<NP1>>,
    rd_gray: DFF<Bits<NP1>>,
    head_loaded: DFF<Bit>,
    wr_gray_s1: DFF<Bits<NP1>>,
    wr_gray_s2: DFF<Bits<NP1>>,
    /// The writer's pointer in binary, registered (as `rd_seen_q`).
    wr_seen_q: DFF<Bits<NP1>>,
    depth: Constant<Bits<NP1>>,
    // write-side scratch
    wr_next: Signal<Local, Bits<NP1>>,
    rd_seen_a: Signal<Local, Bits<NP1>>,
    rd_seen_b: Signal<Local, Bits<NP1>>,
    rd_seen_c: Signal<Local, Bits<NP1>>,
    rd_seen: Signal<Local, Bits<NP1>>,
    /// Free entries with this cycle's write or without it.
    free_keep: Signal<Local, Bits<NP1>>,
    free_wrote: Signal<Local, Bits<NP1>>,
    do_write: Signal<Local, Bit>,
    // read-side scratch
    rd_next: Signal<Local, Bits<NP1>>,
    wr_seen_a: Signal<Local, Bits<NP1>>,
    wr_seen_b: Signal<Local, Bits<NP1>>,
    wr_seen_c: Signal<Local, Bits<NP1>>,
    wr_seen: Signal<Local, Bits<NP1>>,
    do_read: Signal<Local, Bit>,
}

impl<D: Synth, const N: usize, const NP1: usize> Default for CdcFifo<D, N, NP1> {
    fn default() -> Self {
        assert_eq!(N + 1, NP1);
        // the Gray-to-binary conversion below folds 1, 2, 4, 8 bits: pointers up to 16 bits
        assert!(NP1 <= 16);
        Self {
            wr_clock: Default::default(),
            wr_reset: Default::default(),
            data_in: Default::default(),
            write: Default::default(),
            full: Default::default(),
            wr_free: Default::default(),
            rd_clock: Default::default(),
            rd_reset: Default::default(),
            data_out: Default::default(),
            valid: Default::default(),
            read: Default::default(),
            rd_fill: Default::default(),
            ram: Default::default(),
            wr_bin: Default::default(),
            wr_gray: Default::default(),
            rd_gray_s1: Default::default(),
            rd_gray_s2: Default::default(),
            rd_seen_q: Default::default(),
            full_q: Default::default(),
            free_q: Default::default(),
            rd_bin: Default::default(),
            rd_gray: Default::default(),
            head_loaded: Default::default(),
            wr_gray_s1: Default::default(),
            wr_gray_s2: Default::default(),
            wr_seen_q: Default::default(),
            depth: Constant::new(Bits::<NP1>::from(1u64 << N)),
            wr_next: Default::default(),
            rd_seen_a: Default::default(),
            rd_seen_b: Default::default(),
            rd_seen_c: Default::default(),
            rd_seen: Default::default(),
            free_keep: Default::default(),
            free_wrote: Default::default(),
            do_write: Default::default(),
            rd_next: Default::default(),
            wr_seen_a: Default::default(),
            wr_seen_b: Default::default(),
            wr_seen_c: Default::default(),
            wr_seen: Default::default(),
            do_read: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Logic for CdcFifo<D, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, wr_clock, wr_bin, wr_gray, rd_gray_s1, rd_gray_s2, rd_seen_q, full_q, free_q);
        dff_setup!(self, rd_clock, rd_bin, rd_gray, head_loaded, wr_gray_s1, wr_gray_s2, wr_seen_q);
        self.ram.write_clock.next = self.wr_clock.val();
        self.ram.read_clock.next = self.rd_clock.val();

        // ---- write side ----
        // the reader's Gray pointer through two flops, then back to binary (prefix xor)
        self.rd_gray_s1.d.next = self.rd_gray.q.val();
        self.rd_gray_s2.d.next = self.rd_gray_s1.q.val();
        self.rd_seen_a.next = self.rd_gray_s2.q.val() ^ (self.rd_gray_s2.q.val() >> 1);
        self.rd_seen_b.next = self.rd_seen_a.val() ^ (self.rd_seen_a.val() >> 2);
        self.rd_seen_c.next = self.rd_seen_b.val() ^ (self.rd_seen_b.val() >> 4);
        self.rd_seen.next = self.rd_seen_c.val() ^ (self.rd_seen_c.val() >> 8);
        // one more cycle old: still a pointer the reader really had, so still safe
        self.rd_seen_q.d.next = self.rd_seen.val();
        self.full.next = self.full_q.q.val();
        self.wr_free.next = self.free_q.q.val();
        self.do_write.next = self.write.val() & !self.full_q.q.val();
        // next cycle's free count: depth - (wr_next - rd_seen_q), either way
        self.free_keep.next = self.rd_seen_q.q.val() + self.depth.val() - self.wr_bin.q.val();
        self.free_wrote.next = self.free_keep.val() - 1;
        self.free_q.d.next = self.free_keep.val();
        self.full_q.d.next = self.free_keep.val() == 0;
        if self.do_write.val() {
            self.free_q.d.next = self.free_wrote.val();
            self.full_q.d.next = self.free_keep.val() == 1;
        }
        self.ram.write_enable.next = self.do_write.val();
        self.ram.write_address.next = bit_cast::<N, NP1>(self.wr_bin.q.val());
        self.ram.write_data.next = self.data_in.val();
        self.wr_next.next = self.wr_bin.q.val();
        if self.do_write.val() {
            self.wr_next.next = self.wr_bin.q.val() + 1;
        }
        self.wr_bin.d.next = self.wr_next.val();
        // registered Gray copy, in step with wr_bin
        self.wr_gray.d.next = self.wr_next.val() ^ (self.wr_next.val() >> 1);
        if self.wr_reset.val() {
            self.wr_bin.d.next = 0.into();
            self.wr_gray.d.next = 0.into();
            self.rd_gray_s1.d.next = 0.into();
            self.rd_gray_s2.d.next = 0.into();
            self.rd_seen_q.d.next = 0.into();
            self.full_q.d.next = false;
            self.free_q.d.next = self.depth.val();
        }

        // ---- read side ----
        self.wr_gray_s1.d.next = self.wr_gray.q.val();
        self.wr_gray_s2.d.next = self.wr_gray_s1.q.val();
        self.wr_seen_a.next = self.wr_gray_s2.q.val() ^ (self.wr_gray_s2.q.val() >> 1);
        self.wr_seen_b.next = self.wr_seen_a.val() ^ (self.wr_seen_a.val() >> 2);
        self.wr_seen_c.next = self.wr_seen_b.val() ^ (self.wr_seen_b.val() >> 4);
        self.wr_seen.next = self.wr_seen_c.val() ^ (self.wr_seen_c.val() >> 8);
        self.wr_seen_q.d.next = self.wr_seen.val();
        self.rd_fill.next = self.wr_seen_q.q.val() - self.rd_bin.q.val();
        self.valid.next = self.head_loaded.q.val() & (self.wr_seen_q.q.val() != self.rd_bin.q.val());
        self.data_out.next = self.ram.read_data.val();
        self.do_read.next = self.read.val() & self.valid.val();
        self.rd_next.next = self.rd_bin.q.val();
        if self.do_read.val() {
            self.rd_next.next = self.rd_bin.q.val() + 1;
        }
        self.rd_bin.d.next = self.rd_next.val();
        self.rd_gray.d.next = self.rd_next.val() ^ (self.rd_next.val() >> 1);
        // the RAM register is loaded with the head at every rd_clock edge
        self.ram.read_address.next = bit_cast::<N, NP1>(self.rd_next.val());
        self.head_loaded.d.next = true;
        if self.rd_reset.val() {
            self.rd_bin.d.next = 0.into();
            self.rd_gray.d.next = 0.into();
            self.head_loaded.d.next = false;
            self.wr_gray_s1.d.next = 0.into();
            self.wr_gray_s2.d.next = 0.into();
            self.wr_seen_q.d.next = 0.into();
        }
    }
}
