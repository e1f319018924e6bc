/*
 * rt_cpu.h - state of the CPU real-time partitioned convolver (internal),
 * shared by its files: rt_cpu.c (ops table, create, destroy), rt_cpu_set.c
 * (route sets: filter spectra), rt_cpu_block.c (one block on the process()
 * thread: head, hand-over to the levels, crossfade), rt_worker.c (the
 * worker threads computing the levels), rt_ring.c (input history) and
 * rt_mac.c (the complex multiply-add). The schedule is rt_schedule.h's.
 *
 * Overlap-save with spectra in split layout: a spectrum of a 2P-point real
 * FFT is re[stride] followed by im[stride], stride = P + 1 rounded up to 16
 * floats so that every spectrum keeps the SIMD alignment FFTW planned with.
 * Filter spectra carry the route's gain and FFTW's 1/(2P) scale.
 *
 * Threads: the process() thread owns everything but a level's job data and
 * FDL while its jobs run. A level's job seq is handed over by writing
 * level->job[seq & 1] and then storing level->posted = seq (release); the
 * worker reads it after loading posted (acquire) and publishes its result
 * by storing level->done (release). At most two jobs are outstanding: the
 * process() thread posts job seq only when done >= seq - 2, so a worker
 * that started the due job late still gets the next one. Jobs run in seq
 * order: whoever claims a posted job (rt_level_claim) runs it, the worker
 * normally, the process() thread when the job is due, unclaimed and the
 * one before it is done.
 */
#ifndef CONVOY_RT_CPU_H
#define CONVOY_RT_CPU_H

#include "rt_backend.h"
#include "rt_schedule.h"

#include <fftw3.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>

/* In REALTIME mode the process() thread runs a due job the worker has not
 * started yet only for levels of at most this many blocks per partition:
 * their jobs are small, and a worker waking late is their usual miss. */
#define RT_STEAL_MAX_BLOCKS 4

/* Spectrum stride for a 2p-point FFT: p + 1 bins rounded up to 16 floats. */
#define RT_STRIDE(p) ((((int64_t)(p) + 1) + 15) & ~(int64_t)15)

/* acc += h * x over n bins of spectra in split layout (re at [0, stride),
 * im at [stride, 2 * stride)). */
typedef void (*rt_cmac_fn)(float *restrict acc, const float *restrict h, const float *restrict x,
                           int64_t n, int64_t stride);

/* rt_mac.c: the fastest multiply-add this CPU runs. Thread-safe. */
rt_cmac_fn rt_cmac_select(void);

typedef struct rt_cpu_route {
  int32_t in, out;
  int32_t used[RT_MAX_LEVELS + 1]; /* partitions used: [0] head, [1 + j] level j */
  float *spec[RT_MAX_LEVELS + 1];  /* their spectra, 2 * stride floats each */
} rt_cpu_route;

typedef struct rt_cpu_set {
  int32_t n_routes;
  rt_cpu_route *routes; /* sorted by output */
  int32_t *first;       /* [n_out + 1]: routes of output o are [first[o], first[o + 1]) */
  float *mem;           /* all spectra (fftwf_malloc) */
} rt_cpu_set;

/* One level job: input chunk c (frames [(c-1)P, (c+1)P) transformed),
 * output frames [c*P + offset, c*P + offset + P) for set[0] into the slot
 * out[c & 1] and, during a crossfade, for set[1] into xf_out. */
typedef struct rt_job {
  int64_t c;
  int64_t seq; /* 1, 2, ... in posting order; 0: no job (skipped) */
  const rt_cpu_set *set[2];
} rt_job;

typedef struct rt_level {
  int index;                             /* j in the schedule */
  int32_t p;                             /* partition size */
  int32_t q;                             /* blocks per partition: p / B */
  int32_t count;                         /* partitions (FDL length) */
  int64_t offset;                        /* first tap */
  int64_t d;                             /* offset / B */
  int64_t stride;                        /* RT_STRIDE(p) */
  fftwf_plan forward;                    /* 2p real -> split spectrum */
  fftwf_plan inverse;                    /* split spectrum -> 2p real */
  float *fdl;                            /* n_in * count spectra: chunk c at index c mod count */
  float *time;                           /* 2p scratch (worker) */
  float *acc;                            /* one spectrum scratch (worker) */
  float *out[2];                         /* slots: n_out * p frames each */
  float *xf_out;                         /* n_out * p: set[1]'s output of the crossfade job */
  rt_job job[2];                         /* jobs handed over, by seq & 1 (see the header comment) */
  rt_job slot[2];                        /* process() thread's record of the slots' jobs */
  int64_t last_c;                        /* worker: last chunk transformed */
  _Atomic int64_t posted, claimed, done; /* job seqs: handed over, taken, finished */
  _Atomic int waiting;                   /* process() thread sleeps on done_sem (OFFLINE) */
  sem_t done_sem;
  int worker;         /* thread serving this level */
  int64_t active_seq; /* seq of the last job posted that reads the active set */
} rt_level;

typedef struct rt_worker {
  pthread_t thread;
  sem_t wake;
  int started;
  int placed_for; /* the caller_prio its scheduling follows; -1 none yet (the worker's own) */
  struct rt_cpu *rt;
} rt_worker;

typedef struct rt_cpu {
  rt_layout l;
  rt_schedule sched;
  rt_cmac_fn cmac;
  /* Input history, per input ring_len frames (a power of two). */
  int64_t ring_len;
  _Atomic float *ring; /* see rt_ring.c */
  /* Head: 2B-point plans, FDL of n_head spectra per input, scratch. */
  int64_t hstride;
  fftwf_plan hforward, hinverse;
  float *hfdl, *htime, *hacc;
  float *xf_tmp;  /* n_out * B: the incoming set's block during a crossfade */
  float **xf_ptr; /* [n_out] pointers into xf_tmp */
  int n_levels;
  rt_level level[RT_MAX_LEVELS];
  int n_workers;
  rt_worker *workers;
  atomic_int stop;
  /* REALTIME mode: the SCHED_FIFO or SCHED_RR priority of the thread that
   * calls process(), as it was at its first block since create or reset,
   * for the workers to place themselves below it; 0 when that thread is
   * not realtime, -1 before that block. */
  atomic_int caller_prio;
  /* process() thread state */
  int64_t k;                /* next block */
  _Atomic int64_t k_shared; /* k, for workers to tell whether their input is still there */
  const rt_cpu_set *active;
  const rt_cpu_set *next;         /* set being switched to, or NULL */
  const rt_cpu_set *old;          /* outgoing set still read by a late job, or NULL */
  int64_t xf_block;               /* block of the crossfade while next != NULL */
  int64_t old_seq[RT_MAX_LEVELS]; /* per level, the last job reading old */
} rt_cpu;

/* rt_cpu_set.c */
convoy_status rt_cpu_prepare(void *impl, const convoy_rt_route *routes, int32_t n_routes,
                             void **set, char *err, size_t err_size);
void rt_cpu_free_set(void *impl, void *set);

/* rt_cpu_block.c */
convoy_status rt_cpu_process(void *impl, const float *const *in, float *const *out,
                             rt_block_result *result, char *err, size_t err_size);
int rt_cpu_begin_switch(void *impl, void *set);
int64_t rt_cpu_switch_delay(const void *impl);

/* rt_ring.c: n frames of input in from frame first (frames before 0 read
 * as the zeros the ring starts with), into or out of the input history. */
void rt_ring_write(rt_cpu *rt, int32_t in, int64_t first, int64_t n, const float *src);
void rt_ring_read(const rt_cpu *rt, int32_t in, int64_t first, int64_t n, float *dst);

/* rt_worker.c */
/* Starts the worker threads (rt->n_workers, levels assigned already). */
convoy_status rt_workers_start(rt_cpu *rt, char *err, size_t err_size);
/* Stops and joins them. */
void rt_workers_stop(rt_cpu *rt);
/* REALTIME mode, on the process() thread, at its first block since create
 * or reset: records its scheduling in caller_prio (two system calls that do
 * not block). */
void rt_workers_note_caller(rt_cpu *rt);
/* Hands job to level lv's worker (done >= job->seq - 2 must hold). */
void rt_level_post(rt_cpu *rt, rt_level *lv, const rt_job *job);
/* Takes job seq (posted, not yet taken by anyone, the one before it taken)
 * for the calling thread: 1 when it is now this thread's to run. */
int rt_level_claim(rt_level *lv, int64_t seq);
/* Runs the claimed job seq of lv and publishes it as done. */
void rt_level_run(rt_cpu *rt, rt_level *lv, int64_t seq);
/* Waits until lv->done >= seq (OFFLINE mode; not for REALTIME). */
void rt_level_wait(rt_level *lv, int64_t seq);
/* Non-real-time: waits until every job posted so far has finished. */
void rt_workers_drain(rt_cpu *rt);

#endif /* CONVOY_RT_CPU_H */
