#!/bin/bash
# `convoy bench --file`: WAV and raw capture inputs, each timed beside `cp` of
# the same file, in the text and JSON reports (tiny sizes: this checks the
# rows, not the speed).
source "$(dirname "$0")/common.bash"

# file_rows CHANNELS: the JSON file rows as "subtype state share_of_cp>0".
file_rows() {
  run bench --file --json --taps 16 --frames 2^13 --runs 1 --engine cpu-fft --channels "$1"
  expect_status 0 "bench --file --json, $1 channel(s)"
  python3 -c '
import json, sys
doc = json.load(open("stdout.txt"))
for r in doc["file"]:
    print(r["subtype"], r["state"], r.get("cp_seconds", 0) > 0 and r.get("share_of_cp", 0) > 0)
' >rows.txt || fail "bench --file --json: not JSON: $(head -c 300 stdout.txt)"
}

file_rows 1
check "mono: float, pcm16, raw f32 and raw s16 rows, each ok beside cp" \
  diff <(printf 'float ok True\npcm16 ok True\nraw f32 ok True\nraw s16 ok True\n') rows.txt
file_rows 2
check "stereo: the raw captures are cf32 and cs16" \
  diff <(printf 'float ok True\npcm16 ok True\nraw cf32 ok True\nraw cs16 ok True\n') rows.txt
file_rows 3
check "3 channels: WAVs only" diff <(printf 'float ok True\npcm16 ok True\n') rows.txt

run bench --file --taps 16 --frames 2^13 --runs 1 --engine cpu-fft
expect_status 0 "bench --file (text)"
check "text: the cp times" grep -qE '^  cp raw f32 +[0-9.]+ s' stdout.txt
check "text: a raw row with its share of cp" grep -qE 'cpu-fft +raw f32 .* +[0-9]+%$' stdout.txt
check "text: an int16 raw row with its share of cp" grep -qE 'cpu-fft +raw s16 .* +[0-9]+%$' stdout.txt

# --fft-size reaches the in-memory streams (their plan says N) and `convoy
# filter` (a size it rejects would fail the file rows); the JSON records it.
run bench --file --json --taps 300 --frames 2^13 --runs 1 --engine cpu-fft --fft-size 4096
expect_status 0 "bench --fft-size 4096"
check "--fft-size: the stream's plan, the file rows and the settings" python3 -c '
import json
doc = json.load(open("stdout.txt"))
assert doc["settings"]["fft_size"] == 4096, doc["settings"]
mem = [r for r in doc["memory"] if r["engine"] == "cpu-fft"]
assert mem and all("N=4096" in r["plan"] for r in mem), doc["memory"]
assert [r["state"] for r in doc["file"]] == ["ok"] * 4, doc["file"]
'
run bench --taps 300 --frames 2^13 --runs 1 --engine cpu-fft --fft-size 4096
check "text: the forced size in the header" grep -qE '^fft size 4096 \(--fft-size\)$' stdout.txt
run bench --taps 16,5000 --engine cpu-fft --fft-size 4096
expect_status 1 "--fft-size shorter than a tap count"
expect_one_error_line "--fft-size shorter than a tap count" "4096 is shorter than 5000 taps"
check "--fft-size shorter than a tap count: nothing measured" test ! -s stdout.txt
run bench --taps 1 --engine cpu-fft --fft-size 1
expect_status 1 "--fft-size 1"
expect_one_error_line "--fft-size 1" "not an FFT size of 2 or more"

finish
