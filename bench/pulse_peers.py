#!/usr/bin/env python3
"""Pulse compression through CuPy, the peer of bench/pulse_bench.c.

Same work as pulse_bench: C channels x P pulses x L samples of complex64 on
the GPU, correlated with a T-sample chirp (hamming window, unit energy),
full output (L + T - 1 per pulse). Three ways:

  fftconvolve   cupyx.scipy.signal.fftconvolve(x, conj(w[::-1])) over the
                last axis
  correlate     cupyx.scipy.signal.correlate(x, w, method='fft')
  pipeline      hand-written: H = fft(conj(w[::-1]), N) once; per batch
                fft(x, N) over all pulses, multiply by H, ifft, slice
                (N = next_fast_len(L + T - 1), cuFFT plan cached by CuPy)

Device-resident times come from CUDA events, host to host from the wall
clock around cp.asarray(host) ... cp.asnumpy(out); median of the runs.
The slice at the end stays a view: the peers are not charged for copying
the output window into a contiguous array (convoy is).

usage: pulse_peers.py [C P L T [runs]]
"""
import sys
import time

import numpy as np

try:
    import cupy as cp
    import cupyx.scipy.signal as cps
    import cupyx.scipy.fft as cpfft
except ImportError as e:  # pragma: no cover
    print(f"pulse_peers: CuPy not available ({e})")
    sys.exit(0)


def gpu_time(fn, runs):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(2):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(runs):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3)
    return float(np.median(times))


def wall_time(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    c, p, l, t = 16, 128, 9000, 1000
    runs = 20
    if len(sys.argv) >= 5:
        c, p, l, t = (int(v) for v in sys.argv[1:5])
    if len(sys.argv) >= 6:
        runs = int(sys.argv[5])
    j = np.arange(t)
    w = np.exp(1j * np.pi * j * j / t) * np.hamming(t)
    w = (w / np.sqrt(np.sum(np.abs(w) ** 2))).astype(np.complex64)
    rng = np.random.default_rng(1)
    x_host = (rng.uniform(-1, 1, (c, p, l)) + 1j * rng.uniform(-1, 1, (c, p, l))).astype(np.complex64)
    x = cp.asarray(x_host)
    wd = cp.asarray(w)
    h = cp.conj(wd[::-1])
    n = cpfft.next_fast_len(l + t - 1)
    H = cp.fft.fft(h, n)
    full = l + t - 1

    def pipeline(xx):
        return cp.fft.ifft(cp.fft.fft(xx, n, axis=-1) * H, axis=-1)[..., :full]

    def fftconvolve(xx):
        return cps.fftconvolve(xx, h[None, None, :], mode="full", axes=-1)

    def correlate(xx):
        return cps.correlate(xx, wd[None, None, :], mode="full", method="fft")

    ref = pipeline(x)
    samples = c * p * l
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    print(f"device: {dev['name'].decode()}, CuPy {cp.__version__}")
    print(f"case: {c} channels x {p} pulses x {l} samples complex64, template {t}, "
          f"full output, N={n}; median of {runs} runs")
    for name, fn in (("pipeline", pipeline), ("fftconvolve", fftconvolve),
                     ("correlate", correlate)):
        try:
            y = fn(x)
            err = float(cp.linalg.norm(y - ref) / cp.linalg.norm(ref))
            s = gpu_time(lambda: fn(x), runs)
            print(f"cupy {name:<12} device-resident {1e3 * s:9.3f} ms  "
                  f"{samples / s / 1e9:8.3f} GS/s  (vs pipeline {err:.2g})")
        except Exception as e:  # a peer that fails is reported, not fatal
            print(f"cupy {name:<12} failed: {type(e).__name__}: {e}")
    hr = max(3, runs // 4)
    s = wall_time(lambda: cp.asnumpy(pipeline(cp.asarray(x_host))), hr)
    print(f"cupy {'pipeline':<12} host->host      {1e3 * s:9.3f} ms  {samples / s / 1e9:8.3f} GS/s")


if __name__ == "__main__":
    main()
