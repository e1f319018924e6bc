/* worker_pool.c - fork/join over task indices without waiting for absent
 * threads (see worker_pool.h). */
#define _POSIX_C_SOURCE 200809L

#include "worker_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* How long an idle worker spins before it sleeps: long enough to bridge the
 * gap between two engine runs of one process() call, short enough that an
 * idle stream costs nothing measurable. */
#define SPIN_NS 50000.0
/* Spins of the caller waiting for the last tasks before it yields its core
 * (to a worker preempted on it, say). */
#define WAIT_SPINS 2000

struct worker_pool {
  int threads;
  int n_workers;
  pthread_t *workers;

  pthread_mutex_t lock;
  pthread_cond_t wake;
  /* Under lock. */
  int sleepers;
  int stop;
  uint32_t job_gen; /* 0 = no job yet */
  int64_t job_tasks;
  pool_task_fn job_fn;
  void *job_ctx;

  /* Lock-free part. claim = job generation << 32 | next task index: a task is
   * taken by a compare-and-swap that also checks the generation, so a late
   * worker can never take an index of a later job. */
  _Atomic uint32_t generation;
  _Atomic uint64_t claim;
  _Atomic int64_t done;
  atomic_int stopping;
  atomic_int next_slot; /* worker slots handed out: 1 .. threads - 1 */
};

/* 0 on every thread but a pool's workers, which hold 1 .. threads - 1. */
static _Thread_local int worker_slot = 0;

int pool_worker_slot(void) {
  return worker_slot;
}

static void cpu_relax(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#endif
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Takes and runs tasks of job gen until none is left. A successful claim
 * means the job is not finished, so its fn and ctx are still valid. */
static void run_tasks(worker_pool *p, uint32_t gen, int64_t tasks, pool_task_fn fn, void *ctx) {
  uint64_t c = atomic_load_explicit(&p->claim, memory_order_acquire);
  for (;;) {
    if ((uint32_t)(c >> 32) != gen) return;
    int64_t index = (int64_t)(c & 0xffffffffu);
    if (index >= tasks) return;
    if (!atomic_compare_exchange_weak_explicit(&p->claim, &c, c + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    fn(ctx, index);
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    c = atomic_load_explicit(&p->claim, memory_order_acquire);
  }
}

/* Spins until the published generation differs from seen, up to SPIN_NS;
 * returns the generation last read. */
static uint32_t spin_for_job(worker_pool *p, uint32_t seen) {
  double start = now_ns();
  uint32_t gen = atomic_load_explicit(&p->generation, memory_order_acquire);
  for (unsigned i = 1; gen == seen && !atomic_load_explicit(&p->stopping, memory_order_relaxed);
       i++) {
    cpu_relax();
    if (i % 64 == 0 && now_ns() - start > SPIN_NS) break;
    gen = atomic_load_explicit(&p->generation, memory_order_acquire);
  }
  return gen;
}

static void *worker_main(void *arg) {
  worker_pool *p = arg;
  worker_slot = atomic_fetch_add_explicit(&p->next_slot, 1, memory_order_relaxed);
  uint32_t seen = 0;
  for (;;) {
    if (spin_for_job(p, seen) == seen) {
      pthread_mutex_lock(&p->lock);
      while (p->job_gen == seen && !p->stop) {
        p->sleepers++;
        pthread_cond_wait(&p->wake, &p->lock);
        p->sleepers--;
      }
      pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_lock(&p->lock);
    int stop = p->stop;
    uint32_t gen = p->job_gen;
    int64_t tasks = p->job_tasks;
    pool_task_fn fn = p->job_fn;
    void *ctx = p->job_ctx;
    pthread_mutex_unlock(&p->lock);
    if (stop) return NULL;
    seen = gen;
    run_tasks(p, gen, tasks, fn, ctx);
  }
}

void pool_destroy(worker_pool *pool) {
  worker_pool *p = pool;
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  atomic_store_explicit(&p->stopping, 1, memory_order_relaxed);
  pthread_mutex_unlock(&p->lock);
  pthread_cond_broadcast(&p->wake);
  for (int i = 0; i < p->n_workers; i++) pthread_join(p->workers[i], NULL);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p->workers);
  free(p);
}

worker_pool *pool_create(int threads) {
  if (threads < 1) threads = 1;
  worker_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->threads = threads;
  p->workers = calloc((size_t)threads, sizeof *p->workers);
  if (!p->workers || pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p->workers);
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->wake, NULL) != 0) {
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
    return NULL;
  }
  atomic_init(&p->generation, 0);
  atomic_init(&p->claim, 0);
  atomic_init(&p->done, 0);
  atomic_init(&p->stopping, 0);
  atomic_init(&p->next_slot, 1);
  /* Workers block every signal, so that the program's handlers run on its
   * own threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int ok = 1;
  for (int i = 0; i < threads - 1 && ok; i++) {
    ok = pthread_create(&p->workers[i], NULL, worker_main, p) == 0;
    if (ok) p->n_workers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!ok) {
    pool_destroy(p);
    return NULL;
  }
  return p;
}

int pool_threads(const worker_pool *pool) {
  return pool ? pool->threads : 1;
}

int64_t pool_split_tasks(const worker_pool *pool, int64_t n, int64_t per_thread, int64_t min_items,
                         int64_t max_tasks) {
  int64_t tasks = (int64_t)pool_threads(pool) * per_thread;
  if (tasks > n / min_items) tasks = n / min_items;
  if (tasks > max_tasks) tasks = max_tasks;
  return pool ? tasks : 1;
}

int64_t pool_task_start(int64_t n, int64_t tasks, int64_t t, int64_t align) {
  if (t >= tasks) return n;
  return (int64_t)((double)n * (double)t / (double)tasks) / align * align;
}

void pool_run(worker_pool *pool, int64_t tasks, pool_task_fn fn, void *ctx) {
  worker_pool *p = pool;
  if (tasks <= 0) return;
  if (!p || p->n_workers == 0 || tasks == 1) {
    for (int64_t t = 0; t < tasks; t++) fn(ctx, t);
    return;
  }
  pthread_mutex_lock(&p->lock);
  uint32_t gen = p->job_gen + 1;
  if (gen == 0) gen = 1;
  p->job_gen = gen;
  p->job_tasks = tasks;
  p->job_fn = fn;
  p->job_ctx = ctx;
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  atomic_store_explicit(&p->claim, (uint64_t)gen << 32, memory_order_release);
  atomic_store_explicit(&p->generation, gen, memory_order_release);
  int sleepers = p->sleepers;
  pthread_mutex_unlock(&p->lock);
  if (sleepers > 0) pthread_cond_broadcast(&p->wake);

  run_tasks(p, gen, tasks, fn, ctx);
  for (int spins = 0; atomic_load_explicit(&p->done, memory_order_acquire) < tasks; spins++) {
    if (spins < WAIT_SPINS)
      cpu_relax();
    else
      sched_yield();
  }
}

typedef struct range_job {
  pool_range_fn fn;
  void *ctx;
  int64_t n, tasks, align;
} range_job;

static void range_task(void *ctx, int64_t t) {
  const range_job *j = ctx;
  j->fn(j->ctx, pool_task_start(j->n, j->tasks, t, j->align),
        pool_task_start(j->n, j->tasks, t + 1, j->align));
}

void pool_run_ranges(worker_pool *pool, int64_t n, int64_t per_thread, int64_t min_items,
                     int64_t max_tasks, int64_t align, pool_range_fn fn, void *ctx) {
  const int64_t tasks = pool_split_tasks(pool, n, per_thread, min_items, max_tasks);
  if (tasks < 2) {
    if (n > 0) fn(ctx, 0, n);
    return;
  }
  range_job j = {fn, ctx, n, tasks, align};
  pool_run(pool, tasks, range_task, &j);
}
