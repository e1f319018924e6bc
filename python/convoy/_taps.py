"""design() and load_taps(): filter taps through include/convoy_taps.h."""

import os

import numpy as np

from ._lib import check_err, ffi, lib

_ERR_SIZE = 1024
_FORMATS = {"auto": "CONVOY_TAPS_AUTO", "text": "CONVOY_TAPS_TEXT", "npy": "CONVOY_TAPS_NPY",
            "raw": "CONVOY_TAPS_RAW_F32", "audio": "CONVOY_TAPS_AUDIO"}


def _array(t):
    """A convoy_taps as a numpy array it does not share: (length,) for one
    channel, else (channels, length); complex64 for complex taps."""
    complex_ = bool(t.is_complex)
    n = t.channels * t.length * (2 if complex_ else 1)
    a = np.frombuffer(ffi.buffer(t.data, 4 * n), dtype=np.float32).copy()
    if complex_:
        a = a.view(np.complex64)
    return a if t.channels == 1 else a.reshape(t.channels, t.length)


def design(spec, rate=None):
    """Taps of a windowed-sinc (Kaiser) design, as `convoy design SPEC`:
    spec "TYPE:key=value,..." (lowpass:cutoff=4000,width=500, ...; see the
    README), rate the sample rate in Hz (or rate= in the spec). Returns
    float32 taps. A bad spec raises ConvoyError with the library's message."""
    if not isinstance(spec, str):
        raise TypeError("spec must be a string such as 'lowpass:cutoff=4000,width=500'")
    err = ffi.new("char[]", _ERR_SIZE)
    d = ffi.new("convoy_design *")
    check_err(lib.convoy_design_parse(spec.encode(), float(rate or 0), d, err, _ERR_SIZE), err)
    t = ffi.new("convoy_taps *")
    try:
        check_err(lib.convoy_design_taps(d, t, err, _ERR_SIZE), err)
        return _array(t)
    finally:
        lib.convoy_taps_free(t)


def load_taps(path, format="auto", with_rate=False):
    """Taps from a file, as `convoy filter --taps`/`--ir` read them: text
    (.txt .csv .dat .taps), NumPy .npy (complex64/complex128 give complex
    taps), raw float32 (.f32 .raw .bin) or an audio impulse response; format
    "auto" (by extension), "text", "npy", "raw" or "audio". Returns (length,)
    for one channel, (channels, length) for a multichannel impulse response,
    float32 or complex64; with with_rate, (taps, rate) with the rate the file
    gives (0.0 when it has none)."""
    try:
        fmt = getattr(lib, _FORMATS[format])
    except KeyError:
        raise ValueError("format must be one of %s, not %r" % (", ".join(_FORMATS), format)) \
            from None
    err = ffi.new("char[]", _ERR_SIZE)
    t = ffi.new("convoy_taps *")
    try:
        check_err(lib.convoy_taps_load(os.fsencode(path), fmt, t, err, _ERR_SIZE), err)
        taps = _array(t)
        return (taps, float(t.rate)) if with_rate else taps
    finally:
        lib.convoy_taps_free(t)
