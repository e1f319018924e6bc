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

finish
