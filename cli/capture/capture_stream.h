/*
 * capture_stream.h - the convoy_stream of `convoy filter` on a capture, made
 * alike for a whole run and for each range of a split one
 * (cli/capture/capture_split.h), so that the ranges join bitwise.
 */
#ifndef CONVOY_CLI_CAPTURE_STREAM_H
#define CONVOY_CLI_CAPTURE_STREAM_H

#include "capture_io.h"
#include "capture_taps.h"
#include "convoy.h"
#include "filter_options.h"

#include <stdint.h>

/* Values (floats) per read: large enough that per-call costs vanish, small
 * enough that the rings of chunks stay in the caches. */
#define CAPTURE_CHUNK_VALUES (1 << 17)

typedef struct capture_stream_spec {
  const filter_options *o;
  const capture_in *in;
  const capture_taps *taps;
  convoy_sample_format output_format; /* capture_run_output_format of the output */
  int64_t align_skip;                 /* output frames --align (or --matched) drops */
  convoy_engine engine;               /* resolved for this machine */
  int32_t threads;
} capture_stream_spec;

/* Makes the stream for input frames from first_sample on (the stream's
 * absolute index: the input's frame with a warm selection, the selection's
 * with a cold one) on GPU `device` (-1: o->device). Prints one error line
 * and returns a CLI_EXIT_* status. */
int capture_stream_make(const capture_stream_spec *spec, int64_t first_sample, int32_t device,
                        convoy_stream **stream);

/* Where the kept frames of a decimating run sit, counted from the stream's
 * first sample first_sample: the pass window's phase (pass_loop.h) for a
 * window that starts after `dropped` output frames. 0 without decimation. */
int64_t capture_stream_phase(const filter_options *o, int64_t dropped, int64_t first_sample);

#endif /* CONVOY_CLI_CAPTURE_STREAM_H */
