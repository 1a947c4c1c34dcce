//! `nic-driver`: a user-space driver for the NIC, in the shape of ixy.rs.
//!
//! * [`device`]: the [`Device`] trait, the only way the driver touches a NIC
//!   (registers, DMA memory, interrupts); `nic_sim::SimDevice` implements it.
//! * [`regs`]: register verbs over any `Device`.
//! * [`discovery`]: walks the ID/VERSION/NEXT block chain.
//! * [`ring`]: ring index arithmetic and the descriptor layout.
//! * [`pool`]: DMA buffer pools.
//! * [`txq`], [`rxq`]: the queues.
//! * [`offload`]: [`TxOffload`], a frame's TX offload request (checksums, TSO) and its
//!   context descriptor (docs/tx-offload.md).
//! * [`serial`]: the board's serial register bridge protocol (request encoders, answer
//!   decoders), and [`serial_device`]: `SerialDevice`, the `Device` over the FPGA board's
//!   UART (a serial port, or the simulated board's pins).
//! * [`nic`]: [`Nic`], the burst API (`tx_burst`, `rx_burst`, `tx_reap`), interrupt and
//!   polling modes, error reporting, control and statistics.
//!
//! All addresses and layouts come from `nic_regmap` (docs/regmap.md is generated from it).
//!
//! # How the driver and the NIC share a ring
//! (regmap `Q_*` registers and `desc`; docs/regmap.md "Descriptors")
//!
//! * A ring is `2^Q_SIZE_LOG2` 16-byte descriptors in DMA memory. `Q_TAIL` (driver) and
//!   `Q_HEAD` (NIC) are free-running 16-bit indices; the ring holds `tail - head`
//!   descriptors and is full when that equals its size. [`ring::Ring`] is the only
//!   place that does this arithmetic.
//! * TX: each segment of a [`TxFrame`] becomes one descriptor (address, length, `TX_EOP`
//!   on the last of a frame). A burst is written to the ring, then `Q_TAIL` once; the
//!   last descriptor of the burst carries `TX_REPORT_STATUS`, and the NIC writes its
//!   bytes 8..16 back with `DONE` once the data was read. `tx_reap` frees buffers up to
//!   the newest `DONE`, or up to `Q_HEAD` when no `DONE` is new; a `REPORT_STATUS` slot
//!   is reused only after its write-back arrived, so a late write-back can never land
//!   on a reposted descriptor.
//! * TX offloads (docs/tx-offload.md): a [`TxFrame`] with an offload request
//!   ([`TxFrame::with_offload`], [`TxOffload::generic`], [`TxOffload::full_csum`],
//!   [`TxOffload::tcp_tso`]) is posted as one context descriptor (`TX_CTX`, no buffer, one
//!   ring slot, never `TX_REPORT_STATUS`) followed by its data descriptors; the NIC
//!   completes the context descriptor with its frame. A request the NIC refuses is not
//!   sent: its write-backs carry `TX_ERROR`, the queue keeps running and
//!   [`Stats::tx_offload_errors`] counts it; TSO segments count in `tx_frames`/`tx_bytes`
//!   each, and in [`Stats::tx_tso_segments`].
//! * RX: the driver posts empty buffers (address, buffer length). The NIC writes a frame
//!   (FCS stripped) and then bytes 8..16: frame length, `DONE | RX_EOP`, info. `rx_burst`
//!   takes frames in ring order while `DONE` is set, copies them out, and reposts the
//!   buffers with one `Q_TAIL` write.
//! * Errors: a queue the NIC stopped shows `Q_STATUS.ERROR` with `ERROR_CODE`
//!   ([`QueueError`]); the burst calls report it as [`DriverError::QueueStopped`] once
//!   no completion is left to hand out, and [`Nic::restart_queue`] recovers the queue.
//!   Frames the NIC drops (bad FCS, runt, oversize, PHY error, no buffer) never reach the
//!   driver; [`Nic::stats`] counts them.
//! * Interrupts: vector `q` is TX queue `q`, vector `RX_IRQ_BASE + q` RX queue `q`, with
//!   per-queue moderation ([`Moderation`]) where the build has it (`FEATURES.IRQ_MODERATION`;
//!   without it every completion raises the vector and only that is accepted). In [`IrqMode::Interrupt`], [`Nic::wait_rx`]
//!   unmasks the vector, sleeps in [`Device::wait_irq`] and clears it (W1C) afterwards;
//!   in [`IrqMode::Polling`] it polls the ring and lets the device idle in between.
//!
//! ```no_run
//! # fn demo<D: nic_driver::Device>(dev: D) -> Result<(), nic_driver::DriverError> {
//! use nic_driver::{Nic, TxFrame};
//! let mut nic = Nic::open(dev)?;
//! nic.set_loopback(true)?;
//! let frame = [0u8; 60];
//! let sent = nic.tx_burst(&[TxFrame::new(&frame)])?;
//! let got = nic.rx_collect(sent, 100_000)?;
//! # Ok(()) }
//! ```

pub mod device;
pub mod discovery;
pub mod dma_window;
pub mod error;
pub mod host_link;
pub mod nic;
pub mod offload;
pub mod pool;
pub mod regs;
pub mod ring;
pub mod rxclass;
pub mod rxq;
pub mod serial;
pub mod serial_device;
pub mod stats;
pub mod txq;
pub mod verbs;

pub use device::{Device, DeviceError, DmaFault, DmaRegion};
pub use discovery::{FoundBlock, Layout};
pub use error::{Dir, DriverError};
pub use nic::{IrqMode, Moderation, Nic, NicConfig, QueueState, DEFAULT_BUF_LEN, MAX_BUF_LEN};
pub use nic_regmap::QueueError;
pub use offload::TxOffload;
pub use regs::RegisterVerbs;
pub use rxclass::{MacFilter, RxFilterMode};
pub use rxq::RxFrame;
pub use stats::Stats;
pub use txq::{TxFrame, TxSegment};
