"""convoy_testing.py - what the QA flowgraphs (qa_*.py) share: the skip rule,
running a block between a vector source and a vector sink, and float64
references of the blocks' outputs."""
import os
import sys

try:
    import numpy as np
    from gnuradio import blocks, gr, gr_unittest
except ImportError as e:  # no GNU Radio or numpy for this Python: skipped
    print(f"skipped: {e}")
    sys.exit(77)

# A module that was built but does not import is a failure, not a skip.
from gnuradio import convoy  # noqa: E402

__all__ = ["np", "gr", "gr_unittest", "blocks", "convoy", "run_block", "rel_err", "fir_ref",
           "xlate_ref", "matched_ref", "noise", "passthrough", "tags_of"]


def noise(n, complex_=True, seed=1):
    rng = np.random.default_rng(seed)
    if complex_:
        return ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.5).astype(np.complex64)
    return (rng.standard_normal(n) * 0.5).astype(np.float32)


class passthrough(gr.sync_block):
    """Copies its input; calls action() once it has passed `at` items."""

    def __init__(self, dtype, at=None, action=None):
        gr.sync_block.__init__(self, "convoy_qa_passthrough", [dtype], [dtype])
        self.at, self.action, self.fired = at, action, False

    def work(self, input_items, output_items):
        n = len(input_items[0])
        output_items[0][:] = input_items[0]
        if self.action and not self.fired and self.nitems_read(0) + n >= self.at:
            self.action()
            self.fired = True
        return n


def run_block(block, x, tags=(), max_noutput_items=None, upstream_max=None, before=None):
    """x -> [passthrough with at most upstream_max items per call] -> block ->
    sink; returns (output array, output tags). before(tb, block, src) may
    change the graph's scheduling before it runs."""
    x = np.asarray(x)
    cplx = np.iscomplexobj(x)
    tb = gr.top_block()
    src = (blocks.vector_source_c if cplx else blocks.vector_source_f)(x.tolist(), False, 1,
                                                                       list(tags))
    head = src
    if upstream_max:
        head = blocks.copy(gr.sizeof_gr_complex if cplx else gr.sizeof_float)
        head.set_max_noutput_items(upstream_max)
        tb.connect(src, head)
    out_cplx = cplx or isinstance(block, (convoy.freq_xlating_fir_filter_ccf,
                                          convoy.freq_xlating_fir_filter_ccc))
    sink = blocks.vector_sink_c() if out_cplx else blocks.vector_sink_f()
    tb.connect(head, block, sink)
    if before:
        before(tb, block, head)
    if max_noutput_items:
        tb.run(max_noutput_items)
    else:
        tb.run()
    return np.array(sink.data(), dtype=np.complex64 if out_cplx else np.float32), sink.tags()


def tags_of(tags, key):
    import pmt
    return [(t.offset, pmt.to_python(t.value)) for t in tags if pmt.symbol_to_string(t.key) == key]


def rel_err(a, ref):
    """Largest error relative to the reference's RMS."""
    a = np.asarray(a, dtype=np.complex128)
    ref = np.asarray(ref, dtype=np.complex128)
    assert len(a) == len(ref), f"lengths {len(a)} and {len(ref)}"
    if len(ref) == 0:
        return 0.0
    rms = np.sqrt(np.mean(np.abs(ref) ** 2)) or 1.0
    return float(np.max(np.abs(a - ref)) / rms)


def fir_ref(x, segments, decim):
    """Output n = sum_k h[k] x[n D - k] in float64, h the taps of the segment
    (first output index, taps) that holds n; every segment filters the whole
    history (a switch keeps the past input)."""
    x = np.asarray(x, dtype=np.complex128)
    n_out = len(x) // decim
    out = np.zeros(n_out, dtype=np.complex128)
    for i, (m0, h) in enumerate(segments):
        m1 = segments[i + 1][0] if i + 1 < len(segments) else n_out
        if m1 <= m0:
            continue
        y = np.convolve(x[:m1 * decim], np.asarray(h, dtype=np.complex128))[:m1 * decim:decim]
        out[m0:m1] = y[m0:m1]
    return out


def xlate_ref(x, segments, decim, fs):
    """GNU Radio's freq_xlating_fir_filter in float64: segments of (first output
    index, taps, center frequency Hz). Rotator phase phi (cycles) starts at
    f (ntaps - 1) / 2, advances f per input sample, and at a switch moves by
    (f_new - f_old) (ntaps_new - 1) / 2."""
    x = np.asarray(x, dtype=np.complex128)
    n_out = len(x) // decim
    out = np.zeros(n_out, dtype=np.complex128)
    phi = a_start = f_old = None
    for i, (m0, h, fc) in enumerate(segments):
        m1 = segments[i + 1][0] if i + 1 < len(segments) else n_out
        h = np.asarray(h, dtype=np.complex128)
        f = fc / fs
        g = (len(h) - 1) / 2.0
        a = m0 * decim
        if i == 0:
            phi_a = f * g
        else:
            phi_a = phi + f_old * (a - a_start) + (f - f_old) * g
        phi, a_start, f_old = phi_a, a, f
        if m1 <= m0:
            continue
        rot = h * np.exp(2j * np.pi * f * np.arange(len(h)))
        y = np.convolve(x[:m1 * decim], rot)[:m1 * decim:decim]
        k = np.arange(m1) * decim
        out[m0:m1] = (y * np.exp(-2j * np.pi * (phi_a + f * (k - a))))[m0:m1]
    return out


def matched_ref(x, template, window="none", normalize=False, decim=1, beta=8.6):
    """numpy.correlate(x, w, "full")[:len(x)][::D], w the windowed (numpy's
    symmetric windows) and optionally unit-energy template."""
    w = np.asarray(template, dtype=np.complex128)
    t = len(w)
    if window == "hamming":
        w = w * np.hamming(t)
    elif window in ("hann", "hanning"):
        w = w * np.hanning(t)
    elif window.startswith("kaiser"):
        if ":beta=" in window:
            beta = float(window.split("=", 1)[1])
        w = w * np.kaiser(t, beta)
    if normalize:
        w = w / np.sqrt(np.sum(np.abs(w) ** 2))
    full = np.correlate(np.asarray(x, dtype=np.complex128), w, "full")
    return full[:len(x)][::decim][:len(x) // decim]
