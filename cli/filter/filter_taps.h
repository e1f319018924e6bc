/*
 * filter_taps.h - the taps of `convoy filter` (from --taps, --ir or --design),
 * checked against the input and turned into convoy_filter objects.
 */
#ifndef CONVOY_CLI_FILTER_TAPS_H
#define CONVOY_CLI_FILTER_TAPS_H

#include "convoy.h"
#include "filter_options.h"

#include <stdint.h>

typedef struct filter_set {
  convoy_filter *filters[CONVOY_MAX_CHANNELS];
  int32_t count;     /* 1 (same filter for all channels) or the input's channels */
  int64_t max_taps;  /* longest filter */
  int64_t min_delay; /* smallest rounded group delay over the filters, frames */
  int linear_phase;  /* every filter is linear phase */
  int true_stereo;   /* a 4-channel IR on a stereo input: filters[] hold L->L, R->L,
                        L->R, R->R for a stream of 4 channels fed L, R, L, R, whose
                        pairs of outputs are summed (filter_run.h) */
} filter_set;

/* Loads or designs the taps for an input named in_name with `channels`
 * channels at `rate` Hz. Checks that the taps have 1 or `channels` channels,
 * or 4 on a stereo input (true stereo: L->L, L->R, R->L, R->R, the order of
 * convoy live, jconvolver and ir.lv2), and, when they carry a rate (an IR
 * file, a design with rate=), that it equals the input's. Prints one error line and returns
 * CLI_EXIT_FAIL on failure, CLI_EXIT_OK on success. */
int filter_set_make(const filter_options *o, const char *in_name, int32_t channels, int32_t rate,
                    filter_set *set);

/* Destroys the filters. NULL-safe on a zeroed set. */
void filter_set_free(filter_set *set);

#endif /* CONVOY_CLI_FILTER_TAPS_H */
