/* test_split_plan.c - the cutting of a job into ranges (cli/scale/split_plan.h)
 * against a count of the output window frame by frame: random selections,
 * windows (--align's skip, --tail's ring-out, a dropped end), decimation and
 * phase, range counts from 1 to more than the frames. The ranges must tile
 * the selection in order, none empty, the last holding the window's end,
 * and each must own exactly the window's kept frames between its own first
 * frame (plus skip) and the next range's, written after those before it. */
#include "split_plan.h"
#include "test_support.h"

#include <stdlib.h>

/* Kept frames k in [lo, hi) of the window, counted one by one. */
static int64_t count_kept(const split_job *j, int64_t lo, int64_t hi) {
  if (lo < j->win_begin) lo = j->win_begin;
  if (hi > j->win_end) hi = j->win_end;
  int64_t n = 0;
  for (int64_t k = lo; k < hi; k++)
    n += ((k - j->phase) % j->decimation + j->decimation) % j->decimation == 0;
  return n;
}

static void check_job(const split_job *j, int want, split_range *r) {
  const int n = split_plan(j, want, r);
  TS_CHECK(n >= 1 && n <= want && n <= (j->frames > 0 ? j->frames : 1), "%d ranges for want %d", n,
           want);
  int64_t next = j->start, out = 0;
  for (int i = 0; i < n; i++) {
    TS_CHECK(r[i].first == next, "range %d starts at %lld, not %lld", i, (long long)r[i].first,
             (long long)next);
    TS_CHECK(r[i].frames >= 1 || j->frames == 0, "range %d is empty", i);
    TS_CHECK(r[i].last == (i == n - 1), "range %d: last flag %d", i, r[i].last);
    TS_CHECK(r[i].out_first == out, "range %d writes from %lld, not %lld", i,
             (long long)r[i].out_first, (long long)out);
    const int64_t lo = r[i].first + j->skip;
    const int64_t hi = r[i].last ? j->win_end : r[i].first + r[i].frames + j->skip;
    TS_CHECK(r[i].out_frames == count_kept(j, lo, hi), "range %d: %lld frames, the window has %lld",
             i, (long long)r[i].out_frames, (long long)count_kept(j, lo, hi));
    if (r[i].last) TS_CHECK(lo <= j->win_end, "the last range starts after the window's end");
    next += r[i].frames;
    out += r[i].out_frames;
  }
  TS_CHECK(next == j->start + j->frames, "the ranges end at %lld, not %lld", (long long)next,
           (long long)(j->start + j->frames));
  TS_CHECK(out == split_output_frames(j) && out == count_kept(j, j->win_begin, j->win_end),
           "%lld frames in all, the window has %lld", (long long)out,
           (long long)count_kept(j, j->win_begin, j->win_end));
}

int main(void) {
  ts_rng rng;
  ts_rng_init(&rng, ts_seed("test_split_plan"));
  split_range *r = calloc(SPLIT_MAX_RANGES, sizeof *r);
  TS_CHECK(r != NULL, "out of memory");
  for (int trial = 0; r && trial < 3000; trial++) {
    split_job j;
    j.start = ts_range(&rng, 0, 1000);
    j.frames = ts_log_range(&rng, 1, 5000);
    const int64_t taps = ts_log_range(&rng, 1, 3000);
    j.skip = ts_range(&rng, 0, taps - 1);
    const int tail = (int)ts_range(&rng, 0, 1);
    const int64_t drop_end = ts_range(&rng, 0, 2) == 0 ? ts_range(&rng, 0, taps - 1) : 0;
    j.win_begin = j.start + j.skip;
    j.win_end = (tail ? j.start + j.frames + taps - 1 : j.win_begin + j.frames) - drop_end;
    if (j.win_end < j.win_begin) j.win_end = j.win_begin;
    j.decimation = ts_range(&rng, 0, 1) ? 1 : ts_range(&rng, 2, 9);
    j.phase = j.skip % j.decimation;
    check_job(&j, (int)ts_log_range(&rng, 1, 64), r);
  }
  free(r);
  return ts_finish();
}
