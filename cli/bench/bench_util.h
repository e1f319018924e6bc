/*
 * bench_util.h - small helpers of `convoy bench`: a monotonic clock, run
 * statistics, a seeded test signal and benchmark taps.
 */
#ifndef CONVOY_BENCH_UTIL_H
#define CONVOY_BENCH_UTIL_H

#include <stdint.h>

/* Seconds on a monotonic clock (arbitrary origin). */
double bench_now(void);

/* Median, minimum and maximum of n >= 1 values (v is reordered). */
void bench_stats(double *v, int n, double *median, double *min, double *max);

/* n uniform values in [-amplitude, amplitude) from a fixed seed. */
void bench_fill_noise(float *x, int64_t n, uint64_t seed, float amplitude);

/* A lowpass of n >= 1 taps (windowed sinc, cutoff a quarter of the sample
 * rate, Hann window, unity gain at DC): the values are irrelevant to speed,
 * but realistic taps keep pcm16 output from clipping. */
void bench_lowpass_taps(float *h, int64_t n);

/* Parses a positive count: decimal digits or "2^K"; 0 on success. */
int bench_parse_count(const char *s, int64_t *value);

#endif /* CONVOY_BENCH_UTIL_H */
