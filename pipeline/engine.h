/*
 * engine.h - the interface every stream engine implements (internal), and
 * the registry over the one list of them (engine_list.def).
 *
 * An engine serves a stream in one of two ways, chosen by its ops:
 *   planar: run() turns planar input with history into planar output in
 *     whole granules, and the stream (pipeline/stream*.c) owns buffering,
 *     history, interleaving, decimation, quantizing and flushing (the CPU
 *     engines);
 *   whole stream: whole_stream != NULL, and the stream hands it interleaved
 *     host samples as they come (engine_stream_ops below), keeping only the
 *     argument checks and the flushed/failed state (the GPU engines, whose
 *     pipeline overlaps transfers with compute). Such an engine still
 *     implements run(), so one harness drives every engine the same way.
 */
#ifndef CONVOY_ENGINE_H
#define CONVOY_ENGINE_H

#include "convoy.h"
#include "sample_quantize.h"

#include <stddef.h>
#include <stdint.h>

/* Readable, zero-initialised frames the stream keeps after the last valid
 * input frame of each channel buffer, so engines may compute whole vector
 * tiles past the end and discard the surplus. */
#define CONVOY_ENGINE_SLACK 64

/* The most threads a CPU engine runs (cpu-fft makes work buffers of about
 * 12 x N bytes per thread); a request for more runs this many. */
#define ENGINE_MAX_THREADS 1024

typedef struct engine_request {
  int32_t channels;
  int64_t taps_len;         /* longest filter; shorter ones are zero-padded to it */
  const float *const *taps; /* [channels] pointers, each taps_len floats */
  int32_t threads;          /* >= 1 */
  int64_t fft_size;         /* 0 = engine's cost model */
  int32_t plan_effort;      /* 0 estimate, 1 measure */
  int32_t device;           /* GPU index, -1 default */
  int32_t complex_taps;     /* 1: complex filters. Rows then come in pairs: channel
                               row 2c is the real part and 2c + 1 the imaginary part
                               of complex channel c, for in, out and taps alike
                               (channels is even); run() computes the complex
                               convolution of each pair (see run()). An engine
                               without complex support returns a negative cost. */
  int32_t decimation;       /* 0 or 1: none. D >= 2: the caller keeps only the outputs at
                               run indices first + m D (see run_decimated()). An engine with
                               run_decimated may plan for that D (cpu-direct: phase-ordered
                               taps; cpu-fft: an FFT size D divides and a granule that is a
                               multiple of D), and its cost()
                               is then that of run_decimated, still per full-rate output
                               frame (kept frames cost D times it). Engines without
                               run_decimated ignore it; run() keeps its contract. */
  struct worker_pool *pool; /* optional (CPU engines): a pool of `threads` workers to run
                               on instead of starting one; the caller's, outliving the
                               engine and used by one engine at a time. NULL (or a pool
                               of another size than the engine runs): the engine starts
                               its own when threads > 1 */
} engine_request;

/* What a whole-stream engine is given at create beyond the engine_request
 * (whose channels are the stream's rows, and decimation the stream's). */
typedef struct engine_stream_setup {
  convoy_engine wanted;     /* the id asked for: a choice (auto, a family) lets the
                               engine settle its own method; create reports it */
  int32_t streams;          /* convoy_stream_config.gpu_streams (0 = default) */
  int64_t chunk_frames;     /* convoy_stream_config.chunk_frames (0 = default) */
  output_spec out;          /* the stream's output format */
  double shift;             /* cycles per input frame on a complex stream whose
                               taps the stream already rotated; 0 = none */
  int64_t decimation_phase; /* kept full-rate indices: this mod the request's
                               decimation (convoy_stream_config) */
  int64_t first_sample;     /* absolute index of the first input frame
                               (convoy_stream_config; pipeline/stream_warm.h) */
} engine_stream_setup;

/* The whole-stream ops: the semantics of the convoy_stream calls of the same
 * names (include/convoy.h), on host memory, frames counted as the stream
 * counts them (kept frames when decimating). Failures write a one-line
 * message into err; after a failed process or flush, reset must come next. */
typedef struct engine_stream_ops {
  /* Everything is allocated and planned here; *chosen is the exact engine id
   * that runs. */
  convoy_status (*create)(const struct engine_request *r, const engine_stream_setup *setup,
                          void **impl, convoy_engine *chosen, char *err, size_t err_size);
  convoy_status (*process)(void *impl, convoy_sample_format fmt, const void *in, int64_t in_frames,
                           void *out, int64_t *out_frames, char *err, size_t err_size);
  convoy_status (*flush)(void *impl, void *out, int64_t *out_frames, char *err, size_t err_size);
  convoy_status (*reset)(void *impl, char *err, size_t err_size);
  int64_t (*max_output)(const void *impl, int64_t in_frames);
  int64_t (*flush_frames)(const void *impl);
  int64_t (*latency)(const void *impl);
  output_tally (*tally)(const void *impl); /* integer output since create or reset */
  /* Output frames [first, end) (end < 0: no end), counted from the first
   * output after create or reset, are the ones tally counts from now on. */
  void (*stats_range)(void *impl, int64_t first, int64_t end);
  void (*describe)(const void *impl, char *buf, size_t buf_size);
  void (*destroy)(void *impl); /* NULL is a no-op */
  /* The block grid in absolute frames: outputs computed in runs that start on
   * multiples of it are bitwise the same however the runs are cut (1 for a
   * direct engine). A warm start's first run starts on it, lead =
   * first_sample mod grid frames before first_sample. */
  int64_t (*grid)(const void *impl);
  /* Before the first process or flush after create or reset: the n <= taps -
   * 1 + lead frames of fmt just before first_sample (fewer: zeros before
   * them; frames NULL when n is 0). */
  convoy_status (*set_history)(void *impl, convoy_sample_format fmt, const void *frames, int64_t n,
                               char *err, size_t err_size);
} engine_stream_ops;

typedef struct engine_ops {
  convoy_engine id;

  /* Relative cost per output frame per channel, in nanoseconds on a typical
   * core, for choosing an engine; negative when the engine cannot serve r.
   * Scale: one core of the machine at hand, the engine's run() plus about
   * 0.3 ns for the stream's (de)interleaving, which both CPU engines add; a
   * GPU engine should include its host transfers on the same scale. */
  double (*cost)(const engine_request *r);

  /* Makes the plan: all allocation and FFT planning happens here. On failure
   * writes a one-line message into err. */
  convoy_status (*create)(const engine_request *r, void **impl, char *err, size_t err_size);

  /* Outputs are produced in multiples of this many frames (1 = any count). */
  int64_t (*granule)(const void *impl);

  /* Computes n_out frames (a multiple of granule) for every channel:
   *   out[c][k] = sum_j taps[c][j] * in[c][k + taps_len - 1 - j],  0 <= k < n_out
   * or, with complex_taps, for each pair (r, i) = (2c, 2c + 1) and t = k +
   * taps_len - 1 - j:
   *   out[r][k] = sum_j taps[r][j] in[r][t] - taps[i][j] in[i][t]
   *   out[i][k] = sum_j taps[r][j] in[i][t] + taps[i][j] in[r][t]
   * in[c] holds n_out + taps_len - 1 valid frames followed by
   * CONVOY_ENGINE_SLACK readable ones. Each output must depend only on its
   * own inputs (not on n_out or on where it sits in the call), so that any
   * chunking gives bitwise the same result. Allocates nothing. */
  convoy_status (*run)(void *impl, const float *const *in, float *const *out, int64_t n_out,
                       char *err, size_t err_size);

  /* One line: engine name and plan parameters. */
  void (*describe)(const void *impl, char *buf, size_t buf_size);

  void (*destroy)(void *impl);

  /* Optional (NULL when the engine has none): run() keeping every factor-th
   * output. With n_out and in as in run(), first in [0, factor) and
   * factor >= 1, writes for every row c
   *   out[c][m] = run()'s out[c][first + m factor],  0 <= m < ceil((n_out - first) / factor)
   * (equal to rounding, not bitwise). out rows have room for n_out frames;
   * the frames after the kept ones may be overwritten. Each kept output
   * depends only on its own inputs, its run index modulo the granule and
   * factor, so that runs cut at whole granules give bitwise the same result.
   * The work saved needs factor == the request's decimation; any other
   * factor is served at the cost of run(). Allocates nothing.
   * Last in the struct, so positional initialisers of other engines stay valid. */
  convoy_status (*run_decimated)(void *impl, const float *const *in, float *const *out,
                                 int64_t n_out, int64_t first, int64_t factor, char *err,
                                 size_t err_size);

  /* NULL for a planar engine; else the stream runs through these (above). */
  const engine_stream_ops *whole_stream;
} engine_ops;

/* The getters of the listed engines: the ops, or NULL when the engine
 * cannot run here (no usable GPU). Defined by the engines' own files; one
 * whose row needs CUDA is neither defined nor referenced without it. */
#define CONVOY_STREAM_ENGINE(id, name, family, cpu_fallback, needs, getter)                        \
  const engine_ops *getter(void);
#include "engine_list.def"

/* The ops for an exact engine id, or NULL (not built, cannot run here, or
 * a choice). */
const engine_ops *engine_lookup(convoy_engine id);

/* 1 for an id of the list (exact or a choice). */
int engine_is_known(convoy_engine id);

/* CONVOY_ERR_NO_DEVICE with a message when device (>= 0; -1 is the default)
 * names no present GPU and wanted may run on a GPU; CONVOY_OK otherwise
 * (also when no GPU is present at all: choosing then says why). */
convoy_status engine_check_device(convoy_engine wanted, int32_t device, char *err, size_t err_size);

/* Why engine_choose() could not serve wanted: CONVOY_ERR_NO_DEVICE when its
 * engines are built in but none can run here (no usable GPU), with the
 * device query's reason in why; otherwise CONVOY_ERR_UNSUPPORTED and why "". */
convoy_status engine_unavailable(convoy_engine wanted, char *why, size_t why_size);

/* Resolves AUTO/CPU/GPU to the cheapest available engine for r; exact ids
 * pass through when available. Returns NULL with a message otherwise. */
const engine_ops *engine_choose(convoy_engine wanted, const engine_request *r, char *err,
                                size_t err_size);

#endif /* CONVOY_ENGINE_H */
