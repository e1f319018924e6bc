/*
 * bench_live_pace.h - one configuration of `convoy bench --live`: a
 * convoy_rt with one route per channel (input c to output c, each its own
 * decaying-noise impulse response) driven block by block, either at a
 * simulated real-time pace or as fast as it goes, with per-block compute
 * times and the process's CPU time recorded.
 *
 * Paced: the convolver runs in CONVOY_RT_REALTIME mode. A timer thread
 * releases block k at t0 + k * period (clock_nanosleep, TIMER_ABSTIME); the
 * calling thread, woken by it, runs convoy_rt_process() on that block and
 * times it. The block is due at the next release: a process() call that ends
 * later is "late" (an xrun on an audio device); blocks released while the
 * previous call was still running are skipped and counted as "dropped", as
 * a device would; blocks the convolver itself output as silence (a worker
 * late) are "silent" (convoy_rt_stats.deadline_misses).
 *
 * Fast: CONVOY_RT_OFFLINE mode, blocks back to back, no timer; measures CPU
 * seconds per second of audio, the figure compared with other programs run
 * on a fixed amount of audio.
 *
 * The processing and timer threads ask for SCHED_FIFO (live_config.priority)
 * for the paced part, as audio threads do, and return to the caller's
 * scheduling afterwards; where that is refused they run unprivileged.
 */
#ifndef CONVOY_BENCH_LIVE_PACE_H
#define CONVOY_BENCH_LIVE_PACE_H

#include "convoy_rt.h"

#include <stddef.h>
#include <stdint.h>

/* Blocks at the start of every run that are processed but not timed (first
 * touches of the delay lines and scratch memory). */
#define LIVE_WARMUP_BLOCKS 32

typedef struct live_config {
  convoy_engine engine;  /* CPU, GPU or AUTO */
  int32_t block;         /* frames per block, 1 .. CONVOY_RT_MAX_BLOCK */
  int32_t channels;      /* inputs = outputs = routes, 1 .. CONVOY_RT_MAX_CHANNELS */
  int64_t ir_frames;     /* impulse response length, >= 1 */
  int32_t rate;          /* sample rate in Hz (sets the block period) */
  int64_t blocks;        /* timed blocks wanted, >= 1 */
  double max_seconds;    /* paced: stop the timed part after this long (> 0) */
  int fast;              /* 1: OFFLINE, back to back; 0: REALTIME at real-time pace */
  int32_t threads;       /* convoy_rt_config.threads (0 = library default) */
  int32_t max_partition; /* convoy_rt_config.max_partition (0 = cost model) */
  int priority;          /* paced: SCHED_FIFO priority of the processing thread
                            (the timer thread gets one more), as an audio
                            thread has; 0 = leave the scheduling alone */
} live_config;

typedef enum live_state {
  LIVE_OK = 0,
  LIVE_OVER,        /* paced: clearly over real time (stopped early when plain) */
  LIVE_NO_MEMORY,   /* create failed for memory (host or device) */
  LIVE_UNAVAILABLE, /* engine not built or no device */
  LIVE_SKIPPED,     /* not run: a smaller channel count was already over */
  LIVE_FAILED,      /* any other error; message holds it */
  LIVE_WRONG        /* ran, but its output failed the spot check */
} live_state;

/* Spot check of the output: relative L2 error above this is WRONG (a loose
 * sanity bound; the test suite checks accuracy closely). */
#define LIVE_CHECK_LIMIT 1e-4

typedef struct live_result {
  live_state state;
  char message[320];             /* LIVE_FAILED, NO_MEMORY, UNAVAILABLE: why */
  char plan[256];                /* convoy_rt_describe */
  convoy_engine engine_run;      /* convoy_rt_engine */
  double create_ms;              /* convoy_rt_create, including transforming the IRs */
  double period_us;              /* block / rate */
  int64_t blocks;                /* blocks timed */
  int64_t late, dropped, silent; /* see the file comment */
  double mean_us, p50_us, p99_us, p999_us, max_us; /* process() per block */
  double rt_index;                                 /* period / mean compute time */
  double cpu_load;      /* CPU seconds of the whole process (all threads) per
                           second of audio processed; 1.0 = one core */
  double wall_s;        /* timed part, seconds */
  int fifo;             /* 1: both threads ran under SCHED_FIFO */
  double check_rel_err; /* spot check of the last block (see LIVE_CHECK_LIMIT);
                           -1: not checked (a block was output as silence) */
} live_result;

/* Runs one configuration; fills *r (r->state says how it went). Never
 * prints. Afterwards the first outputs of channel 0's last block are
 * compared with a double-precision sum. Allocates the impulse responses, the input and output
 * blocks and the convolver, and frees them before returning. */
void live_measure(const live_config *c, live_result *r);

/* The criterion of the largest channel count reported: r ran (not over
 * real time) and its p99.9 compute time is under half the block period,
 * with every late, dropped or silent block counted as over it (so at most
 * 0.1% of the blocks may be missed). */
int live_meets_half_period(const live_result *r);

/* Nearest-rank percentile q in [0, 1] of v[0..n-1], n >= 1, sorted ascending. */
double live_percentile(const double *sorted, int64_t n, double q);

#endif /* CONVOY_BENCH_LIVE_PACE_H */
