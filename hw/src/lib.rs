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

/// Implements rust-hdl's `Logic` and `Block` for a type with no signals: a block's
/// build-time description (a CRC network's taps, a register's address and fields) that
/// a `LogicBlock` carries as a field and its hand-written `hdl()` reads.
macro_rules! fixed_at_build {
    ($t:ty) => {
        impl rust_hdl::prelude::Logic for $t {
            fn update(&mut self) {}
        }

        impl rust_hdl::prelude::Block for $t {
            fn connect_all(&mut self) {}
            fn update_all(&mut self) {}
            fn has_changed(&self) -> bool {
                false
            }
            fn accept(&self, _name: &str, _probe: &mut dyn rust_hdl::prelude::Probe) {}
        }
    };
}
pub(crate) use fixed_at_build;

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
