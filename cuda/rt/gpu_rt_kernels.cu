/*
 * gpu_rt_kernels.cu - the kernels of the GPU real-time convolver's per-block
 * graph (see gpu_rt_internal.cuh for the method and the buffers).
 *
 * Every kernel reads the block's control word from the device copy that the
 * first one makes, so one captured graph serves every block of its kind: the
 * FDL slots, the tail's slice and the route sets change in the control word,
 * not in the graph.
 */
#include "gpu_rt_internal.cuh"

namespace {

constexpr int kThreads = 256;

int64_t grid_for(int64_t n) {
  int64_t g = (n + kThreads - 1) / kThreads;
  return g < 1 ? 1 : (g > 65535 * 8 ? 65535 * 8 : g);
}

#define GRID_LOOP(idx, n)                                                                          \
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < (n);                    \
       idx += (int64_t)gridDim.x * blockDim.x)

/* Control copy and input windows: window[i] = [prev[i], in[i]], prev[i] =
 * in[i], and with a tail, in[i] into its window's second half at the
 * control word's place (read from the mapped copy, which this kernel is
 * still copying to the device). */
__global__ void ingest_kernel(const grt_ctl *__restrict__ ctl_host, grt_ctl *__restrict__ ctl,
                              const float *__restrict__ in, float *__restrict__ prev,
                              float *__restrict__ window, float *__restrict__ tail_window,
                              int32_t block, int32_t tail, int64_t n) {
  const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (first == 0) *ctl = *ctl_host;
  const int64_t at = tail_window ? ctl_host->tail_in : 0;
  for (int64_t idx = first; idx < n; idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = idx / block, j = idx - i * block;
    const float x = in[idx];
    float *w = window + i * 2 * block;
    w[j] = prev[idx];
    w[block + j] = x;
    prev[idx] = x;
    if (tail_window) tail_window[i * 2 * tail + tail + at + j] = x;
  }
}

/* After the tail's transform: its window's second half becomes the first. */
__global__ void tail_shift_kernel(float *__restrict__ window, int32_t tail, int64_t n) {
  GRID_LOOP(idx, n) {
    const int64_t i = idx / tail, j = idx - i * tail;
    window[i * 2 * tail + j] = window[i * 2 * tail + tail + j];
  }
}

/* A level's input spectra into its FDL slot pos. */
__global__ void commit_kernel(const grt_ctl *__restrict__ ctl, int level,
                              const float2 *__restrict__ spec, float2 *__restrict__ fdl,
                              int32_t bins, int32_t parts, int64_t n) {
  const int64_t pos = ctl->level[level].pos;
  GRID_LOOP(idx, n) {
    const int64_t i = idx / bins, k = idx - i * bins;
    fdl[(i * parts + pos) * bins + k] = spec[idx];
  }
}

__device__ __forceinline__ void cmac(float2 &acc, float2 x, float2 h) {
  acc.x = fmaf(x.x, h.x, fmaf(-x.y, h.y, acc.x));
  acc.y = fmaf(x.x, h.y, fmaf(x.y, h.x, acc.y));
}

/* Bin k of output o's sum over its routes and partitions p0 + lane,
 * p0 + lane + stride, ... below p1 (each route's own count capped), in that
 * order. */
__device__ __forceinline__ float2 bin_sum(const grt_set_dev *set, int level,
                                          const float2 *__restrict__ fdl, int32_t o, int32_t k,
                                          int32_t bins, int32_t parts, int64_t pos, int32_t p0,
                                          int32_t p1, int32_t stride) {
  const int32_t *route_parts = set->route_parts[level];
  const int64_t *route_off = set->route_off[level];
  const float2 *spectra = set->spectra[level];
  float2 acc = make_float2(0.f, 0.f);
  for (int32_t r = set->out_begin[o]; r < set->out_begin[o + 1]; r++) {
    const int32_t pe = min(p1, route_parts[r]);
    const float2 *x = fdl + (int64_t)set->route_in[r] * parts * bins + k;
    const float2 *h = spectra + route_off[r] + k;
    for (int32_t p = p0; p < pe; p += stride) {
      int64_t slot = pos - p;
      if (slot < 0) slot += parts;
      cmac(acc, x[slot * bins], h[(int64_t)p * bins]);
    }
  }
  return acc;
}

/* Sum over the routes of output blockIdx.y and the partitions of split
 * blockIdx.x, for set blockIdx.z, over the level's slice of bins this block
 * (bins k0 .. k0 + width - 1; the head's one slice is all of them). With
 * lanes > 1 (width * lanes threads), thread t takes bin k0 + t % width and
 * every lanes-th partition from t / width, so that consecutive threads read
 * consecutive bins of one partition; the lanes are then summed in a fixed
 * order. With lanes == 1 each thread walks bins t, t + blockDim.x, ... over
 * all the split's partitions. */
__global__ void mac_kernel(const grt_ctl *__restrict__ ctl, int level,
                           const float2 *__restrict__ fdl, float2 *__restrict__ partial,
                           int32_t bins, int32_t width, int32_t parts, int32_t splits,
                           int32_t lanes) {
  extern __shared__ float2 lane_sum[];
  const grt_ctl_level &lc = ctl->level[level];
  const int z = blockIdx.z;
  if (z == 1 && !lc.both) return;
  const grt_set_dev *set = lc.set[z];
  const int32_t o = blockIdx.y, split = blockIdx.x;
  const int32_t p0 = (int32_t)((int64_t)split * parts / splits);
  const int32_t p1 = (int32_t)((int64_t)(split + 1) * parts / splits);
  const int64_t pos = lc.pos;
  const int32_t k0 = lc.slice * width;
  float2 *dst = partial + (((int64_t)z * gridDim.y + o) * splits + split) * width;

  if (lanes > 1) {
    const int32_t t = threadIdx.x;
    const int32_t kk = t % width, lane = t / width, k = k0 + kk;
    const bool active = t < lanes * width && k < bins;
    const float2 acc = active
                           ? bin_sum(set, level, fdl, o, k, bins, parts, pos, p0 + lane, p1, lanes)
                           : make_float2(0.f, 0.f);
    lane_sum[t] = acc;
    __syncthreads();
    if (active && lane == 0) {
      float2 sum = acc;
      for (int32_t l = 1; l < lanes; l++) {
        sum.x += lane_sum[l * width + kk].x;
        sum.y += lane_sum[l * width + kk].y;
      }
      dst[kk] = sum;
    }
    return;
  }
  for (int32_t kk = threadIdx.x; kk < width && k0 + kk < bins; kk += blockDim.x)
    dst[kk] = bin_sum(set, level, fdl, o, k0 + kk, bins, parts, pos, p0, p1, 1);
}

/* out_spec[z][o][k0 + kk] = sum over splits, in split order. */
__global__ void split_sum_kernel(const grt_ctl *__restrict__ ctl, int level,
                                 const float2 *__restrict__ partial, float2 *__restrict__ out_spec,
                                 int32_t bins, int32_t width, int32_t splits, int64_t per_set,
                                 int64_t n) {
  const grt_ctl_level &lc = ctl->level[level];
  const int both = lc.both;
  const int64_t k0 = (int64_t)lc.slice * width;
  GRID_LOOP(idx, n) {
    if (idx >= per_set && !both) return;
    const int64_t row = idx / width, kk = idx - row * width; /* row = z * n_out + o */
    if (k0 + kk >= bins) continue;
    const float2 *src = partial + row * splits * width + kk;
    float2 sum = src[0];
    for (int32_t s = 1; s < splits; s++) {
      sum.x += src[(int64_t)s * width].x;
      sum.y += src[(int64_t)s * width].y;
    }
    out_spec[row * bins + k0 + kk] = sum;
  }
}

/* The valid halves of the tail's inverse transforms (set 0, and set 1 when
 * both) into tail_out at the control word's cycle. */
__global__ void tail_keep_kernel(const grt_ctl *__restrict__ ctl, const float *__restrict__ time,
                                 float *__restrict__ tail_out, int32_t tail, int64_t per_set,
                                 int64_t n) {
  const int both = ctl->level[GRT_TAIL].both;
  float *dst = tail_out + ctl->tail_keep;
  GRID_LOOP(idx, n) {
    if (idx >= per_set && !both) return;
    const int64_t row = idx / tail, j = idx - row * tail;
    dst[idx] = time[row * 2 * tail + tail + j];
  }
}

/* Last B samples of each output's inverse transform, plus the tail's output
 * where there is one, into the staging; during a crossfade blended from set
 * 0 to set 1 with weight (j + 1) / B on set 1. */
__global__ void output_kernel(const grt_ctl *__restrict__ ctl, const float *__restrict__ out_time,
                              const float *__restrict__ tail_out, float *__restrict__ out,
                              int32_t block, int64_t per_set, int32_t tail, int64_t tail_per_set,
                              int64_t n) {
  const int fade = ctl->fade;
  const float *t = tail_out ? tail_out + ctl->tail_read : nullptr;
  GRID_LOOP(idx, n) {
    const int64_t o = idx / block, j = idx - o * block;
    const int64_t at = o * 2 * block + block + j;
    float y = out_time[at];
    if (t) {
      const int64_t ta = o * tail + j;
      if (fade) {
        const float w = (float)(j + 1) / (float)block;
        y = (1.0f - w) * (y + t[ta]) + w * (out_time[per_set + at] + t[tail_per_set + ta]);
      } else {
        y = y + t[ctl->tail_set * tail_per_set + ta];
      }
    } else if (fade) {
      const float w = (float)(j + 1) / (float)block;
      y = (1.0f - w) * y + w * out_time[per_set + at];
    }
    out[idx] = y;
  }
}

} // namespace

cudaError_t grt_launch_ingest(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int64_t n = (int64_t)g->n_in * g->block;
  const bool tail = g->levels == 2;
  ingest_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(
      b->ctl_host, b->ctl, b->in_host, b->prev, b->level[GRT_HEAD].window,
      tail ? b->level[GRT_TAIL].window : nullptr, g->block, tail ? g->level[GRT_TAIL].size : 0, n);
  return cudaGetLastError();
}

cudaError_t grt_launch_commit(const grt_geom *g, const grt_bufs *b, int level, cudaStream_t s) {
  const grt_level &lv = g->level[level];
  const int64_t n = (int64_t)g->n_in * lv.bins;
  commit_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(
      b->ctl, level, b->level[level].spec, b->level[level].fdl, lv.bins, lv.parts, n);
  return cudaGetLastError();
}

cudaError_t grt_launch_tail_shift(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int32_t q = g->level[GRT_TAIL].size;
  const int64_t n = (int64_t)g->n_in * q;
  tail_shift_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(b->level[GRT_TAIL].window, q, n);
  return cudaGetLastError();
}

cudaError_t grt_launch_mac(const grt_geom *g, const grt_bufs *b, int level, int sets,
                           cudaStream_t s) {
  const grt_level &lv = g->level[level];
  const grt_level_bufs &lb = b->level[level];
  const dim3 grid((unsigned)lv.splits, (unsigned)g->n_out, (unsigned)sets);
  const size_t shared = lv.mac_lanes > 1 ? sizeof(float2) * (size_t)lv.mac_threads : 0;
  mac_kernel<<<grid, (unsigned)lv.mac_threads, shared, s>>>(
      b->ctl, level, lb.fdl, lb.partial, lv.bins, lv.width, lv.parts, lv.splits, lv.mac_lanes);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const int64_t per_set = (int64_t)g->n_out * lv.width;
  split_sum_kernel<<<(unsigned)grid_for(sets * per_set), kThreads, 0, s>>>(
      b->ctl, level, lb.partial, lb.out_spec, lv.bins, lv.width, lv.splits, per_set,
      sets * per_set);
  return cudaGetLastError();
}

cudaError_t grt_launch_tail_keep(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int32_t q = g->level[GRT_TAIL].size;
  const int64_t per_set = (int64_t)g->n_out * q;
  tail_keep_kernel<<<(unsigned)grid_for(2 * per_set), kThreads, 0, s>>>(
      b->ctl, b->level[GRT_TAIL].out_time, b->tail_out, q, per_set, 2 * per_set);
  return cudaGetLastError();
}

cudaError_t grt_launch_output(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int64_t n = (int64_t)g->n_out * g->block;
  const int64_t per_set = (int64_t)g->n_out * 2 * g->block;
  const int32_t q = g->levels == 2 ? g->level[GRT_TAIL].size : 0;
  output_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(
      b->ctl, b->level[GRT_HEAD].out_time, g->levels == 2 ? b->tail_out : nullptr, b->out_host,
      g->block, per_set, q, (int64_t)g->n_out * q, n);
  return cudaGetLastError();
}
