/*
 * test_gpu_kernels.c - the device-resident convolution kernels (cuda/conv/gpu_conv.h)
 * against a double-precision reference, on device buffers.
 *
 * Checks: every register-tap kernel (1..64 taps) and the shared-memory-taps
 * kernel, bitwise equal to each other; the FFT engine up to 2^20 taps; several
 * channels with distinct, shared and equal taps; odd strides and misaligned
 * channel starts; nothing written outside the outputs; splitting a run into
 * calls at granule multiples (on one lane or two lanes on two streams) gives
 * bitwise the one-call output; the FFT kernels' rows at every 4-byte
 * alignment bitwise the aligned run; argument errors. Skips (77) without a GPU.
 */
#include "test_support.h"

#ifndef CONVOY_HAVE_CUDA

int main(void) {
  printf("test_gpu_kernels: built without CUDA: skipped\n");
  return TS_SKIP;
}

#else

#include "gpu_conv.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xFF /* every float made of it is a NaN */

static ts_rng rng;

/* A problem on the host and on the device: channels of history + n_out
 * inputs at d_in + in_offset + c * in_stride; outputs at d_out + c * out_stride. */
typedef struct tcase {
  int32_t channels;
  int64_t taps, n_out, n_in, in_stride, out_stride, in_offset;
  float **taps_of; /* [channels] pointers into taps_buf (may repeat) */
  float *taps_buf; /* distinct filters */
  float *in;       /* host, channels * in_stride */
  double *ref;     /* [channels][n_in + taps - 1] full convolution */
  float *d_in, *d_out;
  size_t out_floats; /* d_out size, guard included */
} tcase;

enum taps_mode { TAPS_DISTINCT, TAPS_SHARED, TAPS_EQUAL };

static int cuda_ok(cudaError_t e, const char *what) {
  TS_CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

static void case_free(tcase *t) {
  free(t->taps_of);
  free(t->taps_buf);
  free(t->in);
  free(t->ref);
  cudaFree(t->d_in);
  cudaFree(t->d_out);
  memset(t, 0, sizeof *t);
}

static int case_make(tcase *t, int32_t channels, int64_t taps, int64_t n_out, int mode,
                     int odd_layout) {
  memset(t, 0, sizeof *t);
  t->channels = channels;
  t->taps = taps;
  t->n_out = n_out;
  t->n_in = n_out + taps - 1;
  t->in_stride = t->n_in + (odd_layout ? ts_range(&rng, 1, 7) : 0);
  t->out_stride = n_out + (odd_layout ? ts_range(&rng, 1, 5) : 3);
  t->in_offset = odd_layout ? ts_range(&rng, 1, 3) : 0;
  int32_t distinct = mode == TAPS_DISTINCT ? channels : 1;
  t->taps_of = malloc(sizeof(float *) * (size_t)channels);
  t->taps_buf = malloc(sizeof(float) * (size_t)(taps * (mode == TAPS_EQUAL ? channels : distinct)));
  t->in = malloc(sizeof(float) * (size_t)(t->in_stride * channels));
  t->ref = malloc(sizeof(double) * (size_t)((t->n_in + taps - 1) * channels));
  if (!t->taps_of || !t->taps_buf || !t->in || !t->ref) {
    TS_CHECK(0, "out of host memory for %lld taps x %lld outputs", (long long)taps,
             (long long)n_out);
    case_free(t);
    return 0;
  }
  ts_fill_uniform(&rng, t->taps_buf, taps * distinct);
  for (int32_t c = 0; c < channels; c++) {
    if (mode == TAPS_EQUAL) { /* same values, different memory */
      t->taps_of[c] = t->taps_buf + taps * c;
      if (c > 0) memcpy(t->taps_of[c], t->taps_buf, sizeof(float) * (size_t)taps);
    } else {
      t->taps_of[c] = t->taps_buf + (mode == TAPS_DISTINCT ? taps * c : 0);
    }
  }
  ts_fill_uniform(&rng, t->in, t->in_stride * channels);
  for (int32_t c = 0; c < channels; c++)
    ts_reference_conv(t->in + c * t->in_stride, t->n_in, t->taps_of[c], taps,
                      t->ref + c * (t->n_in + taps - 1));

  size_t in_floats = (size_t)(t->in_offset + t->in_stride * channels);
  t->out_floats = (size_t)(t->out_stride * channels + 64);
  if (!cuda_ok(cudaMalloc((void **)&t->d_in, in_floats * sizeof(float)), "cudaMalloc in") ||
      !cuda_ok(cudaMalloc((void **)&t->d_out, t->out_floats * sizeof(float)), "cudaMalloc out") ||
      !cuda_ok(cudaMemcpy(t->d_in + t->in_offset, t->in,
                          sizeof(float) * (size_t)(t->in_stride * channels),
                          cudaMemcpyHostToDevice),
               "copy in") ||
      !cuda_ok(cudaDeviceSynchronize(), "copy in")) {
    case_free(t);
    return 0;
  }
  return 1;
}

static void config_for(const tcase *t, gpu_conv_kind kind, gpu_conv_config *cfg) {
  gpu_conv_config_init(cfg);
  cfg->channels = t->channels;
  cfg->taps_len = t->taps;
  cfg->taps = (const float *const *)t->taps_of;
  cfg->max_out = t->n_out;
  cfg->kind = kind;
}

/* Runs n_out as calls of the given sizes (NULL: one call), alternating
 * lanes/streams when lanes is 2, and returns the whole output buffer
 * (malloc'd) or NULL after a failure. */
static float *run_split(const tcase *t, gpu_conv *g, const int64_t *sizes, int n_sizes, int lanes) {
  cudaStream_t s[2] = {NULL, NULL};
  float *host = malloc(t->out_floats * sizeof(float));
  int ok = host != NULL;
  ok = ok && cuda_ok(cudaMemset(t->d_out, POISON_BYTE, t->out_floats * sizeof(float)), "poison");
  ok = ok && cuda_ok(cudaDeviceSynchronize(), "poison"); /* the streams do not wait for it */
  for (int i = 0; ok && i < lanes; i++)
    ok = cuda_ok(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking), "stream");
  int64_t one[1] = {t->n_out};
  if (!sizes) {
    sizes = one;
    n_sizes = 1;
  }
  int64_t pos = 0;
  for (int i = 0; ok && i < n_sizes; i++) {
    char err[256] = "";
    int lane = i % lanes;
    convoy_status st =
        gpu_conv_run(g, lane, t->d_in + t->in_offset + pos, t->in_stride, t->d_out + pos,
                     t->out_stride, sizes[i], s[lane], err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "run %d of %d (%lld outputs at %lld): %s", i, n_sizes,
             (long long)sizes[i], (long long)pos, err);
    ok = st == CONVOY_OK;
    pos += sizes[i];
  }
  for (int i = 0; i < lanes; i++)
    if (s[i]) ok = cuda_ok(cudaStreamSynchronize(s[i]), "synchronize") && ok;
  ok = ok &&
       cuda_ok(cudaMemcpy(host, t->d_out, t->out_floats * sizeof(float), cudaMemcpyDeviceToHost),
               "copy out");
  for (int i = 0; i < lanes; i++)
    if (s[i]) cudaStreamDestroy(s[i]);
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

/* Reference error and untouched gaps between/after the channels. */
static void check_output(const tcase *t, const float *out, const char *label) {
  double worst = 0.0;
  for (int32_t c = 0; c < t->channels; c++) {
    double e = ts_rel_l2(out + c * t->out_stride, 1,
                         t->ref + c * (t->n_in + t->taps - 1) + (t->taps - 1), t->n_out);
    if (!(e <= worst)) worst = e;
  }
  TS_CHECK(worst < 1e-5, "%s: %lld taps, %d ch, %lld outputs: rel L2 error %.3g", label,
           (long long)t->taps, (int)t->channels, (long long)t->n_out, worst);
  int64_t stray = 0;
  for (int32_t c = 0; c < t->channels; c++)
    for (int64_t k = t->n_out; k < t->out_stride; k++)
      stray += !is_poison(out[c * t->out_stride + k]);
  for (size_t k = (size_t)(t->out_stride * t->channels); k < t->out_floats; k++)
    stray += !is_poison(out[k]);
  TS_CHECK(stray == 0, "%s: %lld floats written outside the outputs", label, (long long)stray);
}

static int same_outputs(const tcase *t, const float *a, const float *b) {
  for (int32_t c = 0; c < t->channels; c++)
    if (memcmp(a + c * t->out_stride, b + c * t->out_stride, sizeof(float) * (size_t)t->n_out))
      return 0;
  return 1;
}

static gpu_conv *create(const gpu_conv_config *cfg, const char *label) {
  gpu_conv *g = NULL;
  char err[256] = "";
  convoy_status st = gpu_conv_create(cfg, &g, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: create (%lld taps, %d ch): %s: %s", label,
           (long long)cfg->taps_len, (int)cfg->channels, convoy_strerror(st), err);
  return g;
}

/* Random call sizes that are multiples of granule (the last one takes the
 * rest); returns their count. */
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

/* One engine on one case: reference, bounds, and (split) chunk invariance. */
static float *check_engine(const tcase *t, const gpu_conv_config *cfg, const char *label,
                           int split) {
  gpu_conv *g = create(cfg, label);
  if (!g) return NULL;
  float *whole = run_split(t, g, NULL, 0, 1);
  if (whole) check_output(t, whole, label);
  if (whole && split) {
    int64_t sizes[16];
    int n = random_split(t->n_out, gpu_conv_granule(g), sizes, 16);
    float *parts = run_split(t, g, sizes, n, cfg->lanes > 1 ? 2 : 1);
    if (parts) {
      check_output(t, parts, label);
      TS_CHECK(same_outputs(t, whole, parts),
               "%s: %lld taps: %d calls (granule %lld, %d lanes) differ from one call", label,
               (long long)t->taps, n, (long long)gpu_conv_granule(g), cfg->lanes > 1 ? 2 : 1);
    }
    free(parts);
  }
  gpu_conv_destroy(g);
  return whole;
}

/* Every register-tap kernel, checked against the shared-memory kernel too. */
static void test_register_counts(void) {
  for (int64_t m = 1; m <= 64; m++) {
    tcase t;
    int64_t n_out = ts_log_range(&rng, 16, ts_quick() ? 3000 : 40000);
    /* every row on one filter (its taps in the launch's parameters) at
     * odd tap counts, distinct filters (taps in registers) at even ones */
    if (!case_make(&t, (int32_t)(1 + m % 3), m, n_out, m % 2 ? TAPS_SHARED : TAPS_DISTINCT,
                   m % 2 == 0))
      return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_DIRECT, &cfg);
    float *reg = check_engine(&t, &cfg, "direct registers", m % 8 == 0);
    cfg.direct_reg_taps = 1;
    float *in_regs = check_engine(&t, &cfg, "direct taps in registers", m % 8 == 1);
    if (reg && in_regs)
      TS_CHECK(same_outputs(&t, reg, in_regs),
               "%lld taps: taps in registers and in the parameters differ", (long long)m);
    free(in_regs);
    cfg.direct_reg_taps = 0;
    /* up to 32 taps the register kernel reads its windows straight or
     * from a staged tile (one of them the default), with the same bits */
    for (int input = 1; input <= 2 && m <= 32; input++) {
      cfg.direct_input = input;
      float *other = check_engine(
          &t, &cfg, input == 1 ? "direct staged inputs" : "direct windows read straight",
          m % 8 == input);
      if (reg && other)
        TS_CHECK(same_outputs(&t, reg, other), "%lld taps, inputs %s: bits differ from the default",
                 (long long)m, input == 1 ? "staged" : "read straight");
      free(other);
    }
    if (m > 32) {
      cfg.direct_input = 2;
      gpu_conv *none = NULL;
      char err[256] = "";
      TS_CHECK(gpu_conv_create(&cfg, &none, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT &&
                   !none,
               "%lld taps: a straight-window kernel past 32 taps (%s)", (long long)m, err);
      gpu_conv_destroy(none);
    }
    cfg.direct_input = 0;
    cfg.direct_shared_taps = 1;
    float *sm = check_engine(&t, &cfg, "direct shared taps", 0);
    if (reg && sm)
      TS_CHECK(same_outputs(&t, reg, sm), "%lld taps: register and shared-memory kernels differ",
               (long long)m);
    free(reg);
    free(sm);
    config_for(&t, GPU_CONV_FFT, &cfg);
    free(check_engine(&t, &cfg, "fft", m % 16 == 1));
    case_free(&t);
  }
}

/* The benchmark's variants of the 16- and 64-tap kernels give the
 * default's bits. */
static void test_direct_variants(void) {
  for (int64_t m = 16; m <= 64; m *= 4) {
    tcase t;
    if (!case_make(&t, 3, m, ts_log_range(&rng, 5000, 70000), TAPS_DISTINCT, 1)) return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_DIRECT, &cfg);
    float *base = check_engine(&t, &cfg, "direct default", 0);
    const int outputs[3] = {4, 8, 16};
    for (int i = 0; i < 3 && base; i++) {
      for (int store = 1; store <= (m == 16 ? 2 : 1); store++) {
        cfg.direct_outputs = outputs[i];
        cfg.direct_store = store;
        float *v = check_engine(&t, &cfg, "direct variant", 0);
        if (v)
          TS_CHECK(same_outputs(&t, base, v),
                   "%lld taps, %d outputs/thread, store mode %d: bits differ", (long long)m,
                   outputs[i], store);
        free(v);
      }
    }
    free(base);
    case_free(&t);
  }
}

/* g's interleaved runs on t's samples as frames at `offset` floats past a
 * 16-byte boundary, in one call and in two (cut at a multiple of g's granule
 * other than 0), bitwise against `planar` (t's planar run on g), with
 * nothing written past the frames; and an output over its own input
 * refused. */
static void check_interleaved(const tcase *t, gpu_conv *g, const float *planar, int64_t offset,
                              const char *label) {
  const int32_t ch = t->channels;
  const int64_t n_out = t->n_out, granule = gpu_conv_granule(g);
  const size_t in_floats = (size_t)(t->n_in * ch), out_floats = (size_t)(n_out * ch);
  float *h_in = malloc(sizeof(float) * in_floats);
  float *h_out = malloc(sizeof(float) * (out_floats + 64));
  float *d_in = NULL, *d_out = NULL;
  int ok = h_in && h_out &&
           cuda_ok(cudaMalloc((void **)&d_in, sizeof(float) * (in_floats + 4)), "cudaMalloc") &&
           cuda_ok(cudaMalloc((void **)&d_out, sizeof(float) * (out_floats + 64)), "cudaMalloc");
  for (int64_t k = 0; ok && k < t->n_in; k++)
    for (int32_t c = 0; c < ch; c++) h_in[k * ch + c] = t->in[c * t->in_stride + k];
  ok = ok &&
       cuda_ok(cudaMemcpy(d_in + offset, h_in, sizeof(float) * in_floats, cudaMemcpyHostToDevice),
               "copy in");
  char err[256] = "";
  for (int cut = 0; ok && cut < 2; cut++) {
    /* Two calls: the first k outputs, then the rest from frame k on. */
    const int64_t k = cut ? granule * ts_range(&rng, 0, n_out / granule) : n_out;
    convoy_status st =
        cuda_ok(cudaMemset(d_out, POISON_BYTE, sizeof(float) * (out_floats + 64)), "memset")
            ? gpu_conv_run_interleaved(g, 0, d_in + offset, d_out, k, NULL, err, sizeof err)
            : CONVOY_ERR_BACKEND;
    if (st == CONVOY_OK && k < n_out)
      st = gpu_conv_run_interleaved(g, 0, d_in + offset + k * ch, d_out + k * ch, n_out - k, NULL,
                                    err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "%s, %lld taps, %d ch: interleaved run: %s", label,
             (long long)t->taps, (int)ch, err);
    ok = st == CONVOY_OK && cuda_ok(cudaMemcpy(h_out, d_out, sizeof(float) * (out_floats + 64),
                                               cudaMemcpyDeviceToHost),
                                    "copy out");
    int64_t differ = 0, stray = 0;
    for (int64_t f = 0; ok && f < n_out; f++)
      for (int32_t c = 0; c < ch; c++)
        differ += memcmp(&h_out[f * ch + c], &planar[c * t->out_stride + f], sizeof(float)) != 0;
    for (size_t i = out_floats; ok && i < out_floats + 64; i++) stray += !is_poison(h_out[i]);
    TS_CHECK(differ == 0 && stray == 0,
             "%s, %lld taps, %d ch, %lld outputs at offset %lld (cut at %lld): %lld outputs "
             "differ from the planar run, %lld floats written past them",
             label, (long long)t->taps, (int)ch, (long long)n_out, (long long)offset, (long long)k,
             (long long)differ, (long long)stray);
  }
  if (ok && n_out >= 2) { /* the output may not overlap the input */
    /* n_out - 1 outputs read n_out + taps - 2 frames: one frame on, the
     * output overlaps them unless that is a single frame */
    float *over = n_out + t->taps > 3 ? d_in + ch : d_in;
    TS_CHECK(gpu_conv_run_interleaved(g, 0, d_in, over, n_out - 1, NULL, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "%s: interleaved run over its own input accepted (%lld outputs, %lld taps)", label,
             (long long)(n_out - 1), (long long)t->taps);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  free(h_in);
  free(h_out);
}

/* One handle of kind on t: whether it offers an interleaved run (expect),
 * and where it does, check_interleaved. */
static void interleaved_case(tcase *t, gpu_conv_config *cfg, int expect, int64_t offset,
                             const char *label) {
  gpu_conv *g = create(cfg, label);
  float *planar = g ? run_split(t, g, NULL, 0, 1) : NULL;
  TS_CHECK(!g || gpu_conv_interleaved(g) == expect,
           "%s, %lld taps, %d channels: interleaved run %s", label, (long long)t->taps,
           (int)t->channels, expect ? "missing" : "offered");
  char err[256] = "";
  if (g && !expect)
    TS_CHECK(gpu_conv_run_interleaved(g, 0, t->d_in, t->d_out, 1, NULL, err, sizeof err) ==
                 CONVOY_ERR_UNSUPPORTED,
             "%s: an interleaved run without the kernel", label);
  if (g && planar && expect) check_interleaved(t, g, planar, offset, label);
  free(planar);
  gpu_conv_destroy(g);
}

/* Whether the device runs thread block clusters (compute capability 9.0
 * on) and the build has device code for them. */
static int clusters_expected(void) {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
    return 0;
  return CONVOY_CLUSTER_CODE && major >= 9;
}

/* The interleaved kernels. The direct engine's: for every tap count they
 * serve, and one past, on 1 to 8 channels, from odd offsets. The fused FFT
 * kernel's: 2 and 4 channels at every fused size, 8 at 1024 points and,
 * where clusters run, 2048, 4096 and 8192 (not on 1 or 3 channels or the
 * four-step sizes), several rows a block or one, a cluster of blocks a
 * segment, the frames 16-, 8- and 4-byte aligned; the complex direct
 * kernel's on one complex channel, and the complex fused kernel's on 1, 2
 * and 4. */
static void test_interleaved(void) {
  const int32_t channel_counts[5] = {1, 2, 3, 4, 8};
  for (int64_t m = 1; m <= 33; m++) {
    const int32_t ch = channel_counts[m % 5];
    tcase t;
    if (!case_make(&t, ch, m, ts_log_range(&rng, 1, ts_quick() ? 3000 : 30000), TAPS_DISTINCT, 0))
      return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_DIRECT, &cfg);
    interleaved_case(&t, &cfg, (ch == 2 || ch == 4 || ch == 8) && m <= 32, m % 4, "direct");
    case_free(&t);
  }
  for (int log2n = 10; log2n <= 16; log2n++) {
    for (int i = 0; i < 5; i++) {
      const int32_t ch = channel_counts[(log2n + i) % 5];
      const int64_t n = (int64_t)1 << log2n;
      const int64_t taps = ts_range(&rng, 1, n / 2 + 1);
      const int64_t n_out = ts_log_range(&rng, 1, ts_quick() ? 3 * n : 12 * n);
      tcase t;
      if (!case_make(&t, ch, taps, n_out, i % 2 ? TAPS_DISTINCT : TAPS_SHARED, 0)) return;
      gpu_conv_config cfg;
      config_for(&t, GPU_CONV_FFT, &cfg);
      cfg.fft_size = n;
      /* 2^16 takes the four-step kernels */
      const int rows_kernel =
          ch == 2 || ch == 4 || (ch == 8 && (log2n == 10 || (log2n <= 13 && clusters_expected())));
      interleaved_case(&t, &cfg, rows_kernel && log2n <= 15, i % 4, "fft");
      case_free(&t);
    }
  }
  /* 4- and 8-row frames where a cluster shares them (4 rows at N 4096
   * and 8192, 8 at 2048 to 8192): every alignment, and launches split into
   * batches; no 8-row run past them. */
  for (int log2n = 11; log2n <= 14; log2n++) {
    for (int k = 0; k < 8; k++) {
      const int64_t n = (int64_t)1 << log2n;
      const int32_t rows = k < 4 ? 8 : 4;
      const int offset = k % 4;
      if (rows == 4 && (log2n < 12 || log2n > 13)) continue;
      tcase t;
      if (!case_make(&t, rows, ts_range(&rng, 1, n / 2 + 1),
                     ts_log_range(&rng, 1, ts_quick() ? 2 * n : 6 * n),
                     offset % 2 ? TAPS_DISTINCT : TAPS_SHARED, 0))
        return;
      gpu_conv_config cfg;
      config_for(&t, GPU_CONV_FFT, &cfg);
      cfg.fft_size = n;
      /* Launches of 5 segments' worth of blocks, cut to whole clusters. */
      if (offset == 3) cfg.fft_batch_bytes = 5 * (n + 2) * (int64_t)sizeof(float);
      interleaved_case(&t, &cfg, rows == 4 || (log2n <= 13 && clusters_expected()), offset,
                       rows == 8 ? "fft 8 rows" : "fft 4 rows");
      case_free(&t);
    }
  }
  /* Complex taps on the direct engine: one complex channel's (re, im)
   * frames in registers up to 32 taps, one filter or two, from odd
   * offsets; not two channels, not past 32 taps. */
  for (int64_t m = 1; m <= 33; m++) {
    const int32_t rows = m % 3 ? 2 : 4;
    tcase t;
    if (!case_make(&t, rows, m, ts_log_range(&rng, 1, ts_quick() ? 6000 : 30000),
                   m % 2 ? TAPS_SHARED : TAPS_DISTINCT, 0))
      return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_DIRECT, &cfg);
    cfg.complex_taps = 1;
    interleaved_case(&t, &cfg, rows == 2 && m <= 32, m % 4, "direct complex taps");
    case_free(&t);
  }
  /* Complex taps: frames of 1, 2 and 4 complex channels, (re, im) each, at
   * the fused sizes (complex points 2^9 .. 2^14), also in launches cut into
   * batches of a few segments; not 3 channels, not the cuFFT sizes. */
  for (int log2n = 9; log2n <= 15; log2n++) {
    for (int rows = 2; rows <= 8; rows += 2) {
      const int64_t n = (int64_t)1 << log2n;
      const int64_t taps = ts_range(&rng, 1, n - 3);
      tcase t;
      if (!case_make(&t, rows, taps, ts_log_range(&rng, 1, ts_quick() ? 3 * n : 12 * n),
                     rows % 4 ? TAPS_DISTINCT : TAPS_SHARED, 0))
        return;
      gpu_conv_config cfg;
      config_for(&t, GPU_CONV_FFT, &cfg);
      cfg.complex_taps = 1;
      cfg.fft_size = n;
      if ((log2n + rows) % 3 == 0) cfg.fft_batch_bytes = 5 * 2 * n * (int64_t)sizeof(float);
      interleaved_case(&t, &cfg, rows != 6 && log2n <= 14, (log2n + rows) % 4, "fft complex taps");
      case_free(&t);
    }
  }
}

/* A handle told that its caller runs interleaved frames (interleaved_runs)
 * chooses a size that has the kernel on frames: by timing on 2, 4 and 8
 * channels, where the timing skips sizes that would pass the frames
 * through conversion kernels; by the model on 2 and 4, which have the
 * kernel at every fused size. Frames checked as in test_interleaved. */
static void test_frames_plans(void) {
  const int32_t channel_counts[3] = {2, 4, 8};
  for (int i = 0; i < (ts_quick() ? 3 : 6); i++) {
    const int32_t ch = channel_counts[i % 3];
    const int effort = i < 3 ? 1 : 0;
    if (ch == 8 && effort == 0) continue;
    /* 8 rows: N = 1024 only where clusters do not run */
    const int64_t most = ch == 8 && !clusters_expected() ? 1021 : 3000;
    tcase t;
    if (!case_make(&t, ch, ts_log_range(&rng, 300, most), ts_log_range(&rng, 1, 20000), TAPS_SHARED,
                   0))
      return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_FFT, &cfg);
    cfg.interleaved_runs = 1;
    cfg.plan_effort = effort;
    interleaved_case(&t, &cfg, 1, i % 4, effort ? "fft, frames timed" : "fft, frames by model");
    case_free(&t);
  }
}

/* The sizes a caller's fft_size becomes: the next power of two, at least
 * taps + 3 and 64; none above 2^26. */
static void test_size_rounding(void) {
  const int64_t cases[][3] = {
      /* taps, fft_size, size */
      {1, 0, 64},
      {1, 64, 64},
      {1, 65, 128},
      {1000, 0, 1024},
      {1022, 1024, 2048},
      {5000, 5000, 8192},
      {1, 1 << 26, 1 << 26},
      {1, (1 << 26) + 1, 0},
      {(1 << 26) - 2, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t got = gpu_conv_fft_size_at_least(cases[i][0], cases[i][1]);
    TS_CHECK(got == cases[i][2], "%lld taps, fft_size %lld: %lld, want %lld",
             (long long)cases[i][0], (long long)cases[i][1], (long long)got,
             (long long)cases[i][2]);
  }
}

/* Longer filters, both engines, chunk invariance on some. */
static void test_long_filters(void) {
  const int64_t taps[] = {65, 100, 127, 128, 1000, 1024, 2047, 2048, 2049, 4097, 65536, 1 << 20};
  const int n_taps = (int)(sizeof taps / sizeof taps[0]);
  /* Direct work (taps x outputs) per case stays bounded. */
  const double budget = ts_quick() ? 1 << 26 : 1ll << 33;
  for (int i = 0; i < n_taps; i++) {
    int64_t m = taps[i];
    int64_t n_out = ts_log_range(&rng, 16, ts_quick() ? 20000 : 1 << 20);
    int64_t cap = (int64_t)(budget / (double)m);
    if (n_out > cap) n_out = cap > 16 ? cap : 16;
    if (i % 4 == 2) n_out = ts_range(&rng, 8, 40); /* taps longer than the signal */
    int32_t ch = (int32_t)ts_range(&rng, 1, m >= 65536 ? 2 : 3);
    tcase t;
    if (!case_make(&t, ch, m, n_out, i % 2 ? TAPS_DISTINCT : TAPS_SHARED, i % 2)) return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_DIRECT, &cfg);
    /* Under the sanitizers (quick) the direct kernel's 2^20 taps take too long. */
    if (!ts_quick() || m <= 65536) free(check_engine(&t, &cfg, "direct shared taps", i % 4 == 0));
    config_for(&t, GPU_CONV_FFT, &cfg);
    free(check_engine(&t, &cfg, "fft", 1));
    case_free(&t);
  }
}

/* One channel's run with its input `in_at` and its output `out_at` floats
 * past 16-byte aligned buffers (output guarded by poison on both sides);
 * returns the n_out outputs (malloc'd), or NULL after a failure. */
static float *run_at(const tcase *t, gpu_conv *g, int in_at, int out_at, const char *label) {
  const size_t guard = 64, out_floats = (size_t)t->n_out + 2 * guard;
  float *d_in = NULL, *d_out = NULL, *host = malloc(out_floats * sizeof(float));
  char err[256] = "";
  int ok = host && cuda_ok(cudaMalloc((void **)&d_in, sizeof(float) * (size_t)(t->n_in + 4)),
                           "cudaMalloc in");
  ok = ok && cuda_ok(cudaMalloc((void **)&d_out, out_floats * sizeof(float)), "cudaMalloc out");
  ok = ok && cuda_ok(cudaMemcpy(d_in + in_at, t->in, sizeof(float) * (size_t)t->n_in,
                                cudaMemcpyHostToDevice),
                     "copy in");
  ok = ok && cuda_ok(cudaMemset(d_out, POISON_BYTE, out_floats * sizeof(float)), "poison");
  if (ok) {
    const convoy_status st = gpu_conv_run(g, 0, d_in + in_at, t->n_in, d_out + guard + out_at,
                                          t->n_out, t->n_out, NULL, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "%s: run at %d, %d: %s", label, in_at, out_at, err);
    ok = st == CONVOY_OK;
  }
  ok = ok && cuda_ok(cudaMemcpy(host, d_out, out_floats * sizeof(float), cudaMemcpyDeviceToHost),
                     "copy out");
  cudaFree(d_in);
  cudaFree(d_out);
  if (!ok) {
    free(host);
    return NULL;
  }
  int64_t stray = 0;
  for (size_t k = 0; k < out_floats; k++)
    if (k < guard + (size_t)out_at || k >= guard + (size_t)out_at + (size_t)t->n_out)
      stray += !is_poison(host[k]);
  TS_CHECK(stray == 0, "%s: input at %d, output at %d: %lld floats written outside the outputs",
           label, in_at, out_at, (long long)stray);
  memmove(host, host + guard + out_at, sizeof(float) * (size_t)t->n_out);
  return host;
}

/* The FFT kernels on a planar row read and written at every 4-byte
 * alignment (8-byte accesses where the row allows them, single floats
 * where not), as the device API reads a caller's rows in place: bitwise
 * the aligned run, nothing written outside, at sizes from one warp a
 * segment (N = 1024, 16 points a thread) up, odd and even histories, on
 * the fused and the four-step kernels. */
static void test_alignments(void) {
  /* taps, FFT size (0: the engine's choice) */
  const int64_t cases[][2] = {{300, 1024},  {1024, 0},      {1025, 0},     {1000, 2048},
                              {2049, 8192}, {10001, 65536}, {10000, 65536}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tcase t;
    const int64_t n_out = ts_log_range(&rng, 3000, ts_quick() ? 60000 : 300000);
    if (!case_make(&t, 1, cases[i][0], n_out, TAPS_SHARED, 0)) return;
    gpu_conv_config cfg;
    config_for(&t, GPU_CONV_FFT, &cfg);
    cfg.fft_size = cases[i][1];
    char label[64];
    snprintf(label, sizeof label, "fft %lld taps, N %lld", (long long)cases[i][0],
             (long long)cases[i][1]);
    gpu_conv *g = create(&cfg, label);
    float *aligned = g ? run_at(&t, g, 0, 0, label) : NULL;
    if (aligned) {
      const double e =
          ts_rel_l2(aligned, 1, t.ref + (t.taps - 1), t.n_out); /* one channel: ref row 0 */
      TS_CHECK(e < 1e-5, "%s: rel L2 error %.3g", label, e);
    }
    for (int in_at = 0; aligned && in_at < 4; in_at++)
      for (int out_at = 0; out_at < 4; out_at++) {
        if (in_at == 0 && out_at == 0) continue;
        float *got = run_at(&t, g, in_at, out_at, label);
        if (got)
          TS_CHECK(memcmp(got, aligned, sizeof(float) * (size_t)t.n_out) == 0,
                   "%s, %lld outputs: input at %d, output at %d differ from the aligned run", label,
                   (long long)t.n_out, in_at, out_at);
        free(got);
      }
    free(aligned);
    gpu_conv_destroy(g);
    case_free(&t);
  }
}

/* Eight channels, distinct and equal filters, odd layouts. */
static void test_channels(void) {
  const int64_t taps[] = {16, 300, 1024};
  for (int i = 0; i < 3; i++) {
    for (int mode = TAPS_DISTINCT; mode <= TAPS_EQUAL; mode++) {
      tcase t;
      int64_t n_out = ts_log_range(&rng, 1000, ts_quick() ? 8000 : 200000);
      if (!case_make(&t, 8, taps[i], n_out, mode, 1)) return;
      gpu_conv_config cfg;
      config_for(&t, GPU_CONV_DIRECT, &cfg);
      free(check_engine(&t, &cfg, "direct 8 channels", 1));
      config_for(&t, GPU_CONV_FFT, &cfg);
      free(check_engine(&t, &cfg, "fft 8 channels", 1));
      case_free(&t);
    }
  }
}

/* FFT batches with few slots: calls span several launches and end in part
 * batches; two lanes on two streams; a size chosen by timing; AUTO. */
static void test_fft_batches_and_lanes(void) {
  tcase t;
  int64_t n_out = ts_quick() ? 30000 : 400000;
  if (!case_make(&t, 3, 1024, n_out, TAPS_DISTINCT, 1)) return;
  gpu_conv_config cfg;
  config_for(&t, GPU_CONV_FFT, &cfg);
  cfg.fft_size = 4096;
  cfg.fft_batch_bytes = 3 * (4096 + 2) * 4; /* three segments per launch */
  free(check_engine(&t, &cfg, "fft small batches", 1));
  cfg.lanes = 2;
  free(check_engine(&t, &cfg, "fft two lanes", 1));

  config_for(&t, GPU_CONV_FFT, &cfg);
  cfg.plan_effort = 1;
  gpu_conv *g = create(&cfg, "fft timed");
  if (g) {
    int64_t n = gpu_conv_fft_size(g);
    TS_CHECK(n >= 1024 + 3 && (n & (n - 1)) == 0, "timed FFT size %lld", (long long)n);
    gpu_conv_destroy(g);
  }
  free(check_engine(&t, &cfg, "fft timed", 1));

  for (int effort = 0; effort <= 1; effort++) {
    config_for(&t, GPU_CONV_AUTO, &cfg);
    cfg.plan_effort = effort;
    g = create(&cfg, "auto");
    if (g) {
      char line[256] = "";
      gpu_conv_describe(g, line, sizeof line);
      printf("auto, 1024 taps, effort %d: %s\n", effort, line);
      TS_CHECK(gpu_conv_kind_of(g) == GPU_CONV_DIRECT || gpu_conv_kind_of(g) == GPU_CONV_FFT,
               "auto resolved to %d", (int)gpu_conv_kind_of(g));
      TS_CHECK(strlen(line) > 10, "describe: '%s'", line);
      gpu_conv_destroy(g);
    }
    free(check_engine(&t, &cfg, "auto", 0));
  }
  case_free(&t);
}

static void expect_status(convoy_status got, convoy_status want, const char *err,
                          const char *what) {
  TS_CHECK(got == want, "%s: got %s, want %s (%s)", what, convoy_strerror(got),
           convoy_strerror(want), err);
  TS_CHECK(got == CONVOY_OK || strlen(err) > 0, "%s: no message", what);
}

static void test_errors(void) {
  float taps[4] = {1, 2, 3, 4};
  const float *tp[1] = {taps};
  gpu_conv_config cfg;
  gpu_conv *g = NULL;
  char err[256];

  gpu_conv_config_init(&cfg);
  cfg.taps = tp;
  cfg.taps_len = 4;
  cfg.max_out = 100;

  gpu_conv_config c = cfg;
  c.channels = 0;
  err[0] = '\0';
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "0 channels");
  TS_CHECK(g == NULL, "handle set after a failed create");
  c = cfg;
  c.taps_len = 0;
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "0 taps");
  c = cfg;
  c.taps = NULL;
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "NULL taps");
  c = cfg;
  c.max_out = 0;
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "max_out 0");
  c = cfg;
  c.kind = GPU_CONV_FFT;
  c.fft_size = 48;
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "FFT size not a power of two");
  c = cfg;
  c.device = 1000;
  expect_status(gpu_conv_create(&c, &g, err, sizeof err), CONVOY_ERR_NO_DEVICE, err, "device 1000");
  expect_status(gpu_conv_create(NULL, &g, err, sizeof err), CONVOY_ERR_INVALID_ARGUMENT, err,
                "NULL config");

  c = cfg;
  c.kind = GPU_CONV_DIRECT;
  g = create(&c, "errors");
  float *d = NULL;
  if (g && cuda_ok(cudaMalloc((void **)&d, sizeof(float) * 1024), "cudaMalloc")) {
    expect_status(gpu_conv_run(g, 0, d, 103, d + 512, 100, 101, NULL, err, sizeof err),
                  CONVOY_ERR_INVALID_ARGUMENT, err, "n_out > max_out");
    expect_status(gpu_conv_run(g, 1, d, 103, d + 512, 100, 100, NULL, err, sizeof err),
                  CONVOY_ERR_INVALID_ARGUMENT, err, "lane 1 of 1");
    expect_status(gpu_conv_run(g, 0, d, 103, d + 50, 100, 100, NULL, err, sizeof err),
                  CONVOY_ERR_INVALID_ARGUMENT, err, "overlapping buffers");
    expect_status(gpu_conv_run(g, 0, NULL, 103, d + 512, 100, 100, NULL, err, sizeof err),
                  CONVOY_ERR_INVALID_ARGUMENT, err, "NULL input");
    err[0] = '\0';
    expect_status(gpu_conv_run(g, 0, NULL, 0, NULL, 0, 0, NULL, err, sizeof err), CONVOY_OK, err,
                  "zero outputs");
    TS_CHECK(cudaGetLastError() == cudaSuccess, "CUDA error left set after argument errors");
  }
  cudaFree(d);
  gpu_conv_destroy(g);
  gpu_conv_destroy(NULL);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_gpu_kernels"));
  test_size_rounding();
  int gpus = convoy_gpu_count();
  if (gpus == 0) {
    printf("test_gpu_kernels: no GPU (%s): skipped\n", convoy_last_error());
    return ts_failures ? ts_finish() : TS_SKIP;
  }
  test_errors();
  test_register_counts();
  test_direct_variants();
  test_interleaved();
  test_frames_plans();
  test_channels();
  test_alignments();
  test_fft_batches_and_lanes();
  test_long_filters();
  return ts_finish();
}

#endif /* CONVOY_HAVE_CUDA */
