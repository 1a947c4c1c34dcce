//! Stream plumbing shared by several blocks.
pub mod fifo;
pub mod packer;
pub mod width;

pub use fifo::NicFifo;
pub use packer::BytePacker;
pub use width::{Downsizer, Upsizer};
