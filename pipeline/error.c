/* error.c - status names, the per-thread last-error message, the version. */
#include "error_internal.h"

#include <stdio.h>
#include <string.h>

#ifndef CONVOY_VERSION_STRING
#error "CONVOY_VERSION_STRING must be defined by the build"
#endif

static _Thread_local char thread_error[CONVOY_ERROR_SIZE];

const char *convoy_strerror(convoy_status status) {
  switch (status) {
  case CONVOY_OK:
    return "success";
  case CONVOY_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case CONVOY_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case CONVOY_ERR_UNSUPPORTED:
    return "not supported by this build";
  case CONVOY_ERR_NO_DEVICE:
    return "no usable GPU";
  case CONVOY_ERR_STATE:
    return "call not allowed in the current state";
  case CONVOY_ERR_BACKEND:
    return "backend (FFTW, CUDA, cuFFT) failure";
  case CONVOY_ERR_IO:
    return "input/output error";
  case CONVOY_ERR_FORMAT:
    return "invalid file contents";
  case CONVOY_ERR_INTERNAL:
    return "internal error (please report)";
  }
  return "unknown status";
}

const char *convoy_last_error(void) {
  return thread_error;
}

const char *convoy_version(void) {
  return CONVOY_VERSION_STRING;
}

void convoy_error_vformat(char *buf, size_t size, const char *fmt, va_list ap) {
  if (!buf || size == 0) return;
  int n = vsnprintf(buf, size, fmt, ap);
  if (n < 0) buf[0] = '\0';
  /* A value quoted in the message (a file name, a spec) may hold a newline
   * or a terminal escape; the message stays one line. */
  for (char *p = buf; *p; p++)
    if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) *p = '?';
}

convoy_status convoy_error_set(convoy_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  convoy_error_vformat(thread_error, sizeof thread_error, fmt, ap);
  va_end(ap);
  return status;
}

convoy_status convoy_error_format(char *buf, size_t size, convoy_status status, const char *fmt,
                                  ...) {
  va_list ap;
  va_start(ap, fmt);
  convoy_error_vformat(buf, size, fmt, ap);
  va_end(ap);
  return status;
}

const char *convoy_error_quote(char *buf, size_t size, const char *value) {
  if (!value) return "(null)";
  const size_t len = strlen(value);
  if (!buf || size < 8 || len < size) return value;
  const size_t keep = size - 1 - 3;
  size_t head = keep / 2, tail = len - (keep - head);
  /* Whole UTF-8 characters: no continuation byte starts the tail, none is
   * left dangling at the end of the head. */
  while (head > 0 && ((unsigned char)value[head] & 0xC0) == 0x80) head--;
  while (tail < len && ((unsigned char)value[tail] & 0xC0) == 0x80) tail++;
  memcpy(buf, value, head);
  memcpy(buf + head, "...", 3);
  memcpy(buf + head + 3, value + tail, len - tail + 1);
  return buf;
}
