/*
 * convoy_cuda.h - optional extras for callers whose samples already live in
 * GPU memory: a device convolver that filters device-resident buffers on the
 * caller's CUDA stream, with no host transfer at all.
 *
 * Available when convoy was built with CUDA (convoy_built_with_cuda() is 1);
 * the functions exist only in such a build. Include after or instead of
 * convoy.h; this header brings in cuda_runtime_api.h for cudaStream_t.
 *
 * Model
 *   convoy_cuda_conv  taps on the device (filter spectra for the FFT engine),
 *                     work buffers for max_frames frames, and the taps - 1
 *                     frames of history of every channel, all in the memory
 *                     of one device, allocated at create.
 *   process()         filters `frames` interleaved frames at d_in into
 *                     `frames` interleaved float32 frames at d_out: output
 *                     frame k of the call is y[n + k], where n counts the
 *                     frames of all earlier calls since create or reset and y
 *                     is the full convolution of everything passed so far.
 *                     Nothing is held back (latency 0), so the ring-out of
 *                     the last taps - 1 frames comes from passing zeros.
 *   process_planar()  the same for planar float32 buffers (one row per
 *                     channel, real signals): the kernels read the caller's
 *                     rows where they lie and write the output rows
 *                     directly, so no de-interleave, interleave or staging
 *                     pass runs beside them (only the first frames of a call,
 *                     whose outputs need the history, are copied: up to
 *                     taps - 1 rounded up to 4 for the direct engine, one
 *                     FFT granule or the fewest whole granules that cover
 *                     taps - 1 for the FFT engine). Mono float32 through
 *                     process() takes this path too, and so do interleaved
 *                     float32 frames where the kernels read frames in
 *                     place: under real filters 2, 4 or 8 values a frame (a
 *                     complex channel is two) on the direct engine up to 32
 *                     taps, 2 or 4 on the FFT engine up to an FFT size of
 *                     2^15, and 8 at FFT sizes of 1024 and, on GPUs of
 *                     compute capability 9.0 on, 2048 to 8192 (4096 is
 *                     the size a 1024-tap filter takes); one complex
 *                     channel under a complex filter on the direct engine
 *                     up to 32 taps; 1, 2 or 4 complex channels under
 *                     complex filters on the FFT engine up to 2^14 complex
 *                     points, and 1 or 2 under real filters too (run as
 *                     complex filters with a zero imaginary part, whose
 *                     kernel takes those frames faster than the one on
 *                     real rows). Other
 *                     interleaved and integer input goes through
 *                     one conversion pass into planar rows and one
 *                     interleaving pass out. The outputs are the same bits
 *                     either way.
 *
 * Complex signals (config.sample = CONVOY_SAMPLE_CF32): a frame holds one
 * complex value per channel, interleaved as re0, im0, re1, im1, ... (2 x
 * channels values of the input format; the float32 output likewise), as in
 * convoy.h's complex streams: a cu8 capture is CONVOY_FORMAT_U8, read in its
 * own width and converted on the device. fft_size and the granule count
 * complex points and frames. Real filters filter both parts alike; complex
 * filters (convoy_filter_create_typed(CONVOY_SAMPLE_CF32, ...)) give the
 * complex convolution without conjugation, and may be mixed with real ones
 * (one per channel). A complex filter with CONVOY_SAMPLE_F32 is
 * CONVOY_ERR_INVALID_ARGUMENT.
 *
 * Bitwise results: the direct engine gives the same bits however the input
 * is cut into calls. The FFT engine does so when every call but the last
 * passes a multiple of convoy_cuda_conv_granule() frames; other cuttings agree
 * within float rounding (relative error near 1e-7). Both agree with the
 * stream API's engines of the same kind within float rounding.
 *
 * Memory and streams: everything is ordered on the caller's stream and the
 * call returns without waiting. A float32 call (mono or planar) runs its
 * first frames (those that need the history) and its history copy on a
 * stream of the convolver's own, forked from the caller's stream and joined
 * back to it by events, so that they overlap the rest of the call; when the
 * caller's stream reaches the point after the call, all of the call's work
 * is done (this holds in stream capture too). The convolver's work buffers
 * and history are
 * in use until that work completes, so successive calls on one convolver must
 * be ordered on the device: the same stream, or streams ordered by events.
 * d_in and d_out must stay valid until the work completes. d_out may equal
 * d_in (in-place) for CONVOY_FORMAT_F32 (planar: with equal strides), which
 * costs one device copy of the input; otherwise they must not overlap.
 * Both calls give the same bits for the same samples and cuts.
 *
 * Errors: every call returns a convoy_status; the message of the last failure
 * is in convoy_cuda_conv_last_error() (creation failures: convoy_last_error()).
 * CUDA failures carry the CUDA message and leave CUDA's last error cleared.
 * Errors of the enqueued work itself show at the caller's next
 * synchronisation, as with any CUDA work.
 *
 * Thread safety: one convolver is used by one host thread at a time;
 * different convolvers are independent.
 */
#ifndef CONVOY_CUDA_H
#define CONVOY_CUDA_H

#include "convoy.h"
#include "convoy_export.h"

#include <cuda_runtime_api.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct convoy_cuda_config {
  int32_t channels;          /* 1 .. CONVOY_MAX_CHANNELS; default 1 */
  convoy_engine engine;      /* AUTO or GPU (cheaper by the model, or by timing with
                                plan_effort 1), GPU_DIRECT or GPU_FFT; default AUTO */
  int32_t device;            /* CUDA device index; -1 = the calling thread's current one */
  int64_t max_frames;        /* most frames one process() call takes, >= 1; default 2^20 */
  int64_t fft_size;          /* FFT engine: 0 = choose; else rounded up to a power of two */
  int32_t plan_effort;       /* 0 = model (fast create), 1 = also time on the device */
  convoy_sample_type sample; /* CONVOY_SAMPLE_F32 (default) or CONVOY_SAMPLE_CF32:
                                complex frames, see "Complex signals" */
} convoy_cuda_config;

/** Fills *config with the defaults above. */
CONVOY_API void convoy_cuda_config_init(convoy_cuda_config *config);

typedef struct convoy_cuda_conv convoy_cuda_conv;

/** Creates a device convolver. n_filters is 1 (every channel) or channels
 *  (filter c for channel c; shorter filters are zero-padded to the longest).
 *  The taps are copied; the filters may be destroyed afterwards. Blocks until
 *  the setup work on the device is done. */
CONVOY_API convoy_status convoy_cuda_conv_create(convoy_cuda_conv **conv,
                                                 const convoy_cuda_config *config,
                                                 convoy_filter *const *filters, int32_t n_filters);

/** Enqueues the filtering of `frames` (0 .. max_frames) interleaved frames of
 *  fmt at d_in (device memory) into `frames` interleaved float32 frames at
 *  d_out (device memory) on `stream` (0 is the legacy default stream), and
 *  returns without waiting. Integer formats are scaled as in convoy.h.
 *  Complex configs: frames are complex frames (2 x channels values). */
CONVOY_API convoy_status convoy_cuda_conv_process(convoy_cuda_conv *conv, convoy_sample_format fmt,
                                                  const void *d_in, float *d_out, int64_t frames,
                                                  cudaStream_t stream);

/** Enqueues the filtering of `frames` (0 .. max_frames) planar float32
 *  frames: channel c's input at d_in + c * in_stride, its output written at
 *  d_out + c * out_stride, both device memory, strides in floats, at least
 *  `frames` (ignored for one channel; 16-byte aligned rows are fastest).
 *  Real configs only (CONVOY_SAMPLE_F32; complex frames go interleaved to
 *  convoy_cuda_conv_process). Carries the same history as
 *  convoy_cuda_conv_process, so the two may be mixed on one convolver.
 *  Returns without waiting. */
CONVOY_API convoy_status convoy_cuda_conv_process_planar(convoy_cuda_conv *conv, const float *d_in,
                                                         int64_t in_stride, float *d_out,
                                                         int64_t out_stride, int64_t frames,
                                                         cudaStream_t stream);

/** Enqueues the zeroing of the history on `stream`: the next call starts a
 *  new signal. */
CONVOY_API convoy_status convoy_cuda_conv_reset(convoy_cuda_conv *conv, cudaStream_t stream);

/** Frames per FFT block (see "Bitwise results"); 1 for the direct engine. */
CONVOY_API int64_t convoy_cuda_conv_granule(const convoy_cuda_conv *conv);

/** The engine in use: CONVOY_ENGINE_GPU_DIRECT or CONVOY_ENGINE_GPU_FFT. */
CONVOY_API convoy_engine convoy_cuda_conv_engine(const convoy_cuda_conv *conv);

/** One line describing the plan, always NUL-terminated. */
CONVOY_API convoy_status convoy_cuda_conv_describe(const convoy_cuda_conv *conv, char *buf,
                                                   size_t buf_size);

/** Message of the last failed call on conv; "" if none. */
CONVOY_API const char *convoy_cuda_conv_last_error(const convoy_cuda_conv *conv);

/** Frees everything; device memory goes back through cudaFree, which waits
 *  for the device's work in flight. NULL is a no-op. */
CONVOY_API void convoy_cuda_conv_destroy(convoy_cuda_conv *conv);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_CUDA_H */
