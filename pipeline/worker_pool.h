/*
 * worker_pool.h - a small fork/join pool for the engines' parallel loops
 * (internal).
 *
 * pool_run() hands out task indices 0 .. tasks-1 to whichever threads ask
 * first: the calling thread always takes part, and the workers join in as
 * soon as they are awake. It returns when every task has finished, but it
 * never waits for a worker that has not started: a worker the OS has
 * descheduled (the machine is busy) costs at most the task it holds, not
 * the whole run. This is what an OpenMP parallel loop cannot promise, since
 * its closing barrier waits for every thread of the team.
 *
 * Workers are created in pool_create() and wait between runs: they spin for
 * a few tens of microseconds (back-to-back runs of one process() call pick
 * up at once), then sleep on a condition variable (an idle stream burns no
 * CPU). pool_run() allocates nothing. One pool serves one caller at a time
 * (a stream is used by one thread at a time); pools are independent.
 */
#ifndef CONVOY_WORKER_POOL_H
#define CONVOY_WORKER_POOL_H

#include <stdint.h>

typedef struct worker_pool worker_pool;

/* Runs task `task` of a job; tasks of one job may run concurrently. */
typedef void (*pool_task_fn)(void *ctx, int64_t task);

/* A pool of threads - 1 workers (threads >= 1; 1 makes a pool that runs
 * everything on the caller). Returns NULL when threads cannot be created. */
worker_pool *pool_create(int threads);

/* Threads that run jobs, the caller included. */
int pool_threads(const worker_pool *pool);

/* Tasks for n items split into contiguous ranges on pool: per_thread for
 * each of its threads, at most n / min_items and max_tasks. Below 2, the
 * caller does better to run the whole on its own thread. NULL pool: 1. */
int64_t pool_split_tasks(const worker_pool *pool, int64_t n, int64_t per_thread, int64_t min_items,
                         int64_t max_tasks);

/* The first item of range t of n items split into `tasks` ranges, on a
 * multiple of align (t >= tasks: n). */
int64_t pool_task_start(int64_t n, int64_t tasks, int64_t t, int64_t align);

/* Runs fn(ctx, t) for t = 0 .. tasks - 1 and returns when all are done.
 * tasks <= 2^31. */
void pool_run(worker_pool *pool, int64_t tasks, pool_task_fn fn, void *ctx);

/* fn(ctx, lo, hi) over items [0, n) cut into the contiguous ranges that
 * pool_split_tasks and pool_task_start (each start a multiple of align)
 * make of them, on pool; below two ranges, fn(ctx, 0, n) on the calling
 * thread. For loops whose ranges keep nothing of their own. */
typedef void (*pool_range_fn)(void *ctx, int64_t lo, int64_t hi);
void pool_run_ranges(worker_pool *pool, int64_t n, int64_t per_thread, int64_t min_items,
                     int64_t max_tasks, int64_t align, pool_range_fn fn, void *ctx);

/* The slot of the thread running a task: 0 for the thread that called
 * pool_run(), 1 .. threads - 1 for the workers, so a task can index
 * per-thread scratch memory made at create. */
int pool_worker_slot(void);

/* Stops and joins the workers. NULL-safe. */
void pool_destroy(worker_pool *pool);

#endif /* CONVOY_WORKER_POOL_H */
