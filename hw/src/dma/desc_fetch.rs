//! Descriptor fetch, shared by the TX and RX engines.
//!
//! Reads up to 8 descriptors per request (never across the ring's end) into a 32-entry
//! FIFO, one request in flight at a time. Fetching starts while 24 are still queued: a
//! fetch's response waits behind the data responses already in flight on the shared,
//! in-order read channel, and the queue must not run dry meanwhile. A request is issued only while the FIFO has
//! room for all it asks for, so the shared read-response channel never waits on us.
//! The request is latched before it is offered, so address and length hold still until
//! the port accepts it (a doorbell meanwhile waits for the next fetch).
//! `fetch_ptr` advances when the request is accepted; descriptors pop out in ring order.
//! The DMA port's read beats are 16 bytes: one descriptor per beat.

use super::BusAddr;
use crate::stream::{NicFifo, RegSlice};
use rust_hdl::prelude::*;

/// Descriptor as stored: [63:0] address, [79:64] length, [95:80] flags, [111:96] bytes
/// 12..14 (a TX context descriptor's `hdr_len`). In a data descriptor bit 44 is replaced
/// by "the address has a bit at or above `DMA_ADDR_BITS`" (`desc_addr_bad`), so the
/// engines read bits 44:0 of the address field and nothing above: on an iCE40, whose
/// block RAMs are 16 bits wide, bits 63:48 then take no block RAM. A context descriptor
/// (flags & `context_flag`) is stored as it came: its address field is offload data.
pub type DescWord = Bits<112>;

#[derive(LogicBlock)]
pub struct DescFetch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The queue runs (enabled and not stopped). Low: pointers reset, FIFO flushed.
    pub active: Signal<In, Bit>,
    pub ring_base: Signal<In, BusAddr>,
    pub ring_mask: Signal<In, Bits<16>>,
    pub tail: Signal<In, Bits<16>>,
    // read request
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_addr: Signal<Out, Bits<64>>,
    pub req_len: Signal<Out, Bits<16>>,
    // read response (already routed by tag)
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_data: Signal<In, Bits<128>>,
    pub rsp_last: Signal<In, Bit>,
    pub rsp_error: Signal<In, Bit>,
    // descriptors out (first word fall through)
    pub desc_valid: Signal<Out, Bit>,
    /// The address field as stored (see `DescWord`): a data descriptor's buffer address
    /// is bits 43:0.
    pub desc_addr: Signal<Out, Bits<64>>,
    /// A data descriptor's buffer address has a bit at or above `DMA_ADDR_BITS`.
    pub desc_addr_bad: Signal<Out, Bit>,
    pub desc_len: Signal<Out, Bits<16>>,
    pub desc_flags: Signal<Out, Bits<16>>,
    pub desc_extra: Signal<Out, Bits<16>>,
    pub desc_pop: Signal<In, Bit>,
    /// The FIFO holds a whole TX frame: a descriptor with `EOP` (flags bit 0), or 24 or
    /// more descriptors (a frame longer than that is served as it arrives).
    pub frame_ready: Signal<Out, Bit>,
    /// Nothing posted that is not already in the FIFO or on its way.
    pub ring_empty: Signal<Out, Bit>,
    /// Pulses when a fetch was refused by the host.
    pub fault: Signal<Out, Bit>,
    /// No fetch in flight: nothing fetched for an old ring can arrive any more.
    pub idle: Signal<Out, Bit>,
    fifo: NicFifo<DescWord, 5, 6>,
    /// The FIFO's head in flip-flops (`with_head_slice`, the RX engine's fetchers in
    /// `full`): the engine's decisions at a frame's first beat start from a register,
    /// not from the FIFO's RAM output behind its read pointer, and its pop ends in the
    /// slice's registers, not in the FIFO's pointer and full logic (both were the RX
    /// engine's failing paths at speed 8, 8.8–9.5 ns, most of it routing to 8 queues).
    /// A skid slice: a descriptor a cycle, one cycle more from its fetch to its use.
    head: RegSlice<DescWord>,
    head_slice: Constant<Bit>,
    /// The head the outputs show: the slice's, or the FIFO's own.
    h_valid: Signal<Local, Bit>,
    h_data: Signal<Local, DescWord>,
    /// Descriptors with flags bit 0 (TX `EOP`) in the FIFO.
    eop_count: DFF<Bits<6>>,
    fetch_ptr: DFF<Bits<16>>,
    busy: DFF<Bit>,
    req_pending: DFF<Bit>,
    req_addr_r: DFF<BusAddr>,
    req_len_r: DFF<Bits<16>>,
    req_count: DFF<Bits<16>>,
    /// `busy` one cycle late: the FIFO shows a word one cycle after it was written.
    busy_settle: DFF<Bit>,
    /// The next request's size and the conditions to make it, computed a cycle ahead
    /// from the pointers and registered: the subtract, the ring-end compare and the
    /// clamps were the RX engine's critical path into the request registers (10.1 ns at
    /// speed 8). A request is made only where the cycle before was already idle
    /// (`calc_idle`: running, no fetch pending or in flight), so `fetch_ptr` and the FIFO
    /// were what the registers saw (the FIFO fills only while a fetch is in flight);
    /// a doorbell meanwhile only makes `avail` smaller than now. It costs a cycle per
    /// fetch of up to 8 descriptors.
    calc_idle: DFF<Bit>,
    count_q: DFF<Bits<4>>,
    avail_q: DFF<Bit>,
    room_q: DFF<Bit>,
    /// With the head slice (`full`'s RX fetchers), the size a cycle further ahead: the
    /// two clamps registered (`count_avail_q`, `count_end_q`, `avail_nz_q`) and only
    /// their 4-bit minimum in front of `count_q` (the subtract, the 13-bit zero test and
    /// the minimum in one cycle were 6.64 ns at speed 8). `count_q` and `avail_q` then
    /// see the pointers of two cycles ago, so a request also waits for `calc_idle2`: idle
    /// in both cycles before. One cycle more per fetch of up to 8 descriptors.
    count_avail_q: DFF<Bits<4>>,
    count_end_q: DFF<Bits<4>>,
    avail_nz_q: DFF<Bit>,
    calc_idle2: DFF<Bit>,
    /// Running with no fetch pending or in flight, this cycle.
    idle_now: Signal<Local, Bit>,
    /// Descriptors posted and not fetched yet (`tail != fetch_ptr`).
    posted: Signal<Local, Bit>,
    /// `ring_empty` a cycle late, from a register (the RX engine's drop decision reads
    /// it behind its queue mux): as if the frame asking had come a cycle earlier.
    ring_empty_q: DFF<Bit>,
    avail: Signal<Local, Bits<16>>,
    /// Entries from `fetch_ptr` to the ring's end, less one: `ring_mask` is 2^n - 1, so
    /// `mask - (ptr & mask)` is `!ptr & mask`, with no carry chain.
    to_end_m1: Signal<Local, Bits<16>>,
    /// min(posted, 8) and min(to the ring's end, 8), each from a 13-bit zero test and the
    /// low 3 bits, then the smaller of the two: a 4-bit compare where 16-bit compares and
    /// muxes were (the fetcher's critical path, 9.8 ns at speed 8 in the RX engine).
    count_avail: Signal<Local, Bits<4>>,
    count_end: Signal<Local, Bits<4>>,
    count: Signal<Local, Bits<4>>,
    /// The flags bit of a context descriptor (0: the ring has none).
    context_flag: Constant<Bits<16>>,
    /// The address bits a data descriptor may not have.
    addr_too_wide: Constant<Bits<64>>,
    addr_bad_bit: Constant<DescWord>,
    rsp_word: Signal<Local, DescWord>,
}

impl Default for DescFetch {
    fn default() -> Self {
        Self::new(0)
    }
}

impl DescFetch {
    /// `context_flag`: the flags bit that marks a context descriptor (TX: `TX_CTX`), 0
    /// for a ring without them.
    pub fn new(context_flag: u16) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            ring_base: Default::default(),
            ring_mask: Default::default(),
            tail: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_addr: Default::default(),
            req_len: Default::default(),
            rsp_valid: Default::default(),
            rsp_data: Default::default(),
            rsp_last: Default::default(),
            rsp_error: Default::default(),
            desc_valid: Default::default(),
            desc_addr: Default::default(),
            desc_addr_bad: Default::default(),
            desc_len: Default::default(),
            desc_flags: Default::default(),
            desc_extra: Default::default(),
            desc_pop: Default::default(),
            frame_ready: Default::default(),
            ring_empty: Default::default(),
            fault: Default::default(),
            idle: Default::default(),
            fifo: Default::default(),
            head: RegSlice::with_skid(true),
            head_slice: Constant::new(false),
            h_valid: Default::default(),
            h_data: Default::default(),
            eop_count: Default::default(),
            fetch_ptr: Default::default(),
            busy: Default::default(),
            req_pending: Default::default(),
            req_addr_r: Default::default(),
            req_len_r: Default::default(),
            req_count: Default::default(),
            busy_settle: Default::default(),
            calc_idle: Default::default(),
            count_q: Default::default(),
            avail_q: Default::default(),
            room_q: Default::default(),
            count_avail_q: Default::default(),
            count_end_q: Default::default(),
            avail_nz_q: Default::default(),
            calc_idle2: Default::default(),
            idle_now: Default::default(),
            posted: Default::default(),
            ring_empty_q: Default::default(),
            avail: Default::default(),
            to_end_m1: Default::default(),
            count_avail: Default::default(),
            count_end: Default::default(),
            count: Default::default(),
            context_flag: Constant::new(Bits::<16>::from(u64::from(context_flag))),
            addr_too_wide: Constant::new(Bits::<64>::from(!0u64 << nic_regmap::DMA_ADDR_BITS)),
            addr_bad_bit: Constant::new(DescWord::from(1u64 << nic_regmap::DMA_ADDR_BITS)),
            rsp_word: Default::default(),
        }
    }

    /// The FIFO's head through a register slice (see `head`), the FIFO's read address
    /// without an adder (`NicFifo::with_fast_read`) and the request size staged (see
    /// `count_avail_q`): `full`'s RX fetchers (156.25 MHz).
    pub fn with_head_slice(self, on: bool) -> Self {
        Self { head_slice: Constant::new(on), fifo: self.fifo.with_fast_read(on), ..self }
    }
}

impl Logic for DescFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, eop_count, fetch_ptr, busy, busy_settle, req_pending, req_addr_r, req_len_r, req_count, calc_idle, count_q, avail_q, room_q, ring_empty_q);
        dff_setup!(self, clock, count_avail_q, count_end_q, avail_nz_q, calc_idle2);
        self.busy_settle.d.next = self.busy.q.val();
        clock!(self, clock, fifo, head);
        self.fifo.reset.next = self.reset.val() | (!self.active.val() & !self.busy.q.val());
        // how many to ask for: min(posted, to the ring's end, 8)
        self.avail.next = self.tail.val() - self.fetch_ptr.q.val();
        self.to_end_m1.next = !self.fetch_ptr.q.val() & self.ring_mask.val();
        self.count_avail.next = bit_cast::<4, 3>(self.avail.val().get_bits::<3>(0));
        if self.avail.val().get_bits::<13>(3) != 0 {
            self.count_avail.next = 8.into();
        }
        self.count_end.next = bit_cast::<4, 3>(self.to_end_m1.val().get_bits::<3>(0)) + 1;
        if self.to_end_m1.val().get_bits::<13>(3) != 0 {
            self.count_end.next = 8.into();
        }
        self.count_avail_q.d.next = self.count_avail.val();
        self.count_end_q.d.next = self.count_end.val();
        self.posted.next = self.tail.val() != self.fetch_ptr.q.val();
        self.avail_nz_q.d.next = self.posted.val();
        self.count.next = self.count_avail.val();
        if self.count_end.val() < self.count_avail.val() {
            self.count.next = self.count_end.val();
        }
        self.avail_q.d.next = self.posted.val();
        if self.head_slice.val() {
            self.count.next = self.count_avail_q.q.val();
            if self.count_end_q.q.val() < self.count_avail_q.q.val() {
                self.count.next = self.count_end_q.q.val();
            }
            self.avail_q.d.next = self.avail_nz_q.q.val();
        }
        self.idle_now.next = self.active.val() & !self.busy.q.val() & !self.req_pending.q.val();
        self.calc_idle.d.next = self.idle_now.val();
        self.calc_idle2.d.next = self.calc_idle.q.val() & self.idle_now.val();
        self.count_q.d.next = self.count.val();
        self.room_q.d.next = self.fifo.count.val() <= 24;
        if self.idle_now.val() & self.calc_idle.q.val() & (self.calc_idle2.q.val() | !self.head_slice.val()) & self.avail_q.q.val() & self.room_q.q.val() {
            self.req_pending.d.next = true;
            self.req_addr_r.d.next = self.ring_base.val() + (bit_cast::<48, 16>(self.fetch_ptr.q.val() & self.ring_mask.val()) << 4);
            self.req_len_r.d.next = bit_cast::<16, 4>(self.count_q.q.val()) << 4;
            self.req_count.d.next = bit_cast::<16, 4>(self.count_q.q.val());
        }
        self.req_valid.next = self.req_pending.q.val();
        self.req_addr.next = bit_cast::<64, 48>(self.req_addr_r.q.val());
        self.req_len.next = self.req_len_r.q.val();
        if self.req_pending.q.val() & self.req_ready.val() {
            self.req_pending.d.next = false;
            self.busy.d.next = true;
            self.fetch_ptr.d.next = self.fetch_ptr.q.val() + self.req_count.q.val();
        }
        // responses: one descriptor per beat (bytes 0..12 kept: address, length, flags)
        self.fifo.write.next = false;
        self.rsp_word.next = bit_cast::<112, 128>(self.rsp_data.val());
        self.fifo.data_in.next = self.rsp_word.val();
        if (self.rsp_word.val().get_bits::<16>(80) & self.context_flag.val()) == 0 {
            self.fifo.data_in.next = self.rsp_word.val() & !self.addr_bad_bit.val();
            if (self.rsp_word.val().get_bits::<64>(0) & self.addr_too_wide.val()) != 0 {
                self.fifo.data_in.next = self.rsp_word.val() | self.addr_bad_bit.val();
            }
        }
        self.fault.next = false;
        if self.rsp_valid.val() {
            if self.rsp_error.val() {
                self.fault.next = true;
            } else {
                self.fifo.write.next = true;
            }
            if self.rsp_last.val() {
                self.busy.d.next = false;
            }
        }
        // the head: through the slice, or the FIFO's own
        self.head.reset.next = self.fifo.reset.val();
        self.head.s_data.next = self.fifo.data_out.val();
        self.head.s_valid.next = !self.fifo.empty.val();
        self.head.m_ready.next = self.desc_pop.val();
        self.h_valid.next = self.head.m_valid.val();
        self.h_data.next = self.head.m_data.val();
        self.fifo.read.next = self.head.s_ready.val() & !self.fifo.empty.val();
        if !self.head_slice.val() {
            self.head.s_valid.next = false;
            self.h_valid.next = !self.fifo.empty.val();
            self.h_data.next = self.fifo.data_out.val();
            self.fifo.read.next = self.desc_pop.val();
        }
        self.desc_valid.next = self.h_valid.val();
        self.desc_addr.next = self.h_data.val().get_bits::<64>(0);
        self.desc_addr_bad.next = self.h_data.val().get_bit(44);
        self.desc_len.next = self.h_data.val().get_bits::<16>(64);
        self.desc_flags.next = self.h_data.val().get_bits::<16>(80);
        self.desc_extra.next = self.h_data.val().get_bits::<16>(96);
        // descriptors with EOP in the FIFO and the slice
        self.eop_count.d.next = self.eop_count.q.val();
        if self.fifo.write.val() & self.rsp_data.val().get_bit(80) & !(self.desc_pop.val() & self.h_data.val().get_bit(80)) {
            self.eop_count.d.next = self.eop_count.q.val() + 1;
        }
        if !(self.fifo.write.val() & self.rsp_data.val().get_bit(80)) & self.desc_pop.val() & self.h_data.val().get_bit(80) {
            self.eop_count.d.next = self.eop_count.q.val() - 1;
        }
        if self.fifo.reset.val() {
            self.eop_count.d.next = 0.into();
        }
        self.frame_ready.next = (self.eop_count.q.val() != 0) | (self.fifo.count.val() >= 24);
        self.idle.next = !self.busy.q.val() & !self.busy_settle.q.val() & !self.req_pending.q.val();
        self.ring_empty_q.d.next = (self.tail.val() == self.fetch_ptr.q.val()) & !self.req_pending.q.val() & !self.busy.q.val() & !self.busy_settle.q.val() & self.fifo.empty.val() & !self.h_valid.val();
        self.ring_empty.next = self.ring_empty_q.q.val() & self.fifo.empty.val() & !self.h_valid.val();
        if self.reset.val() | !self.active.val() {
            self.fetch_ptr.d.next = 0.into();
            self.req_pending.d.next = false;
        }
        if self.reset.val() {
            self.busy.d.next = false;
        }
    }
}
