/*
 * live_engine.h - the convolver behind `convoy live`'s audio callback:
 * making one (REALTIME mode, warmed up), handing a new one to a running
 * callback (the JACK period changed), and counting across them. Main thread
 * only.
 */
#ifndef CONVOY_CLI_LIVE_ENGINE_H
#define CONVOY_CLI_LIVE_ENGINE_H

#include "convoy_rt.h"
#include "live_callback.h"
#include "live_routes.h"

#include <stdint.h>

typedef struct live_engine_format {
  int32_t block, channels, rate;
  convoy_engine engine; /* AUTO, CPU or GPU */
  int64_t max_ir;       /* the longest response any later route set may have */
} live_engine_format;

/* A REALTIME convolver of f with routes, with silence run through it (so
 * that the first audio blocks do not pay for first touches of its memory
 * and plans) and then reset. NULL after one error line (a GPU asked for and
 * missing is said so). */
convoy_rt *live_engine_make(const live_engine_format *f, const live_routes *routes);

/* A zeroed engine for channels, its meter ready, running rt (may be NULL);
 * NULL when out of memory. */
live_engine *live_engine_new(int32_t channels, convoy_rt *rt);

/* Hands rt to the callback and waits up to timeout_s seconds for the
 * callback to take it (it does at its next period). Returns the convolver
 * it replaced, its counts added to e->retired: the caller destroys it. When
 * the callback did not come within the time (a stalled server), returns
 * NULL and the old convolver is left alive, since the callback may still be
 * running it. */
convoy_rt *live_engine_swap(live_engine *e, convoy_rt *rt, double timeout_s);

/* The counts of every convolver e ran: the running one's plus retired. */
void live_engine_stats(const live_engine *e, convoy_rt_stats *st);

/* Destroys the running convolver and frees e; NULL-safe. Only once the
 * callback can no longer run. */
void live_engine_free(live_engine *e);

#endif /* CONVOY_CLI_LIVE_ENGINE_H */
