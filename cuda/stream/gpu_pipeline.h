/*
 * gpu_pipeline.h - the host-to-host GPU streaming pipeline behind a
 * convoy_stream whose engine is gpu-direct or gpu-fft (internal, C boundary;
 * no CUDA type crosses it).
 *
 * The stream (pipeline/stream*.c) checks arguments and state (flushed,
 * failed) and delegates process, flush and reset here. The semantics are the
 * stream's (include/convoy.h): output frame k is y[k]; flush emits exactly
 * gpu_pipeline_flush_frames() frames; output is bitwise independent of how
 * process() calls cut the input.
 *
 * How: the input is cut into chunks of C frames at fixed multiples of C from
 * the start of the stream (C a multiple of the gpu_conv granule). Chunk k
 * runs on CUDA stream k mod K with device slot k mod K. A warm start
 * (first_sample s, pipeline/stream_warm.h) puts chunk 0 at the granule grid
 * point s - lead at or before s: its first lead input frames are the last
 * of set_history's frames (zeros without them), their outputs are computed
 * on the same FFT segments as in a run from frame 0 and dropped before the
 * output pass, and every index that decimation, the shift and the dither
 * use is absolute.
 *   H2D    the chunk's interleaved samples, in their own format, from the
 *          caller's buffer when it is pinned, else from the pinned staging
 *          slot the caller's frames were copied into;
 *   layout one kernel converts to float and deinterleaves every channel
 *          into the slot's planar input (skipped for mono float32, copied
 *          straight into place);
 *   history the taps - 1 frames before the chunk are copied on the device
 *          from the previous chunk's planar input (its last taps - 1 frames,
 *          history included, so any C works), after an event of the previous
 *          chunk's stream; zeros after a reset;
 *   filter gpu_conv_run on lane k mod K (with decimation on the direct
 *          engine gpu_conv_run_strided: only the kept outputs);
 *   layout one kernel interleaves every channel (skipped for mono; with
 *          decimation it also picks, rotates and quantizes);
 *   D2H    issued when the chunk is harvested: straight into the caller's
 *          output when it is pinned, else into a pinned staging slot and then
 *          copied (on several threads for large chunks).
 * At most K chunks are in flight; launching chunk k first harvests chunk
 * k - K. process() harvests, in order, whatever has completed by its end and
 * waits for its own transfers from and to caller memory before returning.
 * Memory is bounded by C x K, never by the signal's length.
 *
 * Errors: every CUDA failure becomes a convoy_status with a one-line message
 * naming the CUDA error in err; CUDA's last error is cleared. Nothing prints
 * or exits. After a failed process or flush the pipeline must be reset.
 *
 * Thread safety: one pipeline is used by one thread at a time (the stream's
 * rule). Different pipelines are independent.
 */
#ifndef CONVOY_GPU_PIPELINE_H
#define CONVOY_GPU_PIPELINE_H

#include "convoy.h"
#include "gpu_conv.h"
#include "sample_quantize.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_pipeline_config {
  int32_t channels;         /* rows: 1 .. GPU_CONV_MAX_ROWS (a complex stream gives
                               two rows, re and im, per channel: its frames are
                               interleaved re0, im0, re1, im1, ... as rows are) */
  int64_t taps_len;         /* >= 1, the longest filter */
  const float *const *taps; /* [channels] -> taps_len floats each (copied at create) */
  gpu_conv_kind kind;       /* GPU_CONV_AUTO lets gpu_conv choose */
  int32_t device;           /* CUDA device; -1 = 0 */
  int32_t streams;          /* K; 0 = default; clamped to 2 .. 16 */
  int64_t chunk_frames;     /* C before rounding; 0 = default */
  int64_t fft_size;         /* 0 = choose; else rounded up to a power of two */
  int32_t plan_effort;      /* as gpu_conv_config */
  int32_t threads;          /* host threads for staging copies, >= 1 */
  output_spec out;          /* output format: integer output is quantized on
                               the GPU and crosses the bus in its own width */
  int32_t complex_taps;     /* 1: complex filters; channels counts real rows in
                               (re, im) pairs, as gpu_conv_config.complex_taps */
  int64_t decimation;       /* D: only full-rate outputs at multiples of D from the
                               start are kept, on the GPU before the copy back (the
                               bus carries 1/D of the output); 0 or 1: none. The
                               direct engine computes only those (a strided run,
                               bitwise the full-rate outputs), the FFT engine every
                               output before the pick; AUTO weighs them so. Frame
                               counts below are then in kept frames. */
  int64_t decimation_phase; /* P, 0 .. D - 1: the kept full-rate outputs are those
                               at P mod D (0: multiples of D). With P != 0 an FFT
                               plan does not fold: every output is computed and
                               the kept ones picked */
  double shift;             /* cycles per input frame, != 0 only on a complex
                               stream whose taps the stream already rotated
                               (convoy.h): kept frame n is multiplied by
                               e^{-j 2 pi shift (n D + P)} on the GPU; 0: none */
  int64_t first_sample;     /* absolute index of the first input frame, >= 0 */
} gpu_pipeline_config;

typedef struct gpu_pipeline gpu_pipeline;

/* Makes the plan and allocates everything (pinned ring, device slots,
 * gpu_conv, streams, events). Retries with smaller chunks when the device or
 * the host runs out of memory. On failure *out is NULL and err holds why. */
convoy_status gpu_pipeline_create(const gpu_pipeline_config *config, gpu_pipeline **out, char *err,
                                  size_t err_size);

/* Waits for the GPU work in flight, then frees everything. NULL is a no-op. */
void gpu_pipeline_destroy(gpu_pipeline *p);

/* Takes in_frames frames of fmt (host memory; any alignment) and writes the
 * completed output frames, in the configured output format, to out (host
 * memory, room for gpu_pipeline_max_output(p, in_frames) frames), *out_frames
 * of them. */
convoy_status gpu_pipeline_process(gpu_pipeline *p, convoy_sample_format fmt, const void *in,
                                   int64_t in_frames, void *out, int64_t *out_frames, char *err,
                                   size_t err_size);

/* Ends the input: writes all gpu_pipeline_flush_frames() frames to out. */
convoy_status gpu_pipeline_flush(gpu_pipeline *p, void *out, int64_t *out_frames, char *err,
                                 size_t err_size);

/* Integer output statistics of every frame delivered since create or reset. */
output_tally gpu_pipeline_output_tally(const gpu_pipeline *p);

/* Output frames [first, end) (end < 0: no end), from the first after create
 * or reset, are the ones the tally counts in chunks quantized from now on. */
void gpu_pipeline_set_stats_range(gpu_pipeline *p, int64_t first, int64_t end);

/* Before the first process or flush after create or reset: the n <= taps -
 * 1 + (first_sample mod gpu_pipeline_grid()) frames of fmt that end just
 * before first_sample; fewer stand for zeros before them. */
convoy_status gpu_pipeline_set_history(gpu_pipeline *p, convoy_sample_format fmt,
                                       const void *frames, int64_t n, char *err, size_t err_size);

/* The absolute grid the outputs' arithmetic follows: the gpu_conv granule
 * (the FFT segment; 1 for the direct engine). */
int64_t gpu_pipeline_grid(const gpu_pipeline *p);

/* Drops everything in flight and pending, and zeroes the history. */
convoy_status gpu_pipeline_reset(gpu_pipeline *p, char *err, size_t err_size);

/* Most frames the next process() of in_frames may write. */
int64_t gpu_pipeline_max_output(const gpu_pipeline *p, int64_t in_frames);

/* Frames the next flush() writes: held-back input + taps - 1. */
int64_t gpu_pipeline_flush_frames(const gpu_pipeline *p);

/* Most input frames held back: (K + 1) x C - 1, plus D - 1 with decimation. */
int64_t gpu_pipeline_latency(const gpu_pipeline *p);

/* The filter engine in use: GPU_CONV_DIRECT or GPU_CONV_FFT. */
gpu_conv_kind gpu_pipeline_kind(const gpu_pipeline *p);

/* C, the chunk size in frames, and K, the CUDA streams. */
int64_t gpu_pipeline_chunk_frames(const gpu_pipeline *p);
int32_t gpu_pipeline_streams(const gpu_pipeline *p);

/* One line: engine plan, chunk, streams, device name. */
void gpu_pipeline_describe(const gpu_pipeline *p, char *buf, size_t buf_size);

/* Pinned host memory for convoy_host_alloc(): NULL when no usable GPU is
 * present or pinning fails (then the caller falls back to malloc). */
void *gpu_host_alloc_pinned(size_t bytes);
void gpu_host_free_pinned(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_GPU_PIPELINE_H */
