#!/bin/bash
# SIGINT or SIGTERM during a run leaves neither OUT nor a temporary file, and
# an existing OUT stays as it was.
source "$(dirname "$0")/common.bash"

gen in.wav --frames 200000 --channels 2 --rate 48000 --signal noise
random_taps 15 3 >taps.txt
SIZE=$(stat -c %s in.wav)
mkfifo feed

# A shell without job control starts background commands with SIGINT
# ignored, and a program keeps an ignored SIGINT ignored (as under nohup).
# Give convoy the default disposition, as it has when started from a terminal.
if env --default-signal=INT true 2>/dev/null; then
  DEFAULT_SIGNALS="env --default-signal=INT"
else
  DEFAULT_SIGNALS=""
  set -m
fi

# start_stalled OUT ARGS...: convoy reads a WAV through a pipe that delivers
# half the file and then stalls, so it is certainly still running when the
# signal comes. Sets CONVOY_PID and FEED_PID.
start_stalled() {
  local out=$1
  shift
  (head -c $((SIZE / 2)) in.wav; exec sleep 60) >feed 2>/dev/null &
  FEED_PID=$!
  $DEFAULT_SIGNALS "$CONVOY" filter - "$out" --taps taps.txt -q "$@" <feed 2>stderr.txt &
  CONVOY_PID=$!
}

# wait_for_output DIR: until convoy has its output's temporary in DIR open
# (it writes) or it ended.
wait_for_output() {
  for _ in $(seq 1 300); do
    holds_open $CONVOY_PID "$1" && return 0
    kill -0 $CONVOY_PID 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# stop SIGNAL: sends it, waits up to 10 s for convoy to end, then ends the feed.
stop() {
  kill -"$1" $CONVOY_PID
  for _ in $(seq 1 200); do
    kill -0 $CONVOY_PID 2>/dev/null || break
    sleep 0.05
  done
  kill -0 $CONVOY_PID 2>/dev/null && fail "$1: convoy still running 10 s after the signal"
  kill $FEED_PID 2>/dev/null
  wait $CONVOY_PID
  STATUS=$?
  wait $FEED_PID 2>/dev/null
}

# Twice: with the unnamed temporaries of a file system that has O_TMPFILE,
# which a signal leaves nothing of anyway, and with the named ones of a file
# system without it (forced through the io layer's test hook,
# io/atomic_file.h), which the signal handler removes.
for named in 0 1; do
  export CONVOY_IO_TEST_NAMED_TEMP=$named
  for sig in INT TERM; do
    rm -rf out && mkdir out
    start_stalled out/o.wav
    wait_for_output out || fail "$sig (named $named): convoy never opened a temporary in out/"
    stop $sig
    check "$sig (named $named): convoy ended by the signal (status $STATUS)" test $STATUS -gt 128
    expect_dir_empty out "$sig (named $named)"
  done

  rm -rf keep && mkdir keep
  gen keep/o.wav --frames 100 --channels 1 --rate 8000 --signal sine
  cp keep/o.wav orig.wav
  start_stalled keep/o.wav -y
  wait_for_output keep || fail "-y (named $named): convoy never opened a temporary in keep/"
  stop INT
  check "interrupted -y run (named $named): ended by the signal (status $STATUS)" \
    test $STATUS -gt 128
  check "interrupted -y run (named $named): old OUT untouched" cmp -s keep/o.wav orig.wav
  check "interrupted -y run (named $named): only OUT in its directory" \
    test "$(ls -A keep)" = o.wav
done
unset CONVOY_IO_TEST_NAMED_TEMP

finish
