"""Loading libconvoy.so through cffi (ABI mode: no compiler needed) and
turning its errors into exceptions.

Where the library comes from, in order:
  1. the environment variable CONVOY_LIBRARY (a path);
  2. the library installed with the package: ``cmake --install`` writes
     ``_install.py`` beside this file with the library's path relative to it;
  3. the loader's search path (LD_LIBRARY_PATH, ld.so.cache) for the soname
     libconvoy.so.MAJOR.MINOR this package was written for;
  4. ctypes.util.find_library("convoy").
The loaded library must have the package's MAJOR.MINOR (a 0.x release may
change the ABI in any minor version).
"""

import ctypes.util
import os

from cffi import FFI

from ._cdefs import CDEFS

__version__ = "0.1.0"

_VERSION = tuple(int(v) for v in __version__.split("."))
# The ABI's version as the library's soname carries it (0.x: MAJOR.MINOR).
SONAME = "libconvoy.so.%d.%d" % _VERSION[:2] if _VERSION[0] == 0 else "libconvoy.so.%d" % _VERSION[0]

ffi = FFI()
ffi.cdef(CDEFS)


class ConvoyError(RuntimeError):
    """A failure reported by libconvoy.

    ``status`` is the library's convoy_status (an int, e.g. 1 for
    CONVOY_ERR_INVALID_ARGUMENT), ``status_name`` its short text
    (convoy_strerror()), and ``message`` the library's one-line message
    (convoy_last_error() or the object's last error), which is also str(e).
    """

    def __init__(self, status, message, status_name=None):
        self.status = int(status)
        self.status_name = status_name or "error %d" % self.status
        self.message = message or self.status_name
        super().__init__(self.message)


def _candidates():
    """(how it was found, path or name) in the order they are tried."""
    env = os.environ.get("CONVOY_LIBRARY")
    if env:
        yield "CONVOY_LIBRARY", env
        return  # an explicit choice: nothing else is tried
    try:
        from . import _install  # written by cmake --install
    except ImportError:
        _install = None
    if _install is not None:
        here = os.path.dirname(os.path.abspath(__file__))
        yield "installed beside the package", os.path.normpath(os.path.join(here, _install.LIBRARY))
    yield "the loader's search path", SONAME
    found = ctypes.util.find_library("convoy")
    if found:
        yield "ctypes.util.find_library", found


def _load():
    tried = []
    for how, where in _candidates():
        try:
            lib = ffi.dlopen(where)
        except OSError as e:
            tried.append("%s (%s): %s" % (where, how, e))
            continue
        version = ffi.string(lib.convoy_version()).decode()
        got = tuple(int(v) for v in version.split(".")[:2])
        want = _VERSION[:2] if _VERSION[0] == 0 else _VERSION[:1]
        if got[: len(want)] != want:
            tried.append("%s (%s): libconvoy %s, this package needs %s"
                         % (where, how, version, ".".join(map(str, want))))
            continue
        return lib, where, version
    raise ImportError(
        "convoy: cannot load libconvoy (%s); tried:\n  %s\n"
        "Set CONVOY_LIBRARY to the path of libconvoy.so, or install the library "
        "(cmake --install) where the loader finds it." % (SONAME, "\n  ".join(tried)))


lib, library_path, library_version = _load()


def _text(cstr):
    return ffi.string(cstr).decode("utf-8", "replace") if cstr != ffi.NULL else ""


def error(status, message=None):
    """A ConvoyError for status, with message or else convoy_last_error()."""
    if message is None:
        message = _text(lib.convoy_last_error())
    return ConvoyError(status, message, _text(lib.convoy_strerror(status)))


def check(status, message_of=None):
    """Raises ConvoyError when status is not CONVOY_OK. message_of() gives
    the message (an object's last error); by default convoy_last_error()."""
    if status != lib.CONVOY_OK:
        raise error(status, message_of() if message_of else None)


def check_err(status, err):
    """As check() for the taps functions, which write their message into a
    char buffer."""
    if status != lib.CONVOY_OK:
        message = _text(err)
        raise error(status, message or None)


def engine_id(name):
    """The convoy_engine of a name as convoy_engine_name() prints it; an
    unknown name is the library's error."""
    if not isinstance(name, str):
        raise TypeError("engine must be a name such as 'auto', 'cpu' or 'gpu-fft', not %r"
                        % (name,))
    out = ffi.new("convoy_engine *")
    check(lib.convoy_engine_from_name(name.encode(), out))
    return out[0]


def engine_name(engine):
    return _text(lib.convoy_engine_name(engine))
