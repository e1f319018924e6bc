#!/usr/bin/env bash
# brutefir_compare.sh - CPU load of real-time partitioned convolution: convoy
# (`convoy bench --live`) and BruteFIR on the same configurations, measured
# the same way.
#
# Configurations: 2 channels x 1 s and 8 channels x 2 s impulse responses at
# 48 kHz, each channel routed to its own output through its own IR, at 128-
# and 1024-frame partitions (BruteFIR's partition = convoy's block: the same
# latency, see docs/BENCHMARKS.md).
#
# Two methods, the same for both programs; every process and thread a
# program starts runs in a fresh cpuacct cgroup whose counter sums their CPU
# time (BruteFIR forks filter processes; convoy runs worker threads).
#
#   fast    each program runs, as fast as it can, on A and on B seconds of
#           float32 noise; load = (cpu(B) - cpu(A)) / (B - A), so start-up
#           (reading and transforming the IRs, FFTW planning) cancels out.
#           BruteFIR: raw file input, /dev/null output, FFTW wisdom made by an
#           untimed first run. convoy: `convoy bench --live --fast` (OFFLINE
#           mode, blocks back to back, no I/O).
#   paced   real time: BruteFIR as a client of a private jackd (dummy driver,
#           period = partition, ports unconnected), convoy `bench --live` at
#           its simulated real-time pace (timer thread, REALTIME mode); CPU
#           time of everything the program started over a window of
#           --rt-seconds, 2 s after start-up. jackd's own CPU is not counted.
#
# 100% = one core busy for as long as the audio lasts. Medians of the runs.
# "convoy-uniform" is convoy with --max-partition = block (uniform
# partitions, BruteFIR's scheme), to separate the algorithm from the code.
#
# usage: bench/brutefir_compare.sh [--convoy PATH] [--runs N] [--rt-runs N]
#            [--rt-seconds S] [--short A] [--long B] [--out DIR]
#   defaults: build/convoy, 5 fast runs, 3 paced runs (0: none), 8 s window,
#   A = 4 s, B = 24 s, DIR = bench/results/brutefir.
# Needs: brutefir, jackd (paced runs), /usr/bin/python3 with numpy (writes
# the IRs and input), a writable cpuacct cgroup (v1 or v2): run as root.
# Writes DIR/brutefir.tsv (every run), DIR/brutefir.md (the medians),
# DIR/commands.txt and the BruteFIR configurations.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
convoy=${CONVOY:-$here/../build/convoy}
runs=5
rt_runs=3
rt_s=8
jack_name=convoy-bench # one name: a killed server's registry entry is reclaimed next run
short_s=4
long_s=24
out=$here/results/brutefir
rate=48000
# channels ir_seconds partition
configs=("2 1 128" "2 1 1024" "8 2 128" "8 2 1024")

die() { echo "brutefir_compare: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
  --convoy) convoy=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --rt-runs) rt_runs=$2; shift 2 ;;
  --rt-seconds) rt_s=$2; shift 2 ;;
  --short) short_s=$2; shift 2 ;;
  --long) long_s=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  -h | --help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument '$1' (see --help)" ;;
  esac
done
command -v brutefir >/dev/null || die "brutefir is not installed"
[ -x "$convoy" ] || die "no convoy program at $convoy (use --convoy PATH)"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || die "needs /usr/bin/python3 with numpy"

# A fresh cgroup per measured command; cgroup v1 cpuacct, else v2.
if [ -w /sys/fs/cgroup/cpuacct ]; then
  cg_root=/sys/fs/cgroup/cpuacct cg_procs=tasks
elif [ -w /sys/fs/cgroup/unified ]; then
  cg_root=/sys/fs/cgroup/unified cg_procs=cgroup.procs
elif [ -w /sys/fs/cgroup/cgroup.procs ]; then
  cg_root=/sys/fs/cgroup cg_procs=cgroup.procs
else
  die "no writable cpuacct cgroup: run as root"
fi

work=$(mktemp -d /tmp/convoy-brutefir.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
: >"$out/commands.txt"

# cpu_ns CMD...: runs CMD (stdout to $work/stdout) in a new cgroup; prints
# the CPU nanoseconds of everything it ran.
cpu_ns() {
  local cg=$cg_root/convoy-bf-$$-$RANDOM ns
  mkdir "$cg"
  if ! (echo "$BASHPID" >"$cg/$cg_procs" && exec "$@") >"$work/stdout" 2>"$work/stderr"; then
    rmdir "$cg" 2>/dev/null || true
    cat "$work/stderr" >&2
    die "failed: $*"
  fi
  for _ in $(seq 50); do # BruteFIR's processes may outlive the parent briefly
    [ -z "$(cat "$cg/$cg_procs")" ] && break
    sleep 0.1
  done
  if [ -f "$cg/cpuacct.usage" ]; then
    ns=$(cat "$cg/cpuacct.usage")
  else
    ns=$(($(awk '$1 == "usage_usec" {print $2}' "$cg/cpu.stat") * 1000))
  fi
  rmdir "$cg"
  echo "$ns"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# write_inputs CH IR_S: IRs ir<c>.raw (decaying noise, -60 dB at the end, unit
# energy, as convoy bench --live makes them) and in<A|B>.raw interleaved noise.
write_inputs() {
  /usr/bin/python3 - "$work" "$1" "$2" "$rate" "$short_s" "$long_s" <<'EOF'
import sys, numpy as np
work, ch, ir_s, rate, a, b = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
rng = np.random.default_rng(0x6c697665)
n = int(round(ir_s * rate))
for c in range(ch):
    h = rng.uniform(-1, 1, n) * np.exp(np.log(1e-3) * np.arange(n) / n)
    (h / np.sqrt(np.sum(h * h))).astype('<f4').tofile(f'{work}/ir{c}.raw')
for name, sec in (('A', a), ('B', b)):
    rng.uniform(-0.25, 0.25, (int(sec * rate), ch)).astype('<f4').tofile(f'{work}/in{name}.raw')
EOF
}

# brutefir_conf CH IR_S P INPUT: a complete configuration (-nodefault); INPUT
# is a raw float32 file (output to /dev/null) or "jack" (ports of a JACK
# server, left unconnected: silence in, which BruteFIR filters all the same
# with powersave off).
brutefir_conf() {
  local ch=$1 ir_s=$2 p=$3 input=$4 n parts list c
  n=$(awk -v s="$ir_s" -v r="$rate" 'BEGIN {printf "%d", s * r + 0.5}')
  parts=$(((n + p - 1) / p))
  list=$(seq -s, 0 $((ch - 1)))
  cat <<EOF
float_bits: 32; sampling_rate: $rate; filter_length: $p,$parts;
overflow_warnings: false; show_progress: false; max_dither_table_size: 0;
allow_poll_mode: false; modules_path: "/usr/lib/brutefir"; powersave: false;
monitor_rate: false; lock_memory: false; sdf_length: -1; benchmark: false;
convolver_config: "$work/wisdom";
EOF
  for ((c = 0; c < ch; c++)); do
    echo "coeff $c { filename: \"$work/ir$c.raw\"; format: \"FLOAT_LE\"; attenuation: 0; blocks: -1; skip: 0; shared_mem: false; };"
  done
  local zeros ffalse
  zeros=$(printf '0,%.0s' $(seq "$ch")); zeros=${zeros%,}
  ffalse=$(printf 'false,%.0s' $(seq "$ch")); ffalse=${ffalse%,}
  local idev='"file" { path: "'$input'"; }' odev='"file" { path: "/dev/null"; }' fmt=FLOAT_LE
  if [ "$input" = jack ]; then idev='"jack" { }' odev='"jack" { }' fmt=AUTO; fi
  echo "input $list { device: $idev; sample: \"$fmt\"; channels: $ch; delay: $zeros; maxdelay: -1; mute: $ffalse; };"
  echo "output $list { device: $odev; sample: \"$fmt\"; channels: $ch; delay: $zeros; maxdelay: -1; mute: $ffalse; dither: false; };"
  for ((c = 0; c < ch; c++)); do
    echo "filter $c { from_inputs: $c; to_outputs: $c; coeff: $c; process: -1; delay: 0; crossfade: false; };"
  done
}

convoy_cmd() { # CH IR_S P [OPTIONS...]
  echo "$convoy" bench --live --json --engine cpu --channels "$1" --ir-seconds "$2" --block "$3" \
    "${@:4}"
}

tsv=$out/brutefir.tsv
printf 'method\tprogram\tchannels\tir_s\tpartition\trun\tload_pct\tself_pct\n' >"$tsv"
span=$(awk -v a="$short_s" -v b="$long_s" 'BEGIN {print b - a}')

# record METHOD PROGRAM CH IR P RUN CPU_NS SECONDS [SELF]: one row of the TSV.
record() {
  awk -v m="$1" -v g="$2" -v ch="$3" -v ir="$4" -v p="$5" -v r="$6" -v ns="$7" -v s="$8" \
    -v self="${9:-}" 'BEGIN {printf "%s\t%s\t%d\t%s\t%d\t%d\t%.2f\t%s\n", m, g, ch, ir, p, r, 100 * ns / 1e9 / s, self}' >>"$tsv"
}

self_load() { # the cpu_load convoy printed (--json) in $work/stdout, in %
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print("%.2f" % (100 * r["cpu_load"]) if "cpu_load" in r else r["state"])' "$work/stdout"
}

# The fixed-audio method: cpu(long) - cpu(short) over (long - short) seconds.
fast_runs() { # CH IR P
  local ch=$1 ir_s=$2 p=$3 a b r
  brutefir_conf "$ch" "$ir_s" "$p" "$work/inA.raw" >"$work/bfA.conf"
  brutefir_conf "$ch" "$ir_s" "$p" "$work/inB.raw" >"$work/bfB.conf"
  cpu_ns brutefir -nodefault -quiet "$work/bfA.conf" >/dev/null # makes the FFTW wisdom
  for ((r = 1; r <= runs; r++)); do
    a=$(cpu_ns brutefir -nodefault -quiet "$work/bfA.conf")
    b=$(cpu_ns brutefir -nodefault -quiet "$work/bfB.conf")
    record fast brutefir "$ch" "$ir_s" "$p" "$r" $((b - a)) "$span"
    a=$(cpu_ns $(convoy_cmd "$ch" "$ir_s" "$p" --fast --seconds "$short_s"))
    b=$(cpu_ns $(convoy_cmd "$ch" "$ir_s" "$p" --fast --seconds "$long_s"))
    record fast convoy "$ch" "$ir_s" "$p" "$r" $((b - a)) "$span" "$(self_load)"
    a=$(cpu_ns $(convoy_cmd "$ch" "$ir_s" "$p" --fast --max-partition "$p" --seconds "$short_s"))
    b=$(cpu_ns $(convoy_cmd "$ch" "$ir_s" "$p" --fast --max-partition "$p" --seconds "$long_s"))
    record fast convoy-uniform "$ch" "$ir_s" "$p" "$r" $((b - a)) "$span" "$(self_load)"
  done
}

# window_ns MARKER CMD...: starts CMD in a new cgroup, waits for MARKER in its
# output (or 3 s when MARKER is empty), lets it settle 2 s, then prints the CPU
# nanoseconds of the next $rt_s seconds; stops CMD (the processes it started).
window_ns() {
  local marker=$1 cg=$cg_root/convoy-bf-$$-$RANDOM pid u1 u2 t
  shift
  mkdir "$cg"
  (echo "$BASHPID" >"$cg/$cg_procs" && exec "$@") >"$work/stdout" 2>&1 &
  pid=$!
  for t in $(seq 100); do
    if [ -n "$marker" ] && grep -q "$marker" "$work/stdout"; then break; fi
    [ -z "$marker" ] && [ "$t" -ge 30 ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/stdout" >&2; rmdir "$cg"; die "failed: $*"; }
    sleep 0.1
  done
  sleep 2
  u1=$(cg_usage "$cg")
  sleep "$rt_s"
  u2=$(cg_usage "$cg")
  kill -0 "$pid" 2>/dev/null || { cat "$work/stdout" >&2; rmdir "$cg"; die "ended early: $*"; }
  for t in $(cat "$cg/$cg_procs"); do kill "$t" 2>/dev/null || true; done
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 50); do [ -z "$(cat "$cg/$cg_procs")" ] && break; sleep 0.1; done
  rmdir "$cg"
  echo $((u2 - u1))
}

cg_usage() {
  if [ -f "$1/cpuacct.usage" ]; then cat "$1/cpuacct.usage"; else
    echo $(($(awk '$1 == "usage_usec" {print $2}' "$1/cpu.stat") * 1000)); fi
}

# The real-time method: BruteFIR as a client of a private jackd (dummy
# driver, period = partition), convoy paced by its own timer thread; CPU time
# of everything each started over a window of $rt_s seconds.
paced_runs() { # CH IR P
  local ch=$1 ir_s=$2 p=$3 jack_pid ns r
  jackd -n "$jack_name" -d dummy -r "$rate" -p "$p" >"$work/jackd.log" 2>&1 &
  jack_pid=$!
  sleep 2
  kill -0 "$jack_pid" 2>/dev/null || { cat "$work/jackd.log" >&2; die "jackd did not start"; }
  brutefir_conf "$ch" "$ir_s" "$p" jack >"$work/bfJ.conf"
  for ((r = 1; r <= rt_runs; r++)); do
    ns=$(JACK_DEFAULT_SERVER=$jack_name window_ns "Audio processing starts now" \
      brutefir -nodefault "$work/bfJ.conf")
    record paced brutefir "$ch" "$ir_s" "$p" "$r" "$ns" "$rt_s"
    ns=$(window_ns "" $(convoy_cmd "$ch" "$ir_s" "$p" --seconds $((rt_s + 20))))
    record paced convoy "$ch" "$ir_s" "$p" "$r" "$ns" "$rt_s"
    ns=$(window_ns "" $(convoy_cmd "$ch" "$ir_s" "$p" --max-partition "$p" --seconds $((rt_s + 20))))
    record paced convoy-uniform "$ch" "$ir_s" "$p" "$r" "$ns" "$rt_s"
  done
  kill "$jack_pid" 2>/dev/null || true
  wait "$jack_pid" 2>/dev/null || true
}

for cfg in "${configs[@]}"; do
  read -r ch ir_s p <<<"$cfg"
  echo "== $ch channels x $ir_s s IR, partition/block $p" >&2
  write_inputs "$ch" "$ir_s"
  brutefir_conf "$ch" "$ir_s" "$p" "$work/inB.raw" >"$out/brutefir_${ch}ch_${ir_s}s_$p.conf"
  {
    echo "# $ch channels x $ir_s s, partition $p"
    echo "brutefir -nodefault -quiet brutefir_${ch}ch_${ir_s}s_$p.conf   # input of $short_s s and $long_s s"
    echo "$(convoy_cmd "$ch" "$ir_s" "$p" --fast --seconds "$long_s")   # and --seconds $short_s"
    echo "$(convoy_cmd "$ch" "$ir_s" "$p" --fast --max-partition "$p" --seconds "$long_s")"
  } >>"$out/commands.txt"
  fast_runs "$ch" "$ir_s" "$p"
  if [ "$rt_runs" -gt 0 ]; then
    {
      echo "jackd -n $jack_name -d dummy -r $rate -p $p &"
      echo "JACK_DEFAULT_SERVER=$jack_name brutefir -nodefault (the same, device \"jack\")"
      echo "$(convoy_cmd "$ch" "$ir_s" "$p" --seconds $((rt_s + 20)))"
    } >>"$out/commands.txt"
    paced_runs "$ch" "$ir_s" "$p"
  fi
done

{
  for method in fast paced; do
    grep -q "^$method" "$tsv" || continue
    if [ $method = fast ]; then
      echo "Fixed audio, as fast as possible: CPU seconds per audio second (100% = one core)"
    else
      echo "Real-time pace ($rt_s s window): CPU time / wall time (100% = one core)"
    fi
    echo
    echo "| channels x IR | partition = block | BruteFIR | convoy | convoy / BruteFIR | convoy, uniform partitions |"
    echo "|---|---|---|---|---|---|"
    for cfg in "${configs[@]}"; do
      read -r ch ir_s p <<<"$cfg"
      pick() { awk -F'\t' -v m="$method" -v g="$1" -v ch="$ch" -v p="$p" '$1 == m && $2 == g && $3 == ch && $5 == p {print $7}' "$tsv" | median; }
      awk -v ch="$ch" -v ir="$ir_s" -v p="$p" -v bf="$(pick brutefir)" -v cv="$(pick convoy)" \
        -v un="$(pick convoy-uniform)" \
        'BEGIN {printf "| %d x %s s | %d | %.1f%% | %.1f%% | %.2f | %.1f%% |\n", ch, ir, p, bf, cv, (bf > 0 ? cv / bf : 0), un}'
    done
    echo
  done
} >"$out/brutefir.md"
cat "$out/brutefir.md"
echo "(medians: $runs fixed-audio runs, $rt_runs real-time runs; every run in $tsv)" >&2
