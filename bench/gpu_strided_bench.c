/*
 * gpu_strided_bench.c - the strided direct kernels (decimation at the output
 * rate, gpu_conv_run_strided) against the same kernel at the full rate, on
 * device buffers.
 *
 *   gpu_strided_bench [LOG2_OUTPUTS [REPS [all | real|complex TAPS D [D_LAST]]]]
 *                                                    (defaults 26 and 9)
 *
 * 2^26 full-rate positions a row by default: at 2^22 a run decimated by 64
 * has 2^16 outputs, fewer tiles than the device holds blocks, and the
 * launch rather than the kernel sets its time.
 *
 * For real taps on one row and complex taps on a (re, im) row pair, at 64,
 * 128 and 1024 taps and D = 8, it prints the median time of REPS runs (CUDA
 * events, after one warm-up run) of the full-rate run and of the run that
 * computes every D-th output only, and their ratio. Then, for real and
 * complex taps of 256, 1024 and 4096 and D from 2 to 64, the decimated run
 * against a filter D times shorter at its full rate over the same input
 * (the same multiply-adds a sample; issue 20 asks for at most 1.5x), or,
 * with `all`, for every D from 2 to 64, and then the largest ratio. Given
 * real or complex, TAPS and D (to D_LAST), it runs only that comparison
 * (for a profiler, or to weigh two builds on the cases that differ).
 */
#include "bench_cuda_check.h"
#include "bench_util.h"
#include "gpu_conv.h"

#include <cuda_runtime_api.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Median ms of reps runs (after a warm-up), full rate when step is 1. */
static double median_ms(gpu_conv *g, const float *d_in, int64_t in_stride, float *d_out, int64_t n,
                        int64_t step, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  double *t = malloc(sizeof(double) * (size_t)reps);
  char err[256];
  for (int rep = -1; rep < reps; rep++) {
    CK(cudaEventRecord(a, NULL));
    const convoy_status st =
        step > 1 ? gpu_conv_run_strided(g, 0, d_in, in_stride, 0, step, d_out, n,
                                        (n - 1) / step + 1, NULL, err, sizeof err)
                 : gpu_conv_run(g, 0, d_in, in_stride, d_out, n, n, NULL, err, sizeof err);
    if (st != CONVOY_OK) {
      fprintf(stderr, "run: %s\n", err);
      exit(1);
    }
    CK(cudaEventRecord(b, NULL));
    CK(cudaEventSynchronize(b));
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep >= 0) t[rep] = ms;
  }
  double m, lo, hi;
  bench_stats(t, reps, &m, &lo, &hi);
  free(t);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return m;
}

/* A gpu_conv of `taps` random taps (complex: a row pair) on the direct
 * engine for up to n outputs, made for decimation by step; with its input
 * and output buffers (zeros in). */
typedef struct strided_setup {
  gpu_conv *g;
  float *d_in, *d_out;
  int64_t in_stride;
} strided_setup;

static strided_setup setup(int cx, int64_t taps, int64_t step, int64_t n) {
  const int32_t rows = cx ? 2 : 1;
  strided_setup u;
  u.in_stride = n + taps - 1;
  float *h = malloc(sizeof(float) * (size_t)(rows * taps));
  const float *rows_of[2];
  bench_fill_noise(h, rows * taps, (uint64_t)taps, 1.0f);
  for (int32_t r = 0; r < rows; r++) rows_of[r] = h + r * taps;
  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.channels = rows;
  cfg.taps_len = taps;
  cfg.taps = rows_of;
  cfg.max_out = n;
  cfg.kind = GPU_CONV_DIRECT;
  cfg.complex_taps = cx;
  cfg.decimation = step;
  CK(cudaMalloc((void **)&u.d_in, sizeof(float) * (size_t)(rows * u.in_stride)));
  CK(cudaMalloc((void **)&u.d_out, sizeof(float) * (size_t)(rows * n)));
  CK(cudaMemset(u.d_in, 0, sizeof(float) * (size_t)(rows * u.in_stride)));
  char err[256] = "";
  if (gpu_conv_create(&cfg, &u.g, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "create: %s\n", err);
    exit(1);
  }
  free(h);
  return u;
}

static void teardown(strided_setup *u) {
  gpu_conv_destroy(u->g);
  CK(cudaFree(u->d_in));
  CK(cudaFree(u->d_out));
}

static void one_case(int cx, int64_t taps, int64_t step, int64_t n, int reps) {
  strided_setup u = setup(cx, taps, step, n);
  const double full = median_ms(u.g, u.d_in, u.in_stride, u.d_out, n, 1, reps);
  const double strided = median_ms(u.g, u.d_in, u.in_stride, u.d_out, n, step, reps);
  printf("%-7s %5lld taps  %9lld outputs a row  full rate %8.3f ms  every %lld-th only "
         "%8.3f ms  %5.1fx\n",
         cx ? "complex" : "real", (long long)taps, (long long)n, full, (long long)step, strided,
         full / strided);
  teardown(&u);
}

/* Issue 20's measure of decimation: taps taps decimated by step against a
 * filter step times shorter at its full rate, on the same n input
 * positions: both do taps / step multiply-adds an input sample (the
 * polyphase sum), so a decimator that computes only what it keeps costs
 * about what the shorter filter costs. Direct engine for both. */
/* Prints the decimated run against the shorter filter's; returns the ratio. */
static double against_shorter(int cx, int64_t taps, int64_t step, int64_t n, int reps) {
  strided_setup dec = setup(cx, taps, step, n);
  const int64_t short_taps = (taps + step - 1) / step;
  strided_setup shorter = setup(cx, short_taps, 1, n);
  const double t_dec = median_ms(dec.g, dec.d_in, dec.in_stride, dec.d_out, n, step, reps);
  const double t_short =
      median_ms(shorter.g, shorter.d_in, shorter.in_stride, shorter.d_out, n, 1, reps);
  printf("%-7s %5lld taps  D %2lld  %8.3f ms   %4lld taps at full rate %8.3f ms  ratio %5.2f\n",
         cx ? "complex" : "real", (long long)taps, (long long)step, t_dec, (long long)short_taps,
         t_short, t_dec / t_short);
  teardown(&dec);
  teardown(&shorter);
  return t_dec / t_short;
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 26;
  const int reps = argc > 2 ? atoi(argv[2]) : 9;
  const bool every_step = argc > 3 && strcmp(argv[3], "all") == 0;
  const bool one_kind =
      argc > 5 && (strcmp(argv[3], "real") == 0 || strcmp(argv[3], "complex") == 0);
  const int64_t only_taps = one_kind ? atoll(argv[4]) : 0, d_first = one_kind ? atoll(argv[5]) : 0;
  const int64_t d_last = one_kind && argc > 6 ? atoll(argv[6]) : d_first;
  if (log2n < 10 || log2n > 28 || reps < 1 || (argc > 3 && !every_step && !one_kind) ||
      (one_kind && (only_taps < 1 || d_first < 2 || d_last < d_first || d_last > 4096))) {
    fprintf(stderr, "usage: gpu_strided_bench [LOG2_OUTPUTS (10..28) [REPS [all | real|complex "
                    "TAPS D [D_LAST]]]]\n");
    return 1;
  }
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    printf("gpu_strided_bench: no GPU\n");
    return 0;
  }
  printf("device: %s; 2^%d outputs a row, median of %d runs\n", prop.name, log2n, reps);
  const int64_t n = (int64_t)1 << log2n;
  if (one_kind) {
    for (int64_t step = d_first; step <= d_last; step++)
      against_shorter(strcmp(argv[3], "complex") == 0, only_taps, step, n, reps);
    return 0;
  }
  one_case(0, 64, 8, n, reps);
  one_case(0, 1024, 8, n, reps);
  one_case(1, 128, 8, n, reps);
  one_case(1, 1024, 8, n, reps);
  printf("\ndecimated by D against a filter D times shorter at its full rate, same input "
         "(target: ratio <= 1.5)\n");
  const int64_t some_steps[] = {2, 3, 4, 5, 8, 12, 16, 32, 64};
  double worst = 0;
  for (int cx = 0; cx <= 1; cx++)
    for (int64_t taps = 256; taps <= 4096; taps *= 4) {
      if (every_step)
        for (int64_t step = 2; step <= 64; step++) {
          const double ratio = against_shorter(cx, taps, step, n, reps);
          if (ratio > worst) worst = ratio;
        }
      else
        for (size_t i = 0; i < sizeof some_steps / sizeof some_steps[0]; i++)
          against_shorter(cx, taps, some_steps[i], n, reps);
    }
  if (every_step) printf("largest ratio, D = 2 .. 64: %.2f\n", worst);
  return 0;
}
