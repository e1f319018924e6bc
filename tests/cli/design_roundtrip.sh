#!/bin/bash
# `convoy design` prints taps that --taps reads back to exactly the filter
# --design makes: the two outputs are bitwise identical. (Float AU output: a
# float WAV's PEAK chunk holds a timestamp, so two WAVs of one signal differ.)
source "$(dirname "$0")/common.bash"

gen in.wav --frames 20000 --channels 2 --rate 44100 --subtype float --signal noise
for spec in lowpass:cutoff=3000,width=400,atten=90 highpass:cutoff=200,width=100 \
  bandpass:low=300,high=3400,taps=511 bandstop:low=900,high=1100,width=200,atten=60; do
  "$CONVOY" design $spec --rate 44100 >taps.txt 2>stderr.txt
  STATUS=$?
  expect_status 0 "design $spec"
  check "design $spec: '#' header with the type" grep -q "^# ${spec%%:*}, [0-9]* taps, rate 44100 Hz" taps.txt
  check "design $spec: one number per line" \
    bash -c "grep -v '^#' taps.txt | grep -qvE '^-?[0-9.]+(e[-+][0-9]+)?$' && exit 1 || exit 0"
  rm -f by_design.au by_taps.au
  run filter in.wav by_design.au --design $spec -q
  expect_status 0 "filter --design $spec"
  run filter in.wav by_taps.au --taps taps.txt -q
  expect_status 0 "filter --taps (design $spec)"
  check "design $spec: --taps output equals --design output" cmp -s by_design.au by_taps.au
done

"$CONVOY" design lowpass:cutoff=1000,taps=101,rate=8000 >r.txt
check "rate= in the spec" grep -q "rate 8000 Hz" r.txt
check "taps=101 gives 101 taps" test "$(count_taps r.txt)" -eq 101

"$CONVOY" design lowpass:cutoff=1000,width=100 >/dev/null 2>stderr.txt
STATUS=$?
expect_status 1 "design without any rate"
expect_one_error_line "design without any rate" rate

"$CONVOY" design lowpass:cutoff=5000,width=100 --rate 8000 >/dev/null 2>stderr.txt
STATUS=$?
expect_status 1 "design cutoff above Nyquist"
expect_one_error_line "design cutoff above Nyquist" cutoff

finish
