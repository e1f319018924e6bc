/*
 * gpu_kernels_bench.c - device-resident throughput of the GPU convolution
 * kernels (cuda/conv/gpu_conv.h) against the device's own copy rate.
 *
 *   gpu_kernels_bench [LOG2_SAMPLES [REPS [ONLY]]]    (defaults 28 and 9)
 *
 * Mono float32, input and output already in device memory. For each filter
 * length and engine variant it prints the median time of REPS runs (CUDA
 * events, after one warm-up run), the throughput in GS/s, and that as a
 * fraction of the measured device-to-device cudaMemcpy rate counted at 8
 * bytes per sample (one read and one write, the least a filter moves). Each
 * variant's output is spot-checked against a double-precision sum at 64
 * random positions, and the time gpu_conv_create took (plans, FFT size
 * timing, cuFFT's link of the callbacks) is shown. The FFT engine is also
 * run in each of its implementations (fused kernel, four-step kernels,
 * plain cuFFT, cuFFT with callbacks) at fixed FFT sizes and batch sizes. ONLY runs just the cases
 * whose "TAPS LABEL" line contains that text (for a profiler); ONLY "sweep"
 * runs instead the FFT engine's model and timed plans at four tap counts an octave from
 * 100 to 2^20 (where a tap count runs slower than a longer filter, the FFT
 * sizes' grid is to blame); ONLY "windows" runs the register kernel with
 * its inputs staged and read straight at 1 to 32 taps; ONLY "param" runs it
 * with the taps in the launch's parameters (the default for one filter)
 * and in registers, at 1 to 64 taps; ONLY "sizes" runs every fused size that
 * keeps at least an eighth of a segment at tap counts an octave apart from 100 to 25600, and
 * the four-step sizes 2 to 16 times the taps from 1600 to 2^20 taps; ONLY
 * "calls" runs 16, 1024 and 65536 taps in launches of 2^24 outputs against one launch, the input
 * aligned and one float past (calls_case); ONLY "batches" runs the four-step
 * kernels at 65536 and 2^20 taps with 32 to 512 MiB of scratch a launch
 * against the default (2 MiB a multiprocessor). The last
 * lines ("summary ...") give the default plan's rate per tap count for
 * bench/gpu_peers.py.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_cuda_check.h"
#include "gpu_conv.h"
#include "gpu_conv_fft_path.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK_LOG2 24 /* the input repeats a random block of 2^24 samples */
#define MAX_TAPS (1 << 20)

static int failures = 0;
static const char *only = NULL;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float uniform(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((double)(rng_state >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct bench {
  int64_t n; /* outputs */
  int reps;
  float *d_in; /* n + MAX_TAPS - 1 */
  float *d_out;
  const float *block; /* host copy of the repeating input block */
  cudaStream_t stream;
  cudaEvent_t a, b;
  double copy_gsps;
} bench;

/* Median seconds of reps runs of either a copy of B->n floats (conv NULL)
 * or a convolution of all B->n outputs in launches of `call` outputs each,
 * back to back on one stream, the input read from d_in + in_at (timing
 * only: the outputs are checked at in_at 0). */
static double time_calls(bench *B, gpu_conv *conv, int64_t call, int in_at) {
  double *t = malloc(sizeof(double) * (size_t)B->reps);
  for (int i = -1; i < B->reps; i++) {
    CK(cudaEventRecord(B->a, B->stream));
    for (int64_t pos = 0; conv && pos < B->n; pos += call) {
      const int64_t k = B->n - pos < call ? B->n - pos : call;
      char err[256];
      if (gpu_conv_run(conv, 0, B->d_in + in_at + pos, B->n + MAX_TAPS - 1, B->d_out + pos, B->n, k,
                       B->stream, err, sizeof err) != CONVOY_OK) {
        fprintf(stderr, "run: %s\n", err);
        exit(1);
      }
    }
    if (!conv)
      CK(cudaMemcpyAsync(B->d_out, B->d_in, sizeof(float) * (size_t)B->n, cudaMemcpyDeviceToDevice,
                         B->stream));
    CK(cudaEventRecord(B->b, B->stream));
    CK(cudaEventSynchronize(B->b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, B->a, B->b));
    if (i >= 0) t[i] = ms * 1e-3;
  }
  qsort(t, (size_t)B->reps, sizeof(double), cmp_double);
  double m = t[B->reps / 2];
  free(t);
  return m;
}

/* One launch of all B->n outputs (or the copy, conv NULL). */
static double time_median(bench *B, gpu_conv *conv) {
  return time_calls(B, conv, B->n, 0);
}

/* ONLY "calls": what the kernels deliver in launches of 2^24 outputs (the
 * size of convoy bench's device calls) against one launch of them all, the
 * input at a 16-byte boundary and one float past it (where a caller's row
 * lies when the device API reads it in place under an odd history, taps - 1
 * odd). The plans are those a convolver for that launch size takes. */
static void calls_case(bench *B, const float *taps, int64_t m, gpu_conv_kind kind) {
  const int64_t call = (int64_t)1 << 24;
  double one = 0;
  for (int k = 0; k < 2; k++) {
    gpu_conv_config cfg;
    gpu_conv_config_init(&cfg);
    const float *tp[1] = {taps};
    cfg.kind = kind;
    cfg.plan_effort = 1;
    cfg.channels = 1;
    cfg.taps = tp;
    cfg.taps_len = m;
    cfg.max_out = k == 0 ? B->n : call;
    gpu_conv *conv = NULL;
    char err[256] = "";
    if (gpu_conv_create(&cfg, &conv, err, sizeof err) != CONVOY_OK) {
      printf("%7lld  create failed: %s\n", (long long)m, err);
      failures++;
      return;
    }
    char line[256];
    gpu_conv_describe(conv, line, sizeof line);
    for (int in_at = 0; in_at < 2; in_at++) {
      const double t = time_calls(B, conv, k == 0 ? B->n : call, in_at);
      const double gsps = (double)B->n / t * 1e-9;
      if (k == 0 && in_at == 0) one = gsps;
      printf("%7lld  %-12s %-22s input %s %8.3f ms %7.1f GS/s %5.1f%% of one launch\n",
             (long long)m, kind == GPU_CONV_DIRECT ? "direct" : "fft (timed)",
             k == 0 ? "one launch" : "launches of 2^24", in_at ? "+1 float" : "aligned ", t * 1e3,
             gsps, 100.0 * gsps / one);
    }
    printf("    %s\n", line);
    fflush(stdout);
    gpu_conv_destroy(conv);
  }
}

/* Compares 64 random outputs with double sums; returns the worst error
 * relative to sum |h x|. */
static double spot_check(const bench *B, const float *taps, int64_t m) {
  double worst = 0;
  const int64_t mask = ((int64_t)1 << BLOCK_LOG2) - 1;
  for (int i = 0; i < 64; i++) {
    int64_t k = (int64_t)((double)(uniform() * 0.5f + 0.5f) * (double)(B->n - 1));
    float got;
    CK(cudaMemcpy(&got, B->d_out + k, sizeof got, cudaMemcpyDeviceToHost));
    double ref = 0, mag = 0;
    for (int64_t j = 0; j < m; j++) {
      double p = (double)taps[j] * (double)B->block[(k + m - 1 - j) & mask];
      ref += p;
      mag += fabs(p);
    }
    double e = fabs((double)got - ref) / (mag > 0 ? mag : 1);
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs one case with the FFT implementation forced to path (points per
 * thread for the fused kernel); returns its rate in GS/s, or 0 after a
 * failure. */
static double run_case_path(bench *B, const float *taps, int64_t m, const char *label,
                            const gpu_conv_config *overrides, int path, int points) {
  char name[96];
  snprintf(name, sizeof name, "%lld %s", (long long)m, label);
  if (only && !strstr(name, only)) return 0;
  gpu_conv_config cfg = *overrides;
  const float *tp[1] = {taps};
  cfg.channels = 1;
  cfg.taps = tp;
  cfg.taps_len = m;
  cfg.max_out = B->n;
  gpu_conv *conv = NULL;
  char err[256] = "";
  gpu_conv_fft_override(path, points);
  double t0 = now_s();
  convoy_status st = gpu_conv_create(&cfg, &conv, err, sizeof err);
  double t_create = now_s() - t0;
  gpu_conv_fft_override(GPU_CONV_FFT_CHOOSE, 0);
  if (st != CONVOY_OK) {
    printf("%7lld  %-34s  create failed: %s\n", (long long)m, label, err);
    failures++;
    return 0;
  }
  double t = time_median(B, conv);
  double gsps = (double)B->n / t * 1e-9;
  double err_rel = spot_check(B, taps, m);
  char line[256];
  gpu_conv_describe(conv, line, sizeof line);
  int ok = err_rel < 1e-5;
  failures += !ok;
  printf("%7lld  %-34s %8.3f ms %7.1f GS/s %5.1f%% of copy  check %s (%.1e)  create %.0f ms\n"
         "    %s\n",
         (long long)m, label, t * 1e3, gsps, 100.0 * gsps / B->copy_gsps, ok ? "ok" : "FAIL",
         err_rel, t_create * 1e3, line);
  fflush(stdout);
  gpu_conv_destroy(conv);
  return ok ? gsps : 0;
}

static double run_case(bench *B, const float *taps, int64_t m, const char *label,
                       const gpu_conv_config *overrides) {
  return run_case_path(B, taps, m, label, overrides, GPU_CONV_FFT_CHOOSE, 0);
}

/* Forced implementation at FFT size 2^k (with a batch of batch_mb MiB when
 * non-zero). */
static void fft_at(bench *B, const float *taps, int64_t m, int path, int points, int k,
                   int64_t batch_mb) {
  static const char *names[5] = {"", "fused", "callbacks", "plain", "four-step"};
  gpu_conv_config f;
  gpu_conv_config_init(&f);
  f.kind = GPU_CONV_FFT;
  f.fft_size = (int64_t)1 << k;
  f.fft_batch_bytes = batch_mb << 20;
  char label[64];
  int at = snprintf(label, sizeof label, "fft %s N=2^%d", names[path], k);
  if (points) at += snprintf(label + at, sizeof label - (size_t)at, ", %d pts", points);
  if (batch_mb) snprintf(label + at, sizeof label - (size_t)at, ", %lld MiB", (long long)batch_mb);
  run_case_path(B, taps, m, label, &f, path, points);
}

/* The 64-tap register kernel at 4 and 16 outputs a thread (c's taps
 * source). */
static void outputs_at_64(bench *B, const float *taps, const gpu_conv_config *c) {
  for (int outputs = 4; outputs <= 16; outputs *= 4) {
    gpu_conv_config v = *c;
    v.direct_outputs = outputs;
    char label[64];
    snprintf(label, sizeof label, "direct %d outputs/thread", outputs);
    run_case(B, taps, 64, label, &v);
  }
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 28;
  int reps = argc > 2 ? atoi(argv[2]) : 9;
  only = argc > 3 ? argv[3] : NULL;
  if (log2n < BLOCK_LOG2 || log2n > 32 || reps < 1) {
    fprintf(stderr, "usage: gpu_kernels_bench [LOG2_SAMPLES (%d..32) [REPS]]\n", BLOCK_LOG2);
    return 1;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("gpu_kernels_bench: no GPU\n");
    return 0;
  }
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);

  bench B;
  memset(&B, 0, sizeof B);
  B.n = (int64_t)1 << log2n;
  B.reps = reps;
  size_t in_floats = (size_t)B.n + MAX_TAPS - 1;
  CK(cudaMalloc((void **)&B.d_in, in_floats * sizeof(float)));
  CK(cudaMalloc((void **)&B.d_out, (size_t)B.n * sizeof(float)));
  CK(cudaStreamCreate(&B.stream));
  CK(cudaEventCreate(&B.a));
  CK(cudaEventCreate(&B.b));

  const size_t block = (size_t)1 << BLOCK_LOG2;
  float *host = malloc(block * sizeof(float));
  for (size_t i = 0; i < block; i++) host[i] = uniform();
  B.block = host;
  for (size_t pos = 0; pos < in_floats; pos += block) {
    size_t len = in_floats - pos < block ? in_floats - pos : block;
    CK(cudaMemcpy(B.d_in + pos, host, len * sizeof(float), cudaMemcpyHostToDevice));
  }

  double t_copy = time_median(&B, NULL);
  B.copy_gsps = (double)B.n / t_copy * 1e-9;
  printf("device: %s, %d SMs, %.1f GiB, L2 %d MiB, driver %d, runtime %d\n", prop.name,
         prop.multiProcessorCount, (double)prop.totalGlobalMem / (1 << 30), prop.l2CacheSize >> 20,
         drv, rt);
  printf("signal: 2^%d float32 samples, mono, device-resident; median of %d runs\n", log2n, reps);
  printf("device-to-device copy: %.3f ms, %.0f GB/s (read + write), %.1f GS/s at 8 B/sample\n\n",
         t_copy * 1e3, 2.0 * 4.0 * (double)B.n / t_copy * 1e-9, B.copy_gsps);
  printf("   taps  variant                                 time        rate      vs copy\n");

  float *taps = malloc(sizeof(float) * MAX_TAPS);
  for (int i = 0; i < MAX_TAPS; i++) taps[i] = uniform();

  gpu_conv_config c;
  gpu_conv_config_init(&c);
  c.kind = GPU_CONV_DIRECT;
  gpu_conv_config s = c;
  s.direct_shared_taps = 1;
  gpu_conv_config staged = c; /* the register kernel's tile staged in shared memory */
  staged.direct_input = 1;
  gpu_conv_config f;
  gpu_conv_config_init(&f);
  f.kind = GPU_CONV_FFT;
  gpu_conv_config a;
  gpu_conv_config_init(&a);
  a.plan_effort = 1;
  double summary[3][3] = {{0}}; /* [16, 1024, 65536][direct, fft timed, auto] */
  if (only && !strcmp(only, "sweep")) {
    for (int i = 0;; i++) {
      const int64_t m = (int64_t)llround(100.0 * pow(2.0, i / 4.0));
      if (m > MAX_TAPS) break;
      f.plan_effort = 0;
      run_case(&B, taps, m, "sweep fft (model N)", &f);
      f.plan_effort = 1;
      run_case(&B, taps, m, "sweep fft (timed N)", &f);
    }
    only = "no other case";
  }
  if (only && !strcmp(only, "batches")) {
    /* The four-step kernels by scratch per launch (0: the default). */
    static const int64_t mib[6] = {0, 32, 64, 128, 256, 512};
    only = NULL;
    for (int t = 0; t < 2; t++) {
      const int64_t m = t ? MAX_TAPS : 65536;
      for (int k = t ? 21 : 18; k <= (t ? 22 : 20); k++)
        for (int i = 0; i < 6; i++) fft_at(&B, taps, m, GPU_CONV_FFT_FOURSTEP, 0, k, mib[i]);
    }
    only = "no other case";
  }
  if (only && !strcmp(only, "windows")) {
    /* The register kernel's two ways to its inputs at tap counts up to 32:
     * a tile staged in shared memory, each window read straight. */
    only = NULL;
    for (int64_t m = 1; m <= 32; m++) {
      run_case(&B, taps, m, "direct staged inputs", &staged);
      gpu_conv_config straight = c;
      straight.direct_input = 2;
      run_case(&B, taps, m, "direct windows read straight", &straight);
    }
    only = "no other case";
  }
  if (only && !strcmp(only, "param")) {
    /* The register kernels on one filter: taps from the launch's
     * parameters (the default there) against taps in registers. */
    only = NULL;
    gpu_conv_config regs = c;
    regs.direct_reg_taps = 1;
    for (int64_t m = 1; m <= 64; m++) {
      if (m > 24 && m % 4 && m != 63) continue;
      run_case(&B, taps, m, "direct, taps in the parameters", &c);
      run_case(&B, taps, m, "direct, taps in registers", &regs);
    }
    outputs_at_64(&B, taps, &c);
    only = "no other case";
  }
  if (only && !strcmp(only, "calls")) {
    calls_case(&B, taps, 16, GPU_CONV_DIRECT);
    calls_case(&B, taps, 1024, GPU_CONV_FFT);
    calls_case(&B, taps, 65536, GPU_CONV_FFT);
    only = "no other case";
  }
  if (only && !strcmp(only, "sizes")) {
    /* Every fused size at tap counts an octave apart: what each delivers
     * where it keeps at least an eighth of its segment. */
    only = NULL;
    for (int64_t m = 100; m <= 25600; m *= 2)
      for (int k = 11; k <= 15; k++)
        if ((((int64_t)1 << k) - m + 1) * 8 >= ((int64_t)1 << k))
          fft_at(&B, taps, m, GPU_CONV_FFT_FUSED, 16, k, 0);
    /* The four-step sizes from where they begin to compete, up to 2^20 taps:
     * the model's efficiencies come from these rows. */
    for (int64_t m = 1600; m <= MAX_TAPS; m *= 2)
      for (int k = 16; k <= 22; k++)
        if (((int64_t)1 << k) >= 2 * m && ((int64_t)1 << k) <= 16 * m)
          fft_at(&B, taps, m, GPU_CONV_FFT_FOURSTEP, 0, k, 0);
    only = "no other case";
  }

  summary[0][0] = run_case(&B, taps, 16, "direct (default)", &c);
  /* The register kernel's other shapes at 16 taps: outputs a thread, stores
   * staged through shared memory. */
  const int shapes[3][2] = {{4, 1}, {16, 1}, {8, 2}};
  for (int i = 0; i < 3; i++) {
    gpu_conv_config v = c;
    v.direct_outputs = shapes[i][0];
    v.direct_store = shapes[i][1];
    char label[64];
    snprintf(label, sizeof label, "direct %d outputs/thread, %s stores", shapes[i][0],
             shapes[i][1] == 2 ? "staged" : "per-thread");
    run_case(&B, taps, 16, label, &v);
  }
  run_case(&B, taps, 16, "direct staged inputs", &staged);
  run_case(&B, taps, 16, "direct shared-memory taps", &s);
  run_case(&B, taps, 64, "direct (default)", &c);
  outputs_at_64(&B, taps, &c);
  f.plan_effort = 1;
  summary[0][1] = run_case(&B, taps, 16, "fft (timed N)", &f);
  summary[0][2] = run_case(&B, taps, 16, "auto (timed)", &a);

  summary[1][0] = run_case(&B, taps, 1024, "direct shared-memory taps", &c);
  f.plan_effort = 0;
  run_case(&B, taps, 1024, "fft (model N)", &f);
  f.plan_effort = 1;
  summary[1][1] = run_case(&B, taps, 1024, "fft (timed N)", &f);
  for (int k = 11; k <= 15; k++) fft_at(&B, taps, 1024, GPU_CONV_FFT_FUSED, 16, k, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_FUSED, 8, 12, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_FOURSTEP, 0, 16, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_PLAIN, 0, 13, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_PLAIN, 0, 13, 256);
  summary[1][2] = run_case(&B, taps, 1024, "auto (timed)", &a);

  f.plan_effort = 0;
  run_case(&B, taps, 65536, "fft (model N)", &f);
  f.plan_effort = 1;
  summary[2][1] = run_case(&B, taps, 65536, "fft (timed N)", &f);
  for (int k = 17; k <= 22; k++) fft_at(&B, taps, 65536, GPU_CONV_FFT_FOURSTEP, 0, k, 0);
  for (int k = 19; k <= 21; k++) {
    fft_at(&B, taps, 65536, GPU_CONV_FFT_FOURSTEP, 0, k, 64);
    fft_at(&B, taps, 65536, GPU_CONV_FFT_FOURSTEP, 0, k, 256);
  }
  fft_at(&B, taps, 65536, GPU_CONV_FFT_PLAIN, 0, 19, 0);
  fft_at(&B, taps, 65536, GPU_CONV_FFT_PLAIN, 0, 19, 256);
  fft_at(&B, taps, 65536, GPU_CONV_FFT_PLAIN, 0, 21, 256);
  summary[2][2] = run_case(&B, taps, 65536, "auto (timed)", &a);

  /* cuFFT with callbacks last: its plans link code at run time. */
  fft_at(&B, taps, 1024, GPU_CONV_FFT_CALLBACK, 0, 12, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_CALLBACK, 0, 13, 0);
  fft_at(&B, taps, 1024, GPU_CONV_FFT_CALLBACK, 0, 13, 256);
  for (int k = 19; k <= 21; k++) fft_at(&B, taps, 65536, GPU_CONV_FFT_CALLBACK, 0, k, 0);
  fft_at(&B, taps, 65536, GPU_CONV_FFT_CALLBACK, 0, 19, 256);

  printf("\n");
  const int64_t summary_taps[3] = {16, 1024, 65536};
  for (int i = 0; i < 3; i++)
    printf("summary taps=%lld copy_gsps=%.1f direct_gsps=%.1f fft_gsps=%.1f auto_gsps=%.1f\n",
           (long long)summary_taps[i], B.copy_gsps, summary[i][0], summary[i][1], summary[i][2]);

  free(taps);
  free(host);
  cudaFree(B.d_in);
  cudaFree(B.d_out);
  cudaEventDestroy(B.a);
  cudaEventDestroy(B.b);
  cudaStreamDestroy(B.stream);
  printf("\n%s\n", failures ? "SOME CHECKS FAILED" : "all spot checks passed");
  return failures ? 1 : 0;
}
