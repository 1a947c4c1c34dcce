//! RSS (docs/rx-classification.md §4): hash type, Toeplitz hash, indirection table.
//!
//! The tuple arrives as five 64-bit words (first byte in bits 63:56, zero-padded). On
//! `start` the block loads the tuple and the 40-byte key and picks the hash type from
//! `rss_ctrl`; the words the type leaves out (the ports when it has none) are zeroed as
//! they shift toward the step, and `NONE`'s hash is reported as 0.
//! Then five cycles each hash one word: with the key register shifted 64 bits per cycle,
//! bit `j` of the word (most significant first) selects the 32-bit key window starting at
//! key bit `j`, and the selected windows are XORed into the result ([`ToeplitzStep`], 64
//! word-wide AND/XOR terms). Zero bytes add nothing, so every type
//! takes the same five cycles. Two more cycles read the indirection table
//! (a 32 x 32-bit RAM, four 8-bit entries per word as software writes them) and register
//! the result; `done` pulses with `hash`, `hash_type` and `reta_queue` (held until the
//! next `start`). A `start` is taken only while `idle`; one frame every 8 cycles.
//!
//! After `reset` the block writes the table's reset value (entry `j` = `j`, 32 cycles,
//! `ready` low meanwhile); writes arriving meanwhile are dropped.

use rust_hdl::prelude::*;

/// The software definition of one step: XOR of the key windows selected by `data`.
pub fn toeplitz_step(data: u64, key_hi: u64, key_lo: u32) -> u32 {
    let key = (u128::from(key_hi) << 32) | u128::from(key_lo);
    (0..64).filter(|j| data >> (63 - j) & 1 == 1).fold(0u32, |acc, j| acc ^ (key >> (64 - j)) as u32)
}

/// Combinational: one 64-bit Toeplitz step; `key_hi`:`key_lo`:0 are the next 96 key bits,
/// first bit in bit 63 of `key_hi` (the 96th bit is never needed).
#[derive(LogicBlock, Default)]
pub struct ToeplitzStep {
    pub data: Signal<In, Bits<64>>,
    pub key_hi: Signal<In, Bits<64>>,
    pub key_lo: Signal<In, Bits<31>>,
    pub out: Signal<Out, Bits<32>>,
}

impl Logic for ToeplitzStep {
    fn update(&mut self) {
        let v = toeplitz_step(self.data.val().to_u64(), self.key_hi.val().to_u64(), (self.key_lo.val().to_u64() as u32) << 1);
        self.out.next = Bits::<32>::from(v as u64);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        // Word-wide terms: out ^= data bit ? 32-bit key window : 0. Synthesis sees the same
        // AND/XOR network as bit-level equations; Verilator evaluates 64 word operations
        // instead of 2,048 bit operations per cycle (the bit-level form made the whole NIC
        // simulate 3.5 times slower). Window j (data bit 63 - j) is key bits 95-j..64-j:
        // within key_hi for j < 32, else within kb = {key_hi[31:0], key_lo} (key bits 63..1).
        let mut terms = Vec::new();
        for j in 0..64usize {
            let window = if j < 32 { format!("key_hi[{}:{}]", 63 - j, 32 - j) } else { format!("kb[{}:{}]", 94 - j, 63 - j) };
            terms.push(format!("({{32{{data[{}]}}}} & {window})", 63 - j));
        }
        let mut body = String::from("wire [62:0] kb = {key_hi[31:0], key_lo};\n");
        body.push_str(&format!("assign out = {};\n", terms.join("\n    ^ ")));
        Verilog::Custom(body)
    }
}

#[derive(LogicBlock)]
pub struct RxRss {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The indirection table holds its reset value (or software's).
    pub ready: Signal<Out, Bit>,
    pub idle: Signal<Out, Bit>,
    pub start: Signal<In, Bit>,
    pub tuple: [Signal<In, Bits<64>>; 5],
    pub v4ok: Signal<In, Bit>,
    pub v6ok: Signal<In, Bit>,
    pub tcp_ok: Signal<In, Bit>,
    pub udp_ok: Signal<In, Bit>,
    // configuration
    /// RSS_CTRL bits 5:0: the hash types enabled.
    pub rss_ctrl: Signal<In, Bits<6>>,
    /// RSS_KEY[i]: key bytes 4i..4i+3, byte 4i in bits 31:24.
    pub rss_key: [Signal<In, Bits<32>>; 10],
    pub reta_wr: Signal<In, Bit>,
    pub reta_wr_addr: Signal<In, Bits<5>>,
    pub reta_wr_data: Signal<In, Bits<32>>,
    // result
    pub done: Signal<Out, Bit>,
    pub hash: Signal<Out, Bits<32>>,
    pub hash_type: Signal<Out, Bits<4>>,
    /// RSS_RETA[hash % 128] (unmasked; meaningless for type NONE).
    pub reta_queue: Signal<Out, Bits<8>>,
    step: ToeplitzStep,
    reta: RAM<Bits<32>, 5>,
    init: DFF<Bits<6>>,
    running: DFF<Bit>,
    count: DFF<Bits<3>>,
    look1: DFF<Bit>,
    look2: DFF<Bit>,
    /// `idle` as a flip-flop: the next values of `running`, `look1` and `look2` all
    /// clear. A `start` then clears or loads the 320 tuple bits from one register and the
    /// caller's request, not through a three-register test first.
    idle_q: DFF<Bit>,
    t: [DFF<Bits<64>>; 5],
    /// Which of `t`'s words the hash type keeps (bit i for `t[i]`, shifted with them): a
    /// `start` loads all 320 tuple bits whatever the type, and a word the type leaves out
    /// (the ports of an address-only type, IPv6's address words under IPv4) is zeroed as
    /// it shifts toward the step. The load no longer waits for the type's priority logic
    /// (the parser's verdict bits → the type → 320 enables: 7.1 ns at speed 8).
    keep: DFF<Bits<5>>,
    k: [DFF<Bits<64>>; 5],
    acc: DFF<Bits<32>>,
    htype: DFF<Bits<4>>,
    r_done: DFF<Bit>,
    r_hash: DFF<Bits<32>>,
    r_type: DFF<Bits<4>>,
    r_queue: DFF<Bits<8>>,
    clearing: Signal<Local, Bit>,
    init_word: Signal<Local, Bits<32>>,
    base: Signal<Local, Bits<32>>,
    ty: Signal<Local, Bits<4>>,
    ports: Signal<Local, Bit>,
    sel: Signal<Local, Bits<8>>,
}

impl Default for RxRss {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            idle: Default::default(),
            start: Default::default(),
            tuple: Default::default(),
            v4ok: Default::default(),
            v6ok: Default::default(),
            tcp_ok: Default::default(),
            udp_ok: Default::default(),
            rss_ctrl: Default::default(),
            rss_key: Default::default(),
            reta_wr: Default::default(),
            reta_wr_addr: Default::default(),
            reta_wr_data: Default::default(),
            done: Default::default(),
            hash: Default::default(),
            hash_type: Default::default(),
            reta_queue: Default::default(),
            step: Default::default(),
            reta: Default::default(),
            init: Default::default(),
            running: Default::default(),
            count: Default::default(),
            look1: Default::default(),
            look2: Default::default(),
            idle_q: Default::default(),
            t: Default::default(),
            keep: Default::default(),
            k: Default::default(),
            acc: Default::default(),
            htype: Default::default(),
            r_done: Default::default(),
            r_hash: Default::default(),
            r_type: Default::default(),
            r_queue: Default::default(),
            clearing: Default::default(),
            init_word: Default::default(),
            base: Default::default(),
            ty: Default::default(),
            ports: Default::default(),
            sel: Default::default(),
        }
    }
}

impl Logic for RxRss {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, init, running, count, look1, look2, idle_q, keep, acc, htype, r_done, r_hash, r_type, r_queue);
        for i in 0..5 {
            self.t[i].clock.next = self.clock.val();
            self.t[i].d.next = self.t[i].q.val();
            self.k[i].clock.next = self.clock.val();
            self.k[i].d.next = self.k[i].q.val();
        }
        self.reta.read_clock.next = self.clock.val();
        self.reta.write_clock.next = self.clock.val();
        // the indirection table: reset value after reset, then the write port
        self.clearing.next = !self.init.q.val().get_bit(5);
        self.ready.next = self.init.q.val().get_bit(5);
        if self.clearing.val() {
            self.init.d.next = self.init.q.val() + 1;
        }
        self.base.next = bit_cast::<32, 5>(self.init.q.val().get_bits::<5>(0)) << 2;
        self.init_word.next = self.base.val() | ((self.base.val() + 1) << 8) | ((self.base.val() + 2) << 16) | ((self.base.val() + 3) << 24);
        self.reta.write_enable.next = self.clearing.val() | self.reta_wr.val();
        self.reta.write_address.next = self.reta_wr_addr.val();
        self.reta.write_data.next = self.reta_wr_data.val();
        if self.clearing.val() {
            self.reta.write_address.next = self.init.q.val().get_bits::<5>(0);
            self.reta.write_data.next = self.init_word.val();
        }
        // hash type (first that applies)
        self.ty.next = 0.into();
        if self.v4ok.val() {
            if self.tcp_ok.val() & self.rss_ctrl.val().get_bit(1) {
                self.ty.next = 2.into();
            } else if self.udp_ok.val() & self.rss_ctrl.val().get_bit(2) {
                self.ty.next = 3.into();
            } else if self.rss_ctrl.val().get_bit(0) {
                self.ty.next = 1.into();
            }
        }
        if self.v6ok.val() {
            if self.tcp_ok.val() & self.rss_ctrl.val().get_bit(4) {
                self.ty.next = 5.into();
            } else if self.udp_ok.val() & self.rss_ctrl.val().get_bit(5) {
                self.ty.next = 6.into();
            } else if self.rss_ctrl.val().get_bit(3) {
                self.ty.next = 4.into();
            }
        }
        self.ports.next = (self.ty.val() == 2) | (self.ty.val() == 3) | (self.ty.val() == 5) | (self.ty.val() == 6);
        self.idle.next = self.idle_q.q.val();
        // the Toeplitz steps
        self.step.data.next = self.t[0].q.val();
        self.step.key_hi.next = self.k[0].q.val();
        self.step.key_lo.next = self.k[1].q.val().get_bits::<31>(33);
        if self.running.q.val() {
            self.acc.d.next = self.acc.q.val() ^ self.step.out.val();
            for i in 0..4 {
                self.t[i].d.next = 0.into();
                if self.keep.q.val().get_bit(i + 1) {
                    self.t[i].d.next = self.t[i + 1].q.val();
                }
                self.k[i].d.next = self.k[i + 1].q.val();
            }
            self.keep.d.next = self.keep.q.val() >> 1;
            self.t[4].d.next = 0.into();
            self.k[4].d.next = 0.into();
            self.count.d.next = self.count.q.val() + 1;
            if self.count.q.val() == 4 {
                self.running.d.next = false;
            }
        }
        if self.start.val() & self.idle.val() {
            self.running.d.next = true;
            self.count.d.next = 0.into();
            self.acc.d.next = 0.into();
            self.htype.d.next = self.ty.val();
            for i in 0..5 {
                self.t[i].d.next = self.tuple[i].val();
            }
            self.k[0].d.next = (bit_cast::<64, 32>(self.rss_key[0].val()) << 32) | bit_cast::<64, 32>(self.rss_key[1].val());
            self.k[1].d.next = (bit_cast::<64, 32>(self.rss_key[2].val()) << 32) | bit_cast::<64, 32>(self.rss_key[3].val());
            self.k[2].d.next = (bit_cast::<64, 32>(self.rss_key[4].val()) << 32) | bit_cast::<64, 32>(self.rss_key[5].val());
            self.k[3].d.next = (bit_cast::<64, 32>(self.rss_key[6].val()) << 32) | bit_cast::<64, 32>(self.rss_key[7].val());
            self.k[4].d.next = (bit_cast::<64, 32>(self.rss_key[8].val()) << 32) | bit_cast::<64, 32>(self.rss_key[9].val());
            // t[0] is the first step's word, kept whatever the type (NONE: its hash is
            // reported as 0, from `htype`)
            self.keep.d.next = 1.into();
            if self.ports.val() | self.v6ok.val() {
                self.keep.d.next = 3.into();
            }
            if self.v6ok.val() {
                self.keep.d.next = 15.into();
                if self.ports.val() {
                    self.keep.d.next = 31.into();
                }
            }

        }
        // the indirection table read
        self.look1.d.next = self.running.q.val() & (self.count.q.val() == 4);
        self.look2.d.next = self.look1.q.val();
        self.reta.read_address.next = self.acc.q.val().get_bits::<5>(2);
        self.sel.next = self.reta.read_data.val().get_bits::<8>(0);
        if self.acc.q.val().get_bits::<2>(0) == 1 {
            self.sel.next = self.reta.read_data.val().get_bits::<8>(8);
        }
        if self.acc.q.val().get_bits::<2>(0) == 2 {
            self.sel.next = self.reta.read_data.val().get_bits::<8>(16);
        }
        if self.acc.q.val().get_bits::<2>(0) == 3 {
            self.sel.next = self.reta.read_data.val().get_bits::<8>(24);
        }
        self.r_done.d.next = self.look2.q.val();
        if self.look2.q.val() {
            self.r_hash.d.next = self.acc.q.val();
            // NONE: 0, the hash of an all-zero tuple (`t[0]` is not cleared for it)
            if self.htype.q.val() == 0 {
                self.r_hash.d.next = 0.into();
            }
            self.r_type.d.next = self.htype.q.val();
            self.r_queue.d.next = self.sel.val();
        }
        self.done.next = self.r_done.q.val();
        self.hash.next = self.r_hash.q.val();
        self.hash_type.next = self.r_type.q.val();
        self.reta_queue.next = self.r_queue.q.val();
        if self.reset.val() {
            self.init.d.next = 0.into();
            self.running.d.next = false;
            self.look1.d.next = false;
            self.look2.d.next = false;
            self.r_done.d.next = false;
        }
        self.idle_q.d.next = !self.running.d.val() & !self.look1.d.val() & !self.look2.d.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Bitwise Toeplitz reference (independent of `toeplitz_step`).
    fn reference(key: &[u8; 40], input: &[u8]) -> u32 {
        let bit = |k: &[u8], n: usize| (k[n / 8] >> (7 - n % 8)) & 1;
        let mut r = 0u32;
        for n in 0..input.len() * 8 {
            if bit(input, n) == 1 {
                let mut w = 0u32;
                for j in 0..32 {
                    w = (w << 1) | u32::from(bit(key, n + j));
                }
                r ^= w;
            }
        }
        r
    }
    #[test]
    fn five_steps_are_the_toeplitz_hash() {
        let key: [u8; 40] = std::array::from_fn(|i| (i as u8).wrapping_mul(73).wrapping_add(0x5d));
        let input: [u8; 36] = std::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ 0xa7);
        let mut t = [0u8; 40];
        t[..36].copy_from_slice(&input);
        let mut k = [0u8; 48];
        k[..40].copy_from_slice(&key);
        let mut acc = 0;
        for c in 0..5 {
            let d = u64::from_be_bytes(t[8 * c..8 * c + 8].try_into().unwrap());
            let hi = u64::from_be_bytes(k[8 * c..8 * c + 8].try_into().unwrap());
            let lo = u32::from_be_bytes(k[8 * c + 8..8 * c + 12].try_into().unwrap());
            acc ^= toeplitz_step(d, hi, lo);
        }
        assert_eq!(acc, reference(&key, &input));
    }
}
