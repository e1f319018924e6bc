/*
 * pulse_bench.c - batched pulse compression throughput: C channels x P
 * pulses x L samples of cf32 against a T-sample chirp (default the radar
 * case 16 x 128 x 9000, T = 1000, full output), on the CPU engine and on the
 * GPU with each plan (plan 0 by the model and by timing: plan_effort 0 and 1),
 * device-resident (CUDA events) and host to host (pinned
 * and pageable buffers, the pinned run beside the bus time of its bytes in
 * and out, copied both ways at once). Prints the median of the runs in ms and GS/s of
 * input samples, and the GPU's agreement with the CPU.
 *
 * usage: pulse_bench [C P L T [runs]]
 */
#define _POSIX_C_SOURCE 200809L
#include "convoy_pulse.h"
#include "pulse_internal.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report(const char *what, double seconds, int64_t samples) {
  printf("%-34s %9.3f ms  %8.3f GS/s\n", what, 1e3 * seconds, (double)samples / seconds / 1e9);
}

static double rel_diff(const float *a, const float *b, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) {
    num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    den += (double)b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : 0;
}

int main(int argc, char **argv) {
  int32_t C = 16, P = 128;
  int64_t L = 9000, T = 1000;
  int runs = 20;
  if (argc >= 5) {
    C = atoi(argv[1]);
    P = atoi(argv[2]);
    L = atoll(argv[3]);
    T = atoll(argv[4]);
  }
  if (argc >= 6) runs = atoi(argv[5]);
  if (runs < 1 || runs > 1000) runs = 20;

  float *tp = malloc(sizeof(float) * 2 * (size_t)T);
  for (int64_t j = 0; j < T; j++) { /* linear chirp over the band */
    const double ph = 3.14159265358979 * (double)j * (double)j / (double)T;
    tp[2 * j] = (float)cos(ph);
    tp[2 * j + 1] = (float)sin(ph);
  }
  convoy_pulse_config c;
  convoy_pulse_config_init(&c);
  c.channels = C;
  c.pulses = P;
  c.pulse_len = L;
  c.waveform = tp;
  c.template_len = T;
  c.window = CONVOY_WINDOW_HAMMING;
  c.normalize = 1;
  const int64_t n_in = (int64_t)C * P * L;
  float *in = convoy_host_alloc(sizeof(float) * 2 * (size_t)n_in);
  float *in_pageable = malloc(sizeof(float) * 2 * (size_t)n_in);
  if (!in || !in_pageable) {
    fprintf(stderr, "pulse_bench: out of memory\n");
    return 2;
  }
  uint64_t r = 88172645463325252ull;
  for (int64_t i = 0; i < 2 * n_in; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    in[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
  memcpy(in_pageable, in, sizeof(float) * 2 * (size_t)n_in);
  convoy_gpu_info info;
  const int gpus = convoy_gpu_count();
  if (gpus > 0 && convoy_gpu_get_info(0, &info) == CONVOY_OK)
    printf("device: %s, %d SMs\n", info.name, (int)info.multiprocessors);
  else
    printf("device: none (%s)\n", convoy_last_error());
  printf("case: %d channels x %d pulses x %lld samples cf32, template %lld (hamming, "
         "normalised), full output; median of %d runs\n",
         (int)C, (int)P, (long long)L, (long long)T, runs);

  /* CPU */
  c.engine = CONVOY_ENGINE_CPU;
  convoy_pulse *cpu = NULL;
  if (convoy_pulse_create(&cpu, &c) != CONVOY_OK) {
    fprintf(stderr, "pulse_bench: %s\n", convoy_last_error());
    return 2;
  }
  const int64_t n_out = convoy_pulse_output_samples(cpu);
  float *ref = malloc(sizeof(float) * 2 * (size_t)n_out);
  float *out = convoy_host_alloc(sizeof(float) * 2 * (size_t)n_out);
  float *out_pageable = malloc(sizeof(float) * 2 * (size_t)n_out);
  double *t = malloc(sizeof(double) * (size_t)runs);
  char line[512];
  convoy_pulse_describe(cpu, line, sizeof line);
  printf("%s\n", line);
  const int cpu_runs = runs < 5 ? runs : 5;
  for (int i = 0; i < cpu_runs; i++) {
    const double t0 = now_s();
    convoy_pulse_run(cpu, in, ref);
    t[i] = now_s() - t0;
  }
  report("cpu host->host", median(t, cpu_runs), n_in);
  convoy_pulse_destroy(cpu);

  /* The bus: the batch's bytes in and out as two pinned copies at once
   * (upload and download on their own streams), the least time any
   * host-to-host run can take. */
  double bus_s = 0;
  if (gpus > 0) {
    void *d_a = NULL, *d_b = NULL;
    cudaStream_t up, down;
    const size_t in_bytes = sizeof(float) * 2 * (size_t)n_in;
    const size_t out_bytes = sizeof(float) * 2 * (size_t)n_out;
    if (cudaMalloc(&d_a, in_bytes) != cudaSuccess || cudaMalloc(&d_b, out_bytes) != cudaSuccess) {
      fprintf(stderr, "pulse_bench: no device memory\n");
      return 2;
    }
    cudaStreamCreate(&up);
    cudaStreamCreate(&down);
    for (int i = -2; i < runs; i++) {
      const double t0 = now_s();
      cudaMemcpyAsync(d_a, in, in_bytes, cudaMemcpyHostToDevice, up);
      cudaMemcpyAsync(out, d_b, out_bytes, cudaMemcpyDeviceToHost, down);
      cudaStreamSynchronize(up);
      cudaStreamSynchronize(down);
      if (i >= 0) t[i] = now_s() - t0;
    }
    bus_s = median(t, runs);
    printf("bus: %.1f MB in and %.1f MB out at once, pinned: %.3f ms\n", in_bytes / 1e6,
           out_bytes / 1e6, 1e3 * bus_s);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaStreamDestroy(up);
    cudaStreamDestroy(down);
  }

  /* plan 0 (model, then timing: plan_effort 0 and 1), then plans 1 .. 3 forced */
  for (int row = 0; gpus > 0 && row <= 4; row++) {
    const int plan = row ? row - 1 : 0;
    c.engine = CONVOY_ENGINE_GPU;
    c.plan_effort = row == 0 ? 0 : 1;
    char who[32];
    snprintf(who, sizeof who, "gpu plan %d%s", plan,
             row == 0   ? " model"
             : row == 1 ? " timed"
                        : "");
    convoy_pulse *g = NULL;
    if (pulse_create_with_plan(&g, &c, plan) != CONVOY_OK) {
      printf("%s: %s\n", who, convoy_last_error());
      continue;
    }
    convoy_pulse_describe(g, line, sizeof line);
    printf("%s\n", line);
    void *d_in = NULL, *d_out = NULL;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    if (cudaMalloc(&d_in, sizeof(float) * 2 * (size_t)n_in) != cudaSuccess ||
        cudaMalloc(&d_out, sizeof(float) * 2 * (size_t)n_out) != cudaSuccess) {
      fprintf(stderr, "pulse_bench: no device memory\n");
      return 2;
    }
    cudaStreamCreate(&s);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(d_in, in, sizeof(float) * 2 * (size_t)n_in, cudaMemcpyHostToDevice);
    for (int i = -2; i < runs; i++) { /* two warm-up runs */
      cudaEventRecord(e0, s);
      convoy_status st = convoy_pulse_run_device(g, d_in, d_out, (void *)s);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      if (st != CONVOY_OK) {
        fprintf(stderr, "pulse_bench: %s\n", convoy_pulse_last_error(g));
        return 2;
      }
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (i >= 0) t[i] = 1e-3 * ms;
    }
    snprintf(line, sizeof line, "%s device-resident", who);
    report(line, median(t, runs), n_in);
    for (int i = -1; i < runs; i++) {
      const double t0 = now_s();
      convoy_pulse_run(g, in, out);
      if (i >= 0) t[i] = now_s() - t0;
    }
    snprintf(line, sizeof line, "%s host->host (pinned)", who);
    const double pinned_s = median(t, runs);
    report(line, pinned_s, n_in);
    printf("  bus time / pinned run: %.1f%%\n", 100.0 * bus_s / pinned_s);
    const int pr = runs < 5 ? runs : 5;
    for (int i = 0; i < pr; i++) {
      const double t0 = now_s();
      convoy_pulse_run(g, in_pageable, out_pageable);
      t[i] = now_s() - t0;
    }
    snprintf(line, sizeof line, "%s host->host (pageable)", who);
    report(line, median(t, pr), n_in);
    printf("  %s vs cpu: rel L2 %.3g; pinned vs pageable identical: %s\n", who,
           rel_diff(out, ref, 2 * n_out),
           memcmp(out, out_pageable, sizeof(float) * 2 * (size_t)n_out) ? "no" : "yes");
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(s);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    convoy_pulse_destroy(g);
  }
  free(t);
  free(tp);
  free(ref);
  free(in_pageable);
  free(out_pageable);
  convoy_host_free(in);
  convoy_host_free(out);
  return 0;
}
