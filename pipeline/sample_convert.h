/*
 * sample_convert.h - integer and float samples to float32, on the CPU
 * (internal). The scales are powers of two, so the conversions are exact for
 * int16 and round int32 to float32's 24-bit mantissa (to nearest); the GPU
 * kernels (cuda/stream/gpu_layout.cuh) compute the same bits. int8 and uint8
 * (offset binary) convert exactly too. No allocation;
 * buffers must not overlap.
 */
#ifndef CONVOY_SAMPLE_CONVERT_H
#define CONVOY_SAMPLE_CONVERT_H

#include "convoy.h"

#include <stdint.h>

/* Factors that bring each integer format to full scale +-1.0. */
#define SAMPLE_SCALE_S16 (1.0f / 32768.0f)
#define SAMPLE_SCALE_S32 (1.0f / 2147483648.0f)
#define SAMPLE_SCALE_S8 (1.0f / 128.0f)
/* U8 is offset binary: (x - SAMPLE_OFFSET_U8) * SAMPLE_SCALE_S8, exact. */
#define SAMPLE_OFFSET_U8 128

/* planar[c][at + i] = float(in[i * channels + c]) for 0 <= i < frames, in
 * is `frames` interleaved frames of fmt (a known format). */
void deinterleave_samples(convoy_sample_format fmt, const void *in, int32_t channels,
                          int64_t frames, float *const *planar, int64_t at);

/* out[i] = float(in[i]) for 0 <= i < samples (no reordering). */
void convert_samples(convoy_sample_format fmt, const void *in, int64_t samples, float *out);

#endif /* CONVOY_SAMPLE_CONVERT_H */
