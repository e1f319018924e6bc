#!/usr/bin/python3
"""qa_freq_xlating.py - convoy.freq_xlating_fir_filter_ccf/ccc: against GNU
Radio's freq_xlating_fir_filter_ccf/ccc on the same taps, center frequency
and decimation, and against a float64 reference of GNU Radio's definition
(rotator phase included); bitwise the same output whatever the scheduler
does; the freq message port; bad parameters."""
import unittest

from convoy_testing import convoy, noise, np, rel_err, run_block, tags_of, xlate_ref

from gnuradio import filter  # noqa: E402
import pmt  # noqa: E402

FS = 1e6
TOL = 1e-5  # float32 rounding, relative to the output's RMS


def taps_for(kind, ntaps, seed=3):
    # a lowpass-like filter keeps the output's RMS away from 0
    h = noise(ntaps, kind == "ccc", seed) / np.sqrt(ntaps)
    return (h + np.hanning(ntaps + 2)[1:-1] / ntaps * 2).astype(h.dtype)


class qa_freq_xlating(unittest.TestCase):

    def test_against_gnuradio_and_numpy(self):
        n = 30011
        x = noise(n, True, seed=11)
        for kind in ("ccf", "ccc"):
            for ntaps in (1, 64, 301):
                h = taps_for(kind, ntaps)
                for fc in (0.0, 123456.7, -271828.0, 0.5 * FS, 1.3e6, -2.45e6):
                    for decim in (1, 4, 7):
                        for engine in ("cpu-direct", "cpu-fft"):
                            what = f"{kind} taps={ntaps} fc={fc} D={decim} {engine}"
                            blk = getattr(convoy, "freq_xlating_fir_filter_" + kind)(
                                decim, h.tolist(), fc, FS, engine)
                            y, _ = run_block(blk, x)
                            self.assertEqual(len(y), n // decim, what)
                            ref = xlate_ref(x, [(0, h, fc)], decim, FS)
                            self.assertLess(rel_err(y, ref), TOL, what)
                        # GNU Radio's own: it rotates its taps and steps its
                        # rotator with float phases (2 pi f D rounded to
                        # float, a float complex exp), so it drifts from the
                        # exact phase by up to about 2e-7 rad per radian of
                        # phase and per output; compared over its first 500
                        # outputs with that allowance.
                        g, _ = run_block(getattr(filter, "freq_xlating_fir_filter_" + kind)(
                            decim, h.tolist(), fc, FS), x)
                        self.assertEqual(len(g), len(y), what)
                        m = min(len(g), 500)
                        drift = 2e-7 * (2 * np.pi * abs(fc / FS) * (ntaps + m * decim) + m)
                        self.assertLess(rel_err(y[:m], g[:m]), 4 * TOL + drift, what)

    def test_long_stream_phase(self):
        """The phase comes from the absolute index in double precision: after
        2^21 samples the output is still the reference to float rounding."""
        n = 1 << 21
        x = noise(n, True, seed=12)
        h = taps_for("ccf", 33)
        fc = 333333.3
        y, _ = run_block(convoy.freq_xlating_fir_filter_ccf(8, h.tolist(), fc, FS), x)
        ref = xlate_ref(x, [(0, h, fc)], 8, FS)
        self.assertLess(rel_err(y[-1000:], ref[-1000:]), TOL)

    def test_scheduler_does_not_change_output(self):
        n = 20011
        x = noise(n, True, seed=13)
        h = taps_for("ccf", 150)
        for engine in ("cpu-direct", "cpu-fft"):
            make = lambda: convoy.freq_xlating_fir_filter_ccf(4, h.tolist(), 1.7e5, FS, engine)  # noqa: E731
            base, _ = run_block(make(), x)
            for v in (dict(max_noutput_items=1), dict(max_noutput_items=33),
                      dict(upstream_max=3), dict(upstream_max=777),
                      dict(before=lambda tb, b, s: b.set_output_multiple(7))):
                y, _ = run_block(make(), x, **v)
                self.assertTrue(np.array_equal(y, base), f"{engine} {v}")

    def test_freq_message(self):
        """A message on the freq port retunes at a boundary tagged "freq"; the
        output is the reference with the retune there."""
        n = 40000
        x = noise(n, True, seed=14)
        h = taps_for("ccf", 41)
        blk = convoy.freq_xlating_fir_filter_ccf(2, h.tolist(), 1e5, FS)
        blk.to_basic_block()._post(pmt.intern("freq"),
                                   pmt.cons(pmt.intern("freq"), pmt.from_double(-2e5)))
        y, tags = run_block(blk, x, upstream_max=500)
        freq_tags = tags_of(tags, "freq")
        self.assertEqual(len(freq_tags), 1, freq_tags)
        m, hz = freq_tags[0]
        self.assertEqual(hz, -2e5)
        self.assertEqual(blk.center_freq(), -2e5)
        ref = xlate_ref(x, [(0, h, 1e5), (m, h, -2e5)], 2, FS)
        self.assertLess(rel_err(y, ref), TOL)

    def test_bad_parameters(self):
        h = [1.0, 0.5]
        for make, words in (
                (lambda: convoy.freq_xlating_fir_filter_ccf(1, h, 0.0, 0.0), "sampling_freq"),
                (lambda: convoy.freq_xlating_fir_filter_ccf(1, h, 0.0, -1.0), "sampling_freq"),
                (lambda: convoy.freq_xlating_fir_filter_ccc(1, h, float("nan"), FS), "center_freq"),
                (lambda: convoy.freq_xlating_fir_filter_ccf(1, [], 0.0, FS), "empty"),
                (lambda: convoy.freq_xlating_fir_filter_ccf(0, h, 0.0, FS), "decimation"),
                (lambda: convoy.freq_xlating_fir_filter_ccc(1, h, 0.0, FS, "fast"), "unknown engine")):
            with self.assertRaises(ValueError) as cm:
                make()
            self.assertIn(words, str(cm.exception))
        blk = convoy.freq_xlating_fir_filter_ccf(1, h, 0.0, FS)
        with self.assertRaises(ValueError):
            blk.set_center_freq(float("inf"))


if __name__ == "__main__":
    unittest.main(verbosity=1)
