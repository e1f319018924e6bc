/*
 * gpu_conv_internal.cuh - what the gpu_conv translation units share (CUDA C++
 * only): device facts, and the two engines' interfaces.
 */
#ifndef CONVOY_GPU_CONV_INTERNAL_CUH
#define CONVOY_GPU_CONV_INTERNAL_CUH

#include "gpu_conv.h"
#include "gpu_error.cuh"

#include <cuda_runtime.h>
#include <cufft.h>

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------- device */

typedef struct gc_device {
  int index;
  int sms;            /* multiprocessors */
  double fma_per_s;   /* peak fp32 fused multiply-adds per second (estimate) */
  double bytes_per_s; /* peak DRAM bytes per second (estimate) */
  int64_t l2_bytes;
} gc_device;

/* Reads the facts the cost models use. */
convoy_status gc_device_query(int index, gc_device *dev, char *err, size_t err_size);

/* ------------------------------------------------------------- filters */

/* The distinct filters of a config and which one each channel uses. With
 * complex taps a filter is a (real, imaginary) pair of rows and a channel a
 * (real, imaginary) pair of signal rows: of_channel then has channels / 2
 * entries, and taps_im holds the imaginary rows. */
typedef struct gc_filters {
  int32_t count;         /* distinct filters */
  int32_t *of_channel;   /* [channels, or channels / 2 complex] host, index into the filters */
  const float **taps;    /* [count] host pointers into the caller's taps (real parts) */
  const float **taps_im; /* [count] imaginary parts; NULL for real filters */
} gc_filters;

/* ------------------------------------------------------------- direct engine */

typedef struct gc_direct gc_direct;

/* Per output per channel (row), seconds: the model the AUTO choice starts
 * from; complex: per row of a complex filter's (real, imaginary) pair. */
double gc_direct_model_cost(const gc_device *dev, int64_t taps_len, int complex_taps);

convoy_status gc_direct_create(const gpu_conv_config *cfg, const gc_filters *filters,
                               const gc_device *dev, gc_direct **out, char *err, size_t err_size);
convoy_status gc_direct_run(gc_direct *d, const float *in, int64_t in_stride, float *out,
                            int64_t out_stride, int64_t n_out, cudaStream_t stream, char *err,
                            size_t err_size);
/* Outputs first + f * step, 0 <= f < count, of each row (gpu_conv_run_strided),
 * equal to gc_direct_run's to rounding. 1 <= step <= GPU_CONV_MAX_STEP. */
convoy_status gc_direct_run_strided(gc_direct *d, const float *in, int64_t in_stride, int64_t first,
                                    int64_t step, float *out, int64_t out_stride, int64_t count,
                                    cudaStream_t stream, char *err, size_t err_size);
/* Interleaved frames (gpu_conv_run_interleaved); CONVOY_ERR_UNSUPPORTED
 * where gc_direct_interleaved() is 0. */
int gc_direct_interleaved(const gc_direct *d);
convoy_status gc_direct_run_interleaved(gc_direct *d, const float *in, float *out, int64_t n_out,
                                        cudaStream_t stream, char *err, size_t err_size);
void gc_direct_describe(const gc_direct *d, char *buf, size_t buf_size);
void gc_direct_destroy(gc_direct *d);

/* ------------------------------------------------------------- FFT engine */

typedef struct gc_fft gc_fft;

/* Per output per channel (row), seconds, of the best FFT size by the model
 * (fft_size 0) or of the size a requested fft_size becomes, or a negative
 * value when taps_len is out of the engine's range. */
double gc_fft_model_cost(const gc_device *dev, int64_t taps_len, int64_t max_out, int complex_taps,
                         int64_t fft_size);

convoy_status gc_fft_create(const gpu_conv_config *cfg, const gc_filters *filters,
                            const gc_device *dev, gc_fft **out, char *err, size_t err_size);
convoy_status gc_fft_run(gc_fft *f, int32_t lane, const float *in, int64_t in_stride, float *out,
                         int64_t out_stride, int64_t n_out, cudaStream_t stream, char *err,
                         size_t err_size);
/* Folded runs: D when the plan folds its spectra for a decimation by D
 * (complex plain path, D a power of two; gc_fft_run_folded), else 1. */
int64_t gc_fft_fold(const gc_fft *f);
/* The outputs f D, 0 <= f < count, of every row pair, compacted (out_stride
 * apart), from the same input as gc_fft_run over whole segments (it reads
 * the input of every segment that holds a kept output, up to the next
 * multiple of the granule); equal to its outputs to rounding, each computed
 * only from its own segment. Needs gc_fft_fold(f) > 1. */
convoy_status gc_fft_run_folded(gc_fft *f, int32_t lane, const float *in, int64_t in_stride,
                                float *out, int64_t out_stride, int64_t count, cudaStream_t stream,
                                char *err, size_t err_size);
/* Interleaved frames through the fused kernels, real filters on 2, 4 or 8
 * rows, complex filters on frames of 1, 2 or 4 complex channels, (re, im)
 * each: the bits of gc_fft_run on the same samples in planar rows.
 * gc_fft_run_interleaved is CONVOY_ERR_UNSUPPORTED where
 * gc_fft_interleaved() is 0. */
int gc_fft_interleaved(const gc_fft *f);
/* Whether an FFT engine for complex filters of cfg's taps could run complex
 * channels' frames: a size it may take (cfg's fft_size, or any it chooses
 * from) has the fused complex kernel. gc_fft_interleaved() says whether
 * the engine built takes them. */
int gc_fft_complex_frames_possible(const gpu_conv_config *cfg);
convoy_status gc_fft_run_interleaved(gc_fft *f, const float *in, float *out, int64_t n_out,
                                     cudaStream_t stream, char *err, size_t err_size);
int64_t gc_fft_size(const gc_fft *f);
int64_t gc_fft_granule(const gc_fft *f);
void gc_fft_describe(const gc_fft *f, char *buf, size_t buf_size);
void gc_fft_destroy(gc_fft *f);

/* ------------------------------------------------------------- timing */

/* Median-free quick timing used at create: runs fn(arg, stream) reps times
 * after one warm-up on a private stream and returns the fastest run in
 * seconds, or a negative value after a failure (message in err). */
typedef convoy_status (*gc_timed_fn)(void *arg, cudaStream_t stream, char *err, size_t err_size);
double gc_time_best(gc_timed_fn fn, void *arg, int reps, char *err, size_t err_size);

/* Fills n floats at p with a deterministic non-zero pattern in [-1, 1). */
convoy_status gc_fill_pattern(float *p, int64_t n, cudaStream_t stream, char *err, size_t err_size);

#endif /* CONVOY_GPU_CONV_INTERNAL_CUH */
