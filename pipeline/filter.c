/* filter.c - convoy_filter: immutable, reference-counted taps. */
#include "error_internal.h"
#include "filter_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct convoy_filter {
  atomic_long refs;
  int64_t n_taps;
  float *taps;
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
  if (type == CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_UNSUPPORTED,
                            "convoy_filter_create: complex taps are not supported yet");
  if (type != CONVOY_SAMPLE_F32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_filter_create: unknown sample type %d", (int)type);
  if (!taps)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_filter_create: taps is NULL");
  if (n_taps < 1 || n_taps > MAX_TAPS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_filter_create: n_taps %lld is outside 1 .. 2^31",
                            (long long)n_taps);
  const float *t = taps;
  for (int64_t i = 0; i < n_taps; i++) {
    if (!isfinite(t[i]))
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "convoy_filter_create: tap %lld is %s (taps must be finite)",
                              (long long)i, isnan(t[i]) ? "NaN" : "infinite");
  }
  convoy_filter *f = malloc(sizeof *f);
  float *copy = malloc(sizeof(float) * (size_t)n_taps);
  if (!f || !copy) {
    free(f);
    free(copy);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY,
                            "convoy_filter_create: cannot allocate %lld taps", (long long)n_taps);
  }
  memcpy(copy, t, sizeof(float) * (size_t)n_taps);
  atomic_init(&f->refs, 1);
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

/* 1 when h[i] == sign * h[n-1-i] for every i, within the tolerance. */
static int mirrored(const float *h, int64_t n, double sign, double tol) {
  for (int64_t i = 0; i <= (n - 1) / 2; i++) {
    if (fabs((double)h[i] - sign * (double)h[n - 1 - i]) > tol) return 0;
  }
  return 1;
}

double convoy_filter_group_delay(const convoy_filter *filter, int *linear_phase) {
  if (linear_phase) *linear_phase = 0;
  if (!filter) return 0.0;
  const float *h = filter->taps;
  int64_t n = filter->n_taps, peak = 0;
  double peak_abs = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double a = fabs((double)h[i]);
    if (a > peak_abs) {
      peak_abs = a;
      peak = i;
    }
  }
  double tol = SYMMETRY_TOLERANCE * peak_abs;
  if (mirrored(h, n, 1.0, tol) || mirrored(h, n, -1.0, tol)) {
    if (linear_phase) *linear_phase = 1;
    return (double)(n - 1) / 2.0;
  }
  return (double)peak;
}
