/* design_response.c - measures a design's magnitude response against its bands,
 * in double precision, with a radix-2 FFT of the zero-padded taps (the FFT
 * also serves convoy_taps_response, filters/taps_response.c). */
#include "design_internal.h"

#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int design_fft(double *x, size_t p) {
  double *tw = malloc(p * sizeof *tw); /* p/2 (cos, sin) pairs, each made directly */
  if (!tw) return -1;
  for (size_t k = 0; k < p / 2; k++) {
    double a = -2.0 * M_PI * (double)k / (double)p;
    tw[2 * k] = cos(a);
    tw[2 * k + 1] = sin(a);
  }
  for (size_t i = 1, j = 0; i < p; i++) {
    size_t bit = p >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      double t0 = x[2 * i], t1 = x[2 * i + 1];
      x[2 * i] = x[2 * j];
      x[2 * i + 1] = x[2 * j + 1];
      x[2 * j] = t0;
      x[2 * j + 1] = t1;
    }
  }
  for (size_t len = 2; len <= p; len <<= 1) {
    size_t half = len / 2, step = p / len;
    for (size_t s = 0; s < p; s += len) {
      for (size_t k = 0; k < half; k++) {
        double wr = tw[2 * k * step], wi = tw[2 * k * step + 1];
        double *a = x + 2 * (s + k), *b = x + 2 * (s + k + half);
        double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
        b[0] = a[0] - br;
        b[1] = a[1] - bi;
        a[0] += br;
        a[1] += bi;
      }
    }
  }
  free(tw);
  return 0;
}

enum { BAND_TRANSITION, BAND_PASS, BAND_STOP };

static int band_of(const convoy_design *d, double f) {
  double w2 = d->width / 2;
  switch (d->type) {
  case CONVOY_DESIGN_LOWPASS:
    return f <= d->cutoff - w2 ? BAND_PASS : f >= d->cutoff + w2 ? BAND_STOP : BAND_TRANSITION;
  case CONVOY_DESIGN_HIGHPASS:
    return f <= d->cutoff - w2 ? BAND_STOP : f >= d->cutoff + w2 ? BAND_PASS : BAND_TRANSITION;
  case CONVOY_DESIGN_BANDPASS:
    if (f <= d->low - w2 || f >= d->high + w2) return BAND_STOP;
    return f >= d->low + w2 && f <= d->high - w2 ? BAND_PASS : BAND_TRANSITION;
  default:
    if (f <= d->low - w2 || f >= d->high + w2) return BAND_PASS;
    return f >= d->low + w2 && f <= d->high - w2 ? BAND_STOP : BAND_TRANSITION;
  }
}

/* |H(f)| by direct summation. */
static double magnitude_at(const convoy_design *d, const double *h, int64_t n, double f) {
  double mid = (double)(n - 1) / 2.0, a = 0.0;
  for (int64_t i = 0; i < n; i++) a += h[i] * cos(2.0 * M_PI * f / d->rate * ((double)i - mid));
  return fabs(a);
}

static void account(int band, double mag, double *pass_err, double *stop_err) {
  if (band == BAND_PASS && fabs(mag - 1.0) > *pass_err) *pass_err = fabs(mag - 1.0);
  if (band == BAND_STOP && mag > *stop_err) *stop_err = mag;
}

int design_measure(const convoy_design *d, const double *h, int64_t n, double *pass_err,
                   double *stop_err) {
  *pass_err = 0.0;
  *stop_err = 0.0;
  /* |H| of a length-n design ripples with lobes about rate / n wide: 8 grid
   * points per lobe miss a peak by at most 1 - cos(pi / 16), 0.17 dB. */
  size_t p = 1024;
  while (p < 8 * (size_t)n) p <<= 1;
  double *x = calloc(2 * p, sizeof *x);
  if (!x) return -1;
  for (int64_t i = 0; i < n; i++) x[2 * i] = h[i];
  if (design_fft(x, p) != 0) {
    free(x);
    return -1;
  }
  for (size_t k = 0; k <= p / 2; k++) {
    double f = d->rate * (double)k / (double)p;
    account(band_of(d, f), hypot(x[2 * k], x[2 * k + 1]), pass_err, stop_err);
  }
  free(x);

  /* The band edges themselves, exactly. */
  double w2 = d->width / 2;
  double edges[4] = {d->cutoff - w2, d->cutoff + w2, 0, 0};
  int n_edges = 2;
  if (d->type == CONVOY_DESIGN_BANDPASS || d->type == CONVOY_DESIGN_BANDSTOP) {
    edges[0] = d->low - w2;
    edges[1] = d->low + w2;
    edges[2] = d->high - w2;
    edges[3] = d->high + w2;
    n_edges = 4;
  }
  for (int e = 0; e < n_edges; e++)
    account(band_of(d, edges[e]), magnitude_at(d, h, n, edges[e]), pass_err, stop_err);
  return 0;
}
