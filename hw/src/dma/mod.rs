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
