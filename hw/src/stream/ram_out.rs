//! A block RAM's output taken into flip-flops through nothing but routing.
//!
//! On the ECP5 a DP16KD's read data leaves 4.26 ns after the clock (speed 8; nextpnr
//! times every DP16KD as unregistered, and yosys never sets its output register), which
//! leaves 2.1 ns of a 156.25 MHz cycle: room for a route, not for a LUT. A `RegSlice` fed
//! straight from a FIFO's RAM chooses its output register's input between the RAM and its
//! skid (one LUT), and a state machine that loads fields from a FIFO's head spreads the
//! RAM's bits over many flip-flops far from it. `RamOutReg` sits between the two: one
//! register whose data flip-flops load `s_data` under an enable and nothing else, so each
//! RAM bit meets exactly one flip-flop that the placer can keep beside the RAM.
//!
//! One cycle of latency. [`RamOutReg::full_rate`] passes a word a cycle (`s_ready =
//! !valid | m_ready`: the consumer's ready reaches the FIFO's read, so put a `RegSlice`
//! behind it); [`RamOutReg::half_rate`] takes a word only while empty (`s_ready` from
//! flip-flops: nothing of the consumer reaches the FIFO) and passes one every other
//! cycle at most, enough for one record per packet.
//!
//! The half-rate register goes a step further: its RAM-side copy (`pre`) loads `s_data`
//! every cycle and feeds nothing but the held word's register, so no enable and no
//! consumer pulls it from the RAM (the full-rate data register, with its enable, still
//! missed 156.25 MHz by a 2.2 ns route in some placements). A word is taken from `pre`,
//! so only after the source has offered it for a whole cycle untaken: `s_ready` waits a
//! cycle after each take (the source must hold its word while valid, as a FIFO's head
//! does), which the half rate allows anyway. Two cycles from a FIFO's first word to
//! `m_valid`, one at full rate.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RamOutReg<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, D>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, D>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    valid: DFF<Bit>,
    data: DFF<D>,
    /// Half rate: `s_data` a cycle ago, and that it was offered then and not taken (so
    /// `pre` holds the source's word now).
    pre: DFF<D>,
    pre_ok: DFF<Bit>,
    /// `s_ready` also while the word held leaves (a word a cycle).
    full_rate: Constant<Bit>,
    take: Signal<Local, Bit>,
}

impl<D: Synth> RamOutReg<D> {
    /// A word a cycle; the consumer's ready reaches the source's read.
    pub fn full_rate() -> Self {
        Self::build(true)
    }
    /// A word every other cycle at most; `s_ready` is a flip-flop.
    pub fn half_rate() -> Self {
        Self::build(false)
    }
    fn build(full_rate: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            pre: Default::default(),
            pre_ok: Default::default(),
            full_rate: Constant::new(full_rate),
            take: Default::default(),
        }
    }
}

impl<D: Synth> Default for RamOutReg<D> {
    fn default() -> Self {
        Self::full_rate()
    }
}

impl<D: Synth> Logic for RamOutReg<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, data, pre, pre_ok);
        self.m_valid.next = self.valid.q.val();
        self.m_data.next = self.data.q.val();
        self.s_ready.next = !self.valid.q.val() & self.pre_ok.q.val();
        if self.full_rate.val() {
            self.s_ready.next = !self.valid.q.val() | self.m_ready.val();
        }
        self.take.next = self.s_valid.val() & self.s_ready.val();
        // (the full rate has no RAM-side copy: its `pre` stays unloaded, and the
        // simulator copies no word a cycle for nothing)
        if !self.full_rate.val() {
            self.pre.d.next = self.s_data.val();
            self.pre_ok.d.next = self.s_valid.val() & !self.take.val();
        }
        if self.valid.q.val() & self.m_ready.val() {
            self.valid.d.next = false;
        }
        // the data flip-flops' only input is `s_data` (the enable is the ready, not the
        // valid: a word not taken is never read)
        if self.s_ready.val() {
            self.data.d.next = self.s_data.val();
            if !self.full_rate.val() {
                self.data.d.next = self.pre.q.val();
            }
        }
        if self.take.val() {
            self.valid.d.next = true;
        }
        if self.reset.val() {
            self.valid.d.next = false;
            self.pre_ok.d.next = false;
        }
    }
}
