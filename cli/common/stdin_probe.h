/*
 * stdin_probe.h - a capture on a stdin pipe, read ahead far enough that
 * `--engine auto` can tell a short input (engine_choice.h) as it does for
 * a file, so that a pipe and a file of the same bytes run the same engine
 * and give the same output bits. Reading ahead delays the first output
 * until that much has arrived or the pipe has ended.
 *
 * Used by the filter command's main thread, once, before stdin is opened.
 */
#ifndef CONVOY_CLI_STDIN_PROBE_H
#define CONVOY_CLI_STDIN_PROBE_H

#include <stdint.h>

/* The most bytes stdin_probe reads ahead. */
#define STDIN_PROBE_MAX_BYTES ((int64_t)64 << 20)

/* Where stdin is a pipe or a socket: reads up to `bytes` bytes of it ahead
 * (0 .. STDIN_PROBE_MAX_BYTES, else nothing is read; memory: that many,
 * until they are handed on) and sets *total to the bytes read where it
 * ended within them, else to -1 (also where nothing is read: stdin is
 * anything else, or on a second call). A thread then relays the bytes read
 * ahead, and the rest of the pipe, through a new pipe on stdin, so the
 * reads see the same bytes in the same order, from a pipe as before.
 * CLI_EXIT_OK, or CLI_EXIT_FAIL after one error line (a read error). */
int stdin_probe(int64_t bytes, int64_t *total);

/* After the reads of stdin, before the output is committed: CLI_EXIT_OK,
 * or CLI_EXIT_FAIL after one error line where the relay met a read error
 * (the reads then saw the input end early). */
int stdin_probe_check(void);

#endif /* CONVOY_CLI_STDIN_PROBE_H */
