/*
 * gpu_conv_fft_cb.cu - host side of the FFT engine's cuFFT callback path:
 * attaching the LTO callbacks (cuda/fft/lto/gpu_conv_fft_callbacks.cu, embedded
 * as a fatbin by the build) to a lane's plans, and the per-batch slot table.
 */
#include "gpu_conv_fft_paths.cuh"

#include <cufftXt.h>

#include <stdio.h>
#include <string.h>

#ifdef CONVOY_HAVE_FFT_CALLBACKS
#include <nvJitLink.h>

#include "gpu_conv_fft_callbacks_fatbin.h"
#endif

bool gc_cb_compiled(void) {
#ifdef CONVOY_HAVE_FFT_CALLBACKS
  return true;
#else
  return false;
#endif
}

static gc_fastdiv fastdiv_make(uint32_t d) {
  gc_fastdiv f;
  uint32_t s = 0;
  while (s < 31 && (2ull << s) <= d) s++;
  const uint64_t num = 1ull << (32 + s);
  f.magic = num / d + (num % d != 0);
  f.shift = s;
  f.d = d;
  return f;
}

void gc_cb_info_make(gc_cb_info *ci, gc_cb_slot *d_slots, int64_t n, int64_t skip) {
  memset(ci, 0, sizeof *ci);
  ci->slots = d_slots;
  ci->real = fastdiv_make((uint32_t)(n + 2));
  ci->bins = fastdiv_make((uint32_t)(n / 2 + 1));
  ci->skip = (int32_t)skip;
}

convoy_status gc_cb_attach(cufftHandle fwd, cufftHandle inv, gc_cb_info **d_info, char *err,
                           size_t err_size) {
#ifdef CONVOY_HAVE_FFT_CALLBACKS
  /* cuFFT links the callbacks through nvJitLink, which it loads itself;
   * asking its version here also keeps the library loaded with ours. */
  unsigned major = 0, minor = 0;
  if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
    return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND,
                               "gpu_conv: nvJitLink does not answer");
  const void *fatbin = gc_fft_callbacks_fatbin;
  const size_t size = sizeof gc_fft_callbacks_fatbin;
  void **info = (void **)d_info;
  char what[96];
  snprintf(what, sizeof what, "gpu_conv: cuFFT load callback (nvJitLink %u.%u)", major, minor);
  GP_CUFFT(cufftXtSetJITCallback(fwd, GC_CB_GATHER, fatbin, size, CUFFT_CB_LD_REAL, info), what);
  GP_CUFFT(cufftXtSetJITCallback(fwd, GC_CB_MULTIPLY, fatbin, size, CUFFT_CB_ST_COMPLEX, info),
           "gpu_conv: cuFFT store callback (multiply)");
  GP_CUFFT(cufftXtSetJITCallback(inv, GC_CB_SCATTER, fatbin, size, CUFFT_CB_ST_REAL, info),
           "gpu_conv: cuFFT store callback (scatter)");
  return CONVOY_OK;
#else
  (void)fwd;
  (void)inv;
  (void)d_info;
  return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                             "gpu_conv: built without cuFFT LTO callbacks");
#endif
}

__global__ void cb_slots_kernel(gc_cb_slot *slots, unsigned total, gc_cb_batch b) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  gc_cb_slot s;
  if (i < b.used) {
    const int64_t pair = b.p0 + i;
    const int64_t c = pair / b.segments, seg = pair - c * b.segments;
    int64_t left = b.n_in - seg * b.l, count = b.n_out - seg * b.l;
    s.src = b.in + c * b.in_stride + seg * b.l;
    s.dst = b.out + c * b.out_stride + seg * b.l;
    s.spec = b.spec + b.filter_of[c] * b.bins;
    s.left = (int32_t)(left < b.window ? left : b.window);
    s.count = (int32_t)(count < b.l ? count : b.l);
  } else {
    s.src = b.in;
    s.dst = b.out;
    s.spec = b.spec;
    s.left = 0;
    s.count = 0;
  }
  slots[i] = s;
}

convoy_status gc_cb_slots_set(gc_cb_slot *d_slots, unsigned total, const gc_cb_batch *b,
                              cudaStream_t stream, char *err, size_t err_size) {
  cb_slots_kernel<<<(total + 127) / 128, 128, 0, stream>>>(d_slots, total, *b);
  GP_LAUNCHED("gpu_conv: slot table kernel");
  return CONVOY_OK;
}
