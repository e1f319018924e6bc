/*
 * stream_blocks.c - push fixed-size blocks through a convoy stream, the way
 * an audio callback or a capture loop would.
 *
 *   example_stream_blocks [ENGINE]     ENGINE: auto (default), cpu-direct, cpu-fft, ...
 *
 * A 1 kHz tone plus noise at 48 kHz, cut into blocks of 256 frames, goes
 * through a 4 kHz lowpass. The output shows three things:
 *   - latency: an FFT engine holds input back until it has a whole block, so
 *     early calls return fewer frames than they were given and later ones
 *     more (never more than convoy_stream_max_output); a direct engine
 *     returns every frame at once;
 *   - flush: the end of input returns the held frames plus taps - 1 frames of
 *     ring-out, so the total is exactly input + taps - 1;
 *   - chunk invariance: the blocks give bitwise the same output as one call.
 */
#include "convoy.h"
#include "convoy_taps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RATE = 48000, BLOCK = 256, BLOCKS = 64 };
#define INPUT_FRAMES ((int64_t)BLOCK * BLOCKS)

/* Runs the whole input through a fresh stream in calls of `block` frames
 * (block = INPUT_FRAMES: one call) and flushes. Returns the frames written
 * to y, or -1 on error. */
static int64_t run(convoy_filter *filter, convoy_engine engine, const float *x, int64_t block,
                   float *y, int verbose) {
  convoy_stream_config config;
  convoy_stream_config_init(&config);
  config.engine = engine;
  convoy_stream *stream = NULL;
  if (convoy_stream_create(&stream, &config, &filter, 1) != CONVOY_OK) {
    fprintf(stderr, "stream: %s\n", convoy_last_error());
    return -1;
  }
  if (verbose) {
    char plan[256];
    convoy_stream_describe(stream, plan, sizeof plan);
    printf("plan: %s\nlatency: up to %lld frames held back\n", plan,
           (long long)convoy_stream_latency(stream));
  }

  /* A caller's output buffer, sized once: process() returns at most its
   * input plus the frames held back from earlier calls (at most the
   * latency), and flush() the held frames plus taps - 1 of ring-out. */
  int64_t cap = block + convoy_stream_latency(stream) + convoy_stream_taps(stream) - 1;
  float *out = malloc(sizeof(float) * (size_t)cap);
  if (!out) goto fail;

  int64_t total = 0, produced = 0;
  for (int64_t at = 0; at < INPUT_FRAMES; at += block) {
    int64_t n = INPUT_FRAMES - at < block ? INPUT_FRAMES - at : block;
    if (convoy_stream_process(stream, x + at, n, out, cap, &produced) != CONVOY_OK) goto fail;
    if (verbose && at / block < 10)
      printf("  block %2lld: %lld frames in, %lld out\n", (long long)(at / block), (long long)n,
             (long long)produced);
    memcpy(y + total, out, sizeof(float) * (size_t)produced);
    total += produced;
  }
  if (verbose)
    printf("  ...\n  before flush: %lld frames in, %lld out\n", (long long)INPUT_FRAMES,
           (long long)total);
  if (convoy_stream_flush(stream, out, cap, &produced) != CONVOY_OK) goto fail;
  if (verbose) printf("  flush: %lld frames (held input + ring-out)\n", (long long)produced);
  memcpy(y + total, out, sizeof(float) * (size_t)produced);
  total += produced;
  free(out);
  convoy_stream_destroy(stream);
  return total;
fail:
  fprintf(stderr, "stream: %s\n", convoy_stream_last_error(stream));
  free(out);
  convoy_stream_destroy(stream);
  return -1;
}

int main(int argc, char **argv) {
  convoy_engine engine = CONVOY_ENGINE_AUTO;
  if (argc > 1 && convoy_engine_from_name(argv[1], &engine) != CONVOY_OK) {
    fprintf(stderr, "%s\n", convoy_last_error());
    return 1;
  }

  char err[256];
  convoy_design design;
  convoy_taps taps;
  convoy_filter *filter = NULL;
  if (convoy_design_parse("lowpass:cutoff=4000,width=1000,atten=60", RATE, &design, err,
                          sizeof err) != CONVOY_OK ||
      convoy_design_taps(&design, &taps, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  convoy_status st = convoy_filter_create(&filter, taps.data, taps.length);
  convoy_taps_free(&taps);
  if (st != CONVOY_OK) {
    fprintf(stderr, "filter: %s\n", convoy_last_error());
    return 2;
  }
  int64_t n_taps = convoy_filter_length(filter);
  printf("lowpass 4 kHz at %d Hz: %lld taps\n", RATE, (long long)n_taps);

  /* Input: 1 kHz tone plus a little deterministic noise. */
  float *x = malloc(sizeof(float) * INPUT_FRAMES);
  float *blocks = malloc(sizeof(float) * (size_t)(INPUT_FRAMES + n_taps));
  float *whole = malloc(sizeof(float) * (size_t)(INPUT_FRAMES + n_taps));
  if (!x || !blocks || !whole) return 2;
  uint32_t seed = 1;
  for (int64_t i = 0; i < INPUT_FRAMES; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = 0.5f * sinf(2.0f * 3.14159265f * 1000.0f * (float)i / RATE) +
           0.05f * ((float)(seed >> 8) / 8388608.0f - 1.0f);
  }

  printf("%d blocks of %d frames:\n", BLOCKS, BLOCK);
  int64_t n_blocks = run(filter, engine, x, BLOCK, blocks, 1);
  int64_t n_whole = run(filter, engine, x, INPUT_FRAMES, whole, 0);
  convoy_filter_destroy(filter);
  if (n_blocks < 0 || n_whole < 0) return 2;

  int same = n_blocks == n_whole && memcmp(blocks, whole, sizeof(float) * (size_t)n_whole) == 0;
  printf("total: %lld frames = %lld input + %lld ring-out\n", (long long)n_blocks,
         (long long)INPUT_FRAMES, (long long)(n_taps - 1));
  printf("blocks vs one call: %s\n", same ? "bitwise identical" : "DIFFERENT");
  free(x);
  free(blocks);
  free(whole);
  return same && n_blocks == INPUT_FRAMES + n_taps - 1 ? 0 : 1;
}
