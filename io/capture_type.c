/* capture_type.c - the SigMF datatype table, names, extensions, default scaling. */
#include "capture.h"
#include "io_message.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct type_entry {
  const char *name;
  capture_datatype type;
} type_entry;

#define C 1
#define R 0
#define F CAPTURE_KIND_FLOAT
#define I CAPTURE_KIND_INT
#define U CAPTURE_KIND_UINT

static const type_entry types[] = {
    {"cf64_le", {C, F, 8, 0}}, {"cf64_be", {C, F, 8, 1}}, {"cf32_le", {C, F, 4, 0}},
    {"cf32_be", {C, F, 4, 1}}, {"ci32_le", {C, I, 4, 0}}, {"ci32_be", {C, I, 4, 1}},
    {"ci16_le", {C, I, 2, 0}}, {"ci16_be", {C, I, 2, 1}}, {"ci8", {C, I, 1, 0}},
    {"cu32_le", {C, U, 4, 0}}, {"cu32_be", {C, U, 4, 1}}, {"cu16_le", {C, U, 2, 0}},
    {"cu16_be", {C, U, 2, 1}}, {"cu8", {C, U, 1, 0}},     {"rf64_le", {R, F, 8, 0}},
    {"rf64_be", {R, F, 8, 1}}, {"rf32_le", {R, F, 4, 0}}, {"rf32_be", {R, F, 4, 1}},
    {"ri32_le", {R, I, 4, 0}}, {"ri32_be", {R, I, 4, 1}}, {"ri16_le", {R, I, 2, 0}},
    {"ri16_be", {R, I, 2, 1}}, {"ri8", {R, I, 1, 0}},     {"ru32_le", {R, U, 4, 0}},
    {"ru32_be", {R, U, 4, 1}}, {"ru16_le", {R, U, 2, 0}}, {"ru16_be", {R, U, 2, 1}},
    {"ru8", {R, U, 1, 0}},
};
#undef C
#undef R
#undef F
#undef I
#undef U

/* Extensions of SDR tools (GNU Radio, rtl-sdr, HackRF, inspectrum, URH). */
typedef struct ext_entry {
  const char *ext; /* without the dot */
  const char *type;
} ext_entry;

static const ext_entry extensions[] = {
    {"cu8", "cu8"},       {"uc8", "cu8"},      {"cs8", "ci8"},      {"sc8", "ci8"},
    {"c8", "ci8"},        {"cs16", "ci16_le"}, {"sc16", "ci16_le"}, {"c16", "ci16_le"},
    {"cu16", "cu16_le"},  {"uc16", "cu16_le"}, {"cs32", "ci32_le"}, {"sc32", "ci32_le"},
    {"cu32", "cu32_le"},  {"uc32", "cu32_le"}, {"cf32", "cf32_le"}, {"fc32", "cf32_le"},
    {"cfile", "cf32_le"}, {"cf64", "cf64_le"}, {"fc64", "cf64_le"}, {"f32", "rf32_le"},
    {"rf32", "rf32_le"},  {"f64", "rf64_le"},  {"rf64", "rf64_le"}, {"s8", "ri8"},
    {"u8", "ru8"},        {"s16", "ri16_le"},  {"u16", "ru16_le"},  {"s32", "ri32_le"},
    {"u32", "ru32_le"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int same_type(capture_datatype a, capture_datatype b) {
  return a.is_complex == b.is_complex && a.kind == b.kind && a.width == b.width &&
         a.big_endian == b.big_endian;
}

static const type_entry *find_name(const char *name) {
  for (size_t i = 0; i < COUNT(types); i++)
    if (strcmp(types[i].name, name) == 0) return &types[i];
  return NULL;
}

int capture_datatype_valid(capture_datatype t) {
  return capture_datatype_name(t) != NULL;
}

const char *capture_datatype_name(capture_datatype t) {
  for (size_t i = 0; i < COUNT(types); i++)
    if (same_type(types[i].type, t)) return types[i].name;
  return NULL;
}

/* A near spelling of an unknown name: the same in lower case, or with "_le"
 * added (SigMF requires the byte order on multi-byte types). */
static const char *suggestion(const char *name) {
  char low[32];
  size_t n = strlen(name);
  if (n == 0 || n + 4 > sizeof low) return NULL;
  for (size_t i = 0; i <= n; i++)
    low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
  const type_entry *e = find_name(low);
  if (e) return e->name;
  memcpy(low + n, "_le", 4);
  e = find_name(low);
  return e ? e->name : NULL;
}

/* Up to 40 characters of untrusted text for a one-line message: control and
 * non-ASCII bytes become '?'. */
static void printable(const char *s, char *out, size_t size) {
  size_t n = 0;
  for (; s[n] && n < 40 && n + 1 < size; n++) out[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
  out[n] = '\0';
}

convoy_status capture_datatype_parse(const char *name, capture_datatype *t, char *err,
                                     size_t err_size) {
  if (!name) {
    io_errorf(err, err_size, "no datatype given");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const type_entry *e = find_name(name);
  if (e) {
    *t = e->type;
    return CONVOY_OK;
  }
  const char *near = suggestion(name);
  char shown[48];
  printable(name, shown, sizeof shown);
  if (near)
    io_errorf(err, err_size, "unknown datatype '%s' (did you mean %s?)", shown, near);
  else
    io_errorf(err, err_size,
              "unknown datatype '%s' (SigMF: [c|r][f32|f64|i32|i16|u32|u16]_[le|be], "
              "ci8, cu8, ri8, ru8)",
              shown);
  return CONVOY_ERR_FORMAT;
}

convoy_status capture_datatype_parse_alias(const char *name, capture_datatype *t, char *err,
                                           size_t err_size) {
  for (size_t i = 0; name && i < COUNT(extensions); i++) {
    if (strcasecmp(name, extensions[i].ext) == 0) {
      *t = find_name(extensions[i].type)->type;
      return CONVOY_OK;
    }
  }
  return capture_datatype_parse(name, t, err, err_size);
}

/* The extension of path's last component (after its last dot), or NULL. */
static const char *extension_of(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  return dot && dot != base && dot[1] ? dot + 1 : NULL;
}

int capture_datatype_from_extension(const char *path, capture_datatype *t) {
  const char *ext = path ? extension_of(path) : NULL;
  if (!ext) return -1;
  for (size_t i = 0; i < COUNT(extensions); i++) {
    if (strcasecmp(ext, extensions[i].ext) == 0) {
      *t = find_name(extensions[i].type)->type;
      return 0;
    }
  }
  for (size_t i = 0; i < COUNT(types); i++) {
    if (strcasecmp(ext, types[i].name) == 0) {
      *t = types[i].type;
      return 0;
    }
  }
  return -1;
}

convoy_status capture_datatype_from_path(const char *path, capture_datatype *t, char *err,
                                         size_t err_size) {
  if (capture_datatype_from_extension(path, t) == 0) return CONVOY_OK;
  const char *ext = path ? extension_of(path) : NULL;
  if (ext)
    io_errorf(err, err_size,
              "%s: unknown capture extension '.%.20s'; name the datatype (e.g. cf32_le, ci16_le, "
              "cu8)",
              path, ext);
  else
    io_errorf(err, err_size, "%s: no extension to tell the datatype; name it (e.g. cf32_le)",
              path ? path : "(null)");
  return CONVOY_ERR_FORMAT;
}

int capture_datatype_components(capture_datatype t) {
  return t.is_complex ? 2 : 1;
}

int capture_datatype_sample_bytes(capture_datatype t) {
  return capture_datatype_components(t) * (int)t.width;
}

capture_scaling capture_scaling_default(capture_datatype t) {
  capture_scaling s = {1.0, 0.0};
  if (t.kind == CAPTURE_KIND_FLOAT) return s;
  const double full = ldexp(1.0, 8 * t.width - 1);
  s.scale = 1.0 / full;
  s.offset = t.kind == CAPTURE_KIND_UINT ? full : 0.0;
  return s;
}

int capture_scaling_valid(capture_scaling s) {
  return isfinite(s.scale) && isfinite(s.offset) && s.scale != 0.0;
}
