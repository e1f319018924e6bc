/* gpu_layout.cu - deinterleave/convert and interleave kernels. */
#include "gpu_layout.cuh"

#include "gpu_util.cuh"
#include "rotator_frac.h"

#include <cmath>

namespace {

constexpr int kThreads = 256;
/* Channels one thread moves per frame: frames spread over threads (writes
 * coalesced along a channel row), channel groups over blockIdx.y. */
constexpr int kChannelsPerThread = 8;
constexpr unsigned kMaxBlocks = 8192;

__device__ __forceinline__ float to_float(float x, float) {
  return x;
}
__device__ __forceinline__ float to_float(int16_t x, float scale) {
  return __int2float_rn(x) * scale;
}
__device__ __forceinline__ float to_float(int32_t x, float scale) {
  return __int2float_rn(x) * scale;
}
__device__ __forceinline__ float to_float(int8_t x, float scale) {
  return __int2float_rn(x) * scale;
}
/* Offset binary: (x - 128) is exact in float, so is the power-of-two scale. */
__device__ __forceinline__ float to_float(uint8_t x, float scale) {
  return __int2float_rn((int)x - 128) * scale;
}

template <typename T>
__global__ void deinterleave_kernel(const T *__restrict__ raw, int32_t channels, int64_t n_valid,
                                    int64_t n_total, float scale, float *__restrict__ planar,
                                    int64_t stride) {
  const int32_t c0 = (int32_t)blockIdx.y * kChannelsPerThread;
  const int32_t c1 = min(channels, c0 + kChannelsPerThread);
  for (int64_t f = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; f < n_total;
       f += (int64_t)gridDim.x * blockDim.x) {
    if (f < n_valid) {
      const T *src = raw + f * channels;
      for (int32_t c = c0; c < c1; c++) planar[c * stride + f] = to_float(src[c], scale);
    } else {
      for (int32_t c = c0; c < c1; c++) planar[c * stride + f] = 0.0f;
    }
  }
}

/* Output frame f of one thread's channels [c0, c1) through pick into v[]. */
__device__ __forceinline__ void pick_frame(const float *__restrict__ planar, int64_t stride,
                                           int32_t c0, int32_t c1, int64_t f, const gp_pick &pick,
                                           float *v) {
  const int64_t at = pick.first + f * pick.step;
  for (int32_t c = c0; c < c1; c++) v[c - c0] = planar[c * stride + at];
  if (pick.shift == 0.0) return;
  double wr, wi; /* e^{-j 2 pi shift m} */
  sincospi(-2.0 * rotator_frac(pick.shift, (pick.n0 + f) * pick.rate + pick.phase), &wi, &wr);
  for (int32_t c = c0; c + 1 < c1; c += 2) {
    const double xr = v[c - c0], xi = v[c + 1 - c0];
    v[c - c0] = (float)(xr * wr - xi * wi);
    v[c + 1 - c0] = (float)(xr * wi + xi * wr);
  }
}

__global__ void interleave_kernel(const float *__restrict__ planar, int64_t stride,
                                  int32_t channels, int64_t frames, gp_pick pick,
                                  float *__restrict__ out) {
  const int32_t c0 = (int32_t)blockIdx.y * kChannelsPerThread;
  const int32_t c1 = min(channels, c0 + kChannelsPerThread);
  float v[kChannelsPerThread];
  for (int64_t f = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; f < frames;
       f += (int64_t)gridDim.x * blockDim.x) {
    float *dst = out + f * channels;
    pick_frame(planar, stride, c0, c1, f, pick, v);
    for (int32_t c = c0; c < c1; c++) dst[c] = v[c - c0];
  }
}

template <typename T>
__global__ void interleave_quantize_kernel(const float *__restrict__ planar, int64_t stride,
                                           int32_t channels, int64_t frames, gp_pick pick,
                                           output_spec o, double full, int32_t step, int32_t bias,
                                           uint64_t first_index, T *__restrict__ out,
                                           unsigned long long *tally) {
  const int32_t c0 = (int32_t)blockIdx.y * kChannelsPerThread;
  const int32_t c1 = min(channels, c0 + kChannelsPerThread);
  unsigned long long clipped = 0;
  float peak = 0.0f;
  float v[kChannelsPerThread];
  for (int64_t f = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; f < frames;
       f += (int64_t)gridDim.x * blockDim.x) {
    T *dst = out + f * channels;
    pick_frame(planar, stride, c0, c1, f, pick, v);
    for (int32_t c = c0; c < c1; c++) {
      const float x = v[c - c0];
      const uint64_t index = first_index + (uint64_t)f * (uint64_t)channels + (uint64_t)c;
      int clip;
      const int32_t code = sq_code(x, full, o.dither ? sq_tpdf(o.seed, index) : 0.0, &clip);
      if (index >= o.count_lo && index < o.count_hi) { /* the tally's frames */
        const float ax = fabsf(x);
        if (ax > peak) peak = ax; /* false for NaN */
        clipped += (unsigned long long)clip;
      }
      dst[c] = (T)(code * step + bias);
    }
  }
  for (int d = 16; d > 0; d >>= 1) {
    clipped += __shfl_down_sync(0xffffffffu, clipped, d);
    peak = fmaxf(peak, __shfl_down_sync(0xffffffffu, peak, d));
  }
  if ((threadIdx.x & 31) == 0) {
    if (clipped) atomicAdd(&tally[0], clipped);
    /* Non-negative floats order as their bit patterns. */
    if (peak > 0.0f) atomicMax(&tally[1], (unsigned long long)__float_as_uint(peak));
  }
}

struct rows_copy_pair {
  gp_rows_copy job[2];
};

/* blockIdx.z: the job; blockIdx.y: the row; x strides along the row. */
__global__ void copy_rows_kernel(rows_copy_pair jobs) {
  const gp_rows_copy &j = jobs.job[blockIdx.z];
  const float *__restrict__ src = j.src + blockIdx.y * j.src_pitch;
  float *__restrict__ dst = j.dst + blockIdx.y * j.dst_pitch;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < j.width;
       i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

/* Float32 frames of C = 2, 4 or 8 channels pass through shared memory in
 * tiles of kTileFloats, so that the interleaved side moves in 16-byte
 * coalesced runs and each planar row in coalesced runs too (the per-frame
 * kernels above read or write C floats a thread, C-strided across a warp).
 * Shared positions are skewed by one word in 32, which keeps the strided
 * side free of bank conflicts. */
constexpr int kTileFloats = 2048;

__device__ __forceinline__ int skewed(int i) {
  return i + (i >> 5);
}

template <int C>
__global__ void deinterleave_f32_tiled(const float *__restrict__ raw, int64_t n_valid,
                                       int64_t n_total, float *__restrict__ planar,
                                       int64_t stride) {
  constexpr int FR = kTileFloats / C; /* frames per tile */
  __shared__ float sm[kTileFloats + kTileFloats / 32];
  const int64_t tiles = (n_total + FR - 1) / FR, valid = n_valid * C;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t f0 = tile * FR, q0 = f0 * C;
    if (q0 + kTileFloats <= valid && (reinterpret_cast<uintptr_t>(raw + q0) & 15) == 0) {
      for (int i = threadIdx.x; i < kTileFloats / 4; i += blockDim.x) {
        const float4 v = __ldg(reinterpret_cast<const float4 *>(raw + q0) + i);
        sm[skewed(4 * i)] = v.x;
        sm[skewed(4 * i + 1)] = v.y;
        sm[skewed(4 * i + 2)] = v.z;
        sm[skewed(4 * i + 3)] = v.w;
      }
    } else {
      for (int i = threadIdx.x; i < kTileFloats; i += blockDim.x)
        sm[skewed(i)] = q0 + i < valid ? raw[q0 + i] : 0.0f;
    }
    __syncthreads();
    const int64_t left = n_total - f0;
    const int frames = left < FR ? (int)left : FR;
    for (int i = threadIdx.x; i < C * FR; i += blockDim.x) {
      const int c = i / FR, p = i - c * FR;
      if (p < frames) planar[c * stride + f0 + p] = sm[skewed(p * C + c)];
    }
    __syncthreads();
  }
}

template <int C>
__global__ void interleave_f32_tiled(const float *__restrict__ planar, int64_t stride,
                                     int64_t frames, float *__restrict__ out) {
  constexpr int FR = kTileFloats / C;
  __shared__ float sm[kTileFloats + kTileFloats / 32];
  const int64_t tiles = (frames + FR - 1) / FR;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t f0 = tile * FR, q0 = f0 * C;
    const int64_t left = frames - f0;
    const int n = left < FR ? (int)left : FR;
    for (int i = threadIdx.x; i < C * FR; i += blockDim.x) {
      const int c = i / FR, p = i - c * FR;
      if (p < n) sm[skewed(p * C + c)] = planar[c * stride + f0 + p];
    }
    __syncthreads();
    float *y = out + q0;
    if (n == FR && (reinterpret_cast<uintptr_t>(y) & 15) == 0) {
      for (int i = threadIdx.x; i < kTileFloats / 4; i += blockDim.x)
        reinterpret_cast<float4 *>(y)[i] = make_float4(
            sm[skewed(4 * i)], sm[skewed(4 * i + 1)], sm[skewed(4 * i + 2)], sm[skewed(4 * i + 3)]);
    } else {
      for (int i = threadIdx.x; i < n * C; i += blockDim.x) y[i] = sm[skewed(i)];
    }
    __syncthreads();
  }
}

unsigned tiled_grid(int64_t frames, int32_t channels) {
  const int64_t fr = kTileFloats / channels;
  int64_t blocks = (frames + fr - 1) / fr;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return (unsigned)(blocks < 1 ? 1 : blocks);
}

bool tiled_channels(int32_t channels) {
  return channels == 2 || channels == 4 || channels == 8;
}

dim3 grid_for(int64_t frames, int32_t channels) {
  int64_t blocks = (frames + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  if (blocks < 1) blocks = 1;
  return dim3((unsigned)blocks,
              (unsigned)((channels + kChannelsPerThread - 1) / kChannelsPerThread));
}

} // namespace

convoy_status gp_deinterleave(convoy_sample_format fmt, const void *raw, int32_t channels,
                              int64_t n_valid, int64_t n_total, float *planar, int64_t stride,
                              cudaStream_t stream, char *err, size_t err_size) {
  if (n_total <= 0) return CONVOY_OK;
  const dim3 grid = grid_for(n_total, channels);
  if (fmt == CONVOY_FORMAT_F32 && tiled_channels(channels)) {
    const unsigned blocks = tiled_grid(n_total, channels);
    const float *in = (const float *)raw;
    if (channels == 2)
      deinterleave_f32_tiled<2>
          <<<blocks, kThreads, 0, stream>>>(in, n_valid, n_total, planar, stride);
    else if (channels == 4)
      deinterleave_f32_tiled<4>
          <<<blocks, kThreads, 0, stream>>>(in, n_valid, n_total, planar, stride);
    else
      deinterleave_f32_tiled<8>
          <<<blocks, kThreads, 0, stream>>>(in, n_valid, n_total, planar, stride);
    GP_LAUNCHED("deinterleave kernel launch");
    return CONVOY_OK;
  }
  switch (fmt) {
  case CONVOY_FORMAT_F32:
    deinterleave_kernel<<<grid, kThreads, 0, stream>>>((const float *)raw, channels, n_valid,
                                                       n_total, 1.0f, planar, stride);
    break;
  case CONVOY_FORMAT_S16:
    deinterleave_kernel<<<grid, kThreads, 0, stream>>>((const int16_t *)raw, channels, n_valid,
                                                       n_total, 1.0f / 32768.0f, planar, stride);
    break;
  case CONVOY_FORMAT_S32:
    deinterleave_kernel<<<grid, kThreads, 0, stream>>>(
        (const int32_t *)raw, channels, n_valid, n_total, 1.0f / 2147483648.0f, planar, stride);
    break;
  case CONVOY_FORMAT_S8:
    deinterleave_kernel<<<grid, kThreads, 0, stream>>>((const int8_t *)raw, channels, n_valid,
                                                       n_total, 1.0f / 128.0f, planar, stride);
    break;
  case CONVOY_FORMAT_U8:
    deinterleave_kernel<<<grid, kThreads, 0, stream>>>((const uint8_t *)raw, channels, n_valid,
                                                       n_total, 1.0f / 128.0f, planar, stride);
    break;
  default:
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "unknown sample format %d", (int)fmt);
  }
  GP_LAUNCHED("deinterleave kernel launch");
  return CONVOY_OK;
}

convoy_status gp_interleave(const float *planar, int64_t stride, int32_t channels, int64_t frames,
                            float *out, cudaStream_t stream, char *err, size_t err_size) {
  return gp_interleave_pick(planar, stride, channels, frames, gp_pick{0, 1, 0.0, 0, 1, 0}, out,
                            stream, err, err_size);
}

convoy_status gp_interleave_pick(const float *planar, int64_t stride, int32_t channels,
                                 int64_t frames, const gp_pick &pick, float *out,
                                 cudaStream_t stream, char *err, size_t err_size) {
  if (frames <= 0) return CONVOY_OK;
  if (pick.first == 0 && pick.step == 1 && pick.shift == 0.0 && tiled_channels(channels)) {
    const unsigned blocks = tiled_grid(frames, channels);
    if (channels == 2)
      interleave_f32_tiled<2><<<blocks, kThreads, 0, stream>>>(planar, stride, frames, out);
    else if (channels == 4)
      interleave_f32_tiled<4><<<blocks, kThreads, 0, stream>>>(planar, stride, frames, out);
    else
      interleave_f32_tiled<8><<<blocks, kThreads, 0, stream>>>(planar, stride, frames, out);
    GP_LAUNCHED("interleave kernel launch");
    return CONVOY_OK;
  }
  interleave_kernel<<<grid_for(frames, channels), kThreads, 0, stream>>>(planar, stride, channels,
                                                                         frames, pick, out);
  GP_LAUNCHED("interleave kernel launch");
  return CONVOY_OK;
}

convoy_status gp_interleave_quantize_pick(const float *planar, int64_t stride, int32_t channels,
                                          int64_t frames, const gp_pick &pick, const output_spec &o,
                                          uint64_t first_index, void *out,
                                          unsigned long long *tally, cudaStream_t stream, char *err,
                                          size_t err_size) {
  if (frames <= 0) return CONVOY_OK;
  const double full = ldexp(1.0, o.bits - 1);
  const int container = 8 * (int)convoy_sample_format_bytes(o.fmt);
  const int32_t step = o.bits >= container ? 1 : (int32_t)1 << (container - o.bits);
  const int32_t bias = o.fmt == CONVOY_FORMAT_U8 ? 128 : 0; /* U8: offset binary */
  const dim3 grid = grid_for(frames, channels);
  if (o.fmt == CONVOY_FORMAT_S16)
    interleave_quantize_kernel<<<grid, kThreads, 0, stream>>>(planar, stride, channels, frames,
                                                              pick, o, full, step, 0, first_index,
                                                              (int16_t *)out, tally);
  else if (o.fmt == CONVOY_FORMAT_S32)
    interleave_quantize_kernel<<<grid, kThreads, 0, stream>>>(planar, stride, channels, frames,
                                                              pick, o, full, step, 0, first_index,
                                                              (int32_t *)out, tally);
  else if (o.fmt == CONVOY_FORMAT_S8)
    interleave_quantize_kernel<<<grid, kThreads, 0, stream>>>(planar, stride, channels, frames,
                                                              pick, o, full, step, 0, first_index,
                                                              (int8_t *)out, tally);
  else if (o.fmt == CONVOY_FORMAT_U8)
    interleave_quantize_kernel<<<grid, kThreads, 0, stream>>>(planar, stride, channels, frames,
                                                              pick, o, full, step, bias,
                                                              first_index, (uint8_t *)out, tally);
  else
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "integer output format expected, got %d", (int)o.fmt);
  GP_LAUNCHED("quantize kernel launch");
  return CONVOY_OK;
}

convoy_status gp_copy_rows(const gp_rows_copy *jobs, int n_jobs, int32_t rows, cudaStream_t stream,
                           char *err, size_t err_size) {
  if (n_jobs < 1 || n_jobs > 2 || rows < 1)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL, "row copy: %d jobs of %d rows",
                               n_jobs, (int)rows);
  rows_copy_pair pair;
  pair.job[0] = jobs[0];
  pair.job[1] = n_jobs == 2 ? jobs[1] : gp_rows_copy{nullptr, 0, nullptr, 0, 0};
  const int64_t width =
      n_jobs == 2 && jobs[1].width > jobs[0].width ? jobs[1].width : jobs[0].width;
  if (width <= 0) return CONVOY_OK;
  int64_t blocks = (width + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  copy_rows_kernel<<<dim3((unsigned)blocks, (unsigned)rows, (unsigned)n_jobs), kThreads, 0,
                     stream>>>(pair);
  GP_LAUNCHED("row copy kernel launch");
  return CONVOY_OK;
}
