/*
 * io_message.h - one-line error messages for the audio I/O functions.
 * Internal to convoy_io.
 */
#ifndef CONVOY_IO_MESSAGE_H
#define CONVOY_IO_MESSAGE_H

#include <stddef.h>

/* printf into err (err_size bytes, always NUL-terminated), a control
 * character but the tab (a newline in a file name) written as '?' so that
 * the message is one line; err may be NULL or err_size 0, then nothing is
 * written. */
void io_errorf(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* libsndfile's message text made to fit inside one of ours: a leading
 * "Error : " or "System error : " and the trailing period and newlines
 * removed. Returns buf. */
const char *io_sf_text(const char *raw, char *buf, size_t buf_size);

#endif /* CONVOY_IO_MESSAGE_H */
