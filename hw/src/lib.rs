//! The NIC's RTL, written with rust-hdl 0.46 and exported to Verilog.
//!
//! The folders follow the block diagram (docs/architecture.md):
//! * `csr`    — the AXI4-Lite register block, decoded from `nic-regmap`'s tables;
//! * `dma`    — descriptor fetch, the TX and RX queue engines, the DMA port arbiters,
//!   interrupt moderation;
//! * `stream` — stream plumbing shared by several blocks: a FIFO with reset, the
//!   scatter-gather byte packer;
//! * `mac`    — FCS generation and checking (`crc`), MAC TX, MAC RX, the loopback switch;
//! * `rdma`   — the RoCEv2 transport engine (so far: the pipelined ICRC);
//! * `top`    — `nic_top`, wiring all of the above to the four external interfaces.
//!
//! rust-hdl has no reset; every stateful block here takes an explicit synchronous
//! `reset` input and honours it (see ../shared/notes/rust-hdl.md).

pub mod board;
pub mod config;
pub mod csr;
pub mod dma;
pub mod export;
pub mod mac;
pub mod rdma;
pub mod rx;
pub mod stream;
pub mod top;
pub mod top_axi;
pub mod tx;

pub use config::Config;
