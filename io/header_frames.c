#include "header_frames.h"

#include "audio_file.h"

#include <ctype.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>

#define PLACEHOLDER_MIN 0x7FFFF000LL

/* Value of the first log line whose key (text before " :", leading spaces
 * skipped) is exactly key; -1 when there is none or it is not a decimal
 * number. */
static int64_t log_value(const char *log, const char *key) {
  size_t key_len = strlen(key);
  for (const char *line = log; line && *line;) {
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, key, key_len) == 0) {
      const char *q = p + key_len;
      while (*q == ' ') q++;
      if (*q == ':') {
        q++;
        while (*q == ' ') q++;
        if (!isdigit((unsigned char)*q)) return -1;
        if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) return -1;
        char *end;
        long long v = strtoll(q, &end, 10);
        return v < 0 ? -1 : (int64_t)v;
      }
    }
    line = strchr(line, '\n');
    if (line) line++;
  }
  return -1;
}

int64_t header_declared_frames(const char *log, int format, int channels) {
  if (!log || channels < 1) return -1;
  int64_t bytes;
  int64_t header = 0;
  int wide = 0; /* 64-bit size field: no placeholder convention */
  switch (format & SF_FORMAT_TYPEMASK) {
  case SF_FORMAT_WAV:
  case SF_FORMAT_WAVEX:
    bytes = log_value(log, "data");
    break;
  case SF_FORMAT_W64:
    bytes = log_value(log, "data");
    header = 24;
    wide = 1;
    break;
  case SF_FORMAT_RF64:
    bytes = log_value(log, "Data size");
    wide = 1;
    break;
  case SF_FORMAT_AU:
    bytes = log_value(log, "Data Size");
    break;
  case SF_FORMAT_AIFF:
    return log_value(log, "Frames");
  default:
    return -1;
  }
  if (bytes < 0 || (!wide && bytes >= PLACEHOLDER_MIN) || bytes < header) return -1;
  int width = audio_subtype_bytes(format);
  if (width == 0) return -1;
  return (bytes - header) / ((int64_t)width * channels);
}

int header_wav_unsized(const char *log, int format) {
  const int type = format & SF_FORMAT_TYPEMASK;
  if (!log || (type != SF_FORMAT_WAV && type != SF_FORMAT_WAVEX)) return 0;
  return log_value(log, "RIFF") >= 0 && log_value(log, "data") == 0 ? audio_subtype_bytes(format)
                                                                    : 0;
}

int header_log_says_cut_short(const char *log) {
  return log && strstr(log, "File ended unexpectedly") != NULL;
}
