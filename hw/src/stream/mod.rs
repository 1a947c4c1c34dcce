//! Stream plumbing shared by several blocks.
pub mod fifo;
pub mod packer;

pub use fifo::NicFifo;
pub use packer::BytePacker;
