//! Writes docs/regmap.md, docs/nic_regs.h and docs/nic_regs.rdl from the register tables.
fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "docs".into());
    let dir = std::path::Path::new(&out);
    std::fs::create_dir_all(dir).expect("create output directory");
    std::fs::write(dir.join("regmap.md"), nic_regmap::render_markdown()).expect("write regmap.md");
    std::fs::write(dir.join("nic_regs.h"), nic_regmap::render_c_header()).expect("write nic_regs.h");
    std::fs::write(dir.join("nic_regs.rdl"), nic_regmap::render_systemrdl()).expect("write nic_regs.rdl");
    println!("wrote {out}/regmap.md, {out}/nic_regs.h and {out}/nic_regs.rdl");
}
