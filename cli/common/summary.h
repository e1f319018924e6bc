/*
 * summary.h - the report `convoy filter` prints on stderr when it is done
 * (unless -q): what was written, the level reached, and how fast.
 */
#ifndef CONVOY_CLI_SUMMARY_H
#define CONVOY_CLI_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

typedef struct filter_summary {
  const char *in_name, *out_name;
  int64_t frames; /* frames written */
  int32_t channels;
  int32_t rate;
  int32_t format;     /* libsndfile container | subtype of the output */
  int64_t taps;       /* longest filter */
  const char *engine; /* engine that ran */
  double peak;        /* largest |sample| before saturation, 1.0 = 0 dBFS */
  int64_t clipped;    /* samples saturated */
  double gain_db;     /* gain applied (--gain or --normalize) */
  int normalized;     /* gain came from --normalize */
  double elapsed_s;   /* wall time, both passes */
} filter_summary;

/* linear (1.0 = 0 dBFS) as "+1.23 dBFS", or "-inf dBFS" when it is 0. */
void summary_format_level(char *buf, size_t size, double linear);

/* Short name of a libsndfile subtype: "pcm16", "float", "vorbis"... */
const char *summary_subtype_name(int32_t format);

/* Prints the report, and a clipping warning when samples were clipped. */
void summary_print(const filter_summary *s);

/* A capture report's level line: the peak before saturation (1.0 = 0
 * dBFS) and the values clipped. */
void summary_capture_level(double peak, int64_t clipped);

/* When values clipped, the warning that names the --gain that avoids it. */
void summary_capture_clip_warning(double peak, int64_t clipped);

#endif /* CONVOY_CLI_SUMMARY_H */
