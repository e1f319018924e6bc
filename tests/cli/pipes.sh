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

# libsndfile cannot write WAV to a pipe (its header needs a seek at the end):
# one clear error, exit 2.
"$CONVOY" filter in.wav - --taps taps.txt -q 2>stderr.txt | cat >piped.wav
STATUS=${PIPESTATUS[0]}
expect_status 2 "WAV to a pipe"
expect_one_error_line "WAV to a pipe" stdout

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
