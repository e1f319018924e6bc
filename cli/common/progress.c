/* progress.c - one self-erasing status line on a terminal's stderr. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

#define PROGRESS_INTERVAL_S 0.25

double progress_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_start(progress *p, int enabled, const char *label, int64_t total_frames, double rate,
                    int32_t channels) {
  p->enabled = enabled;
  p->label = label;
  p->total_frames = total_frames;
  p->rate = rate > 0 ? rate : 0.0;
  p->channels = channels > 0 ? channels : 1;
  p->start = p->last = progress_clock();
  p->drawn = 0;
}

static void format_clock(char *buf, size_t size, double seconds) {
  if (seconds < 0) seconds = 0;
  long s = (long)(seconds + 0.5);
  if (s >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

void progress_update(progress *p, int64_t frames_done) {
  if (!p->enabled) return;
  double now = progress_clock();
  if (now - p->last < PROGRESS_INTERVAL_S) return;
  p->last = now;
  double elapsed = now - p->start;
  char speed[48];
  if (p->rate > 0)
    snprintf(speed, sizeof speed, "%.1fx real time",
             elapsed > 0 ? (double)frames_done / p->rate / elapsed : 0.0);
  else
    snprintf(speed, sizeof speed, "%.1f MS/s",
             elapsed > 0 ? (double)frames_done * p->channels / elapsed / 1e6 : 0.0);
  char line[160];
  if (p->total_frames > 0) {
    double frac = (double)frames_done / (double)p->total_frames;
    if (frac > 1) frac = 1;
    char eta[32];
    format_clock(eta, sizeof eta, frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0);
    snprintf(line, sizeof line, "%s %5.1f%%  %s  ETA %s", p->label, 100.0 * frac, speed, eta);
  } else if (p->rate > 0) {
    char done[32];
    format_clock(done, sizeof done, (double)frames_done / p->rate);
    snprintf(line, sizeof line, "%s %s of signal  %s", p->label, done, speed);
  } else {
    snprintf(line, sizeof line, "%s %lld samples  %s", p->label, (long long)frames_done, speed);
  }
  /* \033[K erases what a longer previous line left behind. */
  fprintf(stderr, "\r%s\033[K", line);
  fflush(stderr);
  p->drawn = 1;
}

void progress_end(progress *p) {
  if (p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->drawn = 0;
}
