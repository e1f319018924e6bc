/*
 * test_audio_io.c - audio file reading and writing (io/audio_file.h) on real
 * files in a fresh temporary directory: round trips for each subtype,
 * saturation and clip counting, dither, output format choice, bad inputs
 * (truncated, not audio, empty, missing), and that no temporary or partial
 * output is ever left behind (commit, abort, write error, existing output,
 * signals, exit, a killed writer's stale temporary). Run twice by ctest: with
 * unnamed temporaries (O_TMPFILE) and, as test_audio_io_named, with the named
 * ones of a file system without it.
 */
#define _GNU_SOURCE /* mkdtemp, setrlimit, dup2 */

#include "audio_file.h"
#include "test_support.h"
#include "worker_pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];
static ts_rng rng;

/* ------------------------------------------------------------- helpers */

static const char *in_dir(const char *name) {
  static char paths[8][512];
  static int next = 0;
  char *p = paths[next++ % 8];
  snprintf(p, sizeof paths[0], "%s/%s", dir, name);
  return p;
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* Temporaries the sink makes carry ".convoy-" in their names. */
static int count_temps(void) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (strstr(e->d_name, ".convoy-")) n++;
  closedir(d);
  return n;
}

/* 1 when the io layer is told to use named temporaries (the test hook of
 * io/atomic_file.h, which the ctest test_audio_io_named sets), as on a file
 * system without O_TMPFILE; else 0, and a temporary has no name: only an
 * open descriptor shows it. */
static int named_temps(void) {
  const char *v = getenv("CONVOY_IO_TEST_NAMED_TEMP");
  return v && *v && strcmp(v, "0") != 0;
}

/* Descriptors of this process open on a file of dir that has no name. */
static int count_unnamed_open(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  size_t len = strlen(dir);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    char link[300], to[600];
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t got = readlink(link, to, sizeof to - 1);
    struct stat st;
    if (got <= 0 || stat(link, &st) != 0) continue;
    to[got] = '\0';
    n += S_ISREG(st.st_mode) && st.st_nlink == 0 && strncmp(to, dir, len) == 0 && to[len] == '/';
  }
  closedir(d);
  return n;
}

static void remove_dir(void) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    unlink(in_dir(e->d_name));
  }
  closedir(d);
  rmdir(dir);
}

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

static size_t read_bytes(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static off_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Writes frames through a sink and commits. Returns the first failing
 * status; stats (if not NULL) are taken before the commit. */
static convoy_status write_file(const char *path, int format, int channels, const float *x,
                                int64_t frames, int dither, uint64_t seed, int overwrite,
                                audio_sink_stats *stats, char *err, size_t err_size) {
  audio_sink_options opt = {format, channels, 48000, dither, seed};
  audio_sink *sink;
  convoy_status st = audio_sink_open(&sink, path, &opt, overwrite, err, err_size);
  if (st != CONVOY_OK) return st;
  st = audio_sink_write(sink, x, frames, err, err_size);
  if (st != CONVOY_OK) {
    audio_sink_abort(sink);
    return st;
  }
  if (stats) audio_sink_get_stats(sink, stats);
  return audio_sink_commit(sink, err, err_size);
}

/* Reads a whole file through audio_source in uneven blocks. Returns the
 * first failing status; *out (malloc'd) holds the frames on success. */
static convoy_status read_file(const char *path, audio_info *info, float **out, int64_t *frames,
                               char *err, size_t err_size) {
  audio_source *src;
  *out = NULL;
  *frames = 0;
  convoy_status st = audio_source_open(&src, path, info, err, err_size);
  if (st != CONVOY_OK) return st;
  int64_t cap = 1024, n = 0;
  float *buf = malloc((size_t)(cap * info->channels) * sizeof *buf);
  for (;;) {
    if (n + 1000 > cap) {
      cap *= 2;
      buf = realloc(buf, (size_t)(cap * info->channels) * sizeof *buf);
    }
    int64_t got;
    st = audio_source_read(src, buf + n * info->channels, 1 + (n % 997), &got, err, err_size);
    if (st != CONVOY_OK || got == 0) break;
    n += got;
  }
  audio_source_close(src);
  if (st != CONVOY_OK) {
    free(buf);
    return st;
  }
  *out = buf;
  *frames = n;
  return CONVOY_OK;
}

/* The integer codes of a file, straight from libsndfile (not through
 * audio_source), right-justified to `bits`. */
static int32_t *read_codes(const char *path, int bits, int64_t *samples) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open(path, SFM_READ, &info);
  *samples = 0;
  if (!sf) return NULL;
  int64_t n = (int64_t)info.frames * info.channels;
  int32_t *codes = malloc((size_t)n * sizeof *codes);
  sf_count_t got = sf_readf_int(sf, codes, info.frames);
  sf_close(sf);
  if (got != info.frames) {
    free(codes);
    return NULL;
  }
  /* Left-justified in 32 bits with zero low bits: the division is exact. */
  int32_t step = bits >= 32 ? 1 : (int32_t)1 << (32 - bits);
  for (int64_t i = 0; i < n; i++) codes[i] /= step;
  *samples = n;
  return codes;
}

static int sf_format_of(const char *path) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open(path, SFM_READ, &info);
  if (!sf) return 0;
  sf_close(sf);
  return info.format;
}

static double max_abs(const float *x, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    if (fabs((double)x[i]) > m) m = fabs((double)x[i]);
  return m;
}

/* ------------------------------------------------------------- round trips */

static void test_round_trip_int(const char *name, int format, int bits) {
  const int ch = 2;
  const int64_t frames = 3001;
  const int64_t n = frames * ch;
  float *x = malloc((size_t)n * sizeof *x);
  ts_fill_uniform(&rng, x, n);
  /* Within the codes of the width: |v| <= full - 1. */
  const float scale = (float)(1.0 - ldexp(1.0, 1 - bits));
  for (int64_t i = 0; i < n; i++) x[i] *= scale;
  x[0] = 0.0f;
  x[1] = -1.0f; /* the most negative code, exactly */
  x[2] = 0.5f;
  const char *path = in_dir(name);
  char err[512] = "";
  audio_sink_stats stats;
  TS_CHECK(write_file(path, format, ch, x, frames, 0, 1, 0, &stats, err, sizeof err) == CONVOY_OK,
           "%s: %s", name, err);
  TS_CHECK(stats.frames == frames && stats.clipped == 0, "%s: frames %lld clipped %lld", name,
           (long long)stats.frames, (long long)stats.clipped);
  TS_CHECK(stats.peak == max_abs(x, n), "%s: peak %.9g vs %.9g", name, stats.peak, max_abs(x, n));
  TS_CHECK((sf_format_of(path) & 0xFFFF) == (format & 0xFFFF), "%s: format %x", name,
           sf_format_of(path));

  /* Codes: within half an LSB of x * 2^(bits-1). */
  int64_t got_n;
  int32_t *codes = read_codes(path, bits, &got_n);
  TS_CHECK(codes && got_n == n, "%s: read %lld codes", name, (long long)got_n);
  if (codes && got_n == n) {
    double full = ldexp(1.0, bits - 1), worst = 0;
    for (int64_t i = 0; i < n; i++) {
      double e = fabs((double)codes[i] - (double)x[i] * full);
      if (e > worst) worst = e;
    }
    TS_CHECK(worst <= 0.5, "%s: worst code error %.4f LSB", name, worst);
    TS_CHECK(codes[1] == (int32_t)-full, "%s: -1.0 -> %d", name, codes[1]);
  }

  /* audio_source: codes / 2^(bits-1) as float. */
  audio_info info;
  float *y;
  int64_t yn;
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK, "%s: %s", name, err);
  TS_CHECK(yn == frames && info.frames == frames && info.channels == ch && info.rate == 48000,
           "%s: %lld frames, info %lld/%d/%d", name, (long long)yn, (long long)info.frames,
           info.channels, info.rate);
  if (y && codes && yn == frames) {
    int64_t bad = 0;
    double full = ldexp(1.0, bits - 1);
    for (int64_t i = 0; i < n; i++) {
      double want = (double)codes[i] / full;
      double tol = bits > 24 ? ldexp(1.0, -24) : 0.0; /* float holds 24 bits */
      if (fabs((double)y[i] - want) > tol) bad++;
    }
    TS_CHECK(bad == 0, "%s: %lld samples read back differ from code/2^%d", name, (long long)bad,
             bits - 1);
  }
  free(codes);
  free(y);
  free(x);
}

static void test_round_trip_float(const char *name, int format) {
  const int ch = 3;
  const int64_t frames = 1234, n = frames * ch;
  float *x = malloc((size_t)n * sizeof *x);
  ts_fill_uniform(&rng, x, n);
  x[5] = 1.5f; /* beyond full scale: floats keep it */
  x[6] = -2.0f;
  x[7] = 1e-30f;
  const char *path = in_dir(name);
  char err[512] = "";
  audio_sink_stats stats;
  TS_CHECK(write_file(path, format, ch, x, frames, 1, 1, 0, &stats, err, sizeof err) == CONVOY_OK,
           "%s: %s", name, err);
  TS_CHECK(stats.clipped == 0 && stats.peak == 2.0, "%s: clipped %lld peak %g", name,
           (long long)stats.clipped, stats.peak);
  audio_info info;
  float *y;
  int64_t yn;
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK, "%s: %s", name, err);
  TS_CHECK(yn == frames && info.format == format, "%s: %lld frames format %x", name, (long long)yn,
           info.format);
  if (y && yn == frames) TS_CHECK(memcmp(x, y, (size_t)n * sizeof *x) == 0, "%s: not exact", name);
  free(y);
  free(x);
}

/* ------------------------------------------------------------- clipping */

typedef struct clip_case {
  double lsb;  /* value in LSB of the width under test (x = lsb / full) */
  int clipped; /* 1 when the rule in io/quantize.h counts it */
  double code; /* expected code (ignored when NaN) */
} clip_case;

static void test_clipping(const char *name, int format, int bits) {
  const double full = ldexp(1.0, bits - 1);
  /* Boundaries from the rule: clipped iff v >= full - 0.5 or v < -full - 0.5. */
  const clip_case cases[] = {
      {full, 1, full - 1},       /* +1.0: its code would be full */
      {-full, 0, -full},         /* -1.0: exactly the lowest code */
      {full - 0.5, 1, full - 1}, /* rounds to full: clipped */
      {full - 1, 0, full - 1},   /* the highest code itself */
      {-full - 0.5, 0, -full},   /* rounds (up) to -full */
      {1.5 * full, 1, full - 1}, /* x = 1.5 */
      {-1.5 * full, 1, -full},   /* x = -1.5 */
      {1e6 * full, 1, full - 1}, /* far beyond: no wrap */
      {-1e6 * full, 1, -full},
      {(double)INFINITY, 1, full - 1},
      {-(double)INFINITY, 1, -full},
      {0, 0, 0},
  };
  const int n_cases = (int)(sizeof cases / sizeof cases[0]);
  const int64_t n = 4000;
  float *x = malloc((size_t)n * sizeof *x);
  double *want = malloc((size_t)n * sizeof *want);
  int64_t expect_clips = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i % 7 == 3) {
      const clip_case *c = &cases[(i / 7) % n_cases];
      x[i] = (float)(c->lsb / full);
      want[i] = c->code;
      expect_clips += c->clipped;
    } else {
      x[i] = (float)(0.9 * (2.0 * ts_uniform(&rng) - 1.0));
      want[i] = NAN;
    }
  }
  /* The boundary cases are exact in float for 16 and 24 bits. */
  TS_CHECK((double)(float)((full - 0.5) / full) * full == full - 0.5, "%s: test setup", name);
  int64_t nan_at = 11; /* not one of the i % 7 == 3 cases */
  x[nan_at] = NAN;
  want[nan_at] = 0;
  expect_clips++;

  const char *path = in_dir(name);
  char err[512] = "";
  audio_sink_stats stats;
  TS_CHECK(write_file(path, format, 1, x, n, 0, 1, 0, &stats, err, sizeof err) == CONVOY_OK,
           "%s: %s", name, err);
  TS_CHECK(stats.clipped == expect_clips, "%s: clipped %lld, expected %lld", name,
           (long long)stats.clipped, (long long)expect_clips);
  TS_CHECK(isinf(stats.peak), "%s: peak %g (an infinite sample was written)", name, stats.peak);
  int64_t got;
  int32_t *codes = read_codes(path, bits, &got);
  TS_CHECK(codes && got == n, "%s: read back", name);
  if (codes && got == n) {
    int64_t wrong = 0, wrapped = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!isnan(want[i]) && codes[i] != (int32_t)want[i]) wrong++;
      if (x[i] > 0.5f && codes[i] < 0) wrapped++;
      if (x[i] < -0.5f && codes[i] > 0) wrapped++;
    }
    TS_CHECK(wrong == 0 && wrapped == 0, "%s: %lld wrong codes, %lld wrapped", name,
             (long long)wrong, (long long)wrapped);
  }
  free(codes);

  /* Dither does not change what counts as clipped (the rule is before dither). */
  if (bits <= 16) {
    x[nan_at] = 0.0f;
    TS_CHECK(write_file(path, format, 1, x, n, 1, 7, 1, &stats, err, sizeof err) == CONVOY_OK,
             "%s dithered: %s", name, err);
    TS_CHECK(stats.clipped == expect_clips - 1, "%s dithered: clipped %lld, expected %lld", name,
             (long long)stats.clipped, (long long)expect_clips - 1);
  }
  free(want);
  free(x);
}

static void test_lossy_clamp(void) {
  const int64_t n = 48000;
  float *x = malloc((size_t)n * sizeof *x);
  int64_t over = 0;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)(1.3 * sin(2 * M_PI * 440.0 * (double)i / 48000.0));
    if (fabsf(x[i]) > 1.0f) over++;
  }
  char err[512] = "";
  audio_sink_stats stats;
  const char *path = in_dir("clamp.ogg");
  convoy_status st =
      write_file(path, SF_FORMAT_OGG | SF_FORMAT_VORBIS, 1, x, n, 1, 1, 0, &stats, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "ogg: %s", err);
  TS_CHECK(stats.clipped == over && over > 1000, "ogg: clipped %lld of %lld beyond 1.0",
           (long long)stats.clipped, (long long)over);
  audio_info info;
  float *y;
  int64_t yn;
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK, "ogg read: %s", err);
  TS_CHECK(yn == n, "ogg: %lld of %lld frames", (long long)yn, (long long)n);
  free(y);
  free(x);
}

/* ------------------------------------------------------------- dither */

static void test_dither(void) {
  const int64_t n = 48000;
  float *x = malloc((size_t)n * sizeof *x);
  char err[512] = "";
  audio_sink_stats stats;
  int64_t got;

  /* A constant 1000.3 LSB: without dither every code is 1000. */
  const double level = 1000.3;
  for (int64_t i = 0; i < n; i++) x[i] = (float)(level / 32768.0);
  const double v = (double)x[0] * 32768.0; /* what the float really holds */
  const char *plain = in_dir("dither_off.wav");
  TS_CHECK(write_file(plain, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, n, 0, 1, 0, NULL, err,
                      sizeof err) == CONVOY_OK,
           "%s", err);
  int32_t *c = read_codes(plain, 16, &got);
  int64_t not_1000 = 0;
  for (int64_t i = 0; c && i < got; i++) not_1000 += c[i] != 1000;
  TS_CHECK(c && got == n && not_1000 == 0, "undithered pcm16: %lld codes differ from 1000",
           (long long)not_1000);
  free(c);

  /* With dither: codes vary, each within 1.5 LSB, mean error about 0
   * (standard deviation of the mean is 0.5 / sqrt(n) = 0.0023 LSB). */
  const char *dith = in_dir("dither_on.wav");
  TS_CHECK(write_file(dith, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, n, 1, 42, 0, &stats, err,
                      sizeof err) == CONVOY_OK,
           "%s", err);
  TS_CHECK(stats.clipped == 0, "dithered: clipped %lld", (long long)stats.clipped);
  c = read_codes(dith, 16, &got);
  TS_CHECK(c && got == n, "dithered: read back");
  if (c && got == n) {
    double sum = 0, worst = 0;
    int64_t distinct_low = 0, distinct_high = 0;
    for (int64_t i = 0; i < n; i++) {
      double e = (double)c[i] - v;
      sum += e;
      if (fabs(e) > worst) worst = fabs(e);
      distinct_low += c[i] < 1000;
      distinct_high += c[i] > 1000;
    }
    TS_CHECK(distinct_low > 100 && distinct_high > 100, "dithered: %lld below, %lld above 1000",
             (long long)distinct_low, (long long)distinct_high);
    TS_CHECK(worst < 1.5, "dithered: worst error %.3f LSB", worst);
    TS_CHECK(fabs(sum / (double)n) < 0.02, "dithered: mean error %.4f LSB", sum / (double)n);
  }
  free(c);

  /* Same seed, same file; another seed, another noise. */
  const char *again = in_dir("dither_again.wav");
  const char *other = in_dir("dither_other.wav");
  write_file(again, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, n, 1, 42, 0, NULL, err, sizeof err);
  write_file(other, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, n, 1, 43, 0, NULL, err, sizeof err);
  int64_t g1, g2, g3;
  int32_t *a = read_codes(dith, 16, &g1), *b = read_codes(again, 16, &g2),
          *o = read_codes(other, 16, &g3);
  TS_CHECK(a && b && o && g1 == n && g2 == n && g3 == n, "dither seeds: read back");
  if (a && b && o && g1 == n && g2 == n && g3 == n) {
    TS_CHECK(memcmp(a, b, (size_t)n * sizeof *a) == 0, "same seed gave different dither");
    TS_CHECK(memcmp(a, o, (size_t)n * sizeof *a) != 0, "another seed gave the same dither");
  }
  free(a);
  free(b);
  free(o);

  /* 8-bit output is dithered too (at its own LSB). */
  for (int64_t i = 0; i < n; i++) x[i] = (float)(10.3 / 128.0);
  const char *u8 = in_dir("dither_u8.wav");
  TS_CHECK(write_file(u8, SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 1, x, n, 1, 5, 0, NULL, err,
                      sizeof err) == CONVOY_OK,
           "%s", err);
  c = read_codes(u8, 8, &got);
  int64_t off = 0;
  double worst8 = 0;
  for (int64_t i = 0; c && i < got; i++) {
    off += c[i] != 10;
    double e = fabs((double)c[i] - 10.3);
    if (e > worst8) worst8 = e;
  }
  TS_CHECK(c && got == n && off > 1000 && worst8 < 1.5,
           "dithered u8: %lld codes off 10, worst %.2f", (long long)off, worst8);
  free(c);

  /* pcm24 and pcm32 with the dither flag on are not dithered: a signal they
   * represent exactly comes back exactly. */
  const struct {
    const char *name;
    int format, bits;
  } wide[] = {{"nodither24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 24},
              {"nodither32.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_32, 32},
              {"nodither24.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 24}};
  for (size_t w = 0; w < sizeof wide / sizeof wide[0]; w++) {
    int32_t *k = malloc((size_t)n * sizeof *k);
    int32_t step = wide[w].bits == 32 ? 256 : 1; /* codes a float holds exactly */
    for (int64_t i = 0; i < n; i++) {
      k[i] = (int32_t)ts_range(&rng, -(1 << 23), (1 << 23) - 1) * step;
      x[i] = (float)ldexp((double)k[i], -(wide[w].bits - 1));
    }
    const char *path = in_dir(wide[w].name);
    TS_CHECK(write_file(path, wide[w].format, 1, x, n, 1, 9, 0, NULL, err, sizeof err) == CONVOY_OK,
             "%s: %s", wide[w].name, err);
    c = read_codes(path, wide[w].bits, &got);
    TS_CHECK(c && got == n && memcmp(c, k, (size_t)n * sizeof *k) == 0,
             "%s: not an exact round trip with the dither flag on", wide[w].name);
    free(c);
    free(k);
  }
  free(x);
}

/* ------------------------------------------------------------- outputs */

/* Writes x through audio_sink_encode[_parallel] and audio_sink_write_encoded
 * in uneven pieces, alternating the sequential and the pooled encode. */
static convoy_status write_encoded(const char *path, int format, int channels, const float *x,
                                   int64_t frames, uint64_t seed, worker_pool *pool,
                                   audio_sink_stats *stats, char *err, size_t err_size) {
  audio_sink_options opt = {format, channels, 48000, 1, seed};
  audio_sink *sink;
  convoy_status st = audio_sink_open(&sink, path, &opt, 0, err, err_size);
  if (st != CONVOY_OK) return st;
  const size_t bytes = audio_sink_encoded_bytes(sink);
  void *codes = malloc((size_t)frames * (size_t)channels * (bytes ? bytes : 4));
  int64_t done = 0;
  for (int piece = 0; st == CONVOY_OK && done < frames; piece++) {
    int64_t n = piece % 3 == 0 ? 1 : 5000 + 17 * (int64_t)piece * piece;
    if (n > frames - done) n = frames - done;
    const float *at = x + done * channels;
    if (piece % 2)
      audio_sink_encode_parallel(sink, at, n, codes, pool);
    else
      audio_sink_encode(sink, at, n, codes);
    st = audio_sink_write_encoded(sink, codes, n, err, err_size);
    done += n;
  }
  free(codes);
  if (st != CONVOY_OK) {
    audio_sink_abort(sink);
    return st;
  }
  audio_sink_get_stats(sink, stats);
  return audio_sink_commit(sink, err, err_size);
}

/* Encoding on other threads than the writes, and on several threads at once,
 * gives bitwise the file and the counts of audio_sink_write(): dither, clips
 * and peak depend only on each sample's position. */
static void test_encode_parallel(void) {
  const int64_t n = 150001;
  const int channels = 3;
  float *x = malloc((size_t)n * channels * sizeof *x);
  ts_fill_uniform(&rng, x, n * channels);
  for (int64_t i = 0; i < n * channels; i += 97) x[i] *= 1.7f; /* some clip */
  x[5] = NAN;
  worker_pool *pool = pool_create(4);
  TS_CHECK(pool != NULL, "pool_create(4)");
  static const struct {
    const char *name;
    int format, bits;
  } cases[] = {{"enc16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16},
               {"enc24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 24},
               {"enc8.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 8}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char name[64], err[512] = "";
    audio_sink_stats want, got;
    snprintf(name, sizeof name, "one_%s", cases[k].name);
    const char *one = in_dir(name);
    TS_CHECK(write_file(one, cases[k].format, channels, x, n, 1, 9, 0, &want, err, sizeof err) ==
                 CONVOY_OK,
             "%s: %s", one, err);
    snprintf(name, sizeof name, "two_%s", cases[k].name);
    const char *two = in_dir(name);
    TS_CHECK(write_encoded(two, cases[k].format, channels, x, n, 9, pool, &got, err, sizeof err) ==
                 CONVOY_OK,
             "%s: %s", two, err);
    int64_t n_one = 0, n_two = 0;
    int32_t *a = read_codes(one, cases[k].bits, &n_one),
            *b = read_codes(two, cases[k].bits, &n_two);
    TS_CHECK(a && b && n_one == n * channels && n_two == n_one &&
                 memcmp(a, b, sizeof *a * (size_t)n_one) == 0,
             "%s: codes differ between one-step and parallel two-step writing", cases[k].name);
    TS_CHECK(got.frames == want.frames && got.clipped == want.clipped && got.peak == want.peak &&
                 want.clipped > 0,
             "%s: counts %lld/%lld clipped, peak %g/%g", cases[k].name, (long long)got.clipped,
             (long long)want.clipped, got.peak, want.peak);
    free(a);
    free(b);
  }
  pool_destroy(pool);
  free(x);
}

/* A whole file's samples in uneven blocks: floats (way 0), native codes
 * (1), or stored 24-bit bytes unpacked on pool (2). NULL on failure. */
static void *read_way(const char *path, int way, worker_pool *pool, int64_t *samples) {
  char err[512] = "";
  audio_info info;
  audio_source *src;
  if (audio_source_open(&src, path, &info, err, sizeof err) != CONVOY_OK) {
    TS_CHECK(0, "%s: %s", path, err);
    return NULL;
  }
  const int64_t frames = info.frames;
  int32_t *out = malloc(sizeof(int32_t) * (size_t)(frames * info.channels + 1));
  unsigned char *stored = malloc((size_t)(3 * 40000 * info.channels));
  int64_t n = 0;
  convoy_status st = CONVOY_OK;
  while (st == CONVOY_OK && n < frames) {
    const int64_t want = ts_range(&rng, 1, 40000); /* many pool tasks, or one */
    int64_t got = 0;
    if (way == 0)
      st = audio_source_read(src, (float *)out + n * info.channels, want, &got, err, sizeof err);
    else if (way == 1)
      st = audio_source_read_native(src, out + n * info.channels, want, &got, err, sizeof err);
    else if ((st = audio_source_read_stored(src, stored, want, &got, err, sizeof err)) == CONVOY_OK)
      audio_source_unpack_parallel(src, stored, got, out + n * info.channels,
                                   ts_uniform(&rng) < 0.7 ? pool : NULL);
    if (got == 0) break;
    n += got;
  }
  TS_CHECK(st == CONVOY_OK && n == frames, "%s, way %d: %lld of %lld frames: %s", path, way,
           (long long)n, (long long)frames, err);
  audio_source_close(src);
  free(stored);
  *samples = n * info.channels;
  return out;
}

/* 24-bit PCM: its native codes divided by 2^31 are exactly the floats, and
 * the stored bytes unpacked on a pool are exactly the native codes. */
static void test_read_stored(void) {
  const int64_t n = 120007;
  const int channels = 3;
  float *x = malloc((size_t)n * channels * sizeof *x);
  ts_fill_uniform(&rng, x, n * channels);
  worker_pool *pool = pool_create(4);
  static const struct {
    const char *name;
    int format, stored;
  } cases[] = {{"st24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 3},
               {"st24.rf64", SF_FORMAT_RF64 | SF_FORMAT_PCM_24, 3},
               {"st24.w64", SF_FORMAT_W64 | SF_FORMAT_PCM_24, 3},
               {"st24.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 0},
               {"st16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char err[512] = "";
    const char *path = in_dir(cases[k].name);
    TS_CHECK(write_file(path, cases[k].format, channels, x, n, 1, 5, 0, NULL, err, sizeof err) ==
                 CONVOY_OK,
             "%s: %s", path, err);
    audio_info info;
    audio_source *src;
    if (audio_source_open(&src, path, &info, err, sizeof err) != CONVOY_OK) continue;
    const size_t stored = audio_source_stored_bytes(src);
    const int32_t subtype = cases[k].format & SF_FORMAT_SUBMASK;
    TS_CHECK(stored == (size_t)cases[k].stored, "%s: stored bytes %zu", path, stored);
    TS_CHECK(audio_source_native_format(src) ==
                 (subtype == SF_FORMAT_PCM_24 ? CONVOY_FORMAT_S32 : CONVOY_FORMAT_S16),
             "%s: native format %d", path, (int)audio_source_native_format(src));
    unsigned char b[64];
    int64_t got = 0;
    if (!stored)
      TS_CHECK(audio_source_read_stored(src, b, 1, &got, err, sizeof err) ==
                   CONVOY_ERR_INVALID_ARGUMENT,
               "%s: stored read accepted", path);
    audio_source_close(src);
    if (subtype != SF_FORMAT_PCM_24) continue;
    int64_t nf = 0, nc = 0, ns = 0;
    float *f = read_way(path, 0, pool, &nf);
    int32_t *c = read_way(path, 1, pool, &nc), *s = stored ? read_way(path, 2, pool, &ns) : NULL;
    int64_t off = 0, differ = 0;
    for (int64_t i = 0; f && c && i < nf && nf == nc; i++)
      off += (float)c[i] * (1.0f / 2147483648.0f) != f[i];
    for (int64_t i = 0; c && s && i < nc && nc == ns; i++) differ += c[i] != s[i];
    TS_CHECK(f && c && nf == nc && off == 0, "%s: %lld native codes / 2^31 differ from the floats",
             path, (long long)off);
    TS_CHECK(!stored || (s && ns == nc && differ == 0),
             "%s: %lld unpacked stored samples differ from the native codes", path,
             (long long)differ);
    free(f);
    free(c);
    free(s);
  }
  pool_destroy(pool);
  free(x);
}

static void test_no_temp_left_and_abort(void) {
  float x[256] = {0};
  char err[512] = "";
  audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 1, 1};
  audio_sink *sink;
  const char *path = in_dir("aborted.wav");
  TS_CHECK_OK(audio_sink_open(&sink, path, &opt, 0, err, sizeof err));
  TS_CHECK(count_temps() == named_temps(), "open sink: %d named temporaries", count_temps());
  TS_CHECK(count_unnamed_open() == !named_temps(), "open sink: %d unnamed temporaries",
           count_unnamed_open());
  TS_CHECK(!exists(path), "the output exists before commit");
  audio_sink_write(sink, x, 256, err, sizeof err);
  audio_sink_abort(sink);
  TS_CHECK(count_temps() == 0 && !exists(path), "after abort: %d temporaries, output %d",
           count_temps(), exists(path));
  TS_CHECK(count_unnamed_open() == 0, "after abort: %d unnamed temporaries open",
           count_unnamed_open());
  audio_sink_abort(NULL);

  /* Committed: the output is there and complete, no temporary. */
  path = in_dir("committed.wav");
  TS_CHECK_OK(audio_sink_open(&sink, path, &opt, 0, err, sizeof err));
  audio_sink_write(sink, x, 256, err, sizeof err);
  TS_CHECK_OK(audio_sink_commit(sink, err, sizeof err));
  TS_CHECK(count_temps() == 0 && exists(path), "after commit: %d temporaries", count_temps());
  mode_t mask = umask(0);
  umask(mask);
  struct stat st;
  TS_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask),
           "new output mode %o, umask %o", (unsigned)(st.st_mode & 0777), (unsigned)mask);

  /* An output directory that does not exist. */
  path = in_dir("no/such/dir/out.wav");
  TS_CHECK(audio_sink_open(&sink, path, &opt, 0, err, sizeof err) == CONVOY_ERR_IO &&
               strstr(err, path),
           "missing directory: %s", err);
}

static void test_existing_output(void) {
  static const char old[] = "old contents, not audio";
  char buf[64];
  char err[512] = "";
  float x[100] = {0.25f};
  const char *path = in_dir("exists.wav");
  write_bytes(path, old, sizeof old);

  convoy_status st =
      write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 100, 0, 1, 0, NULL, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_IO && strstr(err, path) && strstr(err, "exists"),
           "existing output: %s (%s)", convoy_strerror(st), err);
  TS_CHECK(read_bytes(path, buf, sizeof buf) == sizeof old && memcmp(buf, old, sizeof old) == 0,
           "existing output was changed");
  TS_CHECK(count_temps() == 0, "refusal left a temporary");

  /* Appears between open and commit: still not replaced. */
  const char *race = in_dir("race.wav");
  audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 0, 1};
  audio_sink *sink;
  TS_CHECK_OK(audio_sink_open(&sink, race, &opt, 0, err, sizeof err));
  audio_sink_write(sink, x, 100, err, sizeof err);
  write_bytes(race, old, sizeof old);
  st = audio_sink_commit(sink, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_IO && strstr(err, race), "appeared meanwhile: %s (%s)",
           convoy_strerror(st), err);
  TS_CHECK(read_bytes(race, buf, sizeof buf) == sizeof old && memcmp(buf, old, sizeof old) == 0,
           "a file that appeared meanwhile was replaced");
  TS_CHECK(count_temps() == 0, "failed commit left a temporary");

  /* With overwrite: replaced by a complete file. */
  TS_CHECK(write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 100, 0, 1, 1, NULL, err,
                      sizeof err) == CONVOY_OK,
           "overwrite: %s", err);
  audio_info info;
  float *y;
  int64_t yn;
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK && yn == 100 &&
               y[0] == 0.25f,
           "overwritten file: %s", err);
  free(y);

  /* Through a symlink: the file it points to is replaced, the link stays. */
  const char *link_path = in_dir("link.wav");
  TS_CHECK(symlink("exists.wav", link_path) == 0, "symlink: %s", strerror(errno));
  x[0] = -0.5f;
  TS_CHECK(write_file(link_path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 100, 0, 1, 1, NULL, err,
                      sizeof err) == CONVOY_OK,
           "overwrite through link: %s", err);
  struct stat lst;
  TS_CHECK(lstat(link_path, &lst) == 0 && S_ISLNK(lst.st_mode), "the symlink was replaced");
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK && yn == 100 &&
               y[0] == -0.5f,
           "target of the link: %s", err);
  free(y);

  /* A directory is never replaced. */
  const char *sub = in_dir("subdir.wav");
  mkdir(sub, 0755);
  st = write_file(sub, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 100, 0, 1, 1, NULL, err, sizeof err);
  TS_CHECK(st != CONVOY_OK && strstr(err, sub), "directory as output: %s", err);
  rmdir(sub);
  TS_CHECK(count_temps() == 0, "temporaries left: %d", count_temps());
}

/* Input and output the same file: read fully, then the rename replaces it. */
static void test_same_input_output(void) {
  const int64_t n = 5000;
  float *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = (float)(int32_t)ts_range(&rng, -20000, 20000) / 32768.0f;
  const char *path = in_dir("inplace.wav");
  char err[512] = "";
  write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, n, 0, 1, 0, NULL, err, sizeof err);

  audio_info info;
  audio_source *src;
  audio_sink *sink;
  TS_CHECK_OK(audio_source_open(&src, path, &info, err, sizeof err));
  audio_sink_options opt = {info.format, info.channels, info.rate, 0, 1};
  TS_CHECK_OK(audio_sink_open(&sink, path, &opt, 1, err, sizeof err));
  float buf[700];
  int64_t got, total = 0;
  while (audio_source_read(src, buf, 700, &got, err, sizeof err) == CONVOY_OK && got > 0) {
    for (int64_t i = 0; i < got; i++) buf[i] *= 0.5f;
    audio_sink_write(sink, buf, got, err, sizeof err);
    total += got;
  }
  TS_CHECK_OK(audio_sink_commit(sink, err, sizeof err));
  audio_source_close(src);
  TS_CHECK(total == n, "read %lld of %lld", (long long)total, (long long)n);
  float *y;
  int64_t yn;
  TS_CHECK(read_file(path, &info, &y, &yn, err, sizeof err) == CONVOY_OK && yn == n, "%s", err);
  int64_t bad = 0;
  for (int64_t i = 0; y && i < n; i++) bad += fabsf(y[i] - 0.5f * x[i]) > 0.5f / 32768.0f;
  TS_CHECK(bad == 0, "in-place rewrite: %lld samples wrong", (long long)bad);
  free(y);
  free(x);
}

/* A write error (the file size limit) removes the temporary at once. Runs
 * in a child because it lowers a process limit. */
static void test_write_error(void) {
  const char *path = in_dir("too_big.wav");
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {65536, 65536};
    setrlimit(RLIMIT_FSIZE, &lim);
    static float x[100000];
    char err[512] = "";
    audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 0, 1};
    audio_sink *sink;
    if (audio_sink_open(&sink, path, &opt, 0, err, sizeof err) != CONVOY_OK) _exit(3);
    convoy_status st = audio_sink_write(sink, x, 100000, err, sizeof err);
    if (st != CONVOY_ERR_IO || !strstr(err, path)) _exit(4);
    if (count_temps() != 0) _exit(5); /* removed before abort */
    if (audio_sink_write(sink, x, 10, err, sizeof err) != CONVOY_ERR_STATE) _exit(6);
    if (audio_sink_commit(sink, err, sizeof err) == CONVOY_OK) _exit(7);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  TS_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "write error child: status %d",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  TS_CHECK(!exists(path) && count_temps() == 0, "write error left output %d, temporaries %d",
           exists(path), count_temps());
}

/* A signal removes the temporary; the process still dies of the signal. */
static void test_signal_cleanup(int sig) {
  const char *path = in_dir("signalled.wav");
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    signal(sig, SIG_DFL); /* as in a fresh program, whatever the test runner set */
    audio_install_signal_cleanup();
    static float x[4800];
    char err[512];
    audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 1, 1};
    audio_sink *sink;
    if (audio_sink_open(&sink, path, &opt, 0, err, sizeof err) != CONVOY_OK) _exit(3);
    if (audio_sink_write(sink, x, 4800, err, sizeof err) != CONVOY_OK) _exit(4);
    if (count_temps() != named_temps()) _exit(5);
    raise(sig);
    _exit(6);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  TS_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig, "signal %d child: %s %d", sig,
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  TS_CHECK(count_temps() == 0 && !exists(path), "after signal %d: %d temporaries, output %d", sig,
           count_temps(), exists(path));

  /* exit() without commit or abort: the atexit hook removes it. */
  pid = fork();
  if (pid == 0) {
    audio_install_signal_cleanup();
    char err[512];
    audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 1, 1};
    audio_sink *sink;
    if (audio_sink_open(&sink, path, &opt, 0, err, sizeof err) != CONVOY_OK) _exit(3);
    if (count_temps() != named_temps()) _exit(5);
    exit(0);
  }
  waitpid(pid, &status, 0);
  TS_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit child: status %d",
           WEXITSTATUS(status));
  TS_CHECK(count_temps() == 0 && !exists(path), "after exit(): %d temporaries", count_temps());
}

/* A temporary that a killed writer left (named, unlocked) is removed by the
 * next sink for the same output; one whose writer holds its lock, the older
 * ".NAME.convoy-XXXXXX" names (which had no lock) and another output's are
 * kept. */
static void test_stale_temps(void) {
  const char *path = in_dir("stale.wav");
  const char *stale = in_dir(".stale.wav.convoy-999999-abcDEF");
  const char *live = in_dir(".stale.wav.convoy-999998-ghiJKL");
  const char *old_style = in_dir(".stale.wav.convoy-mnoPQR");
  const char *other = in_dir(".other.wav.convoy-999999-abcDEF");
  static const char junk[] = "half a file";
  write_bytes(stale, junk, sizeof junk);
  write_bytes(live, junk, sizeof junk);
  write_bytes(old_style, junk, sizeof junk);
  write_bytes(other, junk, sizeof junk);
  int lock_fd = open(live, O_RDONLY);
  TS_CHECK(lock_fd >= 0 && flock(lock_fd, LOCK_EX) == 0, "lock %s: %s", live, strerror(errno));

  char err[512] = "";
  float x[64] = {0};
  audio_sink_options opt = {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 48000, 0, 1};
  audio_sink *sink;
  TS_CHECK_OK(audio_sink_open(&sink, path, &opt, 0, err, sizeof err));
  TS_CHECK(!exists(stale), "a writer's stale temporary was kept");
  TS_CHECK(exists(live), "a live writer's (locked) temporary was removed");
  TS_CHECK(exists(old_style) && exists(other), "an old-style or another output's temporary "
                                               "was removed");
  audio_sink_write(sink, x, 64, err, sizeof err);
  TS_CHECK_OK(audio_sink_commit(sink, err, sizeof err));
  TS_CHECK(exists(path) && exists(live), "after commit: output %d, live temporary %d", exists(path),
           exists(live));
  close(lock_fd);
  unlink(live);
  unlink(old_style);
  unlink(other);
  unlink(path);
}

/* ------------------------------------------------------------- bad inputs */

static convoy_status read_status(const char *path, char *err, size_t err_size) {
  audio_info info;
  float *y;
  int64_t yn;
  convoy_status st = read_file(path, &info, &y, &yn, err, err_size);
  free(y);
  return st;
}

/* Writes a stereo file of `frames` frames, cuts it to `keep` of its size,
 * and checks the read fails with a message naming the file. */
static void check_truncated(const char *name, int format, int64_t frames, double keep,
                            const char *must_say) {
  float *x = malloc((size_t)frames * 2 * sizeof *x);
  ts_fill_uniform(&rng, x, frames * 2);
  for (int64_t i = 0; i < frames * 2; i++) x[i] *= 0.5f;
  const char *path = in_dir(name);
  char err[512] = "";
  TS_CHECK(write_file(path, format, 2, x, frames, 0, 1, 0, NULL, err, sizeof err) == CONVOY_OK,
           "%s: %s", name, err);
  TS_CHECK(read_status(path, err, sizeof err) == CONVOY_OK, "%s complete: %s", name, err);
  off_t size = file_size(path);
  TS_CHECK(truncate(path, (off_t)((double)size * keep)) == 0, "truncate %s", name);
  /* In a child that leaves with _exit: libsndfile 1.2 leaks the Vorbis
   * state when it fails to open a broken Ogg file, which the leak checker
   * of the sanitizer build would report at exit. */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    convoy_status st = read_status(path, err, sizeof err);
    int ok = st == CONVOY_ERR_FORMAT && strstr(err, path) && strstr(err, must_say);
    if (!ok) fprintf(stderr, "%s truncated: %s (%s)\n", name, convoy_strerror(st), err);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  TS_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s truncated: read did not fail right",
           name);
  free(x);
}

static void test_truncated(void) {
  char err[512] = "";
  check_truncated("cut.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 4800, 0.6, "of 4800 frames");
  check_truncated("cut24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 4800, 0.6, "of 4800 frames");
  check_truncated("cutf.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 4800, 0.5, "of 4800 frames");
  check_truncated("cut.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 4800, 0.6, "of 4800 frames");
  check_truncated("cut.au", SF_FORMAT_AU | SF_FORMAT_PCM_16, 4800, 0.6, "of 4800 frames");
  check_truncated("cut.w64", SF_FORMAT_W64 | SF_FORMAT_PCM_16, 4800, 0.6, "of 4800 frames");
  check_truncated("cut.rf64", SF_FORMAT_RF64 | SF_FORMAT_PCM_16, 4800, 0.6, "of 4800 frames");
  check_truncated("cut.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 4800, 0.6, "");
  check_truncated("cut.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 4800, 0.6, "");
  /* A longer Ogg file cut in the middle opens; reading finds the cut. */
  check_truncated("cutlong.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 48000, 0.6, "truncated");
  check_truncated("cuthead.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 4800, 0.002, "");

  /* The exact message for the simplest case. */
  const char *path = in_dir("cut.wav");
  audio_info info;
  audio_source *src;
  char want[600];
  convoy_status st = audio_source_open(&src, path, &info, err, sizeof err);
  /* 0.6 * (44 + 19200) bytes = 11546, minus the 44-byte header: 2875 frames. */
  snprintf(want, sizeof want, "%s: truncated: got 2875 of 4800 frames", path);
  TS_CHECK(st == CONVOY_ERR_FORMAT && strcmp(err, want) == 0, "message '%s', wanted '%s'", err,
           want);

  /* Streaming writers put placeholder sizes in a header they cannot seek
   * back to (ffmpeg: 0xFFFFFFFF): not a truncation. */
  float x[2000];
  ts_fill_uniform(&rng, x, 2000);
  path = in_dir("placeholder.wav");
  write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 2000, 0, 1, 0, NULL, err, sizeof err);
  unsigned char head[64];
  FILE *f = fopen(path, "r+b");
  TS_CHECK(f && fread(head, 1, 64, f) == 64, "read header");
  int patched = 0;
  for (int i = 12; f && i + 8 <= 64; i++) {
    if (memcmp(head + i, "data", 4) == 0) {
      static const unsigned char ff[4] = {0xFF, 0xFF, 0xFF, 0xFF};
      fseek(f, 4, SEEK_SET);
      fwrite(ff, 1, 4, f);
      fseek(f, i + 4, SEEK_SET);
      fwrite(ff, 1, 4, f);
      patched = 1;
      break;
    }
  }
  if (f) fclose(f);
  TS_CHECK(patched, "no data chunk in the first 64 bytes");
  float *y;
  int64_t yn;
  st = read_file(path, &info, &y, &yn, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && yn == 2000, "placeholder sizes: %s, %lld frames (%s)",
           convoy_strerror(st), (long long)yn, err);
  free(y);
}

static void test_bad_inputs(void) {
  char err[512] = "";
  audio_info info;
  audio_source *src = NULL;

  const char *missing = in_dir("missing.wav");
  convoy_status st = audio_source_open(&src, missing, &info, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_IO && strstr(err, missing) && strstr(err, strerror(ENOENT)),
           "missing: %s (%s)", convoy_strerror(st), err);
  TS_CHECK(src == NULL, "missing: source set");

  const char *text = in_dir("notes.wav");
  static const char words[] = "This is a text file, not a recording.\n";
  write_bytes(text, words, sizeof words - 1);
  st = audio_source_open(&src, text, &info, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_FORMAT && strstr(err, text), "not audio: %s (%s)", convoy_strerror(st),
           err);

  const char *blank = in_dir("zero_bytes.flac");
  write_bytes(blank, "", 0);
  st = audio_source_open(&src, blank, &info, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_FORMAT && strstr(err, blank), "0-byte file: %s (%s)",
           convoy_strerror(st), err);

  st = audio_source_open(&src, dir, &info, err, sizeof err);
  TS_CHECK(st != CONVOY_OK && strstr(err, dir), "directory: %s (%s)", convoy_strerror(st), err);

  if (geteuid() != 0) { /* root reads anything */
    const char *locked = in_dir("locked.wav");
    float x[10] = {0};
    write_file(locked, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 10, 0, 1, 0, NULL, err, sizeof err);
    chmod(locked, 0);
    st = audio_source_open(&src, locked, &info, err, sizeof err);
    TS_CHECK(st == CONVOY_ERR_IO && strstr(err, locked) && strstr(err, strerror(EACCES)),
             "unreadable: %s (%s)", convoy_strerror(st), err);
  }

  const char *empty = in_dir("empty.wav");
  TS_CHECK(write_file(empty, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, NULL, 0, 0, 1, 0, NULL, err,
                      sizeof err) == CONVOY_OK,
           "empty write: %s", err);
  /* An empty file is an empty signal, as sox and ffmpeg take it. */
  st = audio_source_open(&src, empty, &info, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && info.frames == 0, "empty: %s (%s), %lld frames", convoy_strerror(st),
           err, (long long)info.frames);
  if (st == CONVOY_OK) {
    float none[4];
    int64_t got = -1;
    TS_CHECK_OK(audio_source_read(src, none, 1, &got, err, sizeof err));
    TS_CHECK(got == 0, "empty: read %lld frames", (long long)got);
    audio_source_close(src);
  }

  /* Rewind reads the same frames again. */
  const char *ok = in_dir("rewind.wav");
  float x[300];
  ts_fill_uniform(&rng, x, 300);
  write_file(ok, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, x, 300, 0, 1, 0, NULL, err, sizeof err);
  TS_CHECK_OK(audio_source_open(&src, ok, &info, err, sizeof err));
  float a[300], b[300];
  int64_t ga = 0, gb = 0;
  audio_source_read(src, a, 300, &ga, err, sizeof err);
  TS_CHECK_OK(audio_source_rewind(src, err, sizeof err));
  audio_source_read(src, b, 300, &gb, err, sizeof err);
  TS_CHECK(ga == 300 && gb == 300 && memcmp(a, b, sizeof a) == 0, "rewind: %lld / %lld",
           (long long)ga, (long long)gb);
  int64_t g_end = -1;
  TS_CHECK(audio_source_read(src, a, 300, &g_end, err, sizeof err) == CONVOY_OK && g_end == 0,
           "end of file: %lld (%s)", (long long)g_end, err);
  audio_source_close(src);
  audio_source_close(NULL);
}

/* ------------------------------------------------------------- pipes */

/* Feeds bytes to this process's stdin from a child, reads "-". */
static convoy_status read_stdin_from(const char *file, int64_t *frames, int64_t *info_frames,
                                     char *err, size_t err_size) {
  static char bytes[1 << 20];
  size_t n = read_bytes(file, bytes, sizeof bytes);
  int fds[2];
  if (pipe(fds) != 0) return CONVOY_ERR_IO;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    size_t off = 0;
    while (off < n) {
      ssize_t w = write(fds[1], bytes + off, n - off);
      if (w <= 0) _exit(1);
      off += (size_t)w;
    }
    _exit(0);
  }
  close(fds[1]);
  int saved = dup(STDIN_FILENO);
  dup2(fds[0], STDIN_FILENO);
  close(fds[0]);
  audio_info info;
  float *y;
  convoy_status st = read_file("-", &info, &y, frames, err, err_size);
  *info_frames = st == CONVOY_OK ? info.frames : 0;
  free(y);
  dup2(saved, STDIN_FILENO);
  close(saved);
  int status;
  waitpid(pid, &status, 0);
  return st;
}

static void test_pipes(void) {
  char err[512] = "";
  float x[3000];
  ts_fill_uniform(&rng, x, 3000);
  const char *wav = in_dir("piped.wav");
  write_file(wav, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, x, 3000, 0, 1, 0, NULL, err, sizeof err);
  int64_t frames = 0, info_frames = 0;
  convoy_status st = read_stdin_from(wav, &frames, &info_frames, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && frames == 3000 && info_frames == 3000,
           "stdin wav: %s, %lld frames, info %lld (%s)", convoy_strerror(st), (long long)frames,
           (long long)info_frames, err);

  const char *au = in_dir("piped.au");
  write_file(au, SF_FORMAT_AU | SF_FORMAT_FLOAT, 1, x, 3000, 0, 1, 0, NULL, err, sizeof err);
  st = read_stdin_from(au, &frames, &info_frames, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && frames == 3000, "stdin au: %s, %lld frames (%s)", convoy_strerror(st),
           (long long)frames, err);

  TS_CHECK(truncate(wav, 44 + 2 * 1000) == 0, "truncate %s: %s", wav, strerror(errno));
  st = read_stdin_from(wav, &frames, &info_frames, err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_FORMAT && strstr(err, "stdin") && strstr(err, "1000 of 3000"),
           "stdin truncated: %s (%s)", convoy_strerror(st), err);

  /* stdout: AU streams to a pipe, WAV cannot. */
  int fds[2];
  TS_CHECK(pipe(fds) == 0, "pipe");
  int saved = dup(STDOUT_FILENO);
  fflush(stdout);
  dup2(fds[1], STDOUT_FILENO);
  audio_sink_options opt = {SF_FORMAT_AU | SF_FORMAT_PCM_16, 1, 48000, 0, 1};
  audio_sink *sink;
  convoy_status open_au = audio_sink_open(&sink, "-", &opt, 0, err, sizeof err);
  convoy_status commit_au = CONVOY_ERR_STATE;
  if (open_au == CONVOY_OK) {
    audio_sink_write(sink, x, 1000, err, sizeof err); /* 2 KB: fits the pipe buffer */
    commit_au = audio_sink_commit(sink, err, sizeof err);
  }
  opt.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  convoy_status open_wav = audio_sink_open(&sink, "-", &opt, 0, err, sizeof err);
  char wav_err[512];
  snprintf(wav_err, sizeof wav_err, "%s", err);
  if (open_wav == CONVOY_OK) audio_sink_abort(sink);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(fds[1]);
  static char bytes[8192];
  size_t n = 0;
  for (ssize_t r; (r = read(fds[0], bytes + n, sizeof bytes - n)) > 0;) n += (size_t)r;
  close(fds[0]);
  TS_CHECK(open_au == CONVOY_OK && commit_au == CONVOY_OK, "stdout au: %s", err);
  const char *got = in_dir("from_stdout.au");
  write_bytes(got, bytes, n);
  audio_info info;
  float *y;
  int64_t yn;
  st = read_file(got, &info, &y, &yn, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && yn == 1000, "stdout au read back: %lld frames (%s)", (long long)yn,
           err);
  free(y);
  TS_CHECK(open_wav == CONVOY_ERR_UNSUPPORTED && strstr(wav_err, "stdout"), "stdout wav: %s",
           wav_err);
}

/* ------------------------------------------------------------- formats */

static void expect_format(const char *path, int input, audio_subtype sub, int want) {
  char err[512] = "";
  int32_t got = -1;
  convoy_status st = audio_output_format(path, input, sub, &got, err, sizeof err);
  TS_CHECK(st == CONVOY_OK && got == want, "%s from %x/%d: got %x, wanted %x (%s)", path, input,
           (int)sub, got, want, err);
}

static void expect_format_error(const char *path, int input, audio_subtype sub,
                                const char *must_say) {
  char err[512] = "";
  int32_t got = -1;
  convoy_status st = audio_output_format(path, input, sub, &got, err, sizeof err);
  TS_CHECK(st != CONVOY_OK && strstr(err, path) && strstr(err, must_say), "%s: %s (%s)", path,
           convoy_strerror(st), err);
}

static void test_output_format(void) {
  const int wav16 = SF_FORMAT_WAV | SF_FORMAT_PCM_16, wav24 = SF_FORMAT_WAV | SF_FORMAT_PCM_24;
  const int wav32 = SF_FORMAT_WAV | SF_FORMAT_PCM_32, wavf = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  const int wavd = SF_FORMAT_WAV | SF_FORMAT_DOUBLE, flac16 = SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
  const int flac24 = SF_FORMAT_FLAC | SF_FORMAT_PCM_24, vorbis = SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  const audio_subtype same = AUDIO_SUBTYPE_SAME;

  /* SAME keeps the input's subtype where the container holds it. */
  expect_format("out.wav", wav24, same, wav24);
  expect_format("out.wav", flac16, same, wav16);
  expect_format("out.WAV", wavf, same, wavf);
  expect_format("dir.d/out.wave", wavd, same, wavd);
  expect_format("out.aiff", flac24, same, SF_FORMAT_AIFF | SF_FORMAT_PCM_24);
  expect_format("out.aif", wav16, same, SF_FORMAT_AIFF | SF_FORMAT_PCM_16);
  expect_format("out.au", wavf, same, SF_FORMAT_AU | SF_FORMAT_FLOAT);
  expect_format("out.caf", wav32, same, SF_FORMAT_CAF | SF_FORMAT_PCM_32);
  expect_format("out.w64", wav24, same, SF_FORMAT_W64 | SF_FORMAT_PCM_24);
  expect_format("out.rf64", wav16, same, SF_FORMAT_RF64 | SF_FORMAT_PCM_16);
  expect_format("out.wav", SF_FORMAT_WAV | SF_FORMAT_ULAW, same, SF_FORMAT_WAV | SF_FORMAT_ULAW);
  /* ... else the container's default for the input's depth. */
  expect_format("out.flac", wav16, same, flac16);
  expect_format("out.flac", wav24, same, flac24);
  expect_format("out.flac", wav32, same, flac24);
  expect_format("out.flac", wavf, same, flac24);
  expect_format("out.flac", wavd, same, flac24);
  expect_format("out.flac", SF_FORMAT_WAV | SF_FORMAT_PCM_U8, same,
                SF_FORMAT_FLAC | SF_FORMAT_PCM_S8);
  expect_format("out.wav", vorbis, same, wav16);
  expect_format("out.wav", 0, same, wav16);
  expect_format("out.ogg", wav24, same, vorbis);
  expect_format("out.oga", wavf, same, vorbis);
  expect_format("out.opus", wav16, same, SF_FORMAT_OGG | SF_FORMAT_OPUS);
  /* Explicit subtypes. */
  expect_format("out.wav", wav16, AUDIO_SUBTYPE_FLOAT, wavf);
  expect_format("out.wav", wavf, AUDIO_SUBTYPE_PCM16, wav16);
  expect_format("out.wav", wav16, AUDIO_SUBTYPE_DOUBLE, wavd);
  expect_format("out.flac", wavf, AUDIO_SUBTYPE_PCM16, flac16);
  expect_format("out.aiff", wav16, AUDIO_SUBTYPE_PCM32, SF_FORMAT_AIFF | SF_FORMAT_PCM_32);
  /* stdout keeps the input's container. */
  expect_format("-", flac24, same, flac24);
  expect_format("-", SF_FORMAT_AU | SF_FORMAT_PCM_16, AUDIO_SUBTYPE_FLOAT,
                SF_FORMAT_AU | SF_FORMAT_FLOAT);
  /* Impossible or unknown. */
  expect_format_error("out.flac", wav16, AUDIO_SUBTYPE_FLOAT, "FLAC");
  expect_format_error("out.flac", wav16, AUDIO_SUBTYPE_PCM32, "pcm32");
  expect_format_error("out.ogg", wav16, AUDIO_SUBTYPE_PCM16, "pcm16");
  expect_format_error("out.mp4", wav16, same, ".wav");
  expect_format_error("out.raw", wav16, same, ".flac");
  expect_format_error("noextension", wav16, same, "unknown");
  expect_format_error("dir.wav/noext", wav16, same, "unknown");
  expect_format_error(".wav", wav16, same, "unknown");

  audio_subtype s = AUDIO_SUBTYPE_SAME;
  TS_CHECK(audio_subtype_from_name("pcm24", &s) == 0 && s == AUDIO_SUBTYPE_PCM24, "pcm24");
  TS_CHECK(audio_subtype_from_name("double", &s) == 0 && s == AUDIO_SUBTYPE_DOUBLE, "double");
  TS_CHECK(audio_subtype_from_name("pcm12", &s) == -1, "pcm12 accepted");
  TS_CHECK(audio_subtype_from_name("", &s) == -1, "empty name accepted");

  /* The default path for a 24-bit float input: write it, read the format. */
  char err[512] = "";
  int32_t fmt = 0;
  float x[64] = {0.1f, -0.2f};
  TS_CHECK_OK(audio_output_format(in_dir("fmt.flac"), wavf, same, &fmt, err, sizeof err));
  TS_CHECK(write_file(in_dir("fmt.flac"), fmt, 1, x, 64, 0, 1, 0, NULL, err, sizeof err) ==
                   CONVOY_OK &&
               sf_format_of(in_dir("fmt.flac")) == flac24,
           "fmt.flac: %x (%s)", sf_format_of(in_dir("fmt.flac")), err);
}

/* ------------------------------------------------------------- main */

int main(void) {
  ts_rng_init(&rng, ts_seed("test_audio_io"));
  snprintf(dir, sizeof dir, "%s/convoy-audio-io-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }

  test_round_trip_int("rt16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16);
  test_round_trip_int("rt24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 24);
  test_round_trip_int("rt32.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_32, 32);
  test_round_trip_int("rt8.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 8);
  test_round_trip_int("rt16.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16);
  test_round_trip_int("rt24.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 24);
  test_round_trip_int("rt16.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 16);
  test_round_trip_int("rt24.caf", SF_FORMAT_CAF | SF_FORMAT_PCM_24, 24);
  test_round_trip_float("rtf.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  test_round_trip_float("rtd.wav", SF_FORMAT_WAV | SF_FORMAT_DOUBLE);
  test_clipping("clip16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16);
  test_clipping("clip24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 24);
  test_clipping("clip16.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16);
  test_lossy_clamp();
  test_dither();
  test_encode_parallel();
  test_read_stored();
  test_no_temp_left_and_abort();
  test_existing_output();
  test_same_input_output();
  test_write_error();
  test_signal_cleanup(SIGTERM);
  test_signal_cleanup(SIGINT);
  test_stale_temps();
  test_truncated();
  test_bad_inputs();
  test_pipes();
  test_output_format();

  TS_CHECK(count_temps() == 0, "temporaries left at the end: %d", count_temps());
  remove_dir();
  return ts_finish();
}
