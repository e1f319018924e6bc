/*
 * gpu_rt_internal.cuh - what the GPU real-time convolver's translation units
 * share (CUDA C++ only): the device-side route set, the per-block control
 * word, the geometry of one convolver, and the kernels of its per-block graph.
 *
 * The method is uniformly partitioned overlap-save with block B: every block,
 * each input's last 2B samples are transformed (real FFT of N = 2B points, K =
 * B + 1 bins) into a slot of a frequency-domain delay line (FDL) of P slots,
 * and output o's spectrum is the sum over its routes r and partitions p of
 * FDL[in_r][block - p] * H_r[p], where H_r[p] is the spectrum of taps
 * [p*B, (p+1)*B) of route r, zero-padded to N, times gain_r / N. The last B
 * samples of its inverse transform are the output block.
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

/* One route set as the kernels read it (lives in device memory). Routes are
 * sorted by output: those of output o are out_begin[o] .. out_begin[o+1]-1. */
typedef struct grt_set_dev {
  const int32_t *out_begin;   /* [n_out + 1] */
  const int32_t *route_in;    /* [n_routes] input channel */
  const int32_t *route_parts; /* [n_routes] partitions, ceil(n_taps / B) */
  const int64_t *route_off;   /* [n_routes] offset of partition 0 in spectra, in bins */
  const float2 *spectra;      /* route r, partition p, bin k at route_off[r] + p*K + k */
} grt_set_dev;

/* What changes from block to block, written by the process() thread into
 * mapped host memory before each graph launch and copied to the device by
 * the graph's first kernel. */
typedef struct grt_ctl {
  const grt_set_dev *set[2]; /* [0] active set, [1] set faded in (when fade) */
  int32_t pos;               /* FDL slot of this block, 0 .. P-1 */
  int32_t fade;              /* 1: crossfade from set[0] to set[1] this block */
} grt_ctl;

/* Fixed at create. */
typedef struct grt_geom {
  int32_t block;  /* B, frames */
  int32_t bins;   /* K = B + 1 */
  int32_t parts;  /* P = ceil(max_ir / B) */
  int32_t splits; /* S: partition ranges summed by separate thread blocks */
  int32_t n_in, n_out;
  int32_t mac_threads; /* threads per MAC block */
  int32_t mac_lanes;   /* partitions a MAC block walks side by side (m) */
} grt_geom;

/* Device buffers of one convolver. */
typedef struct grt_bufs {
  const float *in_host;    /* mapped staging, [n_in][B], device view */
  float *out_host;         /* mapped staging, [n_out][B], device view */
  const grt_ctl *ctl_host; /* mapped control word, device view */
  grt_ctl *ctl;            /* device copy for this block */
  float *prev;             /* [n_in][B] previous input block */
  float *window;           /* [n_in][N] FFT input: previous block, this block */
  float2 *spec;            /* [n_in][K] this block's input spectra */
  float2 *fdl;             /* [n_in][P][K] */
  float2 *partial;         /* [2][n_out][S][K] per-split sums */
  float2 *out_spec;        /* [2][n_out][K] */
  float *out_time;         /* [2][n_out][N] */
} grt_bufs;

/* Picks splits, mac_threads and mac_lanes for the given block, parts,
 * outputs and multiprocessor count. */
void grt_geom_plan(grt_geom *g, int sms);

/* Enqueues the per-block kernels that come before the forward FFT: the
 * control copy and the input window. */
cudaError_t grt_launch_ingest(const grt_geom *g, const grt_bufs *b, cudaStream_t s);
/* Between the forward FFT and the inverse: FDL commit, MAC, split sums,
 * for the active route set only (sets 1, a steady block) or for both
 * (sets 2, a crossfade block; the control word's fade flag is then set). */
cudaError_t grt_launch_mac(const grt_geom *g, const grt_bufs *b, int sets, cudaStream_t s);
/* After the inverse FFT: valid half, crossfade, staging write. */
cudaError_t grt_launch_output(const grt_geom *g, const grt_bufs *b, cudaStream_t s);

/* A route set on the host side: the device allocations behind one
 * grt_set_dev (see gpu_rt_set.cu). */
typedef struct grt_set {
  grt_set_dev *desc; /* device copy of the descriptor */
  int32_t *index;    /* device: out_begin, route_in, route_parts */
  int64_t *offsets;  /* device: route_off */
  float2 *spectra;   /* device */
  int32_t n_routes;
  int64_t total_parts; /* partitions over all routes */
} grt_set;

/* What route sets are made with, made once at create so that set_routes()
 * while blocks run allocates nothing that synchronises the device: a stream
 * of the lowest priority, one cuFFT plan for a fixed chunk of partitions,
 * and its staging. Set memory comes from the stream-ordered allocator on
 * that stream. Used by one thread at a time (prepare, free_set, destroy). */
typedef struct grt_prep {
  cudaStream_t stream;
  cufftHandle plan;
  int have_plan;
  int64_t chunk;  /* partitions per transform */
  float *h_stage; /* pinned, [chunk][N] */
  float *d_stage; /* device, [chunk][N] */
  float2 *d_spec; /* device, [chunk][K]: the plan's output */
} grt_prep;

convoy_status grt_prep_create(const grt_geom *g, grt_prep *p, char *err, size_t err_size);
void grt_prep_destroy(grt_prep *p); /* zeroed or created; idempotent */

/* Cuts every route's taps (times gain / N) into partitions of B, transforms
 * them on the device (synchronously, on the preparer's stream) and builds
 * the descriptor. routes are validated by the caller. Not real-time. */
convoy_status grt_set_create(const grt_geom *g, grt_prep *p, const convoy_rt_route *routes,
                             int32_t n_routes, grt_set **out, char *err, size_t err_size);

/* Frees the set's device memory on the preparer's stream and waits for it.
 * NULL is a no-op. */
void grt_set_destroy(grt_prep *p, grt_set *set);

#endif /* CONVOY_GPU_RT_INTERNAL_CUH */
