/* test_rt.c - the real-time partitioned convolver (convoy_rt.h): output
 * against a double-precision reference for many block sizes, schedules and
 * impulse response lengths; bitwise chunk invariance; the routing matrix;
 * crossfading route changes, also from a second thread, and the count of
 * those merged into the next; reset; REALTIME mode; argument checking. */
#define _POSIX_C_SOURCE 200809L

#include "convoy_rt.h"
#include "test_support.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* float32 overlap-save against the double reference. */
#define TOL 1e-5

static ts_rng rng;

/* ------------------------------------------------------------- helpers */

typedef struct planar {
  int32_t n;
  int64_t frames;
  float **ch;
} planar;

static planar planar_make(int32_t n, int64_t frames) {
  planar p = {n, frames, calloc((size_t)n, sizeof(float *))};
  for (int32_t c = 0; c < n; c++)
    p.ch[c] = calloc((size_t)(frames > 0 ? frames : 1), sizeof(float));
  return p;
}

static void planar_free(planar *p) {
  for (int32_t c = 0; c < p->n; c++) free(p->ch[c]);
  free(p->ch);
  memset(p, 0, sizeof *p);
}

/* Decaying noise: an impulse response with energy all along it. */
static float *make_ir(int64_t n) {
  float *h = malloc((size_t)n * sizeof *h);
  ts_fill_uniform(&rng, h, n);
  for (int64_t t = 0; t < n; t++) h[t] *= (float)exp(-3.0 * (double)t / (double)n);
  return h;
}

/* Processes in.frames frames; calls of a random number of blocks (1 ..
 * max_blocks) when max_blocks > 0, else one call. */
static convoy_status run(convoy_rt *rt, const planar *in, planar *out, int max_blocks) {
  int32_t b = convoy_rt_block_frames(rt);
  const float **ip = malloc((size_t)in->n * sizeof *ip);
  float **op = malloc((size_t)out->n * sizeof *op);
  convoy_status st = CONVOY_OK;
  for (int64_t at = 0; at < in->frames && st == CONVOY_OK;) {
    int64_t n = in->frames - at;
    if (max_blocks > 0) {
      int64_t blocks = ts_range(&rng, 1, max_blocks);
      if (blocks * b < n) n = blocks * b;
    }
    for (int32_t c = 0; c < in->n; c++) ip[c] = in->ch[c] + at;
    for (int32_t c = 0; c < out->n; c++) op[c] = out->ch[c] + at;
    st = convoy_rt_process(rt, ip, op, n);
    at += n;
  }
  free(ip);
  free(op);
  return st;
}

/* Reference of output o: sum of gain * (input * taps) over o's routes, the
 * first frames values. */
static double *reference(const planar *in, const convoy_rt_route *routes, int32_t n_routes,
                         int32_t o, int64_t frames) {
  double *ref = calloc((size_t)frames, sizeof *ref);
  for (int32_t r = 0; r < n_routes; r++) {
    if (routes[r].output != o) continue;
    int64_t m = routes[r].n_taps;
    double *y = malloc((size_t)(frames + m - 1) * sizeof *y);
    ts_reference_conv(in->ch[routes[r].input], frames, routes[r].taps, m, y);
    for (int64_t t = 0; t < frames; t++) ref[t] += routes[r].gain * y[t];
    free(y);
  }
  return ref;
}

/* Largest relative L2 error over outputs; outputs with no route must be 0. */
static double worst_error(const planar *in, const planar *out, const convoy_rt_route *routes,
                          int32_t n_routes) {
  double worst = 0;
  for (int32_t o = 0; o < out->n; o++) {
    double *ref = reference(in, routes, n_routes, o, out->frames);
    double e = ts_rel_l2(out->ch[o], 1, ref, out->frames);
    double norm = 0;
    for (int64_t t = 0; t < out->frames; t++) norm += ref[t] * ref[t];
    if (norm == 0) {
      e = 0;
      for (int64_t t = 0; t < out->frames; t++) e = fmax(e, fabs(out->ch[o][t]));
    }
    worst = fmax(worst, e);
    free(ref);
  }
  return worst;
}

static convoy_rt_config config(int32_t block, int32_t n_in, int32_t n_out, int32_t max_partition) {
  convoy_rt_config c;
  convoy_rt_config_init(&c);
  c.block_frames = block;
  c.n_inputs = n_in;
  c.n_outputs = n_out;
  c.engine = CONVOY_ENGINE_CPU;
  c.max_partition = max_partition;
  return c;
}

static int32_t pow2_at_least(int64_t v) {
  int32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

/* ------------------------------------------------------------- accuracy */

/* One mono convolution: block b, n_taps, schedule hint max_partition. */
static void check_mono(int32_t b, int64_t n_taps, int32_t max_partition, int max_blocks) {
  int64_t blocks = (n_taps + 3 * (int64_t)b - 1) / b + 2;
  if (blocks * b < 4096) blocks = (4096 + b - 1) / b;
  planar in = planar_make(1, blocks * b), out = planar_make(1, blocks * b);
  ts_fill_uniform(&rng, in.ch[0], in.frames);
  float *h = make_ir(n_taps);
  convoy_rt_route route = {0, 0, h, n_taps, 0.75f};
  convoy_rt_config c = config(b, 1, 1, max_partition);
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &c, &route, 1));
  if (rt) {
    char desc[512];
    convoy_rt_describe(rt, desc, sizeof desc);
    TS_CHECK_OK(run(rt, &in, &out, max_blocks));
    double e = worst_error(&in, &out, &route, 1);
    TS_CHECK(e < TOL, "block %d, %lld taps, max_partition %d: rel L2 %.3g (%s)", (int)b,
             (long long)n_taps, (int)max_partition, e, desc);
    convoy_rt_stats st;
    TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
    TS_CHECK(st.blocks == blocks && st.deadline_misses == 0, "blocks %lld of %lld, misses %lld",
             (long long)st.blocks, (long long)blocks, (long long)st.deadline_misses);
  }
  convoy_rt_destroy(rt);
  free(h);
  planar_free(&in);
  planar_free(&out);
}

static void test_accuracy(void) {
  static const int32_t blocks[] = {1, 3, 32, 100, 128, 1000, 1024};
  int quick = ts_quick();
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
    int32_t b = blocks[i];
    int64_t lengths[] = {1, b, 1 + ts_log_range(&rng, 1, 20 * (int64_t)b),
                         b == 1 ? 700 : (quick ? 8 : 40) * (int64_t)b + 17};
    int32_t parts[] = {0, b, b == 1 ? 4 : pow2_at_least(2 * (int64_t)b)};
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
      for (size_t pi = 0; pi < sizeof parts / sizeof parts[0]; pi++)
        check_mono(b, lengths[li], parts[pi], 0);
  }
  /* Long impulse responses: 1 s and 2 s at 48 kHz, non-uniform and
   * uniform. */
  check_mono(128, quick ? 12000 : 48000, 0, 0);
  check_mono(256, quick ? 24000 : 96000, 0, 0);
  if (!quick) check_mono(1024, 96000, 1024, 0);
  /* 10 s at 48 kHz at the smallest and largest usual blocks. */
  if (!quick) {
    check_mono(32, 480000, 0, 0);
    check_mono(1024, 480000, 0, 0);
  }
  check_mono(64, quick ? 5000 : 20000, 512, 0);
}

/* ------------------------------------------------------------- chunking */

static void test_chunk_invariance(void) {
  const int32_t b = 48;
  const int64_t n_taps = 5000, frames = 200 * b;
  planar in = planar_make(2, frames), a = planar_make(2, frames), c = planar_make(2, frames);
  ts_fill_uniform(&rng, in.ch[0], frames);
  ts_fill_uniform(&rng, in.ch[1], frames);
  float *h0 = make_ir(n_taps), *h1 = make_ir(n_taps / 3);
  convoy_rt_route routes[] = {
      {0, 0, h0, n_taps, 1.0f}, {1, 1, h1, n_taps / 3, 1.0f}, {1, 0, h1, n_taps / 3, 0.5f}};
  convoy_rt_config cfg = config(b, 2, 2, 0);
  convoy_rt *r1 = NULL, *r2 = NULL;
  TS_CHECK_OK(convoy_rt_create(&r1, &cfg, routes, 3));
  cfg.threads = 1; /* the levels share one worker: the same arithmetic */
  TS_CHECK_OK(convoy_rt_create(&r2, &cfg, routes, 3));
  if (r1 && r2) {
    TS_CHECK_OK(run(r1, &in, &a, 0));
    TS_CHECK_OK(run(r2, &in, &c, 7));
    for (int o = 0; o < 2; o++)
      TS_CHECK(memcmp(a.ch[o], c.ch[o], (size_t)frames * sizeof(float)) == 0,
               "output %d differs between one call and calls of 1..7 blocks (1 worker)", o);
    double e = worst_error(&in, &a, routes, 3);
    TS_CHECK(e < TOL, "rel L2 %.3g", e);
  }
  convoy_rt_destroy(r1);
  convoy_rt_destroy(r2);
  free(h0);
  free(h1);
  planar_free(&in);
  planar_free(&a);
  planar_free(&c);
}

/* ------------------------------------------------------------- routing */

static void test_routing(void) {
  const int32_t b = 64;
  const int64_t frames = 120 * b;
  planar in = planar_make(3, frames), out = planar_make(3, frames);
  for (int c = 0; c < 3; c++) ts_fill_uniform(&rng, in.ch[c], frames);
  float *h[4] = {make_ir(3000), make_ir(700), make_ir(1), make_ir(5000)};
  /* Output 2 has no route; input 2 reaches output 0 only; (1, 1) twice. */
  convoy_rt_route routes[] = {
      {0, 0, h[0], 3000, 0.5f},  {2, 0, h[1], 700, -1.25f}, {1, 1, h[2], 1, 2.0f},
      {1, 1, h[3], 5000, 0.25f}, {0, 1, h[1], 700, 1.0f},
  };
  convoy_rt_config cfg = config(b, 3, 3, 0);
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, routes, 5));
  if (rt) {
    for (int o = 0; o < 3; o++) memset(out.ch[o], 0x7f, (size_t)frames * sizeof(float));
    TS_CHECK_OK(run(rt, &in, &out, 5));
    double e = worst_error(&in, &out, routes, 5);
    TS_CHECK(e < TOL, "3 x 3 routing: rel L2 %.3g (output 2 must be silent)", e);
  }
  convoy_rt_destroy(rt);
  for (int i = 0; i < 4; i++) free(h[i]);
  planar_free(&in);
  planar_free(&out);
}

/* ------------------------------------------------------------- crossfade */

static double max_step(const double *y, int64_t from, int64_t to) {
  double m = 0;
  for (int64_t t = from + 1; t < to; t++) m = fmax(m, fabs(y[t] - y[t - 1]));
  return m;
}

/* Relative L2 distance of out and ref over frames [from, to). */
static double seg_err(const float *y, const double *ref, int64_t from, int64_t to) {
  return ts_rel_l2(y + from, 1, ref + from, to - from);
}

/* seg_err for the unit sine of test_crossfade through taps h: float
 * rounding scales with the taps' energy, not with their gain at the sine's
 * frequency, which a random filter may nearly null. So the reference's
 * power is floored at what the sine's power (1/2) gives through white
 * taps of h's energy. */
static double sine_err(const float *y, const double *ref, int64_t from, int64_t to, const float *h,
                       int64_t n) {
  double num = 0.0, den = 0.0, hh = 0.0;
  for (int64_t t = from; t < to; t++) {
    const double e = (double)y[t] - ref[t];
    num += e * e;
    den += ref[t] * ref[t];
  }
  for (int64_t j = 0; j < n; j++) hh += (double)h[j] * h[j];
  const double floor_power = 0.5 * hh * (double)(to - from);
  return sqrt(num / (den > floor_power ? den : floor_power));
}

static void test_crossfade(int32_t b, int32_t max_partition) {
  const int64_t na = 3000, nb = 4500, frames = 400 * (int64_t)b;
  planar in = planar_make(1, frames), out = planar_make(1, frames);
  for (int64_t t = 0; t < frames; t++) in.ch[0][t] = (float)sin(0.031 * (double)t);
  float *ha = make_ir(na), *hb = make_ir(nb);
  for (int64_t t = 0; t < nb; t++) hb[t] *= -0.7f;
  convoy_rt_route ra = {0, 0, ha, na, 1.0f}, rb = {0, 0, hb, nb, 1.0f};
  convoy_rt_config cfg = config(b, 1, 1, max_partition);
  cfg.max_ir_frames = nb;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &ra, 1));
  if (!rt) goto done;
  int64_t delay = convoy_rt_switch_delay(rt);
  TS_CHECK(delay >= 0 && delay % b == 0, "switch delay %lld", (long long)delay);
  const int64_t ks = 150; /* set_routes() before this block */
  const float *ip[1];
  float *op[1];
  convoy_rt_stats st;
  for (int64_t k = 0; k < frames / b; k++) {
    if (k == ks) TS_CHECK_OK(convoy_rt_set_routes(rt, &rb, 1));
    ip[0] = in.ch[0] + k * b;
    op[0] = out.ch[0] + k * b;
    TS_CHECK_OK(convoy_rt_process(rt, ip, op, b));
  }
  TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
  TS_CHECK(st.route_switches == 1 && st.route_sets_merged == 0, "%lld switches, %lld merged",
           (long long)st.route_switches, (long long)st.route_sets_merged);
  double *ref_a = reference(&in, &ra, 1, 0, frames), *ref_b = reference(&in, &rb, 1, 0, frames);
  /* Each block before the crossfade is A, each after it B, and the
   * crossfade block lies within the bound switch_delay gives. */
  int64_t last_a = -1, first_b = -1;
  for (int64_t k = 0; k < frames / b; k++) {
    if (sine_err(out.ch[0], ref_a, k * b, (k + 1) * b, ha, na) < 1e-4) last_a = k;
    if (first_b < 0 && sine_err(out.ch[0], ref_b, k * b, (k + 1) * b, hb, nb) < 1e-4) first_b = k;
  }
  int64_t xf = last_a + 1;
  TS_CHECK(first_b == xf + 1, "block %d: last block matching A %lld, first matching B %lld", (int)b,
           (long long)last_a, (long long)first_b);
  TS_CHECK(xf >= ks && (xf - ks) * b <= delay, "crossfade at block %lld, set at %lld, bound %lld",
           (long long)xf, (long long)ks, (long long)delay);
  const double err_a = sine_err(out.ch[0], ref_a, 0, xf * b, ha, na);
  const double err_b = sine_err(out.ch[0], ref_b, (xf + 1) * b, frames, hb, nb);
  TS_CHECK(err_a < TOL, "before the crossfade: %.3g", err_a);
  TS_CHECK(err_b < TOL, "after the crossfade: %.3g", err_b);
  /* The crossfade block itself: no step larger than either signal's own,
   * plus the ramp's increment 1/(B + 1) times the distance between the
   * signals (a linear one-block ramp cannot avoid it; a hard switch would
   * add the whole distance, B + 1 times more). */
  double *y = malloc((size_t)frames * sizeof *y);
  for (int64_t t = 0; t < frames; t++) y[t] = out.ch[0][t];
  int64_t lo = xf * b - 1, hi = (xf + 1) * b + 1;
  double own = fmax(max_step(ref_a, lo, hi), max_step(ref_b, lo, hi)), gap = 0;
  for (int64_t t = lo; t < hi; t++) gap = fmax(gap, fabs(ref_a[t] - ref_b[t]));
  double got = max_step(y, lo, hi), bound = own + gap / (b + 1);
  TS_CHECK(got <= bound * 1.01 + 1e-4,
           "block %d: largest step in the crossfade %.4g, bound %.4g (signals' own %.4g)", (int)b,
           got, bound, own);
  TS_CHECK(own < 0.5 * gap, "the test's signals differ too little (%.3g, steps %.3g)", gap, own);
  free(y);
  free(ref_a);
  free(ref_b);
done:
  convoy_rt_destroy(rt);
  free(ha);
  free(hb);
  planar_free(&in);
  planar_free(&out);
}

/* Switching to routes on other pairs: the new set's output after the
 * crossfade is the full convolution of the input history, also of an input
 * no route read before. */
static void test_switch_matrix(void) {
  const int32_t b = 50;
  const int64_t frames = 300 * (int64_t)b;
  planar in = planar_make(2, frames), out = planar_make(2, frames);
  ts_fill_uniform(&rng, in.ch[0], frames);
  ts_fill_uniform(&rng, in.ch[1], frames);
  float *h0 = make_ir(2000), *h1 = make_ir(3500);
  convoy_rt_route before[] = {{0, 0, h0, 2000, 1.0f}};
  convoy_rt_route after[] = {{1, 1, h1, 3500, 1.0f}, {1, 0, h0, 2000, -0.5f}};
  convoy_rt_config cfg = config(b, 2, 2, 0);
  cfg.max_ir_frames = 3500;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, before, 1));
  if (rt) {
    const int64_t ks = 120, settled = ks + convoy_rt_switch_delay(rt) / b + 1;
    for (int64_t k = 0; k < frames / b; k++) {
      if (k == ks) TS_CHECK_OK(convoy_rt_set_routes(rt, after, 2));
      const float *ip[2] = {in.ch[0] + k * b, in.ch[1] + k * b};
      float *op[2] = {out.ch[0] + k * b, out.ch[1] + k * b};
      TS_CHECK_OK(convoy_rt_process(rt, ip, op, b));
    }
    for (int32_t o = 0; o < 2; o++) {
      double *ref_old = reference(&in, before, 1, o, frames);
      double *ref_new = reference(&in, after, 2, o, frames);
      if (o == 0) {
        double e = seg_err(out.ch[0], ref_old, 0, ks * b);
        TS_CHECK(e < TOL, "output 0 before the switch: %.3g", e);
      } else {
        double m = 0;
        for (int64_t t = 0; t < ks * b; t++) m = fmax(m, fabs(out.ch[1][t]));
        TS_CHECK(m == 0, "output 1 before the switch is not silent: %g", m);
      }
      double e = seg_err(out.ch[o], ref_new, (settled + 1) * b, frames);
      TS_CHECK(e < TOL, "output %d after the switch: rel L2 %.3g", (int)o, e);
      free(ref_old);
      free(ref_new);
    }
  }
  convoy_rt_destroy(rt);
  free(h0);
  free(h1);
  planar_free(&in);
  planar_free(&out);
}

/* set_routes() from another thread while process() runs. */
typedef struct switcher {
  convoy_rt *rt;
  convoy_rt_route routes[2];
  int calls;
  convoy_status status;
  atomic_int finished;
} switcher;

static void *switch_main(void *arg) {
  switcher *s = arg;
  for (int i = 0; i < s->calls; i++) {
    convoy_status st = convoy_rt_set_routes(s->rt, &s->routes[i & 1], 1);
    if (st != CONVOY_OK) s->status = st;
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  atomic_store(&s->finished, 1);
  return NULL;
}

static void test_concurrent_switch(void) {
  const int32_t b = 32;
  const int64_t n = 6000;
  float *ha = make_ir(n), *hb = make_ir(n / 2);
  switcher s = {.routes = {{0, 0, ha, n, 1.0f}, {0, 0, hb, n / 2, 1.0f}},
                .calls = ts_quick() ? 8 : 30,
                .status = CONVOY_OK};
  atomic_init(&s.finished, 0);
  convoy_rt_config cfg = config(b, 1, 1, 0);
  cfg.max_ir_frames = n;
  TS_CHECK_OK(convoy_rt_create(&s.rt, &cfg, &s.routes[1], 1));
  if (!s.rt) goto done;
  pthread_t th;
  pthread_create(&th, NULL, switch_main, &s);
  float x[32], y[32];
  const float *ip[1] = {x};
  float *op[1] = {y};
  int64_t blocks = 0;
  while (!atomic_load(&s.finished) || blocks < 100000) {
    ts_fill_uniform(&rng, x, b);
    if (convoy_rt_process(s.rt, ip, op, b) != CONVOY_OK) break;
    blocks++;
    if (atomic_load(&s.finished) && blocks > 2000) break;
  }
  pthread_join(th, NULL);
  TS_CHECK(s.status == CONVOY_OK, "set_routes from a second thread: %s", convoy_strerror(s.status));
  /* Settle, then the output must be the last set's (routes[(calls-1)&1]). */
  int64_t settle = convoy_rt_switch_delay(s.rt) / b + 4;
  for (int64_t k = 0; k < settle; k++) convoy_rt_process(s.rt, ip, op, b);
  convoy_rt_stats st;
  TS_CHECK_OK(convoy_rt_get_stats(s.rt, &st));
  TS_CHECK(st.route_switches >= 1 && st.route_switches <= s.calls, "%lld switches for %d calls",
           (long long)st.route_switches, s.calls);
  TS_CHECK(st.route_switches + st.route_sets_merged == s.calls,
           "%lld switches + %lld merged for %d calls: every set_routes() counted once",
           (long long)st.route_switches, (long long)st.route_sets_merged, s.calls);
  convoy_rt_reset(s.rt);
  planar in = planar_make(1, 300 * b), out = planar_make(1, 300 * b);
  ts_fill_uniform(&rng, in.ch[0], in.frames);
  TS_CHECK_OK(run(s.rt, &in, &out, 3));
  double e = worst_error(&in, &out, &s.routes[(s.calls - 1) & 1], 1);
  TS_CHECK(e < TOL, "after the switches, output is the last set's: rel L2 %.3g", e);
  planar_free(&in);
  planar_free(&out);
done:
  convoy_rt_destroy(s.rt);
  free(ha);
  free(hb);
}

/* Sets handed over faster than process() switches to them: each is counted
 * once, as a switch or as merged into the next (replaced before it was
 * heard), and the last one is what plays. */
static void run_blocks(convoy_rt *rt, int64_t blocks, int32_t b) {
  float x[64], y[64];
  const float *ip[1] = {x};
  float *op[1] = {y};
  for (int64_t k = 0; k < blocks; k++) {
    ts_fill_uniform(&rng, x, b);
    TS_CHECK_OK(convoy_rt_process(rt, ip, op, b));
  }
}

static void expect_counts(convoy_rt *rt, int64_t switches, int64_t merged, const char *when) {
  convoy_rt_stats st;
  TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
  TS_CHECK(st.route_switches == switches && st.route_sets_merged == merged,
           "%s: %lld switches, %lld merged; want %lld and %lld", when, (long long)st.route_switches,
           (long long)st.route_sets_merged, (long long)switches, (long long)merged);
}

static void test_merged_sets(void) {
  const int32_t b = 64;
  const int64_t n = 5000;
  float *ha = make_ir(n), *hb = make_ir(n / 3);
  convoy_rt_route ra = {0, 0, ha, n, 1.0f}, rb = {0, 0, hb, n / 3, 1.0f};
  convoy_rt_config cfg = config(b, 1, 1, 0);
  cfg.max_ir_frames = n;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &ra, 1));
  if (!rt) goto done;
  const int64_t settle = convoy_rt_switch_delay(rt) / b + 4;
  /* Three hand-overs before any block: the first two are never heard. */
  TS_CHECK_OK(convoy_rt_set_routes(rt, &rb, 1));
  TS_CHECK_OK(convoy_rt_set_routes(rt, &ra, 1));
  TS_CHECK_OK(convoy_rt_set_routes(rt, &rb, 1));
  expect_counts(rt, 0, 2, "three sets before a block");
  run_blocks(rt, settle, b);
  expect_counts(rt, 1, 2, "after the switch");
  /* One taken and crossfading, two more meanwhile: the first of them merged. */
  TS_CHECK_OK(convoy_rt_set_routes(rt, &ra, 1));
  run_blocks(rt, 1, b);
  TS_CHECK_OK(convoy_rt_set_routes(rt, &rb, 1));
  TS_CHECK_OK(convoy_rt_set_routes(rt, &ra, 1));
  run_blocks(rt, 3 * settle, b);
  expect_counts(rt, 3, 3, "during a crossfade");
  /* A reset completes a switch under way. */
  TS_CHECK_OK(convoy_rt_set_routes(rt, &rb, 1));
  run_blocks(rt, 1, b);
  TS_CHECK_OK(convoy_rt_reset(rt));
  expect_counts(rt, 4, 3, "a switch under way at reset");
  /* The last set is the one that plays. */
  planar in = planar_make(1, 200 * b), out = planar_make(1, 200 * b);
  ts_fill_uniform(&rng, in.ch[0], in.frames);
  TS_CHECK_OK(run(rt, &in, &out, 3));
  double e = worst_error(&in, &out, &rb, 1);
  TS_CHECK(e < TOL, "after merged sets, output is the last set's: rel L2 %.3g", e);
  planar_free(&in);
  planar_free(&out);
done:
  convoy_rt_destroy(rt);
  free(ha);
  free(hb);
}

/* ------------------------------------------------------------- reset */

static void test_reset(void) {
  const int32_t b = 100;
  const int64_t n = 7000, frames = 150 * b;
  planar in = planar_make(1, frames), a = planar_make(1, frames), c = planar_make(1, frames);
  ts_fill_uniform(&rng, in.ch[0], frames);
  float *h = make_ir(n);
  convoy_rt_route route = {0, 0, h, n, 1.0f};
  convoy_rt_config cfg = config(b, 1, 1, 0);
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &route, 1));
  if (rt) {
    TS_CHECK_OK(run(rt, &in, &a, 4));
    TS_CHECK_OK(convoy_rt_reset(rt));
    convoy_rt_stats st;
    TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
    TS_CHECK(st.blocks == 0, "blocks after reset: %lld", (long long)st.blocks);
    TS_CHECK_OK(run(rt, &in, &c, 9));
    TS_CHECK(memcmp(a.ch[0], c.ch[0], (size_t)frames * sizeof(float)) == 0,
             "output after reset differs from a fresh run");
  }
  convoy_rt_destroy(rt);
  free(h);
  planar_free(&in);
  planar_free(&a);
  planar_free(&c);
}

/* ------------------------------------------------------------- realtime */

/* One run of REALTIME mode at the pace of a 48 kHz device; returns the
 * deadline misses and sets *err to the output's distance to the reference. */
static int64_t paced_run(convoy_rt *rt, const planar *in, planar *out, int32_t b, int64_t frames,
                         const convoy_rt_route *route, double *err) {
  TS_CHECK_OK(convoy_rt_reset(rt));
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  const long period_ns = (long)(1e9 * b / 48000.0);
  for (int64_t k = 0; k < frames / b; k++) {
    const float *ip[1] = {in->ch[0] + k * b};
    float *op[1] = {out->ch[0] + k * b};
    TS_CHECK_OK(convoy_rt_process(rt, ip, op, b));
    next.tv_nsec += period_ns;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
  }
  convoy_rt_stats st;
  TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
  *err = worst_error(in, out, route, 1);
  return st.deadline_misses;
}

/* REALTIME mode at the pace of a 48 kHz device: a machine that is not
 * overloaded meets every deadline, so the output is exact. The suite runs
 * beside other tests on shared machines, where a worker may lose its CPU for
 * longer than a block now and then; a run with misses is therefore retried,
 * and the test asks for one clean run out of a few. A convolver that cannot
 * keep this small load in real time fails every run. */
static void test_realtime_paced(void) {
  const int32_t b = 64;
  const int64_t n = 6000, frames = (ts_quick() ? 150 : 400) * (int64_t)b;
  planar in = planar_make(1, frames), out = planar_make(1, frames);
  ts_fill_uniform(&rng, in.ch[0], frames);
  float *h = make_ir(n);
  convoy_rt_route route = {0, 0, h, n, 1.0f};
  convoy_rt_config cfg = config(b, 1, 1, 256);
  cfg.mode = CONVOY_RT_REALTIME;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &route, 1));
  /* Like an audio thread, ask for a real-time priority above the workers'
   * (ignored without the permission). */
  struct sched_param normal_param,
      fifo_param = {.sched_priority = sched_get_priority_min(SCHED_FIFO) + 20};
  int normal_policy = SCHED_OTHER;
  pthread_getschedparam(pthread_self(), &normal_policy, &normal_param);
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo_param);
  if (rt) {
    const int attempts = 5;
    int64_t misses = -1;
    double e = 0.0;
    for (int a = 0; a < attempts && misses != 0; a++) {
      misses = paced_run(rt, &in, &out, b, frames, &route, &e);
      if (misses != 0)
        printf("paced REALTIME run %d: %lld missed blocks (machine busy?), retrying\n", a + 1,
               (long long)misses);
    }
    TS_CHECK(misses == 0, "%lld misses at 48 kHz pace in each of %d runs", (long long)misses,
             attempts);
    if (misses == 0) TS_CHECK(e < TOL, "REALTIME output: rel L2 %.3g", e);
  }
  pthread_setschedparam(pthread_self(), normal_policy, &normal_param);
  convoy_rt_destroy(rt);
  free(h);
  planar_free(&in);
  planar_free(&out);
}

/* REALTIME mode driven faster than real time: the workers fall behind and
 * blocks are missed. Every missed block must be silence and counted, every
 * other block carries signal, and nothing stalls or crashes. */
static void test_realtime_overload(void) {
  const int32_t b = 32;
  const int64_t n = ts_quick() ? 50000 : 200000, blocks = ts_quick() ? 3000 : 12000;
  float *h = make_ir(n);
  convoy_rt_route route = {0, 0, h, n, 1.0f};
  convoy_rt_config cfg = config(b, 1, 1, 0);
  cfg.mode = CONVOY_RT_REALTIME;
  cfg.threads = 1;
  convoy_rt *rt = NULL;
  TS_CHECK_OK(convoy_rt_create(&rt, &cfg, &route, 1));
  if (rt) {
    float x[32], y[32];
    const float *ip[1] = {x};
    float *op[1] = {y};
    int64_t silent = 0, bad = 0;
    for (int64_t k = 0; k < blocks; k++) {
      ts_fill_uniform(&rng, x, b);
      TS_CHECK_OK(convoy_rt_process(rt, ip, op, b));
      int zero = 1;
      for (int t = 0; t < b; t++) {
        zero &= y[t] == 0.0f;
        bad += !isfinite(y[t]);
      }
      silent += zero;
    }
    convoy_rt_stats st;
    TS_CHECK_OK(convoy_rt_get_stats(rt, &st));
    TS_CHECK(st.blocks == blocks, "blocks %lld of %lld", (long long)st.blocks, (long long)blocks);
    TS_CHECK(st.deadline_misses == silent, "%lld misses counted, %lld silent blocks",
             (long long)st.deadline_misses, (long long)silent);
    TS_CHECK(bad == 0, "%lld samples not finite", (long long)bad);
    printf("REALTIME unpaced, %lld taps at block %d: %lld of %lld blocks missed\n", (long long)n,
           (int)b, (long long)st.deadline_misses, (long long)blocks);
  }
  convoy_rt_destroy(rt);
  free(h);
}

/* ------------------------------------------------------------- arguments */

static void expect_create(convoy_status want, const convoy_rt_config *c,
                          const convoy_rt_route *routes, int32_t n, const char *what) {
  convoy_rt *rt = (convoy_rt *)&rng; /* must be set to NULL on failure */
  convoy_status st = convoy_rt_create(&rt, c, routes, n);
  TS_CHECK(st == want, "%s: got %s, want %s", what, convoy_strerror(st), convoy_strerror(want));
  if (st != CONVOY_OK) {
    TS_CHECK(rt == NULL, "%s: *rt not NULL after failure", what);
    TS_CHECK(convoy_last_error()[0] != '\0', "%s: no message", what);
  }
  if (st == CONVOY_OK) convoy_rt_destroy(rt);
}

static void test_arguments(void) {
  const convoy_status BAD = CONVOY_ERR_INVALID_ARGUMENT;
  float taps[4] = {1, 0.5f, 0.25f, 0.125f};
  convoy_rt_route ok = {0, 0, taps, 4, 1.0f};
  convoy_rt_config c = config(64, 1, 1, 0), d;
  TS_CHECK(convoy_rt_create(NULL, &c, &ok, 1) == BAD, "NULL rt");
  expect_create(CONVOY_OK, NULL, &ok, 1, "NULL config means defaults");
  d = c, d.block_frames = 0, expect_create(BAD, &d, &ok, 1, "block 0");
  d = c, d.block_frames = CONVOY_RT_MAX_BLOCK + 1, expect_create(BAD, &d, &ok, 1, "block too big");
  d = c, d.n_inputs = 0, expect_create(BAD, &d, &ok, 1, "0 inputs");
  d = c, d.n_outputs = CONVOY_RT_MAX_CHANNELS + 1, expect_create(BAD, &d, &ok, 1, "outputs");
  d = c, d.max_ir_frames = -1, expect_create(BAD, &d, &ok, 1, "max_ir -1");
  d = c, d.max_ir_frames = 3, expect_create(BAD, &d, &ok, 1, "taps longer than max_ir");
  d = c, d.engine = (convoy_engine)99, expect_create(BAD, &d, &ok, 1, "engine 99");
  d = c, d.mode = (convoy_rt_mode)7, expect_create(BAD, &d, &ok, 1, "mode 7");
  d = c, d.threads = -1, expect_create(BAD, &d, &ok, 1, "threads -1");
  d = c, d.max_partition = 32, expect_create(BAD, &d, &ok, 1, "max_partition below block");
  d = c, d.max_partition = 192, expect_create(BAD, &d, &ok, 1, "max_partition not a power of two");
  d = c, d.block_frames = 100, d.max_partition = 100,
  expect_create(CONVOY_OK, &d, &ok, 1, "max_partition == block (not a power of two)");
  d = c, d.device = -2, expect_create(BAD, &d, &ok, 1, "device -2");
  d = c, d.engine = CONVOY_ENGINE_GPU;
  if (convoy_gpu_count() == 0)
    expect_create(CONVOY_ERR_NO_DEVICE, &d, &ok, 1, "GPU engine without a GPU");
  if (convoy_gpu_count() == 0) {
    convoy_rt *a = NULL;
    d = c, d.engine = CONVOY_ENGINE_AUTO;
    TS_CHECK_OK(convoy_rt_create(&a, &d, &ok, 1));
    TS_CHECK(a && convoy_rt_engine(a) == CONVOY_ENGINE_CPU, "AUTO without a GPU runs on the CPU");
    convoy_rt_destroy(a);
  }
  expect_create(BAD, &c, NULL, 1, "NULL routes");
  expect_create(BAD, &c, &ok, 0, "0 routes");
  convoy_rt_route r;
  r = ok, r.input = 1, expect_create(BAD, &c, &r, 1, "input out of range");
  r = ok, r.output = -1, expect_create(BAD, &c, &r, 1, "output out of range");
  r = ok, r.taps = NULL, expect_create(BAD, &c, &r, 1, "NULL taps");
  r = ok, r.n_taps = 0, expect_create(BAD, &c, &r, 1, "0 taps");
  r = ok, r.gain = INFINITY, expect_create(BAD, &c, &r, 1, "infinite gain");
  float nan_taps[4] = {1, NAN, 0, 0};
  r = ok, r.taps = nan_taps, expect_create(BAD, &c, &r, 1, "NaN tap");

  convoy_rt *rt = NULL;
  c.max_ir_frames = 4;
  TS_CHECK_OK(convoy_rt_create(&rt, &c, &ok, 1));
  if (rt) {
    float x[128] = {0}, y[128];
    const float *ip[1] = {x};
    float *op[1] = {y};
    const float *nip[1] = {NULL};
    TS_CHECK(convoy_rt_process(NULL, ip, op, 64) == BAD, "process NULL rt");
    TS_CHECK(convoy_rt_process(rt, NULL, op, 64) == BAD, "process NULL in");
    TS_CHECK(convoy_rt_process(rt, ip, NULL, 64) == BAD, "process NULL out");
    TS_CHECK(convoy_rt_process(rt, nip, op, 64) == BAD, "process NULL in[0]");
    TS_CHECK(convoy_rt_process(rt, ip, op, 65) == BAD, "process 65 frames at block 64");
    TS_CHECK(convoy_rt_process(rt, ip, op, -64) == BAD, "process -64 frames");
    TS_CHECK(convoy_rt_last_error(rt)[0] != '\0', "no message on the convolver");
    TS_CHECK_OK(convoy_rt_process(rt, ip, op, 0));
    TS_CHECK_OK(convoy_rt_process(rt, ip, op, 128));
    float longer[5] = {1, 1, 1, 1, 1};
    r = ok, r.taps = longer, r.n_taps = 5;
    TS_CHECK(convoy_rt_set_routes(rt, &r, 1) == BAD, "set_routes past max_ir_frames");
    r = ok, r.input = 3;
    TS_CHECK(convoy_rt_set_routes(rt, &r, 1) == BAD, "set_routes bad input");
    TS_CHECK(convoy_rt_set_routes(NULL, &ok, 1) == BAD, "set_routes NULL rt");
    TS_CHECK(convoy_rt_set_routes(rt, NULL, 1) == BAD, "set_routes NULL routes");
    convoy_rt_stats st;
    TS_CHECK(convoy_rt_get_stats(rt, NULL) == BAD, "stats NULL");
    TS_CHECK(convoy_rt_get_stats(NULL, &st) == BAD, "stats NULL rt");
    char buf[256];
    TS_CHECK(convoy_rt_describe(rt, NULL, 10) == BAD, "describe NULL buf");
    TS_CHECK(convoy_rt_describe(rt, buf, 0) == BAD, "describe size 0");
    TS_CHECK_OK(convoy_rt_describe(rt, buf, sizeof buf));
    TS_CHECK(strstr(buf, "cpu") != NULL, "describe: %s", buf);
    char tiny[8];
    TS_CHECK_OK(convoy_rt_describe(rt, tiny, sizeof tiny));
    TS_CHECK(strlen(tiny) == 7, "describe truncates with a NUL");
    TS_CHECK(convoy_rt_engine(rt) == CONVOY_ENGINE_CPU, "engine");
    TS_CHECK(convoy_rt_block_frames(rt) == 64, "block");
    TS_CHECK(convoy_rt_reset(NULL) == BAD, "reset NULL");
  }
  convoy_rt_destroy(rt);
  convoy_rt_destroy(NULL);
}

int main(void) {
  ts_rng_init(&rng, ts_seed("test_rt"));
  test_arguments();
  test_accuracy();
  test_chunk_invariance();
  test_routing();
  test_crossfade(64, 0);
  test_crossfade(128, 128);
  test_crossfade(30, 256);
  test_switch_matrix();
  test_concurrent_switch();
  test_merged_sets();
  test_reset();
  test_realtime_paced();
  test_realtime_overload();
  return ts_finish();
}
