//! The Verilated `nic_top`, one FFI call per clock cycle.
//!
//! Every port of `nic_top` (docs/interfaces.md) except `clock` is a field of [`Inputs`]
//! or [`Outputs`]; 1-bit ports are `bool`. [`Model::step`] runs one cycle:
//!
//! 1. drives all inputs; the outputs it returns are the values the design presents
//!    *during* this cycle, i.e. exactly what the design and the testbench sample at the
//!    coming rising edge. A valid/ready handshake in either direction happened at this
//!    edge iff both sides were 1 in the `Inputs` passed and the `Outputs` returned
//!    (combinational input-to-output paths included);
//! 2. clocks the edge (registers update).
//!
//! So a testbench computes the next cycle's inputs from the returned outputs without
//! any off-by-one bookkeeping.
//!
//! (What is Verilated is `nic_top` with a simulation-only register beside each output
//! that keeps its value of the cycle across the edge, so the step is one evaluation;
//! build.rs says why. With a waveform open, or `set_exact_eval`, the step evaluates clock
//! low and clock high apart and reads the ports: the same values.)

use std::path::Path;

#[cxx::bridge(namespace = "nicsim")]
mod ffi {
    /// Values driven into `nic_top` for one cycle (every input port except `clock`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Inputs {
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
        dma_rd_req_ready: bool,
        dma_rd_rsp_valid: bool,
        /// `dma_rd_rsp_data` bits 63:0 (bytes 0..8) and 127:64 (bytes 8..16).
        dma_rd_rsp_data_lo: u64,
        dma_rd_rsp_data_hi: u64,
        dma_rd_rsp_last: bool,
        dma_rd_rsp_error: bool,
        dma_rd_rsp_tag: u8,
        dma_wr_ready: bool,
        dma_wr_rsp_valid: bool,
        dma_wr_rsp_error: bool,
        dma_wr_rsp_tag: u8,
        tx_axis_tready: bool,
        rx_axis_tdata: u64,
        rx_axis_tkeep: u8,
        rx_axis_tlast: bool,
        rx_axis_tuser: bool,
        rx_axis_tvalid: bool,
    }

    /// Values `nic_top` presents during one cycle (every output port).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Outputs {
        s_axil_awready: bool,
        s_axil_wready: bool,
        s_axil_bresp: u8,
        s_axil_bvalid: bool,
        s_axil_arready: bool,
        s_axil_rdata: u32,
        s_axil_rresp: u8,
        s_axil_rvalid: bool,
        dma_rd_req_valid: bool,
        dma_rd_req_addr: u64,
        dma_rd_req_len: u16,
        dma_rd_req_tag: u8,
        dma_rd_rsp_ready: bool,
        dma_wr_valid: bool,
        dma_wr_addr: u64,
        /// `dma_wr_data` bits 63:0 and 127:64.
        dma_wr_data_lo: u64,
        dma_wr_data_hi: u64,
        dma_wr_strb: u16,
        dma_wr_last: bool,
        dma_wr_tag: u8,
        tx_axis_tdata: u64,
        tx_axis_tkeep: u8,
        tx_axis_tlast: bool,
        tx_axis_tuser: bool,
        tx_axis_tvalid: bool,
        rx_axis_tready: bool,
        irq: u32,
    }

    unsafe extern "C++" {
        include!("nic-sim/csrc/nic_model.h");

        type NicModel;

        fn new_model(config: u32, want_trace: bool) -> Result<UniquePtr<NicModel>>;
        fn model_variants(config: u32) -> u32;
        fn step(self: Pin<&mut NicModel>, inputs: &Inputs, outputs: &mut Outputs);
        fn open_trace(self: Pin<&mut NicModel>, path: &str) -> Result<()>;
        fn close_trace(self: Pin<&mut NicModel>);
        fn flush_trace(self: Pin<&mut NicModel>);
        fn traced_build(self: &NicModel) -> bool;
        fn set_exact_eval(self: Pin<&mut NicModel>, exact: bool);
        fn fast_clock_build(self: &NicModel) -> bool;
        fn settled_inputs_build(self: &NicModel) -> bool;
        fn cycles(self: &NicModel) -> u64;
    }
}

pub use ffi::{Inputs, Outputs};

// SAFETY: a model instance owns its VerilatedContext and touches no state shared with
// other instances, so it may move between threads (it is not Sync: one user at a time).
unsafe impl Send for ffi::NicModel {}

/// The two named hardware configurations (see nic_hw::Config).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HwConfig {
    /// 1 TX / 1 RX queue, no RDMA.
    Small,
    /// 8+ queues each way, RSS, offloads, RDMA.
    Full,
}

impl HwConfig {
    pub const ALL: [HwConfig; 2] = [HwConfig::Small, HwConfig::Full];
    pub fn name(self) -> &'static str {
        match self {
            HwConfig::Small => "small",
            HwConfig::Full => "full",
        }
    }
    /// How this build compiled the configuration's model (sim/build.rs `PGO_ENV`):
    /// `trained` (with the profile of scripts/build.sh's training runs), `plain` (without
    /// one: a `cargo build` alone, or a model changed since its training) or
    /// `instrumented` (counting for a training run).
    pub fn model_build(self) -> &'static str {
        match self {
            HwConfig::Small => env!("NIC_SIM_BUILD_SMALL"),
            HwConfig::Full => env!("NIC_SIM_BUILD_FULL"),
        }
    }
    fn index(self) -> u32 {
        match self {
            HwConfig::Small => 0,
            HwConfig::Full => 1,
        }
    }
}

impl std::str::FromStr for HwConfig {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "small" => Ok(HwConfig::Small),
            "full" => Ok(HwConfig::Full),
            other => Err(format!("unknown hardware configuration `{other}` (small, full)")),
        }
    }
}

impl std::fmt::Display for HwConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a waveform of `top` (`nic_top`, `nic_top_axi`) in `config` cannot be written: this
/// build holds no traced model of it (sim/build.rs `variants`: every traced model but
/// `small`'s `nic_top` is built only with `NIC_SIM_WAVES=all`).
pub(crate) fn untraced_error(top: &str, config: HwConfig) -> String {
    format!(
        "no waveform of `{config}`: this build's {top} model of it is untraced; \
         rebuild with NIC_SIM_WAVES=all in the environment (`make waves`) to trace every model"
    )
}

/// One Verilated `nic_top` instance with its own simulation context.
pub struct Model {
    inner: cxx::UniquePtr<ffi::NicModel>,
    outputs: Outputs,
    config: HwConfig,
    tracing: bool,
}

impl Model {
    /// A new model (state as after power-up: apply `reset` for a few cycles first).
    pub fn new(config: HwConfig) -> Result<Model, String> {
        Self::build(config, false)
    }

    /// A new model dumping every cycle to an FST waveform file at `wave`.
    pub fn with_wave(config: HwConfig, wave: &Path) -> Result<Model, String> {
        let mut m = Self::build(config, true)?;
        m.open_wave(wave)?;
        Ok(m)
    }

    /// A new model of the variant compiled with (`traced_build`) or without `--trace-fst`
    /// (falls back to the other variant if this build has only one; see `Model::new`).
    pub fn new_variant(config: HwConfig, traced_build: bool) -> Result<Model, String> {
        Self::build(config, traced_build)
    }

    fn build(config: HwConfig, want_trace: bool) -> Result<Model, String> {
        let inner = ffi::new_model(config.index(), want_trace).map_err(|e| e.what().to_string())?;
        Ok(Model { inner, outputs: Outputs::default(), config, tracing: false })
    }

    /// Whether this build can dump waveforms for `config`: `small` always, `full` only in a
    /// build made with `NIC_SIM_WAVES=all` (sim/build.rs `variants`).
    pub fn can_trace(config: HwConfig) -> bool {
        ffi::model_variants(config.index()) & 2 != 0
    }

    /// Whether this build also holds a variant compiled without `--trace-fst` for
    /// `config` (sim/build.rs `variants`: every build has one of each configuration).
    pub fn has_untraced_build(config: HwConfig) -> bool {
        ffi::model_variants(config.index()) & 1 != 0
    }

    /// Starts (or restarts) an FST dump into `path`.
    pub fn open_wave(&mut self, path: &Path) -> Result<(), String> {
        if !self.traced_build() {
            return Err(untraced_error("nic_top", self.config));
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

    /// Flushes buffered waveform data to the file.
    pub fn flush_wave(&mut self) {
        self.inner.pin_mut().flush_trace();
    }

    pub fn is_tracing(&self) -> bool {
        self.tracing
    }

    /// Whether this instance runs the variant compiled with `--trace-fst`.
    pub fn traced_build(&self) -> bool {
        self.inner.traced_build()
    }

    /// `true`: evaluate every cycle twice, clock low (the outputs read from the ports)
    /// and clock high, as with a waveform open. The default evaluates once per cycle and
    /// reads the outputs from the wrapper's edge registers; the results are the same (see
    /// csrc/nic_model_impl.h). For cross-checking only.
    pub fn set_exact_eval(&mut self, exact: bool) {
        self.inner.pin_mut().set_exact_eval(exact);
    }

    /// Whether this build evaluates a cycle once (build.rs found nothing acting at the
    /// falling edge of the clock), not twice.
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
    pub fn step(&mut self, inputs: &Inputs) -> &Outputs {
        self.inner.pin_mut().step(inputs, &mut self.outputs);
        &self.outputs
    }

    /// The outputs of the last cycle stepped (all zero before the first step).
    #[inline]
    pub fn outputs(&self) -> &Outputs {
        &self.outputs
    }

    /// Cycles stepped since creation.
    pub fn cycles(&self) -> u64 {
        self.inner.cycles()
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("config", &self.config)
            .field("cycles", &self.cycles())
            .field("tracing", &self.tracing)
            .finish()
    }
}
