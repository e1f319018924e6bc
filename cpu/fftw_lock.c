/* fftw_lock.c - the process-wide lock around FFTW's planner. */
#include "fftw_lock.h"

#include <pthread.h>

static pthread_mutex_t planner_mutex = PTHREAD_MUTEX_INITIALIZER;

void convoy_fftw_lock(void) {
  pthread_mutex_lock(&planner_mutex);
}

void convoy_fftw_unlock(void) {
  pthread_mutex_unlock(&planner_mutex);
}
