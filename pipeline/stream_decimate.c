/* stream_decimate.c - decimation and frequency shift of CPU-engine streams
 * (stream_decimate.h). */
#include "stream_decimate.h"

#include "decimate_direct.h"
#include "stream_internal.h"
#include "worker_pool.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

static const double TWO_PI = 6.283185307179586476925286766559;
/* Strided path: about the full-rate kernel's 0.02 ns per tap and row output
 * (AVX-512); below about 20 us of work per run the pool's fork/join costs
 * more than it saves. */
#define STRIDED_NS_PER_TAP 0.02
#define STRIDED_PARALLEL_NS 20000.0

/* ceil(a / d) for a >= 0. */
static int64_t ceil_div(int64_t a, int64_t d) {
  return a / d + (a % d != 0);
}

int64_t decim_count(int64_t factor, int64_t pos, int64_t n) {
  if (n <= 0) return 0;
  const int64_t end = n > INT64_MAX - pos ? INT64_MAX : pos + n;
  return ceil_div(end, factor) - ceil_div(pos, factor);
}

convoy_status decim_check_config(const convoy_stream_config *c) {
  const char *fn = "convoy_stream_create";
  if (c->decimation < 1 || c->decimation > CONVOY_MAX_DECIMATION)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: decimation %d is outside 1 .. %d (1 means none)", fn,
                            (int)c->decimation, CONVOY_MAX_DECIMATION);
  if (!isfinite(c->shift) || c->shift < -0.5 || c->shift > 0.5)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: shift %g is outside -0.5 .. 0.5 cycles per sample", fn, c->shift);
  if (c->shift != 0.0 && c->sample != CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: a frequency shift needs a complex stream (config.sample = "
                            "CONVOY_SAMPLE_CF32)",
                            fn);
  return CONVOY_OK;
}

/* h'[j] = (re[j] + j im[j]) e^{j 2 pi f j}, into out_re, out_im. */
static void rotate_taps(const float *re, const float *im, int64_t len, double f, float *out_re,
                        float *out_im) {
  for (int64_t j = 0; j < len; j++) {
    const double ph = TWO_PI * rotator_frac(f, j);
    const double c = cos(ph), sn = sin(ph), a = re[j], b = im ? im[j] : 0.0;
    out_re[j] = (float)(a * c - b * sn);
    out_im[j] = (float)(a * sn + b * c);
  }
}

convoy_status decim_setup_taps(convoy_stream *s, const convoy_stream_config *c) {
  if (c->decimation == 1 && c->shift == 0.0) return CONVOY_OK;
  stream_decim *d = calloc(1, sizeof *d);
  if (!d) return CONVOY_ERR_OUT_OF_MEMORY;
  s->dec = d;
  d->factor = c->decimation;
  d->shift = c->shift;
  if (d->shift == 0.0) return CONVOY_OK;
  rotator_init(&d->rot, d->shift, d->factor);
  /* A complex stream: row 2c holds the real part of channel c's taps, row
   * 2c + 1 the imaginary part (complex_taps) or the same real taps again. */
  const int64_t len = s->taps_len;
  const int32_t units = s->n_filters == 1 ? 1 : s->channels;
  if ((uint64_t)len > SIZE_MAX / sizeof(float) / 2 / (uint64_t)units)
    return CONVOY_ERR_OUT_OF_MEMORY;
  d->rot_taps = malloc(sizeof(float) * 2 * (size_t)units * (size_t)len);
  if (!d->rot_taps) return CONVOY_ERR_OUT_OF_MEMORY;
  for (int32_t u = 0; u < units; u++) {
    const float *re = s->taps[2 * u], *im = s->complex_taps ? s->taps[2 * u + 1] : NULL;
    rotate_taps(re, im, len, d->shift, d->rot_taps + (size_t)(2 * u) * (size_t)len,
                d->rot_taps + (size_t)(2 * u + 1) * (size_t)len);
  }
  for (int32_t ch = 0; ch < s->channels; ch++) {
    const int32_t u = units == 1 ? 0 : ch;
    s->taps[2 * ch] = d->rot_taps + (size_t)(2 * u) * (size_t)len;
    s->taps[2 * ch + 1] = d->rot_taps + (size_t)(2 * u + 1) * (size_t)len;
  }
  s->complex_taps = 1;
  return CONVOY_OK;
}

const engine_ops *decim_choose_engine(const convoy_stream *s, convoy_engine wanted,
                                      engine_request *r, char *err, size_t err_size) {
  if (s->dec->factor > 1) r->decimation = (int32_t)s->dec->factor;
  if (wanted != CONVOY_ENGINE_AUTO && wanted != CONVOY_ENGINE_CPU)
    return engine_choose(wanted, r, err, err_size);
  /* cpu-direct's strided path evaluates only the kept outputs; cpu-fft's
   * cost already counts its folded inverse (r->decimation). */
  const engine_ops *direct = engine_cpu_direct(), *fft = engine_cpu_fft(), *best = NULL;
  const double cd = direct ? direct->cost(r) / (double)s->dec->factor : -1.0;
  const double cf = fft ? fft->cost(r) : -1.0;
  double cost = -1.0;
  if (cd >= 0.0 && (cf < 0.0 || cd <= cf)) {
    best = direct;
    cost = cd;
  } else if (cf >= 0.0) {
    best = fft;
    cost = cf;
  }
  if (wanted == CONVOY_ENGINE_AUTO && convoy_engine_available(CONVOY_ENGINE_GPU)) {
    char ignored[CONVOY_ERROR_SIZE];
    const engine_ops *gpu = engine_choose(CONVOY_ENGINE_GPU, r, ignored, sizeof ignored);
    const double cg = gpu ? gpu->cost(r) : -1.0;
    if (cg >= 0.0 && (!best || cg < cost)) best = gpu;
  }
  return best ? best : engine_choose(wanted, r, err, err_size);
}

convoy_status decim_setup_engine(convoy_stream *s, int32_t threads) {
  stream_decim *d = s->dec;
  if (!d || d->factor == 1 || s->ops->id != CONVOY_ENGINE_CPU_DIRECT) return CONVOY_OK;
  if (threads > 1 && !(d->pool = pool_create(threads))) return CONVOY_ERR_OUT_OF_MEMORY;
  const int64_t len = s->taps_len;
  d->slots = threads > 1 ? threads : 1;
  d->scratch_floats = decim_direct_scratch(len, d->factor);
  d->poly_of = malloc(sizeof(float *) * (size_t)s->rows);
  d->poly = malloc(sizeof(float) * (size_t)s->rows * (size_t)len);
  d->real_pair = calloc((size_t)s->channels, sizeof(int));
  d->scratch = malloc(sizeof(float) * d->scratch_floats * (size_t)d->slots);
  float *rev = malloc(sizeof(float) * (size_t)len);
  if (!d->poly_of || !d->poly || !d->real_pair || !d->scratch || !rev) {
    free(rev);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  int32_t next = 0;
  for (int32_t row = 0; row < s->rows; row++) {
    int32_t same = -1;
    for (int32_t o = 0; o < row && same < 0; o++) same = s->taps[o] == s->taps[row] ? o : -1;
    if (same >= 0) {
      d->poly_of[row] = d->poly_of[same];
      continue;
    }
    float *poly = d->poly + (size_t)next++ * (size_t)len;
    for (int64_t k = 0; k < len; k++) rev[k] = s->taps[row][len - 1 - k];
    decim_direct_taps(rev, len, d->factor, poly);
    d->poly_of[row] = poly;
  }
  free(rev);
  if (s->complex_taps) {
    for (int32_t ch = 0; ch < s->channels; ch++) {
      const float *im = s->taps[2 * ch + 1];
      int zero = 1;
      for (int64_t k = 0; k < len && zero; k++) zero = im[k] == 0.0f;
      d->real_pair[ch] = zero;
    }
  }
  d->strided = 1;
  return CONVOY_OK;
}

/* Outputs [m0, m1) of unit u (a row, or a channel's row pair with
 * complex_taps) on the strided path, from the input rows at run index first,
 * with the scratch of thread slot `slot`. */
static void strided_unit(const convoy_stream *s, int32_t u, int64_t first, int64_t m0, int64_t m1,
                         int slot) {
  const stream_decim *d = s->dec;
  const int64_t len = s->taps_len, step = d->factor, at = first + m0 * step, n = m1 - m0;
  float *scratch = d->scratch + (size_t)slot * d->scratch_floats;
  if (n <= 0) return;
  if (!s->complex_taps) {
    decim_direct_real(s->in_buf[u] + at, d->poly_of[u], len, step, s->out_buf[u] + m0, n, scratch);
    return;
  }
  const int32_t r = 2 * u, i = 2 * u + 1;
  if (d->real_pair[u]) {
    decim_direct_real(s->in_buf[r] + at, d->poly_of[r], len, step, s->out_buf[r] + m0, n, scratch);
    decim_direct_real(s->in_buf[i] + at, d->poly_of[r], len, step, s->out_buf[i] + m0, n, scratch);
  } else {
    decim_direct_complex(s->in_buf[r] + at, s->in_buf[i] + at, d->poly_of[r], d->poly_of[i], len,
                         step, s->out_buf[r] + m0, s->out_buf[i] + m0, n, scratch);
  }
}

typedef struct strided_job {
  const convoy_stream *s;
  int64_t first, kept, parts;
} strided_job;

static void strided_task(void *ctx, int64_t task) {
  const strided_job *j = ctx;
  const int32_t u = (int32_t)(task / j->parts);
  const int64_t part = task % j->parts;
  /* The pool's own slots: 0 the calling thread, 1 .. threads - 1 its workers. */
  const int slot = pool_worker_slot();
  strided_unit(j->s, u, j->first, j->kept * part / j->parts, j->kept * (part + 1) / j->parts,
               slot < j->s->dec->slots ? slot : 0);
}

/* The kept outputs of the strided path, straight from the input rows; on
 * the pool when the work pays for the threads. Which thread computes an
 * output does not change its bits. */
static void run_strided(convoy_stream *s, int64_t first, int64_t kept) {
  const stream_decim *d = s->dec;
  const int32_t units = s->complex_taps ? s->channels : s->rows;
  const double work = (double)kept * (double)s->rows * (double)s->taps_len *
                      (s->complex_taps ? 2.0 : 1.0) * STRIDED_NS_PER_TAP;
  if (!d->pool || work < STRIDED_PARALLEL_NS || kept < 2) {
    for (int32_t u = 0; u < units; u++) strided_unit(s, u, first, 0, kept, 0);
    return;
  }
  const int64_t threads = pool_threads(d->pool);
  strided_job job = {s, first, kept, (4 * threads + units - 1) / units};
  if (job.parts > kept) job.parts = kept;
  pool_run(d->pool, job.parts * units, strided_task, &job);
}

convoy_status decim_run(convoy_stream *s, int64_t n, int64_t keep, int64_t *kept, char *err,
                        size_t err_size) {
  const stream_decim *d = s->dec;
  const int64_t step = d->factor, pos = s->full_pos;
  const int64_t first = (step - pos % step) % step; /* run index of the first kept output */
  const int64_t count = decim_count(step, pos, keep);
  *kept = 0;
  if (d->strided) {
    run_strided(s, first, count);
  } else if (step > 1 && s->ops->run_decimated) {
    convoy_status st = s->ops->run_decimated(s->impl, (const float *const *)s->in_buf, s->out_buf,
                                             n, first, step, err, err_size);
    if (st != CONVOY_OK) return st;
  } else {
    convoy_status st =
        s->ops->run(s->impl, (const float *const *)s->in_buf, s->out_buf, n, err, err_size);
    if (st != CONVOY_OK) return st;
    if (step > 1)
      for (int32_t row = 0; row < s->rows; row++) {
        float *o = s->out_buf[row];
        for (int64_t m = 0; m < count; m++) o[m] = o[first + m * step];
      }
  }
  if (d->shift != 0.0)
    for (int32_t ch = 0; ch < s->channels; ch++)
      rotator_apply(&d->rot, s->out_buf[2 * ch], s->out_buf[2 * ch + 1], count,
                    (pos + first) / step);
  *kept = count;
  return CONVOY_OK;
}

void decim_destroy(stream_decim *d) {
  if (!d) return;
  pool_destroy(d->pool);
  free(d->rot_taps);
  free(d->poly);
  free(d->poly_of);
  free(d->scratch);
  free(d->real_pair);
  free(d);
}
