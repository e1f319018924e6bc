/*
 * test_decimate.c - decimation (config.decimation) and frequency shift
 * (config.shift) of streams, through the public API:
 *   - every engine (CPU, AUTO, and the GPU ones where a GPU is present)
 *     against a double-precision evaluation of
 *     the definition in convoy.h, out[n] = sum_j h[j] x[nD - j]
 *     e^{-j 2 pi f (nD - j)}, for D in {1, 2, 3, 8, 13, 64}, f in {0, 0.1,
 *     -0.37}, real and complex taps, 1 .. 3 channels, random lengths (not
 *     multiples of D included), taps longer than the signal;
 *   - output counts: each call within max_output, flush writes flush_frames,
 *     the total is ceil((frames + taps - 1) / D);
 *   - bitwise chunk invariance: one call, 1-frame chunks and random chunks
 *     give the same bits (every decimation phase at a call boundary);
 *   - a real stream with D > 1 on cpu-fft (which folds the spectrum and runs
 *     the inverse transform at 1/D of the size) agrees with every D-th frame
 *     of the full-rate stream to float rounding, and says it folds;
 *   - reset restarts the decimation grid and the phase; integer output;
 *   - cpu-direct's decimating path gives the same bits on 1 and 3 threads;
 *   - latency, describe, and bad arguments (D 0, D > 4096, shift on a real
 *     stream, |shift| > 0.5, NaN).
 * CONVOY_TEST_QUICK shrinks sizes.
 */
#include "test_support.h"
#include "ts_decimation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5
#define MAX_CH 3

static int quick;

static const convoy_engine engines[] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT,
                                        CONVOY_ENGINE_AUTO, CONVOY_ENGINE_GPU_DIRECT,
                                        CONVOY_ENGINE_GPU_FFT};
#define N_ENGINES ((int)(sizeof engines / sizeof engines[0]))
static const int32_t factors[] = {1, 2, 3, 8, 13, 64};
static const double shifts[] = {0.0, 0.1, -0.37};
static double worst[N_ENGINES];
/* The decimation phase of the streams check_case makes (test_phase sets it). */
static int32_t g_phase;

/* One case: channels complex (or real) channels, frames of input, one filter
 * for all channels or one per channel, real or complex taps. */
typedef struct dcase {
  int is_complex;
  int32_t channels, n_filters;
  int64_t frames;
  int64_t len[MAX_CH];
  int cplx[MAX_CH];
  float *taps[MAX_CH];
  convoy_filter *filters[MAX_CH];
  float *x; /* frames x values */
} dcase;

static ts_signal signal_of(const dcase *t) {
  return (ts_signal){t->x, t->frames, t->channels, t->is_complex};
}

static int32_t values_of(const dcase *t) {
  return ts_signal_values(signal_of(t));
}

static void dcase_make(dcase *t, ts_rng *rng, int is_complex, int32_t channels, int64_t frames,
                       int per_channel, int64_t taps, int complex_taps) {
  memset(t, 0, sizeof *t);
  t->is_complex = is_complex;
  t->channels = channels;
  t->frames = frames;
  t->n_filters = per_channel ? channels : 1;
  for (int32_t i = 0; i < t->n_filters; i++) {
    t->len[i] = i == 0 ? taps : ts_range(rng, 1, taps);
    t->cplx[i] = complex_taps && (i == 0 || ts_uniform(rng) < 0.5);
    t->filters[i] = ts_random_filter(rng, t->cplx[i], t->len[i], &t->taps[i]);
  }
  const int64_t nx = frames * values_of(t);
  t->x = malloc(sizeof(float) * (size_t)(nx > 0 ? nx : 1));
  ts_fill_uniform(rng, t->x, nx);
}

static void dcase_free(dcase *t) {
  for (int32_t i = 0; i < t->n_filters; i++) {
    convoy_filter_destroy(t->filters[i]);
    free(t->taps[i]);
  }
  free(t->x);
  memset(t, 0, sizeof *t);
}

static int64_t longest(const dcase *t) {
  int64_t m = 0;
  for (int32_t i = 0; i < t->n_filters; i++) m = t->len[i] > m ? t->len[i] : m;
  return m;
}

/* Frames the whole stream writes: ceil((frames + taps - 1) / D). */
static int64_t expected_frames(const dcase *t, int64_t d) {
  return ts_decimated_frames_at(t->frames, longest(t), d, g_phase);
}

static ts_taps taps_of(const dcase *t, int32_t c) {
  const int32_t fi = t->n_filters == 1 ? 0 : c;
  return (ts_taps){t->taps[fi], t->len[fi], t->cplx[fi]};
}

/* Relative L2 error of channel c of out (count frames) against the
 * definition. */
static double channel_error(const dcase *t, const float *out, int32_t c, int32_t d, double f,
                            int64_t count) {
  double num = 0.0, den = 0.0;
  const ts_taps h = taps_of(t, c);
  ts_decimated_error_sums_at(signal_of(t), c, h, d, g_phase, f, out, count, 1, &num, &den);
  /* FFT rounding scales with the signal, not with each output: a handful of
   * decimated outputs (D 64 of a short input) is measured against at least
   * the expected output power, sum |h|^2 times the mean input power. */
  double hh = 0.0, xx = 0.0;
  for (int64_t j = 0; j < h.len * (h.is_complex ? 2 : 1); j++) hh += (double)h.h[j] * h.h[j];
  for (int64_t i = 0; i < t->frames * values_of(t); i++) xx += (double)t->x[i] * t->x[i];
  const double floor_power =
      (double)count * hh * xx / (double)(t->frames > 0 ? t->frames : 1) / (double)t->channels;
  if (den < floor_power) den = floor_power;
  return ts_ratio_l2(num, den);
}

static convoy_status open_stream(const dcase *t, convoy_engine e, int32_t d, double f,
                                 convoy_stream **s) {
  convoy_stream_config cfg;
  ts_decimating_config(&cfg, e, t->channels, t->is_complex, d, f);
  cfg.decimation_phase = g_phase;
  /* GPU: small chunks, not multiples of D, so that the decimation phase
   * changes from chunk to chunk (and creation stays cheap). */
  cfg.chunk_frames = 3000;
  return convoy_stream_create(s, &cfg, t->filters, t->n_filters);
}

/* Runs t through a fresh stream in the given chunking; checks the frame
 * count. NULL when the stream could not be made or run. */
static float *run_case(const dcase *t, convoy_engine e, int32_t d, double f, int64_t chunk_max,
                       ts_rng *rng, int64_t *frames) {
  convoy_stream *s = NULL;
  convoy_status st = open_stream(t, e, d, f, &s);
  TS_CHECK(st == CONVOY_OK, "create %s D %d f %g: %s", convoy_engine_name(e), (int)d, f,
           convoy_last_error());
  if (st != CONVOY_OK) return NULL;
  float *out = ts_stream_run_values(s, t->x, t->frames, values_of(t), chunk_max, rng, frames);
  convoy_stream_destroy(s);
  const int64_t want = expected_frames(t, d);
  TS_CHECK(!out || *frames == want, "%s D %d: %lld frames out, want %lld", convoy_engine_name(e),
           (int)d, (long long)*frames, (long long)want);
  return out;
}

/* One case on every engine: accuracy against the definition, chunk
 * invariance (one call, 1-frame chunks on short inputs, random chunks). */
static void check_case(const dcase *t, int32_t d, double f, ts_rng *rng) {
  const int32_t v = values_of(t);
  const int64_t count = expected_frames(t, d);
  for (int ei = 0; ei < N_ENGINES; ei++) {
    const convoy_engine e = engines[ei];
    if (!convoy_engine_available(e)) continue; /* GPU engines without a GPU */
    const int gpu = e == CONVOY_ENGINE_GPU_DIRECT || e == CONVOY_ENGINE_GPU_FFT;
    int64_t n_one = 0, n_rand = 0, n_single = 0;
    float *one = run_case(t, e, d, f, 0, rng, &n_one);
    if (!one) continue;
    for (int32_t c = 0; c < t->channels && n_one == count; c++) {
      double err = channel_error(t, one, c, d, f, count);
      if (err > worst[ei]) worst[ei] = err;
      TS_CHECK(err < TOLERANCE,
               "%s D %d f %g: rel L2 %.3g (ch %d of %d, %lld frames, %lld taps, %s taps, %s)",
               convoy_engine_name(e), (int)d, f, err, (int)c, (int)t->channels,
               (long long)t->frames, (long long)longest(t), t->cplx[0] ? "complex" : "real",
               t->is_complex ? "complex stream" : "real stream");
    }
    float *rnd = run_case(t, e, d, f, 1 + ts_range(rng, 0, 3 * d), rng, &n_rand);
    TS_CHECK(rnd && n_rand == n_one && memcmp(one, rnd, sizeof(float) * (size_t)(n_one * v)) == 0,
             "%s D %d f %g: random chunks differ from one call", convoy_engine_name(e), (int)d, f);
    free(rnd);
    if (t->frames <= (gpu ? 300 : 3000)) {
      float *single = run_case(t, e, d, f, 1, rng, &n_single);
      TS_CHECK(single && n_single == n_one &&
                   memcmp(one, single, sizeof(float) * (size_t)(n_one * v)) == 0,
               "%s D %d f %g: 1-frame chunks differ from one call", convoy_engine_name(e), (int)d,
               f);
      free(single);
    }
    free(one);
  }
}

/* Every D and shift, on complex and real streams with real and complex taps. */
static void test_against_definition(ts_rng *rng) {
  const int rounds = quick ? 1 : 2;
  for (int r = 0; r < rounds; r++)
    for (size_t di = 0; di < sizeof factors / sizeof factors[0]; di++)
      for (size_t fi = 0; fi < sizeof shifts / sizeof shifts[0]; fi++)
        for (int kind = 0; kind < 3; kind++) {
          /* kind 0: real stream (no shift); 1: complex stream, real taps;
           * 2: complex stream, complex taps. */
          if (kind == 0 && shifts[fi] != 0.0) continue;
          const int32_t d = factors[di];
          const int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
          const int64_t frames = ts_log_range(rng, 1, quick ? 2000 : 12000);
          const int64_t taps = ts_range(rng, 0, 5) == 0 ? ts_range(rng, frames, frames + 80)
                                                        : ts_log_range(rng, 1, quick ? 300 : 700);
          dcase t;
          dcase_make(&t, rng, kind > 0, ch, frames, ts_range(rng, 0, 1), taps, kind == 2);
          check_case(&t, d, shifts[fi], rng);
          dcase_free(&t);
        }
  for (int ei = 0; ei < N_ENGINES; ei++)
    if (convoy_engine_available(engines[ei]))
      printf("%-10s worst rel L2 error against the definition: %.3g\n",
             convoy_engine_name(engines[ei]), worst[ei]);
    else
      printf("%-10s not available here: skipped\n", convoy_engine_name(engines[ei]));
}

/* A decimation phase P: outputs y[n D + P] on every engine, against the
 * definition and bitwise across chunkings, the shift still following the
 * absolute index; every phase of one D on short inputs (outputs fewer than
 * P frames in), a few of others. */
static void test_phase(ts_rng *rng) {
  static const int32_t ds[] = {2, 8, 13};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    const int32_t d = ds[di];
    for (int32_t p = 1; p < d; p += d == 8 ? 1 : d / 2) {
      g_phase = p;
      for (int kind = 0; kind < 3; kind++) {
        const int64_t frames = d == 8 ? ts_range(rng, 1, 12) : ts_log_range(rng, 20, 3000);
        dcase t;
        dcase_make(&t, rng, kind > 0, (int32_t)ts_range(rng, 1, MAX_CH), frames,
                   ts_range(rng, 0, 1), ts_log_range(rng, 1, 200), kind == 2);
        check_case(&t, d, kind > 0 ? 0.137 : 0.0, rng);
        dcase_free(&t);
      }
    }
  }
  g_phase = 0;
  /* Outside 0 .. D - 1: refused. */
  dcase t;
  dcase_make(&t, rng, 1, 1, 100, 0, 9, 0);
  convoy_stream *s = NULL;
  g_phase = 8;
  TS_CHECK(open_stream(&t, CONVOY_ENGINE_CPU_DIRECT, 8, 0.0, &s) == CONVOY_ERR_INVALID_ARGUMENT,
           "phase 8 of D 8 accepted");
  g_phase = -1;
  TS_CHECK(open_stream(&t, CONVOY_ENGINE_CPU_DIRECT, 8, 0.0, &s) == CONVOY_ERR_INVALID_ARGUMENT,
           "phase -1 accepted");
  g_phase = 0;
  convoy_stream_destroy(s);
  dcase_free(&t);
}

/* Lengths around multiples of D, every decimation phase at the end. */
static void test_lengths(ts_rng *rng) {
  const int32_t d = 8;
  for (int64_t frames = 40; frames < 48; frames++) {
    dcase t;
    dcase_make(&t, rng, 1, 1, frames, 0, 5, 1);
    check_case(&t, d, 0.25, rng);
    dcase_free(&t);
  }
}

/* cpu-fft's folded run against every D-th frame of its own full-rate
 * output: equal to float rounding (the inverse transforms differ). */
static void test_pick_equals_full_rate(ts_rng *rng) {
  dcase t;
  dcase_make(&t, rng, 0, 2, 5000, 0, 200, 0);
  int64_t n_full = 0, n_dec = 0;
  float *full = run_case(&t, CONVOY_ENGINE_CPU_FFT, 1, 0.0, 0, rng, &n_full);
  float *dec = run_case(&t, CONVOY_ENGINE_CPU_FFT, 13, 0.0, 700, rng, &n_dec);
  double num = 0.0, den = 0.0;
  for (int64_t n = 0; full && dec && n < n_dec; n++)
    for (int c = 0; c < 2; c++) {
      const double a = dec[2 * n + c], b = full[2 * n * 13 + c];
      num += (a - b) * (a - b);
      den += b * b;
    }
  TS_CHECK(full && dec && den > 0.0 && sqrt(num / den) < TOLERANCE,
           "cpu-fft D 13 is not every 13th frame of its full-rate output (rel L2 %.3g)",
           den > 0.0 ? sqrt(num / den) : -1.0);
  free(full);
  free(dec);
  convoy_stream *s = NULL;
  char line[512] = "";
  TS_CHECK_OK(open_stream(&t, CONVOY_ENGINE_CPU_FFT, 13, 0.0, &s));
  if (s) TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
  TS_CHECK(strstr(line, "folded by 13") != NULL, "cpu-fft D 13 does not fold: %s", line);
  convoy_stream_destroy(s);
  dcase_free(&t);
}

/* cpu-direct's decimating path on several threads: the same bits. */
static void test_threads(ts_rng *rng) {
  dcase t;
  dcase_make(&t, rng, 1, 2, quick ? 20000 : 60000, 0, 120, 1);
  float *out[2] = {NULL, NULL};
  int64_t n[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    convoy_stream_config cfg;
    convoy_stream_config_init(&cfg);
    cfg.engine = CONVOY_ENGINE_CPU_DIRECT;
    cfg.channels = 2;
    cfg.sample = CONVOY_SAMPLE_CF32;
    cfg.decimation = 3;
    cfg.shift = -0.2;
    cfg.threads = i == 0 ? 1 : 3;
    convoy_stream *s = NULL;
    TS_CHECK_OK(convoy_stream_create(&s, &cfg, t.filters, 1));
    if (s) out[i] = ts_stream_run_values(s, t.x, t.frames, 4, 20000, rng, &n[i]);
    convoy_stream_destroy(s);
  }
  TS_CHECK(out[0] && out[1] && n[0] == n[1] &&
               memcmp(out[0], out[1], sizeof(float) * (size_t)(4 * n[0])) == 0,
           "cpu-direct D 3: 3 threads differ from 1");
  free(out[0]);
  free(out[1]);
  dcase_free(&t);
}

/* After reset the grid and the phase start again at frame 0; integer output
 * equals the float output quantized. */
static void test_reset_and_integer(ts_rng *rng) {
  dcase t;
  dcase_make(&t, rng, 1, 2, 3001, 0, 33, 1);
  for (int ei = 0; ei < N_ENGINES; ei++) {
    if (!convoy_engine_available(engines[ei])) continue;
    convoy_stream *s = NULL;
    TS_CHECK_OK(open_stream(&t, engines[ei], 3, 0.1, &s));
    if (!s) continue;
    int64_t n1 = 0, n2 = 0;
    float *a = ts_stream_run_values(s, t.x, t.frames, 4, 100, rng, &n1);
    TS_CHECK_OK(convoy_stream_reset(s));
    float *b = ts_stream_run_values(s, t.x, t.frames, 4, 0, rng, &n2);
    TS_CHECK(a && b && n1 == n2 && memcmp(a, b, sizeof(float) * (size_t)(4 * n1)) == 0,
             "%s: output after reset differs", convoy_engine_name(engines[ei]));
    convoy_stream_destroy(s);

    /* S16 output: the float output of the same engine, quantized. */
    convoy_stream_config cfg;
    convoy_stream_config_init(&cfg);
    cfg.engine = engines[ei];
    cfg.channels = 2;
    cfg.sample = CONVOY_SAMPLE_CF32;
    cfg.decimation = 3;
    cfg.shift = 0.1;
    cfg.output_format = CONVOY_FORMAT_S16;
    cfg.chunk_frames = 3000;
    TS_CHECK_OK(convoy_stream_create(&s, &cfg, t.filters, 1));
    int16_t *codes = calloc((size_t)(4 * (n1 + 8)), sizeof(int16_t));
    int64_t got = 0, got2 = 0;
    TS_CHECK_OK(convoy_stream_process_to(s, CONVOY_FORMAT_F32, t.x, t.frames, codes, n1 + 8, &got));
    TS_CHECK_OK(convoy_stream_flush_to(s, codes + 4 * got, n1 + 8 - got, &got2));
    int ok = a && got + got2 == n1;
    int64_t clipped = 0;
    for (int64_t i = 0; ok && i < 4 * n1; i++) ok = codes[i] == ts_quantize(a[i], 16, &clipped);
    TS_CHECK(ok, "%s: S16 output is not the float output quantized",
             convoy_engine_name(engines[ei]));
    free(codes);
    convoy_stream_destroy(s);
    free(a);
    free(b);
  }
  dcase_free(&t);
}

/* Queries: max_output counts kept frames, latency grows by D - 1. */
static void test_queries(ts_rng *rng) {
  dcase t;
  dcase_make(&t, rng, 1, 1, 100, 0, 10, 0);
  convoy_stream *s = NULL, *full = NULL;
  TS_CHECK_OK(open_stream(&t, CONVOY_ENGINE_CPU_DIRECT, 4, 0.0, &s));
  TS_CHECK_OK(open_stream(&t, CONVOY_ENGINE_CPU_DIRECT, 1, 0.0, &full));
  if (s && full) {
    TS_CHECK(convoy_stream_latency(s) == convoy_stream_latency(full) + 3, "latency %lld vs %lld",
             (long long)convoy_stream_latency(s), (long long)convoy_stream_latency(full));
    /* Nothing yet: frames 0 .. 4 keep 0 and 4. */
    TS_CHECK(convoy_stream_max_output(s, 5) == 2, "max_output(5) = %lld",
             (long long)convoy_stream_max_output(s, 5));
    TS_CHECK(convoy_stream_flush_frames(s) == 3, "flush_frames = %lld (taps 10: 9 -> 3)",
             (long long)convoy_stream_flush_frames(s));
    float out[2 * 8];
    int64_t got = 0;
    TS_CHECK_OK(convoy_stream_process(s, t.x, 1, out, 8, &got));
    TS_CHECK(got == 1, "first frame kept, got %lld", (long long)got);
    TS_CHECK(convoy_stream_max_output(s, 3) == 0 && convoy_stream_max_output(s, 4) == 1,
             "max_output after 1 frame: %lld, %lld", (long long)convoy_stream_max_output(s, 3),
             (long long)convoy_stream_max_output(s, 4));
    /* After 1 frame: full-rate flush of 9 frames covers indices 1 .. 9: 4, 8. */
    TS_CHECK(convoy_stream_flush_frames(s) == 2, "flush_frames after 1 frame = %lld",
             (long long)convoy_stream_flush_frames(s));
    char line[256];
    TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
    TS_CHECK(strstr(line, "decimation 4") != NULL, "describe: %s", line);
  }
  convoy_stream_destroy(s);
  convoy_stream_destroy(full);
  dcase_free(&t);
}

static void expect_fail(const dcase *t, convoy_engine e, int32_t d, double f, convoy_status want,
                        const char *word) {
  convoy_stream *s = (convoy_stream *)&s;
  convoy_status st = open_stream(t, e, d, f, &s);
  TS_CHECK(st == want && s == NULL && strstr(convoy_last_error(), word) != NULL,
           "D %d f %g on %s: %s (%s), want %s with '%s'", (int)d, f, convoy_engine_name(e),
           convoy_strerror(st), convoy_last_error(), convoy_strerror(want), word);
}

static void test_bad_args(ts_rng *rng) {
  dcase cx, re;
  dcase_make(&cx, rng, 1, 1, 10, 0, 4, 0);
  dcase_make(&re, rng, 0, 1, 10, 0, 4, 0);
  expect_fail(&cx, CONVOY_ENGINE_AUTO, 0, 0.0, CONVOY_ERR_INVALID_ARGUMENT, "decimation 0");
  expect_fail(&cx, CONVOY_ENGINE_AUTO, -3, 0.0, CONVOY_ERR_INVALID_ARGUMENT, "decimation -3");
  expect_fail(&cx, CONVOY_ENGINE_AUTO, CONVOY_MAX_DECIMATION + 1, 0.0, CONVOY_ERR_INVALID_ARGUMENT,
              "decimation 4097");
  expect_fail(&re, CONVOY_ENGINE_AUTO, 2, 0.1, CONVOY_ERR_INVALID_ARGUMENT, "complex stream");
  expect_fail(&cx, CONVOY_ENGINE_AUTO, 1, 0.51, CONVOY_ERR_INVALID_ARGUMENT, "shift 0.51");
  expect_fail(&cx, CONVOY_ENGINE_AUTO, 1, -0.6, CONVOY_ERR_INVALID_ARGUMENT, "shift -0.6");
  expect_fail(&cx, CONVOY_ENGINE_AUTO, 1, NAN, CONVOY_ERR_INVALID_ARGUMENT, "shift");
  /* The edges are accepted. */
  convoy_stream *s = NULL;
  TS_CHECK_OK(open_stream(&cx, CONVOY_ENGINE_AUTO, CONVOY_MAX_DECIMATION, 0.5, &s));
  convoy_stream_destroy(s);
  s = NULL;
  TS_CHECK_OK(open_stream(&cx, CONVOY_ENGINE_AUTO, 1, -0.5, &s));
  convoy_stream_destroy(s);
  dcase_free(&cx);
  dcase_free(&re);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_decimate"));
  test_bad_args(&rng);
  test_queries(&rng);
  test_lengths(&rng);
  test_phase(&rng);
  test_pick_equals_full_rate(&rng);
  test_reset_and_integer(&rng);
  test_threads(&rng);
  test_against_definition(&rng);
  return ts_finish();
}
