/*
 * gpu_rt_kernels.cu - the kernels of the GPU real-time convolver's per-block
 * graph (see gpu_rt_internal.cuh for the method and the buffers) and the
 * choice of their launch shapes.
 *
 * Every kernel reads the block's control word from the device copy that the
 * first one makes, so one captured graph serves every block: the FDL slot and
 * the route sets change in the control word, not in the graph.
 */
#include "gpu_rt_internal.cuh"

namespace {

constexpr int kThreads = 256;
/* MAC blocks per multiprocessor the split count aims for. */
constexpr int kMacBlocksPerSm = 4;
/* Threads of one MAC block: lanes x bins up to this many. */
constexpr int kMacMaxThreads = 512;

int64_t grid_for(int64_t n) {
  int64_t g = (n + kThreads - 1) / kThreads;
  return g < 1 ? 1 : (g > 65535 * 8 ? 65535 * 8 : g);
}

/* Control copy and input window: window[i] = [prev[i], in[i]], prev[i] = in[i]. */
__global__ void ingest_kernel(const grt_ctl *__restrict__ ctl_host, grt_ctl *__restrict__ ctl,
                              const float *__restrict__ in, float *__restrict__ prev,
                              float *__restrict__ window, int32_t block, int64_t n) {
  const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (first == 0) *ctl = *ctl_host;
  for (int64_t idx = first; idx < n; idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = idx / block, j = idx - i * block;
    const float x = in[idx];
    float *w = window + i * 2 * block;
    w[j] = prev[idx];
    w[block + j] = x;
    prev[idx] = x;
  }
}

/* This block's input spectra into FDL slot pos. */
__global__ void commit_kernel(const grt_ctl *__restrict__ ctl, const float2 *__restrict__ spec,
                              float2 *__restrict__ fdl, int32_t bins, int32_t parts, int64_t n) {
  const int64_t pos = ctl->pos;
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < n;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = idx / bins, k = idx - i * bins;
    fdl[(i * parts + pos) * bins + k] = spec[idx];
  }
}

__device__ __forceinline__ void cmac(float2 &acc, float2 x, float2 h) {
  acc.x = fmaf(x.x, h.x, fmaf(-x.y, h.y, acc.x));
  acc.y = fmaf(x.x, h.y, fmaf(x.y, h.x, acc.y));
}

/* Sum over the routes of output blockIdx.y and the partitions of split
 * blockIdx.x, for set blockIdx.z. With lanes > 1 (bins * lanes threads),
 * thread t takes bin t % bins and every lanes-th partition from t / bins, so
 * that consecutive threads read consecutive bins of one partition; the lanes
 * are then summed in a fixed order. With lanes == 1 each thread walks bins
 * t, t + blockDim.x, ... over all the split's partitions. */
__global__ void mac_kernel(const grt_ctl *__restrict__ ctl, const float2 *__restrict__ fdl,
                           float2 *__restrict__ partial, int32_t bins, int32_t parts,
                           int32_t splits, int32_t lanes) {
  extern __shared__ float2 lane_sum[];
  const int z = blockIdx.z;
  if (z == 1 && !ctl->fade) return;
  const grt_set_dev *set = ctl->set[z];
  const int32_t o = blockIdx.y, split = blockIdx.x;
  const int32_t p0 = (int32_t)((int64_t)split * parts / splits);
  const int32_t p1 = (int32_t)((int64_t)(split + 1) * parts / splits);
  const int64_t pos = ctl->pos;
  const int32_t r0 = set->out_begin[o], r1 = set->out_begin[o + 1];
  float2 *dst = partial + (((int64_t)z * gridDim.y + o) * splits + split) * bins;

  if (lanes > 1) {
    const int32_t t = threadIdx.x;
    const bool active = t < lanes * bins;
    const int32_t k = t % bins, lane = t / bins;
    float2 acc = make_float2(0.f, 0.f);
    if (active) {
      for (int32_t r = r0; r < r1; r++) {
        const int32_t pe = min(p1, set->route_parts[r]);
        const float2 *x = fdl + (int64_t)set->route_in[r] * parts * bins + k;
        const float2 *h = set->spectra + set->route_off[r] + k;
        for (int32_t p = p0 + lane; p < pe; p += lanes) {
          int64_t slot = pos - p;
          if (slot < 0) slot += parts;
          cmac(acc, x[slot * bins], h[(int64_t)p * bins]);
        }
      }
    }
    lane_sum[t] = acc;
    __syncthreads();
    if (active && lane == 0) {
      float2 sum = acc;
      for (int32_t l = 1; l < lanes; l++) {
        sum.x += lane_sum[l * bins + k].x;
        sum.y += lane_sum[l * bins + k].y;
      }
      dst[k] = sum;
    }
    return;
  }
  for (int32_t k = threadIdx.x; k < bins; k += blockDim.x) {
    float2 acc = make_float2(0.f, 0.f);
    for (int32_t r = r0; r < r1; r++) {
      const int32_t pe = min(p1, set->route_parts[r]);
      const float2 *x = fdl + (int64_t)set->route_in[r] * parts * bins + k;
      const float2 *h = set->spectra + set->route_off[r] + k;
      for (int32_t p = p0; p < pe; p++) {
        int64_t slot = pos - p;
        if (slot < 0) slot += parts;
        cmac(acc, x[slot * bins], h[(int64_t)p * bins]);
      }
    }
    dst[k] = acc;
  }
}

/* out_spec[z][o][k] = sum over splits, in split order. */
__global__ void split_sum_kernel(const grt_ctl *__restrict__ ctl,
                                 const float2 *__restrict__ partial, float2 *__restrict__ out_spec,
                                 int32_t bins, int32_t splits, int64_t per_set, int64_t n) {
  const int fade = ctl->fade;
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < n;
       idx += (int64_t)gridDim.x * blockDim.x) {
    if (idx >= per_set && !fade) return;
    const int64_t row = idx / bins, k = idx - row * bins; /* row = z * n_out + o */
    const float2 *src = partial + row * splits * bins + k;
    float2 sum = src[0];
    for (int32_t s = 1; s < splits; s++) {
      sum.x += src[(int64_t)s * bins].x;
      sum.y += src[(int64_t)s * bins].y;
    }
    out_spec[idx] = sum;
  }
}

/* Last B samples of each output's inverse transform into the staging; during
 * a crossfade blended from set 0 to set 1 with weight (j + 1) / B on set 1. */
__global__ void output_kernel(const grt_ctl *__restrict__ ctl, const float *__restrict__ out_time,
                              float *__restrict__ out, int32_t block, int64_t per_set, int64_t n) {
  const int fade = ctl->fade;
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < n;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t o = idx / block, j = idx - o * block;
    const int64_t at = o * 2 * block + block + j;
    float y = out_time[at];
    if (fade) {
      const float w = (float)(j + 1) / (float)block;
      y = (1.0f - w) * y + w * out_time[per_set + at];
    }
    out[idx] = y;
  }
}

} // namespace

void grt_geom_plan(grt_geom *g, int sms) {
  g->bins = g->block + 1;
  if (g->bins <= kMacMaxThreads) {
    g->mac_lanes = kMacMaxThreads / g->bins;
    g->mac_threads = g->mac_lanes * g->bins;
  } else {
    g->mac_lanes = 1;
    g->mac_threads = kMacMaxThreads;
  }
  /* Enough thread blocks to fill the device, but each with at least one
   * partition per lane. */
  int64_t want = ((int64_t)kMacBlocksPerSm * (sms > 0 ? sms : 1) + g->n_out - 1) / g->n_out;
  int64_t most = g->parts / g->mac_lanes;
  if (most < 1) most = 1;
  if (want > most) want = most;
  if (want < 1) want = 1;
  g->splits = (int32_t)want;
}

cudaError_t grt_launch_ingest(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int64_t n = (int64_t)g->n_in * g->block;
  ingest_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(b->ctl_host, b->ctl, b->in_host, b->prev,
                                                           b->window, g->block, n);
  return cudaGetLastError();
}

cudaError_t grt_launch_mac(const grt_geom *g, const grt_bufs *b, int sets, cudaStream_t s) {
  const int64_t n = (int64_t)g->n_in * g->bins;
  commit_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(b->ctl, b->spec, b->fdl, g->bins,
                                                           g->parts, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const dim3 grid((unsigned)g->splits, (unsigned)g->n_out, (unsigned)sets);
  const size_t shared = g->mac_lanes > 1 ? sizeof(float2) * (size_t)g->mac_threads : 0;
  mac_kernel<<<grid, (unsigned)g->mac_threads, shared, s>>>(b->ctl, b->fdl, b->partial, g->bins,
                                                            g->parts, g->splits, g->mac_lanes);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const int64_t per_set = (int64_t)g->n_out * g->bins;
  split_sum_kernel<<<(unsigned)grid_for(sets * per_set), kThreads, 0, s>>>(
      b->ctl, b->partial, b->out_spec, g->bins, g->splits, per_set, sets * per_set);
  return cudaGetLastError();
}

cudaError_t grt_launch_output(const grt_geom *g, const grt_bufs *b, cudaStream_t s) {
  const int64_t n = (int64_t)g->n_out * g->block;
  const int64_t per_set = (int64_t)g->n_out * 2 * g->block;
  output_kernel<<<(unsigned)grid_for(n), kThreads, 0, s>>>(b->ctl, b->out_time, b->out_host,
                                                           g->block, per_set, n);
  return cudaGetLastError();
}
