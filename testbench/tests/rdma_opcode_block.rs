//! `RdmaOpcodeInfo` (hw/src/rdma/opcode.rs), the RTL's opcode table, against the golden
//! model's `roce::opcode::TABLE` for all 256 opcodes, in rust-hdl's simulator.

use nic_hw::rdma::RdmaOpcodeInfo;
use nic_testbench::roce::opcode;
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
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
