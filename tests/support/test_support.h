/*
 * test_support.h - shared helpers for convoy's tests: seeded random numbers,
 * a double-precision reference convolution, error measures, a driver that
 * feeds a stream in chunks, and check macros that count failures.
 */
#ifndef CONVOY_TEST_SUPPORT_H
#define CONVOY_TEST_SUPPORT_H

#include "convoy.h"

#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------- checks */

extern int ts_failures;
extern int ts_passes;

#define TS_CHECK(cond, ...)                                                                        \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ts_passes++;                                                                                 \
    } else {                                                                                       \
      ts_failures++;                                                                               \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
    }                                                                                              \
  } while (0)

#define TS_CHECK_OK(call)                                                                          \
  do {                                                                                             \
    convoy_status ts_st_ = (call);                                                                 \
    TS_CHECK(ts_st_ == CONVOY_OK, "%s -> %s (%s)", #call, convoy_strerror(ts_st_),                 \
             convoy_last_error());                                                                 \
  } while (0)

/* Prints "N passed, N failed" and returns the exit status (0 or 1). */
int ts_finish(void);

/* Exit status ctest reads as "skipped". */
#define TS_SKIP 77

/* 1 when CONVOY_TEST_QUICK is set (sanitizer builds): tests shrink sizes. */
int ts_quick(void);

/* ------------------------------------------------------------- random */

typedef struct ts_rng {
  uint64_t s[4];
} ts_rng;

/* Seed from CONVOY_TEST_SEED or the clock; printed so a failure can be replayed. */
uint64_t ts_seed(const char *test_name);
void ts_rng_init(ts_rng *rng, uint64_t seed);
uint64_t ts_next(ts_rng *rng);
double ts_uniform(ts_rng *rng);                        /* [0, 1) */
int64_t ts_range(ts_rng *rng, int64_t lo, int64_t hi); /* [lo, hi] inclusive */
/* Log-uniform integer in [lo, hi]: small sizes are as likely as large ones. */
int64_t ts_log_range(ts_rng *rng, int64_t lo, int64_t hi);
void ts_fill_uniform(ts_rng *rng, float *x, int64_t n); /* uniform in [-1, 1) */

/* ------------------------------------------------------------- reference */

/* Full convolution of one channel in double precision: y has n + m - 1
 * values. Direct sums when n * m is small, FFTW double otherwise. */
void ts_reference_conv(const float *x, int64_t n, const float *h, int64_t m, double *y);

/* ||y - ref|| / ||ref|| over n values (0 when both are zero). stride lets y
 * be one channel of interleaved frames. */
double ts_rel_l2(const float *y, int64_t stride, const double *ref, int64_t n);

/* Full convolution of channel c of interleaved frames x (frames x channels)
 * with m taps, in double precision: returns a calloc'd array of total
 * values (total >= frames + m - 1 holds the whole convolution; extra values
 * are 0). Caller frees. */
double *ts_reference_channel(const float *x, int64_t frames, int32_t channels, int32_t c,
                             const float *taps, int64_t m, int64_t total);

/* Relative L2 distance of channel c of interleaved a from b over frames. */
double ts_rel_diff_channel(const float *a, const float *b, int32_t channels, int32_t c,
                           int64_t frames);

/* ------------------------------------------------------------- complex */

/* Full complex convolution of complex channel c of interleaved complex
 * frames x (frames x channels complex values: re, im of channel 0, re, im of
 * channel 1, ...) with m taps, in double precision. taps holds m complex
 * taps (re, im interleaved) when complex_taps, else m real taps. Returns a
 * calloc'd array of 2 x total doubles (re, im interleaved; total >= frames
 * + m - 1 holds the whole convolution, extra values are 0), or NULL. Caller
 * frees. y[k] = sum_j h[j] x[k - j], no conjugation. */
double *ts_reference_complex(const float *x, int64_t frames, int32_t channels, int32_t c,
                             const float *taps, int64_t m, int complex_taps, int64_t total);

/* Relative L2 error of n complex values against ref (2 x n doubles, re, im
 * interleaved): y[k * stride] and y[k * stride + 1] are value k's re, im.
 * 0 when both are zero. */
double ts_rel_l2_complex(const float *y, int64_t stride, const double *ref, int64_t n);

/* ------------------------------------------------------------- integer output */

/* convoy.h's integer rule without dither, for `bits` significant bits:
 * floor(x 2^(bits-1) + 0.5), saturated to -2^(bits-1) .. 2^(bits-1) - 1;
 * NaN gives 0. Adds 1 to *clipped for a saturated or NaN value. */
int32_t ts_quantize(float x, int bits, int64_t *clipped);

/* The signed code at index i of a buffer of fmt (U8 is offset binary: its
 * byte minus 128). */
int64_t ts_code_at(const void *buf, convoy_sample_format fmt, int64_t i);

/* ------------------------------------------------------------- cases */

/* A filter of random taps, uniform in [-1, 1): len real taps, or with
 * complex_taps len (re, im) pairs. *taps gets the malloc'd values (the
 * caller frees them); returns the filter, or NULL (the failure counted). */
convoy_filter *ts_random_filter(ts_rng *rng, int complex_taps, int64_t len, float **taps);

#define TS_CASE_MAX_CHANNELS 8

/* A random test case: interleaved noise and one filter for all channels or
 * one per channel (filter 0 has the requested length, the others random
 * lengths up to it). */
typedef struct ts_case {
  int32_t channels; /* 1 .. TS_CASE_MAX_CHANNELS */
  int64_t frames;
  int32_t n_filters; /* 1 or channels */
  int64_t len[TS_CASE_MAX_CHANNELS];
  float *taps[TS_CASE_MAX_CHANNELS];
  float *x; /* frames * channels, interleaved */
} ts_case;

void ts_case_make(ts_case *t, ts_rng *rng, int32_t channels, int64_t frames, int per_channel,
                  int64_t taps);
void ts_case_free(ts_case *t); /* and zeroes *t */
int64_t ts_case_longest(const ts_case *t);
/* ts_reference_channel for channel c of the case with its filter. */
double *ts_case_reference(const ts_case *t, int32_t c, int64_t total);

/* ------------------------------------------------------------- streaming */

/* Feeds frames interleaved frames through the stream in chunks, then
 * flushes. chunk_max <= 0 feeds everything in one call; otherwise chunk sizes
 * are drawn from [1, chunk_max] with rng (log-uniform). Returns a malloc'd
 * buffer of *out_frames frames (caller frees) or NULL on a stream error,
 * which is reported through TS_CHECK. Checks that every call stays within
 * convoy_stream_max_output and that flush writes convoy_stream_flush_frames. */
float *ts_stream_run(convoy_stream *stream, const float *in, int64_t frames, int64_t chunk_max,
                     ts_rng *rng, int64_t *out_frames);

/* ts_stream_run for frames of `values` floats each: 2 x channels for a
 * complex stream (ts_stream_run uses the channel count). */
float *ts_stream_run_values(convoy_stream *stream, const float *in, int64_t frames, int32_t values,
                            int64_t chunk_max, ts_rng *rng, int64_t *out_frames);

#endif /* CONVOY_TEST_SUPPORT_H */
