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

# Paced: 0.5 s of 64-frame blocks; the period is 64 / 48000 s. Whether the
# blocks kept time depends on what else the machine runs: the timing (state
# ok or over real time, late, dropped and silent blocks, compute times) is
# reported, not judged; what the run must hold whatever the load is checked.
run bench --live --engine cpu --block 64 --ir-seconds 0.1 --channels 2 --seconds 0.5 --json
expect_status 0 "paced run"
cp stdout.txt paced.json
state=$(grep -o '"state": "[a-z-]*"' paced.json | sed 's/.*: "//; s/"//')
echo "paced: state ${state:-?}, $(field blocks paced.json) blocks timed, late $(field late paced.json)," \
  "dropped $(field dropped paced.json), silent $(field silent paced.json), p50 $(field p50 paced.json) us" \
  "of a 1333 us period (reported, not judged; load average $(cut -d' ' -f1 /proc/loadavg))"
check "paced: one row, measured (ok, or over real time on a busy machine: ${state:-none})" \
  test "$(grep -c '"state": "\(ok\|over\)"' paced.json)" -eq 1
check "paced: pace recorded" grep -q '"pace": "realtime"' paced.json
check "paced: period of 64 frames at 48 kHz" below "$(awk -v p="$(field period_us paced.json)" 'BEGIN {d = p - 1333.333; print d < 0 ? -d : d}')" 0.01
blocks=$(field blocks paced.json)
check "paced: 1 to 375 blocks timed ($blocks)" test "${blocks:-0}" -ge 1 -a "${blocks:-0}" -le 375
# -1: not checked, since a worker was late and a block went out as silence.
err=$(field check_rel_err paced.json)
[ "$err" = "-1.000e+00" ] && echo "paced: output not checked (a block was output as silence)"
check "paced: output matches the reference where checked ($err)" below "$err" 1e-4

# Fast: a block size that is not a power of two, 1 s of audio = 480 blocks.
run bench --live --engine cpu --fast --block 100 --ir-seconds 0.05 --channels 3 --seconds 1 --json
expect_status 0 "fast run"
cp stdout.txt fast.json
check "fast: pace recorded" grep -q '"pace": "fast"' fast.json
check "fast: one ok row" test "$(grep -c '"state": "ok"' fast.json)" -eq 1
check "fast: 480 blocks timed" test "$(field blocks fast.json)" = 480
check "fast: output matches the reference" below "$(field check_rel_err fast.json)" 1e-4
check "fast: CPU load measured" below 0 "$(field cpu_load fast.json)"

# Text: the table, one row per channel count, then the summary. A count
# over real time (a busy machine) skips the larger ones: still one row each.
run bench --live --engine cpu --block 128 --ir-seconds 0.05 --channels 1,2 --seconds 0.3
expect_status 0 "text run"
check "text: column titles" grep -q "p99.9_us" stdout.txt
sed '/^largest channel count/q' stdout.txt >table.txt
check "text: two rows ($(grep -c '^cpu  *128  *0.05  *[12] ' table.txt))" \
  test "$(grep -c '^cpu  *128  *0.05  *[12] ' table.txt)" -eq 2
check "text: the first row measured" grep -q '^cpu  *128  *0.05  *1  *[0-9.][0-9.]*  *[0-9.]' table.txt
check "text: the second row measured, or skipped after an over-real-time first" \
  grep -Eq '^cpu +128 +0.05 +2 +([0-9.]+ +[0-9.]|skipped: a smaller channel count was over)' table.txt
if grep -q '^cpu  *128  *0.05  *1 .*OVER real time' table.txt; then
  check "text: 2 channels skipped after 1 was over real time" \
    grep -q '^cpu  *128  *0.05  *2  *skipped' table.txt
fi
check "text: summary" grep -q "largest channel count" stdout.txt

if [ "${CONVOY_TEST_QUICK:-0}" != 1 ]; then
  # --find-max probes channel counts beyond the one swept (a large block and a
  # short IR, so that one channel keeps time even on a loaded machine) and
  # bisects. Where the swept count was over real time there is nothing to
  # probe: a count over real time bounds the search from the start.
  run bench --live --engine cpu --block 1024 --ir-seconds 0.02 --channels 1 --seconds 0.3 --find-max --json
  expect_status 0 "find-max run"
  check "find-max: bisected" grep -q '"method": "bisect"' stdout.txt
  swept=$(grep '"probe": false' stdout.txt | grep -o '"state": "[a-z-]*"' | sed 's/.*: "//; s/"//')
  echo "find-max: the swept count was ${swept:-?}; $(grep -c '"probe": true' stdout.txt) probes" \
    "(load average $(cut -d' ' -f1 /proc/loadavg))"
  if [ "$swept" = over ]; then
    check "find-max: no probe when the swept count was over real time" \
      test "$(grep -c '"probe": true' stdout.txt)" -eq 0
  else
    check "find-max: probes ran (swept: ${swept:-none})" grep -q '"probe": true' stdout.txt
  fi
fi

finish
