/* taps_load.c - convoy_taps_load: picks the loader by format or extension. */
#include "taps_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

/* The extension after the last '.' of the last path component, or "". */
static const char *extension(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return dot && dot != base ? dot + 1 : "";
}

static int ext_is(const char *ext, const char *const *list) {
  for (; *list; list++) {
    const char *a = ext, *b = *list;
    while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
    if (!*a && !*b) return 1;
  }
  return 0;
}

/* Extensions that name an audio container: libsndfile's own list plus
 * common spellings it does not list. Such files are loaded as audio only. */
static const char *const audio_alias_ext[] = {"aif", "aifc", "ogg", "opus", "wave", NULL};

static int audio_ext(const char *ext) {
  if (!*ext) return 0;
  if (ext_is(ext, audio_alias_ext)) return 1;
  int count = 0;
  sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, (int)sizeof count);
  for (int i = 0; i < count; i++) {
    SF_FORMAT_INFO info;
    memset(&info, 0, sizeof info);
    info.format = i;
    if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &info, (int)sizeof info) != 0 || !info.extension)
      continue;
    const char *list[2] = {info.extension, NULL};
    if (ext_is(ext, list)) return 1;
  }
  return 0;
}

static const char *const text_ext[] = {"txt", "csv", "dat", "taps", NULL};
static const char *const npy_ext[] = {"npy", NULL};
static const char *const raw_ext[] = {"f32", "raw", "bin", NULL};

static convoy_status load_in_memory(const char *path, const char *name, convoy_taps_format format,
                                    convoy_taps *taps, char *err, size_t err_size) {
  char *buf = NULL;
  size_t size = 0;
  convoy_status st = taps_read_file(path, name, &buf, &size, err, err_size);
  if (st != CONVOY_OK) return st;
  if (format == CONVOY_TAPS_TEXT)
    st = taps_parse_text(name, buf, size, taps, err, err_size);
  else if (format == CONVOY_TAPS_NPY)
    st = taps_parse_npy(name, (const unsigned char *)buf, size, taps, err, err_size);
  else
    st = taps_parse_raw_f32(name, (const unsigned char *)buf, size, taps, err, err_size);
  free(buf);
  return st;
}

/* Any other extension (or none): audio if libsndfile recognises the file, else text.
 * When neither works the message says both were tried. */
static convoy_status load_unknown(const char *path, const char *name, convoy_taps *taps, char *err,
                                  size_t err_size) {
  convoy_status st = taps_load_audio(path, name, 1, taps, err, err_size);
  if (st != CONVOY_ERR_UNSUPPORTED) return st;
  char text_err[CONVOY_QUOTE_MAX + 256];
  text_err[0] = '\0';
  st = load_in_memory(path, name, CONVOY_TAPS_TEXT, taps, text_err, sizeof text_err);
  if (st != CONVOY_ERR_FORMAT) {
    if (st != CONVOY_OK) convoy_error_format(err, err_size, st, "%s", text_err);
    return st;
  }
  /* text_err starts with "name: "; keep only the reason. */
  size_t nlen = strlen(name);
  const char *reason =
      strncmp(text_err, name, nlen) == 0 && text_err[nlen] == ':' ? text_err + nlen + 2 : text_err;
  return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                             "%s: neither an audio file libsndfile reads nor a text taps file (%s)",
                             name, reason);
}

convoy_status convoy_taps_load(const char *path, convoy_taps_format format, convoy_taps *taps,
                               char *err, size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!taps)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, "taps: NULL argument");
  memset(taps, 0, sizeof *taps);
  if (!path || !*path)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "taps: no file name given");
  if (strcmp(path, "-") == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "-: taps cannot be read from standard input; name a file");

  /* Messages quote the path shortened: a long one keeps the reason after it. */
  const char *name = CONVOY_QUOTE(path);
  if (format == CONVOY_TAPS_AUTO) {
    const char *ext = extension(path);
    if (ext_is(ext, text_ext))
      format = CONVOY_TAPS_TEXT;
    else if (ext_is(ext, npy_ext))
      format = CONVOY_TAPS_NPY;
    else if (ext_is(ext, raw_ext))
      format = CONVOY_TAPS_RAW_F32;
    else if (audio_ext(ext))
      format = CONVOY_TAPS_AUDIO;
    else
      return load_unknown(path, name, taps, err, err_size);
  }

  switch (format) {
  case CONVOY_TAPS_TEXT:
  case CONVOY_TAPS_NPY:
  case CONVOY_TAPS_RAW_F32:
    return load_in_memory(path, name, format, taps, err, err_size);
  case CONVOY_TAPS_AUDIO:
    return taps_load_audio(path, name, 0, taps, err, err_size);
  default:
    return convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: unknown taps format %d", name, (int)format);
  }
}
