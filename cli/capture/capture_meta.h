/*
 * capture_meta.h - the SigMF metadata of a filtered capture: the input's
 * metadata (or a minimal document for a raw input) with the sample rate of
 * --rate, captures and annotations moved to where their samples are in the
 * output, and a convoy:processing record of the filter.
 *
 * Sample positions: output sample k holds the filtered input sample
 * skip + k - delay (skip: --skip; delay: the filter's delay left in the
 * output, 0 after --align). Metadata is first shifted by -skip (what lay
 * before the skipped part is cut at 0 or dropped), then by +delay.
 * Then --decimate and --shift rescale and retune it (cli/capture/capture_xlate.h).
 * Clipping to the samples written is sigmf_writer_commit()'s.
 */
#ifndef CONVOY_CLI_CAPTURE_META_H
#define CONVOY_CLI_CAPTURE_META_H

#include "capture_io.h"
#include "capture_taps.h"
#include "filter_options.h"
#include "sigmf.h"

#include <stdint.h>

typedef struct capture_meta_info {
  const filter_options *o;
  const capture_in *in;
  const capture_out *out;
  const capture_taps *taps;
  const char *engine; /* convoy_engine_name() of the engine that ran */
  int64_t delay;      /* filter delay left in the output, samples */
  int64_t clipped;    /* output values saturated */
} capture_meta_info;

/* Builds the output metadata into *meta (sigmf_meta_free() it). Prints one
 * error line and returns CLI_EXIT_FAIL on failure. */
int capture_meta_make(const capture_meta_info *info, sigmf_meta **meta);

#endif /* CONVOY_CLI_CAPTURE_META_H */
