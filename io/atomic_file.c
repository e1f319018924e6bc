#define _GNU_SOURCE /* O_TMPFILE, renameat2 and RENAME_NOREPLACE (glibc 2.28+), linkat flags */

#include "atomic_file.h"
#include "io_message.h"
#include "temp_cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct atomic_file {
  int fd;                  /* the temporary, -1 once closed */
  int slot;                /* temp_cleanup slot of a named temporary, -1 when not listed */
  int overwrite;           /* 1: replace an existing target */
  int unnamed;             /* 1: an O_TMPFILE file, which has no name until commit */
  char *target;            /* final path (a symlink resolved) */
  char *temp;              /* named temporary's path; NULL while unnamed */
  char *name;              /* path as the caller wrote it, for messages */
  int64_t since_writeback; /* bytes written since writeback last started */
};

/* Bytes between starts of background writeback: small enough that little
 * is left for the closing fsync, large enough that the calls cost nothing. */
#define WRITEBACK_BYTES ((int64_t)4 << 20)

void atomic_file_wrote(atomic_file *af, int64_t bytes) {
  if (!af || af->fd < 0) return;
  af->since_writeback += bytes;
  if (af->since_writeback < WRITEBACK_BYTES) return;
  af->since_writeback = 0;
#ifdef SYNC_FILE_RANGE_WRITE
  (void)sync_file_range(af->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
}

/* Longest part of the target's name copied into the temporary's name, so
 * that ".NAME.convoy-PID-XXXXXX" stays within NAME_MAX (255). */
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

/* The directory part of path ("." when there is none). */
static void dir_of(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, size, ".");
  else if (slash == path)
    snprintf(out, size, "/");
  else
    snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* The name part of target and how much of it temporaries' names carry. */
static const char *base_of(const char *target, int *len) {
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  *len = (int)strlen(base);
  if (*len > TEMP_BASE_MAX) *len = TEMP_BASE_MAX;
  return base;
}

/* Builds "DIR/.BASE.convoy-PID-XXXXXX" for target into a new string. The
 * writer's process id tells a person which process writes it; whether that
 * writer is alive is told by its lock (remove_stale_temps). */
static char *temp_name_for(const char *target) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  int base_len;
  const char *base = base_of(target, &base_len);
  int dir_len = (int)(base - target); /* includes the '/' */
  char suffix[7];
  uint64_t r = name_noise();
  for (int i = 0; i < 6; i++, r /= 62) suffix[i] = alphabet[r % 62];
  suffix[6] = '\0';
  size_t size = (size_t)dir_len + (size_t)base_len + 48;
  char *temp = malloc(size);
  if (temp)
    snprintf(temp, size, "%.*s.%.*s.convoy-%ld-%s", dir_len, target, base_len, base, (long)getpid(),
             suffix);
  return temp;
}

/* Whether name (a directory entry) is a temporary of this scheme for the
 * target whose temporaries start with prefix: prefix, digits, '-', six
 * letters or digits. The older ".NAME.convoy-XXXXXX" names, which carried
 * no lock, never match. */
static int is_temp_name(const char *name, const char *prefix, size_t prefix_len) {
  if (strncmp(name, prefix, prefix_len) != 0) return 0;
  const char *p = name + prefix_len;
  const char *digits = p;
  while (*p >= '0' && *p <= '9') p++;
  if (p == digits || *p != '-') return 0;
  p++;
  for (int i = 0; i < 6; i++, p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      return 0;
  return *p == '\0';
}

/* Removes the named temporaries of target that their writer left behind
 * (killed by SIGKILL, or the machine went down). A writer holds an
 * exclusive flock on its temporary from before anyone could take it (see
 * open_named) until it is renamed or removed, so a temporary whose lock can
 * be taken has no writer. One that cannot be opened or locked is left
 * alone. Best effort: nothing here fails the caller. */
static void remove_stale_temps(const char *target) {
  char dir[PATH_MAX];
  dir_of(target, dir, sizeof dir);
  int base_len;
  const char *base = base_of(target, &base_len);
  char prefix[TEMP_BASE_MAX + 16];
  int prefix_len = snprintf(prefix, sizeof prefix, ".%.*s.convoy-", base_len, base);
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!is_temp_name(e->d_name, prefix, (size_t)prefix_len)) continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat held, named;
    if (fstat(fd, &held) == 0 && S_ISREG(held.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        lstat(path, &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino)
      unlink(path);
    close(fd); /* releases the lock */
  }
  closedir(d);
}

/* Blocks the signals temp_cleanup handles, so that none falls between
 * making a name and listing it. */
static void block_cleanup_signals(sigset_t *old) {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, old);
}

/* "/proc/self/fd/N": the name through which linkat() gives an unnamed file
 * a name without privileges. */
static void proc_fd_path(int fd, char *out, size_t size) {
  snprintf(out, size, "/proc/self/fd/%d", fd);
}

/* Gives the unnamed file fd the name path; fails with EEXIST when path
 * exists. */
static int link_unnamed(int fd, const char *path) {
  char proc[64];
  proc_fd_path(fd, proc, sizeof proc);
  if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return 0;
#ifdef AT_EMPTY_PATH
  if (errno == ENOENT || errno == ENOTDIR) { /* no /proc: needs CAP_DAC_READ_SEARCH */
    int saved = errno;
    if (linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0) return 0;
    if (errno == EPERM || errno == EACCES) errno = saved;
  }
#endif
  return -1;
}

/* Makes af->temp (a fresh name) with O_EXCL, or for an unnamed af->fd links
 * it there, and lists it for cleanup, with the cleanup signals blocked so
 * that none can fall between the two. Returns 0, -1 with errno set, or -2
 * when the cleanup table is full (an unnamed file's name, which lives only
 * for the rename at commit, goes unlisted then: its lock marks it). */
static int make_listed_temp(atomic_file *af) {
  sigset_t old;
  block_cleanup_signals(&old);
  int rc;
  if (af->unnamed) {
    rc = link_unnamed(af->fd, af->temp);
  } else {
    af->fd = open(af->temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    rc = af->fd >= 0 ? 0 : -1;
  }
  int saved = errno;
  if (rc == 0) {
    af->slot = temp_cleanup_register(af->temp);
    if (af->slot < 0 && !af->unnamed) {
      unlink(af->temp);
      close(af->fd);
      af->fd = -1;
      rc = -2;
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = saved;
  return rc;
}

/* Makes a fresh temporary name for af: opens it (a named temporary) or
 * links the unnamed file there. Returns as make_listed_temp. */
static int name_temp(atomic_file *af) {
  int rc = -1;
  for (int attempt = 0; attempt < 100; attempt++) {
    free(af->temp);
    af->temp = temp_name_for(af->target);
    if (!af->temp) {
      errno = ENOMEM;
      return -1;
    }
    rc = make_listed_temp(af);
    if (rc != -1 || errno != EEXIST) break;
  }
  if (rc != 0) { /* no name of ours to remove later */
    free(af->temp);
    af->temp = NULL;
  }
  return rc;
}

/* Drops the temporary's name, if it has one, and its cleanup listing. */
static void unname_temp(atomic_file *af) {
  if (af->temp) unlink(af->temp);
  temp_cleanup_unregister(af->slot);
  af->slot = -1;
  free(af->temp);
  af->temp = NULL;
}

/* Opens a named temporary and locks it. Between open() and flock() another
 * run's remove_stale_temps may take the lock first and remove the name:
 * flock() then waits for it, and the name no longer being this file's
 * means starting again under another name. Returns as make_listed_temp. */
static int open_named(atomic_file *af) {
  for (int attempt = 0; attempt < 100; attempt++) {
    int rc = name_temp(af);
    if (rc != 0) return rc;
    while (flock(af->fd, LOCK_EX) != 0 && errno == EINTR)
      ;
    struct stat held, named;
    if (fstat(af->fd, &held) == 0 && lstat(af->temp, &named) == 0 && named.st_dev == held.st_dev &&
        named.st_ino == held.st_ino)
      return 0;
    temp_cleanup_unregister(af->slot);
    af->slot = -1;
    free(af->temp);
    af->temp = NULL;
    close(af->fd);
    af->fd = -1;
  }
  errno = EEXIST;
  return -1;
}

/* Set (to anything but "0" or empty) by tests only: never use O_TMPFILE, as
 * on a file system without it, so that the named scheme can be tested. */
static int named_forced(void) {
  const char *v = getenv("CONVOY_IO_TEST_NAMED_TEMP");
  return v && *v && strcmp(v, "0") != 0;
}

/* Opens an unnamed file in the target's directory, locked (see
 * remove_stale_temps: its name at commit is a temporary one for a moment).
 * Returns the descriptor, -1 with errno set when the directory cannot take
 * files at all, or -2 when unnamed files are not to be had here (the file
 * system or kernel lacks O_TMPFILE, or /proc is not there to link one). */
static int open_unnamed(const char *target, int shared) {
#ifdef O_TMPFILE
  if (shared || named_forced()) return -2;
  char dir[PATH_MAX];
  dir_of(target, dir, sizeof dir);
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    return errno == EOPNOTSUPP || errno == ENOTSUP || errno == EISDIR || errno == EINVAL ? -2 : -1;
  char proc[64];
  proc_fd_path(fd, proc, sizeof proc);
  struct stat held, linked;
  if (fstat(fd, &held) != 0 || stat(proc, &linked) != 0 || linked.st_ino != held.st_ino ||
      linked.st_dev != held.st_dev) {
    close(fd);
    return -2;
  }
  (void)flock(fd, LOCK_EX); /* a new file: nobody else can hold it */
  return fd;
#else
  (void)target;
  (void)shared;
  return -2;
#endif
}

static convoy_status create_file(atomic_file **out, const char *path, int overwrite, int shared,
                                 int *fd, char *err, size_t err_size) {
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

  remove_stale_temps(af->target);
  int rc = open_unnamed(af->target, shared);
  if (rc >= 0) {
    af->fd = rc;
    af->unnamed = 1;
    rc = 0;
  } else if (rc == -2) {
    rc = open_named(af);
  }
  if (rc < 0) {
    char dir[PATH_MAX];
    dir_of(af->target, dir, sizeof dir);
    if (rc == -2)
      io_errorf(err, err_size, "%s: too many outputs open at once (limit %d)", path,
                TEMP_CLEANUP_SLOTS);
    else
      io_errorf(err, err_size, "%s: cannot create a temporary file in %s: %s", path, dir,
                strerror(errno));
    free_file(af);
    return CONVOY_ERR_IO;
  }
  if (keep_mode) (void)fchmod(af->fd, keep_mode); /* best effort, like cp */
  *fd = af->fd;
  *out = af;
  return CONVOY_OK;

oom:
  io_errorf(err, err_size, "%s: out of memory", path);
  if (af) free_file(af);
  return CONVOY_ERR_OUT_OF_MEMORY;
}

convoy_status atomic_file_create(atomic_file **out, const char *path, int overwrite, int *fd,
                                 char *err, size_t err_size) {
  return create_file(out, path, overwrite, 0, fd, err, err_size);
}

convoy_status atomic_file_create_shared(atomic_file **out, const char *path, int overwrite, int *fd,
                                        char *err, size_t err_size) {
  return create_file(out, path, overwrite, 1, fd, err, err_size);
}

const char *atomic_file_reopen_path(const atomic_file *af, char *buf, size_t size) {
  if (!af || af->fd < 0) return NULL;
  if (af->temp && !af->unnamed) return af->temp;
  proc_fd_path(af->fd, buf, size);
  return buf;
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

/* Puts the complete temporary in place of the target. An unnamed file is
 * linked: straight to the target when it must not replace one (link fails
 * if the target exists), else to a temporary name that is then renamed over
 * the target. The descriptor stays open, and so the lock held, throughout,
 * so that no other run takes the temporary for a stale one. */
static int put_in_place(atomic_file *af) {
  if (af->unnamed && !af->overwrite) return link_unnamed(af->fd, af->target);
  if (af->unnamed && name_temp(af) != 0) return -1;
  int rc = af->overwrite ? rename(af->temp, af->target) : rename_noreplace(af->temp, af->target);
  int saved = errno;
  if (rc != 0 && af->unnamed) unname_temp(af); /* the unnamed file goes with its descriptor */
  errno = saved;
  return rc;
}

/* Closes a temporary put in place, fsyncs its directory, frees it. */
static void finish(atomic_file *af) {
  /* The data reached the disk at fsync: a failing close has nothing to add. */
  close(af->fd);
  af->fd = -1;
  sync_directory(af->target);
  temp_cleanup_unregister(af->slot);
  free_file(af);
}

convoy_status atomic_file_commit(atomic_file *af, char *err, size_t err_size) {
  return atomic_file_commit_with(af, NULL, err, err_size);
}

convoy_status atomic_file_commit_with(atomic_file *af, atomic_file *after, char *err,
                                      size_t err_size) {
  if (!af) {
    atomic_file_discard(after);
    io_errorf(err, err_size, "no output file to commit");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  atomic_file *files[2] = {af, after};
  const int count = after ? 2 : 1;
  for (int i = 0; i < count; i++) {
    if (fsync(files[i]->fd) != 0) {
      io_errorf(err, err_size, "%s: cannot flush to disk: %s", files[i]->name, strerror(errno));
      atomic_file_discard(af);
      atomic_file_discard(after);
      return CONVOY_ERR_IO;
    }
  }
  for (int i = 0; i < count; i++) {
    if (put_in_place(files[i]) != 0) {
      if (errno == EEXIST)
        io_errorf(err, err_size, "%s: appeared while writing; not overwriting it", files[i]->name);
      else
        io_errorf(err, err_size, "%s: cannot %s the temporary file into place: %s", files[i]->name,
                  files[i]->unnamed ? "link" : "rename", strerror(errno));
      if (i == 1) { /* af is in place already: not without the other */
        unlink(af->target);
        finish(af);
        atomic_file_discard(after);
      } else {
        atomic_file_discard(af);
        atomic_file_discard(after);
      }
      return CONVOY_ERR_IO;
    }
  }
  for (int i = 0; i < count; i++) finish(files[i]);
  return CONVOY_OK;
}

void atomic_file_discard(atomic_file *af) {
  if (!af) return;
  unname_temp(af); /* while the lock is held */
  if (af->fd >= 0) close(af->fd);
  free_file(af);
}
