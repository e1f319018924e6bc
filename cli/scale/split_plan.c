/* split_plan.c - a job's input cut into ranges, and each range's output (split_plan.h). */
#include "split_plan.h"

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Kept output frames k in [lo, hi): k mod d = phase. */
static int64_t kept(const split_job *j, int64_t lo, int64_t hi) {
  if (hi <= lo) return 0;
  const int64_t d = j->decimation;
  return floor_div(hi - j->phase - 1, d) - floor_div(lo - j->phase - 1, d);
}

int64_t split_output_frames(const split_job *job) {
  return kept(job, job->win_begin, job->win_end);
}

int split_plan(const split_job *j, int want, split_range *r) {
  if (want < 1) want = 1;
  if (want > SPLIT_MAX_RANGES) want = SPLIT_MAX_RANGES;
  if ((int64_t)want > j->frames) want = (int)j->frames;
  /* The last range must reach the window's end: its own outputs (from its
   * first frame + skip) must not start after it. */
  int n = want;
  for (; n > 1; n--) {
    const int64_t last_first = j->start + j->frames * (n - 1) / n;
    if (last_first + j->skip <= j->win_end) break;
  }
  for (int i = 0; i < n; i++) {
    const int64_t a = j->frames * i / n, b = j->frames * (i + 1) / n;
    r[i].first = j->start + a;
    r[i].frames = b - a;
    r[i].last = i == n - 1;
    const int64_t lo = r[i].first + j->skip;
    const int64_t hi = r[i].last ? j->win_end : r[i].first + r[i].frames + j->skip;
    r[i].out_first = kept(j, j->win_begin, lo);
    r[i].out_frames = kept(j, lo, hi < j->win_end ? hi : j->win_end);
  }
  return n;
}
