/*
 * gpu_decim_direct.cu - strided direct-form kernels: only the outputs a
 * decimating stream keeps, first + f * step (f = 0 .. count - 1), so the
 * work is proportional to the output rate.
 *
 * Each block takes a tile of consecutive f of one channel (a persistent grid
 * walks the tiles) and, per block of taps, stages the tile's input span in
 * shared memory in polyphase order: offset l = q * step + p goes to row p,
 * column q. Output f of the tile needs offsets f * step + i for taps i,
 * that is row i mod step, column f + i / step: the threads of a warp, which
 * hold consecutive f, read consecutive words for every tap. Thread t
 * computes f = t + r * kThreads for r < kStridedRounds.
 *
 * The sums are those of the full-rate kernels (gpu_conv_direct.cu,
 * gpu_conv_direct_cx.cu): for each output, the fused multiply-add chain over
 * taps i = 0, 1, ... from zero, in blocks of kRealTapBlock (real) or
 * kCxTapBlock (complex) taps, block sums added in order. The staging blocks
 * divide those blocks and the chain runs on across them, so every output is
 * bitwise the full-rate kernel's output at the same index.
 */
#include "gpu_conv_direct.cuh"

namespace gcd {
namespace {

constexpr int R = kStridedRounds;
/* Shared memory: input floats (per row of a complex pair) and taps per
 * staging block. 32 KiB of input plus the taps leave room for several
 * blocks per multiprocessor. */
constexpr int kRealXs = 8192;
constexpr int kRealStage = 512;
constexpr int kCxXs = 4096;
constexpr int kCxStage = 256;
static_assert(kRealTapBlock % kRealStage == 0, "staging blocks divide the sum blocks");
static_assert(kCxTapBlock % kCxStage == 0, "staging blocks divide the sum blocks");
static_assert(kMaxStep <= kCxXs && kMaxStep <= kRealXs, "one phase row fits at any step");

/* Polyphase walk of the staging loop: thread t starts at offset t = q0 *
 * step + p0 and advances kThreads = sq * step + sp offsets a round. */
struct walk {
  int p0, q0, sp, sq;
};

__device__ __forceinline__ walk walk_of(int step) {
  const int t = threadIdx.x;
  return walk{t % step, t / step, kThreads % step, kThreads / step};
}

/* xs[p * pitch + q] = x[base + q * step + p] for offsets l = q * step + p <
 * span with p < mb (other phases are never read when step > mb), zero where
 * base + l >= n_in. base >= 0. */
__device__ __forceinline__ void stage_poly(float *xs, const float *x, int64_t base, int span,
                                           int step, int mb, int pitch, int64_t n_in,
                                           const walk &w) {
  int p = w.p0, q = w.q0;
  for (int l = threadIdx.x; l < span; l += kThreads) {
    if (p < mb) {
      const int64_t g = base + l;
      xs[p * pitch + q] = g < n_in ? __ldg(x + g) : 0.0f;
    }
    p += w.sp;
    q += w.sq;
    if (p >= step) {
      p -= step;
      q++;
    }
  }
}

__device__ __forceinline__ void cx_fma(float gr, float gi, float xr, float xi, float &ar,
                                       float &ai) {
  ar = __fmaf_rn(gr, xr, ar);
  ar = __fmaf_rn(-gi, xi, ar);
  ai = __fmaf_rn(gr, xi, ai);
  ai = __fmaf_rn(gi, xr, ai);
}

__global__ void __launch_bounds__(kThreads) strided_real(strided_args a) {
  __shared__ __align__(16) float xs[kRealXs];
  __shared__ float gs[kRealStage];
  const int t = threadIdx.x;
  const int step = a.step, tile_n = a.tile, pitch = a.pitch;
  const walk w = walk_of(step);
  bool active[R];
#pragma unroll
  for (int r = 0; r < R; r++) active[r] = t + r * kThreads < tile_n;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    const int64_t c = tile / a.tiles_per_channel;
    const int64_t f0 = (tile - c * a.tiles_per_channel) * tile_n;
    const float *tp = a.taps + a.filter_of[c] * a.taps_stride;
    const float *x = a.in + c * a.in_stride;
    float acc[R], total[R];
#pragma unroll
    for (int r = 0; r < R; r++) acc[r] = total[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += kRealStage) {
      const int mb = (int)(a.taps_len - j0 < kRealStage ? a.taps_len - j0 : kRealStage);
      for (int i = t; i < mb; i += kThreads) gs[i] = __ldg(tp + j0 + i);
      stage_poly(xs, x, a.first + f0 * step + j0, (tile_n - 1) * step + mb, step, mb, pitch, a.n_in,
                 w);
      __syncthreads();
      int p = 0, q = t; /* tap u's phase row and column, for r = 0 */
      for (int u = 0; u < mb; u++) {
        const float g = gs[u];
        const float *row = xs + p * pitch + q;
#pragma unroll
        for (int r = 0; r < R; r++)
          if (active[r]) acc[r] = __fmaf_rn(g, row[r * kThreads], acc[r]);
        if (++p == step) {
          p = 0;
          q++;
        }
      }
      const int64_t j1 = j0 + mb;
      if (j1 % kRealTapBlock == 0 || j1 == a.taps_len) {
#pragma unroll
        for (int r = 0; r < R; r++) {
          total[r] = j1 <= kRealTapBlock ? acc[r] : total[r] + acc[r];
          acc[r] = 0.0f;
        }
      }
      __syncthreads();
    }
    float *y = a.out + c * a.out_stride + f0;
    const int64_t left = a.count - f0;
#pragma unroll
    for (int r = 0; r < R; r++) {
      const int fl = t + r * kThreads;
      if (active[r] && fl < left) y[fl] = total[r];
    }
  }
}

__global__ void __launch_bounds__(kThreads) strided_cx(strided_args a) {
  __shared__ __align__(16) float xr[kCxXs];
  __shared__ __align__(16) float xi[kCxXs];
  __shared__ float gsr[kCxStage];
  __shared__ float gsi[kCxStage];
  const int t = threadIdx.x;
  const int step = a.step, tile_n = a.tile, pitch = a.pitch;
  const walk w = walk_of(step);
  bool active[R];
#pragma unroll
  for (int r = 0; r < R; r++) active[r] = t + r * kThreads < tile_n;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    const int64_t c = tile / a.tiles_per_channel;
    const int64_t f0 = (tile - c * a.tiles_per_channel) * tile_n;
    const float *tpr = a.taps + 2 * a.filter_of[c] * a.taps_stride;
    const float *tpi = tpr + a.taps_stride;
    const float *x_re = a.in + 2 * c * a.in_stride;
    const float *x_im = x_re + a.in_stride;
    float ar[R], ai[R], tr[R], ti[R];
#pragma unroll
    for (int r = 0; r < R; r++) ar[r] = ai[r] = tr[r] = ti[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += kCxStage) {
      const int mb = (int)(a.taps_len - j0 < kCxStage ? a.taps_len - j0 : kCxStage);
      for (int i = t; i < mb; i += kThreads) {
        gsr[i] = __ldg(tpr + j0 + i);
        gsi[i] = __ldg(tpi + j0 + i);
      }
      const int64_t base = a.first + f0 * step + j0;
      const int span = (tile_n - 1) * step + mb;
      stage_poly(xr, x_re, base, span, step, mb, pitch, a.n_in, w);
      stage_poly(xi, x_im, base, span, step, mb, pitch, a.n_in, w);
      __syncthreads();
      int p = 0, q = t;
      for (int u = 0; u < mb; u++) {
        const float hr = gsr[u], hi = gsi[u];
        const int at = p * pitch + q;
#pragma unroll
        for (int r = 0; r < R; r++)
          if (active[r]) cx_fma(hr, hi, xr[at + r * kThreads], xi[at + r * kThreads], ar[r], ai[r]);
        if (++p == step) {
          p = 0;
          q++;
        }
      }
      const int64_t j1 = j0 + mb;
      if (j1 % kCxTapBlock == 0 || j1 == a.taps_len) {
#pragma unroll
        for (int r = 0; r < R; r++) {
          tr[r] = j1 <= kCxTapBlock ? ar[r] : tr[r] + ar[r];
          ti[r] = j1 <= kCxTapBlock ? ai[r] : ti[r] + ai[r];
          ar[r] = ai[r] = 0.0f;
        }
      }
      __syncthreads();
    }
    float *y_re = a.out + 2 * c * a.out_stride + f0;
    float *y_im = y_re + a.out_stride;
    const int64_t left = a.count - f0;
#pragma unroll
    for (int r = 0; r < R; r++) {
      const int fl = t + r * kThreads;
      if (active[r] && fl < left) {
        y_re[fl] = tr[r];
        y_im[fl] = ti[r];
      }
    }
  }
}

} // namespace

strided_fn strided_kernel(bool cx) {
  return cx ? &strided_cx : &strided_real;
}

int32_t strided_tile(int32_t step, bool cx, int32_t *pitch) {
  *pitch = 0;
  if (step < 1 || step > kMaxStep) return 0;
  const int32_t xs = cx ? kCxXs : kRealXs, stage = cx ? kCxStage : kRealStage;
  /* A tile of n outputs and a staging block of mb <= stage taps spans
   * offsets up to (n - 1) * step + mb - 1: columns 0 .. n - 1 + (mb - 1) / step. */
  const int32_t extra = (stage - 1) / step;
  int32_t n = xs / step - extra;
  if (n > kThreads * R) n = kThreads * R;
  if (n < 1) return 0;
  *pitch = n + extra;
  return n;
}

} // namespace gcd
