/* Choosing the output's libsndfile format: audio_output_format and
 * audio_subtype_from_name of audio_file.h. */
#include "audio_file.h"
#include "io_message.h"
#include "sample_path.h"

#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct container {
  const char *ext;
  int format; /* SF_FORMAT_* container */
  int fixed;  /* subtype forced by the extension (Ogg Vorbis, Opus), else 0 */
  const char *name;
} container;

static const container containers[] = {
    {"wav", SF_FORMAT_WAV, 0, "WAV"},
    {"wave", SF_FORMAT_WAV, 0, "WAV"},
    {"w64", SF_FORMAT_W64, 0, "W64"},
    {"rf64", SF_FORMAT_RF64, 0, "RF64"},
    {"flac", SF_FORMAT_FLAC, 0, "FLAC"},
    {"aif", SF_FORMAT_AIFF, 0, "AIFF"},
    {"aiff", SF_FORMAT_AIFF, 0, "AIFF"},
    {"aifc", SF_FORMAT_AIFF, 0, "AIFF"},
    {"au", SF_FORMAT_AU, 0, "AU"},
    {"snd", SF_FORMAT_AU, 0, "AU"},
    {"caf", SF_FORMAT_CAF, 0, "CAF"},
    {"ogg", SF_FORMAT_OGG, SF_FORMAT_VORBIS, "Ogg Vorbis"},
    {"oga", SF_FORMAT_OGG, SF_FORMAT_VORBIS, "Ogg Vorbis"},
    {"opus", SF_FORMAT_OGG, SF_FORMAT_OPUS, "Ogg Opus"},
};
#define N_CONTAINERS (sizeof containers / sizeof containers[0])

static const struct {
  const char *name;
  audio_subtype subtype;
  int sf;
} subtypes[] = {
    {"pcm16", AUDIO_SUBTYPE_PCM16, SF_FORMAT_PCM_16},
    {"pcm24", AUDIO_SUBTYPE_PCM24, SF_FORMAT_PCM_24},
    {"pcm32", AUDIO_SUBTYPE_PCM32, SF_FORMAT_PCM_32},
    {"float", AUDIO_SUBTYPE_FLOAT, SF_FORMAT_FLOAT},
    {"double", AUDIO_SUBTYPE_DOUBLE, SF_FORMAT_DOUBLE},
};
#define N_SUBTYPES (sizeof subtypes / sizeof subtypes[0])

int audio_subtype_from_name(const char *name, audio_subtype *subtype) {
  if (!name || !subtype) return -1;
  for (size_t i = 0; i < N_SUBTYPES; i++) {
    if (strcmp(name, subtypes[i].name) == 0) {
      *subtype = subtypes[i].subtype;
      return 0;
    }
  }
  return -1;
}

/* Whether libsndfile can write this combination. FLAC is held to 24 bits
 * whatever libsndfile allows: 32-bit FLAC is not widely decoded. */
static int can_write(int format) {
  if ((format & SF_FORMAT_TYPEMASK) == SF_FORMAT_FLAC &&
      (format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_32)
    return 0;
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.format = format;
  info.channels = 1;
  info.samplerate = 48000;
  return sf_format_check(&info);
}

/* The container's usual subtype for an input of that subtype: the input's
 * depth where the container has it, else the next narrower one. Inputs
 * without a depth (lossy codecs, unknown) count as 16-bit. */
static int default_subtype(int container_format, int input_format) {
  static const int chain_8[] = {SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, 0};
  static const int chain_16[] = {SF_FORMAT_PCM_16, 0};
  static const int chain_24[] = {SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, 0};
  static const int chain_32[] = {SF_FORMAT_PCM_32, SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, 0};
  static const int chain_float[] = {SF_FORMAT_FLOAT, SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, 0};
  static const int chain_double[] = {SF_FORMAT_DOUBLE, SF_FORMAT_FLOAT, SF_FORMAT_PCM_24,
                                     SF_FORMAT_PCM_16, 0};
  const int *chain = chain_16;
  if (input_format != 0) {
    sample_path p = sample_path_for(input_format);
    if (p.kind == SAMPLE_PATH_FLOAT)
      chain = p.bits == 64 ? chain_double : chain_float;
    else if (p.kind != SAMPLE_PATH_LOSSY)
      chain = p.bits <= 8 ? chain_8 : p.bits <= 16 ? chain_16 : p.bits <= 24 ? chain_24 : chain_32;
  }
  for (const int *s = chain; *s; s++)
    if (can_write(container_format | *s)) return *s;
  return 0;
}

static const container *container_for(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base) return NULL;
  for (size_t i = 0; i < N_CONTAINERS; i++)
    if (strcasecmp(dot + 1, containers[i].ext) == 0) return &containers[i];
  return NULL;
}

static const container *container_of_format(int format) {
  for (size_t i = 0; i < N_CONTAINERS; i++)
    if (containers[i].format == (format & SF_FORMAT_TYPEMASK) && !containers[i].fixed)
      return &containers[i];
  return NULL;
}

static const char *subtype_name(audio_subtype subtype) {
  for (size_t i = 0; i < N_SUBTYPES; i++)
    if (subtypes[i].subtype == subtype) return subtypes[i].name;
  return "?";
}

convoy_status audio_output_format(const char *path, int32_t input_format, audio_subtype subtype,
                                  int32_t *format, char *err, size_t err_size) {
  if (!path || !format) {
    io_errorf(err, err_size, "audio_output_format: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *format = 0;
  const container *c;
  const char *name = path;
  if (strcmp(path, "-") == 0) {
    /* stdout has no extension: keep the input's container (WAV without one).
     * Whether libsndfile can stream it to a pipe is checked on opening. */
    name = "stdout";
    c = input_format ? container_of_format(input_format) : &containers[0];
    if (!c) c = &containers[0];
    if ((input_format & SF_FORMAT_TYPEMASK) == SF_FORMAT_OGG) {
      for (size_t i = 0; i < N_CONTAINERS; i++)
        if (containers[i].fixed == (input_format & SF_FORMAT_SUBMASK)) c = &containers[i];
    }
  } else {
    c = container_for(path);
  }
  if (!c) {
    char known[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < N_CONTAINERS && len < sizeof known; i++)
      len += (size_t)snprintf(known + len, sizeof known - len, "%s.%s", i ? " " : "",
                              containers[i].ext);
    io_errorf(err, err_size, "%s: unknown output file type (known extensions: %s)", path, known);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }

  int sub;
  if (c->fixed) {
    if (subtype != AUDIO_SUBTYPE_SAME) {
      io_errorf(err, err_size, "%s: %s is a lossy format and has no %s samples", name, c->name,
                subtype_name(subtype));
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    sub = c->fixed;
  } else if (subtype != AUDIO_SUBTYPE_SAME) {
    sub = 0;
    for (size_t i = 0; i < N_SUBTYPES; i++)
      if (subtypes[i].subtype == subtype) sub = subtypes[i].sf;
    if (!sub) {
      io_errorf(err, err_size, "%s: invalid output subtype %d", name, (int)subtype);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    if (!can_write(c->format | sub)) {
      io_errorf(err, err_size, "%s: %s cannot hold %s samples", name, c->name,
                subtype_name(subtype));
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
  } else {
    /* A lossy input's encoding is not kept in another container (libsndfile
     * may list MPEG in WAV, say, and still fail to encode it): PCM then. */
    int same = input_format & SF_FORMAT_SUBMASK;
    if (same && sample_path_for(input_format).kind == SAMPLE_PATH_LOSSY &&
        (input_format & SF_FORMAT_TYPEMASK) != c->format)
      same = 0;
    if (same && can_write(c->format | same))
      sub = same;
    else
      sub = default_subtype(c->format, input_format);
    if (!sub) {
      io_errorf(err, err_size, "%s: no %s subtype fits the input", name, c->name);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
  }
  *format = c->format | sub;
  return CONVOY_OK;
}

int64_t audio_container_limit(int32_t format) {
  const int32_t c = format & SF_FORMAT_TYPEMASK;
  if (c != SF_FORMAT_WAV && c != SF_FORMAT_AIFF && c != SF_FORMAT_AU) return 0;
  int64_t limit = (int64_t)0xFFFFFFFF - 65536; /* the header's chunks fit in the rest */
  const char *test = getenv("CONVOY_IO_TEST_SIZE_LIMIT");
  if (test && *test) {
    const long long v = strtoll(test, NULL, 10);
    if (v > 0 && v < limit) limit = v;
  }
  return limit;
}

int audio_subtype_bytes(int32_t format) {
  switch (format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
  case SF_FORMAT_PCM_U8:
  case SF_FORMAT_ULAW:
  case SF_FORMAT_ALAW:
    return 1;
  case SF_FORMAT_PCM_16:
    return 2;
  case SF_FORMAT_PCM_24:
    return 3;
  case SF_FORMAT_PCM_32:
  case SF_FORMAT_FLOAT:
    return 4;
  case SF_FORMAT_DOUBLE:
    return 8;
  default:
    return 0;
  }
}
