/*
 * live_status.h - the status line and the closing summary of `convoy live`
 * on stderr. Main thread only.
 */
#ifndef CONVOY_CLI_LIVE_STATUS_H
#define CONVOY_CLI_LIVE_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define LIVE_STATUS_MAX 256 /* room for a status line */

typedef struct live_figures {
  int32_t block, rate;
  double latency_ms;    /* PortAudio's input + output latency plus one block; JACK's capture
                           plus playback latency of the connected ports */
  double p50, p99, max; /* load, % of the block period */
  int64_t blocks;       /* blocks the convolver processed */
  int64_t audio_xruns;  /* PortAudio under/overflows */
  int64_t misses;       /* convolver deadline misses (blocks of silence) */
  int64_t bad_blocks;   /* blocks of silence for another reason */
  int64_t clipped;      /* output samples beyond +-1 */
  int64_t ir_changes;   /* new impulse responses loaded and handed over */
  int64_t ir_merged;    /* of those, replaced by the next before they played */
  int64_t ir_pending;   /* of those, not yet switched to (at the stop) */
} live_figures;

/* All xruns: audio_xruns + misses + bad_blocks. */
int64_t live_figures_xruns(const live_figures *f);

/* A load (% of the block period) as the callback's time per block, in us. */
double live_figures_us(const live_figures *f, double load);

/* The status line's text: "block 128  latency 5.3 ms  load p50 ...". */
void live_status_format(const live_figures *f, char *buf, size_t n);

/* Shows the status line: on a terminal redrawn in place (call often); else
 * as a line of its own, which the caller paces. */
void live_status_show(const live_figures *f, int terminal);

/* Ends a redrawn status line so that the next output starts clean. */
void live_status_clear(int terminal);

/* The summary after the stream stopped, one line:
 * "convoy: live: 10.0 s, 3750 blocks of 128 at 48000 Hz, latency 5.3 ms,
 *  load p50 2.1% p99 4.0% max 9.9%, callback p50/p99/max 56/107/263 us,
 *  xruns 0, clipped 0, IR changes 0"
 * (with the kinds of xrun in parentheses when there were any, and after the
 * IR changes "(2 merged into the next, 1 pending at the stop)" where there
 * were such). */
void live_status_summary(const live_figures *f, double seconds);

#endif /* CONVOY_CLI_LIVE_STATUS_H */
