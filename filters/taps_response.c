/* taps_response.c - convoy_taps_response: magnitude, phase and group delay of
 * real taps on an even grid from 0 to Nyquist, in double precision.
 *
 * The grid's points - 1 steps make M = 2 (points - 1) frequencies per period,
 * and H at k / M cycles per sample is the M-point DFT of the taps folded
 * modulo M (x_r = sum of h[n] over n = r mod M), exact for any length. The
 * DFT is design_fft's radix-2 transform when M is a power of 2, else
 * Bluestein's chirp-z through it. Group delay comes from the DFT of
 * (n - c) h[n], c = (length - 1) / 2: tau = c + Re(B / H), which is c itself
 * for symmetric taps, and the centring keeps B small beside H. */
#include "design_internal.h"
#include "taps_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Bluestein's DFT of length m (any m >= 1) through a power-of-2 FFT of
 * length l >= 2m - 1: X_k = w_k sum_n (x_n w_n) conj(w_(k-n)), with the
 * chirp w_n = e^(-i pi n^2 / m). The chirp's transform is made once. */
typedef struct chirp_dft {
  size_t m, l;
  double *w;  /* w_n, n < m: 2m doubles */
  double *bf; /* FFT of conj(w_|j|) laid out circularly: 2l doubles */
  double *a;  /* scratch: 2l doubles */
} chirp_dft;

static void chirp_free(chirp_dft *c) {
  free(c->w);
  free(c->bf);
  free(c->a);
}

static int chirp_init(chirp_dft *c, size_t m) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->l = 1;
  while (c->l < 2 * m - 1) c->l <<= 1;
  c->w = malloc(2 * m * sizeof *c->w);
  c->bf = calloc(2 * c->l, sizeof *c->bf);
  c->a = malloc(2 * c->l * sizeof *c->a);
  if (!c->w || !c->bf || !c->a) {
    chirp_free(c);
    return -1;
  }
  for (size_t n = 0; n < m; n++) {
    /* n^2 mod 2m keeps the angle exact however large n^2 grows. */
    double q = (double)((uint64_t)n * n % (2 * (uint64_t)m));
    double ang = -M_PI * q / (double)m;
    c->w[2 * n] = cos(ang);
    c->w[2 * n + 1] = sin(ang);
  }
  for (size_t j = 0; j < m; j++) {
    c->bf[2 * j] = c->w[2 * j];
    c->bf[2 * j + 1] = -c->w[2 * j + 1];
    if (j > 0) {
      c->bf[2 * (c->l - j)] = c->w[2 * j];
      c->bf[2 * (c->l - j) + 1] = -c->w[2 * j + 1];
    }
  }
  if (design_fft(c->bf, c->l) != 0) {
    chirp_free(c);
    return -1;
  }
  return 0;
}

/* The DFT of x (m complex values, interleaved) into x's first k_out bins. */
static int chirp_run(chirp_dft *c, double *x, size_t k_out) {
  double *a = c->a;
  memset(a, 0, 2 * c->l * sizeof *a);
  for (size_t n = 0; n < c->m; n++) {
    double xr = x[2 * n], xi = x[2 * n + 1], wr = c->w[2 * n], wi = c->w[2 * n + 1];
    a[2 * n] = xr * wr - xi * wi;
    a[2 * n + 1] = xr * wi + xi * wr;
  }
  if (design_fft(a, c->l) != 0) return -1;
  /* Multiply by the chirp's transform, conjugated so that a forward FFT
   * gives the inverse (conjugated back below, with the 1 / l). */
  for (size_t j = 0; j < c->l; j++) {
    double ar = a[2 * j], ai = a[2 * j + 1], br = c->bf[2 * j], bi = c->bf[2 * j + 1];
    a[2 * j] = ar * br - ai * bi;
    a[2 * j + 1] = -(ar * bi + ai * br);
  }
  if (design_fft(a, c->l) != 0) return -1;
  const double inv = 1.0 / (double)c->l;
  for (size_t k = 0; k < k_out; k++) {
    double vr = a[2 * k] * inv, vi = -a[2 * k + 1] * inv, wr = c->w[2 * k], wi = c->w[2 * k + 1];
    x[2 * k] = vr * wr - vi * wi;
    x[2 * k + 1] = vr * wi + vi * wr;
  }
  return 0;
}

static int is_pow2(size_t m) {
  return m && (m & (m - 1)) == 0;
}

/* numpy.unwrap's step: the wrapped difference in [-pi, pi), +pi kept for a
 * positive step of exactly pi. */
static double wrap_step(double d) {
  double r = d + M_PI - 2.0 * M_PI * floor((d + M_PI) / (2.0 * M_PI)) - M_PI;
  if (r == -M_PI && d > 0) r = M_PI;
  return r;
}

convoy_status convoy_taps_response(const float *taps, int64_t length, int64_t points,
                                   convoy_response_point *response, char *err, size_t err_size) {
  if (!taps || !response)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "convoy_taps_response: NULL taps or response");
  if (length < 1 || points < 2 || points > CONVOY_RESPONSE_MAX_POINTS)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "convoy_taps_response: %lld taps, %lld points (want at least 1 "
                               "tap and 2 .. %lld points)",
                               (long long)length, (long long)points,
                               (long long)CONVOY_RESPONSE_MAX_POINTS);
  for (int64_t n = 0; n < length; n++)
    if (!isfinite(taps[n]))
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "convoy_taps_response: tap %lld is not a finite number",
                                 (long long)n);

  const size_t m = 2 * (size_t)(points - 1), k_out = (size_t)points;
  double *h = calloc(2 * m, sizeof *h);
  double *b = calloc(2 * m, sizeof *b);
  chirp_dft c;
  int pow2 = is_pow2(m), bad = !h || !b;
  if (!bad && !pow2) bad = chirp_init(&c, m) != 0;
  if (bad) {
    free(h);
    free(b);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "convoy_taps_response: out of memory for %lld points",
                               (long long)points);
  }
  const double centre = (double)(length - 1) / 2.0;
  for (int64_t n = 0; n < length; n++) {
    size_t r = (size_t)n % m;
    h[2 * r] += taps[n];
    b[2 * r] += ((double)n - centre) * taps[n];
  }
  if (pow2)
    bad = design_fft(h, m) != 0 || design_fft(b, m) != 0;
  else
    bad = chirp_run(&c, h, k_out) != 0 || chirp_run(&c, b, k_out) != 0;
  if (!pow2) chirp_free(&c);
  if (bad) {
    free(h);
    free(b);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "convoy_taps_response: out of memory for %lld points",
                               (long long)points);
  }

  double raw_prev = 0.0, unwrap = 0.0;
  for (size_t k = 0; k < k_out; k++) {
    convoy_response_point *p = &response[k];
    double hr = h[2 * k], hi = h[2 * k + 1];
    double power = hr * hr + hi * hi;
    p->frequency = (double)k / (double)m;
    p->magnitude_db = power > 0.0 ? 20.0 * log10(hypot(hr, hi)) : -INFINITY;
    double raw = power > 0.0 ? atan2(hi, hr) : raw_prev;
    if (k > 0) {
      double d = raw - raw_prev;
      if (fabs(d) >= M_PI) unwrap += wrap_step(d) - d;
    }
    p->phase = raw + unwrap;
    raw_prev = raw;
    p->group_delay =
        power > 0.0 ? centre + (b[2 * k] * hr + b[2 * k + 1] * hi) / power : (double)NAN;
  }
  free(h);
  free(b);
  return CONVOY_OK;
}
