/* sample_convert.c - integer and float samples to float32 on the CPU. */
#include "sample_convert.h"

#include "interleave.h"

#include <string.h>

/* Frames converted per block for several channels: the block's samples
 * (16 KiB of int16, 32 KiB of int32) stay in L1 while each channel reads them. */
#define BLOCK_SAMPLES 8192

size_t convoy_sample_format_bytes(convoy_sample_format fmt) {
  switch (fmt) {
  case CONVOY_FORMAT_F32:
    return sizeof(float);
  case CONVOY_FORMAT_S16:
    return sizeof(int16_t);
  case CONVOY_FORMAT_S32:
    return sizeof(int32_t);
  case CONVOY_FORMAT_S8:
    return sizeof(int8_t);
  case CONVOY_FORMAT_U8:
    return sizeof(uint8_t);
  }
  return 0;
}

/* dst[i] = float(src[i * stride]) for 0 <= i < n, for each integer format. */
static void gather_s16(const int16_t *src, int64_t stride, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++) dst[i] = (float)src[i * stride] * SAMPLE_SCALE_S16;
}

static void gather_s32(const int32_t *src, int64_t stride, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++) dst[i] = (float)src[i * stride] * SAMPLE_SCALE_S32;
}

static void gather_s8(const int8_t *src, int64_t stride, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++) dst[i] = (float)src[i * stride] * SAMPLE_SCALE_S8;
}

static void gather_u8(const uint8_t *src, int64_t stride, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++)
    dst[i] = (float)((int)src[i * stride] - SAMPLE_OFFSET_U8) * SAMPLE_SCALE_S8;
}

/* Samples [first, first + (n - 1) * stride] of in, a known integer format. */
static void gather(convoy_sample_format fmt, const void *in, int64_t first, int64_t stride,
                   int64_t n, float *dst) {
  switch (fmt) {
  case CONVOY_FORMAT_S16:
    gather_s16((const int16_t *)in + first, stride, n, dst);
    break;
  case CONVOY_FORMAT_S32:
    gather_s32((const int32_t *)in + first, stride, n, dst);
    break;
  case CONVOY_FORMAT_S8:
    gather_s8((const int8_t *)in + first, stride, n, dst);
    break;
  case CONVOY_FORMAT_U8:
    gather_u8((const uint8_t *)in + first, stride, n, dst);
    break;
  case CONVOY_FORMAT_F32:
    break;
  }
}

void convert_samples(convoy_sample_format fmt, const void *in, int64_t samples, float *out) {
  if (samples <= 0) return;
  if (fmt == CONVOY_FORMAT_F32)
    memcpy(out, in, sizeof(float) * (size_t)samples);
  else
    gather(fmt, in, 0, 1, samples, out);
}

void deinterleave_samples(convoy_sample_format fmt, const void *in, int32_t channels,
                          int64_t frames, float *const *planar, int64_t at) {
  if (fmt == CONVOY_FORMAT_F32) {
    deinterleave_frames(in, channels, frames, planar, at);
    return;
  }
  int64_t block = BLOCK_SAMPLES / channels;
  if (block < 8) block = 8;
  for (int64_t i0 = 0; i0 < frames; i0 += block) {
    int64_t n = frames - i0 < block ? frames - i0 : block;
    for (int32_t c = 0; c < channels; c++)
      gather(fmt, in, i0 * channels + c, channels, n, planar[c] + at + i0);
  }
}
