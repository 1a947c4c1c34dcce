//! A constant GF(2) matrix times a bit vector, into a register: the building block of
//! every pipelined CRC here. The matrix is fixed when the block is built (a list of input
//! bits per output bit); the Verilog is written from that list, as one XOR per output bit
//! for synthesis and as table lookups for the simulator, and the native simulation
//! evaluates the same list, so the views agree by construction; the tests check the
//! lists against the bytewise CRC and the tables against the list.

use rust_hdl::prelude::*;

/// The matrix: for each output bit, the input bits XORed into it. A rust-hdl `Block`
/// with no signals, so a `LogicBlock` can carry it as a field.
#[derive(Clone, Debug, Default)]
pub struct Taps(pub Vec<Vec<usize>>);

impl Taps {
    /// `taps[o]` lists the input bits of output bit `o`: `outputs` lists, each entry below
    /// `inputs` (the block's widths; a wrong list is a bug in the caller's construction).
    fn checked(taps: Vec<Vec<usize>>, inputs: usize, outputs: usize) -> Self {
        assert_eq!(taps.len(), outputs, "one tap list per output bit");
        assert!(taps.iter().flatten().all(|&i| i < inputs), "tap beyond the input width {inputs}");
        Taps(taps)
    }
}

crate::fixed_at_build!(Taps);

/// `M x input` over GF(2), `M` given by `taps` (`taps[o]` lists the input bits of output
/// bit `o`): the product in software, for the native simulation, the models and tests.
pub fn xor_product(taps: &[Vec<usize>], input: u128) -> u128 {
    taps.iter().enumerate().fold(0u128, |acc, (o, list)| acc | (list.iter().fold(0u128, |x, &i| x ^ (input >> i & 1)) << o))
}

/// The same product as lookups, for the simulator: `M` is linear, so `M x d` is the XOR
/// over `d`'s 4-bit digits of `M x` (that digit alone, in its place). Entry `v` of table
/// `c` is `M x (v << 4c)`; the last table is narrower when `inputs` is not a multiple of 4.
pub fn digit_tables(taps: &[Vec<usize>], inputs: usize) -> Vec<Vec<u128>> {
    (0..inputs.div_ceil(4)).map(|c| (0..1u128 << (inputs - 4 * c).min(4)).map(|v| xor_product(taps, v << (4 * c))).collect()).collect()
}

/// Bits<N> <-> u128 for N <= 128 (rust-hdl's `to_u64` stops at 64 bits).
fn bits_to_u128<const N: usize>(b: Bits<N>) -> u128 {
    (0..N).fold(0u128, |acc, i| acc | (u128::from(b.get_bit(i)) << i))
}

fn u128_to_bits<const N: usize>(v: u128) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for i in 0..N {
        b = b.replace_bit(i, v >> i & 1 != 0);
    }
    b
}

/// Registered: at a rising `clock` with `enable` high, `q <= (M x data_in) ^ xor_in`;
/// otherwise `q` holds. `M` is the matrix of `taps`: `taps[o]` lists the input bits XORed
/// into output bit `o`.
///
/// Why a block of its own rather than a network in front of a `DFF`: in the simulator
/// (Verilator 5.048, its DFG optimisation on) an `if` in a combinational block becomes a
/// mask, so a network in front of a flip-flop is evaluated in every cycle whatever the
/// flip-flop's enable; in a sequential block the `if` stays a branch, so this network is
/// evaluated only in the cycles that load it (issue 21: a CRC's tail networks, needed
/// only for a frame's last beat). In hardware it is the same network and flip-flops.
///
/// The simulator's Verilog (the branch without `SYNTHESIS`) computes the same product as
/// one lookup per 4-bit digit of `data_in` ([`digit_tables`]), XORed: 16 loads for a
/// 64-bit input where the network is a masked parity per output bit (about 7 instructions
/// each in Verilator's C++, 32 per load). Synthesis (yosys defines `SYNTHESIS`) gets the
/// network, as before; both are written from the same `taps`.
#[derive(LogicBlock)]
pub struct XorReg<const I: usize, const O: usize> {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub data_in: Signal<In, Bits<I>>,
    pub xor_in: Signal<In, Bits<O>>,
    pub q: Signal<Out, Bits<O>>,
    taps: Taps,
}

impl<const I: usize, const O: usize> XorReg<I, O> {
    /// `taps[o]` lists the input bits of output bit `o` (`O` lists, each entry below `I`).
    pub fn new(taps: Vec<Vec<usize>>) -> Self {
        Self { clock: Default::default(), enable: Default::default(), data_in: Default::default(), xor_in: Default::default(), q: Default::default(), taps: Taps::checked(taps, I, O) }
    }
}

impl<const I: usize, const O: usize> Default for XorReg<I, O> {
    fn default() -> Self {
        Self::new(vec![Vec::new(); O])
    }
}

impl<const I: usize, const O: usize> Logic for XorReg<I, O> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.enable.val() {
            let out = xor_product(&self.taps.0, bits_to_u128(self.data_in.val())) ^ bits_to_u128(self.xor_in.val());
            self.q.next = u128_to_bits::<O>(out);
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        // synthesis: the network written into the sequential block itself, one
        // concatenation, most significant bit first (a wire in front of it would be
        // evaluated on its own)
        let bits: Vec<String> = self
            .taps
            .0
            .iter()
            .enumerate()
            .rev()
            .map(|(o, list)| {
                let terms: Vec<String> = list.iter().map(|i| format!("data_in[{i}]")).chain(std::iter::once(format!("xor_in[{o}]"))).collect();
                format!("({})", terms.join(" ^ "))
            })
            .collect();
        // simulation: a table per digit, filled once, and one lookup per digit
        let tables = digit_tables(&self.taps.0, I);
        let mut decls = String::new();
        let mut fill = String::new();
        let mut lookups = Vec::new();
        for (c, table) in tables.iter().enumerate() {
            let (lo, hi) = (4 * c, (4 * c + 4).min(I) - 1);
            decls.push_str(&format!("reg [{}:0] digit{c} [0:{}];\n", O - 1, table.len() - 1));
            for (v, entry) in table.iter().enumerate() {
                fill.push_str(&format!("   digit{c}[{v}] = {O}'h{entry:x};\n"));
            }
            lookups.push(if lo == hi { format!("digit{c}[data_in[{lo}]]") } else { format!("digit{c}[data_in[{hi}:{lo}]]") });
        }
        lookups.push("xor_in".to_string());
        Verilog::Custom(format!(
            "initial begin\n   q = {O}'h0;\nend\n\n\
             `ifndef SYNTHESIS\n\
             // the simulator's form: M x data_in as the XOR of one table entry per 4-bit digit\n\
             {decls}\
             initial begin\n{fill}end\n\n\
             always @(posedge clock) begin\n   if (enable) q <= {};\nend\n\
             `else\n\
             always @(posedge clock) begin\n   if (enable) q <= {{{}}};\nend\n\
             `endif\n",
            lookups.join(" ^ "),
            bits.join(",\n      ")
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo { name: "xor_reg".into(), clock: "clock".into(), inputs: vec!["enable".into(), "data_in".into(), "xor_in".into()], outputs: vec!["q".into()] }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_is_a_matrix_product() {
        let taps = vec![vec![0, 1], vec![], vec![2, 0, 70]];
        assert_eq!(xor_product(&taps, 0b011), 0b100);
        assert_eq!(xor_product(&taps, 0b001), 0b101);
        assert_eq!(xor_product(&taps, 1 << 70), 0b100);
    }

    /// The simulator's tables give the product of the tap lists: per digit against the
    /// list (each entry of each table), and whole inputs as the XOR of their digits'
    /// entries, for random matrices and widths with and without a short last digit.
    #[test]
    fn digit_tables_give_the_product() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for inputs in [3usize, 16, 32, 48, 64, 71] {
            let taps: Vec<Vec<usize>> = (0..32).map(|_| (0..inputs).filter(|_| next() % 2 == 1).collect()).collect();
            let tables = digit_tables(&taps, inputs);
            assert_eq!(tables.len(), inputs.div_ceil(4));
            for (c, table) in tables.iter().enumerate() {
                assert_eq!(table.len(), 1 << (inputs - 4 * c).min(4));
                for (v, &entry) in table.iter().enumerate() {
                    let want: u128 = (0..32).filter(|&o| taps[o].iter().filter(|&&i| i / 4 == c && (v >> (i % 4)) & 1 == 1).count() % 2 == 1).map(|o| 1u128 << o).sum();
                    assert_eq!(entry, want, "{inputs} inputs, digit {c}, entry {v}");
                }
            }
            for _ in 0..200 {
                let d = (u128::from(next()) << 64 | u128::from(next())) & ((1u128 << inputs) - 1);
                let looked_up = tables.iter().enumerate().fold(0u128, |acc, (c, t)| acc ^ t[(d >> (4 * c)) as usize & (t.len() - 1)]);
                assert_eq!(looked_up, xor_product(&taps, d), "{inputs} inputs, {d:#x}");
            }
        }
    }

    /// Both Verilog forms, read back from the text: synthesis's network lists each output
    /// bit's taps and `xor_in`, and the simulator's tables hold `digit_tables` and are
    /// looked up by the digit they were made for. (The simulator's form is run by every
    /// co-simulation test; the network is what only synthesis reads, so it is checked here.)
    #[test]
    fn both_verilog_forms_are_written_from_the_taps() {
        let taps: Vec<Vec<usize>> = crate::mac::crc::split_taps(6, false);
        let reg = XorReg::<48, 32>::new(taps.clone());
        let Verilog::Custom(text) = reg.hdl() else { panic!("XorReg writes custom Verilog") };
        let (sim, synth) = text.split_once("`else").expect("two forms");
        // synthesis: `{(...), ..., (...)}`, output bit 31 first
        let net = &synth[synth.find("q <= {").expect("the network's load") + 6..synth.find("};").unwrap()];
        let groups: Vec<&str> = net.split("),").map(|g| g.trim().trim_start_matches('(').trim_end_matches(')')).collect();
        assert_eq!(groups.len(), 32);
        for (o, g) in groups.iter().rev().enumerate() {
            let mut terms: Vec<&str> = g.split(" ^ ").collect();
            assert_eq!(terms.pop(), Some(format!("xor_in[{o}]").as_str()), "bit {o}: {g}");
            let listed: Vec<usize> = terms.iter().map(|t| t.trim_start_matches("data_in[").trim_end_matches(']').parse().unwrap()).collect();
            assert_eq!(listed, taps[o], "bit {o}");
        }
        // the simulator: every entry of every table, and one lookup per digit
        let tables = digit_tables(&taps, 48);
        for (c, table) in tables.iter().enumerate() {
            for (v, entry) in table.iter().enumerate() {
                assert!(sim.contains(&format!("   digit{c}[{v}] = 32'h{entry:x};\n")), "digit {c} entry {v}");
            }
            assert!(sim.contains(&format!("digit{c}[data_in[{}:{}]]", 4 * c + 3, 4 * c)), "digit {c}'s lookup");
        }
        assert!(sim.contains("if (enable) q <= digit0[data_in[3:0]] ^ ") && sim.contains(" ^ xor_in;"));
    }

    /// The registered form loads `M x d ^ x` only at an enabled rising edge.
    #[test]
    fn xor_reg_loads_only_when_enabled() {
        let taps = vec![vec![0, 1], vec![], vec![2, 0]];
        let mut r = XorReg::<3, 3>::new(taps.clone());
        r.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<XorReg<3, 3>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<XorReg<3, 3>>| {
            let mut x = sim.init()?;
            for (en, d, xi) in [(true, 0b011u64, 0b000u64), (false, 0b101, 0b111), (true, 0b101, 0b010), (false, 0b000, 0b000)] {
                let before = x.q.val();
                x.enable.next = en;
                x.data_in.next = d.into();
                x.xor_in.next = xi.into();
                wait_clock_true!(sim, clock, x);
                wait_clock_false!(sim, clock, x);
                let want = if en { Bits::<3>::from((xor_product(&taps, d as u128) as u64) ^ xi) } else { before };
                sim_assert_eq!(sim, x.q.val(), want, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(r), 200).unwrap();
    }
}
