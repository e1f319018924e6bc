/* test_taps_fuzz.c - mutation fuzzing of the taps loaders and the spec parser.
 *
 * Valid text, .npy, raw float32 and WAV inputs are mutated (bit flips,
 * random or "interesting" bytes written, inserted or deleted, chunks
 * duplicated, truncation), written to a temporary file and loaded. Every
 * load must either succeed with at least one tap, all finite, or fail with a
 * one-line message. Design specs are mutated and generated the same way and
 * must parse to an in-range design or be refused with a message; short
 * designs are also computed and checked. Bounded (a few thousand inputs,
 * fewer under CONVOY_TEST_QUICK) and seeded by ts_seed, so a failure can be
 * replayed. Meant to run under AddressSanitizer/UBSan as well. */
#define _POSIX_C_SOURCE 200809L

#include "convoy_taps.h"
#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static void buf_reserve(buf *b, size_t n) {
  if (n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < n) cap *= 2;
  b->p = realloc(b->p, cap);
  if (!b->p) abort();
  b->cap = cap;
}

static void buf_set(buf *b, const void *data, size_t n) {
  buf_reserve(b, n + 1);
  memcpy(b->p, data, n);
  b->n = n;
}

/* ------------------------------------------------------------- mutation */

static const unsigned char interesting[] = {
    '0', '1', '9', '.', 'e', 'E',  '-', '+', ',', ' ', '\t', '\n', '\r', '#',  'n',  'a',  'i',
    'f', 'x', 'p', '(', ')', '\'', ':', '[', ']', '{', '}',  'L',  0,    0x7f, 0x80, 0xff, 0x93};

static unsigned char random_byte(ts_rng *rng) {
  if (ts_uniform(rng) < 0.6) return interesting[ts_range(rng, 0, sizeof interesting - 1)];
  return (unsigned char)ts_range(rng, 0, 255);
}

/* Position biased towards the start (where headers live) half the time. */
static size_t random_pos(ts_rng *rng, size_t n) {
  if (n == 0) return 0;
  size_t hi = ts_uniform(rng) < 0.5 && n > 128 ? 127 : n - 1;
  return (size_t)ts_range(rng, 0, (int64_t)hi);
}

static void mutate(ts_rng *rng, buf *b) {
  int rounds = (int)ts_log_range(rng, 1, 16);
  for (int r = 0; r < rounds; r++) {
    size_t pos = random_pos(rng, b->n);
    switch (ts_range(rng, 0, 7)) {
    case 0: /* flip one bit */
      if (b->n) b->p[pos] ^= (unsigned char)(1u << ts_range(rng, 0, 7));
      break;
    case 1: /* overwrite a byte */
      if (b->n) b->p[pos] = random_byte(rng);
      break;
    case 2: /* insert bytes */
    case 3: {
      size_t k = (size_t)ts_log_range(rng, 1, 8);
      buf_reserve(b, b->n + k + 1);
      memmove(b->p + pos + k, b->p + pos, b->n - pos);
      for (size_t i = 0; i < k; i++) b->p[pos + i] = random_byte(rng);
      b->n += k;
      break;
    }
    case 4: { /* delete bytes */
      size_t k = (size_t)ts_log_range(rng, 1, 16);
      if (pos + k > b->n) k = b->n - pos;
      memmove(b->p + pos, b->p + pos + k, b->n - pos - k);
      b->n -= k;
      break;
    }
    case 5: { /* duplicate a chunk */
      size_t k = (size_t)ts_log_range(rng, 1, 64);
      if (pos + k > b->n) k = b->n - pos;
      buf_reserve(b, b->n + k + 1);
      memmove(b->p + pos + k, b->p + pos, b->n - pos);
      b->n += k;
      break;
    }
    case 6: /* truncate */
      if (ts_uniform(rng) < 0.3) b->n = pos;
      break;
    default: /* overwrite a 4-byte word with an extreme value */
      if (b->n >= 4) {
        static const uint32_t words[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0xffffffffu,
                                         0x7fffffffu, 0x80000000u, 0x00000000u, 0x00010000u};
        uint32_t w = words[ts_range(rng, 0, 7)];
        size_t at = pos + 4 <= b->n ? pos : b->n - 4;
        memcpy(b->p + at, &w, 4);
      }
      break;
    }
  }
}

/* ------------------------------------------------------------- seeds */

typedef struct seed {
  const char *ext;
  buf data;
} seed;

static void npy_seed(buf *b, int major, const char *descr, int item, int n) {
  char dict[128];
  snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr,
           n);
  size_t pre = major == 1 ? 10 : 12, dlen = strlen(dict), hlen = dlen + 1;
  while ((pre + hlen) % 64) hlen++;
  size_t total = pre + hlen + (size_t)n * (size_t)item;
  unsigned char *p = calloc(total, 1);
  memcpy(p, "\x93NUMPY", 6);
  p[6] = (unsigned char)major;
  for (size_t i = 0; i < pre - 8; i++) p[8 + i] = (unsigned char)(hlen >> (8 * i));
  memset(p + pre, ' ', hlen);
  memcpy(p + pre, dict, dlen);
  p[pre + hlen - 1] = '\n';
  for (int i = 0; i < n; i++) {
    double v = 1.0 / (i + 1);
    unsigned char *q = p + pre + hlen + (size_t)i * (size_t)item;
    if (item == 4) {
      float f = (float)v;
      memcpy(q, &f, 4);
    } else {
      memcpy(q, &v, 8);
    }
    if (descr[0] == '>')
      for (int a = 0, z = item - 1; a < z; a++, z--) {
        unsigned char t = q[a];
        q[a] = q[z];
        q[z] = t;
      }
  }
  buf_set(b, p, total);
  free(p);
}

static void wav_seed(buf *b) {
  char path[512];
  snprintf(path, sizeof path, "%s/seed.wav", dir);
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.samplerate = 48000;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
  if (!sf) abort();
  float frames[64];
  for (int i = 0; i < 64; i++) frames[i] = (float)(i % 9) / 16.0f;
  sf_writef_float(sf, frames, 32);
  sf_close(sf);
  FILE *f = fopen(path, "rb");
  unsigned char tmp[4096];
  size_t n = f ? fread(tmp, 1, sizeof tmp, f) : 0;
  if (f) fclose(f);
  unlink(path);
  buf_set(b, tmp, n);
}

/* ------------------------------------------------------------- checks */

static int loads, loads_ok;

static void load_and_check(ts_rng *rng, const seed *s, const buf *b, int iter) {
  static const char *const any_ext[] = {"txt", "npy", "f32", "wav", "xyz", "csv", "bin", ""};
  const char *ext = ts_uniform(rng) < 0.8 ? s->ext : any_ext[ts_range(rng, 0, 7)];
  char path[512];
  snprintf(path, sizeof path, "%s/in%s%s", dir, *ext ? "." : "", ext);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->p, 1, b->n, f) != b->n) abort();
  fclose(f);

  convoy_taps_format fmt =
      ts_uniform(rng) < 0.8 ? CONVOY_TAPS_AUTO : (convoy_taps_format)ts_range(rng, 1, 4);
  convoy_taps t;
  char err[512];
  memset(err, 'Z', sizeof err);
  convoy_status st = convoy_taps_load(path, fmt, &t, err, sizeof err);
  loads++;
  if (st == CONVOY_OK) {
    loads_ok++;
    int good = t.channels >= 1 && t.length >= 1 && t.data != NULL;
    for (int64_t i = 0; good && i < (int64_t)t.channels * t.length; i++)
      good = isfinite(t.data[i]) != 0;
    TS_CHECK(good, "iteration %d (%s, format %d): loaded taps are empty or not finite", iter, path,
             (int)fmt);
    convoy_taps_free(&t);
  } else {
    int known = st == CONVOY_ERR_FORMAT || st == CONVOY_ERR_IO || st == CONVOY_ERR_OUT_OF_MEMORY;
    size_t len = strnlen(err, sizeof err);
    TS_CHECK(known && len > 0 && len < sizeof err && !strchr(err, '\n'),
             "iteration %d (%s, format %d): status %s, message '%.200s'", iter, path, (int)fmt,
             convoy_strerror(st), len < sizeof err ? err : "(not terminated)");
    TS_CHECK(t.data == NULL && t.length == 0, "iteration %d: taps not left empty", iter);
  }
}

/* ------------------------------------------------------------- specs */

static const char *const spec_seeds[] = {"lowpass:cutoff=4000,width=500,atten=80",
                                         "highpass:cutoff=300,width=200,atten=60,rate=8000",
                                         "bandpass:low=300,high=3400,taps=511",
                                         "bandstop:low=50,high=70,width=10,atten=40",
                                         "lowpass:cutoff=1000,taps=64",
                                         "highpass:cutoff=0.25,width=0.1,rate=1"};

static const char *const spec_tokens[] = {
    "lowpass", "highpass", "bandpass", "bandstop", ":",    ",",   "=",     "cutoff", "low",
    "high",    "width",    "atten",    "taps",     "rate", "1",   "0",     "-",      ".",
    "e",       "1e308",    "nan",      "inf",      "4000", "500", "8000",  "0x10",   " ",
    "255",     "3",        "1e-300",   "16777217", "20",   "200", "24000", "\xff"};

static int specs, specs_ok, designs;

static void spec_check(ts_rng *rng, const char *spec, int iter) {
  static const double rates[] = {0, 1, 8000, 44100, 48000, 1e9, -1};
  double rate = rates[ts_range(rng, 0, 6)];
  convoy_design d;
  char err[256];
  memset(err, 'Z', sizeof err);
  convoy_status st = convoy_design_parse(spec, rate, &d, err, sizeof err);
  specs++;
  size_t len = strnlen(err, sizeof err);
  if (st != CONVOY_OK) {
    TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT && len > 0 && len < sizeof err && !strchr(err, '\n'),
             "spec %d '%s': status %s, message '%.200s'", iter, spec, convoy_strerror(st),
             len < sizeof err ? err : "(not terminated)");
    return;
  }
  specs_ok++;
  int two = d.type == CONVOY_DESIGN_BANDPASS || d.type == CONVOY_DESIGN_BANDSTOP;
  double nyq = d.rate / 2;
  int sane =
      d.rate > 0 && isfinite(d.rate) && d.atten >= 20 && d.atten <= 200 && d.taps >= 0 &&
      d.taps <= (1 << 24) && d.width >= 0 && isfinite(d.width) && (d.width > 0) != (d.taps > 0) &&
      (two ? (d.low > 0 && d.low < d.high && d.high < nyq) : (d.cutoff > 0 && d.cutoff < nyq));
  TS_CHECK(sane, "spec %d '%s' accepted out of range", iter, spec);
  if (!sane) return;

  /* Compute the short ones. */
  double est = d.taps > 0 ? (double)d.taps : (d.atten - 7.95) / (14.36 * d.width / d.rate) + 2;
  if (est > 4096) return;
  convoy_taps t;
  st = convoy_design_taps(&d, &t, err, sizeof err);
  designs++;
  if (st != CONVOY_OK) {
    /* Only a gain too small to normalise by may fail after a good parse. */
    TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT && strstr(err, "no gain"),
             "spec %d '%s': design failed: %s", iter, spec, err);
    return;
  }
  int good = t.channels == 1 && t.length >= 1 && (d.taps == 0 || t.length == d.taps) &&
             (d.taps > 0 || t.length % 2 == 1);
  for (int64_t i = 0; good && i < t.length; i++)
    good = isfinite(t.data[i]) && t.data[i] == t.data[t.length - 1 - i];
  TS_CHECK(good, "spec %d '%s': %lld taps, bad length, not finite or not symmetric", iter, spec,
           (long long)t.length);
  convoy_taps_free(&t);
}

/* A well-formed spec: the keys its type needs (each sometimes left out),
 * values mostly plausible for the rate, sometimes not, and now and then a
 * key that does not belong. */
static size_t structured_spec(ts_rng *rng, char *spec, size_t size) {
  static const char *const types[] = {"lowpass", "highpass", "bandpass", "bandstop"};
  static const char *const keys[] = {"cutoff", "low", "high", "width", "atten", "taps", "rate"};
  int type = (int)ts_range(rng, 0, 3);
  double rate = (double)ts_log_range(rng, 1000, 200000);
  double nyq = rate / 2;
  double a = nyq * ts_uniform(rng), b = nyq * ts_uniform(rng);
  double w = nyq * pow(ts_uniform(rng), 2) / 4;
  char items[8][64];
  int n_items = 0;
#define ITEM(p, ...)                                                                               \
  if (ts_uniform(rng) < (p)) snprintf(items[n_items++], sizeof items[0], __VA_ARGS__)
  if (type < 2) {
    ITEM(0.95, "cutoff=%.6g", a);
  } else {
    ITEM(0.95, "low=%.6g", a < b ? a : b);
    ITEM(0.95, "high=%.6g", a < b ? b : a);
  }
  if (ts_uniform(rng) < 0.6) {
    ITEM(0.95, "width=%.6g", ts_uniform(rng) < 0.05 ? -w : w);
  } else {
    ITEM(0.95, "taps=%lld", (long long)ts_log_range(rng, 1, 3000));
  }
  ITEM(0.5, "atten=%d", (int)ts_range(rng, 15, 205));
  ITEM(0.8, "rate=%.6g", rate);
  ITEM(0.1, "%s=%.6g", keys[ts_range(rng, 0, 6)], nyq * ts_uniform(rng));
#undef ITEM
  size_t n = (size_t)snprintf(spec, size, "%s:", types[type]);
  for (int i = 0; i < n_items && n < size; i++)
    n += (size_t)snprintf(spec + n, size - n, "%s%s", i ? "," : "", items[i]);
  return n < size ? n : size - 1;
}

static void fuzz_specs(ts_rng *rng, int iterations) {
  char spec[256];
  for (int it = 0; it < iterations; it++) {
    size_t n = 0;
    double kind = ts_uniform(rng);
    if (kind < 0.4) {
      n = structured_spec(rng, spec, sizeof spec);
    } else if (kind < 0.7) {
      const char *s = spec_seeds[ts_range(rng, 0, 5)];
      buf b = {NULL, 0, 0};
      buf_set(&b, s, strlen(s));
      mutate(rng, &b);
      n = b.n < sizeof spec - 1 ? b.n : sizeof spec - 1;
      memcpy(spec, b.p, n);
      free(b.p);
    } else {
      int k = (int)ts_range(rng, 0, 24);
      for (int i = 0; i < k; i++) {
        const char *tok =
            spec_tokens[ts_range(rng, 0, sizeof spec_tokens / sizeof *spec_tokens - 1)];
        size_t tl = strlen(tok);
        if (n + tl >= sizeof spec) break;
        memcpy(spec + n, tok, tl);
        n += tl;
      }
    }
    spec[n] = '\0'; /* an embedded NUL just ends the spec early */
    spec_check(rng, spec, it);
  }
}

/* ------------------------------------------------------------- main */

static void remove_dir(void) {
  DIR *dp = opendir(dir);
  if (dp) {
    struct dirent *e;
    char p[600];
    while ((e = readdir(dp)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(dp);
  }
  rmdir(dir);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/convoy_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_taps_fuzz"));

  enum { N_SEEDS = 9 };
  seed seeds[N_SEEDS];
  memset(seeds, 0, sizeof seeds);
  const char *texts[] = {"0.5\n-0.25\n1e-3\n", "# c\n1, 2, 3\r\n4 5\t6 # x\n",
                         "1e-30 -7.5e+3 .5 5."};
  for (int i = 0; i < 3; i++) {
    seeds[i].ext = i == 1 ? "csv" : "txt";
    buf_set(&seeds[i].data, texts[i], strlen(texts[i]));
  }
  seeds[3].ext = "npy";
  npy_seed(&seeds[3].data, 1, "<f4", 4, 6);
  seeds[4].ext = "npy";
  npy_seed(&seeds[4].data, 2, ">f8", 8, 3);
  seeds[5].ext = "npy";
  npy_seed(&seeds[5].data, 3, "<f8", 8, 2);
  const float raw[5] = {0.5f, -0.25f, 1e-3f, 7.0f, -1e30f};
  seeds[6].ext = "f32";
  buf_set(&seeds[6].data, raw, sizeof raw);
  seeds[7].ext = "raw";
  buf_set(&seeds[7].data, raw, 4);
  seeds[8].ext = "wav";
  wav_seed(&seeds[8].data);

  int iterations = ts_quick() ? 1500 : 4000;
  buf b = {NULL, 0, 0};
  for (int it = 0; it < iterations; it++) {
    const seed *s = &seeds[ts_range(&rng, 0, N_SEEDS - 1)];
    buf_set(&b, s->data.p, s->data.n);
    mutate(&rng, &b);
    load_and_check(&rng, s, &b, it);
  }
  free(b.p);
  for (int i = 0; i < N_SEEDS; i++) free(seeds[i].data.p);
  printf("files: %d loaded, %d accepted\n", loads, loads_ok);

  fuzz_specs(&rng, ts_quick() ? 2000 : 6000);
  printf("specs: %d parsed, %d accepted, %d designed\n", specs, specs_ok, designs);

  remove_dir();
  return ts_finish();
}
