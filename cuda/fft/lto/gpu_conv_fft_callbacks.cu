/*
 * gpu_conv_fft_callbacks.cu - cuFFT callbacks of the FFT engine's callback
 * path (see cuda/fft/gpu_conv_fft_cb.cuh). Not part of the library's sources:
 * the build compiles this file to LTO-IR (-dlto, a fatbin embedded in the
 * library), and cuFFT links it into its kernels at plan time.
 *
 * The callbacks keep C++ linkage: cuFFT looks them up by their plain names
 * as C++ functions of the callback signature (with extern "C" the plans fail
 * to build with CUFFT_INTERNAL_ERROR, cuFFT 12.0 of CUDA 13.0).
 */
#include <cufftXt.h>

#include "gpu_conv_fft_cb.cuh"

/* R2C load: input element `offset` of the in-place batch (real stride n + 2). */
__device__ cufftReal gc_cb_gather(void *data, unsigned long long offset, void *info, void *shared) {
  (void)data;
  (void)shared;
  const gc_cb_info *ci = static_cast<const gc_cb_info *>(info);
  const uint32_t off = (uint32_t)offset;
  const uint32_t b = gc_div(off, ci->real);
  const int32_t i = (int32_t)(off - b * ci->real.d);
  const gc_cb_slot *s = ci->slots + b;
  return i < s->left ? __ldg(s->src + i) : 0.0f;
}

/* R2C store: bin `offset` (complex stride n/2 + 1) times the filter spectrum. */
__device__ void gc_cb_multiply(void *data, unsigned long long offset, cufftComplex element,
                               void *info, void *shared) {
  (void)shared;
  const gc_cb_info *ci = static_cast<const gc_cb_info *>(info);
  const uint32_t off = (uint32_t)offset;
  const uint32_t b = gc_div(off, ci->bins);
  const uint32_t k = off - b * ci->bins.d;
  const float2 h = __ldg(ci->slots[b].spec + k);
  cufftComplex y;
  y.x = __fmaf_rn(element.x, h.x, -element.y * h.y);
  y.y = __fmaf_rn(element.x, h.y, element.y * h.x);
  static_cast<cufftComplex *>(data)[offset] = y;
}

/* C2R store: real element `offset` (stride n + 2); keeps circular positions
 * skip .. skip + count - 1 of each slot. */
__device__ void gc_cb_scatter(void *data, unsigned long long offset, cufftReal element, void *info,
                              void *shared) {
  (void)data;
  (void)shared;
  const gc_cb_info *ci = static_cast<const gc_cb_info *>(info);
  const uint32_t off = (uint32_t)offset;
  const uint32_t b = gc_div(off, ci->real);
  const int32_t o = (int32_t)(off - b * ci->real.d) - ci->skip;
  const gc_cb_slot *s = ci->slots + b;
  if (o >= 0 && o < s->count) __stcs(s->dst + o, element);
}
