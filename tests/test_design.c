/* test_design.c - windowed-sinc designs meet their spec, measured here.
 *
 * For a grid of lowpass/highpass/bandpass/bandstop specs at 8, 44.1, 48 and
 * 96 kHz, 40..100 dB and several transition widths, the float taps returned
 * are checked by a direct DTFT in double precision on a dense grid (at least
 * 8192 points and 16 per ripple lobe) plus the band edges:
 *   - odd length, exactly symmetric taps (linear phase), the right rate;
 *   - passband | |H| - 1 | <= delta and stopband |H| <= delta, where
 *     delta = 10^(-atten/20) is Kaiser's ripple for the asked attenuation,
 *     with a tolerance of 0.5 dB on delta (TOL_DB) plus the float32 rounding
 *     of the taps (at most 2^-24 * sum |h|, which only matters near 140 dB);
 *   - unity gain at DC / Nyquist / band centre;
 *   - |H| = 0.5 (-6 dB) at each cutoff, within 2 delta + 0.005.
 * Explicit taps= counts are honoured (even ones for lowpass/bandpass), a
 * long design is checked around its band edges, and every invalid spec is
 * refused with a message naming the spec and the problem. */
#include "convoy_taps.h"
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define TOL_DB 0.5

/* |H(f)| of real taps by direct summation, the phasor advanced by complex
 * multiplication and recomputed exactly every 64 taps to bound drift. The
 * linear-phase factor is dropped (|H| is what is measured). */
static double dtft_mag(const float *h, int64_t n, double f, double rate) {
  double w = 2.0 * M_PI * f / rate;
  double cr = cos(w), ci = sin(w);
  double re = 0, im = 0, pr = 1, pi = 0;
  for (int64_t i = 0; i < n; i++) {
    if ((i & 63) == 0) {
      pr = cos(w * (double)i);
      pi = sin(w * (double)i);
    }
    re += h[i] * pr;
    im -= h[i] * pi;
    double t = pr * cr - pi * ci;
    pi = pr * ci + pi * cr;
    pr = t;
  }
  return hypot(re, im);
}

typedef struct spec_result {
  double pass_err, stop_err; /* worst | |H| - 1 | in passbands, worst |H| in stopbands */
} spec_result;

enum { BAND_NONE, BAND_PASS, BAND_STOP };

static int band_of(const convoy_design *d, double f) {
  double w2 = d->width / 2;
  int lo_in, hi_in, mid_in;
  switch (d->type) {
  case CONVOY_DESIGN_LOWPASS:
  case CONVOY_DESIGN_HIGHPASS:
    lo_in = f <= d->cutoff - w2;
    hi_in = f >= d->cutoff + w2;
    if (!lo_in && !hi_in) return BAND_NONE;
    return (lo_in == (d->type == CONVOY_DESIGN_LOWPASS)) ? BAND_PASS : BAND_STOP;
  default:
    lo_in = f <= d->low - w2 || f >= d->high + w2;
    mid_in = f >= d->low + w2 && f <= d->high - w2;
    if (!lo_in && !mid_in) return BAND_NONE;
    return (mid_in == (d->type == CONVOY_DESIGN_BANDPASS)) ? BAND_PASS : BAND_STOP;
  }
}

static void account(const convoy_design *d, const convoy_taps *t, double f, spec_result *r) {
  int band = band_of(d, f);
  if (band == BAND_NONE) return;
  double m = dtft_mag(t->data, t->length, f, d->rate);
  if (band == BAND_PASS && fabs(m - 1) > r->pass_err) r->pass_err = fabs(m - 1);
  if (band == BAND_STOP && m > r->stop_err) r->stop_err = m;
}

static int n_edges(const convoy_design *d, double *e) {
  double w2 = d->width / 2;
  if (d->type == CONVOY_DESIGN_LOWPASS || d->type == CONVOY_DESIGN_HIGHPASS) {
    e[0] = d->cutoff - w2;
    e[1] = d->cutoff + w2;
    return 2;
  }
  e[0] = d->low - w2;
  e[1] = d->low + w2;
  e[2] = d->high - w2;
  e[3] = d->high + w2;
  return 4;
}

/* Dense grid over [0, Nyquist] plus the exact band edges. */
static spec_result measure_full(const convoy_design *d, const convoy_taps *t) {
  spec_result r = {0, 0};
  int64_t points = 16 * t->length > 8192 ? 16 * t->length : 8192;
  for (int64_t k = 0; k <= points; k++) account(d, t, d->rate / 2 * (double)k / (double)points, &r);
  double e[4];
  int ne = n_edges(d, e);
  for (int i = 0; i < ne; i++) account(d, t, e[i], &r);
  return r;
}

/* For long designs: 16 points per lobe over 24 lobes either side of each band edge
 * (where a windowed sinc's largest ripples are), and a coarse sweep. */
static spec_result measure_edges(const convoy_design *d, const convoy_taps *t) {
  spec_result r = {0, 0};
  double lobe = d->rate / (double)t->length, e[4];
  int ne = n_edges(d, e);
  for (int i = 0; i < ne; i++) {
    for (int k = -384; k <= 384; k++) {
      double f = e[i] + lobe * k / 16.0;
      if (f >= 0 && f <= d->rate / 2) account(d, t, f, &r);
    }
  }
  for (int k = 0; k <= 1000; k++) account(d, t, d->rate / 2 * k / 1000.0, &r);
  return r;
}

static double sum_abs(const convoy_taps *t) {
  double s = 0;
  for (int64_t i = 0; i < t->length; i++) s += fabs(t->data[i]);
  return s;
}

static int symmetric(const convoy_taps *t) {
  for (int64_t i = 0; i < t->length / 2; i++)
    if (t->data[i] != t->data[t->length - 1 - i]) return 0;
  return 1;
}

/* Gain where the design is normalised to 1. */
static double reference_gain(const convoy_design *d, const convoy_taps *t) {
  double f = 0;
  if (d->type == CONVOY_DESIGN_HIGHPASS) f = d->rate / 2;
  if (d->type == CONVOY_DESIGN_BANDPASS) f = (d->low + d->high) / 2;
  return dtft_mag(t->data, t->length, f, d->rate);
}

/* Parses and designs spec; returns 0 and fills *d, *t, or reports failure. */
static int design(const char *spec, double rate, convoy_design *d, convoy_taps *t) {
  char err[256] = "";
  convoy_status st = convoy_design_parse(spec, rate, d, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: parse: %s (%s)", spec, convoy_strerror(st), err);
  if (st != CONVOY_OK) return -1;
  st = convoy_design_taps(d, t, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: design: %s (%s)", spec, convoy_strerror(st), err);
  return st == CONVOY_OK ? 0 : -1;
}

static void check_structure(const char *spec, const convoy_design *d, const convoy_taps *t) {
  TS_CHECK(t->channels == 1 && t->length >= 1, "%s: %d x %lld", spec, (int)t->channels,
           (long long)t->length);
  TS_CHECK(t->rate == d->rate, "%s: rate %g, want %g", spec, t->rate, d->rate);
  TS_CHECK(symmetric(t), "%s: taps not symmetric", spec);
  int finite = 1;
  for (int64_t i = 0; i < t->length; i++) finite &= isfinite(t->data[i]) != 0;
  TS_CHECK(finite, "%s: non-finite taps", spec);
  /* Float rounding of the taps moves the gain by at most 2^-24 sum |h|. */
  double g = reference_gain(d, t);
  TS_CHECK(fabs(g - 1) <= 1e-6 + 0x1p-24 * sum_abs(t), "%s: reference gain %.9g", spec, g);
}

static void check_cutoffs(const char *spec, const convoy_design *d, const convoy_taps *t,
                          double delta) {
  double f[2] = {d->cutoff, 0};
  int n = 1;
  if (d->type == CONVOY_DESIGN_BANDPASS || d->type == CONVOY_DESIGN_BANDSTOP) {
    f[0] = d->low;
    f[1] = d->high;
    n = 2;
  }
  for (int i = 0; i < n; i++) {
    double m = dtft_mag(t->data, t->length, f[i], d->rate);
    TS_CHECK(fabs(m - 0.5) <= 2 * delta + 0.005, "%s: |H(%g Hz)| = %.5f (%.2f dB), want -6.02 dB",
             spec, f[i], m, 20 * log10(m));
  }
}

static void check_spec(const char *spec, double rate, int full) {
  convoy_design d;
  convoy_taps t;
  if (design(spec, rate, &d, &t) != 0) return;
  check_structure(spec, &d, &t);
  TS_CHECK(t.length % 2 == 1, "%s: even length %lld", spec, (long long)t.length);
  double delta = pow(10.0, -d.atten / 20.0);
  double allowed = delta * pow(10.0, TOL_DB / 20.0) + 0x1p-24 * sum_abs(&t);
  spec_result r = full ? measure_full(&d, &t) : measure_edges(&d, &t);
  TS_CHECK(r.stop_err <= allowed, "%s: stopband %.2f dB, want <= -%g dB (%lld taps)", spec,
           20 * log10(r.stop_err), d.atten, (long long)t.length);
  TS_CHECK(r.pass_err <= allowed, "%s: passband ripple %.3g, want <= %.3g (%lld taps)", spec,
           r.pass_err, delta, (long long)t.length);
  check_cutoffs(spec, &d, &t, delta);
  convoy_taps_free(&t);
}

static void test_grid(void) {
  const double rates_full[] = {8000, 44100, 48000, 96000};
  const double rates_quick[] = {8000, 48000};
  const double attens_full[] = {40, 60, 80, 100};
  const double attens_quick[] = {40, 100};
  int quick = ts_quick();
  const double *rates = quick ? rates_quick : rates_full;
  const double *attens = quick ? attens_quick : attens_full;
  int n_rates = quick ? 2 : 4, n_attens = quick ? 2 : 4;
  int designs = 0;
  for (int ri = 0; ri < n_rates; ri++) {
    double fs = rates[ri];
    for (int ai = 0; ai < n_attens; ai++) {
      double a = attens[ai];
      /* Widths as fractions of the rate, and geometries that put the
       * transition bands next to 0 Hz, Nyquist and each other. */
      double widths[] = {fs / 25, fs / 160};
      for (int wi = 0; wi < 2; wi++) {
        double w = widths[wi];
        char spec[10][160];
        int n = 0;
        snprintf(spec[n++], 160, "lowpass:cutoff=%.10g,width=%.10g,atten=%g", 0.2 * fs, w, a);
        snprintf(spec[n++], 160, "lowpass:cutoff=%.10g,width=%.10g,atten=%g", fs / 2 - w / 2, w, a);
        snprintf(spec[n++], 160, "highpass:cutoff=%.10g,width=%.10g,atten=%g", 0.3 * fs, w, a);
        snprintf(spec[n++], 160, "highpass:cutoff=%.10g,width=%.10g,atten=%g", w / 2, w, a);
        snprintf(spec[n++], 160, "bandpass:low=%.10g,high=%.10g,width=%.10g,atten=%g", 0.1 * fs,
                 0.25 * fs, w, a);
        snprintf(spec[n++], 160, "bandpass:low=%.10g,high=%.10g,width=%.10g,atten=%g", 0.2 * fs,
                 0.2 * fs + 1.1 * w, w, a);
        snprintf(spec[n++], 160, "bandstop:low=%.10g,high=%.10g,width=%.10g,atten=%g", 0.1 * fs,
                 0.25 * fs, w, a);
        snprintf(spec[n++], 160, "bandstop:low=%.10g,high=%.10g,width=%.10g,atten=%g,rate=%g",
                 w / 2, fs / 2 - w / 2, w, a, fs);
        for (int i = 0; i < n; i++) {
          /* The last spec carries rate= itself; the others take it as the argument. */
          check_spec(spec[i], i == n - 1 ? 0 : fs, 1);
          designs++;
        }
      }
    }
  }
  printf("grid: %d designs measured\n", designs);
}

/* The most attenuation a design may ask for is met by its float32 taps. */
static void test_high_atten(void) {
  const char *specs[] = {"lowpass:cutoff=5000,width=1000,atten=120",
                         "bandstop:low=3000,high=9000,width=1500,atten=120",
                         "highpass:cutoff=4000,width=2000,atten=120",
                         "bandpass:low=2000,high=8000,width=200,atten=120"};
  for (int i = 0; i < 4; i++) check_spec(specs[i], 48000, 1);
}

/* Longer than the designer measures directly (2^17 taps): settled on a
 * stand-in, checked here around the band edges. */
static void test_long(void) {
  if (ts_quick()) return;
  check_spec("lowpass:cutoff=1000,width=1,atten=60", 48000, 0);
  check_spec("bandpass:low=2000,high=2001.2,width=1,atten=50", 48000, 0);
}

static void test_explicit_taps(void) {
  struct {
    const char *spec;
    int64_t n;
  } cases[] = {{"lowpass:cutoff=6000,taps=64", 64},
               {"lowpass:cutoff=6000,taps=65,atten=60", 65},
               {"highpass:cutoff=6000,taps=101", 101},
               {"bandpass:low=4000,high=12000,taps=100", 100},
               {"bandstop:low=4000,high=12000,taps=201,atten=40", 201},
               {"lowpass:cutoff=1000,taps=1", 1},
               {"highpass:cutoff=1000,taps=1", 1},
               {"bandpass:low=1000,high=2000,taps=2", 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    convoy_design d;
    convoy_taps t;
    if (design(cases[i].spec, 48000, &d, &t) != 0) continue;
    TS_CHECK(t.length == cases[i].n, "%s: length %lld", cases[i].spec, (long long)t.length);
    check_structure(cases[i].spec, &d, &t);
    /* The cutoff is the -6 dB point once the transition is much narrower
     * than the band (64 taps at 48 kHz: about 3.7 kHz wide at 80 dB). */
    if (cases[i].n >= 64) check_cutoffs(cases[i].spec, &d, &t, 0.01);
    convoy_taps_free(&t);
  }
}

static void test_parse(void) {
  convoy_design d;
  char err[256];
  TS_CHECK_OK(
      convoy_design_parse(" LowPass : Cutoff = 1000 , WIDTH=100 ,", 8000, &d, err, sizeof err));
  TS_CHECK(d.type == CONVOY_DESIGN_LOWPASS && d.cutoff == 1000 && d.width == 100 && d.atten == 80 &&
               d.rate == 8000 && d.taps == 0,
           "lenient spelling parsed");
  TS_CHECK_OK(
      convoy_design_parse("lowpass:cutoff=6000,width=500,rate=48000", 8000, &d, err, sizeof err));
  TS_CHECK(d.rate == 48000, "rate= in the spec wins over the argument");
  TS_CHECK_OK(
      convoy_design_parse("bandpass:low=300,high=3400,taps=511", 8000, &d, err, sizeof err));
  TS_CHECK(d.type == CONVOY_DESIGN_BANDPASS && d.low == 300 && d.high == 3400 && d.taps == 511 &&
               d.width == 0,
           "bandpass with taps");
  TS_CHECK_OK(convoy_design_parse("bandstop:low=50,high=70,width=10,atten=20.5", 1000, &d, err,
                                  sizeof err));
  TS_CHECK(d.atten == 20.5, "atten parsed");

  /* The documented example message, exactly. */
  convoy_status st =
      convoy_design_parse("lowpass:cutoff=30000,taps=31", 48000, &d, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT &&
               strcmp(err, "lowpass:cutoff=30000,taps=31: cutoff 30000 Hz is not below Nyquist "
                           "(24000 Hz)") == 0,
           "Nyquist message: '%s'", err);

  struct {
    const char *spec;
    double rate;
    const char *frag;
  } bad[] = {
      {"notch:cutoff=1000,width=100", 48000, "unknown filter type 'notch'"},
      {"", 48000, "empty design spec"},
      {":cutoff=1", 48000, "unknown filter type"},
      {"lowpass:cutoff=1000,widht=100", 48000, "unknown key 'widht'"},
      {"lowpass:width=100", 48000, "missing cutoff=HZ"},
      {"highpass", 48000, "missing cutoff=HZ"},
      {"bandpass:low=100,width=50", 48000, "missing high=HZ"},
      {"bandstop:high=100,width=50", 48000, "missing low=HZ"},
      {"lowpass:low=100,width=10", 48000, "'low' does not apply to lowpass"},
      {"bandpass:cutoff=100,low=1,high=2", 48000, "'cutoff' does not apply to bandpass"},
      {"lowpass:cutoff=1000,cutoff=2000,width=10", 48000, "'cutoff' given twice"},
      {"lowpass:cutoff", 48000, "'cutoff' is not key=value"},
      {"lowpass:cutoff=,width=100", 48000, "cutoff= has no value"},
      {"lowpass:cutoff=abc,width=100", 48000, "'abc' of cutoff= is not a number"},
      {"lowpass:cutoff=1k,width=100", 48000, "'1k' of cutoff= is not a number"},
      {"lowpass:cutoff=nan,width=100", 48000, "not a finite number"},
      {"lowpass:cutoff=inf,width=100", 48000, "not a finite number"},
      {"lowpass:cutoff=0,width=100", 48000, "cutoff 0 Hz is not above 0 Hz"},
      {"lowpass:cutoff=-5,width=100", 48000, "not above 0 Hz"},
      {"highpass:cutoff=24000,width=100", 48000, "is not below Nyquist (24000 Hz)"},
      {"bandpass:low=0,high=300,width=10", 48000, "low 0 Hz is not above 0 Hz"},
      {"bandpass:low=100,high=4000,width=10", 8000, "high 4000 Hz is not below Nyquist"},
      {"bandpass:low=3000,high=300,width=100", 48000, "low 3000 Hz is not below high 300 Hz"},
      {"bandstop:low=300,high=300,width=100", 48000, "not below high"},
      {"lowpass:cutoff=1000,width=0", 48000, "width=0 is not a positive width"},
      {"lowpass:cutoff=1000,width=-10", 48000, "not a positive width"},
      {"lowpass:cutoff=100,width=300", 48000, "reaches below 0 Hz"},
      {"highpass:cutoff=23900,width=300", 48000, "reaches above Nyquist (24000 Hz)"},
      {"bandpass:low=100,high=1000,width=300", 48000, "reaches below 0 Hz"},
      {"bandstop:low=1000,high=23900,width=300", 48000, "reaches above Nyquist"},
      {"bandpass:low=1000,high=1100,width=200", 48000, "transition bands overlap"},
      {"lowpass:cutoff=1000,width=100,atten=10", 48000, "atten 10 dB is outside 20..120 dB"},
      {"lowpass:cutoff=1000,width=100,atten=120.5", 48000, "float32 taps do not meet more"},
      {"lowpass:cutoff=1000,width=100,atten=250", 48000, "outside 20..120"},
      {"lowpass:cutoff=1000,taps=0", 48000, "taps=0 is outside 1..16777216"},
      {"lowpass:cutoff=1000,taps=-3", 48000, "outside 1..16777216"},
      {"lowpass:cutoff=1000,taps=16777217", 48000, "outside 1..16777216"},
      {"lowpass:cutoff=1000,taps=10.5", 48000, "taps=10.5 is not a whole number"},
      {"highpass:cutoff=1000,taps=100", 48000, "odd tap count"},
      {"bandstop:low=100,high=1000,taps=64", 48000, "taps=64 is even, use taps=65"},
      {"lowpass:cutoff=1000,width=100", 0, "needs a sample rate: add rate=HZ"},
      {"lowpass:cutoff=1000,width=100,rate=-48000", 0, "not a positive sample rate"},
      {"lowpass:cutoff=1000,width=100,rate=0", 48000, "not a positive sample rate"},
      {"lowpass:cutoff=1000", 48000, "needs width=HZ (transition width) or taps=N"},
      {"lowpass:cutoff=1000,width=100,taps=101", 48000, "not both"},
      {"lowpass:cutoff=1000,width=0.0001", 48000, "more than 16777216"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(err, 0, sizeof err);
    st = convoy_design_parse(bad[i].spec, bad[i].rate, &d, err, sizeof err);
    TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT, "'%s' accepted (%s)", bad[i].spec,
             convoy_strerror(st));
    TS_CHECK(strncmp(err, bad[i].spec, strlen(bad[i].spec)) == 0 && strstr(err, bad[i].frag),
             "'%s': message '%s' lacks the spec or '%s'", bad[i].spec, err, bad[i].frag);
  }
  /* The rate-free half: what it refuses, convoy_design_parse refuses with the
   * same message; what depends on the rate it leaves to convoy_design_parse. */
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char whole[512] = "", part[512] = "";
    convoy_design_parse(bad[i].spec, bad[i].rate, &d, whole, sizeof whole);
    if (convoy_design_parse_spec(bad[i].spec, &d, part, sizeof part) != CONVOY_OK)
      TS_CHECK(strcmp(whole, part) == 0, "'%s': parse_spec says '%s', parse '%s'", bad[i].spec,
               part, whole);
  }
  static const char *const at_some_rate[] = {
      "highpass:cutoff=24000,width=100", "lowpass:cutoff=1000,width=100",
      "bandpass:low=100,high=4000,width=10", "lowpass:cutoff=100,width=300"};
  for (size_t i = 0; i < sizeof at_some_rate / sizeof at_some_rate[0]; i++) {
    TS_CHECK(convoy_design_parse_spec(at_some_rate[i], &d, err, sizeof err) == CONVOY_OK &&
                 d.rate == 0,
             "'%s' refused without a rate: %s", at_some_rate[i], err);
  }
  static const char *const at_no_rate[] = {"notch:cutoff=1",
                                           "lowpass:cutoff=1000",
                                           "lowpass:cutoff=1000,width=100,atten=250",
                                           "bandpass:low=3000,high=300,width=100",
                                           "highpass:cutoff=1000,taps=100",
                                           "lowpass:cutoff=-5,width=100",
                                           "lowpass:cutoff=1000,width=100,taps=101"};
  for (size_t i = 0; i < sizeof at_no_rate / sizeof at_no_rate[0]; i++)
    TS_CHECK(convoy_design_parse_spec(at_no_rate[i], &d, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "'%s' accepted without a rate", at_no_rate[i]);
  TS_CHECK(convoy_design_parse_spec("lowpass:cutoff=1000,width=100,rate=44100", &d, err,
                                    sizeof err) == CONVOY_OK &&
               d.rate == 44100,
           "rate= in the spec");
  TS_CHECK(convoy_design_parse(NULL, 48000, &d, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "NULL spec");
  TS_CHECK(convoy_design_parse("lowpass:cutoff=1,width=1", 48000, NULL, err, sizeof err) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL design");
}

/* convoy_design_taps validates a hand-filled struct the same way. */
static void test_struct(void) {
  convoy_taps t;
  char err[256];
  convoy_design d = {CONVOY_DESIGN_LOWPASS, 48000, 1000, 0, 0, 500, 0, 0};
  TS_CHECK_OK(convoy_design_taps(&d, &t, err, sizeof err));
  convoy_design d80 = d;
  d80.atten = 80;
  convoy_taps t80;
  TS_CHECK_OK(convoy_design_taps(&d80, &t80, err, sizeof err));
  TS_CHECK(t.length == t80.length && t.length > 0 &&
               memcmp(t.data, t80.data, (size_t)t.length * sizeof *t.data) == 0,
           "atten 0 means the default 80 dB");
  convoy_taps_free(&t);
  convoy_taps_free(&t80);

  convoy_design bad = d;
  bad.type = (convoy_design_type)7;
  TS_CHECK(convoy_design_taps(&bad, &t, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "unknown filter type"),
           "bad type: %s", err);
  bad = d;
  bad.width = 0;
  TS_CHECK(convoy_design_taps(&bad, &t, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "lowpass design: needs width=HZ"),
           "no width, no taps: %s", err);
  bad = d;
  bad.rate = 0;
  TS_CHECK(convoy_design_taps(&bad, &t, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "needs a sample rate"),
           "no rate: %s", err);
  bad = d;
  bad.cutoff = NAN;
  TS_CHECK(convoy_design_taps(&bad, &t, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "NaN cutoff: %s", err);
  TS_CHECK(t.data == NULL && t.length == 0, "taps left empty on failure");
  TS_CHECK(convoy_design_taps(NULL, &t, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT, "NULL");
}

int main(void) {
  test_parse();
  test_struct();
  test_explicit_taps();
  test_grid();
  test_high_atten();
  test_long();
  return ts_finish();
}
