//! The RDMA transport engine (RoCEv2, reliable connected), one role per file as Linux's
//! rdma_rxe splits it:
//!
//! * [`engine`]: the engine's top: the roles below wired together, the `rdma` register
//!   block's registers and counters, and the arbiters of the QP table port, transmit and
//!   DMA writes.
//! * [`icrc`]: the invariant CRC of a frame as it streams, pipelined for 156.25 MHz,
//!   for the TX side (appended after the pad) and the RX side (checked before anything
//!   of the packet reaches memory).
//! * [`tables`]: the QP, MR and CQ context tables in block RAM, behind `TABLE_CMD` for the
//!   driver and a read-modify-write port per table for the engine's roles.
//! * [`completer`]: the WQEs on the wire per QP until their ACK; ACKs (coalesced) and
//!   NAKs into CQEs, READ responses judged (the responder lands them), a failed QP moved
//!   to ERR and flushed.
//! * [`cq`]: the completion queues' writer: CQEs into their rings with the owner bit,
//!   PI and OVERFLOW in the CQ table, interrupts armed by the CQ doorbell and moderated.
//! * [`mr_check`]: the protection check (key, PD, access, range) with its own copy of the
//!   MR table, one check per cycle.
//! * [`requester`]: send queue WQEs into request packets, their scatter-gather lists
//!   checked first, QPs served a packet each in turn.
//! * [`responder`]: request packets into host memory after their checks (SEND, WRITE,
//!   WRITE with immediate; a READ's RETH), the receive WQEs they take, the ACKs, NAKs
//!   and READ responses owed; and the READ responses the completer lets land.
//! * [`response_tx`]: what the responder owes into packets: ACKs, NAKs, and READ
//!   responses cut at the path MTU with their payload read from host memory.
//! * [`opcode`]: the RC opcode table decoded (extended headers, payload), shared by all.
//! * [`path_mtu`]: a QP's path MTU code decoded, and a length cut by it, shared by all.
//! * [`rx_parse`]: RoCEv2 receive parsing: header fields, the payload realigned, a verdict
//!   with the ICRC, so nothing of a bad packet reaches memory.
//! * [`tx_build`]: RoCEv2 transmit framing: headers from a request, the payload realigned,
//!   the IPv4 checksum, the ICRC put in behind a FIFO so the wire sees no gap.
//! * `crate::mac::xor_net`: constant GF(2) matrices as XOR networks, the CRC's building block (shared with the MAC).

pub mod completer;
pub mod cq;
pub mod engine;
pub mod icrc;
pub mod mr_check;
pub mod opcode;
pub mod path_mtu;
pub mod requester;
pub mod responder;
pub mod response_tx;
pub mod rx_parse;
pub mod tables;
pub mod tx_build;

pub use completer::RdmaCompleter;
pub use cq::{RdmaCqRun, RdmaCqWriter};
pub use engine::RdmaEngine;
pub use icrc::RdmaIcrc;
pub use mr_check::RdmaMrCheck;
pub use opcode::RdmaOpcodeInfo;
pub use path_mtu::RdmaPathMtu;
pub use requester::RdmaRequester;
pub use responder::RdmaResponder;
pub use response_tx::RdmaResponseTx;
pub use rx_parse::RdmaRxParse;
pub use tables::RdmaTables;
pub use tx_build::RdmaTxBuild;
