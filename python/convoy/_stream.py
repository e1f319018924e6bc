"""convoy.Stream: streaming filtering with state carried between calls."""

import numpy as np

from . import _cuda
from ._arrays import fptr, is_complex, is_device_array, working
from ._filters import make_filters, taps_rows
from ._lib import ConvoyError, check, engine_id, engine_name, ffi, lib

# Most channels one stream (and one device convolver) carries: CONVOY_MAX_CHANNELS.
MAX_CHANNELS = 1024


class Stream:
    """A convoy_stream: filters a signal of any length fed in chunks of any
    size, with the filter's state carried from chunk to chunk, so that any
    cutting of the input gives bitwise the same output as one call.

    ``Stream(taps, channels=1, engine="auto", complex=None, decimate=1,
    shift=0.0, phase=0, threads=0, fft_size=0, plan_effort=0, device=-1,
    gpu_streams=0, chunk_frames=0, max_frames=2**20)``

    taps: one filter for every channel (1-D), or one per channel (a 2-D
    array of one row per channel, or a list of 1-D arrays of any lengths);
    real or complex. channels: channels per frame. engine: "auto", "cpu",
    "cpu-direct", "cpu-fft", "gpu", "gpu-direct" or "gpu-fft". complex: a
    complex stream (complex64 samples); None (the default) makes it complex
    when a filter is complex or shift is not 0. decimate, phase: keep output
    frames phase, phase + decimate, ...; shift: frequency translation in
    cycles per input sample (complex streams). The other options are
    convoy_stream_config's (include/convoy.h).

    process(x) filters x, (frames,) for one channel or (frames, channels),
    and returns the output frames ready so far in the same layout, float32
    (complex64 for a complex stream); an FFT engine holds back up to
    ``latency`` frames. flush() ends the input and returns the rest: after
    all input and one flush the output is the full convolution, len(x) +
    taps - 1 frames (fewer with decimate). reset() starts a new signal.
    Samples of another dtype are converted to float32/complex64 (a copy), as
    are non-contiguous arrays. close() (or leaving a ``with`` block) frees
    the C stream.

    GPU arrays (CuPy, or anything with __cuda_array_interface__) are
    filtered on the GPU by the device convolver of convoy_cuda.h, on the
    array's CUDA stream, with no copy through the host; the output is a CuPy
    array of as many frames as the input (the device convolver holds
    nothing back), and flush() returns the taps - 1 frames of ring-out. One
    stream takes either host or GPU arrays between resets; decimate, phase
    and shift need host arrays. Bitwise chunk invariance there holds for the
    direct engine, and for the FFT engine when every call but the last is a
    multiple of its granule (convoy_cuda.h). max_frames bounds the device
    convolver's work buffers; longer calls are cut into pieces.
    """

    def __init__(self, taps, channels=1, engine="auto", complex=None, decimate=1, shift=0.0,
                 phase=0, threads=0, fft_size=0, plan_effort=0, device=-1, gpu_streams=0,
                 chunk_frames=0, max_frames=1 << 20):
        self._s = None
        self._dev = None
        self._closed = False
        rows = taps_rows(taps)
        if complex is None:
            complex = any(r.dtype == np.complex64 for r in rows) or shift != 0
        self.complex = bool(complex)
        self.channels = int(channels)
        self.decimate = int(decimate)
        self.phase = int(phase)
        self.shift = float(shift)
        self._engine = engine_id(engine)
        self._dtype = np.complex64 if self.complex else np.float32
        self._options = dict(threads=int(threads), fft_size=int(fft_size),
                             plan_effort=int(plan_effort), device=int(device),
                             gpu_streams=int(gpu_streams), chunk_frames=int(chunk_frames))
        self._max_frames = int(max_frames)
        if self._max_frames < 1:
            raise ValueError("max_frames must be at least 1, not %d" % self._max_frames)
        self._ntaps = max(r.shape[0] for r in rows)
        self._filters = make_filters(rows)
        self._mode = None  # "host" or "device": what was fed since create or reset
        self._flushed = False
        self._ndim = 1 if self.channels == 1 else 2
        self._create_host()

    # ------------------------------------------------------------ host stream
    def _create_host(self):
        cfg = ffi.new("convoy_stream_config *")
        lib.convoy_stream_config_init(cfg)
        cfg.channels = self.channels
        cfg.engine = self._engine
        cfg.sample = lib.CONVOY_SAMPLE_CF32 if self.complex else lib.CONVOY_SAMPLE_F32
        for key, value in self._options.items():
            setattr(cfg, key, value)
        cfg.decimation = self.decimate
        cfg.shift = self.shift
        cfg.decimation_phase = self.phase
        out = ffi.new("convoy_stream **")
        farr = ffi.new("convoy_filter *[]", self._filters)
        check(lib.convoy_stream_create(out, cfg, farr, len(self._filters)))
        self._s = ffi.gc(out[0], lib.convoy_stream_destroy)

    def _host(self):
        self._check_open()
        if self._mode == "device":
            raise ValueError("this stream has filtered GPU arrays since it was created or "
                             "reset: reset() it, or use another stream for host arrays")
        if self._s is None:
            self._create_host()
        return self._s

    def _check_open(self):
        if self._closed:
            raise ValueError("the stream is closed")

    def _err(self):
        return ffi.string(lib.convoy_stream_last_error(self._s)).decode("utf-8", "replace")

    def _frames(self, a):
        """Frames in a (frames,) or (frames, channels) array; its ndim."""
        if a.ndim == 1:
            if self.channels != 1:
                raise ValueError("a 1-D input is one channel; this stream has %d: pass an "
                                 "array of shape (frames, %d)" % (self.channels, self.channels))
        elif a.ndim != 2 or a.shape[1] != self.channels:
            raise ValueError("input of shape %s: this stream takes (frames, %d)%s"
                             % (a.shape, self.channels,
                                " or (frames,)" if self.channels == 1 else ""))
        return a.shape[0], a.ndim

    def _samples(self, x):
        """x as the stream's working array, and its frames."""
        if not self.complex and is_complex(x):
            raise TypeError("complex samples on a real stream: create it with complex=True")
        a = working(x, self.complex)
        frames, self._ndim = self._frames(a)
        return a, frames

    def _buffer(self, frames):
        return np.empty((frames,) if self._ndim == 1 else (frames, self.channels), self._dtype)

    @staticmethod
    def _trim(out, got):
        # A GPU engine's bound covers frames it may hold back: do not keep a
        # mostly empty buffer alive behind a small result.
        if got < out.shape[0] // 2:
            return out[:got].copy()
        return out[:got]

    def process(self, x):
        """Filters x ((frames,) or (frames, channels)); returns the output
        frames ready, in the same layout."""
        if is_device_array(x):
            return self._process_device(x)
        s = self._host()
        a, frames = self._samples(x)
        cap = lib.convoy_stream_max_output(s, frames)
        out = self._buffer(cap)
        got = ffi.new("int64_t *")
        check(lib.convoy_stream_process(s, fptr(a), frames, fptr(out), cap, got), self._err)
        self._mode = "host"
        return self._trim(out, got[0])

    def flush(self):
        """Ends the input; returns every frame held back and the ring-out.
        After it, process() fails until reset()."""
        if self._mode == "device":
            return self._flush_device()
        s = self._host()
        n = lib.convoy_stream_flush_frames(s)
        out = self._buffer(n)
        got = ffi.new("int64_t *")
        check(lib.convoy_stream_flush(s, fptr(out), n, got), self._err)
        self._mode = "host"
        return out[:got[0]]

    def _whole(self, x):
        """The whole output of x as one signal (process and flush into one
        buffer); the stream must be fresh."""
        s = self._host()
        a, frames = self._samples(x)
        total = frames + self._ntaps - 1
        if self.decimate > 1:
            total = max(0, -(-(total - self.phase) // self.decimate))
        out = self._buffer(max(total, lib.convoy_stream_max_output(s, frames)))
        got = ffi.new("int64_t *")
        check(lib.convoy_stream_process(s, fptr(a), frames, fptr(out), out.shape[0], got),
              self._err)
        done = got[0]
        rest = out[done:]
        check(lib.convoy_stream_flush(s, fptr(rest), rest.shape[0], got), self._err)
        self._mode = "host"
        return out[:done + got[0]]

    def reset(self):
        """Starts a new signal (zero history); keeps the plans."""
        self._check_open()
        if self._dev is not None and self._mode == "device":
            self._dev.reset(self._dev.last_stream or 0)
        if self._s is not None:
            check(lib.convoy_stream_reset(self._s), self._err)
        self._mode = None
        self._flushed = False

    # ------------------------------------------------------------ GPU arrays
    def _process_device(self, x):
        self._check_open()
        _cuda.require_cuda_build()
        if self._mode == "host":
            raise ValueError("this stream has filtered host arrays since it was created or "
                             "reset: reset() it, or use another stream for GPU arrays")
        if self._flushed:
            raise ConvoyError(lib.CONVOY_ERR_STATE,
                              "process() after flush(): call reset() to start a new signal",
                              "call not allowed now")
        if self.decimate != 1 or self.phase != 0 or self.shift != 0:
            raise ValueError("decimate, phase and shift need host arrays: the device "
                             "convolver filters at the full rate")
        if not self.complex and is_complex(x):
            raise TypeError("complex samples on a real stream: create it with complex=True")
        stream = _cuda.stream_of(x)
        with _cuda.on_stream(stream):
            cp = _cuda.cupy()
            a = _cuda.as_working(x, self.complex)
            frames, self._ndim = self._frames(a)
            dev = self._device(a.device.id)
            out = cp.empty(a.shape, a.dtype)
            dev.process(a.data.ptr, out.data.ptr, frames, stream)
        self._mode = "device"
        return out

    def _device(self, device_id):
        if self._dev is None:
            _cuda.require_cuda_build()
            engine = self._engine
            if engine == lib.CONVOY_ENGINE_AUTO:
                engine = lib.CONVOY_ENGINE_GPU  # the device convolver's AUTO: GPU engines only
            self._dev = _cuda.DeviceConv(self._filters, self.channels, engine, self.complex,
                                         device_id, self._max_frames,
                                         self._options["fft_size"], self._options["plan_effort"])
            if self._s is not None:  # the host stream's buffers are not needed now
                ffi.release(self._s)
                self._s = None
        elif self._dev.device != device_id:
            raise ValueError("this stream filters on GPU %d; the array is on GPU %d"
                             % (self._dev.device, device_id))
        return self._dev

    def _flush_device(self):
        self._check_open()
        cp = _cuda.cupy()
        stream = self._dev.last_stream or 0
        with _cuda.on_stream(stream):
            shape = (self._ntaps - 1,) if self._ndim == 1 else (self._ntaps - 1, self.channels)
            zeros = cp.zeros(shape, self._dtype)
            out = cp.empty(shape, self._dtype)
            self._dev.process(zeros.data.ptr, out.data.ptr, shape[0], stream)
        self._flushed = True
        return out

    # ------------------------------------------------------------ queries
    @property
    def engine(self):
        """The engine running: "cpu-direct", "cpu-fft", "gpu-direct" or "gpu-fft"."""
        self._check_open()
        if self._mode == "device" or (self._s is None and self._dev is not None):
            return engine_name(self._dev.engine())
        return engine_name(lib.convoy_stream_engine(self._host()))

    @property
    def taps(self):
        """The longest filter's tap count."""
        return self._ntaps

    @property
    def latency(self):
        """Most input frames process() may hold back (host arrays)."""
        return lib.convoy_stream_latency(self._host())

    def describe(self):
        """One line describing the plan: engine, FFT size, block, threads..."""
        self._check_open()
        if self._mode == "device":
            return self._dev.describe()
        s = self._host()
        buf = ffi.new("char[]", 512)
        check(lib.convoy_stream_describe(s, buf, 512), self._err)
        return ffi.string(buf).decode("utf-8", "replace")

    # ------------------------------------------------------------ lifetime
    def close(self):
        """Frees the C stream (and device convolver); idempotent."""
        if self._s is not None:
            ffi.release(self._s)
            self._s = None
        if self._dev is not None:
            self._dev.close()
            self._dev = None
        self._filters = []
        self._closed = True

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        if self._closed:
            return "<convoy.Stream closed>"
        return "<convoy.Stream %d taps, %d channel%s, %s%s>" % (
            self._ntaps, self.channels, "" if self.channels == 1 else "s",
            "complex, " if self.complex else "", self.engine)
