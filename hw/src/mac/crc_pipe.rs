//! The CRC-32 of a frame's beats, pipelined for 156.25 MHz: the MACs' 8-byte-a-cycle CRC.
//!
//! Why it is cut this way (as the RoCE ICRC, `rdma::icrc`): the register update over 8
//! bytes is `state' = A8 x state ^ B8 x data` over GF(2), and only the state half sits
//! in a loop. So the data half is computed a stage ahead, and the loop is one 32 x 32
//! network (about 16 state bits per output bit) behind a mux (the state, or the preset
//! at a frame's first beat) and an XOR.
//!
//! A frame's last beat may be short (k = 1..8 bytes from lane 0), and it never enters
//! the loop. Its data half is the 8-byte network's over the beat moved up by 8 - k
//! lanes: the CRC is linear, `crc(s, d) = crc(s, 0..) ^ crc(0, d)`, and zero bytes in
//! front of `d` leave a zero register zero, so `crc(0, d) = B8 x (d in the top k lanes)`.
//! Its state half, `A_k x state`, is taken over two stages after the loop:
//! `A_2j` (j = 0..3) then `A_1` or `A_2`. One data network and five small state ones,
//! where a one-cycle CRC needs a network per byte count or a cascade of them.
//!
//! Stages, each moving only with `advance` (a stall-all pipeline: the MAC around it
//! stops every stage at once when its output cannot move): A aligns the beat, B computes
//! its data half, C is the loop and holds a last beat's state, D and E apply `A_k`. A
//! beat (data, byte count, `user` bit) rides along as it came, so it leaves with its frame's
//! CRC [`LATENCY`] advances after it came in. Frames follow each other without a gap: the loop starts the next
//! frame from the preset while the last one's tail is in D and E.

use super::crc::split_taps;
use super::xor_net::XorReg;
use rust_hdl::prelude::*;

/// Advances from a beat at the input to the same beat at the output.
pub const LATENCY: u64 = 5;

/// A beat as it rides through the stages: [63:0] data, [67:64] byte count, [68] user.
type PipeBeat = Bits<69>;

#[derive(LogicBlock)]
pub struct Crc32Pipe {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Every stage takes its predecessor's beat (or bubble); the output's leaves.
    pub advance: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    /// Lane 0 (bits 7:0) is the byte sent first.
    pub in_data: Signal<In, Bits<64>>,
    /// Bytes of the beat in the CRC, from lane 0: 1..8, 0 meaning 8. Only a frame's last
    /// beat may be short.
    pub in_nbytes: Signal<In, Bits<4>>,
    pub in_first: Signal<In, Bit>,
    pub in_last: Signal<In, Bit>,
    /// Carried along with the beat (the MACs' error flag).
    pub in_user: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_last: Signal<Out, Bit>,
    /// The beat as it came in: `in_data`, `in_nbytes`, `in_user`.
    pub out_data: Signal<Out, Bits<64>>,
    pub out_nbytes: Signal<Out, Bits<4>>,
    pub out_user: Signal<Out, Bit>,
    /// With `out_last`: the register after the frame (preset all ones, not inverted).
    pub out_crc: Signal<Out, Bits<32>>,
    // A: the beat, a short one moved up to the top lanes
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    a_last: DFF<Bit>,
    a_km1: DFF<Bits<3>>,
    a_data: DFF<Bits<64>>,
    a_pay: DFF<PipeBeat>,
    // B: its data half
    b_valid: DFF<Bit>,
    b_first: DFF<Bit>,
    b_last: DFF<Bit>,
    b_km1: DFF<Bits<3>>,
    /// The data half, `B8 x` A's data, loaded only with a beat (a bubble leaves it as
    /// it was: nothing reads it without its beat).
    b_d: XorReg<64, 32>,
    b_pay: DFF<PipeBeat>,
    // C: the loop; a last beat's state before it
    /// The CRC state: `A8 x from ^ b_d` at each beat but a last one (`from` the state,
    /// or the preset at a frame's first beat).
    state: XorReg<32, 32>,
    c_valid: DFF<Bit>,
    c_last: DFF<Bit>,
    c_km1: DFF<Bits<3>>,
    c_state: DFF<Bits<32>>,
    c_d: DFF<Bits<32>>,
    c_pay: DFF<PipeBeat>,
    // D: A_2j; E: A_1 or A_2, and the data half
    d_valid: DFF<Bit>,
    d_last: DFF<Bit>,
    d_odd: DFF<Bit>,
    /// `A_2j x` the state before a last beat, one register per j, each loaded only with
    /// a last beat of its j (the others are read by nothing), and `d_j` which one; `d_s`
    /// picks it. Only the state loop runs for every beat: the tail networks are
    /// evaluated in the simulator only in the cycles a last beat passes (`XorReg`).
    d_s0: DFF<Bits<32>>,
    d_s2: XorReg<32, 32>,
    d_s4: XorReg<32, 32>,
    d_s6: XorReg<32, 32>,
    d_j: DFF<Bits<2>>,
    d_s: Signal<Local, Bits<32>>,
    d_d: DFF<Bits<32>>,
    d_pay: DFF<PipeBeat>,
    e_valid: DFF<Bit>,
    e_last: DFF<Bit>,
    /// `A_1` or `A_2` of `d_s`, plus the data half, loaded with a last beat whose count
    /// is even or odd (`e_odd` says which holds the CRC).
    e_crc1: XorReg<32, 32>,
    e_crc2: XorReg<32, 32>,
    e_odd: DFF<Bit>,
    e_pay: DFF<PipeBeat>,
    /// A last beat leaves C (D's loads) or D (E's).
    c_tail: Signal<Local, Bit>,
    d_tail: Signal<Local, Bit>,
    zero32: Constant<Bits<32>>,
    km1: Signal<Local, Bits<3>>,
    /// 8 - k, the lanes a short beat moves up: a signal of its own, so that the exported
    /// Verilog complements 3 bits (in a wider expression `~km1` would widen first).
    up_lanes: Signal<Local, Bits<3>>,
    up_shift: Signal<Local, Bits<7>>,
    from: Signal<Local, Bits<32>>,
    preset: Constant<Bits<32>>,
}

impl Default for Crc32Pipe {
    fn default() -> Self {
        let a = |k: usize| XorReg::new(split_taps(k, true));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_nbytes: Default::default(),
            in_first: Default::default(),
            in_last: Default::default(),
            in_user: Default::default(),
            out_valid: Default::default(),
            out_last: Default::default(),
            out_data: Default::default(),
            out_nbytes: Default::default(),
            out_user: Default::default(),
            out_crc: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_last: Default::default(),
            a_km1: Default::default(),
            a_data: Default::default(),
            a_pay: Default::default(),
            b_valid: Default::default(),
            b_first: Default::default(),
            b_last: Default::default(),
            b_km1: Default::default(),
            b_d: XorReg::new(split_taps(8, false)),
            b_pay: Default::default(),
            state: XorReg::new(split_taps(8, true)),
            c_valid: Default::default(),
            c_last: Default::default(),
            c_km1: Default::default(),
            c_state: Default::default(),
            c_d: Default::default(),
            c_pay: Default::default(),
            d_valid: Default::default(),
            d_last: Default::default(),
            d_odd: Default::default(),
            d_s0: Default::default(),
            d_s2: a(2),
            d_s4: a(4),
            d_s6: a(6),
            d_j: Default::default(),
            d_s: Default::default(),
            d_d: Default::default(),
            d_pay: Default::default(),
            e_valid: Default::default(),
            e_last: Default::default(),
            e_crc1: XorReg::new(split_taps(1, true)),
            e_crc2: XorReg::new(split_taps(2, true)),
            e_odd: Default::default(),
            e_pay: Default::default(),
            c_tail: Default::default(),
            d_tail: Default::default(),
            zero32: Constant::new(0.into()),
            km1: Default::default(),
            up_lanes: Default::default(),
            up_shift: Default::default(),
            from: Default::default(),
            preset: Constant::new(Bits::<32>::from(0xffff_ffffu64)),
        }
    }
}

impl Logic for Crc32Pipe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_valid, a_first, a_last, a_km1, a_data, a_pay, b_valid, b_first, b_last, b_km1, b_pay,
            c_valid, c_last, c_km1, c_state, c_d, c_pay, d_valid, d_last, d_odd, d_s0, d_j, d_d, d_pay, e_valid, e_last,
            e_odd, e_pay);
        clock!(self, clock, b_d, state, d_s2, d_s4, d_s6, e_crc1, e_crc2);
        // ---- in -> A: k - 1 (0 bytes meaning 8 gives 7), the beat moved up 8 - k lanes ----
        self.km1.next = bit_cast::<3, 4>(self.in_nbytes.val() - 1);
        self.up_lanes.next = !self.km1.val();
        self.up_shift.next = bit_cast::<7, 3>(self.up_lanes.val()) << 3;
        // ---- A -> B: the data half ----
        self.b_d.data_in.next = self.a_data.q.val();
        self.b_d.xor_in.next = self.zero32.val();
        self.b_d.enable.next = self.advance.val() & self.a_valid.q.val();
        // ---- B -> C: the loop (the state a frame's first beat starts from is the preset) ----
        self.from.next = self.state.q.val();
        if self.b_first.q.val() {
            self.from.next = self.preset.val();
        }
        self.state.data_in.next = self.from.val();
        self.state.xor_in.next = self.b_d.q.val();
        self.state.enable.next = self.advance.val() & self.b_valid.q.val() & !self.b_last.q.val();
        // ---- C -> D -> E: A_k of the state before the last beat, then its data half ----
        self.c_tail.next = self.advance.val() & self.c_valid.q.val() & self.c_last.q.val();
        self.d_tail.next = self.advance.val() & self.d_valid.q.val() & self.d_last.q.val();
        self.d_s2.data_in.next = self.c_state.q.val();
        self.d_s4.data_in.next = self.c_state.q.val();
        self.d_s6.data_in.next = self.c_state.q.val();
        self.d_s2.xor_in.next = self.zero32.val();
        self.d_s4.xor_in.next = self.zero32.val();
        self.d_s6.xor_in.next = self.zero32.val();
        self.d_s2.enable.next = self.c_tail.val() & (self.c_km1.q.val().get_bits::<2>(1) == 1);
        self.d_s4.enable.next = self.c_tail.val() & (self.c_km1.q.val().get_bits::<2>(1) == 2);
        self.d_s6.enable.next = self.c_tail.val() & (self.c_km1.q.val().get_bits::<2>(1) == 3);
        self.d_s.next = self.d_s0.q.val();
        if self.d_j.q.val() == 1 {
            self.d_s.next = self.d_s2.q.val();
        }
        if self.d_j.q.val() == 2 {
            self.d_s.next = self.d_s4.q.val();
        }
        if self.d_j.q.val() == 3 {
            self.d_s.next = self.d_s6.q.val();
        }
        self.e_crc1.data_in.next = self.d_s.val();
        self.e_crc2.data_in.next = self.d_s.val();
        self.e_crc1.xor_in.next = self.d_d.q.val();
        self.e_crc2.xor_in.next = self.d_d.q.val();
        self.e_crc1.enable.next = self.d_tail.val() & !self.d_odd.q.val();
        self.e_crc2.enable.next = self.d_tail.val() & self.d_odd.q.val();
        if self.advance.val() {
            self.a_valid.d.next = self.in_valid.val();
            self.a_first.d.next = self.in_first.val();
            self.a_last.d.next = self.in_last.val();
            self.a_km1.d.next = self.km1.val();
            self.a_data.d.next = self.in_data.val();
            if self.in_last.val() {
                self.a_data.d.next = self.in_data.val() << self.up_shift.val();
            }
            self.a_pay.d.next = bit_cast::<69, 64>(self.in_data.val())
                | (bit_cast::<69, 4>(self.in_nbytes.val()) << 64)
                | (bit_cast::<69, 1>(self.in_user.val().into()) << 68);
            self.b_valid.d.next = self.a_valid.q.val();
            self.b_first.d.next = self.a_first.q.val();
            self.b_last.d.next = self.a_last.q.val();
            self.b_km1.d.next = self.a_km1.q.val();
            self.b_pay.d.next = self.a_pay.q.val();
            self.c_valid.d.next = self.b_valid.q.val();
            self.c_last.d.next = self.b_last.q.val();
            self.c_km1.d.next = self.b_km1.q.val();
            self.c_state.d.next = self.from.val();
            self.c_d.d.next = self.b_d.q.val();
            self.c_pay.d.next = self.b_pay.q.val();
            self.d_valid.d.next = self.c_valid.q.val();
            self.d_last.d.next = self.c_last.q.val();
            self.d_odd.d.next = self.c_km1.q.val().get_bit(0);
            self.d_s0.d.next = self.c_state.q.val();
            self.d_j.d.next = self.c_km1.q.val().get_bits::<2>(1);
            self.d_d.d.next = self.c_d.q.val();
            self.d_pay.d.next = self.c_pay.q.val();
            self.e_valid.d.next = self.d_valid.q.val();
            self.e_last.d.next = self.d_last.q.val();
            self.e_odd.d.next = self.d_odd.q.val();
            self.e_pay.d.next = self.d_pay.q.val();
        }
        self.out_valid.next = self.e_valid.q.val();
        self.out_last.next = self.e_last.q.val();
        self.out_data.next = self.e_pay.q.val().get_bits::<64>(0);
        self.out_nbytes.next = self.e_pay.q.val().get_bits::<4>(64);
        self.out_user.next = self.e_pay.q.val().get_bit(68);
        self.out_crc.next = self.e_crc1.q.val();
        if self.e_odd.q.val() {
            self.out_crc.next = self.e_crc2.q.val();
        }
        if self.reset.val() {
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
    use super::super::crc::crc_bytes;
    use super::super::xor_net::xor_product;
    use super::*;

    /// The stage arithmetic in software, against the bytewise CRC: `A_2j` then `A_1` or
    /// `A_2` is `A_k`, and the data half of a short beat is the 8-byte network's over
    /// the beat moved up.
    #[test]
    fn tail_split_reproduces_bytewise_crc() {
        let net = |k: usize, state: bool, x: u128| xor_product(&split_taps(k, state), x) as u32;
        let mut x = 0x0fed_cba9_8765_4321u64;
        for k in 1..=8usize {
            for _ in 0..64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let state = (x >> 9) as u32;
                let beat = x.rotate_left(29);
                let data = &beat.to_le_bytes()[..k];
                let j = (k - 1) >> 1;
                let s = if j == 0 { state } else { net(2 * j, true, state.into()) };
                let s = net(if (k - 1) & 1 == 1 { 2 } else { 1 }, true, s.into());
                let moved = if k == 8 { beat } else { beat << (8 * (8 - k)) };
                assert_eq!(s ^ net(8, false, moved.into()), crc_bytes(state, data), "{k} bytes");
            }
        }
    }
}
