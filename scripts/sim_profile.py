#!/usr/bin/env python3
"""Where a Verilated model's time goes, per block: reads a callgrind profile of `nic` whose
model was compiled with debug lines (scripts/sim_profile.sh makes both) and gives each
costed line of the generated C++ to the block whose signal that statement assigns (the
left-hand side; a statement that assigns none, such as an `if` condition, is shared among
the signals it reads). Blocks are named by their instance path under `nic_top`, cut to
DEPTH levels (`tx`, `tx/fetch__0240`, ...; `__024` is Verilator's `$`).

    scripts/sim_profile.py CALLGRIND_OUT OBJ_DIR [DEPTH] [--filter TEXT] [--top N]

Costs inlined from Verilator's headers (wide-word and parity helpers) lose their caller's
line and are listed apart."""

import argparse
import collections
import os
import re


def line_costs(path):
    """(file, line) -> Ir of a callgrind output written with --dump-instr=no (the default
    line positions), inlined files (fi=/fe=) included, call costs (calls=) left out."""
    names = {}
    cost = collections.Counter()
    fl = cur = None
    last = 0
    skip = False
    for raw in open(path, encoding="utf-8", errors="replace"):
        line = raw.rstrip("\n")
        m = re.match(r"^(cfi|cfl|fl|fi|fe)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) in ("cfi", "cfl"):
                continue
            f = names.get(m.group(2))
            if m.group(1) == "fl":
                fl = f
            cur = f
            continue
        if line.startswith("fn="):
            cur = fl
            continue
        if line.startswith("calls="):
            skip = True
            continue
        m = re.match(r"^([+-]?\d+|\*)\s+(\d+)", line)
        if m:
            p = m.group(1)
            ln = last if p == "*" else (last + int(p) if p[0] in "+-" else int(p))
            last = ln
            if skip:
                skip = False
                continue
            cost[(cur, ln)] += int(m.group(2))
    return cost


def statement(src, ln):
    """The generated statement around 1-based line `ln`."""
    i = j = ln - 1
    while i > 0 and not src[i - 1].rstrip().endswith((";", "{", "}")):
        i -= 1
    while j < len(src) - 1 and not src[j].rstrip().endswith((";", "{", "}")):
        j += 1
    return " ".join(src[i : j + 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("callgrind_out")
    ap.add_argument("obj_dir", help="the model's Verilator output (target/release/build/nic-sim-*/out/<variant>/obj)")
    ap.add_argument("depth", nargs="?", type=int, default=1)
    ap.add_argument("--filter", default="", help="only signals whose name contains this")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()

    cost = line_costs(a.callgrind_out)
    total = sum(cost.values())
    model = 0
    blocks = collections.Counter()
    helpers = 0
    sources = {}
    for (f, ln), c in cost.items():
        if not f:
            continue
        base = os.path.basename(f)
        if "___024root__" in base and base.endswith(".cpp"):
            model += c
            if base not in sources:
                sources[base] = open(os.path.join(a.obj_dir, base), encoding="utf-8").read().split("\n")
            st = statement(sources[base], ln)
            m = re.match(r"\s*vlSelfRef\.(\w+)(\[[^\]]*\])*\s*=", st)
            refs = [m.group(1)] if m else re.findall(r"vlSelfRef\.(\w+)", st)
            refs = [r for r in refs if a.filter in r]
            if not refs:
                blocks["(other)"] += c
                continue
            for r in refs:
                r = re.sub(r"^(__Vdly(Set)?__)?nic_top(_axi)?_sim__DOT__dut__DOT__", "", r)  # a delayed assignment counts for its block
                blocks["/".join(r.split("__DOT__")[: a.depth])] += c / len(refs)
        elif "verilator/include" in f:
            helpers += c
    print(f"instructions: {total:,} in the run, {model:,} on the model's own lines, {helpers:,} in Verilator's inlined helpers")
    for k, v in blocks.most_common(a.top):
        print(f"{v / 1e6:9.2f} M {100 * v / max(model, 1):5.1f}%  {k}")


if __name__ == "__main__":
    main()
