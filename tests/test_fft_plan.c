/*
 * test_fft_plan.c - the CPU FFT engine's cost model and plan, and the engine
 * itself driven directly through engine_ops on planar buffers:
 *   - the chosen size is a 2^a 3^b 5^c size >= taps, leaves a block of
 *     outputs, is no worse by the model than any power of two, stays within
 *     the memory cap, and grows with the filter; for complex-tap pairs it
 *     is one of their narrower family and the cheapest of it;
 *   - a forced fft_size is honoured (any size >= taps, also odd or prime),
 *     a smaller one is refused by create and by cost;
 *   - run() matches the double reference for 1 tap, taps = N, taps = N - 1,
 *     shared and per-channel spectra, FFTW_MEASURE plans; calls of any whole
 *     number of blocks and any thread count give the same bits; a count
 *     that is not whole blocks is refused;
 *   - creating and destroying plans from several threads at once is safe.
 */
#include "../cpu/fft_size.h"
#include "engine.h"
#include "test_support.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int quick;

/* ------------------------------------------------------------ cost model */

static void test_choose_size(ts_rng *rng) {
  int64_t fixed[] = {1,
                     2,
                     3,
                     15,
                     16,
                     17,
                     64,
                     100,
                     255,
                     1000,
                     1024,
                     4097,
                     16384,
                     65536,
                     70000,
                     100003,
                     1 << 20,
                     (1 << 21) + 1,
                     3000000,
                     FFT_SIZE_CAP,
                     FFT_SIZE_CAP + 1};
  int n_fixed = (int)(sizeof fixed / sizeof fixed[0]);
  int64_t prev_taps = 0, prev_n = 0;
  for (int i = 0; i < n_fixed + 200; i++) {
    int64_t taps = i < n_fixed ? fixed[i] : ts_log_range(rng, 1, 1 << 23);
    int64_t n = fft_choose_size(taps, 1, 0);
    TS_CHECK(n >= taps, "%lld taps: size %lld is shorter than the filter", (long long)taps,
             (long long)n);
    TS_CHECK(n - taps + 1 >= 1, "%lld taps: size %lld leaves no outputs", (long long)taps,
             (long long)n);
    TS_CHECK(fft_size_is_smooth(n) && n % 8 == 0, "%lld taps: size %lld is not 2^a 3^b 5^c, a >= 3",
             (long long)taps, (long long)n);
    int64_t nm = fft_choose_size(taps, 1, 1);
    TS_CHECK(nm >= taps && fft_size_is_smooth(nm) && nm % 8 == 0,
             "%lld taps: measured-plan size %lld", (long long)taps, (long long)nm);
    int64_t upper = 2 * taps > FFT_SIZE_CAP ? 2 * taps : FFT_SIZE_CAP;
    TS_CHECK(n <= upper, "%lld taps: size %lld is above the cap %lld", (long long)taps,
             (long long)n, (long long)upper);
    /* Not a degenerate overlap: at least a quarter of each block is new
     * output once the filter is long enough for the cost model to care. */
    if (taps >= 64 && taps <= FFT_SIZE_CAP / 2)
      TS_CHECK(n - taps + 1 >= n / 4, "%lld taps: size %lld gives a block of only %lld",
               (long long)taps, (long long)n, (long long)(n - taps + 1));
    /* The search covers the powers of two: none is cheaper by the model. */
    double best = fft_output_ns(n, taps, 0);
    for (int64_t p = 1; p <= upper; p *= 2) {
      if (p < taps) continue;
      double c = fft_output_ns(p, taps, 0);
      TS_CHECK(best <= c, "%lld taps: size %lld (%.3f ns) but %lld costs %.3f ns", (long long)taps,
               (long long)n, best, (long long)p, c);
    }
    /* Longer filters never get a shorter size. */
    if (i < n_fixed && prev_taps > 0 && taps > prev_taps)
      TS_CHECK(n >= prev_n, "%lld taps -> %lld but %lld taps -> %lld", (long long)prev_taps,
               (long long)prev_n, (long long)taps, (long long)n);
    if (i < n_fixed) {
      prev_taps = taps;
      prev_n = n;
    }
  }
  /* The model itself: costs positive, increasing with the filter at a
   * fixed size, negative when the size cannot hold the filter. */
  TS_CHECK(fft_output_ns(1024, 1025, 0) < 0.0, "size below the filter must cost < 0");
  TS_CHECK(fft_output_ns(1024, 100, 0) > 0.0 &&
               fft_output_ns(1024, 100, 0) < fft_output_ns(1024, 900, 0),
           "cost must grow with the filter at one size");
  TS_CHECK(fft_block_ns(1 << 20, 0) > 2.0 * fft_block_ns(1 << 19, 0),
           "block cost must grow n log n");

  /* Many distinct spectra lower the cap (memory stays bounded)... */
  int64_t many = fft_choose_size(100000, 1024, 0);
  TS_CHECK(many >= 100000 && (double)many * 4.0 * 1024.0 <= 1073741824.0,
           "1024 spectra of 100000 taps: size %lld", (long long)many);
  /* ...but never below what the filter needs. */
  int64_t big = fft_choose_size(3000000, 1024, 0);
  TS_CHECK(big >= 3000000, "1024 spectra of 3e6 taps: size %lld", (long long)big);
  TS_CHECK(fft_choose_size(0, 1, 0) == 0 && fft_choose_size(FFT_SIZE_LIMIT + 1, 1, 0) == 0,
           "out-of-range filters must get size 0");
  TS_CHECK(fft_size_is_smooth(1) && fft_size_is_smooth(7200) && !fft_size_is_smooth(7) &&
               !fft_size_is_smooth(14) && !fft_size_is_smooth(0),
           "fft_size_is_smooth");
}

/* Complex-tap pairs run complex transforms, whose sizes come from a
 * narrower family (odd part 1 below 16384, 5 or 15): the chosen size is one
 * of them, holds the filter, and no other member is cheaper by the model;
 * a filter too long for the family still gets a size; decimating choices
 * divide by D. */
static void test_choose_size_complex(ts_rng *rng) {
  for (int i = 0; i < 150; i++) {
    const int64_t taps = i == 0 ? 1 : i == 1 ? FFT_SIZE_CAP : ts_log_range(rng, 1, 1 << 22);
    const int64_t n = fft_choose_size_mixed(taps, 1, 0, 1.0);
    int64_t odd = n;
    while (odd > 0 && odd % 2 == 0) odd /= 2;
    TS_CHECK(n >= taps && n % 8 == 0 && ((odd == 1 && n < 16384) || odd == 5 || odd == 15),
             "%lld complex taps: size %lld is not in the complex family", (long long)taps,
             (long long)n);
    const double best = fft_output_ns_mixed(n, taps, 0, 1.0);
    const int64_t upper = 2 * taps > FFT_SIZE_CAP ? 2 * taps : FFT_SIZE_CAP;
    for (int64_t q = 8; q <= upper; q *= 2) {
      const int64_t members[] = {q < 16384 ? q : 0, 5 * q, 15 * q};
      for (int k = 0; k < 3; k++) {
        const int64_t m = members[k];
        if (m < taps || m > upper) continue;
        const double c = fft_output_ns_mixed(m, taps, 0, 1.0);
        TS_CHECK(best <= c, "%lld complex taps: size %lld (%.3f ns) but %lld costs %.3f ns",
                 (long long)taps, (long long)n, best, (long long)m, c);
      }
    }
    const int64_t d = ts_range(rng, 2, 64);
    const int64_t nd = fft_choose_size_decimated(taps, 1, 0, 1.0, d);
    TS_CHECK(nd == 0 || (nd >= taps && nd % d == 0), "%lld complex taps, D %lld: size %lld",
             (long long)taps, (long long)d, (long long)nd);
  }
  const int64_t huge = FFT_SIZE_LIMIT - 5;
  TS_CHECK(fft_choose_size_mixed(huge, 1, 0, 1.0) >= huge,
           "%lld complex taps: a size from the whole family", (long long)huge);
}

/* ------------------------------------------------------------ engine runs */

typedef struct plan_case {
  int32_t channels;
  int64_t taps_len;
  int shared; /* all channels use one taps pointer */
  int64_t fft_size;
  int32_t threads;
  int32_t effort;
} plan_case;

static void request_init(engine_request *r, const plan_case *pc, const float *const *taps) {
  memset(r, 0, sizeof *r);
  r->channels = pc->channels;
  r->taps_len = pc->taps_len;
  r->taps = taps;
  r->threads = pc->threads;
  r->fft_size = pc->fft_size;
  r->plan_effort = pc->effort;
  r->device = -1;
}

/* The N printed by describe(), or -1. */
static int64_t described_size(const engine_ops *ops, void *impl, int64_t *block, int *threads) {
  char line[256];
  long long n = -1, b = -1;
  int t = -1;
  ops->describe(impl, line, sizeof line);
  if (sscanf(line, "cpu-fft N=%lld block=%lld threads=%d", &n, &b, &t) != 3) return -1;
  *block = b;
  *threads = t;
  return n;
}

/* Runs the engine over frames of random signal per channel, as the stream
 * would at the start of a signal (taps_len - 1 zeros of history), in calls
 * of random whole numbers of blocks, and compares with the reference. Then
 * repeats in one call with another thread count and checks the bits. */
static void check_run(const plan_case *pc, int64_t frames, ts_rng *rng) {
  const engine_ops *ops = engine_cpu_fft();
  const int32_t ch = pc->channels;
  const int64_t m = pc->taps_len;
  float **taps = calloc((size_t)ch, sizeof *taps);
  for (int32_t c = 0; c < ch; c++) {
    if (pc->shared && c > 0) {
      taps[c] = taps[0];
      continue;
    }
    taps[c] = malloc(sizeof(float) * (size_t)m);
    ts_fill_uniform(rng, taps[c], m);
  }
  engine_request r;
  request_init(&r, pc, (const float *const *)taps);
  void *impl = NULL;
  char err[256] = "";
  convoy_status st = ops->create(&r, &impl, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "create (%lld taps, fft_size %lld): %s", (long long)m,
           (long long)pc->fft_size, err);
  if (st != CONVOY_OK) goto done_taps;

  int64_t block = ops->granule(impl), dblock = 0;
  int dthreads = 0;
  int64_t n = described_size(ops, impl, &dblock, &dthreads);
  TS_CHECK(n >= m && block == n - m + 1 && dblock == block,
           "%lld taps: N %lld, granule %lld, described block %lld", (long long)m, (long long)n,
           (long long)block, (long long)dblock);
  if (pc->fft_size > 0)
    TS_CHECK(n == pc->fft_size, "forced fft_size %lld, plan has %lld", (long long)pc->fft_size,
             (long long)n);
  TS_CHECK(dthreads >= 1 && dthreads <= pc->threads, "describe says %d threads of %d", dthreads,
           (int)pc->threads);

  /* Bound the work (blocks x N samples transformed): tiny blocks of a big
   * transform are legal but slow. */
  const double budget = quick ? 2e7 : 1e8;
  if ((double)(frames + m - 1) / (double)block * (double)n > budget) {
    frames = (int64_t)(budget / (double)n) * block - (m - 1);
    if (frames < 1) frames = 1;
  }
  /* Whole blocks covering the full convolution. */
  int64_t total = frames + m - 1;
  int64_t n_out = (total + block - 1) / block * block;
  TS_CHECK(block >= 1 && n_out >= 1 && n_out < ((int64_t)1 << 40), "granule %lld, %lld outputs",
           (long long)block, (long long)n_out);
  if (block < 1 || n_out < 1 || n_out >= ((int64_t)1 << 40)) { /* bounds for the allocations */
    ops->destroy(impl);
    goto done_taps;
  }
  int64_t in_len = n_out + m - 1 + CONVOY_ENGINE_SLACK;
  float **in = calloc((size_t)ch, sizeof *in), **out = calloc((size_t)ch, sizeof *out);
  float **out2 = calloc((size_t)ch, sizeof *out2), **x = calloc((size_t)ch, sizeof *x);
  for (int32_t c = 0; c < ch; c++) {
    in[c] = calloc((size_t)in_len, sizeof(float));
    out[c] = malloc(sizeof(float) * (size_t)n_out);
    out2[c] = malloc(sizeof(float) * (size_t)n_out);
    x[c] = in[c] + m - 1;
    ts_fill_uniform(rng, x[c], frames);
  }
  const float **in_at = calloc((size_t)ch, sizeof *in_at);
  float **out_at = calloc((size_t)ch, sizeof *out_at);
  for (int64_t done = 0; done < n_out;) {
    int64_t blocks = ts_range(rng, 1, 3);
    if (blocks * block > n_out - done) blocks = (n_out - done) / block;
    for (int32_t c = 0; c < ch; c++) {
      in_at[c] = in[c] + done;
      out_at[c] = out[c] + done;
    }
    st = ops->run(impl, in_at, out_at, blocks * block, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "run: %s", err);
    done += blocks * block;
  }
  double *ref = calloc((size_t)n_out, sizeof(double));
  for (int32_t c = 0; c < ch; c++) {
    memset(ref, 0, sizeof(double) * (size_t)n_out);
    ts_reference_conv(x[c], frames, taps[c], m, ref);
    double e = ts_rel_l2(out[c], 1, ref, n_out);
    TS_CHECK(e < 1e-5, "%lld taps, N %lld, %lld frames, channel %d: rel L2 error %.3g",
             (long long)m, (long long)n, (long long)frames, (int)c, e);
  }
  free(ref);

  /* One call, different threads: the same bits. */
  void *impl2 = NULL;
  engine_request r2 = r;
  r2.threads = pc->threads == 1 ? 2 : 1;
  st = ops->create(&r2, &impl2, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "create: %s", err);
  if (st == CONVOY_OK) {
    st = ops->run(impl2, (const float *const *)in, out2, n_out, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "run: %s", err);
    for (int32_t c = 0; c < ch; c++)
      TS_CHECK(memcmp(out[c], out2[c], sizeof(float) * (size_t)n_out) == 0,
               "%lld taps, N %lld, channel %d: %d threads in one call differ from %d threads in "
               "calls of 1 .. 3 blocks",
               (long long)m, (long long)n, (int)c, (int)r2.threads, (int)pc->threads);
    ops->destroy(impl2);
  }

  /* A count that is not whole blocks is refused (when blocks exceed 1). */
  if (block > 1) {
    err[0] = '\0';
    st = ops->run(impl, (const float *const *)in, out2, block + 1, err, sizeof err);
    TS_CHECK(st != CONVOY_OK && err[0] != '\0', "run of block + 1 outputs must fail");
  }
  TS_CHECK(ops->run(impl, (const float *const *)in, out2, 0, err, sizeof err) == CONVOY_OK,
           "run of 0 outputs");

  for (int32_t c = 0; c < ch; c++) {
    free(in[c]);
    free(out[c]);
    free(out2[c]);
  }
  free(in);
  free(out);
  free(out2);
  free(x);
  free(in_at);
  free(out_at);
  ops->destroy(impl);
done_taps:
  for (int32_t c = 0; c < ch; c++)
    if (!(pc->shared && c > 0)) free(taps[c]);
  free(taps);
}

static void test_runs(ts_rng *rng) {
  const plan_case fixed[] = {
      /* channels, taps, shared, fft_size, threads, effort */
      {1, 1, 0, 0, 1, 0},       {1, 1, 0, 1, 1, 0},          {1, 1, 0, 2, 2, 0},
      {2, 1, 1, 7, 2, 0},       {1, 64, 0, 64, 1, 0},        {1, 64, 0, 65, 2, 0},
      {3, 1000, 0, 1000, 2, 0}, {1, 1023, 0, 1024, 1, 0},    {2, 1024, 1, 0, 2, 0},
      {4, 1025, 0, 0, 2, 0},    {2, 997, 0, 7919, 2, 0},     {1, 4096, 0, 0, 2, 1},
      {8, 300, 1, 0, 3, 0},     {5, 333, 0, 1000, 2, 1},     {1, 70000, 0, 0, 2, 0},
      {1, 4096, 0, 4096, 2, 0}, {1, 65536, 0, 131071, 2, 0},
  };
  int n_fixed = (int)(sizeof fixed / sizeof fixed[0]);
  for (int i = 0; i < n_fixed; i++) {
    int64_t frames = ts_log_range(rng, 1, quick ? 20000 : 200000);
    check_run(&fixed[i], frames, rng);
  }
  int n_random = quick ? 5 : 25;
  for (int i = 0; i < n_random; i++) {
    plan_case pc = {.channels = (int32_t)ts_range(rng, 1, 4),
                    .taps_len = ts_log_range(rng, 1, quick ? 5000 : 40000),
                    .shared = (int)ts_range(rng, 0, 1),
                    .threads = (int32_t)ts_range(rng, 1, 3)};
    /* Half of them at a forced size: any size, odd or prime, with a block
     * of outputs from 1 to 2 x taps (short blocks only for short filters:
     * the convolution's tail alone takes taps / block transforms). */
    if (ts_range(rng, 0, 1)) {
      int64_t lo = pc.taps_len * pc.taps_len / 2000000 + 1;
      int64_t block = ts_log_range(rng, lo, 2 * pc.taps_len > lo ? 2 * pc.taps_len : lo);
      pc.fft_size = pc.taps_len + block - 1;
    }
    check_run(&pc, ts_log_range(rng, 1, quick ? 20000 : 100000), rng);
  }
}

/* ------------------------------------------------------------ refusals */

static void test_refusals(void) {
  const engine_ops *ops = engine_cpu_fft();
  TS_CHECK(ops && ops->id == CONVOY_ENGINE_CPU_FFT, "engine_cpu_fft()");
  static float taps[2048];
  taps[0] = 1.0f;
  const float *tp[1] = {taps};
  plan_case pc = {1, 2048, 0, 2047, 1, 0};
  engine_request r;
  request_init(&r, &pc, tp);
  void *impl = (void *)&pc;
  char err[256] = "";
  convoy_status st = ops->create(&r, &impl, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT && impl == NULL && strstr(err, "2047"),
           "fft_size below taps: status %d, message '%s'", (int)st, err);
  TS_CHECK(ops->cost(&r) < 0.0, "cost of fft_size below taps must be < 0");
  r.fft_size = 2048;
  TS_CHECK(ops->cost(&r) > 0.0, "cost of fft_size = taps must be > 0");
  r.fft_size = FFT_SIZE_LIMIT + 1;
  TS_CHECK(ops->cost(&r) < 0.0, "cost of fft_size over the limit must be < 0");
  TS_CHECK(ops->create(&r, &impl, err, sizeof err) != CONVOY_OK, "fft_size over the limit");
  r.fft_size = 0;
  r.channels = 0;
  TS_CHECK(ops->cost(&r) < 0.0, "0 channels");
  TS_CHECK(ops->create(&r, &impl, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT, "0 channels");

  /* Long filters cost less per output on the FFT engine than short ones
   * cost per tap: the cost per output grows far slower than the filter. */
  r.channels = 1;
  r.taps_len = 16;
  double c16 = ops->cost(&r);
  r.taps_len = 65536;
  double c64k = ops->cost(&r);
  TS_CHECK(c16 > 0.0 && c64k > c16 && c64k < 20.0 * c16, "cost 16 taps %.3f ns, 65536 taps %.3f ns",
           c16, c64k);
  ops->destroy(NULL);
}

/* ------------------------------------------------------------ planner lock */

static void *plan_worker(void *arg) {
  int *failures = arg;
  const engine_ops *ops = engine_cpu_fft();
  static float taps[300];
  const float *tp[1] = {taps};
  for (int i = 0; i < (quick ? 20 : 100); i++) {
    engine_request r = {.channels = 1,
                        .taps_len = 1 + i % 300,
                        .taps = tp,
                        .threads = 1,
                        .fft_size = 300 + 7 * i,
                        .plan_effort = 0,
                        .device = -1};
    void *impl = NULL;
    char err[256];
    if (ops->create(&r, &impl, err, sizeof err) != CONVOY_OK) (*failures)++;
    ops->destroy(impl);
  }
  return NULL;
}

static void test_concurrent_plans(void) {
  pthread_t th[4];
  int failures[4] = {0};
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, plan_worker, &failures[i]);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    TS_CHECK(failures[i] == 0, "thread %d: %d creates failed", i, failures[i]);
}

int main(void) {
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_fft_plan"));
  const int64_t show[] = {1, 16, 64, 256, 1024, 4096, 16384, 65536, 70000, 1 << 20};
  for (size_t i = 0; i < sizeof show / sizeof show[0]; i++) {
    int64_t n = fft_choose_size(show[i], 1, 0);
    printf("%8lld taps: N %8lld, block %8lld, %.2f ns/output\n", (long long)show[i], (long long)n,
           (long long)(n - show[i] + 1), fft_output_ns(n, show[i], 0));
  }
  test_choose_size(&rng);
  test_choose_size_complex(&rng);
  test_refusals();
  test_runs(&rng);
  test_concurrent_plans();
  return ts_finish();
}
