#!/usr/bin/python3
"""qa_switch.py - changing taps (and the center frequency) while a flowgraph
runs: set_taps()/set_center_freq() take effect at a boundary the block tags,
and the output is the float64 reference with the change exactly there (the
new filter over the whole history); a tag of the block's tag key switches at
the tagged sample (rounded up to a multiple of D), taps longer than any
before included."""
import unittest

from convoy_testing import (convoy, fir_ref, gr, noise, np, passthrough, rel_err, run_block,
                            tags_of, xlate_ref)

import pmt  # noqa: E402

TOL = 1e-5
FS = 2.4e6


def taps(n, cplx=False, seed=0):
    return noise(n, cplx, seed) / np.sqrt(n)


def tag(offset, key, value):
    t = gr.tag_t()
    t.offset, t.key, t.value = offset, pmt.intern(key), value
    return t


def at_sample(k, action, cplx=True):
    """A passthrough before the block that calls action() once k input items
    went by, handing on 64 items per call so that k falls mid-stream."""
    def before(tb, blk, src):
        p = passthrough(np.complex64 if cplx else np.float32, k, action)
        p.set_max_noutput_items(64)
        tb.keep_alive = p  # a Python block must outlive the run
        tb.disconnect(src, blk)
        tb.connect(src, p, blk)
    return before


class qa_switch(unittest.TestCase):

    def test_set_taps_fir(self):
        n = 30000
        for kind, cplx_x, cplx_h in (("ccf", True, False), ("fff", False, False),
                                     ("ccc", True, True)):
            x = noise(n, cplx_x, seed=1)
            for engine in ("cpu-direct", "cpu-fft"):
                for decim in (1, 3):
                    for n_old, n_new in ((65, 33), (65, 65), (65, 200)):
                        what = f"{kind} {engine} D={decim} {n_old}->{n_new}"
                        h0, h1 = taps(n_old, cplx_h, 1), taps(n_new, cplx_h, 2)
                        blk = getattr(convoy, "fir_filter_" + kind)(decim, h0.tolist(), engine)
                        y, tg = run_block(blk, x, before=at_sample(
                            10000, lambda: blk.set_taps(h1.tolist()), cplx_x))
                        sw = tags_of(tg, "convoy_taps")
                        self.assertEqual(len(sw), 1, what)
                        m, ntaps = sw[0]
                        self.assertEqual(ntaps, n_new, what)
                        # at the start of the block's next call, which is
                        # behind the passthrough (by as much as the buffers
                        # between them hold), never ahead of it
                        self.assertLessEqual(m * decim, 10000 + 64, what)
                        self.assertEqual(len(y), n // decim, what)
                        self.assertLess(rel_err(y, fir_ref(x, [(0, h0), (m, h1)], decim)), TOL,
                                        what)
                        self.assertEqual(list(blk.taps()), list(h1.astype(np.float32)
                                                                if not cplx_h else h1))

    def test_retune_xlating(self):
        n = 40000
        x = noise(n, True, seed=2)
        h = taps(48)
        for engine in ("cpu-direct", "cpu-fft"):
            for decim in (1, 4):
                blk = convoy.freq_xlating_fir_filter_ccf(decim, h.tolist(), 3e5, FS, engine)
                y, tg = run_block(blk, x, before=at_sample(
                    15000, lambda: blk.set_center_freq(-7.7e5)))
                ft = tags_of(tg, "freq")
                self.assertEqual(len(ft), 1)
                m, hz = ft[0]
                self.assertEqual(hz, -7.7e5)
                ref = xlate_ref(x, [(0, h, 3e5), (m, h, -7.7e5)], decim, FS)
                self.assertLess(rel_err(y, ref), TOL, f"{engine} D={decim}")
                # taps and frequency together
                h2 = taps(97, False, 5)
                blk = convoy.freq_xlating_fir_filter_ccf(decim, h.tolist(), 3e5, FS, engine)

                def both():
                    blk.set_taps(h2.tolist())
                    blk.set_center_freq(1.1e5)
                y, tg = run_block(blk, x, before=at_sample(20000, both))
                (m, hz), = tags_of(tg, "freq")
                (m2, nt), = tags_of(tg, "convoy_taps")
                self.assertEqual((m2, nt, hz), (m, 97, 1.1e5))
                ref = xlate_ref(x, [(0, h, 3e5), (m, h2, 1.1e5)], decim, FS)
                self.assertLess(rel_err(y, ref), TOL, f"{engine} D={decim} taps+freq")

    def test_tag_switches_at_the_tagged_sample(self):
        n = 24000
        x = noise(n, True, seed=3)
        h0, h1, h2 = taps(80, False, 1), taps(40, False, 2), taps(80, False, 3)
        for engine in ("cpu-direct", "cpu-fft"):
            for decim in (1, 3, 8):
                tags = [tag(5000, "newtaps", pmt.init_f32vector(len(h1), h1.tolist())),
                        tag(5001, "other", pmt.from_long(1)),
                        tag(12345, "newtaps", pmt.to_pmt([float(v) for v in h2]))]
                blk = convoy.fir_filter_ccf(decim, h0.tolist(), engine, -1, "newtaps")
                y, tg = run_block(blk, x, tags, upstream_max=1000)
                a1, a2 = -(-5000 // decim), -(-12345 // decim)  # rounded up
                self.assertEqual(tags_of(tg, "convoy_taps"), [(a1, 40), (a2, 80)])
                ref = fir_ref(x, [(0, h0), (a1, h1), (a2, h2)], decim)
                self.assertLess(rel_err(y, ref), TOL, f"{engine} D={decim}")

    def test_tag_retunes_xlating(self):
        n = 24000
        x = noise(n, True, seed=4)
        h = taps(60)
        h1 = taps(60, False, 9)
        tags = [tag(7001, "tune", pmt.from_double(-4e5)),
                tag(15000, "tune", pmt.init_f32vector(len(h1), h1.tolist()))]
        for decim in (1, 5):
            blk = convoy.freq_xlating_fir_filter_ccf(decim, h.tolist(), 2e5, FS, "auto", -1,
                                                     "tune")
            y, tg = run_block(blk, x, tags)
            a1, a2 = -(-7001 // decim), -(-15000 // decim)
            self.assertEqual(tags_of(tg, "freq"), [(a1, -4e5), (a2, -4e5)])
            ref = xlate_ref(x, [(0, h, 2e5), (a1, h, -4e5), (a2, h1, -4e5)], decim, FS)
            self.assertLess(rel_err(y, ref), TOL, f"D={decim}")

    def test_longer_taps_by_tag(self):
        """Taps longer than any before are primed from the input GNU Radio
        keeps before each call, so they switch at the tagged item however
        the scheduler cuts the stream (one item a call included)."""
        n = 20000
        x = noise(n, True, seed=5)
        h0, h1 = taps(10), taps(500, False, 7)
        for engine in ("cpu-direct", "cpu-fft"):
            for upstream_max in (1000, 1, 333):
                what = f"{engine} upstream_max={upstream_max}"
                blk = convoy.fir_filter_ccf(1, h0.tolist(), engine, -1, "t")
                y, tg = run_block(blk, x, [tag(6000, "t", pmt.init_f32vector(500, h1.tolist()))],
                                  upstream_max=upstream_max)
                self.assertEqual(tags_of(tg, "convoy_taps"), [(6000, 500)], what)
                self.assertLess(rel_err(y, fir_ref(x, [(0, h0), (6000, h1)], 1)), TOL, what)

    def test_bad_tag_is_ignored(self):
        x = noise(5000, True, seed=6)
        h = taps(16)
        blk = convoy.fir_filter_ccf(1, h.tolist(), "auto", -1, "t")
        y, tg = run_block(blk, x, [tag(100, "t", pmt.intern("not taps")),
                                   tag(200, "t", pmt.init_f32vector(0, []))])
        self.assertEqual(tags_of(tg, "convoy_taps"), [])
        self.assertLess(rel_err(y, fir_ref(x, [(0, h)], 1)), TOL)


if __name__ == "__main__":
    unittest.main(verbosity=1)
