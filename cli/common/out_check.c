/* out_check.c - refusing an existing OUT before any work. */
#define _POSIX_C_SOURCE 200809L
#include "out_check.h"

#include "commands.h"
#include "diag.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int out_check_free(const char *cmd, const char *path, int overwrite) {
  if (overwrite || !path || strcmp(path, "-") == 0) return CLI_EXIT_OK;
  struct stat st;
  if (lstat(path, &st) != 0 && errno == ENOENT) return CLI_EXIT_OK;
  return diag_usage(cmd, "%s: already exists; give -y to overwrite it", path);
}
