//! Interrupt moderation for one vector: fire after `count` completions, or `timer`
//! cycles after the first completion not yet signalled, whichever comes first.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct IrqModeration {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub strobe: Signal<In, Bit>,
    /// Completions per interrupt (0 and 1: every completion).
    pub count: Signal<In, Bits<16>>,
    /// Cycles from the first unsignalled completion to the interrupt (0: off).
    pub timer: Signal<In, Bits<20>>,
    /// One-cycle pulse: set the vector's IRQ_STATUS bit.
    pub fire: Signal<Out, Bit>,
    pending: DFF<Bits<16>>,
    elapsed: DFF<Bits<20>>,
    pending_next: Signal<Local, Bits<16>>,
}

impl Logic for IrqModeration {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pending, elapsed);
        self.pending_next.next = self.pending.q.val();
        if self.strobe.val() {
            self.pending_next.next = self.pending.q.val() + 1;
        }
        self.fire.next = false;
        self.pending.d.next = self.pending_next.val();
        if self.pending.q.val() != 0 {
            self.elapsed.d.next = self.elapsed.q.val() + 1;
        }
        if (self.pending_next.val() != 0)
            & ((self.pending_next.val() >= self.count.val())
                | ((self.timer.val() != 0) & (self.elapsed.q.val() >= self.timer.val())))
        {
            self.fire.next = true;
            self.pending.d.next = 0.into();
            self.elapsed.d.next = 0.into();
        }
        if self.reset.val() {
            self.pending.d.next = 0.into();
            self.elapsed.d.next = 0.into();
        }
    }
}
