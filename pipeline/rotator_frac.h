/*
 * rotator_frac.h - frac(f m) of the exact product f m, the phase of the
 * frequency-translating filter (rotator.h), shared by the host rotator and
 * the GPU's output pick so that both turn sample m by the same angle.
 * Header-only: compiled as host and device code by nvcc, as C elsewhere.
 */
#ifndef CONVOY_ROTATOR_FRAC_H
#define CONVOY_ROTATOR_FRAC_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ROTATOR_FRAC_FN static __host__ __device__ __forceinline__
#else
#define ROTATOR_FRAC_FN static inline
#endif

/* frac(f m), in [0, 1), from the exact product f m (m < 2^53): f m = p + e
 * exactly, with e the fma's error term. */
ROTATOR_FRAC_FN double rotator_frac(double f, int64_t m) {
  const double dm = (double)m;
  const double p = f * dm;
  const double e = fma(f, dm, -p);
  double r = (p - floor(p)) + e;
  r -= floor(r);
  return r >= 1.0 ? 0.0 : r;
}

#endif
