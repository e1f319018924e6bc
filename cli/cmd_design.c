/* cmd_design.c - `convoy design SPEC [--rate HZ]`: print designed taps. */
#include "argparse.h"
#include "commands.h"
#include "convoy_taps.h"
#include "diag.h"
#include "help.h"

#include <stdio.h>
#include <string.h>

enum { OPT_RATE = 1, OPT_HELP };

static const arg_option design_opts[] = {
    {"rate", 0, ARG_REQUIRED, OPT_RATE}, {"help", 'h', ARG_NONE, OPT_HELP}, {NULL, 0, ARG_NONE, 0}};

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
  const char *spec = NULL;
  double rate = 0.0;
  for (;;) {
    const char *val = NULL;
    int id = arg_next(&p, &val);
    if (id == ARG_END) break;
    if (id == ARG_ERROR) return CLI_EXIT_USAGE;
    if (id == OPT_HELP) {
      help_design(stdout);
      return CLI_EXIT_OK;
    }
    if (id == OPT_RATE) {
      if (arg_double(&p, val, &rate)) return CLI_EXIT_USAGE;
      if (rate <= 0) return diag_usage(p.cmd, "--rate: %s Hz is not a positive rate", val);
      continue;
    }
    if (spec) return diag_usage(p.cmd, "unexpected argument '%s' (give one SPEC)", val);
    spec = val;
  }
  if (!spec) return diag_usage(p.cmd, "missing SPEC, e.g. lowpass:cutoff=4000,width=500");

  char err[512] = "";
  convoy_design d;
  convoy_taps taps;
  memset(&taps, 0, sizeof taps);
  convoy_status st = convoy_design_parse(spec, rate, &d, err, sizeof err);
  if (st == CONVOY_OK) st = convoy_design_taps(&d, &taps, err, sizeof err);
  if (st != CONVOY_OK) {
    diag_error("%s", err[0] ? err : convoy_strerror(st));
    convoy_taps_free(&taps);
    return CLI_EXIT_FAIL;
  }
  int rc = print_taps(spec, &d, &taps);
  convoy_taps_free(&taps);
  return rc;
}
