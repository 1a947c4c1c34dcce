//! Host memory in block RAM for the FPGA board (board spec section 3): the slave of
//! `nic_top`'s DMA port (docs/interfaces.md, "Host memory"), plus the UART bridge's byte
//! port and a fault log.
//!
//! **Memory.** 16 byte lanes, each one `RAM<Bits<8>, AW>` (lane j holds the bytes whose
//! window offset is j mod 16, row = offset / 16). The window is 16 * 2^AW bytes at bus
//! address `BASE` = 0x1_0000_0000; `mem_size_log2` = AW + 4. Byte lanes rather than one
//! 128-bit RAM because both DMA directions are unaligned: with one RAM per lane every
//! beat, at any alignment, touches each lane at most once (lane j at row
//! `base_row + (j < addr % 16)`), so a beat is one RAM access and a byte rotation, never a
//! read-modify-write or a second cycle; byte enables are just per-lane write enables.
//! Each RAM has one read port and one write port (block RAM in simple dual-port mode), so
//! the read and the write channel never compete with each other.
//!
//! **Reads.** An accepted request is range-checked at once (from the port's signals) and
//! queued (`NicFifo`, 8 entries: offset in the window, beats - 1, `len % 16`, tag, error
//! bit), so requests are accepted while earlier ones still stream; `dma_rd_req_ready` is
//! low only when the queue is full. The issue stage takes the next beat either from the
//! request being streamed (`iss_*` registers) or directly from the queue's head, so the
//! first beat of the next request follows the last of the previous one without a bubble.
//! Per lane j the row is `base_row + k + (j < addr % 16)`. The RAMs' registered outputs
//! go into flip-flops as they are (`r2_word`); from there they are rotated right by
//! `addr % 16` bytes, on the last beat the lanes from `len % 16` up are zeroed, and the
//! beat is written into the response queue (`oq`, 8 entries) whose head is
//! `dma_rd_rsp_*`. A beat is issued only against a credit: `credits` counts the queue's
//! free entries less the beats between the issue and the queue, so the queue never
//! refuses a beat, `dma_rd_rsp_ready` reaches only the queue's read side, the RAM read
//! ports are free while the NIC stalls (the bridge can read then), and a later write never
//! changes a beat already offered. Eight credits cover the loop from a beat leaving to the
//! beat issued with its credit arriving, so the output streams one beat per cycle while
//! `dma_rd_rsp_ready` stays 1. The lanes' read addresses are registered (`ra`, loaded as
//! the beat is issued). Latency: a request accepted in cycle t shows its first beat in
//! cycle t + 7 (queue write, queue head, the read addresses registered, RAM read, the
//! words registered, the response queue's write and its head). Before the words were
//! registered and queued (t + 3, the rotation straight from the RAMs to the port or a
//! hold register), the path from a block RAM through the rotation limited the block to 89
//! MHz at speed 8; before the addresses were registered (t + 6), the issue's choice of
//! the next row, fanned out to 32 block RAMs, to 122.8.
//! A request not wholly inside the window (or with len 0, outside the port's contract) is
//! answered by one beat with `error` = 1, `last` = 1, data 0, in order with the others.
//!
//! **Writes.** Every beat is handled in the cycle it is taken (no buffering, so the
//! response can say the data are in memory): the enabled lanes are rotated left by
//! `addr % 16` bytes into the lane RAMs. A beat is inside the window when its lowest and
//! its highest enabled byte are (lane 0 itself may lie before the window when its lanes
//! there are disabled; bytes in between are then inside too); a beat with no byte
//! enabled is harmless. The highest byte's offset, `addr - BASE + hi`, cannot wrap past
//! 2^64 when the lowest is at or above BASE unless the beat itself wraps, and then the
//! wrapped offset is huge, so the beat is refused. A beat not inside is dropped whole and marks its burst
//! failed. The response (`dma_wr_rsp_*`) is a register: one pulse in the cycle after the
//! burst's last beat was taken, with the burst's tag and error; by then the bytes are in
//! the RAM, so any read issued from that cycle on sees them.
//!
//! **Fault log.** Every refused read request (at acceptance) and every dropped write beat
//! counts one fault: `fault_count` saturates at 65535; `fault_addr`/`fault_len`/
//! `fault_write` describe the latest one (a read: its address and length; a write beat:
//! the address of its lowest enabled byte and the span up to its highest). A read and a
//! write fault in the same cycle count two and the write's is recorded. `fault_clear`
//! zeroes the count (the faults of that same cycle are then counted after the clear);
//! address, length and direction stay.
//!
//! **Bridge byte port** (`mem_*`, `mem_addr` = offset in the window, wrapped to it: the
//! bridge checks ranges with `mem_size_log2`). A bridge read takes the RAMs' read ports for
//! one cycle (its address is registered in the cycle `mem_ready` takes it, the RAMs read
//! it the next; `mem_rdata` is valid with `mem_rvalid` two cycles after the take), a
//! bridge write one lane's write port. Sharing rule, per direction: the bridge is served
//! (`mem_ready` = 1) when the DMA side does not want that port in that cycle, or when the
//! bridge was not served on that port in the previous cycle; the DMA side then waits a
//! cycle (`dma_wr_ready` = 0, or no read beat issued). So under contention the two
//! alternate: neither waits more than one cycle for the other. "DMA wants the read port"
//! is judged from registers only (a beat to issue and a credit for it), so `mem_ready` does not
//! depend on `dma_rd_rsp_ready` combinationally. With `mem_wr` and `mem_rd` both high the
//! access is a write.

use crate::stream::{NicFifo, NicRam};
use rust_hdl::prelude::*;

/// The window's bus address.
pub const HOST_MEM_BASE: u64 = 0x1_0000_0000;

#[derive(LogicBlock)]
pub struct HostMem<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // DMA port (slave side of nic_top's dma_*)
    pub dma_rd_req_valid: Signal<In, Bit>,
    pub dma_rd_req_ready: Signal<Out, Bit>,
    pub dma_rd_req_addr: Signal<In, Bits<64>>,
    pub dma_rd_req_len: Signal<In, Bits<16>>,
    pub dma_rd_req_tag: Signal<In, Bits<4>>,
    pub dma_rd_rsp_valid: Signal<Out, Bit>,
    pub dma_rd_rsp_ready: Signal<In, Bit>,
    pub dma_rd_rsp_data: Signal<Out, Bits<128>>,
    pub dma_rd_rsp_last: Signal<Out, Bit>,
    pub dma_rd_rsp_error: Signal<Out, Bit>,
    pub dma_rd_rsp_tag: Signal<Out, Bits<4>>,
    pub dma_wr_valid: Signal<In, Bit>,
    pub dma_wr_ready: Signal<Out, Bit>,
    pub dma_wr_addr: Signal<In, Bits<64>>,
    pub dma_wr_data: Signal<In, Bits<128>>,
    pub dma_wr_strb: Signal<In, Bits<16>>,
    pub dma_wr_last: Signal<In, Bit>,
    pub dma_wr_tag: Signal<In, Bits<4>>,
    pub dma_wr_rsp_valid: Signal<Out, Bit>,
    pub dma_wr_rsp_error: Signal<Out, Bit>,
    pub dma_wr_rsp_tag: Signal<Out, Bits<4>>,
    // bridge byte port
    pub mem_addr: Signal<In, Bits<32>>,
    pub mem_wr: Signal<In, Bit>,
    pub mem_wdata: Signal<In, Bits<8>>,
    pub mem_rd: Signal<In, Bit>,
    pub mem_ready: Signal<Out, Bit>,
    pub mem_rdata: Signal<Out, Bits<8>>,
    pub mem_rvalid: Signal<Out, Bit>,
    pub mem_size_log2: Signal<Out, Bits<8>>,
    // fault log
    pub fault_count: Signal<Out, Bits<16>>,
    pub fault_addr: Signal<Out, Bits<64>>,
    pub fault_len: Signal<Out, Bits<16>>,
    pub fault_write: Signal<Out, Bit>,
    pub fault_clear: Signal<In, Bit>,
    // ---- memory
    /// `NicRam`: a byte read in the cycle it is written reads undefined, which no user
    /// sees (a DMA read and write of the same byte at once are unordered anyway), so
    /// yosys adds no read-first compare and mux between the RAMs and `r2_word`.
    lane: [NicRam<Bits<8>, AW>; 16],
    lane_idx: [Constant<Bits<4>>; 16],
    base: Constant<Bits<64>>,
    win: Constant<Bits<64>>,
    size_log2: Constant<Bits<8>>,
    ones128: Constant<Bits<128>>,
    ones16: Constant<Bits<16>>,
    err_flag: Constant<Bits<53>>,
    last_flag: Constant<Bits<134>>,
    err_flag134: Constant<Bits<134>>,
    /// The response queue's entry: the beat's data, tag, `last` and `error` flags.
    oq_word: Signal<Local, Bits<134>>,
    // ---- read requests: [31:0] offset, [43:32] beats - 1, [47:44] len % 16, [51:48] tag, [52] error
    rq: NicFifo<Bits<53>, 3, 4>,
    rq_off: Signal<Local, Bits<64>>,
    rq_ok: Signal<Local, Bit>,
    rq_take: Signal<Local, Bit>,
    rq_fault: Signal<Local, Bit>,
    hd_off: Signal<Local, Bits<32>>,
    hd_nbm1: Signal<Local, Bits<12>>,
    // ---- read issue: the beat after the one issued last, when a request is streaming
    iss_active: DFF<Bit>,
    iss_row: DFF<Bits<AW>>,
    iss_s: DFF<Bits<4>>,
    iss_rem: DFF<Bits<12>>,
    iss_lenmod: DFF<Bits<4>>,
    iss_tag: DFF<Bits<4>>,
    nb_row: Signal<Local, Bits<AW>>,
    nb_s: Signal<Local, Bits<4>>,
    nb_last: Signal<Local, Bit>,
    nb_rem: Signal<Local, Bits<12>>,
    nb_lenmod: Signal<Local, Bits<4>>,
    nb_tag: Signal<Local, Bits<4>>,
    nb_err: Signal<Local, Bit>,
    have_beat: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    // ---- read output: the beat whose RAM read is under way (ram_valid, out_*), the RAMs'
    // words registered (r2_*), then rotated and trimmed into the response queue
    /// The beat issued last cycle, whose lane addresses wait in `ra`: the RAMs' read
    /// addresses come from flip-flops, not from the issue's choice of the next beat's row
    /// (fanned out to 32 block RAMs, the block's worst path at 122.8 MHz).
    a_valid: DFF<Bit>,
    a_s: DFF<Bits<4>>,
    a_last: DFF<Bit>,
    a_lenmod: DFF<Bits<4>>,
    a_tag: DFF<Bits<4>>,
    a_err: DFF<Bit>,
    ra: [DFF<Bits<AW>>; 16],
    ram_valid: DFF<Bit>,
    out_s: DFF<Bits<4>>,
    out_last: DFF<Bit>,
    out_lenmod: DFF<Bits<4>>,
    out_tag: DFF<Bits<4>>,
    out_err: DFF<Bit>,
    /// The lanes' words as they left the RAMs: nothing between a block RAM's output and
    /// these flip-flops (its clock-to-out alone is 4.3 ns of the 6.4 at 156.25 MHz).
    r2_valid: DFF<Bit>,
    r2_word: DFF<Bits<128>>,
    r2_s: DFF<Bits<4>>,
    r2_last: DFF<Bit>,
    r2_lenmod: DFF<Bits<4>>,
    r2_tag: DFF<Bits<4>>,
    r2_err: DFF<Bit>,
    /// The response queue: [127:0] data, [128] last, [129] error, [133:130] tag. A beat
    /// is issued only against a credit (`credits`: its free entries less the beats on
    /// their way), so it never refuses one and `dma_rd_rsp_ready` reaches nothing but
    /// its read side.
    oq: NicFifo<Bits<134>, 3, 4>,
    credits: DFF<Bits<4>>,
    /// `credits != 0`, registered with them.
    credit_ok: DFF<Bit>,
    credits_next: Signal<Local, Bits<4>>,
    ram_word: Signal<Local, Bits<128>>,
    s8: Signal<Local, Bits<8>>,
    rot: Signal<Local, Bits<128>>,
    ram_out: Signal<Local, Bits<128>>,
    oq_pop: Signal<Local, Bit>,
    // ---- writes
    w_off: Signal<Local, Bits<64>>,
    w_a: Signal<Local, Bits<4>>,
    w_a8: Signal<Local, Bits<8>>,
    w_first: Signal<Local, Bits<4>>,
    w_hi: Signal<Local, Bits<4>>,
    w_lo_addr: Signal<Local, Bits<64>>,
    w_ok: Signal<Local, Bit>,
    w_take: Signal<Local, Bit>,
    w_fault: Signal<Local, Bit>,
    w_row: Signal<Local, Bits<AW>>,
    w_data_rot: Signal<Local, Bits<128>>,
    w_strb_rot: Signal<Local, Bits<16>>,
    wr_fail: DFF<Bit>,
    wrsp_valid: DFF<Bit>,
    wrsp_err: DFF<Bit>,
    wrsp_tag: DFF<Bits<4>>,
    // ---- bridge
    dma_rd_want: Signal<Local, Bit>,
    br_rd_ok: Signal<Local, Bit>,
    br_wr_ok: Signal<Local, Bit>,
    br_rd_take: Signal<Local, Bit>,
    br_wr_take: Signal<Local, Bit>,
    br_row: Signal<Local, Bits<AW>>,
    br_lane: Signal<Local, Bits<4>>,
    br_rd_last: DFF<Bit>,
    br_wr_last: DFF<Bit>,
    /// A bridge read's address is in `ra` (its data come a cycle later).
    br_ra: DFF<Bit>,
    br_ra_lane: DFF<Bits<4>>,
    br_rvalid: DFF<Bit>,
    br_rlane: DFF<Bits<4>>,
    /// Per lane j: j < the beat's rotation (that lane's row is the next one).
    rd_carry: Signal<Local, Bits<16>>,
    w_carry: Signal<Local, Bits<16>>,
    // ---- fault log
    f_count: DFF<Bits<16>>,
    f_addr: DFF<Bits<64>>,
    f_len: DFF<Bits<16>>,
    f_write: DFF<Bit>,
    f_base: Signal<Local, Bits<17>>,
    f_sum: Signal<Local, Bits<17>>,
}

impl<const AW: usize> Default for HostMem<AW> {
    fn default() -> Self {
        assert!((1..=28).contains(&AW), "HostMem: AW must be 1..=28 (window at most 4 GiB)");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_req_tag: Default::default(),
            dma_rd_rsp_valid: Default::default(),
            dma_rd_rsp_ready: Default::default(),
            dma_rd_rsp_data: Default::default(),
            dma_rd_rsp_last: Default::default(),
            dma_rd_rsp_error: Default::default(),
            dma_rd_rsp_tag: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_last: Default::default(),
            dma_wr_tag: Default::default(),
            dma_wr_rsp_valid: Default::default(),
            dma_wr_rsp_error: Default::default(),
            dma_wr_rsp_tag: Default::default(),
            mem_addr: Default::default(),
            mem_wr: Default::default(),
            mem_wdata: Default::default(),
            mem_rd: Default::default(),
            mem_ready: Default::default(),
            mem_rdata: Default::default(),
            mem_rvalid: Default::default(),
            mem_size_log2: Default::default(),
            fault_count: Default::default(),
            fault_addr: Default::default(),
            fault_len: Default::default(),
            fault_write: Default::default(),
            fault_clear: Default::default(),
            lane: Default::default(),
            lane_idx: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64))),
            base: Constant::new(Bits::<64>::from(HOST_MEM_BASE)),
            win: Constant::new(Bits::<64>::from(16u64 << AW)),
            size_log2: Constant::new(Bits::<8>::from(AW as u64 + 4)),
            ones128: Constant::new(!Bits::<128>::default()),
            ones16: Constant::new(!Bits::<16>::default()),
            err_flag: Constant::new(Bits::<53>::from(1u64 << 52)),
            last_flag: Constant::new(Bits::<134>::from(1u64) << 128),
            err_flag134: Constant::new(Bits::<134>::from(1u64) << 129),
            oq_word: Default::default(),
            rq: Default::default(),
            rq_off: Default::default(),
            rq_ok: Default::default(),
            rq_take: Default::default(),
            rq_fault: Default::default(),
            hd_off: Default::default(),
            hd_nbm1: Default::default(),
            iss_active: Default::default(),
            iss_row: Default::default(),
            iss_s: Default::default(),
            iss_rem: Default::default(),
            iss_lenmod: Default::default(),
            iss_tag: Default::default(),
            nb_row: Default::default(),
            nb_s: Default::default(),
            nb_last: Default::default(),
            nb_rem: Default::default(),
            nb_lenmod: Default::default(),
            nb_tag: Default::default(),
            nb_err: Default::default(),
            have_beat: Default::default(),
            issue: Default::default(),
            a_valid: Default::default(),
            a_s: Default::default(),
            a_last: Default::default(),
            a_lenmod: Default::default(),
            a_tag: Default::default(),
            a_err: Default::default(),
            ra: Default::default(),
            ram_valid: Default::default(),
            r2_valid: Default::default(),
            r2_word: Default::default(),
            r2_s: Default::default(),
            r2_last: Default::default(),
            r2_lenmod: Default::default(),
            r2_tag: Default::default(),
            r2_err: Default::default(),
            oq: Default::default(),
            credits: Default::default(),
            credit_ok: Default::default(),
            credits_next: Default::default(),
            out_s: Default::default(),
            out_last: Default::default(),
            out_lenmod: Default::default(),
            out_tag: Default::default(),
            out_err: Default::default(),
            ram_word: Default::default(),
            s8: Default::default(),
            rot: Default::default(),
            ram_out: Default::default(),
            oq_pop: Default::default(),
            w_off: Default::default(),
            w_a: Default::default(),
            w_a8: Default::default(),
            w_first: Default::default(),
            w_hi: Default::default(),
            w_lo_addr: Default::default(),
            w_ok: Default::default(),
            w_take: Default::default(),
            w_fault: Default::default(),
            w_row: Default::default(),
            w_data_rot: Default::default(),
            w_strb_rot: Default::default(),
            wr_fail: Default::default(),
            wrsp_valid: Default::default(),
            wrsp_err: Default::default(),
            wrsp_tag: Default::default(),
            dma_rd_want: Default::default(),
            br_rd_ok: Default::default(),
            br_wr_ok: Default::default(),
            br_rd_take: Default::default(),
            br_wr_take: Default::default(),
            br_row: Default::default(),
            br_lane: Default::default(),
            br_rd_last: Default::default(),
            br_wr_last: Default::default(),
            br_ra: Default::default(),
            br_ra_lane: Default::default(),
            br_rvalid: Default::default(),
            br_rlane: Default::default(),
            rd_carry: Default::default(),
            w_carry: Default::default(),
            f_count: Default::default(),
            f_addr: Default::default(),
            f_len: Default::default(),
            f_write: Default::default(),
            f_base: Default::default(),
            f_sum: Default::default(),
        }
    }
}

impl<const AW: usize> Logic for HostMem<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, iss_active, iss_row, iss_s, iss_rem, iss_lenmod, iss_tag, a_valid, a_s, a_last, a_lenmod, a_tag, a_err, ram_valid, r2_valid, r2_word, r2_s, r2_last, r2_lenmod, r2_tag, r2_err, credits, credit_ok, out_s, out_last, out_lenmod,
            out_tag, out_err, wr_fail, wrsp_valid, wrsp_err, wrsp_tag, br_rd_last, br_wr_last, br_ra, br_ra_lane, br_rvalid, br_rlane, f_count, f_addr,
            f_len, f_write
        );
        clock!(self, clock, rq, oq);
        self.rq.reset.next = self.reset.val();
        self.oq.reset.next = self.reset.val();
        for i in 0..16 {
            self.lane[i].clock.next = self.clock.val();
        }
        self.mem_size_log2.next = self.size_log2.val();

        // ---- read requests: range check at acceptance, then the queue
        self.rq_off.next = self.dma_rd_req_addr.val() - self.base.val();
        self.rq_ok.next = (self.dma_rd_req_addr.val() >= self.base.val())
            & ((self.rq_off.val() + bit_cast::<64, 16>(self.dma_rd_req_len.val())) <= self.win.val())
            & (self.dma_rd_req_len.val() != 0);
        self.dma_rd_req_ready.next = !self.rq.full.val() & !self.reset.val();
        self.rq_take.next = self.dma_rd_req_valid.val() & self.dma_rd_req_ready.val();
        self.rq_fault.next = self.rq_take.val() & !self.rq_ok.val();
        self.rq.write.next = self.rq_take.val();
        self.rq.data_in.next = bit_cast::<53, 32>(self.rq_off.val().get_bits::<32>(0))
            | (bit_cast::<53, 16>((self.dma_rd_req_len.val() - 1) >> 4) << 32)
            | (bit_cast::<53, 4>(self.dma_rd_req_len.val().get_bits::<4>(0)) << 44)
            | (bit_cast::<53, 4>(self.dma_rd_req_tag.val()) << 48);
        if !self.rq_ok.val() {
            self.rq.data_in.next = (bit_cast::<53, 4>(self.dma_rd_req_tag.val()) << 48) | self.err_flag.val();
        }

        // ---- read issue: the next beat, from the streaming request or the queue's head
        self.hd_off.next = self.rq.data_out.val().get_bits::<32>(0);
        self.hd_nbm1.next = self.rq.data_out.val().get_bits::<12>(32);
        self.have_beat.next = self.iss_active.q.val() | !self.rq.empty.val();
        self.nb_row.next = self.iss_row.q.val();
        self.nb_s.next = self.iss_s.q.val();
        self.nb_rem.next = self.iss_rem.q.val();
        self.nb_lenmod.next = self.iss_lenmod.q.val();
        self.nb_tag.next = self.iss_tag.q.val();
        self.nb_err.next = false;
        if !self.iss_active.q.val() {
            self.nb_row.next = bit_cast::<AW, 32>(self.hd_off.val() >> 4);
            self.nb_s.next = self.hd_off.val().get_bits::<4>(0);
            self.nb_rem.next = self.hd_nbm1.val();
            self.nb_lenmod.next = self.rq.data_out.val().get_bits::<4>(44);
            self.nb_tag.next = self.rq.data_out.val().get_bits::<4>(48);
            self.nb_err.next = self.rq.data_out.val().get_bit(52);
        }
        self.nb_last.next = (self.nb_rem.val() == 0) | self.nb_err.val();

        // ---- bridge arbitration (see the module docs)
        self.br_lane.next = self.mem_addr.val().get_bits::<4>(0);
        self.br_row.next = bit_cast::<AW, 32>(self.mem_addr.val() >> 4);
        self.dma_rd_want.next = self.have_beat.val() & self.credit_ok.q.val();
        self.br_rd_ok.next = !self.dma_rd_want.val() | !self.br_rd_last.q.val();
        self.br_wr_ok.next = !self.dma_wr_valid.val() | !self.br_wr_last.q.val();
        self.mem_ready.next = self.br_rd_ok.val();
        if self.mem_wr.val() {
            self.mem_ready.next = self.br_wr_ok.val();
        }
        if self.reset.val() {
            self.mem_ready.next = false;
        }
        // each take from its own port's rule, not through `mem_ready`'s choice between
        // them: the write side's enables and data do not wait on the read side's credit
        self.br_wr_take.next = self.mem_wr.val() & self.br_wr_ok.val() & !self.reset.val();
        self.br_rd_take.next = self.mem_rd.val() & !self.mem_wr.val() & self.br_rd_ok.val() & !self.reset.val();
        self.br_rd_last.d.next = self.br_rd_take.val();
        self.br_wr_last.d.next = self.br_wr_take.val();
        self.br_ra.d.next = self.br_rd_take.val();
        if self.br_rd_take.val() {
            self.br_ra_lane.d.next = self.br_lane.val();
        }
        self.br_rvalid.d.next = self.br_ra.q.val();
        self.br_rlane.d.next = self.br_ra_lane.q.val();

        // ---- read output
        self.issue.next = self.dma_rd_want.val() & !self.br_rd_take.val();
        self.a_valid.d.next = self.issue.val();
        self.ram_valid.d.next = self.a_valid.q.val();
        self.out_s.d.next = self.a_s.q.val();
        self.out_last.d.next = self.a_last.q.val();
        self.out_lenmod.d.next = self.a_lenmod.q.val();
        self.out_tag.d.next = self.a_tag.q.val();
        self.out_err.d.next = self.a_err.q.val();
        if self.issue.val() {
            self.a_s.d.next = self.nb_s.val();
            self.a_last.d.next = self.nb_last.val();
            self.a_lenmod.d.next = self.nb_lenmod.val();
            self.a_tag.d.next = self.nb_tag.val();
            self.a_err.d.next = self.nb_err.val();
            if self.iss_active.q.val() {
                self.iss_row.d.next = self.iss_row.q.val() + 1;
                self.iss_rem.d.next = self.iss_rem.q.val() - 1;
                if self.nb_last.val() {
                    self.iss_active.d.next = false;
                }
            } else if !self.nb_last.val() {
                self.iss_active.d.next = true;
                self.iss_row.d.next = self.nb_row.val() + 1;
                self.iss_rem.d.next = self.nb_rem.val() - 1;
                self.iss_s.d.next = self.nb_s.val();
                self.iss_lenmod.d.next = self.nb_lenmod.val();
                self.iss_tag.d.next = self.nb_tag.val();
            }
        }
        self.rq.read.next = self.issue.val() & !self.iss_active.q.val();
        // RAM read addresses, registered: the bridge's row, or per lane j the beat's base
        // row + (j < s)
        self.rd_carry.next = !(self.ones16.val() << self.nb_s.val());
        for i in 0..16 {
            self.ra[i].clock.next = self.clock.val();
            self.ra[i].d.next = self.nb_row.val();
            if self.rd_carry.val().get_bit(i) {
                self.ra[i].d.next = self.nb_row.val() + 1;
            }
            if self.br_rd_take.val() {
                self.ra[i].d.next = self.br_row.val();
            }
            self.lane[i].read_address.next = self.ra[i].q.val();
        }
        self.ram_word.next = bit_cast::<128, 8>(self.lane[0].read_data.val())
            | (bit_cast::<128, 8>(self.lane[1].read_data.val()) << 8)
            | (bit_cast::<128, 8>(self.lane[2].read_data.val()) << 16)
            | (bit_cast::<128, 8>(self.lane[3].read_data.val()) << 24)
            | (bit_cast::<128, 8>(self.lane[4].read_data.val()) << 32)
            | (bit_cast::<128, 8>(self.lane[5].read_data.val()) << 40)
            | (bit_cast::<128, 8>(self.lane[6].read_data.val()) << 48)
            | (bit_cast::<128, 8>(self.lane[7].read_data.val()) << 56)
            | (bit_cast::<128, 8>(self.lane[8].read_data.val()) << 64)
            | (bit_cast::<128, 8>(self.lane[9].read_data.val()) << 72)
            | (bit_cast::<128, 8>(self.lane[10].read_data.val()) << 80)
            | (bit_cast::<128, 8>(self.lane[11].read_data.val()) << 88)
            | (bit_cast::<128, 8>(self.lane[12].read_data.val()) << 96)
            | (bit_cast::<128, 8>(self.lane[13].read_data.val()) << 104)
            | (bit_cast::<128, 8>(self.lane[14].read_data.val()) << 112)
            | (bit_cast::<128, 8>(self.lane[15].read_data.val()) << 120);
        self.r2_valid.d.next = self.ram_valid.q.val();
        self.r2_word.d.next = self.ram_word.val();
        self.r2_s.d.next = self.out_s.q.val();
        self.r2_last.d.next = self.out_last.q.val();
        self.r2_lenmod.d.next = self.out_lenmod.q.val();
        self.r2_tag.d.next = self.out_tag.q.val();
        self.r2_err.d.next = self.out_err.q.val();
        self.s8.next = bit_cast::<8, 4>(self.r2_s.q.val()) << 3;
        self.rot.next = self.r2_word.q.val();
        if self.r2_s.q.val() != 0 {
            self.rot.next = (self.r2_word.q.val() >> self.s8.val()) | (self.r2_word.q.val() << (128 - self.s8.val()));
        }
        self.ram_out.next = self.rot.val();
        if self.r2_last.q.val() & (self.r2_lenmod.q.val() != 0) {
            self.ram_out.next = self.rot.val() & !(self.ones128.val() << (bit_cast::<8, 4>(self.r2_lenmod.q.val()) << 3));
        }
        if self.r2_err.q.val() {
            self.ram_out.next = 0.into();
        }
        self.oq.write.next = self.r2_valid.q.val();
        // (an error beat's data is 0, `ram_out` above, and it is always its request's last)
        self.oq_word.next = bit_cast::<134, 128>(self.ram_out.val()) | (bit_cast::<134, 4>(self.r2_tag.q.val()) << 130);
        if self.r2_last.q.val() | self.r2_err.q.val() {
            self.oq_word.next = self.oq_word.val() | self.last_flag.val();
        }
        if self.r2_err.q.val() {
            self.oq_word.next = self.oq_word.val() | self.err_flag134.val();
        }
        self.oq.data_in.next = self.oq_word.val();
        self.dma_rd_rsp_valid.next = !self.oq.empty.val();
        self.dma_rd_rsp_data.next = bit_cast::<128, 134>(self.oq.data_out.val());
        self.dma_rd_rsp_last.next = self.oq.data_out.val().get_bit(128);
        self.dma_rd_rsp_error.next = self.oq.data_out.val().get_bit(129);
        self.dma_rd_rsp_tag.next = self.oq.data_out.val().get_bits::<4>(130);
        self.oq_pop.next = !self.oq.empty.val() & self.dma_rd_rsp_ready.val();
        self.oq.read.next = self.oq_pop.val();
        // a credit per queue entry: spent as a beat is issued, back as one leaves
        self.credits_next.next = self.credits.q.val();
        if self.issue.val() & !self.oq_pop.val() {
            self.credits_next.next = self.credits.q.val() - 1;
        }
        if !self.issue.val() & self.oq_pop.val() {
            self.credits_next.next = self.credits.q.val() + 1;
        }
        self.credits.d.next = self.credits_next.val();
        self.credit_ok.d.next = self.credits_next.val() != 0;
        // bridge read data: one cycle after its read took the RAM read ports
        self.mem_rdata.next = 0.into();
        for i in 0..16 {
            if self.br_rlane.q.val() == self.lane_idx[i].val() {
                self.mem_rdata.next = self.lane[i].read_data.val();
            }
        }
        self.mem_rvalid.next = self.br_rvalid.q.val();

        // ---- writes
        self.dma_wr_ready.next = !self.br_wr_take.val() & !self.reset.val();
        self.w_take.next = self.dma_wr_valid.val() & self.dma_wr_ready.val();
        self.w_off.next = self.dma_wr_addr.val() - self.base.val();
        self.w_a.next = self.dma_wr_addr.val().get_bits::<4>(0);
        self.w_a8.next = bit_cast::<8, 4>(self.w_a.val()) << 3;
        self.w_row.next = bit_cast::<AW, 64>(self.w_off.val() >> 4);
        // lowest and highest enabled lane
        self.w_first.next = 0.into();
        self.w_hi.next = 0.into();
        for i in 0..16 {
            if self.dma_wr_strb.val().get_bit(i) {
                self.w_hi.next = self.lane_idx[i].val();
            }
            if self.dma_wr_strb.val().get_bit(15 - i) {
                self.w_first.next = self.lane_idx[15 - i].val();
            }
        }
        // lane 0 may lie before the window when the lanes below the first enabled one
        // do: check the lowest and the highest enabled byte
        self.w_lo_addr.next = self.dma_wr_addr.val() + bit_cast::<64, 4>(self.w_first.val());
        self.w_ok.next = (self.dma_wr_strb.val() == 0)
            | ((self.w_lo_addr.val() >= self.base.val()) & ((self.w_off.val() + bit_cast::<64, 4>(self.w_hi.val())) < self.win.val()));
        self.w_fault.next = self.w_take.val() & !self.w_ok.val();
        self.w_data_rot.next = self.dma_wr_data.val();
        self.w_strb_rot.next = self.dma_wr_strb.val();
        if self.w_a.val() != 0 {
            self.w_data_rot.next = (self.dma_wr_data.val() << self.w_a8.val()) | (self.dma_wr_data.val() >> (128 - self.w_a8.val()));
            self.w_strb_rot.next = (self.dma_wr_strb.val() << self.w_a.val()) | (self.dma_wr_strb.val() >> (16 - bit_cast::<8, 4>(self.w_a.val())));
        }
        self.w_carry.next = !(self.ones16.val() << self.w_a.val());
        for i in 0..16 {
            self.lane[i].write_enable.next = self.w_take.val() & self.w_ok.val() & self.w_strb_rot.val().get_bit(i);
            self.lane[i].write_address.next = self.w_row.val();
            if self.w_carry.val().get_bit(i) {
                self.lane[i].write_address.next = self.w_row.val() + 1;
            }
            self.lane[i].write_data.next = self.w_data_rot.val().get_bits::<8>(i * 8);
            if self.br_wr_take.val() {
                self.lane[i].write_enable.next = self.lane_idx[i].val() == self.br_lane.val();
                self.lane[i].write_address.next = self.br_row.val();
                self.lane[i].write_data.next = self.mem_wdata.val();
            }
        }
        self.wrsp_valid.d.next = self.w_take.val() & self.dma_wr_last.val();
        if self.w_take.val() {
            self.wrsp_err.d.next = self.wr_fail.q.val() | !self.w_ok.val();
            self.wrsp_tag.d.next = self.dma_wr_tag.val();
            self.wr_fail.d.next = (self.wr_fail.q.val() | !self.w_ok.val()) & !self.dma_wr_last.val();
        }
        self.dma_wr_rsp_valid.next = self.wrsp_valid.q.val();
        self.dma_wr_rsp_error.next = self.wrsp_err.q.val();
        self.dma_wr_rsp_tag.next = self.wrsp_tag.q.val();

        // ---- fault log
        self.f_base.next = bit_cast::<17, 16>(self.f_count.q.val());
        if self.fault_clear.val() {
            self.f_base.next = 0.into();
        }
        self.f_sum.next = self.f_base.val();
        if self.rq_fault.val() & self.w_fault.val() {
            self.f_sum.next = self.f_base.val() + 2;
        } else if self.rq_fault.val() | self.w_fault.val() {
            self.f_sum.next = self.f_base.val() + 1;
        }
        self.f_count.d.next = self.f_sum.val().get_bits::<16>(0);
        if self.f_sum.val().get_bit(16) {
            self.f_count.d.next = 0xffff.into();
        }
        if self.rq_fault.val() {
            self.f_addr.d.next = self.dma_rd_req_addr.val();
            self.f_len.d.next = self.dma_rd_req_len.val();
            self.f_write.d.next = false;
        }
        if self.w_fault.val() {
            self.f_addr.d.next = self.w_lo_addr.val();
            self.f_len.d.next = bit_cast::<16, 4>(self.w_hi.val() - self.w_first.val()) + 1;
            self.f_write.d.next = true;
        }
        self.fault_count.next = self.f_count.q.val();
        self.fault_addr.next = self.f_addr.q.val();
        self.fault_len.next = self.f_len.q.val();
        self.fault_write.next = self.f_write.q.val();

        if self.reset.val() {
            self.iss_active.d.next = false;
            self.a_valid.d.next = false;
            self.ram_valid.d.next = false;
            self.r2_valid.d.next = false;
            self.credits.d.next = 8.into();
            self.credit_ok.d.next = true;
            self.wr_fail.d.next = false;
            self.wrsp_valid.d.next = false;
            self.br_rd_last.d.next = false;
            self.br_wr_last.d.next = false;
            self.br_ra.d.next = false;
            self.br_rvalid.d.next = false;
            self.f_count.d.next = 0.into();
            self.f_addr.d.next = 0.into();
            self.f_len.d.next = 0.into();
            self.f_write.d.next = false;
        }
    }
}
