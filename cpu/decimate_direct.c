/* decimate_direct.c - polyphase direct-form decimation (decimate_direct.h).
 * The tile loops are fixed-lane C the compiler vectorises, compiled three
 * times (AVX-512, AVX2, baseline) and picked by cpu_isa_best(); every one
 * multiplies and then adds (ISO C: no contraction), so all give the same
 * bits. */
#include "decimate_direct.h"

#include "cpu_isa.h"

#include <string.h>

/* Outputs per call block: enough that a tile's taps loop dominates, few
 * enough that P phase rows of it stay a few hundred KiB. */
#define BLOCK_FLOATS ((int64_t)1 << 16)
#define BLOCK_MAX ((int64_t)1 << 14)

static int64_t phases(int64_t taps, int64_t step) {
  return step < taps ? step : taps;
}

/* Taps of phase p: q with q step + p < taps. The first taps % step phases
 * have one more than taps / step. */
static int64_t phase_len(int64_t taps, int64_t step, int64_t p) {
  return taps / step + (p < taps % step);
}

static int64_t block_outputs(int64_t taps, int64_t step) {
  int64_t b = BLOCK_FLOATS / phases(taps, step);
  if (b > BLOCK_MAX) b = BLOCK_MAX;
  b = b / DECIM_TILE * DECIM_TILE;
  return b < DECIM_TILE ? DECIM_TILE : b;
}

/* Floats of one phase row of a block. */
static int64_t row_floats(int64_t taps, int64_t step) {
  return block_outputs(taps, step) + phase_len(taps, step, 0) + DECIM_TILE;
}

size_t decim_direct_scratch(int64_t taps, int64_t step) {
  return 2 * (size_t)phases(taps, step) * (size_t)row_floats(taps, step);
}

void decim_direct_taps(const float *rev, int64_t taps, int64_t step, float *poly) {
  int64_t k = 0;
  for (int64_t p = 0; p < phases(taps, step); p++)
    for (int64_t i = p; i < taps; i += step) poly[k++] = rev[i];
}

/* The phase rows of outputs [0, n) of x into rows of `row` floats: the
 * n + len - 1 frames phase p's taps read, zeros after them up to the end of
 * the last tile. */
static void split_phases(const float *x, int64_t taps, int64_t step, int64_t n, float *rows,
                         int64_t row) {
  const int64_t tiled = (n + DECIM_TILE - 1) / DECIM_TILE * DECIM_TILE;
  for (int64_t p = 0; p < phases(taps, step); p++) {
    float *xp = rows + p * row;
    const int64_t valid = n + phase_len(taps, step, p) - 1;
    const float *src = x + p;
    for (int64_t k = 0; k < valid; k++) xp[k] = src[k * step];
    memset(xp + valid, 0, sizeof(float) * (size_t)(tiled + phase_len(taps, step, 0) - 1 - valid));
  }
}

#define DEFINE_KERNELS(sfx, attr)                                                                  \
  attr static void real_block_##sfx(const float *restrict rows, int64_t row,                       \
                                    const float *restrict poly, int64_t taps, int64_t step,        \
                                    float *restrict y, int64_t n) {                                \
    const int64_t base = taps / step, longer = taps % step, n_phases = phases(taps, step);         \
    for (int64_t m0 = 0; m0 < n; m0 += DECIM_TILE) {                                               \
      float acc[DECIM_TILE];                                                                       \
      for (int l = 0; l < DECIM_TILE; l++) acc[l] = 0.0f;                                          \
      const float *restrict h = poly;                                                              \
      for (int64_t p = 0; p < n_phases; p++) {                                                     \
        const int64_t len = base + (p < longer);                                                   \
        const float *restrict xp = rows + p * row + m0;                                            \
        for (int64_t q = 0; q < len; q++) {                                                        \
          const float hq = h[q];                                                                   \
          for (int l = 0; l < DECIM_TILE; l++) acc[l] += hq * xp[q + l];                           \
        }                                                                                          \
        h += len;                                                                                  \
      }                                                                                            \
      const int64_t k = n - m0 < DECIM_TILE ? n - m0 : DECIM_TILE;                                 \
      memcpy(y + m0, acc, sizeof(float) * (size_t)k);                                              \
    }                                                                                              \
  }                                                                                                \
  attr static void complex_block_##sfx(const float *restrict rows_r, const float *restrict rows_i, \
                                       int64_t row, const float *restrict hr,                      \
                                       const float *restrict hi, int64_t taps, int64_t step,       \
                                       float *restrict yr, float *restrict yi, int64_t n) {        \
    const int64_t base = taps / step, longer = taps % step, n_phases = phases(taps, step);         \
    for (int64_t m0 = 0; m0 < n; m0 += DECIM_TILE) {                                               \
      float ar[DECIM_TILE], ai[DECIM_TILE];                                                        \
      for (int l = 0; l < DECIM_TILE; l++) ar[l] = ai[l] = 0.0f;                                   \
      int64_t off = 0;                                                                             \
      for (int64_t p = 0; p < n_phases; p++) {                                                     \
        const int64_t len = base + (p < longer);                                                   \
        const float *restrict pr = rows_r + p * row + m0, *restrict pi = rows_i + p * row + m0;    \
        for (int64_t q = 0; q < len; q++) {                                                        \
          const float a = hr[off + q], b = hi[off + q];                                            \
          for (int l = 0; l < DECIM_TILE; l++) {                                                   \
            ar[l] += a * pr[q + l];                                                                \
            ar[l] -= b * pi[q + l];                                                                \
            ai[l] += a * pi[q + l];                                                                \
            ai[l] += b * pr[q + l];                                                                \
          }                                                                                        \
        }                                                                                          \
        off += len;                                                                                \
      }                                                                                            \
      const int64_t k = n - m0 < DECIM_TILE ? n - m0 : DECIM_TILE;                                 \
      memcpy(yr + m0, ar, sizeof(float) * (size_t)k);                                              \
      memcpy(yi + m0, ai, sizeof(float) * (size_t)k);                                              \
    }                                                                                              \
  }

DEFINE_KERNELS(generic, )
#ifdef CPU_ISA_X86
DEFINE_KERNELS(avx2, __attribute__((target("avx2"))))
DEFINE_KERNELS(avx512, __attribute__((target("avx512f"))))
#endif

typedef void (*real_block_fn)(const float *, int64_t, const float *, int64_t, int64_t, float *,
                              int64_t);
typedef void (*complex_block_fn)(const float *, const float *, int64_t, const float *,
                                 const float *, int64_t, int64_t, float *, float *, int64_t);

void decim_direct_real(const float *x, const float *poly, int64_t taps, int64_t step, float *y,
                       int64_t n, float *scratch) {
  real_block_fn f = real_block_generic;
#ifdef CPU_ISA_X86
  const cpu_isa v = cpu_isa_best();
  f = v == CPU_ISA_AVX512 ? real_block_avx512 : v == CPU_ISA_AVX2 ? real_block_avx2 : f;
#endif
  const int64_t block = block_outputs(taps, step), row = row_floats(taps, step);
  for (int64_t m = 0; m < n; m += block) {
    const int64_t k = n - m < block ? n - m : block;
    split_phases(x + m * step, taps, step, k, scratch, row);
    f(scratch, row, poly, taps, step, y + m, k);
  }
}

void decim_direct_complex(const float *xr, const float *xi, const float *hr, const float *hi,
                          int64_t taps, int64_t step, float *yr, float *yi, int64_t n,
                          float *scratch) {
  complex_block_fn f = complex_block_generic;
#ifdef CPU_ISA_X86
  const cpu_isa v = cpu_isa_best();
  f = v == CPU_ISA_AVX512 ? complex_block_avx512 : v == CPU_ISA_AVX2 ? complex_block_avx2 : f;
#endif
  const int64_t block = block_outputs(taps, step), row = row_floats(taps, step);
  float *rows_i = scratch + phases(taps, step) * row;
  for (int64_t m = 0; m < n; m += block) {
    const int64_t k = n - m < block ? n - m : block;
    split_phases(xr + m * step, taps, step, k, scratch, row);
    split_phases(xi + m * step, taps, step, k, rows_i, row);
    f(scratch, rows_i, row, hr, hi, taps, step, yr + m, yi + m, k);
  }
}
