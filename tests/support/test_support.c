#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CONVOY_HAVE_FFTW_DOUBLE
#include <fftw3.h>
#endif

int ts_failures = 0;
int ts_passes = 0;

int ts_finish(void) {
  printf("%d passed, %d failed\n", ts_passes, ts_failures);
  return ts_failures ? 1 : 0;
}

int ts_quick(void) {
  const char *q = getenv("CONVOY_TEST_QUICK");
  return q && *q && strcmp(q, "0") != 0;
}

uint64_t ts_seed(const char *test_name) {
  const char *env = getenv("CONVOY_TEST_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
  printf("%s: seed %llu (replay with CONVOY_TEST_SEED=%llu)\n", test_name, (unsigned long long)seed,
         (unsigned long long)seed);
  return seed;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void ts_rng_init(ts_rng *rng, uint64_t seed) {
  for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

uint64_t ts_next(ts_rng *rng) { /* xoshiro256** */
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double ts_uniform(ts_rng *rng) {
  return (double)(ts_next(rng) >> 11) * 0x1.0p-53;
}

int64_t ts_range(ts_rng *rng, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)(ts_next(rng) % (uint64_t)(hi - lo + 1));
}

int64_t ts_log_range(ts_rng *rng, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  double l = log((double)lo), h = log((double)hi + 1.0);
  int64_t v = (int64_t)exp(l + (h - l) * ts_uniform(rng));
  return v < lo ? lo : (v > hi ? hi : v);
}

void ts_fill_uniform(ts_rng *rng, float *x, int64_t n) {
  /* 2u - 1 within 2^-25 of 1 rounds to 1.0f: such draws take the largest
   * float below 1, so the range stays [-1, 1) as documented. */
  for (int64_t i = 0; i < n; i++) {
    const float v = (float)(2.0 * ts_uniform(rng) - 1.0);
    x[i] = v < 1.0f ? v : 0x1.fffffep-1f;
  }
}

static void reference_direct(const float *x, int64_t n, const float *h, int64_t m, double *y) {
  for (int64_t k = 0; k < n + m - 1; k++) {
    int64_t j0 = k - (n - 1) > 0 ? k - (n - 1) : 0;
    int64_t j1 = k < m - 1 ? k : m - 1;
    double acc = 0.0;
    for (int64_t j = j0; j <= j1; j++) acc += (double)h[j] * (double)x[k - j];
    y[k] = acc;
  }
}

void ts_reference_conv(const float *x, int64_t n, const float *h, int64_t m, double *y) {
#ifdef CONVOY_HAVE_FFTW_DOUBLE
  if ((double)n * (double)m > 2e7 && n > 64 && m > 64) {
    int64_t len = n + m - 1, size = 1;
    while (size < len) size <<= 1;
    double *a = fftw_malloc(sizeof(double) * (size_t)size);
    double *b = fftw_malloc(sizeof(double) * (size_t)size);
    fftw_complex *fa = fftw_malloc(sizeof(fftw_complex) * (size_t)(size / 2 + 1));
    fftw_complex *fb = fftw_malloc(sizeof(fftw_complex) * (size_t)(size / 2 + 1));
    fftw_plan pa = fftw_plan_dft_r2c_1d((int)size, a, fa, FFTW_ESTIMATE);
    fftw_plan pb = fftw_plan_dft_r2c_1d((int)size, b, fb, FFTW_ESTIMATE);
    fftw_plan pi = fftw_plan_dft_c2r_1d((int)size, fa, a, FFTW_ESTIMATE);
    for (int64_t i = 0; i < size; i++) {
      a[i] = i < n ? x[i] : 0.0;
      b[i] = i < m ? h[i] : 0.0;
    }
    fftw_execute(pa);
    fftw_execute(pb);
    for (int64_t i = 0; i < size / 2 + 1; i++) {
      double re = fa[i][0] * fb[i][0] - fa[i][1] * fb[i][1];
      double im = fa[i][0] * fb[i][1] + fa[i][1] * fb[i][0];
      fa[i][0] = re / (double)size;
      fa[i][1] = im / (double)size;
    }
    fftw_execute(pi);
    memcpy(y, a, sizeof(double) * (size_t)len);
    fftw_destroy_plan(pa);
    fftw_destroy_plan(pb);
    fftw_destroy_plan(pi);
    fftw_free(a);
    fftw_free(b);
    fftw_free(fa);
    fftw_free(fb);
    return;
  }
#endif
  reference_direct(x, n, h, m, y);
}

double ts_rel_l2(const float *y, int64_t stride, const double *ref, int64_t n) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double d = (double)y[i * stride] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (den == 0.0) return num == 0.0 ? 0.0 : INFINITY;
  return sqrt(num / den);
}

double *ts_reference_channel(const float *x, int64_t frames, int32_t channels, int32_t c,
                             const float *taps, int64_t m, int64_t total) {
  float *xc = malloc(sizeof(float) * (size_t)(frames + 1));
  double *ref = calloc((size_t)total, sizeof(double));
  if (!xc || !ref) {
    free(xc);
    free(ref);
    return NULL;
  }
  for (int64_t k = 0; k < frames; k++) xc[k] = x[k * channels + c];
  ts_reference_conv(xc, frames, taps, m, ref);
  free(xc);
  return ref;
}

double ts_rel_diff_channel(const float *a, const float *b, int32_t channels, int32_t c,
                           int64_t frames) {
  double num = 0.0, den = 0.0;
  for (int64_t k = 0; k < frames; k++) {
    double d = (double)a[k * channels + c] - (double)b[k * channels + c];
    num += d * d;
    den += (double)b[k * channels + c] * (double)b[k * channels + c];
  }
  if (den == 0.0) return num == 0.0 ? 0.0 : INFINITY;
  return sqrt(num / den);
}

double *ts_reference_complex(const float *x, int64_t frames, int32_t channels, int32_t c,
                             const float *taps, int64_t m, int complex_taps, int64_t total) {
  const size_t nf = (size_t)(frames + 1), nt = (size_t)m;
  float *xr = malloc(sizeof(float) * nf), *xi = malloc(sizeof(float) * nf);
  float *hr = malloc(sizeof(float) * nt), *hi = malloc(sizeof(float) * nt);
  const size_t conv = (size_t)(frames + m);
  double *a = calloc(conv, sizeof(double)), *b = calloc(conv, sizeof(double));
  double *ref = calloc(2 * (size_t)total, sizeof(double));
  if (!xr || !xi || !hr || !hi || !a || !b || !ref) {
    free(ref);
    ref = NULL;
    goto done;
  }
  for (int64_t k = 0; k < frames; k++) {
    xr[k] = x[2 * (k * channels + c)];
    xi[k] = x[2 * (k * channels + c) + 1];
  }
  for (int64_t j = 0; j < m; j++) {
    hr[j] = complex_taps ? taps[2 * j] : taps[j];
    hi[j] = complex_taps ? taps[2 * j + 1] : 0.0f;
  }
  const int64_t len = frames > 0 ? frames + m - 1 : 0;
  const int64_t keep = len < total ? len : total;
  /* re = xr*hr - xi*hi, im = xr*hi + xi*hr, each a real convolution. */
  if (frames > 0) {
    ts_reference_conv(xr, frames, hr, m, a);
    ts_reference_conv(xi, frames, hi, m, b);
    for (int64_t k = 0; k < keep; k++) ref[2 * k] = a[k] - b[k];
    ts_reference_conv(xr, frames, hi, m, a);
    ts_reference_conv(xi, frames, hr, m, b);
    for (int64_t k = 0; k < keep; k++) ref[2 * k + 1] = a[k] + b[k];
  }
done:
  free(xr);
  free(xi);
  free(hr);
  free(hi);
  free(a);
  free(b);
  return ref;
}

double ts_rel_l2_complex(const float *y, int64_t stride, const double *ref, int64_t n) {
  double num = 0.0, den = 0.0;
  for (int64_t k = 0; k < n; k++) {
    for (int part = 0; part < 2; part++) {
      double d = (double)y[k * stride + part] - ref[2 * k + part];
      num += d * d;
      den += ref[2 * k + part] * ref[2 * k + part];
    }
  }
  if (den == 0.0) return num == 0.0 ? 0.0 : INFINITY;
  return sqrt(num / den);
}

void ts_case_make(ts_case *t, ts_rng *rng, int32_t channels, int64_t frames, int per_channel,
                  int64_t taps) {
  memset(t, 0, sizeof *t);
  t->channels = channels;
  t->frames = frames;
  t->n_filters = per_channel ? channels : 1;
  for (int32_t i = 0; i < t->n_filters; i++) {
    t->len[i] = i == 0 ? taps : ts_log_range(rng, 1, taps);
    t->taps[i] = malloc(sizeof(float) * (size_t)t->len[i]);
    ts_fill_uniform(rng, t->taps[i], t->len[i]);
  }
  t->x = malloc(sizeof(float) * (size_t)(frames * channels + 1));
  ts_fill_uniform(rng, t->x, frames * channels);
}

void ts_case_free(ts_case *t) {
  for (int32_t i = 0; i < t->n_filters; i++) free(t->taps[i]);
  free(t->x);
  memset(t, 0, sizeof *t);
}

int64_t ts_case_longest(const ts_case *t) {
  int64_t m = 0;
  for (int32_t i = 0; i < t->n_filters; i++) m = t->len[i] > m ? t->len[i] : m;
  return m;
}

double *ts_case_reference(const ts_case *t, int32_t c, int64_t total) {
  const int32_t fi = t->n_filters == 1 ? 0 : c;
  return ts_reference_channel(t->x, t->frames, t->channels, c, t->taps[fi], t->len[fi], total);
}

float *ts_stream_run(convoy_stream *stream, const float *in, int64_t frames, int64_t chunk_max,
                     ts_rng *rng, int64_t *out_frames) {
  return ts_stream_run_values(stream, in, frames, convoy_stream_channels(stream), chunk_max, rng,
                              out_frames);
}

float *ts_stream_run_values(convoy_stream *stream, const float *in, int64_t frames, int32_t values,
                            int64_t chunk_max, ts_rng *rng, int64_t *out_frames) {
  const int32_t ch = values;
  int64_t total = frames + convoy_stream_taps(stream) - 1;
  int64_t cap = total + convoy_stream_latency(stream) + 1;
  float *out = malloc(sizeof(float) * (size_t)(cap * ch));
  int64_t pos = 0, done = 0;
  *out_frames = 0;
  if (!out) return NULL;
  while (pos < frames) {
    int64_t n = frames - pos;
    if (chunk_max > 0) {
      int64_t c = ts_log_range(rng, 1, chunk_max);
      if (c < n) n = c;
    }
    int64_t bound = convoy_stream_max_output(stream, n), got = -1;
    convoy_status st =
        convoy_stream_process(stream, in + pos * ch, n, out + done * ch, cap - done, &got);
    if (st != CONVOY_OK) {
      TS_CHECK(st == CONVOY_OK, "process: %s: %s", convoy_strerror(st),
               convoy_stream_last_error(stream));
      free(out);
      return NULL;
    }
    if (got < 0 || got > bound) {
      TS_CHECK(got >= 0 && got <= bound, "process wrote %lld frames, bound %lld", (long long)got,
               (long long)bound);
      free(out);
      return NULL;
    }
    pos += n;
    done += got;
  }
  int64_t want = convoy_stream_flush_frames(stream), got = -1;
  convoy_status st = convoy_stream_flush(stream, out + done * ch, cap - done, &got);
  if (st != CONVOY_OK || got != want) {
    TS_CHECK(st == CONVOY_OK && got == want, "flush: %s, wrote %lld of %lld frames",
             convoy_strerror(st), (long long)got, (long long)want);
    free(out);
    return NULL;
  }
  done += got;
  *out_frames = done;
  return out;
}

convoy_filter *ts_random_filter(ts_rng *rng, int complex_taps, int64_t len, float **taps) {
  const int64_t n = len * (complex_taps ? 2 : 1);
  *taps = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  convoy_filter *f = NULL;
  if (!*taps) {
    TS_CHECK(0, "ts_random_filter: out of memory");
    return NULL;
  }
  ts_fill_uniform(rng, *taps, n);
  TS_CHECK_OK(convoy_filter_create_typed(&f, complex_taps ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32,
                                         *taps, len));
  return f;
}

int32_t ts_quantize(float x, int bits, int64_t *clipped) {
  const double full = ldexp(1.0, bits - 1);
  if (isnan(x)) {
    (*clipped)++;
    return 0;
  }
  const double v = floor((double)x * full + 0.5);
  if (v > full - 1.0 || v < -full) {
    (*clipped)++;
    return (int32_t)(v > 0 ? full - 1.0 : -full);
  }
  return (int32_t)v;
}

int64_t ts_code_at(const void *buf, convoy_sample_format fmt, int64_t i) {
  switch (fmt) {
  case CONVOY_FORMAT_S8:
    return ((const int8_t *)buf)[i];
  case CONVOY_FORMAT_U8:
    return (int64_t)((const uint8_t *)buf)[i] - 128;
  case CONVOY_FORMAT_S16:
    return ((const int16_t *)buf)[i];
  default:
    return ((const int32_t *)buf)[i];
  }
}
