/*
 * filter_job.h - `convoy filter` on an audio file: the job's state and the
 * steps that both the one-process run (cmd_filter.c) and the run split into
 * ranges (audio_split.h) take.
 */
#ifndef CONVOY_CLI_FILTER_JOB_H
#define CONVOY_CLI_FILTER_JOB_H

#include "audio_file.h"
#include "convoy.h"
#include "filter_options.h"
#include "filter_taps.h"
#include "pass_loop.h"
#include "progress.h"

#include <stdint.h>

/* Frames per read: large enough that per-call costs vanish, small enough
 * that a ring of buffers stays in the caches. */
#define FILTER_CHUNK_SAMPLES 65536
/* Fixed so that runs are reproducible (sox's -R habit is the default here). */
#define FILTER_DITHER_SEED 0x636f6e766f79ull

typedef struct filter_job {
  filter_options opt;
  const char *in_name, *out_name;
  audio_source *src;
  audio_info info;
  filter_set filters;
  convoy_engine engine; /* resolved for this machine */
  convoy_stream *stream;
  audio_sink *sink;
  int32_t out_format;
  int64_t skip;                /* output frames --align drops */
  int64_t sel_skip, sel_count; /* --skip, --count in frames (count -1: to the end) */
  int warm;                    /* the selection is filtered as part of IN (no --cold-start) */
  pass_window window;          /* the output window of every pass */
  pass_warm reads;             /* what a pass reads around the selection */
  double gain_db;
  int stream_codes; /* the stream makes OUT's integer codes (filter_job_choose_codes) */
  progress prog;
} filter_job;

/* Opens IN (j->src, j->info) and applies --skip/--count. Prints one error
 * line and returns a CLI_EXIT_* status, as every step below. */
int filter_job_open_input(filter_job *j);

/* Makes a stream for input frames from first_sample on (the stream's
 * absolute index), on GPU `device` (-1: --device's). */
int filter_job_make_stream(const filter_job *j, int64_t first_sample, int32_t device,
                           convoy_stream **stream);

/* Decides OUT's container and subtype (j->out_format), opening nothing. */
int filter_job_output_format(filter_job *j);

/* The sink options of OUT (after filter_job_output_format). */
void filter_job_sink_options(const filter_job *j, audio_sink_options *so);

/* Whether a GPU stream makes OUT's integer codes itself (j->stream_codes,
 * after filter_job_output_format), on the GPU, bitwise the codes the sink
 * would make of the stream's float output, instead of the host quantizing
 * them. Only where they are those codes: no gain, no true-stereo sum, and
 * the file's first sample the stream's first output (no --align trim, no
 * warm start) so that dither follows the same index. */
void filter_job_choose_codes(filter_job *j);

/* The output frames --align drops (j->skip). */
void filter_job_set_align(filter_job *j);

/* CPU threads for the filter when --threads is not given. */
int32_t filter_job_default_threads(void);

#endif /* CONVOY_CLI_FILTER_JOB_H */
