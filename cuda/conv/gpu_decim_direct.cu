/*
 * gpu_decim_direct.cu - strided direct-form kernels: only the outputs a
 * decimating stream keeps, first + f * step (f = 0 .. count - 1), so the
 * work is proportional to the output rate.
 *
 * Output f is sum_i h[i] x[first + f step + i] (h the reversed taps). The
 * taps are taken in blocks of mb; within a block starting at tap j0, tap
 * j0 + q step + p (phase p < step, column q) meets x[base + (f + q) step +
 * p], base = first + f0 step + j0 for the tile starting at f0. The block
 * stages its input span in shared memory as phase rows, xs[p][c] = x[base +
 * c step + p], and its taps as hs[p][q]; then each phase row is an ordinary
 * convolution at the output rate, computed with the full-rate kernel's
 * sliding register window (two 16-byte reads of x and two of taps per 8 x 8
 * multiply-adds), kStridedOutputs consecutive outputs per thread.
 *
 * A tile of 256 x groups outputs keeps all eight warps busy however few
 * outputs a launch has: warp w computes output group w mod groups over the
 * phases p = s, s + slices, ... of slice s = w / groups, and the slices'
 * partial sums meet in shared memory, added in slice order. Each output is
 * thus a fixed sum of fused multiply-add chains in the order (slice; tap
 * block, phase, column) that depends on the taps and the step only, so
 * outputs are bitwise independent of tiling, of `first` and of call splits.
 */
#include "gpu_conv_direct.cuh"

namespace gcd {
namespace {

constexpr int R = kStridedOutputs;
constexpr int C = 8; /* taps per register chunk */
static_assert(R == C, "the register window slides by one chunk");

/* xs[p * pitch + c] = x[base + c * step + p] for p < rows, c < cols, zero at
 * or past n_in (base >= 0). Consecutive threads take consecutive p, so the
 * reads of a warp are contiguous when rows >= 32. */
__device__ __forceinline__ void stage_rows(float *xs, const float *x, int64_t base, int rows,
                                           int cols, int step, int pitch, int64_t n_in) {
  const int total = rows * cols;
  int p = threadIdx.x % rows, c = threadIdx.x / rows;
  const int sp = kThreads % rows, sc = kThreads / rows;
  for (int k = threadIdx.x; k < total; k += kThreads) {
    const int64_t g = base + (int64_t)c * step + p;
    xs[p * pitch + c] = g < n_in ? __ldg(x + g) : 0.0f;
    p += sp;
    c += sc;
    if (p >= rows) {
      p -= rows;
      c++;
    }
  }
}

/* hs[p * qb + q] = h[j0 + q * step + p] for the mb taps of the block. */
__device__ __forceinline__ void stage_taps(float *hs, const float *h, int64_t j0, int mb, int step,
                                           int qb) {
  for (int u = threadIdx.x; u < mb; u += kThreads)
    hs[(u % step) * qb + u / step] = __ldg(h + j0 + u);
}

/* Taps of phase p in a block of mb taps. */
__device__ __forceinline__ int phase_taps(int mb, int p, int step) {
  return (mb - p + step - 1) / step;
}

/* w[0 .. 7] = src[0 .. 7], src in shared memory, 16-byte aligned. Volatile
 * loads: left to itself the compiler re-reads the window from shared memory
 * at every use in the complex kernel (48 registers instead of about 100),
 * and those scalar reads of a warp conflict 8 ways. */
__device__ __forceinline__ void load8(float *w, const float *src) {
  const unsigned at = (unsigned)__cvta_generic_to_shared(src);
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(w[0]), "=f"(w[1]), "=f"(w[2]), "=f"(w[3])
               : "r"(at)
               : "memory");
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(w[4]), "=f"(w[5]), "=f"(w[6]), "=f"(w[7])
               : "r"(at + 16)
               : "memory");
}

/* acc[r] += sum_q h[q] xw[r + q], q < n, in ascending q. */
__device__ __forceinline__ void phase_real(float (&acc)[R], const float *xw, const float *h,
                                           int n) {
  float w[R + C];
  load8(w, xw);
  const int chunks = n / C;
  for (int ci = 0; ci < chunks; ci++) {
    const int i0 = ci * C;
    load8(w + R, xw + i0 + R);
    float g[C];
    load8(g, h + i0);
#pragma unroll
    for (int u = 0; u < C; u++)
#pragma unroll
      for (int r = 0; r < R; r++) acc[r] = __fmaf_rn(g[u], w[r + u], acc[r]);
#pragma unroll
    for (int r = 0; r < R; r++) w[r] = w[r + C];
  }
  for (int i = chunks * C; i < n; i++) {
    const float g = h[i];
#pragma unroll
    for (int r = 0; r < R; r++) acc[r] = __fmaf_rn(g, xw[r + i], acc[r]);
  }
}

/* The complex form of phase_real. */
__device__ __forceinline__ void phase_cx(float (&ar)[R], float (&ai)[R], const float *xwr,
                                         const float *xwi, const float *hr, const float *hi,
                                         int n) {
  float wr[R + C], wi[R + C];
  load8(wr, xwr);
  load8(wi, xwi);
  const int chunks = n / C;
  for (int ci = 0; ci < chunks; ci++) {
    const int i0 = ci * C;
    load8(wr + R, xwr + i0 + R);
    load8(wi + R, xwi + i0 + R);
    float gr[C], gi[C];
    load8(gr, hr + i0);
    load8(gi, hi + i0);
#pragma unroll
    for (int u = 0; u < C; u++)
#pragma unroll
      for (int r = 0; r < R; r++) cx_fma(gr[u], gi[u], wr[r + u], wi[r + u], ar[r], ai[r]);
#pragma unroll
    for (int r = 0; r < R; r++) {
      wr[r] = wr[r + C];
      wi[r] = wi[r + C];
    }
  }
  for (int i = chunks * C; i < n; i++) {
#pragma unroll
    for (int r = 0; r < R; r++) cx_fma(hr[i], hi[i], xwr[r + i], xwi[r + i], ar[r], ai[r]);
  }
}

/* Each thread's kStridedOutputs partial sums of its slice into red[slice *
 * tile + o .. + 7] (16-byte stores). */
__device__ __forceinline__ void store8(float *red, const float (&v)[R]) {
  *reinterpret_cast<float4 *>(red) = make_float4(v[0], v[1], v[2], v[3]);
  *reinterpret_cast<float4 *>(red + 4) = make_float4(v[4], v[5], v[6], v[7]);
}

/* y[i] = sum over slices of red[s * tile + i], in slice order, for the
 * tile's outputs below `left`; coalesced stores. */
__device__ __forceinline__ void reduce_store(float *y, const float *red, int tile, int slices,
                                             int64_t left) {
  for (int i = threadIdx.x; i < tile && i < left; i += kThreads) {
    float v = red[i];
    for (int sl = 1; sl < slices; sl++) v += red[sl * tile + i];
    y[i] = v;
  }
}

__global__ void __launch_bounds__(kThreads) strided_real(strided_args a) {
  extern __shared__ __align__(16) float smem[];
  float *xs = smem;
  float *hs = smem + a.rows * a.pitch;
  const int warp = threadIdx.x / 32, step = a.step;
  const int slice = warp / a.groups;
  const int o = (warp % a.groups) * 256 + (threadIdx.x % 32) * R; /* first output in the tile */
  const int cols = a.tile + a.qb + 8;                             /* the window reads up to here */

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    const int64_t c = tile / a.tiles_per_channel;
    const int64_t f0 = (tile - c * a.tiles_per_channel) * a.tile;
    const float *h = a.taps + a.filter_of[c] * a.taps_stride;
    const float *x = a.in + c * a.in_stride;
    float acc[R];
#pragma unroll
    for (int r = 0; r < R; r++) acc[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += a.mb) {
      const int mb = (int)(a.taps_len - j0 < a.mb ? a.taps_len - j0 : a.mb);
      const int rows = mb < step ? mb : step;
      stage_taps(hs, h, j0, mb, step, a.qb);
      stage_rows(xs, x, a.first + f0 * step + j0, rows, cols, step, a.pitch, a.n_in);
      __syncthreads();
      for (int p = slice; p < rows; p += a.slices)
        phase_real(acc, xs + p * a.pitch + o, hs + p * a.qb, phase_taps(mb, p, step));
      __syncthreads();
    }
    store8(xs + slice * a.tile + o, acc);
    __syncthreads();
    reduce_store(a.out + c * a.out_stride + f0, xs, a.tile, a.slices, a.count - f0);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kThreads) strided_cx(strided_args a) {
  extern __shared__ __align__(16) float smem[];
  float *xr = smem;
  float *xi = xr + a.rows * a.pitch;
  float *hr = xi + a.rows * a.pitch;
  float *hi = hr + a.rows * a.qb;
  const int warp = threadIdx.x / 32, step = a.step;
  const int slice = warp / a.groups;
  const int o = (warp % a.groups) * 256 + (threadIdx.x % 32) * R;
  const int cols = a.tile + a.qb + 8;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    const int64_t c = tile / a.tiles_per_channel;
    const int64_t f0 = (tile - c * a.tiles_per_channel) * a.tile;
    const float *h_re = a.taps + 2 * a.filter_of[c] * a.taps_stride;
    const float *h_im = h_re + a.taps_stride;
    const float *x_re = a.in + 2 * c * a.in_stride;
    const float *x_im = x_re + a.in_stride;
    float ar[R], ai[R];
#pragma unroll
    for (int r = 0; r < R; r++) ar[r] = ai[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += a.mb) {
      const int mb = (int)(a.taps_len - j0 < a.mb ? a.taps_len - j0 : a.mb);
      const int rows = mb < step ? mb : step;
      const int64_t base = a.first + f0 * step + j0;
      stage_taps(hr, h_re, j0, mb, step, a.qb);
      stage_taps(hi, h_im, j0, mb, step, a.qb);
      stage_rows(xr, x_re, base, rows, cols, step, a.pitch, a.n_in);
      stage_rows(xi, x_im, base, rows, cols, step, a.pitch, a.n_in);
      __syncthreads();
      for (int p = slice; p < rows; p += a.slices)
        phase_cx(ar, ai, xr + p * a.pitch + o, xi + p * a.pitch + o, hr + p * a.qb, hi + p * a.qb,
                 phase_taps(mb, p, step));
      __syncthreads();
    }
    store8(xr + slice * a.tile + o, ar);
    store8(xi + slice * a.tile + o, ai);
    __syncthreads();
    float *y_re = a.out + 2 * c * a.out_stride + f0;
    reduce_store(y_re, xr, a.tile, a.slices, a.count - f0);
    reduce_store(y_re + a.out_stride, xi, a.tile, a.slices, a.count - f0);
    __syncthreads();
  }
}

int32_t round4(int64_t n) {
  return (int32_t)((n + 3) & ~(int64_t)3);
}

} // namespace

strided_fn strided_kernel(bool cx) {
  return cx ? &strided_cx : &strided_real;
}

size_t strided_plan(int32_t step, bool cx, int32_t budget_bytes, strided_args *a) {
  if (step < 1 || step > kMaxStep || a->taps_len < 1) return 0;
  const int64_t budget = budget_bytes / (int64_t)sizeof(float) / (cx ? 2 : 1);
  const int64_t phases = a->taps_len < step ? a->taps_len : step;
  const int32_t slices = phases >= 8 ? 8 : phases >= 4 ? 4 : phases >= 2 ? 2 : 1;
  const int32_t groups = 8 / slices, tile = 256 * groups;
  /* The largest tap block, at most 256 taps a phase, whose staging fits
   * (each block restages the tile's input, so fewer blocks cost less: 64 a
   * phase left real 1024 taps decimated by 2 at 1.9x the cost of a 512-tap
   * filter over the same input, 256 brought it to 1.3x on an H200):
   * rows * (pitch + qb) <= budget with pitch <= tile + qb + 8 + 3 + 4. */
  int64_t mb = a->taps_len < (int64_t)256 * step ? a->taps_len : (int64_t)256 * step;
  for (;;) {
    const int64_t rows = mb < step ? mb : step;
    const int64_t qb = round4((mb + step - 1) / step);
    if (rows * (tile + 2 * qb + 15) <= budget) break;
    if (mb <= slices) return 0;
    mb = (mb + 1) / 2 > slices ? (mb + 1) / 2 : slices;
  }
  const int64_t rows = mb < step ? mb : step;
  a->step = step;
  a->tile = tile;
  a->groups = groups;
  a->slices = slices;
  a->mb = (int32_t)mb;
  a->rows = (int32_t)rows;
  a->qb = round4((mb + step - 1) / step);
  int32_t pitch = round4(tile + a->qb + 8);
  if (pitch % 32 == 0) pitch += 4; /* the staging stores of a warp spread over banks */
  a->pitch = pitch;
  /* the slices' partial sums reuse the input rows: slices * tile <= rows * pitch */
  return sizeof(float) * (size_t)(cx ? 2 : 1) * (size_t)rows * (size_t)(pitch + a->qb);
}

} // namespace gcd
