/*
 * gpu_pulse.h - the GPU pulse compressor behind a C boundary (internal):
 * implemented in cuda/pulse/gpu_pulse*.cu, and reached through the GPU row
 * of engine_list.def (pulse_backend_gpu(), at the end of gpu_pulse.cu); a
 * build without CUDA has no such row.
 *
 * Two plans; the model picks fused wherever it fits, whole otherwise:
 *   whole   one batched cuFFT C2C of the whole-pulse length N (7-smooth,
 *           >= L + T - 1) over every pulse of the batch: a kernel zero-pads
 *           (and de-interleaves) the input into the FFT buffer, cuFFT
 *           forward, a kernel multiplies by the matched filter's spectrum,
 *           cuFFT inverse, a kernel copies the output window out.
 *   fused   overlap-save with power-of-two blocks of M (2^10 .. 2^13)
 *           complex samples, one thread block per (pulse, block): the block
 *           reads its M inputs once, runs forward FFT, product and inverse
 *           FFT in registers and shared memory, and writes its M - T + 1
 *           outputs. Needs T - 1 < M / 2. The outputs left over by the
 *           whole segments may go to a second launch of a smaller M (the
 *           tail). M and the tail are the cost model's, or with
 *           plan_effort 1 chosen at create by timing every plan that
 *           fits on the batch's buffers (a few ms, once per geometry and
 *           process: cuda/pulse/gpu_pulse_choose.cu).
 *
 * Errors: CUDA and cuFFT failures become convoy_status with the CUDA
 * message in err (and CUDA's last error cleared). Functions of one object
 * are called by one thread at a time.
 */
#ifndef CONVOY_GPU_PULSE_H
#define CONVOY_GPU_PULSE_H

#include "pulse_internal.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_pulse gpu_pulse;

/* Plan selection for tests and benchmarks: 0 = model and timing, 1 =
 * whole, 2 = fused without a tail stage, 3 = fused with a tail stage where
 * the geometry leaves a remainder (CONVOY_ERR_UNSUPPORTED where the
 * geometry allows no fused plan). */
typedef enum gpu_pulse_plan {
  GPU_PULSE_AUTO = 0,
  GPU_PULSE_WHOLE = 1,
  GPU_PULSE_FUSED = 2,
  GPU_PULSE_FUSED_TAIL = 3
} gpu_pulse_plan;

/* Makes device g->device current for the call, uploads the matched filter
 * (g->h, read only here), computes its spectrum, allocates the device
 * buffers of one batch and the pinned staging of run_host. */
convoy_status gpu_pulse_create(const pulse_geom *g, gpu_pulse_plan plan, gpu_pulse **out, char *err,
                               size_t err_size);
void gpu_pulse_destroy(gpu_pulse *p);

/* Host to host: input through pinned staging (or directly when pinned),
 * H2D, compute, D2H, wait. */
convoy_status gpu_pulse_run_host(gpu_pulse *p, const float *in, float *out, char *err,
                                 size_t err_size);

/* Device to device, enqueued on stream (a cudaStream_t), not waited for. */
convoy_status gpu_pulse_run_device(gpu_pulse *p, const void *d_in, void *d_out, void *stream,
                                   char *err, size_t err_size);

/* One line about the plan in use. */
void gpu_pulse_describe(const gpu_pulse *p, char *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_GPU_PULSE_H */
