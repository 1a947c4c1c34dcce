//! Writes docs/regmap.md and docs/nic_regs.h from the register tables.
fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "docs".into());
    let dir = std::path::Path::new(&out);
    std::fs::create_dir_all(dir).expect("create output directory");
    std::fs::write(dir.join("regmap.md"), nic_regmap::render_markdown()).expect("write regmap.md");
    std::fs::write(dir.join("nic_regs.h"), nic_regmap::render_c_header()).expect("write nic_regs.h");
    println!("wrote {}/regmap.md and {}/nic_regs.h", out, out);
}
