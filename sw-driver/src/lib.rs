//! `nic-driver`: a user-space driver for the NIC, in the shape of ixy.rs.
//!
//! * [`device`]: the [`Device`] trait, the only way the driver touches a NIC
//!   (registers, DMA memory, interrupts); `nic_sim::SimDevice` implements it.
//! * [`regs`]: register verbs over any `Device`.
//! * [`discovery`]: walks the ID/VERSION/NEXT block chain.
//! * [`ring`]: ring index arithmetic and the descriptor layout.
//! * [`pool`]: DMA buffer pools.
//! * [`txq`], [`rxq`]: the queues.
//! * [`nic`]: [`Nic`], the burst API (`tx_burst`, `rx_burst`, `tx_reap`), interrupt and
//!   polling modes, error reporting, control and statistics.
//!
//! All addresses and layouts come from `nic_regmap`.
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
pub mod error;
pub mod nic;
pub mod pool;
pub mod regs;
pub mod ring;
pub mod rxq;
pub mod stats;
pub mod txq;

pub use device::{Device, DeviceError, DmaFault, DmaRegion};
pub use discovery::{FoundBlock, Layout};
pub use error::{Dir, DriverError};
pub use nic::{IrqMode, Moderation, Nic, NicConfig, QueueState, DEFAULT_BUF_LEN, MAX_BUF_LEN};
pub use nic_regmap::QueueError;
pub use regs::RegisterVerbs;
pub use rxq::RxFrame;
pub use stats::Stats;
pub use txq::{TxFrame, TxSegment};
