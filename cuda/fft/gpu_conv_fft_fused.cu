/*
 * gpu_conv_fft_fused.cu - the fused FFT engine's kernels: one thread block
 * per (channel, segment) pair runs gf::segment (gpu_conv_fft_fused.cuh) with
 * the block's threads as the executor.
 *
 * Instances: N = 2^10 .. 2^15 (M = N/2 complex points), 8 or 16 points per
 * thread (16 only where M/16 >= 32 threads, 8 only where M/8 <= 1024); on
 * interleaved frames of 2, 4 or 8 rows, 16 points per thread, up to 8 rows
 * a block, or a thread block cluster a segment (4 rows at N = 4096 and 8192,
 * 8 rows at 2048 to 8192).
 */
#include "gpu_conv_fft_paths.cuh"
#include "gpu_conv_fft_fused.cuh"

#include <math.h>
#include <stdlib.h>

namespace {

/* How the passes have their twiddles at M = 2^LOG2M, alike in the planar
 * and the rows kernels so that their bits agree: from the pass tables at
 * N = 8192 with 16 points a thread, where the kernel then fits 80 registers
 * and three blocks an SM (H200, 1024 taps, 2^28 samples: 209 -> 244 GS/s),
 * and at N = 32768 (129 -> 135, 64 registers and fewer spills; the kernels
 * on frames there as fast as before); chained elsewhere (the planar kernel
 * at N = 4096 went 224 -> 229 but the rows kernels there, capped at 80
 * registers, spilled more and lost 3-5%; the four-step and complex kernels
 * ran as fast or slower). */
template <int LOG2M, int LOG2E> __host__ __device__ constexpr gf::powers powers_at() {
  return (LOG2M == 12 || LOG2M == 14) && LOG2E == 4 ? gf::powers::table : gf::powers::chain;
}

/* Whether the transforms at M = 2^LOG2M turn in registers (gf::turn_real:
 * the last forward pass, the spectrum's split and product and the first
 * inverse pass without shared memory between them), alike in the planar
 * and the rows kernels so that their bits agree. Only where it measured
 * faster (H200, 1024 taps, 2^28 samples, two runs each): N = 16384 with 16
 * points a thread, 191-193 -> 213-214 GS/s (64 registers instead of 83:
 * two blocks an SM). Slower at N = 2048 (196-198 -> 188-189) and N = 4096
 * (277-282 -> 274-276, at 70 registers or held to 64); sizes without a
 * remainder pass (N = 8192) cannot turn, nor can the pass tables'
 * twiddles (N = 32768). */
template <int LOG2M, int LOG2E> __host__ __device__ constexpr bool turns_at() {
  return LOG2M == 13 && LOG2E == 4;
}

/* Blocks an SM the planar kernel is compiled for (0: left to the
 * compiler, which at N = 4096 takes 96 registers and 5 blocks, or 80 and 6
 * with the table; given 1 it takes up to 146 and ran 20% slower). */
template <int LOG2M, int LOG2E> constexpr int planar_min_blocks() {
  return powers_at<LOG2M, LOG2E>() == gf::powers::table ? 768 / gf::shape<LOG2M, LOG2E>::T : 0;
}

template <int LOG2M, int LOG2E, int IL>
__global__ void __launch_bounds__(gf::shape<LOG2M, LOG2E>::T, planar_min_blocks<LOG2M, LOG2E>())
    fused_kernel(const gc_fused_args a) {
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
  gf::segment<S, IL, powers_at<LOG2M, LOG2E>(), turns_at<LOG2M, LOG2E>()>(
      ex, gf_buf, src, (int)left, in, dst, a.skip, (int)count, out,
      a.spec + a.filter_of[c] * a.spec_stride, a.tw);
}

/* G rows of interleaved frames of IL rows a block (gf::segment_rows): pair
 * p is segment p / (IL / G), rows G (p % (IL / G)) on. C > 1: launched in
 * clusters of C = IL / G blocks, one a segment, pair p being block p % C of
 * its cluster (launches start at multiples of C). Registers: several rows
 * a block are held to 768 threads an SM; one row a block to 1024 (64
 * registers at N = 4096, no spills; 8 rows there 151 -> 159 GS/s on an
 * H200 against 640 threads an SM, 158 at 896), or to 768 where the
 * twiddles come from the pass tables, as the planar kernel. */
template <int LOG2M, int LOG2E, int G> constexpr int rows_min_blocks() {
  constexpr bool table = powers_at<LOG2M, LOG2E>() == gf::powers::table;
  constexpr int blocks = (G > 1 || table ? 768 : 1024) / (G * gf::shape<LOG2M, LOG2E>::T);
  return blocks > 1 ? blocks : 1;
}
template <int LOG2M, int LOG2E, int IL, int G, int C>
__global__ void __launch_bounds__(G *gf::shape<LOG2M, LOG2E>::T, rows_min_blocks<LOG2M, LOG2E, G>())
    fused_rows_kernel(const gc_fused_args a) {
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
  const int64_t at = s * a.l * IL + (C == 1 ? row0 : 0);
  gf::segment_rows<S, G, IL, C, powers_at<LOG2M, LOG2E>(), turns_at<LOG2M, LOG2E>()>(
      gf_buf, a.in + at, (int)left, a.out + at, a.skip, (int)count,
      a.spec + a.filter_of[row0 + g] * a.spec_stride, a.tw);
}

typedef void (*launch_fn)(const gc_fused_args &, unsigned, cudaStream_t);
typedef cudaError_t (*prepare_fn)(void);

template <int LOG2M, int LOG2E, int G = 1> constexpr size_t smem_bytes() {
  return sizeof(float2) * (size_t)G * (size_t)gf::shape<LOG2M, LOG2E>::buf_elems;
}

/* IL: 1 for planar rows, else interleaved frames of IL rows, G of them a
 * block, in clusters of C blocks. */
template <int LOG2M, int LOG2E, int IL = 1, int G = 1, int C = 1>
void launch(const gc_fused_args &a, unsigned blocks, cudaStream_t stream) {
  constexpr int T = gf::shape<LOG2M, LOG2E>::T;
  constexpr size_t bytes = smem_bytes<LOG2M, LOG2E, G>();
  if constexpr (G == 1 && C == 1) {
    fused_kernel<LOG2M, LOG2E, IL><<<blocks, T, bytes, stream>>>(a);
  } else if constexpr (C == 1) {
    fused_rows_kernel<LOG2M, LOG2E, IL, G, 1><<<blocks, G * T, bytes, stream>>>(a);
  } else {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(G * T);
    config.dynamicSmemBytes = bytes;
    config.stream = stream;
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = C;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    (void)cudaLaunchKernelEx(&config, fused_rows_kernel<LOG2M, LOG2E, IL, G, C>, a);
  }
}

template <int LOG2M, int LOG2E, int IL = 1, int G = 1, int C = 1> const void *kernel_of() {
  if constexpr (G == 1 && C == 1)
    return (const void *)fused_kernel<LOG2M, LOG2E, IL>;
  else
    return (const void *)fused_rows_kernel<LOG2M, LOG2E, IL, G, C>;
}

template <int LOG2M, int LOG2E, int IL = 1, int G = 1, int C = 1> cudaError_t prepare() {
  constexpr size_t bytes = smem_bytes<LOG2M, LOG2E, G>();
  if (bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(kernel_of<LOG2M, LOG2E, IL, G, C>(),
                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Whether this process's binary of a cluster kernel can run on the current
 * device: clusters need compute capability 9.0 in the device and in the
 * code the kernel was built from (ptxVersion: a kernel built for an older
 * virtual architecture and compiled for this device at load time has the
 * cluster code compiled out). Asked when an engine is made. */
template <int LOG2M, int LOG2E, int IL, int G, int C> bool runnable() {
  cudaFuncAttributes attr;
  const bool ok =
      cudaFuncGetAttributes(&attr, kernel_of<LOG2M, LOG2E, IL, G, C>()) == cudaSuccess &&
      attr.binaryVersion >= 90 && attr.ptxVersion >= 90;
  (void)cudaGetLastError();
  return ok;
}

typedef bool (*runnable_fn)(void);

} // namespace

struct gc_fused_kernel {
  launch_fn launch;
  prepare_fn prepare;
  int rows;           /* rows a block */
  int cluster;        /* blocks a cluster (1: none) */
  runnable_fn usable; /* NULL: always */
};

namespace {

/* [log2 N - 10][0: 8 points, 1: 16 points] */
const gc_fused_kernel kInstances[6][2] = {
    {{launch<9, 3>, prepare<9, 3>, 1, 1, NULL}, {launch<9, 4>, prepare<9, 4>, 1, 1, NULL}},
    {{launch<10, 3>, prepare<10, 3>, 1, 1, NULL}, {launch<10, 4>, prepare<10, 4>, 1, 1, NULL}},
    {{launch<11, 3>, prepare<11, 3>, 1, 1, NULL}, {launch<11, 4>, prepare<11, 4>, 1, 1, NULL}},
    {{launch<12, 3>, prepare<12, 3>, 1, 1, NULL}, {launch<12, 4>, prepare<12, 4>, 1, 1, NULL}},
    {{launch<13, 3>, prepare<13, 3>, 1, 1, NULL}, {launch<13, 4>, prepare<13, 4>, 1, 1, NULL}},
    {{NULL, NULL, 0, 0, NULL}, {launch<14, 4>, prepare<14, 4>, 1, 1, NULL}},
};

/* Interleaved frames, 16 points a thread: [log2 N - 10][2, 4, 8 rows]. A
 * block takes as many rows of a frame as fit in 512 threads, or a cluster
 * of blocks (of one row, or two) shares the frames, each block moving
 * whole frames (a C-th of the segment's) through the cluster's shared
 * memory. Measured on an H200 (GS/s, device
 * rows of 2^28 samples in 2^24-frame calls; the conversion passes around
 * the planar kernel are what a size without an entry runs):
 *   N = 4096 (1024 taps; planar 192-204): 2 rows both in a block 144-147
 *     (at 123 registers 117; alone 131); 4 rows in clusters of two blocks
 *     of two 141-144, all in a block 124-126; 8 rows in clusters of four
 *     blocks of two 126-127, of two blocks of four 109, conversion 105;
 *     blocks each reading their rows' part of every frame, four rows 93,
 *     two 97.
 *   N = 8192 (3000 taps): 4 rows in clusters of two blocks of two 94-98,
 *     two rows a block alone 83; 8 rows in clusters 71-82, conversion 89.
 *   One row a block, clusters of IL blocks (2048 taps at N = 8192 and N / 4
 *     elsewhere, against the entries before; planar 191-209, 162-174 at
 *     8192): 8 rows 132 against 126 at 4096, 107-108 against 95 at 8192
 *     (conversion), 126 against 145 at 2048; 4 rows 109-110 against 106 at
 *     8192, 131 against 141 at 4096, 124 against 169 at 2048; 2 rows
 *     94-115 against 98-156.
 *   Since then 4-row frames move in pairs (gf::segment_rows): 150 at
 *     4096, 121-123 at 8192.
 *   N = 16384 and 32768 (6000, 12000 taps): clusters ran at 1.0x of the
 *     blocks alone on 4 rows and 0.87x on 2 at 16384, 0.87x and 0.92x at
 *     32768; 8 rows 0.93x and 0.87x of the conversion. */
#define GF_IL(LM, IL, G, C)                                                                        \
  {                                                                                                \
    launch<LM, 4, IL, G, C>, prepare<LM, 4, IL, G, C>, G, C,                                       \
        C > 1 ? runnable<LM, 4, IL, G, C> : NULL                                                   \
  }
#define GF_NONE                                                                                    \
  { NULL, NULL, 0, 0, NULL }
const gc_fused_kernel kInterleaved[6][3] = {
    {GF_IL(9, 2, 2, 1), GF_IL(9, 4, 4, 1), GF_IL(9, 8, 8, 1)},
    {GF_IL(10, 2, 2, 1), GF_IL(10, 4, 4, 1), GF_IL(10, 8, 4, 2)},
    {GF_IL(11, 2, 2, 1), GF_IL(11, 4, 2, 2), GF_IL(11, 8, 1, 8)},
    {GF_IL(12, 2, 2, 1), GF_IL(12, 4, 1, 4), GF_IL(12, 8, 1, 8)},
    {GF_IL(13, 2, 1, 1), GF_IL(13, 4, 1, 1), GF_NONE},
    {GF_IL(14, 2, 1, 1), GF_IL(14, 4, 1, 1), GF_NONE},
};
/* Where clusters do not run: blocks that each read their rows' part of
 * every frame. */
const gc_fused_kernel kInterleavedAlone[6][3] = {
    {GF_IL(9, 2, 2, 1), GF_IL(9, 4, 4, 1), GF_IL(9, 8, 8, 1)},
    {GF_IL(10, 2, 2, 1), GF_IL(10, 4, 4, 1), GF_NONE},
    {GF_IL(11, 2, 2, 1), GF_IL(11, 4, 4, 1), GF_NONE},
    {GF_IL(12, 2, 2, 1), GF_IL(12, 4, 2, 1), GF_NONE},
    {GF_IL(13, 2, 1, 1), GF_IL(13, 4, 1, 1), GF_NONE},
    {GF_IL(14, 2, 1, 1), GF_IL(14, 4, 1, 1), GF_NONE},
};
#undef GF_NONE
#undef GF_IL

} // namespace

const gc_fused_kernel *gc_fused_find(int64_t n, int points, int frame_rows) {
  if (n < GC_FUSED_MIN_N || n > GC_FUSED_MAX_N || (n & (n - 1)) != 0) return NULL;
  if (points != 8 && points != 16) return NULL;
  const int k = gc_log2(n);
  if (frame_rows > 1) {
    const int col = frame_rows == 2 ? 0 : frame_rows == 4 ? 1 : frame_rows == 8 ? 2 : -1;
    if (points != 16 || col < 0) return NULL;
    const gc_fused_kernel *in = &kInterleaved[k - 10][col];
    if (in->usable && !in->usable()) in = &kInterleavedAlone[k - 10][col];
    return in->launch ? in : NULL;
  }
  const gc_fused_kernel *in = &kInstances[k - 10][points == 16 ? 1 : 0];
  return in->launch ? in : NULL;
}

/* Measured on an H200 at 1024 taps: 16 points per thread beat 8 by 15-25%
 * at every size. */
int gc_fused_default_points(int64_t n) {
  (void)n;
  return 16;
}

int gc_fused_rows_a_block(const gc_fused_kernel *k) {
  return k->rows;
}

int gc_fused_cluster_blocks(const gc_fused_kernel *k) {
  return k->cluster;
}

convoy_status gc_fused_prepare(const gc_fused_kernel *k, char *err, size_t err_size) {
  GP_CUDA(k->prepare(), "gpu_conv: fused FFT kernel shared memory");
  return CONVOY_OK;
}

convoy_status gc_fused_launch(const gc_fused_kernel *k, const gc_fused_args *a, unsigned blocks,
                              cudaStream_t stream, char *err, size_t err_size) {
  k->launch(*a, blocks, stream);
  GP_LAUNCHED("gpu_conv: fused FFT kernel");
  return CONVOY_OK;
}

namespace {

/* count values from host into *tw, cudaMalloc'd here (NULL on failure). */
convoy_status table_to_device(const float2 *host, int64_t count, float2 **tw, char *err,
                              size_t err_size) {
  cudaError_t e = cudaMalloc((void **)tw, sizeof(float2) * (size_t)count);
  if (e == cudaSuccess)
    e = cudaMemcpy(*tw, host, sizeof(float2) * (size_t)count, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) return CONVOY_OK;
  cudaFree(*tw);
  *tw = NULL;
  return gp_cuda_fail(e, "gpu_conv: FFT twiddle table", err, err_size);
}

/* W_n^(i step) for i < count in host memory (malloc'd; NULL: out of memory). */
float2 *host_powers(int64_t n, int64_t count, int64_t step) {
  float2 *host = (float2 *)malloc(sizeof(float2) * (size_t)count);
  for (int64_t i = 0; host && i < count; i++) host[i] = gf::twiddle_of(n, i * step);
  return host;
}

convoy_status out_of_host_memory(char *err, size_t err_size) {
  return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "gpu_conv: out of host memory");
}

} // namespace

convoy_status gc_twiddle_fill(int64_t n, int64_t count, int64_t step, float2 *d_tw, char *err,
                              size_t err_size) {
  float2 *host = host_powers(n, count, step);
  if (!host) return out_of_host_memory(err, err_size);
  cudaError_t e = cudaMemcpy(d_tw, host, sizeof(float2) * (size_t)count, cudaMemcpyHostToDevice);
  free(host);
  if (e != cudaSuccess) return gp_cuda_fail(e, "gpu_conv: FFT twiddle table", err, err_size);
  return CONVOY_OK;
}

convoy_status gc_twiddle_table(int64_t n, int64_t count, int64_t step, float2 **tw, char *err,
                               size_t err_size) {
  *tw = NULL;
  float2 *host = host_powers(n, count, step);
  if (!host) return out_of_host_memory(err, err_size);
  convoy_status st = table_to_device(host, count, tw, err, err_size);
  free(host);
  return st;
}

convoy_status gc_fused_twiddles(int64_t n, int points, float2 **tw, char *err, size_t err_size) {
  *tw = NULL;
  const int64_t count = n - points; /* shape::tw_elems: 2M - E */
  float2 *host = (float2 *)malloc(sizeof(float2) * (size_t)count);
  if (!host) return out_of_host_memory(err, err_size);
  gf::fill_twiddles(gc_log2(n) - 1, gc_log2(points), host);
  convoy_status st = table_to_device(host, count, tw, err, err_size);
  free(host);
  return st;
}
