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

#[cfg(test)]
mod tests {
    //! Each side against an independent bit-level model (a line schedule built here, a
    //! decoder sampling the line here), then the two blocks back to back.
    use super::*;
    use std::sync::{Arc, Mutex};

    /// The 8N1 line for `bytes` at `div` clocks per bit, `gap` idle clocks before each;
    /// `bad_stop`: the byte's stop bit is 0 (a framing error), followed by idle.
    fn line_for(frames: &[(u8, bool)], div: usize, gap: usize) -> Vec<bool> {
        let mut l = vec![true; 20];
        for &(b, bad_stop) in frames {
            l.extend(std::iter::repeat_n(true, gap));
            l.extend(std::iter::repeat_n(false, div));
            for i in 0..8 {
                l.extend(std::iter::repeat_n(b >> i & 1 == 1, div));
            }
            l.extend(std::iter::repeat_n(!bad_stop, div));
        }
        l.extend(std::iter::repeat_n(true, 4 * div));
        l
    }

    /// Decodes a sampled line (one value per clock) into bytes; every bit (start, data,
    /// stop) must hold its value for exactly its `div` clocks.
    fn decode_line(l: &[bool], div: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut t = 1;
        while t < l.len() {
            if l[t - 1] && !l[t] {
                let mut bits = [false; 10];
                for (k, bit) in bits.iter_mut().enumerate() {
                    let lo = t + k * div;
                    let hi = t + (k + 1) * div - 1;
                    assert!(hi < l.len(), "frame cut off at {t}");
                    *bit = l[lo];
                    assert!(l[lo..=hi].iter().all(|&x| x == l[lo]), "bit {k} of the frame at {t} not stable");
                }
                assert!(!bits[0] && bits[9], "bad start/stop bit in the frame at {t}");
                out.push((1..9).map(|i| (bits[i] as u8) << (i - 1)).sum());
                t += 9 * div + div / 2;
            } else {
                t += 1;
            }
        }
        out
    }

    #[derive(Default, Debug, Clone)]
    struct RxResult {
        bytes: Vec<u8>,
        frame_errors: usize,
    }

    fn run_rx(line: Vec<bool>, div: u64) -> RxResult {
        let res = Arc::new(Mutex::new(RxResult::default()));
        let r2 = res.clone();
        let n = line.len() as u64;
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<UartRx>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<UartRx>| {
            let mut x = sim.init()?;
            x.divisor.next = Bits::<16>::from(div);
            x.rx.next = true;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 3);
            x.reset.next = false;
            let mut r = RxResult::default();
            for &b in &line {
                x.rx.next = b;
                x = sim.wait(1, x)?;
                if x.valid.val() {
                    r.bytes.push(x.data.val().to_u64() as u8);
                }
                if x.frame_error.val() {
                    r.frame_errors += 1;
                }
                wait_clock_cycle!(sim, clock, x);
            }
            *r2.lock().unwrap() = r;
            sim.done(x)
        });
        let mut uut = UartRx::default();
        uut.connect_all();
        sim.run(Box::new(uut), (n + 100) * 10).unwrap();
        let r = res.lock().unwrap().clone();
        r
    }

    #[test]
    fn rx_receives_bytes_at_several_divisors() {
        let bytes: Vec<u8> = vec![0x00, 0xff, 0x55, 0xaa, 0x01, 0x80, 0x3c, b'W'];
        for div in [4usize, 5, 7, 16] {
            for gap in [0usize, 3] {
                let frames: Vec<(u8, bool)> = bytes.iter().map(|&b| (b, false)).collect();
                let r = run_rx(line_for(&frames, div, gap), div as u64);
                assert_eq!(r.bytes, bytes, "divisor {div} gap {gap}");
                assert_eq!(r.frame_errors, 0);
            }
        }
    }

    #[test]
    fn rx_frame_error_drops_the_byte_and_recovers() {
        for div in [4usize, 7] {
            let frames = [(0x12u8, false), (0x34, true), (0x00, true), (0x56, false)];
            // idle after each bad stop bit so the next start bit is a falling edge again
            let r = run_rx(line_for(&frames, div, 2), div as u64);
            assert_eq!(r.bytes, vec![0x12, 0x56], "divisor {div}");
            assert_eq!(r.frame_errors, 2, "divisor {div}");
        }
    }

    #[test]
    fn rx_ignores_glitches_shorter_than_half_a_bit() {
        let div = 8;
        let mut l = vec![true; 30];
        // 1- and 3-clock low pulses (half a bit is 4): not start bits
        l.extend([false, true, true, true, true, true, true, true, true, true]);
        l.extend([false, false, false, true, true, true, true, true, true, true, true, true, true]);
        l.extend(line_for(&[(0xa5, false)], div, 0));
        let r = run_rx(l, div as u64);
        assert_eq!(r.bytes, vec![0xa5]);
        assert_eq!(r.frame_errors, 0);
    }

    /// Drives UartTx with `bytes` (valid held until taken, `idle_between` clocks without
    /// valid after each); returns the line sampled every clock.
    fn run_tx(bytes: Vec<u8>, div: u64, idle_between: usize) -> Vec<bool> {
        let res = Arc::new(Mutex::new(Vec::new()));
        let r2 = res.clone();
        let cycles = (bytes.len() as u64 * (10 * div + idle_between as u64 + 2)) + 20 * div + 50;
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<UartTx>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<UartTx>| {
            let mut x = sim.init()?;
            x.divisor.next = Bits::<16>::from(div);
            x.valid.next = false;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 3);
            x.reset.next = false;
            let mut line = Vec::new();
            let (mut i, mut idle) = (0usize, 0usize);
            for _ in 0..cycles {
                let offer = i < bytes.len() && idle == 0;
                x.valid.next = offer;
                if offer {
                    x.data.next = Bits::<8>::from(bytes[i] as u64);
                }
                x = sim.wait(1, x)?;
                line.push(x.tx.val());
                if offer && x.ready.val() {
                    i += 1;
                    idle = idle_between;
                } else if idle > 0 {
                    idle -= 1;
                }
                wait_clock_cycle!(sim, clock, x);
            }
            assert_eq!(i, bytes.len(), "not every byte was taken");
            *r2.lock().unwrap() = line;
            sim.done(x)
        });
        let mut uut = UartTx::default();
        uut.connect_all();
        sim.run(Box::new(uut), (cycles + 100) * 10).unwrap();
        let r = res.lock().unwrap().clone();
        r
    }

    #[test]
    fn tx_sends_8n1_frames_at_several_divisors() {
        let bytes: Vec<u8> = vec![0x00, 0xff, 0x55, 0xaa, 0x01, 0x80, 0xc3, b'v'];
        for div in [4u64, 7, 12] {
            for idle in [0usize, 5] {
                let line = run_tx(bytes.clone(), div, idle);
                assert!(line[0], "line not idle high after reset");
                assert_eq!(decode_line(&line, div as usize), bytes, "divisor {div} idle {idle}");
                if idle == 0 {
                    // back to back: at most one idle clock between frames
                    let first = line.iter().position(|&b| !b).unwrap();
                    let last_low = line.iter().rposition(|&b| !b).unwrap();
                    let span = (last_low + 1 - first) as u64 + div; // plus the last stop bit
                    assert!(span <= bytes.len() as u64 * (10 * div + 1), "divisor {div}: {span} clocks for {} frames", bytes.len());
                }
            }
        }
    }

    /// UartTx into UartRx, as the host and the board see each other.
    #[derive(LogicBlock, Default)]
    struct UartLoop {
        clock: Signal<In, Clock>,
        reset: Signal<In, Bit>,
        divisor: Signal<In, Bits<16>>,
        data: Signal<In, Bits<8>>,
        valid: Signal<In, Bit>,
        ready: Signal<Out, Bit>,
        out_data: Signal<Out, Bits<8>>,
        out_valid: Signal<Out, Bit>,
        frame_error: Signal<Out, Bit>,
        tx: UartTx,
        rx: UartRx,
    }

    impl Logic for UartLoop {
        #[hdl_gen]
        fn update(&mut self) {
            self.tx.clock.next = self.clock.val();
            self.rx.clock.next = self.clock.val();
            self.tx.reset.next = self.reset.val();
            self.rx.reset.next = self.reset.val();
            self.tx.divisor.next = self.divisor.val();
            self.rx.divisor.next = self.divisor.val();
            self.tx.data.next = self.data.val();
            self.tx.valid.next = self.valid.val();
            self.ready.next = self.tx.ready.val();
            self.rx.rx.next = self.tx.tx.val();
            self.out_data.next = self.rx.data.val();
            self.out_valid.next = self.rx.valid.val();
            self.frame_error.next = self.rx.frame_error.val();
        }
    }

    #[test]
    fn tx_into_rx_back_to_back() {
        for div in [4u64, 7] {
            let bytes: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
            let got = Arc::new(Mutex::new((Vec::new(), 0usize)));
            let g2 = got.clone();
            let b2 = bytes.clone();
            let cycles = bytes.len() as u64 * (10 * div + 1) + 20 * div;
            let mut sim = Simulation::new();
            sim.add_clock(5, |x: &mut Box<UartLoop>| x.clock.next = !x.clock.val());
            sim.add_testbench(move |mut sim: Sim<UartLoop>| {
                let mut x = sim.init()?;
                x.divisor.next = Bits::<16>::from(div);
                x.valid.next = false;
                x.reset.next = true;
                wait_clock_cycles!(sim, clock, x, 3);
                x.reset.next = false;
                let (mut i, mut out, mut fe) = (0usize, Vec::new(), 0usize);
                for _ in 0..cycles {
                    x.valid.next = i < b2.len();
                    if i < b2.len() {
                        x.data.next = Bits::<8>::from(b2[i] as u64);
                    }
                    x = sim.wait(1, x)?;
                    if i < b2.len() && x.ready.val() {
                        i += 1;
                    }
                    if x.out_valid.val() {
                        out.push(x.out_data.val().to_u64() as u8);
                    }
                    if x.frame_error.val() {
                        fe += 1;
                    }
                    wait_clock_cycle!(sim, clock, x);
                }
                *g2.lock().unwrap() = (out, fe);
                sim.done(x)
            });
            let mut uut = UartLoop::default();
            uut.connect_all();
            sim.run(Box::new(uut), (cycles + 100) * 10).unwrap();
            let (out, fe) = got.lock().unwrap().clone();
            assert_eq!(out, bytes, "divisor {div}");
            assert_eq!(fe, 0);
        }
    }
}
