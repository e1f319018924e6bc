/*
 * gpu_conv_fft_fused.cu - the fused FFT engine's kernels: one thread block
 * per (channel, segment) pair runs gf::segment (gpu_conv_fft_fused.cuh) with
 * the block's threads as the executor.
 *
 * Instances: N = 2^10 .. 2^15 (M = N/2 complex points), 8 or 16 points per
 * thread (16 only where M/16 >= 32 threads, 8 only where M/8 <= 1024); on
 * interleaved frames of 2 or 4 rows, 16 points per thread, up to 4 rows a
 * block.
 */
#include "gpu_conv_fft_paths.cuh"
#include "gpu_conv_fft_fused.cuh"

#include <math.h>
#include <stdlib.h>

namespace {

template <int LOG2M, int LOG2E, int IL>
__global__ void __launch_bounds__(gf::shape<LOG2M, LOG2E>::T) fused_kernel(const gc_fused_args a) {
  using S = gf::shape<LOG2M, LOG2E>;
  extern __shared__ float2 gf_buf[];
  const int64_t pair = a.p0 + blockIdx.x;
  /* Planar rows: a row's segments one after another. Interleaved frames:
   * the rows of one segment side by side, so that the blocks sharing its
   * sectors run together. */
  const int64_t c = IL == 1 ? pair / a.segments : pair % IL;
  const int64_t s = IL == 1 ? pair - c * a.segments : pair / IL;
  const float *src = IL == 1 ? a.in + c * a.in_stride + s * a.l : a.in + s * a.l * IL;
  float *dst = IL == 1 ? a.out + c * a.out_stride + s * a.l : a.out + s * a.l * IL;
  int64_t left = a.n_in - s * a.l, count = a.n_out - s * a.l;
  if (left > a.window) left = a.window;
  if (count > a.l) count = a.l;
  gf::frames<IL> in, out;
  in.row = out.row = IL == 1 ? 0 : (int)c;
  in.align = gf::alignment_of(src);
  out.align = gf::alignment_of(dst - (IL == 1 ? a.skip : 0));
  gf::block_exec<S::E> ex;
  gf::segment<S, IL>(ex, gf_buf, src, (int)left, in, dst, a.skip, (int)count, out,
                     a.spec + a.filter_of[c] * a.spec_stride, a.tw);
}

/* G rows of interleaved frames of IL rows a block (gf::segment_rows): pair
 * p is segment p / (IL / G), rows G (p % (IL / G)) on. */
template <int LOG2M, int LOG2E, int IL, int G>
__global__ void __launch_bounds__(G *gf::shape<LOG2M, LOG2E>::T,
                                  768 / (G * gf::shape<LOG2M, LOG2E>::T) > 1
                                      ? 768 / (G * gf::shape<LOG2M, LOG2E>::T)
                                      : 1) fused_rows_kernel(const gc_fused_args a) {
  using S = gf::shape<LOG2M, LOG2E>;
  extern __shared__ float2 gf_buf[];
  constexpr int groups = IL / G;
  const int64_t pair = a.p0 + blockIdx.x;
  const int64_t s = pair / groups;
  const int row0 = (int)(pair - s * groups) * G;
  int64_t left = a.n_in - s * a.l, count = a.n_out - s * a.l;
  if (left > a.window) left = a.window;
  if (count > a.l) count = a.l;
  const int g = (int)threadIdx.x / S::T;
  gf::segment_rows<S, G, IL>(gf_buf, a.in + s * a.l * IL + row0, (int)left,
                             a.out + s * a.l * IL + row0, a.skip, (int)count,
                             a.spec + a.filter_of[row0 + g] * a.spec_stride, a.tw);
}

typedef void (*launch_fn)(const gc_fused_args &, unsigned, cudaStream_t);
typedef cudaError_t (*prepare_fn)(void);

template <int LOG2M, int LOG2E, int G = 1> constexpr size_t smem_bytes() {
  return sizeof(float2) * (size_t)G * (size_t)gf::shape<LOG2M, LOG2E>::buf_elems;
}

/* IL: 1 for planar rows, else interleaved frames of IL rows, G of them a
 * block. */
template <int LOG2M, int LOG2E, int IL = 1, int G = 1>
void launch(const gc_fused_args &a, unsigned blocks, cudaStream_t stream) {
  constexpr int T = gf::shape<LOG2M, LOG2E>::T;
  if constexpr (G == 1)
    fused_kernel<LOG2M, LOG2E, IL><<<blocks, T, smem_bytes<LOG2M, LOG2E>(), stream>>>(a);
  else
    fused_rows_kernel<LOG2M, LOG2E, IL, G>
        <<<blocks, G * T, smem_bytes<LOG2M, LOG2E, G>(), stream>>>(a);
}

template <int LOG2M, int LOG2E, int IL = 1, int G = 1> cudaError_t prepare() {
  constexpr size_t bytes = smem_bytes<LOG2M, LOG2E, G>();
  if (bytes <= 48 * 1024) return cudaSuccess;
  const void *k;
  if constexpr (G == 1)
    k = (const void *)fused_kernel<LOG2M, LOG2E, IL>;
  else
    k = (const void *)fused_rows_kernel<LOG2M, LOG2E, IL, G>;
  return cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

struct instance {
  launch_fn launch;
  prepare_fn prepare;
  int rows; /* rows a block */
};

/* [log2 N - 10][0: 8 points, 1: 16 points] */
const instance kInstances[6][2] = {
    {{launch<9, 3>, prepare<9, 3>, 1}, {launch<9, 4>, prepare<9, 4>, 1}},
    {{launch<10, 3>, prepare<10, 3>, 1}, {launch<10, 4>, prepare<10, 4>, 1}},
    {{launch<11, 3>, prepare<11, 3>, 1}, {launch<11, 4>, prepare<11, 4>, 1}},
    {{launch<12, 3>, prepare<12, 3>, 1}, {launch<12, 4>, prepare<12, 4>, 1}},
    {{launch<13, 3>, prepare<13, 3>, 1}, {launch<13, 4>, prepare<13, 4>, 1}},
    {{NULL, NULL, 0}, {launch<14, 4>, prepare<14, 4>, 1}},
};

/* Interleaved frames, 16 points a thread: [log2 N - 10][2, 4 rows]. A block
 * takes as many rows of a frame as fit in 512 threads, at the fewest
 * registers that leave 768 threads an SM: measured on an H200 at 1024
 * taps (N = 4096, 2^24-frame calls, GS/s; planar rows 189-195, the
 * conversion passes around them 99-102):
 *   2 rows: both in a block 143 (at 123 registers 117), alone 131;
 *   4 rows: all in a block 125, two a block 116.
 * 8-row frames keep the conversion passes: four rows a block 93, two 97,
 * against 103. */
#define GF_IL(LM, IL, G)                                                                           \
  { launch<LM, 4, IL, G>, prepare<LM, 4, IL, G>, G }
const instance kInterleaved[6][2] = {
    {GF_IL(9, 2, 2), GF_IL(9, 4, 4)},   {GF_IL(10, 2, 2), GF_IL(10, 4, 4)},
    {GF_IL(11, 2, 2), GF_IL(11, 4, 4)}, {GF_IL(12, 2, 2), GF_IL(12, 4, 2)},
    {GF_IL(13, 2, 1), GF_IL(13, 4, 1)}, {GF_IL(14, 2, 1), GF_IL(14, 4, 1)},
};
#undef GF_IL

/* frame_rows: 0 or 1 for planar rows, else the rows of an interleaved frame. */
const instance *find(int64_t n, int points, int frame_rows) {
  if (n < GC_FUSED_MIN_N || n > GC_FUSED_MAX_N || (n & (n - 1)) != 0) return NULL;
  if (points != 8 && points != 16) return NULL;
  int k = 0;
  while (((int64_t)1 << k) < n) k++;
  if (frame_rows > 1) {
    const int col = frame_rows == 2 ? 0 : frame_rows == 4 ? 1 : -1;
    const instance *in = points == 16 && col >= 0 ? &kInterleaved[k - 10][col] : NULL;
    return in && in->launch ? in : NULL;
  }
  const instance *in = &kInstances[k - 10][points == 16 ? 1 : 0];
  return in->launch ? in : NULL;
}

} // namespace

/* Measured on an H200 at 1024 taps: 16 points per thread beat 8 by 15-25%
 * at every size. */
int gc_fused_default_points(int64_t n) {
  (void)n;
  return 16;
}

int gc_fused_rows_per_block(int64_t n, int points, int frame_rows) {
  const instance *in = find(n, points, frame_rows);
  return in ? in->rows : 0;
}

bool gc_fused_supported(int64_t n, int points, int frame_rows) {
  return find(n, points, frame_rows) != NULL;
}

convoy_status gc_fused_prepare(int64_t n, int points, int frame_rows, char *err, size_t err_size) {
  const instance *in = find(n, points, frame_rows);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no fused FFT kernel for N=%lld with %d points per thread",
                               (long long)n, points);
  GP_CUDA(in->prepare(), "gpu_conv: fused FFT kernel shared memory");
  return CONVOY_OK;
}

convoy_status gc_fused_launch(int64_t n, int points, const gc_fused_args *a, unsigned blocks,
                              cudaStream_t stream, char *err, size_t err_size) {
  const instance *in = find(n, points, a->frame_rows);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no fused FFT kernel for N=%lld with %d points per thread",
                               (long long)n, points);
  in->launch(*a, blocks, stream);
  GP_LAUNCHED("gpu_conv: fused FFT kernel");
  return CONVOY_OK;
}

convoy_status gc_twiddle_fill(int64_t n, int64_t count, int64_t step, float2 *d_tw, char *err,
                              size_t err_size) {
  float2 *host = (float2 *)malloc(sizeof(float2) * (size_t)count);
  if (!host)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "gpu_conv: out of host memory");
  const double unit = 2.0 * 3.14159265358979323846 / (double)n;
  for (int64_t i = 0; i < count; i++) {
    const double a = unit * (double)((i * step) % n);
    host[i] = make_float2((float)cos(a), (float)-sin(a));
  }
  cudaError_t e = cudaMemcpy(d_tw, host, sizeof(float2) * (size_t)count, cudaMemcpyHostToDevice);
  free(host);
  if (e != cudaSuccess) return gp_cuda_fail(e, "gpu_conv: FFT twiddle table", err, err_size);
  return CONVOY_OK;
}

convoy_status gc_twiddle_table(int64_t n, int64_t count, int64_t step, float2 **tw, char *err,
                               size_t err_size) {
  *tw = NULL;
  cudaError_t e = cudaMalloc((void **)tw, sizeof(float2) * (size_t)count);
  if (e != cudaSuccess) {
    *tw = NULL;
    return gp_cuda_fail(e, "gpu_conv: FFT twiddle table", err, err_size);
  }
  convoy_status st = gc_twiddle_fill(n, count, step, *tw, err, err_size);
  if (st != CONVOY_OK) {
    cudaFree(*tw);
    *tw = NULL;
  }
  return st;
}
