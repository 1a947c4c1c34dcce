#!/usr/bin/env bash
# Where the iCE40 cells of `nic_top` go: Debian yosys `synth_ice40 -noflatten` of one
# configuration, then SB_LUT4, flip-flops and SB_RAM40_4K summed per child block of
# nic_top (each child with everything below it), largest first. Hierarchical synthesis
# does not optimize across block boundaries, so the total is above the flattened
# figure `nic synth --target ice40-hx8k` reports; the ranking is what it is for: which
# block to shrink next toward the HX8K (7,680 logic cells once packed, 32 RAM40s).
#
#   fpga/scripts/ice40_breakdown.sh [CONFIG] [OUT]     (small; out/ice40-breakdown)
#
# Then the flattened build (what `nic synth --target ice40-hx8k` reports) with its
# SB_RAM40_4K per memory and its packed logic cells: an iCE40 block RAM is at most 16
# bits wide, so a FIFO costs one per 16 bits of its word (after synthesis drops the bits
# nothing reads), whatever its depth. Last, what the CRC-32 costs in its variants
# (`Crc32x64` alone: full's, that without its short-beat cascade, small's half-rate one).
#
# About 6 minutes on one core. Not part of CI.
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
yosys -q -l "$OUT/yosys_flat.log" -p "read_verilog $OUT/nic_top.v; synth_ice40 -top nic_top -json $OUT/nic_top_flat.json" >/dev/null
python3 - "$OUT/nic_top_flat.json" "$CONFIG" <<'PY'
import collections, json, re, sys
design = json.load(open(sys.argv[1]))
per_memory = collections.Counter()
cells = collections.Counter()
for module in design["modules"].values():
    for name, cell in module["cells"].items():
        cells[cell["type"]] += 1
        if cell["type"] == "SB_RAM40_4K":
            per_memory[re.sub(r"\.\d+\.\d+$", "", name)] += 1
ffs = sum(n for t, n in cells.items() if t.startswith("SB_DFF"))
print()
print(f"nic_top ({sys.argv[2]}), flattened: {cells['SB_LUT4']:,} SB_LUT4, {ffs:,} flip-flops, {cells['SB_RAM40_4K']} SB_RAM40_4K")
print("| memory | SB_RAM40_4K |")
print("|---|---|")
for memory, n in per_memory.most_common():
    print(f"| `{memory}` | {n} |")
PY
# ... and packed into HX8K logic cells, what decides the fit (a flip-flop that no LUT of
# its own drives takes a cell of its own)
nextpnr-ice40 --hx8k --package ct256 --json "$OUT/nic_top_flat.json" --pack-only --log "$OUT/pack.log" >/dev/null 2>&1
echo "packed (nextpnr-ice40 --hx8k --pack-only): $(grep -o 'ICESTORM_LC: *[0-9]*/ *[0-9]*' "$OUT/pack.log" | head -1)"

# What the CRC-32 costs in each variant (mac::crc): MAC TX's `Crc32x64` synthesized
# alone as `full` builds it (8 bytes a cycle, a 4/2/1-byte cascade for short last beats),
# that without the cascade, and as `small` builds it (`half_rate`: 4 bytes or one a cycle).
for c in full small; do
  ./target/release/nic verilog --config "$c" --out "$OUT/crc-$c" >/dev/null
done
python3 - "$OUT" <<'PY'
import re, sys
out = sys.argv[1]
def crc_unit(config):
    verilog = open(f"{out}/crc-{config}/nic_top.v").read()
    start = verilog.index("module nic_top$mac_tx$crc_unit(")
    return verilog[start:verilog.index("endmodule", start) + len("endmodule")].replace("nic_top$mac_tx$crc_unit", "crc_unit")
cascade = crc_unit("full")
open(f"{out}/crc_unit.v", "w").write(cascade)
eight_only, n = re.subn(r"if \(nbytes == 4'd0 \|\| nbytes >= 4'd8\) crc_out = next_8;\s*else crc_out = partial;", "crc_out = next_8;", cascade)
assert n == 1, "the Crc32x64 output selection was not found in the generated Verilog"
open(f"{out}/crc_unit_8only.v", "w").write(eight_only)
half = crc_unit("small")
assert "after_4" in half and "next_8" not in half, "small's Crc32x64 is not the half-rate variant"
open(f"{out}/crc_unit_half.v", "w").write(half)
PY
crc_luts() { yosys -q -p "read_verilog $1; synth_ice40 -top crc_unit; tee -o $1.stat stat" >/dev/null; grep -E "SB_LUT4" "$1.stat" | awk '{print $2}'; }
whole=$(crc_luts "$OUT/crc_unit.v")
eight=$(crc_luts "$OUT/crc_unit_8only.v")
half=$(crc_luts "$OUT/crc_unit_half.v")
echo
echo "Crc32x64 alone: $whole SB_LUT4 as full builds it, $eight with the 8-byte network only (the short-beat cascade: $((whole - eight))), $half half-rate as small builds it"
