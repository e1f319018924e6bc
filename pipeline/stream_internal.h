/*
 * stream_internal.h - the convoy_stream object (internal), shared by
 * stream.c (create, destroy, queries) and stream_process.c (process, flush,
 * reset).
 *
 * Per channel the stream keeps one planar input buffer laid out as
 *   [ history: taps_len - 1 | pending: 0 .. work | slack: CONVOY_ENGINE_SLACK ]
 * and one planar output buffer of work frames. Input is deinterleaved into
 * the pending region; whenever at least a granule is pending, the engine runs
 * on the largest whole number of granules present, the outputs are
 * interleaved into the caller's buffer, and the last taps_len - 1 frames
 * consumed plus any leftover pending frames move to the front. Every run
 * therefore starts a whole number of granules after the start of the stream,
 * which is what makes the output independent of how the input is cut.
 * Memory is fixed at create and independent of the signal's length.
 *
 * Complex streams (config.sample CF32) run on rows, not channels: complex
 * channel c is row 2c (real part) and row 2c + 1 (imaginary part), which is
 * exactly how its interleaved frames are laid out, so (de)interleaving,
 * sample conversion and integer output treat a complex stream as a real one
 * of 2 x channels. With only real filters both rows of a channel get that
 * channel's taps and the engine never knows the signal is complex; with any
 * complex filter the engine is asked for complex_taps (engine.h) and the
 * rows of a channel carry the real and imaginary parts of its taps (zeros
 * for the imaginary part of a real filter).
 *
 * A stream on a whole-stream engine (ops->whole_stream, engine.h; whole !=
 * NULL) has none of the planar buffers nor an engine impl: process, flush
 * and reset go to the engine, which does its own chunking; the stream keeps
 * the argument checks and the flushed/failed state for both kinds.
 */
#ifndef CONVOY_STREAM_INTERNAL_H
#define CONVOY_STREAM_INTERNAL_H

#include "engine.h"
#include "error_internal.h"

struct convoy_stream {
  int32_t channels; /* as configured: real or complex channels */
  int32_t rows;     /* planar rows: channels, or 2 x channels when complex */
  int is_complex;   /* config.sample is CONVOY_SAMPLE_CF32 */
  int complex_taps; /* some filter is complex: the engine runs complex_taps */
  int32_t n_filters;
  convoy_filter **filters; /* [n_filters], each retained for the stream's life */
  float *padded;           /* zero-padded or split copies of filters, or NULL */
  const float **taps;      /* [rows] -> taps_len floats each */
  int64_t taps_len;        /* longest filter */
  int64_t hist;            /* taps_len - 1 */

  const engine_ops *ops;
  void *impl;
  int64_t granule; /* engine output granule, >= 1 */
  int64_t work;    /* most frames per engine run: a multiple of granule, >= granule */

  float *in_mem, *out_mem; /* one allocation each for all channels */
  float **in_buf;          /* [rows] -> hist + work + CONVOY_ENGINE_SLACK frames */
  float **out_buf;         /* [rows] -> work frames */
  int64_t pending;         /* input frames after the history, < granule between calls */

  void *whole; /* whole-stream engines: the engine's state; NULL for planar ones */

  output_spec out;    /* what process_to() and flush_to() write */
  uint64_t out_index; /* planar engines: output samples written (the dither position) */
  output_tally tally; /* planar engines: integer output statistics */

  /* Planar engines with threads > 1: the stream's workers, lent to the engine
   * (engine_request.pool) and quantizing large runs of integer output
   * (output_write_parallel) between engine runs; NULL otherwise. */
  struct worker_pool *pool;

  /* Decimation and shift (stream_decimate.h): dec is NULL when neither is
   * configured, and then nothing below the engine run changes. */
  int64_t full_pos; /* planar engines: the absolute full-rate index of the next
                       engine output (first_sample - lead after create or reset) */
  struct stream_decim *dec;

  /* Warm start (stream_warm.h): the absolute index of the first input frame
   * process() takes, and the grid the engine's blocks sit on (the planar
   * engine's granule, the GPU pipeline's FFT segment). The planar stream's
   * first run starts lead = first_sample mod grid frames before it, on the
   * grid; those frames are input of that run (history, or zeros) whose
   * outputs are computed and dropped. */
  int64_t first_sample;
  int64_t grid;
  int64_t lead;
  int started; /* process or flush called since create or reset */

  int flushed; /* flush() done: process/flush refused until reset() */
  int failed;  /* an engine run failed: state unknown until reset() */
  char err[CONVOY_ERROR_SIZE];
};

/* Formats the stream's last-error message; returns status. */
convoy_status stream_fail(convoy_stream *s, convoy_status status, const char *fmt, ...)
    CONVOY_PRINTF(3, 4);

#endif /* CONVOY_STREAM_INTERNAL_H */
