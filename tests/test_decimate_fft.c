/*
 * test_decimate_fft.c - cpu-fft's decimating run (engine_ops.run_decimated,
 * the spectrum folded before an inverse transform of 1/D of the size), for
 * D in {2, 3, 5, 8, 16, 37}:
 *   - the op itself, for every first index (decimation phase) 0 .. D - 1,
 *     on real rows, complex-tap pairs and a real pair on complex rows:
 *     against a double-precision evaluation of run()'s definition (engine.h)
 *     and against run()'s own outputs; one call over several blocks equals
 *     one call per block bitwise; a factor other than the plan's equals
 *     run()'s every factor-th frame bitwise; the plan's granule is a
 *     multiple of D and its describe line says it folds;
 *   - streams on cpu-fft for every decimation phase of the filter
 *     ((taps - 1) mod D), real, complex-tap and shifted complex streams:
 *     one call, random chunks and 1-frame chunks give the same bits, the
 *     output matches the definition in convoy.h in double, and cpu-direct
 *     to float rounding;
 *   - a forced FFT size that D does not divide (no folding) and one it does;
 *   - long filters: 2^16 taps (and 2^20 once outside CONVOY_TEST_QUICK),
 *     random chunks bitwise against one call, sampled outputs against the
 *     definition;
 *   - the cost model: with decimation the cpu-fft cost per full-rate frame
 *     drops, and a CPU stream of 4096 taps and D = 8 runs on cpu-fft.
 */
#include "engine.h"
#include "test_support.h"
#include "ts_decimation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5

static const int32_t factors[] = {2, 3, 5, 8, 16, 37};
#define N_FACTORS ((int)(sizeof factors / sizeof factors[0]))
static int quick;
static double worst_op, worst_stream;

/* ------------------------------------------------------------ the op */

/* run()'s definition (engine.h) for output k of row c, in double. */
static double op_reference(const float *const *in, const float *const *taps, int64_t len,
                           int complex_taps, int32_t c, int64_t k) {
  double acc = 0.0;
  if (!complex_taps) {
    for (int64_t j = 0; j < len; j++) acc += (double)taps[c][j] * in[c][k + len - 1 - j];
    return acc;
  }
  const int32_t r = c & ~1, i = r + 1;
  for (int64_t j = 0; j < len; j++) {
    const int64_t t = k + len - 1 - j;
    if (c == r)
      acc += (double)taps[r][j] * in[r][t] - (double)taps[i][j] * in[i][t];
    else
      acc += (double)taps[r][j] * in[i][t] + (double)taps[i][j] * in[r][t];
  }
  return acc;
}

/* One plan of `rows` rows, len taps, decimation d: every first index. */
static void check_op(ts_rng *rng, int32_t d, int64_t len, int complex_taps) {
  const engine_ops *ops = engine_cpu_fft();
  const int32_t rows = 4;
  float *taps_mem = malloc(sizeof(float) * (size_t)(rows * len));
  const float *taps[4];
  for (int32_t c = 0; c < rows; c++) {
    float *t = taps_mem + (size_t)c * (size_t)len;
    ts_fill_uniform(rng, t, len);
    taps[c] = t;
  }
  if (complex_taps) {
    /* Pair 1 is a real filter on complex rows: zero imaginary taps. */
    memset(taps_mem + 3 * (size_t)len, 0, sizeof(float) * (size_t)len);
    taps[2] = taps[0];
  } else {
    taps[3] = taps[1]; /* a shared filter */
  }
  engine_request r;
  memset(&r, 0, sizeof r);
  r.channels = rows;
  r.taps_len = len;
  r.taps = taps;
  r.threads = (int32_t)ts_range(rng, 1, 3);
  r.complex_taps = complex_taps;
  r.device = -1;
  r.decimation = d;
  void *impl = NULL;
  char err[256] = "";
  TS_CHECK(ops->run_decimated != NULL, "cpu-fft has no run_decimated");
  convoy_status st = ops->create(&r, &impl, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "create D %d, %lld taps: %s", (int)d, (long long)len, err);
  if (st != CONVOY_OK || !ops->run_decimated) {
    free(taps_mem);
    return;
  }
  char line[256] = "", want[32];
  ops->describe(impl, line, sizeof line);
  snprintf(want, sizeof want, "folded by %d", (int)d);
  TS_CHECK(strstr(line, want) != NULL, "D %d, %lld taps: not folded: %s", (int)d, (long long)len,
           line);
  const int64_t g = ops->granule(impl);
  TS_CHECK(g >= d && g % d == 0, "D %d: granule %lld", (int)d, (long long)g);
  const int64_t blocks = quick ? 2 : 3, n_out = g * blocks;
  const int64_t n_in = n_out + len - 1 + CONVOY_ENGINE_SLACK;
  float *in_mem = malloc(sizeof(float) * (size_t)(rows * n_in));
  float *full_mem = malloc(sizeof(float) * (size_t)(rows * n_out));
  float *dec_mem = malloc(sizeof(float) * (size_t)(rows * n_out));
  float *part_mem = malloc(sizeof(float) * (size_t)(rows * n_out));
  const float *in[4];
  float *full[4], *dec[4], *part[4];
  ts_fill_uniform(rng, in_mem, rows * n_in);
  for (int32_t c = 0; c < rows; c++) {
    in[c] = in_mem + (size_t)c * (size_t)n_in;
    full[c] = full_mem + (size_t)c * (size_t)n_out;
    dec[c] = dec_mem + (size_t)c * (size_t)n_out;
    part[c] = part_mem + (size_t)c * (size_t)n_out;
  }
  TS_CHECK_OK(ops->run(impl, in, full, n_out, err, sizeof err));
  for (int64_t first = 0; first < d; first++) {
    const int64_t kept = (n_out - first + d - 1) / d;
    TS_CHECK_OK(ops->run_decimated(impl, in, dec, n_out, first, d, err, sizeof err));
    /* Block by block, each call seeing its own block at the start. */
    for (int64_t b = 0; b < blocks; b++) {
      const float *in_b[4];
      float *part_b[4];
      for (int32_t c = 0; c < rows; c++) {
        in_b[c] = in[c] + b * g;
        part_b[c] = part[c] + b * (g / d);
      }
      TS_CHECK_OK(ops->run_decimated(impl, in_b, part_b, g, first, d, err, sizeof err));
    }
    int same = 1;
    double num = 0.0, den = 0.0, rnum = 0.0, rden = 0.0;
    for (int32_t c = 0; c < rows; c++) {
      same = same && memcmp(dec[c], part[c], sizeof(float) * (size_t)kept) == 0;
      for (int64_t m = 0; m < kept; m++) {
        const double a = dec[c][m], b = full[c][first + m * d];
        num += (a - b) * (a - b);
        den += b * b;
      }
      for (int s = 0; s < 24; s++) {
        const int64_t m = ts_range(rng, 0, kept - 1);
        const double ref = op_reference(in, taps, len, complex_taps, c, first + m * d);
        rnum += (dec[c][m] - ref) * (dec[c][m] - ref);
        rden += ref * ref;
      }
    }
    const double vs_run = den > 0.0 ? sqrt(num / den) : sqrt(num);
    const double vs_ref = rden > 0.0 ? sqrt(rnum / rden) : sqrt(rnum);
    if (vs_ref > worst_op) worst_op = vs_ref;
    TS_CHECK(same, "D %d first %lld, %lld taps: one call differs from one call per block", (int)d,
             (long long)first, (long long)len);
    TS_CHECK(vs_run < TOLERANCE && vs_ref < TOLERANCE,
             "D %d first %lld, %lld taps, %s: rel L2 %.3g against run(), %.3g against the "
             "definition",
             (int)d, (long long)first, (long long)len, complex_taps ? "complex taps" : "real taps",
             vs_run, vs_ref);
  }
  /* Another factor than the plan's: run()'s frames, bitwise. */
  const int64_t other = d + 1, first = ts_range(rng, 0, other - 1);
  TS_CHECK_OK(ops->run_decimated(impl, in, dec, n_out, first, other, err, sizeof err));
  int same = 1;
  for (int32_t c = 0; c < rows; c++)
    for (int64_t m = 0; first + m * other < n_out && same; m++)
      same = dec[c][m] == full[c][first + m * other];
  TS_CHECK(same, "D %d plan, factor %lld: not run()'s every %lld-th frame", (int)d,
           (long long)other, (long long)other);
  ops->destroy(impl);
  free(in_mem);
  free(full_mem);
  free(dec_mem);
  free(part_mem);
  free(taps_mem);
}

static void test_op(ts_rng *rng) {
  for (int di = 0; di < N_FACTORS; di++)
    for (int complex_taps = 0; complex_taps < 2; complex_taps++) {
      const int32_t d = factors[di];
      check_op(rng, d, ts_log_range(rng, 1, quick ? 400 : 3000), complex_taps);
      check_op(rng, d, d * ts_range(rng, 1, 20) + 1, complex_taps); /* phase 0 */
    }
  check_op(rng, 37, quick ? 5000 : 20000, 1);
  printf("run_decimated worst rel L2 error against the definition: %.3g\n", worst_op);
}

/* ------------------------------------------------------------ streams */

/* A stream case: one channel (complex or real), its filter and input. */
typedef struct scase {
  int is_complex, complex_taps;
  int64_t len, frames;
  int64_t fft_size; /* config.fft_size: 0 = the cost model */
  float *taps;      /* len or 2 x len (complex) */
  float *x;         /* frames x (1 or 2) */
  convoy_filter *filter;
} scase;

static void scase_make(scase *t, ts_rng *rng, int is_complex, int complex_taps, int64_t len,
                       int64_t frames) {
  memset(t, 0, sizeof *t);
  t->is_complex = is_complex;
  t->complex_taps = complex_taps;
  t->len = len;
  t->frames = frames;
  const int64_t nx = frames * (is_complex ? 2 : 1);
  t->filter = ts_random_filter(rng, complex_taps, len, &t->taps);
  t->x = malloc(sizeof(float) * (size_t)(nx > 0 ? nx : 1));
  ts_fill_uniform(rng, t->x, nx);
}

static void scase_free(scase *t) {
  convoy_filter_destroy(t->filter);
  free(t->taps);
  free(t->x);
}

static float *run_stream(const scase *t, convoy_engine e, int32_t d, double f, int32_t threads,
                         int64_t chunk_max, ts_rng *rng, int64_t *frames) {
  convoy_stream_config cfg;
  ts_decimating_config(&cfg, e, 1, t->is_complex, d, f);
  cfg.threads = threads;
  if (e == CONVOY_ENGINE_CPU_FFT) cfg.fft_size = t->fft_size;
  convoy_stream *s = NULL;
  convoy_filter *filters[1] = {t->filter};
  convoy_status st = convoy_stream_create(&s, &cfg, filters, 1);
  TS_CHECK(st == CONVOY_OK, "create %s D %d: %s", convoy_engine_name(e), (int)d,
           convoy_last_error());
  if (st != CONVOY_OK) return NULL;
  float *out =
      ts_stream_run_values(s, t->x, t->frames, t->is_complex ? 2 : 1, chunk_max, rng, frames);
  convoy_stream_destroy(s);
  const int64_t want = ts_decimated_frames(t->frames, t->len, d);
  TS_CHECK(!out || *frames == want, "%s D %d: %lld frames, want %lld", convoy_engine_name(e),
           (int)d, (long long)*frames, (long long)want);
  return out;
}

/* Relative L2 error of out (count frames) against the definition, over
 * every output or every `step`-th one. */
static double stream_error(const scase *t, int32_t d, double f, const float *out, int64_t count,
                           int64_t step) {
  double num = 0.0, den = 0.0;
  ts_decimated_error_sums((ts_signal){t->x, t->frames, 1, t->is_complex}, 0,
                          (ts_taps){t->taps, t->len, t->complex_taps}, d, f, out, count, step, &num,
                          &den);
  return ts_ratio_l2(num, den);
}

/* One stream case on cpu-fft: chunk invariance, the definition, cpu-direct. */
static void check_stream(const scase *t, int32_t d, double f, ts_rng *rng, int with_direct,
                         int64_t ref_step) {
  const int64_t v = t->is_complex ? 2 : 1;
  int64_t n_one = 0, n_rnd = 0;
  const int32_t threads = (int32_t)ts_range(rng, 1, 2);
  float *one = run_stream(t, CONVOY_ENGINE_CPU_FFT, d, f, threads, 0, rng, &n_one);
  if (!one) return;
  const char *kind = !t->is_complex ? "real" : t->complex_taps ? "complex taps" : "real taps";
  const int64_t chunk_max = ts_range(rng, 1, 4) == 1 ? 1 : ts_log_range(rng, 2, 5 * t->len + 7);
  if (chunk_max > 1 || t->frames <= 4000) {
    float *rnd = run_stream(t, CONVOY_ENGINE_CPU_FFT, d, f, 3 - threads, chunk_max, rng, &n_rnd);
    TS_CHECK(rnd && n_rnd == n_one && memcmp(rnd, one, sizeof(float) * (size_t)(n_one * v)) == 0,
             "cpu-fft D %d f %g, %lld taps (%s): chunks of up to %lld differ from one call", (int)d,
             f, (long long)t->len, kind, (long long)chunk_max);
    free(rnd);
  }
  const double err = stream_error(t, d, f, one, n_one, ref_step);
  if (err > worst_stream) worst_stream = err;
  TS_CHECK(err < TOLERANCE, "cpu-fft D %d f %g, %lld taps (%s): rel L2 %.3g against the definition",
           (int)d, f, (long long)t->len, kind, err);
  if (with_direct) {
    int64_t n_direct = 0;
    float *direct = run_stream(t, CONVOY_ENGINE_CPU_DIRECT, d, f, 1, 0, rng, &n_direct);
    TS_CHECK(direct && n_direct == n_one &&
                 ts_rel_diff_channel(one, direct, 1, 0, n_one * v) < TOLERANCE,
             "cpu-fft D %d f %g, %lld taps (%s): %.3g from cpu-direct", (int)d, f,
             (long long)t->len, kind,
             direct ? ts_rel_diff_channel(one, direct, 1, 0, n_one * v) : -1.0);
    free(direct);
  }
  free(one);
}

/* Every decimation phase of the filter, (len - 1) mod D, for every D. */
static void test_stream_phases(ts_rng *rng) {
  for (int di = 0; di < N_FACTORS; di++) {
    const int32_t d = factors[di];
    const int64_t base = d * ts_range(rng, 2, quick ? 4 : 8);
    for (int32_t phase = 0; phase < d; phase++) {
      const int kind = (int)ts_range(rng, 0, 2); /* real, complex taps, real taps + shift */
      scase t;
      const int64_t len = base + phase + 1;
      scase_make(&t, rng, kind > 0, kind == 1, len, ts_log_range(rng, 1, quick ? 3000 : 8000));
      check_stream(&t, d, kind == 2 ? 0.137 : 0.0, rng, 1, 1);
      scase_free(&t);
    }
  }
  printf("cpu-fft streams worst rel L2 error against the definition: %.3g\n", worst_stream);
}

/* Long filters: 2^16 taps for each kind (D 8 and 37), 2^20 once. */
static void test_long(ts_rng *rng) {
  const int32_t ds[2] = {8, 37};
  for (int kind = 0; kind < 3; kind++) {
    const int32_t d = ds[kind % 2];
    scase t;
    scase_make(&t, rng, kind > 0, kind == 1, 65536, quick ? 50000 : 200000);
    check_stream(&t, d, kind == 2 ? -0.21 : 0.0, rng, 0, (t.frames + t.len) / d / 300 + 1);
    scase_free(&t);
  }
  if (!quick) {
    scase t;
    scase_make(&t, rng, 1, 1, INT64_C(1) << 20, 1500000);
    check_stream(&t, 16, 0.0, rng, 0, (t.frames + t.len) / 16 / 40 + 1);
    scase_free(&t);
  }
}

/* A forced FFT size that D does not divide: the plan cannot fold, and
 * run_decimated keeps every D-th frame of the full-rate run. */
static void test_forced_size(ts_rng *rng) {
  scase t;
  scase_make(&t, rng, 1, 1, 300, 5000);
  t.fft_size = 1024;
  check_stream(&t, 37, 0.0, rng, 1, 1);
  check_stream(&t, 5, 0.21, rng, 1, 1);
  t.fft_size = 1000; /* 5 divides it: folds */
  check_stream(&t, 5, 0.0, rng, 1, 1);
  scase_free(&t);
}

/* ------------------------------------------------------------ cost */

static void test_cost(void) {
  const int64_t len = 4096;
  float *taps = calloc((size_t)len, sizeof(float));
  taps[0] = 1.0f;
  const float *rows[2] = {taps, taps};
  engine_request r;
  memset(&r, 0, sizeof r);
  r.channels = 2;
  r.taps_len = len;
  r.taps = rows;
  r.threads = 1;
  r.device = -1;
  const double full = engine_cpu_fft()->cost(&r);
  r.decimation = 8;
  const double dec = engine_cpu_fft()->cost(&r);
  TS_CHECK(full > 0.0 && dec > 0.0 && dec < full,
           "cpu-fft cost per full-rate frame: %.3g decimating by 8, %.3g not", dec, full);
  free(taps);

  ts_rng rng;
  ts_rng_init(&rng, 1);
  scase t;
  scase_make(&t, &rng, 1, 1, len, 10);
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.engine = CONVOY_ENGINE_CPU;
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.decimation = 8;
  cfg.threads = 1;
  convoy_stream *s = NULL;
  convoy_filter *filters[1] = {t.filter};
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, filters, 1));
  TS_CHECK(s && convoy_stream_engine(s) == CONVOY_ENGINE_CPU_FFT,
           "4096 complex taps, D 8: CPU picked %s",
           s ? convoy_engine_name(convoy_stream_engine(s)) : "nothing");
  convoy_stream_destroy(s);
  scase_free(&t);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_decimate_fft"));
  test_cost();
  test_op(&rng);
  test_stream_phases(&rng);
  test_long(&rng);
  test_forced_size(&rng);
  return ts_finish();
}
