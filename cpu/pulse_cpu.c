/*
 * pulse_cpu.c - the CPU pulse compressor: per pulse, one complex FFTW
 * transform of the whole zero-padded pulse (length N >= L + T - 1, so the
 * circular correlation is the linear one), a product with the matched
 * filter's spectrum (1/N folded in, computed once at create), the inverse
 * transform and the output window copied out.
 *
 * Threads: pulses are tasks of a worker_pool, each thread with its own
 * N-sample buffer made at create (pool_worker_slot() picks it); the plans
 * run through FFTW's new-array execute, which is thread-safe. A pulse's
 * result depends only on its samples, so it is the same on any thread.
 */
#include "error_internal.h"
#include "fftw_lock.h"
#include "pulse_internal.h"
#include "worker_pool.h"

#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pulse_cpu {
  pulse_geom g; /* h is not kept */
  int32_t threads;
  fftwf_plan forward, inverse;
  fftwf_complex *spectrum; /* N bins of the matched filter, times 1/N */
  fftwf_complex **buf;     /* [threads] -> N */
  worker_pool *pool;       /* NULL with one thread */
  const float *in;         /* the run in progress */
  float *out;
} pulse_cpu;

static void pulse_cpu_destroy(pulse_cpu *p) {
  if (!p) return;
  pool_destroy(p->pool);
  convoy_fftw_lock();
  if (p->forward) fftwf_destroy_plan(p->forward);
  if (p->inverse) fftwf_destroy_plan(p->inverse);
  convoy_fftw_unlock();
  if (p->buf)
    for (int32_t t = 0; t < p->threads; t++) fftwf_free(p->buf[t]);
  free(p->buf);
  fftwf_free(p->spectrum);
  free(p);
}

static convoy_status pulse_cpu_create(const pulse_geom *g, pulse_cpu **out, char *err,
                                      size_t err_size) {
  *out = NULL;
  if (g->fft_size > INT32_MAX)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: FFT length %lld is too long for the CPU engine",
                               (long long)g->fft_size);
  pulse_cpu *p = calloc(1, sizeof *p);
  if (!p) goto oom;
  p->g = *g;
  p->g.h = NULL;
  int64_t threads = g->threads < 1 ? 1 : g->threads;
  if (threads > pulse_count(g)) threads = pulse_count(g);
  p->threads = (int32_t)threads;
  const size_t n = (size_t)g->fft_size;
  p->spectrum = fftwf_malloc(sizeof(fftwf_complex) * n);
  p->buf = calloc((size_t)p->threads, sizeof *p->buf);
  if (!p->spectrum || !p->buf) goto oom;
  for (int32_t t = 0; t < p->threads; t++)
    if (!(p->buf[t] = fftwf_malloc(sizeof(fftwf_complex) * n))) goto oom;
  const unsigned flags = g->plan_effort >= 1 ? FFTW_MEASURE : FFTW_ESTIMATE;
  convoy_fftw_lock();
  p->forward = fftwf_plan_dft_1d((int)n, p->buf[0], p->buf[0], FFTW_FORWARD, flags);
  p->inverse = fftwf_plan_dft_1d((int)n, p->buf[0], p->buf[0], FFTW_BACKWARD, flags);
  convoy_fftw_unlock();
  if (!p->forward || !p->inverse) {
    pulse_cpu_destroy(p);
    return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND,
                               "pulse: FFTW could not plan a transform of %zu points", n);
  }
  memset(p->spectrum, 0, sizeof(fftwf_complex) * n);
  const float scale = 1.0f / (float)n;
  for (int64_t k = 0; k < g->template_len; k++) {
    p->spectrum[k][0] = g->h[2 * k] * scale;
    p->spectrum[k][1] = g->h[2 * k + 1] * scale;
  }
  fftwf_execute_dft(p->forward, p->spectrum, p->spectrum);
  if (p->threads > 1 && !(p->pool = pool_create(p->threads))) {
    pulse_cpu_destroy(p);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "pulse: could not start %d CPU threads", (int)threads);
  }
  *out = p;
  return CONVOY_OK;
oom:
  pulse_cpu_destroy(p);
  return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "pulse: out of memory for FFT buffers of %lld samples",
                             (long long)g->fft_size);
}

static void multiply(fftwf_complex *restrict x, const fftwf_complex *restrict h, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    const float a = x[k][0], b = x[k][1], c = h[k][0], d = h[k][1];
    x[k][0] = a * c - b * d;
    x[k][1] = a * d + b * c;
  }
}

/* Task t is pulse t of the batch in [channel][pulse] order. */
static void compress_pulse(void *ctx, int64_t t) {
  pulse_cpu *p = ctx;
  const pulse_geom *g = &p->g;
  fftwf_complex *buf = p->buf[p->pool ? pool_worker_slot() : 0];
  const int64_t L = g->pulse_len, n = g->fft_size, m = g->out_len, s0 = g->out_start;
  int64_t in_at, out_at, stride;
  if (g->layout == CONVOY_PULSE_CONTIGUOUS) {
    in_at = t * L;
    out_at = t * m;
    stride = 1;
  } else {
    const int64_t c = t / g->pulses, pulse = t % g->pulses;
    in_at = pulse * L * g->channels + c;
    out_at = pulse * m * g->channels + c;
    stride = g->channels;
  }
  const float *x = p->in + 2 * in_at;
  if (stride == 1) {
    memcpy(buf, x, sizeof(fftwf_complex) * (size_t)L);
  } else {
    for (int64_t i = 0; i < L; i++) {
      buf[i][0] = x[2 * i * stride];
      buf[i][1] = x[2 * i * stride + 1];
    }
  }
  memset(buf + L, 0, sizeof(fftwf_complex) * (size_t)(n - L));
  fftwf_execute_dft(p->forward, buf, buf);
  multiply(buf, p->spectrum, n);
  fftwf_execute_dft(p->inverse, buf, buf);
  float *y = p->out + 2 * out_at;
  if (stride == 1) {
    memcpy(y, buf + s0, sizeof(fftwf_complex) * (size_t)m);
  } else {
    for (int64_t i = 0; i < m; i++) {
      y[2 * i * stride] = buf[s0 + i][0];
      y[2 * i * stride + 1] = buf[s0 + i][1];
    }
  }
}

static convoy_status pulse_cpu_run(pulse_cpu *p, const float *in, float *out, char *err,
                                   size_t err_size) {
  (void)err, (void)err_size;
  p->in = in;
  p->out = out;
  const int64_t tasks = pulse_count(&p->g);
  if (p->pool) {
    pool_run(p->pool, tasks, compress_pulse, p);
  } else {
    for (int64_t t = 0; t < tasks; t++) compress_pulse(p, t);
  }
  p->in = NULL;
  p->out = NULL;
  return CONVOY_OK;
}

static convoy_status cpu_create(const pulse_geom *g, int plan, void **impl, char *err,
                                size_t err_size) {
  (void)plan; /* one plan: a transform of fft_size per pulse */
  pulse_cpu *p = NULL;
  convoy_status st = pulse_cpu_create(g, &p, err, err_size);
  *impl = p;
  return st;
}

static convoy_status cpu_run(void *impl, const float *in, float *out, char *err, size_t err_size) {
  return pulse_cpu_run(impl, in, out, err, err_size);
}

static void cpu_describe(const void *impl, char *buf, size_t buf_size) {
  const pulse_cpu *p = impl;
  const int64_t pulses = pulse_count(&p->g);
  snprintf(buf, buf_size, "FFTW N=%lld, %d threads", (long long)p->g.fft_size,
           (int)(p->g.threads < pulses ? p->g.threads : pulses));
}

static void cpu_destroy(void *impl) {
  pulse_cpu_destroy(impl);
}

static const pulse_backend_ops cpu_ops = {
    .create = cpu_create,
    .run_host = cpu_run,
    .run_device = NULL,
    .describe = cpu_describe,
    .destroy = cpu_destroy,
};

const pulse_backend_ops *pulse_backend_cpu(void) {
  return &cpu_ops;
}
