//! AXI4 master bridge for the DMA port: `nic_top_axi` puts it between the NIC's DMA
//! port (docs/interfaces.md) and a 128-bit AXI4 interconnect.
//!
//! Reads: each DMA read becomes INCR bursts of 16-byte beats covering the aligned
//! words of [addr, addr + len), split at 4 KiB boundaries (AXI forbids crossing them;
//! 4 KiB is 256 beats, the longest INCR burst). The responses are realigned so that the
//! requested bytes start at lane 0, as the DMA port promises. An error response (RRESP
//! SLVERR/DECERR) ends the DMA response with one error beat; the rest of that request's
//! beats are drained. At most 16 bursts are outstanding (counted with RLAST).
//!
//! Writes: the DMA port addresses every beat; each becomes single-beat AXI writes (AWLEN
//! 0) of the 16-byte words it touches. A beat that straddles two words leaves its upper
//! part in a carry, merged into the next beat's first word when that beat goes on where
//! this one ended (so a run of unaligned beats, a packet landing at an odd address,
//! costs one write a beat, not two, and keeps up with the wire); a carry the next beat
//! does not continue goes out alone first, and a burst's last beat never leaves one (its
//! upper part goes out as a second write). The DMA write response of a burst carries the
//! OR of the BRESP errors of all its AXI writes. Single ID, everything in order.

use crate::stream::NicFifo;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct DmaAxiBridge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // DMA port (the NIC is the master)
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
    // AXI4 master, 128-bit data
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    pub m_axi_arsize: Signal<Out, Bits<3>>,
    pub m_axi_arburst: Signal<Out, Bits<2>>,
    pub m_axi_arvalid: Signal<Out, Bit>,
    pub m_axi_arready: Signal<In, Bit>,
    pub m_axi_rdata: Signal<In, Bits<128>>,
    pub m_axi_rresp: Signal<In, Bits<2>>,
    pub m_axi_rlast: Signal<In, Bit>,
    pub m_axi_rvalid: Signal<In, Bit>,
    pub m_axi_rready: Signal<Out, Bit>,
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    pub m_axi_awvalid: Signal<Out, Bit>,
    pub m_axi_awready: Signal<In, Bit>,
    pub m_axi_wdata: Signal<Out, Bits<128>>,
    pub m_axi_wstrb: Signal<Out, Bits<16>>,
    pub m_axi_wlast: Signal<Out, Bit>,
    pub m_axi_wvalid: Signal<Out, Bit>,
    pub m_axi_wready: Signal<In, Bit>,
    pub m_axi_bresp: Signal<In, Bits<2>>,
    pub m_axi_bvalid: Signal<In, Bit>,
    pub m_axi_bready: Signal<Out, Bit>,
    // ---- read side
    /// Accepted reads in order: [3:0] address offset in the first word, [19:4] length, [23:20] tag.
    rd_track: NicFifo<Bits<24>, 4, 5>,
    ar_busy: DFF<Bit>,
    ar_cur: DFF<Bits<64>>,
    ar_end: DFF<Bits<64>>,
    ar_burst_end: Signal<Local, Bits<64>>,
    /// AR bursts issued whose last R beat has not arrived.
    ar_outstanding: DFF<Bits<5>>,
    ar_fire: Signal<Local, Bit>,
    r_fire: Signal<Local, Bit>,
    page_end: Signal<Local, Bits<64>>,
    r_in: DFF<Bits<17>>,
    r_out: DFF<Bits<17>>,
    r_prev: DFF<Bits<128>>,
    r_flush: DFF<Bit>,
    r_errored: DFF<Bit>,
    off: Signal<Local, Bits<4>>,
    len: Signal<Local, Bits<17>>,
    n_in: Signal<Local, Bits<17>>,
    n_out: Signal<Local, Bits<17>>,
    low_shift: Signal<Local, Bits<8>>,
    high_shift: Signal<Local, Bits<8>>,
    tail_mask: Signal<Local, Bits<128>>,
    out_data: Signal<Local, Bits<128>>,
    out_last: Signal<Local, Bit>,
    r_done: Signal<Local, Bit>,
    // ---- write side
    /// One entry per AXI write issued: [3:0] tag, [4] last write of a DMA burst.
    b_track: NicFifo<Bits<5>, 5, 6>,
    w_second: DFF<Bit>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    b_error: DFF<Bit>,
    w_off: Signal<Local, Bits<4>>,
    /// The upper part of the last beat, due at word address `carry_addr`.
    carry_valid: DFF<Bit>,
    carry_addr: DFF<Bits<64>>,
    carry_data: DFF<Bits<128>>,
    carry_strb: DFF<Bits<16>>,
    carry_tag: DFF<Bits<4>>,
    /// The beat's parts: its first word (address, data, strobes) and what spills into the next.
    lo_addr: Signal<Local, Bits<64>>,
    lo_data: Signal<Local, Bits<128>>,
    lo_strb: Signal<Local, Bits<16>>,
    hi_data: Signal<Local, Bits<128>>,
    hi_strb: Signal<Local, Bits<16>>,
    /// The bytes `lo_strb` selects, as a bit mask.
    lo_bytes: Signal<Local, Bits<128>>,
    carry_hit: Signal<Local, Bit>,
    /// The word offered is the carry alone.
    carry_alone: Signal<Local, Bit>,
    word_complete: Signal<Local, Bit>,
    beat_complete: Signal<Local, Bit>,
    ones128: Constant<Bits<128>>,
    /// Byte lane i's bits.
    byte_lane: [Constant<Bits<128>>; 16],
    page_mask: Constant<Bits<64>>,
    word_mask: Constant<Bits<64>>,
}

impl Default for DmaAxiBridge {
    fn default() -> Self {
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
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_arsize: Default::default(),
            m_axi_arburst: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rresp: Default::default(),
            m_axi_rlast: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_bresp: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            rd_track: Default::default(),
            ar_busy: Default::default(),
            ar_cur: Default::default(),
            ar_end: Default::default(),
            ar_burst_end: Default::default(),
            ar_outstanding: Default::default(),
            ar_fire: Default::default(),
            r_fire: Default::default(),
            page_end: Default::default(),
            r_in: Default::default(),
            r_out: Default::default(),
            r_prev: Default::default(),
            r_flush: Default::default(),
            r_errored: Default::default(),
            off: Default::default(),
            len: Default::default(),
            n_in: Default::default(),
            n_out: Default::default(),
            low_shift: Default::default(),
            high_shift: Default::default(),
            tail_mask: Default::default(),
            out_data: Default::default(),
            out_last: Default::default(),
            r_done: Default::default(),
            b_track: Default::default(),
            w_second: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            b_error: Default::default(),
            w_off: Default::default(),
            carry_valid: Default::default(),
            carry_addr: Default::default(),
            carry_data: Default::default(),
            carry_strb: Default::default(),
            carry_tag: Default::default(),
            lo_addr: Default::default(),
            lo_data: Default::default(),
            lo_strb: Default::default(),
            hi_data: Default::default(),
            hi_strb: Default::default(),
            lo_bytes: Default::default(),
            carry_hit: Default::default(),
            carry_alone: Default::default(),
            word_complete: Default::default(),
            beat_complete: Default::default(),
            ones128: Constant::new(!Bits::<128>::default()),
            page_mask: Constant::new(Bits::<64>::from(!0xfffu64)),
            word_mask: Constant::new(Bits::<64>::from(!0xfu64)),
            byte_lane: std::array::from_fn(|i| Constant::new(Bits::<128>::from(0xffu64) << (8 * i as u64))),
        }
    }
}

impl Logic for DmaAxiBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ar_busy, ar_outstanding, ar_cur, ar_end, r_in, r_out, r_prev, r_flush, r_errored, w_second, aw_done, w_done,
            b_error, carry_valid, carry_addr, carry_data, carry_strb, carry_tag
        );
        clock!(self, clock, rd_track, b_track);
        self.rd_track.reset.next = self.reset.val();
        self.b_track.reset.next = self.reset.val();
        // ---- read requests → AR bursts
        self.rd_track.data_in.next = bit_cast::<24, 4>(self.dma_rd_req_addr.val().get_bits::<4>(0))
            | (bit_cast::<24, 16>(self.dma_rd_req_len.val()) << 4)
            | (bit_cast::<24, 4>(self.dma_rd_req_tag.val()) << 20);
        self.dma_rd_req_ready.next = !self.ar_busy.q.val() & !self.rd_track.full.val();
        self.rd_track.write.next = self.dma_rd_req_valid.val() & self.dma_rd_req_ready.val();
        if self.dma_rd_req_valid.val() & self.dma_rd_req_ready.val() {
            self.ar_busy.d.next = true;
            self.ar_cur.d.next = self.dma_rd_req_addr.val() & self.word_mask.val();
            self.ar_end.d.next = (self.dma_rd_req_addr.val() + bit_cast::<64, 16>(self.dma_rd_req_len.val()) + 15) & self.word_mask.val();
        }
        self.page_end.next = (self.ar_cur.q.val() & self.page_mask.val()) + 0x1000;
        self.ar_burst_end.next = self.ar_end.q.val();
        if self.page_end.val() < self.ar_end.q.val() {
            self.ar_burst_end.next = self.page_end.val();
        }
        self.m_axi_araddr.next = self.ar_cur.q.val();
        self.m_axi_arlen.next = bit_cast::<8, 64>(((self.ar_burst_end.val() - self.ar_cur.q.val()) >> 4) - 1);
        self.m_axi_arsize.next = 4.into(); // 16 bytes
        self.m_axi_arburst.next = 1.into(); // INCR
        self.m_axi_arvalid.next = self.ar_busy.q.val() & (self.ar_outstanding.q.val() < 16);
        self.ar_fire.next = self.m_axi_arvalid.val() & self.m_axi_arready.val();
        if self.ar_fire.val() {
            self.ar_cur.d.next = self.ar_burst_end.val();
            if self.ar_burst_end.val() == self.ar_end.q.val() {
                self.ar_busy.d.next = false;
            }
        }
        // ---- R beats → realigned DMA response
        self.off.next = self.rd_track.data_out.val().get_bits::<4>(0);
        self.len.next = bit_cast::<17, 16>(self.rd_track.data_out.val().get_bits::<16>(4));
        self.dma_rd_rsp_tag.next = self.rd_track.data_out.val().get_bits::<4>(20);
        self.n_in.next = (bit_cast::<17, 4>(self.off.val()) + self.len.val() + 15) >> 4;
        self.n_out.next = (self.len.val() + 15) >> 4;
        self.low_shift.next = bit_cast::<8, 4>(self.off.val()) << 3;
        self.high_shift.next = 128 - (bit_cast::<8, 4>(self.off.val()) << 3);
        // bytes past the end of the last output beat read as 0
        self.tail_mask.next = self.ones128.val();
        if self.len.val().get_bits::<4>(0) != 0 {
            self.tail_mask.next = !(self.ones128.val() << (bit_cast::<8, 4>(self.len.val().get_bits::<4>(0)) << 3));
        }
        self.out_data.next = self.m_axi_rdata.val();
        if self.off.val() != 0 {
            if self.r_in.q.val() == 0 {
                self.out_data.next = self.m_axi_rdata.val() >> self.low_shift.val();
            } else {
                self.out_data.next = (self.r_prev.q.val() >> self.low_shift.val()) | (self.m_axi_rdata.val() << self.high_shift.val());
            }
        }
        if self.r_flush.q.val() {
            self.out_data.next = self.r_prev.q.val() >> self.low_shift.val();
        }
        self.out_last.next = (self.r_out.q.val() + 1) == self.n_out.val();
        if self.out_last.val() {
            self.out_data.next = self.out_data.val() & self.tail_mask.val();
        }
        self.dma_rd_rsp_data.next = self.out_data.val();
        self.dma_rd_rsp_last.next = self.out_last.val();
        self.dma_rd_rsp_error.next = false;
        self.dma_rd_rsp_valid.next = false;
        self.m_axi_rready.next = false;
        self.rd_track.read.next = false;
        self.r_done.next = false;
        if self.rd_track.empty.val() {
            // no request outstanding: nothing to do
        } else if self.r_flush.q.val() {
            // the last output beat needs no further input word
            self.dma_rd_rsp_valid.next = true;
            if self.dma_rd_rsp_ready.val() {
                self.r_done.next = true;
            }
        } else if self.r_errored.q.val() {
            // drain the failed request's remaining beats
            self.m_axi_rready.next = true;
            if self.m_axi_rvalid.val() {
                self.r_in.d.next = self.r_in.q.val() + 1;
                if (self.r_in.q.val() + 1) == self.n_in.val() {
                    self.r_done.next = true;
                }
            }
        } else if self.m_axi_rvalid.val() & (self.m_axi_rresp.val() != 0) {
            // the host refused: one error beat ends the DMA response
            self.dma_rd_rsp_valid.next = true;
            self.dma_rd_rsp_error.next = true;
            self.dma_rd_rsp_last.next = true;
            self.dma_rd_rsp_data.next = 0.into();
            self.m_axi_rready.next = self.dma_rd_rsp_ready.val();
            if self.dma_rd_rsp_ready.val() {
                self.r_in.d.next = self.r_in.q.val() + 1;
                self.r_errored.d.next = true;
                if (self.r_in.q.val() + 1) == self.n_in.val() {
                    self.r_done.next = true;
                }
            }
        } else if (self.off.val() != 0) & (self.r_in.q.val() == 0) & (self.n_in.val() > 1) {
            // the first word of an unaligned read only fills the realigner
            self.m_axi_rready.next = true;
            if self.m_axi_rvalid.val() {
                self.r_prev.d.next = self.m_axi_rdata.val();
                self.r_in.d.next = 1.into();
            }
        } else {
            self.dma_rd_rsp_valid.next = self.m_axi_rvalid.val();
            self.m_axi_rready.next = self.dma_rd_rsp_ready.val();
            if self.m_axi_rvalid.val() & self.dma_rd_rsp_ready.val() {
                self.r_prev.d.next = self.m_axi_rdata.val();
                self.r_in.d.next = self.r_in.q.val() + 1;
                self.r_out.d.next = self.r_out.q.val() + 1;
                if self.out_last.val() {
                    self.r_done.next = true;
                } else if (self.r_in.q.val() + 1) == self.n_in.val() {
                    self.r_flush.d.next = true;
                }
            }
        }
        self.r_fire.next = self.m_axi_rvalid.val() & self.m_axi_rready.val() & self.m_axi_rlast.val();
        if self.ar_fire.val() & !self.r_fire.val() {
            self.ar_outstanding.d.next = self.ar_outstanding.q.val() + 1;
        }
        if !self.ar_fire.val() & self.r_fire.val() {
            self.ar_outstanding.d.next = self.ar_outstanding.q.val() - 1;
        }
        if self.r_done.val() {
            self.rd_track.read.next = true;
            self.r_in.d.next = 0.into();
            self.r_out.d.next = 0.into();
            self.r_flush.d.next = false;
            self.r_errored.d.next = false;
        }
        // ---- DMA write beats → single-beat AXI writes, a straddling beat's upper part
        // carried into the next beat's first word
        self.w_off.next = self.dma_wr_addr.val().get_bits::<4>(0);
        self.lo_addr.next = self.dma_wr_addr.val() & self.word_mask.val();
        self.lo_data.next = self.dma_wr_data.val() << (bit_cast::<8, 4>(self.w_off.val()) << 3);
        self.lo_strb.next = self.dma_wr_strb.val() << self.w_off.val();
        self.hi_data.next = self.dma_wr_data.val() >> (128 - (bit_cast::<8, 4>(self.w_off.val()) << 3));
        self.hi_strb.next = 0.into();
        if self.w_off.val().any() {
            self.hi_strb.next = self.dma_wr_strb.val() >> (16 - bit_cast::<8, 4>(self.w_off.val()));
        }
        self.lo_bytes.next = 0.into();
        for i in 0..16 {
            if self.lo_strb.val().get_bit(i) {
                self.lo_bytes.next = self.lo_bytes.val() | self.byte_lane[i].val();
            }
        }
        self.carry_hit.next = self.carry_valid.q.val() & (self.carry_addr.q.val() == self.lo_addr.val());
        self.carry_alone.next = self.carry_valid.q.val() & !self.carry_hit.val();
        self.m_axi_awaddr.next = self.lo_addr.val();
        self.m_axi_wdata.next = self.lo_data.val();
        self.m_axi_wstrb.next = self.lo_strb.val();
        if self.carry_hit.val() {
            // the beat's bytes over the carry's (a later write wins a byte both name)
            self.m_axi_wdata.next = (self.carry_data.q.val() & !self.lo_bytes.val()) | (self.lo_data.val() & self.lo_bytes.val());
            self.m_axi_wstrb.next = self.carry_strb.q.val() | self.lo_strb.val();
        }
        if self.carry_alone.val() {
            self.m_axi_awaddr.next = self.carry_addr.q.val();
            self.m_axi_wdata.next = self.carry_data.q.val();
            self.m_axi_wstrb.next = self.carry_strb.q.val();
        }
        if self.w_second.q.val() {
            self.m_axi_awaddr.next = self.lo_addr.val() + 16;
            self.m_axi_wdata.next = self.hi_data.val();
            self.m_axi_wstrb.next = self.hi_strb.val();
        }
        self.m_axi_awlen.next = 0.into();
        self.m_axi_awsize.next = 4.into();
        self.m_axi_awburst.next = 1.into();
        self.m_axi_wlast.next = true;
        self.m_axi_awvalid.next = self.dma_wr_valid.val() & !self.aw_done.q.val() & !self.b_track.full.val();
        self.m_axi_wvalid.next = self.dma_wr_valid.val() & !self.w_done.q.val() & !self.b_track.full.val();
        self.word_complete.next = (self.aw_done.q.val() | (self.m_axi_awvalid.val() & self.m_axi_awready.val()))
            & (self.w_done.q.val() | (self.m_axi_wvalid.val() & self.m_axi_wready.val()));
        // the beat is done with its first word unless its upper part must go out now (its
        // burst's last beat); the carry alone leaves the beat waiting
        self.beat_complete.next = self.word_complete.val() & !self.carry_alone.val()
            & (!self.hi_strb.val().any() | !self.dma_wr_last.val() | self.w_second.q.val());
        self.dma_wr_ready.next = self.beat_complete.val();
        self.b_track.write.next = self.word_complete.val();
        self.b_track.data_in.next = bit_cast::<5, 4>(self.dma_wr_tag.val())
            | (bit_cast::<5, 1>((self.dma_wr_last.val() & self.beat_complete.val()).into()) << 4);
        if self.carry_alone.val() {
            // (its own burst's: were bursts interleaved, its error would count there)
            self.b_track.data_in.next = bit_cast::<5, 4>(self.carry_tag.q.val());
        }
        if self.word_complete.val() {
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
            self.w_second.d.next = !self.beat_complete.val() & !self.carry_alone.val();
            self.carry_valid.d.next = false;
            if !self.carry_alone.val() & !self.w_second.q.val() & self.hi_strb.val().any() & !self.dma_wr_last.val() {
                self.carry_valid.d.next = true;
                self.carry_addr.d.next = self.lo_addr.val() + 16;
                self.carry_data.d.next = self.hi_data.val();
                self.carry_strb.d.next = self.hi_strb.val();
                self.carry_tag.d.next = self.dma_wr_tag.val();
            }
        } else {
            if self.m_axi_awvalid.val() & self.m_axi_awready.val() {
                self.aw_done.d.next = true;
            }
            if self.m_axi_wvalid.val() & self.m_axi_wready.val() {
                self.w_done.d.next = true;
            }
        }
        // ---- B responses → one DMA write response per burst
        // A B may come the cycle after its write, before the FIFO shows the entry (it
        // shows words a cycle after they are written): wait for it then.
        self.m_axi_bready.next = !self.b_track.empty.val();
        self.b_track.read.next = self.m_axi_bvalid.val() & !self.b_track.empty.val();
        self.dma_wr_rsp_valid.next = false;
        self.dma_wr_rsp_error.next = self.b_error.q.val() | (self.m_axi_bresp.val() != 0);
        self.dma_wr_rsp_tag.next = self.b_track.data_out.val().get_bits::<4>(0);
        if self.m_axi_bvalid.val() & !self.b_track.empty.val() {
            self.b_error.d.next = self.b_error.q.val() | (self.m_axi_bresp.val() != 0);
            if self.b_track.data_out.val().get_bit(4) {
                self.dma_wr_rsp_valid.next = true;
                self.b_error.d.next = false;
            }
        }
        if self.reset.val() {
            self.ar_busy.d.next = false;
            self.ar_outstanding.d.next = 0.into();
            self.r_in.d.next = 0.into();
            self.r_out.d.next = 0.into();
            self.r_flush.d.next = false;
            self.r_errored.d.next = false;
            self.w_second.d.next = false;
            self.carry_valid.d.next = false;
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
            self.b_error.d.next = false;
        }
    }
}
