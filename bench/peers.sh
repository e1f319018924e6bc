#!/usr/bin/env bash
# peers.sh - measures convoy next to its peers on this machine, in one session,
# on the same input and the same taps, and writes a results table.
#
#   in memory:    scipy.signal.oaconvolve and fftconvolve (float32 arrays,
#                 only the call timed) vs `convoy bench` (stream, in memory)
#   file to file: sox IN OUT fir TAPS.txt, ffmpeg -i IN -i IR.wav afir, and
#                 convoy filter IN OUT --taps TAPS.txt (wall clock per command)
#
# usage: bench/peers.sh [--convoy PATH] [--out DIR] [--runs N] [--frames N]
#                       [--taps "16 1024 65536"] [--file-taps "16 1024 65536"]
#                       [--python PATH] [--timeout S]
#
# Input: FRAMES (default 2^24) mono samples at 48 kHz, uniform noise, as a
# float32 WAV and a pcm16 WAV; taps: scipy.signal.firwin(N, 0.5) lowpass, as
# text (sox, convoy), .npy (scipy) and a float32 WAV (ffmpeg's IR). Each file
# command runs once untimed, then RUNS (default 5) timed runs; the output is
# deleted before each run (not timed). A command that exceeds --timeout
# (default 300 s) is reported as such. Results go to OUT (default
# bench/results): peers.tsv (raw), peers.md (tables), commands.txt, check.txt
# (outputs compared with a float64 reference on a short file), machine.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
convoy=${CONVOY:-$here/../build/convoy}
out=$here/results
runs=5
frames=$((1 << 24))
taps="16 1024 65536"
file_taps="16 1024 65536"
python=""
timeout_s=300

while [ $# -gt 0 ]; do
  case $1 in
    --convoy) convoy=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --taps) taps=$2; shift 2 ;;
    --file-taps) file_taps=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "peers.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done

die() { echo "peers.sh: $*" >&2; exit 2; }
[ -x "$convoy" ] || die "no convoy program at '$convoy' (build it, or pass --convoy PATH)"
convoy=$(cd "$(dirname "$convoy")" && pwd)/$(basename "$convoy")
if [ -z "$python" ]; then
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy, scipy' 2>/dev/null; then python=$p; break; fi
  done
fi
[ -n "$python" ] || die "no python3 with numpy and scipy (apt-get install python3-scipy)"
command -v sox >/dev/null || die "sox not found (apt-get install sox)"
command -v ffmpeg >/dev/null || die "ffmpeg not found (apt-get install ffmpeg)"

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/convoy-peers-XXXXXX")
trap 'rm -rf "$work"' EXIT
all_taps=$(printf '%s\n' $taps $file_taps | sort -nu | tr '\n' ' ')

tsv=$out/peers.tsv
cmds=$out/commands.txt
printf 'kind\ttool\ttaps\tsubtype\tmedian_s\tmin_s\tmax_s\tnote\n' >"$tsv"
: >"$cmds"

# ------------------------------------------------------------ the machine
{
  echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "threads:  $(nproc)"
  echo "memory:   $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel:   $(uname -r)"
  echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min, at start)"
  echo "convoy:   $("$convoy" --version 2>&1 | head -1)"
  echo "python:   $("$python" -c 'import sys, numpy, scipy; print(sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)')"
  echo "sox:      $(sox --version 2>&1 | head -1 | sed 's/^sox: *//')"
  echo "ffmpeg:   $(ffmpeg -hide_banner -version | head -1)"
} >"$out/machine.txt"
cat "$out/machine.txt"

# ------------------------------------------------------------ inputs
echo "making inputs: $frames frames, taps $all_taps"
"$python" "$here/make_inputs.py" "$work" "$frames" $all_taps

# ------------------------------------------------------------ timing
# time_cmd KIND TOOL TAPS SUBTYPE OUTPUT -- COMMAND...: one untimed run, then
# $runs timed runs (OUTPUT removed before each); appends a row to peers.tsv.
time_cmd() {
  local kind=$1 tool=$2 n=$3 sub=$4 output=$5
  shift 6
  printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$tool" "$n" "$sub" "$(printf '%q ' "$@")" >>"$cmds"
  rm -f "$output"
  local t0 t1 times=() rc=0
  t0=$(date +%s.%N)
  timeout "$timeout_s" "$@" >/dev/null 2>"$work/err" || rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then
    local note="exit $rc"
    [ $rc -eq 124 ] && note="over ${timeout_s} s"
    printf '%s\t%s\t%s\t%s\t\t\t\t%s\n' "$kind" "$tool" "$n" "$sub" "$note" >>"$tsv"
    echo "  $tool $n $sub: $note: $(head -c 300 "$work/err")"
    return 0
  fi
  # A warm-up that took longer than a third of the timeout is the only run.
  if awk -v a="$t0" -v b="$t1" -v lim="$timeout_s" 'BEGIN { exit !(b - a > lim / 3) }'; then
    times=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
  else
    for ((i = 0; i < runs; i++)); do
      rm -f "$output"
      t0=$(date +%s.%N)
      "$@" >/dev/null 2>"$work/err" || die "$tool failed: $(head -c 300 "$work/err")"
      t1=$(date +%s.%N)
      times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
    done
  fi
  rm -f "$output"
  local stats
  stats=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%.6f\t%.6f\t%.6f", m, v[1], v[NR] }')
  local note=""
  [ ${#times[@]} -lt "$runs" ] && note="1 run only"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$tool" "$n" "$sub" "$stats" "$note" >>"$tsv"
  echo "  $tool $n $sub: $(echo "$stats" | cut -f1) s ${note:+($note)}"
}

# ------------------------------------------------------------ in memory
echo "in memory: scipy ($runs runs each)"
printf 'memory\tscipy\t%s\t\t%s %s %s %s %s\n' "$taps" "$python" "$here/scipy_conv.py" "$work" \
  "$runs" "$taps" >>"$cmds"
"$python" "$here/scipy_conv.py" "$work" "$runs" $taps | while IFS=$'\t' read -r tool n med lo hi; do
  printf 'memory\t%s\t%s\tfloat32\t%s\t%s\t%s\t\n' "$tool" "$n" "$med" "$lo" "$hi" >>"$tsv"
  echo "  $tool $n: $med s"
done

echo "in memory: convoy bench ($runs runs each)"
taps_csv=$(echo $taps | tr ' ' ',')
bench_cmd=("$convoy" bench --taps "$taps_csv" --frames "$frames" --runs "$runs" --json)
printf 'memory\tconvoy\t%s\t\t%s\n' "$taps" "${bench_cmd[*]}" >>"$cmds"
"${bench_cmd[@]}" >"$out/convoy-bench.json" || echo "  convoy bench reported failures"
"$python" - "$out/convoy-bench.json" >>"$tsv" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["memory"]:
    tool = "convoy " + r["engine"]
    if r["state"] == "ok":
        s = r["seconds"]
        note = "ran " + r["engine_run"] if r["engine"] == "auto" else ""
        print(f"memory\t{tool}\t{r['taps']}\tfloat32\t{s['median']:.6f}\t{s['min']:.6f}\t{s['max']:.6f}\t{note}")
    else:
        note = r["state"] + (f" (estimated {r['estimate_s']:.1f} s per run)" if r["state"] == "skipped" else "")
        print(f"memory\t{tool}\t{r['taps']}\tfloat32\t\t\t\t{note}")
PY

# ------------------------------------------------------------ file to file
# ffmpeg afir: gtype=none turns the automatic IR gain off; ffmpeg 5.1 then
# still outputs twice the convolution (measured, any tap count), and
# irgain=0.5 brings it to unity; check.txt verifies the result.
afir_opts=${AFIR_OPTS:-gtype=none:irgain=0.5:dry=1:wet=1:precision=float}
for n in $file_taps; do
  for sub in float pcm16; do
    in=$work/in-$sub.wav
    o=$work/out-$sub.wav
    codec=pcm_f32le
    [ $sub = pcm16 ] && codec=pcm_s16le
    echo "file to file: $n taps, $sub ($runs runs each)"
    time_cmd file convoy "$n" $sub "$o" -- "$convoy" filter "$in" "$o" --taps "$work/taps-$n.txt" -q -y
    time_cmd file sox "$n" $sub "$o" -- sox "$in" "$o" fir "$work/taps-$n.txt"
    time_cmd file ffmpeg-afir "$n" $sub "$o" -- ffmpeg -nostdin -hide_banner -loglevel error -y \
      -i "$in" -i "$work/ir-$n.wav" \
      -lavfi "[0:a][1:a]afir=$afir_opts" -c:a $codec "$o"
  done
done

# ------------------------------------------------------------ same results?
# A short float file through each tool, compared with a float64 reference.
echo "checking outputs on a short file"
short=$work/short
mkdir -p "$short"
"$python" "$here/make_inputs.py" "$short" 65536 $file_taps
{
  for n in $file_taps; do
    "$convoy" filter "$short/in-float.wav" "$short/convoy-$n.wav" --taps "$short/taps-$n.txt" -q -y
    "$convoy" filter "$short/in-float.wav" "$short/convoy-align-$n.wav" --taps "$short/taps-$n.txt" \
      --align -q -y
    sox "$short/in-float.wav" "$short/sox-$n.wav" fir "$short/taps-$n.txt"
    ffmpeg -nostdin -hide_banner -loglevel error -y -i "$short/in-float.wav" -i "$short/ir-$n.wav" \
      -lavfi "[0:a][1:a]afir=$afir_opts" -c:a pcm_f32le \
      "$short/ffmpeg-$n.wav"
    "$python" "$here/compare_outputs.py" "$short/in-float.wav" "$short/taps-$n.npy" \
      "$short/convoy-$n.wav" "$short/convoy-align-$n.wav" "$short/sox-$n.wav" "$short/ffmpeg-$n.wav" |
      sed "s|$short/||"
  done
} | tee "$out/check.txt"

echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (at end)" >>"$out/machine.txt"
"$python" "$here/peers_table.py" "$tsv" "$frames" >"$out/peers.md"
cat "$out/peers.md"
echo "results in $out"
