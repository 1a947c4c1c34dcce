//! A bit vector zero-extended to a wider one, as a block.
//!
//! rust-hdl's `hdl_gen` cannot write `bit_cast` of an array element inside a `for` loop
//! (the generated code loses the loop index), so a per-element widening, such as each
//! TX queue's 16-bit DRR weight added to its 20-bit deficit, goes through an array of
//! these instead. It is wiring only: no logic in synthesis.

use rust_hdl::prelude::*;

/// `y` is `a` with `B - A` zero bits above it (`B >= A`).
#[derive(LogicBlock, Default)]
pub struct ZeroExtend<const A: usize, const B: usize> {
    pub a: Signal<In, Bits<A>>,
    pub y: Signal<Out, Bits<B>>,
}

impl<const A: usize, const B: usize> Logic for ZeroExtend<A, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = bit_cast::<B, A>(self.a.val());
    }
}
