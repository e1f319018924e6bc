/* cmd_ctl.c - `convoy ctl PATH COMMAND...`: one command to a running `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "argparse.h"
#include "commands.h"
#include "diag.h"
#include "live_help.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_S 60.0 /* an "ir FILE" loads and transforms a file first */
#define LINE_MAX_BYTES 4096

/* The command words joined by blanks, as one line with its newline. */
static int join(int argc, char **argv, char *line, size_t size) {
  size_t n = 0;
  for (int i = 0; i < argc; i++) {
    size_t len = strlen(argv[i]);
    if (strchr(argv[i], '\n') || strchr(argv[i], '\r')) return -1;
    if (n + len + 2 > size) return -1;
    if (i > 0) line[n++] = ' ';
    memcpy(line + n, argv[i], len);
    n += len;
  }
  line[n++] = '\n';
  line[n] = '\0';
  return 0;
}

static int send_line(int fd, const char *line) {
  for (size_t n = strlen(line); n > 0;) {
    ssize_t k = send(fd, line, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    line += k, n -= (size_t)k;
  }
  return 0;
}

/* Reads the reply line (without its newline); -1 on failure, -2 on time out. */
static int read_reply(int fd, char *buf, size_t size, double timeout_s) {
  size_t n = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (n + 1 < size) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    double left = timeout_s - ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec));
    if (left <= 0) return -2;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return -2;
    ssize_t k = read(fd, buf + n, size - 1 - n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    char *nl = memchr(buf + n, '\n', (size_t)k);
    n += (size_t)k;
    if (nl) {
      *nl = '\0';
      return 0;
    }
  }
  return -1;
}

static int reply_ok(const char *reply) {
  cJSON *j = cJSON_Parse(reply);
  int ok = j && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok"));
  cJSON_Delete(j);
  return ok;
}

static int exchange(const char *path, const char *line, double timeout_s) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path)
    return diag_usage("ctl", "the socket path is longer than %zu bytes", sizeof a.sun_path - 1);
  memcpy(a.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (const struct sockaddr *)&a, sizeof a) != 0) {
    diag_error("ctl: %s: %s (is 'convoy live --control %s' running?)", path, strerror(errno), path);
    if (fd >= 0) close(fd);
    return CLI_EXIT_FAIL;
  }
  char *reply = malloc(1 << 20);
  int r = reply && send_line(fd, line) == 0 ? read_reply(fd, reply, 1 << 20, timeout_s) : -1;
  close(fd);
  int rc = CLI_EXIT_FAIL;
  if (r == 0) {
    printf("%s\n", reply);
    rc = reply_ok(reply) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
  } else if (r == -2) {
    diag_error("ctl: %s: no reply within %g s", path, timeout_s);
  } else {
    diag_error("ctl: %s: the connection ended without a reply", path);
  }
  free(reply);
  return rc;
}

int cmd_ctl(int argc, char **argv) {
  double timeout_s = DEFAULT_TIMEOUT_S;
  int i = 1;
  /* Options come before PATH only: after it every word is the command's
   * ("gain -6"). */
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      help_ctl(stdout);
      return CLI_EXIT_OK;
    }
    if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
      if (parse_double(argv[++i], &timeout_s) != 0 || timeout_s <= 0 || timeout_s > 1e6)
        return diag_usage("ctl", "--timeout: '%s' is not a positive number of seconds", argv[i]);
      continue;
    }
    return diag_usage("ctl", "unknown option '%s'", argv[i]);
  }
  if (argc - i < 2)
    return diag_usage("ctl", "give the control socket and a command (e.g. convoy ctl "
                             "/tmp/convoy.sock stats)");
  char line[LINE_MAX_BYTES];
  if (join(argc - i - 1, argv + i + 1, line, sizeof line) != 0)
    return diag_usage("ctl", "the command is longer than %d bytes or holds a line break",
                      LINE_MAX_BYTES - 2);
  return exchange(argv[i], line, timeout_s);
}
