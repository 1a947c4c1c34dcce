//! The RoCEv2 invariant CRC of a frame as it streams past, pipelined for 156.25 MHz.
//!
//! What is covered (IBTA Annex A17.3.3; `nic_testbench::roce::icrc` is the golden model):
//! 8 bytes of 0xFF for the LRH, the IP header with TOS/TTL/checksum (IPv4) or traffic
//! class/flow label/hop limit (IPv6) set to ones, the UDP header with its checksum set to
//! ones, the BTH with its FECN/BECN/reserved byte set to ones, then everything up to the
//! end of the pad. The frame is untagged and its IPv4 header has no options (the
//! classifier sends nothing else to the RDMA engine), so every masked byte sits at a fixed
//! beat and lane, and the coverage ends 2 bytes into a 4-byte word: 14 bytes of Ethernet
//! header plus a multiple of 4. Its last beat therefore holds 2 or 6 covered bytes.
//!
//! Beat 0 (Ethernet addresses) is not covered. Beat 1 holds the source MAC's last two
//! bytes, the EtherType and the first two IP bytes: lanes 0..5 are replaced by six of the
//! eight 0xFF bytes of the LRH stand-in, and the other two are folded into the seed
//! ([`seed_before_beat1`]), so the CRC runs over whole beats from beat 1 on.
//!
//! Why it is cut this way: a CRC over 8 bytes a cycle is one wide XOR network, and only
//! its state half sits in a loop. So the data half (`B8 x beat`) is computed a stage
//! ahead, the loop is `state = A8 x state ^ d` (about 16 state bits per output bit), and
//! the short last beat is never in the loop: its 2 or 6 bytes are folded in after it, a
//! pipeline of its own, while the loop already runs the next frame.
//!
//! Stages: A masks the beat; B computes its data terms (8-byte, and the 6- or 2-byte tail
//! for a last beat); C is the loop and hands a finished frame's state to the tail; D and E
//! apply the tail's state terms and invert. The ICRC leaves [`LATENCY`] cycles after the
//! beat that ended the coverage; frames may follow each other without a gap.
//!
//! Every network is an [`XorReg`], written inside its register's sequential block under
//! its load enable (issue 21): the simulator then evaluates the 8-byte networks only for
//! covered beats and the tail networks only for a frame's last beat, not in every cycle
//! of the core clock (the RX parser's ICRC watches every frame the NIC receives). The
//! 6- and 2-byte tails each load a register of their own, and the one the frame needs is
//! picked after them.

use crate::mac::crc::{crc_bytes, split_taps as crc_taps};
use crate::mac::xor_net::XorReg;
use rust_hdl::prelude::*;

/// Cycles from the beat with `beat_last` to the cycle with `icrc_valid`.
pub const LATENCY: u64 = 5;

/// The CRC register before beat 1: the preset after the two 0xFF bytes of the LRH
/// stand-in that would sit in lanes 6 and 7 of beat 0.
pub fn seed_before_beat1() -> u32 {
    crc_bytes(0xFFFF_FFFF, &[0xff, 0xff])
}

/// Bytes ORed with 0xFF (or 0x0F) per beat, for IPv4 and IPv6 (lane 0 = bits 7:0).
pub mod masks {
    /// LRH stand-in (lanes 0..5) and the TOS (lane 7).
    pub const BEAT1_V4: u64 = 0xFF00_FFFF_FFFF_FFFF;
    /// LRH stand-in, the traffic class and flow label bits of bytes 14 and 15.
    pub const BEAT1_V6: u64 = 0xFF0F_FFFF_FFFF_FFFF;
    /// TTL (byte 22).
    pub const BEAT2_V4: u64 = 0x00FF_0000_0000_0000;
    /// Flow label (bytes 16, 17) and hop limit (byte 21).
    pub const BEAT2_V6: u64 = 0x0000_FF00_0000_FFFF;
    /// IPv4 header checksum (bytes 24, 25).
    pub const BEAT3_V4: u64 = 0x0000_0000_0000_FFFF;
    /// UDP checksum (bytes 40, 41) and the BTH's FECN/BECN/reserved byte (byte 46).
    pub const BEAT5_V4: u64 = 0x00FF_0000_0000_FFFF;
    /// UDP checksum over IPv6 (bytes 60, 61).
    pub const BEAT7_V6: u64 = 0x0000_FFFF_0000_0000;
    /// The BTH's FECN/BECN/reserved byte over IPv6 (byte 66).
    pub const BEAT8_V6: u64 = 0x0000_0000_00FF_0000;
}

#[derive(LogicBlock)]
pub struct RdmaIcrc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- the frame's beats as they move (a tap on a stream: no backpressure here) ----
    pub beat_valid: Signal<In, Bit>,
    /// Lane 0 (bits 7:0) is the byte sent first.
    pub beat_data: Signal<In, Bits<64>>,
    /// The frame's first beat (Ethernet destination address).
    pub beat_first: Signal<In, Bit>,
    /// The beat holding the last covered byte (the pad's last, before the ICRC).
    pub beat_last: Signal<In, Bit>,
    /// With `beat_last`: 6 bytes of this beat are covered (else 2).
    pub beat_last_6: Signal<In, Bit>,
    // ---- result ----
    pub icrc_valid: Signal<Out, Bit>,
    /// The ICRC as sent: bits 7:0 are its first byte on the wire.
    pub icrc: Signal<Out, Bits<32>>,
    // frame position
    count: DFF<Bits<4>>,
    v6: DFF<Bit>,
    // A: masked beat
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    a_last: DFF<Bit>,
    a_6: DFF<Bit>,
    a_data: DFF<Bits<64>>,
    // B: data terms
    b_valid: DFF<Bit>,
    b_first: DFF<Bit>,
    b_last: DFF<Bit>,
    b_6: DFF<Bit>,
    // C: the loop (`state8`'s register), and the finished frame for the tail
    c_valid: DFF<Bit>,
    c_6: DFF<Bit>,
    c_state: DFF<Bits<32>>,
    c_tail: DFF<Bits<32>>,
    // D, E: tail state terms, inversion
    d_valid: DFF<Bit>,
    d_6: DFF<Bit>,
    d_tail: DFF<Bits<32>>,
    e_valid: DFF<Bit>,
    e_icrc: DFF<Bits<32>>,
    // networks and their registers: B's data terms (`data8` a covered beat's, `data6` and
    // `data2` a last beat's), C's loop (`state8`: its `q` is the CRC state), D's tail state
    // terms (`state6`, `state2`)
    data8: XorReg<64, 32>,
    data6: XorReg<48, 32>,
    data2: XorReg<16, 32>,
    state8: XorReg<32, 32>,
    state6: XorReg<32, 32>,
    state2: XorReg<32, 32>,
    // scratch and constants
    index: Signal<Local, Bits<4>>,
    v6_now: Signal<Local, Bit>,
    mask: Signal<Local, Bits<64>>,
    ethertype_v6: Constant<Bits<16>>,
    /// The state before beat 1: the loop's network reads it in place of the state for a
    /// frame's first covered beat.
    seed: Constant<Bits<32>>,
    m1_v4: Constant<Bits<64>>,
    m1_v6: Constant<Bits<64>>,
    m2_v4: Constant<Bits<64>>,
    m2_v6: Constant<Bits<64>>,
    m3_v4: Constant<Bits<64>>,
    m5_v4: Constant<Bits<64>>,
    m7_v6: Constant<Bits<64>>,
    m8_v6: Constant<Bits<64>>,
}

impl Default for RdmaIcrc {
    fn default() -> Self {
        let c64 = |v: u64| Constant::new(Bits::<64>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            beat_valid: Default::default(),
            beat_data: Default::default(),
            beat_first: Default::default(),
            beat_last: Default::default(),
            beat_last_6: Default::default(),
            icrc_valid: Default::default(),
            icrc: Default::default(),
            count: Default::default(),
            v6: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_last: Default::default(),
            a_6: Default::default(),
            a_data: Default::default(),
            b_valid: Default::default(),
            b_first: Default::default(),
            b_last: Default::default(),
            b_6: Default::default(),
            c_valid: Default::default(),
            c_6: Default::default(),
            c_state: Default::default(),
            c_tail: Default::default(),
            d_valid: Default::default(),
            d_6: Default::default(),
            d_tail: Default::default(),
            e_valid: Default::default(),
            e_icrc: Default::default(),
            data8: XorReg::new(crc_taps(8, false)),
            data6: XorReg::new(crc_taps(6, false)),
            data2: XorReg::new(crc_taps(2, false)),
            state8: XorReg::new(crc_taps(8, true)),
            state6: XorReg::new(crc_taps(6, true)),
            state2: XorReg::new(crc_taps(2, true)),
            index: Default::default(),
            v6_now: Default::default(),
            mask: Default::default(),
            // bytes 12, 13 = 0x86, 0xdd sit in lanes 4, 5 of beat 1: bits 47:32 read 0xdd86
            ethertype_v6: Constant::new(Bits::<16>::from(0xdd86u64)),
            seed: Constant::new(Bits::<32>::from(u64::from(seed_before_beat1()))),
            m1_v4: c64(masks::BEAT1_V4),
            m1_v6: c64(masks::BEAT1_V6),
            m2_v4: c64(masks::BEAT2_V4),
            m2_v6: c64(masks::BEAT2_V6),
            m3_v4: c64(masks::BEAT3_V4),
            m5_v4: c64(masks::BEAT5_V4),
            m7_v6: c64(masks::BEAT7_V6),
            m8_v6: c64(masks::BEAT8_V6),
        }
    }
}

impl Logic for RdmaIcrc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, v6, a_valid, a_first, a_last, a_6, a_data, b_valid, b_first, b_last, b_6,
            c_valid, c_6, c_state, c_tail, d_valid, d_6, d_tail, e_valid, e_icrc);
        clock!(self, clock, data8, data6, data2, state8, state6, state2);
        // ---- in -> A: where the beat stands, its masks ----
        self.index.next = self.count.q.val();
        if self.beat_first.val() {
            self.index.next = 0.into();
        }
        self.v6_now.next = self.v6.q.val();
        if self.index.val() == 1 {
            self.v6_now.next = self.beat_data.val().get_bits::<16>(32) == self.ethertype_v6.val();
        }
        self.mask.next = 0.into();
        if self.index.val() == 1 {
            self.mask.next = self.m1_v4.val();
            if self.v6_now.val() {
                self.mask.next = self.m1_v6.val();
            }
        }
        if self.index.val() == 2 {
            self.mask.next = self.m2_v4.val();
            if self.v6_now.val() {
                self.mask.next = self.m2_v6.val();
            }
        }
        if (self.index.val() == 3) & !self.v6_now.val() {
            self.mask.next = self.m3_v4.val();
        }
        if (self.index.val() == 5) & !self.v6_now.val() {
            self.mask.next = self.m5_v4.val();
        }
        if (self.index.val() == 7) & self.v6_now.val() {
            self.mask.next = self.m7_v6.val();
        }
        if (self.index.val() == 8) & self.v6_now.val() {
            self.mask.next = self.m8_v6.val();
        }
        if self.beat_valid.val() {
            self.count.d.next = self.index.val() + 1;
            if self.index.val() == 15 {
                self.count.d.next = self.index.val();
            }
            self.v6.d.next = self.v6_now.val();
        }
        // beat 0 is not covered
        self.a_valid.d.next = self.beat_valid.val() & (self.index.val() != 0);
        self.a_first.d.next = self.index.val() == 1;
        self.a_last.d.next = self.beat_last.val();
        self.a_6.d.next = self.beat_last_6.val();
        self.a_data.d.next = self.beat_data.val() | self.mask.val();
        // ---- A -> B: data terms, each network loaded only when its result is used ----
        self.data8.data_in.next = self.a_data.q.val();
        self.data8.xor_in.next = 0.into();
        self.data8.enable.next = self.a_valid.q.val();
        self.data6.data_in.next = self.a_data.q.val().get_bits::<48>(0);
        self.data6.xor_in.next = 0.into();
        self.data6.enable.next = self.a_valid.q.val() & self.a_last.q.val() & self.a_6.q.val();
        self.data2.data_in.next = self.a_data.q.val().get_bits::<16>(0);
        self.data2.xor_in.next = 0.into();
        self.data2.enable.next = self.a_valid.q.val() & self.a_last.q.val() & !self.a_6.q.val();
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_first.d.next = self.a_first.q.val();
        self.b_last.d.next = self.a_last.q.val();
        self.b_6.d.next = self.a_6.q.val();
        // ---- B -> C: the loop over whole beats (state = A8 x state ^ B8 x beat, from the
        // seed at beat 1); a last beat goes to the tail ----
        self.state8.data_in.next = self.state8.q.val();
        if self.b_first.q.val() {
            self.state8.data_in.next = self.seed.val();
        }
        self.state8.xor_in.next = self.data8.q.val();
        self.state8.enable.next = self.b_valid.q.val() & !self.b_last.q.val();
        self.c_valid.d.next = self.b_valid.q.val() & self.b_last.q.val();
        self.c_6.d.next = self.b_6.q.val();
        self.c_state.d.next = self.state8.q.val();
        self.c_tail.d.next = self.data2.q.val();
        if self.b_6.q.val() {
            self.c_tail.d.next = self.data6.q.val();
        }
        // ---- C -> D -> E: the tail's state terms, then the inversion ----
        self.state6.data_in.next = self.c_state.q.val();
        self.state6.xor_in.next = 0.into();
        self.state6.enable.next = self.c_valid.q.val() & self.c_6.q.val();
        self.state2.data_in.next = self.c_state.q.val();
        self.state2.xor_in.next = 0.into();
        self.state2.enable.next = self.c_valid.q.val() & !self.c_6.q.val();
        self.d_valid.d.next = self.c_valid.q.val();
        self.d_6.d.next = self.c_6.q.val();
        self.d_tail.d.next = self.c_tail.q.val();
        self.e_valid.d.next = self.d_valid.q.val();
        self.e_icrc.d.next = !(self.state2.q.val() ^ self.d_tail.q.val());
        if self.d_6.q.val() {
            self.e_icrc.d.next = !(self.state6.q.val() ^ self.d_tail.q.val());
        }
        self.icrc_valid.next = self.e_valid.q.val();
        self.icrc.next = self.e_icrc.q.val();
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.d_valid.d.next = false;
            self.e_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::xor_net::xor_product;

    #[test]
    fn taps_reproduce_bytewise_crc() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for k in [2usize, 6, 8] {
            let (st, dt) = (crc_taps(k, true), crc_taps(k, false));
            for _ in 0..100 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let state = (x >> 11) as u32;
                let data = &x.rotate_left(17).to_le_bytes()[..k];
                let d = data.iter().enumerate().fold(0u128, |a, (i, &b)| a | u128::from(b) << (8 * i));
                let got = xor_product(&st, state.into()) ^ xor_product(&dt, d);
                assert_eq!(got as u32, crc_bytes(state, data), "{k} bytes");
            }
        }
    }

    #[test]
    fn seed_covers_two_lrh_bytes() {
        // The seed then six 0xFF bytes is the preset after all eight.
        assert_eq!(crc_bytes(seed_before_beat1(), &[0xff; 6]), crc_bytes(0xFFFF_FFFF, &[0xff; 8]));
    }
}
