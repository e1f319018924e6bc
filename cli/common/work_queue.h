/*
 * work_queue.h - a blocking FIFO of pointers between the threads of the
 * filter pipeline (reader -> filter -> writer). Items come from fixed pools
 * no larger than the capacity, so a push never has to wait.
 */
#ifndef CONVOY_CLI_WORK_QUEUE_H
#define CONVOY_CLI_WORK_QUEUE_H

#include <pthread.h>

#define WORK_QUEUE_MAX 16

typedef struct work_queue {
  pthread_mutex_t mutex;
  pthread_cond_t nonempty;
  void *items[WORK_QUEUE_MAX];
  int head, count;
  int closed;
} work_queue;

/* 0 on success, -1 when the mutex or condition cannot be made. */
int work_queue_init(work_queue *q);
void work_queue_destroy(work_queue *q);

/* Appends item; the caller guarantees fewer than WORK_QUEUE_MAX are queued.
 * Ignored once the queue is closed. */
void work_queue_push(work_queue *q, void *item);

/* Waits for the oldest item; NULL once the queue is closed. */
void *work_queue_pop(work_queue *q);

/* Wakes every waiter; later pops return NULL. Used to cancel the pipeline. */
void work_queue_close(work_queue *q);

#endif /* CONVOY_CLI_WORK_QUEUE_H */
