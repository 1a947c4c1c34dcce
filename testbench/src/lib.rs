//! `nic-testbench`: golden models and the traffic engines the suites and the CLI use.
//!
//! * [`crc`]: CRC-32 (IEEE 802.3), bitwise and table-driven.
//! * [`fcs`]: Ethernet FCS append/check and the receiver's residue check.
//! * [`wire`]: header views in smoltcp's shape (Ethernet, VLAN, IPv4, IPv6, TCP, UDP).
//! * [`gen`]: seeded random frames and scatter-gather splits.
//! * [`impair`]: an impaired wire (loss, duplication, reordering, corruption, a cut
//!   link), seeded, for the RDMA reliability tests.
//! * [`pcap`]: a pcap writer and tshark's FCS verdicts, for independent judgement.
//! * [`traffic`]: loopback through the real driver, checked byte for byte.
//! * [`refnic`]: a behavioural model of the whole NIC behind the driver's `Device`
//!   trait, written from the documented behaviour (docs/interfaces.md, the regmap).
//! * [`checksum`]: the Internet checksum and TCP/UDP pseudo-headers (RFC 1071).
//! * [`toeplitz`]: the RSS Toeplitz hash and the Microsoft verification suite.
//! * [`rxclass`]: the receive classification (MAC filter, parser, checksum verdicts,
//!   RSS and steering) of docs/rx-classification.md.
//! * [`rxgen`]: seeded random RX traffic and classifier configurations for the
//!   differential tests, and the Microsoft RSS suite as real frames.
//! * [`txoffload`]: the TX offloads (context descriptor, generic and full checksum
//!   offload, TSO, refused requests) of docs/tx-offload.md.
//! * [`txgen`]: seeded random TX offload requests for the differential tests, and TCP
//!   payload reassembly to check TSO.
//! * [`roce`]: the RoCEv2 golden model: opcode table, ICRC, packets, PSNs, segmentation.
//! * [`netns`]: Linux network namespaces, kernel interface counters and TCP transfers
//!   between namespaces with SHA-256 on both ends.
//! * [`tap_session`]: a running `nic tap` with its interfaces in two namespaces.
//! * [`rdma_perf_session`]: two namespaces joined by kernel bridges for `nic rdma-perf`.
//! * [`backend`]: opens the simulated RTL or the model for the suites.

pub mod backend;
pub mod checksum;
pub mod crc;
pub mod fcs;
pub mod gen;
pub mod impair;
pub mod netns;
pub mod pcap;
pub mod rdma_pair;
pub mod rdma_perf_session;
pub mod refnic;
pub mod roce;
pub mod rxclass;
pub mod rxsuite;
pub mod rxgen;
pub mod tap_session;
pub mod toeplitz;
pub mod traffic;
pub mod txgen;
pub mod txoffload;
pub mod wire;

pub use traffic::WireAccess;
