/*
 * capture_xlate.h - `convoy filter --decimate D --shift HZ` on captures: a
 * frequency-translating, decimating filter (convoy_stream_config.decimation
 * and .shift, whose definition is in convoy.h).
 *
 * --shift HZ moves the content at HZ to 0 Hz: the input is multiplied by
 * e^{-j 2 pi HZ t} before the filter (t in seconds from the input's first
 * sample; with --cold-start, from the first sample after --skip), so it
 * needs a complex capture and a sample rate, and |HZ| at most half of it.
 * --decimate D keeps every D-th filtered frame on a grid fixed at the
 * input's first frame: output k is the aligned signal's frame k D (with a
 * warm --skip N, the selection's frames k D + (-N mod D), the whole run's;
 * with --cold-start the grid starts at the first frame of the output
 * window), whatever number s of filtered frames is dropped before the
 * window (--align's delay, --matched's mode): the stream keeps the frames at
 * s mod D (convoy_stream_config.decimation_phase), while the shift still
 * follows the input's own sample index.
 * SigMF output: core:sample_rate / D, annotations and captures rescaled
 * (sigmf_meta_decimate), core:frequency + HZ (sigmf_meta_retune), and both
 * recorded in convoy:processing.
 */
#ifndef CONVOY_CLI_CAPTURE_XLATE_H
#define CONVOY_CLI_CAPTURE_XLATE_H

#include "argparse.h"
#include "capture_args.h"
#include "convoy.h"
#include "filter_options.h"
#include "sigmf.h"

#include <stddef.h>
#include <stdint.h>

/* Parses the value of --decimate (is_shift 0) or --shift (1) into *x. */
int capture_xlate_option(const arg_parser *p, capture_xlate_args *x, int is_shift, const char *val);

/* Checks the combination with other options (after parsing). */
int capture_xlate_check(const char *cmd, const filter_options *o);

/* Sets cfg->decimation, its phase for `dropped` filtered frames before the
 * window, and cfg->shift for a capture (in_name for messages) of the given
 * kind and rate (0: unknown). Prints one error and returns CLI_EXIT_USAGE
 * (no rate) or CLI_EXIT_FAIL (the input rules --shift out) when --shift
 * cannot apply. */
int capture_xlate_config(const filter_options *o, const char *in_name, int is_complex, double rate,
                         int64_t dropped, convoy_stream_config *cfg);

/* D of the run: 1 when --decimate was not given. */
int64_t capture_xlate_factor(const capture_xlate_args *x);

/* One -v line: which filtered frames the output holds, for `dropped`
 * frames before the window and the kept frames at window frames k D +
 * phase. Nothing without --decimate. */
void capture_xlate_describe(const capture_xlate_args *x, int64_t dropped, int64_t phase);

/* Edits SigMF metadata already in the window's full-rate sample positions:
 * decimation (output k at window frame k D + phase) then retune. */
convoy_status capture_xlate_meta(sigmf_meta *m, const capture_xlate_args *x, int64_t phase,
                                 char *err, size_t err_size);

#endif /* CONVOY_CLI_CAPTURE_XLATE_H */
