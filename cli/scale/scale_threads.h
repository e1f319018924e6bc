/*
 * scale_threads.h - a process's pipelines run at once: one thread per item
 * but the last, which runs on the calling thread (as do any whose thread
 * could not be started). Returns when all have finished.
 */
#ifndef CONVOY_CLI_SCALE_THREADS_H
#define CONVOY_CLI_SCALE_THREADS_H

#include <stddef.h>

/* Calls run(item) for the n items of item_size bytes each at items. */
void scale_threads_run(void *(*run)(void *), void *items, int n, size_t item_size);

#endif /* CONVOY_CLI_SCALE_THREADS_H */
