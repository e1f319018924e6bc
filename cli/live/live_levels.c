/* live_levels.c - per-channel levels drained from the callback's meter. */
#include "live_levels.h"

#include <math.h>
#include <string.h>

void live_level_span_reset(live_level_span *s) {
  memset(s, 0, sizeof *s);
}

void live_levels_init(live_levels *l, const live_meter *m, int32_t channels) {
  memset(l, 0, sizeof *l);
  l->channels = channels < LIVE_METER_PEAKS ? channels : LIVE_METER_PEAKS;
  l->frames = live_meter_levels(m, l->channels, l->sq);
}

static void span_add(live_level_span *s, int side, int32_t c, double sq, float peak) {
  s->sq[side][c] += sq;
  if (peak > s->peak[side][c]) s->peak[side][c] = peak;
}

void live_levels_drain(live_levels *l, live_meter *m) {
  /* Peaks and totals are read apart: a block's peak may fall in this span
   * and its squares in the next, nothing is lost. */
  double now[2][LIVE_METER_PEAKS];
  float peak[2][LIVE_METER_PEAKS];
  for (int s = 0; s < 2; s++)
    for (int32_t c = 0; c < l->channels; c++) peak[s][c] = live_meter_take_peak(m, s, c);
  const int64_t frames = live_meter_levels(m, l->channels, now);
  l->bars.frames += frames - l->frames;
  l->stats.frames += frames - l->frames;
  for (int s = 0; s < 2; s++)
    for (int32_t c = 0; c < l->channels; c++) {
      const double dsq = now[s][c] - l->sq[s][c];
      span_add(&l->bars, s, c, dsq, peak[s][c]);
      span_add(&l->stats, s, c, dsq, peak[s][c]);
      l->sq[s][c] = now[s][c];
    }
  l->frames = frames;
}

double live_level_rms(const live_level_span *s, int side, int32_t c) {
  if (s->frames <= 0) return 0;
  const double ms = s->sq[side][c] / (double)s->frames;
  return ms > 0 ? sqrt(ms) : 0;
}

double live_level_db(double v) {
  return v > 0 ? 20.0 * log10(v) : -INFINITY;
}
