/*
 * bench_memory.h - in-memory throughput of one stream configuration: a
 * float32 signal already in memory is filtered through a convoy_stream in
 * large process() calls plus a flush, and timed.
 */
#ifndef CONVOY_BENCH_MEMORY_H
#define CONVOY_BENCH_MEMORY_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bench_memory_config {
  int64_t frames;       /* frames per run, >= 1 */
  int32_t channels;     /* interleaved channels, 1 .. CONVOY_MAX_CHANNELS */
  int64_t chunk;        /* frames per process() call, >= 1 */
  int32_t threads;      /* CPU threads; 0 = library default */
  int64_t fft_size;     /* FFT engines' size, >= the taps; 0 = cost model */
  convoy_engine engine; /* engine asked for (may be AUTO) */
  int runs;             /* timed runs, >= 1 */
  double limit_s;       /* skip when runs are estimated to take longer in all */
} bench_memory_config;

typedef struct bench_memory_result {
  int skipped;                   /* 1: not run, estimate_s too long */
  double estimate_s;             /* estimated seconds per run, from a short trial */
  double create_ms;              /* convoy_stream_create (planning), milliseconds */
  double median_s, min_s, max_s; /* seconds per run: process() calls + flush */
  double check_rel_err;          /* relative L2 error of sampled outputs vs a double sum */
  convoy_engine engine_run;      /* the engine the stream chose */
  char plan[256];                /* convoy_stream_describe */
} bench_memory_result;

/* Runs one configuration on in (frames * channels interleaved samples, the
 * same signal for every run) with filter. On failure (stream creation or
 * processing) writes one line into err (err_size >= 1 bytes). Allocates and
 * touches its own output buffer before timing. */
convoy_status bench_memory_run(const bench_memory_config *cfg, const float *in,
                               convoy_filter *filter, bench_memory_result *res, char *err,
                               size_t err_size);

/* Mega samples (frames * channels) per second for seconds of work. */
double bench_msps(int64_t frames, int32_t channels, double seconds);

#endif /* CONVOY_BENCH_MEMORY_H */
