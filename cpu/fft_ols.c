/*
 * fft_ols.c - the CPU FFT overlap-save engine (long filters), on FFTW single
 * precision.
 *
 * With FFT size n and taps_len taps, one block takes n input frames (the
 * taps_len - 1 frames of history before it and block = n - taps_len + 1 new
 * ones), transforms them (r2c), multiplies by the filter's spectrum, and
 * transforms back (c2r); the last block frames of the circular convolution
 * are exactly the linear convolution outputs, the first taps_len - 1 are
 * wrapped and dropped. The spectrum, with FFTW's 1/n scale folded in, is
 * computed once per distinct taps array at create.
 *
 * Determinism: a block's result depends only on its n input frames. Every
 * block runs the same two plans on buffers of the same alignment, whatever
 * thread runs it, and the stream cuts runs at whole blocks from the start of
 * the signal, so output is bitwise independent of chunking and thread count.
 *
 * Threads: the (channel, block) pairs of one run are spread over a
 * worker_pool (worker_pool.h; an OpenMP barrier stalls the whole run when the
 * OS deschedules one thread of the team), each thread with its own work
 * buffers made at create and picked by pool_worker_slot(); plans run through
 * FFTW's new-array execute functions, which are thread-safe. Plan creation
 * and destruction hold the FFTW planner lock (fftw_lock.h).
 *
 * Decimation (engine_request.decimation D >= 2, run_decimated): the size
 * is a multiple of D and the block a multiple of D, so every block starts on
 * the decimation grid. The outputs of a block at circular positions
 * s + D m (m < M = n / D) are the size-M inverse transform of the folded
 * spectrum
 *   Z[k] = sum_{j<D} Y[k + j M] e^{2 pi i (k + j M) s / n}
 *        = e^{2 pi i k s / n} sum_{j<D} Y[k + j M] e^{2 pi i j s / D}
 * (Y the block's product spectrum, Y[n - k] = conj(Y[k]) above n / 2); the
 * subsampled signal is real, so Z is Hermitian and one c2r of size M gives
 * it. The filter is stored circularly shifted left by s0 = (taps_len - 1)
 * mod D (its spectrum times e^{2 pi i k s0 / n}), which moves the outputs to
 * start at position skip = taps_len - 1 - s0, a multiple of D: the stream's
 * kept outputs then have s = 0 and the fold is plain sums. Another first
 * index is run at the full rate and picked (the stream never asks for
 * one). The forward transform and the
 * multiply stay at size n; the inverse, the output copy and the stream's
 * interleaving shrink by D.
 *
 * Complex taps (engine_request.complex_taps): a complex channel is a pair of
 * real rows, and so are its taps. A block interleaves the pair's rows into
 * one complex buffer, runs one complex forward transform of size n,
 * multiplies by the complex filter's full spectrum H (n values, computed
 * once at create from taps_re + i taps_im) and runs one complex inverse,
 * whose real and imaginary parts are the two output rows: two complex
 * transforms of size n, which cost about what four real ones of size n do
 * but run faster in FFTW and need one multiply per bin. Decimating, the
 * product spectrum folds to M = n / D bins (z[k] = sum_j Y[k + j M], in
 * place) and the inverse runs at size M. A pair whose imaginary taps are
 * zero (a real filter on a complex stream) is filtered as two real rows.
 * Tasks are (pair, block).
 */
#include "engine.h"
#include "error_internal.h"
#include "fft_size.h"
#include "fftw_lock.h"
#include "worker_pool.h"

#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this much estimated single-thread work per run, threads cost more
 * (fork and join, a few microseconds) than they save; each thread gets at
 * least this much. */
#define PER_THREAD_MIN_NS 25000.0

typedef struct ols_plan {
  int complex_taps;
  int32_t units;  /* channels, or channel pairs with complex_taps */
  int *real_pair; /* [units] complex_taps: 1 when the imaginary taps are zero */
  int32_t channels;
  int64_t taps_len;
  int64_t n;            /* FFT size */
  int64_t block;        /* outputs per block: n - taps_len + 1 */
  int64_t n_bins;       /* n / 2 + 1 */
  int64_t skip;         /* circular position of a block's first output */
  int64_t dec;          /* folding factor D (1: run_decimated runs at the full rate) */
  int64_t m;            /* D > 1: n / D, the size of the folded inverse */
  int64_t m_bins;       /* m / 2 + 1 */
  fftwf_plan inverse_m; /* D > 1: c2r of size m */
  int32_t threads;
  double block_ns; /* model estimate of one block, for the thread count */
  fftwf_plan forward, inverse;
  float *spectra;            /* n_spectra * n_bins interleaved (re, im), scaled by 1/n */
  const float **spectrum_of; /* [channels] -> n_bins complex values */
  float **time;              /* [threads] -> n floats */
  fftwf_complex **freq;      /* [threads] -> n_bins complex values */
  /* complex_taps pairs whose imaginary taps are not all zero */
  fftwf_plan cx_forward, cx_inverse; /* complex, in place, size n */
  fftwf_plan cx_inverse_m;           /* D > 1: complex, in place, size m */
  fftwf_complex **cx;                /* [threads] -> n complex values */
  float *cx_spectra;                 /* distinct complex filters x n values (re, im), / n */
  const float **cx_spectrum_of;      /* [units] -> n complex values; NULL for real pairs */
  fftwf_complex **fold;              /* D > 1: [threads] -> m_bins folded values */
  worker_pool *pool;                 /* NULL with one thread */
  int own_pool;                      /* pool was started here (not the request's) */
} ols_plan;

/* x[j] *= h[j] over n_bins interleaved complex values. Plain multiplies and
 * adds in a fixed order, written on floats so that the compiler vectorises
 * it. */
static void multiply_spectrum(float *restrict x, const float *restrict h, int64_t n_bins) {
  for (int64_t j = 0; j < n_bins; j++) {
    float a = x[2 * j], b = x[2 * j + 1], c = h[2 * j], d = h[2 * j + 1];
    x[2 * j] = a * c - b * d;
    x[2 * j + 1] = a * d + b * c;
  }
}

/* 1 when the n taps are all zero. */
static int all_zero(const float *t, int64_t n) {
  for (int64_t j = 0; j < n; j++)
    if (t[j] != 0.0f) return 0;
  return 1;
}

/* Fraction of the rows of r that belong to complex pairs (0 for real taps). */
static double complex_share(const engine_request *r) {
  if (!r->complex_taps) return 0.0;
  if (!r->taps) return 1.0;
  int32_t pairs = r->channels / 2, complex_pairs = 0;
  for (int32_t c = 0; c < pairs; c++) complex_pairs += !all_zero(r->taps[2 * c + 1], r->taps_len);
  return pairs ? (double)complex_pairs / pairs : 0.0;
}

/* Counts the distinct taps arrays (channels sharing a pointer share one). */
static int32_t count_spectra(const engine_request *r) {
  if (!r->taps) return r->channels;
  int32_t distinct = 0;
  for (int32_t c = 0; c < r->channels; c++) {
    int seen = 0;
    for (int32_t d = 0; d < c && !seen; d++) seen = r->taps[d] == r->taps[c];
    distinct += !seen;
  }
  return distinct;
}

/* r's decimation factor, >= 1. */
static int64_t request_factor(const engine_request *r) {
  return r->decimation > 1 ? r->decimation : 1;
}

/* The FFT size for r, or 0 when the engine cannot serve it. */
static int64_t request_size(const engine_request *r) {
  if (r->channels < 1 || r->taps_len < 1 || r->taps_len > FFT_SIZE_LIMIT) return 0;
  if (r->complex_taps && r->channels % 2 != 0) return 0;
  if (r->fft_size != 0) {
    if (r->fft_size < r->taps_len || r->fft_size > FFT_SIZE_LIMIT) return 0;
    return r->fft_size;
  }
  const int32_t spectra = count_spectra(r);
  const int64_t n = fft_choose_size_decimated(r->taps_len, spectra, r->plan_effort,
                                              complex_share(r), request_factor(r));
  /* No size fits a decimating plan: a full-rate one (run_decimated picks). */
  return n > 0 ? n : fft_choose_size_mixed(r->taps_len, spectra, r->plan_effort, complex_share(r));
}

/* The folding factor a plan of size n gets for r: its decimation when that
 * divides n and leaves a whole decimated block, else 1. */
static int64_t plan_factor(const engine_request *r, int64_t n) {
  const int64_t d = request_factor(r);
  return d > 1 && fft_decimated_block(n, r->taps_len, d) > 0 ? d : 1;
}

static double ols_cost(const engine_request *r) {
  int64_t n = request_size(r);
  if (n <= 0) return -1.0;
  const int64_t d = plan_factor(r, n);
  if (d > 1) return fft_output_ns_decimated(n, r->taps_len, d, r->plan_effort, complex_share(r));
  return fft_output_ns_mixed(n, r->taps_len, r->plan_effort, complex_share(r));
}

static void ols_destroy(void *impl) {
  ols_plan *p = impl;
  if (!p) return;
  if (p->own_pool) pool_destroy(p->pool);
  if (p->forward || p->inverse || p->cx_forward || p->cx_inverse || p->cx_inverse_m) {
    convoy_fftw_lock();
    if (p->forward) fftwf_destroy_plan(p->forward);
    if (p->inverse) fftwf_destroy_plan(p->inverse);
    if (p->inverse_m) fftwf_destroy_plan(p->inverse_m);
    if (p->cx_forward) fftwf_destroy_plan(p->cx_forward);
    if (p->cx_inverse) fftwf_destroy_plan(p->cx_inverse);
    if (p->cx_inverse_m) fftwf_destroy_plan(p->cx_inverse_m);
    convoy_fftw_unlock();
  }
  if (p->time)
    for (int32_t t = 0; t < p->threads; t++) fftwf_free(p->time[t]);
  if (p->freq)
    for (int32_t t = 0; t < p->threads; t++) fftwf_free(p->freq[t]);
  if (p->cx)
    for (int32_t t = 0; t < p->threads; t++) fftwf_free(p->cx[t]);
  if (p->fold)
    for (int32_t t = 0; t < p->threads; t++) fftwf_free(p->fold[t]);
  free(p->fold);
  free(p->time);
  free(p->freq);
  free(p->cx);
  fftwf_free(p->cx_spectra);
  free(p->cx_spectrum_of);
  free(p->real_pair);
  fftwf_free(p->spectra);
  free(p->spectrum_of);
  free(p);
}

/* 1 when row c is filtered on the real transforms (every row without
 * complex taps, the real row of a real pair). */
static int row_is_real(const ols_plan *p, int32_t c) {
  return !p->complex_taps || (c % 2 == 0 && p->real_pair[c / 2]);
}

/* x (n values of stride `stride` floats) = taps circularly shifted left by
 * s0 = taps_len - 1 - skip (0 unless decimating): tap j at (j - s0) mod n;
 * zeros elsewhere. */
static void load_taps(const ols_plan *p, float *x, int64_t stride, const float *taps) {
  const int64_t s0 = p->taps_len - 1 - p->skip;
  for (int64_t j = 0; j < p->n; j++) x[j * stride] = 0.0f;
  for (int64_t j = s0; j < p->taps_len; j++) x[(j - s0) * stride] = taps[j];
  for (int64_t j = 0; j < s0; j++) x[(p->n - s0 + j) * stride] = taps[j];
}

/* Fills p->spectra and p->spectrum_of (rows on the real transforms) and
 * p->cx_spectra and p->cx_spectrum_of (complex pairs) from the taps, using
 * thread 0's buffers (after planning, which may overwrite them). Rows (and
 * pairs) with the same taps pointers share one spectrum. */
static void compute_spectra(ols_plan *p, const engine_request *r) {
  const float scale = (float)(1.0 / (double)p->n);
  int32_t next = 0;
  for (int32_t c = 0; c < p->channels; c++) {
    if (!row_is_real(p, c)) continue;
    int32_t same = -1;
    for (int32_t d = 0; d < c && same < 0; d++)
      same = p->spectrum_of[d] && r->taps[d] == r->taps[c] ? d : -1;
    if (same >= 0) {
      p->spectrum_of[c] = p->spectrum_of[same];
      continue;
    }
    float *x = p->time[0];
    fftwf_complex *xf = p->freq[0];
    load_taps(p, x, 1, r->taps[c]);
    fftwf_execute_dft_r2c(p->forward, x, xf);
    float *h = p->spectra + (size_t)next++ * 2 * (size_t)p->n_bins;
    for (int64_t j = 0; j < p->n_bins; j++) {
      h[2 * j] = xf[j][0] * scale;
      h[2 * j + 1] = xf[j][1] * scale;
    }
    p->spectrum_of[c] = h;
  }
  next = 0;
  for (int32_t u = 0; p->cx && u < p->units; u++) {
    if (p->real_pair[u]) continue;
    int32_t same = -1;
    for (int32_t v = 0; v < u && same < 0; v++)
      same = p->cx_spectrum_of[v] && r->taps[2 * v] == r->taps[2 * u] &&
                     r->taps[2 * v + 1] == r->taps[2 * u + 1]
                 ? v
                 : -1;
    if (same >= 0) {
      p->cx_spectrum_of[u] = p->cx_spectrum_of[same];
      continue;
    }
    float *z = (float *)p->cx[0];
    load_taps(p, z, 2, r->taps[2 * u]);
    load_taps(p, z + 1, 2, r->taps[2 * u + 1]);
    fftwf_execute_dft(p->cx_forward, p->cx[0], p->cx[0]);
    float *h = p->cx_spectra + (size_t)next++ * 2 * (size_t)p->n;
    for (int64_t j = 0; j < 2 * p->n; j++) h[j] = z[j] * scale;
    p->cx_spectrum_of[u] = h;
  }
}

/* The distinct complex filters of r's pairs that are not real pairs. */
static int32_t count_cx_spectra(const ols_plan *p, const engine_request *r) {
  int32_t distinct = 0;
  for (int32_t u = 0; p->complex_taps && u < p->units; u++) {
    if (p->real_pair[u]) continue;
    int seen = 0;
    for (int32_t v = 0; v < u && !seen; v++)
      seen = !p->real_pair[v] && r->taps[2 * v] == r->taps[2 * u] &&
             r->taps[2 * v + 1] == r->taps[2 * u + 1];
    distinct += !seen;
  }
  return distinct;
}

static convoy_status ols_create(const engine_request *r, void **impl, char *err, size_t err_size) {
  *impl = NULL;
  if (r->channels < 1 || r->taps_len < 1 || !r->taps || (r->complex_taps && r->channels % 2 != 0))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "cpu-fft: invalid request (%d %srows, %lld taps)", (int)r->channels,
                               r->complex_taps ? "complex-tap " : "", (long long)r->taps_len);
  if (r->taps_len > FFT_SIZE_LIMIT)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "cpu-fft: %lld taps is more than the %lld this engine can plan",
                               (long long)r->taps_len, (long long)FFT_SIZE_LIMIT);
  if (r->fft_size < 0 || (r->fft_size > 0 && r->fft_size < r->taps_len))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "cpu-fft: fft_size %lld is smaller than the filter (%lld taps)",
                               (long long)r->fft_size, (long long)r->taps_len);
  if (r->fft_size > FFT_SIZE_LIMIT)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "cpu-fft: fft_size %lld is larger than the limit %lld",
                               (long long)r->fft_size, (long long)FFT_SIZE_LIMIT);
  int64_t n = request_size(r);
  if (n <= 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "cpu-fft: no FFT size for %lld taps", (long long)r->taps_len);

  ols_plan *p = calloc(1, sizeof *p);
  if (!p) goto oom;
  p->channels = r->channels;
  p->taps_len = r->taps_len;
  p->n = n;
  p->n_bins = n / 2 + 1;
  p->dec = plan_factor(r, n);
  if (p->dec > 1) {
    p->block = fft_decimated_block(n, r->taps_len, p->dec);
    p->skip = (r->taps_len - 1) / p->dec * p->dec;
    p->m = n / p->dec;
    p->m_bins = p->m / 2 + 1;
  } else {
    p->block = n - r->taps_len + 1;
    p->skip = r->taps_len - 1;
  }
  p->complex_taps = r->complex_taps;
  p->units = r->complex_taps ? r->channels / 2 : r->channels;
  p->block_ns = fft_block_ns_decimated(n, p->dec, r->plan_effort, complex_share(r));
  p->threads =
      r->threads < 1 ? 1 : (r->threads > ENGINE_MAX_THREADS ? ENGINE_MAX_THREADS : r->threads);
  p->spectrum_of = calloc((size_t)p->channels, sizeof *p->spectrum_of);
  p->time = calloc((size_t)p->threads, sizeof *p->time);
  p->freq = calloc((size_t)p->threads, sizeof *p->freq);
  p->real_pair = calloc((size_t)p->units, sizeof(int));
  if (!p->spectrum_of || !p->time || !p->freq || !p->real_pair) goto oom;
  for (int32_t u = 0; p->complex_taps && u < p->units; u++)
    p->real_pair[u] = all_zero(r->taps[2 * u + 1], r->taps_len);
  const int32_t n_spectra = count_spectra(r), n_cx_spectra = count_cx_spectra(p, r);
  /* At most this many rows take real spectra (fewer when pairs are complex). */
  p->spectra = fftwf_malloc(sizeof(float) * 2 * (size_t)p->n_bins * (size_t)n_spectra);
  if (!p->spectra) goto oom;
  if (n_cx_spectra > 0) {
    p->cx = calloc((size_t)p->threads, sizeof *p->cx);
    p->cx_spectrum_of = calloc((size_t)p->units, sizeof *p->cx_spectrum_of);
    p->cx_spectra = fftwf_malloc(sizeof(float) * 2 * (size_t)n * (size_t)n_cx_spectra);
    if (!p->cx || !p->cx_spectrum_of || !p->cx_spectra) goto oom;
  }
  if (p->dec > 1) {
    p->fold = calloc((size_t)p->threads, sizeof *p->fold);
    if (!p->fold) goto oom;
  }
  for (int32_t t = 0; t < p->threads; t++) {
    if (p->fold) {
      p->fold[t] = fftwf_malloc(sizeof(fftwf_complex) * (size_t)p->m_bins);
      if (!p->fold[t]) goto oom;
    }
    p->time[t] = fftwf_malloc(sizeof(float) * (size_t)n);
    p->freq[t] = fftwf_malloc(sizeof(fftwf_complex) * (size_t)p->n_bins);
    if (!p->time[t] || !p->freq[t]) goto oom;
    if (p->cx) {
      p->cx[t] = fftwf_malloc(sizeof(fftwf_complex) * (size_t)n);
      if (!p->cx[t]) goto oom;
    }
  }

  /* Every buffer comes from fftwf_malloc, so all share the alignment the
   * plans were made for, as the new-array execute functions require. */
  unsigned flags = (r->plan_effort >= 1 ? FFTW_MEASURE : FFTW_ESTIMATE) | FFTW_DESTROY_INPUT;
  convoy_fftw_lock();
  p->forward = fftwf_plan_dft_r2c_1d((int)n, p->time[0], p->freq[0], flags);
  p->inverse = fftwf_plan_dft_c2r_1d((int)n, p->freq[0], p->time[0], flags);
  if (p->dec > 1) p->inverse_m = fftwf_plan_dft_c2r_1d((int)p->m, p->fold[0], p->time[0], flags);
  if (p->cx) {
    p->cx_forward = fftwf_plan_dft_1d((int)n, p->cx[0], p->cx[0], FFTW_FORWARD, flags);
    p->cx_inverse = fftwf_plan_dft_1d((int)n, p->cx[0], p->cx[0], FFTW_BACKWARD, flags);
    if (p->dec > 1)
      p->cx_inverse_m = fftwf_plan_dft_1d((int)p->m, p->cx[0], p->cx[0], FFTW_BACKWARD, flags);
  }
  convoy_fftw_unlock();
  if (!p->forward || !p->inverse || (p->dec > 1 && !p->inverse_m) ||
      (p->cx && (!p->cx_forward || !p->cx_inverse || (p->dec > 1 && !p->cx_inverse_m)))) {
    ols_destroy(p);
    return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND,
                               "cpu-fft: FFTW could not plan the transforms of size %lld",
                               (long long)n);
  }
  compute_spectra(p, r);
  if (p->threads > 1) {
    /* A lent pool of another size would hand out slots past the buffers. */
    const int lent = r->pool && pool_threads(r->pool) == p->threads;
    p->own_pool = !lent;
    p->pool = lent ? r->pool : pool_create(p->threads);
    if (!p->pool) {
      ols_destroy(p);
      return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                                 "cpu-fft: cannot start %d threads", (int)p->threads);
    }
  }
  *impl = p;
  return CONVOY_OK;

oom:
  ols_destroy(p);
  return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "cpu-fft: cannot allocate buffers for FFT size %lld, %d channels, "
                             "%d threads",
                             (long long)n, (int)r->channels, (int)r->threads);
}

static int64_t ols_granule(const void *impl) {
  return ((const ols_plan *)impl)->block;
}

/* x = the block's taps_len - 1 + block input frames from in, then zeros to
 * the FFT size. A decimating plan's block may be up to D - 1 frames short
 * of n - taps_len + 1; the frames past it are not the block's input, and
 * reading them would let the rounding of the kept outputs depend on where
 * the call ends. */
static void load_block(const ols_plan *p, float *x, const float *in) {
  const int64_t used = p->taps_len - 1 + p->block;
  memcpy(x, in, sizeof(float) * (size_t)used);
  if (used < p->n) memset(x + used, 0, sizeof(float) * (size_t)(p->n - used));
}

/* Block b of channel c on thread tid's buffers. */
static void run_block(const ols_plan *p, int tid, const float *in, const float *h, float *out) {
  float *x = p->time[tid];
  fftwf_complex *xf = p->freq[tid];
  load_block(p, x, in);
  fftwf_execute_dft_r2c(p->forward, x, xf);
  multiply_spectrum((float *)xf, h, p->n_bins);
  fftwf_execute_dft_c2r(p->inverse, xf, x);
  memcpy(out, x + p->skip, sizeof(float) * (size_t)p->block);
}

/* The product spectrum of complex pair (in_r, in_i) (the block's frames of
 * each row) and the pair's filter spectrum h, in thread tid's cx buffer. */
static float *cx_block_spectrum(const ols_plan *p, int tid, const float *in_r, const float *in_i,
                                const float *h) {
  float *z = (float *)p->cx[tid];
  const int64_t used = p->taps_len - 1 + p->block;
  for (int64_t j = 0; j < used; j++) {
    z[2 * j] = in_r[j];
    z[2 * j + 1] = in_i[j];
  }
  if (used < p->n) memset(z + 2 * used, 0, sizeof(float) * 2 * (size_t)(p->n - used));
  fftwf_execute_dft(p->cx_forward, p->cx[tid], p->cx[tid]);
  multiply_spectrum(z, h, p->n);
  return z;
}

/* out_r[k], out_i[k] = z[from + k] (count complex values). */
static void split_out(const float *restrict z, int64_t from, int64_t count, float *restrict out_r,
                      float *restrict out_i) {
  for (int64_t k = 0; k < count; k++) {
    out_r[k] = z[2 * (from + k)];
    out_i[k] = z[2 * (from + k) + 1];
  }
}

/* Block of complex pair (r, i) on thread tid's buffers; in and out point at
 * the block's frames of each row. */
static void run_complex_block(const ols_plan *p, int tid, const float *in_r, const float *in_i,
                              const float *h, float *out_r, float *out_i) {
  float *z = cx_block_spectrum(p, tid, in_r, in_i, h);
  fftwf_execute_dft(p->cx_inverse, p->cx[tid], p->cx[tid]);
  split_out(z, p->skip, p->block, out_r, out_i);
}

typedef struct ols_job {
  const ols_plan *p;
  const float *const *in;
  float *const *out;
  int64_t blocks; /* per unit */
} ols_job;

static void ols_task(void *ctx, int64_t task) {
  const ols_job *j = ctx;
  const ols_plan *p = j->p;
  int32_t u = (int32_t)(task / j->blocks);
  int64_t off = (task % j->blocks) * p->block;
  int tid = pool_worker_slot();
  if (!p->complex_taps) {
    run_block(p, tid, j->in[u] + off, p->spectrum_of[u], j->out[u] + off);
    return;
  }
  const int32_t r = 2 * u, i = 2 * u + 1;
  if (p->real_pair[u]) {
    run_block(p, tid, j->in[r] + off, p->spectrum_of[r], j->out[r] + off);
    run_block(p, tid, j->in[i] + off, p->spectrum_of[r], j->out[i] + off);
  } else {
    run_complex_block(p, tid, j->in[r] + off, j->in[i] + off, p->cx_spectrum_of[u], j->out[r] + off,
                      j->out[i] + off);
  }
}

/* Threads for a run of `tasks` (unit, block) tasks. */
static int64_t run_threads(const ols_plan *p, int64_t tasks) {
  if (p->threads <= 1) return 1;
  double by_work =
      (double)tasks * (double)(p->channels / p->units) * p->block_ns / PER_THREAD_MIN_NS;
  int64_t threads = by_work < (double)p->threads ? (int64_t)by_work : p->threads;
  if (threads > tasks) threads = tasks;
  return threads < 1 ? 1 : threads;
}

static convoy_status ols_run(void *impl, const float *const *in, float *const *out, int64_t n_out,
                             char *err, size_t err_size) {
  const ols_plan *p = impl;
  if (n_out <= 0) return CONVOY_OK;
  if (n_out % p->block != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "cpu-fft: %lld outputs is not a multiple of the block of %lld",
                               (long long)n_out, (long long)p->block);
  int64_t blocks = n_out / p->block;
  int64_t tasks = blocks * p->units;
  ols_job job = {p, in, out, blocks};
  if (run_threads(p, tasks) == 1) {
    for (int64_t t = 0; t < tasks; t++) ols_task(&job, t);
  } else {
    pool_run(p->pool, tasks, ols_task, &job); /* the thread that runs a block does not matter */
  }
  return CONVOY_OK;
}

/* z[k] = sum_{j<D} Y[k + j M], 0 <= k <= M / 2, with y the half-spectrum
 * (n_bins interleaved values) of a real row: the spectrum of its samples
 * 0, D, 2D, ... (times D). The sum runs over j in order, so the result
 * depends only on y. */
static void fold_spectrum(const ols_plan *p, const float *restrict y, float *restrict z) {
  const int64_t n = p->n, mm = p->m, h = p->m / 2, half = p->n / 2, d = p->dec;
  memcpy(z, y, sizeof(float) * 2 * (size_t)(h + 1));
  for (int64_t j = 1; j < d; j++) {
    const int64_t base = j * mm;
    /* Bins base + k up to n / 2 are stored; the rest are conj(y[n - base - k]). */
    const int64_t direct_end = half - base < h ? half - base : h;
    const int64_t mirror_from = direct_end + 1 > 0 ? direct_end + 1 : 0;
    const float *yd = y + 2 * base, *ym = y + 2 * (n - base);
    for (int64_t k = 0; k <= direct_end; k++) {
      z[2 * k] += yd[2 * k];
      z[2 * k + 1] += yd[2 * k + 1];
    }
    for (int64_t k = mirror_from; k <= h; k++) {
      z[2 * k] += ym[-2 * k];
      z[2 * k + 1] -= ym[-2 * k + 1];
    }
  }
}

/* The kept outputs (every D-th, from the block's first) of one decimating
 * block from the product spectrum y of a real row. */
static void fold_out(const ols_plan *p, int tid, const float *y, float *out) {
  const int64_t m0 = p->skip / p->dec; /* skip is a multiple of D */
  float *x = p->time[tid];
  fftwf_complex *z = p->fold[tid];
  fold_spectrum(p, y, (float *)z);
  fftwf_execute_dft_c2r(p->inverse_m, z, x);
  memcpy(out, x + m0, sizeof(float) * (size_t)(p->block / p->dec));
}

/* run_block keeping every D-th output. */
static void run_block_decimated(const ols_plan *p, int tid, const float *in, const float *h,
                                float *out) {
  float *x = p->time[tid];
  fftwf_complex *xf = p->freq[tid];
  load_block(p, x, in);
  fftwf_execute_dft_r2c(p->forward, x, xf);
  multiply_spectrum((float *)xf, h, p->n_bins);
  fold_out(p, tid, (const float *)xf, out);
}

/* run_complex_block keeping every D-th output: the product spectrum
 * folded in place to its first M values (z[k] += z[k + j M], j in order,
 * so the result depends only on the spectrum), then the size-M inverse. */
static void run_complex_block_decimated(const ols_plan *p, int tid, const float *in_r,
                                        const float *in_i, const float *h, float *out_r,
                                        float *out_i) {
  float *z = cx_block_spectrum(p, tid, in_r, in_i, h);
  const int64_t mm = 2 * p->m;
  for (int64_t j = 1; j < p->dec; j++) {
    const float *zj = z + j * mm;
    for (int64_t k = 0; k < mm; k++) z[k] += zj[k];
  }
  fftwf_execute_dft(p->cx_inverse_m, p->cx[tid], p->cx[tid]);
  split_out(z, p->skip / p->dec, p->block / p->dec, out_r, out_i);
}

typedef struct ols_dec_job {
  const ols_plan *p;
  const float *const *in;
  float *const *out;
  int64_t blocks; /* per unit */
} ols_dec_job;

static void ols_dec_task(void *ctx, int64_t task) {
  const ols_dec_job *j = ctx;
  const ols_plan *p = j->p;
  const int32_t u = (int32_t)(task / j->blocks);
  const int64_t b = task % j->blocks, off = b * p->block, kept = b * (p->block / p->dec);
  const int tid = pool_worker_slot();
  if (!p->complex_taps) {
    run_block_decimated(p, tid, j->in[u] + off, p->spectrum_of[u], j->out[u] + kept);
    return;
  }
  const int32_t r = 2 * u, i = 2 * u + 1;
  if (p->real_pair[u]) {
    run_block_decimated(p, tid, j->in[r] + off, p->spectrum_of[r], j->out[r] + kept);
    run_block_decimated(p, tid, j->in[i] + off, p->spectrum_of[r], j->out[i] + kept);
  } else {
    run_complex_block_decimated(p, tid, j->in[r] + off, j->in[i] + off, p->cx_spectrum_of[u],
                                j->out[r] + kept, j->out[i] + kept);
  }
}

static convoy_status ols_run_decimated(void *impl, const float *const *in, float *const *out,
                                       int64_t n_out, int64_t first, int64_t factor, char *err,
                                       size_t err_size) {
  const ols_plan *p = impl;
  if (factor < 1 || first < 0 || first >= factor)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "cpu-fft: first output %lld of factor %lld is out of range",
                               (long long)first, (long long)factor);
  if (factor != p->dec || first != 0) {
    /* Not what the plan folds for (the stream asks only for that): the full
     * rate, then every factor-th frame. */
    convoy_status st = ols_run(impl, in, out, n_out, err, err_size);
    if (st != CONVOY_OK || factor == 1) return st;
    const int64_t kept = n_out > first ? (n_out - first + factor - 1) / factor : 0;
    for (int32_t c = 0; c < p->channels; c++)
      for (int64_t m = 0; m < kept; m++) out[c][m] = out[c][first + m * factor];
    return CONVOY_OK;
  }
  if (n_out <= 0) return CONVOY_OK;
  if (n_out % p->block != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "cpu-fft: %lld outputs is not a multiple of the block of %lld",
                               (long long)n_out, (long long)p->block);
  const int64_t blocks = n_out / p->block, tasks = blocks * p->units;
  ols_dec_job job = {p, in, out, blocks};
  if (run_threads(p, tasks) == 1) {
    for (int64_t t = 0; t < tasks; t++) ols_dec_task(&job, t);
  } else {
    pool_run(p->pool, tasks, ols_dec_task, &job); /* the thread that runs a block does not matter */
  }
  return CONVOY_OK;
}

static void ols_describe(const void *impl, char *buf, size_t buf_size) {
  const ols_plan *p = impl;
  char dec[48] = "";
  if (p->dec > 1) snprintf(dec, sizeof dec, " folded by %lld", (long long)p->dec);
  snprintf(buf, buf_size, "cpu-fft N=%lld block=%lld threads=%d%s%s", (long long)p->n,
           (long long)p->block, (int)p->threads, p->complex_taps ? " complex taps" : "", dec);
}

static const engine_ops ols_ops = {
    .id = CONVOY_ENGINE_CPU_FFT,
    .cost = ols_cost,
    .create = ols_create,
    .granule = ols_granule,
    .run = ols_run,
    .describe = ols_describe,
    .destroy = ols_destroy,
    .run_decimated = ols_run_decimated,
};

const engine_ops *engine_cpu_fft(void) {
  return &ols_ops;
}
