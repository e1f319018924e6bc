/*
 * progress.h - the progress line of `convoy filter` on stderr: percent done,
 * speed as a multiple of real time (or, for a capture without a rate, in
 * mega-samples per second) and time left, redrawn a few times a
 * second on one line and erased at the end. Drawn only when enabled (the
 * caller passes isatty(stderr) && !quiet).
 */
#ifndef CONVOY_CLI_PROGRESS_H
#define CONVOY_CLI_PROGRESS_H

#include <stdint.h>

typedef struct progress {
  int enabled;
  const char *label;    /* e.g. "filtering" */
  int64_t total_frames; /* -1 when unknown (stdin): no percent or ETA */
  double rate;          /* frames per second of the signal; 0 when unknown */
  int32_t channels;     /* samples per frame, for the speed without a rate */
  double start, last;   /* clock readings, seconds */
  int drawn;            /* a line is on screen */
} progress;

/* Seconds on a monotonic clock. */
double progress_clock(void);

/* rate: the signal's frames per second, or <= 0 when unknown (a capture
 * without --rate): the speed is then shown in samples per second. */
void progress_start(progress *p, int enabled, const char *label, int64_t total_frames, double rate,
                    int32_t channels);

/* frames_done input frames have been filtered; redraws at most ~4 times a second. */
void progress_update(progress *p, int64_t frames_done);

/* Erases the line, if one was drawn. */
void progress_end(progress *p);

#endif /* CONVOY_CLI_PROGRESS_H */
