/*
 * gpu_conv_direct_cx.cu - direct-form kernels for complex taps on (real,
 * imaginary) row pairs.
 *
 * The structure of the real kernels (gpu_conv_direct.cu): each block takes a
 * tile of T = 256 x 8 consecutive complex outputs of one complex channel,
 * stages the tile's real and imaginary inputs in shared memory, and each
 * thread computes 8 consecutive complex outputs.
 *
 *   direct_cx_reg<M, PARAM, FRAMES>  M = 1..32 complex taps in registers
 *                     (64 floats), or read from the launch's parameters
 *                     where every channel uses one filter (PARAM); on row
 *                     pairs, or (FRAMES) on one complex channel's
 *                     interleaved (re, im) frames, in and out.
 *   direct_cx_smem    any tap count: taps staged through shared memory
 *                     1024 complex taps at a time.
 *
 * Every output is, for taps i = 0, 1, ... of a block of 1024 (reversed taps
 * g, inputs x), the fused multiply-add chains
 *   re = fma(g_re[i], x_re, re); re = fma(-g_im[i], x_im, re);
 *   im = fma(g_re[i], x_im, im); im = fma(g_im[i], x_re, im);
 * from zero, block sums added in order: the same order in both kernels and
 * wherever the output sits, so results are bitwise independent of tiling
 * and call splits, and both kernels agree.
 */
#include "gpu_conv_direct.cuh"

#include <array>
#include <utility>

namespace gcd {
namespace {

constexpr int R = kCxOutputs;
constexpr int T = kThreads * R;

/* The rows of complex channel c of a tile starting at k0. */
__device__ __forceinline__ void store_pair(const direct_args &a, int64_t c, int64_t k0,
                                           const float (&ar)[R], const float (&ai)[R]) {
  store_outputs<R, T, false>(nullptr, ar, a.out + 2 * c * a.out_stride, k0, a.n_out);
  store_outputs<R, T, false>(nullptr, ai, a.out + (2 * c + 1) * a.out_stride, k0, a.n_out);
}

/* Frames k0 .. k0 + count - 1 of interleaved (re, im) frames x, zero
 * outside [0, n_in): load_frames reads this thread's G granules of them
 * into registers (16 bytes at a time where a granule lies wholly inside;
 * G * kThreads granules must cover them), put_frames spreads those into
 * xr[p] (real parts) and xi[p] (imaginary parts). */
template <int G>
__device__ __forceinline__ void load_frames(float (&v)[G][4], const float *x, int64_t k0, int count,
                                            int64_t n_in) {
  load_input<G>(v, x, 2 * k0, 2 * count, 2 * n_in);
}

template <int G>
__device__ __forceinline__ void put_frames(float *xr, float *xi, const float (&v)[G][4],
                                           const float *x, int64_t k0, int count) {
  const int values = 2 * count;
  const tile_span sp = span_of(x, 2 * k0, values);
#pragma unroll
  for (int g = 0; g < G; g++) {
    const int gi = threadIdx.x + g * kThreads;
    if (gi < sp.granules) {
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const int q = 4 * gi - sp.s + u;
        if (q >= 0 && q < values) (q & 1 ? xi : xr)[q >> 1] = v[g][u];
      }
    }
  }
}

/* Frames kb .. kb + R - 1 of y, interleaved (re, im), where they are
 * below n_out: 16 bytes at a time where all R are and y + 2 kb is 16-byte
 * aligned. */
__device__ __forceinline__ void store_frames(float *y, int64_t kb, int64_t n_out,
                                             const float (&ar)[R], const float (&ai)[R]) {
  float *p = y + 2 * kb;
  if (kb + R <= n_out && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
#pragma unroll
    for (int q = 0; q < R / 2; q++)
      __stcs(reinterpret_cast<float4 *>(p) + q,
             make_float4(ar[2 * q], ai[2 * q], ar[2 * q + 1], ai[2 * q + 1]));
  } else {
#pragma unroll
    for (int r = 0; r < R; r++)
      if (kb + r < n_out) {
        p[2 * r] = ar[r];
        p[2 * r + 1] = ai[r];
      }
  }
}

/* FRAMES: one complex channel's interleaved (re, im) frames in and out
 * (n_in and n_out count frames), staged into the same two shared rows, so
 * the same sums as on the row pair; each thread loads its part of the
 * next tile's frames into registers before summing the current tile. */
template <int M, bool PARAM, bool FRAMES>
__global__ void __launch_bounds__(kThreads) direct_cx_reg(const __grid_constant__ direct_args a) {
  constexpr int Q = (R + M - 1 + 3) / 4; /* 16-byte reads per thread and row */
  constexpr int W = T - R + 4 * Q;       /* >= T + M - 1 rounded up to 4, and >= T */
  /* granules a thread loads of a tile's frames */
  constexpr int G = FRAMES ? ((2 * (T + M - 1) + 6) / 4 + kThreads - 1) / kThreads : 1;
  __shared__ __align__(16) float xr[W];
  __shared__ __align__(16) float xi[W];
  float gr[M], gi[M];
  float next[G][4]; /* the next tile's frames */
  int32_t loaded = -1;
  const int t = threadIdx.x;

  if (FRAMES && blockIdx.x < a.tiles) {
    int64_t c, k0;
    tile_origin<T>(a, blockIdx.x, c, k0);
    load_frames<G>(next, a.in, k0, T + M - 1, a.n_in);
  }
  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t c, k0;
    tile_origin<T>(a, tile, c, k0);
    const int32_t f = PARAM ? 0 : a.filter_of[c];
    if (!PARAM && f != loaded) { /* uniform across the block */
      const float *tp = a.taps + 2 * f * a.taps_stride;
#pragma unroll
      for (int i = 0; i < M; i++) {
        gr[i] = __ldg(tp + i);
        gi[i] = __ldg(tp + a.taps_stride + i);
      }
      loaded = f;
    }
    if (FRAMES) {
      put_frames<G>(xr, xi, next, a.in, k0, T + M - 1);
    } else {
      stage_input<W>(xr, a.in + 2 * c * a.in_stride, k0, T + M - 1, a.n_in);
      stage_input<W>(xi, a.in + (2 * c + 1) * a.in_stride, k0, T + M - 1, a.n_in);
    }
    __syncthreads();
    if (FRAMES && tile + gridDim.x < a.tiles) {
      int64_t cn, kn;
      tile_origin<T>(a, tile + gridDim.x, cn, kn);
      load_frames<G>(next, a.in, kn, T + M - 1, a.n_in);
    }

    float ar[R], ai[R];
#pragma unroll
    for (int r = 0; r < R; r++) ar[r] = ai[r] = 0.0f;
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const float4 vr = *reinterpret_cast<const float4 *>(xr + t * R + 4 * q);
      const float4 vi = *reinterpret_cast<const float4 *>(xi + t * R + 4 * q);
      const float er[4] = {vr.x, vr.y, vr.z, vr.w};
      const float ei[4] = {vi.x, vi.y, vi.z, vi.w};
#pragma unroll
      for (int u = 0; u < 4; u++) {
#pragma unroll
        for (int r = 0; r < R; r++) {
          const int i = 4 * q + u - r; /* tap index, ascending for each r */
          if (i >= 0 && i < M)
            cx_fma(PARAM ? a.param_taps[i] : gr[i],
                   PARAM ? a.param_taps[kParamTaps / 2 + i] : gi[i], er[u], ei[u], ar[r], ai[r]);
        }
      }
    }
    if (FRAMES)
      store_frames(a.out, k0 + (int64_t)t * R, a.n_out, ar, ai);
    else
      store_pair(a, c, k0, ar, ai);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kThreads) direct_cx_smem(direct_args a) {
  constexpr int C = 8; /* taps per register chunk */
  static_assert(R == C, "the register window slides by one chunk");
  constexpr int W = T + kCxTapBlock + 4;
  __shared__ __align__(16) float xr[W];
  __shared__ __align__(16) float xi[W];
  __shared__ __align__(16) float gsr[kCxTapBlock];
  __shared__ __align__(16) float gsi[kCxTapBlock];
  const int t = threadIdx.x;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t c, k0;
    tile_origin<T>(a, tile, c, k0);
    const float *tpr = a.taps + 2 * a.filter_of[c] * a.taps_stride;
    const float *tpi = tpr + a.taps_stride;
    const float *x_re = a.in + 2 * c * a.in_stride;
    const float *x_im = x_re + a.in_stride;
    float total_r[R], total_i[R];

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += kCxTapBlock) {
      const int mb = (int)(a.taps_len - j0 < kCxTapBlock ? a.taps_len - j0 : kCxTapBlock);
      /* taps_stride is a multiple of 4 and j0 of 1024: whole float4s, padded with zeros. */
      for (int i = t; i < (mb + 3) / 4; i += kThreads) {
        reinterpret_cast<float4 *>(gsr)[i] = __ldg(reinterpret_cast<const float4 *>(tpr + j0) + i);
        reinterpret_cast<float4 *>(gsi)[i] = __ldg(reinterpret_cast<const float4 *>(tpi + j0) + i);
      }
      stage_input<W>(xr, x_re, k0 + j0, T + mb - 1, a.n_in);
      stage_input<W>(xi, x_im, k0 + j0, T + mb - 1, a.n_in);
      __syncthreads();

      float ar[R], ai[R];
#pragma unroll
      for (int r = 0; r < R; r++) ar[r] = ai[r] = 0.0f;
      const float *wr_p = xr + t * R, *wi_p = xi + t * R;
      float wr[R + C], wi[R + C];
#pragma unroll
      for (int u = 0; u < R; u += 4) {
        const float4 v = *reinterpret_cast<const float4 *>(wr_p + u);
        const float4 w = *reinterpret_cast<const float4 *>(wi_p + u);
        wr[u] = v.x, wr[u + 1] = v.y, wr[u + 2] = v.z, wr[u + 3] = v.w;
        wi[u] = w.x, wi[u + 1] = w.y, wi[u + 2] = w.z, wi[u + 3] = w.w;
      }
      const int chunks = mb / C;
      for (int ci = 0; ci < chunks; ci++) {
        const int i0 = ci * C;
#pragma unroll
        for (int u = 0; u < C; u += 4) {
          const float4 v = *reinterpret_cast<const float4 *>(wr_p + i0 + R + u);
          const float4 w = *reinterpret_cast<const float4 *>(wi_p + i0 + R + u);
          wr[R + u] = v.x, wr[R + u + 1] = v.y, wr[R + u + 2] = v.z, wr[R + u + 3] = v.w;
          wi[R + u] = w.x, wi[R + u + 1] = w.y, wi[R + u + 2] = w.z, wi[R + u + 3] = w.w;
        }
        float hr[C], hi[C];
#pragma unroll
        for (int u = 0; u < C; u += 4) {
          const float4 v = *reinterpret_cast<const float4 *>(gsr + i0 + u);
          const float4 w = *reinterpret_cast<const float4 *>(gsi + i0 + u);
          hr[u] = v.x, hr[u + 1] = v.y, hr[u + 2] = v.z, hr[u + 3] = v.w;
          hi[u] = w.x, hi[u + 1] = w.y, hi[u + 2] = w.z, hi[u + 3] = w.w;
        }
#pragma unroll
        for (int u = 0; u < C; u++) {
#pragma unroll
          for (int r = 0; r < R; r++) cx_fma(hr[u], hi[u], wr[r + u], wi[r + u], ar[r], ai[r]);
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
          wr[r] = wr[r + C];
          wi[r] = wi[r + C];
        }
      }
      for (int i = chunks * C; i < mb; i++) {
        const float hr = gsr[i], hi = gsi[i];
#pragma unroll
        for (int r = 0; r < R; r++) cx_fma(hr, hi, wr_p[r + i], wi_p[r + i], ar[r], ai[r]);
      }
#pragma unroll
      for (int r = 0; r < R; r++) {
        total_r[r] = j0 == 0 ? ar[r] : total_r[r] + ar[r];
        total_i[r] = j0 == 0 ? ai[r] : total_i[r] + ai[r];
      }
      __syncthreads();
    }
    store_pair(a, c, k0, total_r, total_i);
    __syncthreads();
  }
}

template <bool PARAM, bool FRAMES, int... I>
constexpr std::array<kernel_fn, sizeof...(I)> cx_table(std::integer_sequence<int, I...>) {
  return {{&direct_cx_reg<I + 1, PARAM, FRAMES>...}};
}
using cx_taps = std::make_integer_sequence<int, kCxRegMaxTaps>;
/* [taps in the parameters][frames][taps - 1] */
const std::array<kernel_fn, kCxRegMaxTaps> kCxKernels[2][2] = {
    {cx_table<false, false>(cx_taps{}), cx_table<false, true>(cx_taps{})},
    {cx_table<true, false>(cx_taps{}), cx_table<true, true>(cx_taps{})}};

} // namespace

kernel_fn cx_kernel(int64_t taps_len, bool shared_taps, bool param) {
  if (shared_taps || taps_len > kCxRegMaxTaps || taps_len < 1) return &direct_cx_smem;
  return kCxKernels[param][0][(size_t)(taps_len - 1)];
}

kernel_fn cx_frames_kernel(int64_t taps_len, bool param) {
  if (taps_len > kCxRegMaxTaps || taps_len < 1) return nullptr;
  return kCxKernels[param][1][(size_t)(taps_len - 1)];
}

} // namespace gcd
