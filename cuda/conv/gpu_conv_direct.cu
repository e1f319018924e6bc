/*
 * gpu_conv_direct.cu - direct-form convolution kernels.
 *
 * The kernels give each block a tile of T consecutive outputs of one channel
 * (a persistent grid walks the tiles) and each thread R consecutive outputs
 * of it. direct_reg and direct_smem stage the tile's T + taps - 1 inputs in
 * shared memory with 16-byte coalesced loads and read them back 16 bytes at
 * a time; direct_ldg reads each thread's window from the signal itself.
 *
 *   direct_ldg<M, R, PARAM>   M = 1..32 (the default where it measured
 *                             faster): each thread's R + M - 1 inputs straight
 *                             into registers in 16-byte loads, which
 *                             neighbouring threads share in L1; no shared
 *                             memory, no barrier.
 *   direct_reg<M, R, STAGED, PARAM>  M = 1..64, every loop unrolled at
 *                             compile time; each thread loads its part of
 *                             the next tile's input into registers before
 *                             summing the current tile (up to 32 taps
 *                             unless PARAM), so the loads are in flight
 *                             during the sums.
 *   direct_smem<STAGED>       any tap count: taps staged through shared memory
 *                             2048 at a time, 8 taps per register chunk.
 *
 * The register kernels hold the taps in registers, or with PARAM (every row
 * uses one filter) read them from the launch's parameters, where each
 * multiply-add takes its tap as a constant operand: no registers, no loads.
 *
 * Every output is the fused multiply-add chain acc = fma(h_rev[i], x[k+i], acc)
 * for i = 0, 1, ... from acc = 0, per block of 2048 taps, block sums added in
 * order. The order never depends on where the output sits, so results are
 * bitwise independent of tiling and call splits, and the kernels agree.
 * STAGED stores pass the outputs through shared memory so that each warp
 * writes whole contiguous 512-byte runs; otherwise each thread writes its own
 * R outputs with 16-byte stores.
 */
#include "gpu_conv_internal.cuh"
#include "gpu_conv_direct.cuh"
#include "gpu_device.cuh"

#include <array>
#include <new>
#include <utility>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

using namespace gcd;

constexpr int kDefaultOutputs = 8;
/* Measured on an H200 at 16 taps: 8 outputs per thread with per-thread
 * 16-byte stores reach 74% of the copy rate; staged stores 65%, 4 or 16
 * outputs per thread 45-59%. */
constexpr bool kDefaultStaged = false;
constexpr int kRegMaxTaps = 64;

/* Shared-memory-taps kernel: outputs per thread, taps per register chunk,
 * taps per shared-memory block. */
constexpr int kSmOutputs = 8;
constexpr int kSmChunk = 8;
constexpr int kSmTapBlock = 2048; /* the real kernels sum taps in blocks this long */

/* The register kernel reading each thread's window straight from the
 * signal (direct_ldg) exists up to kStraightMaxTaps taps and is the
 * default at the tap counts of kStraightTaps (bit m - 1), where it ran
 * faster than the staged tile (gpu_kernels_bench 28 7 windows, H200, GS/s,
 * staged / straight). With the taps in registers, in both of two runs: 16
 * taps 438 / 473, 18 taps 463-464 / 469-470, 20 taps 424-426 / 443-445, 24
 * taps 408 / 411-413; elsewhere the staged tile led, 1 to 14 taps by 1-7%
 * (500 / 475 at 1 tap), 15, 19, 23, 27 and 31 taps by 18-49%, 32 taps 357 /
 * 342. With the taps in the parameters (kStraightParamTaps): 18 to 26 taps
 * by 4-7% (18: 443 / 472, 22: 432 / 457, 26: 415 / 437), 16 and 17 even
 * (477 / 476-477); the staged tile led at 1 to 15 taps (1 tap 500 / 391),
 * 27 and 29 to 32 taps by 2-16%, 28 taps 407 / 411. */
constexpr int kStraightMaxTaps = 32;
constexpr uint32_t kStraightTaps = 1u << 15 | 1u << 17 | 1u << 19 | 1u << 23;
constexpr uint32_t kStraightParamTaps = 1u << 15 | 0x1FFu << 17; /* 16, 18 .. 26 */

bool straight_by_default(int64_t m, bool param) {
  return m >= 1 && m <= kStraightMaxTaps &&
         (((param ? kStraightParamTaps : kStraightTaps) >> (m - 1)) & 1u);
}

/* Prefetching the next tile costs 4 * G registers: with the taps in
 * registers, below 33 taps the kernel still fits 64 registers with it (7
 * blocks of 256 threads per SM at 16 taps); at 64 taps it rose from 64 to
 * 79 and ran 4% slower (H200). With the taps in the parameters it always
 * fits: 64 taps ran 284 GS/s with it, 253 without. */
constexpr int kPrefetchMaxTaps = 32;

template <int M, int R, bool STAGED, bool PARAM>
__global__ void __launch_bounds__(kThreads) direct_reg(const __grid_constant__ direct_args a) {
  constexpr bool PREFETCH = PARAM || M <= kPrefetchMaxTaps;
  constexpr int T = kThreads * R;
  constexpr int Q = (R + M - 1 + 3) / 4; /* 16-byte reads per thread */
  constexpr int W = T - R + 4 * Q;       /* >= T + M - 1 rounded up to 4, and >= T */
  constexpr int G = ((T + M - 1 + 6) / 4 + kThreads - 1) / kThreads; /* granules per thread */
  __shared__ __align__(16) float xs[W];
  float g[M];
  float next[G][4]; /* the next tile's input, loaded while this one is computed */
  int32_t loaded = -1;
  const int t = threadIdx.x;
  /* A tile's channel and first output. */
  const auto origin = [&](int64_t tile, int64_t &c, int64_t &k0) {
    tile_origin<T>(a, tile, c, k0);
  };

  if (PREFETCH && blockIdx.x < a.tiles) {
    int64_t c, k0;
    origin(blockIdx.x, c, k0);
    load_input<G>(next, a.in + c * a.in_stride, k0, T + M - 1, a.n_in);
  }
  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t c, k0;
    origin(tile, c, k0);
    if (!PARAM) taps_of_channel(g, a, c, loaded);
    if (PREFETCH)
      put_input<W, G>(xs, next, a.in + c * a.in_stride, k0, T + M - 1);
    else
      stage_input<W>(xs, a.in + c * a.in_stride, k0, T + M - 1, a.n_in);
    __syncthreads();
    if (PREFETCH && tile + gridDim.x < a.tiles) {
      int64_t cn, kn;
      origin(tile + gridDim.x, cn, kn);
      load_input<G>(next, a.in + cn * a.in_stride, kn, T + M - 1, a.n_in);
    }

    float acc[R];
    sum_window<M, R>(xs + t * R, taps_source<PARAM>(a, g), acc);
    if (STAGED) __syncthreads();
    store_outputs<R, T, STAGED>(xs, acc, a.out + c * a.out_stride, k0, a.n_out);
    __syncthreads();
  }
}

/* direct_reg without shared memory: each thread reads its own window of R
 * + M - 1 inputs from the signal, 16 bytes at a time through L1, where
 * neighbouring threads' windows overlap; no tile is staged and no barrier
 * crossed. A row's windows all start at the row's offset S past a 16-byte
 * boundary (tiles and windows start at multiples of 8 floats), one of four
 * instances of the sums. Same sums in the same order as direct_reg. */
template <int M, int R, bool PARAM>
__global__ void __launch_bounds__(kThreads) direct_ldg(const __grid_constant__ direct_args a) {
  static_assert(R % 4 == 0, "windows start 16-byte granules apart");
  constexpr int T = kThreads * R;
  constexpr int Q = (3 + R + M - 1 + 3) / 4; /* granules covering a window at any offset */
  float g[M];
  int32_t loaded = -1;
  const int t = threadIdx.x;
  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t c, k0;
    tile_origin<T>(a, tile, c, k0);
    if (!PARAM) taps_of_channel(g, a, c, loaded);
    const float *x = a.in + c * a.in_stride;
    const int64_t kb = k0 + (int64_t)t * R;
    if (kb >= a.n_out) continue;
    const int s = (int)((reinterpret_cast<uintptr_t>(x + kb) >> 2) & 3);
    float w[4 * Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
      float v[4];
      load_granule(x, kb - s + 4 * q, a.n_in, v);
#pragma unroll
      for (int u = 0; u < 4; u++) w[4 * q + u] = v[u];
    }
    float acc[R];
    const auto &taps = taps_source<PARAM>(a, g);
    switch (s) {
    case 0:
      sum_registers<M, R, 0>(w, taps, acc);
      break;
    case 1:
      sum_registers<M, R, 1>(w, taps, acc);
      break;
    case 2:
      sum_registers<M, R, 2>(w, taps, acc);
      break;
    default:
      sum_registers<M, R, 3>(w, taps, acc);
      break;
    }
    store_outputs<R, T, false>(nullptr, acc, a.out + c * a.out_stride, k0, a.n_out);
  }
}

template <bool STAGED> __global__ void __launch_bounds__(kThreads) direct_smem(direct_args a) {
  constexpr int R = kSmOutputs;
  constexpr int C = kSmChunk;
  static_assert(R == C, "the register window slides by one chunk");
  constexpr int T = kThreads * R;
  constexpr int W = T + kSmTapBlock + 4;
  __shared__ __align__(16) float xs[W];
  __shared__ __align__(16) float gs[kSmTapBlock];
  const int t = threadIdx.x;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t c, k0;
    tile_origin<T>(a, tile, c, k0);
    const float *tp = a.taps + a.filter_of[c] * a.taps_stride;
    const float *x = a.in + c * a.in_stride;
    float total[R];

    for (int64_t j0 = 0; j0 < a.taps_len; j0 += kSmTapBlock) {
      const int mb = (int)(a.taps_len - j0 < kSmTapBlock ? a.taps_len - j0 : kSmTapBlock);
      const float4 *tq = reinterpret_cast<const float4 *>(tp + j0);
      for (int i = t; i < (mb + 3) / 4; i += kThreads)
        reinterpret_cast<float4 *>(gs)[i] = __ldg(tq + i);
      stage_input<W>(xs, x, k0 + j0, T + mb - 1, a.n_in);
      __syncthreads();

      float acc[R];
#pragma unroll
      for (int r = 0; r < R; r++) acc[r] = 0.0f;
      const float *xw = xs + t * R;
      float w[R + C];
      {
        const float4 w0 = *reinterpret_cast<const float4 *>(xw);
        const float4 w1 = *reinterpret_cast<const float4 *>(xw + 4);
        w[0] = w0.x, w[1] = w0.y, w[2] = w0.z, w[3] = w0.w;
        w[4] = w1.x, w[5] = w1.y, w[6] = w1.z, w[7] = w1.w;
      }
      const int chunks = mb / C;
      for (int ci = 0; ci < chunks; ci++) {
        const int i0 = ci * C;
        const float4 w2 = *reinterpret_cast<const float4 *>(xw + i0 + R);
        const float4 w3 = *reinterpret_cast<const float4 *>(xw + i0 + R + 4);
        w[8] = w2.x, w[9] = w2.y, w[10] = w2.z, w[11] = w2.w;
        w[12] = w3.x, w[13] = w3.y, w[14] = w3.z, w[15] = w3.w;
        const float4 g0 = *reinterpret_cast<const float4 *>(gs + i0);
        const float4 g1 = *reinterpret_cast<const float4 *>(gs + i0 + 4);
        const float gc[C] = {g0.x, g0.y, g0.z, g0.w, g1.x, g1.y, g1.z, g1.w};
#pragma unroll
        for (int u = 0; u < C; u++) {
#pragma unroll
          for (int r = 0; r < R; r++) acc[r] = __fmaf_rn(gc[u], w[r + u], acc[r]);
        }
#pragma unroll
        for (int r = 0; r < R; r++) w[r] = w[r + C];
      }
      for (int i = chunks * C; i < mb; i++) {
        const float gv = gs[i];
#pragma unroll
        for (int r = 0; r < R; r++) acc[r] = __fmaf_rn(gv, xw[r + i], acc[r]);
      }
#pragma unroll
      for (int r = 0; r < R; r++) total[r] = j0 == 0 ? acc[r] : total[r] + acc[r];
      __syncthreads();
    }
    store_outputs<R, T, STAGED>(xs, total, a.out + c * a.out_stride, k0, a.n_out);
    __syncthreads();
  }
}

template <bool PARAM, int... I>
constexpr std::array<kernel_fn, sizeof...(I)> reg_table(std::integer_sequence<int, I...>) {
  return {{&direct_reg<I + 1, kDefaultOutputs, kDefaultStaged, PARAM>...}};
}
template <bool PARAM, int... I>
constexpr std::array<kernel_fn, sizeof...(I)> straight_table(std::integer_sequence<int, I...>) {
  return {{&direct_ldg<I + 1, kDefaultOutputs, PARAM>...}};
}
using reg_taps = std::make_integer_sequence<int, kRegMaxTaps>;
using straight_taps = std::make_integer_sequence<int, kStraightMaxTaps>;
/* [taps in the parameters][taps - 1] */
const std::array<kernel_fn, kRegMaxTaps> kRegKernels[2] = {reg_table<false>(reg_taps{}),
                                                           reg_table<true>(reg_taps{})};
const std::array<kernel_fn, kStraightMaxTaps> kStraightKernels[2] = {
    straight_table<false>(straight_taps{}), straight_table<true>(straight_taps{})};

/* Whether kernel is the straight-window kernel for m taps. */
bool reads_straight(kernel_fn kernel, int64_t m) {
  return m >= 1 && m <= kStraightMaxTaps &&
         (kernel == kStraightKernels[0][(size_t)(m - 1)] ||
          kernel == kStraightKernels[1][(size_t)(m - 1)]);
}

/* The benchmark's alternatives for the model cases of 16 and 64 taps. */
kernel_fn reg_variant(int64_t m, int outputs, bool staged, bool param) {
  if (m == 64 && !staged) {
    switch (outputs) {
    case 4:
      return param ? &direct_reg<64, 4, false, true> : &direct_reg<64, 4, false, false>;
    case 8:
      return param ? &direct_reg<64, 8, false, true> : &direct_reg<64, 8, false, false>;
    case 16:
      return param ? &direct_reg<64, 16, false, true> : &direct_reg<64, 16, false, false>;
    default:
      return nullptr;
    }
  }
  if (m != 16) return nullptr;
  switch (outputs) {
  case 4:
    return staged ? &direct_reg<16, 4, true, false> : &direct_reg<16, 4, false, false>;
  case 8:
    return staged ? &direct_reg<16, 8, true, false> : &direct_reg<16, 8, false, false>;
  case 16:
    return staged ? &direct_reg<16, 16, true, false> : &direct_reg<16, 16, false, false>;
  default:
    return nullptr;
  }
}

} // namespace

struct gc_direct {
  int64_t taps_len;
  int32_t channels; /* rows */
  bool cx;          /* complex taps: tiles per (real, imaginary) row pair */
  float *d_taps;    /* reversed, padded ([filters][2][taps_stride] when cx) */
  int64_t taps_stride;
  int32_t *d_filter_of;
  kernel_fn kernel;
  int outputs_per_thread;
  bool staged;
  bool shared_taps;
  int64_t max_blocks;  /* resident blocks on the whole device */
  kernel_fn il_kernel; /* interleaved frames (NULL: none for this shape) */
  int64_t il_tile;     /* its frames a tile */
  int64_t il_blocks;   /* its resident blocks on the whole device */
  int32_t sms;         /* multiprocessors, for the strided launches' grid */
  /* The strided launch for the step the engine was made for (the config's
   * decimation), worked out once: its tile shape, shared memory and grid. */
  int64_t planned_step; /* 0: none */
  strided_args planned;
  size_t planned_smem;
  int64_t planned_blocks;
  float param_taps[kParamTaps]; /* reversed, zero-padded: every launch's param_taps */
};

/* Blocks of kThreads threads of kernel, with smem bytes of dynamic shared
 * memory, that the whole device holds at once (at least one an SM): the
 * grid of a persistent launch. */
static convoy_status resident_blocks(const void *kernel, size_t smem, int32_t sms, int64_t *blocks,
                                     char *err, size_t err_size) {
  int per_sm = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem),
          "gpu_conv: direct kernel occupancy");
  *blocks = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
  return CONVOY_OK;
}

/* The tile shape, shared memory and most resident blocks of a strided run
 * by step. */
static convoy_status strided_prepare(const gc_direct *d, int64_t step, strided_args *a,
                                     size_t *smem, int64_t *most, char *err, size_t err_size) {
  a->taps_len = d->taps_len;
  const bool in_range = step >= 1 && step <= kMaxStep;
  *smem = in_range ? strided_plan((int32_t)step, d->cx, a) : 0;
  if (*smem == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: step %lld out of range (1 .. %d)", (long long)step,
                               kMaxStep);
  return resident_blocks((const void *)strided_kernel(d->cx, strided_passes(a)), *smem, d->sms,
                         most, err, err_size);
}

double gc_direct_model_cost(const gc_device *dev, int64_t taps_len, int complex_taps) {
  /* The register kernel reaches about half the FMA peak, the shared-memory
   * one about a third; neither beats moving 8 bytes per output. A complex
   * output takes 4 FMAs per tap: 2 per row of its pair. */
  double eff = taps_len <= (complex_taps ? kCxRegMaxTaps : kRegMaxTaps) ? 0.5 : 0.33;
  double compute = (complex_taps ? 2.0 : 1.0) * (double)taps_len / (dev->fma_per_s * eff);
  double memory = 8.0 / dev->bytes_per_s;
  return compute > memory ? compute : memory;
}

convoy_status gc_direct_create(const gpu_conv_config *cfg, const gc_filters *filters,
                               const gc_device *dev, gc_direct **out, char *err, size_t err_size) {
  *out = NULL;
  const int64_t m = cfg->taps_len;
  const bool staged = cfg->direct_store ? cfg->direct_store == 2 : kDefaultStaged;
  const int outputs = cfg->direct_outputs ? cfg->direct_outputs : kDefaultOutputs;
  kernel_fn kernel = nullptr;
  bool straight = false;
  const bool cx = cfg->complex_taps != 0;
  bool shared_taps = cfg->direct_shared_taps != 0 || m > (cx ? kCxRegMaxTaps : kRegMaxTaps);
  /* One filter for every row: the register kernels take it from their
   * launch parameters. */
  const bool one_filter =
      filters->count == 1 && m <= (cx ? kParamTaps / 2 : kParamTaps) && !cfg->direct_reg_taps;
  if (cx) {
    if ((cfg->direct_outputs && cfg->direct_outputs != kCxOutputs) || cfg->direct_store == 2)
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "gpu_conv: the complex direct kernels compute %d outputs per "
                                 "thread with per-thread stores",
                                 kCxOutputs);
    kernel = cx_kernel(m, shared_taps, one_filter);
  } else if (shared_taps) {
    if (cfg->direct_outputs && cfg->direct_outputs != kSmOutputs)
      return convoy_error_format(
          err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
          "gpu_conv: the shared-memory-taps kernel computes %d outputs per thread", kSmOutputs);
    kernel = staged ? &direct_smem<true> : &direct_smem<false>;
  } else if (cfg->direct_input == 2 || (cfg->direct_input == 0 && !cfg->direct_outputs &&
                                        !cfg->direct_store && straight_by_default(m, one_filter))) {
    if (outputs == kDefaultOutputs && !staged && m <= kStraightMaxTaps)
      kernel = kStraightKernels[one_filter][(size_t)(m - 1)];
    straight = true;
  } else if ((m == 16 || m == 64) && (cfg->direct_outputs || cfg->direct_store)) {
    kernel = reg_variant(m, outputs, staged, one_filter);
  } else if (outputs == kDefaultOutputs && staged == kDefaultStaged) {
    kernel = kRegKernels[one_filter][(size_t)(m - 1)];
  }
  if (!kernel)
    return convoy_error_format(
        err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
        "gpu_conv: no direct kernel variant with %d outputs per thread%s%s for %lld taps", outputs,
        staged ? " (staged stores)" : "", straight ? " reading its windows straight" : "",
        (long long)m);

  gc_direct *d = (gc_direct *)calloc(1, sizeof *d);
  if (!d)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  *out = d;
  d->taps_len = m;
  d->channels = cfg->channels;
  d->cx = cx;
  d->kernel = kernel;
  d->outputs_per_thread = cx ? kCxOutputs : shared_taps ? kSmOutputs : outputs;
  d->staged = staged && !cx;
  d->shared_taps = shared_taps;
  d->taps_stride = (m + 3) / 4 * 4;

  /* Reversed taps, so that output k is the dot product with x[k .. k+m-1];
   * complex: the real row, then the imaginary row, of each filter. */
  const size_t rows = cx ? 2 : 1;
  size_t n_taps = (size_t)d->taps_stride * rows * (size_t)filters->count;
  float *host = (float *)calloc(n_taps, sizeof(float));
  if (!host)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  for (int32_t f = 0; f < filters->count; f++) {
    float *row = host + (size_t)f * rows * (size_t)d->taps_stride;
    for (int64_t i = 0; i < m; i++) row[i] = filters->taps[f][m - 1 - i];
    if (cx)
      for (int64_t i = 0; i < m; i++) row[d->taps_stride + i] = filters->taps_im[f][m - 1 - i];
    if (one_filter) {
      memcpy(d->param_taps, row, sizeof(float) * (size_t)m);
      if (cx)
        memcpy(d->param_taps + kParamTaps / 2, row + d->taps_stride, sizeof(float) * (size_t)m);
    }
  }
  cudaError_t e = cudaMalloc((void **)&d->d_taps, n_taps * sizeof(float));
  if (e == cudaSuccess)
    e = cudaMemcpy(d->d_taps, host, n_taps * sizeof(float), cudaMemcpyHostToDevice);
  free(host);
  GP_CUDA(e, "gpu_conv: direct taps to the device");
  const size_t mapped = (size_t)(cx ? cfg->channels / 2 : cfg->channels);
  GP_CUDA(cudaMalloc((void **)&d->d_filter_of, sizeof(int32_t) * mapped), "gpu_conv: channel map");
  GP_CUDA(cudaMemcpy(d->d_filter_of, filters->of_channel, sizeof(int32_t) * mapped,
                     cudaMemcpyHostToDevice),
          "gpu_conv: channel map to the device");

  convoy_status st =
      resident_blocks((const void *)kernel, 0, dev->sms, &d->max_blocks, err, err_size);
  /* The default register kernel's shapes (either way to their inputs: the
   * same sums) also run on interleaved frames. */
  if (!cx && !shared_taps &&
      (kernel == kRegKernels[one_filter][(size_t)(m - 1)] || reads_straight(kernel, m))) {
    d->il_kernel = il_kernel(m, cfg->channels, one_filter);
    d->il_tile = il_frames_per_tile(cfg->channels);
  } else if (cx && !shared_taps && cfg->channels == 2) {
    d->il_kernel = cx_frames_kernel(m, one_filter);
    d->il_tile = (int64_t)kThreads * kCxOutputs;
  }
  if (st == CONVOY_OK && d->il_kernel)
    st = resident_blocks((const void *)d->il_kernel, 0, dev->sms, &d->il_blocks, err, err_size);
  if (st != CONVOY_OK) return st;
  for (int passes = 0; passes <= 1; passes++)
    GP_CUDA(cudaFuncSetAttribute((const void *)strided_kernel(cx, passes),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, kStridedSmemBytes),
            "gpu_conv: strided kernel shared memory");
  d->sms = dev->sms;
  if (cfg->decimation > 1) {
    st = strided_prepare(d, cfg->decimation, &d->planned, &d->planned_smem, &d->planned_blocks, err,
                         err_size);
    if (st != CONVOY_OK) return st;
    d->planned_step = cfg->decimation;
  }
  return CONVOY_OK;
}

convoy_status gc_direct_run(gc_direct *d, const float *in, int64_t in_stride, float *out,
                            int64_t out_stride, int64_t n_out, cudaStream_t stream, char *err,
                            size_t err_size) {
  const int64_t tile = (int64_t)kThreads * d->outputs_per_thread;
  direct_args a;
  a.in = in;
  a.in_stride = in_stride;
  a.n_in = n_out + d->taps_len - 1;
  a.out = out;
  a.out_stride = out_stride;
  a.n_out = n_out;
  a.tiles_per_channel = (n_out + tile - 1) / tile;
  a.tiles = a.tiles_per_channel * (d->cx ? d->channels / 2 : d->channels);
  a.taps = d->d_taps;
  a.taps_stride = d->taps_stride;
  a.filter_of = d->d_filter_of;
  a.taps_len = d->taps_len;
  memcpy(a.param_taps, d->param_taps, sizeof a.param_taps);
  int64_t blocks = a.tiles < d->max_blocks ? a.tiles : d->max_blocks;
  void *args[] = {&a};
  GP_CUDA(cudaLaunchKernel((const void *)d->kernel, dim3((unsigned)blocks), dim3(kThreads), args, 0,
                           stream),
          "gpu_conv: direct kernel launch");
  return CONVOY_OK;
}

int gc_direct_interleaved(const gc_direct *d) {
  return d && d->il_kernel;
}

convoy_status gc_direct_run_interleaved(gc_direct *d, const float *in, float *out, int64_t n_out,
                                        cudaStream_t stream, char *err, size_t err_size) {
  if (!d->il_kernel)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no interleaved kernel for %d channels and %lld taps",
                               (int)d->channels, (long long)d->taps_len);
  const int64_t tile = d->il_tile;
  direct_args a;
  memset(&a, 0, sizeof a);
  a.in = in;
  a.n_in = n_out + d->taps_len - 1;
  a.out = out;
  a.n_out = n_out;
  a.tiles_per_channel = a.tiles = (n_out + tile - 1) / tile;
  a.taps = d->d_taps;
  a.taps_stride = d->taps_stride;
  a.filter_of = d->d_filter_of;
  a.taps_len = d->taps_len;
  memcpy(a.param_taps, d->param_taps, sizeof a.param_taps);
  const int64_t blocks = a.tiles < d->il_blocks ? a.tiles : d->il_blocks;
  void *args[] = {&a};
  GP_CUDA(cudaLaunchKernel((const void *)d->il_kernel, dim3((unsigned)blocks), dim3(kThreads), args,
                           0, stream),
          "gpu_conv: interleaved direct kernel launch");
  return CONVOY_OK;
}

convoy_status gc_direct_run_strided(gc_direct *d, const float *in, int64_t in_stride, int64_t first,
                                    int64_t step, float *out, int64_t out_stride, int64_t count,
                                    cudaStream_t stream, char *err, size_t err_size) {
  if (count <= 0) return CONVOY_OK;
  strided_args a = d->planned;
  size_t smem = d->planned_smem;
  int64_t most = d->planned_blocks;
  if (step != d->planned_step) {
    convoy_status st = strided_prepare(d, step, &a, &smem, &most, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  a.in = in;
  a.in_stride = in_stride;
  a.n_in = first + (count - 1) * step + d->taps_len;
  a.out = out;
  a.out_stride = out_stride;
  a.first = first;
  a.count = count;
  a.tiles_per_channel = (count + a.tile - 1) / a.tile;
  a.tiles = a.tiles_per_channel * (d->cx ? d->channels / 2 : d->channels);
  a.taps = d->d_taps;
  a.taps_stride = d->taps_stride;
  a.filter_of = d->d_filter_of;
  const int64_t blocks = a.tiles < most ? a.tiles : most;
  void *args[] = {&a};
  GP_CUDA(cudaLaunchKernel((const void *)strided_kernel(d->cx, strided_passes(&a)),
                           dim3((unsigned)blocks), dim3(kThreads), args, smem, stream),
          "gpu_conv: strided kernel launch");
  return CONVOY_OK;
}

void gc_direct_describe(const gc_direct *d, char *buf, size_t buf_size) {
  snprintf(buf, buf_size, "gpu-direct (%s%s taps, %d outputs/thread, %s, %s stores)",
           d->cx ? "complex " : "", d->shared_taps ? "shared-memory" : "register",
           d->outputs_per_thread,
           reads_straight(d->kernel, d->taps_len) ? "windows read straight" : "staged inputs",
           d->staged ? "staged" : "per-thread");
}

void gc_direct_destroy(gc_direct *d) {
  if (!d) return;
  cudaFree(d->d_taps);
  cudaFree(d->d_filter_of);
  (void)cudaGetLastError();
  free(d);
}
