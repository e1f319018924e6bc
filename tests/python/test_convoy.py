#!/usr/bin/env python3
"""The Python package convoy (python/convoy) against scipy.signal and numpy.

Run by ctest as python_package with the build's libconvoy.so (CONVOY_LIBRARY)
and the source tree's package (PYTHONPATH), and by tests/python/install_check.sh
against an installed copy. Exits 77 (skipped) when numpy, scipy or cffi is
missing. Environment:
  CONVOY_CLI             the convoy program (design taps compared with its output)
  CONVOY_LAYOUT          tests/python/layout.c built: struct layouts and constants
  CONVOY_EXPECT_LIBRARY  the library the package must have loaded
  CONVOY_TEST_QUICK      smaller sizes (sanitizer builds)
"""

import os
import subprocess
import sys
import tempfile
import unittest
import wave

try:
    import cffi  # noqa: F401
    import numpy as np
    import scipy.signal
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

import convoy
from convoy import ConvoyError

QUICK = bool(os.environ.get("CONVOY_TEST_QUICK"))
RNG = np.random.default_rng(20240613)
CPU_ENGINES = ["auto", "cpu", "cpu-direct", "cpu-fft"]


def signal(shape, complex_=False, rng=RNG):
    x = rng.standard_normal(shape)
    if complex_:
        x = x + 1j * rng.standard_normal(shape)
    return x


def assert_close(test, y, ref, x, h, rel=2e-6, what=""):
    """y (float32 work) against a float64 reference: within rel of the
    largest possible output, max|x| sum|h|."""
    test.assertEqual(y.shape, ref.shape, what)
    if y.size == 0:
        return
    scale = np.abs(x).max() * np.abs(h).sum() if np.size(x) and np.size(h) else 1.0
    err = np.abs(y.astype(np.complex128) - ref).max()
    test.assertLessEqual(err, rel * scale, "%s: error %g, scale %g" % (what, err, scale))


def chunked(s, x, cuts):
    """The stream's output of x cut at cuts, then flushed."""
    parts, start = [], 0
    for c in list(cuts) + [len(x)]:
        parts.append(s.process(x[start:c]))
        start = c
    parts.append(s.flush())
    return np.concatenate(parts)


def random_cuts(n, count, rng=RNG):
    return sorted(int(c) for c in rng.integers(0, n + 1, size=count))


class TestLibrary(unittest.TestCase):
    def test_version(self):
        self.assertEqual(convoy.library_version, convoy.__version__)
        self.assertTrue(os.path.exists(convoy.library_path) or "/" not in convoy.library_path)

    def test_expected_library(self):
        want = os.environ.get("CONVOY_EXPECT_LIBRARY")
        if not want:
            self.skipTest("CONVOY_EXPECT_LIBRARY not set")
        self.assertTrue(os.path.samefile(convoy.library_path, want),
                        "loaded %s, want %s" % (convoy.library_path, want))

    def test_declared_functions_exported(self):
        cuda = convoy.built_with_cuda()
        names = [n for n in dir(convoy.lib) if n.startswith("convoy_")]
        self.assertIn("convoy_stream_create", names)
        for name in names:
            if name.startswith("convoy_cuda_") and not cuda:
                with self.assertRaises(AttributeError):
                    getattr(convoy.lib, name)
                continue
            getattr(convoy.lib, name)  # AttributeError when not exported

    def test_layout_matches_headers(self):
        layout = os.environ.get("CONVOY_LAYOUT")
        if not layout:
            self.skipTest("CONVOY_LAYOUT not set")
        from convoy._cdefs import CUDA_STRUCTS, STRUCTS
        c = {}
        for line in subprocess.run([layout], check=True, capture_output=True,
                                   text=True).stdout.splitlines():
            name, value = line.split()
            c[name] = int(value)
        structs = STRUCTS + (CUDA_STRUCTS if convoy.built_with_cuda() else ())
        for s in structs:
            t = convoy.ffi.typeof(s)
            self.assertEqual(convoy.ffi.sizeof(t), c[s], "sizeof(%s)" % s)
            fields = [f for f, _ in t.fields]
            self.assertEqual(sorted(fields), sorted(k.split(".", 1)[1] for k in c
                                                    if k.startswith(s + ".")), s)
            for f in fields:
                self.assertEqual(convoy.ffi.offsetof(t, f), c[s + "." + f], "%s.%s" % (s, f))
        consts = [k for k in c if k.startswith("CONVOY_")]
        self.assertGreater(len(consts), 40)
        for k in consts:
            self.assertEqual(getattr(convoy.lib, k), c[k], k)

    def test_engines(self):
        names = convoy.engines(available=False)
        self.assertEqual(names[:2], ["auto", "cpu"])
        self.assertIn("gpu-fft", names)
        here = convoy.engines()
        self.assertIn("cpu-fft", here)
        self.assertEqual("gpu" in here, convoy.gpu_count() > 0)

    def test_library_not_found(self):
        env = dict(os.environ, CONVOY_LIBRARY="/nonexistent/libconvoy.so.0")
        r = subprocess.run([sys.executable, "-c", "import convoy"], env=env,
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot load libconvoy", r.stderr)
        self.assertIn("/nonexistent/libconvoy.so.0 (CONVOY_LIBRARY)", r.stderr)

    def test_found_by_soname(self):
        # Without CONVOY_LIBRARY the loader's search path finds the soname.
        libdir = os.path.dirname(os.path.realpath(convoy.library_path))
        if not os.path.exists(os.path.join(libdir, convoy._lib.SONAME)):
            self.skipTest("no %s beside %s" % (convoy._lib.SONAME, convoy.library_path))
        env = {k: v for k, v in os.environ.items() if k != "CONVOY_LIBRARY"}
        env["LD_LIBRARY_PATH"] = os.pathsep.join([libdir] + [p for p in os.environ.get(
            "LD_LIBRARY_PATH", "").split(os.pathsep) if p])
        # A package that has no _install.py: the source tree's.
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(convoy.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([pkg] + [p for p in os.environ.get(
            "PYTHONPATH", "").split(os.pathsep) if p])
        code = ("import convoy, os; print(convoy.library_path); "
                "assert os.path.exists(os.path.join(%r, 'convoy', '_install.py')) or "
                "convoy.library_path == %r" % (pkg, convoy._lib.SONAME))
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)


class TestConvolve(unittest.TestCase):
    def test_random_sizes_modes(self):
        trials = 12 if QUICK else 30
        for i in range(trials):
            n = int(RNG.integers(1, 3000))
            t = int(RNG.integers(1, 400 if i % 3 else 3000))
            cx, ch = bool(i % 4 == 1 or i % 4 == 3), bool(i % 4 >= 2)
            x, h = signal(n, cx), signal(t, ch)
            engine = CPU_ENGINES[i % len(CPU_ENGINES)]
            for mode in ("full", "same", "valid"):
                y = convoy.convolve(x, h, mode, engine=engine)
                self.assertEqual(y.dtype, np.complex64 if cx or ch else np.float32)
                assert_close(self, y, scipy.signal.oaconvolve(x, h, mode), x, h,
                             what="n=%d t=%d %s %s cx=%d ch=%d" % (n, t, mode, engine, cx, ch))

    def test_long_filter_fft(self):
        n, t = (20000, 4000) if QUICK else (100000, 20000)
        x, h = signal(n), signal(t)
        for engine in ("cpu-fft", "auto"):
            y = convoy.convolve(x, h, engine=engine)
            assert_close(self, y, scipy.signal.oaconvolve(x, h), x, h, what=engine)

    def test_batched_axes(self):
        x = signal((3, 4, 500), complex_=True)
        h = signal(31)
        for axis in (0, 1, 2, -1):
            ref = scipy.signal.oaconvolve(x, np.expand_dims(h, [a for a in range(3)
                                                                if a != axis % 3]),
                                          "same", axes=axis)
            y = convoy.convolve(x, h, "same", axis=axis)
            assert_close(self, y, ref, x, h, what="axis %d" % axis)
            self.assertTrue(y.flags.c_contiguous)

    def test_per_signal_filters(self):
        x = signal((5, 800))
        h = signal((5, 40))
        for mode in ("full", "same", "valid"):
            ref = scipy.signal.oaconvolve(x, h, mode, axes=-1)
            assert_close(self, convoy.convolve(x, h, mode), ref, x, h, what=mode)
        # Broadcast: one signal, several filters; filters along axis 0.
        one = signal((1, 800))
        assert_close(self, convoy.convolve(one, h), scipy.signal.oaconvolve(one, h, axes=-1),
                     one, h, what="broadcast x")
        assert_close(self, convoy.convolve(x.T, h.T, axis=0),
                     scipy.signal.oaconvolve(x.T, h.T, axes=0), x, h, what="axis 0")

    def test_more_signals_than_a_stream_carries(self):
        x = signal((1100, 64))  # two streams: 1024 channels, then 76
        h = signal(9)
        ref = scipy.signal.oaconvolve(x, h[None, :], axes=-1)
        assert_close(self, convoy.convolve(x, h), ref, x, h)

    def test_valid_shorter_signal(self):
        x, h = signal(50), signal(200)
        y = convoy.convolve(x, h, "valid")
        self.assertEqual(y.shape, (151,))
        assert_close(self, y, scipy.signal.oaconvolve(x, h, "valid"), x, h)

    def test_dtypes_and_layouts(self):
        x = signal(1001)
        h = signal(21)
        ref = scipy.signal.oaconvolve(x, h)
        # float64, int, a list, a non-contiguous view: converted copies.
        assert_close(self, convoy.convolve(x, h), ref, x, h)
        assert_close(self, convoy.convolve(list(x), list(h)), ref, x, h)
        xi = (x * 100).astype(np.int16)
        assert_close(self, convoy.convolve(xi, h), scipy.signal.oaconvolve(xi.astype(float), h),
                     xi, h)
        strided = np.repeat(x, 2)[::2]
        self.assertFalse(strided.flags.c_contiguous)
        assert_close(self, convoy.convolve(strided, h), ref, x, h)
        x32 = x.astype(np.float32)
        self.assertTrue(np.array_equal(convoy.convolve(x32, h), convoy.convolve(x, h)))
        self.assertEqual(convoy.convolve(x32, h.astype(np.complex128)).dtype, np.complex64)

    def test_empty(self):
        self.assertEqual(convoy.convolve(np.zeros(0), np.ones(3)).size, 0)
        self.assertEqual(convoy.convolve(np.ones(3), np.zeros(0)).size, 0)

    def test_errors(self):
        x, h = signal(100), signal(5)
        with self.assertRaises(ValueError):
            convoy.convolve(x, h, "middle")
        with self.assertRaises(ConvoyError) as e:
            convoy.convolve(x, h, engine="fastest")
        self.assertIn("unknown engine 'fastest'", str(e.exception))
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_INVALID_ARGUMENT)
        with self.assertRaises(ValueError):
            convoy.convolve(x, signal((2, 3, 5)))
        with self.assertRaises(ValueError):
            convoy.convolve(x, h, axis=1)
        with self.assertRaises(ConvoyError) as e:
            convoy.convolve(x, np.array([1.0, np.nan]))
        self.assertTrue(str(e.exception))
        if convoy.gpu_count() == 0:
            with self.assertRaises(ConvoyError) as e:
                convoy.convolve(x, h, engine="gpu-fft")
            # Not built in (a CPU-only build), or no usable GPU.
            self.assertIn(e.exception.status, (convoy.lib.CONVOY_ERR_UNSUPPORTED,
                                               convoy.lib.CONVOY_ERR_NO_DEVICE))
            self.assertTrue(str(e.exception))


class TestGpuEnginesOnHostArrays(unittest.TestCase):
    """numpy arrays through the GPU engines: the library's pinned pipeline."""

    def setUp(self):
        if convoy.gpu_count() == 0:
            self.skipTest("no usable GPU")

    def test_stream_and_convolve(self):
        for engine in ("gpu", "gpu-direct", "gpu-fft"):
            for cx in (False, True):
                x, h = signal((50000, 2), cx), signal(700, cx)
                with convoy.Stream(h, channels=2, engine=engine, chunk_frames=4096) as s:
                    self.assertTrue(s.engine.startswith("gpu"))
                    whole = np.concatenate([s.process(x), s.flush()])
                    s.reset()
                    got = chunked(s, x, random_cuts(len(x), 20))
                self.assertTrue(np.array_equal(got, whole), "%s cx=%d" % (engine, cx))
                ref = scipy.signal.oaconvolve(x, h[:, None], axes=0)
                assert_close(self, whole, ref, x, h, what=engine)
                assert_close(self, convoy.convolve(x, h, axis=0, engine=engine), ref, x, h)


class TestCorrelate(unittest.TestCase):
    def test_against_scipy(self):
        for i in range(8 if QUICK else 16):
            n = int(RNG.integers(1, 2000))
            t = int(RNG.integers(1, 300))
            cx, ct = bool(i & 1), bool(i & 2)
            x, tpl = signal(n, cx), signal(t, ct)
            for mode in ("full", "same", "valid"):
                assert_close(self, convoy.correlate(x, tpl, mode),
                             scipy.signal.correlate(x, tpl, mode), x, tpl,
                             what="n=%d t=%d %s" % (n, t, mode))

    def test_finds_the_template(self):
        tpl = np.exp(1j * np.pi * 0.002 * np.arange(400) ** 2)  # a chirp
        x = 0.1 * signal(5000, True)
        x[1234:1234 + 400] += tpl
        y = convoy.correlate(x, tpl, "valid")
        self.assertEqual(int(np.argmax(np.abs(y))), 1234)

    def test_batched(self):
        x = signal((4, 700), True)
        tpl = signal(33, True)
        y = convoy.correlate(x.T, tpl, "same", axis=0)
        ref = np.stack([scipy.signal.correlate(r, tpl, "same") for r in x], axis=1)
        assert_close(self, y, ref, x, tpl)


class TestStream(unittest.TestCase):
    def test_chunking_is_bitwise(self):
        for engine in CPU_ENGINES:
            for t in (1, 7, 300, 3000):
                for cx in (False, True):
                    x, h = signal(20000, cx), signal(t, cx and t % 2 == 1)
                    with convoy.Stream(h, engine=engine, complex=cx) as s:
                        whole = np.concatenate([s.process(x), s.flush()])
                        for _ in range(3):
                            s.reset()
                            cuts = random_cuts(len(x), int(RNG.integers(1, 40)))
                            got = chunked(s, x, cuts)
                            self.assertTrue(np.array_equal(got, whole),
                                            "%s t=%d cx=%d cuts %s" % (engine, t, cx, cuts))
                    assert_close(self, whole, scipy.signal.convolve(x, h), x, h)

    def test_multichannel(self):
        x = signal((5000, 3))
        taps = [signal(10), signal(200), signal(1)]  # lengths may differ
        with convoy.Stream(taps, channels=3, engine="cpu-fft") as s:
            self.assertEqual(s.taps, 200)
            y = chunked(s, x, random_cuts(len(x), 10))
        self.assertEqual(y.shape, (5000 + 199, 3))
        for c in range(3):
            ref = scipy.signal.convolve(x[:, c], taps[c])
            assert_close(self, y[:len(ref), c], ref, x[:, c], taps[c])
            # A shorter filter's channel rings out with (near) zeros.
            assert_close(self, y[len(ref):, c], np.zeros(5199 - len(ref)), x[:, c], taps[c])
        # 2-D taps: a row per channel; 1-D: the same filter everywhere.
        h2 = signal((3, 50))
        with convoy.Stream(h2, channels=3) as s:
            y = np.concatenate([s.process(x), s.flush()])
        assert_close(self, y, scipy.signal.oaconvolve(x, h2.T, axes=0), x, h2)
        with convoy.Stream(h2[0], channels=3) as s:
            y = np.concatenate([s.process(x), s.flush()])
        assert_close(self, y, scipy.signal.oaconvolve(x, h2[0][:, None], axes=0), x, h2[0])

    def test_shapes(self):
        h = signal(5)
        with convoy.Stream(h, engine="cpu-direct") as s:  # holds nothing back
            self.assertEqual(s.process(signal(10)).ndim, 1)
            self.assertEqual(s.flush().shape, (4,))
            s.reset()
            self.assertEqual(s.process(signal((10, 1))).shape[1:], (1,))
            self.assertEqual(s.flush().shape, (4, 1))
            s.reset()
            self.assertEqual(s.process(np.zeros(0)).shape, (0,))
        with convoy.Stream(h, channels=2, engine="cpu-direct") as s:
            with self.assertRaises(ValueError):
                s.process(signal(10))
            with self.assertRaises(ValueError):
                s.process(signal((10, 3)))
            self.assertEqual(s.flush().shape, (4, 2))

    def test_dtype_conversion(self):
        x, h = signal(3000), signal(64)
        with convoy.Stream(h) as s:
            a = np.concatenate([s.process(x), s.flush()])
            s.reset()
            b = np.concatenate([s.process(x.astype(np.float32)), s.flush()])
            s.reset()
            c = np.concatenate([s.process(x.astype(np.float32)[::-1][::-1]), s.flush()])
        self.assertEqual(a.dtype, np.float32)
        self.assertTrue(np.array_equal(a, b) and np.array_equal(a, c))
        with convoy.Stream(h, complex=True) as s:
            y = np.concatenate([s.process(x), s.flush()])  # real samples, complex stream
        self.assertEqual(y.dtype, np.complex64)
        self.assertTrue(np.array_equal(y.real, a) and not np.any(y.imag))
        with convoy.Stream(h) as s:
            with self.assertRaises(TypeError):
                s.process(signal(10, True))

    def test_complex_taps_make_a_complex_stream(self):
        h = signal(31, True)
        x = signal(2000, True)
        with convoy.Stream(h) as s:
            self.assertTrue(s.complex)
            y = np.concatenate([s.process(x), s.flush()])
        assert_close(self, y, scipy.signal.convolve(x, h), x, h)
        with self.assertRaises(ConvoyError) as e:
            convoy.Stream(h, complex=False)
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_INVALID_ARGUMENT)
        self.assertTrue(e.exception.message)

    def test_decimate_shift(self):
        n = 6000
        x = signal(n, True)
        h = scipy.signal.firwin(101, 0.1)
        for engine in ("cpu-direct", "cpu-fft"):
            for d, f, p in ((4, 0.0, 0), (5, 0.125, 2), (1, -0.3, 0), (8, 0.2, 7)):
                with convoy.Stream(h, engine=engine, complex=True, decimate=d, shift=f,
                                   phase=p) as s:
                    whole = np.concatenate([s.process(x), s.flush()])
                    s.reset()
                    got = chunked(s, x, random_cuts(n, 25))
                self.assertTrue(np.array_equal(got, whole), "%s D=%d f=%g" % (engine, d, f))
                # Double precision: y[k] = sum_j h[j] x[k-j] e^{-j 2 pi f (k-j)}, keep y[nD+P].
                k = np.arange(n)
                full = np.convolve(x * np.exp(-2j * np.pi * f * k), h)
                ref = full[p::d]
                assert_close(self, whole, ref, x, h, rel=5e-6,
                             what="%s D=%d f=%g P=%d" % (engine, d, f, p))

    def test_shift_needs_complex(self):
        with self.assertRaises(ConvoyError) as e:
            convoy.Stream(signal(5), complex=False, shift=0.1)
        self.assertIn("shift", e.exception.message)
        with convoy.Stream(signal(5), shift=0.1) as s:  # complex by default then
            self.assertTrue(s.complex)

    def test_lifecycle(self):
        h = signal(16)
        s = convoy.Stream(h, engine="cpu-direct")
        self.assertEqual(s.engine, "cpu-direct")
        self.assertEqual(s.latency, 0)
        self.assertIn("cpu-direct", s.describe())
        self.assertIn("16 taps", repr(s))
        s.process(signal(100))
        s.flush()
        with self.assertRaises(ConvoyError) as e:
            s.process(signal(100))
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_STATE)
        self.assertTrue(e.exception.message)
        s.reset()
        s.process(signal(100))
        s.close()
        s.close()
        with self.assertRaises(ValueError):
            s.process(signal(10))
        with convoy.Stream(h) as s2:
            pass
        with self.assertRaises(ValueError):
            s2.flush()

    def test_errors(self):
        with self.assertRaises(ConvoyError) as e:
            convoy.Stream(signal(5), engine="turbo")
        self.assertIn("unknown engine 'turbo'", str(e.exception))
        with self.assertRaises(ConvoyError) as e:  # 2 filters for 3 channels
            convoy.Stream(signal((2, 5)), channels=3)
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_INVALID_ARGUMENT)
        self.assertTrue(e.exception.message)
        for bad in (dict(channels=0), dict(decimate=0), dict(decimate=2, phase=2),
                    dict(complex=True, shift=0.7)):
            with self.assertRaises(ConvoyError, msg=str(bad)) as e:
                convoy.Stream(signal(5), **bad)
            self.assertTrue(e.exception.message, bad)
        with self.assertRaises(ConvoyError):
            convoy.Stream(np.zeros(0))
        with self.assertRaises(ConvoyError):
            convoy.Stream([1.0, np.inf])
        with self.assertRaises(ValueError):
            convoy.Stream(np.ones((2, 2, 2)))
        self.assertTrue(issubclass(ConvoyError, RuntimeError))


class TestDesign(unittest.TestCase):
    SPECS = ["lowpass:cutoff=4000,width=500", "highpass:cutoff=80,width=40,atten=60",
             "bandpass:low=300,high=3400,taps=511", "bandstop:low=45,high=55,width=10,rate=8000"]

    def test_equals_cli(self):
        cli = os.environ.get("CONVOY_CLI")
        for spec in self.SPECS:
            rate = None if "rate=" in spec else 48000
            h = convoy.design(spec, rate)
            self.assertEqual(h.dtype, np.float32)
            self.assertEqual(h.ndim, 1)
            self.assertTrue(np.allclose(h, h[::-1]))  # linear phase
            if not cli:
                continue
            args = [cli, "design", spec] + (["--rate", str(rate)] if rate else [])
            out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
            ref = np.array([float(v) for v in out.splitlines() if not v.startswith("#")],
                           dtype=np.float32)
            self.assertTrue(np.array_equal(h, ref), spec)
        if not cli:
            self.skipTest("CONVOY_CLI not set: designs not compared with convoy design")

    def test_errors(self):
        with self.assertRaises(ConvoyError) as e:
            convoy.design("lowpass:cutoff=30000,taps=31", 48000)
        self.assertEqual(str(e.exception),
                         "lowpass:cutoff=30000,taps=31: cutoff 30000 Hz is not below Nyquist "
                         "(24000 Hz)")
        with self.assertRaises(ConvoyError) as e:
            convoy.design("lowpass:cutoff=4000,width=500")
        self.assertIn("rate", str(e.exception))
        with self.assertRaises(ConvoyError) as e:
            convoy.design("notch:freq=50", 48000)
        self.assertTrue(str(e.exception).startswith("notch:freq=50"))


class TestLoadTaps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_formats(self):
        h = signal(77).astype(np.float32)  # %.9g gives every float32 back
        np.savetxt(self.path("h.txt"), h, fmt="%.9g")
        np.save(self.path("h.npy"), h)
        h.astype(np.float32).tofile(self.path("h.f32"))
        for name in ("h.txt", "h.npy", "h.f32"):
            t = convoy.load_taps(self.path(name))
            self.assertEqual(t.dtype, np.float32, name)
            self.assertTrue(np.array_equal(t, h.astype(np.float32)), name)
        hc = signal(40, True)
        np.save(self.path("hc.npy"), hc)
        t = convoy.load_taps(self.path("hc.npy"))
        self.assertEqual(t.dtype, np.complex64)
        self.assertTrue(np.array_equal(t, hc.astype(np.complex64)))
        t = convoy.load_taps(self.dir.name + "/h.f32", format="raw")
        self.assertEqual(len(t), 77)

    def test_impulse_response(self):
        codes = (signal((300, 2)) * 3000).astype("<i2")
        with wave.open(self.path("ir.wav"), "wb") as w:
            w.setnchannels(2)
            w.setsampwidth(2)
            w.setframerate(44100)
            w.writeframes(codes.tobytes())
        t, rate = convoy.load_taps(self.path("ir.wav"), with_rate=True)
        self.assertEqual(rate, 44100.0)
        self.assertEqual(t.shape, (2, 300))
        self.assertTrue(np.array_equal(t, (codes.T / 32768).astype(np.float32)))
        # A stereo IR filters a stereo stream, one row per channel.
        with convoy.Stream(t, channels=2) as s:
            self.assertEqual(s.taps, 300)

    def test_errors(self):
        with self.assertRaises(ConvoyError) as e:
            convoy.load_taps(self.path("missing.txt"))
        self.assertIn("missing.txt", str(e.exception))
        with open(self.path("bad.txt"), "w") as f:
            f.write("0.5\nabc\n")
        with self.assertRaises(ConvoyError) as e:
            convoy.load_taps(self.path("bad.txt"))
        self.assertIn("abc", str(e.exception))
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_FORMAT)
        with self.assertRaises(ValueError):
            convoy.load_taps(self.path("bad.txt"), format="csv")


def pulse_reference(x, w, mode, window="none", normalize=False):
    """numpy: the correlation of every row of x with the windowed,
    normalised template, by FFT in double precision."""
    t = len(w)
    if window == "hamming":
        w = w * np.hamming(t)
    elif window == "hann":
        w = w * np.hanning(t)
    elif window.startswith("kaiser"):
        beta = float(window.split("=")[1]) if "=" in window else 8.6
        w = w * np.kaiser(t, beta)
    if normalize:
        w = w / np.sqrt(np.sum(np.abs(w) ** 2))
    n = x.shape[-1] + t - 1
    full = np.fft.ifft(np.fft.fft(x, n) * np.fft.fft(np.conj(w[::-1]), n))
    start, length = {"full": (0, n), "same": ((t - 1) // 2, x.shape[-1]),
                     "valid": (t - 1, x.shape[-1] - t + 1)}[mode]
    return full[..., start:start + length], w


class TestPulse(unittest.TestCase):
    def test_against_numpy(self):
        for mode in ("full", "same", "valid"):
            for window, norm in (("none", False), ("hamming", True), ("hann", False),
                                 ("kaiser:beta=5", True), ("kaiser", False)):
                x = signal((6, 900), True)
                w = signal(int(RNG.integers(1, 300)), True)
                ref, wn = pulse_reference(x, w, mode, window, norm)
                y = convoy.pulse_compress(x, w, mode=mode, window=window, normalize=norm)
                self.assertEqual(y.dtype, np.complex64)
                assert_close(self, y, ref, x, wn, what="%s %s %s" % (mode, window, norm))

    def test_batch_shapes(self):
        x = signal((2, 3, 500), True)
        w = signal(50, True)
        ref, _ = pulse_reference(x, w, "same")
        assert_close(self, convoy.pulse_compress(x, w, mode="same"), ref, x, w)
        y = convoy.pulse_compress(np.moveaxis(x, -1, 0), w, mode="same", axis=0)
        assert_close(self, y, np.moveaxis(ref, -1, 0), x, w)
        one = convoy.pulse_compress(x[0, 0], w)  # one pulse; real samples are converted
        assert_close(self, one, pulse_reference(x[0, 0], w, "full")[0], x, w)
        real = convoy.pulse_compress(x.real, w.real)
        assert_close(self, real, pulse_reference(x.real, w.real, "full")[0], x.real, w.real)

    def test_compressor_reuse(self):
        w = signal(64, True)
        with convoy.PulseCompressor(w, 1000, pulses=8, mode="valid", window="hann",
                                    normalize=True, engine="cpu") as p:
            self.assertEqual(p.output_len, 937)
            self.assertEqual(p.engine, "cpu")
            self.assertIn("cpu", p.describe())
            for _ in range(2):
                x = signal((8, 1000), True)
                ref, wn = pulse_reference(x, w, "valid", "hann", True)
                assert_close(self, p(x), ref, x, wn)
            with self.assertRaises(ValueError):
                p.run(signal((7, 1000), True))
        with self.assertRaises(ValueError):
            p.run(signal((8, 1000), True))
        x = signal((8, 1000), True)
        ref, _ = pulse_reference(x, w, "same")
        measured = convoy.pulse_compress(x, w, mode="same", engine="cpu", plan_effort=1)
        assert_close(self, measured, ref, x, w)

    def test_errors(self):
        with self.assertRaises(ConvoyError) as e:
            convoy.pulse_compress(signal((4, 100), True), signal(200, True))
        self.assertIn("100", e.exception.message)
        self.assertIn("200", e.exception.message)
        with self.assertRaises(ConvoyError) as e:
            convoy.pulse_compress(signal((4, 100), True), signal(20, True), window="triangle")
        self.assertIn("triangle", str(e.exception))
        with self.assertRaises(ConvoyError) as e:
            convoy.pulse_compress(signal((4, 100), True), signal(20, True), engine="cpu-direct")
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_UNSUPPORTED)
        with self.assertRaises(ValueError):
            convoy.pulse_compress(signal((4, 100), True), signal(20, True), mode="centre")
        with self.assertRaises(ConvoyError) as e:
            convoy.pulse_compress(signal((4, 100), True), signal(20, True), plan_effort=2)
        self.assertIn("plan_effort 2", str(e.exception))
        if convoy.gpu_count() == 0:
            with self.assertRaises(ConvoyError) as e:
                convoy.pulse_compress(signal((4, 100), True), signal(20, True), engine="gpu")
            self.assertIn(e.exception.status, (convoy.lib.CONVOY_ERR_UNSUPPORTED,
                                               convoy.lib.CONVOY_ERR_NO_DEVICE))
            self.assertIn("gpu", str(e.exception))


class FakeDeviceArray:
    """An object that says it lives in GPU memory, as CuPy's arrays do."""

    def __init__(self, shape):
        self.shape = shape
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (0, False),
                                         "version": 3, "strides": None, "stream": 1}


class TestDeviceArraysWithoutCuda(unittest.TestCase):
    """GPU arrays on a library without CUDA: a clear error, not a crash."""

    def setUp(self):
        if convoy.built_with_cuda():
            self.skipTest("a CUDA build: tests/python/test_convoy_cuda.py covers GPU arrays")

    def check(self, call):
        with self.assertRaises(ConvoyError) as e:
            call()
        self.assertEqual(e.exception.status, convoy.lib.CONVOY_ERR_UNSUPPORTED)
        self.assertIn("CUDA build", str(e.exception))

    def test_errors(self):
        x = FakeDeviceArray((100,))
        self.check(lambda: convoy.convolve(x, np.ones(3)))
        self.check(lambda: convoy.correlate(x, FakeDeviceArray((3,))))
        self.check(lambda: convoy.pulse_compress(x, np.ones(3)))
        with convoy.Stream(np.ones(3)) as s:
            self.check(lambda: s.process(x))
        with convoy.PulseCompressor(np.ones(3), 100) as p:
            self.check(lambda: p.run(x))


if __name__ == "__main__":
    unittest.main(verbosity=1)
