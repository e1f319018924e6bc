# bash completion for convoy(1)                            -*- shell-script -*-
#
# Commands, each command's options, and the values of the options that take
# names: engines, capture datatypes, output subtypes and containers, design
# types and keys, windows, modes, plan efforts; files elsewhere. The options
# and which of them take a value are read from the program's own --help, and
# the engine names from `convoy help --list-engines`, so that this file names
# neither.
#
# Word lists are expanded unquoted on purpose: each is a list of words.
# shellcheck shell=bash disable=SC2046,SC2086

_convoy_commands="filter design live ctl bench info help"

# The commands of a running convoy live (cli/live/live_control.c), for ctl.
_convoy_live_commands="gain mute unmute ir reload stats quit"

# SigMF datatypes and the extension names `--format` also takes
# (io/capture_type.c; tests/cli/completion.sh compares the two).
_convoy_datatypes="cf32_le cf32_be cf64_le cf64_be ci32_le ci32_be ci16_le ci16_be ci8
cu32_le cu32_be cu16_le cu16_be cu8 rf32_le rf32_be rf64_le rf64_be ri32_le ri32_be
ri16_le ri16_be ri8 ru32_le ru32_be ru16_le ru16_be ru8
uc8 cs8 sc8 c8 cs16 sc16 c16 cu16 uc16 cs32 sc32 cu32 uc32 cf32 fc32 cfile cf64 fc64
f32 rf32 f64 rf64 s8 u8 s16 u16 s32 u32"

# --subtype and --type (io/output_format.c).
_convoy_subtypes="pcm16 pcm24 pcm32 float double"
_convoy_containers="wav w64 rf64 flac aiff aifc au caf ogg opus"

# The program being completed: the command word as typed (./build/convoy
# too), else convoy on the PATH.
_convoy_program() {
  local prog=${COMP_WORDS[0]}
  # shellcheck disable=SC2088 # COMP_WORDS holds the tilde as typed
  [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
  if [[ $prog == */* ]]; then
    [[ -x $prog ]] || prog=convoy
  else
    type -P "$prog" >/dev/null 2>&1 || prog=convoy
  fi
  printf '%s\n' "$prog"
}

# _convoy_help_options PROGRAM ARGS...: the options `PROGRAM ARGS --help`
# lists, one "NAME" or "NAME VALUE" line each (entries at indent 2 to 4, the
# part before the description column; "--a X, --b Y" is two entries).
_convoy_help_options() {
  local line term part name
  local -a parts
  while IFS= read -r line; do
    [[ $line =~ ^\ {2,4}(-.*)$ ]] || continue
    term=${BASH_REMATCH[1]%%  *}
    IFS=, read -ra parts <<<"$term"
    for part in "${parts[@]}"; do
      part=${part# }
      name=${part%% *}
      name=${name%%[[=]*}
      if [[ $part == *" "* ]]; then
        printf '%s %s\n' "$name" "${part#* }"
      else
        printf '%s\n' "$name"
      fi
    done
  done < <("$@" --help 2>/dev/null)
}

# Sets words and cword from COMP_WORDS and COMP_CWORD, with the words bash
# split at ':' and '=' (COMP_WORDBREAKS) joined again: "--format=cu8" and
# "lowpass:cutoff=4000" are one word each. Where COMP_LINE is set, only
# words with no blank between them are joined.
_convoy_words() {
  local line=${COMP_LINE-} i w glue pos=0 blanks
  words=()
  cword=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    glue=0
    if [[ -n $line ]]; then
      blanks=${line:pos}
      blanks=${blanks%%[! $'\t\n']*}
      pos=$((pos + ${#blanks}))
      [[ ${line:pos:${#w}} == "$w" ]] || line= # not the line's words: stop looking
      if [[ -n $line ]]; then
        ((i > 0 && ${#blanks} == 0)) && glue=1
        pos=$((pos + ${#w}))
      fi
    fi
    if [[ -z $line ]] && ((i > 0)); then
      [[ $w == [:=] || ${COMP_WORDS[i - 1]} == [:=] ]] && glue=1
    fi
    if ((glue && ${#words[@]} > 0)); then
      words[${#words[@]} - 1]+=$w
    else
      words+=("$w")
    fi
    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
  done
  return 0
}

# _convoy_reply CUR WORDS...: COMPREPLY = the words that start with CUR.
_convoy_reply() {
  local cur=$1 w
  shift
  for w in "$@"; do
    [[ $w == "$cur"* ]] && COMPREPLY+=("$w")
  done
  return 0
}

# _convoy_list CUR WORDS...: as _convoy_reply for one item of a comma
# separated list (the last one in CUR).
_convoy_list() {
  local cur=$1 head=
  shift
  if [[ $cur == *,* ]]; then
    head=${cur%,*},
    cur=${cur##*,}
  fi
  _convoy_reply "$cur" "$@"
  COMPREPLY=("${COMPREPLY[@]/#/$head}")
}

_convoy_files() {
  if declare -F _filedir >/dev/null; then
    cur=$1 _filedir
  else
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$1")
  fi
}

# A design spec: the type, then its keys.
_convoy_design() {
  local cur=$1 type keys
  if [[ $cur != *:* ]]; then
    _convoy_reply "$cur" lowpass: highpass: bandpass: bandstop:
    return
  fi
  type=${cur%%:*}
  case $type in
  lowpass | highpass) keys="cutoff= width= atten= taps= rate=" ;;
  bandpass | bandstop) keys="low= high= width= atten= taps= rate=" ;;
  *) return ;;
  esac
  local head sep item
  head=${cur%[:,]*}
  sep=${cur:${#head}:1}
  item=${cur:${#head}+1}
  [[ $item == *=* ]] && return # a number
  _convoy_reply "$item" $keys
  COMPREPLY=("${COMPREPLY[@]/#/$head$sep}")
}

# Values of option OPT of the command (cmd, live_bench set by _convoy).
_convoy_value() {
  local opt=$1 value=$2 cur=$3 prog=$4
  case $opt in
  --engine)
    case $cmd in
    live) _convoy_reply "$cur" $("$prog" help --list-engines=choices 2>/dev/null) ;;
    bench)
      if ((live_bench)); then
        _convoy_list "$cur" $("$prog" help --list-engines=choices 2>/dev/null)
      else
        _convoy_list "$cur" all $("$prog" help --list-engines 2>/dev/null)
      fi
      ;;
    *) _convoy_reply "$cur" $("$prog" help --list-engines 2>/dev/null) ;;
    esac
    ;;
  --format | --out-format)
    if [[ $cmd == bench ]]; then
      _convoy_reply "$cur" f32 s16 s8 u8
    else
      _convoy_reply "$cur" $_convoy_datatypes
    fi
    ;;
  --subtype) _convoy_reply "$cur" $_convoy_subtypes ;;
  --type) _convoy_reply "$cur" $_convoy_containers ;;
  --design) _convoy_design "$cur" ;;
  --window) _convoy_reply "$cur" none hamming hann kaiser kaiser:beta= ;;
  --mode) _convoy_reply "$cur" full same valid ;;
  --plan) _convoy_reply "$cur" estimate measure ;;
  --backend) _convoy_reply "$cur" auto jack portaudio ;;
  --control) _convoy_files "$cur" ;;
  *)
    case $value in
    FILE | FILE.* | TEMPLATE) _convoy_files "$cur" ;;
    esac
    ;;
  esac
  return 0
}

_convoy() {
  local cur prev words cword prog cmd opt value line i live_bench=0
  local -a entries names
  COMPREPLY=()
  _convoy_words
  cur=${words[cword]}
  prog=$(_convoy_program)

  if ((cword == 1)); then
    if [[ $cur == -* ]]; then
      _convoy_reply "$cur" -h --help -V --version
    else
      _convoy_reply "$cur" $_convoy_commands
    fi
  else
    cmd=${words[1]}
    case $cmd in
    filter | design | live | bench | info) ;;
    help | -h | --help)
      ((cword == 2)) && _convoy_reply "$cur" $_convoy_commands
      return 0
      ;;
    ctl) # ctl [--timeout S] PATH COMMAND [ARGS...]
      local -a rest=()
      for ((i = 2; i < cword; i++)); do
        if [[ ${words[i]} == --timeout ]]; then
          ((i++))
        elif [[ ${words[i]} != -* ]]; then
          rest+=("${words[i]}")
        fi
      done
      if [[ ${words[cword - 1]} == --timeout ]]; then
        :
      elif [[ $cur == -* ]]; then
        _convoy_reply "$cur" --timeout -h --help
      elif ((${#rest[@]} == 0)); then
        _convoy_files "$cur"
      elif ((${#rest[@]} == 1)); then
        _convoy_reply "$cur" $_convoy_live_commands
      elif [[ ${rest[1]} == ir ]]; then
        _convoy_files "$cur"
      fi
      return 0
      ;;
    *) return 0 ;;
    esac
    if [[ $cmd == bench ]]; then
      for ((i = 2; i < ${#words[@]}; i++)); do
        [[ ${words[i]} == --live ]] && live_bench=1
      done
    fi
    if ((live_bench)); then
      mapfile -t entries < <(_convoy_help_options "$prog" bench --live)
    else
      mapfile -t entries < <(_convoy_help_options "$prog" "$cmd")
    fi

    prev=${words[cword - 1]}
    opt=
    if [[ $cur == --*=* ]]; then # --name=VALUE
      opt=${cur%%=*}
      cur=${cur#*=}
      value=
      for line in "${entries[@]}"; do
        [[ ${line%% *} == "$opt" && $line == *" "* ]] && value=${line#* }
      done
      case $opt in
      --align) _convoy_reply "$cur" sox ;;
      *) _convoy_value "$opt" "$value" "$cur" "$prog" ;;
      esac
      COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
      cur=$opt=$cur
    else
      for line in "${entries[@]}"; do # after an option that takes a value
        if [[ $line == *" "* && ${line%% *} == "$prev" ]]; then
          opt=$prev
          value=${line#* }
        fi
      done
      if [[ -n $opt ]]; then
        _convoy_value "$opt" "$value" "$cur" "$prog"
      elif [[ $cur == -* ]]; then
        names=()
        for line in "${entries[@]}"; do names+=("${line%% *}"); done
        ((live_bench)) || [[ $cmd != bench ]] || names+=(--live)
        _convoy_reply "$cur" $(printf '%s\n' "${names[@]}" | sort -u)
      else
        case $cmd in
        filter) _convoy_files "$cur" ;;
        design) _convoy_design "$cur" ;;
        esac
      fi
    fi
  fi

  # Readline replaces only the text after the last ':' or '=' it breaks
  # words at: give it the rest of each reply.
  local breaks=
  [[ ${COMP_WORDBREAKS-} == *:* ]] && breaks+=":"
  [[ ${COMP_WORDBREAKS-} == *=* ]] && breaks+="="
  if [[ -n $breaks && $cur == *["$breaks"]* ]]; then
    local head=${cur%"${cur##*["$breaks"]}"}
    COMPREPLY=("${COMPREPLY[@]#"$head"}")
  fi
  # A design type, key or list item goes on without a blank.
  if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *[:=,] ]]; then
    compopt -o nospace 2>/dev/null
  fi
  return 0
}

complete -F _convoy convoy
