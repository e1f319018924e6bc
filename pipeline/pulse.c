/* pulse.c - the pulse compressor's public object: configuration checks,
 * geometry, the choice among the backends of engine_list.def, and dispatch
 * to the chosen one. */
#include "engine.h"
#include "error_internal.h"
#include "pulse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Batches smaller than this (complex samples) go to the first listed backend
 * (the CPU's) under AUTO: a GPU's fixed costs (launches, transfers, a
 * synchronisation) dominate. */
#define AUTO_GPU_MIN_SAMPLES (INT64_C(1) << 16)
#define PULSE_LEN_MAX (INT64_C(1) << 26)

typedef struct pulse_row {
  const char *name;
  convoy_family family;
  const pulse_backend_ops *(*get)(void); /* NULL when not built */
} pulse_row;

static const pulse_row pulse_rows[] = {
#define CONVOY_PULSE_BACKEND(name, family, needs, getter)                                          \
  {name, family, CONVOY_BUILT_##needs(getter)},
#include "engine_list.def"
};
#define N_PULSE_ROWS ((int)(sizeof pulse_rows / sizeof pulse_rows[0]))

struct convoy_pulse {
  pulse_geom g;
  convoy_engine engine; /* the chosen backend's family choice (cpu, gpu) */
  float *h;             /* matched filter, 2T floats */
  const pulse_backend_ops *ops;
  void *impl;
  char err[CONVOY_ERROR_SIZE];
};

void convoy_pulse_config_init(convoy_pulse_config *config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  config->channels = 1;
  config->pulses = 1;
  config->mode = CONVOY_PULSE_FULL;
  config->window = CONVOY_WINDOW_NONE;
  config->kaiser_beta = 8.6;
  config->layout = CONVOY_PULSE_CONTIGUOUS;
  config->engine = CONVOY_ENGINE_AUTO;
  config->device = -1;
}

static convoy_status check_config(const convoy_pulse_config *c) {
  if (c->channels < 1 || c->channels > CONVOY_MAX_CHANNELS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: channels %d out of range 1 .. %d",
                            (int)c->channels, CONVOY_MAX_CHANNELS);
  if (c->pulses < 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: pulses %d must be >= 1",
                            (int)c->pulses);
  if ((int64_t)c->channels * c->pulses > INT32_MAX)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: %d channels x %d pulses is more than 2^31 pulses",
                            (int)c->channels, (int)c->pulses);
  if (c->pulse_len < 1 || c->pulse_len > PULSE_LEN_MAX)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: pulse length %lld out of range 1 .. 2^26 samples",
                            (long long)c->pulse_len);
  if (!c->waveform || c->template_len < 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: no template (waveform NULL or template length %lld)",
                            (long long)c->template_len);
  if (c->template_len > c->pulse_len)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: template of %lld samples is longer than the pulse of %lld "
                            "samples",
                            (long long)c->template_len, (long long)c->pulse_len);
  if (c->mode != CONVOY_PULSE_FULL && c->mode != CONVOY_PULSE_SAME && c->mode != CONVOY_PULSE_VALID)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: unknown output mode %d",
                            (int)c->mode);
  if (c->window < CONVOY_WINDOW_NONE || c->window > CONVOY_WINDOW_KAISER)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: unknown window %d",
                            (int)c->window);
  if (c->plan_effort != 0 && c->plan_effort != 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: plan_effort %d is not 0 (estimate) or 1 (measure)",
                            (int)c->plan_effort);
  if (c->window == CONVOY_WINDOW_KAISER && !(c->kaiser_beta >= 0.0 && c->kaiser_beta <= 50.0))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "pulse: kaiser beta %g out of range 0 .. 50", c->kaiser_beta);
  if (c->layout != CONVOY_PULSE_CONTIGUOUS && c->layout != CONVOY_PULSE_INTERLEAVED)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: unknown layout %d",
                            (int)c->layout);
  if (c->threads < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "pulse: threads %d must be >= 0",
                            (int)c->threads);
  return CONVOY_OK;
}

/* The backend of a family that can run here with the configured device, or
 * NULL with the reason in why. */
static const pulse_backend_ops *usable(const pulse_row *row, const convoy_pulse_config *c,
                                       char *why, size_t why_size) {
  const pulse_backend_ops *ops = row->get ? row->get() : NULL;
  if (!ops) {
    snprintf(why, why_size, "%s", row->get ? "no usable device" : "not built into this convoy");
    return NULL;
  }
  if (engine_check_device(convoy_family_choice(row->family), c->device, why, why_size) != CONVOY_OK)
    return NULL;
  return ops;
}

/* Resolves the configured engine to a backend: a family's choice or its FFT
 * engine names that family's backend; AUTO takes the last listed backend
 * that can run here for batches of AUTO_GPU_MIN_SAMPLES or more, else the
 * first listed. */
static convoy_status pick_backend(const convoy_pulse_config *c, const pulse_row **row,
                                  const pulse_backend_ops **ops) {
  const int64_t samples = (int64_t)c->channels * c->pulses * c->pulse_len;
  char why[CONVOY_ERROR_SIZE] = "";
  if (!engine_is_known(c->engine) ||
      (convoy_engine_is_exact(c->engine) &&
       convoy_engine_cpu_fallback(c->engine) != CONVOY_ENGINE_CPU_FFT))
    return convoy_error_set(CONVOY_ERR_UNSUPPORTED,
                            "pulse: engine %s does not compress pulses (auto, cpu or gpu)",
                            convoy_engine_name(c->engine));
  const convoy_family family = convoy_engine_family(c->engine);
  if (family != CONVOY_FAMILY_ANY) {
    for (int i = 0; i < N_PULSE_ROWS; i++) {
      if (pulse_rows[i].family != family) continue;
      *row = &pulse_rows[i];
      if ((*ops = usable(*row, c, why, sizeof why))) return CONVOY_OK;
      return convoy_error_set(CONVOY_ERR_NO_DEVICE, "pulse: %s engine asked for, %s",
                              convoy_engine_name(c->engine), why);
    }
    return convoy_error_set(CONVOY_ERR_UNSUPPORTED, "pulse: no %s backend",
                            convoy_engine_name(c->engine));
  }
  if (samples >= AUTO_GPU_MIN_SAMPLES)
    for (int i = N_PULSE_ROWS - 1; i > 0; i--)
      if ((*ops = usable(&pulse_rows[i], c, why, sizeof why))) {
        *row = &pulse_rows[i];
        return CONVOY_OK;
      }
  *row = &pulse_rows[0];
  *ops = pulse_rows[0].get();
  return CONVOY_OK;
}

convoy_status pulse_create_with_plan(convoy_pulse **out, const convoy_pulse_config *c,
                                     int gpu_plan) {
  if (!out) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_pulse_create: out NULL");
  *out = NULL;
  if (!c) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_pulse_create: config NULL");
  convoy_status st = check_config(c);
  if (st != CONVOY_OK) return st;
  const pulse_row *row = NULL;
  const pulse_backend_ops *ops = NULL;
  if ((st = pick_backend(c, &row, &ops)) != CONVOY_OK) return st;

  convoy_pulse *p = calloc(1, sizeof *p);
  float *h = malloc(sizeof(float) * 2 * (size_t)c->template_len);
  if (!p || !h) {
    free(p);
    free(h);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "pulse: out of memory");
  }
  p->h = h;
  p->engine = convoy_family_choice(row->family);
  char err[CONVOY_ERROR_SIZE] = "";
  st = pulse_matched_filter(c->waveform, c->template_len, c->window, c->kaiser_beta, c->normalize,
                            h, err, sizeof err);
  if (st != CONVOY_OK) {
    convoy_pulse_destroy(p);
    return convoy_error_set(st, "%s", err);
  }
  pulse_geom *g = &p->g;
  g->channels = c->channels;
  g->pulses = c->pulses;
  g->pulse_len = c->pulse_len;
  g->template_len = c->template_len;
  const int64_t full = c->pulse_len + c->template_len - 1;
  switch (c->mode) {
  case CONVOY_PULSE_SAME:
    g->out_len = c->pulse_len;
    g->out_start = (c->template_len - 1) / 2;
    break;
  case CONVOY_PULSE_VALID:
    g->out_len = c->pulse_len - c->template_len + 1;
    g->out_start = c->template_len - 1;
    break;
  default:
    g->out_len = full;
    g->out_start = 0;
    break;
  }
  g->fft_size = pulse_smooth_size(full);
  g->layout = c->layout;
  g->h = h;
  g->threads = c->threads > 0 ? c->threads : convoy_cpu_threads();
  g->device = c->device < 0 ? 0 : c->device;
  g->plan_effort = c->plan_effort;

  st = ops->create(g, gpu_plan, &p->impl, err, sizeof err);
  if (st == CONVOY_OK) p->ops = ops;
  if (st != CONVOY_OK) {
    convoy_pulse_destroy(p);
    return convoy_error_set(st, "%s", err);
  }
  *out = p;
  return CONVOY_OK;
}

convoy_status convoy_pulse_create(convoy_pulse **pulse, const convoy_pulse_config *config) {
  return pulse_create_with_plan(pulse, config, 0);
}

void convoy_pulse_destroy(convoy_pulse *p) {
  if (!p) return;
  if (p->ops) p->ops->destroy(p->impl);
  free(p->h);
  free(p);
}

int64_t convoy_pulse_output_len(const convoy_pulse *p) {
  return p ? p->g.out_len : 0;
}

int64_t convoy_pulse_input_samples(const convoy_pulse *p) {
  return p ? pulse_count(&p->g) * p->g.pulse_len : 0;
}

int64_t convoy_pulse_output_samples(const convoy_pulse *p) {
  return p ? pulse_count(&p->g) * p->g.out_len : 0;
}

int64_t convoy_pulse_fft_size(const convoy_pulse *p) {
  return p ? p->g.fft_size : 0;
}

convoy_engine convoy_pulse_engine(const convoy_pulse *p) {
  return p ? p->engine : CONVOY_ENGINE_AUTO;
}

static int overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const char *x = a, *y = b;
  return x < y + b_bytes && y < x + a_bytes;
}

convoy_status convoy_pulse_run(convoy_pulse *p, const float *in, float *out) {
  if (!p) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_pulse_run: pulse NULL");
  if (!in || !out)
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: run: %s buffer is NULL", in ? "output" : "input");
  const size_t in_bytes = sizeof(float) * 2 * (size_t)convoy_pulse_input_samples(p);
  const size_t out_bytes = sizeof(float) * 2 * (size_t)convoy_pulse_output_samples(p);
  if (overlaps(in, in_bytes, out, out_bytes))
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: run: input and output overlap (in-place is not allowed)");
  return p->ops->run_host(p->impl, in, out, p->err, sizeof p->err);
}

convoy_status convoy_pulse_run_device(convoy_pulse *p, const void *d_in, void *d_out,
                                      void *cuda_stream) {
  if (!p)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_pulse_run_device: pulse NULL");
  if (!p->ops->run_device)
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_UNSUPPORTED,
                               "pulse: run_device needs the GPU engine (this one runs on the %s)",
                               convoy_engine_name(p->engine));
  if (!d_in || !d_out)
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: run_device: %s pointer is NULL", d_in ? "output" : "input");
  if (((uintptr_t)d_in & 7) || ((uintptr_t)d_out & 7))
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: run_device: device pointers must be 8-byte aligned");
  const size_t in_bytes = sizeof(float) * 2 * (size_t)convoy_pulse_input_samples(p);
  const size_t out_bytes = sizeof(float) * 2 * (size_t)convoy_pulse_output_samples(p);
  if (overlaps(d_in, in_bytes, d_out, out_bytes))
    return convoy_error_format(p->err, sizeof p->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: run_device: input and output overlap");
  return p->ops->run_device(p->impl, d_in, d_out, cuda_stream, p->err, sizeof p->err);
}

convoy_status convoy_pulse_describe(const convoy_pulse *p, char *buf, size_t buf_size) {
  if (!p || !buf || !buf_size)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_pulse_describe: NULL argument");
  const pulse_geom *g = &p->g;
  char plan[400] = "";
  p->ops->describe(p->impl, plan, sizeof plan);
  snprintf(buf, buf_size,
           "pulse %s: %d ch x %d pulses x %lld samples, template %lld, out %lld "
           "from %lld, %s",
           convoy_engine_name(p->engine), (int)g->channels, (int)g->pulses, (long long)g->pulse_len,
           (long long)g->template_len, (long long)g->out_len, (long long)g->out_start, plan);
  return CONVOY_OK;
}

const char *convoy_pulse_last_error(const convoy_pulse *p) {
  return p ? p->err : "";
}
