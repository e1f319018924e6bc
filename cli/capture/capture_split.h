/*
 * capture_split.h - `convoy filter` on a capture cut into contiguous ranges
 * (cli/scale/split_plan.h), filtered at once by several pipelines: one per
 * GPU of --devices on threads of this process, and one set per rank of an
 * MPI job. Each range has its own reader (pread), warm-started stream and
 * writer, which writes its frames in place into the one output temporary;
 * the ranges join bitwise into the output of a single run.
 *
 * Only files of known length take part (no pipes); the output's temporary
 * exists before (capture_out_open, shared between processes under MPI).
 */
#ifndef CONVOY_CLI_CAPTURE_SPLIT_H
#define CONVOY_CLI_CAPTURE_SPLIT_H

#include "capture_run.h"
#include "capture_stream.h"
#include "progress.h"

#include <stdint.h>

typedef struct capture_split_config {
  capture_stream_spec stream; /* how each range's stream is made */
  capture_datatype out_type;  /* the output's datatype and scaling */
  capture_scaling out_scaling;
  const char *out_name; /* OUT, for messages */
  const char *out_path; /* opens the output's temporary (capture_writer_reopen_path) */
  int tail;             /* the job's window (capture_run.h) */
  int64_t drop_end;
  const int32_t *devices; /* this process's pipelines: a GPU index each (-1: the
                             default device) */
  int pipelines;          /* >= 1 */
  int rank, ranks;        /* this process's share: ranges rank * pipelines ... */
  progress *progress;     /* drawn for this process's first range; may be NULL */
} capture_split_config;

/* Filters this process's ranges, each on its own thread, and adds up their
 * results in *res (this process's alone: the caller sums over ranks);
 * *engine is the engine its first range ran on. The
 * output frames before and in each range are known in advance; a range
 * that wrote other than its share is an error. Prints the first error
 * line and returns a CLI_EXIT_* status. */
int capture_split_run(const capture_split_config *cfg, capture_run_result *res,
                      convoy_engine *engine);

/* Output frames of the whole job (every rank's). */
int64_t capture_split_output_frames(const capture_split_config *cfg);

#endif /* CONVOY_CLI_CAPTURE_SPLIT_H */
