/* cmd_design.c - `convoy design SPEC [--rate HZ]`: print designed taps. */
#include "argparse.h"
#include "commands.h"
#include "convoy_taps.h"
#include "diag.h"
#include "help.h"

#include <stdio.h>
#include <string.h>

enum { OPT_RATE = 1 };

typedef struct design_options {
  const char *spec;
  double rate; /* Hz; 0 = none given */
  int help;
} design_options;

static const arg_option design_opts[] = {{"rate", 0, ARG_REQUIRED, OPT_RATE, ARG_STORE_NONE, 0, 0},
                                         ARG_FLAG("help", 'h', design_options, help, 1),
                                         ARG_TABLE_END};

/* --rate and the one positional argument, SPEC. */
static int handle(arg_parser *p, int id, const char *val, void *target) {
  design_options *o = target;
  if (id == OPT_RATE) {
    if (arg_double(p, val, &o->rate)) return CLI_EXIT_USAGE;
    if (o->rate <= 0) return diag_usage(p->cmd, "--rate: %s Hz is not a positive rate", val);
    return CLI_EXIT_OK;
  }
  if (o->spec) return diag_usage(p->cmd, "unexpected argument '%s' (give one SPEC)", val);
  o->spec = val;
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
  if (!o.spec) return diag_usage(p.cmd, "missing SPEC, e.g. lowpass:cutoff=4000,width=500");

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
  rc = print_taps(o.spec, &d, &taps);
  convoy_taps_free(&taps);
  return rc;
}
