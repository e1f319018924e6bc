/* scale_threads.c - a process's pipelines on threads (scale_threads.h). */
#include "scale_threads.h"

#include <pthread.h>
#include <stdlib.h>

void scale_threads_run(void *(*run)(void *), void *items, int n, size_t item_size) {
  if (n <= 0) return;
  pthread_t *threads = calloc((size_t)n, sizeof *threads);
  unsigned char *at = items;
  int started = 0;
  while (threads && started < n - 1 &&
         pthread_create(&threads[started], NULL, run, at + (size_t)started * item_size) == 0)
    started++;
  for (int i = started; i < n; i++) run(at + (size_t)i * item_size);
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  free(threads);
}
