/*
 * band_level.c - measure a recording's level in a few frequency bands, with
 * convoy bandpass filters: a way to check what a filter removed.
 *
 *   example_band_level FILE [FILE2]
 *
 * Prints the RMS level (dBFS, all channels together) of each file in the
 * bands of the bundled demo: mains hum at 50 and 150 Hz, the voice band, and
 * hiss above 4 kHz. With two files (before, after) it prints both and the
 * change. Bands above the file's Nyquist frequency are left out.
 */
#include "audio_file.h"
#include "convoy.h"
#include "convoy_taps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct band {
  const char *label;
  const char *spec; /* a convoy design; the rate comes from the file */
  double top;       /* highest frequency the band needs, Hz */
} bands[] = {
    {"hum 50 Hz", "bandpass:low=40,high=60,width=10,atten=80", 65},
    {"hum 150 Hz", "bandpass:low=140,high=160,width=10,atten=80", 165},
    {"voice 300-3400 Hz", "bandpass:low=300,high=3400,width=100,atten=80", 3450},
    {"hiss 4.2-7.5 kHz", "bandpass:low=4200,high=7500,width=100,atten=80", 7550},
};
#define N_BANDS ((int)(sizeof bands / sizeof bands[0]))

enum { BLOCK = 8192 };

/* RMS in dBFS of FILE filtered by SPEC, skipping the filter's start-up
 * (the first taps - 1 output frames, which see the zeros before the file).
 * Returns NAN on error, after printing it. */
static double band_rms_db(const char *path, const char *spec) {
  char err[256];
  audio_source *src = NULL;
  audio_info info;
  if (audio_source_open(&src, path, &info, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", err);
    return NAN;
  }
  convoy_design design;
  convoy_taps taps;
  convoy_filter *filter = NULL;
  convoy_stream *stream = NULL;
  float *x = NULL, *y = NULL;
  double sum = 0.0, result = NAN;
  int64_t counted = 0, seen = 0;

  if (convoy_design_parse(spec, info.rate, &design, err, sizeof err) != CONVOY_OK ||
      convoy_design_taps(&design, &taps, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", err);
    goto done;
  }
  convoy_status st = convoy_filter_create(&filter, taps.data, taps.length);
  convoy_taps_free(&taps);
  convoy_stream_config config;
  convoy_stream_config_init(&config);
  config.channels = info.channels;
  if (st == CONVOY_OK) st = convoy_stream_create(&stream, &config, &filter, 1);
  if (st != CONVOY_OK) {
    fprintf(stderr, "%s: %s\n", spec, convoy_last_error());
    goto done;
  }
  /* Frames [taps - 1, input length) are measured: the filter's start-up
   * transient and its ring-out are not part of the file. */
  int64_t skip = convoy_stream_taps(stream) - 1;
  /* One block in, plus whatever the stream held back (or the flushed tail). */
  int64_t cap = BLOCK + convoy_stream_latency(stream) + convoy_stream_taps(stream);
  x = malloc(sizeof(float) * BLOCK * (size_t)info.channels);
  y = malloc(sizeof(float) * (size_t)cap * (size_t)info.channels);
  if (!x || !y) goto done;

  int64_t got, produced, input_frames = 0;
  for (int last = 0; !last;) {
    if (audio_source_read(src, x, BLOCK, &got, err, sizeof err) != CONVOY_OK) {
      fprintf(stderr, "%s\n", err);
      goto done;
    }
    input_frames += got;
    last = got == 0;
    st = last ? convoy_stream_flush(stream, y, cap, &produced)
              : convoy_stream_process(stream, x, got, y, cap, &produced);
    if (st != CONVOY_OK) {
      fprintf(stderr, "%s\n", convoy_stream_last_error(stream));
      goto done;
    }
    for (int64_t k = 0; k < produced; k++, seen++) {
      if (seen < skip || seen >= input_frames) continue;
      for (int c = 0; c < info.channels; c++) {
        double v = y[k * info.channels + c];
        sum += v * v;
      }
      counted += info.channels;
    }
  }
  if (counted > 0) result = 10.0 * log10(sum / (double)counted + 1e-30);
done:
  free(x);
  free(y);
  convoy_stream_destroy(stream);
  convoy_filter_destroy(filter);
  audio_source_close(src);
  return result;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s FILE [FILE2]\n", argv[0]);
    return 1;
  }
  int files = argc - 1;
  char err[256];
  audio_source *src = NULL;
  audio_info info;
  if (audio_source_open(&src, argv[1], &info, err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  audio_source_close(src);

  if (files == 2) printf("  %-20s %8s %8s %8s\n", "band", "before", "after", "change");
  for (int b = 0; b < N_BANDS; b++) {
    if (bands[b].top >= info.rate / 2.0) continue;
    double level[2];
    for (int f = 0; f < files; f++) {
      level[f] = band_rms_db(argv[1 + f], bands[b].spec);
      if (isnan(level[f])) return 2;
    }
    if (files == 1)
      printf("  %-20s %8.1f dBFS\n", bands[b].label, level[0]);
    else
      printf("  %-20s %8.1f %8.1f %+8.1f dB\n", bands[b].label, level[0], level[1],
             level[1] - level[0]);
  }
  return 0;
}
