//! Checksum completion and per-segment field values (docs/tx-offload.md).
//!
//! Takes one event (a frame or TSO segment whose bytes have all been summed) with the
//! region sums of [`super::TxCsum`] and computes what the header patcher writes:
//! * f1: IPv4 total length and identification (`{tot_len, ident + k}`), or the IPv6
//!   payload length (TSO);
//! * f2: the IPv4 header checksum (its field taken as 0; TSO adds the new total
//!   length and identification to the template's sum);
//! * f3, f4: the TCP sequence number `seq + k * mss` and flags (FIN/PSH only on the last
//!   segment, CWR only on the first) (TSO);
//! * f5: the TCP/UDP checksum over the pseudo-header (addresses, protocol, L4 length)
//!   and the L4 bytes (TSO: template + new fields + the segment's payload); a UDP 0 is
//!   sent as 0xffff; or the generic checksum, which sums the IPv4 header checksum
//!   as stored when its range covers it (a generic 0 is sent as 0xffff too).
//!
//! Seven registered stages; sums of at most four 16-bit terms per stage, then folds.
//!
//! Event words: `a0` = [15:0] segment length, [31:16] k, [48:32] k * mss, [49] last
//! segment, [50] TSO, [51] IPv6, [52] UDP, [53] IPv4 header checksum, [54] generic,
//! [55] L4 checksum; `a1` = [15:0] l3, [31:16] l4, [47:32] csum_start; `a2` = [31:0]
//! template sequence number, [47:32] identification, [55:48] TCP flags.

use rust_hdl::prelude::*;

pub const FINISH_LATENCY: usize = 7;

#[derive(LogicBlock, Default)]
pub struct TxFinish {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub a0: Signal<In, Bits<56>>,
    pub a1: Signal<In, Bits<48>>,
    pub a2: Signal<In, Bits<56>>,
    /// Region sums (folded, uninverted): IPv4 header, pseudo-header addresses, L4 or
    /// generic region (TSO: the template part), TSO segment payload (l4-aligned).
    pub ip_sum: Signal<In, Bits<16>>,
    pub addr_sum: Signal<In, Bits<16>>,
    pub x_sum: Signal<In, Bits<16>>,
    pub pay_sum: Signal<In, Bits<16>>,
    pub out_valid: Signal<Out, Bit>,
    pub f1: Signal<Out, Bits<32>>,
    pub f2: Signal<Out, Bits<16>>,
    pub f3: Signal<Out, Bits<32>>,
    pub f4: Signal<Out, Bits<8>>,
    pub f5: Signal<Out, Bits<16>>,
    // Z1
    z1_valid: DFF<Bit>,
    z1_fl: DFF<Bits<6>>,
    z1_tot: DFF<Bits<16>>,
    z1_pl6: DFF<Bits<16>>,
    z1_l4len: DFF<Bits<16>>,
    z1_ident: DFF<Bits<16>>,
    z1_seq: DFF<Bits<32>>,
    z1_tflags: DFF<Bits<8>>,
    z1_ip: DFF<Bits<16>>,
    z1_addr: DFF<Bits<16>>,
    z1_x: DFF<Bits<16>>,
    z1_pay: DFF<Bits<16>>,
    z1_gsel: DFF<Bits<3>>,
    // Z2
    z2_valid: DFF<Bit>,
    z2_fl: DFF<Bits<6>>,
    z2_ipt: DFF<Bits<18>>,
    z2_l4a: DFF<Bits<18>>,
    z2_l4b: DFF<Bits<18>>,
    z2_x: DFF<Bits<16>>,
    z2_gsel: DFF<Bits<3>>,
    z2_f1: DFF<Bits<32>>,
    z2_f3: DFF<Bits<32>>,
    z2_f4: DFF<Bits<8>>,
    // Z3
    z3_valid: DFF<Bit>,
    z3_fl: DFF<Bits<6>>,
    z3_ipu: DFF<Bits<17>>,
    z3_l4t: DFF<Bits<19>>,
    z3_x: DFF<Bits<16>>,
    z3_gsel: DFF<Bits<3>>,
    z3_f1: DFF<Bits<32>>,
    z3_f3: DFF<Bits<32>>,
    z3_f4: DFF<Bits<8>>,
    // Z4
    z4_valid: DFF<Bit>,
    z4_fl: DFF<Bits<6>>,
    z4_ipc: DFF<Bits<16>>,
    z4_l4u: DFF<Bits<17>>,
    z4_x: DFF<Bits<16>>,
    z4_gsel: DFF<Bits<3>>,
    z4_f1: DFF<Bits<32>>,
    z4_f3: DFF<Bits<32>>,
    z4_f4: DFF<Bits<8>>,
    // Z5
    z5_valid: DFF<Bit>,
    z5_fl: DFF<Bits<6>>,
    z5_ipc: DFF<Bits<16>>,
    z5_l4c: DFF<Bits<16>>,
    z5_g: DFF<Bits<18>>,
    z5_f1: DFF<Bits<32>>,
    z5_f3: DFF<Bits<32>>,
    z5_f4: DFF<Bits<8>>,
    // Z6
    z6_valid: DFF<Bit>,
    z6_fl: DFF<Bits<6>>,
    z6_ipc: DFF<Bits<16>>,
    z6_l4c: DFF<Bits<16>>,
    z6_gu: DFF<Bits<17>>,
    z6_f1: DFF<Bits<32>>,
    z6_f3: DFF<Bits<32>>,
    z6_f4: DFF<Bits<8>>,
    // Z7 (out)
    o_valid: DFF<Bit>,
    o_f1: DFF<Bits<32>>,
    o_f2: DFF<Bits<16>>,
    o_f3: DFF<Bits<32>>,
    o_f4: DFF<Bits<8>>,
    o_f5: DFF<Bits<16>>,
    // scratch
    seg_len: Signal<Local, Bits<16>>,
    l3: Signal<Local, Bits<16>>,
    l4: Signal<Local, Bits<16>>,
    cs: Signal<Local, Bits<16>>,
    ipf: Signal<Local, Bits<16>>,
    tf: Signal<Local, Bits<8>>,
    l4c: Signal<Local, Bits<16>>,
    contrib: Signal<Local, Bits<16>>,
    y: Signal<Local, Bits<16>>,
}

impl Logic for TxFinish {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, z1_valid, z1_fl, z1_tot, z1_pl6, z1_l4len, z1_ident, z1_seq, z1_tflags, z1_ip, z1_addr, z1_x, z1_pay, z1_gsel,
            z2_valid, z2_fl, z2_ipt, z2_l4a, z2_l4b, z2_x, z2_gsel, z2_f1, z2_f3, z2_f4,
            z3_valid, z3_fl, z3_ipu, z3_l4t, z3_x, z3_gsel, z3_f1, z3_f3, z3_f4,
            z4_valid, z4_fl, z4_ipc, z4_l4u, z4_x, z4_gsel, z4_f1, z4_f3, z4_f4,
            z5_valid, z5_fl, z5_ipc, z5_l4c, z5_g, z5_f1, z5_f3, z5_f4,
            z6_valid, z6_fl, z6_ipc, z6_l4c, z6_gu, z6_f1, z6_f3, z6_f4,
            o_valid, o_f1, o_f2, o_f3, o_f4, o_f5);
        // ---- Z0 -> Z1: lengths, the new TSO fields ----
        self.seg_len.next = self.a0.val().get_bits::<16>(0);
        self.l3.next = self.a1.val().get_bits::<16>(0);
        self.l4.next = self.a1.val().get_bits::<16>(16);
        self.cs.next = self.a1.val().get_bits::<16>(32);
        self.z1_valid.d.next = self.in_valid.val();
        // flags: [0] TSO, [1] IPv6, [2] UDP, [3] IPv4 header checksum, [4] generic, [5] L4
        self.z1_fl.d.next = self.a0.val().get_bits::<6>(50);
        self.z1_tot.d.next = self.seg_len.val() - self.l3.val();
        self.z1_pl6.d.next = self.seg_len.val() - self.l3.val() - 40;
        self.z1_l4len.d.next = self.seg_len.val() - self.l4.val();
        self.z1_ident.d.next = self.a2.val().get_bits::<16>(32) + self.a0.val().get_bits::<16>(16);
        self.z1_seq.d.next = self.a2.val().get_bits::<32>(0) + bit_cast::<32, 17>(self.a0.val().get_bits::<17>(32));
        self.tf.next = self.a2.val().get_bits::<8>(48);
        if !self.a0.val().get_bit(49) {
            // not the last segment: no FIN, no PSH
            self.tf.next = self.tf.val() & 0xf6;
        }
        if self.a0.val().get_bits::<16>(16) != 0 {
            // not the first: no CWR
            self.tf.next = self.tf.val() & 0x7f;
        }
        self.z1_tflags.d.next = self.tf.val();
        self.z1_ip.d.next = self.ip_sum.val();
        self.z1_addr.d.next = self.addr_sum.val();
        self.z1_x.d.next = self.x_sum.val();
        self.z1_pay.d.next = 0.into();
        if self.a0.val().get_bit(50) {
            self.z1_pay.d.next = self.pay_sum.val();
        }
        // where the IPv4 header checksum (at l3 + 10) falls in the generic range:
        // [0] both bytes in range, [1] byte-swapped (odd distance), [2] only its low byte
        self.ipf.next = self.l3.val() + 10;
        self.z1_gsel.d.next = 0.into();
        if self.a0.val().get_bit(53) & self.a0.val().get_bit(54) {
            if self.ipf.val() >= self.cs.val() {
                self.z1_gsel.d.next = 1.into();
                if self.ipf.val().get_bit(0) != self.cs.val().get_bit(0) {
                    self.z1_gsel.d.next = 3.into();
                }
            } else if (self.ipf.val() + 1) == self.cs.val() {
                self.z1_gsel.d.next = 4.into();
            }
        }
        // ---- Z1 -> Z2: partial sums ----
        self.z2_valid.d.next = self.z1_valid.q.val();
        self.z2_fl.d.next = self.z1_fl.q.val();
        self.z2_ipt.d.next = bit_cast::<18, 16>(self.z1_ip.q.val());
        if self.z1_fl.q.val().get_bit(0) {
            self.z2_ipt.d.next = bit_cast::<18, 16>(self.z1_ip.q.val()) + bit_cast::<18, 16>(self.z1_tot.q.val()) + bit_cast::<18, 16>(self.z1_ident.q.val());
        }
        self.z2_l4a.d.next = bit_cast::<18, 16>(self.z1_x.q.val()) + bit_cast::<18, 16>(self.z1_pay.q.val()) + bit_cast::<18, 16>(self.z1_addr.q.val()) + 6;
        if self.z1_fl.q.val().get_bit(2) {
            self.z2_l4a.d.next = bit_cast::<18, 16>(self.z1_x.q.val()) + bit_cast::<18, 16>(self.z1_pay.q.val()) + bit_cast::<18, 16>(self.z1_addr.q.val()) + 17;
        }
        self.z2_l4b.d.next = bit_cast::<18, 16>(self.z1_l4len.q.val());
        if self.z1_fl.q.val().get_bit(0) {
            self.z2_l4b.d.next = bit_cast::<18, 16>(self.z1_l4len.q.val())
                + bit_cast::<18, 16>(self.z1_seq.q.val().get_bits::<16>(16))
                + bit_cast::<18, 16>(self.z1_seq.q.val().get_bits::<16>(0))
                + bit_cast::<18, 8>(self.z1_tflags.q.val());
        }
        self.z2_x.d.next = self.z1_x.q.val();
        self.z2_gsel.d.next = self.z1_gsel.q.val();
        self.z2_f1.d.next = (bit_cast::<32, 16>(self.z1_tot.q.val()) << 16) | bit_cast::<32, 16>(self.z1_ident.q.val());
        if self.z1_fl.q.val().get_bit(1) {
            self.z2_f1.d.next = bit_cast::<32, 16>(self.z1_pl6.q.val());
        }
        self.z2_f3.d.next = self.z1_seq.q.val();
        self.z2_f4.d.next = self.z1_tflags.q.val();
        // ---- Z2 -> Z3 ----
        self.z3_valid.d.next = self.z2_valid.q.val();
        self.z3_fl.d.next = self.z2_fl.q.val();
        self.z3_ipu.d.next = bit_cast::<17, 16>(self.z2_ipt.q.val().get_bits::<16>(0)) + bit_cast::<17, 2>(self.z2_ipt.q.val().get_bits::<2>(16));
        self.z3_l4t.d.next = bit_cast::<19, 18>(self.z2_l4a.q.val()) + bit_cast::<19, 18>(self.z2_l4b.q.val());
        self.z3_x.d.next = self.z2_x.q.val();
        self.z3_gsel.d.next = self.z2_gsel.q.val();
        self.z3_f1.d.next = self.z2_f1.q.val();
        self.z3_f3.d.next = self.z2_f3.q.val();
        self.z3_f4.d.next = self.z2_f4.q.val();
        // ---- Z3 -> Z4 ----
        self.z4_valid.d.next = self.z3_valid.q.val();
        self.z4_fl.d.next = self.z3_fl.q.val();
        self.z4_ipc.d.next = !(self.z3_ipu.q.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.z3_ipu.q.val().get_bits::<1>(16)));
        self.z4_l4u.d.next = bit_cast::<17, 16>(self.z3_l4t.q.val().get_bits::<16>(0)) + bit_cast::<17, 3>(self.z3_l4t.q.val().get_bits::<3>(16));
        self.z4_x.d.next = self.z3_x.q.val();
        self.z4_gsel.d.next = self.z3_gsel.q.val();
        self.z4_f1.d.next = self.z3_f1.q.val();
        self.z4_f3.d.next = self.z3_f3.q.val();
        self.z4_f4.d.next = self.z3_f4.q.val();
        // ---- Z4 -> Z5: L4 checksum; the generic sum with the IPv4 checksum as stored ----
        self.z5_valid.d.next = self.z4_valid.q.val();
        self.z5_fl.d.next = self.z4_fl.q.val();
        self.z5_ipc.d.next = self.z4_ipc.q.val();
        self.l4c.next = !(self.z4_l4u.q.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.z4_l4u.q.val().get_bits::<1>(16)));
        if self.z4_fl.q.val().get_bit(2) & (self.l4c.val() == 0) {
            self.l4c.next = 0xffff.into();
        }
        self.z5_l4c.d.next = self.l4c.val();
        self.contrib.next = 0.into();
        if self.z4_gsel.q.val().get_bit(0) {
            self.contrib.next = self.z4_ipc.q.val();
            if self.z4_gsel.q.val().get_bit(1) {
                self.contrib.next = (self.z4_ipc.q.val() << 8) | (self.z4_ipc.q.val() >> 8);
            }
        }
        if self.z4_gsel.q.val().get_bit(2) {
            self.contrib.next = self.z4_ipc.q.val() << 8;
        }
        self.z5_g.d.next = bit_cast::<18, 16>(self.z4_x.q.val()) + bit_cast::<18, 16>(self.contrib.val());
        self.z5_f1.d.next = self.z4_f1.q.val();
        self.z5_f3.d.next = self.z4_f3.q.val();
        self.z5_f4.d.next = self.z4_f4.q.val();
        // ---- Z5 -> Z6 ----
        self.z6_valid.d.next = self.z5_valid.q.val();
        self.z6_fl.d.next = self.z5_fl.q.val();
        self.z6_ipc.d.next = self.z5_ipc.q.val();
        self.z6_l4c.d.next = self.z5_l4c.q.val();
        self.z6_gu.d.next = bit_cast::<17, 16>(self.z5_g.q.val().get_bits::<16>(0)) + bit_cast::<17, 2>(self.z5_g.q.val().get_bits::<2>(16));
        self.z6_f1.d.next = self.z5_f1.q.val();
        self.z6_f3.d.next = self.z5_f3.q.val();
        self.z6_f4.d.next = self.z5_f4.q.val();
        // ---- Z6 -> out ----
        self.o_valid.d.next = self.z6_valid.q.val();
        self.o_f1.d.next = self.z6_f1.q.val();
        self.o_f2.d.next = self.z6_ipc.q.val();
        self.o_f3.d.next = self.z6_f3.q.val();
        self.o_f4.d.next = self.z6_f4.q.val();
        self.y.next = self.z6_gu.q.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.z6_gu.q.val().get_bits::<1>(16));
        self.o_f5.d.next = self.z6_l4c.q.val();
        if self.z6_fl.q.val().get_bit(4) {
            self.o_f5.d.next = !self.y.val();
            // a generic result of 0 is stored as 0xffff, as Linux's skb_checksum_help
            // does (docs/tx-offload.md): the sum folded to 0xffff
            if self.y.val() == 0xffff {
                self.o_f5.d.next = 0xffff.into();
            }
        }
        self.out_valid.next = self.o_valid.q.val();
        self.f1.next = self.o_f1.q.val();
        self.f2.next = self.o_f2.q.val();
        self.f3.next = self.o_f3.q.val();
        self.f4.next = self.o_f4.q.val();
        self.f5.next = self.o_f5.q.val();
        if self.reset.val() {
            self.z1_valid.d.next = false;
            self.z2_valid.d.next = false;
            self.z3_valid.d.next = false;
            self.z4_valid.d.next = false;
            self.z5_valid.d.next = false;
            self.z6_valid.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
