/* live_setup.c - config, impulse responses and routes, loaded together. */
#include "live_setup.h"

#include <string.h>

convoy_status live_setup_load(live_setup *s, live_source source, const char *arg, char *err,
                              size_t err_size) {
  memset(s, 0, sizeof *s);
  s->source = source;
  convoy_status st = CONVOY_OK;
  if (source == LIVE_SOURCE_CONFIG) st = live_config_load(arg, &s->cfg, err, err_size);
  if (st == CONVOY_OK) st = live_ir_bank_load(&s->bank, source, arg, &s->cfg, err, err_size);
  if (st != CONVOY_OK) live_setup_free(s);
  return st;
}

convoy_status live_setup_check(live_setup *s, int32_t rate, int32_t channels, int resample,
                               char *err, size_t err_size) {
  convoy_status st = CONVOY_OK;
  if (rate > 0) st = live_ir_bank_fit(&s->bank, rate, resample, err, err_size);
  if (st == CONVOY_OK && channels > 0 && !s->bank.design) { /* a design waits for the rate */
    live_routes routes;
    st = live_routes_make(&s->bank, &s->cfg, channels, 0.0, &routes, err, err_size);
    live_routes_free(&routes);
  }
  return st;
}

convoy_status live_setup_route(live_setup *s, int32_t rate, int32_t channels, int resample,
                               double gain_db, char *err, size_t err_size) {
  convoy_status st = live_ir_bank_fit(&s->bank, rate, resample, err, err_size);
  if (st == CONVOY_OK)
    st = live_routes_make(&s->bank, &s->cfg, channels, gain_db, &s->routes, err, err_size);
  return st;
}

int32_t live_setup_fixed_rate(const live_setup *s, const live_options *o) {
  return o->rate ? o->rate : s->cfg.rate;
}

int32_t live_setup_fixed_block(const live_setup *s, const live_options *o) {
  return o->block ? o->block : s->cfg.block;
}

int32_t live_setup_fixed_channels(const live_setup *s, const live_options *o) {
  return o->channels                       ? o->channels
         : s->cfg.channels                 ? s->cfg.channels
         : s->source == LIVE_SOURCE_CONFIG ? s->cfg.max_channel
                                           : 0;
}

void live_setup_free(live_setup *s) {
  if (!s) return;
  live_routes_free(&s->routes);
  live_ir_bank_free(&s->bank);
  live_config_free(&s->cfg);
}
