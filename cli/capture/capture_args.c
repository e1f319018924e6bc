/* capture_args.c - values of the capture options of `convoy filter`. */
#include "capture_args.h"

#include "argparse.h"
#include "commands.h"
#include "diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int capture_span_parse(const char *text, capture_span *span) {
  memset(span, 0, sizeof *span);
  size_t n = strlen(text);
  if (n == 0) return -1;
  if (text[n - 1] == 's') {
    char buf[64];
    if (n - 1 == 0 || n - 1 >= sizeof buf) return -1;
    memcpy(buf, text, n - 1);
    buf[n - 1] = '\0';
    double v;
    if (parse_double(buf, &v) != 0 || !(v >= 0) || !isfinite(v)) return -1;
    span->given = 1;
    span->in_seconds = 1;
    span->seconds = v;
    return 0;
  }
  int64_t v;
  if (parse_int64(text, &v) != 0 || v < 0) return -1;
  span->given = 1;
  span->samples = v;
  return 0;
}

int capture_span_frames(const capture_span *s, double rate, const char *name, const char *what,
                        int64_t *frames) {
  if (!s->in_seconds) {
    *frames = s->samples;
    return CLI_EXIT_OK;
  }
  if (!(rate > 0)) /* a value missing from the command line: a usage error */
    return diag_usage("filter",
                      "%s: %s %gs is in seconds but the sample rate is unknown (give "
                      "--rate HZ)",
                      name, what, s->seconds);
  double v = s->seconds * rate;
  if (v > 9.0e18) {
    diag_error("%s: %s %gs is past the end", name, what, s->seconds);
    return CLI_EXIT_FAIL;
  }
  *frames = (int64_t)llround(v);
  return CLI_EXIT_OK;
}

const char *capture_args_first(const capture_args *a) {
  if (a->format) return "--format";
  if (a->out_format) return "--out-format";
  if (a->has_scale) return "--scale";
  if (a->has_offset) return "--offset";
  if (a->has_out_scale) return "--out-scale";
  if (a->has_out_offset) return "--out-offset";
  if (a->rate > 0) return "--rate";
  if (a->matched.template_path) return "--matched";
  if (a->xlate.decimation) return "--decimate";
  if (a->xlate.has_shift) return "--shift";
  return NULL;
}

int capture_args_any(const capture_args *a) {
  return capture_args_first(a) != NULL;
}
