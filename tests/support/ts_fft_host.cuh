/*
 * ts_fft_host.cuh - what the host tests of the FFT kernels' arithmetic
 * (test_fused_host, test_fourstep_host) share: the executor that runs a
 * block's threads one after the other, a double-precision FFT, a filter's
 * spectrum and the error of a segment's outputs against a direct
 * convolution. Host C++ (the kernels' headers are __host__ __device__).
 */
#ifndef CONVOY_TS_FFT_HOST_CUH
#define CONVOY_TS_FFT_HOST_CUH

#include <cuda_runtime.h>

extern "C" {
#include "test_support.h"
}

#include <algorithm>
#include <complex>
#include <math.h>
#include <stdint.h>
#include <vector>

/* The executor of one block on the host: phase f for each of its T
 * threads in turn, E values each. */
template <int E, int T> struct ts_host_exec {
  float2 v[T][E];
  template <class F> void phase(F f) {
    for (int t = 0; t < T; t++) f(t, v[t]);
  }
  void sync() {}
};

/* What output buffers hold where nothing was written. */
constexpr float kTsUnwritten = 12345.0f;

/* In place, a forward DFT (W = exp(-2 pi i / n)) of a power-of-two length. */
inline void ts_fft(std::vector<std::complex<double>> &a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; i++) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t k = 0; k < len / 2; k++) {
      const std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
      for (size_t i = k; i < n; i += len) {
        const std::complex<double> u = a[i], v = a[i + len / 2] * w;
        a[i] = u + v;
        a[i + len / 2] = u - v;
      }
    }
  }
}

/* sum_j taps[j] W_n^(j k) * scale for k < bins; n a power of two, at
 * least the taps' length. */
inline std::vector<float2> ts_spectrum(const std::vector<std::complex<double>> &taps, int64_t n,
                                       int64_t bins, double scale) {
  std::vector<std::complex<double>> a((size_t)n, 0.0);
  for (size_t j = 0; j < taps.size(); j++) a[j] = taps[j];
  ts_fft(a);
  std::vector<float2> h((size_t)bins);
  for (int64_t k = 0; k < bins; k++)
    h[(size_t)k] =
        make_float2((float)(a[(size_t)k].real() * scale), (float)(a[(size_t)k].imag() * scale));
  return h;
}

/* A random overlap-save segment of n points: 1 .. n - 3 taps (real, or
 * complex), the outputs kept (count) and the inputs (left, zeros after);
 * half of them whole but for up to 3 samples at either end, as inside a
 * long signal. */
struct ts_fft_segment {
  int taps_len, skip, count, left;
  std::vector<std::complex<double>> taps;
};

inline ts_fft_segment ts_fft_segment_make(ts_rng *rng, int n, bool complex_taps) {
  ts_fft_segment g;
  g.taps_len = (int)ts_log_range(rng, 1, n - 3);
  const bool whole = ts_range(rng, 0, 1) == 1;
  g.skip = g.taps_len - 1;
  g.count = whole ? std::max(1, n - g.skip - (int)ts_range(rng, 0, 3))
                  : (int)ts_range(rng, 1, n - g.skip);
  g.left = whole ? n - (int)ts_range(rng, 0, 3) : (int)ts_range(rng, 1, n);
  g.taps.resize((size_t)g.taps_len);
  for (auto &t : g.taps)
    t = complex_taps ? std::complex<double>(ts_uniform(rng) - 0.5, ts_uniform(rng) - 0.5)
                     : std::complex<double>(ts_uniform(rng) - 0.5, 0.0);
  return g;
}

/* Error of got (count outputs) against the linear convolution of x (left
 * valid inputs, zeros after) at positions skip .. skip + count - 1, every
 * stride-th output: the root mean square of the differences over that of
 * the whole convolution (left + taps - 1 points). The transform rounds at
 * the scale of everything it carries, so the outputs kept are measured
 * against that scale, not their own: a few inputs in a long segment, or
 * the faint tail of a filter's response, would otherwise read as a large
 * error. */
inline double ts_segment_error(const std::vector<std::complex<double>> &x, int left,
                               const std::vector<std::complex<double>> &taps, int skip, int count,
                               const std::vector<std::complex<double>> &got, int stride) {
  double num = 0;
  int checked = 0;
  for (int o = 0; o < count; o += stride) {
    std::complex<double> r = 0;
    for (int j = 0; j < (int)taps.size(); j++) {
      const int i = o + skip - j;
      if (i >= 0 && i < left) r += taps[(size_t)j] * x[(size_t)i];
    }
    num += std::norm(got[(size_t)o] - r);
    checked++;
  }
  const size_t support = (size_t)left + taps.size() - 1;
  size_t n = 1;
  while (n < support) n <<= 1;
  std::vector<std::complex<double>> xs(n, 0.0), hs(n, 0.0);
  std::copy(x.begin(), x.begin() + left, xs.begin());
  std::copy(taps.begin(), taps.end(), hs.begin());
  ts_fft(xs);
  ts_fft(hs);
  double energy = 0; /* Parseval: the sum of |y|^2 over the whole convolution */
  for (size_t k = 0; k < n; k++) energy += std::norm(xs[k] * hs[k]);
  energy /= (double)n;
  return energy > 0 ? sqrt((num / checked) / (energy / (double)support)) : sqrt(num);
}

/* The outputs of one real segment among `frames` frames of `il` rows
 * (il 1: a planar row): got[o] = dst[o il + row] for o < count. Returns
 * how many other floats of dst were written (not kTsUnwritten). */
inline int64_t ts_take_outputs(const std::vector<float> &dst, int frames, int il, int row,
                               int count, std::vector<std::complex<double>> &got) {
  int64_t stray = 0;
  for (int i = 0; i < frames * il; i++) {
    if (i % il == row && i / il < count)
      got[(size_t)(i / il)] = dst[(size_t)i];
    else
      stray += dst[(size_t)i] != kTsUnwritten;
  }
  return stray;
}

#endif /* CONVOY_TS_FFT_HOST_CUH */
