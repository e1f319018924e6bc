/*
 * test_strided_plan - the strided (decimating) kernels' launch plan,
 * gcd::strided_plan in cuda/conv/gpu_decim_direct.cu, on the host: for
 * steps 1 .. 4096 and 1 .. 2^20 taps, real and complex, every plan keeps
 * the kernels' invariants (the staged rows, the taps and the slices'
 * partial sums fit the shared memory it returns, which is at most
 * kStridedSmemBytes, and kStridedPassBytes (with up to 28 floats a row
 * of pitch more) but for passes of a row a slice; 32-bit staging offsets; passes of a multiple of
 * the slices; a pitch whose staging stores conflict least), and its tap block and slices are the
 * documented rules', which the sums' order (and so the output bits) depends on, whatever the
 * passes. CUDA builds only, no GPU needed; the kernels themselves are tested on the device by
 * test_gpu_decimate.
 */
#include "gpu_conv_direct.cuh"

extern "C" {
#include "test_support.h"
}

#include <stdint.h>

namespace {

/* The tap block the plan comment documents: at most 256 taps a phase. */
int64_t documented_block(int64_t step, int64_t taps) {
  return taps < 256 * step ? taps : 256 * step;
}

/* The most a pass of several may take: kStridedPassBytes at the least
 * pitch, and the pitch up to 28 floats a row more. */
size_t pass_bytes_most(const gcd::strided_args &a, bool cx) {
  return (size_t)gcd::kStridedPassBytes + sizeof(float) * (cx ? 2 : 1) * 28 * (size_t)a.rows;
}

/* The slices the plan comment documents: the most of 8, 4, 2 and 1 with
 * at least 4 phases each and qb + 8 at most a quarter of the tile (1
 * where none has). */
int32_t documented_slices(int64_t phases, int32_t qb) {
  for (int32_t slices = 8; slices > 1; slices /= 2)
    if (slices * 4 <= phases && (qb + 8) * 4 <= 256 * (8 / slices)) return slices;
  return 1;
}

int plans = 0, with_passes = 0;
size_t most_smem = 0;

void check_plan(int32_t step, int64_t taps, bool cx) {
  gcd::strided_args a{};
  a.taps_len = taps;
  const size_t smem = gcd::strided_plan(step, cx, &a);
  plans++;
  TS_CHECK(smem > 0, "step %d, %lld taps%s: no plan", step, (long long)taps,
           cx ? " (complex)" : "");
  if (smem == 0) return;
  const int64_t phases = taps < step ? taps : step;
  const int64_t block_rows = a.mb < step ? a.mb : step;
  const bool ok_shape =
      a.step == step && (a.slices == 1 || a.slices == 2 || a.slices == 4 || a.slices == 8) &&
      a.groups * a.slices == 8 && a.tile == 256 * a.groups && a.slices <= phases &&
      a.slices <= block_rows && a.slices == documented_slices(phases, a.qb);
  const bool ok_block = a.mb >= 1 && a.mb <= taps && a.mb == documented_block(step, taps);
  /* several passes: a multiple of the slices, and none a slice smaller would do in as many */
  const int64_t n_passes = (block_rows + a.rows - 1) / a.rows;
  const bool ok_rows =
      a.rows == block_rows || (a.rows < block_rows && a.rows % a.slices == 0 &&
                               a.rows >= a.slices && (a.rows - a.slices) * n_passes < block_rows);
  const bool ok_staging = a.qb % 4 == 0 && (int64_t)a.qb * step >= a.mb && a.pitch % 4 == 0 &&
                          a.pitch >= a.tile + a.qb + 8 && a.pitch < a.tile + a.qb + 8 + 32 &&
                          (int64_t)(a.tile + a.qb + 9) * step < ((int64_t)1 << 31) &&
                          (int64_t)a.slices * a.tile <= (int64_t)a.rows * a.pitch;
  const bool ok_walk = a.rows <= gcd::kThreads && a.row_sc == gcd::kThreads / a.rows;
  const size_t bytes = sizeof(float) * (cx ? 2 : 1) * (size_t)a.rows * (size_t)(a.pitch + a.qb);
  const bool passes = a.rows < block_rows;
  const bool ok_smem = smem == bytes && smem <= (size_t)gcd::kStridedSmemBytes &&
                       (!passes || smem <= pass_bytes_most(a, cx) || a.rows == a.slices);
  with_passes += passes;
  if (smem > most_smem) most_smem = smem;
  TS_CHECK(ok_shape && ok_block && ok_rows && ok_staging && ok_walk && ok_smem,
           "step %d, %lld taps%s: shape %d, block %d (mb %d), rows %d (%d of %lld), staging %d, "
           "walk %d, smem %d (%zu)",
           step, (long long)taps, cx ? " (complex)" : "", ok_shape, ok_block, a.mb, ok_rows, a.rows,
           (long long)block_rows, ok_staging, ok_walk, ok_smem, smem);
}

void test_plans() {
  static const int32_t big_steps[] = {65, 100, 127, 128, 255, 256, 1000, 2048, 4095, 4096};
  static const int64_t big_taps[] = {100,  255,  256,  257,  1000,  1023,  1024,
                                     1025, 2048, 4096, 4100, 10000, 65536, (int64_t)1 << 20};
  for (int cx = 0; cx <= 1; cx++) {
    for (int32_t step = 1; step <= 64; step++) {
      for (int64_t taps = 1; taps <= 70; taps++) check_plan(step, taps, cx);
      for (int64_t taps : big_taps) check_plan(step, taps, cx);
    }
    for (int32_t step : big_steps) {
      for (int64_t taps = 1; taps <= 70; taps++) check_plan(step, taps, cx);
      for (int64_t taps : big_taps) check_plan(step, taps, cx);
    }
  }
  TS_CHECK(with_passes > 0, "no plan took several passes (%d plans)", plans);
  printf("%d plans, %d with their phase rows in several passes; the most shared memory: %zu "
         "bytes\n",
         plans, with_passes, most_smem);
}

/* Wavefronts of the staging stores of one pass of `rows` rows at `pitch`,
 * walked as stage_rows walks them (thread t < rows * cs, cs = kThreads /
 * rows, from row t % rows and column t / rows, on by cs columns), over
 * its first two rounds: a warp takes as many wavefronts as its busiest
 * bank has stores. Sets *warps to the warps those rounds take. */
int64_t walked_wavefronts(int32_t rows, int32_t pitch, int64_t *warps) {
  const int64_t cs = gcd::kThreads / rows, active = cs * rows;
  int64_t total = 0;
  *warps = 0;
  for (int64_t round = 0; round < 2; round++)
    for (int64_t t0 = 0; t0 < active; t0 += 32) {
      int per_bank[32] = {0}, most = 0;
      for (int64_t t = t0; t < t0 + 32 && t < active; t++) {
        const int64_t p = t % rows, c = t / rows + round * cs;
        const int bank = (int)((p * pitch + c) % 32);
        if (++per_bank[bank] > most) most = per_bank[bank];
      }
      total += most;
      ++*warps;
    }
  return total;
}

/* The pitch a plan takes stages its pass's rows in no more wavefronts
 * than any other multiple of 4 it may take; and the worst store conflict
 * left in the decimating cases the benchmarks run. */
void test_pitch() {
  static const int64_t taps_cases[] = {256, 1024, 4096};
  double worst = 0;
  for (int cx = 0; cx <= 1; cx++)
    for (int64_t taps : taps_cases)
      for (int32_t step = 2; step <= 64; step++) {
        gcd::strided_args a{};
        a.taps_len = taps;
        if (gcd::strided_plan(step, cx, &a) == 0) continue;
        int64_t warps = 0;
        const int64_t chosen = walked_wavefronts(a.rows, a.pitch, &warps);
        const int32_t least = a.tile + a.qb + 8;
        for (int32_t p = least; p < least + 32; p += 4) {
          int64_t unused = 0;
          const int64_t other = walked_wavefronts(a.rows, p, &unused);
          TS_CHECK(chosen <= other,
                   "step %d, %lld taps%s: pitch %d stages in %lld wavefronts, pitch %d in %lld",
                   step, (long long)taps, cx ? " (complex)" : "", a.pitch, (long long)chosen, p,
                   (long long)other);
        }
        const double per_warp = (double)chosen / (double)warps;
        if (per_warp > worst) worst = per_warp;
      }
  TS_CHECK(worst <= 4.0, "a staging store conflicts %.2f ways", worst);
  printf("staging stores: at most %.2f wavefronts a warp (D = 2 .. 64, 256 to 4096 taps)\n", worst);
}

void test_out_of_range() {
  gcd::strided_args a{};
  a.taps_len = 16;
  TS_CHECK(gcd::strided_plan(0, false, &a) == 0, "step 0 planned");
  TS_CHECK(gcd::strided_plan(gcd::kMaxStep + 1, true, &a) == 0, "a step past kMaxStep planned");
  a.taps_len = 0;
  TS_CHECK(gcd::strided_plan(2, false, &a) == 0, "no taps planned");
}

} // namespace

int main(void) {
  test_plans();
  test_pitch();
  test_out_of_range();
  return ts_finish();
}
