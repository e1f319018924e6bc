/*
 * gpu_conv_direct.cuh - what the direct engine's kernels share (CUDA C++
 * only): the launch arguments, staging of an input tile into shared memory,
 * output stores, and the complex kernels (gpu_conv_direct_cx.cu).
 */
#ifndef CONVOY_GPU_CONV_DIRECT_CUH
#define CONVOY_GPU_CONV_DIRECT_CUH

#include "gpu_conv.h"

#include <cuda_runtime.h>

#include <stdint.h>

namespace gcd {

constexpr int kThreads = 256;

/* Taps a launch carries in its parameters (direct_args::param_taps): the
 * register kernels read them as constant operands of their multiply-adds,
 * so they take no registers (at 64 taps in registers the compiler reloads
 * them from L1 inside the sums). */
constexpr int kParamTaps = 64;

/* Rows are channels; with complex taps a tile covers one complex channel,
 * rows 2c (real) and 2c + 1 (imaginary), and channels in tiles and
 * filter_of count complex channels. */
struct direct_args {
  const float *in;
  int64_t in_stride;
  int64_t n_in; /* valid input frames per channel */
  float *out;
  int64_t out_stride;
  int64_t n_out;
  int64_t tiles_per_channel;
  int64_t tiles;     /* channels * tiles_per_channel */
  const float *taps; /* reversed taps, [filters][taps_stride], zero-padded
                        (complex: [filters][2][taps_stride]) */
  int64_t taps_stride;
  const int32_t *filter_of; /* [channels] (complex: [channels / 2]) */
  int64_t taps_len;
  /* The reversed taps when every row uses one filter of at most kParamTaps
   * taps (complex: the real then the imaginary row of at most
   * kParamTaps / 2), for kernels that read them from here; else unused. */
  float param_taps[kParamTaps];
};

/* A tile's input span: x + k0 lies s floats past a 16-byte boundary, and
 * `granules` 16-byte granules from x + k0 - s cover count floats. */
struct tile_span {
  int s;
  int granules;
};

__device__ __forceinline__ tile_span span_of(const float *x, int64_t k0, int count) {
  const int s = (int)((reinterpret_cast<uintptr_t>(x + k0) >> 2) & 3);
  return tile_span{s, (s + count + 3) >> 2};
}

/* v = x[gx .. gx + 3], zero outside [0, n_in); one 16-byte load where the
 * granule lies wholly inside (gx is 16-byte aligned in x's memory). */
__device__ __forceinline__ void load_granule(const float *x, int64_t gx, int64_t n_in,
                                             float (&v)[4]) {
  if (gx >= 0 && gx + 4 <= n_in) {
    const float4 q = __ldg(reinterpret_cast<const float4 *>(x + gx));
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  } else {
#pragma unroll
    for (int u = 0; u < 4; u++) v[u] = (gx + u >= 0 && gx + u < n_in) ? __ldg(x + gx + u) : 0.0f;
  }
}

/* xs[p + u] = v[u] where 0 <= p + u < W; one 16-byte store when the tile is
 * aligned (s == 0, so p is a multiple of 4 inside xs). */
template <int W>
__device__ __forceinline__ void put_granule(float *xs, int p, int s, const float (&v)[4]) {
  if (s == 0) {
    *reinterpret_cast<float4 *>(xs + p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (p + u >= 0 && p + u < W) xs[p + u] = v[u];
  }
}

/* xs[p] = x[k0 + p] for 0 <= p < count, zero where k0 + p is outside
 * [0, n_in); positions up to the next multiple of 4 may be written too (W must
 * cover them). Reads only inside [0, n_in), 16 bytes at a time where the
 * 16-byte granule lies wholly inside. */
template <int W>
__device__ __forceinline__ void stage_input(float *xs, const float *x, int64_t k0, int count,
                                            int64_t n_in) {
  const tile_span sp = span_of(x, k0, count);
  for (int gi = threadIdx.x; gi < sp.granules; gi += kThreads) {
    float v[4];
    load_granule(x, k0 - sp.s + 4 * (int64_t)gi, n_in, v);
    put_granule<W>(xs, 4 * gi - sp.s, sp.s, v);
  }
}

/* stage_input in two halves, so that a tile's loads are in flight while the
 * block computes the one before: load_input fills this thread's G
 * granules' registers (G * kThreads granules must cover the span),
 * put_input writes them to xs. */
template <int G>
__device__ __forceinline__ void load_input(float (&v)[G][4], const float *x, int64_t k0, int count,
                                           int64_t n_in) {
  const tile_span sp = span_of(x, k0, count);
#pragma unroll
  for (int g = 0; g < G; g++) {
    const int gi = threadIdx.x + g * kThreads;
    if (gi < sp.granules) load_granule(x, k0 - sp.s + 4 * (int64_t)gi, n_in, v[g]);
  }
}

template <int W, int G>
__device__ __forceinline__ void put_input(float *xs, const float (&v)[G][4], const float *x,
                                          int64_t k0, int count) {
  const tile_span sp = span_of(x, k0, count);
#pragma unroll
  for (int g = 0; g < G; g++) {
    const int gi = threadIdx.x + g * kThreads;
    if (gi < sp.granules) put_granule<W>(xs, 4 * gi - sp.s, sp.s, v[g]);
  }
}

/* Tile `tile`'s channel (row, or complex row pair) c and first output k0,
 * T outputs a tile. */
template <int T>
__device__ __forceinline__ void tile_origin(const direct_args &a, int64_t tile, int64_t &c,
                                            int64_t &k0) {
  c = tile / a.tiles_per_channel;
  k0 = (tile - c * a.tiles_per_channel) * T;
}

/* A filter's M reversed taps (16-byte aligned, zero-padded to a multiple
 * of 4) into registers. */
template <int M> __device__ __forceinline__ void load_taps(float (&g)[M], const float *taps) {
  const float4 *tp = reinterpret_cast<const float4 *>(taps);
#pragma unroll
  for (int q = 0; q < (M + 3) / 4; q++) {
    const float4 v = __ldg(tp + q);
    if (4 * q + 0 < M) g[4 * q + 0] = v.x;
    if (4 * q + 1 < M) g[4 * q + 1] = v.y;
    if (4 * q + 2 < M) g[4 * q + 2] = v.z;
    if (4 * q + 3 < M) g[4 * q + 3] = v.w;
  }
}

/* g holds the taps of channel c's filter: loaded again only when that
 * filter differs from `loaded` (the filter g holds, -1 for none), which a
 * block's threads see alike. */
template <int M>
__device__ __forceinline__ void taps_of_channel(float (&g)[M], const direct_args &a, int64_t c,
                                                int32_t &loaded) {
  const int32_t f = a.filter_of[c];
  if (f != loaded) {
    load_taps(g, a.taps + f * a.taps_stride);
    loaded = f;
  }
}

/* The taps a register kernel sums with: the launch's parameters
 * (PARAM: every row uses one filter), else g, the channel's taps in
 * registers. */
template <bool PARAM, int M>
__device__ __forceinline__ const auto &taps_source(const direct_args &a, const float (&g)[M]) {
  if constexpr (PARAM)
    return a.param_taps;
  else
    return g;
}

/* acc[r] = the sum over taps i of g[i] * w[S + r + i], 0 <= r < R, as the
 * fused multiply-add chain in ascending i from 0 (the order every real
 * kernel keeps, so their bits agree), from a window in registers that
 * starts S values in. */
template <int M, int R, int S, int N, int NG>
__device__ __forceinline__ void sum_registers(const float (&w)[N], const float (&g)[NG],
                                              float (&acc)[R]) {
  static_assert(S + R + M - 1 <= N, "the window holds every input");
  static_assert(M <= NG, "g holds every tap");
#pragma unroll
  for (int r = 0; r < R; r++) acc[r] = 0.0f;
#pragma unroll
  for (int j = 0; j < R + M - 1; j++) {
#pragma unroll
    for (int r = 0; r < R; r++) {
      const int i = j - r; /* tap index, ascending for each r */
      if (i >= 0 && i < M) acc[r] = __fmaf_rn(g[i], w[S + j], acc[r]);
    }
  }
}

/* sum_registers' sums from x, 16-byte aligned shared memory holding R + M
 * - 1 values (read up to the next multiple of 4), each read just before the
 * multiply-adds that take it (hoisting the reads to a register window first
 * ran 2% slower at 32 taps, H200). */
template <int M, int R, int NG>
__device__ __forceinline__ void sum_window(const float *x, const float (&g)[NG], float (&acc)[R]) {
  static_assert(M <= NG, "g holds every tap");
  constexpr int Q = (R + M - 1 + 3) / 4; /* 16-byte reads */
#pragma unroll
  for (int r = 0; r < R; r++) acc[r] = 0.0f;
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const float4 v = *reinterpret_cast<const float4 *>(x + 4 * q);
    const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int u = 0; u < 4; u++) {
#pragma unroll
      for (int r = 0; r < R; r++) {
        const int i = 4 * q + u - r; /* tap index, ascending for each r */
        if (i >= 0 && i < M) acc[r] = __fmaf_rn(g[i], e[u], acc[r]);
      }
    }
  }
}

/* Writes this thread's R outputs (starting at tile position t*R) of a tile
 * of T outputs starting at k0. When STAGED, xs (>= T floats) is reused: the
 * caller must have synchronised after its last read of xs, and must
 * synchronise before writing xs again. */
template <int R, int T, bool STAGED>
__device__ __forceinline__ void store_outputs(float *xs, const float (&acc)[R], float *y,
                                              int64_t k0, int64_t n_out) {
  const int t = threadIdx.x;
  if (STAGED) {
#pragma unroll
    for (int q = 0; q < R / 4; q++)
      *reinterpret_cast<float4 *>(xs + t * R + 4 * q) =
          make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    __syncthreads();
    const int64_t left = n_out - k0;
    const int count = left < T ? (int)left : T;
    if (count == T && (reinterpret_cast<uintptr_t>(y + k0) & 15) == 0) {
      for (int p = t; p < T / 4; p += kThreads)
        __stcs(reinterpret_cast<float4 *>(y + k0) + p, reinterpret_cast<const float4 *>(xs)[p]);
    } else {
      for (int p = t; p < count; p += kThreads) y[k0 + p] = xs[p];
    }
  } else {
    const int64_t kb = k0 + (int64_t)t * R;
    if (kb + R <= n_out && (reinterpret_cast<uintptr_t>(y + kb) & 15) == 0) {
#pragma unroll
      for (int q = 0; q < R / 4; q++)
        __stcs(reinterpret_cast<float4 *>(y + kb) + q,
               make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
    } else {
#pragma unroll
      for (int r = 0; r < R; r++)
        if (kb + r < n_out) y[kb + r] = acc[r];
    }
  }
}

/* ------------------------------------------------------------- complex */

/* One complex tap into a complex accumulator, in the documented order. */
__device__ __forceinline__ void cx_fma(float gr, float gi, float xr, float xi, float &ar,
                                       float &ai) {
  ar = __fmaf_rn(gr, xr, ar);
  ar = __fmaf_rn(-gi, xi, ar);
  ai = __fmaf_rn(gr, xi, ai);
  ai = __fmaf_rn(gi, xr, ai);
}

using kernel_fn = void (*)(direct_args);

/* Complex taps in registers up to this many; the shared-memory kernel sums
 * in blocks of kCxTapBlock taps (block sums added in order). */
constexpr int kCxRegMaxTaps = 32;
constexpr int kCxTapBlock = 1024;
constexpr int kCxOutputs = 8; /* complex outputs per thread, both kernels */

/* The complex kernel for taps_len taps: the register kernel for taps_len <=
 * kCxRegMaxTaps unless shared_taps, else the shared-memory one. Taps are
 * [filters][2][taps_stride], reversed: the real row then the imaginary row;
 * with param the register kernel reads them from param_taps instead. */
kernel_fn cx_kernel(int64_t taps_len, bool shared_taps, bool param);

/* The register kernel on one complex channel's interleaved (re, im) frames
 * (in and out hold frames, n_in and n_out count them; tiles of kThreads *
 * kCxOutputs frames), the same sums as cx_kernel's on the row pair; NULL
 * past kCxRegMaxTaps. */
kernel_fn cx_frames_kernel(int64_t taps_len, bool param);

/* ------------------------------------------------------------- interleaved */

/* The register kernel on C interleaved channels (gpu_conv_direct_il.cu):
 * in and out hold whole frames of `channels` floats (in_stride and
 * out_stride unused), n_in and n_out count frames, tiles is the number of
 * il_frames_per_tile() frame tiles, filter_of maps each channel. NULL where
 * taps_len > kIlMaxTaps or channels is not 2, 4 or 8. With param the taps
 * are read from param_taps. */
constexpr int kIlMaxTaps = 32;
kernel_fn il_kernel(int64_t taps_len, int32_t channels, bool param);
int64_t il_frames_per_tile(int32_t channels);

/* ------------------------------------------------------------- strided */

/* Strided runs (gpu_decim_direct.cu) compute only outputs first + f * step,
 * 0 <= f < count, of each row (complex: row pair), as the polyphase sum:
 * taps are taken in blocks of mb; within a block, tap u = q * step + p
 * (phase p, column q) meets input column f + q of phase row p, so each
 * phase is an ordinary convolution at the output rate, run with the
 * full-rate kernels' register windows. A tile is `tile` consecutive f of
 * one channel: its warps split into `groups` of outputs (256 each,
 * kStridedOutputs per thread) times `slices` of the phases, whose partial
 * sums are added in slice order at the end. */
struct strided_args {
  const float *in;
  int64_t in_stride;
  int64_t n_in; /* valid input frames per row: first + (count - 1) * step + taps_len */
  float *out;
  int64_t out_stride;
  int64_t first;
  int64_t count;
  int32_t step;   /* 1 .. kMaxStep */
  int32_t tile;   /* outputs per tile: 256 * groups */
  int32_t groups; /* 8 / slices */
  int32_t slices; /* 1, 2, 4 or 8, at most min(step, mb) */
  int32_t mb;     /* taps per block */
  int32_t rows;   /* phase rows a pass stages: min(step, mb), or fewer (a multiple of slices);
                   * at most kThreads */
  int32_t qb;     /* columns of taps per phase row: ceil(mb / step) rounded up to 4 */
  int32_t pitch;  /* floats per staged input row: tile + qb + 8 .. + 36, a multiple of 4 */
  int32_t row_sc; /* kThreads / rows: the columns a round of the staging takes */
  int64_t tiles_per_channel;
  int64_t tiles;     /* channels * tiles_per_channel */
  const float *taps; /* as direct_args */
  int64_t taps_stride;
  const int32_t *filter_of;
  int64_t taps_len;
};

using strided_fn = void (*)(strided_args);

constexpr int kMaxStep = GPU_CONV_MAX_STEP;
constexpr int kStridedOutputs = 8; /* consecutive outputs per thread */

/* The strided kernel for real (cx false) or complex filters, for a plan
 * whose tap blocks take their phase rows in several passes or in one. */
strided_fn strided_kernel(bool cx, bool passes);

/* Whether a planned launch's tap blocks take several passes. */
bool strided_passes(const strided_args *a);

/* Dynamic shared memory a strided launch may take at most: the widest
 * plan takes 57936 bytes (test_strided_plan prints it). */
constexpr int kStridedSmemBytes = 96 * 1024;
/* Shared memory a pass of a strided launch stages at most, at the least
 * row pitch (the pitch that spreads the staging stores over the banks
 * takes up to 28 floats a row more): a tap block whose phase rows need
 * more takes them in passes of fewer rows (the sums stay the same). Four
 * blocks of 56 KiB fill an SM's 228 KiB. On an H200, against 96 KiB, 48
 * KiB ran 256 complex taps decimated by 64 and 4096 real taps by 64 in
 * 0.76 and 0.73 of the time; 56 KiB, in one pass, brought real 1024 taps
 * decimated by 40 to 43 from up to 1.55x a filter D times shorter to
 * under 1.5x, and 40 or 64 KiB lost elsewhere. */
constexpr int kStridedPassBytes = 56 * 1024;

/* Fills a's tile, groups, slices, mb, rows, qb, pitch and row_sc
 * for step and a.taps_len (they depend on nothing else, so neither do the
 * sums; the passes, rows, change no sum), and returns the dynamic shared
 * memory the launch needs, at most kStridedSmemBytes (0 when step is out
 * of range or there are no taps). */
size_t strided_plan(int32_t step, bool cx, strided_args *a);

} // namespace gcd

#endif /* CONVOY_GPU_CONV_DIRECT_CUH */
