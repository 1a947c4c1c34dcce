//! `RdmaOpcodeInfo` (hw/src/rdma/opcode.rs), the RTL's opcode table, against the golden
//! model's `roce::opcode::TABLE` for all 256 opcodes, and `RdmaPathMtu`
//! (hw/src/rdma/path_mtu.rs) against the model's `pmtu_bytes` for all 8 codes, in
//! rust-hdl's simulator.

use nic_hw::rdma::opcode::{CLASS_ACKNOWLEDGE, CLASS_NONE, CLASS_READ_REQUEST, CLASS_READ_RESPONSE, CLASS_SEND, CLASS_WRITE};
use nic_hw::rdma::{RdmaOpcodeInfo, RdmaPathMtu};
use nic_testbench::roce::engine::tables::pmtu_bytes;
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

#[test]
fn every_path_mtu_code_cuts_lengths_as_the_model_does() {
    let mut x = RdmaPathMtu::default();
    x.connect_all();
    let mut bad = Vec::new();
    for code in 0..8u32 {
        let mtu = pmtu_bytes(code);
        for len in [0, 1, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 4097, 1 << 20, (1 << 20) + 17, 0x7fff_ffff] {
            x.code.next = Bits::<3>::from(u64::from(code));
            x.len.next = Bits::<32>::from(u64::from(len));
            simulate(&mut x, 10);
            let got = (x.bytes.val().to_u64(), 1u64 << x.log2.val().to_u64(), x.whole.val().to_u64(), x.part.val().to_u64());
            let want = (u64::from(mtu), u64::from(mtu), u64::from(len / mtu), u64::from(len % mtu));
            if got != want {
                bad.push(format!("code {code}, length {len}: (bytes, 2^log2, whole, part) {got:?}, model {want:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
