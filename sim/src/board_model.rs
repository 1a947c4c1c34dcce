//! The Verilated board layer `ecpix5_io` (hw/src/board/ecpix5.rs) of the `small`
//! configuration: the NIC core with its host memory, UART bridge and RGMII adapter,
//! the reset synchronizers and DDR cells, everything of the ECPIX-5 bitstream but the
//! PLL, whose three clocks the caller drives. One [`BoardModel::eval`] per event: the
//! caller owns time (crate::board runs the clocks, the PHY and the UART line).
//!
//! Its parameters are the simulation ones (`nic_hw::board::ecpix5::SIM_UART_DIVISOR`
//! core cycles per UART bit, PHY reset of 2^`SIM_PHY_RESET_BITS` cycles).

#[cxx::bridge(namespace = "nicsim")]
mod ffi {
    /// Every input pin of `ecpix5_io`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct BoardInputs {
        clk_core: bool,
        clk_tx: bool,
        clk_tx90: bool,
        pll_locked: bool,
        rst_n: bool,
        uart_rxd: bool,
        eth_rxc: bool,
        eth_rx_ctl: bool,
        eth_rxd: u8,
    }

    /// Every output pin of `ecpix5_io` the test bench looks at (`eth_mdc` is constant,
    /// `led_g`/`led_b` are held off).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct BoardOutputs {
        uart_txd: bool,
        eth_txc: bool,
        eth_tx_ctl: bool,
        eth_txd: u8,
        eth_rst_n: bool,
        led_r: u8,
    }

    unsafe extern "C++" {
        include!("nic-sim/csrc/board_model.h");
        type BoardModel;
        fn new_board_model() -> UniquePtr<BoardModel>;
        fn eval(self: Pin<&mut BoardModel>, inputs: &BoardInputs, outputs: &mut BoardOutputs, time_ps: u64);
        fn open_trace(self: Pin<&mut BoardModel>, path: &str) -> Result<()>;
        fn close_trace(self: Pin<&mut BoardModel>);
    }
}

pub use ffi::{BoardInputs, BoardOutputs};

/// The Verilated `ecpix5_io`.
pub struct BoardModel {
    inner: cxx::UniquePtr<ffi::BoardModel>,
}

impl BoardModel {
    pub fn new() -> Self {
        BoardModel { inner: ffi::new_board_model() }
    }
    /// Drives `inputs`, evaluates at `time_ps`, returns the outputs.
    pub fn eval(&mut self, inputs: &BoardInputs, time_ps: u64) -> BoardOutputs {
        let mut out = BoardOutputs::default();
        self.inner.pin_mut().eval(inputs, &mut out, time_ps);
        out
    }
    /// Starts an FST waveform (time unit 1 ps).
    pub fn open_trace(&mut self, path: &std::path::Path) -> Result<(), String> {
        self.inner.pin_mut().open_trace(&path.to_string_lossy()).map_err(|e| e.to_string())
    }
    pub fn close_trace(&mut self) {
        self.inner.pin_mut().close_trace();
    }
}

impl Default for BoardModel {
    fn default() -> Self {
        Self::new()
    }
}
