#!/bin/bash
# `convoy live --control PATH` and `convoy ctl`, on a private JACK server
# (jack.bash), with a click track through an IR of 0.5 at frame 37 recorded
# beside convoy's outputs: the socket is mode 0600; `gain DB` scales the
# output by exactly DB decibels once its crossfade is over; `mute` gives
# exact zeros, `mute 2` on output 2 only, `unmute` brings the exact signal
# back; malformed commands are refused with {"ok":false,...} and status 2
# and change nothing (same gain, mutes, IR changes, exact output); `stats`
# counts add up (its clipped samples against the summary's, its totals
# against the sums of its spans, peaks 0 while muted); stdin commands get the
# same parser and JSON replies; a second instance on the socket is refused,
# a stale socket file is replaced, a regular file is not; `quit` stops with
# status 0 and removes the socket. Timing figures are printed, not judged.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/jack.bash"

start_server
gen delay.wav --frames 64 --channels 1 --rate "$RATE" --signal impulse --amp 0.5 --pos 37
start_metro "click$$"
SOCK=$WORK/convoy.sock

# is_ok / is_refused DESCRIPTION: after ctl.
is_ok() {
  if [ "$STATUS" = 0 ] && [ "$(json ok)" = true ]; then pass; else
    fail "$1: status $STATUS, reply '$REPLY' $(tr '\n' '|' <ctl.err)"
  fi
}
is_refused() {
  if [ "$STATUS" = 2 ] && [ "$(json ok)" = false ] && printf '%s' "$REPLY" | grep -q '"error":"'; then
    pass
  else
    fail "$1: want status 2 and ok false with an error, got status $STATUS, reply '$REPLY'"
  fi
}

mkfifo cmds
exec 3<>cmds # held open: convoy's stdin stays open between commands
$DEFAULT_SIGNALS "$CONVOY" live --ir delay.wav --engine cpu --name ctl --control "$SOCK" \
  --connect "^click$$:" <cmds >live.out 2>live.err &
PID=$!
KILL_PIDS="$KILL_PIDS $PID"
wait_port '^ctl:out_2$' "$PID" || fail "convoy live --control did not start: $(tr '\n' '|' <live.err)"

check "the socket exists" test -S "$SOCK"
check "the socket is mode 0600 ($(stat -c %a "$SOCK"))" test "$(stat -c %a "$SOCK")" = 600

ctl "$SOCK" stats
is_ok "first stats"
check "stats: block 128, rate 48000, gain 0, nothing muted ($REPLY)" \
  test "$(json block)/$(json rate)/$(json gain_db)/$(json muted)" = "128/48000/0/"
SUM_XRUNS=$(json xruns)
SUM_BLOCKS=$(json blocks)
SUM_CLIPPED=$(json clipped)
# note_stats: adds the span's counts of REPLY to the sums.
note_stats() {
  SUM_XRUNS=$((SUM_XRUNS + $(json xruns)))
  SUM_BLOCKS=$((SUM_BLOCKS + $(json blocks)))
  SUM_CLIPPED=$((SUM_CLIPPED + $(json clipped)))
}

exact_through "$METRO" ctl:out_1 0.5
check "before any command: output = click * IR ($ERR)" test "$EXACT" = 1

# ---------------------------------------------------------------- gain
ctl "$SOCK" gain -6
is_ok "gain -6"
check "gain -6: the reply says so ($REPLY)" test "$(json gain_db)" = -6
exact_through "$METRO" ctl:out_1 0.5 -6
check "gain -6: output = click * IR * 10^(-6/20) exactly ($ERR)" test "$EXACT" = 1
ctl "$SOCK" gain +3.5
is_ok "gain +3.5"
exact_through "$METRO" ctl:out_1 0.5 3.5
check "gain +3.5: output = click * IR * 10^(3.5/20) exactly ($ERR)" test "$EXACT" = 1
ctl "$SOCK" gain 0
is_ok "gain 0"

# ---------------------------------------------------------------- mute
ctl "$SOCK" mute
is_ok "mute"
check "mute: both outputs listed ($REPLY)" test "$(json muted)" = "1,2"
sleep 0.2
ctl "$SOCK" stats
is_ok "stats while muted"
note_stats
ZEROS=none
for attempt in 1 2 3; do
  record rec.wav "$METRO" ctl:out_1 ctl:out_2 || continue
  ZEROS=$(($(nonzero rec.wav 3 2) + $(nonzero rec.wav 3 3)))
  [ "$(nonzero rec.wav 3 1)" -gt 0 ] && break
done
check "mute: every output sample is 0 while the clicks play ($ZEROS not)" test "$ZEROS" = 0
ctl "$SOCK" stats
is_ok "stats after a muted second"
note_stats
check "mute: peaks 0 over a muted span ($(json peak))" test "$(json peak)" = "0,0"

ctl "$SOCK" unmute 1
is_ok "unmute 1"
check "unmute 1: output 2 stays muted ($REPLY)" test "$(json muted)" = 2
exact_through "$METRO" ctl:out_1 0.5
check "unmute 1: output 1 exact again ($ERR)" test "$EXACT" = 1
ctl "$SOCK" unmute
is_ok "unmute"
check "unmute: nothing muted ($REPLY)" test -z "$(json muted)"
ctl "$SOCK" stats
is_ok "stats after unmute"
note_stats
PEAK1=$(json peak | cut -d, -f1)
check "peak of output 1 over the unmuted span: the click's 0.5 halved (${PEAK1})" \
  awk -v p="$PEAK1" 'BEGIN { exit !(p > 0.2 && p <= 0.25 + 1e-6) }'

# ---------------------------------------------------------------- bad commands
ctl "$SOCK" gain -3
is_ok "gain -3"
ctl "$SOCK" mute 2
is_ok "mute 2"
# Eight changes so far (gain -6, +3.5, 0; mute; unmute 1; unmute; gain -3;
# mute 2): the count is of changes loaded, each heard (a crossfade) or merged
# into the next; wait until none is still on its way.
BEFORE_CHANGES=8
for _ in $(seq 1 100); do
  ctl "$SOCK" stats
  note_stats
  [ "$(total ir_changes)" -ge "$BEFORE_CHANGES" ] && [ "$(total ir_pending)" = 0 ] && break
  sleep 0.1
done
check "eight crossfades done before the bad commands ($(total ir_changes))" \
  test "$(total ir_changes)" = "$BEFORE_CHANGES"
for bad in "gain" "gain loud" "gain 61" "gain -201" "gain 1 2" "gain nan" "mute 0" "mute 3" \
  "mute x" "unmute -1" "ir" "ir missing.wav" "reload now" "stats please" "quit now" \
  "frobnicate" "GAIN -6"; do
  # shellcheck disable=SC2086 # the command's words
  ctl "$SOCK" $bad
  is_refused "'$bad'"
done
ctl "$SOCK" "" # an empty line
is_refused "an empty command"
sleep 0.2
ctl "$SOCK" stats
is_ok "stats after the bad commands"
note_stats
check "bad commands: gain still -3, output 2 still muted ($REPLY)" \
  test "$(json gain_db)/$(json muted)" = "-3/2"
check "bad commands: no crossfade started ($BEFORE_CHANGES -> $(total ir_changes))" \
  test "$(total ir_changes)" = "$BEFORE_CHANGES"
exact_through "$METRO" ctl:out_1 0.5 -3
check "bad commands: output 1 still click * IR at -3 dB ($ERR)" test "$EXACT" = 1
check "bad commands: still running" kill -0 "$PID"

# ---------------------------------------------------------------- stdin
echo "gain 0" >&3
echo "unmute" >&3
echo "wobble" >&3
for _ in $(seq 1 50); do
  [ "$(wc -l <live.out)" -ge 3 ] && break
  sleep 0.1
done
check "stdin: one JSON reply per line on stdout ($(tr '\n' '|' <live.out))" \
  test "$(sed -n 1p live.out)" = '{"ok":true,"gain_db":0}' -a \
  "$(sed -n 2p live.out)" = '{"ok":true,"muted":[]}'
check "stdin: an unknown command refused by the same parser" \
  grep -q '^{"ok":false,"error":"unknown command .wobble' live.out

# ---------------------------------------------------------------- stats add up
# Clipping: the click 24 dB up peaks near 4. Then the click is disconnected:
# once the IR has rung out nothing clips any more, so the stats spans hold
# every clipped sample the summary counts.
ctl "$SOCK" gain 24
is_ok "gain 24"
sleep 1
ctl "$SOCK" stats
is_ok "stats while clipping"
note_stats
check "stats: samples clipped while the click is 24 dB up ($(json clipped))" \
  test "$(json clipped)" -gt 0
jack_disconnect "$METRO" ctl:in_1
sleep 0.5
ctl "$SOCK" stats
is_ok "stats after the click was disconnected"
note_stats
check "stats: xruns of the spans add up to the total ($SUM_XRUNS, $(total xruns))" \
  test "$SUM_XRUNS" = "$(total xruns)"
check "stats: blocks of the spans add up to the total ($SUM_BLOCKS, $(total blocks))" \
  test "$SUM_BLOCKS" = "$(total blocks)"
check "stats: clipped of the spans add up to the total ($SUM_CLIPPED, $(total clipped))" \
  test "$SUM_CLIPPED" = "$(total clipped)"
echo "stats: $REPLY"

# ---------------------------------------------------------------- one instance per socket
run live --ir delay.wav --engine cpu --no-connect --control "$SOCK" --duration 5
expect_status 2 "a second instance on the socket"
expect_one_error_line "a second instance on the socket" "another convoy live answers on this socket"
check "the second instance opened no JACK client" test -z "$(port_of '^convoy')"
ctl "$SOCK" stats
is_ok "the first instance still answers"

ctl "$SOCK" quit
is_ok "quit"
wait_exit "$PID" 15
exec 3>&-
echo "control run: $(grep '^convoy: live: ' live.err)"
check "quit: exit status 0 ($(tr '\n' '|' <live.err))" test "$STATUS" = 0
check "quit: the socket is removed" test ! -e "$SOCK"
check "the summary's clipped samples are the stats' ($(summary_field clipped live.err), $SUM_CLIPPED)" \
  test "$(summary_field clipped live.err)" = "$SUM_CLIPPED"
check "gain changes were logged" grep -q '^convoy: gain -6 dB' live.err

# ---------------------------------------------------------------- stale and foreign files
# A convoy killed outright leaves its socket file behind; the next one takes
# the path over. A file that is not a socket is never removed.
$DEFAULT_SIGNALS "$CONVOY" live --ir delay.wav --engine cpu --name stale --no-connect \
  --control "$SOCK" </dev/null 2>stale.err &
PID=$!
KILL_PIDS="$KILL_PIDS $PID"
wait_port '^stale:out_1$' "$PID"
kill -KILL "$PID"
wait "$PID" 2>/dev/null
check "a killed convoy leaves its socket file" test -S "$SOCK"
ctl "$SOCK" stats
check "ctl on a stale socket: status 2 ($STATUS)" test "$STATUS" = 2
$DEFAULT_SIGNALS "$CONVOY" live --ir delay.wav --engine cpu --name fresh --no-connect \
  --control "$SOCK" </dev/null 2>fresh.err &
PID=$!
KILL_PIDS="$KILL_PIDS $PID"
wait_port '^fresh:out_1$' "$PID" || fail "a stale socket file stopped convoy: $(tr '\n' '|' <fresh.err)"
ctl "$SOCK" quit
is_ok "quit on the replaced socket"
wait_exit "$PID" 15
check "stale socket replaced: exit status 0" test "$STATUS" = 0

echo "not a socket" >plain.txt
run live --ir delay.wav --engine cpu --no-connect --control plain.txt --duration 1
expect_status 2 "--control on a regular file"
expect_one_error_line "--control on a regular file" "not a socket"
check "the regular file is kept" grep -q 'not a socket' plain.txt

# ---------------------------------------------------------------- convoy ctl alone
run ctl "$WORK/nobody.sock" stats
expect_status 2 "ctl with no convoy live"
expect_one_error_line "ctl with no convoy live" "nobody.sock"
run ctl "$SOCK"
expect_status 1 "ctl without a command"
run ctl
expect_status 1 "ctl without arguments"
run ctl --help
expect_status 0 "ctl --help"
check "ctl --help prints the usage" grep -q '^Usage: convoy ctl' stdout.txt

finish
