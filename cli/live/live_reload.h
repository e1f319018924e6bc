/*
 * live_reload.h - changing the impulse responses of a running `convoy
 * live`: loads them again (SIGHUP, "reload") or loads another file ("ir
 * FILE") on the main thread and hands the routes to the convolver, which
 * crossfades to them over one block. Never on the audio thread.
 */
#ifndef CONVOY_CLI_LIVE_RELOAD_H
#define CONVOY_CLI_LIVE_RELOAD_H

#include "convoy_rt.h"
#include "live_options.h"

#include <stdint.h>

typedef struct live_reload {
  const live_options *opt; /* the command line (gain, --resample-ir, fixed values) */
  live_source source;      /* what a reload loads: the command line's, or the last "ir FILE" */
  const char *source_arg;
  char ir_arg[4096];
  int32_t rate, block, channels; /* the running stream's, set by the caller */
  int64_t max_ir;                /* the convolver's max_ir_frames */
  int64_t loaded;                /* changes loaded and handed to the convolver */
} live_reload;

/* Starts from the command line's source; the caller fills rate, block,
 * channels and max_ir once they are known. opt must outlive *r. */
void live_reload_init(live_reload *r, const live_options *opt);

/* Loads the current source again, or new_ir (not NULL) as --ir would, and
 * hands the routes to rt. On success counts it in r->loaded, prints "loaded
 * FILE" (a notice) and, for new_ir, makes it the source of later reloads; on failure prints one
 * error line and the old routes keep playing. A config whose rate, block or
 * channels changed, or a response longer than max_ir, is refused (they need
 * a restart). */
void live_reload_run(live_reload *r, convoy_rt *rt, const char *new_ir);

#endif /* CONVOY_CLI_LIVE_RELOAD_H */
