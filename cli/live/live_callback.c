/* live_callback.c - the real-time audio callback of `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_callback.h"

#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void live_engine_run(live_engine *e, convoy_rt *rt, const float *const *in, float *const *out,
                     unsigned long frames) {
  int64_t t0 = now_ns();
  const int32_t block = rt ? convoy_rt_block_frames(rt) : 1;
  int ok = rt && in && frames % (unsigned long)block == 0 &&
           convoy_rt_process(rt, in, out, (int64_t)frames) == CONVOY_OK;
  int64_t clipped = 0;
  live_meter *m = &e->meter;
  const int32_t metered = e->channels < LIVE_METER_PEAKS ? e->channels : LIVE_METER_PEAKS;
  live_meter_levels_begin(m);
  for (int32_t c = 0; c < e->channels; c++) {
    float *o = out[c];
    if (!ok) memset(o, 0, frames * sizeof *o);
    if (c >= metered) continue;
    float peak = 0.0f, in_peak = 0.0f;
    double sq = 0, in_sq = 0;
    for (unsigned long i = 0; i < frames; i++) {
      const float a = o[i] < 0 ? -o[i] : o[i];
      clipped += a > 1.0f;
      if (a > peak) peak = a;
      sq += (double)a * a;
    }
    if (in && in[c])
      for (unsigned long i = 0; i < frames; i++) {
        const float a = in[c][i] < 0 ? -in[c][i] : in[c][i];
        if (a > in_peak) in_peak = a;
        in_sq += (double)a * a;
      }
    live_meter_peak(m, LIVE_OUT, c, peak);
    live_meter_peak(m, LIVE_IN, c, in_peak);
    live_meter_add_sq(m, LIVE_OUT, c, sq);
    live_meter_add_sq(m, LIVE_IN, c, in_sq);
  }
  live_meter_levels_end(m, (int64_t)frames);
  if (!ok) live_meter_add(&e->meter.bad_blocks, 1);
  if (clipped) live_meter_add(&e->meter.clipped, clipped);
  /* Time per block of the convolver, so that the load is per block period. */
  int64_t dt = (now_ns() - t0) * block / (int64_t)(frames ? frames : 1);
  live_meter_push(&e->meter, dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt);
}

int live_callback(const void *input, void *output, unsigned long frames,
                  const PaStreamCallbackTimeInfo *time_info, PaStreamCallbackFlags flags,
                  void *user) {
  (void)time_info;
  live_engine *e = user;
  if (flags & (paInputUnderflow | paInputOverflow | paOutputUnderflow | paOutputOverflow))
    live_meter_add(&e->meter.audio_xruns, 1);
  if (!output) return paContinue;
  live_engine_run(e, live_engine_take(e), input, output, frames);
  return paContinue;
}
