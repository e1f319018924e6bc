/*
 * gen_audio - writes a test signal to an audio file through libsndfile
 * (independently of convoy's own writer).
 *
 *   gen_audio OUT [--frames N] [--channels C] [--rate HZ] [--subtype S]
 *                 [--signal noise|sine|impulse|constant] [--amp A]
 *                 [--freq HZ] [--pos FRAME] [--seed N]
 *
 * Container from OUT's extension (wav, flac, aiff, au, caf, w64); subtype
 * pcm16, pcm24, pcm32, float (default) or double. noise: uniform in
 * [-amp, amp), independent per channel; sine: amp * sin(2 pi freq t), the
 * phase advanced by a quarter turn per channel; impulse: amp at frame pos in
 * every channel, 0 elsewhere; constant: amp everywhere. Exit 0 ok, 2 error.
 */
#include "test_support.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PI 3.14159265358979323846

static int container_of(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *ext = dot ? dot + 1 : "";
  if (!strcmp(ext, "wav")) return SF_FORMAT_WAV;
  if (!strcmp(ext, "flac")) return SF_FORMAT_FLAC;
  if (!strcmp(ext, "aiff") || !strcmp(ext, "aif")) return SF_FORMAT_AIFF;
  if (!strcmp(ext, "au")) return SF_FORMAT_AU;
  if (!strcmp(ext, "caf")) return SF_FORMAT_CAF;
  if (!strcmp(ext, "w64")) return SF_FORMAT_W64;
  if (!strcmp(ext, "mp3")) return SF_FORMAT_MPEG; /* always MPEG layer III; --subtype ignored */
  return 0;
}

static int subtype_of(const char *name) {
  if (!strcmp(name, "pcm16")) return SF_FORMAT_PCM_16;
  if (!strcmp(name, "pcm24")) return SF_FORMAT_PCM_24;
  if (!strcmp(name, "pcm32")) return SF_FORMAT_PCM_32;
  if (!strcmp(name, "float")) return SF_FORMAT_FLOAT;
  if (!strcmp(name, "double")) return SF_FORMAT_DOUBLE;
  return 0;
}

static int usage(const char *msg) {
  fprintf(stderr, "gen_audio: %s\n", msg);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage("usage: gen_audio OUT [options]");
  const char *out = argv[1];
  long long frames = 48000, pos = 0;
  int channels = 1, rate = 48000;
  const char *subtype = "float", *signal = "noise";
  double amp = 0.5, freq = 1000.0;
  unsigned long long seed = 1;
  for (int i = 2; i < argc; i++) {
    const char *k = argv[i];
    if (i + 1 >= argc) return usage("option without a value");
    const char *v = argv[++i];
    if (!strcmp(k, "--frames"))
      frames = atoll(v);
    else if (!strcmp(k, "--channels"))
      channels = atoi(v);
    else if (!strcmp(k, "--rate"))
      rate = atoi(v);
    else if (!strcmp(k, "--subtype"))
      subtype = v;
    else if (!strcmp(k, "--signal"))
      signal = v;
    else if (!strcmp(k, "--amp"))
      amp = atof(v);
    else if (!strcmp(k, "--freq"))
      freq = atof(v);
    else if (!strcmp(k, "--pos"))
      pos = atoll(v);
    else if (!strcmp(k, "--seed"))
      seed = strtoull(v, NULL, 0);
    else
      return usage("unknown option");
  }
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.samplerate = rate;
  info.channels = channels;
  info.format = container_of(out) == SF_FORMAT_MPEG ? SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III
                                                    : container_of(out) | subtype_of(subtype);
  if (!container_of(out) || !subtype_of(subtype) || frames < 0 || channels < 1 || rate < 1)
    return usage("bad container, subtype, frames, channels or rate");
  SNDFILE *f = sf_open(out, SFM_WRITE, &info);
  if (!f) {
    fprintf(stderr, "gen_audio: %s: %s\n", out, sf_strerror(NULL));
    return 2;
  }
  sf_command(f, SFC_SET_CLIPPING, NULL, SF_TRUE);

  ts_rng rng;
  ts_rng_init(&rng, seed);
  const long long block = 65536;
  double *buf = malloc((size_t)block * (size_t)channels * sizeof(double));
  if (!buf) return usage("out of memory");
  for (long long start = 0; start < frames; start += block) {
    long long n = frames - start < block ? frames - start : block;
    for (long long k = 0; k < n; k++) {
      long long t = start + k;
      for (int c = 0; c < channels; c++) {
        double v = 0.0;
        if (!strcmp(signal, "noise"))
          v = amp * (2.0 * ts_uniform(&rng) - 1.0);
        else if (!strcmp(signal, "sine"))
          v = amp * sin(2.0 * GEN_PI * freq * (double)t / rate + c * GEN_PI / 2);
        else if (!strcmp(signal, "impulse"))
          v = t == pos ? amp : 0.0;
        else if (!strcmp(signal, "constant"))
          v = amp;
        else {
          sf_close(f);
          return usage("unknown signal");
        }
        buf[k * channels + c] = v;
      }
    }
    if (sf_writef_double(f, buf, n) != n) {
      fprintf(stderr, "gen_audio: %s: %s\n", out, sf_strerror(f));
      sf_close(f);
      return 2;
    }
  }
  free(buf);
  if (sf_close(f) != 0) return usage("close failed");
  return 0;
}
