#!/bin/bash
# `convoy live` as a JACK client of its own (the native backend), against a
# private JACK server (jack.bash): ports named in_N/out_N of a named client,
# connected to the physical ports by default, to the ports --connect
# patterns match, or to none (--no-connect); a click track through an IR of
# 0.5 at frame 37 comes out exactly (the click delayed 37 frames and halved:
# no latency added, no sample lost), also after the server's period changes
# to 256 and to 64 frames (jack_bufsize), which the convolver follows; a
# --block or --rate other than the server's, and a server that shuts down,
# end convoy with status 2. PortAudio's JACK host (--backend portaudio)
# still carries the signal exactly. Timing (callback time, xruns) is
# printed, not judged.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/jack.bash"

start_server
gen delay.wav --frames 64 --channels 1 --rate "$RATE" --signal impulse --amp 0.5 --pos 37

# live NAME ARGS...: `convoy live --ir delay.wav ARGS` in the background as
# JACK client NAME, logging to NAME.err; its pid in PID once its ports exist.
live() {
  local name=$1
  shift
  $DEFAULT_SIGNALS "$CONVOY" live --ir delay.wav --engine cpu --name "$name" "$@" </dev/null \
    >"$name.out" 2>"$name.err" &
  PID=$!
  KILL_PIDS="$KILL_PIDS $PID"
  wait_port "^$name:out_" "$PID" || fail "convoy live $* did not start: $(tr '\n' '|' <"$name.err")"
}

# stop NAME: SIGINT, then its exit status in STATUS and its summary printed.
stop() {
  kill -INT "$PID" 2>/dev/null
  wait_exit "$PID" 15
  echo "$1: $(grep '^convoy: live: ' "$1.err")"
}

# ---------------------------------------------------------------- names, connections
live fir -v
check "ports in_1, in_2, out_1, out_2 of client 'fir' ($(jack_lsp | tr '\n' ' '))" \
  test -n "$(port_of '^fir:in_1$')" -a -n "$(port_of '^fir:in_2$')" -a \
  -n "$(port_of '^fir:out_1$')" -a -n "$(port_of '^fir:out_2$')"
check "no in_0/out_0 (PortAudio's names)" test -z "$(port_of '^fir:(in|out)_0$')"
check "default: in_1 <- system:capture_1 ($(peers fir:in_1))" \
  test "$(peers fir:in_1)" = system:capture_1
check "default: in_2 <- system:capture_2" test "$(peers fir:in_2)" = system:capture_2
check "default: out_1 -> system:playback_1 ($(peers fir:out_1))" \
  test "$(peers fir:out_1)" = system:playback_1
check "default: out_2 -> system:playback_2" test "$(peers fir:out_2)" = system:playback_2
stop fir
check "default connections: exit status 0 on SIGINT ($(tr '\n' '|' <fir.err))" test "$STATUS" = 0
check "-v names the client and the block ($(tr '\n' '|' <fir.err))" \
  grep -q "JACK client 'fir'.*" fir.err
check "-v: the block is the server's period" grep -q '2 channels at 48000 Hz, block 128' fir.err

live bare --no-connect
ALL=""
for p in bare:in_1 bare:in_2 bare:out_1 bare:out_2; do ALL="$ALL$(peers $p)"; done
check "--no-connect: no port connected ($ALL)" test -z "$ALL"
stop bare
check "--no-connect: exit status 0" test "$STATUS" = 0

start_metro "click$$"
live pick --connect "^click$$:" --connect '^system:playback_2$'
check "--connect: the click feeds in_1 ($(peers pick:in_1))" test "$(peers pick:in_1)" = "$METRO"
check "--connect: in_2 has no output port to take" test -z "$(peers pick:in_2)"
check "--connect: out_1 feeds the first matching input port ($(peers pick:out_1))" \
  test "$(peers pick:out_1)" = system:playback_2
check "--connect: out_2 stays unconnected ($(peers pick:out_2))" test -z "$(peers pick:out_2)"
check "--connect: system:capture untouched" test -z "$(peers system:capture_1)"

# ---------------------------------------------------------------- the signal path
exact_through "$METRO" pick:out_1 0.5
check "native backend: output = click * IR exactly, no latency added ($ERR)" \
  test "$EXACT" = 1

# The server's period changes under convoy: it rebuilds the convolver for the
# new period off the audio thread and goes on; the output is exact again.
for period in 256 64; do
  jack_bufsize "$period" >/dev/null 2>&1
  for _ in $(seq 1 100); do
    grep -q "JACK now runs $period-frame periods" pick.err && break
    sleep 0.1
  done
  check "period $period: convoy follows ($(tail -n 1 pick.err))" \
    grep -q "JACK now runs $period-frame periods.*block $period" pick.err
  check "period $period: still running" kill -0 "$PID"
  exact_through "$METRO" pick:out_1 0.5
  check "period $period: output = click * IR exactly ($ERR)" test "$EXACT" = 1
done
jack_bufsize 128 >/dev/null 2>&1
stop pick
check "period changes: exit status 0" test "$STATUS" = 0
check "period changes: no failed block (summary: $(grep '^convoy: live: ' pick.err))" \
  test "$(summary_field failed pick.err)" = "" -o "$(summary_field failed pick.err)" = 0

# ---------------------------------------------------------------- PortAudio's JACK host
# Its client is "convoy" (PortAudio's name), its ports in_0/out_0.
$DEFAULT_SIGNALS "$CONVOY" live --ir delay.wav --engine cpu --backend portaudio </dev/null \
  2>pa.err &
PID=$!
KILL_PIDS="$KILL_PIDS $PID"
if wait_port '^convoy[^:]*:out_0$' "$PID"; then
  PA_IN=$(port_of '^convoy[^:]*:in_0$')
  jack_connect "$METRO" "$PA_IN" 2>/dev/null
  exact_through "$METRO" "$(port_of '^convoy[^:]*:out_0$')" 0.5
  check "--backend portaudio: output = click * IR exactly ($ERR)" test "$EXACT" = 1
else
  fail "--backend portaudio did not start: $(tr '\n' '|' <pa.err)"
fi
stop pa
check "--backend portaudio: exit status 0" test "$STATUS" = 0

# ---------------------------------------------------------------- refusals
# expect2 NEEDLE ARGS...: `convoy live ARGS` ends with status 2 and one line holding NEEDLE.
expect2() {
  local needle=$1
  shift
  run live "$@"
  expect_status 2 "live $*"
  expect_one_error_line "live $*" "$needle"
}
expect2 "--block 64: the JACK server runs 128-frame periods" --ir delay.wav --block 64
printf 'block 256\n1 1 delay.wav\n' >b256.conf
expect2 "the config's block 256: the JACK server runs 128-frame periods" --config b256.conf
printf '0.5\n0.25\n' >taps.txt # taps without a rate of their own
expect2 "--rate 44100: the JACK server runs at 48000 Hz" --taps taps.txt --rate 44100
expect2 "--connect 'nothing-here': no audio port of another JACK client matches" \
  --ir delay.wav --connect nothing-here
JACK_DEFAULT_SERVER="convoy-none-$$" expect2 "--backend jack: no JACK server answers" \
  --ir delay.wav --backend jack
JACK_DEFAULT_SERVER="convoy-none-$$" expect2 "--no-connect: no JACK server answers" \
  --ir delay.wav --no-connect
JACK_DEFAULT_SERVER="convoy-none-$$" expect2 "--name: no JACK server answers" \
  --ir delay.wav --name reverb
# usage1 ARGS...: a usage error, status 1, before any server is asked.
usage1() {
  run live "$@"
  expect_status 1 "live $*"
  expect_one_error_line "live $*"
}
usage1 --ir delay.wav --backend alsa
usage1 --ir delay.wav --backend portaudio --connect system
usage1 --ir delay.wav --backend jack --in 0
usage1 --ir delay.wav --connect system --no-connect
usage1 --ir delay.wav --connect '(unclosed'
usage1 --ir delay.wav --name 'a:b'
usage1 --ir delay.wav --backend portaudio --name reverb

# ---------------------------------------------------------------- server shutdown
# A server that goes away ends convoy with status 2 and a message.
SERVER_KEEP=$JACK_DEFAULT_SERVER
start_server
GONE_PID=$SERVER_PID
live gone
# Its ports exist before it is active; it is running once they are connected.
wait_for "$PID" has_peer gone:in_1 || fail "server shutdown: convoy live was never connected"
kill -TERM "$GONE_PID"
wait_exit "$PID" 20
check "server shutdown: exit status 2 (got $STATUS; $(tr '\n' '|' <gone.err))" test "$STATUS" = 2
check "server shutdown: said so" grep -q 'the JACK server shut convoy down' gone.err
check "server shutdown: summary printed" grep -q '^convoy: live: ' gone.err
export JACK_DEFAULT_SERVER=$SERVER_KEEP

finish
