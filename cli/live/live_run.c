/* live_run.c - the figures of a running `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_run.h"

#include "live_engine.h"

#include <string.h>
#include <time.h>

double live_run_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void live_run_figures(live_run *r, int whole, live_figures *f) {
  memset(f, 0, sizeof *f);
  live_load_drain(&r->load, &r->engine->meter);
  f->block = r->reload.block;
  f->rate = r->reload.rate;
  /* JACK's changes with the connections; kept for when the client is gone. */
  if (r->backend == LIVE_BACKEND_JACK && r->jack && !live_jack_ended(r->jack))
    r->latency_ms = 1000.0 * (double)live_jack_latency(r->jack) / r->reload.rate;
  f->latency_ms = r->latency_ms;
  live_load_figures(&r->load, whole, &f->p50, &f->p99, &f->max);
  convoy_rt_stats st;
  live_engine_stats(r->engine, &st);
  f->blocks = st.blocks;
  f->misses = st.deadline_misses;
  /* Each change loaded (an impulse response, a gain, a mute) is heard (a
   * switch), merged into a later one that came before the convolver
   * switched to it, or still on its way. */
  f->ir_changes = r->reload.loaded;
  f->ir_merged = st.route_sets_merged;
  f->ir_pending = f->ir_changes - st.route_switches - st.route_sets_merged;
  if (f->ir_pending < 0) f->ir_pending = 0;
  f->audio_xruns = atomic_load(&r->engine->meter.audio_xruns);
  f->bad_blocks = atomic_load(&r->engine->meter.bad_blocks);
  f->clipped = atomic_load(&r->engine->meter.clipped);
}
