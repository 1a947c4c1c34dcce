//! One block out of context on the ECP5-85F, without building the simulator:
//! `cargo run --release -p nic-fpga --example synth_block -- BLOCK [SPEED] [OUT]`.
//!
//! The same flow as `nic synth --target ecp5-85k --block BLOCK --speed SPEED --out OUT`
//! (`flow::synth_design`), for iterating on a block's timing: `nic` links the Verilated
//! models, so after an RTL change it rebuilds them (about ten minutes) before it can
//! synthesize anything; this builds `nic-hw` and `nic-fpga` only.

use anyhow::{bail, Result};
use nic_fpga::flow::{synth_design, Block, Design, Target};
use std::path::PathBuf;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        bail!("usage: synth_block BLOCK [SPEED (6|7|8, default 8)] [OUT (default out/synth/BLOCK)]");
    };
    let block: Block = name.parse().map_err(anyhow::Error::msg)?;
    let speed: u8 = match args.get(1) {
        Some(s) => s.parse().map_err(|_| anyhow::anyhow!("speed '{s}': expected 6, 7 or 8"))?,
        None => 8,
    };
    let out = args.get(2).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("out/synth").join(block.name()));
    let report = synth_design(Target::Ecp5_85k, Design::Block(block), 156.25, speed, false, &out, |step| eprintln!("synth_block: {step}"))?;
    print!("{}", report.to_json());
    eprintln!("wrote {}/report.json", out.display());
    Ok(())
}
