#!/usr/bin/env python3
"""Times scipy.signal.oaconvolve and fftconvolve on float32 arrays in memory.

For each tap count: one untimed call, then RUNS timed calls of
f(x, h) (mode 'full', float32 in and out); only the call is timed
(time.perf_counter). Prints one tab-separated line per function and tap count:
  scipy.signal.NAME  TAPS  median_s  min_s  max_s

usage: scipy_conv.py DIR RUNS TAPS...   (DIR from make_inputs.py)
"""
import statistics
import sys
import time

import numpy as np
import scipy.signal


def main() -> None:
    d, runs, taps = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]
    x = np.load(f"{d}/signal.npy")
    for n in taps:
        h = np.load(f"{d}/taps-{n}.npy")
        for name in ("oaconvolve", "fftconvolve"):
            f = getattr(scipy.signal, name)
            y = f(x, h)
            assert y.dtype == np.float32 and y.shape[0] == x.shape[0] + n - 1
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                f(x, h)
                times.append(time.perf_counter() - t0)
            print(f"scipy.signal.{name}\t{n}\t{statistics.median(times):.6f}\t"
                  f"{min(times):.6f}\t{max(times):.6f}", flush=True)


if __name__ == "__main__":
    main()
