/*
 * test_engines.c - one harness over every engine available here (the CPU
 * engines always, the GPU engines when convoy_engine_available says so),
 * driven through the public stream API:
 *   - accuracy against the double-precision reference (relative L2 < 1e-5)
 *     on random signal lengths 1 .. 10^6 (primes included), taps 1 .. 70000,
 *     taps longer than the signal, 1 .. 8 channels, one shared filter or
 *     per-channel filters of different lengths, the FFT engines at their own
 *     size and at forced (odd, small-block) sizes;
 *   - the engines agreeing with each other on the same case;
 *   - chunk invariance: random chunkings, 1-frame chunks included, give
 *     bitwise the one-shot output, and so does another thread count; the
 *     flush completes the full convolution (count and values);
 *   - LTI: impulse in gives the taps out, linearity, a delayed input gives
 *     the delayed output.
 * Work per engine is bounded (the direct engines get taps x frames x
 * channels <= 2e8); CONVOY_TEST_QUICK shrinks everything.
 */
#include "engine.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5
#define MAX_CH TS_CASE_MAX_CHANNELS
#define MAX_FRAMES 1000000
#define MAX_TAPS 70000

static int quick;

/* ------------------------------------------------------------ engines */

/* Every exact engine of the library's list that can run here. */
#define N_ALL 64
static convoy_engine engines[N_ALL];
static int n_engines;
static double worst_error[N_ALL]; /* largest relative L2 error against the reference */
static int n_checked[N_ALL];      /* accuracy cases each engine ran */

static int is_direct(convoy_engine e) {
  return convoy_engine_cpu_fallback(e) == CONVOY_ENGINE_CPU_DIRECT;
}
static int is_fft(convoy_engine e) {
  return convoy_engine_cpu_fallback(e) == CONVOY_ENGINE_CPU_FFT;
}

/* Largest taps x frames x channels a direct engine is given per case. */
static double direct_budget(void) {
  return quick ? 2e7 : 2e8;
}

/* ------------------------------------------------------------ cases */

/* One signal and its filters; x is interleaved, taps[i] has len[i] values. */
static double direct_work(const ts_case *t) {
  return (double)ts_case_longest(t) * (double)t->frames * (double)t->channels;
}

/* Gives dst copies of src's filters (same count). */
static void case_copy_filters(ts_case *dst, const ts_case *src) {
  for (int32_t i = 0; i < dst->n_filters; i++) {
    free(dst->taps[i]);
    dst->len[i] = src->len[i];
    dst->taps[i] = malloc(sizeof(float) * (size_t)src->len[i]);
    memcpy(dst->taps[i], src->taps[i], sizeof(float) * (size_t)src->len[i]);
  }
}

static void case_name(const ts_case *t, char *buf, size_t size) {
  snprintf(buf, size, "%lld frames x %d ch, %s taps %lld", (long long)t->frames, (int)t->channels,
           t->n_filters > 1 ? "per-channel" : "shared", (long long)ts_case_longest(t));
}

/* 1 when engine e says (by its cost) that it can serve t; engines with
 * limits (a GPU direct kernel's tap count, say) skip what they refuse. */
static int serves(convoy_engine e, const ts_case *t, int64_t fft_size) {
  const engine_ops *ops = engine_lookup(e);
  const float *taps[MAX_CH];
  for (int32_t c = 0; c < t->channels; c++) taps[c] = t->taps[t->n_filters == 1 ? 0 : c];
  engine_request r = {.channels = t->channels,
                      .taps_len = ts_case_longest(t),
                      .taps = taps,
                      .threads = convoy_cpu_threads(),
                      .fft_size = is_fft(e) ? fft_size : 0,
                      .plan_effort = 0,
                      .device = -1};
  return ops && ops->cost(&r) >= 0.0;
}

/* Runs t through a new stream on engine e; NULL when creation failed (which
 * is reported). chunk_max as in ts_stream_run. */
static float *run_case(const ts_case *t, convoy_engine e, int32_t threads, int64_t fft_size,
                       int64_t chunk_max, ts_rng *rng, int64_t *out_frames) {
  convoy_filter *f[MAX_CH] = {NULL};
  convoy_stream *s = NULL;
  float *y = NULL;
  *out_frames = 0;
  for (int32_t i = 0; i < t->n_filters; i++)
    TS_CHECK_OK(convoy_filter_create(&f[i], t->taps[i], t->len[i]));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = t->channels;
  cfg.engine = e;
  cfg.threads = threads;
  cfg.fft_size = is_fft(e) ? fft_size : 0;
  convoy_status st = convoy_stream_create(&s, &cfg, f, t->n_filters);
  TS_CHECK(st == CONVOY_OK, "create %s: %s", convoy_engine_name(e), convoy_last_error());
  if (st == CONVOY_OK) {
    TS_CHECK(convoy_stream_engine(s) == e, "engine %s ran as %s", convoy_engine_name(e),
             convoy_engine_name(convoy_stream_engine(s)));
    y = ts_stream_run(s, t->x, t->frames, chunk_max, rng, out_frames);
  }
  convoy_stream_destroy(s);
  for (int32_t i = 0; i < t->n_filters; i++) convoy_filter_destroy(f[i]);
  return y;
}

/* Double reference of channel c over `total` frames (zero past the end of
 * its own filter's full convolution). */
/* ------------------------------------------------------------ accuracy */

/* A forced FFT size for the FFT engines: 0 (the cost model) or, one time in
 * three, any size from taps to 3 x taps, so that blocks are short, odd and
 * many. */
static int64_t pick_fft_size(ts_rng *rng, int64_t taps) {
  if (ts_range(rng, 0, 2) != 0) return 0;
  return ts_range(rng, taps, 3 * taps + 16);
}

static void check_accuracy(ts_case *t, ts_rng *rng) {
  char name[128];
  case_name(t, name, sizeof name);
  int64_t total = t->frames + ts_case_longest(t) - 1;
  double *ref[MAX_CH];
  for (int32_t c = 0; c < t->channels; c++) ref[c] = ts_case_reference(t, c, total);
  float *y[N_ALL] = {NULL};
  for (int i = 0; i < n_engines; i++) {
    convoy_engine e = engines[i];
    if (is_direct(e) && direct_work(t) > direct_budget()) continue;
    int64_t fft_size = pick_fft_size(rng, ts_case_longest(t)), got = 0;
    if (!serves(e, t, fft_size)) continue;
    n_checked[i]++;
    y[i] = run_case(t, e, 0, fft_size, 0, rng, &got);
    if (!y[i]) continue;
    TS_CHECK(got == total, "%s %s: %lld frames out, expected %lld", convoy_engine_name(e), name,
             (long long)got, (long long)total);
    if (got != total) {
      free(y[i]);
      y[i] = NULL;
      continue;
    }
    for (int32_t c = 0; c < t->channels; c++) {
      double err = ts_rel_l2(y[i] + c, t->channels, ref[c], total);
      if (err > worst_error[i] || isnan(err)) worst_error[i] = err;
      TS_CHECK(err < TOLERANCE, "%s %s fft_size %lld, channel %d: rel L2 error %.3g",
               convoy_engine_name(e), name, (long long)fft_size, (int)c, err);
    }
  }
  /* Engines against each other, within float rounding. */
  for (int i = 0; i < n_engines; i++) {
    for (int j = i + 1; j < n_engines; j++) {
      if (!y[i] || !y[j]) continue;
      for (int32_t c = 0; c < t->channels; c++) {
        double d = ts_rel_diff_channel(y[j], y[i], t->channels, c, total);
        TS_CHECK(d < 2 * TOLERANCE, "%s vs %s, %s, channel %d: rel L2 difference %.3g",
                 convoy_engine_name(engines[j]), convoy_engine_name(engines[i]), name, (int)c, d);
      }
    }
  }
  for (int i = 0; i < n_engines; i++) free(y[i]);
  for (int32_t c = 0; c < t->channels; c++) free(ref[c]);
}

/* Edge cases first, then random ones (log-uniform sizes, so small and large
 * are both common). Half of the random cases are shrunk to fit the direct
 * engines' budget, so that every engine sees many cases. */
static void test_accuracy(ts_rng *rng) {
  static const struct {
    int64_t frames;
    int32_t channels;
    int per_channel;
    int64_t taps;
  } fixed[] = {
      {1, 1, 0, 1},         {1, 1, 0, 70000},   {2, 2, 1, 3},         {17, 1, 0, 5000},
      {100, 3, 1, 4099},    {997, 1, 0, 13},    {7919, 2, 1, 7919},   {65537, 1, 0, 1},
      {104729, 8, 1, 257},  {1000000, 1, 0, 1}, {999983, 1, 0, 1024}, {1000000, 2, 1, 70000},
      {30011, 8, 1, 65521}, {12345, 5, 0, 16},
  };
  int n_fixed = (int)(sizeof fixed / sizeof fixed[0]);
  int n_random = quick ? 8 : 100;
  for (int i = 0; i < n_fixed + n_random; i++) {
    ts_case t;
    if (i < n_fixed) {
      int64_t frames = fixed[i].frames, taps = fixed[i].taps;
      if (quick && frames > 100000) frames = 100003;
      if (quick && taps > 20000) taps = 20011;
      ts_case_make(&t, rng, fixed[i].channels, frames, fixed[i].per_channel, taps);
    } else {
      int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
      int64_t frames = ts_log_range(rng, 1, quick ? 100000 : MAX_FRAMES);
      int64_t taps = ts_log_range(rng, 1, quick ? 20000 : MAX_TAPS);
      /* Bound the signal: at most 8e6 samples in all (2e5 quick). */
      double cap = quick ? 2e5 : 8e6;
      if ((double)frames * ch > cap) frames = (int64_t)(cap / ch);
      if (i % 2 == 0 && (double)frames * (double)ch * (double)taps > direct_budget()) {
        frames = (int64_t)(direct_budget() / ((double)ch * (double)taps));
        if (frames < 1) frames = 1;
      }
      ts_case_make(&t, rng, ch, frames, (int)ts_range(rng, 0, 1), taps);
    }
    check_accuracy(&t, rng);
    ts_case_free(&t);
  }
}

/* ------------------------------------------------------------ chunking */

static void check_chunking(convoy_engine e, ts_case *t, int64_t fft_size, ts_rng *rng) {
  char name[128];
  case_name(t, name, sizeof name);
  int64_t total = t->frames + ts_case_longest(t) - 1, n_one = 0;
  if (!serves(e, t, fft_size)) return;
  float *one = run_case(t, e, 0, fft_size, 0, rng, &n_one);
  if (!one) return;
  TS_CHECK(n_one == total, "%s %s: one shot gave %lld frames, expected %lld", convoy_engine_name(e),
           name, (long long)n_one, (long long)total);
  size_t bytes = sizeof(float) * (size_t)(total * t->channels);
  /* Random chunkings: chunk sizes log-uniform in [1, chunk_max]. */
  int trials = quick ? 2 : 4;
  for (int k = 0; k < trials && n_one == total; k++) {
    int64_t chunk_max = k == 0 ? 1 : ts_log_range(rng, 1, t->frames);
    if (k == 0 && t->frames > 20000) chunk_max = 7; /* keep 1-frame-ish chunks affordable */
    int64_t n = 0;
    float *y = run_case(t, e, 0, fft_size, chunk_max, rng, &n);
    if (!y) continue;
    TS_CHECK(n == total && memcmp(y, one, bytes) == 0,
             "%s %s fft_size %lld: chunks up to %lld frames differ from one call",
             convoy_engine_name(e), name, (long long)fft_size, (long long)chunk_max);
    free(y);
  }
  /* Another thread count gives the same bits. */
  int64_t n1 = 0;
  float *y1 = run_case(t, e, 1, fft_size, 0, rng, &n1);
  int64_t n3 = 0;
  float *y3 = run_case(t, e, 3, fft_size, ts_log_range(rng, 1, t->frames), rng, &n3);
  if (y1 && y3 && n_one == total) {
    TS_CHECK(n1 == total && memcmp(y1, one, bytes) == 0, "%s %s: 1 thread differs",
             convoy_engine_name(e), name);
    TS_CHECK(n3 == total && memcmp(y3, one, bytes) == 0, "%s %s: 3 threads differ",
             convoy_engine_name(e), name);
  }
  free(y1);
  free(y3);
  free(one);
}

static void test_chunking(ts_rng *rng) {
  int n_cases = quick ? 3 : 16;
  for (int i = 0; i < n_engines; i++) {
    convoy_engine e = engines[i];
    for (int k = 0; k < n_cases; k++) {
      int32_t ch = (int32_t)ts_range(rng, 1, 4);
      int64_t frames = ts_log_range(rng, 1, quick ? 30000 : 200000);
      int64_t taps = ts_log_range(rng, 1, quick ? 5000 : 20000);
      if (is_direct(e) && (double)frames * ch * (double)taps > direct_budget() / 4)
        taps = (int64_t)(direct_budget() / 4 / ((double)frames * ch)) + 1;
      ts_case t;
      ts_case_make(&t, rng, ch, frames, k % 2, taps);
      /* FFT engines: alternately the cost model's size and a small one, for
       * many short blocks. */
      int64_t fft_size = is_fft(e) && k % 2 ? taps + ts_range(rng, 0, taps + 100) : 0;
      check_chunking(e, &t, fft_size, rng);
      ts_case_free(&t);
    }
  }
}

/* ------------------------------------------------------------ LTI */

static void test_lti(ts_rng *rng) {
  for (int i = 0; i < n_engines; i++) {
    convoy_engine e = engines[i];
    const char *en = convoy_engine_name(e);
    int64_t taps = ts_log_range(rng, 1, is_direct(e) ? 2000 : 30000);
    ts_case probe = {.channels = 2, .n_filters = 1, .len = {taps}};
    while (taps > 1 && !serves(e, &probe, 0)) probe.len[0] = taps /= 2;
    int64_t frames = ts_log_range(rng, 1, quick ? 20000 : 100000);
    int64_t d = ts_range(rng, 0, 5000);
    int64_t total = frames + taps - 1;

    /* Impulse at frame d: the output is the taps, delayed by d. */
    ts_case imp;
    ts_case_make(&imp, rng, 1, d + taps + ts_range(rng, 0, 100), 0, taps);
    memset(imp.x, 0, sizeof(float) * (size_t)imp.frames);
    imp.x[d] = 1.0f;
    int64_t n = 0;
    float *y = run_case(&imp, e, 0, 0, 0, rng, &n);
    if (y) {
      double *h = calloc((size_t)n, sizeof(double));
      for (int64_t j = 0; j < taps; j++) h[d + j] = imp.taps[0][j];
      double err = ts_rel_l2(y, 1, h, n);
      TS_CHECK(err < 1e-6, "%s: impulse at %lld, %lld taps: rel L2 error %.3g", en, (long long)d,
               (long long)taps, err);
      free(h);
      free(y);
    }
    ts_case_free(&imp);

    /* Linearity: y(a x1 + b x2) = a y(x1) + b y(x2). */
    ts_case t1, t2, t3;
    ts_case_make(&t1, rng, 2, frames, 1, taps);
    ts_case_make(&t2, rng, 2, frames, 1, taps);
    ts_case_make(&t3, rng, 2, frames, 1, taps);
    case_copy_filters(&t2, &t1);
    case_copy_filters(&t3, &t1);
    const float a = 0.75f, b = -1.5f;
    for (int64_t k = 0; k < frames * 2; k++) t3.x[k] = a * t1.x[k] + b * t2.x[k];
    int64_t n1 = 0, n2 = 0, n3 = 0;
    float *y1 = run_case(&t1, e, 0, 0, 0, rng, &n1);
    float *y2 = run_case(&t2, e, 0, 0, 0, rng, &n2);
    float *y3 = run_case(&t3, e, 0, 0, 0, rng, &n3);
    if (y1 && y2 && y3 && n1 == total && n2 == total && n3 == total) {
      /* The difference is measured against the size of the two terms, not
       * of their sum: a few frames of a x1 + b x2 can all but cancel (one
       * frame, 9130 taps, gpu-fft: 1.5e-5 against the sum). */
      for (int32_t c = 0; c < 2; c++) {
        double diff = 0.0, sq1 = 0.0, sq2 = 0.0;
        for (int64_t k = 0; k < total; k++) {
          const double u = y1[k * 2 + c], v = y2[k * 2 + c];
          const double off = (double)y3[k * 2 + c] - ((double)a * u + (double)b * v);
          diff += off * off;
          sq1 += u * u;
          sq2 += v * v;
        }
        const double scale = fabs((double)a) * sqrt(sq1) + fabs((double)b) * sqrt(sq2);
        double err = scale > 0.0 ? sqrt(diff) / scale : (diff == 0.0 ? 0.0 : INFINITY);
        TS_CHECK(err < TOLERANCE, "%s: linearity, %lld frames, %lld taps, channel %d: %.3g", en,
                 (long long)frames, (long long)taps, (int)c, err);
      }
    } else {
      TS_CHECK(0, "%s: linearity runs failed or gave wrong lengths", en);
    }
    free(y2);
    free(y3);

    /* Shift: d leading zeros delay the output by d frames, and the first d
     * outputs are (within rounding) zero. */
    ts_case sh;
    ts_case_make(&sh, rng, 2, frames + d, 1, taps);
    case_copy_filters(&sh, &t1);
    memset(sh.x, 0, sizeof(float) * (size_t)(d * 2));
    memcpy(sh.x + d * 2, t1.x, sizeof(float) * (size_t)(frames * 2));
    int64_t ns = 0;
    float *ys = run_case(&sh, e, 0, 0, 0, rng, &ns);
    if (ys && y1 && ns == total + d && n1 == total) {
      double peak = 0.0, lead = 0.0;
      for (int64_t k = 0; k < total * 2; k++) peak = fmax(peak, fabs((double)y1[k]));
      for (int64_t k = 0; k < d * 2; k++) lead = fmax(lead, fabs((double)ys[k]));
      TS_CHECK(lead <= 1e-5 * peak, "%s: delay %lld: leading output %.3g (peak %.3g)", en,
               (long long)d, lead, peak);
      for (int32_t c = 0; c < 2; c++) {
        double err = ts_rel_diff_channel(ys + d * 2, y1, 2, c, total);
        TS_CHECK(err < TOLERANCE, "%s: delay %lld, %lld taps, channel %d: %.3g", en, (long long)d,
                 (long long)taps, (int)c, err);
      }
    } else {
      TS_CHECK(0, "%s: shift runs failed or gave wrong lengths", en);
    }
    free(ys);
    free(y1);
    ts_case_free(&sh);
    ts_case_free(&t1);
    ts_case_free(&t2);
    ts_case_free(&t3);
  }
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_engines"));
  for (int32_t i = 0; i < convoy_engine_count() && n_engines < N_ALL; i++) {
    convoy_engine e = convoy_engine_at(i);
    if (convoy_engine_is_exact(e) && convoy_engine_available(e)) engines[n_engines++] = e;
  }
  printf("engines:");
  for (int i = 0; i < n_engines; i++) printf(" %s", convoy_engine_name(engines[i]));
  printf("%s\n", quick ? " (quick)" : "");
  TS_CHECK(n_engines >= 2, "expected at least the two CPU engines, found %d", n_engines);

  test_accuracy(&rng);
  for (int i = 0; i < n_engines; i++)
    printf("%s: %d accuracy cases, worst relative L2 error %.3g\n", convoy_engine_name(engines[i]),
           n_checked[i], worst_error[i]);
  test_chunking(&rng);
  test_lti(&rng);
  return ts_finish();
}
