#!/bin/bash
# SIGKILL, which no handler sees, at random points while convoy writes a
# large output leaves nothing at all in the output directory (no hidden
# temporary either) for raw, SigMF and WAV outputs: the temporary has no name
# until it is complete (O_TMPFILE). A kill that comes after the output was
# committed leaves the complete output, the bytes of a whole run. Where a file system has no O_TMPFILE
# (forced here through the io layer's test hook, io/atomic_file.h) a killed
# run leaves its named temporary, and the next run that writes the same OUT
# removes it, but never the temporary of a writer that is still running.
source "$(dirname "$0")/common.bash"

# 100 MB of 16-bit I/Q (any bytes are valid samples) and 50 MB of stereo WAV.
head -c 100000000 /dev/urandom >in.cs16 || exit 1
gen in.wav --frames 12500000 --channels 2 --rate 48000 --subtype pcm16 --signal noise --amp 0.5
random_taps 255 11 >taps.txt

# The three outputs: OUT, the input, convoy's arguments (reading the input
# from stdin), then the files it makes.
CASES=(
  "o.cs16|in.cs16|- out/o.cs16 --format cs16 --taps taps.txt|o.cs16"
  "o.sigmf-meta|in.cs16|- out/o.sigmf-meta --format cs16 --rate 1e6 --taps taps.txt|o.sigmf-data o.sigmf-meta"
  "o.wav|in.wav|- out/o.wav --taps taps.txt|o.wav"
)

# slow_feed FILE: FILE on stdout in 8 pieces 0.15 s apart, so that a run
# writes for over a second however fast it filters, and random kill points
# fall while it writes however loaded the machine is (runs that took 0.1 s
# were killed while writing 0 to 3 times in 12 tries beside 16 busy loops).
slow_feed() {
  local piece i
  piece=$((($(stat -c %s "$1") + 7) / 8))
  for i in 0 1 2 3 4 5 6 7; do
    dd if="$1" bs="$piece" skip="$i" count=1 status=none 2>/dev/null || return
    sleep 0.15
  done
}

# start_writing INPUT ARGS...: starts `convoy filter ARGS -q` on INPUT fed
# slowly (the engine named: auto would first read a pipe ahead) and waits
# until it has its output's temporary in out/ open (it writes) or it ended.
# Sets PID.
start_writing() {
  local input=$1
  shift
  slow_feed "$input" | "$CONVOY" filter "$@" --engine cpu -q 2>stderr.txt &
  PID=$!
  for _ in $(seq 1 1000); do
    holds_open $PID out && return 0
    kill -0 $PID 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# kill_at SECONDS: SIGKILL to PID after SECONDS; sets STATUS (137: killed).
kill_at() {
  sleep "$1"
  kill -KILL $PID 2>/dev/null
  { wait $PID; } 2>/dev/null # without the shell's "Killed" line
  STATUS=$?
}

# A random fraction (0 .. 0.9) of SECONDS, with three decimals.
random_point() { awk -v s="$1" -v r="$RANDOM" 'BEGIN { printf "%.3f\n", s * 0.9 * r / 32768 }'; }

# same_as_ref FILE...: each out/FILE has the bytes of ref/FILE.
same_as_ref() {
  local f
  for f in "$@"; do cmp -s "out/$f" "ref/$f" || return 1; done
}

for c in "${CASES[@]}"; do
  IFS='|' read -r name input args made <<<"$c"
  # shellcheck disable=SC2206
  argv=($args)
  # A whole run: how long it writes (from its temporary's opening to its
  # exit; start-up is no time to kill it in), and what it leaves.
  rm -rf out && mkdir out
  T0=
  start_writing "$input" "${argv[@]}" && T0=$(date +%s.%N)
  { wait $PID; } 2>/dev/null
  STATUS=$?
  DUR=$(awk -v a="${T0:-0}" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", (a > 0 ? b - a : 0.05) }')
  expect_status 0 "$name: a whole run"
  check "$name: a whole run leaves only its output ($(ls -A out | tr '\n' ' '))" \
    test "$(ls -A out | tr '\n' ' ')" = "$made "
  rm -rf ref && cp -r out ref

  # Killed at random points: at least four while writing, at most 12 tries
  # (a run that ended, or committed its output, before its kill makes the
  # points earlier).
  killed=0
  for _ in $(seq 1 12); do
    rm -rf out && mkdir out
    if ! start_writing "$input" "${argv[@]}"; then
      wait $PID
      continue
    fi
    AT=$(random_point "$DUR")
    kill_at "$AT"
    if [ "$STATUS" -ne 137 ]; then # finished first: try earlier points
      echo "$name: finished (status $STATUS) before SIGKILL at $AT s"
      DUR=$(awk -v d="$DUR" 'BEGIN { printf "%.3f\n", d * 0.6 }')
      continue
    fi
    # Killed after its output was committed, before it exited: the output
    # is complete, the whole run's bytes.
    if [ "$(ls -A out | tr '\n' ' ')" = "$made " ] && same_as_ref $made; then
      echo "$name: SIGKILL at $AT s came after the output was complete"
      pass
      DUR=$(awk -v d="$DUR" 'BEGIN { printf "%.3f\n", d * 0.6 }')
      continue
    fi
    killed=$((killed + 1))
    echo "$name: SIGKILL at $AT s of a ${DUR} s run"
    expect_dir_empty out "$name: SIGKILL at $AT s of ${DUR} s"
    [ "$killed" -ge 4 ] && break
  done
  check "$name: killed while writing at least 4 times ($killed)" test "$killed" -ge 4
done

# ------------------------------------------------------------ named fallback
# only_temps_of PID: out/ holds temporaries ".o.*.convoy-PID-XXXXXX" only.
only_temps_of() {
  [ -n "$(ls -A out)" ] && ! ls -A out | grep -qv "^\.o\.[a-z0-9-]*\.convoy-$1-[A-Za-z0-9]\{6\}\$"
}

# Each writer is killed while it certainly writes: its input comes through a
# pipe that stops halfway (however fast the machine filters the rest).
export CONVOY_IO_TEST_NAMED_TEMP=1
for c in "${CASES[@]}"; do
  IFS='|' read -r name input args made <<<"$c"
  # shellcheck disable=SC2206
  argv=($args)
  rm -rf out feed && mkdir out && mkfifo feed
  (head -c "$(($(stat -c %s "$input") / 2))" "$input"; exec sleep 60) >feed 2>/dev/null &
  FEED_PID=$!
  "$CONVOY" filter "${argv[@]}" -q <feed 2>stderr.txt &
  PID=$!
  for _ in $(seq 1 1000); do
    holds_open $PID out && break
    sleep 0.01
  done
  check "$name (named): convoy writes a temporary in out/ while its input waits" holds_open $PID out
  kill_at 0.05
  kill $FEED_PID 2>/dev/null
  wait $FEED_PID 2>/dev/null
  check "$name (named): convoy was killed while writing (status $STATUS)" test "$STATUS" -eq 137
  LEFT=$(ls -A out | tr '\n' ' ')
  check "$name (named): SIGKILL leaves temporaries named with the writer's PID ($LEFT)" \
    only_temps_of $PID
  # The next run that writes the same OUT removes them (they are not locked).
  run filter "${argv[@]}" -q <"$input"
  expect_status 0 "$name (named): the next run"
  check "$name (named): the next run removed the stale temporaries ($(ls -A out | tr '\n' ' '))" \
    test "$(ls -A out | tr '\n' ' ')" = "$made "
done
rm -f feed

# A live writer's temporary is never taken for a stale one: writer A stalls
# halfway through its input (a pipe) while writer B writes the same OUT from
# a file and finishes; A's temporary must still be there, and A still
# running. Then A is stopped by SIGTERM, whose handler removes it.
rm -rf out && mkdir out
mkfifo feed
head -c 1000000 in.cs16 >small.cs16
(head -c 500000 small.cs16; exec sleep 60) >feed 2>/dev/null &
FEED_PID=$!
# The engine is named: `auto` would first read the pipe ahead up to a short
# input's length (more than A gets) before it opens OUT.
"$CONVOY" filter - out/o.cs16 --format cs16 --taps taps.txt --engine cpu -q <feed 2>a.err &
PID=$!
for _ in $(seq 1 500); do
  holds_open $PID out && break
  sleep 0.01
done
A_TEMP=$(ls -A out)
check "live writer: A's temporary is named ($A_TEMP)" test -n "$A_TEMP"
run filter small.cs16 out/o.cs16 --taps taps.txt -q
expect_status 0 "live writer: B, writing the same OUT"
check "live writer: A's temporary kept while A runs ($(ls -A out | tr '\n' ' '))" \
  test -n "$A_TEMP" -a -f "out/$A_TEMP"
check "live writer: A still running" kill -0 $PID
check "live writer: B's output in place" test -f out/o.cs16
kill -TERM $PID 2>/dev/null
wait $PID
kill $FEED_PID 2>/dev/null
wait $FEED_PID 2>/dev/null
check "live writer: A's SIGTERM removed its temporary ($(ls -A out | tr '\n' ' '))" \
  test "$(ls -A out)" = o.cs16
unset CONVOY_IO_TEST_NAMED_TEMP

finish
