#!/bin/bash
# Every manual page in man/ renders without a warning: mandoc's linter at
# level warning (style notes, such as a SEE ALSO page not installed here,
# are not warnings), and groff, which man-db renders with, when installed.
source "$(dirname "$0")/common.bash"

if ! command -v mandoc >/dev/null; then
  echo "mandoc is not installed (Debian: apt-get install mandoc): skipped"
  exit 77
fi

pages=("$SRC"/man/*.[1-9])
check "man/ holds the pages" test "${#pages[@]}" -ge 7
for page in "${pages[@]}"; do
  name=$(basename "$page")
  out=$(mandoc -T lint -W warning "$page" 2>&1)
  check "mandoc lint $name: $out" test -z "$out"
  if command -v groff >/dev/null; then
    # groff reports some problems without failing: any output is one.
    out=$(groff -ww -mandoc -z -Tutf8 "$page" 2>&1)
    check "groff -ww $name: $out" test -z "$out"
  fi
done

finish
