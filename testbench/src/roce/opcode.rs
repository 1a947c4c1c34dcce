//! The RoCE opcode table (reliable connected transport, IBTA vol. 1, table 38 and
//! 9.3): for each opcode, which extended headers follow the BTH, whether it carries a
//! payload, and where it stands in a message. Names, header lengths and the legal
//! sequences are all derived from this one table, so nothing drifts (rdma_rxe's
//! `rxe_opcode[]` has the same shape).

use crate::wire::{aeth, bth, reth};

/// What a packet does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    Send,
    Write,
    ReadRequest,
    ReadResponse,
    Acknowledge,
}

/// Where a packet stands in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    First,
    Middle,
    Last,
    Only,
}

impl Position {
    /// The packet starts a message.
    pub fn starts(self) -> bool {
        matches!(self, Position::First | Position::Only)
    }
    /// The packet ends a message.
    pub fn ends(self) -> bool {
        matches!(self, Position::Last | Position::Only)
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub opcode: u8,
    pub name: &'static str,
    pub class: OpClass,
    pub position: Position,
    pub reth: bool,
    pub aeth: bool,
    pub immdt: bool,
    /// The packet carries payload bytes (possibly zero of them in an Only packet).
    pub payload: bool,
}

impl OpInfo {
    /// Bytes of the BTH and the extended headers, in the order they are sent
    /// (BTH, RETH, AETH, ImmDt).
    pub const fn header_len(&self) -> usize {
        bth::HEADER_LEN
            + if self.reth { reth::HEADER_LEN } else { 0 }
            + if self.aeth { aeth::HEADER_LEN } else { 0 }
            + if self.immdt { IMMDT_LEN } else { 0 }
    }
    /// The packet is sent by a requester (the responder sends ACKs and READ responses).
    pub fn is_request(&self) -> bool {
        matches!(self.class, OpClass::Send | OpClass::Write | OpClass::ReadRequest)
    }
}

/// Bytes of the immediate data header.
pub const IMMDT_LEN: usize = 4;

macro_rules! ops {
    ($( $code:literal $name:ident $class:ident $pos:ident reth=$r:literal aeth=$a:literal imm=$i:literal payload=$p:literal; )*) => {
        $( pub const $name: u8 = $code; )*
        /// Every RC opcode this NIC sends or accepts.
        pub const TABLE: &[OpInfo] = &[
            $( OpInfo { opcode: $code, name: stringify!($name), class: OpClass::$class, position: Position::$pos, reth: $r, aeth: $a, immdt: $i, payload: $p } ),*
        ];
    };
}

ops! {
    0x00 SEND_FIRST                     Send         First  reth=false aeth=false imm=false payload=true;
    0x01 SEND_MIDDLE                    Send         Middle reth=false aeth=false imm=false payload=true;
    0x02 SEND_LAST                      Send         Last   reth=false aeth=false imm=false payload=true;
    0x03 SEND_LAST_WITH_IMMEDIATE       Send         Last   reth=false aeth=false imm=true  payload=true;
    0x04 SEND_ONLY                      Send         Only   reth=false aeth=false imm=false payload=true;
    0x05 SEND_ONLY_WITH_IMMEDIATE       Send         Only   reth=false aeth=false imm=true  payload=true;
    0x06 RDMA_WRITE_FIRST               Write        First  reth=true  aeth=false imm=false payload=true;
    0x07 RDMA_WRITE_MIDDLE              Write        Middle reth=false aeth=false imm=false payload=true;
    0x08 RDMA_WRITE_LAST                Write        Last   reth=false aeth=false imm=false payload=true;
    0x09 RDMA_WRITE_LAST_WITH_IMMEDIATE Write        Last   reth=false aeth=false imm=true  payload=true;
    0x0a RDMA_WRITE_ONLY                Write        Only   reth=true  aeth=false imm=false payload=true;
    0x0b RDMA_WRITE_ONLY_WITH_IMMEDIATE Write        Only   reth=true  aeth=false imm=true  payload=true;
    0x0c RDMA_READ_REQUEST              ReadRequest  Only   reth=true  aeth=false imm=false payload=false;
    0x0d RDMA_READ_RESPONSE_FIRST       ReadResponse First  reth=false aeth=true  imm=false payload=true;
    0x0e RDMA_READ_RESPONSE_MIDDLE      ReadResponse Middle reth=false aeth=false imm=false payload=true;
    0x0f RDMA_READ_RESPONSE_LAST        ReadResponse Last   reth=false aeth=true  imm=false payload=true;
    0x10 RDMA_READ_RESPONSE_ONLY        ReadResponse Only   reth=false aeth=true  imm=false payload=true;
    0x11 ACKNOWLEDGE                    Acknowledge  Only   reth=false aeth=true  imm=false payload=false;
}

/// The table row of an opcode, or `None` for one this NIC does not implement (UC, RD,
/// UD, atomics, invalidate, CNP).
pub fn info(opcode: u8) -> Option<&'static OpInfo> {
    TABLE.iter().find(|o| o.opcode == opcode)
}

/// The opcode of `class` at `position`, with or without immediate data.
pub fn lookup(class: OpClass, position: Position, immdt: bool) -> Option<u8> {
    TABLE
        .iter()
        .find(|o| o.class == class && o.position == position && o.immdt == immdt)
        .map(|o| o.opcode)
}

/// Whether a packet at `next` may follow one at `prev` on the same QP's request stream
/// (IBTA 9.8.3.1, C9-28..: a message in progress continues with Middle or Last of its
/// own class; a new message starts with First or Only). `prev` is `None` at the start
/// or after a finished message.
pub fn sequence_ok(prev: Option<&OpInfo>, next: &OpInfo) -> bool {
    match prev {
        Some(p) if !p.position.ends() => p.class == next.class && !next.position.starts(),
        _ => next.position.starts(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lengths_of_rxe() {
        // The lengths rdma_rxe's opcode table lists (rxe_opcode.c), BTH included.
        assert_eq!(info(SEND_ONLY).unwrap().header_len(), 12);
        assert_eq!(info(SEND_ONLY_WITH_IMMEDIATE).unwrap().header_len(), 16);
        assert_eq!(info(RDMA_WRITE_FIRST).unwrap().header_len(), 28);
        assert_eq!(info(RDMA_WRITE_ONLY_WITH_IMMEDIATE).unwrap().header_len(), 32);
        assert_eq!(info(RDMA_READ_REQUEST).unwrap().header_len(), 28);
        assert_eq!(info(RDMA_READ_RESPONSE_FIRST).unwrap().header_len(), 16);
        assert_eq!(info(RDMA_READ_RESPONSE_MIDDLE).unwrap().header_len(), 12);
        assert_eq!(info(ACKNOWLEDGE).unwrap().header_len(), 16);
    }

    #[test]
    fn table_is_consistent() {
        for (i, o) in TABLE.iter().enumerate() {
            assert_eq!(o.opcode as usize, i, "the RC opcodes 0x00..0x11 are dense");
            assert_eq!(lookup(o.class, o.position, o.immdt), Some(o.opcode), "{}", o.name);
            // RETH exactly where a message's remote address is first needed
            assert_eq!(o.reth, matches!(o.class, OpClass::Write | OpClass::ReadRequest) && o.position.starts(), "{}", o.name);
        }
        assert!(info(0x12).is_none() && info(0x64).is_none());
    }

    #[test]
    fn sequences() {
        let i = |c| info(c).unwrap();
        assert!(sequence_ok(None, i(SEND_FIRST)));
        assert!(!sequence_ok(None, i(SEND_MIDDLE)));
        assert!(sequence_ok(Some(i(SEND_FIRST)), i(SEND_LAST_WITH_IMMEDIATE)));
        assert!(!sequence_ok(Some(i(SEND_FIRST)), i(RDMA_WRITE_MIDDLE)));
        assert!(!sequence_ok(Some(i(RDMA_WRITE_FIRST)), i(RDMA_WRITE_ONLY)));
        assert!(sequence_ok(Some(i(RDMA_WRITE_LAST)), i(RDMA_READ_REQUEST)));
    }
}
