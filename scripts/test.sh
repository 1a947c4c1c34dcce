#!/usr/bin/env bash
# `make test`: the whole test suite, with the two board flows beside it.
#
# The ECP5 board flow (yosys, nextpnr, ecppack for the `small` ECPIX-5 bitstream; `--quick`:
# placement not timing-driven) is one single-threaded job of about 4 minutes (15,945
# LUTs on the board; 22,419 and 14 minutes before the iCE40 area work, 37,250 and 24-27
# minutes with the offload engines, too long for CI's 30); the test suite is mostly one
# simulation at a time. So
# the flow starts in the background as soon as the `nic` binary is built, the suite runs
# on the other core, and the flow's test (`board_flow_small_ecp5` in
# fpga/tests/synth_check.rs) runs last: given NIC_BOARD_FLOW_DIR it waits for that run
# and checks its bitstream and report instead of starting its own. The iCE40 board flow
# (icepll, yosys, nextpnr-ice40, icepack for the iCE40-HX8K breakout; about 3.5
# minutes) runs beside it in a second background job, and `board_flow_small_ice40` checks
# it given NIC_ICE40_FLOW_DIR. After its flow, each job synthesizes, places and routes
# half the blocks of fpga/guarded_blocks.txt alone at speed 8 (issue 22's guard: 10 s to
# 2.5 minutes each), and `fmax_guard_closed_blocks_keep_156_mhz` checks their reports
# given NIC_FMAX_GUARD_DIR.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
CARGO="${CARGO:-cargo}"
JOBS="${JOBS:-2}"
out="$root/out/ci-board-flow"
ice40_out="$root/out/ci-ice40-flow"
guard_out="$root/out/ci-fmax-guard"

# Not scripts/build.sh: training the models costs a first build two more compilations of
# the `full` model and a second build of every crate that links them, 3-4 minutes on
# this 2-core machine, which one test run does not win back (the trained models ran the
# whole suite about half a minute faster: docs/performance.md). A profile an earlier
# `make build` left for these very models is used (sim/build.rs `PGO_ENV`).
"$CARGO" build --release -j"$JOBS" --workspace --all-targets || exit 1

rm -rf "$out" "$out.rc" "$ice40_out" "$ice40_out.rc" "$guard_out"
mkdir -p "$out" "$ice40_out" "$guard_out"
# Two background jobs, not one: after the suite ends, one job left alone on one core
# kept the other idle for some 14 minutes (2,022 s in all at 9aaa0a9, 20 guarded blocks).
# Each job runs one board flow first (their tests wait for them), then every other
# guarded block.
guarded=($(grep -v '^#' "$root/fpga/guarded_blocks.txt"))
guard_blocks() { # the guarded blocks at positions FIRST, FIRST + 2, ...
    local i
    for ((i = $1; i < ${#guarded[@]}; i += 2)); do
        "$root/target/release/nic" synth --target ecp5-85k --block "${guarded[i]}" --speed 8 --freq 156.25 --out "$guard_out/${guarded[i]}" >"$guard_out/${guarded[i]}.log" 2>&1
        echo $? >"$guard_out/${guarded[i]}.rc"
    done
}
( "$root/target/release/nic" synth --target ecp5-85k --config small --freq 40 --quick --out "$out" >"$out.log" 2>&1
  echo $? >"$out.rc"
  guard_blocks 0 ) &
flow_ecp5=$!
( "$root/target/release/nic" synth --target ice40-hx8k --config small --freq 33 --out "$ice40_out" >"$ice40_out.log" 2>&1
  echo $? >"$ice40_out.rc"
  guard_blocks 1 ) &
flow_ice40=$!

status=0
# cargo-nextest, where the machine has it, runs the tests of every binary side by side
# (two at a time) rather than one binary after another, each binary's tests on at most
# two threads: the long tests of one binary (rdma_verbs) no longer leave the other core
# to the board flows alone. Otherwise `cargo test`, the same tests.
if "$CARGO" nextest --version >/dev/null 2>&1; then
    "$CARGO" nextest run --release -j"$JOBS" --workspace --no-fail-fast -E 'not test(/board_flow_|fmax_guard_/)' || status=1
    # nextest runs no doctests
    "$CARGO" test --release -j"$JOBS" --workspace --doc || status=1
    NIC_BOARD_FLOW_DIR="$out" NIC_ICE40_FLOW_DIR="$ice40_out" NIC_FMAX_GUARD_DIR="$guard_out" "$CARGO" nextest run --release -j"$JOBS" --workspace -E 'test(/board_flow_|fmax_guard_/)' || status=1
else
    "$CARGO" test --release -j"$JOBS" --workspace --no-fail-fast -- --skip board_flow_ --skip fmax_guard_ || status=1
    # --workspace --tests: the same feature set as the run above, so nothing is rebuilt
    # (`-p nic-fpga` alone rebuilds the test binary: 1m40s measured)
    NIC_BOARD_FLOW_DIR="$out" NIC_ICE40_FLOW_DIR="$ice40_out" NIC_FMAX_GUARD_DIR="$guard_out" "$CARGO" test --release -j"$JOBS" --workspace --tests -- board_flow_ fmax_guard_ || status=1
fi
wait "$flow_ecp5" "$flow_ice40" 2>/dev/null
exit $status
