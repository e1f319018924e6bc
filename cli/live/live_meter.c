/* live_meter.c - load figures from the callback's compute times; the level
 * totals read whole. */
#define _POSIX_C_SOURCE 200809L
#include "live_meter.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void live_meter_init(live_meter *m) {
  atomic_init(&m->head, 0);
  for (int i = 0; i < LIVE_METER_RING; i++) atomic_init(&m->ns[i], 0);
  atomic_init(&m->audio_xruns, 0);
  atomic_init(&m->bad_blocks, 0);
  atomic_init(&m->clipped, 0);
  atomic_init(&m->level_seq, 0);
  atomic_init(&m->level_frames, 0);
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < LIVE_METER_PEAKS; i++) {
      atomic_init(&m->peak[s][i], 0);
      atomic_init(&m->level_sq[s][i], 0); /* the bits of +0.0 */
    }
}

float live_meter_take_peak(live_meter *m, int side, int32_t c) {
  uint32_t bits = atomic_exchange_explicit(&m->peak[side][c], 0, memory_order_relaxed);
  float v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

int64_t live_meter_levels(const live_meter *m, int32_t channels, double sq[2][LIVE_METER_PEAKS]) {
  if (channels > LIVE_METER_PEAKS) channels = LIVE_METER_PEAKS;
  for (int tries = 1;; tries++) {
    uint32_t s1 = atomic_load_explicit(&m->level_seq, memory_order_acquire);
    int64_t frames = atomic_load_explicit(&m->level_frames, memory_order_relaxed);
    for (int s = 0; s < 2; s++)
      for (int32_t c = 0; c < channels; c++) {
        uint64_t bits = atomic_load_explicit(&m->level_sq[s][c], memory_order_relaxed);
        memcpy(&sq[s][c], &bits, sizeof bits);
      }
    atomic_thread_fence(memory_order_acquire);
    if (!(s1 & 1) && atomic_load_explicit(&m->level_seq, memory_order_relaxed) == s1) return frames;
    /* The callback is writing: it is brief, unless it was preempted. */
    if (tries % 64 == 0) nanosleep(&(struct timespec){0, 100 * 1000}, NULL);
  }
}

void live_load_set_period(live_load *l, int32_t block, int32_t rate) {
  l->period_ns = 1e9 * block / rate;
  int64_t w = 2 * (int64_t)rate / block;
  l->window = (int32_t)(w < 16 ? 16 : w > LIVE_LOAD_WINDOW ? LIVE_LOAD_WINDOW : w);
  l->seen = 0;
}

void live_load_init(live_load *l, int32_t block, int32_t rate) {
  memset(l, 0, sizeof *l);
  live_load_set_period(l, block, rate);
}

static void hist_add(live_load_hist *h, double pct) {
  long bin = (long)(pct * (LIVE_LOAD_BINS / 200.0));
  h->bins[bin < 0 ? 0 : bin > LIVE_LOAD_BINS ? LIVE_LOAD_BINS : bin]++;
  h->n++;
  if (pct > h->max) h->max = pct;
}

void live_load_drain(live_load *l, const live_meter *m) {
  uint64_t head = atomic_load_explicit(&m->head, memory_order_acquire);
  if (head - l->tail > LIVE_METER_RING) {
    l->lost += head - LIVE_METER_RING - l->tail;
    l->tail = head - LIVE_METER_RING;
  }
  for (; l->tail < head; l->tail++) {
    uint32_t ns =
        atomic_load_explicit(&m->ns[l->tail & (LIVE_METER_RING - 1)], memory_order_relaxed);
    double pct = 100.0 * ns / l->period_ns;
    l->recent[l->seen % (uint64_t)l->window] = (float)pct;
    l->seen++;
    hist_add(&l->run, pct);
    hist_add(&l->since, pct);
  }
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static double hist_quantile(const live_load_hist *h, double q) {
  uint64_t target = (uint64_t)(q * (double)(h->n - 1)), acc = 0;
  for (int i = 0; i <= LIVE_LOAD_BINS; i++) {
    acc += h->bins[i];
    if (acc > target) return (i + 0.5) * (200.0 / LIVE_LOAD_BINS);
  }
  return h->max;
}

static void hist_figures(const live_load_hist *h, double *p50, double *p99, double *max) {
  *p50 = *p99 = *max = 0;
  if (h->n == 0) return;
  *p50 = hist_quantile(h, 0.50);
  *p99 = hist_quantile(h, 0.99);
  *max = h->max;
  if (*p50 > *max) *p50 = *max;
  if (*p99 > *max) *p99 = *max;
}

void live_load_since(live_load *l, double *p50, double *p99, double *max) {
  hist_figures(&l->since, p50, p99, max);
  memset(&l->since, 0, sizeof l->since);
}

void live_load_figures(const live_load *l, int whole, double *p50, double *p99, double *max) {
  *p50 = *p99 = *max = 0;
  if (whole) {
    hist_figures(&l->run, p50, p99, max);
    return;
  }
  if (l->seen == 0) return;
  int32_t n = l->seen < (uint64_t)l->window ? (int32_t)l->seen : l->window;
  float sorted[LIVE_LOAD_WINDOW];
  memcpy(sorted, l->recent, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_float);
  *p50 = sorted[(n - 1) / 2];
  *p99 = sorted[(int32_t)(0.99 * (n - 1))];
  *max = sorted[n - 1];
}
