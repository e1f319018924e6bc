/*
 * gpu_conv_fft_cx.cu - the FFT engine's kernels for complex filters on
 * (real, imaginary) row pairs (see gpu_conv_fft_paths.cuh, "complex"): the
 * fused kernel instances, on row pairs or on frames of 1, 2 or 4 complex
 * channels, and the plain path's gather, multiply (folded or not) and
 * scatter (fold 1: every output).
 *
 * As in the real paths, a segment holds exactly the L + taps - 1 inputs its
 * outputs need, then zeros, and every slot of a batch is treated alike, so a
 * segment's bits depend neither on how far the call's input reaches nor on
 * where the segment sits in a call or a batch.
 */
#include "gpu_conv_fft_fused.cuh"
#include "gpu_conv_fft_paths.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kLog2Points = 4; /* 16 points per thread */
static_assert(1 << kLog2Points == GC_FUSED_CX_POINTS, "the twiddle table's shape");

/* How the kernel of 2^LOG2M points has its twiddles (gf::powers): from
 * the passes' tables at 2^10 points, else chained. One choice a size for
 * every layout, so that frames and row pairs give the same bits. On an
 * H200 (128 complex taps, 2^27 complex frames) the tables ran 2-3% faster
 * at 2^10 points on frames and on row pairs; at 2^11 3-4% faster on frames
 * of one channel but 4-8% slower on row pairs, and at 2^12 and 2^14 1-3%
 * slower (docs/BENCHMARKS.md). */
template <int LOG2M> __host__ __device__ constexpr gf::powers powers_at() {
  return LOG2M == 10 ? gf::powers::table : gf::powers::chain;
}

/* FRAME > 0: frames of FRAME complex channels, (re, im) each (a->frame_rows
 * 2 FRAME), read and written where they lie; 0: (real, imaginary) row
 * pairs. Where a frame holds several channels, the blocks of one segment's
 * channels are consecutive, so that they run side by side and read and
 * write the frames' sectors together (each block a FRAME-th of each
 * sector), through the L2 rather than once a channel from device memory. */
template <int LOG2M, int FRAME>
__global__ void __launch_bounds__(gf::shape<LOG2M, kLog2Points>::T)
    fused_cx_kernel(const gc_fused_args a) {
  using S = gf::shape<LOG2M, kLog2Points>;
  extern __shared__ float2 gf_buf[];
  const int64_t pair = a.p0 + blockIdx.x;
  int64_t c, s;
  if constexpr (FRAME > 1) {
    s = pair / FRAME;
    c = pair - s * FRAME;
  } else {
    c = pair / a.segments;
    s = pair - c * a.segments;
  }
  int64_t left = a.n_in - s * a.l, count = a.n_out - s * a.l;
  if (left > a.window) left = a.window;
  if (count > a.l) count = a.l;
  gf::block_exec<S::E> ex;
  const float2 *h = a.spec + a.filter_of[c] * a.spec_stride;
  if constexpr (FRAME > 0) {
    const int64_t at = FRAME > 1 ? 2 * (FRAME * s * a.l + c) : 2 * s * a.l;
    const float *src = a.in + at;
    float *dst = a.out + at;
    const bool aligned8 =
        ((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst)) & 7) == 0;
    gf::segment_cx<S, FRAME, powers_at<LOG2M>()>(ex, gf_buf, src, nullptr, (int)left, dst, nullptr,
                                                 a.skip, (int)count, h, a.tw, aligned8);
  } else {
    const float *src = a.in + 2 * c * a.in_stride + s * a.l;
    float *dst = a.out + 2 * c * a.out_stride + s * a.l;
    gf::segment_cx<S, 0, powers_at<LOG2M>()>(ex, gf_buf, src, src + a.in_stride, (int)left, dst,
                                             dst + a.out_stride, a.skip, (int)count, h, a.tw);
  }
}

template <int LOG2M> constexpr size_t smem_bytes() {
  return sizeof(float2) * (size_t)gf::shape<LOG2M, kLog2Points>::buf_elems;
}

template <int LOG2M> void launch(const gc_fused_args &a, unsigned blocks, cudaStream_t stream) {
  constexpr unsigned T = gf::shape<LOG2M, kLog2Points>::T;
  constexpr size_t bytes = smem_bytes<LOG2M>();
  switch (a.frame_rows) {
  case 2:
    fused_cx_kernel<LOG2M, 1><<<blocks, T, bytes, stream>>>(a);
    break;
  case 4:
    fused_cx_kernel<LOG2M, 2><<<blocks, T, bytes, stream>>>(a);
    break;
  case 8:
    fused_cx_kernel<LOG2M, 4><<<blocks, T, bytes, stream>>>(a);
    break;
  default:
    fused_cx_kernel<LOG2M, 0><<<blocks, T, bytes, stream>>>(a);
  }
}

template <int LOG2M> cudaError_t prepare() {
  const int bytes = (int)smem_bytes<LOG2M>();
  if (bytes <= 48 * 1024) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  for (const void *k :
       {(const void *)fused_cx_kernel<LOG2M, 0>, (const void *)fused_cx_kernel<LOG2M, 1>,
        (const void *)fused_cx_kernel<LOG2M, 2>, (const void *)fused_cx_kernel<LOG2M, 4>})
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  return e;
}

struct instance {
  void (*launch)(const gc_fused_args &, unsigned, cudaStream_t);
  cudaError_t (*prepare)(void);
};

/* [log2 N - 9] */
const instance kInstances[6] = {{launch<9>, prepare<9>},   {launch<10>, prepare<10>},
                                {launch<11>, prepare<11>}, {launch<12>, prepare<12>},
                                {launch<13>, prepare<13>}, {launch<14>, prepare<14>}};

const instance *find(int64_t n) {
  if (n < GC_FUSED_CX_MIN_N || n > GC_FUSED_CX_MAX_N || (n & (n - 1)) != 0) return NULL;
  return &kInstances[gc_log2(n) - 9];
}

/* Which (complex channel, segment) a batch slot holds. */
__device__ __forceinline__ void slot_of(const gc_cx_batch &b, int64_t *c, int64_t *s) {
  const int64_t pair = b.p0 + blockIdx.y;
  *c = pair / b.segments;
  *s = pair - *c * b.segments;
}

__global__ void gather_kernel(float2 *buf, const gc_cx_batch b) {
  int64_t c, s;
  slot_of(b, &c, &s);
  const float *re = b.in + 2 * c * b.in_stride + s * b.l;
  const float *im = re + b.in_stride;
  int64_t left = b.n_in - s * b.l;
  if (left > b.window) left = b.window;
  float2 *dst = buf + blockIdx.y * b.n;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < b.n;
       k += (int64_t)gridDim.x * blockDim.x)
    dst[k] = k < left ? make_float2(__ldg(re + k), __ldg(im + k)) : make_float2(0.0f, 0.0f);
}

/* The product with the filter spectrum and, when folding, the fold in one
 * pass: z[k] = sum_j x[k + j m] h[k + j m] (m = n / fold; fold 1: the
 * product alone), added in j order, into x[k]; unused slots get zeros. */
__global__ void multiply_kernel(float2 *buf, const gc_cx_batch b) {
  float2 *x = buf + blockIdx.y * b.n;
  const int64_t m = b.n / b.fold;
  const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  if (blockIdx.y >= b.used) {
    for (int64_t k = first; k < m; k += step) x[k] = make_float2(0.0f, 0.0f);
    return;
  }
  int64_t c, s;
  slot_of(b, &c, &s);
  const float2 *h = b.spec + b.filter_of[c] * b.n;
  for (int64_t k = first; k < m; k += step) {
    float2 z = make_float2(0.0f, 0.0f);
    for (int64_t j = 0; j < b.fold; j++) {
      const float2 u = x[k + j * m], v = __ldg(h + k + j * m);
      const float2 p = make_float2(__fmaf_rn(u.x, v.x, -u.y * v.y), __fmaf_rn(u.x, v.y, u.y * v.x));
      if (j == 0) {
        z = p;
      } else {
        z.x += p.x;
        z.y += p.y;
      }
    }
    x[k] = z;
  }
}

__global__ void scatter_kernel(const float2 *buf, const gc_cx_batch b) {
  int64_t c, s;
  slot_of(b, &c, &s);
  const int64_t per = b.l / b.fold, first = s * per;
  const float2 *src = buf + blockIdx.y * b.n + b.skip;
  float *re = b.out + 2 * c * b.out_stride + first;
  float *im = re + b.out_stride;
  const int64_t count = b.kept - first < per ? b.kept - first : per;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < count;
       k += (int64_t)gridDim.x * blockDim.x) {
    const float2 v = src[k];
    re[k] = v.x;
    im[k] = v.y;
  }
}

__global__ void scale_kernel(float2 *x, int64_t count, float scale) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = make_float2(x[i].x * scale, x[i].y * scale);
}

/* Blocks along x for `items` per slot: enough to fill the device even when
 * a batch has few slots. */
unsigned blocks_x(int64_t items, unsigned slots) {
  const int64_t cap = 2048 / slots > 16 ? 2048 / slots : 16;
  int64_t b = (items + kThreads - 1) / kThreads;
  if (b > cap) b = cap;
  return (unsigned)(b > 0 ? b : 1);
}

} // namespace

bool gc_fused_cx_supported(int64_t n) {
  return find(n) != NULL;
}

convoy_status gc_fused_cx_prepare(int64_t n, char *err, size_t err_size) {
  const instance *in = find(n);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no fused complex FFT kernel for N=%lld", (long long)n);
  GP_CUDA(in->prepare(), "gpu_conv: fused complex FFT kernel shared memory");
  return CONVOY_OK;
}

convoy_status gc_fused_cx_launch(int64_t n, const gc_fused_args *a, unsigned blocks,
                                 cudaStream_t stream, char *err, size_t err_size) {
  const instance *in = find(n);
  if (!in)
    return convoy_error_format(err, err_size, CONVOY_ERR_UNSUPPORTED,
                               "gpu_conv: no fused complex FFT kernel for N=%lld", (long long)n);
  in->launch(*a, blocks, stream);
  GP_LAUNCHED("gpu_conv: fused complex FFT kernel");
  return CONVOY_OK;
}

convoy_status gc_cx_gather(float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                           size_t err_size) {
  gather_kernel<<<dim3(blocks_x(b->n, b->used), b->used), kThreads, 0, stream>>>(buf, *b);
  GP_LAUNCHED("gpu_conv: complex gather kernel");
  return CONVOY_OK;
}

convoy_status gc_cx_multiply(float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                             size_t err_size) {
  multiply_kernel<<<dim3(blocks_x(b->n / b->fold, b->slots), b->slots), kThreads, 0, stream>>>(buf,
                                                                                               *b);
  GP_LAUNCHED("gpu_conv: complex multiply-fold kernel");
  return CONVOY_OK;
}

convoy_status gc_cx_scatter(const float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                            size_t err_size) {
  scatter_kernel<<<dim3(blocks_x(b->l / b->fold, b->used), b->used), kThreads, 0, stream>>>(buf,
                                                                                            *b);
  GP_LAUNCHED("gpu_conv: complex folded scatter kernel");
  return CONVOY_OK;
}

convoy_status gc_cx_scale(float2 *spec, int64_t count, float scale, cudaStream_t stream, char *err,
                          size_t err_size) {
  int64_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks > 4096) blocks = 4096;
  scale_kernel<<<(unsigned)(blocks > 0 ? blocks : 1), kThreads, 0, stream>>>(spec, count, scale);
  GP_LAUNCHED("gpu_conv: complex spectrum scale");
  return CONVOY_OK;
}
