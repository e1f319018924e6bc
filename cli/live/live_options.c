/* live_options.c - parsing and checking the `convoy live` command line. */
#include "live_options.h"

#include "argparse.h"
#include "commands.h"
#include "convoy_rt.h"
#include "diag.h"
#include "engine_names.h"

#include <string.h>

enum {
  OPT_IR = 1,
  OPT_TAPS,
  OPT_DESIGN,
  OPT_CONFIG,
  OPT_IN,
  OPT_OUT,
  OPT_RATE,
  OPT_BLOCK,
  OPT_CHANNELS,
  OPT_ENGINE,
  OPT_LIST,
  OPT_RESAMPLE,
  OPT_GAIN,
  OPT_DURATION,
  OPT_QUIET,
  OPT_VERBOSE,
  OPT_HELP
};

static const arg_option live_opts[] = {{"ir", 0, ARG_REQUIRED, OPT_IR},
                                       {"taps", 0, ARG_REQUIRED, OPT_TAPS},
                                       {"design", 0, ARG_REQUIRED, OPT_DESIGN},
                                       {"config", 0, ARG_REQUIRED, OPT_CONFIG},
                                       {"in", 0, ARG_REQUIRED, OPT_IN},
                                       {"out", 0, ARG_REQUIRED, OPT_OUT},
                                       {"rate", 0, ARG_REQUIRED, OPT_RATE},
                                       {"block", 0, ARG_REQUIRED, OPT_BLOCK},
                                       {"channels", 0, ARG_REQUIRED, OPT_CHANNELS},
                                       {"engine", 0, ARG_REQUIRED, OPT_ENGINE},
                                       {"list-devices", 0, ARG_NONE, OPT_LIST},
                                       {"resample-ir", 0, ARG_NONE, OPT_RESAMPLE},
                                       {"gain", 0, ARG_REQUIRED, OPT_GAIN},
                                       {"duration", 0, ARG_REQUIRED, OPT_DURATION},
                                       {"quiet", 'q', ARG_NONE, OPT_QUIET},
                                       {"verbose", 'v', ARG_NONE, OPT_VERBOSE},
                                       {"help", 'h', ARG_NONE, OPT_HELP},
                                       {NULL, 0, ARG_NONE, 0}};

static int set_source(arg_parser *p, live_options *o, live_source s, const char *arg) {
  if (o->source != LIVE_SOURCE_NONE)
    return diag_usage(p->cmd, "give one of --ir, --taps, --design, --config (%s is the second)",
                      p->current);
  if (!*arg) return diag_usage(p->cmd, "%s needs a non-empty value", p->current);
  if (s != LIVE_SOURCE_DESIGN && strcmp(arg, "-") == 0)
    return diag_usage(p->cmd, "%s cannot read stdin (stdin takes commands); give a file",
                      p->current);
  o->source = s;
  o->source_arg = arg;
  return CLI_EXIT_OK;
}

/* The real-time convolver takes the choices only (one backend a family). */
static int set_engine(arg_parser *p, live_options *o, const char *val) {
  convoy_engine e;
  if (convoy_engine_from_name(val, &e) != CONVOY_OK || convoy_engine_is_exact(e)) {
    char names[128];
    return diag_usage(p->cmd, "--engine: '%s' is not one of %s", val,
                      engine_names(names, sizeof names, ENGINE_NAMES_CHOICES, ", ", -1));
  }
  o->engine = e;
  return CLI_EXIT_OK;
}

static int handle(arg_parser *p, live_options *o, int id, const char *val) {
  int64_t n = 0;
  switch (id) {
  case OPT_IR:
    return set_source(p, o, LIVE_SOURCE_IR, val);
  case OPT_TAPS:
    return set_source(p, o, LIVE_SOURCE_TAPS, val);
  case OPT_DESIGN:
    return set_source(p, o, LIVE_SOURCE_DESIGN, val);
  case OPT_CONFIG:
    return set_source(p, o, LIVE_SOURCE_CONFIG, val);
  case OPT_IN:
  case OPT_OUT:
    if (!*val) return diag_usage(p->cmd, "%s needs a device name or index", p->current);
    *(id == OPT_IN ? &o->in_dev : &o->out_dev) = val;
    return CLI_EXIT_OK;
  case OPT_RATE:
    if (arg_int64(p, val, 1000, 1536000, &n)) return CLI_EXIT_USAGE;
    o->rate = (int32_t)n;
    return CLI_EXIT_OK;
  case OPT_BLOCK:
    if (arg_int64(p, val, 1, CONVOY_RT_MAX_BLOCK, &n)) return CLI_EXIT_USAGE;
    o->block = (int32_t)n;
    return CLI_EXIT_OK;
  case OPT_CHANNELS:
    if (arg_int64(p, val, 1, CONVOY_RT_MAX_CHANNELS, &n)) return CLI_EXIT_USAGE;
    o->channels = (int32_t)n;
    return CLI_EXIT_OK;
  case OPT_ENGINE:
    return set_engine(p, o, val);
  case OPT_LIST:
    o->list_devices = 1;
    return CLI_EXIT_OK;
  case OPT_RESAMPLE:
    o->resample_ir = 1;
    return CLI_EXIT_OK;
  case OPT_GAIN:
    if (arg_double(p, val, &o->gain_db)) return CLI_EXIT_USAGE;
    if (o->gain_db < -200 || o->gain_db > 60)
      return diag_usage(p->cmd, "--gain: %s dB is outside -200..60", val);
    return CLI_EXIT_OK;
  case OPT_DURATION:
    if (arg_double(p, val, &o->duration)) return CLI_EXIT_USAGE;
    if (o->duration <= 0 || o->duration > 1e7)
      return diag_usage(p->cmd, "--duration: '%s' is not a positive number of seconds", val);
    return CLI_EXIT_OK;
  case OPT_QUIET:
    o->quiet = 1;
    return CLI_EXIT_OK;
  case OPT_VERBOSE:
    o->verbose = 1;
    return CLI_EXIT_OK;
  case OPT_HELP:
    o->help = 1;
    return CLI_EXIT_OK;
  }
  return diag_usage(p->cmd, "internal: unhandled option %s", p->current);
}

int live_options_parse(int argc, char **argv, live_options *o) {
  memset(o, 0, sizeof *o);
  o->engine = CONVOY_ENGINE_AUTO;
  arg_parser p;
  arg_init(&p, argc, argv, live_opts);
  const char *val = NULL;
  int id;
  while ((id = arg_next(&p, &val)) != ARG_END) {
    if (id == ARG_ERROR) return CLI_EXIT_USAGE;
    if (id == ARG_POSITIONAL)
      return diag_usage(p.cmd, "unexpected argument '%s' (live takes options only)", val);
    int rc = handle(&p, o, id, val);
    if (rc != CLI_EXIT_OK) return rc;
    if (o->help) return CLI_EXIT_OK;
  }
  if (o->list_devices) return CLI_EXIT_OK;
  if (o->source == LIVE_SOURCE_NONE)
    return diag_usage(p.cmd, "give the filter: --ir FILE, --taps FILE, --design SPEC or "
                             "--config FILE");
  if (o->quiet && o->verbose) return diag_usage(p.cmd, "-q and -v exclude each other");
  return CLI_EXIT_OK;
}
