/*
 * decim_bench.c - what decimation saves: a complex (cf32) stream through
 * each available engine at full rate (D = 1), decimated by D, and decimated
 * with a frequency shift (complex taps, the frequency-translating filter),
 * host to host through the public stream API from pinned buffers
 * (convoy_host_alloc), one process() call over the whole signal plus the
 * flush, median of the runs. Prints input complex samples per second and
 * each decimated row's speed relative to the same engine's full-rate row.
 *
 * usage: decim_bench [log2_frames [runs [D]]]   (default 26 frames on a GPU
 * engine, 4 fewer doublings on the CPU engines; 5 runs; D = 8)
 */
#include "convoy.h"

#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* Seconds for one pass of frames complex frames (median of runs), or -1. */
static double time_case(convoy_engine engine, const float *taps, int64_t n_taps, int32_t decim,
                        double shift, const float *in, float *out, int64_t cap, int64_t frames,
                        int runs, char *plan, size_t plan_size) {
  convoy_filter *f = NULL;
  convoy_stream *s = NULL;
  if (convoy_filter_create(&f, taps, n_taps) != CONVOY_OK) return -1.0;
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = engine;
  cfg.decimation = decim;
  cfg.shift = shift;
  if (convoy_stream_create(&s, &cfg, &f, 1) != CONVOY_OK) {
    snprintf(plan, plan_size, "create: %s", convoy_last_error());
    convoy_filter_destroy(f);
    return -1.0;
  }
  convoy_stream_describe(s, plan, plan_size);
  double *t = malloc(sizeof(double) * (size_t)runs);
  int done = 0;
  for (int r = 0; t && r < runs; r++) {
    convoy_stream_reset(s);
    int64_t got = 0, more = 0;
    const double t0 = bench_now();
    convoy_status st = convoy_stream_process(s, in, frames, out, cap, &got);
    if (st == CONVOY_OK) st = convoy_stream_flush(s, out + 2 * got, cap - got, &more);
    const double dt = bench_now() - t0;
    if (st != CONVOY_OK) {
      snprintf(plan, plan_size, "run: %s", convoy_stream_last_error(s));
      done = 0;
      break;
    }
    t[done++] = dt;
  }
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  double median = -1.0, lo, hi;
  if (done > 0) bench_stats(t, done, &median, &lo, &hi);
  free(t);
  return median;
}

int main(int argc, char **argv) {
  const int log2_gpu = argc > 1 ? atoi(argv[1]) : 26;
  const int runs = argc > 2 ? atoi(argv[2]) : 5;
  const int32_t decim = argc > 3 ? atoi(argv[3]) : 8;
  if (log2_gpu < 10 || log2_gpu > 30 || runs < 1 || decim < 2) {
    fprintf(stderr, "usage: decim_bench [log2_frames 10..30 [runs [D >= 2]]]\n");
    return 2;
  }
  static const int64_t tap_counts[] = {128, 1024, 4096};
  const int64_t most = (int64_t)1 << log2_gpu;
  float *in = convoy_host_alloc(sizeof(float) * 2 * (size_t)most);
  const int64_t cap = most + 8192; /* output frames: every frame plus the ring-out */
  float *out = convoy_host_alloc(sizeof(float) * 2 * (size_t)cap);
  float *taps = malloc(sizeof(float) * 4096);
  if (!in || !out || !taps) {
    fprintf(stderr, "decim_bench: out of memory\n");
    return 1;
  }
  bench_fill_noise(in, 2 * most, 1, 0.5f);
  printf("decim_bench: cf32 stream, D = %d, shift 0.1 cycles/sample where shown, pinned host "
         "buffers, median of %d runs; rate = input complex samples per second\n",
         (int)decim, runs);
  printf("%-11s %6s %4s %6s %10s %9s  plan\n", "engine", "taps", "D", "shift", "MS/s", "vs D=1");
  for (int32_t e = 0; e < convoy_engine_count(); e++) { /* every exact engine that runs here */
    const convoy_engine engine = convoy_engine_at(e);
    if (!convoy_engine_is_exact(engine) || !convoy_engine_available(engine)) continue;
    const int gpu = convoy_engine_family(engine) == CONVOY_FAMILY_GPU;
    const int64_t frames = gpu ? most : most >> 4;
    for (size_t k = 0; k < sizeof tap_counts / sizeof tap_counts[0]; k++) {
      const int64_t n = tap_counts[k];
      for (int64_t j = 0; j < n; j++) { /* a windowed-sinc low-pass at 1 / (2 D) */
        const double c = 0.5 / decim, m = (double)j - 0.5 * (double)(n - 1);
        const double sinc = m == 0.0 ? 2.0 * c : sin(2.0 * PI * c * m) / (PI * m);
        taps[j] = (float)(sinc * (0.54 - 0.46 * cos(2.0 * PI * (double)j / (double)(n - 1))));
      }
      double full = -1.0;
      for (int v = 0; v < 3; v++) {
        const int32_t d = v == 0 ? 1 : decim;
        const double shift = v == 2 ? 0.1 : 0.0;
        char plan[256] = "";
        const double t =
            time_case(engine, taps, n, d, shift, in, out, cap, frames, runs, plan, sizeof plan);
        if (v == 0) full = t;
        if (t <= 0) {
          printf("%-11s %6lld %4d %6.2f %10s %9s  %s\n", convoy_engine_name(engine), (long long)n,
                 (int)d, shift, "-", "-", plan);
          continue;
        }
        char ratio[16] = "";
        if (v > 0 && full > 0) snprintf(ratio, sizeof ratio, "%.2fx", full / t);
        printf("%-11s %6lld %4d %6.2f %10.1f %9s  %s\n", convoy_engine_name(engine), (long long)n,
               (int)d, shift, (double)frames / t * 1e-6, ratio, plan);
        fflush(stdout);
      }
    }
  }
  convoy_host_free(in);
  convoy_host_free(out);
  free(taps);
  return 0;
}
