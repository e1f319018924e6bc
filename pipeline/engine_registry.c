/* engine_registry.c - engine names, availability and choice by cost. */
#define _POSIX_C_SOURCE 200809L

#include "engine.h"
#include "error_internal.h"

#include <string.h>
#include <unistd.h>

#ifndef CONVOY_HAVE_GPU_ENGINES
/* Without the CUDA engines built in, the GPU engine getters report "not
 * built". The GPU code defines CONVOY_HAVE_GPU_ENGINES and its own getters,
 * which return NULL at run time when no usable device is present. */
const engine_ops *engine_gpu_direct(void) {
  return NULL;
}
const engine_ops *engine_gpu_fft(void) {
  return NULL;
}
#endif

static const char *const engine_names[] = {"auto", "cpu",        "cpu-direct", "cpu-fft",
                                           "gpu",  "gpu-direct", "gpu-fft"};
#define N_ENGINE_NAMES ((int)(sizeof engine_names / sizeof engine_names[0]))

const char *convoy_engine_name(convoy_engine engine) {
  int i = (int)engine;
  return i >= 0 && i < N_ENGINE_NAMES ? engine_names[i] : "unknown";
}

convoy_status convoy_engine_from_name(const char *name, convoy_engine *engine) {
  if (!name || !engine)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_engine_from_name: %s is NULL",
                            name ? "engine" : "name");
  for (int i = 0; i < N_ENGINE_NAMES; i++) {
    if (strcmp(name, engine_names[i]) == 0) {
      *engine = (convoy_engine)i;
      return CONVOY_OK;
    }
  }
  return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                          "unknown engine '%s' (expected auto, cpu, cpu-direct, cpu-fft, gpu, "
                          "gpu-direct or gpu-fft)",
                          name);
}

const engine_ops *engine_lookup(convoy_engine id) {
  switch (id) {
  case CONVOY_ENGINE_CPU_DIRECT:
    return engine_cpu_direct();
  case CONVOY_ENGINE_CPU_FFT:
    return engine_cpu_fft();
  case CONVOY_ENGINE_GPU_DIRECT:
    return engine_gpu_direct();
  case CONVOY_ENGINE_GPU_FFT:
    return engine_gpu_fft();
  default:
    return NULL;
  }
}

/* The exact engines a family name stands for; returns how many (0 for an
 * exact id or an unknown value). */
static int family_members(convoy_engine family, convoy_engine members[4]) {
  switch (family) {
  case CONVOY_ENGINE_AUTO:
    members[0] = CONVOY_ENGINE_CPU_DIRECT;
    members[1] = CONVOY_ENGINE_CPU_FFT;
    members[2] = CONVOY_ENGINE_GPU_DIRECT;
    members[3] = CONVOY_ENGINE_GPU_FFT;
    return 4;
  case CONVOY_ENGINE_CPU:
    members[0] = CONVOY_ENGINE_CPU_DIRECT;
    members[1] = CONVOY_ENGINE_CPU_FFT;
    return 2;
  case CONVOY_ENGINE_GPU:
    members[0] = CONVOY_ENGINE_GPU_DIRECT;
    members[1] = CONVOY_ENGINE_GPU_FFT;
    return 2;
  default:
    return 0;
  }
}

int convoy_engine_available(convoy_engine engine) {
  convoy_engine members[4];
  int n = family_members(engine, members);
  if (n == 0) return engine_lookup(engine) != NULL;
  for (int i = 0; i < n; i++) {
    if (engine_lookup(members[i])) return 1;
  }
  return 0;
}

const engine_ops *engine_choose(convoy_engine wanted, const engine_request *r, char *err,
                                size_t err_size) {
  convoy_engine members[4];
  int n = family_members(wanted, members);
  if (n == 0) {
    const engine_ops *ops = engine_lookup(wanted);
    if (!ops) {
      if ((int)wanted < 0 || (int)wanted >= N_ENGINE_NAMES)
        convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "unknown engine id %d",
                            (int)wanted);
      else
        convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                            "engine '%s' is not built into this convoy%s",
                            convoy_engine_name(wanted),
                            wanted >= CONVOY_ENGINE_GPU ? " or no usable GPU is present" : "");
      return NULL;
    }
    if (ops->cost(r) < 0.0) {
      convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                          "engine '%s' cannot run %lld taps on %d channels",
                          convoy_engine_name(wanted), (long long)r->taps_len, (int)r->channels);
      return NULL;
    }
    return ops;
  }
  const engine_ops *best = NULL;
  double best_cost = 0.0;
  for (int i = 0; i < n; i++) {
    const engine_ops *ops = engine_lookup(members[i]);
    if (!ops) continue;
    double c = ops->cost(r);
    if (c < 0.0) continue;
    if (!best || c < best_cost) {
      best = ops;
      best_cost = c;
    }
  }
  if (!best)
    convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                        "no '%s' engine can run %lld taps on %d channels here%s",
                        convoy_engine_name(wanted), (long long)r->taps_len, (int)r->channels,
                        wanted == CONVOY_ENGINE_GPU
                            ? " (no GPU engine is built in or no usable GPU is present)"
                            : "");
  return best;
}

int convoy_cpu_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > 4096 ? 4096 : (int)n;
}
