/* pass_threads.c - reader, filter and writer threads of one pass. */
#include "pass_threads.h"

#include <stdio.h>

int pass_threads_init(pass_threads *t, void *in_bufs, size_t in_size, void *out_bufs,
                      size_t out_size, int n, char *err, size_t err_size) {
  t->status = CONVOY_OK;
  t->err[0] = '\0';
  if (pthread_mutex_init(&t->error_mutex, NULL) != 0) {
    snprintf(err, err_size, "cannot create a mutex");
    return -1;
  }
  t->mutex_made = 1;
  if (work_queue_init(&t->free_in) || work_queue_init(&t->full_in) ||
      work_queue_init(&t->free_out) || work_queue_init(&t->full_out) ||
      work_queue_init(&t->encoded)) {
    snprintf(err, err_size, "cannot create thread queues");
    return -1;
  }
  t->queues_made = 1;
  for (int i = 0; i < n; i++) {
    work_queue_push(&t->free_in, (unsigned char *)in_bufs + (size_t)i * in_size);
    work_queue_push(&t->free_out, (unsigned char *)out_bufs + (size_t)i * out_size);
  }
  return 0;
}

void pass_threads_fail(pass_threads *t, convoy_status st, const char *msg) {
  pthread_mutex_lock(&t->error_mutex);
  if (t->status == CONVOY_OK) {
    t->status = st;
    snprintf(t->err, sizeof t->err, "%s", msg);
  }
  pthread_mutex_unlock(&t->error_mutex);
  work_queue_close(&t->free_in);
  work_queue_close(&t->full_in);
  work_queue_close(&t->free_out);
  work_queue_close(&t->full_out);
  work_queue_close(&t->encoded);
}

convoy_status pass_threads_run(pass_threads *t, void *(*reader)(void *), void *(*writer)(void *),
                               void *(*encoder)(void *), void (*filter)(void *), void *ctx,
                               char *err, size_t err_size) {
  pthread_t reader_thread, writer_thread, encoder_thread;
  const int have_reader = pthread_create(&reader_thread, NULL, reader, ctx) == 0;
  const int have_writer = have_reader && pthread_create(&writer_thread, NULL, writer, ctx) == 0;
  const int have_encoder =
      have_writer && encoder && pthread_create(&encoder_thread, NULL, encoder, ctx) == 0;
  if (!have_reader || !have_writer || (encoder && !have_encoder))
    pass_threads_fail(t, CONVOY_ERR_INTERNAL, "cannot start the reader and writer threads");
  else
    filter(ctx);
  if (have_encoder) pthread_join(encoder_thread, NULL);
  if (have_writer) pthread_join(writer_thread, NULL);
  if (have_reader) {
    work_queue_close(&t->free_in);
    pthread_join(reader_thread, NULL);
  }
  if (t->status != CONVOY_OK) snprintf(err, err_size, "%s", t->err);
  return t->status;
}

void pass_threads_destroy(pass_threads *t) {
  if (t->queues_made) {
    work_queue_destroy(&t->free_in);
    work_queue_destroy(&t->full_in);
    work_queue_destroy(&t->free_out);
    work_queue_destroy(&t->full_out);
    work_queue_destroy(&t->encoded);
    t->queues_made = 0;
  }
  if (t->mutex_made) {
    pthread_mutex_destroy(&t->error_mutex);
    t->mutex_made = 0;
  }
}
