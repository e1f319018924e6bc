"""convolve() and correlate(): whole arrays, batched along one axis."""

import numpy as np

from . import _cuda
from ._arrays import is_complex, is_device_array
from ._filters import make_filters
from ._lib import engine_id, lib
from ._stream import MAX_CHANNELS, Stream

MODES = ("full", "same", "valid")


def _window(n, t, mode):
    """(start, length) of mode's part of the full convolution of n and t
    samples, as scipy.signal.convolve/oaconvolve keep it."""
    full = n + t - 1
    if mode == "full":
        return 0, full
    if mode == "same":
        return (full - n) // 2, n
    if mode == "valid":
        return min(n, t) - 1, abs(n - t) + 1
    raise ValueError("mode must be 'full', 'same' or 'valid', not %r" % (mode,))


def _layout(x, h, axis, xp):
    """Moves axis to the end and broadcasts the other axes of x (an array of
    module xp: numpy or cupy) and h (a numpy array: taps are host memory).

    Returns (xb, hb, shared, batch_shape, ax): xb (B, N), and hb (1, T) when
    one filter serves every row (shared), else (B, T)."""
    if x.ndim == 0 or h.ndim == 0:
        raise ValueError("x and h must be arrays of at least one dimension")
    ax = axis if axis >= 0 else axis + x.ndim
    if not 0 <= ax < x.ndim:
        raise ValueError("axis %d is out of bounds for an array of %d dimensions" % (axis, x.ndim))
    xm = xp.moveaxis(x, ax, -1)
    if h.ndim == 1:
        hm = h.reshape((1,) * (x.ndim - 1) + h.shape)
    elif h.ndim == x.ndim:
        hm = np.moveaxis(h, ax, -1)
    else:
        raise ValueError("h must be 1-D, or have x's %d dimensions (filters along axis %d, "
                         "broadcast over the others), not %d" % (x.ndim, axis, h.ndim))
    batch = tuple(np.broadcast_shapes(xm.shape[:-1], hm.shape[:-1]))
    n, t = xm.shape[-1], hm.shape[-1]
    b = int(np.prod(batch, dtype=np.int64))
    xb = xp.broadcast_to(xm, batch + (n,)).reshape(b, n)
    shared = all(d == 1 for d in hm.shape[:-1])
    hb = hm.reshape(1, t) if shared else np.broadcast_to(hm, batch + (t,)).reshape(b, t)
    return xb, hb, shared, batch, ax


def _finish(full, n, t, mode, batch, ax, xp):
    start, length = _window(n, t, mode)
    y = full[:, start:start + length].reshape(batch + (length,))
    return xp.ascontiguousarray(xp.moveaxis(y, -1, ax))


def convolve(x, h, mode="full", engine="auto", axis=-1, **options):
    """The convolution of x with the filter h along axis, as
    scipy.signal.oaconvolve(x, h, mode, axes=axis) (with h given x's number
    of dimensions).

    x: an array of any number of dimensions, filtered along axis; every
    other index is a signal of its own (a batch). h: one filter (1-D) for
    every signal, or filters with x's number of dimensions, broadcast over
    the axes other than axis (one filter per signal). mode: "full" (N + T -
    1 samples), "same" (N, centred as scipy's) or "valid" (|N - T| + 1).
    engine: as Stream's; options: Stream's other options (threads, fft_size,
    plan_effort, device, ...).

    Real inputs give float32, complex ones complex64 (inputs of other dtypes
    are converted: a copy). GPU arrays (CuPy) are filtered on the GPU with
    the device convolver, on the array's stream, and give a CuPy array.
    """
    if mode not in MODES:
        raise ValueError("mode must be 'full', 'same' or 'valid', not %r" % (mode,))
    if is_device_array(x) or is_device_array(h):
        return _convolve_device(x, h, mode, engine, axis, options)
    x = np.asarray(x)
    h = np.asarray(h)
    complex_ = is_complex(x) or is_complex(h)
    dtype = np.complex64 if complex_ else np.float32
    xb, hb, shared, batch, ax = _layout(x, h, axis, np)
    b, n = xb.shape
    t = hb.shape[1]
    if n == 0 or t == 0:
        return np.array([], dtype)  # as scipy
    full = np.empty((b, n + t - 1), dtype)
    for g0 in range(0, b, MAX_CHANNELS):
        g1 = min(b, g0 + MAX_CHANNELS)
        taps = hb[0] if shared else hb[g0:g1]
        with Stream(taps, channels=g1 - g0, engine=engine, complex=complex_, **options) as s:
            if g1 - g0 == 1:
                full[g0] = s._whole(xb[g0])
            else:
                # The stream takes interleaved frames: (N, channels).
                full[g0:g1] = s._whole(np.ascontiguousarray(xb[g0:g1].T, dtype=dtype)).T
    return _finish(full, n, t, mode, batch, ax, np)


def correlate(x, template, mode="full", engine="auto", axis=-1, **options):
    """The cross-correlation of x with template along axis, as
    scipy.signal.correlate(x, template, mode) for 1-D arrays: the
    convolution with the conjugated, time-reversed template (a matched
    filter), so the output peaks where the template occurs. In mode "valid"
    an occurrence at sample d peaks at d. Batched along axis as convolve()."""
    if mode not in MODES:
        raise ValueError("mode must be 'full', 'same' or 'valid', not %r" % (mode,))
    if is_device_array(template):
        _cuda.require_cuda_build()
        template = _cuda.cupy().asnumpy(template)  # taps are host memory
    t = np.asarray(template)
    if t.ndim == 0:
        raise ValueError("template must be an array of at least one dimension")
    tax = -1 if t.ndim == 1 else axis
    h = np.conj(np.flip(t, axis=tax))
    return convolve(x, h, mode=mode, engine=engine, axis=axis, **options)


def _convolve_device(x, h, mode, engine, axis, options):
    """convolve() of GPU arrays: the device convolver of convoy_cuda.h on x's
    CUDA stream; real signals go through its planar path (the rows of the
    batch are its channels), complex ones through its interleaved one."""
    _cuda.require_cuda_build()
    cp = _cuda.cupy()
    if not is_device_array(x):
        x = cp.asarray(x)
    if is_device_array(h):
        h = cp.asnumpy(h)  # taps are host memory: the library copies them to the device
    h = np.asarray(h)
    complex_ = is_complex(x) or is_complex(h)
    dtype = np.complex64 if complex_ else np.float32
    unknown = set(options) - {"fft_size", "plan_effort", "max_frames"}
    if unknown:
        raise TypeError("options %s do not apply to GPU arrays" % ", ".join(sorted(unknown)))
    eng = engine_id(engine)
    if eng == lib.CONVOY_ENGINE_AUTO:
        eng = lib.CONVOY_ENGINE_GPU
    stream = _cuda.stream_of(x)
    with _cuda.on_stream(stream):
        xd = cp.asarray(x)
        xb, hb, shared, batch, ax = _layout(xd, h, axis, cp)
        b, n = xb.shape
        t = hb.shape[1]
        if n == 0 or t == 0:
            return cp.array([], dtype)
        length = n + t - 1
        rows = [np.ascontiguousarray(r, dtype=np.complex64 if is_complex(r) else np.float32)
                for r in hb]
        device = xd.device.id
        max_frames = int(options.get("max_frames", min(length, 1 << 20)))
        full = cp.empty((b, length), dtype)
        for g0 in range(0, b, MAX_CHANNELS):
            g1 = min(b, g0 + MAX_CHANNELS)
            g = g1 - g0
            filters = make_filters(rows[:1] if shared else rows[g0:g1])
            conv = _cuda.DeviceConv(filters, g, eng, complex_, device, max_frames,
                                    int(options.get("fft_size", 0)),
                                    int(options.get("plan_effort", 0)))
            try:
                if complex_:
                    # Interleaved complex frames (length, g), zero-padded for the ring-out.
                    sig = cp.zeros((length, g), cp.complex64)
                    sig[:n] = xb[g0:g1].T
                    out = cp.empty((length, g), cp.complex64)
                    conv.process(sig.data.ptr, out.data.ptr, length, stream)
                    full[g0:g1] = out.T
                else:
                    # Planar rows of `length` floats: the rows are the channels.
                    sig = cp.zeros((g, length), cp.float32)
                    sig[:, :n] = xb[g0:g1]
                    out = full[g0:g1]
                    conv.process_planar(sig.data.ptr, length, out.data.ptr, length, length,
                                        stream)
            finally:
                conv.close()
        return _finish(full, n, t, mode, batch, ax, cp)
