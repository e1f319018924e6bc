/*
 * gpu_pulse_choose.cu - the fused plan (block size M and tail size) chosen
 * by timing.
 *
 * The FFT-work model (segments x M log2 M) ignores what decides the kernel's
 * speed on a given GPU: occupancy, shared-memory traffic and the waste of
 * the last segment. Every plan that fits (each M with T - 1 < M / 2, alone
 * and with each smaller fitting tail size) is run once to warm up and then
 * kRuns times on the batch's own buffers (contents do not matter to the
 * speed), and the fastest of the kind asked for wins; the model's plan of
 * that kind is kept unless another is kMargin faster, so that near-ties do
 * not flip.
 *
 * Only with plan_effort 1: with 0 (the default) the model's plan is taken
 * as it is, so that every process computes the same bits.
 *
 * The timings are remembered per process for each (device, geometry), so
 * that every compressor of one geometry and plan kind computes the same
 * bits (a device run and a host run of two objects agree exactly). The
 * table is guarded by a mutex; when full, the oldest entry gives way (two
 * compressors of one geometry created back to back always agree).
 */
#include "gpu_conv_internal.cuh"
#include "gpu_plan_cache.cuh"
#include "gpu_pulse_internal.cuh"

#include <string.h>

namespace {

constexpr int kRuns = 3;
constexpr float kMargin = 0.97f;
constexpr int kCached = 256;
constexpr int kMin = GPU_PULSE_FUSED_MIN_LOG2, kMax = GPU_PULSE_FUSED_MAX_LOG2;

struct choice {
  int device;
  int32_t channels, pulses;
  int64_t pulse_len, out_len, out_start, taps;
  int layout;
  gpu_pulse_fused_times ms;
};

gp_plan_cache<choice, kCached> g_table;

bool same_geometry(const choice &c, const choice &k) {
  return c.device == k.device && c.channels == k.channels && c.pulses == k.pulses &&
         c.pulse_len == k.pulse_len && c.out_len == k.out_len && c.out_start == k.out_start &&
         c.taps == k.taps && c.layout == k.layout;
}

bool fits(int log2m, int64_t taps) {
  return 2 * (taps - 1) < ((int64_t)1 << log2m);
}

/* ms[] entry of a plan. */
float &time_of(gpu_pulse_fused_times ms, gpu_pulse_fused_plan p) {
  return ms[p.log2m - kMin][p.tail_log2m ? p.tail_log2m - kMin + 1 : 0];
}

/* FFT work per pulse, sum of segments x M log2 M, with the 2^13 kernel's
 * work counted 1.2 times: at 512 threads and 68 KiB of shared memory a
 * block it runs fewer threads per SM than the smaller sizes (H200, radar
 * case: 1.21 against 1.00 to 1.04 time per unit of work for 2^11, 2^12). */
double model_cost(const pulse_geom *g, gpu_pulse_fused_plan p) {
  gpu_pulse_stage st[2];
  const int n = gpu_pulse_stages(g, p, st);
  double cost = 0;
  for (int i = 0; i < n; i++)
    cost += (double)st[i].segments * (double)((int64_t)1 << st[i].log2m) * (double)st[i].log2m *
            (st[i].log2m == 13 ? 1.2 : 1.0);
  return cost;
}

bool has_tail(const pulse_geom *g, gpu_pulse_fused_plan p) {
  gpu_pulse_stage st[2];
  return p.tail_log2m && gpu_pulse_stages(g, p, st) == 2;
}

/* Every plan that fits g and has a tail or not as asked, into out; returns
 * the count. */
int candidates(const pulse_geom *g, bool tail, gpu_pulse_fused_plan *out) {
  int n = 0;
  for (int k = kMin; k <= kMax; k++) {
    if (!fits(k, g->template_len)) continue;
    if (!tail) {
      out[n++] = {k, 0};
      continue;
    }
    for (int t = kMin; t < k; t++) {
      const gpu_pulse_fused_plan p = {k, t};
      if (fits(t, g->template_len) && has_tail(g, p)) out[n++] = p;
    }
  }
  return n;
}

/* All stages of plan p on stream s. */
cudaError_t launch_plan(const pulse_geom *g, gpu_pulse_fused_plan p, gpu_pulse_fused_args a,
                        cudaStream_t s) {
  gpu_pulse_stage st[2];
  const int n = gpu_pulse_stages(g, p, st);
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < n && e == cudaSuccess; i++) {
    a.segments = st[i].segments;
    a.valid = st[i].valid;
    a.out_first = st[i].out_first;
    e = gpu_pulse_fused_prepare(st[i].log2m);
    if (e == cudaSuccess) e = gpu_pulse_fused_launch(st[i].log2m, a, pulse_count(g), i > 0, s);
  }
  return e;
}

/* The fastest of kRuns timed runs after one warm-up, in ms. */
cudaError_t time_one(const pulse_geom *g, gpu_pulse_fused_plan p, const gpu_pulse_fused_args &a,
                     cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, float *ms) {
  cudaError_t e = launch_plan(g, p, a, s);
  float best = 0;
  for (int i = 0; e == cudaSuccess && i < kRuns; i++) {
    e = cudaEventRecord(e0, s);
    if (e == cudaSuccess) e = launch_plan(g, p, a, s);
    if (e == cudaSuccess) e = cudaEventRecord(e1, s);
    if (e == cudaSuccess) e = cudaEventSynchronize(e1);
    float t = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, e0, e1);
    if (e == cudaSuccess && (i == 0 || t < best)) best = t;
  }
  *ms = best;
  return e;
}

/* Times every candidate plan into ms. */
cudaError_t time_all(const pulse_geom *g, const gpu_pulse_fused_args &a, cudaStream_t s,
                     gpu_pulse_fused_times ms) {
  gpu_pulse_fused_plan c[GPU_PULSE_FUSED_SIZES * (GPU_PULSE_FUSED_SIZES + 1)];
  int n = candidates(g, false, c);
  n += candidates(g, true, c + n);
  cudaEvent_t e0 = NULL, e1 = NULL;
  cudaError_t e = cudaEventCreate(&e0);
  if (e == cudaSuccess) e = cudaEventCreate(&e1);
  for (int i = 0; i < n && e == cudaSuccess; i++)
    e = time_one(g, c[i], a, s, e0, e1, &time_of(ms, c[i]));
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  return e;
}

/* The candidates of the kind asked for (plans without a tail for FUSED,
 * with one for FUSED_TAIL where any has one, all for AUTO) into c. */
int of_kind(const pulse_geom *g, gpu_pulse_plan want, gpu_pulse_fused_plan *c) {
  int n = 0;
  if (want != GPU_PULSE_FUSED_TAIL) n += candidates(g, false, c);
  if (want != GPU_PULSE_FUSED) n += candidates(g, true, c + n);
  if (n == 0) n = candidates(g, false, c);
  return n;
}

/* The model's choice among c[0 .. n-1]; log2m 0 when n == 0. */
gpu_pulse_fused_plan cheapest(const pulse_geom *g, const gpu_pulse_fused_plan *c, int n) {
  gpu_pulse_fused_plan best = {0, 0};
  double best_cost = 0;
  for (int i = 0; i < n; i++) {
    const double cost = model_cost(g, c[i]);
    if (!best.log2m || cost < best_cost) best = c[i], best_cost = cost;
  }
  return best;
}

/* The fastest timed plan of the kind asked for; the model's unless another
 * is kMargin faster. */
gpu_pulse_fused_plan pick(const pulse_geom *g, gpu_pulse_plan want, gpu_pulse_fused_times ms) {
  gpu_pulse_fused_plan c[GPU_PULSE_FUSED_SIZES * (GPU_PULSE_FUSED_SIZES + 1)];
  const int n = of_kind(g, want, c);
  const gpu_pulse_fused_plan model = cheapest(g, c, n);
  gpu_pulse_fused_plan fastest = model;
  for (int i = 0; i < n; i++) {
    const float t = time_of(ms, c[i]);
    if (t > 0 && (time_of(ms, fastest) <= 0 || t < time_of(ms, fastest))) fastest = c[i];
  }
  const float tm = time_of(ms, model);
  return tm <= 0 || time_of(ms, fastest) < kMargin * tm ? fastest : model;
}

} // namespace

int gpu_pulse_stages(const pulse_geom *g, gpu_pulse_fused_plan plan, gpu_pulse_stage st[2]) {
  if (plan.log2m < kMin || plan.log2m > kMax || !fits(plan.log2m, g->template_len)) return 0;
  const int64_t v = ((int64_t)1 << plan.log2m) - g->template_len + 1;
  const int64_t whole = g->out_len / v, rest = g->out_len - whole * v;
  const bool tail = plan.tail_log2m >= kMin && plan.tail_log2m < plan.log2m &&
                    fits(plan.tail_log2m, g->template_len) && whole > 0 && rest > 0;
  if (!tail) {
    st[0] = {plan.log2m, (g->out_len + v - 1) / v, v, 0};
    return 1;
  }
  const int64_t vt = ((int64_t)1 << plan.tail_log2m) - g->template_len + 1;
  st[0] = {plan.log2m, whole, v, 0};
  st[1] = {plan.tail_log2m, (rest + vt - 1) / vt, vt, whole * v};
  return 2;
}

gpu_pulse_fused_plan gpu_pulse_fused_model(const pulse_geom *g, bool allow_tail) {
  gpu_pulse_fused_plan c[GPU_PULSE_FUSED_SIZES * (GPU_PULSE_FUSED_SIZES + 1)];
  return cheapest(g, c, of_kind(g, allow_tail ? GPU_PULSE_AUTO : GPU_PULSE_FUSED, c));
}

convoy_status gpu_pulse_fused_choose(const pulse_geom *g, gpu_pulse_plan want,
                                     const gpu_pulse_fused_args &a, cudaStream_t s,
                                     gpu_pulse_fused_plan *plan, gpu_pulse_fused_times ms,
                                     char *err, size_t err_size) {
  choice key;
  memset(&key, 0, sizeof key);
  key.device = g->device;
  key.channels = g->channels;
  key.pulses = g->pulses;
  key.pulse_len = g->pulse_len;
  key.out_len = g->out_len;
  key.out_start = g->out_start;
  key.taps = g->template_len;
  key.layout = (int)g->layout;
  memset(ms, 0, sizeof(gpu_pulse_fused_times));
  gpu_pulse_fused_plan all[GPU_PULSE_FUSED_SIZES * (GPU_PULSE_FUSED_SIZES + 1)];
  if (g->plan_effort < 1 || of_kind(g, GPU_PULSE_AUTO, all) < 2) { /* the model, or no choice */
    *plan = pick(g, want, ms);
    return CONVOY_OK;
  }
  auto same = [&key](const choice &c) { return same_geometry(c, key); };
  choice kept;
  if (!g_table.find(same, &kept)) {
    GP_CUDA(time_all(g, a, s, key.ms), "pulse: timing the fused kernel");
    g_table.add_first(same, key, &kept); /* another thread may have timed it meanwhile */
  }
  memcpy(ms, kept.ms, sizeof(gpu_pulse_fused_times));
  *plan = pick(g, want, ms);
  return CONVOY_OK;
}
