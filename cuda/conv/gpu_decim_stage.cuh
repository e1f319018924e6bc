/*
 * gpu_decim_stage.cuh - how the strided (decimating) kernels of
 * gpu_decim_direct.cu stage a tile's phase rows in shared memory:
 * xs[p * pitch + c] = x[base + c * step + p]. Host and device code, so
 * that test_strided_plan runs the staging of every thread of a block on
 * the host and checks that each place is written once, with its sample.
 */
#ifndef CONVOY_GPU_DECIM_STAGE_CUH
#define CONVOY_GPU_DECIM_STAGE_CUH

#include "gpu_conv_direct.cuh"
#include "gpu_host_device.cuh"

#include <climits>
#include <stdint.h>

namespace gcd {

/* A staging pass of m phase rows (m <= kThreads): thread t < m * cs, cs =
 * kThreads / m, stages row p0 = t mod m from column c0 = t / m on, every
 * cs-th column; the other threads (fewer than m) stage nothing (c0 =
 * kIdle). Each thread keeps its row, so its input offset and its place in
 * shared memory advance by constants. For the launch's phase rows the
 * start is computed once and kept packed (p0 + c0 * 2^16: one register
 * across the tiles) and cs comes with the arguments, so a tile's staging
 * divides by nothing. */
struct walk {
  static constexpr int kIdle = 0x7fff; /* past any row's columns */
  int p0, c0, cs;
  GPU_HD walk(int m, int t) : cs(kThreads / m) {
    const int packed = packed_start(m, t);
    p0 = packed & 0xffff;
    c0 = packed >> 16;
  }
  walk() = default;
  GPU_HD static walk packed(int start, int cs) {
    walk w;
    w.p0 = start & 0xffff;
    w.c0 = start >> 16;
    w.cs = cs;
    return w;
  }
  GPU_HD static int packed_start(int m, int t) {
    const int c = t / m;
    return (t - c * m) + ((c < kThreads / m ? c : kIdle) << 16);
  }
};

/* Floats a staging thread has in flight: each round loads them all before
 * storing any, so their latencies overlap. */
constexpr int kStageInFlight = 4;

/* dst[k * cs] = src[k * d_off] for the k with c + k * cs < cols, zero where
 * CHECKED and k * d_off >= left. */
template <bool CHECKED>
GPU_HD void stage_columns(float *dst, const float *src, int c, int cols, int cs, int d_off,
                          int left) {
  constexpr int U = kStageInFlight;
  for (int off = 0; c < cols; c += U * cs, off += U * d_off, dst += U * cs) {
    float v[U];
    GPU_UNROLL
    for (int u = 0; u < U; u++)
      v[u] = c + u * cs < cols && (!CHECKED || off + u * d_off < left)
                 ? GPU_LDG(src + off + u * d_off)
                 : 0.0f;
    GPU_UNROLL
    for (int u = 0; u < U; u++)
      if (c + u * cs < cols) dst[u * cs] = v[u];
  }
}

/* xs[p * pitch + c] = x[base + c * step + p] for p < rows, c < cols, zero at
 * or past n_in (base >= 0), the part of thread t of walk(rows, t). Stages
 * the phase rows of the input and, with base 0, of the taps. Consecutive
 * threads take consecutive p, so the reads of a warp are contiguous when
 * rows is the step. Offsets within a tile fit in 32 bits: (cols + 1) *
 * step < 2^31. */
GPU_HD void stage_rows(float *xs, const float *x, int64_t base, int cols, int step, int pitch,
                       int64_t n_in, const walk &w) {
  if (w.c0 >= cols) return;
  const int first = w.c0 * step + w.p0;
  const float *src = x + base + first;
  float *dst = xs + w.p0 * pitch + w.c0;
  const int64_t left = n_in - base - first;
  if (left >= (int64_t)cols * step) /* all of this thread's inputs are in */
    stage_columns<false>(dst, src, w.c0, cols, w.cs, w.cs * step, 0);
  else
    stage_columns<true>(dst, src, w.c0, cols, w.cs, w.cs * step,
                        left <= 0        ? 0
                        : left < INT_MAX ? (int)left
                                         : INT_MAX);
}

} // namespace gcd

#endif
