/*
 * test_pulse.c - batched pulse compression (convoy_pulse.h): every engine
 * and GPU plan against a double-precision direct correlation computed here
 * (window and normalisation re-derived from their definitions), on random
 * geometries, every mode, window, normalisation and layout; echo positions;
 * CPU vs GPU and host vs device runs; and the errors.
 */
#include "convoy_pulse.h"
#include "pulse_internal.h"
#include "test_support.h"

#ifdef CONVOY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-5

static const char *mode_name[] = {"full", "same", "valid"};
static const char *window_name[] = {"none", "hamming", "hann", "kaiser"};

typedef struct pcase {
  convoy_pulse_config cfg;
  float *x;  /* input, contiguous layout, C P L complex */
  float *tp; /* template, T complex */
} pcase;

static double ref_window(convoy_pulse_window w, double beta, int64_t j, int64_t t) {
  if (t == 1) return 1.0;
  const double x = (double)j / (double)(t - 1), pi = acos(-1.0);
  switch (w) {
  case CONVOY_WINDOW_HAMMING:
    return 0.54 - 0.46 * cos(2.0 * pi * x);
  case CONVOY_WINDOW_HANN:
    return 0.5 - 0.5 * cos(2.0 * pi * x);
  case CONVOY_WINDOW_KAISER: {
    /* I0 by its integral form, (1/pi) int_0^pi exp(z cos a) da, midpoint rule. */
    double r = 2.0 * x - 1.0, z = beta * sqrt(fmax(0.0, 1.0 - r * r)), num = 0, den = 0;
    for (int k = 0; k < 2000; k++) {
      const double a = pi * (k + 0.5) / 2000.0;
      num += exp(z * cos(a));
      den += exp(beta * cos(a));
    }
    return num / den;
  }
  default:
    return 1.0;
  }
}

/* Output window of the full correlation, from the modes' definitions. */
static void ref_range(const convoy_pulse_config *c, int64_t *start, int64_t *len) {
  const int64_t L = c->pulse_len, T = c->template_len;
  if (c->mode == CONVOY_PULSE_SAME) {
    *start = (T - 1) / 2;
    *len = L;
  } else if (c->mode == CONVOY_PULSE_VALID) {
    *start = T - 1;
    *len = L - T + 1;
  } else {
    *start = 0;
    *len = L + T - 1;
  }
}

/* The windowed, normalised template, from the definitions (T values). */
static double complex *ref_template(const pcase *pc) {
  const convoy_pulse_config *c = &pc->cfg;
  const int64_t T = c->template_len;
  double complex *w = malloc(sizeof *w * (size_t)T);
  double energy = 0;
  for (int64_t j = 0; j < T; j++) {
    w[j] = ref_window(c->window, c->kaiser_beta, j, T) * (pc->tp[2 * j] + I * pc->tp[2 * j + 1]);
    energy += creal(w[j] * conj(w[j]));
  }
  const double s = c->normalize ? 1.0 / sqrt(energy) : 1.0;
  for (int64_t j = 0; j < T; j++) w[j] *= s;
  return w;
}

/* Reference output of pulse k (contiguous), len complex values as 2 len
 * doubles: the direct correlation sum. */
static void ref_pulse(const pcase *pc, const double complex *w, int64_t k, double *y) {
  const convoy_pulse_config *c = &pc->cfg;
  const int64_t L = c->pulse_len, T = c->template_len;
  int64_t start, len;
  ref_range(c, &start, &len);
  const float *x = pc->x + 2 * k * L;
  for (int64_t i = 0; i < len; i++) {
    const int64_t n = start + i;
    double complex acc = 0;
    for (int64_t j = 0; j < T; j++) {
      const int64_t m = n - (T - 1) + j;
      if (m >= 0 && m < L) acc += (x[2 * m] + I * x[2 * m + 1]) * conj(w[j]);
    }
    y[2 * i] = creal(acc);
    y[2 * i + 1] = cimag(acc);
  }
}

/* Relative L2 error of out (contiguous) against the reference, worst pulse. */
static double check_reference(const pcase *pc, const float *out) {
  int64_t start, len;
  ref_range(&pc->cfg, &start, &len);
  double complex *w = ref_template(pc);
  double *y = malloc(sizeof(double) * 2 * (size_t)len), worst = 0;
  const int64_t pulses = (int64_t)pc->cfg.channels * pc->cfg.pulses;
  for (int64_t k = 0; k < pulses; k++) {
    ref_pulse(pc, w, k, y);
    const double e = ts_rel_l2(out + 2 * k * len, 1, y, 2 * len);
    if (!(e <= worst)) worst = e;
  }
  free(y);
  free(w);
  return worst;
}

static void pcase_fill(pcase *pc, ts_rng *rng);

static void pcase_make(pcase *pc, ts_rng *rng, int64_t max_len) {
  memset(pc, 0, sizeof *pc);
  convoy_pulse_config *c = &pc->cfg;
  convoy_pulse_config_init(c);
  c->channels = (int32_t)ts_range(rng, 1, 4);
  c->pulses = (int32_t)ts_log_range(rng, 1, 16);
  c->pulse_len = ts_log_range(rng, 1, max_len);
  c->template_len = ts_log_range(rng, 1, c->pulse_len);
  /* Keep the direct reference affordable: shed pulses, then template length. */
  while ((double)c->channels * c->pulses * c->pulse_len * c->template_len > 2e7 && c->pulses > 1)
    c->pulses /= 2;
  while ((double)c->channels * c->pulses * c->pulse_len * c->template_len > 2e7)
    c->template_len = (c->template_len + 1) / 2;
  c->mode = (convoy_pulse_mode)ts_range(rng, 0, 2);
  c->window = (convoy_pulse_window)ts_range(rng, 0, 3);
  c->kaiser_beta = 10.0 * ts_uniform(rng);
  c->normalize = (int32_t)ts_range(rng, 0, 1);
  c->threads = (int32_t)ts_range(rng, 1, 3);
  pcase_fill(pc, rng);
}

/* Random input and template for the geometry in pc->cfg. */
static void pcase_fill(pcase *pc, ts_rng *rng) {
  convoy_pulse_config *c = &pc->cfg;
  if (c->window == CONVOY_WINDOW_HANN && c->template_len <= 2) c->normalize = 0; /* all zero */
  const int64_t n = (int64_t)c->channels * c->pulses * c->pulse_len;
  pc->x = malloc(sizeof(float) * 2 * (size_t)n);
  pc->tp = malloc(sizeof(float) * 2 * (size_t)c->template_len);
  ts_fill_uniform(rng, pc->x, 2 * n);
  ts_fill_uniform(rng, pc->tp, 2 * c->template_len);
  pc->tp[0] += 1.5f; /* never all zero: normalisation needs energy */
  c->waveform = pc->tp;
}

static void pcase_free(pcase *pc) {
  free(pc->x);
  free(pc->tp);
}

static void describe_case(const pcase *pc, char *buf, size_t size) {
  const convoy_pulse_config *c = &pc->cfg;
  snprintf(buf, size, "C=%d P=%d L=%lld T=%lld %s %s%s", (int)c->channels, (int)c->pulses,
           (long long)c->pulse_len, (long long)c->template_len, mode_name[c->mode],
           window_name[c->window], c->normalize ? " normalized" : "");
}

/* contiguous [c][p][s] <-> interleaved [p][s][c] */
static void to_interleaved(const float *a, float *b, int32_t C, int32_t P, int64_t n) {
  for (int32_t c = 0; c < C; c++)
    for (int32_t p = 0; p < P; p++)
      for (int64_t s = 0; s < n; s++) {
        const int64_t from = ((int64_t)c * P + p) * n + s, to = ((int64_t)p * n + s) * C + c;
        b[2 * to] = a[2 * from];
        b[2 * to + 1] = a[2 * from + 1];
      }
}

/* Back to contiguous: the inverse permutation of to_interleaved, for pulses
 * of m samples. */
static void from_interleaved(const float *yi, float *out, int32_t C, int32_t P, int64_t m) {
  for (int32_t ch = 0; ch < C; ch++)
    for (int32_t q = 0; q < P; q++)
      for (int64_t s = 0; s < m; s++) {
        const int64_t to = ((int64_t)ch * P + q) * m + s;
        const int64_t from = ((int64_t)q * m + s) * C + ch;
        out[2 * to] = yi[2 * from];
        out[2 * to + 1] = yi[2 * from + 1];
      }
}

/* GPU runs of plan 3 (fused with a tail stage) that had a tail stage. */
static int g_tail_runs;

/* Runs the case on one engine/plan in one layout; returns the output in the
 * contiguous layout (malloc'd) or NULL when creation failed with `skip_ok`. */
static float *run_case(const pcase *pc, convoy_engine engine, int plan, convoy_pulse_layout layout,
                       convoy_status *status) {
  convoy_pulse_config c = pc->cfg;
  c.engine = engine;
  c.layout = layout;
  convoy_pulse *p = NULL;
  *status = pulse_create_with_plan(&p, &c, plan);
  if (*status != CONVOY_OK) return NULL;
  if (engine == CONVOY_ENGINE_GPU && plan == 3) {
    char d[512];
    convoy_pulse_describe(p, d, sizeof d);
    g_tail_runs += strstr(d, " segments of ") && strstr(d, " + ") != NULL;
  }
  const int64_t ni = convoy_pulse_input_samples(p), no = convoy_pulse_output_samples(p);
  float *out = malloc(sizeof(float) * 2 * (size_t)no);
  if (layout == CONVOY_PULSE_CONTIGUOUS) {
    TS_CHECK_OK(convoy_pulse_run(p, pc->x, out));
  } else {
    float *xi = malloc(sizeof(float) * 2 * (size_t)ni),
          *yi = malloc(sizeof(float) * 2 * (size_t)no);
    to_interleaved(pc->x, xi, c.channels, c.pulses, c.pulse_len);
    TS_CHECK_OK(convoy_pulse_run(p, xi, yi));
    from_interleaved(yi, out, c.channels, c.pulses, convoy_pulse_output_len(p));
    free(xi);
    free(yi);
  }
  convoy_pulse_destroy(p);
  return out;
}

static int is_smooth7(int64_t n) {
  const int f[4] = {2, 3, 5, 7};
  for (int i = 0; i < 4; i++)
    while (n % f[i] == 0) n /= f[i];
  return n == 1;
}

static void test_fft_size(ts_rng *rng) {
  for (int i = 0; i < 200; i++) {
    const int64_t n = ts_log_range(rng, 1, 1 << 24), s = pulse_smooth_size(n);
    int ok = s >= n && is_smooth7(s);
    for (int64_t m = n; ok && m < s; m++) ok = !is_smooth7(m);
    TS_CHECK(ok, "pulse_smooth_size(%lld) = %lld", (long long)n, (long long)s);
  }
  TS_CHECK(pulse_smooth_size(9999) == 10000, "9999 -> %lld", (long long)pulse_smooth_size(9999));
}

/* A pulse holding the template at delay d peaks at the documented index. */
static void test_echo(convoy_engine engine, int plan) {
  const int64_t L = 300, T = 40, d = 117;
  float tp[2 * 40], x[2 * 300];
  for (int64_t j = 0; j < T; j++) { /* a chirp: sharp autocorrelation */
    const double ph = 0.02 * (double)(j * j);
    tp[2 * j] = (float)cos(ph);
    tp[2 * j + 1] = (float)sin(ph);
  }
  memset(x, 0, sizeof x);
  memcpy(x + 2 * d, tp, sizeof tp);
  const int64_t expect[3] = {d + T - 1, d + T - 1 - (T - 1) / 2, d};
  for (int mode = 0; mode < 3; mode++) {
    convoy_pulse_config c;
    convoy_pulse_config_init(&c);
    c.pulse_len = L;
    c.waveform = tp;
    c.template_len = T;
    c.mode = (convoy_pulse_mode)mode;
    c.normalize = 1;
    c.engine = engine;
    convoy_pulse *p = NULL;
    TS_CHECK_OK(pulse_create_with_plan(&p, &c, plan));
    if (!p) continue;
    const int64_t m = convoy_pulse_output_len(p);
    float *y = malloc(sizeof(float) * 2 * (size_t)m);
    TS_CHECK_OK(convoy_pulse_run(p, x, y));
    int64_t best = -1;
    double peak = -1;
    for (int64_t i = 0; i < m; i++) {
      const double a = hypot(y[2 * i], y[2 * i + 1]);
      if (a > peak) peak = a, best = i;
    }
    /* normalised template: the peak is the template's own energy^(1/2) = sqrt(T) */
    TS_CHECK(best == expect[mode] && fabs(peak - sqrt((double)T)) < 1e-4,
             "%s %s: peak %.6f at %lld, expected sqrt(%lld) at %lld", convoy_engine_name(engine),
             mode_name[mode], peak, (long long)best, (long long)T, (long long)expect[mode]);
    free(y);
    convoy_pulse_destroy(p);
  }
}

static void test_errors(void) {
  float tp[2 * 8] = {1, 0};
  float x[2 * 16] = {0};
  convoy_pulse_config c;
  convoy_pulse_config_init(&c);
  c.pulse_len = 5;
  c.waveform = tp;
  c.template_len = 8;
  convoy_pulse *p = NULL;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT && !p, "T > L accepted");
  TS_CHECK(strstr(convoy_last_error(), "8") && strstr(convoy_last_error(), "5"),
           "message names both lengths: %s", convoy_last_error());
  c.template_len = 4;
  c.channels = 0;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT, "channels 0");
  c.channels = 1;
  c.pulses = 0;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT, "pulses 0");
  c.pulses = 1;
  c.pulse_len = 0;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT, "pulse_len 0");
  c.pulse_len = 16;
  c.waveform = NULL;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT, "no waveform");
  c.waveform = tp;
  c.mode = (convoy_pulse_mode)7;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT, "bad mode");
  c.mode = CONVOY_PULSE_VALID;
  c.plan_effort = 2;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT && !p &&
               strstr(convoy_last_error(), "plan_effort 2"),
           "plan_effort 2: %s", convoy_last_error());
  c.plan_effort = 0;
  c.engine = CONVOY_ENGINE_CPU_DIRECT;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_UNSUPPORTED, "direct engine");
  c.engine = CONVOY_ENGINE_CPU;
  float zero[2 * 4] = {0};
  c.waveform = zero;
  c.normalize = 1;
  TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_INVALID_ARGUMENT && !p,
           "zero-energy template normalised");
  c.normalize = 0;
  TS_CHECK_OK(convoy_pulse_create(&p, &c)); /* without normalisation it is allowed */
  convoy_pulse_destroy(p);
  c.waveform = tp;
  TS_CHECK_OK(convoy_pulse_create(&p, &c));
  if (p) {
    TS_CHECK(convoy_pulse_output_len(p) == 13, "valid length %lld",
             (long long)convoy_pulse_output_len(p));
    TS_CHECK(convoy_pulse_run(p, x, x + 2) == CONVOY_ERR_INVALID_ARGUMENT, "overlap accepted");
    TS_CHECK(convoy_pulse_run(p, NULL, x) == CONVOY_ERR_INVALID_ARGUMENT, "NULL input");
    TS_CHECK(convoy_pulse_run_device(p, x, x + 2, NULL) == CONVOY_ERR_UNSUPPORTED,
             "run_device on the CPU engine");
    TS_CHECK(convoy_pulse_last_error(p)[0] != '\0', "no message");
    convoy_pulse_destroy(p);
  }
  if (convoy_gpu_count() == 0) {
    c.engine = CONVOY_ENGINE_GPU;
    TS_CHECK(convoy_pulse_create(&p, &c) == CONVOY_ERR_NO_DEVICE, "GPU without a device");
  }
  convoy_pulse_destroy(NULL);

  convoy_pulse_window w;
  double beta = 0;
  TS_CHECK_OK(convoy_pulse_window_from_name("kaiser:beta=5.5", &w, &beta));
  TS_CHECK(w == CONVOY_WINDOW_KAISER && beta == 5.5, "kaiser parse");
  TS_CHECK_OK(convoy_pulse_window_from_name("hann", &w, NULL));
  TS_CHECK(w == CONVOY_WINDOW_HANN, "hann parse");
  TS_CHECK(convoy_pulse_window_from_name("kaiser:beta=x", &w, &beta) == CONVOY_ERR_INVALID_ARGUMENT,
           "bad beta");
  TS_CHECK(convoy_pulse_window_from_name("blackman", &w, &beta) == CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(convoy_last_error(), "blackman"),
           "unknown window");
}

#ifdef CONVOY_HAVE_CUDA
/* The GPU's fused plan: by the model with plan_effort 0, whatever the
 * process has timed before (so every run computes the same bits), by timing
 * with 1; both plans within the tolerance of the reference. */
static void test_plan_effort(ts_rng *rng) {
  pcase pc;
  memset(&pc, 0, sizeof pc);
  convoy_pulse_config_init(&pc.cfg);
  TS_CHECK(pc.cfg.plan_effort == 0, "default plan_effort %d", (int)pc.cfg.plan_effort);
  pc.cfg.channels = 2;
  pc.cfg.pulses = 3;
  pc.cfg.pulse_len = 3000;
  pc.cfg.template_len = 300; /* fits M = 1024 .. 8192: several plans to time */
  pcase_fill(&pc, rng);
  const int effort[3] = {0, 1, 0};
  char first[512] = "";
  for (int i = 0; i < 3; i++) {
    convoy_pulse_config c = pc.cfg;
    c.engine = CONVOY_ENGINE_GPU;
    c.plan_effort = effort[i];
    convoy_pulse *p = NULL;
    TS_CHECK_OK(convoy_pulse_create(&p, &c));
    if (!p) continue;
    char d[512];
    convoy_pulse_describe(p, d, sizeof d);
    if (effort[i] == 0) {
      TS_CHECK(strstr(d, " (model)") != NULL, "plan_effort 0 plan: %s", d);
      if (i == 0)
        snprintf(first, sizeof first, "%s", d);
      else
        TS_CHECK(!strcmp(d, first), "plan_effort 0 after timing: %s, before: %s", d, first);
    } else {
      TS_CHECK(strstr(d, "(timed:") != NULL, "plan_effort 1 plan: %s", d);
    }
    float *y = malloc(sizeof(float) * 2 * (size_t)convoy_pulse_output_samples(p));
    TS_CHECK_OK(convoy_pulse_run(p, pc.x, y));
    const double e = check_reference(&pc, y);
    TS_CHECK(e < TOL, "plan_effort %d: rel error %.3g (%s)", effort[i], e, d);
    free(y);
    convoy_pulse_destroy(p);
  }
  pcase_free(&pc);
}

/* Device-resident run: the same bits as the host run of the same plan. */
static void check_device_run(const pcase *pc, int plan, convoy_pulse_layout layout,
                             const float *host_out) {
  convoy_pulse *p = NULL;
  convoy_pulse_config c = pc->cfg;
  c.engine = CONVOY_ENGINE_GPU;
  c.layout = layout;
  if (pulse_create_with_plan(&p, &c, plan) != CONVOY_OK) return;
  const size_t ib = sizeof(float) * 2 * (size_t)convoy_pulse_input_samples(p);
  const size_t ob = sizeof(float) * 2 * (size_t)convoy_pulse_output_samples(p);
  void *di = NULL, *dout = NULL;
  cudaStream_t s = NULL;
  float *y = malloc(ob), *x = malloc(ib), *yi = malloc(ob);
  const int il = layout == CONVOY_PULSE_INTERLEAVED;
  if (il) to_interleaved(pc->x, x, c.channels, c.pulses, c.pulse_len);
  if (cudaMalloc(&di, ib) == cudaSuccess && cudaMalloc(&dout, ob) == cudaSuccess &&
      cudaStreamCreate(&s) == cudaSuccess) {
    cudaMemcpy(di, il ? x : pc->x, ib, cudaMemcpyHostToDevice);
    TS_CHECK_OK(convoy_pulse_run_device(p, di, dout, (void *)s));
    TS_CHECK(cudaStreamSynchronize(s) == cudaSuccess, "device run failed");
    cudaMemcpy(il ? yi : y, dout, ob, cudaMemcpyDeviceToHost);
    if (il) from_interleaved(yi, y, c.channels, c.pulses, convoy_pulse_output_len(p));
    TS_CHECK(!memcmp(y, host_out, ob), "plan %d %s: device run differs from host run", plan,
             layout ? "interleaved" : "contiguous");
  }
  if (s) cudaStreamDestroy(s);
  cudaFree(di);
  cudaFree(dout);
  free(y);
  free(x);
  free(yi);
  convoy_pulse_destroy(p);
}
#endif

/* Case pc on the CPU and (have_gpu) on every GPU plan in layout, against
 * the reference and each other. */
static void check_case(const pcase *pc, convoy_pulse_layout layout, int have_gpu) {
  char what[160];
  describe_case(pc, what, sizeof what);
  convoy_status st;
  float *cpu = run_case(pc, CONVOY_ENGINE_CPU, 0, CONVOY_PULSE_CONTIGUOUS, &st);
  TS_CHECK(cpu != NULL, "%s: create failed: %s", what, convoy_last_error());
  if (!cpu) return;
  const double e = check_reference(pc, cpu);
  TS_CHECK(e < TOL, "cpu %s: rel error %.3g", what, e);
  int64_t start, len;
  ref_range(&pc->cfg, &start, &len);
  const int64_t nout = 2 * len * pc->cfg.channels * pc->cfg.pulses;
  if (layout == CONVOY_PULSE_INTERLEAVED) {
    float *il = run_case(pc, CONVOY_ENGINE_CPU, 0, layout, &st);
    TS_CHECK(il && !memcmp(il, cpu, sizeof(float) * (size_t)nout),
             "cpu %s: interleaved layout differs", what);
    free(il);
  }
  for (int plan = 1; have_gpu && plan <= 3; plan++) {
    float *gpu = run_case(pc, CONVOY_ENGINE_GPU, plan, layout, &st);
    if (!gpu) {
      TS_CHECK(st == CONVOY_ERR_UNSUPPORTED && plan >= 2, "gpu plan %d %s: %s", plan, what,
               convoy_last_error());
      continue;
    }
    const double eg = check_reference(pc, gpu), d = ts_rel_diff_channel(gpu, cpu, 1, 0, nout);
    TS_CHECK(eg < TOL && d < TOL, "gpu plan %d %s %s: rel error %.3g, vs cpu %.3g", plan, what,
             layout ? "interleaved" : "contiguous", eg, d);
#ifdef CONVOY_HAVE_CUDA
    check_device_run(pc, plan, layout, gpu);
#endif
    free(gpu);
  }
  free(cpu);
}

static void test_random(ts_rng *rng, int cases, int64_t max_len, int have_gpu) {
  for (int i = 0; i < cases; i++) {
    pcase pc;
    pcase_make(&pc, rng, max_len);
    pc.cfg.plan_effort = (i / 2) % 2; /* estimate and measure, each in both layouts */
    check_case(&pc, (convoy_pulse_layout)(i % 2), have_gpu);
    pcase_free(&pc);
  }
}

/* check_case on a filled case of geometry {channels, pulses, pulse_len,
 * template_len} in mode and layout. */
static void check_geometry(ts_rng *rng, const int64_t geo[4], convoy_pulse_mode mode,
                           convoy_pulse_layout layout, int have_gpu) {
  pcase pc;
  memset(&pc, 0, sizeof pc);
  convoy_pulse_config_init(&pc.cfg);
  pc.cfg.channels = (int32_t)geo[0];
  pc.cfg.pulses = (int32_t)geo[1];
  pc.cfg.pulse_len = geo[2];
  pc.cfg.template_len = geo[3];
  pc.cfg.mode = mode;
  pcase_fill(&pc, rng);
  check_case(&pc, layout, have_gpu);
  pcase_free(&pc);
}

/* Geometries whose outputs leave a remainder after whole segments of
 * every fused size that fits, so that plan 3 runs a tail stage. */
static void test_tail(ts_rng *rng, int have_gpu) {
  static const int64_t geo[][4] = {{2, 3, 3000, 300}, {1, 2, 5000, 700}, {3, 1, 2500, 40}};
  for (int i = 0; i < 3; i++)
    check_geometry(rng, geo[i], (convoy_pulse_mode)(i % 3), (convoy_pulse_layout)(i % 2), have_gpu);
}

/* Batches of several MiB, which host runs cut into parts pipelined over
 * streams (rows that do not divide evenly among the parts): bitwise the
 * device-resident run of one launch, in both layouts. */
static void test_parts(ts_rng *rng, int have_gpu) {
  static const int64_t geo[][4] = {{5, 61, 9000, 40}, {3, 37, 6001, 300}};
  for (int i = 0; i < 2; i++)
    for (int layout = 0; layout < 2; layout++)
      check_geometry(rng, geo[i], CONVOY_PULSE_FULL, (convoy_pulse_layout)layout, have_gpu);
}

int main(void) {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_pulse"));
  const int have_gpu = convoy_gpu_count() > 0;
  test_fft_size(&rng);
  test_errors();
  test_echo(CONVOY_ENGINE_CPU, 0);
  test_random(&rng, ts_quick() ? 20 : 80, ts_quick() ? 1000 : 5000, have_gpu);
  test_tail(&rng, have_gpu);
  test_parts(&rng, have_gpu);
  if (have_gpu) {
    /* the tail stage must have been exercised, not only planned */
    TS_CHECK(g_tail_runs > 0, "no GPU run with a tail stage");
    printf("GPU runs with a tail stage: %d\n", g_tail_runs);
    test_echo(CONVOY_ENGINE_GPU, 1);
    test_echo(CONVOY_ENGINE_GPU, 2);
#ifdef CONVOY_HAVE_CUDA
    test_plan_effort(&rng);
#endif
  } else {
    printf("no GPU: GPU pulse compression not checked\n");
  }
  return ts_finish();
}
