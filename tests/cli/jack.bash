# jack.bash - helpers of the CLI scripts that run `convoy live` against a JACK
# server of their own (sourced after common.bash, not a test).
#
# Each script starts a private jackd with the dummy driver (no sound card, no
# realtime privileges: --no-realtime), 48 kHz, 128-frame periods, so that it
# may change the server's period without touching the server CI shares, and
# stops it at the end whatever happens. Timing is never judged: a dummy
# server without realtime scheduling on a busy machine has xruns now and
# then, and the signal is judged where no cut cycle touched it
# (exact_through).

source "$(dirname "${BASH_SOURCE[0]}")/jackd.bash"

if ! command -v jackd >/dev/null; then
  echo "jackd (jackd2) is not installed: skipped"
  exit 77
fi
for tool in jack_lsp jack_metro jack_rec jack_connect jack_disconnect jack_bufsize; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool (jackd2's example clients) is not installed: skipped"
    exit 77
  fi
done
if ! have_live; then
  echo "this build has no live audio (PortAudio, libsamplerate): skipped"
  exit 77
fi
if ! "$CONVOY" info 2>/dev/null | grep -qE '^  live backends +jack'; then
  echo "convoy was built without JACK: skipped"
  exit 77
fi

export JACK_NO_START_SERVER=1 # never let libjack start a server of its own
RATE=48000
JACKD_PIDS=""
SERVERS=0
KILL_PIDS="" # convoy and helper clients still running at the end

jack_cleanup() {
  local p
  for p in $KILL_PIDS; do kill -KILL "$p" 2>/dev/null; done
  for p in $JACKD_PIDS; do jackd_stop "$p"; done
  chmod -R u+rwX "$WORK" 2>/dev/null
  rm -rf "$WORK"
}
trap jack_cleanup EXIT
trap 'exit 1' INT TERM HUP

# start_server: a private jackd (jackd.bash), made the default
# (JACK_DEFAULT_SERVER); its pid in SERVER_PID.
start_server() {
  SERVERS=$((SERVERS + 1))
  jackd_start "jackd-$SERVERS.log" "$RATE" || exit 1
  SERVER_PID=$JACKD_PID
  JACKD_PIDS="$JACKD_PIDS $SERVER_PID"
  export JACK_DEFAULT_SERVER=$JACKD_NAME
}

# As in signal.sh: background commands of a script start with SIGINT ignored.
if env --default-signal=INT true 2>/dev/null; then
  DEFAULT_SIGNALS="env --default-signal=INT"
else
  DEFAULT_SIGNALS=""
  set -m
fi

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

# port_of REGEX: the first JACK port whose name matches REGEX (anchored by the caller).
port_of() { jack_lsp 2>/dev/null | grep -m 1 -E "$1"; }

# wait_for PID CMD...: until CMD succeeds (at most 20 s; 1 when PID, if not
# empty, ended first).
wait_for() {
  local pid=$1
  shift
  for _ in $(seq 1 200); do
    "$@" && return 0
    [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 1
    sleep 0.1
  done
  return 1
}

has_port() { [ -n "$(port_of "$1")" ]; }

# wait_port REGEX [PID]: until such a port exists (at most 20 s; 1 when PID ended first).
wait_port() { wait_for "${2:-}" has_port "$1"; }

# peers PORT: the ports connected to PORT, one per line (jack_lsp -c prints
# each port, then its connections indented).
peers() {
  jack_lsp -c 2>/dev/null | awk -v port="$1" '
    /^[^ \t]/ { mine = ($0 == port) }
    mine && /^[ \t]/ { sub(/^[ \t]+/, ""); print }'
}

has_peer() { [ -n "$(peers "$1")" ]; }

# start_metro NAME: a click track (1 kHz bursts of peak 0.5, ten a second)
# from jack_metro as client NAME; its port in METRO.
start_metro() {
  jack_metro -n "$1" -b 600 -f 1000 -A 0.5 -D 20 >/dev/null 2>&1 &
  KILL_PIDS="$KILL_PIDS $!"
  disown $! # its end at cleanup is no news
  wait_port "^$1:" || {
    echo "FAIL: jack_metro did not start" >&2
    exit 1
  }
  METRO=$(port_of "^$1:")
}

# record FILE PORT...: 1 s of the ports, recorded in the same JACK cycles, as
# 32-bit PCM.
record() {
  local file=$1
  shift
  rm -f "$file"
  timeout 10 jack_rec -f "$file" -d 1 -b 32 "$@" >/dev/null 2>&1
  [ -s "$file" ]
}

# samples FILE CHANNELS: the recording's frames, one line each, channels as
# integers (a 32-bit PCM WAV as jack_rec writes it).
samples() {
  local off
  off=$(($(grep -obUa data "$1" | head -n 1 | cut -d: -f1) + 8))
  od -An -v -t d4 -j "$off" -w$((4 * $2)) "$1"
}

# exact_windows FILE CHANNELS X Y LAG GAIN [DB]: column Y against GAIN *
# 10^(DB/20) times column X delayed by LAG frames (columns from 1), in
# windows of 32 frames that hold signal: "GOOD SIGNAL ERROR", the windows
# where they agree to a relative 1e-5, the windows with signal, and the
# relative L2 error over all of them (9 when there are none).
exact_windows() {
  samples "$1" "$2" | awk -v cx="$3" -v cy="$4" -v lag="$5" -v g="$6" -v db="${7:-0}" '
    { x[NR - 1] = $cx / 2147483648; y[NR - 1] = $cy / 2147483648; n = NR }
    END {
      g = g * exp(db / 20 * log(10)); good = 0; sig = 0; e = 0; p = 0
      for (w = lag; w + 32 <= n; w += 32) {
        ew = 0; pw = 0; qw = 0
        for (i = w; i < w + 32; i++) {
          d = y[i] - g * x[i - lag]; ew += d * d; pw += y[i] * y[i]; qw += g * g * x[i - lag] * x[i - lag]
        }
        ref = pw > qw ? pw : qw
        if (ref < 1e-6) continue # silence on both sides
        sig++; e += ew; p += ref
        if (ew <= 1e-10 * ref) good++
      }
      printf "%d %d %.3g\n", good, sig, (p > 0 ? sqrt(e / p) : 9)
    }'
}

# nonzero FILE CHANNELS Y: how many samples of column Y are not 0.
nonzero() { samples "$1" "$2" | awk -v c="$3" '$c != 0 { n++ } END { print n + 0 }'; }

# exact_through PORT_IN PORT_OUT GAIN [DB]: records PORT_IN and PORT_OUT
# and sets EXACT to 1 when the output is the input delayed by 37 frames
# times GAIN * 10^(DB/20) to a relative 1e-5 in most windows with signal
# (at least 20), else 0; ERR says how many. A dummy server without
# realtime scheduling on a busy machine now and then runs a cycle without
# waiting for a late client, whose output is then stale for that cycle: a
# wrong gain, delay or route is wrong in every window, a cut cycle in a
# few. Up to three recordings.
exact_through() {
  local good sig err
  EXACT=0
  ERR="no recording"
  for attempt in 1 2 3; do
    record rec.wav "$1" "$2" || continue
    read -r good sig err <<<"$(exact_windows rec.wav 2 1 2 37 "$3" "${4:-0}")"
    ERR="exact in $good of $sig windows with signal, rel. error $err"
    if [ "$good" -ge 20 ] && [ $((2 * good)) -ge "$sig" ]; then
      EXACT=1
      return 0
    fi
    echo "recording through $2, try $attempt: $ERR"
  done
  return 1
}

# ctl ARGS...: `convoy ctl ARGS`; the reply in REPLY, the status in STATUS.
ctl() {
  REPLY=$("$CONVOY" ctl "$@" 2>ctl.err)
  STATUS=$?
}

# json KEY [JSON]: the first value of KEY in JSON (default REPLY): a number,
# true/false, or an array's items between [ and ].
json() {
  printf '%s\n' "${2:-$REPLY}" | grep -o "\"$1\":\(\[[^]]*\]\|[^,}]*\)" | head -n 1 |
    sed 's/^"[^"]*"://; s/^\[//; s/\]$//'
}

# total KEY: KEY in the reply's "total" object.
total() { json "$1" "${REPLY#*\"total\":}"; }

# summary_field NAME FILE: the number after NAME in the summary line.
summary_field() {
  grep '^convoy: live: ' "$2" | sed -n "s/.*[ (]$1 \([0-9]*\).*/\1/p" | head -n 1
}
