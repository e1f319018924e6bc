/* filter.c - convoy_filter: immutable, reference-counted taps, real or
 * complex. */
#include "error_internal.h"
#include "filter_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct convoy_filter {
  atomic_long refs;
  convoy_sample_type type;
  int64_t n_taps;
  float *taps; /* n_taps floats, or 2 x n_taps (re, im) for CF32 */
};

/* Tap pairs within this fraction of the largest |tap| count as equal when
 * testing symmetry: a few float ulps, so that taps designed in double and
 * rounded to float still qualify, while any visible asymmetry does not. */
#define SYMMETRY_TOLERANCE 1e-6

#define MAX_TAPS ((int64_t)1 << 31)

convoy_status convoy_filter_create(convoy_filter **filter, const float *taps, int64_t n_taps) {
  return convoy_filter_create_typed(filter, CONVOY_SAMPLE_F32, taps, n_taps);
}

convoy_status convoy_filter_create_typed(convoy_filter **filter, convoy_sample_type type,
                                         const void *taps, int64_t n_taps) {
  if (!filter)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_filter_create: filter is NULL");
  *filter = NULL;
  if (type != CONVOY_SAMPLE_F32 && type != CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_filter_create: unknown sample type %d", (int)type);
  if (!taps)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_filter_create: taps is NULL");
  if (n_taps < 1 || n_taps > MAX_TAPS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_filter_create: n_taps %lld is outside 1 .. 2^31",
                            (long long)n_taps);
  const int per_tap = type == CONVOY_SAMPLE_CF32 ? 2 : 1;
  const int64_t n_floats = n_taps * per_tap;
  const float *t = taps;
  for (int64_t i = 0; i < n_floats; i++) {
    if (!isfinite(t[i]))
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "convoy_filter_create: %s of tap %lld is %s (taps must be finite)",
                              per_tap == 1 ? "value" : (i % 2 ? "imaginary part" : "real part"),
                              (long long)(i / per_tap), isnan(t[i]) ? "NaN" : "infinite");
  }
  convoy_filter *f = malloc(sizeof *f);
  float *copy = (uint64_t)n_floats <= SIZE_MAX / sizeof(float)
                    ? malloc(sizeof(float) * (size_t)n_floats)
                    : NULL;
  if (!f || !copy) {
    free(f);
    free(copy);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY,
                            "convoy_filter_create: cannot allocate %lld %s taps", (long long)n_taps,
                            per_tap == 1 ? "real" : "complex");
  }
  memcpy(copy, t, sizeof(float) * (size_t)n_floats);
  atomic_init(&f->refs, 1);
  f->type = type;
  f->n_taps = n_taps;
  f->taps = copy;
  *filter = f;
  return CONVOY_OK;
}

convoy_filter *filter_retain(convoy_filter *filter) {
  atomic_fetch_add_explicit(&filter->refs, 1, memory_order_relaxed);
  return filter;
}

void filter_release(convoy_filter *filter) {
  if (!filter) return;
  if (atomic_fetch_sub_explicit(&filter->refs, 1, memory_order_acq_rel) == 1) {
    free(filter->taps);
    free(filter);
  }
}

void convoy_filter_destroy(convoy_filter *filter) {
  filter_release(filter);
}

int64_t convoy_filter_length(const convoy_filter *filter) {
  return filter ? filter->n_taps : 0;
}

const float *convoy_filter_taps(const convoy_filter *filter) {
  return filter ? filter->taps : NULL;
}

convoy_sample_type convoy_filter_type(const convoy_filter *filter) {
  return filter ? filter->type : CONVOY_SAMPLE_F32;
}

/* 1 when h[i] == sign * h[n-1-i] for every i, within the tolerance. */
static int mirrored(const float *h, int64_t n, double sign, double tol) {
  for (int64_t i = 0; i <= (n - 1) / 2; i++) {
    if (fabs((double)h[i] - sign * (double)h[n - 1 - i]) > tol) return 0;
  }
  return 1;
}

/* Complex taps have generalised linear phase, delay (n-1)/2, when
 * h[i] = u * conj(h[n-1-i]) for one unit u: conjugate symmetry (u = 1), its
 * antisymmetric twin (u = -1), and any real symmetric filter shifted in
 * frequency, h[i] e^(jwi) (u = e^(jw(n-1))). u is read off the peak tap. */
static int conj_mirrored(const float *h, int64_t n, int64_t peak, double tol) {
  const double pr = h[2 * peak], pi = h[2 * peak + 1];
  const int64_t q = n - 1 - peak;
  const double qr = h[2 * q], qi = -(double)h[2 * q + 1]; /* conj(h[q]) */
  const double qq = qr * qr + qi * qi;
  if (qq == 0.0) return 0;
  const double ur = (pr * qr + pi * qi) / qq, ui = (pi * qr - pr * qi) / qq; /* p / conj(h[q]) */
  for (int64_t i = 0; i < n; i++) {
    const int64_t k = n - 1 - i;
    const double cr = h[2 * k], ci = -(double)h[2 * k + 1];
    const double er = h[2 * i] - (ur * cr - ui * ci), ei = h[2 * i + 1] - (ur * ci + ui * cr);
    if (sqrt(er * er + ei * ei) > tol) return 0;
  }
  return 1;
}

double convoy_filter_group_delay(const convoy_filter *filter, int *linear_phase) {
  if (linear_phase) *linear_phase = 0;
  if (!filter) return 0.0;
  const float *h = filter->taps;
  const int cplx = filter->type == CONVOY_SAMPLE_CF32;
  int64_t n = filter->n_taps, peak = 0;
  double peak_abs = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double a = cplx ? hypot((double)h[2 * i], (double)h[2 * i + 1]) : fabs((double)h[i]);
    if (a > peak_abs) {
      peak_abs = a;
      peak = i;
    }
  }
  double tol = SYMMETRY_TOLERANCE * peak_abs;
  int linear = cplx ? peak_abs == 0.0 || conj_mirrored(h, n, peak, tol)
                    : mirrored(h, n, 1.0, tol) || mirrored(h, n, -1.0, tol);
  if (linear) {
    if (linear_phase) *linear_phase = 1;
    return (double)(n - 1) / 2.0;
  }
  return (double)peak;
}
