/* output_write.c - planar float output to interleaved float or integer frames. */
#include "output_write.h"

#include "interleave.h"

#include <math.h>

/* U8 output is offset binary: the S8 code plus 128. */
#define U8_OFFSET 128

int64_t output_frame_bytes(const output_spec *o, int32_t channels) {
  return (int64_t)convoy_sample_format_bytes(o->fmt) * channels;
}

/* One code, left-justified by multiplying (shifting a negative is undefined). */
static inline int32_t code_of(const output_spec *o, float x, double full, uint64_t index,
                              output_tally *t, double *peak) {
  const double ax = fabs((double)x);
  if (ax > *peak) *peak = ax;
  int clipped;
  int32_t code = sq_code(x, full, o->dither ? sq_tpdf(o->seed, index) : 0.0, &clipped);
  t->clipped += clipped;
  return code;
}

void output_write(const output_spec *o, const float *const *planar, int32_t channels,
                  int64_t frames, uint64_t first_index, void *out, output_tally *tally) {
  if (o->fmt == CONVOY_FORMAT_F32) {
    interleave_frames(planar, channels, frames, out);
    return;
  }
  const double full = ldexp(1.0, o->bits - 1);
  const int container = 8 * (int)convoy_sample_format_bytes(o->fmt);
  const int32_t step = o->bits >= container ? 1 : (int32_t)1 << (container - o->bits);
  double peak = tally->peak;
  for (int32_t c = 0; c < channels; c++) {
    const float *src = planar[c];
    uint64_t index = first_index + (uint64_t)c;
    const uint64_t next = (uint64_t)channels;
    switch (o->fmt) {
    case CONVOY_FORMAT_S16: {
      int16_t *dst = (int16_t *)out + c;
      for (int64_t i = 0; i < frames; i++, index += next)
        dst[i * channels] = (int16_t)(code_of(o, src[i], full, index, tally, &peak) * step);
      break;
    }
    case CONVOY_FORMAT_S8: {
      int8_t *dst = (int8_t *)out + c;
      for (int64_t i = 0; i < frames; i++, index += next)
        dst[i * channels] = (int8_t)(code_of(o, src[i], full, index, tally, &peak) * step);
      break;
    }
    case CONVOY_FORMAT_U8: { /* offset binary: code + 128 */
      uint8_t *dst = (uint8_t *)out + c;
      for (int64_t i = 0; i < frames; i++, index += next)
        dst[i * channels] =
            (uint8_t)(code_of(o, src[i], full, index, tally, &peak) * step + U8_OFFSET);
      break;
    }
    default: {
      int32_t *dst = (int32_t *)out + c;
      for (int64_t i = 0; i < frames; i++, index += next)
        dst[i * channels] = code_of(o, src[i], full, index, tally, &peak) * step;
      break;
    }
    }
  }
  tally->peak = peak;
}
