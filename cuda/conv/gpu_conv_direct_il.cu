/*
 * gpu_conv_direct_il.cu - the direct register kernel on interleaved frames.
 *
 * direct_il<M, C> reads frames of C interleaved float32 channels and writes
 * them interleaved, so that a caller's interleaved buffers need no
 * conversion pass before or after. A block's tile is F consecutive frames of
 * all C channels: loaded with 16-byte coalesced loads and spread into one
 * shared-memory row per channel; each thread sums R consecutive outputs of
 * one channel with the taps in registers, in direct_reg's order (so the bits
 * are the planar kernel's); the block gathers the tile back to interleaved
 * order through shared memory and writes it with 16-byte stores. Row pitches
 * are chosen so that the spread and the gather are free of bank conflicts
 * for C = 8 (WC = 4 mod 8, WF = 32 / C mod 32).
 */
#include "gpu_conv_direct.cuh"

#include <array>
#include <utility>

namespace {

using namespace gcd;

constexpr int R = 8; /* consecutive outputs per thread, of one channel */

template <int M, int C, bool PARAM>
__global__ void __launch_bounds__(kThreads) direct_il(const __grid_constant__ direct_args a) {
  constexpr int TPC = kThreads / C; /* threads per channel */
  constexpr int F = TPC * R;        /* frames per tile */
  constexpr int Q = (R + M - 1 + 3) / 4;
  constexpr int W0 = F - R + 4 * Q; /* >= F + M - 1, a multiple of 4 */
  constexpr int WC = W0 % 8 == 4 ? W0 : W0 + 4;
  constexpr int WF = F + 32 / C;
  constexpr int N_IN = (F + M - 1) * C; /* floats a tile reads */
  constexpr int SHARED = C * (WC > WF ? WC : WF);
  __shared__ __align__(16) float xs[SHARED];
  const int t = threadIdx.x, c = t / TPC, lt = t - c * TPC;
  float g[M];
  if (!PARAM) {
    const float *tp = a.taps + a.filter_of[c] * a.taps_stride;
#pragma unroll
    for (int i = 0; i < M; i++) g[i] = __ldg(tp + i);
  }
  const int64_t in_floats = a.n_in * C, out_floats = a.n_out * C;

  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    const int64_t q0 = tile * F * C; /* the tile's first float */
    const tile_span sp = span_of(a.in, q0, N_IN);
    for (int gi = t; gi < sp.granules; gi += kThreads) {
      float v[4];
      load_granule(a.in, q0 - sp.s + 4 * (int64_t)gi, in_floats, v);
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const int q = 4 * gi - sp.s + u;
        if (q >= 0 && q < N_IN) xs[(q % C) * WC + q / C] = v[u];
      }
    }
    __syncthreads();

    float acc[R];
    sum_window<M, R>(xs + c * WC + lt * R, taps_source<PARAM>(a, g), acc);
    __syncthreads();
    /* Planar rows of pitch WF, gathered below in interleaved order. */
#pragma unroll
    for (int q = 0; q < R / 4; q++)
      *reinterpret_cast<float4 *>(xs + c * WF + lt * R + 4 * q) =
          make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    __syncthreads();
    const int64_t left = out_floats - q0;
    const int count = left < F * C ? (int)left : F * C;
    float *y = a.out + q0;
    if (count == F * C && (reinterpret_cast<uintptr_t>(y) & 15) == 0) {
      for (int p = t; p < F * C / 4; p += kThreads) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
          const int o = 4 * p + u;
          v[u] = xs[(o % C) * WF + o / C];
        }
        __stcs(reinterpret_cast<float4 *>(y) + p, make_float4(v[0], v[1], v[2], v[3]));
      }
    } else {
      for (int o = t; o < count; o += kThreads) y[o] = xs[(o % C) * WF + o / C];
    }
    __syncthreads();
  }
}

template <int C, bool PARAM, int... I>
constexpr std::array<kernel_fn, sizeof...(I)> il_table(std::integer_sequence<int, I...>) {
  return {{&direct_il<I + 1, C, PARAM>...}};
}
using il_taps = std::make_integer_sequence<int, kIlMaxTaps>;
/* [taps in the parameters][2, 4 or 8 channels][taps - 1] */
const std::array<kernel_fn, kIlMaxTaps> kIl[2][3] = {
    {il_table<2, false>(il_taps{}), il_table<4, false>(il_taps{}), il_table<8, false>(il_taps{})},
    {il_table<2, true>(il_taps{}), il_table<4, true>(il_taps{}), il_table<8, true>(il_taps{})}};

} // namespace

namespace gcd {

kernel_fn il_kernel(int64_t taps_len, int32_t channels, bool param) {
  if (taps_len < 1 || taps_len > kIlMaxTaps) return nullptr;
  const size_t i = (size_t)(taps_len - 1);
  switch (channels) {
  case 2:
    return kIl[param][0][i];
  case 4:
    return kIl[param][1][i];
  case 8:
    return kIl[param][2][i];
  default:
    return nullptr;
  }
}

int64_t il_frames_per_tile(int32_t channels) {
  return (int64_t)(kThreads / channels) * R;
}

} // namespace gcd
