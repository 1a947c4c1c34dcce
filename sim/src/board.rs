//! The ECPIX-5 board simulated at its pins ([`BoardSim`]): the Verilated `ecpix5_io`
//! (crate::board_model) with the test bench standing in for everything around the FPGA:
//!
//! * the PLL: the core clock, 125 MHz and its 90-degree copy, `pll_locked`;
//! * the RTL8211E PHY on the wire side, modelled at the RGMII pins ([`PhyModel`]): it
//!   sends frames (preamble, SFD, data, `RX_ER` on request) as nibble pairs on both edges
//!   of its own 125 MHz receive clock, which runs at a slightly different rate from the
//!   FPGA's (the two crystals differ), with the data changing a quarter period before each
//!   edge as a PHY with internal receive delay presents it; and it decodes what the FPGA
//!   sends on both edges of the forwarded transmit clock, checking preamble, SFD and the
//!   inter-frame gap;
//! * the FT2232's UART ([`UartLine`]): bytes as 8N1 bit times on `uart_rxd`, and bytes
//!   recovered from `uart_txd` by sampling mid-bit, so the bridge is driven through its
//!   real pin, bit by bit.
//!
//! Time is integer picoseconds; every clock edge and PHY data change is an event, and
//! the model is evaluated once per event time.

use crate::board_model::{BoardInputs, BoardModel, BoardOutputs};
use nic_hw::board::ecpix5::SIM_UART_DIVISOR;
use std::collections::VecDeque;

/// Clock periods of a board simulation, in picoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardClocks {
    /// Core clock (the PLL's CLKOS2).
    pub core_ps: u64,
    /// The FPGA's 125 MHz transmit clock (8000 ps nominal).
    pub tx_ps: u64,
    /// The PHY's receive clock (8000 ps nominal, off by the crystals' difference).
    pub rx_ps: u64,
}

impl Default for BoardClocks {
    /// 156.25 MHz core; the PHY's receive clock 250 ppm fast (7998 ps), beyond the
    /// +-100 ppm Ethernet allows, so the receive FIFO sees more than a real PHY gives it.
    fn default() -> Self {
        BoardClocks { core_ps: 6400, tx_ps: 8000, rx_ps: 7998 }
    }
}

/// A frame the PHY model received from the FPGA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhyFrame {
    /// The frame after the SFD, FCS included.
    pub bytes: Vec<u8>,
    /// `TX_ER` was seen during the frame.
    pub error: bool,
    /// The preamble was 7 x 0x55 followed by 0xD5.
    pub preamble_ok: bool,
    /// Idle byte times before this frame since the previous one (u64::MAX for the first).
    pub gap_before: u64,
}

/// The PHY's side of RGMII.
#[derive(Debug, Default)]
pub struct PhyModel {
    /// Byte times still to send: (byte, RX_DV, RX_ER).
    rx_bytes: VecDeque<(u8, bool, bool)>,
    /// The byte on the wire this receive cycle.
    rx_cur: (u8, bool, bool),
    /// Frames decoded from the transmit pins.
    pub tx_frames: Vec<PhyFrame>,
    tx_cur: Vec<u8>,
    tx_err: bool,
    tx_active: bool,
    tx_low_nibble: u8,
    tx_low_en: bool,
    tx_idle: u64,
    tx_seen_frame: bool,
}

impl PhyModel {
    /// Queues a frame (FCS included) to send to the FPGA: preamble, SFD, the bytes with
    /// `RX_ER` on the byte indices in `error_at`, then 12 idle byte times.
    pub fn send(&mut self, frame: &[u8], error_at: &[usize]) {
        for _ in 0..7 {
            self.rx_bytes.push_back((0x55, true, false));
        }
        self.rx_bytes.push_back((0xd5, true, false));
        for (i, &b) in frame.iter().enumerate() {
            self.rx_bytes.push_back((b, true, error_at.contains(&i)));
        }
        for _ in 0..12 {
            self.rx_bytes.push_back((0, false, false));
        }
    }
    /// Queues raw byte times (for malformed traffic): (byte, RX_DV, RX_ER).
    pub fn send_raw(&mut self, bytes: &[(u8, bool, bool)]) {
        self.rx_bytes.extend(bytes.iter().copied());
    }
    /// Byte times not yet sent.
    pub fn rx_pending(&self) -> usize {
        self.rx_bytes.len()
    }

    fn next_rx_byte(&mut self) {
        self.rx_cur = self.rx_bytes.pop_front().unwrap_or((0, false, false));
    }

    /// A rising edge of the forwarded transmit clock: low nibble and TX_EN.
    fn tx_rise(&mut self, txd: u8, ctl: bool) {
        self.tx_low_nibble = txd & 0xf;
        self.tx_low_en = ctl;
    }
    /// The following falling edge: high nibble and TX_EN xor TX_ER; one byte time done.
    fn tx_fall(&mut self, txd: u8, ctl: bool) {
        let en = self.tx_low_en;
        let er = ctl ^ en;
        let byte = self.tx_low_nibble | (txd & 0xf) << 4;
        if en {
            if !self.tx_active {
                self.tx_active = true;
                self.tx_cur.clear();
                self.tx_err = false;
            }
            self.tx_cur.push(byte);
            self.tx_err |= er;
        } else {
            if self.tx_active {
                self.tx_active = false;
                let raw = std::mem::take(&mut self.tx_cur);
                let preamble_ok = raw.len() >= 8 && raw[..7].iter().all(|&b| b == 0x55) && raw[7] == 0xd5;
                let bytes = if preamble_ok { raw[8..].to_vec() } else { raw };
                let gap_before = if self.tx_seen_frame { self.tx_idle } else { u64::MAX };
                self.tx_frames.push(PhyFrame { bytes, error: self.tx_err, preamble_ok, gap_before });
                self.tx_seen_frame = true;
                self.tx_idle = 0;
            }
            self.tx_idle += 1;
        }
    }
}

/// The UART of the host side (FT2232), at SIM_UART_DIVISOR core cycles per bit.
#[derive(Debug)]
pub struct UartLine {
    divisor: u64,
    /// Bits still to put on `uart_rxd`, each for one bit time.
    out_bits: VecDeque<bool>,
    out_level: bool,
    out_left: u64,
    /// Receiver: core cycles into the current byte (None when idle).
    in_pos: Option<u64>,
    in_byte: u16,
    prev_level: bool,
    /// Bytes received from the board.
    pub received: VecDeque<u8>,
    /// Bytes whose stop bit was 0.
    pub framing_errors: u64,
}

impl UartLine {
    pub(crate) fn new(divisor: u64) -> Self {
        UartLine { divisor, out_bits: VecDeque::new(), out_level: true, out_left: 0, in_pos: None, in_byte: 0, prev_level: true, received: VecDeque::new(), framing_errors: 0 }
    }
    /// Queues bytes to send (8N1, LSB first).
    pub fn send(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.out_bits.push_back(false);
            for i in 0..8 {
                self.out_bits.push_back(b >> i & 1 == 1);
            }
            self.out_bits.push_back(true);
        }
    }
    pub fn sending(&self) -> bool {
        !self.out_bits.is_empty() || self.out_left > 0
    }
    /// One core cycle: the level to drive during it, and the board's level seen in it.
    pub(crate) fn cycle(&mut self, board_txd: bool) -> bool {
        if self.out_left == 0 {
            if let Some(bit) = self.out_bits.pop_front() {
                self.out_level = bit;
                self.out_left = self.divisor;
            } else {
                self.out_level = true;
            }
        }
        if self.out_left > 0 {
            self.out_left -= 1;
        }
        // receiver: start bit on a falling edge, then every bit sampled in its middle
        match self.in_pos {
            None => {
                if self.prev_level && !board_txd {
                    self.in_pos = Some(0);
                    self.in_byte = 0;
                }
            }
            Some(p) => {
                let p = p + 1;
                self.in_pos = Some(p);
                let half = self.divisor / 2;
                if p >= half && (p - half) % self.divisor == 0 {
                    let bit = (p - half) / self.divisor; // 0 = start, 1..=8 data, 9 stop
                    match bit {
                        0 => {
                            if board_txd {
                                self.in_pos = None; // a glitch, not a start bit
                            }
                        }
                        1..=8 => self.in_byte |= (board_txd as u16) << (bit - 1),
                        _ => {
                            if board_txd {
                                self.received.push_back(self.in_byte as u8);
                            } else {
                                self.framing_errors += 1;
                            }
                            self.in_pos = None;
                        }
                    }
                }
            }
        }
        self.prev_level = board_txd;
        self.out_level
    }
}

/// The board at its pins, with the PLL, the PHY and the host UART modelled.
pub struct BoardSim {
    model: BoardModel,
    clocks: BoardClocks,
    inputs: BoardInputs,
    outputs: BoardOutputs,
    time_ps: u64,
    next_core: u64,
    next_tx: u64,
    next_tx90: u64,
    next_rx: u64,
    next_rx_data: u64,
    rx_phase_high: bool,
    core_cycles: u64,
    pub phy: PhyModel,
    pub uart: UartLine,
}

impl BoardSim {
    /// A board just configured: PLL not locked yet, board reset released. `step_cycles`
    /// runs it; the PLL locks after 20 core cycles.
    pub fn new(clocks: BoardClocks) -> Self {
        let mut s = BoardSim {
            model: BoardModel::new(),
            clocks,
            inputs: BoardInputs { rst_n: true, uart_rxd: true, ..Default::default() },
            outputs: BoardOutputs::default(),
            time_ps: 0,
            next_core: clocks.core_ps / 2,
            next_tx: clocks.tx_ps / 2,
            next_tx90: clocks.tx_ps / 2 + clocks.tx_ps / 4,
            // the PHY's clock starts at an unrelated phase
            next_rx: clocks.rx_ps / 2 + 1234 % clocks.rx_ps,
            next_rx_data: 1234 % clocks.rx_ps + clocks.rx_ps / 4,
            rx_phase_high: false,
            core_cycles: 0,
            phy: PhyModel::default(),
            uart: UartLine::new(SIM_UART_DIVISOR as u64),
        };
        s.outputs = s.model.eval(&s.inputs, 0);
        s
    }

    pub fn open_trace(&mut self, path: &std::path::Path) -> Result<(), String> {
        self.model.open_trace(path)
    }

    /// Core clock cycles since the start.
    pub fn core_cycles(&self) -> u64 {
        self.core_cycles
    }
    pub fn outputs(&self) -> BoardOutputs {
        self.outputs
    }
    /// Holds the board's reset button (`rst_n` low) or releases it.
    pub fn set_reset_button(&mut self, pressed: bool) {
        self.inputs.rst_n = !pressed;
    }

    /// Advances to the next event time and evaluates it.
    fn event(&mut self) {
        let t = self.next_core.min(self.next_tx).min(self.next_tx90).min(self.next_rx).min(self.next_rx_data);
        self.time_ps = t;
        if self.next_core == t {
            self.inputs.clk_core = !self.inputs.clk_core;
            self.next_core += self.clocks.core_ps / 2;
            if !self.inputs.clk_core {
                // between core edges: the UART line changes on the falling edge, away
                // from the board's sampling edge
                self.core_cycles += 1;
                if self.core_cycles == 20 {
                    self.inputs.pll_locked = true;
                }
                self.inputs.uart_rxd = self.uart.cycle(self.outputs.uart_txd);
            }
        }
        if self.next_tx == t {
            self.inputs.clk_tx = !self.inputs.clk_tx;
            self.next_tx += self.clocks.tx_ps / 2;
        }
        let mut txc_edge = false;
        if self.next_tx90 == t {
            self.inputs.clk_tx90 = !self.inputs.clk_tx90;
            self.next_tx90 += self.clocks.tx_ps / 2;
            txc_edge = true;
        }
        if self.next_rx_data == t {
            // a quarter period before the next receive clock edge
            if !self.rx_phase_high {
                // before a rising edge: next byte's low nibble and RX_DV
                self.phy.next_rx_byte();
                let (b, dv, _) = self.phy.rx_cur;
                self.inputs.eth_rxd = b & 0xf;
                self.inputs.eth_rx_ctl = dv;
            } else {
                let (b, dv, er) = self.phy.rx_cur;
                self.inputs.eth_rxd = b >> 4;
                self.inputs.eth_rx_ctl = dv ^ er;
            }
            self.next_rx_data += self.clocks.rx_ps / 2;
        }
        if self.next_rx == t {
            self.inputs.eth_rxc = !self.inputs.eth_rxc;
            self.rx_phase_high = self.inputs.eth_rxc;
            self.next_rx += self.clocks.rx_ps / 2;
        }
        self.outputs = self.model.eval(&self.inputs, t);
        if txc_edge {
            // the forwarded clock follows clk_tx90 through its output cell
            if self.outputs.eth_txc {
                self.phy.tx_rise(self.outputs.eth_txd, self.outputs.eth_tx_ctl);
            } else {
                self.phy.tx_fall(self.outputs.eth_txd, self.outputs.eth_tx_ctl);
            }
        }
    }

    /// Runs `n` core clock cycles.
    pub fn step_cycles(&mut self, n: u64) {
        let end = self.core_cycles + n;
        while self.core_cycles < end {
            self.event();
        }
    }

    /// Runs until `pred` holds (checked once per core cycle) or `max_cycles` pass;
    /// returns whether it held.
    pub fn run_until(&mut self, max_cycles: u64, mut pred: impl FnMut(&mut Self) -> bool) -> bool {
        let end = self.core_cycles + max_cycles;
        while self.core_cycles < end {
            if pred(self) {
                return true;
            }
            self.step_cycles(1);
        }
        pred(self)
    }
}

/// The host's end of the board's UART: the driver's `SerialDevice` runs on it, so the
/// board test drives the simulated board exactly as `TtyLink` drives a real one.
impl nic_driver::serial_device::ByteLink for BoardSim {
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.uart.send(bytes);
        Ok(())
    }
    fn recv(&mut self, timeout_cycles: u64) -> std::io::Result<u8> {
        if self.run_until(timeout_cycles, |s| !s.uart.received.is_empty()) {
            Ok(self.uart.received.pop_front().unwrap())
        } else {
            Err(std::io::Error::new(std::io::ErrorKind::TimedOut, format!("no byte from the board's UART within {timeout_cycles} core cycles")))
        }
    }
    fn wait_cycles(&mut self, cycles: u64) {
        self.step_cycles(cycles);
    }
    fn cycles(&self) -> u64 {
        self.core_cycles
    }
}
