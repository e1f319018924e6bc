/* taps_raw.c - headerless little-endian float32 taps (.f32, .raw, .bin). */
#include "taps_internal.h"

#include <math.h>
#include <string.h>

convoy_status taps_parse_raw_f32(const char *name, const unsigned char *buf, size_t size,
                                 convoy_taps *taps, char *err, size_t err_size) {
  memset(taps, 0, sizeof *taps);
  if (size == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: file is empty", name);
  if (size % 4 != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: size %zu bytes is not a multiple of 4 (raw float32 taps)", name,
                               size);
  int64_t n = (int64_t)(size / 4);
  if (n > TAPS_MAX_LENGTH)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: %lld taps, more than the limit %lld", name, (long long)n,
                               (long long)TAPS_MAX_LENGTH);
  convoy_status st = taps_alloc(taps, 1, n, name, err, err_size);
  if (st != CONVOY_OK) return st;
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *p = buf + (size_t)i * 4;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    if (!isfinite(f)) {
      convoy_taps_free(taps);
      return convoy_error_format(
          err, err_size, CONVOY_ERR_FORMAT, "%s: tap %lld (counting from 0, byte offset %lld) %s",
          name, (long long)i, (long long)i * 4, isnan(f) ? "is NaN" : "is infinite");
    }
    taps->data[i] = f;
  }
  return CONVOY_OK;
}
