/*
 * gpu_stream_bench.c - host-to-host streaming throughput of the GPU engines
 * through the public stream API, against the measured pinned bus bandwidth.
 *
 *   gpu_stream_bench [LOG2_SAMPLES [REPS]]    (defaults 28 and 7)
 *
 * First it measures the bus: pinned host-to-device and device-to-host copies
 * of the whole buffer alone, then both at once on two streams (the
 * "bidirectional" rate: bytes moved both ways over the wall time). Then, for
 * each case, a stream is created once and, REPS times, reset and fed the
 * whole signal in one convoy_stream_process_samples() call (or in the call
 * size the case names) from pinned buffers (convoy_host_alloc), and flushed;
 * the wall time of process + flush, median over REPS, gives GS/s (samples of
 * all channels per second). "limit" is the bidirectional bandwidth over the
 * bytes a sample moves (input width + 4 bytes of float output); "bus" is the
 * tighter bound of each direction on its own (input bytes over the concurrent
 * H2D rate, output bytes over the concurrent D2H rate, the slower of the two).
 * Every case's output is spot-checked against a double-precision sum at 256
 * random positions (relative error printed, must be < 1e-5).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_cuda_check.h"
#include "bench_gpu_bus.h"
#include "convoy.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK_SAMPLES ((int64_t)1 << 20) /* the input repeats a random block */
#define MAX_REPS 31
#define CHECKS 256

static int failures = 0;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static float uniform(void) {
  return (float)((double)(next_u64() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

/* ------------------------------------------------------------- bus */

/* The same measurement `convoy bench` prints (cli/bench/bench_gpu_bus.c). */
typedef bench_gpu_bus bus;

static bus measure_bus(void *h_a, void *h_b, size_t bytes, int reps) {
  bus b;
  char err[256];
  if (bench_gpu_measure_bus(h_a, h_b, bytes, reps, &b, err, sizeof err) != 0) {
    fprintf(stderr, "bus: %s\n", err);
    exit(1);
  }
  return b;
}

/* ------------------------------------------------------------- cases */

typedef struct bench_case {
  const char *label;
  int64_t taps;
  int32_t channels;
  convoy_sample_format fmt;
  convoy_engine engine;
  int64_t chunk_frames; /* 0 = default */
  int32_t streams;      /* 0 = default */
  int64_t call_frames;  /* 0 = the whole signal in one call */
  int pageable;         /* caller buffers from malloc instead of convoy_host_alloc */
} bench_case;

typedef struct buffers {
  int64_t samples;       /* per run, all channels */
  float *in_f32;         /* pinned, samples */
  int16_t *in_s16;       /* pinned, samples */
  float *out;            /* pinned, samples + ring-out */
  float *pg_in, *pg_out; /* pageable copies, made on first use */
  float block[BLOCK_SAMPLES];
  int16_t block16[BLOCK_SAMPLES];
} buffers;

static float input_at(const buffers *b, convoy_sample_format fmt, int64_t i) {
  int64_t j = i % BLOCK_SAMPLES;
  return fmt == CONVOY_FORMAT_S16 ? (float)b->block16[j] * (1.0f / 32768.0f) : b->block[j];
}

/* Worst relative error at CHECKS random outputs (all channels share taps). */
static double spot_check(const buffers *b, const bench_case *c, const float *taps,
                         const float *out) {
  const int64_t frames = b->samples / c->channels;
  double worst = 0.0;
  for (int k = 0; k < CHECKS; k++) {
    int64_t f = (int64_t)(next_u64() % (uint64_t)frames);
    int32_t ch = (int32_t)(next_u64() % (uint64_t)c->channels);
    double ref = 0.0, mag = 0.0;
    for (int64_t j = 0; j < c->taps && j <= f; j++) {
      double term = (double)taps[j] * input_at(b, c->fmt, (f - j) * c->channels + ch);
      ref += term;
      mag += fabs(term);
    }
    double e = fabs((double)out[f * c->channels + ch] - ref) / (mag > 0 ? mag : 1.0);
    if (e > worst) worst = e;
  }
  return worst;
}

static void run_case(buffers *b, const bench_case *c, const bus *bw, int reps) {
  const int64_t frames = b->samples / c->channels;
  float *taps = malloc(sizeof(float) * (size_t)c->taps);
  for (int64_t j = 0; j < c->taps; j++) taps[j] = uniform() / sqrtf((float)c->taps);
  convoy_filter *f = NULL;
  convoy_stream *s = NULL;
  if (convoy_filter_create(&f, taps, c->taps) != CONVOY_OK) {
    printf("%-30s filter: %s\n", c->label, convoy_last_error());
    failures++;
    free(taps);
    return;
  }
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = c->channels;
  cfg.engine = c->engine;
  cfg.chunk_frames = c->chunk_frames;
  cfg.gpu_streams = c->streams;
  double t0 = now_s();
  convoy_status st = convoy_stream_create(&s, &cfg, &f, 1);
  double t_create = now_s() - t0;
  if (st != CONVOY_OK) {
    printf("%-30s create: %s\n", c->label, convoy_last_error());
    failures++;
    convoy_filter_destroy(f);
    free(taps);
    return;
  }
  const size_t width = convoy_sample_format_bytes(c->fmt);
  const void *in = c->fmt == CONVOY_FORMAT_S16 ? (const void *)b->in_s16 : (const void *)b->in_f32;
  float *out = b->out;
  if (c->pageable) {
    if (!b->pg_in) {
      b->pg_in = malloc(sizeof(float) * (size_t)b->samples);
      b->pg_out = malloc(sizeof(float) * (size_t)(b->samples + (1 << 20)));
      if (!b->pg_in || !b->pg_out) {
        printf("%-30s no memory for pageable buffers\n", c->label);
        failures++;
        exit(1);
      }
      memcpy(b->pg_in, b->in_f32, sizeof(float) * (size_t)b->samples);
      memset(b->pg_out, 0, sizeof(float) * (size_t)(b->samples + (1 << 20)));
    }
    in = b->pg_in;
    out = b->pg_out;
  }
  const int64_t call = c->call_frames > 0 ? c->call_frames : frames;
  double times[MAX_REPS];
  int64_t total = 0;
  for (int r = 0; r <= reps && st == CONVOY_OK; r++) { /* rep 0 warms up */
    convoy_stream_reset(s);
    total = 0;
    double a = now_s();
    for (int64_t pos = 0; pos < frames && st == CONVOY_OK; pos += call) {
      int64_t n = frames - pos < call ? frames - pos : call, got = 0;
      st = convoy_stream_process_samples(
          s, c->fmt, (const unsigned char *)in + (size_t)pos * width * (size_t)c->channels, n,
          out + total * c->channels, frames + c->taps - total, &got);
      total += got;
    }
    int64_t got = 0;
    if (st == CONVOY_OK)
      st = convoy_stream_flush(s, out + total * c->channels, frames + c->taps - total, &got);
    total += got;
    if (r > 0) times[r - 1] = now_s() - a;
  }
  char plan[512] = "";
  convoy_stream_describe(s, plan, sizeof plan);
  if (st != CONVOY_OK || total != frames + c->taps - 1) {
    printf("%-30s FAILED: %s (%lld frames out)\n", c->label, convoy_stream_last_error(s),
           (long long)total);
    failures++;
  } else {
    double t = median(times, reps);
    double gss = (double)b->samples / t * 1e-9;
    double bytes = (double)width + 4.0;
    double limit = (bw->bi_h2d + bw->bi_d2h) / bytes;
    double in_bound = bw->bi_h2d / (double)width, out_bound = bw->bi_d2h / 4.0;
    double bus_bound = in_bound < out_bound ? in_bound : out_bound;
    double err = spot_check(b, c, taps, out);
    if (!(err < 1e-5)) failures++;
    printf("%-30s %9.2f ms %7.2f GS/s  limit %6.2f (%5.1f%%)  bus %6.2f (%5.1f%%)  err %.1e  "
           "create %.0f ms\n",
           c->label, t * 1e3, gss, limit, 100.0 * gss / limit, bus_bound, 100.0 * gss / bus_bound,
           err, t_create * 1e3);
    printf("    plan: %s\n", plan);
  }
  fflush(stdout);
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  free(taps);
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 28;
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (log2n < 20 || log2n > 31 || reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "usage: gpu_stream_bench [LOG2_SAMPLES 20..31 [REPS 1..%d]]\n", MAX_REPS);
    return 1;
  }
  if (convoy_gpu_count() == 0) {
    printf("gpu_stream_bench: no GPU (%s)\n", convoy_last_error());
    return 77;
  }
  convoy_gpu_info info;
  convoy_gpu_get_info(0, &info);
  printf("device: %s, %d SMs, %.1f GiB, %d copy engines, driver %d, runtime %d\n", info.name,
         (int)info.multiprocessors, (double)info.memory_bytes / 1073741824.0,
         (int)info.copy_engines, (int)info.driver_version, (int)info.runtime_version);

  buffers *b = calloc(1, sizeof *b);
  b->samples = (int64_t)1 << log2n;
  const size_t bytes = sizeof(float) * (size_t)b->samples;
  double t0 = now_s();
  b->in_f32 = convoy_host_alloc(bytes);
  b->in_s16 = convoy_host_alloc(bytes / 2);
  b->out = convoy_host_alloc(bytes + sizeof(float) * (1 << 20));
  if (!b->in_f32 || !b->in_s16 || !b->out) {
    fprintf(stderr, "cannot allocate host buffers: %s\n", convoy_last_error());
    return 1;
  }
  printf("host buffers: %s, %.2f s to allocate\n",
         convoy_host_is_pinned(b->in_f32) ? "pinned" : "NOT pinned", now_s() - t0);
  for (int64_t i = 0; i < BLOCK_SAMPLES; i++) {
    b->block[i] = uniform();
    b->block16[i] = (int16_t)(next_u64() >> 48);
  }
  for (int64_t i = 0; i < b->samples; i += BLOCK_SAMPLES) {
    memcpy(b->in_f32 + i, b->block, sizeof b->block);
    memcpy(b->in_s16 + i, b->block16, sizeof b->block16);
  }
  memset(b->out, 0, bytes + sizeof(float) * (1 << 20));

  bus bw = measure_bus(b->in_f32, b->out, bytes, reps);
  printf("bus (pinned, %.0f MiB): H2D %.1f GB/s, D2H %.1f GB/s alone; both at once: H2D %.1f + "
         "D2H %.1f = %.1f GB/s\n",
         (double)bytes / 1048576.0, bw.h2d, bw.d2h, bw.bi_h2d, bw.bi_d2h, bw.bi_h2d + bw.bi_d2h);
  printf("%lld samples per run, median of %d runs, wall time of process + flush\n\n",
         (long long)b->samples, reps);

  const convoy_engine D = CONVOY_ENGINE_GPU_DIRECT, F = CONVOY_ENGINE_GPU_FFT;
  const convoy_sample_format F32 = CONVOY_FORMAT_F32, S16 = CONVOY_FORMAT_S16;
  const bench_case cases[] = {
      {"f32 mono 16 taps direct", 16, 1, F32, D, 0, 0, 0, 0},
      {"f32 mono 1024 taps fft", 1024, 1, F32, F, 0, 0, 0, 0},
      {"f32 mono 65536 taps fft", 65536, 1, F32, F, 0, 0, 0, 0},
      {"f32 mono 16 taps auto", 16, 1, F32, CONVOY_ENGINE_AUTO, 0, 0, 0, 0},
      {"f32 8ch 16 taps direct", 16, 8, F32, D, 0, 0, 0, 0},
      {"f32 8ch 1024 taps fft", 1024, 8, F32, F, 0, 0, 0, 0},
      {"f32 8ch 65536 taps fft", 65536, 8, F32, F, 0, 0, 0, 0},
      {"s16 mono 16 taps direct", 16, 1, S16, D, 0, 0, 0, 0},
      {"s16 mono 1024 taps fft", 1024, 1, S16, F, 0, 0, 0, 0},
      {"s16 mono 65536 taps fft", 65536, 1, S16, F, 0, 0, 0, 0},
      {"s16 8ch 1024 taps fft", 1024, 8, S16, F, 0, 0, 0, 0},
      /* the pipeline's knobs, 16 taps mono */
      {"chunk 2^19, 3 streams", 16, 1, F32, D, (int64_t)1 << 19, 3, 0, 0},
      {"chunk 2^20, 3 streams", 16, 1, F32, D, (int64_t)1 << 20, 3, 0, 0},
      {"chunk 2^23, 3 streams", 16, 1, F32, D, (int64_t)1 << 23, 3, 0, 0},
      {"chunk 2^21, 2 streams", 16, 1, F32, D, (int64_t)1 << 21, 2, 0, 0},
      {"chunk 2^21, 3 streams", 16, 1, F32, D, (int64_t)1 << 21, 3, 0, 0},
      {"chunk 2^21, 4 streams", 16, 1, F32, D, (int64_t)1 << 21, 4, 0, 0},
      {"chunk 2^21, 6 streams", 16, 1, F32, D, (int64_t)1 << 21, 6, 0, 0},
      {"chunk 2^21, 3 streams again", 16, 1, F32, D, (int64_t)1 << 21, 3, 0, 0},
      {"chunk 2^21, 4 streams again", 16, 1, F32, D, (int64_t)1 << 21, 4, 0, 0},
      {"chunk 2^22, 3 streams", 16, 1, F32, D, (int64_t)1 << 22, 3, 0, 0},
      {"8ch 1024 fft, 4 streams", 1024, 8, F32, F, 0, 4, 0, 0},
      /* caller buffers not pinned, and small calls (staged through the ring) */
      {"pageable buffers", 16, 1, F32, D, 0, 0, 0, 1},
      {"calls of 2^16 frames", 16, 1, F32, D, 0, 0, (int64_t)1 << 16, 0},
      {"calls of 2^20 frames", 16, 1, F32, D, 0, 0, (int64_t)1 << 20, 0},
      {"calls of 2^23 frames", 16, 1, F32, D, 0, 0, (int64_t)1 << 23, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(b, &cases[i], &bw, reps);

  convoy_host_free(b->in_f32);
  convoy_host_free(b->in_s16);
  convoy_host_free(b->out);
  free(b->pg_in);
  free(b->pg_out);
  free(b);
  printf("\n%s\n", failures ? "FAILURES" : "all cases ok");
  return failures ? 1 : 0;
}
