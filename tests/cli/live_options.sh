#!/bin/bash
# `convoy live` errors found before any audio device is opened: usage errors
# (exit 1), unreadable impulse responses and bad routing files (exit 2, one
# line naming the file and, for a routing file, the line). No audio server
# is needed. In a build without `convoy live`, that it says so.
source "$(dirname "$0")/common.bash"

gen ir.wav --frames 480 --channels 2 --rate 48000 --signal impulse

# A build without PortAudio and libsamplerate has no `convoy live`: every
# use of it is one line saying so and exit 2, and `convoy info` says so.
if ! have_live; then
  for args in "--ir ir.wav" "--list-devices" "--help" "--no-such-option"; do
    # shellcheck disable=SC2086 # the arguments are words
    run live $args
    expect_status 2 "live $args without live audio"
    expect_one_error_line "live $args without live audio" "this build has no live audio"
  done
  run ctl control.sock stats
  expect_status 2 "ctl without live audio"
  expect_one_error_line "ctl without live audio" "this build has no live audio"
  run help live
  expect_status 2 "help live without live audio"
  expect_one_error_line "help live without live audio" "this build has no live audio"
  run info
  check "info says there is no live audio" grep -qE '^  live audio +no \(built without' stdout.txt
  run --help
  check "--help says live is not in this build" grep -q "not in this" stdout.txt
  finish
fi

# usage ARGS...: exit 1 and one line.
usage() {
  run live "$@"
  expect_status 1 "live $*"
  expect_one_error_line "live $*"
}
usage
usage --ir ir.wav --taps ir.wav
usage --ir ir.wav --engine cuda
usage --ir ir.wav --block 0
usage --ir ir.wav --block 8193
usage --ir ir.wav --channels 0
usage --ir ir.wav --rate 12x
usage --ir ir.wav --duration -1
usage --ir ir.wav --gain loud
usage --ir ir.wav extra.wav
usage --ir -
usage --ir ir.wav -q -v
usage --ir ir.wav --no-such-option
usage --ir ir.wav --connect '('

# A --connect pattern whose repetitions multiply is refused before regcomp
# sees it (glibc's regcomp took gigabytes on "r++++...", found by fuzzing):
# exit 1, one line, and little memory. A plain pattern is taken (the run then
# stops at the next bad option).
for pat in "r$(printf '+%.0s' $(seq 1 90))" '((a{1,99}){1,99}){1,99}' 'a{3}{3}{3}{3}{3}{3}{3}'; do
  rm -f rss.txt
  /usr/bin/time -f %M -o rss.txt "$CONVOY" live --ir ir.wav --connect "$pat" >stdout.txt 2>stderr.txt
  STATUS=$?
  expect_status 1 "live --connect '$pat'"
  expect_one_error_line "live --connect '$pat'" "too complex a regular expression"
  check "live --connect '$pat' stays small ($(tail -1 rss.txt) KiB)" test "$(tail -1 rss.txt)" -lt 200000
done
run live --ir ir.wav --connect 'system:playback_[0-9]+$' --duration 0
expect_status 1 "live --connect PLAIN --duration 0"
expect_one_error_line "a plain --connect pattern is taken" "--duration"

run live --help
expect_status 0 "live --help"
check "live --help prints the usage" grep -q '^Usage: convoy live' stdout.txt
run help live
expect_status 0 "help live"
check "help live prints the usage" grep -q '^Usage: convoy live' stdout.txt
run --help
check "convoy --help lists live" grep -q '^  live ' stdout.txt

# fails2 DESCRIPTION NEEDLE ARGS...: exit 2 and one line holding NEEDLE.
fails2() {
  local desc=$1 needle=$2
  shift 2
  run live "$@"
  expect_status 2 "$desc"
  expect_one_error_line "$desc" "$needle"
}
fails2 "missing IR" "missing.wav" --ir missing.wav
printf 'not audio\n' >text.txt
fails2 "--ir of a text file" "text.txt" --ir text.txt
printf '0.5\nabc\n' >bad_taps.txt
fails2 "--taps with a bad number" "bad_taps.txt" --taps bad_taps.txt
fails2 "missing config" "missing.conf" --config missing.conf
mkdir adir
fails2 "config is a directory" "adir" --config adir

# conf_fails NEEDLE TEXT: a routing file holding TEXT fails, naming NEEDLE.
conf_fails() {
  printf '%b' "$2" >bad.conf
  fails2 "config '$2'" "$1" --config bad.conf
}
conf_fails "bad.conf: no routes" "# only a comment\n\n"
conf_fails "bad.conf:1: 'oops' is neither" "oops\n"
conf_fails "bad.conf:2: input 'x'" "rate 48000\nx 1 ir.wav\n"
conf_fails "bad.conf:1: input '0'" "0 1 ir.wav\n"
conf_fails "bad.conf:1: output '1025'" "1 1025 ir.wav\n"
conf_fails "bad.conf:1: channel '0'" "1 1 ir.wav:0\n"
conf_fails "bad.conf:1: gain 'abc'" "1 1 ir.wav abc\n"
conf_fails "bad.conf:1: too many fields" "1 1 ir.wav 0 0\n"
conf_fails "bad.conf:2: 'rate' is given twice" "rate 48000\nrate 44100\n1 1 ir.wav\n"
conf_fails "bad.conf:1: block '0'" "block 0\n1 1 ir.wav\n"
conf_fails "bad.conf:1: 'channels' takes one value" "channels\n1 1 ir.wav\n"
conf_fails "bad.conf:1: unterminated" "1 1 \"ir.wav\n"
conf_fails "bad.conf:2: route 1 -> 2 is beyond 'channels 1'" "channels 1\n1 2 ir.wav\n"
conf_fails "bad.conf:1: input '1.5'" "1.5 1 ir.wav\n"
conf_fails "bad.conf:1: route has an empty file name" "1 1 :2\n"
# What the routes' files say but no device decides is checked before any
# device is opened: without an audio device these still name their problem.
conf_fails "bad.conf:1: ir.wav has 2 channels, no channel 3" "1 1 ir.wav:3\n"
conf_fails "bad.conf:1: ir.wav has 2 channels: name one as FILE:CHANNEL" "1 1 ir.wav\n"
conf_fails "ir.wav: impulse response is 48000 Hz but the stream runs at 44100 Hz" \
  "rate 44100\n1 1 ir.wav:1\n"
printf '1 2 ir.wav:1\n' >wide.conf
fails2 "--channels 1 below a route" "wide.conf:1: route 1 -> 2 is beyond the stream's 1 channels" \
  --config wide.conf --channels 1
fails2 "--ir of 2 channels on 3" "ir.wav: 2 channels of impulse response for 3 stream channels" \
  --ir ir.wav --channels 3
printf '\0\1\2' >binary.conf
fails2 "binary config" "binary.conf: binary data" --config binary.conf

# A 100,000-character value keeps the message whole: the config's name and
# line in front, the reason at the end, the value shortened in its middle.
# long_value NEEDLE WHY: after run, one line under 600 bytes that starts
# with "convoy: NEEDLE", holds "..." and ends with WHY.
long_value() {
  local desc="100,000-character value: $2"
  expect_status 2 "$desc"
  expect_one_error_line "$desc" "$1"
  check "$desc: starts with '$1'" grep -q "^convoy: $1" stderr.txt
  check "$desc: ends with the reason" grep -q "$2\$" stderr.txt
  check "$desc: shortened in the middle" grep -qF "..." stderr.txt
  check "$desc: under 600 bytes ($(wc -c <stderr.txt))" test "$(wc -c <stderr.txt)" -lt 600
}
LONG=$(head -c 100000 /dev/zero | tr '\0' a)
printf '1 1 %s\n' "$LONG" >long_file.conf
run live --config long_file.conf
long_value "long_file.conf:1: aaaa" "aaaa: File name too long"
printf 'rate 48000\n%s 1 ir.wav\n' "1$LONG" >long_field.conf
run live --config long_field.conf
long_value "long_field.conf:2: input '1aaa" "aaaa' is not a whole number in 1..1024"

# Route files are found beside the config file, whatever the working directory.
mkdir sub
printf '1 1 missing.wav\n' >sub/r.conf
fails2 "route file relative to the config" "sub/missing.wav" --config sub/r.conf

# Random routing files from a hostile alphabet: every one is refused with exit
# 2 and one line (the only file any of them names does not exist), never a
# crash. A small fuzz run beside the parser's unit of work.
N=$([ "${CONVOY_TEST_QUICK:-0}" = 1 ] && echo 60 || echo 300)
BAD=0
for i in $(seq 1 "$N"); do
  awk -v seed="$i" 'BEGIN {
    srand(seed)
    n = split("1 2 0 -1 1024 1025 99999999999999999999 1e3 0x10 rate block channels none.wav " \
              "none.wav:1 none.wav:0 none.wav:x \"none file.wav\":2 \" # ## : :: -6 nan inf " \
              "\t \r ~ rate\t48000", tok, " ")
    lines = int(rand() * 6)
    for (l = 0; l < lines; l++) {
      k = int(rand() * 6)
      line = ""
      for (j = 0; j < k; j++) line = line (rand() < 0.2 ? "" : " ") tok[1 + int(rand() * n)]
      print line
    }
  }' >fuzz.conf
  run live --config fuzz.conf
  if [ "$STATUS" -ne 2 ] || [ "$(wc -l <stderr.txt)" -ne 1 ]; then
    BAD=$((BAD + 1))
    [ "$BAD" -le 3 ] && echo "fuzz case $i: status $STATUS: $(stderr_text) config: $(tr '\n' '|' <fuzz.conf)"
  fi
done
check "$N random routing files: all refused with exit 2 and one line ($BAD not)" test "$BAD" -eq 0

# -v keeps ALSA's device-probe messages (tens of "ALSA lib ... cannot find
# card" lines without a sound card) off the terminal, counted in one line.
run live --list-devices -v
check "live -v: no ALSA probe lines" bash -c '! grep -q "^ALSA lib" stderr.txt'

# The rate's default, as the code chooses it: never the impulse response's.
run live --help
check "live --help: the rate never defaults to the IR's" grep -q "never the IR's" stdout.txt

finish
