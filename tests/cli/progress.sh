#!/bin/bash
# The progress line on a terminal's stderr (run under `script`, which gives
# the program a pseudo-terminal): a multiple of real time when the signal has
# a rate, samples per second when it has none (a raw capture without --rate).
# The input comes through a pipe that pauses midway, so the line (drawn at
# most every 0.25 s) shows whatever the machine's speed. The engine is named:
# `auto` would read this short pipe to its end before filtering.
source "$(dirname "$0")/common.bash"
command -v script >/dev/null || { echo "no script(1): skipped"; exit 77; }

"$TOOLS/capture_ref" gen a.cf32 cf32_le 20000 3
"$TOOLS/capture_ref" gen b.cf32 cf32_le 20000 4
random_taps 64 1 >taps.txt

# progress_of ARGS...: the terminal output of `convoy filter - out.cf32 ARGS`
# fed a.cf32, a pause, then b.cf32.
progress_of() {
  local cmd
  cmd="(cat a.cf32; sleep 0.6; cat b.cf32) | $(printf '%q ' "$CONVOY" filter - out.cf32 "$@")"
  script -qec "$cmd" /dev/null >tty.txt 2>&1
  tr '\r' '\n' <tty.txt
}

progress_of --format cf32_le --taps taps.txt --engine cpu -y >lines.txt
check "no rate: the line shows MS/s" grep -qE '^filtering [0-9]+ samples  [0-9.]+ MS/s' lines.txt
check "no rate: no real-time factor" bash -c '! grep -q "real time" lines.txt'
progress_of --format cf32_le --taps taps.txt --engine cpu --rate 2e6 -y >lines.txt
check "with --rate: a multiple of real time" \
  grep -qE '^filtering [0-9:]+ of signal  [0-9.]+x real time' lines.txt

finish
