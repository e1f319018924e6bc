/* live_config.c - parsing the routing file of `convoy live --config`. */
#include "live_config.h"

#include "argparse.h"
#include "convoy_rt.h"
#include "error_internal.h" /* CONVOY_QUOTE */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 5
#define MAX_CONFIG_BYTES (1 << 20)

typedef struct parse_ctx {
  const char *name, *dir;
  int line;
  char *err;
  size_t err_size;
} parse_ctx;

static convoy_status fail(const parse_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static convoy_status fail(const parse_ctx *c, const char *fmt, ...) {
  if (!c->err || c->err_size == 0) return CONVOY_ERR_FORMAT;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(c->err, c->err_size, "%s:%d: %s", CONVOY_QUOTE(c->name), c->line, msg);
  return CONVOY_ERR_FORMAT;
}

static int is_blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Splits one line (modified in place) into at most MAX_FIELDS fields; a
 * field in double quotes may hold blanks and '#'. Returns the count, or -1
 * for an unterminated quote, -2 for too many fields. */
static int split(char *s, char **fields) {
  int n = 0;
  for (;;) {
    while (is_blank(*s)) s++;
    if (!*s || *s == '#') return n;
    if (n == MAX_FIELDS) return -2;
    if (*s == '"') { /* "FILE NAME":CHANNEL: the quotes drop out */
      char *end = strchr(s + 1, '"');
      if (!end) return -1;
      size_t inner = (size_t)(end - s - 1);
      memmove(s, s + 1, inner);
      char *w = s + inner, *r = end + 1;
      while (*r && !is_blank(*r) && *r != '#' && *r != '"') *w++ = *r++;
      if (*r == '"') return -1;
      int at_end = !*r || *r == '#';
      *w = '\0';
      fields[n++] = s;
      if (at_end) return n;
      s = r + 1;
      continue;
    }
    fields[n++] = s;
    while (*s && !is_blank(*s) && *s != '#') s++;
    if (*s == '#') {
      *s = '\0';
      return n;
    }
    if (*s) *s++ = '\0';
  }
}

static convoy_status number(const parse_ctx *c, const char *what, const char *text, int64_t lo,
                            int64_t hi, int64_t *v) {
  if (parse_int64(text, v) != 0 || *v < lo || *v > hi)
    return fail(c, "%s '%s' is not a whole number in %lld..%lld", what, CONVOY_QUOTE(text),
                (long long)lo, (long long)hi);
  return CONVOY_OK;
}

static convoy_status setting(const parse_ctx *c, char **f, int n, live_config *cfg) {
  int32_t *slot = strcmp(f[0], "rate") == 0       ? &cfg->rate
                  : strcmp(f[0], "block") == 0    ? &cfg->block
                  : strcmp(f[0], "channels") == 0 ? &cfg->channels
                                                  : NULL;
  if (!slot) return CONVOY_ERR_INVALID_ARGUMENT; /* not a setting */
  if (n != 2) return fail(c, "'%s' takes one value", f[0]);
  if (*slot) return fail(c, "'%s' is given twice", f[0]);
  int64_t lo = 1, hi = 1536000;
  if (slot == &cfg->rate) lo = 1000;
  if (slot == &cfg->block) hi = CONVOY_RT_MAX_BLOCK;
  if (slot == &cfg->channels) hi = CONVOY_RT_MAX_CHANNELS;
  int64_t v;
  convoy_status st = number(c, f[0], f[1], lo, hi, &v);
  if (st == CONVOY_OK) *slot = (int32_t)v;
  return st;
}

/* FILE[:CHANNEL]: the suffix counts only when all digits, so "a:b.wav" is a
 * file name. */
static convoy_status file_channel(const parse_ctx *c, const char *field, char **path,
                                  int32_t *channel) {
  *channel = -1;
  size_t len = strlen(field);
  const char *colon = strrchr(field, ':');
  if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
    int64_t ch;
    convoy_status st = number(c, "channel", colon + 1, 1, CONVOY_RT_MAX_CHANNELS, &ch);
    if (st != CONVOY_OK) return st;
    *channel = (int32_t)ch - 1;
    len = (size_t)(colon - field);
  }
  if (len == 0) return fail(c, "route has an empty file name");
  int relative = field[0] != '/' && c->dir && c->dir[0];
  size_t dir_len = relative ? strlen(c->dir) + 1 : 0;
  *path = malloc(dir_len + len + 1);
  if (!*path) return CONVOY_ERR_OUT_OF_MEMORY;
  if (relative) {
    memcpy(*path, c->dir, dir_len - 1);
    (*path)[dir_len - 1] = '/';
  }
  memcpy(*path + dir_len, field, len);
  (*path)[dir_len + len] = '\0';
  return CONVOY_OK;
}

static convoy_status route(const parse_ctx *c, char **f, int n, live_config *cfg, int32_t *cap) {
  if (n > 4) return fail(c, "too many fields (a route is IN OUT FILE[:CHANNEL] [GAIN_DB])");
  if (n < 3)
    return fail(c,
                "'%s' is neither a setting (rate, block, channels) nor a route "
                "(IN OUT FILE[:CHANNEL] [GAIN_DB])",
                CONVOY_QUOTE(f[0]));
  int64_t in, out;
  convoy_status st = number(c, "input", f[0], 1, CONVOY_RT_MAX_CHANNELS, &in);
  if (st == CONVOY_OK) st = number(c, "output", f[1], 1, CONVOY_RT_MAX_CHANNELS, &out);
  if (st != CONVOY_OK) return st;
  double gain = 0;
  if (n == 4 && (parse_double(f[3], &gain) != 0 || gain < -200 || gain > 60))
    return fail(c, "gain '%s' is not a number of dB in -200..60", CONVOY_QUOTE(f[3]));
  if (cfg->n_routes == LIVE_CONFIG_MAX_ROUTES)
    return fail(c, "more than %d routes", LIVE_CONFIG_MAX_ROUTES);
  if (cfg->n_routes == *cap) {
    int32_t grown = *cap ? *cap * 2 : 16;
    live_config_route *r = realloc(cfg->routes, (size_t)grown * sizeof *r);
    if (!r) return CONVOY_ERR_OUT_OF_MEMORY;
    cfg->routes = r;
    *cap = grown;
  }
  live_config_route *r = &cfg->routes[cfg->n_routes];
  memset(r, 0, sizeof *r);
  st = file_channel(c, f[2], &r->file, &r->channel);
  if (st != CONVOY_OK) return st;
  r->input = (int32_t)in - 1;
  r->output = (int32_t)out - 1;
  r->gain_db = gain;
  r->line = c->line;
  cfg->n_routes++;
  if (in > cfg->max_channel) cfg->max_channel = (int32_t)in;
  if (out > cfg->max_channel) cfg->max_channel = (int32_t)out;
  return CONVOY_OK;
}

static convoy_status parse_line(const parse_ctx *c, char *line, live_config *cfg, int32_t *cap) {
  char *f[MAX_FIELDS];
  int n = split(line, f);
  if (n == -1) return fail(c, "unterminated or misplaced double quote");
  if (n == -2) return fail(c, "too many fields (a route is IN OUT FILE[:CHANNEL] [GAIN_DB])");
  if (n == 0) return CONVOY_OK;
  convoy_status st = setting(c, f, n, cfg);
  if (st != CONVOY_ERR_INVALID_ARGUMENT) return st;
  return route(c, f, n, cfg, cap);
}

convoy_status live_config_parse(const char *text, const char *name, const char *dir,
                                live_config *cfg, char *err, size_t err_size) {
  memset(cfg, 0, sizeof *cfg);
  if (err && err_size) err[0] = '\0';
  parse_ctx c = {name, dir, 0, err, err_size};
  size_t len = strlen(text);
  char *copy = malloc(len + 1);
  if (!copy) return CONVOY_ERR_OUT_OF_MEMORY;
  memcpy(copy, text, len + 1);
  int32_t cap = 0;
  convoy_status st = CONVOY_OK;
  char *line = copy;
  while (st == CONVOY_OK && line) {
    c.line++;
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    st = parse_line(&c, line, cfg, &cap);
    line = nl ? nl + 1 : NULL;
  }
  free(copy);
  if (st == CONVOY_OK && cfg->n_routes == 0) {
    c.line = c.line > 0 ? c.line : 1;
    snprintf(err, err_size, "%s: no routes (a route is IN OUT FILE[:CHANNEL] [GAIN_DB])",
             CONVOY_QUOTE(name));
    st = CONVOY_ERR_FORMAT;
  }
  if (st == CONVOY_OK && cfg->channels && cfg->max_channel > cfg->channels) {
    for (int32_t i = 0; i < cfg->n_routes; i++) {
      const live_config_route *r = &cfg->routes[i];
      if (r->input >= cfg->channels || r->output >= cfg->channels) {
        c.line = r->line;
        st = fail(&c, "route %d -> %d is beyond 'channels %d'", (int)r->input + 1,
                  (int)r->output + 1, (int)cfg->channels);
        break;
      }
    }
  }
  if (st == CONVOY_OK) {
    cfg->name = malloc(strlen(name) + 1);
    if (cfg->name)
      memcpy(cfg->name, name, strlen(name) + 1);
    else
      st = CONVOY_ERR_OUT_OF_MEMORY;
  }
  if (st == CONVOY_ERR_OUT_OF_MEMORY && err && err_size)
    snprintf(err, err_size, "%s: out of memory", CONVOY_QUOTE(name));
  if (st != CONVOY_OK) live_config_free(cfg);
  return st;
}

convoy_status live_config_load(const char *path, live_config *cfg, char *err, size_t err_size) {
  memset(cfg, 0, sizeof *cfg);
  const char *name = CONVOY_QUOTE(path);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: %s", name, strerror(errno));
    return CONVOY_ERR_IO;
  }
  char *text = malloc(MAX_CONFIG_BYTES + 1);
  if (!text) {
    fclose(f);
    snprintf(err, err_size, "%s: out of memory", name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  size_t n = fread(text, 1, MAX_CONFIG_BYTES + 1, f);
  int bad = ferror(f);
  fclose(f);
  convoy_status st = CONVOY_OK;
  if (bad) {
    snprintf(err, err_size, "%s: read error (is it a directory?)", name);
    st = CONVOY_ERR_IO;
  } else if (n > MAX_CONFIG_BYTES) {
    snprintf(err, err_size, "%s: larger than %d bytes; not a routing file", name, MAX_CONFIG_BYTES);
    st = CONVOY_ERR_FORMAT;
  } else if (memchr(text, '\0', n)) {
    snprintf(err, err_size, "%s: binary data; not a routing file", name);
    st = CONVOY_ERR_FORMAT;
  }
  if (st == CONVOY_OK) {
    text[n] = '\0';
    char dir[4096] = "";
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof dir) {
      size_t dl = slash == path ? 1 : (size_t)(slash - path);
      memcpy(dir, path, dl);
      dir[dl] = '\0';
    }
    st = live_config_parse(text, path, dir, cfg, err, err_size);
  }
  free(text);
  return st;
}

void live_config_locate(const live_config *cfg, int line, char *err, size_t err_size) {
  if (!err || err_size == 0) return;
  size_t n = strlen(err) + 1;
  char *why = malloc(n);
  if (!why) return;
  memcpy(why, err, n);
  snprintf(err, err_size, "%s:%d: %s", CONVOY_QUOTE(cfg->name ? cfg->name : "config"), line, why);
  free(why);
}

void live_config_free(live_config *cfg) {
  if (!cfg) return;
  for (int32_t i = 0; i < cfg->n_routes; i++) free(cfg->routes[i].file);
  free(cfg->routes);
  free(cfg->name);
  memset(cfg, 0, sizeof *cfg);
}
