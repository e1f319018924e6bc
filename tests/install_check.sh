#!/usr/bin/env bash
# install_check.sh BUILD_DIR CONFIG SOURCE_DIR CMAKE GENERATOR CC VERSION SOVERSION HAVE_CUDA
#                  WORK_DIR [SANITIZE_FLAGS]
#
# The installed library serves a program built outside the tree. Installs
# BUILD_DIR into WORK_DIR/prefix (cmake --install --prefix) and checks:
#   - the layout: bin/convoy, the libdir's libconvoy.so -> libconvoy.so.SOVERSION
#     -> libconvoy.so.VERSION and libconvoy.a, include/convoy*.h (convoy_cuda.h
#     only with CUDA), pkgconfig/convoy.pc, cmake/convoy/convoyConfig*.cmake;
#   - readelf -d: the SONAME is libconvoy.so.SOVERSION; nm -D: every symbol
#     the library defines starts with convoy_;
#   - pkg-config --cflags --libs convoy: examples/stream_blocks.c and
#     tests/install/probe.c build against the installed copy, need
#     libconvoy.so.SOVERSION and run (the CPU engines where there is no GPU);
#   - find_package(convoy) from tests/install/CMakeLists.txt, a project of its
#     own: the same programs linked with convoy::convoy and with
#     convoy::convoy_static build and run.
# SANITIZE_FLAGS (a sanitizer build's -fsanitize=...) go into those programs'
# compile and link, as the library has them.
# Exits 77 (skipped) only without pkg-config, readelf or nm.
set -u
build=$1 config=$2 src=$3 cmake=$4 generator=$5 cc=$6 version=$7 soversion=$8
have_cuda=$9 work=${10} sanitize=${11:-}

skip() {
  echo "skipped: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  exit 1
}
for tool in pkg-config readelf nm; do
  command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
rm -rf "$work"
mkdir -p "$work" || fail "cannot make $work"
prefix=$work/prefix
example=$src/examples/stream_blocks.c

# run NAME COMMAND...: runs COMMAND, its output in $work/NAME.log; fails with it.
run() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || fail "$name: $* failed:
$(tail -n 30 "$work/$name.log")"
}

run install "$cmake" --install "$build" --config "$config" --prefix "$prefix"

# ---- layout
[ -x "$prefix/bin/convoy" ] || fail "no bin/convoy"
run convoy_version "$prefix/bin/convoy" --version
grep -qx "convoy $version" "$work/convoy_version.log" || fail "bin/convoy --version: $(cat "$work/convoy_version.log")"
so=$(find "$prefix" -name libconvoy.so | head -n 1)
[ -n "$so" ] || fail "no libconvoy.so under $prefix"
libdir=$(dirname "$so")
[ "$(readlink "$so")" = "libconvoy.so.$soversion" ] || fail "libconvoy.so -> $(readlink "$so")"
[ "$(readlink "$libdir/libconvoy.so.$soversion")" = "libconvoy.so.$version" ] ||
  fail "libconvoy.so.$soversion -> $(readlink "$libdir/libconvoy.so.$soversion")"
[ -f "$libdir/libconvoy.so.$version" ] || fail "no libconvoy.so.$version"
[ -f "$libdir/libconvoy.a" ] || fail "no libconvoy.a beside libconvoy.so"
for h in convoy.h convoy_export.h convoy_taps.h convoy_rt.h convoy_pulse.h; do
  [ -f "$prefix/include/$h" ] || fail "no include/$h"
done
if [ "$have_cuda" = 1 ]; then
  [ -f "$prefix/include/convoy_cuda.h" ] || fail "no include/convoy_cuda.h in a CUDA build"
else
  [ ! -e "$prefix/include/convoy_cuda.h" ] || fail "include/convoy_cuda.h without CUDA"
fi
[ -f "$libdir/pkgconfig/convoy.pc" ] || fail "no $libdir/pkgconfig/convoy.pc"
for f in convoyConfig.cmake convoyConfigVersion.cmake convoyTargets.cmake; do
  [ -f "$libdir/cmake/convoy/$f" ] || fail "no $libdir/cmake/convoy/$f"
done

# ---- the shared library's soname and symbols
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libconvoy.so.$soversion" ] || fail "SONAME '$soname', want libconvoy.so.$soversion"
nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$work/defined.txt"
# What the linker defines in any shared object (_init, _end, ...).
: >"$work/empty.c"
"$cc" -shared -fPIC -o "$work/empty.so" "$work/empty.c" || fail "cannot link an empty shared object"
nm -D --defined-only "$work/empty.so" | awk 'NF >= 3 { print $3 }' | sort -u >"$work/baseline.txt"
comm -23 "$work/defined.txt" "$work/baseline.txt" | grep -v '^convoy_' >"$work/leaked.txt"
[ ! -s "$work/leaked.txt" ] || fail "libconvoy.so exports other symbols than convoy_*:
$(head -n 20 "$work/leaked.txt")"
grep -qx convoy_stream_create "$work/defined.txt" || fail "libconvoy.so does not export convoy_stream_create"

# needs BINARY SONAME: BINARY needs SONAME (1) or not (0).
needs() {
  local got=0
  readelf -d "$1" | grep -q "(NEEDED).*\[$2\]" && got=1
  [ "$got" = "$3" ] || fail "$(basename "$1"): NEEDED $2 is $got, want $3"
}
# run_programs SUFFIX: the two programs built for SUFFIX run and say what they should.
run_programs() {
  local dir=$1 suffix=$2
  run "probe$suffix" "$dir/probe$suffix" "$version" "$have_cuda"
  cat "$work/probe$suffix.log"
  run "stream_blocks$suffix" "$dir/stream_blocks$suffix"
  grep -q "bitwise identical" "$work/stream_blocks$suffix.log" ||
    fail "stream_blocks$suffix: $(cat "$work/stream_blocks$suffix.log")"
  grep "^plan:" "$work/stream_blocks$suffix.log"
}

# ---- pkg-config, shared library
# The installed copy first; the caller's path after it still finds its dependencies.
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
run pkg_config pkg-config --cflags --libs convoy
flags=$(cat "$work/pkg_config.log")
echo "pkg-config --cflags --libs convoy: $flags"
mkdir -p "$work/pc"
# shellcheck disable=SC2086 # the flags are words
run pc_build_probe "$cc" -std=c11 $sanitize -o "$work/pc/probe_pc" "$src/tests/install/probe.c" $flags \
  "-Wl,-rpath,$libdir"
# shellcheck disable=SC2086
run pc_build_stream "$cc" -std=c11 $sanitize -o "$work/pc/stream_blocks_pc" "$example" $flags -lm \
  "-Wl,-rpath,$libdir"
needs "$work/pc/probe_pc" "libconvoy.so.$soversion" 1
run_programs "$work/pc" _pc

# ---- find_package, shared and static library
run cmake_configure "$cmake" -S "$src/tests/install" -B "$work/consumer" -G "$generator" \
  -DCMAKE_BUILD_TYPE="$config" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCONVOY_VERSION="$version" -DCONVOY_EXAMPLE="$example"
found=$(sed -n 's/^convoy_DIR:PATH=//p' "$work/consumer/CMakeCache.txt")
[ "$found" -ef "$libdir/cmake/convoy" ] || fail "find_package found convoy in '$found'"
run cmake_build "$cmake" --build "$work/consumer" --config "$config" -j2
out=$work/consumer
[ -x "$out/probe_convoy" ] || out=$work/consumer/$config # multi-config generators
needs "$out/probe_convoy" "libconvoy.so.$soversion" 1
needs "$out/probe_convoy_static" "libconvoy.so.$soversion" 0
run_programs "$out" _convoy
run_programs "$out" _convoy_static

echo "ok"
