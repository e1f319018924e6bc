/*
 * sample_quantize.h - the one rule that turns a float32 sample into an
 * integer code, shared by the CPU (pipeline/, io/) and the GPU kernels
 * (cuda/): header-only, so both compile the same arithmetic and give the
 * same bits.
 *
 * For an integer width of b bits (full = 2^(b-1), codes -full .. full-1):
 *   v = x * full                  (exact in double)
 *   clipped  when v >= full - 0.5 or v < -full - 0.5 (NaN too): the code
 *            nearest to v is outside the range. The code is saturated to
 *            full-1 or -full (NaN to 0) and the sample counted as clipped.
 *   otherwise code = floor(v + 0.5) (ties round up), or with dither
 *            floor(v + d + 0.5) with d TPDF noise in (-1, 1) LSB, then
 *            limited to the range without being counted: such a sample was
 *            representable and only the dither noise reached past full scale.
 * So x = +1.0 is clipped (its code would be full) and x = -1.0 is not.
 *
 * Dither noise is a pure function of (seed, index), index being the sample's
 * position in the output (frame * channels + channel): the same output is
 * quantized to the same codes however it is cut into calls, on any engine.
 */
#ifndef CONVOY_SAMPLE_QUANTIZE_H
#define CONVOY_SAMPLE_QUANTIZE_H

#include "convoy.h"

#include <stdint.h>

#ifdef __CUDACC__
#define SQ_FN __host__ __device__ static inline
#else
#define SQ_FN static inline
#endif

/* Widest integer width dither applies to. */
#define SQ_DITHER_MAX_BITS 16

SQ_FN uint64_t sq_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* TPDF noise in LSB for sample `index`: two uniform 32-bit halves of one
 * hash, each mapped to [-0.5, 0.5), summed. Exact in double. */
SQ_FN double sq_tpdf(uint64_t seed, uint64_t index) {
  const uint64_t r = sq_mix64(seed + (index + 1) * 0x9E3779B97F4A7C15ull);
  const double a = (double)(uint32_t)(r >> 32);
  const double b = (double)(uint32_t)r;
  return (a + b) * 0x1.0p-32 - 1.0;
}

/* floor(v) for |v| < 2 * full <= 2^32 without libm: truncation equals floor
 * once the value is made positive, and every step is exact in double. */
SQ_FN double sq_floor(double v, double full) {
  const double bias = 4.0 * full;
  return (double)((int64_t)(v + bias) - (int64_t)bias);
}

/* The code of x for a width with full = 2^(bits-1); noise is the dither
 * (0.0 for none). Sets *clipped to 1 when the sample saturated. */
SQ_FN int32_t sq_code(float x, double full, double noise, int *clipped) {
  const double v = (double)x * full;
  *clipped = 0;
  if (v >= full - 0.5) {
    *clipped = 1;
    return (int32_t)(full - 1.0);
  }
  if (v < -full - 0.5) {
    *clipped = 1;
    return (int32_t)-full;
  }
  if (v != v) { /* NaN: fails both tests above */
    *clipped = 1;
    return 0;
  }
  double w = sq_floor(v + noise + 0.5, full);
  if (w > full - 1.0) w = full - 1.0;
  if (w < -full) w = -full;
  return (int32_t)w;
}

/* How a stream's output is written: float32, or integer codes. */
typedef struct output_spec {
  convoy_sample_format fmt; /* F32, S16 or S32 */
  int32_t bits;             /* integer: significant bits (2 .. 8 x width) */
  int32_t dither;           /* 1: TPDF noise (integer, bits <= SQ_DITHER_MAX_BITS) */
  uint64_t seed;            /* dither noise seed */
  /* The tally counts the samples whose output position (the dither's
   * index) lies in [count_lo, count_hi); the others are written alike. */
  uint64_t count_lo, count_hi;
} output_spec;

/* The spec for validated stream settings (bits 0 = the format's width). */
SQ_FN output_spec output_spec_make(convoy_sample_format fmt, int32_t bits, int32_t dither,
                                   uint64_t seed) {
  output_spec o;
  o.fmt = fmt;
  o.bits = fmt == CONVOY_FORMAT_F32 ? 0
           : bits                   ? bits
                                    : 8 * (int32_t)convoy_sample_format_bytes(fmt);
  o.dither = fmt != CONVOY_FORMAT_F32 && dither && o.bits <= SQ_DITHER_MAX_BITS;
  o.seed = seed;
  o.count_lo = 0;
  o.count_hi = UINT64_MAX;
  return o;
}

/* Counts only output frames [first, end) (end < 0: to the end; first = 0,
 * end = -1: every frame) of a run whose frame 0 is at position base, each
 * frame `samples` positions wide. */
SQ_FN void output_spec_count_frames(output_spec *o, uint64_t base, int64_t first, int64_t end,
                                    int32_t samples) {
  o->count_lo = base + (uint64_t)first * (uint64_t)samples;
  o->count_hi = end < 0 ? UINT64_MAX : base + (uint64_t)end * (uint64_t)samples;
}

/* Statistics of integer output (see convoy_output_stats). */
typedef struct output_tally {
  int64_t clipped;
  double peak;
} output_tally;

#undef SQ_FN

#endif /* CONVOY_SAMPLE_QUANTIZE_H */
