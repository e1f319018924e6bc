/* gpu_layout.cu - deinterleave/convert and interleave kernels. */
#include "gpu_layout.cuh"

#include "gpu_util.cuh"

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

__global__ void interleave_kernel(const float *__restrict__ planar, int64_t stride,
                                  int32_t channels, int64_t frames, float *__restrict__ out) {
  const int32_t c0 = (int32_t)blockIdx.y * kChannelsPerThread;
  const int32_t c1 = min(channels, c0 + kChannelsPerThread);
  for (int64_t f = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; f < frames;
       f += (int64_t)gridDim.x * blockDim.x) {
    float *dst = out + f * channels;
    for (int32_t c = c0; c < c1; c++) dst[c] = planar[c * stride + f];
  }
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
  default:
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "unknown sample format %d", (int)fmt);
  }
  GP_CUDA(cudaGetLastError(), "deinterleave kernel launch");
  return CONVOY_OK;
}

convoy_status gp_interleave(const float *planar, int64_t stride, int32_t channels, int64_t frames,
                            float *out, cudaStream_t stream, char *err, size_t err_size) {
  if (frames <= 0) return CONVOY_OK;
  interleave_kernel<<<grid_for(frames, channels), kThreads, 0, stream>>>(planar, stride, channels,
                                                                         frames, out);
  GP_CUDA(cudaGetLastError(), "interleave kernel launch");
  return CONVOY_OK;
}
