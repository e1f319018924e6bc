# jackd.bash - starting and stopping the private JACK servers of the CLI
# scripts (sourced after common.bash, not a test).
#
# Why names from a small pool: jackd records every server of the machine in
# one registry of 8 entries (/dev/shm/jack-shm-registry), and a server that
# ends without unregistering (SIGKILL, a crash, a stopped server killed at
# cleanup) keeps its entry until a server of the same name starts. Names
# unique to each run (a pid) filled the registry over many runs until no
# server could start ("too many servers already active"); a name from the
# pool reclaims the entry its last holder left behind.

# A JACK client can block for good on a server that is starting or going
# away (seen: jack_lsp -s waiting 10 minutes on a server started a moment
# before); every query of the scripts gives up after 10 s instead of holding
# the suite. timeout runs the program, not this function.
jack_lsp() { timeout 10 jack_lsp "$@"; }

# jackd_start LOG RATE: a jackd with the dummy driver (no sound card, no
# realtime privileges), RATE Hz, 128-frame periods, under the first name of
# convoy-test-0..7 that no running server holds, logging to LOG; its name in
# JACKD_NAME, its pid in JACKD_PID. Returns 1 (its log printed) when none
# starts.
jackd_start() {
  local log=$1 rate=$2 i
  for i in 0 1 2 3 4 5 6 7; do
    JACKD_NAME="convoy-test-$i"
    jack_lsp -s "$JACKD_NAME" >/dev/null 2>&1 && continue # another run's server
    jackd -n "$JACKD_NAME" --no-realtime -d dummy -r "$rate" -p 128 >"$log" 2>&1 &
    JACKD_PID=$!
    for _ in $(seq 1 100); do
      kill -0 "$JACKD_PID" 2>/dev/null || break
      jack_lsp -s "$JACKD_NAME" >/dev/null 2>&1 && return 0
      sleep 0.1
    done
    jackd_stop "$JACKD_PID"
    grep -q 'server already active' "$log" || break # taken since the check above: next name
  done
  JACKD_PID=""
  echo "FAIL: jackd did not start; its log:" >&2
  cat "$log" >&2
  return 1
}

# jackd_stop PID: SIGTERM (jackd then unregisters), SIGKILL if it is still
# there 20 s later.
jackd_stop() {
  kill -CONT "$1" 2>/dev/null
  kill -TERM "$1" 2>/dev/null
  for _ in $(seq 1 200); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
