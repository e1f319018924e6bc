#!/bin/bash
# bench/plot_bench.py over a short `convoy bench --json` run (and over a
# peers.tsv of bench/peers.sh's shape): a well-formed SVG with one series per
# engine that ran, one point per tap count, at the throughput the JSON holds.
source "$(dirname "$0")/common.bash"

PY=$(python_with json xml.etree.ElementTree) || {
  echo "skipped: no python3"
  exit 77
}
PLOT="$TESTS_DIR/../bench/plot_bench.py"

run bench --json --taps 16,64,256 --frames 2^12 --runs 1 --engine cpu-direct,cpu-fft,auto
expect_status 0 "bench --json"
mv stdout.txt bench.json

cat >peers.tsv <<'TSV'
kind	tool	taps	subtype	median_s	min_s	max_s	note
memory	scipy.signal.oaconvolve	16	float32	0.010000	0.009000	0.011000	
memory	scipy.signal.oaconvolve	64	float32	0.020000	0.019000	0.021000	
memory	convoy cpu-fft	16	float32	0.001000	0.001000	0.001000	
file	sox	16	float	0.500000	0.400000	0.600000	
file	convoy	16	float	0.100000	0.090000	0.110000	
memory	scipy.signal.fftconvolve	256	float32				timed out
TSV

# check_plot SVG JSON [PEERS]: the series of SVG are JSON's engines that ran
# (and PEERS' tools), each point where the JSON (or TSV) puts it.
check_plot() {
  if "$PY" - "$@" >plot_check.txt 2>&1 <<'PY'; then pass; else fail "plot $1: $(head -c 600 plot_check.txt)"; fi
import json, sys
import xml.etree.ElementTree as ET

svg, bench = sys.argv[1], sys.argv[2]
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
assert root.tag == ns + "svg", root.tag
series = {g.get("data-engine"): g for g in root.iter(ns + "g") if g.get("class") == "series"}
want = {}
for r in json.load(open(bench))["memory"]:
    if r["state"] == "ok":
        want.setdefault(r["engine"], {})[r["taps"]] = r["msps"]["median"]
if len(sys.argv) > 3:  # 2^20 frames / median seconds / 1e6; the in-memory convoy row left out
    ms = lambda s: 1048576 / s / 1e6  # noqa: E731
    want["scipy.signal.oaconvolve"] = {16: ms(0.01), 64: ms(0.02)}
    want["sox (file, float)"] = {16: ms(0.5)}
    want["convoy filter (file, float)"] = {16: ms(0.1)}
assert set(series) == set(want), f"series {sorted(series)}, want {sorted(want)}"
for name, g in series.items():
    pts = {int(c.get("data-taps")): float(c.get("data-msps"))
           for c in g.iter(ns + "circle") if c.get("class") == "point"}
    assert set(pts) == set(want[name]), f"{name}: taps {sorted(pts)}, want {sorted(want[name])}"
    for t, v in pts.items():
        assert abs(v - want[name][t]) <= 1e-5 * want[name][t], f"{name} {t} taps: {v} != {want[name][t]}"
    line = g.find(ns + "polyline")
    assert line is not None and len(line.get("points").split()) == len(pts), f"{name}: polyline"
print("ok", sorted(series))
PY
}

if "$PY" "$PLOT" bench.json -o bench.svg 2>plot_err.txt; then pass; else fail "plot_bench.py: $(cat plot_err.txt)"; fi
check_plot bench.svg bench.json
"$PY" "$PLOT" bench.json --peers peers.tsv --frames 1048576 >peers.svg 2>plot_err.txt
check "plot_bench.py --peers to stdout" test $? -eq 0
check_plot peers.svg bench.json peers.tsv

# Refusals: --peers without --frames, a file that is not JSON; no SVG left.
"$PY" "$PLOT" bench.json --peers peers.tsv -o no.svg 2>err.txt
check "--peers without --frames refused" test $? -ne 0 -a ! -e no.svg
echo 'not json' >bad.json
"$PY" "$PLOT" bad.json -o no.svg 2>err.txt
check "not JSON: refused, naming the file" bash -c "grep -q 'bad.json' err.txt && test ! -e no.svg"

finish
