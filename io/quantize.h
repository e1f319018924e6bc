/*
 * quantize.h - float samples to integer codes with saturation, clip counting,
 * peak tracking and optional TPDF dither. Internal to convoy_io.
 *
 * The rule (rounding, saturation, what counts as clipped, TPDF noise as a
 * function of the sample's position) is pipeline/sample_quantize.h, shared
 * with the library's integer output so that both give the same codes.
 * Dither is applied only when it was asked for and b <= 16.
 * `peak` is max |x| over every sample seen (NaN ignored), before saturation.
 *
 * A quantizer is plain data: one per output, not shared between threads.
 * The loops run an AVX-512 build where the CPU has it, with the same codes
 * (CONVOY_IO_TEST_GENERIC_QUANT=1 keeps the baseline build, for tests).
 */
#ifndef CONVOY_QUANTIZE_H
#define CONVOY_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

typedef struct quantizer {
  int bits;        /* integer width, 2 .. 32 */
  int dither;      /* 1: TPDF dither (set by quantizer_init only when bits <= 16) */
  uint64_t seed;   /* dither noise seed */
  uint64_t index;  /* samples quantized so far: the dither noise's position */
  int64_t clipped; /* samples saturated so far */
  double peak;     /* max |x| so far, linear */
  int avx512;      /* the loops run their AVX-512 build (chosen at init) */
} quantizer;

/* bits: integer width (2..32); dither: nonzero to ask for TPDF dither (kept
 * only when bits <= 16); seed: dither noise seed (same seed, same output). */
void quantizer_init(quantizer *q, int bits, int dither, uint64_t seed);

/* n samples to codes of q->bits bits, left-justified in 16 bits
 * (code * 2^(16-bits)), as libsndfile's sf_write_short expects. bits <= 16. */
void quantize_to_short(quantizer *q, const float *x, size_t n, short *out);

/* n samples to codes of q->bits bits, left-justified in 32 bits
 * (code * 2^(32-bits)), as libsndfile's sf_write_int expects. */
void quantize_to_int(quantizer *q, const float *x, size_t n, int32_t *out);

/* Float output: tracks the peak only; no clipping is possible. */
void quantize_track_float(quantizer *q, const float *x, size_t n);

/* Running maxima for peaks per channel: for every i < 16 * rows,
 * lanes[i % 16] = max(lanes[i % 16], |x[i]|), NaN ignored (the loop of the
 * quantizer's own peak). q is only read (which build runs). */
void quantize_peak_lanes(const quantizer *q, const float *x, size_t rows, float lanes[16]);

/* max(peak, |x[i]|) over the n samples, NaN ignored: the same loop on the
 * baseline build, for writers without a quantizer. */
float quantize_peak_abs(const float *x, size_t n, float peak);

/* Float output for codecs that hold [-1, 1] (Vorbis, Opus): copies x into
 * out clamped to [-1, 1], counting each |x| > 1 (and NaN, written as 0) as
 * clipped. */
void quantize_clamp_float(quantizer *q, const float *x, size_t n, float *out);

#endif /* CONVOY_QUANTIZE_H */
