/*
 * test_fourstep_host - the four-step FFT kernels' arithmetic (cuda/fft/
 * gpu_conv_fft_4step.cuh) run on the host, a loop over a block's threads
 * for each phase: one segment through every block of the column, row and
 * output kernels, at the engine's two smallest instances (N = 2^16 and
 * 2^17), against a double-precision convolution. It checks the passes'
 * index arithmetic, the real-FFT split across row pairs, the twiddles and
 * which outputs are written, without a GPU (CUDA builds only); the kernels
 * themselves are tested on the device by test_gpu_kernels.
 */
/* The header's functions are __host__ __device__; the host executor's
 * phases are host code, which is what this test runs. */
#pragma nv_diag_suppress 20011, 20014
#include "gpu_conv_fft_4step.cuh"

#include "ts_fft_host.cuh"

#include <algorithm>
#include <complex>
#include <math.h>
#include <stdlib.h>
#include <vector>

namespace {

ts_rng rng;

/* W_n^(i step) for i < count, as the engine's tables hold them. */
std::vector<float2> powers(int64_t n, int64_t count, int64_t step) {
  std::vector<float2> w((size_t)count);
  for (int64_t i = 0; i < count; i++) w[(size_t)i] = gf::twiddle_of(n, i * step);
  return w;
}

/* One random segment of instance F (ts_fft_segment_make). Nothing but
 * the outputs may be written. */
template <class F> void segment() {
  using SR = typename F::SR;
  using SC = typename F::SC;
  constexpr int M1 = SR::M, M2 = SC::M, M = M1 * M2, N = 2 * M;
  const ts_fft_segment g = ts_fft_segment_make(&rng, N, false);
  const int taps_len = g.taps_len, skip = g.skip, count = g.count, left = g.left;
  const std::vector<std::complex<double>> &taps = g.taps;
  std::vector<std::complex<double>> x((size_t)N, 0.0), got((size_t)count);
  std::vector<float> src((size_t)left), dst((size_t)N, kTsUnwritten);
  for (int i = 0; i < left; i++) {
    src[(size_t)i] = (float)(ts_uniform(&rng) - 0.5);
    x[(size_t)i] = src[(size_t)i];
  }
  /* The filter's half spectrum in row order, hp[k2 M1 + k1] = H[k2 + M2 k1]. */
  const std::vector<float2> h = ts_spectrum(taps, N, M + 1, 1.0 / (2.0 * N));
  std::vector<float2> hp((size_t)M + 1);
  for (int k = 0; k < M; k++) hp[(size_t)((k % M2) * M1 + k / M2)] = h[(size_t)k];
  hp[(size_t)M] = h[(size_t)M];
  const std::vector<float2> tw_rows = powers(2 * M1, M1, 1), tw_cols = powers(2 * M2, M2, 1),
                            wide = powers(N, N / 64, 64), fine = powers(N, 64, 1);
  const gf::four_tables tb = {tw_rows.data(), tw_cols.data(), wide.data(), fine.data()};
  /* Host loads and stores need no alignment: either path may be told. */
  const bool in_aligned8 = ts_range(&rng, 0, 1) == 1, out_aligned8 = ts_range(&rng, 0, 1) == 1;

  std::vector<float2> scratch((size_t)M), cols(16 * (size_t)SC::buf_elems),
      rows(2 * (size_t)SR::buf_elems);
  auto *col_ex = new ts_host_exec<SC::E, F::col_threads>();
  auto *row_ex = new ts_host_exec<SR::E, F::row_threads>();
  for (int n1 = 0; n1 < M1; n1 += 16)
    gf::columns_block<SC, SR::log2m>(*col_ex, cols.data(), n1, src.data(), left, in_aligned8,
                                     scratch.data(), tb);
  for (int b = 0; b < M2 / 2; b++)
    gf::rows_block<SR, SC::log2m>(*row_ex, rows.data(), b, scratch.data(), hp.data(), tb);
  for (int j1 = 0; j1 < M1; j1 += 16)
    gf::outputs_block<SC, SR::log2m>(*col_ex, cols.data(), j1, scratch.data(), dst.data(), skip,
                                     count, out_aligned8, tb);
  delete col_ex;
  delete row_ex;

  const int64_t stray = ts_take_outputs(dst, N, 1, 0, count, got);
  const double e = ts_segment_error(x, left, taps, skip, count, got, 13);
  TS_CHECK(e < 2e-6 && stray == 0,
           "four-step N = %d (%d x %d), %d taps, %d inputs, %d outputs: rel L2 error %.3g, %lld "
           "floats written outside the outputs",
           N, M1, M2, taps_len, left, count, e, (long long)stray);
}

} // namespace

int main(void) {
  ts_rng_init(&rng, ts_seed("test_fourstep_host"));
  const int rounds = ts_quick() ? 2 : 6;
  for (int i = 0; i < rounds; i++) {
    segment<gf::four_shape<7, 8, 3, 4>>(); /* N = 2^16 */
    segment<gf::four_shape<8, 8, 4, 4>>(); /* N = 2^17 */
  }
  return ts_finish();
}
