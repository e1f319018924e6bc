/*
 * capture_args.h - the capture options of `convoy filter` (--format,
 * --out-format, --skip, --count, --scale ...), as parsed from the command
 * line. filter_options.c calls these; cli/capture/capture_filter.c uses the result.
 */
#ifndef CONVOY_CLI_CAPTURE_ARGS_H
#define CONVOY_CLI_CAPTURE_ARGS_H

#include "convoy_pulse.h"

#include <stdint.h>

/* A position or length given as samples ("1000") or seconds ("0.5s"). */
typedef struct capture_span {
  int given;       /* the option was on the command line */
  int in_seconds;  /* 1: `seconds` holds the value; 0: `samples` does */
  int64_t samples; /* >= 0 */
  double seconds;  /* >= 0, finite */
} capture_span;

/* Matched filtering (cli/capture/capture_matched.h) and batched pulse compression
 * (cli/capture/capture_pulses.h). A zeroed struct means "not asked for". */
typedef struct capture_matched_args {
  const char *template_path;  /* --matched / --correlate TEMPLATE; NULL when absent */
  const char *window_name;    /* --window as given; NULL when absent */
  convoy_pulse_window window; /* parsed --window; NONE by default */
  double kaiser_beta;         /* kaiser shape, 0 .. 50 */
  int normalize;              /* --normalize-template: unit-energy template */
  int mode_given;             /* --mode was on the command line */
  convoy_pulse_mode mode;     /* --mode; FULL by default */
  int64_t pulses;             /* --pulses P, >= 1; 0 when absent */
  int64_t pulse_len;          /* --pulse-len L, >= 1; 0 when absent */
} capture_matched_args;

/* --decimate D and --shift HZ (cli/capture/capture_xlate.h). A zeroed struct means
 * "not asked for". */
typedef struct capture_xlate_args {
  int64_t decimation; /* --decimate D, 1 .. CONVOY_MAX_DECIMATION; 0 when absent */
  int has_shift;      /* --shift was on the command line */
  double shift_hz;    /* --shift HZ: the frequency moved to 0 Hz */
} capture_xlate_args;

/* Everything about captures on the command line. A zeroed struct means
 * "nothing given". */
typedef struct capture_args {
  const char *format;     /* --format: IN's datatype (checked by the parser) */
  const char *out_format; /* --out-format: OUT's datatype (checked) */
  int has_scale, has_offset, has_out_scale, has_out_offset;
  double scale, offset;         /* --scale, --offset: IN's integer scaling */
  double out_scale, out_offset; /* --out-scale, --out-offset: OUT's */
  capture_span skip, count;     /* --skip, --count */
  double rate;                  /* --rate HZ; 0 when absent */
  capture_matched_args matched; /* --matched and its options */
  capture_xlate_args xlate;     /* --decimate, --shift */
} capture_args;

/* Parses "N" (samples, an integer >= 0) or "Ts" (seconds, a number >= 0
 * with an 's' suffix) into *span. Returns 0, or -1 when text is neither. */
int capture_span_parse(const char *text, capture_span *span);

/* 1 when any capture option was given (then IN must be a capture). */
int capture_args_any(const capture_args *a);

/* The first capture option given, spelled as on the command line
 * ("--skip"), for "... is for captures" messages; NULL when none. */
const char *capture_args_first(const capture_args *a);

/* Frames of a --skip or --count value (what) for the signal name at rate Hz;
 * seconds need the rate. Prints the error and returns CLI_EXIT_FAIL when it
 * cannot. */
int capture_span_frames(const capture_span *s, double rate, const char *name, const char *what,
                        int64_t *frames);

#endif /* CONVOY_CLI_CAPTURE_ARGS_H */
