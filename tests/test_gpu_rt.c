/*
 * test_gpu_rt.c - the GPU backend of the real-time convolver
 * (pipeline/rt_backend.h, the GPU row of engine_list.def). Skips (77) without a usable GPU.
 *
 * Checks:
 *   - output against the double reference (sum over routes of gain * x_in *
 *     h, relative L2 < 1e-5 per output) for blocks 1, 32, 64, 100, 128, 1024,
 *     impulse responses from 1 tap to 2 s at 48 kHz, 1 .. 64 channels,
 *     routing matrices with unused pairs, repeated pairs and gains; the same
 *     with a tail (max_partition forced: partitions of 2 to 16 blocks, blocks
 *     1 to 128, responses from one tap past the head to many tail
 *     partitions), and 16 channels of 2 s by the cost model's plan;
 *   - the crossfade (with a tail, begun at every block of a tail cycle): blocks before it equal the
 * old set's reference, the fade block is the linear blend (weight (j + 1) / B on the new set) of
 *     both references, blocks after equal the new set's reference over the
 *     whole history, and (blocks of 16 and more) no step at the switch
 *     exceeds the signals' own;
 *     switch_done comes with the fade block, which is the next block without
 *     a tail and within switch_delay() frames with one; a second
 *     begin_switch during a switch is refused;
 *   - determinism: the same input after reset() gives bitwise the same output;
 *   - a bad device index is CONVOY_ERR_NO_DEVICE, and its cost is negative;
 *   - through the public convoy_rt API with engine GPU: reference, bitwise
 *     the same output for calls of any number of blocks (with and without a
 *     set_routes() crossfade inside), stats, reset, and agreement with the
 *     CPU engine within float rounding, with and without a tail.
 * CONVOY_TEST_QUICK shrinks sizes for the sanitizer runs.
 */
#include "convoy_rt.h"
#include "rt_backend.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5
#define ERR_SIZE 256

static int quick;

/* ------------------------------------------------------------ routes */

typedef struct routing {
  int32_t n_in, n_out, n_routes;
  convoy_rt_route *r; /* taps owned here */
} routing;

static void routing_free(routing *m) {
  for (int32_t i = 0; i < m->n_routes; i++) free((void *)m->r[i].taps);
  free(m->r);
  memset(m, 0, sizeof *m);
}

static float *random_taps(ts_rng *rng, int64_t n) {
  float *t = malloc(sizeof(float) * (size_t)n);
  ts_fill_uniform(rng, t, n);
  /* A decaying envelope, like a room: keeps the output's scale sensible. */
  for (int64_t j = 0; j < n; j++) t[j] *= (float)exp(-3.0 * (double)j / (double)n);
  return t;
}

/* n_routes random routes over n_in x n_out; route 0 has max_ir taps, the
 * others random lengths up to it. Pairs may repeat and some stay unused. */
static routing make_routing(ts_rng *rng, int32_t n_in, int32_t n_out, int32_t n_routes,
                            int64_t max_ir) {
  routing m = {n_in, n_out, n_routes, calloc((size_t)n_routes, sizeof(convoy_rt_route))};
  for (int32_t i = 0; i < n_routes; i++) {
    convoy_rt_route *r = &m.r[i];
    r->input = (int32_t)ts_range(rng, 0, n_in - 1);
    r->output = (int32_t)ts_range(rng, 0, n_out - 1);
    r->n_taps = i == 0 ? max_ir : ts_log_range(rng, 1, max_ir);
    r->taps = random_taps(rng, r->n_taps);
    r->gain = (float)(ts_uniform(rng) * 2.0 - 0.5);
  }
  return m;
}

/* Diagonal routing i -> i with one length. */
static routing diagonal(ts_rng *rng, int32_t channels, int64_t taps) {
  routing m = {channels, channels, channels, calloc((size_t)channels, sizeof(convoy_rt_route))};
  for (int32_t i = 0; i < channels; i++) {
    m.r[i].input = m.r[i].output = i;
    m.r[i].n_taps = taps;
    m.r[i].taps = random_taps(rng, taps);
    m.r[i].gain = 1.0f - 0.01f * (float)i;
  }
  return m;
}

/* Reference outputs [n_out][frames] of the planar input x[n_in][frames]. */
static double *reference(const routing *m, const float *x, int64_t frames) {
  double *ref = calloc((size_t)(m->n_out * frames), sizeof(double));
  int64_t longest = 1;
  for (int32_t i = 0; i < m->n_routes; i++)
    if (m->r[i].n_taps > longest) longest = m->r[i].n_taps;
  double *y = malloc(sizeof(double) * (size_t)(frames + longest));
  for (int32_t i = 0; i < m->n_routes; i++) {
    const convoy_rt_route *r = &m->r[i];
    ts_reference_conv(x + r->input * frames, frames, r->taps, r->n_taps, y);
    double *dst = ref + r->output * frames;
    for (int64_t j = 0; j < frames; j++) dst[j] += (double)r->gain * y[j];
  }
  free(y);
  return ref;
}

/* ------------------------------------------------------------ driver */

typedef struct rig {
  const rt_backend_ops *ops;
  rt_layout l;
  void *impl;
  void *sets[2];
  char err[ERR_SIZE];
} rig;

/* max_partition: 0 = the cost model's plan, else the tail's partition
 * (rt_layout). */
static int rig_open(rig *g, int32_t block, const routing *m, int64_t max_ir,
                    int32_t max_partition) {
  memset(g, 0, sizeof *g);
  g->ops = rt_backend_of(CONVOY_FAMILY_GPU);
  g->l.block = block;
  g->l.n_in = m->n_in;
  g->l.n_out = m->n_out;
  g->l.max_ir = max_ir;
  g->l.mode = CONVOY_RT_OFFLINE;
  g->l.threads = 1;
  g->l.max_partition = max_partition;
  g->l.device = -1;
  convoy_status st = g->ops->create(&g->l, &g->impl, g->err, ERR_SIZE);
  TS_CHECK(st == CONVOY_OK, "create block %d, %d x %d, max_ir %lld, max_partition %d: %s",
           (int)block, (int)m->n_in, (int)m->n_out, (long long)max_ir, (int)max_partition, g->err);
  if (st != CONVOY_OK) return 0;
  st = g->ops->prepare(g->impl, m->r, m->n_routes, &g->sets[0], g->err, ERR_SIZE);
  TS_CHECK(st == CONVOY_OK, "prepare %d routes: %s", (int)m->n_routes, g->err);
  if (st != CONVOY_OK) return 0;
  g->ops->install(g->impl, g->sets[0]);
  return 1;
}

static void rig_close(rig *g) {
  if (!g->impl) return;
  for (int i = 0; i < 2; i++)
    if (g->sets[i]) g->ops->free_set(g->impl, g->sets[i]);
  g->ops->destroy(g->impl);
  g->impl = NULL;
}

/* Runs blocks [first, last) of planar x[n_in][frames] into y[n_out][frames];
 * begin_switch to sets[1] before block switch_at (-1: never). Returns the
 * block that reported switch_done (-1: none), or -2 on an error. */
static int64_t rig_run(rig *g, const float *x, float *y, int64_t frames, int64_t first,
                       int64_t last, int64_t switch_at) {
  const int32_t B = g->l.block;
  const float *in[CONVOY_RT_MAX_CHANNELS];
  float *out[CONVOY_RT_MAX_CHANNELS];
  int64_t done_at = -1;
  for (int64_t k = first; k < last; k++) {
    for (int32_t i = 0; i < g->l.n_in; i++) in[i] = x + i * frames + k * B;
    for (int32_t o = 0; o < g->l.n_out; o++) out[o] = y + o * frames + k * B;
    if (k == switch_at) {
      TS_CHECK(g->ops->begin_switch(g->impl, g->sets[1]) == 1, "begin_switch refused");
      TS_CHECK(g->ops->begin_switch(g->impl, g->sets[0]) == 0,
               "a second begin_switch during a switch was accepted");
    }
    rt_block_result res;
    convoy_status st = g->ops->process(g->impl, in, out, &res, g->err, ERR_SIZE);
    if (st != CONVOY_OK) {
      TS_CHECK(st == CONVOY_OK, "process block %lld: %s", (long long)k, g->err);
      return -2;
    }
    TS_CHECK(!res.missed, "block %lld reported missed in OFFLINE mode", (long long)k);
    if (res.switch_done) done_at = k;
  }
  return done_at;
}

static float *random_signal(ts_rng *rng, int64_t n) {
  float *x = malloc(sizeof(float) * (size_t)n);
  ts_fill_uniform(rng, x, n);
  return x;
}

/* Worst relative L2 over the outputs, frames [from, to). */
static double worst_error(const float *y, const double *ref, int32_t n_out, int64_t frames,
                          int64_t from, int64_t to) {
  double worst = 0;
  for (int32_t o = 0; o < n_out; o++) {
    double e = ts_rel_l2(y + o * frames + from, 1, ref + o * frames + from, to - from);
    if (!(e <= worst)) worst = e; /* NaN wins */
  }
  return worst;
}

/* ------------------------------------------------------------ cases */

/* Output vs reference, then reset and a bitwise rerun. */
static void check_accuracy(ts_rng *rng, int32_t block, routing *m, int64_t max_ir,
                           int32_t max_partition, int64_t frames_min, const char *what) {
  const int64_t blocks = (frames_min + block - 1) / block;
  const int64_t frames = blocks * block;
  float *x = random_signal(rng, m->n_in * frames);
  float *y = calloc((size_t)(m->n_out * frames), sizeof(float));
  float *y2 = calloc((size_t)(m->n_out * frames), sizeof(float));
  double *ref = reference(m, x, frames);
  rig g;
  if (rig_open(&g, block, m, max_ir, max_partition) &&
      rig_run(&g, x, y, frames, 0, blocks, -1) != -2) {
    const double e = worst_error(y, ref, m->n_out, frames, 0, frames);
    char desc[512];
    g.ops->describe(g.impl, desc, sizeof desc);
    TS_CHECK(e < TOLERANCE,
             "%s: block %d, %d in x %d out, %d routes, max_ir %lld: rel L2 %.3g (%s)", what,
             (int)block, (int)m->n_in, (int)m->n_out, (int)m->n_routes, (long long)max_ir, e, desc);
    if (max_partition >= 2 * block && max_ir > 2 * (int64_t)max_partition)
      TS_CHECK(strstr(desc, "two-level") != NULL, "%s: max_partition %d gave no tail: %s", what,
               (int)max_partition, desc);
    g.ops->reset(g.impl);
    if (rig_run(&g, x, y2, frames, 0, blocks, -1) != -2)
      TS_CHECK(memcmp(y, y2, sizeof(float) * (size_t)(m->n_out * frames)) == 0,
               "%s: block %d: output after reset differs from the first run", what, (int)block);
  }
  rig_close(&g);
  free(x);
  free(y);
  free(y2);
  free(ref);
}

static void random_cases(ts_rng *rng) {
  static const int32_t blocks[] = {1, 32, 64, 100, 128, 1024};
  for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
    const int32_t B = blocks[bi];
    for (int rep = 0; rep < (quick ? 1 : 3); rep++) {
      const int32_t n_in = (int32_t)ts_range(rng, 1, 4), n_out = (int32_t)ts_range(rng, 1, 4);
      const int32_t n_routes = (int32_t)ts_range(rng, 1, 6);
      const int64_t cap = B == 1 ? 300 : (quick ? 3000 : 20000);
      int64_t max_ir = ts_log_range(rng, 1, cap);
      if (rep == 1) max_ir = B;     /* exactly one partition */
      if (rep == 2) max_ir = B + 1; /* a second partition of one tap */
      routing m = make_routing(rng, n_in, n_out, n_routes, max_ir);
      /* max_ir at create may exceed every route: more FDL than needed. */
      const int64_t create_ir = ts_uniform(rng) < 0.3 ? max_ir + ts_range(rng, 1, 3 * B) : max_ir;
      const int64_t frames = max_ir + ts_log_range(rng, 1, 8 * (int64_t)B + 500);
      check_accuracy(rng, B, &m, create_ir, 0, frames, "random");
      routing_free(&m);
    }
  }
}

static void one_tap_identity(ts_rng *rng) {
  /* One unit tap: the output is the input, exactly, whatever the block. */
  static const int32_t blocks[] = {1, 64, 100};
  for (size_t bi = 0; bi < 3; bi++) {
    const int32_t B = blocks[bi];
    routing m = {1, 1, 1, calloc(1, sizeof(convoy_rt_route))};
    float *t = malloc(sizeof(float));
    t[0] = 1.0f;
    m.r[0] = (convoy_rt_route){0, 0, t, 1, 1.0f};
    const int64_t frames = 20 * (int64_t)B;
    float *x = random_signal(rng, frames);
    float *y = calloc((size_t)frames, sizeof(float));
    rig g;
    if (rig_open(&g, B, &m, 1, 0) && rig_run(&g, x, y, frames, 0, 20, -1) != -2) {
      double worst = 0;
      for (int64_t j = 0; j < frames; j++)
        if (fabs((double)y[j] - x[j]) > worst) worst = fabs((double)y[j] - x[j]);
      TS_CHECK(worst < 1e-6, "identity, block %d: max |y - x| = %.3g", (int)B, worst);
    }
    rig_close(&g);
    free(x);
    free(y);
    routing_free(&m);
  }
}

static void large_cases(ts_rng *rng) {
  /* 2 s at 48 kHz, block 64, stereo with cross-feed. */
  {
    const int64_t ir = quick ? 9600 : 96000;
    routing m = make_routing(rng, 2, 2, 4, ir);
    check_accuracy(rng, 64, &m, ir, 0, ir + 3000, "2 s IR");
    routing_free(&m);
  }
  /* 64 channels: diagonal plus cross routes, some outputs with none. */
  {
    const int32_t ch = quick ? 16 : 64;
    routing d = diagonal(rng, ch, 4800);
    routing x = make_routing(rng, ch, ch, 24, 2000);
    routing m = {ch, ch, d.n_routes + x.n_routes,
                 calloc((size_t)(d.n_routes + x.n_routes), sizeof(convoy_rt_route))};
    memcpy(m.r, d.r, sizeof(convoy_rt_route) * (size_t)d.n_routes);
    memcpy(m.r + d.n_routes, x.r, sizeof(convoy_rt_route) * (size_t)x.n_routes);
    m.r[3].output = 5; /* output 3 has cross routes at most */
    free(d.r);
    free(x.r);
    check_accuracy(rng, 128, &m, 4800, 0, 12000, "many channels");
    routing_free(&m);
  }
  /* 1024 block with a long IR, many inputs into one output. */
  {
    routing m = make_routing(rng, 8, 1, 8, quick ? 5000 : 48000);
    for (int32_t i = 0; i < 8; i++) m.r[i].input = i;
    check_accuracy(rng, 1024, &m, m.r[0].n_taps, 0, m.r[0].n_taps + 4000, "8 into 1");
    routing_free(&m);
  }
}

/* Largest |y[j] - y[j-1]| over frames [from, to) of one output. */
static double max_step(const float *y, int64_t from, int64_t to) {
  double s = 0;
  for (int64_t j = from > 0 ? from : 1; j < to; j++)
    if (fabs((double)y[j] - y[j - 1]) > s) s = fabs((double)y[j] - y[j - 1]);
  return s;
}

/* begin_switch before block switch_at (default: a few blocks past the
 * longest response); max_partition as rig_open's. */
static void crossfade(ts_rng *rng, int32_t B, int64_t ir_a, int64_t ir_b, int32_t max_partition,
                      int64_t switch_at) {
  const int32_t n_in = 2, n_out = 2;
  routing a = make_routing(rng, n_in, n_out, 3, ir_a);
  routing b = make_routing(rng, n_in, n_out, 4, ir_b);
  const int64_t max_ir = ir_a > ir_b ? ir_a : ir_b;
  if (switch_at < 0) switch_at = (max_ir + 2 * (int64_t)B) / B + 3;
  const int64_t slack = 2 * (int64_t)(max_partition > B ? max_partition : B) / B + 1;
  const int64_t blocks = switch_at + slack + (max_ir + B - 1) / B + 4;
  const int64_t frames = blocks * B;
  /* A low-pass input, so that the signals' own steps are small and a click
   * would stand out. */
  float *x = random_signal(rng, n_in * frames);
  for (int32_t i = 0; i < n_in; i++)
    for (int64_t j = 1; j < frames; j++)
      x[i * frames + j] = 0.95f * x[i * frames + j - 1] + 0.05f * x[i * frames + j];
  float *y = calloc((size_t)(n_out * frames), sizeof(float));
  double *ref_a = reference(&a, x, frames), *ref_b = reference(&b, x, frames);
  rig g;
  if (rig_open(&g, B, &a, max_ir, max_partition)) {
    convoy_status st = g.ops->prepare(g.impl, b.r, b.n_routes, &g.sets[1], g.err, ERR_SIZE);
    TS_CHECK(st == CONVOY_OK, "prepare new set: %s", g.err);
    const int64_t delay = g.ops->switch_delay(g.impl);
    if (max_partition == 0)
      TS_CHECK(delay == 0, "switch delay %lld without a tail", (long long)delay);
    if (st == CONVOY_OK) {
      /* The fade block is the one that reports switch_done, within the delay. */
      const int64_t done = rig_run(&g, x, y, frames, 0, blocks, switch_at);
      TS_CHECK(
          done >= switch_at && done * B <= switch_at * B + delay,
          "block %d, max_partition %d: switch_done at block %lld, begun before %lld, delay %lld",
          (int)B, (int)max_partition, (long long)done, (long long)switch_at, (long long)delay);
      const int64_t f0 = (done >= 0 ? done : switch_at) * B, f1 = f0 + B;
      const double before = worst_error(y, ref_a, n_out, frames, 0, f0);
      const double after = worst_error(y, ref_b, n_out, frames, f1, frames);
      TS_CHECK(before < TOLERANCE,
               "crossfade block %d, max_partition %d: before the switch rel L2 %.3g", (int)B,
               (int)max_partition, before);
      TS_CHECK(after < TOLERANCE,
               "crossfade block %d, max_partition %d: after the switch rel L2 %.3g", (int)B,
               (int)max_partition, after);
      for (int32_t o = 0; o < n_out; o++) {
        double *blend = malloc(sizeof(double) * (size_t)B);
        for (int32_t j = 0; j < B; j++) {
          const double w = (double)(j + 1) / B;
          blend[j] = (1 - w) * ref_a[o * frames + f0 + j] + w * ref_b[o * frames + f0 + j];
        }
        const double e = ts_rel_l2(y + o * frames + f0, 1, blend, B);
        TS_CHECK(e < 1e-4, "crossfade block %d, output %d: fade block vs blend rel L2 %.3g", (int)B,
                 (int)o, e);
        free(blend);
        /* A one-frame block has no room for a ramp: its fade is a switch. */
        if (B < 16) continue;
        const float *yo = y + o * frames;
        const double own = fmax(max_step(yo, f0 - 4 * B, f0), max_step(yo, f1, f1 + 4 * B));
        const double at = max_step(yo, f0 - 1, f1 + 1);
        TS_CHECK(at <= 1.5 * own + 1e-6,
                 "crossfade block %d, output %d: step %.3g at the switch, signal's own %.3g",
                 (int)B, (int)o, at, own);
      }
    }
  }
  rig_close(&g);
  free(x);
  free(y);
  free(ref_a);
  free(ref_b);
  routing_free(&a);
  routing_free(&b);
}

/* A head of partitions of the block and a tail of max_partition (forced):
 * random shapes against the reference, then crossfades begun at every
 * place in a tail cycle. */
static void tail_cases(ts_rng *rng) {
  static const struct {
    int32_t block, max_partition;
  } plans[] = {{1, 4}, {32, 64}, {32, 256}, {64, 512}, {100, 256}, {100, 1024}, {128, 1024}};
  for (size_t pi = 0; pi < sizeof plans / sizeof plans[0]; pi++) {
    const int32_t B = plans[pi].block, Q = plans[pi].max_partition;
    for (int rep = 0; rep < (quick ? 1 : 3); rep++) {
      const int32_t n_in = (int32_t)ts_range(rng, 1, 4), n_out = (int32_t)ts_range(rng, 1, 4);
      const int32_t n_routes = (int32_t)ts_range(rng, 1, 6);
      /* From just past the head to several tail partitions. */
      int64_t max_ir = 2 * (int64_t)Q + ts_log_range(rng, 1, (quick ? 3 : 9) * (int64_t)Q);
      if (rep == 1) max_ir = 2 * (int64_t)Q + 1; /* one tap in the tail */
      routing m = make_routing(rng, n_in, n_out, n_routes, max_ir);
      const int64_t create_ir = ts_uniform(rng) < 0.3 ? max_ir + ts_range(rng, 1, 3 * Q) : max_ir;
      const int64_t frames = max_ir + ts_log_range(rng, 1, 6 * (int64_t)Q);
      check_accuracy(rng, B, &m, create_ir, Q, frames, "tail");
      routing_free(&m);
    }
  }
  /* A 2 s response on 16 channels at 64-frame blocks, by the cost model. */
  {
    const int32_t ch = quick ? 4 : 16;
    routing m = diagonal(rng, ch, quick ? 9600 : 96000);
    check_accuracy(rng, 64, &m, m.r[0].n_taps, 0, m.r[0].n_taps + 5000, "16 x 2 s by the model");
    routing_free(&m);
  }
  /* Q = 4 blocks: begin_switch at each block of a cycle. */
  for (int64_t at = 40; at < (quick ? 42 : 44); at++) crossfade(rng, 32, 900, 700, 128, at);
  crossfade(rng, 64, 3000, 5000, 512, -1);
  crossfade(rng, 1, 40, 90, 4, -1);
}

static void bad_device(ts_rng *rng) {
  routing m = make_routing(rng, 1, 1, 1, 16);
  rt_layout l = {64, 1, 1, 16, CONVOY_RT_OFFLINE, 1, 0, convoy_gpu_count() + 3};
  void *impl = NULL;
  char err[ERR_SIZE] = "";
  convoy_status st = rt_backend_of(CONVOY_FAMILY_GPU)->create(&l, &impl, err, ERR_SIZE);
  TS_CHECK(st == CONVOY_ERR_NO_DEVICE && impl == NULL, "device %d: %s (%s)", (int)l.device,
           convoy_strerror(st), err);
  TS_CHECK(strlen(err) > 0, "no message for a bad device");
  TS_CHECK(rt_backend_of(CONVOY_FAMILY_GPU)->cost(&l, m.r, 1) < 0,
           "cost for a missing device is not negative");
  l.device = -1;
  TS_CHECK(rt_backend_of(CONVOY_FAMILY_GPU)->cost(&l, m.r, 1) > 0,
           "cost for the default device not positive");
  routing_free(&m);
}

/* ------------------------------------------------------------ public API */

static convoy_rt *api_open(const routing *m, int32_t block, int64_t max_ir, convoy_engine engine,
                           int32_t max_partition) {
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  cfg.block_frames = block;
  cfg.n_inputs = m->n_in;
  cfg.n_outputs = m->n_out;
  cfg.max_ir_frames = max_ir;
  cfg.engine = engine;
  cfg.threads = 1;
  cfg.max_partition = max_partition;
  convoy_rt *rt = NULL;
  convoy_status st = convoy_rt_create(&rt, &cfg, m->r, m->n_routes);
  TS_CHECK(st == CONVOY_OK, "convoy_rt_create %s, block %d: %s", convoy_engine_name(engine),
           (int)block, convoy_last_error());
  return rt;
}

/* Whole signal through convoy_rt_process in calls of random whole-block
 * counts (chunk_max blocks at most; 0: one call). set_routes(next) before
 * the call that holds block switch_at (-1: never). */
static int api_run(convoy_rt *rt, const float *x, float *y, int32_t n_in, int32_t n_out,
                   int64_t frames, int64_t chunk_max, ts_rng *rng, const routing *next,
                   int64_t switch_at) {
  const int32_t B = convoy_rt_block_frames(rt);
  const int64_t blocks = frames / B;
  const float *in[CONVOY_RT_MAX_CHANNELS];
  float *out[CONVOY_RT_MAX_CHANNELS];
  for (int64_t k = 0; k < blocks;) {
    int64_t n = chunk_max <= 0 ? blocks - k : ts_log_range(rng, 1, chunk_max);
    if (n > blocks - k) n = blocks - k;
    if (next && switch_at >= k && switch_at < k + n) {
      n = switch_at - k; /* the switch comes with the next call */
      if (n == 0) {
        TS_CHECK_OK(convoy_rt_set_routes(rt, next->r, next->n_routes));
        next = NULL;
        continue;
      }
    }
    for (int32_t i = 0; i < n_in; i++) in[i] = x + i * frames + k * B;
    for (int32_t o = 0; o < n_out; o++) out[o] = y + o * frames + k * B;
    convoy_status st = convoy_rt_process(rt, in, out, n * B);
    TS_CHECK(st == CONVOY_OK, "convoy_rt_process at block %lld: %s", (long long)k,
             convoy_rt_last_error(rt));
    if (st != CONVOY_OK) return 0;
    k += n;
  }
  return 1;
}

/* Chunk invariance (bitwise), reference, a crossfade through set_routes(),
 * reset, and agreement with the CPU engine. */
static void public_api(ts_rng *rng, int32_t B, int32_t n_in, int32_t n_out, int64_t ir,
                       int32_t max_partition) {
  routing a = make_routing(rng, n_in, n_out, n_in + n_out, ir);
  routing b = make_routing(rng, n_in, n_out, n_in + 1, ir / 3 + 1);
  const int64_t blocks = (ir + 4 * (int64_t)B) / B + 8;
  const int64_t frames = blocks * B, switch_at = blocks / 2;
  const size_t out_bytes = sizeof(float) * (size_t)(n_out * frames);
  float *x = random_signal(rng, n_in * frames);
  float *y1 = calloc(1, out_bytes), *y2 = calloc(1, out_bytes), *yc = calloc(1, out_bytes);
  double *ref = reference(&a, x, frames);
  convoy_rt *rt = api_open(&a, B, ir, CONVOY_ENGINE_GPU, max_partition);
  if (rt) {
    char desc[512];
    TS_CHECK(convoy_rt_engine(rt) == CONVOY_ENGINE_GPU, "engine %s",
             convoy_engine_name(convoy_rt_engine(rt)));
    TS_CHECK_OK(convoy_rt_describe(rt, desc, sizeof desc));
    TS_CHECK(strstr(desc, "gpu") != NULL, "describe: %s", desc);
    if (api_run(rt, x, y1, n_in, n_out, frames, 0, rng, NULL, -1)) {
      const double e = worst_error(y1, ref, n_out, frames, 0, frames);
      TS_CHECK(e < TOLERANCE, "public API block %d, %d x %d, ir %lld: rel L2 %.3g", (int)B,
               (int)n_in, (int)n_out, (long long)ir, e);
    }
    TS_CHECK_OK(convoy_rt_reset(rt));
    if (api_run(rt, x, y2, n_in, n_out, frames, 7, rng, NULL, -1))
      TS_CHECK(memcmp(y1, y2, out_bytes) == 0,
               "public API block %d: calls of 1..7 blocks differ from one call", (int)B);
    /* A crossfade in the middle: the same bits whatever the chunking. */
    TS_CHECK_OK(convoy_rt_reset(rt));
    convoy_rt_destroy(rt);
    rt = api_open(&a, B, ir, CONVOY_ENGINE_GPU, max_partition);
  }
  if (rt) {
    if (api_run(rt, x, y1, n_in, n_out, frames, 0, rng, &b, switch_at)) {
      convoy_rt_stats stats;
      TS_CHECK_OK(convoy_rt_get_stats(rt, &stats));
      TS_CHECK(stats.route_switches == 1 && stats.blocks == blocks && stats.deadline_misses == 0,
               "stats: %lld switches, %lld blocks (of %lld), %lld misses",
               (long long)stats.route_switches, (long long)stats.blocks, (long long)blocks,
               (long long)stats.deadline_misses);
      const double e = worst_error(y1, ref, n_out, frames, 0, switch_at * B);
      TS_CHECK(e < TOLERANCE, "public API: before set_routes rel L2 %.3g", e);
      double *ref_b = reference(&b, x, frames);
      const int64_t after = (switch_at + 1 + convoy_rt_switch_delay(rt) / B + 1) * B;
      const double eb = worst_error(y1, ref_b, n_out, frames, after, frames);
      TS_CHECK(eb < TOLERANCE, "public API: after set_routes rel L2 %.3g", eb);
      free(ref_b);
    }
    convoy_rt_destroy(rt);
    rt = api_open(&a, B, ir, CONVOY_ENGINE_GPU, max_partition);
  }
  if (rt && api_run(rt, x, y2, n_in, n_out, frames, 5, rng, &b, switch_at))
    TS_CHECK(memcmp(y1, y2, out_bytes) == 0,
             "public API block %d: crossfade output depends on the chunking", (int)B);
  convoy_rt_destroy(rt);
  /* The CPU engine, uniform partitions, agrees within float rounding. */
  if (convoy_engine_available(CONVOY_ENGINE_CPU)) {
    convoy_rt *cpu = api_open(&a, B, ir, CONVOY_ENGINE_CPU, max_partition);
    rt = api_open(&a, B, ir, CONVOY_ENGINE_GPU, max_partition);
    if (cpu && rt && api_run(cpu, x, yc, n_in, n_out, frames, 0, rng, NULL, -1) &&
        api_run(rt, x, y1, n_in, n_out, frames, 0, rng, NULL, -1)) {
      double worst = 0;
      for (int32_t o = 0; o < n_out; o++) {
        double num = 0, den = 0;
        for (int64_t j = 0; j < frames; j++) {
          const double d = (double)y1[o * frames + j] - yc[o * frames + j];
          num += d * d;
          den += (double)yc[o * frames + j] * yc[o * frames + j];
        }
        const double e = den > 0 ? sqrt(num / den) : sqrt(num);
        if (!(e <= worst)) worst = e;
      }
      TS_CHECK(worst < 2 * TOLERANCE, "GPU vs CPU engine, block %d: rel L2 %.3g", (int)B, worst);
    }
    convoy_rt_destroy(cpu);
    convoy_rt_destroy(rt);
  }
  free(x);
  free(y1);
  free(y2);
  free(yc);
  free(ref);
  routing_free(&a);
  routing_free(&b);
}

int main(void) {
  if (!rt_backend_of(CONVOY_FAMILY_GPU) || convoy_gpu_count() == 0) {
    printf("test_gpu_rt: no GPU backend or no usable GPU, skipped\n");
    return TS_SKIP;
  }
  quick = ts_quick();
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_gpu_rt"));
  bad_device(&rng);
  one_tap_identity(&rng);
  random_cases(&rng);
  large_cases(&rng);
  crossfade(&rng, 64, 3000, 700, 0, -1);
  crossfade(&rng, 100, 257, 1500, 0, -1);
  crossfade(&rng, 32, 500, 2000, 0, -1);
  crossfade(&rng, 1, 40, 90, 0, -1);
  tail_cases(&rng);
  public_api(&rng, 64, 2, 2, quick ? 3000 : 24000, 0);
  public_api(&rng, 100, 3, 1, 1000, 0);
  public_api(&rng, 32, 1, 4, 333, 0);
  public_api(&rng, 64, 2, 2, quick ? 3000 : 24000, 512);
  public_api(&rng, 32, 1, 3, 2000, 128);
  return ts_finish();
}
