/*
 * gpu_conv_fft_cb.cuh - what the cuFFT callback path shares between the host
 * side (cuda/fft/gpu_conv_fft_cb.cu) and the callbacks themselves
 * (cuda/fft/lto/gpu_conv_fft_callbacks.cu, compiled to LTO-IR and linked into
 * cuFFT's kernels at plan time).
 *
 * The transforms run in place on a lane's scratch of `slots` segments (real
 * stride n + 2 floats, complex stride n/2 + 1 bins). The R2C load callback
 * gathers each slot's segment from the signal (zeros past `left`), the R2C
 * store callback multiplies by the slot's filter spectrum, and the C2R store
 * callback writes the `count` valid outputs of the slot (circular positions
 * skip .. skip + count - 1) to the output. Slot facts change per batch: a
 * small kernel rewrites the slot table on the stream before each batch.
 */
#ifndef CONVOY_GPU_CONV_FFT_CB_CUH
#define CONVOY_GPU_CONV_FFT_CB_CUH

#include <cuda_runtime.h>

#include <stdint.h>

typedef struct gc_cb_slot {
  const float *src;   /* segment start in the signal */
  float *dst;         /* first output of the segment */
  const float2 *spec; /* the slot's filter spectrum, n/2 + 1 bins */
  int32_t left;       /* inputs to read from src; zeros after */
  int32_t count;      /* outputs to write */
} gc_cb_slot;

/* Exact x / d for x < 2^31: (x * magic) >> (32 + shift), magic = ceil(2^(32+shift) / d),
 * shift = floor(log2 d). */
typedef struct gc_fastdiv {
  uint64_t magic;
  uint32_t shift;
  uint32_t d;
} gc_fastdiv;

typedef struct gc_cb_info {
  gc_cb_slot *slots; /* device, one per slot */
  gc_fastdiv real;   /* by n + 2 */
  gc_fastdiv bins;   /* by n/2 + 1 */
  int32_t skip;      /* taps - 1 */
} gc_cb_info;

#ifdef __CUDACC__
__host__ __device__ __forceinline__ uint32_t gc_div(uint32_t x, const gc_fastdiv &f) {
  return (uint32_t)(((uint64_t)x * f.magic) >> (32 + f.shift));
}
#endif

/* Names of the callbacks in the LTO-IR. */
#define GC_CB_GATHER "gc_cb_gather"
#define GC_CB_MULTIPLY "gc_cb_multiply"
#define GC_CB_SCATTER "gc_cb_scatter"

#endif /* CONVOY_GPU_CONV_FFT_CB_CUH */
