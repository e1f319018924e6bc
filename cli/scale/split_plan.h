/*
 * split_plan.h - one filter job cut into contiguous ranges of its input, each
 * filtered on its own (a warm-started stream: convoy.h, "Exact ranges") and
 * written at its place in the output, so that the ranges together give
 * bitwise the output of one run over the whole input.
 *
 * Indices are the stream's absolute input frames. The job filters the
 * selection [start, start + frames) and keeps the output window
 * y[win_begin .. win_end - 1] of the full-rate filter output y (y[k] the
 * output at input frame k, as the stream's first_sample counts), of which,
 * with decimation D, only the frames k with k mod D = phase.
 */
#ifndef CONVOY_CLI_SPLIT_PLAN_H
#define CONVOY_CLI_SPLIT_PLAN_H

#include <stdint.h>

/* Most ranges one job is cut into. */
#define SPLIT_MAX_RANGES 4096

typedef struct split_job {
  int64_t start, frames;      /* the selection, frames >= 1 */
  int64_t skip;               /* output frames dropped at the start (--align) */
  int64_t win_begin, win_end; /* the window (above): start + skip .. */
  int64_t decimation, phase;  /* kept frames: k mod decimation = phase; decimation >= 1 */
} split_job;

typedef struct split_range {
  int64_t first, frames; /* input frames [first, first + frames) of the selection */
  int last;              /* 1: the selection's last range (its window ends the job's) */
  int64_t out_first;     /* first output frame it writes, from the job's first */
  int64_t out_frames;    /* output frames it writes */
} split_range;

/* Cuts job into at most `want` ranges (1 .. SPLIT_MAX_RANGES) of nearly
 * equal length, none empty and the last holding the window's end
 * (ranges are merged where it would not), and gives each its part of the
 * output. Returns the number of ranges. */
int split_plan(const split_job *job, int want, split_range *ranges);

/* Output frames of the job (the sum of its ranges'). */
int64_t split_output_frames(const split_job *job);

#endif /* CONVOY_CLI_SPLIT_PLAN_H */
