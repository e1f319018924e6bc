/* live_resample.c - impulse responses to another sample rate (libsamplerate). */
#include "live_resample.h"

#include "error_internal.h" /* CONVOY_QUOTE */

#include <math.h>
#include <samplerate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

convoy_status live_resample_taps(convoy_taps *taps, double to_rate, const char *name, char *err,
                                 size_t err_size) {
  const char *shown = CONVOY_QUOTE(name);
  double ratio = to_rate / taps->rate;
  if (!(ratio >= 1.0 / 256 && ratio <= 256)) {
    snprintf(err, err_size, "%s: cannot resample from %.0f Hz to %.0f Hz (ratio beyond 256)", shown,
             taps->rate, to_rate);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  int32_t ch = taps->channels;
  int64_t in_len = taps->length;
  /* Room for the whole response plus the converter's rounding. */
  int64_t out_cap = (int64_t)ceil((double)in_len * ratio) + 16;
  if (in_len > INT32_MAX / ch || out_cap > INT32_MAX / ch) {
    snprintf(err, err_size, "%s: impulse response too long to resample", shown);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  float *in = malloc((size_t)in_len * (size_t)ch * sizeof *in);
  float *out = malloc((size_t)out_cap * (size_t)ch * sizeof *out);
  float *planar = malloc((size_t)out_cap * (size_t)ch * sizeof *planar);
  if (!in || !out || !planar) {
    free(in);
    free(out);
    free(planar);
    snprintf(err, err_size, "%s: out of memory resampling the impulse response", shown);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  for (int32_t c = 0; c < ch; c++)
    for (int64_t i = 0; i < in_len; i++) in[i * ch + c] = taps->data[(size_t)c * in_len + i];
  SRC_DATA d = {0};
  d.data_in = in;
  d.data_out = out;
  d.input_frames = (long)in_len;
  d.output_frames = (long)out_cap;
  d.src_ratio = ratio;
  int rc = src_simple(&d, SRC_SINC_BEST_QUALITY, ch);
  free(in);
  if (rc != 0 || d.output_frames_gen < 1) {
    free(out);
    free(planar);
    snprintf(err, err_size, "%s: resampling from %.0f Hz to %.0f Hz failed: %s", shown, taps->rate,
             to_rate, rc ? src_strerror(rc) : "no output");
    return CONVOY_ERR_BACKEND;
  }
  int64_t n = d.output_frames_gen;
  float scale = (float)(taps->rate / to_rate);
  for (int32_t c = 0; c < ch; c++)
    for (int64_t i = 0; i < n; i++) planar[(size_t)c * n + i] = out[i * ch + c] * scale;
  free(out);
  free(taps->data);
  taps->data = planar;
  taps->length = n;
  taps->rate = to_rate;
  return CONVOY_OK;
}
