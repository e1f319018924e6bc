/*
 * test_stream.c - stream mechanics on every CPU engine built in: accuracy
 * against the double reference over 1 .. 8 (and 1024) channels with one
 * shared filter or per-channel filters of different lengths; bitwise chunk
 * invariance (1-frame chunks up to one call larger than the work buffer);
 * flush length; latency and max_output; zero-length calls; reset; thread
 * count not changing the bits; impulse response; the engines' thread pool.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"
#include "worker_pool.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOLERANCE 1e-5

typedef struct setup {
  int32_t channels;
  int64_t frames;
  int32_t n_filters;     /* 1 or channels */
  int64_t lengths[1024]; /* taps of each filter */
  float *taps[1024];
  float *x; /* channels * frames, interleaved */
} setup;

static int quick;

static void setup_make(setup *u, ts_rng *rng, int32_t channels, int64_t frames, int32_t n_filters,
                       int64_t max_taps) {
  memset(u, 0, sizeof *u);
  u->channels = channels;
  u->frames = frames;
  u->n_filters = n_filters;
  for (int32_t i = 0; i < n_filters; i++) {
    /* The first filter is the longest; the others are random and shorter. */
    u->lengths[i] = i == 0 ? max_taps : ts_log_range(rng, 1, max_taps);
    u->taps[i] = malloc(sizeof(float) * (size_t)u->lengths[i]);
    ts_fill_uniform(rng, u->taps[i], u->lengths[i]);
  }
  u->x = malloc(sizeof(float) * (size_t)(frames * channels) + 1);
  ts_fill_uniform(rng, u->x, frames * channels);
}

static void setup_free(setup *u) {
  for (int32_t i = 0; i < u->n_filters; i++) free(u->taps[i]);
  free(u->x);
}

static convoy_stream *setup_stream_fft(const setup *u, convoy_engine engine, int32_t threads,
                                       int64_t fft_size) {
  convoy_filter *fs[1024] = {NULL};
  for (int32_t i = 0; i < u->n_filters; i++)
    TS_CHECK_OK(convoy_filter_create(&fs[i], u->taps[i], u->lengths[i]));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = u->channels;
  cfg.engine = engine;
  cfg.threads = threads;
  cfg.fft_size = fft_size;
  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, fs, u->n_filters));
  for (int32_t i = 0; i < u->n_filters; i++) convoy_filter_destroy(fs[i]);
  return s;
}

static convoy_stream *setup_stream(const setup *u, convoy_engine engine, int32_t threads) {
  return setup_stream_fft(u, engine, threads, 0);
}

static int64_t setup_taps_len(const setup *u) {
  int64_t m = 0;
  for (int32_t i = 0; i < u->n_filters; i++) m = u->lengths[i] > m ? u->lengths[i] : m;
  return m;
}

/* Relative L2 error of every channel of y against the double reference;
 * returns the worst. Channels whose filter is shorter than the longest must
 * end in zeros: the reference is zero there. */
static double worst_error(const setup *u, const float *y, int64_t out_frames) {
  int64_t taps_len = setup_taps_len(u);
  double *ref = calloc((size_t)(u->frames + taps_len - 1), sizeof(double));
  float *xc = malloc(sizeof(float) * (size_t)u->frames);
  double worst = 0.0;
  for (int32_t c = 0; c < u->channels; c++) {
    int32_t fi = u->n_filters == 1 ? 0 : c;
    for (int64_t i = 0; i < u->frames; i++) xc[i] = u->x[i * u->channels + c];
    memset(ref, 0, sizeof(double) * (size_t)(u->frames + taps_len - 1));
    ts_reference_conv(xc, u->frames, u->taps[fi], u->lengths[fi], ref);
    double e = ts_rel_l2(y + c, u->channels, ref, out_frames);
    if (!(e <= worst)) worst = e; /* NaN wins */
  }
  free(ref);
  free(xc);
  return worst;
}

static const char *engine_label(convoy_engine e) {
  return convoy_engine_name(e);
}

/* Accuracy over random shapes, one-shot and chunked. */
static void test_reference(convoy_engine e, ts_rng *rng, int64_t max_taps) {
  int rounds = quick ? 6 : 16;
  for (int r = 0; r < rounds; r++) {
    setup u;
    int32_t ch = (int32_t)ts_range(rng, 1, 8);
    int32_t nf = ts_range(rng, 0, 1) ? ch : 1;
    int64_t frames = ts_log_range(rng, 1, quick ? 5000 : 40000);
    int64_t taps = ts_log_range(rng, 1, max_taps);
    setup_make(&u, rng, ch, frames, nf, taps);
    convoy_stream *s = setup_stream(&u, e, 0);
    if (!s) {
      setup_free(&u);
      continue;
    }
    int64_t chunk = ts_range(rng, 0, 1) ? 0 : ts_log_range(rng, 1, 2 * frames);
    int64_t n = 0;
    float *y = ts_stream_run(s, u.x, frames, chunk, rng, &n);
    TS_CHECK(y && n == frames + taps - 1, "%s: %d ch x %lld frames, %lld taps: %lld frames out",
             engine_label(e), (int)ch, (long long)frames, (long long)taps, (long long)n);
    if (y && n == frames + taps - 1) {
      double err = worst_error(&u, y, n);
      TS_CHECK(err < TOLERANCE,
               "%s: %d ch (%d filters) x %lld frames, %lld taps, chunk %lld: "
               "rel error %.3g",
               engine_label(e), (int)ch, (int)nf, (long long)frames, (long long)taps,
               (long long)chunk, err);
    }
    free(y);
    convoy_stream_destroy(s);
    setup_free(&u);
  }
}

/* Feeds the whole signal in one call, then with several chunkings, and
 * requires the same bits every time. */
static void check_invariance(const setup *u, convoy_engine e, int64_t fft_size, ts_rng *rng,
                             const char *what) {
  convoy_stream *s = setup_stream_fft(u, e, 0, fft_size);
  if (!s) return;
  int64_t n_ref = 0;
  float *ref = ts_stream_run(s, u->x, u->frames, 0, NULL, &n_ref);
  int64_t g = convoy_stream_latency(s) + 1;
  int64_t chunks[] = {1, 2, 3, 61, g - 1, g, g + 1, 4096, ts_log_range(rng, 1, u->frames + 1)};
  for (size_t i = 0; i < sizeof chunks / sizeof chunks[0] && ref; i++) {
    if (chunks[i] < 1) continue;
    if (chunks[i] == 1 && u->frames * u->channels > 400000) continue; /* keep it quick */
    TS_CHECK_OK(convoy_stream_reset(s));
    int64_t n = 0;
    float *y = ts_stream_run(s, u->x, u->frames, chunks[i], rng, &n);
    TS_CHECK(y && n == n_ref && memcmp(y, ref, sizeof(float) * (size_t)(n * u->channels)) == 0,
             "%s %s: chunks up to %lld differ from one call", engine_label(e), what,
             (long long)chunks[i]);
    free(y);
  }
  TS_CHECK(ref && n_ref == u->frames + setup_taps_len(u) - 1, "%s %s: %lld frames out",
           engine_label(e), what, (long long)n_ref);
  free(ref);
  convoy_stream_destroy(s);
}

static void test_chunk_invariance(convoy_engine e, ts_rng *rng, int64_t max_taps) {
  struct {
    int32_t ch, nf;
    int64_t frames, taps;
    const char *what;
  } cases[] = {
      {1, 1, 10007, 1, "1 tap"},
      {1, 1, 20011, 16, "16 taps"},
      {2, 2, 7919, 97, "stereo, per-channel"},
      {3, 1, 50, 300, "taps longer than the signal"},
      {5, 5, 3001, 31, "5 ch per-channel"},
      {8, 1, 4099, 64, "8 ch"},
      {1, 1, 1, 7, "one frame"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t taps = cases[i].taps < max_taps ? cases[i].taps : max_taps;
    setup u;
    setup_make(&u, rng, cases[i].ch, cases[i].frames, cases[i].nf, taps);
    check_invariance(&u, e, 0, rng, cases[i].what);
    setup_free(&u);
  }
  /* Random shapes. */
  for (int r = 0; r < (quick ? 3 : 8); r++) {
    setup u;
    int32_t ch = (int32_t)ts_range(rng, 1, 8);
    setup_make(&u, rng, ch, ts_log_range(rng, 1, quick ? 5000 : 30000),
               ts_range(rng, 0, 1) ? ch : 1, ts_log_range(rng, 1, max_taps));
    check_invariance(&u, e, 0, rng, "random shape");
    setup_free(&u);
  }
}

/* A forced small FFT size gives an odd granule of 29 frames, far below the
 * work buffer: runs end mid-granule, chunks straddle granules. */
static void test_small_granule(convoy_engine e, ts_rng *rng) {
  setup u;
  setup_make(&u, rng, 3, quick ? 20000 : 60000, 3, 100);
  convoy_stream *s = setup_stream_fft(&u, e, 0, 128);
  if (s) {
    TS_CHECK(convoy_stream_latency(s) == 28, "%s: fft_size 128, 100 taps: latency %lld, want 28",
             engine_label(e), (long long)convoy_stream_latency(s));
    int64_t n = 0;
    float *y = ts_stream_run(s, u.x, u.frames, 0, NULL, &n);
    double err = y ? worst_error(&u, y, n) : INFINITY;
    TS_CHECK(y && n == u.frames + 99 && err < TOLERANCE, "%s: granule 29: %lld frames, error %.3g",
             engine_label(e), (long long)n, err);
    free(y);
    convoy_stream_destroy(s);
    check_invariance(&u, e, 128, rng, "granule 29");
  }
  setup_free(&u);
}

/* One process() call far larger than the stream's work buffer equals many
 * small calls, bitwise, and is accurate. */
static void test_huge_call(convoy_engine e, ts_rng *rng) {
  setup u;
  int64_t frames = quick ? 300000 : 1500000;
  setup_make(&u, rng, 2, frames, 1, 16);
  convoy_stream *s = setup_stream(&u, e, 0);
  if (s) {
    int64_t n1 = 0, n2 = 0;
    float *one = ts_stream_run(s, u.x, frames, 0, NULL, &n1);
    TS_CHECK_OK(convoy_stream_reset(s));
    float *many = ts_stream_run(s, u.x, frames, 3000, rng, &n2);
    TS_CHECK(one && many && n1 == frames + 15 && n2 == n1, "%s huge: %lld / %lld frames",
             engine_label(e), (long long)n1, (long long)n2);
    if (one && many && n2 == n1) {
      TS_CHECK(memcmp(one, many, sizeof(float) * 2 * (size_t)n1) == 0,
               "%s: one huge call differs from small calls", engine_label(e));
      double err = worst_error(&u, one, n1);
      TS_CHECK(err < TOLERANCE, "%s huge call: rel error %.3g", engine_label(e), err);
    }
    free(one);
    free(many);
    convoy_stream_destroy(s);
  }
  setup_free(&u);
}

/* Output never runs ahead of input nor lags it by more than latency(); each
 * call stays within max_output(); zero-length calls change nothing. */
static void test_latency_and_empty_calls(convoy_engine e, ts_rng *rng, int64_t max_taps) {
  setup u;
  int64_t frames = quick ? 20000 : 100000;
  int64_t taps = ts_log_range(rng, 1, max_taps);
  setup_make(&u, rng, 3, frames, 3, taps);
  convoy_stream *s = setup_stream(&u, e, 0);
  if (!s) {
    setup_free(&u);
    return;
  }
  int64_t n_ref = 0;
  float *ref = ts_stream_run(s, u.x, frames, 0, NULL, &n_ref);
  TS_CHECK_OK(convoy_stream_reset(s));
  int64_t latency = convoy_stream_latency(s), cap = frames + taps + latency;
  float *y = malloc(sizeof(float) * (size_t)(cap * 3));
  int64_t pos = 0, done = 0, bad_lag = 0, bad_bound = 0, bad_empty = 0;
  while (pos < frames) {
    if (ts_range(rng, 0, 2) == 0) { /* a zero-length call, in may be NULL */
      int64_t got = -1;
      const float *in = ts_range(rng, 0, 1) ? NULL : u.x + pos * 3;
      convoy_status st = convoy_stream_process(s, in, 0, y + done * 3, cap - done, &got);
      bad_empty += st != CONVOY_OK || got != 0;
      continue;
    }
    int64_t n = ts_log_range(rng, 1, 5000);
    if (n > frames - pos) n = frames - pos;
    int64_t bound = convoy_stream_max_output(s, n), got = -1;
    TS_CHECK_OK(convoy_stream_process(s, u.x + pos * 3, n, y + done * 3, cap - done, &got));
    bad_bound += got < 0 || got > bound;
    pos += n;
    done += got;
    bad_lag += done > pos || done < pos - latency;
  }
  TS_CHECK(bad_empty == 0, "%s: %lld zero-length calls wrote or failed", engine_label(e),
           (long long)bad_empty);
  TS_CHECK(bad_bound == 0, "%s: %lld calls exceeded max_output", engine_label(e),
           (long long)bad_bound);
  TS_CHECK(bad_lag == 0, "%s: output ahead of input or behind by more than latency %lld (%lld)",
           engine_label(e), (long long)latency, (long long)bad_lag);
  int64_t tail = convoy_stream_flush_frames(s), got = 0;
  TS_CHECK(tail == pos - done + taps - 1, "%s: flush_frames %lld, want %lld", engine_label(e),
           (long long)tail, (long long)(pos - done + taps - 1));
  TS_CHECK_OK(convoy_stream_flush(s, y + done * 3, cap - done, &got));
  done += got;
  TS_CHECK(ref && done == n_ref && memcmp(y, ref, sizeof(float) * 3 * (size_t)done) == 0,
           "%s: run with zero-length calls differs from one call", engine_label(e));
  free(y);
  free(ref);
  convoy_stream_destroy(s);
  setup_free(&u);
}

/* A stream that got no input flushes taps - 1 zeros. */
static void test_empty_stream(convoy_engine e) {
  const float taps[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, taps, 9));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.engine = e;
  cfg.channels = 2;
  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  convoy_filter_destroy(f);
  if (!s) return;
  float y[2 * 8];
  int64_t got = -1;
  memset(y, 0xff, sizeof y);
  TS_CHECK(convoy_stream_flush_frames(s) == 8, "%s: flush_frames %lld", engine_label(e),
           (long long)convoy_stream_flush_frames(s));
  TS_CHECK_OK(convoy_stream_flush(s, y, 8, &got));
  int zeros = got == 8;
  for (int i = 0; i < 16 && zeros; i++) zeros = y[i] == 0.0f;
  TS_CHECK(zeros, "%s: empty stream flush: %lld frames, not all zero", engine_label(e),
           (long long)got);
  convoy_stream_destroy(s);
}

/* Impulse in, taps out, on every channel of an interleaved stream. */
static void test_impulse(convoy_engine e, ts_rng *rng, int64_t max_taps) {
  setup u;
  int64_t taps = ts_log_range(rng, 1, max_taps);
  setup_make(&u, rng, 4, 40, 4, taps);
  memset(u.x, 0, sizeof(float) * 4 * 40);
  for (int c = 0; c < 4; c++) u.x[(3 + c) * 4 + c] = 1.0f; /* channel c: impulse at 3 + c */
  convoy_stream *s = setup_stream(&u, e, 0);
  if (s) {
    int64_t n = 0;
    float *y = ts_stream_run(s, u.x, 40, 7, rng, &n);
    double worst = 0.0;
    for (int c = 0; y && c < 4; c++) {
      for (int64_t k = 0; k < n; k++) {
        int64_t j = k - (3 + c);
        double want = j >= 0 && j < u.lengths[c] ? u.taps[c][j] : 0.0;
        double d = fabs(y[k * 4 + c] - want);
        if (!(d <= worst)) worst = d;
      }
    }
    /* Exact for direct forms; FFT engines round at the float epsilon. */
    double limit = e == CONVOY_ENGINE_CPU_DIRECT ? 0.0 : 1e-5;
    TS_CHECK(y && n == 40 + taps - 1 && worst <= limit,
             "%s: impulse response off by %.3g (%lld taps)", engine_label(e), worst,
             (long long)taps);
    free(y);
    convoy_stream_destroy(s);
  }
  setup_free(&u);
}

/* Many channels, including the maximum, through the interleaving paths. */
static void test_many_channels(convoy_engine e, ts_rng *rng) {
  int32_t counts[] = {11, 64, CONVOY_MAX_CHANNELS};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    setup u;
    setup_make(&u, rng, counts[i], counts[i] > 64 ? 300 : 2000, counts[i] > 64 ? 1 : counts[i],
               ts_log_range(rng, 1, 40));
    convoy_stream *s = setup_stream(&u, e, 0);
    if (s) {
      int64_t n = 0;
      float *y = ts_stream_run(s, u.x, u.frames, 777, rng, &n);
      double err = y ? worst_error(&u, y, n) : INFINITY;
      TS_CHECK(err < TOLERANCE, "%s: %d channels: rel error %.3g", engine_label(e), (int)counts[i],
               err);
      free(y);
      convoy_stream_destroy(s);
    }
    setup_free(&u);
  }
}

/* The thread count changes the speed, never the bits. */
static void test_threads_same_bits(convoy_engine e, ts_rng *rng) {
  setup u;
  setup_make(&u, rng, 2, quick ? 100000 : 400000, 2, 64);
  convoy_stream *one = setup_stream(&u, e, 1);
  convoy_stream *two = setup_stream(&u, e, 2);
  convoy_stream *many = setup_stream(&u, e, 7);
  if (one && two && many) {
    int64_t n1 = 0, n2 = 0, n3 = 0;
    float *y1 = ts_stream_run(one, u.x, u.frames, 0, NULL, &n1);
    float *y2 = ts_stream_run(two, u.x, u.frames, 0, NULL, &n2);
    float *y3 = ts_stream_run(many, u.x, u.frames, 20000, rng, &n3);
    TS_CHECK(y1 && y2 && y3 && n1 == n2 && n1 == n3 &&
                 memcmp(y1, y2, sizeof(float) * 2 * (size_t)n1) == 0 &&
                 memcmp(y1, y3, sizeof(float) * 2 * (size_t)n1) == 0,
             "%s: 1, 2 and 7 threads give different output", engine_label(e));
    free(y1);
    free(y2);
    free(y3);
  }
  convoy_stream_destroy(one);
  convoy_stream_destroy(two);
  convoy_stream_destroy(many);
  setup_free(&u);
}

/* The engines' thread pool runs every task of every job exactly once, with
 * jobs back to back (workers spinning) and after pauses (workers asleep). */
typedef struct pool_check {
  atomic_int hits[64];
} pool_check;

static void pool_check_task(void *ctx, int64_t task) {
  pool_check *c = ctx;
  atomic_fetch_add_explicit(&c->hits[task], 1, memory_order_relaxed);
}

static void test_worker_pool(ts_rng *rng) {
  worker_pool *pool = pool_create(3);
  TS_CHECK(pool && pool_threads(pool) == 3, "pool_create(3)");
  if (!pool) return;
  int64_t bad = 0, jobs = quick ? 2000 : 20000;
  for (int64_t j = 0; j < jobs; j++) {
    pool_check c;
    int64_t tasks = ts_range(rng, 1, 64);
    for (int i = 0; i < 64; i++) atomic_init(&c.hits[i], 0);
    if (j % 1000 == 999) {
      struct timespec pause = {0, 200000}; /* 200 us: the workers go to sleep */
      nanosleep(&pause, NULL);
    }
    pool_run(pool, tasks, pool_check_task, &c);
    for (int i = 0; i < 64; i++) bad += atomic_load(&c.hits[i]) != (i < tasks ? 1 : 0);
  }
  TS_CHECK(bad == 0, "%lld task slots ran the wrong number of times", (long long)bad);
  pool_destroy(pool);
  pool_destroy(NULL);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_stream"));
  struct {
    convoy_engine id;
    int64_t max_taps; /* keeps the direct engine's runtime small */
  } engines[] = {{CONVOY_ENGINE_CPU_DIRECT, 300}, {CONVOY_ENGINE_CPU_FFT, 5000}};
  int ran = 0;
  for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
    convoy_engine e = engines[i].id;
    if (!convoy_engine_available(e)) {
      printf("%s: not built in, skipped\n", engine_label(e));
      continue;
    }
    ran++;
    printf("%s\n", engine_label(e));
    test_reference(e, &rng, engines[i].max_taps);
    test_chunk_invariance(e, &rng, engines[i].max_taps);
    test_huge_call(e, &rng);
    if (e == CONVOY_ENGINE_CPU_FFT) test_small_granule(e, &rng);
    test_latency_and_empty_calls(e, &rng, engines[i].max_taps);
    test_empty_stream(e);
    test_impulse(e, &rng, engines[i].max_taps);
    test_many_channels(e, &rng);
    test_threads_same_bits(e, &rng);
  }
  test_worker_pool(&rng);
  TS_CHECK(ran > 0, "no CPU engine available");
  return ts_finish();
}
