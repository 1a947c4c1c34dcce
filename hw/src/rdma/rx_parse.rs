//! RoCEv2 receive parsing: the header fields, the payload realigned to lane 0, and a
//! verdict that includes the ICRC, for a frame the classifier diverts to the RDMA engine.
//!
//! Cut-through: the block sees every frame MAC RX passes, as the RX classifier takes it in,
//! not only those the classifier diverts once it has judged them (the classifier stores a
//! frame until its filter, RSS and checksum verdicts are known: 25 to 35 cycles). The
//! classifier's verdict for each frame (`v_valid`, `v_roce`: RoCEv2 for this NIC that its
//! filter accepts) comes in frame order within a few cycles of the frame's last beat, and
//! the frame's record waits for it. A *candidate* frame (untagged IPv4 without options,
//! UDP to port 4791, destination LOCAL_IPV4: every frame the classifier can divert) has
//! its payload put out as it passes and gets a record; the verdict then says whether the
//! record is the engine's (`rec_foreign` low) or only tells the consumer to discard the
//! payload (`rec_foreign`, status MALFORMED, not counted). Any other frame puts out
//! nothing and gets no record, but takes its verdict.
//!
//! A candidate is untagged IPv4 without options, so every
//! field sits at a fixed byte and is taken from a 16-byte window of the previous and the
//! current beat as it passes (byte reversed, so a big-endian field is a plain bit slice).
//! The extended header after the BTH starts at byte 54: AETH or ImmDt at 54, RETH at
//! 54..70, and ImmDt at 70 behind a RETH (RDMA WRITE Only with Immediate).
//!
//! Nothing here writes memory or holds the frame: the payload leaves as it arrives
//! (`pay_*`), and the frame's record (`rec_*`) follows [`RECORD_DELAY`] cycles after
//! its last beat, once the ICRC is known (later if the classifier's verdict is: the record
//! waits in its output registers, at most [`VERDICT_WAIT_MAX`] cycles). The consumer keeps the payload until the record
//! says `status` 0 and discards `rec_beats` beats otherwise, so a bad packet never
//! touches memory. Only a candidate of 8 beats or more gets a record, so records are 8
//! cycles apart at least: one is in flight at a time. Shorter frames (runts, which MAC RX
//! passes with their status) only take their verdict, in their turn.
//!
//! Pipeline: the window feeds the field registers and `RdmaIcrc`; the opcode's decode
//! (extended header length, payload bounds) is registered a beat after the BTH; the
//! payload is realigned two beats behind the input (S1 registers the window and both
//! candidate offsets, S2 what of it is payload), so that decode is ready for the first
//! payload beat and no stage holds more than one subtraction or compare; the header
//! checks are registered flags.

use super::icrc::{RdmaIcrc, LATENCY as ICRC_LATENCY};
use super::opcode::RdmaOpcodeInfo;
use super::super::stream::FlagQueue;
use rust_hdl::prelude::*;

/// Cycles from a frame's last beat in to its `rec_valid`.
pub const RECORD_DELAY: u64 = 8;
const _: () = assert!(ICRC_LATENCY + 1 < RECORD_DELAY);
/// The longest a record may wait for its verdict: the next frame's record is taken into
/// the output registers 8 cycles after this one at the earliest. The classifier's verdict
/// comes 6 or 7 cycles after a frame's last beat, at most 12 (when the frame's record
/// waits for RSS, which takes one every 8 cycles): the record waits 5 cycles at most.
pub const VERDICT_WAIT_MAX: u64 = 7;

/// `rec_status` values.
pub mod status {
    pub const OK: u64 = 0;
    /// The ICRC does not match: dropped silently (IBTA A17.3.3), counted.
    pub const BAD_ICRC: u64 = 1;
    /// Not a well-formed RoCEv2/IPv4 packet: IP/UDP fields or lengths, a frame shorter
    /// than its IP packet (the ICRC cannot be judged); or, with a good ICRC, a BTH version
    /// other than 0, or headers, pad or payload that do not fit the opcode.
    pub const MALFORMED: u64 = 2;
    /// A well-formed packet with a good ICRC whose opcode is not an RC opcode this engine
    /// implements (the responder answers NAK invalid request).
    pub const UNSUPPORTED_OPCODE: u64 = 3;
}

#[derive(LogicBlock)]
pub struct RdmaRxParse {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- the frame (no FCS), one beat per cycle at most; no backpressure ----
    pub in_valid: Signal<In, Bit>,
    /// Lane 0 (bits 7:0) is the first byte.
    pub in_data: Signal<In, Bits<64>>,
    /// Bytes in the beat (8 but on the last, 1..8).
    pub in_nbytes: Signal<In, Bits<4>>,
    pub in_last: Signal<In, Bit>,
    /// MAC RX's status on the last beat (`mac::rx_status`): a frame with any error (bad
    /// FCS, runt, oversize, PHY error) is MALFORMED, whatever its ICRC says.
    pub in_status: Signal<In, Bits<3>>,
    /// The engine's LOCAL_IPV4: a candidate frame's destination.
    pub local_ipv4: Signal<In, Bits<32>>,
    // ---- the classifier's verdict on each frame, in frame order ----
    pub v_valid: Signal<In, Bit>,
    pub v_roce: Signal<In, Bit>,
    // ---- the payload, realigned to lane 0 ----
    pub pay_valid: Signal<Out, Bit>,
    pub pay_data: Signal<Out, Bits<64>>,
    pub pay_nbytes: Signal<Out, Bits<4>>,
    pub pay_last: Signal<Out, Bit>,
    // ---- the frame's record, RECORD_DELAY cycles after its last beat ----
    pub rec_valid: Signal<Out, Bit>,
    /// The classifier keeps the frame (not RoCEv2 for this NIC, or its filter refused it):
    /// the record only accounts for its payload beats (status MALFORMED, not counted).
    pub rec_foreign: Signal<Out, Bit>,
    /// A frame of fewer than 8 beats the classifier diverted (it cannot hold a RoCEv2
    /// packet): dropped without a record, to be counted as malformed.
    pub drop_short: Signal<Out, Bit>,
    pub rec_status: Signal<Out, Bits<2>>,
    pub rec_opcode: Signal<Out, Bits<8>>,
    pub rec_solicited: Signal<Out, Bit>,
    pub rec_ack_req: Signal<Out, Bit>,
    pub rec_pkey: Signal<Out, Bits<16>>,
    pub rec_dest_qp: Signal<Out, Bits<24>>,
    pub rec_psn: Signal<Out, Bits<24>>,
    pub rec_src_ip: Signal<Out, Bits<32>>,
    pub rec_udp_src_port: Signal<Out, Bits<16>>,
    pub rec_va: Signal<Out, Bits<64>>,
    pub rec_rkey: Signal<Out, Bits<32>>,
    pub rec_dma_len: Signal<Out, Bits<32>>,
    /// AETH syndrome and MSN (meaningful for opcodes with an AETH).
    pub rec_syndrome: Signal<Out, Bits<8>>,
    pub rec_msn: Signal<Out, Bits<24>>,
    /// Immediate data (meaningful for opcodes with ImmDt).
    pub rec_immdt: Signal<Out, Bits<32>>,
    pub rec_payload_len: Signal<Out, Bits<16>>,
    /// Payload beats this frame put out (whatever its status).
    pub rec_beats: Signal<Out, Bits<16>>,
    // ---- children ----
    icrc_unit: RdmaIcrc,
    op_info: RdmaOpcodeInfo,
    // ---- input position and window ----
    k: DFF<Bits<4>>,
    pos: DFF<Bits<16>>,
    prev: DFF<Bits<64>>,
    win: Signal<Local, Bits<128>>,
    // ---- live fields ----
    l_ethertype: DFF<Bits<16>>,
    l_ver_ihl: DFF<Bits<8>>,
    l_total: DFF<Bits<16>>,
    l_frag: DFF<Bits<16>>,
    l_proto: DFF<Bits<8>>,
    l_src_ip: DFF<Bits<32>>,
    l_dst_ip: DFF<Bits<32>>,
    l_sport: DFF<Bits<16>>,
    l_dport: DFF<Bits<16>>,
    l_udp_len: DFF<Bits<16>>,
    l_opcode: DFF<Bits<8>>,
    l_flags: DFF<Bits<8>>,
    l_pkey: DFF<Bits<16>>,
    l_dqp: DFF<Bits<24>>,
    l_ack: DFF<Bits<8>>,
    l_psn: DFF<Bits<24>>,
    l_ext4: DFF<Bits<32>>,
    l_va: DFF<Bits<64>>,
    l_rkey: DFF<Bits<32>>,
    l_dma_len: DFF<Bits<32>>,
    l_imm70: DFF<Bits<32>>,
    l_rx_icrc: DFF<Bits<32>>,
    /// The ICRC unit was given this frame's coverage end.
    l_expect: DFF<Bit>,
    l_beats: DFF<Bits<16>>,
    // ---- registered decode and checks ----
    ext_len: Signal<Local, Bits<16>>,
    pad: Signal<Local, Bits<16>>,
    has_pay: Signal<Local, Bit>,
    e_has_pay: DFF<Bit>,
    e_unsupported: DFF<Bit>,
    e_pstart: DFF<Bits<16>>,
    e_pay_len: DFF<Bits<16>>,
    e_pend: DFF<Bits<16>>,
    e_s6: DFF<Bit>,
    e_cover_end: DFF<Bits<16>>,
    /// The beats (numbered from 0) holding the last covered byte and the ICRC's last byte:
    /// `pos` is a multiple of 8, so 'this beat holds byte n' is one equality compare of the
    /// beat number with n / 8, where a window compare of `pos` took an adder and two
    /// magnitude compares before the ICRC register's enable (156.25 MHz).
    e_cover_beat: DFF<Bits<14>>,
    e_icrc_beat: DFF<Bits<14>>,
    beat_no: Signal<Local, Bits<14>>,
    e_len_ok: DFF<Bit>,
    e_ip_ok: DFF<Bit>,
    e_bth_ok: DFF<Bit>,
    /// A candidate: what the classifier may divert (see the module comment).
    e_cand: DFF<Bit>,
    /// Untagged IPv4 without options, UDP to port 4791: what both judgements start from.
    roce_udp: Signal<Local, Bit>,
    // ---- S1, S2: the payload two beats behind ----
    s1_valid: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_mac_bad: DFF<Bit>,
    s1_prev: DFF<Bits<64>>,
    s1_cur: DFF<Bits<64>>,
    s1_pos: DFF<Bits<16>>,
    s1_nbytes: DFF<Bits<4>>,
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_nbytes: DFF<Bits<4>>,
    o_last: DFF<Bit>,
    lo: Signal<Local, Bits<16>>,
    s1_ge8: DFF<Bit>,
    s1_lo6: DFF<Bits<16>>,
    s1_lo2: DFF<Bits<16>>,
    s2_valid: DFF<Bit>,
    s2_last: DFF<Bit>,
    s2_mac_bad: DFF<Bit>,
    s2_flen: DFF<Bits<16>>,
    s2_pos: DFF<Bits<16>>,
    s2_emit: DFF<Bit>,
    s2_left: DFF<Bits<16>>,
    s2_data: DFF<Bits<64>>,
    emit: Signal<Local, Bit>,
    // ---- the finished frame, until its record leaves ----
    timer: DFF<Bits<3>>,
    res_seen: DFF<Bit>,
    res_icrc: DFF<Bits<32>>,
    f_rx_icrc: DFF<Bits<32>>,
    /// The status if the ICRC is good.
    f_status: DFF<Bits<2>>,
    f_outer_bad: DFF<Bit>,
    status: Signal<Local, Bits<2>>,
    // ---- the record's output registers, taken while the timer says 2, when every input
    // is final (the ICRC result lands by then: `ICRC_LATENCY + 1 < RECORD_DELAY`); held
    // until the frame's verdict is in ----
    r_pending: DFF<Bit>,
    r_status: DFF<Bits<2>>,
    r_opcode: DFF<Bits<8>>,
    r_flags: DFF<Bits<8>>,
    r_ack: DFF<Bits<8>>,
    r_pkey: DFF<Bits<16>>,
    r_dqp: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_src_ip: DFF<Bits<32>>,
    r_sport: DFF<Bits<16>>,
    r_va: DFF<Bits<64>>,
    r_rkey: DFF<Bits<32>>,
    r_dma_len: DFF<Bits<32>>,
    r_ext4: DFF<Bits<32>>,
    r_immdt: DFF<Bits<32>>,
    r_pay_len: DFF<Bits<16>>,
    r_beats: DFF<Bits<16>>,
    // ---- the verdicts not yet taken (RoCE for this NIC), and the frame ends not yet
    // answered (recorded), oldest in bit 0: a handful at most, short frames coming closer
    // together than the classifier's verdicts ----
    verdicts: FlagQueue,
    frame_ends: FlagQueue,
    frame_end: Signal<Local, Bit>,
    recorded: Signal<Local, Bit>,
    v_have: Signal<Local, Bit>,
    v_pop: Signal<Local, Bit>,
    skip_fire: Signal<Local, Bit>,
    rec_fire: Signal<Local, Bit>,
    f_expect: DFF<Bit>,
    f_opcode: DFF<Bits<8>>,
    f_flags: DFF<Bits<8>>,
    f_ack: DFF<Bits<8>>,
    f_pkey: DFF<Bits<16>>,
    f_dqp: DFF<Bits<24>>,
    f_psn: DFF<Bits<24>>,
    f_src_ip: DFF<Bits<32>>,
    f_sport: DFF<Bits<16>>,
    f_va: DFF<Bits<64>>,
    f_rkey: DFF<Bits<32>>,
    f_dma_len: DFF<Bits<32>>,
    f_ext4: DFF<Bits<32>>,
    f_imm70: DFF<Bits<32>>,
    f_pay_len: DFF<Bits<16>>,
    f_beats: DFF<Bits<16>>,
    malformed: Signal<Local, Bit>,
    /// This beat holds the last byte the ICRC covers.
    cover_ends: Signal<Local, Bit>,
}

impl Default for RdmaRxParse {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_nbytes: Default::default(),
            in_last: Default::default(),
            local_ipv4: Default::default(),
            v_valid: Default::default(),
            v_roce: Default::default(),
            pay_valid: Default::default(),
            pay_data: Default::default(),
            pay_nbytes: Default::default(),
            pay_last: Default::default(),
            rec_valid: Default::default(),
            rec_foreign: Default::default(),
            rec_status: Default::default(),
            rec_opcode: Default::default(),
            rec_solicited: Default::default(),
            rec_ack_req: Default::default(),
            rec_pkey: Default::default(),
            rec_dest_qp: Default::default(),
            rec_psn: Default::default(),
            rec_src_ip: Default::default(),
            rec_udp_src_port: Default::default(),
            rec_va: Default::default(),
            rec_rkey: Default::default(),
            rec_dma_len: Default::default(),
            rec_syndrome: Default::default(),
            rec_msn: Default::default(),
            rec_immdt: Default::default(),
            rec_payload_len: Default::default(),
            rec_beats: Default::default(),
            icrc_unit: Default::default(),
            op_info: Default::default(),
            k: Default::default(),
            pos: Default::default(),
            prev: Default::default(),
            win: Default::default(),
            l_ethertype: Default::default(),
            l_ver_ihl: Default::default(),
            l_total: Default::default(),
            l_frag: Default::default(),
            l_proto: Default::default(),
            l_src_ip: Default::default(),
            l_dst_ip: Default::default(),
            l_sport: Default::default(),
            l_dport: Default::default(),
            l_udp_len: Default::default(),
            l_opcode: Default::default(),
            l_flags: Default::default(),
            l_pkey: Default::default(),
            l_dqp: Default::default(),
            l_ack: Default::default(),
            l_psn: Default::default(),
            l_ext4: Default::default(),
            l_va: Default::default(),
            l_rkey: Default::default(),
            l_dma_len: Default::default(),
            l_imm70: Default::default(),
            l_rx_icrc: Default::default(),
            l_expect: Default::default(),
            l_beats: Default::default(),
            ext_len: Default::default(),
            pad: Default::default(),
            has_pay: Default::default(),
            e_has_pay: Default::default(),
            e_unsupported: Default::default(),
            e_pstart: Default::default(),
            e_pay_len: Default::default(),
            e_pend: Default::default(),
            e_s6: Default::default(),
            e_cover_end: Default::default(),
            e_cover_beat: Default::default(),
            e_icrc_beat: Default::default(),
            beat_no: Default::default(),
            e_len_ok: Default::default(),
            e_ip_ok: Default::default(),
            e_bth_ok: Default::default(),
            e_cand: Default::default(),
            roce_udp: Default::default(),
            s1_valid: Default::default(),
            s1_last: Default::default(),
            s1_mac_bad: Default::default(),
            in_status: Default::default(),
            s1_prev: Default::default(),
            s1_cur: Default::default(),
            s1_pos: Default::default(),
            s1_nbytes: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_nbytes: Default::default(),
            o_last: Default::default(),
            lo: Default::default(),
            s1_ge8: Default::default(),
            s1_lo6: Default::default(),
            s1_lo2: Default::default(),
            s2_valid: Default::default(),
            s2_last: Default::default(),
            s2_mac_bad: Default::default(),
            s2_flen: Default::default(),
            s2_pos: Default::default(),
            s2_emit: Default::default(),
            s2_left: Default::default(),
            s2_data: Default::default(),
            emit: Default::default(),
            timer: Default::default(),
            res_seen: Default::default(),
            res_icrc: Default::default(),
            f_rx_icrc: Default::default(),
            f_status: Default::default(),
            f_outer_bad: Default::default(),
            status: Default::default(),
            r_pending: Default::default(),
            r_status: Default::default(),
            r_opcode: Default::default(),
            r_flags: Default::default(),
            r_ack: Default::default(),
            r_pkey: Default::default(),
            r_dqp: Default::default(),
            r_psn: Default::default(),
            r_src_ip: Default::default(),
            r_sport: Default::default(),
            r_va: Default::default(),
            r_rkey: Default::default(),
            r_dma_len: Default::default(),
            r_ext4: Default::default(),
            r_immdt: Default::default(),
            r_pay_len: Default::default(),
            r_beats: Default::default(),
            verdicts: Default::default(),
            frame_ends: Default::default(),
            rec_fire: Default::default(),
            frame_end: Default::default(),
            recorded: Default::default(),
            v_have: Default::default(),
            v_pop: Default::default(),
            skip_fire: Default::default(),
            drop_short: Default::default(),
            f_expect: Default::default(),
            f_opcode: Default::default(),
            f_flags: Default::default(),
            f_ack: Default::default(),
            f_pkey: Default::default(),
            f_dqp: Default::default(),
            f_psn: Default::default(),
            f_src_ip: Default::default(),
            f_sport: Default::default(),
            f_va: Default::default(),
            f_rkey: Default::default(),
            f_dma_len: Default::default(),
            f_ext4: Default::default(),
            f_imm70: Default::default(),
            f_pay_len: Default::default(),
            f_beats: Default::default(),
            malformed: Default::default(),
            cover_ends: Default::default(),
        }
    }
}

impl Logic for RdmaRxParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k, pos, prev, l_ethertype, l_ver_ihl, l_total, l_frag, l_proto, l_src_ip, l_sport, l_dport,
            l_udp_len, l_opcode, l_flags, l_pkey, l_dqp, l_ack, l_psn, l_ext4, l_va, l_rkey, l_dma_len, l_imm70, l_rx_icrc,
            l_expect, l_beats, e_has_pay, e_unsupported, e_pstart, e_pay_len, e_pend, e_s6, e_cover_end,
            e_cover_beat, e_icrc_beat, e_len_ok, e_ip_ok, e_bth_ok, s1_valid, s1_last, s1_mac_bad, s2_mac_bad, s1_prev, s1_cur, s1_pos, s1_nbytes, s1_ge8, s1_lo6, s1_lo2, s2_valid, s2_last, s2_flen,
            s2_pos, s2_emit, s2_left, s2_data, o_valid,
            o_data, o_nbytes, o_last, timer, res_seen, res_icrc, f_rx_icrc, f_status, f_outer_bad, f_expect, f_opcode, f_flags, f_ack, f_pkey,
            f_dqp, f_psn, f_src_ip, f_sport, f_va, f_rkey, f_dma_len, f_ext4, f_imm70, f_pay_len, f_beats, l_dst_ip, e_cand,
            r_pending, r_status, r_opcode, r_flags, r_ack, r_pkey, r_dqp, r_psn, r_src_ip, r_sport, r_va, r_rkey, r_dma_len,
            r_ext4, r_immdt, r_pay_len, r_beats);
        clock!(self, clock, icrc_unit, verdicts, frame_ends);
        self.verdicts.reset.next = self.reset.val();
        self.frame_ends.reset.next = self.reset.val();
        // ---- the window: previous and current beat, byte reversed (byte 0 at the top) ----
        self.win.next = 0.into();
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(0)) << 120);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(8)) << 112);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(16)) << 104);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(24)) << 96);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(32)) << 88);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(40)) << 80);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(48)) << 72);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.prev.q.val().get_bits::<8>(56)) << 64);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(0)) << 56);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(8)) << 48);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(16)) << 40);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(24)) << 32);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(32)) << 24);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(40)) << 16);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(48)) << 8);
        self.win.next = self.win.val() | (bit_cast::<128, 8>(self.in_data.val().get_bits::<8>(56)) << 0);
        // ---- fields, each from the beat that completes it ----
        self.beat_no.next = bit_cast::<14, 16>(self.pos.q.val() >> 3);
        if self.in_valid.val() {
            self.prev.d.next = self.in_data.val();
            self.pos.d.next = self.pos.q.val() + 8;
            self.k.d.next = self.k.q.val() + 1;
            if self.k.q.val() == 15 {
                self.k.d.next = self.k.q.val();
            }
            if self.in_last.val() {
                self.pos.d.next = 0.into();
                self.k.d.next = 0.into();
            }
            if self.k.q.val() == 2 {
                self.l_ethertype.d.next = self.win.val().get_bits::<16>(80);
                self.l_ver_ihl.d.next = self.win.val().get_bits::<8>(72);
                self.l_total.d.next = self.win.val().get_bits::<16>(48);
                self.l_frag.d.next = self.win.val().get_bits::<16>(16);
                self.l_proto.d.next = self.win.val().get_bits::<8>(0);
            }
            if self.k.q.val() == 4 {
                self.l_src_ip.d.next = self.win.val().get_bits::<32>(80);
                self.l_dst_ip.d.next = self.win.val().get_bits::<32>(48);
                self.l_sport.d.next = self.win.val().get_bits::<16>(32);
                self.l_dport.d.next = self.win.val().get_bits::<16>(16);
                self.l_udp_len.d.next = self.win.val().get_bits::<16>(0);
            }
            if self.k.q.val() == 6 {
                self.l_opcode.d.next = self.win.val().get_bits::<8>(104);
                self.l_flags.d.next = self.win.val().get_bits::<8>(96);
                self.l_pkey.d.next = self.win.val().get_bits::<16>(80);
                self.l_dqp.d.next = self.win.val().get_bits::<24>(48);
                self.l_ack.d.next = self.win.val().get_bits::<8>(40);
                self.l_psn.d.next = self.win.val().get_bits::<24>(16);
            }
            if self.k.q.val() == 7 {
                self.l_ext4.d.next = self.win.val().get_bits::<32>(48);
                self.l_va.d.next = self.win.val().get_bits::<64>(16);
            }
            if self.k.q.val() == 8 {
                self.l_rkey.d.next = self.win.val().get_bits::<32>(48);
                self.l_dma_len.d.next = self.win.val().get_bits::<32>(16);
            }
            if self.k.q.val() == 9 {
                self.l_imm70.d.next = self.win.val().get_bits::<32>(48);
            }
            // the received ICRC, from the beat holding its last byte (little-endian as sent)
            if (self.beat_no.val() == self.e_icrc_beat.q.val()) & (self.k.q.val() >= 4) {
                self.l_rx_icrc.d.next = self.in_data.val().get_bits::<32>(16);
                if self.e_cover_end.q.val().get_bit(2) {
                    self.l_rx_icrc.d.next = bit_cast::<32, 16>(self.prev.q.val().get_bits::<16>(48)) | (bit_cast::<32, 16>(self.in_data.val().get_bits::<16>(0)) << 16);
                }
            }
        }
        // ---- the ICRC over the same beats ----
        // From beat 6 on `e_cand` is the frame's own (its fields were taken at beats 2 and
        // 4): a frame that is no candidate gets no record, so the ICRC stops taking its
        // beats there, and the simulator stops evaluating its networks (issue 21: the
        // unit sees every frame the NIC receives).
        self.icrc_unit.beat_valid.next = self.in_valid.val() & !((self.k.q.val() >= 6) & !self.e_cand.q.val());
        self.icrc_unit.beat_data.next = self.in_data.val();
        self.icrc_unit.beat_first.next = self.k.q.val() == 0;
        self.cover_ends.next = (self.beat_no.val() == self.e_cover_beat.q.val()) & (self.k.q.val() >= 4) & self.e_len_ok.q.val();
        self.icrc_unit.beat_last.next = self.cover_ends.val();
        self.icrc_unit.beat_last_6.next = self.e_cover_end.q.val().get_bit(2);
        if self.in_valid.val() & self.cover_ends.val() {
            self.l_expect.d.next = true;
        }
        self.icrc_unit.reset.next = self.reset.val();
        // ---- decode of the opcode and lengths, registered a beat after the BTH ----
        self.op_info.opcode.next = self.l_opcode.q.val();
        self.ext_len.next = self.op_info.ext_len.val();
        self.pad.next = bit_cast::<16, 2>(self.l_flags.q.val().get_bits::<2>(4));
        self.has_pay.next = self.op_info.payload.val();
        self.e_has_pay.d.next = self.has_pay.val();
        self.e_unsupported.d.next = !self.op_info.known.val();
        self.e_pstart.d.next = self.ext_len.val() + 54;
        self.e_s6.d.next = !self.ext_len.val().get_bit(2);
        // the payload ends 4 (ICRC) + pad bytes before the IP packet: 14 + total - 4 - pad
        self.e_pend.d.next = self.l_total.q.val() + 10 - self.pad.val();
        // IP total length less IP (20), UDP (8), BTH (12), ICRC (4), extended headers and pad
        self.e_pay_len.d.next = self.l_total.q.val() - 44 - self.ext_len.val() - self.pad.val();
        self.e_cover_end.d.next = self.l_total.q.val() + 10;
        // bytes 14 + total - 5 (the last covered) and 14 + total - 1 (the ICRC's last)
        self.e_cover_beat.d.next = bit_cast::<14, 17>((bit_cast::<17, 16>(self.l_total.q.val()) + 9) >> 3);
        self.e_icrc_beat.d.next = bit_cast::<14, 17>((bit_cast::<17, 16>(self.l_total.q.val()) + 13) >> 3);
        self.e_len_ok.d.next = (self.l_total.q.val().get_bits::<2>(0) == 0) & (self.l_total.q.val() >= 44);
        self.roce_udp.next = (self.l_ethertype.q.val() == 0x0800) & (self.l_ver_ihl.q.val() == 0x45) & (self.l_proto.q.val() == 17)
            & (self.l_dport.q.val() == 4791);
        self.e_ip_ok.d.next = self.roce_udp.val() & (self.l_frag.q.val().get_bits::<14>(0) == 0)
            & (self.l_udp_len.q.val() + 20 == self.l_total.q.val());
        // what the classifier may divert: its rule implies each of these (it also asks for
        // a well-formed IP header and an unfragmented packet, judged here as malformed)
        self.e_cand.d.next = self.roce_udp.val() & (self.l_dst_ip.q.val() == self.local_ipv4.val());
        // BTH version 0; headers and pad fit; no payload (nor pad) where the opcode has none
        self.e_bth_ok.d.next = (self.l_flags.q.val().get_bits::<4>(0) == 0)
            & (self.l_total.q.val() >= self.ext_len.val() + 44 + self.pad.val())
            & (self.has_pay.val() | ((self.l_total.q.val() == self.ext_len.val() + 44) & (self.pad.val() == 0)));
        // ---- S1: the window one beat behind, with both candidate payload offsets ----
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_last.d.next = self.in_last.val();
        self.s1_mac_bad.d.next = self.in_last.val() & (self.in_status.val() != 0);
        self.s1_prev.d.next = self.prev.q.val();
        self.s1_cur.d.next = self.in_data.val();
        self.s1_pos.d.next = self.pos.q.val();
        self.s1_nbytes.d.next = self.in_nbytes.val();
        self.s1_ge8.d.next = self.pos.q.val() >= 8;
        // the beat carries frame bytes [lo, lo + 8): the previous beat's from lane 6 (lo =
        // pos - 2) or lane 2 (lo = pos - 6) on
        self.s1_lo6.d.next = self.pos.q.val() - 2;
        self.s1_lo2.d.next = self.pos.q.val() - 6;
        // ---- S2: which of it is payload (the opcode's decode is ready by now) ----
        self.lo.next = self.s1_lo2.q.val();
        if self.e_s6.q.val() {
            self.lo.next = self.s1_lo6.q.val();
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_last.d.next = self.s1_last.q.val();
        self.s2_mac_bad.d.next = self.s1_mac_bad.q.val();
        self.s2_flen.d.next = self.s1_pos.q.val() + bit_cast::<16, 4>(self.s1_nbytes.q.val());
        self.s2_pos.d.next = self.s1_pos.q.val();
        self.s2_emit.d.next = self.s1_valid.q.val() & self.s1_ge8.q.val() & (self.lo.val() >= self.e_pstart.q.val()) & (self.lo.val() < self.e_pend.q.val()) & self.e_has_pay.q.val() & self.e_cand.q.val();
        self.s2_left.d.next = self.e_pend.q.val() - self.lo.val();
        self.s2_data.d.next = (self.s1_prev.q.val() >> 16) | (self.s1_cur.q.val() << 48);
        if self.e_s6.q.val() {
            self.s2_data.d.next = (self.s1_prev.q.val() >> 48) | (self.s1_cur.q.val() << 16);
        }
        // ---- out ----
        self.emit.next = self.s2_emit.q.val();
        self.o_valid.d.next = self.emit.val();
        self.o_data.d.next = self.s2_data.q.val();
        self.o_nbytes.d.next = 8.into();
        self.o_last.d.next = false;
        if self.s2_left.q.val() <= 8 {
            self.o_nbytes.d.next = self.s2_left.q.val().get_bits::<4>(0);
            self.o_last.d.next = true;
        }
        if self.emit.val() {
            self.l_beats.d.next = self.l_beats.q.val() + 1;
        }
        // (the beat's fields are zero without `pay_valid`: a frame that is no candidate
        // leaves the consumer's inputs as they were, and a simulator skips the rest of the
        // engine while they stand still, docs/performance.md)
        self.pay_valid.next = self.o_valid.q.val();
        self.pay_data.next = 0.into();
        self.pay_nbytes.next = 0.into();
        self.pay_last.next = false;
        if self.o_valid.q.val() {
            self.pay_data.next = self.o_data.q.val();
            self.pay_nbytes.next = self.o_nbytes.q.val();
            self.pay_last.next = self.o_last.q.val();
        }
        // ---- the ICRC result of the frame whose record is pending ----
        if self.icrc_unit.icrc_valid.val() {
            self.res_seen.d.next = true;
            // compared when the record leaves: the received ICRC's last bytes may come later
            self.res_icrc.d.next = self.icrc_unit.icrc.val();
        }
        // ---- the frame's end (S2's last beat): keep its record ----
        // what keeps the ICRC from being judged (IP, UDP, lengths, a short frame), and what
        // only a packet with a good ICRC is refused for (the BTH's version and lengths)
        self.malformed.next = !(self.e_ip_ok.q.val() & self.e_len_ok.q.val())
            | (self.s2_flen.q.val() < self.l_total.q.val() + 14)
            | (self.s2_pos.q.val() < 56);
        if self.timer.q.val() != 0 {
            self.timer.d.next = self.timer.q.val() - 1;
        }
        // a candidate of 8 beats or more gets a record; any other frame only its verdict
        // (a shorter frame never puts out payload: that starts at byte 54 and leaves a
        // beat behind the input, once bytes 54..62 are in)
        self.frame_end.next = self.s2_valid.q.val() & self.s2_last.q.val();
        self.recorded.next = self.e_cand.q.val() & (self.s2_pos.q.val() >= 56);
        if self.frame_end.val() {
            // cleared here, not at the next frame's start: that may already have begun
            self.l_expect.d.next = false;
            self.l_beats.d.next = 0.into();
        }
        if self.frame_end.val() & self.recorded.val() {
            self.timer.d.next = 6.into();
            self.f_status.d.next = 0.into();
            if self.e_unsupported.q.val() {
                self.f_status.d.next = 3.into();
            }
            if !self.e_bth_ok.q.val() {
                self.f_status.d.next = 2.into();
            }
            self.f_outer_bad.d.next = self.malformed.val() | self.s2_mac_bad.q.val();
            self.f_expect.d.next = self.l_expect.q.val();
            self.f_rx_icrc.d.next = self.l_rx_icrc.q.val();
            self.f_opcode.d.next = self.l_opcode.q.val();
            self.f_flags.d.next = self.l_flags.q.val();
            self.f_ack.d.next = self.l_ack.q.val();
            self.f_pkey.d.next = self.l_pkey.q.val();
            self.f_dqp.d.next = self.l_dqp.q.val();
            self.f_psn.d.next = self.l_psn.q.val();
            self.f_src_ip.d.next = self.l_src_ip.q.val();
            self.f_sport.d.next = self.l_sport.q.val();
            self.f_va.d.next = self.l_va.q.val();
            self.f_rkey.d.next = self.l_rkey.q.val();
            self.f_dma_len.d.next = self.l_dma_len.q.val();
            self.f_ext4.d.next = self.l_ext4.q.val();
            self.f_imm70.d.next = self.l_imm70.q.val();
            self.f_pay_len.d.next = self.e_pay_len.q.val();
            self.f_beats.d.next = self.l_beats.q.val();
            if self.emit.val() {
                self.f_beats.d.next = self.l_beats.q.val() + 1;
            }
        }
        // ---- the record: into the output registers, then out with its verdict ----
        // a bad ICRC outranks what the BTH says (an unknown opcode, a version, lengths):
        // those bytes may be what was damaged
        self.status.next = self.f_status.q.val();
        if !(self.f_expect.q.val() & self.res_seen.q.val() & (self.res_icrc.q.val() == self.f_rx_icrc.q.val())) {
            self.status.next = 1.into();
        }
        if self.f_outer_bad.q.val() {
            self.status.next = 2.into();
        }
        if self.timer.q.val() == 2 {
            self.res_seen.d.next = false;
            self.r_pending.d.next = true;
            self.r_status.d.next = self.status.val();
            self.r_opcode.d.next = self.f_opcode.q.val();
            self.r_flags.d.next = self.f_flags.q.val();
            self.r_ack.d.next = self.f_ack.q.val();
            self.r_pkey.d.next = self.f_pkey.q.val();
            self.r_dqp.d.next = self.f_dqp.q.val();
            self.r_psn.d.next = self.f_psn.q.val();
            self.r_src_ip.d.next = self.f_src_ip.q.val();
            self.r_sport.d.next = self.f_sport.q.val();
            self.r_va.d.next = self.f_va.q.val();
            self.r_rkey.d.next = self.f_rkey.q.val();
            self.r_dma_len.d.next = self.f_dma_len.q.val();
            self.r_ext4.d.next = self.f_ext4.q.val();
            self.r_immdt.d.next = self.f_ext4.q.val();
            if self.f_opcode.q.val() == 0x0b {
                self.r_immdt.d.next = self.f_imm70.q.val();
            }
            self.r_pay_len.d.next = self.f_pay_len.q.val();
            if self.status.val() != 0 {
                self.r_pay_len.d.next = 0.into();
            }
            self.r_beats.d.next = self.f_beats.q.val();
        }
        // frames end in the order of their verdicts: the oldest frame end not yet answered
        // (a token) takes the oldest verdict, a recorded one once its record is in the
        // output registers
        self.v_have.next = self.verdicts.not_empty.val() & self.frame_ends.not_empty.val();
        self.skip_fire.next = self.v_have.val() & !self.frame_ends.head.val();
        self.rec_fire.next = self.v_have.val() & self.frame_ends.head.val() & self.r_pending.q.val();
        self.v_pop.next = self.skip_fire.val() | self.rec_fire.val();
        if self.rec_fire.val() {
            self.r_pending.d.next = false;
        }
        self.rec_valid.next = self.rec_fire.val();
        // a frame too short to be RoCE that the classifier diverts: dropped, counted
        self.drop_short.next = self.skip_fire.val() & self.verdicts.head.val();
        self.rec_foreign.next = !self.verdicts.head.val();
        self.rec_status.next = self.r_status.q.val();
        if !self.verdicts.head.val() {
            self.rec_status.next = 2.into();
        }
        self.rec_opcode.next = self.r_opcode.q.val();
        self.rec_solicited.next = self.r_flags.q.val().get_bit(7);
        self.rec_ack_req.next = self.r_ack.q.val().get_bit(7);
        self.rec_pkey.next = self.r_pkey.q.val();
        self.rec_dest_qp.next = self.r_dqp.q.val();
        self.rec_psn.next = self.r_psn.q.val();
        self.rec_src_ip.next = self.r_src_ip.q.val();
        self.rec_udp_src_port.next = self.r_sport.q.val();
        self.rec_va.next = self.r_va.q.val();
        self.rec_rkey.next = self.r_rkey.q.val();
        self.rec_dma_len.next = self.r_dma_len.q.val();
        self.rec_syndrome.next = self.r_ext4.q.val().get_bits::<8>(24);
        self.rec_msn.next = self.r_ext4.q.val().get_bits::<24>(0);
        self.rec_immdt.next = self.r_immdt.q.val();
        self.rec_payload_len.next = self.r_pay_len.q.val();
        if !self.verdicts.head.val() {
            self.rec_payload_len.next = 0.into();
        }
        self.rec_beats.next = self.r_beats.q.val();
        // ---- the verdicts and the frame ends (recorded or not), each a queue: taken in
        // pairs, put in behind the others ----
        self.verdicts.pop.next = self.v_pop.val();
        self.verdicts.push.next = self.v_valid.val();
        self.verdicts.push_flag.next = self.v_roce.val();
        self.frame_ends.pop.next = self.v_pop.val();
        self.frame_ends.push.next = self.frame_end.val();
        self.frame_ends.push_flag.next = self.recorded.val();
        if self.reset.val() {
            self.k.d.next = 0.into();
            self.pos.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_emit.d.next = false;
            self.o_valid.d.next = false;
            self.timer.d.next = 0.into();
            self.res_seen.d.next = false;
            self.l_beats.d.next = 0.into();
            self.l_expect.d.next = false;
            self.r_pending.d.next = false;
        }
    }
}
