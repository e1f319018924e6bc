#!/bin/bash
# A WAV whose data chunk size is 0 with samples after it, as streaming tools
# write one when they cannot seek back to the header: read to the end, from a
# file and from stdin, like a header with a placeholder size. A WAV that
# really is empty (size 0, nothing after the chunk, or only further chunks)
# stays an empty signal.
source "$(dirname "$0")/common.bash"

random_taps 17 5 >taps.txt

# zero_size IN OUT: OUT is IN with its data chunk's size field set to 0.
zero_size() {
  local at
  at=$(grep -obUa data "$1" | head -n 1 | cut -d: -f1)
  cp "$1" "$2"
  printf '\000\000\000\000' | dd of="$2" bs=1 seek=$((at + 4)) conv=notrunc status=none
  DATA_END=$((at + 8))
}

for subtype in pcm16 float; do
  gen in_$subtype.wav --frames 3000 --channels 2 --rate 8000 --subtype $subtype --signal noise
  zero_size in_$subtype.wav zero_$subtype.wav
  check "$subtype: the data size is patched" test "$(info_field zero_$subtype.wav frames)" -eq 0
  run filter in_$subtype.wav ref_$subtype.wav --taps taps.txt -q
  expect_status 0 "$subtype: the intact file"
  "$TOOLS/audio_check" samples ref_$subtype.wav >ref_$subtype.txt

  run filter zero_$subtype.wav file_$subtype.wav --taps taps.txt -q
  expect_status 0 "$subtype: data size 0 from a file"
  check "$subtype: data size 0 from a file: all 3000 frames" \
    test "$(info_field file_$subtype.wav frames)" -eq 3000
  check "$subtype: data size 0 from a file: the intact file's output" \
    cmp -s ref_$subtype.txt <("$TOOLS/audio_check" samples file_$subtype.wav)

  "$CONVOY" filter - pipe_$subtype.wav --taps taps.txt -q <zero_$subtype.wav 2>stderr.txt
  STATUS=$?
  expect_status 0 "$subtype: data size 0 from a redirected stdin"
  check "$subtype: data size 0 from a redirected stdin: the intact file's output" \
    cmp -s ref_$subtype.txt <("$TOOLS/audio_check" samples pipe_$subtype.wav)

  # A pipe whose header gives no length is long to `auto` (the GPU engines
  # where there are some), the intact file short: the CPU engines, named.
  cat zero_$subtype.wav | "$CONVOY" filter - piped_$subtype.wav --taps taps.txt -q --engine cpu \
    2>stderr.txt
  STATUS=${PIPESTATUS[1]}
  expect_status 0 "$subtype: data size 0 through a pipe"
  check "$subtype: data size 0 through a pipe: the intact file's output" \
    cmp -s ref_$subtype.txt <("$TOOLS/audio_check" samples piped_$subtype.wav)

  # Really empty: nothing after the chunk header, or only another chunk.
  head -c "$DATA_END" zero_$subtype.wav >empty_$subtype.wav
  run filter empty_$subtype.wav empty_out_$subtype.wav --taps taps.txt -q
  expect_status 0 "$subtype: an empty WAV"
  check "$subtype: an empty WAV gives an empty output" \
    test "$(info_field empty_out_$subtype.wav frames)" -eq 0
  { cat empty_$subtype.wav; printf 'LIST\004\000\000\000INFO'; } >empty_list_$subtype.wav
  run filter empty_list_$subtype.wav empty_list_out_$subtype.wav --taps taps.txt -q
  expect_status 0 "$subtype: an empty WAV with a LIST chunk after its data"
  check "$subtype: an empty WAV with a LIST chunk after its data gives an empty output" \
    test "$(info_field empty_list_out_$subtype.wav frames)" -eq 0
done

finish
