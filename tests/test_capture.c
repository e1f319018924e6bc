/* test_capture.c - raw capture datatypes, scaling, reader and writer
 * (io/capture.h).
 *
 * Expected bytes and values are computed here by hand (byte order written out
 * explicitly, scaling from the documented formulas), not taken from the
 * library: every datatype is read from hand-made bytes in both byte orders
 * and written back to the same bytes; the scaling defaults are checked
 * against fixed values; the extension table entry by entry; skip/count,
 * multi-channel frames, reads across the staging buffer, 64-bit offsets on a
 * sparse file past 4 GiB, saturation with clip counts, the atomic writer and
 * every bad-capture error. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "capture.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static char err[512];

static void path_in(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

static int write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t put = fwrite(p, 1, n, f);
  return fclose(f) == 0 && put == n ? 0 : -1;
}

static unsigned char *read_bytes(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(size > 0 ? (size_t)size : 1);
  *n = p ? fread(p, 1, (size_t)size, f) : 0;
  fclose(f);
  return p;
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* Number of entries in dir whose name starts with prefix (temporaries). */
static int count_prefixed(const char *prefix) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  if (d) closedir(d);
  return n;
}

static capture_datatype type_of(const char *name) {
  capture_datatype t = {0, 0, 0, 0};
  TS_CHECK(capture_datatype_parse(name, &t, err, sizeof err) == CONVOY_OK, "%s: %s", name, err);
  return t;
}

/* ------------------------------------------------------------- table */

static const char *const all_types[] = {
    "cf64_le", "cf64_be", "cf32_le", "cf32_be", "ci32_le", "ci32_be", "ci16_le",
    "ci16_be", "ci8",     "cu32_le", "cu32_be", "cu16_le", "cu16_be", "cu8",
    "rf64_le", "rf64_be", "rf32_le", "rf32_be", "ri32_le", "ri32_be", "ri16_le",
    "ri16_be", "ri8",     "ru32_le", "ru32_be", "ru16_le", "ru16_be", "ru8"};
#define N_TYPES ((int)(sizeof all_types / sizeof all_types[0]))

static void test_table(void) {
  for (int i = 0; i < N_TYPES; i++) {
    const char *n = all_types[i];
    capture_datatype t = type_of(n);
    TS_CHECK(capture_datatype_name(t) && strcmp(capture_datatype_name(t), n) == 0, "%s", n);
    const int width = atoi(n + 2 + (n[2] == 'f' || n[2] == 'i' || n[2] == 'u' ? 1 : 0)) / 8;
    TS_CHECK(t.width == width, "%s width %d, expected %d", n, t.width, width);
    TS_CHECK(t.is_complex == (n[0] == 'c'), "%s complex", n);
    TS_CHECK(capture_datatype_sample_bytes(t) == width * (n[0] == 'c' ? 2 : 1), "%s bytes", n);
    TS_CHECK(t.big_endian == (strstr(n, "_be") != NULL), "%s order", n);
    const int kind = n[1] == 'f'   ? CAPTURE_KIND_FLOAT
                     : n[1] == 'i' ? CAPTURE_KIND_INT
                                   : CAPTURE_KIND_UINT;
    TS_CHECK(t.kind == kind, "%s kind", n);
  }
  static const char *const bad[] = {"cs16",    "ci16", "CF32_LE", "",       "ci8_le",
                                    "cf16_le", "cf32", "cu8 ",    "rf32_me"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    capture_datatype t;
    err[0] = '\0';
    TS_CHECK(capture_datatype_parse(bad[i], &t, err, sizeof err) == CONVOY_ERR_FORMAT, "'%s'",
             bad[i]);
    TS_CHECK(strstr(err, "unknown datatype") && strstr(err, bad[i]), "message: %s", err);
  }
  capture_datatype t;
  capture_datatype_parse("ci16", &t, err, sizeof err);
  TS_CHECK(strstr(err, "did you mean ci16_le"), "suggestion: %s", err);
  capture_datatype_parse("CF32_LE", &t, err, sizeof err);
  TS_CHECK(strstr(err, "did you mean cf32_le"), "suggestion: %s", err);
}

static void test_extensions(void) {
  static const char *const table[][2] = {{"a.cu8", "cu8"},
                                         {"a.uc8", "cu8"},
                                         {"a.cs8", "ci8"},
                                         {"a.sc8", "ci8"},
                                         {"a.cs16", "ci16_le"},
                                         {"a.sc16", "ci16_le"},
                                         {"a.c16", "ci16_le"},
                                         {"a.cf32", "cf32_le"},
                                         {"a.fc32", "cf32_le"},
                                         {"a.cfile", "cf32_le"},
                                         {"a.cf64", "cf64_le"},
                                         {"a.fc64", "cf64_le"},
                                         {"a.cs32", "ci32_le"},
                                         {"a.cu16", "cu16_le"},
                                         {"a.f32", "rf32_le"},
                                         {"a.f64", "rf64_le"},
                                         {"a.s16", "ri16_le"},
                                         {"a.s8", "ri8"},
                                         {"a.u8", "ru8"},
                                         {"a.u16", "ru16_le"},
                                         {"a.s32", "ri32_le"},
                                         {"a.u32", "ru32_le"},
                                         {"/x.y/rec.CS16", "ci16_le"},
                                         {"rec.CFILE", "cf32_le"},
                                         {"dir/rec.ci16_be", "ci16_be"},
                                         {"rec.2024.cu8", "cu8"},
                                         {"rec.rf64_be", "rf64_be"}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    capture_datatype t = {0, 0, 0, 0};
    TS_CHECK(capture_datatype_from_path(table[i][0], &t, err, sizeof err) == CONVOY_OK, "%s: %s",
             table[i][0], err);
    const char *n = capture_datatype_name(t);
    TS_CHECK(n && strcmp(n, table[i][1]) == 0, "%s -> %s, expected %s", table[i][0],
             n ? n : "(invalid)", table[i][1]);
  }
  static const char *const bad[] = {"rec.iq", "rec.wav", "rec", "dir.cs16/rec", ".cu8", "rec."};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    capture_datatype t;
    err[0] = '\0';
    TS_CHECK(capture_datatype_from_path(bad[i], &t, err, sizeof err) == CONVOY_ERR_FORMAT, "%s",
             bad[i]);
    TS_CHECK(strstr(err, bad[i]) != NULL, "message names the file: %s", err);
  }
}

/* ------------------------------------------------------------- scaling */

static void test_scaling_defaults(void) {
  struct {
    const char *type;
    double scale, offset;
  } expect[] = {{"cu8", 1.0 / 128, 128},
                {"ci8", 1.0 / 128, 0},
                {"ci16_le", 1.0 / 32768, 0},
                {"cu16_be", 1.0 / 32768, 32768},
                {"ci32_le", 1.0 / 2147483648.0, 0},
                {"ru32_le", 1.0 / 2147483648.0, 2147483648.0},
                {"cf32_le", 1, 0},
                {"rf64_be", 1, 0}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    capture_scaling s = capture_scaling_default(type_of(expect[i].type));
    TS_CHECK(s.scale == expect[i].scale && s.offset == expect[i].offset, "%s: %g %g",
             expect[i].type, s.scale, s.offset);
  }
  /* Codes to float by the documented defaults, values computed by hand. */
  const unsigned char u8[] = {0, 128, 255, 64};
  const float u8_want[] = {-1.0f, 0.0f, 127.0f / 128.0f, -0.5f};
  float y[4];
  capture_datatype cu8 = type_of("cu8");
  capture_to_float(cu8, capture_scaling_default(cu8), u8, 4, y);
  for (int i = 0; i < 4; i++) TS_CHECK(y[i] == u8_want[i], "cu8 %d -> %g", u8[i], y[i]);
  const signed char i8[] = {-128, 0, 127, 64};
  const float i8_want[] = {-1.0f, 0.0f, 127.0f / 128.0f, 0.5f};
  capture_datatype ci8 = type_of("ci8");
  capture_to_float(ci8, capture_scaling_default(ci8), i8, 4, y);
  for (int i = 0; i < 4; i++) TS_CHECK(y[i] == i8_want[i], "ci8 %d -> %g", i8[i], y[i]);
  /* rtl-sdr's convention, asked for explicitly: (x - 127.5) / 127.5. */
  capture_scaling rtl = {1.0 / 127.5, 127.5};
  capture_to_float(cu8, rtl, u8, 4, y);
  TS_CHECK(y[0] == -1.0f && y[2] == 1.0f && fabsf(y[1] - 0.5f / 127.5f) < 1e-7f,
           "rtl-sdr scaling: %g %g %g", y[0], y[1], y[2]);
  /* Float types with a custom scale: y = (x - offset) * scale. */
  const float f[] = {2.0f, -4.0f};
  capture_scaling half = {0.5, 1.0};
  capture_to_float(type_of("rf32_le"), half, f, 2, y);
  TS_CHECK(y[0] == 0.5f && y[1] == -2.5f, "rf32 scaled: %g %g", y[0], y[1]);
}

/* ------------------------------------------------------------- bytes */

/* Stores the low `width` bytes of v in the given order. */
static void put(unsigned char *p, uint64_t v, int width, int big) {
  for (int i = 0; i < width; i++) {
    const int shift = 8 * (big ? width - 1 - i : i);
    p[i] = (unsigned char)(v >> shift);
  }
}

/* For type t, n values: hand-made stored bytes and the floats they mean. */
static void make_values(capture_datatype t, int n, ts_rng *rng, unsigned char *bytes, float *want) {
  const int w = t.width;
  for (int i = 0; i < n; i++) {
    if (t.kind == CAPTURE_KIND_FLOAT) {
      const float v = (float)(ts_uniform(rng) * 4.0 - 2.0);
      if (w == 4) {
        uint32_t u;
        memcpy(&u, &v, 4);
        put(bytes + (size_t)i * 4, u, 4, t.big_endian);
      } else {
        const double d = v;
        uint64_t u;
        memcpy(&u, &d, 8);
        put(bytes + (size_t)i * 8, u, 8, t.big_endian);
      }
      want[i] = v;
      continue;
    }
    const int bits = 8 * w;
    const double full = ldexp(1.0, bits - 1);
    int64_t code = ts_range(rng, -(int64_t)full, (int64_t)full - 1); /* signed view */
    if (bits == 32) code = code / 256 * 256;                         /* exact in float32 */
    if (i == 0) code = -(int64_t)full;                               /* the extremes */
    if (i == 1) code = (int64_t)full - (bits == 32 ? 256 : 1);
    const uint64_t stored =
        t.kind == CAPTURE_KIND_UINT ? (uint64_t)(code + (int64_t)full) : (uint64_t)code;
    put(bytes + (size_t)i * w, stored, w, t.big_endian);
    want[i] = (float)((double)code / full);
  }
}

static void test_all_types_bytes(ts_rng *rng) {
  enum { FRAMES = 257 };
  for (int k = 0; k < N_TYPES; k++) {
    capture_datatype t = type_of(all_types[k]);
    const int comps = capture_datatype_components(t);
    const int n = FRAMES * comps;
    unsigned char *bytes = malloc((size_t)n * t.width);
    float *want = malloc((size_t)n * sizeof *want);
    float *got = malloc((size_t)n * sizeof *got);
    make_values(t, n, rng, bytes, want);
    char in[300], out[300];
    path_in(in, sizeof in, "in.raw");
    path_in(out, sizeof out, "out.raw");
    TS_CHECK(write_bytes(in, bytes, (size_t)n * t.width) == 0, "write %s", in);

    capture_reader_options o = capture_reader_defaults(t);
    capture_reader *r = NULL;
    TS_CHECK(capture_reader_open(&r, in, &o, err, sizeof err) == CONVOY_OK, "%s: %s", all_types[k],
             err);
    if (!r) continue;
    TS_CHECK(capture_reader_frames(r) == FRAMES, "%s frames", all_types[k]);
    int64_t total = 0, g = 0;
    do { /* odd chunk sizes */
      TS_CHECK(capture_reader_read(r, got + total * comps, 10, &g, err, sizeof err) == CONVOY_OK,
               "%s", err);
      total += g;
    } while (g > 0);
    TS_CHECK(total == FRAMES, "%s read %lld", all_types[k], (long long)total);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += got[i] != want[i];
    TS_CHECK(bad == 0, "%s: %d values differ (first: got %g want %g)", all_types[k], bad, got[0],
             want[0]);
    capture_reader_close(r);

    capture_writer_options wo = {t, 1, {0, 0}, 1, 0};
    capture_writer *w = NULL;
    TS_CHECK(capture_writer_open(&w, out, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
    if (w) {
      TS_CHECK(capture_writer_write(w, want, FRAMES, err, sizeof err) == CONVOY_OK, "%s", err);
      TS_CHECK(capture_writer_tally(w).clipped == 0, "%s: clipped %lld", all_types[k],
               (long long)capture_writer_tally(w).clipped);
      TS_CHECK(capture_writer_commit(w, err, sizeof err) == CONVOY_OK, "%s", err);
      size_t m = 0;
      unsigned char *back = read_bytes(out, &m);
      TS_CHECK(back && m == (size_t)n * t.width && memcmp(back, bytes, m) == 0,
               "%s: written bytes differ from the hand-made ones", all_types[k]);
      free(back);
    }
    free(bytes);
    free(want);
    free(got);
  }
}

/* A few values written out byte by byte, per the spec's byte orders. */
static void test_known_bytes(void) {
  struct {
    const char *type;
    unsigned char bytes[8];
    int n;
    float value;
  } cases[] = {
      {"ri16_be", {0x12, 0x34}, 2, 0x1234 / 32768.0f},
      {"ri16_le", {0x34, 0x12}, 2, 0x1234 / 32768.0f},
      {"ri16_be", {0xFF, 0xFE}, 2, -2 / 32768.0f},
      {"ru16_be", {0xAB, 0xCD}, 2, (0xABCD - 32768) / 32768.0f},
      {"ru16_le", {0xCD, 0xAB}, 2, (0xABCD - 32768) / 32768.0f},
      {"ri32_le", {0xFF, 0xFF, 0xFF, 0xFF}, 4, (float)(-1 / 2147483648.0)},
      {"ru32_be", {0x80, 0x00, 0x01, 0x00}, 4, (float)(256 / 2147483648.0)},
      {"rf32_be", {0x3F, 0xC0, 0x00, 0x00}, 4, 1.5f},
      {"rf32_le", {0x00, 0x00, 0xC0, 0x3F}, 4, 1.5f},
      {"rf64_be", {0x3F, 0xF8, 0, 0, 0, 0, 0, 0}, 8, 1.5f},
      {"rf64_le", {0, 0, 0, 0, 0, 0, 0xF8, 0xBF}, 8, -1.5f},
      {"ri8", {0x80}, 1, -1.0f},
      {"ru8", {0x00}, 1, -1.0f},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    capture_datatype t = type_of(cases[i].type);
    float y = 0;
    capture_to_float(t, capture_scaling_default(t), cases[i].bytes, 1, &y);
    TS_CHECK(y == cases[i].value, "%s: got %.9g want %.9g", cases[i].type, y, cases[i].value);
    unsigned char back[8];
    capture_tally tally = {0, 0};
    capture_from_float(t, capture_scaling_default(t), &cases[i].value, 1, back, &tally);
    TS_CHECK(memcmp(back, cases[i].bytes, (size_t)cases[i].n) == 0, "%s: bytes differ",
             cases[i].type);
  }
}

static void test_saturation(void) {
  const float x[] = {1.0f, -1.0f, 2.0f, -3.0f, NAN, 0.99f, -1.0000001f, 0.5f};
  short codes[8];
  capture_tally tally = {0, 0};
  capture_datatype t = type_of("ri16_le");
  capture_from_float(t, capture_scaling_default(t), x, 8, codes, &tally);
  const short want[] = {32767, -32768, 32767, -32768, 0, 32440, -32768, 16384};
  for (int i = 0; i < 8; i++) TS_CHECK(codes[i] == want[i], "ri16 %g -> %d", x[i], codes[i]);
  /* +1.0 has no code (clipped), -1.0 has one; -1.0000001 rounds to -32768
   * (v = -32768.003, nearest code in range): not clipped. */
  TS_CHECK(tally.clipped == 4, "clipped %lld, expected 4", (long long)tally.clipped);
  TS_CHECK(tally.peak == 3.0, "peak %g", tally.peak);
  unsigned char u[8];
  capture_tally tu = {0, 0};
  capture_datatype cu8 = type_of("ru8");
  capture_from_float(cu8, capture_scaling_default(cu8), x, 8, u, &tu);
  const unsigned char uwant[] = {255, 0, 255, 0, 128, 255, 0, 192};
  for (int i = 0; i < 8; i++) TS_CHECK(u[i] == uwant[i], "ru8 %g -> %d", x[i], u[i]);
  /* 0.99 * 128 = 126.72 -> 127 + 128 = 255, in range. */
  TS_CHECK(tu.clipped == 4, "ru8 clipped %lld", (long long)tu.clipped);
  /* rtl-sdr scaling written back: y * 127.5 + 127.5. */
  const float r[] = {-1.0f, 1.0f, 0.0f};
  capture_scaling rtl = {1.0 / 127.5, 127.5};
  capture_tally tr = {0, 0};
  capture_from_float(cu8, rtl, r, 3, u, &tr);
  TS_CHECK(u[0] == 0 && u[1] == 255 && u[2] == 128 && tr.clipped == 0,
           "rtl-sdr write: %d %d %d (127.5 rounds up), clipped %lld", u[0], u[1], u[2],
           (long long)tr.clipped);
}

/* ------------------------------------------------------------- reader */

static void make_ramp(const char *path, int64_t frames, int channels) {
  short *v = malloc((size_t)frames * channels * 2 * sizeof *v);
  for (int64_t i = 0; i < frames * channels; i++) {
    v[2 * i] = (short)(i % 30000);
    v[2 * i + 1] = (short)-(i % 30000);
  }
  write_bytes(path, v, (size_t)frames * channels * 4);
  free(v);
}

static void test_skip_count(void) {
  char p[300];
  path_in(p, sizeof p, "ramp.cs16");
  make_ramp(p, 100, 1);
  capture_datatype t;
  capture_datatype_from_path(p, &t, err, sizeof err);
  capture_reader_options o = capture_reader_defaults(t);
  o.skip = 10;
  o.count = 20;
  capture_reader *r = NULL;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_file_frames(r) == 100 && capture_reader_frames(r) == 20, "counts");
    float y[64];
    int64_t got = 0, total = 0, g;
    while (capture_reader_read(r, y + 2 * total, 7, &g, err, sizeof err) == CONVOY_OK && g > 0)
      total += g;
    got = total;
    TS_CHECK(got == 20, "read %lld", (long long)got);
    int bad = 0;
    for (int i = 0; i < 20; i++)
      bad += y[2 * i] != (10 + i) / 32768.0f || y[2 * i + 1] != -(10 + i) / 32768.0f;
    TS_CHECK(bad == 0, "skip/count values");
    short raw[4];
    TS_CHECK(capture_reader_read_raw_at(r, 18, 2, raw, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(raw[0] == 28 && raw[2] == 29, "raw at: %d %d", raw[0], raw[2]);
    TS_CHECK(capture_reader_read_raw_at(r, 19, 2, raw, err, sizeof err) ==
                 CONVOY_ERR_INVALID_ARGUMENT,
             "raw read past the delivered range");
    capture_reader_rewind(r);
    TS_CHECK(capture_reader_read_raw(r, raw, 1, &g, err, sizeof err) == CONVOY_OK && g == 1 &&
                 raw[0] == 10,
             "rewind then raw read");
    capture_reader_close(r);
  }
  struct {
    int64_t skip, count;
    const char *text;
  } bad[] = {{100, -1, "skip of 100 samples is past the end (100 samples)"},
             {250, -1, "skip of 250 samples is past the end"},
             {90, 11, "skip 90 + count 11 samples is past the end (100 samples)"},
             {0, 0, "count 0"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.skip = bad[i].skip;
    o.count = bad[i].count;
    err[0] = '\0';
    TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_FORMAT && !r,
             "skip %lld count %lld accepted", (long long)bad[i].skip, (long long)bad[i].count);
    TS_CHECK(strstr(err, bad[i].text) && strstr(err, "ramp.cs16"), "message: %s", err);
  }
  o.skip = 90;
  o.count = 10; /* exactly to the end */
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  capture_reader_close(r);
}

/* capture_reader_set_range before the first read: a file moves back and
 * forth and is checked; a pipe only forward, and a pipe past its end says so. */
static void test_set_range(void) {
  char p[300];
  path_in(p, sizeof p, "range.cs16");
  make_ramp(p, 100, 1);
  capture_reader_options o = capture_reader_defaults(type_of("ci16_le"));
  o.skip = 40;
  o.count = 10;
  capture_reader *r = NULL;
  short raw[2 * 64];
  int64_t g = 0;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_set_range(r, 25, -1, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(capture_reader_frames(r) == 75, "frames after set_range: %lld",
             (long long)capture_reader_frames(r));
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK && g == 64 &&
                 raw[0] == 25 && raw[126] == 88,
             "read after set_range: %lld frames from %d", (long long)g, raw[0]);
    TS_CHECK(capture_reader_set_range(r, 0, -1, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
             "set_range after a read accepted");
    capture_reader_close(r);
  }
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_set_range(r, 95, 10, err, sizeof err) == CONVOY_ERR_FORMAT &&
                 strstr(err, "past the end"),
             "range past the end: %s", err);
    capture_reader_close(r);
  }
  /* The same file through a pipe: forward only. */
  int fds[2];
  if (pipe(fds) != 0) return;
  FILE *f = fopen(p, "rb");
  unsigned char bytes[400];
  const size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  TS_CHECK(n == sizeof bytes && write(fds[1], bytes, n) == (ssize_t)n, "pipe fill");
  close(fds[1]);
  o.skip = 30;
  o.count = -1;
  TS_CHECK(capture_reader_open_fd(&r, fds[0], "pipe", &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_set_range(r, 20, -1, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
             "a pipe went back");
    TS_CHECK(capture_reader_set_range(r, 60, -1, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK && g == 40 &&
                 raw[0] == 60,
             "pipe read after set_range: %lld frames from %d", (long long)g, raw[0]);
    capture_reader_close(r);
  }
  close(fds[0]);
  if (pipe(fds) != 0) return;
  TS_CHECK(write(fds[1], bytes, n) == (ssize_t)n, "pipe fill");
  close(fds[1]);
  o.skip = 0;
  TS_CHECK(capture_reader_open_fd(&r, fds[0], "pipe", &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_set_range(r, 150, -1, err, sizeof err) == CONVOY_ERR_FORMAT &&
                 strstr(err, "skip of 150 samples is past the end (100 samples)"),
             "pipe past its end: %s", err);
    capture_reader_close(r);
  }
  close(fds[0]);
}

/* A pipe of the n bytes at bytes, opened with skip; NULL on failure. */
static capture_reader *pipe_reader(const unsigned char *bytes, size_t n, int64_t skip, int *fd) {
  int fds[2];
  *fd = -1;
  if (pipe(fds) != 0) return NULL;
  TS_CHECK(write(fds[1], bytes, n) == (ssize_t)n, "pipe fill");
  close(fds[1]);
  capture_reader_options o = capture_reader_defaults(type_of("ci16_le"));
  o.skip = skip;
  capture_reader *r = NULL;
  TS_CHECK(capture_reader_open_fd(&r, fds[0], "pipe", &o, err, sizeof err) == CONVOY_OK, "%s", err);
  *fd = fds[0];
  return r;
}

/* capture_reader_look_ahead: a pipe read past its end says so and how many
 * frames it held, one read short of its end does not; either way the reads
 * then deliver every frame in order, set_range drops through the held
 * bytes, a partial sample at the end is still reported by the reads, and a
 * file is left alone. */
static void test_look_ahead(void) {
  char p[300];
  path_in(p, sizeof p, "ahead.cs16");
  make_ramp(p, 100, 1);
  FILE *f = fopen(p, "rb");
  unsigned char bytes[402] = {0};
  const size_t n = f ? fread(bytes, 1, 400, f) : 0;
  if (f) fclose(f);
  TS_CHECK(n == 400, "ramp file");
  short raw[2 * 100];
  int64_t held = 0, g = 0, g2 = 0;
  int ended = 0, fd = -1;
  for (int k = 0; k < 2; k++) { /* past the end, then short of it */
    const int64_t ahead = k == 0 ? 150 : 20;
    capture_reader *r = pipe_reader(bytes, 400, 10, &fd);
    if (!r) continue;
    TS_CHECK(capture_reader_look_ahead(r, ahead, &held, &ended, err, sizeof err) == CONVOY_OK, "%s",
             err);
    TS_CHECK(held == (k == 0 ? 90 : 20) && ended == (k == 0),
             "look ahead %lld: held %lld, ended %d", (long long)ahead, (long long)held, ended);
    TS_CHECK(capture_reader_frames(r) == -1, "look ahead made the length known");
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK &&
                 capture_reader_read_raw(r, raw + 2 * 64, 36, &g2, err, sizeof err) == CONVOY_OK,
             "%s", err);
    int in_order = g == 64 && g2 == 26;
    for (int i = 0; i < 90 && in_order; i++) in_order = raw[2 * i] == 10 + i;
    TS_CHECK(in_order, "look ahead %lld: reads of %lld + %lld frames not 10 .. 99 in order",
             (long long)ahead, (long long)g, (long long)g2);
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK && g == 0 &&
                 capture_reader_frames(r) == 90,
             "look ahead %lld: end: %lld more, %lld frames", (long long)ahead, (long long)g,
             (long long)capture_reader_frames(r));
    capture_reader_close(r);
    close(fd);
  }
  capture_reader *r = pipe_reader(bytes, 400, 0, &fd);
  if (r) {
    TS_CHECK(capture_reader_look_ahead(r, 50, &held, &ended, err, sizeof err) == CONVOY_OK &&
                 held == 50 && !ended,
             "look ahead 50: %lld, %d", (long long)held, ended);
    TS_CHECK(capture_reader_set_range(r, 60, -1, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK && g == 40 &&
                 raw[0] == 60,
             "set_range past the held frames: %lld frames from %d", (long long)g, raw[0]);
    capture_reader_close(r);
    close(fd);
  }
  r = pipe_reader(bytes, 402, 0, &fd);
  if (r) {
    TS_CHECK(capture_reader_look_ahead(r, 200, &held, &ended, err, sizeof err) == CONVOY_OK &&
                 held == 100 && ended,
             "partial sample: held %lld, ended %d", (long long)held, ended);
    err[0] = '\0';
    TS_CHECK(capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_OK && g == 64 &&
                 capture_reader_read_raw(r, raw, 64, &g, err, sizeof err) == CONVOY_ERR_FORMAT &&
                 strstr(err, "inside a sample"),
             "partial sample after look ahead: %s", err);
    capture_reader_close(r);
    close(fd);
  }
  capture_reader_options o = capture_reader_defaults(type_of("ci16_le"));
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_look_ahead(r, 10, &held, &ended, err, sizeof err) == CONVOY_OK &&
                 held == 0 && !ended && capture_reader_frames(r) == 100,
             "a file looked ahead: held %lld", (long long)held);
    capture_reader_close(r);
  }
}

static void test_bad_files(void) {
  char p[300];
  capture_reader *r = NULL;
  capture_reader_options o = capture_reader_defaults(type_of("ci16_le"));
  path_in(p, sizeof p, "odd.cs16");
  unsigned char junk[1001] = {0};
  write_bytes(p, junk, sizeof junk);
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_FORMAT, "odd size");
  TS_CHECK(strstr(err, "odd.cs16") && strstr(err, "1001 bytes") && strstr(err, "size 4") &&
               strstr(err, "ci16_le"),
           "message: %s", err);
  path_in(p, sizeof p, "missing.cs16");
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_IO, "missing file");
  TS_CHECK(strstr(err, "missing.cs16") && strstr(err, "No such file"), "message: %s", err);
  TS_CHECK(capture_reader_open(&r, dir, &o, err, sizeof err) == CONVOY_ERR_IO, "directory");
  TS_CHECK(strstr(err, "not a regular file"), "message: %s", err);
  path_in(p, sizeof p, "empty.cs16");
  write_bytes(p, junk, 0);
  /* An empty capture is an empty signal (as sox and ffmpeg take an empty file). */
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "empty: %s", err);
  if (r) {
    TS_CHECK(capture_reader_frames(r) == 0, "empty: %lld frames",
             (long long)capture_reader_frames(r));
    capture_reader_close(r);
    r = NULL;
  }
  if (geteuid() != 0) { /* root reads anything */
    path_in(p, sizeof p, "locked.cs16");
    write_bytes(p, junk, 4);
    chmod(p, 0);
    TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_IO, "unreadable");
    TS_CHECK(strstr(err, "locked.cs16") && strstr(err, "Permission denied"), "message: %s", err);
    chmod(p, 0600);
  }
  /* Header and trailer around the data. */
  path_in(p, sizeof p, "framed.cs16");
  unsigned char framed[10 + 8 + 3] = {0};
  framed[10] = 5; /* first I, little-endian */
  framed[14] = 7; /* second I */
  write_bytes(p, framed, sizeof framed);
  o.header_bytes = 10;
  o.trailing_bytes = 3;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    float y[4];
    int64_t g;
    capture_reader_read(r, y, 2, &g, err, sizeof err);
    TS_CHECK(g == 2 && y[0] == 5 / 32768.0f && y[2] == 7 / 32768.0f, "header/trailer read");
    capture_reader_close(r);
  }
  o.trailing_bytes = 30;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_FORMAT, "trailer > size");
}

/* Frames of several channels, and reads larger than the staging buffer. */
static void test_channels_and_stage(ts_rng *rng) {
  char p[300];
  path_in(p, sizeof p, "multi.cf64");
  capture_datatype t = type_of("cf64_le");
  const int ch = 3;
  const int64_t frames = ts_quick() ? 20000 : 60000; /* 3 x 16 x 60000 = 2.9 MB > 1 MiB stage */
  const int64_t n = frames * ch * 2;
  double *d = malloc((size_t)n * sizeof *d);
  for (int64_t i = 0; i < n; i++) d[i] = (double)(float)(ts_uniform(rng) - 0.5);
  write_bytes(p, d, (size_t)n * sizeof *d);
  capture_reader_options o = capture_reader_defaults(t);
  o.channels = ch;
  o.skip = 7;
  capture_reader *r = NULL;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    float *y = malloc((size_t)n * sizeof *y);
    int64_t g = 0;
    TS_CHECK(capture_reader_read(r, y, frames, &g, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(g == frames - 7, "got %lld", (long long)g);
    int bad = 0;
    for (int64_t i = 0; i < g * ch * 2; i++) bad += y[i] != (float)d[7 * ch * 2 + i];
    TS_CHECK(bad == 0, "%d values differ across the staging buffer", bad);
    TS_CHECK(capture_reader_read(r, y, 10, &g, err, sizeof err) == CONVOY_OK && g == 0, "at end");
    free(y);
    capture_reader_close(r);
  }
  free(d);
  /* A size that is a whole number of samples but not of 3-channel frames. */
  path_in(p, sizeof p, "frames.cs8");
  unsigned char b[2 * 3 * 4 + 2] = {0};
  write_bytes(p, b, sizeof b);
  o = capture_reader_defaults(type_of("ci8"));
  o.channels = 3;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_ERR_FORMAT, "partial frame");
  TS_CHECK(strstr(err, "frame size 6"), "message: %s", err);
}

/* A sparse file past 4 GiB: offsets must not wrap at 32 bits. */
static void test_large_offsets(void) {
  char p[300];
  path_in(p, sizeof p, "huge.cu8");
  const int64_t size = ((int64_t)1 << 32) + 4096; /* 2^31 + 2048 cu8 samples */
  int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
    fprintf(stderr, "note: no sparse file of %lld bytes here (%s); 64-bit offset check skipped\n",
            (long long)size, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(p);
    return;
  }
  unsigned char tail[32];
  for (int i = 0; i < 32; i++) tail[i] = (unsigned char)(100 + i);
  TS_CHECK(pwrite(fd, tail, 32, (off_t)(size - 32)) == 32, "pwrite at the end");
  unsigned char head[2] = {7, 9};
  TS_CHECK(pwrite(fd, head, 2, 0) == 2, "pwrite at 0");
  close(fd);
  capture_reader_options o = capture_reader_defaults(type_of("cu8"));
  const int64_t frames = size / 2;
  o.skip = frames - 16;
  capture_reader *r = NULL;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    TS_CHECK(capture_reader_file_frames(r) == frames, "frames %lld",
             (long long)capture_reader_file_frames(r));
    float y[32];
    int64_t g = 0;
    TS_CHECK(capture_reader_read(r, y, 100, &g, err, sizeof err) == CONVOY_OK && g == 16, "%s",
             err);
    int bad = 0;
    for (int i = 0; i < 32; i++) bad += y[i] != (100 + i - 128) / 128.0f;
    TS_CHECK(bad == 0, "values at the end of a > 4 GiB file (first %g)", y[0]);
    capture_reader_close(r);
  }
  /* The 2^31-th sample: its byte offset is 2^32, which wraps in 32 bits to
   * the first sample (7, 9). */
  o.skip = (int64_t)1 << 31;
  o.count = 1;
  TS_CHECK(capture_reader_open(&r, p, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  if (r) {
    unsigned char raw[2] = {1, 1};
    TS_CHECK(capture_reader_read_raw_at(r, 0, 1, raw, err, sizeof err) == CONVOY_OK, "%s", err);
    TS_CHECK(raw[0] == 0 && raw[1] == 0, "sample 2^31 read as %d %d (7 9 means 32-bit wrap)",
             raw[0], raw[1]);
    capture_reader_close(r);
  }
  unlink(p);
}

/* ------------------------------------------------------------- writer */

static void test_writer_atomic(void) {
  char p[300];
  path_in(p, sizeof p, "out.cs16");
  unlink(p);
  capture_writer_options wo = {type_of("ci16_le"), 2, {0, 0}, 0, 0};
  capture_writer *w = NULL;
  const float x[8] = {0.5f, -0.5f, 0.25f, 0, 0, 0, 0, 0};
  TS_CHECK(capture_writer_open(&w, p, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(capture_writer_write(w, x, 2, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(!exists(p), "target appears only at commit");
  /* Named only where the io layer is told to (the test hook of
   * io/atomic_file.h, set by the ctest test_capture_named). */
  const char *named = getenv("CONVOY_IO_TEST_NAMED_TEMP");
  const int named_want = named && *named && strcmp(named, "0") != 0;
  TS_CHECK(count_prefixed(".out.cs16.convoy-") == named_want,
           "%d temporaries beside the target, want %d", count_prefixed(".out.cs16.convoy-"),
           named_want);
  capture_writer_discard(w);
  TS_CHECK(!exists(p) && count_prefixed(".out.cs16.convoy-") == 0, "discard leaves nothing");

  TS_CHECK(capture_writer_open(&w, p, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  capture_writer_write(w, x, 2, err, sizeof err);
  TS_CHECK(capture_writer_frames(w) == 2, "frames");
  TS_CHECK(capture_writer_commit(w, err, sizeof err) == CONVOY_OK, "%s", err);
  size_t n = 0;
  unsigned char *b = read_bytes(p, &n);
  const unsigned char want[16] = {0x00, 0x40, 0x00, 0xC0, 0x00, 0x20};
  TS_CHECK(b && n == 16 && memcmp(b, want, 16) == 0, "2 frames of 2 channels ci16_le");
  free(b);

  /* Never clobber: refused without overwrite; with it, replaced at commit. */
  TS_CHECK(capture_writer_open(&w, p, &wo, err, sizeof err) == CONVOY_ERR_IO && !w, "clobber");
  TS_CHECK(strstr(err, "already exists"), "message: %s", err);
  wo.overwrite = 1;
  TS_CHECK(capture_writer_open(&w, p, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  const unsigned char raw[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* one frame of 2 channels */
  capture_writer_write_raw(w, raw, 1, err, sizeof err);
  b = read_bytes(p, &n);
  TS_CHECK(b && n == 16, "old file intact until commit");
  free(b);
  TS_CHECK(capture_writer_commit(w, err, sizeof err) == CONVOY_OK, "%s", err);
  b = read_bytes(p, &n);
  TS_CHECK(b && n == 8 && memcmp(b, raw, 8) == 0, "replaced at commit");
  free(b);
  path_in(p, sizeof p, "no/such/dir/out.cu8");
  TS_CHECK(capture_writer_open(&w, p, &wo, err, sizeof err) == CONVOY_ERR_IO, "bad directory");
  TS_CHECK(strstr(err, "out.cu8"), "message: %s", err);
}

static void test_random_round_trip(ts_rng *rng) {
  /* Random floats through every integer type: within half a step, and the
   * codes read back written again are identical. */
  const int n = 4096;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  unsigned char *b = malloc((size_t)n * 8), *b2 = malloc((size_t)n * 8);
  for (int k = 0; k < N_TYPES; k++) {
    capture_datatype t = type_of(all_types[k]);
    capture_scaling s = capture_scaling_default(t);
    const double step = t.kind == CAPTURE_KIND_FLOAT ? 0.0 : ldexp(1.0, 1 - 8 * t.width);
    ts_fill_uniform(rng, x, n);
    for (int i = 0; i < n; i++) x[i] *= (float)(1.0 - step); /* codes near +1 saturate */
    capture_tally tally = {0, 0};
    capture_from_float(t, s, x, (size_t)n, b, &tally);
    capture_to_float(t, s, b, (size_t)n, y);
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs((double)y[i] - x[i]));
    TS_CHECK(worst <= 0.5 * step + 1e-7 * (t.width == 4), "%s: error %g > half step %g",
             all_types[k], worst, 0.5 * step);
    TS_CHECK(tally.clipped == 0, "%s: %lld clipped in [-1, 1)", all_types[k],
             (long long)tally.clipped);
    if (t.kind != CAPTURE_KIND_FLOAT && t.width <= 2) {
      capture_from_float(t, s, y, (size_t)n, b2, &tally);
      TS_CHECK(memcmp(b, b2, (size_t)n * t.width) == 0, "%s: codes not stable", all_types[k]);
      capture_to_float(t, s, b2, (size_t)n, z);
      TS_CHECK(memcmp(y, z, (size_t)n * sizeof *y) == 0, "%s: values not stable", all_types[k]);
    }
  }
  free(x);
  free(y);
  free(z);
  free(b);
  free(b2);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/convoy_capture_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_capture"));
  test_table();
  test_extensions();
  test_scaling_defaults();
  test_known_bytes();
  test_all_types_bytes(&rng);
  test_saturation();
  test_random_round_trip(&rng);
  test_skip_count();
  test_set_range();
  test_look_ahead();
  test_bad_files();
  test_channels_and_stage(&rng);
  test_large_offsets();
  test_writer_atomic();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
  return ts_finish();
}
