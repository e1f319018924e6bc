/* rt_mac.c - the complex multiply-add of the CPU real-time convolver, the
 * loop where it spends most of its time. Split re/im arrays let the
 * compiler vectorise it; on x86-64 with GCC or Clang a second copy built
 * for AVX2 and FMA is chosen at create time when the CPU has them (every
 * block of one convolver runs the same copy, so output stays bitwise
 * reproducible). */
#include "rt_cpu.h"

#define CMAC_BODY                                                                                  \
  float *restrict ar = acc, *restrict ai = acc + stride;                                           \
  const float *restrict hr = h, *restrict hi = h + stride;                                         \
  const float *restrict xr = x, *restrict xi = x + stride;                                         \
  for (int64_t j = 0; j < n; j++) {                                                                \
    ar[j] += hr[j] * xr[j] - hi[j] * xi[j];                                                        \
    ai[j] += hr[j] * xi[j] + hi[j] * xr[j];                                                        \
  }

static void cmac_generic(float *restrict acc, const float *restrict h, const float *restrict x,
                         int64_t n, int64_t stride) {
  CMAC_BODY
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_CMAC_AVX2 1
__attribute__((target("avx2,fma"))) static void
cmac_avx2(float *restrict acc, const float *restrict h, const float *restrict x, int64_t n,
          int64_t stride){CMAC_BODY}
#endif

rt_cmac_fn rt_cmac_select(void) {
#ifdef HAVE_CMAC_AVX2
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return cmac_avx2;
#endif
  return cmac_generic;
}
