/*
 * ts_decimation.h - the definition of a decimating, frequency-shifting
 * stream (convoy.h) evaluated in double precision, and the error of an
 * output against it, shared by the decimation tests of every engine:
 *   out[n] = sum_j h[j] x[nD + P - j] e^{-j 2 pi f (nD + P - j)}
 * (P the decimation phase; the functions without _at have P = 0).
 */
#ifndef CONVOY_TS_DECIMATION_H
#define CONVOY_TS_DECIMATION_H

#include "convoy.h"

#include <stdint.h>

/* Interleaved input: frames x channels, a complex channel as (re, im). */
typedef struct ts_signal {
  const float *x;
  int64_t frames;
  int32_t channels;
  int is_complex;
} ts_signal;

/* One filter: len real taps, or len (re, im) pairs when is_complex. */
typedef struct ts_taps {
  const float *h;
  int64_t len;
  int is_complex;
} ts_taps;

/* Floats in one frame of s: channels, or 2 x channels when complex. */
int32_t ts_signal_values(ts_signal s);

/* Frames a whole stream writes: ceil((frames + len - 1) / d). */
int64_t ts_decimated_frames(int64_t frames, int64_t len, int64_t d);
/* With phase p: ceil((frames + len - 1 - p) / d). */
int64_t ts_decimated_frames_at(int64_t frames, int64_t len, int64_t d, int64_t p);

/* Output n of channel c, as (re, im) (im is 0 for real taps on a real
 * signal without shift), with decimation d and shift f cycles a sample. */
void ts_decimated_output(ts_signal s, int32_t c, ts_taps h, int64_t d, double f, int64_t n,
                         double *re, double *im);
void ts_decimated_output_at(ts_signal s, int32_t c, ts_taps h, int64_t d, int64_t p, double f,
                            int64_t n, double *re, double *im);

/* Adds to *num the squared error of channel c of out (frames interleaved
 * like s's, count of them) against ts_decimated_output, and to *den the
 * reference's power, over outputs 0, step, 2 step ... below count. */
void ts_decimated_error_sums(ts_signal s, int32_t c, ts_taps h, int64_t d, double f,
                             const float *out, int64_t count, int64_t step, double *num,
                             double *den);
void ts_decimated_error_sums_at(ts_signal s, int32_t c, ts_taps h, int64_t d, int64_t p, double f,
                                const float *out, int64_t count, int64_t step, double *num,
                                double *den);

/* sqrt(num / den), or sqrt(num) when den is 0. */
double ts_ratio_l2(double num, double den);

/* A stream config for a decimation test: engine e, channels of complex or
 * real samples, decimation d, shift f, one thread; the rest defaults. */
void ts_decimating_config(convoy_stream_config *cfg, convoy_engine e, int32_t channels,
                          int is_complex, int32_t d, double f);

#endif /* CONVOY_TS_DECIMATION_H */
