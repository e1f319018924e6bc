/*
 * atomic_file.h - write a file under a temporary name in its directory and
 * rename it into place only when complete, so that a reader never sees a
 * half-written file and a failed run leaves the old file untouched.
 * Internal to convoy_io.
 *
 * The temporary is ".NAME.convoy-XXXXXX" beside the target, created with
 * O_EXCL and mode 0666 minus the umask (like any new file; mkstemp would
 * give 0600), or the target's mode when the target exists. It is listed in
 * temp_cleanup so that a signal removes it. A target that is a symlink is
 * resolved: the file it points to is replaced and the link kept.
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

/* Starts writing what the temporary holds so far to disk, without waiting
 * (Linux sync_file_range; a no-op elsewhere), so that the fsync at commit
 * has little left to wait for. Best effort. */
void atomic_file_start_writeback(atomic_file *af);

/* fsyncs and closes the temporary, renames it over the target, fsyncs the
 * directory, and frees af. Without overwrite the rename does not replace a
 * target that appeared meanwhile. On failure the temporary is removed and the
 * target untouched. af is freed in every case. */
convoy_status atomic_file_commit(atomic_file *af, char *err, size_t err_size);

/* Closes and removes the temporary and frees af. NULL-safe. */
void atomic_file_discard(atomic_file *af);

#endif /* CONVOY_ATOMIC_FILE_H */
