/*
 * test_quantize.c - io/quantize.h, whose loops are vectorised (and built
 * for AVX-512 where the CPU has it), against the rule of
 * pipeline/sample_quantize.h evaluated one sample at a time: codes, clip
 * counts and peaks equal for widths 2 .. 16 (short) and 2 .. 32 (int), with
 * and without dither, random signals and the edges (+-1, the rounding and
 * clipping boundaries of each width, NaN, infinities, huge values, -0,
 * subnormals), lengths 0 .. 5000 cut into random calls (the dither noise's
 * position carried across them); the peak of float output the same way.
 * The ctest entry test_quantize_generic runs
 * it again on the baseline build (CONVOY_IO_TEST_GENERIC_QUANT=1).
 */
#include "quantize.h"
#include "sample_quantize.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A random sample: mostly in range, often at an edge of width `bits`. */
static float sample(ts_rng *rng, int bits) {
  const double full = ldexp(1.0, bits - 1);
  switch (ts_range(rng, 0, 11)) {
  case 0:
    return 1.0f;
  case 1:
    return -1.0f;
  case 2:
    return (float)((full - 0.5) / full); /* the clipping boundary */
  case 3:
    return (float)((-full - 0.5) / full);
  case 4:
    return nextafterf((float)((full - 0.5) / full), 0.0f);
  case 5:
    return (float)((ts_range(rng, -200, 200) + 0.5) / full); /* ties */
  case 6: {
    static const float odd[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, -0.0f, 1e-40f, -1e-42f};
    return odd[ts_range(rng, 0, 7)];
  }
  case 7:
    return (float)(2.5 * (ts_uniform(rng) - 0.5)); /* some clip */
  default:
    return (float)(2.0 * ts_uniform(rng) - 1.0);
  }
}

static void check_case(ts_rng *rng, int bits, int as_short, int dither) {
  const size_t n = (size_t)ts_log_range(rng, 1, 5000) - (ts_uniform(rng) < 0.05 ? 1 : 0);
  const uint64_t seed = ts_next(rng);
  float *x = malloc(sizeof(float) * (n ? n : 1));
  int32_t *got = malloc(sizeof(int32_t) * (n ? n : 1));
  short *got16 = malloc(sizeof(short) * (n ? n : 1));
  TS_CHECK(x && got && got16, "out of memory");
  if (!x || !got || !got16) goto done;
  for (size_t i = 0; i < n; i++) x[i] = sample(rng, bits);

  quantizer q;
  quantizer_init(&q, bits, dither, seed);
  const uint64_t start = (uint64_t)ts_range(rng, 0, 1000); /* a writer part's position */
  q.index = start;
  for (size_t at = 0; at < n;) {
    const size_t m = (size_t)ts_range(rng, 1, (int64_t)(n - at));
    if (as_short)
      quantize_to_short(&q, x + at, m, got16 + at);
    else
      quantize_to_int(&q, x + at, m, got + at);
    at += m;
  }

  const double full = ldexp(1.0, bits - 1);
  const int32_t step =
      as_short ? (int32_t)1 << (16 - bits) : (bits >= 32 ? 1 : (int32_t)1 << (32 - bits));
  const int noisy = dither && bits <= SQ_DITHER_MAX_BITS;
  int64_t clipped = 0, wrong = 0, first_wrong = -1;
  double peak = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double ax = fabs((double)x[i]);
    if (ax > peak) peak = ax;
    int c = 0;
    const int32_t want = sq_code(x[i], full, noisy ? sq_tpdf(seed, start + i) : 0.0, &c) * step;
    clipped += c;
    const int32_t have = as_short ? got16[i] : got[i];
    if (have != want) {
      if (first_wrong < 0) first_wrong = (int64_t)i;
      wrong++;
    }
  }
  TS_CHECK(wrong == 0,
           "%s %d bits%s, %zu samples: %lld codes differ from the rule, first at %lld (x = %.9g)",
           as_short ? "short" : "int", bits, dither ? " dithered" : "", n, (long long)wrong,
           (long long)first_wrong, first_wrong >= 0 ? (double)x[first_wrong] : 0.0);
  TS_CHECK(q.clipped == clipped, "%d bits: clipped %lld, the rule %lld", bits, (long long)q.clipped,
           (long long)clipped);
  TS_CHECK(q.peak == peak, "%d bits: peak %.9g, the rule %.9g", bits, q.peak, peak);
done:
  free(x);
  free(got);
  free(got16);
}

/* Float output: quantize_track_float's peak over random calls is max |x|,
 * NaN ignored, as one sample at a time gives it. */
static void check_float_case(ts_rng *rng) {
  const size_t n = (size_t)ts_log_range(rng, 1, 5000);
  float *x = malloc(sizeof(float) * n);
  TS_CHECK(x != NULL, "out of memory");
  if (!x) return;
  for (size_t i = 0; i < n; i++) x[i] = sample(rng, 24) * (float)ts_range(rng, 1, 3);
  quantizer q;
  quantizer_init(&q, 32, 0, 0);
  double peak = 0.0;
  for (size_t at = 0; at < n;) {
    const size_t m = (size_t)ts_range(rng, 1, (int64_t)(n - at));
    quantize_track_float(&q, x + at, m);
    at += m;
  }
  for (size_t i = 0; i < n; i++)
    if (fabs((double)x[i]) > peak) peak = fabs((double)x[i]);
  TS_CHECK(q.peak == peak, "float, %zu samples: peak %.9g, the rule %.9g", n, q.peak, peak);
  TS_CHECK(q.clipped == 0, "float output counted clips");
  free(x);
}

int main(void) {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_quantize"));
  for (int round = 0; round < (ts_quick() ? 2 : 6); round++)
    for (int bits = 2; bits <= 32; bits++)
      for (int dither = 0; dither <= 1; dither++) {
        if (bits <= 16) check_case(&rng, bits, 1, dither);
        check_case(&rng, bits, 0, dither);
      }
  for (int round = 0; round < (ts_quick() ? 20 : 200); round++) check_float_case(&rng);
  /* Nothing to quantize changes nothing. */
  quantizer q;
  quantizer_init(&q, 16, 1, 7);
  quantize_to_short(&q, NULL, 0, NULL);
  TS_CHECK(q.index == 0 && q.clipped == 0 && q.peak == 0.0, "an empty call moved the quantizer");
  return ts_finish();
}
