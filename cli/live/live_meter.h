/*
 * live_meter.h - what the audio callback of `convoy live` measures, and the
 * main thread's view of it.
 *
 * live_meter is shared: the callback (the only writer) pushes each block's
 * compute time into a lock-free ring, bumps counters and adds up each
 * channel's level; the main thread reads them while the stream runs.
 * live_load is the main thread's own: the times drained from the ring, as
 * load (compute time / block period) percentiles over a recent window and
 * over the whole run.
 */
#ifndef CONVOY_CLI_LIVE_METER_H
#define CONVOY_CLI_LIVE_METER_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define LIVE_METER_RING 8192  /* blocks; a power of two */
#define LIVE_METER_PEAKS 1024 /* channels with a level meter (CONVOY_RT_MAX_CHANNELS) */

enum { LIVE_IN = 0, LIVE_OUT = 1 }; /* the side of a level: the inputs, the outputs */

typedef struct live_meter {
  _Atomic uint64_t head;                      /* blocks pushed so far */
  _Atomic uint32_t ns[LIVE_METER_RING];       /* compute time of block k at k % RING */
  _Atomic int64_t audio_xruns;                /* callbacks PortAudio flagged under/overflow */
  _Atomic int64_t bad_blocks;                 /* blocks output as silence: process() failed or an
                                                 unexpected frame count */
  _Atomic int64_t clipped;                    /* output samples beyond +-1 */
  _Atomic uint32_t peak[2][LIVE_METER_PEAKS]; /* largest |sample| of each input and output
                                                 since the main thread took it, as the bits
                                                 of a float */
  /* The run's totals, frames and each channel's sum of squares, published
   * as one: level_seq is odd while the callback writes them (a seqlock, so
   * that the callback never waits and the main thread reads them whole). */
  _Atomic uint32_t level_seq;
  _Atomic int64_t level_frames;
  _Atomic uint64_t level_sq[2][LIVE_METER_PEAKS]; /* the bits of doubles: lock-free wherever
                                                     64-bit integers are */
} live_meter;

/* Zeroes the meter. Before the stream starts. */
void live_meter_init(live_meter *m);

/* Real-time safe (no lock, no system call): records one block's time. */
static inline void live_meter_push(live_meter *m, uint32_t ns) {
  uint64_t h = atomic_load_explicit(&m->head, memory_order_relaxed);
  atomic_store_explicit(&m->ns[h & (LIVE_METER_RING - 1)], ns, memory_order_relaxed);
  atomic_store_explicit(&m->head, h + 1, memory_order_release);
}

/* Real-time safe: adds n to a counter of the meter. */
static inline void live_meter_add(_Atomic int64_t *counter, int64_t n) {
  atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n,
                        memory_order_relaxed);
}

/* Real-time safe: raises the peak of channel c of side (LIVE_IN or
 * LIVE_OUT) to v (>= 0). The main thread may take the peak meanwhile
 * (live_meter_take_peak), hence the compare and swap; the bits of
 * non-negative floats order as the floats do. */
static inline void live_meter_peak(live_meter *m, int side, int32_t c, float v) {
  _Atomic uint32_t *p = &m->peak[side][c];
  uint32_t bits, cur = atomic_load_explicit(p, memory_order_relaxed);
  memcpy(&bits, &v, sizeof bits);
  while (bits > cur && !atomic_compare_exchange_weak_explicit(p, &cur, bits, memory_order_relaxed,
                                                              memory_order_relaxed)) {
  }
}

/* Real-time safe: opens the callback's update of the level totals, which
 * live_meter_levels_end closes; between them, live_meter_add_sq. */
static inline void live_meter_levels_begin(live_meter *m) {
  uint32_t s = atomic_load_explicit(&m->level_seq, memory_order_relaxed);
  atomic_store_explicit(&m->level_seq, s + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
}

/* Real-time safe: adds sq to the sum of squares of channel c of side. */
static inline void live_meter_add_sq(live_meter *m, int side, int32_t c, double sq) {
  _Atomic uint64_t *t = &m->level_sq[side][c];
  uint64_t bits = atomic_load_explicit(t, memory_order_relaxed);
  double sum;
  memcpy(&sum, &bits, sizeof sum);
  sum += sq;
  memcpy(&bits, &sum, sizeof bits);
  atomic_store_explicit(t, bits, memory_order_relaxed);
}

/* Real-time safe: counts frames more and publishes the totals. */
static inline void live_meter_levels_end(live_meter *m, int64_t frames) {
  atomic_store_explicit(&m->level_frames,
                        atomic_load_explicit(&m->level_frames, memory_order_relaxed) + frames,
                        memory_order_relaxed);
  uint32_t s = atomic_load_explicit(&m->level_seq, memory_order_relaxed);
  atomic_store_explicit(&m->level_seq, s + 1, memory_order_release);
}

/* The peak of channel c of side since the last call, and starts it again
 * from 0. Main thread. */
float live_meter_take_peak(live_meter *m, int side, int32_t c);

/* The level totals as one consistent set: the frames so far (returned) and
 * the sums of squares of the first channels channels of each side into
 * sq[side][c]. Main thread; it retries while the callback writes. */
int64_t live_meter_levels(const live_meter *m, int32_t channels, double sq[2][LIVE_METER_PEAKS]);

#define LIVE_LOAD_WINDOW 16384 /* most recent blocks kept for the window figures */
#define LIVE_LOAD_BINS 4000    /* whole-run histogram: 0.05 % per bin up to 200 % */

/* Loads of a span of blocks, as a histogram. */
typedef struct live_load_hist {
  uint64_t n;                        /* blocks */
  uint64_t bins[LIVE_LOAD_BINS + 1]; /* last bin: 200 % and more */
  double max;                        /* largest load */
} live_load_hist;

typedef struct live_load {
  double period_ns; /* one block's period */
  int32_t window;   /* blocks in the window (about 2 s), <= LIVE_LOAD_WINDOW */
  uint64_t tail;    /* next ring entry to read */
  uint64_t seen;    /* blocks drained since the period was set */
  uint64_t lost;    /* blocks overwritten before they were drained */
  float recent[LIVE_LOAD_WINDOW];
  live_load_hist run;   /* the whole run */
  live_load_hist since; /* since the last live_load_since() */
} live_load;

/* Sets up for blocks of block frames at rate Hz (window about 2 s). */
void live_load_init(live_load *l, int32_t block, int32_t rate);

/* A new block size or rate from now on (the convolver was rebuilt): the
 * histograms, in % of the period, go on; the recent window starts again. */
void live_load_set_period(live_load *l, int32_t block, int32_t rate);

/* Reads the blocks pushed since the last call. Main thread. Call it well
 * within LIVE_METER_RING blocks (170 ms even at 1-frame blocks at 48 kHz):
 * older entries are overwritten, counted in lost. */
void live_load_drain(live_load *l, const live_meter *m);

/* Load in percent of the block period: p50, p99 and max over the recent
 * window (whole = 0) or the whole run (whole = 1; percentiles to 0.05 %).
 * All 0 before the first block. */
void live_load_figures(const live_load *l, int whole, double *p50, double *p99, double *max);

/* The same figures over the blocks drained since the last call (all 0 when
 * none), and starts that span again. */
void live_load_since(live_load *l, double *p50, double *p99, double *max);

#endif /* CONVOY_CLI_LIVE_METER_H */
