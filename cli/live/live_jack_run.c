/* live_jack_run.c - running `convoy live` as a JACK client of its own. */
#include "live_jack_run.h"

#include "commands.h"
#include "diag.h"
#include "live_engine.h"

#include <stdio.h>

#define SWAP_S 5.0 /* most seconds to wait for the process callback to take a new convolver */

static int fail(const char *err) {
  diag_error("%s", err);
  return CLI_EXIT_FAIL;
}

int live_jack_run_choose(live_run *r) {
  const live_options *o = &r->opt;
  const char *jack_only = live_options_jack_only(o);
  r->backend = LIVE_BACKEND_PORTAUDIO;
  if (o->backend == LIVE_BACKEND_PORTAUDIO || o->in_dev || o->out_dev) return CLI_EXIT_OK;
  char err[512];
  r->jack = live_jack_open(o->client_name, o->verbose, err, sizeof err);
  if (r->jack) {
    r->backend = LIVE_BACKEND_JACK;
    return CLI_EXIT_OK;
  }
  if (o->backend != LIVE_BACKEND_JACK && !jack_only) return CLI_EXIT_OK;
  diag_error("%s: %s", o->backend == LIVE_BACKEND_JACK ? "--backend jack" : jack_only, err);
  return CLI_EXIT_FAIL;
}

/* The server's rate and period against what the command line or config asks. */
static int choose_format(live_run *r, const live_setup *s) {
  char err[512];
  const int32_t rate = live_jack_rate(r->jack), period = live_jack_period(r->jack);
  const int32_t want_rate = live_setup_fixed_rate(s, &r->opt);
  const int32_t want_block = live_setup_fixed_block(s, &r->opt);
  const char *from_rate = r->opt.rate ? "--rate" : "the config's rate";
  const char *from_block = r->opt.block ? "--block" : "the config's block";
  if (want_rate && want_rate != rate) {
    snprintf(err, sizeof err,
             "%s %d: the JACK server runs at %d Hz, and JACK clients run at the server's rate "
             "(leave it out, or restart the server at %d Hz)",
             from_rate, (int)want_rate, (int)rate, (int)want_rate);
    return fail(err);
  }
  if (want_block && want_block != period) {
    snprintf(err, sizeof err,
             "%s %d: the JACK server runs %d-frame periods, and convoy's block is the period "
             "(leave it out, change the server's with 'jack_bufsize %d', or use --backend "
             "portaudio, which adapts at one more block of latency)",
             from_block, (int)want_block, (int)period, (int)want_block);
    return fail(err);
  }
  if (period < 1 || period > CONVOY_RT_MAX_BLOCK) {
    snprintf(err, sizeof err, "the JACK server runs %d-frame periods; convoy takes 1..%d",
             (int)period, CONVOY_RT_MAX_BLOCK);
    return fail(err);
  }
  const int32_t channels = live_setup_fixed_channels(s, &r->opt);
  r->reload.rate = rate;
  r->reload.block = period;
  r->reload.channels =
      channels ? channels : live_routes_default_channels(&s->bank, &s->cfg, CONVOY_RT_MAX_CHANNELS);
  return CLI_EXIT_OK;
}

static live_engine_format format_of(const live_run *r) {
  live_engine_format f = {r->reload.block, r->reload.channels, r->reload.rate, r->opt.engine,
                          r->reload.max_ir};
  return f;
}

int live_jack_run_start(live_run *r, live_setup *s) {
  char err[1024];
  int rc = choose_format(r, s);
  if (rc != CLI_EXIT_OK) return rc;
  if (live_setup_route(s, r->reload.rate, r->reload.channels, r->opt.resample_ir, r->reload.gain_db,
                       err, sizeof err) != CONVOY_OK)
    return fail(err);
  r->reload.max_ir = s->routes.max_taps;
  live_engine_format f = format_of(r);
  convoy_rt *rt = live_engine_make(&f, &s->routes);
  if (!rt) return CLI_EXIT_FAIL;
  r->engine = live_engine_new(r->reload.channels, rt);
  if (!r->engine) {
    convoy_rt_destroy(rt);
    return fail("out of memory");
  }
  live_reload_keep(&r->reload, s);
  if (live_jack_start(r->jack, r->engine, err, sizeof err) != CONVOY_OK) return fail(err);
  if (live_jack_connect(r->jack, r->opt.connect, r->opt.n_connect, r->opt.no_connect,
                        r->opt.verbose, err, sizeof err) != CONVOY_OK)
    return fail(err);
  live_load_init(&r->load, r->reload.block, r->reload.rate);
  return CLI_EXIT_OK;
}

/* A new convolver for the running format, handed to the callback. */
static int rebuild(live_run *r, const char *why) {
  char err[1024];
  live_routes routes;
  if (live_reload_routes(&r->reload, &routes, err, sizeof err) != CONVOY_OK) return fail(err);
  if (routes.max_taps > r->reload.max_ir) r->reload.max_ir = routes.max_taps;
  live_engine_format f = format_of(r);
  convoy_rt *rt = live_engine_make(&f, &routes);
  live_routes_free(&routes);
  if (!rt) return CLI_EXIT_FAIL;
  const int64_t idle = live_jack_idle(r->jack);
  live_load_drain(&r->load, &r->engine->meter);
  convoy_rt *old = live_engine_swap(r->engine, rt, SWAP_S);
  if (old) {
    convoy_rt_destroy(old);
    /* The changes the old convolver had not switched to yet are in the new
     * one's first routes: counted as merged into it, so that the changes
     * loaded stay switches + merged + pending. */
    convoy_rt_stats *gone = &r->engine->retired;
    const int64_t unheard = r->reload.loaded - gone->route_switches - gone->route_sets_merged;
    if (unheard > 0) gone->route_sets_merged += unheard;
  } else if (!live_jack_ended(r->jack))
    diag_warn("the JACK server ran no period for %.0f s; the old convolver is left running",
              SWAP_S);
  live_load_set_period(&r->load, r->reload.block, r->reload.rate);
  diag_notice("%s: the convolver follows (block %d at %d Hz; %lld periods of silence so far)", why,
              (int)r->reload.block, (int)r->reload.rate, (long long)idle);
  return CLI_EXIT_OK;
}

int live_jack_run_follow(live_run *r) {
  char err[1024], why[128];
  const char *ended = live_jack_ended(r->jack);
  if (ended) {
    snprintf(err, sizeof err, "the JACK server shut convoy down: %s", ended);
    return fail(err);
  }
  const int32_t rate = live_jack_rate(r->jack), period = live_jack_period(r->jack);
  if (rate == r->reload.rate && period == r->reload.block) return CLI_EXIT_OK;
  if (period < 1 || period > CONVOY_RT_MAX_BLOCK) {
    snprintf(err, sizeof err, "the JACK server now runs %d-frame periods; convoy takes 1..%d",
             (int)period, CONVOY_RT_MAX_BLOCK);
    return fail(err);
  }
  if (rate != r->reload.rate && live_reload_refit(&r->reload, rate, err, sizeof err) != CONVOY_OK) {
    diag_error("the JACK server now runs at %d Hz: %s", (int)rate, err);
    return CLI_EXIT_FAIL;
  }
  snprintf(why, sizeof why, "JACK now runs %d-frame periods at %d Hz", (int)period, (int)rate);
  r->reload.block = period;
  return rebuild(r, why);
}
