/* live_routes.c - building the routing matrix from the impulse responses. */
#include "live_routes.h"

#include "error_internal.h" /* CONVOY_QUOTE */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t live_routes_default_channels(const live_ir_bank *bank, const live_config *cfg,
                                     int32_t device_max) {
  if (bank->source == LIVE_SOURCE_CONFIG) return cfg->max_channel;
  int32_t c = bank->count > 0 ? bank->irs[0].taps.channels : 1;
  if (c == 4) return 2;
  if (c > 1) return c;
  return device_max == 1 ? 1 : 2;
}

static const float *channel_of(const live_ir *ir, int32_t c) {
  return ir->taps.data + (size_t)c * (size_t)ir->taps.length;
}

static void put(live_routes *r, int32_t in, int32_t out, const live_ir *ir, int32_t c, float g) {
  convoy_rt_route *x = &r->routes[r->count++];
  x->input = in;
  x->output = out;
  x->taps = channel_of(ir, c);
  x->n_taps = ir->taps.length;
  x->gain = g;
  if (x->n_taps > r->max_taps) r->max_taps = x->n_taps;
}

static convoy_status single(const live_ir *ir, int32_t n, float g, live_routes *r, char *err,
                            size_t err_size) {
  int32_t c = ir->taps.channels;
  if (c == 1 || c == n) {
    for (int32_t i = 0; i < n; i++) put(r, i, i, ir, c == 1 ? 0 : i, g);
    return CONVOY_OK;
  }
  if (c == 4 && n == 2) {
    for (int32_t k = 0; k < 4; k++) put(r, k / 2, k % 2, ir, k, g);
    return CONVOY_OK;
  }
  snprintf(err, err_size,
           "%s: %d channels of impulse response for %d stream channels (need 1 or %d%s; "
           "or route them with --config)",
           CONVOY_QUOTE(ir->name), (int)c, (int)n, (int)n, n == 2 ? ", or 4 for true stereo" : "");
  return CONVOY_ERR_INVALID_ARGUMENT;
}

static convoy_status from_config(const live_ir_bank *bank, const live_config *cfg, int32_t n,
                                 double gain_db, live_routes *r, char *err, size_t err_size) {
  for (int32_t i = 0; i < cfg->n_routes; i++) {
    const live_config_route *cr = &cfg->routes[i];
    const live_ir *ir = live_ir_bank_find(bank, cr->file);
    const char *conf = CONVOY_QUOTE(cfg->name), *file = CONVOY_QUOTE(cr->file);
    if (!ir) {
      snprintf(err, err_size, "%s: not loaded", file);
      return CONVOY_ERR_INTERNAL;
    }
    if (cr->input >= n || cr->output >= n) {
      snprintf(err, err_size, "%s:%d: route %d -> %d is beyond the stream's %d channels", conf,
               cr->line, (int)cr->input + 1, (int)cr->output + 1, (int)n);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    int32_t c = cr->channel;
    if (c < 0 && ir->taps.channels != 1) {
      snprintf(err, err_size, "%s:%d: %s has %d channels: name one as FILE:CHANNEL (1..%d)", conf,
               cr->line, file, (int)ir->taps.channels, (int)ir->taps.channels);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    if (c >= ir->taps.channels) {
      snprintf(err, err_size, "%s:%d: %s has %d channel%s, no channel %d", conf, cr->line, file,
               (int)ir->taps.channels, ir->taps.channels == 1 ? "" : "s", (int)c + 1);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    put(r, cr->input, cr->output, ir, c < 0 ? 0 : c,
        (float)pow(10.0, (gain_db + cr->gain_db) / 20));
  }
  return CONVOY_OK;
}

convoy_status live_routes_make(const live_ir_bank *bank, const live_config *cfg, int32_t channels,
                               double gain_db, live_routes *out, char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  int32_t cap = bank->source == LIVE_SOURCE_CONFIG ? cfg->n_routes : (channels < 2 ? 2 : channels);
  if (cap < 4) cap = 4;
  out->routes = calloc((size_t)cap, sizeof *out->routes);
  if (!out->routes) {
    snprintf(err, err_size, "out of memory building %d routes", (int)cap);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  convoy_status st;
  if (bank->source == LIVE_SOURCE_CONFIG)
    st = from_config(bank, cfg, channels, gain_db, out, err, err_size);
  else if (bank->count != 1) {
    snprintf(err, err_size, "no impulse response loaded");
    st = CONVOY_ERR_INTERNAL;
  } else
    st = single(&bank->irs[0], channels, (float)pow(10.0, gain_db / 20), out, err, err_size);
  if (st != CONVOY_OK) live_routes_free(out);
  return st;
}

void live_routes_free(live_routes *r) {
  if (!r) return;
  free(r->routes);
  memset(r, 0, sizeof *r);
}
