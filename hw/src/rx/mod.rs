//! RX classification (docs/rx-classification.md): what the receive side decides about
//! each frame before the RX dispatcher hands it to a queue.
//!
//! * `parser`     — Ethernet, VLAN, IPv4/IPv6, TCP/UDP over the first 104 bytes;
//! * `filter`     — destination MAC: exact table, multicast hash, modes, steering;
//! * `rss`        — hash type, Toeplitz hash, indirection table;
//! * `csum`       — IPv4 header and TCP/UDP checksum verdicts, on the streaming frame;
//! * `classifier` — the wrapper: data FIFO, per-frame record FIFOs, flow control;
//! * `lean`       — the classifier of a build without RSS and checksum validation: the
//!   filter alone.

pub mod classifier;
pub mod csum;
pub mod filter;
pub mod lean;
pub mod parser;
pub mod rss;

pub use classifier::RxClassifier;
pub use csum::RxCsum;
pub use filter::{McastIndex, RxFilter};
pub use lean::RxLeanClassifier;
pub use parser::RxParser;
pub use rss::{RxRss, ToeplitzStep};
