/*
 * matched_decim_bench.c - the radar capture case host to host: a cu8
 * capture (one complex channel of unsigned 8-bit I/Q, converted on the GPU)
 * through a 2^20-tap matched filter, real and complex taps, decimated by 8
 * with cu8 output, through the stream API from pinned buffers
 * (convoy_host_alloc), one process_to() call plus the flush, median of 5
 * runs; against the pinned host-to-device copy rate of the same buffer
 * (the bound: the output is 1/8 of the input).
 *
 * usage: matched_decim_bench [log2_samples [fft_size [gpu_streams]]]
 * (default 29: 1 GiB of cu8; fft_size and gpu_streams 0: the defaults)
 */
#define _POSIX_C_SOURCE 200809L
#include "convoy.h"

#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 5
#define TAPS ((int64_t)1 << 20)
#define DECIMATION 8

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Bytes per second of pinned host-to-device copies of bytes at in (median). */
static double h2d_rate(const void *in, size_t bytes) {
  void *d = NULL;
  if (cudaMalloc(&d, bytes) != cudaSuccess) return -1.0;
  double t[RUNS];
  for (int r = 0; r < RUNS; r++) {
    const double t0 = now_s();
    cudaMemcpy(d, in, bytes, cudaMemcpyHostToDevice);
    t[r] = now_s() - t0;
  }
  cudaFree(d);
  qsort(t, RUNS, sizeof t[0], cmp_double);
  return (double)bytes / t[RUNS / 2];
}

/* Median seconds of one pass, or -1 (message printed). */
static double run(convoy_sample_type tap_type, const float *taps, const unsigned char *in,
                  int64_t frames, unsigned char *out, int64_t cap, int64_t fft_size,
                  int32_t streams) {
  convoy_filter *f = NULL;
  convoy_stream *s = NULL;
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = CONVOY_ENGINE_GPU;
  cfg.output_format = CONVOY_FORMAT_U8;
  cfg.decimation = DECIMATION;
  cfg.fft_size = fft_size;
  cfg.gpu_streams = streams;
  if (convoy_filter_create_typed(&f, tap_type, taps, TAPS) != CONVOY_OK ||
      convoy_stream_create(&s, &cfg, &f, 1) != CONVOY_OK) {
    printf("create: %s\n", convoy_last_error());
    convoy_filter_destroy(f);
    return -1.0;
  }
  double t[RUNS];
  for (int r = 0; r < RUNS; r++) {
    convoy_stream_reset(s);
    int64_t got = 0, more = 0;
    const double t0 = now_s();
    if (convoy_stream_process_to(s, CONVOY_FORMAT_U8, in, frames, out, cap, &got) != CONVOY_OK ||
        convoy_stream_flush_to(s, out + 2 * got, cap - got, &more) != CONVOY_OK) {
      printf("run: %s\n", convoy_stream_last_error(s));
      convoy_stream_destroy(s);
      convoy_filter_destroy(f);
      return -1.0;
    }
    t[r] = now_s() - t0;
  }
  char plan[512];
  convoy_stream_describe(s, plan, sizeof plan);
  printf("  %s\n", plan);
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  qsort(t, RUNS, sizeof t[0], cmp_double);
  return t[RUNS / 2];
}

int main(int argc, char **argv) {
  const int log2 = argc > 1 ? atoi(argv[1]) : 29;
  const int64_t fft_size = argc > 2 ? atoll(argv[2]) : 0;
  const int32_t streams = argc > 3 ? atoi(argv[3]) : 0;
  if (log2 < 20 || log2 > 31 || fft_size < 0 || streams < 0 || streams > 16) {
    fprintf(stderr, "usage: matched_decim_bench [log2_samples 20..31 [fft_size [gpu_streams]]]\n");
    return 2;
  }
  if (convoy_gpu_count() < 1) {
    printf("matched_decim_bench: no GPU (%s)\n", convoy_last_error());
    return 0;
  }
  const int64_t frames = (int64_t)1 << log2;
  const int64_t cap = frames / DECIMATION + TAPS;
  unsigned char *in = convoy_host_alloc((size_t)frames * 2);
  unsigned char *out = convoy_host_alloc((size_t)cap * 2);
  float *taps = malloc(sizeof(float) * 2 * (size_t)TAPS);
  if (!in || !out || !taps) {
    fprintf(stderr, "matched_decim_bench: out of memory\n");
    return 1;
  }
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < frames * 2; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i] = (unsigned char)(x >> 56);
  }
  for (int64_t i = 0; i < 2 * TAPS; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    taps[i] = (float)(((double)(x >> 11) * 0x1.0p-53 - 0.5) * 1e-3);
  }
  const double h2d = h2d_rate(in, (size_t)frames * 2);
  printf("matched_decim_bench: 2^%d cu8 complex samples, 2^20 taps, decimation %d, cu8 out, "
         "median of %d runs\npinned host-to-device copy: %.1f GB/s = %.2f G complex samples/s\n",
         log2, DECIMATION, RUNS, h2d * 1e-9, h2d / 2 * 1e-9);
  for (int cx = 0; cx < 2; cx++) {
    const double t = run(cx ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, taps, in, frames, out, cap,
                         fft_size, streams);
    if (t > 0)
      printf("%s taps: %.2f G complex samples/s = %.1f%% of the copy rate\n",
             cx ? "complex" : "real", (double)frames / t * 1e-9,
             100.0 * (double)frames * 2 / t / h2d);
  }
  convoy_host_free(in);
  convoy_host_free(out);
  free(taps);
  return 0;
}
