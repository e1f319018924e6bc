/*
 * gpu_rt.cu - the GPU backend of the real-time convolver
 * (pipeline/rt_backend.h): device buffers, cuFFT plans and the per-block
 * CUDA graphs made at create (one for each kind of block: steady or
 * crossfade, and where the plan has a tail, the block that transforms its
 * input, the one that transforms its output, or neither); process() keeps
 * the schedule of tail cycles and route switches, fills the mapped input
 * staging and the control word, launches the block's graph, spins until it
 * is done and copies the mapped output staging out.
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

/* Kinds of block by what the tail does in it (gpu_rt_internal.cuh). */
enum { kTailFirst = 0, kTailMiddle = 1, kTailLast = 2, kTailKinds = 3 };

constexpr int64_t kNoCycle = INT64_MIN;

struct grt_impl {
  int device = 0;
  grt_geom g = {};
  convoy_rt_mode mode = CONVOY_RT_OFFLINE;
  cudaStream_t stream = nullptr;
  /* Head: inv[0] a steady block (the active set), inv[1] a crossfade block
   * (both sets). Tail: input transform, and the output transform of both
   * sets. */
  cufftHandle fwd = 0, inv[2] = {0, 0}, tail_fwd = 0, tail_inv = 0;
  bool have_fwd = false, have_inv[2] = {false, false}, have_tail_fwd = false, have_tail_inv = false;
  /* [crossfade][tail kind]; without a tail only [k][0]. */
  cudaGraph_t graph[2][kTailKinds] = {};
  cudaGraphExec_t exec[2][kTailKinds] = {};
  float *h_in = nullptr, *h_out = nullptr; /* mapped pinned staging */
  grt_ctl *h_ctl = nullptr;                /* mapped pinned control word */
  grt_bufs b = {};
  grt_prep prep = {}; /* makes and frees route sets */
  grt_set *active = nullptr, *pending = nullptr;
  int64_t blocks = 0;                /* since create or reset */
  int64_t fade_block = 0;            /* while pending: the crossfade block */
  int64_t switch_cycle = kNoCycle;   /* while pending: the tail cycle of both sets */
  int64_t read_new_cycle = kNoCycle; /* a switched cycle whose set 1 is still read */
  char device_name[256] = "";
};

void free_buffers(grt_impl *m) {
  grt_bufs &b = m->b;
  cudaFree(b.ctl);
  cudaFree(b.prev);
  for (int l = 0; l < GRT_LEVELS; l++) {
    grt_level_bufs &lb = b.level[l];
    cudaFree(lb.window);
    cudaFree(lb.spec);
    cudaFree(lb.fdl);
    cudaFree(lb.partial);
    cudaFree(lb.out_spec);
    cudaFree(lb.out_time);
  }
  cudaFree(b.tail_out);
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
      for (int t = 0; t < kTailKinds; t++) {
        if (m->exec[k][t]) cudaGraphExecDestroy(m->exec[k][t]);
        if (m->graph[k][t]) cudaGraphDestroy(m->graph[k][t]);
      }
      if (m->have_inv[k]) cufftDestroy(m->inv[k]);
    }
    if (m->have_fwd) cufftDestroy(m->fwd);
    if (m->have_tail_fwd) cufftDestroy(m->tail_fwd);
    if (m->have_tail_inv) cufftDestroy(m->tail_inv);
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

convoy_status alloc_level(const grt_geom &g, const grt_level &lv, grt_level_bufs &lb, char *err,
                          size_t err_size) {
  const int64_t N = 2 * (int64_t)lv.size, K = lv.bins;
  const char *what = "GPU real-time: device buffers";
  GP_CUDA(dev_alloc(&lb.window, g.n_in * N), what);
  GP_CUDA(dev_alloc(&lb.spec, g.n_in * K), what);
  GP_CUDA(dev_alloc(&lb.fdl, g.n_in * (int64_t)lv.parts * K), "GPU real-time: delay line");
  GP_CUDA(dev_alloc(&lb.partial, 2 * g.n_out * (int64_t)lv.splits * lv.width), what);
  GP_CUDA(dev_alloc(&lb.out_spec, 2 * g.n_out * K), what);
  GP_CUDA(dev_alloc(&lb.out_time, 2 * g.n_out * N), what);
  GP_CUDA(cudaMemset(lb.out_spec, 0, sizeof(float2) * (size_t)(2 * g.n_out * K)), what);
  return CONVOY_OK;
}

convoy_status alloc_buffers(grt_impl *m, char *err, size_t err_size) {
  const grt_geom &g = m->g;
  const int64_t B = g.block;
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
  for (int l = 0; l < g.levels; l++) {
    convoy_status st = alloc_level(g, g.level[l], b.level[l], err, err_size);
    if (st != CONVOY_OK) return st;
  }
  if (g.levels == 2)
    GP_CUDA(dev_alloc(&b.tail_out, 4 * g.n_out * (int64_t)g.level[GRT_TAIL].size), what);
  return CONVOY_OK;
}

/* Zero history: previous block, delay lines, the tail's window, sums and
 * outputs. */
cudaError_t clear_history(grt_impl *m) {
  const grt_geom &g = m->g;
  cudaError_t e =
      cudaMemsetAsync(m->b.prev, 0, sizeof(float) * (size_t)g.n_in * g.block, m->stream);
  for (int l = 0; l < g.levels && e == cudaSuccess; l++) {
    const grt_level &lv = g.level[l];
    e = cudaMemsetAsync(m->b.level[l].fdl, 0, sizeof(float2) * (size_t)g.n_in * lv.parts * lv.bins,
                        m->stream);
    if (e == cudaSuccess && l == GRT_TAIL)
      e = cudaMemsetAsync(m->b.level[l].window, 0, sizeof(float) * (size_t)g.n_in * 2 * lv.size,
                          m->stream);
    if (e == cudaSuccess && l == GRT_TAIL)
      e = cudaMemsetAsync(m->b.tail_out, 0, sizeof(float) * (size_t)4 * g.n_out * lv.size,
                          m->stream);
    /* Cycle 0 after a reset sums only the slices after its first (it began
     * before block 0): the first slice's bins are those of no input. */
    if (e == cudaSuccess && l == GRT_TAIL)
      e = cudaMemsetAsync(m->b.level[l].out_spec, 0, sizeof(float2) * (size_t)2 * g.n_out * lv.bins,
                          m->stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(m->stream);
  return e;
}

convoy_status make_plans(grt_impl *m, char *err, size_t err_size) {
  const grt_geom &g = m->g;
  int n = 2 * g.block;
  int bins = g.level[GRT_HEAD].bins;
  GP_CUFFT(cufftPlanMany(&m->fwd, 1, &n, nullptr, 1, n, nullptr, 1, bins, CUFFT_R2C, g.n_in),
           "GPU real-time: input transform plan");
  m->have_fwd = true;
  GP_CUFFT(cufftSetStream(m->fwd, m->stream), "GPU real-time: input transform stream");
  for (int k = 0; k < 2; k++) {
    GP_CUFFT(cufftPlanMany(&m->inv[k], 1, &n, nullptr, 1, bins, nullptr, 1, n, CUFFT_C2R,
                           (k + 1) * g.n_out),
             "GPU real-time: output transform plan");
    m->have_inv[k] = true;
    GP_CUFFT(cufftSetStream(m->inv[k], m->stream), "GPU real-time: output transform stream");
  }
  if (g.levels < 2) return CONVOY_OK;
  int tn = 2 * g.level[GRT_TAIL].size, tbins = g.level[GRT_TAIL].bins;
  GP_CUFFT(
      cufftPlanMany(&m->tail_fwd, 1, &tn, nullptr, 1, tn, nullptr, 1, tbins, CUFFT_R2C, g.n_in),
      "GPU real-time: tail input transform plan");
  m->have_tail_fwd = true;
  GP_CUFFT(cufftSetStream(m->tail_fwd, m->stream), "GPU real-time: tail transform stream");
  GP_CUFFT(cufftPlanMany(&m->tail_inv, 1, &tn, nullptr, 1, tbins, nullptr, 1, tn, CUFFT_C2R,
                         2 * g.n_out),
           "GPU real-time: tail output transform plan");
  m->have_tail_inv = true;
  GP_CUFFT(cufftSetStream(m->tail_inv, m->stream), "GPU real-time: tail transform stream");
  return CONVOY_OK;
}

/* What failed while enqueuing a block: the step, and the CUDA or cuFFT
 * error. */
struct enqueue_failure {
  const char *step = nullptr;
  cudaError_t cuda = cudaSuccess;
  cufftResult cufft = CUFFT_SUCCESS;
  bool kernel(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return false;
    step = what, cuda = e;
    return true;
  }
  bool fft(cufftResult r, const char *what) {
    if (r == CUFFT_SUCCESS) return false;
    step = what, cufft = r;
    return true;
  }
};

/* Enqueues one block's work of kind (k: 0 steady, 1 crossfade; tail: the
 * tail's part); false with *f filled at the first step that fails. */
bool enqueue_block(grt_impl *m, int k, int tail, enqueue_failure *f) {
  const grt_geom &g = m->g;
  grt_bufs &b = m->b;
  grt_level_bufs &h = b.level[GRT_HEAD], &t = b.level[GRT_TAIL];
  cudaStream_t s = m->stream;
  if (f->kernel(grt_launch_ingest(&g, &b, s), "GPU real-time: input kernel") ||
      f->fft(cufftExecR2C(m->fwd, h.window, (cufftComplex *)h.spec),
             "GPU real-time: input transform") ||
      f->kernel(grt_launch_commit(&g, &b, GRT_HEAD, s), "GPU real-time: MAC kernels") ||
      f->kernel(grt_launch_mac(&g, &b, GRT_HEAD, k + 1, s), "GPU real-time: MAC kernels"))
    return false;
  if (g.levels == 2) {
    if (tail == kTailFirst &&
        (f->fft(cufftExecR2C(m->tail_fwd, t.window, (cufftComplex *)t.spec),
                "GPU real-time: tail input transform") ||
         f->kernel(grt_launch_tail_shift(&g, &b, s), "GPU real-time: tail kernels") ||
         f->kernel(grt_launch_commit(&g, &b, GRT_TAIL, s), "GPU real-time: tail kernels")))
      return false;
    if (f->kernel(grt_launch_mac(&g, &b, GRT_TAIL, 2, s), "GPU real-time: tail MAC kernels"))
      return false;
    if (tail == kTailLast &&
        (f->fft(cufftExecC2R(m->tail_inv, (cufftComplex *)t.out_spec, t.out_time),
                "GPU real-time: tail output transform") ||
         f->kernel(grt_launch_tail_keep(&g, &b, s), "GPU real-time: tail kernels")))
      return false;
  }
  return !f->fft(cufftExecC2R(m->inv[k], (cufftComplex *)h.out_spec, h.out_time),
                 "GPU real-time: output transform") &&
         !f->kernel(grt_launch_output(&g, &b, s), "GPU real-time: output kernel");
}

/* Records one kind of block into m->graph[k][tail] and instantiates it. */
convoy_status capture(grt_impl *m, int k, int tail, char *err, size_t err_size) {
  GP_CUDA(cudaStreamBeginCapture(m->stream, cudaStreamCaptureModeThreadLocal),
          "GPU real-time: graph capture");
  enqueue_failure f;
  const bool ok = enqueue_block(m, k, tail, &f);
  cudaError_t end = cudaStreamEndCapture(m->stream, &m->graph[k][tail]);
  if (!ok && f.cufft != CUFFT_SUCCESS) return gp_cufft_fail(f.cufft, f.step, err, err_size);
  if (!ok) return gp_cuda_fail(f.cuda, f.step, err, err_size);
  GP_CUDA(end, "GPU real-time: graph capture");
  GP_CUDA(cudaGraphInstantiate(&m->exec[k][tail], m->graph[k][tail], 0),
          "GPU real-time: graph instantiate");
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

/* The plan create() makes for this layout on this device. */
void choose(const rt_layout *l, const gc_device &dev, grt_geom *g) {
  grt_geom_choose(g, l->block, l->n_in, l->n_out, l->max_ir, l->max_partition,
                  l->n_in > l->n_out ? l->n_in : l->n_out, dev.sms, dev.bytes_per_s);
}

double rt_cost(const rt_layout *l, const convoy_rt_route *routes, int32_t n_routes) {
  int device = 0;
  if (check_device(l->device, &device, nullptr, 0) != CONVOY_OK) return -1.0;
  gc_device dev;
  if (gc_device_query(device, &dev, nullptr, 0) != CONVOY_OK) return -1.0;
  grt_geom g;
  choose(l, dev, &g);
  return grt_geom_cost_ns(&g, routes, n_routes, l->max_ir, dev.bytes_per_s);
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
  choose(l, dev, &m->g);
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
  const int kinds = m->g.levels == 2 ? kTailKinds : 1;
  for (int k = 0; k < 2 && st == CONVOY_OK; k++)
    for (int t = 0; t < kinds && st == CONVOY_OK; t++) st = capture(m, k, t, err, err_size);
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

/* Without a tail the crossfade is the next block. With one it is the first
 * block of the first tail cycle not yet begun: cycle c begins at block
 * cR - 1 and is heard from block (c + 1)R on. */
int rt_begin_switch(void *impl, void *set) {
  grt_impl *m = (grt_impl *)impl;
  if (m->pending) return 0;
  m->pending = (grt_set *)set;
  if (m->g.levels == 2) {
    const int64_t R = m->g.level[GRT_TAIL].slices;
    m->switch_cycle = (m->blocks + R) / R;
    m->fade_block = (m->switch_cycle + 1) * R;
  } else {
    m->fade_block = m->blocks;
  }
  return 1;
}

int64_t rt_switch_delay(const void *impl) {
  const grt_impl *m = (const grt_impl *)impl;
  return m->g.levels == 2 ? 2 * (int64_t)m->g.level[GRT_TAIL].size : 0;
}

/* The control word of block m->blocks; returns its tail kind. */
int fill_control(grt_impl *m, int fade) {
  const grt_geom &g = m->g;
  grt_ctl *c = m->h_ctl;
  const int64_t j = m->blocks;
  grt_ctl_level &head = c->level[GRT_HEAD];
  head.set[0] = m->active->desc;
  head.set[1] = fade ? m->pending->desc : m->active->desc;
  head.both = fade;
  head.pos = (int32_t)(j % g.level[GRT_HEAD].parts);
  head.slice = 0;
  c->fade = fade;
  if (g.levels < 2) return 0;
  const grt_level &tl = g.level[GRT_TAIL];
  const int64_t R = tl.slices, Q = tl.size, per_cycle = 2 * (int64_t)g.n_out * Q;
  const int64_t cycle = (j + 1) / R, s = (j + 1) % R, heard = j / R - 1;
  grt_ctl_level &tail = c->level[GRT_TAIL];
  const grt_set *t0 = m->active, *t1 = m->active;
  tail.both = 0;
  if (m->pending && cycle == m->switch_cycle) {
    t1 = m->pending;
    tail.both = 1;
  } else if (m->pending && cycle > m->switch_cycle) {
    t0 = t1 = m->pending;
  }
  tail.set[0] = t0->desc;
  tail.set[1] = t1->desc;
  tail.pos = (int32_t)(cycle % tl.parts);
  tail.slice = (int32_t)s;
  c->tail_in = (int32_t)((j % R) * g.block);
  c->tail_read = (heard & 1) * per_cycle + (j % R) * g.block;
  c->tail_keep = (cycle & 1) * per_cycle;
  c->tail_set = heard == m->read_new_cycle ? 1 : 0;
  return s == 0 ? kTailFirst : s == R - 1 ? kTailLast : kTailMiddle;
}

convoy_status rt_process(void *impl, const float *const *in, float *const *out,
                         rt_block_result *result, char *err, size_t err_size) {
  grt_impl *m = (grt_impl *)impl;
  const grt_geom &g = m->g;
  const size_t bytes = sizeof(float) * (size_t)g.block;
  result->missed = 0;
  result->switch_done = 0;
  const int fade = m->pending && m->blocks == m->fade_block;
  convoy_status st = CONVOY_OK;
  if (!m->active) {
    st = convoy_error_format(err, err_size, CONVOY_ERR_STATE, "GPU real-time: no route set");
  } else {
    for (int32_t i = 0; i < g.n_in; i++) memcpy(m->h_in + (size_t)i * g.block, in[i], bytes);
    const int kind = fill_control(m, fade);
    gp_device_guard guard;
    st = guard.enter(m->device, err, err_size);
    cudaError_t e = cudaSuccess;
    if (st == CONVOY_OK) {
      e = cudaGraphLaunch(m->exec[fade][kind], m->stream);
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
  m->blocks++;
  if (fade) {
    m->active = m->pending;
    m->pending = nullptr;
    m->read_new_cycle = m->switch_cycle;
    m->switch_cycle = kNoCycle;
    result->switch_done = 1;
  }
  return CONVOY_OK;
}

void rt_reset(void *impl) {
  grt_impl *m = (grt_impl *)impl;
  gp_device_guard guard;
  if (guard.enter(m->device, nullptr, 0) == CONVOY_OK && clear_history(m) != cudaSuccess)
    (void)cudaGetLastError();
  m->blocks = 0;
  m->switch_cycle = m->read_new_cycle = kNoCycle;
  if (m->pending) {
    m->active = m->pending;
    m->pending = nullptr;
  }
}

void rt_describe(const void *impl, char *buf, size_t buf_size) {
  const grt_impl *m = (const grt_impl *)impl;
  const grt_geom &g = m->g;
  const grt_level &h = g.level[GRT_HEAD], &t = g.level[GRT_TAIL];
  char tail[160] = "";
  if (g.levels == 2)
    snprintf(tail, sizeof tail, " + %d x %d (FFT %d, each block 1/%d of its bins)", (int)t.parts,
             (int)t.size, 2 * (int)t.size, (int)t.slices);
  snprintf(buf, buf_size,
           "gpu: device %d (%s), block %d, %s partitions %d x %d (FFT %d)%s, %d in x %d out, "
           "%d routes, MAC %d splits x %d lanes, one CUDA graph per block",
           m->device, m->device_name, (int)g.block, g.levels == 2 ? "two-level" : "uniform",
           (int)h.parts, (int)h.size, 2 * (int)h.size, tail, (int)g.n_in, (int)g.n_out,
           m->active ? (int)m->active->n_routes : 0, (int)h.splits, (int)h.mac_lanes);
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
