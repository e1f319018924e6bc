/* bench_gpu_bus.c - pinned bus bandwidth and device copy rate (CUDA builds). */
#include "bench_gpu_bus.h"

#ifdef CONVOY_HAVE_CUDA

#include "bench_util.h"

#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#define BUS_MAX_RUNS 1000

/* Records a CUDA failure into err once (the first one wins) and clears it. */
static int cuda_ok(cudaError_t e, const char *what, char *err, size_t err_size) {
  if (e == cudaSuccess) return 1;
  if (err_size > 0 && err[0] == '\0')
    snprintf(err, err_size, "%s: %s", what, cudaGetErrorString(e));
  (void)cudaGetLastError();
  return 0;
}

int bench_gpu_measure_bus(const void *h_src, void *h_dst, size_t bytes, int runs,
                          bench_gpu_bus *bus, char *err, size_t err_size) {
  if (err_size > 0) err[0] = '\0';
  if (runs < 1) runs = 1;
  if (runs > BUS_MAX_RUNS) runs = BUS_MAX_RUNS;
  void *d_a = NULL, *d_b = NULL;
  cudaStream_t s1 = NULL, s2 = NULL;
  cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
  double *t = calloc(4 * (size_t)runs, sizeof *t);
  int ok = t != NULL;
  if (!ok && err_size > 0) snprintf(err, err_size, "bus: out of memory");
  ok = ok && cuda_ok(cudaMalloc(&d_a, bytes), "cudaMalloc", err, err_size);
  ok = ok && cuda_ok(cudaMalloc(&d_b, bytes), "cudaMalloc", err, err_size);
  ok =
      ok && cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream", err, err_size);
  ok =
      ok && cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream", err, err_size);
  for (int i = 0; i < 4 && ok; i++) ok = cuda_ok(cudaEventCreate(&ev[i]), "event", err, err_size);
  for (int r = 0; r <= runs && ok; r++) { /* run 0 warms up */
    double t0 = bench_now();
    ok = cuda_ok(cudaMemcpyAsync(d_a, h_src, bytes, cudaMemcpyHostToDevice, s1), "H2D", err,
                 err_size) &&
         cuda_ok(cudaStreamSynchronize(s1), "H2D", err, err_size);
    double t1 = bench_now();
    ok = ok &&
         cuda_ok(cudaMemcpyAsync(h_dst, d_b, bytes, cudaMemcpyDeviceToHost, s2), "D2H", err,
                 err_size) &&
         cuda_ok(cudaStreamSynchronize(s2), "D2H", err, err_size);
    double t2 = bench_now();
    /* Both at once: each direction timed by events on its own stream. */
    ok = ok && cuda_ok(cudaEventRecord(ev[0], s1), "event", err, err_size) &&
         cuda_ok(cudaEventRecord(ev[2], s2), "event", err, err_size) &&
         cuda_ok(cudaMemcpyAsync(d_a, h_src, bytes, cudaMemcpyHostToDevice, s1), "H2D", err,
                 err_size) &&
         cuda_ok(cudaMemcpyAsync(h_dst, d_b, bytes, cudaMemcpyDeviceToHost, s2), "D2H", err,
                 err_size) &&
         cuda_ok(cudaEventRecord(ev[1], s1), "event", err, err_size) &&
         cuda_ok(cudaEventRecord(ev[3], s2), "event", err, err_size) &&
         cuda_ok(cudaStreamSynchronize(s1), "sync", err, err_size) &&
         cuda_ok(cudaStreamSynchronize(s2), "sync", err, err_size);
    float ms_a = 0, ms_b = 0;
    ok = ok && cuda_ok(cudaEventElapsedTime(&ms_a, ev[0], ev[1]), "event", err, err_size) &&
         cuda_ok(cudaEventElapsedTime(&ms_b, ev[2], ev[3]), "event", err, err_size);
    if (ok && r > 0) {
      t[r - 1] = t1 - t0;
      t[runs + r - 1] = t2 - t1;
      t[2 * runs + r - 1] = ms_a * 1e-3;
      t[3 * runs + r - 1] = ms_b * 1e-3;
    }
  }
  if (ok) {
    double med[4], lo, hi;
    for (int i = 0; i < 4; i++) bench_stats(t + (size_t)i * (size_t)runs, runs, &med[i], &lo, &hi);
    bus->h2d = (double)bytes / med[0] * 1e-9;
    bus->d2h = (double)bytes / med[1] * 1e-9;
    bus->bi_h2d = (double)bytes / med[2] * 1e-9;
    bus->bi_d2h = (double)bytes / med[3] * 1e-9;
  }
  for (int i = 0; i < 4; i++)
    if (ev[i]) cudaEventDestroy(ev[i]);
  if (s1) cudaStreamDestroy(s1);
  if (s2) cudaStreamDestroy(s2);
  cudaFree(d_a);
  cudaFree(d_b);
  free(t);
  return ok ? 0 : -1;
}

double bench_gpu_copy_seconds(const void *d_src, void *d_dst, size_t bytes, int runs, char *err,
                              size_t err_size) {
  if (err_size > 0) err[0] = '\0';
  if (runs < 1) runs = 1;
  if (runs > BUS_MAX_RUNS) runs = BUS_MAX_RUNS;
  cudaEvent_t a = NULL, b = NULL;
  double *t = calloc((size_t)runs, sizeof *t);
  int ok = t != NULL && cuda_ok(cudaEventCreate(&a), "event", err, err_size) &&
           cuda_ok(cudaEventCreate(&b), "event", err, err_size);
  for (int r = -1; r < runs && ok; r++) {
    float ms = 0;
    ok = cuda_ok(cudaEventRecord(a, 0), "event", err, err_size) &&
         cuda_ok(cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, 0), "D2D", err,
                 err_size) &&
         cuda_ok(cudaEventRecord(b, 0), "event", err, err_size) &&
         cuda_ok(cudaEventSynchronize(b), "D2D", err, err_size) &&
         cuda_ok(cudaEventElapsedTime(&ms, a, b), "event", err, err_size);
    if (ok && r >= 0) t[r] = ms * 1e-3;
  }
  double med = -1.0, lo, hi;
  if (ok) bench_stats(t, runs, &med, &lo, &hi);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  free(t);
  return med;
}

#else
typedef int bench_gpu_bus_unused; /* keeps this translation unit non-empty */
#endif
