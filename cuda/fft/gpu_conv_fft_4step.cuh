/*
 * gpu_conv_fft_4step.cuh - overlap-save at FFT sizes too large for one
 * thread block (N = 2^17 .. 2^22): the arithmetic of the four-step FFT
 * engine (cuda/fft/gpu_conv_fft_4step.cu), three kernels per batch of segments.
 *
 * As in the fused engine (gpu_conv_fft_fused.cuh), a segment of N real inputs
 * is taken as M = N/2 complex points z[n] = x[2n] + i x[2n+1]; both
 * transforms are forward DFTs of size M = M1 M2 (the second on the
 * conjugated spectrum), each split four-step fashion:
 *
 *   Z[k2 + M2 k1] = sum_n1 W_M1^(n1 k1) W_M^(n1 k2) sum_n2 W_M2^(n2 k2) z[n1 + M1 n2]
 *   U[j1 + M1 j2] = sum_k2 W_M2^(j2 k2) W_M^(j1 k2) sum_k1 W_M1^(j1 k1) u[k2 + M2 k1]
 *
 *   columns   (kernel 1) a block takes 16 columns n1 of the signal itself
 *             (zeros past the segment's inputs), DFTs them over n2, twiddles
 *             by W_M^(n1 k2) and writes row k2 of the segment's scratch;
 *   rows      (kernel 2) a block takes rows k2 and M2 - k2 (rows 0 and M2/2
 *             together), DFTs them over n1, forms the product with the
 *             filter's half spectrum through the real-FFT split (bins k and
 *             M - k lie in those two rows), DFTs the conjugated result over
 *             k1, twiddles by W_M^(j1 k2) and writes the rows back;
 *   outputs   (kernel 3) a block takes 16 columns j1, DFTs them over k2 and
 *             writes y[2n] = Re, y[2n+1] = -Im (n = j1 + M1 j2) where they
 *             are valid outputs.
 *
 * The signal, the outputs and the scratch (M complex values per segment)
 * each cross device memory once per kernel. The filter's half spectrum is
 * stored in row order (hp[k2 M1 + k1] = H[k2 + M2 k1], hp[M] = H[M]) and
 * scaled by 1/(2N); W_N^e comes from two tables (wide[e >> 6] * fine[e & 63]).
 */
#ifndef CONVOY_GPU_CONV_FFT_4STEP_CUH
#define CONVOY_GPU_CONV_FFT_4STEP_CUH

#include "gpu_conv_fft_fused.cuh"

namespace gf {

/* The shapes of one instance: M/2 = M1 M2 = 2^LM1 2^LM2 points, 2^LE1 a
 * thread in a row, 2^LE2 in a column; the kernels' block sizes and shared
 * memory. */
template <int LM1, int LM2, int LE1, int LE2> struct four_shape {
  using SR = shape<LM1, LE1, true>;  /* a row: M1 points */
  using SC = shape<LM2, LE2, false>; /* a column: M2 points */
  static constexpr int col_threads = 16 * SC::T, row_threads = 2 * SR::T;
  static constexpr size_t col_smem = sizeof(float2) * 16 * (size_t)SC::buf_elems;
  static constexpr size_t row_smem = sizeof(float2) * 2 * (size_t)SR::buf_elems;
  static constexpr int64_t m = (int64_t)1 << (LM1 + LM2);
};

/* Thread t of a block that runs F FFTs of shape S: INTERLEAVED puts
 * consecutive threads on consecutive FFTs (for column tiles), otherwise each
 * FFT has a contiguous range of threads. */
template <class S, int F, bool INTERLEAVED> struct bmap {
  static constexpr int threads = F * S::T;
  static GPU_HDC int fft(int t) { return INTERLEAVED ? t % F : t / S::T; }
  static GPU_HDC int lane(int t) { return INTERLEAVED ? t / F : t % S::T; }
};

/* batch_passes' load of pass P from the block's buffers in shared memory. */
template <class S, class L, int P> GPU_HD auto smem_points(float2 *buf) {
  return
      [buf](int t, float2 *v) { load_smem<S, P>(L::lane(t), v, buf + L::fft(t) * S::buf_elems); };
}

/* Forward FFTs of every buffer of the block from pass P on: load(t, v) puts
 * thread t's points of pass P in v (from shared memory, or for pass 0 from
 * device memory, which saves staging them in shared memory first); the last
 * pass hands each thread's values to fin(t, v) instead of storing them. */
template <class S, class L, int P, class Ex, class Load, class Fin>
GPU_HD void batch_passes(Ex &ex, float2 *buf, const float2 *tw, Load &load, Fin &fin) {
  ex.phase([&](int t, float2 *v) { load(t, v); });
  if constexpr (P + 1 < S::passes) {
    ex.sync();
    ex.phase([&](int t, float2 *v) {
      butterflies<S, P>(L::lane(t), v, tw);
      store_smem<S, P>(L::lane(t), v, buf + L::fft(t) * S::buf_elems);
    });
    ex.sync();
    auto from_smem = smem_points<S, L, P + 1>(buf);
    batch_passes<S, L, P + 1>(ex, buf, tw, from_smem, fin);
  } else {
    ex.phase([&](int t, float2 *v) {
      butterflies<S, P>(L::lane(t), v, tw);
      fin(t, v);
    });
  }
}

/* W_N^e for 0 <= e < N from the two tables. */
GPU_HD float2 wide_twiddle(const float2 *wide, const float2 *fine, int e) {
  return cmul(GPU_LDG(wide + (e >> 6)), GPU_LDG(fine + (e & 63)));
}

struct four_tables {
  const float2 *tw_rows; /* W_(2 M1)^i, 0 <= i < M1 */
  const float2 *tw_cols; /* W_(2 M2)^i, 0 <= i < M2 */
  const float2 *wide;    /* W_N^(64 a), 0 <= a < N/64 */
  const float2 *fine;    /* W_N^b, 0 <= b < 64 */
};

/* Kernel 1: columns n1_0 .. n1_0 + 15 of a segment. SC: shape of M2. */
template <class SC, int LOG2M1, class Ex>
GPU_HD void columns_block(Ex &ex, float2 *buf, int n1_0, const float *src, int left,
                          bool in_aligned8, float2 *scratch, const four_tables &tb) {
  using L = bmap<SC, 16, true>;
  constexpr int M1 = 1 << LOG2M1;
  auto load = [&](int t, float2 *v) {
    const int j = L::fft(t);
    each_point<SC, 0>(L::lane(t), [&](int n2, int k) {
      const int i = 2 * (n1_0 + j + (n2 << LOG2M1));
      if (in_aligned8 && i + 2 <= left) {
        v[k] = GPU_LDG(reinterpret_cast<const float2 *>(src + i));
      } else {
        v[k].x = i < left ? GPU_LDG(src + i) : 0.0f;
        v[k].y = i + 1 < left ? GPU_LDG(src + i + 1) : 0.0f;
      }
    });
  };
  auto fin = [&](int t, float2 *v) {
    const int n1 = n1_0 + L::fft(t);
    each_point<SC, SC::passes - 1>(L::lane(t), [&](int k2, int k) {
      /* W_M^(n1 k2) = W_N^(2 n1 k2); n1 k2 < M */
      const float2 w = wide_twiddle(tb.wide, tb.fine, 2 * n1 * k2);
      scratch[k2 * M1 + n1] = cmul(v[k], w);
    });
  };
  batch_passes<SC, L, 0>(ex, buf, tb.tw_cols, load, fin);
}

/* Kernel 2: rows ra and rb (b = 0: rows 0 and M2/2, else b and M2 - b).
 * SR: shape of M1. hp: the filter's half spectrum in row order. */
template <class SR, int LOG2M2, class Ex>
GPU_HD void rows_block(Ex &ex, float2 *buf, int b, float2 *scratch, const float2 *hp,
                       const four_tables &tb) {
  using L = bmap<SR, 2, false>;
  constexpr int M1 = SR::M, M2 = 1 << LOG2M2, M = M1 * M2;
  const int ra = b == 0 ? 0 : b, rb = b == 0 ? M2 / 2 : M2 - b;
  float2 *bufa = buf, *bufb = buf + SR::buf_elems;
  auto load = [&](int t, float2 *v) {
    const float2 *row = scratch + (L::fft(t) ? rb : ra) * M1;
    each_point<SR, 0>(L::lane(t), [&](int k1, int k) { v[k] = row[k1]; });
  };
  auto to_smem = [&](int t, float2 *v) {
    constexpr int P = SR::passes - 1;
    store_smem<SR, P>(L::lane(t), v, buf + L::fft(t) * SR::buf_elems);
  };
  batch_passes<SR, L, 0>(ex, buf, tb.tw_rows, load, to_smem);
  ex.sync();
  /* Bin k = row + M2 k1 pairs with M - k: for b > 0, row ra position k1 with
   * row rb position M1-1-k1; row 0 position k1 with row 0 position M1-k1
   * (k1 = 0 pairs bins 0 and M); row M2/2 position k1 with M1-1-k1. */
  ex.phase([&](int t, float2 *) {
    const int items = b == 0 ? M1 + 1 : M1;
    for (int it = t; it < items; it += L::threads) {
      float2 ok, om;
      if (b != 0) {
        const int k1 = it, k1m = M1 - 1 - k1;
        const int k = ra + M2 * k1;
        split_pair(bufa[SR::at(k1)], bufb[SR::at(k1m)], wide_twiddle(tb.wide, tb.fine, k),
                   GPU_LDG(hp + ra * M1 + k1), GPU_LDG(hp + rb * M1 + k1m), &ok, &om);
        bufa[SR::at(k1)] = ok;
        bufb[SR::at(k1m)] = om;
      } else if (it <= M1 / 2) { /* row 0 */
        const int k1 = it;
        if (k1 == 0) {
          bufa[SR::at(0)] = split_dc(bufa[SR::at(0)], hp, M);
        } else {
          const int k1m = M1 - k1;
          split_pair(bufa[SR::at(k1)], bufa[SR::at(k1m)], wide_twiddle(tb.wide, tb.fine, M2 * k1),
                     GPU_LDG(hp + k1), GPU_LDG(hp + k1m), &ok, &om);
          bufa[SR::at(k1)] = ok;
          if (k1m != k1) bufa[SR::at(k1m)] = om;
        }
      } else { /* row M2/2: it = M1/2 + 1 + k1, 0 <= k1 < M1/2 */
        const int k1 = it - (M1 / 2 + 1), k1m = M1 - 1 - k1;
        const int k = M2 / 2 + M2 * k1;
        split_pair(bufb[SR::at(k1)], bufb[SR::at(k1m)], wide_twiddle(tb.wide, tb.fine, k),
                   GPU_LDG(hp + rb * M1 + k1), GPU_LDG(hp + rb * M1 + k1m), &ok, &om);
        bufb[SR::at(k1)] = ok;
        bufb[SR::at(k1m)] = om;
      }
    }
  });
  ex.sync();
  auto fin = [&](int t, float2 *v) {
    const int row = L::fft(t) ? rb : ra;
    each_point<SR, SR::passes - 1>(L::lane(t), [&](int j1, int k) {
      const float2 w = wide_twiddle(tb.wide, tb.fine, 2 * j1 * row); /* W_M^(j1 row) */
      scratch[row * M1 + j1] = cmul(v[k], w);
    });
  };
  auto from_smem = smem_points<SR, L, 0>(buf);
  batch_passes<SR, L, 0>(ex, buf, tb.tw_rows, from_smem, fin);
}

/* Kernel 3: columns j1_0 .. j1_0 + 15 of the second transform; writes
 * output o = 2n - skip, n = j1 + M1 j2, for 0 <= o < count. */
template <class SC, int LOG2M1, class Ex>
GPU_HD void outputs_block(Ex &ex, float2 *buf, int j1_0, const float2 *scratch, float *dst,
                          int skip, int count, bool out_aligned8, const four_tables &tb) {
  using L = bmap<SC, 16, true>;
  constexpr int M1 = 1 << LOG2M1;
  auto load = [&](int t, float2 *v) {
    const float2 *column = scratch + j1_0 + L::fft(t);
    each_point<SC, 0>(L::lane(t), [&](int k2, int k) { v[k] = column[k2 * M1]; });
  };
  auto fin = [&](int t, float2 *v) {
    const int j1 = j1_0 + L::fft(t);
    each_point<SC, SC::passes - 1>(L::lane(t), [&](int j2, int k) {
      const int o = 2 * (j1 + j2 * M1) - skip;
      const float2 y = cconj(v[k]);
      if (out_aligned8 && o >= 0 && o + 2 <= count) {
        *reinterpret_cast<float2 *>(dst + o) = y;
      } else {
        if (o >= 0 && o < count) dst[o] = y.x;
        if (o + 1 >= 0 && o + 1 < count) dst[o + 1] = y.y;
      }
    });
  };
  batch_passes<SC, L, 0>(ex, buf, tb.tw_cols, load, fin);
}

} // namespace gf

#endif /* CONVOY_GPU_CONV_FFT_4STEP_CUH */
