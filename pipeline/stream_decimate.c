/* stream_decimate.c - decimation and frequency shift of CPU-engine streams
 * (stream_decimate.h). */
#include "stream_decimate.h"

#include "stream_internal.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

static const double TWO_PI = 6.283185307179586476925286766559;

/* ceil(a / d) for d > 0 (C's division truncates, which is the ceiling
 * for a negative a). */
static int64_t ceil_div(int64_t a, int64_t d) {
  return a >= 0 ? a / d + (a % d != 0) : a / d;
}

int64_t decim_count(int64_t factor, int64_t pos, int64_t n) {
  if (n <= 0) return 0;
  const int64_t end = pos > 0 && n > INT64_MAX - pos ? INT64_MAX : pos + n;
  return ceil_div(end, factor) - ceil_div(pos, factor);
}

convoy_status decim_check_config(const convoy_stream_config *c) {
  const char *fn = "convoy_stream_create";
  if (c->decimation < 1 || c->decimation > CONVOY_MAX_DECIMATION)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: decimation %d is outside 1 .. %d (1 means none)", fn,
                            (int)c->decimation, CONVOY_MAX_DECIMATION);
  if (c->decimation_phase < 0 || c->decimation_phase >= c->decimation)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: decimation_phase %d is outside 0 .. %d (decimation - 1)", fn,
                            (int)c->decimation_phase, (int)c->decimation - 1);
  if (!isfinite(c->shift) || c->shift < -0.5 || c->shift > 0.5)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: shift %g is outside -0.5 .. 0.5 cycles per sample", fn, c->shift);
  if (c->shift != 0.0 && c->sample != CONVOY_SAMPLE_CF32)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: a frequency shift needs a complex stream (config.sample = "
                            "CONVOY_SAMPLE_CF32)",
                            fn);
  return CONVOY_OK;
}

/* h'[j] = (re[j] + j im[j]) e^{j 2 pi f j}, into out_re, out_im. */
static void rotate_taps(const float *re, const float *im, int64_t len, double f, float *out_re,
                        float *out_im) {
  for (int64_t j = 0; j < len; j++) {
    const double ph = TWO_PI * rotator_frac(f, j);
    const double c = cos(ph), sn = sin(ph), a = re[j], b = im ? im[j] : 0.0;
    out_re[j] = (float)(a * c - b * sn);
    out_im[j] = (float)(a * sn + b * c);
  }
}

convoy_status decim_setup_taps(convoy_stream *s, const convoy_stream_config *c) {
  if (c->decimation == 1 && c->shift == 0.0) return CONVOY_OK;
  stream_decim *d = calloc(1, sizeof *d);
  if (!d) return CONVOY_ERR_OUT_OF_MEMORY;
  s->dec = d;
  d->factor = c->decimation;
  d->phase = c->decimation_phase;
  d->shift = c->shift;
  if (d->shift == 0.0) return CONVOY_OK;
  rotator_init(&d->rot, d->shift, d->factor, d->phase);
  /* A complex stream: row 2c holds the real part of channel c's taps, row
   * 2c + 1 the imaginary part (complex_taps) or the same real taps again. */
  const int64_t len = s->taps_len;
  const int32_t units = s->n_filters == 1 ? 1 : s->channels;
  if ((uint64_t)len > SIZE_MAX / sizeof(float) / 2 / (uint64_t)units)
    return CONVOY_ERR_OUT_OF_MEMORY;
  d->rot_taps = malloc(sizeof(float) * 2 * (size_t)units * (size_t)len);
  if (!d->rot_taps) return CONVOY_ERR_OUT_OF_MEMORY;
  for (int32_t u = 0; u < units; u++) {
    const float *re = s->taps[2 * u], *im = s->complex_taps ? s->taps[2 * u + 1] : NULL;
    rotate_taps(re, im, len, d->shift, d->rot_taps + (size_t)(2 * u) * (size_t)len,
                d->rot_taps + (size_t)(2 * u + 1) * (size_t)len);
  }
  for (int32_t ch = 0; ch < s->channels; ch++) {
    const int32_t u = units == 1 ? 0 : ch;
    s->taps[2 * ch] = d->rot_taps + (size_t)(2 * u) * (size_t)len;
    s->taps[2 * ch + 1] = d->rot_taps + (size_t)(2 * u + 1) * (size_t)len;
  }
  s->complex_taps = 1;
  return CONVOY_OK;
}

convoy_status decim_run(convoy_stream *s, int64_t n, int64_t keep, int64_t *kept, char *err,
                        size_t err_size) {
  const stream_decim *d = s->dec;
  const int64_t step = d->factor, pos = s->full_pos - d->phase; /* kept: multiples of step */
  const int64_t first = ((-pos) % step + step) % step; /* run index of the first kept output */
  const int64_t count = decim_count(step, pos, keep);
  *kept = 0;
  /* Every CPU engine has run_decimated; with D = 1 only the shift applies. */
  convoy_status st = step > 1 ? s->ops->run_decimated(s->impl, (const float *const *)s->in_buf,
                                                      s->out_buf, n, first, step, err, err_size)
                              : s->ops->run(s->impl, (const float *const *)s->in_buf, s->out_buf, n,
                                            err, err_size);
  if (st != CONVOY_OK) return st;
  if (d->shift != 0.0)
    for (int32_t ch = 0; ch < s->channels; ch++)
      rotator_apply(&d->rot, s->out_buf[2 * ch], s->out_buf[2 * ch + 1], count,
                    (pos + first) / step);
  *kept = count;
  return CONVOY_OK;
}

void decim_destroy(stream_decim *d) {
  if (!d) return;
  free(d->rot_taps);
  free(d);
}
