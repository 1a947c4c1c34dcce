#!/usr/bin/env bash
# The release build with the simulator's models trained (profile-guided optimisation,
# sim/build.rs `PGO_ENV` says why and how):
#
#   scripts/build.sh [nic|all]
#
#   nic: the `nic` binary (make run); all (the default): the workspace with its tests
#   (make build, make test).
#
# With an earlier build in target/, the build asked for comes first; when its `small`
# and `full` models kept their profiles (no RTL change, the same training), that is all.
# Otherwise:
# 1. `NIC_SIM_PGO=generate cargo build`: every model that takes a profile and has no
#    current one is built instrumented (marked `pgo/instrumented`). On a first build
#    this is the whole build asked for, so the Rust crates compile beside the models;
#    after an earlier one, `nic` alone;
# 2. training: the workloads below, each process writing the counters of the models it
#    ran at exit (about half a minute);
# 3. the build asked for, each model with its profile (the two models compiled again and
#    everything that uses them linked again).
# A change to this file (its training) trains the models again.
# NIC_SIM_PGO=off in the environment builds without profiles.
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

# the models of the last nic-sim build (the newest with a model in it)
# (none before a first build: then nothing, and success, as `set -e -o pipefail` needs)
models() { { ls -td target/release/build/nic-sim-*/out 2>/dev/null || true; } | while read -r d; do [ -f "$d/full/stamp" ] && { echo "$d"; break; }; done; true; }
# whether that build's small and full models were compiled with their profiles
trained() {
    local d; d=$(models)
    [ -n "$d" ] && grep -q " trained-" "$d/small/fast_stamp" 2>/dev/null && grep -q " trained-" "$d/full/fast_stamp" 2>/dev/null
}

if [ "${NIC_SIM_PGO:-}" = off ]; then
    exec "$CARGO" build --release -j"$JOBS" "${final[@]}"
fi

# A profile records this script's training: with another training (this file changed)
# the models are trained again. Deleting a profile's counters makes sim/build.rs
# instrument that model.
trainer=$(sha256sum "$root/scripts/build.sh" | cut -c1-16)
out_dir=$(models)
if [ -n "$out_dir" ]; then
    for p in "$out_dir"/*/pgo; do
        [ -d "$p" ] && [ "$(cat "$p/trainer" 2>/dev/null)" != "$trainer" ] && find "$p" -name '*.gcda' -delete
    done
    # An earlier build: the build asked for, which is all there is to do when its models
    # kept their profiles (nothing in the RTL changed); else `nic` alone is built again
    # instrumented.
    "$CARGO" build --release -j"$JOBS" "${final[@]}"
    trained && exit 0
    step1=(-p nic-cli --bin nic)
else
    # A first build: everything at once, instrumented, so that the Rust crates compile
    # beside the models; the last step then compiles the two models again and links.
    step1=("${final[@]}")
fi
NIC_SIM_PGO=generate "$CARGO" build --release -j"$JOBS" "${step1[@]}"
out_dir=$(models)
if [ -n "$out_dir" ] && ls "$out_dir"/*/pgo/instrumented >/dev/null 2>&1; then
    echo "build.sh: training the simulator's models"
    nic="$root/target/release/nic"
    t0=$(date +%s)
    # Ethernet, per configuration: random frames in loopback through the driver (DMA
    # rings, MACs, the RX path), the receive side with filter, RSS and checksum
    # checks, and (`full`: `small` has no TX offload engine) the transmit side with
    # checksum insertion and TSO, on one queue and on eight. A branch the training
    # never takes is laid out as cold, so every offload is run.
    for c in small full; do
        "$nic" sim loopback --config "$c" --frames 3000 >/dev/null
        "$nic" bench rx --config "$c" --frames 100 >/dev/null
    done
    "$nic" bench tx --config full --frames 100 --tso-requests 10 >/dev/null
    "$nic" bench tx --config full --frames 100 --tso-requests 10 --queues 8 >/dev/null
    # RDMA between two `full` NICs: WRITE, READ and SEND through the verbs
    for op in write read send; do
        "$nic" sim rdma --op "$op" --size 4096 --count 32 >/dev/null
    done
    for p in "$out_dir"/*/pgo; do
        [ -f "$p/instrumented" ] && echo "$trainer" > "$p/trainer"
    done
    echo "build.sh: trained in $(( $(date +%s) - t0 )) s"
fi
"$CARGO" build --release -j"$JOBS" "${final[@]}"
