/*
 * gpu_conv_fft_4step.cu - the four-step FFT engine's kernels (arithmetic in
 * gpu_conv_fft_4step.cuh): per batch of segments, the column kernel (reads
 * the signal), the row kernel (filter product) and the output kernel.
 *
 * Instances: N = 2^16 .. 2^22, n/2 = M1 x M2 with M2 = 256 columns of 16 per
 * block (M2 = 512 at 2^22) and M1 = n/2 / M2 points per row; 16 points per
 * thread (8 in the rows at 2^16, where a row has 128 points).
 */
#include "gpu_conv_fft_4step.cuh"
#include "gpu_conv_fft_paths.cuh"

namespace {

__device__ __forceinline__ void pair_of(const gc_four_args &a, int64_t *c, int64_t *s) {
  const int64_t pair = a.p0 + blockIdx.y;
  *c = pair / a.segments;
  *s = pair - *c * a.segments;
}

__device__ __forceinline__ gf::four_tables tables_of(const gc_four_args &a) {
  gf::four_tables tb;
  tb.tw_rows = a.tw_rows;
  tb.tw_cols = a.tw_cols;
  tb.wide = a.wide;
  tb.fine = a.fine;
  return tb;
}

template <class F>
__global__ void __launch_bounds__(F::col_threads) columns_kernel(const gc_four_args a) {
  extern __shared__ float2 gf4_buf[];
  int64_t c, s;
  pair_of(a, &c, &s);
  const float *src = a.in + c * a.in_stride + s * a.l;
  int64_t left = a.n_in - s * a.l;
  if (left > a.window) left = a.window;
  const bool aligned = (reinterpret_cast<uintptr_t>(src) & 7) == 0;
  gf::block_exec<F::SC::E> ex;
  gf::columns_block<typename F::SC, F::SR::log2m>(ex, gf4_buf, blockIdx.x * 16, src, (int)left,
                                                  aligned, a.scratch + blockIdx.y * F::m,
                                                  tables_of(a));
}

template <class F>
__global__ void __launch_bounds__(F::row_threads) rows_kernel(const gc_four_args a) {
  extern __shared__ float2 gf4_buf[];
  int64_t c, s;
  pair_of(a, &c, &s);
  gf::block_exec<F::SR::E> ex;
  gf::rows_block<typename F::SR, F::SC::log2m>(ex, gf4_buf, blockIdx.x,
                                               a.scratch + blockIdx.y * F::m,
                                               a.hp + a.filter_of[c] * a.hp_stride, tables_of(a));
}

template <class F>
__global__ void __launch_bounds__(F::col_threads) outputs_kernel(const gc_four_args a) {
  extern __shared__ float2 gf4_buf[];
  int64_t c, s;
  pair_of(a, &c, &s);
  float *dst = a.out + c * a.out_stride + s * a.l;
  int64_t count = a.n_out - s * a.l;
  if (count > a.l) count = a.l;
  const bool aligned =
      ((reinterpret_cast<uintptr_t>(dst) - 4 * (uintptr_t)(uint32_t)a.skip) & 7) == 0;
  gf::block_exec<F::SC::E> ex;
  gf::outputs_block<typename F::SC, F::SR::log2m>(ex, gf4_buf, blockIdx.x * 16,
                                                  a.scratch + blockIdx.y * F::m, dst, a.skip,
                                                  (int)count, aligned, tables_of(a));
}

template <class F> cudaError_t prepare() {
  cudaError_t e = cudaSuccess;
  if (F::col_smem > 48 * 1024) {
    e = cudaFuncSetAttribute(columns_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)F::col_smem);
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(outputs_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)F::col_smem);
  }
  if (e == cudaSuccess && F::row_smem > 48 * 1024)
    e = cudaFuncSetAttribute(rows_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)F::row_smem);
  return e;
}

template <class F> void launch(const gc_four_args &a, unsigned used, cudaStream_t stream) {
  const unsigned m1 = 1u << F::SR::log2m, m2 = 1u << F::SC::log2m;
  columns_kernel<F><<<dim3(m1 / 16, used), F::col_threads, F::col_smem, stream>>>(a);
  rows_kernel<F><<<dim3(m2 / 2, used), F::row_threads, F::row_smem, stream>>>(a);
  outputs_kernel<F><<<dim3(m1 / 16, used), F::col_threads, F::col_smem, stream>>>(a);
}

struct instance {
  int m1, m2;
  void (*launch)(const gc_four_args &, unsigned, cudaStream_t);
  cudaError_t (*prepare)(void);
};

typedef gf::four_shape<7, 8, 3, 4> f16;
typedef gf::four_shape<8, 8, 4, 4> f17;
typedef gf::four_shape<9, 8, 4, 4> f18;
typedef gf::four_shape<10, 8, 4, 4> f19;
typedef gf::four_shape<11, 8, 4, 4> f20;
typedef gf::four_shape<12, 8, 4, 4> f21;
typedef gf::four_shape<12, 9, 4, 4> f22;

/* [log2 N - 16] */
const instance kInstances[7] = {
    {128, 256, launch<f16>, prepare<f16>},  {256, 256, launch<f17>, prepare<f17>},
    {512, 256, launch<f18>, prepare<f18>},  {1024, 256, launch<f19>, prepare<f19>},
    {2048, 256, launch<f20>, prepare<f20>}, {4096, 256, launch<f21>, prepare<f21>},
    {4096, 512, launch<f22>, prepare<f22>},
};

const instance *find(int64_t n) {
  if (n < GC_FOUR_MIN_N || n > GC_FOUR_MAX_N || (n & (n - 1)) != 0) return NULL;
  return &kInstances[gc_log2(n) - 16];
}

__global__ void reorder_kernel(float2 *dst, const float2 *src, int32_t filters, int64_t m,
                               int64_t m1, int64_t m2) {
  const int64_t total = (m + 1) * filters;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t f = i / (m + 1), k = i - f * (m + 1);
    const int64_t to = k == m ? m : (k % m2) * m1 + k / m2;
    dst[f * (m + 1) + to] = src[i];
  }
}

} // namespace

bool gc_four_supported(int64_t n, int *m1, int *m2) {
  const instance *in = find(n);
  if (in && m1) *m1 = in->m1;
  if (in && m2) *m2 = in->m2;
  return in != NULL;
}

convoy_status gc_four_prepare(int64_t n, char *err, size_t err_size) {
  const instance *in = find(n);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no four-step FFT kernels for N=%lld", (long long)n);
  GP_CUDA(in->prepare(), "gpu_conv: four-step FFT kernels' shared memory");
  return CONVOY_OK;
}

convoy_status gc_four_launch(int64_t n, const gc_four_args *a, unsigned used, cudaStream_t stream,
                             char *err, size_t err_size) {
  const instance *in = find(n);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no four-step FFT kernels for N=%lld", (long long)n);
  in->launch(*a, used, stream);
  GP_LAUNCHED("gpu_conv: four-step FFT kernels");
  return CONVOY_OK;
}

convoy_status gc_four_reorder(int64_t n, float2 *spec, int32_t filters, cudaStream_t stream,
                              char *err, size_t err_size) {
  const instance *in = find(n);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no four-step FFT kernels for N=%lld", (long long)n);
  const int64_t m = n / 2, total = (m + 1) * filters;
  float2 *tmp = NULL;
  GP_CUDA(cudaMalloc((void **)&tmp, sizeof(float2) * (size_t)total), "gpu_conv: spectrum reorder");
  cudaError_t e =
      cudaMemcpyAsync(tmp, spec, sizeof(float2) * (size_t)total, cudaMemcpyDeviceToDevice, stream);
  if (e == cudaSuccess) {
    int64_t blocks = (total + 255) / 256;
    reorder_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
        spec, tmp, filters, m, in->m1, in->m2);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  cudaFree(tmp);
  if (e != cudaSuccess) return gp_cuda_fail(e, "gpu_conv: spectrum reorder", err, err_size);
  return CONVOY_OK;
}
