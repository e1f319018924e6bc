/* argparse.c - long and short option scanning for the subcommands. */
#include "argparse.h"

#include "commands.h"
#include "convoy_taps.h"
#include "diag.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void arg_init(arg_parser *p, int argc, char **argv, const arg_option *opts) {
  memset(p, 0, sizeof *p);
  p->argc = argc;
  p->argv = argv;
  p->index = 1;
  p->opts = opts;
  p->cmd = argc > 0 ? argv[0] : "convoy";
  p->current = "";
}

static int next_short(arg_parser *p, const char **value) {
  char c = *p->shorts++;
  if (!*p->shorts) p->shorts = NULL;
  snprintf(p->current_buf, sizeof p->current_buf, "-%c", c);
  p->current = p->current_buf;
  for (const arg_option *o = p->opts; o->name; o++) {
    if (o->short_name == c) {
      *value = NULL;
      p->matched = o;
      return o->id;
    }
  }
  diag_usage(p->cmd, "unknown option '-%c'", c);
  return ARG_ERROR;
}

static int next_long(arg_parser *p, const char *arg, const char **value) {
  const char *name = arg + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  snprintf(p->current_buf, sizeof p->current_buf, "--%.*s", (int)len, name);
  p->current = p->current_buf;
  for (const arg_option *o = p->opts; o->name; o++) {
    if (strlen(o->name) != len || strncmp(o->name, name, len) != 0) continue;
    *value = NULL;
    switch (o->kind) {
    case ARG_NONE:
      if (eq) {
        diag_usage(p->cmd, "option '%s' takes no value", p->current);
        return ARG_ERROR;
      }
      break;
    case ARG_OPTIONAL:
      if (eq) *value = eq + 1;
      break;
    case ARG_REQUIRED:
      if (eq) {
        *value = eq + 1;
      } else if (p->index < p->argc) {
        *value = p->argv[p->index++];
      } else {
        diag_usage(p->cmd, "option '%s' needs a value", p->current);
        return ARG_ERROR;
      }
      break;
    }
    p->matched = o;
    return o->id;
  }
  diag_usage(p->cmd, "unknown option '%s'", p->current);
  return ARG_ERROR;
}

int arg_next(arg_parser *p, const char **value) {
  *value = NULL;
  if (p->shorts) return next_short(p, value);
  if (p->index >= p->argc) return ARG_END;
  const char *arg = p->argv[p->index++];
  if (p->only_positional || arg[0] != '-' || strcmp(arg, "-") == 0) {
    *value = arg;
    return ARG_POSITIONAL;
  }
  if (strcmp(arg, "--") == 0) {
    p->only_positional = 1;
    return arg_next(p, value);
  }
  if (arg[1] == '-') return next_long(p, arg, value);
  p->shorts = arg + 1;
  return next_short(p, value);
}

int parse_double(const char *text, double *v) {
  if (!text || !*text) return -1;
  char *end = NULL;
  errno = 0;
  double d = strtod(text, &end);
  if (*end || errno == ERANGE || !isfinite(d)) return -1;
  *v = d;
  return 0;
}

int parse_int64(const char *text, int64_t *v) {
  if (!text || !*text) return -1;
  char *end = NULL;
  errno = 0;
  long long n = strtoll(text, &end, 10);
  if (*end || errno == ERANGE) return -1;
  *v = (int64_t)n;
  return 0;
}

int arg_double(const arg_parser *p, const char *text, double *v) {
  if (parse_double(text, v) == 0) return 0;
  diag_usage(p->cmd, "%s: '%s' is not a number", p->current, text ? text : "");
  return -1;
}

int arg_int64(const arg_parser *p, const char *text, int64_t lo, int64_t hi, int64_t *v) {
  if (parse_int64(text, v) == 0 && *v >= lo && *v <= hi) return 0;
  diag_usage(p->cmd, "%s: '%s' is not a whole number in %lld..%lld", p->current, text ? text : "",
             (long long)lo, (long long)hi);
  return -1;
}

int arg_design_spec(const arg_parser *p, const char *text) {
  convoy_design d;
  char err[512] = "";
  convoy_status st = convoy_design_parse_spec(text, &d, err, sizeof err);
  /* With rate= in it, the spec is whole: every range is known now. */
  if (st == CONVOY_OK && d.rate > 0) st = convoy_design_parse(text, 0, &d, err, sizeof err);
  if (st == CONVOY_OK) return 0;
  diag_usage(p->cmd, "%s: %s", p->current, err);
  return -1;
}

int arg_list(const arg_parser *p, const char *text,
             int (*item)(const arg_parser *p, const char *element, void *ctx), void *ctx) {
  char buf[512];
  if (strlen(text) >= sizeof buf) return diag_usage(p->cmd, "%s: list too long", p->current);
  snprintf(buf, sizeof buf, "%s", text);
  int n = 0;
  for (char *tok = buf, *next; tok; tok = next) {
    next = strchr(tok, ',');
    if (next) *next++ = '\0';
    if (!*tok) continue;
    int rc = item(p, tok, ctx);
    if (rc != 0) return rc;
    n++;
  }
  if (n == 0) return diag_usage(p->cmd, "%s: empty list", p->current);
  return 0;
}

/* Writes a stored option's value into target; 0, or -1 after a usage error. */
static int store(const arg_parser *p, const arg_option *o, const char *value, void *target) {
  unsigned char *at = (unsigned char *)target + o->offset;
  switch (o->store) {
  case ARG_STORE_FLAG:
    *(int *)(void *)at = o->value;
    return 0;
  case ARG_STORE_STRING:
    *(const char **)(void *)at = value;
    return 0;
  case ARG_STORE_DOUBLE:
    return arg_double(p, value, (double *)(void *)at);
  case ARG_STORE_NONE:
    break;
  }
  return -1;
}

int arg_parse(arg_parser *p, void *target, arg_handler handle, const int *stop) {
  for (;;) {
    const char *value = NULL;
    const int id = arg_next(p, &value);
    if (id == ARG_END) return 0;
    if (id == ARG_ERROR) return CLI_EXIT_USAGE;
    int rc;
    if (id == ARG_ID_STORED) {
      rc = store(p, p->matched, value, target) == 0 ? 0 : CLI_EXIT_USAGE;
    } else {
      rc = handle(p, id, value, target);
    }
    if (rc != 0) return rc;
    if (stop && *stop && id != ARG_POSITIONAL) return 0;
  }
}
