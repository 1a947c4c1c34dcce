//! TX offloads (docs/tx-offload.md) between the TX queue engine and MAC TX.
//!
//! * `csum`    — one's complement sum of a byte region of a streaming frame;
//! * `finish`  — checksum completion and the per-segment field values;
//! * `patch`   — which bytes of an output beat a header field rewrites;
//! * `reader`  — read-out of the frame buffer and header template, patched, to MAC TX;
//! * `offload` — the wrapper: input, request checks, TSO segmenter and packer, frame
//!   buffer, event and record FIFOs, verdicts.

pub mod csum;
pub mod finish;
pub mod offload;
pub mod patch;
pub mod reader;

pub use csum::TxCsum;
pub use finish::TxFinish;
pub use offload::TxOffload;
pub use patch::TxPatch;
pub use reader::TxReader;
