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

/// A string as a SystemRDL string literal.
fn rdl_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The SystemRDL properties of a field with this register access.
fn rdl_access(a: Access) -> &'static str {
    match a {
        // a constant or a status the hardware drives
        Access::Ro => "sw = r; hw = w;",
        Access::Rw => "sw = rw; hw = r;",
        // the hardware sets, software writes 1 to clear
        Access::W1c => "sw = rw; onwrite = woclr; hw = w;",
        // a table in block RAM: reads return 0
        Access::Wo => "sw = w; hw = r;",
    }
}

fn rdl_reg(s: &mut String, indent: &str, r: &Register, at: String) {
    let _ = writeln!(s, "{indent}reg {{");
    let _ = writeln!(s, "{indent}    name = {}; desc = {};", rdl_str(r.name), rdl_str(r.doc));
    // a register without declared fields is one 32-bit field
    let whole = [Field { name: "VALUE", lsb: 0, width: 32, doc: r.doc }];
    let fields: &[Field] = if r.fields.is_empty() { &whole } else { r.fields };
    for f in fields {
        let reset = (u64::from(r.reset) >> f.lsb) & ((1u64 << f.width) - 1);
        let _ = writeln!(
            s,
            "{indent}    field {{ {} desc = {}; }} {}[{}:{}] = {:#x};",
            rdl_access(r.access),
            rdl_str(f.doc),
            f.name,
            f.lsb + f.width - 1,
            f.lsb,
            reset
        );
    }
    let _ = writeln!(s, "{indent}}} {at};");
}

/// How a block's registers are laid out in SystemRDL: a plain register, an array, or
/// interleaved arrays (same count and stride, starting within the first one's stride)
/// grouped into one `regfile` array, as SystemRDL arrays may not overlap.
enum RdlItem {
    Reg(&'static Register),
    Group { name: String, regs: Vec<&'static Register> },
}

fn rdl_items(b: &Block) -> Vec<RdlItem> {
    let mut items = Vec::new();
    let mut done = vec![false; b.regs.len()];
    for (i, r) in b.regs.iter().enumerate() {
        if done[i] {
            continue;
        }
        done[i] = true;
        if r.count == 1 {
            items.push(RdlItem::Reg(r));
            continue;
        }
        let group: Vec<usize> = (i..b.regs.len())
            .filter(|&j| {
                let o = &b.regs[j];
                o.count == r.count && o.stride == r.stride && o.offset >= r.offset && o.offset < r.offset + r.stride
            })
            .collect();
        if group.len() == 1 {
            items.push(RdlItem::Reg(r));
            continue;
        }
        let names: Vec<&str> = group.iter().map(|&j| b.regs[j].name).collect();
        let mut prefix = names[0].to_string();
        for n in &names[1..] {
            while !n.starts_with(prefix.as_str()) {
                prefix.pop();
            }
        }
        for &j in &group {
            done[j] = true;
        }
        items.push(RdlItem::Group { name: prefix.trim_end_matches('_').to_string(), regs: group.iter().map(|&j| &b.regs[j]).collect() });
    }
    items
}

/// One register instance as PeakRDL's C header and `docs/nic_regs.h` name it, for the
/// test that checks one against the other (regmap/tests/systemrdl.rs).
pub struct RdlInstance {
    /// Member path in PeakRDL's `nic_regs_t` (`rxc.MAC_FILTER[3].MAC_FILTER_LO`).
    pub member: String,
    /// Prefix of PeakRDL's field macros (`NIC_REGS__RXC__MAC_FILTER__MAC_FILTER_LO__`).
    pub macro_prefix: String,
    /// The address as `docs/nic_regs.h` gives it (`NIC_RXC_MAC_FILTER_LO(3)`).
    pub c_address: String,
    /// Prefix of `docs/nic_regs.h`'s field masks (`NIC_RXC_MAC_FILTER_LO_`).
    pub c_field_prefix: String,
    pub register: &'static Register,
}

/// Every register instance of the map (arrays and queue windows expanded).
pub fn systemrdl_instances() -> Vec<RdlInstance> {
    let mut v = Vec::new();
    for b in BLOCKS {
        let (bl, bu) = (b.name, b.name.to_uppercase());
        let mut push = |member: String, macro_prefix: String, c_address: String, r: &'static Register| {
            v.push(RdlInstance { member, macro_prefix, c_address, c_field_prefix: format!("NIC_{bu}_{}_", r.name), register: r });
        };
        for item in rdl_items(b) {
            match item {
                RdlItem::Reg(r) if r.count == 1 => push(format!("{bl}.{}", r.name), format!("NIC_REGS__{bu}__{}__", r.name), format!("NIC_{bu}_{}", r.name), r),
                RdlItem::Reg(r) => {
                    for i in 0..r.count {
                        push(format!("{bl}.{}[{i}]", r.name), format!("NIC_REGS__{bu}__{}__", r.name), format!("NIC_{bu}_{}({i})", r.name), r);
                    }
                }
                RdlItem::Group { name, regs } => {
                    for i in 0..regs[0].count {
                        for r in &regs {
                            push(format!("{bl}.{name}[{i}].{}", r.name), format!("NIC_REGS__{bu}__{name}__{}__", r.name), format!("NIC_{bu}_{}({i})", r.name), r);
                        }
                    }
                }
            }
        }
        for q in 0..if b.queue_regs.is_empty() { 0 } else { MAX_QUEUES } {
            for r in b.queue_regs {
                push(format!("{bl}.queue[{q}].{}", r.name), format!("NIC_REGS__{bu}__QUEUE__{}__", r.name), format!("NIC_{bu}_{}({q})", r.name), r);
            }
        }
    }
    v
}

/// `nic_regs.rdl`: the whole register map in SystemRDL 2.0 (Accellera), from the same
/// tables as the rest. One `addrmap` per block at its base; array registers as arrays
/// with their stride; a block's per-queue registers as a `regfile` array `queue[]` of
/// `MAX_QUEUES` windows of `QUEUE_STRIDE` bytes from `base + QUEUE_STRIDE`. Reset values
/// of `QUEUES` and `COUNT` are those of the `small` configuration, as in docs/regmap.md.
/// Bits outside a register's declared fields are reserved (read 0).
pub fn render_systemrdl() -> String {
    let mut s = String::new();
    s.push_str("// NIC register map in SystemRDL 2.0. Generated from regmap/src/lib.rs by `nic regmap --out DIR`; do not edit.\n");
    s.push_str("// Reset values of QUEUES and COUNT are those of the `small` configuration (docs/regmap.md).\n\n");
    s.push_str("addrmap nic_regs {\n");
    s.push_str("    name = \"NIC register map\";\n");
    let _ = writeln!(s, "    desc = {};", rdl_str("Blocks form a chain: each starts with ID (ASCII type), VERSION and NEXT (offset of the next block, 0 at the end)."));
    s.push_str("    default regwidth = 32;\n    default accesswidth = 32;\n    addressing = regalign;\n\n");
    for b in BLOCKS {
        s.push_str("    addrmap {\n");
        let _ = writeln!(s, "        name = {}; desc = {};", rdl_str(b.name), rdl_str(b.doc));
        for item in rdl_items(b) {
            match item {
                RdlItem::Reg(r) if r.count == 1 => rdl_reg(&mut s, "        ", r, format!("{} @ {:#x}", r.name, r.offset)),
                RdlItem::Reg(r) => rdl_reg(&mut s, "        ", r, format!("{}[{}] @ {:#x} += {:#x}", r.name, r.count, r.offset, r.stride)),
                RdlItem::Group { name, regs } => {
                    let names: Vec<&str> = regs.iter().map(|r| r.name).collect();
                    let first = regs[0];
                    s.push_str("        regfile {\n");
                    let _ = writeln!(s, "            name = {}; desc = {};", rdl_str(&name), rdl_str(&format!("Entry i of {} (interleaved arrays).", names.join(", "))));
                    for r in &regs {
                        rdl_reg(&mut s, "            ", r, format!("{} @ {:#x}", r.name, r.offset - first.offset));
                    }
                    let _ = writeln!(s, "        }} {}[{}] @ {:#x} += {:#x};", name, first.count, first.offset, first.stride);
                }
            }
        }
        if !b.queue_regs.is_empty() {
            s.push_str("        regfile {\n");
            let _ = writeln!(s, "            name = \"queue\"; desc = {};", rdl_str(&format!("One queue's registers; queue q at block base + {:#x} * (q + 1).", QUEUE_STRIDE)));
            for r in b.queue_regs {
                rdl_reg(&mut s, "            ", r, format!("{} @ {:#x}", r.name, r.offset));
            }
            let _ = writeln!(s, "        }} queue[{}] @ {:#x} += {:#x};", MAX_QUEUES, QUEUE_STRIDE, QUEUE_STRIDE);
        }
        let _ = writeln!(s, "    }} {} @ {:#06x};\n", b.name, b.base);
    }
    s.push_str("};\n");
    s
}
