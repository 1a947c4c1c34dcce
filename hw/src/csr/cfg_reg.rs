//! One read/write configuration register on the register bus: its address, the bits it
//! holds (its declared fields) and its reset value fixed when the block is built, the
//! write decode written inside the register's own sequential block.
//!
//! Why a block of its own rather than a `DFF` whose `d` the window computes: a `DFF`'s
//! next value is combinational logic in its parent, and Verilator (5.048, its DFG
//! optimisation on) evaluates that logic in every cycle, an `if (bus_wr)` around it
//! turned into a mask; the window's registers then cost the simulator their write decode,
//! merge and copy in every cycle though the host writes them a few times per run. Here
//! the decode sits under `if` in an `always @(posedge clock)`, which stays a branch, so a
//! cycle without a write costs a test of `reset`, `clear` and `write` (issue 21). In
//! hardware it is the same: flip-flops with a synchronous reset and a write enable.

use rust_hdl::prelude::*;

/// What a [`CfgReg`] is: fixed when it is built. A rust-hdl `Block` with no signals, so a
/// `LogicBlock` can carry it as a field.
#[derive(Clone, Copy, Debug, Default)]
pub struct CfgSpec {
    /// The register's byte address on the register bus.
    pub addr: u16,
    /// The bits it holds: the others read 0 and ignore writes (synthesis removes their
    /// flip-flops). 0: a register the build does not have.
    pub bits: u64,
    /// Its value after `reset` (within `bits`).
    pub reset: u64,
}

crate::fixed_at_build!(CfgSpec);

/// At a rising `clock`: `reset` loads the reset value; else `clear` loads 0; else a
/// `write` to `addr` merges `wdata` under `wmask` into the held bits. Otherwise `q` holds.
#[derive(LogicBlock)]
pub struct CfgReg<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Zero the register (a queue's TAIL while the queue is disabled).
    pub clear: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub addr: Signal<In, Bits<16>>,
    pub wdata: Signal<In, Bits<W>>,
    pub wmask: Signal<In, Bits<W>>,
    pub q: Signal<Out, Bits<W>>,
    spec: CfgSpec,
}

impl<const W: usize> CfgReg<W> {
    pub fn new(addr: u16, bits: u64, reset: u64) -> Self {
        assert!(W <= 64, "CfgReg holds up to 64 bits");
        let all = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
        let bits = bits & all;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            write: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            wmask: Default::default(),
            q: Default::default(),
            spec: CfgSpec { addr, bits, reset: reset & bits },
        }
    }

    /// Its address as a constant, for the parent's read decode (so the address is given
    /// once, to [`CfgReg::new`]).
    pub fn addr_constant(&self) -> Constant<Bits<16>> {
        Constant::new(Bits::<16>::from(u64::from(self.spec.addr)))
    }
}

impl<const W: usize> Default for CfgReg<W> {
    fn default() -> Self {
        Self::new(0xffff, 0, 0)
    }
}

impl<const W: usize> Logic for CfgReg<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let s = self.spec;
            if self.reset.val() {
                self.q.next = Bits::<W>::from(s.reset);
            } else if self.clear.val() {
                self.q.next = Bits::<W>::default();
            } else if self.write.val() && self.addr.val() == Bits::<16>::from(u64::from(s.addr)) {
                let merged = (self.q.val() & !self.wmask.val()) | (self.wdata.val() & self.wmask.val());
                self.q.next = merged & Bits::<W>::from(s.bits);
            }
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let s = self.spec;
        // (with `bits` 0, a register the build does not have, the load is of 0: the
        // flip-flops are constant and synthesis removes them)
        // `write` alone, then the address inside it: Verilator merges the adjacent
        // `if (write)` of every register on the bus into one branch (a combined
        // `write && addr == A` was a test per register in every cycle, about 1 k
        // instructions a cycle for `full`'s 232 registers)
        let load = format!("   else if (write) begin\n      if (addr == 16'h{:x}) q <= ((q & ~wmask) | (wdata & wmask)) & {W}'h{:x};\n   end\n", s.addr, s.bits);
        Verilog::Custom(format!(
            "initial begin\n   q = {W}'h0;\nend\n\nalways @(posedge clock) begin\n   if (reset) q <= {W}'h{:x};\n   else if (clear) q <= {W}'h0;\n{load}end\n",
            s.reset
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "cfg_reg".into(),
            clock: "clock".into(),
            inputs: vec!["reset".into(), "clear".into(), "write".into(), "addr".into(), "wdata".into(), "wmask".into()],
            outputs: vec!["q".into()],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the rule written out: reset value, clear, merge under the mask, the bits
    /// outside the fields kept 0, writes to other addresses ignored.
    #[test]
    fn cfg_reg_follows_its_rule() {
        let r = CfgReg::<8>::new(0x40, 0x3f, 0x15);
        let mut r = r;
        r.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<CfgReg<8>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<CfgReg<8>>| {
            let mut x = sim.init()?;
            // (reset, clear, write, addr, wdata, wmask) -> q after the edge
            let steps: [(bool, bool, bool, u64, u64, u64, u64); 7] = [
                (true, false, false, 0, 0, 0, 0x15),
                (false, false, true, 0x44, 0xff, 0xff, 0x15),
                (false, false, true, 0x40, 0xff, 0x0f, 0x1f),
                (false, false, false, 0x40, 0x00, 0xff, 0x1f),
                (false, false, true, 0x40, 0xc0, 0xf0, 0x0f),
                (false, true, true, 0x40, 0xff, 0xff, 0x00),
                (true, true, true, 0x40, 0xff, 0xff, 0x15),
            ];
            for (reset, clear, write, addr, wdata, wmask, want) in steps {
                x.reset.next = reset;
                x.clear.next = clear;
                x.write.next = write;
                x.addr.next = addr.into();
                x.wdata.next = wdata.into();
                x.wmask.next = wmask.into();
                wait_clock_true!(sim, clock, x);
                wait_clock_false!(sim, clock, x);
                sim_assert_eq!(sim, x.q.val(), Bits::<8>::from(want), x);
            }
            sim.done(x)
        });
        sim.run(Box::new(r), 200).unwrap();
    }
}
