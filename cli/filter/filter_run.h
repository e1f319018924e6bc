/*
 * filter_run.h - one pass of `convoy filter`: input frames are read, filtered
 * through a convoy_stream, trimmed to the output window, scaled, and handed
 * to a consumer (the audio sink, or a peak meter for --normalize).
 *
 * The pass is cli/filter/pass_loop.h's: reading, filtering and consuming run on
 * three threads, and chunks reach the consumer in order, on one thread at a
 * time (the gain is applied there too).
 *
 * Output window, in frames of the full convolution y[0 .. N+M-2] of N input
 * frames with M taps: y[skip .. skip+N-1] without tail (the input's length),
 * y[skip .. N+M-2] with tail; with a warm start, N and y as pass_loop.h
 * says.
 */
#ifndef CONVOY_CLI_FILTER_RUN_H
#define CONVOY_CLI_FILTER_RUN_H

#include "audio_file.h"
#include "convoy.h"
#include "pass_loop.h"
#include "progress.h"

#include <stddef.h>
#include <stdint.h>

/* Receives n interleaved frames; returns CONVOY_OK or a status with a
 * one-line message in err. */
typedef convoy_status (*filter_consumer)(void *ctx, const float *frames, int64_t n, char *err,
                                         size_t err_size);

typedef struct filter_run_config {
  const char *in_name;     /* input's name for messages */
  audio_source *src;       /* positioned at the first frame */
  convoy_stream *stream;   /* fresh or reset */
  int32_t channels;        /* of the input and the output */
  int true_stereo;         /* stereo through a 4-channel stream: each frame goes in as
                              L, R, L, R, and output L is the sum of the stream's
                              channels 0 and 1, R of 2 and 3 (filter_taps.h) */
  int64_t chunk_frames;    /* frames per read, >= 1 */
  pass_window window;      /* skip, tail and count (no drop_end or decimation on audio) */
  pass_warm warm;          /* frames read around the selection (pass_warm.h) */
  float gain;              /* linear factor applied to the kept frames */
  audio_sink *sink;        /* the output: its integer codes are made on a thread of
                              their own (pass_loop.h's encoder); or NULL and: */
  int stream_codes;        /* the stream's output is the sink's integer codes
                              (filter_job_choose_codes; gain 1, no true stereo) */
  filter_consumer consume; /* takes the scaled frames (with sink NULL) */
  void *consume_ctx;
  progress *progress; /* may be NULL */
} filter_run_config;

/* Runs one pass to the end of the input. On failure returns the first error
 * (reading, filtering or consuming) with its message in err; the consumer
 * may then have received part of the output. */
convoy_status filter_run(const filter_run_config *cfg, pass_result *res, char *err,
                         size_t err_size);

#endif /* CONVOY_CLI_FILTER_RUN_H */
