/*
 * gpu_pulse_choose.cu - the fused plan's block size M chosen by timing.
 *
 * The FFT-work model (segments x M log2 M) ignores what decides the kernel's
 * speed on a given GPU: occupancy, shared-memory traffic and the waste of
 * the last segment. Every M that fits (T - 1 < M / 2) is run once to warm
 * up and then kRuns times on the batch's own buffers (contents do not
 * matter to the speed), and the fastest wins; the model's choice is kept
 * unless another is kMargin faster, so that near-ties do not flip.
 *
 * The choice is remembered per process for each (device, geometry), so
 * that every compressor of one geometry computes the same bits (a device
 * run and a host run of two objects agree exactly). The table is guarded by
 * a mutex; when full, the oldest entry gives way (two compressors of one
 * geometry created back to back always agree).
 */
#include "gpu_conv_internal.cuh"
#include "gpu_pulse_internal.cuh"

#include <mutex>
#include <string.h>

namespace {

constexpr int kRuns = 3;
constexpr float kMargin = 0.97f;
constexpr int kCached = 256;

struct choice {
  int device;
  int32_t channels, pulses;
  int64_t pulse_len, out_len, out_start, taps;
  int layout;
  int log2m;
  float ms[GPU_PULSE_FUSED_SIZES];
};

std::mutex g_lock;
choice g_table[kCached];
int g_used, g_next; /* entries in use; the one to replace when full */

bool same_geometry(const choice &c, const choice &k) {
  return c.device == k.device && c.channels == k.channels && c.pulses == k.pulses &&
         c.pulse_len == k.pulse_len && c.out_len == k.out_len && c.out_start == k.out_start &&
         c.taps == k.taps && c.layout == k.layout;
}

bool fits(int log2m, int64_t taps) {
  return 2 * (taps - 1) < ((int64_t)1 << log2m);
}

void segment_args(int log2m, gpu_pulse_fused_args *a) {
  a->valid = ((int64_t)1 << log2m) - a->taps + 1;
  a->segments = (a->out_len + a->valid - 1) / a->valid;
}

/* The fastest of kRuns timed launches after one warm-up, in ms. */
cudaError_t time_one(int log2m, gpu_pulse_fused_args a, int64_t pulses, cudaStream_t s,
                     cudaEvent_t e0, cudaEvent_t e1, float *ms) {
  segment_args(log2m, &a);
  cudaError_t e = gpu_pulse_fused_prepare(log2m);
  if (e == cudaSuccess) e = gpu_pulse_fused_launch(log2m, a, pulses, s);
  float best = 0;
  for (int i = 0; e == cudaSuccess && i < kRuns; i++) {
    e = cudaEventRecord(e0, s);
    if (e == cudaSuccess) e = gpu_pulse_fused_launch(log2m, a, pulses, s);
    if (e == cudaSuccess) e = cudaEventRecord(e1, s);
    if (e == cudaSuccess) e = cudaEventSynchronize(e1);
    float t = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, e0, e1);
    if (e == cudaSuccess && (i == 0 || t < best)) best = t;
  }
  *ms = best;
  return e;
}

} // namespace

int gpu_pulse_fused_model(const pulse_geom *g) {
  int best = 0;
  double best_cost = 0;
  for (int k = GPU_PULSE_FUSED_MIN_LOG2; k <= GPU_PULSE_FUSED_MAX_LOG2; k++) {
    if (!fits(k, g->template_len)) continue;
    const int64_t m = (int64_t)1 << k;
    const int64_t v = m - g->template_len + 1, segs = (g->out_len + v - 1) / v;
    const double cost = (double)segs * (double)m * (double)k;
    if (!best || cost < best_cost) best = k, best_cost = cost;
  }
  return best;
}

convoy_status gpu_pulse_fused_choose(const pulse_geom *g, const gpu_pulse_fused_args &a,
                                     cudaStream_t s, int *log2m, float *ms, char *err,
                                     size_t err_size) {
  constexpr int n = GPU_PULSE_FUSED_SIZES;
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
  const int model = gpu_pulse_fused_model(g);
  *log2m = model;
  for (int i = 0; i < n; i++) ms[i] = 0;
  int fitting = 0;
  for (int k = GPU_PULSE_FUSED_MIN_LOG2; k <= GPU_PULSE_FUSED_MAX_LOG2; k++)
    fitting += fits(k, g->template_len);
  if (fitting < 2) return CONVOY_OK;
  {
    std::lock_guard<std::mutex> hold(g_lock);
    for (int i = 0; i < g_used; i++)
      if (same_geometry(g_table[i], key)) {
        *log2m = g_table[i].log2m;
        memcpy(ms, g_table[i].ms, sizeof g_table[i].ms);
        return CONVOY_OK;
      }
  }
  cudaEvent_t e0 = NULL, e1 = NULL;
  cudaError_t e = cudaEventCreate(&e0);
  if (e == cudaSuccess) e = cudaEventCreate(&e1);
  for (int k = GPU_PULSE_FUSED_MIN_LOG2; e == cudaSuccess && k <= GPU_PULSE_FUSED_MAX_LOG2; k++)
    if (fits(k, g->template_len))
      e = time_one(k, a, pulse_count(g), s, e0, e1, &ms[k - GPU_PULSE_FUSED_MIN_LOG2]);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  GC_CUDA(e, "pulse: timing the fused kernel");
  int fastest = model;
  for (int k = GPU_PULSE_FUSED_MIN_LOG2; k <= GPU_PULSE_FUSED_MAX_LOG2; k++) {
    const float t = ms[k - GPU_PULSE_FUSED_MIN_LOG2];
    if (t > 0 && t < ms[fastest - GPU_PULSE_FUSED_MIN_LOG2]) fastest = k;
  }
  const int best =
      ms[fastest - GPU_PULSE_FUSED_MIN_LOG2] < kMargin * ms[model - GPU_PULSE_FUSED_MIN_LOG2]
          ? fastest
          : model;
  *log2m = best;
  std::lock_guard<std::mutex> hold(g_lock);
  for (int i = 0; i < g_used; i++)
    if (same_geometry(g_table[i], key)) { /* another thread timed it meanwhile */
      *log2m = g_table[i].log2m;
      return CONVOY_OK;
    }
  key.log2m = best;
  memcpy(key.ms, ms, sizeof key.ms);
  if (g_used < kCached) {
    g_table[g_used++] = key;
  } else {
    g_table[g_next] = key;
    g_next = (g_next + 1) % kCached;
  }
  return CONVOY_OK;
}
