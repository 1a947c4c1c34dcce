//! The iCE40 board's core simulated at its ports ([`Ice40Sim`]): the Verilated
//! `ice40_core` (crate::ice40_model) with the test bench as the PLL (the core clock), the
//! reset synchronizer and the FT2232H's UART ([`UartLine`], bytes as 8N1 bit times on
//! `uart_rx`, recovered from `uart_tx` by sampling mid-bit), so the host link is driven
//! through its real pins, bit by bit. [`Ice40Sim`] is a [`ByteLink`]: the driver's
//! `LinkDevice` runs on it as it runs on a serial port to the board.
//!
//! [`ByteLink`]: nic_driver::serial_device::ByteLink

use crate::board::UartLine;
use crate::ice40_model::{Ice40Inputs, Ice40Model, Ice40Outputs};

/// Core cycles per UART bit in simulation (the UART's minimum): a byte is 40 cycles.
pub const SIM_ICE40_UART_DIVISOR: u16 = 4;

/// The iCE40 core with its clock, reset and host UART modelled.
pub struct Ice40Sim {
    model: Ice40Model,
    inputs: Ice40Inputs,
    outputs: Ice40Outputs,
    core_cycles: u64,
    pub uart: UartLine,
}

impl Ice40Sim {
    /// A board just configured: held in reset for 8 cycles, then running.
    pub fn new() -> Self {
        let mut s = Ice40Sim {
            model: Ice40Model::new(),
            inputs: Ice40Inputs { clock: false, reset: true, uart_divisor: SIM_ICE40_UART_DIVISOR, uart_rx: true },
            outputs: Ice40Outputs::default(),
            core_cycles: 0,
            uart: UartLine::new(u64::from(SIM_ICE40_UART_DIVISOR)),
        };
        s.step_cycles(8);
        s.inputs.reset = false;
        s
    }

    pub fn outputs(&self) -> Ice40Outputs {
        self.outputs
    }

    /// Runs `n` core clock cycles: the UART line changes with the falling edge, away
    /// from the core's sampling edge.
    pub fn step_cycles(&mut self, n: u64) {
        for _ in 0..n {
            self.inputs.clock = false;
            self.inputs.uart_rx = self.uart.cycle(self.outputs.uart_tx);
            self.outputs = self.model.eval(&self.inputs);
            self.inputs.clock = true;
            self.outputs = self.model.eval(&self.inputs);
            self.core_cycles += 1;
        }
    }
}

impl Default for Ice40Sim {
    fn default() -> Self {
        Self::new()
    }
}

impl nic_driver::serial_device::ByteLink for Ice40Sim {
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.uart.send(bytes);
        Ok(())
    }
    fn recv(&mut self, timeout_cycles: u64) -> std::io::Result<u8> {
        let end = self.core_cycles + timeout_cycles;
        while self.uart.received.is_empty() && self.core_cycles < end {
            self.step_cycles(1);
        }
        self.uart
            .received
            .pop_front()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::TimedOut, format!("no byte from the board's UART within {timeout_cycles} core cycles")))
    }
    fn wait_cycles(&mut self, cycles: u64) {
        self.step_cycles(cycles);
    }
    fn cycles(&self) -> u64 {
        self.core_cycles
    }
}
