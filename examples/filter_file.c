/*
 * filter_file.c - filter an audio file through the convoy API.
 *
 *   example_filter_file IN OUT SPEC
 *   example_filter_file examples/noisy_speech.wav clean.wav bandpass:low=200,high=3800,width=100
 *
 * Reads IN with libsndfile, designs the filter SPEC at IN's sample rate,
 * streams the file through a convoy stream in blocks, and writes OUT as a
 * 32-bit float WAV. OUT holds the full convolution: taps - 1 frames longer
 * than IN (the filter's ring-out). The `convoy filter` command does the same
 * with more care (dither, clip counting, temporary files, alignment).
 */
#include "convoy.h"
#include "convoy_taps.h"

#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 4096 }; /* frames read per process() call */

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s IN OUT SPEC\n", argv[0]);
    return 1;
  }
  SF_INFO in_info = {0};
  SNDFILE *in = sf_open(argv[1], SFM_READ, &in_info);
  if (!in) {
    fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
    return 2;
  }

  /* Taps from a design spec; the rate comes from the file. */
  char err[256];
  convoy_design design;
  convoy_taps taps;
  if (convoy_design_parse(argv[3], in_info.samplerate, &design, err, sizeof err) != CONVOY_OK ||
      convoy_design_taps(&design, &taps, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  convoy_filter *filter = NULL;
  convoy_status st = convoy_filter_create(&filter, taps.data, taps.length);
  convoy_taps_free(&taps); /* the filter keeps its own copy */
  if (st != CONVOY_OK) {
    fprintf(stderr, "filter: %s\n", convoy_last_error());
    return 2;
  }

  /* One stream for all channels of the file, one filter shared by them. */
  convoy_stream_config config;
  convoy_stream_config_init(&config);
  config.channels = in_info.channels;
  convoy_stream *stream = NULL;
  st = convoy_stream_create(&stream, &config, &filter, 1);
  convoy_filter_destroy(filter); /* the stream keeps the filter alive */
  if (st != CONVOY_OK) {
    fprintf(stderr, "stream: %s\n", convoy_last_error());
    return 2;
  }
  char plan[256];
  convoy_stream_describe(stream, plan, sizeof plan);
  printf("%s: %lld taps, %s\n", argv[3], (long long)convoy_stream_taps(stream), plan);

  SF_INFO out_info = {.samplerate = in_info.samplerate,
                      .channels = in_info.channels,
                      .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
  SNDFILE *out = sf_open(argv[2], SFM_WRITE, &out_info);
  if (!out) {
    fprintf(stderr, "%s: %s\n", argv[2], sf_strerror(NULL));
    return 2;
  }

  /* Output room, sized once: process() returns at most its input plus the
   * frames held back from earlier calls (at most the latency), and flush()
   * the held frames plus taps - 1 frames of ring-out. */
  int64_t cap = BLOCK + convoy_stream_latency(stream) + convoy_stream_taps(stream) - 1;
  float *x = malloc(sizeof(float) * BLOCK * (size_t)in_info.channels);
  float *y = malloc(sizeof(float) * (size_t)cap * (size_t)in_info.channels);
  if (!x || !y) return 2;

  int64_t got, produced, total = 0;
  while ((got = sf_readf_float(in, x, BLOCK)) > 0) {
    st = convoy_stream_process(stream, x, got, y, cap, &produced);
    if (st != CONVOY_OK) break;
    total += sf_writef_float(out, y, produced);
  }
  if (st == CONVOY_OK) st = convoy_stream_flush(stream, y, cap, &produced);
  if (st != CONVOY_OK) {
    fprintf(stderr, "filtering: %s\n", convoy_stream_last_error(stream));
    return 2;
  }
  total += sf_writef_float(out, y, produced);
  int64_t ring_out = convoy_stream_taps(stream) - 1;
  if (total != in_info.frames + ring_out) {
    fprintf(stderr, "%s: write failed: %s\n", argv[2], sf_strerror(out));
    return 2;
  }
  printf("wrote %s: %lld frames (input %lld + %lld ring-out)\n", argv[2], (long long)total,
         (long long)in_info.frames, (long long)ring_out);

  sf_close(out);
  sf_close(in);
  convoy_stream_destroy(stream);
  free(x);
  free(y);
  return 0;
}
