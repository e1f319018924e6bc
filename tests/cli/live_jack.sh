#!/bin/bash
# `convoy live` against a running JACK server, as a JACK client of its own
# (its default there; PortAudio's JACK host API where --backend portaudio):
# a 10 s run with a 1 s stereo IR on the CPU engine that must end cleanly on
# SIGINT, IR reloads while it runs (SIGHUP and stdin, also in quick
# succession), the exact signal path through convoy with the server
# freewheeling (through both backends), and the error paths (no such device,
# IR rate != stream rate, too many channels, a config route naming no channel
# of a stereo file).
#
# Nothing here depends on the machine being idle: lateness, xruns and load
# are reported, not judged, and the output is checked where no one can be
# late (JACK's freewheel mode).
#
# Why the dummy driver: test machines have no sound card. jackd's dummy
# driver runs the real JACK graph on a timer instead of a sound card's
# interrupt, so convoy's JACK client, port connections, the callback and
# JACK's xrun reports are all the real code paths. It runs without realtime
# scheduling (--no-realtime, no privileges needed). Its timer can then wake
# late on a busy machine, which the server logs as "JackTimedDriver::Process
# XRun" and reports to every client: the report below tells such server-side
# xruns apart from a late client (logged as "client = convoy ... was not
# finished") and from the convolver's own deadline misses.
#
# A server named by JACK_DEFAULT_SERVER that is already running (CI starts
# one; its log may be named by CONVOY_JACK_LOG) is used; otherwise the test
# starts a private one and stops it at the end, whatever happens. Skips (77)
# only when jackd is not installed or the build has no `convoy live`.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/jackd.bash"

if ! have_live; then
  echo "this build has no live audio (PortAudio, libsamplerate): skipped"
  exit 77
fi
if ! command -v jackd >/dev/null || ! command -v jack_lsp >/dev/null; then
  echo "jackd (jackd2) is not installed: skipped"
  exit 77
fi

SHARED_PID=""
CONVOY_PID=""
STALL_PID=""
EXACT_PID=""
cleanup() {
  [ -n "$CONVOY_PID" ] && kill -KILL "$CONVOY_PID" 2>/dev/null
  for pid in "$STALL_PID" "$EXACT_PID" "$SHARED_PID"; do
    [ -n "$pid" ] && jackd_stop "$pid"
  done
  chmod -R u+rwX "$WORK" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

export JACK_NO_START_SERVER=1 # never let libjack start a server of its own
server_up() { jack_lsp -s "$JACK_DEFAULT_SERVER" >/dev/null 2>&1; }

JACK_LOG=""
if [ -n "${JACK_DEFAULT_SERVER:-}" ] && server_up; then
  echo "using the running JACK server '$JACK_DEFAULT_SERVER'"
  JACK_LOG=${CONVOY_JACK_LOG:-}
else
  JACK_LOG=$WORK/jackd.log
  jackd_start "$JACK_LOG" 48000 || exit 1
  export JACK_DEFAULT_SERVER=$JACKD_NAME
  SHARED_PID=$JACKD_PID
fi
RATE=$(jack_samplerate 2>/dev/null | tr -dc 0-9)
[ -n "$RATE" ] || RATE=48000
OTHER_RATE=$([ "$RATE" = 44100 ] && echo 48000 || echo 44100)
log_lines() { if [ -n "$JACK_LOG" ] && [ -f "$JACK_LOG" ]; then wc -l <"$JACK_LOG"; else echo 0; fi; }
log_since() { [ -n "$JACK_LOG" ] && [ -f "$JACK_LOG" ] && tail -n +"$(($1 + 1))" "$JACK_LOG"; }

# As in signal.sh: background commands of a script start with SIGINT ignored.
if env --default-signal=INT true 2>/dev/null; then
  DEFAULT_SIGNALS="env --default-signal=INT"
else
  DEFAULT_SIGNALS=""
  set -m
fi

gen ir.wav --frames "$RATE" --channels 2 --rate "$RATE" --signal noise --amp 0.001 --seed 7
gen ir_other.wav --frames "$OTHER_RATE" --channels 2 --rate "$OTHER_RATE" --signal noise \
  --amp 0.001 --seed 8
gen ir4.wav --frames 4800 --channels 4 --rate "$RATE" --signal noise --amp 0.001 --seed 9

# wait_exit PID SECONDS: sets STATUS to PID's exit status, or fails and kills it.
wait_exit() {
  for _ in $(seq 1 $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$1" 2>/dev/null; then
    fail "convoy still running $2 s after it was told to stop"
    kill -KILL "$1"
  fi
  wait "$1"
  STATUS=$?
}

# connected in|out PEER: a port of convoy's is connected to PEER (jack_lsp -c
# prints each port, then its connections indented).
connected() {
  awk -v dir="$1" -v peer="$2" '
    /^[^ \t]/ { mine = ($0 ~ "^convoy[^:]*:" dir "_[0-9]+$") }
    mine && /^[ \t]/ && index($0, peer) { found = 1 }
    END { exit !found }' ports.txt
}

# wait_ports: until convoy's ports appear in the graph (it is then running;
# loading and planning take a moment) or it ended; at most 20 s.
wait_ports() {
  for _ in $(seq 1 200); do
    jack_lsp 2>/dev/null | grep -q '^convoy[^:]*:out_' && return 0
    kill -0 "$CONVOY_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# summary_field NAME FILE: the number after NAME in the summary line.
summary_field() {
  grep '^convoy: live: ' "$2" | sed -n "s/.*[ (]$1 \([0-9]*\).*/\1/p" | head -n 1
}

# ---------------------------------------------------------------- 10 s run
MARK=$(log_lines)
$DEFAULT_SIGNALS "$CONVOY" live --ir ir.wav --engine cpu --block 128 </dev/null >run.out \
  2>run.err &
CONVOY_PID=$!
wait_ports
START=$SECONDS
sleep 2
if kill -0 "$CONVOY_PID" 2>/dev/null; then
  pass
  # The JACK client is "convoy": its ports must be connected to the device.
  jack_lsp -c >ports.txt 2>/dev/null
  check "convoy's output port is connected to system playback ($(tr '\n' ' ' <ports.txt))" \
    connected out system:playback
  check "convoy's input port is connected to system capture" connected in system:capture
else
  fail "convoy live ended early: $(tr '\n' '|' <run.err)"
fi
sleep $((10 - (SECONDS - START)))
kill -INT "$CONVOY_PID" 2>/dev/null
wait_exit "$CONVOY_PID" 10
CONVOY_PID=""
SERVER_LOG=$(log_since "$MARK")

check "10 s run: exit status $STATUS after SIGINT, want 0 ($(tr '\n' '|' <run.err))" \
  test "$STATUS" -eq 0
check "10 s run: a summary line ($(tr '\n' '|' <run.err))" grep -q '^convoy: live: ' run.err
XRUNS=$(summary_field xruns run.err)
LATE=$(summary_field late run.err)
FAILED=$(summary_field failed run.err)
# With no xrun at all the summary prints "xruns 0" without the breakdown.
[ "$XRUNS" = 0 ] && LATE=${LATE:-0} && FAILED=${FAILED:-0}
# Timing is reported, not judged: without realtime priority, on a machine
# that runs other work, the server's timer wakes late, convoy's callback or
# its tail workers lose their CPU for longer than a block now and then, and
# that says nothing about convoy. The server logs why it reported an xrun:
# its timer woke late, or a client had not finished ("Triggered": woken but
# not yet scheduled; "Running": started but not done). What must hold
# whatever the load is checked here; the exact output is checked further
# down with the server freewheeling, where no one can be late.
TIMER_XRUNS=$(printf '%s\n' "$SERVER_LOG" | grep -c 'JackTimedDriver::Process XRun')
CLIENT_XRUNS=$(printf '%s\n' "$SERVER_LOG" | grep -c 'client = convoy.* not finished')
P99_LOAD=$(grep '^convoy: live: ' run.err | sed -n 's/.* p99 \([0-9.]*\)%.*/\1/p')
echo "10 s run: $(grep '^convoy: live: ' run.err)"
echo "10 s run, timing (reported, not judged): xruns ${XRUNS:-?}, of them late ${LATE:-?};" \
  "p99 callback ${P99_LOAD:-?}% of the block period; server log: $TIMER_XRUNS timer xruns," \
  "$CLIENT_XRUNS with convoy not finished; load average $(cut -d' ' -f1-3 /proc/loadavg)"
check "xruns and load figures in the summary" test -n "$XRUNS" -a -n "$P99_LOAD"
check "no failed block (a callback that could not run the convolver: ${FAILED:-?})" \
  test "${FAILED:-1}" -eq 0

# ---------------------------------------------------------------- IR changes
# Functional: each change is loaded off the audio thread and crossfaded in;
# a failed one keeps the old IR. (The xruns of this run are printed, not
# judged.)
mkfifo ctl
exec 3<>ctl # held open, so convoy's stdin stays open between commands
$DEFAULT_SIGNALS "$CONVOY" live --ir ir.wav --engine cpu <ctl >reload.out 2>reload.err &
CONVOY_PID=$!
wait_ports
sleep 1
echo reload >&3
sleep 1
kill -HUP "$CONVOY_PID" 2>/dev/null
sleep 1
echo "ir missing.wav" >&3
echo "frobnicate" >&3
echo "ir ir4.wav" >&3
sleep 1
echo reload >&3
sleep 1
echo quit >&3
wait_exit "$CONVOY_PID" 10
CONVOY_PID=""
exec 3>&-
echo "IR changes run: $(grep '^convoy: live: ' reload.err)"
CHANGES=$(summary_field 'IR changes' reload.err)
check "IR changes: exit status $STATUS after 'quit', want 0 ($(tr '\n' '|' <reload.err))" \
  test "$STATUS" -eq 0
check "four IR changes (IR changes ${CHANGES:-none}, want 4)" test "${CHANGES:-0}" -eq 4
check "a failed 'ir' command is reported and the old IR kept" \
  grep -q 'reload failed, keeping the current impulse responses: missing.wav' reload.err
check "an unknown stdin command is reported" grep -q "unknown command 'frobnicate'" reload.err
check "'ir FILE' then 'reload' reloads the new file" \
  test "$(grep -c '^convoy: loaded ir4.wav' reload.err)" -eq 2

# Commands about 1 ms apart: most arrive while the previous change is still
# on its way (its crossfade waits for the tail's partitions), so they replace
# it unheard. The summary counts every change loaded, and says how many were
# merged into the next: as many "IR changes" as "loaded" lines.
exec 3<>ctl
$DEFAULT_SIGNALS "$CONVOY" live --ir ir.wav --engine cpu <ctl >rapid.out 2>rapid.err &
CONVOY_PID=$!
wait_ports
for i in $(seq 1 27); do
  case $((i % 3)) in
  0) echo reload >&3 ;;
  1) echo "ir ir4.wav" >&3 ;;
  2) echo "ir ir.wav" >&3 ;;
  esac
  sleep 0.001
done
sleep 1
echo quit >&3
wait_exit "$CONVOY_PID" 10
CONVOY_PID=""
exec 3>&-
echo "rapid IR changes: $(grep '^convoy: live: ' rapid.err)"
LOADED=$(grep -c '^convoy: loaded ' rapid.err)
CHANGES=$(summary_field 'IR changes' rapid.err)
MERGED=$(grep '^convoy: live: ' rapid.err | grep -o '[0-9][0-9]* merged' | cut -d' ' -f1)
PENDING=$(grep '^convoy: live: ' rapid.err | grep -o '[0-9][0-9]* pending' | cut -d' ' -f1)
check "rapid IR changes: exit status $STATUS after 'quit', want 0" test "$STATUS" -eq 0
check "rapid IR changes: 27 loaded ($LOADED)" test "$LOADED" -eq 27
check "rapid IR changes: the summary counts every one loaded (IR changes ${CHANGES:-none})" \
  test "${CHANGES:-0}" -eq "$LOADED"
HEARD=$((${CHANGES:-0} - ${MERGED:-0} - ${PENDING:-0}))
check "rapid IR changes: $HEARD heard, the rest merged (${MERGED:-0}) or pending (${PENDING:-0})" \
  test "$HEARD" -ge 1

# ---------------------------------------------------------------- signal path
# A test signal (1 kHz bursts, peak 0.5) from jack_signal (tests/tools) goes
# into convoy, whose IR is 0.5 at frame 37; jack_signal records the signal and
# convoy's output in the same JACK cycles, and the output must be the signal
# delayed by exactly 37 frames and halved (no latency added beyond the audio
# block, which JACK's graph order hides). The recording runs with the server
# freewheeling: each cycle starts once every client has finished the last
# one, so however busy the machine, no cycle is cut short and no client is
# late. On a private server, since freewheeling takes the clock away from
# every client of the server.
# port_of PATTERN: the first JACK port matching PATTERN (an anchored regex).
port_of() { jack_lsp 2>/dev/null | grep -m 1 -E "$1"; }
# compare_delayed FILE DELAY GAIN: rel. L2 error of ch2 against GAIN * ch1
# delayed by DELAY, from a 32-bit PCM WAV with a 44-byte header; 9 if silent.
compare_delayed() {
  local off
  off=$(($(grep -obUa data "$1" | head -n 1 | cut -d: -f1) + 8))
  od -An -v -t d4 -j "$off" -w8 "$1" | awk -v lag="$2" -v g="$3" '
    { x[NR - 1] = $1 / 2147483648; y[NR - 1] = $2 / 2147483648; n = NR }
    END {
      e = 0; p = 0; q = 0
      for (i = lag; i < n; i++) { d = y[i] - g * x[i - lag]; e += d * d; p += y[i] * y[i]; q += x[i] * x[i] }
      if (p < 1 || q < 1) print 9; else printf "%.3g\n", sqrt(e / p)
    }'
}
# rms_ratio FILE: RMS of ch2 over RMS of ch1 (same file format); 9 if silent.
rms_ratio() {
  local off
  off=$(($(grep -obUa data "$1" | head -n 1 | cut -d: -f1) + 8))
  od -An -v -t d4 -j "$off" -w8 "$1" | awk '
    { p += $1 * $1; q += $2 * $2 }
    END { if (p < 1e12) print 9; else printf "%.4f\n", sqrt(q / p) }'
}
below() { awk -v e="$1" -v lim="$2" 'BEGIN { exit !(e + 0 < lim) }'; }
# record_through ARGS...: `convoy live --engine cpu ARGS` on the freewheeling
# server; rec.wav gets 2 s of the signal and of convoy's first output, recorded
# in the same cycles; convoy's stderr is in signal.err. convoy's own JACK
# client names its first ports in_1/out_1, PortAudio's (--backend portaudio)
# in_0/out_0.
record_through() {
  local PORT1=1
  case " $* " in *" --backend portaudio "*) PORT1=0 ;; esac
  $DEFAULT_SIGNALS "$CONVOY" live --engine cpu "$@" </dev/null 2>signal.err &
  CONVOY_PID=$!
  for _ in $(seq 1 200); do
    [ -n "$(port_of "^convoy[^:]*:out_$PORT1\$")" ] && break
    kill -0 "$CONVOY_PID" 2>/dev/null || break
    sleep 0.1
  done
  rm -f rec.wav
  timeout 60 "$TOOLS/jack_signal" rec.wav --to "$(port_of "^convoy[^:]*:in_$PORT1\$")" \
    --from "$(port_of "^convoy[^:]*:out_$PORT1\$")" --seconds 2 --freewheel --name "csig$$" \
    >jack_signal.out 2>&1
  local rc=$?
  kill -INT "$CONVOY_PID" 2>/dev/null
  wait_exit "$CONVOY_PID" 10
  CONVOY_PID=""
  [ "$rc" = 0 ] || echo "jack_signal: $(tr '\n' ' ' <jack_signal.out)"
  [ "$rc" = 0 ] && [ -f rec.wav ]
}
if [ -x "$TOOLS/jack_signal" ]; then
  SHARED_SERVER=$JACK_DEFAULT_SERVER
  jackd_start exact_jackd.log "$RATE" || exit 1
  EXACT_PID=$JACKD_PID
  export JACK_DEFAULT_SERVER=$JACKD_NAME

  gen delay.wav --frames 64 --channels 1 --rate "$RATE" --signal impulse --amp 0.5 --pos 37
  ERR=none
  record_through --ir delay.wav && ERR=$(compare_delayed rec.wav 37 0.5)
  echo "signal path: $(cat jack_signal.out); $(grep '^convoy: live: ' signal.err)"
  check "signal path: convoy's output is the input * IR with no added latency (rel. error $ERR)" \
    below "$ERR" 1e-5

  # The same through PortAudio's JACK host API.
  ERR=none
  record_through --ir delay.wav --backend portaudio && ERR=$(compare_delayed rec.wav 37 0.5)
  echo "signal path (PortAudio): $(cat jack_signal.out); $(grep '^convoy: live: ' signal.err)"
  check "signal path, --backend portaudio: the input * IR with no added latency (rel. error $ERR)" \
    below "$ERR" 1e-5

  # An IR of the other rate, 0.5 at one frame, resampled: the 1 kHz bursts come
  # out at half their level (the resampler keeps the response's gain; the
  # rate ratio alone would be off by ~9 %).
  gen delay_other.wav --frames 64 --channels 1 --rate "$OTHER_RATE" --signal impulse --amp 0.5 \
    --pos 20
  RATIO=none
  record_through --ir delay_other.wav --resample-ir && RATIO=$(rms_ratio rec.wav)
  check "--resample-ir keeps the IR's gain (level ratio $RATIO, want 0.5 +- 0.01)" \
    below "$(awk -v r="$RATIO" 'BEGIN { d = r - 0.5; print (d < 0 ? -d : d) }')" 0.01

  # The same bursts (peak 0.5, IR 0.5) 18 dB louder peak near 2: clipped samples.
  CLIPPED=none
  record_through --ir delay.wav --gain 18 && CLIPPED=$(summary_field clipped signal.err)
  check "--gain 18 on 0.25-peak output: clipped samples counted (${CLIPPED:-none})" \
    test "${CLIPPED:-0}" -gt 0

  jackd_stop "$EXACT_PID"
  EXACT_PID=""
  export JACK_DEFAULT_SERVER=$SHARED_SERVER
else
  echo "note: jack_signal was not built (no libjack development files): the signal path" \
    "checks are skipped"
fi

# ---------------------------------------------------------------- a stalled server
# A JACK server that stops answering (stopped here with SIGSTOP: a private one,
# so the shared server is never touched) must not hold convoy: closing a client
# waits for the server's answer (PortAudio's up to ten minutes). convoy prints
# its summary, says the server did not answer, and exits 2 about 5 s after
# --duration.
jackd_start stall_jackd.log "$RATE" || exit 1
STALL=$JACKD_NAME
STALL_PID=$JACKD_PID
JACK_DEFAULT_SERVER="$STALL" "$CONVOY" live --ir ir.wav --engine cpu --duration 2 \
  </dev/null 2>stall.err &
CONVOY_PID=$!
for _ in $(seq 1 100); do
  jack_lsp -s "$STALL" 2>/dev/null | grep -q '^convoy' && break
  sleep 0.1
done
sleep 0.5
kill -STOP "$STALL_PID"
wait_exit "$CONVOY_PID" 20
CONVOY_PID=""
jackd_stop "$STALL_PID"
STALL_PID=""
check "stalled server: exit status 2 (got $STATUS)" test "$STATUS" = 2
check "stalled server: says the server did not answer ($(tail -1 stall.err))" \
  grep -q 'audio server did not answer' stall.err
check "stalled server: summary printed first" grep -q '^convoy: live: ' stall.err

# ---------------------------------------------------------------- short runs
run live --ir ir_other.wav --resample-ir --duration 1 --engine cpu
expect_status 0 "--resample-ir with a $OTHER_RATE Hz IR"
check "--resample-ir: summary ($(stderr_text))" grep -q '^convoy: live: .*xruns' stderr.txt

run live --ir ir4.wav --duration 1 --engine cpu -v
expect_status 0 "true stereo (4-channel IR)"
check "true stereo: 4 routes on 2 channels ($(stderr_text))" grep -q '2 channels.*4 routes' stderr.txt

printf '# crossover-like routing\nblock 256\n1 1 ir.wav:1\n1 2 ir.wav:2 -6\n2 2 "ir.wav":1\n' \
  >routes.conf
# The config's block is not JACK's period: PortAudio, which adapts, runs it.
run live --config routes.conf --duration 1 --engine cpu -v --backend portaudio
expect_status 0 "--config with three routes"
check "--config: block 256 and 3 routes ($(stderr_text))" grep -q 'block 256.*3 routes' stderr.txt

run live --design lowpass:cutoff=4000,width=500 --duration 1 --engine cpu -v
expect_status 0 "--design at the stream's rate"
check "--design: 2 routes ($(stderr_text))" grep -q '2 channels.*2 routes' stderr.txt

run live --list-devices
expect_status 0 "--list-devices"
check "--list-devices shows JACK's system device" grep -q 'JACK.*system' stdout.txt

# ---------------------------------------------------------------- errors
run live --ir ir.wav --in no-such-device-xyz
expect_status 2 "no such device"
check "no such device: named on the first line" \
  sh -c "head -n 1 stderr.txt | grep -q \"^convoy: --in 'no-such-device-xyz': no such audio\""
check "no such device: the devices are listed" grep -q 'system' stderr.txt

run live --ir ir.wav --out 99
expect_status 2 "output device index out of range"

run live --design lowpass:cutoff=4000,width=500,rate="$OTHER_RATE"
expect_status 2 "design for another rate"
expect_one_error_line "design for another rate" "design is $OTHER_RATE Hz but the stream runs at $RATE Hz"

run live --ir ir_other.wav
expect_status 2 "IR rate != stream rate"
expect_one_error_line "IR rate != stream rate" "ir_other.wav: impulse response is $OTHER_RATE Hz but the stream runs at $RATE Hz"

gen mono.wav --frames 480 --channels 1 --rate "$RATE" --signal impulse
run live --ir mono.wav --channels 3 --backend portaudio # a JACK client makes the ports it needs
expect_status 2 "more channels than the device has"
expect_one_error_line "more channels than the device has" "the stream needs 3"

printf '1 1 ir.wav\n' >nochannel.conf
run live --config nochannel.conf
expect_status 2 "config route without :CHANNEL on a stereo file"
expect_one_error_line "config route without :CHANNEL" "nochannel.conf:1: ir.wav has 2 channels"

if ! "$CONVOY" info | grep -Eq '^GPUs: +[0-9]'; then
  run live --ir ir.wav --engine gpu
  expect_status 2 "--engine gpu without a GPU"
  expect_one_error_line "--engine gpu without a GPU" "no GPU"
fi

finish
