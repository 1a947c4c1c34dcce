//! A block RAM's output taken into flip-flops through nothing but routing.
//!
//! On the ECP5 a DP16KD's read data leaves 4.26 ns after the clock (speed 8; nextpnr
//! times every DP16KD as unregistered, and yosys never sets its output register), which
//! leaves 2.1 ns of a 156.25 MHz cycle: room for a route, not for a LUT. A `RegSlice` fed
//! straight from a FIFO's RAM chooses its output register's input between the RAM and its
//! skid (one LUT), and a state machine that loads fields from a FIFO's head spreads the
//! RAM's bits over many flip-flops far from it. Both blocks here put a RAM-side copy
//! (`pre`) between them: flip-flops that load the RAM's output every cycle, with no
//! enable, and feed one register each, so no enable and no consumer pulls them from the
//! RAM. (A data register with an enable, even one fed by nothing but the RAM, still
//! missed 156.25 MHz by a 2.2-2.4 ns route in some placements: the register behind it
//! drew it away.)
//!
//! - [`RamOutReg`] holds one word and takes one every other cycle at most (`s_ready` from
//!   flip-flops), enough for one record per packet. A word is taken from `pre`, so only
//!   after the source has offered it for a whole cycle untaken: `s_ready` waits a cycle
//!   after each take (the source must hold its word while valid, as a FIFO's head does).
//!   Two cycles from a FIFO's first word to `m_valid`.
//! - [`RamOutQueue`] passes a word a cycle: the word taken is caught in `pre` the cycle
//!   after, then goes to the output register (`m_data`) or, while that one is held, into
//!   a ring of three words behind it. `s_ready` is a flip-flop counted as if the output
//!   never left, so the consumer's ready reaches neither the FIFO's read nor any data
//!   register's input choice: only the output register's enable and the ring's pointers.
//!   Two cycles from a FIFO's first word to `m_valid`, as a full-rate register and a
//!   `RegSlice` behind it took, which it replaces.

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
    /// `s_data` a cycle ago, and that it was offered then and not taken (so `pre` holds
    /// the source's word now).
    pre: DFF<D>,
    pre_ok: DFF<Bit>,
    take: Signal<Local, Bit>,
}

impl<D: Synth> RamOutReg<D> {
    /// A word every other cycle at most; `s_ready` is a flip-flop.
    pub fn half_rate() -> Self {
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
            take: Default::default(),
        }
    }
}

impl<D: Synth> Default for RamOutReg<D> {
    fn default() -> Self {
        Self::half_rate()
    }
}

impl<D: Synth> Logic for RamOutReg<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, data, pre, pre_ok);
        self.m_valid.next = self.valid.q.val();
        self.m_data.next = self.data.q.val();
        self.s_ready.next = !self.valid.q.val() & self.pre_ok.q.val();
        self.take.next = self.s_valid.val() & self.s_ready.val();
        self.pre.d.next = self.s_data.val();
        self.pre_ok.d.next = self.s_valid.val() & !self.take.val();
        if self.valid.q.val() & self.m_ready.val() {
            self.valid.d.next = false;
        }
        // the data flip-flops' only input is `pre` (the enable is the ready, not the
        // valid: a word not taken is never read)
        if self.s_ready.val() {
            self.data.d.next = self.pre.q.val();
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

#[derive(LogicBlock)]
pub struct RamOutQueue<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, D>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, D>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    /// The RAM-side copy: `s_data` a cycle ago, every cycle; `pre_valid` says it was taken.
    pre: DFF<D>,
    pre_valid: DFF<Bit>,
    /// The word offered (`m_data`).
    head: DFF<D>,
    head_valid: DFF<Bit>,
    /// Words behind the head: a ring of three, `held` of them from `rd_ptr` on. An entry
    /// loads `pre` whenever it is the next free one (`wr_ptr`), whether or not `pre`
    /// counts: only the pointers depend on what the consumer does.
    ring0: DFF<D>,
    ring1: DFF<D>,
    ring2: DFF<D>,
    rd_ptr: DFF<Bits<2>>,
    wr_ptr: DFF<Bits<2>>,
    held: DFF<Bits<2>>,
    /// Room for a word taken now, counted as if the head stayed: at most three words in
    /// `head`, the ring and `pre` next cycle. From flip-flops only.
    ready: DFF<Bit>,
    take: Signal<Local, Bit>,
    head_free: Signal<Local, Bit>,
    ring_nz: Signal<Local, Bit>,
    ring_head: Signal<Local, D>,
    /// `pre`'s word goes into the ring (not straight to the head).
    store: Signal<Local, Bit>,
    /// The head reloads from the ring.
    unstore: Signal<Local, Bit>,
    words_next: Signal<Local, Bits<3>>,
}

impl<D: Synth> Default for RamOutQueue<D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_data: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            m_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            pre: Default::default(),
            pre_valid: Default::default(),
            head: Default::default(),
            head_valid: Default::default(),
            ring0: Default::default(),
            ring1: Default::default(),
            ring2: Default::default(),
            rd_ptr: Default::default(),
            wr_ptr: Default::default(),
            held: Default::default(),
            ready: Default::default(),
            take: Default::default(),
            head_free: Default::default(),
            ring_nz: Default::default(),
            ring_head: Default::default(),
            store: Default::default(),
            unstore: Default::default(),
            words_next: Default::default(),
        }
    }
}

impl<D: Synth> Logic for RamOutQueue<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pre, pre_valid, head, head_valid, ring0, ring1, ring2, rd_ptr, wr_ptr, held, ready);
        self.m_valid.next = self.head_valid.q.val();
        self.m_data.next = self.head.q.val();
        self.s_ready.next = self.ready.q.val();
        self.take.next = self.s_valid.val() & self.ready.q.val();
        // the RAM-side copy: no enable, one consumer per bit
        self.pre.d.next = self.s_data.val();
        self.pre_valid.d.next = self.take.val();
        // the head: from the ring's oldest word if it holds one, else from `pre` (the
        // choice from flip-flops; the consumer's ready reaches the enable only)
        self.ring_nz.next = self.held.q.val().any();
        self.ring_head.next = self.ring0.q.val();
        if self.rd_ptr.q.val() == 1 {
            self.ring_head.next = self.ring1.q.val();
        }
        if self.rd_ptr.q.val() == 2 {
            self.ring_head.next = self.ring2.q.val();
        }
        self.head_free.next = !self.head_valid.q.val() | self.m_ready.val();
        self.unstore.next = self.head_free.val() & self.ring_nz.val();
        self.store.next = self.pre_valid.q.val() & !(self.head_free.val() & !self.ring_nz.val());
        if self.head_free.val() {
            if self.ring_nz.val() {
                self.head.d.next = self.ring_head.val();
                self.head_valid.d.next = true;
            } else {
                self.head.d.next = self.pre.q.val();
                self.head_valid.d.next = self.pre_valid.q.val();
            }
        }
        // the ring: its next free entry loads `pre` (never a held one: three held and a
        // word in `pre` cannot both be, see `ready`)
        if self.held.q.val() != 3 {
            if self.wr_ptr.q.val() == 0 {
                self.ring0.d.next = self.pre.q.val();
            }
            if self.wr_ptr.q.val() == 1 {
                self.ring1.d.next = self.pre.q.val();
            }
            if self.wr_ptr.q.val() == 2 {
                self.ring2.d.next = self.pre.q.val();
            }
        }
        if self.store.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            if self.wr_ptr.q.val() == 2 {
                self.wr_ptr.d.next = 0.into();
            }
        }
        if self.unstore.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            if self.rd_ptr.q.val() == 2 {
                self.rd_ptr.d.next = 0.into();
            }
        }
        if self.store.val() & !self.unstore.val() {
            self.held.d.next = self.held.q.val() + 1;
        }
        if !self.store.val() & self.unstore.val() {
            self.held.d.next = self.held.q.val() - 1;
        }
        // words next cycle if the head stays: the head, the ring, `pre`'s word and the one
        // taken now; a word taken next cycle then finds a place (the head or the ring)
        // as it leaves `pre`. With the head leaving every cycle that is two words, so a
        // word a cycle passes.
        self.words_next.next = bit_cast::<3, 1>(self.head_valid.q.val().into())
            + bit_cast::<3, 2>(self.held.q.val())
            + bit_cast::<3, 1>(self.pre_valid.q.val().into())
            + bit_cast::<3, 1>(self.take.val().into());
        self.ready.d.next = self.words_next.val() <= 3;
        if self.reset.val() {
            self.pre_valid.d.next = false;
            self.head_valid.d.next = false;
            self.rd_ptr.d.next = 0.into();
            self.wr_ptr.d.next = 0.into();
            self.held.d.next = 0.into();
            self.ready.d.next = false;
        }
    }
}
