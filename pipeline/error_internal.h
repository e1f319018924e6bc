/*
 * error_internal.h - setting error messages inside the library (internal).
 *
 * Two places hold messages: convoy_last_error(), one buffer per thread, for
 * calls that have no object yet (creates) or were handed a NULL object; and a
 * buffer inside each object (a stream's last error). Messages are one line,
 * truncated to CONVOY_ERROR_SIZE - 1 bytes. Nothing here prints or allocates.
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

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_ERROR_INTERNAL_H */
