/* diag.c - error, warning and notice lines on stderr. */
#include "diag.h"

#include "commands.h"

#include <stdarg.h>
#include <stdio.h>

static int quiet_flag;
static FILE *stream; /* NULL: stderr */

void diag_set_stream(FILE *to) {
  stream = to;
}

static FILE *out(void) {
  return stream ? stream : stderr;
}

/* A value echoed in a message may hold a newline or a terminal escape: each
 * control character but the tab becomes '?', so a message stays one line. */
static void one_line(char *s) {
  for (; *s; s++)
    if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f) *s = '?';
}

void diag_set_quiet(int quiet) {
  quiet_flag = quiet;
}

int diag_quiet(void) {
  return quiet_flag;
}

static void vline(const char *prefix, const char *fmt, va_list ap) {
  /* Formatted first so that the line reaches stderr in one write. */
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  one_line(msg);
  fprintf(out(), "convoy: %s%s\n", prefix, msg);
  fflush(out());
}

void diag_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline("", fmt, ap);
  va_end(ap);
}

void diag_warn(const char *fmt, ...) {
  if (quiet_flag) return;
  va_list ap;
  va_start(ap, fmt);
  vline("warning: ", fmt, ap);
  va_end(ap);
}

void diag_notice(const char *fmt, ...) {
  if (quiet_flag) return;
  va_list ap;
  va_start(ap, fmt);
  vline("", fmt, ap);
  va_end(ap);
}

int diag_usage(const char *cmd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  one_line(msg);
  fprintf(out(), "convoy: %s: %s (see 'convoy %s --help')\n", cmd, msg, cmd);
  fflush(out());
  return CLI_EXIT_USAGE;
}
