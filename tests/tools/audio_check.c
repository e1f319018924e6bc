/*
 * audio_check - inspects audio files for the CLI scripts, reading them
 * through libsndfile directly (not through convoy's reader).
 *
 *   audio_check info FILE
 *       frames=N channels=C rate=R subtype=S peak=P peak_frame=K
 *       (peak: largest |sample|; peak_frame: first frame where it occurs)
 *   audio_check codes FILE
 *       samples=N max_codes=A min_codes=B: samples at +32767 and -32768 when
 *       read as 16-bit integers (saturation shows as full-scale codes)
 *   audio_check compare OUT IN TAPS [--skip D] [--tail] [--gain DB] [--max-err E]
 *       Checks OUT against the double-precision full convolution y of IN with
 *       TAPS (a text file of numbers with '#' comments, or an audio file; 4
 *       channels on a stereo IN are true stereo, L->L, L->R, R->L, R->R):
 *       OUT must hold y[skip ..] * gain over IN's length (or to the end of y
 *       with --tail), with relative L2 error <= E (default 1e-5) per channel.
 *       Prints frames=N expected=M rel_l2=E; exit 0 when it matches, 1 when not.
 *   audio_check samples FILE
 *       Writes "frames channels rate format" on a line, then every sample as a
 *       native double, to stdout: the file's content without its headers
 *       (libsndfile stamps float WAVs' PEAK chunk with the time), for hashing.
 *
 * Exit status 2 on an unreadable file or a bad command line.
 */
#include "test_support.h"

#include <ctype.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct audio {
  float *data; /* interleaved */
  int64_t frames;
  int channels, rate, format;
} audio;

/* Reads the whole file; also one whose header leaves the length open (FLAC
 * written to a pipe reports SF_COUNT_MAX frames). */
static int read_audio(const char *path, audio *a) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *f = sf_open(path, SFM_READ, &info);
  if (!f) {
    fprintf(stderr, "audio_check: %s: %s\n", path, sf_strerror(NULL));
    return -1;
  }
  a->channels = info.channels;
  a->rate = info.samplerate;
  a->format = info.format;
  int64_t cap = info.frames > 0 && info.frames < ((int64_t)1 << 32) ? info.frames + 1 : 65536;
  int64_t n = 0;
  a->data = malloc((size_t)cap * (size_t)info.channels * sizeof(float));
  for (;;) {
    if (!a->data) {
      sf_close(f);
      fprintf(stderr, "audio_check: %s: out of memory\n", path);
      return -1;
    }
    sf_count_t got = sf_readf_float(f, a->data + n * info.channels, cap - n);
    if (got <= 0) break;
    n += got;
    if (n == cap)
      a->data = realloc(a->data, (size_t)(cap *= 2) * (size_t)info.channels * sizeof(float));
  }
  sf_close(f);
  a->frames = n;
  if (info.frames != SF_COUNT_MAX && n != info.frames) {
    fprintf(stderr, "audio_check: %s: read %lld of %lld frames\n", path, (long long)n,
            (long long)info.frames);
    return -1;
  }
  return 0;
}

static const char *subtype_name(int format) {
  switch (format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_16:
    return "pcm16";
  case SF_FORMAT_PCM_24:
    return "pcm24";
  case SF_FORMAT_PCM_32:
    return "pcm32";
  case SF_FORMAT_FLOAT:
    return "float";
  case SF_FORMAT_DOUBLE:
    return "double";
  default:
    return "other";
  }
}

static int cmd_info(const char *path) {
  audio a;
  if (read_audio(path, &a)) return 2;
  double peak = 0;
  int64_t peak_frame = -1;
  for (int64_t k = 0; k < a.frames; k++) {
    for (int c = 0; c < a.channels; c++) {
      double v = fabs(a.data[k * a.channels + c]);
      if (v > peak) {
        peak = v;
        peak_frame = k;
      }
    }
  }
  const char *major = (a.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_WAV    ? "wav"
                      : (a.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_FLAC ? "flac"
                      : (a.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_AU   ? "au"
                                                                          : "other";
  printf("frames=%lld channels=%d rate=%d subtype=%s container=%s peak=%.9g peak_frame=%lld\n",
         (long long)a.frames, a.channels, a.rate, subtype_name(a.format), major, peak,
         (long long)peak_frame);
  free(a.data);
  return 0;
}

static int cmd_codes(const char *path) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *f = sf_open(path, SFM_READ, &info);
  if (!f) {
    fprintf(stderr, "audio_check: %s: %s\n", path, sf_strerror(NULL));
    return 2;
  }
  short buf[4096];
  int64_t samples = 0, maxc = 0, minc = 0;
  sf_count_t got;
  while ((got = sf_read_short(f, buf, 4096)) > 0) {
    for (sf_count_t i = 0; i < got; i++) {
      maxc += buf[i] == 32767;
      minc += buf[i] == -32768;
    }
    samples += got;
  }
  sf_close(f);
  printf("samples=%lld max_codes=%lld min_codes=%lld\n", (long long)samples, (long long)maxc,
         (long long)minc);
  return 0;
}

/* Taps as planar channels: a text file of numbers, or an audio file. */
static int read_taps(const char *path, audio *t) {
  const char *dot = strrchr(path, '.');
  if (dot && (!strcmp(dot, ".wav") || !strcmp(dot, ".flac") || !strcmp(dot, ".aiff") ||
              !strcmp(dot, ".au"))) {
    audio a;
    if (read_audio(path, &a)) return -1;
    *t = a;
    t->data = malloc((size_t)a.frames * (size_t)a.channels * sizeof(float));
    for (int c = 0; c < a.channels; c++)
      for (int64_t k = 0; k < a.frames; k++) t->data[c * a.frames + k] = a.data[k * a.channels + c];
    free(a.data);
    return 0;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "audio_check: %s: cannot open\n", path);
    return -1;
  }
  size_t cap = 1024, n = 0;
  float *h = malloc(cap * sizeof(float));
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    for (char *p = line; *p;) {
      if (isspace((unsigned char)*p) || *p == ',') {
        p++;
        continue;
      }
      char *end;
      double v = strtod(p, &end);
      if (end == p) {
        fprintf(stderr, "audio_check: %s: not a number near '%.20s'\n", path, p);
        fclose(f);
        free(h);
        return -1;
      }
      if (n == cap) h = realloc(h, (cap *= 2) * sizeof(float));
      h[n++] = (float)v;
      p = end;
    }
  }
  fclose(f);
  t->data = h;
  t->frames = (int64_t)n;
  t->channels = 1;
  t->rate = 0;
  return n ? 0 : -1;
}

static int cmd_compare(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "audio_check: compare OUT IN TAPS [options]\n");
    return 2;
  }
  int64_t skip = 0;
  int tail = 0;
  double gain_db = 0, max_err = 1e-5;
  for (int i = 5; i < argc; i++) {
    if (!strcmp(argv[i], "--tail"))
      tail = 1;
    else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
      skip = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--gain") && i + 1 < argc)
      gain_db = atof(argv[++i]);
    else if (!strcmp(argv[i], "--max-err") && i + 1 < argc)
      max_err = atof(argv[++i]);
    else {
      fprintf(stderr, "audio_check: compare: bad option '%s'\n", argv[i]);
      return 2;
    }
  }
  audio out, in, taps;
  if (read_audio(argv[2], &out) || read_audio(argv[3], &in) || read_taps(argv[4], &taps)) return 2;
  /* 4 channels of taps on a stereo input: true stereo (L->L, L->R, R->L, R->R). */
  const int true_stereo = taps.channels == 4 && in.channels == 2;
  if (out.channels != in.channels ||
      (taps.channels != 1 && taps.channels != in.channels && !true_stereo)) {
    printf("channels: out %d, in %d, taps %d\n", out.channels, in.channels, taps.channels);
    return 1;
  }
  int64_t n = in.frames, m = taps.frames, full = n + m - 1;
  int64_t expected = tail ? full - skip : n;
  double gain = pow(10.0, gain_db / 20.0);
  double worst = 0;
  int ch = in.channels;
  float *x = malloc((size_t)n * sizeof(float));
  double *y = malloc((size_t)full * sizeof(double)), *part = malloc((size_t)full * sizeof(double));
  int64_t cmp_frames = out.frames < expected ? out.frames : expected;
  for (int c = 0; c < ch && out.frames == expected; c++) {
    for (int64_t k = 0; k < full; k++) y[k] = 0.0;
    /* Output c sums input i through the taps of route i -> c. */
    for (int i = 0; i < ch; i++) {
      if (!true_stereo && i != c) continue;
      for (int64_t k = 0; k < n; k++) x[k] = in.data[k * ch + i];
      const int64_t row = true_stereo ? 2 * i + c : (taps.channels == 1 ? 0 : c);
      ts_reference_conv(x, n, taps.data + row * m, m, part);
      for (int64_t k = 0; k < full; k++) y[k] += part[k];
    }
    for (int64_t k = 0; k < full; k++) y[k] *= gain;
    double e = ts_rel_l2(out.data + c, ch, y + skip, cmp_frames);
    if (e > worst || isnan(e)) worst = e;
  }
  printf("frames=%lld expected=%lld rel_l2=%.3g\n", (long long)out.frames, (long long)expected,
         worst);
  free(x);
  free(y);
  free(part);
  free(out.data);
  free(in.data);
  free(taps.data);
  return out.frames == expected && worst <= max_err ? 0 : 1;
}

static int cmd_samples(const char *path) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *f = sf_open(path, SFM_READ, &info);
  if (!f) {
    fprintf(stderr, "audio_check: %s: %s\n", path, sf_strerror(NULL));
    return 2;
  }
  printf("%lld %d %d %#x\n", (long long)info.frames, info.channels, info.samplerate,
         (unsigned)info.format);
  double buf[4096];
  sf_count_t frames_per_read = (sf_count_t)(4096 / info.channels);
  sf_count_t got;
  while ((got = sf_readf_double(f, buf, frames_per_read)) > 0)
    fwrite(buf, sizeof buf[0], (size_t)(got * info.channels), stdout);
  sf_close(f);
  return fflush(stdout) == 0 ? 0 : 2;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "samples")) return cmd_samples(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "info")) return cmd_info(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "codes")) return cmd_codes(argv[2]);
  if (argc >= 2 && !strcmp(argv[1], "compare")) return cmd_compare(argc, argv);
  fprintf(stderr, "usage: audio_check info FILE | codes FILE | samples FILE | compare OUT IN TAPS "
                  "[options]\n");
  return 2;
}
