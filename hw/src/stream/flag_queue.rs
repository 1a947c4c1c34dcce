//! A queue of up to 8 one-bit flags in flip-flops, oldest in bit 0: for per-frame
//! verdicts and marks that wait a few frames for their partner (the RDMA parser's
//! classifier verdicts and frame ends). A block RAM FIFO would be far too big and a
//! cycle slower; here the head is a register.
//!
//! A pop and a push in the same cycle both happen (the push lands behind what is left).
//! A push to a full queue is refused (`full` says so beforehand); the user's bound on
//! what is in flight keeps it from happening.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FlagQueue {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_flag: Signal<In, Bit>,
    /// Takes the head (ignored when empty).
    pub pop: Signal<In, Bit>,
    /// The oldest flag (0 when empty).
    pub head: Signal<Out, Bit>,
    pub not_empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    bits: DFF<Bits<8>>,
    count: DFF<Bits<4>>,
    shifted: Signal<Local, Bits<8>>,
    left: Signal<Local, Bits<4>>,
}

impl Logic for FlagQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bits, count);
        self.head.next = self.bits.q.val().get_bit(0);
        self.not_empty.next = self.count.q.val().any();
        self.full.next = self.count.q.val().get_bit(3);
        self.shifted.next = self.bits.q.val();
        self.left.next = self.count.q.val();
        if self.pop.val() & self.count.q.val().any() {
            self.shifted.next = self.bits.q.val() >> 1;
            self.left.next = self.count.q.val() - 1;
        }
        self.bits.d.next = self.shifted.val();
        self.count.d.next = self.left.val();
        if self.push.val() & !self.left.val().get_bit(3) {
            self.count.d.next = self.left.val() + 1;
            self.bits.d.next = self.shifted.val() | (bit_cast::<8, 1>(self.push_flag.val().into()) << bit_cast::<8, 4>(self.left.val()));
        }
        if self.reset.val() {
            self.bits.d.next = 0.into();
            self.count.d.next = 0.into();
        }
    }
}
