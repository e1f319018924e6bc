/*
 * gpu_pulse_fused.cu - the fused overlap-save pulse compression kernel: one
 * thread block per (pulse, segment) runs, in shared memory, the forward FFT
 * of M complex inputs, the product with the matched filter's spectrum and
 * the inverse FFT (as conj(FFT(conj(.)))), with the Stockham passes of
 * gpu_conv_fft_fused.cuh (16 points per thread).
 *
 * Segment s produces outputs o = s V .. s V + V - 1 (V = M - T + 1), that is
 * full-correlation indices n = out_start + o; it reads the window of inputs
 * starting at w0 = out_start + s V - (T - 1), zero outside the pulse, and
 * keeps circular positions T - 1 .. M - 1, where the circular convolution
 * equals the linear one.
 */
#include "gpu_conv_fft_fused.cuh"
#include "gpu_pulse_internal.cuh"

namespace {

constexpr int kLog2E = 4; /* 16 points per thread */

template <int LOG2M>
__global__ void __launch_bounds__(gf::shape<LOG2M, kLog2E>::T)
    pulse_fused_kernel(const gpu_pulse_fused_args a) {
  using S = gf::shape<LOG2M, kLog2E>;
  extern __shared__ float2 pf_buf[];
  const int64_t t = blockIdx.x / a.segments, s = blockIdx.x - t * a.segments;
  const int64_t stride = a.ix.stride();
  const float2 *x = a.in + a.ix.base(t, a.pulse_len);
  const int64_t w0 = a.out_start + s * a.valid - (a.taps - 1);
  const int tid = (int)threadIdx.x;
#pragma unroll
  for (int j = 0; j < S::E; j++) {
    const int i = tid + j * S::T;
    const int64_t m = w0 + i;
    pf_buf[S::at(i)] = (m >= 0 && m < a.pulse_len) ? __ldg(x + m * stride) : make_float2(0.f, 0.f);
  }
  __syncthreads();
  gf::block_exec<S::E> ex;
  gf::forward_passes<S, 0>(ex, pf_buf, a.tw);
#pragma unroll
  for (int j = 0; j < S::E; j++) {
    const int i = tid + j * S::T;
    pf_buf[S::at(i)] = gf::cconj(gf::cmul(pf_buf[S::at(i)], __ldg(a.spec + i)));
  }
  __syncthreads();
  gf::forward_passes<S, 0>(ex, pf_buf, a.tw);
  float2 *y = a.out + a.ix.base(t, a.out_len);
  const int64_t o0 = s * a.valid - (a.taps - 1); /* output index of circular position 0 */
#pragma unroll
  for (int j = 0; j < S::E; j++) {
    const int i = tid + j * S::T;
    const int64_t o = o0 + i;
    if (i >= a.taps - 1 && o < a.out_len) y[o * stride] = gf::cconj(pf_buf[S::at(i)]);
  }
}

template <int LOG2M> constexpr size_t smem_bytes() {
  return sizeof(float2) * (size_t)gf::shape<LOG2M, kLog2E>::buf_elems;
}

template <int LOG2M> cudaError_t prepare() {
  return cudaFuncSetAttribute(pulse_fused_kernel<LOG2M>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)smem_bytes<LOG2M>());
}

template <int LOG2M>
cudaError_t launch(const gpu_pulse_fused_args &a, int64_t blocks, cudaStream_t stream) {
  pulse_fused_kernel<LOG2M>
      <<<(unsigned)blocks, gf::shape<LOG2M, kLog2E>::T, smem_bytes<LOG2M>(), stream>>>(a);
  return cudaGetLastError();
}

} // namespace

cudaError_t gpu_pulse_fused_prepare(int log2m) {
  switch (log2m) {
  case 10:
    return prepare<10>();
  case 11:
    return prepare<11>();
  case 12:
    return prepare<12>();
  case 13:
    return prepare<13>();
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t gpu_pulse_fused_launch(int log2m, const gpu_pulse_fused_args &a, int64_t pulses,
                                   cudaStream_t stream) {
  const int64_t blocks = pulses * a.segments;
  if (blocks < 1) return cudaSuccess;
  if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
  switch (log2m) {
  case 10:
    return launch<10>(a, blocks, stream);
  case 11:
    return launch<11>(a, blocks, stream);
  case 12:
    return launch<12>(a, blocks, stream);
  case 13:
    return launch<13>(a, blocks, stream);
  default:
    return cudaErrorInvalidValue;
  }
}
