/*
 * gpu_scale_bench.c - host-to-host streaming over several GPUs at once,
 * through the public stream API: the in-memory side of scale-out.
 *
 *   gpu_scale_bench [LOG2_SAMPLES [REPS [TAPS ...]]]   (defaults 28, 5, 16 1024 65536)
 *
 * For each tap count and each K = 1 .. convoy_gpu_count(), K streams (the
 * cheapest GPU engine, config.device = 0 .. K-1) each filter their own copy
 * of the same 2^LOG2_SAMPLES float32 samples from pinned buffers
 * (convoy_host_alloc) into pinned outputs, one thread a stream, all released
 * together; the wall time until the last one has flushed, median over REPS
 * (after one warm-up), gives the aggregate GS/s and its ratio to K = 1.
 * Every stream's output must equal GPU 0's bit for bit (the same engine, plan
 * and input on every device): a mismatch is reported and makes the exit
 * status 1.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_gpu_bus.h"
#include "bench_util.h"
#include "convoy.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 16
#define MAX_REPS 31

typedef struct lane {
  convoy_stream *stream;
  const float *in;
  float *out;
  int64_t frames, out_frames;
  pthread_barrier_t *start;
  double done_at;
  convoy_status status;
} lane;

/* One pass over the whole signal: reset, process, flush. */
static void *run_lane(void *arg) {
  lane *l = arg;
  pthread_barrier_wait(l->start);
  int64_t got = 0, more = 0;
  convoy_status st = convoy_stream_reset(l->stream);
  if (st == CONVOY_OK)
    st = convoy_stream_process(l->stream, l->in, l->frames, l->out, l->out_frames, &got);
  if (st == CONVOY_OK)
    st = convoy_stream_flush(l->stream, l->out + got, l->out_frames - got, &more);
  l->done_at = bench_now();
  l->status = st;
  return NULL;
}

typedef struct bus_lane {
  int device;
  const void *src;
  void *dst;
  size_t bytes;
  pthread_barrier_t *start;
  bench_gpu_bus bus;
  int status;
} bus_lane;

static void *measure_bus(void *arg) {
  bus_lane *b = arg;
  char err[256];
  cudaSetDevice(b->device);
  pthread_barrier_wait(b->start);
  b->status = bench_gpu_measure_bus(b->src, b->dst, b->bytes, 5, &b->bus, err, sizeof err);
  if (b->status != 0) fprintf(stderr, "GPU %d bus: %s\n", b->device, err);
  return NULL;
}

/* GB/s moved both ways at once over the pinned buses of GPUs 0 .. k-1, all
 * measuring together; negative on a CUDA error. */
static double bus_both_ways(float **in, float **out, size_t bytes, int k) {
  bus_lane lanes[MAX_GPUS];
  pthread_t threads[MAX_GPUS];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)k);
  for (int g = 0; g < k; g++) {
    lanes[g] =
        (bus_lane){.device = g, .src = in[g], .dst = out[g], .bytes = bytes, .start = &start};
    pthread_create(&threads[g], NULL, measure_bus, &lanes[g]);
  }
  double sum = 0.0;
  int failed = 0;
  for (int g = 0; g < k; g++) {
    pthread_join(threads[g], NULL);
    failed |= lanes[g].status != 0;
    sum += lanes[g].bus.bi_h2d + lanes[g].bus.bi_d2h;
  }
  pthread_barrier_destroy(&start);
  return failed ? -1.0 : sum;
}

/* Runs K lanes REPS + 1 times; the median wall time of the timed ones, or a
 * negative value when a call failed. */
static double run_lanes(lane *lanes, int k, int reps) {
  double times[MAX_REPS];
  for (int r = 0; r <= reps; r++) {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)k + 1);
    pthread_t threads[MAX_GPUS];
    for (int g = 0; g < k; g++) {
      lanes[g].start = &start;
      pthread_create(&threads[g], NULL, run_lane, &lanes[g]);
    }
    pthread_barrier_wait(&start);
    const double t0 = bench_now();
    double last = t0;
    for (int g = 0; g < k; g++) {
      pthread_join(threads[g], NULL);
      if (lanes[g].status != CONVOY_OK) {
        fprintf(stderr, "GPU %d: %s\n", g, convoy_stream_last_error(lanes[g].stream));
        pthread_barrier_destroy(&start);
        return -1.0;
      }
      if (lanes[g].done_at > last) last = lanes[g].done_at;
    }
    pthread_barrier_destroy(&start);
    if (r > 0) times[r - 1] = last - t0;
  }
  double med, lo, hi;
  bench_stats(times, reps, &med, &lo, &hi);
  return med;
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 28;
  const int reps = argc > 2 ? atoi(argv[2]) : 5;
  int64_t taps_list[16] = {16, 1024, 65536};
  int ntaps = 3;
  if (argc > 3) {
    ntaps = 0;
    for (int i = 3; i < argc && ntaps < 16; i++) taps_list[ntaps++] = atoll(argv[i]);
  }
  const int ngpu = convoy_gpu_count();
  if (ngpu < 1) {
    printf("gpu_scale_bench: no GPU\n");
    return 77;
  }
  if (log2n < 10 || log2n > 31 || reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "usage: gpu_scale_bench [LOG2_SAMPLES 10..31 [REPS 1..%d [TAPS ...]]]\n",
            MAX_REPS);
    return 2;
  }
  const int k_max = ngpu < MAX_GPUS ? ngpu : MAX_GPUS;
  const int64_t frames = (int64_t)1 << log2n;
  const int64_t out_frames = frames + ((int64_t)1 << 17); /* room for taps - 1 more */
  float *in[MAX_GPUS], *out[MAX_GPUS];
  for (int g = 0; g < k_max; g++) {
    in[g] = convoy_host_alloc(sizeof(float) * (size_t)frames);
    out[g] = convoy_host_alloc(sizeof(float) * (size_t)out_frames);
    if (!in[g] || !out[g]) {
      fprintf(stderr, "gpu_scale_bench: no memory for 2 x %lld pinned samples on GPU %d\n",
              (long long)frames, g);
      return 1;
    }
    if (g == 0)
      bench_fill_noise(in[0], frames, 1, 0.5f);
    else
      memcpy(in[g], in[0], sizeof(float) * (size_t)frames);
  }
  printf("gpu_scale_bench: %d GPU(s), 2^%d float32 samples a GPU, median of %d, host to host "
         "from pinned buffers\n",
         ngpu, log2n, reps);
  double limit[MAX_GPUS + 1];
  printf("bus, both ways at once, all GPUs copying:");
  for (int k = 1; k <= k_max; k++) {
    const double gbs = bus_both_ways(in, out, sizeof(float) * (size_t)frames, k);
    if (gbs < 0) return 1;
    limit[k] = gbs / 8.0; /* GS/s: 4 bytes in and 4 out a sample */
    printf("  %d GPU(s) %.1f GB/s = %.2f GS/s", k, gbs, limit[k]);
  }
  printf("\n%7s %5s %10s %10s %8s %8s  %s\n", "taps", "GPUs", "ms", "GS/s", "vs 1", "of bus",
         "same bits as GPU 0");
  int failures = 0;
  for (int t = 0; t < ntaps && taps_list[t] < out_frames - frames; t++) {
    float *h = malloc(sizeof(float) * (size_t)taps_list[t]);
    bench_lowpass_taps(h, taps_list[t]);
    convoy_filter *f = NULL;
    if (convoy_filter_create(&f, h, taps_list[t]) != CONVOY_OK) {
      fprintf(stderr, "filter: %s\n", convoy_last_error());
      return 1;
    }
    free(h);
    double one = 0.0;
    for (int k = 1; k <= k_max; k++) {
      lane lanes[MAX_GPUS];
      memset(lanes, 0, sizeof lanes);
      int ok = 1;
      for (int g = 0; g < k && ok; g++) {
        convoy_stream_config cfg;
        convoy_stream_config_init(&cfg);
        cfg.engine = CONVOY_ENGINE_GPU;
        cfg.device = g;
        if (convoy_stream_create(&lanes[g].stream, &cfg, &f, 1) != CONVOY_OK) {
          fprintf(stderr, "GPU %d: %s\n", g, convoy_last_error());
          ok = 0;
        }
        lanes[g].in = in[g];
        lanes[g].out = out[g];
        lanes[g].frames = frames;
        lanes[g].out_frames = out_frames;
      }
      const double t_med = ok ? run_lanes(lanes, k, reps) : -1.0;
      if (t_med < 0) {
        failures++;
      } else {
        const double gss = (double)k * (double)frames / t_med * 1e-9;
        if (k == 1) one = gss;
        const int64_t n = frames + taps_list[t] - 1;
        int same = 1;
        for (int g = 1; g < k; g++) same &= memcmp(out[g], out[0], sizeof(float) * (size_t)n) == 0;
        if (!same) failures++;
        printf("%7lld %5d %10.2f %10.2f %7.2fx %7.1f%%  %s\n", (long long)taps_list[t], k,
               t_med * 1e3, gss, gss / one, 100.0 * gss / limit[k],
               k == 1 ? "-"
               : same ? "yes"
                      : "NO");
      }
      for (int g = 0; g < k; g++) convoy_stream_destroy(lanes[g].stream);
    }
    convoy_filter_destroy(f);
  }
  for (int g = 0; g < k_max; g++) {
    convoy_host_free(in[g]);
    convoy_host_free(out[g]);
  }
  return failures ? 1 : 0;
}
