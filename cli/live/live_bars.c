/* live_bars.c - the level bars of `convoy live --meter`. */
#define _POSIX_C_SOURCE 200809L
#include "live_bars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MIN_BAR 10 /* narrower than this, the line has no bar */

static void term_size(int *cols, int *rows) {
  struct winsize w;
  *cols = 80;
  *rows = 24;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0) {
    if (w.ws_col > 0) *cols = w.ws_col;
    if (w.ws_row > 0) *rows = w.ws_row;
  }
}

static void db_text(char *buf, size_t n, double v) {
  if (v > 0)
    snprintf(buf, n, "%6.1f", 20.0 * log10(v));
  else
    snprintf(buf, n, "%6s", "-inf");
}

/* The column of level v on a bar of width cols: 0 below the floor. */
static int column(double v, int cols) {
  if (v <= 0) return 0;
  double x = (20.0 * log10(v) - LIVE_BARS_FLOOR_DB) / -LIVE_BARS_FLOOR_DB;
  if (x < 0) return 0;
  if (x > 1) x = 1;
  return (int)lround(x * cols);
}

static void bar_line(char *line, int width, int side, int32_t c, double rms, double peak,
                     double hold) {
  char r[16], p[16], h[16];
  db_text(r, sizeof r, rms);
  db_text(p, sizeof p, peak);
  db_text(h, sizeof h, hold);
  int n = snprintf(line, (size_t)width + 1, "%-3s %-4d rms %s  peak %s  hold %s dBFS ",
                   side == LIVE_IN ? "in" : "out", (int)c + 1, r, p, h);
  const int cols = width - n - 2;
  if (n < 0 || n >= width || cols < MIN_BAR) return;
  const int cr = column(rms, cols), cp = column(peak, cols), ch = column(hold, cols);
  char *bar = line + n;
  *bar++ = '[';
  for (int i = 0; i < cols; i++)
    bar[i] = ch > 0 && i == ch - 1 ? '|' : i < cr ? '#' : i < cp ? '-' : ' ';
  bar[cols] = ']';
  bar[cols + 1] = '\0';
}

/* Prints text as rows of at most width columns; counts them in b->lines. */
static void rows(live_bars *b, const char *text, int width, int last) {
  size_t len = strlen(text), at = 0;
  do {
    size_t take = len - at < (size_t)width ? len - at : (size_t)width;
    fprintf(stderr, "%.*s\033[K", (int)take, text + at);
    at += take;
    if (at < len || !last) {
      fputc('\n', stderr);
      b->lines++;
    }
  } while (at < len);
}

void live_bars_draw(live_bars *b, live_level_span *s, int32_t channels, const char *status,
                    double now) {
  int cols, height;
  term_size(&cols, &height);
  const int width = cols > 1 ? cols - 1 : 1; /* never the last column: some terminals wrap there */
  if (b->lines > 0)
    fprintf(stderr, "\r\033[%dA", b->lines);
  else
    fputc('\r', stderr);
  b->lines = 0;
  /* Room for the status line (two rows at most) and one row to spare. */
  const int room = height - 3,
            total = 2 * (channels < LIVE_METER_PEAKS ? channels : LIVE_METER_PEAKS);
  const int fit = total <= room ? total : room - 1;
  int shown = 0;
  char line[512];
  for (int side = LIVE_IN; side <= LIVE_OUT; side++)
    for (int32_t c = 0; c < channels && c < LIVE_METER_PEAKS; c++) {
      const double peak = s->peak[side][c];
      if (peak >= b->hold[side][c] || now >= b->hold_until[side][c]) {
        b->hold[side][c] = (float)peak;
        b->hold_until[side][c] = now + LIVE_BARS_HOLD_S;
      }
      if (shown >= fit) continue;
      bar_line(line, width < (int)sizeof line - 1 ? width : (int)sizeof line - 1, side, c,
               live_level_rms(s, side, c), peak, b->hold[side][c]);
      rows(b, line, width, 0);
      shown++;
    }
  if (shown < total) {
    snprintf(line, sizeof line, "(%d more channels: a taller terminal shows them)", total - shown);
    rows(b, line, width, 0);
  }
  rows(b, status, width, 1);
  fflush(stderr);
  live_level_span_reset(s);
}

void live_bars_clear(live_bars *b) {
  if (b->lines > 0)
    fprintf(stderr, "\r\033[%dA\033[J", b->lines);
  else
    fputs("\r\033[K", stderr);
  b->lines = 0;
  fflush(stderr);
}
