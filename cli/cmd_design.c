/* cmd_design.c - `convoy design`: print a design's taps, and draw or tabulate
 * the frequency response of a design or of a taps file. */
#define _POSIX_C_SOURCE 200809L

#include "argparse.h"
#include "atomic_file.h"
#include "audio_file.h"
#include "commands.h"
#include "convoy_taps.h"
#include "design_plot.h"
#include "design_table.h"
#include "diag.h"
#include "help.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_POINTS 2048

enum { OPT_RATE = 1, OPT_POINTS, OPT_CHANNEL };

typedef struct design_options {
  const char *spec;
  const char *taps_file; /* --taps: the response of these taps instead of a design */
  const char *response;  /* --response FILE ("-": stdout) */
  const char *plot;      /* --plot FILE.svg ("-": stdout) */
  double rate;           /* Hz; 0 = none given */
  int64_t points;        /* 0 = not given */
  int64_t channel;       /* 1-based; 0 = not given */
  int help;
} design_options;

static const arg_option design_opts[] = {
    {"rate", 0, ARG_REQUIRED, OPT_RATE, ARG_STORE_NONE, 0, 0},
    {"points", 0, ARG_REQUIRED, OPT_POINTS, ARG_STORE_NONE, 0, 0},
    {"channel", 0, ARG_REQUIRED, OPT_CHANNEL, ARG_STORE_NONE, 0, 0},
    ARG_STRING("taps", design_options, taps_file),
    ARG_STRING("response", design_options, response),
    ARG_STRING("plot", design_options, plot),
    ARG_FLAG("help", 'h', design_options, help, 1),
    ARG_TABLE_END};

/* --rate, --points, --channel and the one positional argument, SPEC. */
static int handle(arg_parser *p, int id, const char *val, void *target) {
  design_options *o = target;
  switch (id) {
  case OPT_RATE:
    if (arg_double(p, val, &o->rate)) return CLI_EXIT_USAGE;
    if (o->rate <= 0) return diag_usage(p->cmd, "--rate: %s Hz is not a positive rate", val);
    return CLI_EXIT_OK;
  case OPT_POINTS:
    return arg_int64(p, val, 2, CONVOY_RESPONSE_MAX_POINTS, &o->points) ? CLI_EXIT_USAGE
                                                                        : CLI_EXIT_OK;
  case OPT_CHANNEL:
    return arg_int64(p, val, 1, CONVOY_MAX_CHANNELS, &o->channel) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
  }
  if (o->spec) return diag_usage(p->cmd, "unexpected argument '%s' (give one SPEC)", val);
  o->spec = val;
  return CLI_EXIT_OK;
}

static int is_stdout(const char *path) {
  return path && strcmp(path, "-") == 0;
}

/* What the command line alone rules out. */
static int check_options(const char *cmd, const design_options *o) {
  int drawing = o->response || o->plot;
  if (o->spec && o->taps_file) return diag_usage(cmd, "give a SPEC or --taps FILE, not both");
  if (!o->spec && !o->taps_file)
    return diag_usage(cmd, "missing SPEC, e.g. lowpass:cutoff=4000,width=500");
  if (o->taps_file && !drawing)
    return diag_usage(cmd,
                      "--taps %s: add --response FILE or --plot FILE.svg (the taps' "
                      "response is what convoy design makes of them)",
                      o->taps_file);
  if (o->points && !drawing) return diag_usage(cmd, "--points goes with --response or --plot");
  if (o->channel && !o->taps_file) return diag_usage(cmd, "--channel picks a channel of --taps");
  if (is_stdout(o->response) && is_stdout(o->plot))
    return diag_usage(cmd, "--response and --plot cannot both write to stdout");
  if ((o->response && !*o->response) || (o->plot && !*o->plot))
    return diag_usage(cmd, "--response and --plot need a file name (or - for stdout)");
  return CLI_EXIT_OK;
}

/* "%.9g" gives every float32 back exactly when read as float. */
static int print_taps(const char *spec, const convoy_design *d, const convoy_taps *t) {
  printf("# convoy %s design %s\n", convoy_version(), spec);
  printf("# %s, %lld taps, rate %.17g Hz\n", convoy_design_type_name(d->type), (long long)t->length,
         d->rate);
  for (int64_t i = 0; i < t->length; i++) printf("%.9g\n", (double)t->data[i]);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    diag_error("stdout: writing the taps failed");
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

enum { OUT_TSV, OUT_JSON, OUT_SVG };

static int write_view(FILE *f, const design_view *v, int kind) {
  return kind == OUT_SVG ? design_plot_write(f, v) : design_table_write(f, v, kind == OUT_JSON);
}

/* Writes v to path ("-": stdout), a file through a temporary renamed into
 * place when complete (an existing file is replaced). */
static int write_output(const char *path, const design_view *v, int kind) {
  if (is_stdout(path)) {
    if (write_view(stdout, v, kind) != 0 || fflush(stdout) != 0) {
      diag_error("stdout: writing the response failed");
      return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
  }
  char err[512] = "";
  atomic_file *af = NULL;
  int fd = -1;
  if (atomic_file_create(&af, path, 1, &fd, err, sizeof err) != CONVOY_OK) {
    diag_error("%s", err);
    return CLI_EXIT_FAIL;
  }
  int dup_fd = dup(fd);
  FILE *f = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;
  int bad = !f;
  if (!f && dup_fd >= 0) close(dup_fd);
  if (f) {
    bad = write_view(f, v, kind) != 0;
    bad |= fclose(f) != 0;
  }
  if (bad) {
    int e = errno;
    atomic_file_discard(af);
    diag_error("%s: write error: %s", path, strerror(e));
    return CLI_EXIT_FAIL;
  }
  if (atomic_file_commit(af, err, sizeof err) != CONVOY_OK) {
    diag_error("%s", err);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

static int ends_with_json(const char *path) {
  size_t n = strlen(path);
  return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

/* The response of channel `channel` (0-based) of t, written where asked. */
static int draw(const design_options *o, const convoy_taps *t, int32_t channel, double rate,
                const char *source, const convoy_design *d) {
  int64_t n = o->points ? o->points : DEFAULT_POINTS;
  convoy_response_point *pts = malloc((size_t)n * sizeof *pts);
  if (!pts) {
    diag_error("out of memory for %lld response points", (long long)n);
    return CLI_EXIT_FAIL;
  }
  char err[512] = "";
  convoy_status st = convoy_taps_response(t->data + (size_t)channel * (size_t)t->length, t->length,
                                          n, pts, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s: %s", source, err[0] ? err : convoy_strerror(st));
    free(pts);
    return CLI_EXIT_FAIL;
  }
  design_view v = {pts, n, rate, source, t->length, d};
  audio_install_signal_cleanup(); /* a temporary output is removed on a signal */
  int rc = CLI_EXIT_OK;
  if (o->response)
    rc = write_output(o->response, &v, ends_with_json(o->response) ? OUT_JSON : OUT_TSV);
  if (rc == CLI_EXIT_OK && o->plot) rc = write_output(o->plot, &v, OUT_SVG);
  free(pts);
  return rc;
}

/* --taps FILE: its response, at --rate, else the file's own rate, else in
 * cycles per sample. */
static int taps_response(const design_options *o) {
  char err[512] = "";
  convoy_taps t;
  memset(&t, 0, sizeof t);
  convoy_status st = convoy_taps_load(o->taps_file, CONVOY_TAPS_AUTO, &t, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    return CLI_EXIT_FAIL;
  }
  int rc = CLI_EXIT_FAIL;
  if (t.is_complex) {
    diag_error("%s: complex taps: convoy design draws the response of real taps only",
               o->taps_file);
  } else if (t.channels > 1 && !o->channel) {
    diag_error("%s: %d channels of taps: pick one with --channel 1..%d", o->taps_file, t.channels,
               t.channels);
  } else if (o->channel > t.channels) {
    diag_error("%s: --channel %lld: the file has %d channel%s", o->taps_file, (long long)o->channel,
               t.channels, t.channels == 1 ? "" : "s");
  } else {
    int32_t c = o->channel ? (int32_t)o->channel - 1 : 0;
    rc = draw(o, &t, c, o->rate > 0 ? o->rate : t.rate, o->taps_file, NULL);
  }
  convoy_taps_free(&t);
  return rc;
}

int cmd_design(int argc, char **argv) {
  arg_parser p;
  arg_init(&p, argc, argv, design_opts);
  design_options o = {0};
  int rc = arg_parse(&p, &o, handle, &o.help);
  if (rc != CLI_EXIT_OK) return rc;
  if (o.help) {
    help_design(stdout);
    return CLI_EXIT_OK;
  }
  if ((rc = check_options(p.cmd, &o)) != CLI_EXIT_OK) return rc;
  if (o.taps_file) return taps_response(&o);

  char err[512] = "";
  convoy_design d;
  convoy_taps taps;
  memset(&taps, 0, sizeof taps);
  /* Everything a spec says is on the command line here, rate included. */
  convoy_status st = convoy_design_parse(o.spec, o.rate, &d, err, sizeof err);
  if (st != CONVOY_OK) return diag_usage(p.cmd, "%s", err);
  st = convoy_design_taps(&d, &taps, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    convoy_taps_free(&taps);
    return CLI_EXIT_FAIL;
  }
  /* The taps go to stdout unless the response or the plot does. */
  if (!is_stdout(o.response) && !is_stdout(o.plot)) rc = print_taps(o.spec, &d, &taps);
  if (rc == CLI_EXIT_OK && (o.response || o.plot)) rc = draw(&o, &taps, 0, d.rate, o.spec, &d);
  convoy_taps_free(&taps);
  return rc;
}
