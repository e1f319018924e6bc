#!/usr/bin/env bash
# symbols_check.sh ARCHIVE CC NM INCLUDE_DIR HAVE_CUDA WORK_DIR [SHARED_LIBRARY]
#
# The library is compiled with hidden visibility and exports only what
# include/*.h marks CONVOY_API. This links the whole static archive into a
# throwaway shared object and checks its dynamic symbol table, and that of
# the project's shared library (libconvoy.so) when given:
#   - every symbol it defines (beyond what the linker adds to any shared
#     object) starts with convoy_: no internal function or table leaks, nor
#     any of a static library linked into it (the CUDA runtime);
#   - every function declared in include/*.h is marked CONVOY_API, and is
#     exported (convoy_cuda.h only when the archive holds the CUDA engines).
# Exits 77 (skipped) where that cannot be done: no ELF toolchain, or an
# archive that cannot go into a shared object.
set -u
archive=$1 cc=$2 nm=$3 include_dir=$4 have_cuda=$5 work=$6 shared=${7:-}

skip() {
  echo "skipped: $*"
  exit 77
}
[ -f "$archive" ] || skip "no archive $archive"
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler $cc"
command -v "$nm" >/dev/null 2>&1 || skip "no nm $nm"
rm -rf "$work" && mkdir -p "$work" || skip "cannot make $work"

# What the linker defines in a shared object of nothing (_end, _edata, ...).
: >"$work/empty.c"
"$cc" -shared -fPIC -o "$work/empty.so" "$work/empty.c" 2>"$work/empty.log" ||
  skip "cannot link a shared object here: $(head -n 3 "$work/empty.log")"
"$nm" -D --defined-only "$work/empty.so" >/dev/null 2>&1 || skip "$nm cannot read dynamic symbols"
"$nm" -D --defined-only "$work/empty.so" | awk 'NF >= 3 { print $3 }' | sort -u >"$work/baseline.txt"

# Undefined references (FFTW, libsndfile, the CUDA runtime) are allowed in a
# shared object, so the archive alone is enough.
if ! "$cc" -shared -o "$work/libconvoy_check.so" -Wl,--whole-archive "$archive" \
  -Wl,--no-whole-archive 2>"$work/link.log"; then
  if grep -q -e 'recompile with -fPIC' -e 'relocation .* can not be used' "$work/link.log"; then
    skip "the archive is not position-independent"
  fi
  echo "FAIL: cannot link $archive into a shared object:"
  head -n 20 "$work/link.log"
  exit 1
fi

# exports SO NAME: SO's defined dynamic symbols, less the baseline, in NAME.
exports() {
  "$nm" -D --defined-only "$1" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u |
    comm -23 - "$work/baseline.txt" >"$work/$2"
}
exports "$work/libconvoy_check.so" exported.txt
n_exported=$(wc -l <"$work/exported.txt")
fail=0
sos=("$work/libconvoy_check.so" exported.txt) # (shared object, its list) pairs
if [ -n "$shared" ]; then
  [ -f "$shared" ] || { echo "FAIL: no shared library $shared"; exit 1; }
  exports "$shared" exported_shared.txt
  sos+=("$shared" exported_shared.txt)
fi

for ((i = 0; i < ${#sos[@]}; i += 2)); do
  so=${sos[i]} list=${sos[i + 1]}
  grep -v '^convoy_' "$work/$list" >"$work/leaked.txt"
  if [ -s "$work/leaked.txt" ]; then
    echo "FAIL: $(basename "$so"): $(wc -l <"$work/leaked.txt") exported symbol(s) outside the" \
      "public API (missing hidden visibility?):"
    head -n 40 "$work/leaked.txt"
    fail=1
  fi
done

# Function declarations in the public headers: a line at column 0 that names
# convoy_...( after a return type.
headers=$(ls "$include_dir"/*.h)
[ "$have_cuda" = 1 ] || headers=$(echo "$headers" | grep -v '/convoy_cuda\.h$')
decl_re='^[A-Za-z_][A-Za-z0-9_ ]*[ *]convoy_[a-z0-9_]+\('
# shellcheck disable=SC2086
grep -HnE "$decl_re" $headers | grep -vE '^[^:]*:[0-9]+:(CONVOY_API|typedef|static|#)' \
  >"$work/unmarked.txt"
if [ -s "$work/unmarked.txt" ]; then
  echo "FAIL: public function(s) declared without CONVOY_API:"
  cat "$work/unmarked.txt"
  fail=1
fi
# shellcheck disable=SC2086
grep -hE "$decl_re" $headers | grep -oE 'convoy_[a-z0-9_]+\(' | tr -d '(' | sort -u \
  >"$work/declared.txt"
n_declared=$(wc -l <"$work/declared.txt")
for ((i = 0; i < ${#sos[@]}; i += 2)); do
  so=${sos[i]} list=${sos[i + 1]}
  comm -23 "$work/declared.txt" "$work/$list" >"$work/missing.txt"
  if [ -s "$work/missing.txt" ]; then
    echo "FAIL: $(basename "$so"): public function(s) not exported (not defined, or defined" \
      "without its header):"
    cat "$work/missing.txt"
    fail=1
  fi
done
if [ -n "$shared" ] && ! cmp -s "$work/exported.txt" "$work/exported_shared.txt"; then
  echo "FAIL: $(basename "$shared") exports other symbols than the archive:"
  diff "$work/exported.txt" "$work/exported_shared.txt" | head -n 20
  fail=1
fi

echo "$n_exported symbols exported, all convoy_*; $n_declared public functions declared"
[ -z "$shared" ] || echo "$(basename "$shared"): the same $(wc -l <"$work/exported_shared.txt") symbols"
[ "$fail" = 0 ] && echo "ok"
exit "$fail"
