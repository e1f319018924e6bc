/*
 * direct.c - the CPU direct-form engine (short filters).
 *
 * Each output is sum_i rev[i] * x[k + i] over the reversed taps, evaluated
 * in tiles of TILE consecutive outputs: the tap loop runs outside, the TILE
 * lanes inside, each lane with its own accumulator. Every lane performs the
 * same multiplies and adds in the same order, whatever its position in the
 * tile, so an output's bits do not depend on where a call or a tile starts.
 * The last, partial tile of a range is computed whole (reading into the
 * stream's zeroed slack, CONVOY_ENGINE_SLACK >= TILE) and cut to length.
 *
 * Kernels: AVX-512 and AVX2 versions written with vector extensions, and a
 * plain C loop the compiler vectorises for the baseline ISA; the best one the
 * CPU supports is picked at create. They all multiply and then add (no fused
 * multiply-add: the project compiles as ISO C, where contraction is off), so
 * they produce the same bits.
 *
 * Threads: a run big enough to pay for them is cut into (channel, range of
 * whole tiles) tasks run on a worker_pool (worker_pool.h), not an OpenMP
 * team: on a busy machine an OpenMP loop waits at its closing barrier for
 * every preempted thread, which measured 20 to 100 times slower at 2 threads
 * on a 2-core machine with one core taken; the pool degrades to about the
 * single-thread speed instead. Which thread computes a tile does not change
 * its bits.
 *
 * Complex taps (engine_request.complex_taps): each (real, imaginary) row
 * pair is one complex channel, filtered by the kernels of direct_complex.h.
 * A pair whose imaginary taps are all zero (a real filter on a complex
 * stream) runs the real kernel on each of its two rows instead, at half the
 * work. Tasks are then (pair, range of tiles).
 */
#include "cpu_isa.h"
#include "decimate_direct.h"
#include "direct_complex.h"
#include "engine.h"
#include "error_internal.h"
#include "worker_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE 64

#if CONVOY_ENGINE_SLACK < TILE
#error "the direct engine reads up to TILE - 1 frames into the slack"
#endif

/* Computes n outputs y[k] = sum_i rev[i] * x[k + i], 0 <= k < n, reading
 * x[0 .. roundup(n, TILE) + taps - 1). */
typedef void (*direct_range_fn)(const float *x, const float *rev, int64_t taps, float *y,
                                int64_t n);

/* Runs tile_fn over n outputs: whole tiles straight into y, the last partial
 * tile through a scratch tile. */
#define DEFINE_RANGE(range_name, attr, tile_fn)                                                    \
  attr static void range_name(const float *x, const float *rev, int64_t taps, float *y,            \
                              int64_t n) {                                                         \
    int64_t k = 0;                                                                                 \
    for (; k + TILE <= n; k += TILE) tile_fn(x + k, rev, taps, y + k);                             \
    if (k < n) {                                                                                   \
      float part[TILE];                                                                            \
      tile_fn(x + k, rev, taps, part);                                                             \
      memcpy(y + k, part, sizeof(float) * (size_t)(n - k));                                        \
    }                                                                                              \
  }

static void tile_generic(const float *restrict x, const float *restrict rev, int64_t taps,
                         float *restrict y) {
  float acc[TILE];
  for (int i = 0; i < TILE; i++) acc[i] = 0.0f;
  for (int64_t j = 0; j < taps; j++) {
    const float h = rev[j];
    const float *xj = x + j;
    for (int i = 0; i < TILE; i++) acc[i] += h * xj[i];
  }
  memcpy(y, acc, sizeof acc);
}
DEFINE_RANGE(range_generic, , tile_generic)

#ifdef CPU_ISA_X86
/* Accumulators are named variables, not arrays, so that they stay in
 * registers at -O2 as well as -O3. Unaligned loads through aligned(4) types. */
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));

__attribute__((target("avx2"))) static void
tile_avx2(const float *restrict x, const float *restrict rev, int64_t taps, float *restrict y) {
  v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
  for (int64_t j = 0; j < taps; j++) {
    const float h = rev[j];
    const v8u *xj = (const v8u *)(x + j);
    a0 += h * xj[0];
    a1 += h * xj[1];
    a2 += h * xj[2];
    a3 += h * xj[3];
    a4 += h * xj[4];
    a5 += h * xj[5];
    a6 += h * xj[6];
    a7 += h * xj[7];
  }
  v8u *out = (v8u *)y;
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
  out[4] = a4;
  out[5] = a5;
  out[6] = a6;
  out[7] = a7;
}
DEFINE_RANGE(range_avx2, __attribute__((target("avx2"))), tile_avx2)

__attribute__((target("avx512f"))) static void
tile_avx512(const float *restrict x, const float *restrict rev, int64_t taps, float *restrict y) {
  v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
  for (int64_t j = 0; j < taps; j++) {
    const float h = rev[j];
    const v16u *xj = (const v16u *)(x + j);
    a0 += h * xj[0];
    a1 += h * xj[1];
    a2 += h * xj[2];
    a3 += h * xj[3];
  }
  v16u *out = (v16u *)y;
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
}
DEFINE_RANGE(range_avx512, __attribute__((target("avx512f"))), tile_avx512)
#endif

/* A kernel and its speed, for the cost model. Measured on the development
 * machine (2 vCPUs of an AMD EPYC with AVX-512, gcc 12 -O3, machine otherwise
 * idle): one thread calling run() on 2^24 samples in memory (best of 3) for
 * 3, 16, 64, 256 and 1024 taps; ns per output fitted as
 * per_output + per_tap * taps, within about 15 %:
 *   avx512   0.20 + 0.017 * taps   (16 taps: 0.41 ns, 1024 taps: 17.7 ns)
 *   avx2     0.20 + 0.025 * taps   (16 taps: 0.43 ns, 1024 taps: 26 ns)
 *   generic  0.35 + 0.047 * taps   (16 taps: 1.0 ns,  1024 taps: 48 ns)
 * The tables add 0.3 ns per output for the stream's (de)interleaving, as the
 * FFT engine's model does (see engine.h). */
typedef struct direct_kernel {
  const char *name;
  direct_range_fn range;
  double ns_per_output;
  double ns_per_tap;
} direct_kernel;

static const direct_kernel kernel_generic = {"generic", range_generic, 0.35 + 0.3, 0.047};
#ifdef CPU_ISA_X86
static const direct_kernel kernel_avx2 = {"avx2", range_avx2, 0.20 + 0.3, 0.025};
static const direct_kernel kernel_avx512 = {"avx512", range_avx512, 0.20 + 0.3, 0.017};
#endif

static const direct_kernel *best_kernel(void) {
#ifdef CPU_ISA_X86
  switch (cpu_isa_best()) {
  case CPU_ISA_AVX512:
    return &kernel_avx512;
  case CPU_ISA_AVX2:
    return &kernel_avx2;
  case CPU_ISA_GENERIC:
    break;
  }
#endif
  return &kernel_generic;
}

/* Below this much estimated single-thread work per run, threads cost more
 * (fork/join, a few microseconds) than they save. */
#define PARALLEL_MIN_NS 20000.0
/* Each thread gets at least this much estimated work. */
#define PER_THREAD_MIN_NS 10000.0
#define TASKS_PER_THREAD 4

/* The complex kernels against the real one of the same ISA, per tap and
 * row output: a complex output costs four multiplies and four adds per tap
 * over two rows, twice the real kernel's work per row. Measured through the
 * stream (1 complex channel against 2 real ones, 64 .. 8192 taps, AVX-512,
 * the machine above): 1.85 to 2.0 times. */
#define COMPLEX_TAP_FACTOR 2.0

typedef struct direct_plan {
  const direct_kernel *kernel;
  direct_complex_fn complex_range; /* complex_taps only */
  const char *complex_name;
  int complex_taps;
  int32_t units;     /* channels, or channel pairs with complex_taps */
  int *real_pair;    /* [units] complex_taps: 1 when the imaginary taps are zero */
  double tap_factor; /* mean work per tap and row output, against the real kernel */
  int32_t channels;
  int64_t taps_len;
  int32_t threads;
  worker_pool *pool;    /* NULL with one thread */
  int own_pool;         /* pool was started here (not the request's) */
  float *rev;           /* reversed taps: one copy per distinct taps pointer */
  const float **rev_of; /* [channels] */
  /* Decimated runs (engine_request.decimation = step > 1): only the kept
   * outputs, in polyphase form (decimate_direct.h). */
  int64_t step;          /* 1: no decimated plan */
  float *poly;           /* phase-ordered reversed taps, one copy per distinct row */
  const float **poly_of; /* [channels] */
  float *scratch;        /* threads x scratch_floats */
  size_t scratch_floats;
} direct_plan;

/* 1 when the n taps are all zero. */
static int all_zero(const float *t, int64_t n) {
  for (int64_t j = 0; j < n; j++)
    if (t[j] != 0.0f) return 0;
  return 1;
}

/* Work per tap and row output against the real kernel: 1 for real taps,
 * COMPLEX_TAP_FACTOR for complex pairs, 1 for real pairs of a complex request. */
static double tap_factor(const engine_request *r) {
  if (!r->complex_taps) return 1.0;
  if (!r->taps) return COMPLEX_TAP_FACTOR;
  int32_t pairs = r->channels / 2, complex_pairs = 0;
  for (int32_t c = 0; c < pairs; c++) complex_pairs += !all_zero(r->taps[2 * c + 1], r->taps_len);
  return pairs ? 1.0 + (COMPLEX_TAP_FACTOR - 1.0) * complex_pairs / pairs : 1.0;
}

/* Per full-rate output frame: a decimated plan computes 1 in D of them. */
static double direct_cost(const engine_request *r) {
  if (r->taps_len < 1 || r->channels < 1) return -1.0;
  if (r->complex_taps && r->channels % 2 != 0) return -1.0;
  const direct_kernel *k = best_kernel();
  const double full = k->ns_per_output + k->ns_per_tap * (double)r->taps_len * tap_factor(r);
  return r->decimation > 1 ? full / (double)r->decimation : full;
}

static void direct_destroy(void *impl) {
  direct_plan *p = impl;
  if (!p) return;
  if (p->own_pool) pool_destroy(p->pool);
  free(p->rev);
  free(p->rev_of);
  free(p->poly);
  free(p->poly_of);
  free(p->scratch);
  free(p->real_pair);
  free(p);
}

static convoy_status direct_create(const engine_request *r, void **impl, char *err,
                                   size_t err_size) {
  *impl = NULL;
  if (r->channels < 1 || r->taps_len < 1 || !r->taps || (r->complex_taps && r->channels % 2 != 0))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "cpu-direct: invalid request (%d %srows, %lld taps)",
                               (int)r->channels, r->complex_taps ? "complex-tap " : "",
                               (long long)r->taps_len);
  /* Channels that share one taps array share one reversed copy. */
  int32_t distinct = 0;
  for (int32_t c = 0; c < r->channels; c++) {
    int seen = 0;
    for (int32_t d = 0; d < c && !seen; d++) seen = r->taps[d] == r->taps[c];
    distinct += !seen;
  }
  direct_plan *p = calloc(1, sizeof *p);
  if (p) {
    p->units = r->complex_taps ? r->channels / 2 : r->channels;
    p->rev = malloc(sizeof(float) * (size_t)distinct * (size_t)r->taps_len);
    p->rev_of = malloc(sizeof(float *) * (size_t)r->channels);
    p->real_pair = calloc((size_t)p->units, sizeof(int));
  }
  if (!p || !p->rev || !p->rev_of || !p->real_pair) {
    direct_destroy(p);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "cpu-direct: cannot allocate %d x %lld reversed taps", (int)distinct,
                               (long long)r->taps_len);
  }
  p->kernel = best_kernel();
  p->complex_taps = r->complex_taps;
  p->tap_factor = tap_factor(r);
  if (p->complex_taps) {
    p->complex_range = direct_complex_best(&p->complex_name);
    for (int32_t u = 0; u < p->units; u++)
      p->real_pair[u] = all_zero(r->taps[2 * u + 1], r->taps_len);
  }
  p->channels = r->channels;
  p->taps_len = r->taps_len;
  p->threads = r->threads < 1 ? 1 : r->threads;
  if (p->threads > 1) {
    /* A lent pool of another size would hand out slots past the buffers. */
    const int lent = r->pool && pool_threads(r->pool) == p->threads;
    p->own_pool = !lent;
    p->pool = lent ? r->pool : pool_create(p->threads);
    if (!p->pool) {
      direct_destroy(p);
      return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                                 "cpu-direct: cannot start %d threads", (int)r->threads);
    }
  }
  int32_t next = 0;
  for (int32_t c = 0; c < r->channels; c++) {
    int32_t same = -1;
    for (int32_t d = 0; d < c && same < 0; d++) same = r->taps[d] == r->taps[c] ? d : -1;
    if (same >= 0) {
      p->rev_of[c] = p->rev_of[same];
      continue;
    }
    float *rev = p->rev + (size_t)next++ * (size_t)r->taps_len;
    for (int64_t j = 0; j < r->taps_len; j++) rev[j] = r->taps[c][r->taps_len - 1 - j];
    p->rev_of[c] = rev;
  }
  p->step = r->decimation > 1 ? r->decimation : 1;
  if (p->step > 1) {
    p->scratch_floats = decim_direct_scratch(r->taps_len, p->step);
    p->poly = malloc(sizeof(float) * (size_t)distinct * (size_t)r->taps_len);
    p->poly_of = malloc(sizeof(float *) * (size_t)r->channels);
    p->scratch = malloc(sizeof(float) * p->scratch_floats * (size_t)p->threads);
    if (!p->poly || !p->poly_of || !p->scratch) {
      direct_destroy(p);
      return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                                 "cpu-direct: cannot allocate the decimated plan");
    }
    /* One polyphase copy per reversed copy, at the same index. */
    for (int32_t k = 0; k < next; k++)
      decim_direct_taps(p->rev + (size_t)k * (size_t)r->taps_len, r->taps_len, p->step,
                        p->poly + (size_t)k * (size_t)r->taps_len);
    for (int32_t c = 0; c < r->channels; c++) p->poly_of[c] = p->poly + (p->rev_of[c] - p->rev);
  }
  *impl = p;
  return CONVOY_OK;
}

static int64_t direct_granule(const void *impl) {
  (void)impl;
  return 1;
}

/* One parallel run: channels x parts tasks, each a range of whole tiles. */
typedef struct direct_job {
  const direct_plan *plan;
  const float *const *in;
  float *const *out;
  int64_t n_out, tiles, parts;
} direct_job;

/* Outputs [k0, k1) of unit u: a channel, or a pair with complex_taps. */
static void run_unit(const direct_plan *p, const float *const *in, float *const *out, int32_t u,
                     int64_t k0, int64_t k1) {
  if (k0 >= k1) return;
  if (!p->complex_taps) {
    p->kernel->range(in[u] + k0, p->rev_of[u], p->taps_len, out[u] + k0, k1 - k0);
    return;
  }
  const int32_t r = 2 * u, i = 2 * u + 1;
  if (p->real_pair[u]) {
    p->kernel->range(in[r] + k0, p->rev_of[r], p->taps_len, out[r] + k0, k1 - k0);
    p->kernel->range(in[i] + k0, p->rev_of[r], p->taps_len, out[i] + k0, k1 - k0);
  } else {
    p->complex_range(in[r] + k0, in[i] + k0, p->rev_of[r], p->rev_of[i], p->taps_len, out[r] + k0,
                     out[i] + k0, k1 - k0);
  }
}

static void direct_task(void *ctx, int64_t task) {
  const direct_job *j = ctx;
  int32_t u = (int32_t)(task / j->parts);
  int64_t part = task % j->parts;
  int64_t k0 = j->tiles * part / j->parts * TILE;
  int64_t k1 = j->tiles * (part + 1) / j->parts * TILE;
  if (k1 > j->n_out) k1 = j->n_out;
  run_unit(j->plan, j->in, j->out, u, k0, k1);
}

/* Threads worth waking for `outputs` computed outputs per channel. */
static int work_threads(const direct_plan *p, int64_t outputs) {
  const double est_ns =
      (p->kernel->ns_per_output + p->kernel->ns_per_tap * (double)p->taps_len * p->tap_factor) *
      (double)outputs * (double)p->channels;
  if (!p->pool || est_ns < PARALLEL_MIN_NS) return 1;
  const double by_work = est_ns / PER_THREAD_MIN_NS;
  return by_work < (double)p->threads ? (int)by_work : p->threads;
}

static convoy_status direct_run(void *impl, const float *const *in, float *const *out,
                                int64_t n_out, char *err, size_t err_size) {
  (void)err;
  (void)err_size;
  const direct_plan *p = impl;
  if (n_out <= 0) return CONVOY_OK;
  const int threads = work_threads(p, n_out);
  if (threads <= 1) {
    for (int32_t u = 0; u < p->units; u++) run_unit(p, in, out, u, 0, n_out);
    return CONVOY_OK;
  }
  /* About TASKS_PER_THREAD tasks per thread, taken first come first served,
   * so that a thread the OS preempts holds up at most one small task. */
  direct_job job = {.plan = p, .in = in, .out = out, .n_out = n_out};
  job.tiles = (n_out + TILE - 1) / TILE;
  job.parts = (TASKS_PER_THREAD * threads + p->units - 1) / p->units;
  if (job.parts > job.tiles) job.parts = job.tiles;
  pool_run(p->pool, job.parts * p->units, direct_task, &job);
  return CONVOY_OK;
}

/* Kept outputs [m0, m1) of unit u (from run index first, every step-th)
 * with thread slot `slot`'s scratch. */
static void decimated_unit(const direct_plan *p, const float *const *in, float *const *out,
                           int32_t u, int64_t first, int64_t m0, int64_t m1, int slot) {
  const int64_t len = p->taps_len, step = p->step, at = first + m0 * step, n = m1 - m0;
  float *scratch = p->scratch + (size_t)slot * p->scratch_floats;
  if (n <= 0) return;
  if (!p->complex_taps) {
    decim_direct_real(in[u] + at, p->poly_of[u], len, step, out[u] + m0, n, scratch);
    return;
  }
  const int32_t r = 2 * u, i = 2 * u + 1;
  if (p->real_pair[u]) {
    decim_direct_real(in[r] + at, p->poly_of[r], len, step, out[r] + m0, n, scratch);
    decim_direct_real(in[i] + at, p->poly_of[r], len, step, out[i] + m0, n, scratch);
  } else {
    decim_direct_complex(in[r] + at, in[i] + at, p->poly_of[r], p->poly_of[i], len, step,
                         out[r] + m0, out[i] + m0, n, scratch);
  }
}

typedef struct decimated_job {
  const direct_plan *plan;
  const float *const *in;
  float *const *out;
  int64_t first, kept, parts;
} decimated_job;

static void decimated_task(void *ctx, int64_t task) {
  const decimated_job *j = ctx;
  const int32_t u = (int32_t)(task / j->parts);
  const int64_t part = task % j->parts;
  /* The pool's own slots: 0 the calling thread, 1 .. threads - 1 its workers. */
  decimated_unit(j->plan, j->in, j->out, u, j->first, j->kept * part / j->parts,
                 j->kept * (part + 1) / j->parts, pool_worker_slot());
}

/* engine_ops.run_decimated: the polyphase kernels on the kept outputs alone
 * for the plan's step; any other factor through run() and a pick. Which
 * thread computes an output does not change its bits. */
static convoy_status direct_run_decimated(void *impl, const float *const *in, float *const *out,
                                          int64_t n_out, int64_t first, int64_t factor, char *err,
                                          size_t err_size) {
  const direct_plan *p = impl;
  const int64_t kept = first < n_out ? (n_out - first + factor - 1) / factor : 0;
  if (factor != p->step) {
    convoy_status st = direct_run(impl, in, out, n_out, err, err_size);
    for (int32_t c = 0; st == CONVOY_OK && factor > 1 && c < p->channels; c++)
      for (int64_t m = 0; m < kept; m++) out[c][m] = out[c][first + m * factor];
    return st;
  }
  if (kept <= 0) return CONVOY_OK;
  const int threads = work_threads(p, kept);
  if (threads <= 1 || kept < 2) {
    for (int32_t u = 0; u < p->units; u++) decimated_unit(p, in, out, u, first, 0, kept, 0);
    return CONVOY_OK;
  }
  decimated_job job = {p, in, out, first, kept, 0};
  job.parts = (TASKS_PER_THREAD * threads + p->units - 1) / p->units;
  if (job.parts > kept) job.parts = kept;
  pool_run(p->pool, job.parts * p->units, decimated_task, &job);
  return CONVOY_OK;
}

static void direct_describe(const void *impl, char *buf, size_t buf_size) {
  const direct_plan *p = impl;
  char poly[48] = "";
  if (p->step > 1) snprintf(poly, sizeof poly, ", polyphase by %lld", (long long)p->step);
  if (p->complex_taps)
    snprintf(buf, buf_size, "cpu-direct: %lld complex taps, %s kernel, %d thread%s%s",
             (long long)p->taps_len, p->complex_name, (int)p->threads, p->threads == 1 ? "" : "s",
             poly);
  else
    snprintf(buf, buf_size, "cpu-direct: %lld taps, %s kernel, %d-output tiles, %d thread%s%s",
             (long long)p->taps_len, p->kernel->name, TILE, (int)p->threads,
             p->threads == 1 ? "" : "s", poly);
}

static const engine_ops direct_ops = {
    .id = CONVOY_ENGINE_CPU_DIRECT,
    .cost = direct_cost,
    .create = direct_create,
    .granule = direct_granule,
    .run = direct_run,
    .describe = direct_describe,
    .destroy = direct_destroy,
    .run_decimated = direct_run_decimated,
};

const engine_ops *engine_cpu_direct(void) {
  return &direct_ops;
}
