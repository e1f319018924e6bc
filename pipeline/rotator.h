/*
 * rotator.h - the output phase of a frequency-translating filter (internal).
 *
 * Output n of a stream with decimation D, phase P and shift f (cycles per
 * input sample) is multiplied by e^{-j 2 pi f m}, m = n D + P its absolute
 * full-rate index. The phase is a function of m alone, evaluated in double precision,
 * so it does not depend on how the output was cut into calls:
 *   w(n) = A(n - n mod T) * T(n mod T)
 * with A(a) = e^{-j 2 pi frac(f (a D + P))} computed directly once per run of T
 * outputs, and T(i) = e^{-j 2 pi frac(f i D)} a table made at init; frac()
 * of the exact product (fma error term) keeps the phase exact to about
 * 1e-16 cycle for m < 2^53. The product of the two is within a few 1e-16 of
 * the direct evaluation, and always the same bits for the same n.
 * Reentrant after init; no allocation.
 */
#ifndef CONVOY_ROTATOR_H
#define CONVOY_ROTATOR_H

#include "rotator_frac.h"

#include <stdint.h>

#define ROTATOR_TABLE 256

typedef struct rotator {
  double shift;  /* f, cycles per input sample */
  int64_t step;  /* D: full-rate frames between outputs, >= 1 */
  int64_t phase; /* P: full-rate index of output 0, 0 .. D - 1 */
  double tab_re[ROTATOR_TABLE], tab_im[ROTATOR_TABLE];
  int avx2; /* rotator_apply's loop runs its AVX2 build */
} rotator;

void rotator_init(rotator *r, double shift, int64_t step, int64_t phase);

/* Multiplies count complex outputs, real parts re[0 ..), imaginary parts
 * im[0 ..), by w(n) for n = first, first + 1, ...: re + j im <- (re + j im) w,
 * in double, rounded to float. */
void rotator_apply(const rotator *r, float *re, float *im, int64_t count, int64_t first);

#endif /* CONVOY_ROTATOR_H */
