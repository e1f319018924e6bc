/* summary.c - the end-of-run report of `convoy filter`. */
#include "summary.h"

#include "diag.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>

const char *summary_subtype_name(int32_t format) {
  switch (format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
    return "pcm8";
  case SF_FORMAT_PCM_U8:
    return "pcm8u";
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
  case SF_FORMAT_ULAW:
    return "u-law";
  case SF_FORMAT_ALAW:
    return "a-law";
  case SF_FORMAT_VORBIS:
    return "vorbis";
#ifdef SF_FORMAT_OPUS
  case SF_FORMAT_OPUS:
    return "opus";
#endif
  case SF_FORMAT_MPEG_LAYER_I:
  case SF_FORMAT_MPEG_LAYER_II:
  case SF_FORMAT_MPEG_LAYER_III:
    return "mpeg";
  default:
    return "other";
  }
}

static const char *container_name(int32_t format) {
  SF_FORMAT_INFO fi;
  fi.format = format & SF_FORMAT_TYPEMASK;
  if (sf_command(NULL, SFC_GET_FORMAT_INFO, &fi, sizeof fi) == 0 && fi.extension)
    return fi.extension;
  return "?";
}

void summary_format_level(char *buf, size_t size, double linear) {
  if (linear <= 0)
    snprintf(buf, size, "-inf dBFS");
  else
    snprintf(buf, size, "%+.2f dBFS", 20.0 * log10(linear));
}

void summary_print(const filter_summary *s) {
  if (diag_quiet()) return;
  double seconds = s->rate > 0 ? (double)s->frames / (double)s->rate : 0.0;
  double speed = s->elapsed_s > 0 ? seconds / s->elapsed_s : 0.0;
  char peak[32];
  summary_format_level(peak, sizeof peak, s->peak);
  fprintf(stderr, "convoy: %s -> %s\n", s->in_name, s->out_name);
  fprintf(stderr, "  frames   %lld (%.3f s), %d channel%s, %d Hz, %s %s\n", (long long)s->frames,
          seconds, (int)s->channels, s->channels == 1 ? "" : "s", (int)s->rate,
          container_name(s->format), summary_subtype_name(s->format));
  fprintf(stderr, "  filter   %lld taps, engine %s\n", (long long)s->taps, s->engine);
  if (s->normalized || s->gain_db != 0.0)
    fprintf(stderr, "  level    peak %s, clipped %lld samples, gain %+.2f dB%s\n", peak,
            (long long)s->clipped, s->gain_db, s->normalized ? " (normalized)" : "");
  else
    fprintf(stderr, "  level    peak %s, clipped %lld samples\n", peak, (long long)s->clipped);
  fprintf(stderr, "  time     %.3f s, %.1fx real time\n", s->elapsed_s, speed);
  if (s->clipped > 0) {
    /* Enough attenuation to bring the peak just under full scale. */
    double cut = -20.0 * log10(s->peak) - 0.1;
    diag_warn("%lld samples clipped; lower the level with --gain %.1f or use --normalize",
              (long long)s->clipped, s->gain_db + cut);
  } else if (s->peak > 1.0) {
    diag_warn("peak above full scale; the float output keeps it, but conversion to an integer "
              "format will clip (use --gain or --normalize)");
  }
  fflush(stderr);
}

void summary_capture_level(double peak, int64_t clipped) {
  char level[32];
  summary_format_level(level, sizeof level, peak);
  fprintf(stderr, "  level    peak %s, clipped %lld values\n", level, (long long)clipped);
}

void summary_capture_clip_warning(double peak, int64_t clipped) {
  if (clipped > 0)
    diag_warn("%lld values clipped; lower the level with --gain %.1f or widen --out-scale",
              (long long)clipped, -20.0 * log10(peak) - 0.1);
}
