/*
 * fuzz_capture_taps.c - fuzz entry point for the taps of `convoy filter` on
 * captures (cli/capture/capture_taps.c: real or complex taps from a raw
 * capture file such as .cf32, or from a taps file such as a complex .npy)
 * and for the template of --matched (cli/capture/capture_matched.c: a raw
 * capture or a SigMF recording, windowed and normalised by the pulse
 * compressor's template code, pipeline/pulse_filter.c).
 *
 * An input is byte 0, which picks the file's name (its extension: a capture
 * datatype, .npy, .txt, a SigMF pair by its .sigmf-meta or by its base
 * name), byte 1, which picks the options (complex or real input, channels,
 * input rate, --window, --normalize-template, --gain), and the file's bytes.
 * For a SigMF pair the bytes up to the first NUL are the metadata, the rest
 * the dataset. The file is loaded as --taps FILE and as --matched FILE. A
 * property that does not hold aborts, which the fuzzer reports like a crash:
 *   - loading succeeds silently or fails with exactly one error line;
 *   - taps from a raw capture are its samples at the datatype's default
 *     scaling (times the gain), complex exactly for a complex datatype, and
 *     load exactly when the file holds whole samples, all finite, and complex
 *     taps meet a complex input; taps from a .npy or text file are what
 *     convoy_taps_load gives;
 *   - a raw template is its samples as (re, im) pairs (im 0 when real); the
 *     matched filter of a template has its length, a delay of length - 1,
 *     and without window, normalisation or gain is the conjugated template
 *     reversed.
 *
 * Short run: the ctest fuzz_capture_taps_replay feeds corpus_capture_taps/
 * and mutations of it (fuzz_replay.c), in the normal and the ASan+UBSan
 * builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake --build build-fuzz --target fuzz_capture_taps -j
 *   mkdir -p build-fuzz/corpus_capture_taps
 *   build-fuzz/tests/fuzz/fuzz_capture_taps build-fuzz/corpus_capture_taps \
 *         tests/fuzz/corpus_capture_taps -dict=tests/fuzz/sigmf.dict \
 *         -max_len=4096 -max_total_time=3600
 */
#define _POSIX_C_SOURCE 200809L

#include "capture.h"
#include "capture_matched.h"
#include "capture_taps.h"
#include "commands.h"
#include "convoy_taps.h"
#include "filter_options.h"
#include "fuzz_diag.h"
#include "fuzz_property.h"
#include "fuzz_tmp.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file names byte 0 picks from. "pair" is a SigMF pair named by its
 * base (pair.sigmf-meta and pair.sigmf-data exist, pair does not). */
static const char *const names[] = {
    "taps.cf32", "taps.cs16", "taps.cu8",   "taps.cs8",        "taps.cf64", "taps.ci16_be",
    "taps.cu16", "taps.cs32", "taps.f32",   "taps.rf64",       "taps.s16",  "taps.u8",
    "taps.npy",  "taps.txt",  "taps.cfile", "pair.sigmf-meta", "pair",      "taps.iq"};
#define N_NAMES (sizeof names / sizeof names[0])

typedef struct setup {
  int complex_input;
  int32_t channels;
  double rate; /* of the input; 0 unknown */
  convoy_pulse_window window;
  int normalize;
  double gain_db;
} setup;

static setup pick(uint8_t b) {
  setup s;
  s.complex_input = b & 1;
  s.channels = b & 2 ? 2 : 1;
  s.rate = b & 4 ? 1e6 : 0.0;
  s.window = (convoy_pulse_window)((b >> 3) & 3);
  s.normalize = (b >> 5) & 1;
  s.gain_db = b & 0x40 ? -6.0 : 0.0;
  return s;
}

static void options(filter_options *o, const setup *s) {
  memset(o, 0, sizeof *o);
  o->gain_db = s->gain_db;
  o->capture.matched.window = s->window;
  o->capture.matched.kaiser_beta = 8.6;
  o->capture.matched.normalize = s->normalize;
}

static void check_caught(int rc, const fuzz_caught *c) {
  if (rc == CLI_EXIT_OK)
    fuzz_require(c->len == 0, "a load that succeeds prints nothing");
  else
    fuzz_require(rc == CLI_EXIT_FAIL && fuzz_caught_lines(c) == 1,
                 "a load that fails prints one error line");
}

/* The samples of a raw capture file of type t as floats (n values), or NULL
 * when the bytes are not whole samples. */
static float *raw_values(capture_datatype t, const uint8_t *bytes, size_t size, size_t *n) {
  const size_t sb = (size_t)capture_datatype_sample_bytes(t);
  if (size == 0 || size % sb != 0) return NULL;
  *n = size / sb * (size_t)capture_datatype_components(t);
  float *v = malloc(*n * sizeof *v);
  if (v) capture_to_float(t, capture_scaling_default(t), bytes, *n, v);
  return v;
}

static int all_finite(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

static void taps_file(const char *path, const uint8_t *bytes, size_t size, const setup *s) {
  filter_options o;
  options(&o, s);
  o.taps = TAPS_FILE;
  o.taps_arg = path;
  capture_taps ct;
  fuzz_caught c;
  fuzz_catch_begin(&c);
  const int rc = capture_taps_make(&o, "in.cf32", s->channels, s->rate, s->complex_input, &ct);
  fuzz_catch_end(&c);
  check_caught(rc, &c);
  free(c.text);
  if (rc == CLI_EXIT_OK) {
    fuzz_require(ct.count >= 1 && ct.max_taps >= 1 && (!ct.complex_taps || s->complex_input),
                 "taps made for the input");
    for (int32_t i = 0; i < ct.count; i++)
      fuzz_require(convoy_filter_length(ct.filters[i]) <= ct.max_taps, "max_taps is the longest");
  }
  capture_datatype t;
  const float g = (float)pow(10.0, s->gain_db / 20.0);
  if (capture_datatype_from_extension(path, &t) == 0) {
    size_t n = 0;
    float *v = raw_values(t, bytes, size, &n);
    const int cx = capture_datatype_components(t) == 2;
    const int ok = v && all_finite(v, n) && (!cx || s->complex_input);
    fuzz_require((rc == CLI_EXIT_OK) == ok,
                 "a raw capture loads exactly when whole, finite, and complex meets complex");
    if (ok) {
      fuzz_require(ct.count == 1 && ct.complex_taps == cx &&
                       (size_t)ct.max_taps * (cx ? 2u : 1u) == n,
                   "one filter of the capture's samples");
      const float *h = convoy_filter_taps(ct.filters[0]);
      for (size_t i = 0; i < n; i++)
        fuzz_require(g == 1.0f ? memcmp(&h[i], &v[i], sizeof(float)) == 0 : h[i] == v[i] * g,
                     "the taps are the samples times the gain");
    }
    free(v);
  } else if (strstr(path, ".npy") || strstr(path, ".txt")) {
    convoy_taps lt;
    const convoy_status st = convoy_taps_load(path, CONVOY_TAPS_AUTO, &lt, NULL, 0);
    const int ok = st == CONVOY_OK && (!lt.is_complex || s->complex_input);
    fuzz_require((rc == CLI_EXIT_OK) == ok, "a taps file loads as convoy_taps_load reads it");
    if (ok) {
      const size_t n = (size_t)lt.length * (lt.is_complex ? 2u : 1u);
      fuzz_require(ct.count == 1 && ct.complex_taps == lt.is_complex && ct.max_taps == lt.length,
                   "one filter of the file's taps");
      const float *h = convoy_filter_taps(ct.filters[0]);
      for (size_t i = 0; i < n; i++)
        fuzz_require(g == 1.0f ? memcmp(&h[i], &lt.data[i], sizeof(float)) == 0
                               : h[i] == lt.data[i] * g,
                     "the taps are the file's times the gain");
    }
    convoy_taps_free(&lt);
  }
  capture_taps_free(&ct);
}

static void template_file(const char *path, const uint8_t *bytes, size_t size, const setup *s) {
  filter_options o;
  options(&o, s);
  o.capture.matched.template_path = path;
  capture_template tm;
  fuzz_caught c;
  fuzz_catch_begin(&c);
  int rc = capture_template_load(&o, "in.cf32", s->complex_input, s->rate, &tm);
  fuzz_catch_end(&c);
  check_caught(rc, &c);
  free(c.text);
  if (rc == CLI_EXIT_OK) {
    fuzz_require(tm.length >= 1 && tm.iq && (!tm.is_complex || s->complex_input),
                 "a template of samples for the input");
    for (int64_t i = 0; i < 2 * tm.length; i++)
      fuzz_require(isfinite(tm.iq[i]), "template samples are finite");
  }
  capture_datatype t;
  if (capture_datatype_from_extension(path, &t) == 0) {
    size_t n = 0;
    float *v = raw_values(t, bytes, size, &n);
    const int cx = capture_datatype_components(t) == 2;
    const int ok = v && all_finite(v, n) && (!cx || s->complex_input);
    fuzz_require((rc == CLI_EXIT_OK) == ok,
                 "a raw template loads exactly when whole, finite, and complex meets complex");
    if (ok) {
      fuzz_require(tm.is_complex == cx && (size_t)tm.length * (cx ? 2u : 1u) == n,
                   "the template holds the file's samples");
      for (int64_t i = 0; i < tm.length; i++) {
        const float re = cx ? v[2 * i] : v[i], im = cx ? v[2 * i + 1] : 0.0f;
        fuzz_require(memcmp(&tm.iq[2 * i], &re, sizeof re) == 0 &&
                         memcmp(&tm.iq[2 * i + 1], &im, sizeof im) == 0,
                     "the template is the samples as (re, im)");
      }
    }
    free(v);
  }

  capture_taps mt;
  fuzz_catch_begin(&c);
  const int mrc = capture_matched_taps(&o, "in.cf32", s->complex_input, s->rate, &mt);
  fuzz_catch_end(&c);
  check_caught(mrc, &c);
  free(c.text);
  if (rc != CLI_EXIT_OK) {
    fuzz_require(mrc != CLI_EXIT_OK, "no matched filter without a template");
  } else if (mrc == CLI_EXIT_OK) {
    fuzz_require(mt.count == 1 && mt.max_taps == tm.length && mt.delay == tm.length - 1 &&
                     mt.complex_taps == tm.is_complex,
                 "the matched filter has the template's length");
    const float *h = convoy_filter_taps(mt.filters[0]);
    if (s->window == CONVOY_WINDOW_NONE && !s->normalize && s->gain_db == 0.0) {
      for (int64_t k = 0; k < tm.length; k++) {
        const int64_t j = tm.length - 1 - k;
        const float re = tm.iq[2 * j], im = -tm.iq[2 * j + 1];
        fuzz_require(tm.is_complex ? h[2 * k] == re && h[2 * k + 1] == im : h[k] == re,
                     "the matched filter is the conjugated template reversed");
      }
    }
    int64_t skip, drop;
    int tail;
    fuzz_catch_begin(&c);
    for (int m = CONVOY_PULSE_FULL; m <= CONVOY_PULSE_VALID; m++) {
      o.capture.matched.mode = (convoy_pulse_mode)m;
      const int wrc =
          capture_matched_window(&o, "in.cf32", (int64_t)size, tm.length, &skip, &tail, &drop);
      fuzz_require(wrc == CLI_EXIT_FAIL ? m == CONVOY_PULSE_VALID && tm.length > (int64_t)size
                                        : skip >= 0 && drop >= 0 && skip < tm.length,
                   "the output window fits the template");
    }
    fuzz_catch_end(&c);
    free(c.text);
  } else {
    fuzz_require(s->normalize, "only a template of no energy has no matched filter");
  }
  capture_taps_free(&mt);
  capture_template_free(&tm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  const char *name = names[data[0] % N_NAMES];
  const setup s = pick(data[1]);
  data += 2;
  size -= 2;
  char path[1024], meta[1024], dataset[1024];
  fuzz_tmp_path(meta, sizeof meta, "pair.sigmf-meta");
  fuzz_tmp_path(dataset, sizeof dataset, "pair.sigmf-data");
  if (!strncmp(name, "pair", 4)) {
    const uint8_t *nul = memchr(data, '\0', size);
    const size_t mlen = nul ? (size_t)(nul - data) : size;
    fuzz_tmp_write(meta, sizeof meta, "pair.sigmf-meta", data, mlen);
    fuzz_tmp_write(dataset, sizeof dataset, "pair.sigmf-data", nul ? nul + 1 : data,
                   nul ? size - mlen - 1 : 0);
    fuzz_tmp_path(path, sizeof path, name);
  } else {
    fuzz_tmp_write(path, sizeof path, name, data, size);
  }
  taps_file(path, data, size, &s);
  template_file(path, data, size, &s);
  unlink(path);
  unlink(meta);
  unlink(dataset);
  return 0;
}
