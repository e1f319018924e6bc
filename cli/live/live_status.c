/* live_status.c - the status line and summary of `convoy live`. */
#include "live_status.h"

#include <inttypes.h>
#include <stdio.h>

int64_t live_figures_xruns(const live_figures *f) {
  return f->audio_xruns + f->misses + f->bad_blocks;
}

double live_figures_us(const live_figures *f, double load) {
  return f->rate > 0 ? load * f->block / f->rate * 1e4 : 0;
}

static void xrun_detail(const live_figures *f, char *buf, size_t n) {
  if (live_figures_xruns(f) == 0) {
    buf[0] = '\0';
    return;
  }
  snprintf(buf, n, " (audio %" PRId64 ", late %" PRId64 ", failed %" PRId64 ")", f->audio_xruns,
           f->misses, f->bad_blocks);
}

void live_status_format(const live_figures *f, char *buf, size_t n) {
  char detail[96];
  xrun_detail(f, detail, sizeof detail);
  snprintf(buf, n,
           "block %d  latency %.1f ms  load p50 %.1f%% p99 %.1f%% max %.1f%%  callback "
           "%.0f/%.0f/%.0f us  xruns %" PRId64 "%s  clipped %" PRId64,
           (int)f->block, f->latency_ms, f->p50, f->p99, f->max, live_figures_us(f, f->p50),
           live_figures_us(f, f->p99), live_figures_us(f, f->max), live_figures_xruns(f), detail,
           f->clipped);
}

void live_status_show(const live_figures *f, int terminal) {
  char line[LIVE_STATUS_MAX];
  live_status_format(f, line, sizeof line);
  fprintf(stderr, "%s%s%s", terminal ? "\r" : "convoy: ", line, terminal ? "\033[K" : "\n");
  fflush(stderr);
}

void live_status_clear(int terminal) {
  if (!terminal) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

/* How the IR changes went where not all were heard one by one. */
static void changes_detail(const live_figures *f, char *buf, size_t n) {
  buf[0] = '\0';
  if (f->ir_merged > 0 && f->ir_pending > 0)
    snprintf(buf, n, " (%" PRId64 " merged into the next, %" PRId64 " pending at the stop)",
             f->ir_merged, f->ir_pending);
  else if (f->ir_merged > 0)
    snprintf(buf, n, " (%" PRId64 " merged into the next)", f->ir_merged);
  else if (f->ir_pending > 0)
    snprintf(buf, n, " (%" PRId64 " pending at the stop)", f->ir_pending);
}

void live_status_summary(const live_figures *f, double seconds) {
  char detail[96], changes[96];
  xrun_detail(f, detail, sizeof detail);
  changes_detail(f, changes, sizeof changes);
  fprintf(stderr,
          "convoy: live: %.1f s, %" PRId64 " blocks of %d at %d Hz, latency %.1f ms, load p50 "
          "%.1f%% p99 %.1f%% max %.1f%%, callback p50/p99/max %.0f/%.0f/%.0f us, xruns %" PRId64
          "%s, clipped %" PRId64 ", IR changes %" PRId64 "%s\n",
          seconds, f->blocks, (int)f->block, (int)f->rate, f->latency_ms, f->p50, f->p99, f->max,
          live_figures_us(f, f->p50), live_figures_us(f, f->p99), live_figures_us(f, f->max),
          live_figures_xruns(f), detail, f->clipped, f->ir_changes, changes);
  fflush(stderr);
}
