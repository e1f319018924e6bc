#!/usr/bin/env python3
"""Writes the inputs every peer in bench/peers.sh filters, into DIR:

  in-float.wav, in-pcm16.wav   FRAMES mono samples at 48 kHz, uniform noise in
                               [-0.25, 0.25) (seed 1), float32 and 16-bit PCM
  signal.npy                   the same samples, float32 (for scipy)
  taps-N.txt, taps-N.npy       an N-tap lowpass (scipy.signal.firwin, cutoff a
  ir-N.wav                     quarter of the sample rate), as text (one value
                               per line, 9 significant digits), float32 .npy
                               and a float32 mono WAV impulse response

usage: make_inputs.py DIR FRAMES TAPS...
"""
import sys

import numpy as np
import scipy.io.wavfile
import scipy.signal

RATE = 48000


def main() -> None:
    out, frames, taps = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]
    x = np.random.default_rng(1).uniform(-0.25, 0.25, frames).astype(np.float32)
    np.save(f"{out}/signal.npy", x)
    scipy.io.wavfile.write(f"{out}/in-float.wav", RATE, x)
    pcm = np.clip(np.round(x * 32768.0), -32768, 32767).astype(np.int16)
    scipy.io.wavfile.write(f"{out}/in-pcm16.wav", RATE, pcm)
    for n in taps:
        h = scipy.signal.firwin(n, 0.5).astype(np.float32)
        np.save(f"{out}/taps-{n}.npy", h)
        np.savetxt(f"{out}/taps-{n}.txt", h, fmt="%.9g")
        scipy.io.wavfile.write(f"{out}/ir-{n}.wav", RATE, h)


if __name__ == "__main__":
    main()
