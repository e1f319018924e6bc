/* capture_convert.c - stored components <-> float32, both byte orders. */
#include "capture.h"

#include "quantize.h"
#include "sample_quantize.h"

#include <math.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

static inline uint16_t ld16(const unsigned char *p, int swap) {
  uint16_t v;
  memcpy(&v, p, 2);
  return swap ? __builtin_bswap16(v) : v;
}
static inline uint32_t ld32(const unsigned char *p, int swap) {
  uint32_t v;
  memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t ld64(const unsigned char *p, int swap) {
  uint64_t v;
  memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}
static inline void st16(unsigned char *p, uint16_t v, int swap) {
  if (swap) v = __builtin_bswap16(v);
  memcpy(p, &v, 2);
}
static inline void st32(unsigned char *p, uint32_t v, int swap) {
  if (swap) v = __builtin_bswap32(v);
  memcpy(p, &v, 4);
}
static inline void st64(unsigned char *p, uint64_t v, int swap) {
  if (swap) v = __builtin_bswap64(v);
  memcpy(p, &v, 8);
}

static inline float as_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline double as_f64(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* Integers up to 16 bits convert in float: exact for the default scaling
 * (the code and a power-of-two scale). Wider ones and floats go through
 * double. */
#define SMALL_LOOP(EXPR)                                                                           \
  for (size_t i = 0; i < n; i++) {                                                                 \
    const float x_ = (float)(EXPR);                                                                \
    dst[i] = (x_ - off_f) * sc_f;                                                                  \
  }
#define WIDE_LOOP(EXPR)                                                                            \
  for (size_t i = 0; i < n; i++) {                                                                 \
    const double x_ = (double)(EXPR);                                                              \
    dst[i] = (float)((x_ - s.offset) * s.scale);                                                   \
  }

void capture_to_float(capture_datatype t, capture_scaling s, const void *src, size_t n,
                      float *dst) {
  const unsigned char *p = src;
  const int swap = t.width > 1 && t.big_endian != HOST_BIG_ENDIAN;
  const float off_f = (float)s.offset, sc_f = (float)s.scale;
  const int plain = s.scale == 1.0 && s.offset == 0.0;
  switch (t.kind * 16 + t.width) {
  case CAPTURE_KIND_FLOAT * 16 + 4:
    if (plain && !swap) {
      memcpy(dst, src, n * 4);
    } else if (plain) {
      for (size_t i = 0; i < n; i++) dst[i] = as_f32(ld32(p + 4 * i, 1));
    } else {
      WIDE_LOOP(as_f32(ld32(p + 4 * i, swap)));
    }
    break;
  case CAPTURE_KIND_FLOAT * 16 + 8:
    WIDE_LOOP(as_f64(ld64(p + 8 * i, swap)));
    break;
  case CAPTURE_KIND_INT * 16 + 1:
    SMALL_LOOP((int8_t)p[i]);
    break;
  case CAPTURE_KIND_UINT * 16 + 1:
    SMALL_LOOP(p[i]);
    break;
  case CAPTURE_KIND_INT * 16 + 2:
    SMALL_LOOP((int16_t)ld16(p + 2 * i, swap));
    break;
  case CAPTURE_KIND_UINT * 16 + 2:
    SMALL_LOOP(ld16(p + 2 * i, swap));
    break;
  case CAPTURE_KIND_INT * 16 + 4:
    WIDE_LOOP((int32_t)ld32(p + 4 * i, swap));
    break;
  case CAPTURE_KIND_UINT * 16 + 4:
    WIDE_LOOP(ld32(p + 4 * i, swap));
    break;
  default: /* not a valid datatype: callers validate first */
    memset(dst, 0, n * sizeof *dst);
    break;
  }
}

/* The code of y for an integer of `bits` bits per the rule of
 * sample_quantize.h, as an offset from `centre` (0 signed, 2^(bits-1)
 * unsigned). With the default scaling the value handed to sq_code is y
 * itself, so the codes equal those of the library's integer output. */
/* inv_scale is 1 / s.scale when that is exact (a power of two), else 0;
 * multiplying then gives the same bits as dividing, several times faster. */
static inline int64_t int_code(float y, capture_scaling s, double inv_scale, double full,
                               double centre, int64_t *clipped) {
  const double v =
      (inv_scale != 0.0 ? (double)y * inv_scale : (double)y / s.scale) + s.offset - centre;
  int c;
  const int32_t code = sq_code((float)(v * (1.0 / full)), full, 0.0, &c);
  *clipped += c;
  return (int64_t)code + (int64_t)centre;
}

static double peak_of(const float *x, size_t n, double peak) {
  return quantize_peak_abs(x, n, (float)peak);
}

int capture_from_float_is_copy(capture_datatype t, capture_scaling s) {
  return t.kind == CAPTURE_KIND_FLOAT && t.width == 4 && t.big_endian == HOST_BIG_ENDIAN &&
         s.scale == 1.0 && s.offset == 0.0;
}

void capture_tally_peak(capture_tally *tally, const float *src, size_t n) {
  tally->peak = peak_of(src, n, tally->peak);
}

void capture_from_float(capture_datatype t, capture_scaling s, const float *src, size_t n,
                        void *dst, capture_tally *tally) {
  unsigned char *p = dst;
  const int swap = t.width > 1 && t.big_endian != HOST_BIG_ENDIAN;
  tally->peak = peak_of(src, n, tally->peak);
  int64_t clipped = 0;
  if (t.kind == CAPTURE_KIND_FLOAT) {
    const int plain = s.scale == 1.0 && s.offset == 0.0;
    for (size_t i = 0; i < n; i++) {
      const double v = plain ? (double)src[i] : (double)src[i] / s.scale + s.offset;
      if (t.width == 4) {
        const float f = (float)v;
        clipped += isinf(f) && !isinf(src[i]);
        uint32_t u;
        memcpy(&u, &f, 4);
        st32(p + 4 * i, u, swap);
      } else {
        clipped += isinf(v) && !isinf(src[i]);
        uint64_t u;
        memcpy(&u, &v, 8);
        st64(p + 8 * i, u, swap);
      }
    }
    tally->clipped += clipped;
    return;
  }
  const double full = ldexp(1.0, 8 * t.width - 1);
  const double centre = t.kind == CAPTURE_KIND_UINT ? full : 0.0;
  int e;
  const double inv_scale = frexp(s.scale, &e) == 0.5 ? ldexp(1.0, 1 - e) : 0.0;
  switch (t.width) {
  case 1:
    for (size_t i = 0; i < n; i++)
      p[i] = (unsigned char)int_code(src[i], s, inv_scale, full, centre, &clipped);
    break;
  case 2:
    for (size_t i = 0; i < n; i++)
      st16(p + 2 * i, (uint16_t)int_code(src[i], s, inv_scale, full, centre, &clipped), swap);
    break;
  case 4:
    for (size_t i = 0; i < n; i++)
      st32(p + 4 * i, (uint32_t)int_code(src[i], s, inv_scale, full, centre, &clipped), swap);
    break;
  default:
    break;
  }
  tally->clipped += clipped;
}
