#!/usr/bin/python3
"""qa_example_grc.py - examples/convoy_xlate_cu8.grc compiles with grcc (with
grc/ on GRC_BLOCKS_PATH) and its generated Python runs: a cu8 capture through
the convoy frequency-translating filter into a cf32 file, for a bounded
number of samples and for the whole file, equal to the float64 reference."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from convoy_testing import noise, np, rel_err, xlate_ref

from gnuradio.filter import firdes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.environ.get("CONVOY_GR_EXAMPLES", os.path.join(HERE, "..", "..", "examples"))
GRC = os.path.join(EXAMPLES, "convoy_xlate_cu8.grc")
FS, FC, DECIM = 2.4e6, 300e3, 8


class qa_example_grc(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not shutil.which("grcc"):
            raise unittest.SkipTest("no grcc")
        cls.dir = tempfile.mkdtemp(prefix="convoy-grc-")
        r = subprocess.run(["grcc", "-o", cls.dir, GRC], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            raise AssertionError(f"grcc failed:\n{r.stdout}\n{r.stderr}")
        cls.script = os.path.join(cls.dir, "convoy_xlate_cu8.py")
        # a capture: a tone at +300 kHz (the channel), one at -500 kHz, noise
        n = 1 << 18
        k = np.arange(n)
        x = (0.5 * np.exp(2j * np.pi * FC / FS * k) + 0.3 * np.exp(-2j * np.pi * 5e5 / FS * k)
             + noise(n, True, seed=31) * 0.05)
        iq = np.empty(2 * n)
        iq[0::2], iq[1::2] = x.real, x.imag
        codes = np.clip(np.round(iq * 128 + 128), 0, 255).astype(np.uint8)
        cls.capture = os.path.join(cls.dir, "capture.cu8")
        codes.tofile(cls.capture)
        xs = (codes.astype(np.float64) - 128) / 128
        cls.x = xs[0::2] + 1j * xs[1::2]
        cls.taps = np.array(firdes.low_pass(1.0, FS, 0.4 * FS / DECIM, 0.1 * FS / DECIM))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_example(self, *args):
        out = os.path.join(self.dir, "channel.cf32")
        r = subprocess.run([sys.executable, self.script, "-i", self.capture, "-o", out, *args],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, f"{r.stdout}\n{r.stderr}")
        return np.fromfile(out, dtype=np.complex64)

    def test_bounded(self):
        n = 200003
        y = self.run_example("-n", str(n), "-e", "cpu")
        self.assertEqual(len(y), n // DECIM)
        ref = xlate_ref(self.x[:n], [(0, self.taps, FC)], DECIM, FS)
        self.assertLess(rel_err(y, ref), 1e-5)
        # the +300 kHz tone is now at 0 Hz: a constant of about 0.5
        self.assertAlmostEqual(float(np.median(np.abs(y[100:]))), 0.5, delta=0.02)

    def test_whole_file(self):
        y = self.run_example()
        self.assertEqual(len(y), len(self.x) // DECIM)
        ref = xlate_ref(self.x, [(0, self.taps, FC)], DECIM, FS)
        self.assertLess(rel_err(y, ref), 1e-5)


if __name__ == "__main__":
    unittest.main(verbosity=1)
