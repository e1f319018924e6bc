/* bench_util.c - clock, statistics, signal and taps for `convoy bench`. */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_stats(double *v, int n, double *median, double *min, double *max) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  *min = v[0];
  *max = v[n - 1];
  *median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64: a fixed, portable sequence so every run filters the same data. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void bench_fill_noise(float *x, int64_t n, uint64_t seed, float amplitude) {
  uint64_t state = seed;
  for (int64_t i = 0; i < n; i++) {
    double u = (double)(splitmix64(&state) >> 11) * (1.0 / 9007199254740992.0);
    x[i] = (float)((2.0 * u - 1.0) * amplitude);
  }
}

void bench_lowpass_taps(float *h, int64_t n) {
  const double pi = 3.14159265358979323846;
  const double cutoff = 0.25; /* cycles per sample */
  double centre = 0.5 * (double)(n - 1), sum = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double t = (double)i - centre;
    double sinc = t == 0.0 ? 2.0 * cutoff : sin(2.0 * pi * cutoff * t) / (pi * t);
    double window = n == 1 ? 1.0 : 0.5 - 0.5 * cos(2.0 * pi * ((double)i + 0.5) / (double)n);
    h[i] = (float)(sinc * window);
    sum += sinc * window;
  }
  if (sum != 0.0)
    for (int64_t i = 0; i < n; i++) h[i] = (float)(h[i] / sum);
}

int bench_parse_count(const char *s, int64_t *value) {
  char *end = NULL;
  errno = 0;
  if (s[0] == '2' && s[1] == '^') {
    long k = strtol(s + 2, &end, 10);
    if (errno || end == s + 2 || *end || k < 0 || k > 62) return -1;
    *value = (int64_t)1 << k;
    return 0;
  }
  if (s[0] < '0' || s[0] > '9') return -1;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v <= 0) return -1;
  *value = (int64_t)v;
  return 0;
}
