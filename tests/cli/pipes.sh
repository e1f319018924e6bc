#!/bin/bash
# '-' for stdin and stdout.
source "$(dirname "$0")/common.bash"

gen in.wav --frames 30000 --channels 2 --rate 48000 --subtype pcm24 --signal noise
random_taps 33 2 >taps.txt

cat in.wav | "$CONVOY" filter - from_stdin.wav --taps taps.txt -q 2>stderr.txt
STATUS=$?
expect_status 0 "stdin (a pipe) to a file"
check "stdin (a pipe) output matches" \
  "$TOOLS/audio_check" compare from_stdin.wav in.wav taps.txt --max-err 1e-4

"$CONVOY" filter in.wav - --taps taps.txt -q >to_stdout.wav 2>stderr.txt
STATUS=$?
expect_status 0 "stdout redirected to a file"
check "stdout redirected to a file: WAV matches" \
  "$TOOLS/audio_check" compare to_stdout.wav in.wav taps.txt --max-err 1e-4

# Without --type a pipe gets AU (WAV's header needs a seek at the end), and
# says so; convoy reads it back from a pipe: the pipe both ways, no option.
"$CONVOY" filter in.wav - --taps taps.txt 2>stderr.txt |
  "$CONVOY" filter - chained.wav --taps taps.txt -q 2>stderr2.txt
STATUSES=("${PIPESTATUS[@]}")
STATUS=${STATUSES[0]}
expect_status 0 "a pipe without --type"
check "a pipe without --type: says AU" grep -q "writing AU" stderr.txt
STATUS=${STATUSES[1]}
expect_status 0 "AU read back from a pipe"
check "a pipe without --type reads back" test "$(info_field chained.wav frames)" = 30000
"$CONVOY" filter in.wav - --taps taps.txt -q 2>stderr.txt | cat >piped.au
check "a pipe without --type: container" test "$(info_field piped.au container)" = au
check "a pipe without --type: matches" \
  "$TOOLS/audio_check" compare piped.au in.wav taps.txt --max-err 1e-4

# WAV asked for on a pipe: one clear error naming the fix, exit 2.
"$CONVOY" filter in.wav - --type wav --taps taps.txt -q 2>stderr.txt | cat >piped.wav
STATUS=${PIPESTATUS[0]}
expect_status 2 "WAV to a pipe"
expect_one_error_line "WAV to a pipe" "--type au"

# FLAC goes into a pipe, but libsndfile cannot read it back from one: the
# error names the fix.
"$CONVOY" filter in.wav - --type flac --taps taps.txt -q 2>/dev/null |
  "$CONVOY" filter - o_flac.wav --taps taps.txt -q 2>stderr.txt
STATUS=${PIPESTATUS[1]}
expect_status 2 "FLAC from a pipe"
expect_one_error_line "FLAC from a pipe" "--type au"

# A streamable container goes through a pipe; --type names it.
for type in flac au; do
  "$CONVOY" filter in.wav - --type $type --taps taps.txt -q 2>stderr.txt | cat >piped.$type
  STATUS=${PIPESTATUS[0]}
  expect_status 0 "--type $type to a pipe"
  check "--type $type to a pipe: container" test "$(info_field piped.$type container)" = $type
  check "--type $type to a pipe: matches" \
    "$TOOLS/audio_check" compare piped.$type in.wav taps.txt --max-err 1e-4
done

cat in.wav | "$CONVOY" filter - - --type au --taps taps.txt -q 2>stderr.txt | cat >both.au
STATUS=${PIPESTATUS[1]}
expect_status 0 "stdin to stdout"
check "stdin to stdout matches" "$TOOLS/audio_check" compare both.au in.wav taps.txt --max-err 1e-4

# Errors name stdin.
printf 'not audio at all' | "$CONVOY" filter - o.wav --taps taps.txt 2>stderr.txt
STATUS=${PIPESTATUS[1]}
expect_status 2 "garbage on stdin"
expect_one_error_line "garbage on stdin" stdin
check "garbage on stdin: no output" test ! -e o.wav

finish
