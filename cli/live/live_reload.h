/*
 * live_reload.h - changing the routes of a running `convoy live`: loads the
 * impulse responses again (SIGHUP, "reload") or loads another file ("ir
 * FILE"), or builds the playing responses' routes with another gain or with
 * outputs muted ("gain DB", "mute N"), on the main thread, and hands them
 * to the convolver, which crossfades to them over one block. Never on the
 * audio thread.
 */
#ifndef CONVOY_CLI_LIVE_RELOAD_H
#define CONVOY_CLI_LIVE_RELOAD_H

#include "convoy_rt.h"
#include "live_options.h"
#include "live_setup.h"

#include <stddef.h>
#include <stdint.h>

typedef struct live_reload {
  const live_options *opt; /* the command line (--resample-ir, fixed values) */
  live_source source;      /* what a reload loads: the command line's, or the last "ir FILE" */
  const char *source_arg;
  char ir_arg[4096];
  int32_t rate, block, channels; /* the running stream's, set by the caller */
  int64_t max_ir;                /* the convolver's max_ir_frames */
  int64_t loaded;                /* changes handed to the convolver (IRs, gain, mutes) */
  double gain_db;                /* on every route: --gain, then the last "gain DB" */
  unsigned char muted[CONVOY_RT_MAX_CHANNELS]; /* 1: that output's routes have gain 0 */
  live_setup playing;                          /* the responses playing (live_reload_keep) */
} live_reload;

/* Starts from the command line's source and gain; the caller fills rate,
 * block, channels and max_ir once they are known. opt must outlive *r. */
void live_reload_init(live_reload *r, const live_options *opt);

/* Takes s (loaded, and routed at the running rate) as the responses
 * playing; *s is left empty. */
void live_reload_keep(live_reload *r, live_setup *s);

/* The routes of the responses playing for a new convolver, with the gain
 * and the mutes; they borrow the kept responses' taps. */
convoy_status live_reload_routes(const live_reload *r, live_routes *out, char *err,
                                 size_t err_size);

/* Loads the current source again, or new_ir (not NULL) as --ir would, and
 * hands the routes to rt. On success counts it in r->loaded, prints "loaded
 * FILE" (a notice), keeps the new responses and, for new_ir, makes it the
 * source of later reloads; on failure prints one error line, leaves it in
 * err, and the old routes keep playing. A config whose rate, block or
 * channels changed, or a response longer than max_ir, is refused (they need
 * a restart). */
convoy_status live_reload_run(live_reload *r, convoy_rt *rt, const char *new_ir, char *err,
                              size_t err_size);

/* Hands rt the playing responses' routes with the current gain and mutes
 * (after the caller changed them); on success counts it in r->loaded. On
 * failure one line in err. */
convoy_status live_reload_apply(live_reload *r, convoy_rt *rt, char *err, size_t err_size);

/* Loads the current source again for a stream now running at rate (the
 * audio server changed it): on success the loaded responses are kept and
 * r->rate is rate; on failure (an impulse response of another rate without
 * --resample-ir, an unreadable file) one line in err and nothing changes. */
convoy_status live_reload_refit(live_reload *r, int32_t rate, char *err, size_t err_size);

/* Frees the kept responses. */
void live_reload_free(live_reload *r);

#endif /* CONVOY_CLI_LIVE_RELOAD_H */
