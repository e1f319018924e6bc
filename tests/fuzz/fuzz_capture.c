/*
 * fuzz_capture.c - fuzz entry point for the SigMF metadata reader and the
 * capture datatype, extension, time and conversion code.
 *
 * Every input is used three ways: as SigMF JSON (parsed, never accepted with
 * a NUL byte in it; when valid, read
 * through every accessor, edited by shift / decimate / retune / clip /
 * record with parameters drawn from the input, and each result printed and
 * parsed again, which must succeed and print the same text); as a short
 * string (datatype name, file name, SigMF path, ISO 8601 time); and as raw
 * sample bytes of a datatype chosen from the input (converted to float and
 * back: integer codes up to 16 bits must come back exactly). A property
 * that does not hold aborts, which the fuzzer reports like a crash.
 *
 * Short run: the ctest fuzz_capture_replay (fuzz_replay.c) feeds corpus/ and
 * mutations of it, in the normal and the ASan+UBSan builds.
 *
 * Long run (libFuzzer; clang):
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCONVOY_FUZZ=ON \
 *         -DCONVOY_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
 *   cmake --build build-fuzz --target fuzz_capture -j
 *   mkdir -p build-fuzz/corpus
 *   build-fuzz/tests/fuzz/fuzz_capture build-fuzz/corpus tests/fuzz/corpus \
 *         -dict=tests/fuzz/sigmf.dict -max_len=8192 -max_total_time=3600 \
 *         -jobs=4 -workers=4
 * New inputs go to build-fuzz/corpus (the first directory); a crash is
 * written as crash-<sha1> in the working directory and is replayed with
 * `fuzz_capture crash-<sha1>`; small interesting finds belong in
 * tests/fuzz/corpus so that the replay test keeps them.
 */
#include "capture.h"
#include "fuzz_property.h"
#include "sigmf.h"
#include "sigmf_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t hash(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The printed text of m must parse, validate and print identically. */
static void check_round_trip(const sigmf_meta *m, const char *step) {
  char *text = sigmf_meta_print(m);
  if (!text) return; /* out of memory */
  sigmf_meta *again = NULL;
  char err[256];
  if (sigmf_meta_parse(&again, text, strlen(text), "printed", err, sizeof err) != CONVOY_OK) {
    fprintf(stderr, "%s\n", text);
    fuzz_violated(step, err);
  }
  char *text2 = sigmf_meta_print(again);
  if (text2 && strcmp(text, text2) != 0) fuzz_violated(step, "printing is not stable");
  free(text2);
  sigmf_meta_free(again);
  free(text);
}

static void read_all(const sigmf_meta *m) {
  if (!capture_datatype_valid(sigmf_meta_datatype(m)))
    fuzz_violated("datatype", "invalid after parse");
  const int32_t ch = sigmf_meta_channels(m);
  if (ch < 1 || ch > CONVOY_MAX_CHANNELS) fuzz_violated("channels", "out of range");
  (void)sigmf_meta_sample_rate(m);
  (void)sigmf_meta_version(m);
  const int64_t nc = sigmf_meta_capture_count(m), na = sigmf_meta_annotation_count(m);
  for (int64_t i = 0; i < nc && i < 64; i++) {
    sigmf_capture c;
    if (sigmf_meta_capture(m, i, &c) != 0 || c.sample_start < 0)
      fuzz_violated("capture", "bad entry");
  }
  for (int64_t i = 0; i < na && i < 64; i++) {
    sigmf_annotation a;
    if (sigmf_meta_annotation(m, i, &a) != 0 || a.sample_start < 0 || a.sample_count < -1)
      fuzz_violated("annotation", "bad entry");
  }
  capture_reader_options o;
  (void)sigmf_reader_options(m, &o, NULL, 0);
  char *g = sigmf_meta_global_json(m, "core:datatype");
  free(g);
}

static void edit_all(const sigmf_meta *m, uint64_t seed) {
  sigmf_meta *e = sigmf_meta_copy(m);
  if (!e) return;
  const int64_t delta = (int64_t)(next(&seed) % 2001) - 1000;
  if (sigmf_meta_shift(e, delta, NULL, 0) == CONVOY_OK) check_round_trip(e, "shift");
  const int64_t factor = (int64_t)(next(&seed) % 16) + 1;
  const int64_t phase = (int64_t)(next(&seed) % (uint64_t)factor);
  if (sigmf_meta_decimate(e, factor, phase, NULL, 0) == CONVOY_OK) check_round_trip(e, "decimate");
  const double hz = ((double)(next(&seed) % 2000001) - 1e6) * 1e3;
  if (sigmf_meta_retune(e, hz, NULL, 0) == CONVOY_OK) check_round_trip(e, "retune");
  if (sigmf_meta_clip(e, (int64_t)(next(&seed) % 100000), NULL, 0) == CONVOY_OK)
    check_round_trip(e, "clip");
  sigmf_processing p;
  memset(&p, 0, sizeof p);
  p.taps = 128;
  p.design = "lowpass:cutoff=0.1";
  p.engine = "cpu-fft";
  p.decimation = factor;
  p.decimation_phase = phase;
  p.shift_hz = hz;
  p.delay = delta;
  if (sigmf_meta_record(e, &p, NULL, 0) == CONVOY_OK) check_round_trip(e, "record");
  for (int64_t i = 0; i < sigmf_meta_annotation_count(e) && i < 64; i++) {
    sigmf_annotation a;
    if (sigmf_meta_annotation(e, i, &a) != 0 || a.sample_start < 0)
      fuzz_violated("edit", "bad annotation");
  }
  sigmf_meta_free(e);
}

static void fuzz_meta(const uint8_t *data, size_t size, uint64_t seed) {
  sigmf_meta *m = NULL;
  char err[256];
  convoy_status st =
      sigmf_meta_parse(&m, (const char *)data, size, "fuzz.sigmf-meta", err, sizeof err);
  if (st != CONVOY_OK) {
    if (m) fuzz_violated("parse", "failure returned an object");
    if (!err[0] || strchr(err, '\n')) fuzz_violated("parse", "message empty or not one line");
    return;
  }
  /* cJSON ends strings at a NUL: a document holding one must be refused. */
  if (memchr(data, 0, size)) fuzz_violated("parse", "accepted a NUL byte");
  read_all(m);
  check_round_trip(m, "parse");
  edit_all(m, seed);
  sigmf_meta_free(m);
}

static void fuzz_strings(const uint8_t *data, size_t size) {
  char s[80];
  size_t n = size < sizeof s - 1 ? size : sizeof s - 1;
  memcpy(s, data, n);
  s[n] = '\0';
  capture_datatype t;
  char err[256];
  if (capture_datatype_parse(s, &t, err, sizeof err) == CONVOY_OK &&
      strcmp(capture_datatype_name(t), s) != 0)
    fuzz_violated("datatype", "name does not round-trip");
  if (capture_datatype_from_path(s, &t, err, sizeof err) == CONVOY_OK && !capture_datatype_valid(t))
    fuzz_violated("extension", "invalid type");
  char *mp, *dp;
  if (sigmf_paths(s, &mp, &dp, err, sizeof err) == CONVOY_OK) {
    free(mp);
    free(dp);
  }
  char out[64];
  (void)sj_datetime_add(s, (double)(int8_t)(size ? data[0] : 0) * 0.37, out, sizeof out);
}

static const char *const type_names[] = {
    "cf64_le", "cf64_be", "cf32_le", "cf32_be", "ci32_le", "ci32_be", "ci16_le",
    "ci16_be", "ci8",     "cu32_le", "cu32_be", "cu16_le", "cu16_be", "cu8",
    "rf64_le", "rf32_be", "ri32_be", "ri16_le", "ri8",     "ru16_be", "ru8"};

static void fuzz_convert(const uint8_t *data, size_t size, uint64_t seed) {
  capture_datatype t;
  const size_t k = (size_t)(next(&seed) % (sizeof type_names / sizeof type_names[0]));
  if (capture_datatype_parse(type_names[k], &t, NULL, 0) != CONVOY_OK)
    fuzz_violated("table", type_names[k]);
  const size_t n = size / t.width;
  if (n == 0) return;
  float *y = malloc(n * sizeof *y);
  unsigned char *back = malloc(n * t.width);
  if (!y || !back) {
    free(y);
    free(back);
    return;
  }
  const capture_scaling s = capture_scaling_default(t);
  capture_to_float(t, s, data, n, y);
  capture_tally tally = {0, 0.0};
  capture_from_float(t, s, y, n, back, &tally);
  if (t.kind != CAPTURE_KIND_FLOAT && t.width <= 2 &&
      (memcmp(back, data, n * t.width) != 0 || tally.clipped != 0))
    fuzz_violated("convert", "integer codes do not round-trip");
  free(y);
  free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint64_t seed = hash(data, size);
  fuzz_meta(data, size, seed);
  fuzz_strings(data, size);
  fuzz_convert(data, size, seed);
  return 0;
}
