//! The Verilated `nic_top_axi` (the NIC with its DMA port bridged to a 128-bit AXI4
//! master, `nic_hw::dma::DmaAxiBridge`), one FFI call per clock cycle.
//!
//! Same conventions as [`crate::model`]: every port except `clock` is a field of
//! [`AxiInputs`] or [`AxiOutputs`], 1-bit ports are `bool`, 128-bit data travels as
//! `_lo` (bits 63:0, bytes 0..8) and `_hi` (bits 127:64). [`AxiModel::step`] drives the
//! inputs, clocks the edge and returns the outputs of this cycle (what both sides
//! sampled at that rising edge), as `Model::step` does. A handshake happened
//! at this edge iff valid and ready were both 1 in the inputs passed and outputs returned.
//!
//! The model is the exported `nic_top_axi` Verilated whole, behind the simulation-only
//! output registers of build.rs (which say why), with the DMA port
//! between `nic_top` and the bridge brought out for [`AxiOutputs`]
//! (csrc/nic_axi_model_impl.h). Available for every configuration `Model` is.

use std::path::Path;

use crate::model::HwConfig;

#[cxx::bridge(namespace = "nicsim")]
mod ffi {
    /// Values driven into `nic_top_axi` for one cycle (every input port except `clock`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct AxiInputs {
        reset: bool,
        s_axil_awaddr: u16,
        s_axil_awvalid: bool,
        s_axil_wdata: u32,
        s_axil_wstrb: u8,
        s_axil_wvalid: bool,
        s_axil_bready: bool,
        s_axil_araddr: u16,
        s_axil_arvalid: bool,
        s_axil_rready: bool,
        m_axi_arready: bool,
        /// `m_axi_rdata` bits 63:0 (bytes 0..8) and 127:64 (bytes 8..16).
        m_axi_rdata_lo: u64,
        m_axi_rdata_hi: u64,
        m_axi_rresp: u8,
        m_axi_rlast: bool,
        m_axi_rvalid: bool,
        m_axi_awready: bool,
        m_axi_wready: bool,
        m_axi_bresp: u8,
        m_axi_bvalid: bool,
        tx_axis_tready: bool,
        rx_axis_tdata: u64,
        rx_axis_tkeep: u8,
        rx_axis_tlast: bool,
        rx_axis_tuser: bool,
        rx_axis_tvalid: bool,
    }

    /// Values `nic_top_axi` presents during one cycle (every output port).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct AxiOutputs {
        s_axil_awready: bool,
        s_axil_wready: bool,
        s_axil_bresp: u8,
        s_axil_bvalid: bool,
        s_axil_arready: bool,
        s_axil_rdata: u32,
        s_axil_rresp: u8,
        s_axil_rvalid: bool,
        m_axi_araddr: u64,
        m_axi_arlen: u8,
        m_axi_arsize: u8,
        m_axi_arburst: u8,
        m_axi_arvalid: bool,
        m_axi_rready: bool,
        m_axi_awaddr: u64,
        m_axi_awlen: u8,
        m_axi_awsize: u8,
        m_axi_awburst: u8,
        m_axi_awvalid: bool,
        /// `m_axi_wdata` bits 63:0 and 127:64.
        m_axi_wdata_lo: u64,
        m_axi_wdata_hi: u64,
        m_axi_wstrb: u16,
        m_axi_wlast: bool,
        m_axi_wvalid: bool,
        m_axi_bready: bool,
        tx_axis_tdata: u64,
        tx_axis_tkeep: u8,
        tx_axis_tlast: bool,
        tx_axis_tuser: bool,
        tx_axis_tvalid: bool,
        rx_axis_tready: bool,
        irq: u32,
        /// The DMA port between `nic_top` and the bridge inside `nic_top_axi` (not ports
        /// of `nic_top_axi`; for checking the NIC's side of it): read requests ...
        dma_rd_req_valid: bool,
        dma_rd_req_ready: bool,
        dma_rd_req_addr: u64,
        dma_rd_req_len: u16,
        dma_rd_req_tag: u8,
        /// ... and write beats.
        dma_wr_valid: bool,
        dma_wr_ready: bool,
        dma_wr_addr: u64,
        dma_wr_data_lo: u64,
        dma_wr_data_hi: u64,
        dma_wr_strb: u16,
        dma_wr_last: bool,
        dma_wr_tag: u8,
    }

    unsafe extern "C++" {
        include!("nic-sim/csrc/nic_axi_model.h");

        type AxiNicModel;

        fn new_axi_model(config: u32, want_trace: bool) -> Result<UniquePtr<AxiNicModel>>;
        fn axi_model_variants(config: u32) -> u32;
        fn step(self: Pin<&mut AxiNicModel>, inputs: &AxiInputs, outputs: &mut AxiOutputs);
        fn open_trace(self: Pin<&mut AxiNicModel>, path: &str) -> Result<()>;
        fn close_trace(self: Pin<&mut AxiNicModel>);
        fn flush_trace(self: Pin<&mut AxiNicModel>);
        fn traced_build(self: &AxiNicModel) -> bool;
        fn set_exact_eval(self: Pin<&mut AxiNicModel>, exact: bool);
        fn fast_clock_build(self: &AxiNicModel) -> bool;
        fn settled_inputs_build(self: &AxiNicModel) -> bool;
        fn cycles(self: &AxiNicModel) -> u64;
        fn max_settle_rounds(self: &AxiNicModel) -> u32;
    }
}

pub use ffi::{AxiInputs, AxiOutputs};

// SAFETY: as for `NicModel`: an instance owns its VerilatedContext and shares no state.
unsafe impl Send for ffi::AxiNicModel {}

impl AxiInputs {
    /// `m_axi_rdata` as one 128-bit value (byte i = lane i).
    #[inline]
    pub fn rdata(&self) -> u128 {
        self.m_axi_rdata_lo as u128 | (self.m_axi_rdata_hi as u128) << 64
    }
    #[inline]
    pub fn set_rdata(&mut self, v: u128) {
        self.m_axi_rdata_lo = v as u64;
        self.m_axi_rdata_hi = (v >> 64) as u64;
    }
}

impl AxiOutputs {
    /// `m_axi_wdata` as one 128-bit value (byte i = lane i).
    #[inline]
    pub fn wdata(&self) -> u128 {
        self.m_axi_wdata_lo as u128 | (self.m_axi_wdata_hi as u128) << 64
    }
}

fn index(config: HwConfig) -> u32 {
    match config {
        HwConfig::Small => 0,
        HwConfig::Full => 1,
    }
}

/// One Verilated `nic_top_axi` instance with its own simulation context.
pub struct AxiModel {
    inner: cxx::UniquePtr<ffi::AxiNicModel>,
    outputs: AxiOutputs,
    config: HwConfig,
    tracing: bool,
}

impl AxiModel {
    /// A new model (apply `reset` for a few cycles first).
    pub fn new(config: HwConfig) -> Result<AxiModel, String> {
        Self::build(config, false)
    }

    /// A new model dumping every cycle to an FST waveform file at `wave`.
    pub fn with_wave(config: HwConfig, wave: &Path) -> Result<AxiModel, String> {
        let mut m = Self::build(config, true)?;
        m.open_wave(wave)?;
        Ok(m)
    }

    fn build(config: HwConfig, want_trace: bool) -> Result<AxiModel, String> {
        let inner = ffi::new_axi_model(index(config), want_trace).map_err(|e| e.what().to_string())?;
        Ok(AxiModel { inner, outputs: AxiOutputs::default(), config, tracing: false })
    }

    /// Whether this build holds a `nic_top_axi` model of `config`.
    pub fn available(config: HwConfig) -> bool {
        ffi::axi_model_variants(index(config)) != 0
    }

    /// Whether this build can dump waveforms of the AXI model of `config`.
    pub fn can_trace(config: HwConfig) -> bool {
        ffi::axi_model_variants(index(config)) & 2 != 0
    }

    /// Starts (or restarts) an FST dump into `path`.
    pub fn open_wave(&mut self, path: &Path) -> Result<(), String> {
        if !self.traced_build() {
            return Err(crate::model::untraced_error("nic_top_axi", self.config));
        }
        let p = path.to_str().ok_or_else(|| format!("non-UTF-8 path {}", path.display()))?;
        self.inner.pin_mut().open_trace(p).map_err(|e| e.what().to_string())?;
        self.tracing = true;
        Ok(())
    }

    /// Stops the FST dump (also done on drop).
    pub fn close_wave(&mut self) {
        self.inner.pin_mut().close_trace();
        self.tracing = false;
    }

    pub fn flush_wave(&mut self) {
        self.inner.pin_mut().flush_trace();
    }

    pub fn is_tracing(&self) -> bool {
        self.tracing
    }

    pub fn traced_build(&self) -> bool {
        self.inner.traced_build()
    }

    /// See [`crate::Model::set_exact_eval`].
    pub fn set_exact_eval(&mut self, exact: bool) {
        self.inner.pin_mut().set_exact_eval(exact);
    }

    pub fn fast_clock_build(&self) -> bool {
        self.inner.fast_clock_build()
    }

    /// Whether this build runs only the rising edge of a cycle whose inputs equal the
    /// previous cycle's (build.rs `settled_input_phases`), not Verilator's input region too.
    pub fn settled_inputs_build(&self) -> bool {
        self.inner.settled_inputs_build()
    }

    pub fn config(&self) -> HwConfig {
        self.config
    }

    /// One clock cycle (see the module doc). Returns the outputs of this cycle.
    #[inline]
    pub fn step(&mut self, inputs: &AxiInputs) -> &AxiOutputs {
        self.inner.pin_mut().step(inputs, &mut self.outputs);
        &self.outputs
    }

    /// The outputs of the last cycle stepped (all zero before the first step).
    #[inline]
    pub fn outputs(&self) -> &AxiOutputs {
        &self.outputs
    }

    /// Cycles stepped since creation.
    pub fn cycles(&self) -> u64 {
        self.inner.cycles()
    }

    /// Always 0 now. (The model used to be a `nic_top` model and a bridge model whose
    /// DMA port C++ settled every clock-low phase; this was the most extra rounds that
    /// took. `nic_top_axi` is one Verilated model now: nothing to settle.)
    pub fn max_settle_rounds(&self) -> u32 {
        self.inner.max_settle_rounds()
    }
}

impl std::fmt::Debug for AxiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AxiModel")
            .field("config", &self.config)
            .field("cycles", &self.cycles())
            .field("tracing", &self.tracing)
            .finish()
    }
}
