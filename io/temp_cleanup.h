/*
 * temp_cleanup.h - a process-wide list of temporary files to remove when the
 * process is stopped by a signal or exits without finishing them.
 * Internal to convoy_io; audio_install_signal_cleanup (audio_file.h) is the
 * public switch.
 *
 * The list is a fixed table of TEMP_CLEANUP_SLOTS paths so that the signal
 * handler needs no allocation or lock: it reads slots marked active with an
 * atomic flag and calls unlink(), both async-signal-safe. Register and
 * unregister are thread-safe (a slot is claimed by compare-and-swap). A slot
 * records the registering process id: a forked child that exits does not
 * remove its parent's temporaries.
 */
#ifndef CONVOY_TEMP_CLEANUP_H
#define CONVOY_TEMP_CLEANUP_H

#define TEMP_CLEANUP_SLOTS 32
#define TEMP_CLEANUP_PATH_MAX 4096

/* Adds path (copied) to the list. Returns the slot (>= 0), or -1 when the
 * table is full or path is TEMP_CLEANUP_PATH_MAX bytes or longer. */
int temp_cleanup_register(const char *path);

/* Drops a slot from the list (the file is not touched). slot < 0: no-op. */
void temp_cleanup_unregister(int slot);

/* Unlinks every listed path registered by this process. Async-signal-safe. */
void temp_cleanup_remove_all(void);

/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE that call
 * temp_cleanup_remove_all and then die of the same signal (default action),
 * and an atexit hook that does the same cleanup. A signal that is ignored
 * when this is called stays ignored (the shell's convention for background
 * jobs). Idempotent; call from the main thread at program start. */
void temp_cleanup_install(void);

#endif /* CONVOY_TEMP_CLEANUP_H */
