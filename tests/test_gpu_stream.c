/*
 * test_gpu_stream.c - the GPU engines through the public stream API (the
 * host-to-host pipeline), the planar engine interface of the GPU engines, and
 * the device convolver of convoy_cuda.h. Skips (77) without a usable GPU.
 *
 * Checks, for gpu-direct and gpu-fft:
 *   - accuracy against the double reference (relative L2 < 1e-5) and against
 *     the CPU engines, 1 .. 8 channels, one shared or per-channel filters of
 *     different lengths, random signal lengths, chunk sizes and stream counts
 *     (so that many chunks are in flight across calls), pinned and pageable
 *     caller buffers;
 *   - bitwise chunk invariance: random call sizes from 1 frame to the whole
 *     signal, pinned or pageable buffers, and 2 or 5 CUDA streams all give
 *     the one-call bits;
 *   - int16 / int32 input give bitwise the float path's output on the
 *     converted samples, also when formats change inside one chunk;
 *   - output never ahead of input nor behind by more than latency(); every
 *     call within max_output(); flush writes flush_frames() = held + taps - 1;
 *     flush of an empty stream; reset mid-stream; process and flush after
 *     flush give CONVOY_ERR_STATE;
 *   - gpu-fft with 2^20 taps against the reference;
 *   - AUTO picks a GPU engine, describe names chunks, streams and device, a
 *     bad device index is CONVOY_ERR_NO_DEVICE;
 *   - the device convolver: device-resident buffers, several channels, int16,
 *     in-place, reset, bitwise invariance at granule-multiple calls.
 * CONVOY_TEST_QUICK shrinks sizes for the sanitizer runs.
 */
#include "engine.h"
#include "test_support.h"

#ifdef CONVOY_HAVE_CUDA
#include "convoy_cuda.h"

#include <cuda_runtime_api.h>
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5
#define MAX_CH TS_CASE_MAX_CHANNELS
#define DEVICE_MAX_FRAMES 65536

static int quick;
static const convoy_engine gpu_engines[2] = {CONVOY_ENGINE_GPU_DIRECT, CONVOY_ENGINE_GPU_FFT};

/* ------------------------------------------------------------ cases */

typedef struct knobs {
  convoy_engine engine;
  int64_t chunk; /* chunk_frames, 0 = default */
  int32_t streams;
  int64_t fft_size;
} knobs;

static convoy_stream *open_stream(const ts_case *t, knobs k) {
  convoy_filter *f[MAX_CH] = {NULL};
  convoy_stream *s = NULL;
  for (int32_t i = 0; i < t->n_filters; i++)
    TS_CHECK_OK(convoy_filter_create(&f[i], t->taps[i], t->len[i]));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = t->channels;
  cfg.engine = k.engine;
  cfg.chunk_frames = k.chunk;
  cfg.gpu_streams = k.streams;
  cfg.fft_size = k.fft_size;
  convoy_status st = convoy_stream_create(&s, &cfg, f, t->n_filters);
  TS_CHECK(st == CONVOY_OK, "create %s (chunk %lld, %d streams): %s", convoy_engine_name(k.engine),
           (long long)k.chunk, (int)k.streams, convoy_last_error());
  for (int32_t i = 0; i < t->n_filters; i++) convoy_filter_destroy(f[i]);
  return s;
}

/* Host buffers: pinned (convoy_host_alloc) or pageable (malloc). */
static void *buf_alloc(size_t bytes, int pinned) {
  return pinned ? convoy_host_alloc(bytes) : malloc(bytes);
}
static void buf_free(void *p, int pinned) {
  if (pinned)
    convoy_host_free(p);
  else
    free(p);
}

/* Feeds t->x in calls of random size (1 .. chunk_max; <= 0: one call) from
 * a pinned or pageable copy into a pinned or pageable output, checking every
 * call against max_output() and the lag against latency(), then flushes
 * (checking flush_frames()). Returns a malloc'd copy of the output (NULL on
 * error) with *n frames. */
static float *drive(convoy_stream *s, const ts_case *t, int64_t chunk_max, int pinned, ts_rng *rng,
                    int64_t *n) {
  const int32_t ch = t->channels;
  const int64_t latency = convoy_stream_latency(s);
  const int64_t cap = t->frames + convoy_stream_taps(s) + latency;
  float *in = buf_alloc(sizeof(float) * (size_t)(t->frames * ch + 1), pinned);
  float *out = buf_alloc(sizeof(float) * (size_t)(cap * ch), pinned);
  float *copy = NULL;
  *n = 0;
  if (!in || !out) {
    TS_CHECK(in && out, "no memory for %lld frames", (long long)cap);
    goto done;
  }
  memcpy(in, t->x, sizeof(float) * (size_t)(t->frames * ch));
  int64_t pos = 0, done = 0, bad_lag = 0, over = 0;
  while (pos < t->frames) {
    int64_t take = t->frames - pos;
    if (chunk_max > 0) {
      int64_t c = ts_log_range(rng, 1, chunk_max);
      if (c < take) take = c;
    }
    const int64_t bound = convoy_stream_max_output(s, take);
    int64_t got = -1;
    convoy_status st =
        convoy_stream_process(s, in + pos * ch, take, out + done * ch, cap - done, &got);
    if (st != CONVOY_OK) {
      TS_CHECK(st == CONVOY_OK, "process: %s", convoy_stream_last_error(s));
      goto done;
    }
    over += got < 0 || got > bound;
    pos += take;
    done += got;
    bad_lag += done > pos || done < pos - latency;
  }
  TS_CHECK(over == 0, "%lld calls wrote more than max_output", (long long)over);
  TS_CHECK(bad_lag == 0, "%lld calls: output ahead of input or behind by more than %lld",
           (long long)bad_lag, (long long)latency);
  const int64_t want = convoy_stream_flush_frames(s);
  TS_CHECK(want == t->frames - done + convoy_stream_taps(s) - 1,
           "flush_frames %lld, want %lld held + %lld", (long long)want,
           (long long)(t->frames - done), (long long)(convoy_stream_taps(s) - 1));
  int64_t got = -1;
  convoy_status st = convoy_stream_flush(s, out + done * ch, cap - done, &got);
  TS_CHECK(st == CONVOY_OK && got == want, "flush: %s, %lld of %lld frames",
           convoy_stream_last_error(s), (long long)got, (long long)want);
  if (st != CONVOY_OK) goto done;
  done += got;
  copy = malloc(sizeof(float) * (size_t)(done * ch + 1));
  memcpy(copy, out, sizeof(float) * (size_t)(done * ch));
  *n = done;
done:
  buf_free(in, pinned);
  buf_free(out, pinned);
  return copy;
}

static void case_label(const ts_case *t, knobs k, char *buf, size_t size) {
  snprintf(buf, size, "%s: %lld frames x %d ch, %s taps %lld, chunk %lld, %d streams",
           convoy_engine_name(k.engine), (long long)t->frames, (int)t->channels,
           t->n_filters > 1 ? "per-channel" : "shared", (long long)ts_case_longest(t),
           (long long)k.chunk, (int)k.streams);
}

/* ------------------------------------------------------------ accuracy */

static void test_reference(ts_rng *rng) {
  const int cases = quick ? 3 : 14;
  for (int e = 0; e < 2; e++) {
    for (int i = 0; i < cases; i++) {
      ts_case t;
      const int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
      const int64_t taps = ts_log_range(rng, 1, e == 0 ? 400 : (quick ? 3000 : 9000));
      ts_case_make(&t, rng, ch, ts_log_range(rng, 1, quick ? 20000 : 300000), i % 2, taps);
      knobs k = {gpu_engines[e], i % 5 == 0 ? 0 : ts_log_range(rng, 64, 40000),
                 (int32_t)ts_range(rng, 2, 5), 0};
      char label[200];
      case_label(&t, k, label, sizeof label);
      convoy_stream *s = open_stream(&t, k);
      int64_t n = 0;
      float *y = s ? drive(s, &t, ts_log_range(rng, 1, t.frames), i % 3 != 0, rng, &n) : NULL;
      const int64_t total = t.frames + ts_case_longest(&t) - 1;
      TS_CHECK(!s || n == total, "%s: %lld frames out, want %lld", label, (long long)n,
               (long long)total);
      /* The CPU engine of the same kind, for the cross-check. */
      ts_case cpu_t = t;
      knobs kc = {e == 0 ? CONVOY_ENGINE_CPU_DIRECT : CONVOY_ENGINE_CPU_FFT, 0, 0, 0};
      convoy_stream *sc = open_stream(&cpu_t, kc);
      int64_t nc = 0;
      float *yc = sc ? ts_stream_run(sc, t.x, t.frames, 0, rng, &nc) : NULL;
      if (y && n == total) {
        for (int32_t c = 0; c < ch; c++) {
          double *ref = ts_case_reference(&t, c, total);
          double err = ts_rel_l2(y + c, ch, ref, total);
          TS_CHECK(err < TOLERANCE, "%s, channel %d: rel L2 error %.3g", label, (int)c, err);
          free(ref);
          if (yc && nc == total) {
            double d = ts_rel_diff_channel(y, yc, ch, c, total);
            TS_CHECK(d < TOLERANCE, "%s, channel %d: differs from %s by %.3g", label, (int)c,
                     convoy_engine_name(kc.engine), d);
          }
        }
      }
      free(y);
      free(yc);
      convoy_stream_destroy(s);
      convoy_stream_destroy(sc);
      ts_case_free(&t);
    }
  }
}

/* ------------------------------------------------------------ chunk invariance */

static void test_chunk_invariance(ts_rng *rng) {
  for (int e = 0; e < 2; e++) {
    for (int rep = 0; rep < (quick ? 1 : 3); rep++) {
      ts_case t;
      const int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
      const int64_t frames = quick ? 12000 : ts_range(rng, 50000, 200000);
      ts_case_make(&t, rng, ch, frames, rep % 2, ts_log_range(rng, 1, e == 0 ? 200 : 5000));
      const int64_t chunk = ts_range(rng, 700, 9000);
      knobs k = {gpu_engines[e], chunk, 3, 0};
      char label[200];
      case_label(&t, k, label, sizeof label);
      convoy_stream *s = open_stream(&t, k);
      if (!s) {
        ts_case_free(&t);
        continue;
      }
      int64_t n1 = 0;
      float *one = drive(s, &t, 0, 1, rng, &n1);
      const size_t bytes = sizeof(float) * (size_t)(n1 * ch);
      const int64_t sizes[] = {1, 7, 999, chunk - 1, chunk, 3 * chunk + 5, frames};
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] == 1 && frames > 20000) continue; /* one call per frame: keep it short */
        for (int pinned = 0; pinned < 2; pinned++) {
          convoy_stream_reset(s);
          int64_t n = 0;
          float *y = drive(s, &t, sizes[i], pinned, rng, &n);
          TS_CHECK(one && y && n == n1 && memcmp(one, y, bytes) == 0,
                   "%s: calls up to %lld frames (%s) differ from one call", label,
                   (long long)sizes[i], pinned ? "pinned" : "pageable");
          free(y);
        }
      }
      /* The stream count changes the overlap, never the bits. */
      for (int32_t k2 = 2; k2 <= 5; k2 += 3) {
        knobs kk = k;
        kk.streams = k2;
        convoy_stream *s2 = open_stream(&t, kk);
        int64_t n = 0;
        float *y = s2 ? drive(s2, &t, ts_log_range(rng, 1, frames), 1, rng, &n) : NULL;
        TS_CHECK(one && y && n == n1 && memcmp(one, y, bytes) == 0, "%s: %d streams differ from 3",
                 label, (int)k2);
        free(y);
        convoy_stream_destroy(s2);
      }
      free(one);
      convoy_stream_destroy(s);
      ts_case_free(&t);
    }
  }
}

/* ------------------------------------------------------------ integer input */

/* Feeds the same signal as int (fmt) or its float conversion, each call
 * picking one (mix) or always the integers, in calls up to chunk_max. */
static float *drive_ints(convoy_stream *s, int32_t ch, int64_t frames, convoy_sample_format fmt,
                         const void *ints, const float *floats, int mix, int64_t chunk_max,
                         int pinned, ts_rng *rng, int64_t *n) {
  const size_t width = convoy_sample_format_bytes(fmt);
  const int64_t cap = frames + convoy_stream_taps(s) + convoy_stream_latency(s);
  unsigned char *in = buf_alloc(width * (size_t)(frames * ch) + 1, pinned);
  float *fin = buf_alloc(sizeof(float) * (size_t)(frames * ch) + 1, pinned);
  float *out = buf_alloc(sizeof(float) * (size_t)(cap * ch), pinned);
  memcpy(in, ints, width * (size_t)(frames * ch));
  memcpy(fin, floats, sizeof(float) * (size_t)(frames * ch));
  int64_t pos = 0, done = 0;
  convoy_status st = CONVOY_OK;
  while (pos < frames && st == CONVOY_OK) {
    int64_t take = frames - pos, got = 0;
    if (chunk_max > 0) {
      int64_t c = ts_log_range(rng, 1, chunk_max);
      if (c < take) take = c;
    }
    if (mix && ts_range(rng, 0, 1))
      st = convoy_stream_process_samples(s, CONVOY_FORMAT_F32, fin + pos * ch, take,
                                         out + done * ch, cap - done, &got);
    else
      st = convoy_stream_process_samples(s, fmt, in + (size_t)(pos * ch) * width, take,
                                         out + done * ch, cap - done, &got);
    pos += take;
    done += got;
  }
  int64_t got = 0;
  if (st == CONVOY_OK) st = convoy_stream_flush(s, out + done * ch, cap - done, &got);
  TS_CHECK(st == CONVOY_OK, "integer input: %s", convoy_stream_last_error(s));
  done += got;
  float *copy = malloc(sizeof(float) * (size_t)(done * ch + 1));
  memcpy(copy, out, sizeof(float) * (size_t)(done * ch));
  *n = st == CONVOY_OK ? done : 0;
  buf_free(in, pinned);
  buf_free(fin, pinned);
  buf_free(out, pinned);
  return copy;
}

static void test_formats(ts_rng *rng) {
  for (int trial = 0; trial < (quick ? 2 : 8); trial++) {
    const int e = trial % 2;
    const convoy_sample_format fmt = trial % 4 < 2 ? CONVOY_FORMAT_S16 : CONVOY_FORMAT_S32;
    ts_case t;
    const int32_t ch = (int32_t)ts_range(rng, 1, MAX_CH);
    const int64_t frames = ts_log_range(rng, 1000, quick ? 15000 : 120000);
    ts_case_make(&t, rng, ch, frames, 0, ts_log_range(rng, 1, e == 0 ? 100 : 3000));
    const int64_t samples = frames * ch;
    void *ints = malloc(4 * (size_t)samples);
    for (int64_t i = 0; i < samples; i++) {
      uint64_t r = ts_next(rng);
      if (fmt == CONVOY_FORMAT_S16) {
        int16_t v = i % 101 == 0 ? INT16_MIN : (int16_t)(r >> 48);
        ((int16_t *)ints)[i] = v;
        t.x[i] = (float)((double)v / 32768.0);
      } else {
        int32_t v = i % 101 == 0 ? INT32_MAX : (int32_t)(r >> 32);
        ((int32_t *)ints)[i] = v;
        t.x[i] = (float)((double)v / 2147483648.0);
      }
    }
    knobs k = {gpu_engines[e], ts_range(rng, 500, 5000), 3, 0};
    char label[200];
    case_label(&t, k, label, sizeof label);
    convoy_stream *s = open_stream(&t, k);
    if (s) {
      int64_t n_ref = 0, n1 = 0, n2 = 0;
      float *ref = drive(s, &t, 0, 1, rng, &n_ref);
      const size_t bytes = sizeof(float) * (size_t)(n_ref * ch);
      convoy_stream_reset(s);
      float *y1 = drive_ints(s, ch, frames, fmt, ints, t.x, 0, 0, 1, rng, &n1);
      convoy_stream_reset(s);
      float *y2 = drive_ints(s, ch, frames, fmt, ints, t.x, 1, ts_log_range(rng, 1, 3 * k.chunk),
                             trial % 3 == 0, rng, &n2);
      const char *name = fmt == CONVOY_FORMAT_S16 ? "s16" : "s32";
      TS_CHECK(ref && n1 == n_ref && memcmp(ref, y1, bytes) == 0,
               "%s: %s input in one call differs from float input", label, name);
      TS_CHECK(ref && n2 == n_ref && memcmp(ref, y2, bytes) == 0,
               "%s: %s and float calls mixed differ from float input", label, name);
      free(ref);
      free(y1);
      free(y2);
    }
    convoy_stream_destroy(s);
    free(ints);
    ts_case_free(&t);
  }
}

/* ------------------------------------------------------------ lifecycle */

static void test_lifecycle(ts_rng *rng) {
  for (int e = 0; e < 2; e++) {
    ts_case t;
    ts_case_make(&t, rng, 2, quick ? 9000 : 60000, 1, e == 0 ? 33 : 1500);
    knobs k = {gpu_engines[e], 2048, 3, 0};
    convoy_stream *s = open_stream(&t, k);
    if (!s) {
      ts_case_free(&t);
      continue;
    }
    const char *name = convoy_engine_name(gpu_engines[e]);
    const int64_t m = ts_case_longest(&t), ch = t.channels;
    float *out = malloc(sizeof(float) * (size_t)((t.frames + m + convoy_stream_latency(s)) * ch));

    /* A flush with no input: taps - 1 zero frames. */
    int64_t got = -1;
    TS_CHECK(convoy_stream_flush_frames(s) == m - 1, "%s: fresh flush_frames %lld", name,
             (long long)convoy_stream_flush_frames(s));
    TS_CHECK_OK(convoy_stream_flush(s, out, m * ch, &got));
    int64_t nonzero = 0;
    for (int64_t i = 0; i < got * ch; i++) nonzero += out[i] != 0.0f;
    TS_CHECK(got == m - 1 && nonzero == 0, "%s: empty flush gave %lld frames, %lld non-zero", name,
             (long long)got, (long long)nonzero);

    /* After flush: process and flush refused until reset. */
    TS_CHECK(convoy_stream_process(s, t.x, 10, out, t.frames, &got) == CONVOY_ERR_STATE,
             "%s: process after flush not refused", name);
    TS_CHECK(convoy_stream_flush(s, out, t.frames, &got) == CONVOY_ERR_STATE,
             "%s: flush after flush not refused", name);
    TS_CHECK_OK(convoy_stream_reset(s));

    int64_t n_fresh = 0;
    float *fresh = drive(s, &t, 3000, 1, rng, &n_fresh);
    /* Reset with chunks in flight and frames staged, then the same signal. */
    convoy_stream_reset(s);
    int64_t part = 0;
    TS_CHECK_OK(convoy_stream_process(s, t.x, t.frames / 2 + 17, out,
                                      convoy_stream_max_output(s, t.frames / 2 + 17), &part));
    TS_CHECK_OK(convoy_stream_reset(s));
    int64_t n_again = 0;
    float *again = drive(s, &t, 5000, 0, rng, &n_again);
    TS_CHECK(fresh && again && n_again == n_fresh &&
                 memcmp(fresh, again, sizeof(float) * (size_t)(n_fresh * ch)) == 0,
             "%s: output after a mid-stream reset differs from a fresh stream's", name);
    free(fresh);
    free(again);
    free(out);
    convoy_stream_destroy(s);
    ts_case_free(&t);
  }
}

static void test_long_filter(ts_rng *rng) {
  const int64_t taps = quick ? (int64_t)1 << 14 : (int64_t)1 << 20;
  const int64_t frames = quick ? (int64_t)1 << 16 : (int64_t)3 << 20;
  ts_case t;
  ts_case_make(&t, rng, 1, frames, 0, taps);
  knobs k = {CONVOY_ENGINE_GPU_FFT, 0, 0, 0};
  convoy_stream *s = open_stream(&t, k);
  int64_t n = 0;
  float *y = s ? drive(s, &t, frames / 3 + 1, 1, rng, &n) : NULL;
  const int64_t total = frames + taps - 1;
  if (y && n == total) {
    double *ref = ts_case_reference(&t, 0, total);
    double err = ts_rel_l2(y, 1, ref, total);
    TS_CHECK(err < TOLERANCE, "gpu-fft %lld taps, %lld frames: rel L2 error %.3g", (long long)taps,
             (long long)frames, err);
    free(ref);
  } else {
    TS_CHECK(y && n == total, "gpu-fft %lld taps: %lld frames out of %lld", (long long)taps,
             (long long)n, (long long)total);
  }
  free(y);
  convoy_stream_destroy(s);
  ts_case_free(&t);
}

/* ------------------------------------------------------------ choice, plan, errors */

static void test_plan_and_errors(ts_rng *rng) {
  ts_case t;
  ts_case_make(&t, rng, 1, 100, 0, 16);
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, t.taps[0], 16));
  convoy_stream *s = NULL;
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  if (s) {
    convoy_engine e = convoy_stream_engine(s);
    TS_CHECK(e == CONVOY_ENGINE_GPU_DIRECT || e == CONVOY_ENGINE_GPU_FFT,
             "auto chose %s with a GPU present", convoy_engine_name(e));
    char plan[512];
    TS_CHECK_OK(convoy_stream_describe(s, plan, sizeof plan));
    convoy_gpu_info info;
    TS_CHECK_OK(convoy_gpu_get_info(0, &info));
    TS_CHECK(strstr(plan, "chunks") && strstr(plan, "CUDA streams") && strstr(plan, info.name),
             "describe: %s", plan);
    printf("auto, 16 taps: %s\n", plan);
    convoy_stream_destroy(s);
  }
  /* The GPU family with plan_effort 1: the engine is chosen by timing. */
  cfg.engine = CONVOY_ENGINE_GPU;
  cfg.plan_effort = 1;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  if (s) {
    convoy_engine e = convoy_stream_engine(s);
    TS_CHECK(e == CONVOY_ENGINE_GPU_DIRECT || e == CONVOY_ENGINE_GPU_FFT, "gpu chose %s",
             convoy_engine_name(e));
    convoy_stream_destroy(s);
  }
  cfg.plan_effort = 0;
  /* Latency from the pipeline's shape: (K + 1) x C - 1. */
  cfg.engine = CONVOY_ENGINE_GPU_DIRECT;
  cfg.gpu_streams = 3;
  cfg.chunk_frames = 4096;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  if (s) {
    TS_CHECK(convoy_stream_latency(s) == 4 * 4096 - 1, "latency %lld, want %d",
             (long long)convoy_stream_latency(s), 4 * 4096 - 1);
    convoy_stream_destroy(s);
  }
  cfg.device = convoy_gpu_count();
  TS_CHECK(convoy_stream_create(&s, &cfg, &f, 1) == CONVOY_ERR_NO_DEVICE, "device %d accepted",
           (int)cfg.device);
  TS_CHECK(strstr(convoy_last_error(), "GPU") != NULL, "message: %s", convoy_last_error());
  cfg.device = -1;
  cfg.chunk_frames = (int64_t)1 << 40;
  TS_CHECK(convoy_stream_create(&s, &cfg, &f, 1) == CONVOY_ERR_INVALID_ARGUMENT,
           "2^40-frame chunks accepted");
  cfg.chunk_frames = 0;
  cfg.engine = CONVOY_ENGINE_GPU_FFT;
  cfg.fft_size = (int64_t)1 << 30;
  TS_CHECK(convoy_stream_create(&s, &cfg, &f, 1) == CONVOY_ERR_INVALID_ARGUMENT,
           "fft_size 2^30 accepted");
  /* A forced, odd FFT size is rounded up to a power of two. */
  cfg.fft_size = 100;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  ts_case_free(&t);
}

/* The engine interface's planar run() of the GPU engines. */
static void test_planar_ops(ts_rng *rng) {
  for (int e = 0; e < 2; e++) {
    const engine_ops *ops = engine_lookup(gpu_engines[e]);
    TS_CHECK(ops != NULL, "%s missing from the engine table", convoy_engine_name(gpu_engines[e]));
    if (!ops) continue;
    ts_case t;
    const int32_t ch = 3;
    ts_case_make(&t, rng, ch, quick ? 5000 : 50000, 1, e == 0 ? 40 : 2000);
    const int64_t m = ts_case_longest(&t);
    float *padded[MAX_CH];
    const float *taps[MAX_CH];
    for (int32_t c = 0; c < ch; c++) {
      padded[c] = calloc((size_t)m, sizeof(float));
      memcpy(padded[c], t.taps[c], sizeof(float) * (size_t)t.len[c]);
      taps[c] = padded[c];
    }
    engine_request r = {.channels = ch, .taps_len = m, .taps = taps, .threads = 1, .device = -1};
    void *impl = NULL;
    char err[256] = "";
    convoy_status st = ops->create(&r, &impl, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "%s create: %s", convoy_engine_name(gpu_engines[e]), err);
    if (st == CONVOY_OK) {
      const int64_t g = ops->granule(impl);
      const int64_t n_out = (t.frames + m - 1 + g - 1) / g * g;
      float *in[MAX_CH], *out[MAX_CH];
      for (int32_t c = 0; c < ch; c++) {
        in[c] = calloc((size_t)(n_out + m - 1 + CONVOY_ENGINE_SLACK), sizeof(float));
        out[c] = calloc((size_t)n_out, sizeof(float));
        for (int64_t k = 0; k < t.frames; k++) in[c][m - 1 + k] = t.x[k * ch + c];
      }
      st = ops->run(impl, (const float *const *)in, out, n_out, err, sizeof err);
      TS_CHECK(st == CONVOY_OK, "%s run: %s", convoy_engine_name(gpu_engines[e]), err);
      const int64_t total = t.frames + m - 1;
      for (int32_t c = 0; c < ch && st == CONVOY_OK; c++) {
        double *ref = ts_case_reference(&t, c, total);
        double err_l2 = ts_rel_l2(out[c], 1, ref, total);
        TS_CHECK(err_l2 < TOLERANCE, "%s planar run, channel %d: rel L2 error %.3g",
                 convoy_engine_name(gpu_engines[e]), (int)c, err_l2);
        free(ref);
      }
      for (int32_t c = 0; c < ch; c++) {
        free(in[c]);
        free(out[c]);
      }
      ops->destroy(impl);
    }
    for (int32_t c = 0; c < ch; c++) free(padded[c]);
    ts_case_free(&t);
  }
}

/* ------------------------------------------------------------ device convolver */

#ifdef CONVOY_HAVE_CUDA

static int cuda_ok(cudaError_t e, const char *what) {
  TS_CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

/* A device convolver of t's filters on engine, for DEVICE_MAX_FRAMES-frame
 * calls; NULL (the failure counted) when it cannot be made. */
static convoy_cuda_conv *device_conv(const ts_case *t, convoy_engine engine) {
  convoy_filter *f[MAX_CH] = {NULL};
  for (int32_t i = 0; i < t->n_filters; i++)
    TS_CHECK_OK(convoy_filter_create(&f[i], t->taps[i], t->len[i]));
  convoy_cuda_config cfg;
  convoy_cuda_config_init(&cfg);
  cfg.channels = t->channels;
  cfg.engine = engine;
  cfg.max_frames = DEVICE_MAX_FRAMES;
  convoy_cuda_conv *conv = NULL;
  convoy_status st = convoy_cuda_conv_create(&conv, &cfg, f, t->n_filters);
  TS_CHECK(st == CONVOY_OK, "convoy_cuda_conv_create: %s", convoy_last_error());
  for (int32_t i = 0; i < t->n_filters; i++) convoy_filter_destroy(f[i]);
  return st == CONVOY_OK ? conv : NULL;
}

/* Runs t through a device convolver in calls of the given sizes (cycled),
 * in-place when asked (mono float only); returns the output of
 * frames + taps - 1 frames (zeros passed for the ring-out). */
static float *device_run(const ts_case *t, convoy_engine engine, convoy_sample_format fmt,
                         const void *host_in, int in_place, const int64_t *calls, int n_calls,
                         int64_t *granule, cudaStream_t stream) {
  const int32_t ch = t->channels;
  const int64_t m = ts_case_longest(t), total = t->frames + m - 1;
  const size_t width = convoy_sample_format_bytes(fmt);
  convoy_cuda_conv *conv = device_conv(t, engine);
  if (!conv) return NULL;
  convoy_status st;
  *granule = convoy_cuda_conv_granule(conv);
  TS_CHECK(convoy_cuda_conv_engine(conv) == engine || engine == CONVOY_ENGINE_AUTO,
           "device convolver runs %s", convoy_engine_name(convoy_cuda_conv_engine(conv)));

  /* The input, then zeros for the ring-out, on the device. */
  unsigned char *d_in = NULL;
  float *d_out = NULL, *y = calloc((size_t)(total * ch + 1), sizeof(float));
  const size_t in_bytes = width * (size_t)(total * ch);
  int ok =
      cuda_ok(cudaMalloc((void **)&d_in, in_bytes + 64), "cudaMalloc") &&
      cuda_ok(cudaMemset(d_in, 0, in_bytes), "cudaMemset") &&
      cuda_ok(cudaMemcpy(d_in, host_in, width * (size_t)(t->frames * ch), cudaMemcpyHostToDevice),
              "cudaMemcpy") &&
      (in_place ||
       cuda_ok(cudaMalloc((void **)&d_out, sizeof(float) * (size_t)(total * ch)), "cudaMalloc"));
  if (in_place) d_out = (float *)d_in;
  int64_t pos = 0;
  for (int i = 0; ok && pos < total; i++) {
    int64_t n = calls[i % n_calls];
    if (n > total - pos) n = total - pos;
    st = convoy_cuda_conv_process(conv, fmt, d_in + width * (size_t)(pos * ch), d_out + pos * ch, n,
                                  stream);
    TS_CHECK(st == CONVOY_OK, "convoy_cuda_conv_process: %s", convoy_cuda_conv_last_error(conv));
    ok = st == CONVOY_OK;
    pos += n;
  }
  ok = ok && cuda_ok(cudaStreamSynchronize(stream), "device convolver work") &&
       cuda_ok(cudaMemcpy(y, d_out, sizeof(float) * (size_t)(total * ch), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
  /* Reset, then a short prefix again: it must match the first frames. */
  if (ok && convoy_cuda_conv_reset(conv, stream) == CONVOY_OK) {
    float *again = calloc((size_t)(64 * ch), sizeof(float));
    int64_t n = total < 64 ? total : 64;
    float *d_two = NULL;
    if (cuda_ok(cudaMalloc((void **)&d_two, sizeof(float) * (size_t)(64 * ch)), "cudaMalloc") &&
        convoy_cuda_conv_process(conv, fmt, d_in, d_two, n, stream) == CONVOY_OK &&
        cuda_ok(cudaMemcpy(again, d_two, sizeof(float) * (size_t)(n * ch), cudaMemcpyDeviceToHost),
                "cudaMemcpy")) {
      /* The FFT's blocks were cut differently: equal within rounding. */
      for (int32_t c = 0; !in_place && c < ch; c++) {
        double d = ts_rel_diff_channel(again, y, ch, c, n);
        TS_CHECK(d < TOLERANCE, "device convolver: output after reset differs by %.3g", d);
      }
    }
    cudaFree(d_two);
    free(again);
  }
  cudaFree(d_in);
  if (!in_place) cudaFree(d_out);
  convoy_cuda_conv_destroy(conv);
  if (!ok) {
    free(y);
    return NULL;
  }
  return y;
}

/* The planar call on t's float input: rows `stride` floats apart (odd, so
 * rows after the first are not 16-byte aligned), in calls cycled from
 * calls, in place when asked; returns the output interleaved as
 * device_run's, or NULL. Also checks the planar call's argument errors. */
static float *planar_run(const ts_case *t, convoy_engine engine, int in_place, const int64_t *calls,
                         int n_calls, cudaStream_t stream) {
  const int32_t ch = t->channels;
  const int64_t m = ts_case_longest(t), total = t->frames + m - 1;
  const int64_t stride = total + 5;
  convoy_cuda_conv *conv = device_conv(t, engine);
  if (!conv) return NULL;
  convoy_status st;

  const size_t bytes = sizeof(float) * (size_t)(stride * ch);
  float *rows = calloc((size_t)(stride * ch), sizeof(float));
  float *y = calloc((size_t)(total * ch + 1), sizeof(float));
  for (int64_t k = 0; k < t->frames; k++)
    for (int32_t c = 0; c < ch; c++) rows[c * stride + k] = t->x[k * ch + c];
  /* The input lands in the stream's order only: behind a fill of 256 MiB
   * of scratch, over buffers of NaNs, so that any of the convolver's work
   * not ordered after the upload (its side stream's included) reads NaNs. */
  float *d_in = NULL, *d_out = NULL;
  void *scratch = NULL;
  const size_t scratch_bytes = (size_t)256 << 20;
  int ok = cuda_ok(cudaMalloc((void **)&d_in, bytes), "cudaMalloc") &&
           cuda_ok(cudaMemset(d_in, 0xff, bytes), "cudaMemset") &&
           (in_place || (cuda_ok(cudaMalloc((void **)&d_out, bytes), "cudaMalloc") &&
                         cuda_ok(cudaMemset(d_out, 0xff, bytes), "cudaMemset"))) &&
           cuda_ok(cudaMalloc(&scratch, scratch_bytes), "cudaMalloc") &&
           cuda_ok(cudaMemsetAsync(scratch, 0, scratch_bytes, stream), "cudaMemsetAsync") &&
           cuda_ok(cudaMemcpyAsync(d_in, rows, bytes, cudaMemcpyHostToDevice, stream),
                   "cudaMemcpyAsync");
  if (in_place) d_out = d_in;
  if (ok) {
    TS_CHECK(convoy_cuda_conv_process_planar(conv, d_in, stride, d_in + 1, stride, 8, stream) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "planar: overlapping buffers accepted");
    TS_CHECK(ch == 1 || convoy_cuda_conv_process_planar(conv, d_in, 4, d_out, stride, 8, stream) ==
                            CONVOY_ERR_INVALID_ARGUMENT,
             "planar: a stride shorter than the call accepted");
  }
  int64_t pos = 0;
  for (int i = 0; ok && pos < total; i++) {
    int64_t n = calls[i % n_calls];
    if (n > total - pos) n = total - pos;
    st = convoy_cuda_conv_process_planar(conv, d_in + pos, stride, d_out + pos, stride, n, stream);
    TS_CHECK(st == CONVOY_OK, "convoy_cuda_conv_process_planar: %s",
             convoy_cuda_conv_last_error(conv));
    ok = st == CONVOY_OK;
    pos += n;
  }
  ok = ok && cuda_ok(cudaStreamSynchronize(stream), "planar work") &&
       cuda_ok(cudaMemcpy(rows, d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int64_t k = 0; ok && k < total; k++)
    for (int32_t c = 0; c < ch; c++) y[k * ch + c] = rows[c * stride + k];
  cudaFree(scratch);
  cudaFree(d_in);
  if (!in_place) cudaFree(d_out);
  convoy_cuda_conv_destroy(conv);
  free(rows);
  if (!ok) {
    free(y);
    return NULL;
  }
  return y;
}

/* Interleaved float32 calls and planar calls alternating on one convolver
 * (cut by calls, cycled): the history passes between the two kinds. Returns
 * the output interleaved, as device_run's, or NULL. */
static float *mixed_run(const ts_case *t, convoy_engine engine, const int64_t *calls, int n_calls,
                        cudaStream_t stream) {
  const int32_t ch = t->channels;
  const int64_t m = ts_case_longest(t), total = t->frames + m - 1;
  const size_t floats = (size_t)(total * ch), bytes = sizeof(float) * floats;
  convoy_cuda_conv *conv = device_conv(t, engine);
  if (!conv) return NULL;
  float *x = calloc(floats, sizeof(float)), *rows = calloc(floats, sizeof(float));
  float *y = calloc(floats + 1, sizeof(float)), *yi = calloc(floats, sizeof(float));
  float *yp = calloc(floats, sizeof(float));
  float *d_x = NULL, *d_rows = NULL, *d_yi = NULL, *d_yp = NULL;
  int ok = x && rows && y && yi && yp;
  for (int64_t k = 0; ok && k < t->frames; k++)
    for (int32_t c = 0; c < ch; c++) {
      x[k * ch + c] = t->x[k * ch + c];
      rows[c * total + k] = t->x[k * ch + c];
    }
  ok = ok && cuda_ok(cudaMalloc((void **)&d_x, bytes), "cudaMalloc") &&
       cuda_ok(cudaMalloc((void **)&d_rows, bytes), "cudaMalloc") &&
       cuda_ok(cudaMalloc((void **)&d_yi, bytes), "cudaMalloc") &&
       cuda_ok(cudaMalloc((void **)&d_yp, bytes), "cudaMalloc") &&
       cuda_ok(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(d_rows, rows, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  int64_t pos = 0;
  for (int i = 0; ok && pos < total; i++) {
    int64_t n = calls[i % n_calls];
    if (n > total - pos) n = total - pos;
    convoy_status st = i % 2 == 0
                           ? convoy_cuda_conv_process(conv, CONVOY_FORMAT_F32, d_x + pos * ch,
                                                      d_yi + pos * ch, n, stream)
                           : convoy_cuda_conv_process_planar(conv, d_rows + pos, total, d_yp + pos,
                                                             total, n, stream);
    TS_CHECK(st == CONVOY_OK, "mixed calls: %s", convoy_cuda_conv_last_error(conv));
    ok = st == CONVOY_OK;
    /* Frames of this call come from the kind that made them. */
    for (int64_t k = pos; ok && k < pos + n; k++)
      for (int32_t c = 0; c < ch; c++) y[k * ch + c] = i % 2 == 0 ? -1.0f : -2.0f;
    pos += n;
  }
  ok = ok && cuda_ok(cudaStreamSynchronize(stream), "mixed work") &&
       cuda_ok(cudaMemcpy(yi, d_yi, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(yp, d_yp, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int64_t k = 0; ok && k < total; k++)
    for (int32_t c = 0; c < ch; c++)
      y[k * ch + c] = y[k * ch + c] == -1.0f ? yi[k * ch + c] : yp[c * total + k];
  cudaFree(d_x);
  cudaFree(d_rows);
  cudaFree(d_yi);
  cudaFree(d_yp);
  convoy_cuda_conv_destroy(conv);
  free(x);
  free(rows);
  free(yi);
  free(yp);
  if (!ok) {
    free(y);
    return NULL;
  }
  return y;
}

static void test_device_api(ts_rng *rng) {
  cudaStream_t stream = NULL;
  if (!cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate")) return;
  /* 2 and 8 channels: the direct engine's interleaved kernel; 2 the fused
   * FFT kernel's too. */
  const int32_t channel_counts[4] = {1, 2, 3, 8};
  for (int e = 0; e < 2; e++) {
    for (int ci = 0; ci < 4; ci++) {
      const int32_t ch = channel_counts[ci];
      ts_case t;
      ts_case_make(&t, rng, ch, quick ? 6000 : 40000, ch > 1, e == 0 ? 25 : 1200);
      const int64_t m = ts_case_longest(&t), total = t.frames + m - 1;
      const convoy_engine engine = gpu_engines[e];
      int64_t g = 1;
      const int64_t whole[1] = {DEVICE_MAX_FRAMES};
      float *y = device_run(&t, engine, CONVOY_FORMAT_F32, t.x, 0, whole, 1, &g, stream);
      char label[96];
      snprintf(label, sizeof label, "device convolver %s, %d ch, %lld taps",
               convoy_engine_name(engine), (int)ch, (long long)m);
      for (int32_t c = 0; y && c < ch; c++) {
        double *ref = ts_case_reference(&t, c, total);
        double err = ts_rel_l2(y + c, ch, ref, total);
        TS_CHECK(err < TOLERANCE, "%s, channel %d: rel L2 error %.3g", label, (int)c, err);
        free(ref);
      }
      /* Bitwise the same for calls on the granule grid; in-place (mono). */
      const int64_t grid_calls[3] = {g, 2 * g, (DEVICE_MAX_FRAMES / g) * g};
      float *y2 =
          device_run(&t, engine, CONVOY_FORMAT_F32, t.x, ch == 1, grid_calls, 3, &g, stream);
      TS_CHECK(y && y2 && memcmp(y, y2, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: granule-multiple calls%s differ from whole calls", label,
               ch == 1 ? " in place" : "");
      /* Any cut: equal within rounding (bitwise for the direct engine). */
      const int64_t odd_calls[4] = {1, 17, 333, 4999};
      float *y3 = device_run(&t, engine, CONVOY_FORMAT_F32, t.x, 0, odd_calls, 4, &g, stream);
      for (int32_t c = 0; y && y3 && c < ch; c++) {
        double d = ts_rel_diff_channel(y3, y, ch, c, total);
        TS_CHECK(e == 0 ? d == 0.0 : d < TOLERANCE, "%s: odd calls differ by %.3g", label, d);
      }
      /* Planar rows read where they lie: the interleaved call's bits, for
       * whole calls, granule-multiple calls in place, and any cut (the
       * direct engine; the FFT's within rounding, as above). */
      float *p1 = planar_run(&t, engine, 0, whole, 1, stream);
      TS_CHECK(y && p1 && memcmp(y, p1, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: planar whole calls differ from interleaved", label);
      float *p2 = planar_run(&t, engine, 1, grid_calls, 3, stream);
      TS_CHECK(y && p2 && memcmp(y, p2, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: planar granule-multiple calls in place differ from interleaved", label);
      float *p3 = planar_run(&t, engine, 0, odd_calls, 4, stream);
      TS_CHECK(y3 && p3 && memcmp(y3, p3, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: planar odd calls differ from interleaved odd calls", label);
      /* Interleaved and planar calls alternating on one convolver: the
       * bits of whole calls, at any cut for the direct engine, on the
       * granule grid for the FFT's. */
      float *mx = mixed_run(&t, engine, e == 0 ? odd_calls : grid_calls, e == 0 ? 4 : 3, stream);
      TS_CHECK(y && mx && memcmp(y, mx, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: interleaved and planar calls mixed differ from whole calls", label);
      free(mx);
      free(p1);
      free(p2);
      free(p3);
      /* int16 input equals float input of the converted samples, bitwise. */
      int16_t *s16 = malloc(sizeof(int16_t) * (size_t)(t.frames * ch));
      for (int64_t i = 0; i < t.frames * ch; i++) {
        s16[i] = (int16_t)(ts_next(rng) >> 48);
        t.x[i] = (float)s16[i] / 32768.0f;
      }
      float *yf = device_run(&t, engine, CONVOY_FORMAT_F32, t.x, 0, whole, 1, &g, stream);
      float *yi = device_run(&t, engine, CONVOY_FORMAT_S16, s16, 0, whole, 1, &g, stream);
      TS_CHECK(yf && yi && memcmp(yf, yi, sizeof(float) * (size_t)(total * ch)) == 0,
               "%s: int16 input differs from float input", label);
      free(s16);
      free(y);
      free(y2);
      free(y3);
      free(yf);
      free(yi);
      ts_case_free(&t);
    }
  }
  cudaStreamDestroy(stream);
}
#endif

int main(void) {
  quick = ts_quick();
  if (!convoy_engine_available(CONVOY_ENGINE_GPU_DIRECT) ||
      !convoy_engine_available(CONVOY_ENGINE_GPU_FFT)) {
    convoy_gpu_count();
    printf("test_gpu_stream: no usable GPU (%s): skipped\n", convoy_last_error());
    return TS_SKIP;
  }
  uint64_t seed = ts_seed("test_gpu_stream");
  ts_rng rng;
  ts_rng_init(&rng, seed);
  test_plan_and_errors(&rng);
  test_reference(&rng);
  test_chunk_invariance(&rng);
  test_formats(&rng);
  test_lifecycle(&rng);
  test_long_filter(&rng);
  test_planar_ops(&rng);
#ifdef CONVOY_HAVE_CUDA
  test_device_api(&rng);
#endif
  return ts_finish();
}
