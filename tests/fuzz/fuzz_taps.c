/*
 * fuzz_taps.c - fuzz entry point for the taps and template parsers: text,
 * .npy and raw float32 taps files (filters/taps_*.c, which --taps, --ir of
 * those types and --matched with a taps file use) and the --design spec.
 *
 * Every input is used four ways: as a whole file given to each of the three
 * file parsers, and its first line as a design spec. A property that does
 * not hold aborts, which the fuzzer reports like a crash:
 *   - a parser either succeeds with 1 channel of 1 .. 2^31 finite taps, or
 *     fails with a message that starts with the file's name;
 *   - taps a parser returns, printed as text ("%.9g" a line) or written as a
 *     '<f4' .npy, parse again to the same bits;
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
#include "convoy_taps.h"
#include "design_internal.h"
#include "fuzz_property.h"
#include "taps_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.taps"

/* The common contract of a parser's result. */
static void check_result(convoy_status st, const convoy_taps *t, const char *err) {
  if (st != CONVOY_OK) {
    fuzz_require(strncmp(err, NAME ": ", strlen(NAME) + 2) == 0, "a failure names the file");
    fuzz_require(t->data == NULL, "a failure returns no taps");
    return;
  }
  fuzz_require(t->channels == 1 && t->length >= 1 && t->length <= TAPS_MAX_LENGTH && t->data,
               "success gives one channel of taps");
  for (int64_t i = 0; i < t->length; i++) fuzz_require(isfinite(t->data[i]), "taps are finite");
}

static int same_bits(const convoy_taps *a, const convoy_taps *b) {
  return a->length == b->length &&
         memcmp(a->data, b->data, (size_t)a->length * sizeof *a->data) == 0;
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
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld,), }",
                     (long long)t->length);
  const size_t pre = 10, total_header = (pre + (size_t)len + 1 + 63) / 64 * 64;
  const size_t bytes = total_header + (size_t)t->length * 4;
  unsigned char *buf = malloc(bytes + 1);
  if (!buf) return;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  const size_t hl = total_header - pre;
  buf[8] = (unsigned char)(hl & 0xff);
  buf[9] = (unsigned char)(hl >> 8);
  memset(buf + pre, ' ', hl);
  memcpy(buf + pre, header, (size_t)len);
  buf[total_header - 1] = '\n';
  for (int64_t i = 0; i < t->length; i++) {
    uint32_t u;
    memcpy(&u, &t->data[i], 4);
    for (int k = 0; k < 4; k++)
      buf[total_header + (size_t)i * 4 + (size_t)k] = (unsigned char)(u >> (8 * k));
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
      text_round_trip(&t);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  file_parsers(data, size);
  design_spec(data, size);
  return 0;
}
