"""convoy: streaming 1-D convolution (FIR filtering) on the CPU or an NVIDIA
GPU, over libconvoy.

    import numpy as np, convoy
    h = convoy.design("lowpass:cutoff=4000,width=500", rate=48000)
    y = convoy.convolve(x, h, mode="same")            # as scipy.signal.oaconvolve
    with convoy.Stream(h, channels=2) as s:           # chunk by chunk, state carried
        for block in blocks:                          # (frames, 2) arrays
            out = s.process(block)
        out = s.flush()

Stream, convolve, correlate, pulse_compress (PulseCompressor) filter numpy
arrays on the host and GPU arrays (CuPy) on the device; design and load_taps
give taps. float32 and complex64 are the working types: other dtypes, and
non-contiguous arrays, are converted to them (a copy). Errors the library
reports raise ConvoyError with its message.

The library is libconvoy.so: the path in the environment variable
CONVOY_LIBRARY, else the one installed with this package, else the loader's
(see convoy.library_path).
"""

from ._lib import ConvoyError, __version__, ffi, lib, library_path, library_version
from ._ops import convolve, correlate
from ._pulse import PulseCompressor, pulse_compress
from ._stream import Stream
from ._taps import design, load_taps

__all__ = ["ConvoyError", "PulseCompressor", "Stream", "built_with_cuda", "convolve",
           "correlate", "design", "engines", "gpu_count", "library_path", "library_version",
           "load_taps", "pulse_compress", "__version__"]


def engines(available=True):
    """Engine names in the library's order ("auto", "cpu", "cpu-direct", ...);
    only those that can run here unless available is False."""
    names = []
    for i in range(lib.convoy_engine_count()):
        e = lib.convoy_engine_at(i)
        if not available or lib.convoy_engine_available(e):
            names.append(ffi.string(lib.convoy_engine_name(e)).decode())
    return names


def gpu_count():
    """Usable CUDA devices (0 without a GPU, a driver, or a CUDA build)."""
    return int(lib.convoy_gpu_count())


def built_with_cuda():
    """True when the library has the CUDA engines (and convoy_cuda.h's device API)."""
    return bool(lib.convoy_built_with_cuda())
