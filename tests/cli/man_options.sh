#!/bin/bash
# The manual pages (man/) against the help texts: every option a command's
# --help lists is documented in its page's OPTIONS section, every option
# that section names is one the help lists, and every example of the help is
# in the page's EXAMPLES. convoy(1) also documents every command.
source "$(dirname "$0")/common.bash"

if ! command -v mandoc >/dev/null; then
  echo "mandoc is not installed (Debian: apt-get install mandoc): skipped"
  exit 77
fi
MAN=$SRC/man

# render PAGE: the page as plain text, one line per paragraph (wide enough
# that nothing wraps), without the overstrike of bold and underline.
render() { mandoc -T ascii -O width=1000 "$MAN/$1" | sed 's/.\x08//g'; }

# section NAME [SUBSECTION]: the lines of section NAME of the rendered page on
# stdin, or only those of its subsection SUBSECTION (a heading line at
# indent 3), headings left out.
section() {
  awk -v want="$1" -v sub_want="${2:-}" '
    /^[A-Z]/ { sec = $0; sub_sec = ""; next }
    sec == want && /^   [^ ]/ { sub_sec = substr($0, 4); next }
    sec == want && (sub_want == "" || sub_sec == sub_want) { print }'
}

# options_in: the options (-x, --name) on stdin, one per line, sorted;
# "--name=VALUE" and "--name[=VALUE]" count as --name.
options_in() {
  grep -oE -- '(^|[^A-Za-z0-9_.+-])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]*//' | sort -u
}

# terms: from lines whose first character after indent INDENT is '-' (an
# option list's entries), the part before the description column.
terms() {
  grep -E "^ {$1}-" | sed -E 's/^ +//; s/  .*//'
}

# help_options TEXT: the options a help text lists (entries at indent 2 to 4).
help_options() {
  printf '%s\n' "$1" | grep -E '^ {2,4}-' | sed -E 's/^ +//; s/  .*//' | options_in
}

# help_examples TEXT: the command lines of a help text's examples (after
# "Examples:" up to "Exit status"; description lines end in ':').
help_examples() {
  printf '%s\n' "$1" | awk '/^[Ee]xamples:/ { on = 1; next } /^Exit status/ { on = 0 } on' |
    sed -E 's/^ +//; s/ +/ /g' | grep -v -e ':$' -e '^$'
}

# check_page PAGE SUBSECTION HELP_ARGS...: PAGE's OPTIONS (or one subsection
# of it) against `convoy HELP_ARGS`.
check_page() {
  local page=$1 subsec=$2
  shift 2
  local help text documented mentioned listed opt line
  help=$("$CONVOY" "$@" 2>&1)
  check "convoy $*: exit status 0" test $? -eq 0
  text=$(render "$page")
  check "$page renders" test -n "$text"
  local opts
  opts=$(printf '%s\n' "$text" | section OPTIONS "$subsec")
  documented=$(printf '%s\n' "$opts" | terms 5 | options_in)
  mentioned=$(printf '%s\n' "$opts" | options_in)
  listed=$(help_options "$help")
  check "convoy $*: the help lists options" test -n "$listed"
  for opt in $listed; do
    grep -qx -- "$opt" <<<"$documented" ||
      fail "$page${subsec:+ ($subsec)}: option $opt of 'convoy $*' is not documented in OPTIONS"
  done
  for opt in $mentioned; do
    grep -qx -- "$opt" <<<"$listed" ||
      fail "$page${subsec:+ ($subsec)}: OPTIONS names $opt, which 'convoy $*' does not list"
  done
  local examples
  examples=$(printf '%s\n' "$text" | section EXAMPLES | sed -E 's/^ +//; s/ +/ /g')
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    grep -qxF -- "$line" <<<"$examples" ||
      fail "$page: the example '$line' of 'convoy $*' is not in EXAMPLES"
  done < <(help_examples "$help")
  for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    grep -qx -- "$sec" <<<"$text" || fail "$page: no $sec section"
  done
  # The pages of commands that process audio point to sox(1); convoy ctl's,
  # a control client's, does not.
  [ "$page" = convoy-ctl.1 ] ||
    grep -q 'sox(1)' <<<"$(printf '%s\n' "$text" | section "SEE ALSO")" ||
    fail "$page: SEE ALSO does not name sox(1)"
}

check_page convoy.1 "" --help
check_page convoy-filter.1 "" filter --help
check_page convoy-design.1 "" design --help
check_page convoy-live.1 "" live --help
check_page convoy-ctl.1 "" ctl --help
check_page convoy-bench.1 "Throughput" bench --help
check_page convoy-bench.1 "Real-time pace (--live)" bench --live --help

# convoy(1) documents every command of `convoy --help`.
help=$("$CONVOY" --help)
commands=$(printf '%s\n' "$help" | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on' |
  sed -nE 's/^  ([a-z]+).*/\1/p' | sort -u)
check "convoy --help lists commands" test -n "$commands"
documented=$(render convoy.1 | section COMMANDS | grep -E '^ {5}[a-z]' | awk '{ print $1 }')
for cmd in $commands; do
  grep -qx -- "$cmd" <<<"$documented" || fail "convoy.1: command $cmd is not in COMMANDS"
done

# The engine names the program knows are those the pages give.
for engine in $("$CONVOY" help --list-engines); do
  render convoy-filter.1 | section OPTIONS | grep -qw -- "$engine" ||
    fail "convoy-filter.1: engine $engine is not named"
done
for engine in $("$CONVOY" help --list-engines=choices); do
  render convoy-live.1 | section OPTIONS | grep -qw -- "$engine" ||
    fail "convoy-live.1: engine $engine is not named"
done

# libconvoy(3) names every public header and every status code.
text=$(render libconvoy.3)
for h in "$SRC"/include/convoy*.h; do
  name=$(basename "$h")
  [ "$name" = convoy_export.h ] && continue
  grep -qF "<$name>" <<<"$text" || fail "libconvoy.3: header $name is not named"
done
for code in $(grep -oE 'CONVOY_(OK|ERR_[A-Z_]+)' "$SRC/include/convoy.h" | sort -u); do
  grep -qw -- "$code" <<<"$text" || fail "libconvoy.3: status $code is not documented"
done

finish
