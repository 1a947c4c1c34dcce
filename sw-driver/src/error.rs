//! Everything the driver can report, with messages a person can act on.

use crate::device::DeviceError;
use nic_regmap::QueueError;
use std::fmt;

/// Direction of a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Tx,
    Rx,
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dir::Tx => "TX",
            Dir::Rx => "RX",
        })
    }
}

/// Errors of the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverError {
    /// The backend failed a register or memory access.
    Device(DeviceError),
    /// A block in the register chain does not carry the ID the driver expects.
    BadBlockId { block: &'static str, base: u32, expected: u32, found: u32 },
    /// The chain does not contain a block the driver needs.
    MissingBlock { block: &'static str },
    /// The chain is malformed (loops, goes backwards or runs off the register space).
    BadChain { at: u32, next: u32 },
    /// A block's major version is one this driver does not know.
    UnsupportedVersion { block: &'static str, version: u32 },
    /// The NIC stopped a queue; `code` says why (`Q_STATUS.ERROR_CODE`).
    QueueStopped { dir: Dir, queue: u32, code: QueueError },
    /// The NIC reported an error code this driver does not know.
    UnknownQueueError { dir: Dir, queue: u32, raw: u32 },
    /// A queue that does not exist or is not enabled.
    NoSuchQueue { dir: Dir, queue: u32 },
    /// Waiting for a register condition took longer than allowed.
    Timeout { what: String, cycles: u64 },
    /// A configuration the hardware or the driver cannot honour.
    InvalidConfig(String),
    /// A frame the driver refuses to post (nothing of the burst was queued).
    InvalidFrame { index: usize, reason: String },
    /// A descriptor ring has no room for the request.
    RingFull { dir: Dir, queue: u32 },
    /// The NIC did something its interface does not allow (e.g. `Q_HEAD` past `Q_TAIL`).
    NicMisbehaved(String),
    /// An RDMA verb refused (`crate::verbs`).
    Rdma(crate::verbs::RdmaError),
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Device(e) => write!(f, "device error: {e}"),
            Self::BadBlockId { block, base, expected, found } => write!(
                f,
                "register block {block} at {base:#06x} has ID {found:#010x} ({}), expected {expected:#010x} ({}): not this NIC or not this bitstream",
                ascii(*found),
                ascii(*expected)
            ),
            Self::MissingBlock { block } => write!(f, "register block {block} not found in the block chain"),
            Self::BadChain { at, next } => write!(f, "register block chain broken: block at {at:#06x} points to {next:#06x}"),
            Self::UnsupportedVersion { block, version } => {
                write!(f, "register block {block} has version {}.{}, this driver knows major version 1", version >> 16, version & 0xffff)
            }
            Self::QueueStopped { dir, queue, code } => write!(
                f,
                "{dir} queue {queue} stopped by the NIC: {} (Q_STATUS.ERROR_CODE {} = {code:?}); disable and re-enable the queue to recover",
                code.describe(),
                *code as u8
            ),
            Self::UnknownQueueError { dir, queue, raw } => {
                write!(f, "{dir} queue {queue} stopped by the NIC with unknown error code {raw}")
            }
            Self::NoSuchQueue { dir, queue } => write!(f, "{dir} queue {queue} does not exist or is not enabled"),
            Self::Timeout { what, cycles } => write!(f, "timed out after {cycles} cycles waiting for {what}"),
            Self::InvalidConfig(s) => write!(f, "invalid configuration: {s}"),
            Self::InvalidFrame { index, reason } => write!(f, "frame {index} of the burst rejected: {reason}"),
            Self::RingFull { dir, queue } => write!(f, "{dir} queue {queue}: descriptor ring full"),
            Self::NicMisbehaved(s) => write!(f, "NIC broke its interface contract: {s}"),
            Self::Rdma(e) => write!(f, "RDMA: {e}"),
        }
    }
}

fn ascii(v: u32) -> String {
    v.to_be_bytes().iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect()
}

impl std::error::Error for DriverError {}

impl From<crate::verbs::RdmaError> for DriverError {
    fn from(e: crate::verbs::RdmaError) -> Self {
        Self::Rdma(e)
    }
}

impl From<DeviceError> for DriverError {
    fn from(e: DeviceError) -> Self {
        Self::Device(e)
    }
}
