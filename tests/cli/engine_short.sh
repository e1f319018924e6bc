#!/bin/bash
# `--engine auto` (the default) on a short input runs the CPU engines
# without starting CUDA, and says so with -v; a longer input, or an engine
# named on the command line, is left to the cost model / to that engine.
source "$(dirname "$0")/common.bash"

echo 0.5 >half.txt
gen short.wav --frames 1000 --channels 2 --rate 48000 --signal noise
gen long.wav --frames 2097152 --channels 2 --rate 48000 --signal noise # 2^22 samples

run filter short.wav o.wav --taps half.txt -v
expect_status 0 "short WAV"
check "short WAV: auto runs the CPU engines, naming the file" \
  grep -q "short.wav is short (2000 samples): auto runs the CPU engines" stderr.txt
check "short WAV: the plan is a CPU engine's" grep -Eq "plan: cpu-(direct|fft)" stderr.txt

run filter long.wav o.wav --taps half.txt -v -y
expect_status 0 "long WAV"
check "long WAV: no such choice" bash -c '! grep -q "is short" stderr.txt'

run filter short.wav o.wav --taps half.txt --engine cpu-fft -v -y
expect_status 0 "short WAV, engine named"
check "short WAV, engine named: no such choice" bash -c '! grep -q "is short" stderr.txt'
check "short WAV, engine named: that engine" grep -q "plan: cpu-fft" stderr.txt

"$TOOLS/capture_ref" gen short.cf32 cf32_le 999 3
run filter short.cf32 o.cf32 --taps half.txt -v
expect_status 0 "short capture"
check "short capture: auto runs the CPU engines" \
  grep -q "short.cf32 is short (1998 samples): auto runs the CPU engines" stderr.txt

finish
