//! A constant GF(2) matrix times a bit vector, as one XOR per output bit: the building
//! block of every pipelined CRC here. The matrix is fixed when the block is built (a list
//! of input bits per output bit); the Verilog body is written from that list and the
//! native simulation evaluates the same list, so both views agree by construction, and
//! the tests check the lists against the bytewise CRC.

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

/// Combinational: `data_out = M x data_in` over GF(2), `M` given by `taps`.
#[derive(LogicBlock)]
pub struct XorNet<const I: usize, const O: usize> {
    pub data_in: Signal<In, Bits<I>>,
    pub data_out: Signal<Out, Bits<O>>,
    taps: Taps,
}

impl<const I: usize, const O: usize> XorNet<I, O> {
    /// `taps[o]` lists the input bits of output bit `o` (each below `I`; `O` lists).
    pub fn new(taps: Vec<Vec<usize>>) -> Self {
        Self { data_in: Default::default(), data_out: Default::default(), taps: Taps::checked(taps, I, O) }
    }
    /// The same product in software (for models and tests).
    pub fn eval(taps: &[Vec<usize>], input: u128) -> u128 {
        taps.iter().enumerate().fold(0u128, |acc, (o, list)| acc | (list.iter().fold(0u128, |x, &i| x ^ (input >> i & 1)) << o))
    }
}

impl<const I: usize, const O: usize> Default for XorNet<I, O> {
    fn default() -> Self {
        Self::new(vec![Vec::new(); O])
    }
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

impl<const I: usize, const O: usize> Logic for XorNet<I, O> {
    fn update(&mut self) {
        let out = Self::eval(&self.taps.0, bits_to_u128(self.data_in.val()));
        self.data_out.next = u128_to_bits::<O>(out);
    }
    fn connect(&mut self) {
        self.data_out.connect();
    }
    fn hdl(&self) -> Verilog {
        // rust-hdl declares `data_out` a `reg`: the network is wires, copied in a
        // combinational block (a continuous assignment to a reg is not Verilog, which
        // Icarus refuses and Verilator lets pass).
        let mut body = format!("wire [{}:0] product;\n", O - 1);
        for (o, list) in self.taps.0.iter().enumerate() {
            let expr = if list.is_empty() { "1'b0".to_string() } else { list.iter().map(|i| format!("data_in[{i}]")).collect::<Vec<_>>().join(" ^ ") };
            body.push_str(&format!("assign product[{o}] = {expr};\n"));
        }
        body.push_str("always @(*) data_out = product;\n");
        Verilog::Custom(body)
    }
}

/// Registered: at a rising `clock` with `enable` high, `q <= (M x data_in) ^ xor_in`;
/// otherwise `q` holds. `M` as in [`XorNet`].
///
/// Why a block of its own rather than an `XorNet` in front of a `DFF`: in the simulator
/// (Verilator 5.048, its DFG optimisation on) an `if` in a combinational block becomes a
/// mask, so a network in front of a flip-flop is evaluated in every cycle whatever the
/// flip-flop's enable; in a sequential block the `if` stays a branch, so this network is
/// evaluated only in the cycles that load it (issue 21: a CRC's tail networks, needed
/// only for a frame's last beat). In hardware it is the same network and flip-flops.
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
    /// `taps[o]` lists the input bits of output bit `o`, as for [`XorNet::new`].
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
            let out = XorNet::<I, O>::eval(&self.taps.0, bits_to_u128(self.data_in.val())) ^ bits_to_u128(self.xor_in.val());
            self.q.next = u128_to_bits::<O>(out);
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        // the network written into the sequential block itself, one concatenation, most
        // significant bit first (a wire in front of it would be evaluated on its own)
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
        Verilog::Custom(format!(
            "initial begin\n   q = {}'h0;\nend\n\nalways @(posedge clock) begin\n   if (enable) q <= {{{}}};\nend\n",
            O,
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
        assert_eq!(XorNet::<71, 3>::eval(&taps, 0b011), 0b100);
        assert_eq!(XorNet::<71, 3>::eval(&taps, 0b001), 0b101);
        assert_eq!(XorNet::<71, 3>::eval(&taps, 1 << 70), 0b100);
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
                let want = if en { Bits::<3>::from((XorNet::<3, 3>::eval(&taps, d as u128) as u64) ^ xi) } else { before };
                sim_assert_eq!(sim, x.q.val(), want, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(r), 200).unwrap();
    }
}
