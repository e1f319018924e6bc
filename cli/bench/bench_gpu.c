/* bench_gpu.c - `convoy bench` for the GPU engines (CUDA builds). */
#include "bench_gpu.h"

#include "bench_util.h"

#ifdef CONVOY_HAVE_CUDA

#include "bench_gpu_bus.h"
#include "convoy_cuda.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNAL_SEED 0x67707562656e6368ull
#define SIGNAL_AMPLITUDE 0.25f
#define CHECKS 64
#define DEVICE_CALL_FRAMES ((int64_t)1 << 24) /* frames per convoy_cuda_conv_process */

/* Everything the GPU section holds; freed by gpu_state_free. */
typedef struct gpu_state {
  const bench_settings *s;
  int64_t frames;
  int32_t channels;
  int64_t samples; /* frames x channels */
  int64_t call;    /* frames per process() call through the stream API */
  convoy_sample_format fmt;
  size_t width; /* bytes per input sample */
  void *h_in;   /* pinned, samples x width */
  float *h_out; /* pinned, (frames + max taps - 1) x channels */
  void *d_in;   /* samples x 4 bytes (f32 or s16 input) */
  float *d_out; /* samples */
  bench_gpu_bus bus;
  double copy_gsps; /* device copy, samples per second / 1e9 at 8 bytes a sample */
  int planar;       /* 1: d_in, h_in and the output read as planar rows of `frames` */
  uint64_t rng;
} gpu_state;

typedef struct gpu_row {
  double median_s, min_s, max_s;
  double err;
  double create_ms;
  char plan[256];
  int skipped;
  double estimate_s;
} gpu_row;

int bench_gpu_handles(convoy_engine engine) {
  return convoy_engine_family(engine) == CONVOY_FAMILY_GPU && convoy_engine_available(engine);
}

static uint64_t next_u64(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Sample i of buf, which holds fmt, at full scale +-1 (include/convoy.h). */
static double value_at(const void *buf, convoy_sample_format fmt, int64_t i) {
  switch (fmt) {
  case CONVOY_FORMAT_S16:
    return (double)((const int16_t *)buf)[i] / 32768.0;
  case CONVOY_FORMAT_S8:
    return (double)((const int8_t *)buf)[i] / 128.0;
  case CONVOY_FORMAT_U8:
    return ((double)((const uint8_t *)buf)[i] - 128.0) / 128.0;
  default:
    return (double)((const float *)buf)[i];
  }
}

/* Where frame f of channel c lies in the buffers. */
static int64_t sample_index(const gpu_state *g, int64_t f, int64_t c) {
  return g->planar ? c * g->frames + f : f * g->channels + c;
}

/* A short name for the report. */
static const char *format_name(convoy_sample_format fmt) {
  switch (fmt) {
  case CONVOY_FORMAT_S16:
    return "pcm16";
  case CONVOY_FORMAT_S8:
    return "int8 (ci8)";
  case CONVOY_FORMAT_U8:
    return "uint8 (cu8)";
  default:
    return "float32";
  }
}

/* Worst error at CHECKS random outputs among the first `frames` frames of
 * out (frames may pass the input's end: the ring-out, where the input is
 * zero), relative to the mean over the checked outputs of sum |h x| (all
 * channels share taps). The mean, not each output's own sum: an FFT's
 * rounding error is spread evenly over a segment, so at the ends of a long
 * windowed filter's ring-out, where the taps that still reach the input are
 * tiny, it is large against that output's own sum yet as small as anywhere
 * against the signal. Integer output is allowed its half-LSB rounding on
 * top. */
static double spot_check(gpu_state *g, const float *taps, int64_t m, const void *out,
                         convoy_sample_format out_fmt, int64_t frames) {
  const double rounding = out_fmt == CONVOY_FORMAT_F32   ? 0.0
                          : out_fmt == CONVOY_FORMAT_S16 ? 0.5 / 32768.0
                                                         : 0.5 / 128.0;
  double worst = 0.0, mag_sum = 0.0;
  for (int k = 0; k < CHECKS; k++) {
    int64_t f = (int64_t)(next_u64(&g->rng) % (uint64_t)frames);
    int64_t c = (int64_t)(next_u64(&g->rng) % (uint64_t)g->channels);
    double ref = 0.0, mag = 0.0;
    int64_t j0 = f >= g->frames ? f - g->frames + 1 : 0; /* x[f - j] = 0 past the end */
    for (int64_t j = j0; j < m && j <= f; j++) {
      double term = (double)taps[j] * value_at(g->h_in, g->fmt, sample_index(g, f - j, c));
      ref += term;
      mag += fabs(term);
    }
    mag_sum += mag;
    double d = fabs(value_at(out, out_fmt, sample_index(g, f, c)) - ref) - rounding;
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  const double scale = mag_sum / CHECKS;
  return worst / (scale > 0 ? scale : 1.0);
}

static void gpu_state_free(gpu_state *g) {
  convoy_host_free(g->h_in);
  convoy_host_free(g->h_out);
  cudaFree(g->d_in);
  cudaFree(g->d_out);
  (void)cudaGetLastError();
}

static int gpu_state_init(gpu_state *g, const bench_settings *s, int64_t frames,
                          convoy_sample_format fmt, int chunk_set, int64_t max_taps) {
  memset(g, 0, sizeof *g);
  g->s = s;
  g->frames = frames;
  g->channels = s->channels;
  g->samples = frames * s->channels;
  g->call = chunk_set ? s->chunk : frames;
  g->fmt = fmt;
  g->width = convoy_sample_format_bytes(fmt);
  g->rng = 0x9E3779B97F4A7C15ull;
  size_t n = (size_t)g->samples;
  size_t out_n = (size_t)(frames + max_taps - 1) * (size_t)s->channels;
  double t0 = bench_now();
  g->h_in = convoy_host_alloc(n * g->width);
  g->h_out = convoy_host_alloc(out_n * sizeof(float));
  if (!g->h_in || !g->h_out) {
    fprintf(stderr, "convoy bench: cannot allocate host buffers for %lld samples: %s\n",
            (long long)g->samples, convoy_last_error());
    return -1;
  }
  double t_alloc = bench_now() - t0;
  float *x = fmt == CONVOY_FORMAT_F32 ? (float *)g->h_in : malloc(n * sizeof(float));
  if (!x) {
    fprintf(stderr, "convoy bench: out of memory\n");
    return -1;
  }
  bench_fill_noise(x, g->samples, SIGNAL_SEED, SIGNAL_AMPLITUDE);
  if (fmt != CONVOY_FORMAT_F32) {
    for (size_t i = 0; i < n; i++) {
      if (fmt == CONVOY_FORMAT_S16)
        ((int16_t *)g->h_in)[i] = (int16_t)lrintf(x[i] * 32767.0f);
      else if (fmt == CONVOY_FORMAT_S8)
        ((int8_t *)g->h_in)[i] = (int8_t)lrintf(x[i] * 127.0f);
      else
        ((uint8_t *)g->h_in)[i] = (uint8_t)(lrintf(x[i] * 127.0f) + 128);
    }
    free(x);
  }
  memset(g->h_out, 0, out_n * sizeof(float));
  cudaError_t e = cudaMalloc(&g->d_in, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMalloc((void **)&g->d_out, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMemcpy(g->d_in, g->h_in, n * g->width, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    fprintf(stderr, "convoy bench: device buffers of %zu bytes: %s\n", n * sizeof(float),
            cudaGetErrorString(e));
    (void)cudaGetLastError();
    return -1;
  }
  char err[BENCH_MESSAGE];
  /* Bus: float input out and float output back, the whole signal each way. */
  if (bench_gpu_measure_bus(g->h_out, g->h_out, n * sizeof(float), s->runs, &g->bus, err,
                            sizeof err) != 0) {
    fprintf(stderr, "convoy bench: bus: %s\n", err);
    return -1;
  }
  double t_copy =
      bench_gpu_copy_seconds(g->d_in, g->d_out, n * sizeof(float), s->runs, err, sizeof err);
  if (t_copy <= 0) {
    fprintf(stderr, "convoy bench: device copy: %s\n", err);
    return -1;
  }
  g->copy_gsps = (double)g->samples / t_copy * 1e-9;
  convoy_gpu_info info;
  if (convoy_gpu_get_info(0, &info) == CONVOY_OK)
    printf("\nGPU      %s, %d SMs, %.1f GiB, %d copy engines, driver %d, runtime %d\n", info.name,
           (int)info.multiprocessors, (double)info.memory_bytes / 1073741824.0,
           (int)info.copy_engines, (int)info.driver_version, (int)info.runtime_version);
  printf("signal   %lld frames x %d channel%s %s (%lld samples), pinned host buffers (%s, %.2f s "
         "to allocate)\n",
         (long long)frames, (int)g->channels, g->channels == 1 ? "" : "s", format_name(fmt),
         (long long)g->samples, convoy_host_is_pinned(g->h_in) ? "pinned" : "NOT pinned", t_alloc);
  printf("bus      pinned %.0f MiB: H2D %.1f GB/s, D2H %.1f GB/s alone; both at once H2D %.1f + "
         "D2H %.1f = %.1f GB/s\n",
         (double)(n * sizeof(float)) / 1048576.0, g->bus.h2d, g->bus.d2h, g->bus.bi_h2d,
         g->bus.bi_d2h, g->bus.bi_h2d + g->bus.bi_d2h);
  printf("device   copy (D2D cudaMemcpy, %.0f MiB) %.1f GB/s = %.1f GS/s at 8 bytes a sample\n",
         (double)(n * sizeof(float)) / 1048576.0, g->copy_gsps * 8.0, g->copy_gsps);
  fflush(stdout);
  return 0;
}

/* Host to host through the stream API: the signal from pinned h_in into
 * pinned h_out in process() calls of g->call frames, then flush. Output is in
 * the input's format, as a file would be written: pcm16 input gives pcm16
 * output, quantized on the GPU (no dither: the spot check reads it). */
static convoy_status run_stream(gpu_state *g, convoy_filter *filter, int64_t m,
                                convoy_engine engine, gpu_row *row, char *err, size_t err_size) {
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = g->channels;
  cfg.engine = engine;
  cfg.threads = g->s->threads;
  cfg.fft_size = g->s->fft_size;
  cfg.output_format = g->fmt;
  const size_t out_fb = convoy_sample_format_bytes(g->fmt) * (size_t)g->channels;
  unsigned char *out = (unsigned char *)g->h_out;
  convoy_stream *st = NULL;
  double t0 = bench_now();
  convoy_status rc = convoy_stream_create(&st, &cfg, &filter, 1);
  row->create_ms = (bench_now() - t0) * 1e3;
  if (rc != CONVOY_OK) {
    snprintf(err, err_size, "stream: %s", convoy_last_error());
    return rc;
  }
  convoy_stream_describe(st, row->plan, sizeof row->plan);
  const int64_t capacity = g->frames + m - 1;
  int runs = g->s->runs;
  double *t = calloc((size_t)runs, sizeof *t);
  int64_t total = 0;
  if (!t) rc = CONVOY_ERR_OUT_OF_MEMORY;
  for (int r = -1; r < runs && rc == CONVOY_OK; r++) { /* run -1 warms up */
    convoy_stream_reset(st);
    total = 0;
    double a = bench_now();
    for (int64_t pos = 0; pos < g->frames && rc == CONVOY_OK; pos += g->call) {
      int64_t n = g->frames - pos < g->call ? g->frames - pos : g->call, got = 0;
      rc = convoy_stream_process_to(
          st, g->fmt, (const unsigned char *)g->h_in + (size_t)(pos * g->channels) * g->width, n,
          out + (size_t)total * out_fb, capacity - total, &got);
      total += got;
    }
    int64_t got = 0;
    if (rc == CONVOY_OK)
      rc = convoy_stream_flush_to(st, out + (size_t)total * out_fb, capacity - total, &got);
    total += got;
    double dt = bench_now() - a;
    if (r < 0 && dt * runs > g->s->limit_s) {
      row->skipped = 1;
      row->estimate_s = dt;
      break;
    }
    if (r >= 0) t[r] = dt;
  }
  if (rc != CONVOY_OK)
    snprintf(err, err_size, "%s", convoy_stream_last_error(st));
  else if (!row->skipped && total != capacity) {
    snprintf(err, err_size, "%lld frames out, expected %lld", (long long)total,
             (long long)capacity);
    rc = CONVOY_ERR_INTERNAL;
  }
  if (rc == CONVOY_OK && !row->skipped)
    bench_stats(t, runs, &row->median_s, &row->min_s, &row->max_s);
  free(t);
  convoy_stream_destroy(st);
  return rc;
}

/* Device resident: d_in to d_out through convoy_cuda.h on one CUDA stream,
 * in calls of DEVICE_CALL_FRAMES frames, timed with events; interleaved, or
 * planar rows when g->planar. */
static convoy_status run_device(gpu_state *g, convoy_filter *filter, convoy_engine engine,
                                gpu_row *row, char *err, size_t err_size) {
  convoy_cuda_config cfg;
  convoy_cuda_config_init(&cfg);
  cfg.channels = g->channels;
  cfg.engine = engine;
  cfg.max_frames = g->frames < DEVICE_CALL_FRAMES ? g->frames : DEVICE_CALL_FRAMES;
  cfg.plan_effort = 1;
  cfg.fft_size = g->s->fft_size;
  convoy_cuda_conv *conv = NULL;
  double t0 = bench_now();
  convoy_status rc = convoy_cuda_conv_create(&conv, &cfg, &filter, 1);
  row->create_ms = (bench_now() - t0) * 1e3;
  if (rc != CONVOY_OK) {
    snprintf(err, err_size, "device convolver: %s", convoy_last_error());
    return rc;
  }
  convoy_cuda_conv_describe(conv, row->plan, sizeof row->plan);
  cudaStream_t cs = NULL;
  cudaEvent_t a = NULL, b = NULL;
  int runs = g->s->runs;
  double *t = calloc((size_t)runs, sizeof *t);
  cudaError_t ce = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  if (ce == cudaSuccess) ce = cudaEventCreate(&a);
  if (ce == cudaSuccess) ce = cudaEventCreate(&b);
  if (!t) rc = CONVOY_ERR_OUT_OF_MEMORY;
  for (int r = -1; r < runs && rc == CONVOY_OK && ce == cudaSuccess; r++) {
    rc = convoy_cuda_conv_reset(conv, cs);
    ce = cudaEventRecord(a, cs);
    for (int64_t pos = 0; pos < g->frames && rc == CONVOY_OK; pos += cfg.max_frames) {
      int64_t n = g->frames - pos < cfg.max_frames ? g->frames - pos : cfg.max_frames;
      if (g->planar)
        rc = convoy_cuda_conv_process_planar(conv, (const float *)g->d_in + pos, g->frames,
                                             g->d_out + pos, g->frames, n, cs);
      else
        rc = convoy_cuda_conv_process(
            conv, g->fmt, (const unsigned char *)g->d_in + (size_t)(pos * g->channels) * g->width,
            g->d_out + pos * g->channels, n, cs);
    }
    if (ce == cudaSuccess) ce = cudaEventRecord(b, cs);
    if (ce == cudaSuccess) ce = cudaEventSynchronize(b);
    float ms = 0;
    if (ce == cudaSuccess) ce = cudaEventElapsedTime(&ms, a, b);
    if (r < 0 && ms * 1e-3 * runs > g->s->limit_s) {
      row->skipped = 1;
      row->estimate_s = ms * 1e-3;
      break;
    }
    if (r >= 0) t[r] = ms * 1e-3;
  }
  if (rc != CONVOY_OK)
    snprintf(err, err_size, "%s", convoy_cuda_conv_last_error(conv));
  else if (ce != cudaSuccess) {
    snprintf(err, err_size, "CUDA: %s", cudaGetErrorString(ce));
    (void)cudaGetLastError();
    rc = CONVOY_ERR_BACKEND;
  }
  if (rc == CONVOY_OK && !row->skipped)
    bench_stats(t, runs, &row->median_s, &row->min_s, &row->max_s);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  if (cs) cudaStreamDestroy(cs);
  free(t);
  convoy_cuda_conv_destroy(conv);
  return rc;
}

static void print_title(const char *what, const char *limit) {
  printf("\n%s\n", what);
  printf("%7s  %-10s  %9s  %9s  %8s  %8s  %8s  %8s  %8s  %s\n", "taps", "engine", "create_ms", "ms",
         "GS/s", "min", "max", limit, "check", "plan");
  fflush(stdout);
}

/* Prints one row; returns 1 when it counts as a failure. */
static int print_row(int64_t m, convoy_engine e, convoy_status rc, const gpu_row *row,
                     int64_t samples, double limit_gsps, const char *err) {
  printf("%7lld  %-10s  ", (long long)m, convoy_engine_name(e));
  if (rc != CONVOY_OK) {
    printf("FAILED: %s\n", err);
    fflush(stdout);
    return 1;
  }
  if (row->skipped) {
    printf("%9.1f  skipped (estimated %.1f s per run)  %s\n", row->create_ms, row->estimate_s,
           row->plan);
    fflush(stdout);
    return 0;
  }
  double gs = (double)samples / row->median_s * 1e-9;
  int wrong = !(row->err <= BENCH_CHECK_LIMIT);
  printf("%9.1f  %9.2f  %8.2f  %8.2f  %8.2f  %7.1f%%  %8.1e  %s%s\n", row->create_ms,
         row->median_s * 1e3, gs, (double)samples / row->max_s * 1e-9,
         (double)samples / row->min_s * 1e-9, 100.0 * gs / limit_gsps, row->err,
         wrong ? "WRONG OUTPUT " : "", row->plan);
  fflush(stdout);
  return wrong;
}

int bench_gpu_run(const bench_settings *s, int64_t gpu_frames, convoy_sample_format fmt,
                  int chunk_set) {
  int64_t max_taps = 0;
  for (int i = 0; i < s->n_taps; i++)
    if (s->taps[i] > max_taps) max_taps = s->taps[i];
  gpu_state g;
  float *taps = malloc(sizeof(float) * (size_t)max_taps);
  if (!taps || gpu_state_init(&g, s, gpu_frames, fmt, chunk_set, max_taps) != 0) {
    if (!taps)
      fprintf(stderr, "convoy bench: out of memory\n");
    else
      gpu_state_free(&g);
    free(taps);
    return 1;
  }
  int failures = 0;
  const double width = (double)g.width;
  /* Host to host moves each sample in the input's width both ways. */
  const double bus_limit = (g.bus.bi_h2d + g.bus.bi_d2h) / (2.0 * width);
  char err[BENCH_MESSAGE];
  /* Passes: device resident interleaved, device resident planar (several
   * float32 channels only), host to host. */
  for (int pass = 0; pass < 3; pass++) {
    g.planar = pass == 1;
    if (pass == 1 && (g.channels == 1 || fmt != CONVOY_FORMAT_F32)) continue;
    if (pass == 0) {
      print_title("GPU device resident (convoy_cuda_conv_process, buffers in GPU memory; "
                  "copy = D2D copy rate at 8 bytes a sample)",
                  "copy");
    } else if (pass == 1) {
      print_title("GPU device resident, planar rows (convoy_cuda_conv_process_planar)", "copy");
    } else {
      printf("\nGPU host to host (convoy_stream_process_to from pinned buffers, %s in and out, "
             "calls of %lld frames, + flush;\nbus = both-ways pinned bandwidth over %.0f bytes a "
             "sample = %.2f GS/s)",
             format_name(fmt), (long long)g.call, 2.0 * width, bus_limit);
      print_title("", "bus");
    }
    for (int i = 0; i < s->n_taps; i++) {
      int64_t m = s->taps[i];
      bench_lowpass_taps(taps, m);
      convoy_filter *filter = NULL;
      if (convoy_filter_create(&filter, taps, m) != CONVOY_OK) {
        fprintf(stderr, "convoy bench: %lld taps: %s\n", (long long)m, convoy_last_error());
        failures++;
        continue;
      }
      for (int e = 0; e < s->n_engines; e++) {
        if (!bench_gpu_handles(s->engines[e])) continue;
        gpu_row row;
        memset(&row, 0, sizeof row);
        err[0] = '\0';
        convoy_status rc;
        if (pass < 2) {
          rc = run_device(&g, filter, s->engines[e], &row, err, sizeof err);
          if (rc == CONVOY_OK && !row.skipped) {
            cudaError_t ce = cudaMemcpy(g.h_out, g.d_out, (size_t)g.samples * sizeof(float),
                                        cudaMemcpyDeviceToHost);
            row.err = ce == cudaSuccess
                          ? spot_check(&g, taps, m, g.h_out, CONVOY_FORMAT_F32, g.frames)
                          : NAN;
          }
        } else {
          rc = run_stream(&g, filter, m, s->engines[e], &row, err, sizeof err);
          if (rc == CONVOY_OK && !row.skipped)
            row.err = spot_check(&g, taps, m, g.h_out, g.fmt, g.frames + m - 1);
        }
        failures += print_row(m, s->engines[e], rc, &row, g.samples,
                              pass < 2 ? g.copy_gsps : bus_limit, err);
      }
      convoy_filter_destroy(filter);
    }
  }
  gpu_state_free(&g);
  free(taps);
  return failures;
}

#else /* no CUDA: the GPU section never runs */

int bench_gpu_handles(convoy_engine engine) {
  (void)engine;
  return 0;
}

int bench_gpu_run(const bench_settings *s, int64_t gpu_frames, convoy_sample_format fmt,
                  int chunk_set) {
  (void)s;
  (void)gpu_frames;
  (void)fmt;
  (void)chunk_set;
  return 0;
}

#endif
