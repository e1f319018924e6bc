#!/usr/bin/env bash
# live_soak.sh - a long `convoy live` run as a native JACK client, with
# BruteFIR beside it on the same server and the same impulse response, and
# the xruns each of them caused.
#
# A private jackd (dummy driver, 48 kHz, period P, realtime with -R or not
# with --no-realtime) runs jack_metro (a click track), convoy live and
# BruteFIR, both fed the click on two inputs and filtering them through a
# 2 s stereo IR (decaying noise, channel i to output i), block = partition =
# period. Another process (`yes`, normal priority) keeps one core busy. After
# --seconds the script asks convoy for its figures (`convoy ctl ... stats`),
# stops everything and prints one row of a Markdown table:
#
#   | server | period | s | jackd xruns | unfinished: convoy (running) |
#   | unfinished: BruteFIR (running) | unfinished: jack_metro |
#   | convoy's xruns (server, late, failed) | convoy load p50/p99/max % |
#   | callback p50/p99/max us | load average |
#
# jackd xruns: the cycles jackd's log reports as failed ("Process error",
# a driver wake-up too late: "Process XRun"); unfinished: the failed
# cycles in which jackd found the client unfinished ("client = NAME was
# not finished"), and in parentheses those where it was running at the
# deadline rather than still waiting for the CPU or for a client before it
# (jack_metro, the click, comes first: when it is unfinished, the machine
# stalled rather than a filter).
# convoy's xruns: what its JACK xrun callback counted (the server's xruns,
# whoever caused them), the blocks its convolver missed, the blocks it
# failed. BruteFIR keeps no count of its own under JACK. Everything is
# counted from 1 s after the last client started to the end: start-up (FFTW
# planning, BruteFIR joining the graph) is left out.
#
# BruteFIR runs with lock_memory: false, as in brutefir_compare.sh: with
# true, its filter processes spun at 90% of a core each and missed nearly
# every cycle on the 2-core guest this was written on. convoy runs with its
# defaults (--engine cpu). Other load on the machine is not controlled:
# stop what you can (background jobs) for the time of the run.
#
# usage: bench/live_soak.sh [--convoy PATH] [--seconds S] [--period P]
#            [--realtime | --no-realtime] [--no-busy] [--no-brutefir]
#            [--name NAME] [--keep DIR] [--header]
#   defaults: build/convoy, 600 s, 128 frames, realtime, server name
#   convoy-soak (one name, so that the registry entry a killed server
#   leaves is reclaimed by the next run: jackd's registry holds 8). --keep copies the logs (jackd's, its soak span alone,
#   convoy's, BruteFIR's, the last stats reply, top at half time) to DIR.
#   --header prints the table's head first.
# Needs: jackd and jack_metro (jackd2), brutefir, /usr/bin/python3 with
# numpy (writes the IR), root or rtprio rights for --realtime.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
convoy=${CONVOY:-$here/../build/convoy}
seconds=600
period=128
rt=1
busy=1
brutefir=1
name=convoy-soak
keep=""
header=0
rate=48000
ir_s=2

die() { echo "live_soak: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
  --convoy) convoy=$2; shift 2 ;;
  --seconds) seconds=$2; shift 2 ;;
  --period) period=$2; shift 2 ;;
  --realtime) rt=1; shift ;;
  --no-realtime) rt=0; shift ;;
  --no-busy) busy=0; shift ;;
  --no-brutefir) brutefir=0; shift ;;
  --name) name=$2; shift 2 ;;
  --keep) keep=$2; shift 2 ;;
  --header) header=1; shift ;;
  -h | --help) sed -n '2,46p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for tool in jackd jack_metro jack_lsp jack_connect; do
  command -v "$tool" >/dev/null || die "$tool (jackd2) is not installed"
done
[ "$brutefir" = 0 ] || command -v brutefir >/dev/null || die "brutefir is not installed"
[ -x "$convoy" ] || die "no convoy program at $convoy (use --convoy PATH)"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || die "needs /usr/bin/python3 with numpy"

work=$(mktemp -d /tmp/convoy-soak.XXXXXX)
pids=""
cleanup() {
  local p
  for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $pids; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ -n "$keep" ] && mkdir -p "$keep"; then cp "$work"/*.log "$keep"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
export JACK_DEFAULT_SERVER=$name JACK_NO_START_SERVER=1

# The IR: decaying noise (-60 dB at the end), unit energy per channel, as a
# float32 stereo WAV for convoy and one raw float32 file per channel for
# BruteFIR.
/usr/bin/python3 - "$work" "$rate" "$ir_s" <<'EOF'
import sys, numpy as np
work, rate, ir_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng = np.random.default_rng(0x736f616b)
n = int(round(ir_s * rate))
h = rng.uniform(-1, 1, (n, 2)) * np.exp(np.log(1e-3) * np.arange(n) / n)[:, None]
h = (h / np.sqrt(np.sum(h * h, axis=0))).astype('<f4')
for c in range(2):
    h[:, c].tofile(f'{work}/ir{c}.raw')
# WAVE_FORMAT_IEEE_FLOAT by hand: the wave module writes PCM only.
data = h.tobytes()
fmt = (b'fmt ' + (16).to_bytes(4, 'little') + (3).to_bytes(2, 'little') + (2).to_bytes(2, 'little')
       + rate.to_bytes(4, 'little') + (rate * 8).to_bytes(4, 'little') + (8).to_bytes(2, 'little')
       + (32).to_bytes(2, 'little'))
body = b'WAVE' + fmt + b'data' + len(data).to_bytes(4, 'little') + data
open(f'{work}/ir.wav', 'wb').write(b'RIFF' + len(body).to_bytes(4, 'little') + body)
EOF

# started NAME PATTERN [S]: waits until a JACK port matches PATTERN.
started() {
  for _ in $(seq $((${3:-20} * 10))); do
    jack_lsp 2>/dev/null | grep -q -E "$2" && return 0
    sleep 0.1
  done
  die "$1 did not start; its log: $(tr '\n' '|' <"$work/$1.log")"
}

rt_flag=--no-realtime
[ "$rt" = 1 ] && rt_flag=-R
jackd -n "$name" $rt_flag -d dummy -r "$rate" -p "$period" >"$work/jackd.log" 2>&1 &
pids="$pids $!"
for _ in $(seq 100); do jack_lsp >/dev/null 2>&1 && break; sleep 0.1; done
jack_lsp >/dev/null 2>&1 || die "jackd did not start: $(tr '\n' '|' <"$work/jackd.log")"

jack_metro -n click -b 600 -f 1000 -A 0.5 -D 20 >"$work/metro.log" 2>&1 &
pids="$pids $!"
started metro '^click:'
click=$(jack_lsp | grep -m 1 '^click:')

"$convoy" live --ir "$work/ir.wav" --engine cpu --name convoy --control "$work/convoy.sock" \
  --connect "^click:" --connect '^system:playback_' \
  </dev/null >"$work/convoy.out" 2>"$work/convoy.log" &
pids="$pids $!"
started convoy '^convoy:out_2$'
jack_connect "$click" convoy:in_2

if [ "$brutefir" = 1 ]; then
  parts=$(((rate * ir_s + period - 1) / period))
  cat >"$work/brutefir.conf" <<EOF
float_bits: 32; sampling_rate: $rate; filter_length: $period,$parts;
overflow_warnings: false; show_progress: false; max_dither_table_size: 0;
allow_poll_mode: false; modules_path: "/usr/lib/brutefir"; powersave: false;
monitor_rate: false; lock_memory: false; sdf_length: -1; benchmark: false;
convolver_config: "$work/wisdom";
coeff 0 { filename: "$work/ir0.raw"; format: "FLOAT_LE"; attenuation: 0; blocks: -1; skip: 0; shared_mem: false; };
coeff 1 { filename: "$work/ir1.raw"; format: "FLOAT_LE"; attenuation: 0; blocks: -1; skip: 0; shared_mem: false; };
input 0,1 { device: "jack" { clientname: "brutefir"; ports: "$click", "$click"; }; sample: "AUTO"; channels: 2; delay: 0,0; maxdelay: -1; mute: false,false; };
output 0,1 { device: "jack" { ports: "system:playback_1", "system:playback_2"; }; sample: "AUTO"; channels: 2; delay: 0,0; maxdelay: -1; mute: false,false; dither: false; };
filter 0 { from_inputs: 0; to_outputs: 0; coeff: 0; process: -1; delay: 0; crossfade: false; };
filter 1 { from_inputs: 1; to_outputs: 1; coeff: 1; process: -1; delay: 0; crossfade: false; };
EOF
  brutefir -nodefault "$work/brutefir.conf" >"$work/brutefir.log" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 600); do # the first run plans FFTW's transforms
    grep -q "Audio processing starts now" "$work/brutefir.log" && break
    sleep 0.1
  done
  grep -q "Audio processing starts now" "$work/brutefir.log" ||
    die "BruteFIR did not start; its log: $(tr '\n' '|' <"$work/brutefir.log")"
fi

if [ "$busy" = 1 ]; then
  yes >/dev/null &
  pids="$pids $!"
fi

# The soak starts now: what came before (start-up) is not counted.
sleep 1
first=$("$convoy" ctl "$work/convoy.sock" stats)
log_start=$(wc -l <"$work/jackd.log")
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# pause S: sleeps, while a signal still ends the script at once.
pause() {
  sleep "$1" &
  wait $!
}
pause $((seconds / 2))
top -b -n 1 -w 200 | head -n 20 >"$work/top.log"
pause $((seconds - seconds / 2))
stats=$("$convoy" ctl "$work/convoy.sock" stats)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
log_end=$(wc -l <"$work/jackd.log")
sed -n "$((log_start + 1)),${log_end}p" "$work/jackd.log" >"$work/jackd-soak.log"
xruns=$(grep -c -E 'Process error|RefNum error|Process XRun' "$work/jackd-soak.log" || true)
# unfinished CLIENT: "N (M)": the failed cycles jackd found CLIENT unfinished in,
# and of those the ones where it was running (not still waiting to run).
unfinished() {
  awk -v c="client = $1 was" '
    index($0, c) { n++; if (/state = Running/) r++ }
    END { printf "%d (%d)", n, r }' "$work/jackd-soak.log"
}
metro_late=$(unfinished click | cut -d' ' -f1)
convoy_late=$(unfinished convoy)
brutefir_late=$(unfinished brutefir)
[ "$brutefir" = 1 ] || brutefir_late=-
echo "$stats" >"$work/stats.log"

# The span's figures from the reply (since the first stats above).
fig() {
  /usr/bin/python3 -c 'import json,sys; r=json.loads(sys.argv[1]); f=json.loads(sys.argv[2]); print(eval(sys.argv[3]))' \
    "$stats" "$first" "$1"
}
load=$(fig '"%.1f / %.1f / %.1f" % (r["load"]["p50"], r["load"]["p99"], r["load"]["max"])')
us=$(fig '"%.0f / %.0f / %.0f" % (r["callback_us"]["p50"], r["callback_us"]["p99"], r["callback_us"]["max"])')
mine=$(fig '"%d (%d, %d, %d)" % (r["xruns"], *(r["total"][k] - f["total"][k] for k in ("audio_xruns", "late", "failed")))')
secs=$(fig '"%.0f" % r["seconds"]')

if [ "$header" = 1 ]; then
  echo "| server | period | s | jackd xruns | unfinished: convoy (running) | unfinished: BruteFIR (running) | unfinished: jack_metro | convoy's xruns (server, late, failed) | convoy load p50 / p99 / max % | callback p50 / p99 / max us | load average (start; end) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---|---|---|"
fi
server=non-realtime
[ "$rt" = 1 ] && server="realtime (-R)"
echo "| $server | $period | $secs | $xruns | $convoy_late | $brutefir_late | $metro_late | $mine | $load | $us | $load_start; $load_end |"
