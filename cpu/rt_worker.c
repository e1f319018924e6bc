/* rt_worker.c - worker threads of the CPU real-time convolver: each computes
 * the jobs of its levels (transform the new input chunk into the level's
 * frequency-domain delay line, multiply-add every route's partitions into
 * one spectrum per output, one inverse transform per output). A thread
 * serving several levels always takes the smallest level's pending job
 * first: its deadline is the nearest. */
#define _POSIX_C_SOURCE 200809L

#include "error_internal.h"
#include "rt_cpu.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

static void sem_wait_retry(sem_t *s) {
  while (sem_wait(s) != 0 && errno == EINTR) {
  }
}

static int64_t mod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

static float *fdl_entry(const rt_level *lv, int32_t in, int64_t chunk) {
  return lv->fdl + ((int64_t)in * lv->count + mod(chunk, lv->count)) * 2 * lv->stride;
}

/* 1 when a job for chunk c starts after the process() thread has passed
 * the last block its result serves (REALTIME, overloaded machine): its
 * input may be overwritten already and its result would be unused. Before
 * that, the input ring (offset + 2P + 2B frames) still holds its frames
 * [(c-1)P, (c+1)P). */
static int too_late(const rt_cpu *rt, const rt_level *lv, int64_t c) {
  int64_t now = atomic_load_explicit(&rt->k_shared, memory_order_relaxed) * rt->l.block;
  return now >= c * lv->p + lv->offset + lv->p;
}

/* Silence in the delay line for chunk c of every input. */
static void clear_chunk(const rt_cpu *rt, rt_level *lv, int64_t c) {
  for (int32_t i = 0; i < rt->l.n_in; i++)
    memset(fdl_entry(lv, i, c), 0, (size_t)(2 * lv->stride) * sizeof(float));
}

static void run_job(rt_cpu *rt, rt_level *lv, int64_t seq) {
  const rt_job job = lv->job[seq & 1];
  const int64_t p = lv->p, stride = lv->stride;
  const int v_level = lv->index + 1;

  /* Chunks skipped in REALTIME mode (worker late) leave silence in the
   * delay line rather than stale spectra. */
  int64_t gap = job.c - lv->last_c - 1;
  if (gap > lv->count) gap = lv->count;
  for (int64_t g = 1; g <= gap; g++) clear_chunk(rt, lv, job.c - g);
  lv->last_c = job.c;
  if (too_late(rt, lv, job.c)) {
    clear_chunk(rt, lv, job.c);
    return;
  }
  for (int32_t i = 0; i < rt->l.n_in; i++) {
    rt_ring_read(rt, i, (job.c - 1) * p, 2 * p, lv->time);
    float *x = fdl_entry(lv, i, job.c);
    fftwf_execute_split_dft_r2c(lv->forward, lv->time, x, x + stride);
  }
  atomic_thread_fence(memory_order_acquire);
  if (too_late(rt, lv, job.c)) { /* the input may have changed while read */
    clear_chunk(rt, lv, job.c);
    return;
  }

  for (int v = 0; v < 2; v++) {
    const rt_cpu_set *set = job.set[v];
    if (!set) continue;
    float *dst = v == 0 ? lv->out[job.c & 1] : lv->xf_out;
    for (int32_t o = 0; o < rt->l.n_out; o++) {
      int32_t r0 = set->first[o], r1 = set->first[o + 1];
      if (r0 == r1) continue;
      memset(lv->acc, 0, (size_t)(2 * stride) * sizeof(float));
      int32_t used = 0;
      for (int32_t r = r0; r < r1; r++) {
        const rt_cpu_route *route = &set->routes[r];
        const float *h = route->spec[v_level];
        used += route->used[v_level];
        for (int32_t s = 0; s < route->used[v_level]; s++)
          rt->cmac(lv->acc, h + (int64_t)s * 2 * stride, fdl_entry(lv, route->in, job.c - s), p + 1,
                   stride);
      }
      if (used == 0) { /* this output's responses end before the level */
        memset(dst + (int64_t)o * p, 0, (size_t)p * sizeof(float));
        continue;
      }
      fftwf_execute_split_dft_c2r(lv->inverse, lv->acc, lv->acc + stride, lv->time);
      memcpy(dst + (int64_t)o * p, lv->time + p, (size_t)p * sizeof(float));
    }
  }
}

int rt_level_claim(rt_level *lv, int64_t seq) {
  int64_t expected = seq - 1;
  return atomic_compare_exchange_strong(&lv->claimed, &expected, seq);
}

void rt_level_run(rt_cpu *rt, rt_level *lv, int64_t seq) {
  run_job(rt, lv, seq);
  atomic_store(&lv->done, seq);
  if (atomic_exchange(&lv->waiting, 0)) sem_post(&lv->done_sem);
}

/* The kernel's word, not pthread_getschedparam's: that takes a lock and
 * answers from a cache that misses a change made by other means (libjack
 * makes its process thread realtime after starting it). */
void rt_workers_note_caller(rt_cpu *rt) {
  const int policy = sched_getscheduler(0);
  struct sched_param sp;
  int prio = 0;
  if ((policy == SCHED_FIFO || policy == SCHED_RR) && sched_getparam(0, &sp) == 0)
    prio = sp.sched_priority;
  atomic_store_explicit(&rt->caller_prio, prio, memory_order_release);
}

/* REALTIME mode, whenever the caller's scheduling is newly known: a
 * realtime caller gets the workers right below it (SCHED_FIFO, the smallest
 * level's thread highest), above every ordinary thread, so that a busy
 * machine delays them less, and never level with the audio thread, which
 * they would then hold off. Under an ordinary caller (a JACK server without
 * realtime scheduling, say) they are ordinary too: above it they would
 * preempt it. So are they without the permission. */
static void place(rt_cpu *rt, rt_worker *w, int me) {
  if (rt->l.mode != CONVOY_RT_REALTIME) return;
  const int caller = atomic_load_explicit(&rt->caller_prio, memory_order_acquire);
  if (caller < 0 || caller == w->placed_for) return;
  w->placed_for = caller;
  const int lo = sched_get_priority_min(SCHED_FIFO);
  int prio = caller - 1 - me;
  if (prio < lo) prio = lo;
  struct sched_param sp = {.sched_priority = 0};
  int policy = SCHED_OTHER;
  if (caller > 0 && prio < caller) {
    policy = SCHED_FIFO;
    sp.sched_priority = prio;
  }
  (void)pthread_setschedparam(pthread_self(), policy, &sp);
}

static void *worker_main(void *arg) {
  rt_worker *w = arg;
  rt_cpu *rt = w->rt;
  int me = (int)(w - rt->workers);
  for (;;) {
    sem_wait_retry(&w->wake);
    if (atomic_load(&rt->stop)) break;
    place(rt, w, me);
    int progress = 1;
    while (progress) {
      progress = 0;
      for (int j = 0; j < rt->n_levels && !progress; j++) {
        rt_level *lv = &rt->level[j];
        if (lv->worker != me) continue;
        int64_t posted = atomic_load_explicit(&lv->posted, memory_order_acquire);
        int64_t next = atomic_load(&lv->claimed) + 1;
        if (next > posted) continue;
        if (rt_level_claim(lv, next)) rt_level_run(rt, lv, next);
        progress = 1;
      }
    }
  }
  return NULL;
}

convoy_status rt_workers_start(rt_cpu *rt, char *err, size_t err_size) {
  for (int t = 0; t < rt->n_workers; t++) {
    rt_worker *w = &rt->workers[t];
    w->rt = rt;
    w->placed_for = -1;
    if (sem_init(&w->wake, 0, 0) != 0)
      return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND,
                                 "real-time worker: sem_init failed");
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
      sem_destroy(&w->wake);
      return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND,
                                 "real-time worker: cannot start thread %d of %d", t + 1,
                                 rt->n_workers);
    }
    w->started = 1;
  }
  return CONVOY_OK;
}

void rt_workers_stop(rt_cpu *rt) {
  if (!rt->workers) return;
  atomic_store(&rt->stop, 1);
  for (int t = 0; t < rt->n_workers; t++) {
    rt_worker *w = &rt->workers[t];
    if (!w->started) continue;
    sem_post(&w->wake);
    pthread_join(w->thread, NULL);
    sem_destroy(&w->wake);
    w->started = 0;
  }
}

void rt_level_post(rt_cpu *rt, rt_level *lv, const rt_job *job) {
  lv->job[job->seq & 1] = *job;
  atomic_store_explicit(&lv->posted, job->seq, memory_order_release);
  sem_post(&rt->workers[lv->worker].wake);
}

void rt_level_wait(rt_level *lv, int64_t seq) {
  while (atomic_load(&lv->done) < seq) {
    atomic_store(&lv->waiting, 1);
    if (atomic_load(&lv->done) >= seq) {
      /* Finished meanwhile: take back the flag, or the post it caused. */
      if (atomic_exchange(&lv->waiting, 0) == 0) sem_wait_retry(&lv->done_sem);
      return;
    }
    sem_wait_retry(&lv->done_sem);
  }
}

void rt_workers_drain(rt_cpu *rt) {
  for (int j = 0; j < rt->n_levels; j++) {
    rt_level *lv = &rt->level[j];
    int64_t posted = atomic_load(&lv->posted);
    while (atomic_load(&lv->done) < posted) {
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
  }
}
