/* test_response.c - convoy_taps_response against a direct DTFT in long double.
 *
 * Random and designed taps, lengths below and far above the grid's period
 * (folding), grids whose period is a power of 2 (radix-2 FFT) and not
 * (Bluestein): every point's frequency, magnitude (within 1e-9 of |H| plus
 * 1e-9 relative), wrapped phase where |H| is not tiny, group delay against
 * Re(DFT(n h) / H) where |H| is not tiny, and (N - 1) / 2 for symmetric taps;
 * the phase is unwrapped (no step beyond pi); exact zeros give -inf dB and a
 * NaN delay; bad arguments are refused. */
#include "convoy_taps.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* e^(2 pi i f n) with the angle reduced in cycles first, in long double. */
static void phasor(double f, int64_t n, long double *c, long double *s) {
  long double a = 2.0L * 3.141592653589793238462643383279503L * fmodl((long double)f * n, 1.0L);
  *c = cosl(a);
  *s = sinl(a);
}

/* H(f) and sum n h[n] e^(-2 pi i f n) by direct summation in long double, the
 * phasor advanced by complex multiplication and recomputed exactly every 64
 * taps to bound drift. */
static void dtft(const float *h, int64_t n, double f, long double *hr, long double *hi,
                 long double *br, long double *bi) {
  *hr = *hi = *br = *bi = 0.0L;
  long double sc, ss, pc = 1.0L, ps = 0.0L;
  phasor(f, 1, &sc, &ss);
  for (int64_t i = 0; i < n; i++) {
    if ((i & 63) == 0) phasor(f, i, &pc, &ps);
    *hr += h[i] * pc;
    *hi -= h[i] * ps;
    *br += (long double)i * h[i] * pc;
    *bi -= (long double)i * h[i] * ps;
    long double t = pc * sc - ps * ss;
    ps = pc * ss + ps * sc;
    pc = t;
  }
}

static void check(const char *what, const float *h, int64_t n, int64_t points, int symmetric) {
  convoy_response_point *r = malloc((size_t)points * sizeof *r);
  char err[256];
  TS_CHECK(r && convoy_taps_response(h, n, points, r, err, sizeof err) == CONVOY_OK, "%s: %s", what,
           err);
  if (!r) return;
  double sum_abs = 0;
  for (int64_t i = 0; i < n; i++) sum_abs += fabs(h[i]);
  int bad_f = 0, bad_mag = 0, bad_phase = 0, bad_gd = 0, bad_wrap = 0, bad_sym = 0;
  /* Every point for small grids; a stride over large ones. */
  int64_t step = points > 1024 ? points / 512 : 1;
  for (int64_t k = 0; k < points; k++) {
    if (k > 0 && fabs(r[k].phase - r[k - 1].phase) > M_PI + 1e-12) bad_wrap++;
    if (k % step != 0 && k != points - 1) continue;
    double f = (double)k / (2.0 * (double)(points - 1));
    if (fabs(r[k].frequency - f) > 1e-15) bad_f++;
    long double hr, hi, br, bi;
    dtft(h, n, f, &hr, &hi, &br, &bi);
    double mag = (double)sqrtl(hr * hr + hi * hi);
    double got = pow(10.0, r[k].magnitude_db / 20.0);
    if (fabs(got - mag) > 1e-12 * sum_abs + 1e-9 * mag) bad_mag++;
    if (mag > 1e-6 * sum_abs) {
      double ph = (double)atan2l(hi, hr);
      double d = remainder(r[k].phase - ph, 2.0 * M_PI);
      if (fabs(d) > 1e-6) bad_phase++;
      long double p2 = hr * hr + hi * hi;
      double gd = (double)((br * hr + bi * hi) / p2);
      if (fabs(r[k].group_delay - gd) > 1e-6 * (1.0 + fabs(gd))) bad_gd++;
      if (symmetric && fabs(r[k].group_delay - (double)(n - 1) / 2.0) > 1e-6) bad_sym++;
    }
  }
  TS_CHECK(bad_f == 0, "%s: %d frequencies off the grid", what, bad_f);
  TS_CHECK(bad_mag == 0, "%s: %d magnitudes off", what, bad_mag);
  TS_CHECK(bad_phase == 0, "%s: %d phases off", what, bad_phase);
  TS_CHECK(bad_gd == 0, "%s: %d group delays off", what, bad_gd);
  TS_CHECK(bad_wrap == 0, "%s: %d steps beyond pi (not unwrapped)", what, bad_wrap);
  TS_CHECK(bad_sym == 0, "%s: %d group delays not (N - 1) / 2", what, bad_sym);
  free(r);
}

static void test_random(void) {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_response"));
  static const int64_t lengths[] = {1, 2, 7, 100, 4095, 4096, 20001};
  static const int64_t grids[] = {2, 3, 17, 513, 2048, 2049, 5000};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    float *h = malloc((size_t)lengths[i] * sizeof *h);
    if (!h) continue;
    ts_fill_uniform(&rng, h, lengths[i]);
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
      char what[96];
      snprintf(what, sizeof what, "%lld random taps, %lld points", (long long)lengths[i],
               (long long)grids[g]);
      check(what, h, lengths[i], grids[g], 0);
    }
    free(h);
  }
}

static void test_designs(void) {
  static const char *const specs[] = {"lowpass:cutoff=4000,width=500,atten=80,rate=48000",
                                      "highpass:cutoff=300,width=200,atten=100,rate=48000",
                                      "bandpass:low=300,high=3400,taps=510,rate=8000",
                                      "bandstop:low=45,high=55,width=10,rate=1000"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    convoy_design d;
    convoy_taps t;
    memset(&t, 0, sizeof t);
    char err[256];
    TS_CHECK(convoy_design_parse(specs[i], 0, &d, err, sizeof err) == CONVOY_OK &&
                 convoy_design_taps(&d, &t, err, sizeof err) == CONVOY_OK,
             "%s: %s", specs[i], err);
    if (t.data) {
      check(specs[i], t.data, t.length, 2048, 1);
      check(specs[i], t.data, t.length, 1025, 1);
    }
    convoy_taps_free(&t);
  }
}

static void test_zeros_and_errors(void) {
  /* [1, 1]: H = 1 + e^(-i w) is exactly 0 at Nyquist. */
  const float two[2] = {1.0f, 1.0f};
  convoy_response_point r[3];
  char err[256] = "";
  TS_CHECK(convoy_taps_response(two, 2, 3, r, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(r[0].magnitude_db == 20.0 * log10(2.0) && r[0].group_delay == 0.5 && r[0].phase == 0.0,
           "DC of [1, 1]: 6.02 dB, delay 0.5, phase 0");
  TS_CHECK(fabs(r[1].magnitude_db - 20.0 * log10(sqrt(2.0))) < 1e-12 &&
               fabs(r[1].phase + M_PI / 4) < 1e-12,
           "quarter rate of [1, 1]: 3.01 dB, phase -pi/4");
  TS_CHECK(isinf(r[2].magnitude_db) && r[2].magnitude_db < 0 && isnan(r[2].group_delay) &&
               r[2].phase == r[1].phase,
           "Nyquist of [1, 1]: -inf dB, NaN delay, the previous phase");

  const float one = 1.0f;
  TS_CHECK(convoy_taps_response(NULL, 1, 2, r, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "NULL taps");
  TS_CHECK(convoy_taps_response(&one, 1, 2, NULL, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "NULL response");
  TS_CHECK(convoy_taps_response(&one, 0, 2, r, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "no taps");
  TS_CHECK(convoy_taps_response(&one, 1, 1, r, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "1 points"),
           "one point: %s", err);
  TS_CHECK(convoy_taps_response(&one, 1, CONVOY_RESPONSE_MAX_POINTS + 1, r, err, sizeof err) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "too many points");
  const float nan_tap[2] = {1.0f, NAN};
  TS_CHECK(convoy_taps_response(nan_tap, 2, 2, r, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "tap 1"),
           "NaN tap: %s", err);
}

int main(void) {
  test_random();
  test_designs();
  test_zeros_and_errors();
  return ts_finish();
}
