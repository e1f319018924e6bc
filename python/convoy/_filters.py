"""Taps as the library's filters."""

import numpy as np

from ._arrays import is_complex
from ._lib import check, ffi, lib


def taps_rows(taps):
    """The filters in taps: a list of 1-D float32 or complex64 arrays.

    taps is one filter (a 1-D array-like) or one per channel: a 2-D array
    (one row per channel) or a sequence of 1-D arrays, which may differ in
    length."""
    if isinstance(taps, (list, tuple)) and len(taps) > 0 and all(np.ndim(t) == 1 for t in taps):
        rows = [np.asarray(t) for t in taps]
    else:
        a = np.asarray(taps)
        if a.ndim == 1:
            rows = [a]
        elif a.ndim == 2:
            rows = list(a)
        else:
            raise ValueError("taps must be 1-D (one filter for every channel) or 2-D (one row "
                             "per channel), not of shape %s" % (a.shape,))
    return [np.ascontiguousarray(r, dtype=np.complex64 if is_complex(r) else np.float32)
            for r in rows]


def make_filter(row):
    """A convoy_filter of a 1-D float32 or complex64 array (the taps are
    copied), destroyed when the returned handle is collected."""
    sample = lib.CONVOY_SAMPLE_CF32 if row.dtype == np.complex64 else lib.CONVOY_SAMPLE_F32
    out = ffi.new("convoy_filter **")
    check(lib.convoy_filter_create_typed(out, sample, ffi.cast("void *", row.ctypes.data),
                                         row.shape[0]))
    return ffi.gc(out[0], lib.convoy_filter_destroy)


def make_filters(rows):
    return [make_filter(r) for r in rows]
