/* stdin_probe.c - reading a piped stdin ahead (stdin_probe.h). */
#define _GNU_SOURCE /* pipe2, splice, F_SETPIPE_SZ */

#include "stdin_probe.h"

#include "commands.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int probed;

/* The relay: the bytes read ahead, then the rest of the original stdin,
 * into the write end of the pipe now on stdin. */
static struct {
  int from, to;
  unsigned char *head;
  size_t head_len;
  int64_t moved;       /* bytes read from the original stdin */
  atomic_int finished; /* set after error, before the write end closes */
  int error;           /* errno of a read error; 0: none */
} relay;

/* read() until `want` bytes or the end; -1 with errno on an error. */
static ssize_t read_all(int fd, unsigned char *p, size_t want) {
  size_t got = 0;
  while (got < want) {
    ssize_t n = read(fd, p + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

/* write() all of p; 0, or -1 with errno (the reader went away). */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Moves the rest of relay.from to relay.to: splice, or read and write where
 * the descriptors do not splice. 0 at the end, or errno of a read error. */
static int move_rest(void) {
  for (;;) {
    ssize_t n = splice(relay.from, NULL, relay.to, NULL, 1 << 20, SPLICE_F_MOVE);
    if (n > 0) {
      relay.moved += n;
      continue;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    if (errno != EINVAL) return errno;
    break;
  }
  unsigned char *buf = malloc(1 << 20);
  if (!buf) return ENOMEM;
  int err = 0;
  for (;;) {
    ssize_t n = read(relay.from, buf, 1 << 20);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    relay.moved += n;
    if (write_all(relay.to, buf, (size_t)n) != 0) break;
  }
  free(buf);
  return err;
}

static void *relay_main(void *arg) {
  (void)arg;
  int err = 0;
  if (write_all(relay.to, relay.head, relay.head_len) == 0) err = move_rest();
  free(relay.head);
  relay.head = NULL;
  relay.error = err;
  atomic_store(&relay.finished, 1);
  close(relay.to);
  close(relay.from);
  return NULL;
}

/* stdin becomes the read end of a pipe that a thread fills with the n
 * bytes at head (taken), then the rest of the original stdin. */
static int to_relay(unsigned char *head, size_t n) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return -1;
  (void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups; the default also works */
  relay.from = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  if (relay.from < 0 || dup2(p[0], STDIN_FILENO) < 0) {
    if (relay.from >= 0) close(relay.from);
    close(p[0]);
    close(p[1]);
    return -1;
  }
  close(p[0]);
  relay.to = p[1];
  relay.head = head;
  relay.head_len = n;
  relay.moved = (int64_t)n;
  /* Signals stay with the main thread, which cleans up on them. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  int rc = pthread_create(&t, NULL, relay_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    errno = rc;
    return -1; /* stdin is already the new pipe: nothing can be read any more */
  }
  pthread_detach(t);
  return 0;
}

int stdin_probe(int64_t bytes, int64_t *total) {
  *total = -1;
  if (probed || bytes < 0 || bytes > STDIN_PROBE_MAX_BYTES) return CLI_EXIT_OK;
  probed = 1;
  struct stat sb;
  if (fstat(STDIN_FILENO, &sb) != 0 || !(S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
    return CLI_EXIT_OK;
  const size_t want = (size_t)bytes + 1; /* one more: has it ended? */
  unsigned char *head = malloc(want);
  if (!head) {
    diag_error("stdin: out of memory reading %lld bytes ahead", (long long)want);
    return CLI_EXIT_FAIL;
  }
  ssize_t got = read_all(STDIN_FILENO, head, want);
  if (got < 0) {
    diag_error("stdin: read error: %s", strerror(errno));
    free(head);
    return CLI_EXIT_FAIL;
  }
  if ((size_t)got < want) *total = got;
  if (to_relay(head, (size_t)got) != 0) {
    diag_error("stdin: cannot pass on what was read ahead: %s", strerror(errno));
    free(head);
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

int stdin_probe_check(void) {
  if (!atomic_load(&relay.finished) || relay.error == 0) return CLI_EXIT_OK;
  diag_error("stdin: read error after %lld bytes: %s", (long long)relay.moved,
             strerror(relay.error));
  return CLI_EXIT_FAIL;
}
