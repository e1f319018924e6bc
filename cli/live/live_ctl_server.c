/* live_ctl_server.c - the control socket of `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_ctl_server.h"

#include "error_internal.h" /* CONVOY_QUOTE */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct connection {
  int fd; /* -1: free */
  int ended;
  size_t len;
  char buf[LIVE_CTL_LINE];
} connection;

struct live_ctl_server {
  int fd;
  char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
  dev_t dev; /* the socket file, so that only it is removed */
  ino_t ino;
  int next; /* the connection to look at first: each gets its turn */
  connection conn[LIVE_CTL_MAX_CLIENTS];
};

static void set_flags(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int address(const char *path, struct sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a->sun_path) return -1;
  memcpy(a->sun_path, path, strlen(path) + 1);
  return 0;
}

/* A file at path: refused unless it is a socket nobody answers on, which
 * is removed. */
static convoy_status clear_path(const char *path, const struct sockaddr_un *a, char *err,
                                size_t err_size) {
  const char *shown = CONVOY_QUOTE(path);
  struct stat st;
  if (lstat(path, &st) != 0) return CONVOY_OK;
  if (!S_ISSOCK(st.st_mode)) {
    snprintf(err, err_size, "--control %s: a file that is not a socket is there; give another path",
             shown);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int connected = fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof *a) == 0;
  int e = errno;
  if (fd >= 0) close(fd);
  if (connected) {
    snprintf(err, err_size,
             "--control %s: another convoy live answers on this socket (stop it with 'convoy ctl "
             "%s quit', or give another path)",
             shown, shown);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (e != ECONNREFUSED) {
    snprintf(err, err_size, "--control %s: %s", shown, strerror(e));
    return CONVOY_ERR_IO;
  }
  if (unlink(path) != 0 && errno != ENOENT) { /* stale: its process is gone */
    snprintf(err, err_size, "--control %s: cannot remove the stale socket: %s", shown,
             strerror(errno));
    return CONVOY_ERR_IO;
  }
  return CONVOY_OK;
}

convoy_status live_ctl_server_open(live_ctl_server **out, const char *path, char *err,
                                   size_t err_size) {
  *out = NULL;
  struct sockaddr_un a;
  if (address(path, &a) != 0) {
    snprintf(err, err_size, "--control %s: the path is too long for a socket", CONVOY_QUOTE(path));
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  convoy_status st = clear_path(path, &a, err, err_size);
  if (st != CONVOY_OK) return st;
  live_ctl_server *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  for (int i = 0; i < LIVE_CTL_MAX_CLIENTS; i++) s->conn[i].fd = -1;
  memcpy(s->path, a.sun_path, sizeof s->path);
  s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  /* Created 0600: no moment when others may connect. */
  mode_t old = umask(0177);
  int bound = s->fd >= 0 && bind(s->fd, (const struct sockaddr *)&a, sizeof a) == 0;
  umask(old);
  struct stat sst;
  if (!bound || chmod(path, 0600) != 0 || listen(s->fd, LIVE_CTL_MAX_CLIENTS) != 0 ||
      lstat(path, &sst) != 0) {
    const int e = errno;
    snprintf(err, err_size, "--control %s: %s", CONVOY_QUOTE(path), strerror(e));
    if (bound) unlink(path);
    if (s->fd >= 0) close(s->fd);
    free(s);
    return e == EADDRINUSE ? CONVOY_ERR_INVALID_ARGUMENT : CONVOY_ERR_IO;
  }
  s->dev = sst.st_dev;
  s->ino = sst.st_ino;
  set_flags(s->fd);
  *out = s;
  return CONVOY_OK;
}

static void drop(connection *c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  c->ended = 0;
  c->len = 0;
}

void live_ctl_server_close(live_ctl_server *s) {
  if (!s) return;
  for (int i = 0; i < LIVE_CTL_MAX_CLIENTS; i++) drop(&s->conn[i]);
  close(s->fd);
  struct stat st;
  if (lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino) unlink(s->path);
  free(s);
}

int live_ctl_server_fds(const live_ctl_server *s, struct pollfd *p, int max) {
  int n = 0;
  if (n < max) p[n++] = (struct pollfd){s->fd, POLLIN, 0};
  for (int i = 0; i < LIVE_CTL_MAX_CLIENTS && n < max; i++)
    p[n++] = (struct pollfd){s->conn[i].ended ? -1 : s->conn[i].fd, POLLIN, 0};
  return n;
}

static int send_all(int fd, const char *text, size_t len) {
  while (len > 0) {
    ssize_t k = send(fd, text, len, MSG_NOSIGNAL);
    if (k > 0) {
      text += k, len -= (size_t)k;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    struct pollfd p = {fd, POLLOUT, 0};
    if (k < 0 && errno == EAGAIN && poll(&p, 1, 1000) == 1) continue;
    return -1;
  }
  return 0;
}

static void accept_one(live_ctl_server *s) {
  int fd = accept(s->fd, NULL, NULL);
  if (fd < 0) return;
  set_flags(fd);
  for (int i = 0; i < LIVE_CTL_MAX_CLIENTS; i++) {
    if (s->conn[i].fd < 0) {
      s->conn[i].fd = fd;
      return;
    }
  }
  static const char busy[] = "{\"ok\":false,\"error\":\"too many control connections\"}\n";
  send_all(fd, busy, sizeof busy - 1);
  close(fd);
}

static void read_from(connection *c) {
  for (;;) {
    if (c->len == sizeof c->buf) { /* no newline in a whole buffer */
      static const char longer[] = "{\"ok\":false,\"error\":\"a command line longer than 4095 "
                                   "bytes\"}\n";
      send_all(c->fd, longer, sizeof longer - 1);
      drop(c);
      return;
    }
    ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
    if (k > 0) {
      c->len += (size_t)k;
      if (memchr(c->buf, '\n', c->len)) return; /* a line to serve first */
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno == EAGAIN) return;
    c->ended = 1; /* end or error: its lines are still served */
    return;
  }
}

void live_ctl_server_service(live_ctl_server *s, const struct pollfd *p, int n) {
  if (n > 0 && (p[0].revents & POLLIN)) accept_one(s);
  for (int i = 0; i < LIVE_CTL_MAX_CLIENTS && i + 1 < n; i++) {
    connection *c = &s->conn[i];
    if (c->fd >= 0 && p[i + 1].fd == c->fd && p[i + 1].revents) read_from(c);
  }
}

/* The first line of c, if whole (or the rest of an ended connection). */
static int take(connection *c, char *line, size_t size) {
  char *nl = memchr(c->buf, '\n', c->len);
  size_t n = nl ? (size_t)(nl - c->buf) : c->len;
  if (!nl && !(c->ended && c->len > 0)) return 0;
  size_t keep = n < size ? n : size - 1;
  memcpy(line, c->buf, keep);
  line[keep] = '\0';
  size_t used = nl ? n + 1 : n;
  memmove(c->buf, c->buf + used, c->len - used);
  c->len -= used;
  return 1;
}

int live_ctl_server_next(live_ctl_server *s, char *line, size_t size, int *client) {
  for (int k = 0; k < LIVE_CTL_MAX_CLIENTS; k++) {
    int i = (s->next + k) % LIVE_CTL_MAX_CLIENTS;
    connection *c = &s->conn[i];
    if (c->fd < 0) continue;
    if (take(c, line, size)) {
      *client = i;
      s->next = (i + 1) % LIVE_CTL_MAX_CLIENTS;
      return 1;
    }
    if (c->ended) drop(c);
  }
  return 0;
}

void live_ctl_server_reply(live_ctl_server *s, int client, const char *text) {
  if (client < 0 || client >= LIVE_CTL_MAX_CLIENTS) return;
  connection *c = &s->conn[client];
  if (c->fd < 0) return;
  if (send_all(c->fd, text, strlen(text)) != 0 || send_all(c->fd, "\n", 1) != 0) drop(c);
}
