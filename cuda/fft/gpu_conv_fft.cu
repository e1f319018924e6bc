/*
 * gpu_conv_fft.cu - overlap-save convolution: the FFT engine's plan (FFT
 * size, implementation, batch), its cost model and its runs.
 *
 * Segment s of channel c covers input frames [s*L, s*L + N) of that channel
 * (history included) and yields outputs [s*L, s*L + L), the last L of its N
 * circular-convolution values (L <= N - taps + 1, a multiple of 4). A segment
 * holds exactly the L + taps - 1 inputs its outputs need, then zeros, so its
 * bits never depend on how far the call's input reaches. Four
 * implementations (gpu_conv_fft_paths.cuh):
 *
 *   fused     N = 2^10 .. 2^15: one kernel, one thread block per segment;
 *             the signal, the filter spectrum and the outputs cross device
 *             memory once (gpu_conv_fft_fused.cu).
 *   fourstep  N = 2^16 .. 2^22: per batch of B segments, three kernels of a
 *             four-step FFT of our own; the first reads the signal, the
 *             second multiplies by the filter spectrum, the third writes the
 *             outputs (gpu_conv_fft_4step.cu).
 *   plain     larger N: per batch, gather kernel, cuFFT R2C, multiply
 *             kernel, cuFFT C2R, scatter kernel.
 *   callback  (only when forced) cuFFT with LTO callbacks doing gather,
 *             multiply and scatter (gpu_conv_fft_cb.cu); the plain path
 *             where cuFFT cannot link them. Measured on an H200 (CUDA 13.0):
 *             slower than the fused and four-step kernels at every size,
 *             slower than plain cuFFT at 1024 taps, and each plan takes 0.2
 *             to 2 s to link, so it is never the default.
 *
 * The filter spectra are computed once per filter at create, the scale
 * folded in. The batched paths keep B segments of scratch per lane, so device
 * memory is bounded by the batch (at most max_out outputs per channel),
 * never by the signal. The cuFFT paths transform all B slots with the same
 * plans at every launch (slots past the last segment hold zeros), and our
 * kernels treat every segment alike, so a segment's bits do not depend on
 * how many segments the call had or where it sat in a batch.
 */
#include "gpu_conv_fft_paths.cuh"

#include <atomic>

#include <new>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kThreads = 256;
constexpr int kMinLog2 = 6;      /* N >= 64 */
constexpr int kMaxLog2 = 26;     /* N <= 2^26 */
constexpr int kMaxSlots = 65535; /* gridDim.y of the plain path's kernels */
constexpr int64_t kMaxFusedBlocks = (int64_t)1 << 30;
/* Default scratch per launch and lane of the batched paths, per
 * multiprocessor (at least half the L2). A batch of half the L2 kept the
 * scratch there, but its three launches ran 1.4 to 2.7 waves of blocks, the
 * last part-empty; larger batches leave the L2 and still run faster (H200,
 * docs/BENCHMARKS.md "Four-step batches"). */
constexpr int64_t kBatchBytesPerSm = (int64_t)2 << 20;
/* The callbacks index a batch with 32-bit offsets. */
constexpr int64_t kMaxCallbackFloats = ((int64_t)1 << 31) - 1;

struct fft_lane {
  float *buf; /* B * (N + 2) floats */
  cufftHandle fwd, inv;
  bool have_fwd, have_inv;
  void *work;
  gc_cb_info *d_info;  /* callback path: the callbacks' facts */
  gc_cb_slot *d_slots; /* callback path: B slot entries */
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

bool fused_size(int64_t n) {
  return n >= GC_FUSED_MIN_N && n <= GC_FUSED_MAX_N;
}

bool four_size(int64_t n) {
  return gc_four_supported(n, NULL, NULL);
}

/* The implementation used at size n: the fused kernel, else the four-step
 * kernels, else plain cuFFT, unless forced. */
int path_for(int64_t n, bool cx) {
  const int forced = gc_fft_forced_path();
  if (cx) /* complex: the fused kernel where it exists, else plain cuFFT */
    return forced != GPU_CONV_FFT_PLAIN && gc_fused_cx_supported(n) ? GPU_CONV_FFT_FUSED
                                                                    : GPU_CONV_FFT_PLAIN;
  if (forced == GPU_CONV_FFT_FUSED && fused_size(n)) return GPU_CONV_FFT_FUSED;
  if (forced == GPU_CONV_FFT_FOURSTEP && four_size(n)) return GPU_CONV_FFT_FOURSTEP;
  if (forced == GPU_CONV_FFT_PLAIN) return GPU_CONV_FFT_PLAIN;
  if (forced == GPU_CONV_FFT_CALLBACK)
    return gc_cb_compiled() ? GPU_CONV_FFT_CALLBACK : GPU_CONV_FFT_PLAIN;
  if (fused_size(n)) return GPU_CONV_FFT_FUSED;
  if (four_size(n)) return GPU_CONV_FFT_FOURSTEP;
  return GPU_CONV_FFT_PLAIN;
}

int points_for(int64_t n) {
  const int p = gc_fft_forced_points();
  return p > 0 && gc_fused_find(n, p, 0) ? p : gc_fused_default_points(n);
}

/* Segments per launch. */
int64_t slots_for(const gpu_conv_config *cfg, const gc_device *dev, int64_t n, int64_t l,
                  int path) {
  const bool cx = cfg->complex_taps != 0;
  const int64_t need =
      (int64_t)(cx ? cfg->channels / 2 : cfg->channels) * ((cfg->max_out + l - 1) / l);
  const int64_t seg_bytes = cx ? (int64_t)sizeof(float2) * n : (int64_t)sizeof(float) * (n + 2);
  int64_t b;
  if (path == GPU_CONV_FFT_FUSED) {
    /* No scratch: one launch for the whole call unless a batch is asked for. */
    b = cfg->fft_batch_bytes > 0 ? cfg->fft_batch_bytes / seg_bytes : need;
    if (b > kMaxFusedBlocks) b = kMaxFusedBlocks;
  } else {
    /* Four-step scratch is n/2 complex values per segment, cuFFT's n + 2
     * floats: about the same. */
    int64_t bytes = cfg->fft_batch_bytes;
    if (bytes <= 0) {
      bytes = (int64_t)dev->sms * kBatchBytesPerSm;
      if (bytes < dev->l2_bytes / 2) bytes = dev->l2_bytes / 2;
    }
    b = bytes / seg_bytes;
    if (b > kMaxSlots) b = kMaxSlots;
    if (path == GPU_CONV_FFT_CALLBACK && b > kMaxCallbackFloats / (n + 2))
      b = kMaxCallbackFloats / (n + 2);
  }
  if (b > need) b = need;
  return b > 0 ? b : 1;
}

/* Whether the caller will also run interleaved frames of several real
 * rows (gpu_conv_run_interleaved), which the fused kernels on frames take. */
bool runs_frames(const gpu_conv_config *cfg) {
  return cfg->interleaved_runs && !cfg->complex_taps && cfg->channels > 1;
}

/* Fraction of the fp32 rate the FFT arithmetic of the fused kernels
 * reaches, by points per transform, on an H200: a third up to 2^11 points;
 * above, for the planar kernel, as measured at 1024 taps (2^28 samples:
 * 243, 175 and 135 GS/s at 2^12, 2^13 and 2^14 points, against 224 at
 * 2^11), and for the complex kernel and the kernels on interleaved frames
 * a fifth less per doubling (on frames of 2 to 8 rows at N = 8192 they ran
 * at 51-63% of the planar kernel, at 4096 at 65-75%). At 2^14 points the
 * kernel has since gained more than the others: it reaches two thirds of
 * the 2^11-point kernel's share at 6400 to 12800 taps (gpu_kernels_bench
 * sizes), where 0.19 let the model take the four-step N = 2^17 at 15222
 * taps once its batches grew (99.6 GS/s against 115). At 2^13 points the
 * transforms now turn in registers (turns_at), 1.11 times as fast at 1024
 * taps (190-191 -> 212 GS/s): 0.23 -> 0.256. The complex kernel, as
 * measured from 128 to 3000 complex taps on frames of one complex channel
 * and on row pairs (2^27 frames, every size forced): 0.27, 0.20 and 0.169
 * at 2^12, 2^13 and 2^14 points, which put the plans' crossovers between
 * those of the two layouts (2^11 -> 2^12 near 810 taps, where frames
 * crossed near 750 and row pairs near 900; 2^12 -> 2^13 near 1960, 2^13 ->
 * 2^14 near 2870, against 600, 2080 and 3330 before, 7-13% slower at 600
 * and 750 taps and 4% at 3000). A model only; timing decides where it is
 * asked to. */
enum fused_kernel { FUSED_PLANAR, FUSED_FRAMES, FUSED_COMPLEX };
double fft_efficiency(double m, fused_kernel kernel) {
  const int k = (int)lround(log2(m));
  if (k <= 11) return 0.33;
  if (kernel == FUSED_COMPLEX) {
    static const double complex_measured[3] = {0.27, 0.20, 0.169};
    return k <= 14 ? complex_measured[k - 12] : complex_measured[2] * pow(0.8, k - 14);
  }
  if (kernel != FUSED_PLANAR) return 0.33 * pow(0.8, k - 11);
  static const double measured[3] = {0.325, 0.256, 0.22};
  return k <= 14 ? measured[k - 12] : measured[2] * pow(0.8, k - 14);
}

/* The four-step kernels' share of the FP32 peak for a transform of m
 * complex points, as measured on an H200 (gpu_kernels_bench sweep, timed
 * plans; the FFT flops of the outputs each plan delivered): m = 2^15 .. 2^21,
 * falling off by 5% an octave beyond. Counted as the fused kernel's at 2^12
 * points (0.26) the model took N = 2^17 four-step plans for 3200 .. 10763
 * taps, at 82-93 GS/s where fused sizes ran 98-147. Measured with batches of
 * half the L2 and the first pass staged in shared memory; the kernels now
 * run about 1.3 times these figures at every size, about what the fused
 * kernels at 2^11 to 2^13 points have gained on fft_efficiency's (1.2 to
 * 1.3), so the table keeps their ratio. */
double four_step_efficiency(double m) {
  static const double measured[7] = {0.127, 0.143, 0.125, 0.141, 0.132, 0.128, 0.110};
  const int k = (int)lround(log2(m));
  if (k < 15) return measured[0];
  if (k > 21) return measured[6] * pow(0.95, k - 21);
  return measured[k - 15];
}

/* Segments of l outputs one full call runs per channel. A ragged last one
 * costs as much as a whole one; a caller that cuts its calls at whole
 * granules (whole_granules) runs the whole segments that fit in max_out,
 * or one when a granule is longer (it then makes its calls one granule). */
int64_t call_segments(const gpu_conv_config *cfg, int64_t l) {
  if (cfg->whole_granules) return cfg->max_out > l ? cfg->max_out / l : 1;
  return (cfg->max_out + l - 1) / l;
}

/* The outputs per channel those segments deliver. */
double call_outputs(const gpu_conv_config *cfg, int64_t l) {
  return cfg->whole_granules ? (double)(call_segments(cfg, l) * l) : (double)cfg->max_out;
}

/* model_cost for complex filters: n complex points per segment, l complex
 * outputs (one per row of the pair), per row. */
double model_cost_cx(const gpu_conv_config *cfg, const gc_device *dev, int64_t n, int64_t l,
                     int path, int64_t segments, int64_t slots) {
  const double dn = (double)n, dl = (double)l;
  const int32_t pairs = cfg->channels / 2;
  const double batches = ceil((double)segments * pairs / (double)slots);
  const double flops = 2.0 * 5.0 * dn * log2(dn) + 6.0 * dn;
  double per_segment, launches;
  if (path == GPU_CONV_FFT_FUSED) {
    const double bytes = 8.0 * dn + 8.0 * dl + 0.25 * 8.0 * dn;
    const double t_mem = bytes / dev->bytes_per_s;
    const double t_fft = flops / (dev->fma_per_s * 2.0 * fft_efficiency(dn, FUSED_COMPLEX));
    per_segment = t_mem > t_fft ? t_mem : t_fft;
    launches = batches;
  } else {
    /* two transforms of several passes; gather, multiply, scatter */
    const double bytes = 2.0 * fft_passes(n) * 16.0 * dn + 16.0 * dn + 24.0 * dn + 16.0 * dl;
    per_segment = bytes / dev->bytes_per_s + flops / (dev->fma_per_s * 2.0 * 0.3);
    launches = batches * 5.0;
  }
  const double per_call = per_segment * (double)segments * pairs + launches * 4e-6;
  return per_call / (call_outputs(cfg, l) * cfg->channels);
}

/* Model seconds per output per channel of a full call at FFT size n. */
double model_cost(const gpu_conv_config *cfg, const gc_device *dev, int64_t n) {
  const int64_t l = granule_for(n, cfg->taps_len);
  if (l < 4) return -1.0;
  const int path = path_for(n, cfg->complex_taps != 0);
  const double dn = (double)n, dl = (double)l;
  const int64_t segments = call_segments(cfg, l); /* per channel, per full call */
  const int64_t slots = slots_for(cfg, dev, n, l, path);
  if (cfg->complex_taps) return model_cost_cx(cfg, dev, n, l, path, segments, slots);
  const double batches = ceil((double)segments * cfg->channels / (double)slots);
  double per_segment, launches;
  if (path == GPU_CONV_FFT_FUSED || path == GPU_CONV_FFT_FOURSTEP) {
    /* Signal in, outputs out, the filter's half spectrum mostly from L2;
     * four-step: the scratch written and read twice (partly in L2). */
    double bytes = 4.0 * dn + 4.0 * dl + 0.25 * 4.0 * dn;
    if (path == GPU_CONV_FFT_FOURSTEP) bytes += 3.0 * 4.0 * dn;
    const double m = dn / 2;
    const double flops = 2.0 * 5.0 * m * log2(m) + 40.0 * m;
    const double eff = path == GPU_CONV_FFT_FUSED
                           ? fft_efficiency(m, runs_frames(cfg) ? FUSED_FRAMES : FUSED_PLANAR)
                           : four_step_efficiency(m);
    const double t_mem = bytes / dev->bytes_per_s;
    const double t_fft = flops / (dev->fma_per_s * 2.0 * eff);
    per_segment = t_mem > t_fft ? t_mem : t_fft;
    launches = batches * (path == GPU_CONV_FFT_FUSED ? 1.0 : 3.0);
  } else {
    double bytes = 2.0 * fft_passes(n) * 8.0 * dn; /* two transforms */
    if (path == GPU_CONV_FFT_CALLBACK)
      bytes += 2.0 * dn; /* the filter spectrum, mostly from L2 */
    else
      bytes += 8.0 * dn + 10.0 * dn + 8.0 * dl; /* gather, multiply, scatter */
    const double flops = 2.0 * 2.5 * dn * log2(dn) + 3.0 * dn;
    per_segment = bytes / dev->bytes_per_s + flops / (dev->fma_per_s * 2.0 * 0.3);
    launches = batches * (path == GPU_CONV_FFT_CALLBACK ? 3.0 : 5.0);
  }
  const double per_call = per_segment * (double)segments * cfg->channels + launches * 4e-6;
  return per_call / (call_outputs(cfg, l) * cfg->channels);
}

/* The smallest k >= kMinLog2 with 2^k >= need; kMaxLog2 + 1 when none. */
int log2_at_least(int64_t need) {
  int k = kMinLog2;
  while (k <= kMaxLog2 && ((int64_t)1 << k) < need) k++;
  return k;
}

/* The smallest size's log2 that fits taps (at most kMaxLog2). */
int min_log2(int64_t taps) {
  const int k = log2_at_least(taps + 3);
  return k < kMaxLog2 ? k : kMaxLog2;
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

std::atomic<int> forced_path{-1};
std::atomic<int> forced_points{0};

} // namespace

extern "C" int64_t gpu_conv_fft_size_at_least(int64_t taps_len, int64_t want) {
  const int k = log2_at_least(want > taps_len + 3 ? want : taps_len + 3);
  return k <= kMaxLog2 ? (int64_t)1 << k : 0;
}

extern "C" void gpu_conv_fft_override(int path, int fused_points) {
  forced_path.store(path >= GPU_CONV_FFT_CHOOSE && path <= GPU_CONV_FFT_PLAIN ? path : 0);
  forced_points.store(fused_points == 8 || fused_points == 16 ? fused_points : 0);
}

int gc_fft_forced_path(void) {
  const int p = forced_path.load();
  if (p >= 0) return p;
  const char *e = getenv("CONVOY_GPU_FFT_PATH");
  if (!e) return GPU_CONV_FFT_CHOOSE;
  if (strcmp(e, "fused") == 0) return GPU_CONV_FFT_FUSED;
  if (strcmp(e, "callback") == 0) return GPU_CONV_FFT_CALLBACK;
  if (strcmp(e, "plain") == 0) return GPU_CONV_FFT_PLAIN;
  return GPU_CONV_FFT_CHOOSE;
}

int gc_fft_forced_points(void) {
  return forced_points.load();
}

struct gc_fft {
  bool cx;      /* complex filters: n complex points, row pairs, full spectra */
  int64_t fold; /* D > 1: spectra folded for decimation by D (complex plain path) */
  int64_t taps_len;
  int64_t n, l, slots;
  int32_t channels, lanes, filters;
  int path;                            /* GPU_CONV_FFT_FUSED, _CALLBACK or _PLAIN */
  int points;                          /* fused: points per thread */
  const gc_fused_kernel *fused;        /* fused, real filters: on planar rows */
  const gc_fused_kernel *fused_frames; /* on interleaved frames of all channels, or NULL */
  float2 *d_spec; /* [filters][n/2 + 1], scaled by 1/n (fused, four-step: 1/(2n),
                     four-step: in row order) */
  int32_t *d_filter_of;
  float2 *d_tw; /* fused and complex fused: gc_fused_twiddles; four-step: the rows' */
  float2 *d_tw_cols, *d_wide, *d_fine; /* four-step: the other twiddles */
  fft_lane *lane;                      /* cuFFT paths */
  bool timed;
  char note[160]; /* why the callback path was not used, if it was meant to be */
};

double gc_fft_model_cost(const gc_device *dev, int64_t taps_len, int64_t max_out, int complex_taps,
                         int64_t fft_size) {
  if (taps_len > GPU_CONV_FFT_MAX_TAPS) return -1.0;
  gpu_conv_config cfg;
  gpu_conv_config_init(&cfg);
  cfg.taps_len = taps_len;
  cfg.max_out = max_out;
  cfg.complex_taps = complex_taps;
  cfg.channels = complex_taps ? 2 : 1;
  if (fft_size > 0) { /* the size the engine will be given: a power of two >= taps + 3 */
    const int k = log2_at_least(fft_size > taps_len + 3 ? fft_size : taps_len + 3);
    return model_cost(&cfg, dev, (int64_t)1 << (k < kMaxLog2 ? k : kMaxLog2));
  }
  double cost = -1.0;
  return model_best(&cfg, dev, &cost) < 0 ? -1.0 : cost;
}

static void lane_free(fft_lane *ln) {
  if (ln->have_fwd) cufftDestroy(ln->fwd);
  if (ln->have_inv) cufftDestroy(ln->inv);
  cudaFree(ln->buf);
  cudaFree(ln->work);
  cudaFree(ln->d_info);
  cudaFree(ln->d_slots);
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
  cudaFree(f->d_tw);
  cudaFree(f->d_tw_cols);
  cudaFree(f->d_wide);
  cudaFree(f->d_fine);
  (void)cudaGetLastError();
  free(f);
}

/* Complex plain path: [slots][n] complex scratch, transformed in place by
 * one batched C2C plan in both directions. */
static convoy_status lane_make_cx(gc_fft *f, fft_lane *ln, char *err, size_t err_size) {
  const size_t bytes = sizeof(float2) * (size_t)f->slots * (size_t)f->n;
  GP_CUDA(cudaMalloc((void **)&ln->buf, bytes), "gpu_conv: FFT scratch");
  GP_CUDA(cudaMemset(ln->buf, 0, bytes), "gpu_conv: FFT scratch");
  long long dims[1] = {(long long)f->n};
  size_t ws = 0;
  GP_CUFFT(cufftCreate(&ln->fwd), "gpu_conv: cufftCreate");
  ln->have_fwd = true;
  GP_CUFFT(cufftSetAutoAllocation(ln->fwd, 0), "gpu_conv: cufftSetAutoAllocation");
  char what[96];
  snprintf(what, sizeof what, "gpu_conv: C2C plan (N=%lld, batch %lld)", (long long)f->n,
           (long long)f->slots);
  GP_CUFFT(cufftMakePlanMany64(ln->fwd, 1, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, f->slots, &ws),
           what);
  size_t ws_inv = 0;
  if (f->fold > 1) {
    /* the folded inverse: n / D points at the start of each n-point slot */
    long long fdims[1] = {(long long)(f->n / f->fold)}, embed[1] = {(long long)f->n};
    GP_CUFFT(cufftCreate(&ln->inv), "gpu_conv: cufftCreate");
    ln->have_inv = true;
    GP_CUFFT(cufftSetAutoAllocation(ln->inv, 0), "gpu_conv: cufftSetAutoAllocation");
    snprintf(what, sizeof what, "gpu_conv: folded C2C plan (N=%lld, batch %lld)",
             (long long)fdims[0], (long long)f->slots);
    GP_CUFFT(cufftMakePlanMany64(ln->inv, 1, fdims, embed, 1, (long long)f->n, embed, 1,
                                 (long long)f->n, CUFFT_C2C, f->slots, &ws_inv),
             what);
  }
  if (ws_inv > ws) ws = ws_inv;
  if (ws > 0) {
    GP_CUDA(cudaMalloc(&ln->work, ws), "gpu_conv: cuFFT work area");
    GP_CUFFT(cufftSetWorkArea(ln->fwd, ln->work), "gpu_conv: cufftSetWorkArea");
    if (ln->have_inv) GP_CUFFT(cufftSetWorkArea(ln->inv, ln->work), "gpu_conv: cufftSetWorkArea");
  }
  return CONVOY_OK;
}

static convoy_status lane_make(gc_fft *f, fft_lane *ln, char *err, size_t err_size) {
  if (f->path == GPU_CONV_FFT_FOURSTEP) {
    const size_t floats = (size_t)f->slots * (size_t)f->n; /* n/2 complex per segment */
    GP_CUDA(cudaMalloc((void **)&ln->buf, floats * sizeof(float)), "gpu_conv: FFT scratch");
    return CONVOY_OK;
  }
  if (f->cx) return lane_make_cx(f, ln, err, err_size);
  const size_t floats = (size_t)f->slots * (size_t)(f->n + 2);
  GP_CUDA(cudaMalloc((void **)&ln->buf, floats * sizeof(float)), "gpu_conv: FFT scratch");
  GP_CUDA(cudaMemset(ln->buf, 0, floats * sizeof(float)), "gpu_conv: FFT scratch");
  long long dims[1] = {(long long)f->n};
  size_t ws_fwd = 0, ws_inv = 0;
  GP_CUFFT(cufftCreate(&ln->fwd), "gpu_conv: cufftCreate");
  ln->have_fwd = true;
  GP_CUFFT(cufftCreate(&ln->inv), "gpu_conv: cufftCreate");
  ln->have_inv = true;
  GP_CUFFT(cufftSetAutoAllocation(ln->fwd, 0), "gpu_conv: cufftSetAutoAllocation");
  GP_CUFFT(cufftSetAutoAllocation(ln->inv, 0), "gpu_conv: cufftSetAutoAllocation");
  if (f->path == GPU_CONV_FFT_CALLBACK) {
    const size_t slot_bytes = sizeof(gc_cb_slot) * (size_t)f->slots;
    GP_CUDA(cudaMalloc((void **)&ln->d_slots, slot_bytes), "gpu_conv: callback slot table");
    GP_CUDA(cudaMemset(ln->d_slots, 0, slot_bytes), "gpu_conv: callback slot table");
    GP_CUDA(cudaMalloc((void **)&ln->d_info, sizeof(gc_cb_info)), "gpu_conv: callback facts");
    gc_cb_info info;
    gc_cb_info_make(&info, ln->d_slots, f->n, f->taps_len - 1);
    GP_CUDA(cudaMemcpy(ln->d_info, &info, sizeof info, cudaMemcpyHostToDevice),
            "gpu_conv: callback facts");
    convoy_status st = gc_cb_attach(ln->fwd, ln->inv, &ln->d_info, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  char what[96];
  snprintf(what, sizeof what, "gpu_conv: R2C plan (N=%lld, batch %lld)", (long long)f->n,
           (long long)f->slots);
  GP_CUFFT(
      cufftMakePlanMany64(ln->fwd, 1, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, f->slots, &ws_fwd),
      what);
  snprintf(what, sizeof what, "gpu_conv: C2R plan (N=%lld, batch %lld)", (long long)f->n,
           (long long)f->slots);
  GP_CUFFT(
      cufftMakePlanMany64(ln->inv, 1, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_C2R, f->slots, &ws_inv),
      what);
  size_t ws = ws_fwd > ws_inv ? ws_fwd : ws_inv;
  if (ws > 0) {
    GP_CUDA(cudaMalloc(&ln->work, ws), "gpu_conv: cuFFT work area");
    GP_CUFFT(cufftSetWorkArea(ln->fwd, ln->work), "gpu_conv: cufftSetWorkArea");
    GP_CUFFT(cufftSetWorkArea(ln->inv, ln->work), "gpu_conv: cufftSetWorkArea");
  }
  return CONVOY_OK;
}

/* Filter spectra: zero-padded taps, forward transform, times scale. */
static convoy_status spectra_make(gc_fft *f, const gc_filters *filters, float scale, char *err,
                                  size_t err_size) {
  const int64_t bins = f->n / 2 + 1;
  float *pad = NULL;
  cufftHandle plan = 0;
  bool have_plan = false;
  cudaStream_t s = NULL;
  convoy_status st = CONVOY_OK;
  cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc((void **)&pad, sizeof(float) * (size_t)f->n);
  if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: filter spectrum setup", err, err_size);
  cufftResult r = CUFFT_SUCCESS;
  if (st == CONVOY_OK) {
    r = cufftPlan1d(&plan, (int)f->n, CUFFT_R2C, 1);
    have_plan = r == CUFFT_SUCCESS;
    if (r == CUFFT_SUCCESS) r = cufftSetStream(plan, s);
    if (r != CUFFT_SUCCESS) st = gp_cufft_fail(r, "gpu_conv: filter spectrum plan", err, err_size);
  }
  for (int32_t i = 0; st == CONVOY_OK && i < filters->count; i++) {
    e = cudaMemsetAsync(pad, 0, sizeof(float) * (size_t)f->n, s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(pad, filters->taps[i], sizeof(float) * (size_t)f->taps_len,
                          cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) {
      st = gp_cuda_fail(e, "gpu_conv: taps to the device", err, err_size);
      break;
    }
    r = cufftExecR2C(plan, pad, (cufftComplex *)(f->d_spec + i * bins));
    if (r != CUFFT_SUCCESS) st = gp_cufft_fail(r, "gpu_conv: filter spectrum", err, err_size);
  }
  if (st == CONVOY_OK) {
    int64_t count = bins * filters->count;
    scale_kernel<<<blocks_for(count, 4096), kThreads, 0, s>>>(f->d_spec, count, scale);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: filter spectrum", err, err_size);
  }
  if (s) cudaStreamSynchronize(s);
  if (have_plan) cufftDestroy(plan);
  cudaFree(pad);
  if (s) cudaStreamDestroy(s);
  return st;
}

/* Complex filter spectra: the zero-padded complex taps, a C2C forward
 * transform, times scale; [filters][n]. */
static convoy_status spectra_make_cx(gc_fft *f, const gc_filters *filters, float scale, char *err,
                                     size_t err_size) {
  const int64_t n = f->n, m = f->taps_len;
  float2 *host = (float2 *)malloc(sizeof(float2) * (size_t)m);
  if (!host)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  cufftHandle plan = 0;
  bool have_plan = false;
  convoy_status st = CONVOY_OK;
  cufftResult r = cufftPlan1d(&plan, (int)n, CUFFT_C2C, 1);
  have_plan = r == CUFFT_SUCCESS;
  if (r != CUFFT_SUCCESS) st = gp_cufft_fail(r, "gpu_conv: filter spectrum plan", err, err_size);
  /* Folded plans: the taps rotated left by (m - 1) mod D, which moves the
   * circular output by as much, so that the kept outputs (circular
   * positions m - 1 + q D) sit at multiples of D. */
  const int64_t rot = f->fold > 1 ? (m - 1) % f->fold : 0;
  for (int32_t i = 0; st == CONVOY_OK && i < filters->count; i++) {
    float2 *spec = f->d_spec + i * n;
    for (int64_t j = 0; j < m; j++)
      host[j] = make_float2(filters->taps[i][j], filters->taps_im[i][j]);
    cudaError_t e = cudaMemset(spec, 0, sizeof(float2) * (size_t)n);
    if (e == cudaSuccess)
      e = cudaMemcpy(spec, host + rot, sizeof(float2) * (size_t)(m - rot), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && rot > 0)
      e = cudaMemcpy(spec + n - rot, host, sizeof(float2) * (size_t)rot, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      st = gp_cuda_fail(e, "gpu_conv: taps to the device", err, err_size);
      break;
    }
    r = cufftExecC2C(plan, (cufftComplex *)spec, (cufftComplex *)spec, CUFFT_FORWARD);
    if (r != CUFFT_SUCCESS) st = gp_cufft_fail(r, "gpu_conv: filter spectrum", err, err_size);
  }
  if (st == CONVOY_OK) st = gc_cx_scale(f->d_spec, n * filters->count, scale, 0, err, err_size);
  if (st == CONVOY_OK) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: filter spectrum", err, err_size);
  }
  if (have_plan) cufftDestroy(plan);
  free(host);
  return st;
}

/* Builds the engine at FFT size n (a power of two that fits the taps) with
 * the given implementation. */
static convoy_status fft_make_path(const gpu_conv_config *cfg, const gc_filters *filters,
                                   const gc_device *dev, int64_t n, int path, gc_fft **out,
                                   char *err, size_t err_size) {
  *out = NULL;
  gc_fft *f = (gc_fft *)calloc(1, sizeof *f);
  if (!f)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  *out = f;
  f->taps_len = cfg->taps_len;
  f->n = n;
  f->l = granule_for(n, cfg->taps_len);
  f->path = path;
  f->fold = 1;
  {
    /* Decimation by a power of two D on the complex plain path: blocks of a
     * multiple of D outputs, so every kept output sits at the same phase of
     * its block, and spectra folded before a smaller inverse transform. */
    const int64_t d = cfg->decimation, q = d > 4 ? d : 4;
    const int64_t l = (n - cfg->taps_len + 1) / q * q;
    if (cfg->complex_taps && path == GPU_CONV_FFT_PLAIN && d > 1 && (d & (d - 1)) == 0 &&
        n % d == 0 && l >= d) {
      f->fold = d;
      f->l = l;
    }
  }
  f->points = path == GPU_CONV_FFT_FUSED ? points_for(n) : 0;
  f->slots = slots_for(cfg, dev, n, f->l, path);
  f->channels = cfg->channels;
  f->lanes = cfg->lanes > 0 ? cfg->lanes : 1;
  f->filters = filters->count;
  f->cx = cfg->complex_taps != 0;
  const size_t bins = (size_t)(f->cx ? n : n / 2 + 1);
  GP_CUDA(cudaMalloc((void **)&f->d_spec, sizeof(float2) * bins * (size_t)filters->count),
          "gpu_conv: filter spectra");
  const size_t mapped = (size_t)(f->cx ? cfg->channels / 2 : cfg->channels);
  GP_CUDA(cudaMalloc((void **)&f->d_filter_of, sizeof(int32_t) * mapped), "gpu_conv: channel map");
  GP_CUDA(cudaMemcpy(f->d_filter_of, filters->of_channel, sizeof(int32_t) * mapped,
                     cudaMemcpyHostToDevice),
          "gpu_conv: channel map to the device");
  if (f->cx) {
    /* Both complex paths take 1/n: the plain inverse is unnormalised, the
     * fused one is a forward transform of the conjugate. */
    convoy_status st = spectra_make_cx(f, filters, 1.0f / (float)n, err, err_size);
    if (st == CONVOY_OK && path == GPU_CONV_FFT_FUSED &&
        (st = gc_fused_twiddles(2 * n, GC_FUSED_CX_POINTS, &f->d_tw, err, err_size)) == CONVOY_OK)
      st = gc_fused_cx_prepare(n, err, err_size);
    if (st != CONVOY_OK || path == GPU_CONV_FFT_FUSED) return st;
  }
  const bool ours = path == GPU_CONV_FFT_FUSED || path == GPU_CONV_FFT_FOURSTEP;
  const float scale = ours ? 0.5f / (float)n : 1.0f / (float)n;
  convoy_status st = f->cx ? CONVOY_OK : spectra_make(f, filters, scale, err, err_size);
  if (st != CONVOY_OK) return st;
  if (path == GPU_CONV_FFT_FUSED) {
    if ((st = gc_fused_twiddles(n, f->points, &f->d_tw, err, err_size)) != CONVOY_OK) return st;
    f->fused = gc_fused_find(n, f->points, 0);
    if (!f->fused)
      return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                                 "gpu_conv: no fused FFT kernel for N=%lld with %d points per "
                                 "thread",
                                 (long long)n, f->points);
    st = gc_fused_prepare(f->fused, err, err_size);
    /* Found under the engine's device, which decides whether clusters run. */
    if (f->channels > 1) f->fused_frames = gc_fused_find(n, f->points, f->channels);
    if (st == CONVOY_OK && f->fused_frames) st = gc_fused_prepare(f->fused_frames, err, err_size);
    return st;
  }
  if (path == GPU_CONV_FFT_FOURSTEP) {
    int m1 = 0, m2 = 0;
    gc_four_supported(n, &m1, &m2);
    if ((st = gc_four_reorder(n, f->d_spec, filters->count, 0, err, err_size)) != CONVOY_OK ||
        (st = gc_twiddle_table(2 * m1, m1, 1, &f->d_tw, err, err_size)) != CONVOY_OK ||
        (st = gc_twiddle_table(2 * m2, m2, 1, &f->d_tw_cols, err, err_size)) != CONVOY_OK ||
        (st = gc_twiddle_table(n, n / 64, 64, &f->d_wide, err, err_size)) != CONVOY_OK ||
        (st = gc_twiddle_table(n, 64, 1, &f->d_fine, err, err_size)) != CONVOY_OK ||
        (st = gc_four_prepare(n, err, err_size)) != CONVOY_OK)
      return st;
  }
  f->lane = (fft_lane *)calloc((size_t)f->lanes, sizeof(fft_lane));
  if (!f->lane)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  for (int32_t i = 0; i < f->lanes; i++)
    if ((st = lane_make(f, &f->lane[i], err, err_size)) != CONVOY_OK) return st;
  return CONVOY_OK;
}

/* fft_make_path at the size's own implementation; where cuFFT cannot link
 * the callbacks, the plain path instead, with the reason kept for describe. */
static convoy_status fft_make(const gpu_conv_config *cfg, const gc_filters *filters,
                              const gc_device *dev, int64_t n, gc_fft **out, char *err,
                              size_t err_size) {
  const int path = path_for(n, cfg->complex_taps != 0);
  convoy_status st = fft_make_path(cfg, filters, dev, n, path, out, err, err_size);
  if (st == CONVOY_OK || path != GPU_CONV_FFT_CALLBACK || st == CONVOY_ERR_OUT_OF_MEMORY) return st;
  char why[160];
  snprintf(why, sizeof why, "%s", err && err_size ? err : "callbacks failed");
  gc_fft_destroy(*out);
  *out = NULL;
  (void)cudaGetLastError();
  st = fft_make_path(cfg, filters, dev, n, GPU_CONV_FFT_PLAIN, out, err, err_size);
  if (*out) snprintf((*out)->note, sizeof(*out)->note, "%s", why);
  return st;
}

namespace {
struct fft_probe {
  gc_fft *f;
  const float *in;
  float *out;
  int64_t n;
  bool frames; /* interleaved frames of all channels, else planar rows */
};

convoy_status fft_probe_run(void *arg, cudaStream_t s, char *err, size_t err_size) {
  fft_probe *p = (fft_probe *)arg;
  if (p->frames) return gc_fft_run_interleaved(p->f, p->in, p->out, p->n, s, err, err_size);
  return gc_fft_run(p->f, 0, p->in, p->n + p->f->taps_len - 1, p->out, p->n, p->n, s, err,
                    err_size);
}

/* Outputs of one channel the timing of size n runs: a full call's worth of
 * all channels, but at most 2^19 a multiprocessor and one batch (four-step
 * and cuFFT paths). Fewer left the fused kernels' largest blocks a
 * part-empty last wave that a batch of the four-step kernels did not have
 * (H200, 15222 taps: 2^24 outputs timed the four-step N = 2^17 faster than
 * the fused 2^15, which runs 115 GS/s against 99 on 2^28). */
int64_t probe_outputs(const gpu_conv_config *cfg, const gc_device *dev, int64_t n) {
  const int64_t l = granule_for(n, cfg->taps_len);
  const int path = path_for(n, cfg->complex_taps != 0);
  int64_t total = cfg->max_out * cfg->channels;
  int64_t cap = (int64_t)dev->sms << 19;
  if (path != GPU_CONV_FFT_FUSED) {
    const int64_t batch = slots_for(cfg, dev, n, l, path) * l;
    if (cap > batch) cap = batch;
  }
  if (cap < l) cap = l;
  return total < cap ? total : cap;
}
} // namespace

/* Times, on one channel, the sizes around the model's best (a quarter to
 * twice it) and every size the fused kernel takes (the model can sit on a
 * four-step size a window away from a faster fused one: 3200 taps ran at
 * 114 GS/s against 126 for 3805 on an H200); returns the fastest log2 size in
 * *best (unchanged when every candidate failed to build). Where the caller
 * will run interleaved frames, it times those, all channels at once: the
 * kernels on frames favour smaller sizes than the planar one. */
static convoy_status fft_time_sizes(const gpu_conv_config *cfg, const gc_filters *filters,
                                    const gc_device *dev, int *best, char *err, size_t err_size) {
  const int k_min = min_log2(cfg->taps_len), centre = *best;
  gpu_conv_config probe_cfg = *cfg;
  const bool frames = runs_frames(cfg);
  /* one channel, real or complex, or every channel's frames */
  const int rows = cfg->complex_taps ? 2 : frames ? cfg->channels : 1;
  probe_cfg.channels = rows;
  probe_cfg.lanes = 1;
  int32_t first[GPU_CONV_MAX_ROWS] = {0};
  gc_filters one = {1, first, filters->taps, filters->taps_im};

  auto candidate = [&](int k) {
    return k >= k_min && k <= kMaxLog2 &&
           ((k >= centre - 2 && k <= centre + 1) ||
            path_for((int64_t)1 << k, cfg->complex_taps != 0) == GPU_CONV_FFT_FUSED);
  };
  /* Frames: the sizes with a kernel on frames only, where there are any
   * (at the others frames pass through conversion kernels, which timing
   * the rows would not see); else the rows, planar. */
  auto on_frames = [&](int k) {
    const int64_t n = (int64_t)1 << k;
    return frames && path_for(n, false) == GPU_CONV_FFT_FUSED &&
           gc_fused_find(n, points_for(n), rows) != NULL;
  };
  bool any_frames = false;
  for (int k = k_min; k <= kMaxLog2; k++) any_frames = any_frames || (candidate(k) && on_frames(k));
  auto timed = [&](int k) { return candidate(k) && (!any_frames || on_frames(k)); };
  /* outputs of each row one timing run takes */
  auto probe_n = [&](int k) {
    return probe_outputs(cfg, dev, (int64_t)1 << k) / (frames ? rows : 1);
  };
  int64_t n_max = 0;
  for (int k = k_min; k <= kMaxLog2; k++)
    if (timed(k) && probe_n(k) > n_max) n_max = probe_n(k);
  float *in = NULL, *out = NULL;
  cudaError_t e =
      cudaMalloc((void **)&in, sizeof(float) * rows * (size_t)(n_max + cfg->taps_len - 1));
  if (e == cudaSuccess) e = cudaMalloc((void **)&out, sizeof(float) * rows * (size_t)n_max);
  convoy_status st = CONVOY_OK;
  if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: FFT timing buffers", err, err_size);
  if (st == CONVOY_OK)
    st = gc_fill_pattern(in, rows * (n_max + cfg->taps_len - 1), 0, err, err_size);
  if (st == CONVOY_OK) {
    e = cudaStreamSynchronize(0); /* the timing runs on a non-blocking stream */
    if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: FFT timing buffers", err, err_size);
  }
  double best_time = -1.0;
  for (int k = k_min; st == CONVOY_OK && k <= kMaxLog2; k++) {
    if (!timed(k)) continue;
    int64_t n = (int64_t)1 << k;
    probe_cfg.max_out = probe_n(k);
    gc_fft *f = NULL;
    char ignored[8];
    /* A size that cannot be built (memory) is skipped, not an error. */
    if (fft_make(&probe_cfg, &one, dev, n, &f, ignored, sizeof ignored) == CONVOY_OK) {
      fft_probe p = {f, in, out, probe_cfg.max_out, any_frames};
      double t = gc_time_best(fft_probe_run, &p, 3, err, err_size);
      if (t < 0) st = CONVOY_ERR_BACKEND;
      double per_out = t / (double)probe_cfg.max_out;
      if (t >= 0 && (best_time < 0 || per_out < best_time)) {
        best_time = per_out;
        *best = k;
      }
    }
    gc_fft_destroy(f);
    (void)cudaGetLastError();
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
      return convoy_error_format(
          err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
          "gpu_conv: FFT size %lld is not a power of two in 64 .. 2^26 and >= taps + 3 "
          "(%lld)",
          (long long)n, (long long)(cfg->taps_len + 3));
    k = log2_at_least(n);
  } else {
    k = model_best(cfg, dev, NULL);
    if (k < 0)
      return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                                 "gpu_conv: no FFT size up to 2^26 fits %lld taps",
                                 (long long)cfg->taps_len);
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

/* The fused one-pass kernel, real or complex filters: they differ only in
 * the spectrum's stride (half or full), the rows one segment serves (one
 * real row or a re/im pair) and the launcher. frame_rows > 1: real filters
 * on interleaved frames of that many rows (strides unused). */
static convoy_status run_fused(gc_fft *f, const float *in, int64_t in_stride, float *out,
                               int64_t out_stride, int64_t n_out, int32_t frame_rows,
                               cudaStream_t stream, char *err, size_t err_size) {
  gc_fused_args a;
  a.in = in;
  a.in_stride = in_stride;
  a.n_in = n_out + f->taps_len - 1;
  a.out = out;
  a.out_stride = out_stride;
  a.n_out = n_out;
  a.segments = (n_out + f->l - 1) / f->l;
  a.l = f->l;
  a.window = f->l + f->taps_len - 1;
  a.skip = (int32_t)(f->taps_len - 1);
  a.spec = f->d_spec;
  a.spec_stride = f->cx ? f->n : f->n / 2 + 1;
  a.filter_of = f->d_filter_of;
  a.tw = f->d_tw;
  a.frame_rows = frame_rows;
  const gc_fused_kernel *k = frame_rows > 1 ? f->fused_frames : f->fused;
  const int64_t units = f->cx            ? f->channels / 2
                        : frame_rows > 1 ? f->channels / gc_fused_rows_a_block(k)
                                         : f->channels;
  const int64_t pairs = a.segments * units;
  /* Launches of whole clusters where a cluster shares a segment. */
  const int64_t cluster = !f->cx && frame_rows > 1 ? gc_fused_cluster_blocks(k) : 1;
  const int64_t step = f->slots > cluster ? f->slots - f->slots % cluster : cluster;
  for (int64_t p0 = 0; p0 < pairs; p0 += step) {
    a.p0 = p0;
    const unsigned used = (unsigned)(pairs - p0 < step ? pairs - p0 : step);
    convoy_status st = f->cx ? gc_fused_cx_launch(f->n, &a, used, stream, err, err_size)
                             : gc_fused_launch(k, &a, used, stream, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  return CONVOY_OK;
}

/* Interleaved frames of 2, 4 or 8 rows under real filters, where the fused
 * kernel has them, and frames of 1, 2 or 4 complex channels under complex
 * filters. */
int gc_fft_interleaved(const gc_fft *f) {
  if (!f || f->path != GPU_CONV_FFT_FUSED) return 0;
  if (f->cx) return f->channels == 2 || f->channels == 4 || f->channels == 8;
  return f->fused_frames != NULL;
}

int gc_fft_complex_frames_possible(const gpu_conv_config *cfg) {
  if (cfg->fft_size > 0) return path_for(cfg->fft_size, true) == GPU_CONV_FFT_FUSED;
  for (int k = min_log2(cfg->taps_len); k <= kMaxLog2; k++)
    if (path_for((int64_t)1 << k, true) == GPU_CONV_FFT_FUSED) return 1;
  return 0;
}

convoy_status gc_fft_run_interleaved(gc_fft *f, const float *in, float *out, int64_t n_out,
                                     cudaStream_t stream, char *err, size_t err_size) {
  if (!gc_fft_interleaved(f))
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no fused FFT kernel for %d interleaved channels",
                               (int)f->channels);
  return run_fused(f, in, 0, out, 0, n_out, f->channels, stream, err, err_size);
}

static convoy_status run_fourstep(gc_fft *f, fft_lane *ln, const float *in, int64_t in_stride,
                                  float *out, int64_t out_stride, int64_t n_out,
                                  cudaStream_t stream, char *err, size_t err_size) {
  gc_four_args a;
  a.in = in;
  a.in_stride = in_stride;
  a.n_in = n_out + f->taps_len - 1;
  a.out = out;
  a.out_stride = out_stride;
  a.n_out = n_out;
  a.segments = (n_out + f->l - 1) / f->l;
  a.l = f->l;
  a.window = f->l + f->taps_len - 1;
  a.skip = (int32_t)(f->taps_len - 1);
  a.scratch = (float2 *)ln->buf;
  a.hp = f->d_spec;
  a.hp_stride = f->n / 2 + 1;
  a.filter_of = f->d_filter_of;
  a.tw_rows = f->d_tw;
  a.tw_cols = f->d_tw_cols;
  a.wide = f->d_wide;
  a.fine = f->d_fine;
  const int64_t pairs = a.segments * f->channels;
  for (int64_t p0 = 0; p0 < pairs; p0 += f->slots) {
    a.p0 = p0;
    const unsigned used = (unsigned)(pairs - p0 < f->slots ? pairs - p0 : f->slots);
    convoy_status st = gc_four_launch(f->n, &a, used, stream, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  return CONVOY_OK;
}

static convoy_status run_callback(gc_fft *f, fft_lane *ln, const float *in, int64_t in_stride,
                                  float *out, int64_t out_stride, int64_t n_out,
                                  cudaStream_t stream, char *err, size_t err_size) {
  gc_cb_batch b;
  b.in = in;
  b.in_stride = in_stride;
  b.n_in = n_out + f->taps_len - 1;
  b.out = out;
  b.out_stride = out_stride;
  b.n_out = n_out;
  b.segments = (n_out + f->l - 1) / f->l;
  b.l = f->l;
  b.window = f->l + f->taps_len - 1;
  b.spec = f->d_spec;
  b.bins = f->n / 2 + 1;
  b.filter_of = f->d_filter_of;
  const int64_t pairs = b.segments * f->channels;
  for (int64_t p0 = 0; p0 < pairs; p0 += f->slots) {
    b.p0 = p0;
    b.used = (unsigned)(pairs - p0 < f->slots ? pairs - p0 : f->slots);
    convoy_status st = gc_cb_slots_set(ln->d_slots, (unsigned)f->slots, &b, stream, err, err_size);
    if (st != CONVOY_OK) return st;
    GP_CUFFT(cufftExecR2C(ln->fwd, ln->buf, (cufftComplex *)ln->buf), "gpu_conv: R2C");
    GP_CUFFT(cufftExecC2R(ln->inv, (cufftComplex *)ln->buf, ln->buf), "gpu_conv: C2R");
  }
  return CONVOY_OK;
}

static convoy_status run_plain(gc_fft *f, fft_lane *ln, const float *in, int64_t in_stride,
                               float *out, int64_t out_stride, int64_t n_out, cudaStream_t stream,
                               char *err, size_t err_size) {
  const int64_t n = f->n, l = f->l, bins = n / 2 + 1;
  const int64_t n_in = n_out + f->taps_len - 1;
  const int64_t segments = (n_out + l - 1) / l;
  const int64_t pairs = segments * f->channels;
  for (int64_t p0 = 0; p0 < pairs; p0 += f->slots) {
    const unsigned used = (unsigned)(pairs - p0 < f->slots ? pairs - p0 : f->slots);
    /* Enough blocks to fill the device even when a batch has few slots. */
    const int64_t cap = 2048 / used > 16 ? 2048 / used : 16;
    const unsigned gx_gather = blocks_for(n / 4, cap), gx_mul = blocks_for(bins, cap),
                   gx_scatter = blocks_for((l + 3) / 4, cap);
    gather_kernel<<<dim3(gx_gather, used), kThreads, 0, stream>>>(
        ln->buf, in, in_stride, n_in, n, l, l + f->taps_len - 1, segments, p0);
    GP_LAUNCHED("gpu_conv: gather kernel");
    GP_CUFFT(cufftExecR2C(ln->fwd, ln->buf, (cufftComplex *)ln->buf), "gpu_conv: R2C");
    const unsigned zeroed = (unsigned)f->slots - used; /* non-zero in a part batch only */
    multiply_kernel<<<dim3(gx_mul, used + zeroed), kThreads, 0, stream>>>(
        ln->buf, f->d_spec, f->d_filter_of, bins, segments, p0, used);
    GP_LAUNCHED("gpu_conv: multiply kernel");
    GP_CUFFT(cufftExecC2R(ln->inv, (cufftComplex *)ln->buf, ln->buf), "gpu_conv: C2R");
    scatter_kernel<<<dim3(gx_scatter, used), kThreads, 0, stream>>>(
        out, out_stride, n_out, ln->buf, n, l, f->taps_len - 1, segments, p0);
    GP_LAUNCHED("gpu_conv: scatter kernel");
  }
  return CONVOY_OK;
}

/* The complex cuFFT path over n_out outputs of each row pair: all of them
 * (fold 1), or for a folded plan the kept outputs f * fold, f < kept, with
 * n_out a multiple of l. */
static convoy_status run_plain_cx(gc_fft *f, fft_lane *ln, const float *in, int64_t in_stride,
                                  float *out, int64_t out_stride, int64_t n_out, int64_t fold,
                                  int64_t kept, cudaStream_t stream, char *err, size_t err_size) {
  gc_cx_batch b;
  b.in = in;
  b.in_stride = in_stride;
  b.n_in = n_out + f->taps_len - 1;
  b.out = out;
  b.out_stride = out_stride;
  b.n_out = n_out;
  b.segments = (n_out + f->l - 1) / f->l;
  b.slots = (unsigned)f->slots;
  b.n = f->n;
  b.l = f->l;
  b.window = f->l + f->taps_len - 1;
  /* folded: kept output 0 in the folded transform */
  b.skip = (f->taps_len - 1) / fold;
  b.spec = f->d_spec;
  b.filter_of = f->d_filter_of;
  b.fold = fold;
  b.kept = kept;
  float2 *buf = (float2 *)ln->buf;
  const int64_t pairs = b.segments * (f->channels / 2);
  convoy_status st = CONVOY_OK;
  for (int64_t p0 = 0; p0 < pairs && st == CONVOY_OK; p0 += f->slots) {
    b.p0 = p0;
    b.used = (unsigned)(pairs - p0 < f->slots ? pairs - p0 : f->slots);
    if ((st = gc_cx_gather(buf, &b, stream, err, err_size)) != CONVOY_OK) break;
    GP_CUFFT(cufftExecC2C(ln->fwd, buf, buf, CUFFT_FORWARD), "gpu_conv: C2C forward");
    if ((st = gc_cx_multiply(buf, &b, stream, err, err_size)) != CONVOY_OK) break;
    GP_CUFFT(cufftExecC2C(fold > 1 ? ln->inv : ln->fwd, buf, buf, CUFFT_INVERSE),
             "gpu_conv: C2C inverse");
    st = gc_cx_scatter(buf, &b, stream, err, err_size);
  }
  return st;
}

int64_t gc_fft_fold(const gc_fft *f) {
  return f ? f->fold : 1;
}

convoy_status gc_fft_run_folded(gc_fft *f, int32_t lane, const float *in, int64_t in_stride,
                                float *out, int64_t out_stride, int64_t count, cudaStream_t stream,
                                char *err, size_t err_size) {
  if (f->fold < 2)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: this FFT plan does not fold");
  if (count <= 0) return CONVOY_OK;
  fft_lane *ln = &f->lane[lane];
  GP_CUFFT(cufftSetStream(ln->fwd, stream), "gpu_conv: cufftSetStream");
  GP_CUFFT(cufftSetStream(ln->inv, stream), "gpu_conv: cufftSetStream");
  /* Whole segments, as gc_fft_run computes them: a segment's bits never
   * depend on how many of its outputs the call keeps. */
  const int64_t spanned = (count - 1) * f->fold + 1;
  const int64_t n_out = (spanned + f->l - 1) / f->l * f->l;
  return run_plain_cx(f, ln, in, in_stride, out, out_stride, n_out, f->fold, count, stream, err,
                      err_size);
}

convoy_status gc_fft_run(gc_fft *f, int32_t lane, const float *in, int64_t in_stride, float *out,
                         int64_t out_stride, int64_t n_out, cudaStream_t stream, char *err,
                         size_t err_size) {
  if (f->path == GPU_CONV_FFT_FUSED)
    return run_fused(f, in, in_stride, out, out_stride, n_out, 0, stream, err, err_size);
  if (f->cx) {
    fft_lane *ln = &f->lane[lane];
    GP_CUFFT(cufftSetStream(ln->fwd, stream), "gpu_conv: cufftSetStream");
    return run_plain_cx(f, ln, in, in_stride, out, out_stride, n_out, 1, n_out, stream, err,
                        err_size);
  }
  fft_lane *ln = &f->lane[lane];
  if (f->path == GPU_CONV_FFT_FOURSTEP)
    return run_fourstep(f, ln, in, in_stride, out, out_stride, n_out, stream, err, err_size);
  GP_CUFFT(cufftSetStream(ln->fwd, stream), "gpu_conv: cufftSetStream");
  GP_CUFFT(cufftSetStream(ln->inv, stream), "gpu_conv: cufftSetStream");
  if (f->path == GPU_CONV_FFT_CALLBACK)
    return run_callback(f, ln, in, in_stride, out, out_stride, n_out, stream, err, err_size);
  return run_plain(f, ln, in, in_stride, out, out_stride, n_out, stream, err, err_size);
}

int64_t gc_fft_size(const gc_fft *f) {
  return f->n;
}

int64_t gc_fft_granule(const gc_fft *f) {
  return f->l;
}

void gc_fft_describe(const gc_fft *f, char *buf, size_t buf_size) {
  const char *how = f->timed ? "timing" : "cost model";
  if (f->cx) {
    char fold[48] = "";
    if (f->fold > 1) snprintf(fold, sizeof fold, ", inverse folded by %lld", (long long)f->fold);
    snprintf(buf, buf_size,
             "gpu-fft complex %s (N=%lld complex points by %s, %lld outputs/segment, %lld "
             "segments/launch%s)",
             f->path == GPU_CONV_FFT_FUSED ? "fused" : "cuFFT C2C", (long long)f->n, how,
             (long long)f->l, (long long)f->slots, fold);
  } else if (f->path == GPU_CONV_FFT_FUSED) {
    snprintf(buf, buf_size, "gpu-fft fused (N=%lld by %s, %lld outputs/segment, %d points/thread)",
             (long long)f->n, how, (long long)f->l, f->points);
  } else if (f->path == GPU_CONV_FFT_FOURSTEP) {
    int m1 = 0, m2 = 0;
    gc_four_supported(f->n, &m1, &m2);
    snprintf(buf, buf_size,
             "gpu-fft four-step (N=%lld = 2 x %d x %d by %s, %lld outputs/segment, %lld "
             "segments/launch)",
             (long long)f->n, m1, m2, how, (long long)f->l, (long long)f->slots);
  } else {
    snprintf(buf, buf_size,
             "gpu-fft cuFFT%s (N=%lld by %s, %lld outputs/segment, %lld "
             "segments/launch)%s%s",
             f->path == GPU_CONV_FFT_CALLBACK ? "+callbacks" : "", (long long)f->n, how,
             (long long)f->l, (long long)f->slots, f->note[0] ? "; callbacks unavailable: " : "",
             f->note);
  }
}
