//! The RC opcode table in RTL: which extended headers an opcode carries and whether it
//! carries a payload, decoded once here for every RDMA block (RX parsing, TX framing, and
//! the requester, responder and completer to come). The rows are those of the golden
//! model's `nic_testbench::roce::opcode::TABLE`; a block test compares all 256 opcodes.

use rust_hdl::prelude::*;

/// Combinational decode of a BTH opcode.
#[derive(LogicBlock, Default)]
pub struct RdmaOpcodeInfo {
    pub opcode: Signal<In, Bits<8>>,
    /// An RC opcode this engine implements (0x00..0x11).
    pub known: Signal<Out, Bit>,
    pub reth: Signal<Out, Bit>,
    pub aeth: Signal<Out, Bit>,
    pub immdt: Signal<Out, Bit>,
    /// Bytes of RETH, AETH and ImmDt together (0, 4, 16 or 20).
    pub ext_len: Signal<Out, Bits<16>>,
    /// The packet carries payload bytes (all but READ Request and Acknowledge).
    pub payload: Signal<Out, Bit>,
    /// The class (`class` is a SystemVerilog keyword): 0 SEND, 1 WRITE, 2 READ Request, 3 READ Response, 4 Acknowledge
    /// (`CLASS_*`); 7 for an opcode outside the table.
    pub op_class: Signal<Out, Bits<3>>,
    /// The packet starts (First, Only) or ends (Last, Only) its message.
    pub starts: Signal<Out, Bit>,
    pub ends: Signal<Out, Bit>,
}

/// BTH opcodes of the responses (RC, IBTA table 38), the ones the blocks compare with or
/// send directly.
pub const OP_READ_RESPONSE_FIRST: u64 = 0x0d;
pub const OP_READ_RESPONSE_MIDDLE: u64 = 0x0e;
pub const OP_READ_RESPONSE_LAST: u64 = 0x0f;
pub const OP_READ_RESPONSE_ONLY: u64 = 0x10;
pub const OP_ACKNOWLEDGE: u64 = 0x11;

/// `RdmaOpcodeInfo::op_class` values.
pub const CLASS_SEND: u64 = 0;
pub const CLASS_WRITE: u64 = 1;
pub const CLASS_READ_REQUEST: u64 = 2;
pub const CLASS_READ_RESPONSE: u64 = 3;
pub const CLASS_ACKNOWLEDGE: u64 = 4;
pub const CLASS_NONE: u64 = 7;

impl Logic for RdmaOpcodeInfo {
    #[hdl_gen]
    fn update(&mut self) {
        self.known.next = self.opcode.val() <= 0x11;
        // WRITE First, WRITE Only (with Immediate), READ Request
        self.reth.next = (self.opcode.val() == 0x06) | (self.opcode.val() == 0x0a) | (self.opcode.val() == 0x0b) | (self.opcode.val() == 0x0c);
        // READ response First, Last, Only; Acknowledge
        self.aeth.next = (self.opcode.val() == 0x0d) | (self.opcode.val() == 0x0f) | (self.opcode.val() == 0x10) | (self.opcode.val() == 0x11);
        // SEND Last/Only with Immediate, WRITE Last/Only with Immediate
        self.immdt.next = (self.opcode.val() == 0x03) | (self.opcode.val() == 0x05) | (self.opcode.val() == 0x09) | (self.opcode.val() == 0x0b);
        self.ext_len.next = 0.into();
        if self.reth.val() {
            self.ext_len.next = 16.into();
        }
        if self.aeth.val() | self.immdt.val() {
            self.ext_len.next = self.ext_len.val() + 4;
        }
        self.payload.next = (self.opcode.val() != 0x0c) & (self.opcode.val() != 0x11);
        // SEND 0x00..0x05, WRITE 0x06..0x0b, READ Request 0x0c, READ Response 0x0d..0x10, Acknowledge 0x11
        self.op_class.next = 7.into();
        if self.opcode.val() <= 0x05 {
            self.op_class.next = 0.into();
        } else if self.opcode.val() <= 0x0b {
            self.op_class.next = 1.into();
        } else if self.opcode.val() == 0x0c {
            self.op_class.next = 2.into();
        } else if self.opcode.val() <= 0x10 {
            self.op_class.next = 3.into();
        } else if self.opcode.val() == 0x11 {
            self.op_class.next = 4.into();
        }
        // First: SEND 0x00, WRITE 0x06, READ Response 0x0d; Only: 0x04, 0x05, 0x0a, 0x0b, 0x0c, 0x10, 0x11
        self.starts.next = (self.opcode.val() == 0x00) | (self.opcode.val() == 0x06) | (self.opcode.val() == 0x0d) | (self.opcode.val() == 0x04)
            | (self.opcode.val() == 0x05) | (self.opcode.val() == 0x0a) | (self.opcode.val() == 0x0b) | (self.opcode.val() == 0x0c)
            | (self.opcode.val() == 0x10) | (self.opcode.val() == 0x11);
        // Last: 0x02, 0x03, 0x08, 0x09, 0x0f; and the Only ones
        self.ends.next = (self.opcode.val() == 0x02) | (self.opcode.val() == 0x03) | (self.opcode.val() == 0x08) | (self.opcode.val() == 0x09)
            | (self.opcode.val() == 0x0f) | (self.opcode.val() == 0x04) | (self.opcode.val() == 0x05) | (self.opcode.val() == 0x0a)
            | (self.opcode.val() == 0x0b) | (self.opcode.val() == 0x0c) | (self.opcode.val() == 0x10) | (self.opcode.val() == 0x11);
    }
}
