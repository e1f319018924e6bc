#!/usr/bin/python3
"""qa_fir_filter.py - convoy.fir_filter_fff/ccf/ccc in flowgraphs: against GNU
Radio's fir_filter_xxx and fft_filter_xxx on the same taps and decimation and
against a float64 reference; the same output (bitwise) however the scheduler
cuts the stream; tags where GNU Radio's filter puts them; every held-back
output written at the end; bad parameters refused at construction."""
import unittest

from convoy_testing import blocks, convoy, fir_ref, gr, noise, np, rel_err, run_block

from gnuradio import filter  # noqa: E402  (after the skip check)
import pmt  # noqa: E402

# float32 rounding of sums of up to 1024 products, relative to the output's RMS
# (GNU Radio's own filters are off the float64 reference by up to about 1.5e-6)
TOL = 1e-5


def taps_for(kind, ntaps, seed=99):
    return noise(ntaps, kind == "ccc", seed) / np.sqrt(ntaps)


class qa_fir_filter(unittest.TestCase):

    def check_against_peers(self, kind, ntaps, decim, engine, n):
        x = noise(n, kind != "fff", seed=ntaps + decim)
        h = taps_for(kind, ntaps)
        blk = getattr(convoy, "fir_filter_" + kind)(decim, h.tolist(), engine)
        if engine not in ("auto", "cpu"):
            self.assertEqual(blk.engine(), engine)
        y, _ = run_block(blk, x)
        what = f"{kind} taps={ntaps} D={decim} engine={blk.engine()}"
        self.assertEqual(len(y), n // decim, what)
        self.assertLess(rel_err(y, fir_ref(x, [(0, h)], decim)), TOL, what)
        g, _ = run_block(getattr(filter, "fir_filter_" + kind)(decim, h.tolist()), x)
        self.assertEqual(len(g), len(y), what)
        self.assertLess(rel_err(y, g), 2 * TOL, what)
        # fft_filter stops at its last whole block: the samples both wrote
        f, _ = run_block(getattr(filter, "fft_filter_" + kind)(decim, h.tolist(), 1), x)
        self.assertLessEqual(len(f), len(y), what)
        if len(f):
            self.assertLess(rel_err(y[:len(f)], f), 2 * TOL, what)

    def test_against_gnuradio_and_numpy(self):
        for kind in ("fff", "ccf", "ccc"):
            for ntaps in (1, 17, 128, 1024):
                for decim in (1, 3, 8):
                    for engine in ("cpu-direct", "cpu-fft", "auto"):
                        with self.subTest(kind=kind, ntaps=ntaps, decim=decim, engine=engine):
                            self.check_against_peers(kind, ntaps, decim, engine, 12007)

    def test_short_inputs(self):
        """Fewer items than taps, and not a multiple of D: floor(N / D) outputs,
        the first ones of the filter."""
        h = taps_for("ccf", 300)
        for engine in ("cpu-direct", "cpu-fft"):
            for n in (1, 2, 5, 299, 301):
                for decim in (1, 3):
                    x = noise(n, True, seed=n)
                    y, _ = run_block(convoy.fir_filter_ccf(decim, h.tolist(), engine), x)
                    self.assertEqual(len(y), n // decim)
                    self.assertLess(rel_err(y, fir_ref(x, [(0, h)], decim)), TOL)

    def test_end_of_stream_loses_nothing(self):
        """The FFT engine holds back up to a block of input; when the upstream
        ends (here a head block) every output is still written."""
        h = taps_for("ccf", 257)
        blk = convoy.fir_filter_ccf(1, h.tolist(), "cpu-fft")
        lat = blk.latency()
        self.assertGreater(lat, 0)
        for n in (lat, lat + 1, 3 * lat + 7):
            for decim in (1, 5):
                x = noise(n, True, seed=n)
                tb = gr.top_block()
                src = blocks.vector_source_c(np.tile(x, 2).tolist(), False)
                head = blocks.head(gr.sizeof_gr_complex, n)
                blk = convoy.fir_filter_ccf(decim, h.tolist(), "cpu-fft")
                sink = blocks.vector_sink_c()
                tb.connect(src, head, blk, sink)
                tb.run()
                y = np.array(sink.data())
                self.assertEqual(len(y), n // decim)
                self.assertLess(rel_err(y, fir_ref(x, [(0, h)], decim)), TOL)

    def test_scheduler_does_not_change_output(self):
        """convoy streams are chunk-invariant: bitwise the same output whatever
        noutput_items, output multiple or input chunks the scheduler uses."""
        n = 20011
        x = noise(n, True, seed=5)
        h = taps_for("ccf", 200)

        def mult(m):
            return lambda tb, blk, src: blk.set_output_multiple(m)

        def blk_max(m):
            return lambda tb, blk, src: blk.set_max_noutput_items(m)

        def min_buf(m):
            return lambda tb, blk, src: blk.set_min_output_buffer(m)

        for engine in ("cpu-direct", "cpu-fft"):
            for decim in (1, 3):
                make = lambda: convoy.fir_filter_ccf(decim, h.tolist(), engine)  # noqa: E731
                base, _ = run_block(make(), x)
                self.assertEqual(len(base), n // decim)
                variants = [dict(max_noutput_items=m) for m in (1, 7, 64, 1000)]
                variants += [dict(upstream_max=m) for m in (1, 5, 333)]
                variants += [dict(before=mult(5)), dict(before=mult(4096)),
                             dict(before=blk_max(3)), dict(before=min_buf(1 << 16))]
                for v in variants:
                    with self.subTest(engine=engine, decim=decim, variant=str(v)):
                        y, _ = run_block(make(), x, **v)
                        self.assertTrue(np.array_equal(y, base), f"{v}: output differs")

    def test_tags_land_as_gnuradio_puts_them(self):
        n = 9000
        x = noise(n, True, seed=7)
        h = taps_for("ccf", 64)
        offsets = [0, 1, 2, 3, 5, 17, 1000, 4093, n - 1]
        tags = []
        for k in offsets:
            t = gr.tag_t()
            t.offset, t.key, t.value = k, pmt.intern("mark"), pmt.from_long(k)
            tags.append(t)
        for decim in (1, 3, 8):
            _, gt = run_block(filter.fir_filter_ccf(decim, h.tolist()), x, tags)
            want = sorted((t.offset, pmt.to_long(t.value)) for t in gt)
            # a tag that rounds to the output after the last one goes nowhere
            self.assertGreaterEqual(len(want), len(offsets) - 1)
            for engine in ("cpu-direct", "cpu-fft"):
                _, ct = run_block(convoy.fir_filter_ccf(decim, h.tolist(), engine), x, tags)
                got = sorted((t.offset, pmt.to_long(t.value)) for t in ct
                             if pmt.symbol_to_string(t.key) == "mark")
                self.assertEqual(got, want, f"D={decim} {engine}")

    def test_bad_parameters(self):
        h = [1.0, 0.5]
        cases = [
            (lambda: convoy.fir_filter_ccf(1, []), "empty"),
            (lambda: convoy.fir_filter_fff(1, []), "empty"),
            (lambda: convoy.fir_filter_ccc(1, []), "empty"),
            (lambda: convoy.fir_filter_ccf(0, h), "decimation"),
            (lambda: convoy.fir_filter_ccf(-2, h), "decimation"),
            (lambda: convoy.fir_filter_ccf(4097, h), "decimation"),
            (lambda: convoy.fir_filter_ccf(1, h, "warp-drive"), "unknown engine"),
            (lambda: convoy.fir_filter_fff(1, h, ""), "unknown engine"),
            (lambda: convoy.fir_filter_ccf(1, [1.0, float("nan")]), "not finite"),
            (lambda: convoy.fir_filter_ccc(1, [1j, complex(float("inf"), 0)]), "not finite"),
            (lambda: convoy.fir_filter_ccf(1, h, "auto", -2), "device"),
            (lambda: convoy.fir_filter_ccf(1, h, "auto", -1, "", -1), "nthreads"),
        ]
        for make, words in cases:
            with self.assertRaises(ValueError) as cm:
                make()
            self.assertIn(words, str(cm.exception))
        blk = convoy.fir_filter_ccf(1, h)
        with self.assertRaises(ValueError):
            blk.set_taps([])
        self.assertEqual(blk.taps(), h)

    def test_gpu_engine_without_gpu_falls_back(self):
        if convoy.gpu_count() > 0:
            self.skipTest("a GPU is present")
        for engine, cpu in (("gpu", ("cpu-direct", "cpu-fft")), ("gpu-fft", ("cpu-fft",)),
                            ("gpu-direct", ("cpu-direct",))):
            blk = convoy.fir_filter_ccf(1, [1.0, 0.5], engine)
            self.assertIn(blk.engine(), cpu)
            y, _ = run_block(blk, np.ones(10, dtype=np.complex64))
            self.assertTrue(np.allclose(y, [1.0] + [1.5] * 9))


if __name__ == "__main__":
    unittest.main(verbosity=1)
