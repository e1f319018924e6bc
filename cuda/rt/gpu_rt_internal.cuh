/*
 * gpu_rt_internal.cuh - what the GPU real-time convolver's translation units
 * share (CUDA C++ only): the device-side route set, the per-block control
 * word, the geometry of one convolver, and the kernels of its per-block graph.
 *
 * The method is partitioned overlap-save in one or two levels. The head has
 * partitions of the block B: every block, each input's last 2B samples are
 * transformed (real FFT of 2B points, B + 1 bins) into a slot of the head's
 * frequency-domain delay line (FDL), and output o's spectrum is the sum over
 * its routes r and partitions p of FDL[in_r][block - p] * H_r[p], where H_r[p]
 * is the spectrum of taps [p*B, (p+1)*B) of route r, zero-padded, times
 * gain_r / 2B. The last B samples of its inverse transform are the output.
 *
 * A tail, where the plan has one, takes the taps from L = 2Q on in
 * partitions of Q = R * B (R >= 2 blocks; the head then covers [0, L)). Its
 * cycle m transforms the input's samples [(m-2)Q, mQ) once the block that
 * completes them has come (block mR - 1), and its sum over partitions,
 * inverse transform and valid half give the tail's output for frames
 * [(m+1)Q, (m+2)Q): blocks (m+1)R .. (m+2)R - 1 add it, B frames each. The
 * R blocks in between each multiply-add one R-th of its bins (a slice), so
 * a block's work stays even and far below the head's for the same taps.
 *
 * Route sets change with a one-block crossfade. Without a tail it is the
 * next block. With one it is the first block of the first tail cycle not
 * yet begun (at most 2Q frames away): that cycle sums both sets, later
 * cycles the new one.
 *
 * Thread safety: none inside; gpu_rt.cu serialises the calls as
 * pipeline/rt_backend.h says.
 */
#ifndef CONVOY_GPU_RT_INTERNAL_CUH
#define CONVOY_GPU_RT_INTERNAL_CUH

#include "convoy.h"
#include "convoy_rt.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <stddef.h>
#include <stdint.h>

/* Levels: the head (partitions of the block) and the tail. */
enum { GRT_HEAD = 0, GRT_TAIL = 1, GRT_LEVELS = 2 };

/* One route set as the kernels read it (lives in device memory). Routes are
 * sorted by output: those of output o are out_begin[o] .. out_begin[o+1]-1. */
typedef struct grt_set_dev {
  const int32_t *out_begin; /* [n_out + 1] */
  const int32_t *route_in;  /* [n_routes] input channel */
  /* Per level: partitions of each route in it (0 when its taps end before
   * the level), the offset of its partition 0 in spectra (bins), and the
   * spectra: route r, partition p, bin k at route_off[r] + p*K + k. */
  const int32_t *route_parts[GRT_LEVELS];
  const int64_t *route_off[GRT_LEVELS];
  const float2 *spectra[GRT_LEVELS];
} grt_set_dev;

/* What one level does this block. */
typedef struct grt_ctl_level {
  const grt_set_dev *set[2]; /* [0] always summed; [1] too when both */
  int32_t both;              /* 1: sum set[1] as well (a crossfade's sets) */
  int32_t pos;               /* FDL slot of this block (head) or cycle (tail) */
  int32_t slice;             /* tail: the slice of bins summed this block */
} grt_ctl_level;

/* What changes from block to block, written by the process() thread into
 * mapped host memory before each graph launch and copied to the device by
 * the graph's first kernel. */
typedef struct grt_ctl {
  grt_ctl_level level[GRT_LEVELS];
  int32_t fade;      /* 1: crossfade from set 0 to set 1 this block */
  int32_t tail_set;  /* the tail's set of this block's output when not fading */
  int32_t tail_in;   /* frames into the tail window's second half for this block */
  int64_t tail_read; /* floats into tail_out of this block's tail output, set 0 */
  int64_t tail_keep; /* floats into tail_out where this cycle's output goes */
} grt_ctl;

/* One level's partitions and launch shapes, fixed at create. */
typedef struct grt_level {
  int32_t size;        /* P: partition length in frames (FFT of 2P points) */
  int32_t bins;        /* K = P + 1 */
  int32_t parts;       /* partitions in the FDL */
  int64_t first_tap;   /* taps before this level's */
  int32_t slices;      /* blocks its sum is spread over (1: the head) */
  int32_t width;       /* bins a slice, ceil(K / slices) */
  int32_t splits;      /* partition ranges summed by separate thread blocks */
  int32_t mac_threads; /* threads per MAC block */
  int32_t mac_lanes;   /* partitions a MAC block walks side by side */
} grt_level;

/* Fixed at create. */
typedef struct grt_geom {
  int32_t block; /* B, frames */
  int32_t n_in, n_out;
  int32_t levels; /* 1: uniform partitions; 2: head and tail */
  grt_level level[GRT_LEVELS];
} grt_geom;

/* Device buffers of one level. */
typedef struct grt_level_bufs {
  float *window;    /* [n_in][2P] FFT input */
  float2 *spec;     /* [n_in][K] its spectra */
  float2 *fdl;      /* [n_in][parts][K] */
  float2 *partial;  /* [2][n_out][splits][width] per-split sums */
  float2 *out_spec; /* [2][n_out][K] */
  float *out_time;  /* [2][n_out][2P] inverse transforms */
} grt_level_bufs;

/* Device buffers of one convolver. */
typedef struct grt_bufs {
  const float *in_host;    /* mapped staging, [n_in][B], device view */
  float *out_host;         /* mapped staging, [n_out][B], device view */
  const grt_ctl *ctl_host; /* mapped control word, device view */
  grt_ctl *ctl;            /* device copy for this block */
  float *prev;             /* [n_in][B] previous input block */
  grt_level_bufs level[GRT_LEVELS];
  float *tail_out; /* [2 cycles][2 sets][n_out][Q]: tail outputs by cycle parity */
} grt_bufs;

/* The plan for a layout: levels, the tail's partition and every launch
 * shape. max_partition: 0 = by the cost model, block = uniform, else the
 * tail's partition is the largest block * 2^k <= max_partition (uniform
 * below 2 blocks). routes: the expected number of routes (for the model);
 * sms and bytes_per_s: the device's multiprocessors and DRAM bandwidth. */
void grt_geom_choose(grt_geom *g, int32_t block, int32_t n_in, int32_t n_out, int64_t max_ir,
                     int32_t max_partition, int64_t routes, int sms, double bytes_per_s);

/* Partitions of a route of n taps in a level (0 where its taps end before
 * the level; a head below a tail stops where the tail begins). */
int32_t grt_level_parts(const grt_geom *g, int level, int64_t n);

/* Estimated device time of the costliest block, ns, for routes with these
 * tap counts (NULL: routes of max_ir taps). */
double grt_geom_cost_ns(const grt_geom *g, const convoy_rt_route *routes, int64_t n_routes,
                        int64_t max_ir, double bytes_per_s);

/* The graph's kernels. `sets` is 1 (set 0 only) or 2 (both, as the control
 * word says). */
/* Control copy, head window, and the tail window's newest block. */
cudaError_t grt_launch_ingest(const grt_geom *g, const grt_bufs *b, cudaStream_t s);
/* After a level's forward FFT: its spectra into the FDL slot. */
cudaError_t grt_launch_commit(const grt_geom *g, const grt_bufs *b, int level, cudaStream_t s);
/* The tail window's second half becomes its first (after its FFT). */
cudaError_t grt_launch_tail_shift(const grt_geom *g, const grt_bufs *b, cudaStream_t s);
/* A level's multiply-add over partitions and the split sums, for its slice
 * of bins this block. */
cudaError_t grt_launch_mac(const grt_geom *g, const grt_bufs *b, int level, int sets,
                           cudaStream_t s);
/* After the tail's inverse FFT (both sets): valid halves into tail_out. */
cudaError_t grt_launch_tail_keep(const grt_geom *g, const grt_bufs *b, cudaStream_t s);
/* After the head's inverse FFT: valid half, tail output, crossfade, staging. */
cudaError_t grt_launch_output(const grt_geom *g, const grt_bufs *b, cudaStream_t s);

/* A route set on the host side: the device allocations behind one
 * grt_set_dev (see gpu_rt_set.cu). */
typedef struct grt_set {
  grt_set_dev *desc; /* device copy of the descriptor */
  int32_t *index;    /* device: out_begin, route_in, route_parts per level */
  int64_t *offsets;  /* device: route_off per level */
  float2 *spectra[GRT_LEVELS];
  int32_t n_routes;
  int64_t total_parts[GRT_LEVELS]; /* partitions over all routes */
} grt_set;

/* What route sets are made with, made once at create so that set_routes()
 * while blocks run allocates nothing that synchronises the device: a stream
 * of the lowest priority, one cuFFT plan a level for a fixed chunk of
 * partitions, and staging. Set memory comes from the stream-ordered
 * allocator on that stream. Used by one thread at a time (prepare,
 * free_set, destroy). */
typedef struct grt_prep {
  cudaStream_t stream;
  cufftHandle plan[GRT_LEVELS];
  int have_plan[GRT_LEVELS];
  int64_t chunk[GRT_LEVELS]; /* partitions per transform */
  float *h_stage;            /* pinned, the larger level's [chunk][2P] */
  float *d_stage;            /* device, likewise */
  float2 *d_spec;            /* device, [chunk][K]: the plans' output */
} grt_prep;

convoy_status grt_prep_create(const grt_geom *g, grt_prep *p, char *err, size_t err_size);
void grt_prep_destroy(grt_prep *p); /* zeroed or created; idempotent */

/* Cuts every route's taps (times gain / 2P) into each level's partitions,
 * transforms them on the device (synchronously, on the preparer's stream)
 * and builds the descriptor. routes are validated by the caller. Not
 * real-time. */
convoy_status grt_set_create(const grt_geom *g, grt_prep *p, const convoy_rt_route *routes,
                             int32_t n_routes, grt_set **out, char *err, size_t err_size);

/* Frees the set's device memory on the preparer's stream and waits for it.
 * NULL is a no-op. */
void grt_set_destroy(grt_prep *p, grt_set *set);

#endif /* CONVOY_GPU_RT_INTERNAL_CUH */
