#!/bin/bash
# The progress line on a terminal's stderr (run under `script`, which gives
# the program a pseudo-terminal): a multiple of real time when the signal has
# a rate, samples per second when it has none (a raw capture without --rate).
source "$(dirname "$0")/common.bash"
command -v script >/dev/null || { echo "no script(1): skipped"; exit 77; }

# Long enough that the line is drawn (every 0.25 s).
"$TOOLS/capture_ref" gen long.cf32 cf32_le 1500000 3
random_taps 16384 1 >taps.txt

# progress_of ARGS...: the terminal output of `convoy filter ARGS` (stdout to a file).
progress_of() {
  script -qec "$(printf '%q ' "$CONVOY" filter "$@")" /dev/null >tty.txt 2>&1
  tr '\r' '\n' <tty.txt
}

progress_of long.cf32 out.cf32 --taps taps.txt --engine cpu-direct -y >lines.txt
check "no rate: the line shows MS/s" grep -qE '^filtering +[0-9.]+%  [0-9.]+ MS/s  ETA' lines.txt
check "no rate: no real-time factor" bash -c '! grep -q "real time" lines.txt'
progress_of long.cf32 out.cf32 --taps taps.txt --engine cpu-direct --rate 2e6 -y >lines.txt
check "with --rate: a multiple of real time" grep -qE '^filtering +[0-9.]+%  [0-9.]+x real time' lines.txt

finish
