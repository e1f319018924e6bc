/*
 * gpu_rt.cu - the GPU backend of the real-time convolver
 * (pipeline/rt_backend.h): device buffers, cuFFT plans and the per-block
 * CUDA graph made at create; process() fills the mapped input staging and
 * the control word, launches the graph, spins until it is done and copies
 * the mapped output staging out.
 *
 * Deadlines: process() always waits for the graph, in REALTIME mode too
 * (one block of work on the device is far below a block period in the
 * configurations this backend is chosen for); `missed` is reported only
 * when the graph fails, and the block is then silence.
 */
#include "gpu_conv_internal.cuh"
#include "gpu_rt_internal.cuh"
#include "gpu_util.cuh"

extern "C" {
#include "rt_backend.h"
}

#include <new>
#include <stdio.h>
#include <string.h>

namespace {

/* Fixed cost of one block: graph launch, seven nodes, completion poll. */
constexpr double kLaunchNs = 10000.0;
/* Fraction of peak device bandwidth the MAC kernel reaches. */
constexpr double kBandwidthShare = 0.6;

struct grt_impl {
  int device = 0;
  grt_geom g = {};
  convoy_rt_mode mode = CONVOY_RT_OFFLINE;
  cudaStream_t stream = nullptr;
  /* [0]: a steady block, MAC and inverse transforms of the active set only;
   * [1]: a crossfade block, both sets (the output kernel reads the control
   * word's fade flag; the transform's batch is fixed in its plan). */
  cufftHandle fwd = 0, inv[2] = {0, 0};
  bool have_fwd = false, have_inv[2] = {false, false};
  cudaGraph_t graph[2] = {nullptr, nullptr};
  cudaGraphExec_t exec[2] = {nullptr, nullptr};
  float *h_in = nullptr, *h_out = nullptr; /* mapped pinned staging */
  grt_ctl *h_ctl = nullptr;                /* mapped pinned control word */
  grt_bufs b = {};
  grt_prep prep = {}; /* makes and frees route sets */
  grt_set *active = nullptr, *pending = nullptr;
  int32_t pos = 0;
  char device_name[256] = "";
};

void free_buffers(grt_impl *m) {
  grt_bufs &b = m->b;
  cudaFree(b.ctl);
  cudaFree(b.prev);
  cudaFree(b.window);
  cudaFree(b.spec);
  cudaFree(b.fdl);
  cudaFree(b.partial);
  cudaFree(b.out_spec);
  cudaFree(b.out_time);
  cudaFreeHost(m->h_in);
  cudaFreeHost(m->h_out);
  cudaFreeHost(m->h_ctl);
  (void)cudaGetLastError();
}

void rt_destroy(void *impl) {
  grt_impl *m = (grt_impl *)impl;
  if (!m) return;
  gp_device_guard guard;
  if (guard.enter(m->device, nullptr, 0) == CONVOY_OK) {
    if (m->stream) cudaStreamSynchronize(m->stream);
    for (int k = 0; k < 2; k++) {
      if (m->exec[k]) cudaGraphExecDestroy(m->exec[k]);
      if (m->graph[k]) cudaGraphDestroy(m->graph[k]);
      if (m->have_inv[k]) cufftDestroy(m->inv[k]);
    }
    if (m->have_fwd) cufftDestroy(m->fwd);
    free_buffers(m);
    grt_prep_destroy(&m->prep);
    if (m->stream) cudaStreamDestroy(m->stream);
    (void)cudaGetLastError();
  }
  delete m;
}

template <typename T> cudaError_t dev_alloc(T **p, int64_t count) {
  return cudaMalloc((void **)p, sizeof(T) * (size_t)(count > 0 ? count : 1));
}

convoy_status alloc_buffers(grt_impl *m, char *err, size_t err_size) {
  const grt_geom &g = m->g;
  const int64_t B = g.block, N = 2 * B, K = g.bins;
  grt_bufs &b = m->b;
  GP_CUDA(
      cudaHostAlloc((void **)&m->h_in, sizeof(float) * (size_t)(g.n_in * B), cudaHostAllocMapped),
      "GPU real-time: input staging");
  GP_CUDA(
      cudaHostAlloc((void **)&m->h_out, sizeof(float) * (size_t)(g.n_out * B), cudaHostAllocMapped),
      "GPU real-time: output staging");
  GP_CUDA(cudaHostAlloc((void **)&m->h_ctl, sizeof(grt_ctl), cudaHostAllocMapped),
          "GPU real-time: control word");
  memset(m->h_in, 0, sizeof(float) * (size_t)(g.n_in * B));
  memset(m->h_out, 0, sizeof(float) * (size_t)(g.n_out * B));
  memset(m->h_ctl, 0, sizeof(grt_ctl));
  void *dp = nullptr;
  GP_CUDA(cudaHostGetDevicePointer(&dp, m->h_in, 0), "GPU real-time: input staging");
  b.in_host = (const float *)dp;
  GP_CUDA(cudaHostGetDevicePointer(&dp, m->h_out, 0), "GPU real-time: output staging");
  b.out_host = (float *)dp;
  GP_CUDA(cudaHostGetDevicePointer(&dp, m->h_ctl, 0), "GPU real-time: control word");
  b.ctl_host = (const grt_ctl *)dp;

  const char *what = "GPU real-time: device buffers";
  GP_CUDA(dev_alloc(&b.ctl, 1), what);
  GP_CUDA(dev_alloc(&b.prev, g.n_in * B), what);
  GP_CUDA(dev_alloc(&b.window, g.n_in * N), what);
  GP_CUDA(dev_alloc(&b.spec, g.n_in * K), what);
  GP_CUDA(dev_alloc(&b.fdl, g.n_in * (int64_t)g.parts * K), "GPU real-time: delay line");
  GP_CUDA(dev_alloc(&b.partial, 2 * g.n_out * (int64_t)g.splits * K), what);
  GP_CUDA(dev_alloc(&b.out_spec, 2 * g.n_out * K), what);
  GP_CUDA(dev_alloc(&b.out_time, 2 * g.n_out * N), what);
  GP_CUDA(cudaMemset(b.out_spec, 0, sizeof(float2) * (size_t)(2 * g.n_out * K)), what);
  return CONVOY_OK;
}

/* Zero history: previous block and delay line. */
cudaError_t clear_history(grt_impl *m) {
  const grt_geom &g = m->g;
  cudaError_t e =
      cudaMemsetAsync(m->b.prev, 0, sizeof(float) * (size_t)g.n_in * g.block, m->stream);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(m->b.fdl, 0, sizeof(float2) * (size_t)g.n_in * g.parts * g.bins, m->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(m->stream);
  return e;
}

convoy_status make_plans(grt_impl *m, char *err, size_t err_size) {
  const grt_geom &g = m->g;
  int n = 2 * g.block;
  int bins = g.bins;
  GP_CUFFT(cufftPlanMany(&m->fwd, 1, &n, nullptr, 1, n, nullptr, 1, bins, CUFFT_R2C, g.n_in),
           "GPU real-time: input transform plan");
  m->have_fwd = true;
  for (int k = 0; k < 2; k++) {
    GP_CUFFT(cufftPlanMany(&m->inv[k], 1, &n, nullptr, 1, bins, nullptr, 1, n, CUFFT_C2R,
                           (k + 1) * g.n_out),
             "GPU real-time: output transform plan");
    m->have_inv[k] = true;
    GP_CUFFT(cufftSetStream(m->inv[k], m->stream), "GPU real-time: output transform stream");
  }
  GP_CUFFT(cufftSetStream(m->fwd, m->stream), "GPU real-time: input transform stream");
  return CONVOY_OK;
}

/* Records one block's work into m->graph[k] (k: 0 steady, 1 crossfade) and
 * instantiates it. */
convoy_status capture(grt_impl *m, int k, char *err, size_t err_size) {
  GP_CUDA(cudaStreamBeginCapture(m->stream, cudaStreamCaptureModeThreadLocal),
          "GPU real-time: graph capture");
  const char *failed = nullptr;
  cudaError_t e = grt_launch_ingest(&m->g, &m->b, m->stream);
  cufftResult fr = CUFFT_SUCCESS;
  if (e != cudaSuccess) failed = "GPU real-time: input kernel";
  if (!failed) {
    fr = cufftExecR2C(m->fwd, m->b.window, (cufftComplex *)m->b.spec);
    if (fr != CUFFT_SUCCESS) failed = "GPU real-time: input transform";
  }
  if (!failed && (e = grt_launch_mac(&m->g, &m->b, k + 1, m->stream)) != cudaSuccess)
    failed = "GPU real-time: MAC kernels";
  if (!failed) {
    fr = cufftExecC2R(m->inv[k], (cufftComplex *)m->b.out_spec, m->b.out_time);
    if (fr != CUFFT_SUCCESS) failed = "GPU real-time: output transform";
  }
  if (!failed && (e = grt_launch_output(&m->g, &m->b, m->stream)) != cudaSuccess)
    failed = "GPU real-time: output kernel";
  cudaError_t end = cudaStreamEndCapture(m->stream, &m->graph[k]);
  if (failed && fr != CUFFT_SUCCESS) return gp_cufft_fail(fr, failed, err, err_size);
  if (failed) return gp_cuda_fail(e, failed, err, err_size);
  GP_CUDA(end, "GPU real-time: graph capture");
  GP_CUDA(cudaGraphInstantiate(&m->exec[k], m->graph[k], 0), "GPU real-time: graph instantiate");
  return CONVOY_OK;
}

convoy_status check_device(int32_t want, int *device, char *err, size_t err_size) {
  const int count = gp_device_count();
  *device = want < 0 ? 0 : want;
  if (count == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE,
                               "GPU real-time: no CUDA device present");
  if (*device >= count)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE,
                               "GPU real-time: no GPU %d (%d present)", (int)want, count);
  return CONVOY_OK;
}

double rt_cost(const rt_layout *l, const convoy_rt_route *routes, int32_t n_routes) {
  int device = 0;
  if (check_device(l->device, &device, nullptr, 0) != CONVOY_OK) return -1.0;
  gc_device dev;
  if (gc_device_query(device, &dev, nullptr, 0) != CONVOY_OK) return -1.0;
  const double B = l->block, K = B + 1, N = 2 * B;
  double parts = 0;
  for (int32_t r = 0; r < n_routes; r++)
    parts += (double)((routes[r].n_taps + l->block - 1) / l->block);
  /* MAC: delay line and IR spectra, 8 bytes a bin each; transforms and
   * staging: a few passes over the windows. */
  const double bytes = parts * K * 16.0 + (l->n_in + 2.0 * l->n_out) * N * 4.0 * 6.0;
  return kLaunchNs + bytes / (kBandwidthShare * dev.bytes_per_s * 1e-9);
}

convoy_status rt_create(const rt_layout *l, void **impl, char *err, size_t err_size) {
  *impl = nullptr;
  int device = 0;
  convoy_status st = check_device(l->device, &device, err, err_size);
  if (st != CONVOY_OK) return st;
  const int64_t parts = (l->max_ir + l->block - 1) / l->block;
  if (parts > INT32_MAX / 2)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "GPU real-time: %lld partitions of %d frames are too many",
                               (long long)parts, (int)l->block);
  gp_device_guard guard;
  st = guard.enter(device, err, err_size);
  if (st != CONVOY_OK) return st;
  gc_device dev;
  st = gc_device_query(device, &dev, err, err_size);
  if (st != CONVOY_OK) return st;

  grt_impl *m = new (std::nothrow) grt_impl();
  if (!m)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "GPU real-time: out of host memory");
  m->device = device;
  m->mode = l->mode;
  m->g.block = l->block;
  m->g.parts = (int32_t)parts;
  m->g.n_in = l->n_in;
  m->g.n_out = l->n_out;
  grt_geom_plan(&m->g, dev.sms);
  cudaDeviceProp prop;
  if (gp_device_props(device, &prop) == cudaSuccess)
    snprintf(m->device_name, sizeof m->device_name, "%s", prop.name);
  (void)cudaGetLastError();

  /* The highest priority, so that a set_routes() transforming new impulse
   * responses meanwhile delays the blocks as little as possible. */
  int least = 0, greatest = 0;
  cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithPriority(&m->stream, cudaStreamNonBlocking, greatest);
  if (e != cudaSuccess) st = gp_cuda_fail(e, "GPU real-time: stream", err, err_size);
  if (st == CONVOY_OK) st = alloc_buffers(m, err, err_size);
  if (st == CONVOY_OK) st = make_plans(m, err, err_size);
  if (st == CONVOY_OK) st = grt_prep_create(&m->g, &m->prep, err, err_size);
  if (st == CONVOY_OK && (e = clear_history(m)) != cudaSuccess)
    st = gp_cuda_fail(e, "GPU real-time: clear", err, err_size);
  for (int k = 0; k < 2 && st == CONVOY_OK; k++) st = capture(m, k, err, err_size);
  if (st != CONVOY_OK) {
    rt_destroy(m);
    return st;
  }
  *impl = m;
  return CONVOY_OK;
}

convoy_status rt_prepare(void *impl, const convoy_rt_route *routes, int32_t n_routes, void **set,
                         char *err, size_t err_size) {
  grt_impl *m = (grt_impl *)impl;
  *set = nullptr;
  gp_device_guard guard;
  convoy_status st = guard.enter(m->device, err, err_size);
  if (st != CONVOY_OK) return st;
  grt_set *s = nullptr;
  st = grt_set_create(&m->g, &m->prep, routes, n_routes, &s, err, err_size);
  if (st == CONVOY_OK) *set = s;
  return st;
}

void rt_install(void *impl, void *set) {
  grt_impl *m = (grt_impl *)impl;
  m->active = (grt_set *)set;
  m->pending = nullptr;
}

int rt_begin_switch(void *impl, void *set) {
  grt_impl *m = (grt_impl *)impl;
  if (m->pending) return 0;
  m->pending = (grt_set *)set;
  return 1;
}

int64_t rt_switch_delay(const void *impl) {
  (void)impl;
  return 0;
}

convoy_status rt_process(void *impl, const float *const *in, float *const *out,
                         rt_block_result *result, char *err, size_t err_size) {
  grt_impl *m = (grt_impl *)impl;
  const grt_geom &g = m->g;
  const size_t bytes = sizeof(float) * (size_t)g.block;
  result->missed = 0;
  result->switch_done = 0;
  convoy_status st = CONVOY_OK;
  if (!m->active) {
    st = convoy_error_format(err, err_size, CONVOY_ERR_STATE, "GPU real-time: no route set");
  } else {
    for (int32_t i = 0; i < g.n_in; i++) memcpy(m->h_in + (size_t)i * g.block, in[i], bytes);
    m->h_ctl->set[0] = m->active->desc;
    m->h_ctl->set[1] = m->pending ? m->pending->desc : m->active->desc;
    m->h_ctl->fade = m->pending ? 1 : 0;
    m->h_ctl->pos = m->pos;
    gp_device_guard guard;
    st = guard.enter(m->device, err, err_size);
    cudaError_t e = cudaSuccess;
    if (st == CONVOY_OK) {
      e = cudaGraphLaunch(m->exec[m->pending ? 1 : 0], m->stream);
      if (e == cudaSuccess)
        while ((e = cudaStreamQuery(m->stream)) == cudaErrorNotReady) {
        }
      if (e != cudaSuccess) st = gp_cuda_fail(e, "GPU real-time: block", err, err_size);
    }
  }
  if (st != CONVOY_OK) {
    for (int32_t o = 0; o < g.n_out; o++) memset(out[o], 0, bytes);
    result->missed = m->mode == CONVOY_RT_REALTIME;
    return st;
  }
  for (int32_t o = 0; o < g.n_out; o++) memcpy(out[o], m->h_out + (size_t)o * g.block, bytes);
  m->pos = m->pos + 1 == g.parts ? 0 : m->pos + 1;
  if (m->pending) {
    m->active = m->pending;
    m->pending = nullptr;
    result->switch_done = 1;
  }
  return CONVOY_OK;
}

void rt_reset(void *impl) {
  grt_impl *m = (grt_impl *)impl;
  gp_device_guard guard;
  if (guard.enter(m->device, nullptr, 0) == CONVOY_OK && clear_history(m) != cudaSuccess)
    (void)cudaGetLastError();
  m->pos = 0;
  if (m->pending) {
    m->active = m->pending;
    m->pending = nullptr;
  }
}

void rt_describe(const void *impl, char *buf, size_t buf_size) {
  const grt_impl *m = (const grt_impl *)impl;
  const grt_geom &g = m->g;
  snprintf(buf, buf_size,
           "gpu: device %d (%s), block %d, uniform partitions %d x %d (FFT %d), %d in x %d out, "
           "%d routes, MAC %d splits x %d lanes, one CUDA graph per block",
           m->device, m->device_name, (int)g.block, (int)g.parts, (int)g.block, 2 * (int)g.block,
           (int)g.n_in, (int)g.n_out, m->active ? (int)m->active->n_routes : 0, (int)g.splits,
           (int)g.mac_lanes);
}

void rt_free_set(void *impl, void *set) {
  grt_impl *m = (grt_impl *)impl;
  gp_device_guard guard;
  if (guard.enter(m->device, nullptr, 0) == CONVOY_OK) grt_set_destroy(&m->prep, (grt_set *)set);
}

const rt_backend_ops kOps = {
    "gpu",           rt_cost,    rt_create, rt_prepare,  rt_install,  rt_begin_switch,
    rt_switch_delay, rt_process, rt_reset,  rt_describe, rt_free_set, rt_destroy,
};

} // namespace

extern "C" const rt_backend_ops *rt_backend_gpu(void) {
  return &kOps;
}
