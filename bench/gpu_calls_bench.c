/*
 * gpu_calls_bench.c - convoy_cuda.h's device convolver against the size of
 * its calls, beside the device copy rate.
 *
 *   gpu_calls_bench [REPS [complex|fft]]    (default 7; only the complex or FFT cases)
 *
 * 2^28 float32 samples in device memory, filtered through the public API in
 * calls of 2^20, 2^24 and 2^28 frames (one call), for gpu-direct at 16, 32,
 * 48 and 64 taps and gpu-fft at 1024 and 65536 taps (mono), and at 16 taps
 * (direct) and 1024 taps (FFT) on 2, 4 and 8 channels, interleaved and in
 * planar rows; and complex float32 signals (2^27 complex frames) with real
 * taps and with complex taps at 128 and 1024 taps, and real taps at 2^20
 * (gpu-fft), and complex taps at 16 and 32 (gpu-direct), mono; with real
 * taps at 1024 and complex taps at 128 and 1024 on 2 and 4 complex
 * channels (gpu-fft). Each line
 * gives the median of REPS runs timed with CUDA events (after one warm-up)
 * in GS/s (samples, all channels, per second; for a complex signal real
 * values, two a complex sample); the first line the device-to-device
 * cudaMemcpy rate of the same bytes at 8 bytes a sample. What a row loses
 * against the one-call row of its case is what each call costs on top of
 * its kernels. Only the timing is measured here; test_gpu_stream checks
 * the outputs.
 */
#include "bench_cuda_check.h"
#include "convoy.h"
#include "convoy_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL ((int64_t)1 << 28)
#define MAX_REPS 31

static int cmp_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

typedef struct bench_case {
  convoy_engine engine;
  int taps, channels, planar;
  int complex_signal, complex_taps;
} bench_case;

static const bench_case kCases[] = {
    {CONVOY_ENGINE_GPU_DIRECT, 16, 1, 0, 0, 0},   {CONVOY_ENGINE_GPU_DIRECT, 32, 1, 0, 0, 0},
    {CONVOY_ENGINE_GPU_DIRECT, 48, 1, 0, 0, 0},   {CONVOY_ENGINE_GPU_DIRECT, 64, 1, 0, 0, 0},
    {CONVOY_ENGINE_GPU_FFT, 1024, 1, 0, 0, 0},    {CONVOY_ENGINE_GPU_FFT, 65536, 1, 0, 0, 0},
    {CONVOY_ENGINE_GPU_DIRECT, 16, 2, 0, 0, 0},   {CONVOY_ENGINE_GPU_DIRECT, 16, 2, 1, 0, 0},
    {CONVOY_ENGINE_GPU_DIRECT, 16, 4, 0, 0, 0},   {CONVOY_ENGINE_GPU_DIRECT, 16, 4, 1, 0, 0},
    {CONVOY_ENGINE_GPU_DIRECT, 16, 8, 0, 0, 0},   {CONVOY_ENGINE_GPU_DIRECT, 16, 8, 1, 0, 0},
    {CONVOY_ENGINE_GPU_FFT, 1024, 2, 0, 0, 0},    {CONVOY_ENGINE_GPU_FFT, 1024, 2, 1, 0, 0},
    {CONVOY_ENGINE_GPU_FFT, 1024, 4, 0, 0, 0},    {CONVOY_ENGINE_GPU_FFT, 1024, 4, 1, 0, 0},
    {CONVOY_ENGINE_GPU_FFT, 1024, 8, 0, 0, 0},    {CONVOY_ENGINE_GPU_FFT, 1024, 8, 1, 0, 0},
    {CONVOY_ENGINE_GPU_FFT, 128, 1, 0, 1, 0},     {CONVOY_ENGINE_GPU_FFT, 1024, 1, 0, 1, 0},
    {CONVOY_ENGINE_GPU_FFT, 1 << 20, 1, 0, 1, 0}, {CONVOY_ENGINE_GPU_FFT, 128, 1, 0, 1, 1},
    {CONVOY_ENGINE_GPU_FFT, 1024, 1, 0, 1, 1},    {CONVOY_ENGINE_GPU_DIRECT, 16, 1, 0, 1, 1},
    {CONVOY_ENGINE_GPU_DIRECT, 32, 1, 0, 1, 1},   {CONVOY_ENGINE_GPU_FFT, 1024, 2, 0, 1, 0},
    {CONVOY_ENGINE_GPU_FFT, 1024, 4, 0, 1, 0},    {CONVOY_ENGINE_GPU_FFT, 128, 2, 0, 1, 1},
    {CONVOY_ENGINE_GPU_FFT, 1024, 2, 0, 1, 1},    {CONVOY_ENGINE_GPU_FFT, 128, 4, 0, 1, 1},
    {CONVOY_ENGINE_GPU_FFT, 1024, 4, 0, 1, 1},
};

/* Median milliseconds of reps runs of the whole signal in calls of `call`
 * frames; -1 when the convolver fails. */
static float run_case(const bench_case *bc, convoy_filter *filter, int64_t call, int reps,
                      const float *d_in, float *d_out, cudaStream_t s, char *plan,
                      size_t plan_size) {
  const int values = bc->channels * (bc->complex_signal ? 2 : 1); /* floats a frame */
  const int64_t frames = TOTAL / values;
  convoy_cuda_config cfg;
  convoy_cuda_config_init(&cfg);
  cfg.channels = bc->channels;
  if (bc->complex_signal) cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = bc->engine;
  cfg.max_frames = call;
  cfg.plan_effort = 1;
  convoy_cuda_conv *conv = NULL;
  if (convoy_cuda_conv_create(&conv, &cfg, &filter, 1) != CONVOY_OK) {
    fprintf(stderr, "convoy_cuda_conv_create: %s\n", convoy_last_error());
    return -1.0f;
  }
  convoy_cuda_conv_describe(conv, plan, plan_size);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float t[MAX_REPS];
  for (int r = -1; r < reps; r++) {
    CK(cudaEventRecord(a, s));
    for (int64_t pos = 0; pos < frames; pos += call) {
      const int64_t n = frames - pos < call ? frames - pos : call;
      const convoy_status st =
          bc->planar
              ? convoy_cuda_conv_process_planar(conv, d_in + pos, frames, d_out + pos, frames, n, s)
              : convoy_cuda_conv_process(conv, CONVOY_FORMAT_F32, d_in + pos * values,
                                         d_out + pos * values, n, s);
      if (st != CONVOY_OK) {
        fprintf(stderr, "process: %s\n", convoy_cuda_conv_last_error(conv));
        convoy_cuda_conv_destroy(conv);
        return -1.0f;
      }
    }
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    if (r >= 0) CK(cudaEventElapsedTime(&t[r], a, b));
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  convoy_cuda_conv_destroy(conv);
  qsort(t, (size_t)reps, sizeof *t, cmp_float);
  return t[reps / 2];
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 7;
  const int complex_only = argc > 2 && strcmp(argv[2], "complex") == 0;
  const int fft_only = argc > 2 && strcmp(argv[2], "fft") == 0;
  if (reps < 1 || reps > MAX_REPS || (argc > 2 && !complex_only && !fft_only)) {
    fprintf(stderr, "usage: gpu_calls_bench [REPS (1 .. %d) [complex|fft]]\n", MAX_REPS);
    return 2;
  }
  float *d_in = NULL, *d_out = NULL;
  CK(cudaMalloc((void **)&d_in, sizeof(float) * (size_t)TOTAL));
  CK(cudaMalloc((void **)&d_out, sizeof(float) * (size_t)TOTAL));
  CK(cudaMemset(d_in, 0x3c, sizeof(float) * (size_t)TOTAL)); /* 0.0115 everywhere */
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float t[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a, s));
    CK(cudaMemcpyAsync(d_out, d_in, sizeof(float) * (size_t)TOTAL, cudaMemcpyDeviceToDevice, s));
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&t[r], a, b));
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_float);
  printf("copy %.1f GS/s (2^28 float32, device to device, 8 bytes a sample)\n",
         (double)TOTAL / (t[reps / 2] * 1e-3) / 1e9);
  printf("%-10s %8s %3s %-11s %6s %9s %9s  %s\n", "engine", "taps", "ch", "layout", "call", "ms",
         "GS/s", "plan");

  for (size_t ci = 0; ci < sizeof kCases / sizeof kCases[0]; ci++) {
    const bench_case *bc = &kCases[ci];
    if ((complex_only && !bc->complex_signal) || (fft_only && bc->engine != CONVOY_ENGINE_GPU_FFT))
      continue;
    const int tap_values = bc->taps * (bc->complex_taps ? 2 : 1);
    float *taps = malloc(sizeof(float) * (size_t)tap_values);
    if (!taps) return 1;
    unsigned x = 12345u;
    for (int i = 0; i < tap_values; i++) {
      x = x * 1664525u + 1013904223u;
      taps[i] = ((float)(x >> 8) / 16777216.0f - 0.5f) / 16.0f;
    }
    convoy_filter *filter = NULL;
    if (convoy_filter_create_typed(&filter,
                                   bc->complex_taps ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, taps,
                                   bc->taps) != CONVOY_OK)
      return 1;
    free(taps);
    for (int lg = 20; lg <= 28; lg += 4) {
      char plan[256] = "";
      const float ms =
          run_case(bc, filter, (int64_t)1 << lg, reps, d_in, d_out, s, plan, sizeof plan);
      if (ms < 0) return 1;
      const char *layout = bc->complex_signal ? (bc->complex_taps ? "cf32 cx-taps" : "cf32 re-taps")
                           : bc->planar       ? "planar"
                                              : "interleaved";
      printf("%-10s %8d %3d %-11s   2^%d %9.3f %9.1f  %s\n", convoy_engine_name(bc->engine),
             bc->taps, bc->channels, layout, lg, ms, (double)TOTAL / (ms * 1e-3) / 1e9, plan);
      fflush(stdout);
    }
    convoy_filter_destroy(filter);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  return 0;
}
