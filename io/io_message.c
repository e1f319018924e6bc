#include "io_message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void io_errorf(char *err, size_t err_size, const char *fmt, ...) {
  if (!err || err_size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  /* A file name or value in the message may hold a newline or a terminal
   * escape; the message stays one line. */
  for (char *p = err; *p; p++)
    if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) *p = '?';
}

const char *io_sf_text(const char *raw, char *buf, size_t buf_size) {
  if (buf_size == 0) return buf;
  if (!raw) raw = "unknown libsndfile error";
  static const char *const prefixes[] = {"Error : ", "System error : "};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(raw, prefixes[i], n) == 0) raw += n;
  }
  snprintf(buf, buf_size, "%s", raw);
  size_t n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '.' || buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = '\0';
  for (char *p = buf; *p; p++)
    if (*p == '\n') *p = ' ';
  return buf;
}
