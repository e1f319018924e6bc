/* rotator.c - output phase of the frequency-translating filter (rotator.h). */
#include "rotator.h"

#include "cpu_isa.h"

#include <math.h>

static const double TWO_PI = 6.283185307179586476925286766559;

void rotator_init(rotator *r, double shift, int64_t step, int64_t phase) {
  r->shift = shift;
  r->step = step;
  r->phase = phase;
  r->avx2 = cpu_isa_best() >= CPU_ISA_AVX2;
  for (int i = 0; i < ROTATOR_TABLE; i++) {
    const double ph = -TWO_PI * rotator_frac(shift, (int64_t)i * step);
    r->tab_re[i] = cos(ph);
    r->tab_im[i] = sin(ph);
  }
}

/* x[k] *= anchor * table[k] for k < len, in double, rounded to float: a
 * loop over restrict pointers that the compiler vectorises, built for the
 * baseline and for AVX2 (no FMA in either, so both give the same bits). */
#define DEFINE_ROTATE_RUN(name, attr)                                                              \
  attr static void name(double ar, double ai, const double *restrict tr,                           \
                        const double *restrict ti, float *restrict re, float *restrict im,         \
                        int64_t len) {                                                             \
    for (int64_t k = 0; k < len; k++) {                                                            \
      const double wr = ar * tr[k] - ai * ti[k];                                                   \
      const double wi = ar * ti[k] + ai * tr[k];                                                   \
      const double xr = re[k], xi = im[k];                                                         \
      re[k] = (float)(xr * wr - xi * wi);                                                          \
      im[k] = (float)(xr * wi + xi * wr);                                                          \
    }                                                                                              \
  }

DEFINE_ROTATE_RUN(rotate_run_generic, )
#ifdef CPU_ISA_X86
DEFINE_ROTATE_RUN(rotate_run_avx2, __attribute__((target("avx2"))))
#endif

static void rotate_run(const rotator *r, double ar, double ai, const double *tr, const double *ti,
                       float *re, float *im, int64_t len) {
#ifdef CPU_ISA_X86
  if (r->avx2) {
    rotate_run_avx2(ar, ai, tr, ti, re, im, len);
    return;
  }
#endif
  (void)r;
  rotate_run_generic(ar, ai, tr, ti, re, im, len);
}

void rotator_apply(const rotator *r, float *re, float *im, int64_t count, int64_t first) {
  int64_t i = 0;
  while (i < count) {
    const int64_t n = first + i;
    const int64_t anchor = n - n % ROTATOR_TABLE;
    const double ph = -TWO_PI * rotator_frac(r->shift, anchor * r->step + r->phase);
    const int64_t t = n - anchor;
    int64_t len = ROTATOR_TABLE - t;
    if (len > count - i) len = count - i;
    rotate_run(r, cos(ph), sin(ph), r->tab_re + t, r->tab_im + t, re + i, im + i, len);
    i += len;
  }
}
