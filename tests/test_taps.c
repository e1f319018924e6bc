/* test_taps.c - convoy_taps_load on real files in a temporary directory: every
 * format (text variants, .npy written byte by byte per the format spec, raw
 * float32, WAV/FLAC impulse responses written with libsndfile), the
 * extension rules of CONVOY_TAPS_AUTO, and each kind of bad file, which must
 * give the right status and a message naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L

#include "convoy_taps.h"
#include "test_support.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

/* ------------------------------------------------------------- files */

static const char *path_of(const char *name) {
  static char buf[4][512];
  static int slot = 0;
  slot = (slot + 1) % 4;
  snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
  return buf[slot];
}

static const char *write_bytes(const char *name, const void *data, size_t len) {
  const char *p = path_of(name);
  FILE *f = fopen(p, "wb");
  if (!f || fwrite(data, 1, len, f) != len) {
    fprintf(stderr, "cannot write %s\n", p);
    exit(2);
  }
  fclose(f);
  return p;
}

static const char *write_text(const char *name, const char *text) {
  return write_bytes(name, text, strlen(text));
}

/* ------------------------------------------------------------- checks */

static void expect_taps(const char *what, const char *path, convoy_taps_format fmt,
                        const float *want, int64_t n) {
  convoy_taps t;
  char err[512] = "";
  convoy_status st = convoy_taps_load(path, fmt, &t, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: %s (%s)", what, convoy_strerror(st), err);
  if (st != CONVOY_OK) return;
  TS_CHECK(t.channels == 1 && t.length == n && !t.is_complex,
           "%s: got %d x %lld (complex %d), want 1 x %lld real", what, (int)t.channels,
           (long long)t.length, (int)t.is_complex, (long long)n);
  if (t.channels == 1 && t.length == n) {
    int same = 1;
    for (int64_t i = 0; i < n; i++) same &= t.data[i] == want[i];
    TS_CHECK(same, "%s: values differ", what);
  }
  convoy_taps_free(&t);
  TS_CHECK(t.data == NULL && t.length == 0, "%s: convoy_taps_free did not zero", what);
}

/* The load must fail with status, and the message must name the file and
 * contain each of the given fragments. */
static void expect_fail(const char *what, const char *path, convoy_taps_format fmt,
                        convoy_status status, const char *frag1, const char *frag2) {
  convoy_taps t;
  char err[512] = "";
  convoy_status st = convoy_taps_load(path, fmt, &t, err, sizeof err);
  TS_CHECK(st == status, "%s: status %s, want %s (%s)", what, convoy_strerror(st),
           convoy_strerror(status), err);
  TS_CHECK(t.data == NULL && t.length == 0, "%s: taps not left empty on failure", what);
  if (st == CONVOY_OK) convoy_taps_free(&t);
  TS_CHECK(strstr(err, path) != NULL, "%s: message does not name the file: '%s'", what, err);
  TS_CHECK(!frag1 || strstr(err, frag1), "%s: message lacks '%s': '%s'", what, frag1, err);
  TS_CHECK(!frag2 || strstr(err, frag2), "%s: message lacks '%s': '%s'", what, frag2, err);
  TS_CHECK(strchr(err, '\n') == NULL, "%s: message is not one line: '%s'", what, err);
}

/* ------------------------------------------------------------- text */

static const float three[3] = {0.5f, -0.25f, (float)1e-3};

static void test_text(ts_rng *rng) {
  expect_taps("newlines", write_text("a.txt", "0.5\n-0.25\n1e-3\n"), CONVOY_TAPS_AUTO, three, 3);
  expect_taps("commas", write_text("b.csv", "0.5, -0.25,1e-3"), CONVOY_TAPS_AUTO, three, 3);
  expect_taps("spaces and tabs", write_text("c.dat", "  0.5 \t-0.25   1e-3  "), CONVOY_TAPS_AUTO,
              three, 3);
  expect_taps("comments",
              write_text("d.taps", "# designed by hand\n0.5 # first\n\n  # blank line\n-0.25\n"
                                   "1e-3# no space before the comment\n# end"),
              CONVOY_TAPS_AUTO, three, 3);
  expect_taps("CRLF", write_text("e.txt", "0.5\r\n-0.25\r\n1e-3\r\n"), CONVOY_TAPS_AUTO, three, 3);
  expect_taps("BOM, trailing comma, no final newline",
              write_text("f.TXT", "\xEF\xBB\xBF"
                                  "0.5,\n-0.25,\n1e-3,"),
              CONVOY_TAPS_AUTO, three, 3);
  expect_taps("explicit text format, odd extension", write_text("g.coef", "+.5 -25e-2 0.001"),
              CONVOY_TAPS_TEXT, three, 3);
  const float under[2] = {0.0f, 1.0f};
  expect_taps("underflow rounds to zero", write_text("h.txt", "1e-60 1"), CONVOY_TAPS_AUTO, under,
              2);

  /* %.9g round-trips every float exactly. */
  enum { N = 2000 };
  float *want = malloc(N * sizeof *want);
  char *text = malloc(N * 24);
  size_t o = 0;
  for (int i = 0; i < N; i++) {
    want[i] = (float)((2 * ts_uniform(rng) - 1) * pow(10.0, (double)ts_range(rng, -30, 30)));
    const char *sep[] = {"\n", ",", " ", "\t", ", ", "\r\n"};
    o += (size_t)sprintf(text + o, "%.9g%s", (double)want[i], sep[ts_range(rng, 0, 5)]);
  }
  expect_taps("2000 random values", write_text("many.txt", text), CONVOY_TAPS_AUTO, want, N);
  free(want);
  free(text);

  /* A program that set a locale with a decimal comma still reads '.'. */
  const char *locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", NULL};
  for (int i = 0; locales[i]; i++) {
    if (setlocale(LC_NUMERIC, locales[i])) {
      expect_taps("decimal-comma locale", write_text("loc.txt", "0.5\n-0.25\n1e-3\n"),
                  CONVOY_TAPS_AUTO, three, 3);
      setlocale(LC_NUMERIC, "C");
      break;
    }
  }
}

static void test_text_errors(void) {
  expect_fail("garbage token", write_text("bad1.txt", "0.5\n0.25\nabc\n1\n"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 3", "'abc' is not a number");
  expect_fail("garbage after comment lines", write_text("bad2.txt", "# c\n# c\r\n\n1 2 3x\n"),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "line 4", "'3x'");
  expect_fail("semicolon is not a separator", write_text("bad3.csv", "1;2"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 1", "'1;2'");
  expect_fail("NaN", write_text("nan.txt", "0.5\nnan\n"), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "line 2", "NaN");
  expect_fail("NaN with payload", write_text("nan2.txt", "NAN(123)"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 1", "NaN");
  expect_fail("Inf", write_text("inf.txt", "1, 2, inf"), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "line 1", "infinite");
  expect_fail("-Infinity", write_text("inf2.txt", "1\n\n-Infinity"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 3", "infinite");
  /* FLT_MAX's shortest decimal forms lie above it and round down to it; the
   * next digit up rounds to infinity. */
  const float flt_max[3] = {FLT_MAX, -FLT_MAX, FLT_MAX};
  expect_taps("FLT_MAX as printed",
              write_text("max.txt", "3.4028235e+38 -3.40282347e38\n3.4028235677e38"),
              CONVOY_TAPS_AUTO, flt_max, 3);
  expect_fail("just beyond FLT_MAX", write_text("max2.txt", "3.4028236e38"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "'3.4028236e38'", "float32 range");
  expect_fail("beyond float", write_text("big.txt", "1e39"), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "'1e39'", "float32 range");
  expect_fail("beyond double", write_text("big2.txt", "0\n-1e400"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 2", "float32 range");
  expect_fail("empty", write_text("empty.txt", ""), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "empty",
              NULL);
  expect_fail("comments only", write_text("comments.txt", "# nothing\n  \n# here\n"),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "no taps", NULL);
  expect_fail("binary bytes", write_bytes("bin.txt", "1\n\0\x01\x02\n", 6), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "line 2", "not a number");
  /* Two columns on every line: numpy's savetxt of complex taps as (re, im), or
   * two channels; never read as one list of twice the length. One line of two
   * numbers, and lines of other counts, stay one list. */
  expect_fail("two columns", write_text("twocol.txt", "# re im\n0.5 0.25\n-0.125, 1e-3\n0 1\n"),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "twocol.txt", "two numbers on every line");
  const float pair[2] = {0.5f, 0.25f}, mixed[5] = {1, 2, 3, 4, 5};
  expect_taps("one line of two", write_text("oneline.txt", "0.5 0.25\n"), CONVOY_TAPS_AUTO, pair,
              2);
  expect_taps("lines of 2 and 3", write_text("mixed.txt", "1 2\n3 4 5\n"), CONVOY_TAPS_AUTO, mixed,
              5);
  /* A long token is quoted short. */
  char longtok[400];
  memset(longtok, 'x', sizeof longtok - 1);
  longtok[sizeof longtok - 1] = '\0';
  expect_fail("long token", write_text("long.txt", longtok), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "...' is not a number", NULL);
}

/* ------------------------------------------------------------- npy */

static void put_value(unsigned char *p, double v, int item, int big) {
  unsigned char b[8];
  if (item == 4) {
    float f = (float)v;
    memcpy(b, &f, 4);
  } else {
    memcpy(b, &v, 8);
  }
  /* The host is little-endian (checked in main). */
  for (int i = 0; i < item; i++) p[i] = b[big ? item - 1 - i : i];
}

/* Writes a .npy as the format spec lays it out: magic, version, header
 * length (2 bytes LE in 1.0, 4 in 2.0/3.0), the dict padded with spaces and
 * ended by '\n' so that the data starts on a 64-byte boundary, then the data.
 * cut removes bytes from the end; extra appends zero bytes. */
static const char *write_npy(const char *name, int major, const char *dict, const double *v,
                             int64_t n, int item, int big, size_t cut, size_t extra) {
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t pre = 8 + len_bytes;
  size_t dlen = strlen(dict);
  size_t hlen = dlen + 1;
  while ((pre + hlen) % 64) hlen++;
  size_t total = pre + hlen + (size_t)n * (size_t)item + extra;
  unsigned char *b = calloc(total, 1);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = 0;
  for (size_t i = 0; i < len_bytes; i++) b[8 + i] = (unsigned char)(hlen >> (8 * i));
  memset(b + pre, ' ', hlen);
  memcpy(b + pre, dict, dlen);
  b[pre + hlen - 1] = '\n';
  for (int64_t i = 0; i < n; i++)
    put_value(b + pre + hlen + (size_t)i * (size_t)item, v[i], item, big);
  const char *p = write_bytes(name, b, total - cut);
  free(b);
  return p;
}

static void test_npy(void) {
  const double v[5] = {0.5, -0.25, 0.1, 3.0e-5, -1.0};
  float want[5];
  for (int i = 0; i < 5; i++) want[i] = (float)v[i];
  char dict[200];
  struct {
    const char *descr;
    int item, big;
  } types[] = {{"<f4", 4, 0}, {"<f8", 8, 0}, {">f4", 4, 1}, {">f8", 8, 1}};
  for (int k = 0; k < 4; k++) {
    for (int major = 1; major <= 3; major++) {
      char what[64], name[64];
      snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }",
               types[k].descr);
      snprintf(what, sizeof what, "npy %s v%d.0", types[k].descr, major);
      snprintf(name, sizeof name, "t%d_%d.npy", k, major);
      expect_taps(what, write_npy(name, major, dict, v, 5, types[k].item, types[k].big, 0, 0),
                  CONVOY_TAPS_AUTO, want, 5);
    }
  }
  expect_taps("npy (5, 1)",
              write_npy("col.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 1), }",
                        v, 5, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, want, 5);
  expect_taps("npy (1, 5) fortran",
              write_npy("row.NPY", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (1, 5), }",
                        v, 5, 8, 0, 0, 0),
              CONVOY_TAPS_AUTO, want, 5);
  expect_taps("npy keys reordered, python 2 long",
              write_npy("py2.npy", 1, "{'shape': (5L,), 'fortran_order': False, 'descr': '<f4'}", v,
                        5, 4, 0, 0, 0),
              CONVOY_TAPS_NPY, want, 5);
}

/* np.save() of complex64 and complex128 taps, either byte order: complex
 * taps, (re, im) pairs in order. */
static void test_npy_complex(void) {
  const double v[6] = {0.5, -0.25, 0.1, 3.0e-5, -1.0, 0.75}; /* 3 complex taps */
  struct {
    const char *descr;
    int item, big;
  } types[] = {{"<c8", 4, 0}, {"<c16", 8, 0}, {">c8", 4, 1}, {">c16", 8, 1}};
  for (int k = 0; k < 4; k++) {
    char dict[200], name[64];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }",
             types[k].descr);
    snprintf(name, sizeof name, "c%d.npy", k);
    /* write_npy writes values of one real width: 6 of them are 3 complex items */
    const char *path = write_npy(name, 1, dict, v, 6, types[k].item, types[k].big, 0, 0);
    convoy_taps t;
    char err[512] = "";
    convoy_status st = convoy_taps_load(path, CONVOY_TAPS_AUTO, &t, err, sizeof err);
    TS_CHECK(st == CONVOY_OK, "npy %s: %s", types[k].descr, err);
    if (st != CONVOY_OK) continue;
    int same = t.channels == 1 && t.length == 3 && t.is_complex == 1;
    for (int i = 0; same && i < 6; i++) same = t.data[i] == (float)v[i];
    TS_CHECK(same, "npy %s: got %d x %lld complex %d, or values differ", types[k].descr,
             (int)t.channels, (long long)t.length, (int)t.is_complex);
    convoy_taps_free(&t);
  }
}

static void test_npy_errors(void) {
  const double v[4] = {0.5, -0.25, 0.125, 1.0};
  const char *f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  expect_fail("truncated npy", write_npy("trunc.npy", 1, f4, v, 4, 4, 0, 3, 0), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "truncated", "16 data bytes");
  expect_fail("npy with stray bytes", write_npy("long.npy", 1, f4, v, 4, 4, 0, 0, 4),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "stray", NULL);
  expect_fail("npy int32",
              write_npy("i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", v,
                        4, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "dtype '<i4' not supported (need float32, float64, complex64 or complex128)", NULL);
  const double cx_nan[4] = {0.5, 0.25, 1.0, NAN};
  expect_fail("npy complex with a NaN imaginary part",
              write_npy("cnan.npy", 1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }",
                        cx_nan, 4, 8, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "tap 1 (counting from 0), imaginary part, is NaN", NULL);
  expect_fail("npy complex truncated",
              write_npy("ctr.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                        v, 4, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "truncated", "24 data bytes");
  expect_fail("npy structured",
              write_npy("st.npy", 1,
                        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", v, 4,
                        4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "structured", NULL);
  expect_fail("npy 2-D",
              write_npy("2d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                        v, 4, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "shape (2, 2) not supported", NULL);
  expect_fail("npy 0-D",
              write_npy("0d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", v,
                        1, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "shape () not supported", NULL);
  expect_fail("npy empty array",
              write_npy("0.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", v,
                        0, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "no taps", NULL);
  const double nan_v[3] = {0.0, NAN, 1.0};
  expect_fail("npy NaN",
              write_npy("nan.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                        nan_v, 3, 8, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "tap 1", "NaN");
  const double inf_v[2] = {INFINITY, 1.0};
  expect_fail("npy Inf",
              write_npy("inf.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                        inf_v, 2, 4, 1, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "tap 0", "infinite");
  const double max_v[2] = {3.4028235e38, -3.4028235e38};
  const float max_f[2] = {FLT_MAX, -FLT_MAX};
  expect_taps("npy f8 of FLT_MAX as printed",
              write_npy("max.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                        max_v, 2, 8, 0, 0, 0),
              CONVOY_TAPS_AUTO, max_f, 2);
  const double big_v[2] = {1.0, 1e300};
  expect_fail("npy f8 beyond float",
              write_npy("big.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                        big_v, 2, 8, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "tap 1", "float32 range");
  expect_fail("npy version 4", write_npy("v4.npy", 4, f4, v, 4, 4, 0, 0, 0), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "version 4.0", NULL);
  expect_fail("not npy", write_text("text.npy", "0.5\n0.25\n"), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "not a .npy file", NULL);
  expect_fail("npy header cut", write_bytes("hdr.npy", "\x93NUMPY\x01\x00\x76\x00{'descr'", 17),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "truncated .npy header", NULL);
  expect_fail("npy header garbage",
              write_npy("junk.npy", 1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,)}", v,
                        4, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "fortran_order", NULL);
  expect_fail("npy missing key",
              write_npy("nokey.npy", 1, "{'descr': '<f4', 'shape': (4,)}", v, 4, 4, 0, 0, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "lacks", NULL);
  expect_fail("npy empty file", write_text("empty.npy", ""), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "empty", NULL);
}

/* ------------------------------------------------------------- raw */

static void test_raw(void) {
  const float want[4] = {0.5f, -0.25f, 1e-3f, 7.0f};
  unsigned char b[16];
  for (int i = 0; i < 4; i++) put_value(b + 4 * i, want[i], 4, 0);
  expect_taps("raw .f32", write_bytes("r.f32", b, 16), CONVOY_TAPS_AUTO, want, 4);
  expect_taps("raw .raw", write_bytes("r.raw", b, 16), CONVOY_TAPS_AUTO, want, 4);
  expect_taps("raw .BIN", write_bytes("r.BIN", b, 16), CONVOY_TAPS_AUTO, want, 4);
  expect_taps("raw explicit", write_bytes("r.whatever", b, 16), CONVOY_TAPS_RAW_F32, want, 4);

  expect_fail("raw odd size", write_bytes("odd.f32", b, 7), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "7 bytes", "multiple of 4");
  expect_fail("raw empty", write_bytes("empty.raw", b, 0), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "empty", NULL);
  put_value(b + 8, NAN, 4, 0);
  expect_fail("raw NaN", write_bytes("nan.bin", b, 16), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "tap 2", "NaN");
  put_value(b + 8, -INFINITY, 4, 0);
  expect_fail("raw Inf", write_bytes("inf.bin", b, 16), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "tap 2", "infinite");
}

/* ------------------------------------------------------------- audio */

static const char *write_audio(const char *name, int format, int channels, int rate,
                               const float *frames, int64_t n) {
  const char *p = path_of(name);
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.samplerate = rate;
  info.channels = channels;
  info.format = format;
  SNDFILE *sf = sf_open(p, SFM_WRITE, &info);
  if (!sf) {
    fprintf(stderr, "cannot write %s: %s\n", p, sf_strerror(NULL));
    exit(2);
  }
  if (n && sf_writef_float(sf, frames, n) != n) {
    fprintf(stderr, "short write %s\n", p);
    exit(2);
  }
  sf_close(sf);
  return p;
}

static void expect_audio(const char *what, const char *path, convoy_taps_format fmt,
                         const float *planar, int channels, int64_t n, double rate) {
  convoy_taps t;
  char err[512] = "";
  convoy_status st = convoy_taps_load(path, fmt, &t, err, sizeof err);
  TS_CHECK(st == CONVOY_OK, "%s: %s (%s)", what, convoy_strerror(st), err);
  if (st != CONVOY_OK) return;
  TS_CHECK(t.channels == channels && t.length == n && t.rate == rate, "%s: got %d x %lld at %g Hz",
           what, (int)t.channels, (long long)t.length, t.rate);
  if (t.channels == channels && t.length == n) {
    int same = 1;
    for (int64_t i = 0; i < channels * n; i++) same &= t.data[i] == planar[i];
    TS_CHECK(same, "%s: values differ", what);
  }
  convoy_taps_free(&t);
}

static void test_audio(void) {
  enum { N = 300 };
  float mono[N], stereo[2 * N], planar[2 * N];
  for (int i = 0; i < N; i++) {
    /* Multiples of 2^-15 survive PCM16 exactly and libsndfile's normalisation. */
    mono[i] = (float)((i * 37) % 512 - 256) / 32768.0f;
    stereo[2 * i] = mono[i];
    stereo[2 * i + 1] = (float)(i % 100) / 32768.0f;
    planar[i] = stereo[2 * i];
    planar[N + i] = stereo[2 * i + 1];
  }
  int wav_float = SF_FORMAT_WAV | SF_FORMAT_FLOAT, wav16 = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  expect_audio("mono float WAV", write_audio("m.wav", wav_float, 1, 44100, mono, N),
               CONVOY_TAPS_AUTO, mono, 1, N, 44100);
  expect_audio("stereo pcm16 WAV is planar", write_audio("s.WAV", wav16, 2, 48000, stereo, N),
               CONVOY_TAPS_AUTO, planar, 2, N, 48000);
  expect_audio("FLAC", write_audio("m.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, 96000, mono, N),
               CONVOY_TAPS_AUTO, mono, 1, N, 96000);
  expect_audio("unknown extension holding a WAV",
               write_audio("room.ir", wav16, 2, 48000, stereo, N), CONVOY_TAPS_AUTO, planar, 2, N,
               48000);
  expect_audio("explicit audio format", write_audio("m.data", wav_float, 1, 8000, mono, N),
               CONVOY_TAPS_AUDIO, mono, 1, N, 8000);
  expect_taps("unknown extension holding text", write_text("coefs.fir", "0.5 -0.25 1e-3"),
              CONVOY_TAPS_AUTO, three, 3);
  expect_taps("no extension, text", write_text("coefs", "0.5\n-0.25\n1e-3"), CONVOY_TAPS_AUTO,
              three, 3);

  /* Bad audio. */
  const char *p = write_audio("trunc.wav", wav16, 2, 48000, stereo, N);
  TS_CHECK(truncate(p, 44 + 2 * 2 * N / 2) == 0, "truncate");
  expect_fail("truncated WAV", p, CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "truncated", NULL);
  expect_fail("WAV with no frames", write_audio("zero.wav", wav16, 1, 48000, mono, 0),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "0 frames", NULL);
  float bad[4] = {0.5f, NAN, 0.0f, 0.0f};
  expect_fail("float WAV holding NaN", write_audio("nan.wav", wav_float, 2, 48000, bad, 2),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "sample 0 of channel 1", "NaN");
  expect_fail("text read as audio", write_text("t.wav", "0.5\n0.25\n"), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "not an audio file", NULL);
  expect_fail("garbage of unknown type",
              write_bytes("blob.xyz",
                          "\x7f"
                          "ELF\x02\x01",
                          6),
              CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT, "neither an audio file", "line 1");
  expect_fail("empty audio file", write_text("empty.wav", ""), CONVOY_TAPS_AUTO, CONVOY_ERR_FORMAT,
              "empty", NULL);
  expect_fail("empty unknown file", write_text("empty.foo", ""), CONVOY_TAPS_AUTO,
              CONVOY_ERR_FORMAT, "empty", NULL);
}

/* ------------------------------------------------------------- system errors */

static void test_system_errors(void) {
  const convoy_taps_format fmts[] = {CONVOY_TAPS_AUTO, CONVOY_TAPS_TEXT, CONVOY_TAPS_NPY,
                                     CONVOY_TAPS_RAW_F32, CONVOY_TAPS_AUDIO};
  const char *missing_names[] = {"missing.txt", "missing.txt", "missing.npy", "missing.f32",
                                 "missing.wav"};
  char d[512];
  snprintf(d, sizeof d, "%s", path_of("sub.npy"));
  TS_CHECK(mkdir(d, 0700) == 0, "mkdir %s", d);
  for (int i = 0; i < 5; i++) {
    char what[64];
    snprintf(what, sizeof what, "missing file, format %d", (int)fmts[i]);
    expect_fail(what, path_of(missing_names[i]), fmts[i], CONVOY_ERR_IO, "No such file", NULL);
    snprintf(what, sizeof what, "directory, format %d", (int)fmts[i]);
    expect_fail(what, d, fmts[i], CONVOY_ERR_IO, "Is a directory", NULL);
  }
  rmdir(d);

  if (geteuid() != 0) { /* root reads anything */
    const char *p = write_text("secret.txt", "1\n");
    chmod(p, 0);
    expect_fail("unreadable", p, CONVOY_TAPS_AUTO, CONVOY_ERR_IO, "Permission denied", NULL);
  }

  convoy_taps t;
  char err[128] = "";
  TS_CHECK(convoy_taps_load("-", CONVOY_TAPS_AUTO, &t, err, sizeof err) ==
                   CONVOY_ERR_INVALID_ARGUMENT &&
               strstr(err, "standard input"),
           "'-' refused: %s", err);
  TS_CHECK(convoy_taps_load(NULL, CONVOY_TAPS_AUTO, &t, err, sizeof err) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL path refused");
  TS_CHECK(convoy_taps_load("x.txt", CONVOY_TAPS_AUTO, NULL, err, sizeof err) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "NULL taps refused");
  TS_CHECK(convoy_taps_load(path_of("nope.txt"), (convoy_taps_format)99, &t, err, sizeof err) ==
               CONVOY_ERR_INVALID_ARGUMENT,
           "bad format refused");
  /* No message buffer, and a tiny one. */
  TS_CHECK(convoy_taps_load(path_of("nope.txt"), CONVOY_TAPS_AUTO, &t, NULL, 0) == CONVOY_ERR_IO,
           "NULL err");
  char tiny[8];
  memset(tiny, 'z', sizeof tiny);
  convoy_taps_load(path_of("nope.txt"), CONVOY_TAPS_AUTO, &t, tiny, sizeof tiny);
  TS_CHECK(memchr(tiny, '\0', sizeof tiny) != NULL, "tiny err buffer is NUL-terminated");
  convoy_taps_free(NULL);
}

/* ------------------------------------------------------------- main */

/* Removes the files the test wrote (no subdirectories are left) and dir. */
static void remove_dir(void) {
  DIR *dp = opendir(dir);
  if (dp) {
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlink(path_of(e->d_name));
    closedir(dp);
  }
  if (rmdir(dir) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
  const uint16_t one = 1;
  if (*(const unsigned char *)&one != 1) {
    printf("big-endian host: the byte-level fixtures assume little-endian\n");
    return TS_SKIP;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/convoy_taps_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_taps"));

  test_text(&rng);
  test_text_errors();
  test_npy();
  test_npy_complex();
  test_npy_errors();
  test_raw();
  test_audio();
  test_system_errors();

  remove_dir();
  return ts_finish();
}
