/*
 * test_complex.c - complex streams (config.sample = CONVOY_SAMPLE_CF32) and
 * complex filters on the CPU engines, through the public API:
 *   - complex filters: create, type, taps, bad taps, group delay;
 *   - every CPU engine against a double-precision complex reference
 *     (relative L2 < 1e-5) on random lengths 1 .. 10^5 (primes included),
 *     taps 1 .. 5000, 1 .. 4 channels, one filter or per-channel filters
 *     mixing real and complex taps, random chunkings; single long cases of
 *     2^16 and 2^20 taps on cpu-fft; the engines agreeing;
 *   - impulses: 1 and j in give h and j h out (no conjugation);
 *   - real filters on a complex stream give bitwise the real stream of
 *     2 x channels on the same engine;
 *   - chunk invariance (1-frame chunks included) and thread invariance,
 *     bitwise;
 *   - S8, U8 and S16 complex input equal the float input converted by the
 *     documented scales; integer output (S16, S8, U8 offset binary) equals
 *     the float output quantized by the documented rule, clip count too;
 *   - AUTO's choice, describe(), and bad arguments.
 * CONVOY_TEST_QUICK shrinks sizes and skips the 2^20-tap case.
 */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5
#define PI 3.14159265358979323846
#define MAX_CH 4

static int quick;

static const convoy_engine cpu_engines[] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT};
#define N_ENGINES ((int)(sizeof cpu_engines / sizeof cpu_engines[0]))
static double worst_error[N_ENGINES];
static int n_checked[N_ENGINES];

/* ------------------------------------------------------------ cases */

/* A complex signal (frames x channels complex values, interleaved) and one
 * filter for all channels or one per channel, each real or complex. */
typedef struct cx_case {
  int32_t channels;
  int64_t frames;
  int32_t n_filters;
  int64_t len[MAX_CH];
  int cplx[MAX_CH];
  float *taps[MAX_CH]; /* len floats, or 2 x len (re, im) when cplx */
  convoy_filter *filters[MAX_CH];
  float *x; /* 2 x channels x frames */
} cx_case;

/* complex_odds: chance that a filter has complex taps (filter 0 gets
 * complex taps when complex_odds >= 1 and real ones when it is 0). */
static void cx_make(cx_case *t, ts_rng *rng, int32_t channels, int64_t frames, int per_channel,
                    int64_t taps, double complex_odds) {
  memset(t, 0, sizeof *t);
  t->channels = channels;
  t->frames = frames;
  t->n_filters = per_channel ? channels : 1;
  for (int32_t i = 0; i < t->n_filters; i++) {
    t->len[i] = i == 0 ? taps : ts_log_range(rng, 1, taps);
    t->cplx[i] = ts_uniform(rng) < complex_odds;
    t->filters[i] = ts_random_filter(rng, t->cplx[i], t->len[i], &t->taps[i]);
  }
  t->x = malloc(sizeof(float) * (size_t)(2 * frames * channels + 1));
  ts_fill_uniform(rng, t->x, 2 * frames * channels);
}

static void cx_free(cx_case *t) {
  for (int32_t i = 0; i < t->n_filters; i++) {
    free(t->taps[i]);
    convoy_filter_destroy(t->filters[i]);
  }
  free(t->x);
  memset(t, 0, sizeof *t);
}

static int64_t cx_longest(const cx_case *t) {
  int64_t m = 0;
  for (int32_t i = 0; i < t->n_filters; i++) m = t->len[i] > m ? t->len[i] : m;
  return m;
}

static void cx_config(convoy_stream_config *cfg, const cx_case *t, convoy_engine e) {
  convoy_stream_config_init(cfg);
  cfg->channels = t->channels;
  cfg->sample = CONVOY_SAMPLE_CF32;
  cfg->engine = e;
  cfg->threads = 1;
}

/* Runs the case through a stream of engine e; returns the output (caller
 * frees) or NULL (failure already reported). */
static float *cx_run(const cx_case *t, const convoy_stream_config *cfg, int64_t chunk_max,
                     ts_rng *rng, int64_t *out_frames) {
  convoy_stream *s = NULL;
  convoy_status st = convoy_stream_create(&s, cfg, t->filters, t->n_filters);
  TS_CHECK(st == CONVOY_OK, "create %s: %s", convoy_engine_name(cfg->engine), convoy_last_error());
  if (st != CONVOY_OK) return NULL;
  float *y = ts_stream_run_values(s, t->x, t->frames, 2 * t->channels, chunk_max, rng, out_frames);
  convoy_stream_destroy(s);
  return y;
}

/* Worst relative L2 error of y (out_frames frames) over the channels. */
static double cx_error(const cx_case *t, const float *y, int64_t out_frames) {
  double worst = 0.0;
  for (int32_t c = 0; c < t->channels; c++) {
    const int32_t fi = t->n_filters == 1 ? 0 : c;
    double *ref = ts_reference_complex(t->x, t->frames, t->channels, c, t->taps[fi], t->len[fi],
                                       t->cplx[fi], out_frames);
    if (!ref) return INFINITY;
    double e = ts_rel_l2_complex(y + 2 * c, 2 * t->channels, ref, out_frames);
    free(ref);
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

static void cx_name(const cx_case *t, char *buf, size_t size) {
  int n_complex = 0;
  for (int32_t i = 0; i < t->n_filters; i++) n_complex += t->cplx[i];
  snprintf(buf, size, "%lld frames x %d ch, %d filter(s) (%d complex), taps %lld",
           (long long)t->frames, (int)t->channels, (int)t->n_filters, n_complex,
           (long long)cx_longest(t));
}

/* ------------------------------------------------------------ filters */

static void test_filters(void) {
  const float taps[6] = {1.0f, -2.0f, 0.5f, 0.25f, -3.0f, 4.0f};
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, taps, 3));
  TS_CHECK(convoy_filter_type(f) == CONVOY_SAMPLE_CF32, "type of a complex filter");
  TS_CHECK(convoy_filter_length(f) == 3, "length counts complex taps");
  TS_CHECK(memcmp(convoy_filter_taps(f), taps, sizeof taps) == 0, "taps kept interleaved");
  int lin = -1;
  /* |h| = 2.24, 0.56, 5: the peak is tap 2. */
  TS_CHECK(convoy_filter_group_delay(f, &lin) == 2.0 && lin == 0, "peak |h| at 2, got %g (%d)",
           convoy_filter_group_delay(f, NULL), lin);
  convoy_filter_destroy(f);

  /* Peak magnitude where no single component is the largest. */
  const float peak_taps[8] = {0.9f, 0.0f, 0.7f, 0.7f, 0.0f, -0.95f, 0.1f, 0.1f};
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, peak_taps, 4));
  TS_CHECK(convoy_filter_group_delay(f, &lin) == 1.0 && lin == 0, "peak |h| at 1, got %g",
           convoy_filter_group_delay(f, NULL));
  convoy_filter_destroy(f);

  /* A symmetric real lowpass shifted in frequency keeps linear phase. */
  enum { N = 31 };
  float shifted[2 * N];
  for (int i = 0; i < N; i++) {
    double w = 0.54 - 0.46 * cos(2.0 * PI * i / (N - 1));
    double sinc = i == (N - 1) / 2 ? 0.3 : sin(0.3 * PI * (i - 15)) / (PI * (i - 15));
    shifted[2 * i] = (float)(w * sinc * cos(0.7 * i));
    shifted[2 * i + 1] = (float)(w * sinc * sin(0.7 * i));
  }
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, shifted, N));
  TS_CHECK(convoy_filter_group_delay(f, &lin) == 15.0 && lin == 1,
           "shifted symmetric filter: delay %g, linear %d", convoy_filter_group_delay(f, NULL),
           lin);
  convoy_filter_destroy(f);
  shifted[2 * 3 + 1] += 0.01f;
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, shifted, N));
  convoy_filter_group_delay(f, &lin);
  TS_CHECK(lin == 0, "an asymmetric complex filter is not linear-phase");
  convoy_filter_destroy(f);

  float bad[4] = {1.0f, 0.0f, 0.0f, NAN};
  f = (convoy_filter *)1;
  TS_CHECK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, bad, 2) ==
                   CONVOY_ERR_INVALID_ARGUMENT &&
               f == NULL && strstr(convoy_last_error(), "imaginary part of tap 1"),
           "NaN imaginary part: %s", convoy_last_error());
  bad[3] = 0.0f;
  bad[2] = INFINITY;
  TS_CHECK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, bad, 2) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "infinite real part");
  TS_CHECK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, taps, 0) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "0 taps");
  TS_CHECK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, NULL, 3) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL taps");
  TS_CHECK(convoy_filter_create_typed(&f, (convoy_sample_type)7, taps, 3) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "unknown tap type");
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_F32, taps, 6));
  TS_CHECK(convoy_filter_type(f) == CONVOY_SAMPLE_F32 && convoy_filter_length(f) == 6,
           "real typed filter");
  convoy_filter_destroy(f);
}

/* ------------------------------------------------------------ accuracy */

static const int64_t primes[] = {2, 3, 7, 61, 127, 1009, 4099, 65537, 99991};

static void test_accuracy(ts_rng *rng) {
  const int n_cases = quick ? 10 : 60;
  const double direct_budget = quick ? 5e6 : 4e7; /* taps x frames x channels */
  for (int i = 0; i < n_cases; i++) {
    int64_t frames = ts_uniform(rng) < 0.25
                         ? primes[ts_range(rng, 0, (int64_t)(sizeof primes / sizeof *primes) - 1)]
                         : ts_log_range(rng, 1, quick ? 20000 : 100000);
    int64_t taps = ts_log_range(rng, 1, quick ? 1000 : 5000);
    if (i == 0) taps = 1;
    if (i == 1) taps = frames + ts_range(rng, 1, 100); /* taps longer than the signal */
    int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
    cx_case t;
    cx_make(&t, rng, ch, frames, ts_uniform(rng) < 0.6, taps, i == 2 ? 0.0 : 0.6);
    char name[160];
    cx_name(&t, name, sizeof name);
    for (int e = 0; e < N_ENGINES; e++) {
      if (cpu_engines[e] == CONVOY_ENGINE_CPU_DIRECT &&
          (double)cx_longest(&t) * (double)frames * ch > direct_budget)
        continue;
      convoy_stream_config cfg;
      cx_config(&cfg, &t, cpu_engines[e]);
      cfg.threads = (int32_t)ts_range(rng, 1, 2);
      int64_t got = 0;
      float *y =
          cx_run(&t, &cfg, ts_uniform(rng) < 0.5 ? 0 : ts_log_range(rng, 1, 5000), rng, &got);
      if (!y) continue;
      TS_CHECK(got == frames + cx_longest(&t) - 1, "%s: %s wrote %lld frames",
               convoy_engine_name(cpu_engines[e]), name, (long long)got);
      double err = cx_error(&t, y, got);
      TS_CHECK(err < TOLERANCE, "%s: %s: relative L2 error %.3g",
               convoy_engine_name(cpu_engines[e]), name, err);
      if (err > worst_error[e]) worst_error[e] = err;
      n_checked[e]++;
      free(y);
    }
    cx_free(&t);
  }
}

/* One long complex filter on cpu-fft. */
static void test_long(ts_rng *rng, int64_t taps, int64_t frames) {
  cx_case t;
  cx_make(&t, rng, 1, frames, 0, taps, 1.0);
  convoy_stream_config cfg;
  cx_config(&cfg, &t, CONVOY_ENGINE_CPU_FFT);
  cfg.threads = 2;
  int64_t got = 0;
  float *y = cx_run(&t, &cfg, 0, rng, &got);
  if (y) {
    double err = cx_error(&t, y, got);
    TS_CHECK(err < TOLERANCE, "cpu-fft, %lld complex taps, %lld frames: error %.3g",
             (long long)taps, (long long)frames, err);
    printf("cpu-fft %lld complex taps, %lld frames: relative L2 error %.2g\n", (long long)taps,
           (long long)frames, err);
    if (err > worst_error[1]) worst_error[1] = err;
    n_checked[1]++;
  }
  free(y);
  cx_free(&t);
}

/* Direct against FFT on one case with mixed filters. */
static void test_engines_agree(ts_rng *rng) {
  cx_case t;
  cx_make(&t, rng, 3, quick ? 3000 : 20000, 1, 300, 0.7);
  float *y[N_ENGINES];
  int64_t got[N_ENGINES];
  for (int e = 0; e < N_ENGINES; e++) {
    convoy_stream_config cfg;
    cx_config(&cfg, &t, cpu_engines[e]);
    y[e] = cx_run(&t, &cfg, 0, rng, &got[e]);
  }
  if (y[0] && y[1] && got[0] == got[1]) {
    for (int32_t c = 0; c < 2 * t.channels; c++) {
      double d = ts_rel_diff_channel(y[1], y[0], 2 * t.channels, c, got[0]);
      TS_CHECK(d < TOLERANCE, "cpu-direct vs cpu-fft, row %d: %.3g", (int)c, d);
    }
  } else {
    TS_CHECK(0, "engines disagree on the frame count or failed");
  }
  for (int e = 0; e < N_ENGINES; e++) free(y[e]);
  cx_free(&t);
}

/* ------------------------------------------------------------ impulses */

/* Impulses 1 and j give h and j h: checks the sign conventions. */
static void test_impulses(void) {
  const float h[6] = {0.5f, -0.25f, 2.0f, 1.0f, -1.0f, 0.125f};
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, h, 3));
  for (int e = 0; e < N_ENGINES; e++) {
    for (int unit = 0; unit < 2; unit++) {
      convoy_stream_config cfg;
      convoy_stream_config_init(&cfg);
      cfg.sample = CONVOY_SAMPLE_CF32;
      cfg.engine = cpu_engines[e];
      convoy_stream *s = NULL;
      TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
      if (!s) continue;
      float x[8] = {0};
      x[unit] = 1.0f; /* 1 or j at time 0 */
      int64_t got = 0;
      float *y = ts_stream_run_values(s, x, 4, 2, 0, NULL, &got);
      if (y && got == 6) {
        double worst = 0.0;
        for (int k = 0; k < 3; k++) {
          double wr = unit ? -h[2 * k + 1] : h[2 * k], wi = unit ? h[2 * k] : h[2 * k + 1];
          worst = fmax(worst, fmax(fabs(y[2 * k] - wr), fabs(y[2 * k + 1] - wi)));
        }
        for (int k = 3; k < 6; k++) worst = fmax(worst, fmax(fabs(y[2 * k]), fabs(y[2 * k + 1])));
        TS_CHECK(worst < 1e-6, "%s: impulse %s: error %.3g", convoy_engine_name(cpu_engines[e]),
                 unit ? "j" : "1", worst);
      } else {
        TS_CHECK(0, "%s: impulse run failed (%lld frames)", convoy_engine_name(cpu_engines[e]),
                 (long long)got);
      }
      free(y);
      convoy_stream_destroy(s);
    }
  }
  convoy_filter_destroy(f);
}

/* ------------------------------------------------------------ real filters */

/* Real filters on a complex stream of ch channels = the real stream of
 * 2 ch channels with each filter used twice, bitwise, on each engine. */
static void test_real_filters(ts_rng *rng) {
  for (int i = 0; i < (quick ? 3 : 6); i++) {
    int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
    cx_case t;
    cx_make(&t, rng, ch, ts_log_range(rng, 1, quick ? 5000 : 40000), i % 2,
            ts_log_range(rng, 1, 2000), 0.0);
    convoy_filter *twice[2 * MAX_CH];
    for (int32_t c = 0; c < 2 * ch; c++) twice[c] = t.filters[t.n_filters == 1 ? 0 : c / 2];
    for (int e = 0; e < N_ENGINES; e++) {
      convoy_stream_config cfg;
      cx_config(&cfg, &t, cpu_engines[e]);
      int64_t got_c = 0, got_r = 0;
      float *yc = cx_run(&t, &cfg, 0, rng, &got_c);
      cfg.sample = CONVOY_SAMPLE_F32;
      cfg.channels = 2 * ch;
      convoy_stream *s = NULL;
      TS_CHECK_OK(convoy_stream_create(&s, &cfg, twice, t.n_filters == 1 ? 1 : 2 * ch));
      float *yr = s ? ts_stream_run(s, t.x, t.frames, 0, NULL, &got_r) : NULL;
      convoy_stream_destroy(s);
      TS_CHECK(yc && yr && got_c == got_r &&
                   memcmp(yc, yr, sizeof(float) * (size_t)(2 * ch * got_c)) == 0,
               "%s: real filters on %d complex channels differ from the real stream",
               convoy_engine_name(cpu_engines[e]), (int)ch);
      free(yc);
      free(yr);
    }
    cx_free(&t);
  }
}

/* ------------------------------------------------------------ invariance */

static void test_chunking(ts_rng *rng) {
  for (int e = 0; e < N_ENGINES; e++) {
    for (int i = 0; i < 3; i++) {
      int64_t frames = i == 0 ? 1500 : ts_log_range(rng, 1, quick ? 10000 : 60000);
      int64_t taps = cpu_engines[e] == CONVOY_ENGINE_CPU_DIRECT ? ts_log_range(rng, 1, 200)
                                                                : ts_log_range(rng, 1, 3000);
      cx_case t;
      cx_make(&t, rng, (int32_t)ts_range(rng, 1, MAX_CH), frames, 1, taps, 0.6);
      convoy_stream_config cfg;
      cx_config(&cfg, &t, cpu_engines[e]);
      int64_t got0 = 0, got1 = 0, got2 = 0;
      float *y0 = cx_run(&t, &cfg, 0, rng, &got0);
      float *y1 = cx_run(&t, &cfg, i == 0 ? 1 : ts_log_range(rng, 2, 4000), rng, &got1);
      cfg.threads = 2;
      float *y2 = cx_run(&t, &cfg, 777, rng, &got2);
      const size_t bytes = sizeof(float) * (size_t)(2 * t.channels * got0);
      char name[160];
      cx_name(&t, name, sizeof name);
      TS_CHECK(y0 && y1 && got0 == got1 && memcmp(y0, y1, bytes) == 0,
               "%s: %s: chunked output differs from one-shot%s", convoy_engine_name(cpu_engines[e]),
               name, i == 0 ? " (1-frame chunks)" : "");
      TS_CHECK(y0 && y2 && got0 == got2 && memcmp(y0, y2, bytes) == 0,
               "%s: %s: 2 threads differ from 1", convoy_engine_name(cpu_engines[e]), name);
      free(y0);
      free(y1);
      free(y2);
      cx_free(&t);
    }
  }
}

/* ------------------------------------------------------------ integer input */

/* The documented scales, written out here: S16 / 32768, S8 / 128, U8
 * (x - 128) / 128. */
static float int_value(convoy_sample_format fmt, const void *p, int64_t i) {
  switch (fmt) {
  case CONVOY_FORMAT_S16:
    return (float)((const int16_t *)p)[i] / 32768.0f;
  case CONVOY_FORMAT_S8:
    return (float)((const int8_t *)p)[i] / 128.0f;
  case CONVOY_FORMAT_U8:
    return ((float)((const uint8_t *)p)[i] - 128.0f) / 128.0f;
  default:
    return NAN;
  }
}

static void test_integer_input(ts_rng *rng) {
  const convoy_sample_format fmts[] = {CONVOY_FORMAT_S16, CONVOY_FORMAT_S8, CONVOY_FORMAT_U8};
  for (int e = 0; e < N_ENGINES; e++) {
    for (int k = 0; k < 3; k++) {
      cx_case t;
      cx_make(&t, rng, (int32_t)ts_range(rng, 1, MAX_CH), ts_log_range(rng, 1, 20000), 1,
              ts_log_range(rng, 1, 300), 0.6);
      const int64_t n = 2 * t.channels * t.frames;
      const size_t width = convoy_sample_format_bytes(fmts[k]);
      unsigned char *raw = malloc(width * (size_t)n + 1);
      for (size_t b = 0; b < width * (size_t)n; b++) raw[b] = (unsigned char)ts_next(rng);
      for (int64_t i = 0; i < n; i++) t.x[i] = int_value(fmts[k], raw, i);
      convoy_stream_config cfg;
      cx_config(&cfg, &t, cpu_engines[e]);
      int64_t got = 0;
      float *want = cx_run(&t, &cfg, 0, rng, &got);
      convoy_stream *s = NULL;
      TS_CHECK_OK(convoy_stream_create(&s, &cfg, t.filters, t.n_filters));
      const int64_t cap = t.frames + cx_longest(&t) + convoy_stream_latency(s);
      float *y = malloc(sizeof(float) * (size_t)(2 * t.channels * cap));
      int64_t a = 0, b = 0;
      TS_CHECK_OK(convoy_stream_process_samples(s, fmts[k], raw, t.frames, y, cap, &a));
      TS_CHECK_OK(convoy_stream_flush(s, y + 2 * t.channels * a, cap - a, &b));
      TS_CHECK(want && a + b == got &&
                   memcmp(want, y, sizeof(float) * (size_t)(2 * t.channels * got)) == 0,
               "%s: complex format %d input differs from its float conversion",
               convoy_engine_name(cpu_engines[e]), (int)fmts[k]);
      convoy_stream_destroy(s);
      free(y);
      free(want);
      free(raw);
      cx_free(&t);
    }
  }
}

/* ------------------------------------------------------------ integer output */

static void test_integer_output(ts_rng *rng) {
  const convoy_sample_format fmts[] = {CONVOY_FORMAT_S16, CONVOY_FORMAT_S8, CONVOY_FORMAT_U8};
  for (int k = 0; k < 3; k++) {
    cx_case t;
    cx_make(&t, rng, 2, quick ? 3000 : 20000, 1, 40, 0.5);
    for (int64_t i = 0; i < 2 * t.channels * t.frames; i++) t.x[i] *= 0.15f;
    t.x[0] = 1000.0f; /* an impulse the taps carry past full scale: 8-bit codes must clip */
    convoy_stream_config cfg;
    cx_config(&cfg, &t, CONVOY_ENGINE_CPU_DIRECT);
    int64_t got = 0;
    float *ref = cx_run(&t, &cfg, 0, rng, &got);
    cfg.output_format = fmts[k];
    convoy_stream *s = NULL;
    TS_CHECK_OK(convoy_stream_create(&s, &cfg, t.filters, t.n_filters));
    if (!s || !ref) {
      free(ref);
      cx_free(&t);
      continue;
    }
    const size_t width = convoy_sample_format_bytes(fmts[k]);
    const int64_t values = 2 * t.channels;
    unsigned char *out = malloc(width * (size_t)(values * got));
    int64_t done = 0, pos = 0, n = 0;
    while (pos < t.frames) { /* odd chunks: codes must not depend on them */
      int64_t c = ts_log_range(rng, 1, 3000);
      if (c > t.frames - pos) c = t.frames - pos;
      TS_CHECK_OK(convoy_stream_process_to(s, CONVOY_FORMAT_F32, t.x + pos * values, c,
                                           out + width * (size_t)(done * values), got - done, &n));
      done += n;
      pos += c;
    }
    TS_CHECK_OK(convoy_stream_flush_to(s, out + width * (size_t)(done * values), got - done, &n));
    done += n;
    int64_t clipped = 0, bad = 0;
    const int bits = fmts[k] == CONVOY_FORMAT_S16 ? 16 : 8;
    for (int64_t i = 0; i < values * got && done == got; i++) {
      bad += ts_code_at(out, fmts[k], i) != ts_quantize(ref[i], bits, &clipped);
    }
    convoy_output_stats stats;
    TS_CHECK_OK(convoy_stream_output_stats(s, &stats));
    TS_CHECK(done == got && bad == 0, "format %d: %lld of %lld codes differ from the rule",
             (int)fmts[k], (long long)bad, (long long)(values * got));
    TS_CHECK(stats.clipped == clipped && (bits == 16 || clipped > 0),
             "format %d: %lld clipped, expected %lld", (int)fmts[k], (long long)stats.clipped,
             (long long)clipped);
    convoy_stream_destroy(s);
    free(out);
    free(ref);
    cx_free(&t);
  }
}

/* ------------------------------------------------------------ choice, args */

static void test_choice_and_describe(ts_rng *rng) {
  const int64_t lens[2] = {8, 8192};
  const convoy_engine want[2] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT};
  for (int i = 0; i < 2; i++) {
    cx_case t;
    cx_make(&t, rng, 2, 10, 0, lens[i], 1.0);
    convoy_stream_config cfg;
    /* The CPU family: with a GPU present AUTO may rightly pick a GPU engine. */
    cx_config(&cfg, &t, CONVOY_ENGINE_CPU);
    convoy_stream *s = NULL;
    TS_CHECK_OK(convoy_stream_create(&s, &cfg, t.filters, 1));
    if (s) {
      TS_CHECK(convoy_stream_engine(s) == want[i], "cpu for %lld complex taps picked %s",
               (long long)lens[i], convoy_engine_name(convoy_stream_engine(s)));
      char line[512];
      TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
      TS_CHECK(strstr(line, "complex") != NULL, "describe does not say complex: %s", line);
      TS_CHECK(convoy_stream_channels(s) == 2 && convoy_stream_taps(s) == lens[i],
               "channels %d, taps %lld", (int)convoy_stream_channels(s),
               (long long)convoy_stream_taps(s));
    }
    convoy_stream_destroy(s);
    cx_free(&t);
  }
}

static void test_bad_arguments(void) {
  const float h[4] = {1.0f, 0.5f, -0.5f, 0.25f};
  convoy_filter *cf = NULL, *rf = NULL;
  TS_CHECK_OK(convoy_filter_create_typed(&cf, CONVOY_SAMPLE_CF32, h, 2));
  TS_CHECK_OK(convoy_filter_create(&rf, h, 4));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  convoy_stream *s = (convoy_stream *)1;
  TS_CHECK(convoy_stream_create(&s, &cfg, &cf, 1) == CONVOY_ERR_INVALID_ARGUMENT && s == NULL &&
               strstr(convoy_last_error(), "CONVOY_SAMPLE_CF32"),
           "complex filter on a real stream: %s", convoy_last_error());
  cfg.channels = 2;
  convoy_filter *mixed[2] = {rf, cf};
  TS_CHECK(convoy_stream_create(&s, &cfg, mixed, 2) == CONVOY_ERR_INVALID_ARGUMENT,
           "complex filter among real ones on a real stream");
  cfg.sample = (convoy_sample_type)5;
  TS_CHECK(convoy_stream_create(&s, &cfg, mixed, 2) == CONVOY_ERR_INVALID_ARGUMENT,
           "unknown sample type");
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.output_format = CONVOY_FORMAT_S8;
  cfg.output_bits = 9;
  TS_CHECK(convoy_stream_create(&s, &cfg, mixed, 2) == CONVOY_ERR_INVALID_ARGUMENT, "9 bits in S8");
  cfg.output_bits = 0;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, mixed, 2));
  if (s) {
    float x[4] = {0}, y[64];
    int64_t n = 0;
    TS_CHECK(convoy_stream_process(s, x, 1, y, 16, &n) == CONVOY_ERR_INVALID_ARGUMENT,
             "process() on an S8-output stream");
    convoy_stream_destroy(s);
  }
  cfg.output_format = CONVOY_FORMAT_F32;
  cfg.engine = CONVOY_ENGINE_CPU_DIRECT; /* granule 1: 2 frames in, 2 out */
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, mixed, 2));
  if (s) {
    unsigned char x[64] = {0};
    float y[64];
    int64_t n = 0;
    TS_CHECK(convoy_stream_process_samples(s, (convoy_sample_format)9, x, 1, y, 16, &n) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "unknown input format");
    TS_CHECK(convoy_stream_process(s, (const float *)y, 4, y + 4, 16, &n) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "overlap counted in complex frames (4 frames = 16 floats)");
    TS_CHECK(convoy_stream_process(s, (const float *)x, 2, y, 1, &n) == CONVOY_ERR_INVALID_ARGUMENT,
             "2 frames due, capacity 1 frame (4 floats)");
    convoy_stream_destroy(s);
  }
  convoy_filter_destroy(cf);
  convoy_filter_destroy(rf);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_complex"));
  test_filters();
  test_impulses();
  test_bad_arguments();
  test_choice_and_describe(&rng);
  test_accuracy(&rng);
  test_long(&rng, (int64_t)1 << 16, quick ? 20000 : 100000);
  if (!quick) test_long(&rng, (int64_t)1 << 20, 200000);
  test_engines_agree(&rng);
  test_real_filters(&rng);
  test_chunking(&rng);
  test_integer_input(&rng);
  test_integer_output(&rng);
  for (int e = 0; e < N_ENGINES; e++)
    printf("%-10s %3d accuracy cases, worst relative L2 error %.3g\n",
           convoy_engine_name(cpu_engines[e]), n_checked[e], worst_error[e]);
  return ts_finish();
}
