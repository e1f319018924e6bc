/*
 * gpu_engine.cu - the gpu-direct and gpu-fft engines in the engine table
 * (pipeline/engine.h): availability, their host-to-host cost on gpu_conv's model,
 * and the planar engine interface.
 *
 * Streams do not call run(): a stream on a GPU engine hands its work to the
 * pipeline (gpu_pipeline.h), which overlaps transfers with compute. run()
 * here is the plain synchronous form of the same filter (host planar buffers
 * to the device, filter, back), for callers of the engine interface itself.
 */
#include "gpu_conv.h"
#include "gpu_conv_internal.cuh"
#include "gpu_util.cuh"

extern "C" {
#include "engine.h"
}

#include <math.h>
#include <new>
#include <stdio.h>
#include <string.h>

/* The pipeline behind streams on these engines (gpu_stream_ops.cu). */
extern "C" const engine_stream_ops gpu_whole_stream_ops;

namespace {

/* Pinned host transfers each way while the other way runs too, bytes per
 * nanosecond (measured about 48 GB/s on an H200 over PCIe 5; the same order
 * on an H100). */
constexpr double kBusBytesPerNs = 48.0;
/* Per sample: the layout kernels, events and staging bookkeeping. */
constexpr double kPipelineNs = 0.01;
/* Outputs per channel of one pipeline chunk, about, for the FFT model. */
constexpr int64_t kModelOutputs = (int64_t)1 << 20;

constexpr int kMaxFftLog2 = 26;

/* The device's facts for gpu_conv's cost models, the one model of the
 * kernels' speed that both the engine choice here and gpu_conv's own choice
 * between direct and FFT read. */
bool device_of(int32_t device, gc_device *dev) {
  const int index = device < 0 ? 0 : device;
  if (index >= gp_device_count()) return false;
  char err[8];
  if (gc_device_query(index, dev, err, sizeof err) != CONVOY_OK) {
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

/* Host to host: the bus carries 4 bytes each way per float sample, the two
 * ways at once, and the kernel (seconds per output, from gpu_conv's model)
 * overlaps the transfers. */
double host_cost(double kernel_s) {
  if (kernel_s < 0) return -1.0;
  const double kernel_ns = kernel_s * 1e9;
  const double bus = 4.0 / kBusBytesPerNs;
  return (kernel_ns > bus ? kernel_ns : bus) + kPipelineNs;
}

/* Costs are per output frame per row: with complex taps a complex output
 * is two rows, as in gpu_conv's models. */
double cost_direct(const engine_request *r) {
  gc_device dev;
  if (r->taps_len < 1 || (r->complex_taps && r->channels % 2 != 0) || !device_of(r->device, &dev))
    return -1.0;
  /* A decimating stream runs the strided kernel on the kept outputs only. */
  return host_cost(gc_direct_model_cost(&dev, r->taps_len, r->complex_taps) *
                   gpu_conv_strided_cost_share(r->decimation));
}

double cost_fft(const engine_request *r) {
  gc_device dev;
  if (r->taps_len < 1 || r->taps_len > GPU_CONV_FFT_MAX_TAPS ||
      (r->complex_taps && r->channels % 2 != 0) || !device_of(r->device, &dev))
    return -1.0;
  return host_cost(
      gc_fft_model_cost(&dev, r->taps_len, kModelOutputs, r->complex_taps, r->fft_size));
}

/* ------------------------------------------------------------- planar engine */

/* Outputs per channel one device pass holds (before rounding to the granule). */
constexpr int64_t kPassSamples = (int64_t)1 << 20;

struct planar_engine {
  gpu_conv *conv = nullptr;
  int32_t device = 0, channels = 1;
  int64_t hist = 0, max_out = 0;
  float *d_in = nullptr, *d_out = nullptr; /* channels rows of hist + max_out / max_out */
  cudaStream_t stream = nullptr;
};

void planar_destroy(void *impl) {
  planar_engine *e = (planar_engine *)impl;
  if (!e) return;
  gp_device_guard guard;
  if (guard.enter(e->device, nullptr, 0) == CONVOY_OK) {
    if (e->stream) cudaStreamSynchronize(e->stream);
    cudaFree(e->d_in);
    cudaFree(e->d_out);
    if (e->stream) cudaStreamDestroy(e->stream);
    gpu_conv_destroy(e->conv);
    (void)cudaGetLastError();
  }
  delete e;
}

convoy_status planar_create(const engine_request *r, gpu_conv_kind kind, void **impl, char *err,
                            size_t err_size) {
  *impl = nullptr;
  const int32_t device = r->device < 0 ? 0 : r->device;
  if (device >= gp_device_count())
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE, "no GPU %d (%d present)",
                               (int)device, gp_device_count());
  gp_device_guard guard;
  convoy_status st = guard.enter(device, err, err_size);
  if (st != CONVOY_OK) return st;
  planar_engine *e = new (std::nothrow) planar_engine();
  if (!e) return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "out of host memory");
  e->device = device;
  e->channels = r->channels;
  e->hist = r->taps_len - 1;
  gpu_conv_config gc;
  gpu_conv_config_init(&gc);
  gc.channels = r->channels;
  gc.taps_len = r->taps_len;
  gc.taps = r->taps;
  gc.max_out = kPassSamples / r->channels > 4096 ? kPassSamples / r->channels : 4096;
  gc.kind = kind;
  gc.device = device;
  gc.plan_effort = r->plan_effort;
  gc.complex_taps = r->complex_taps;
  if (kind == GPU_CONV_FFT && r->fft_size > 0) {
    gc.fft_size = gpu_conv_fft_size_at_least(r->taps_len, r->fft_size);
    if (gc.fft_size == 0) {
      delete e;
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "fft_size %lld with %lld taps needs an FFT above 2^%d points",
                                 (long long)r->fft_size, (long long)r->taps_len, kMaxFftLog2);
    }
  }
  st = gpu_conv_create(&gc, &e->conv, err, err_size);
  if (st == CONVOY_OK) {
    const int64_t g = gpu_conv_granule(e->conv);
    e->max_out = gc.max_out / g * g;
    if (e->max_out < g) { /* one FFT block is longer than a pass: plan for one block */
      gc.fft_size = gpu_conv_fft_size(e->conv);
      gc.max_out = g;
      gpu_conv_destroy(e->conv);
      e->conv = nullptr;
      st = gpu_conv_create(&gc, &e->conv, err, err_size);
      e->max_out = g;
    }
  }
  const size_t ch = (size_t)r->channels;
  cudaError_t ce = cudaSuccess;
  if (st == CONVOY_OK) {
    ce = cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking);
    if (ce == cudaSuccess)
      ce = cudaMalloc((void **)&e->d_in, sizeof(float) * ch * (size_t)(e->hist + e->max_out));
    if (ce == cudaSuccess)
      ce = cudaMalloc((void **)&e->d_out, sizeof(float) * ch * (size_t)e->max_out);
    if (ce != cudaSuccess) st = gp_cuda_fail(ce, "GPU engine buffers", err, err_size);
  }
  if (st != CONVOY_OK) {
    planar_destroy(e);
    return st;
  }
  *impl = e;
  return CONVOY_OK;
}

convoy_status create_direct(const engine_request *r, void **impl, char *err, size_t err_size) {
  return planar_create(r, GPU_CONV_DIRECT, impl, err, err_size);
}

convoy_status create_fft(const engine_request *r, void **impl, char *err, size_t err_size) {
  return planar_create(r, GPU_CONV_FFT, impl, err, err_size);
}

int64_t planar_granule(const void *impl) {
  return gpu_conv_granule(((const planar_engine *)impl)->conv);
}

convoy_status planar_run(void *impl, const float *const *in, float *const *out, int64_t n_out,
                         char *err, size_t err_size) {
  planar_engine *e = (planar_engine *)impl;
  gp_device_guard guard;
  convoy_status st = guard.enter(e->device, err, err_size);
  if (st != CONVOY_OK) return st;
  const int64_t row_in = e->hist + e->max_out;
  for (int64_t at = 0; at < n_out; at += e->max_out) {
    const int64_t n = n_out - at < e->max_out ? n_out - at : e->max_out;
    for (int32_t c = 0; c < e->channels; c++)
      GP_CUDA(cudaMemcpyAsync(e->d_in + c * row_in, in[c] + at,
                              sizeof(float) * (size_t)(n + e->hist), cudaMemcpyHostToDevice,
                              e->stream),
              "host-to-device copy");
    st = gpu_conv_run(e->conv, 0, e->d_in, row_in, e->d_out, e->max_out, n, e->stream, err,
                      err_size);
    if (st != CONVOY_OK) return st;
    for (int32_t c = 0; c < e->channels; c++)
      GP_CUDA(cudaMemcpyAsync(out[c] + at, e->d_out + c * e->max_out, sizeof(float) * (size_t)n,
                              cudaMemcpyDeviceToHost, e->stream),
              "device-to-host copy");
    GP_CUDA(cudaStreamSynchronize(e->stream), "GPU filter");
  }
  return CONVOY_OK;
}

void planar_describe(const void *impl, char *buf, size_t buf_size) {
  gpu_conv_describe(((const planar_engine *)impl)->conv, buf, buf_size);
}

/* No run_decimated: GPU streams decimate in their pipeline (gpu_pipeline.h). */
/* Streams run through the pipeline (gpu_stream_ops.cu); run() above serves
 * callers of the engine interface itself. */
const engine_ops ops_direct = {CONVOY_ENGINE_GPU_DIRECT, cost_direct, create_direct,
                               planar_granule,           planar_run,  planar_describe,
                               planar_destroy,           nullptr,     &gpu_whole_stream_ops};
const engine_ops ops_fft = {CONVOY_ENGINE_GPU_FFT, cost_fft,   create_fft,
                            planar_granule,        planar_run, planar_describe,
                            planar_destroy,        nullptr,    &gpu_whole_stream_ops};

} // namespace

extern "C" const engine_ops *engine_gpu_direct(void) {
  return gp_device_count() > 0 ? &ops_direct : nullptr;
}

extern "C" const engine_ops *engine_gpu_fft(void) {
  return gp_device_count() > 0 ? &ops_fft : nullptr;
}
