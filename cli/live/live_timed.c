/* live_timed.c - a call with a time limit, on a thread of its own. */
#define _POSIX_C_SOURCE 200809L
#include "live_timed.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

/* Static: it outlives a call whose time ran out. */
static struct {
  void (*fn)(void *);
  void *arg;
  sem_t done;
} job;

static void *run_job(void *unused) {
  (void)unused;
  job.fn(job.arg);
  sem_post(&job.done);
  return NULL;
}

int live_timed_run(void (*fn)(void *), void *arg, double timeout_s) {
  job.fn = fn;
  job.arg = arg;
  pthread_t t;
  if (sem_init(&job.done, 0, 0) != 0 || pthread_create(&t, NULL, run_job, NULL) != 0) {
    fn(arg);
    return 1;
  }
  pthread_detach(t);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  const double whole = floor(timeout_s);
  until.tv_sec += (time_t)whole;
  until.tv_nsec += (long)((timeout_s - whole) * 1e9);
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int r;
  while ((r = sem_timedwait(&job.done, &until)) != 0 && errno == EINTR) {
  }
  return r == 0;
}
