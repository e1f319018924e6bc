/*
 * gpu_pulse_fused.cu - the fused overlap-save pulse compression kernel: one
 * thread block per (pulse, segment) runs the forward FFT of M complex
 * inputs, the product with the matched filter's spectrum and the inverse FFT
 * (as conj(FFT(conj(.)))), with the Stockham passes of gpu_conv_fft_fused.cuh
 * (16 points per thread, T = M / 16 threads).
 *
 * Shared memory is crossed only between passes that exchange data:
 *   - the first forward pass (radix 16) reads its butterflies, inputs
 *     q + 16^-1 M r, straight from device memory (consecutive threads,
 *     consecutive samples);
 *   - the last forward pass leaves bin q + r M/R in register r of butterfly
 *     q, which is exactly what the first inverse pass of the same radix R
 *     reads: the spectrum product and that pass run in registers. The
 *     forward passes are 16, 16, ..., R (R = 16 or the remainder 2, 4, 8),
 *     the inverse ones R, 16, ..., 16;
 *   - the last inverse pass (radix 16) writes its outputs, points
 *     q + r M/16, straight to device memory.
 * For M = 4096 that is 4 shared-memory round trips instead of 8.
 *
 * Segment s produces outputs o = F + s V .. F + s V + V - 1 (V = M - T + 1,
 * F = out_first), that is full-correlation indices n = out_start + o; it
 * reads the window of inputs starting at w0 = out_start + F + s V - (T - 1),
 * zero outside the pulse, and
 * keeps circular positions T - 1 .. M - 1, where the circular convolution
 * equals the linear one.
 */
#include "gpu_conv_fft_fused.cuh"
#include "gpu_pulse_internal.cuh"

namespace {

/* The FFT of M = 2^LOG2M points, 16 a thread: passes of radix 16 and one of
 * radix 2^(LOG2M mod 4) when that is not 1, last in the forward order, first
 * in the inverse (REV) order. */
template <int LOG2M, bool REV> using pshape = gf::inverse_shape<gf::shape<LOG2M, 4>, REV>;

/* Passes P .. END-1 through shared memory (INV: of the inverse FFT).
 *
 * The inverse passes read their twiddles with ordinary (coherent) loads,
 * gf::butterflies' COHERENT. The inverse pass p of a size with no remainder
 * radix uses the very twiddles of forward pass p; read-only loads of them
 * get merged across the barriers, and the twiddle powers of the forward
 * pass stay live in registers until the inverse one (spills at 64 and 80
 * registers). An ordinary load cannot be moved across __syncthreads. */
template <class S, int P, int END, bool INV>
__device__ __forceinline__ void smem_passes(int t, float2 *v, float2 *buf, const float2 *tw) {
  if constexpr (P < END) {
    gf::load_smem<S, P>(t, v, buf);
    __syncthreads();
    gf::butterflies<S, P, INV, gf::powers::tree>(t, v, tw);
    gf::store_smem<S, P>(t, v, buf);
    __syncthreads();
    smem_passes<S, P + 1, END, INV>(t, v, buf, tw);
  }
}

/* Threads per SM the register budget is set for: 1024 (64 registers)
 * except M = 4096, which runs fastest at 768 (80 registers, a few bytes
 * spilled; H200 on the radar case: 0.204 ms against 0.208 at 1024 and 0.214
 * at 512, where it needs 125 registers). */
template <int LOG2M> constexpr int threads_per_sm() {
  return LOG2M == 12 ? 768 : 1024;
}

template <int LOG2M>
__global__ void __launch_bounds__(pshape<LOG2M, false>::T,
                                  threads_per_sm<LOG2M>() / pshape<LOG2M, false>::T)
    pulse_fused_kernel(const gpu_pulse_fused_args a) {
  using F = pshape<LOG2M, false>;
  using I = pshape<LOG2M, true>;
  constexpr int M = F::M, T = F::T, LF = F::passes - 1, LI = I::passes - 1;
  constexpr int RL = 1 << F::log2_radix(LF), BL = 16 / RL; /* the meeting passes */
  static_assert(F::log2_radix(0) == 4 && I::log2_radix(LI) == 4, "radix-16 ends");
  static_assert(I::log2_radix(0) == F::log2_radix(LF), "meeting passes of one radix");
  extern __shared__ float2 pf_buf[];
  const int64_t t_pulse = blockIdx.x / a.segments, s = blockIdx.x - t_pulse * a.segments;
  const int64_t stride = a.ix.stride();
  const int tid = (int)threadIdx.x;
  float2 v[16];
  /* A tail launch (gpu_pulse_fused_launch, overlap) may start now: it
   * reads the same input and writes other outputs. */
  cudaTriggerProgrammaticLaunchCompletion();

  /* forward pass 0 from device memory: butterfly tid, points tid + r T */
  const float2 *x = a.in + a.ix.base(t_pulse, a.pulse_len);
  const int64_t w0 = a.out_start + a.out_first + s * a.valid - (a.taps - 1);
#pragma unroll
  for (int r = 0; r < 16; r++) {
    const int64_t m = w0 + tid + r * T;
    v[r] = (m >= 0 && m < a.pulse_len) ? __ldg(x + m * stride) : make_float2(0.f, 0.f);
  }
  gf::butterflies<F, 0>(tid, v, a.tw);
  gf::store_smem<F, 0>(tid, v, pf_buf);
  __syncthreads();
  smem_passes<F, 1, LF, false>(tid, v, pf_buf, a.tw);

  /* last forward pass, product, first inverse pass, in registers */
  gf::load_smem<F, LF>(tid, v, pf_buf);
  __syncthreads();
  gf::butterflies<F, LF, false, gf::powers::tree>(tid, v, a.tw);
#pragma unroll
  for (int b = 0; b < BL; b++)
#pragma unroll
    for (int r = 0; r < RL; r++) {
      const int k = tid + b * T + r * (M / RL);
      v[b * RL + r] = gf::cconj(gf::cmul(v[b * RL + r], __ldg(a.spec + k)));
    }
  gf::butterflies<I, 0, true>(tid, v, a.tw);
  gf::store_smem<I, 0>(tid, v, pf_buf);
  __syncthreads();
  smem_passes<I, 1, LI, true>(tid, v, pf_buf, a.tw);

  /* last inverse pass to device memory: butterfly tid, points tid + r T */
  gf::load_smem<I, LI>(tid, v, pf_buf);
  gf::butterflies<I, LI, true, gf::powers::tree>(tid, v, a.tw);
  float2 *y = a.out + a.ix.base(t_pulse, a.out_len);
  /* output index of circular position 0 */
  const int64_t o0 = a.out_first + s * a.valid - (a.taps - 1);
#pragma unroll
  for (int r = 0; r < 16; r++) {
    const int i = tid + r * T;
    const int64_t o = o0 + i;
    if (i >= a.taps - 1 && o < a.out_len) y[o * stride] = gf::cconj(v[r]);
  }
  /* In an overlapped launch, this grid completes only after the one before
   * it: what follows in the stream sees both grids' outputs. */
  cudaGridDependencySynchronize();
}

template <int LOG2M> constexpr size_t smem_bytes() {
  return sizeof(float2) * (size_t)pshape<LOG2M, false>::buf_elems;
}

template <int LOG2M> cudaError_t prepare() {
  return cudaFuncSetAttribute(pulse_fused_kernel<LOG2M>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)smem_bytes<LOG2M>());
}

template <int LOG2M>
cudaError_t launch(const gpu_pulse_fused_args &a, int64_t blocks, bool overlap,
                   cudaStream_t stream) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)blocks);
  cfg.blockDim = dim3(pshape<LOG2M, false>::T);
  cfg.dynamicSmemBytes = smem_bytes<LOG2M>();
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = overlap ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, pulse_fused_kernel<LOG2M>, a);
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
                                   bool overlap, cudaStream_t stream) {
  const int64_t blocks = pulses * a.segments;
  if (blocks < 1) return cudaSuccess;
  if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
  switch (log2m) {
  case 10:
    return launch<10>(a, blocks, overlap, stream);
  case 11:
    return launch<11>(a, blocks, overlap, stream);
  case 12:
    return launch<12>(a, blocks, overlap, stream);
  case 13:
    return launch<13>(a, blocks, overlap, stream);
  default:
    return cudaErrorInvalidValue;
  }
}
