#!/bin/bash
# `convoy live --meter` and the levels of `stats`, on a private JACK server
# (jack.bash): two inputs get a signal of known level from jack_signal
# --square (+A and -A in turn: every sample has magnitude A, so that peak and
# RMS are exactly A over any stretch, wherever the JACK cycles and `stats`
# calls fall, with no need to freewheel), 0.5 on in_1 and 0.25 on in_2,
# through an IR of 0.5 at frame 37. `stats` gives in_peak and in_rms exactly
# 0.5 and 0.25, peak and rms of the outputs 0.25 and 0.125 (to the
# convolver's rounding); --meter on a terminal (a pty from script) draws a
# line per input and output with the same levels in dBFS (-6.0, -12.0,
# -12.0, -18.1); without a terminal it draws none; -q and --meter exclude
# each other.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/jack.bash"

if ! command -v script >/dev/null; then
  echo "script (util-linux) is not installed: skipped"
  exit 77
fi
if [ ! -x "$TOOLS/jack_signal" ]; then
  echo "jack_signal (tests/tools) was not built: skipped"
  exit 77
fi

start_server
gen delay.wav --frames 64 --channels 1 --rate "$RATE" --signal impulse --amp 0.5 --pos 37
SOCK=$WORK/meter.sock

# On a pty: stderr is a terminal there, as it is for a user.
script -qfec "$CONVOY live --ir delay.wav --channels 2 --engine cpu --name mt --no-connect \
  --control $SOCK --meter" tty.txt </dev/null >/dev/null 2>&1 &
PID=$!
KILL_PIDS="$KILL_PIDS $PID"
wait_port '^mt:out_2$' "$PID" || fail "convoy live --meter did not start: $(tr '\n' '|' <tty.txt)"

# play NAME PORT AMP: jack_signal --square into PORT until the end.
PLAYERS=""
play() {
  "$TOOLS/jack_signal" --play --square --name "$1" --to "$2" --amp "$3" >"$1.out" 2>&1 &
  KILL_PIDS="$KILL_PIDS $!"
  PLAYERS="$PLAYERS $!"
  disown $!
  for _ in $(seq 1 200); do
    grep -q '^playing$' "$1.out" && return 0
    sleep 0.1
  done
  fail "jack_signal --play into $2 did not start: $(tr '\n' '|' <"$1.out")"
}
play "sq1$$" mt:in_1 0.5
play "sq2$$" mt:in_2 0.25

# Until a span shows both signals at their peaks: from then on they flow, and
# the next span is theirs only (37 frames of the IR's delay are within the
# block where a signal arrived).
ARRIVED=0
for _ in $(seq 1 100); do
  ctl "$SOCK" stats
  if [ "$(json in_peak)" = "0.5,0.25" ]; then
    ARRIVED=1
    break
  fi
  sleep 0.2
done
check "the signals reach convoy (in_peak $(json in_peak))" test "$ARRIVED" = 1
for _ in $(seq 1 50); do
  sleep 0.2
  ctl "$SOCK" stats
  [ "$(json blocks)" -gt 0 ] 2>/dev/null && break
done
echo "stats: $REPLY"
check "stats: in_peak exactly 0.5 and 0.25 ($(json in_peak))" test "$(json in_peak)" = "0.5,0.25"
check "stats: in_rms exactly 0.5 and 0.25 ($(json in_rms))" test "$(json in_rms)" = "0.5,0.25"
check "stats: no block silenced (late $(total late), failed $(total failed))" \
  test "$(total late)/$(total failed)" = 0/0
# near LIST WANT...: each item of the comma-separated LIST within 1e-5
# (relative) of the WANT in its place.
near() {
  echo "$1" | awk -F, -v want="${*:2}" '
    { n = split(want, w, " "); if (NF != n) exit 1
      for (i = 1; i <= n; i++) { d = $i - w[i]; if (d < 0) d = -d; if (d > 1e-5 * w[i]) exit 1 } }'
}
check "stats: output peaks 0.25 and 0.125 ($(json peak))" near "$(json peak)" 0.25 0.125
check "stats: output RMS 0.25 and 0.125 ($(json rms))" near "$(json rms)" 0.25 0.125

# The bars: the same levels in dBFS, with the escapes and spacing taken out.
bars() { sed 's/\x1b\[[0-9]*[A-Za-z]//g; s/\r/\n/g' tty.txt | tr -s ' '; }
SEEN=0
for _ in $(seq 1 100); do
  if bars | grep -q '^in 1 rms -6.0 peak -6.0 ' && bars | grep -q '^in 2 rms -12.0 peak -12.0 ' &&
    bars | grep -q '^out 1 rms -12.0 peak -12.0 ' && bars | grep -q '^out 2 rms -18.1 peak -18.1 '; then
    SEEN=1
    break
  fi
  sleep 0.2
done
check "--meter on a terminal: in 1 -6.0, in 2 -12.0, out 1 -12.0, out 2 -18.1 dBFS, RMS and peak \
($(bars | grep -E '^(in|out) [12] ' | tail -n 4 | tr '\n' '|'))" test "$SEEN" = 1
check "--meter: a held peak and a bar" bars | grep -q '^in 1 rms -6.0 peak -6.0 hold -6.0 dBFS \[#'
check "--meter: the status line below the bars" bars | grep -q '^block 128 '

ctl "$SOCK" quit
wait_exit "$PID" 15
# The players close their clients on SIGTERM (SIGKILL at the cleanup would
# leave their semaphores behind in /dev/shm).
for p in $PLAYERS; do kill -TERM "$p" 2>/dev/null; done
for p in $PLAYERS; do
  for _ in $(seq 1 50); do
    kill -0 "$p" 2>/dev/null || break
    sleep 0.1
  done
done
check "quit: status 0" test "$STATUS" = 0
check "the summary after the bars are gone" grep -q 'convoy: live: ' tty.txt

# Not a terminal: no bars.
"$CONVOY" live --ir delay.wav --channels 2 --engine cpu --name plain --no-connect --meter \
  --duration 1 </dev/null >plain.out 2>plain.err
check "--meter, stderr not a terminal: status 0 ($(tr '\n' '|' <plain.err))" test $? = 0
check "--meter, stderr not a terminal: no bars" test -z "$(grep -E 'rms|dBFS' plain.err)"
check "--meter, stderr not a terminal: the summary" grep -q '^convoy: live: ' plain.err

"$CONVOY" live --ir delay.wav --meter -q >q.out 2>q.err
check "-q --meter: usage error, status 1" test $? = 1
check "-q --meter: says why ($(cat q.err))" grep -q 'exclude each other' q.err

finish
