//! RX MAC filter (docs/rx-classification.md §1): exact-match table, multicast hash,
//! PROMISC / ALLMULTI / BROADCAST, and the steering entry.
//!
//! `dst` is held stable by the classifier while a frame is judged; the verdict follows it
//! three cycles later (registered stages: compares, and the hash-table read addressed by
//! the hash index straight from `dst`; priority encoder, and the table word into
//! flip-flops; the word's bit and the decision), so every path is short. The table word
//! goes from the block RAM's output into flip-flops with nothing between: the RAM's
//! clock-to-out (4.3 ns on an ECP5 at speed 8) leaves no room for the 16-way bit select
//! in the same cycle at 156.25 MHz.
//!
//! The multicast table (128 x 32 bits) is a RAM with a write port. After `reset` the
//! block clears it (128 cycles, `ready` low meanwhile): its reset value is all zeros.
//! Writes arriving while it clears are dropped.
//!
//! The hash index is `crc32(dst) & 0xfff` (zlib CRC-32, with its initial value and final
//! inversion). Over a fixed 6-byte input it is an affine function of the 48 address bits,
//! so [`McastIndex`] is twelve XOR equations computed here from the bytewise CRC, the way
//! `mac::crc` generates its networks.

use crate::mac::crc::crc_bytes;
use rust_hdl::prelude::*;

/// The reference: `crc32(addr) & 0xfff`.
pub fn mcast_index(addr: &[u8; 6]) -> u16 {
    (!crc_bytes(0xFFFF_FFFF, addr) & 0xfff) as u16
}

/// For each of the 12 index bits: the address bits (byte `i / 8`, bit `i % 8`) that XOR
/// into it, and the constant.
fn index_taps() -> Vec<(Vec<usize>, bool)> {
    let c = mcast_index(&[0; 6]);
    let cols: Vec<u16> = (0..48)
        .map(|i| {
            let mut a = [0u8; 6];
            a[i / 8] = 1 << (i % 8);
            mcast_index(&a) ^ c
        })
        .collect();
    (0..12).map(|b| ((0..48).filter(|&i| cols[i] >> b & 1 != 0).collect(), c >> b & 1 != 0)).collect()
}

/// Combinational: `index` = `crc32(dst) & 0xfff`, `dst` byte 0 in bits 7:0.
#[derive(LogicBlock, Default)]
pub struct McastIndex {
    pub dst: Signal<In, Bits<48>>,
    pub index: Signal<Out, Bits<12>>,
}

impl Logic for McastIndex {
    fn update(&mut self) {
        let bytes = self.dst.val().to_u64().to_le_bytes();
        let a: [u8; 6] = bytes[..6].try_into().unwrap();
        self.index.next = Bits::<12>::from(mcast_index(&a) as u64);
    }
    fn connect(&mut self) {
        self.index.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::new();
        for (bit, (inputs, one)) in index_taps().iter().enumerate() {
            let mut terms: Vec<String> = inputs.iter().map(|i| format!("dst[{i}]")).collect();
            if *one {
                terms.push("1'b1".into());
            }
            let expr = if terms.is_empty() { "1'b0".to_string() } else { terms.join(" ^ ") };
            body.push_str(&format!("assign index[{bit}] = {expr};\n"));
        }
        Verilog::Custom(body)
    }
}

#[derive(LogicBlock)]
pub struct RxFilter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The clearing of the multicast table after reset is over.
    pub ready: Signal<Out, Bit>,
    /// Destination address, byte 0 in bits 7:0; held stable.
    pub dst: Signal<In, Bits<48>>,
    // configuration
    /// RX_FILTER_CTRL bits 2:0: BROADCAST, ALLMULTI, PROMISC.
    pub filter_ctrl: Signal<In, Bits<3>>,
    /// Word 2i = MAC_FILTER_LO[i], word 2i+1 = MAC_FILTER_HI[i].
    pub mac_filter: [Signal<In, Bits<32>>; 32],
    /// MCAST_HASH word write: at most one every other cycle (the CSR block answers each
    /// register write before it takes the next); lost while the table clears itself
    /// after reset (256 cycles).
    pub mcast_wr: Signal<In, Bit>,
    pub mcast_wr_addr: Signal<In, Bits<7>>,
    pub mcast_wr_data: Signal<In, Bits<32>>,
    // verdict, 3 cycles after `dst`
    /// 0 accept, 1 unicast miss, 2 multicast miss, 3 broadcast rejected.
    pub drop: Signal<Out, Bits<2>>,
    /// The lowest exact entry that hits has STEER set: its queue is `steer_queue`.
    pub steer: Signal<Out, Bit>,
    pub steer_queue: Signal<Out, Bits<8>>,
    hasher: McastIndex,
    /// The 4096-bit hash table as 256 words of 16 bits (an iCE40 block RAM is at most
    /// 16 bits wide: 128 words of 32 would take two); a 32-bit MCAST_HASH register
    /// write is two word writes, the high half one cycle after the low.
    mcast_table: RAM<Bits<16>, 8>,
    /// The high half of the last MCAST_HASH write, still to be written (register writes
    /// are at least two cycles apart: the CSR block answers each before taking the next).
    hi_pending: DFF<Bit>,
    hi_addr: DFF<Bits<7>>,
    hi_data: DFF<Bits<16>>,
    init: DFF<Bits<9>>,
    hit: [DFF<Bit>; 16],
    /// The index's bit within the table word being read.
    s1_bit: DFF<Bits<4>>,
    s1_bcast: DFF<Bit>,
    s1_mcast: DFF<Bit>,
    s2_any: DFF<Bit>,
    s2_steer: DFF<Bit>,
    s2_queue: DFF<Bits<8>>,
    s2_bit: DFF<Bits<4>>,
    /// The table word, from the RAM's output (no enable, no logic in front).
    s2_word: DFF<Bits<16>>,
    s2_bcast: DFF<Bit>,
    s2_mcast: DFF<Bit>,
    r_drop: DFF<Bits<2>>,
    r_steer: DFF<Bit>,
    r_queue: DFF<Bits<8>>,
    broadcast: Constant<Bits<48>>,
    clearing: Signal<Local, Bit>,
    /// MAC_FILTER_HI bits 29:24 (reserved), read only to say so (Verilator's `*unused*` convention).
    unused_hi: [Signal<Local, Bits<6>>; 16],
    any: Signal<Local, Bit>,
    st: Signal<Local, Bit>,
    q: Signal<Local, Bits<8>>,
    bit_no: [Constant<Bits<4>>; 16],
    hash_bit: Signal<Local, Bit>,
    promisc: Signal<Local, Bit>,
    allmulti: Signal<Local, Bit>,
    bcast_ok: Signal<Local, Bit>,
}

impl Default for RxFilter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            dst: Default::default(),
            filter_ctrl: Default::default(),
            mac_filter: Default::default(),
            mcast_wr: Default::default(),
            mcast_wr_addr: Default::default(),
            mcast_wr_data: Default::default(),
            drop: Default::default(),
            steer: Default::default(),
            steer_queue: Default::default(),
            hasher: Default::default(),
            mcast_table: Default::default(),
            hi_pending: Default::default(),
            hi_addr: Default::default(),
            hi_data: Default::default(),
            init: Default::default(),
            hit: Default::default(),
            s1_bit: Default::default(),
            s1_bcast: Default::default(),
            s1_mcast: Default::default(),
            s2_any: Default::default(),
            s2_steer: Default::default(),
            s2_queue: Default::default(),
            s2_bit: Default::default(),
            s2_word: Default::default(),
            s2_bcast: Default::default(),
            s2_mcast: Default::default(),
            r_drop: Default::default(),
            r_steer: Default::default(),
            r_queue: Default::default(),
            broadcast: Constant::new(Bits::<48>::from(0xffff_ffff_ffffu64)),
            clearing: Default::default(),
            unused_hi: Default::default(),
            any: Default::default(),
            st: Default::default(),
            q: Default::default(),
            bit_no: std::array::from_fn(|i| Constant::new(Bits::<4>::from(i as u64))),
            hash_bit: Default::default(),
            promisc: Default::default(),
            allmulti: Default::default(),
            bcast_ok: Default::default(),
        }
    }
}

impl Logic for RxFilter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, init, hi_pending, hi_addr, hi_data, s1_bit, s1_bcast, s1_mcast, s2_any, s2_steer, s2_queue, s2_bit, s2_word, s2_bcast, s2_mcast, r_drop, r_steer, r_queue);
        for i in 0..16 {
            self.hit[i].clock.next = self.clock.val();
            self.unused_hi[i].next = self.mac_filter[2 * i + 1].val().get_bits::<6>(24);
        }
        self.mcast_table.read_clock.next = self.clock.val();
        self.mcast_table.write_clock.next = self.clock.val();
        // clearing the multicast table after reset (256 cycles), then the write port:
        // register word w is table words 2w (bits 15:0) and 2w + 1 (bits 31:16)
        self.clearing.next = !self.init.q.val().get_bit(8);
        self.ready.next = self.init.q.val().get_bit(8);
        if self.clearing.val() {
            self.init.d.next = self.init.q.val() + 1;
        }
        self.mcast_table.write_enable.next = self.clearing.val() | self.mcast_wr.val() | self.hi_pending.q.val();
        self.mcast_table.write_address.next = bit_cast::<8, 7>(self.mcast_wr_addr.val()) << 1;
        self.mcast_table.write_data.next = self.mcast_wr_data.val().get_bits::<16>(0);
        self.hi_pending.d.next = self.mcast_wr.val();
        if self.mcast_wr.val() {
            self.hi_addr.d.next = self.mcast_wr_addr.val();
            self.hi_data.d.next = self.mcast_wr_data.val().get_bits::<16>(16);
        } else if self.hi_pending.q.val() {
            self.mcast_table.write_address.next = (bit_cast::<8, 7>(self.hi_addr.q.val()) << 1) | 1;
            self.mcast_table.write_data.next = self.hi_data.q.val();
        }
        if self.clearing.val() {
            self.mcast_table.write_address.next = self.init.q.val().get_bits::<8>(0);
            self.mcast_table.write_data.next = 0.into();
        }
        // stage 1: compares; the table word the hash index names is read
        self.hasher.dst.next = self.dst.val();
        self.mcast_table.read_address.next = self.hasher.index.val().get_bits::<8>(4);
        for i in 0..16 {
            self.hit[i].d.next = self.mac_filter[2 * i + 1].val().get_bit(31)
                & (self.mac_filter[2 * i].val() == self.dst.val().get_bits::<32>(0))
                & (self.mac_filter[2 * i + 1].val().get_bits::<16>(0) == self.dst.val().get_bits::<16>(32));
        }
        self.s1_bit.d.next = self.hasher.index.val().get_bits::<4>(0);
        self.s1_bcast.d.next = self.dst.val() == self.broadcast.val();
        self.s1_mcast.d.next = self.dst.val().get_bit(0);
        // stage 2: lowest hit; the table word caught
        self.s2_word.d.next = self.mcast_table.read_data.val();
        self.any.next = false;
        self.st.next = false;
        self.q.next = 0.into();
        for i in 0..16 {
            if self.hit[15 - i].q.val() {
                self.any.next = true;
                self.st.next = self.mac_filter[31 - 2 * i].val().get_bit(30);
                self.q.next = self.mac_filter[31 - 2 * i].val().get_bits::<8>(16);
            }
        }
        self.s2_any.d.next = self.any.val();
        self.s2_steer.d.next = self.st.val();
        self.s2_queue.d.next = self.q.val();
        self.s2_bit.d.next = self.s1_bit.q.val();
        self.s2_bcast.d.next = self.s1_bcast.q.val();
        self.s2_mcast.d.next = self.s1_mcast.q.val();
        // stage 3: decision
        self.hash_bit.next = false;
        for i in 0..16 {
            if self.s2_bit.q.val() == self.bit_no[i].val() {
                self.hash_bit.next = self.s2_word.q.val().get_bit(i);
            }
        }
        self.promisc.next = self.filter_ctrl.val().get_bit(0);
        self.allmulti.next = self.filter_ctrl.val().get_bit(1);
        self.bcast_ok.next = self.filter_ctrl.val().get_bit(2);
        if self.promisc.val() {
            self.r_drop.d.next = 0.into();
        } else if self.s2_bcast.q.val() {
            if self.bcast_ok.val() {
                self.r_drop.d.next = 0.into();
            } else {
                self.r_drop.d.next = 3.into();
            }
        } else if self.s2_mcast.q.val() {
            if self.allmulti.val() | self.s2_any.q.val() | self.hash_bit.val() {
                self.r_drop.d.next = 0.into();
            } else {
                self.r_drop.d.next = 2.into();
            }
        } else if self.s2_any.q.val() {
            self.r_drop.d.next = 0.into();
        } else {
            self.r_drop.d.next = 1.into();
        }
        self.r_steer.d.next = self.s2_any.q.val() & self.s2_steer.q.val();
        self.r_queue.d.next = self.s2_queue.q.val();
        self.drop.next = self.r_drop.q.val();
        self.steer.next = self.r_steer.q.val();
        self.steer_queue.next = self.r_queue.q.val();
        if self.reset.val() {
            self.init.d.next = 0.into();
            self.hi_pending.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn taps_reproduce_the_index() {
        let t = index_taps();
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a: [u8; 6] = x.to_le_bytes()[..6].try_into().unwrap();
            let bits = x & 0xffff_ffff_ffff;
            let mut v = 0u16;
            for (b, (inputs, one)) in t.iter().enumerate() {
                let p = inputs.iter().fold(*one as u64, |acc, &i| acc ^ (bits >> i & 1));
                v |= (p as u16) << b;
            }
            assert_eq!(v, mcast_index(&a));
        }
    }
}
