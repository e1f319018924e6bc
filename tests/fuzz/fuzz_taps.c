/*
 * fuzz_taps.c - fuzz entry point for the taps and template parsers: text,
 * .npy and raw float32 taps files (filters/taps_*.c, which --taps, --ir of
 * those types and --matched with a taps file use) and the --design spec.
 *
 * Every input is used four ways: as a whole file given to each of the three
 * file parsers, and its first line as a design spec; and the file is also
 * written to a temporary file and loaded through convoy_taps_load
 * (filters/taps_load.c: taps_read_file, taps_probe_file, the choice by
 * extension, audio tried first for an unknown one). A property that does
 * not hold aborts, which the fuzzer reports like a crash:
 *   - a parser either succeeds with 1 channel of 1 .. 2^31 finite taps (real,
 *     or complex from a complex .npy), or fails with a one-line message that
 *     starts with the file's name;
 *   - taps a parser returns, printed as text ("%.9g" a line; real taps) or
 *     written as a '<f4' or '<c8' .npy, parse again to the same bits;
 *   - a file loaded by extension (.txt, .npy, .f32, and in upper case) gives
 *     what its parser gives in memory, the same bits or the same message
 *     naming the path;
 *   - raw float32 succeeds exactly when the size is a nonzero multiple of 4
 *     and every value is finite;
 *   - a spec that parses and asks for a short filter (at most 2049 taps,
 *     given or estimated from the width) designs finite, symmetric taps of
 *     the length asked for, or odd where the width sets it.
 *
 * Short run: the ctest fuzz_taps_replay feeds corpus_taps/ and mutations of
 * it (fuzz_replay.c), in the normal and the ASan+UBSan builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCONVOY_FUZZ=ON \
 *         -DCONVOY_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
 *   cmake --build build-fuzz --target fuzz_taps -j
 *   mkdir -p build-fuzz/corpus_taps
 *   build-fuzz/tests/fuzz/fuzz_taps build-fuzz/corpus_taps tests/fuzz/corpus_taps \
 *         -dict=tests/fuzz/taps.dict -max_len=4096 -max_total_time=3600
 */
#define _POSIX_C_SOURCE 200809L

#include "convoy_taps.h"
#include "design_internal.h"
#include "fuzz_property.h"
#include "fuzz_tmp.h"
#include "taps_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.taps"

/* Floats of a set: 2 a tap when complex. */
static size_t values(const convoy_taps *t) {
  return (size_t)t->channels * (size_t)t->length * (t->is_complex ? 2u : 1u);
}

/* The common contract of a parser's result, the file named name. */
static void check_named(convoy_status st, const convoy_taps *t, const char *err, const char *name) {
  if (st != CONVOY_OK) {
    const size_t n = strlen(name);
    fuzz_require(strncmp(err, name, n) == 0 && err[n] == ':' && err[n + 1] == ' ',
                 "a failure names the file");
    fuzz_require(!strchr(err, '\n'), "a failure is one line");
    fuzz_require(t->data == NULL, "a failure returns no taps");
    return;
  }
  /* A file of no known extension may be audio: a channel of taps per
   * channel of the file, and its rate. */
  fuzz_require(t->channels >= 1 && (t->channels == 1 || (t->rate > 0 && !t->is_complex)) &&
                   t->length >= 1 && t->length <= TAPS_MAX_LENGTH && t->data,
               "success gives one channel of taps, or an audio file's channels");
  for (size_t i = 0; i < values(t); i++) fuzz_require(isfinite(t->data[i]), "taps are finite");
}

static void check_result(convoy_status st, const convoy_taps *t, const char *err) {
  check_named(st, t, err, NAME);
}

static int same_bits(const convoy_taps *a, const convoy_taps *b) {
  return a->channels == b->channels && a->length == b->length && a->is_complex == b->is_complex &&
         memcmp(a->data, b->data, values(a) * sizeof *a->data) == 0;
}

static void text_round_trip(const convoy_taps *t) {
  size_t cap = (size_t)t->length * 20 + 1;
  char *buf = malloc(cap);
  if (!buf) return;
  size_t n = 0;
  for (int64_t i = 0; i < t->length; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%.9g\n", (double)t->data[i]);
  convoy_taps back;
  char err[256] = "";
  convoy_status st = taps_parse_text(NAME, buf, n, &back, err, sizeof err);
  fuzz_require(st == CONVOY_OK && same_bits(t, &back),
               "taps printed as text parse to the same bits");
  convoy_taps_free(&back);
  free(buf);
}

static void npy_round_trip(const convoy_taps *t) {
  char header[128];
  int len = snprintf(header, sizeof header,
                     "{'descr': '<%s', 'fortran_order': False, 'shape': (%lld,), }",
                     t->is_complex ? "c8" : "f4", (long long)t->length);
  const size_t pre = 10, total_header = (pre + (size_t)len + 1 + 63) / 64 * 64;
  const size_t n = values(t), bytes = total_header + n * 4;
  unsigned char *buf = malloc(bytes + 1);
  if (!buf) return;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  const size_t hl = total_header - pre;
  buf[8] = (unsigned char)(hl & 0xff);
  buf[9] = (unsigned char)(hl >> 8);
  memset(buf + pre, ' ', hl);
  memcpy(buf + pre, header, (size_t)len);
  buf[total_header - 1] = '\n';
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &t->data[i], 4);
    for (int k = 0; k < 4; k++)
      buf[total_header + i * 4 + (size_t)k] = (unsigned char)(u >> (8 * k));
  }
  buf[bytes] = '\0';
  convoy_taps back;
  char err[256] = "";
  convoy_status st = taps_parse_npy(NAME, buf, bytes, &back, err, sizeof err);
  fuzz_require(st == CONVOY_OK && same_bits(t, &back),
               "taps written as .npy parse to the same bits");
  convoy_taps_free(&back);
  free(buf);
}

static void file_parsers(const uint8_t *data, size_t size) {
  /* The parsers take the whole file followed by a NUL byte. */
  char *buf = malloc(size + 1);
  if (!buf) return;
  memcpy(buf, data, size);
  buf[size] = '\0';
  for (int kind = 0; kind < 3; kind++) {
    convoy_taps t;
    char err[512] = "";
    convoy_status st =
        kind == 0 ? taps_parse_text(NAME, buf, size, &t, err, sizeof err)
        : kind == 1
            ? taps_parse_npy(NAME, (const unsigned char *)buf, size, &t, err, sizeof err)
            : taps_parse_raw_f32(NAME, (const unsigned char *)buf, size, &t, err, sizeof err);
    check_result(st, &t, err);
    if (kind == 2) {
      int all_finite = size > 0 && size % 4 == 0;
      for (size_t i = 0; all_finite && i < size; i += 4) {
        float f;
        uint32_t u = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 |
                     (uint32_t)data[i + 3] << 24;
        memcpy(&f, &u, 4);
        all_finite = isfinite(f);
      }
      fuzz_require((st == CONVOY_OK) == all_finite,
                   "raw float32 accepts exactly the finite multiples");
    }
    if (st == CONVOY_OK) {
      if (!t.is_complex) text_round_trip(&t);
      npy_round_trip(&t);
    }
    convoy_taps_free(&t);
  }
  free(buf);
}

static void design_spec(const uint8_t *data, size_t size) {
  char spec[256];
  size_t n = 0;
  while (n < size && n < sizeof spec - 1 && data[n] != '\n' && data[n] != '\0') n++;
  memcpy(spec, data, n);
  spec[n] = '\0';
  convoy_design d;
  char err[512] = "";
  convoy_status st = convoy_design_parse(spec, 48000.0, &d, err, sizeof err);
  if (st != CONVOY_OK) {
    fuzz_require(err[0] != '\0', "a rejected spec has a message");
    return;
  }
  fuzz_require(d.rate > 0 && (d.width > 0) != (d.taps > 0),
               "a parsed spec has a rate and one length");
  /* A width-derived design starts from Kaiser's estimate (and may grow). */
  const double want = d.taps > 0 ? (double)d.taps : design_kaiser_length(d.atten, d.width, d.rate);
  if (!(want >= 1 && want <= 2049)) return;
  convoy_taps t;
  st = convoy_design_taps(&d, &t, err, sizeof err);
  if (st != CONVOY_OK) {
    fuzz_require(err[0] != '\0', "a failed design has a message");
    return;
  }
  fuzz_require(t.channels == 1 && t.data && t.length >= 1, "a design gives one channel");
  if (d.taps > 0)
    fuzz_require(t.length == d.taps, "a design has the taps asked for");
  else
    fuzz_require(t.length % 2 == 1, "a width-derived design has odd length");
  float peak = 0.0f;
  for (int64_t i = 0; i < t.length; i++) {
    fuzz_require(isfinite(t.data[i]), "designed taps are finite");
    peak = fmaxf(peak, fabsf(t.data[i]));
  }
  for (int64_t i = 0; i < t.length / 2; i++)
    fuzz_require(fabsf(t.data[i] - t.data[t.length - 1 - i]) <= 1e-6f * peak,
                 "designed taps are symmetric");
  convoy_taps_free(&t);
}

/* The files convoy_taps_load reads by extension, and the parser each one
 * names; kind -1: no parser of its own (audio, then text). */
static const struct {
  const char *name;
  int kind; /* 0 text, 1 .npy, 2 raw float32 */
} by_extension[] = {{"taps.txt", 0}, {"taps.CSV", 0}, {"taps.npy", 1},
                    {"taps.NPY", 1}, {"taps.f32", 2}, {"taps", -1}};

/* A file given by name: what its parser gives in memory, the message naming
 * the path instead of NAME. */
static void load_files(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return;
  memcpy(buf, data, size);
  buf[size] = '\0';
  for (size_t i = 0; i < sizeof by_extension / sizeof by_extension[0]; i++) {
    char path[1024];
    fuzz_tmp_write(path, sizeof path, by_extension[i].name, data, size);
    convoy_taps t;
    char err[1024] = "";
    convoy_status st = convoy_taps_load(path, CONVOY_TAPS_AUTO, &t, err, sizeof err);
    check_named(st, &t, err, path);
    const int kind = by_extension[i].kind;
    if (kind >= 0) {
      convoy_taps m;
      char merr[1024] = "";
      convoy_status mst =
          kind == 0 ? taps_parse_text(NAME, buf, size, &m, merr, sizeof merr)
          : kind == 1
              ? taps_parse_npy(NAME, (const unsigned char *)buf, size, &m, merr, sizeof merr)
              : taps_parse_raw_f32(NAME, (const unsigned char *)buf, size, &m, merr, sizeof merr);
      fuzz_require(st == mst &&
                       (st == CONVOY_OK ? same_bits(&t, &m)
                                        : !strcmp(err + strlen(path), merr + strlen(NAME))),
                   "a file gives what its parser gives in memory");
      convoy_taps_free(&m);
    }
    convoy_taps_free(&t);
    unlink(path);
  }
  free(buf);
}

/* The reading errors, once: a missing file, a directory, an empty file. */
static void unreadable_files(void) {
  char path[1024];
  convoy_taps t;
  char err[1024];
  const convoy_taps_format formats[] = {CONVOY_TAPS_TEXT, CONVOY_TAPS_AUDIO, CONVOY_TAPS_AUTO};
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    fuzz_tmp_path(path, sizeof path, "missing.txt");
    fuzz_require(convoy_taps_load(path, formats[i], &t, err, sizeof err) == CONVOY_ERR_IO,
                 "a missing file is an I/O error");
    check_named(CONVOY_ERR_IO, &t, err, path);
    snprintf(path, sizeof path, "%s", fuzz_tmp_dir());
    fuzz_require(convoy_taps_load(path, formats[i], &t, err, sizeof err) == CONVOY_ERR_IO,
                 "a directory is an I/O error");
    check_named(CONVOY_ERR_IO, &t, err, path);
    fuzz_tmp_write(path, sizeof path, "empty.wav", "", 0);
    fuzz_require(convoy_taps_load(path, formats[i], &t, err, sizeof err) == CONVOY_ERR_FORMAT,
                 "an empty file is a format error");
    check_named(CONVOY_ERR_FORMAT, &t, err, path);
    unlink(path);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int once;
  if (!once++) unreadable_files();
  file_parsers(data, size);
  design_spec(data, size);
  load_files(data, size);
  return 0;
}
