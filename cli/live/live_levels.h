/*
 * live_levels.h - each channel's peak and RMS level in `convoy live`, as the
 * main thread follows them: drained from the callback's meter (live_meter.h)
 * into two spans that start again independently, one for the meter bars
 * (--meter) and one for the control command `stats`. Main thread only.
 */
#ifndef CONVOY_CLI_LIVE_LEVELS_H
#define CONVOY_CLI_LIVE_LEVELS_H

#include "live_meter.h"

#include <stdint.h>

/* The levels of a span of frames: sums of squares and peaks per side
 * (LIVE_IN, LIVE_OUT) and channel. */
typedef struct live_level_span {
  int64_t frames;
  double sq[2][LIVE_METER_PEAKS];
  float peak[2][LIVE_METER_PEAKS];
} live_level_span;

typedef struct live_levels {
  int32_t channels;               /* metered: at most LIVE_METER_PEAKS */
  int64_t frames;                 /* the meter's totals at the last drain */
  double sq[2][LIVE_METER_PEAKS]; /* ditto */
  live_level_span bars;           /* since the bars were last drawn */
  live_level_span stats;          /* since the last `stats` */
} live_levels;

/* Follows the meter m of a stream of channels channels, from its totals now. */
void live_levels_init(live_levels *l, const live_meter *m, int32_t channels);

/* Adds what the callback measured since the last call to both spans. */
void live_levels_drain(live_levels *l, live_meter *m);

/* The RMS of channel c of side over span s (sqrt of the mean square; 0
 * when the span has no frames). */
double live_level_rms(const live_level_span *s, int side, int32_t c);

/* Starts span s again, empty. */
void live_level_span_reset(live_level_span *s);

/* A linear level as dBFS (1.0 = 0 dBFS); -INFINITY for 0. */
double live_level_db(double v);

#endif /* CONVOY_CLI_LIVE_LEVELS_H */
