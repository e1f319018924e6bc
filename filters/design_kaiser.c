/* design_kaiser.c - Kaiser-windowed sinc taps and convoy_design_taps.
 *
 * From width and atten the length comes from Kaiser's formula; the result is
 * then measured (design_measure) and, where the formula falls short of the
 * spec (it is an empirical fit; two transition bands close together, or
 * close to 0 Hz or Nyquist, add their ripples), the design attenuation is
 * raised by the shortfall and the filter made again, which grows both the
 * window's beta and the length. */
#include "design_internal.h"
#include "bessel_i0.h"
#include "taps_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Designs up to this length are measured directly (an FFT of 8x the length,
 * 16 bytes a point). Longer ones are settled on a shorter stand-in with the
 * same geometry (make_proxy), plus PROXY_MARGIN_DB for what the stand-in
 * leaves out. */
#define VERIFY_MAX_TAPS ((int64_t)1 << 17)
#define PROXY_MARGIN_DB 0.5
/* The measurement grid may miss a lobe's peak by up to 0.17 dB; aim lower. */
#define MEASURE_MARGIN_DB 0.2
#define MAX_ROUNDS 40

double design_kaiser_beta(double atten) {
  if (atten > 50) return 0.1102 * (atten - 8.7);
  if (atten >= 21) return 0.5842 * pow(atten - 21, 0.4) + 0.07886 * (atten - 21);
  return 0.0;
}

double design_kaiser_length(double atten, double width, double rate) {
  double n = ceil((atten - 7.95) / (14.36 * width / rate)) + 1;
  if (!(n < 4.0 * (double)DESIGN_MAX_TAPS)) return 4.0 * (double)DESIGN_MAX_TAPS; /* and NaN */
  if (n < 1) n = 1;
  if (fmod(n, 2.0) == 0) n += 1;
  return n;
}

/* 2 fc / rate * sinc(2 fc / rate * t): the ideal lowpass at offset t. */
static double ideal_lowpass(double fc, double rate, double t) {
  double a = 2.0 * fc / rate;
  if (t == 0) return a;
  return sin(M_PI * a * t) / (M_PI * t);
}

int design_fill(const convoy_design *d, int64_t n, double beta, double *h) {
  double mid = (double)(n - 1) / 2.0;
  double i0_beta = bessel_i0(beta);
  double rate = d->rate;
  for (int64_t i = 0; i < n; i++) {
    double t = (double)i - mid;
    double r = n > 1 ? t / mid : 0.0;
    double w = bessel_i0(beta * sqrt(fmax(0.0, 1.0 - r * r))) / i0_beta;
    double ideal;
    switch (d->type) {
    case CONVOY_DESIGN_LOWPASS:
      ideal = ideal_lowpass(d->cutoff, rate, t);
      break;
    case CONVOY_DESIGN_HIGHPASS:
      ideal = (t == 0) - ideal_lowpass(d->cutoff, rate, t);
      break;
    case CONVOY_DESIGN_BANDPASS:
      ideal = ideal_lowpass(d->high, rate, t) - ideal_lowpass(d->low, rate, t);
      break;
    default:
      ideal = (t == 0) - ideal_lowpass(d->high, rate, t) + ideal_lowpass(d->low, rate, t);
      break;
    }
    h[i] = ideal * w;
  }

  /* Gain of the linear-phase response at the reference frequency. */
  double f0 = 0.0;
  if (d->type == CONVOY_DESIGN_HIGHPASS) f0 = rate / 2;
  if (d->type == CONVOY_DESIGN_BANDPASS) f0 = (d->low + d->high) / 2;
  double gain = 0.0;
  for (int64_t i = 0; i < n; i++) gain += h[i] * cos(2.0 * M_PI * f0 / rate * ((double)i - mid));
  if (!(fabs(gain) > 1e-9)) return -1;
  for (int64_t i = 0; i < n; i++) h[i] /= gain;
  return 0;
}

/* Fills *h (replacing it) with n taps of d windowed with beta(atten). */
static convoy_status make(const convoy_design *d, int64_t n, double atten, double **h,
                          const char *label, char *err, size_t err_size) {
  free(*h);
  *h = malloc((size_t)n * sizeof **h);
  if (!*h)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "%s: out of memory for %lld taps", label, (long long)n);
  if (design_fill(d, n, design_kaiser_beta(atten), *h) != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: %lld taps give no gain in the passband: use more taps", label,
                               (long long)n);
  return CONVOY_OK;
}

static convoy_status too_long(const convoy_design *d, const char *label, char *err,
                              size_t err_size) {
  return convoy_error_format(
      err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
      "%s: meeting atten %.10g dB over a width of %.10g Hz needs more than %lld "
      "taps: widen the transition",
      label, d->atten, d->width, (long long)DESIGN_MAX_TAPS);
}

/* Designs d from its width, raising the design attenuation *atten (start:
 * d->atten) until the measured response meets d's spec. On success *h holds
 * the *n taps of the passing design. */
static convoy_status meet_spec(const convoy_design *d, double *atten, double **h, int64_t *n,
                               const char *label, char *err, size_t err_size) {
  double delta = pow(10.0, -d->atten / 20.0);
  double target = delta * pow(10.0, -MEASURE_MARGIN_DB / 20.0);
  for (int round = 0;; round++) {
    double len = design_kaiser_length(*atten, d->width, d->rate);
    if (len > (double)DESIGN_MAX_TAPS) return too_long(d, label, err, err_size);
    *n = (int64_t)len;
    convoy_status st = make(d, *n, *atten, h, label, err, err_size);
    if (st != CONVOY_OK) return st;
    double pass_err, stop_err;
    if (design_measure(d, *h, *n, &pass_err, &stop_err) != 0)
      return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                 label);
    double worst = fmax(pass_err, stop_err) / target;
    if (worst <= 1.0) return CONVOY_OK;
    if (round == MAX_ROUNDS)
      return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                                 "%s: the design did not reach atten %.10g dB", label, d->atten);
    *atten += fmax(0.25, 20.0 * log10(worst));
  }
}

/* A long design's stand-in of about PROXY_TAPS taps. The response of a
 * Kaiser-windowed sinc, with frequencies measured in transition widths,
 * depends on beta and on the distances between the band edges and their
 * mirror images at 0 Hz and Nyquist, not on the length itself; ripples
 * from edges more than PROXY_CAP widths apart barely interact. The proxy
 * keeps every gap up to PROXY_CAP widths and shrinks the largest gap, so
 * the attenuation that makes the proxy pass makes the long design pass. */
#define PROXY_TAPS 32768.0
#define PROXY_CAP 64.0
static convoy_design make_proxy(const convoy_design *d) {
  convoy_design p = *d;
  double nyq = d->rate / 2, w = d->width;
  int two_edges = d->type == CONVOY_DESIGN_BANDPASS || d->type == CONVOY_DESIGN_BANDSTOP;
  double gap[3];
  int n_gaps;
  if (two_edges) {
    gap[0] = d->low / w;
    gap[1] = (d->high - d->low) / w;
    gap[2] = (nyq - d->high) / w;
    n_gaps = 3;
  } else {
    gap[0] = d->cutoff / w;
    gap[1] = (nyq - d->cutoff) / w;
    n_gaps = 2;
  }
  int largest = 0;
  for (int i = 1; i < n_gaps; i++)
    if (gap[i] > gap[largest]) largest = i;
  /* Kaiser's length is about 2 (atten - 7.95) / 14.36 taps per width of Nyquist. */
  double total = PROXY_TAPS * 14.36 / (2.0 * (d->atten - 7.95));
  double others = 0;
  for (int i = 0; i < n_gaps; i++) {
    if (i == largest) continue;
    gap[i] = fmin(gap[i], PROXY_CAP);
    others += gap[i];
  }
  gap[largest] = fmax(total - others, PROXY_CAP);
  total = others + gap[largest];
  p.width = nyq / total;
  if (two_edges) {
    p.low = gap[0] * p.width;
    p.high = (gap[0] + gap[1]) * p.width;
  } else {
    p.cutoff = gap[0] * p.width;
  }
  return p;
}

convoy_status convoy_design_taps(const convoy_design *design, convoy_taps *taps, char *err,
                                 size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!taps)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "design: NULL argument");
  memset(taps, 0, sizeof *taps);
  if (!design)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "design: NULL argument");
  convoy_design d = *design;
  if (d.atten == 0) d.atten = DESIGN_DEFAULT_ATTEN;
  char label[32];
  snprintf(label, sizeof label, "%s design", convoy_design_type_name(d.type));
  convoy_status st = design_check(&d, label, err, err_size);
  if (st != CONVOY_OK) return st;

  double *h = NULL;
  int64_t n = d.taps;
  double atten = d.atten;
  if (d.taps > 0) {
    st = make(&d, n, atten, &h, label, err, err_size);
  } else if (design_kaiser_length(atten, d.width, d.rate) <= (double)VERIFY_MAX_TAPS) {
    st = meet_spec(&d, &atten, &h, &n, label, err, err_size);
  } else {
    convoy_design proxy = make_proxy(&d);
    st = meet_spec(&proxy, &atten, &h, &n, label, err, err_size);
    if (st == CONVOY_OK) {
      atten += PROXY_MARGIN_DB;
      double len = design_kaiser_length(atten, d.width, d.rate);
      if (len > (double)DESIGN_MAX_TAPS)
        st = too_long(&d, label, err, err_size);
      else
        st = make(&d, n = (int64_t)len, atten, &h, label, err, err_size);
    }
  }
  if (st == CONVOY_OK) st = taps_alloc(taps, 1, n, label, err, err_size);
  if (st == CONVOY_OK) {
    for (int64_t i = 0; i < n; i++) taps->data[i] = (float)h[i];
    taps->rate = d.rate;
  }
  free(h);
  return st;
}
