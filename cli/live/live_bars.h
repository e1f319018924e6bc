/*
 * live_bars.h - `convoy live --meter`: a bar per input and output channel
 * (RMS, peak and a held peak in dBFS) above the status line on a terminal,
 * redrawn in place. Main thread only.
 */
#ifndef CONVOY_CLI_LIVE_BARS_H
#define CONVOY_CLI_LIVE_BARS_H

#include "live_levels.h"

#define LIVE_BARS_HOLD_S 2.0     /* how long a peak stays held */
#define LIVE_BARS_FLOOR_DB -60.0 /* the bars' left end; their right end is 0 dBFS */

typedef struct live_bars {
  int lines;                              /* rows drawn above the cursor's row */
  float hold[2][LIVE_METER_PEAKS];        /* held peaks, linear */
  double hold_until[2][LIVE_METER_PEAKS]; /* when each held peak lapses (live_run_now) */
} live_bars;

/* Redraws, over what the last call drew, a line per channel of each side
 * (inputs first) from span s, which it then empties, and below them the
 * status line status; at time now (seconds). Lines are cut to the
 * terminal's width and the channels to its height. */
void live_bars_draw(live_bars *b, live_level_span *s, int32_t channels, const char *status,
                    double now);

/* Erases what live_bars_draw drew and leaves the cursor where it began. */
void live_bars_clear(live_bars *b);

#endif /* CONVOY_CLI_LIVE_BARS_H */
