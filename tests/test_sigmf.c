/* test_sigmf.c - SigMF recordings (io/sigmf.h): reading files shaped like the
 * spec's examples (the JSON is written here), unknown keys kept, the edits
 * for decimation, delay shift, retuning and clipping against values worked
 * out by hand from the rules in sigmf.h, the processing record, the atomic
 * pair writer, ISO 8601 arithmetic, and every bad-recording error. */
#define _POSIX_C_SOURCE 200809L

#include "sigmf.h"
#include "sigmf_internal.h"
#include "test_support.h"

#include <cjson/cJSON.h>
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

static int write_text(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t put = fwrite(p, 1, n, f);
  return fclose(f) == 0 && put == n ? 0 : -1;
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static sigmf_meta *parse(const char *text) {
  sigmf_meta *m = NULL;
  TS_CHECK(sigmf_meta_parse(&m, text, strlen(text), "test.sigmf-meta", err, sizeof err) ==
               CONVOY_OK,
           "%s", err);
  return m;
}

/* The printed model as a cJSON tree (caller deletes). */
static cJSON *printed(const sigmf_meta *m) {
  char *text = sigmf_meta_print(m);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  TS_CHECK(j != NULL, "printed metadata is JSON");
  return j;
}

static const cJSON *at(const cJSON *j, const char *section, int i, const char *key) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, section);
  const cJSON *e = cJSON_GetArrayItem(a, i);
  return key ? cJSON_GetObjectItemCaseSensitive(e, key) : e;
}

static double num(const cJSON *j, const char *section, int i, const char *key) {
  const cJSON *v = at(j, section, i, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *j, const char *section, int i, const char *key) {
  const cJSON *v = at(j, section, i, key);
  return cJSON_IsString(v) ? v->valuestring : "(absent)";
}

/* The example of sigmf-spec.md (v1.x), as a recording would hold it. */
static const char spec_example[] = "{\n"
                                   "    \"global\": {\n"
                                   "        \"core:datatype\": \"cf32_le\",\n"
                                   "        \"core:sample_rate\": 1000000,\n"
                                   "        \"core:hw\": \"PlutoSDR with 915 MHz whip antenna\",\n"
                                   "        \"core:author\": \"Art Vandelay\",\n"
                                   "        \"core:version\": \"1.0.0\"\n"
                                   "    },\n"
                                   "    \"captures\": [\n"
                                   "        {\n"
                                   "            \"core:sample_start\": 0,\n"
                                   "            \"core:frequency\": 915000000,\n"
                                   "            \"core:datetime\": \"2020-01-01T00:00:00Z\"\n"
                                   "        }\n"
                                   "    ],\n"
                                   "    \"annotations\": [\n"
                                   "        {\n"
                                   "            \"core:sample_start\": 100000,\n"
                                   "            \"core:sample_count\": 120000,\n"
                                   "            \"core:freq_lower_edge\": 914995000.0,\n"
                                   "            \"core:freq_upper_edge\": 915005000.0,\n"
                                   "            \"core:label\": \"LoRa\"\n"
                                   "        }\n"
                                   "    ]\n"
                                   "}\n";

static void test_spec_example(void) {
  char meta[300], data[300], base[300];
  path_in(base, sizeof base, "example");
  path_in(meta, sizeof meta, "example.sigmf-meta");
  path_in(data, sizeof data, "example.sigmf-data");
  write_text(meta, spec_example, strlen(spec_example));
  const float iq[6] = {0.5f, -0.25f, 1.0f, 0.0f, -1.0f, 0.125f};
  write_text(data, iq, sizeof iq);
  const char *names[] = {base, meta, data};
  for (int k = 0; k < 3; k++) {
    sigmf_meta *m = NULL;
    TS_CHECK(sigmf_open(&m, names[k], err, sizeof err) == CONVOY_OK, "%s: %s", names[k], err);
    if (!m) continue;
    TS_CHECK(strcmp(sigmf_meta_data_path(m), data) == 0, "data path %s", sigmf_meta_data_path(m));
    const char *t = capture_datatype_name(sigmf_meta_datatype(m));
    TS_CHECK(t && strcmp(t, "cf32_le") == 0, "datatype");
    TS_CHECK(sigmf_meta_sample_rate(m) == 1e6, "rate");
    TS_CHECK(strcmp(sigmf_meta_version(m), "1.0.0") == 0, "version");
    TS_CHECK(sigmf_meta_channels(m) == 1, "channels");
    sigmf_capture c;
    TS_CHECK(sigmf_meta_capture_count(m) == 1 && sigmf_meta_capture(m, 0, &c) == 0, "capture");
    TS_CHECK(c.sample_start == 0 && c.has_frequency && c.frequency == 915e6 &&
                 strcmp(c.datetime, "2020-01-01T00:00:00Z") == 0 && !c.has_global_index,
             "capture fields");
    sigmf_annotation a;
    TS_CHECK(sigmf_meta_annotation_count(m) == 1 && sigmf_meta_annotation(m, 0, &a) == 0, "ann");
    TS_CHECK(a.sample_start == 100000 && a.sample_count == 120000 && a.has_lower_edge &&
                 a.lower_edge == 914995000.0 && a.upper_edge == 915005000.0 &&
                 strcmp(a.label, "LoRa") == 0,
             "annotation fields");
    capture_reader_options o;
    TS_CHECK(sigmf_reader_options(m, &o, err, sizeof err) == CONVOY_OK, "%s", err);
    capture_reader *r = NULL;
    TS_CHECK(capture_reader_open(&r, sigmf_meta_data_path(m), &o, err, sizeof err) == CONVOY_OK,
             "%s", err);
    float y[6];
    int64_t got = 0;
    if (r) capture_reader_read(r, y, 10, &got, err, sizeof err);
    TS_CHECK(got == 3 && memcmp(y, iq, sizeof iq) == 0, "samples read");
    capture_reader_close(r);
    sigmf_meta_free(m);
  }
}

/* ------------------------------------------------------------- unknown keys */

static const char with_unknown[] =
    "{\"global\": {\"core:datatype\": \"ci16_le\", \"core:version\": \"1.2.0\",\n"
    "  \"core:sample_rate\": 2000000, \"antenna:gain\": [1.5, {\"deep\": [null, true]}],\n"
    "  \"core:extensions\": [{\"name\": \"antenna\", \"version\": \"1.0.0\", \"optional\": "
    "true}],\n"
    "  \"vendor:text\": \"caf\\u00e9 \\\"quoted\\\"\\n\"},\n"
    " \"captures\": [{\"core:sample_start\": 0, \"core:frequency\": 1e9, \"vendor:gain_db\": "
    "31.5}],\n"
    " \"annotations\": [{\"core:sample_start\": 10, \"core:sample_count\": 20,\n"
    "   \"vendor:class\": {\"id\": 7, \"names\": [\"a\", \"b\"]}, \"core:comment\": \"x\"}],\n"
    " \"other:top\": {\"k\": [1, 2, 3]}}";

static void test_unknown_keys(void) {
  sigmf_meta *m = parse(with_unknown);
  if (!m) return;
  cJSON *orig = cJSON_Parse(with_unknown);
  TS_CHECK(sigmf_meta_decimate(m, 2, 0, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(sigmf_meta_shift(m, 3, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(sigmf_meta_retune(m, 1000, err, sizeof err) == CONVOY_OK, "%s", err);
  sigmf_processing p;
  memset(&p, 0, sizeof p);
  p.taps = 16;
  TS_CHECK(sigmf_meta_record(m, &p, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON *out = printed(m);
  static const char *const global_keys[] = {"antenna:gain", "vendor:text", "core:version"};
  const cJSON *g0 = cJSON_GetObjectItemCaseSensitive(orig, "global");
  const cJSON *g1 = cJSON_GetObjectItemCaseSensitive(out, "global");
  for (int i = 0; i < 3; i++)
    TS_CHECK(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(g0, global_keys[i]),
                           cJSON_GetObjectItemCaseSensitive(g1, global_keys[i]), 1),
             "global %s kept", global_keys[i]);
  TS_CHECK(cJSON_Compare(at(orig, "captures", 0, "vendor:gain_db"),
                         at(out, "captures", 0, "vendor:gain_db"), 1),
           "capture key kept");
  TS_CHECK(cJSON_Compare(at(orig, "annotations", 0, "vendor:class"),
                         at(out, "annotations", 0, "vendor:class"), 1) &&
               strcmp(str(out, "annotations", 0, "core:comment"), "x") == 0,
           "annotation keys kept");
  TS_CHECK(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(orig, "other:top"),
                         cJSON_GetObjectItemCaseSensitive(out, "other:top"), 1),
           "top-level key kept");
  /* The existing extension list keeps its entry and gains convoy's. */
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(g1, "core:extensions");
  TS_CHECK(
      cJSON_GetArraySize(ext) == 2 &&
          strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ext, 0), "name")->valuestring,
                 "antenna") == 0 &&
          strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ext, 1), "name")->valuestring,
                 "convoy") == 0,
      "core:extensions");
  /* Order of keys kept: datatype still first in global. */
  TS_CHECK(g1 && g1->child && strcmp(g1->child->string, "core:datatype") == 0, "key order");
  cJSON_Delete(orig);
  cJSON_Delete(out);
  sigmf_meta_free(m);
}

/* ------------------------------------------------------------- edits */

static const char two_captures[] =
    "{\"global\": {\"core:datatype\": \"cu8\", \"core:version\": \"1.0.0\",\n"
    "  \"core:sample_rate\": 1000000},\n"
    " \"captures\": [\n"
    "  {\"core:sample_start\": 0, \"core:frequency\": 100000000, \"core:global_index\": 1000,\n"
    "   \"core:datetime\": \"2020-01-01T00:00:00Z\"},\n"
    "  {\"core:sample_start\": 1000, \"core:frequency\": 101000000}],\n"
    " \"annotations\": [\n"
    "  {\"core:sample_start\": 0, \"core:sample_count\": 1, \"core:label\": \"first\"},\n"
    "  {\"core:sample_start\": 7, \"core:sample_count\": 0, \"core:label\": \"point\"},\n"
    "  {\"core:sample_start\": 50, \"core:label\": \"open\"},\n"
    "  {\"core:sample_start\": 100, \"core:sample_count\": 50, \"core:label\": \"burst\",\n"
    "   \"core:freq_lower_edge\": 99990000, \"core:freq_upper_edge\": 100010000},\n"
    "  {\"core:sample_start\": 995, \"core:sample_count\": 10, \"core:label\": \"across\"}]}";

static void test_decimate(void) {
  sigmf_meta *m = parse(two_captures);
  if (!m) return;
  /* D = 4, phase 1: output k is input 4k + 1. */
  TS_CHECK(sigmf_meta_decimate(m, 4, 1, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON *j = printed(m);
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "global");
  TS_CHECK(cJSON_GetObjectItemCaseSensitive(g, "core:sample_rate")->valuedouble == 250000.0,
           "rate / 4");
  /* capture 0: ceil((0-1)/4) = 0, its start moved by 0*4+1-0 = 1 input sample. */
  TS_CHECK(num(j, "captures", 0, "core:sample_start") == 0 &&
               num(j, "captures", 0, "core:global_index") == 1001 &&
               strcmp(str(j, "captures", 0, "core:datetime"), "2020-01-01T00:00:00.000001Z") == 0,
           "capture 0: %g %g %s", num(j, "captures", 0, "core:sample_start"),
           num(j, "captures", 0, "core:global_index"), str(j, "captures", 0, "core:datetime"));
  /* capture 1: ceil((1000-1)/4) = 250. */
  TS_CHECK(num(j, "captures", 1, "core:sample_start") == 250 &&
               num(j, "captures", 1, "core:frequency") == 101e6,
           "capture 1 start %g", num(j, "captures", 1, "core:sample_start"));
  /* annotations: [0,1) lies before input 1: dropped. point at 7: floor(6/4)
   * = 1, count 0. open at 50: floor(49/4) = 12. [100,150): floor(99/4) = 24
   * to ceil(149/4) = 38. [995,1005): 248 to ceil(1004/4) = 251. */
  const cJSON *anns = cJSON_GetObjectItemCaseSensitive(j, "annotations");
  TS_CHECK(cJSON_GetArraySize(anns) == 4, "4 annotations left, got %d", cJSON_GetArraySize(anns));
  TS_CHECK(strcmp(str(j, "annotations", 0, "core:label"), "point") == 0 &&
               num(j, "annotations", 0, "core:sample_start") == 1 &&
               num(j, "annotations", 0, "core:sample_count") == 0,
           "point");
  TS_CHECK(num(j, "annotations", 1, "core:sample_start") == 12 &&
               !at(j, "annotations", 1, "core:sample_count"),
           "open");
  TS_CHECK(num(j, "annotations", 2, "core:sample_start") == 24 &&
               num(j, "annotations", 2, "core:sample_count") == 14 &&
               num(j, "annotations", 2, "core:freq_lower_edge") == 99990000,
           "burst %g +%g", num(j, "annotations", 2, "core:sample_start"),
           num(j, "annotations", 2, "core:sample_count"));
  TS_CHECK(num(j, "annotations", 3, "core:sample_start") == 248 &&
               num(j, "annotations", 3, "core:sample_count") == 3,
           "across %g +%g", num(j, "annotations", 3, "core:sample_start"),
           num(j, "annotations", 3, "core:sample_count"));
  cJSON_Delete(j);
  TS_CHECK(sigmf_meta_decimate(m, 4, 4, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "phase >= factor refused");
  TS_CHECK(sigmf_meta_decimate(m, 0, 0, err, sizeof err) == CONVOY_ERR_INVALID_ARGUMENT,
           "factor 0 refused");
  sigmf_meta_free(m);

  /* Two segments landing on the same output sample: the later one wins. */
  m = parse("{\"global\": {\"core:datatype\": \"cu8\"}, \"captures\": [{\"core:sample_start\": 0,"
            " \"core:frequency\": 1}, {\"core:sample_start\": 2, \"core:frequency\": 2},"
            " {\"core:sample_start\": 3, \"core:frequency\": 3}]}");
  if (!m) return;
  sigmf_meta_decimate(m, 8, 0, err, sizeof err);
  sigmf_capture c0, c1;
  TS_CHECK(sigmf_meta_capture_count(m) == 2 && sigmf_meta_capture(m, 0, &c0) == 0 &&
               sigmf_meta_capture(m, 1, &c1) == 0 && c0.sample_start == 0 && c0.frequency == 1 &&
               c1.sample_start == 1 && c1.frequency == 3,
           "collapsed segments: %lld", (long long)sigmf_meta_capture_count(m));
  sigmf_meta_free(m);
}

static void test_shift(void) {
  /* A full convolution with a group delay of 64 samples: everything later by
   * 64; the first segment still begins the dataset, 64 samples earlier in
   * its own time. */
  sigmf_meta *m = parse(two_captures);
  if (!m) return;
  TS_CHECK(sigmf_meta_shift(m, 64, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON *j = printed(m);
  TS_CHECK(num(j, "captures", 0, "core:sample_start") == 0 &&
               num(j, "captures", 0, "core:global_index") == 936 &&
               strcmp(str(j, "captures", 0, "core:datetime"), "2019-12-31T23:59:59.999936Z") == 0,
           "capture 0 after +64: %g %s", num(j, "captures", 0, "core:global_index"),
           str(j, "captures", 0, "core:datetime"));
  TS_CHECK(num(j, "captures", 1, "core:sample_start") == 1064, "capture 1 after +64");
  TS_CHECK(num(j, "annotations", 0, "core:sample_start") == 64 &&
               num(j, "annotations", 3, "core:sample_start") == 164 &&
               num(j, "annotations", 3, "core:sample_count") == 50,
           "annotations after +64");
  cJSON_Delete(j);
  sigmf_meta_free(m);

  /* The delay removed from a longer signal: -100. */
  m = parse(two_captures);
  if (!m) return;
  TS_CHECK(sigmf_meta_shift(m, -100, err, sizeof err) == CONVOY_OK, "%s", err);
  j = printed(m);
  TS_CHECK(num(j, "captures", 0, "core:sample_start") == 0 &&
               num(j, "captures", 0, "core:global_index") == 1100 &&
               strcmp(str(j, "captures", 0, "core:datetime"), "2020-01-01T00:00:00.0001Z") == 0,
           "capture 0 after -100: %g %s", num(j, "captures", 0, "core:global_index"),
           str(j, "captures", 0, "core:datetime"));
  TS_CHECK(num(j, "captures", 1, "core:sample_start") == 900, "capture 1 after -100");
  /* [0,1) and the point at 7 fall before 0: dropped; open at 50 -> 0;
   * [100,150) -> [0,50); [995,1005) -> [895,905). */
  TS_CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "annotations")) == 3,
           "3 annotations left");
  TS_CHECK(strcmp(str(j, "annotations", 0, "core:label"), "open") == 0 &&
               num(j, "annotations", 0, "core:sample_start") == 0,
           "open clipped to 0");
  TS_CHECK(num(j, "annotations", 1, "core:sample_start") == 0 &&
               num(j, "annotations", 1, "core:sample_count") == 50 &&
               num(j, "annotations", 2, "core:sample_start") == 895 &&
               num(j, "annotations", 2, "core:sample_count") == 10,
           "burst and across");
  cJSON_Delete(j);
  sigmf_meta_free(m);

  /* Far enough that the second segment is in force at 0. */
  m = parse(two_captures);
  if (!m) return;
  sigmf_meta_shift(m, -1200, err, sizeof err);
  sigmf_capture c;
  TS_CHECK(sigmf_meta_capture_count(m) == 1 && sigmf_meta_capture(m, 0, &c) == 0 &&
               c.sample_start == 0 && c.frequency == 101e6,
           "second segment moved to 0");
  /* [995,1005) - 1200 lies wholly before 0. */
  TS_CHECK(sigmf_meta_annotation_count(m) == 1, "only the open annotation left (%lld)",
           (long long)sigmf_meta_annotation_count(m));
  sigmf_meta_free(m);
}

static void test_retune_and_clip(void) {
  sigmf_meta *m = parse(two_captures);
  if (!m) return;
  TS_CHECK(sigmf_meta_retune(m, 250000, err, sizeof err) == CONVOY_OK, "%s", err);
  sigmf_capture c0, c1;
  sigmf_meta_capture(m, 0, &c0);
  sigmf_meta_capture(m, 1, &c1);
  TS_CHECK(c0.frequency == 100.25e6 && c1.frequency == 101.25e6, "centres + shift");
  sigmf_annotation a;
  sigmf_meta_annotation(m, 3, &a);
  TS_CHECK(a.lower_edge == 99990000 && a.upper_edge == 100010000, "RF edges unchanged");
  TS_CHECK(sigmf_meta_clip(m, 120, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(sigmf_meta_capture_count(m) == 1, "capture at 1000 dropped by clip to 120");
  TS_CHECK(sigmf_meta_annotation_count(m) == 4 && sigmf_meta_annotation(m, 3, &a) == 0 &&
               a.sample_start == 100 && a.sample_count == 20,
           "burst cut at 120; across dropped");
  sigmf_meta_free(m);

  /* No centre frequency: edges are baseband-relative and move by -shift. */
  m = parse("{\"global\": {\"core:datatype\": \"cf32_le\"}, \"captures\": [{\"core:sample_start\":"
            " 0}], \"annotations\": [{\"core:sample_start\": 0, \"core:freq_lower_edge\": -1000,"
            " \"core:freq_upper_edge\": 3000}]}");
  if (!m) return;
  sigmf_meta_retune(m, 2000, err, sizeof err);
  sigmf_meta_annotation(m, 0, &a);
  TS_CHECK(a.lower_edge == -3000 && a.upper_edge == 1000, "baseband edges: %g %g", a.lower_edge,
           a.upper_edge);
  sigmf_capture c;
  sigmf_meta_capture(m, 0, &c);
  TS_CHECK(!c.has_frequency, "no frequency invented");
  sigmf_meta_free(m);
}

static void test_offset(void) {
  /* core:offset: indices in the file are absolute. */
  sigmf_meta *m = parse("{\"global\": {\"core:datatype\": \"ci8\", \"core:offset\": 1000},"
                        " \"captures\": [{\"core:sample_start\": 1000}], \"annotations\":"
                        " [{\"core:sample_start\": 1100, \"core:sample_count\": 8}]}");
  if (!m) return;
  sigmf_annotation a;
  sigmf_meta_annotation(m, 0, &a);
  TS_CHECK(a.sample_start == 100, "relative start %lld", (long long)a.sample_start);
  sigmf_meta_decimate(m, 4, 0, err, sizeof err);
  cJSON *j = printed(m);
  TS_CHECK(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "global"), "core:offset")
                  ->valuedouble == 250 &&
          num(j, "captures", 0, "core:sample_start") == 250 &&
          num(j, "annotations", 0, "core:sample_start") == 275 &&
          num(j, "annotations", 0, "core:sample_count") == 2,
      "offset / 4 and absolute indices");
  cJSON_Delete(j);
  sigmf_meta_free(m);
}

static void test_record(void) {
  sigmf_meta *m = parse(spec_example);
  if (!m) return;
  sigmf_processing p;
  memset(&p, 0, sizeof p);
  p.taps = 128;
  p.taps_complex = 1;
  p.design = "lowpass:cutoff=100k";
  p.engine = "cpu-fft";
  p.decimation = 4;
  p.shift_hz = -250000;
  p.delay = -63;
  p.start = "warm";
  p.skip = 1000;
  p.count = 48000;
  p.input = "in.sigmf-meta";
  p.input_datatype = "ci16_le";
  p.has_input_scaling = 1;
  p.input_scaling.scale = 1.0 / 32768;
  p.has_clipped = 1;
  p.clipped = 3;
  TS_CHECK(sigmf_meta_record(m, &p, err, sizeof err) == CONVOY_OK, "%s", err);
  p.operation = "matched";
  TS_CHECK(sigmf_meta_record(m, &p, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON *j = printed(m);
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "global");
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(g, "convoy:processing");
  TS_CHECK(cJSON_GetArraySize(list) == 2, "two records");
  const cJSON *r = cJSON_GetArrayItem(list, 0);
#define FIELD(k) cJSON_GetObjectItemCaseSensitive(r, k)
  TS_CHECK(
      strcmp(FIELD("operation")->valuestring, "filter") == 0 && FIELD("taps")->valuedouble == 128 &&
          strcmp(FIELD("taps_type")->valuestring, "complex") == 0 &&
          strcmp(FIELD("design")->valuestring, "lowpass:cutoff=100k") == 0 &&
          strcmp(FIELD("engine")->valuestring, "cpu-fft") == 0 &&
          FIELD("decimation")->valuedouble == 4 && FIELD("shift_hz")->valuedouble == -250000 &&
          FIELD("delay")->valuedouble == -63 && FIELD("skip")->valuedouble == 1000 &&
          FIELD("count")->valuedouble == 48000 &&
          strcmp(FIELD("start")->valuestring, "warm") == 0 && FIELD("clipped")->valuedouble == 3 &&
          cJSON_GetObjectItemCaseSensitive(FIELD("input_scaling"), "scale")->valuedouble ==
              1.0 / 32768 &&
          !FIELD("taps_file") && !FIELD("output_scaling"),
      "record fields");
#undef FIELD
  TS_CHECK(
      strcmp(
          cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 1), "operation")->valuestring,
          "matched") == 0,
      "second record");
  p.start = NULL; /* the whole input */
  p.skip = 0;
  p.count = -1;
  TS_CHECK(sigmf_meta_record(m, &p, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON_Delete(j);
  j = printed(m);
  g = cJSON_GetObjectItemCaseSensitive(j, "global");
  list = cJSON_GetObjectItemCaseSensitive(g, "convoy:processing");
  r = cJSON_GetArrayItem(list, 2);
  TS_CHECK(r && !cJSON_GetObjectItemCaseSensitive(r, "skip") &&
               !cJSON_GetObjectItemCaseSensitive(r, "count") &&
               !cJSON_GetObjectItemCaseSensitive(r, "start"),
           "no skip or count recorded for the whole input");
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(g, "core:extensions");
  TS_CHECK(cJSON_GetArraySize(ext) == 1 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                               cJSON_GetArrayItem(ext, 0), "optional")),
           "convoy declared once as an optional extension");
  cJSON_Delete(j);
  sigmf_meta_free(m);
}

/* ------------------------------------------------------------- files */

static void test_writer_pair(void) {
  /* A non-conforming input: a 4-byte header, 2 trailing bytes, a checksum. */
  char in_meta[300], in_data[300], out_base[300], out_meta[300], out_data[300];
  path_in(in_meta, sizeof in_meta, "ncd.sigmf-meta");
  path_in(in_data, sizeof in_data, "ncd.bin");
  path_in(out_base, sizeof out_base, "out");
  path_in(out_meta, sizeof out_meta, "out.sigmf-meta");
  path_in(out_data, sizeof out_data, "out.sigmf-data");
  const char *meta_text =
      "{\"global\": {\"core:datatype\": \"ci16_le\", \"core:version\": \"1.0.0\","
      " \"core:sample_rate\": 8000, \"core:trailing_bytes\": 2, \"core:dataset\": \"ncd.bin\","
      " \"core:sha512\": \"abc\"},"
      " \"captures\": [{\"core:sample_start\": 0, \"core:header_bytes\": 4}],"
      " \"annotations\": [{\"core:sample_start\": 1, \"core:sample_count\": 100}]}";
  write_text(in_meta, meta_text, strlen(meta_text));
  const unsigned char bytes[4 + 12 + 2] = {9, 9, 9,    9,    0x00, 0x40, 0x00, 0xC0, 0,
                                           0, 0, 0x20, 0x00, 0x10, 0x00, 0x00, 9,    9};
  write_text(in_data, bytes, sizeof bytes);
  sigmf_meta *m = NULL;
  TS_CHECK(sigmf_open(&m, in_meta, err, sizeof err) == CONVOY_OK, "%s", err);
  if (!m) return;
  TS_CHECK(strcmp(sigmf_meta_data_path(m), in_data) == 0, "core:dataset names the data");
  capture_reader_options o;
  TS_CHECK(sigmf_reader_options(m, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(o.header_bytes == 4 && o.trailing_bytes == 2, "header and trailer");
  capture_reader *r = NULL;
  TS_CHECK(capture_reader_open(&r, sigmf_meta_data_path(m), &o, err, sizeof err) == CONVOY_OK, "%s",
           err);
  float y[6] = {0};
  int64_t got = 0;
  if (r) capture_reader_read(r, y, 3, &got, err, sizeof err);
  capture_reader_close(r);
  TS_CHECK(got == 3 && y[0] == 0.5f && y[1] == -0.5f && y[2] == 0 && y[3] == 0.25f &&
               y[4] == 0.125f && y[5] == 0,
           "samples between header and trailer");

  capture_writer_options wo = {{1, CAPTURE_KIND_FLOAT, 4, 0}, 1, {0, 0}, 0, 0};
  sigmf_writer *w = NULL;
  TS_CHECK(sigmf_writer_open(&w, out_base, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  if (!w) return;
  capture_writer_write(sigmf_writer_data(w), y, 3, err, sizeof err);
  TS_CHECK(!exists(out_meta) && !exists(out_data), "nothing in place before commit");
  TS_CHECK(sigmf_writer_commit(w, m, err, sizeof err) == CONVOY_OK, "%s", err);
  TS_CHECK(exists(out_meta) && exists(out_data), "both files in place");
  sigmf_meta_free(m);

  m = NULL;
  TS_CHECK(sigmf_open(&m, out_data, err, sizeof err) == CONVOY_OK, "%s", err);
  if (!m) return;
  cJSON *j = printed(m);
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "global");
  TS_CHECK(
      strcmp(cJSON_GetObjectItemCaseSensitive(g, "core:datatype")->valuestring, "cf32_le") == 0 &&
          strcmp(cJSON_GetObjectItemCaseSensitive(g, "core:version")->valuestring, "1.0.0") == 0,
      "datatype and version written");
  TS_CHECK(!cJSON_GetObjectItemCaseSensitive(g, "core:sha512") &&
               !cJSON_GetObjectItemCaseSensitive(g, "core:trailing_bytes") &&
               !cJSON_GetObjectItemCaseSensitive(g, "core:dataset") &&
               !at(j, "captures", 0, "core:header_bytes"),
           "stale keys removed");
  TS_CHECK(num(j, "annotations", 0, "core:sample_count") == 2, "annotation clipped to 3 samples");
  cJSON_Delete(j);
  TS_CHECK(sigmf_reader_options(m, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  r = NULL;
  TS_CHECK(capture_reader_open(&r, out_data, &o, err, sizeof err) == CONVOY_OK, "%s", err);
  float z[6] = {0};
  if (r) capture_reader_read(r, z, 3, &got, err, sizeof err);
  capture_reader_close(r);
  TS_CHECK(memcmp(y, z, sizeof y) == 0, "written samples read back");

  /* Never clobber; a discarded writer leaves nothing. */
  TS_CHECK(sigmf_writer_open(&w, out_meta, &wo, err, sizeof err) == CONVOY_ERR_IO && !w,
           "existing pair refused");
  TS_CHECK(strstr(err, "already exists"), "message: %s", err);
  char other[300], other_meta[300];
  path_in(other, sizeof other, "other.sigmf-data");
  path_in(other_meta, sizeof other_meta, "other.sigmf-meta");
  TS_CHECK(sigmf_writer_open(&w, other, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  sigmf_writer_discard(w);
  TS_CHECK(!exists(other) && !exists(other_meta), "discard leaves nothing");

  /* Both files or neither: a file that appears at either name while the
   * pair is written fails the commit, stays as it was, and the other file
   * is not left in place. */
  for (int which = 0; which < 2; which++) {
    const char *appears = which ? other_meta : other;
    const char *partner = which ? other : other_meta;
    w = NULL;
    TS_CHECK(sigmf_writer_open(&w, other, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
    if (!w) break;
    capture_writer_write(sigmf_writer_data(w), y, 3, err, sizeof err);
    TS_CHECK(write_text(appears, "x", 1) == 0, "%s: cannot write", appears);
    err[0] = '\0';
    TS_CHECK(sigmf_writer_commit(w, m, err, sizeof err) == CONVOY_ERR_IO,
             "commit with %s appeared meanwhile", appears);
    TS_CHECK(strstr(err, "appeared while writing"), "message: %s", err);
    struct stat sb;
    TS_CHECK(stat(appears, &sb) == 0 && sb.st_size == 1, "%s left as it was", appears);
    TS_CHECK(!exists(partner), "%s put in place without its partner", partner);
    unlink(appears);
  }
  sigmf_meta_free(m);

  /* Raw input to SigMF: a fresh document. */
  capture_datatype cu8 = {1, CAPTURE_KIND_UINT, 1, 0};
  TS_CHECK(sigmf_meta_create(&m, cu8, 2, 2.4e6, err, sizeof err) == CONVOY_OK, "%s", err);
  cJSON *c = printed(m);
  g = cJSON_GetObjectItemCaseSensitive(c, "global");
  TS_CHECK(cJSON_GetObjectItemCaseSensitive(g, "core:num_channels")->valuedouble == 2 &&
               cJSON_GetObjectItemCaseSensitive(g, "core:sample_rate")->valuedouble == 2.4e6 &&
               num(c, "captures", 0, "core:sample_start") == 0 &&
               cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(c, "annotations")),
           "created document");
  cJSON_Delete(c);
  sigmf_meta_free(m);
}

/* A rate below 1 Hz (a normalised rate of 1 decimated) cannot be
 * core:sample_rate, whose schema minimum is 1: it is written as
 * convoy:sample_rate, read back as the rate, and a rate of 1 Hz or more put
 * back where SigMF has it. */
static void test_low_rate(void) {
  char base[300], data[300];
  path_in(base, sizeof base, "slow");
  path_in(data, sizeof data, "slow.sigmf-data");
  sigmf_meta *m = parse("{\"global\": {\"core:datatype\": \"cf32_le\", \"core:version\": "
                        "\"1.2.0\", \"core:sample_rate\": 1}, \"captures\": [], "
                        "\"annotations\": []}");
  if (!m) return;
  TS_CHECK(sigmf_meta_decimate(m, 4, 0, err, sizeof err) == CONVOY_OK, "%s", err);
  capture_writer_options wo = {{1, CAPTURE_KIND_FLOAT, 4, 0}, 1, {0, 0}, 0, 0};
  sigmf_writer *w = NULL;
  TS_CHECK(sigmf_writer_open(&w, base, &wo, err, sizeof err) == CONVOY_OK, "%s", err);
  if (w) TS_CHECK(sigmf_writer_commit(w, m, err, sizeof err) == CONVOY_OK, "%s", err);
  sigmf_meta_free(m);
  m = NULL;
  TS_CHECK(sigmf_open(&m, data, err, sizeof err) == CONVOY_OK, "%s", err);
  if (!m) return;
  cJSON *j = printed(m);
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "global");
  const cJSON *ext = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "core:extensions"), 0);
  TS_CHECK(!cJSON_GetObjectItemCaseSensitive(g, "core:sample_rate") &&
               cJSON_GetObjectItemCaseSensitive(g, "convoy:sample_rate")->valuedouble == 0.25 &&
               strcmp(cJSON_GetObjectItemCaseSensitive(ext, "name")->valuestring, "convoy") == 0,
           "0.25 Hz written as convoy:sample_rate, the extension declared");
  cJSON_Delete(j);
  TS_CHECK(sigmf_meta_sample_rate(m) == 0.25, "convoy:sample_rate read back as the rate");
  TS_CHECK(sigmf_meta_set_sample_rate(m, 2.0, err, sizeof err) == CONVOY_OK, "%s", err);
  j = printed(m);
  g = cJSON_GetObjectItemCaseSensitive(j, "global");
  TS_CHECK(cJSON_GetObjectItemCaseSensitive(g, "core:sample_rate")->valuedouble == 2.0 &&
               !cJSON_GetObjectItemCaseSensitive(g, "convoy:sample_rate"),
           "a new rate of 2 Hz is core:sample_rate again");
  cJSON_Delete(j);
  sigmf_meta_free(m);
}

/* ------------------------------------------------------------- errors */

static void expect_parse_error(const char *text, const char *needle) {
  sigmf_meta *m = NULL;
  err[0] = '\0';
  convoy_status st = sigmf_meta_parse(&m, text, strlen(text), "bad.sigmf-meta", err, sizeof err);
  TS_CHECK(st == CONVOY_ERR_FORMAT && !m, "accepted: %s", text);
  TS_CHECK(strstr(err, "bad.sigmf-meta") && strstr(err, needle), "message '%s' lacks '%s'", err,
           needle);
  sigmf_meta_free(m);
}

static void test_errors(void) {
  expect_parse_error("{\n  \"global\": {\n    \"core:datatype\": \"cu8\",,\n  }\n}",
                     "invalid JSON at line 3, column ");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}} x", "text after the document");
  expect_parse_error("", "empty");
  expect_parse_error("[1, 2]", "expected a JSON object");
  expect_parse_error("{\"captures\": []}", "\"global\": missing");
  expect_parse_error("{\"global\": {}}", "global.core:datatype: missing");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cs16\"}}",
                     "global.core:datatype: unknown datatype 'cs16'");
  expect_parse_error("{\"global\": {\"core:datatype\": 5}}", "expected a string");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"core:sample_rate\": -1}}",
                     "core:sample_rate: expected a positive number");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"convoy:sample_rate\": 0}}",
                     "convoy:sample_rate: expected a positive number");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"core:num_channels\": 0}}",
                     "core:num_channels: 0 channels is out of range");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"core:num_channels\": 1.5}}",
                     "expected a non-negative integer");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"captures\": {}}",
                     "\"captures\": expected an array");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"captures\": [{}]}",
                     "captures[0].core:sample_start: missing");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"annotations\": [{\"core:"
                     "sample_start\": 0}, {\"core:sample_start\": -5}]}",
                     "annotations[1].core:sample_start: expected a non-negative integer");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"annotations\": [{\"core:"
                     "sample_start\": \"0\"}]}",
                     "annotations[0].core:sample_start");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"annotations\": [3]}",
                     "annotations[0]: expected an object");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"core:offset\": 10},"
                     " \"captures\": [{\"core:sample_start\": 5}]}",
                     "is before global core:offset");
  /* A key twice: cJSON would read the first, Python's json the last. */
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\", \"core:trailing_bytes\": 0, "
                     "\"core:trailing_bytes\": 16}}",
                     "global: the key \"core:trailing_bytes\" appears twice");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"captures\": [{\"core:"
                     "sample_start\": 0}, {\"core:sample_start\": 4, \"x\": 1, \"x\": 2}]}",
                     "captures[1]: the key \"x\" appears twice");
  expect_parse_error("{\"global\": {\"core:datatype\": \"cu8\"}, \"global\": {}}",
                     "the top level: the key \"global\" appears twice");

  char meta[300], data[300];
  sigmf_meta *m = NULL;
  path_in(meta, sizeof meta, "nodata.sigmf-meta");
  const char *ok = "{\"global\": {\"core:datatype\": \"ci16_le\"}}";
  write_text(meta, ok, strlen(ok));
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_ERR_IO && !m, "missing data");
  TS_CHECK(strstr(err, "nodata.sigmf-meta: its dataset") && strstr(err, "nodata.sigmf-data") &&
               strstr(err, "is missing"),
           "message: %s", err);
  path_in(meta, sizeof meta, "nometa");
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_ERR_IO, "missing meta");
  TS_CHECK(strstr(err, "nometa.sigmf-meta") && strstr(err, "No such file"), "message: %s", err);
  path_in(meta, sizeof meta, "rec.sigmf");
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_ERR_UNSUPPORTED, "archive");
  TS_CHECK(strstr(err, "archives are not supported"), "message: %s", err);

  /* Data size not a multiple of the sample size; skip/count past the end. */
  path_in(meta, sizeof meta, "odd.sigmf-meta");
  path_in(data, sizeof data, "odd.sigmf-data");
  write_text(meta, ok, strlen(ok));
  write_text(data, "abcdefg", 7);
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_OK, "%s", err);
  if (m) {
    capture_reader_options o;
    sigmf_reader_options(m, &o, err, sizeof err);
    capture_reader *r = NULL;
    TS_CHECK(capture_reader_open(&r, sigmf_meta_data_path(m), &o, err, sizeof err) ==
                 CONVOY_ERR_FORMAT,
             "odd data size");
    TS_CHECK(strstr(err, "odd.sigmf-data: size 7 bytes is not a multiple of the sample size 4 "
                         "(ci16_le)"),
             "message: %s", err);
    write_text(data, "abcdefgh", 8);
    o.skip = 1;
    o.count = 2;
    TS_CHECK(capture_reader_open(&r, sigmf_meta_data_path(m), &o, err, sizeof err) ==
                 CONVOY_ERR_FORMAT,
             "count past the end");
    TS_CHECK(strstr(err, "odd.sigmf-data: skip 1 + count 2 samples is past the end (2 samples)"),
             "message: %s", err);
    sigmf_meta_free(m);
  }
  /* Supported shapes that are refused later with a reason. */
  path_in(meta, sizeof meta, "only.sigmf-meta");
  const char *only = "{\"global\": {\"core:datatype\": \"cu8\", \"core:metadata_only\": true}}";
  write_text(meta, only, strlen(only));
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_ERR_UNSUPPORTED, "metadata only");
  path_in(meta, sizeof meta, "hdr.sigmf-meta");
  path_in(data, sizeof data, "hdr.sigmf-data");
  const char *hdr = "{\"global\": {\"core:datatype\": \"cu8\"}, \"captures\": [{\"core:sample_"
                    "start\": 0}, {\"core:sample_start\": 4, \"core:header_bytes\": 8}]}";
  write_text(meta, hdr, strlen(hdr));
  write_text(data, "ab", 2);
  TS_CHECK(sigmf_open(&m, meta, err, sizeof err) == CONVOY_OK, "%s", err);
  if (m) {
    capture_reader_options o;
    TS_CHECK(sigmf_reader_options(m, &o, err, sizeof err) == CONVOY_ERR_UNSUPPORTED, "headers");
    TS_CHECK(strstr(err, "captures[1].core:header_bytes"), "message: %s", err);
    sigmf_meta_free(m);
  }
}

static void test_datetime(void) {
  static const struct {
    const char *in;
    double add;
    const char *out;
  } cases[] = {{"2020-02-29T23:59:59.999999999Z", 1e-9, "2020-03-01T00:00:00.000000000Z"},
               {"2020-01-01T00:00:00Z", -1.5, "2019-12-31T23:59:58.5Z"},
               {"2020-01-01T00:00:00Z", 0.0, "2020-01-01T00:00:00Z"},
               {"2023-06-01T12:00:00.250Z", 86400.25, "2023-06-02T12:00:00.500Z"},
               {"1999-12-31T23:59:59.5Z", 0.5, "2000-01-01T00:00:00.0Z"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[64] = "";
    TS_CHECK(sj_datetime_add(cases[i].in, cases[i].add, out, sizeof out) == 0 &&
                 strcmp(out, cases[i].out) == 0,
             "%s + %g = %s, expected %s", cases[i].in, cases[i].add, out, cases[i].out);
  }
  static const char *const bad[] = {"2020-01-01",
                                    "2020-01-01T00:00:00",
                                    "2020-13-01T00:00:00Z",
                                    "2020-01-01T00:00:00.Z",
                                    "2020-01-01T00:00:00+01:00",
                                    ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char out[64];
    TS_CHECK(sj_datetime_add(bad[i], 1.0, out, sizeof out) == -1, "accepted '%s'", bad[i]);
  }
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/convoy_sigmf_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_spec_example();
  test_unknown_keys();
  test_decimate();
  test_shift();
  test_retune_and_clip();
  test_offset();
  test_record();
  test_writer_pair();
  test_low_rate();
  test_errors();
  test_datetime();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
  return ts_finish();
}
