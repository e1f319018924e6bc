/* taps_npy.c - NumPy .npy taps (format versions 1.0, 2.0 and 3.0).
 *
 * Accepted: dtype '<f4', '>f4', '<f8', '>f8' and complex '<c8', '>c8', '<c16',
 * '>c16' (complex taps, (re, im) pairs); shape (n,), or (n, 1) / (1, n),
 * which hold the same n values in the same order. For such vector shapes C
 * and Fortran order lay the values out identically, so fortran_order may be
 * True or False. The data must be exactly n items long: a shorter file is
 * truncated, a longer one is corrupt. float64 values must fit in float32. */
#include "taps_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6

typedef struct npy_header {
  char descr[16]; /* dtype string, e.g. "<f4"; "" when not a plain string */
  int have_descr, have_order, have_shape;
  int fortran;
  int ndim;
  int64_t dims[8];
} npy_header;

/* A tiny reader for the header's Python dict literal, e.g.
 * {'descr': '<f4', 'fortran_order': False, 'shape': (100,), } */
typedef struct cursor {
  const char *p, *end;
} cursor;

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int accept(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return 1;
  }
  return 0;
}

/* A quoted Python string into out (truncated to out_size - 1). */
static int read_string(cursor *c, char *out, size_t out_size) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return 0;
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (n + 1 < out_size) out[n++] = *c->p;
    c->p++;
  }
  if (c->p >= c->end) return 0;
  c->p++;
  out[n] = '\0';
  return 1;
}

static int read_word(cursor *c, const char *word) {
  skip_ws(c);
  size_t n = strlen(word);
  if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
    c->p += n;
    return 1;
  }
  return 0;
}

/* A non-negative integer (Python 2 files may add an 'L'); -1 on error. */
static int64_t read_dim(cursor *c) {
  skip_ws(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') return -1;
  int64_t v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    if (v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (*c->p++ - '0');
  }
  if (c->p < c->end && *c->p == 'L') c->p++;
  return v;
}

static int read_shape(cursor *c, npy_header *h) {
  if (!accept(c, '(')) return 0;
  h->ndim = 0;
  for (;;) {
    if (accept(c, ')')) return 1;
    int64_t d = read_dim(c);
    if (d < 0 || h->ndim >= (int)(sizeof h->dims / sizeof h->dims[0])) return 0;
    h->dims[h->ndim++] = d;
    if (accept(c, ',')) continue;
    return accept(c, ')');
  }
}

/* Returns NULL on success, else what is wrong. */
static const char *parse_header(const char *text, size_t len, npy_header *h) {
  cursor c = {text, text + len};
  memset(h, 0, sizeof *h);
  if (!accept(&c, '{')) return "header is not a dictionary";
  for (;;) {
    if (accept(&c, '}')) break;
    char key[32];
    if (!read_string(&c, key, sizeof key) || !accept(&c, ':')) return "header is not a dictionary";
    if (strcmp(key, "descr") == 0) {
      if (!read_string(&c, h->descr, sizeof h->descr)) h->descr[0] = '\0';
      if (!h->descr[0]) return "dtype is not a plain float type (structured arrays not supported)";
      h->have_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (read_word(&c, "True"))
        h->fortran = 1;
      else if (read_word(&c, "False"))
        h->fortran = 0;
      else
        return "fortran_order is neither True nor False";
      h->have_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      if (!read_shape(&c, h)) return "shape is not a tuple of non-negative integers";
      h->have_shape = 1;
    } else {
      return "header has an unexpected key";
    }
    if (accept(&c, ',')) continue;
    if (accept(&c, '}')) break;
    return "header is not a dictionary";
  }
  if (!h->have_descr || !h->have_order || !h->have_shape)
    return "header lacks one of 'descr', 'fortran_order', 'shape'";
  return NULL;
}

static void format_shape(const npy_header *h, char *out, size_t out_size) {
  size_t o = 0;
  o += (size_t)snprintf(out + o, out_size - o, "(");
  for (int i = 0; i < h->ndim && o < out_size; i++)
    o += (size_t)snprintf(out + o, out_size - o, i ? ", %lld" : "%lld", (long long)h->dims[i]);
  if (o < out_size) snprintf(out + o, out_size - o, h->ndim == 1 ? ",)" : ")");
}

static uint64_t load_bytes(const unsigned char *p, int n, int big_endian) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[big_endian ? n - 1 - i : i] << (8 * i);
  return v;
}

convoy_status taps_parse_npy(const char *name, const unsigned char *buf, size_t size,
                             convoy_taps *taps, char *err, size_t err_size) {
  memset(taps, 0, sizeof *taps);
  if (size == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: file is empty", name);
  if (size < NPY_MAGIC_LEN + 2 || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: not a .npy file (no \\x93NUMPY magic)", name);
  int major = buf[6], minor = buf[7];
  size_t len_bytes;
  if (major == 1)
    len_bytes = 2;
  else if (major == 2 || major == 3)
    len_bytes = 4;
  else
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: .npy format version %d.%d not supported (need 1.0, 2.0 or 3.0)",
                               name, major, minor);
  size_t pre = NPY_MAGIC_LEN + 2 + len_bytes;
  if (size < pre)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: truncated .npy header", name);
  uint64_t hlen = load_bytes(buf + NPY_MAGIC_LEN + 2, (int)len_bytes, 0);
  if (hlen > size - pre)
    return convoy_error_format(
        err, err_size, CONVOY_ERR_FORMAT,
        "%s: truncated .npy header (%llu header bytes announced, %zu present)", name,
        (unsigned long long)hlen, size - pre);

  npy_header h;
  const char *why = parse_header((const char *)buf + pre, (size_t)hlen, &h);
  if (why)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: bad .npy header: %s", name,
                               why);

  /* width: bytes of one real value; parts: 1 real, 2 complex (re, im). */
  int big, width, parts;
  const char *kind = h.descr + 1;
  if (strcmp(kind, "f4") == 0 || strcmp(kind, "c8") == 0)
    width = 4;
  else if (strcmp(kind, "f8") == 0 || strcmp(kind, "c16") == 0)
    width = 8;
  else
    width = 0;
  parts = kind[0] == 'c' ? 2 : 1;
  if (!width || (h.descr[0] != '<' && h.descr[0] != '>')) {
    char q[24];
    taps_quote(q, sizeof q, h.descr, strlen(h.descr), 16);
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: dtype '%s' not supported (need float32, float64, complex64 or "
                               "complex128)",
                               name, q);
  }
  big = h.descr[0] == '>';
  const int item = width * parts;

  char shape[96];
  format_shape(&h, shape, sizeof shape);
  int64_t n;
  if (h.ndim == 1)
    n = h.dims[0];
  else if (h.ndim == 2 && (h.dims[0] == 1 || h.dims[1] == 1))
    n = h.dims[0] * h.dims[1]; /* one factor is 1: no overflow */
  else
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: shape %s not supported (need 1-D (n,), or (n, 1) or (1, n))",
                               name, shape);
  if (n == 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT, "%s: no taps (shape %s)", name,
                               shape);

  size_t have = size - pre - (size_t)hlen;
  const unsigned char *data = buf + pre + (size_t)hlen;
  if ((uint64_t)n > have / (size_t)item)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: truncated: shape %s needs %llu data bytes, file has %zu", name,
                               shape, (unsigned long long)n * (unsigned long long)item, have);
  if ((size_t)n * (size_t)item != have)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: %zu stray bytes after the %s array data", name,
                               have - (size_t)n * (size_t)item, shape);
  if (n > TAPS_MAX_LENGTH)
    return convoy_error_format(err, err_size, CONVOY_ERR_FORMAT,
                               "%s: %lld taps, more than the limit %lld", name, (long long)n,
                               (long long)TAPS_MAX_LENGTH);

  convoy_status st = taps_alloc(taps, 1, n * parts, name, err, err_size);
  if (st != CONVOY_OK) return st;
  taps->length = n;
  taps->is_complex = parts == 2;
  for (int64_t i = 0; i < n * parts; i++) {
    double v;
    if (width == 4) {
      uint32_t u = (uint32_t)load_bytes(data + (size_t)i * 4, 4, big);
      float f;
      memcpy(&f, &u, 4);
      v = f;
    } else {
      uint64_t u = load_bytes(data + (size_t)i * 8, 8, big);
      memcpy(&v, &u, 8);
    }
    const char *bad = isnan(v)              ? "is NaN"
                      : isinf(v)            ? "is infinite"
                      : !taps_fits_float(v) ? "is beyond the float32 range (about 3.4e38)"
                                            : NULL;
    if (bad) {
      convoy_taps_free(taps);
      return convoy_error_format(
          err, err_size, CONVOY_ERR_FORMAT, "%s: tap %lld (counting from 0)%s %s", name,
          (long long)(i / parts), parts == 1 ? "" : (i % 2 ? ", imaginary part," : ", real part,"),
          bad);
    }
    taps->data[i] = (float)v;
  }
  return CONVOY_OK;
}
