/*
 * gpu_conv_fft.cu - overlap-save convolution on cuFFT.
 *
 * Segment s of channel c covers input frames [s*L, s*L + N) of that channel
 * (history included) and yields outputs [s*L, s*L + L), the last L of its N
 * circular-convolution values (L <= N - taps + 1, a multiple of 4). Segments
 * of every channel are packed into batches of B slots; per batch:
 *
 *   gather     one kernel writes the B zero-padded segments into the scratch
 *              (real layout of stride N + 2 floats, for in-place transforms)
 *   R2C        one batched cuFFT call, in place
 *   multiply   one kernel: each spectrum times its channel's filter spectrum,
 *              which was computed at create with the 1/N scale folded in
 *   C2R        one batched cuFFT call, in place
 *   scatter    one kernel copies the L valid outputs of every slot out
 *
 * The scratch holds B segments, so device memory is bounded by the batch
 * (at most max_out outputs per channel), never by the signal. Every launch
 * transforms all B slots with the same plans (the multiply zeroes slots past
 * the last segment), so a segment's bits do not depend on how many segments
 * the call had or where it sat in a batch.
 */
#include "gpu_conv_internal.cuh"

#include <new>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kThreads = 256;
constexpr int kMinLog2 = 6;      /* N >= 64 */
constexpr int kMaxLog2 = 26;     /* N <= 2^26 */
constexpr int kMaxSlots = 65535; /* gridDim.y */

struct fft_lane {
  float *buf; /* B * (N + 2) floats */
  cufftHandle fwd, inv;
  bool have_fwd, have_inv;
  void *work;
};

/* Which channel and segment a batch slot holds. */
__device__ __forceinline__ void slot_of(int64_t p0, int64_t segments, int64_t *c, int64_t *s) {
  const int64_t pair = p0 + blockIdx.y;
  *c = pair / segments;
  *s = pair - *c * segments;
}

/* A segment holds exactly the l + taps - 1 inputs its outputs need, then
 * zeros: also where more input exists, so that its bits never depend on how
 * far the call's input reaches. Each thread moves groups of 4 floats: one
 * 16-byte load where the source allows, two 8-byte stores (slots are 8-byte
 * aligned). */
__global__ void gather_kernel(float *buf, const float *in, int64_t in_stride, int64_t n_in,
                              int64_t n, int64_t l, int64_t window, int64_t segments, int64_t p0) {
  int64_t c, s;
  slot_of(p0, segments, &c, &s);
  const float *src = in + c * in_stride + s * l;
  int64_t left = n_in - s * l; /* valid frames from the segment start */
  if (left > window) left = window;
  const bool aligned = (reinterpret_cast<uintptr_t>(src) & 15) == 0;
  float2 *dst = reinterpret_cast<float2 *>(buf + blockIdx.y * (n + 2));
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g < n / 4;
       g += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = 4 * g;
    float4 v;
    if (aligned && k + 4 <= left) {
      v = __ldg(reinterpret_cast<const float4 *>(src + k));
    } else {
      v.x = k < left ? __ldg(src + k) : 0.0f;
      v.y = k + 1 < left ? __ldg(src + k + 1) : 0.0f;
      v.z = k + 2 < left ? __ldg(src + k + 2) : 0.0f;
      v.w = k + 3 < left ? __ldg(src + k + 3) : 0.0f;
    }
    dst[2 * g] = make_float2(v.x, v.y);
    dst[2 * g + 1] = make_float2(v.z, v.w);
  }
}

/* Slots past `used` are zeroed, so that their content stays bounded across
 * partial batches (the transforms still run over them). */
__global__ void multiply_kernel(float *buf, const float2 *spec, const int32_t *filter_of,
                                int64_t bins, int64_t segments, int64_t p0, unsigned used) {
  float2 *x = reinterpret_cast<float2 *>(buf) + blockIdx.y * bins;
  const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  if (blockIdx.y >= used) {
    for (int64_t f = first; f < bins; f += step) x[f] = make_float2(0.0f, 0.0f);
    return;
  }
  int64_t c, s;
  slot_of(p0, segments, &c, &s);
  const float2 *h = spec + filter_of[c] * bins;
  for (int64_t f = first; f < bins; f += step) {
    const float2 a = x[f], b = __ldg(h + f);
    x[f] = make_float2(__fmaf_rn(a.x, b.x, -a.y * b.y), __fmaf_rn(a.x, b.y, a.y * b.x));
  }
}

/* Copies the l valid outputs of each slot out, 4 per thread: 16-byte
 * stores where the destination allows. The reads stay inside the slot
 * (skip + l + 3 <= n + 2) whatever count is. */
__global__ void scatter_kernel(float *out, int64_t out_stride, int64_t n_out, const float *buf,
                               int64_t n, int64_t l, int64_t skip, int64_t segments, int64_t p0) {
  int64_t c, s;
  slot_of(p0, segments, &c, &s);
  const float *src = buf + blockIdx.y * (n + 2) + skip;
  float *dst = out + c * out_stride + s * l;
  const int64_t count = n_out - s * l < l ? n_out - s * l : l;
  const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 15) == 0;
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; 4 * g < count;
       g += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = 4 * g;
    const float4 v = make_float4(src[k], src[k + 1], src[k + 2], src[k + 3]);
    if (aligned && k + 4 <= count) {
      __stcs(reinterpret_cast<float4 *>(dst + k), v);
    } else {
      if (k < count) dst[k] = v.x;
      if (k + 1 < count) dst[k + 1] = v.y;
      if (k + 2 < count) dst[k + 2] = v.z;
      if (k + 3 < count) dst[k + 3] = v.w;
    }
  }
}

__global__ void scale_kernel(float2 *x, int64_t count, float scale) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = make_float2(x[i].x * scale, x[i].y * scale);
}

unsigned blocks_for(int64_t items, int64_t cap) {
  int64_t b = (items + kThreads - 1) / kThreads;
  if (b > cap) b = cap;
  return (unsigned)(b > 0 ? b : 1);
}

int64_t granule_for(int64_t n, int64_t taps) {
  return (n - taps + 1) / 4 * 4;
}

/* Passes over memory one cuFFT transform of size n makes (an estimate: on
 * an H200, 2^14 runs near one pass, 2^24 near three and a half). */
double fft_passes(int64_t n) {
  return n <= (1 << 14) ? 1.0 : n <= (1 << 20) ? 2.0 : n <= (1 << 23) ? 3.0 : 4.0;
}

int64_t slots_for(const gpu_conv_config *cfg, const gc_device *dev, int64_t n, int64_t l) {
  int64_t bytes = cfg->fft_batch_bytes > 0 ? cfg->fft_batch_bytes : dev->l2_bytes / 2;
  int64_t b = bytes / (int64_t)(sizeof(float) * (size_t)(n + 2));
  int64_t need = (int64_t)cfg->channels * ((cfg->max_out + l - 1) / l);
  if (b > need) b = need;
  if (b > kMaxSlots) b = kMaxSlots;
  return b > 0 ? b : 1;
}

/* Model seconds per output per channel of a full call at FFT size n. */
double model_cost(const gpu_conv_config *cfg, const gc_device *dev, int64_t n) {
  const int64_t l = granule_for(n, cfg->taps_len);
  if (l < 4) return -1.0;
  const double dn = (double)n, dl = (double)l;
  double bytes = 8.0 * dn                         /* gather */
                 + 2.0 * fft_passes(n) * 8.0 * dn /* two transforms */
                 + 10.0 * dn                      /* multiply; the filter spectrum mostly from L2 */
                 + 8.0 * dl;                      /* scatter */
  double flops = 2.0 * 2.5 * dn * log2(dn) + 3.0 * dn;
  double per_segment = bytes / dev->bytes_per_s + flops / (dev->fma_per_s * 2.0 * 0.3);
  int64_t segments = (cfg->max_out + l - 1) / l; /* per channel, per full call */
  int64_t slots = slots_for(cfg, dev, n, l);
  double launches = ceil((double)segments * cfg->channels / (double)slots) * 5.0;
  double per_call = per_segment * (double)segments * cfg->channels + launches * 4e-6;
  return per_call / ((double)cfg->max_out * cfg->channels);
}

int min_log2(int64_t taps) {
  int k = kMinLog2;
  while (k < kMaxLog2 && ((int64_t)1 << k) < taps + 3) k++;
  return k;
}

/* The model's best size: log2, or -1 when none fits. */
int model_best(const gpu_conv_config *cfg, const gc_device *dev, double *cost) {
  int best = -1;
  double best_cost = 0;
  int k0 = min_log2(cfg->taps_len);
  for (int k = k0; k <= kMaxLog2 && k <= k0 + 10; k++) {
    double c = model_cost(cfg, dev, (int64_t)1 << k);
    if (c >= 0 && (best < 0 || c < best_cost)) {
      best = k;
      best_cost = c;
    }
  }
  if (cost) *cost = best_cost;
  return best;
}

} // namespace

struct gc_fft {
  int64_t taps_len;
  int64_t n, l, slots;
  int32_t channels, lanes, filters;
  float2 *d_spec; /* [filters][n/2 + 1], scaled by 1/n */
  int32_t *d_filter_of;
  fft_lane *lane;
  bool timed;
};

double gc_fft_model_cost(const gc_device *dev, int64_t taps_len, int64_t max_out) {
  if (taps_len > GPU_CONV_FFT_MAX_TAPS) return -1.0;
  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.taps_len = taps_len;
  cfg.max_out = max_out;
  double cost = -1.0;
  return model_best(&cfg, dev, &cost) < 0 ? -1.0 : cost;
}

static void lane_free(fft_lane *ln) {
  if (ln->have_fwd) cufftDestroy(ln->fwd);
  if (ln->have_inv) cufftDestroy(ln->inv);
  cudaFree(ln->buf);
  cudaFree(ln->work);
  memset(ln, 0, sizeof *ln);
}

void gc_fft_destroy(gc_fft *f) {
  if (!f) return;
  if (f->lane) {
    /* cudaFree waits for work in flight on the device, which may still use
     * a lane's scratch. */
    for (int32_t i = 0; i < f->lanes; i++) lane_free(&f->lane[i]);
    free(f->lane);
  }
  cudaFree(f->d_spec);
  cudaFree(f->d_filter_of);
  (void)cudaGetLastError();
  free(f);
}

static convoy_status lane_make(gc_fft *f, fft_lane *ln, char *err, size_t err_size) {
  const size_t floats = (size_t)f->slots * (size_t)(f->n + 2);
  GC_CUDA(cudaMalloc((void **)&ln->buf, floats * sizeof(float)), "gpu_conv: FFT scratch");
  GC_CUDA(cudaMemset(ln->buf, 0, floats * sizeof(float)), "gpu_conv: FFT scratch");
  long long dims[1] = {(long long)f->n};
  size_t ws_fwd = 0, ws_inv = 0;
  GC_CUFFT(cufftCreate(&ln->fwd), "gpu_conv: cufftCreate");
  ln->have_fwd = true;
  GC_CUFFT(cufftCreate(&ln->inv), "gpu_conv: cufftCreate");
  ln->have_inv = true;
  GC_CUFFT(cufftSetAutoAllocation(ln->fwd, 0), "gpu_conv: cufftSetAutoAllocation");
  GC_CUFFT(cufftSetAutoAllocation(ln->inv, 0), "gpu_conv: cufftSetAutoAllocation");
  char what[96];
  snprintf(what, sizeof what, "gpu_conv: R2C plan (N=%lld, batch %lld)", (long long)f->n,
           (long long)f->slots);
  GC_CUFFT(
      cufftMakePlanMany64(ln->fwd, 1, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, f->slots, &ws_fwd),
      what);
  snprintf(what, sizeof what, "gpu_conv: C2R plan (N=%lld, batch %lld)", (long long)f->n,
           (long long)f->slots);
  GC_CUFFT(
      cufftMakePlanMany64(ln->inv, 1, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_C2R, f->slots, &ws_inv),
      what);
  size_t ws = ws_fwd > ws_inv ? ws_fwd : ws_inv;
  if (ws > 0) {
    GC_CUDA(cudaMalloc(&ln->work, ws), "gpu_conv: cuFFT work area");
    GC_CUFFT(cufftSetWorkArea(ln->fwd, ln->work), "gpu_conv: cufftSetWorkArea");
    GC_CUFFT(cufftSetWorkArea(ln->inv, ln->work), "gpu_conv: cufftSetWorkArea");
  }
  return CONVOY_OK;
}

/* Filter spectra: zero-padded taps, forward transform, times 1/N. */
static convoy_status spectra_make(gc_fft *f, const gc_filters *filters, char *err,
                                  size_t err_size) {
  const int64_t bins = f->n / 2 + 1;
  float *pad = NULL;
  cufftHandle plan = 0;
  bool have_plan = false;
  cudaStream_t s = NULL;
  convoy_status st = CONVOY_OK;
  cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc((void **)&pad, sizeof(float) * (size_t)f->n);
  if (e != cudaSuccess) st = gc_cuda_fail(e, "gpu_conv: filter spectrum setup", err, err_size);
  cufftResult r = CUFFT_SUCCESS;
  if (st == CONVOY_OK) {
    r = cufftPlan1d(&plan, (int)f->n, CUFFT_R2C, 1);
    have_plan = r == CUFFT_SUCCESS;
    if (r == CUFFT_SUCCESS) r = cufftSetStream(plan, s);
    if (r != CUFFT_SUCCESS) st = gc_cufft_fail(r, "gpu_conv: filter spectrum plan", err, err_size);
  }
  for (int32_t i = 0; st == CONVOY_OK && i < filters->count; i++) {
    e = cudaMemsetAsync(pad, 0, sizeof(float) * (size_t)f->n, s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(pad, filters->taps[i], sizeof(float) * (size_t)f->taps_len,
                          cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) {
      st = gc_cuda_fail(e, "gpu_conv: taps to the device", err, err_size);
      break;
    }
    r = cufftExecR2C(plan, pad, (cufftComplex *)(f->d_spec + i * bins));
    if (r != CUFFT_SUCCESS) st = gc_cufft_fail(r, "gpu_conv: filter spectrum", err, err_size);
  }
  if (st == CONVOY_OK) {
    int64_t count = bins * filters->count;
    scale_kernel<<<blocks_for(count, 4096), kThreads, 0, s>>>(f->d_spec, count, 1.0f / (float)f->n);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = gc_cuda_fail(e, "gpu_conv: filter spectrum", err, err_size);
  }
  if (s) cudaStreamSynchronize(s);
  if (have_plan) cufftDestroy(plan);
  cudaFree(pad);
  if (s) cudaStreamDestroy(s);
  return st;
}

/* Builds the engine at FFT size n (a power of two that fits the taps). */
static convoy_status fft_make(const gpu_conv_config *cfg, const gc_filters *filters,
                              const gc_device *dev, int64_t n, gc_fft **out, char *err,
                              size_t err_size) {
  *out = NULL;
  gc_fft *f = (gc_fft *)calloc(1, sizeof *f);
  if (!f) return gc_fail(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "gpu_conv: out of host memory");
  *out = f;
  f->taps_len = cfg->taps_len;
  f->n = n;
  f->l = granule_for(n, cfg->taps_len);
  f->slots = slots_for(cfg, dev, n, f->l);
  f->channels = cfg->channels;
  f->lanes = cfg->lanes > 0 ? cfg->lanes : 1;
  f->filters = filters->count;
  const size_t bins = (size_t)(n / 2 + 1);
  GC_CUDA(cudaMalloc((void **)&f->d_spec, sizeof(float2) * bins * (size_t)filters->count),
          "gpu_conv: filter spectra");
  GC_CUDA(cudaMalloc((void **)&f->d_filter_of, sizeof(int32_t) * (size_t)cfg->channels),
          "gpu_conv: channel map");
  GC_CUDA(cudaMemcpy(f->d_filter_of, filters->of_channel, sizeof(int32_t) * (size_t)cfg->channels,
                     cudaMemcpyHostToDevice),
          "gpu_conv: channel map to the device");
  convoy_status st = spectra_make(f, filters, err, err_size);
  if (st != CONVOY_OK) return st;
  f->lane = (fft_lane *)calloc((size_t)f->lanes, sizeof(fft_lane));
  if (!f->lane)
    return gc_fail(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "gpu_conv: out of host memory");
  for (int32_t i = 0; i < f->lanes; i++)
    if ((st = lane_make(f, &f->lane[i], err, err_size)) != CONVOY_OK) return st;
  return CONVOY_OK;
}

namespace {
struct fft_probe {
  gc_fft *f;
  const float *in;
  float *out;
  int64_t n;
};

convoy_status fft_probe_run(void *arg, cudaStream_t s, char *err, size_t err_size) {
  fft_probe *p = (fft_probe *)arg;
  return gc_fft_run(p->f, 0, p->in, p->n + p->f->taps_len - 1, p->out, p->n, p->n, s, err,
                    err_size);
}
} // namespace

/* Times sizes around the model's best (a quarter to twice it) on one
 * channel; returns the fastest log2 size in *best (unchanged when every
 * candidate failed to build). */
static convoy_status fft_time_sizes(const gpu_conv_config *cfg, const gc_filters *filters,
                                    const gc_device *dev, int *best, char *err, size_t err_size) {
  const int k_min = min_log2(cfg->taps_len), centre = *best;
  gpu_conv_config probe_cfg = *cfg;
  probe_cfg.channels = 1;
  probe_cfg.lanes = 1;
  int32_t first = 0;
  gc_filters one = {1, &first, filters->taps};

  int64_t n_max = 0;
  for (int k = centre - 2; k <= centre + 1; k++) {
    if (k < k_min || k > kMaxLog2) continue;
    int64_t n = (int64_t)1 << k, l = granule_for(n, cfg->taps_len);
    int64_t total = cfg->max_out * cfg->channels, batch = slots_for(cfg, dev, n, l) * l;
    int64_t outs = total < batch ? total : batch;
    if (outs > n_max) n_max = outs;
  }
  float *in = NULL, *out = NULL;
  cudaError_t e = cudaMalloc((void **)&in, sizeof(float) * (size_t)(n_max + cfg->taps_len - 1));
  if (e == cudaSuccess) e = cudaMalloc((void **)&out, sizeof(float) * (size_t)n_max);
  convoy_status st = CONVOY_OK;
  if (e != cudaSuccess) st = gc_cuda_fail(e, "gpu_conv: FFT timing buffers", err, err_size);
  if (st == CONVOY_OK) st = gc_fill_pattern(in, n_max + cfg->taps_len - 1, 0, err, err_size);
  if (st == CONVOY_OK) {
    e = cudaStreamSynchronize(0); /* the timing runs on a non-blocking stream */
    if (e != cudaSuccess) st = gc_cuda_fail(e, "gpu_conv: FFT timing buffers", err, err_size);
  }
  double best_time = -1.0;
  for (int k = centre - 2; st == CONVOY_OK && k <= centre + 1; k++) {
    if (k < k_min || k > kMaxLog2) continue;
    int64_t n = (int64_t)1 << k, l = granule_for(n, cfg->taps_len);
    int64_t total = cfg->max_out * cfg->channels, batch = slots_for(cfg, dev, n, l) * l;
    probe_cfg.max_out = total < batch ? total : batch;
    gc_fft *f = NULL;
    char ignored[8];
    /* A size that cannot be built (memory) is skipped, not an error. */
    if (fft_make(&probe_cfg, &one, dev, n, &f, ignored, sizeof ignored) == CONVOY_OK) {
      fft_probe p = {f, in, out, probe_cfg.max_out};
      double t = gc_time_best(fft_probe_run, &p, 3, err, err_size);
      if (t < 0) st = CONVOY_ERR_BACKEND;
      double per_out = t / (double)probe_cfg.max_out;
      if (t >= 0 && (best_time < 0 || per_out < best_time)) {
        best_time = per_out;
        *best = k;
      }
    }
    gc_fft_destroy(f);
  }
  cudaFree(in);
  cudaFree(out);
  (void)cudaGetLastError();
  return st;
}

convoy_status gc_fft_create(const gpu_conv_config *cfg, const gc_filters *filters,
                            const gc_device *dev, gc_fft **out, char *err, size_t err_size) {
  *out = NULL;
  int k;
  bool timed = false;
  if (cfg->fft_size > 0) {
    int64_t n = cfg->fft_size;
    if (n < 64 || n > ((int64_t)1 << kMaxLog2) || (n & (n - 1)) != 0 || n < cfg->taps_len + 3)
      return gc_fail(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                     "gpu_conv: FFT size %lld is not a power of two in 64 .. 2^26 and >= taps + 3 "
                     "(%lld)",
                     (long long)n, (long long)(cfg->taps_len + 3));
    for (k = 0; ((int64_t)1 << k) < n; k++) {
    }
  } else {
    k = model_best(cfg, dev, NULL);
    if (k < 0)
      return gc_fail(err, err_size, CONVOY_ERR_UNSUPPORTED,
                     "gpu_conv: no FFT size up to 2^26 fits %lld taps", (long long)cfg->taps_len);
    if (cfg->plan_effort > 0) {
      convoy_status st = fft_time_sizes(cfg, filters, dev, &k, err, err_size);
      if (st != CONVOY_OK) return st;
      timed = true;
    }
  }
  convoy_status st = fft_make(cfg, filters, dev, (int64_t)1 << k, out, err, err_size);
  if (*out) (*out)->timed = timed;
  return st;
}

convoy_status gc_fft_run(gc_fft *f, int32_t lane, const float *in, int64_t in_stride, float *out,
                         int64_t out_stride, int64_t n_out, cudaStream_t stream, char *err,
                         size_t err_size) {
  fft_lane *ln = &f->lane[lane];
  const int64_t n = f->n, l = f->l, bins = n / 2 + 1;
  const int64_t n_in = n_out + f->taps_len - 1;
  const int64_t segments = (n_out + l - 1) / l;
  const int64_t pairs = segments * f->channels;
  GC_CUFFT(cufftSetStream(ln->fwd, stream), "gpu_conv: cufftSetStream");
  GC_CUFFT(cufftSetStream(ln->inv, stream), "gpu_conv: cufftSetStream");
  for (int64_t p0 = 0; p0 < pairs; p0 += f->slots) {
    const unsigned used = (unsigned)(pairs - p0 < f->slots ? pairs - p0 : f->slots);
    /* Enough blocks to fill the device even when a batch has few slots. */
    const int64_t cap = 2048 / used > 16 ? 2048 / used : 16;
    const unsigned gx_gather = blocks_for(n / 4, cap), gx_mul = blocks_for(bins, cap),
                   gx_scatter = blocks_for((l + 3) / 4, cap);
    gather_kernel<<<dim3(gx_gather, used), kThreads, 0, stream>>>(
        ln->buf, in, in_stride, n_in, n, l, l + f->taps_len - 1, segments, p0);
    GC_LAUNCHED("gpu_conv: gather kernel");
    GC_CUFFT(cufftExecR2C(ln->fwd, ln->buf, (cufftComplex *)ln->buf), "gpu_conv: R2C");
    const unsigned zeroed = (unsigned)f->slots - used; /* non-zero in a part batch only */
    multiply_kernel<<<dim3(gx_mul, used + zeroed), kThreads, 0, stream>>>(
        ln->buf, f->d_spec, f->d_filter_of, bins, segments, p0, used);
    GC_LAUNCHED("gpu_conv: multiply kernel");
    GC_CUFFT(cufftExecC2R(ln->inv, (cufftComplex *)ln->buf, ln->buf), "gpu_conv: C2R");
    scatter_kernel<<<dim3(gx_scatter, used), kThreads, 0, stream>>>(
        out, out_stride, n_out, ln->buf, n, l, f->taps_len - 1, segments, p0);
    GC_LAUNCHED("gpu_conv: scatter kernel");
  }
  return CONVOY_OK;
}

int64_t gc_fft_size(const gc_fft *f) {
  return f->n;
}

int64_t gc_fft_granule(const gc_fft *f) {
  return f->l;
}

void gc_fft_describe(const gc_fft *f, char *buf, size_t buf_size) {
  snprintf(buf, buf_size, "gpu-fft (N=%lld by %s, %lld outputs/segment, %lld segments/launch)",
           (long long)f->n, f->timed ? "timing" : "cost model", (long long)f->l,
           (long long)f->slots);
}
