//! Simple dual-port block RAM on one clock, whose read of a word in the cycle that word
//! is written is undefined.
//!
//! rust-hdl's `RAM` promises the old word on such a collision (read-first). The iCE40 and
//! ECP5 block RAMs do not, so yosys emulates it around every RAM: a register for the
//! write data, an address comparator and a mux on every read-data bit. In `small` on an
//! iCE40 that was about 1,000 of the 9,100 logic cells, for collisions whose read data
//! no user of the RAM ever looks at. `NicRam` tells yosys so (`no_rw_check`).
//!
//! A user must not use the read data of a collision. To keep that checked, the
//! simulation models (Verilator, which sees the non-`SYNTHESIS` branch, and rust-hdl's
//! simulator) return the word inverted, or 0 in rust-hdl's simulator, instead of the old
//! word: a user that relied on it gets wrong data in its tests.

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// `2^N` words of `D`, one clock, registered read port.
#[derive(LogicBlock, Default)]
pub struct NicRam<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    /// The word at the previous cycle's `read_address` (undefined if it was being
    /// written in that cycle).
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    _sim: Box<BTreeMap<Bits<N>, D>>,
}

impl<D: Synth, const N: usize> Logic for NicRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let collision = self.write_enable.val() && self.write_address.val() == self.read_address.val();
            self.read_data.next = if collision { D::default() } else { *self._sim.get(&self.read_address.val()).unwrap_or(&D::default()) };
            if self.write_enable.val() {
                self._sim.insert(self.write_address.val(), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg[{msb}:0] mem[{last}:0];

always @(posedge clock) begin
`ifdef SYNTHESIS
   read_data <= mem[read_address];
`else
   // a collision's read data is undefined in hardware: return the word inverted
   read_data <= (write_enable && write_address == read_address) ? ~mem[read_address] : mem[read_address];
`endif
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }
}
