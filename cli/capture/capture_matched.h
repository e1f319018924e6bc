/*
 * capture_matched.h - matched filtering of a capture with `convoy filter
 * --matched TEMPLATE` (alias --correlate): the filter is the conjugated,
 * time-reversed template, so the output is the cross-correlation of the
 * input with the template (numpy.correlate(x, template, mode)), peaking where
 * the template occurs.
 *
 * TEMPLATE is a raw capture named by its extension (any datatype of
 * io/capture.h, scaled by its default; complex or real) or a SigMF recording
 * of one channel. --window (none, hamming, hann, kaiser[:beta=B]) weights the
 * template and --normalize-template scales it to unit energy, both as
 * include/convoy_pulse.h defines them (the same code prepares both).
 *
 * Output modes (T template samples, N input samples; full = the N + T - 1
 * outputs of the filter): full keeps them all, same keeps N from (T-1)/2
 * (numpy's centring: an occurrence at input sample d peaks near d), valid
 * keeps the N - T + 1 from T - 1 (where the template lies inside the input;
 * an occurrence at d peaks at d). The streaming pass of cli/capture/capture_run.h
 * does the work, so any length of capture and any chunking give the same
 * output.
 *
 * With --pulse-len the input is a batch of pulses instead (cli/capture/capture_pulses.h).
 */
#ifndef CONVOY_CLI_CAPTURE_MATCHED_H
#define CONVOY_CLI_CAPTURE_MATCHED_H

#include "argparse.h"
#include "capture_args.h"
#include "capture_taps.h"
#include "filter_options.h"

#include <stddef.h>
#include <stdint.h>

/* The options of this file, for capture_matched_option. */
typedef enum capture_matched_opt {
  MATCHED_OPT_TEMPLATE = 0, /* --matched / --correlate TEMPLATE */
  MATCHED_OPT_WINDOW,       /* --window NAME */
  MATCHED_OPT_NORMALIZE,    /* --normalize-template (no value) */
  MATCHED_OPT_MODE,         /* --mode full|same|valid */
  MATCHED_OPT_PULSES,       /* --pulses P */
  MATCHED_OPT_PULSE_LEN     /* --pulse-len L */
} capture_matched_opt;

/* Stores one option's value into *m; a bad value prints a usage line naming
 * p->current and returns CLI_EXIT_USAGE, else CLI_EXIT_OK. */
int capture_matched_option(const arg_parser *p, capture_matched_args *m, capture_matched_opt which,
                           const char *val);

/* Checks how the matched options combine with the rest of o after parsing
 * (--matched excludes --taps/--ir/--design, --tail and --align; the other
 * options need --matched; --pulses needs --pulse-len). Prints a usage line
 * and returns CLI_EXIT_USAGE, or CLI_EXIT_OK. */
int capture_matched_check(const char *cmd, const filter_options *o);

/* A template as loaded: `length` complex samples (re, im pairs; im 0 for a
 * real template). */
typedef struct capture_template {
  float *iq; /* malloc'd, 2 * length floats */
  int64_t length;
  int is_complex; /* the file held complex samples */
  double rate;    /* core:sample_rate of a SigMF template; 0 unknown */
} capture_template;

/* Loads o's template for the input in_name (complex_input: IN is complex;
 * rate: IN's rate, 0 unknown). Refuses a complex template on a real input, a
 * multi-channel template, non-finite samples and a rate that differs from
 * IN's. Prints one error line and returns CLI_EXIT_FAIL on failure. */
int capture_template_load(const filter_options *o, const char *in_name, int complex_input,
                          double rate, capture_template *t);
void capture_template_free(capture_template *t); /* NULL-safe on a zeroed struct */

/* Makes the matched filter of o's template as one filter for every channel
 * (complex taps when the template is complex). t->delay is T - 1, where the
 * full correlation puts an occurrence at input sample 0. Prints one error
 * line and returns CLI_EXIT_FAIL on failure. */
int capture_matched_taps(const filter_options *o, const char *in_name, int complex_input,
                         double rate, capture_taps *t);

/* The streaming output window of o's mode for `frames` input frames and a
 * template of `taps` samples, as cli/capture/capture_run.h takes it: *skip frames
 * dropped at the start, *tail (keep the ring-out), *drop_end frames dropped
 * at the end. valid with a template longer than the input prints one error
 * line naming both lengths and returns CLI_EXIT_FAIL. */
int capture_matched_window(const filter_options *o, const char *in_name, int64_t frames,
                           int64_t taps, int64_t *skip, int *tail, int64_t *drop_end);

/* The name of a mode: "full", "same" or "valid". */
const char *capture_matched_mode_name(convoy_pulse_mode mode);

/* The options as the SigMF processing record names the filter: *o, and
 * with --matched a design of one line written into design (always
 * NUL-terminated), e.g. "matched:template=chirp.cf32,mode=same,window=hann,
 * normalize", with pulses and the pulse length when --pulse-len is given.
 * recorded->taps_arg points into design. */
void capture_matched_recorded(const filter_options *o, int64_t pulses, filter_options *recorded,
                              char *design, size_t size);

#endif /* CONVOY_CLI_CAPTURE_MATCHED_H */
