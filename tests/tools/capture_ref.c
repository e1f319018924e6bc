/*
 * capture_ref - makes raw captures and checks filtered ones for the CLI
 * scripts. It decodes and encodes every SigMF datatype itself (byte by byte,
 * both byte orders) rather than through convoy's reader, and computes the
 * reference convolution in double precision.
 *
 *   capture_ref gen FILE TYPE FRAMES SEED [--channels C]
 *       FRAMES frames of random codes over the whole range of TYPE (floats
 *       uniform in [-1, 1)).
 *   capture_ref compare OUT OUT_TYPE IN IN_TYPE TAPS [options]
 *       Checks OUT against y = IN (*) TAPS, the full convolution of the
 *       frames [skip, skip + count) of IN, per channel, complex arithmetic
 *       for complex types. OUT must hold y[drop ..] over count frames (or to
 *       the end of y with --tail). TAPS: a text file of real taps ('#'
 *       comments) or, named .cf32, complex float32 pairs.
 *       Float OUT: relative L2 error <= --max-err (default 1e-5). Integer
 *       OUT: every code within 1 of the reference rounded and saturated (for
 *       32-bit codes, also within the float32 arithmetic: 4e-6 of full scale).
 *       Options: --skip N --count N --drop D --tail --channels C --gain G
 *       --in-scale S --in-offset O --out-scale S --out-offset O (default
 *       scalings as io/capture.h documents them).
 *       --decimate D --shift F: OUT holds every D-th frame of the window
 *       above from its first (full-convolution index drop + k D, counted
 *       from y[0]), of IN multiplied by e^{-j 2 pi F i}
 *       before filtering (F in cycles per sample, i from the first frame
 *       compared, after --skip).
 *       Prints frames=N expected=M err=E; exit 0 when it matches, 1 when not.
 *
 * Exit status 2 on an unreadable file or a bad command line.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dtype {
  int is_complex, kind, bytes, big; /* kind: 'f', 'i' or 'u' */
} dtype;

static int parse_type(const char *s, dtype *t) {
  char c, k;
  int bits, n = 0;
  char end[8] = "";
  if (sscanf(s, "%c%c%d%n", &c, &k, &bits, &n) < 3) return -1;
  if ((c != 'c' && c != 'r') || (k != 'f' && k != 'i' && k != 'u')) return -1;
  snprintf(end, sizeof end, "%s", s + n);
  t->is_complex = c == 'c';
  t->kind = k;
  t->bytes = bits / 8;
  t->big = strcmp(end, "_be") == 0;
  if (bits != 8 && strcmp(end, "_le") != 0 && !t->big) return -1;
  if (bits == 8 && end[0]) return -1;
  if (k == 'f' && bits != 32 && bits != 64) return -1;
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? 0 : -1;
}

static double default_scale(const dtype *t) {
  return t->kind == 'f' ? 1.0 : ldexp(1.0, -(8 * t->bytes - 1));
}
static double default_offset(const dtype *t) {
  return t->kind == 'u' ? ldexp(1.0, 8 * t->bytes - 1) : 0.0;
}

static uint64_t load(const unsigned char *p, const dtype *t) {
  uint64_t v = 0;
  for (int i = 0; i < t->bytes; i++) {
    int b = t->big ? i : t->bytes - 1 - i;
    v = (v << 8) | p[b];
  }
  return v;
}

static void store(unsigned char *p, const dtype *t, uint64_t v) {
  for (int i = 0; i < t->bytes; i++) {
    int b = t->big ? t->bytes - 1 - i : i;
    p[b] = (unsigned char)(v >> (8 * i));
  }
}

/* The stored code of one component as a number (integers: the code). */
static double decode(const unsigned char *p, const dtype *t) {
  uint64_t v = load(p, t);
  int bits = 8 * t->bytes;
  if (t->kind == 'f') {
    if (t->bytes == 4) {
      uint32_t u = (uint32_t)v;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    double d;
    memcpy(&d, &v, 8);
    return d;
  }
  if (t->kind == 'u') return (double)v;
  if (bits < 64 && (v >> (bits - 1)) & 1) return (double)v - ldexp(1.0, bits);
  return (double)v;
}

static uint64_t rng_state = 1;
static uint64_t rng_next(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "capture_ref: cannot read %s\n", path);
    fclose(f);
    free(b);
    return NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return b;
}

static int gen(int argc, char **argv) {
  if (argc < 6) return 2;
  dtype t;
  if (parse_type(argv[3], &t) != 0) return 2;
  long long frames = atoll(argv[4]);
  rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)atoll(argv[5]);
  int ch = argc >= 8 && strcmp(argv[6], "--channels") == 0 ? atoi(argv[7]) : 1;
  size_t n = (size_t)frames * (size_t)ch * (t.is_complex ? 2 : 1);
  unsigned char *b = calloc(n ? n : 1, (size_t)t.bytes);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng_next();
    uint64_t v;
    if (t.kind == 'f') {
      double d = (double)(r >> 11) * ldexp(1.0, -53) * 2.0 - 1.0;
      if (t.bytes == 4) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        v = u;
      } else {
        memcpy(&v, &d, 8);
      }
    } else {
      v = t.bytes == 8 ? r : r & ((1ull << (8 * t.bytes)) - 1);
    }
    store(b + i * (size_t)t.bytes, &t, v);
  }
  FILE *f = fopen(argv[2], "wb");
  if (!f || fwrite(b, (size_t)t.bytes, n, f) != n || fclose(f) != 0) {
    perror(argv[2]);
    return 2;
  }
  free(b);
  return 0;
}

/* Taps as complex doubles (im 0 for real taps). */
static int read_taps(const char *path, double **re, double **im, long *m) {
  size_t len = strlen(path);
  if (len > 5 && strcmp(path + len - 5, ".cf32") == 0) {
    size_t size;
    unsigned char *b = read_file(path, &size);
    if (!b) return -1;
    *m = (long)(size / 8);
    *re = calloc((size_t)*m, sizeof(double));
    *im = calloc((size_t)*m, sizeof(double));
    for (long i = 0; i < *m; i++) {
      float f[2];
      memcpy(f, b + 8 * i, 8);
      (*re)[i] = f[0];
      (*im)[i] = f[1];
    }
    free(b);
    return 0;
  }
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long cap = 1024, n = 0;
  *re = malloc((size_t)cap * sizeof(double));
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (n == cap) *re = realloc(*re, (size_t)(cap *= 2) * sizeof(double));
    (*re)[n++] = atof(line);
  }
  fclose(f);
  *im = calloc((size_t)n, sizeof(double));
  *m = n;
  return 0;
}

typedef struct cmp_opts {
  long long skip, count, drop;
  int tail, channels, has_in_scale, has_in_offset, has_out_scale, has_out_offset;
  double in_scale, in_offset, out_scale, out_offset, max_err, gain, shift;
  long long decimate;
} cmp_opts;

static int parse_cmp(int argc, char **argv, cmp_opts *o) {
  memset(o, 0, sizeof *o);
  o->count = -1;
  o->channels = 1;
  o->max_err = 1e-5;
  o->gain = 1.0;
  o->decimate = 1;
  for (int i = 7; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : "0";
    if (strcmp(a, "--tail") == 0) {
      o->tail = 1;
      continue;
    }
    i++;
    if (strcmp(a, "--skip") == 0)
      o->skip = atoll(v);
    else if (strcmp(a, "--count") == 0)
      o->count = atoll(v);
    else if (strcmp(a, "--drop") == 0)
      o->drop = atoll(v);
    else if (strcmp(a, "--channels") == 0)
      o->channels = atoi(v);
    else if (strcmp(a, "--max-err") == 0)
      o->max_err = atof(v);
    else if (strcmp(a, "--decimate") == 0)
      o->decimate = atoll(v) > 0 ? atoll(v) : 1;
    else if (strcmp(a, "--shift") == 0)
      o->shift = atof(v);
    else if (strcmp(a, "--gain") == 0)
      o->gain = atof(v);
    else if (strcmp(a, "--in-scale") == 0)
      o->has_in_scale = 1, o->in_scale = atof(v);
    else if (strcmp(a, "--in-offset") == 0)
      o->has_in_offset = 1, o->in_offset = atof(v);
    else if (strcmp(a, "--out-scale") == 0)
      o->has_out_scale = 1, o->out_scale = atof(v);
    else if (strcmp(a, "--out-offset") == 0)
      o->has_out_offset = 1, o->out_offset = atof(v);
    else {
      fprintf(stderr, "capture_ref: unknown option %s\n", a);
      return -1;
    }
  }
  return 0;
}

static int compare(int argc, char **argv) {
  if (argc < 7) return 2;
  dtype ot, it;
  cmp_opts o;
  if (parse_type(argv[3], &ot) != 0 || parse_type(argv[5], &it) != 0 ||
      parse_cmp(argc, argv, &o) != 0)
    return 2;
  double is = o.has_in_scale ? o.in_scale : default_scale(&it);
  double io = o.has_in_offset ? o.in_offset : default_offset(&it);
  double os = o.has_out_scale ? o.out_scale : default_scale(&ot);
  double oo = o.has_out_offset ? o.out_offset : default_offset(&ot);
  size_t in_size, out_size;
  unsigned char *ib = read_file(argv[4], &in_size), *ob = read_file(argv[2], &out_size);
  double *hr = NULL, *hi = NULL;
  long m = 0;
  if (!ib || !ob || read_taps(argv[6], &hr, &hi, &m) != 0 || m < 1) {
    free(ib);
    free(ob);
    free(hr);
    free(hi);
    return 2;
  }
  int comps = it.is_complex ? 2 : 1, ch = o.channels;
  long long in_frames = (long long)(in_size / ((size_t)it.bytes * (size_t)comps * (size_t)ch));
  long long n = o.count >= 0 ? o.count : in_frames - o.skip;
  long long full = n + m - 1;
  long long want = o.tail ? full - o.drop : n;
  /* Kept: every D-th frame of the window from its first, full-convolution
   * indices drop + k D in [drop, drop + want). */
  const long long dec = o.decimate, first = o.drop;
  want = (want + dec - 1) / dec;
  long long got = (long long)(out_size / ((size_t)ot.bytes * (size_t)comps * (size_t)ch));
  double err_num = 0, err_den = 0, worst_code = 0;
  long long bad = 0;
  double full_code = ldexp(1.0, 8 * ot.bytes - 1);
  /* One code of rounding, plus float32 arithmetic for wide integers. */
  double code_tol = 1.0 + 4e-6 * full_code;
  double lo = ot.kind == 'u' ? 0 : -full_code,
         hi_code = ot.kind == 'u' ? 2 * full_code - 1 : full_code - 1;
  for (long long k = 0; k < want && k < got; k++) {
    long long kk = first + k * dec; /* index into the full convolution */
    for (int c = 0; c < ch; c++) {
      double yr = 0, yi = 0;
      for (long j = 0; j < m; j++) {
        long long xi = kk - j;
        if (xi < 0 || xi >= n) continue;
        size_t base = ((size_t)(xi + o.skip) * (size_t)ch + (size_t)c) * (size_t)comps;
        double xr = (decode(ib + base * (size_t)it.bytes, &it) - io) * is;
        double xim = comps == 2 ? (decode(ib + (base + 1) * (size_t)it.bytes, &it) - io) * is : 0;
        if (o.shift != 0.0) {
          const double ph = -2.0 * 3.14159265358979323846 * fmod(o.shift * (double)xi, 1.0);
          const double cr = cos(ph), ci = sin(ph), ur = xr * cr - xim * ci;
          xim = xr * ci + xim * cr;
          xr = ur;
        }
        yr += hr[j] * xr - hi[j] * xim;
        yi += hr[j] * xim + hi[j] * xr;
      }
      double ref[2] = {yr * o.gain, yi * o.gain};
      for (int q = 0; q < comps; q++) {
        size_t idx = ((size_t)k * (size_t)ch + (size_t)c) * (size_t)comps + (size_t)q;
        double out = decode(ob + idx * (size_t)ot.bytes, &ot);
        if (ot.kind == 'f') {
          double y = (out - oo) * os;
          err_num += (y - ref[q]) * (y - ref[q]);
          err_den += ref[q] * ref[q];
        } else {
          double code = floor(ref[q] / os + oo + 0.5);
          if (code < lo) code = lo;
          if (code > hi_code) code = hi_code;
          double d = fabs(code - out);
          if (d > worst_code) worst_code = d;
          if (d > code_tol) bad++;
        }
      }
    }
  }
  double err =
      ot.kind == 'f' ? (err_den > 0 ? sqrt(err_num / err_den) : sqrt(err_num)) : worst_code;
  printf("frames=%lld expected=%lld err=%g\n", got, want, err);
  free(ib);
  free(ob);
  free(hr);
  free(hi);
  if (got != want) return 1;
  if (ot.kind == 'f') return err <= o.max_err ? 0 : 1;
  return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "gen") == 0) return gen(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "compare") == 0) return compare(argc, argv);
  fprintf(stderr, "usage: capture_ref gen FILE TYPE FRAMES SEED [--channels C]\n"
                  "       capture_ref compare OUT OUT_TYPE IN IN_TYPE TAPS [options]\n");
  return 2;
}
