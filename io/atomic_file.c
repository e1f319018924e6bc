#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE (glibc 2.28+) */

#include "atomic_file.h"
#include "io_message.h"
#include "temp_cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct atomic_file {
  int fd;        /* the temporary, -1 once closed */
  int slot;      /* temp_cleanup slot, -1 when not listed */
  int overwrite; /* 1: replace an existing target */
  char *target;  /* final path (a symlink resolved) */
  char *temp;    /* temporary path */
  char *name;    /* path as the caller wrote it, for messages */
};

void atomic_file_start_writeback(atomic_file *af) {
#ifdef SYNC_FILE_RANGE_WRITE
  if (af && af->fd >= 0) (void)sync_file_range(af->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)af;
#endif
}

/* Longest part of the target's name copied into the temporary's name, so
 * that ".NAME.convoy-XXXXXX" stays within NAME_MAX (255). */
#define TEMP_BASE_MAX 200

static void free_file(atomic_file *af) {
  free(af->target);
  free(af->temp);
  free(af->name);
  free(af);
}

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static uint64_t name_noise(void) {
  static uint64_t counter = 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 17) ^
               (++counter * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Builds "DIR/.BASE.convoy-XXXXXX" for target into a new string. */
static char *temp_name_for(const char *target) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  int dir_len = slash ? (int)(slash - target) + 1 : 0; /* includes the '/' */
  int base_len = (int)strlen(base);
  if (base_len > TEMP_BASE_MAX) base_len = TEMP_BASE_MAX;
  char suffix[7];
  uint64_t r = name_noise();
  for (int i = 0; i < 6; i++, r /= 62) suffix[i] = alphabet[r % 62];
  suffix[6] = '\0';
  size_t size = (size_t)dir_len + (size_t)base_len + 32;
  char *temp = malloc(size);
  if (temp) snprintf(temp, size, "%.*s.%.*s.convoy-%s", dir_len, target, base_len, base, suffix);
  return temp;
}

/* Creates the temporary with O_EXCL and lists it for cleanup, with the
 * cleanup signals blocked so that no signal can fall between the two.
 * Returns the descriptor, -1 with errno set, or -2 when the cleanup table
 * is full. */
static int open_listed_temp(atomic_file *af) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int fd = open(af->temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  int saved = errno;
  if (fd >= 0) {
    af->slot = temp_cleanup_register(af->temp);
    if (af->slot < 0) {
      close(fd);
      unlink(af->temp);
      fd = -2;
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = saved;
  return fd;
}

/* The directory part of path ("." when there is none), for messages. */
static void dir_of(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, size, ".");
  else if (slash == path)
    snprintf(out, size, "/");
  else
    snprintf(out, size, "%.*s", (int)(slash - path), path);
}

convoy_status atomic_file_create(atomic_file **out, const char *path, int overwrite, int *fd,
                                 char *err, size_t err_size) {
  *out = NULL;
  *fd = -1;
  if (!path || !*path) {
    io_errorf(err, err_size, "empty output file name");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  atomic_file *af = calloc(1, sizeof *af);
  if (!af) goto oom;
  af->fd = -1;
  af->slot = -1;
  af->overwrite = overwrite;
  af->name = dup_string(path);
  if (!af->name) goto oom;

  /* st describes what the target will be: the file a symlink points to, or
   * the path itself (a dangling link is replaced as it is). */
  struct stat st;
  mode_t keep_mode = 0;
  int exists = lstat(path, &st) == 0;
  if (!exists && errno != ENOENT) {
    io_errorf(err, err_size, "%s: %s", path, strerror(errno));
    free_file(af);
    return CONVOY_ERR_IO;
  }
  if (exists && !overwrite) {
    io_errorf(err, err_size, "%s: already exists; not overwriting it", path);
    free_file(af);
    return CONVOY_ERR_IO;
  }
  if (exists && S_ISLNK(st.st_mode)) {
    char *resolved = realpath(path, NULL);
    if (resolved && stat(resolved, &st) == 0) {
      af->target = resolved;
    } else { /* dangling link: replace the link itself */
      free(resolved);
    }
  }
  if (!af->target) af->target = dup_string(path);
  if (!af->target) goto oom;
  if (exists && !S_ISLNK(st.st_mode)) { /* not a dangling link */
    if (S_ISDIR(st.st_mode)) {
      io_errorf(err, err_size, "%s: %s", path, strerror(EISDIR));
      free_file(af);
      return CONVOY_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
      io_errorf(err, err_size, "%s: not a regular file; not replacing it", path);
      free_file(af);
      return CONVOY_ERR_IO;
    }
    keep_mode = st.st_mode & 07777;
  }

  int fd_or_code = -1;
  for (int attempt = 0; attempt < 100 && fd_or_code == -1; attempt++) {
    free(af->temp);
    af->temp = temp_name_for(af->target);
    if (!af->temp) goto oom;
    fd_or_code = open_listed_temp(af);
    if (fd_or_code == -1 && errno != EEXIST) break;
  }
  if (fd_or_code < 0) {
    char dir[PATH_MAX];
    dir_of(af->target, dir, sizeof dir);
    if (fd_or_code == -2)
      io_errorf(err, err_size, "%s: too many outputs open at once (limit %d)", path,
                TEMP_CLEANUP_SLOTS);
    else
      io_errorf(err, err_size, "%s: cannot create a temporary file in %s: %s", path, dir,
                strerror(errno));
    free_file(af);
    return CONVOY_ERR_IO;
  }
  af->fd = fd_or_code;
  if (keep_mode) (void)fchmod(af->fd, keep_mode); /* best effort, like cp */
  *fd = af->fd;
  *out = af;
  return CONVOY_OK;

oom:
  io_errorf(err, err_size, "%s: out of memory", path);
  if (af) free_file(af);
  return CONVOY_ERR_OUT_OF_MEMORY;
}

/* Renames temp to target without replacing an existing target. Preferred:
 * renameat2(RENAME_NOREPLACE), atomic (Linux 3.15+, glibc 2.28+, most local
 * filesystems). Where the filesystem refuses it: link() + unlink(), also
 * atomic (link fails with EEXIST). Where neither works (no hard links, e.g.
 * FAT): a stat check then rename(), which leaves a short window in which a
 * file created by someone else would be replaced. */
static int rename_noreplace(const char *temp, const char *target) {
#ifdef RENAME_NOREPLACE
  if (renameat2(AT_FDCWD, temp, AT_FDCWD, target, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP) return -1;
#endif
  if (link(temp, target) == 0) {
    unlink(temp);
    return 0;
  }
  if (errno == EEXIST) return -1;
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EMLINK) return -1;
  struct stat st;
  if (lstat(target, &st) == 0) {
    errno = EEXIST;
    return -1;
  }
  return rename(temp, target);
}

static void sync_directory(const char *target) {
  char dir[PATH_MAX];
  dir_of(target, dir, sizeof dir);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  (void)fsync(dfd); /* best effort: some filesystems refuse fsync on directories */
  close(dfd);
}

convoy_status atomic_file_commit(atomic_file *af, char *err, size_t err_size) {
  if (!af) {
    io_errorf(err, err_size, "no output file to commit");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (fsync(af->fd) != 0) {
    io_errorf(err, err_size, "%s: cannot flush to disk: %s", af->name, strerror(errno));
    atomic_file_discard(af);
    return CONVOY_ERR_IO;
  }
  int fd = af->fd;
  af->fd = -1;
  if (close(fd) != 0) {
    io_errorf(err, err_size, "%s: cannot close: %s", af->name, strerror(errno));
    atomic_file_discard(af);
    return CONVOY_ERR_IO;
  }
  int rc = af->overwrite ? rename(af->temp, af->target) : rename_noreplace(af->temp, af->target);
  if (rc != 0) {
    if (errno == EEXIST)
      io_errorf(err, err_size, "%s: appeared while writing; not overwriting it", af->name);
    else
      io_errorf(err, err_size, "%s: cannot rename the temporary file into place: %s", af->name,
                strerror(errno));
    atomic_file_discard(af);
    return CONVOY_ERR_IO;
  }
  sync_directory(af->target);
  temp_cleanup_unregister(af->slot);
  free_file(af);
  return CONVOY_OK;
}

void atomic_file_discard(atomic_file *af) {
  if (!af) return;
  if (af->fd >= 0) close(af->fd);
  if (af->temp) unlink(af->temp);
  temp_cleanup_unregister(af->slot);
  free_file(af);
}
