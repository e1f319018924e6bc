#!/bin/bash
# Builds cffi's C extension (_cffi_backend) from cffi's source for a python3
# that has no cffi and cannot reach a package registry (the GPU machine), so
# that the Python package can run there (bench/python_cupy_bench.py).
#
#   bench/build_cffi_backend.sh SRC [OUT]      (OUT default /tmp/cffi)
#   export PYTHONPATH=$PWD/python:OUT:SRC/cffi/src:SRC/pycparser
#
# SRC, prepared on a machine that has the network (folders that git ignores,
# carried to the GPU machine; about 6 MiB):
#   SRC/cffi       cffi's source (github:python-cffi/cffi: git archive HEAD)
#   SRC/pycparser  pycparser's package folder's parent (github:eliben/pycparser:
#                  git archive HEAD pycparser); cffi parses cdefs with it
#   SRC/ffi        Debian's libffi-dev unpacked (apt-get download libffi-dev;
#                  dpkg -x): ffi.h and ffitarget.h, used when the machine has
#                  no ffi.h (the GPU machine has libffi.so.8 but no headers)
#   SRC/py-include Python.h of the same minor version (optional): used when
#                  the python3 has no headers (the GPU machine has them)
# PYTHON selects the interpreter (default python3).
set -eu
SRC=$(cd "${1:?usage: $0 SRC [OUT]}" && pwd)
OUT=${2:-/tmp/cffi}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
INC=$($PY -c "import sysconfig; print(sysconfig.get_paths()['include'])")
[ -f "$INC/Python.h" ] || INC="$SRC/py-include"
SUFFIX=$($PY -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
if [ -f /usr/include/ffi.h ]; then FFI_INC=/usr/include
elif [ -f /usr/include/x86_64-linux-gnu/ffi.h ]; then FFI_INC=/usr/include/x86_64-linux-gnu
else FFI_INC="$SRC/ffi/usr/include/x86_64-linux-gnu"; fi
# Link the machine's own libffi.so.8 (Python's ctypes uses it too).
LIBFFI=$(ldconfig -p | awk '/libffi\.so\.8 /{print $NF; exit}')
[ -n "$LIBFFI" ] || LIBFFI="$SRC/ffi/usr/lib/x86_64-linux-gnu/libffi.so.8"
echo "Python.h from $INC, ffi.h from $FFI_INC, linking $LIBFFI"
gcc -O2 -shared -fPIC -fno-strict-aliasing -w -I"$INC" -I"$FFI_INC" \
  "$SRC/cffi/src/c/_cffi_backend.c" -o "$OUT/_cffi_backend$SUFFIX" "$LIBFFI"
PYTHONPATH="$OUT:$SRC/cffi/src:$SRC/pycparser" $PY -c \
  "import cffi, _cffi_backend, pycparser; cffi.FFI().cdef('int f(int);'); print('cffi', cffi.__version__, 'pycparser', pycparser.__version__, 'in', '$OUT')"
