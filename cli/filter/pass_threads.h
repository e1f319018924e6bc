/*
 * pass_threads.h - the threads of one filtering pass (cli/filter/pass_loop.c, which
 * both `convoy filter` passes run): a reader and a writer thread around the filter
 * loop on the calling thread, joined by four queues of chunk buffers (free
 * and full, input and output), with the first failure of any of them kept
 * for the caller. A pass whose output is encoded before it is written (audio
 * quantized to integers) runs an encoder thread between the filter and the
 * writer, with a fifth queue (encoded) from the encoder to the writer.
 *
 * A failure closes every queue, so each thread stops at its next pop. The
 * buffers themselves belong to the caller; the queues only pass pointers.
 */
#ifndef CONVOY_CLI_PASS_THREADS_H
#define CONVOY_CLI_PASS_THREADS_H

#include "convoy.h"
#include "work_queue.h"

#include <pthread.h>
#include <stddef.h>

typedef struct pass_threads {
  work_queue free_in, full_in, free_out, full_out, encoded;
  int queues_made, mutex_made;
  pthread_mutex_t error_mutex;
  convoy_status status; /* first failure */
  char err[512];
} pass_threads;

/* Makes the queues and puts the n input buffers (an array of elements of
 * in_size bytes at in_bufs) and the n output buffers (likewise) on the free
 * queues. Returns 0, or -1 with a message in err (then destroy). */
int pass_threads_init(pass_threads *t, void *in_bufs, size_t in_size, void *out_bufs,
                      size_t out_size, int n, char *err, size_t err_size);

/* Keeps the first failure (st, msg) and closes every queue. Any thread. */
void pass_threads_fail(pass_threads *t, convoy_status st, const char *msg);

/* Starts reader(ctx), writer(ctx) and, when not NULL, encoder(ctx), runs
 * filter(ctx) on the calling thread, and joins them. The reader may still wait on the free input
 * queue when the filter has stopped; that queue is closed before the join.
 * Returns the first failure with its message in err, else CONVOY_OK. */
convoy_status pass_threads_run(pass_threads *t, void *(*reader)(void *), void *(*writer)(void *),
                               void *(*encoder)(void *), void (*filter)(void *), void *ctx,
                               char *err, size_t err_size);

/* Frees the queues and the mutex; the buffers stay the caller's. */
void pass_threads_destroy(pass_threads *t);

#endif /* CONVOY_CLI_PASS_THREADS_H */
