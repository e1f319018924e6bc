/*
 * gpu_conv_fft_fused.cuh - overlap-save of one segment in one thread block:
 * the FFT arithmetic of the fused FFT engine (cuda/fft/gpu_conv_fft_fused.cu).
 *
 * A segment of N real inputs (N = 2M, M = 2^9 .. 2^14) is read straight from
 * the signal as M complex values z[n] = x[2n] + i x[2n+1]; a complex FFT of
 * size M in shared memory, the real-FFT split, the product with the filter's
 * half spectrum H[0..M] and the inverse split form the conjugated half-size
 * spectrum of the output, and a second forward FFT (the inverse by
 * conjugation) yields y[2n] = Re, y[2n+1] = -Im, of which the block writes
 * only the L valid outputs. Input, filter spectrum and output cross device
 * memory once; everything between stays in shared memory and registers.
 *
 * The FFTs are Stockham passes (natural order in and out): pass p of radix R
 * (R = E points per thread, the last pass possibly smaller) takes butterfly q
 * from buf[q + r M/R], twiddles it by W_M^(r (q mod Ns) M/(Ns R)), does a
 * radix-R DFT in registers and stores it at (q / Ns) Ns R + q mod Ns + r Ns,
 * Ns being the product of the earlier radices. Shared memory holds M complex
 * values with one pad element per 16 against bank conflicts.
 *
 * The samples may also lie in interleaved frames (one row of IL floats a
 * frame): the block then reads and writes only its row's floats, the other
 * rows' blocks of the same segment (launched next to it) the rest of each
 * sector, so that the frames cross device memory once all the same.
 *
 * The body is written against an executor (`Ex`) that runs one phase for
 * every thread and then synchronises, so that the same code runs on the
 * device (one phase per thread, __syncthreads) and, for checking the index
 * arithmetic, on the host (a loop over threads). H is scaled by 1/(2N) at
 * create; `tw` holds W_N^i = exp(-2 pi i i / N) for 0 <= i < M, then,
 * for kernels that take the passes' twiddles from tables (powers::table),
 * each pass's twiddles in the order its threads read them (fill_twiddles).
 */
#ifndef CONVOY_GPU_CONV_FFT_FUSED_CUH
#define CONVOY_GPU_CONV_FFT_FUSED_CUH

#include "gpu_host_device.cuh"
#include <cuda_runtime.h>
#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

#include <math.h>
#include <stdint.h>

#include <type_traits>

namespace gf {

GPU_HD float2 cadd(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
GPU_HD float2 csub(float2 a, float2 b) {
  return make_float2(a.x - b.x, a.y - b.y);
}
GPU_HD float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
GPU_HD float2 cconj(float2 a) {
  return make_float2(a.x, -a.y);
}
GPU_HD float2 mul_minus_i(float2 a) {
  return make_float2(a.y, -a.x);
}
GPU_HD float2 mul_i(float2 a) {
  return make_float2(-a.y, a.x);
}

/* a * W_16^j (W_16 = exp(-2 pi i / 16)); j is a constant once loops unroll. */
GPU_HD float2 w16(float2 a, int j) {
  const float c1 = 0.923879532511286756f, s1 = 0.382683432365089772f, r2 = 0.707106781186547524f;
  const float cs[16] = {1, c1, r2, s1, 0, -s1, -r2, -c1, -1, -c1, -r2, -s1, 0, s1, r2, c1};
  const float sn[16] = {0, s1, r2, c1, 1, c1, r2, s1, 0, -s1, -r2, -c1, -1, -c1, -r2, -s1};
  j &= 15;
  if (j == 0) return a;
  if (j == 4) return mul_minus_i(a);
  if (j == 8) return make_float2(-a.x, -a.y);
  if (j == 12) return mul_i(a);
  const float c = cs[j], s = sn[j]; /* W = c - i s */
  return make_float2(a.x * c + a.y * s, a.y * c - a.x * s);
}

/* In-register forward DFT of R points, natural order in and out. */
template <int R> struct dft;

template <> struct dft<1> {
  static GPU_HD void run(float2 *) {}
};

template <> struct dft<2> {
  static GPU_HD void run(float2 *v) {
    const float2 a = v[0], b = v[1];
    v[0] = cadd(a, b);
    v[1] = csub(a, b);
  }
};

template <> struct dft<4> {
  static GPU_HD void run(float2 *v) {
    const float2 t0 = cadd(v[0], v[2]), t1 = csub(v[0], v[2]);
    const float2 t2 = cadd(v[1], v[3]), t3 = csub(v[1], v[3]);
    v[0] = cadd(t0, t2);
    v[2] = csub(t0, t2);
    v[1] = cadd(t1, mul_minus_i(t3));
    v[3] = cadd(t1, mul_i(t3));
  }
};

/* Cooley-Tukey R = R1 R2: X[k1 + R1 k2] = sum_n2 W_R2^(n2 k2) W_R^(n2 k1)
 * sum_n1 x[R2 n1 + n2] W_R1^(n1 k1). */
template <int R1, int R2> GPU_HD void dft_split(float2 *v) {
  constexpr int R = R1 * R2;
  float2 a[R];
  GPU_UNROLL
  for (int n2 = 0; n2 < R2; n2++) {
    float2 u[R1];
    GPU_UNROLL
    for (int n1 = 0; n1 < R1; n1++) u[n1] = v[R2 * n1 + n2];
    dft<R1>::run(u);
    GPU_UNROLL
    for (int k1 = 0; k1 < R1; k1++) a[n2 * R1 + k1] = w16(u[k1], n2 * k1 * (16 / R));
  }
  GPU_UNROLL
  for (int k1 = 0; k1 < R1; k1++) {
    float2 u[R2];
    GPU_UNROLL
    for (int n2 = 0; n2 < R2; n2++) u[n2] = a[n2 * R1 + k1];
    dft<R2>::run(u);
    GPU_UNROLL
    for (int k2 = 0; k2 < R2; k2++) v[k1 + R1 * k2] = u[k2];
  }
}

template <> struct dft<8> {
  static GPU_HD void run(float2 *v) { dft_split<4, 2>(v); }
};

template <> struct dft<16> {
  static GPU_HD void run(float2 *v) { dft_split<4, 4>(v); }
};

/* Shape of one FFT: M complex points, E per thread, T threads. PADDED
 * buffers put one pad element after every 16 (for a block that runs one
 * FFT); unpadded ones are M + 1 long, so that FFTs laid side by side start
 * one bank apart (for a block that runs 16 FFTs, thread t on FFT t % 16). */
template <int LOG2M, int LOG2E, bool PADDED = true> struct shape {
  static constexpr int log2m = LOG2M, log2e = LOG2E;
  static constexpr int M = 1 << LOG2M, E = 1 << LOG2E, T = M / E;
  static constexpr int full = LOG2M / LOG2E, rem = LOG2M % LOG2E;
  static constexpr int passes = full + (rem ? 1 : 0);
  static constexpr GPU_HDC int log2_radix(int p) { return p < full ? LOG2E : rem; }
  static constexpr GPU_HDC int log2_ns(int p) { return p * LOG2E; }
  static constexpr int buf_elems = PADDED ? M + (M >> 4) : M + 1;
  static constexpr GPU_HDC int at(int i) { return PADDED ? i + (i >> 4) : i; }
  /* The twiddle table (see fill_twiddles): W_2M^i for i < M, then the
   * passes' twiddles, those of pass p >= 1 from M + Ns(p) - E on. */
  static constexpr int tw_elems = 2 * M - E;
  static constexpr GPU_HDC int pass_twiddles_at(int p) { return M + (1 << (p * LOG2E)) - E; }
  static_assert(LOG2M >= 2 * LOG2E, "at least two passes");
};

/* Shape S with its passes in the other order of radices: the remainder
 * radix first (pass 0, Ns = 1), then passes of E points. Pass 0 of an FFT
 * in this order takes, as butterfly q, the points q + r M/R that S's last
 * pass leaves in butterfly q's registers, so an inverse FFT in this order
 * can start where a forward one in S's order ends (see turn_real). No pass
 * tables (powers::table): its twiddles are had by chain or tree. */
template <class S> struct rev_shape {
  static constexpr int log2m = S::log2m, log2e = S::log2e;
  static constexpr int M = S::M, E = S::E, T = S::T, full = S::full, rem = S::rem;
  static constexpr int passes = S::passes;
  static constexpr GPU_HDC int log2_radix(int p) { return rem && p == 0 ? rem : log2e; }
  static constexpr GPU_HDC int log2_ns(int p) {
    return rem && p > 0 ? rem + log2e * (p - 1) : log2e * p;
  }
  static constexpr int buf_elems = S::buf_elems;
  static constexpr GPU_HDC int at(int i) { return S::at(i); }
};

/* W_n^e = exp(-2 pi i e / n) in float, the angle taken in double. */
inline float2 twiddle_of(int64_t n, int64_t e) {
  const double unit = 2.0 * 3.14159265358979323846 / (double)n;
  const double a = unit * (double)(e % n);
  return make_float2((float)cos(a), (float)-sin(a));
}

/* The twiddle table of FFTs of 2^log2m points, 2^log2e a thread
 * (shape<log2m, log2e>::tw_elems values, angles in double): out[i] = W^i,
 * W = exp(-2 pi i / 2M), for i < M (the real-FFT split's and the chained
 * powers' table); then pass p >= 1, of radix R after Ns points, has
 * W_M^(r k M / (Ns R)) for 0 < r < R, k < Ns at pass_twiddles_at(p) + (r -
 * 1) Ns + k, so that a warp's butterflies (consecutive k) read consecutive
 * values. */
inline void fill_twiddles(int log2m, int log2e, float2 *out) {
  const int64_t m = (int64_t)1 << log2m, e = (int64_t)1 << log2e;
  const int full = log2m / log2e, rem = log2m % log2e, passes = full + (rem ? 1 : 0);
  for (int64_t i = 0; i < m; i++) out[i] = twiddle_of(2 * m, i);
  for (int p = 1; p < passes; p++) {
    const int64_t ns = (int64_t)1 << (p * log2e), radix = (int64_t)1 << (p < full ? log2e : rem);
    float2 *pass = out + m + ns - e;
    for (int64_t r = 1; r < radix; r++)
      for (int64_t k = 0; k < ns; k++)
        pass[(r - 1) * ns + k] = twiddle_of(2 * m, 2 * r * k * (m / (ns * radix)));
  }
}

/* Pass P, step 1: each thread's butterflies from shared memory. Point t +
 * b T + r M/R: t, b T and r M/R share no bits, and S::at of such a sum is
 * the sum of the parts' S::at, so a thread's points lie at constant offsets
 * from S::at(t). */
template <class S, int P> GPU_HD void load_smem(int t, float2 *v, const float2 *buf) {
  constexpr int LR = S::log2_radix(P), R = 1 << LR, B = S::E / R;
  const float2 *p = buf + S::at(t);
  GPU_UNROLL
  for (int b = 0; b < B; b++) {
    GPU_UNROLL
    for (int r = 0; r < R; r++) v[b * R + r] = p[S::at(b * S::T + (r << (S::log2m - LR)))];
  }
}

/* Pass P, step 1, for butterfly q alone: its points q + r M/R (q < M/R,
 * which shares no bits with r M/R). */
template <class S, int P> GPU_HD void load_butterfly(int q, float2 *u, const float2 *buf) {
  constexpr int LR = S::log2_radix(P), R = 1 << LR;
  const float2 *p = buf + S::at(q);
  GPU_UNROLL
  for (int r = 0; r < R; r++) u[r] = p[S::at(r << (S::log2m - LR))];
}

/* How a butterfly's twiddles w^1 .. w^(R-1) are had: `chain` loads w = w^1
 * from the first part of the table and multiplies by w again and again (R -
 * 2 dependent products); `tree` takes each power as the product of the
 * highest power of two below it and the rest (log2 R deep); `table` loads
 * each from the pass's part of the table (fill_twiddles), which only
 * tables of tw_elems values have. Chosen per kernel by measurement
 * (docs/BENCHMARKS.md). */
enum class powers { chain, tree, table };

/* Pass P, step 2, for butterfly q: its twiddles and radix-R DFT on its R
 * points u[0 .. R-1], in registers. Twiddle powers come from one table
 * value (see powers). The table is read through the read-only cache unless
 * COHERENT: an ordinary load, which the compiler cannot move across a
 * barrier (see the pulse kernel). */
template <class S, int P, bool COHERENT = false, powers POWERS = powers::chain>
GPU_HD void butterfly(int q, float2 *u, const float2 *tw) {
  constexpr int LR = S::log2_radix(P), R = 1 << LR, LNS = S::log2_ns(P);
  if constexpr (P > 0 && POWERS == powers::table) {
    const int k = q & ((1 << LNS) - 1);
    const float2 *at = tw + S::pass_twiddles_at(P) + k;
    GPU_UNROLL
    for (int r = 1; r < R; r++) {
      const float2 *w = at + ((r - 1) << LNS);
      u[r] = cmul(u[r], COHERENT ? *w : GPU_LDG(w));
    }
  } else if (P > 0) {
    const int k = q & ((1 << LNS) - 1);
    /* W_M^(k M/(Ns R)) = W_N^(2 k M/(Ns R)) */
    const float2 *at = tw + ((2 * k) << (S::log2m - LNS - LR));
    const float2 w1 = COHERENT ? *at : GPU_LDG(at);
    if (POWERS == powers::chain) {
      float2 w = w1;
      GPU_UNROLL
      for (int r = 1; r < R; r++) {
        u[r] = cmul(u[r], w);
        if (r + 1 < R) w = cmul(w, w1);
      }
    } else {
      float2 w[R];
      w[1] = w1;
      GPU_UNROLL
      for (int r = 2; r < R; r++) {
        int high = 1;
        while (2 * high < r) high *= 2;
        w[r] = cmul(w[high], w[r - high]);
      }
      GPU_UNROLL
      for (int r = 1; r < R; r++) u[r] = cmul(u[r], w[r]);
    }
  }
  dft<R>::run(u);
}

/* Pass P, step 2: thread t's butterflies t + b T, b < E / R. */
template <class S, int P, bool COHERENT = false, powers POWERS = powers::chain>
GPU_HD void butterflies(int t, float2 *v, const float2 *tw) {
  constexpr int R = 1 << S::log2_radix(P), B = S::E / R;
  GPU_UNROLL
  for (int b = 0; b < B; b++) butterfly<S, P, COHERENT, POWERS>(t + b * S::T, v + b * R, tw);
}

/* Pass P, step 3, for butterfly q: Stockham store into shared memory. */
template <class S, int P> GPU_HD void store_butterfly(int q, const float2 *u, float2 *buf) {
  constexpr int LR = S::log2_radix(P), R = 1 << LR, LNS = S::log2_ns(P);
  const int base = ((q >> LNS) << (LNS + LR)) + (q & ((1 << LNS) - 1));
  float2 *p = buf + S::at(base); /* base and r Ns share no bits (see load_smem) */
  GPU_UNROLL
  for (int r = 0; r < R; r++) p[S::at(r << LNS)] = u[r];
}

/* Pass P, step 3: thread t's butterflies. */
template <class S, int P> GPU_HD void store_smem(int t, const float2 *v, float2 *buf) {
  constexpr int R = 1 << S::log2_radix(P), B = S::E / R;
  GPU_UNROLL
  for (int b = 0; b < B; b++) store_butterfly<S, P>(t + b * S::T, v + b * R, buf);
}

/* Where a segment's samples lie: row `row` of frames of IL floats (IL = 1:
 * a planar row, row 0), sample i at base[i * IL + row]. align: the bytes
 * (16, 8 or 4) that base is aligned to; for IL = 1, for dst, that of dst -
 * skip. Whole vectors move where the alignment allows and they stay inside
 * the valid samples. */
template <int IL> struct frames {
  int row;
  int align;
};

GPU_HD int alignment_of(const void *p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return (a & 15) == 0 ? 16 : (a & 7) == 0 ? 8 : 4;
}

/* f(n, k) for every point of thread t in pass P: n its index in the
 * transform's natural order as the pass reads (pass 0) or writes (last
 * pass) it, k its place among the thread's values. */
template <class S, int P, class F> GPU_HD void each_point(int t, F f) {
  constexpr int LR = S::log2_radix(P), R = 1 << LR, B = S::E / R;
  GPU_UNROLL
  for (int b = 0; b < B; b++) {
    const int q = t + b * S::T;
    GPU_UNROLL
    for (int r = 0; r < R; r++) f(q + (r << (S::log2m - LR)), b * R + r);
  }
}

/* Samples i and i + 1 (i even) of the segment, zeros from `left` on. */
template <int IL> GPU_HD float2 load_pair(const float *base, frames<IL> at, int i, int left) {
  if (i + 2 <= left) {
    if (IL == 1 && at.align >= 8) return GPU_LDG(reinterpret_cast<const float2 *>(base + i));
    if (IL == 2 && at.align == 16) { /* frames i, i + 1: one 16-byte load */
      const float4 q = GPU_LDG(reinterpret_cast<const float4 *>(base + 2 * i));
      return at.row == 0 ? make_float2(q.x, q.z) : make_float2(q.y, q.w);
    }
    if (IL == 2 && at.align == 8) { /* a frame each */
      const float2 a = GPU_LDG(reinterpret_cast<const float2 *>(base + 2 * i));
      const float2 b = GPU_LDG(reinterpret_cast<const float2 *>(base + 2 * i + 2));
      return at.row == 0 ? make_float2(a.x, b.x) : make_float2(a.y, b.y);
    }
  }
  const int k = IL == 1 ? i : i * IL + at.row;
  float2 x;
  x.x = i < left ? GPU_LDG(base + k) : 0.0f;
  x.y = i + 1 < left ? GPU_LDG(base + k + IL) : 0.0f;
  return x;
}

/* Whether a thread's k-th point of pass P is in the pass's top row (r = R
 * - 1), n >= M - M/R. Only those can reach a segment's last few points:
 * the others have n <= M - M/R - 1 <= M - 33 (M/R >= 32 in every shape). */
template <class S, int P> GPU_HD constexpr bool top_row(int k) {
  static_assert(S::M >> S::log2_radix(P) >= 32, "the top row holds the last 32 points");
  return (k & ((1 << S::log2_radix(P)) - 1)) == (1 << S::log2_radix(P)) - 1;
}

/* Pass 0 of the forward FFT reads the segment itself: x[i] for i < left,
 * zeros after. Inside a long signal (left >= N - 4: a window is N - 3 or
 * more samples) the points below the top row read without tests, at
 * constant offsets from the thread's first pair. */
template <class S, int IL>
GPU_HD void load_input(int t, float2 *v, const float *src, int left, frames<IL> at) {
  if (IL == 1 && left >= 2 * S::M - 4) {
    const float *p = src + 2 * t;
    if (at.align >= 8) {
      each_point<S, 0>(t, [&](int n, int k) {
        v[k] = top_row<S, 0>(k) ? load_pair<IL>(src, at, 2 * n, left)
                                : GPU_LDG(reinterpret_cast<const float2 *>(p + 2 * (n - t)));
      });
    } else {
      each_point<S, 0>(t, [&](int n, int k) {
        v[k] = top_row<S, 0>(k)
                   ? load_pair<IL>(src, at, 2 * n, left)
                   : make_float2(GPU_LDG(p + 2 * (n - t)), GPU_LDG(p + 2 * (n - t) + 1));
      });
    }
    return;
  }
  each_point<S, 0>(t, [&](int n, int k) { v[k] = load_pair<IL>(src, at, 2 * n, left); });
}

/* y[2n], y[2n + 1] of one point: output o = 2n - skip for 0 <= o < count. */
template <int IL> GPU_HD void store_pair(float *dst, frames<IL> at, int o, int count, float2 y) {
  if (IL == 1 && at.align >= 8 && o >= 0 && o + 2 <= count) {
    *reinterpret_cast<float2 *>(dst + o) = y;
  } else {
    const int i = IL == 1 ? o : o * IL + at.row;
    if (o >= 0 && o < count) dst[i] = y.x;
    if (o + 1 >= 0 && o + 1 < count) dst[i + IL] = y.y;
  }
}

/* The last inverse pass writes y[2n] = Re, y[2n+1] = -Im straight out:
 * output o = 2n - skip for 0 <= o < count; for IL = 1 pairs go out as one
 * 8-byte store where dst - skip is 8-byte aligned; interleaved frames take
 * each output alone, the frame's other rows being written by the other
 * rows' blocks. Inside a long signal (skip + count >= N - 3: a segment's
 * outputs are a multiple of 4) only the top row's points can end past
 * count, and the others test only for o >= 0 (o = -1 stores its y[2n + 1]
 * alone), at constant offsets from the thread's first pair. */
template <class S, int IL>
GPU_HD void store_output(int t, const float2 *v, float *dst, int skip, int count, frames<IL> at) {
  constexpr int P = S::passes - 1;
  if (IL == 1 && skip + count >= 2 * S::M - 3) {
    float *d = dst + (2 * t - skip);
    if (at.align >= 8) {
      each_point<S, P>(t, [&](int n, int k) {
        const int o = 2 * n - skip, e = 2 * (n - t);
        const float2 y = cconj(v[k]);
        if (top_row<S, P>(k))
          store_pair<IL>(dst, at, o, count, y);
        else if (o >= 0)
          *reinterpret_cast<float2 *>(d + e) = y;
        else if (o == -1)
          d[e + 1] = y.y;
      });
    } else {
      each_point<S, P>(t, [&](int n, int k) {
        const int o = 2 * n - skip, e = 2 * (n - t);
        const float2 y = cconj(v[k]);
        if (top_row<S, P>(k)) {
          store_pair<IL>(dst, at, o, count, y);
        } else if (o >= 0) {
          d[e] = y.x;
          d[e + 1] = y.y;
        } else if (o == -1) {
          d[e + 1] = y.y;
        }
      });
    }
    return;
  }
  each_point<S, P>(
      t, [&](int n, int k) { store_pair<IL>(dst, at, 2 * n - skip, count, cconj(v[k])); });
}

/* Conjugated inverse-split spectrum of bins k and M-k from the forward
 * spectrum a = Z[k], zm = Z[M-k] (all factors of 1/2 folded into h). */
GPU_HD void split_pair(float2 a, float2 zm, float2 w, float2 hk, float2 hm, float2 *out_k,
                       float2 *out_m) {
  const float2 b = cconj(zm);
  const float2 s = cadd(a, b), wd = cmul(w, csub(a, b));
  const float2 xk = cadd(s, mul_minus_i(wd));  /* 2 X[k] */
  const float2 xm = cconj(cadd(s, mul_i(wd))); /* 2 X[M-k] */
  const float2 yk = cmul(xk, hk), ym = cmul(xm, hm);
  const float2 ye = cadd(yk, cconj(ym));
  const float2 yo = cmul(csub(yk, cconj(ym)), cconj(w));
  *out_k = cconj(cadd(ye, mul_i(yo)));               /* conj(Z'[k]) */
  *out_m = cconj(cadd(cconj(ye), mul_i(cconj(yo)))); /* conj(Z'[M-k]) */
}

/* Conjugated inverse-split spectrum of bin 0 from z = Z[0], which holds
 * 2 X[0] and 2 X[M], both real (h: the filter's half spectrum, M + 1
 * bins). */
GPU_HD float2 split_dc(float2 z, const float2 *h, int m) {
  const float x0 = 2.0f * (z.x + z.y), xm = 2.0f * (z.x - z.y); /* 2 X[0], 2 X[M], real */
  const float2 h0 = GPU_LDG(h), h_m = GPU_LDG(h + m);
  const float2 y0 = make_float2(x0 * h0.x, x0 * h0.y), ym = make_float2(xm * h_m.x, xm * h_m.y);
  const float2 ye = cadd(y0, cconj(ym)), yo = csub(y0, cconj(ym));
  return cconj(cadd(ye, mul_i(yo)));
}

/* Between the transforms: bins k and M-k belong to one thread, so no other
 * thread reads what it writes. Thread 0 also takes bins 0 and M/2. */
template <class S> GPU_HD void middle(int t, float2 *buf, const float2 *h, const float2 *tw) {
  constexpr int M = S::M, T = S::T;
  /* Bins t + j T and M - t - j T at constant offsets from bins t and M - t:
   * S::at(a + 16 c) = S::at(a) + S::at(16 c) for any a. */
  static_assert(T % 16 == 0 || S::at(T) == T, "j T moves S::at by a constant");
  float2 *bk = buf + S::at(t), *bm = buf + S::at(M - t);
  const float2 *hk = h + t, *hm = h + (M - t), *wk = tw + t;
  GPU_UNROLL
  for (int j = 0; j < S::E / 2; j++) {
    const int jt = j * T; /* bin k = t + jt, 0 <= k < M/2 */
    if (j == 0 && t == 0) {
      buf[S::at(0)] = split_dc(buf[S::at(0)], h, M);
      const float2 zh = buf[S::at(M / 2)];
      float2 ok, om;
      split_pair(zh, zh, GPU_LDG(tw + M / 2), GPU_LDG(h + M / 2), GPU_LDG(h + M / 2), &ok, &om);
      buf[S::at(M / 2)] = ok;
    } else {
      float2 ok, om;
      split_pair(bk[S::at(jt)], bm[-S::at(jt)], GPU_LDG(wk + jt), GPU_LDG(hk + jt),
                 GPU_LDG(hm - jt), &ok, &om);
      bk[S::at(jt)] = ok;
      bm[-S::at(jt)] = om;
    }
  }
}

/* The forward passes P .. END - 1 through shared memory. */
template <class S, int P, powers W = powers::chain, int END = S::passes, class Ex>
GPU_HD void forward_passes(Ex &ex, float2 *buf, const float2 *tw) {
  if constexpr (P < END) {
    ex.phase([&](int t, float2 *v) { load_smem<S, P>(t, v, buf); });
    ex.sync();
    ex.phase([&](int t, float2 *v) {
      butterflies<S, P, false, W>(t, v, tw);
      store_smem<S, P>(t, v, buf);
    });
    ex.sync();
    forward_passes<S, P + 1, W, END>(ex, buf, tw);
  }
}

/* The inverse passes from P on; the last one hands each thread's points to
 * store(t, v) instead of shared memory (after a barrier if SYNC_LAST, for a
 * store back into buf). COHERENT: the twiddles by ordinary loads (see
 * butterfly), for a transform whose inverse passes run in the forward
 * passes' order, so that pass p needs the very twiddles of forward pass p:
 * read-only loads of them may be merged across the barriers between, which
 * keeps the forward pass's twiddle powers live in registers until the
 * inverse one (segment_cx). The real transforms keep read-only loads:
 * ordinary ones ran 4-5% slower there. */
template <class S, int P, bool SYNC_LAST = false, powers W = powers::chain, bool COHERENT = false,
          class Ex, class Store>
GPU_HD void inverse_passes(Ex &ex, float2 *buf, const float2 *tw, const Store &store) {
  ex.phase([&](int t, float2 *v) { load_smem<S, P>(t, v, buf); });
  if constexpr (P + 1 < S::passes) {
    ex.sync();
    ex.phase([&](int t, float2 *v) {
      butterflies<S, P, COHERENT, W>(t, v, tw);
      store_smem<S, P>(t, v, buf);
    });
    ex.sync();
    inverse_passes<S, P + 1, SYNC_LAST, W, COHERENT>(ex, buf, tw, store);
  } else {
    if constexpr (SYNC_LAST) ex.sync();
    ex.phase([&](int t, float2 *v) {
      butterflies<S, P, COHERENT, W>(t, v, tw);
      store(t, v);
    });
  }
}

/* The shape whose order of passes an inverse transform takes: rev_shape
 * where it starts in registers on the last forward pass's butterflies
 * (TURN: turn_real, segment_cx, the pulse kernel), else S; and so the
 * order its last pass hands out its points in. */
template <class S, bool TURN>
using inverse_shape = typename std::conditional<TURN, rev_shape<S>, S>::type;

/* The last forward pass, the spectrum's split and product (middle) and
 * the first inverse pass of rev_shape<S>, in registers: two shared-memory
 * round trips fewer than the passes and middle() apart. The last forward
 * pass leaves bin q + r Ns in register r of butterfly q (Ns = M/R); the
 * split joins bins k and M - k, of butterflies q and Ns - q, so thread t
 * takes butterflies in pairs, j = t + b T for b < E/(2R): (j, Ns - j), and
 * for j = 0 (0, Ns/2), each of which joins its own bins. Each split_pair is
 * middle()'s, k the smaller bin of the two, so the spectrum is middle()'s
 * to the bit; the inverse transform then runs in rev_shape's order. */
template <class S, powers W, class Ex>
GPU_HD void turn_real(Ex &ex, float2 *buf, const float2 *h, const float2 *tw) {
  using RS = rev_shape<S>;
  constexpr int M = S::M, L = S::passes - 1, R = 1 << S::log2_radix(L), NS = M / R;
  constexpr int PAIRS = S::E / R / 2;
  static_assert(PAIRS >= 1 && RS::log2_radix(0) == S::log2_radix(L), "pairs of butterflies");
  const auto second = [](int j) { return j == 0 ? NS / 2 : NS - j; };
  ex.phase([&](int t, float2 *v) {
    GPU_UNROLL
    for (int b = 0; b < PAIRS; b++) {
      const int j = t + b * S::T;
      load_butterfly<S, L>(j, v + 2 * b * R, buf);
      load_butterfly<S, L>(second(j), v + (2 * b + 1) * R, buf);
    }
  });
  ex.sync();
  ex.phase([&](int t, float2 *v) {
    GPU_UNROLL
    for (int b = 0; b < PAIRS; b++) {
      const int j = t + b * S::T, q1 = j, q2 = second(j);
      float2 *u1 = v + 2 * b * R, *u2 = u1 + R;
      butterfly<S, L, false, W>(q1, u1, tw);
      butterfly<S, L, false, W>(q2, u2, tw);
      /* bins k (register a) and M - k (register c), k < M/2 */
      const auto split = [&](float2 *a, float2 *c, int k) {
        split_pair(*a, *c, GPU_LDG(tw + k), GPU_LDG(h + k), GPU_LDG(h + M - k), a, c);
      };
      if (j == 0) {
        u1[0] = split_dc(u1[0], h, M);
        float2 om;
        split_pair(u1[R / 2], u1[R / 2], GPU_LDG(tw + M / 2), GPU_LDG(h + M / 2),
                   GPU_LDG(h + M / 2), &u1[R / 2], &om);
        GPU_UNROLL
        for (int r = 1; r < R / 2; r++) split(&u1[r], &u1[R - r], r * NS);
        GPU_UNROLL
        for (int r = 0; r < R / 2; r++) split(&u2[r], &u2[R - 1 - r], NS / 2 + r * NS);
      } else {
        GPU_UNROLL
        for (int r = 0; r < R; r++) {
          if (r < R / 2)
            split(&u1[r], &u2[R - 1 - r], q1 + r * NS);
          else
            split(&u2[R - 1 - r], &u1[r], q2 + (R - 1 - r) * NS);
        }
      }
      butterfly<RS, 0>(q1, u1, tw);
      store_butterfly<RS, 0>(q1, u1, buf);
      butterfly<RS, 0>(q2, u2, tw);
      store_butterfly<RS, 0>(q2, u2, buf);
    }
  });
  ex.sync();
}

/* From forward pass P (its input in buf) through the spectrum's product to
 * the inverse transform's last pass, which hands each thread's points to
 * store(t, v), as each_point<inverse_shape<S, TURN>, passes - 1> names them
 * (after a barrier if SYNC_LAST, for a store back into buf). TURN: through
 * turn_real, which needs a last forward pass of the remainder radix (two or
 * more butterflies a thread) and twiddles by chain or tree; else middle()
 * between the passes. */
template <class S, int P, powers W, bool TURN, bool SYNC_LAST, class Ex, class Store>
GPU_HD void transforms(Ex &ex, float2 *buf, const float2 *h, const float2 *tw, const Store &store) {
  static_assert(!TURN || (S::rem != 0 && W != powers::table),
                "a turn needs a remainder pass and twiddles other than the pass tables");
  if constexpr (TURN) {
    forward_passes<S, P, W, S::passes - 1>(ex, buf, tw);
    turn_real<S, W>(ex, buf, h, tw);
    inverse_passes<rev_shape<S>, 1, SYNC_LAST, W>(ex, buf, tw, store);
  } else {
    forward_passes<S, P, W>(ex, buf, tw);
    ex.phase([&](int t, float2 *) { middle<S>(t, buf, h, tw); });
    ex.sync();
    inverse_passes<S, 0, SYNC_LAST, W>(ex, buf, tw, store);
  }
}

/* One segment: src holds `left` valid inputs (then zeros up to N); dst
 * receives outputs 0 .. count-1 (circular positions skip .. skip+count-1);
 * in and out say where the samples lie in src and dst (see frames); W: how
 * the passes have their twiddles (powers::table needs a table of
 * S::tw_elems values); TURN: whether the transforms turn in registers (see
 * transforms). */
template <class S, int IL, powers W = powers::chain, bool TURN = false, class Ex>
GPU_HD void segment(Ex &ex, float2 *buf, const float *src, int left, frames<IL> in, float *dst,
                    int skip, int count, frames<IL> out, const float2 *h, const float2 *tw) {
  ex.phase([&](int t, float2 *v) {
    load_input<S, IL>(t, v, src, left, in);
    butterflies<S, 0>(t, v, tw);
    store_smem<S, 0>(t, v, buf);
  });
  ex.sync();
  using O = inverse_shape<S, TURN>;
  transforms<S, 1, W, TURN, false>(
      ex, buf, h, tw, [&](int t, float2 *v) { store_output<O, IL>(t, v, dst, skip, count, out); });
}

/* ------------------------------------------------------- rows of frames
 *
 * G rows of interleaved frames (IL floats a frame, the block's rows side by
 * side in it) in one block of G x T threads, group g transforming row g in
 * its own buffer: the frames move through shared memory, G floats a frame
 * in one vector, so that every load and store of the segment is whole
 * sectors. The arithmetic is segment()'s: pass 0 reads the staged z[n] =
 * x[2n] + i x[2n+1] from shared memory where segment() reads it from the
 * signal, and the last pass puts y[2n], y[2n+1] back there for the frames'
 * store, so the bits are those of the planar kernel. */

/* G floats from p (G = 1, 2 or a multiple of 4), as vectors where aligned. */
template <int G> GPU_HD void load_floats(const float *p, float *x) {
  if (G % 4 == 0 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    GPU_UNROLL
    for (int j = 0; j < G / 4; j++) {
      const float4 q = GPU_LDG(reinterpret_cast<const float4 *>(p) + j);
      x[4 * j] = q.x, x[4 * j + 1] = q.y, x[4 * j + 2] = q.z, x[4 * j + 3] = q.w;
    }
  } else if (G == 2 && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
    const float2 q = GPU_LDG(reinterpret_cast<const float2 *>(p));
    x[0] = q.x, x[1] = q.y;
  } else {
    GPU_UNROLL
    for (int g = 0; g < G; g++) x[g] = GPU_LDG(p + g);
  }
}

template <int G> GPU_HD void store_floats(float *p, const float *x) {
  if (G % 4 == 0 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    GPU_UNROLL
    for (int j = 0; j < G / 4; j++)
      reinterpret_cast<float4 *>(p)[j] =
          make_float4(x[4 * j], x[4 * j + 1], x[4 * j + 2], x[4 * j + 3]);
  } else if (G == 2 && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<float2 *>(p) = make_float2(x[0], x[1]);
  } else {
    GPU_UNROLL
    for (int g = 0; g < G; g++) p[g] = x[g];
  }
}

#ifdef __CUDACC__
/* A barrier for the C blocks of a cluster (C = 1: the block), making the
 * shared-memory stores before it visible to all of them. */
template <int C> __device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (C > 1) {
    cooperative_groups::this_cluster().sync();
    return;
  }
#endif
  __syncthreads();
}

/* cluster_sync in two halves, with work between that touches no other
 * block's shared memory: arrive, then wait for every block to arrive. */
template <int C> __device__ __forceinline__ void cluster_arrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (C > 1) asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}
template <int C> __device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (C > 1) asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#endif
}

/* The executor of G FFTs in one block: thread t of its group (T threads a
 * group), __syncthreads between phases. */
template <int E, int T> struct group_exec {
  float2 v[E];
  template <class F> __device__ __forceinline__ void phase(F f) {
    f((int)threadIdx.x & (T - 1), v);
  }
  __device__ __forceinline__ void sync() { __syncthreads(); }
};

/* Where row r of the frames lies in the cluster's shared memory: in the
 * buffers of block r / G of the cluster (C = 1: this block's own). The
 * other blocks' addresses are mapped where used, so that they take no
 * registers across the transforms. */
template <class S, int G, int C> __device__ __forceinline__ float2 *row_home(float2 *bufs, int r) {
  float2 *home = bufs;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (C > 1) home = cooperative_groups::this_cluster().map_shared_rank(bufs, r / G);
#endif
  return home + (r % G) * S::buf_elems;
}

/* Sample i of row r's real signal: float i & 1 of pair i >> 1 of its
 * buffer. Samples d apart, d a multiple of 32, lie sample_floats<S>(d)
 * floats apart (S::at(q + 16 j) = S::at(q) + 17 j). */
template <class S, int G, int C>
__device__ __forceinline__ float *row_sample(float2 *bufs, int r, int i) {
  return reinterpret_cast<float *>(row_home<S, G, C>(bufs, r) + S::at(i >> 1)) + (i & 1);
}
template <class S> constexpr GPU_HDC int sample_floats(int d) {
  return 2 * S::at(d / 2);
}

/* Rounds of segment_rows' frame moves unrolled: all of a cluster's four,
 * and as many of the more rounds of a block alone (fully unrolled, those
 * took up to 128 registers). */
constexpr int kRowsUnroll = 4;

/* One segment of G rows: src and dst point at the segment's first frame,
 * at the block's first row; bufs holds G buffers of S::buf_elems; h is the
 * filter spectrum of the calling thread's row. Other arguments as
 * segment().
 *
 * C > 1 (C G = IL, devices of compute capability 9.0 on): the C blocks of a
 * thread block cluster share the segment, block `rank` transforming rows
 * rank G .. rank G + G - 1. Each block moves whole frames, a C-th of the
 * segment's, between device memory and the G rows of every block of the
 * cluster (distributed shared memory), so every sector crosses device
 * memory once and in whole; src and dst then point at row 0. W and TURN
 * as in segment(), whose bits the rows get from the same W and TURN. */
template <class S, int G, int IL, int C = 1, powers W = powers::chain, bool TURN = false>
__device__ __forceinline__ void segment_rows(float2 *bufs, const float *src, int left, float *dst,
                                             int skip, int count, const float2 *h,
                                             const float2 *tw) {
  static_assert(C == 1 || C * G == IL, "a cluster shares whole frames");
  constexpr int threads = G * S::T;
  constexpr int moved = C == 1 ? G : IL; /* floats of a frame this block moves */
  const int g = (int)threadIdx.x / S::T;
  float2 *buf = bufs + g * S::buf_elems;
  int first = (int)threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (C > 1) first += (int)cooperative_groups::this_cluster().block_rank() * threads;
#else
  if constexpr (C > 1) __trap(); /* launched only where the binary has clusters */
#endif
  auto load = [&](int i, float *x) {
    if (i < left) {
      load_floats<moved>(src + (int64_t)i * IL, x);
    } else {
      GPU_UNROLL
      for (int r = 0; r < moved; r++) x[r] = 0.0f;
    }
  };
  /* Each thread moves its frames in rounds of step frames (or frame
   * pairs) apart, all of them at constant offsets from one address a row
   * (row_sample, sample_floats). In clusters 4-row frames move in pairs
   * (2p, 2p + 1), whose two values of a row are one float2 of its buffer,
   * one 8-byte store, mostly into another block's shared memory (H200,
   * 2^24-frame calls: 4 rows 141 -> 150 GS/s at N = 4096 and 110 -> 121 at
   * 8192; 8 rows in pairs ran no faster at 4096 and 8192 and 3% slower at
   * 2048). The first frames are loaded before the wait for the cluster's
   * other blocks to start (their shared memory exists only from then on). */
  {
    constexpr int F = C > 1 && moved == 4 ? 2 : 1;
    constexpr int step = C * threads;
    constexpr int rounds = 2 * S::M / F / step;
    static_assert(rounds * step * F == 2 * S::M && F * step % 32 == 0,
                  "rounds move S::at by a constant");
    constexpr int round_floats = sample_floats<S>(F * step);
    float *home[moved];
    GPU_UNROLL
    for (int r = 0; r < moved; r++) home[r] = row_sample<S, G, C>(bufs, r, F * first);
    const auto load_round = [&](int k, float(*x)[moved]) {
      GPU_UNROLL
      for (int f = 0; f < F; f++) load(F * (first + k * step) + f, x[f]);
    };
    const auto store_round = [&](int k, float(*x)[moved]) {
      GPU_UNROLL
      for (int r = 0; r < moved; r++) {
        float *d = home[r] + k * round_floats;
        if constexpr (F == 2)
          *reinterpret_cast<float2 *>(d) = make_float2(x[0][r], x[1][r]);
        else
          *d = x[0][r];
      }
    };
    float x0[F][moved];
    cluster_arrive<C>();
    load_round(0, x0);
    cluster_wait<C>();
    store_round(0, x0);
#pragma unroll(kRowsUnroll)
    for (int k = 1; k < rounds; k++) {
      float x[F][moved];
      load_round(k, x);
      store_round(k, x);
    }
  }
  group_exec<S::E, S::T> ex;
  cluster_sync<C>();
  using O = inverse_shape<S, TURN>;
  transforms<S, 0, W, TURN, true>(ex, buf, h, tw, [&](int t, float2 *v) {
    each_point<O, O::passes - 1>(t, [&](int n, int k) { buf[S::at(n)] = cconj(v[k]); });
  });
  cluster_sync<C>();
  {
    /* The rows' addresses are mapped again here rather than kept in
     * registers across the transforms. */
    float2 *rows = bufs;
    asm("" : "+l"(rows));
    constexpr int step = C * threads;
    constexpr int rounds = (2 * S::M + step - 1) / step;
    static_assert(step % 32 == 0, "rounds move S::at by a constant");
    constexpr int round_floats = sample_floats<S>(step);
    const float *home[moved];
    GPU_UNROLL
    for (int r = 0; r < moved; r++) home[r] = row_sample<S, G, C>(rows, r, first + skip);
#pragma unroll(kRowsUnroll)
    for (int k = 0; k < rounds; k++) {
      const int o = first + k * step;
      if (o >= count) break;
      float y[moved];
      GPU_UNROLL
      for (int r = 0; r < moved; r++) y[r] = home[r][k * round_floats];
      store_floats<moved>(dst + (int64_t)o * IL, y);
    }
  }
  /* No block may leave while the others still read its rows. Their reads
   * are done once they arrive: each read value went into a store before. */
  if constexpr (C > 1) {
    cluster_arrive<C>();
    cluster_wait<C>();
  }
}
#endif

/* ------------------------------------------------------------- complex
 *
 * A complex segment of M points: z[n] = x_re[n] + i x_im[n] read from the
 * two rows, the forward FFT, the product with the filter's full spectrum
 * H[0..M-1] (scaled by 1/M at create), conjugated, and a second forward FFT
 * (the inverse by conjugation) whose conjugate is the output, written to the
 * two rows. tw is the same table as above for N = 2M. */

/* Pass 0 of the forward FFT reads the segment's complex inputs: index i <
 * left, zeros after. Consecutive threads read consecutive floats of a row;
 * with FRAME > 0, re holds the values as (re, im) pairs FRAME pairs apart
 * (frames of FRAME complex channels, re at the segment's channel) and im is
 * unused, each read as one 8-byte load where re is 8-byte aligned. */
template <class S, int FRAME = 0>
GPU_HD void load_input_cx(int t, float2 *v, const float *re, const float *im, int left,
                          bool aligned8) {
  /* Point i = t + e, e constant: addresses at constant offsets. */
  const auto load = [&](int e) {
    if (FRAME == 0) return make_float2(GPU_LDG(re + t + e), GPU_LDG(im + t + e));
    const float *p = re + 2 * FRAME * t;
    if (aligned8) return GPU_LDG(reinterpret_cast<const float2 *>(p) + FRAME * e);
    return make_float2(GPU_LDG(p + 2 * FRAME * e), GPU_LDG(p + 2 * FRAME * e + 1));
  };
  if (left >= S::M - 4) { /* inside a long signal: only the top row tests (see top_row) */
    each_point<S, 0>(t, [&](int i, int k) {
      v[k] = !top_row<S, 0>(k) || i < left ? load(i - t) : make_float2(0, 0);
    });
    return;
  }
  each_point<S, 0>(t, [&](int i, int k) { v[k] = i < left ? load(i - t) : make_float2(0, 0); });
}

/* The last inverse pass: output o = n - skip, for 0 <= o < count, is the
 * conjugate of point n; with FRAME > 0 written as (re, im) pairs FRAME
 * pairs apart at re (as load_input_cx reads them). */
template <class S, int FRAME = 0>
GPU_HD void store_output_cx(int t, const float2 *v, float *re, float *im, int skip, int count,
                            bool aligned8) {
  constexpr int P = S::passes - 1;
  /* Output o = (t - skip) + e, e constant: addresses at constant offsets. */
  const auto store = [&](int e, float2 y) {
    if (FRAME == 0) {
      (re + (t - skip))[e] = y.x;
      (im + (t - skip))[e] = y.y;
      return;
    }
    float *p = re + 2 * FRAME * (t - skip);
    if (aligned8) {
      reinterpret_cast<float2 *>(p)[FRAME * e] = y;
    } else {
      p[2 * FRAME * e] = y.x;
      p[2 * FRAME * e + 1] = y.y;
    }
  };
  if (skip + count >= S::M - 3) { /* inside a long signal: only the top row can pass count */
    each_point<S, P>(t, [&](int n, int k) {
      const int o = n - skip;
      if (o >= 0 && (!top_row<S, P>(k) || o < count)) store(n - t, cconj(v[k]));
    });
    return;
  }
  each_point<S, P>(t, [&](int n, int k) {
    const int o = n - skip;
    if (o >= 0 && o < count) store(n - t, cconj(v[k]));
  });
}

/* One complex segment: rows src_re/src_im hold `left` valid inputs (then
 * zeros up to M); dst_re/dst_im receive outputs 0 .. count-1. With FRAME >
 * 0 src_re and dst_re point at the segment's channel in frames of FRAME
 * (re, im) pairs and the im pointers are unused; aligned8: both are 8-byte
 * aligned. The last forward pass, the product conj(Z[k] H[k]) and the
 * first inverse pass run in registers, the inverse transform in
 * rev_shape's order (the product takes each bin alone, so any shape turns;
 * see turn_real for the real form). W: how the forward passes have their
 * twiddles (powers::table needs a table of S::tw_elems values); the
 * inverse ones, in rev_shape's order, which has no pass tables, chain
 * them. Where S has no remainder pass, rev_shape<S> is S and its inverse
 * passes load their twiddles coherently (inverse_passes): at M = 4096 the
 * kernel then takes 60 registers instead of 127, four blocks an SM instead
 * of two, and ran 5-8% faster on an H200 (docs/BENCHMARKS.md). */
template <class S, int FRAME = 0, powers W = powers::chain, class Ex>
GPU_HD void segment_cx(Ex &ex, float2 *buf, const float *src_re, const float *src_im, int left,
                       float *dst_re, float *dst_im, int skip, int count, const float2 *h,
                       const float2 *tw, bool aligned8 = false) {
  ex.phase([&](int t, float2 *v) {
    load_input_cx<S, FRAME>(t, v, src_re, src_im, left, aligned8);
    butterflies<S, 0>(t, v, tw);
    store_smem<S, 0>(t, v, buf);
  });
  ex.sync();
  using RS = rev_shape<S>;
  constexpr int L = S::passes - 1;
  forward_passes<S, 1, W, L>(ex, buf, tw);
  ex.phase([&](int t, float2 *v) { load_smem<S, L>(t, v, buf); });
  ex.sync();
  ex.phase([&](int t, float2 *v) {
    butterflies<S, L, false, W>(t, v, tw);
    each_point<RS, 0>(t, [&](int k, int i) { v[i] = cconj(cmul(v[i], GPU_LDG(h + k))); });
    butterflies<RS, 0>(t, v, tw);
    store_smem<RS, 0>(t, v, buf);
  });
  ex.sync();
  inverse_passes<RS, 1, false, powers::chain, S::rem == 0>(ex, buf, tw, [&](int t, float2 *v) {
    store_output_cx<RS, FRAME>(t, v, dst_re, dst_im, skip, count, aligned8);
  });
}

#ifdef __CUDACC__
/* The executor on the device: one phase per thread, the thread's points in
 * registers, __syncthreads between phases. */
template <int E> struct block_exec {
  float2 v[E];
  template <class F> __device__ __forceinline__ void phase(F f) { f((int)threadIdx.x, v); }
  __device__ __forceinline__ void sync() { __syncthreads(); }
};
#endif

} // namespace gf

#endif /* CONVOY_GPU_CONV_FFT_FUSED_CUH */
