/*
 * capture_args.h - the capture options of `convoy filter` (--format,
 * --out-format, --skip, --count, --scale ...), as parsed from the command
 * line. filter_options.c calls these; cli/capture_filter.c uses the result.
 */
#ifndef CONVOY_CLI_CAPTURE_ARGS_H
#define CONVOY_CLI_CAPTURE_ARGS_H

#include <stdint.h>

/* A position or length given as samples ("1000") or seconds ("0.5s"). */
typedef struct capture_span {
  int given;       /* the option was on the command line */
  int in_seconds;  /* 1: `seconds` holds the value; 0: `samples` does */
  int64_t samples; /* >= 0 */
  double seconds;  /* >= 0, finite */
} capture_span;

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
} capture_args;

/* Parses "N" (samples, an integer >= 0) or "Ts" (seconds, a number >= 0
 * with an 's' suffix) into *span. Returns 0, or -1 when text is neither. */
int capture_span_parse(const char *text, capture_span *span);

/* 1 when any capture option was given (then IN must be a capture). */
int capture_args_any(const capture_args *a);

/* The first capture option given, spelled as on the command line
 * ("--skip"), for "... is for captures" messages; NULL when none. */
const char *capture_args_first(const capture_args *a);

#endif /* CONVOY_CLI_CAPTURE_ARGS_H */
