/* bench_memory.c - times a stream filtering a signal held in memory. */
#include "bench_memory.h"

#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trial grows until it takes this long (or covers the whole signal); its
 * time, scaled by output frames, estimates one full run. */
#define TRIAL_MIN_SECONDS 0.2
#define TRIAL_FIRST_FRAMES 8192

/* Output frames sampled by the correctness spot check, per checked channel. */
#define CHECK_POINTS 64

double bench_msps(int64_t frames, int32_t channels, double seconds) {
  return seconds > 0 ? (double)frames * (double)channels / seconds * 1e-6 : 0.0;
}

/* Feeds frames frames in chunks of chunk, then flushes; *produced counts
 * the output frames written to out (capacity out_cap frames). */
static convoy_status run_once(convoy_stream *s, const float *in, int64_t frames, int32_t ch,
                              int64_t chunk, float *out, int64_t out_cap, int64_t *produced) {
  int64_t done_in = 0, done_out = 0, got = 0;
  convoy_status st;
  while (done_in < frames) {
    int64_t n = frames - done_in < chunk ? frames - done_in : chunk;
    st = convoy_stream_process(s, in + done_in * ch, n, out + done_out * ch, out_cap - done_out,
                               &got);
    if (st != CONVOY_OK) return st;
    done_in += n;
    done_out += got;
  }
  st = convoy_stream_flush(s, out + done_out * ch, out_cap - done_out, &got);
  *produced = done_out + got;
  return st;
}

/* Relative L2 error of CHECK_POINTS outputs of channel c against sums in
 * double precision; accumulates into *err2 and *ref2. */
static void check_channel(const float *in, const float *out, int64_t frames, int32_t ch, int32_t c,
                          const float *h, int64_t m, double *err2, double *ref2) {
  int64_t total = frames + m - 1;
  for (int i = 0; i < CHECK_POINTS; i++) {
    int64_t k = (int64_t)((double)(total - 1) * i / (CHECK_POINTS - 1));
    int64_t j_lo = k - (frames - 1) > 0 ? k - (frames - 1) : 0;
    int64_t j_hi = k < m - 1 ? k : m - 1;
    double ref = 0.0;
    for (int64_t j = j_lo; j <= j_hi; j++) ref += (double)h[j] * (double)in[(k - j) * ch + c];
    double d = (double)out[k * ch + c] - ref;
    *err2 += d * d;
    *ref2 += ref * ref;
  }
}

static convoy_status fail(convoy_status st, const char *what, const convoy_stream *s, char *err,
                          size_t err_size) {
  snprintf(err, err_size, "%s: %s (%s)", what, convoy_strerror(st),
           s ? convoy_stream_last_error(s) : convoy_last_error());
  return st;
}

convoy_status bench_memory_run(const bench_memory_config *cfg, const float *in,
                               convoy_filter *filter, bench_memory_result *res, char *err,
                               size_t err_size) {
  memset(res, 0, sizeof *res);
  if (err_size) err[0] = '\0';
  convoy_stream_config sc;
  convoy_stream_config_init(&sc);
  sc.channels = cfg->channels;
  sc.engine = cfg->engine;
  sc.threads = cfg->threads;
  sc.fft_size = cfg->fft_size;

  convoy_stream *s = NULL;
  double t0 = bench_now();
  convoy_status st = convoy_stream_create(&s, &sc, &filter, 1);
  res->create_ms = (bench_now() - t0) * 1e3;
  if (st != CONVOY_OK) return fail(st, "convoy_stream_create", NULL, err, err_size);
  res->engine_run = convoy_stream_engine(s);
  convoy_stream_describe(s, res->plan, sizeof res->plan);

  const int64_t m = convoy_filter_length(filter);
  const int64_t want = cfg->frames + m - 1;
  const int64_t out_cap = want + convoy_stream_max_output(s, cfg->chunk);
  float *out = malloc(sizeof(float) * (size_t)out_cap * (size_t)cfg->channels);
  double *times = malloc(sizeof(double) * (size_t)cfg->runs);
  if (!out || !times) {
    free(out);
    free(times);
    convoy_stream_destroy(s);
    snprintf(err, err_size, "cannot allocate %lld output frames", (long long)out_cap);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  memset(out, 0, sizeof(float) * (size_t)out_cap * (size_t)cfg->channels);

  /* Trial (also the warm-up): grow until it is long enough to extrapolate. */
  int64_t trial = cfg->frames < TRIAL_FIRST_FRAMES ? cfg->frames : TRIAL_FIRST_FRAMES;
  int64_t produced = 0;
  for (;;) {
    st = convoy_stream_reset(s);
    t0 = bench_now();
    if (st == CONVOY_OK)
      st = run_once(s, in, trial, cfg->channels, cfg->chunk, out, out_cap, &produced);
    double elapsed = bench_now() - t0;
    if (st != CONVOY_OK) break;
    res->estimate_s = elapsed * (double)want / (double)(trial + m - 1);
    if (elapsed >= TRIAL_MIN_SECONDS || trial == cfg->frames ||
        res->estimate_s * cfg->runs > cfg->limit_s)
      break;
    trial = cfg->frames / 4 < trial ? cfg->frames : trial * 4;
  }
  if (st == CONVOY_OK && res->estimate_s * cfg->runs > cfg->limit_s) res->skipped = 1;

  for (int r = 0; st == CONVOY_OK && !res->skipped && r < cfg->runs; r++) {
    st = convoy_stream_reset(s);
    t0 = bench_now();
    if (st == CONVOY_OK)
      st = run_once(s, in, cfg->frames, cfg->channels, cfg->chunk, out, out_cap, &produced);
    times[r] = bench_now() - t0;
    if (st == CONVOY_OK && produced != want) {
      snprintf(err, err_size, "the stream wrote %lld frames, expected %lld", (long long)produced,
               (long long)want);
      st = CONVOY_ERR_INTERNAL;
    }
  }
  if (st != CONVOY_OK) {
    if (!err[0]) fail(st, "filtering", s, err, err_size);
  } else if (!res->skipped) {
    bench_stats(times, cfg->runs, &res->median_s, &res->min_s, &res->max_s);
    double err2 = 0.0, ref2 = 0.0;
    const float *h = convoy_filter_taps(filter);
    check_channel(in, out, cfg->frames, cfg->channels, 0, h, m, &err2, &ref2);
    if (cfg->channels > 1)
      check_channel(in, out, cfg->frames, cfg->channels, cfg->channels - 1, h, m, &err2, &ref2);
    res->check_rel_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
  }
  free(times);
  free(out);
  convoy_stream_destroy(s);
  return st;
}
