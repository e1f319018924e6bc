/* test_rt_priority.c - where the REALTIME convolver's worker threads are
 * scheduled (convoy_rt.h, threads): right below a SCHED_FIFO caller, never
 * level with or above it, and ordinary under an ordinary caller, whom
 * realtime workers would preempt. The realtime half needs the permission
 * to use SCHED_FIFO and is skipped without it. The caller is the thread
 * of the first block since create or reset: a warm-up on another thread
 * does not count once the convolver is reset. */
#define _DEFAULT_SOURCE /* syscall(SYS_gettid) */
#define _POSIX_C_SOURCE 200809L

#include "convoy_rt.h"
#include "test_support.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BLOCK 32
#define TAPS 100000 /* several partition sizes: several workers */
#define CALLER_PRIO 30

static ts_rng rng;

/* The policy and realtime priority of thread tid of this process, from
 * /proc (fields 41 and 40 of its stat line); 0 on success. */
static int thread_sched(const char *tid, int *policy, int *prio) {
  char path[320], line[1024];
  snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *ok = fgets(line, sizeof line, f);
  fclose(f);
  const char *p = ok ? strrchr(line, ')') : NULL; /* the name may hold blanks */
  if (!p) return -1;
  int field = 2;
  long v[42] = {0};
  for (p++; *p && field < 41;) {
    while (*p == ' ') p++;
    field++;
    v[field] = strtol(p, NULL, 10);
    while (*p && *p != ' ') p++;
  }
  if (field < 41) return -1;
  *prio = (int)v[40];
  *policy = (int)v[41];
  return 0;
}

/* Over this process's threads but the calling one: how many are realtime,
 * and the highest realtime priority among them. */
static void others(int *n_rt, int *top) {
  char self[32];
  snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
  *n_rt = 0;
  *top = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0) continue;
    int policy, prio;
    if (thread_sched(e->d_name, &policy, &prio) != 0) continue;
    if (policy != SCHED_FIFO && policy != SCHED_RR) continue;
    (*n_rt)++;
    if (prio > *top) *top = prio;
  }
  closedir(d);
}

/* Blocks enough for every worker to have had a job, then a pause for them
 * to place themselves (at their next wake-up). */
static void run_blocks(convoy_rt *rt) {
  float in[BLOCK], out[BLOCK];
  const float *ip = in;
  float *op = out;
  ts_fill_uniform(&rng, in, BLOCK);
  for (int64_t k = 0; k < 2 * TAPS / BLOCK; k++) convoy_rt_process(rt, &ip, &op, BLOCK);
  struct timespec pause = {0, 50 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

static int set_fifo(int prio, int *old_policy, struct sched_param *old_sp) {
  struct sched_param sp = {.sched_priority = prio};
  pthread_getschedparam(pthread_self(), old_policy, old_sp);
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_rt_priority"));
  float *h = malloc(TAPS * sizeof *h);
  ts_fill_uniform(&rng, h, TAPS);
  convoy_rt_route route = {0, 0, h, TAPS, 1.0f};
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  cfg.block_frames = BLOCK;
  cfg.engine = CONVOY_ENGINE_CPU;
  cfg.mode = CONVOY_RT_REALTIME;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &route, 1));
  if (!rt) return ts_finish();
  char plan[512];
  convoy_rt_describe(rt, plan, sizeof plan);
  printf("plan: %s\n", plan);
  int n_rt, top;

  /* An ordinary caller, as a warm-up on the thread that made the
   * convolver is. */
  run_blocks(rt);
  others(&n_rt, &top);
  printf("ordinary caller: %d realtime threads besides it\n", n_rt);
  TS_CHECK(n_rt == 0, "ordinary caller: %d worker threads are realtime above it", n_rt);

  /* Reset, then the audio: a realtime caller from then on. */
  TS_CHECK_OK(convoy_rt_reset(rt));
  int old_policy;
  struct sched_param old_sp;
  if (set_fifo(CALLER_PRIO, &old_policy, &old_sp) != 0) {
    printf("no permission for SCHED_FIFO: the realtime caller is skipped\n");
  } else {
    run_blocks(rt);
    pthread_setschedparam(pthread_self(), old_policy, &old_sp);
    others(&n_rt, &top);
    printf("SCHED_FIFO %d caller after a reset: %d realtime threads besides it, highest %d\n",
           CALLER_PRIO, n_rt, top);
    TS_CHECK(n_rt > 0, "SCHED_FIFO caller: no worker is realtime");
    TS_CHECK(top == CALLER_PRIO - 1, "SCHED_FIFO %d caller: the highest worker is at %d, want %d",
             CALLER_PRIO, top, CALLER_PRIO - 1);
    /* And back to an ordinary caller after the next reset. */
    TS_CHECK_OK(convoy_rt_reset(rt));
    run_blocks(rt);
    others(&n_rt, &top);
    TS_CHECK(n_rt == 0, "ordinary caller after a reset: %d workers are still realtime", n_rt);
  }
  convoy_rt_destroy(rt);
  free(h);
  return ts_finish();
}
