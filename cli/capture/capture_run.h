/*
 * capture_run.h - the read -> filter -> write pass of `convoy filter` on a
 * capture: frames are read from a capture_reader in chunks, filtered through
 * a convoy_stream (any gain is in its taps), trimmed to the output window
 * and written through a capture_writer.
 *
 * The pass is cli/filter/pass_loop.h's: the reader thread does the pread and,
 * where the library cannot take the stored samples as they are, the
 * conversion to float; the writer thread the conversion to the output
 * datatype, with its clip tally. Memory is a fixed number of chunks,
 * whatever the capture's size.
 *
 * Integer samples the library reads in their stored width (native byte
 * order, default scaling: ci8/ri8 as S8, cu8/ru8 as U8, ci16/ri16 as S16,
 * ci32/ri32 as S32) are handed over as stored, and cf32/rf32 of native byte
 * order as F32; a GPU engine then moves them over the bus in that width.
 * Other datatypes and scalings are converted to float on the reader thread.
 * Native float32 output with scaling 1 is written as the filter made it;
 * integer output the stream can quantize (capture_run_output_format) comes
 * from the stream as stored codes and is written as is.
 *
 * Output window, in frames of the full convolution y[0 .. N+M-2] of the N
 * frames read with M taps: y[skip .. skip+N-1], or y[skip .. N+M-2] with
 * tail, less drop_end frames at the end. Chunks reach the writer in order.
 * With decimation D > 1 (the stream's config.decimation, given here too) the
 * stream keeps y[k D] only, and the window keeps those of them inside it: the
 * output is window frames phase, phase + D, ... (cli/capture/capture_xlate.h).
 */
#ifndef CONVOY_CLI_CAPTURE_RUN_H
#define CONVOY_CLI_CAPTURE_RUN_H

#include "capture.h"
#include "convoy.h"
#include "pass_loop.h"
#include "progress.h"

#include <stddef.h>
#include <stdint.h>

typedef struct capture_run_config {
  const char *in_name;       /* for messages */
  capture_reader *reader;    /* at its first frame; options give type, channels, scaling */
  convoy_stream *stream;     /* fresh; CONVOY_SAMPLE_CF32 for complex datatypes */
  capture_writer *writer;    /* open; its datatype has the reader's component count */
  capture_datatype out_type; /* the writer's datatype and scaling */
  capture_scaling out_scaling;
  int64_t chunk_frames; /* frames per read, >= 1 */
  int float_output;     /* 1: the stream writes float32 even where it could write out_type's
                           codes (capture_run_output_format), and the writer quantizes */
  pass_window window;   /* skip, tail, drop_end (a valid-mode correlation), count and
                           the stream's config.decimation */
  pass_warm warm;       /* frames read around the selection (pass_warm.h) */
  /* A warm pipe, whose length the reader does not know: the reads must
   * deliver need_frames frames (history and selection) before its end, else
   * the selection [skip, skip + count) (count -1: to the end) is reported
   * past the end, the first frame read being input frame read_start. 0: no
   * check (the reader checked the range). */
  int64_t need_frames, read_start, skip, count;
  progress *progress; /* may be NULL */
} capture_run_config;

typedef struct capture_run_result {
  int64_t in_frames;   /* frames read */
  int64_t out_frames;  /* frames written */
  int direct;          /* 1: the stored samples went to the library unconverted */
  capture_tally tally; /* output clip count and peak (float32 output is never clipped) */
  pass_result pass;    /* the pass's counts and times */
} capture_run_result;

/* The library format that takes samples of t with scaling s exactly as
 * stored, or -1 when they need converting on the host. */
int capture_run_direct_format(capture_datatype t, capture_scaling s);

/* The format the stream should write for output of t with scaling s: an
 * integer format when the stream can quantize to t's codes itself (native
 * byte order, default scaling; a gain is in the taps), so that a GPU engine
 * moves the output in its stored width and the host only copies it; else
 * F32. capture_run() expects a stream made with this as its output_format,
 * or with F32 and float_output set. */
convoy_sample_format capture_run_output_format(capture_datatype t, capture_scaling s);

/* Runs the pass to the end of the reader's range. On failure returns the
 * first error (reading, filtering or writing) with its one-line message in
 * err; the writer may hold part of the output (discard it). */
convoy_status capture_run(const capture_run_config *cfg, capture_run_result *res, char *err,
                          size_t err_size);

#endif /* CONVOY_CLI_CAPTURE_RUN_H */
