/*
 * gpu_pulse.cu - the GPU pulse compressor (gpu_pulse.h): the object, the
 * plan choice, the whole-pulse cuFFT path and the host-to-host run.
 *
 * Host runs stage through pinned buffers of one batch in slices of
 * kSliceBytes: the copy of slice k into pinned memory overlaps the
 * host-to-device transfer of slice k - 1 (and likewise on the way back), so
 * pageable buffers cost about one host memcpy. Pinned caller buffers are
 * transferred directly.
 */
#include "gpu_conv_internal.cuh"
#include "gpu_pulse_internal.cuh"
#include "gpu_util.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* The whole-pulse path's FFT buffer holds at most this much; bigger batches
 * run in groups of pulses. */
constexpr size_t kWorkBytes = (size_t)1 << 30;
constexpr size_t kSliceBytes = (size_t)8 << 20;

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
  cudaStream_t stream; /* host runs */
  float2 *d_in, *d_out;
  float2 *h_in, *h_out; /* pinned staging, one batch each */
  cudaEvent_t *slice_done;
  int64_t slices_max;
  /* whole */
  int64_t group; /* pulses per cuFFT batch */
  cufftHandle fft_group, fft_rest;
  bool have_group, have_rest;
  float2 *d_work, *d_spec;
  /* fused */
  int log2m;
  int64_t segments, valid;
  float2 *d_tw;
  float fused_ms[GPU_PULSE_FUSED_SIZES]; /* timed candidates, 0 = not timed */
};

/* The fused kernel's arguments for the batch d_in -> d_out. */
static gpu_pulse_fused_args fused_args(const gpu_pulse *p, const float2 *d_in, float2 *d_out) {
  gpu_pulse_fused_args a;
  a.in = d_in;
  a.out = d_out;
  a.spec = p->d_spec;
  a.tw = p->d_tw;
  a.ix = p->ix;
  a.pulse_len = p->g.pulse_len;
  a.out_len = p->g.out_len;
  a.out_start = p->g.out_start;
  a.taps = p->g.template_len;
  a.segments = p->segments;
  a.valid = p->valid;
  return a;
}

/* Spectrum of the zero-padded matched filter (T taps at d_h) at n points,
 * times 1/n, into d_spec (n values). */
static convoy_status filter_spectrum(const float2 *d_h, int64_t taps, int64_t n, float2 *d_spec,
                                     cudaStream_t s, char *err, size_t err_size) {
  GC_CUDA(cudaMemsetAsync(d_spec, 0, sizeof(float2) * (size_t)n, s), "pulse: spectrum");
  GC_CUDA(cudaMemcpyAsync(d_spec, d_h, sizeof(float2) * (size_t)taps, cudaMemcpyDeviceToDevice, s),
          "pulse: spectrum");
  cufftHandle plan;
  GC_CUFFT(cufftPlan1d(&plan, (int)n, CUFFT_C2C, 1), "pulse: template FFT plan");
  cufftResult r = cufftSetStream(plan, s);
  if (r == CUFFT_SUCCESS) r = cufftExecC2C(plan, d_spec, d_spec, CUFFT_FORWARD);
  cufftDestroy(plan);
  if (r != CUFFT_SUCCESS) return gc_cufft_fail(r, "pulse: template FFT", err, err_size);
  scale_kernel<<<grid_for(n), 256, 0, s>>>(d_spec, n, (float)(1.0 / (double)n));
  GC_LAUNCHED("pulse: spectrum scale");
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
  GC_CUDA(cudaMalloc((void **)&p->d_work, sizeof(float2) * (size_t)(group * n)),
          "pulse: FFT buffer");
  GC_CUDA(cudaMalloc((void **)&p->d_spec, sizeof(float2) * (size_t)n), "pulse: spectrum buffer");
  int dims[1] = {(int)n};
  GC_CUFFT(cufftPlanMany(&p->fft_group, 1, dims, NULL, 1, (int)n, NULL, 1, (int)n, CUFFT_C2C,
                         (int)group),
           "pulse: batched FFT plan");
  p->have_group = true;
  const int64_t rest = pulses % group;
  if (rest) {
    GC_CUFFT(cufftPlanMany(&p->fft_rest, 1, dims, NULL, 1, (int)n, NULL, 1, (int)n, CUFFT_C2C,
                           (int)rest),
             "pulse: batched FFT plan");
    p->have_rest = true;
  }
  return CONVOY_OK;
}

/* Spectrum and twiddle buffers are sized for the largest M, so that every
 * candidate can be timed on them before the chosen one is filled in. */
static convoy_status plan_fused(gpu_pulse *p, char *err, size_t err_size) {
  const pulse_geom *g = &p->g;
  const size_t most = (size_t)1 << GPU_PULSE_FUSED_MAX_LOG2;
  GC_CUDA(cudaMalloc((void **)&p->d_spec, sizeof(float2) * most), "pulse: spectrum buffer");
  GC_CUDA(cudaMalloc((void **)&p->d_tw, sizeof(float2) * most), "pulse: twiddle table");
  GC_CUDA(cudaMemsetAsync(p->d_spec, 0, sizeof(float2) * most, p->stream), "pulse: timing");
  GC_CUDA(cudaMemsetAsync(p->d_tw, 0, sizeof(float2) * most, p->stream), "pulse: timing");
  GC_CUDA(cudaMemsetAsync(p->d_in, 0, sizeof(float2) * (size_t)(pulse_count(g) * g->pulse_len),
                          p->stream),
          "pulse: timing");
  int log2m = 0;
  convoy_status st = gpu_pulse_fused_choose(g, fused_args(p, p->d_in, p->d_out), p->stream, &log2m,
                                            p->fused_ms, err, err_size);
  if (st != CONVOY_OK) return st;
  /* the memsets above must not land on the twiddles copied below */
  GC_CUDA(cudaStreamSynchronize(p->stream), "pulse: timing");
  const int64_t m = (int64_t)1 << log2m;
  p->log2m = log2m;
  p->valid = m - g->template_len + 1;
  p->segments = (g->out_len + p->valid - 1) / p->valid;
  GC_CUDA(gpu_pulse_fused_prepare(log2m), "pulse: fused kernel shared memory");
  float2 *tw = (float2 *)malloc(sizeof(float2) * (size_t)m);
  if (!tw)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "pulse: out of host memory");
  const double unit = 3.14159265358979323846 / (double)m; /* 2 pi / 2M */
  for (int64_t i = 0; i < m; i++) tw[i] = make_float2((float)cos(unit * i), (float)-sin(unit * i));
  cudaError_t e = cudaMemcpy(p->d_tw, tw, sizeof(float2) * (size_t)m, cudaMemcpyHostToDevice);
  free(tw);
  GC_CUDA(e, "pulse: twiddle table");
  return CONVOY_OK;
}

void gpu_pulse_destroy(gpu_pulse *p) {
  if (!p) return;
  gp_device_guard guard;
  char err[8];
  (void)guard.enter(p->g.device, err, sizeof err);
  if (p->stream) cudaStreamSynchronize(p->stream);
  if (p->have_group) cufftDestroy(p->fft_group);
  if (p->have_rest) cufftDestroy(p->fft_rest);
  if (p->slice_done)
    for (int64_t i = 0; i < p->slices_max; i++)
      if (p->slice_done[i]) cudaEventDestroy(p->slice_done[i]);
  free(p->slice_done);
  cudaFree(p->d_in);
  cudaFree(p->d_out);
  cudaFree(p->d_work);
  cudaFree(p->d_spec);
  cudaFree(p->d_tw);
  cudaFreeHost(p->h_in);
  cudaFreeHost(p->h_out);
  if (p->stream) cudaStreamDestroy(p->stream);
  (void)cudaGetLastError();
  free(p);
}

static convoy_status create_on_device(gpu_pulse *p, gpu_pulse_plan want, char *err,
                                      size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t pulses = pulse_count(g);
  const size_t in_bytes = sizeof(float2) * (size_t)(pulses * g->pulse_len);
  const size_t out_bytes = sizeof(float2) * (size_t)(pulses * g->out_len);
  GC_CUDA(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking), "pulse: stream");
  GC_CUDA(cudaMalloc((void **)&p->d_in, in_bytes), "pulse: device input buffer");
  GC_CUDA(cudaMalloc((void **)&p->d_out, out_bytes), "pulse: device output buffer");
  GC_CUDA(cudaHostAlloc((void **)&p->h_in, in_bytes, cudaHostAllocDefault), "pulse: pinned input");
  GC_CUDA(cudaHostAlloc((void **)&p->h_out, out_bytes, cudaHostAllocDefault),
          "pulse: pinned output");
  const size_t biggest = in_bytes > out_bytes ? in_bytes : out_bytes;
  p->slices_max = (int64_t)((biggest + kSliceBytes - 1) / kSliceBytes);
  p->slice_done = (cudaEvent_t *)calloc((size_t)p->slices_max, sizeof(cudaEvent_t));
  if (!p->slice_done)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "pulse: out of host memory");
  for (int64_t i = 0; i < p->slices_max; i++)
    GC_CUDA(cudaEventCreateWithFlags(&p->slice_done[i], cudaEventDisableTiming), "pulse: events");

  const int log2m = gpu_pulse_fused_model(g);
  if (want == GPU_PULSE_FUSED && !log2m)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "pulse: no fused GPU plan for a template of %lld samples (at most "
                               "%d)",
                               (long long)g->template_len, (1 << (GPU_PULSE_FUSED_MAX_LOG2 - 1)));
  p->plan = (want == GPU_PULSE_WHOLE || !log2m) ? GPU_PULSE_WHOLE : GPU_PULSE_FUSED;
  convoy_status st =
      p->plan == GPU_PULSE_WHOLE ? plan_whole(p, err, err_size) : plan_fused(p, err, err_size);
  if (st != CONVOY_OK) return st;

  float2 *d_h = NULL;
  const size_t h_bytes = sizeof(float2) * (size_t)g->template_len;
  GC_CUDA(cudaMalloc((void **)&d_h, h_bytes), "pulse: template upload");
  cudaError_t e = cudaMemcpy(d_h, g->h, h_bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    const int64_t n = p->plan == GPU_PULSE_WHOLE ? g->fft_size : ((int64_t)1 << p->log2m);
    st = filter_spectrum(d_h, g->template_len, n, p->d_spec, p->stream, err, err_size);
    e = cudaStreamSynchronize(p->stream);
  }
  cudaFree(d_h);
  if (st != CONVOY_OK) return st;
  GC_CUDA(e, "pulse: template spectrum");
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

/* Enqueues the batch at d_in -> d_out on s. */
static convoy_status enqueue(gpu_pulse *p, const float2 *d_in, float2 *d_out, cudaStream_t s,
                             char *err, size_t err_size) {
  const pulse_geom *g = &p->g;
  const int64_t pulses = pulse_count(g);
  if (p->plan == GPU_PULSE_FUSED) {
    GC_CUDA(gpu_pulse_fused_launch(p->log2m, fused_args(p, d_in, d_out), pulses, s),
            "pulse: fused kernel");
    return CONVOY_OK;
  }
  const int64_t n = g->fft_size;
  for (int64_t t0 = 0; t0 < pulses; t0 += p->group) {
    const int64_t nb = pulses - t0 < p->group ? pulses - t0 : p->group;
    const cufftHandle plan = nb == p->group ? p->fft_group : p->fft_rest;
    const int64_t total = nb * n, total_out = nb * g->out_len;
    pad_kernel<<<grid_for(total), 256, 0, s>>>(d_in, p->d_work, p->ix, t0, g->pulse_len, n, total);
    GC_LAUNCHED("pulse: pad kernel");
    GC_CUFFT(cufftSetStream(plan, s), "pulse: cuFFT stream");
    GC_CUFFT(cufftExecC2C(plan, p->d_work, p->d_work, CUFFT_FORWARD), "pulse: forward FFT");
    multiply_kernel<<<grid_for(total), 256, 0, s>>>(p->d_work, p->d_spec, n, total);
    GC_LAUNCHED("pulse: multiply kernel");
    GC_CUFFT(cufftExecC2C(plan, p->d_work, p->d_work, CUFFT_INVERSE), "pulse: inverse FFT");
    trim_kernel<<<grid_for(total_out), 256, 0, s>>>(p->d_work, d_out, p->ix, t0, g->out_len,
                                                    g->out_start, n, total_out);
    GC_LAUNCHED("pulse: trim kernel");
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

convoy_status gpu_pulse_run_host(gpu_pulse *p, const float *in, float *out, char *err,
                                 size_t err_size) {
  gp_device_guard guard;
  convoy_status st = guard.enter(p->g.device, err, err_size);
  if (st != CONVOY_OK) return st;
  const pulse_geom *g = &p->g;
  const int64_t pulses = pulse_count(g);
  const size_t in_bytes = sizeof(float2) * (size_t)(pulses * g->pulse_len);
  const size_t out_bytes = sizeof(float2) * (size_t)(pulses * g->out_len);
  cudaStream_t s = p->stream;
  if (is_pinned(in)) {
    GC_CUDA(cudaMemcpyAsync(p->d_in, in, in_bytes, cudaMemcpyHostToDevice, s), "pulse: upload");
  } else {
    for (size_t at = 0; at < in_bytes; at += kSliceBytes) {
      const size_t len = in_bytes - at < kSliceBytes ? in_bytes - at : kSliceBytes;
      memcpy((char *)p->h_in + at, (const char *)in + at, len);
      GC_CUDA(cudaMemcpyAsync((char *)p->d_in + at, (char *)p->h_in + at, len,
                              cudaMemcpyHostToDevice, s),
              "pulse: upload");
    }
  }
  st = enqueue(p, p->d_in, p->d_out, s, err, err_size);
  if (st != CONVOY_OK) {
    (void)cudaStreamSynchronize(s);
    return st;
  }
  if (is_pinned(out)) {
    GC_CUDA(cudaMemcpyAsync(out, p->d_out, out_bytes, cudaMemcpyDeviceToHost, s),
            "pulse: download");
    GC_CUDA(cudaStreamSynchronize(s), "pulse: run");
    return CONVOY_OK;
  }
  int64_t k = 0;
  for (size_t at = 0; at < out_bytes; at += kSliceBytes, k++) {
    const size_t len = out_bytes - at < kSliceBytes ? out_bytes - at : kSliceBytes;
    GC_CUDA(cudaMemcpyAsync((char *)p->h_out + at, (char *)p->d_out + at, len,
                            cudaMemcpyDeviceToHost, s),
            "pulse: download");
    GC_CUDA(cudaEventRecord(p->slice_done[k], s), "pulse: event");
  }
  k = 0;
  for (size_t at = 0; at < out_bytes; at += kSliceBytes, k++) {
    const size_t len = out_bytes - at < kSliceBytes ? out_bytes - at : kSliceBytes;
    GC_CUDA(cudaEventSynchronize(p->slice_done[k]), "pulse: run");
    memcpy((char *)out + at, (char *)p->h_out + at, len);
  }
  return CONVOY_OK;
}

gpu_pulse_plan gpu_pulse_plan_of(const gpu_pulse *p) {
  return p->plan;
}

void gpu_pulse_describe(const gpu_pulse *p, char *buf, size_t buf_size) {
  if (p->plan == GPU_PULSE_FUSED) {
    int n =
        snprintf(buf, buf_size, "GPU %d fused overlap-save M=%d, %lld segments of %lld per pulse",
                 (int)p->g.device, 1 << p->log2m, (long long)p->segments, (long long)p->valid);
    const char *sep = " (timed:";
    for (int i = 0; i < GPU_PULSE_FUSED_SIZES && n > 0 && (size_t)n < buf_size; i++) {
      if (p->fused_ms[i] <= 0) continue;
      n += snprintf(buf + n, buf_size - (size_t)n, "%s M=%d %.3f ms", sep,
                    1 << (i + GPU_PULSE_FUSED_MIN_LOG2), (double)p->fused_ms[i]);
      sep = ",";
    }
    if (*sep == ',' && n > 0 && (size_t)n < buf_size) snprintf(buf + n, buf_size - (size_t)n, ")");
  } else
    snprintf(buf, buf_size, "GPU %d cuFFT N=%lld, %lld pulses per batch", (int)p->g.device,
             (long long)p->g.fft_size, (long long)p->group);
}
