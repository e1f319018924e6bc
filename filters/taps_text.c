/* taps_text.c - taps as text: numbers separated by newlines, commas, spaces or
 * tabs, '#' comments to the end of the line. CRLF line ends and a UTF-8 byte
 * order mark are accepted. Exactly two numbers on every line (two lines or
 * more) is refused: that is a table (numpy's savetxt of complex taps as
 * re, im columns, or two channels), which read as one list would silently be
 * a wrong filter of twice the length. */
#include "taps_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_separator(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' || c == ',';
}

/* Growable float array. */
typedef struct float_vec {
  float *v;
  size_t n, cap;
} float_vec;

static int push(float_vec *fv, float x) {
  if (fv->n == fv->cap) {
    size_t ncap = fv->cap ? fv->cap * 2 : 256;
    float *nv = realloc(fv->v, ncap * sizeof *nv);
    if (!nv) return -1;
    fv->v = nv;
    fv->cap = ncap;
  }
  fv->v[fv->n++] = x;
  return 0;
}

/* Parses one token; returns CONVOY_OK and *out, or a message naming the line. */
static convoy_status parse_token(const char *name, long line, const char *tok, size_t len,
                                 float *out, char *err, size_t err_size) {
  char small[128];
  char *copy = len < sizeof small ? small : malloc(len + 1);
  if (!copy)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
  memcpy(copy, tok, len);
  copy[len] = '\0';

  char *end = NULL;
  errno = 0;
  double v = taps_strtod(copy, &end);
  int range_error = errno == ERANGE;
  int complete = end == copy + len && len > 0;
  if (copy != small) free(copy);

  char q[48];
  taps_quote(q, sizeof q, tok, len, 32);
  if (!complete)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: line %ld: '%s' is not a number", name, line, q);
  if (isnan(v))
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: line %ld: '%s' is NaN (not a number)", name, line, q);
  if (isinf(v) && !range_error)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: line %ld: '%s' is infinite",
                               name, line, q);
  if (!taps_fits_float(v))
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: line %ld: '%s' is beyond the float32 range (about 3.4e38)",
                               name, line, q);
  /* Underflow (ERANGE with a tiny result) is accepted: the value rounds to 0
   * or a subnormal, as it would in any float conversion. */
  *out = (float)v;
  return CONVOY_OK;
}

convoy_status taps_parse_text(const char *name, const char *buf, size_t size, convoy_taps *taps,
                              char *err, size_t err_size) {
  memset(taps, 0, sizeof *taps);
  float_vec fv = {NULL, 0, 0};
  size_t i = 0;
  long line = 1;
  if (size >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) i = 3;
  size_t on_line = 0; /* numbers on the current line */
  long data_lines = 0, two_column_lines = 0;

  while (i < size) {
    unsigned char c = (unsigned char)buf[i];
    if (c == '\n') {
      data_lines += on_line > 0;
      two_column_lines += on_line == 2;
      on_line = 0;
      line++;
      i++;
    } else if (is_separator(c)) {
      i++;
    } else if (c == '#') {
      while (i < size && buf[i] != '\n') i++;
    } else {
      size_t start = i;
      while (i < size && !is_separator((unsigned char)buf[i]) && buf[i] != '#') i++;
      float x = 0.0f;
      convoy_status st = parse_token(name, line, buf + start, i - start, &x, err, err_size);
      if (st != CONVOY_OK) {
        free(fv.v);
        return st;
      }
      if (push(&fv, x) != 0) {
        free(fv.v);
        return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                   name);
      }
      on_line++;
    }
  }
  data_lines += on_line > 0;
  two_column_lines += on_line == 2;
  if (data_lines >= 2 && two_column_lines == data_lines) {
    free(fv.v);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: two numbers on every line, a table rather than one list of "
                               "taps; write one tap per line, or complex taps as a .cf32 file of "
                               "float32 (re, im) pairs",
                               name);
  }

  if (fv.n == 0) {
    free(fv.v);
    if (size == 0)
      return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: file is empty", name);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: no taps (only blank space and comments)", name);
  }
  /* Shrink to fit; keep the larger block if that fails. */
  float *fit = realloc(fv.v, fv.n * sizeof *fit);
  taps->data = fit ? fit : fv.v;
  taps->channels = 1;
  taps->length = (int64_t)fv.n;
  taps->rate = 0.0;
  return CONVOY_OK;
}
