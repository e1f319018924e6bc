#!/usr/bin/python3
"""gnuradio_fft_filter.py - GNU Radio's FFT filter on a cf32 file, file to file.

Flowgraph: blocks.file_source(complex) -> filter.fft_filter_ccc(decimation 1,
taps, nthreads) -> blocks.file_sink, or fft_filter_ccf with --real (complex
signal, real taps: the taps' real parts). Taps are read from a raw complex64
file (.cf32, as convoy reads them). Prints the seconds tb.run() took.

usage: gnuradio_fft_filter.py IN OUT TAPS.cf32 [--nthreads N] [--real]
"""
import argparse
import sys
import time

import numpy as np
from gnuradio import blocks, filter, gr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("taps")
    ap.add_argument("--nthreads", type=int, default=1)
    ap.add_argument("--real", action="store_true", help="fft_filter_ccf with the real parts")
    a = ap.parse_args()
    taps = np.fromfile(a.taps, dtype=np.complex64)
    tb = gr.top_block()
    src = blocks.file_source(gr.sizeof_gr_complex, a.input, False)
    if a.real:
        filt = filter.fft_filter_ccf(1, [float(t) for t in taps.real], a.nthreads)
    else:
        filt = filter.fft_filter_ccc(1, [complex(t) for t in taps], a.nthreads)
    sink = blocks.file_sink(gr.sizeof_gr_complex, a.output, False)
    sink.set_unbuffered(False)
    tb.connect(src, filt, sink)
    t0 = time.perf_counter()
    tb.run()
    print(f"{time.perf_counter() - t0:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
