#!/bin/bash
# An existing OUT is refused (and left byte-identical) without -y, replaced with -y.
source "$(dirname "$0")/common.bash"

gen in.wav --frames 5000 --channels 1 --rate 48000 --signal noise
gen old.wav --frames 777 --channels 2 --rate 44100 --signal sine
printf '0.25\n0.5\n0.25\n' >taps.txt
cp old.wav out.wav
cp old.wav keep.wav

run filter in.wav out.wav --taps taps.txt
expect_status 1 "existing OUT without -y"
expect_one_error_line "existing OUT without -y" out.wav
check "existing OUT is untouched" cmp -s out.wav keep.wav
check "no temporary left beside OUT" test "$(ls -A | grep -c '^out')" -eq 1

run filter in.wav out.wav --taps taps.txt -q -y
expect_status 0 "existing OUT with -y"
check "OUT replaced with -y" test "$(info_field out.wav frames)" = 5000
check "OUT replaced with -y holds the filtered input" \
  "$TOOLS/audio_check" compare out.wav in.wav taps.txt

# The same file as IN and OUT with -y: read fully before the rename.
cp in.wav same.wav
run filter same.wav same.wav --taps taps.txt -q -y
expect_status 0 "IN = OUT with -y"
check "IN = OUT with -y filters the old contents" \
  "$TOOLS/audio_check" compare same.wav in.wav taps.txt

# A failed run with -y leaves the old OUT as it was.
cp keep.wav out.wav
printf 'nan\n' >bad.txt
run filter in.wav out.wav --taps bad.txt -y
expect_status 2 "bad taps with -y"
check "OUT untouched after a failure with -y" cmp -s out.wav keep.wav

finish
