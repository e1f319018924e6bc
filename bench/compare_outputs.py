#!/usr/bin/env python3
"""Checks that the peers compute the same thing: each output WAV given is
compared with the float64 convolution of the input WAV with the taps (.npy),
over the output's length (outputs without the ring-out tail). Prints, per
file: its length, the lag that best aligns it with the reference (0 means no
delay), the gain ratio and the relative L2 error at that lag.

usage: compare_outputs.py INPUT.wav TAPS.npy OUTPUT.wav...
"""
import sys
import warnings

import numpy as np
import scipy.io.wavfile
import scipy.signal


def read(path: str) -> np.ndarray:
    with warnings.catch_warnings():  # libsndfile's PEAK chunk is not known to scipy
        warnings.simplefilter("ignore", scipy.io.wavfile.WavFileWarning)
        _, data = scipy.io.wavfile.read(path)
    if data.dtype == np.int16:
        return data.astype(np.float64) / 32768.0
    return data.astype(np.float64)


def main() -> None:
    x = read(sys.argv[1])
    h = np.load(sys.argv[2]).astype(np.float64)
    ref = np.convolve(x, h)
    for path in sys.argv[3:]:
        y = read(path)
        n = min(len(y), len(ref))
        # The lag (output frame k holds reference frame k - lag) that best
        # aligns the two, searched over the filter's length: tools that
        # remove the group delay show a negative lag.
        c = scipy.signal.correlate(y[:n], ref[:n], mode="full", method="fft")
        mid = n - 1
        span = min(len(h), n - 1)
        lag = int(np.argmax(c[mid - span:mid + span + 1])) - span
        a = y[max(lag, 0):n] if lag >= 0 else y[:n + lag]
        b = ref[:len(a)] if lag >= 0 else ref[-lag:-lag + len(a)]
        err = np.linalg.norm(a - b) / np.linalg.norm(b)
        gain = np.dot(a, b) / np.dot(b, b)
        print(f"{path}\tframes={len(y)} (input {len(x)})\tlag={lag}\t"
              f"gain={gain:.6f}\trel_l2={err:.2e}")

if __name__ == "__main__":
    main()
