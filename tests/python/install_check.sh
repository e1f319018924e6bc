#!/usr/bin/env bash
# install_check.sh BUILD_DIR CONFIG SOURCE_DIR CMAKE PYTHON PYTHON_DIR VERSION SOVERSION WORK_DIR
#                  CONVOY_CLI LAYOUT
#
# The Python package as a user gets it:
#   - cmake --install BUILD_DIR --prefix WORK_DIR/prefix puts the package in
#     PYTHON_DIR (relative to the prefix) with _install.py naming the
#     installed libconvoy.so.SOVERSION; with only PYTHONPATH set (no
#     CONVOY_LIBRARY, no LD_LIBRARY_PATH) `python3 -c "import convoy"` loads
#     that library, and tests/python/test_convoy.py passes against it;
#   - the installed prefix moved elsewhere still works (the path is relative);
#   - pip install --no-build-isolation of a copy of python/ (setuptools from
#     the distribution, no network) gives an importable package that finds
#     the library through CONVOY_LIBRARY (skipped when python3 has no pip).
set -u
build=$1 config=$2 src=$3 cmake=$4 python=$5 pydir=$6 version=$7 soversion=$8 work=$9
cli=${10} layout=${11}

skip() {
  echo "skipped: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  exit 1
}
case $pydir in
/*) skip "CONVOY_PYTHON_DIR ($pydir) is absolute: it is not under a test prefix" ;;
esac
"$python" -c "import numpy, scipy, cffi" 2>/dev/null || skip "$python lacks numpy, scipy or cffi"
rm -rf "$work"
mkdir -p "$work" || fail "cannot make $work"
prefix=$work/prefix

# run NAME COMMAND...: runs COMMAND, its output in $work/NAME.log; fails with it.
run() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || fail "$name: $* failed:
$(tail -n 40 "$work/$name.log")"
}
# A user's environment: nothing of the build tree.
clean_env() {
  env -u CONVOY_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "$@"
}

run install "$cmake" --install "$build" --config "$config" --prefix "$prefix"

# ---- layout
pkg=$prefix/$pydir/convoy
for f in __init__.py _cdefs.py _lib.py _stream.py _ops.py _taps.py _pulse.py _cuda.py _install.py; do
  [ -f "$pkg/$f" ] || fail "no $pydir/convoy/$f"
done
[ ! -e "$pkg/__pycache__" ] || fail "__pycache__ installed"
lib=$(find "$prefix" -name "libconvoy.so.$soversion" | head -n 1)
[ -n "$lib" ] || fail "no libconvoy.so.$soversion under $prefix"
grep -q "libconvoy.so.$soversion" "$pkg/_install.py" || fail "_install.py: $(cat "$pkg/_install.py")"
grep -q "$work" "$pkg/_install.py" && fail "_install.py holds an absolute path: $(cat "$pkg/_install.py")"

# ---- import as a user would
probe='import convoy, numpy as np
h = convoy.design("lowpass:cutoff=1000,width=200", rate=8000)
x = np.random.default_rng(1).standard_normal(4000)
with convoy.Stream(h) as s:
    y = np.concatenate([s.process(x[:1234]), s.process(x[1234:]), s.flush()])
assert np.array_equal(y, convoy.convolve(x, h)), "chunked stream differs from convolve"
print(convoy.__version__, convoy.library_path, convoy.engines())'
run import clean_env PYTHONPATH="$prefix/$pydir" "$python" -c "$probe"
cat "$work/import.log"
read -r got_version got_lib _ <"$work/import.log"
[ "$got_version" = "$version" ] || fail "convoy.__version__ $got_version, want $version"
[ "$got_lib" -ef "$lib" ] || fail "loaded $got_lib, want the installed $lib"

# ---- the suite against the installed copy (run from $work: no source tree on sys.path)
(cd "$work" && run suite clean_env PYTHONPATH="$prefix/$pydir" CONVOY_EXPECT_LIBRARY="$lib" \
  CONVOY_CLI="$prefix/bin/convoy" CONVOY_LAYOUT="$layout" \
  "$python" "$src/tests/python/test_convoy.py")
tail -n 3 "$work/suite.log"

# ---- a moved prefix
mv "$prefix" "$work/moved"
run moved clean_env PYTHONPATH="$work/moved/$pydir" "$python" -c "$probe"
read -r _ got_lib _ <"$work/moved.log"
[ "$got_lib" -ef "$work/moved/${lib#"$prefix"/}" ] || fail "moved prefix: loaded $got_lib"

# ---- pip, from a copy of python/ (a build writes into its source folder)
if "$python" -m pip --version >/dev/null 2>&1; then
  cp -r "$src/python" "$work/pysrc"
  rm -rf "$work/pysrc/convoy/__pycache__"
  run pip clean_env "$python" -m pip install --no-build-isolation --no-deps --no-index \
    --disable-pip-version-check --target "$work/pip" "$work/pysrc"
  [ -f "$work/pip/convoy/_stream.py" ] || fail "pip: no convoy/_stream.py in $work/pip"
  [ ! -e "$work/pip/convoy/_install.py" ] || fail "pip installed an _install.py"
  ls -d "$work/pip/convoy-$version".dist-info >/dev/null || fail "pip: no convoy-$version.dist-info"
  run pip_import clean_env PYTHONPATH="$work/pip" CONVOY_LIBRARY="$work/moved/${lib#"$prefix"/}" \
    "$python" -c "$probe"
  cat "$work/pip_import.log"
else
  echo "pip: $python has no pip, pip install not checked"
fi
echo "ok"
