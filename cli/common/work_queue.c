/* work_queue.c - blocking pointer FIFO for the filter pipeline threads. */
#define _POSIX_C_SOURCE 200809L
#include "work_queue.h"

#include <string.h>

int work_queue_init(work_queue *q) {
  memset(q, 0, sizeof *q);
  if (pthread_mutex_init(&q->mutex, NULL) != 0) return -1;
  if (pthread_cond_init(&q->nonempty, NULL) != 0) {
    pthread_mutex_destroy(&q->mutex);
    return -1;
  }
  return 0;
}

void work_queue_destroy(work_queue *q) {
  pthread_cond_destroy(&q->nonempty);
  pthread_mutex_destroy(&q->mutex);
}

void work_queue_push(work_queue *q, void *item) {
  pthread_mutex_lock(&q->mutex);
  if (!q->closed && q->count < WORK_QUEUE_MAX) {
    q->items[(q->head + q->count) % WORK_QUEUE_MAX] = item;
    q->count++;
    pthread_cond_signal(&q->nonempty);
  }
  pthread_mutex_unlock(&q->mutex);
}

void *work_queue_pop(work_queue *q) {
  void *item = NULL;
  pthread_mutex_lock(&q->mutex);
  while (!q->closed && q->count == 0) pthread_cond_wait(&q->nonempty, &q->mutex);
  if (!q->closed) {
    item = q->items[q->head];
    q->head = (q->head + 1) % WORK_QUEUE_MAX;
    q->count--;
  }
  pthread_mutex_unlock(&q->mutex);
  return item;
}

void work_queue_close(work_queue *q) {
  pthread_mutex_lock(&q->mutex);
  q->closed = 1;
  pthread_cond_broadcast(&q->nonempty);
  pthread_mutex_unlock(&q->mutex);
}
