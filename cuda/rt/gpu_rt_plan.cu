/*
 * gpu_rt_plan.cu - the GPU real-time convolver's plan: uniform partitions or
 * a head and a tail (gpu_rt_internal.cuh), the tail's partition by the cost
 * model or the caller's max_partition, the MAC kernels' launch shapes, and
 * the estimated time of the costliest block.
 */
#include "gpu_rt_internal.cuh"

namespace {

/* Fixed cost of one block: graph launch, its nodes, completion poll. */
constexpr double kLaunchNs = 10000.0;
/* A tail's extra graph nodes (its MAC and sums every block; transforms,
 * commit and keeping its output in some): measured on an H200, blocks of
 * 64 frames took 5 to 15 us longer at p50 with a tail whose bytes were
 * negligible. */
constexpr double kTailNodesNs = 12000.0;
/* Fraction of peak device bandwidth the kernels reach. */
constexpr double kBandwidthShare = 0.6;
/* MAC blocks per multiprocessor the split count aims for. */
constexpr int kMacBlocksPerSm = 4;
/* Threads of one MAC block: lanes x bins up to this many. */
constexpr int kMacMaxThreads = 512;
/* Largest tail partition the model tries. */
constexpr int64_t kMaxTail = (int64_t)1 << 20;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

void level_shapes(grt_level *lv, int32_t n_out, int sms) {
  lv->bins = lv->size + 1;
  lv->width = (int32_t)ceil_div(lv->bins, lv->slices);
  if (lv->width <= kMacMaxThreads) {
    lv->mac_lanes = kMacMaxThreads / lv->width;
    lv->mac_threads = lv->mac_lanes * lv->width;
  } else {
    lv->mac_lanes = 1;
    lv->mac_threads = kMacMaxThreads;
  }
  /* Enough thread blocks to fill the device, but each with at least one
   * partition per lane. */
  int64_t want = ((int64_t)kMacBlocksPerSm * (sms > 0 ? sms : 1) + n_out - 1) / n_out;
  int64_t most = lv->parts / lv->mac_lanes;
  if (most < 1) most = 1;
  if (want > most) want = most;
  if (want < 1) want = 1;
  lv->splits = (int32_t)want;
}

/* Head and tail (tail = Q frames, 0: uniform) for this layout. */
void fill(grt_geom *g, int32_t block, int32_t n_in, int32_t n_out, int64_t max_ir, int64_t tail,
          int sms) {
  *g = grt_geom{};
  g->block = block;
  g->n_in = n_in;
  g->n_out = n_out;
  grt_level &head = g->level[GRT_HEAD];
  head.size = block;
  head.slices = 1;
  head.first_tap = 0;
  if (tail == 0) {
    g->levels = 1;
    const int64_t parts = ceil_div(max_ir, block); /* create() refuses past INT32_MAX / 2 */
    head.parts = (int32_t)(parts < INT32_MAX ? parts : INT32_MAX);
  } else {
    g->levels = 2;
    head.parts = (int32_t)(2 * tail / block);
    grt_level &t = g->level[GRT_TAIL];
    t.size = (int32_t)tail;
    t.slices = (int32_t)(tail / block);
    t.first_tap = 2 * tail;
    t.parts = (int32_t)ceil_div(max_ir - 2 * tail, tail);
    level_shapes(&t, n_out, sms);
  }
  level_shapes(&head, n_out, sms);
}

} // namespace

int32_t grt_level_parts(const grt_geom *g, int level, int64_t n) {
  const grt_level &lv = g->level[level];
  if (n <= lv.first_tap) return 0;
  const int64_t p = ceil_div(n - lv.first_tap, lv.size);
  return (int32_t)(level == GRT_HEAD && g->levels == 2 && p > lv.parts ? lv.parts : p);
}

double grt_geom_cost_ns(const grt_geom *g, const convoy_rt_route *routes, int64_t n_routes,
                        int64_t max_ir, double bytes_per_s) {
  double mac = 0; /* bytes of delay line and spectra one block reads */
  for (int64_t r = 0; r < n_routes; r++) {
    const int64_t n = routes ? routes[r].n_taps : max_ir;
    for (int l = 0; l < g->levels; l++)
      mac += (double)grt_level_parts(g, l, n) * g->level[l].width * 16.0;
  }
  /* Transforms and staging: a few passes over the windows. */
  const double io = (g->n_in + 2.0 * g->n_out) * 2.0 * g->block * 4.0 * 6.0;
  double fixed = kLaunchNs, worst = 0;
  if (g->levels == 2) {
    /* The block with the tail's inverse transforms (both sets). */
    fixed += kTailNodesNs;
    worst = (g->n_in + 4.0 * g->n_out) * 2.0 * g->level[GRT_TAIL].size * 4.0 * 4.0;
  }
  return fixed + (mac + io + worst) / (kBandwidthShare * bytes_per_s * 1e-9);
}

void grt_geom_choose(grt_geom *g, int32_t block, int32_t n_in, int32_t n_out, int64_t max_ir,
                     int32_t max_partition, int64_t routes, int sms, double bytes_per_s) {
  if (max_partition > 0) {
    int64_t tail = 0;
    for (int64_t q = 2 * (int64_t)block; q <= max_partition && q <= kMaxTail; q *= 2) tail = q;
    if (tail > 0 && 2 * tail >= max_ir) tail = 0; /* nothing left for a tail */
    fill(g, block, n_in, n_out, max_ir, tail, sms);
    return;
  }
  const double bw = bytes_per_s > 0 ? bytes_per_s : 1e12;
  fill(g, block, n_in, n_out, max_ir, 0, sms);
  double best = grt_geom_cost_ns(g, nullptr, routes, max_ir, bw);
  int64_t best_tail = 0;
  for (int64_t q = 2 * (int64_t)block; 2 * q < max_ir && q <= kMaxTail; q *= 2) {
    grt_geom t;
    fill(&t, block, n_in, n_out, max_ir, q, sms);
    const double c = grt_geom_cost_ns(&t, nullptr, routes, max_ir, bw);
    if (c < best) {
      best = c;
      best_tail = q;
    }
  }
  fill(g, block, n_in, n_out, max_ir, best_tail, sms);
}
