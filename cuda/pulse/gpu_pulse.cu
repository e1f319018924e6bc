/*
 * gpu_pulse.cu - the GPU pulse compressor (gpu_pulse.h): the object, the
 * plan choice, the whole-pulse cuFFT path and the host-to-host run.
 *
 * Host runs cut the batch into parts (whole rows of the layout: pulses, or
 * with the interleaved layout every channel's pulse p) and pipeline them over
 * three streams: part k's upload, part k - 1's compute and part k - 2's
 * download run at once, so the two bus directions and the kernels overlap
 * and a pinned batch costs about its larger direction's transfer. Pageable
 * buffers are staged through pinned ones part by part (the host memcpy of
 * one part overlaps the transfers of the others). The whole-pulse plan,
 * whose FFT buffer and plans serve the batch, runs as one part.
 */
#include "gpu_conv_fft_paths.cuh"
#include "gpu_conv_internal.cuh"
#include "gpu_pulse_internal.cuh"
#include "gpu_util.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* The whole-pulse path's FFT buffer holds at most this much; bigger batches
 * run in groups of pulses. */
constexpr size_t kWorkBytes = (size_t)1 << 30;
/* Host runs: at most this many parts, each of at least kPartBytes of input
 * (fewer, larger parts for small batches, where launch costs dominate). */
constexpr int kMaxParts = 16;
constexpr size_t kPartBytes = (size_t)2 << 20;

__global__ void pad_kernel(const float2 *in, float2 *work, gpu_pulse_index ix, int64_t t0,
                           int64_t pulse_len, int64_t n, int64_t total) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < total;
       k += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = k / n, i = k - b * n;
    work[k] =
        i < pulse_len ? in[ix.base(t0 + b, pulse_len) + i * ix.stride()] : make_float2(0.f, 0.f);
  }
}

__global__ void multiply_kernel(float2 *work, const float2 *spec, int64_t n, int64_t total) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < total;
       k += (int64_t)gridDim.x * blockDim.x) {
    const float2 a = work[k], h = spec[k % n];
    work[k] = make_float2(a.x * h.x - a.y * h.y, a.x * h.y + a.y * h.x);
  }
}

__global__ void trim_kernel(const float2 *work, float2 *out, gpu_pulse_index ix, int64_t t0,
                            int64_t out_len, int64_t out_start, int64_t n, int64_t total) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < total;
       k += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = k / out_len, i = k - b * out_len;
    out[ix.base(t0 + b, out_len) + i * ix.stride()] = work[b * n + out_start + i];
  }
}

__global__ void scale_kernel(float2 *x, int64_t n, float s) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
       k += (int64_t)gridDim.x * blockDim.x)
    x[k] = make_float2(x[k].x * s, x[k].y * s);
}

unsigned grid_for(int64_t total) {
  const int64_t blocks = (total + 255) / 256;
  return (unsigned)(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

} // namespace

struct gpu_pulse {
  pulse_geom g; /* h not kept */
  gpu_pulse_plan plan;
  gpu_pulse_index ix;
  cudaStream_t stream;           /* compute of host runs; setup */
  cudaStream_t upload, download; /* host runs' transfers */
  cudaEvent_t uploaded[kMaxParts], computed[kMaxParts], downloaded[kMaxParts];
  float2 *d_in, *d_out;
  float2 *h_in, *h_out; /* pinned staging, one batch each */
  /* whole */
  int64_t group; /* pulses per cuFFT batch */
  cufftHandle fft_group, fft_rest;
  bool have_group, have_rest;
  float2 *d_work, *d_spec;
  /* fused: one or two stages (gpu_pulse_internal.cuh), each with its
   * filter spectrum and twiddles */
  gpu_pulse_fused_plan fplan;
  int stages;
  gpu_pulse_stage stage[2];
  float2 *d_fspec[2], *d_ftw[2];
  gpu_pulse_fused_times fused_ms; /* timed candidates, 0 = not timed */
};

/* The fused kernel's arguments of stage i for the batch d_in -> d_out. */
static gpu_pulse_fused_args fused_args(const gpu_pulse *p, int i, const float2 *d_in,
                                       float2 *d_out) {
  gpu_pulse_fused_args a;
  a.in = d_in;
  a.out = d_out;
  a.spec = p->d_fspec[i];
  a.tw = p->d_ftw[i];
  a.ix = p->ix;
  a.pulse_len = p->g.pulse_len;
  a.out_len = p->g.out_len;
  a.out_start = p->g.out_start;
  a.taps = p->g.template_len;
  a.segments = p->stage[i].segments;
  a.valid = p->stage[i].valid;
  a.out_first = p->stage[i].out_first;
  return a;
}

/* Spectrum of the zero-padded matched filter (T taps at d_h) at n points,
 * times 1/n, into d_spec (n values). */
static convoy_status filter_spectrum(const float2 *d_h, int64_t taps, int64_t n, float2 *d_spec,
                                     cudaStream_t s, char *err, size_t err_size) {
  GP_CUDA(cudaMemsetAsync(d_spec, 0, sizeof(float2) * (size_t)n, s), "pulse: spectrum");
  GP_CUDA(cudaMemcpyAsync(d_spec, d_h, sizeof(float2) * (size_t)taps, cudaMemcpyDeviceToDevice, s),
          "pulse: spectrum");
  cufftHandle plan;
  GP_CUFFT(cufftPlan1d(&plan, (int)n, CUFFT_C2C, 1), "pulse: template FFT plan");
  cufftResult r = cufftSetStream(plan, s);
  if (r == CUFFT_SUCCESS) r = cufftExecC2C(plan, d_spec, d_spec, CUFFT_FORWARD);
  cufftDestroy(plan);
  if (r != CUFFT_SUCCESS) return gp_cufft_fail(r, "pulse: template FFT", err, err_size);
  scale_kernel<<<grid_for(n), 256, 0, s>>>(d_spec, n, (float)(1.0 / (double)n));
  GP_LAUNCHED("pulse: spectrum scale");
  return CONVOY_OK;
}

static convoy_status plan_whole(gpu_pulse *p, char *err, size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t n = g->fft_size, pulses = pulse_count(g);
  if (n > INT32_MAX)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "pulse: FFT length %lld too long for cuFFT", (long long)n);
  int64_t group = (int64_t)(kWorkBytes / (sizeof(float2) * (size_t)n));
  if (group < 1) group = 1;
  if (group > pulses) group = pulses;
  p->group = group;
  GP_CUDA(cudaMalloc((void **)&p->d_work, sizeof(float2) * (size_t)(group * n)),
          "pulse: FFT buffer");
  GP_CUDA(cudaMalloc((void **)&p->d_spec, sizeof(float2) * (size_t)n), "pulse: spectrum buffer");
  int dims[1] = {(int)n};
  GP_CUFFT(cufftPlanMany(&p->fft_group, 1, dims, NULL, 1, (int)n, NULL, 1, (int)n, CUFFT_C2C,
                         (int)group),
           "pulse: batched FFT plan");
  p->have_group = true;
  const int64_t rest = pulses % group;
  if (rest) {
    GP_CUFFT(cufftPlanMany(&p->fft_rest, 1, dims, NULL, 1, (int)n, NULL, 1, (int)n, CUFFT_C2C,
                           (int)rest),
             "pulse: batched FFT plan");
    p->have_rest = true;
  }
  return CONVOY_OK;
}

/* Stage 0's spectrum and twiddle buffers are sized for the largest M, so
 * that every candidate can be timed on them before the chosen plan is
 * filled in. */
static convoy_status plan_fused(gpu_pulse *p, gpu_pulse_plan want, char *err, size_t err_size) {
  const pulse_geom *g = &p->g;
  const size_t most = (size_t)1 << GPU_PULSE_FUSED_MAX_LOG2;
  GP_CUDA(cudaMalloc((void **)&p->d_fspec[0], sizeof(float2) * most), "pulse: spectrum buffer");
  GP_CUDA(cudaMalloc((void **)&p->d_ftw[0], sizeof(float2) * most), "pulse: twiddle table");
  GP_CUDA(cudaMemsetAsync(p->d_fspec[0], 0, sizeof(float2) * most, p->stream), "pulse: timing");
  GP_CUDA(cudaMemsetAsync(p->d_ftw[0], 0, sizeof(float2) * most, p->stream), "pulse: timing");
  GP_CUDA(cudaMemsetAsync(p->d_in, 0, sizeof(float2) * (size_t)(pulse_count(g) * g->pulse_len),
                          p->stream),
          "pulse: timing");
  convoy_status st = gpu_pulse_fused_choose(g, want, fused_args(p, 0, p->d_in, p->d_out), p->stream,
                                            &p->fplan, p->fused_ms, err, err_size);
  if (st != CONVOY_OK) return st;
  /* the memsets above must not land on the twiddles copied below */
  GP_CUDA(cudaStreamSynchronize(p->stream), "pulse: timing");
  p->stages = gpu_pulse_stages(g, p->fplan, p->stage);
  if (p->stages == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_BACKEND, "pulse: no fused plan fits");
  for (int i = 0; i < p->stages; i++) {
    const int log2m = p->stage[i].log2m;
    if (i > 0) {
      const size_t m = (size_t)1 << log2m;
      GP_CUDA(cudaMalloc((void **)&p->d_fspec[i], sizeof(float2) * m), "pulse: spectrum buffer");
      GP_CUDA(cudaMalloc((void **)&p->d_ftw[i], sizeof(float2) * m), "pulse: twiddle table");
    }
    GP_CUDA(gpu_pulse_fused_prepare(log2m), "pulse: fused kernel shared memory");
    /* W_2M^i, i < M = 2^log2m */
    const int64_t m = (int64_t)1 << log2m;
    if ((st = gc_twiddle_fill(2 * m, m, 1, p->d_ftw[i], err, err_size)) != CONVOY_OK) return st;
  }
  return CONVOY_OK;
}

void gpu_pulse_destroy(gpu_pulse *p) {
  if (!p) return;
  gp_device_guard guard;
  char err[8];
  (void)guard.enter(p->g.device, err, sizeof err);
  if (p->stream) cudaStreamSynchronize(p->stream);
  if (p->upload) cudaStreamSynchronize(p->upload);
  if (p->download) cudaStreamSynchronize(p->download);
  if (p->have_group) cufftDestroy(p->fft_group);
  if (p->have_rest) cufftDestroy(p->fft_rest);
  for (int i = 0; i < kMaxParts; i++) {
    if (p->uploaded[i]) cudaEventDestroy(p->uploaded[i]);
    if (p->computed[i]) cudaEventDestroy(p->computed[i]);
    if (p->downloaded[i]) cudaEventDestroy(p->downloaded[i]);
  }
  cudaFree(p->d_in);
  cudaFree(p->d_out);
  cudaFree(p->d_work);
  cudaFree(p->d_spec);
  for (int i = 0; i < 2; i++) {
    cudaFree(p->d_fspec[i]);
    cudaFree(p->d_ftw[i]);
  }
  cudaFreeHost(p->h_in);
  cudaFreeHost(p->h_out);
  if (p->stream) cudaStreamDestroy(p->stream);
  if (p->upload) cudaStreamDestroy(p->upload);
  if (p->download) cudaStreamDestroy(p->download);
  (void)cudaGetLastError();
  free(p);
}

static convoy_status create_on_device(gpu_pulse *p, gpu_pulse_plan want, char *err,
                                      size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t pulses = pulse_count(g);
  const size_t in_bytes = sizeof(float2) * (size_t)(pulses * g->pulse_len);
  const size_t out_bytes = sizeof(float2) * (size_t)(pulses * g->out_len);
  GP_CUDA(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking), "pulse: stream");
  GP_CUDA(cudaMalloc((void **)&p->d_in, in_bytes), "pulse: device input buffer");
  GP_CUDA(cudaMalloc((void **)&p->d_out, out_bytes), "pulse: device output buffer");
  GP_CUDA(cudaHostAlloc((void **)&p->h_in, in_bytes, cudaHostAllocDefault), "pulse: pinned input");
  GP_CUDA(cudaHostAlloc((void **)&p->h_out, out_bytes, cudaHostAllocDefault),
          "pulse: pinned output");
  GP_CUDA(cudaStreamCreateWithFlags(&p->upload, cudaStreamNonBlocking), "pulse: stream");
  GP_CUDA(cudaStreamCreateWithFlags(&p->download, cudaStreamNonBlocking), "pulse: stream");
  for (int i = 0; i < kMaxParts; i++) {
    GP_CUDA(cudaEventCreateWithFlags(&p->uploaded[i], cudaEventDisableTiming), "pulse: events");
    GP_CUDA(cudaEventCreateWithFlags(&p->computed[i], cudaEventDisableTiming), "pulse: events");
    GP_CUDA(cudaEventCreateWithFlags(&p->downloaded[i], cudaEventDisableTiming), "pulse: events");
  }

  const bool fused_forced = want == GPU_PULSE_FUSED || want == GPU_PULSE_FUSED_TAIL;
  const int log2m = gpu_pulse_fused_model(g, true).log2m;
  if (fused_forced && !log2m)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "pulse: no fused GPU plan for a template of %lld samples (at most "
                               "%d)",
                               (long long)g->template_len, (1 << (GPU_PULSE_FUSED_MAX_LOG2 - 1)));
  p->plan = (want == GPU_PULSE_WHOLE || !log2m) ? GPU_PULSE_WHOLE : GPU_PULSE_FUSED;
  convoy_status st = p->plan == GPU_PULSE_WHOLE ? plan_whole(p, err, err_size)
                                                : plan_fused(p, want, err, err_size);
  if (st != CONVOY_OK) return st;

  float2 *d_h = NULL;
  const size_t h_bytes = sizeof(float2) * (size_t)g->template_len;
  GP_CUDA(cudaMalloc((void **)&d_h, h_bytes), "pulse: template upload");
  cudaError_t e = cudaMemcpy(d_h, g->h, h_bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    if (p->plan == GPU_PULSE_WHOLE)
      st = filter_spectrum(d_h, g->template_len, g->fft_size, p->d_spec, p->stream, err, err_size);
    for (int i = 0; p->plan == GPU_PULSE_FUSED && i < p->stages && st == CONVOY_OK; i++)
      st = filter_spectrum(d_h, g->template_len, (int64_t)1 << p->stage[i].log2m, p->d_fspec[i],
                           p->stream, err, err_size);
    e = cudaStreamSynchronize(p->stream);
  }
  cudaFree(d_h);
  if (st != CONVOY_OK) return st;
  GP_CUDA(e, "pulse: template spectrum");
  return CONVOY_OK;
}

convoy_status gpu_pulse_create(const pulse_geom *g, gpu_pulse_plan plan, gpu_pulse **out, char *err,
                               size_t err_size) {
  *out = NULL;
  gpu_pulse *p = (gpu_pulse *)calloc(1, sizeof *p);
  if (!p)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "pulse: out of host memory");
  p->g = *g;
  p->ix.pulses = g->pulses;
  p->ix.channels = g->channels;
  p->ix.interleaved = g->layout == CONVOY_PULSE_INTERLEAVED;
  convoy_status st;
  {
    gp_device_guard guard;
    st = guard.enter(g->device, err, err_size);
    if (st == CONVOY_OK) st = create_on_device(p, plan, err, err_size);
  }
  p->g.h = NULL;
  if (st != CONVOY_OK) {
    gpu_pulse_destroy(p);
    return st;
  }
  *out = p;
  return CONVOY_OK;
}

/* Enqueues the fused plan on the pulses that ix describes at d_in -> d_out
 * (the whole batch, or a part of it: its rows, from their first) on s. */
static convoy_status enqueue_fused(gpu_pulse *p, const float2 *d_in, float2 *d_out,
                                   gpu_pulse_index ix, cudaStream_t s, char *err, size_t err_size) {
  for (int i = 0; i < p->stages; i++) {
    gpu_pulse_fused_args a = fused_args(p, i, d_in, d_out);
    a.ix = ix;
    GP_CUDA(
        gpu_pulse_fused_launch(p->stage[i].log2m, a, (int64_t)ix.pulses * ix.channels, i > 0, s),
        "pulse: fused kernel");
  }
  return CONVOY_OK;
}

/* Enqueues the batch at d_in -> d_out on s. */
static convoy_status enqueue(gpu_pulse *p, const float2 *d_in, float2 *d_out, cudaStream_t s,
                             char *err, size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t pulses = pulse_count(g);
  if (p->plan == GPU_PULSE_FUSED) return enqueue_fused(p, d_in, d_out, p->ix, s, err, err_size);
  const int64_t n = g->fft_size;
  for (int64_t t0 = 0; t0 < pulses; t0 += p->group) {
    const int64_t nb = pulses - t0 < p->group ? pulses - t0 : p->group;
    const cufftHandle plan = nb == p->group ? p->fft_group : p->fft_rest;
    const int64_t total = nb * n, total_out = nb * g->out_len;
    pad_kernel<<<grid_for(total), 256, 0, s>>>(d_in, p->d_work, p->ix, t0, g->pulse_len, n, total);
    GP_LAUNCHED("pulse: pad kernel");
    GP_CUFFT(cufftSetStream(plan, s), "pulse: cuFFT stream");
    GP_CUFFT(cufftExecC2C(plan, p->d_work, p->d_work, CUFFT_FORWARD), "pulse: forward FFT");
    multiply_kernel<<<grid_for(total), 256, 0, s>>>(p->d_work, p->d_spec, n, total);
    GP_LAUNCHED("pulse: multiply kernel");
    GP_CUFFT(cufftExecC2C(plan, p->d_work, p->d_work, CUFFT_INVERSE), "pulse: inverse FFT");
    trim_kernel<<<grid_for(total_out), 256, 0, s>>>(p->d_work, d_out, p->ix, t0, g->out_len,
                                                    g->out_start, n, total_out);
    GP_LAUNCHED("pulse: trim kernel");
  }
  return CONVOY_OK;
}

convoy_status gpu_pulse_run_device(gpu_pulse *p, const void *d_in, void *d_out, void *stream,
                                   char *err, size_t err_size) {
  gp_device_guard guard;
  convoy_status st = guard.enter(p->g.device, err, err_size);
  if (st != CONVOY_OK) return st;
  return enqueue(p, (const float2 *)d_in, (float2 *)d_out, (cudaStream_t)stream, err, err_size);
}

static bool is_pinned(const void *ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

/* Rows of the layout: the units a part holds whole, each contiguous in
 * memory (a pulse; with the interleaved layout, pulse p of every channel). */
static int64_t layout_rows(const gpu_pulse *p) {
  return p->ix.interleaved ? p->ix.pulses : (int64_t)p->ix.pulses * p->ix.channels;
}

/* The index of rows [r0, r0 + n) seen from their first. */
static gpu_pulse_index part_index(const gpu_pulse *p, int64_t n) {
  gpu_pulse_index ix = p->ix;
  ix.pulses = (int32_t)n;
  if (!ix.interleaved) ix.channels = 1;
  return ix;
}

/* Waits for everything a host run may have enqueued (after a failure). */
static void drain(gpu_pulse *p) {
  (void)cudaStreamSynchronize(p->upload);
  (void)cudaStreamSynchronize(p->stream);
  (void)cudaStreamSynchronize(p->download);
  (void)cudaGetLastError();
}

static convoy_status pipeline_host(gpu_pulse *p, const float *in, float *out, char *err,
                                   size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t rows = layout_rows(p);
  const int64_t row_in = pulse_count(g) * g->pulse_len / rows; /* complex values */
  const int64_t row_out = pulse_count(g) * g->out_len / rows;
  const size_t in_bytes = sizeof(float2) * (size_t)(rows * row_in);
  int64_t parts = (int64_t)(in_bytes / kPartBytes);
  if (parts > kMaxParts) parts = kMaxParts;
  if (parts > rows) parts = rows;
  if (parts < 1 || p->plan != GPU_PULSE_FUSED) parts = 1;
  const bool pinned_in = is_pinned(in), pinned_out = is_pinned(out);
  for (int64_t k = 0; k < parts; k++) {
    const int64_t r0 = rows * k / parts, n = rows * (k + 1) / parts - r0;
    const size_t at_in = sizeof(float2) * (size_t)(r0 * row_in);
    const size_t len_in = sizeof(float2) * (size_t)(n * row_in);
    const size_t at_out = sizeof(float2) * (size_t)(r0 * row_out);
    const size_t len_out = sizeof(float2) * (size_t)(n * row_out);
    const char *src = (const char *)in + at_in;
    if (!pinned_in) {
      memcpy((char *)p->h_in + at_in, src, len_in);
      src = (const char *)p->h_in + at_in;
    }
    GP_CUDA(
        cudaMemcpyAsync((char *)p->d_in + at_in, src, len_in, cudaMemcpyHostToDevice, p->upload),
        "pulse: upload");
    GP_CUDA(cudaEventRecord(p->uploaded[k], p->upload), "pulse: event");
    GP_CUDA(cudaStreamWaitEvent(p->stream, p->uploaded[k], 0), "pulse: event");
    float2 *d_in = (float2 *)((char *)p->d_in + at_in);
    float2 *d_out = (float2 *)((char *)p->d_out + at_out);
    convoy_status st =
        parts == 1 ? enqueue(p, p->d_in, p->d_out, p->stream, err, err_size)
                   : enqueue_fused(p, d_in, d_out, part_index(p, n), p->stream, err, err_size);
    if (st != CONVOY_OK) return st;
    GP_CUDA(cudaEventRecord(p->computed[k], p->stream), "pulse: event");
    GP_CUDA(cudaStreamWaitEvent(p->download, p->computed[k], 0), "pulse: event");
    char *dst = pinned_out ? (char *)out + at_out : (char *)p->h_out + at_out;
    GP_CUDA(cudaMemcpyAsync(dst, (char *)p->d_out + at_out, len_out, cudaMemcpyDeviceToHost,
                            p->download),
            "pulse: download");
    GP_CUDA(cudaEventRecord(p->downloaded[k], p->download), "pulse: event");
  }
  for (int64_t k = 0; k < parts; k++) {
    GP_CUDA(cudaEventSynchronize(p->downloaded[k]), "pulse: run");
    if (pinned_out) continue;
    const int64_t r0 = rows * k / parts, n = rows * (k + 1) / parts - r0;
    const size_t at_out = sizeof(float2) * (size_t)(r0 * row_out);
    memcpy((char *)out + at_out, (char *)p->h_out + at_out, sizeof(float2) * (size_t)(n * row_out));
  }
  return CONVOY_OK;
}

convoy_status gpu_pulse_run_host(gpu_pulse *p, const float *in, float *out, char *err,
                                 size_t err_size) {
  gp_device_guard guard;
  convoy_status st = guard.enter(p->g.device, err, err_size);
  if (st != CONVOY_OK) return st;
  st = pipeline_host(p, in, out, err, err_size);
  if (st != CONVOY_OK) drain(p);
  return st;
}

/* " M=a" or " M=a+b" (main and tail sizes) at buf + n; returns the new n. */
static int describe_plan(char *buf, size_t size, int n, gpu_pulse_fused_plan f) {
  if (n < 0 || (size_t)n >= size) return n;
  if (f.tail_log2m)
    return n + snprintf(buf + n, size - (size_t)n, " M=%d+%d", 1 << f.log2m, 1 << f.tail_log2m);
  return n + snprintf(buf + n, size - (size_t)n, " M=%d", 1 << f.log2m);
}

void gpu_pulse_describe(const gpu_pulse *p, char *buf, size_t buf_size) {
  if (p->plan != GPU_PULSE_FUSED) {
    snprintf(buf, buf_size, "GPU %d cuFFT N=%lld, %lld pulses per batch", (int)p->g.device,
             (long long)p->g.fft_size, (long long)p->group);
    return;
  }
  int n = snprintf(buf, buf_size, "GPU %d fused overlap-save", (int)p->g.device);
  n = describe_plan(buf, buf_size, n, p->fplan);
  for (int i = 0; i < p->stages && n > 0 && (size_t)n < buf_size; i++)
    n += snprintf(buf + n, buf_size - (size_t)n, "%s %lld segments of %lld", i ? " +" : ",",
                  (long long)p->stage[i].segments, (long long)p->stage[i].valid);
  if (n > 0 && (size_t)n < buf_size) n += snprintf(buf + n, buf_size - (size_t)n, " per pulse");
  const char *sep = " (timed:";
  for (int k = 0; k < GPU_PULSE_FUSED_SIZES; k++)
    for (int t = 0; t <= GPU_PULSE_FUSED_SIZES; t++) {
      if (p->fused_ms[k][t] <= 0 || n < 0 || (size_t)n >= buf_size) continue;
      n += snprintf(buf + n, buf_size - (size_t)n, "%s", sep);
      const gpu_pulse_fused_plan f = {k + GPU_PULSE_FUSED_MIN_LOG2,
                                      t ? t - 1 + GPU_PULSE_FUSED_MIN_LOG2 : 0};
      n = describe_plan(buf, buf_size, n, f);
      if (n > 0 && (size_t)n < buf_size)
        n += snprintf(buf + n, buf_size - (size_t)n, " %.3f ms", (double)p->fused_ms[k][t]);
      sep = ",";
    }
  if (*sep == ',' && n > 0 && (size_t)n < buf_size)
    snprintf(buf + n, buf_size - (size_t)n, ")");
  else if (n > 0 && (size_t)n < buf_size)
    snprintf(buf + n, buf_size - (size_t)n, " (model)");
}

/* ------------------------------------------------------------- the backend */

namespace {

convoy_status backend_create(const pulse_geom *g, int plan, void **impl, char *err,
                             size_t err_size) {
  gpu_pulse *p = nullptr;
  convoy_status st = gpu_pulse_create(g, (gpu_pulse_plan)plan, &p, err, err_size);
  *impl = p;
  return st;
}

convoy_status backend_run_host(void *impl, const float *in, float *out, char *err,
                               size_t err_size) {
  return gpu_pulse_run_host(static_cast<gpu_pulse *>(impl), in, out, err, err_size);
}

convoy_status backend_run_device(void *impl, const void *d_in, void *d_out, void *stream, char *err,
                                 size_t err_size) {
  return gpu_pulse_run_device(static_cast<gpu_pulse *>(impl), d_in, d_out, stream, err, err_size);
}

void backend_describe(const void *impl, char *buf, size_t buf_size) {
  gpu_pulse_describe(static_cast<const gpu_pulse *>(impl), buf, buf_size);
}

void backend_destroy(void *impl) {
  gpu_pulse_destroy(static_cast<gpu_pulse *>(impl));
}

const pulse_backend_ops backend_ops = {backend_create, backend_run_host, backend_run_device,
                                       backend_describe, backend_destroy};

} // namespace

extern "C" const pulse_backend_ops *pulse_backend_gpu(void) {
  return gp_device_count() > 0 ? &backend_ops : nullptr;
}
