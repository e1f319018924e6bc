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
  int64_t segments;  /* per pulse */
  int64_t valid;     /* outputs per segment, M - T + 1 */
  int64_t out_first; /* output index (0 .. out_len - 1) of segment 0's first output */
};

/* Fused kernel sizes: M = 2^log2m, log2m in 10 .. 13. */
#define GPU_PULSE_FUSED_MIN_LOG2 10
#define GPU_PULSE_FUSED_MAX_LOG2 13

/* Block sizes the fused kernel supports, as log2 M. */
#define GPU_PULSE_FUSED_SIZES (GPU_PULSE_FUSED_MAX_LOG2 - GPU_PULSE_FUSED_MIN_LOG2 + 1)

/* A fused plan: the output of every pulse is covered by segments of 2^log2m
 * points and, with tail_log2m != 0, the outputs the whole segments of the
 * main size leave over by segments of the smaller size 2^tail_log2m. The
 * tail trims the waste of a last segment that would mostly fall past the
 * output (the radar case, 9999 outputs at M = 4096: three segments of
 * 3097 and one of 2048 points for the last 708, instead of a fourth of
 * 4096). */
struct gpu_pulse_fused_plan {
  int log2m;
  int tail_log2m; /* 0: none */
};

/* One launch of a fused plan: a.segments, a.valid and a.out_first. */
struct gpu_pulse_stage {
  int log2m;
  int64_t segments, valid, out_first;
};

/* The launches of plan for geometry g: 1 or 2 stages into st; returns the
 * count (0 when the plan does not fit g). */
int gpu_pulse_stages(const pulse_geom *g, gpu_pulse_fused_plan plan, gpu_pulse_stage st[2]);

/* Sets the kernel's shared memory limit (once per device is enough). */
cudaError_t gpu_pulse_fused_prepare(int log2m);

/* Launches one block per (pulse, segment): pulses * a.segments blocks.
 * overlap (a plan's tail stage, right after its main stage on the same
 * stream): the grid may start while the one before it runs its last
 * blocks (programmatic dependent launch: every block of the earlier grid
 * has started), and completes only after it. Only for grids that do not
 * read what the one before writes. */
cudaError_t gpu_pulse_fused_launch(int log2m, const gpu_pulse_fused_args &a, int64_t pulses,
                                   bool overlap, cudaStream_t stream);

/* The model's plan: least FFT work per pulse (sum of segments x M log2 M,
 * weighted per size: gpu_pulse_choose.cu) among the plans whose sizes fit
 * (T - 1 < M / 2), with a tail only when allow_tail; log2m 0 when none
 * fits. */
gpu_pulse_fused_plan gpu_pulse_fused_model(const pulse_geom *g, bool allow_tail);

/* Timings of the candidate plans, ms[main][tail]: main = log2m - MIN_LOG2,
 * tail = 0 for none or tail_log2m - MIN_LOG2 + 1; 0 where not timed. */
typedef float gpu_pulse_fused_times[GPU_PULSE_FUSED_SIZES][GPU_PULSE_FUSED_SIZES + 1];

/* The plan of the kind asked for (below) by the model when g->plan_effort
 * is 0, without running anything; by timing when it is 1
 * (cuda/pulse/gpu_pulse_choose.cu): runs every plan that fits
 * (each main size alone and with every smaller tail size) with a's buffers,
 * index and lengths (a.spec and a.tw must hold 2^MAX_LOG2 values; their
 * contents do not matter), on stream s, and writes the fastest to *plan:
 * among plans without a tail for GPU_PULSE_FUSED, among plans with one
 * (where any has one) for GPU_PULSE_FUSED_TAIL, among all for
 * GPU_PULSE_AUTO; the model's plan is kept unless another is clearly
 * faster. Each candidate's time goes to ms. Synchronises s. The timings are
 * remembered per process and geometry (so every compressor of one geometry
 * and plan kind computes the same bits); thread-safe. */
convoy_status gpu_pulse_fused_choose(const pulse_geom *g, gpu_pulse_plan want,
                                     const gpu_pulse_fused_args &a, cudaStream_t s,
                                     gpu_pulse_fused_plan *plan, gpu_pulse_fused_times ms,
                                     char *err, size_t err_size);

#endif /* CONVOY_GPU_PULSE_INTERNAL_CUH */
