//! UART receiver and transmitter (8N1, least significant bit first) for the board's
//! FT2232 serial link, which carries the register bridge protocol (`bridge.rs`).
//!
//! Both take the bit time as a run-time `divisor` (core clocks per bit, at least 4) rather
//! than a constant, so one bitstream serves several baud rates and the tests can run at
//! divisor 4 (fast to simulate) as well as at a non-power-of-two divisor (a real baud rate
//! never divides the core clock evenly).
//!
//! * `UartRx`: the pin is asynchronous to the core clock, so it goes through two flip-flops
//!   before any logic looks at it (a third keeps the previous synchronized value for the
//!   edge detector). A start bit is a synchronized falling edge that is still low half a
//!   bit later — a glitch shorter than half a bit goes back to idle. From that middle
//!   point every bit is sampled one `divisor` later, i.e. in the middle of its bit time,
//!   which leaves almost half a bit of margin for clock mismatch. A stop bit sampled low
//!   drops the byte and pulses `frame_error`; the receiver then waits for the line to
//!   go high again (a break does not read as a stream of zero bytes), because only a
//!   falling edge starts a byte.
//! * `UartTx`: a valid/ready byte input; `ready` is high only while idle, the frame (start
//!   bit, 8 data bits, stop bit, `divisor` clocks each) comes out of a register so the pin
//!   never glitches, and the line idles high (also during reset).

use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum UartRxState {
    /// Line idle: waiting for a falling edge.
    Idle,
    /// Falling edge seen: check the start bit at half a bit.
    CheckStart,
    /// Sampling the eight data bits, one per `divisor`.
    Data,
    /// Sampling the stop bit.
    CheckStop,
}

#[derive(LogicBlock)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Core clocks per bit, at least 4.
    pub divisor: Signal<In, Bits<16>>,
    /// The pin (asynchronous).
    pub rx: Signal<In, Bit>,
    // received bytes: `valid` is a one-cycle pulse per byte
    pub data: Signal<Out, Bits<8>>,
    pub valid: Signal<Out, Bit>,
    /// One-cycle pulse: the stop bit was 0, the byte was dropped.
    pub frame_error: Signal<Out, Bit>,
    sync1: DFF<Bit>,
    sync2: DFF<Bit>,
    /// The synchronized line one cycle earlier (falling edge detector).
    prev: DFF<Bit>,
    state: DFF<UartRxState>,
    /// Clocks since the last sampling point.
    count: DFF<Bits<16>>,
    /// Data bits received so far.
    nbits: DFF<Bits<4>>,
    shift: DFF<Bits<8>>,
    data_q: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    frame_error_q: DFF<Bit>,
    half: Signal<Local, Bits<16>>,
    full: Signal<Local, Bits<16>>,
}

impl Default for UartRx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            divisor: Default::default(),
            rx: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            frame_error: Default::default(),
            sync1: Default::default(),
            sync2: Default::default(),
            prev: Default::default(),
            state: Default::default(),
            count: Default::default(),
            nbits: Default::default(),
            shift: Default::default(),
            data_q: Default::default(),
            valid_q: Default::default(),
            frame_error_q: Default::default(),
            half: Default::default(),
            full: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync1, sync2, prev, state, count, nbits, shift, data_q, valid_q, frame_error_q);
        self.sync1.d.next = self.rx.val();
        self.sync2.d.next = self.sync1.q.val();
        self.prev.d.next = self.sync2.q.val();
        // sampling points: half a bit after the edge, then every full bit
        self.half.next = (self.divisor.val() >> 1) - 1;
        self.full.next = self.divisor.val() - 1;
        self.count.d.next = self.count.q.val() + 1;
        self.valid_q.d.next = false;
        self.frame_error_q.d.next = false;
        self.data.next = self.data_q.q.val();
        self.valid.next = self.valid_q.q.val();
        self.frame_error.next = self.frame_error_q.q.val();
        match self.state.q.val() {
            UartRxState::Idle => {
                self.count.d.next = 0.into();
                if self.prev.q.val() & !self.sync2.q.val() {
                    self.state.d.next = UartRxState::CheckStart;
                }
            }
            UartRxState::CheckStart => {
                if self.count.q.val() == self.half.val() {
                    self.count.d.next = 0.into();
                    self.nbits.d.next = 0.into();
                    if self.sync2.q.val() {
                        // a glitch, not a start bit
                        self.state.d.next = UartRxState::Idle;
                    } else {
                        self.state.d.next = UartRxState::Data;
                    }
                }
            }
            UartRxState::Data => {
                if self.count.q.val() == self.full.val() {
                    self.count.d.next = 0.into();
                    self.shift.d.next = self.shift.q.val() >> 1;
                    if self.sync2.q.val() {
                        self.shift.d.next = (self.shift.q.val() >> 1) | Bits::<8>::from(0x80u64);
                    }
                    self.nbits.d.next = self.nbits.q.val() + 1;
                    if self.nbits.q.val() == 7 {
                        self.state.d.next = UartRxState::CheckStop;
                    }
                }
            }
            UartRxState::CheckStop => {
                if self.count.q.val() == self.full.val() {
                    self.count.d.next = 0.into();
                    self.state.d.next = UartRxState::Idle;
                    if self.sync2.q.val() {
                        self.data_q.d.next = self.shift.q.val();
                        self.valid_q.d.next = true;
                    } else {
                        self.frame_error_q.d.next = true;
                    }
                }
            }
        }
        if self.reset.val() {
            // the line idles high: no false edge out of reset
            self.sync1.d.next = true;
            self.sync2.d.next = true;
            self.prev.d.next = true;
            self.state.d.next = UartRxState::Idle;
            self.count.d.next = 0.into();
            self.nbits.d.next = 0.into();
            self.shift.d.next = 0.into();
            self.data_q.d.next = 0.into();
            self.valid_q.d.next = false;
            self.frame_error_q.d.next = false;
        }
    }
}

#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Core clocks per bit, at least 4.
    pub divisor: Signal<In, Bits<16>>,
    // byte input (valid/ready)
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    /// The pin: registered, idle high.
    pub tx: Signal<Out, Bit>,
    busy: DFF<Bit>,
    line: DFF<Bit>,
    /// Bits still to send after the one on the line: data bits, then the stop bit (1).
    shift: DFF<Bits<9>>,
    left: DFF<Bits<4>>,
    count: DFF<Bits<16>>,
}

impl Default for UartTx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            divisor: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            tx: Default::default(),
            busy: Default::default(),
            line: Default::default(),
            shift: Default::default(),
            left: Default::default(),
            count: Default::default(),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, line, shift, left, count);
        self.ready.next = !self.busy.q.val();
        self.tx.next = self.line.q.val();
        self.count.d.next = self.count.q.val() + 1;
        if !self.busy.q.val() {
            self.count.d.next = 0.into();
            self.line.d.next = true;
            if self.valid.val() {
                // start bit now; then the data bits LSB first, then the stop bit
                self.busy.d.next = true;
                self.line.d.next = false;
                self.shift.d.next = bit_cast::<9, 8>(self.data.val()) | Bits::<9>::from(0x100u64);
                self.left.d.next = 9.into();
            }
        } else if self.count.q.val() == (self.divisor.val() - 1) {
            self.count.d.next = 0.into();
            if self.left.q.val() == 0 {
                // the stop bit has lasted a whole bit time
                self.busy.d.next = false;
            } else {
                self.line.d.next = self.shift.q.val().get_bit(0);
                self.shift.d.next = self.shift.q.val() >> 1;
                self.left.d.next = self.left.q.val() - 1;
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.line.d.next = true;
            self.shift.d.next = 0.into();
            self.left.d.next = 0.into();
            self.count.d.next = 0.into();
        }
    }
}
