/* design_plot.c - the magnitude response as an SVG (design_plot.h). */
#include "design_plot.h"

#include <math.h>
#include <string.h>

/* The canvas and the plot area inside it, in SVG user units (pixels). */
#define WIDTH 800
#define HEIGHT 500
#define LEFT 72.0
#define RIGHT 776.0
#define TOP 64.0
#define BOTTOM 444.0

/* convoy_design's stopband attenuation when the spec gives none. */
#define DEFAULT_ATTEN 80.0

typedef struct frame {
  double xmax; /* Nyquist, in the view's frequency unit (Hz or cycles/sample) */
  double ymin; /* dB at the bottom and top */
  double ymax;
  double xscale; /* tick labels: frequency times this (1e-3 for kHz) */
} frame;

static double px(const frame *fr, double f) {
  return LEFT + f / fr->xmax * (RIGHT - LEFT);
}

static double py(const frame *fr, double db) {
  if (!(db >= fr->ymin)) db = fr->ymin - 1; /* -inf and below: just under the clip edge */
  if (db > fr->ymax + 1) db = fr->ymax + 1;
  return TOP + (fr->ymax - db) / (fr->ymax - fr->ymin) * (BOTTOM - TOP);
}

/* Text with &, <, >, " and ' escaped. */
static void xml_text(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", f);
      break;
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    case '\'':
      fputs("&apos;", f);
      break;
    default:
      /* Control characters are not allowed in XML 1.0. */
      fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
    }
  }
}

/* A 1, 2 or 5 times a power of 10 step giving at most max_ticks ticks. */
static double nice_step(double range, int max_ticks) {
  double raw = range / max_ticks, mag = pow(10.0, floor(log10(raw)));
  static const double m[] = {1, 2, 5, 10};
  for (int i = 0; i < 4; i++)
    if (m[i] * mag >= raw) return m[i] * mag;
  return 10 * mag;
}

/* The dB range: 0 dB near the top, and for a design room below its
 * attenuation; for taps from a file, the lowest level drawn (not below
 * -200 dB). */
static void y_range(const design_view *v, frame *fr) {
  double hi = -INFINITY, lo = INFINITY;
  for (int64_t k = 0; k < v->n_points; k++) {
    double db = v->points[k].magnitude_db;
    if (!isfinite(db)) continue;
    if (db > hi) hi = db;
    if (db < lo) lo = db;
  }
  if (!isfinite(hi)) hi = lo = 0;
  fr->ymax = hi <= 0 ? 10 : 10 * ceil((hi + 5) / 10);
  if (v->design) {
    double atten = v->design->atten > 0 ? v->design->atten : DEFAULT_ATTEN;
    fr->ymin = -20 * ceil((atten + 40) / 20);
  } else {
    if (lo < -200) lo = -200;
    fr->ymin = 20 * floor((lo - 10) / 20);
  }
  if (fr->ymin > fr->ymax - 40) fr->ymin = fr->ymax - 40;
}

static void axes(FILE *f, const design_view *v, const frame *fr) {
  fprintf(f, "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n");
  double xs = nice_step(fr->xmax * fr->xscale, 10) / fr->xscale;
  double ys = nice_step(fr->ymax - fr->ymin, 10);
  for (double t = 0; t <= fr->xmax * (1 + 1e-9); t += xs)
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>\n", px(fr, t), TOP,
            px(fr, t), BOTTOM);
  for (double t = ys * ceil(fr->ymin / ys); t <= fr->ymax + 1e-9; t += ys)
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\"/>\n", LEFT, py(fr, t), RIGHT,
            py(fr, t));
  fputs("</g>\n", f);

  fprintf(f,
          "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
          LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
  fputs("<g class=\"ticks\" font-size=\"11\" fill=\"#333333\">\n", f);
  for (double t = 0; t <= fr->xmax * (1 + 1e-9); t += xs) {
    double label = round(t / xs) * xs * fr->xscale;
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333333\"/>"
            "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%.6g</text>\n",
            px(fr, t), BOTTOM, px(fr, t), BOTTOM + 5, px(fr, t), BOTTOM + 18, label);
  }
  for (double t = ys * ceil(fr->ymin / ys); t <= fr->ymax + 1e-9; t += ys)
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#333333\"/>"
            "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"end\">%.6g</text>\n",
            LEFT - 5, py(fr, t), LEFT, py(fr, t), LEFT - 8, py(fr, t) + 4, round(t / ys) * ys);
  fputs("</g>\n", f);

  const char *unit = v->rate <= 0 ? "cycles/sample" : fr->xscale < 1 ? "kHz" : "Hz";
  fprintf(
      f,
      "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">Frequency (%s)</text>\n"
      "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\" "
      "font-size=\"12\">Magnitude (dB)</text>\n",
      (LEFT + RIGHT) / 2, HEIGHT - 14, unit, (TOP + BOTTOM) / 2);
}

typedef struct band {
  double from, to; /* Hz */
  int stop;
} band;

/* The design's bands with width > 0 (transitions left out); 0 otherwise. */
static int bands_of(const convoy_design *d, band *b) {
  if (!d || d->width <= 0) return 0;
  double w2 = d->width / 2, nyq = d->rate / 2;
  switch (d->type) {
  case CONVOY_DESIGN_LOWPASS:
  case CONVOY_DESIGN_HIGHPASS: {
    int low_stop = d->type == CONVOY_DESIGN_HIGHPASS;
    b[0] = (band){0, d->cutoff - w2, low_stop};
    b[1] = (band){d->cutoff + w2, nyq, !low_stop};
    return 2;
  }
  default: {
    int mid_stop = d->type == CONVOY_DESIGN_BANDSTOP;
    b[0] = (band){0, d->low - w2, !mid_stop};
    b[1] = (band){d->low + w2, d->high - w2, mid_stop};
    b[2] = (band){d->high + w2, nyq, !mid_stop};
    return 3;
  }
  }
}

static void edge_line(FILE *f, const frame *fr, double hz, const char *what) {
  fprintf(f,
          "<line class=\"edge\" data-hz=\"%.9g\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
          "stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"5,4\">"
          "<title>%s %.9g Hz</title></line>\n",
          hz, px(fr, hz), TOP, px(fr, hz), BOTTOM, what, hz);
}

/* The attenuation asked for, from `from` to `to` Hz, labelled at its right
 * end; `window`: a taps= design's, which sets the Kaiser window, not a band. */
static void atten_line(FILE *f, const frame *fr, double atten, double from, double to, int window) {
  fprintf(f,
          "<line class=\"atten\" data-db=\"%.6g\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
          "stroke=\"#d62728\" stroke-width=\"1.2\" stroke-dasharray=\"6,3\">"
          "<title>%s %.6g dB</title></line>\n"
          "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"11\" fill=\"#d62728\">"
          "-%.6g dB%s</text>\n",
          -atten, px(fr, from), py(fr, -atten), px(fr, to), py(fr, -atten),
          window ? "attenuation the Kaiser window is made for:" : "stopband attenuation", atten,
          px(fr, to) - 4, py(fr, -atten) - 4, atten, window ? " (window)" : "");
}

/* Shaded bands, dashed edges and the attenuation line of a design. */
static void spec_marks(FILE *f, const design_view *v, const frame *fr) {
  const convoy_design *d = v->design;
  if (!d) return;
  double atten = d->atten > 0 ? d->atten : DEFAULT_ATTEN;
  band b[3];
  int n = bands_of(d, b);
  fputs("<g class=\"spec\">\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f,
            "<rect class=\"%s\" data-from-hz=\"%.9g\" data-to-hz=\"%.9g\" x=\"%.2f\" y=\"%.1f\" "
            "width=\"%.2f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.12\"/>\n",
            b[i].stop ? "stopband" : "passband", b[i].from, b[i].to, px(fr, b[i].from), TOP,
            px(fr, b[i].to) - px(fr, b[i].from), BOTTOM - TOP, b[i].stop ? "#d62728" : "#2ca02c");
  for (int i = 0; i < n; i++) {
    if (b[i].from > 0) edge_line(f, fr, b[i].from, b[i].stop ? "stopband edge" : "passband edge");
    if (b[i].to < d->rate / 2)
      edge_line(f, fr, b[i].to, b[i].stop ? "stopband edge" : "passband edge");
  }
  if (n == 0) { /* taps=: the cutoffs, and the window's attenuation everywhere */
    if (d->type == CONVOY_DESIGN_LOWPASS || d->type == CONVOY_DESIGN_HIGHPASS) {
      edge_line(f, fr, d->cutoff, "cutoff (-6 dB)");
    } else {
      edge_line(f, fr, d->low, "low edge (-6 dB)");
      edge_line(f, fr, d->high, "high edge (-6 dB)");
    }
    atten_line(f, fr, atten, 0, d->rate / 2, 1);
  }
  for (int i = 0; i < n; i++)
    if (b[i].stop) atten_line(f, fr, atten, b[i].from, b[i].to, 0);
  fputs("</g>\n", f);
}

/* The curve, clipped to the plot area; on a grid denser than the plot's
 * pixels, each pixel column's highest and lowest level. */
static void curve(FILE *f, const design_view *v, const frame *fr) {
  fprintf(f, "<polyline class=\"response\" clip-path=\"url(#plot-area)\" fill=\"none\" "
             "stroke=\"#1f77b4\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"");
  const int64_t n = v->n_points;
  const int columns = (int)(RIGHT - LEFT);
  double unit = v->rate > 0 ? v->rate : 1.0;
  if (n <= 2 * columns) {
    for (int64_t k = 0; k < n; k++)
      fprintf(f, "%s%.2f,%.2f", k ? " " : "", px(fr, v->points[k].frequency * unit),
              py(fr, v->points[k].magnitude_db));
  } else {
    int64_t k = 0;
    for (int c = 0; c < columns; c++) {
      int64_t end = (int64_t)((double)n * (c + 1) / columns);
      double hi = -INFINITY, lo = INFINITY;
      for (; k < end; k++) {
        double db = v->points[k].magnitude_db;
        if (db > hi) hi = db;
        if (db < lo) lo = db;
      }
      double x = LEFT + c + 0.5;
      fprintf(f, "%s%.2f,%.2f %.2f,%.2f", c ? " " : "", x, py(fr, hi), x, py(fr, lo));
    }
  }
  fputs("\"/>\n", f);
}

static void title(FILE *f, const design_view *v) {
  fputs("<text x=\"400\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
        f);
  xml_text(f, v->source);
  fputs("</text>\n<text x=\"400\" y=\"44\" text-anchor=\"middle\" font-size=\"12\" "
        "fill=\"#555555\">",
        f);
  fprintf(f, "%lld taps, ", (long long)v->taps);
  if (v->rate > 0)
    fprintf(f, "rate %.9g Hz", v->rate);
  else
    fputs("rate unknown (frequency in cycles per sample)", f);
  const convoy_design *d = v->design;
  if (d) {
    band b[3];
    int n = bands_of(d, b);
    double atten = d->atten > 0 ? d->atten : DEFAULT_ATTEN;
    for (int i = 0; i < n; i++)
      fprintf(f, ", %s %.6g-%.6g Hz", b[i].stop ? "stop" : "pass", b[i].from, b[i].to);
    if (n > 0)
      fprintf(f, ", stopbands %.6g dB down", atten);
    else
      fprintf(f, ", Kaiser window for %.6g dB, transitions set by the tap count", atten);
  }
  fputs("</text>\n", f);
}

int design_plot_write(FILE *f, const design_view *v) {
  frame fr;
  fr.xmax = v->rate > 0 ? v->rate / 2 : 0.5;
  fr.xscale = v->rate > 0 && fr.xmax >= 2000 ? 1e-3 : 1.0;
  y_range(v, &fr);

  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
          "<desc>Magnitude response drawn by convoy %s</desc>\n"
          "<defs><clipPath id=\"plot-area\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
          "height=\"%.1f\"/></clipPath></defs>\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
          WIDTH, HEIGHT, WIDTH, HEIGHT, convoy_version(), LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
  title(f, v);
  spec_marks(f, v, &fr);
  axes(f, v, &fr);
  curve(f, v, &fr);
  fputs("</svg>\n", f);
  return ferror(f) ? -1 : 0;
}
