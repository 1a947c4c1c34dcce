#!/usr/bin/env bash
# The release build with the simulator's models trained (profile-guided optimisation,
# sim/build.rs `PGO_ENV` says why and how):
#
#   scripts/build.sh [nic|all]
#
#   nic: the `nic` binary (make run); all (the default): the workspace with its tests
#   (make build, make test).
#
# 1. `NIC_SIM_PGO=generate cargo build ... --bin nic`: every model that takes a profile
#    and has no current one is built instrumented (marked `pgo/instrumented`); a model
#    with a current profile is built with it, so step 2 is skipped when nothing changed;
# 2. training, only if a model is instrumented: the workloads below, each process
#    writing the counters of the models it ran at exit;
# 3. the build asked for, each model with its profile.
# NIC_SIM_PGO=off in the environment skips steps 1 and 2 (no profile used).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
CARGO="${CARGO:-cargo}"
JOBS="${JOBS:-2}"
what="${1:-all}"
case "$what" in
    nic) final=(-p nic-cli --bin nic) ;;
    all) final=(--workspace --all-targets) ;;
    *) echo "build.sh: '$what': expected nic or all" >&2; exit 2 ;;
esac

if [ "${NIC_SIM_PGO:-}" != off ]; then
    NIC_SIM_PGO=generate "$CARGO" build --release -j"$JOBS" -p nic-cli --bin nic
    # the models of the nic-sim build just made (the newest with a model in it)
    out_dir=$(ls -td target/release/build/nic-sim-*/out 2>/dev/null | while read -r d; do [ -f "$d/full/stamp" ] && { echo "$d"; break; }; done)
    if [ -n "$out_dir" ] && ls "$out_dir"/*/pgo/instrumented >/dev/null 2>&1; then
        echo "build.sh: training the simulator's models (about a minute)"
        nic="$root/target/release/nic"
        t0=$(date +%s)
        # Ethernet: back-to-back loopback through the driver (DMA rings, MACs, the RX
        # classifier, TX offload), per configuration
        "$nic" sim loopback --config small --frames 3000 >/dev/null
        "$nic" sim loopback --config full --frames 3000 >/dev/null
        # RDMA between two `full` NICs: WRITE, READ and SEND through the verbs
        for op in write read send; do
            "$nic" sim rdma --op "$op" --size 4096 --count 32 >/dev/null
        done
        echo "build.sh: trained in $(( $(date +%s) - t0 )) s"
    fi
fi
"$CARGO" build --release -j"$JOBS" "${final[@]}"
