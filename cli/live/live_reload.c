/* live_reload.c - new impulse responses for a running `convoy live`. */
#include "live_reload.h"

#include "diag.h"
#include "error_internal.h" /* CONVOY_QUOTE */
#include "live_setup.h"

#include <stdio.h>
#include <string.h>

void live_reload_init(live_reload *r, const live_options *opt) {
  memset(r, 0, sizeof *r);
  r->opt = opt;
  r->source = opt->source;
  r->source_arg = opt->source_arg;
}

/* A config may not change what the stream was opened with, unless the
 * command line fixes that value anyway. */
static int format_changed(const live_reload *r, const live_config *cfg) {
  return (cfg->rate && cfg->rate != r->rate && !r->opt->rate) ||
         (cfg->block && cfg->block != r->block && !r->opt->block) ||
         (cfg->channels && cfg->channels != r->channels && !r->opt->channels);
}

void live_reload_run(live_reload *r, convoy_rt *rt, const char *new_ir) {
  char err[1024] = "";
  live_source source = new_ir ? LIVE_SOURCE_IR : r->source;
  const char *arg = new_ir ? new_ir : r->source_arg;
  const char *shown = CONVOY_QUOTE(arg);
  live_setup s;
  convoy_status st = live_setup_load(&s, source, arg, err, sizeof err);
  if (st == CONVOY_OK && source == LIVE_SOURCE_CONFIG && format_changed(r, &s.cfg)) {
    snprintf(err, sizeof err, "%s: rate, block or channels changed; restart to apply them", shown);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK)
    st = live_setup_route(&s, r->rate, r->channels, r->opt->resample_ir, r->opt->gain_db, err,
                          sizeof err);
  if (st == CONVOY_OK && s.routes.max_taps > r->max_ir) {
    snprintf(err, sizeof err,
             "%s: %lld-frame impulse response is longer than the %lld frames the running "
             "convolver holds; restart to use it",
             shown, (long long)s.routes.max_taps, (long long)r->max_ir);
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st == CONVOY_OK) {
    st = convoy_rt_set_routes(rt, s.routes.routes, s.routes.count);
    if (st != CONVOY_OK)
      snprintf(err, sizeof err, "%s: %s", shown,
               convoy_rt_last_error(rt)[0] ? convoy_rt_last_error(rt) : convoy_strerror(st));
  }
  live_setup_free(&s);
  if (st != CONVOY_OK) {
    diag_error("reload failed, keeping the current impulse responses: %s", err);
    return;
  }
  r->loaded++;
  if (new_ir) {
    snprintf(r->ir_arg, sizeof r->ir_arg, "%s", new_ir);
    r->source = LIVE_SOURCE_IR;
    r->source_arg = r->ir_arg;
  }
  diag_notice("loaded %s", shown);
}
