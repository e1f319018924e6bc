#!/usr/bin/env python3
"""The Python package with GPU arrays (CuPy): convolve, correlate, Stream and
pulse_compress through the device API (convoy_cuda.h, convoy_pulse_run_device)
on the arrays' CUDA streams, against scipy and numpy.

Run by ctest as python_convoy_cuda. Exits 77 (skipped) without numpy, scipy,
cffi or CuPy, with a library built without CUDA, or without a GPU.
"""

import sys
import unittest

try:
    import cffi  # noqa: F401
    import numpy as np
    import scipy.signal
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

import convoy
from convoy import ConvoyError

if not convoy.built_with_cuda():
    print("skipped: %s was built without CUDA" % convoy.library_path)
    sys.exit(77)
try:
    import cupy as cp
except ImportError as e:
    print("skipped: no CuPy (%s)" % e)
    sys.exit(77)
try:
    if cp.cuda.runtime.getDeviceCount() < 1 or convoy.gpu_count() < 1:
        raise RuntimeError("no GPU")
except Exception as e:  # noqa: BLE001 - CuPy raises its own error without a driver
    print("skipped: no usable GPU (%s)" % e)
    sys.exit(77)

RNG = np.random.default_rng(7)


class OnStream:
    """A device array whose __cuda_array_interface__ names the stream st."""

    def __init__(self, a, st):
        self.__cuda_array_interface__ = dict(a.__cuda_array_interface__, stream=st.ptr)
        self._keep = a


def signal(shape, complex_=False):
    x = RNG.standard_normal(shape)
    if complex_:
        x = x + 1j * RNG.standard_normal(shape)
    return x


def assert_close(test, y, ref, x, h, rel=2e-6, what=""):
    y = cp.asnumpy(y) if isinstance(y, cp.ndarray) else y
    test.assertEqual(y.shape, ref.shape, what)
    scale = np.abs(x).max() * np.abs(h).sum()
    err = np.abs(y.astype(np.complex128) - ref).max() if y.size else 0.0
    test.assertLessEqual(err, rel * scale, "%s: error %g, scale %g" % (what, err, scale))


class TestConvolveDevice(unittest.TestCase):
    def test_real_and_complex_batched(self):
        for cx, ch in ((False, False), (True, False), (False, True), (True, True)):
            for engine in ("auto", "gpu-direct", "gpu-fft"):
                x = signal((3, 5000), cx)
                h = signal(129, ch)
                for mode in ("full", "same", "valid"):
                    y = convoy.convolve(cp.asarray(x), h, mode, engine=engine)
                    self.assertIsInstance(y, cp.ndarray)
                    self.assertEqual(y.dtype, np.complex64 if cx or ch else np.float32)
                    ref = scipy.signal.oaconvolve(x, h[None, :], mode, axes=-1)
                    assert_close(self, y, ref, x, h, what="%s %s cx=%d ch=%d" % (engine, mode,
                                                                                cx, ch))

    def test_axis_and_per_signal_filters(self):
        x = signal((700, 4))
        h = signal((33, 4))  # a filter per column
        y = convoy.convolve(cp.asarray(x), h, axis=0)
        assert_close(self, y, scipy.signal.oaconvolve(x, h, axes=0), x, h)

    def test_dtype_and_layout(self):
        x = signal(3001)
        h = signal(40)
        xd = cp.asarray(x)  # float64 on the device: converted there
        y = convoy.convolve(xd[::1], cp.asarray(h))
        assert_close(self, y, scipy.signal.oaconvolve(x, h), x, h)
        y = convoy.convolve(cp.asarray(np.repeat(x, 2))[::2], h)  # not contiguous
        assert_close(self, y, scipy.signal.oaconvolve(x, h), x, h)

    def test_correlate(self):
        x = signal(4000, True)
        t = signal(100, True)
        for mode in ("full", "same", "valid"):
            y = convoy.correlate(cp.asarray(x), cp.asarray(t), mode)
            assert_close(self, y, scipy.signal.correlate(x, t, mode), x, t, what=mode)

    def test_on_a_stream_of_the_caller(self):
        x = signal((2, 20000))
        h = signal(300)
        with cp.cuda.Stream(non_blocking=True) as st:
            xd = cp.asarray(x)
            y = convoy.convolve(xd, h, engine="gpu-fft")
            st.synchronize()
        assert_close(self, y, scipy.signal.oaconvolve(x, h[None, :], axes=-1), x, h)

    def test_stream_named_by_the_interface(self):
        # An array whose interface names a stream other than CuPy's current one.
        x = signal((2, 20000), True)
        h = signal(300)
        st = cp.cuda.Stream(non_blocking=True)
        xd = cp.asarray(x)
        cp.cuda.Stream.null.synchronize()
        y = convoy.convolve(OnStream(xd, st), h)
        st.synchronize()
        assert_close(self, y, scipy.signal.oaconvolve(x, h[None, :], axes=-1), x, h)
        with convoy.Stream(h, complex=True) as s:
            parts = [s.process(OnStream(cp.ascontiguousarray(xd[0, :7000]), st)),
                     s.process(OnStream(cp.ascontiguousarray(xd[0, 7000:]), st)), s.flush()]
            st.synchronize()
        assert_close(self, cp.concatenate(parts), scipy.signal.convolve(x[0], h), x, h)

    def test_other_producers(self):
        try:
            import torch
        except ImportError:
            self.skipTest("no torch")
        if not torch.cuda.is_available():
            self.skipTest("torch sees no GPU")
        x = signal(5000)
        h = signal(64)
        y = convoy.convolve(torch.tensor(x, device="cuda"), h)
        self.assertIsInstance(y, cp.ndarray)
        assert_close(self, y, scipy.signal.oaconvolve(x, h), x, h)

    def test_many_signals(self):
        x = signal((1030, 100))  # two device convolvers: 1024 channels, then 6
        h = signal(7)
        y = convoy.convolve(cp.asarray(x), h)
        assert_close(self, y, scipy.signal.oaconvolve(x, h[None, :], axes=-1), x, h)


class TestStreamDevice(unittest.TestCase):
    def run_chunks(self, s, xd, cuts):
        parts, start = [], 0
        for c in list(cuts) + [xd.shape[0]]:
            parts.append(s.process(xd[start:c]))
            start = c
        parts.append(s.flush())
        return cp.concatenate(parts)

    def test_chunks_direct_bitwise(self):
        for cx in (False, True):
            x = signal((30000, 2), cx)
            h = signal(257, cx)
            xd = cp.asarray(x, dtype=np.complex64 if cx else np.float32)
            with convoy.Stream(h, channels=2, engine="gpu-direct") as s:
                whole = self.run_chunks(s, xd, [])
                self.assertEqual(s.engine, "gpu-direct")
                s.reset()
                cuts = sorted(int(c) for c in RNG.integers(0, 30001, 17))
                got = self.run_chunks(s, xd, cuts)
            self.assertTrue(bool(cp.array_equal(got, whole)))
            ref = np.stack([scipy.signal.convolve(x[:, c], h) for c in range(2)], axis=1)
            assert_close(self, whole, ref, x, h)

    def test_fft_engine_and_max_frames(self):
        x = signal(100000)
        h = signal(5000)
        with convoy.Stream(h, engine="gpu-fft", max_frames=1 << 14) as s:
            y = cp.concatenate([s.process(cp.asarray(x)), s.flush()])  # cut into pieces
        assert_close(self, y, scipy.signal.convolve(x, h), x, h)

    def test_lifecycle(self):
        h = signal(9)
        xd = cp.asarray(signal(100), dtype=cp.float32)
        with convoy.Stream(h) as s:
            self.assertEqual(s.process(xd).shape, (100,))
            self.assertEqual(s.flush().shape, (8,))
            with self.assertRaises(ConvoyError):
                s.process(xd)
            with self.assertRaises(ValueError):
                s.process(cp.asnumpy(xd))  # host samples on a device stream
            s.reset()
            host = s.process(cp.asnumpy(xd))  # after reset, host arrays again
            self.assertIsInstance(host, np.ndarray)
        with convoy.Stream(h, decimate=2) as s:
            with self.assertRaises(ValueError):
                s.process(xd)


class TestPulseDevice(unittest.TestCase):
    def test_against_host(self):
        x = signal((16, 3000), True)
        w = signal(200, True)
        for mode in ("full", "same", "valid"):
            y = convoy.pulse_compress(cp.asarray(x), w, mode=mode, window="hamming",
                                      normalize=True)
            self.assertIsInstance(y, cp.ndarray)
            ref = convoy.pulse_compress(x, w, mode=mode, window="hamming", normalize=True,
                                        engine="cpu")
            assert_close(self, y, ref.astype(np.complex128), x, w, rel=1e-5, what=mode)

    def test_compressor(self):
        w = signal(64, True)
        with convoy.PulseCompressor(w, 1024, pulses=32, engine="gpu") as p:
            self.assertEqual(p.engine, "gpu")
            x = signal((32, 1024), True)
            a = p(cp.asarray(x))
            b = p(x)
            self.assertIsInstance(a, cp.ndarray)
            self.assertLessEqual(float(np.abs(cp.asnumpy(a) - b).max()),
                                 1e-5 * np.abs(x).max() * np.abs(w).sum())


if __name__ == "__main__":
    unittest.main(verbosity=1)
