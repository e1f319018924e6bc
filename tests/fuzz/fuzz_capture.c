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
 * back: integer codes up to 16 bits must come back exactly). A document
 * that parses is also written as rec.sigmf-meta beside a small dataset
 * rec.sigmf-data (header, frames, trailer as it describes them, bytes from
 * the input) in a temporary directory, and goes through the file code:
 * sigmf_open (by each of its names, with global core:dataset), the capture
 * reader on the dataset (by offset, sequentially from a file and from a
 * pipe, with skip and count), and the writers (capture_writer by name and on
 * a descriptor, sigmf_writer), whose output is opened and read back:
 *   - a dataset opens exactly when its size, less header and trailer, is a
 *     whole number of frames; every way of reading it gives its bytes, and
 *     the float reads their conversion;
 *   - what the writers commit holds the frames written (integer codes up to
 *     16 bits unchanged), and the SigMF pair opens again with its datatype
 *     and channels; a writer refuses an existing file without overwrite;
 *   - every refusal is a one-line message.
 * A property that does not hold aborts, which the fuzzer reports like a
 * crash.
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
#define _POSIX_C_SOURCE 200809L

#include "capture.h"
#include "fuzz_property.h"
#include "fuzz_tmp.h"
#include "sigmf.h"
#include "sigmf_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ------------------------------------------------------------- files */

static void one_line(convoy_status st, const char *err, const char *what) {
  if (st == CONVOY_OK) return;
  if (!err[0] || strchr(err, '\n')) fuzz_violated(what, "message empty or not one line");
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* The dataset written for a document: header, frames, trailer. */
typedef struct dataset {
  unsigned char *bytes;
  size_t size;
  int64_t header, trailer, frame_bytes;
} dataset;

static void make_dataset(const capture_reader_options *o, const uint8_t *data, size_t size,
                         uint64_t *seed, dataset *d) {
  d->header = o->header_bytes;
  d->trailer = o->trailing_bytes;
  d->frame_bytes = (int64_t)capture_datatype_sample_bytes(o->type) * o->channels;
  size_t n;
  if (d->header > 4096 || d->trailer > 4096)
    n = (size_t)(next(seed) % 64); /* smaller than its header or trailer */
  else
    n = (size_t)(d->header + d->trailer + (int64_t)(next(seed) % 9) * d->frame_bytes +
                 (next(seed) % 8 == 0 ? (int64_t)(next(seed) % 3) + 1 : 0));
  d->size = n;
  d->bytes = malloc(n + 1);
  if (!d->bytes) abort();
  for (size_t i = 0; i < n; i++) d->bytes[i] = size ? data[(i * 7 + 3) % size] : (uint8_t)i;
}

/* Frames of the dataset as the reader should see it; -1 when it must refuse. */
static int64_t expected_frames(const dataset *d) {
  const int64_t s = (int64_t)d->size;
  if (d->header > s || d->trailer > s - d->header) return -1;
  const int64_t body = s - d->header - d->trailer;
  return body % d->frame_bytes == 0 ? body / d->frame_bytes : -1;
}

/* Reads every delivered frame of r as stored bytes; aborts on a read error. */
static unsigned char *read_all_raw(capture_reader *r, int64_t frame_bytes, int64_t *frames) {
  int64_t n = capture_reader_frames(r), got = 0;
  unsigned char *buf = malloc((size_t)((n > 0 ? n : 1) * frame_bytes));
  if (!buf) abort();
  char err[256] = "";
  if (capture_reader_read_raw(r, buf, n, &got, err, sizeof err) != CONVOY_OK || got != n)
    fuzz_violated("reader", "a file it measured does not read");
  *frames = got;
  return buf;
}

static void check_reader(const char *path, const capture_reader_options *ro, const dataset *d,
                         uint64_t *seed) {
  capture_reader *r = NULL;
  char err[512] = "";
  convoy_status st = capture_reader_open(&r, path, ro, err, sizeof err);
  one_line(st, err, "reader open");
  const int64_t want = expected_frames(d);
  if ((st == CONVOY_OK) != (want >= 0))
    fuzz_violated("reader", "opens exactly when the size is header + whole frames + trailer");
  if (st != CONVOY_OK) return;
  fuzz_require(capture_reader_frames(r) == want && capture_reader_file_frames(r) == want,
               "the reader counts the frames between header and trailer");
  int64_t n = 0;
  unsigned char *raw = read_all_raw(r, d->frame_bytes, &n);
  const size_t bytes = (size_t)(n * d->frame_bytes);
  fuzz_require(bytes == 0 || memcmp(raw, d->bytes + d->header, bytes) == 0,
               "the frames read are the bytes after the header");
  const int comps = capture_datatype_components(ro->type) * ro->channels;
  const size_t values = (size_t)n * (size_t)comps;
  float *want_f = malloc((values ? values : 1) * sizeof(float));
  float *got_f = malloc((values ? values : 1) * sizeof(float));
  if (!want_f || !got_f) abort();
  capture_to_float(ro->type, capture_scaling_default(ro->type), raw, values, want_f);
  capture_reader_rewind(r);
  int64_t got = 0;
  st = capture_reader_read(r, got_f, n, &got, err, sizeof err);
  fuzz_require(st == CONVOY_OK && got == n &&
                   (values == 0 || memcmp(got_f, want_f, values * sizeof(float)) == 0),
               "the float read is the conversion of the bytes");
  if (n > 0) { /* a range by offset */
    const int64_t first = (int64_t)(next(seed) % (uint64_t)n);
    const int64_t k = 1 + (int64_t)(next(seed) % (uint64_t)(n - first));
    unsigned char *part = malloc((size_t)(k * d->frame_bytes));
    if (!part) abort();
    st = capture_reader_read_raw_at(r, first, k, part, err, sizeof err);
    fuzz_require(st == CONVOY_OK &&
                     memcmp(part, raw + first * d->frame_bytes, (size_t)(k * d->frame_bytes)) == 0,
                 "a range read by offset is those bytes");
    free(part);
    st = capture_reader_read_raw_at(r, first, n - first + 1, NULL, err, sizeof err);
    fuzz_require(st == CONVOY_ERR_INVALID_ARGUMENT, "a range past the end is refused");
    one_line(st, err, "range");
  }
  capture_reader_close(r);

  /* skip and count */
  capture_reader_options so = *ro;
  so.skip = (int64_t)(next(seed) % (uint64_t)(n + 2));
  so.count = (int64_t)(next(seed) % (uint64_t)(n + 3)) - 1;
  const int ok = !(so.skip > 0 && so.skip >= n) &&
                 !(so.count == 0 || (so.count > 0 && so.count > n - so.skip));
  st = capture_reader_open(&r, path, &so, err, sizeof err);
  one_line(st, err, "reader skip");
  fuzz_require((st == CONVOY_OK) == ok, "skip and count inside the frames open");
  if (st == CONVOY_OK) {
    const int64_t m = so.count < 0 ? n - so.skip : so.count;
    fuzz_require(capture_reader_frames(r) == m, "skip and count select their frames");
    int64_t k = 0;
    unsigned char *sel = read_all_raw(r, d->frame_bytes, &k);
    fuzz_require(k == 0 ||
                     memcmp(sel, raw + so.skip * d->frame_bytes, (size_t)(k * d->frame_bytes)) == 0,
                 "skip and count read their frames");
    free(sel);
    capture_reader_close(r);
  }

  /* In sequence: the file on a descriptor, then a pipe (no trailer). */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) abort();
  st = capture_reader_open_fd(&r, fd, "file", ro, err, sizeof err);
  fuzz_require(st == CONVOY_OK && capture_reader_frames(r) == n,
               "a file on a descriptor is measured as by name");
  int64_t k = 0;
  unsigned char *seq = read_all_raw(r, d->frame_bytes, &k);
  fuzz_require(k == n && (bytes == 0 || memcmp(seq, raw, bytes) == 0),
               "a file read in sequence gives the same frames");
  free(seq);
  capture_reader_close(r);
  close(fd);
  free(want_f);
  free(got_f);
  free(raw);
}

/* The dataset through a pipe: the frames after the header, or the error
 * that it ends inside its header or a frame. */
static void check_pipe(const capture_reader_options *ro, const dataset *d) {
  if (d->size > 32768 || ro->trailing_bytes > 0) return; /* fits a pipe's buffer */
  int p[2];
  if (pipe(p) != 0) abort();
  if (d->size && write(p[1], d->bytes, d->size) != (ssize_t)d->size) abort();
  close(p[1]);
  capture_reader *r = NULL;
  char err[512] = "";
  convoy_status st = capture_reader_open_fd(&r, p[0], "stdin", ro, err, sizeof err);
  one_line(st, err, "pipe open");
  const int64_t body = (int64_t)d->size - d->header;
  if (body < 0) {
    fuzz_require(st == CONVOY_ERR_FORMAT, "a pipe that ends in its header is refused");
  } else {
    fuzz_require(st == CONVOY_OK && capture_reader_frames(r) == -1,
                 "a pipe opens with an unknown length");
    enum { MAX = 64 };
    unsigned char *buf = malloc((size_t)(MAX * d->frame_bytes));
    if (!buf) abort();
    int64_t total = 0, got = 0;
    for (;;) {
      st = capture_reader_read_raw(r, buf, MAX, &got, err, sizeof err);
      if (st != CONVOY_OK || got == 0) break;
      fuzz_require(memcmp(buf, d->bytes + d->header + total * d->frame_bytes,
                          (size_t)(got * d->frame_bytes)) == 0,
                   "a pipe gives its frames in order");
      total += got;
    }
    one_line(st, err, "pipe read");
    if (body % d->frame_bytes == 0)
      fuzz_require(st == CONVOY_OK && total == body / d->frame_bytes &&
                       capture_reader_frames(r) == total,
                   "a pipe of whole frames reads them all");
    else
      fuzz_require(st == CONVOY_ERR_FORMAT, "a pipe that ends inside a frame is refused");
    free(buf);
  }
  capture_reader_close(r);
  close(p[0]);
}

/* The frames of the dataset written back by the writers and read again. */
static void check_writers(const sigmf_meta *m, const capture_reader_options *ro, const dataset *d,
                          int64_t n) {
  const int comps = capture_datatype_components(ro->type) * ro->channels;
  const size_t values = (size_t)n * (size_t)comps;
  float *x = malloc((values ? values : 1) * sizeof(float));
  if (!x) abort();
  capture_to_float(ro->type, capture_scaling_default(ro->type), d->bytes + d->header, values, x);
  const int exact = ro->type.kind != CAPTURE_KIND_FLOAT && ro->type.width <= 2;
  capture_writer_options wo;
  memset(&wo, 0, sizeof wo);
  wo.type = ro->type;
  wo.channels = ro->channels;
  char err[512] = "", out[1024], base[1024], meta[1024], data[1024];
  fuzz_tmp_path(out, sizeof out, "out.raw");

  capture_writer *w = NULL;
  convoy_status st = capture_writer_open(&w, out, &wo, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a capture writer opens in an empty directory");
  st = capture_writer_write(w, x, n, err, sizeof err);
  fuzz_require(st == CONVOY_OK && capture_writer_frames(w) == n, "a writer takes the frames");
  fuzz_require(!exact || capture_writer_tally(w).clipped == 0, "codes read back do not clip");
  st = capture_writer_commit(w, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a capture writer commits");
  struct stat sb;
  fuzz_require(stat(out, &sb) == 0 && sb.st_size == n * d->frame_bytes,
               "the file holds the frames written");
  w = NULL;
  st = capture_writer_open(&w, out, &wo, err, sizeof err);
  fuzz_require(st == CONVOY_ERR_IO && !w, "an existing file is refused without overwrite");
  one_line(st, err, "writer exists");
  unsigned char *written = malloc((size_t)(n * d->frame_bytes) + 1);
  if (!written) abort();
  int fd = open(out, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, written, (size_t)(n * d->frame_bytes) + 1) != n * d->frame_bytes) abort();
  close(fd);
  if (exact)
    fuzz_require(n == 0 || memcmp(written, d->bytes + d->header, (size_t)(n * d->frame_bytes)) == 0,
                 "integer codes up to 16 bits are written back unchanged");

  /* On a descriptor: the same bytes. */
  fd = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) abort();
  st = capture_writer_open_fd(&w, fd, "stdout", &wo, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a writer opens on a descriptor");
  st = capture_writer_write(w, x, n, err, sizeof err);
  if (st == CONVOY_OK)
    st = capture_writer_commit(w, err, sizeof err);
  else
    capture_writer_discard(w);
  close(fd);
  fuzz_require(st == CONVOY_OK && stat(out, &sb) == 0 && sb.st_size == n * d->frame_bytes,
               "a writer on a descriptor writes the frames");
  unlink(out);

  /* A SigMF pair of the frames and the document. */
  fuzz_tmp_path(base, sizeof base, "out");
  fuzz_tmp_path(meta, sizeof meta, "out.sigmf-meta");
  fuzz_tmp_path(data, sizeof data, "out.sigmf-data");
  sigmf_writer *sw = NULL;
  st = sigmf_writer_open(&sw, base, &wo, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a SigMF writer opens in an empty directory");
  st = capture_writer_write(sigmf_writer_data(sw), x, n, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a SigMF writer takes the frames");
  sigmf_meta *copy = sigmf_meta_copy(m);
  if (!copy) abort();
  st = sigmf_writer_commit(sw, copy, err, sizeof err);
  one_line(st, err, "SigMF commit");
  if (st != CONVOY_OK) {
    fuzz_require(!exists(meta) && !exists(data), "a failed commit leaves neither file");
  } else {
    sigmf_meta *again = NULL;
    st = sigmf_open(&again, meta, err, sizeof err);
    if (st != CONVOY_OK) fuzz_violated("a committed SigMF pair opens", err);
    capture_reader_options o2;
    st = sigmf_reader_options(again, &o2, err, sizeof err);
    fuzz_require(st == CONVOY_OK && !memcmp(&o2.type, &ro->type, sizeof o2.type) &&
                     o2.channels == ro->channels && o2.header_bytes == 0 && o2.trailing_bytes == 0,
                 "a committed pair has the datatype and channels written, no header");
    fuzz_require(stat(sigmf_meta_data_path(again), &sb) == 0 && sb.st_size == n * d->frame_bytes,
                 "a committed dataset holds the frames written");
    int dfd = open(data, O_RDONLY | O_CLOEXEC);
    unsigned char *pair = malloc((size_t)(n * d->frame_bytes) + 1);
    if (dfd < 0 || !pair || read(dfd, pair, (size_t)(n * d->frame_bytes) + 1) != n * d->frame_bytes)
      abort();
    close(dfd);
    fuzz_require(n == 0 || memcmp(pair, written, (size_t)(n * d->frame_bytes)) == 0,
                 "both writers write the same bytes");
    free(pair);
    sigmf_meta_free(again);
    st = sigmf_writer_open(&sw, base, &wo, err, sizeof err);
    fuzz_require(st == CONVOY_ERR_IO && !sw, "an existing pair is refused without overwrite");
    one_line(st, err, "SigMF writer exists");
  }
  sigmf_meta_free(copy);
  unlink(meta);
  unlink(data);
  free(written);
  free(x);
}

static void fuzz_files(const sigmf_meta *m, const uint8_t *data, size_t size, uint64_t seed) {
  capture_reader_options ro;
  if (sigmf_reader_options(m, &ro, NULL, 0) != CONVOY_OK) return;
  char meta[1024], dpath[1024], base[1024], dir[1024];
  fuzz_tmp_path(dir, sizeof dir, "dir"); /* for core:dataset naming a directory */
  mkdir(dir, 0700);
  dataset d;
  make_dataset(&ro, data, size, &seed, &d);
  fuzz_tmp_write(meta, sizeof meta, "rec.sigmf-meta", data, size);
  fuzz_tmp_write(dpath, sizeof dpath, "rec.sigmf-data", d.bytes, d.size);
  fuzz_tmp_path(base, sizeof base, "rec");

  sigmf_meta *mo = NULL;
  char err[512] = "";
  convoy_status st = sigmf_open(&mo, meta, err, sizeof err);
  one_line(st, err, "sigmf_open");
  for (int k = 0; k < 2; k++) { /* by the data file's name and by the base */
    sigmf_meta *other = NULL;
    convoy_status st2 = sigmf_open(&other, k ? base : dpath, err, sizeof err);
    fuzz_require(st2 == st, "a pair opens alike by each of its names");
    sigmf_meta_free(other);
  }
  if (st == CONVOY_OK) {
    char *a = sigmf_meta_print(m), *b = sigmf_meta_print(mo);
    fuzz_require(!a || !b || strcmp(a, b) == 0, "sigmf_open reads what the text parses to");
    free(a);
    free(b);
    const char *dp = sigmf_meta_data_path(mo);
    fuzz_require(dp != NULL, "an open pair names its dataset");
    capture_reader_options o2;
    if (strcmp(dp, dpath) == 0 && sigmf_reader_options(mo, &o2, err, sizeof err) == CONVOY_OK) {
      check_reader(dp, &o2, &d, &seed);
      check_pipe(&o2, &d);
      const int64_t n = expected_frames(&d);
      if (n >= 0) check_writers(mo, &o2, &d, n);
    }
  }
  sigmf_meta_free(mo);
  unlink(meta);
  unlink(dpath);
  free(d.bytes);
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
  fuzz_files(m, data, size, seed);
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
