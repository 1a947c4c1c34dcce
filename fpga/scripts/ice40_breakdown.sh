#!/usr/bin/env bash
# Where the iCE40 cells of `nic_top` go: Debian yosys `synth_ice40 -noflatten` of one
# configuration, then SB_LUT4, flip-flops and SB_RAM40_4K summed per child block of
# nic_top (each child with everything below it), largest first. Hierarchical synthesis
# does not optimize across block boundaries, so the total is above the flattened
# figure `nic synth --target ice40-hx8k` reports; the ranking is what it is for: which
# block to shrink next toward the HX8K (7,680 LUT4s and flip-flops, 32 RAM40s).
#
#   fpga/scripts/ice40_breakdown.sh [CONFIG] [OUT]     (small; out/ice40-breakdown)
#
# About 5 minutes on one core. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${1:-small}
OUT=${2:-out/ice40-breakdown}
mkdir -p "$OUT"
cargo build --release -j1 --bin nic
./target/release/nic verilog --config "$CONFIG" --out "$OUT" >/dev/null
yosys -q -l "$OUT/yosys.log" -p "read_verilog $OUT/nic_top.v; synth_ice40 -noflatten -top nic_top; stat" >/dev/null
python3 - "$OUT/yosys.log" "$CONFIG" <<'PY'
import re, sys
log, config = sys.argv[1], sys.argv[2]
text = open(log).read()
stats = text[text.rfind("Printing statistics"):]
parts = re.split(r"\n=== (.*?) ===\n", stats)
per_block = {}
for name, body in zip(parts[1::2], parts[2::2]):
    if name == "design hierarchy":
        continue
    count = lambda cell: sum(int(n) for n in re.findall(r"\s+%s\s+(\d+)" % cell, body))
    path = name.split("$")
    block = path[1] if len(path) > 1 else "(nic_top's own logic)"
    totals = per_block.setdefault(block, [0, 0, 0])
    for i, n in enumerate((count("SB_LUT4"), count(r"SB_DFF\w*"), count("SB_RAM40_4K"))):
        totals[i] += n
print(f"nic_top ({config}), yosys synth_ice40 -noflatten, per child block")
print("| block | SB_LUT4 | flip-flops | SB_RAM40_4K |")
print("|---|---|---|---|")
for block, (luts, ffs, rams) in sorted(per_block.items(), key=lambda kv: -kv[1][0]):
    print(f"| `{block}` | {luts:,} | {ffs:,} | {rams} |")
luts, ffs, rams = (sum(v[i] for v in per_block.values()) for i in range(3))
print(f"| total (hierarchical) | {luts:,} | {ffs:,} | {rams} |")
PY
