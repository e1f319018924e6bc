#!/usr/bin/python3
"""qa_matched_filter.py - convoy.matched_filter_cc: numpy.correlate(x, w,
"full")[:len(x)] for every window and normalisation, GNU Radio's
fft_filter_ccc on the conjugated reversed template, the peak of an
occurrence T - 1 samples after its start, a new template by set_template()
and by tag, bad parameters."""
import unittest

from convoy_testing import convoy, gr, matched_ref, noise, np, rel_err, run_block, tags_of

from gnuradio import filter  # noqa: E402
import pmt  # noqa: E402

TOL = 1e-5  # float32 rounding of sums of up to 700 products, relative to the RMS


def chirp(t, seed=0):
    k = np.arange(t)
    return np.exp(1j * np.pi * 0.4 * k * k / t).astype(np.complex64)


class qa_matched_filter(unittest.TestCase):

    def test_against_numpy_correlate(self):
        n = 15000
        x = noise(n, True, seed=21)
        for t in (1, 13, 128, 700):
            w = noise(t, True, seed=t)
            for window in ("none", "hamming", "hann", "hanning", "kaiser", "kaiser:beta=3.5"):
                for normalize in (False, True):
                    for decim in (1, 4):
                        for engine in ("cpu-direct", "cpu-fft"):
                            what = f"T={t} {window} norm={normalize} D={decim} {engine}"
                            blk = convoy.matched_filter_cc(w.tolist(), window, normalize, decim,
                                                           engine)
                            y, _ = run_block(blk, x)
                            ref = matched_ref(x, w, window, normalize, decim)
                            self.assertEqual(len(y), n // decim, what)
                            self.assertLess(rel_err(y, ref), TOL, what)

    def test_against_gnuradio_fft_filter(self):
        n = 20000
        x = noise(n, True, seed=22)
        w = chirp(256)
        y, _ = run_block(convoy.matched_filter_cc(w.tolist()), x)
        g, _ = run_block(filter.fft_filter_ccc(1, np.conj(w[::-1]).tolist(), 1), x)
        self.assertLessEqual(len(g), len(y))
        self.assertLess(rel_err(y[:len(g)], g), 2 * TOL)

    def test_peak_alignment(self):
        """An occurrence starting at d peaks at output d + T - 1."""
        t = 200
        w = chirp(t)
        x = noise(12000, True, seed=23) * 0.05
        starts = (1000, 4321, 9000)
        for d in starts:
            x[d:d + t] += w
        y, _ = run_block(convoy.matched_filter_cc(w.tolist(), "hamming", True), x)
        mag = np.abs(y)
        for d in starts:
            self.assertEqual(int(np.argmax(mag[d:d + 2 * t])) + d, d + t - 1)

    def test_new_template(self):
        n = 20000
        x = noise(n, True, seed=24)
        w0, w1 = chirp(64), noise(90, True, seed=3)
        blk = convoy.matched_filter_cc(w0.tolist(), "hann", True, 1, "auto", -1, "tmpl")
        t = gr.tag_t()
        t.offset, t.key = 7777, pmt.intern("tmpl")
        t.value = pmt.init_c32vector(len(w1), w1.tolist())
        y, tg = run_block(blk, x, [t])
        self.assertEqual(tags_of(tg, "convoy_taps"), [(7777, 90)])
        r0 = matched_ref(x, w0, "hann", True)
        r1 = matched_ref(x, w1, "hann", True)
        ref = np.concatenate([r0[:7777], r1[7777:]])
        self.assertLess(rel_err(y, ref), TOL)
        blk.set_template(w1.tolist())
        self.assertEqual(len(blk.waveform()), 90)
        self.assertTrue(np.allclose(blk.taps(), np.conj(w1[::-1] * np.hanning(90)[::-1])
                                    / np.sqrt(np.sum(np.abs(w1 * np.hanning(90)) ** 2)),
                                    rtol=1e-5, atol=1e-7))

    def test_bad_parameters(self):
        w = chirp(16).tolist()
        for make, words in (
                (lambda: convoy.matched_filter_cc([]), "empty"),
                (lambda: convoy.matched_filter_cc(w, "triangle"), "window"),
                (lambda: convoy.matched_filter_cc(w, "kaiser:beta=99"), "beta"),
                (lambda: convoy.matched_filter_cc([0j, 0j], "none", True), "zero energy"),
                (lambda: convoy.matched_filter_cc(w, "none", False, 0), "decimation"),
                (lambda: convoy.matched_filter_cc(w, "none", False, 1, "nope"), "unknown engine"),
                (lambda: convoy.matched_filter_cc([complex(float("nan"), 0)]), "not finite")):
            with self.assertRaises(ValueError) as cm:
                make()
            self.assertIn(words, str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=1)
