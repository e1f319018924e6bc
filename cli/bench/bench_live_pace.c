/* bench_live_pace.c - runs one `convoy bench --live` configuration. */
#define _GNU_SOURCE

#include "bench_live_pace.h"

#include "bench_util.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define INPUT_RING_BLOCKS 16
#define SIGNAL_AMPLITUDE 0.25f
#define IR_SEED 0x6c697665ull
#define INPUT_SEED 0x70616365ull
/* Paced runs are judged after this many timed blocks, then every CHECK_EVERY. */
#define FIRST_CHECK 128
#define CHECK_EVERY 64
/* Over real time: mean compute above the period, or this share of blocks
 * late, dropped or silent. */
#define OVER_MISSED_SHARE 0.2

typedef struct timer_thread {
  struct timespec t0;
  int priority; /* SCHED_FIFO priority; 0: none */
  int fifo;     /* the timer thread got it */
  int64_t period_ns;
  sem_t wake;
  atomic_llong released; /* blocks released so far */
  atomic_int stop;
} timer_thread;

static struct timespec ts_add_ns(struct timespec t, int64_t ns) {
  int64_t total = (int64_t)t.tv_nsec + ns;
  t.tv_sec += (time_t)(total / 1000000000);
  t.tv_nsec = (long)(total % 1000000000);
  return t;
}

static double ts_seconds(struct timespec t) {
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Returns 1 when the calling thread now runs under SCHED_FIFO at priority. */
static int set_fifo(int priority) {
  if (priority <= 0) return 0;
  struct sched_param p = {.sched_priority = priority};
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
}

static void *timer_main(void *arg) {
  timer_thread *t = arg;
  t->fifo = set_fifo(t->priority);
  for (int64_t k = 0; !atomic_load(&t->stop); k++) {
    /* From t0 every time, so that sleep overshoot does not accumulate. */
    struct timespec due = ts_add_ns(t->t0, k * t->period_ns);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) != 0) {
    }
    atomic_store(&t->released, k + 1);
    sem_post(&t->wake);
  }
  return NULL;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
         1e-6 * (double)u.ru_stime.tv_usec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int live_meets_half_period(const live_result *r) {
  int64_t released = r->blocks + r->dropped, missed = r->late + r->dropped + r->silent;
  return r->state == LIVE_OK && r->blocks > 0 && missed <= released / 1000 &&
         r->p999_us < 0.5 * r->period_us;
}

double live_percentile(const double *sorted, int64_t n, double q) {
  int64_t rank = (int64_t)ceil(q * (double)n);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

/* Everything one run allocates; freed by run_free. */
typedef struct live_run {
  float *irs;    /* channels x ir_frames */
  float *input;  /* channels x INPUT_RING_BLOCKS x block */
  float *output; /* channels x block */
  const float **in;
  float **out;
  convoy_rt_route *routes;
  double *times; /* seconds per timed block */
  int64_t fed;   /* blocks handed to process(): the input is the ring, cycled */
  convoy_rt *rt;
} live_run;

static void run_free(live_run *w) {
  convoy_rt_destroy(w->rt);
  free(w->irs);
  free(w->input);
  free(w->output);
  free(w->in);
  free(w->out);
  free(w->routes);
  free(w->times);
}

/* Channel c's impulse response: uniform noise under an exponential decay
 * reaching -60 dB at the end, scaled to unit energy. */
static void make_ir(float *h, int64_t n, int32_t c) {
  bench_fill_noise(h, n, IR_SEED + (uint64_t)c, 1.0f);
  double decay = exp(log(1e-3) / (double)n), env = 1.0, energy = 0.0;
  for (int64_t i = 0; i < n; i++, env *= decay) {
    h[i] = (float)(h[i] * env);
    energy += (double)h[i] * h[i];
  }
  float scale = energy > 0 ? (float)(1.0 / sqrt(energy)) : 1.0f;
  for (int64_t i = 0; i < n; i++) h[i] *= scale;
}

static int run_alloc(const live_config *c, live_run *w) {
  size_t ch = (size_t)c->channels, b = (size_t)c->block;
  w->irs = malloc(sizeof(float) * ch * (size_t)c->ir_frames);
  w->input = malloc(sizeof(float) * ch * INPUT_RING_BLOCKS * b);
  w->output = calloc(ch * b, sizeof(float));
  w->in = malloc(sizeof *w->in * ch);
  w->out = malloc(sizeof *w->out * ch);
  w->routes = calloc(ch, sizeof *w->routes);
  w->times = malloc(sizeof(double) * (size_t)c->blocks);
  if (!w->irs || !w->input || !w->output || !w->in || !w->out || !w->routes || !w->times) return -1;
  bench_fill_noise(w->input, (int64_t)(ch * INPUT_RING_BLOCKS * b), INPUT_SEED, SIGNAL_AMPLITUDE);
  for (int32_t i = 0; i < c->channels; i++) {
    float *h = w->irs + (size_t)i * (size_t)c->ir_frames;
    make_ir(h, c->ir_frames, i);
    w->routes[i] = (convoy_rt_route){i, i, h, c->ir_frames, 1.0f};
    w->out[i] = w->output + (size_t)i * b;
  }
  return 0;
}

static void point_inputs(const live_config *c, live_run *w) {
  size_t b = (size_t)c->block, slot = (size_t)(w->fed % INPUT_RING_BLOCKS);
  for (int32_t i = 0; i < c->channels; i++)
    w->in[i] = w->input + ((size_t)i * INPUT_RING_BLOCKS + slot) * b;
}

static int create_rt(const live_config *c, live_run *w, live_result *r) {
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  cfg.block_frames = c->block;
  cfg.n_inputs = cfg.n_outputs = c->channels;
  cfg.max_ir_frames = c->ir_frames;
  cfg.engine = c->engine;
  cfg.mode = c->fast ? CONVOY_RT_OFFLINE : CONVOY_RT_REALTIME;
  cfg.threads = c->threads;
  cfg.max_partition = c->max_partition;
  double t = bench_now();
  convoy_status st = convoy_rt_create(&w->rt, &cfg, w->routes, c->channels);
  r->create_ms = 1e3 * (bench_now() - t);
  if (st != CONVOY_OK) {
    r->state = st == CONVOY_ERR_OUT_OF_MEMORY                                 ? LIVE_NO_MEMORY
               : (st == CONVOY_ERR_NO_DEVICE || st == CONVOY_ERR_UNSUPPORTED) ? LIVE_UNAVAILABLE
                                                                              : LIVE_FAILED;
    snprintf(r->message, sizeof r->message, "%s: %s", convoy_strerror(st), convoy_last_error());
    return -1;
  }
  /* The inputs and routes are copied: the IRs are not needed any more. */
  free(w->irs);
  w->irs = NULL;
  r->engine_run = convoy_rt_engine(w->rt);
  convoy_rt_describe(w->rt, r->plan, sizeof r->plan);
  return 0;
}

static int process_block(const live_config *c, live_run *w, live_result *r) {
  point_inputs(c, w);
  convoy_status st = convoy_rt_process(w->rt, w->in, w->out, c->block);
  w->fed++;
  if (st == CONVOY_OK) return 0;
  r->state = LIVE_FAILED;
  snprintf(r->message, sizeof r->message, "process: %s: %s", convoy_strerror(st),
           convoy_rt_last_error(w->rt));
  return -1;
}

static int64_t silent_blocks(const live_run *w) {
  convoy_rt_stats s;
  return convoy_rt_get_stats(w->rt, &s) == CONVOY_OK ? s.deadline_misses : 0;
}

static int clearly_over(const live_result *r, double sum_s) {
  double period_s = 1e-6 * r->period_us;
  int64_t released = r->blocks + r->dropped;
  return sum_s / (double)r->blocks > period_s ||
         (double)(r->late + r->dropped + r->silent) > OVER_MISSED_SHARE * (double)released;
}

/* The timed loop at real-time pace; returns the sum of the compute times. */
static double run_paced(const live_config *c, live_run *w, live_result *r, double *cpu0) {
  timer_thread t;
  memset(&t, 0, sizeof t);
  t.period_ns = (int64_t)llround(1e9 * (double)c->block / (double)c->rate);
  t.priority = c->priority > 0 ? c->priority + 1 : 0;
  sem_init(&t.wake, 0, 0);
  int policy;
  struct sched_param saved;
  pthread_getschedparam(pthread_self(), &policy, &saved);
  int fifo = set_fifo(c->priority);
  clock_gettime(CLOCK_MONOTONIC, &t.t0);
  t.t0 = ts_add_ns(t.t0, 2000000); /* first release 2 ms from now */
  pthread_t th;
  if (pthread_create(&th, NULL, timer_main, &t) != 0) {
    r->state = LIVE_FAILED;
    snprintf(r->message, sizeof r->message, "cannot start the timer thread");
    sem_destroy(&t.wake);
    if (fifo) pthread_setschedparam(pthread_self(), policy, &saved);
    return 0;
  }
  double sum = 0, t_start = 0, stop_at = 0;
  int64_t next = 0, silent0 = 0;
  int timing = 0;
  for (;;) {
    while (sem_wait(&t.wake) != 0) {
    }
    while (sem_trywait(&t.wake) == 0) {
    }
    int64_t latest = atomic_load(&t.released) - 1;
    if (latest > next) {
      if (timing) r->dropped += latest - next;
      next = latest;
    }
    if (!timing && next >= LIVE_WARMUP_BLOCKS) {
      timing = 1;
      *cpu0 = cpu_seconds();
      silent0 = silent_blocks(w);
      t_start = bench_now();
      stop_at = t_start + c->max_seconds;
    }
    double a = bench_now();
    if (process_block(c, w, r) != 0) break;
    double e = bench_now();
    if (timing) {
      double deadline = ts_seconds(ts_add_ns(t.t0, (next + 1) * t.period_ns));
      r->late += e > deadline;
      w->times[r->blocks++] = e - a;
      sum += e - a;
      if (r->blocks >= FIRST_CHECK && r->blocks % CHECK_EVERY == 0) {
        r->silent = silent_blocks(w) - silent0;
        if (clearly_over(r, sum)) {
          r->state = LIVE_OVER;
          break;
        }
      }
      if (r->blocks >= c->blocks || e >= stop_at) break;
    }
    next++;
  }
  r->wall_s = bench_now() - t_start;
  atomic_store(&t.stop, 1);
  pthread_join(th, NULL);
  sem_destroy(&t.wake);
  if (fifo) pthread_setschedparam(pthread_self(), policy, &saved);
  r->fifo = fifo && t.fifo;
  r->silent = silent_blocks(w) - silent0;
  return sum;
}

/* Back to back in OFFLINE mode; returns the sum of the compute times. */
static double run_fast(const live_config *c, live_run *w, live_result *r, double *cpu0) {
  double sum = 0, t_start = 0;
  for (int64_t k = 0; r->blocks < c->blocks; k++) {
    if (k == LIVE_WARMUP_BLOCKS) {
      *cpu0 = cpu_seconds();
      t_start = bench_now();
    }
    double a = bench_now();
    if (process_block(c, w, r) != 0) break;
    double e = bench_now();
    if (k < LIVE_WARMUP_BLOCKS) continue;
    w->times[r->blocks++] = e - a;
    sum += e - a;
    if (e - t_start >= c->max_seconds) break;
  }
  r->wall_s = bench_now() - t_start;
  return sum;
}

/* Relative L2 error of the first CHECK_SAMPLES outputs of channel 0's last
 * block against a double-precision sum over its whole impulse response
 * (made again: the same seed gives the same IR); -1 when it cannot be
 * checked (a block was output as silence, or no memory). */
#define CHECK_SAMPLES 8
static double check_output(const live_config *c, live_run *w) {
  convoy_rt_stats st;
  if (w->fed < 1 || convoy_rt_get_stats(w->rt, &st) != CONVOY_OK || st.deadline_misses > 0)
    return -1;
  float *h = malloc(sizeof(float) * (size_t)c->ir_frames);
  if (!h) return -1;
  make_ir(h, c->ir_frames, 0);
  const float *x = w->input; /* channel 0's ring */
  int64_t period = (int64_t)INPUT_RING_BLOCKS * c->block, first = (w->fed - 1) * c->block;
  double num = 0, den = 0;
  for (int i = 0; i < CHECK_SAMPLES && i < c->block; i++) {
    int64_t n = first + i;
    double y = 0;
    for (int64_t j = 0; j < c->ir_frames && j <= n; j++) y += (double)h[j] * x[(n - j) % period];
    double d = (double)w->out[0][i] - y;
    num += d * d;
    den += y * y;
  }
  free(h);
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void summarise(const live_config *c, live_run *w, live_result *r, double sum, double cpu0) {
  double cpu = cpu_seconds() - cpu0;
  if (r->blocks < 1) return;
  double audio_s = (double)(r->blocks + r->dropped) * (double)c->block / (double)c->rate;
  qsort(w->times, (size_t)r->blocks, sizeof(double), compare_doubles);
  r->mean_us = 1e6 * sum / (double)r->blocks;
  r->p50_us = 1e6 * live_percentile(w->times, r->blocks, 0.5);
  r->p99_us = 1e6 * live_percentile(w->times, r->blocks, 0.99);
  r->p999_us = 1e6 * live_percentile(w->times, r->blocks, 0.999);
  r->max_us = 1e6 * w->times[r->blocks - 1];
  r->rt_index = r->mean_us > 0 ? r->period_us / r->mean_us : 0;
  if (!c->fast && r->state == LIVE_OK && clearly_over(r, sum)) r->state = LIVE_OVER;
  /* Paced: CPU time over the wall time that audio took; fast: over the
   * audio's duration, so both read as the share of one core needed. */
  r->cpu_load = c->fast ? cpu / audio_s : (r->wall_s > 0 ? cpu / r->wall_s : 0);
}

void live_measure(const live_config *c, live_result *r) {
  memset(r, 0, sizeof *r);
  r->period_us = 1e6 * (double)c->block / (double)c->rate;
  r->engine_run = c->engine;
  live_run w;
  memset(&w, 0, sizeof w);
  if (run_alloc(c, &w) != 0) {
    r->state = LIVE_NO_MEMORY;
    snprintf(r->message, sizeof r->message, "cannot allocate %d impulse responses of %lld frames",
             (int)c->channels, (long long)c->ir_frames);
    run_free(&w);
    return;
  }
  if (create_rt(c, &w, r) != 0) {
    run_free(&w);
    return;
  }
  double cpu0 = cpu_seconds();
  double sum = c->fast ? run_fast(c, &w, r, &cpu0) : run_paced(c, &w, r, &cpu0);
  if (r->state != LIVE_FAILED) summarise(c, &w, r, sum, cpu0);
  r->check_rel_err = check_output(c, &w);
  if (r->check_rel_err > LIVE_CHECK_LIMIT && r->state != LIVE_FAILED) {
    r->state = LIVE_WRONG;
    snprintf(r->message, sizeof r->message,
             "output differs from a double-precision sum: relative error %.2e", r->check_rel_err);
  }
  run_free(&w);
}
