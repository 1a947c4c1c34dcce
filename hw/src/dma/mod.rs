//! DMA: descriptor fetch, the TX and RX queue engines, interrupt moderation and the
//! arbiters that share the host-memory port (docs/interfaces.md) between them.
pub mod axi_bridge;
pub mod desc_fetch;
pub mod irq_moderation;
pub mod rx_engine;
pub mod tx_engine;

pub use axi_bridge::DmaAxiBridge;
pub use desc_fetch::DescFetch;
pub use irq_moderation::IrqModeration;
pub use rx_engine::RxEngine;
pub use tx_engine::TxEngine;

use rust_hdl::prelude::Bits;

/// A bus address inside the engines: a `DMA_ADDR_BITS` (44-bit) ring base or buffer
/// address plus an offset of at most 64 KiB, so adding the offset never wraps. The DMA
/// port itself carries 64-bit addresses; the bits above these are 0.
pub type BusAddr = Bits<48>;

// The engines and `DescFetch` read the address field as bits 43:0 and the too-wide flag
// from bit 44, and `BusAddr` leaves 4 bits above for offsets.
const _: () = assert!(nic_regmap::DMA_ADDR_BITS == 44);
