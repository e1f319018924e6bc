/*
 * summary.h - the report `convoy filter` prints on stderr when it is done
 * (unless -q): what was written, the level reached, and how fast.
 */
#ifndef CONVOY_CLI_SUMMARY_H
#define CONVOY_CLI_SUMMARY_H

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

/* Short name of a libsndfile subtype: "pcm16", "float", "vorbis"... */
const char *summary_subtype_name(int32_t format);

/* Prints the report, and a clipping warning when samples were clipped. */
void summary_print(const filter_summary *s);

#endif /* CONVOY_CLI_SUMMARY_H */
