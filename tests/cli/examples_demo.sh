#!/usr/bin/env bash
# The example programs run, and the demo's filter does what the README says:
# it removes the hum (and hiss) of examples/noisy_speech.wav and keeps the voice.
set -euo pipefail
bin=$(dirname "$CONVOY")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for engine in auto cpu-direct cpu-fft; do
  "$bin/example_stream_blocks" "$engine" >"$tmp/blocks.txt" || fail "stream_blocks $engine"
  grep -q "bitwise identical" "$tmp/blocks.txt" || fail "stream_blocks $engine: $(cat "$tmp/blocks.txt")"
done

in=$SRC/examples/noisy_speech.wav
spec=bandpass:low=200,high=3800,width=100,atten=80
"$bin/example_filter_file" "$in" "$tmp/api.wav" "$spec" >/dev/null || fail "filter_file"
[ -s "$tmp/api.wav" ] || fail "filter_file wrote nothing"

"$CONVOY" filter "$in" "$tmp/clean.wav" --design "$spec" -q || fail "convoy filter"
"$bin/example_band_level" "$in" "$tmp/clean.wav" >"$tmp/levels.txt" || fail "band_level"
cat "$tmp/levels.txt"
# change (dB) in a band: the last number on its line
change() { awk -v b="$1" 'index($0, b) { print $(NF-1) }' "$tmp/levels.txt"; }
awk -v c="$(change 'hum 50 Hz')" 'BEGIN { exit !(c < -40) }' || fail "50 Hz hum only $(change 'hum 50 Hz') dB"
awk -v c="$(change 'hum 150 Hz')" 'BEGIN { exit !(c < -20) }' || fail "150 Hz hum only $(change 'hum 150 Hz') dB"
awk -v c="$(change 'hiss')" 'BEGIN { exit !(c < -20) }' || fail "hiss only $(change 'hiss') dB"
awk -v c="$(change 'voice')" 'BEGIN { exit !(c > -1 && c < 1) }' || fail "voice changed $(change 'voice') dB"
echo "ok"
