//! The RDMA transport engine (RoCEv2, reliable connected), one role per file as Linux's
//! rdma_rxe splits it. Built so far:
//!
//! * [`icrc`]: the invariant CRC of a frame as it streams, pipelined for 156.25 MHz,
//!   for the TX side (appended after the pad) and the RX side (checked before anything
//!   of the packet reaches memory).
//! * [`xor_net`]: constant GF(2) matrices as XOR networks, the CRC's building block.

pub mod icrc;
pub mod xor_net;

pub use icrc::RdmaIcrc;
