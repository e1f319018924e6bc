/* rotator.c - output phase of the frequency-translating filter (rotator.h). */
#include "rotator.h"

#include <math.h>

static const double TWO_PI = 6.283185307179586476925286766559;

void rotator_init(rotator *r, double shift, int64_t step, int64_t phase) {
  r->shift = shift;
  r->step = step;
  r->phase = phase;
  for (int i = 0; i < ROTATOR_TABLE; i++) {
    const double ph = -TWO_PI * rotator_frac(shift, (int64_t)i * step);
    r->tab_re[i] = cos(ph);
    r->tab_im[i] = sin(ph);
  }
}

void rotator_apply(const rotator *r, float *re, float *im, int64_t count, int64_t first) {
  int64_t i = 0;
  while (i < count) {
    const int64_t n = first + i;
    const int64_t anchor = n - n % ROTATOR_TABLE;
    const double ph = -TWO_PI * rotator_frac(r->shift, anchor * r->step + r->phase);
    const double ar = cos(ph), ai = sin(ph);
    int64_t end = i + (anchor + ROTATOR_TABLE - n);
    if (end > count) end = count;
    for (; i < end; i++) {
      const int t = (int)((first + i) - anchor);
      const double wr = ar * r->tab_re[t] - ai * r->tab_im[t];
      const double wi = ar * r->tab_im[t] + ai * r->tab_re[t];
      const double xr = re[i], xi = im[i];
      re[i] = (float)(xr * wr - xi * wi);
      im[i] = (float)(xr * wi + xi * wr);
    }
  }
}
