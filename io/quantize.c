#include "quantize.h"

#include "sample_quantize.h"

#include <math.h>
#include <stdlib.h>

static int use_avx512(void);

void quantizer_init(quantizer *q, int bits, int dither, uint64_t seed) {
  q->bits = bits;
  q->dither = dither && bits <= SQ_DITHER_MAX_BITS;
  q->seed = seed;
  q->index = 0;
  q->clipped = 0;
  q->peak = 0.0;
  q->avx512 = use_avx512();
}

/* Samples are quantized in tiles: the tile's dither noise, then its codes,
 * then its peak, each a loop without branches that the compiler vectorises
 * (built for the baseline and for AVX-512 with its 64-bit multiplies and
 * double-to-int64 conversions). Every value goes through the same
 * double-precision operations as sq_tpdf and sq_code, with no contraction
 * into fused multiply-adds, so every build gives those functions' codes. */
#define QUANT_TILE 1024

#define QUANT_KERNELS(suffix, attr)                                                                \
  /* nz[i] = sq_tpdf(seed, index + i). */                                                          \
  attr static void noise_##suffix(double *restrict nz, size_t n, uint64_t seed, uint64_t index) {  \
    QUANT_NO_CONTRACT                                                                              \
    for (size_t i = 0; i < n; i++) {                                                               \
      const uint64_t r = sq_mix64(seed + (index + i + 1) * 0x9E3779B97F4A7C15ull);                 \
      nz[i] = ((double)(uint32_t)(r >> 32) + (double)(uint32_t)r) * 0x1.0p-32 - 1.0;               \
    }                                                                                              \
  }                                                                                                \
  /* codes[i] = sq_code(x[i], full, nz[i]) * step; returns the samples clipped. */                 \
  attr static int64_t codes_##suffix(const float *restrict x, const double *restrict nz, size_t n, \
                                     double full, int32_t step, int32_t *restrict codes) {         \
    QUANT_NO_CONTRACT                                                                              \
    const double bias = 4.0 * full;                                                                \
    int64_t clipped = 0;                                                                           \
    for (size_t i = 0; i < n; i++) {                                                               \
      const double v = (double)x[i] * full;                                                        \
      const int64_t hi = v >= full - 0.5, lo = v < -full - 0.5, nan = v != v;                      \
      /* v limited so that the conversion below is defined (NaN and                                \
       * out-of-range values are replaced after it). */                                            \
      double vc = v > full ? full : v;                                                             \
      vc = vc < -full - 1.0 ? -full - 1.0 : vc;                                                    \
      vc = nan ? 0.0 : vc;                                                                         \
      double w = (double)((int64_t)(vc + nz[i] + 0.5 + bias) - (int64_t)bias);                     \
      w = w > full - 1.0 ? full - 1.0 : w;                                                         \
      w = w < -full ? -full : w;                                                                   \
      w = hi ? full - 1.0 : w;                                                                     \
      w = lo ? -full : w;                                                                          \
      w = nan ? 0.0 : w;                                                                           \
      clipped += hi | lo | nan;                                                                    \
      codes[i] = (int32_t)w * step;                                                                \
    }                                                                                              \
    return clipped;                                                                                \
  }                                                                                                \
  /* m[j] = max(m[j], |x[16 r + j]|) over rows r < rows, NaN ignored: 16                           \
   * running maxima, so the loop vectorises. */                                                    \
  attr static void lanes_##suffix(const float *restrict x, size_t rows, float *restrict out) {     \
    float m[16];                                                                                   \
    for (int j = 0; j < 16; j++) m[j] = out[j];                                                    \
    for (size_t r = 0; r < rows; r++)                                                              \
      for (int j = 0; j < 16; j++) {                                                               \
        const float a = fabsf(x[16 * r + j]);                                                      \
        m[j] = a > m[j] ? a : m[j];                                                                \
      }                                                                                            \
    for (int j = 0; j < 16; j++) out[j] = m[j];                                                    \
  }                                                                                                \
  /* max(peak, |x[i]|), NaN ignored. */                                                            \
  attr static float peak_##suffix(const float *restrict x, size_t n, float peak) {                 \
    float m[16] = {0};                                                                             \
    lanes_##suffix(x, n / 16, m);                                                                  \
    for (size_t i = n - n % 16; i < n; i++) {                                                      \
      const float a = fabsf(x[i]);                                                                 \
      peak = a > peak ? a : peak;                                                                  \
    }                                                                                              \
    for (int j = 0; j < 16; j++) peak = m[j] > peak ? m[j] : peak;                                 \
    return peak;                                                                                   \
  }

/* No contraction: GCC takes it as a function attribute, clang as a pragma
 * (QUANT_NO_CONTRACT opens each kernel's body). */
#if defined(__clang__)
#define QUANT_ATTR_GENERIC
#define QUANT_ATTR_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl")))
#define QUANT_NO_CONTRACT _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define QUANT_ATTR_GENERIC __attribute__((optimize("fp-contract=off")))
#define QUANT_ATTR_AVX512                                                                          \
  __attribute__((target("avx512f,avx512dq,avx512vl"), optimize("fp-contract=off")))
#define QUANT_NO_CONTRACT
#else
#define QUANT_ATTR_GENERIC
#define QUANT_NO_CONTRACT
#endif
QUANT_KERNELS(generic, QUANT_ATTR_GENERIC)
#if defined(__GNUC__) && defined(__x86_64__)
QUANT_KERNELS(avx512, QUANT_ATTR_AVX512)
#endif

/* 1 when the AVX-512 build runs here; CONVOY_IO_TEST_GENERIC_QUANT=1 (a
 * test hook, read here only) keeps the baseline build. */
static int use_avx512(void) {
#if defined(__GNUC__) && defined(__x86_64__)
  const char *hook = getenv("CONVOY_IO_TEST_GENERIC_QUANT");
  if (hook && hook[0] == '1') return 0;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return 0;
#endif
}

/* n samples to codes times step (left-justified), updating q's noise
 * position, clip count and peak. */
static void quantize_codes(quantizer *q, const float *x, size_t n, int32_t step, int32_t *codes) {
  static const double no_noise[QUANT_TILE];
  const double full = ldexp(1.0, q->bits - 1);
  const int wide = q->avx512;
  double noise[QUANT_TILE];
  const double *nz = q->dither ? noise : no_noise;
  float peak = (float)q->peak;
  for (size_t at = 0; at < n; at += QUANT_TILE) {
    const size_t m = n - at < QUANT_TILE ? n - at : QUANT_TILE;
#if defined(__GNUC__) && defined(__x86_64__)
    if (wide) {
      if (q->dither) noise_avx512(noise, m, q->seed, q->index);
      q->clipped += codes_avx512(x + at, nz, m, full, step, codes + at);
      peak = peak_avx512(x + at, m, peak);
      q->index += m;
      continue;
    }
#endif
    if (q->dither) noise_generic(noise, m, q->seed, q->index);
    q->clipped += codes_generic(x + at, nz, m, full, step, codes + at);
    peak = peak_generic(x + at, m, peak);
    q->index += m;
  }
  (void)wide;
  q->peak = peak;
}

void quantize_to_short(quantizer *q, const float *x, size_t n, short *out) {
  int32_t codes[QUANT_TILE];
  const int32_t step = (int32_t)1 << (16 - q->bits);
  for (size_t at = 0; at < n; at += QUANT_TILE) {
    const size_t m = n - at < QUANT_TILE ? n - at : QUANT_TILE;
    quantize_codes(q, x + at, m, step, codes);
    for (size_t i = 0; i < m; i++) out[at + i] = (short)codes[i];
  }
}

void quantize_to_int(quantizer *q, const float *x, size_t n, int32_t *out) {
  /* Left-justify by multiplying: shifting a negative value is undefined. */
  const int32_t step = q->bits >= 32 ? 1 : (int32_t)1 << (32 - q->bits);
  quantize_codes(q, x, n, step, out);
}

void quantize_track_float(quantizer *q, const float *x, size_t n) {
#if defined(__GNUC__) && defined(__x86_64__)
  if (q->avx512) {
    q->peak = peak_avx512(x, n, (float)q->peak);
    return;
  }
#endif
  q->peak = peak_generic(x, n, (float)q->peak);
}

void quantize_peak_lanes(const quantizer *q, const float *x, size_t rows, float lanes[16]) {
#if defined(__GNUC__) && defined(__x86_64__)
  if (q->avx512) {
    lanes_avx512(x, rows, lanes);
    return;
  }
#endif
  lanes_generic(x, rows, lanes);
}

float quantize_peak_abs(const float *x, size_t n, float peak) {
  return peak_generic(x, n, peak);
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
