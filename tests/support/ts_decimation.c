/*
 * ts_decimation.c - the decimating stream's definition in double (see
 * ts_decimation.h).
 */
#include "ts_decimation.h"

#include <math.h>

#define TWO_PI 6.283185307179586476925286766559

int32_t ts_signal_values(ts_signal s) {
  return s.is_complex ? 2 * s.channels : s.channels;
}

int64_t ts_decimated_frames(int64_t frames, int64_t len, int64_t d) {
  return ts_decimated_frames_at(frames, len, d, 0);
}

int64_t ts_decimated_frames_at(int64_t frames, int64_t len, int64_t d, int64_t p) {
  const int64_t full = frames + len - 1 - p;
  return full > 0 ? (full + d - 1) / d : 0;
}

void ts_decimated_output(ts_signal s, int32_t c, ts_taps h, int64_t d, double f, int64_t n,
                         double *re, double *im) {
  ts_decimated_output_at(s, c, h, d, 0, f, n, re, im);
}

void ts_decimated_output_at(ts_signal s, int32_t c, ts_taps h, int64_t d, int64_t p, double f,
                            int64_t n, double *re, double *im) {
  const int64_t k = n * d + p, v = ts_signal_values(s);
  double sr = 0.0, si = 0.0;
  for (int64_t j = 0; j < h.len; j++) {
    const int64_t i = k - j;
    if (i < 0 || i >= s.frames) continue;
    const double hr = h.is_complex ? h.h[2 * j] : h.h[j];
    const double hi = h.is_complex ? h.h[2 * j + 1] : 0.0;
    const double xr = s.is_complex ? s.x[i * v + 2 * c] : s.x[i * v + c];
    const double xi = s.is_complex ? s.x[i * v + 2 * c + 1] : 0.0;
    /* x[i] e^{-j 2 pi f i} */
    const double ph = -TWO_PI * fmod(f * (double)i, 1.0);
    const double cr = f != 0.0 ? cos(ph) : 1.0, ci = f != 0.0 ? sin(ph) : 0.0;
    const double ur = xr * cr - xi * ci, ui = xr * ci + xi * cr;
    sr += hr * ur - hi * ui;
    si += hr * ui + hi * ur;
  }
  *re = sr;
  *im = si;
}

void ts_decimated_error_sums(ts_signal s, int32_t c, ts_taps h, int64_t d, double f,
                             const float *out, int64_t count, int64_t step, double *num,
                             double *den) {
  ts_decimated_error_sums_at(s, c, h, d, 0, f, out, count, step, num, den);
}

void ts_decimated_error_sums_at(ts_signal s, int32_t c, ts_taps h, int64_t d, int64_t p, double f,
                                const float *out, int64_t count, int64_t step, double *num,
                                double *den) {
  const int64_t v = ts_signal_values(s);
  for (int64_t n = 0; n<count; n += step> 0 ? step : 1) {
    double re, im;
    ts_decimated_output_at(s, c, h, d, p, f, n, &re, &im);
    if (s.is_complex) {
      const double er = out[n * v + 2 * c] - re, ei = out[n * v + 2 * c + 1] - im;
      *num += er * er + ei * ei;
      *den += re * re + im * im;
    } else {
      const double e = out[n * v + c] - re;
      *num += e * e;
      *den += re * re;
    }
  }
}

double ts_ratio_l2(double num, double den) {
  return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

void ts_decimating_config(convoy_stream_config *cfg, convoy_engine e, int32_t channels,
                          int is_complex, int32_t d, double f) {
  convoy_stream_config_init(cfg);
  cfg->engine = e;
  cfg->channels = channels;
  cfg->sample = is_complex ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
  cfg->decimation = d;
  cfg->shift = f;
  cfg->threads = 1;
}
