/*
 * gpu_strided_bench.c - the strided direct kernels (decimation at the output
 * rate, gpu_conv_run_strided) against the same kernel at the full rate, on
 * device buffers.
 *
 *   gpu_strided_bench [LOG2_OUTPUTS [REPS]]    (defaults 22 and 9)
 *
 * For real taps on one row and complex taps on a (re, im) row pair, at 64,
 * 128 and 1024 taps and D = 8, it prints the median time of REPS runs (CUDA
 * events, after one warm-up run) of the full-rate run and of the run that
 * computes every D-th output only, and their ratio.
 */
#include "bench_cuda_check.h"
#include "bench_util.h"
#include "gpu_conv.h"

#include <cuda_runtime_api.h>

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

static void one_case(int cx, int64_t taps, int64_t step, int64_t n, int reps) {
  const int32_t rows = cx ? 2 : 1;
  const int64_t in_stride = n + taps - 1;
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
  float *d_in = NULL, *d_out = NULL;
  CK(cudaMalloc((void **)&d_in, sizeof(float) * (size_t)(rows * in_stride)));
  CK(cudaMalloc((void **)&d_out, sizeof(float) * (size_t)(rows * n)));
  CK(cudaMemset(d_in, 0, sizeof(float) * (size_t)(rows * in_stride)));
  gpu_conv *g = NULL;
  char err[256] = "";
  if (gpu_conv_create(&cfg, &g, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "create: %s\n", err);
    exit(1);
  }
  const double full = median_ms(g, d_in, in_stride, d_out, n, 1, reps);
  const double strided = median_ms(g, d_in, in_stride, d_out, n, step, reps);
  printf("%-7s %5lld taps  %9lld outputs a row  full rate %8.3f ms  every %lld-th only "
         "%8.3f ms  %5.1fx\n",
         cx ? "complex" : "real", (long long)taps, (long long)n, full, (long long)step, strided,
         full / strided);
  gpu_conv_destroy(g);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  free(h);
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 22;
  const int reps = argc > 2 ? atoi(argv[2]) : 9;
  if (log2n < 10 || log2n > 28 || reps < 1) {
    fprintf(stderr, "usage: gpu_strided_bench [LOG2_OUTPUTS (10..28) [REPS]]\n");
    return 1;
  }
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    printf("gpu_strided_bench: no GPU\n");
    return 0;
  }
  printf("device: %s; 2^%d outputs a row, median of %d runs\n", prop.name, log2n, reps);
  const int64_t n = (int64_t)1 << log2n;
  one_case(0, 64, 8, n, reps);
  one_case(0, 1024, 8, n, reps);
  one_case(1, 128, 8, n, reps);
  one_case(1, 1024, 8, n, reps);
  return 0;
}
