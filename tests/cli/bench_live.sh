#!/bin/bash
# convoy bench --live: options, usage errors, and small runs whose reports
# must hold what was asked (block counts, periods) and a correct output.
source "$(dirname "$0")/common.bash"

# field NAME FILE: the first number after "NAME": in FILE.
field() { grep -o "\"$1\": [-0-9.e+]*" "$2" | head -n 1 | sed 's/.*: //'; }
# below A B: A < B as numbers.
below() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a != "" && a + 0 < b + 0)}'; }

run bench --live --help
expect_status 0 "--live --help"
check "--live --help lists --find-max" grep -q -- "--find-max" stdout.txt
check "--live --help lists --ir-seconds" grep -q -- "--ir-seconds" stdout.txt
run bench --help
check "bench --help mentions --live" grep -q -- "--live" stdout.txt

# expect_usage DESCRIPTION NEEDLE ARGS...
expect_usage() {
  local desc=$1 needle=$2
  shift 2
  run "$@"
  expect_status 1 "$desc"
  expect_one_error_line "$desc" "$needle"
  check "$desc: names bench --live" grep -q "bench --live" stderr.txt
}
expect_usage "block 0" --block bench --live --block 0
expect_usage "block over the maximum" --block bench --live --block 100000
expect_usage "bad IR length" --ir-seconds bench --live --ir-seconds 2s
expect_usage "negative IR length" --ir-seconds bench --live --ir-seconds -1
expect_usage "channels 0" --channels bench --live --channels 0
expect_usage "unknown engine" engine bench --live --engine tpu
expect_usage "empty list" --block bench --live --block ,
expect_usage "find-max with fast" --find-max bench --live --fast --find-max
expect_usage "stray argument" extra bench --live extra

# Paced: 0.5 s of 64-frame blocks; the period is 64 / 48000 s.
run bench --live --engine cpu --block 64 --ir-seconds 0.1 --channels 2 --seconds 0.5 --json
expect_status 0 "paced run"
cp stdout.txt paced.json
check "paced: one ok row" test "$(grep -c '"state": "ok"' paced.json)" -eq 1
check "paced: pace recorded" grep -q '"pace": "realtime"' paced.json
check "paced: period of 64 frames at 48 kHz" below "$(awk -v p="$(field period_us paced.json)" 'BEGIN {d = p - 1333.333; print d < 0 ? -d : d}')" 0.01
blocks=$(field blocks paced.json)
check "paced: at most 375 blocks timed ($blocks)" test "${blocks:-0}" -le 375
check "paced: most of 375 blocks timed ($blocks)" test "${blocks:-0}" -ge 200
check "paced: output matches the reference" below "$(field check_rel_err paced.json)" 1e-4
check "paced: p50 under one period" below "$(field p50 paced.json)" 1333

# Fast: a block size that is not a power of two, 1 s of audio = 480 blocks.
run bench --live --engine cpu --fast --block 100 --ir-seconds 0.05 --channels 3 --seconds 1 --json
expect_status 0 "fast run"
cp stdout.txt fast.json
check "fast: pace recorded" grep -q '"pace": "fast"' fast.json
check "fast: one ok row" test "$(grep -c '"state": "ok"' fast.json)" -eq 1
check "fast: 480 blocks timed" test "$(field blocks fast.json)" = 480
check "fast: output matches the reference" below "$(field check_rel_err fast.json)" 1e-4
check "fast: CPU load measured" below 0 "$(field cpu_load fast.json)"

# Text: the table, one row per channel count, then the summary.
run bench --live --engine cpu --block 128 --ir-seconds 0.05 --channels 1,2 --seconds 0.3
expect_status 0 "text run"
check "text: column titles" grep -q "p99.9_us" stdout.txt
check "text: two rows" test "$(grep -c '^cpu  *128  *0.05  *[12]  *[0-9.][0-9.]*  *[0-9.]' stdout.txt)" -eq 2
check "text: summary" grep -q "largest channel count" stdout.txt

if [ "${CONVOY_TEST_QUICK:-0}" != 1 ]; then
  # --find-max probes channel counts beyond the one swept.
  run bench --live --engine cpu --block 256 --ir-seconds 0.02 --channels 1 --seconds 0.2 --find-max --json
  expect_status 0 "find-max run"
  check "find-max: probes ran" grep -q '"probe": true' stdout.txt
  check "find-max: bisected" grep -q '"method": "bisect"' stdout.txt
fi

finish
