/*
 * diag.h - how the convoy program talks on stderr: errors (always shown, one
 * line, "convoy: " first), warnings and notices (hidden by -q).
 */
#ifndef CONVOY_CLI_DIAG_H
#define CONVOY_CLI_DIAG_H

#include <stdio.h>

/* Every message is one line: a control character in it (a newline in a file
 * name or an option's value, say) is written as '?'. */

/* Where the lines go: stream, or stderr when NULL (the default). For tests
 * that check what a parser prints. */
void diag_set_stream(FILE *stream);

/* With quiet set, diag_warn and diag_notice print nothing. */
void diag_set_quiet(int quiet);
int diag_quiet(void);

/* "convoy: MESSAGE\n" on stderr, always. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "convoy: warning: MESSAGE\n" unless quiet. */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "convoy: MESSAGE\n" unless quiet. */
void diag_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error of command cmd: "convoy: CMD: MESSAGE (see 'convoy CMD --help')".
 * Returns CLI_EXIT_USAGE so callers can `return diag_usage(...)`. */
int diag_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* CONVOY_CLI_DIAG_H */
