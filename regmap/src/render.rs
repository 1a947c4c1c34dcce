//! Renders the register tables as Markdown field tables and as a C header.

use crate::*;
use std::fmt::Write;

fn all_rows(b: &Block) -> Vec<(String, &'static Register)> {
    let mut rows: Vec<(String, &Register)> = b
        .regs
        .iter()
        .map(|r| {
            if r.count > 1 {
                (format!("{:#06x} + {:#x}·i (i < {})", b.base + r.offset, r.stride, r.count), r)
            } else {
                (format!("{:#06x}", b.base + r.offset), r)
            }
        })
        .collect();
    rows.extend(b.queue_regs.iter().map(|r| {
        (format!("{:#06x} + {:#x}·q", b.base + QUEUE_STRIDE + r.offset, QUEUE_STRIDE), r)
    }));
    rows
}

/// `docs/regmap.md`.
pub fn render_markdown() -> String {
    let mut s = String::new();
    s.push_str("# Register map\n\n");
    s.push_str("Generated from `regmap/src/lib.rs` by `nic regmap --out docs`; do not edit by hand.\n\n");
    s.push_str("All registers are 32 bits wide on the AXI4-Lite slave. Blocks form a chain: each starts with\n");
    s.push_str("`ID` (ASCII type), `VERSION` and `NEXT` (offset of the next block, 0 at the end).\n");
    s.push_str("Reset values of `QUEUES` and `COUNT` shown are those of the `small` configuration.\n\n");
    for b in BLOCKS {
        let _ = writeln!(s, "## Block `{}` at {:#06x}\n\n{}\n", b.name, b.base, b.doc);
        s.push_str("| address | name | access | reset | description |\n|---|---|---|---|---|\n");
        for (addr, r) in all_rows(b) {
            let _ = writeln!(s, "| {} | `{}` | {} | {:#x} | {} |", addr, r.name, r.access.as_str(), r.reset, r.doc);
        }
        s.push('\n');
        for (_, r) in all_rows(b) {
            if r.fields.is_empty() {
                continue;
            }
            let _ = writeln!(s, "### `{}.{}` fields\n", b.name, r.name);
            s.push_str("| bits | field | description |\n|---|---|---|\n");
            for f in r.fields {
                let bits = if f.width == 1 { format!("{}", f.lsb) } else { format!("{}:{}", f.lsb + f.width - 1, f.lsb) };
                let _ = writeln!(s, "| {} | `{}` | {} |", bits, f.name, f.doc);
            }
            s.push('\n');
        }
    }
    s.push_str("## Descriptors (16 bytes, little-endian)\n\n");
    s.push_str("| bytes | TX descriptor (driver writes) | RX descriptor (driver writes) | TX write-back (NIC writes bytes 8..16) | RX write-back (NIC writes bytes 0..16) |\n|---|---|---|---|---|\n");
    s.push_str("| 0..2 | buffer bus address | buffer bus address | unchanged | packet type (docs/rx-classification.md section 2) |\n");
    s.push_str("| 2..8 | (address) | (address) | unchanged | 0 |\n");
    s.push_str("| 8..10 | data length (1..65535) | buffer length | length as read | frame length without FCS |\n");
    let _ = writeln!(s, "| 10..12 | flags: bit 0 EOP ({:#x}), bit 1 REPORT_STATUS ({:#x}) | 0 | flags with bit 15 DONE ({:#x}) | bit 15 DONE, bit 0 EOP, bits 3:2 L3 checksum, 5:4 L4 checksum (0 not checked, 1 good, 2 bad), 9:6 RSS hash type (0 none, 1 IPv4, 2 TCP/IPv4, 3 UDP/IPv4, 4 IPv6, 5 TCP/IPv6, 6 UDP/IPv6) |", desc::TX_EOP, desc::TX_REPORT_STATUS, desc::DONE);
    s.push_str("| 12..16 | 0 | 0 | 0 | RSS hash (0 for type none) |\n\n");
    s.push_str("A TX descriptor is written back only when it has REPORT_STATUS; `Q_HEAD` always advances.\n");
    s.push_str("\n## RDMA context tables (through `rdma.TABLE_CMD` and `rdma.TABLE_DATA`)\n\n");
    s.push_str("Engine-owned fields are advanced by the engine; a store overwrites them only when `WORD_MASK` selects their word. docs/rdma.md describes the behaviour.\n\n");
    for (name, fields) in [("QP context (TABLE 0)", rdma::qpc::FIELDS), ("MR entry (TABLE 1)", rdma::mrc::FIELDS), ("CQ context (TABLE 2)", rdma::cqc::FIELDS)] {
        let _ = writeln!(s, "### {name}\n");
        s.push_str("| word | bits | field | engine-owned | description |\n|---|---|---|---|---|\n");
        for f in fields {
            let bits = if f.width == 1 { format!("{}", f.lsb) } else { format!("{}:{}", f.lsb + f.width - 1, f.lsb) };
            let _ = writeln!(s, "| {} | {} | `{}` | {} | {} |", f.word, bits, f.name, if f.engine_owned { "yes" } else { "" }, f.doc);
        }
        s.push('\n');
    }
    let _ = writeln!(s, "Work queue entries are {} bytes (`nic_regmap::rdma::wqe`), completion queue entries {} bytes (`nic_regmap::rdma::cqe`); docs/rdma.md lists their fields.", rdma::wqe::SIZE, rdma::cqe::SIZE);
    s
}

/// `docs/nic_regs.h`.
pub fn render_c_header() -> String {
    let mut s = String::new();
    s.push_str("/* NIC register map. Generated from regmap/src/lib.rs by `nic regmap --out docs`; do not edit. */\n");
    s.push_str("#ifndef NIC_REGS_H\n#define NIC_REGS_H\n\n");
    let _ = writeln!(s, "#define NIC_QUEUE_STRIDE 0x{:x}u", QUEUE_STRIDE);
    let _ = writeln!(s, "#define NIC_RX_IRQ_BASE {}u\n", RX_IRQ_BASE);
    for b in BLOCKS {
        let up = b.name.to_uppercase();
        let _ = writeln!(s, "/* block {}: {} */", b.name, b.doc);
        let _ = writeln!(s, "#define NIC_{}_BASE 0x{:04x}u", up, b.base);
        for r in b.regs {
            if r.count > 1 {
                let _ = writeln!(s, "#define NIC_{}_{}(i) (0x{:04x}u + 0x{:x}u * (i)) /* {}, i < {} */", up, r.name, b.base + r.offset, r.stride, r.access.as_str(), r.count);
            } else {
                let _ = writeln!(s, "#define NIC_{}_{} 0x{:04x}u /* {} */", up, r.name, b.base + r.offset, r.access.as_str());
            }
            for f in r.fields {
                let _ = writeln!(s, "#define NIC_{}_{}_{} 0x{:08x}u", up, r.name, f.name, f.mask());
            }
        }
        for r in b.queue_regs {
            let _ = writeln!(s, "#define NIC_{}_{}(q) (0x{:04x}u + 0x{:x}u * (q)) /* {} */", up, r.name, b.base + QUEUE_STRIDE + r.offset, QUEUE_STRIDE, r.access.as_str());
            for f in r.fields {
                let _ = writeln!(s, "#define NIC_{}_{}_{} 0x{:08x}u", up, r.name, f.name, f.mask());
            }
        }
        s.push('\n');
    }
    let _ = writeln!(s, "#define NIC_DESC_SIZE {}u", desc::SIZE);
    let _ = writeln!(s, "#define NIC_DESC_TX_EOP 0x{:04x}u", desc::TX_EOP);
    let _ = writeln!(s, "#define NIC_DESC_TX_REPORT_STATUS 0x{:04x}u", desc::TX_REPORT_STATUS);
    let _ = writeln!(s, "#define NIC_DESC_DONE 0x{:04x}u", desc::DONE);
    let _ = writeln!(s, "#define NIC_DESC_RX_EOP 0x{:04x}u", desc::RX_EOP);
    s.push_str("\n#endif /* NIC_REGS_H */\n");
    s
}
