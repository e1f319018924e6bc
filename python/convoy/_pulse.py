"""Batched pulse compression through include/convoy_pulse.h."""

import numpy as np

from . import _cuda
from ._arrays import fptr, is_device_array
from ._lib import check, engine_id, engine_name, ffi, lib

_MODES = {"full": "CONVOY_PULSE_FULL", "same": "CONVOY_PULSE_SAME", "valid": "CONVOY_PULSE_VALID"}


class PulseCompressor:
    """A convoy_pulse: correlates batches of pulses with one template.

    ``PulseCompressor(template, pulse_len, pulses=1, mode="full",
    window="none", normalize=False, engine="auto", device=-1, threads=0,
    plan_effort=0)``

    Every pulse x of pulse_len samples becomes its correlation with the
    windowed, normalised template w (numpy.correlate(x, w, mode)):
    full[n] = sum_j x[n - (T-1) + j] conj(w[j]), "full" (L + T - 1 samples),
    "same" (L, from (T-1)//2) or "valid" (L - T + 1; an echo at delay d
    peaks at d). window: "none", "hamming", "hann", "kaiser" or
    "kaiser:beta=B" (numpy's symmetric windows), applied to the template;
    normalize scales it to unit energy. engine: "auto", "cpu" or "gpu".
    plan_effort 0 (estimate) gives the same bits on every run of one device
    and geometry; 1 (measure) times the GPU's fused plans and plans FFTW
    with FFTW_MEASURE, for speed.
    Create plans the FFTs and transforms the template once; run() then
    compresses a batch of `pulses` pulses, an array of shape (..., pulse_len)
    whose leading dimensions hold that many pulses (a 1-D array is one
    pulse), and returns (..., output_len) complex64. Samples are complex64
    (others are converted: a copy). A GPU array (CuPy) is compressed on the
    GPU (convoy_pulse_run_device, on the array's stream; the engine must be
    the GPU) and gives a CuPy array.
    """

    def __init__(self, template, pulse_len, pulses=1, mode="full", window="none",
                 normalize=False, engine="auto", device=-1, threads=0, plan_effort=0):
        self._p = None
        if is_device_array(template):
            template = _cuda.cupy().asnumpy(template)  # the template is host memory
        w = np.ascontiguousarray(template, dtype=np.complex64)
        if w.ndim != 1:
            raise ValueError("template must be 1-D, not of shape %s" % (w.shape,))
        try:
            mode_id = getattr(lib, _MODES[mode])
        except KeyError:
            raise ValueError("mode must be 'full', 'same' or 'valid', not %r" % (mode,)) from None
        cfg = ffi.new("convoy_pulse_config *")
        lib.convoy_pulse_config_init(cfg)
        win = ffi.new("convoy_pulse_window *")
        beta = ffi.new("double *")
        check(lib.convoy_pulse_window_from_name(str(window or "none").encode(), win, beta))
        cfg.window = win[0]
        if win[0] == lib.CONVOY_WINDOW_KAISER:
            cfg.kaiser_beta = beta[0]
        cfg.channels = 1
        cfg.pulses = int(pulses)
        cfg.pulse_len = int(pulse_len)
        cfg.waveform = fptr(w)
        cfg.template_len = w.shape[0]
        cfg.mode = mode_id
        cfg.normalize = 1 if normalize else 0
        cfg.layout = lib.CONVOY_PULSE_CONTIGUOUS
        cfg.engine = engine_id(engine)
        cfg.device = int(device)
        cfg.threads = int(threads)
        cfg.plan_effort = int(plan_effort)
        out = ffi.new("convoy_pulse **")
        check(lib.convoy_pulse_create(out, cfg))
        self._p = ffi.gc(out[0], lib.convoy_pulse_destroy)
        self.pulses = int(pulses)
        self.pulse_len = int(pulse_len)
        self.template_len = w.shape[0]
        self.output_len = lib.convoy_pulse_output_len(self._p)
        self._last_stream = None

    def _err(self):
        return ffi.string(lib.convoy_pulse_last_error(self._p)).decode("utf-8", "replace")

    def _shape(self, shape):
        if len(shape) == 0 or shape[-1] != self.pulse_len or \
                int(np.prod(shape[:-1], dtype=np.int64)) != self.pulses:
            raise ValueError("pulses of shape %s: this compressor takes %d pulse%s of %d "
                             "samples, (..., %d) with %d pulses in the leading dimensions"
                             % (tuple(shape), self.pulses, "" if self.pulses == 1 else "s",
                                self.pulse_len, self.pulse_len, self.pulses))
        return tuple(shape[:-1]) + (self.output_len,)

    def run(self, x):
        """Compresses one batch; returns (..., output_len) complex64."""
        if self._p is None:
            raise ValueError("the compressor is closed")
        if is_device_array(x):
            return self._run_device(x)
        a = np.ascontiguousarray(x, dtype=np.complex64)
        out = np.empty(self._shape(a.shape), np.complex64)
        check(lib.convoy_pulse_run(self._p, fptr(a), fptr(out)), self._err)
        return out

    __call__ = run

    def _run_device(self, x):
        _cuda.require_cuda_build()
        stream = _cuda.stream_of(x)
        with _cuda.on_stream(stream):
            cp = _cuda.cupy()
            a = _cuda.as_working(x, True)
            out = cp.empty(self._shape(a.shape), cp.complex64)
            check(lib.convoy_pulse_run_device(self._p, ffi.cast("void *", a.data.ptr),
                                              ffi.cast("void *", out.data.ptr),
                                              ffi.cast("void *", stream)), self._err)
        self._last_stream = stream
        return out

    @property
    def engine(self):
        """"cpu" or "gpu"."""
        return engine_name(lib.convoy_pulse_engine(self._p))

    def describe(self):
        """One line: engine, geometry, FFT plan."""
        buf = ffi.new("char[]", 512)
        check(lib.convoy_pulse_describe(self._p, buf, 512), self._err)
        return ffi.string(buf).decode("utf-8", "replace")

    def close(self):
        """Frees the compressor (after the GPU work it was given is done)."""
        if self._p is None:
            return
        if self._last_stream is not None:
            _cuda.synchronize(self._last_stream)
        ffi.release(self._p)
        self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def pulse_compress(pulses, template, mode="full", window="none", normalize=False,
                   engine="auto", axis=-1, **options):
    """Compresses every pulse of an array in one batch (convoy_pulse): pulses
    lie along axis (every other index is a pulse of its own), and each
    becomes its correlation with the windowed, normalised template, as
    PulseCompressor describes. Returns complex64 with axis of the mode's
    length (CuPy for GPU arrays, compressed on the GPU).
    options: device, threads, plan_effort."""
    device = is_device_array(pulses)
    if device:
        _cuda.require_cuda_build()
        cp = _cuda.cupy()
        xp = cp
        if engine == "auto":
            engine = "gpu"  # the batch is on the GPU already
        x = cp.asarray(pulses)
        options.setdefault("device", x.device.id)
    else:
        xp = np
        x = np.asarray(pulses)
    if x.ndim == 0:
        raise ValueError("pulses must be an array of at least one dimension")
    ax = axis if axis >= 0 else axis + x.ndim
    if not 0 <= ax < x.ndim:
        raise ValueError("axis %d is out of bounds for an array of %d dimensions" % (axis, x.ndim))
    xm = xp.moveaxis(x, ax, -1)
    count = int(np.prod(xm.shape[:-1], dtype=np.int64))
    if count == 0:
        raise ValueError("pulses of shape %s hold no pulse" % (x.shape,))
    with PulseCompressor(template, xm.shape[-1], pulses=count, mode=mode, window=window,
                         normalize=normalize, engine=engine, **options) as p:
        y = p.run(xm)
    return xp.ascontiguousarray(xp.moveaxis(y, -1, ax))
