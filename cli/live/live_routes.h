/*
 * live_routes.h - the routing matrix of `convoy live`: which impulse
 * response (and gain) connects which input to which output.
 *
 * Without --config, one source with C channels feeds a stream of N channels:
 *   C == 1        the same response on every route i -> i
 *   C == N        channel i of the file on route i -> i
 *   C == 4, N == 2  "true stereo": the file's channels are, in order,
 *                 L->L, L->R, R->L, R->R (input first, then output; the
 *                 order of jconvolver's and ir.lv2's 4-channel files)
 * With --config, the routes the file lists (live_config.h).
 */
#ifndef CONVOY_CLI_LIVE_ROUTES_H
#define CONVOY_CLI_LIVE_ROUTES_H

#include "convoy_rt.h"
#include "live_config.h"
#include "live_ir.h"

#include <stddef.h>
#include <stdint.h>

typedef struct live_routes {
  convoy_rt_route *routes; /* owned array; taps point into the bank */
  int32_t count;
  int64_t max_taps; /* longest response of any route */
} live_routes;

/* Stream channels when neither --channels nor the config says: the config's
 * highest channel; for one source, 2 for a 4-channel (true stereo) file, C
 * for a C-channel file, and for a mono response 2 (or 1 when device_max,
 * the channels both devices offer, is 1). */
int32_t live_routes_default_channels(const live_ir_bank *bank, const live_config *cfg,
                                     int32_t device_max);

/* Builds the routes for a stream of `channels` inputs and outputs from the
 * bank (after live_ir_bank_fit) and, for a config source, cfg's routes;
 * every gain is multiplied by 10^(gain_db/20). The routes borrow the bank's
 * taps: keep the bank until the routes are handed to convoy_rt. On failure
 * one line in err, naming the file (and config line). */
convoy_status live_routes_make(const live_ir_bank *bank, const live_config *cfg, int32_t channels,
                               double gain_db, live_routes *out, char *err, size_t err_size);

void live_routes_free(live_routes *r);

#endif /* CONVOY_CLI_LIVE_ROUTES_H */
