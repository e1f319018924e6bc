/*
 * matched_decim_bench.c - the radar capture case host to host: a cu8
 * capture (one complex channel of unsigned 8-bit I/Q, converted on the GPU)
 * through a 2^20-tap matched filter, real and complex taps, decimated by 8
 * with cu8 output, through the stream API from pinned buffers
 * (convoy_host_alloc), one process_to() call plus the flush, median of 5
 * runs; against the pinned host-to-device copy rate alone, measured as
 * `convoy bench` measures the bus (the bound: the output is 1/8 of the
 * input).
 *
 * usage: matched_decim_bench [log2_samples [fft_size [gpu_streams [log2_taps [decimation]]]]]
 * (default 29: 1 GiB of cu8; fft_size and gpu_streams 0: the defaults;
 * log2_taps 20, 4 .. 22 to see where the FFT plans change; decimation 8,
 * 1 .. 64; the copy rate stays the bound only from 2 up)
 */
#include "convoy.h"

#include "bench_gpu_bus.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RUNS 5

/* Median seconds of one pass, or -1 (message printed). */
static double run(convoy_sample_type tap_type, const float *taps, int64_t taps_len,
                  int64_t decimation, const unsigned char *in, int64_t frames, unsigned char *out,
                  int64_t cap, int64_t fft_size, int32_t streams) {
  convoy_filter *f = NULL;
  convoy_stream *s = NULL;
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.sample = CONVOY_SAMPLE_CF32;
  cfg.engine = CONVOY_ENGINE_GPU;
  cfg.output_format = CONVOY_FORMAT_U8;
  cfg.decimation = decimation;
  cfg.fft_size = fft_size;
  cfg.gpu_streams = streams;
  if (convoy_filter_create_typed(&f, tap_type, taps, taps_len) != CONVOY_OK ||
      convoy_stream_create(&s, &cfg, &f, 1) != CONVOY_OK) {
    printf("create: %s\n", convoy_last_error());
    convoy_filter_destroy(f);
    return -1.0;
  }
  double t[RUNS];
  for (int r = 0; r < RUNS; r++) {
    convoy_stream_reset(s);
    int64_t got = 0, more = 0;
    const double t0 = bench_now();
    if (convoy_stream_process_to(s, CONVOY_FORMAT_U8, in, frames, out, cap, &got) != CONVOY_OK ||
        convoy_stream_flush_to(s, out + 2 * got, cap - got, &more) != CONVOY_OK) {
      printf("run: %s\n", convoy_stream_last_error(s));
      convoy_stream_destroy(s);
      convoy_filter_destroy(f);
      return -1.0;
    }
    t[r] = bench_now() - t0;
  }
  char plan[512];
  convoy_stream_describe(s, plan, sizeof plan);
  printf("  %s\n", plan);
  convoy_stream_destroy(s);
  convoy_filter_destroy(f);
  double median, lo, hi;
  bench_stats(t, RUNS, &median, &lo, &hi);
  return median;
}

int main(int argc, char **argv) {
  const int log2 = argc > 1 ? atoi(argv[1]) : 29;
  const int64_t fft_size = argc > 2 ? atoll(argv[2]) : 0;
  const int32_t streams = argc > 3 ? atoi(argv[3]) : 0;
  const int log2_taps = argc > 4 ? atoi(argv[4]) : 20;
  const int64_t decimation = argc > 5 ? atoll(argv[5]) : 8;
  if (log2 < 20 || log2 > 31 || fft_size < 0 || streams < 0 || streams > 16 || log2_taps < 4 ||
      log2_taps > 22 || decimation < 1 || decimation > 64) {
    fprintf(stderr, "usage: matched_decim_bench [log2_samples 20..31 [fft_size [gpu_streams "
                    "[log2_taps 4..22 [decimation 1..64]]]]]\n");
    return 2;
  }
  if (convoy_gpu_count() < 1) {
    printf("matched_decim_bench: no GPU (%s)\n", convoy_last_error());
    return 0;
  }
  const int64_t frames = (int64_t)1 << log2, taps_len = (int64_t)1 << log2_taps;
  const int64_t cap = frames / decimation + taps_len;
  unsigned char *in = convoy_host_alloc((size_t)frames * 2);
  unsigned char *out = convoy_host_alloc((size_t)cap * 2);
  float *taps = malloc(sizeof(float) * 2 * (size_t)taps_len);
  if (!in || !out || !taps) {
    fprintf(stderr, "matched_decim_bench: out of memory\n");
    return 1;
  }
  for (int64_t i = 0; i < frames * 2; i++) in[i] = (unsigned char)(i * 2654435761u >> 24);
  bench_fill_noise(taps, 2 * taps_len, 1, 0.5f / sqrtf((float)taps_len));
  /* the copy of this input alone (one way; the output is 1/8 of it) */
  bench_gpu_bus bus;
  char err[256];
  if (bench_gpu_measure_bus(in, out, (size_t)(cap < frames ? cap : frames) * 2, RUNS, &bus, err,
                            sizeof err) != 0) {
    fprintf(stderr, "matched_decim_bench: %s\n", err);
    return 1;
  }
  const double h2d = bus.h2d * 1e9;
  printf("matched_decim_bench: 2^%d cu8 complex samples, 2^%d taps, decimation %d, cu8 out, "
         "median of %d runs\npinned host-to-device copy: %.1f GB/s = %.2f G complex samples/s\n",
         log2, log2_taps, (int)decimation, RUNS, h2d * 1e-9, h2d / 2 * 1e-9);
  for (int cx = 0; cx < 2; cx++) {
    const double t = run(cx ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32, taps, taps_len, decimation,
                         in, frames, out, cap, fft_size, streams);
    if (t > 0)
      printf("%s taps: %.2f G complex samples/s = %.1f%% of the copy rate\n",
             cx ? "complex" : "real", (double)frames / t * 1e-9,
             100.0 * (double)frames * 2 / t / h2d);
  }
  convoy_host_free(in);
  convoy_host_free(out);
  free(taps);
  return 0;
}
