/*
 * gpu_conv_fft_paths.cuh - the FFT engine's implementations below
 * gpu_conv_fft.cu (CUDA C++ only).
 *
 *   fused     one kernel per launch does the whole overlap-save of a
 *             segment in a thread block (gpu_conv_fft_fused.cu); N from 2^10
 *             to 2^15.
 *   callback  batched cuFFT R2C/C2R whose LTO callbacks gather, multiply and
 *             scatter (gpu_conv_fft_cb.cu): two passes of cuFFT, any N.
 *   fourstep  N from 2^16 to 2^22: three kernels per batch of segments, a
 *             four-step FFT whose first and last steps read the signal and
 *             write the outputs (gpu_conv_fft_4step.cu).
 *   plain     batched cuFFT with gather, multiply and scatter kernels between
 *             (gpu_conv_fft.cu): above 2^22, and where callbacks fail.
 */
#ifndef CONVOY_GPU_CONV_FFT_PATHS_CUH
#define CONVOY_GPU_CONV_FFT_PATHS_CUH

#include "gpu_conv_internal.cuh"
#include "gpu_conv_fft_cb.cuh"
#include "gpu_conv_fft_path.h"

/* ------------------------------------------------------------- fused */

/* log2 of n, a power of two (the smallest k with 2^k >= n). */
inline int gc_log2(int64_t n) {
  int k = 0;
  while (((int64_t)1 << k) < n) k++;
  return k;
}

#define GC_FUSED_MIN_N ((int64_t)1 << 10)
#define GC_FUSED_MAX_N ((int64_t)1 << 15)

typedef struct gc_fused_args {
  const float *in;
  int64_t in_stride, n_in;
  float *out;
  int64_t out_stride, n_out;
  int64_t segments; /* per channel in this call */
  int64_t p0;       /* first (channel, segment) pair of the launch */
  int64_t l, window;
  int32_t skip;        /* taps - 1 */
  const float2 *spec;  /* [filters][n/2 + 1], scaled by 1/(2n) */
  int64_t spec_stride; /* n/2 + 1 */
  const int32_t *filter_of;
  const float2 *tw;   /* gc_fused_twiddles' table (complex: of n complex points) */
  int32_t frame_rows; /* 0: planar rows (in_stride, out_stride); 2, 4 or 8: interleaved
                         frames of that many rows (the channels), strides unused;
                         complex filters: 2, 4 or 8 for frames of 1, 2 or 4 complex
                         channels, (re, im) each */
} gc_fused_args;

/* Points per thread the fused kernel uses at size n unless overridden (8 or 16). */
int gc_fused_default_points(int64_t n);

/* One instance of the fused kernel: a size, points per thread and frame
 * layout, found once (at create) and launched as often as needed. Static;
 * never freed. */
typedef struct gc_fused_kernel gc_fused_kernel;

/* The kernel for size n and points per thread, on planar rows (frame_rows 0
 * or 1) or interleaved frames of frame_rows rows, that runs on the current
 * device (thread block clusters need compute capability 9.0 in the device
 * and in the kernel's code); NULL where none does. */
const gc_fused_kernel *gc_fused_find(int64_t n, int points, int frame_rows);

/* Rows of an interleaved frame one block transforms (1 on planar rows), and
 * the blocks of a thread block cluster that share a segment's frames (1: no
 * cluster; a launch's blocks and its p0 are then multiples of it). */
int gc_fused_rows_a_block(const gc_fused_kernel *k);
int gc_fused_cluster_blocks(const gc_fused_kernel *k);

/* Raises the kernel's shared-memory limit where it needs more than 48 KiB. */
convoy_status gc_fused_prepare(const gc_fused_kernel *k, char *err, size_t err_size);

/* One block per (channel, segment) pair p0 .. p0 + blocks - 1; on
 * interleaved frames (a->frame_rows > 1, as k's) per (rows of a block,
 * segment) pair, the rows of one segment side by side. */
convoy_status gc_fused_launch(const gc_fused_kernel *k, const gc_fused_args *a, unsigned blocks,
                              cudaStream_t stream, char *err, size_t err_size);

/* W_n^(i step mod n) for 0 <= i < count on the device (computed in double).
 * *tw is cudaMalloc'd; the caller frees it. */
convoy_status gc_twiddle_table(int64_t n, int64_t count, int64_t step, float2 **tw, char *err,
                               size_t err_size);

/* The same table written into d_tw, a device buffer of at least count
 * values (synchronous copy). */
convoy_status gc_twiddle_fill(int64_t n, int64_t count, int64_t step, float2 *d_tw, char *err,
                              size_t err_size);

/* The twiddle table the fused kernels of size n (powers of two) with
 * `points` a thread read (gf::fill_twiddles, n - points values), on the
 * device; *tw is cudaMalloc'd, the caller frees it. */
convoy_status gc_fused_twiddles(int64_t n, int points, float2 **tw, char *err, size_t err_size);

/* ------------------------------------------------------------- four-step */

#define GC_FOUR_MIN_N ((int64_t)1 << 16)
#define GC_FOUR_MAX_N ((int64_t)1 << 22)

typedef struct gc_four_args {
  const float *in;
  int64_t in_stride, n_in;
  float *out;
  int64_t out_stride, n_out;
  int64_t segments, p0;
  int64_t l, window;
  int32_t skip;
  float2 *scratch;  /* [slots][n/2] */
  const float2 *hp; /* [filters][n/2 + 1], row order, scaled by 1/(2n) */
  int64_t hp_stride;
  const int32_t *filter_of;
  const float2 *tw_rows, *tw_cols, *wide, *fine;
} gc_four_args;

/* Whether the four-step kernels exist for size n; *m1, *m2 its split of n/2. */
bool gc_four_supported(int64_t n, int *m1, int *m2);

convoy_status gc_four_prepare(int64_t n, char *err, size_t err_size);

/* The three kernels for slots 0 .. used-1 (pairs p0 .. p0 + used - 1). */
convoy_status gc_four_launch(int64_t n, const gc_four_args *a, unsigned used, cudaStream_t stream,
                             char *err, size_t err_size);

/* Reorders [filters][n/2 + 1] spectra into row order, in place through a
 * temporary. */
convoy_status gc_four_reorder(int64_t n, float2 *spec, int32_t filters, cudaStream_t stream,
                              char *err, size_t err_size);

/* ------------------------------------------------------------- callbacks */

/* Whether the build embedded the callbacks' LTO-IR. */
bool gc_cb_compiled(void);

/* Fills the device-side facts of a lane (copied to the device by the caller). */
void gc_cb_info_make(gc_cb_info *ci, gc_cb_slot *d_slots, int64_t n, int64_t skip);

/* Attaches the three callbacks to freshly created, not yet planned handles.
 * *d_info must stay valid (and its device struct alive) for the plans' life. */
convoy_status gc_cb_attach(cufftHandle fwd, cufftHandle inv, gc_cb_info **d_info, char *err,
                           size_t err_size);

/* One batch of the callback path. */
typedef struct gc_cb_batch {
  const float *in;
  int64_t in_stride, n_in;
  float *out;
  int64_t out_stride, n_out;
  int64_t segments, p0;
  unsigned used;
  int64_t l, window;
  const float2 *spec;
  int64_t bins;
  const int32_t *filter_of;
} gc_cb_batch;

/* Rewrites the slot table for a batch (slots past b->used read and write nothing). */
convoy_status gc_cb_slots_set(gc_cb_slot *d_slots, unsigned total, const gc_cb_batch *b,
                              cudaStream_t stream, char *err, size_t err_size);

/* ------------------------------------------------------------- complex
 *
 * Complex filters on (real, imaginary) row pairs (gpu_conv_fft_cx.cu): N is
 * the number of complex points, a segment yields L complex outputs, filter
 * spectra are full (N bins), scaled by 1/N. Two implementations:
 *   fused  N = 2^9 .. 2^14: one kernel, one thread block per (complex
 *          channel, segment) pair, gf::segment_cx;
 *   plain  any N: gather, cuFFT C2C forward, multiply, C2C inverse, scatter
 *          over batches of slots of N complex values.
 * In gc_fused_args, in/out point at row 0 and channel c's rows are 2c and
 * 2c + 1, or (frame_rows 2, 4 or 8) at frame 0 of 1, 2 or 4 complex
 * channels, (re, im) each; filter_of is indexed by complex channel;
 * spec_stride is N and tw the twiddle table of the fused kernels of N
 * complex points, GC_FUSED_CX_POINTS a thread (gc_fused_twiddles(2 N,
 * GC_FUSED_CX_POINTS): W_2N^i for 0 <= i < N, then the passes' tables). */

#define GC_FUSED_CX_MIN_N ((int64_t)1 << 9)
#define GC_FUSED_CX_MAX_N ((int64_t)1 << 14)
#define GC_FUSED_CX_POINTS 16

bool gc_fused_cx_supported(int64_t n);
convoy_status gc_fused_cx_prepare(int64_t n, char *err, size_t err_size);
convoy_status gc_fused_cx_launch(int64_t n, const gc_fused_args *a, unsigned blocks,
                                 cudaStream_t stream, char *err, size_t err_size);

/* One batch of the plain complex path: slots 0 .. used-1 hold the pairs
 * p0 .. p0 + used - 1 of (complex channel, segment). */
typedef struct gc_cx_batch {
  const float *in;
  int64_t in_stride, n_in;
  float *out;
  int64_t out_stride, n_out;
  int64_t segments, p0;
  unsigned used, slots; /* slots: the plan's batch; slots past used are zeroed */
  int64_t n, l, window, skip;
  const float2 *spec; /* [filters][n] */
  const int32_t *filter_of;
  int64_t fold; /* D, the kept outputs' step (1: every output) */
  int64_t kept; /* outputs kept per row pair, compacted in out */
} gc_cx_batch;

/* Segments into buf ([slots][n] complex): inputs, then zeros. */
convoy_status gc_cx_gather(float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                           size_t err_size);
/* buf[slot][k] *= spec[filter][k] and, for b->fold > 1 (decimation by a
 * power of two dividing n and l), the fold: in each used slot, z[k] =
 * sum_j (x h)[k + j n / fold] for k < n / fold, in place at the slot's
 * start, so that the inverse transform of size n / fold gives every
 * fold-th value of the full one. Slots from used on are zeroed. */
convoy_status gc_cx_multiply(float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                             size_t err_size);
/* The l / fold outputs of each used slot, from index b->skip of its
 * inverse transform, to outputs s l / fold .. of the row pairs (at most
 * b->kept a pair; fold 1: the segment's l outputs). */
convoy_status gc_cx_scatter(const float2 *buf, const gc_cx_batch *b, cudaStream_t stream, char *err,
                            size_t err_size);
/* spec[i] *= scale for i < count. */
convoy_status gc_cx_scale(float2 *spec, int64_t count, float scale, cudaStream_t stream, char *err,
                          size_t err_size);

/* ------------------------------------------------------------- override */

/* The implementation forced by gpu_conv_fft_override() or CONVOY_GPU_FFT_PATH
 * (0 = choose), and the forced points per thread of the fused kernel (0 = default). */
int gc_fft_forced_path(void);
int gc_fft_forced_points(void);

#endif /* CONVOY_GPU_CONV_FFT_PATHS_CUH */
