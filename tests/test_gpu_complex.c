/*
 * test_gpu_complex.c - complex signals on the GPU: gpu_conv with complex
 * taps (direct and FFT engines, both FFT implementations), the S8/U8 input
 * conversions, complex filters on device-resident buffers (convoy_cuda.h)
 * and complex streams on a GPU engine (convoy.h).
 *
 * Checks: outputs against a double-precision complex reference (relative L2
 * below 1e-5) for 1 .. 70000 random taps and one 2^20-tap filter, random
 * lengths including primes, 1 .. 4 complex channels with distinct or shared
 * filters; the register and shared-memory direct kernels agree bitwise;
 * splitting a run at granule multiples gives bitwise the one-call output;
 * nothing is written outside the outputs; int8 and uint8 input convert
 * exactly (x / 128, (x - 128) / 128); float32 complex frames filtered in
 * place (the interleaved kernels, real and complex filters, 1 .. 4 complex
 * channels) give the bits of the same values as uint8 frames (the
 * conversion into planar rows); a real filter too long for the complex
 * kernel on frames runs on real rows; a complex filter on a real config is
 * refused. Skips (77) without a GPU.
 */
#include <stdbool.h>

#include "test_support.h"

#ifndef CONVOY_HAVE_CUDA

int main(void) {
  printf("test_gpu_complex: built without CUDA: skipped\n");
  return TS_SKIP;
}

#else

#include "convoy_cuda.h"
#include "gpu_conv.h"
#include "gpu_conv_fft_path.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xFF /* every float made of it is a NaN */

static ts_rng rng;

static int cuda_ok(cudaError_t e, const char *what) {
  TS_CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

/* ------------------------------------------------------------- reference */

/* y[k] = sum_j h[j] x[k + m - 1 - j] in double for complex rows (re, im)
 * of n_in = n_out + m - 1 inputs, at output k. */
static void ref_at(const float *xr, const float *xi, const float *hr, const float *hi, int64_t m,
                   int64_t k, double *yr, double *yi) {
  double sr = 0.0, si = 0.0;
  for (int64_t j = 0; j < m; j++) {
    const double a = hr[j], b = hi[j], c = xr[k + m - 1 - j], d = xi[k + m - 1 - j];
    sr += a * c - b * d;
    si += a * d + b * c;
  }
  *yr = sr;
  *yi = si;
}

/* Multiply-adds the reference may spend per channel and check. */
static int64_t ref_budget = 10000000;

/* Outputs to check: all when the reference is cheap, else a sample that
 * includes both ends. Returns their count (<= cap). */
static int64_t pick_outputs(int64_t n_out, int64_t m, int64_t *ks, int64_t cap) {
  if (n_out * m <= ref_budget && n_out <= cap) {
    for (int64_t k = 0; k < n_out; k++) ks[k] = k;
    return n_out;
  }
  int64_t budget = ref_budget / m;
  if (budget > cap) budget = cap;
  if (budget < 8) budget = 8;
  if (budget > n_out) budget = n_out;
  ks[0] = 0;
  ks[1] = n_out - 1;
  for (int64_t i = 2; i < budget; i++) ks[i] = ts_range(&rng, 0, n_out - 1);
  return budget;
}

/* ------------------------------------------------------------- cases */

/* pairs complex channels on device rows 2c (re), 2c + 1 (im); each holds
 * m - 1 history frames and n_out frames. */
typedef struct cxcase {
  int32_t pairs;
  int64_t m, n_out, n_in, in_stride, out_stride;
  float *taps;           /* [pairs][2][m] */
  const float **rows_of; /* [2 pairs] taps rows (shared filters repeat) */
  float *in;             /* [2 pairs][in_stride] */
  float *d_in, *d_out;
  size_t out_floats;
} cxcase;

static void cx_free(cxcase *t) {
  free(t->taps);
  free(t->rows_of);
  free(t->in);
  cudaFree(t->d_in);
  cudaFree(t->d_out);
  memset(t, 0, sizeof *t);
}

static int cx_make(cxcase *t, int32_t pairs, int64_t m, int64_t n_out, int shared) {
  memset(t, 0, sizeof *t);
  t->pairs = pairs;
  t->m = m;
  t->n_out = n_out;
  t->n_in = n_out + m - 1;
  t->in_stride = t->n_in + ts_range(&rng, 0, 5);
  t->out_stride = n_out + ts_range(&rng, 1, 5);
  const int32_t rows = 2 * pairs;
  t->taps = malloc(sizeof(float) * (size_t)(rows * m));
  t->rows_of = malloc(sizeof(float *) * (size_t)rows);
  t->in = malloc(sizeof(float) * (size_t)(rows * t->in_stride));
  if (!t->taps || !t->rows_of || !t->in) {
    TS_CHECK(0, "out of host memory for a %lld-tap case", (long long)m);
    cx_free(t);
    return 0;
  }
  ts_fill_uniform(&rng, t->taps, rows * m);
  for (int32_t c = 0; c < pairs; c++) {
    const int32_t f = shared ? 0 : c;
    t->rows_of[2 * c] = t->taps + (size_t)(2 * f) * (size_t)m;
    t->rows_of[2 * c + 1] = t->taps + (size_t)(2 * f + 1) * (size_t)m;
  }
  ts_fill_uniform(&rng, t->in, rows * t->in_stride);
  t->out_floats = (size_t)(t->out_stride * rows + 64);
  const size_t in_bytes = sizeof(float) * (size_t)(rows * t->in_stride);
  if (!cuda_ok(cudaMalloc((void **)&t->d_in, in_bytes), "cudaMalloc in") ||
      !cuda_ok(cudaMalloc((void **)&t->d_out, t->out_floats * sizeof(float)), "cudaMalloc out") ||
      !cuda_ok(cudaMemcpy(t->d_in, t->in, in_bytes, cudaMemcpyHostToDevice), "copy in")) {
    cx_free(t);
    return 0;
  }
  return 1;
}

/* Runs the case as calls of the given sizes (NULL: one call); returns the
 * whole output buffer (malloc'd) or NULL after a failure. */
static float *cx_run(const cxcase *t, gpu_conv *g, const int64_t *sizes, int n_sizes) {
  float *host = malloc(t->out_floats * sizeof(float));
  int ok = host != NULL;
  ok = ok && cuda_ok(cudaMemset(t->d_out, POISON_BYTE, t->out_floats * sizeof(float)), "poison");
  int64_t one[1] = {t->n_out};
  if (!sizes) {
    sizes = one;
    n_sizes = 1;
  }
  int64_t pos = 0;
  for (int i = 0; ok && i < n_sizes; i++) {
    char err[256] = "";
    convoy_status st = gpu_conv_run(g, 0, t->d_in + pos, t->in_stride, t->d_out + pos,
                                    t->out_stride, sizes[i], NULL, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "run %d of %d (%lld outputs at %lld): %s", i, n_sizes,
             (long long)sizes[i], (long long)pos, err);
    ok = st == CONVOY_OK;
    pos += sizes[i];
  }
  ok = ok && cuda_ok(cudaDeviceSynchronize(), "synchronize");
  ok = ok &&
       cuda_ok(cudaMemcpy(host, t->d_out, t->out_floats * sizeof(float), cudaMemcpyDeviceToHost),
               "copy out");
  if (!ok) {
    free(host);
    return NULL;
  }
  return host;
}

static int is_poison(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u == 0xFFFFFFFFu;
}

/* Reference error per complex channel over the picked outputs, and nothing
 * written outside the outputs. */
static void cx_check(const cxcase *t, const float *out, const char *label) {
  int64_t cap = 4096;
  int64_t *ks = malloc(sizeof(int64_t) * (size_t)cap);
  if (!ks) return;
  double worst = 0.0;
  for (int32_t c = 0; c < t->pairs; c++) {
    const int64_t n = pick_outputs(t->n_out, t->m, ks, cap);
    const float *xr = t->in + (size_t)(2 * c) * (size_t)t->in_stride, *xi = xr + t->in_stride;
    const float *yr = out + (size_t)(2 * c) * (size_t)t->out_stride, *yi = yr + t->out_stride;
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double rr, ri;
      ref_at(xr, xi, t->rows_of[2 * c], t->rows_of[2 * c + 1], t->m, ks[i], &rr, &ri);
      const double dr = yr[ks[i]] - rr, di = yi[ks[i]] - ri;
      num += dr * dr + di * di;
      den += rr * rr + ri * ri;
    }
    const double e = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!(e <= worst)) worst = e;
  }
  free(ks);
  TS_CHECK(worst < 1e-5, "%s: %lld complex taps, %d complex ch, %lld outputs: rel L2 error %.3g",
           label, (long long)t->m, (int)t->pairs, (long long)t->n_out, worst);
  int64_t stray = 0;
  for (int32_t r = 0; r < 2 * t->pairs; r++)
    for (int64_t k = t->n_out; k < t->out_stride; k++)
      stray += !is_poison(out[r * t->out_stride + k]);
  for (size_t k = (size_t)(t->out_stride * 2 * t->pairs); k < t->out_floats; k++)
    stray += !is_poison(out[k]);
  TS_CHECK(stray == 0, "%s: %lld floats written outside the outputs", label, (long long)stray);
}

static int cx_same(const cxcase *t, const float *a, const float *b) {
  for (int32_t r = 0; r < 2 * t->pairs; r++)
    if (memcmp(a + r * t->out_stride, b + r * t->out_stride, sizeof(float) * (size_t)t->n_out))
      return 0;
  return 1;
}

static void cx_config(const cxcase *t, gpu_conv_kind kind, gpu_conv_config *cfg) {
  gpu_conv_config_init(cfg);
  cfg->channels = 2 * t->pairs;
  cfg->taps_len = t->m;
  cfg->taps = (const float *const *)t->rows_of;
  cfg->max_out = t->n_out;
  cfg->kind = kind;
  cfg->complex_taps = 1;
}

/* Random call sizes, multiples of granule (the last takes the rest). */
static int random_split(int64_t n_out, int64_t granule, int64_t *sizes, int max_sizes) {
  int n = 0;
  int64_t left = n_out;
  while (left > 0 && n < max_sizes - 1) {
    int64_t units = (left + granule - 1) / granule;
    int64_t take = granule * ts_log_range(&rng, 1, units > 1 ? units - 1 : 1);
    if (take >= left) break;
    sizes[n++] = take;
    left -= take;
  }
  sizes[n++] = left;
  return n;
}

/* One engine on one case: reference, bounds and split invariance. Returns
 * the one-call output (caller frees) or NULL. */
static float *cx_engine(const cxcase *t, const gpu_conv_config *cfg, const char *label) {
  gpu_conv *g = NULL;
  char err[256] = "";
  convoy_status st = gpu_conv_create(cfg, &g, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: create (%lld complex taps): %s: %s", label, (long long)t->m,
           convoy_strerror(st), err);
  if (st != CONVOY_OK) return NULL;
  float *whole = cx_run(t, g, NULL, 0);
  if (whole) cx_check(t, whole, label);
  if (whole) {
    int64_t sizes[12];
    int n = random_split(t->n_out, gpu_conv_granule(g), sizes, 12);
    float *parts = cx_run(t, g, sizes, n);
    if (parts) {
      char desc[256];
      gpu_conv_describe(g, desc, sizeof desc);
      TS_CHECK(cx_same(t, whole, parts), "%s: %d calls (granule %lld) differ from one call [%s]",
               label, n, (long long)gpu_conv_granule(g), desc);
    }
    free(parts);
  }
  gpu_conv_destroy(g);
  return whole;
}

static int64_t random_length(int64_t lo, int64_t hi) {
  static const int64_t primes[] = {1, 2, 3, 7, 97, 1009, 7919, 65521, 104729};
  if (ts_range(&rng, 0, 3) == 0) {
    int64_t p = primes[ts_range(&rng, 0, (int64_t)(sizeof primes / sizeof primes[0]) - 1)];
    if (p >= lo && p <= hi) return p;
  }
  return ts_log_range(&rng, lo, hi);
}

/* Register kernels against the reference and, bitwise, the shared-memory
 * one: one filter shared by every channel (its taps in the launch's
 * parameters) at odd tap counts, distinct filters at even ones. */
static void test_direct_registers(void) {
  for (int64_t m = 1; m <= 32; m += ts_quick() ? 7 : 1) {
    cxcase t;
    if (!cx_make(&t, (int32_t)ts_range(&rng, 1, 3), m, random_length(1, 20000), (int)(m & 1)))
      continue;
    gpu_conv_config cfg;
    cx_config(&t, GPU_CONV_DIRECT, &cfg);
    float *reg = cx_engine(&t, &cfg, "direct registers");
    cfg.direct_shared_taps = 1;
    float *smem = cx_engine(&t, &cfg, "direct shared taps");
    if (reg && smem)
      TS_CHECK(cx_same(&t, reg, smem),
               "%lld complex taps: register and shared-memory kernels differ", (long long)m);
    free(reg);
    free(smem);
    cx_free(&t);
  }
}

/* Longer filters on the shared-memory kernel, across its 1024-tap blocks. */
static void test_direct_long(void) {
  const int64_t fixed[] = {33, 1023, 1024, 1025, 2049};
  for (int i = 0; i < (ts_quick() ? 3 : 8); i++) {
    int64_t m = i < 5 ? fixed[i] : random_length(33, 5000);
    int64_t n_out = random_length(1, (int64_t)2e7 / m > 3 ? (int64_t)2e7 / m : 3);
    cxcase t;
    if (!cx_make(&t, (int32_t)ts_range(&rng, 1, 4), m, n_out, i & 1)) continue;
    gpu_conv_config cfg;
    cx_config(&t, GPU_CONV_DIRECT, &cfg);
    free(cx_engine(&t, &cfg, "direct long"));
    cx_free(&t);
  }
}

/* The FFT engine at its chosen size, then forced onto the plain path and
 * onto given sizes (fused where they allow). */
static void test_fft(void) {
  for (int i = 0; i < (ts_quick() ? 4 : 14); i++) {
    const int64_t m = random_length(1, 70000);
    const int64_t n_out = random_length(1, 3 * m + 200000);
    cxcase t;
    if (!cx_make(&t, (int32_t)ts_range(&rng, 1, 4), m, n_out, i % 3 == 0)) continue;
    gpu_conv_config cfg;
    cx_config(&t, GPU_CONV_FFT, &cfg);
    free(cx_engine(&t, &cfg, "fft chosen"));
    if (i % 2 == 0) {
      gpu_conv_fft_override(GPU_CONV_FFT_PLAIN, 0);
      free(cx_engine(&t, &cfg, "fft plain"));
      gpu_conv_fft_override(GPU_CONV_FFT_CHOOSE, 0);
    }
    int64_t n = 512; /* fused sizes, then plain ones, small and large */
    while (n < m + 3) n *= 2;
    n <<= ts_range(&rng, 0, 3);
    if (n <= ((int64_t)1 << 22)) {
      cfg.fft_size = n;
      free(cx_engine(&t, &cfg, n <= 16384 ? "fft fused size" : "fft plain size"));
    }
    cx_free(&t);
  }
}

/* One filter of 2^20 complex taps over more than one FFT segment. */
static void test_fft_huge(void) {
  const int64_t m = ts_quick() ? (int64_t)1 << 16 : (int64_t)1 << 20;
  cxcase t;
  if (!cx_make(&t, 1, m, m + 12345, 0)) return;
  gpu_conv_config cfg;
  cx_config(&t, GPU_CONV_FFT, &cfg);
  cfg.fft_size = 2 * m; /* segments of about m outputs: two and a bit */
  ref_budget = (int64_t)2e8;
  free(cx_engine(&t, &cfg, "fft 2^20 taps"));
  ref_budget = 10000000;
  cx_free(&t);
}

/* ------------------------------------------------------------- device API */

static convoy_filter *complex_filter(const float *re_im, int64_t m) {
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create_typed(&f, CONVOY_SAMPLE_CF32, re_im, m));
  return f;
}

/* Identity filter on S8 and U8 complex input: the output is the conversion,
 * which must be exact. */
static void test_integer_input(void) {
  const int64_t frames = 3001;
  const int32_t ch = 3;
  const float one[2] = {1.0f, 0.0f};
  convoy_filter *f = complex_filter(one, 1);
  if (!f) return;
  convoy_cuda_config cfg;
  convoy_cuda_config_init(&cfg);
  cfg.channels = ch;
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = CONVOY_ENGINE_GPU_DIRECT;
  cfg.max_frames = frames;
  convoy_cuda_conv *cc = NULL;
  TS_CHECK_OK(convoy_cuda_conv_create(&cc, &cfg, &f, 1));
  const size_t samples = (size_t)(frames * 2 * ch);
  unsigned char *raw = malloc(samples);
  float *out = malloc(samples * sizeof(float));
  void *d_raw = NULL;
  float *d_out = NULL;
  int ok = cc && raw && out && cuda_ok(cudaMalloc(&d_raw, samples), "cudaMalloc") &&
           cuda_ok(cudaMalloc((void **)&d_out, samples * sizeof(float)), "cudaMalloc");
  TS_CHECK(!ok || convoy_cuda_conv_process_planar(cc, d_out, frames, d_out + samples / 2, frames,
                                                  frames / 2, NULL) == CONVOY_ERR_INVALID_ARGUMENT,
           "planar call on a complex convolver accepted");
  for (size_t i = 0; ok && i < samples; i++) raw[i] = (unsigned char)(i * 37 + (i >> 8));
  raw[0] = 0;
  raw[1] = 128;
  raw[2] = 255;
  raw[3] = 127;
  for (int pass = 0; ok && pass < 2; pass++) {
    const convoy_sample_format fmt = pass == 0 ? CONVOY_FORMAT_S8 : CONVOY_FORMAT_U8;
    ok = cuda_ok(cudaMemcpy(d_raw, raw, samples, cudaMemcpyHostToDevice), "copy in");
    TS_CHECK_OK(convoy_cuda_conv_reset(cc, NULL));
    convoy_status st = convoy_cuda_conv_process(cc, fmt, d_raw, d_out, frames, NULL);
    TS_CHECK(st == CONVOY_OK, "process %s: %s", pass ? "U8" : "S8",
             convoy_cuda_conv_last_error(cc));
    ok = ok && st == CONVOY_OK && cuda_ok(cudaDeviceSynchronize(), "synchronize") &&
         cuda_ok(cudaMemcpy(out, d_out, samples * sizeof(float), cudaMemcpyDeviceToHost),
                 "copy out");
    int64_t wrong = 0;
    for (size_t i = 0; ok && i < samples; i++) {
      const float want =
          pass == 0 ? (float)(int8_t)raw[i] / 128.0f : (float)((int)raw[i] - 128) / 128.0f;
      wrong += memcmp(&want, &out[i], sizeof want) != 0;
    }
    TS_CHECK(ok && wrong == 0, "%s input: %lld of %zu samples not converted exactly",
             pass ? "U8" : "S8", (long long)wrong, samples);
  }
  cudaFree(d_raw);
  cudaFree(d_out);
  free(raw);
  free(out);
  convoy_cuda_conv_destroy(cc);
  convoy_filter_destroy(f);
}

/* Sums of the squared errors (*num) and outputs (*den) of complex channel c
 * of interleaved frames y (ch complex channels) against x filtered in double
 * precision by the len taps h (interleaved (re, im) pairs if complex_taps,
 * else real), at every 7th frame. */
static void frames_error(const float *y, const float *x, int64_t frames, int32_t ch, int32_t c,
                         const float *h, bool complex_taps, int64_t len, double *num, double *den) {
  for (int64_t k = 0; k < frames; k += 7) {
    double sr = 0, si = 0;
    for (int64_t j = 0; j < len && j <= k; j++) {
      const double hr = complex_taps ? h[2 * j] : h[j], hi = complex_taps ? h[2 * j + 1] : 0;
      const double xr = x[(k - j) * 2 * ch + 2 * c], xi = x[(k - j) * 2 * ch + 2 * c + 1];
      sr += hr * xr - hi * xi;
      si += hr * xi + hi * xr;
    }
    const double dr = y[k * 2 * ch + 2 * c] - sr, di = y[k * 2 * ch + 2 * c + 1] - si;
    *num += dr * dr + di * di;
    *den += sr * sr + si * si;
  }
}

/* A device convolver with complex taps per channel (one real), fed in
 * granule multiples: reference, and bitwise the same as one call. */
static void test_device_api(void) {
  const int32_t ch = 2;
  for (int e = 0; e < 2; e++) {
    const int64_t m = e == 0 ? 20 : 3000, frames = 40000;
    float *taps = malloc(sizeof(float) * (size_t)(2 * m));
    float *real = malloc(sizeof(float) * (size_t)m);
    float *x = malloc(sizeof(float) * (size_t)(frames * 2 * ch));
    float *y1 = malloc(sizeof(float) * (size_t)(frames * 2 * ch));
    float *y2 = malloc(sizeof(float) * (size_t)(frames * 2 * ch));
    if (!taps || !real || !x || !y1 || !y2) return;
    ts_fill_uniform(&rng, taps, 2 * m);
    ts_fill_uniform(&rng, real, m / 2);
    ts_fill_uniform(&rng, x, frames * 2 * ch);
    convoy_filter *fs[2] = {complex_filter(taps, m), NULL};
    TS_CHECK_OK(convoy_filter_create(&fs[1], real, m / 2));
    convoy_cuda_config cfg;
    convoy_cuda_config_init(&cfg);
    cfg.channels = ch;
    cfg.engine = e == 0 ? CONVOY_ENGINE_GPU_DIRECT : CONVOY_ENGINE_GPU_FFT;
    cfg.max_frames = frames;
    convoy_cuda_conv *cc = NULL;
    TS_CHECK(convoy_cuda_conv_create(&cc, &cfg, fs, 2) == CONVOY_ERR_INVALID_ARGUMENT,
             "a complex filter on a real config is refused");
    convoy_cuda_conv_destroy(cc);
    cc = NULL;
    cfg.sample = CONVOY_SAMPLE_CF32;
    TS_CHECK_OK(convoy_cuda_conv_create(&cc, &cfg, fs, 2));
    float *d_x = NULL, *d_y = NULL;
    const size_t bytes = sizeof(float) * (size_t)(frames * 2 * ch);
    int ok = cc && cuda_ok(cudaMalloc((void **)&d_x, bytes), "cudaMalloc") &&
             cuda_ok(cudaMalloc((void **)&d_y, bytes), "cudaMalloc") &&
             cuda_ok(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice), "copy in");
    for (int run = 0; ok && run < 2; run++) {
      TS_CHECK_OK(convoy_cuda_conv_reset(cc, NULL));
      const int64_t g = convoy_cuda_conv_granule(cc);
      int64_t at = 0;
      while (ok && at < frames) {
        int64_t n = run == 0 ? frames : g * ts_log_range(&rng, 1, 20000 / g + 1);
        if (n > frames - at) n = frames - at;
        convoy_status st = convoy_cuda_conv_process(cc, CONVOY_FORMAT_F32, d_x + at * 2 * ch,
                                                    d_y + at * 2 * ch, n, NULL);
        TS_CHECK(st == CONVOY_OK, "process: %s", convoy_cuda_conv_last_error(cc));
        ok = st == CONVOY_OK;
        at += n;
      }
      ok = ok && cuda_ok(cudaMemcpy(run ? y2 : y1, d_y, bytes, cudaMemcpyDeviceToHost), "copy out");
    }
    if (ok) {
      TS_CHECK(memcmp(y1, y2, bytes) == 0, "%s: chunked calls differ from one call",
               convoy_engine_name(cfg.engine));
      /* Channel 0 complex, channel 1 real taps on both parts. */
      double num = 0, den = 0;
      frames_error(y1, x, frames, ch, 0, taps, true, m, &num, &den);
      frames_error(y1, x, frames, ch, 1, real, false, m / 2, &num, &den);
      TS_CHECK(sqrt(num / den) < 1e-5, "%s: device API rel L2 error %.3g",
               convoy_engine_name(cfg.engine), sqrt(num / den));
    }
    cudaFree(d_x);
    cudaFree(d_y);
    convoy_cuda_conv_destroy(cc);
    convoy_filter_destroy(fs[0]);
    convoy_filter_destroy(fs[1]);
    free(taps);
    free(real);
    free(x);
    free(y1);
    free(y2);
  }
}

/* A real filter on one complex channel's frames on the FFT engine, longer
 * than the complex kernel on frames takes (16381 taps at N = 2^14 complex
 * points): it runs on the real rows, against a double-precision
 * reference. */
static void test_real_filter_long(void) {
  const int64_t m = 20000, frames = 50000;
  float *taps = malloc(sizeof(float) * (size_t)m), *x = malloc(sizeof(float) * 2 * frames);
  float *y = malloc(sizeof(float) * 2 * frames);
  if (!taps || !x || !y) return;
  ts_fill_uniform(&rng, taps, m);
  ts_fill_uniform(&rng, x, 2 * frames);
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, taps, m));
  convoy_cuda_config cfg;
  convoy_cuda_config_init(&cfg);
  cfg.channels = 1;
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = CONVOY_ENGINE_GPU_FFT;
  cfg.max_frames = frames;
  convoy_cuda_conv *cc = NULL;
  TS_CHECK_OK(convoy_cuda_conv_create(&cc, &cfg, &f, 1));
  float *d_x = NULL, *d_y = NULL;
  const size_t bytes = sizeof(float) * 2 * (size_t)frames;
  int ok = cc && cuda_ok(cudaMalloc((void **)&d_x, bytes), "cudaMalloc") &&
           cuda_ok(cudaMalloc((void **)&d_y, bytes), "cudaMalloc") &&
           cuda_ok(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice), "copy in");
  if (ok) {
    convoy_status st = convoy_cuda_conv_process(cc, CONVOY_FORMAT_F32, d_x, d_y, frames, NULL);
    TS_CHECK(st == CONVOY_OK, "process: %s", convoy_cuda_conv_last_error(cc));
    ok = st == CONVOY_OK && cuda_ok(cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost), "copy out");
  }
  if (ok) {
    char line[512];
    convoy_cuda_conv_describe(cc, line, sizeof line);
    TS_CHECK(!strstr(line, "complex fused"), "%lld real taps on one complex channel: '%s'",
             (long long)m, line);
    double num = 0, den = 0;
    frames_error(y, x, frames, 1, 0, taps, false, m, &num, &den);
    TS_CHECK(sqrt(num / den) < 1e-5, "%lld real taps on one complex channel: rel L2 %.3g",
             (long long)m, sqrt(num / den));
  }
  cudaFree(d_x);
  cudaFree(d_y);
  convoy_cuda_conv_destroy(cc);
  convoy_filter_destroy(f);
  free(taps);
  free(x);
  free(y);
}

/* Complex frames in place: float32 frames go through the engines'
 * interleaved kernels where they have one (real filters on 2, 4 or 8 rows,
 * a complex filter on one complex channel on the direct engine, complex
 * filters on 1, 2 or 4 complex channels and real ones on 1 or 2 on the FFT
 * engine's complex kernel), uint8 frames of the same values through the conversion
 * into planar rows; both, on one convolver, in calls of granule multiples,
 * give the same bits, and on the FFT engine the reference's outputs. e: 0 direct engine, real taps;
 * 1 FFT engine, real taps; 2 FFT engine, complex taps; 3 direct engine,
 * complex taps. */
static void test_frames_in_place(void) {
  const int32_t channel_counts[4] = {1, 2, 3, 4};
  for (int e = 0; e < 4; e++) {
    for (int ci = 0; ci < 4; ci++) {
      const int32_t ch = channel_counts[ci];
      const int64_t m = e == 0 || e == 3 ? ts_range(&rng, 1, 32) : ts_range(&rng, 100, 3000);
      const int64_t frames = ts_range(&rng, 20000, 60000);
      const size_t values = (size_t)(frames * 2 * ch);
      float *taps = malloc(sizeof(float) * (size_t)(2 * m));
      unsigned char *raw = malloc(values);
      float *x = malloc(sizeof(float) * values);
      float *y8 = malloc(sizeof(float) * values), *y32 = malloc(sizeof(float) * values);
      if (!taps || !raw || !x || !y8 || !y32) return;
      ts_fill_uniform(&rng, taps, 2 * m);
      for (size_t i = 0; i < values; i++) {
        raw[i] = (unsigned char)ts_range(&rng, 0, 255);
        x[i] = (float)((int)raw[i] - 128) / 128.0f;
      }
      /* Real taps on 2 complex channels: a filter each (taps and taps + m). */
      const int nf = e == 1 && ch == 2 ? 2 : 1;
      convoy_filter *f[2] = {NULL, NULL};
      for (int i = 0; i < nf; i++) {
        if (e >= 2)
          f[i] = complex_filter(taps, m);
        else
          TS_CHECK_OK(convoy_filter_create(&f[i], taps + i * m, m));
      }
      convoy_cuda_config cfg;
      convoy_cuda_config_init(&cfg);
      cfg.channels = ch;
      cfg.sample = CONVOY_SAMPLE_CF32;
      cfg.engine = e == 0 || e == 3 ? CONVOY_ENGINE_GPU_DIRECT : CONVOY_ENGINE_GPU_FFT;
      cfg.max_frames = frames;
      convoy_cuda_conv *cc = NULL;
      TS_CHECK_OK(convoy_cuda_conv_create(&cc, &cfg, f, nf));
      void *d_raw = NULL;
      float *d_x = NULL, *d_y = NULL;
      int ok =
          cc && cuda_ok(cudaMalloc(&d_raw, values), "cudaMalloc") &&
          cuda_ok(cudaMalloc((void **)&d_x, sizeof(float) * values), "cudaMalloc") &&
          cuda_ok(cudaMalloc((void **)&d_y, sizeof(float) * values), "cudaMalloc") &&
          cuda_ok(cudaMemcpy(d_raw, raw, values, cudaMemcpyHostToDevice), "copy in") &&
          cuda_ok(cudaMemcpy(d_x, x, sizeof(float) * values, cudaMemcpyHostToDevice), "copy in");
      const int64_t g = cc ? convoy_cuda_conv_granule(cc) : 1;
      for (int pass = 0; ok && pass < 2; pass++) {
        TS_CHECK_OK(convoy_cuda_conv_reset(cc, NULL));
        int64_t at = 0;
        while (ok && at < frames) {
          int64_t n = pass == 0 ? frames : g * ts_log_range(&rng, 1, 30000 / g + 1);
          if (n > frames - at) n = frames - at;
          const convoy_status st =
              pass == 0 ? convoy_cuda_conv_process(cc, CONVOY_FORMAT_U8, d_raw, d_y, n, NULL)
                        : convoy_cuda_conv_process(cc, CONVOY_FORMAT_F32, d_x + at * 2 * ch,
                                                   d_y + at * 2 * ch, n, NULL);
          TS_CHECK(st == CONVOY_OK, "process: %s", convoy_cuda_conv_last_error(cc));
          ok = st == CONVOY_OK;
          at += n;
        }
        ok = ok && cuda_ok(cudaMemcpy(pass ? y32 : y8, d_y, sizeof(float) * values,
                                      cudaMemcpyDeviceToHost),
                           "copy out");
      }
      /* A real filter on 1 or 2 complex channels: the FFT engine's
       * complex kernel, which must still give the real filter's outputs;
       * on 3 or 4, real rows. Complex filters on their frames too: every
       * channel against the reference. */
      if (ok && e == 1) {
        char line[512];
        convoy_cuda_conv_describe(cc, line, sizeof line);
        const bool complex_kernel = strstr(line, "complex fused") && strstr(line, "real taps");
        TS_CHECK(complex_kernel == (ch <= 2), "a real filter on %d complex channels: '%s'", (int)ch,
                 line);
      }
      for (int32_t c = 0; ok && (e == 1 || e == 2) && c < ch; c++) {
        double num = 0, den = 0;
        frames_error(y32, x, frames, ch, c, taps + (nf == 2 ? c * m : 0), e == 2, m, &num, &den);
        TS_CHECK(sqrt(num / den) < 1e-5, "%lld %s taps, complex channel %d of %d: rel L2 %.3g",
                 (long long)m, e == 2 ? "complex" : "real", (int)c, (int)ch, sqrt(num / den));
      }
      if (ok) {
        int64_t differ = 0;
        for (size_t i = 0; i < values; i++) differ += memcmp(&y8[i], &y32[i], sizeof(float)) != 0;
        TS_CHECK(differ == 0,
                 "%s, %lld %s taps, %d complex channels: %lld of %zu float32 outputs differ from "
                 "the uint8 input's",
                 convoy_engine_name(cfg.engine), (long long)m, e >= 2 ? "complex" : "real", (int)ch,
                 (long long)differ, values);
      }
      cudaFree(d_raw);
      cudaFree(d_x);
      cudaFree(d_y);
      convoy_cuda_conv_destroy(cc);
      convoy_filter_destroy(f[0]);
      convoy_filter_destroy(f[1]);
      free(taps);
      free(raw);
      free(x);
      free(y8);
      free(y32);
    }
  }
}

/* ------------------------------------------------------------- streams */

/* A complex stream on each GPU engine: reference per channel over the whole
 * output, and two chunkings bitwise equal. */
static void test_stream(void) {
  const int32_t ch = 2;
  for (int e = 0; e < 2; e++) {
    const int64_t m = e == 0 ? 24 : 5000, frames = 300007;
    float *taps = malloc(sizeof(float) * (size_t)(2 * m));
    float *x = malloc(sizeof(float) * (size_t)(frames * 2 * ch));
    if (!taps || !x) return;
    ts_fill_uniform(&rng, taps, 2 * m);
    ts_fill_uniform(&rng, x, frames * 2 * ch);
    convoy_filter *f = complex_filter(taps, m);
    convoy_stream_config cfg;
    convoy_stream_config_init(&cfg);
    cfg.channels = ch;
    cfg.sample = CONVOY_SAMPLE_CF32;
    cfg.engine = e == 0 ? CONVOY_ENGINE_GPU_DIRECT : CONVOY_ENGINE_GPU_FFT;
    cfg.chunk_frames = 50000;
    convoy_stream *s = NULL;
    convoy_status st = f ? convoy_stream_create(&s, &cfg, &f, 1) : CONVOY_ERR_INVALID_ARGUMENT;
    TS_CHECK(st == CONVOY_OK, "complex %s stream: %s (%s)", convoy_engine_name(cfg.engine),
             convoy_strerror(st), convoy_last_error());
    if (s) {
      int64_t n1 = 0, n2 = 0;
      float *y1 = ts_stream_run_values(s, x, frames, 2 * ch, 0, &rng, &n1);
      TS_CHECK_OK(convoy_stream_reset(s));
      float *y2 = ts_stream_run_values(s, x, frames, 2 * ch, 70000, &rng, &n2);
      TS_CHECK(y1 && y2 && n1 == frames + m - 1 && n2 == n1, "stream output %lld / %lld frames",
               (long long)n1, (long long)n2);
      if (y1 && y2 && n1 == n2)
        TS_CHECK(memcmp(y1, y2, sizeof(float) * (size_t)(n1 * 2 * ch)) == 0,
                 "complex %s stream: chunked input differs from one call",
                 convoy_engine_name(cfg.engine));
      if (y1 && n1 == frames + m - 1) {
        double num = 0, den = 0;
        for (int64_t k = 0; k < n1; k += 13) {
          for (int32_t c = 0; c < ch; c++) {
            double sr = 0, si = 0;
            for (int64_t j = 0; j < m; j++) {
              if (k - j < 0) break;
              if (k - j >= frames) continue;
              const double hr = taps[2 * j], hi = taps[2 * j + 1];
              const double xr = x[(k - j) * 2 * ch + 2 * c], xi = x[(k - j) * 2 * ch + 2 * c + 1];
              sr += hr * xr - hi * xi;
              si += hr * xi + hi * xr;
            }
            const double dr = y1[k * 2 * ch + 2 * c] - sr, di = y1[k * 2 * ch + 2 * c + 1] - si;
            num += dr * dr + di * di;
            den += sr * sr + si * si;
          }
        }
        TS_CHECK(sqrt(num / den) < 1e-5, "complex %s stream: rel L2 error %.3g",
                 convoy_engine_name(cfg.engine), sqrt(num / den));
      }
      free(y1);
      free(y2);
    }
    convoy_stream_destroy(s);
    convoy_filter_destroy(f);
    free(taps);
    free(x);
  }
}

static void test_config_errors(void) {
  float t[2] = {1, 0};
  const float *rows[3] = {t, t, t};
  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.channels = 3;
  cfg.taps_len = 1;
  cfg.taps = rows;
  cfg.max_out = 16;
  cfg.complex_taps = 1;
  gpu_conv *g = NULL;
  char err[256] = "";
  TS_CHECK(gpu_conv_create(&cfg, &g, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT && !g,
           "odd row count with complex taps is refused");
  TS_CHECK(strstr(err, "odd") != NULL, "message names the problem: %s", err);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_gpu_complex"));
  if (convoy_gpu_count() == 0) {
    printf("test_gpu_complex: no usable GPU (%s): skipped\n", convoy_last_error());
    return TS_SKIP;
  }
  test_config_errors();
  test_direct_registers();
  test_direct_long();
  test_fft();
  test_fft_huge();
  test_integer_input();
  test_device_api();
  test_frames_in_place();
  test_real_filter_long();
  test_stream();
  return ts_finish();
}

#endif
