/*
 * pass_loop.h - one pass of `convoy filter` through a convoy_stream: frames
 * are read in chunks, filtered, trimmed to the output window and written, on
 * three threads (cli/filter/pass_threads.h) joined by rings of chunk buffers. The
 * audio pass (filter_run.h) and the capture pass (capture_run.h) are this
 * loop with their own read and write callbacks.
 *
 * Memory is a fixed number of chunks, whatever the input's length. Chunks
 * reach the writer in order, on one thread at a time.
 *
 * Output window, in frames of the full convolution y[0 .. N+M-2] of the N
 * frames read with M taps: y[skip .. skip+N-1], or y[skip .. N+M-2] with
 * tail (nothing at all when N = 0), less drop_end frames at the end. With decimation D > 1 (the
 * stream's config.decimation and decimation_phase P, given here too) the stream keeps y[k D + P]
 * only, and the window keeps those of them inside it.
 *
 * A warm start (pass_warm.h) reads history frames before the window's input
 * and more after it: y is then the stream's output from its first sample on
 * (y[i] the filter output at input frame first_sample + i), N is the
 * window's count, not the frames read, and the phase P is the kept frames'
 * position relative to the first sample.
 */
#ifndef CONVOY_CLI_PASS_LOOP_H
#define CONVOY_CLI_PASS_LOOP_H

#include "convoy.h"
#include "pass_warm.h"
#include "progress.h"

#include <stddef.h>
#include <stdint.h>

/* Reads up to max_frames frames into in (frames of the pass's in_format);
 * *got = 0 at the end of the input. Runs on the reader thread. Returns
 * CONVOY_OK or a status with a one-line message in err. */
typedef convoy_status (*pass_read_fn)(void *ctx, void *in, int64_t max_frames, int64_t *got,
                                      char *err, size_t err_size);

/* Takes n frames of the stream's output format, or of the encoded format
 * when the pass encodes (the buffer is the writer's to change until it
 * returns). Runs on the writer thread. Returns CONVOY_OK or a status with a
 * one-line message in err. */
typedef convoy_status (*pass_write_fn)(void *ctx, void *frames, int64_t n, char *err,
                                       size_t err_size);

/* Optional: turns n frames of the stream's output format (which it may
 * change) into n frames of encoded_frame_bytes each in codes, for the
 * writer. Runs on an encoder thread of its own, chunk after chunk in order,
 * so that encoding (quantizing audio, say) overlaps both the filter and the
 * writer's system calls. With encoded_frame_bytes 0, codes is NULL and the
 * writer takes the frames as the stage leaves them (a stage that only looks
 * at them: a float capture's peak, kept off the writer's thread). */
typedef convoy_status (*pass_encode_fn)(void *ctx, void *frames, int64_t n, void *codes, char *err,
                                        size_t err_size);

/* The output window (above) in frames of the full-rate convolution. */
typedef struct pass_window {
  int64_t skip;       /* output frames dropped at the start, 0 .. M-1 */
  int tail;           /* 1: keep the M-1 frames of ring-out */
  int64_t drop_end;   /* frames dropped at the end: 0 .. skip, or 0 .. M-1 with tail */
  int64_t decimation; /* the stream's config.decimation; 0 or 1: none */
  int64_t phase;      /* kept frames: y[k D + phase] (the stream's config.decimation_phase
                         less its first_sample, mod D) */
  int has_count;      /* 1: N of the window is count, the input frames selected;
                         0: the frames read */
  int64_t count;
} pass_window;

typedef struct pass_config {
  const char *in_name;            /* input's name for messages */
  convoy_stream *stream;          /* fresh or reset */
  int64_t chunk_frames;           /* frames per read, >= 1 */
  convoy_sample_format in_format; /* what read() puts in its in buffer */
  size_t in_frame_bytes;          /* bytes of one frame of in_format */
  size_t out_frame_bytes;         /* bytes of one frame of the stream's output format */
  pass_read_fn read;
  void *read_ctx;
  pass_write_fn write;
  void *write_ctx;
  pass_encode_fn encode; /* NULL: the writer takes the stream's frames */
  void *encode_ctx;
  size_t encoded_frame_bytes; /* with encode: bytes of one encoded frame; 0: in place */
  const char *encode_name;    /* what the encode stage does, for pass_print_times: NULL
                                 "encode" (quantizing), "pack" (codes made elsewhere) */
  pass_window window;
  pass_warm warm;     /* frames read around the window's input (pass_warm.h) */
  progress *progress; /* may be NULL */
} pass_config;

typedef struct pass_result {
  int64_t in_frames;  /* frames read (after the history of a warm start) */
  int64_t out_frames; /* frames written */
  /* Seconds: each thread's time in its callbacks (read, the stream's
   * process and flush, encode, write), the threads' run from start to
   * join, and the buffers' allocation and release around it. */
  double read_s, filter_s, encode_s, write_s, run_s, alloc_s;
  const char *encode_name; /* pass_config's */
  /* The stream's counts of integer output over the frames the window kept
   * (convoy_stream_output_stats; 0 for float output). */
  convoy_output_stats out_stats;
} pass_result;

/* Frames per read for a pass through stream: about `values` samples of
 * values_per_frame each (at least 1024 frames), or for a stream on a GPU
 * engine whole chunks of about a quarter of its latency (streams + 1
 * chunks), since smaller reads would go through its host copy; never more
 * than input_frames (the input's length, -1 when unknown) rounded up to
 * 1024. The result changes no output bit: streams are chunk-invariant. */
int64_t pass_chunk_frames(const convoy_stream *stream, int64_t values, int64_t values_per_frame,
                          int64_t input_frames);

/* One -v line (diag_notice) with the times of r and the busiest thread,
 * the one that bounds the pass. */
void pass_print_times(const pass_result *r);

/* Runs the pass to the end of the input. On failure returns the first error
 * (reading, filtering or writing) with its one-line message in err; the
 * writer may then have received part of the output. */
convoy_status pass_run(const pass_config *cfg, pass_result *res, char *err, size_t err_size);

#endif /* CONVOY_CLI_PASS_LOOP_H */
