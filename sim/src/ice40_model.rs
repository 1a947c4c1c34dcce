//! The Verilated `ice40_core` (hw/src/board/ice40.rs): the iCE40 board's NIC (`small`)
//! with its UART host link and the looped wire, everything of the iCE40 bitstream but
//! the PLL and the reset synchronizer. One clock; the caller toggles it
//! (crate::ice40 runs the clock and the UART line).

#[cxx::bridge(namespace = "nicsim")]
mod ffi {
    /// Every input of `ice40_core`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Ice40Inputs {
        clock: bool,
        reset: bool,
        uart_divisor: u16,
        uart_rx: bool,
    }

    /// Every output of `ice40_core`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Ice40Outputs {
        uart_tx: bool,
        led: u8,
    }

    unsafe extern "C++" {
        include!("nic-sim/csrc/ice40_model.h");
        type Ice40Model;
        fn new_ice40_model() -> UniquePtr<Ice40Model>;
        fn eval(self: Pin<&mut Ice40Model>, inputs: &Ice40Inputs, outputs: &mut Ice40Outputs);
    }
}

pub use ffi::{Ice40Inputs, Ice40Outputs};

/// The Verilated `ice40_core`.
pub struct Ice40Model {
    inner: cxx::UniquePtr<ffi::Ice40Model>,
}

impl Ice40Model {
    pub fn new() -> Self {
        Ice40Model { inner: ffi::new_ice40_model() }
    }
    /// Drives `inputs`, evaluates, returns the outputs.
    pub fn eval(&mut self, inputs: &Ice40Inputs) -> Ice40Outputs {
        let mut out = Ice40Outputs::default();
        self.inner.pin_mut().eval(inputs, &mut out);
        out
    }
}

impl Default for Ice40Model {
    fn default() -> Self {
        Self::new()
    }
}
