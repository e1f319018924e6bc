/*
 * live_setup.h - everything `convoy live` loads to make a set of routes:
 * the config file (if any), the impulse responses, and the routes built
 * from them. Used at start and again for each reload. Main thread only.
 */
#ifndef CONVOY_CLI_LIVE_SETUP_H
#define CONVOY_CLI_LIVE_SETUP_H

#include "live_config.h"
#include "live_ir.h"
#include "live_options.h"
#include "live_routes.h"

#include <stddef.h>
#include <stdint.h>

typedef struct live_setup {
  live_source source;
  live_config cfg; /* LIVE_SOURCE_CONFIG only */
  live_ir_bank bank;
  live_routes routes; /* after live_setup_route */
} live_setup;

/* Reads the config file (for LIVE_SOURCE_CONFIG) and loads the impulse
 * responses of source/arg. One line in err on failure. */
convoy_status live_setup_load(live_setup *s, live_source source, const char *arg, char *err,
                              size_t err_size);

/* The checks of live_setup_route that need no audio device, so that a bad
 * routing file or response is reported before any device is opened: the
 * responses against rate when it is known (> 0; they are fitted to it, which
 * live_setup_route then finds done), the routes against channels when known
 * (> 0) and the responses are loaded. Builds nothing that stays. */
convoy_status live_setup_check(live_setup *s, int32_t rate, int32_t channels, int resample,
                               char *err, size_t err_size);

/* Fits the responses to rate (resampling when resample, else a rate
 * mismatch is an error) and builds the routes for `channels` channels with
 * gain_db on every route. */
convoy_status live_setup_route(live_setup *s, int32_t rate, int32_t channels, int resample,
                               double gain_db, char *err, size_t err_size);

/* What the command line, then the config file, fix (a config's routes fix
 * the channels too); 0 where the audio side decides. */
int32_t live_setup_fixed_rate(const live_setup *s, const live_options *o);
int32_t live_setup_fixed_block(const live_setup *s, const live_options *o);
int32_t live_setup_fixed_channels(const live_setup *s, const live_options *o);

/* Frees everything; NULL-safe on a zeroed setup. */
void live_setup_free(live_setup *s);

#endif /* CONVOY_CLI_LIVE_SETUP_H */
