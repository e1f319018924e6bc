/*
 * gpu_conv.cu - the gpu_conv handle: argument checks, device selection,
 * distinct filters, and the choice between the direct and FFT engines.
 */
#include "gpu_conv_internal.cuh"
#include "gpu_device.cuh"
#include "gpu_plan_cache.cuh"
#include "gpu_util.cuh"

#include <new>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpu_conv {
  gpu_conv_kind kind;
  int32_t device;
  int32_t channels;
  int32_t lanes;
  int64_t taps_len;
  int64_t max_out;
  int64_t decimation; /* D >= 1 the AUTO choice assumed */
  int complex_taps;
  int real_as_complex; /* the FFT engine runs one complex channel's real filter as a complex
                          one (gpu_conv_config.complex_signal) */
  int tuned;           /* the kind was chosen by timing */
  gc_direct *direct;
  gc_fft *fft;
};

/* ------------------------------------------------------------- device */

convoy_status gc_device_query(int index, gc_device *dev, char *err, size_t err_size) {
  gp_device_facts f;
  GP_CUDA(gp_device_facts_of(index, &f), "cudaDeviceGetAttribute");
  dev->index = index;
  dev->sms = f.sms > 0 ? f.sms : 1;
  /* 128 fp32 lanes per multiprocessor from Volta on; the estimates only rank
   * engines against each other, timing decides where it is asked to. */
  dev->fma_per_s = (double)dev->sms * 128.0 * (f.clock_khz > 0 ? f.clock_khz : 1500000) * 1e3;
  double bw =
      2.0 * (f.mem_khz > 0 ? f.mem_khz : 2600000) * 1e3 * (f.bus_bits > 0 ? f.bus_bits : 5120) / 8;
  dev->bytes_per_s = bw;
  dev->l2_bytes = f.l2_bytes > 0 ? f.l2_bytes : (32 << 20);
  return CONVOY_OK;
}

/* ------------------------------------------------------------- timing */

__global__ void fill_pattern_kernel(float *p, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
  }
}

convoy_status gc_fill_pattern(float *p, int64_t n, cudaStream_t stream, char *err,
                              size_t err_size) {
  if (n <= 0) return CONVOY_OK;
  int64_t blocks = (n + 255) / 256;
  fill_pattern_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(p, n);
  GP_LAUNCHED("fill kernel");
  return CONVOY_OK;
}

double gc_time_best(gc_timed_fn fn, void *arg, int reps, char *err, size_t err_size) {
  cudaStream_t s = NULL;
  cudaEvent_t a = NULL, b = NULL;
  double best = -1.0;
  convoy_status st = CONVOY_OK;
  cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreate(&a);
  if (e == cudaSuccess) e = cudaEventCreate(&b);
  if (e != cudaSuccess) {
    gp_cuda_fail(e, "timing setup", err, err_size);
    goto done;
  }
  for (int i = 0; i <= reps; i++) {
    if ((e = cudaEventRecord(a, s)) != cudaSuccess) break;
    if ((st = fn(arg, s, err, err_size)) != CONVOY_OK) break;
    if ((e = cudaEventRecord(b, s)) != cudaSuccess) break;
    if ((e = cudaEventSynchronize(b)) != cudaSuccess) break;
    float ms = 0.0f;
    if ((e = cudaEventElapsedTime(&ms, a, b)) != cudaSuccess) break;
    if (i > 0 && (best < 0.0 || ms * 1e-3 < best)) best = ms * 1e-3; /* run 0 warms up */
  }
  if (e != cudaSuccess) gp_cuda_fail(e, "timing", err, err_size);
  if (e != cudaSuccess || st != CONVOY_OK) best = -1.0;
done:
  if (s) cudaStreamSynchronize(s);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  if (s) cudaStreamDestroy(s);
  return best;
}

/* ------------------------------------------------------------- choice cache */

/* Plans chosen by timing, per process, so that streams made again with the
 * same filter shape skip the timing. */
namespace {
struct choice {
  gpu_conv_kind wanted;
  int32_t device, channels, complex_taps, complex_signal, whole_granules, interleaved_runs;
  int64_t taps_len, max_out, decimation;
  gpu_conv_kind kind;
  int64_t fft_size;
};
gp_plan_cache<choice, 64> cache;

int64_t decimation_of(const gpu_conv_config *c) {
  return c->decimation > 1 ? c->decimation : 1;
}

bool cache_find(const gpu_conv_config *c, int32_t device, choice *out) {
  return cache.find(
      [&](const choice &k) {
        return k.wanted == c->kind && k.device == device && k.channels == c->channels &&
               k.complex_taps == (c->complex_taps != 0) &&
               k.complex_signal == (c->complex_signal != 0) &&
               k.whole_granules == (c->whole_granules != 0) &&
               k.interleaved_runs == (c->interleaved_runs != 0) && k.taps_len == c->taps_len &&
               k.max_out == c->max_out && k.decimation == decimation_of(c);
      },
      out);
}

} // namespace

/* ------------------------------------------------------------- handle */

extern "C" void gpu_conv_config_init(gpu_conv_config *config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  config->channels = 1;
  config->kind = GPU_CONV_AUTO;
  config->device = -1;
  config->lanes = 1;
}

static void filters_free(gc_filters *f) {
  free(f->of_channel);
  free(f->taps);
  free(f->taps_im);
  f->of_channel = NULL;
  f->taps = NULL;
  f->taps_im = NULL;
}

static bool same_row(const float *a, const float *b, size_t bytes) {
  return a == b || memcmp(a, b, bytes) == 0;
}

/* Groups channels whose taps are equal (the same pointer or the same values);
 * complex filters by their (real, imaginary) pairs. */
static convoy_status filters_make(const gpu_conv_config *cfg, gc_filters *f, char *err,
                                  size_t err_size) {
  const bool cx = cfg->complex_taps != 0;
  const int32_t n = cx ? cfg->channels / 2 : cfg->channels;
  f->count = 0;
  f->taps_im = NULL;
  f->of_channel = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  f->taps = (const float **)malloc(sizeof(float *) * (size_t)n);
  if (cx) f->taps_im = (const float **)malloc(sizeof(float *) * (size_t)n);
  if (!f->of_channel || !f->taps || (cx && !f->taps_im)) {
    filters_free(f);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  }
  size_t bytes = sizeof(float) * (size_t)cfg->taps_len;
  for (int32_t c = 0; c < n; c++) {
    const float *t = cfg->taps[cx ? 2 * c : c];
    const float *ti = cx ? cfg->taps[2 * c + 1] : NULL;
    int32_t found = -1;
    for (int32_t i = 0; i < f->count && found < 0; i++)
      if (same_row(f->taps[i], t, bytes) && (!cx || same_row(f->taps_im[i], ti, bytes))) found = i;
    if (found < 0) {
      found = f->count++;
      f->taps[found] = t;
      if (cx) f->taps_im[found] = ti;
    }
    f->of_channel[c] = found;
  }
  return CONVOY_OK;
}

static convoy_status check_config(const gpu_conv_config *c, char *err, size_t err_size) {
  if (!c)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: config is NULL");
  if (c->channels < 1 || c->channels > GPU_CONV_MAX_ROWS)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: %d channels (expected 1 .. %d)", (int)c->channels,
                               GPU_CONV_MAX_ROWS);
  if (c->taps_len < 1 || c->taps_len > ((int64_t)1 << 31))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: %lld taps (expected 1 .. 2^31)", (long long)c->taps_len);
  if (!c->taps)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: taps is NULL");
  for (int32_t i = 0; i < c->channels; i++)
    if (!c->taps[i])
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "gpu_conv: taps of channel %d is NULL", (int)i);
  if (c->max_out < 1 || c->max_out > ((int64_t)1 << 40))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: max_out %lld out of range (1 .. 2^40)",
                               (long long)c->max_out);
  if (c->kind != GPU_CONV_AUTO && c->kind != GPU_CONV_DIRECT && c->kind != GPU_CONV_FFT)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: unknown engine kind %d", (int)c->kind);
  if (c->lanes < 0 || c->lanes > 64)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: %d lanes (expected 0 .. 64)", (int)c->lanes);
  if (c->complex_taps != 0 && c->complex_taps != 1)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: complex_taps is %d (expected 0 or 1)",
                               (int)c->complex_taps);
  if (c->complex_taps && c->channels % 2 != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: complex filters need (real, imaginary) row pairs, but "
                               "channels is %d (odd)",
                               (int)c->channels);
  if (c->complex_signal != 0 && c->complex_signal != 1)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: complex_signal is %d (expected 0 or 1)",
                               (int)c->complex_signal);
  if (c->decimation < 0 || c->decimation > GPU_CONV_MAX_STEP)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: decimation %lld out of range (0 .. %d)",
                               (long long)c->decimation, GPU_CONV_MAX_STEP);
  if (c->kind == GPU_CONV_FFT && c->taps_len > GPU_CONV_FFT_MAX_TAPS)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: the FFT engine takes at most 2^25 taps, not %lld",
                               (long long)c->taps_len);
  return CONVOY_OK;
}

/* Timing workload for the AUTO choice: one engine over a synthetic signal
 * of every channel. */
struct auto_probe {
  gpu_conv *conv;
  const float *in;
  int64_t in_stride;
  float *out;
  int64_t n;
};

static convoy_status probe_run(void *arg, cudaStream_t s, char *err, size_t err_size) {
  auto_probe *p = (auto_probe *)arg;
  const int64_t d = p->conv->decimation;
  if (p->conv->kind == GPU_CONV_DIRECT && d > 1)
    return gc_direct_run_strided(p->conv->direct, p->in, p->in_stride, 0, d, p->out, p->n,
                                 (p->n + d - 1) / d, s, err, err_size);
  if (p->conv->kind == GPU_CONV_DIRECT)
    return gc_direct_run(p->conv->direct, p->in, p->in_stride, p->out, p->n, p->n, s, err,
                         err_size);
  return gc_fft_run(p->conv->fft, 0, p->in, p->in_stride, p->out, p->n, p->n, s, err, err_size);
}

/* Times both engines and keeps the faster per output; sets *pick. */
static convoy_status time_engines(gpu_conv *g, int64_t taps_len, int64_t max_out,
                                  gpu_conv_kind *pick, char *err, size_t err_size) {
  /* At most 2^24 outputs over all channels; the direct probe is also cut so
   * that it stays well under a second. */
  int64_t n_fft = ((int64_t)1 << 24) / g->channels;
  if (n_fft > max_out) n_fft = max_out;
  int64_t n_dir = n_fft;
  int64_t cap = ((int64_t)1 << 33) / (taps_len * g->channels);
  if (n_dir > cap) n_dir = cap > 4096 ? cap : 4096;
  if (n_dir > max_out) n_dir = max_out;
  int64_t n = n_fft > n_dir ? n_fft : n_dir;
  int64_t in_stride = n + taps_len - 1;
  float *in = NULL, *out = NULL;
  double t_dir = -1, t_fft = -1;
  convoy_status st = CONVOY_OK;
  cudaError_t e = cudaMalloc((void **)&in, sizeof(float) * (size_t)(in_stride * g->channels));
  if (e == cudaSuccess) e = cudaMalloc((void **)&out, sizeof(float) * (size_t)(n * g->channels));
  if (e != cudaSuccess) st = gp_cuda_fail(e, "gpu_conv: timing buffers", err, err_size);
  if (st == CONVOY_OK) st = gc_fill_pattern(in, in_stride * g->channels, 0, err, err_size);
  if (st == CONVOY_OK && (e = cudaStreamSynchronize(0)) != cudaSuccess)
    st = gp_cuda_fail(e, "gpu_conv: timing buffers", err, err_size);
  if (st == CONVOY_OK) {
    auto_probe p = {g, in, in_stride, out, n_dir};
    g->kind = GPU_CONV_DIRECT;
    t_dir = gc_time_best(probe_run, &p, 2, err, err_size);
    p.n = n_fft;
    g->kind = GPU_CONV_FFT;
    if (t_dir >= 0) t_fft = gc_time_best(probe_run, &p, 2, err, err_size);
    if (t_dir < 0 || t_fft < 0) st = CONVOY_ERR_BACKEND;
  }
  cudaFree(in);
  cudaFree(out);
  if (st != CONVOY_OK) return st;
  *pick = t_dir / (double)n_dir <= t_fft / (double)n_fft ? GPU_CONV_DIRECT : GPU_CONV_FFT;
  return CONVOY_OK;
}

/* Whether cfg is real filters on 1 or 2 complex channels whose frames the
 * caller runs (gpu_conv_config.complex_signal) and whose taps the complex
 * kernel on frames can take. Four complex channels stay on the kernel on 8
 * real rows, which shares each frame in a thread block cluster: on an H200
 * at 1024 taps (2^24-frame calls) it ran 159 GS/s, the complex kernel on
 * their frames 148 (one channel 216, two 195 against 163 on real rows). */
static bool real_filter_on_complex_frames(const gpu_conv_config *cfg) {
  if (!cfg->complex_signal || cfg->complex_taps || !cfg->interleaved_runs ||
      (cfg->channels != 2 && cfg->channels != 4) || decimation_of(cfg) != 1)
    return false;
  for (int32_t c = 0; c < cfg->channels; c += 2)
    if (!same_row(cfg->taps[c], cfg->taps[c + 1], sizeof(float) * (size_t)cfg->taps_len))
      return false;
  return gc_fft_complex_frames_possible(cfg) != 0;
}

/* The FFT engine: for real filters on 1 or 2 complex channels' frames, the
 * complex filters with a zero imaginary part where the fused kernel takes
 * those frames (*as_complex set), else cfg's real rows. */
static convoy_status fft_create(const gpu_conv_config *cfg, const gc_filters *filters,
                                const gc_device *dev, gc_fft **out, bool *as_complex, char *err,
                                size_t err_size) {
  *as_complex = false;
  *out = NULL;
  if (real_filter_on_complex_frames(cfg)) {
    float *zeros = (float *)calloc((size_t)cfg->taps_len, sizeof(float));
    if (!zeros)
      return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                                 "gpu_conv: out of host memory");
    const float *rows[4];
    for (int32_t c = 0; c < cfg->channels; c += 2) {
      rows[c] = cfg->taps[c];
      rows[c + 1] = zeros;
    }
    gpu_conv_config cx_cfg = *cfg;
    cx_cfg.complex_taps = 1;
    cx_cfg.taps = rows;
    gc_filters cx = {0, NULL, NULL, NULL};
    convoy_status st = filters_make(&cx_cfg, &cx, err, err_size);
    if (st == CONVOY_OK) st = gc_fft_create(&cx_cfg, &cx, dev, out, err, err_size);
    filters_free(&cx);
    free(zeros);
    if (st == CONVOY_OK && gc_fft_interleaved(*out)) {
      *as_complex = true;
      return CONVOY_OK;
    }
    gc_fft_destroy(*out);
    *out = NULL;
    if (st == CONVOY_ERR_OUT_OF_MEMORY) return st;
    (void)cudaGetLastError();
    if (err && err_size) err[0] = '\0';
  }
  return gc_fft_create(cfg, filters, dev, out, err, err_size);
}

static convoy_status create_on_device(const gpu_conv_config *cfg_in, int32_t device, gpu_conv *g,
                                      char *err, size_t err_size) {
  gpu_conv_config cfg = *cfg_in;
  gc_device dev;
  convoy_status st = gc_device_query(device, &dev, err, err_size);
  if (st != CONVOY_OK) return st;
  gc_filters filters = {0, NULL, NULL, NULL};
  if ((st = filters_make(&cfg, &filters, err, err_size)) != CONVOY_OK) return st;

  choice cached;
  bool have = cfg.plan_effort > 0 && cfg.fft_size == 0 && cache_find(&cfg, device, &cached);
  gpu_conv_kind kind = cfg.kind;
  bool time_both = false;
  if (have) {
    if (kind == GPU_CONV_AUTO) kind = cached.kind;
    if (kind == GPU_CONV_FFT && cached.fft_size > 0) {
      cfg.fft_size = cached.fft_size;
      cfg.plan_effort = 0; /* already timed */
    }
  } else if (kind == GPU_CONV_AUTO) {
    const double c_dir = gc_direct_model_cost(&dev, cfg.taps_len, cfg.complex_taps) *
                         gpu_conv_strided_cost_share(decimation_of(&cfg));
    double c_fft = gc_fft_model_cost(&dev, cfg.taps_len, cfg.max_out,
                                     cfg.complex_taps || real_filter_on_complex_frames(&cfg), 0);
    if (c_fft < 0) {
      kind = GPU_CONV_DIRECT;
    } else {
      kind = c_dir <= c_fft ? GPU_CONV_DIRECT : GPU_CONV_FFT;
      /* Time both when the model cannot tell them apart with confidence. */
      time_both = cfg.plan_effort > 0 && c_dir < 8 * c_fft && c_fft < 8 * c_dir;
    }
  }

  if (kind == GPU_CONV_DIRECT || time_both)
    st = gc_direct_create(&cfg, &filters, &dev, &g->direct, err, err_size);
  bool as_complex = false;
  if (st == CONVOY_OK && (kind == GPU_CONV_FFT || time_both))
    st = fft_create(&cfg, &filters, &dev, &g->fft, &as_complex, err, err_size);
  if (st == CONVOY_OK && time_both) {
    st = time_engines(g, cfg.taps_len, cfg.max_out, &kind, err, err_size);
    g->tuned = st == CONVOY_OK;
  }
  filters_free(&filters);
  if (st != CONVOY_OK) return st;
  if (kind == GPU_CONV_DIRECT && g->fft) {
    gc_fft_destroy(g->fft);
    g->fft = NULL;
  } else if (kind == GPU_CONV_FFT && g->direct) {
    gc_direct_destroy(g->direct);
    g->direct = NULL;
  }
  g->kind = kind;
  g->real_as_complex = kind == GPU_CONV_FFT && as_complex;
  /* Copies from pageable host memory and memsets on the legacy stream may
   * still be in flight; runs go to the caller's streams, which need not
   * wait for the legacy stream. */
  GP_CUDA(cudaDeviceSynchronize(), "gpu_conv: setup");
  if (cfg_in->plan_effort > 0 && cfg_in->fft_size == 0 && !have) {
    choice k = {cfg_in->kind,
                device,
                cfg.channels,
                cfg.complex_taps,
                cfg.complex_signal != 0,
                cfg.whole_granules != 0,
                cfg.interleaved_runs != 0,
                cfg.taps_len,
                cfg.max_out,
                decimation_of(&cfg),
                kind,
                kind == GPU_CONV_FFT ? gc_fft_size(g->fft) : 0};
    cache.add(k);
  }
  return CONVOY_OK;
}

extern "C" convoy_status gpu_conv_create(const gpu_conv_config *config, gpu_conv **conv, char *err,
                                         size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!conv)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: conv is NULL");
  *conv = NULL;
  convoy_status st = check_config(config, err, err_size);
  if (st != CONVOY_OK) return st;

  int count = 0;
  cudaError_t e = gp_device_count_query(&count);
  if (e != cudaSuccess) return gp_cuda_fail(e, "gpu_conv: no usable CUDA device", err, err_size);
  int32_t device = config->device;
  if (device < 0) GP_CUDA(cudaGetDevice(&device), "cudaGetDevice");
  if (device >= count)
    return convoy_error_format(err, err_size, CONVOY_ERR_NO_DEVICE,
                               "gpu_conv: no GPU %d (%d present)", (int)device, count);

  gp_device_guard guard;
  if ((st = guard.enter(device, err, err_size)) != CONVOY_OK) return st;

  gpu_conv *g = new (std::nothrow) gpu_conv();
  if (!g)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  g->device = device;
  g->channels = config->channels;
  g->lanes = config->lanes > 0 ? config->lanes : 1;
  g->taps_len = config->taps_len;
  g->max_out = config->max_out;
  g->complex_taps = config->complex_taps;
  g->decimation = decimation_of(config);
  st = create_on_device(config, device, g, err, err_size);
  if (st != CONVOY_OK) {
    gc_direct_destroy(g->direct);
    gc_fft_destroy(g->fft);
    delete g;
    return st;
  }
  *conv = g;
  return CONVOY_OK;
}

/* Whether n_a floats from a and n_b floats from b overlap. */
static bool floats_overlap(const float *a, int64_t n_a, const float *b, int64_t n_b) {
  return gp_bytes_overlap(a, sizeof(float) * (size_t)n_a, b, sizeof(float) * (size_t)n_b);
}

/* Whether the spans of conv's rows of input (n_in frames a row) and output
 * (n_out frames a row) overlap. */
static bool rows_overlap(const gpu_conv *conv, const float *d_in, int64_t in_stride, int64_t n_in,
                         const float *d_out, int64_t out_stride, int64_t n_out) {
  return floats_overlap(d_in, (conv->channels - 1) * in_stride + n_in, d_out,
                        (conv->channels - 1) * out_stride + n_out);
}

/* The checks every full-rate run makes: a handle, 0 <= n_out <= max_out, a
 * lane of the handle's. */
static convoy_status check_run(const gpu_conv *conv, int32_t lane, int64_t n_out, char *err,
                               size_t err_size) {
  if (!conv)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: conv is NULL");
  if (n_out < 0 || n_out > conv->max_out)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: n_out %lld out of range (0 .. max_out %lld)",
                               (long long)n_out, (long long)conv->max_out);
  if (lane < 0 || lane >= conv->lanes)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: lane %d out of range (0 .. %d)", (int)lane,
                               (int)conv->lanes - 1);
  return CONVOY_OK;
}

extern "C" convoy_status gpu_conv_run(gpu_conv *conv, int32_t lane, const float *d_in,
                                      int64_t in_stride, float *d_out, int64_t out_stride,
                                      int64_t n_out, void *cuda_stream, char *err,
                                      size_t err_size) {
  convoy_status st = check_run(conv, lane, n_out, err, err_size);
  if (st != CONVOY_OK || n_out == 0) return st;
  int64_t n_in = n_out + conv->taps_len - 1;
  if (!d_in || !d_out)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "gpu_conv: %s is NULL",
                               d_in ? "d_out" : "d_in");
  if (conv->channels > 1 && (in_stride < n_in || out_stride < n_out))
    return convoy_error_format(
        err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
        "gpu_conv: strides %lld/%lld too small for %lld outputs and %lld taps",
        (long long)in_stride, (long long)out_stride, (long long)n_out, (long long)conv->taps_len);
  if (rows_overlap(conv, d_in, in_stride, n_in, d_out, out_stride, n_out))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: input and output overlap (in-place is not supported)");

  gp_device_guard guard;
  st = guard.enter(conv->device, err, err_size);
  if (st != CONVOY_OK) return st;
  cudaStream_t s = (cudaStream_t)cuda_stream;
  if (conv->kind == GPU_CONV_DIRECT)
    return gc_direct_run(conv->direct, d_in, in_stride, d_out, out_stride, n_out, s, err, err_size);
  return gc_fft_run(conv->fft, lane, d_in, in_stride, d_out, out_stride, n_out, s, err, err_size);
}

extern "C" int gpu_conv_interleaved(const gpu_conv *conv) {
  if (!conv) return 0;
  return conv->kind == GPU_CONV_DIRECT ? gc_direct_interleaved(conv->direct)
                                       : gc_fft_interleaved(conv->fft);
}

extern "C" convoy_status gpu_conv_run_interleaved(gpu_conv *conv, int32_t lane, const float *d_in,
                                                  float *d_out, int64_t n_out, void *cuda_stream,
                                                  char *err, size_t err_size) {
  convoy_status st = check_run(conv, lane, n_out, err, err_size);
  if (st != CONVOY_OK) return st;
  if (!gpu_conv_interleaved(conv))
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no interleaved kernel for this engine, tap count "
                               "and channel count (see gpu_conv_interleaved)");
  if (n_out == 0) return CONVOY_OK;
  if (!d_in || !d_out)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "gpu_conv: %s is NULL",
                               d_in ? "d_out" : "d_in");
  const int64_t ch = conv->channels;
  if (floats_overlap(d_in, ch * (n_out + conv->taps_len - 1), d_out, ch * n_out))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: input and output overlap (in-place is not supported)");
  gp_device_guard guard;
  st = guard.enter(conv->device, err, err_size);
  if (st != CONVOY_OK) return st;
  if (conv->kind == GPU_CONV_FFT)
    return gc_fft_run_interleaved(conv->fft, d_in, d_out, n_out, (cudaStream_t)cuda_stream, err,
                                  err_size);
  return gc_direct_run_interleaved(conv->direct, d_in, d_out, n_out, (cudaStream_t)cuda_stream, err,
                                   err_size);
}

extern "C" int gpu_conv_strided(const gpu_conv *conv) {
  if (!conv) return 0;
  return conv->kind == GPU_CONV_DIRECT || gc_fft_fold(conv->fft) > 1;
}

extern "C" convoy_status gpu_conv_run_strided(gpu_conv *conv, int32_t lane, const float *d_in,
                                              int64_t in_stride, int64_t first, int64_t step,
                                              float *d_out, int64_t out_stride, int64_t count,
                                              void *cuda_stream, char *err, size_t err_size) {
  if (!conv)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: conv is NULL");
  const int64_t fold = conv->kind == GPU_CONV_FFT ? gc_fft_fold(conv->fft) : 1;
  if (conv->kind != GPU_CONV_DIRECT && fold < 2)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: strided runs need the direct engine or a folded FFT "
                               "plan");
  if (fold > 1 && (first != 0 || step != fold))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: the FFT plan is folded for outputs 0, %lld, %lld, ..., "
                               "not %lld + f x %lld",
                               (long long)fold, (long long)(2 * fold), (long long)first,
                               (long long)step);
  if (first < 0 || step < 1 || step > GPU_CONV_MAX_STEP || count < 0 ||
      (count > 0 && (count - 1 > (conv->max_out - 1 - first) / step || first >= conv->max_out)))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: strided outputs %lld + f x %lld, f < %lld, out of range "
                               "(step 1 .. %d, last output below max_out %lld)",
                               (long long)first, (long long)step, (long long)count,
                               GPU_CONV_MAX_STEP, (long long)conv->max_out);
  if (lane < 0 || lane >= conv->lanes)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: lane %d out of range (0 .. %d)", (int)lane,
                               (int)conv->lanes - 1);
  if (count == 0) return CONVOY_OK;
  /* A folded FFT plan reads whole segments (gc_fft_run_folded). */
  const int64_t g = fold > 1 ? gc_fft_granule(conv->fft) : 1;
  const int64_t spanned = (first + (count - 1) * step + 1 + g - 1) / g * g;
  const int64_t n_in = spanned + conv->taps_len - 1;
  if (!d_in || !d_out)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "gpu_conv: %s is NULL",
                               d_in ? "d_out" : "d_in");
  if (conv->channels > 1 && (in_stride < n_in || out_stride < count))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: strides %lld/%lld too small for %lld inputs and %lld "
                               "outputs",
                               (long long)in_stride, (long long)out_stride, (long long)n_in,
                               (long long)count);
  if (rows_overlap(conv, d_in, in_stride, n_in, d_out, out_stride, count))
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "gpu_conv: input and output overlap (in-place is not supported)");
  gp_device_guard guard;
  convoy_status st = guard.enter(conv->device, err, err_size);
  if (st != CONVOY_OK) return st;
  if (fold > 1)
    return gc_fft_run_folded(conv->fft, lane, d_in, in_stride, d_out, out_stride, count,
                             (cudaStream_t)cuda_stream, err, err_size);
  return gc_direct_run_strided(conv->direct, d_in, in_stride, first, step, d_out, out_stride, count,
                               (cudaStream_t)cuda_stream, err, err_size);
}

extern "C" void gpu_conv_destroy(gpu_conv *conv) {
  if (!conv) return;
  gp_device_guard guard;
  if (guard.enter(conv->device, NULL, 0) == CONVOY_OK) {
    gc_direct_destroy(conv->direct);
    gc_fft_destroy(conv->fft);
  }
  delete conv;
}

extern "C" gpu_conv_kind gpu_conv_kind_of(const gpu_conv *conv) {
  return conv ? conv->kind : GPU_CONV_AUTO;
}

extern "C" int64_t gpu_conv_granule(const gpu_conv *conv) {
  if (!conv) return 0;
  return conv->kind == GPU_CONV_FFT ? gc_fft_granule(conv->fft) : 1;
}

extern "C" int64_t gpu_conv_fft_size(const gpu_conv *conv) {
  return conv && conv->kind == GPU_CONV_FFT ? gc_fft_size(conv->fft) : 0;
}

extern "C" int32_t gpu_conv_device(const gpu_conv *conv) {
  return conv ? conv->device : -1;
}

extern "C" void gpu_conv_describe(const gpu_conv *conv, char *buf, size_t buf_size) {
  if (!buf || buf_size == 0) return;
  if (!conv) {
    snprintf(buf, buf_size, "(none)");
    return;
  }
  char detail[192];
  if (conv->kind == GPU_CONV_DIRECT)
    gc_direct_describe(conv->direct, detail, sizeof detail);
  else
    gc_fft_describe(conv->fft, detail, sizeof detail);
  const bool pairs = conv->complex_taps || conv->real_as_complex;
  const int32_t shown = pairs ? conv->channels / 2 : conv->channels;
  snprintf(buf, buf_size, "%s on GPU %d, %lld %staps, %d %schannel%s, %d lane%s%s", detail,
           (int)conv->device, (long long)conv->taps_len,
           conv->complex_taps      ? "complex "
           : conv->real_as_complex ? "real "
                                   : "",
           (int)shown, pairs ? "complex " : "", shown == 1 ? "" : "s", (int)conv->lanes,
           conv->lanes == 1 ? "" : "s", conv->tuned ? ", chosen by timing" : "");
}
