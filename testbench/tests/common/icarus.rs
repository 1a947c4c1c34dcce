//! A block's exported Verilog under Icarus Verilog, driven by input vectors, one per
//! cycle: the harness for checks that the Verilog rust-hdl writes means what the
//! block's Rust means.
//!
//! rust-hdl's own simulator evaluates a block with Rust's semantics: a `Bits<N>` sum
//! wraps at N bits wherever it stands. The Verilog it exports sizes an expression by its
//! context, and its integer literals are 32 bits wide, so `(ptr + 1) == x` on a 4-bit
//! `ptr` is a 32-bit sum that never wraps: the two disagree exactly at the wrap. The
//! block tests in rust-hdl's simulator cannot see that; a run of the exported Verilog can.
//!
//! [`run`] writes the Verilog, a testbench around its `top` and the vectors to a scratch
//! directory, runs `iverilog` and `vvp`, and returns the outputs sampled every cycle with
//! that cycle's inputs applied, before the rising edge.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

/// The ports of module `top` in `verilog`: (name, width, is input), in declaration order.
pub fn ports(verilog: &str) -> Vec<(String, usize, bool)> {
    let start = verilog.find("module top(").expect("exported Verilog has a module top");
    let end = start + verilog[start..].find("endmodule").expect("module top ends");
    let mut out = Vec::new();
    for line in verilog[start..end].lines() {
        let line = line.trim().trim_end_matches(';');
        let (dir, rest) = match line.split_once(' ') {
            Some(("input", r)) => (true, r),
            Some(("output", r)) => (false, r),
            _ => continue,
        };
        let rest = rest.trim_start_matches("wire ").trim_start_matches("reg ").trim();
        let (width, name) = match rest.strip_prefix('[') {
            Some(r) => {
                let (range, name) = r.split_once(']').expect("a port range");
                let (hi, lo) = range.split_once(':').expect("hi:lo");
                (hi.trim().parse::<usize>().unwrap() - lo.trim().parse::<usize>().unwrap() + 1, name.trim())
            }
            None => (1, rest),
        };
        out.push((name.to_string(), width, dir));
    }
    out
}

/// Runs `verilog` (rust-hdl's export of one block, top module `top`, clock input
/// `clock`) for `vectors.len()` cycles. Each vector gives the value of every input named
/// in `inputs` (all others but the clock are held at 0), in that order. Returns, per
/// cycle, the value of every output named in `outputs`: `None` where any of its bits is
/// x or z (a RAM word never written, say).
pub fn run(tag: &str, verilog: &str, inputs: &[&str], vectors: &[Vec<u128>], outputs: &[&str]) -> Vec<HashMap<String, Option<u128>>> {
    let all = ports(verilog);
    let width = |n: &str| all.iter().find(|p| p.0 == n).unwrap_or_else(|| panic!("no port {n} in top")).1;
    for n in inputs.iter().chain(outputs) {
        assert!(width(n) <= 128, "port {n} is wider than 128 bits");
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("nic-icarus-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("block.v"), verilog).unwrap();
    // the vectors, one hex word per cycle: inputs concatenated, the first in the top bits
    let total: usize = inputs.iter().map(|n| width(n)).sum();
    let mut hex = String::new();
    for v in vectors {
        assert_eq!(v.len(), inputs.len());
        let mut digits = String::new();
        let mut acc: Vec<bool> = Vec::with_capacity(total);
        for (n, &x) in inputs.iter().zip(v) {
            let w = width(n);
            assert!(w == 128 || x >> w == 0, "{x:#x} does not fit input {n} ({w} bits)");
            acc.extend((0..w).rev().map(|b| (x >> b) & 1 == 1));
        }
        while acc.len() % 4 != 0 {
            acc.insert(0, false);
        }
        for nib in acc.chunks(4) {
            let d = nib.iter().fold(0u32, |a, &b| a << 1 | b as u32);
            digits.push(char::from_digit(d, 16).unwrap());
        }
        hex += &digits;
        hex.push('\n');
    }
    std::fs::write(dir.join("vectors.hex"), hex).unwrap();
    let mut tb = String::from("`timescale 1ns/1ps\nmodule tb;\n  reg clock = 0;\n");
    for (n, w, is_in) in &all {
        if n != "clock" {
            tb += &format!("  {} [{}:0] {n}{};\n", if *is_in { "reg" } else { "wire" }, w - 1, if *is_in { " = 0" } else { "" });
        }
    }
    tb += &format!("  top uut({});\n", all.iter().map(|p| format!(".{0}({0})", p.0)).collect::<Vec<_>>().join(", "));
    tb += &format!("  reg [{}:0] vec [0:{}];\n  integer i, f;\n", total.max(1) - 1, vectors.len().max(1) - 1);
    let concat = inputs.join(", ");
    let fmt = outputs.iter().map(|_| "%h").collect::<Vec<_>>().join(" ");
    tb += &format!(
        "  initial begin\n    $readmemh(\"{}\", vec);\n    f = $fopen(\"{}\", \"w\");\n    for (i = 0; i < {}; i = i + 1) begin\n      {{{concat}}} = vec[i];\n      #1 $fwrite(f, \"{fmt}\\n\", {});\n      #1 clock = 1;\n      #1 clock = 0;\n    end\n    $fclose(f);\n    $finish;\n  end\nendmodule\n",
        dir.join("vectors.hex").display(),
        dir.join("outputs.txt").display(),
        vectors.len(),
        outputs.join(", ")
    );
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let sim = dir.join("sim.vvp");
    let status = Command::new("iverilog")
        .args(["-g2005", "-o"])
        .arg(&sim)
        .arg(dir.join("tb.v"))
        .arg(dir.join("block.v"))
        .status()
        .expect("iverilog (Debian package iverilog; `make setup` installs it)");
    assert!(status.success(), "iverilog failed on {}", dir.display());
    let status = Command::new("vvp").arg("-n").arg(&sim).stdout(std::process::Stdio::null()).status().expect("vvp");
    assert!(status.success(), "vvp failed on {}", dir.display());
    let text = std::fs::read_to_string(dir.join("outputs.txt")).unwrap();
    let rows: Vec<HashMap<String, Option<u128>>> = text
        .lines()
        .map(|l| {
            outputs
                .iter()
                .zip(l.split_whitespace())
                .map(|(n, v)| (n.to_string(), u128::from_str_radix(v, 16).ok()))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), vectors.len(), "vvp stopped early ({})", dir.display());
    let _ = std::fs::remove_dir_all(&dir);
    rows
}
