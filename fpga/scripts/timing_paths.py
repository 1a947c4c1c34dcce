#!/usr/bin/env python3
"""The N worst timing endpoints of an ECP5 nextpnr run, each with its worst path.

nextpnr's pnr.log shows only the single worst path per clock. This script redoes the
setup analysis over the post-route delays nextpnr writes for `nic synth --target ecp5-*
--block BLOCK` (fpga/src/flow.rs: DIR/routed.sdf, cell arcs, clock-to-out, setup and
interconnect delays; DIR/routed.json, the routed netlist, for nets and clocks) and lists
the N worst endpoints (flip-flop DI/M/CE/LSR, block-RAM inputs) with their slack against
the run's target period (report.json freq_mhz, else pnr.log, or --freq), each with its
path: source register -> nets passed through -> endpoint, the logic levels and how much
of the delay is routing. Endpoints of one register bus and pin kind (`state.q[0..7]` CE;
one memory's DI or AD pins) form one entry, shown by its worst bit and listing the
others' slacks; --bits lists single pins instead. Nets are named by their most readable
yosys alias (from DIR/<top>.json: a rust-hdl register's `x.q` rather than the port it
drives or a `x_LUT4_Z` name); --nextpnr-names keeps nextpnr's one name per net.

    ./target/release/nic synth --target ecp5-85k --block rdma_response_tx --speed 8 \\
        --freq 156.25 --out out/tp
    python3 fpga/scripts/timing_paths.py out/tp               # 25 worst endpoint groups
    python3 fpga/scripts/timing_paths.py out/tp -n 60 --bits  # 60 worst endpoint pins
    python3 fpga/scripts/timing_paths.py out/tp --full        # every carry-chain hop too

Delays are nextpnr's own (the max of each SDF min:typ:max triple, as its analyser
uses), so the results agree with pnr.log: the last lines check its "Critical path
report" per clock against this analysis, and --histogram prints pnr.log's "Slack
histogram" bins. Setup only (no hold); a path between two clock nets is not analysed
(nextpnr reports the worst of those separately); a negedge register gets half a period.
A run directory from before flow.rs wrote routed.sdf/routed.json needs a new synthesis.
Python 3 standard library only; a few seconds for a block of 7,000 LUTs.
"""

import argparse
import json
import math
import os
import re
import sys
import time
from collections import defaultdict

NAME = r'(?:\\.|[^\s()\\])+'
TRIPLE = r'\(([^()]*)\)'
RE_INSTANCE = re.compile(r'\(INSTANCE\s*(' + NAME + r')?\s*\)')
RE_CELLTYPE = re.compile(r'\(CELLTYPE\s+"([^"]*)"\)')
RE_IOPATH = re.compile(r'\(IOPATH\s+(?:\((posedge|negedge)\s+(' + NAME + r')\)|(' + NAME + r'))\s+(' + NAME + r')\s+' + TRIPLE)
RE_SETUPHOLD = re.compile(r'\(SETUPHOLD\s+(?:\((?:posedge|negedge)\s+(' + NAME + r')\)|(' + NAME + r'))\s+(?:\((posedge|negedge)\s+(' + NAME + r')\)|(' + NAME + r'))\s+' + TRIPLE)
RE_INTERCONNECT = re.compile(r'\(INTERCONNECT\s+(' + NAME + r')\s+(' + NAME + r')\s+' + TRIPLE)
RE_UNESCAPE = re.compile(r'\\(.)')
RE_BIT = re.compile(r'^(.*)\[(\d+)\]$')
RE_REG = re.compile(r'\.q(?:\[\d+\])?$')  # a rust-hdl DFF's output
# Ports that clock a cell: an IOPATH from one of these is a clock-to-out (launch) arc.
CLOCK_PORTS = {'CLK', 'CLKA', 'CLKB', 'WCK', 'CLKI', 'CLKO', 'SCLK', 'ECLK', 'CLKW', 'CLKR'}
# Inputs fed by a dedicated in-slice wire (carry chain, wide-mux tree): not a LUT level.
CHAIN_PORTS = {'FCI', 'FXA', 'FXB', 'F1', 'DI0', 'DI1'}


def unescape(s):
    return RE_UNESCAPE.sub(r'\1', s) if '\\' in s else s


def split_pin(s):
    """`cell/port` (SDF escapes a `/` in a name as `\\/`) -> (cell, port), unescaped."""
    if '\\' not in s:
        c, _, p = s.rpartition('/')
        return c, p
    last, i = -1, 0
    while i < len(s):
        if s[i] == '\\':
            i += 2
            continue
        if s[i] == '/':
            last = i
        i += 1
    return unescape(s[:last]), unescape(s[last + 1:])


def triple_max(t):
    """SDF `min:typ:max` (ps) -> max in ns; nextpnr's analyser uses the max."""
    vals = [float(v) for v in t.split(':') if v.strip()]
    return max(vals) / 1000.0 if vals else 0.0


def read_sdf(path):
    """-> cells {name: type}, arcs [(cell, from, to, ns, clock edge or None)], checks [(cell, port,
    clock_port, edge, setup_ns)], nets [(dcell, dport, ucell, uport, ns)]."""
    cells, arcs, checks, nets = {}, [], [], []
    cell, ctype = None, '?'
    with open(path) as f:
        for line in f:
            s = line.lstrip()
            if s.startswith('(INTERCONNECT'):
                m = RE_INTERCONNECT.match(s)
                if m:
                    dc, dp = split_pin(m.group(1))
                    uc, up = split_pin(m.group(2))
                    nets.append((dc, dp, uc, up, triple_max(m.group(3))))
            elif s.startswith('(IOPATH'):
                m = RE_IOPATH.match(s)
                if m and cell is not None:
                    frm = unescape(m.group(2) or m.group(3))
                    arcs.append((cell, frm, unescape(m.group(4)), triple_max(m.group(5)), m.group(1) or ('posedge' if frm in CLOCK_PORTS else None)))
            elif s.startswith('(SETUPHOLD'):
                m = RE_SETUPHOLD.match(s)
                if m and cell is not None:
                    checks.append((cell, unescape(m.group(1) or m.group(2)), unescape(m.group(4) or m.group(5)), m.group(3) or 'posedge', triple_max(m.group(6))))
            elif s.startswith('(INSTANCE'):
                m = RE_INSTANCE.match(s)
                cell = unescape(m.group(1)) if m and m.group(1) else None
                if cell is not None:
                    cells[cell] = ctype
            elif s.startswith('(CELLTYPE'):
                m = RE_CELLTYPE.match(s)
                ctype = m.group(1) if m else '?'  # the cell's INSTANCE line follows
    return cells, arcs, checks, nets


def read_netlist(path):
    """routed.json -> (cells {name: cell json}, bit -> net name)."""
    with open(path) as f:
        d = json.load(f)
    mods = d['modules']
    top = next((m for m in mods.values() if m.get('attributes', {}).get('top')), None) or next(iter(mods.values()))
    names = {}
    for n, v in top.get('netnames', {}).items():
        for b in v.get('bits', []):
            if isinstance(b, int) and (b not in names or names[b].startswith('$') and not n.startswith('$')):
                names[b] = n
    return top.get('cells', {}), names


AUTONAME = re.compile(r'_(?:TRELLIS_(?:FF|COMB|RAMW)|LUT4|CCU2C|PFUMX|L6MUX21|DP16KD|MULT18X18D|DPR16X4|TRELLIS_DPR16X4)_|\$')


def name_score(name, hidden):
    """Lower is better: a name the HDL wrote before one yosys made up (`x_LUT4_Z_D`)."""
    return (1 if hidden or name.startswith('$') else 0, 1 if AUTONAME.search(name) else 0, len(name), name)


def read_aliases(path):
    """The synthesized netlist (yosys, before nextpnr keeps one name per net) ->
    (name -> bits, bit -> [(name, index, hidden)])."""
    with open(path) as f:
        d = json.load(f)
    mods = d['modules']
    top = next((m for m in mods.values() if m.get('attributes', {}).get('top')), None) or next(iter(mods.values()))
    by_name, by_bit = {}, defaultdict(list)
    for n, v in top.get('netnames', {}).items():
        bits, offset, upto = v.get('bits', []), int(v.get('offset', 0)), bool(v.get('upto'))
        by_name[n] = (bits, offset, upto)
        for i, b in enumerate(bits):
            if isinstance(b, int):
                # the bit's index as nextpnr writes it in `name[index]`
                by_bit[b].append((n, (len(bits) - 1 - i if upto else i) + offset if len(bits) > 1 else None, bool(v.get('hide_name'))))
    return by_name, by_bit


def synth_netlist(run):
    """The yosys JSON next to routed.json (`<top>.json`, top from report.json)."""
    try:
        with open(os.path.join(run, 'report.json')) as f:
            p = os.path.join(run, json.load(f)['top'] + '.json')
            if os.path.exists(p):
                return p
    except (OSError, KeyError, ValueError, TypeError):
        pass
    skip = {'routed.json', 'report.json', 'pnr_report.json'}
    cands = [f for f in os.listdir(run) if f.endswith('.json') and f not in skip]
    return os.path.join(run, cands[0]) if len(cands) == 1 else None


def target_period(run, freq):
    if freq:
        return 1000.0 / freq, freq
    try:
        with open(os.path.join(run, 'report.json')) as f:
            mhz = float(json.load(f)['freq_mhz'])
            return 1000.0 / mhz, mhz
    except (OSError, KeyError, ValueError, TypeError):
        pass
    try:
        with open(os.path.join(run, 'pnr.log')) as f:
            m = re.search(r'\((?:PASS|FAIL) at ([\d.]+) MHz\)', f.read())
            if m:
                return 1000.0 / float(m.group(1)), float(m.group(1))
    except OSError:
        pass
    sys.exit('no target frequency: give --freq MHZ (no report.json or pnr.log in %s)' % run)


def nextpnr_critical(run):
    """pnr.log's critical paths: [(clock, source, sink, total_ns)]."""
    out = []
    try:
        with open(os.path.join(run, 'pnr.log')) as f:
            lines = [l[5:].strip() if l.startswith('Info:') else l.strip() for l in f]
    except OSError:
        return out
    i = 0
    while i < len(lines):
        m = re.match(r"Critical path report for (?:clock '([^']*)'|(cross-domain path '[^']*' -> '[^']*'))", lines[i])
        if m:
            src = sink = total = None
            j = i + 1
            while j < len(lines) and lines[j] and not lines[j].startswith('Critical path report'):
                p = lines[j].split()
                if len(p) >= 5 and p[3] == 'Source':
                    try:
                        total = float(p[2])
                    except ValueError:
                        pass
                    if src is None:
                        src = p[4]
                    if p[0] == 'setup':
                        sink = p[4]
                elif len(p) == 2 and p[0] == 'Sink':
                    sink = p[1]
                j += 1
            out.append((m.group(1) or m.group(2), src, sink, total))
            i = j
        else:
            i += 1
    return out


def bus_of(name):
    m = RE_BIT.match(name)
    return (m.group(1), int(m.group(2))) if m else (name, None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], epilog='See the top of this file for details.')
    ap.add_argument('run', help='a `nic synth --target ecp5-* --block` output directory (routed.json, routed.sdf)')
    ap.add_argument('-n', type=int, default=25, help='how many endpoints (groups) to list (25)')
    ap.add_argument('--freq', type=float, help='target MHz (default: the run\'s, from report.json)')
    ap.add_argument('--bits', action='store_true', help='list single endpoint pins, not register-bus groups')
    ap.add_argument('--full', action='store_true', help='show every hop (carry chains are folded by default)')
    ap.add_argument('--histogram', action='store_true', help="also print the endpoint slack histogram (pnr.log's bins)")
    ap.add_argument('--nextpnr-names', action='store_true', help="name nets as nextpnr does (default: the most readable yosys alias)")
    ap.add_argument('--sdf', help='SDF file (RUN/routed.sdf)')
    ap.add_argument('--netlist', help='routed JSON netlist (RUN/routed.json)')
    args = ap.parse_args()
    t0 = time.time()
    run = args.run
    sdf = args.sdf or os.path.join(run, 'routed.sdf')
    netlist = args.netlist or os.path.join(run, 'routed.json')
    for p in (sdf, netlist):
        if not os.path.exists(p):
            sys.exit('%s is missing: re-run `nic synth --target ecp5-... --block ...` (its nextpnr writes --sdf routed.sdf --write routed.json)' % p)
    try:  # nextpnr writes the SDF just before its log ends: an older one is from an earlier run
        if os.path.getmtime(os.path.join(run, 'pnr.log')) - os.path.getmtime(sdf) > 60:
            print('warning: %s is older than pnr.log: from an earlier run?' % sdf, file=sys.stderr)
    except OSError:
        pass
    period, mhz = target_period(run, args.freq)
    cell_types, arcs, checks, conns = read_sdf(sdf)
    jcells, netname = read_netlist(netlist)
    synth = None if args.nextpnr_names else synth_netlist(run)
    alias_by_name, alias_by_bit = read_aliases(synth) if synth else ({}, {})

    def raw_net(cell, port):
        c = jcells.get(cell)
        bits = c and c.get('connections', {}).get(port)
        return netname.get(bits[0]) if bits and isinstance(bits[0], int) else None

    best_cache = {}

    def best_name(name, register=False):
        """nextpnr's name of a net -> the most readable of its yosys aliases (for a
        flip-flop output, a rust-hdl register's `x.q` before the port it drives)."""
        if name is None or not alias_by_bit:
            return name
        r = best_cache.get((name, register))
        if r is None:
            bit = None
            e = alias_by_name.get(name)
            if e and len(e[0]) == 1:
                bit = e[0][0]
            else:
                m = RE_BIT.match(name)
                e = m and alias_by_name.get(m.group(1))
                if e and len(e[0]) > 1:
                    bits, offset, upto = e
                    i = int(m.group(2)) - offset
                    i = len(bits) - 1 - i if upto else i
                    if 0 <= i < len(bits):
                        bit = bits[i]
            r = name
            if isinstance(bit, int) and bit in alias_by_bit:
                cands = [(n if i is None else '%s[%d]' % (n, i), h) for n, i, h in alias_by_bit[bit]]
                cands.append((name, name.startswith('$')))
                key = lambda c: ((0 if register and RE_REG.search(c[0]) else 1,) + name_score(*c))
                r = min(cands, key=key)[0]
            best_cache[(name, register)] = r
        return r

    def net_of(cell, port):
        return best_name(raw_net(cell, port), register=cell_types.get(cell) == 'TRELLIS_FF' and port == 'Q')

    def neg_clock(cell, clk_port):
        params = jcells.get(cell, {}).get('parameters', {})
        return params.get('CLKMUX' if clk_port == 'CLK' else clk_port + 'MUX', '').strip() == 'INV'

    # -- the timing graph: one node per cell pin ------------------------------------
    index, pins = {}, []

    def node(cell, port):
        k = (cell, port)
        i = index.get(k)
        if i is None:
            i = index[k] = len(pins)
            pins.append(k)
        return i

    succ = defaultdict(list)  # node -> [(node, delay, is_net)]
    launch = []               # (out node, clock-to-out, clock net, negedge)
    for cell, frm, to, d, is_clock in arcs:
        if is_clock:
            launch.append((node(cell, to), d, raw_net(cell, frm), is_clock == 'negedge' or neg_clock(cell, frm)))
        else:
            succ[node(cell, frm)].append((node(cell, to), d, False))
    for dc, dp, uc, up, d in conns:
        succ[node(dc, dp)].append((node(uc, up), d, True))
    capture = {}  # in node -> (setup, clock net, negedge)
    for cell, port, clk, edge, setup in checks:
        i = node(cell, port)
        # a negedge register: the SDF's edge, or CLKMUX INV when the SDF does not say
        neg = edge == 'negedge' or neg_clock(cell, clk)
        old = capture.get(i)
        if old is None or setup > old[0]:
            capture[i] = (setup, raw_net(cell, clk), neg)
    n = len(pins)

    # topological order (Kahn); nodes left over are on a combinational loop
    indeg = [0] * n
    for u, vs in succ.items():
        for v, _, _ in vs:
            indeg[v] += 1
    order = [i for i in range(n) if indeg[i] == 0]
    k = 0
    while k < len(order):
        for v, _, _ in succ.get(order[k], ()):
            indeg[v] -= 1
            if indeg[v] == 0:
                order.append(v)
        k += 1
    if len(order) < n:
        print('warning: %d pins on combinational loops are not timed' % (n - len(order)), file=sys.stderr)

    # -- arrival times, one pass per launching clock (net, edge) ---------------------
    domains = defaultdict(list)
    for i, d, clk, neg in launch:
        domains[(clk, neg)].append((i, d))
    results = {}  # endpoint node -> (slack, arrival, required, setup, clock, pred list, launch delay)
    NEG = -math.inf
    for (clk, lneg), starts in domains.items():
        arr = [NEG] * n
        pred = [-1] * n
        start_d = {}
        for i, d in starts:
            if d > arr[i]:
                arr[i] = d
                start_d[i] = d
        for u in order:
            a = arr[u]
            if a == NEG:
                continue
            for v, d, _ in succ.get(u, ()):
                if a + d > arr[v]:
                    arr[v] = a + d
                    pred[v] = u
        for e, (setup, cclk, cneg) in capture.items():
            if arr[e] == NEG or cclk != clk:
                continue
            required = period * (1.0 if cneg == lneg else 0.5) - setup
            slack = required - arr[e]
            if e not in results or slack < results[e][0]:
                path = [e]
                while pred[path[-1]] >= 0:
                    path.append(pred[path[-1]])
                path.reverse()
                results[e] = (slack, arr[e], required, setup, clk, path, start_d.get(path[0], 0.0))
    if not results:
        sys.exit('no timed register-to-register paths found in %s' % sdf)

    # -- describe -------------------------------------------------------------------
    edge_delay = {}
    for u, vs in succ.items():
        for v, d, is_net in vs:
            edge_delay[(u, v)] = (d, is_net)

    def endpoint_name(e):
        cell, port = pins[e]
        t = cell_types.get(cell, '')
        if t == 'TRELLIS_FF':
            q = net_of(cell, 'Q')
            return (q or cell), ('D' if port in ('DI', 'M') else port)
        return cell, port

    def group_key(e):
        name, port = endpoint_name(e)
        cell, _ = pins[e]
        if cell_types.get(cell) == 'TRELLIS_FF':
            base, bit = bus_of(name)
            return (base, port), ('[%d]' % bit if bit is not None else '')
        # a RAM: one group per memory and pin kind (DIA7 -> DI, ADB3 -> AD)
        base = re.sub(r'(\.\d+)+$', '', cell)
        kind = re.sub(r'[AB]?\d*$', '', port) or port
        return (base, kind), (cell[len(base):] + '.' + port)

    def source_name(i):
        cell, port = pins[i]
        t = cell_types.get(cell, '?')
        return net_of(cell, port) or '%s.%s' % (cell, port), t

    def fmt_path(slack, arrival, required, setup, path, launch_d):
        route = sum(edge_delay[(u, v)][0] for u, v in zip(path, path[1:]) if edge_delay[(u, v)][1])
        logic = arrival - route + setup
        total = arrival + setup
        levels = sum(1 for u, v in zip(path, path[1:]) if not edge_delay[(u, v)][1])
        lut_levels = sum(1 for u, v in zip(path, path[1:]) if not edge_delay[(u, v)][1] and pins[u][1] not in CHAIN_PORTS)
        src, stype = source_name(path[0])
        lines = ['    %.2f ns = %.2f logic + %.2f routing (%d%% routing), %d logic levels (%d outside carry chains/wide muxes)'
                 % (total, logic, route, round(100 * route / total) if total > 0 else 0, levels, lut_levels)]
        lines.append('      route  logic  total')
        lines.append('             %5.2f  %5.2f  %s  (%s %s clock-to-out)' % (launch_d, launch_d, src, stype, pins[path[0]][1]))
        t = launch_d
        hops = []  # (net delay, cell delay, net name, sink pin, cell arc text)
        k = 0
        while k + 1 < len(path):
            u, v = path[k], path[k + 1]
            dn, _ = edge_delay[(u, v)]
            net = net_of(*pins[u]) or '?'
            if k + 2 < len(path) and not edge_delay[(v, path[k + 2])][1]:
                w = path[k + 2]
                dc = edge_delay[(v, w)][0]
                hops.append((dn, dc, net, v, w))
                k += 2
            else:
                hops.append((dn, None, net, v, None))
                k += 1
        j = 0
        while j < len(hops):
            dn, dc, net, v, w = hops[j]
            # fold a run of carry-chain hops (FCI -> FCO, no routing) into one line
            if not args.full and pins[v][1] == 'FCI' and w is not None:
                run_ = j
                while run_ + 1 < len(hops) and pins[hops[run_ + 1][3]][1] == 'FCI' and hops[run_ + 1][4] is not None:
                    run_ += 1
                if run_ > j:
                    drt = sum(h[0] for h in hops[j:run_ + 1])
                    dlg = sum(h[1] for h in hops[j:run_ + 1])
                    t += drt + dlg
                    lw = hops[run_][4]
                    lines.append('      %5.2f  %5.2f  %5.2f  carry chain: %d cells, to %s.%s'
                                 % (drt, dlg, t, run_ - j + 1, pins[lw][0], pins[lw][1]))
                    j = run_ + 1
                    continue
            t += dn
            if w is not None:
                t += dc
                lines.append('      %5.2f  %5.2f  %5.2f  %s -> %s %s->%s'
                             % (dn, dc, t, net, cell_types.get(pins[v][0], '?'), pins[v][1], pins[w][1]))
            else:
                lines.append('      %5.2f         %5.2f  %s -> %s.%s' % (dn, t, net, pins[v][0], pins[v][1]))
            j += 1
        lines.append('             %5.2f  %5.2f  setup at %s.%s; deadline %.2f ns (the clock edge)' % (setup, t + setup, pins[path[-1]][0], pins[path[-1]][1], required + setup))
        return lines

    ends = sorted(results, key=lambda e: results[e][0])
    failing = [e for e in ends if results[e][0] < 0]
    tns = sum(results[e][0] for e in failing)
    worst = results[ends[0]]
    clocks = sorted({str(r[4]) for r in results.values()})
    print('%s: target %.3f ns (%.2f MHz), clock%s %s; worst slack %+.3f ns (Fmax of the worst path %.1f MHz)'
          % (run, period, mhz, 's' if len(clocks) > 1 else '', ', '.join("'%s'" % c for c in clocks), worst[0], 1000.0 / (period - worst[0])))
    print('%d timed endpoints, %d failing, total negative slack %.2f ns' % (len(ends), len(failing), tns))
    if len(clocks) > 1:
        for c in clocks:
            ce = [e for e in ends if str(results[e][4]) == c]
            print("  clock '%s': worst slack %+.3f ns, %d endpoints, %d failing" % (c, results[ce[0]][0], len(ce), sum(1 for e in ce if results[e][0] < 0)))
        print('  (paths between the clocks are not analysed; pnr.log reports the worst of them)')
    if args.histogram:
        # the bins of pnr.log's "Slack histogram", to compare the two analyses
        ps = [int(round(results[e][0] * 1000)) for e in ends]
        lo, hi = ps[0], ps[-1]
        width = max(1, math.ceil((hi - lo + 1) / 20.0))
        counts = [0] * 20
        for v in ps:
            counts[min(19, (v - lo) // width)] += 1
        print('slack histogram (ps, endpoints):')
        for b, c in enumerate(counts):
            print('  [%6d, %6d) %5d' % (lo + b * width, lo + (b + 1) * width, c))

    if args.bits:
        entries = [(results[e][0], e, None) for e in ends[:args.n]]
    else:
        groups = defaultdict(list)
        for e in ends:
            key, label = group_key(e)
            groups[key].append((results[e][0], label, e))
        entries = sorted(((v[0][0], v[0][2], (k, v)) for k, v in groups.items()), key=lambda x: x[0])[:args.n]
        print('%d endpoint groups (register bus + pin kind), %d failing' % (len(groups), sum(1 for v in groups.values() if v[0][0] < 0)))
    for rank, (slack, e, grp) in enumerate(entries, 1):
        s, arrival, required, setup, clk, path, launch_d = results[e]
        name, port = endpoint_name(e)
        print()
        print('%2d. slack %+.3f ns  %s  %s  (%s %s, clock %s)'
              % (rank, slack, name, port, cell_types.get(pins[e][0], '?'), pins[e][0] + '.' + pins[e][1], clk))
        if grp is not None and len(grp[1]) > 1:
            (base, kind), members = grp
            nf = sum(1 for m in members if m[0] < 0)
            more = ' '.join('%s %+.2f' % (m[1] or '-', m[0]) for m in members[:12])
            print('    group %s %s: %d endpoint%s, %d failing, slack %+.2f .. %+.2f: %s%s'
                  % (base, kind, len(members), 's' if len(members) != 1 else '', nf, members[0][0], members[-1][0], more,
                     ' ...' if len(members) > 12 else ''))
        for l in fmt_path(s, arrival, required, setup, path, launch_d):
            print(l)

    # -- agreement with nextpnr's own critical path ---------------------------------
    print()
    for clk, src, sink, total in nextpnr_critical(run):
        if total is None or not sink:
            continue
        scell, _, sport = sink.rpartition('.')
        e = index.get((scell, sport))
        r = results.get(e) if e is not None else None
        mine = r[1] + r[3] if r else None
        srcpin = pins[r[5][0]] if r else None
        same_src = srcpin is not None and src == '%s.%s' % srcpin
        if r is None:
            print("check: nextpnr's %s ends at %s: not analysed here" % (clk, sink))
            continue
        same_clock = [x for x in ends if results[x][4] == r[4]]
        rank = same_clock.index(e) + 1
        print("check: nextpnr's critical path (clock %s) %s -> %s %.2f ns; here %.3f ns (%+.1f%%), %s, endpoint %s of %d by slack%s"
              % (clk, src, sink, total, mine, 100.0 * (mine - total) / total if total else 0.0,
                 'same source' if same_src else 'source %s.%s' % srcpin, '#%d' % rank, len(same_clock),
                 '' if rank == 1 else ' (#1: %s.%s, %+.3f ns)' % (pins[same_clock[0]] + (results[same_clock[0]][0],))))
    print('(%.1f s)' % (time.time() - t0), file=sys.stderr)


if __name__ == '__main__':
    main()
