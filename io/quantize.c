#include "quantize.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* TPDF noise in LSB: two uniform 32-bit halves of one draw, each mapped to
 * [-0.5, 0.5), summed. */
static double tpdf(uint64_t *state) {
  uint64_t r = splitmix64(state);
  double a = (double)(uint32_t)(r >> 32);
  double b = (double)(uint32_t)r;
  return (a + b) * 0x1.0p-32 - 1.0;
}

void quantizer_init(quantizer *q, int bits, int dither, uint64_t seed) {
  q->bits = bits;
  q->dither = dither && bits <= 16;
  q->rng = seed;
  q->clipped = 0;
  q->peak = 0.0;
}

/* floor(v) for |v| < 2 * full <= 2^32, without a libm call in the hot
 * loop: truncation equals floor once the value is made positive, and every
 * step is exact in double precision. */
static inline double floor_in_range(double v, double full) {
  const double bias = 4.0 * full;
  return (double)((int64_t)(v + bias) - (int64_t)bias);
}

/* One code following the rule in quantize.h. */
static inline int32_t quantize_one(quantizer *q, float x, double full, double *peak) {
  double ax = fabs((double)x);
  if (ax > *peak) *peak = ax;
  double v = (double)x * full;
  if (v >= full - 0.5) {
    q->clipped++;
    return (int32_t)(full - 1.0);
  }
  if (v < -full - 0.5) {
    q->clipped++;
    return (int32_t)-full;
  }
  if (v != v) { /* NaN: fails both tests above */
    q->clipped++;
    return 0;
  }
  if (q->dither) {
    double w = floor_in_range(v + tpdf(&q->rng) + 0.5, full);
    if (w > full - 1.0) w = full - 1.0;
    if (w < -full) w = -full;
    return (int32_t)w;
  }
  return (int32_t)floor_in_range(v + 0.5, full);
}

void quantize_to_short(quantizer *q, const float *x, size_t n, short *out) {
  const double full = ldexp(1.0, q->bits - 1);
  const int32_t step = (int32_t)1 << (16 - q->bits);
  double peak = q->peak;
  for (size_t i = 0; i < n; i++) out[i] = (short)(quantize_one(q, x[i], full, &peak) * step);
  q->peak = peak;
}

void quantize_to_int(quantizer *q, const float *x, size_t n, int32_t *out) {
  const double full = ldexp(1.0, q->bits - 1);
  /* Left-justify by multiplying: shifting a negative value is undefined. */
  const int32_t step = q->bits >= 32 ? 1 : (int32_t)1 << (32 - q->bits);
  double peak = q->peak;
  for (size_t i = 0; i < n; i++) out[i] = quantize_one(q, x[i], full, &peak) * step;
  q->peak = peak;
}

void quantize_track_float(quantizer *q, const float *x, size_t n) {
  float peak = (float)q->peak;
  for (size_t i = 0; i < n; i++) {
    float ax = fabsf(x[i]);
    if (ax > peak) peak = ax;
  }
  q->peak = peak;
}

void quantize_clamp_float(quantizer *q, const float *x, size_t n, float *out) {
  float peak = (float)q->peak;
  int64_t clipped = 0;
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    float av = fabsf(v);
    if (av > peak) peak = av;
    if (v > 1.0f) {
      v = 1.0f;
      clipped++;
    } else if (v < -1.0f) {
      v = -1.0f;
      clipped++;
    } else if (v != v) {
      v = 0.0f;
      clipped++;
    }
    out[i] = v;
  }
  q->peak = peak;
  q->clipped += clipped;
}
