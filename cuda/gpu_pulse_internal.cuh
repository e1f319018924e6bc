/*
 * gpu_pulse_internal.cuh - what the GPU pulse compressor's translation units
 * share (CUDA C++ only): the object and the kernels' launchers.
 */
#ifndef CONVOY_GPU_PULSE_INTERNAL_CUH
#define CONVOY_GPU_PULSE_INTERNAL_CUH

#include "gpu_pulse.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <stddef.h>
#include <stdint.h>

/* Where pulse t (0 .. C P - 1, [channel][pulse] order) and its samples lie:
 * sample i of the pulse is base + i * stride complex values from the start,
 * for the input (pulse length L) and the output (out_len) alike. */
struct gpu_pulse_index {
  int32_t pulses, channels;
  bool interleaved;
  __host__ __device__ __forceinline__ int64_t base(int64_t t, int64_t len) const {
    if (!interleaved) return t * len;
    const int64_t c = t / pulses, p = t - c * pulses;
    return p * len * channels + c;
  }
  __host__ __device__ __forceinline__ int64_t stride() const { return interleaved ? channels : 1; }
};

/* Arguments of the fused overlap-save kernel. */
struct gpu_pulse_fused_args {
  const float2 *in;
  float2 *out;
  const float2 *spec; /* M bins of the matched filter, times 1/M */
  const float2 *tw;   /* W_2M^i, i < M */
  gpu_pulse_index ix;
  int64_t pulse_len, out_len, out_start, taps;
  int64_t segments; /* per pulse */
  int64_t valid;    /* outputs per segment, M - T + 1 */
};

/* Fused kernel sizes: M = 2^log2m, log2m in 10 .. 13. */
#define GPU_PULSE_FUSED_MIN_LOG2 10
#define GPU_PULSE_FUSED_MAX_LOG2 13

/* Block sizes the fused kernel supports, as log2 M. */
#define GPU_PULSE_FUSED_SIZES (GPU_PULSE_FUSED_MAX_LOG2 - GPU_PULSE_FUSED_MIN_LOG2 + 1)

/* Sets the kernel's shared memory limit (once per device is enough). */
cudaError_t gpu_pulse_fused_prepare(int log2m);

/* Launches one block per (pulse, segment): pulses * a.segments blocks. */
cudaError_t gpu_pulse_fused_launch(int log2m, const gpu_pulse_fused_args &a, int64_t pulses,
                                   cudaStream_t stream);

/* The model's block size: least FFT work per pulse (segments x M log2 M)
 * among the M = 2^k with T - 1 < M / 2; 0 when none fits. */
int gpu_pulse_fused_model(const pulse_geom *g);

/* The block size by timing (cuda/gpu_pulse_choose.cu): runs the kernel for
 * every M that fits, with a's buffers, index and lengths (segments and
 * valid are set per M here), on stream s, and writes log2 M to *log2m (the
 * model's when fewer than two fit, 0 when none) and each candidate's time
 * in ms to ms[log2m - GPU_PULSE_FUSED_MIN_LOG2] (0 where not timed; an
 * array of GPU_PULSE_FUSED_SIZES). Synchronises s. Remembered per process
 * and geometry; thread-safe. */
convoy_status gpu_pulse_fused_choose(const pulse_geom *g, const gpu_pulse_fused_args &a,
                                     cudaStream_t s, int *log2m, float *ms, char *err,
                                     size_t err_size);

#endif /* CONVOY_GPU_PULSE_INTERNAL_CUH */
