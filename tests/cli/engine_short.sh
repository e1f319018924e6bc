#!/bin/bash
# `--engine auto` (the default) on a short input runs the CPU engines
# without starting CUDA, and says so with -v; a longer input, or an engine
# named on the command line, is left to the cost model / to that engine. A
# capture on a pipe is read ahead to tell, so it makes the file's choice and
# gives the file's bytes, short or long, with --skip too; a pipe that ends
# inside a sample is still refused as one.
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

# Through a pipe: the same choice and the same bytes as the file.
"$TOOLS/capture_ref" gen long.cf32 cf32_le 2097152 4 # 2^22 samples
for f in short.cf32 long.cf32; do
  run filter $f want.cf32 --taps half.txt -v -y
  expect_status 0 "$f from the file"
  grep -c "is short" stderr.txt >want_notice.txt
  cat $f | "$CONVOY" filter - got.cf32 --format cf32_le --taps half.txt -v -y 2>stderr.txt
  STATUS=${PIPESTATUS[1]}
  expect_status 0 "$f through a pipe"
  check "$f through a pipe: the file's choice" \
    test "$(grep -c "is short" stderr.txt)" = "$(cat want_notice.txt)"
  check "$f through a pipe: the file's bytes" cmp -s want.cf32 got.cf32
done
check "short.cf32 through a pipe: auto runs the CPU engines, naming stdin" \
  bash -c "cat short.cf32 | '$CONVOY' filter - o.cf32 --format cf32_le --taps half.txt -v -y 2>&1 |
           grep -q 'stdin is short (1998 samples): auto runs the CPU engines'"
# Just long once the skipped samples are left out: short, as the file is.
run filter long.cf32 want.cf32 --taps half.txt --skip 100 -v -y
check "long.cf32 --skip 100: short" grep -q "is short (4194104 samples)" stderr.txt
cat long.cf32 | "$CONVOY" filter - got.cf32 --format cf32_le --taps half.txt --skip 100 -v -y \
  2>stderr.txt
check "long.cf32 --skip 100 through a pipe: short" grep -q "stdin is short (4194104 samples)" \
  stderr.txt
check "long.cf32 --skip 100 through a pipe: the file's bytes" cmp -s want.cf32 got.cf32
head -c 4003 short.cf32 | "$CONVOY" filter - got.cf32 --format cf32_le --taps half.txt -y \
  2>stderr.txt
STATUS=${PIPESTATUS[1]}
expect_status 2 "a pipe ending inside a sample"
check "a pipe ending inside a sample: named" grep -q "inside a sample" stderr.txt

finish
