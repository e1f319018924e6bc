/*
 * test_gpu_decimate.c - decimation on the GPU at the output rate: the
 * strided direct kernels (gpu_conv_run_strided) and decimating GPU streams.
 *
 * Kernels, on device buffers, real and complex taps, 1 .. 4100 taps (across
 * the 1024 and 2048-tap sum blocks), steps 2, 3, 4, 8, 13, 64 and 4096, 1 ..
 * 3 channels with distinct or shared filters, odd strides, a misaligned
 * input, every first phase 0 .. step - 1, partial last tiles and, past 64
 * taps at steps 64 and 4096, tap blocks staged in several passes: each strided
 * output within float accuracy of the full-rate kernel's output at first + f
 * step and of a double-precision sum, bitwise the same from a run starting
 * later (another tiling and phase), nothing written past count; argument
 * errors; the FFT engine refuses strided runs.
 *
 * Streams (gpu-direct, D in {2, 3, 4, 8, 13, 64}, real taps on real and on
 * complex streams, complex taps, shift with decimation): against a double
 * evaluation of convoy.h's definition and against cpu-direct; bitwise equal
 * over one call and random chunkings (chunks of 3000 frames on the GPU, so
 * every decimation phase starts a chunk); within float accuracy of the
 * full-rate gpu-direct stream's every D-th frame (same shift); gpu-fft decimating
 * against the reference too; describe() says which way each decimates; S16 and U8 output bitwise
 * the documented quantization of the float output and chunk-invariant; one long case
 * (CONVOY_TEST_QUICK shrinks it). Skips (77) without a GPU; the kernels'
 * speed is measured by bench/gpu_strided_bench.c.
 */
#include "test_support.h"
#include "ts_decimation.h"

#ifndef CONVOY_HAVE_CUDA

int main(void) {
  printf("test_gpu_decimate: built without CUDA: skipped\n");
  return TS_SKIP;
}

#else

#include "gpu_conv.h"
#include "gpu_conv_fft_path.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xFF /* every float made of it is a NaN */
#define TOLERANCE 1e-5

static ts_rng rng;
static int quick;

static const int64_t steps[] = {2, 3, 4, 8, 13, 64, 4096};
#define N_STEPS ((int)(sizeof steps / sizeof steps[0]))
static const int32_t factors[] = {2, 3, 4, 8, 13, 64};
#define N_FACTORS ((int)(sizeof factors / sizeof factors[0]))

static int cuda_ok(cudaError_t e, const char *what) {
  TS_CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

/* ============================================================ kernels */

/* One strided problem: units channels (complex: row pairs), history + inputs
 * per row, the full-rate outputs and the strided ones. */
typedef struct kcase {
  int cx;
  int32_t units, rows;
  int64_t taps, step, first, count, n_full, n_in, in_stride, out_stride, in_offset;
  float *taps_buf; /* [rows] x taps (complex: (re, im) row pairs) */
  const float **taps_of;
  float *in;
} kcase;

/* The double-precision output k of row r (complex: re or im of its pair). */
/* Output k of row `row` in double; *magnitude = the sum of the products'
 * magnitudes, the scale of float rounding in any order of summation (a
 * few outputs that cancel to near zero would make a relative error over
 * them alone meaningless). */
static double kref(const kcase *t, int32_t row, int64_t k, double *magnitude) {
  const int32_t u = t->cx ? row / 2 : row;
  const float *x = t->in + (int64_t)(t->cx ? 2 * u : u) * t->in_stride;
  double s = 0.0, m = 0.0;
  for (int64_t j = 0; j < t->taps; j++) {
    const int64_t at = k + t->taps - 1 - j;
    if (!t->cx) {
      const double v = (double)t->taps_of[row][j] * x[at];
      s += v;
      m += fabs(v);
    } else {
      const double hr = t->taps_of[2 * u][j], hi = t->taps_of[2 * u + 1][j];
      const double xr = x[at], xi = x[t->in_stride + at];
      const double a = row % 2 == 0 ? hr * xr : hr * xi, b = row % 2 == 0 ? -hi * xi : hi * xr;
      s += a + b;
      m += fabs(a) + fabs(b);
    }
  }
  *magnitude = m;
  return s;
}

static void kernel_case(int cx, int64_t taps, int64_t step, int64_t count, int shared) {
  kcase t;
  memset(&t, 0, sizeof t);
  t.cx = cx;
  t.units = (int32_t)ts_range(&rng, 1, 3);
  t.rows = cx ? 2 * t.units : t.units;
  t.taps = taps;
  t.step = step;
  t.count = count;
  t.first = ts_range(&rng, 0, step - 1);
  t.n_full = t.first + (count - 1) * step + 1 + ts_range(&rng, 0, 3);
  t.n_in = t.n_full + taps - 1;
  t.in_stride = t.n_in + ts_range(&rng, 0, 5);
  t.out_stride = count + ts_range(&rng, 1, 5);
  t.in_offset = ts_range(&rng, 0, 3);
  t.taps_buf = malloc(sizeof(float) * (size_t)(t.rows * taps));
  t.taps_of = malloc(sizeof(float *) * (size_t)t.rows);
  t.in = malloc(sizeof(float) * (size_t)(t.rows * t.in_stride));
  const size_t full_floats = (size_t)(t.rows * t.n_full);
  const size_t out_floats = (size_t)(t.rows * t.out_stride);
  float *full = malloc(sizeof(float) * full_floats);
  float *out = malloc(sizeof(float) * out_floats);
  float *d_in = NULL, *d_full = NULL, *d_out = NULL;
  gpu_conv *g = NULL;
  char err[256] = "";
  int ok = t.taps_buf && t.taps_of && t.in && full && out;
  TS_CHECK(ok, "out of host memory");
  if (!ok) goto done;
  ts_fill_uniform(&rng, t.taps_buf, t.rows * taps);
  ts_fill_uniform(&rng, t.in, t.rows * t.in_stride);
  for (int32_t r = 0; r < t.rows; r++) {
    /* Shared: every channel (pair) uses filter 0's rows. */
    const int32_t src = shared ? (cx ? r % 2 : 0) : r;
    t.taps_of[r] = t.taps_buf + src * taps;
  }

  ok = cuda_ok(
           cudaMalloc((void **)&d_in, sizeof(float) * (size_t)(t.in_offset + t.rows * t.in_stride)),
           "cudaMalloc") &&
       cuda_ok(cudaMalloc((void **)&d_full, sizeof(float) * full_floats), "cudaMalloc") &&
       cuda_ok(cudaMalloc((void **)&d_out, sizeof(float) * out_floats), "cudaMalloc") &&
       cuda_ok(cudaMemcpy(d_in + t.in_offset, t.in, sizeof(float) * (size_t)(t.rows * t.in_stride),
                          cudaMemcpyHostToDevice),
               "copy in") &&
       cuda_ok(cudaMemset(d_out, POISON_BYTE, sizeof(float) * out_floats), "poison");
  if (!ok) goto done;

  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.channels = t.rows;
  cfg.taps_len = taps;
  cfg.taps = t.taps_of;
  cfg.max_out = t.n_full;
  cfg.kind = GPU_CONV_DIRECT;
  cfg.complex_taps = cx;
  cfg.decimation = step;
  convoy_status st = gpu_conv_create(&cfg, &g, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "gpu_conv_create: %s", err);
  if (st != CONVOY_OK) goto done;
  TS_CHECK(gpu_conv_strided(g) == 1, "the direct engine offers strided runs");
  st = gpu_conv_run(g, 0, d_in + t.in_offset, t.in_stride, d_full, t.n_full, t.n_full, NULL, err,
                    sizeof err);
  TS_CHECK(st == CONVOY_OK, "gpu_conv_run: %s", err);
  st = gpu_conv_run_strided(g, 0, d_in + t.in_offset, t.in_stride, t.first, step, d_out,
                            t.out_stride, count, NULL, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "gpu_conv_run_strided: %s", err);
  ok = cuda_ok(cudaDeviceSynchronize(), "strided run") &&
       cuda_ok(cudaMemcpy(full, d_full, sizeof(float) * full_floats, cudaMemcpyDeviceToHost),
               "copy out") &&
       cuda_ok(cudaMemcpy(out, d_out, sizeof(float) * out_floats, cudaMemcpyDeviceToHost),
               "copy out");
  if (!ok || st != CONVOY_OK) goto done;

  /* The same outputs from a run starting k outputs later: a different
   * tiling and first phase must not change a bit. */
  const int64_t k = count > 1 ? ts_range(&rng, 1, count - 1) : 0;
  const int64_t count2 = count - k;
  float *out2 = malloc(sizeof(float) * (size_t)(t.rows * (count2 > 0 ? count2 : 1)));
  ok = out2 != NULL;
  if (ok && count2 > 0) {
    st = gpu_conv_run_strided(g, 0, d_in + t.in_offset, t.in_stride, t.first + k * step, step,
                              d_full, count2, count2, NULL, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "gpu_conv_run_strided (later start): %s", err);
    ok = st == CONVOY_OK &&
         cuda_ok(cudaMemcpy(out2, d_full, sizeof(float) * (size_t)(t.rows * count2),
                            cudaMemcpyDeviceToHost),
                 "copy out");
  }
  int64_t moved = 0;
  for (int32_t r = 0; ok && r < t.rows; r++)
    for (int64_t f = 0; f < count2; f++)
      moved += memcmp(out2 + r * count2 + f, out + r * t.out_stride + f + k, sizeof(float)) != 0;
  TS_CHECK(ok && moved == 0,
           "%s taps %lld step %lld: %lld outputs change when the run starts %lld outputs later",
           cx ? "complex" : "real", (long long)taps, (long long)step, (long long)moved,
           (long long)k);
  free(out2);

  int64_t guard_hits = 0;
  double num = 0.0, den = 0.0, fnum = 0.0, fden = 0.0, mden = 0.0;
  const int with_ref = (double)count * (double)taps <= (quick ? 2e5 : 4e6);
  for (int32_t r = 0; r < t.rows; r++) {
    for (int64_t f = 0; f < count; f++) {
      const float y = out[r * t.out_stride + f];
      const float want = full[r * t.n_full + t.first + f * step];
      fnum += ((double)y - want) * ((double)y - want);
      fden += (double)want * want;
      if (with_ref) {
        double m = 0.0;
        const double e = kref(&t, r, t.first + f * step, &m);
        num += (y - e) * (y - e);
        den += e * e;
        mden += m * m;
      }
    }
    for (int64_t f = count; f < t.out_stride; f++) {
      uint32_t bits;
      memcpy(&bits, out + r * t.out_stride + f, sizeof bits);
      guard_hits += bits != 0xFFFFFFFFu;
    }
  }
  /* With the reference, errors are relative to the products' size (a few
   * outputs can cancel to near 0); else to the outputs' (many of them). */
  if (with_ref) den = fden = mden;
  const double frel = fden > 0.0 ? sqrt(fnum / fden) : sqrt(fnum);
  TS_CHECK(frel < TOLERANCE,
           "%s taps %lld step %lld first %lld count %lld rows %d: error %.3g against the "
           "full-rate kernel",
           cx ? "complex" : "real", (long long)taps, (long long)step, (long long)t.first,
           (long long)count, (int)t.rows, frel);
  TS_CHECK(guard_hits == 0, "taps %lld step %lld: %lld floats written past count", (long long)taps,
           (long long)step, (long long)guard_hits);
  if (with_ref) {
    const double rel = den > 0.0 ? sqrt(num / den) : sqrt(num);
    TS_CHECK(rel < TOLERANCE, "%s taps %lld step %lld: error %.3g against double",
             cx ? "complex" : "real", (long long)taps, (long long)step, rel);
  }

done:
  gpu_conv_destroy(g);
  cudaFree(d_in);
  cudaFree(d_full);
  cudaFree(d_out);
  free(t.taps_buf);
  free(t.taps_of);
  free(t.in);
  free(full);
  free(out);
}

static void test_kernels(void) {
  static const int64_t taps_set[] = {1,  2,   3,   7,    16,   31,   32,   33,   64,
                                     65, 100, 257, 1023, 1024, 1025, 2047, 2048, 2049};
  const int n_taps = (int)(sizeof taps_set / sizeof taps_set[0]);
  for (int cx = 0; cx <= 1; cx++)
    for (int i = 0; i < n_taps; i++)
      for (int s = 0; s < N_STEPS; s++) {
        if (quick && steps[s] == 4096 && taps_set[i] > 64) continue;
        /* Inputs stay near 2^20 frames per row at large steps. */
        const int64_t most = ((int64_t)1 << 20) / steps[s] + 1;
        const int64_t count = ts_log_range(&rng, 1, most < 5000 ? most : quick ? 600 : 5000);
        kernel_case(cx, taps_set[i], steps[s], count, ts_uniform(&rng) < 0.3);
      }
  /* Past two sum blocks, and tiles exactly full then one output over. */
  kernel_case(0, 4100, 3, 3000, 0);
  kernel_case(1, 2100, 8, 2000, 0);
  kernel_case(0, 16, 2, 2048, 0);
  kernel_case(0, 16, 2, 2049, 1);
  kernel_case(1, 16, 13, 297, 0);
}

static void test_kernel_errors(void) {
  float h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const float *rows[1] = {h};
  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.taps_len = 8;
  cfg.taps = rows;
  cfg.max_out = 100;
  cfg.kind = GPU_CONV_DIRECT;
  char err[256];
  gpu_conv *g = NULL;
  float *d = NULL;
  if (!cuda_ok(cudaMalloc((void **)&d, sizeof(float) * 1024), "cudaMalloc")) return;
  cfg.decimation = GPU_CONV_MAX_STEP + 1;
  TS_CHECK(gpu_conv_create(&cfg, &g, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "decimation above the limit accepted");
  cfg.decimation = 4;
  TS_CHECK_OK(gpu_conv_create(&cfg, &g, err, sizeof err));
  if (g) {
    /* Last output 10 + 30 x 3 = 100 is not below max_out. */
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, 10, 3, d + 512, 40, 31, NULL, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "a strided run past max_out accepted");
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, 10, 3, d + 512, 40, 30, NULL, err, sizeof err) ==
                 CONVOY_OK,
             "the last strided run inside max_out refused: %s", err);
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, 0, 0, d + 512, 40, 1, NULL, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "step 0 accepted");
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, -1, 2, d + 512, 40, 1, NULL, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "first -1 accepted");
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, 0, 2, d + 4, 40, 10, NULL, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "overlapping input and output accepted");
    TS_CHECK(gpu_conv_run_strided(g, 0, NULL, 0, 0, 2, NULL, 0, 0, NULL, err, sizeof err) ==
                 CONVOY_OK,
             "count 0 refused");
    TS_CHECK(cuda_ok(cudaDeviceSynchronize(), "sync"), "strided runs");
  }
  gpu_conv_destroy(g);
  g = NULL;
  cfg.kind = GPU_CONV_FFT;
  TS_CHECK_OK(gpu_conv_create(&cfg, &g, err, sizeof err));
  if (g) {
    TS_CHECK(gpu_conv_strided(g) == 0, "the FFT engine claims strided runs");
    TS_CHECK(gpu_conv_run_strided(g, 0, d, 200, 0, 2, d + 512, 40, 10, NULL, err, sizeof err) ==
                 CONVOY_ERR_UNSUPPORTED,
             "the FFT engine accepted a strided run");
  }
  gpu_conv_destroy(g);
  cudaFree(d);
}

/* ============================================================ streams */

/* A stream case: channels (complex or real), real or complex taps (one
 * filter for all channels), interleaved input. */
typedef struct scase {
  int is_complex, cplx_taps;
  int32_t channels, values;
  int64_t frames, len;
  float *taps; /* len (complex: 2 x len interleaved) */
  convoy_filter *filter;
  float *x; /* frames x values */
} scase;

static void scase_make(scase *t, int is_complex, int cplx_taps, int32_t channels, int64_t frames,
                       int64_t len, float scale) {
  memset(t, 0, sizeof *t);
  t->is_complex = is_complex;
  t->cplx_taps = cplx_taps;
  t->channels = channels;
  t->values = is_complex ? 2 * channels : channels;
  t->frames = frames;
  t->len = len;
  const int64_t nt = len * (cplx_taps ? 2 : 1);
  t->taps = malloc(sizeof(float) * (size_t)nt);
  t->x = malloc(sizeof(float) * (size_t)(frames * t->values));
  ts_fill_uniform(&rng, t->taps, nt);
  ts_fill_uniform(&rng, t->x, frames * t->values);
  for (int64_t i = 0; i < frames * t->values; i++) t->x[i] *= scale;
  TS_CHECK_OK(convoy_filter_create_typed(
      &t->filter, cplx_taps ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, t->taps, len));
}

static void scase_free(scase *t) {
  convoy_filter_destroy(t->filter);
  free(t->taps);
  free(t->x);
  memset(t, 0, sizeof *t);
}

static int64_t out_count(const scase *t, int64_t d) {
  return ts_decimated_frames(t->frames, t->len, d);
}

static convoy_status open_stream(const scase *t, convoy_engine e, int32_t d, double f,
                                 convoy_sample_format fmt, int64_t chunk, convoy_stream **s) {
  convoy_stream_config cfg;
  ts_decimating_config(&cfg, e, t->channels, t->is_complex, d, f);
  cfg.output_format = fmt;
  cfg.chunk_frames = chunk;
  return convoy_stream_create(s, &cfg, &t->filter, 1);
}

/* The whole float output of a fresh stream fed in chunks of up to
 * chunk_max frames (<= 0: one call); NULL after a failure. */
static float *run_float(const scase *t, convoy_engine e, int32_t d, double f, int64_t gpu_chunk,
                        int64_t chunk_max, int64_t *frames) {
  convoy_stream *s = NULL;
  convoy_status st = open_stream(t, e, d, f, CONVOY_FORMAT_F32, gpu_chunk, &s);
  TS_CHECK(st == CONVOY_OK, "create %s D %d f %g: %s", convoy_engine_name(e), (int)d, f,
           convoy_last_error());
  if (st != CONVOY_OK) return NULL;
  float *out = ts_stream_run_values(s, t->x, t->frames, t->values, chunk_max, &rng, frames);
  convoy_stream_destroy(s);
  TS_CHECK(!out || *frames == out_count(t, d), "%s D %d: %lld frames, want %lld",
           convoy_engine_name(e), (int)d, (long long)*frames, (long long)out_count(t, d));
  return out;
}

/* Relative L2 error of every channel of out (count frames) against the
 * definition, on at most `probe` outputs spread over the signal. For an FFT
 * engine (fft set), whose rounding follows the energy of a whole segment
 * rather than that of each output, the denominator is at least what the
 * probed outputs hold on average (sum |h|^2 times the mean square input
 * value each): a short run whose few kept outputs happen to be small (7
 * taps at D 64 on a few dozen frames keep h[0] x[0] alone) is held to the
 * engine's accuracy, not to a relative error no FFT gives on one small
 * value. */
static double ref_error(const scase *t, const float *out, int64_t count, int32_t d, double f,
                        int64_t probe, int fft) {
  double num = 0.0, den = 0.0;
  const int64_t stride = count > probe ? count / probe : 1;
  const ts_signal sig = {t->x, t->frames, t->channels, t->is_complex};
  const ts_taps h = {t->taps, t->len, t->cplx_taps};
  for (int32_t c = 0; c < t->channels; c++)
    ts_decimated_error_sums(sig, c, h, d, f, out, count, stride, &num, &den);
  if (fft) {
    double taps_energy = 0.0, input_energy = 0.0;
    for (int64_t i = 0; i < t->len * (t->cplx_taps ? 2 : 1); i++)
      taps_energy += (double)t->taps[i] * t->taps[i];
    for (int64_t i = 0; i < t->frames * t->values; i++) input_energy += (double)t->x[i] * t->x[i];
    const int64_t probed = (count + stride - 1) / stride * t->values;
    const double typical =
        (double)probed * taps_energy * input_energy / (double)(t->frames * t->values);
    if (den < typical) den = typical;
  }
  return ts_ratio_l2(num, den);
}

/* Relative L2 difference of out (frames x values of the decimated stream)
 * from every d-th frame of the full-rate stream's output; 1 when the
 * full-rate output is too short. */
static double picked_diff(const scase *t, const float *out, int64_t frames, const float *full,
                          int64_t full_frames, int32_t d) {
  double num = 0.0, den = 0.0;
  for (int64_t n = 0; n < frames; n++) {
    if (n * d >= full_frames) return 1.0;
    for (int32_t v = 0; v < t->values; v++) {
      const double a = out[n * t->values + v], b = full[n * d * t->values + v];
      num += (a - b) * (a - b);
      den += b * b;
    }
  }
  return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

static void stream_case(int is_complex, int cplx_taps, double shift, int32_t d, int64_t len) {
  scase t;
  const int32_t channels = (int32_t)ts_range(&rng, 1, 2);
  const int64_t frames = ts_log_range(&rng, 1, quick ? 20000 : 120000);
  scase_make(&t, is_complex, cplx_taps, channels, frames, len, 1.0f);
  const char *kind =
      is_complex ? (cplx_taps ? "complex taps" : "real taps, complex stream") : "real stream";
  int64_t n1 = 0, n2 = 0, nf = 0, nc = 0, nfft = 0;
  float *one = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, d, shift, 3000, 0, &n1);
  float *cut =
      run_float(&t, CONVOY_ENGINE_GPU_DIRECT, d, shift, 3000, ts_range(&rng, 1, 5000), &n2);
  float *full = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, 1, shift, 0, 0, &nf);
  float *cpu = run_float(&t, CONVOY_ENGINE_CPU_DIRECT, d, shift, 0, 0, &nc);
  float *fft = run_float(&t, CONVOY_ENGINE_GPU_FFT, d, shift, 0, 0, &nfft);
  if (one && cut && n1 == n2)
    TS_CHECK(memcmp(one, cut, sizeof(float) * (size_t)(n1 * t.values)) == 0,
             "%s D %d taps %lld shift %g: random chunks change the bits", kind, (int)d,
             (long long)len, shift);
  if (one && full) {
    const double e = picked_diff(&t, one, n1, full, nf, d);
    TS_CHECK(e < TOLERANCE,
             "%s D %d taps %lld shift %g: error %.3g against the full-rate stream's every "
             "D-th frame",
             kind, (int)d, (long long)len, shift, e);
  }
  if (one) {
    const double e = ref_error(&t, one, n1, d, shift, 1000, 0);
    TS_CHECK(e < TOLERANCE, "%s D %d taps %lld shift %g: gpu-direct error %.3g", kind, (int)d,
             (long long)len, shift, e);
  }
  if (one && cpu && nc == n1) {
    const double e = ts_rel_diff_channel(one, cpu, 1, 0, n1 * t.values);
    TS_CHECK(e < TOLERANCE, "%s D %d taps %lld shift %g: %.3g from cpu-direct", kind, (int)d,
             (long long)len, shift, e);
  }
  if (fft) {
    const double e = ref_error(&t, fft, nfft, d, shift, 1000, 1);
    TS_CHECK(e < TOLERANCE, "%s D %d taps %lld shift %g: gpu-fft error %.3g", kind, (int)d,
             (long long)len, shift, e);
  }
  free(one);
  free(cut);
  free(full);
  free(cpu);
  free(fft);
  scase_free(&t);
}

static void test_streams(void) {
  for (int i = 0; i < N_FACTORS; i++) {
    const int32_t d = factors[i];
    /* Real stream; complex stream with real taps; complex taps; complex
     * taps shifted; real taps shifted (the frequency-translating filter,
     * whose taps the shift makes complex). Odd lengths on real streams. */
    for (int kind = 0; kind < 5; kind++) {
      const int64_t len = kind == 0 ? ts_log_range(&rng, 1, 1024) | 1 : ts_log_range(&rng, 1, 1024);
      const int is_complex = kind >= 1, cplx_taps = kind == 2 || kind == 3;
      const double shift = kind >= 3 ? (ts_uniform(&rng) - 0.5) * 0.9 : 0.0;
      stream_case(is_complex, cplx_taps, shift, d, len);
    }
  }
  /* The tap counts where the kernels change: registers, sum blocks. */
  stream_case(1, 1, 0.1, 8, 33);
  stream_case(1, 0, -0.3, 3, 1024);
  stream_case(0, 0, 0.0, 13, 65);
}

/* The stream says which way it decimates: gpu-direct computes only the kept
 * outputs, gpu-fft every output. */
static void test_describe(void) {
  scase t;
  scase_make(&t, 1, 1, 1, 100, 33, 1.0f);
  static const convoy_engine engines[] = {CONVOY_ENGINE_GPU_DIRECT, CONVOY_ENGINE_GPU_FFT};
  static const char *const want[] = {"kept outputs only", "all outputs, then picked"};
  for (int i = 0; i < 2; i++) {
    convoy_stream *s = NULL;
    char line[1024] = "";
    TS_CHECK_OK(open_stream(&t, engines[i], 4, 0.1, CONVOY_FORMAT_F32, 0, &s));
    if (s) TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
    TS_CHECK(strstr(line, want[i]) != NULL, "%s: describe '%s' lacks '%s'",
             convoy_engine_name(engines[i]), line, want[i]);
    convoy_stream_destroy(s);
  }
  scase_free(&t);
}

/* ------------------------------------------------------------ integer output */

/* The stream's integer output for the whole input, cut in chunks of up to
 * chunk_max frames (<= 0: one call); NULL after a failure. */
static void *run_integer(const scase *t, int32_t d, double f, convoy_sample_format fmt,
                         int64_t chunk_max, int64_t *frames) {
  convoy_stream *s = NULL;
  convoy_status st = open_stream(t, CONVOY_ENGINE_GPU_DIRECT, d, f, fmt, 3000, &s);
  TS_CHECK(st == CONVOY_OK, "create integer D %d: %s", (int)d, convoy_last_error());
  if (st != CONVOY_OK) return NULL;
  const size_t w = convoy_sample_format_bytes(fmt) * (size_t)t->values;
  const int64_t cap = out_count(t, d) + 1;
  unsigned char *out = malloc(w * (size_t)cap);
  int64_t done = 0, pos = 0;
  while (out && st == CONVOY_OK && pos < t->frames) {
    int64_t n = chunk_max > 0 ? ts_range(&rng, 1, chunk_max) : t->frames;
    if (n > t->frames - pos) n = t->frames - pos;
    int64_t got = 0;
    st = convoy_stream_process_to(s, CONVOY_FORMAT_F32, t->x + pos * t->values, n,
                                  out + (size_t)done * w, cap - done, &got);
    done += got;
    pos += n;
  }
  int64_t got = 0;
  if (out && st == CONVOY_OK)
    st = convoy_stream_flush_to(s, out + (size_t)done * w, cap - done, &got);
  done += got;
  TS_CHECK(st == CONVOY_OK, "integer stream: %s", convoy_stream_last_error(s));
  convoy_stream_destroy(s);
  if (st != CONVOY_OK) {
    free(out);
    return NULL;
  }
  *frames = done;
  return out;
}

static void test_integer(void) {
  static const convoy_sample_format fmts[] = {CONVOY_FORMAT_S16, CONVOY_FORMAT_U8};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++) {
      const convoy_sample_format fmt = fmts[i];
      const int32_t d = k ? 13 : 8;
      const double shift = k ? 0.0 : 0.21;
      scase t;
      /* Loud enough that some outputs clip. */
      scase_make(&t, 1, k == 0, 2, ts_log_range(&rng, 1000, quick ? 20000 : 100000),
                 ts_range(&rng, 50, 200), 0.3f);
      int64_t nf = 0, n1 = 0, n2 = 0;
      float *ref = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, d, shift, 3000, 0, &nf);
      void *one = run_integer(&t, d, shift, fmt, 0, &n1);
      void *cut = run_integer(&t, d, shift, fmt, ts_range(&rng, 1, 4000), &n2);
      if (one && cut) {
        const size_t w = convoy_sample_format_bytes(fmt) * (size_t)t.values;
        TS_CHECK(n1 == n2 && memcmp(one, cut, w * (size_t)n1) == 0,
                 "%s D %d: integer output changes with the chunking",
                 fmt == CONVOY_FORMAT_S16 ? "S16" : "U8", (int)d);
      }
      if (one && ref && nf == n1) {
        int64_t bad = 0, clipped = 0;
        const int bits = fmt == CONVOY_FORMAT_S16 ? 16 : 8;
        for (int64_t s = 0; s < n1 * t.values; s++) {
          bad += ts_code_at(one, fmt, s) != ts_quantize(ref[s], bits, &clipped);
        }
        TS_CHECK(bad == 0, "%s D %d: %lld codes differ from quantizing the float output",
                 fmt == CONVOY_FORMAT_S16 ? "S16" : "U8", (int)d, (long long)bad);
        TS_CHECK(clipped > 0, "no output clipped: saturation untested");
      } else {
        TS_CHECK(nf == n1, "integer stream wrote %lld frames, float %lld", (long long)n1,
                 (long long)nf);
      }
      free(ref);
      free(one);
      free(cut);
      scase_free(&t);
    }
}

/* ------------------------------------------------------------ folded FFT */

/* gpu-fft with complex taps (or a shift) on the cuFFT path, forced or at a
 * natural size, folds its inverse transform for a power-of-two D: against
 * the definition and cpu-direct, bitwise over process() chunkings, and
 * describe() says so. */
static void folded_case(int cplx_taps, double shift, int32_t d, int64_t len, int forced) {
  scase t;
  const int32_t channels = (int32_t)ts_range(&rng, 1, 2);
  const int64_t frames = ts_log_range(&rng, len, quick ? 20000 : 100000);
  scase_make(&t, 1, cplx_taps, channels, frames, len, 1.0f);
  if (forced) gpu_conv_fft_override(GPU_CONV_FFT_PLAIN, 0);
  convoy_stream *s = NULL;
  char line[1024] = "";
  TS_CHECK_OK(open_stream(&t, CONVOY_ENGINE_GPU_FFT, d, shift, CONVOY_FORMAT_F32, 3000, &s));
  if (s) TS_CHECK_OK(convoy_stream_describe(s, line, sizeof line));
  convoy_stream_destroy(s);
  TS_CHECK(strstr(line, "inverse folded by") != NULL && strstr(line, "kept outputs only"),
           "D %d taps %lld: describe '%s' does not say the inverse is folded", (int)d,
           (long long)len, line);
  int64_t n1 = 0, n2 = 0, nc = 0;
  float *one = run_float(&t, CONVOY_ENGINE_GPU_FFT, d, shift, 3000, 0, &n1);
  float *cut = run_float(&t, CONVOY_ENGINE_GPU_FFT, d, shift, 3000, ts_range(&rng, 1, 7000), &n2);
  gpu_conv_fft_override(GPU_CONV_FFT_CHOOSE, 0);
  float *cpu = run_float(&t, CONVOY_ENGINE_CPU_DIRECT, d, shift, 0, 0, &nc);
  const size_t bytes = sizeof(float) * (size_t)(n1 * t.values);
  if (one && cut)
    TS_CHECK(n1 == n2 && !memcmp(one, cut, bytes),
             "folded D %d taps %lld: chunking changes the bits", (int)d, (long long)len);
  if (one) {
    const double e = ref_error(&t, one, n1, d, shift, 1000, 0);
    TS_CHECK(e < TOLERANCE, "folded D %d taps %lld shift %g: error %.3g", (int)d, (long long)len,
             shift, e);
  }
  if (one && cpu && nc == n1) {
    const double e = ts_rel_diff_channel(one, cpu, 1, 0, n1 * t.values);
    TS_CHECK(e < TOLERANCE, "folded D %d taps %lld: %.3g from cpu-direct", (int)d, (long long)len,
             e);
  }
  free(one);
  free(cut);
  free(cpu);
  scase_free(&t);
}

static void test_folded(void) {
  static const int32_t ds[] = {2, 4, 8, 16, 64};
  for (int i = 0; i < 5; i++) {
    folded_case(1, 0.0, ds[i], ts_range(&rng, 1, 700), 1);
    folded_case(0, 0.2, ds[i], ts_range(&rng, 1, 700), 1);
  }
  /* past the fused complex kernels' 2^14 points: the cuFFT path unforced */
  folded_case(1, -0.1, 8, 17000 + ts_range(&rng, 0, 3000), 0);
}

/* ------------------------------------------------------------ long */

static void test_long(void) {
  scase t;
  const int64_t frames = quick ? ((int64_t)1 << 18) : ((int64_t)1 << 24);
  scase_make(&t, 1, 1, 1, frames, 128, 1.0f);
  int64_t n1 = 0, n2 = 0, nf = 0;
  float *one = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, 8, 0.125, 0, 0, &n1);
  float *cut = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, 8, 0.125, 0, (int64_t)1 << 20, &n2);
  float *full = run_float(&t, CONVOY_ENGINE_GPU_DIRECT, 1, 0.125, 0, 0, &nf);
  if (one && cut)
    TS_CHECK(n1 == n2 && memcmp(one, cut, sizeof(float) * (size_t)(n1 * t.values)) == 0,
             "long: random chunks change the bits");
  if (one && full)
    TS_CHECK(picked_diff(&t, one, n1, full, nf, 8) < TOLERANCE,
             "long: differs from the full-rate stream's every 8th frame");
  if (one) {
    const double e = ref_error(&t, one, n1, 8, 0.125, 3000, 0);
    TS_CHECK(e < TOLERANCE, "long: error %.3g", e);
  }
  free(one);
  free(cut);
  free(full);
  scase_free(&t);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_gpu_decimate"));
  quick = ts_quick();
  if (convoy_gpu_count() < 1) {
    printf("test_gpu_decimate: no usable GPU (%s): skipped\n", convoy_last_error());
    return TS_SKIP;
  }
  test_kernel_errors();
  test_kernels();
  test_streams();
  test_describe();
  test_integer();
  test_folded();
  test_long();
  return ts_finish();
}

#endif
