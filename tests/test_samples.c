/*
 * test_samples.c - typed input (convoy_stream_process_samples) on the CPU
 * engines, and convoy_host_alloc.
 *
 * Checks: the conversions against values computed independently in double
 * (a one-tap unit filter on the direct engine passes the converted samples
 * through: int16 v gives
 * v / 32768 exactly, int32 v gives v / 2^31 rounded to float, the extremes
 * included); int16 and int32 input give bitwise the output of the float path
 * on the converted samples, over 1 .. 8 channels, both CPU engines, random
 * chunkings, and calls whose formats change from call to call; argument
 * errors (unknown format, overlap counted in the input's width, NULL);
 * convoy_host_alloc alignment, use, and free.
 */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const convoy_engine cpu_engines[] = {CONVOY_ENGINE_CPU_DIRECT, CONVOY_ENGINE_CPU_FFT};

static convoy_stream *make_stream(convoy_engine e, int32_t channels, const float *taps,
                                  int64_t n_taps) {
  convoy_filter *f = NULL;
  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, taps, n_taps));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = channels;
  cfg.engine = e;
  cfg.threads = 2;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  convoy_filter_destroy(f);
  return s;
}

/* Feeds frames of `in` (interleaved, fmt_of_call picks each call's format:
 * the same signal is held as f32, s16/s32 and its float conversion) in random
 * calls of up to chunk_max frames, then flushes. Returns the output (caller
 * frees) with *n frames. */
typedef struct signal {
  int32_t channels;
  int64_t frames;
  convoy_sample_format int_fmt; /* S16 or S32 */
  void *ints;                   /* frames x channels of int_fmt */
  float *floats;                /* the same samples converted */
} signal;

static float *feed(convoy_stream *s, const signal *x, int mix, int64_t chunk_max, ts_rng *rng,
                   int64_t *n) {
  const int32_t ch = x->channels;
  const int64_t cap = x->frames + convoy_stream_taps(s) + convoy_stream_latency(s);
  float *out = malloc(sizeof(float) * (size_t)(cap * ch));
  const size_t width = convoy_sample_format_bytes(x->int_fmt);
  int64_t pos = 0, done = 0;
  while (pos < x->frames) {
    int64_t take = x->frames - pos;
    if (chunk_max > 0) {
      int64_t c = ts_log_range(rng, 1, chunk_max);
      if (c < take) take = c;
    }
    /* mix 0: all integer; 1: each call picks integer or float */
    int as_float = mix && ts_range(rng, 0, 1);
    int64_t got = 0;
    convoy_status st;
    if (as_float)
      st = convoy_stream_process_samples(s, CONVOY_FORMAT_F32, x->floats + pos * ch, take,
                                         out + done * ch, cap - done, &got);
    else
      st = convoy_stream_process_samples(s, x->int_fmt,
                                         (const char *)x->ints + (size_t)(pos * ch) * width, take,
                                         out + done * ch, cap - done, &got);
    TS_CHECK(st == CONVOY_OK, "process_samples: %s", convoy_stream_last_error(s));
    if (st != CONVOY_OK) break;
    pos += take;
    done += got;
  }
  int64_t got = 0;
  TS_CHECK_OK(convoy_stream_flush(s, out + done * ch, cap - done, &got));
  *n = done + got;
  return out;
}

static void make_signal(signal *x, ts_rng *rng, int32_t channels, int64_t frames,
                        convoy_sample_format fmt) {
  x->channels = channels;
  x->frames = frames;
  x->int_fmt = fmt;
  const int64_t n = frames * channels;
  x->ints = malloc(convoy_sample_format_bytes(fmt) * (size_t)n);
  x->floats = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = ts_next(rng);
    if (fmt == CONVOY_FORMAT_S16) {
      int16_t v = (int16_t)(r >> 48);
      if (i % 97 == 0) v = i % 2 ? INT16_MAX : INT16_MIN;
      ((int16_t *)x->ints)[i] = v;
      x->floats[i] = (float)((double)v / 32768.0);
    } else {
      int32_t v = (int32_t)(r >> 32);
      if (i % 97 == 0) v = i % 2 ? INT32_MAX : INT32_MIN;
      ((int32_t *)x->ints)[i] = v;
      x->floats[i] = (float)((double)v / 2147483648.0);
    }
  }
}

static void free_signal(signal *x) {
  free(x->ints);
  free(x->floats);
}

/* A unit filter passes the converted samples through unchanged. */
static void test_conversion_values(ts_rng *rng) {
  const float one = 1.0f;
  for (int k = 0; k < 2; k++) {
    convoy_sample_format fmt = k ? CONVOY_FORMAT_S32 : CONVOY_FORMAT_S16;
    signal x;
    make_signal(&x, rng, 3, 5000, fmt);
    /* The direct engine multiplies by the one tap exactly (an FFT would round). */
    for (size_t e = 0; e < 1; e++) {
      convoy_stream *s = make_stream(cpu_engines[e], 3, &one, 1);
      if (!s) continue;
      int64_t n = 0;
      float *y = feed(s, &x, 0, 700, rng, &n);
      TS_CHECK(n == x.frames, "unit filter: %lld frames out, want %lld", (long long)n,
               (long long)x.frames);
      int64_t bad = 0;
      for (int64_t i = 0; i < x.frames * 3 && n == x.frames; i++) bad += y[i] != x.floats[i];
      TS_CHECK(bad == 0, "%s, %s: %lld samples differ from v / 2^%d",
               convoy_engine_name(cpu_engines[e]), k ? "s32" : "s16", (long long)bad, k ? 31 : 15);
      free(y);
      convoy_stream_destroy(s);
    }
    free_signal(&x);
  }
  /* The extremes, spelled out. */
  TS_CHECK((float)((double)INT16_MIN / 32768.0) == -1.0f, "int16 min is not -1");
  TS_CHECK((float)((double)INT32_MAX / 2147483648.0) == 1.0f, "int32 max rounds to 1.0f");
}

static void test_matches_float_path(ts_rng *rng) {
  for (int trial = 0; trial < (ts_quick() ? 6 : 16); trial++) {
    const convoy_engine e = cpu_engines[trial % 2];
    const int32_t ch = (int32_t)ts_range(rng, 1, 8);
    const int64_t frames = ts_log_range(rng, 1, ts_quick() ? 20000 : 100000);
    const int64_t n_taps = ts_log_range(rng, 1, e == CONVOY_ENGINE_CPU_FFT ? 3000 : 200);
    const convoy_sample_format fmt = trial % 4 < 2 ? CONVOY_FORMAT_S16 : CONVOY_FORMAT_S32;
    float *taps = malloc(sizeof(float) * (size_t)n_taps);
    ts_fill_uniform(rng, taps, n_taps);
    signal x;
    make_signal(&x, rng, ch, frames, fmt);

    convoy_stream *s = make_stream(e, ch, taps, n_taps);
    int64_t n_ref = 0, n_int = 0, n_mix = 0;
    float *ref = s ? ts_stream_run(s, x.floats, frames, 0, rng, &n_ref) : NULL;
    if (s) convoy_stream_reset(s);
    float *yi = s ? feed(s, &x, 0, ts_log_range(rng, 1, frames), rng, &n_int) : NULL;
    if (s) convoy_stream_reset(s);
    float *ym = s ? feed(s, &x, 1, ts_log_range(rng, 1, frames), rng, &n_mix) : NULL;
    const size_t bytes = sizeof(float) * (size_t)(n_ref * ch);
    TS_CHECK(ref && yi && n_int == n_ref && memcmp(ref, yi, bytes) == 0,
             "%s %s, %d ch, %lld frames, %lld taps: integer input differs from the float path",
             convoy_engine_name(e), fmt == CONVOY_FORMAT_S16 ? "s16" : "s32", (int)ch,
             (long long)frames, (long long)n_taps);
    TS_CHECK(ref && ym && n_mix == n_ref && memcmp(ref, ym, bytes) == 0,
             "%s, %d ch: calls mixing formats differ from the float path", convoy_engine_name(e),
             (int)ch);
    free(ref);
    free(yi);
    free(ym);
    convoy_stream_destroy(s);
    free_signal(&x);
    free(taps);
  }
}

static void test_arguments(void) {
  const float taps[3] = {1, 2, 3};
  convoy_stream *s = make_stream(CONVOY_ENGINE_CPU_DIRECT, 2, taps, 3);
  if (!s) return;
  int16_t in16[64] = {0};
  float out[256];
  int64_t got = -1;
  TS_CHECK(convoy_stream_process_samples(s, (convoy_sample_format)7, in16, 4, out, 256, &got) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "unknown format accepted");
  TS_CHECK(strstr(convoy_stream_last_error(s), "format") != NULL, "message: %s",
           convoy_stream_last_error(s));
  TS_CHECK(convoy_stream_process_samples(s, CONVOY_FORMAT_S16, NULL, 4, out, 256, &got) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL input accepted");
  /* 8 frames x 2 channels of int16 are 32 bytes: out 16 bytes further overlaps them. */
  float *shared = malloc(4096);
  TS_CHECK(convoy_stream_process_samples(s, CONVOY_FORMAT_S16, shared, 8,
                                         (float *)((char *)shared + 16), 200,
                                         &got) == CONVOY_ERR_INVALID_ARGUMENT,
           "overlapping int16 input and output accepted");
  /* ... and out 32 bytes further does not. */
  memset(shared, 0, 4096);
  TS_CHECK(convoy_stream_process_samples(s, CONVOY_FORMAT_S16, shared, 8,
                                         (float *)((char *)shared + 32), 200, &got) == CONVOY_OK,
           "adjacent int16 input and output refused: %s", convoy_stream_last_error(s));
  TS_CHECK(got == 8, "8 frames in, %lld out", (long long)got);
  free(shared);
  TS_CHECK(convoy_sample_format_bytes(CONVOY_FORMAT_F32) == 4 &&
               convoy_sample_format_bytes(CONVOY_FORMAT_S16) == 2 &&
               convoy_sample_format_bytes(CONVOY_FORMAT_S32) == 4 &&
               convoy_sample_format_bytes((convoy_sample_format)9) == 0,
           "sample widths");
  TS_CHECK(convoy_stream_process_samples(NULL, CONVOY_FORMAT_S16, in16, 1, out, 256, &got) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL stream accepted");
  convoy_stream_destroy(s);
}

static void test_host_alloc(void) {
  TS_CHECK(convoy_host_alloc(0) == NULL, "0 bytes gave a block");
  convoy_host_free(NULL);
  TS_CHECK(convoy_host_is_pinned(NULL) == 0, "NULL pinned");
  for (size_t bytes = 1; bytes < ((size_t)1 << 22); bytes = bytes * 7 + 3) {
    unsigned char *p = convoy_host_alloc(bytes);
    TS_CHECK(p != NULL, "convoy_host_alloc(%zu): %s", bytes, convoy_last_error());
    if (!p) continue;
    TS_CHECK(((uintptr_t)p & 63) == 0, "block %p is not 64-byte aligned", (void *)p);
    memset(p, 0xA5, bytes);
    TS_CHECK(p[0] == 0xA5 && p[bytes - 1] == 0xA5, "block not writable");
    /* Pinned exactly when a GPU is usable (pinning a few MiB does not fail). */
    TS_CHECK(convoy_host_is_pinned(p) == (convoy_gpu_count() > 0), "pinned %d with %d GPUs",
             convoy_host_is_pinned(p), convoy_gpu_count());
    convoy_host_free(p);
  }
}

int main(void) {
  uint64_t seed = ts_seed("test_samples");
  ts_rng rng;
  ts_rng_init(&rng, seed);
  test_conversion_values(&rng);
  test_matches_float_path(&rng);
  test_arguments();
  test_host_alloc();
  return ts_finish();
}
