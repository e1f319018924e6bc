/*
 * atomic_file.h - write a file as a temporary in its directory and put it
 * in place only when complete, so that a reader never sees a half-written
 * file and a failed run leaves the old file untouched.
 * Internal to convoy_io.
 *
 * The temporary is an unnamed file in the target's directory (Linux
 * O_TMPFILE), so that a process killed by SIGKILL, or a machine that goes
 * down, leaves nothing behind. At commit it is fsynced and linked into place
 * through /proc/self/fd: straight onto the target without overwrite (the
 * link fails if the target appeared meanwhile), else onto a temporary name
 * that is renamed over the target.
 *
 * Where the file system or kernel has no O_TMPFILE (open fails with
 * EOPNOTSUPP, EISDIR or EINVAL) or /proc is missing, the temporary is named
 * ".NAME.convoy-PID-XXXXXX" beside the target (PID: the writer's process
 * id), created with O_EXCL and listed in temp_cleanup so that a signal
 * removes it, and renamed into place at commit. Its writer holds an
 * exclusive flock on it until then (the unnamed file's descriptor holds one
 * too, for its moment under a temporary name). A run that creates a
 * temporary for a target first removes that target's temporaries whose lock
 * it can take: those whose writer was killed. A live writer's temporary is
 * never removed. The environment variable CONVOY_IO_TEST_NAMED_TEMP=1 forces
 * the named scheme; it is a test hook, read here only.
 *
 * Either way the temporary gets mode 0666 minus the umask (like any new
 * file; mkstemp would give 0600), or the target's mode when the target
 * exists. A target that is a symlink is resolved: the file it points to is
 * replaced and the link kept.
 *
 * Not thread-safe per object; distinct objects may be used from distinct
 * threads.
 */
#ifndef CONVOY_ATOMIC_FILE_H
#define CONVOY_ATOMIC_FILE_H

#include "convoy.h"

#include <stddef.h>

typedef struct atomic_file atomic_file;

/* Creates the temporary for path. Without overwrite, an existing path is
 * refused (CONVOY_ERR_IO, "PATH: already exists"); with it, path may exist
 * but must be a regular file. On success *fd is the temporary's open
 * descriptor, owned by the object. */
convoy_status atomic_file_create(atomic_file **af, const char *path, int overwrite, int *fd,
                                 char *err, size_t err_size);

/* As atomic_file_create, always with the named scheme (below), so that
 * other processes, on this host or on others sharing the file system, can
 * open the temporary by its name (atomic_file_reopen_path) and write their
 * parts of it. Only this object commits or discards it. */
convoy_status atomic_file_create_shared(atomic_file **af, const char *path, int overwrite, int *fd,
                                        char *err, size_t err_size);

/* A path that opens the temporary (open(2) with O_WRONLY): the named
 * temporary's name, or for an unnamed one "/proc/self/fd/N", valid in this
 * process only. buf (64 bytes or more) holds the latter. NULL once
 * committed or discarded. */
const char *atomic_file_reopen_path(const atomic_file *af, char *buf, size_t size);

/* Counts `bytes` more written to the temporary; every 4 MiB of them it
 * starts writing what the temporary holds to disk, without waiting (Linux
 * sync_file_range; nothing elsewhere), so that the fsync at commit has
 * little left to wait for. Best effort. NULL-safe. */
void atomic_file_wrote(atomic_file *af, int64_t bytes);

/* fsyncs the temporary, puts it in place of the target (above), closes
 * it, fsyncs the directory, and frees af. Without overwrite the rename does not replace a
 * target that appeared meanwhile. On failure the temporary is removed and the
 * target untouched. af is freed in every case. */
convoy_status atomic_file_commit(atomic_file *af, char *err, size_t err_size);

/* atomic_file_commit of af and then of `after` (NULL: af alone) as one
 * step, for files that belong together (a dataset and its metadata): both
 * are fsynced before either is put in place, and `after` goes in place right
 * after af, so that a process killed between the two dies within two system
 * calls of each other rather than an fsync apart. When `after` cannot be put
 * in place, af's target is removed again. Both are freed in every case. */
convoy_status atomic_file_commit_with(atomic_file *af, atomic_file *after, char *err,
                                      size_t err_size);

/* Closes and removes the temporary and frees af. NULL-safe. */
void atomic_file_discard(atomic_file *af);

#endif /* CONVOY_ATOMIC_FILE_H */
