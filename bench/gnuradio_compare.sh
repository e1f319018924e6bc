#!/usr/bin/env bash
# gnuradio_compare.sh - complex FIR filtering of a cf32 capture, file to file:
# `convoy filter --engine cpu` against GNU Radio's fft_filter_ccc (complex
# taps) and fft_filter_ccf (real taps), nthreads 1 and 2, on the same files in
# the same session.
#
# Input: 2^25 complex samples (256 MiB of cf32, noise), read from the page
# cache (read once before each run). Taps: 128 and 1024, complex (random)
# and real (their real parts). Outputs go to OUTDIR (default /dev/shm when
# it exists, so that neither program waits for a disk). Each configuration
# runs --runs times (default 3), the programs interleaved round by round;
# the table gives the median wall time of the whole process (start-up,
# planning, reading, filtering, writing) as mega-samples per second, and GNU
# Radio's own tb.run() time beside it. convoy's output is checked against GNU
# Radio's (relative L2 over the samples both wrote: fft_filter stops at its
# last whole block).
#
# usage: bench/gnuradio_compare.sh [--convoy PATH] [--runs N] [--samples N]
#            [--outdir DIR] [--out FILE]
#   defaults: build/convoy, 3 runs, 33554432 samples, FILE =
#   bench/results/gnuradio/gnuradio.md (the table; every run in gnuradio.tsv).
# Needs: /usr/bin/python3 with numpy and GNU Radio (Debian gnuradio).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CONVOY=$HERE/../build/convoy
RUNS=3
SAMPLES=33554432
OUTDIR=/tmp
[ -d /dev/shm ] && OUTDIR=/dev/shm
OUT=$HERE/results/gnuradio/gnuradio.md
PY=/usr/bin/python3
while [ $# -gt 0 ]; do
  case $1 in
  --convoy) CONVOY=$2; shift 2 ;;
  --runs) RUNS=$2; shift 2 ;;
  --samples) SAMPLES=$2; shift 2 ;;
  --outdir) OUTDIR=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  *) echo "usage: $0 [--convoy PATH] [--runs N] [--samples N] [--outdir DIR] [--out FILE]" >&2
     exit 1 ;;
  esac
done
"$PY" -c "import numpy, gnuradio" || { echo "needs numpy and GNU Radio for $PY" >&2; exit 1; }
[ -x "$CONVOY" ] || { echo "no convoy program at $CONVOY (give --convoy)" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
TSV=${OUT%.md}.tsv
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gr-compare.XXXXXX")
OWORK=$(mktemp -d "$OUTDIR/gr-compare-out.XXXXXX")
trap 'rm -rf "$WORK" "$OWORK"' EXIT

"$PY" - "$WORK" "$SAMPLES" <<'PY'
import sys
import numpy as np
work, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(2024)
x = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.25).astype(np.complex64)
x.tofile(f"{work}/in.cf32")
for m in (128, 1024):
    h = (rng.standard_normal(m) + 1j * rng.standard_normal(m)) / np.sqrt(2.0 * m)
    h.astype(np.complex64).tofile(f"{work}/c{m}.cf32")
    h.real.astype(np.float32).tofile(f"{work}/r{m}.f32")
PY

now() { date +%s.%N; }
warm() { cat "$WORK/in.cf32" >/dev/null; }

# One run; prints "wall inner" (inner: GNU Radio's tb.run() seconds, or -).
run_convoy() { # TAPS
  warm
  local t0 t1
  t0=$(now)
  "$CONVOY" filter "$WORK/in.cf32" "$OWORK/convoy.cf32" --taps "$1" --engine cpu -q -y
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) -"
}
run_gr() { # TAPS NTHREADS [--real]
  warm
  local t0 t1 inner
  t0=$(now)
  inner=$("$PY" "$HERE/gnuradio_fft_filter.py" "$WORK/in.cf32" "$OWORK/gr.cf32" "$1" \
    --nthreads "$2" ${3:-})
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) $inner"
}

{
  echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "# GNU Radio $("$PY" -c 'from gnuradio import gr; print(gr.version())'), $("$CONVOY" --version 2>&1 | head -1)"
  echo "# samples $SAMPLES, outputs in $OUTDIR, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$TSV.head"
printf 'taps\ttype\tprogram\trun\twall_s\tinner_s\n' >"$TSV"

CHECKS=""
for m in 128 1024; do
  for kind in complex real; do
    if [ $kind = complex ]; then ctaps=$WORK/c$m.cf32 grtaps=$WORK/c$m.cf32 real=""
    else ctaps=$WORK/r$m.f32 grtaps=$WORK/c$m.cf32 real=--real; fi
    for r in $(seq 1 "$RUNS"); do
      read -r w i < <(run_convoy "$ctaps")
      printf '%s\t%s\tconvoy cpu\t%s\t%s\t%s\n' $m $kind "$r" "$w" "$i" >>"$TSV"
      for nt in 1 2; do
        read -r w i < <(run_gr "$grtaps" $nt $real)
        printf '%s\t%s\tGNU Radio nthreads=%s\t%s\t%s\t%s\n' $m $kind $nt "$r" "$w" "$i" >>"$TSV"
      done
    done
    err=$("$PY" -c "
import numpy as np, sys
a = np.fromfile('$OWORK/gr.cf32', np.complex64); b = np.fromfile('$OWORK/convoy.cf32', np.complex64)
n = min(len(a), len(b)); print('%.2e' % (np.linalg.norm(a[:n] - b[:n]) / np.linalg.norm(a[:n])))")
    CHECKS="$CHECKS$m $kind taps: convoy vs GNU Radio rel L2 $err"$'\n'
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$TSV.head"

"$PY" - "$TSV" "$SAMPLES" >"$OUT" <<'PY'
import sys, statistics
from collections import defaultdict
tsv, n = sys.argv[1], int(sys.argv[2])
rows = defaultdict(list)
order = []
for line in open(tsv).read().splitlines()[1:]:
    taps, kind, prog, run, wall, inner = line.split("\t")
    key = (int(taps), kind, prog)
    if key not in rows: order.append(key)
    rows[key].append((float(wall), None if inner == "-" else float(inner)))
print("| taps | taps type | program | median wall s | MS/s (wall) | tb.run() s | MS/s (tb.run) | GNU Radio's best wall / this wall |")
print("|---:|---|---|---:|---:|---:|---:|---:|")
best = {}
for key in order:
    if key[2].startswith("GNU"):
        w = statistics.median(r[0] for r in rows[key])
        k = key[:2]
        best[k] = min(best.get(k, 1e30), w)
for key in order:
    walls = [r[0] for r in rows[key]]
    inners = [r[1] for r in rows[key] if r[1] is not None]
    w = statistics.median(walls)
    mi = statistics.median(inners) if inners else None
    inner = "%.3f" % mi if inners else "-"
    inner_rate = "%.1f" % (n / mi / 1e6) if inners else "-"
    ratio = best[key[:2]] / w
    print(f"| {key[0]} | {key[1]} | {key[2]} | {w:.3f} | {n / w / 1e6:.1f} | {inner} | {inner_rate} | {ratio:.2f}x |")
PY
{
  sed 's/^# /    /' "$TSV.head"
  echo
  printf '%s' "$CHECKS" | sed 's/^/    /'
} >>"$OUT"
rm -f "$TSV.head"
cat "$OUT"
