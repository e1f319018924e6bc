/* filter_options.c - parsing and checking the `convoy filter` command line. */
#include "filter_options.h"

#include "argparse.h"
#include "capture.h"
#include "capture_matched.h"
#include "capture_xlate.h"
#include "commands.h"
#include "diag.h"
#include "engine_names.h"

#include <string.h>

enum {
  OPT_TAPS = 1,
  OPT_IR,
  OPT_DESIGN,
  OPT_SUBTYPE,
  OPT_ENGINE,
  OPT_NORMALIZE,
  OPT_THREADS,
  OPT_FFT_SIZE,
  OPT_PLAN,
  OPT_DEVICE,
  OPT_DEVICES,
  OPT_TYPE,
  OPT_ALIGN,
  OPT_FORMAT,
  OPT_OUT_FORMAT,
  OPT_SCALE,
  OPT_OFFSET,
  OPT_OUT_SCALE,
  OPT_OUT_OFFSET,
  OPT_SKIP,
  OPT_COUNT,
  OPT_RATE,
  OPT_MATCHED, /* OPT_MATCHED + capture_matched_opt: cli/capture/capture_matched.h */
  OPT_WINDOW = OPT_MATCHED + MATCHED_OPT_WINDOW,
  OPT_NORM_TEMPLATE = OPT_MATCHED + MATCHED_OPT_NORMALIZE,
  OPT_MODE = OPT_MATCHED + MATCHED_OPT_MODE,
  OPT_PULSES = OPT_MATCHED + MATCHED_OPT_PULSES,
  OPT_PULSE_LEN = OPT_MATCHED + MATCHED_OPT_PULSE_LEN,
  OPT_DECIMATE, /* cli/capture/capture_xlate.h */
  OPT_SHIFT
};

static const arg_option filter_opts[] = {
    {"taps", 0, ARG_REQUIRED, OPT_TAPS, ARG_STORE_NONE, 0, 0},
    {"ir", 0, ARG_REQUIRED, OPT_IR, ARG_STORE_NONE, 0, 0},
    {"design", 0, ARG_REQUIRED, OPT_DESIGN, ARG_STORE_NONE, 0, 0},
    {"subtype", 0, ARG_REQUIRED, OPT_SUBTYPE, ARG_STORE_NONE, 0, 0},
    {"engine", 0, ARG_REQUIRED, OPT_ENGINE, ARG_STORE_NONE, 0, 0},
    ARG_DOUBLE("gain", filter_options, gain_db),
    {"normalize", 0, ARG_OPTIONAL, OPT_NORMALIZE, ARG_STORE_NONE, 0, 0},
    {"normalise", 0, ARG_OPTIONAL, OPT_NORMALIZE, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("tail", 0, filter_options, tail, 1),
    ARG_FLAG("cold-start", 0, filter_options, cold_start, 1),
    {"align", 0, ARG_OPTIONAL, OPT_ALIGN, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("no-dither", 0, filter_options, dither, 0),
    ARG_FLAG("quiet", 'q', filter_options, quiet, 1),
    ARG_FLAG("verbose", 'v', filter_options, verbose, 1),
    ARG_FLAG("overwrite", 'y', filter_options, overwrite, 1),
    {"threads", 0, ARG_REQUIRED, OPT_THREADS, ARG_STORE_NONE, 0, 0},
    {"fft-size", 0, ARG_REQUIRED, OPT_FFT_SIZE, ARG_STORE_NONE, 0, 0},
    {"plan", 0, ARG_REQUIRED, OPT_PLAN, ARG_STORE_NONE, 0, 0},
    {"device", 0, ARG_REQUIRED, OPT_DEVICE, ARG_STORE_NONE, 0, 0},
    {"devices", 0, ARG_REQUIRED, OPT_DEVICES, ARG_STORE_NONE, 0, 0},
    {"type", 0, ARG_REQUIRED, OPT_TYPE, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("help", 'h', filter_options, help, 1),
    {"format", 0, ARG_REQUIRED, OPT_FORMAT, ARG_STORE_NONE, 0, 0},
    {"out-format", 0, ARG_REQUIRED, OPT_OUT_FORMAT, ARG_STORE_NONE, 0, 0},
    {"scale", 0, ARG_REQUIRED, OPT_SCALE, ARG_STORE_NONE, 0, 0},
    {"offset", 0, ARG_REQUIRED, OPT_OFFSET, ARG_STORE_NONE, 0, 0},
    {"out-scale", 0, ARG_REQUIRED, OPT_OUT_SCALE, ARG_STORE_NONE, 0, 0},
    {"out-offset", 0, ARG_REQUIRED, OPT_OUT_OFFSET, ARG_STORE_NONE, 0, 0},
    {"skip", 0, ARG_REQUIRED, OPT_SKIP, ARG_STORE_NONE, 0, 0},
    {"count", 0, ARG_REQUIRED, OPT_COUNT, ARG_STORE_NONE, 0, 0},
    {"rate", 0, ARG_REQUIRED, OPT_RATE, ARG_STORE_NONE, 0, 0},
    {"matched", 0, ARG_REQUIRED, OPT_MATCHED, ARG_STORE_NONE, 0, 0},
    {"correlate", 0, ARG_REQUIRED, OPT_MATCHED, ARG_STORE_NONE, 0, 0},
    {"window", 0, ARG_REQUIRED, OPT_WINDOW, ARG_STORE_NONE, 0, 0},
    {"normalize-template", 0, ARG_NONE, OPT_NORM_TEMPLATE, ARG_STORE_NONE, 0, 0},
    {"normalise-template", 0, ARG_NONE, OPT_NORM_TEMPLATE, ARG_STORE_NONE, 0, 0},
    {"mode", 0, ARG_REQUIRED, OPT_MODE, ARG_STORE_NONE, 0, 0},
    {"pulses", 0, ARG_REQUIRED, OPT_PULSES, ARG_STORE_NONE, 0, 0},
    {"pulse-len", 0, ARG_REQUIRED, OPT_PULSE_LEN, ARG_STORE_NONE, 0, 0},
    {"decimate", 0, ARG_REQUIRED, OPT_DECIMATE, ARG_STORE_NONE, 0, 0},
    {"shift", 0, ARG_REQUIRED, OPT_SHIFT, ARG_STORE_NONE, 0, 0},
    ARG_TABLE_END};

static int set_taps(arg_parser *p, filter_options *o, taps_kind kind, const char *arg) {
  if (o->taps != TAPS_NONE) {
    return diag_usage(p->cmd, "give one of --taps, --ir, --design (%s is the second)", p->current);
  }
  if (!*arg) return diag_usage(p->cmd, "%s needs a non-empty value", p->current);
  o->taps = kind;
  o->taps_arg = arg;
  return CLI_EXIT_OK;
}

/* A SigMF datatype or an extension alias (cs16, fc32, ...), kept as the
 * SigMF name it means. */
static int datatype_arg(arg_parser *p, const char *val, const char **out) {
  capture_datatype t;
  char err[256] = "";
  if (capture_datatype_parse_alias(val, &t, err, sizeof err) != CONVOY_OK)
    return diag_usage(p->cmd, "%s: %s", p->current, err);
  *out = capture_datatype_name(t);
  return CLI_EXIT_OK;
}

static int scaling_arg(arg_parser *p, const char *val, int nonzero, int *has, double *v) {
  if (arg_double(p, val, v)) return CLI_EXIT_USAGE;
  if (nonzero && *v == 0.0) return diag_usage(p->cmd, "%s: the scale cannot be 0", p->current);
  *has = 1;
  return CLI_EXIT_OK;
}

static int span_arg(arg_parser *p, const char *val, capture_span *span) {
  if (capture_span_parse(val, span) != 0)
    return diag_usage(p->cmd, "%s: '%s' is neither a sample count (1000) nor seconds (0.5s)",
                      p->current, val);
  return CLI_EXIT_OK;
}

/* The options of raw I/Q and SigMF captures (cli/capture/capture_args.h). */
static int handle_capture(arg_parser *p, capture_args *c, int id, const char *val) {
  if (id >= OPT_MATCHED && id <= OPT_PULSE_LEN)
    return capture_matched_option(p, &c->matched, (capture_matched_opt)(id - OPT_MATCHED), val);
  if (id == OPT_DECIMATE || id == OPT_SHIFT)
    return capture_xlate_option(p, &c->xlate, id == OPT_SHIFT, val);
  switch (id) {
  case OPT_FORMAT:
    return datatype_arg(p, val, &c->format);
  case OPT_OUT_FORMAT:
    return datatype_arg(p, val, &c->out_format);
  case OPT_SCALE:
    return scaling_arg(p, val, 1, &c->has_scale, &c->scale);
  case OPT_OFFSET:
    return scaling_arg(p, val, 0, &c->has_offset, &c->offset);
  case OPT_OUT_SCALE:
    return scaling_arg(p, val, 1, &c->has_out_scale, &c->out_scale);
  case OPT_OUT_OFFSET:
    return scaling_arg(p, val, 0, &c->has_out_offset, &c->out_offset);
  case OPT_SKIP:
    return span_arg(p, val, &c->skip);
  case OPT_COUNT:
    return span_arg(p, val, &c->count);
  case OPT_RATE:
    if (arg_double(p, val, &c->rate)) return CLI_EXIT_USAGE;
    if (!(c->rate > 0)) return diag_usage(p->cmd, "--rate: '%s' is not a rate above 0 Hz", val);
    return CLI_EXIT_OK;
  }
  return diag_usage(p->cmd, "internal: unhandled option %s", p->current);
}

/* Positional arguments (IN, OUT) and the options the table does not store. */
static int handle(arg_parser *p, int id, const char *val, void *target) {
  filter_options *o = target;
  int64_t n = 0;
  if (id == ARG_POSITIONAL) {
    if (!o->in_path)
      o->in_path = val;
    else if (!o->out_path)
      o->out_path = val;
    else
      return diag_usage(p->cmd, "unexpected argument '%s' (give IN and OUT only)", val);
    return CLI_EXIT_OK;
  }
  if (id >= OPT_FORMAT) return handle_capture(p, &o->capture, id, val);
  switch (id) {
  case OPT_TAPS:
    return set_taps(p, o, TAPS_FILE, val);
  case OPT_IR:
    return set_taps(p, o, TAPS_IR, val);
  case OPT_DESIGN: {
    const int rc = set_taps(p, o, TAPS_DESIGN, val);
    return rc == CLI_EXIT_OK && arg_design_spec(p, val) ? CLI_EXIT_USAGE : rc;
  }
  case OPT_SUBTYPE:
    if (audio_subtype_from_name(val, &o->subtype) != 0 || o->subtype == AUDIO_SUBTYPE_SAME)
      return diag_usage(p->cmd, "--subtype: '%s' is not one of pcm16, pcm24, pcm32, float, double",
                        val);
    return CLI_EXIT_OK;
  case OPT_ENGINE:
    if (convoy_engine_from_name(val, &o->engine) != CONVOY_OK) {
      char names[256];
      return diag_usage(p->cmd, "--engine: '%s' is not one of %s", val,
                        engine_names(names, sizeof names, ENGINE_NAMES_ALL, ", ", -1));
    }
    return CLI_EXIT_OK;
  case OPT_NORMALIZE:
    o->normalize = 1;
    if (val && arg_double(p, val, &o->normalize_dbfs)) return CLI_EXIT_USAGE;
    if (o->normalize_dbfs > 0)
      return diag_usage(p->cmd, "--normalize: %s dBFS is above full scale (use a level <= 0)", val);
    return CLI_EXIT_OK;
  case OPT_THREADS:
    if (arg_int64(p, val, 1, 4096, &n)) return CLI_EXIT_USAGE;
    o->threads = (int32_t)n;
    return CLI_EXIT_OK;
  case OPT_FFT_SIZE:
    if (arg_int64(p, val, 2, (int64_t)1 << 40, &n)) return CLI_EXIT_USAGE;
    o->fft_size = n;
    return CLI_EXIT_OK;
  case OPT_PLAN:
    if (strcmp(val, "estimate") == 0) {
      o->plan_effort = 0;
    } else if (strcmp(val, "measure") == 0) {
      o->plan_effort = 1;
    } else {
      return diag_usage(p->cmd, "--plan: '%s' is not one of estimate, measure", val);
    }
    return CLI_EXIT_OK;
  case OPT_DEVICE:
    if (arg_int64(p, val, 0, 1023, &n)) return CLI_EXIT_USAGE;
    o->device = (int32_t)n;
    return CLI_EXIT_OK;
  case OPT_DEVICES:
    return scale_devices_parse(p->cmd, val, &o->devices);
  case OPT_ALIGN:
    if (!val) {
      o->align = ALIGN_DELAY;
    } else if (strcmp(val, "sox") == 0) {
      o->align = ALIGN_SOX;
    } else {
      return diag_usage(p->cmd, "--align: '%s' is not 'sox' (or give --align alone)", val);
    }
    return CLI_EXIT_OK;
  case OPT_TYPE:
    if (!*val || strchr(val, '/'))
      return diag_usage(p->cmd, "--type: '%s' is not a file type such as wav, flac or au", val);
    o->out_type = val;
    return CLI_EXIT_OK;
  }
  return diag_usage(p->cmd, "internal: unhandled option %s", p->current);
}

int filter_options_parse(int argc, char **argv, filter_options *o) {
  memset(o, 0, sizeof *o);
  o->engine = CONVOY_ENGINE_AUTO;
  o->subtype = AUDIO_SUBTYPE_SAME;
  o->dither = 1;
  o->normalize_dbfs = FILTER_NORMALIZE_DEFAULT_DBFS;
  o->device = -1;

  arg_parser p;
  arg_init(&p, argc, argv, filter_opts);
  int rc = arg_parse(&p, o, handle, &o->help);
  if (rc != CLI_EXIT_OK || o->help) return rc;

  if (!o->out_path) return diag_usage(p.cmd, !o->in_path ? "missing IN and OUT" : "missing OUT");
  if (!*o->in_path || !*o->out_path) return diag_usage(p.cmd, "empty file name");
  int matched_rc = capture_matched_check(p.cmd, o);
  if (matched_rc != CLI_EXIT_OK) return matched_rc;
  int xlate_rc = capture_xlate_check(p.cmd, o);
  if (xlate_rc != CLI_EXIT_OK) return xlate_rc;
  if (o->taps == TAPS_NONE && !o->capture.matched.template_path)
    return diag_usage(p.cmd, "give the taps: --taps FILE, --ir FILE, --design SPEC or "
                             "--matched TEMPLATE");
  if (o->normalize && o->gain_db != 0.0)
    return diag_usage(p.cmd, "--gain and --normalize exclude each other");
  if (o->normalize && strcmp(o->in_path, "-") == 0)
    return diag_usage(p.cmd, "--normalize reads the input twice, so IN cannot be stdin");
  if (o->out_type && strcmp(o->out_path, "-") != 0)
    return diag_usage(p.cmd, "--type is for OUT '-' (stdout); a file's type comes from its name");
  if (o->devices.given && o->device >= 0)
    return diag_usage(p.cmd, "--device and --devices exclude each other");
  if (o->devices.given && convoy_engine_family(o->engine) == CONVOY_FAMILY_CPU)
    return diag_usage(p.cmd, "--devices runs GPU engines; --engine %s is a CPU one",
                      convoy_engine_name(o->engine));
  if (o->quiet && o->verbose) o->verbose = 0;
  return CLI_EXIT_OK;
}
