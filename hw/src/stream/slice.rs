//! Register slice (skid buffer): registers a valid/ready stream in both directions at
//! full throughput, one cycle of latency. It cuts the combinational path between two
//! blocks; the ready path is registered too (the upstream sees `!skid_valid`).
//!
//! [`RegSlice::with_skid`]`(false)` makes a lighter slice for builds that need the area more
//! than the clock (the iCE40 one): data and valid registered, ready passed through
//! combinationally (`s_ready = m_ready | !out_valid`), no skid register. It keeps full
//! throughput and the same one cycle of latency; synthesis removes the unused skid.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegSlice<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, D>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, D>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    out_valid: DFF<Bit>,
    out_data: DFF<D>,
    /// A beat accepted while the output was stalled waits here.
    skid_valid: DFF<Bit>,
    skid_data: DFF<D>,
    in_fire: Signal<Local, Bit>,
    out_fire: Signal<Local, Bit>,
    /// The ready path is registered (skid buffer); else it is combinational.
    skid: Constant<Bit>,
    /// No register at all: the slice is a wire (`RegSlice::wire`).
    bypass: Constant<Bit>,
}

impl<D: Synth> Default for RegSlice<D> {
    fn default() -> Self {
        Self::with_skid(true)
    }
}

impl<D: Synth> RegSlice<D> {
    /// A skid buffer (`true`, the default) or a slice that registers data and valid
    /// only (`false`, see the module comment).
    pub fn with_skid(skid: bool) -> Self {
        Self::build(skid, false)
    }

    /// No slice: data, valid and ready pass straight through (synthesis removes the
    /// registers), for a build whose clock does not need the cut (`small`), where each
    /// slice's flip-flops take iCE40 logic cells of their own.
    pub fn wire() -> Self {
        Self::build(false, true)
    }

    fn build(skid: bool, bypass: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            in_fire: Default::default(),
            out_fire: Default::default(),
            skid: Constant::new(skid),
            bypass: Constant::new(bypass),
        }
    }
}

impl<D: Synth> Logic for RegSlice<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_valid, out_data, skid_valid, skid_data);
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.out_data.q.val();
        self.out_fire.next = self.out_valid.q.val() & self.m_ready.val();
        if self.skid.val() {
            self.s_ready.next = !self.skid_valid.q.val();
        } else {
            self.s_ready.next = self.out_fire.val() | !self.out_valid.q.val();
        }
        self.in_fire.next = self.s_valid.val() & self.s_ready.val();
        if self.out_fire.val() | !self.out_valid.q.val() {
            // the output register is free this cycle: refill it, skid first
            if self.skid.val() & self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s_data.val();
                self.out_valid.d.next = self.in_fire.val();
            }
        } else if self.skid.val() & self.in_fire.val() {
            // output stalled: park the new beat
            self.skid_valid.d.next = true;
        }
        // the skid register takes the input whenever it is empty, parked or not: its
        // enable does not wait on the output's ready (a wide register's enable is a long
        // net; only `skid_valid` says whether what it holds counts)
        if self.skid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_data.val();
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
        if self.bypass.val() {
            self.m_valid.next = self.s_valid.val();
            self.m_data.next = self.s_data.val();
            self.s_ready.next = self.m_ready.val();
        }
    }
}
