/*
 * capture_taps.h - the taps of `convoy filter` on a capture: real taps from
 * --taps, --ir or --design as for audio, or complex taps from a raw capture
 * file named by its extension (--taps pulse.cf32: complex float32 I/Q pairs,
 * as numpy's complex64 .tofile() writes them; any complex datatype of
 * io/capture.h, scaled by its default). A real-datatype taps file
 * (.f32, .rf64, ...) gives real taps.
 */
#ifndef CONVOY_CLI_CAPTURE_TAPS_H
#define CONVOY_CLI_CAPTURE_TAPS_H

#include "convoy.h"
#include "filter_options.h"

#include <stdint.h>

/* Longest taps file read, taps. */
#define CAPTURE_TAPS_MAX ((int64_t)1 << 28)

typedef struct capture_taps {
  convoy_filter *filters[CONVOY_MAX_CHANNELS];
  int32_t count;    /* 1 (one filter for every channel) or the input's channels */
  int64_t max_taps; /* longest filter */
  int64_t delay;    /* smallest rounded group delay over the filters, frames */
  int linear_phase; /* every filter is linear phase */
  int complex_taps; /* the filters are CONVOY_SAMPLE_CF32 */
} capture_taps;

/* Makes the filters for an input named in_name with `channels` channels at
 * `rate` Hz (0: unknown; a design then needs rate= in its spec, and a taps
 * rate is not checked). complex_input: the signal is complex (complex taps
 * need it). Prints one error line and returns CLI_EXIT_FAIL on failure. */
int capture_taps_make(const filter_options *o, const char *in_name, int32_t channels, double rate,
                      int complex_input, capture_taps *t);

/* --gain as a linear factor. The filters carry it in their taps, so the
 * stream's output needs no scaling afterwards. */
float capture_taps_gain(const filter_options *o);

/* h[i] *= capture_taps_gain(o) for i < n (n floats). */
void capture_taps_apply_gain(const filter_options *o, float *h, int64_t n);

/* Destroys the filters. NULL-safe on a zeroed struct. */
void capture_taps_free(capture_taps *t);

#endif /* CONVOY_CLI_CAPTURE_TAPS_H */
