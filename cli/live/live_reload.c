/* live_reload.c - new routes for a running `convoy live`. */
#include "live_reload.h"

#include "diag.h"
#include "error_internal.h" /* CONVOY_QUOTE */

#include <stdio.h>
#include <string.h>

void live_reload_init(live_reload *r, const live_options *opt) {
  memset(r, 0, sizeof *r);
  r->opt = opt;
  r->source = opt->source;
  r->source_arg = opt->source_arg;
  r->gain_db = opt->gain_db;
}

void live_reload_keep(live_reload *r, live_setup *s) {
  live_setup_free(&r->playing);
  r->playing = *s;
  memset(s, 0, sizeof *s);
}

/* Routes of s at the running channels with the gain, muted outputs at 0. */
static convoy_status make_routes(const live_reload *r, const live_setup *s, live_routes *out,
                                 char *err, size_t err_size) {
  convoy_status st =
      live_routes_make(&s->bank, &s->cfg, r->channels, r->gain_db, out, err, err_size);
  for (int32_t i = 0; st == CONVOY_OK && i < out->count; i++)
    if (r->muted[out->routes[i].output]) out->routes[i].gain = 0.0f;
  return st;
}

convoy_status live_reload_routes(const live_reload *r, live_routes *out, char *err,
                                 size_t err_size) {
  return make_routes(r, &r->playing, out, err, err_size);
}

/* A config may not change what the stream was opened with, unless the
 * command line fixes that value anyway. */
static int format_changed(const live_reload *r, const live_config *cfg) {
  return (cfg->rate && cfg->rate != r->rate && !r->opt->rate) ||
         (cfg->block && cfg->block != r->block && !r->opt->block) ||
         (cfg->channels && cfg->channels != r->channels && !r->opt->channels);
}

/* Hands routes to rt, one line in err on failure. */
static convoy_status hand_over(convoy_rt *rt, const live_routes *routes, const char *shown,
                               char *err, size_t err_size) {
  convoy_status st = convoy_rt_set_routes(rt, routes->routes, routes->count);
  if (st != CONVOY_OK)
    snprintf(err, err_size, "%s%s%s", shown ? shown : "", shown ? ": " : "",
             convoy_rt_last_error(rt)[0] ? convoy_rt_last_error(rt) : convoy_strerror(st));
  return st;
}

convoy_status live_reload_run(live_reload *r, convoy_rt *rt, const char *new_ir, char *err,
                              size_t err_size) {
  live_source source = new_ir ? LIVE_SOURCE_IR : r->source;
  const char *arg = new_ir ? new_ir : r->source_arg;
  const char *shown = CONVOY_QUOTE(arg);
  live_setup s;
  live_routes routes;
  memset(&routes, 0, sizeof routes);
  err[0] = '\0';
  convoy_status st = live_setup_load(&s, source, arg, err, err_size);
  if (st == CONVOY_OK && source == LIVE_SOURCE_CONFIG && format_changed(r, &s.cfg)) {
    snprintf(err, err_size, "%s: rate, block or channels changed; restart to apply them", shown);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK) st = live_ir_bank_fit(&s.bank, r->rate, r->opt->resample_ir, err, err_size);
  if (st == CONVOY_OK) st = make_routes(r, &s, &routes, err, err_size);
  if (st == CONVOY_OK && routes.max_taps > r->max_ir) {
    snprintf(err, err_size,
             "%s: %lld-frame impulse response is longer than the %lld frames the running "
             "convolver holds; restart to use it",
             shown, (long long)routes.max_taps, (long long)r->max_ir);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK) st = hand_over(rt, &routes, shown, err, err_size);
  live_routes_free(&routes);
  if (st != CONVOY_OK) {
    live_setup_free(&s);
    diag_error("reload failed, keeping the current impulse responses: %s", err);
    return st;
  }
  r->loaded++;
  live_reload_keep(r, &s);
  if (new_ir) {
    snprintf(r->ir_arg, sizeof r->ir_arg, "%s", new_ir);
    r->source = LIVE_SOURCE_IR;
    r->source_arg = r->ir_arg;
  }
  diag_notice("loaded %s", shown);
  return CONVOY_OK;
}

convoy_status live_reload_apply(live_reload *r, convoy_rt *rt, char *err, size_t err_size) {
  live_routes routes;
  convoy_status st = live_reload_routes(r, &routes, err, err_size);
  if (st == CONVOY_OK) st = hand_over(rt, &routes, NULL, err, err_size);
  live_routes_free(&routes);
  if (st == CONVOY_OK) r->loaded++;
  return st;
}

convoy_status live_reload_refit(live_reload *r, int32_t rate, char *err, size_t err_size) {
  live_setup s;
  const char *shown = CONVOY_QUOTE(r->source_arg);
  convoy_status st = live_setup_load(&s, r->source, r->source_arg, err, err_size);
  if (st == CONVOY_OK && s.cfg.rate && s.cfg.rate != rate) {
    snprintf(err, err_size, "%s: its 'rate %d' line no longer holds", shown, (int)s.cfg.rate);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK) st = live_ir_bank_fit(&s.bank, rate, r->opt->resample_ir, err, err_size);
  if (st != CONVOY_OK) {
    live_setup_free(&s);
    return st;
  }
  live_reload_keep(r, &s);
  r->rate = rate;
  return CONVOY_OK;
}

void live_reload_free(live_reload *r) {
  live_setup_free(&r->playing);
}
