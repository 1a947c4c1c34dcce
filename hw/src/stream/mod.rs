//! Stream plumbing shared by several blocks.
pub mod fifo;
pub mod flag_queue;
pub mod packer;
pub mod ram;
pub mod ram_out;
pub mod slice;
pub mod width;
pub mod zero_extend;

pub use fifo::NicFifo;
pub use flag_queue::FlagQueue;
pub use packer::BytePacker;
pub use ram::NicRam;
pub use ram_out::{RamOutQueue, RamOutReg};
pub use slice::RegSlice;
pub use width::{Downsizer, Upsizer};
pub use zero_extend::ZeroExtend;
