/*
 * error_internal.h - setting error messages inside the library (internal).
 *
 * Two places hold messages: convoy_last_error(), one buffer per thread, for
 * calls that have no object yet (creates) or were handed a NULL object; and a
 * buffer inside each object (a stream's last error). Messages are one line
 * (the formatting writes a control character but the tab, such as a newline
 * in a file name, as '?'), truncated to CONVOY_ERROR_SIZE - 1 bytes: quote a
 * value a user gave (a file name) through CONVOY_QUOTE, so that a long one is
 * shortened in its middle instead of cutting off the reason after it.
 * Nothing here prints or allocates.
 */
#ifndef CONVOY_ERROR_INTERNAL_H
#define CONVOY_ERROR_INTERNAL_H

#include "convoy.h"

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size of every message buffer, terminating NUL included. */
#define CONVOY_ERROR_SIZE 256

#if defined(__GNUC__)
#define CONVOY_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CONVOY_PRINTF(fmt_index, first_arg)
#endif

/* Formats the calling thread's convoy_last_error() message; returns status
 * so that callers can write `return convoy_error_set(CONVOY_ERR_..., ...)`. */
convoy_status convoy_error_set(convoy_status status, const char *fmt, ...) CONVOY_PRINTF(2, 3);

/* Formats a message into an object's buffer (buf of size bytes; nothing is
 * written when buf is NULL or size is 0); returns status. */
convoy_status convoy_error_format(char *buf, size_t size, convoy_status status, const char *fmt,
                                  ...) CONVOY_PRINTF(4, 5);

/* va_list form of convoy_error_format. */
void convoy_error_vformat(char *buf, size_t size, const char *fmt, va_list ap);

/* Most bytes a user-supplied value (a file name, a spec) takes in a message,
 * so that a long one leaves room for where and why. */
#define CONVOY_QUOTE_MAX 160

/* value for quoting in a message: itself when it has at most size - 1 bytes,
 * else its head and tail around "..." in buf (size - 1 bytes; cut between
 * UTF-8 characters). size >= 8; a NULL value reads "(null)". */
const char *convoy_error_quote(char *buf, size_t size, const char *value);

#ifndef __cplusplus
/* convoy_error_quote in a buffer of the calling expression's block:
 * convoy_error_format(err, n, st, "%s: %s", CONVOY_QUOTE(path), why). */
#define CONVOY_QUOTE(value)                                                                        \
  convoy_error_quote((char[CONVOY_QUOTE_MAX + 1]){0}, CONVOY_QUOTE_MAX + 1, (value))
#endif

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_ERROR_INTERNAL_H */
