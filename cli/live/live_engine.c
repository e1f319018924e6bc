/* live_engine.c - making, warming and replacing the convolver of `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_engine.h"

#include "diag.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Blocks enough to reach the longest partition, at most 2 s of them, then
 * the history and counters are reset. */
static convoy_status warm_up(convoy_rt *rt, const live_engine_format *f) {
  int32_t block = f->block, channels = f->channels;
  int64_t blocks = f->max_ir / block + 2, cap = 2 * (int64_t)f->rate / block + 2;
  if (blocks > cap) blocks = cap;
  float *zeros = calloc((size_t)block * 2 * (size_t)channels, sizeof *zeros);
  const float **in = calloc((size_t)channels, sizeof *in);
  float **out = calloc((size_t)channels, sizeof *out);
  convoy_status st = zeros && in && out ? CONVOY_OK : CONVOY_ERR_OUT_OF_MEMORY;
  for (int32_t c = 0; st == CONVOY_OK && c < channels; c++) {
    in[c] = zeros + (size_t)c * (size_t)block;
    out[c] = zeros + ((size_t)channels + (size_t)c) * (size_t)block;
  }
  for (int64_t b = 0; st == CONVOY_OK && b < blocks; b++)
    st = convoy_rt_process(rt, in, out, block);
  if (st == CONVOY_OK) st = convoy_rt_reset(rt);
  free(zeros);
  free(in);
  free(out);
  return st;
}

convoy_rt *live_engine_make(const live_engine_format *f, const live_routes *routes) {
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  cfg.block_frames = f->block;
  cfg.n_inputs = cfg.n_outputs = f->channels;
  cfg.max_ir_frames = f->max_ir;
  cfg.engine = f->engine;
  cfg.mode = CONVOY_RT_REALTIME;
  convoy_rt *rt = NULL;
  convoy_status st = convoy_rt_create(&rt, &cfg, routes->routes, routes->count);
  if (st != CONVOY_OK) {
    const char *why = convoy_last_error()[0] ? convoy_last_error() : convoy_strerror(st);
    if (st == CONVOY_ERR_NO_DEVICE ||
        (st == CONVOY_ERR_UNSUPPORTED && convoy_engine_family(f->engine) == CONVOY_FAMILY_GPU))
      diag_error("--engine %s: no GPU to run on (%s)", convoy_engine_name(f->engine), why);
    else
      diag_error("cannot set up the convolver (%d channels, block %d, %lld-frame responses): %s",
                 (int)f->channels, (int)f->block, (long long)f->max_ir, why);
    return NULL;
  }
  st = warm_up(rt, f);
  if (st != CONVOY_OK) {
    diag_error("the convolver failed on silence: %s",
               convoy_rt_last_error(rt)[0] ? convoy_rt_last_error(rt) : convoy_strerror(st));
    convoy_rt_destroy(rt);
    return NULL;
  }
  return rt;
}

live_engine *live_engine_new(int32_t channels, convoy_rt *rt) {
  live_engine *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->channels = channels;
  atomic_init(&e->rt, rt);
  atomic_init(&e->seen, NULL);
  live_meter_init(&e->meter);
  return e;
}

static void add_stats(convoy_rt_stats *sum, const convoy_rt *rt) {
  convoy_rt_stats st;
  memset(&st, 0, sizeof st);
  if (rt) convoy_rt_get_stats(rt, &st);
  sum->blocks += st.blocks;
  sum->deadline_misses += st.deadline_misses;
  sum->route_switches += st.route_switches;
  sum->route_sets_merged += st.route_sets_merged;
}

convoy_rt *live_engine_swap(live_engine *e, convoy_rt *rt, double timeout_s) {
  convoy_rt *old = atomic_exchange_explicit(&e->rt, rt, memory_order_acq_rel);
  /* The callback stores what it took at the start of each period, and runs
   * periods one after another: once it shows rt, no period runs old. */
  struct timespec tick = {0, 1000 * 1000};
  for (double waited = 0; atomic_load_explicit(&e->seen, memory_order_acquire) != rt;
       waited += 1e-3) {
    if (waited >= timeout_s) return NULL;
    nanosleep(&tick, NULL);
  }
  add_stats(&e->retired, old);
  return old;
}

void live_engine_stats(const live_engine *e, convoy_rt_stats *st) {
  *st = e->retired;
  add_stats(st, atomic_load_explicit(&e->rt, memory_order_acquire));
}

void live_engine_free(live_engine *e) {
  if (!e) return;
  convoy_rt_destroy(atomic_load(&e->rt));
  free(e);
}
