/* test_gpu_long.c - a GPU stream past 2^31 samples: 64-bit positions in the
 * pipeline, its chunking and the integer output path. Exits 77 without a
 * GPU.
 *
 * The input repeats a block of P frames (P a multiple of the engine's
 * granule), so every output frame n >= P equals output frame P + (n mod P)
 * bit for bit: the GPU engines compute each output from its own inputs only.
 * Any index that wrapped at 2^31 would break that equality, shift the
 * output, or lose frames. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#define PERIOD ((int64_t)1 << 24)

static void run_long(convoy_engine engine, convoy_sample_format out_fmt) {
  const int64_t blocks = ((int64_t)1 << 31) / PERIOD + 3; /* past 2^31 samples */
  float taps[16];
  for (int i = 0; i < 16; i++) taps[i] = (float)(i + 1) / 136.0f;
  convoy_filter *f = NULL;
  TS_CHECK_OK(convoy_filter_create(&f, taps, 16));
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.engine = engine;
  cfg.output_format = out_fmt;
  convoy_stream *s = NULL;
  TS_CHECK_OK(convoy_stream_create(&s, &cfg, &f, 1));
  const size_t width = convoy_sample_format_bytes(out_fmt);
  const int64_t cap = PERIOD + convoy_stream_latency(s) + 64;
  float *in = convoy_host_alloc(sizeof(float) * (size_t)PERIOD);
  unsigned char *out = convoy_host_alloc(width * (size_t)cap);
  unsigned char *ref = malloc(width * (size_t)PERIOD); /* output frames [P, 2P) */
  if (!s || !in || !out || !ref) {
    TS_CHECK(0, "setup failed: %s", convoy_last_error());
    goto done;
  }
  ts_rng rng;
  ts_rng_init(&rng, 12345);
  ts_fill_uniform(&rng, in, PERIOD);
  for (int64_t i = 0; i < PERIOD; i++) in[i] *= 0.5f;
  int64_t produced = 0, mismatched = 0, first_bad = -1;
  for (int64_t b = 0; b < blocks; b++) {
    int64_t n = 0;
    convoy_status st = convoy_stream_process_to(s, CONVOY_FORMAT_F32, in, PERIOD, out, cap, &n);
    if (st != CONVOY_OK) {
      TS_CHECK(0, "block %lld: %s", (long long)b, convoy_stream_last_error(s));
      goto done;
    }
    for (int64_t k = 0; k < n; k++) {
      const int64_t pos = produced + k;
      if (pos < PERIOD) continue;
      const unsigned char *got = out + (size_t)k * width;
      unsigned char *want = ref + (size_t)((pos - PERIOD) % PERIOD) * width;
      if (pos < 2 * PERIOD) {
        memcpy(want, got, width);
      } else if (memcmp(want, got, width) != 0 && mismatched++ == 0) {
        first_bad = pos;
      }
    }
    produced += n;
  }
  const int64_t total = blocks * PERIOD;
  TS_CHECK(produced > ((int64_t)1 << 31) && produced <= total &&
               produced + convoy_stream_latency(s) >= total,
           "%lld frames out of %lld in", (long long)produced, (long long)total);
  TS_CHECK(mismatched == 0, "%s %s: %lld frames past the first period differ (first at %lld)",
           convoy_engine_name(convoy_stream_engine(s)),
           out_fmt == CONVOY_FORMAT_F32 ? "f32" : "s16", (long long)mismatched,
           (long long)first_bad);
  if (out_fmt != CONVOY_FORMAT_F32) {
    convoy_output_stats stats;
    TS_CHECK_OK(convoy_stream_output_stats(s, &stats));
    TS_CHECK(stats.clipped == 0 && stats.peak > 0.1 && stats.peak < 1.0,
             "stats after %lld frames: clipped %lld peak %g", (long long)produced,
             (long long)stats.clipped, stats.peak);
  }
  printf("%s, %s out: %lld frames through, %lld checked against the first period\n",
         convoy_engine_name(convoy_stream_engine(s)), out_fmt == CONVOY_FORMAT_F32 ? "f32" : "s16",
         (long long)produced, (long long)(produced - 2 * PERIOD));
done:
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  convoy_host_free(in);
  convoy_host_free(out);
  free(ref);
}

int main(void) {
  if (convoy_gpu_count() == 0) {
    printf("no GPU: skipped (%s)\n", convoy_last_error());
    return TS_SKIP;
  }
  if (ts_quick()) {
    printf("CONVOY_TEST_QUICK: skipped (moves 2^31 samples)\n");
    return TS_SKIP;
  }
  run_long(CONVOY_ENGINE_GPU_DIRECT, CONVOY_FORMAT_F32);
  run_long(CONVOY_ENGINE_GPU_DIRECT, CONVOY_FORMAT_S16);
  return ts_finish();
}
