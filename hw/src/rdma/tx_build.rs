//! RoCEv2 transmit framing: one packet's headers and its payload in, the Ethernet frame
//! out (Ethernet, IPv4 with its header checksum, UDP to 4791, BTH, RETH/AETH/ImmDt as the
//! opcode calls for, payload, pad, ICRC), without FCS (MAC TX appends it and pads to 60).
//!
//! The requester and the responder fill a request (`req_*`: the path from the QP
//! context, the BTH and extended header fields, the payload length) and stream the
//! payload from host memory (`pay_*`, lane 0 aligned, whole beats but the last). The
//! payload starts at byte 54 plus the extended header (0, 4, 16 or 20 bytes), so at lane 6
//! or 2: each frame beat is the header's bytes, or the previous payload beat's top bytes
//! and the current one's bottom bytes.
//!
//! The ICRC is known `icrc::LATENCY` cycles after the beat that ends its coverage, and it
//! sits in that beat (lanes 2..5) or straddles it and the next (6, 7 and 0, 1). So the
//! assembled beats go through a 16-beat FIFO, the ICRC unit watching its input, and the
//! output inserts each ICRC from a FIFO of results: the next packet is assembled while a
//! packet waits for its ICRC, and the wire sees no gap.
//!
//! Per packet the assembly spends three cycles before its first beat (lengths, then the
//! IPv4 checksum's sum and fold); frames of 8 beats (an ACK) thus leave at most every 11
//! cycles. Configured per packet: TOS and TTL; the IPv4 identification is 0 with DF set.

use super::icrc::RdmaIcrc;
use super::opcode::RdmaOpcodeInfo;
use crate::stream::NicFifo;
use rust_hdl::prelude::*;

/// Assembly states: take a request, its lengths, its IPv4 checksum, its beats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TxBuildState {
    Idle,
    Lengths,
    Checksum,
    Emit,
}

#[derive(LogicBlock)]
pub struct RdmaTxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- one packet's request, taken when req_valid & req_ready ----
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_dst_mac: Signal<In, Bits<48>>,
    pub req_src_mac: Signal<In, Bits<48>>,
    pub req_src_ip: Signal<In, Bits<32>>,
    pub req_dst_ip: Signal<In, Bits<32>>,
    pub req_udp_src_port: Signal<In, Bits<16>>,
    pub req_tos: Signal<In, Bits<8>>,
    pub req_ttl: Signal<In, Bits<8>>,
    pub req_opcode: Signal<In, Bits<8>>,
    pub req_solicited: Signal<In, Bit>,
    pub req_ack_req: Signal<In, Bit>,
    pub req_pkey: Signal<In, Bits<16>>,
    pub req_dest_qp: Signal<In, Bits<24>>,
    pub req_psn: Signal<In, Bits<24>>,
    pub req_va: Signal<In, Bits<64>>,
    pub req_rkey: Signal<In, Bits<32>>,
    pub req_dma_len: Signal<In, Bits<32>>,
    pub req_syndrome: Signal<In, Bits<8>>,
    pub req_msn: Signal<In, Bits<24>>,
    pub req_immdt: Signal<In, Bits<32>>,
    /// Payload bytes (0 for opcodes without payload), at most 9,000.
    pub req_payload_len: Signal<In, Bits<16>>,
    // ---- the payload ----
    pub pay_valid: Signal<In, Bit>,
    pub pay_ready: Signal<Out, Bit>,
    pub pay_data: Signal<In, Bits<64>>,
    // ---- the frame ----
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_data: Signal<Out, Bits<64>>,
    pub out_nbytes: Signal<Out, Bits<4>>,
    pub out_last: Signal<Out, Bit>,
    // ---- children ----
    icrc_unit: RdmaIcrc,
    /// The opcode being requested (extended header layout), and the one being built (lengths).
    req_info: RdmaOpcodeInfo,
    op_info: RdmaOpcodeInfo,
    /// Assembled beats: data 63:0, byte count 67:64, last 68, ICRC place 70:69 (0 none,
    /// 1 lanes 2..5, 2 lanes 6..7 with its first half, 3 lanes 0..1 with its second).
    beats: NicFifo<Bits<71>, 4, 5>,
    icrcs: NicFifo<Bits<32>, 2, 3>,
    // ---- the request ----
    state: DFF<TxBuildState>,
    r_dst_mac: DFF<Bits<48>>,
    r_src_mac: DFF<Bits<48>>,
    r_src_ip: DFF<Bits<32>>,
    r_dst_ip: DFF<Bits<32>>,
    r_sport: DFF<Bits<16>>,
    r_tos: DFF<Bits<8>>,
    r_ttl: DFF<Bits<8>>,
    r_opcode: DFF<Bits<8>>,
    r_flags: DFF<Bits<8>>,
    r_ack: DFF<Bits<8>>,
    r_pkey: DFF<Bits<16>>,
    r_dqp: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    /// The extended headers, big-endian from bit 159 down, as the opcode lays them out.
    r_ext: DFF<Bits<160>>,
    r_len: DFF<Bits<16>>,
    // ---- lengths (Lengths) and checksum (Checksum) ----
    ext_len: Signal<Local, Bits<16>>,
    pad: Signal<Local, Bits<16>>,
    t_total: DFF<Bits<16>>,
    t_pstart: DFF<Bits<16>>,
    t_s6: DFF<Bit>,
    t_pend: DFF<Bits<16>>,
    h_rem: DFF<Bits<16>>,
    p_rem: DFF<Bits<16>>,
    f_rem: DFF<Bits<16>>,
    c_rem: DFF<Bits<16>>,
    after_place2: DFF<Bit>,
    /// `h_rem < 8` and `taken < t_npay`, registered.
    h_low: DFF<Bit>,
    pay_more: DFF<Bit>,
    t_npay: DFF<Bits<16>>,
    t_sum: DFF<Bits<20>>,
    t_csum: DFF<Bits<16>>,
    csum_a: DFF<Bits<20>>,
    csum_b: DFF<Bits<20>>,
    fold: Signal<Local, Bits<16>>,
    // ---- emission ----
    j: DFF<Bits<4>>,
    taken: DFF<Bits<16>>,
    pprev: DFF<Bits<64>>,
    consume: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    cur: Signal<Local, Bits<64>>,
    hdr_be: Signal<Local, Bits<64>>,
    hdr: Signal<Local, Bits<64>>,
    pay_part: Signal<Local, Bits<64>>,
    hmask: Signal<Local, Bits<64>>,
    pmask: Signal<Local, Bits<64>>,
    data: Signal<Local, Bits<64>>,
    nbytes: Signal<Local, Bits<4>>,
    last: Signal<Local, Bit>,
    place: Signal<Local, Bits<2>>,
    lane_off: [Constant<Bits<16>>; 8],
    lane_mask: [Constant<Bits<64>>; 8],
    last_flag: Constant<Bits<71>>,
    word: Signal<Local, Bits<71>>,
    /// The assembled beat, registered before the FIFO and the ICRC unit (156.25 MHz:
    /// the lane masks and the merge take one cycle, the ICRC's masking the next).
    s_valid: DFF<Bit>,
    s_word: DFF<Bits<71>>,
    s_first: DFF<Bit>,
    s_icrc_last: DFF<Bit>,
    s_icrc_last_6: DFF<Bit>,
    room: Signal<Local, Bit>,
    room_q: DFF<Bit>,
    // ---- output ----
    head: Signal<Local, Bits<71>>,
    head_place: Signal<Local, Bits<2>>,
    icrc_now: Signal<Local, Bits<32>>,
}

impl Default for RdmaTxBuild {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_dst_mac: Default::default(),
            req_src_mac: Default::default(),
            req_src_ip: Default::default(),
            req_dst_ip: Default::default(),
            req_udp_src_port: Default::default(),
            req_tos: Default::default(),
            req_ttl: Default::default(),
            req_opcode: Default::default(),
            req_solicited: Default::default(),
            req_ack_req: Default::default(),
            req_pkey: Default::default(),
            req_dest_qp: Default::default(),
            req_psn: Default::default(),
            req_va: Default::default(),
            req_rkey: Default::default(),
            req_dma_len: Default::default(),
            req_syndrome: Default::default(),
            req_msn: Default::default(),
            req_immdt: Default::default(),
            req_payload_len: Default::default(),
            pay_valid: Default::default(),
            pay_ready: Default::default(),
            pay_data: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_data: Default::default(),
            out_nbytes: Default::default(),
            out_last: Default::default(),
            icrc_unit: Default::default(),
            req_info: Default::default(),
            op_info: Default::default(),
            beats: Default::default(),
            icrcs: Default::default(),
            state: Default::default(),
            r_dst_mac: Default::default(),
            r_src_mac: Default::default(),
            r_src_ip: Default::default(),
            r_dst_ip: Default::default(),
            r_sport: Default::default(),
            r_tos: Default::default(),
            r_ttl: Default::default(),
            r_opcode: Default::default(),
            r_flags: Default::default(),
            r_ack: Default::default(),
            r_pkey: Default::default(),
            r_dqp: Default::default(),
            r_psn: Default::default(),
            r_ext: Default::default(),
            r_len: Default::default(),
            ext_len: Default::default(),
            pad: Default::default(),
            t_total: Default::default(),
            t_pstart: Default::default(),
            t_s6: Default::default(),
            t_pend: Default::default(),
            h_rem: Default::default(),
            p_rem: Default::default(),
            f_rem: Default::default(),
            c_rem: Default::default(),
            after_place2: Default::default(),
            h_low: Default::default(),
            pay_more: Default::default(),
            t_npay: Default::default(),
            t_sum: Default::default(),
            t_csum: Default::default(),
            csum_a: Default::default(),
            csum_b: Default::default(),
            fold: Default::default(),
            j: Default::default(),
            taken: Default::default(),
            pprev: Default::default(),
            consume: Default::default(),
            go: Default::default(),
            cur: Default::default(),
            hdr_be: Default::default(),
            hdr: Default::default(),
            pay_part: Default::default(),
            hmask: Default::default(),
            pmask: Default::default(),
            data: Default::default(),
            nbytes: Default::default(),
            last: Default::default(),
            place: Default::default(),
            lane_off: std::array::from_fn(|l| Constant::new(Bits::<16>::from(l as u64))),
            lane_mask: std::array::from_fn(|l| Constant::new(Bits::<64>::from(0xffu64 << (8 * l)))),
            last_flag: Constant::new(Bits::<71>::from(1u64) << 68u64),
            word: Default::default(),
            s_valid: Default::default(),
            s_word: Default::default(),
            s_first: Default::default(),
            s_icrc_last: Default::default(),
            s_icrc_last_6: Default::default(),
            room: Default::default(),
            room_q: Default::default(),
            head: Default::default(),
            head_place: Default::default(),
            icrc_now: Default::default(),
        }
    }
}

impl Logic for RdmaTxBuild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, r_dst_mac, r_src_mac, r_src_ip, r_dst_ip, r_sport, r_tos, r_ttl, r_opcode, r_flags,
            r_ack, r_pkey, r_dqp, r_psn, r_ext, r_len, t_total, t_pstart, t_s6, t_pend, h_rem, p_rem, f_rem, c_rem, after_place2, h_low, pay_more, t_npay,
            t_sum, t_csum, csum_a, csum_b, j, taken, pprev, s_valid, s_word, s_first, s_icrc_last, s_icrc_last_6, room_q);
        clock!(self, clock, icrc_unit, beats, icrcs);
        self.icrc_unit.reset.next = self.reset.val();
        self.beats.reset.next = self.reset.val();
        self.icrcs.reset.next = self.reset.val();
        // ---- Idle: take a request ----
        self.req_info.opcode.next = self.req_opcode.val();
        self.req_ready.next = self.state.q.val() == TxBuildState::Idle;
        if (self.state.q.val() == TxBuildState::Idle) & self.req_valid.val() {
            self.state.d.next = TxBuildState::Lengths;
            self.r_dst_mac.d.next = self.req_dst_mac.val();
            self.r_src_mac.d.next = self.req_src_mac.val();
            self.r_src_ip.d.next = self.req_src_ip.val();
            self.r_dst_ip.d.next = self.req_dst_ip.val();
            self.r_sport.d.next = self.req_udp_src_port.val();
            self.r_tos.d.next = self.req_tos.val();
            self.r_ttl.d.next = self.req_ttl.val();
            self.r_opcode.d.next = self.req_opcode.val();
            // SE, M (0), PadCnt (filled in Lengths), TVer (0)
            self.r_flags.d.next = 0.into();
            if self.req_solicited.val() {
                self.r_flags.d.next = 0x80.into();
            }
            self.r_ack.d.next = 0.into();
            if self.req_ack_req.val() {
                self.r_ack.d.next = 0x80.into();
            }
            self.r_pkey.d.next = self.req_pkey.val();
            self.r_dqp.d.next = self.req_dest_qp.val();
            self.r_psn.d.next = self.req_psn.val();
            self.r_len.d.next = self.req_payload_len.val();
            // RETH (va, rkey, length) then ImmDt; or AETH; or ImmDt alone
            self.r_ext.d.next = (bit_cast::<160, 64>(self.req_va.val()) << 96) | (bit_cast::<160, 32>(self.req_rkey.val()) << 64)
                | (bit_cast::<160, 32>(self.req_dma_len.val()) << 32) | bit_cast::<160, 32>(self.req_immdt.val());
            if self.req_info.aeth.val() {
                self.r_ext.d.next = (bit_cast::<160, 8>(self.req_syndrome.val()) << 152) | (bit_cast::<160, 24>(self.req_msn.val()) << 128);
            }
            if self.req_info.immdt.val() & !self.req_info.reth.val() {
                self.r_ext.d.next = bit_cast::<160, 32>(self.req_immdt.val()) << 128;
            }
        }
        // ---- Lengths ----
        self.op_info.opcode.next = self.r_opcode.q.val();
        self.ext_len.next = self.op_info.ext_len.val();
        self.pad.next = (!self.r_len.q.val() + 1) & 3;
        if self.state.q.val() == TxBuildState::Lengths {
            self.state.d.next = TxBuildState::Checksum;
            self.r_flags.d.next = self.r_flags.q.val() | (bit_cast::<8, 16>(self.pad.val()) << 4);
            // IP (20) + UDP (8) + BTH (12) + ICRC (4) + extended headers + payload + pad
            self.t_total.d.next = self.ext_len.val() + self.r_len.q.val() + self.pad.val() + 44;
            self.t_pstart.d.next = self.ext_len.val() + 54;
            self.t_s6.d.next = !self.ext_len.val().get_bit(2);
            self.t_pend.d.next = self.ext_len.val() + 54 + self.r_len.q.val();
            self.t_npay.d.next = (self.r_len.q.val() + 7) >> 3;
            // the IPv4 header's words but the total length: 0x45 TOS, ID 0, DF, TTL UDP, addresses
            self.t_sum.d.next = bit_cast::<20, 8>(self.r_tos.q.val()) + 0x4500 + 0x4000 + (bit_cast::<20, 8>(self.r_ttl.q.val()) << 8) + 0x11
                + bit_cast::<20, 16>(self.r_src_ip.q.val().get_bits::<16>(16)) + bit_cast::<20, 16>(self.r_src_ip.q.val().get_bits::<16>(0))
                + bit_cast::<20, 16>(self.r_dst_ip.q.val().get_bits::<16>(16)) + bit_cast::<20, 16>(self.r_dst_ip.q.val().get_bits::<16>(0));
        }
        // ---- the IPv4 checksum: add the total length, fold twice, invert, a step a
        // cycle (156.25 MHz), free-running: the sums hold still from Lengths until the
        // packet's last beat, and the checksum is ready from the third cycle after
        // Checksum, one before the beat that carries it (j = 3) can leave ----
        self.csum_a.d.next = self.t_sum.q.val() + bit_cast::<20, 16>(self.t_total.q.val());
        self.csum_b.d.next = bit_cast::<20, 16>(self.csum_a.q.val().get_bits::<16>(0)) + bit_cast::<20, 4>(self.csum_a.q.val().get_bits::<4>(16));
        // (after two folds no carry is left: 16 bits hold the sum)
        self.fold.next = self.csum_b.q.val().get_bits::<16>(0) + bit_cast::<16, 4>(self.csum_b.q.val().get_bits::<4>(16));
        self.t_csum.d.next = !self.fold.val();
        if self.state.q.val() == TxBuildState::Checksum {
            self.state.d.next = TxBuildState::Emit;
            self.h_rem.d.next = self.t_pstart.q.val();
            self.p_rem.d.next = self.t_pend.q.val();
            self.f_rem.d.next = self.t_total.q.val() + 14;
            self.c_rem.d.next = self.t_total.q.val() + 10;
            self.after_place2.d.next = false;
            self.h_low.d.next = self.t_pstart.q.val() < 8;
            self.pay_more.d.next = self.t_npay.q.val().any();
            self.j.d.next = 0.into();
            self.taken.d.next = 0.into();
            self.pprev.d.next = 0.into();
        }
        // ---- Emit: header beats, then the payload realigned, pad and ICRC lanes zero ----
        self.hdr_be.next = 0.into();
        if self.j.q.val() == 0 {
            self.hdr_be.next = (bit_cast::<64, 48>(self.r_dst_mac.q.val()) << 16) | bit_cast::<64, 16>(self.r_src_mac.q.val().get_bits::<16>(32));
        }
        if self.j.q.val() == 1 {
            self.hdr_be.next = (bit_cast::<64, 32>(self.r_src_mac.q.val().get_bits::<32>(0)) << 32) | 0x0800_4500 | bit_cast::<64, 8>(self.r_tos.q.val());
        }
        if self.j.q.val() == 2 {
            self.hdr_be.next = (bit_cast::<64, 16>(self.t_total.q.val()) << 48) | 0x4000_0011 | (bit_cast::<64, 8>(self.r_ttl.q.val()) << 8);
        }
        if self.j.q.val() == 3 {
            self.hdr_be.next = (bit_cast::<64, 16>(self.t_csum.q.val()) << 48) | (bit_cast::<64, 32>(self.r_src_ip.q.val()) << 16)
                | bit_cast::<64, 16>(self.r_dst_ip.q.val().get_bits::<16>(16));
        }
        if self.j.q.val() == 4 {
            // UDP length = IP total length - 20
            self.hdr_be.next = (bit_cast::<64, 16>(self.r_dst_ip.q.val().get_bits::<16>(0)) << 48) | (bit_cast::<64, 16>(self.r_sport.q.val()) << 32)
                | 0x12b7_0000 | bit_cast::<64, 16>(self.t_total.q.val() - 20);
        }
        if self.j.q.val() == 5 {
            self.hdr_be.next = (bit_cast::<64, 8>(self.r_opcode.q.val()) << 40) | (bit_cast::<64, 8>(self.r_flags.q.val()) << 32)
                | (bit_cast::<64, 16>(self.r_pkey.q.val()) << 16) | bit_cast::<64, 8>(self.r_dqp.q.val().get_bits::<8>(16));
        }
        if self.j.q.val() == 6 {
            self.hdr_be.next = (bit_cast::<64, 16>(self.r_dqp.q.val().get_bits::<16>(0)) << 48) | (bit_cast::<64, 8>(self.r_ack.q.val()) << 40)
                | (bit_cast::<64, 24>(self.r_psn.q.val()) << 16) | bit_cast::<64, 16>(self.r_ext.q.val().get_bits::<16>(144));
        }
        if self.j.q.val() == 7 {
            self.hdr_be.next = self.r_ext.q.val().get_bits::<64>(80);
        }
        if self.j.q.val() == 8 {
            self.hdr_be.next = self.r_ext.q.val().get_bits::<64>(16);
        }
        if self.j.q.val() == 9 {
            self.hdr_be.next = bit_cast::<64, 16>(self.r_ext.q.val().get_bits::<16>(0)) << 48;
        }
        // byte 0 of the big-endian word goes to lane 0
        self.hdr.next = 0.into();
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(56)) << 0);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(48)) << 8);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(40)) << 16);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(32)) << 24);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(24)) << 32);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(16)) << 40);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(8)) << 48);
        self.hdr.next = self.hdr.val() | (bit_cast::<64, 8>(self.hdr_be.val().get_bits::<8>(0)) << 56);
        // lanes: header below pstart, payload in [pstart, pend). The distances from this
        // beat to pstart, pend, the frame's end and the ICRC are kept as registers counting
        // down by 8, so each lane is a compare of a register with a constant.
        self.hmask.next = 0.into();
        self.pmask.next = 0.into();
        for l in 0..8 {
            if self.h_rem.q.val() > self.lane_off[l].val() {
                self.hmask.next = self.hmask.val() | self.lane_mask[l].val();
            } else if self.p_rem.q.val() > self.lane_off[l].val() {
                self.pmask.next = self.pmask.val() | self.lane_mask[l].val();
            }
        }
        // a payload beat is taken once the header is out and while beats remain (both
        // registered flags: the compares behind them took the cycle before)
        self.consume.next = self.h_low.q.val() & self.pay_more.q.val();
        self.cur.next = 0.into();
        if self.consume.val() {
            self.cur.next = self.pay_data.val();
        }
        self.pay_part.next = (self.cur.val() << 16) | (self.pprev.q.val() >> 48);
        if self.t_s6.q.val() {
            self.pay_part.next = (self.cur.val() << 48) | (self.pprev.q.val() >> 16);
        }
        self.data.next = (self.hdr.val() & self.hmask.val()) | (self.pay_part.val() & self.pmask.val());
        self.last.next = self.f_rem.q.val() <= 8;
        self.nbytes.next = 8.into();
        if self.last.val() {
            self.nbytes.next = self.f_rem.q.val().get_bits::<4>(0);
        }
        // the ICRC starts in this beat: lanes 2..5, or 6..7 and the next beat's 0..1
        self.place.next = 0.into();
        if self.c_rem.q.val() < 8 {
            self.place.next = 1.into();
            if self.c_rem.q.val().get_bit(2) {
                self.place.next = 2.into();
            }
        }
        if self.after_place2.q.val() {
            self.place.next = 3.into();
        }
        // room for this beat and the one in the stage register, judged a cycle early
        // (a registered flag: the FIFO's count compare is off the path to every
        // counter `go` enables), so with a beat of slack more
        self.room_q.d.next = self.beats.count.val() < 14;
        self.room.next = self.room_q.q.val();
        self.go.next = (self.state.q.val() == TxBuildState::Emit) & self.room.val() & (!self.consume.val() | self.pay_valid.val());
        self.pay_ready.next = (self.state.q.val() == TxBuildState::Emit) & self.room.val() & self.consume.val();
        self.word.next = bit_cast::<71, 64>(self.data.val()) | (bit_cast::<71, 4>(self.nbytes.val()) << 64)
            | (bit_cast::<71, 2>(self.place.val()) << 69);
        if self.last.val() {
            self.word.next = self.word.val() | self.last_flag.val();
        }
        self.s_valid.d.next = self.go.val();
        self.s_word.d.next = self.word.val();
        self.s_first.d.next = self.j.q.val() == 0;
        self.s_icrc_last.d.next = (self.c_rem.q.val() != 0) & (self.c_rem.q.val() <= 8);
        self.s_icrc_last_6.d.next = self.c_rem.q.val().get_bit(2);
        self.beats.write.next = self.s_valid.q.val();
        self.beats.data_in.next = self.s_word.q.val();
        self.icrc_unit.beat_valid.next = self.s_valid.q.val();
        self.icrc_unit.beat_data.next = self.s_word.q.val().get_bits::<64>(0);
        self.icrc_unit.beat_first.next = self.s_first.q.val();
        self.icrc_unit.beat_last.next = self.s_icrc_last.q.val();
        self.icrc_unit.beat_last_6.next = self.s_icrc_last_6.q.val();
        if self.go.val() {
            self.h_rem.d.next = 0.into();
            if self.h_rem.q.val() >= 8 {
                self.h_rem.d.next = self.h_rem.q.val() - 8;
            }
            // h_rem < 8 after this beat
            self.h_low.d.next = self.h_rem.q.val() < 16;
            self.p_rem.d.next = 0.into();
            if self.p_rem.q.val() >= 8 {
                self.p_rem.d.next = self.p_rem.q.val() - 8;
            }
            self.f_rem.d.next = self.f_rem.q.val() - 8;
            // wraps past zero once the ICRC's beat is behind: `< 8` holds in that beat only
            self.c_rem.d.next = self.c_rem.q.val() - 8;
            self.after_place2.d.next = self.place.val() == 2;
            if self.j.q.val() != 15 {
                self.j.d.next = self.j.q.val() + 1;
            }
            if self.consume.val() {
                self.pprev.d.next = self.pay_data.val();
                self.taken.d.next = self.taken.q.val() + 1;
                self.pay_more.d.next = (self.taken.q.val() + 1) != self.t_npay.q.val();
            }
            if self.last.val() {
                self.state.d.next = TxBuildState::Idle;
            }
        }
        // ---- the ICRC results, in order ----
        self.icrcs.write.next = self.icrc_unit.icrc_valid.val();
        self.icrcs.data_in.next = self.icrc_unit.icrc.val();
        // ---- out: each beat with its ICRC bytes put in ----
        self.head.next = self.beats.data_out.val();
        self.head_place.next = self.head.val().get_bits::<2>(69);
        self.icrc_now.next = self.icrcs.data_out.val();
        self.out_valid.next = !self.beats.empty.val() & ((self.head_place.val() == 0) | !self.icrcs.empty.val());
        self.out_data.next = self.head.val().get_bits::<64>(0);
        if self.head_place.val() == 1 {
            self.out_data.next = self.head.val().get_bits::<64>(0) | (bit_cast::<64, 32>(self.icrc_now.val()) << 16);
        }
        if self.head_place.val() == 2 {
            self.out_data.next = self.head.val().get_bits::<64>(0) | (bit_cast::<64, 16>(self.icrc_now.val().get_bits::<16>(0)) << 48);
        }
        if self.head_place.val() == 3 {
            self.out_data.next = self.head.val().get_bits::<64>(0) | bit_cast::<64, 16>(self.icrc_now.val().get_bits::<16>(16));
        }
        self.out_nbytes.next = self.head.val().get_bits::<4>(64);
        self.out_last.next = self.head.val().get_bit(68);
        self.beats.read.next = self.out_valid.val() & self.out_ready.val();
        self.icrcs.read.next = self.out_valid.val() & self.out_ready.val() & ((self.head_place.val() == 1) | (self.head_place.val() == 3));
        if self.reset.val() {
            self.state.d.next = TxBuildState::Idle;
            self.s_valid.d.next = false;
        }
    }
}

