/* taps_common.c - messages, whole-file reads and allocation for the taps loaders. */
#define _POSIX_C_SOURCE 200809L

#include "taps_internal.h"

#include <errno.h>
#include <math.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void taps_quote(char *dst, size_t dst_size, const char *src, size_t len, size_t max_chars) {
  if (!dst || dst_size == 0) return;
  size_t keep = len < max_chars ? len : max_chars;
  if (keep > dst_size - 1) keep = dst_size - 1;
  size_t o = 0;
  for (size_t i = 0; i < keep; i++) {
    unsigned char c = (unsigned char)src[i];
    dst[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  dst[o] = '\0';
  if (keep < len && o + 3 < dst_size) memcpy(dst + o, "...", 4);
}

convoy_status taps_read_file(const char *path, const char *name, char **data, size_t *size,
                             char *err, size_t err_size) {
  *data = NULL;
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return convoy_error_format(err, err_size, CONVOY_ERR_IO, "%s: %s", name, strerror(errno));

  size_t cap = 4096, len = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    fclose(f);
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
  }
  for (;;) {
    if (len == cap) {
      if (cap >= TAPS_MAX_FILE_BYTES) {
        free(buf);
        fclose(f);
        return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                                   "%s: file is larger than %zu MiB, too large for a taps file",
                                   name, TAPS_MAX_FILE_BYTES >> 20);
      }
      size_t ncap = cap * 2 > TAPS_MAX_FILE_BYTES ? TAPS_MAX_FILE_BYTES : cap * 2;
      char *nbuf = realloc(buf, ncap + 1);
      if (!nbuf) {
        free(buf);
        fclose(f);
        return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                   name);
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  /* A directory opens on POSIX systems; the read fails with EISDIR. */
  if (ferror(f)) {
    int e = errno;
    free(buf);
    fclose(f);
    return convoy_error_format(err, err_size, CONVOY_ERR_IO, "%s: %s", name, strerror(e));
  }
  fclose(f);
  buf[len] = '\0';
  *data = buf;
  *size = len;
  return CONVOY_OK;
}

convoy_status taps_probe_file(const char *path, const char *name, char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) return convoy_error_format(err, err_size, CONVOY_ERR_IO, "%s: %s", name, strerror(errno));
  int c = fgetc(f);
  int e = errno;
  int failed = ferror(f);
  fclose(f);
  if (c == EOF && failed)
    return convoy_error_format(err, err_size, CONVOY_ERR_IO, "%s: %s", name, strerror(e));
  if (c == EOF)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: file is empty", name);
  return CONVOY_OK;
}

convoy_status taps_alloc(convoy_taps *taps, int32_t channels, int64_t length, const char *name,
                         char *err, size_t err_size) {
  memset(taps, 0, sizeof *taps);
  if (channels < 1 || length < 1 || (uint64_t)length > SIZE_MAX / sizeof(float) / (size_t)channels)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL, "%s: bad taps size", name);
  taps->data = malloc((size_t)channels * (size_t)length * sizeof(float));
  if (!taps->data)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "%s: out of memory for %lld taps", name,
                               (long long)channels * (long long)length);
  taps->channels = channels;
  taps->length = length;
  taps->rate = 0.0;
  return CONVOY_OK;
}

void convoy_taps_free(convoy_taps *taps) {
  if (!taps) return;
  free(taps->data);
  memset(taps, 0, sizeof *taps);
}

/* One "C" locale object for the whole process, made on first use. */
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;

static void make_c_locale(void) {
  c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

double taps_strtod(const char *s, char **end) {
  pthread_once(&c_locale_once, make_c_locale);
  if (c_locale == (locale_t)0) return strtod(s, end);
  locale_t old = uselocale(c_locale);
  double v = strtod(s, end);
  int e = errno;
  uselocale(old);
  errno = e;
  return v;
}

int taps_fits_float(double v) {
  return fabs(v) < ldexp(1.0, 128) - ldexp(1.0, 103);
}
