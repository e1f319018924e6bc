/* live_options.c - parsing and checking the `convoy live` command line. */
#include "live_options.h"

#include "argparse.h"
#include "commands.h"
#include "convoy_rt.h"
#include "diag.h"
#include "engine_names.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

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
  OPT_GAIN,
  OPT_DURATION,
  OPT_BACKEND,
  OPT_NAME,
  OPT_CONNECT,
  OPT_CONTROL
};

static const arg_option live_opts[] = {
    {"ir", 0, ARG_REQUIRED, OPT_IR, ARG_STORE_NONE, 0, 0},
    {"taps", 0, ARG_REQUIRED, OPT_TAPS, ARG_STORE_NONE, 0, 0},
    {"design", 0, ARG_REQUIRED, OPT_DESIGN, ARG_STORE_NONE, 0, 0},
    {"config", 0, ARG_REQUIRED, OPT_CONFIG, ARG_STORE_NONE, 0, 0},
    {"in", 0, ARG_REQUIRED, OPT_IN, ARG_STORE_NONE, 0, 0},
    {"out", 0, ARG_REQUIRED, OPT_OUT, ARG_STORE_NONE, 0, 0},
    {"rate", 0, ARG_REQUIRED, OPT_RATE, ARG_STORE_NONE, 0, 0},
    {"block", 0, ARG_REQUIRED, OPT_BLOCK, ARG_STORE_NONE, 0, 0},
    {"channels", 0, ARG_REQUIRED, OPT_CHANNELS, ARG_STORE_NONE, 0, 0},
    {"engine", 0, ARG_REQUIRED, OPT_ENGINE, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("list-devices", 0, live_options, list_devices, 1),
    ARG_FLAG("resample-ir", 0, live_options, resample_ir, 1),
    {"gain", 0, ARG_REQUIRED, OPT_GAIN, ARG_STORE_NONE, 0, 0},
    {"duration", 0, ARG_REQUIRED, OPT_DURATION, ARG_STORE_NONE, 0, 0},
    {"backend", 0, ARG_REQUIRED, OPT_BACKEND, ARG_STORE_NONE, 0, 0},
    {"name", 0, ARG_REQUIRED, OPT_NAME, ARG_STORE_NONE, 0, 0},
    {"connect", 0, ARG_REQUIRED, OPT_CONNECT, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("no-connect", 0, live_options, no_connect, 1),
    {"control", 0, ARG_REQUIRED, OPT_CONTROL, ARG_STORE_NONE, 0, 0},
    ARG_FLAG("meter", 0, live_options, meter, 1),
    ARG_FLAG("quiet", 'q', live_options, quiet, 1),
    ARG_FLAG("verbose", 'v', live_options, verbose, 1),
    ARG_FLAG("help", 'h', live_options, help, 1),
    ARG_TABLE_END};

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

static int set_backend(arg_parser *p, live_options *o, const char *val) {
  if (strcmp(val, "auto") == 0)
    o->backend = LIVE_BACKEND_AUTO;
  else if (strcmp(val, "jack") == 0)
    o->backend = LIVE_BACKEND_JACK;
  else if (strcmp(val, "portaudio") == 0)
    o->backend = LIVE_BACKEND_PORTAUDIO;
  else
    return diag_usage(p->cmd, "--backend: '%s' is not one of auto, jack, portaudio", val);
  return CLI_EXIT_OK;
}

/* Most parts a --connect pattern may expand to (pattern_parts). */
#define CONNECT_MAX_PARTS 1024

/* The ']' that closes the bracket expression opening at c ('['), or the
 * string's end: a ']' first (after an optional '^') is a member, and so is
 * anything inside "[:class:]", "[.x.]" and "[=x=]". */
static const char *bracket_end(const char *c) {
  const char *e = c + 1;
  if (*e == '^') e++;
  if (*e == ']') e++;
  while (*e && *e != ']') {
    if (*e == '[' && (e[1] == ':' || e[1] == '.' || e[1] == '=')) {
      const char *close = strchr(e + 2, ']');
      e = close ? close + 1 : e + 1;
    } else {
      e++;
    }
  }
  return e;
}

/* The copies an interval "{m}", "{m,}" or "{m,n}" at c makes (n + 1 for
 * "{m,n}", m + 1 for "{m,}", m for "{m}"), its last character in *end;
 * 0 when c starts no interval. */
static double interval_copies(const char *c, const char **end) {
  char *e;
  if (!isdigit((unsigned char)c[1])) return 0.0;
  const double lo = (double)strtoul(c + 1, &e, 10);
  double copies = lo;
  if (*e == ',') {
    copies = lo + 1.0;
    if (isdigit((unsigned char)e[1]))
      copies = (double)strtoul(e + 1, &e, 10) + 1.0;
    else
      e++;
  }
  if (*e != '}') return 0.0;
  *end = e;
  return copies > 1.0 ? copies : 1.0;
}

/* The parts an extended regex expands to when its repetitions are copied
 * out, as glibc's regcomp does (a+ is a a*, a{2,5} a run of copies),
 * counted up to just past CONNECT_MAX_PARTS: nested or stacked repetitions
 * ("r+++...", "((a{1,99}){1,99}){1,99}") multiply, and regcomp takes
 * gigabytes on them. An estimate of regcomp's tree, for refusing those. */
static double pattern_parts(const char *pat) {
  double sum[32] = {0}, last[32] = {0}; /* per open group: its parts, its last atom's */
  int depth = 0;
  for (const char *c = pat; *c; c++) {
    const char *end = c;
    double copies = (*c == '*' || *c == '+' || *c == '?') ? 2.0 : 0.0;
    if (*c == '{') copies = interval_copies(c, &end);
    if (copies > 0.0) { /* the last atom, copied */
      sum[depth] += last[depth] * (copies - 1.0);
      last[depth] *= copies;
      c = end;
    } else if (*c == '(' && depth < 31) {
      depth++;
      sum[depth] = last[depth] = 0.0;
    } else if (*c == ')' && depth > 0) {
      depth--;
      last[depth] = sum[depth + 1] + 1.0;
      sum[depth] += last[depth];
    } else {
      if (*c == '\\' && c[1])
        c++;
      else if (*c == '[')
        c = *bracket_end(c) ? bracket_end(c) : c;
      last[depth] = 1.0;
      sum[depth] += 1.0;
    }
    if (sum[depth] > CONNECT_MAX_PARTS) return CONNECT_MAX_PARTS + 1.0;
  }
  double total = 0.0;
  for (int d = 0; d <= depth; d++) total += sum[d];
  return total;
}

/* A pattern is a POSIX extended regex, as jack_get_ports() takes it. */
static int add_connect(arg_parser *p, live_options *o, const char *val) {
  if (!*val) return diag_usage(p->cmd, "--connect needs a port pattern (a regex)");
  if (o->n_connect == LIVE_MAX_CONNECT)
    return diag_usage(p->cmd, "--connect: at most %d patterns", LIVE_MAX_CONNECT);
  if (pattern_parts(val) > CONNECT_MAX_PARTS)
    return diag_usage(p->cmd,
                      "--connect '%s': too complex a regular expression (its repetitions "
                      "expand to more than %d parts)",
                      val, CONNECT_MAX_PARTS);
  regex_t re;
  int e = regcomp(&re, val, REG_EXTENDED | REG_NOSUB);
  if (e != 0) {
    char why[128];
    regerror(e, &re, why, sizeof why);
    return diag_usage(p->cmd, "--connect '%s': not a regular expression (%s)", val, why);
  }
  regfree(&re);
  o->connect[o->n_connect++] = val;
  return CLI_EXIT_OK;
}

static int set_control(arg_parser *p, live_options *o, const char *val) {
  struct sockaddr_un addr;
  if (!*val) return diag_usage(p->cmd, "--control needs a socket path");
  if (strlen(val) >= sizeof addr.sun_path)
    return diag_usage(p->cmd, "--control: the socket path is longer than %zu bytes",
                      sizeof addr.sun_path - 1);
  o->control = val;
  return CLI_EXIT_OK;
}

/* The options the table does not store; live takes no positional argument. */
static int handle(arg_parser *p, int id, const char *val, void *target) {
  live_options *o = target;
  int64_t n = 0;
  switch (id) {
  case ARG_POSITIONAL:
    return diag_usage(p->cmd, "unexpected argument '%s' (live takes options only)", val);
  case OPT_IR:
    return set_source(p, o, LIVE_SOURCE_IR, val);
  case OPT_TAPS:
    return set_source(p, o, LIVE_SOURCE_TAPS, val);
  case OPT_DESIGN: {
    const int rc = set_source(p, o, LIVE_SOURCE_DESIGN, val);
    return rc == CLI_EXIT_OK && arg_design_spec(p, val) ? CLI_EXIT_USAGE : rc;
  }
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
  case OPT_BACKEND:
    return set_backend(p, o, val);
  case OPT_NAME:
    if (!*val || strchr(val, ':'))
      return diag_usage(p->cmd, "--name: '%s' is not a JACK client name (non-empty, no ':')", val);
    o->client_name = val;
    return CLI_EXIT_OK;
  case OPT_CONNECT:
    return add_connect(p, o, val);
  case OPT_CONTROL:
    return set_control(p, o, val);
  }
  return diag_usage(p->cmd, "internal: unhandled option %s", p->current);
}

/* Options of one backend with the other. */
static int check_backend(const char *cmd, const live_options *o) {
  const int devices = o->in_dev || o->out_dev;
  const char *jack_only = live_options_jack_only(o);
  if (o->n_connect > 0 && o->no_connect)
    return diag_usage(cmd, "--connect and --no-connect exclude each other");
  if (o->backend == LIVE_BACKEND_JACK && devices)
    return diag_usage(cmd, "--in and --out pick PortAudio devices; with --backend jack, "
                           "--connect PATTERN picks the ports");
  if (o->backend == LIVE_BACKEND_PORTAUDIO && jack_only)
    return diag_usage(cmd, "%s is for the JACK backend, not --backend portaudio", jack_only);
  if (devices && jack_only)
    return diag_usage(cmd, "--in/--out (PortAudio devices) and %s (JACK) exclude each other",
                      jack_only);
  return CLI_EXIT_OK;
}

const char *live_options_jack_only(const live_options *o) {
  return o->n_connect > 0 ? "--connect"
         : o->no_connect  ? "--no-connect"
         : o->client_name ? "--name"
                          : NULL;
}

int live_options_parse(int argc, char **argv, live_options *o) {
  memset(o, 0, sizeof *o);
  o->engine = CONVOY_ENGINE_AUTO;
  arg_parser p;
  arg_init(&p, argc, argv, live_opts);
  int rc = arg_parse(&p, o, handle, &o->help);
  if (rc != CLI_EXIT_OK || o->help) return rc;
  if (o->list_devices) return CLI_EXIT_OK;
  if (o->source == LIVE_SOURCE_NONE)
    return diag_usage(p.cmd, "give the filter: --ir FILE, --taps FILE, --design SPEC or "
                             "--config FILE");
  if (o->quiet && o->verbose) return diag_usage(p.cmd, "-q and -v exclude each other");
  if (o->quiet && o->meter) return diag_usage(p.cmd, "-q and --meter exclude each other");
  return check_backend(p.cmd, o);
}
