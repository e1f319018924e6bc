/*
 * out_check.h - an existing output file is refused up front: without -y,
 * OUT that exists is a usage error (exit 1, as ffmpeg's without -y), found
 * before any input is read or any temporary made. The atomic file of io/
 * refuses it again at creation, for a file that appears in between.
 */
#ifndef CONVOY_CLI_OUT_CHECK_H
#define CONVOY_CLI_OUT_CHECK_H

/* CLI_EXIT_OK when overwrite is set, path is NULL or "-" (stdout), or
 * nothing exists at path (a dangling symbolic link counts as existing);
 * else prints the usage error of command cmd and returns CLI_EXIT_USAGE. */
int out_check_free(const char *cmd, const char *path, int overwrite);

#endif /* CONVOY_CLI_OUT_CHECK_H */
