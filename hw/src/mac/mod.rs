//! The MAC: FCS insertion on TX, FCS check and strip on RX, and the loopback switch
//! (a plain mux in `top`).
pub mod crc;
pub mod crc_pipe;
pub mod rx;
pub mod tx;
pub mod xor_net;

pub use crc::{Crc32x64, CrcHalfRateFeed};
pub use crc_pipe::Crc32Pipe;
pub use rx::MacRx;
pub use tx::MacTx;

/// `MacRx::m_status` codes, also the RX drop reasons counted in the stats block.
pub mod rx_status {
    pub const OK: u64 = 0;
    pub const BAD_FCS: u64 = 1;
    pub const RUNT: u64 = 2;
    pub const OVERSIZE: u64 = 3;
    pub const PHY_ERROR: u64 = 4;
}
