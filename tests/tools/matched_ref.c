/*
 * matched_ref - makes test signals for matched filtering and checks
 * correlated captures for the CLI scripts, in double precision and
 * independently of convoy (its own windows, correlation and file reading).
 * Files are little-endian float32: complex (.cf32, I/Q pairs) or real (.f32).
 *
 *   matched_ref chirp FILE T
 *       A linear FM chirp of T samples sweeping -0.4 .. +0.4 cycles/sample
 *       (.cf32: exp(j phi); .f32: cos(phi)).
 *   matched_ref hide OUT TEMPLATE N SEED AMP OFFSET...
 *       N samples of uniform noise in [-AMP, AMP) (per component) with the
 *       template added at every OFFSET (cut at N). OUT has TEMPLATE's kind.
 *   matched_ref peak FILE [--from A] [--count N] [--channels C] [--channel c]
 *       Prints the index (from A) of the largest |x| among samples
 *       [A, A + N) of channel c.
 *   matched_ref correlate OUT IN TEMPLATE [options]
 *       Checks OUT against the correlation of IN with TEMPLATE, as
 *       numpy.correlate(x, w, mode) with w the template windowed (symmetric
 *       hamming/hann/kaiser as numpy makes them) and, with --normalize,
 *       scaled to unit energy. Per channel and, with --pulse-len L, per pulse
 *       of L samples (--pulses P, default all whole pulses of IN).
 *       Options: --mode full|same|valid (full) --window NAME (none;
 *       kaiser:beta=B) --normalize --channels C --pulses P --pulse-len L
 *       --max-err E (relative L2 error, 1e-5).
 *       Prints frames=N expected=M err=E; exit 0 when it matches, 1 when not.
 *
 * Exit status 2 on an unreadable file or a bad command line.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct signal {
  double *re, *im; /* im all 0 for a real file */
  long n;          /* samples (all channels) */
  int is_complex;
} signal;

static int is_complex_name(const char *path) {
  size_t n = strlen(path);
  return n > 5 && strcmp(path + n - 5, ".cf32") == 0;
}

static int read_signal(const char *path, signal *s) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  s->is_complex = is_complex_name(path);
  int comps = s->is_complex ? 2 : 1;
  s->n = bytes / (4 * comps);
  float *b = malloc((size_t)(bytes > 0 ? bytes : 4));
  s->re = calloc((size_t)s->n + 1, sizeof(double));
  s->im = calloc((size_t)s->n + 1, sizeof(double));
  if (!b || !s->re || !s->im || fread(b, 1, (size_t)bytes, f) != (size_t)bytes) {
    fprintf(stderr, "matched_ref: cannot read %s\n", path);
    fclose(f);
    free(b);
    return -1;
  }
  fclose(f);
  for (long i = 0; i < s->n; i++) {
    s->re[i] = b[comps * i];
    s->im[i] = s->is_complex ? b[comps * i + 1] : 0.0;
  }
  free(b);
  return 0;
}

static void signal_free(signal *s) {
  free(s->re);
  free(s->im);
}

static int write_signal(const char *path, const signal *s) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return -1;
  }
  for (long i = 0; i < s->n; i++) {
    float v[2] = {(float)s->re[i], (float)s->im[i]};
    if (fwrite(v, 4, s->is_complex ? 2 : 1, f) != (size_t)(s->is_complex ? 2 : 1)) break;
  }
  return fclose(f) == 0 ? 0 : -1;
}

static int chirp(int argc, char **argv) {
  if (argc != 4) return 2;
  signal s;
  s.n = atol(argv[3]);
  s.is_complex = is_complex_name(argv[2]);
  s.re = calloc((size_t)s.n + 1, sizeof(double));
  s.im = calloc((size_t)s.n + 1, sizeof(double));
  const double pi = 3.14159265358979323846;
  for (long k = 0; k < s.n; k++) {
    double t = (double)k;
    double phi = 2 * pi * (-0.4 * t + 0.4 * t * t / (double)s.n);
    s.re[k] = cos(phi);
    s.im[k] = s.is_complex ? sin(phi) : 0.0;
  }
  int rc = write_signal(argv[2], &s) == 0 ? 0 : 2;
  signal_free(&s);
  return rc;
}

static uint64_t rng = 1;
static double uniform(void) { /* [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static int hide(int argc, char **argv) {
  if (argc < 7) return 2;
  signal t, s;
  if (read_signal(argv[3], &t) != 0) return 2;
  s.n = atol(argv[4]);
  s.is_complex = t.is_complex;
  rng = 0x2545f4914f6cdd1dull ^ (uint64_t)atoll(argv[5]);
  double amp = atof(argv[6]);
  s.re = calloc((size_t)s.n + 1, sizeof(double));
  s.im = calloc((size_t)s.n + 1, sizeof(double));
  for (long i = 0; i < s.n; i++) {
    s.re[i] = amp * uniform();
    s.im[i] = s.is_complex ? amp * uniform() : 0.0;
  }
  for (int a = 7; a < argc; a++) {
    long off = atol(argv[a]);
    for (long k = 0; k < t.n && off + k < s.n; k++) {
      s.re[off + k] += t.re[k];
      s.im[off + k] += t.im[k];
    }
  }
  int rc = write_signal(argv[2], &s) == 0 ? 0 : 2;
  signal_free(&s);
  signal_free(&t);
  return rc;
}

static const char *opt_value(int argc, char **argv, int first, const char *name, const char *def) {
  for (int i = first; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}

static int has_flag(int argc, char **argv, int first, const char *name) {
  for (int i = first; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

static int peak(int argc, char **argv) {
  if (argc < 3) return 2;
  signal s;
  if (read_signal(argv[2], &s) != 0) return 2;
  long ch = atol(opt_value(argc, argv, 3, "--channels", "1"));
  long c = atol(opt_value(argc, argv, 3, "--channel", "0"));
  long from = atol(opt_value(argc, argv, 3, "--from", "0"));
  long count = atol(opt_value(argc, argv, 3, "--count", "-1"));
  long frames = s.n / ch;
  if (count < 0 || from + count > frames) count = frames - from;
  long best = -1;
  double best_mag = -1;
  for (long k = 0; k < count; k++) {
    long i = (from + k) * ch + c;
    double mag = s.re[i] * s.re[i] + s.im[i] * s.im[i];
    if (mag > best_mag) best_mag = mag, best = k;
  }
  printf("%ld\n", best);
  signal_free(&s);
  return 0;
}

/* I0 by its series sum_k ((x/2)^k / k!)^2. */
static double i0(double x) {
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 400 && term > 1e-18 * sum; k++) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
  }
  return sum;
}

/* numpy's symmetric windows of length m at index n. */
static int window_weights(const char *name, long m, double *w) {
  const double pi = 3.14159265358979323846;
  double beta = 8.6;
  if (strncmp(name, "kaiser:beta=", 12) == 0) beta = atof(name + 12);
  for (long n = 0; n < m; n++) {
    double x = m > 1 ? (double)n / (double)(m - 1) : 0.0; /* 0 .. 1 */
    if (m == 1 || strcmp(name, "none") == 0)
      w[n] = 1.0;
    else if (strcmp(name, "hamming") == 0)
      w[n] = 0.54 - 0.46 * cos(2 * pi * x);
    else if (strcmp(name, "hann") == 0)
      w[n] = 0.5 * (1.0 - cos(2 * pi * x));
    else if (strncmp(name, "kaiser", 6) == 0)
      w[n] = i0(beta * sqrt(1.0 - (2 * x - 1) * (2 * x - 1))) / i0(beta);
    else
      return -1;
  }
  return 0;
}

static int correlate(int argc, char **argv) {
  if (argc < 5) return 2;
  signal out, in, t;
  if (read_signal(argv[2], &out) != 0 || read_signal(argv[3], &in) != 0 ||
      read_signal(argv[4], &t) != 0)
    return 2;
  const char *mode = opt_value(argc, argv, 5, "--mode", "full");
  const char *win = opt_value(argc, argv, 5, "--window", "none");
  long ch = atol(opt_value(argc, argv, 5, "--channels", "1"));
  long frames = in.n / ch, m = t.n;
  long len = atol(opt_value(argc, argv, 5, "--pulse-len", "0"));
  if (len <= 0) len = frames;
  long pulses = atol(opt_value(argc, argv, 5, "--pulses", "0"));
  if (pulses <= 0) pulses = frames / len;
  double max_err = atof(opt_value(argc, argv, 5, "--max-err", "1e-5"));
  double *w = malloc((size_t)m * sizeof(double));
  if (!w || window_weights(win, m, w) != 0) return 2;
  double energy = 0;
  for (long j = 0; j < m; j++) energy += w[j] * w[j] * (t.re[j] * t.re[j] + t.im[j] * t.im[j]);
  double scale = has_flag(argc, argv, 5, "--normalize") ? 1.0 / sqrt(energy) : 1.0;
  long start, olen;
  if (strcmp(mode, "full") == 0)
    start = 0, olen = len + m - 1;
  else if (strcmp(mode, "same") == 0)
    start = (m - 1) / 2, olen = len;
  else if (strcmp(mode, "valid") == 0)
    start = m - 1, olen = len - m + 1;
  else
    return 2;
  /* full[n] = sum_j x[n - (m-1) + j] conj(w[j]) */
  long want = pulses * olen, got = out.n / ch;
  double num = 0, den = 0;
  for (long p = 0; p < pulses; p++)
    for (long k = 0; k < olen && p * olen + k < got; k++)
      for (long c = 0; c < ch; c++) {
        double yr = 0, yi = 0;
        for (long j = 0; j < m; j++) {
          long s = k + start - (m - 1) + j;
          if (s < 0 || s >= len) continue;
          long i = (p * len + s) * ch + c;
          double wr = scale * w[j] * t.re[j], wi = -scale * w[j] * t.im[j];
          yr += in.re[i] * wr - in.im[i] * wi;
          yi += in.re[i] * wi + in.im[i] * wr;
        }
        long o = (p * olen + k) * ch + c;
        num += (out.re[o] - yr) * (out.re[o] - yr) + (out.im[o] - yi) * (out.im[o] - yi);
        den += yr * yr + yi * yi;
      }
  double err = den > 0 ? sqrt(num / den) : sqrt(num);
  printf("frames=%ld expected=%ld err=%g\n", got, want, err);
  free(w);
  signal_free(&out);
  signal_free(&in);
  signal_free(&t);
  return got == want && err <= max_err ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "chirp") == 0) return chirp(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "hide") == 0) return hide(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "peak") == 0) return peak(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "correlate") == 0) return correlate(argc, argv);
  fprintf(stderr, "usage: matched_ref chirp FILE T\n"
                  "       matched_ref hide OUT TEMPLATE N SEED AMP OFFSET...\n"
                  "       matched_ref peak FILE [--from A] [--count N] [--channels C]\n"
                  "       matched_ref correlate OUT IN TEMPLATE [options]\n");
  return 2;
}
