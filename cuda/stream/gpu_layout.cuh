/*
 * gpu_layout.cuh - moving samples between the interleaved layout they cross
 * the bus in and the planar float32 layout gpu_conv works on (CUDA C++ only).
 *
 * One launch serves every channel. Conversions match the CPU's
 * (pipeline/sample_convert.h) bit for bit: int16 times 2^-15 exactly, int32
 * rounded to float32 (to nearest) then times 2^-31, int8 times 2^-7 and
 * uint8 as (x - 128) times 2^-7, both exactly. Indices are 64-bit.
 * Launch failures come back as a status with the CUDA message (last error
 * cleared); errors of the work itself show at the next synchronisation.
 */
#ifndef CONVOY_GPU_LAYOUT_CUH
#define CONVOY_GPU_LAYOUT_CUH

#include "convoy.h"
#include "sample_quantize.h"

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

/* planar[c * stride + f] = float(raw[f * channels + c]) for f < n_valid and
 * 0 for n_valid <= f < n_total, for every channel c. raw holds n_valid
 * interleaved frames of fmt (device memory); planar has channels rows of
 * stride >= n_total floats. raw and planar must not overlap. */
convoy_status gp_deinterleave(convoy_sample_format fmt, const void *raw, int32_t channels,
                              int64_t n_valid, int64_t n_total, float *planar, int64_t stride,
                              cudaStream_t stream, char *err, size_t err_size);

/* out[f * channels + c] = planar[c * stride + f] for f < frames. */
convoy_status gp_interleave(const float *planar, int64_t stride, int32_t channels, int64_t frames,
                            float *out, cudaStream_t stream, char *err, size_t err_size);

/* Decimation and frequency shift of the output pass (convoy.h, "Decimation
 * and frequency shift"): output frame f is planar frame first + f * step,
 * and with shift != 0 every row pair (2c, 2c + 1) is a complex value
 * multiplied by e^{-j 2 pi shift m}, m = (n0 + f) * rate its absolute
 * full-rate index (a phase from the exact product in double precision, so a
 * frame's bits depend on m only, never on the chunk it came in). step is D
 * when the planar rows hold every full-rate output, 1 when they hold only
 * the kept ones (a strided filter run); rate is D either way. The identity
 * is {0, 1, 0.0, 0, 1}. */
struct gp_pick {
  int64_t first; /* planar frame of output frame 0, >= 0 */
  int64_t step;  /* planar frames per output frame, >= 1 */
  double shift;  /* cycles per input frame; 0: none (then channels may be odd) */
  int64_t n0;    /* absolute decimated index of output frame 0 */
  int64_t rate;  /* D >= 1: full-rate frames per output frame */
  int64_t phase; /* full-rate index of decimated frame 0 (frame n is at n D + phase) */
};

/* gp_interleave through a gp_pick, and its integer form: frames counts
 * output frames; planar must hold first + (frames - 1) * step + 1 frames.
 * The integer form writes out[f * channels + c] = code(picked value) by the
 * rule of sample_quantize.h in o's format (S8, U8, S16 or S32), the dither
 * placed at output position first_index + f * channels + c; tally (device
 * memory, two zeroed 64-bit words) receives the clipped count and the peak
 * |x| as float bits. */
convoy_status gp_interleave_pick(const float *planar, int64_t stride, int32_t channels,
                                 int64_t frames, const gp_pick &pick, float *out,
                                 cudaStream_t stream, char *err, size_t err_size);
convoy_status gp_interleave_quantize_pick(const float *planar, int64_t stride, int32_t channels,
                                          int64_t frames, const gp_pick &pick, const output_spec &o,
                                          uint64_t first_index, void *out,
                                          unsigned long long *tally, cudaStream_t stream, char *err,
                                          size_t err_size);

/* One 2-D copy of float32 rows: rows x width floats from src (pitch
 * src_pitch floats) to dst (pitch dst_pitch floats). */
struct gp_rows_copy {
  float *dst;
  int64_t dst_pitch;
  const float *src;
  int64_t src_pitch;
  int64_t width;
};

/* Runs up to two row copies (n_jobs 1 or 2) of `rows` rows each in one
 * kernel launch. The copies run concurrently: neither may write what the
 * other reads or writes. Device-to-device copies stay on the compute
 * engine, so a call with small copies between kernels pays no hand-over to
 * a copy engine (cudaMemcpy2DAsync's cost of several microseconds each). */
convoy_status gp_copy_rows(const gp_rows_copy *jobs, int n_jobs, int32_t rows, cudaStream_t stream,
                           char *err, size_t err_size);

#endif /* CONVOY_GPU_LAYOUT_CUH */
