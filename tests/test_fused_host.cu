/*
 * test_fused_host - the fused FFT kernel's arithmetic (cuda/fft/
 * gpu_conv_fft_fused.cuh) run on the host, a loop over a block's threads
 * for each phase: the shapes the engine instantiates, real segments on
 * planar rows and on interleaved frames, complex segments, against a
 * double-precision convolution. It checks the index
 * arithmetic of the passes without a GPU (CUDA builds only); the kernels
 * themselves are tested on the device by test_gpu_kernels.
 */
/* The header's functions are __host__ __device__; the host executor's
 * phases are host code, which is what this test runs. */
#pragma nv_diag_suppress 20011, 20014
#include "gpu_conv_fft_fused.cuh"

#include "ts_fft_host.cuh"

#include <algorithm>
#include <complex>
#include <math.h>
#include <stdlib.h>
#include <vector>

namespace {

ts_rng rng;

/* The twiddle table of shape S, as gc_fused_twiddles makes it. */
template <class S> std::vector<float2> twiddles() {
  std::vector<float2> tw((size_t)S::tw_elems);
  gf::fill_twiddles(S::log2m, S::log2e, tw.data());
  return tw;
}

/* One of the alignments (16, 8 or 4 bytes) a kernel may be told. */
static int any_alignment() {
  return 4 << ts_range(&rng, 0, 2);
}

/* One real segment of shape S in row `row` of frames of IL floats, the
 * passes' twiddles had as W says: random taps (1 .. N - 3), inputs (left of
 * them, zeros after), and the outputs the overlap-save engine keeps;
 * nothing else written. Half the segments are whole but for up to 3
 * samples at either end, as inside a long signal (whose segments keep a
 * multiple of 4 outputs), where the kernels take paths that test only
 * the points that can reach the ends; the alignments the kernel is told
 * vary (host loads and stores need none). */
template <class S, int IL, gf::powers W, bool TURN = false> void real_segment(int row) {
  constexpr int M = S::M, N = 2 * M;
  const ts_fft_segment g = ts_fft_segment_make(&rng, N, false);
  const int taps_len = g.taps_len, skip = g.skip, count = g.count, left = g.left;
  const std::vector<std::complex<double>> &taps = g.taps;
  std::vector<std::complex<double>> x((size_t)N, 0.0), got((size_t)count);
  std::vector<float> src((size_t)N * IL, kTsUnwritten), dst((size_t)N * IL, kTsUnwritten);
  for (int i = 0; i < left; i++) {
    const float v = (float)(ts_uniform(&rng) - 0.5);
    src[(size_t)i * IL + row] = v;
    x[(size_t)i] = v;
  }
  const std::vector<float2> h = ts_spectrum(taps, N, M + 1, 1.0 / (2.0 * N)), tw = twiddles<S>();
  std::vector<float2> buf(S::buf_elems);
  gf::frames<IL> in = {IL == 1 ? 0 : row, any_alignment()},
                 out = {IL == 1 ? 0 : row, any_alignment()};
  auto *ex = new ts_host_exec<S::E, S::T>();
  gf::segment<S, IL, W, TURN>(*ex, buf.data(), src.data(), left, in, dst.data(), skip, count, out,
                              h.data(), tw.data());
  delete ex;
  const int64_t stray = ts_take_outputs(dst, N, IL, IL == 1 ? 0 : row, count, got);
  const double e = ts_segment_error(x, left, taps, skip, count, got, 1);
  TS_CHECK(e < 2e-6 && stray == 0,
           "real M = %d, %d rows (row %d), twiddles %s%s, %d taps, %d inputs, %d outputs: rel "
           "L2 error %.3g, %lld floats written outside the outputs",
           M, IL, row, W == gf::powers::table ? "by table" : "chained",
           TURN ? ", turned in registers" : "", taps_len, left, count, e, (long long)stray);
}

/* One complex segment of shape S on planar (re, im) rows (FRAME 0) or on
 * channel `channel` of frames of FRAME complex channels, (re, im) each
 * (its transforms turn in registers: gf::segment_cx), twiddles W; nothing
 * else written, with 8-byte loads and stores or 4-byte ones (aligned8). */
template <class S, int FRAME = 0, gf::powers W = gf::powers::chain>
void complex_segment(int channel = 0) {
  constexpr int M = S::M;
  constexpr int width = FRAME > 0 ? 2 * FRAME : 1; /* floats a point apart */
  const ts_fft_segment g = ts_fft_segment_make(&rng, M, true);
  const int taps_len = g.taps_len, skip = g.skip, count = g.count, left = g.left;
  const std::vector<std::complex<double>> &taps = g.taps;
  std::vector<std::complex<double>> x((size_t)M, 0.0), got((size_t)count);
  std::vector<float> re((size_t)M * width, 0.0f), im((size_t)M, 0.0f);
  std::vector<float> out_re((size_t)M * width, kTsUnwritten), out_im((size_t)M, kTsUnwritten);
  const size_t at = FRAME > 0 ? (size_t)(2 * channel) : 0;
  float *const in_im = FRAME > 0 ? re.data() + at + 1 : im.data();
  float *const y_im = FRAME > 0 ? out_re.data() + at + 1 : out_im.data();
  for (int i = 0; i < left; i++) {
    const float vr = (float)(ts_uniform(&rng) - 0.5), vi = (float)(ts_uniform(&rng) - 0.5);
    re[at + (size_t)i * width] = vr;
    in_im[(size_t)i * width] = vi;
    x[(size_t)i] = std::complex<double>(vr, vi);
  }
  const std::vector<float2> h = ts_spectrum(taps, M, M, 1.0 / M), tw = twiddles<S>();
  std::vector<float2> buf(S::buf_elems);
  auto *ex = new ts_host_exec<S::E, S::T>();
  gf::segment_cx<S, FRAME, W>(*ex, buf.data(), re.data() + at, FRAME > 0 ? nullptr : im.data(),
                              left, out_re.data() + at, FRAME > 0 ? nullptr : out_im.data(), skip,
                              count, h.data(), tw.data(), ts_range(&rng, 0, 1) != 0);
  delete ex;
  int64_t stray = 0;
  for (size_t f = 0; f < (size_t)M * width; f++) {
    const bool re_slot = f % width == at % width, im_slot = FRAME > 0 && f % width == at + 1;
    const int o = (int)(f / width);
    if (o < count && re_slot)
      got[(size_t)o].real(out_re[f]);
    else if (o < count && im_slot)
      got[(size_t)o].imag(out_re[f]);
    else
      stray += out_re[f] != kTsUnwritten;
  }
  for (int o = 0; o < M && FRAME == 0; o++) {
    if (o < count)
      got[(size_t)o].imag(y_im[(size_t)o]);
    else
      stray += y_im[(size_t)o] != kTsUnwritten;
  }
  const double e = ts_segment_error(x, left, taps, skip, count, got, 1);
  TS_CHECK(e < 2e-6 && stray == 0,
           "complex M = %d, %s (channel %d), twiddles %s, %d taps, %d inputs, %d outputs: rel L2 "
           "error %.3g, %lld values written outside the outputs",
           M, FRAME > 0 ? "frames" : "rows", channel,
           W == gf::powers::table ? "by table" : "chained", taps_len, left, count, e,
           (long long)stray);
}

/* Planar rows (twiddles chained and by table) and every row of frames of 2
 * and 4; where the shape has a remainder pass, the transforms turned in
 * registers too (gf::turn_real), on planar rows and frames. */
template <class S> void real_shape(int rounds) {
  for (int i = 0; i < rounds; i++) {
    real_segment<S, 1, gf::powers::chain>(0);
    real_segment<S, 1, gf::powers::table>(0);
    real_segment<S, 2, gf::powers::chain>(i % 2);
    real_segment<S, 4, gf::powers::chain>(i % 4);
    if constexpr (S::rem != 0) {
      real_segment<S, 1, gf::powers::chain, true>(0);
      real_segment<S, 4, gf::powers::chain, true>(i % 4);
    }
  }
}

} // namespace

int main(void) {
  ts_rng_init(&rng, ts_seed("test_fused_host"));
  const int rounds = ts_quick() ? 1 : 3;
  real_shape<gf::shape<9, 3>>(rounds);
  real_shape<gf::shape<9, 4>>(rounds);
  real_shape<gf::shape<10, 4>>(rounds);
  real_shape<gf::shape<11, 3>>(rounds);
  real_shape<gf::shape<11, 4>>(rounds);
  real_shape<gf::shape<12, 4>>(rounds);
  real_shape<gf::shape<13, 3>>(rounds);
  real_shape<gf::shape<13, 4>>(1);
  real_shape<gf::shape<14, 4>>(1);
  for (int i = 0; i < rounds; i++) {
    complex_segment<gf::shape<9, 4>>();
    complex_segment<gf::shape<11, 4>>();
    complex_segment<gf::shape<12, 4>>();
    complex_segment<gf::shape<14, 4>>();
    complex_segment<gf::shape<10, 4>, 1>();
    complex_segment<gf::shape<11, 4>, 2>(i % 2);
    complex_segment<gf::shape<12, 4>, 4>(i % 4);
    complex_segment<gf::shape<13, 4>, 4>(3 - i % 4);
    complex_segment<gf::shape<10, 4>, 1, gf::powers::table>();
    complex_segment<gf::shape<11, 4>, 0, gf::powers::table>();
    complex_segment<gf::shape<11, 4>, 2, gf::powers::table>(i % 2);
    complex_segment<gf::shape<12, 4>, 0, gf::powers::table>();
  }
  return ts_finish();
}
