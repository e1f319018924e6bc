#!/bin/bash
# The bash completion (completion/convoy.bash), sourced in a scripted bash
# and called as bash calls it: commands, options, engine names from the
# program, datatypes, design specs, subtypes and files.
source "$(dirname "$0")/common.bash"

SCRIPT=$SRC/completion/convoy.bash
check "bash -n convoy.bash" bash -n "$SCRIPT"

# comp [--bash-completion] WORD...: completes the last WORD of
# "convoy WORD..." (each WORD one of bash's COMP_WORDS, the program being
# $CONVOY), without COMP_LINE; prints the replies one per line. With
# --bash-completion, bash-completion's helpers are loaded first.
comp() {
  local pre=:
  if [ "$1" = --bash-completion ]; then
    pre='source /usr/share/bash-completion/bash_completion'
    shift
  fi
  bash -c "$pre"'
    source "$1" || exit 1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    _convoy || exit 1
    printf "%s\n" "${COMPREPLY[@]}"' _ "$SCRIPT" "$CONVOY" "$@"
}

# complete_line LINE: as bash calls it for the end of LINE typed after
# "convoy ": COMP_LINE and COMP_POINT set, and COMP_WORDS split at blanks
# and at ':' and '=', which bash's COMP_WORDBREAKS separates.
complete_line() {
  bash -c '
    source "$1" || exit 1
    COMP_LINE="$2 $3"
    COMP_POINT=${#COMP_LINE}
    COMP_WORDS=("$2")
    w=
    for ((i = 0; i < ${#3}; i++)); do
      c=${3:i:1}
      if [[ $c == " " ]]; then
        [[ -n $w ]] && COMP_WORDS+=("$w")
        w=
      elif [[ $c == [:=] ]]; then
        [[ -n $w ]] && COMP_WORDS+=("$w")
        COMP_WORDS+=("$c")
        w=
      else
        w+=$c
      fi
    done
    COMP_WORDS+=("$w")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _convoy || exit 1
    printf "%s\n" "${COMPREPLY[@]}"' _ "$SCRIPT" "$CONVOY" "$1"
}

# expect DESCRIPTION WANT GOT: GOT (lines) equals WANT (words), in any order.
expect() {
  local want got
  want=$(printf '%s\n' $2 | sort)
  got=$(printf '%s\n' "$3" | sed '/^$/d' | sort)
  if [ "$want" = "$got" ]; then
    pass
  else
    fail "$1: want [$(echo $want)], got [$(echo $got)]"
  fi
}

# has DESCRIPTION WORD GOT: WORD is one of GOT's lines.
has() {
  if grep -qxF -- "$2" <<<"$3"; then pass; else fail "$1: no '$2' in [$(echo $3)]"; fi
}

# Commands.
expect "a command" "filter" "$(comp 'fi')"
expect "every command" "filter design live ctl bench info help" "$(comp '')"
expect "ctl PATH COMMAND" "mute" "$(comp ctl /tmp/c.sock mu)"
expect "ctl: the commands" "gain mute unmute ir reload stats quit" "$(comp ctl --timeout 5 /tmp/c.sock '')"
expect "live --backend" "auto jack portaudio" "$(comp live --backend '')"
expect "help COMMAND" "bench" "$(comp help be)"
expect "convoy's options" "-h --help -V --version" "$(comp -)"

# Engines, as the program lists them.
all=$("$CONVOY" help --list-engines)
check "help --list-engines lists cpu-direct" grep -qx cpu-direct <<<"$all"
check "help --list-engines lists auto" grep -qx auto <<<"$all"
expect "filter --engine c" "cpu cpu-direct cpu-fft" \
  "$(comp filter in.wav out.wav --engine c)"
expect "filter --engine" "$all" "$(comp filter in.wav out.wav --engine '')"
expect "live --engine: the choices" "auto cpu gpu" "$(comp live --engine '')"
expect "bench --engine: a list" "cpu-fft,cpu-direct" "$(comp bench --engine cpu-fft,cpu-d)"
has "bench --engine all" all "$(comp bench --engine '')"
expect "bench --live --engine" "auto cpu gpu" "$(comp bench --live --engine '')"

# Options: every one a command's --help lists.
for cmd in filter design live bench "bench --live"; do
  opts=$("$CONVOY" $cmd --help | grep -E '^ {2,4}-' | sed -E 's/^ +//; s/  .*//' |
    grep -oE -- '(^|[ ,])--?[a-z][a-z0-9-]*' | sed 's/^[ ,]*//' | sort -u)
  got=$(comp $cmd -)
  for opt in $opts; do has "$cmd: option $opt" "$opt" "$got"; done
done
expect "filter --no-d" "--no-dither" "$(comp filter in.wav out.wav --no-d)"
expect "bench --live --ir" "--ir-seconds" "$(comp bench --live --ir)"
expect "bench --li" "--limit --live" "$(comp bench --li)"

# Datatypes: the SigMF names and the extension names of io/capture_type.c.
types=$(sed -n '/^static const type_entry types/,/^};/p; /^static const ext_entry extensions/,/^};/p' \
  "$SRC/io/capture_type.c" | grep -oE '\{"[a-z0-9_]+"' | tr -d '{"' | sort -u)
check "io/capture_type.c has datatypes" test "$(wc -l <<<"$types")" -gt 40
expect "filter --format: every datatype" "$types" "$(comp filter a b --format '' | sort -u)"
expect "filter --out-format cu8" "cu8" "$(comp filter a b --out-format cu8)"
expect "filter --format=cf32 (split at '=')" "cf32_le cf32_be cf32" \
  "$(complete_line "filter a b --format=cf32")"
expect "bench --format" "f32 s16 s8 u8" "$(comp bench --format '')"

# Design specs.
expect "design types" "lowpass: highpass: bandpass: bandstop:" "$(comp filter a b --design '')"
expect "design SPEC" "bandpass: bandstop:" "$(comp design band)"
expect "design keys (split at ':')" "cutoff=" "$(complete_line "filter a b --design lowpass:cu")"
expect "design keys after a value" "300,high=" "$(complete_line "live --design bandpass:low=300,hi")"

# Other values.
expect "filter --subtype" "pcm16 pcm24 pcm32 float double" "$(comp filter a b --subtype '')"
expect "filter --mode" "full same valid" "$(comp filter a b --mode '')"
expect "filter --plan" "estimate measure" "$(comp filter a b --plan '')"
expect "filter --plan=m (split at '=')" "measure" "$(complete_line "filter a b --plan=m")"
has "filter --window" hamming "$(comp filter a b --window '')"
expect "filter --align=" "sox" "$(complete_line "filter a b --align=")"
expect "a number: nothing" "" "$(comp filter a b --rate '')"

# Files: IN and OUT, taps files, config files.
mkdir sub
touch in.wav taps.txt "two words.wav"
expect "filter IN" "in.wav" "$(comp filter i)"
expect "filter --taps" "taps.txt" "$(comp filter in.wav out.wav --taps ta)"
expect "live --config" "taps.txt" "$(comp live --config ta)"
if [ -r /usr/share/bash-completion/bash_completion ]; then
  has "filter IN with bash-completion" in.wav "$(comp --bash-completion filter i)"
  has "--ir with bash-completion" "two words.wav" "$(comp --bash-completion filter a b --ir tw)"
  expect "engines with bash-completion" "cpu cpu-direct cpu-fft" \
    "$(comp --bash-completion filter in.wav out.wav --engine c)"
else
  echo "note: bash-completion is not installed; its helpers are not tried"
fi

finish
