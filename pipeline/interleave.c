/* interleave.c - interleaved <-> planar copies, in cache-sized blocks. */
#include "interleave.h"

#include <string.h>

/* Frames per block for 3 or more channels: a block of BLOCK_SAMPLES
 * interleaved samples (32 KiB) stays in L1 cache while each channel's part of
 * it is gathered or scattered. */
#define BLOCK_SAMPLES 8192

static int64_t block_frames(int32_t channels) {
  int64_t b = BLOCK_SAMPLES / channels;
  return b < 8 ? 8 : b;
}

void deinterleave_frames(const float *in, int32_t channels, int64_t frames, float *const *planar,
                         int64_t at) {
  if (channels == 1) {
    if (frames > 0) memcpy(planar[0] + at, in, sizeof(float) * (size_t)frames);
    return;
  }
  if (channels == 2) {
    float *a = planar[0] + at, *b = planar[1] + at;
    for (int64_t i = 0; i < frames; i++) {
      a[i] = in[2 * i];
      b[i] = in[2 * i + 1];
    }
    return;
  }
  const int64_t block = block_frames(channels);
  for (int64_t i0 = 0; i0 < frames; i0 += block) {
    int64_t n = frames - i0 < block ? frames - i0 : block;
    const float *src = in + i0 * channels;
    for (int32_t c = 0; c < channels; c++) {
      float *dst = planar[c] + at + i0;
      for (int64_t i = 0; i < n; i++) dst[i] = src[i * channels + c];
    }
  }
}

void interleave_frames(const float *const *planar, int32_t channels, int64_t frames, float *out) {
  if (channels == 1) {
    if (frames > 0) memcpy(out, planar[0], sizeof(float) * (size_t)frames);
    return;
  }
  if (channels == 2) {
    const float *a = planar[0], *b = planar[1];
    for (int64_t i = 0; i < frames; i++) {
      out[2 * i] = a[i];
      out[2 * i + 1] = b[i];
    }
    return;
  }
  const int64_t block = block_frames(channels);
  for (int64_t i0 = 0; i0 < frames; i0 += block) {
    int64_t n = frames - i0 < block ? frames - i0 : block;
    float *dst = out + i0 * channels;
    for (int32_t c = 0; c < channels; c++) {
      const float *src = planar[c] + i0;
      for (int64_t i = 0; i < n; i++) dst[i * channels + c] = src[i];
    }
  }
}
