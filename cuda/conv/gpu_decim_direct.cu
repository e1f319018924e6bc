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
 * c step + p], and its taps as hs[p][q] (in passes of fewer phase rows where
 * all of them would not fit); then each phase row is an ordinary
 * convolution at the output rate, computed with the full-rate kernel's
 * sliding register window (two 16-byte reads of x and two of taps per 8 x 8
 * multiply-adds), kStridedOutputs consecutive outputs per thread. With one
 * block of taps in one pass, the taps stay staged from tile to tile while
 * the filter does not change.
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
#include "gpu_decim_stage.cuh"
#include <climits>

namespace gcd {
namespace {

constexpr int R = kStridedOutputs;
constexpr int C = 8; /* taps per register chunk */
static_assert(R == C, "the register window slides by one chunk");

/* Taps of phase p in a block of mb = q * step + r taps: q + 1 below phase
 * r, q from there. */
__device__ __forceinline__ int phase_taps(int q, int r, int p) {
  return q + (p < r ? 1 : 0);
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

/* acc[r] += sum_q h[q] xw[r + q], q < n, in ascending q. The last n mod 8
 * taps take their window from two more 16-byte reads too (the staged row
 * holds 8 columns past the taps for it). */
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
  const int i0 = chunks * C, rest = n - i0;
  if (rest > 0) {
    load8(w + R, xw + i0 + R);
#pragma unroll
    for (int u = 0; u < C - 1; u++) {
      if (u < rest) {
        const float g = h[i0 + u];
#pragma unroll
        for (int r = 0; r < R; r++) acc[r] = __fmaf_rn(g, w[r + u], acc[r]);
      }
    }
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
  const int i0 = chunks * C, rest = n - i0;
  if (rest > 0) {
    load8(wr + R, xwr + i0 + R);
    load8(wi + R, xwi + i0 + R);
#pragma unroll
    for (int u = 0; u < C - 1; u++) {
      if (u < rest) {
        const float gr = hr[i0 + u], gi = hi[i0 + u];
#pragma unroll
        for (int r = 0; r < R; r++) cx_fma(gr, gi, wr[r + u], wi[r + u], ar[r], ai[r]);
      }
    }
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

/* The block's tiles, blockIdx.x + k * gridDim.x, as (channel, first
 * output); the division runs once and where a step crosses channels. */
struct tile_cursor {
  int64_t tile, channel, in_channel;
  __device__ __forceinline__ explicit tile_cursor(const strided_args &a)
      : tile(blockIdx.x), channel((int64_t)blockIdx.x / a.tiles_per_channel),
        in_channel((int64_t)blockIdx.x - channel * a.tiles_per_channel) {}
  __device__ __forceinline__ void next(const strided_args &a) {
    tile += gridDim.x;
    in_channel += gridDim.x;
    if (in_channel >= a.tiles_per_channel) {
      const int64_t k = in_channel / a.tiles_per_channel;
      channel += k;
      in_channel -= k * a.tiles_per_channel;
    }
  }
};

/* PASSES: a full tap block's phase rows take more than one pass. That
 * instance is held to 5 blocks an SM rather than 6 (48 registers, not 40,
 * at which it spilled): on an H200 real 1024 taps decimated by 25 to 31,
 * whose passes fit 5 or 6 blocks, ran 1.27-1.33x a filter D times shorter
 * with 48 registers and 1.35-1.45x with 40. */
template <bool PASSES>
__global__ void __launch_bounds__(kThreads, PASSES ? 5 : 6) strided_real(strided_args a) {
  extern __shared__ __align__(16) float smem[];
  float *xs = smem;
  float *hs = smem + a.rows * a.pitch;
  const int warp = threadIdx.x / 32, step = a.step;
  const int slice = warp / a.groups;
  const int o = (warp % a.groups) * 256 + (threadIdx.x % 32) * R; /* first output in the tile */
  const int rows_start = walk::packed_start(a.rows, (int)threadIdx.x);
  const int cols = a.tile + a.qb + 8; /* the window reads up to here */
  int32_t staged_filter = -1;

  for (tile_cursor t(a); t.tile < a.tiles; t.next(a)) {
    const int64_t c = t.channel, f0 = t.in_channel * a.tile;
    const int32_t filter = a.filter_of[c];
    const float *h = a.taps + filter * a.taps_stride;
    const float *x = a.in + c * a.in_stride;
    float acc[R];
#pragma unroll
    for (int r = 0; r < R; r++) acc[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += a.mb) {
      const int mb = (int)(a.taps_len - j0 < a.mb ? a.taps_len - j0 : a.mb);
      const int rows = mb < step ? mb : step, mq = mb / step, mr = mb - mq * step;
      const int64_t base = a.first + f0 * step + j0;
      const int pass_rows = PASSES ? a.rows : rows;
      for (int p0 = 0; p0 < rows; p0 += pass_rows) {
        const int pr = rows - p0 < pass_rows ? rows - p0 : pass_rows;
        const walk w =
            pr == a.rows ? walk::packed(rows_start, a.row_sc) : walk(pr, (int)threadIdx.x);
        if (PASSES || a.taps_len > a.mb || filter != staged_filter) {
          stage_rows(hs, h + j0 + p0, 0, mq + (mr > 0), step, a.qb, mb - p0, w);
          staged_filter = filter;
        }
        stage_rows(xs, x, base + p0, cols, step, a.pitch, a.n_in, w);
        __syncthreads();
        for (int p = p0 + slice; p < p0 + pr; p += a.slices)
          phase_real(acc, xs + (p - p0) * a.pitch + o, hs + (p - p0) * a.qb, phase_taps(mq, mr, p));
        __syncthreads();
      }
    }
    store8(xs + slice * a.tile + o, acc);
    __syncthreads();
    reduce_store(a.out + c * a.out_stride + f0, xs, a.tile, a.slices, a.count - f0);
    __syncthreads();
  }
}

/* PASSES: a full tap block's phase rows take more than one pass. */
template <bool PASSES> __global__ void __launch_bounds__(kThreads, 4) strided_cx(strided_args a) {
  extern __shared__ __align__(16) float smem[];
  float *xr = smem;
  float *xi = xr + a.rows * a.pitch;
  float *hr = xi + a.rows * a.pitch;
  float *hi = hr + a.rows * a.qb;
  const int warp = threadIdx.x / 32, step = a.step;
  const int slice = warp / a.groups;
  const int o = (warp % a.groups) * 256 + (threadIdx.x % 32) * R;
  const int rows_start = walk::packed_start(a.rows, (int)threadIdx.x);
  const int cols = a.tile + a.qb + 8;
  int32_t staged_filter = -1;

  for (tile_cursor t(a); t.tile < a.tiles; t.next(a)) {
    const int64_t c = t.channel, f0 = t.in_channel * a.tile;
    const int32_t filter = a.filter_of[c];
    const float *h_re = a.taps + 2 * filter * a.taps_stride;
    const float *h_im = h_re + a.taps_stride;
    const float *x_re = a.in + 2 * c * a.in_stride;
    const float *x_im = x_re + a.in_stride;
    float ar[R], ai[R];
#pragma unroll
    for (int r = 0; r < R; r++) ar[r] = ai[r] = 0.0f;

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += a.mb) {
      const int mb = (int)(a.taps_len - j0 < a.mb ? a.taps_len - j0 : a.mb);
      const int rows = mb < step ? mb : step, mq = mb / step, mr = mb - mq * step;
      const int64_t base = a.first + f0 * step + j0;
      const int pass_rows = PASSES ? a.rows : rows;
      for (int p0 = 0; p0 < rows; p0 += pass_rows) {
        const int pr = rows - p0 < pass_rows ? rows - p0 : pass_rows;
        const walk w =
            pr == a.rows ? walk::packed(rows_start, a.row_sc) : walk(pr, (int)threadIdx.x);
        if (PASSES || a.taps_len > a.mb || filter != staged_filter) {
          stage_rows(hr, h_re + j0 + p0, 0, mq + (mr > 0), step, a.qb, mb - p0, w);
          stage_rows(hi, h_im + j0 + p0, 0, mq + (mr > 0), step, a.qb, mb - p0, w);
          staged_filter = filter;
        }
        stage_rows(xr, x_re, base + p0, cols, step, a.pitch, a.n_in, w);
        stage_rows(xi, x_im, base + p0, cols, step, a.pitch, a.n_in, w);
        __syncthreads();
        for (int p = p0 + slice; p < p0 + pr; p += a.slices)
          phase_cx(ar, ai, xr + (p - p0) * a.pitch + o, xi + (p - p0) * a.pitch + o,
                   hr + (p - p0) * a.qb, hi + (p - p0) * a.qb, phase_taps(mq, mr, p));
        __syncthreads();
      }
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

/* Rows a pass of a block's `rows` phase rows stages: all of them where
 * they fit kStridedPassBytes, else as few passes as fit it, of rows as
 * even as a multiple of slices allows (the block's shared memory is its
 * largest pass: 32 + 32 rows ran 256 and 1024 real taps decimated by 64
 * in 0.85 and 0.86 of the time 40 + 24 took, on an H200). Each slice
 * still takes its phases in ascending order, so the sums are the same. */
int64_t pass_rows(int64_t rows, int64_t row_bytes, int32_t slices) {
  if (rows * row_bytes <= kStridedPassBytes) return rows;
  int64_t most = kStridedPassBytes / row_bytes / slices * slices;
  if (most < slices) most = slices;
  const int64_t passes = (rows + most - 1) / most;
  return ((rows + passes - 1) / passes + slices - 1) / slices * slices;
}

/* Shared-memory wavefronts the staging stores of `rows` phase rows take
 * at this pitch in one round of stage_rows' walk (every round shifts all
 * columns by the same cs, so the banks meet as in the first): thread t of
 * walk(rows, t) stores to p0 * pitch + c0, and a warp takes as many
 * wavefronts as its busiest bank has stores. */
int staging_wavefronts(int32_t rows, int32_t pitch) {
  int total = 0;
  for (int t0 = 0; t0 < kThreads; t0 += 32) {
    int per_bank[32] = {0}, most = 0;
    for (int t = t0; t < t0 + 32; t++) {
      const walk w(rows, t);
      if (w.c0 == walk::kIdle) continue;
      const int bank = (w.p0 * pitch + w.c0) % 32;
      if (++per_bank[bank] > most) most = per_bank[bank];
    }
    total += most;
  }
  return total;
}

} // namespace

strided_fn strided_kernel(bool cx, bool passes) {
  if (cx) return passes ? &strided_cx<true> : &strided_cx<false>;
  return passes ? &strided_real<true> : &strided_real<false>;
}

bool strided_passes(const strided_args *a) {
  return a->rows < (a->mb < a->step ? a->mb : a->step);
}

size_t strided_plan(int32_t step, bool cx, strided_args *a) {
  if (step < 1 || step > kMaxStep || a->taps_len < 1) return 0;
  const int64_t phases = a->taps_len < step ? a->taps_len : step;
  /* Tap blocks of at most 256 taps a phase, whatever shared memory the
   * rows take, since the passes below hold any of them: each block
   * restages the tile's input, so fewer blocks cost less (real 1024 taps
   * decimated by 2 took 1.9x a 512-tap filter's time over the same input
   * in blocks of 64 a phase, 1.3x in blocks of 256; 4096 real taps
   * decimated by 64 ran 1.33x faster in one block than in two, on an
   * H200). */
  const int64_t mb = a->taps_len < (int64_t)256 * step ? a->taps_len : (int64_t)256 * step;
  const int64_t rows = mb < step ? mb : step;
  const int32_t qb = round4((mb + step - 1) / step);
  /* Each slice adds a partial sum to reduce and narrows the tile, so the
   * qb + 8 columns a row stages past the tile weigh more: slices of at
   * least 4 phases each, and no more than leave those columns at most a
   * quarter of the tile. Real 256 taps decimated by 8 ran in 0.73 of the
   * time with 2 slices that they took with 8, and 4096 taps decimated by
   * 64 in 0.89 with 4, on an H200. */
  int32_t slices = 8;
  while (slices > 1 && ((int64_t)slices * 4 > phases || (int64_t)(qb + 8) * 4 > 256 * (8 / slices)))
    slices /= 2;
  const int32_t groups = 8 / slices, tile = 256 * groups;
  a->step = step;
  a->tile = tile;
  a->groups = groups;
  a->slices = slices;
  a->mb = (int32_t)mb;
  a->qb = qb;
  /* The passes are planned at the least pitch (a multiple of 4 for the
   * windows' 16-byte reads); the pitch is then the first of the eight from
   * there, one per bank offset mod 32, whose staging stores conflict
   * least, at up to 28 floats a row more: a pitch of 16 mod 32 put a
   * warp's 32 stores of 32 rows on 2 banks. The pitch changes no sum. */
  const int64_t column_bytes = (int64_t)sizeof(float) * (cx ? 2 : 1);
  const int32_t least_pitch = round4(tile + qb + 8);
  const int64_t pass = pass_rows(rows, column_bytes * (least_pitch + qb), slices);
  int32_t pitch = least_pitch;
  int fewest = INT_MAX;
  for (int32_t p = least_pitch; p < least_pitch + 32; p += 4) {
    const int wavefronts = staging_wavefronts((int32_t)pass, p);
    if (wavefronts < fewest) {
      fewest = wavefronts;
      pitch = p;
    }
  }
  a->pitch = pitch;
  a->rows = (int32_t)pass;
  a->row_sc = kThreads / a->rows;
  /* the slices' partial sums reuse the input rows: slices * tile <= rows * pitch */
  return (size_t)(pass * column_bytes * (pitch + qb));
}

} // namespace gcd
