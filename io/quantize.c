#include "quantize.h"

#include "sample_quantize.h"

#include <math.h>

void quantizer_init(quantizer *q, int bits, int dither, uint64_t seed) {
  q->bits = bits;
  q->dither = dither && bits <= SQ_DITHER_MAX_BITS;
  q->seed = seed;
  q->index = 0;
  q->clipped = 0;
  q->peak = 0.0;
}

/* One code following the rule in sample_quantize.h. */
static inline int32_t quantize_one(quantizer *q, float x, double full, double *peak) {
  double ax = fabs((double)x);
  if (ax > *peak) *peak = ax;
  const double noise = q->dither ? sq_tpdf(q->seed, q->index) : 0.0;
  q->index++;
  int clipped;
  int32_t code = sq_code(x, full, noise, &clipped);
  q->clipped += clipped;
  return code;
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
