/* direct_complex.c - complex-tap tiles of the CPU direct engine (see
 * direct_complex.h): AVX-512 and AVX2 versions in vector extensions and a
 * plain C loop for the baseline ISA. */
#include "direct_complex.h"

#include "cpu_isa.h"
#include "engine.h"

#include <string.h>

#if CONVOY_ENGINE_SLACK < DIRECT_COMPLEX_TILE_MAX
#error "the complex direct kernels read up to DIRECT_COMPLEX_TILE_MAX - 1 frames into the slack"
#endif

/* Runs tile_fn (tile outputs at a time) over n outputs: whole tiles straight
 * into the rows, the last partial one through scratch. */
#define DEFINE_COMPLEX_RANGE(range_name, attr, tile_fn, tile)                                      \
  attr static void range_name(const float *xr, const float *xi, const float *hr, const float *hi,  \
                              int64_t taps, float *yr, float *yi, int64_t n) {                     \
    int64_t k = 0;                                                                                 \
    for (; k + (tile) <= n; k += (tile)) tile_fn(xr + k, xi + k, hr, hi, taps, yr + k, yi + k);    \
    if (k < n) {                                                                                   \
      float part_r[tile], part_i[tile];                                                            \
      tile_fn(xr + k, xi + k, hr, hi, taps, part_r, part_i);                                       \
      memcpy(yr + k, part_r, sizeof(float) * (size_t)(n - k));                                     \
      memcpy(yi + k, part_i, sizeof(float) * (size_t)(n - k));                                     \
    }                                                                                              \
  }

#define GENERIC_TILE 32

static void ctile_generic(const float *restrict xr, const float *restrict xi,
                          const float *restrict hr, const float *restrict hi, int64_t taps,
                          float *restrict yr, float *restrict yi) {
  float ar[GENERIC_TILE], ai[GENERIC_TILE];
  for (int i = 0; i < GENERIC_TILE; i++) ar[i] = ai[i] = 0.0f;
  for (int64_t j = 0; j < taps; j++) {
    const float a = hr[j], b = hi[j];
    const float *pr = xr + j, *pi = xi + j;
    for (int i = 0; i < GENERIC_TILE; i++) {
      ar[i] += a * pr[i];
      ar[i] -= b * pi[i];
      ai[i] += a * pi[i];
      ai[i] += b * pr[i];
    }
  }
  memcpy(yr, ar, sizeof ar);
  memcpy(yi, ai, sizeof ai);
}
DEFINE_COMPLEX_RANGE(crange_generic, , ctile_generic, GENERIC_TILE)

#ifdef CPU_ISA_X86
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));

/* One lane group: the four steps of every tap, in the documented order. */
#define CSTEP(acc_r, acc_i, vr, vi)                                                                \
  do {                                                                                             \
    acc_r += a * (vr);                                                                             \
    acc_r -= b * (vi);                                                                             \
    acc_i += a * (vi);                                                                             \
    acc_i += b * (vr);                                                                             \
  } while (0)

/* A tile of four vector groups of outputs, accumulators in named
 * registers; V is the vector type, VU its unaligned form. */
#define DEFINE_CTILE(name, target, V, VU)                                                          \
  target static void name(const float *restrict xr, const float *restrict xi,                      \
                          const float *restrict hr, const float *restrict hi, int64_t taps,        \
                          float *restrict yr, float *restrict yi) {                                \
    V r0 = {0}, r1 = {0}, r2 = {0}, r3 = {0}, i0 = {0}, i1 = {0}, i2 = {0}, i3 = {0};              \
    for (int64_t j = 0; j < taps; j++) {                                                           \
      const float a = hr[j], b = hi[j];                                                            \
      const VU *pr = (const VU *)(xr + j), *pi = (const VU *)(xi + j);                             \
      CSTEP(r0, i0, pr[0], pi[0]);                                                                 \
      CSTEP(r1, i1, pr[1], pi[1]);                                                                 \
      CSTEP(r2, i2, pr[2], pi[2]);                                                                 \
      CSTEP(r3, i3, pr[3], pi[3]);                                                                 \
    }                                                                                              \
    VU *out_r = (VU *)yr, *out_i = (VU *)yi;                                                       \
    out_r[0] = r0;                                                                                 \
    out_r[1] = r1;                                                                                 \
    out_r[2] = r2;                                                                                 \
    out_r[3] = r3;                                                                                 \
    out_i[0] = i0;                                                                                 \
    out_i[1] = i1;                                                                                 \
    out_i[2] = i2;                                                                                 \
    out_i[3] = i3;                                                                                 \
  }

/* 32 outputs: four 8-lane groups. */
DEFINE_CTILE(ctile_avx2, __attribute__((target("avx2"))), v8, v8u)
DEFINE_COMPLEX_RANGE(crange_avx2, __attribute__((target("avx2"))), ctile_avx2, 32)

/* 64 outputs: four 16-lane groups. */
DEFINE_CTILE(ctile_avx512, __attribute__((target("avx512f"))), v16, v16u)
DEFINE_COMPLEX_RANGE(crange_avx512, __attribute__((target("avx512f"))), ctile_avx512, 64)
#endif

direct_complex_fn direct_complex_best(const char **name) {
#ifdef CPU_ISA_X86
  switch (cpu_isa_best()) {
  case CPU_ISA_AVX512:
    *name = "avx512";
    return crange_avx512;
  case CPU_ISA_AVX2:
    *name = "avx2";
    return crange_avx2;
  case CPU_ISA_GENERIC:
    break;
  }
#endif
  *name = "generic";
  return crange_generic;
}
