/* engine_registry.c - the stream engines of engine_list.def: names,
 * families, enumeration, availability and choice by cost. */
#define _POSIX_C_SOURCE 200809L

#include "engine.h"
#include "error_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct engine_row {
  convoy_engine id;
  const char *name;
  convoy_family family;
  int exact;                      /* 0: a choice among the family's engines */
  convoy_engine cpu_fallback;     /* exact rows: the CPU engine of the same method */
  const engine_ops *(*get)(void); /* exact rows: NULL when not built */
} engine_row;

static const engine_row rows[] = {
#define CONVOY_ENGINE_CHOICE(id, name, family) {id, name, family, 0, id, NULL},
#define CONVOY_STREAM_ENGINE(id, name, family, cpu_fallback, needs, getter)                        \
  {id, name, family, 1, cpu_fallback, CONVOY_BUILT_##needs(getter)},
#include "engine_list.def"
};
#define N_ROWS ((int32_t)(sizeof rows / sizeof rows[0]))

static const engine_row *row_of(convoy_engine id) {
  for (int32_t i = 0; i < N_ROWS; i++)
    if (rows[i].id == id) return &rows[i];
  return NULL;
}

/* Whether exact row r is one of the engines wanted stands for. */
static int serves(convoy_engine wanted, const engine_row *r) {
  if (!r->exact) return 0;
  const engine_row *w = row_of(wanted);
  if (!w) return 0;
  if (w->exact) return w == r;
  return w->family == CONVOY_FAMILY_ANY || w->family == r->family;
}

int32_t convoy_engine_count(void) {
  return N_ROWS;
}

convoy_engine convoy_engine_at(int32_t index) {
  return index >= 0 && index < N_ROWS ? rows[index].id : CONVOY_ENGINE_AUTO;
}

convoy_family convoy_engine_family(convoy_engine engine) {
  const engine_row *r = row_of(engine);
  return r ? r->family : CONVOY_FAMILY_ANY;
}

int convoy_engine_is_exact(convoy_engine engine) {
  const engine_row *r = row_of(engine);
  return r ? r->exact : 0;
}

convoy_engine convoy_family_choice(convoy_family family) {
  for (int32_t i = 0; i < N_ROWS; i++)
    if (!rows[i].exact && rows[i].family == family) return rows[i].id;
  return CONVOY_ENGINE_AUTO;
}

convoy_engine convoy_engine_cpu_fallback(convoy_engine engine) {
  const engine_row *r = row_of(engine);
  if (!r) return engine;
  if (!r->exact)
    return r->family == CONVOY_FAMILY_ANY ? engine : convoy_family_choice(CONVOY_FAMILY_CPU);
  return r->cpu_fallback;
}

const char *convoy_engine_name(convoy_engine engine) {
  const engine_row *r = row_of(engine);
  return r ? r->name : "unknown";
}

/* "a, b, c or d": every listed name, for messages. */
static void list_names(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < N_ROWS && used < size; i++) {
    const char *sep = i == 0 ? "" : i == N_ROWS - 1 ? " or " : ", ";
    int n = snprintf(buf + used, size - used, "%s%s", sep, rows[i].name);
    if (n < 0) return;
    used += (size_t)n;
  }
}

convoy_status convoy_engine_from_name(const char *name, convoy_engine *engine) {
  if (!name || !engine)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_engine_from_name: %s is NULL",
                            name ? "engine" : "name");
  for (int32_t i = 0; i < N_ROWS; i++) {
    if (strcmp(name, rows[i].name) == 0) {
      *engine = rows[i].id;
      return CONVOY_OK;
    }
  }
  char names[256];
  list_names(names, sizeof names);
  return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "unknown engine '%s' (expected %s)", name,
                          names);
}

const engine_ops *engine_lookup(convoy_engine id) {
  const engine_row *r = row_of(id);
  return r && r->exact && r->get ? r->get() : NULL;
}

int convoy_engine_available(convoy_engine engine) {
  for (int32_t i = 0; i < N_ROWS; i++)
    if (serves(engine, &rows[i]) && rows[i].get && rows[i].get()) return 1;
  return 0;
}

int engine_is_known(convoy_engine id) {
  return row_of(id) != NULL;
}

convoy_status engine_check_device(convoy_engine wanted, int32_t device, char *err,
                                  size_t err_size) {
  int may_use_gpu = 0;
  for (int32_t i = 0; i < N_ROWS; i++)
    if (serves(wanted, &rows[i]) && rows[i].family == CONVOY_FAMILY_GPU) may_use_gpu = 1;
  if (device < 0 || !may_use_gpu) return CONVOY_OK;
  const int n_gpus = convoy_gpu_count();
  if (n_gpus > 0 && device >= n_gpus)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE,
                               "no GPU %d (%d present: 0 .. %d)", (int)device, n_gpus, n_gpus - 1);
  return CONVOY_OK;
}

convoy_status engine_unavailable(convoy_engine wanted, char *why, size_t why_size) {
  if (why_size) why[0] = '\0';
  int built = 0;
  for (int32_t i = 0; i < N_ROWS; i++) {
    if (!serves(wanted, &rows[i]) || !rows[i].get) continue;
    if (rows[i].get()) return CONVOY_ERR_UNSUPPORTED; /* it runs, but not this request */
    built = 1;
  }
  if (!built) return CONVOY_ERR_UNSUPPORTED;
  convoy_gpu_count(); /* leaves the reason for no GPU in convoy_last_error() */
  snprintf(why, why_size, "%s", convoy_last_error()[0] ? convoy_last_error() : "no GPU");
  return CONVOY_ERR_NO_DEVICE;
}

const engine_ops *engine_choose(convoy_engine wanted, const engine_request *r, char *err,
                                size_t err_size) {
  const engine_row *w = row_of(wanted);
  if (!w) {
    convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "unknown engine id %d",
                        (int)wanted);
    return NULL;
  }
  if (w->exact) {
    const engine_ops *ops = engine_lookup(wanted);
    if (!ops) {
      convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                          "engine '%s' is not built into this convoy%s", w->name,
                          w->family == CONVOY_FAMILY_GPU ? " or no usable GPU is present" : "");
      return NULL;
    }
    if (ops->cost(r) < 0.0) {
      convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                          "engine '%s' cannot run %lld taps on %d channels", w->name,
                          (long long)r->taps_len, (int)r->channels);
      return NULL;
    }
    return ops;
  }
  const engine_ops *best = NULL;
  double best_cost = 0.0;
  for (int32_t i = 0; i < N_ROWS; i++) {
    if (!serves(wanted, &rows[i])) continue;
    const engine_ops *ops = engine_lookup(rows[i].id);
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
                        "no '%s' engine can run %lld taps on %d channels here%s", w->name,
                        (long long)r->taps_len, (int)r->channels,
                        w->family == CONVOY_FAMILY_GPU
                            ? " (no GPU engine is built in or no usable GPU is present)"
                            : "");
  return best;
}

int convoy_cpu_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > 4096 ? 4096 : (int)n;
}
