/*
 * gpu_conv.h - device-resident convolution on one CUDA GPU (internal, C boundary).
 *
 * A gpu_conv turns planar float32 input that already lives in device memory
 * into planar float32 output in device memory, for every channel at once, on
 * a caller's CUDA stream. It is the GPU counterpart of an engine's run() in
 * pipeline/engine.h; the stream pipeline (chunking, host transfers, history)
 * is built on top of it. No CUDA type crosses this header: a CUDA stream is
 * passed as `void *` (a cudaStream_t; NULL is the legacy default stream).
 *
 * Engines
 *   GPU_CONV_DIRECT  direct form. Up to 64 taps the taps live in registers
 *                    (one kernel per tap count); above that, or on request,
 *                    they are staged through shared memory in blocks of
 *                    2048. Any tap count; cost grows with taps. A strided
 *                    run (gpu_conv_run_strided) computes only every step-th
 *                    output, for decimation, at the cost of those alone.
 *   GPU_CONV_FFT     overlap-save on cuFFT: batched real FFTs of size N over
 *                    segments of L = granule outputs each. Any tap count up to
 *                    2^25; device memory is bounded by max_out, never by the
 *                    signal length.
 *   GPU_CONV_AUTO    the cheaper of the two for this filter and max_out, by a
 *                    cost model, refined by timing both on the device at
 *                    create when plan_effort is 1. With decimation D the
 *                    direct engine is weighed (and timed) strided, per
 *                    kept output.
 *
 * Results
 *   out[c][k] = sum_j taps[c][j] * in[c][k + taps_len - 1 - j],  0 <= k < n_out,
 * accumulated in float32. Every output depends only on its own inputs and on
 * where it sits relative to the granule grid: splitting n_out into several
 * calls whose starts are multiples of gpu_conv_granule() (the history being
 * the taps_len - 1 input frames before each call's first output) gives
 * bitwise the same output as one call. The direct engine's granule is 1.
 * The direct engine sums taps in index order, in blocks of 2048 taps
 * (partial sums added in order), so the register and shared-memory kernels
 * agree bitwise.
 *
 * Complex filters (complex_taps = 1): rows 2c and 2c + 1 of taps, input and
 * output are the real and imaginary parts of complex channel c, and
 *   out_re[k] = sum_j h_re[j] x_re[t] - h_im[j] x_im[t]
 *   out_im[k] = sum_j h_re[j] x_im[t] + h_im[j] x_re[t],  t = k + taps_len - 1 - j.
 * The direct engine keeps up to 32 complex taps in registers and stages
 * longer filters through shared memory in blocks of 1024 taps (partial sums
 * added in order; both kernels agree bitwise). The FFT engine transforms
 * complex segments of N points (fft_size counts complex points; the granule
 * is in complex outputs): one fused kernel for N = 2^9 .. 2^14, batched
 * cuFFT C2C above; the filter spectra are full (N bins), made once at create.
 * Any tap count up to GPU_CONV_FFT_MAX_TAPS; chunk invariance as above.
 * Real filters on complex signals need none of this: their rows are plain
 * real rows (complex_taps = 0), both parts filtered by the same taps; where
 * the caller says they are complex (complex_signal) and runs frames of 1 or
 * 2 complex channels, the FFT engine filters them as complex filters with a
 * zero imaginary part.
 *
 * Errors: every call returns a convoy_status and, on failure, writes one
 * line (naming the CUDA or cuFFT error) into err when err is not NULL and
 * err_size > 0. CUDA's last error is cleared after a failure. Nothing here
 * prints or exits.
 *
 * Thread safety: different handles may be used concurrently. A handle's runs
 * on one lane must be ordered (one host thread at a time, and on one CUDA
 * stream or streams ordered by events): each lane owns scratch memory that a
 * run uses until its work on the stream completes. Runs on different lanes
 * may overlap on different streams.
 */
#ifndef CONVOY_GPU_CONV_H
#define CONVOY_GPU_CONV_H

#include "convoy.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpu_conv_kind {
  GPU_CONV_AUTO = 0,
  GPU_CONV_DIRECT = 1,
  GPU_CONV_FFT = 2
} gpu_conv_kind;

/* Most rows (planar channels) one handle filters: a complex stream carries
 * two rows, real and imaginary, per channel. */
#define GPU_CONV_MAX_ROWS (2 * CONVOY_MAX_CHANNELS)

/* Largest step of gpu_conv_run_strided. */
#define GPU_CONV_MAX_STEP CONVOY_MAX_DECIMATION

/* What a strided run of the direct engine costs per full-rate output, as a
 * share of the full-rate kernel: 1/D of the outputs at about twice the cost
 * each (H200, D = 8: 128 and 1024 complex taps 2.4x and 4.1x faster than
 * the full rate; the staging of the phase rows and the slices' sums are the
 * difference). 1 for D <= 2. */
static inline double gpu_conv_strided_cost_share(int64_t decimation) {
  return decimation > 2 ? 2.0 / (double)decimation : 1.0;
}

/* Largest tap count the FFT engine accepts (its FFT size is at most 2^26). */
#define GPU_CONV_FFT_MAX_TAPS ((int64_t)1 << 25)

typedef struct gpu_conv_config {
  int32_t channels;         /* rows, 1 .. GPU_CONV_MAX_ROWS */
  int64_t taps_len;         /* >= 1; every channel's filter has this length */
  const float *const *taps; /* [channels] host pointers, taps_len floats each, copied at
                               create; channels whose taps are equal share one copy */
  int64_t max_out;          /* most outputs per channel one run may ask for, >= 1 */
  gpu_conv_kind kind;
  int32_t device;       /* CUDA device index; -1 = the calling thread's current one */
  int32_t lanes;        /* runs that may be in flight at once on different streams;
                           0 = 1 */
  int32_t plan_effort;  /* 0 = cost model only (fast create); 1 = also time
                           candidates on the device (adds tens of ms, cached per
                           process for the same device, taps, channels, max_out) */
  int64_t fft_size;     /* FFT: 0 = choose; else a power of two, 64 .. 2^26,
                           >= taps_len + 3 (complex points with complex_taps) */
  int32_t complex_taps; /* 1: complex filters, rows in (real, imaginary) pairs for
                           taps, input and output, channels even: the convention
                           and formula of engine_request.complex_taps
                           (pipeline/engine.h); see "Complex filters" above */

  int64_t decimation;       /* D, 0 or 1 = none: the caller keeps only every D-th
                               output, through gpu_conv_run_strided on the direct
                               engine or a folded FFT plan (gpu_conv_strided), so
                               AUTO weighs the direct engine at its strided cost;
                               0 .. GPU_CONV_MAX_STEP */
  int32_t interleaved_runs; /* 1: the caller may also run interleaved frames
                               (gpu_conv_run_interleaved), so the FFT size is
                               chosen for the kernels on frames as well as on
                               planar rows; 0: planar rows only */
  int32_t complex_signal;   /* 1: rows 2c and 2c + 1 are the real and imaginary
                               parts of complex channel c, under real filters
                               (complex_taps 0). With interleaved_runs, frames
                               of 1 or 2 complex channels then go through
                               the FFT engine's complex kernel as a complex filter
                               with a zero imaginary part, which takes frames
                               faster than the kernels on real rows (the same
                               sums, rounded otherwise); planar runs too, so that
                               both keep one set of bits. 0: rows are
                               independent real signals */
  int32_t whole_granules;   /* 1: the caller's runs are whole granules
                               (gpu_conv_granule) of at most max_out outputs,
                               as the stream pipeline's chunks are, so the FFT
                               size is priced without a ragged last segment;
                               0: any count up to max_out */

  /* Tuning overrides, 0 = default. Used by the benchmark; others leave them 0. */
  int32_t direct_outputs;     /* outputs per thread of the register kernel: 4, 8 or 16
                                 (4 and 16 only for 16 and 64 taps; at 64 taps with
                                 per-thread stores only) */
  int32_t direct_store;       /* 1 = each thread stores its own outputs, 2 = through
                                 shared memory, fully coalesced */
  int32_t direct_shared_taps; /* 1 = use the shared-memory-taps kernel at any tap count */
  int32_t direct_input;       /* register kernel: 1 = inputs staged through shared
                                 memory, 2 = each thread reads its own window from the
                                 signal (up to 32 taps, 8 outputs a thread, own
                                 stores); 0 = 2 where it measured faster (16, 18,
                                 20 and 24 taps; 16 and 18 to 26 where every row
                                 uses one filter) unless outputs or stores are
                                 overridden, else 1 */
  int32_t direct_reg_taps;    /* register kernels: 1 = taps in registers even where
                                 every row uses one filter (else taken from the
                                 launch parameters there) */
  int64_t fft_batch_bytes;    /* FFT scratch per launch per lane (segments per launch);
                                 0: 2 MiB a multiprocessor, at least half the L2 */
} gpu_conv_config;

typedef struct gpu_conv gpu_conv;

/* Fills *config with defaults (mono, AUTO, device -1, one lane, everything
 * else 0); the caller sets taps, taps_len and max_out. */
void gpu_conv_config_init(gpu_conv_config *config);

/* Makes the plan: copies the taps to the device, computes filter spectra,
 * allocates every lane's scratch and FFT plans. Blocks until that setup work
 * is done. On success *conv owns everything; on failure *conv is NULL. */
convoy_status gpu_conv_create(const gpu_conv_config *config, gpu_conv **conv, char *err,
                              size_t err_size);

/* Enqueues the filtering of n_out outputs per channel on cuda_stream and
 * returns without waiting.
 *   d_in   device memory; channel c starts at d_in + c * in_stride and holds
 *          taps_len - 1 history frames then n_out frames (in_stride >=
 *          n_out + taps_len - 1). Nothing outside those frames is read.
 *   d_out  device memory; channel c is written at d_out + c * out_stride, n_out
 *          frames (out_stride >= n_out). Nothing else is written.
 * 0 <= n_out <= max_out; n_out == 0 does nothing. Strides are in floats; any
 * 4-byte alignment is accepted (16-byte aligned channel starts are fastest).
 * d_in and d_out must not overlap. lane is 0 .. lanes-1. Errors of the
 * asynchronous work itself show at the caller's next synchronisation. */
convoy_status gpu_conv_run(gpu_conv *conv, int32_t lane, const float *d_in, int64_t in_stride,
                           float *d_out, int64_t out_stride, int64_t n_out, void *cuda_stream,
                           char *err, size_t err_size);

/* 1 when gpu_conv_run_interleaved runs on this handle: real taps and
 * either the direct engine in registers (taps_len <= 32, default kernel
 * shape) on 2, 4 or 8 channels, or the FFT engine's fused kernel (N up to
 * 2^15) on 2 or 4 channels, and on 8 (N 1024, and 2048 to 8192 with
 * thread block clusters: compute capability 9.0 on); or complex taps on
 * one complex channel (2 rows, frames of (re, im)) with the direct engine
 * in registers (taps_len <= 32), or on 1, 2 or 4 complex channels (2, 4 or
 * 8 rows, frames of (re, im) pairs) with the FFT engine's fused kernel (N
 * up to 2^14 complex points); 0 otherwise or for NULL. */
int gpu_conv_interleaved(const gpu_conv *conv);

/* gpu_conv_run on interleaved frames: d_in holds taps_len - 1 history
 * frames then n_out frames, d_out receives n_out frames, each frame the
 * channels' floats side by side. The outputs are bitwise those of
 * gpu_conv_run on the same samples in planar rows. Any 4-byte alignment;
 * d_in and d_out must not overlap. CONVOY_ERR_UNSUPPORTED where
 * gpu_conv_interleaved() is 0. Lanes, streams and errors as gpu_conv_run. */
convoy_status gpu_conv_run_interleaved(gpu_conv *conv, int32_t lane, const float *d_in,
                                       float *d_out, int64_t n_out, void *cuda_stream, char *err,
                                       size_t err_size);

/* 1 when the handle can compute only some outputs (gpu_conv_run_strided):
 * the direct engine, and the FFT engine when its plan folds for the
 * config's decimation (complex taps on the cuFFT path, D a power of two:
 * then only first 0 and step D); 0 otherwise or for NULL. */
int gpu_conv_strided(const gpu_conv *conv);

/* Enqueues the outputs first + f * step, 0 <= f < count, of every channel,
 * compacted: d_out[c * out_stride + f] = y_c[first + f * step], with y_c
 * the output gpu_conv_run would compute from the same input, equal to it to
 * rounding (the direct engine sums each phase of the taps in turn; a folded
 * FFT plan inverts at 1/step of its size), each output bitwise independent
 * of first, count and the call's extent. The direct engine does about
 * 1/step of the full-rate work; a folded FFT plan its forward transforms
 * and 1/step of the inverse ones.
 *   d_in   channel c at d_in + c * in_stride holds taps_len - 1 history
 *          frames then first + (count - 1) * step + 1 frames (in_stride at
 *          least their sum when channels > 1); nothing else is read, except
 *          by a folded FFT plan, which reads whole segments: frames up to
 *          the next multiple of gpu_conv_granule() (zeros where the signal
 *          has ended).
 *   d_out  channel c at d_out + c * out_stride, count frames (out_stride >=
 *          count when channels > 1); nothing else is written.
 * first >= 0, 1 <= step <= GPU_CONV_MAX_STEP, count >= 0 (0 does nothing),
 * first + (count - 1) * step < max_out; a folded FFT plan takes only first 0
 * and step = its fold. CONVOY_ERR_UNSUPPORTED where gpu_conv_strided() is 0.
 * Lanes, streams and errors as gpu_conv_run. */
convoy_status gpu_conv_run_strided(gpu_conv *conv, int32_t lane, const float *d_in,
                                   int64_t in_stride, int64_t first, int64_t step, float *d_out,
                                   int64_t out_stride, int64_t count, void *cuda_stream, char *err,
                                   size_t err_size);

/* Frees everything. Device memory goes back through cudaFree, which waits
 * for the work in flight on the device (the handle's included). NULL is a
 * no-op. */
void gpu_conv_destroy(gpu_conv *conv);

/* The engine actually used (never GPU_CONV_AUTO). */
gpu_conv_kind gpu_conv_kind_of(const gpu_conv *conv);

/* Outputs per FFT segment (calls starting on multiples of it are bitwise
 * chunk-invariant); 1 for the direct engine. */
int64_t gpu_conv_granule(const gpu_conv *conv);

/* FFT size N, 0 for the direct engine. */
int64_t gpu_conv_fft_size(const gpu_conv *conv);

/* The FFT size the engine takes for a caller's fft_size `want`: the
 * smallest power of two >= max(want, taps_len + 3, 64); 0 above 2^26. */
int64_t gpu_conv_fft_size_at_least(int64_t taps_len, int64_t want);

/* The device the handle runs on. */
int32_t gpu_conv_device(const gpu_conv *conv);

/* One line: engine, taps, and plan parameters, into buf (NUL-terminated). */
void gpu_conv_describe(const gpu_conv *conv, char *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_GPU_CONV_H */
