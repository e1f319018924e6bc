"""Host arrays: the working types and pointers into them."""

import numpy as np

from ._lib import ffi


def is_device_array(x):
    """True for a GPU array (CuPy, or anything with __cuda_array_interface__)."""
    return hasattr(x, "__cuda_array_interface__") and not isinstance(x, np.ndarray)


def is_complex(x):
    """True when x (an array, array-like or GPU array of any producer: CuPy,
    PyTorch, ...) holds complex values."""
    if is_device_array(x):
        return x.__cuda_array_interface__["typestr"][1] == "c"
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    return np.issubdtype(dtype, np.complexfloating)


def working(x, complex_):
    """x as a C-contiguous float32 (or complex64) numpy array: the array
    itself when it already is one, else a converted copy."""
    return np.ascontiguousarray(x, dtype=np.complex64 if complex_ else np.float32)


def fptr(a):
    """A float * to a C-contiguous float32 or complex64 array's data."""
    return ffi.cast("float *", a.ctypes.data)
