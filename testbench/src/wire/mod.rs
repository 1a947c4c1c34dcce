//! Packet views in smoltcp's shape: a zero-copy `Frame<T>` over a byte buffer with field
//! ranges kept in a private `field` module, `new_checked` for untrusted bytes, setters
//! only where the buffer is mutable, and a `Repr` with `parse`/`emit`/`buffer_len`.

pub mod ethernet;

pub use ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};

/// Why bytes could not be viewed as a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Shorter than the header.
    Truncated,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Truncated => f.write_str("buffer shorter than the header"),
        }
    }
}
impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

pub(crate) type Field = core::ops::Range<usize>;
pub(crate) type Rest = core::ops::RangeFrom<usize>;
