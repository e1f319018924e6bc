/* pulse_filter.c - the pulse compressor's template preparation: windows,
 * energy normalisation, the matched filter and the FFT length. */
#include "error_internal.h"
#include "bessel_i0.h"
#include "pulse_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t pulse_smooth_size(int64_t n) {
  if (n < 1) n = 1;
  if (n > ((int64_t)1 << 40)) return 0;
  int64_t best = INT64_MAX;
  for (int64_t a = 1; a < 2 * n; a *= 2)
    for (int64_t b = a; b < 2 * n; b *= 3)
      for (int64_t c = b; c < 2 * n; c *= 5)
        for (int64_t d = c; d < 2 * n; d *= 7)
          if (d >= n && d < best) best = d;
  return best;
}

double pulse_window_weight(convoy_pulse_window window, double kaiser_beta, int64_t j, int64_t t) {
  if (t <= 1) return 1.0;
  const double pi = 3.14159265358979323846;
  const double phase = 2.0 * pi * (double)j / (double)(t - 1);
  switch (window) {
  case CONVOY_WINDOW_HAMMING:
    return 0.54 - 0.46 * cos(phase);
  case CONVOY_WINDOW_HANN:
    return 0.5 - 0.5 * cos(phase);
  case CONVOY_WINDOW_KAISER: {
    const double r = 2.0 * (double)j / (double)(t - 1) - 1.0;
    const double s = 1.0 - r * r;
    return bessel_i0(kaiser_beta * sqrt(s > 0.0 ? s : 0.0)) / bessel_i0(kaiser_beta);
  }
  case CONVOY_WINDOW_NONE:
  default:
    return 1.0;
  }
}

convoy_status pulse_matched_filter(const float *template_iq, int64_t t, convoy_pulse_window window,
                                   double kaiser_beta, int normalize, float *h, char *err,
                                   size_t err_size) {
  double energy = 0.0;
  for (int64_t j = 0; j < t; j++) {
    const double re = template_iq[2 * j], im = template_iq[2 * j + 1];
    if (!isfinite(re) || !isfinite(im))
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "pulse: template sample %lld is not finite", (long long)j);
    const double w = pulse_window_weight(window, kaiser_beta, j, t);
    energy += w * w * (re * re + im * im);
  }
  double scale = 1.0;
  if (normalize) {
    if (!(energy > 0.0))
      return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                                 "pulse: cannot normalise a template of zero energy "
                                 "(%lld samples after the window)",
                                 (long long)t);
    scale = 1.0 / sqrt(energy);
  }
  for (int64_t k = 0; k < t; k++) {
    const int64_t j = t - 1 - k;
    const double w = scale * pulse_window_weight(window, kaiser_beta, j, t);
    h[2 * k] = (float)(w * template_iq[2 * j]);
    h[2 * k + 1] = (float)(-w * template_iq[2 * j + 1]);
  }
  return CONVOY_OK;
}

convoy_status convoy_pulse_window_from_name(const char *name, convoy_pulse_window *window,
                                            double *beta) {
  if (!name || !window)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "convoy_pulse_window_from_name: NULL argument");
  double b = 8.6;
  if (!strcmp(name, "none")) {
    *window = CONVOY_WINDOW_NONE;
  } else if (!strcmp(name, "hamming")) {
    *window = CONVOY_WINDOW_HAMMING;
  } else if (!strcmp(name, "hann") || !strcmp(name, "hanning")) {
    *window = CONVOY_WINDOW_HANN;
  } else if (!strcmp(name, "kaiser")) {
    *window = CONVOY_WINDOW_KAISER;
  } else if (!strncmp(name, "kaiser:beta=", 12)) {
    char *end = NULL;
    b = strtod(name + 12, &end);
    if (end == name + 12 || *end != '\0' || !(b >= 0.0 && b <= 50.0))
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "window '%s': beta must be a number in 0 .. 50", CONVOY_QUOTE(name));
    *window = CONVOY_WINDOW_KAISER;
  } else {
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "unknown window '%s' (none, hamming, hann, kaiser[:beta=B])",
                            CONVOY_QUOTE(name));
  }
  if (beta) *beta = b;
  return CONVOY_OK;
}
