/* rt_schedule.c - partition schedule and cost model of the CPU real-time
 * convolver. */
#include "rt_schedule.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Model constants, single core: a real FFT of size n costs about
 * FFT_NS_PER_NLOGN * n * log2(n) + FFT_NS_FIXED, and one complex
 * multiply-add of a spectrum bin (split re/im, vectorised, streaming the
 * filter spectrum from memory) about MAC_NS. */
#define FFT_NS_PER_NLOGN 0.2
#define FFT_NS_FIXED 60.0
#define MAC_NS 0.35

static double fft_ns(double n) {
  return FFT_NS_PER_NLOGN * n * log2(n > 2 ? n : 2) + FFT_NS_FIXED;
}

static int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/* Nanoseconds per frame of one partition size p with count partitions. */
static double level_ns_per_frame(int64_t p, int64_t count, int32_t n_in, int32_t n_out,
                                 int32_t n_routes) {
  double transforms = (double)(n_in + n_out) * fft_ns(2.0 * (double)p);
  double macs = (double)n_routes * (double)count * (double)(p + 1) * MAC_NS;
  return (transforms + macs) / (double)p;
}

double rt_schedule_cost_ns(const rt_schedule *s, int32_t n_in, int32_t n_out, int32_t n_routes) {
  double per_frame = level_ns_per_frame(s->block, s->n_head, n_in, n_out, n_routes);
  for (int j = 0; j < s->n_levels; j++)
    per_frame += level_ns_per_frame(s->size[j], s->count[j], n_in, n_out, n_routes);
  return per_frame * (double)s->block;
}

/* Greedy schedule with partitions up to cap: add partitions of the current
 * size; move to twice the size as soon as the offset allows it (>= 2P' - B)
 * and the model says covering the rest with the larger size is cheaper. */
static void build(rt_schedule *s, int32_t block, int64_t max_ir, int64_t cap, int32_t n_in,
                  int32_t n_out, int32_t n_routes) {
  memset(s, 0, sizeof *s);
  s->block = block;
  int64_t p = block, off = 0;
  int level = -1;
  while (off < max_ir) {
    int64_t p2 = 2 * p;
    if (p2 <= cap && s->n_levels < RT_MAX_LEVELS && off >= 2 * p2 - block) {
      int64_t rem = max_ir - off;
      double keep = (double)n_routes * (double)ceil_div(rem, p) * (double)(p + 1) / (double)p;
      double up = (double)n_routes * (double)ceil_div(rem, p2) * (double)(p2 + 1) / (double)p2;
      keep *= MAC_NS;
      up = up * MAC_NS + (double)(n_in + n_out) * fft_ns(2.0 * (double)p2) / (double)p2;
      if (up < keep) {
        level = s->n_levels++;
        s->size[level] = (int32_t)p2;
        s->offset[level] = off;
        p = p2;
      }
    }
    if (level < 0)
      s->n_head++;
    else
      s->count[level]++;
    off += p;
  }
  if (s->n_head == 0) s->n_head = 1;
}

void rt_schedule_choose(rt_schedule *s, int32_t block, int64_t max_ir, int32_t max_partition,
                        int32_t n_in, int32_t n_out, int32_t n_routes) {
  int64_t limit = max_partition > 0 ? max_partition : RT_AUTO_PARTITION_CAP;
  if (limit > RT_PARTITION_LIMIT) limit = RT_PARTITION_LIMIT;
  if (max_partition > 0) {
    build(s, block, max_ir, limit, n_in, n_out, n_routes);
    return;
  }
  build(s, block, max_ir, block, n_in, n_out, n_routes);
  double best = rt_schedule_cost_ns(s, n_in, n_out, n_routes);
  for (int64_t cap = 2 * (int64_t)block; cap <= limit; cap *= 2) {
    rt_schedule t;
    build(&t, block, max_ir, cap, n_in, n_out, n_routes);
    double c = rt_schedule_cost_ns(&t, n_in, n_out, n_routes);
    if (c < best) {
      best = c;
      *s = t;
    }
  }
}

int32_t rt_schedule_used(const rt_schedule *s, int level, int64_t n_taps) {
  if (level < 0) {
    int64_t n = ceil_div(n_taps, s->block);
    return (int32_t)(n < s->n_head ? n : s->n_head);
  }
  if (n_taps <= s->offset[level]) return 0;
  int64_t n = ceil_div(n_taps - s->offset[level], s->size[level]);
  return (int32_t)(n < s->count[level] ? n : s->count[level]);
}

void rt_schedule_format(const rt_schedule *s, char *buf, size_t buf_size) {
  if (!buf || buf_size == 0) return;
  size_t used = 0;
  int n = snprintf(buf, buf_size, "%dx%d", (int)s->n_head, (int)s->block);
  for (int j = 0; j < s->n_levels && n >= 0; j++) {
    used += (size_t)n;
    if (used >= buf_size) break;
    n = snprintf(buf + used, buf_size - used, " + %dx%d", (int)s->count[j], (int)s->size[j]);
  }
}
