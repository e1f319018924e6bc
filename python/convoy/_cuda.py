"""GPU arrays (__cuda_array_interface__, e.g. CuPy) through the device API
of include/convoy_cuda.h and convoy_pulse_run_device(): the samples stay in
GPU memory and the work is enqueued on the caller's CUDA stream.

The stream is the array's interface's 'stream' entry when it names one, else
CuPy's current stream. Outputs are CuPy arrays allocated on that stream, so
CuPy's memory pool orders their reuse after the work. The calls return
without waiting for the GPU, as CuPy's own do."""

import contextlib

from ._lib import ConvoyError, check, ffi, lib, library_path


def cupy():
    """The cupy module; device arrays need it for their outputs."""
    try:
        import cupy as cp  # noqa: PLC0415 - optional, only for device arrays
    except ImportError as e:
        raise ImportError("convoy: GPU arrays need CuPy (import cupy failed: %s)" % e) from e
    return cp


def require_cuda_build():
    if not lib.convoy_built_with_cuda():
        raise ConvoyError(lib.CONVOY_ERR_UNSUPPORTED,
                          "GPU arrays need a CUDA build of libconvoy; %s was built without "
                          "CUDA (pass numpy arrays, or point CONVOY_LIBRARY at a CUDA build)"
                          % library_path, "unsupported")


def stream_of(x):
    """The cudaStream_t (an int) to enqueue x's work on: the 'stream' entry
    of x's __cuda_array_interface__ (1: the legacy default stream, 2: the
    per-thread default stream, any other value a stream handle), or, when it
    has none, CuPy's current stream."""
    s = x.__cuda_array_interface__.get("stream")
    if s is None:
        return int(cupy().cuda.get_current_stream().ptr)
    return int(s)


class _StreamHandle:
    """A raw cudaStream_t in the CUDA stream protocol (__cuda_stream__)."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


def _cupy_stream(ptr):
    """A CuPy stream object for the handle ptr."""
    cp = cupy()
    if ptr in (0, 1):
        return cp.cuda.Stream.null
    if ptr == 2:
        return cp.cuda.Stream.ptds
    from_external = getattr(cp.cuda.Stream, "from_external", None)
    if from_external is not None:  # CuPy 14 on; ExternalStream is deprecated there
        return from_external(_StreamHandle(ptr))
    return cp.cuda.ExternalStream(ptr)


@contextlib.contextmanager
def on_stream(ptr):
    """Makes CuPy's current stream the one whose handle is ptr, so that what
    CuPy allocates and computes here is ordered with the library's work."""
    cur = int(cupy().cuda.get_current_stream().ptr)
    if cur == ptr or (ptr in (0, 1) and cur in (0, 1)):
        yield
        return
    with _cupy_stream(ptr):
        yield


def as_working(x, complex_):
    """x as a C-contiguous float32 (complex64) CuPy array on its device (a
    converted copy on the device when it is not one already)."""
    cp = cupy()
    a = cp.asarray(x)
    return cp.ascontiguousarray(a, dtype=cp.complex64 if complex_ else cp.float32)


def synchronize(ptr):
    """Waits for the work enqueued on the stream whose handle is ptr."""
    cupy().cuda.runtime.streamSynchronize(ptr)


def _stream_arg(ptr):
    return ffi.cast("cudaStream_t", ptr)


class DeviceConv:
    """A convoy_cuda_conv: filters device-resident frames with its history
    on the device. Calls longer than max_frames are cut into pieces of whole
    FFT granules, so that the cut gives the same bits as one call."""

    def __init__(self, filters, channels, engine, complex_, device, max_frames, fft_size=0,
                 plan_effort=0):
        require_cuda_build()
        cfg = ffi.new("convoy_cuda_config *")
        lib.convoy_cuda_config_init(cfg)
        cfg.channels = channels
        cfg.engine = engine
        cfg.device = device
        cfg.max_frames = max_frames
        cfg.fft_size = fft_size
        cfg.plan_effort = plan_effort
        cfg.sample = lib.CONVOY_SAMPLE_CF32 if complex_ else lib.CONVOY_SAMPLE_F32
        out = ffi.new("convoy_cuda_conv **")
        farr = ffi.new("convoy_filter *[]", list(filters))
        check(lib.convoy_cuda_conv_create(out, cfg, farr, len(filters)))
        self._conv = ffi.gc(out[0], lib.convoy_cuda_conv_destroy)
        self.channels = channels
        self.complex = complex_
        self.device = device
        self.max_frames = max_frames
        granule = lib.convoy_cuda_conv_granule(self._conv)
        self.piece = max_frames // granule * granule if granule <= max_frames else max_frames
        self.last_stream = None

    def _err(self):
        return ffi.string(lib.convoy_cuda_conv_last_error(self._conv)).decode("utf-8", "replace")

    def _pieces(self, frames):
        start = 0
        while start < frames:
            n = min(self.piece, frames - start)
            yield start, n
            start += n

    def process(self, d_in, d_out, frames, stream):
        """frames interleaved frames (float32, or complex64 in a complex
        convolver) at device address d_in into d_out."""
        frame_bytes = 4 * self.channels * (2 if self.complex else 1)
        self.last_stream = stream
        for start, n in self._pieces(frames):
            off = start * frame_bytes
            check(lib.convoy_cuda_conv_process(self._conv, lib.CONVOY_FORMAT_F32,
                                               ffi.cast("void *", d_in + off),
                                               ffi.cast("float *", d_out + off), n,
                                               _stream_arg(stream)), self._err)

    def process_planar(self, d_in, in_stride, d_out, out_stride, frames, stream):
        """Planar float32 rows (strides in floats) at device addresses."""
        self.last_stream = stream
        for start, n in self._pieces(frames):
            off = start * 4
            check(lib.convoy_cuda_conv_process_planar(self._conv, ffi.cast("float *", d_in + off),
                                                      in_stride,
                                                      ffi.cast("float *", d_out + off),
                                                      out_stride, n, _stream_arg(stream)),
                  self._err)

    def reset(self, stream):
        check(lib.convoy_cuda_conv_reset(self._conv, _stream_arg(stream)), self._err)

    def engine(self):
        return lib.convoy_cuda_conv_engine(self._conv)

    def describe(self):
        buf = ffi.new("char[]", 512)
        check(lib.convoy_cuda_conv_describe(self._conv, buf, 512), self._err)
        return ffi.string(buf).decode("utf-8", "replace")

    def close(self):
        """Frees the convolver once the work enqueued on its last stream is
        done (its buffers are in use until then)."""
        if self._conv is None:
            return
        if self.last_stream is not None:
            synchronize(self.last_stream)
        ffi.release(self._conv)
        self._conv = None
