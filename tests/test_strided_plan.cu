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
 * passes. It also runs the kernels' staging of phase rows (gpu_decim_stage.cuh) for every thread
 * of a block, on random shapes and on plans' passes, and checks that each place is written once,
 * with its sample, and nothing else. CUDA builds only, no GPU needed; the kernels themselves are
 * tested on the device by test_gpu_decimate.
 */
#include "gpu_conv_direct.cuh"
#include "gpu_decim_stage.cuh"

extern "C" {
#include "test_support.h"
}

#include <stdint.h>
#include <string.h>
#include <vector>

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

/* What a staged place holds until a thread writes it: a NaN that no
 * sample or zero has. */
constexpr uint32_t kUnstaged = 0x7fc0dead;

uint32_t bits_of(float v) {
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* Stages `rows` phase rows of `cols` columns at `pitch` as every thread
 * of a block does, one thread after the other (the packed walk of a
 * launch's rows with row_sc = cs where cs > 0, else walk(rows, t)), and
 * checks each thread's writes: every place p * pitch + c (p < rows, c <
 * cols) by exactly one thread, with x[base + c * step + p] (zero at or
 * past n_in), and no other place. */
bool staged_once(int rows, int cols, int step, int pitch, int64_t base, int64_t n_in,
                 const std::vector<float> &x, int cs) {
  const size_t places = (size_t)rows * (size_t)pitch + 64;
  std::vector<float> xs(places), mine(places);
  std::vector<int> writers(places, 0);
  for (size_t i = 0; i < places; i++) memcpy(&mine[i], &kUnstaged, sizeof kUnstaged);
  for (int t = 0; t < gcd::kThreads; t++) {
    const gcd::walk w =
        cs > 0 ? gcd::walk::packed(gcd::walk::packed_start(rows, t), cs) : gcd::walk(rows, t);
    gcd::stage_rows(mine.data(), x.data(), base, cols, step, pitch, n_in, w);
    for (size_t i = 0; i < places; i++)
      if (bits_of(mine[i]) != kUnstaged) {
        writers[i]++;
        xs[i] = mine[i];
        memcpy(&mine[i], &kUnstaged, sizeof kUnstaged);
      }
  }
  int64_t wrong = 0, first_p = -1, first_c = -1;
  for (int p = 0; p < rows; p++)
    for (int c = 0; c < cols; c++) {
      const size_t i = (size_t)p * (size_t)pitch + (size_t)c;
      const int64_t at = base + (int64_t)c * step + p;
      const float want = at < n_in ? x[(size_t)at] : 0.0f;
      if (writers[i] != 1 || bits_of(xs[i]) != bits_of(want)) {
        if (wrong++ == 0) first_p = p, first_c = c;
      }
      writers[i] = 0;
    }
  int64_t stray = 0;
  for (size_t i = 0; i < places; i++) stray += writers[i] != 0;
  TS_CHECK(wrong == 0 && stray == 0,
           "%d rows of %d columns, step %d, pitch %d, base %lld, n_in %lld: %lld places written "
           "other than once or with another value (the first row %lld, column %lld), %lld "
           "places outside the rows written",
           rows, cols, step, pitch, (long long)base, (long long)n_in, (long long)wrong,
           (long long)first_p, (long long)first_c, (long long)stray);
  return wrong == 0 && stray == 0;
}

/* Input positions 0 .. n - 1, each a different value. */
std::vector<float> numbered(int64_t n) {
  std::vector<float> x((size_t)n);
  for (int64_t i = 0; i < n; i++) x[(size_t)i] = (float)(i + 1);
  return x;
}

/* The staging on random shapes (rows of 1 to kThreads, input wholly in,
 * cut inside the span, or all past n_in), and on the passes of plans the
 * benchmarks run, as the kernels call it: the launch's rows with the
 * packed walk, a last pass of fewer rows, and the taps' rows. */
void test_staging() {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_strided_plan"));
  int cases = 0;
  for (int k = 0; k < 120; k++) {
    const int rows = k < 8 ? gcd::kThreads - k * 17 : (int)ts_log_range(&rng, 1, 64);
    const int step = rows + (int)ts_range(&rng, 0, 40);
    const int cols = (int)ts_range(&rng, 1, 700);
    const int pitch = (cols + 3) / 4 * 4 + 4 * (int)ts_range(&rng, 0, 8);
    const int64_t base = ts_range(&rng, 0, 1000), span = (int64_t)cols * step;
    const int64_t n_in = k % 3 == 0   ? base + span + 5
                         : k % 3 == 1 ? base + ts_range(&rng, 0, span)
                                      : ts_range(&rng, 0, base);
    const std::vector<float> x = numbered(base + span + 8);
    if (!staged_once(rows, cols, step, pitch, base, n_in, x, 0)) return;
    cases++;
  }
  static const int32_t steps[] = {2, 3, 7, 16, 25, 27, 29, 47, 52, 64, 100, 1000};
  static const int64_t taps_cases[] = {37, 256, 1024, 4096};
  for (int cx = 0; cx <= 1; cx++)
    for (int32_t step : steps)
      for (int64_t taps : taps_cases) {
        gcd::strided_args a{};
        a.taps_len = taps;
        if (gcd::strided_plan(step, cx, &a) == 0) continue;
        const int block_rows = a.mb < step ? a.mb : step;
        const int last = block_rows - (block_rows - 1) / a.rows * a.rows;
        const int cols = a.tile + a.qb + 8, mq = a.mb / step, mr = a.mb - mq * step;
        const int64_t base = ts_range(&rng, 0, 3) * step, span = (int64_t)cols * step;
        const std::vector<float> x = numbered(base + span + 8), h = numbered(a.mb);
        if (!staged_once(a.rows, cols, step, a.pitch, base, base + span, x, a.row_sc) ||
            !staged_once(last, cols, step, a.pitch, base, base + span / 2, x, 0) ||
            !staged_once(a.rows, mq + (mr > 0), step, a.qb, 0, a.mb, h, a.row_sc))
          return;
        cases += 3;
      }
  printf("staging: %d passes, every place written once with its sample\n", cases);
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
  test_staging();
  test_out_of_range();
  return ts_finish();
}
