//! `RdmaOpcodeInfo` (hw/src/rdma/opcode.rs), the RTL's opcode table, against the golden
//! model's `roce::opcode::TABLE` for all 256 opcodes, in rust-hdl's simulator.

use nic_hw::rdma::opcode::{CLASS_ACKNOWLEDGE, CLASS_NONE, CLASS_READ_REQUEST, CLASS_READ_RESPONSE, CLASS_SEND, CLASS_WRITE};
use nic_hw::rdma::RdmaOpcodeInfo;
use nic_testbench::roce::opcode::{self, OpClass};
use nic_testbench::wire::bth;
use rust_hdl::prelude::*;

#[test]
fn every_opcode_decodes_as_the_golden_table_says() {
    let mut x = RdmaOpcodeInfo::default();
    x.connect_all();
    let mut bad = Vec::new();
    for op in 0..=255u8 {
        x.opcode.next = Bits::<8>::from(u64::from(op));
        simulate(&mut x, 10);
        let got = (x.known.val(), x.reth.val(), x.aeth.val(), x.immdt.val(), x.ext_len.val().to_u64() as usize, x.payload.val());
        let want = match opcode::info(op) {
            Some(i) => (true, i.reth, i.aeth, i.immdt, i.header_len() - bth::HEADER_LEN, i.payload),
            None => (false, false, false, false, 0, got.5),
        };
        if got != want {
            bad.push(format!("opcode {op:#04x}: (known, reth, aeth, immdt, ext_len, payload) {got:?}, golden {want:?}"));
        }
        let got = (x.op_class.val().to_u64(), x.starts.val(), x.ends.val());
        let want = match opcode::info(op) {
            Some(i) => {
                let class = match i.class {
                    OpClass::Send => CLASS_SEND,
                    OpClass::Write => CLASS_WRITE,
                    OpClass::ReadRequest => CLASS_READ_REQUEST,
                    OpClass::ReadResponse => CLASS_READ_RESPONSE,
                    OpClass::Acknowledge => CLASS_ACKNOWLEDGE,
                };
                (class, i.position.starts(), i.position.ends())
            }
            None => (CLASS_NONE, got.1, got.2),
        };
        if got != want {
            bad.push(format!("opcode {op:#04x}: (class, starts, ends) {got:?}, golden {want:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
