/*
 * fuzz_replay.c - runs a fuzz entry point (fuzz_capture.c, fuzz_taps.c) without
 * libFuzzer: every file of the corpus directory given as argv[1], then
 * seeded mutations of them (bit flips, random and JSON-significant bytes
 * written, inserted or deleted, chunks duplicated or spliced from another
 * file, numbers replaced by extreme ones, truncation). A violated property
 * aborts inside the entry point; the sanitizer build reports memory errors
 * and leaks. Seeded by ts_seed (CONVOY_TEST_SEED replays a run); up to 3000
 * mutations of each input and 150000 in all (1000 and 40000 under
 * CONVOY_TEST_QUICK). With CONVOY_FUZZ_LAST=FILE every input
 * is written to FILE before it runs, so the one that aborted is left there
 * (to replay with the libFuzzer binary, or to keep as a seed).
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The program's name in its messages (set per target in CMakeLists.txt). */
#ifndef FUZZ_NAME
#define FUZZ_NAME "fuzz_replay"
#endif

typedef struct input {
  unsigned char *p;
  size_t n;
} input;

#define MAX_INPUTS 256
#define MAX_SIZE (1 << 16)

static input corpus[MAX_INPUTS];
static int n_corpus;

static int load(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  unsigned char *p = malloc(MAX_SIZE);
  size_t n = p ? fread(p, 1, MAX_SIZE, f) : 0;
  fclose(f);
  if (!p) return -1;
  corpus[n_corpus].p = p;
  corpus[n_corpus].n = n;
  n_corpus++;
  return 0;
}

/* The input about to run, to CONVOY_FUZZ_LAST when set. */
static void run(const unsigned char *p, size_t n) {
  static const char *last;
  static int looked;
  if (!looked++) last = getenv("CONVOY_FUZZ_LAST");
  if (last && *last) {
    FILE *f = fopen(last, "wb");
    if (f) {
      fwrite(p, 1, n, f);
      fclose(f);
    }
  }
  LLVMFuzzerTestOneInput(p, n);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the directory in name order, so that a seed replays the same run. */
static int load_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char *names[MAX_INPUTS];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_INPUTS;) {
    if (e->d_name[0] == '.') continue;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    if (!names[n]) break;
    snprintf(names[n], len, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  for (int i = 0; i < n; i++) {
    if (load(names[i]) != 0) fprintf(stderr, "cannot read %s\n", names[i]);
    free(names[i]);
  }
  return 0;
}

static const char *const tokens[] = {"{",
                                     "}",
                                     "[",
                                     "]",
                                     ",",
                                     ":",
                                     "\"",
                                     "\\u0000",
                                     "null",
                                     "true",
                                     "-1",
                                     "0",
                                     "1.5",
                                     "1e308",
                                     "-1e308",
                                     "9007199254740993",
                                     "1e-320",
                                     "NaN",
                                     "\"core:sample_start\": ",
                                     "\"core:sample_count\": ",
                                     "\"core:datatype\": \"cu8\"",
                                     "\"core:frequency\": ",
                                     "\"core:num_channels\": ",
                                     "\"core:offset\": ",
                                     "\"core:global_index\": ",
                                     "\"core:datetime\": \"2020-02-29T23:59:59.999999999Z\"",
                                     "\"captures\": ",
                                     "\"annotations\": ",
                                     "\"global\": ",
                                     "\"core:header_bytes\": ",
                                     "\"core:trailing_bytes\": ",
                                     "\"core:dataset\": \"rec.sigmf-data\"",
                                     "ci16_le",
                                     "cf32_be",
                                     "_le",
                                     "_be",
                                     "\n",
                                     ".sigmf-meta",
                                     ".cs16",
                                     "/"};

static void mutate(ts_rng *rng, const input *src, unsigned char *out, size_t *n) {
  size_t len = src->n;
  memcpy(out, src->p, len);
  const int rounds = (int)ts_log_range(rng, 1, 12);
  for (int r = 0; r < rounds; r++) {
    const size_t pos = len ? (size_t)ts_range(rng, 0, (int64_t)len - 1) : 0;
    switch (ts_range(rng, 0, 6)) {
    case 0: /* flip a bit */
      if (len) out[pos] ^= (unsigned char)(1u << ts_range(rng, 0, 7));
      break;
    case 1: /* overwrite a byte */
      if (len) out[pos] = (unsigned char)ts_range(rng, 0, 255);
      break;
    case 2: { /* insert a token */
      const char *t = tokens[ts_range(rng, 0, sizeof tokens / sizeof tokens[0] - 1)];
      size_t k = strlen(t);
      if (len + k > MAX_SIZE) break;
      memmove(out + pos + k, out + pos, len - pos);
      memcpy(out + pos, t, k);
      len += k;
      break;
    }
    case 3: { /* delete a run */
      size_t k = (size_t)ts_log_range(rng, 1, 32);
      if (pos + k > len) k = len - pos;
      memmove(out + pos, out + pos + k, len - pos - k);
      len -= k;
      break;
    }
    case 4: { /* duplicate a chunk */
      size_t k = (size_t)ts_log_range(rng, 1, 64);
      if (pos + k > len || len + k > MAX_SIZE) break;
      memmove(out + pos + k, out + pos, len - pos);
      len += k;
      break;
    }
    case 5: { /* splice part of another input */
      const input *o = &corpus[ts_range(rng, 0, n_corpus - 1)];
      if (!o->n) break;
      size_t from = (size_t)ts_range(rng, 0, (int64_t)o->n - 1);
      size_t k = (size_t)ts_log_range(rng, 1, 128);
      if (from + k > o->n) k = o->n - from;
      if (len + k > MAX_SIZE) break;
      memmove(out + pos + k, out + pos, len - pos);
      memcpy(out + pos, o->p + from, k);
      len += k;
      break;
    }
    default: /* truncate */
      len = pos;
      break;
    }
  }
  *n = len;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: " FUZZ_NAME " CORPUS_DIR\n");
    return 2;
  }
  if (load_dir(argv[1]) != 0 || n_corpus == 0) {
    fprintf(stderr, FUZZ_NAME ": no corpus in %s\n", argv[1]);
    return 1;
  }
  for (int i = 0; i < n_corpus; i++) run(corpus[i].p, corpus[i].n);
  ts_rng rng;
  ts_rng_init(&rng, ts_seed(FUZZ_NAME));
  /* Up to 3000 mutations of each input (1000 quick), fewer for a large
   * corpus so that a replay stays within a fixed number of runs. */
  const int total = ts_quick() ? 40000 : 150000, most = ts_quick() ? 1000 : 3000;
  int per_input = total / n_corpus;
  if (per_input > most) per_input = most;
  if (per_input < 100) per_input = 100;
  unsigned char *buf = malloc(MAX_SIZE);
  if (!buf) return 1;
  long runs = 0;
  for (int i = 0; i < n_corpus; i++) {
    for (int k = 0; k < per_input; k++, runs++) {
      size_t n;
      mutate(&rng, &corpus[i], buf, &n);
      run(buf, n);
    }
  }
  printf(FUZZ_NAME ": %d corpus files, %ld mutated inputs, no property violated\n", n_corpus, runs);
  free(buf);
  for (int i = 0; i < n_corpus; i++) free(corpus[i].p);
  return 0;
}
