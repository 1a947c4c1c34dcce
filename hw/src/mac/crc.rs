//! CRC-32 (IEEE 802.3) as generated XOR networks: the matrices, and the half-rate unit.
//!
//! The CRC register update is linear over GF(2) in (state, data), so for every byte
//! count k = 1..8 the next state is a 32 x (32 + 8k) bit matrix times the inputs. The
//! matrices are computed here from the bytewise software definition (reflected
//! polynomial 0xEDB88320, bytes LSB first), and emitted as one XOR per output bit and
//! byte count. The register holds the raw (non-inverted) state; the caller seeds it
//! with 0xFFFFFFFF and inverts to get the FCS.
//!
//! The Verilog body is generated (rust-hdl's `hdl_gen` cannot express a constant matrix
//! without a 32x96 array of constants); the native-simulation `update` uses the same
//! software function, so both views agree by construction.

use rust_hdl::prelude::*;

/// The reflected CRC-32 polynomial.
pub const POLY: u32 = 0xEDB8_8320;

/// One byte of the raw register update (no init, no final inversion).
pub fn crc_byte(mut crc: u32, byte: u8) -> u32 {
    crc ^= byte as u32;
    for _ in 0..8 {
        crc = if crc & 1 != 0 { (crc >> 1) ^ POLY } else { crc >> 1 };
    }
    crc
}

/// Raw register update over `bytes`.
pub fn crc_bytes(crc: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(crc, |c, &b| crc_byte(c, b))
}

/// The register value after a frame followed by its own FCS (least significant byte
/// first): what the receiver compares against. Derived, not copied from a table.
pub fn residue() -> u32 {
    let frame = b"residue";
    let fcs = !crc_bytes(0xFFFF_FFFF, frame);
    crc_bytes(crc_bytes(0xFFFF_FFFF, frame), &fcs.to_le_bytes())
}

/// For `k` bytes: for each output bit, the list of input bits (0..32 state, 32.. data)
/// that XOR into it. The RoCE ICRC (`rdma::icrc`) splits the same lists into its state
/// and data halves.
pub(crate) fn taps(k: usize) -> Vec<Vec<usize>> {
    let inputs = 32 + 8 * k;
    let mut columns = Vec::with_capacity(inputs);
    for i in 0..inputs {
        let (state, mut data) = if i < 32 { (1u32 << i, [0u8; 8]) } else { (0, [0u8; 8]) };
        if i >= 32 {
            let d = i - 32;
            data[d / 8] = 1 << (d % 8);
        }
        columns.push(crc_bytes(state, &data[..k]));
    }
    (0..32)
        .map(|bit| (0..inputs).filter(|&i| columns[i] >> bit & 1 != 0).collect())
        .collect()
}

/// Output bit `o` of `k` bytes' update, as lists of state bits (`state`) or of data bits:
/// [`taps`] split in two, for the pipelined CRCs (`Crc32Pipe`, the RoCE ICRC), which
/// compute the data half a stage ahead of the loop over the state half.
pub fn split_taps(k: usize, state: bool) -> Vec<Vec<usize>> {
    taps(k)
        .into_iter()
        .map(|list| list.into_iter().filter(|&i| (i < 32) == state).map(|i| if state { i } else { i - 32 }).collect())
        .collect()
}

/// Combinational: the half-rate CRC of `small`'s MACs: `crc_out` = the register after 4
/// bytes of `data` or one, a 4-byte network and a 1-byte one only. `nbytes` of 8 or more
/// takes the beat's upper 4 bytes (`data[63:32]`), 4..7 its lower 4 (`data[31:0]`), 1..3
/// ONE byte (`data[7:0]`) and 0 none (`crc_out` = `crc_in`): the caller feeds a beat in
/// 4-byte halves and its last 1..3 bytes one per cycle ([`CrcHalfRateFeed`]), so a full
/// beat takes two cycles. An 8-byte network with a 4/2/1-byte cascade for short last
/// beats, the one-cycle form this replaced for iCE40, was 1,191 iCE40 LUT4s, 690 of them
/// the cascade (`fpga/scripts/ice40_breakdown.sh`); the configuration meant for an iCE40,
/// a Gigabit one, spends cycles instead (`Config::half_rate_crc`). At 8 bytes a cycle the
/// MACs use the pipelined [`super::Crc32Pipe`].
#[derive(LogicBlock)]
pub struct Crc32x64 {
    pub crc_in: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<64>>,
    /// Valid bytes: see the type's doc.
    pub nbytes: Signal<In, Bits<4>>,
    pub crc_out: Signal<Out, Bits<32>>,
}

impl Default for Crc32x64 {
    fn default() -> Self {
        Self::half_rate()
    }
}

impl Crc32x64 {
    /// The unit (the name says what it is for).
    pub fn half_rate() -> Self {
        Self { crc_in: Default::default(), data: Default::default(), nbytes: Default::default(), crc_out: Default::default() }
    }
}

impl Logic for Crc32x64 {
    fn update(&mut self) {
        let n = match self.nbytes.val().to_u64() as usize {
            0 => 0,
            n if n < 4 => 1,
            _ => 4,
        };
        let mut data = self.data.val().to_u64().to_le_bytes();
        if self.nbytes.val().to_u64() >= 8 {
            data.copy_within(4..8, 0);
        }
        let out = crc_bytes(self.crc_in.val().to_u64() as u32, &data[..n]);
        self.crc_out.next = Bits::<32>::from(out as u64);
    }
    fn connect(&mut self) {
        self.crc_out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::new();
        let network = |name: &str, k: usize, state: &str, data: &str| -> String {
            let mut v = format!("wire [31:0] {name};\n");
            for (bit, inputs) in taps(k).iter().enumerate() {
                let terms: Vec<String> = inputs
                    .iter()
                    .map(|&i| if i < 32 { format!("{state}[{i}]") } else { format!("{data}[{}]", i - 32) })
                    .collect();
                let expr = if terms.is_empty() { "1'b0".to_string() } else { terms.join(" ^ ") };
                v.push_str(&format!("assign {name}[{bit}] = {expr};\n"));
            }
            v
        };
        body.push_str("wire [31:0] data_4 = nbytes[3] ? data[63:32] : data[31:0];\nwire [7:0] data_1 = data[7:0];\n");
        body.push_str(&network("after_4", 4, "crc_in", "data_4"));
        body.push_str(&network("after_1", 1, "crc_in", "data_1"));
        body.push_str("always @(*) begin\n    if (nbytes >= 4'd4) crc_out = after_4;\n    else if (nbytes == 4'd0) crc_out = crc_in;\n    else crc_out = after_1;\nend\n");
        Verilog::Custom(body)
    }
}

/// How MAC TX and MAC RX feed a beat to a half-rate `Crc32x64`: given the beat, its byte
/// count and how many of its bytes are already in the CRC, the unit's inputs for this
/// cycle (its lower half, its upper half, or its next single byte), how many bytes they
/// are, and whether they are the beat's last. Only the low byte lane moves (to bring a
/// single byte to lane 0): the 4-byte network's inputs stay where they are.
#[derive(LogicBlock)]
pub struct CrcHalfRateFeed {
    pub data: Signal<In, Bits<64>>,
    /// Bytes in the beat (1..8; with 0 the outputs mean nothing: feed the unit 0 bytes).
    pub nbytes: Signal<In, Bits<4>>,
    /// Bytes of the beat already in the CRC.
    pub done: Signal<In, Bits<4>>,
    /// The CRC unit's `data` and `nbytes` for this cycle.
    pub unit_data: Signal<Out, Bits<64>>,
    pub unit_nbytes: Signal<Out, Bits<4>>,
    /// Bytes that go in this cycle (4 or 1).
    pub step: Signal<Out, Bits<4>>,
    /// They are the beat's last: the beat can go.
    pub last: Signal<Out, Bit>,
    left: Signal<Local, Bits<4>>,
    one_byte: Signal<Local, Bits<8>>,
    above_byte0: Constant<Bits<64>>,
}

impl Default for CrcHalfRateFeed {
    fn default() -> Self {
        Self {
            data: Default::default(),
            nbytes: Default::default(),
            done: Default::default(),
            unit_data: Default::default(),
            unit_nbytes: Default::default(),
            step: Default::default(),
            last: Default::default(),
            left: Default::default(),
            one_byte: Default::default(),
            above_byte0: Constant::new(Bits::<64>::from(!0xffu64)),
        }
    }
}

impl Logic for CrcHalfRateFeed {
    #[hdl_gen]
    fn update(&mut self) {
        self.left.next = self.nbytes.val() - self.done.val();
        self.one_byte.next = bit_cast::<8, 64>(self.data.val() >> (bit_cast::<7, 4>(self.done.val()) << 3));
        self.unit_data.next = (self.data.val() & self.above_byte0.val()) | bit_cast::<64, 8>(self.one_byte.val());
        self.unit_nbytes.next = 1.into();
        self.step.next = 1.into();
        if self.left.val() >= 4 {
            self.step.next = 4.into();
            self.unit_nbytes.next = 4.into();
            if self.done.val().get_bit(2) {
                self.unit_nbytes.next = 8.into(); // the upper half
            }
        }
        self.last.next = self.left.val() == self.step.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn check_value() {
        assert_eq!(!crc_bytes(0xFFFF_FFFF, b"123456789"), 0xCBF4_3926);
    }
    #[test]
    fn residue_is_the_802_3_magic_number() {
        // IEEE 802.3 clause 3.2.9 / the well-known CRC-32 residue, in register form.
        assert_eq!(residue(), 0xDEBB_20E3);
    }
    #[test]
    fn taps_reproduce_bytewise_crc() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for k in 1..=8 {
            let t = taps(k);
            for _ in 0..50 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let state = (x >> 7) as u32;
                let data = x.rotate_left(13).to_le_bytes();
                let mut out = 0u32;
                for (bit, inputs) in t.iter().enumerate() {
                    let v = inputs.iter().fold(0u32, |acc, &i| {
                        acc ^ if i < 32 { state >> i & 1 } else { (data[(i - 32) / 8] >> ((i - 32) % 8)) as u32 & 1 }
                    });
                    out |= v << bit;
                }
                assert_eq!(out, crc_bytes(state, &data[..k]));
            }
        }
    }
}
