/*
 * fuzz_tmp.h - a private directory for the fuzz entry points that hand their
 * input to code that opens files: made once per process under /dev/shm when
 * it is writable (memory, so the writers' fsync costs nothing), else
 * $TMPDIR or /tmp, and removed at exit. Each entry point removes the files
 * it made before it returns. Include it after defining _POSIX_C_SOURCE
 * 200809L (mkdtemp).
 */
#ifndef CONVOY_FUZZ_TMP_H
#define CONVOY_FUZZ_TMP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_tmp_root[512];

/* At exit: whatever is left in the directory (the empty subdirectory
 * fuzz_capture makes), then the directory. An entry point that aborts
 * leaves its files, which show what it was doing. */
static inline void fuzz_tmp_remove_dir(void) {
  if (!fuzz_tmp_root[0]) return;
  DIR *d = opendir(fuzz_tmp_root);
  if (d) {
    char path[1024];
    for (struct dirent *e; (e = readdir(d));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(path, sizeof path, "%s/%s", fuzz_tmp_root, e->d_name);
      if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
  }
  rmdir(fuzz_tmp_root);
}

/* The directory, made on the first call; aborts when none can be made. */
static inline const char *fuzz_tmp_dir(void) {
  if (fuzz_tmp_root[0]) return fuzz_tmp_root;
  const char *env = getenv("TMPDIR");
  const char *bases[] = {"/dev/shm", env && *env ? env : "/tmp", "/tmp"};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
    snprintf(fuzz_tmp_root, sizeof fuzz_tmp_root, "%s/convoy-fuzz-XXXXXX", bases[i]);
    if (mkdtemp(fuzz_tmp_root)) {
      atexit(fuzz_tmp_remove_dir);
      return fuzz_tmp_root;
    }
  }
  fprintf(stderr, "fuzz: cannot make a temporary directory: %s\n", strerror(errno));
  abort();
}

/* DIR/name into path (size bytes). */
static inline const char *fuzz_tmp_path(char *path, size_t size, const char *name) {
  snprintf(path, size, "%s/%s", fuzz_tmp_dir(), name);
  return path;
}

/* Writes n bytes to DIR/name (replacing it); the path into path. Aborts on
 * failure: the fuzz run cannot go on without its directory. */
static inline const char *fuzz_tmp_write(char *path, size_t size, const char *name,
                                         const void *data, size_t n) {
  fuzz_tmp_path(path, size, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
    abort();
  }
  const unsigned char *p = data;
  while (n > 0) {
    ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
      abort();
    }
    p += put;
    n -= (size_t)put;
  }
  close(fd);
  return path;
}

#endif /* CONVOY_FUZZ_TMP_H */
