# common.bash - shared helpers of the CLI test scripts (sourced, not a test).
#
# The scripts run with CONVOY (the convoy program), TOOLS (directory of
# gen_audio and audio_check) and SRC (source root) in the environment. Each
# check that fails prints what failed; finish exits 0 when none did, 1 else.

set -u

if [ -z "${CONVOY:-}" ] || [ -z "${TOOLS:-}" ]; then
  echo "set CONVOY (the convoy program) and TOOLS (directory of gen_audio, audio_check)" >&2
  exit 1
fi

# The tests/ folder of the source tree (data, helper scripts).
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || exit 1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/convoy-cli.XXXXXX") || exit 1
trap 'chmod -R u+rwX "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

FAILS=0
PASSES=0
STATUS=0

fail() {
  echo "FAIL: $*" >&2
  FAILS=$((FAILS + 1))
}

pass() { PASSES=$((PASSES + 1)); }

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local desc=$1
  shift
  if "$@"; then pass; else fail "$desc"; fi
}

# run ARGS...: runs convoy; sets STATUS, leaves its output in stdout.txt/stderr.txt.
run() {
  "$CONVOY" "$@" >stdout.txt 2>stderr.txt
  STATUS=$?
}

stderr_text() { head -c 400 stderr.txt | tr '\n' '|'; }

# expect_status WANT DESCRIPTION: after run.
expect_status() {
  if [ "$STATUS" -eq "$1" ]; then
    pass
  else
    fail "$2: exit status $STATUS, want $1; stderr: $(stderr_text)"
  fi
}

# expect_one_error_line DESCRIPTION [NEEDLE]: stderr is one line "convoy: ..."
# that contains NEEDLE.
expect_one_error_line() {
  local desc=$1 needle=${2:-}
  local lines
  lines=$(wc -l <stderr.txt)
  if [ "$lines" -ne 1 ]; then
    fail "$desc: want one line on stderr, got $lines: $(stderr_text)"
  elif ! head -n 1 stderr.txt | grep -q '^convoy: '; then
    fail "$desc: stderr does not start with 'convoy: ': $(stderr_text)"
  elif [ -n "$needle" ] && ! grep -qF -- "$needle" stderr.txt; then
    fail "$desc: stderr does not mention '$needle': $(stderr_text)"
  else
    pass
  fi
}

# dir_empty DIR: no file at all (no output, no temporary).
expect_dir_empty() {
  local left
  left=$(ls -A "$1")
  if [ -z "$left" ]; then pass; else fail "$2: files left in $1: $left"; fi
}

# holds_open PID DIR: process PID has a file of DIR open, such as the
# temporary of an output being written, which has no name (ls cannot show
# it) where the file system supports O_TMPFILE.
holds_open() {
  local d fd to
  d=$(cd "$2" && pwd -P) || return 1
  for fd in /proc/"$1"/fd/*; do
    to=$(readlink "$fd" 2>/dev/null) || continue
    case $to in "$d"/*) return 0 ;; esac
  done
  return 1
}

# expect_fail DESCRIPTION NEEDLE ARGS...: `convoy filter ARGS`, whose OUT is in
# out/ (emptied first), exits 2 with one error line holding NEEDLE and leaves
# out/ empty.
expect_fail() {
  local desc=$1 needle=$2
  shift 2
  rm -rf out && mkdir out
  run filter "$@"
  expect_status 2 "$desc"
  expect_one_error_line "$desc" "$needle"
  expect_dir_empty out "$desc"
}

gen() { "$TOOLS/gen_audio" "$@" || { echo "gen_audio $* failed" >&2; exit 1; }; }

# info_field FILE KEY: one field of `audio_check info`.
info_field() {
  "$TOOLS/audio_check" info "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# have_live: this build has `convoy live` (PortAudio and libsamplerate).
have_live() { "$CONVOY" info 2>/dev/null | grep -qE '^  live audio +yes'; }

source "$TESTS_DIR/cli/random_taps.bash"

# count_taps FILE: lines that are not '#' comments.
count_taps() { grep -vc '^#' "$1"; }

# python_with MODULE...: prints a python3 that imports every MODULE, or fails.
# Debian's own python3 first: apt-get installs python3-numpy and
# python3-jsonschema for it, whatever python3 comes first on PATH.
python_with() {
  local p imports
  imports=$(printf 'import %s;' "$@")
  for p in /usr/bin/python3 python3; do
    if "$p" -c "$imports" >/dev/null 2>&1; then
      command -v "$p"
      return 0
    fi
  done
  return 1
}

# validate_sigmf FILE...: each SigMF metadata FILE is valid against the SigMF
# schema (tests/data/sigmf-schema.json), one check per call; without a
# python3 that has jsonschema, says so once and checks nothing.
SIGMF_PYTHON=unset
validate_sigmf() {
  if [ "$SIGMF_PYTHON" = unset ]; then
    SIGMF_PYTHON=$(python_with json jsonschema) || {
      SIGMF_PYTHON=""
      echo "note: no python3 with jsonschema (apt-get install python3-jsonschema):" \
        "SigMF metadata not checked against the schema"
    }
  fi
  [ -n "$SIGMF_PYTHON" ] || return 0
  if "$SIGMF_PYTHON" "$TESTS_DIR/tools/sigmf_validate.py" "$TESTS_DIR/data/sigmf-schema.json" \
    "$@" >sigmf_check.txt 2>&1; then
    pass
  else
    fail "SigMF schema: $(head -c 800 sigmf_check.txt | tr '\n' '|')"
  fi
}

finish() {
  echo "$PASSES passed, $FAILS failed"
  [ "$FAILS" -eq 0 ] && exit 0
  exit 1
}
